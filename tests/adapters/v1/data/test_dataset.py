"""tf.data in TF1 graph mode: datasets, iterators, their errors (TF parity: tests/interop)."""

from __future__ import annotations

import gzip
from collections import Counter

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def drain(sess, fetch, limit=1000):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("no OutOfRangeError")


def test_static_types_and_shapes():
    ds = tf.data.Dataset.from_tensor_slices(
        {"x": np.zeros((4, 3), np.float32), "y": [1, 2, 3, 4]}
    ).batch(2)
    assert ds.output_types == {"x": tf.float32, "y": tf.int32}
    assert tf.data.get_output_shapes(ds)["x"].as_list() == [None, 3]
    assert ds.output_classes == {"x": tf.Tensor, "y": tf.Tensor}
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    assert nxt["x"].shape.as_list() == [None, 3] and nxt["y"].dtype == tf.int32
    dropped = tf.data.Dataset.range(5).batch(2, drop_remainder=True)
    assert dropped.output_shapes.as_list() == [2] and dropped.output_types == tf.int64


def test_one_shot_iterator_per_session_and_end_repeats():
    nxt = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
    for _ in range(2):  # each session starts its own iterator, as TF1's resources
        with tf.Session() as sess:
            assert [int(v) for v in drain(sess, nxt)] == [0, 1, 2]
            with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
                sess.run(nxt)


def test_get_next_feeds_the_step_program():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    a, b = (
        tf.data.Dataset.from_tensor_slices((x, x * 2)).batch(4).make_one_shot_iterator().get_next()
    )
    total = tf.reduce_sum(a + b, axis=1)
    with tf.Session() as sess:
        got = drain(sess, total)
    np.testing.assert_allclose(np.concatenate(got), (x * 3).sum(axis=1))


def test_initializable_iterator_reads_fed_placeholders_and_restarts():
    p = tf.placeholder(tf.int64, [None])
    it = tf.data.Dataset.from_tensor_slices(p).map(lambda v: v * 10).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
            sess.run(nxt)
        sess.run(it.initializer, feed_dict={p: [1, 2, 3]})
        assert sess.run(nxt) == 10
        sess.run(it.initializer, feed_dict={p: [7]})
        assert [int(v) for v in drain(sess, nxt)] == [70]
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed"):
            sess.run(it.initializer)


def test_one_shot_iterator_refuses_a_placeholder():
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="Cannot capture a placeholder"):
        tf.data.Dataset.from_tensor_slices(p).make_one_shot_iterator()
    with pytest.raises(ValueError, match="does not have an initializer"):
        _ = tf.data.Dataset.range(2).make_one_shot_iterator().initializer


def test_shuffle_seeded_buffer_and_reshuffle():
    def epochs(reshuffle):
        with tf.Graph().as_default():
            ds = tf.data.Dataset.range(10).shuffle(4, seed=5, reshuffle_each_iteration=reshuffle)
            nxt = ds.repeat(2).make_one_shot_iterator().get_next()
            with tf.Session() as sess:
                got = [int(v) for v in drain(sess, nxt)]
        return got[:10], got[10:]

    first, second = epochs(True)
    assert Counter(first) == Counter(second) == Counter(range(10))
    assert epochs(True) == (first, second)  # the same seeds, the same order
    same_a, same_b = epochs(False)
    assert same_a == same_b
    assert first[0] < 4  # drawn from the first buffer_size elements


def test_transformations_in_order():
    ds = (
        tf.data.Dataset.range(10)
        .filter(lambda i: i % 2 > 0)
        .map(lambda i: (i, tf.cast(i, tf.float32) / 2.0))
        .skip(1)
        .take(3)
        .concatenate(tf.data.Dataset.from_tensors((np.int64(-1), np.float32(0.5))))
        .cache()
        .repeat(2)
        .prefetch(tf.data.AUTOTUNE)
    )
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = [(int(a), float(b)) for a, b in drain(sess, nxt)]
    once = [(3, 1.5), (5, 2.5), (7, 3.5), (-1, 0.5)]
    assert got == once + once


def test_zip_and_padded_batch():
    lengths = tf.data.Dataset.range(1, 4)
    ragged = lengths.map(lambda n: tf.fill([n], tf.cast(n, tf.int32)))
    ds = tf.data.Dataset.zip((lengths, ragged)).padded_batch(2, padded_shapes=((), [None]))
    n, v = ds.make_one_shot_iterator().get_next()
    assert v.shape.as_list() == [None, None]
    with tf.Session() as sess:
        batches = drain(sess, (n, v))
    np.testing.assert_array_equal(batches[0][1], [[1, 0], [2, 2]])
    np.testing.assert_array_equal(batches[1][1], [[3, 3, 3]])


def test_batch_of_different_shapes_raises():
    ds = tf.data.Dataset.range(1, 3).map(lambda n: tf.zeros([n])).batch(2)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors"):
            sess.run(nxt)


def test_map_with_random_op_and_constant_capture():
    scale = tf.constant(3.0)
    ds = tf.data.Dataset.range(4).map(
        lambda i: tf.cast(i, tf.float32) * scale + tf.random_uniform([], 0.0, 0.5)
    )
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = np.array(drain(sess, nxt))
    assert np.all((got >= np.arange(4) * 3.0) & (got < np.arange(4) * 3.0 + 0.5))


def test_map_reading_a_variable_is_refused():
    v = tf.Variable(1.0)
    with pytest.raises(NotImplementedError, match="variable"):
        tf.data.Dataset.range(3).map(lambda i: tf.cast(i, tf.float32) * v)


def test_map_strings_and_lists_become_tuples():
    ds = tf.data.Dataset.from_tensor_slices(["a", "bb"]).map(lambda s: [s, tf.constant(1)])
    assert isinstance(ds.output_types, tuple)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = [(s, int(n)) for s, n in drain(sess, nxt)]
    assert got == [(b"a", 1), (b"bb", 1)]


def test_reinitializable_iterator_checks_types():
    it = tf.data.Iterator.from_structure(tf.int64, [])
    nxt = it.get_next()
    init = it.make_initializer(tf.data.Dataset.range(2))
    with pytest.raises(TypeError, match="Expected output types"):
        it.make_initializer(tf.data.Dataset.from_tensors(1.0))
    with tf.Session() as sess:
        sess.run(init)
        assert [int(v) for v in drain(sess, nxt)] == [0, 1]


def test_text_line_dataset(tmp_path):
    plain = tmp_path / "a.txt"
    plain.write_bytes(b"one\r\ntwo\nthree")
    packed = tmp_path / "b.txt.gz"
    packed.write_bytes(gzip.compress(b"four\n"))
    empty = tmp_path / "c.txt"
    empty.write_bytes(b"")
    ds = tf.data.TextLineDataset([str(plain), str(empty)]).concatenate(
        tf.data.TextLineDataset(str(packed), compression_type="GZIP")
    )
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert drain(sess, nxt) == [b"one", b"two", b"three", b"four"]


def test_tfrecord_dataset_from_a_fed_file_list(tmp_path):
    path = str(tmp_path / "r.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for r in (b"x", b"yz"):
            w.write(r)
    names = tf.placeholder(tf.string, [None])
    it = tf.data.TFRecordDataset(names).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, feed_dict={names: [path, path]})
        assert drain(sess, nxt) == [b"x", b"yz", b"x", b"yz"]
        sess.run(it.initializer, feed_dict={names: [str(tmp_path / "missing")]})
        with pytest.raises(tf.errors.NotFoundError):
            sess.run(nxt)


def test_saver_and_monitored_session_with_a_dataset(tmp_path):
    x = np.ones((6, 2), np.float32)
    batch = tf.data.Dataset.from_tensor_slices(x).batch(2).make_one_shot_iterator().get_next()
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.matmul(batch, w))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path)) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert tf.train.latest_checkpoint(str(tmp_path)) is not None


def test_absent_names_say_what_to_use():
    with pytest.raises(
        AttributeError, match="tf.data.experimental.rejection_resample is not in adapters.v1"
    ):
        _ = tf.data.experimental.rejection_resample
    with pytest.raises(AttributeError, match="Dataset.sparse_batch is not in adapters.v1"):
        _ = tf.data.Dataset.range(2).sparse_batch
    with pytest.raises(RuntimeError, match="only supports Python-style iteration"):
        iter(tf.data.Dataset.range(2))


def test_map_reads_a_placeholder_fed_with_the_initializer_and_saver_saves(tmp_path):
    scale = tf.placeholder(tf.float32, [])
    it = tf.data.Dataset.range(4).map(lambda i: tf.cast(i, tf.float32) * scale).batch(2)
    it = it.make_initializable_iterator()
    v = tf.Variable(1.0)
    out = it.get_next() * v
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(it.initializer, feed_dict={scale: 3.0})
        np.testing.assert_array_equal(np.concatenate(drain(sess, out)), [0.0, 3.0, 6.0, 9.0])
        saver.save(sess, str(tmp_path / "model"))  # with the dataset's ops in the meta graph
    assert (tmp_path / "model.meta").exists()


def test_placeholder_with_default_is_refused_not_read_as_its_default():
    """A fed ``placeholder_with_default`` would have been read as its default (TF reads
    the fed value): refused with a message naming it."""
    scale = tf.placeholder_with_default(1.0, [], name="scale")
    x = tf.placeholder(tf.float32, [None])
    with pytest.raises(NotImplementedError, match="placeholder_with_default scale"):
        tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * scale)
    src = tf.placeholder_with_default(np.array([1.0, 2.0], np.float32), [None], name="src")
    dataset = tf.data.Dataset.from_tensor_slices(src)
    with pytest.raises(NotImplementedError, match="placeholder_with_default src"):
        dataset.make_initializable_iterator()
