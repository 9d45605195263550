"""``tf.create_partitioned_variables``, ``tf.batch_scatter_update`` and
``tf.convert_to_tensor_or_sparse_tensor`` without TF (TF parity:
tests/interop/test_state_helpers_interop.py)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def test_create_partitioned_variables(graph):
    parts = tf.create_partitioned_variables([5], [2], np.arange(5, dtype=np.int64), dtype=tf.int64)
    assert [(v.name, v.shape.as_list()) for v in parts] == [
        ("PartitionedVariable/part_0:0", [3]),
        ("PartitionedVariable/part_1:0", [2]),
    ]
    with pytest.raises(ValueError, match="must have the length"):
        tf.create_partitioned_variables([5], [2, 1], tf.zeros_initializer())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [sess.run(v).tolist() for v in parts] == [[0, 1, 2], [3, 4]]


def test_batch_scatter_update_int64_exact(graph):
    v = tf.Variable(np.zeros((2, 2), np.int64))
    u = tf.batch_scatter_update(v, [[1], [0]], np.int64([[2**62 + 1], [-(2**61)]]))
    with tf.Session() as sess:
        sess.run(v.initializer)
        out = sess.run(u)
    assert out.dtype == np.int64 and out.tolist() == [[0, 2**62 + 1], [-(2**61), 0]]
    with pytest.raises(ValueError, match="batch_gather does not allow indices with unknown"):
        tf.batch_scatter_update(v, tf.placeholder(tf.int32), [1])


def test_convert_to_tensor_or_sparse_tensor(graph):
    sp = tf.convert_to_tensor_or_sparse_tensor(tf.SparseTensorValue([[0, 1]], [2.5], [2, 2]))
    assert isinstance(sp, tf.SparseTensor) and sp.indices.dtype == tf.int64
    with pytest.raises(RuntimeError, match="Sparse dtype mismatch. Requested: int32,  Actual"):
        tf.convert_to_tensor_or_sparse_tensor(sp, dtype="int32")
    t = tf.convert_to_tensor_or_sparse_tensor(3.0, name="three")
    assert (t.name, t.dtype) == ("three:0", tf.float32)
