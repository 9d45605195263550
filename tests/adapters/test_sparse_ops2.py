"""More of ``tf.sparse`` under jtrain alone (x64 off): int64 exactness, what raises for
indices computed from the step's data (TF-parity values are in
``tests/interop/test_sparse2_interop.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_fill_empty_rows_keeps_int64_values_exact(graph):
    big = np.array([2**62 + 1, -(2**53) - 1], np.int64)
    sp = tf.SparseTensor([[1, 0], [3, 2]], big, [4, 3])
    out, empty = tf.sparse.fill_empty_rows(sp, np.int64(2**60 + 3))
    with tf.Session() as sess:
        got, e = sess.run([out, empty])
    np.testing.assert_array_equal(got.values, [2**60 + 3, 2**62 + 1, 2**60 + 3, -(2**53) - 1])
    np.testing.assert_array_equal(got.indices, [[0, 0], [1, 0], [2, 0], [3, 2]])
    np.testing.assert_array_equal(e, [True, False, True, False])


def test_fill_empty_rows_of_computed_indices_raises_not_implemented(graph):
    idx = tf.Variable(np.array([[0, 1]], np.int64))
    sp = tf.SparseTensor(idx, [1.0], [2, 2])
    with pytest.raises(NotImplementedError, match="tf.sparse.fill_empty_rows"):
        tf.sparse.fill_empty_rows(sp, 0.0)


def test_maximum_of_an_empty_operand_and_int64_exact(graph):
    big = np.array([2**62 + 1, -(2**53) - 1], np.int64)
    a = tf.SparseTensor([[0, 1], [1, 0]], big, [2, 2])
    empty = tf.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0, np.int64), [2, 2])
    top, low = tf.sparse.maximum(a, empty), tf.sparse.minimum(empty, a)
    with tf.Session() as sess:
        t, lo = sess.run([top, low])
    np.testing.assert_array_equal(t.indices, [[0, 1], [1, 0]])
    np.testing.assert_array_equal(t.values, [2**62 + 1, 0])
    np.testing.assert_array_equal(lo.values, [0, -(2**53) - 1])


def test_slice_and_split_of_computed_indices_raise_not_implemented(graph):
    idx = tf.Variable(np.array([[0, 1]], np.int64))
    sp = tf.SparseTensor(idx, [1.0], [2, 2])
    with pytest.raises(NotImplementedError, match="tf.sparse.slice"):
        tf.sparse.slice(sp, [0, 0], [1, 1])
    with pytest.raises(NotImplementedError, match="tf.sparse.split"):
        tf.sparse.split(sp_input=sp, num_split=2, axis=0)


def test_split_keeps_int64_values_exact(graph):
    big = np.array([2**62 + 1, -(2**53) - 1, 3], np.int64)
    sp = tf.SparseTensor([[0, 1], [1, 0], [2, 2]], big, [3, 3])
    parts = tf.sparse.split(sp_input=sp, num_split=2, axis=0)
    with tf.Session() as sess:
        first, second = sess.run(parts)
    np.testing.assert_array_equal(first.values, big[:2])
    np.testing.assert_array_equal(second.indices, [[0, 2]])
    np.testing.assert_array_equal(second.dense_shape, [1, 3])


def test_reduce_sum_sparse_keeps_int64_exact_and_one_program_per_fed_indices(graph):
    sp = tf.sparse_placeholder(tf.int64, shape=[None, 3])
    out = tf.sparse.reduce_sum_sparse(sp, 1)
    big = np.array([2**62 + 1, 2**53 + 1, 1], np.int64)
    idx = np.array([[0, 0], [0, 2], [2, 1]], np.int64)
    with tf.Session() as sess:
        got = sess.run(out, {sp: (idx, big, [3, 3])})
        again = sess.run(out, {sp: (idx, big[::-1].copy(), [3, 3])})
        other = sess.run(out, {sp: (idx[1:], big[1:], [3, 3])})
        plans = len(sess._plans)
    np.testing.assert_array_equal(got.indices, [[0], [2]])
    assert got.values.tolist() == [2**62 + 2**53 + 2, 1]
    assert again.values.tolist() == [2**53 + 2, 2**62 + 1]
    np.testing.assert_array_equal(other.indices, [[0], [2]])
    assert plans == 2  # new values: the same program; new indices: one more


def test_maximum_of_computed_indices_raises_not_implemented(graph):
    idx = tf.Variable(np.array([[0, 1]], np.int64))
    sp = tf.SparseTensor(idx, [1.0], [2, 2])
    with pytest.raises(NotImplementedError, match="tf.sparse.maximum"):
        tf.sparse.maximum(sp, sp)
