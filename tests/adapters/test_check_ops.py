"""``tf.assert_rank``, ``assert_near``, ``assert_shapes``... without TensorFlow.

TF parity (every message and return, static and fed) is checked live in
``tests/interop/test_check_ops_interop.py``; the texts below are TF 2.21's, copied
from it. Here: what is static and what runs, the names, and that a run-time check
gates values through ``tf.control_dependencies``.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain import errors


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


NAMES = [
    "assert_integer",
    "assert_near",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_type",
]


@pytest.mark.parametrize("name", NAMES)
def test_top_level_and_debugging_names(name):
    assert getattr(tf, name) is getattr(tf.debugging, name)


def test_debugging_only_names():
    assert tf.debugging.assert_shapes is not None
    assert tf.debugging.is_non_decreasing is tf.is_non_decreasing
    assert tf.debugging.is_strictly_increasing is tf.is_strictly_increasing
    assert tf.debugging.is_numeric_tensor is tf.is_numeric_tensor


def test_static_rank_checks_are_no_ops_or_value_errors(graph):
    op = tf.assert_rank(tf.constant([1, 2]), 1)
    assert (op.name, op.type) == ("assert_rank/static_checks_determined_all_ok", "NoOp")
    with pytest.raises(ValueError, match=r"^msg\.  Tensor Const_1:0 must have rank 2\.  Received"):
        tf.assert_rank(tf.constant([1, 2]), 2, message="msg")
    with pytest.raises(ValueError, match=r"must have rank in \(0, 2\)\.  Received rank 1"):
        tf.assert_rank_in(tf.constant([1, 2]), [0, 2])
    with pytest.raises(ValueError, match="^Rank must be a scalar.$"):
        tf.assert_rank(tf.constant([1, 2]), [1])
    with pytest.raises(TypeError, match="must be of type tf.int32; got tf.int64"):
        tf.assert_rank(tf.constant([1, 2]), tf.constant(1, tf.int64))


def test_fed_rank_fails_the_run(graph):
    p = tf.placeholder(tf.float32)
    check = tf.assert_rank_at_least(p, 4, message="m")
    with tf.Session() as sess:
        sess.run(check, {p: np.zeros((1, 1, 1, 1))})
        with pytest.raises(errors.InvalidArgumentError) as e:
            sess.run(check, {p: np.zeros((2, 3, 4))})
    assert e.value.message == (
        "assertion failed: [m.  ] [Tensor Placeholder:0 must have rank at least] [4] "
        "[Received shape: ] [2 3 4]"
    )


def test_assert_near_is_strict_and_checked_when_run(graph):
    x = tf.placeholder(tf.float32)
    check = tf.assert_near(x, [1.0, 2.0], rtol=0.0, atol=0.5)
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.25]}), [1.0, 2.25])
        with pytest.raises(errors.InvalidArgumentError, match=r"\[y \(assert_near/y:0\) = \]"):
            sess.run(y, {x: [1.0, 2.5]})  # |diff| == atol is not near (TF: less)
    # NumPy's finfo error, as TF raises it; its wording is NumPy's version's ("data type
    # <class 'numpy.int32'> not inexact" up to 2.4, "...not compatible with finfo" in 2.5)
    with pytest.raises(ValueError, match="int32"):
        tf.assert_near(tf.constant([1]), tf.constant([1]))


def test_dtype_and_scalar_checks(graph):
    assert (
        tf.assert_integer(tf.constant([1])).name
        == "assert_integer/statically_determined_was_integer"
    )
    with pytest.raises(TypeError, match='^mm.  Expected "x" to be integer type.  Found: Const_1:0'):
        tf.assert_integer(tf.constant([1.0]), message="mm")
    assert tf.assert_type(tf.constant(1.0), "float32").type == "NoOp"
    with pytest.raises(TypeError, match="^Const_3:0 must be of type tf.int32; got tf.float32$"):
        tf.assert_type(tf.constant([1.0]), tf.int32)
    s = tf.constant(2.0)
    assert tf.assert_scalar(s) is s
    with pytest.raises(ValueError, match="saw shape: <unknown>.$"):
        tf.assert_scalar(tf.placeholder(tf.float32))
    assert tf.assert_same_float_dtype() == tf.float32
    assert tf.assert_same_float_dtype([None, tf.constant(1.0, tf.float64)]) == tf.float64
    with pytest.raises(ValueError, match="Expected floating point type"):
        tf.assert_same_float_dtype([tf.constant(1)])
    assert tf.assert_proper_iterable([1, 2]) is None
    for bad in (np.zeros(2), "ab", b"ab", 3, s):
        with pytest.raises(TypeError, match='Expected argument "values" to be'):
            tf.assert_proper_iterable(bad)


def test_assert_shapes_static_and_fed(graph):
    with pytest.raises(ValueError, match=r"^Specified explicitly\.  Tensor Const:0 dimension 1"):
        tf.debugging.assert_shapes([(tf.constant([[1, 2]]), ("N", 3))])
    op = tf.debugging.assert_shapes({tf.constant([[1, 2]]): (1, "D"), tf.constant([1, 2]): ("D",)})
    assert (op.name, op.type) == ("group_deps", "NoOp")
    p = tf.placeholder(tf.float32, [None, None])
    check = tf.debugging.assert_shapes([(p, ("N", "D")), (tf.constant([1, 2, 3]), ("D",))])
    with tf.Session() as sess:
        sess.run(check, {p: np.zeros((5, 3))})
        with pytest.raises(errors.InvalidArgumentError, match=r"\[must have size\] \[2\]"):
            sess.run(check, {p: np.zeros((5, 2))})


def test_debugging_settings_are_kept():
    d = tf.debugging
    assert (d.get_log_device_placement(), d.is_traceback_filtering_enabled()) == (False, True)
    d.set_log_device_placement(True)
    d.disable_traceback_filtering()
    try:
        assert (d.get_log_device_placement(), d.is_traceback_filtering_enabled()) == (True, False)
    finally:
        d.set_log_device_placement(False)
        d.enable_traceback_filtering()
