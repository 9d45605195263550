"""``tf.assert_rank``, ``assert_near``, ``assert_shapes``, ``assert_type``... checked live
against TF 2.21 (classic TF1 graphs): the error TF raises when the graph is built
(class and text), the ``assertion failed: [...]`` text of the run-time
``InvalidArgumentError`` for fed inputs, what a passing check returns (a ``NoOp``
named as TF names it, the tensor, the dtype) and a check used through
``tf.control_dependencies``.

Two differences that belong to ``tf.Assert`` itself, not to these assertions, are
normalized here: TF C-escapes the strings it prints (``\\"`` for a quote; jtrain's
``tf.Assert`` prints them raw, reported separately), and a run-time check is compared
by its scope only (TF returns ``Assert`` or, when the data is large, the ``Merge`` of
an ``AssertGuard`` cond; jtrain the ``Assert``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop


def _outcome(build: Any) -> Any:
    """Runs ``build(tf)`` under both; returns the build error, the run error (its
    ``assertion failed`` line) or what the fetch gave and the returned object's kind."""

    def script(tf):
        try:
            built = build(tf)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            result = ("build", type(e).__name__, str(e))
            return lambda sess: result
        fetch, feed = built if isinstance(built, tuple) else (built, None)

        def run(sess):
            kind = _kind(fetch)
            try:
                value = sess.run(fetch, feed) if kind != "DType" else fetch.name
            except tf.errors.OpError as e:
                return ("run", type(e).__name__, _assertion_lines(e.message))
            return ("ok", kind, _plain(value))

        return run

    return run_both(script)


def _assertion_lines(message: str) -> list[str]:
    lines = [s for s in message.splitlines() if s.startswith("assertion failed")]
    return [s.replace('\\"', '"') for s in lines]  # TF's C-escaping (see the docstring)


def _kind(fetch: Any) -> Any:
    if isinstance(fetch, list):
        return [_kind(f) for f in fetch]
    name = type(fetch).__name__
    if name == "DType":
        return "DType"
    if name in ("Operation", "ShouldUseWrapper"):  # TF wraps a run-time check's op
        if fetch.type in ("Assert", "Merge"):
            return ("run-time check", fetch.name.split("/")[0])
        return ("op", fetch.name, fetch.type)
    return ("tensor", fetch.name.split("/")[0].split(":")[0], fetch.dtype.name, str(fetch.shape))


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return None if value is None else np.asarray(value).tolist()


def _fed(tf, make, value, shape=None, dtype="float32"):
    p = tf.placeholder(dtype, shape)
    return make(tf, p), {p: value}


CASES = {
    # assert_rank
    "rank_static_ok": lambda tf: tf.assert_rank(tf.constant([1, 2]), 1),
    "rank_static_bad": lambda tf: tf.assert_rank(tf.constant([1, 2]), 2, message="msg"),
    "rank_not_scalar": lambda tf: tf.assert_rank(tf.constant([1, 2]), [1]),
    "rank_int64": lambda tf: tf.assert_rank(tf.constant([1, 2]), tf.constant(1, tf.int64)),
    "rank_fed_bad": lambda tf: _fed(
        tf, lambda tf, p: tf.assert_rank(p, 2, message="m", summarize=1), np.zeros((2, 3, 4))
    ),
    "rank_fed_ok": lambda tf: _fed(tf, lambda tf, p: tf.assert_rank(p, 3), np.zeros((2, 3, 4))),
    "rank_fed_rank_not_scalar": lambda tf: (
        lambda p, r: (tf.assert_rank(p, r), {p: np.zeros((2, 3)), r: [2]})
    )(tf.placeholder(tf.float32), tf.placeholder(tf.int32)),
    "rank_fed_rank_ok": lambda tf: (
        lambda p, r: (tf.assert_rank(p, r), {p: np.zeros((2, 3)), r: 2})
    )(tf.placeholder(tf.float32), tf.placeholder(tf.int32)),
    "debugging_rank": lambda tf: tf.debugging.assert_rank(tf.zeros([2, 2]), 1, name="r"),
    # assert_rank_at_least / assert_rank_in
    "at_least_static_ok": lambda tf: tf.assert_rank_at_least(tf.zeros([2, 2]), 1),
    "at_least_static_bad": lambda tf: tf.assert_rank_at_least(tf.constant([1, 2]), 2),
    "at_least_fed_bad": lambda tf: _fed(
        tf, lambda tf, p: tf.assert_rank_at_least(p, 4), np.zeros((2, 3, 4))
    ),
    "at_least_fed_ok": lambda tf: _fed(
        tf, lambda tf, p: tf.debugging.assert_rank_at_least(p, 2), np.zeros((2, 3, 4))
    ),
    "in_static_ok": lambda tf: tf.assert_rank_in(tf.constant(1.0), [0, 2]),
    "in_static_bad": lambda tf: tf.assert_rank_in(tf.constant([1, 2]), [0, 2], message="m"),
    "in_fed_bad": lambda tf: _fed(
        tf, lambda tf, p: tf.assert_rank_in(p, [0, 2], message="hey"), np.zeros((2, 3, 4))
    ),
    "in_fed_ok": lambda tf: _fed(
        tf, lambda tf, p: tf.debugging.assert_rank_in(p, [0, 2]), np.zeros((2, 3))
    ),
    # assert_integer / assert_type / assert_scalar
    "integer_ok": lambda tf: tf.assert_integer(tf.constant([1, 2], tf.int64)),
    "integer_bad": lambda tf: tf.assert_integer(tf.constant([1.0]), message="mm"),
    "debugging_integer_bad": lambda tf: tf.debugging.assert_integer(tf.constant([True])),
    "type_ok": lambda tf: tf.assert_type(tf.constant([1.0]), tf.float32),
    "type_bad": lambda tf: tf.assert_type(tf.constant([1.0]), tf.int32, message="mm"),
    "type_bad_placeholder": lambda tf: tf.debugging.assert_type(
        tf.placeholder(tf.float64, name="p"), "float32"
    ),
    "scalar_ok": lambda tf: tf.assert_scalar(tf.constant(1.5)),
    "scalar_python": lambda tf: tf.debugging.assert_scalar(3, name="s"),
    "scalar_bad": lambda tf: tf.assert_scalar(tf.constant([1.0]), message="mm"),
    "scalar_unknown": lambda tf: tf.assert_scalar(tf.placeholder(tf.float32)),
    # assert_near (run-time only, even for constants)
    "near_ok": lambda tf: tf.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.000001])),
    "near_bad": lambda tf: tf.assert_near(
        tf.constant([1.0, 2.0]), tf.constant([1.0, 2.1]), message="mm"
    ),
    "near_f64_bad": lambda tf: tf.debugging.assert_near(
        tf.constant([1.0, 2.0], tf.float64), [1.0, 2.0 + 1e-13]
    ),
    "near_int": lambda tf: tf.assert_near(tf.constant([1, 2]), tf.constant([1, 3])),
    "near_fed_bad": lambda tf: _fed(
        tf, lambda tf, p: tf.assert_near(p, [1.0, 2.0], rtol=0.1, summarize=1), [1.0, 2.5]
    ),
    "near_fed_ok": lambda tf: _fed(
        tf, lambda tf, p: tf.assert_near(p, [1.0, 2.0], rtol=0.1, atol=0.0), [1.0, 2.1]
    ),
    # assert_same_float_dtype / assert_proper_iterable
    "same_float_mixed": lambda tf: tf.assert_same_float_dtype(
        [tf.constant(1.0), tf.constant(1.0, tf.float64)]
    ),
    "same_float_int": lambda tf: tf.assert_same_float_dtype([tf.constant(1)]),
    "same_float_expected": lambda tf: tf.debugging.assert_same_float_dtype(
        [tf.constant(1.0)], tf.float64
    ),
    "same_float_ok": lambda tf: tf.assert_same_float_dtype([None, tf.constant(1.0, tf.float64)]),
    "same_float_none": lambda tf: tf.assert_same_float_dtype(),
    "proper_array": lambda tf: tf.assert_proper_iterable(np.zeros(2)),
    "proper_int": lambda tf: tf.assert_proper_iterable(3),
    "proper_str": lambda tf: tf.debugging.assert_proper_iterable("ab"),
    # tf.debugging.assert_shapes
    "shapes_static_bad": lambda tf: tf.debugging.assert_shapes([(tf.constant([[1, 2]]), ("N", 3))]),
    "shapes_shared_bad": lambda tf: tf.debugging.assert_shapes(
        [(tf.constant([[1, 2]]), ("N", "D")), (tf.constant([1, 2, 3]), ("D",))], message="mm"
    ),
    "shapes_rank_bad": lambda tf: tf.debugging.assert_shapes([(tf.constant([1, 2]), ("N", "D"))]),
    "shapes_ellipsis_late": lambda tf: tf.debugging.assert_shapes(
        [(tf.constant([1, 2]), ("N", ...))]
    ),
    "shapes_not_iterable": lambda tf: tf.debugging.assert_shapes([(tf.constant([1, 2]), 3)]),
    "shapes_ok": lambda tf: tf.debugging.assert_shapes(
        {tf.constant([[1, 2]]): (1, "D"), tf.constant([1, 2]): ("D",), tf.constant(3): ()}
    ),
    "shapes_ellipsis_ok": lambda tf: tf.debugging.assert_shapes(
        [(tf.zeros([4, 2, 3]), (..., "N", 3)), (tf.zeros([2]), ("*", "N"))]
    ),
    "shapes_fed_size_bad": lambda tf: _fed(
        tf,
        lambda tf, p: tf.debugging.assert_shapes(
            [(p, ("N", "D")), (tf.constant([1, 2, 3]), ("D",))]
        ),
        np.zeros((2, 2)),
        [None, None],
    ),
    "shapes_fed_size_ok": lambda tf: _fed(
        tf,
        lambda tf, p: tf.debugging.assert_shapes(
            [(p, ("N", "D")), (tf.constant([1, 2, 3]), ("D",))]
        ),
        np.zeros((2, 3)),
        [None, None],
    ),
    "shapes_fed_rank_bad": lambda tf: _fed(
        tf, lambda tf, p: tf.debugging.assert_shapes([(p, ("N", "D"))]), np.zeros((2,))
    ),
    "shapes_fed_explicit_bad": lambda tf: _fed(
        tf,
        lambda tf, p: tf.debugging.assert_shapes([(p, (..., 5))], message="x"),
        np.zeros((2, 3)),
    ),
    # is_non_decreasing / is_strictly_increasing / is_numeric_tensor under tf.debugging
    "monotonic": lambda tf: [
        tf.is_non_decreasing([1, 1, 2]),
        tf.is_strictly_increasing([1, 1, 2]),
        tf.debugging.is_non_decreasing([3.0]),
        tf.debugging.is_strictly_increasing([[1, 2], [3, 4]]),
    ],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_assertion_as_tf(case):
    theirs, ours = _outcome(CASES[case])
    assert ours == theirs


def test_is_numeric_tensor_as_tf():
    def script(tf):
        values = [tf.constant(1.0), tf.constant([1], tf.int64), tf.constant(True), 1.0]
        results = [tf.debugging.is_numeric_tensor(v) for v in values]
        results.append(tf.is_numeric_tensor(tf.constant("a")))
        return lambda sess: results

    theirs, ours = run_both(script)
    assert ours == theirs == [True, True, False, False, False]


def test_assertions_gate_a_value_through_control_dependencies():
    """Three checks gate one value; a bad feed fails the run with a failing check's message.

    .. note:: Which of two failing checks TF reports depends on its executor's order
       (independent ops on a thread pool): a rank-2 feed fails ``assert_rank`` and
       ``assert_shapes``, and TF reported either (CI saw ``assert_shapes``' "must have rank
       in"). So each check also gates a value of its own, whose messages must be TF's, and
       the gated value's message must be one of the failing checks' on each side.
    """

    def script(tf):
        x = tf.placeholder(tf.float32)
        checks = [
            tf.assert_rank(x, 1),
            tf.assert_near(x, tf.ones_like(x)),
            tf.debugging.assert_shapes([(x, ("N",))]),
        ]
        with tf.control_dependencies(checks):
            y = tf.identity(x) * 2.0
        alone = []
        for check in checks:
            with tf.control_dependencies([check]):
                alone.append(tf.identity(x))

        def failure(sess, fetch, feed):
            try:
                sess.run(fetch, {x: feed})
            except tf.errors.InvalidArgumentError as e:
                return _assertion_lines(e.message)
            return None

        def run(sess):
            out = [sess.run(y, {x: [1.0, 1.0]}).tolist()]
            for bad in ([[1.0]], [1.0, 3.0]):
                out.append([failure(sess, a, bad) for a in alone] + [failure(sess, y, bad)])
            return out

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0] == [2.0, 2.0]
    for bad in (1, 2):
        *their_checks, their_gated = theirs[bad]
        *our_checks, our_gated = ours[bad]
        assert our_checks == their_checks
        failing = [m for m in their_checks if m is not None]
        assert failing and their_gated in failing and our_gated in failing
    # the rank-2 feed fails the rank and shape checks, the far one the closeness check
    assert [m is None for m in theirs[1][:3]] == [False, True, False]
    assert [m is None for m in theirs[2][:3]] == [True, False, True]


def test_assert_proper_iterable_refuses_a_tensor():
    def script(tf):
        try:
            tf.assert_proper_iterable(tf.constant([1]))
        except TypeError as e:
            text = str(e)
        return lambda sess: text.split("Found: ")[0]

    theirs, ours = run_both(script)
    assert ours == theirs == 'Expected argument "values" to be a "proper" iterable.  '


def test_debugging_settings_as_tf():
    def settings(tf):
        d = tf.debugging
        out = [d.get_log_device_placement(), d.is_traceback_filtering_enabled()]
        out.append(d.set_log_device_placement(True))
        out.append(d.get_log_device_placement())
        d.set_log_device_placement(False)
        out.append(d.disable_traceback_filtering())
        out.append(d.is_traceback_filtering_enabled())
        out.append(d.enable_traceback_filtering())
        out += [d.is_traceback_filtering_enabled(), d.get_log_device_placement()]
        return out

    import tensorflow as real_tf

    from adapters import v1 as jtf

    assert (
        settings(jtf)
        == settings(real_tf.compat.v1)
        == [False, True, None, True, None, False, None, True, False]
    )


def test_sparse_tensor_checks_as_tf():
    def script(tf):
        out = []
        s = tf.SparseTensor([[0, 1]], [1.0], [2, 3])
        op = tf.assert_rank(s, 2)
        out.append((op.name, op.type))
        for check in (
            lambda: tf.assert_rank(s, 3),
            lambda: tf.assert_rank_in(s, [1, 3]),
            lambda: tf.assert_type(s, tf.int32),
            lambda: tf.debugging.assert_shapes([(s, ("N", 4))]),
        ):
            try:
                check()
            except (ValueError, TypeError) as e:
                out.append((type(e).__name__, str(e)))
        p = tf.sparse_placeholder(tf.float32)
        fed = tf.assert_rank(p, 3)

        def run(sess):
            try:
                sess.run(fed, {p: tf.SparseTensorValue([[0, 1]], [1.0], [2, 3])})
            except tf.errors.InvalidArgumentError as e:
                out.append(_assertion_lines(e.message))
            return out

        return run

    theirs, ours = run_both(script)
    assert ours == theirs
    assert len(ours) == 6
