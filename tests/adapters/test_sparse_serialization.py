"""``tf.io.serialize_sparse``/``serialize_many_sparse``/``deserialize_many_sparse``
(``adapters/v1/ops/sparse_serialization.py``); TF's bytes are checked live in
``tests/interop/test_protos_io_interop.py``."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


def test_round_trip_and_static_shapes(graph):
    sp = tf.SparseTensor(
        indices=[[0, 0], [0, 2], [1, 1]], values=[1.5, 2.5, 3.5], dense_shape=[3, 4]
    )
    one, many = tf.serialize_sparse(sp), tf.io.serialize_many_sparse(sp)
    back = tf.deserialize_many_sparse(many, tf.float32, rank=2)
    assert one.shape.as_list() == [3] and many.shape.as_list() == [None, 3]
    assert back.indices.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        rows, (i, v, d) = sess.run([many, (back.indices, back.values, back.dense_shape)])
    assert rows.shape == (3, 3)
    assert i.tolist() == [[0, 0], [0, 2], [1, 1]] and v.dtype == np.float32
    assert v.tolist() == [1.5, 2.5, 3.5] and d.tolist() == [3, 4]


def test_string_values_round_trip(graph):
    sp = tf.SparseTensor(indices=[[0, 1], [1, 0]], values=["a", "xyz"], dense_shape=[2, 3])
    back = tf.deserialize_many_sparse(tf.serialize_many_sparse(sp), tf.string)
    with tf.Session() as sess:
        assert sess.run(back.values).tolist() == [b"a", b"xyz"]


def test_dtype_mismatch_is_tfs_error(graph):
    sp = tf.SparseTensor(indices=[[0, 0]], values=[1.5], dense_shape=[1, 2])
    out = tf.deserialize_many_sparse(tf.serialize_many_sparse(sp), tf.int32)
    with (
        tf.Session() as sess,
        pytest.raises(tf.errors.InvalidArgumentError, match="Requested SparseTensor of type int32"),
    ):
        sess.run(out.values)


def test_variant_out_type_not_implemented(graph):
    sp = tf.SparseTensor(indices=[[0, 0]], values=[1.5], dense_shape=[1, 2])
    with pytest.raises(NotImplementedError, match="out_type"):
        tf.serialize_sparse(sp, out_type=tf.variant)
