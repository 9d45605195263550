"""A TF1 queue input pipeline and its adapters.v1 port give the same batches.

``string_input_producer(shuffle=False, num_epochs=2) -> TFRecordReader -> parse_single_example
-> batch(allow_smaller_final_batch=True)`` over the same TFRecord files (written by TF),
run under a Coordinator until ``OutOfRangeError``: same keys, same values, same batches,
same end of data.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf

tf1 = real_tf.compat.v1
DEADLINE = 120.0


@pytest.fixture
def record_files(tmp_path):
    rng = np.random.default_rng(3)
    paths = []
    for f, n in enumerate([5, 3, 3]):
        path = str(tmp_path / f"data-{f}.tfrecord")
        with real_tf.io.TFRecordWriter(path) as w:
            for i in range(n):
                ex = real_tf.train.Example(
                    features=real_tf.train.Features(
                        feature={
                            "image": real_tf.train.Feature(
                                float_list=real_tf.train.FloatList(
                                    value=rng.normal(size=6).astype(np.float32)
                                )
                            ),
                            "label": real_tf.train.Feature(
                                int64_list=real_tf.train.Int64List(value=[f * 10 + i])
                            ),
                        }
                    )
                )
                w.write(ex.SerializeToString())
        paths.append(path)
    return paths


def _pipeline(tf, files, features):
    q = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
    key, value = tf.TFRecordReader().read(q)
    parsed = tf.parse_single_example(value, features)
    return tf.train.batch(
        {"key": key, "image": parsed["image"], "label": parsed["label"]},
        4,
        allow_smaller_final_batch=True,
    )


def _drain(tf, session_cls, graph, batch):
    out = []
    with session_cls(graph=graph) as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while True:
                out.append(sess.run(batch))
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    return out


def _with_deadline(fn):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("v", fn()), daemon=True)
    t.start()
    t.join(DEADLINE)
    assert not t.is_alive(), "pipeline hung"
    return box["v"]


def test_tfrecord_queue_pipeline_matches_tf(record_files):
    tf_graph = real_tf.Graph()
    with tf_graph.as_default():
        tf_batch = _pipeline(
            tf1,
            record_files,
            {
                "image": tf1.FixedLenFeature([6], real_tf.float32),
                "label": tf1.FixedLenFeature([], real_tf.int64),
            },
        )
    want = _with_deadline(lambda: _drain(tf1, tf1.Session, tf_graph, tf_batch))

    j_graph = jtf.Graph()
    with j_graph.as_default():
        j_batch = _pipeline(
            jtf,
            record_files,
            {
                "image": jtf.FixedLenFeature([6], "float32"),
                "label": jtf.FixedLenFeature([], "int64"),
            },
        )
    got = _with_deadline(lambda: _drain(jtf, jtf.Session, j_graph, j_batch))

    assert [len(b["label"]) for b in want] == [4, 4, 4, 4, 4, 2]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert list(g["key"]) == list(w["key"])
        np.testing.assert_array_equal(g["label"], w["label"])
        assert g["label"].dtype == w["label"].dtype
        np.testing.assert_array_equal(g["image"], w["image"])
        assert g["image"].dtype == w["image"].dtype


def _queue_runner_graph(tf):
    """A hand-made runner and the runners of a reader pipeline, as QueueRunnerDefs."""
    q = tf.FIFOQueue(4, "int32", shapes=[[]], name="fifo")
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1)] * 2))
    files = tf.train.string_input_producer(["a", "b"], num_epochs=2, shuffle=False)
    _, value = tf.TFRecordReader().read(files)
    with tf.name_scope("input"):
        tf.train.shuffle_batch([value], 4, capacity=20, min_after_dequeue=5, num_threads=2)
    tf.train.batch([value], 4, allow_smaller_final_batch=True)
    return [qr.to_proto() for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]


def test_queue_runner_defs_are_tfs_byte_for_byte():
    with tf1.Graph().as_default():
        theirs = _queue_runner_graph(tf1)
    with jtf.Graph().as_default():
        ours = _queue_runner_graph(jtf)
    assert len(ours) == len(theirs) == 4
    for o, t in zip(ours, theirs, strict=True):
        assert o.SerializeToString(deterministic=True) == t.SerializeToString(deterministic=True)
    # TF's QueueRunner.from_proto takes jtrain's bytes, and jtrain's takes TF's.
    with tf1.Graph().as_default():
        _queue_runner_graph(tf1)
        proto = type(theirs[2]).FromString(ours[2].SerializeToString())
        qr = tf1.train.QueueRunner.from_proto(proto)
        assert qr.queue.name == "input/shuffle_batch/random_shuffle_queue"
    with jtf.Graph().as_default():
        _queue_runner_graph(jtf)
        proto = type(ours[2]).FromString(theirs[2].SerializeToString())
        qr = jtf.train.QueueRunner.from_proto(proto)
        assert qr.queue.name == "input/shuffle_batch/random_shuffle_queue"
        assert len(qr.enqueue_ops) == 2 and qr.enqueue_ops[0] is qr.enqueue_ops[1]


# A queue's ``shapes`` argument, as TF users write it: each case builds a queue under
# both libraries; the outcome (its shapes, or the error class and message) must agree.
SHAPES_CASES = {
    "fifo, a list of TensorShapes": lambda tf: tf.FIFOQueue(
        3, [tf.float32], shapes=[tf.TensorShape([2])]
    ),
    "fifo, one TensorShape": lambda tf: tf.FIFOQueue(3, [tf.float32], shapes=tf.TensorShape([2])),
    "fifo, one shape as ints": lambda tf: tf.FIFOQueue(3, [tf.float32], shapes=[2, 3]),
    "fifo, lists and TensorShapes": lambda tf: tf.FIFOQueue(
        3, [tf.float32, tf.int32], shapes=[[2], tf.TensorShape([])]
    ),
    "fifo, an empty list": lambda tf: tf.FIFOQueue(3, [tf.float32], shapes=[]),
    "fifo, no shapes": lambda tf: tf.FIFOQueue(3, [tf.float32, tf.int32]),
    "fifo, [None]": lambda tf: tf.FIFOQueue(3, [tf.float32], shapes=[None]),
    "fifo, an unknown dimension": lambda tf: tf.FIFOQueue(3, [tf.float32], shapes=[[None]]),
    "fifo, a -1 dimension": lambda tf: tf.FIFOQueue(3, [tf.float32], shapes=[[-1]]),
    "fifo, one component of unknown shape": lambda tf: tf.FIFOQueue(
        3, [tf.float32, tf.int32], shapes=[[2], None]
    ),
    "fifo, an unknown rank": lambda tf: tf.FIFOQueue(
        3, [tf.float32], shapes=[tf.TensorShape(None)]
    ),
    "fifo, fewer shapes than dtypes": lambda tf: tf.FIFOQueue(
        3, [tf.float32, tf.int32], shapes=[[2]]
    ),
    "shuffle, an unknown dimension": lambda tf: tf.RandomShuffleQueue(
        3, 0, [tf.float32], shapes=[[None]]
    ),
    "shuffle, a list of TensorShapes": lambda tf: tf.RandomShuffleQueue(
        3, 0, [tf.float32], shapes=[tf.TensorShape([2])]
    ),
    "priority, no shapes": lambda tf: tf.PriorityQueue(3, [tf.float32]),
    "priority, an unknown dimension": lambda tf: tf.PriorityQueue(3, [tf.float32], shapes=[[None]]),
    "priority, a list of TensorShapes": lambda tf: tf.PriorityQueue(
        3, [tf.float32], shapes=[tf.TensorShape([2])]
    ),
    "padding, an unknown dimension": lambda tf: tf.PaddingFIFOQueue(
        3, [tf.float32], shapes=[[None]]
    ),
    "padding, a TensorShape with an unknown dimension": lambda tf: tf.PaddingFIFOQueue(
        3, [tf.float32], shapes=[tf.TensorShape([None, 2])]
    ),
    "padding, [None]": lambda tf: tf.PaddingFIFOQueue(3, [tf.float32], shapes=[None]),
    "padding, a -1 dimension": lambda tf: tf.PaddingFIFOQueue(3, [tf.float32], shapes=[[-1]]),
    "padding, an unknown rank": lambda tf: tf.PaddingFIFOQueue(
        3, [tf.float32], shapes=[tf.TensorShape(None)]
    ),
    "padding, one shape as ints": lambda tf: tf.PaddingFIFOQueue(3, [tf.float32], shapes=[None, 3]),
    "padding, one TensorShape": lambda tf: tf.PaddingFIFOQueue(
        3, [tf.float32], shapes=tf.TensorShape([None])
    ),
    "padding, an empty list": lambda tf: tf.PaddingFIFOQueue(3, [tf.float32], shapes=[]),
    "padding, no shapes": lambda tf: tf.PaddingFIFOQueue(3, [tf.float32], shapes=None),
}


def _queue_outcome(tf, graph, make):
    """The queue's shapes (``None`` for an unknown rank), or its error's class and text."""
    with graph.as_default():
        try:
            q = make(tf)
        except (TypeError, ValueError) as e:
            return type(e).__name__, str(e)
    return [None if s.rank is None else s.as_list() for s in q.shapes]


@pytest.fixture
def tf1_shapes():
    """TF1's ``TensorShape`` (``disable_v2_behavior()``'s: its repr names ``Dimension``s, as
    its errors do) for the test; TF 2's again after it."""
    tf1.disable_v2_tensorshape()
    try:
        yield
    finally:
        tf1.enable_v2_tensorshape()


@pytest.mark.parametrize("case", sorted(SHAPES_CASES))
def test_queue_shapes_arguments_are_taken_as_tf_takes_them(case, tf1_shapes):
    want = _queue_outcome(tf1, real_tf.Graph(), SHAPES_CASES[case])
    got = _queue_outcome(jtf, jtf.Graph(), SHAPES_CASES[case])
    assert got == want


@pytest.mark.parametrize("filled", [True, False], ids=["filled", "empty"])
@pytest.mark.parametrize("method", ["dequeue_many", "dequeue_up_to"])
@pytest.mark.parametrize(
    "make",
    [
        lambda tf: tf.FIFOQueue(5, [tf.float32]),
        lambda tf: tf.RandomShuffleQueue(5, 0, [tf.float32, tf.int32]),
    ],
    ids=["fifo", "shuffle"],
)
def test_dequeue_many_of_a_queue_without_shapes_fails_when_run_as_tf(make, method, filled):
    """TF builds the op, then fails when it runs, without waiting for elements."""

    def outcome(tf, graph, session_cls):
        with graph.as_default():
            q = make(tf)
            values = [np.arange(3, dtype=np.float32), np.arange(3, dtype=np.int32)]
            enqueue = q.enqueue_many(values[: len(q.dtypes)])
            dequeue = getattr(q, method)(2)
        with session_cls(graph=graph) as sess:
            if filled:
                sess.run(enqueue)
            with pytest.raises(tf.errors.InvalidArgumentError) as caught:
                sess.run(dequeue)
        return caught.value.message

    want = _with_deadline(lambda: outcome(tf1, real_tf.Graph(), tf1.Session))
    got = _with_deadline(lambda: outcome(jtf, jtf.Graph(), jtf.Session))
    first = next(line for line in want.splitlines() if "specified shapes" in line)
    assert first in got
