"""The session's variable store: one owner of the buffers, consistent snapshots,
saves from another thread while a training thread runs steps."""

import threading
import weakref

import jax
import numpy as np
import pytest

from adapters import v1 as tf
from jtrain import checkpoint

SAVES = 150


def _counting_model():
    """A step counter and two variables incremented with it in the same step."""
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(np.zeros(4, np.float32), name="w")
    big = tf.Variable(np.zeros((64, 256), np.float32), name="big")
    train = tf.group(
        gs.assign_add(1),
        w.assign_add(np.ones(4, np.float32)),
        big.assign_add(np.ones((64, 256), np.float32)),
    )
    return gs, w, big, train


def _train_while(sess, train, done: threading.Event, errors: list) -> None:
    try:
        while not done.is_set():
            sess.run(train)
    except Exception as e:  # reported by the test
        errors.append(e)


def _save_with_saver(sess, gs, prefix):
    return tf.train.Saver().save(sess, prefix, global_step=gs, write_state=False)


def _save_with_checkpoint(sess, gs, prefix):
    ckpt = tf.train.Checkpoint(gs=gs, w=tf.global_variables()[1], big=tf.global_variables()[2])
    return ckpt.write(f"{prefix}-x", session=sess)


@pytest.mark.parametrize("how", ["saver", "checkpoint"])
def test_saves_from_another_thread_each_hold_one_step(graph, tmp_path, how):
    gs, w, big, train = _counting_model()
    keys = {
        "saver": ("global_step", "w", "big"),
        "checkpoint": tuple(f"{n}/.ATTRIBUTES/VARIABLE_VALUE" for n in ("gs", "w", "big")),
    }[how]
    save = {"saver": _save_with_saver, "checkpoint": _save_with_checkpoint}[how]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)  # compiled before the race starts
        done, failures = threading.Event(), []
        trainer = threading.Thread(target=_train_while, args=(sess, train, done, failures))
        trainer.start()
        paths = []
        try:
            for i in range(SAVES):
                paths.append(save(sess, gs, str(tmp_path / f"m{i}")))
        finally:
            done.set()
            trainer.join()
        assert not failures, failures
        final = int(sess.run(gs))
    steps = []
    for path in paths:
        reader = checkpoint.load_checkpoint(path)
        step, wv, bigv = (reader.get_tensor(k) for k in keys)
        np.testing.assert_array_equal(wv, np.full(4, step, np.float32), err_msg=path)
        np.testing.assert_array_equal(bigv, np.full((64, 256), step, np.float32), err_msg=path)
        if how == "saver":
            assert path.endswith(f"-{int(step)}")  # the name's step is the snapshot's
        steps.append(int(step))
    assert steps == sorted(steps) and 1 <= steps[0] and steps[-1] <= final
    assert steps[-1] > steps[0]  # training went on during the saves


def test_snapshot_keeps_its_version_while_steps_run(graph):
    gs, w, _, train = _counting_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        store = sess.variable_store
        before = store.version
        snap = store.snapshot([gs, w])
        sess.run(train)
        assert store.version > before == snap.version
        assert int(snap.values[gs]) == 0
        np.testing.assert_array_equal(snap.values[w], np.zeros(4, np.float32))
        np.testing.assert_array_equal(store.snapshot([w]).values[w], np.ones(4, np.float32))


def test_snapshot_lends_cpu_buffers_and_a_step_donates_a_copy(graph):
    """On a CPU device a snapshot copies nothing: its arrays are the store's buffers
    (read-only) until it drops them; a step writing a lent variable meanwhile donates
    a copy, so the snapshot's values stay those of its step. (Elsewhere the snapshot
    is a copy: the same values, nothing lent.)"""
    on_cpu = jax.default_backend() == "cpu"
    gs, w, big, train = _counting_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        store = sess.variable_store
        snap = store.snapshot([w, big])
        for var in (w, big):
            host = snap.values[var]
            assert not host.flags.writeable
            if on_cpu:
                assert host.ctypes.data == store.read(var).unsafe_buffer_pointer()
        assert bool(store._lent) == on_cpu
        for _ in range(3):
            sess.run(train)
        np.testing.assert_array_equal(snap.values[w], np.ones(4, np.float32))
        np.testing.assert_array_equal(snap.values[big], np.ones((64, 256), np.float32))
        np.testing.assert_array_equal(sess.run(big), np.full((64, 256), 4, np.float32))
        # Two snapshots of the same buffer: the loan lasts until both are dropped.
        first, second = store.snapshot([big]), store.snapshot([big])
        where = store.read(big).unsafe_buffer_pointer()
        del first
        sess.run(train)  # still lent to `second`: the step donated a copy
        if on_cpu:
            assert store.read(big).unsafe_buffer_pointer() != where
        np.testing.assert_array_equal(second.values[big], np.full((64, 256), 4, np.float32))
        del second, snap
        # Every loan ended with its arrays and left nothing behind: the next step
        # donates the buffer itself (no copy), updating it in place.
        where = store.read(big).unsafe_buffer_pointer()
        sess.run(train)
        if on_cpu:
            assert store.read(big).unsafe_buffer_pointer() == where
        assert not store._lent
        np.testing.assert_array_equal(sess.run(w), np.full(4, 6, np.float32))


def test_an_ended_loan_keeps_no_replaced_buffer_alive(graph):
    """A save, then a restore and no step: the store keeps nothing of the values the
    restore replaced (the loan's record ends with its arrays and the write)."""
    _, w, _, _ = _counting_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        store = sess.variable_store
        old = weakref.ref(store.read(w))
        snap = store.snapshot([w])
        del snap
        store.write(w, np.full(4, 7.0))
        assert old() is None
        np.testing.assert_array_equal(sess.run(w), np.full(4, 7, np.float32))


def test_snapshot_of_a_bfloat16_variable_is_lent_too(graph):
    v = tf.Variable(np.arange(4, dtype=np.float32), dtype=tf.bfloat16, name="h")
    step = v.assign_add(tf.ones([4], tf.bfloat16))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        store = sess.variable_store
        snap = store.snapshot([v])
        if jax.default_backend() == "cpu":
            assert snap.values[v].ctypes.data == store.read(v).unsafe_buffer_pointer()
        sess.run(step)
        assert snap.values[v].dtype == tf.bfloat16.as_numpy_dtype
        np.testing.assert_array_equal(snap.values[v].astype(np.float32), np.arange(4))
        np.testing.assert_array_equal(sess.run(v).astype(np.float32), np.arange(1, 5))


def test_snapshot_and_read_name_uninitialized_variables(graph):
    gs, w, _, _ = _counting_model()
    with tf.Session() as sess:
        sess.run(gs.initializer)
        store = sess.variable_store
        with pytest.raises(tf.errors.FailedPreconditionError, match="'w'"):
            store.snapshot([gs, w])
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value w"):
            store.read(w)
        assert store.uninitialized([gs, w]) == [w]


def test_write_all_sets_values_and_drops_host_copies(graph):
    gs, w, _, train = _counting_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([train, gs])
        store = sess.variable_store
        store.write_all({gs: 41, w: np.full(4, 2.0)})
        assert store.host_copy(gs) is None
        step, wv = sess.run([gs, w])
        assert step == 41 and step.dtype == np.int64
        np.testing.assert_array_equal(wv, np.full(4, 2.0, np.float32))


def test_closed_session_has_no_store(graph):
    sess = tf.Session()
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.variable_store  # noqa: B018


def test_restore_takes_the_read_arrays_without_a_copy_on_cpu(graph, tmp_path):
    """Saver.restore: the reader's arrays are 64-byte aligned and go to the device
    with jax.device_put, which on a CPU device keeps them (no copy of the checkpoint's
    bytes); a step then trains from them, donating them, as from any other value."""
    from adapters.v1.client.variable_store import device_value
    from jtrain.checkpoint import tensor_bundle

    w = tf.Variable(np.arange(48, dtype=np.float32).reshape(6, 8), name="w")
    step = w.assign_add(np.ones((6, 8), np.float32))
    saver = tf.train.Saver([w])
    with tf.Session() as sess:
        sess.run(w.initializer)
        path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
        read = tensor_bundle.BundleReader(path).get_tensors(["w"])["w"]
        assert read.ctypes.data % 64 == 0
        value = device_value(w, read)
        if jax.default_backend() == "cpu":
            assert value.unsafe_buffer_pointer() == read.ctypes.data
        sess.run(step)
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(step), np.arange(48).reshape(6, 8) + 1)
        np.testing.assert_array_equal(sess.run(w), np.arange(48).reshape(6, 8) + 1)
