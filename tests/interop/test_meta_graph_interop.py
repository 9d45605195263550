"""Meta graphs across TF and jtrain.

TF parses a jtrain-written ``.meta`` (its collections' ``VariableDef``s and
``SaverDef`` included). A TF-written ``.meta`` (a small MLP trained one step with
GradientDescent and saved by TF's ``Saver``) imports into jtrain: variables,
collections and the ``SaverDef`` line up, ``saver.restore`` reads TF's
checkpoint, the forward pass gives TF's logits, TF's own training op (its
gradient graph and ``ApplyGradientDescent``) trains with TF's losses, TF's
stateless initializers run, and a node jtrain cannot run (TF's ``SaveV2``) raises
``UnimplementedError`` listing the unsupported op types. More models (every TF1
optimizer, batch norm, resource variables) are committed goldens:
``tests/adapters/test_graph_kernels.py``.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from jtrain import errors
from tests.interop.cpu_estimates import estimate_ulps

tf1 = real_tf.compat.v1
RNG = np.random.default_rng(11)
X = RNG.normal(size=(5, 4)).astype(np.float32)
Y = np.array([0, 1, 2, 0, 1], np.int32)


def _build(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="h")
    logits = tf.layers.dense(h, 3, name="out")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return x, y, logits, train


@pytest.fixture(scope="module")
def tf_saved(tmp_path_factory):
    """TF's checkpoint and .meta of the MLP after one step, TF's logits then, and
    TF's losses over three more steps from there."""
    d = tmp_path_factory.mktemp("tf_meta")
    graph = real_tf.Graph()
    with graph.as_default(), tf1.variable_scope(tf1.get_variable_scope(), use_resource=False):
        x, y, logits, train = _build(tf1)
        loss = tf1.get_collection("losses")[0]
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(train, {x: X, y: Y})
            prefix = saver.save(sess, os.path.join(str(d), "model.ckpt"), global_step=1)
            tf_logits = sess.run(logits, {x: X})
            losses = [sess.run([train, loss], {x: X, y: Y})[1] for _ in range(3)]
    return prefix, tf_logits, losses


def test_tf_parses_a_jtrain_meta(tmp_path):
    with jtf.Graph().as_default():
        x, y, _, train = _build(jtf)
        saver = jtf.train.Saver()
        with jtf.Session() as sess:
            sess.run(jtf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=0)
    with open(prefix + ".meta", "rb") as f:
        meta = tf1.MetaGraphDef.FromString(f.read())
    assert meta.saver_def.restore_op_name == "save/restore_all"
    variables = [_variable_def(raw) for raw in meta.collection_def["variables"].bytes_list.value]
    assert [v.variable_name for v in variables] == [
        "h/kernel:0",
        "h/bias:0",
        "out/kernel:0",
        "out/bias:0",
        "global_step:0",
    ]
    assert variables[0].initializer_name == "h/kernel/Assign"
    assert variables[0].snapshot_name == "h/kernel/read:0"
    assert list(meta.collection_def["train_op"].node_list.value) == ["GradientDescent"]


def _variable_def(raw):
    """TF's own parse of a ``VariableDef``."""
    from tensorflow.core.framework import variable_pb2

    return variable_pb2.VariableDef.FromString(raw)


def test_tf_meta_imports_restores_and_trains_as_tf(tf_saved):
    prefix, tf_logits, tf_losses = tf_saved
    with jtf.Graph().as_default() as graph:
        saver = jtf.train.import_meta_graph(prefix + ".meta")
        assert [v.op.name for v in jtf.trainable_variables()] == [
            "h/kernel",
            "h/bias",
            "out/kernel",
            "out/bias",
        ]
        assert jtf.train.get_global_step().op.name == "global_step"
        assert graph.get_operation_by_name("h/MatMul").type == "MatMul"
        with jtf.Session() as sess:
            saver.restore(sess, prefix)
            assert sess.run(jtf.train.get_global_step()) == 1
            logits = sess.run("out/BiasAdd:0", {"x:0": X})
            np.testing.assert_allclose(logits, tf_logits, rtol=1e-6, atol=1e-6)
            # TF's gradient graph (ReluGrad, BiasAddGrad, Reshape/Tile/Sum with shape
            # tensors...) and ApplyGradientDescent run through graph_kernels.
            train = jtf.get_collection("train_op")[0]
            loss = jtf.get_collection("losses")[0]
            losses = [sess.run([train, loss], {"x:0": X, "y:0": Y})[1] for _ in range(3)]
            np.testing.assert_allclose(losses, tf_losses, rtol=1e-6)
            assert sess.run(jtf.train.get_global_step()) == 4
            # TF's stateless random initializers run (jax.random's values)...
            sess.run(jtf.global_variables_initializer())
            assert sess.run(jtf.train.get_global_step()) == 0
            # ... TF's saver ops do not: a clear error saying what to use.
            save = saver.saver_def.save_tensor_name
            with pytest.raises(errors.UnimplementedError, match="unsupported op types") as e:
                sess.run(save, {saver.saver_def.filename_tensor_name: prefix + "-jtrain"})
    assert "SaveV2" in str(e.value) and "use the Saver that import_meta_graph" in str(e.value)


def test_a_jtrain_meta_with_a_while_loop_reimports_and_trains_as_tf(tmp_path):
    """A graph with a ``tf.while_loop`` (an RNN-like loop reading a variable), written
    by jtrain's ``Saver`` and imported into a new graph: its loop runs and trains to
    TF's values. The loop body's parameter nodes (``while/Identity``, no input) made
    ``import_meta_graph`` raise IndexError."""
    from tests.interop.twin import run_both

    h0 = np.float32([[0.5, -1.0]])

    def script(tf):
        w = tf.get_variable("w", initializer=np.float32([[0.9, 0.1], [-0.2, 0.8]]))
        _, h = tf.while_loop(
            lambda t, *_: t < 3,
            lambda t, h: [t + 1, tf.tanh(tf.matmul(h, w))],
            [0, h0],
            maximum_iterations=3,
        )
        loss = tf.reduce_sum(tf.square(h), name="loss")
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        tf.add_to_collection("train_op", train)
        saver = tf.train.Saver()

        def run(sess):
            if tf is jtf:
                saver.save(sess, str(tmp_path / "model"))
            return [sess.run([train, loss])[1] for _ in range(3)]

        return run

    theirs, ours = run_both(script)

    with jtf.Graph().as_default() as graph:
        saver = jtf.train.import_meta_graph(str(tmp_path / "model.meta"))
        train = jtf.get_collection("train_op")[0]
        loss = graph.get_tensor_by_name("loss:0")
        with jtf.Session() as sess:
            saver.restore(sess, str(tmp_path / "model"))
            again = [sess.run([train, loss])[1] for _ in range(3)]
    np.testing.assert_allclose(again, theirs, rtol=1e-6)


def _elementwise_model(tf):
    """A model of TF's kernels jtrain reproduces bit for bit (no MatMul): a bias_add, a
    tensor with three uses (one AddN in the gradient graph), both softmax losses, a
    sigmoid loss, a mean over the batch."""
    x = tf.placeholder(tf.float32, [32, 24], name="x")
    y = tf.placeholder(tf.int32, [32], name="y")
    w = tf.get_variable("w", initializer=np.linspace(0.5, 1.5, 24, dtype=np.float32))
    b = tf.get_variable("b", initializer=np.zeros(24, np.float32))
    h = tf.tanh(tf.nn.bias_add(x * w, b))
    logits = h * w + tf.sin(h) - h * 0.5
    loss = tf.identity(
        tf.losses.sparse_softmax_cross_entropy(y, logits)
        + tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=tf.one_hot(y, 24), logits=logits))
        + tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.cast(x > 0, tf.float32), logits=logits)),
        name="total_loss",
    )  # fmt: skip
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return x, y, loss, train


def test_tf_meta_gradient_graph_trains_bit_for_bit(tmp_path):
    """TF's own gradient graph imported (``Sum``, ``AddN``, ``BiasAddGrad``, the cross
    entropies' kernels through ``graph_kernels``) takes TF's steps to the bit: the loss
    and the variables after 3 steps (``Sum`` and ``AddN`` added in XLA's and the caller's
    order, ``BiasAddGrad`` in XLA's, the losses by XLA's functions before). Where this
    machine's reciprocal estimate is not Intel's, within its bound."""
    rng = np.random.RandomState(4)
    feed_x, feed_y = rng.randn(32, 24).astype(np.float32), rng.randint(0, 24, 32)
    graph = real_tf.Graph()
    with graph.as_default(), tf1.variable_scope(tf1.get_variable_scope(), use_resource=False):
        x, y, loss, train = _elementwise_model(tf1)
        tf1.add_to_collection("train_op", train)
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
            feed = {x: feed_x, y: feed_y}
            theirs = [sess.run([train, loss], feed)[1] for _ in range(3)]
            their_vars = sess.run(tf1.global_variables())
    with jtf.Graph().as_default():
        saver = jtf.train.import_meta_graph(prefix + ".meta")
        with jtf.Session() as sess:
            saver.restore(sess, prefix)
            train = jtf.get_collection("train_op")[0]
            feed = {"x:0": feed_x, "y:0": feed_y}
            ours = [sess.run([train, "total_loss:0"], feed)[1] for _ in range(3)]
            our_vars = sess.run(jtf.global_variables())
    # The sigmoid loss's gradient multiplies by TF's ``Reciprocal`` (log1p's gradient),
    # the CPU's estimate: where this machine's is not Intel's (``cpu_estimates``: an AMD
    # EPYC's), within its bound of each array's largest magnitude (a bias that trains
    # near zero: 7 of its own ulps, 0.11 of the bias vector's largest, measured there).
    ulps = estimate_ulps()
    for a, b in zip([ours, *our_vars], [theirs, *their_vars], strict=True):
        a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
        if ulps:
            atol = ulps * float(np.spacing(np.abs(b).max()))
            np.testing.assert_allclose(a, b, rtol=0, atol=atol)
        else:
            np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


def _import_and_minimize(tf, tmp_path, name, batch):
    """``name``'s MLP saved by ``tf``'s ``Saver``, imported into a new graph and
    trained there by a new optimizer (``minimize`` of the imported loss): the losses
    of 5 steps."""
    prefix = str(tmp_path / name)
    x = np.random.default_rng(5).normal(size=(16, 4)).astype(np.float32)
    y = np.arange(16, dtype=np.int32) % 3
    scope = tf1.variable_scope(tf1.get_variable_scope(), use_resource=False)
    with tf.Graph().as_default(), scope if tf is tf1 else contextlib.nullcontext():
        inputs = tf.placeholder(tf.float32, [batch, 4], name="x")
        labels = tf.placeholder(tf.int32, [batch], name="y")
        seeded = [tf.glorot_uniform_initializer(seed=s) for s in (1, 2)]
        h = tf.layers.dense(inputs, 8, tf.nn.relu, kernel_initializer=seeded[0], name="h")
        logits = tf.layers.dense(h, 3, kernel_initializer=seeded[1], name="out")
        tf.add_to_collection("loss", tf.losses.sparse_softmax_cross_entropy(labels, logits))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, prefix)
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        loss = tf.get_collection("loss")[0]
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        feed = {graph.get_tensor_by_name("x:0"): x, graph.get_tensor_by_name("y:0"): y}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.restore(sess, prefix)
            return [sess.run([loss, train], feed)[0] for _ in range(5)]


@pytest.mark.parametrize("batch", [16, None], ids=["known_batch", "unknown_batch"])
def test_an_imported_meta_trains_with_a_new_optimizer_as_tf(tmp_path, batch):
    """Each side imports the ``.meta`` its own ``Saver`` wrote and differentiates the
    imported graph anew (jtrain's exported nodes carry their derivatives): TF's losses,
    bit for bit where the graph knows the batch size; with it unknown, the first two
    bit for bit and the rest within float32 rounding (``tf.matmul`` takes TF's order
    only for static shapes, docs/migration.md). jtrain's raised "No VJP is available"
    before."""
    theirs = _import_and_minimize(tf1, tmp_path, "tf", batch)
    ours = _import_and_minimize(jtf, tmp_path, "jtrain", batch)
    if batch is None:
        np.testing.assert_array_equal(ours[:2], theirs[:2])
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    else:
        np.testing.assert_array_equal(ours, theirs)
