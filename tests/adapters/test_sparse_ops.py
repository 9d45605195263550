"""``tf.sparse`` and sparse feeds under jtrain alone (x64 off): compiled programs per
fed shape, int64 exactness, and what raises (TF-parity values are in
``tests/interop/test_sparse_interop.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain import errors
from tests._helpers import compiles


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_one_plan_and_one_program_per_nnz_and_dense_shape(graph):
    sp = tf.sparse_placeholder(tf.float32, shape=[None, 4])
    out = tf.sparse.reduce_sum(sp, axis=1)
    with tf.Session() as sess, compiles() as compiled:
        for nnz in (2, 3, 2, 3, 2):
            idx = np.stack([np.zeros(nnz, np.int64), np.arange(nnz, dtype=np.int64)], 1)
            got = sess.run(out, {sp: (idx, np.ones(nnz, np.float32), [2, 4])})
            np.testing.assert_array_equal(got, [nnz, 0])
        assert len(sess._plans) == 1
        assert len(compiled) == 2  # nnz 2 and 3, each compiled once
        got = sess.run(out, {sp: (np.array([[2, 0]]), np.ones(1, np.float32), [3, 4])})
        np.testing.assert_array_equal(got, [0, 0, 1])
        assert len(sess._plans) == 2  # a new fed dense shape: a plan of its own


def test_int64_indices_values_and_dense_shape_exact(graph):
    """int64 values past 2**53 and a dense shape past 2**32 keep their bits whatever
    the user's ``jax_enable_x64`` (off in the default suite, on in ``tests_x64``)."""
    sp = tf.sparse_placeholder(tf.int64)
    big = np.array([2**62 + 3, -(2**40) - 1], np.int64)
    total = tf.sparse.reduce_sum(sp)
    with tf.Session() as sess:
        value = sess.run(sp, {sp: ([[0], [5]], big, [2**33])})
        assert value.indices.dtype == np.int64 and value.dense_shape.dtype == np.int64
        assert value.dense_shape[0] == 2**33 and value.values.tolist() == big.tolist()
        dense = sess.run(tf.sparse.to_dense(sp), {sp: ([[0], [5]], big, [6])})
        assert dense.dtype == np.int64 and dense[0] == 2**62 + 3 and dense[5] == -(2**40) - 1
        assert sess.run(total, {sp: ([[0], [1]], big, [2])}) == int(big.sum())


def test_unsupported_shapes_raise_not_implemented(graph):
    v = tf.Variable([3, 4], dtype=tf.int64)
    computed = tf.SparseTensor(tf.constant([[0, 1]], tf.int64), [1.0], v.read_value())
    with pytest.raises(NotImplementedError, match="dense shape"):
        tf.sparse.to_dense(computed)
    sp = tf.sparse_placeholder(tf.float32, shape=[2, 2])
    with pytest.raises(NotImplementedError, match="two SparseTensors"):
        tf.sparse.add(sp, sp)
    with pytest.raises(NotImplementedError, match="to_retain"):
        tf.sparse.retain(sp, tf.placeholder(tf.bool, [None]))
    with pytest.raises(NotImplementedError, match="from_dense"):
        tf.sparse.from_dense(tf.placeholder(tf.float32, [2]))


def test_argument_errors(graph):
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.sparse.to_dense(tf.constant([1.0]))
    with pytest.raises(TypeError, match="do you mean to use tf.add"):
        tf.sparse.add(tf.constant([1.0]), tf.constant([1.0]))
    sp = tf.sparse_placeholder(tf.float32, shape=[2, 2])
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.sparse.reduce_sum(sp, axis=1, reduction_axes=1)
    with pytest.raises(AttributeError, match="tf.sparse"):
        tf.sparse.not_a_sparse_op  # noqa: B018


def test_embedding_lookup_sparse_with_empty_last_rows_raises(graph):
    ids = tf.sparse_placeholder(tf.int64)
    emb = tf.nn.embedding_lookup_sparse(tf.ones([4, 2]), ids, None)
    with tf.Session() as sess:
        got = sess.run(emb, {ids: ([[0, 0], [2, 0]], np.array([1, 2], np.int64), [3, 1])})
        np.testing.assert_array_equal(got, [[1, 1], [0, 0], [1, 1]])
        # TF's result would have 2 rows (last row with ids + 1), not dense_shape[0] = 3.
        with pytest.raises(errors.UnimplementedError, match="safe_embedding_lookup_sparse"):
            sess.run(emb, {ids: ([[0, 0], [1, 0]], np.array([1, 2], np.int64), [3, 1])})


def test_sparse_placeholder_names_and_set_shape(graph):
    sp = tf.sparse_placeholder(tf.float32, shape=[None, 7], name="ids")
    assert sp.indices.name == "ids/indices:0" and sp.values.name == "ids/values:0"
    assert sp.dense_shape.name == "ids/shape:0"
    assert sp.shape.as_list() == [None, 7]
    sp.set_shape([5, None])
    assert sp.shape.as_list() == [5, 7]
    with pytest.raises(ValueError, match="incompatible"):
        sp.set_shape([5, 8])


def test_a_sparse_tensor_parsed_in_the_graph_says_to_feed_it(graph):
    serialized = tf.placeholder(tf.string, [None])
    words = tf.parse_example(serialized, {"w": tf.VarLenFeature(tf.int64)})["w"]
    with pytest.raises(NotImplementedError, match="sparse_placeholder"):
        tf.sparse.to_dense(words)
    with pytest.raises(NotImplementedError, match="embedding_lookup_sparse"):
        tf.nn.embedding_lookup_sparse(tf.ones([5, 2]), words, None)
