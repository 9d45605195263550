"""Meta graphs: ``export_meta_graph``, ``Saver``'s ``.meta`` files, ``import_meta_graph``.

A jtrain ``.meta`` carries each node's computation (``jax.export``), so the
imported graph trains without the Python code that built it: after ``restore``
its losses equal the original graph's bit for bit. TF's side (TF parses jtrain's
``.meta``; a TF-written ``.meta`` imports) is in
``tests/interop/test_meta_graph_interop.py``.
"""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain.protos import meta_graph_pb2, saver_pb2

RNG = np.random.default_rng(3)
X = RNG.normal(size=(6, 4)).astype(np.float32)
Y = np.array([0, 1, 2, 0, 1, 2], np.int32)
X2 = RNG.normal(size=(9, 4)).astype(np.float32)  # another batch size: symbolic shapes
Y2 = np.arange(9, dtype=np.int32) % 3


def _build():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    with tf.device("/cpu:0"):
        h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="h")
    logits = tf.layers.dense(h, 3, name="out")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
    tf.summary.scalar("loss", loss)
    return x, y, loss, train


def _steps(sess, train, loss, feeds):
    return [sess.run([train, loss], {"x:0": a, "y:0": b})[1] for a, b in feeds]


FEEDS = [(X, Y), (X2, Y2), (X, Y)]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A trained graph saved with its .meta, and its losses over FEEDS after that."""
    d = tmp_path_factory.mktemp("meta")
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, train = _build()
        saver = tf.train.Saver(max_to_keep=3)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {x: X, y: Y})
            prefix = saver.save(sess, str(d / "model.ckpt"), global_step=1)
            losses = _steps(sess, train, loss, FEEDS)
            step = sess.run(tf.train.get_global_step())
    return graph, saver, prefix, losses, step


def test_save_writes_the_meta_graph(saved):
    graph, saver, prefix, _, _ = saved
    assert sorted(os.listdir(os.path.dirname(prefix))) == [
        "checkpoint",
        "model.ckpt-1.data-00000-of-00001",
        "model.ckpt-1.index",
        "model.ckpt-1.meta",
    ]
    with open(prefix + ".meta", "rb") as f:
        meta = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    assert meta.saver_def == saver.as_saver_def()
    assert meta.saver_def.max_to_keep == 3
    assert meta.meta_info_def.tensorflow_version == "2.21.0"
    assert [n.name for n in meta.graph_def.node] == [op.name for op in graph.get_operations()]
    kinds = {k: v.WhichOneof("kind") for k, v in meta.collection_def.items()}
    assert kinds["variables"] == kinds["trainable_variables"] == "bytes_list"
    assert kinds["train_op"] == kinds["losses"] == kinds["summaries"] == "node_list"
    assert list(meta.collection_def["train_op"].node_list.value) == ["Adam"]
    nodes = {n.name: n for n in meta.graph_def.node}
    assert "_jtrain_call" in nodes["h/MatMul"].attr  # a table op: rebuilt through the table
    assert "_jtrain_fn" not in nodes["h/MatMul"].attr
    assert "_jtrain_fn" in nodes["gradients/grads"].attr
    assert "_jtrain_memo" in nodes["gradients/grads"].attr  # it re-evaluates the forward pass
    assert list(nodes["Adam/update"].attr["_jtrain_writes"].list.s)[:2] == [b"h/kernel", b"h/bias"]
    assert "_jtrain_fn" not in nodes["x"].attr  # rebuilt from TF's attributes


def test_imported_meta_graph_trains_as_the_original(saved):
    _, _, prefix, losses, step = saved
    graph = tf.Graph()
    with graph.as_default():
        saver = tf.train.import_meta_graph(prefix + ".meta")
        train = tf.get_collection("train_op")[0]
        loss = tf.get_collection("losses")[0]
        assert [v.op.name for v in tf.trainable_variables()] == [
            "h/kernel",
            "h/bias",
            "out/kernel",
            "out/bias",
        ]
        assert graph.get_operation_by_name("h/MatMul").device == "/device:CPU:0"
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            assert _steps(sess, train, loss, FEEDS) == losses
            assert sess.run(tf.train.get_global_step()) == step
            # The imported initializers work too.
            sess.run(tf.global_variables_initializer())
            assert sess.run(tf.train.get_global_step()) == 0


def _momentum_losses(sess, loss, train, restore):
    sess.run(tf.global_variables_initializer())
    restore(sess)
    return _steps(sess, train, loss, FEEDS)


def test_an_imported_graph_trains_with_a_new_optimizer(saved):
    """``tf.gradients`` through the imported nodes (a new optimizer's ``minimize`` of
    the imported loss, the gradient of the loss with respect to a placeholder): each
    exported function carries its derivative, the same as the original graph's."""
    _, _, prefix, _, _ = saved
    native = tf.Graph()
    with native.as_default():
        x, _, loss, _ = _build()
        saver = tf.train.Saver()
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        (dx,) = tf.gradients(loss, [x])
        with tf.Session() as sess:
            expected = _momentum_losses(sess, loss, train, lambda s: saver.restore(s, prefix))
            expected_dx = sess.run(dx, {"x:0": X2, "y:0": Y2})
    imported = tf.Graph()
    with imported.as_default():
        saver = tf.train.import_meta_graph(prefix + ".meta")
        loss = tf.get_collection("losses")[0]
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        (dx,) = tf.gradients(loss, [imported.get_tensor_by_name("x:0")])
        with tf.Session() as sess:
            got = _momentum_losses(sess, loss, train, lambda s: saver.restore(s, prefix))
            got_dx = sess.run(dx, {"x:0": X2, "y:0": Y2})
    assert got == expected
    np.testing.assert_array_equal(got_dx, expected_dx)


def test_a_node_jax_cannot_differentiate_is_exported_without_its_gradient(tmp_path, caplog):
    """A loop of a computed length has no reverse derivative: its node is exported
    without one, and the imported graph still runs it."""
    path = str(tmp_path / "loop.meta")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        _, y = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 1.5), [0, x])
        tf.identity(y, name="y")
        with caplog.at_level(logging.DEBUG, logger="adapters.v1.framework.meta_graph"):
            tf.train.export_meta_graph(path)
    assert "exported without its gradient" in caplog.text
    with tf.Graph().as_default() as graph:
        tf.train.import_meta_graph(path)
        with tf.Session() as sess:
            value = sess.run("y:0", {"x:0": [1.0, 2.0, 4.0], "n:0": 2})
        np.testing.assert_array_equal(value, np.float32([2.25, 4.5, 9.0]))
        assert graph.get_tensor_by_name("y:0").dtype == tf.float32


def test_import_scope_clear_devices_and_text(saved, tmp_path):
    graph, saver, prefix, losses, _ = saved
    path = str(tmp_path / "graph.meta")
    with graph.as_default():
        meta = tf.train.export_meta_graph(path, as_text=True, saver_def=saver.as_saver_def())
    assert open(path).read().startswith("meta_info_def {")
    imported = tf.Graph()
    with imported.as_default():
        restorer = tf.train.import_meta_graph(path, clear_devices=True, import_scope="copy")
        assert imported.get_operation_by_name("copy/h/MatMul").device == ""
        train = imported.get_operation_by_name("copy/Adam")
        loss = imported.get_tensor_by_name("copy/sparse_softmax_cross_entropy_loss:0")
        with tf.Session() as sess:
            restorer.restore(sess, prefix)  # checkpoint keys without the scope
            got = [sess.run([train, loss], {"copy/x:0": a, "copy/y:0": b})[1] for a, b in FEEDS]
    assert got == losses
    assert meta.saver_def == saver.as_saver_def()


def test_summaries_run_after_import(saved):
    from jtrain.protos import summary_pb2

    _, _, prefix, _, _ = saved
    with tf.Graph().as_default():
        tf.train.import_meta_graph(prefix + ".meta")
        summary = tf.get_collection("summaries")[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(summary, {"x:0": X, "y:0": Y})
    assert [v.tag for v in summary_pb2.Summary.FromString(value).value] == ["loss"]


def test_saver_def_round_trip_and_no_meta(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(3, dtype=np.float32), name="v")
        saver = tf.train.Saver(max_to_keep=2, keep_checkpoint_every_n_hours=2.5)
        proto = saver.as_saver_def()
        assert proto == saver.saver_def
        assert (proto.restore_op_name, proto.version) == ("save/restore_all", saver_pb2.SaverDef.V2)
        other = tf.train.Saver.from_proto(proto)
        assert other.as_saver_def() == proto
        with tf.Session() as sess:
            sess.run(v.initializer)
            prefix = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
    assert not os.path.exists(prefix + ".meta")


def test_a_meta_graph_written_on_a_gpu_machine_runs_on_the_cpu(tmp_path, monkeypatch):
    """Device ops are lowered for the writing process's platform and the CPU: a .meta
    written where JAX exports for CUDA (measured on an H100: it was CUDA only, and a
    CPU process refused it) imports and trains here with the original's losses."""
    from jax import export

    monkeypatch.setattr(export, "default_export_platform", lambda: "cuda")
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, train = _build()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
            losses = _steps(sess, train, loss, FEEDS)
    with open(prefix + ".meta", "rb") as f:
        meta = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    grads = next(n for n in meta.graph_def.node if n.name == "gradients/grads")
    assert export.deserialize(grads.attr["_jtrain_fn"].s).platforms == ("cuda", "cpu")
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(prefix + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            got = _steps(
                sess, tf.get_collection("train_op")[0], tf.get_collection("losses")[0], FEEDS
            )
    assert got == losses


def test_a_swish_model_reloads_and_trains_as_the_original_without_a_warning(tmp_path, caplog):
    """``tf.nn.swish`` is TF's ``custom_gradient``: its exported graph holds the stand-in
    for the incoming gradient (``GradientInput``), which never runs; the import says
    nothing of it and the reloaded step trains with the original's losses."""
    x_v = np.random.RandomState(0).normal(size=(4, 3)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.ones((3, 2), np.float32), name="w")
        loss = tf.reduce_sum(tf.square(tf.nn.swish(tf.matmul(x, w))), name="loss")
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
            live = [sess.run([train, loss], {x: x_v})[1] for _ in range(3)]
    with tf.Graph().as_default() as graph, caplog.at_level(logging.WARNING):
        saver = tf.train.import_meta_graph(prefix + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            train, loss = graph.get_operation_by_name("train"), graph.get_tensor_by_name("loss:0")
            reloaded = [sess.run([train, loss], {"x:0": x_v})[1] for _ in range(3)]
    assert reloaded == live
    assert "cannot run in jtrain" not in caplog.text


def test_what_reads_a_node_that_cannot_run_once_imported_is_not_exported(tmp_path, monkeypatch):
    """A gradient through a dropout of the input's shape re-draws its mask, from a
    generator no meta graph carries: it cannot be exported, and what reads it (the
    gradient clipping, the optimizer's update) could not run once imported either, so
    no export of it is attempted. The forward part runs after import; the update
    raises TF's ``UnimplementedError`` naming the gradient."""
    from adapters.v1.framework import meta_graph

    attempted = []
    export = meta_graph._export
    monkeypatch.setattr(meta_graph, "_export", lambda op: attempted.append(op.name) or export(op))
    path = str(tmp_path / "dropout.meta")
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(tf.ones([3, 2]), name="w")
        loss = tf.reduce_sum(tf.nn.dropout(tf.matmul(x, w), keep_prob=0.5), name="loss")
        grads = tf.gradients(loss, [w])
        clipped, _ = tf.clip_by_global_norm(grads, 1.0)
        train = tf.train.AdamOptimizer(0.1).apply_gradients([(clipped[0], w)], name="train")
        tf.add_to_collection("update", train)
        tf.train.export_meta_graph(path)
    assert "gradients/grads" in attempted
    downstream = [n for n in attempted if n.startswith(("global_norm", "clip_by_global_norm"))]
    assert downstream == [] and "train/update" not in attempted, attempted
    with tf.Graph().as_default():
        tf.train.import_meta_graph(path)
        (train,) = tf.get_collection("update")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run("loss:0", {"x:0": [[0.0, 0.0, 0.0]]}), 0.0)
            with pytest.raises(tf.errors.UnimplementedError, match="'gradients/grads'"):
                sess.run(train, {"x:0": [[1.0, 2.0, 3.0]]})
