"""``tf.create_partitioned_variables``, ``tf.batch_scatter_update`` and
``tf.convert_to_tensor_or_sparse_tensor`` checked live against TF 2.21 (classic TF1
graphs): names, shapes, dtypes, values and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop


def test_create_partitioned_variables_as_tf():
    def script(tf):
        out = []
        full = np.arange(10.0).reshape(5, 2)
        a = tf.create_partitioned_variables([5, 2], [2, 1], full, dtype=tf.float64)
        b = tf.create_partitioned_variables(
            [4], [2], np.arange(4, dtype=np.float32), name="emb", trainable=False
        )
        c = tf.create_partitioned_variables([3, 4], [1, 3], tf.zeros_initializer(), dtype=tf.int32)
        for vs in (a, b, c):
            out.append(
                [(v.name, str(v.shape), v.dtype.name, v in tf.trainable_variables()) for v in vs]
            )
        for shape, slicing in (([5, 2], [2]), ([], []), ([4], [2])):
            try:
                tf.create_partitioned_variables(shape, slicing, tf.zeros_initializer(), name="emb")
            except ValueError as e:
                out.append(str(e))
        reused = tf.create_partitioned_variables([4], [2], None, name="emb", reuse=True)
        out.append([v.name for v in reused])
        return lambda sess: (out, sess.run(a + b + c))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def test_batch_scatter_update_as_tf():
    def script(tf):
        v = tf.get_variable("v", initializer=tf.constant(np.arange(6.0).reshape(2, 3), tf.float32))
        with tf.name_scope("outer"):
            u = tf.batch_scatter_update(
                v,
                tf.constant([[2, 0], [1, 0]], tf.int64),
                tf.constant([[10.0, 20.0], [30.0, 40.0]]),
            )
        w = tf.get_variable("w", initializer=tf.constant([1, 2, 3, 4]))
        u2 = tf.batch_scatter_update(w, [3, 0], [9, 8], name="bs")
        b = tf.get_variable("b", initializer=tf.zeros([2, 2, 3]))
        u3 = tf.batch_scatter_update(b, [[[1], [0]], [[0], [2]]], tf.ones([2, 2, 1]))
        names = [(t.name, t.op.type, str(t.shape)) for t in (u, u2, u3)]
        return lambda sess: (names, sess.run([u, u2, u3]), sess.run([v, w, b]))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:])


def test_convert_to_tensor_or_sparse_tensor_as_tf():
    def script(tf):
        out = []
        sp = tf.convert_to_tensor_or_sparse_tensor(tf.SparseTensorValue([[0, 1]], [1.5], [2, 2]))
        given = tf.SparseTensor([[0]], [1], [3])
        out.append(tf.convert_to_tensor_or_sparse_tensor(given, dtype=tf.int32) is given)
        t = tf.convert_to_tensor_or_sparse_tensor([1, 2], dtype=tf.int64, name="c")
        out.append((type(sp).__name__, sp.dtype.name, sp.indices.dtype.name, t.name, t.dtype.name))
        try:
            tf.convert_to_tensor_or_sparse_tensor(given, dtype=tf.float32)
        except RuntimeError as e:
            out.append(str(e))
        try:
            tf.convert_to_tensor_or_sparse_tensor([1.5], dtype=tf.int32)
        except TypeError as e:
            out.append(type(e).__name__)
        return lambda sess: (out, sess.run([sp.values, sp.dense_shape, t]))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])
