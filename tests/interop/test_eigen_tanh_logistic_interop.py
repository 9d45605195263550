"""``tf.tanh``, ``tf.sigmoid`` and their gradients (``TanhGrad``, ``SigmoidGrad``) bit for
bit against TF 2.21's CPU kernels (Eigen's ``ptanh_float`` and ``scalar_logistic_op``, see
``jtrain/_eigen/tanh_logistic.py``), fed through placeholders so nothing is folded:
float32, float16 and bfloat16, random values over several scales and the edges (signed
zeros, denormals, the approximations' clamp points, infinities, NaN), tensors whose
size is and is not a multiple of 8 (TF's scalar path takes the rest), an LSTM's
forward and backward pass, and the gradient kernels of an imported ``GraphDef``.

Before: XLA's ``tanh`` and ``logistic`` differed from TF's on about 60% of float32
values (up to 7 ulps), their gradients on about half (up to 5).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.bits import assert_bits
from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(45)
_EDGES = np.float32(
    [0.0, -0.0, 1e-45, -1e-45, 1e-39, -3e-39, 1.1754944e-38, 1e-20, 4e-4, -4e-4, 0.5,
     7.9073896, -7.9073896, 7.907389, 7.90739, -7.90739, 8.0, -9.0, 16.635532, 16.635534,
     17.0, -87.0, -88.5, -103.5, -104.0, -104.00001, -150.0, 88.7, 89.0, 1e30, -1e30,
     3.4e38, -3.4e38, np.inf, -np.inf, np.nan, -np.nan]
)  # fmt: skip
_VALUES = _RNG.permutation(
    np.concatenate([_RNG.randn(1024).astype(np.float32) * s for s in (0.05, 1, 4, 40)])
)
DTYPES = ["float32", "float16", "bfloat16"]
# Sizes 4133 and 93 (5 elements past full packets of 8), 7 (no full packet), 1024.
SHAPES = [(4133,), (31, 3), (7,), (32, 32)]


def _inputs(shape):
    """Random values, the edges first and last (in TF's scalar tail) where they fit."""
    size = int(np.prod(shape))
    values = np.resize(_VALUES, size)
    if size >= 2 * len(_EDGES) + 8:
        values[: len(_EDGES)] = values[-len(_EDGES) :] = _EDGES
    grads = np.resize(_RNG.randn(size).astype(np.float32), size)
    return values.reshape(shape), grads.reshape(shape)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_values_and_gradients_bit_for_bit(name, dtype, shape):
    values, grads = _inputs(shape)

    def script(tf):
        x = tf.placeholder(getattr(tf, dtype), shape)
        dy = tf.placeholder(getattr(tf, dtype), shape)
        y = getattr(tf, name)(x)
        (dx,) = tf.gradients(y, [x], grad_ys=dy)
        feed = {x: values.astype(x.dtype.as_numpy_dtype), dy: grads.astype(x.dtype.as_numpy_dtype)}
        return lambda sess: sess.run([y, dx], feed)

    (t_y, t_dx), (o_y, o_dx) = run_both(script)
    assert_bits(o_y, t_y)
    assert_bits(o_dx, t_dx)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel", ["TanhGrad", "SigmoidGrad"])
def test_imported_gradient_kernels_bit_for_bit(kernel, dtype):
    """The kernels on any ``y`` (not only a tanh's output), sizes 4133 and 5, from a
    ``GraphDef`` TF built."""
    from tensorflow.python.ops import gen_math_ops

    fn = gen_math_ops.tanh_grad if kernel == "TanhGrad" else gen_math_ops.sigmoid_grad
    graph = real_tf.Graph()
    with graph.as_default():
        y = real_tf.compat.v1.placeholder(dtype, [None], name="y")
        dy = real_tf.compat.v1.placeholder(dtype, [None], name="dy")
        fn(y, dy, name="out")
    feeds = []
    for size in (4133, 5):
        ys = _RNG.uniform(-1.5, 1.5, size).astype(np.float32)
        ys[:4] = [0.0, 1.0, -1.0, np.nan]
        feeds.append((ys, _RNG.randn(size).astype(np.float32)))
    with real_tf.compat.v1.Session(graph=graph) as sess:
        theirs = [sess.run("out:0", {"y:0": a, "dy:0": b}) for a, b in feeds]
    mine = jtf.Graph()
    with mine.as_default():
        jtf.import_graph_def(graph.as_graph_def(), name="")
        with jtf.Session(graph=mine) as sess:
            ours = [sess.run("out:0", {"y:0": a, "dy:0": b}) for a, b in feeds]
    for o, t in zip(ours, theirs, strict=True):
        assert_bits(o, t)


@pytest.mark.parametrize("steps", [6, 1])
def test_lstm_bit_for_bit(steps):
    """``dynamic_rnn`` over two ``LSTMCell`` layers (as the PTB benchmark), weights
    assigned on both sides: outputs and final state to the bit; with one step, the top
    layer's weight gradients too (the other gradients pass through ``MatMul``'s gradient,
    whose sums XLA orders otherwise: not this module's)."""
    batch, depth, hidden = 4, 8, 16
    rng = np.random.RandomState(7)
    inputs = rng.randn(batch, steps, depth).astype(np.float32)
    weights = {
        f"{layer}/{kind}": (rng.randn(*shape) * 0.3).astype(np.float32)
        for layer, rows in ((0, depth + hidden), (1, 2 * hidden))
        for kind, shape in (("kernel", (rows, 4 * hidden)), ("bias", (4 * hidden,)))
    }

    def script(tf):
        x = tf.placeholder(tf.float32, inputs.shape)
        cells = [tf.nn.rnn_cell.LSTMCell(hidden) for _ in range(2)]
        outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell(cells), x, dtype=tf.float32)
        loss = tf.reduce_sum(outputs * outputs) + tf.reduce_sum(state[1].c)
        fetches = [outputs, state[1].c, state[1].h]
        if steps == 1:
            fetches.append(tf.gradients(loss, cells[1].trainable_variables))
        assign = [
            tf.assign(v, weights[f"{v.name.split('cell_')[1][0]}/{v.name.split('/')[-1][:-2]}"])
            for v in tf.trainable_variables()
        ]

        def run(sess):
            sess.run(assign)
            return sess.run(fetches, {x: inputs})

        return run

    theirs, ours = run_both(script)
    if steps == 1:
        theirs, ours = [*theirs[:3], *theirs[3]], [*ours[:3], *ours[3]]
    for o, t in zip(ours, theirs, strict=True):
        assert_bits(o, t)
