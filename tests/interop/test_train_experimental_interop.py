"""tf.train.experimental.PythonState and CheckpointOptions: TF 2.21's
``tf.compat.v1.train.Checkpoint`` and jtrain's read each other's Python state, and
write callbacks run as TF's do."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf

tf1 = real_tf.compat.v1


def _state_class(base):
    class Counter(base):
        def __init__(self, value=b""):
            self.value = value

        def serialize(self):
            return self.value

        def deserialize(self, string_value):
            # TF hands graph-mode restores a string tensor's value; jtrain bytes.
            self.value = bytes(getattr(string_value, "numpy", lambda: string_value)())

    return Counter


def _tf_checkpoint(state, path=None, save=True):
    """TF's side: a Checkpoint of a variable and ``state``; saves or restores ``path``."""
    g = real_tf.Graph()
    with g.as_default():
        v = tf1.Variable(np.arange(3, dtype=np.float32), name="v")
        ckpt = tf1.train.Checkpoint(v=v, state=state)
        calls = []
        options = real_tf.train.CheckpointOptions(
            experimental_write_callbacks=[calls.append, lambda: calls.append("no-arg")]
        )
        with tf1.Session(graph=g) as sess:
            sess.run(v.initializer)
            if save:
                written = ckpt.save(path, session=sess, options=options)
                return written, calls
            ckpt.restore(path).run_restore_ops(sess)
            return sess.run(v), None


def _jtrain_checkpoint(state, path, save):
    with jtf.Graph().as_default():
        v = jtf.Variable(np.zeros(3, np.float32), name="v")
        ckpt = jtf.train.Checkpoint(v=v, state=state)
        calls = []
        options = jtf.train.CheckpointOptions(
            experimental_write_callbacks=[calls.append, lambda: calls.append("no-arg")]
        )
        with jtf.Session() as sess:
            sess.run(v.initializer)
            if save:
                sess.run(v.assign(np.arange(3, dtype=np.float32)))
                return ckpt.save(path, session=sess, options=options), calls
            ckpt.restore(path).run_restore_ops(sess)
            return sess.run(v), None


def test_tf_python_state_restores_in_jtrain(tmp_path):
    tf_state = _state_class(real_tf.train.experimental.PythonState)(b"\x00seen:7")
    path, tf_calls = _tf_checkpoint(tf_state, str(tmp_path / "tf" / "ckpt"))
    assert tf_calls == [path, "no-arg"]
    state = _state_class(jtf.train.experimental.PythonState)()
    values, _ = _jtrain_checkpoint(state, path, save=False)
    assert state.value == b"\x00seen:7"
    np.testing.assert_array_equal(values, np.arange(3, dtype=np.float32))


def test_jtrain_python_state_restores_in_tf(tmp_path):
    state = _state_class(jtf.train.experimental.PythonState)(b"epoch=3")
    path, calls = _jtrain_checkpoint(state, str(tmp_path / "j" / "ckpt"), save=True)
    assert calls == [path, "no-arg"]
    keys = dict(tf1.train.list_variables(path))
    assert "state/.ATTRIBUTES/py_state" in keys
    tf_state = _state_class(real_tf.train.experimental.PythonState)()
    values, _ = _tf_checkpoint(tf_state, path, save=False)
    np.testing.assert_array_equal(values, np.arange(3, dtype=np.float32))
    assert tf_state.value == b"epoch=3"


def test_python_state_is_abstract_as_in_tf():
    for module in (real_tf.train.experimental, jtf.train.experimental):
        with pytest.raises(TypeError):
            module.PythonState()


def test_get_summary_description_reads_tf_nodes():
    from jtrain.protos.node_def_pb2 import NodeDef

    g = real_tf.Graph()
    with g.as_default():
        described = tf1.summary.tensor_summary(
            "t", real_tf.constant([1.0]), summary_description="a tensor, described"
        )
        other = tf1.summary.scalar("s", real_tf.constant(1.0))
    for op in (described.op, other.op):
        node = NodeDef.FromString(op.node_def.SerializeToString())
        if op.type != "TensorSummary":
            with pytest.raises(ValueError, match=f"Can't get_summary_description on {op.type}"):
                jtf.summary.get_summary_description(node)
            continue
        want = tf1.summary.get_summary_description(op.node_def)
        got = jtf.summary.get_summary_description(node)
        assert got.SerializeToString() == want.SerializeToString()
        assert got.type_hint == want.type_hint


def _mixed_precision_model(mod, sess_cls):
    g = mod.Graph() if mod is jtf else real_tf.Graph()
    with g.as_default():
        w = mod.Variable(np.array([1.0, -2.0], np.float32), name="w")
        x = mod.placeholder("float32", [2])
        opt = mod.mixed_precision.MixedPrecisionLossScaleOptimizer(
            mod.train.AdamOptimizer(0.1), mod.mixed_precision.DynamicLossScale(64.0, 2)
        )
        train = opt.minimize(mod.reduce_sum(w * w * x))
        ckpt = mod.train.Checkpoint(w=w, optimizer=opt)
        ls = opt._loss_scale
        state = [w, opt._optimizer.get_slot(w, "m"), ls(), ls._num_good_steps]
        state += list(opt._optimizer._get_beta_accumulators())
        init = mod.global_variables_initializer()
    return g, sess_cls(graph=g), train, x, ckpt, state, init


def test_loss_scale_optimizer_object_checkpoints_interoperate(tmp_path):
    """Checkpoint(optimizer=MixedPrecisionLossScaleOptimizer(Adam)) has TF's keys
    (base_optimizer, loss_scale) both ways; values restore exactly."""
    g, tf_sess, train, x, ckpt, state, init = _mixed_precision_model(tf1, tf1.Session)
    tf_sess.run(init)
    for xv in ([1.0, 1.0], [np.inf, 1.0], [1.0, 0.5]):  # one skipped step
        tf_sess.run(train, {x: np.array(xv, np.float32)})
    with g.as_default():
        path = ckpt.save(str(tmp_path / "tf" / "ckpt"), session=tf_sess)
    want = tf_sess.run(state)
    jg, j_sess, j_train, j_x, j_ckpt, j_state, _ = _mixed_precision_model(jtf, jtf.Session)
    with jg.as_default():
        status = j_ckpt.restore(path)
        status.assert_consumed()
        status.run_restore_ops(j_sess)
        for got, exp in zip(j_sess.run(j_state), want, strict=True):
            np.testing.assert_array_equal(got, exp)
        j_sess.run(j_train, {j_x: np.array([2.0, 1.0], np.float32)})
        back = j_ckpt.save(str(tmp_path / "j" / "ckpt"), session=j_sess)
    assert (
        dict(tf1.train.list_variables(back)).keys() == dict(tf1.train.list_variables(path)).keys()
    )
    tf_sess.run(train, {x: np.array([2.0, 1.0], np.float32)})
    g2, tf_sess2, _, _, ckpt2, state2, _ = _mixed_precision_model(tf1, tf1.Session)
    with g2.as_default():
        ckpt2.restore(back).assert_consumed().run_restore_ops(tf_sess2)
    for got, exp in zip(tf_sess2.run(state2), tf_sess.run(state), strict=True):
        np.testing.assert_allclose(got, exp, rtol=1e-6)
