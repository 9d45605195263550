"""tf.data arguments fed to an initializable iterator's initializer (placeholders), as
TF1 scripts feed batch sizes and shuffle buffers. The expected values are TF 2.21's
(``tf.compat.v1``, recorded from tests/interop/test_data_runtime_args_interop.py, which
checks them live)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def drain(sess, fetch, limit=100):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch).tolist())
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("no OutOfRangeError")


def test_fed_batch_size_and_shuffle_buffer_each_initialization():
    """The classic idiom: train with one batch size, evaluate with another; TF's
    seeded order (buffer 3, seed 1: TF's [1, 3, 0, 5, 2, 4, 6])."""
    x = tf.placeholder(tf.int64, [None])
    batch, buffer = tf.placeholder(tf.int64, []), tf.placeholder(tf.int64, [])
    ds = tf.data.Dataset.from_tensor_slices(x).shuffle(buffer, seed=1).batch(batch)
    assert ds.output_shapes.as_list() == [None]
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    assert nxt.shape.as_list() == [None]
    with tf.Session() as sess:
        sess.run(it.initializer, {x: np.arange(7), batch: 3, buffer: 3})
        assert drain(sess, nxt) == [[1, 3, 0], [5, 2, 4], [6]]
        sess.run(it.initializer, {x: [10, 11, 12], batch: 3, buffer: 1})
        assert drain(sess, nxt) == [[10, 11, 12]]


def test_fed_bad_sizes_fail_at_the_initializer_with_tf_messages():
    batch = tf.placeholder(tf.int64, [])
    buffer = tf.placeholder(tf.int64, [])
    it = tf.data.Dataset.range(7).shuffle(buffer, seed=1).batch(batch).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Batch size must be greater"):
            sess.run(it.initializer, {batch: 0, buffer: 3})
        with pytest.raises(tf.errors.InvalidArgumentError, match="^buffer_size must be greater"):
            sess.run(it.initializer, {batch: 2, buffer: -1})
        sess.run(it.initializer, {batch: 4, buffer: -2})  # UNKNOWN_CARDINALITY: all of it
        assert [len(b) for b in drain(sess, nxt)] == [4, 3]


def test_constant_zero_batch_is_built_and_fails_when_the_iterator_starts():
    ds = tf.data.Dataset.range(3).batch(0)  # TF builds it
    it = ds.make_initializable_iterator()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater"):
            sess.run(it.initializer)


def test_drop_remainder_static_shape_needs_a_known_size():
    size = tf.placeholder(tf.int64, [])
    assert tf.data.Dataset.range(7).batch(size, drop_remainder=True).output_shapes.as_list() == [
        None
    ]
    assert tf.data.Dataset.range(7).batch(3, drop_remainder=True).output_shapes.as_list() == [3]
    drop = tf.placeholder(tf.bool, [])
    ds = tf.data.Dataset.range(7).batch(3, drop_remainder=drop)
    assert ds.output_shapes.as_list() == [None]
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {drop: True})
        assert drain(sess, nxt) == [[0, 1, 2], [3, 4, 5]]
        sess.run(it.initializer, {drop: False})
        assert drain(sess, nxt) == [[0, 1, 2], [3, 4, 5], [6]]


def test_count_tensors_of_another_dtype_or_rank_are_refused_building():
    with pytest.raises(ValueError, match="^batch_size: Tensor conversion requested dtype int64"):
        tf.data.Dataset.range(3).batch(tf.placeholder(tf.int32, []))
    with pytest.raises(ValueError, match="^Shape must be rank 0 but is rank 1"):
        tf.data.Dataset.range(3).shuffle(tf.placeholder(tf.int64, [1]))
    with pytest.raises(ValueError, match="^count: Tensor conversion requested dtype int64"):
        tf.data.Dataset.range(3).repeat(tf.constant(2))


def test_fed_padded_shape_and_padding_value():
    size, shape, pad = (tf.placeholder(tf.int64, s) for s in ([], [1], []))
    ds = tf.data.Dataset.range(5).map(lambda v: tf.fill([v], v))
    ds = ds.padded_batch(size, padded_shapes=shape, padding_values=pad)
    assert ds.output_shapes.as_list() == [None, None]
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {size: 2, shape: [5], pad: -1})
        assert drain(sess, nxt) == [
            [[-1, -1, -1, -1, -1], [1, -1, -1, -1, -1]],
            [[2, 2, -1, -1, -1], [3, 3, 3, -1, -1]],
            [[4, 4, 4, 4, -1]],
        ]
        sess.run(it.initializer, {size: 2, shape: [-1], pad: 9})
        assert drain(sess, nxt) == [[[9], [1]], [[2, 2, 9], [3, 3, 3]], [[4, 4, 4, 4]]]
