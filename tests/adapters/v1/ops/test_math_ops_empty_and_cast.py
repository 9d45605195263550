"""``reduce_max``/``reduce_min`` over no elements and ``cast`` of non-finite floats
to int32/int64: TF 2.21's values, as measured live (``tests/interop/
test_ops_parity2_interop.py`` checks them against TF itself)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

IDENTITIES = {
    ("reduce_max", "float32"): -np.inf,
    ("reduce_max", "int32"): np.iinfo(np.int32).min,
    ("reduce_max", "uint8"): 0,
    ("reduce_max", "int64"): np.iinfo(np.int64).min,
    ("reduce_min", "float64"): np.inf,
    ("reduce_min", "int32"): np.iinfo(np.int32).max,
    ("reduce_min", "uint8"): 255,
    ("reduce_min", "int64"): np.iinfo(np.int64).max,
    ("reduce_prod", "int32"): 1,
    ("reduce_sum", "float32"): 0,
}


@pytest.mark.parametrize("key", list(IDENTITIES), ids=lambda k: "-".join(k))
def test_empty_reductions_give_the_identity(graph, key):
    reduction, dtype = key
    expected = IDENTITIES[key]
    x = tf.placeholder(tf.as_dtype(dtype), [None, None])
    over_all = getattr(tf, reduction)(x)
    rows = getattr(tf, reduction)(x, axis=1)
    kept = getattr(tf, reduction)(x, axis=1, keepdims=True)
    columns = getattr(tf, reduction)(x, axis=0)
    with tf.Session() as sess:
        a, r, k, c = sess.run([over_all, rows, kept, columns], {x: np.zeros([2, 0], dtype)})
    assert a.dtype == np.dtype(dtype) and a.shape == () and a == expected
    np.testing.assert_array_equal(r, np.full([2], expected, dtype))
    assert k.shape == (2, 1)
    assert c.shape == (0,)


def test_static_shape_of_an_empty_reduce_max(graph):
    out = tf.reduce_max(tf.zeros([2, 0]), 1)
    assert out.shape.as_list() == [2]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [-np.inf, -np.inf])


def test_nonempty_reduce_max_is_unchanged(graph):
    x = tf.constant([[1.0, np.nan], [3.0, -np.inf]])
    with tf.Session() as sess:
        out = sess.run(tf.reduce_max(x, 1))
    assert np.isnan(out[0]) and out[1] == 3.0


LOW32, LOW64 = np.iinfo(np.int32).min, np.iinfo(np.int64).min
SPECIALS = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 2147483648.0, -2147483648.0])
# TF 2.21 on x86-64 (C++ static_cast: cvttss2si's "integer indefinite").
TO_INT32 = [LOW32, LOW32, LOW32, LOW32, LOW32, 2, -2, LOW32, LOW32]
TO_INT64 = [LOW64, LOW64, LOW64, 3000000000, -3000000000, 2, -2, 2147483648, -2147483648]


@pytest.mark.parametrize("source", ["float16", "float32", "float64"])
def test_cast_of_non_finite_floats_to_int(graph, source):
    x = tf.placeholder(tf.as_dtype(source), [None])
    with np.errstate(over="ignore"):  # 3e9 is inf in float16
        values = SPECIALS.astype(source)
    with tf.Session() as sess:
        i32, i64 = sess.run([tf.cast(x, tf.int32), tf.cast(x, tf.int64)], {x: values})
    if source == "float16":  # 3e9 and 2**31 are inf in float16
        np.testing.assert_array_equal(i32, [LOW32] * 5 + [2, -2, LOW32, LOW32])
        np.testing.assert_array_equal(i64, [LOW64] * 5 + [2, -2, LOW64, LOW64])
    else:
        np.testing.assert_array_equal(i32, TO_INT32)
        np.testing.assert_array_equal(i64, TO_INT64)


def test_to_int32_and_constants_cast_as_tf(graph):
    with tf.Session() as sess:
        a, b = sess.run([tf.to_int32(tf.constant([np.nan, 1.9])), tf.to_int64([np.inf, -1.9])])
    np.testing.assert_array_equal(a, [LOW32, 1])
    np.testing.assert_array_equal(b, [LOW64, -1])


def test_cast_to_uint8_of_in_range_values_truncates(graph):
    with tf.Session() as sess:
        out = sess.run(tf.cast(tf.constant([0.7, 254.9, 255.0]), tf.uint8))
    np.testing.assert_array_equal(out, [0, 254, 255])
