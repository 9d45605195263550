"""TF1's recurrent networks (``tf.nn.rnn_cell``, ``dynamic_rnn``...) against real TensorFlow.

``rnn_script`` runs the same TF1 models under jtrain that ``goldens/gen_rnn.py``
ran under TF 2.21 (``tf.compat.v1`` with ``disable_v2_behavior()``, tf-keras'
legacy cells): variable names and shapes, outputs, final states, gradients with
respect to inputs and variables, GradientDescent losses on an LSTM, and TF's
``Saver`` checkpoint of that LSTM restored into the port, training on to TF's
losses.
"""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from adapters import v1 as tf
from tests.adapters import rnn_script

GOLDEN = pathlib.Path(__file__).parents[1] / "goldens" / "rnn"
# Each value within RTOL of its tensor's largest magnitude: XLA and Eigen sum the
# matmuls and the gradients' accumulations over time in different orders (measured:
# at most 4.6e-7, dynamic_lstm's input gradient, x64 off and on).
RTOL = 1e-6


@pytest.fixture(scope="module")
def theirs():
    with np.load(GOLDEN / "results.npz") as data:
        return {k: data[k] for k in data.files}


def _compare(ours: dict, theirs: dict, prefix: str) -> None:
    keys = sorted(k for k in theirs if k.startswith(prefix + "/"))
    assert keys and sorted(k for k in ours if k.startswith(prefix + "/")) == keys
    for key in keys:
        got, want = ours[key], theirs[key]
        if want.dtype.kind == "U":
            assert list(got) == list(want), key
            continue
        assert got.shape == want.shape and got.dtype == want.dtype, key
        scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-30)
        assert float(np.max(np.abs(got - want), initial=0.0)) <= RTOL * scale, key


@pytest.fixture(scope="module")
def ours():
    return rnn_script.model_results(tf)


@pytest.mark.parametrize("model", list(rnn_script.MODELS))
def test_model_matches_tf(theirs, ours, model):
    """Variables, outputs, final states and gradients on fixed weights."""
    _compare(ours, theirs, model)


def test_masked_steps_follow_tf():
    """Past ``sequence_length`` the outputs are zero and the state is copied through."""
    with np.load(GOLDEN / "results.npz") as data:
        outputs, state = data["dynamic_basic_rnn/value/0"], data["dynamic_basic_rnn/value/1"]
    assert not outputs[1, 2:].any() and not outputs[2].any()
    np.testing.assert_array_equal(state[1], outputs[1, 1])
    assert not state[2].any()


def _normalized(message: str) -> str:
    # TF's Tensor repr is Tensor("x:0", shape=..., dtype=...), jtrain's <tf.Tensor 'x:0' ...>;
    # object addresses differ; TF names the cast constant of a Python list rnn/Cast/x:0.
    message = re.sub(
        r'Tensor\("([^"]+)", shape=(\([^)]*\)), dtype=(\w+)\)', r"T(\1 \2 \3)", message
    )
    message = re.sub(
        r"<tf.Tensor '([^']+)' shape=(\([^)]*\)) dtype=(\w+)>", r"T(\1 \2 \3)", message
    )
    message = re.sub(r"rnn/Cast(/x)?:0", "rnn/Cast:0", message)
    return re.sub(r" at 0x[0-9a-f]+", "", message)


@pytest.mark.parametrize("case", list(rnn_script._error_cases(tf)))
def test_errors_match_tf(theirs, case):
    ours = rnn_script.error_results(tf)[f"errors/{case}"]
    want = str(theirs[f"errors/{case}"])
    assert want != "no error"
    assert _normalized(str(ours)) == _normalized(want)


def test_dropout_wrapper_drops_outputs_with_a_fresh_mask_per_step_and_run():
    """``output_keep_prob``: each output is 0 or the undropped output / keep_prob."""
    cells = tf.nn.rnn_cell
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, 3])
        cell = cells.BasicLSTMCell(8)
        plain, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        dropped, _ = tf.nn.dynamic_rnn(
            cells.DropoutWrapper(cell, output_keep_prob=0.5), x, dtype=tf.float32, scope="rnn"
        )
        feed = {x: np.random.RandomState(0).normal(size=(4, 6, 3)).astype(np.float32)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(plain, feed)
            first, second = sess.run(dropped, feed), sess.run(dropped, feed)
        names = [v.op.name for v in tf.global_variables()]
    assert names == ["rnn/basic_lstm_cell/kernel", "rnn/basic_lstm_cell/bias"]  # one cell
    for got in (first, second):
        kept = got != 0
        np.testing.assert_allclose(got[kept], want[kept] / 0.5, rtol=1e-6)
        assert 0.3 < kept.mean() < 0.7
    assert (first != second).any()  # a fresh mask per run
    masks = first != 0
    assert any((masks[:, t] != masks[:, 0]).any() for t in range(1, 6))  # and per step


def test_training_and_checkpoint_restore_match_tf(theirs):
    """GradientDescent on an LSTM; TF's checkpoint restored into the port trains on alike."""
    ours = rnn_script.training_results(tf, None)
    _compare(ours, theirs, "train")
    resumed = rnn_script.restore(tf, str(GOLDEN / "ckpt"))
    np.testing.assert_allclose(resumed, theirs["resumed/losses"], rtol=RTOL)


def _cell_gradients(make_cell, batch, feed_batch):
    """Loss, outputs, final state and the gradients of a ``dynamic_rnn`` over 6 steps of
    16 inputs (batch given at graph build or None), with sequence lengths."""
    rng = np.random.RandomState(3)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [batch, 6, 16])
        lengths = tf.placeholder(tf.int32, [batch])
        outputs, state = tf.nn.dynamic_rnn(
            make_cell(), x, sequence_length=lengths, dtype=tf.float32
        )
        leaves = tf.nest.flatten(state)
        loss = tf.reduce_sum(tf.square(outputs)) + sum(tf.reduce_sum(s) for s in leaves)
        xs = [x, *tf.trainable_variables()]
        grads = tf.gradients(loss, xs)
        feed = {
            x: rng.normal(size=(feed_batch, 6, 16)).astype(np.float32),
            lengths: rng.randint(1, 7, feed_batch),
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([loss, outputs, *leaves, *grads], feed)
        names = [v.op.name for v in xs[1:]]
    return values, names


_CELLS = {
    "lstm": lambda: tf.nn.rnn_cell.LSTMCell(40),
    "gru": lambda: tf.nn.rnn_cell.GRUCell(40),
    "basic_rnn": lambda: tf.nn.rnn_cell.BasicRNNCell(40),
    "multi_lstm": lambda: tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.BasicLSTMCell(40) for _ in range(2)]
    ),
    "dropout_lstm": lambda: tf.nn.rnn_cell.DropoutWrapper(
        tf.nn.rnn_cell.LSTMCell(40), output_keep_prob=0.5, state_keep_prob=0.7, seed=5
    ),
}


@pytest.mark.parametrize("batch", [8, None])
@pytest.mark.parametrize("cell", list(_CELLS))
def test_kernel_gradients_are_one_product_after_the_loop(monkeypatch, cell, batch):
    """A cell's product with a kernel from outside the loop that TF's order does not
    cover (``[8, 56] @ [56, 160]`` here, or any size while the batch is unknown) takes
    the kernel's gradient as one product over every step after the loop
    (``rnn_products``): the loss, outputs, states and every other gradient keep the
    per-step loop's bits (signed zeros included), the kernels' gradients are within
    float32 rounding of its sum."""
    from adapters.v1.ops import rnn, rnn_products

    calls = []
    deferring = rnn_products.scan
    monkeypatch.setattr(rnn_products, "scan", lambda *a: calls.append(a[-1]) or deferring(*a))
    deferred, names = _cell_gradients(_CELLS[cell], batch, 8)
    assert calls and all(calls)  # the products were deferred
    monkeypatch.setattr(rnn, "_deferred_products", lambda body: [])
    per_step, _ = _cell_gradients(_CELLS[cell], batch, 8)
    n_grads = len(names) + 1
    values, grads = deferred[:-n_grads], deferred[-n_grads:]
    want_values, want_grads = per_step[:-n_grads], per_step[-n_grads:]
    for got, want in zip(values + grads[:1], want_values + want_grads[:1], strict=True):
        np.testing.assert_array_equal(
            np.asarray(got).view(np.int32), np.asarray(want).view(np.int32)
        )
    for name, got, want in zip(names, grads[1:], want_grads[1:], strict=True):
        if name.endswith("kernel"):
            scale = float(np.max(np.abs(want)))
            assert float(np.max(np.abs(got - want))) <= 1e-6 * scale, name
            assert got.dtype == want.dtype and got.shape == want.shape
        else:
            np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32), name)


def test_deferred_kernel_gradients_of_a_loop_of_no_steps():
    """Fed no time steps, a loop with deferred kernel products (``LSTMCell(40)`` at
    batch 4) gives the initial state and zero gradients (its one-step probe read the
    first step, past the end: IndexError)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, None, 16])
        out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(40), x, dtype=tf.float32)
        loss = tf.reduce_sum(state.h) + tf.reduce_sum(out)
        grads = tf.gradients(loss, tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value, (kernel, bias) = sess.run([loss, grads], {x: np.ones((4, 0, 16), np.float32)})
    assert value == 0.0 and kernel.shape == (56, 160) and bias.shape == (160,)
    assert not kernel.any() and not bias.any()
