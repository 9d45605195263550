"""Fed and fetched values' Python types, as TF returns them (checked live in tests/interop)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


@pytest.mark.parametrize(
    "value,dtype,want_type",
    [
        (1.5, "float", np.float32),
        (3, tf.int32, np.int32),
        (True, tf.bool, np.bool_),
        (2.0, tf.float64, np.float64),
        (7, tf.int64, np.int64),
        (1, tf.uint8, np.uint8),
    ],
)
def test_scalar_fetches_are_numpy_scalars(sess, value, dtype, want_type):
    x = tf.placeholder(dtype, [])
    out = sess.run(tf.identity(x), {x: value})
    assert type(out) is want_type
    assert {out: "hashable"}[out] == "hashable"
    fed_back = sess.run(x, {x: value})  # a fed tensor comes back as the fed array, as TF
    assert type(fed_back) is np.ndarray and fed_back.dtype == np.dtype(want_type)
    assert type(sess.run(tf.constant(value, dtype=dtype))) is want_type


def test_array_fetches_stay_arrays(sess):
    out = sess.run(tf.constant([1.0, 2.0]))
    assert type(out) is np.ndarray and out.dtype == np.float32


@pytest.mark.parametrize(
    "fed,want",
    [
        (b"abc", b"abc"),
        ("h\xe9", "h\xe9".encode()),
        (np.bytes_(b"x"), b"x"),
        (np.array(b"y", dtype=object), b"y"),
    ],
)
def test_string_scalar_feed_and_fetch_bytes(sess, fed, want):
    s = tf.placeholder("string", [])
    out = sess.run(tf.identity(s), {s: fed})
    assert type(out) is bytes and out == want
    assert sess.run(tf.constant("abc")) == b"abc"
    fed_back = sess.run(s, {s: fed})  # a fed tensor comes back as the fed array, as TF
    assert type(fed_back) is np.ndarray and fed_back.shape == () and fed_back.dtype == object


@pytest.mark.parametrize(
    "fed",
    [[b"a", "b"], np.array([b"a", b"b"]), np.array(["a", "b"]), np.array([b"a", b"b"], object)],
)
def test_string_vector_feed_and_fetch_object_arrays(sess, fed):
    s = tf.placeholder(tf.string, [None])
    out = sess.run(tf.identity(s), {s: fed})
    assert out.dtype == object and out.tolist() == [b"a", b"b"]
    assert sess.run(tf.constant([b"a", b"bc"])).tolist() == [b"a", b"bc"]


def test_string_feed_of_a_number_is_refused(sess):
    # As TF 2.21: a Python int is refused at once, a number in a list when a step runs.
    s = tf.placeholder(tf.string, [])
    with pytest.raises(TypeError, match="feed value 3 .* Tensor type <class 'object'>"):
        sess.run(s, {s: 3})
    with pytest.raises(tf.errors.InternalError, match="Unsupported object type float"):
        sess.run(tf.identity(s), {s: 1.5})


def test_string_feed_reaches_host_ops(sess):
    s = tf.placeholder(tf.string, [])
    x = tf.placeholder(tf.float32, [2])
    raw, y = sess.run([tf.decode_raw(s, tf.uint8), x * 2.0], {s: b"\x01\x02", x: [1, 2]})
    assert raw.tolist() == [1, 2] and y.tolist() == [2.0, 4.0]


@pytest.mark.parametrize(
    "make",
    [
        lambda v: v,
        lambda v: v * 2.0,
        lambda v: tf.constant([1.0, 2.0, 3.0]),
        lambda v: tf.constant([b"a", b"b", b"c"]),
        lambda v: tf.constant(["a", "b", "c"]),
    ],
    ids=["variable", "tensor", "constant", "bytes-constant", "str-constant"],
)
def test_fetched_arrays_are_the_callers_own(sess, make):
    """TF returns arrays a script may change in place (``preds[mask] = 0``); changing
    one changes nothing in the session: the next run fetches the same values."""
    v = tf.Variable([1.0, 2.0, 3.0])
    fetch = make(v)
    sess.run(tf.global_variables_initializer())
    first = sess.run(fetch)
    want = first.copy()
    assert first.flags.writeable
    first[0] = first[1]  # raises on a read-only array
    np.testing.assert_array_equal(sess.run(fetch), want)
    np.testing.assert_array_equal(sess.run(v), [1.0, 2.0, 3.0])
