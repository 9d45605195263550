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
