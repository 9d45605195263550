"""Host queues: FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue (TF's run-time semantics)."""

from __future__ import annotations

import json
import os
import threading

import numpy as np
import pytest

from adapters import v1 as tf
from tests.adapters.queue_helpers import call_with_deadline, queue_waits

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "goldens", "queues", "batches.json")


def test_fifo_enqueue_dequeue_size_close(graph):
    q = tf.FIFOQueue(5, ["int32", "float32"], shapes=[[], [2]])
    enq = q.enqueue_many([[1, 2, 3], np.ones((3, 2), np.float32) * [[1], [2], [3]]])
    one = q.dequeue()
    two = q.dequeue_many(2)
    up_to = q.dequeue_up_to(2)
    size, closed = q.size(), q.is_closed()
    assert two[0].shape == (2,) and two[1].shape == (2, 2)
    assert up_to[0].shape == (None,)
    with tf.Session() as sess:
        sess.run(enq)
        assert sess.run(size) == 3
        a, b = sess.run(one)
        assert a == 1 and b.tolist() == [1.0, 1.0]
        sess.run(enq)
        a, b = sess.run(two)
        assert a.tolist() == [2, 3] and b.tolist() == [[2, 2], [3, 3]]
        sess.run(q.close())
        assert sess.run(closed)
        with pytest.raises(tf.errors.CancelledError, match="is closed"):
            sess.run(enq)
        a, _ = sess.run(up_to)  # 3 left: a full batch of 2...
        assert a.tolist() == [1, 2]
        a, _ = sess.run(up_to)  # ...then the smaller final one
        assert a.tolist() == [3]
        with pytest.raises(tf.errors.OutOfRangeError, match="insufficient elements"):
            sess.run(up_to)
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(one)


def test_dequeue_many_on_closed_queue_with_too_few(graph):
    q = tf.FIFOQueue(5, "int32", shapes=[[]])
    enq = q.enqueue_many([[1, 2, 3]])
    deq = q.dequeue_many(2)
    with tf.Session() as sess:
        sess.run([enq, q.close()])
        assert sess.run(deq).tolist() == [1, 2]
        with pytest.raises(tf.errors.OutOfRangeError, match=r"requested 2, current size 1"):
            sess.run(deq)


def test_queues_are_per_session(graph):
    q = tf.FIFOQueue(5, "int32", shapes=[[]])
    enq = q.enqueue(7)
    with tf.Session() as s1, tf.Session() as s2:
        s1.run(enq)
        assert s1.run(q.size()) == 1 and s2.run(q.size()) == 0


def test_named_components_are_dicts(graph):
    q = tf.FIFOQueue(3, ["int32", "float32"], shapes=[[], []], names=["a", "b"])
    enq = q.enqueue({"a": 1, "b": 2.5})
    out = q.dequeue()
    assert set(out) == {"a", "b"}
    with tf.Session() as sess:
        sess.run(enq)
        assert sess.run(out) == {"a": 1, "b": 2.5}
    with pytest.raises(ValueError, match="do not match"):
        q.enqueue({"a": 1})


def test_shape_mismatch(graph):
    q = tf.FIFOQueue(3, "float32", shapes=[[2]])
    with pytest.raises(ValueError, match="Shape mismatch"):
        q.enqueue(tf.constant([1.0, 2.0, 3.0]))
    x = tf.placeholder("float32", [None])
    enq = q.enqueue(x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
            sess.run(enq, {x: [1.0]})


def test_padding_queue_equals_tf(graph):
    with open(GOLDEN) as f:
        want = json.load(f)["padding"]
    q = tf.PaddingFIFOQueue(10, ["int32", "string"], shapes=[[None], [None]])
    x = tf.placeholder("int32", [None])
    s = tf.placeholder(object, [None])
    enq = q.enqueue([x, s])
    batch = q.dequeue_many(3)
    with tf.Session() as sess:
        for n in (1, 3, 2):
            sess.run(enq, {x: np.arange(1, n + 1), s: [b"s%d" % i for i in range(n)]})
        a, b = sess.run(batch)
    assert a.tolist() == want["ints"]
    assert [[v.decode() for v in r] for r in b] == want["strings"]
    # TF's messages (tests/interop/test_queue_interop.py compares them live).
    with pytest.raises(ValueError, match="a list of shapes must be provided"):
        tf.PaddingFIFOQueue(3, ["int32"], shapes=None)
    with pytest.raises(ValueError, match="received 2 dtypes and 1 shapes"):
        tf.PaddingFIFOQueue(3, ["int32", "int32"], shapes=[[None]])


def test_shapes_of_tensors_make_a_queue(graph):
    """``shapes=[t.shape for t in ...]``, as TF1 scripts write it: TensorShapes."""
    x = tf.placeholder("float32", [2, 3])
    y = tf.placeholder("int32", [])
    q = tf.FIFOQueue(4, [x.dtype, y.dtype], shapes=[x.shape, y.get_shape()])
    assert q.shapes == [tf.TensorShape([2, 3]), tf.TensorShape([])]
    enq = q.enqueue([x, y])
    a, b = q.dequeue_many(2)
    assert a.shape.as_list() == [2, 2, 3]
    with tf.Session() as sess:
        for i in range(2):
            sess.run(enq, {x: np.full((2, 3), i, np.float32), y: i})
        got_a, got_b = sess.run([a, b])
    np.testing.assert_array_equal(got_a, np.stack([np.full((2, 3), i, np.float32) for i in (0, 1)]))
    np.testing.assert_array_equal(got_b, np.array([0, 1], np.int32))


@pytest.mark.parametrize("method", ["dequeue_many", "dequeue_up_to"])
def test_dequeue_many_without_shapes_fails_when_run(graph, method):
    """TF builds it, then its kernel refuses to run it (``InvalidArgumentError``) rather
    than stack elements whose shapes it does not know; ``dequeue`` still works."""
    q = tf.FIFOQueue(4, ["float32"])
    assert q.shapes == [tf.TensorShape(None)]
    enq = q.enqueue_many([np.arange(3, dtype=np.float32)])
    batch = getattr(q, method)(2)
    one = q.dequeue()
    with tf.Session() as sess:
        sess.run(enq)
        with pytest.raises(
            tf.errors.InvalidArgumentError,
            match="FIFOQueue's DequeueMany and DequeueUpTo require the components to have "
            "specified shapes.*'fifo_queue'",
        ):
            sess.run(batch)
        assert sess.run(one) == 0.0


def test_random_shuffle_queue_keeps_min_after_dequeue(graph, monkeypatch):
    q = tf.RandomShuffleQueue(10, 3, "int32", shapes=[[]], seed=0)
    enq = q.enqueue_many([np.arange(5, dtype=np.int32)])
    deq = q.dequeue_many(2)
    with tf.Session() as sess:
        sess.run(enq)
        first = sess.run(deq)  # 5 - 2 >= 3: allowed
        assert q is not None and len(set(first.tolist())) == 2
        blocked = queue_waits(monkeypatch)

        def try_dequeue():  # 3 left: a dequeue waits until more arrive or the queue closes
            return sess.run(deq)

        def run():
            t = threading.Thread(target=lambda: out.append(try_dequeue()))
            t.start()
            assert blocked.wait(10)
            sess.run(q.close())  # closing lifts min_after_dequeue
            t.join(10)
            return not t.is_alive()

        out: list = []
        assert call_with_deadline(run)
        rest = out[0].tolist() + sess.run(q.dequeue_up_to(5)).tolist()
        assert sorted(first.tolist() + rest) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="min_after_dequeue"):
        tf.RandomShuffleQueue(3, 3, "int32")


def test_blocked_enqueue_is_cancelled(graph, monkeypatch):
    q = tf.FIFOQueue(1, "int32", shapes=[[]])
    enq = q.enqueue(1)
    cancel = q.close(cancel_pending_enqueues=True)
    with tf.Session() as sess:
        sess.run(enq)
        errs = []
        waiting = queue_waits(monkeypatch)

        def blocked():
            try:
                sess.run(enq)
            except tf.errors.CancelledError as e:
                errs.append(e)

        def run():
            t = threading.Thread(target=blocked)
            t.start()
            assert waiting.wait(10)
            sess.run(cancel)
            t.join(10)
            return not t.is_alive()

        assert call_with_deadline(run)
        assert len(errs) == 1


def test_blocked_dequeue_ends_when_session_closes(graph, monkeypatch):
    q = tf.FIFOQueue(1, "int32", shapes=[[]])
    deq = q.dequeue()
    sess = tf.Session()
    errs = []
    waiting = queue_waits(monkeypatch)

    def blocked():
        try:
            sess.run(deq)
        except tf.errors.CancelledError as e:
            errs.append(e)

    t = threading.Thread(target=blocked)
    t.start()
    assert waiting.wait(10)
    sess.close()
    t.join(10)
    assert not t.is_alive() and len(errs) == 1


def test_host_only_run_launches_no_program(graph):
    """A queue runner's enqueue of host values runs no device program (nothing compiled)."""
    q = tf.FIFOQueue(3, "string", shapes=[[]])
    enq = q.enqueue_many([["a", "b"]])
    deq = q.dequeue()
    doubled = tf.jax_function(lambda x: x * 2, [q.size()])
    with tf.Session() as sess:
        sess.run(enq)
        assert sess.run(deq) == b"a"
        plans = list(sess._plans.values())
        assert all(p.host_only for p in plans)
        assert all(p.fn._cache_size() == 0 for p in plans)
        assert sess.run(doubled) == 2  # a host value feeding the device program


def test_enqueue_many_beyond_capacity_waits_for_room_in_order(graph):
    # Seven elements into a queue of three: the put fills the room it finds, waits for
    # dequeues, and the elements leave in order; the queue never holds more than three.
    q = tf.FIFOQueue(3, "int32", shapes=[[]])
    enq = q.enqueue_many([np.arange(7, dtype=np.int32)])
    one, size = q.dequeue(), q.size()
    with tf.Session(graph=graph) as sess:
        t = threading.Thread(target=sess.run, args=(enq,))
        t.start()
        got, sizes = [], []
        for _ in range(7):
            got.append(int(sess.run(one)))
            sizes.append(int(sess.run(size)))
        t.join(30)
        assert not t.is_alive()
    assert got == list(range(7))
    assert max(sizes) <= 3 and sizes[-1] == 0


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.FIFOQueue(10, [tf.float32], shapes=[[4]]),
        lambda: tf.PaddingFIFOQueue(10, [tf.float32], shapes=[[4]]),
        lambda: tf.RandomShuffleQueue(10, 0, [tf.float32], shapes=[[4]], seed=1),
    ],
    ids=["FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue"],
)
def test_an_enqueued_feed_is_a_copy(graph, make):
    """An element outlives the run that enqueued it; refilling the array fed (a reused
    batch buffer) changes nothing queued. TF 2.21 gives these values for this buffer
    (rows 16 bytes past a 64-byte boundary). For rows aligned to 64 bytes its feed
    conversion does not copy, and its FIFOQueue and RandomShuffleQueue keep the
    caller's memory; jtrain copies whatever the alignment."""
    q = make()
    one = tf.placeholder(tf.float32, [4])
    many = tf.placeholder(tf.float32, [None, 4])
    enqueue, enqueue_many = q.enqueue([one]), q.enqueue_many([many])
    rows = q.dequeue_many(5)
    raw = np.zeros(3 * 4 + 32, np.float32)
    start = ((-raw.ctypes.data) % 64 + 16) // 4
    buffer = raw[start : start + 12].reshape(3, 4)
    with tf.Session() as sess:
        buffer[0] = 1.0
        sess.run(enqueue, {one: buffer[0]})  # a view of the buffer
        buffer[:] = 2.0
        sess.run(enqueue_many, {many: buffer})
        buffer[:] = 3.0
        sess.run(enqueue, {one: buffer[1]})
        buffer[:] = 4.0
        got = sorted(sess.run(rows)[:, 0].tolist())
    assert got == [1.0, 2.0, 2.0, 2.0, 3.0]
