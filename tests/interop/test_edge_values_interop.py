"""Edge values where jtrain's ops gave other values, dtypes or errors than TF 2.21's.

One row per finding of a differential sweep (``tf.compat.v1`` as classic TF1 against
``adapters.v1``, ``twin.py``): the same snippet must give TF's outcome bit for bit
(values, dtypes, static shapes; -0.0 is not 0.0) or TF's error class with TF's message.
Each row failed before its fix (a wrong value, a wrong dtype, or, for integer
``truncatediv``/``truncatemod`` of constants by zero or of the lowest value by -1, a
process killed by SIGFPE), except the rows marked "guard", which pin TF's values
next to a fix.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.interop.twin import run_once, tf1

I32 = np.int32
I64 = np.int64
F32 = np.float32


def _binary(op: str, x: Any, y: Any) -> Callable[[Any], Any]:
    """``tf.<op>(x, y)`` of two placeholders fed with ``x`` and ``y`` (no constant folding)."""

    def build(tf):
        a = tf.placeholder(tf.as_dtype(np.asarray(x).dtype), np.shape(x))
        b = tf.placeholder(tf.as_dtype(np.asarray(y).dtype), np.shape(y))
        return getattr(tf, op)(a, b), {a: x, b: y}

    return build


def _unary(op: str, x: Any, **kwargs: Any) -> Callable[[Any], Any]:
    def build(tf):
        a = tf.placeholder(tf.as_dtype(np.asarray(x).dtype), np.shape(x))
        fn = tf
        for part in op.split("."):
            fn = getattr(fn, part)
        return fn(a, **kwargs), {a: x}

    return build


def _with_gradient(op: str, x: Any) -> Callable[[Any], Any]:
    """``[tf.<op>(x), its gradient]`` of a fed placeholder."""

    def build(tf):
        a = tf.placeholder(tf.as_dtype(x.dtype), x.shape)
        y = getattr(tf, op)(a)
        return [y, tf.gradients(y, a)[0]], {a: x}

    return build


def _constants(op: str, x: Any, y: Any) -> Callable[[Any], Any]:
    """``tf.<op>(x, y)`` of two constants (XLA folds them when it compiles)."""
    return lambda tf: (getattr(tf, op)(tf.constant(x), tf.constant(y)), None)


def _a(values: Any, dtype: Any) -> np.ndarray:
    return np.asarray(values, dtype)


# name -> build(tf) -> (fetch, feed_dict)
CASES: dict[str, Callable[[Any], Any]] = {
    # Integer division and modulo by zero: TF's CPU kernels raise (InvalidArgumentError;
    # TruncateDiv/TruncateMod: InternalError); jtrain returned values (truncatediv and
    # truncatemod: the process died of SIGFPE).
    "floordiv int32 by 0": _binary("floordiv", _a([7, 1], I32), _a([0, 1], I32)),
    "floormod int64 by 0": _binary("floormod", _a([7, 1], I64), _a([1, 0], I64)),
    "mod uint8 by 0": _binary("mod", _a([7, 1], np.uint8), _a([0, 1], np.uint8)),
    "div int16 by 0": _binary("div", _a([7, 1], np.int16), _a([0, 1], np.int16)),
    "truncatediv int32 by 0": _binary("truncatediv", _a([7, 1], I32), _a([0, 1], I32)),
    "truncatemod int64 by 0": _binary("truncatemod", _a([7, 1], I64), _a([0, 1], I64)),
    "truncatediv constants by 0": _constants("truncatediv", _a([7, 1], I32), _a([0, 1], I32)),
    "truncatemod constants by 0": _constants("truncatemod", _a([7, 1], I32), _a([1, 0], I32)),
    # guard: the quotients that do not trap keep TF's values
    "truncatediv constants lowest by -1": _constants(
        "truncatediv", _a([-(2**31), 7], I32), _a([-1, -2], I32)
    ),
    "truncatemod constants lowest by -1": _constants(
        "truncatemod", _a([-(2**63), 7], I64), _a([-1, -2], I64)
    ),
    "truncatediv int32 lowest by -1": _binary(
        "truncatediv", _a([-(2**31), -7, 7], I32), _a([-1, 2, -2], I32)
    ),
    "truncatemod int64 lowest by -1": _binary(
        "truncatemod", _a([-(2**63), -7, 7], I64), _a([-1, 2, -2], I64)
    ),
    "floordiv float by 0": _binary("floordiv", _a([7, -1, 0], F32), _a([0, 0, 0], F32)),
    # Integer pow with a negative exponent: TF raises (even 1 ** -1); jtrain returned 0s.
    "pow int32 negative exponent": _binary("pow", _a([2, 3], I32), _a([1, -1], I32)),
    "pow int8 one to -1": _binary("pow", _a([1], np.int8), _a([-1], np.int8)),
    # guard
    "pow int64 wraps": _binary("pow", _a([3, 2, 7], I64), _a([41, 63, 0], I64)),
    # Dtypes TF's op definitions refuse (TypeError when the graph is built); jtrain
    # computed them.
    "pow uint8": _binary("pow", _a([3], np.uint8), _a([2], np.uint8)),
    "squared_difference int8": _binary("squared_difference", _a([3], np.int8), _a([2], np.int8)),
    "truncatemod int16": _binary("truncatemod", _a([3], np.int16), _a([2], np.int16)),
    "matmul int8": _binary("matmul", _a([[3]], np.int8), _a([[2]], np.int8)),
    # Dtypes without a CPU kernel: TF raises InvalidArgumentError when run; jtrain
    # returned values (RealDiv and Reciprocal of integers: float32 ones).
    "realdiv int32": _binary("realdiv", _a([7, 1], I32), _a([2, 1], I32)),
    "realdiv uint8": _binary("realdiv", _a([7, 1], np.uint8), _a([2, 1], np.uint8)),
    # guard: tf.truediv casts integers to a float first (no RealDiv of integers)
    "truediv int32": _binary("truediv", _a([7, 1], I32), _a([2, 0], I32)),
    "reciprocal int64": _unary("reciprocal", _a([7, 1], I64)),
    "matmul uint8": _binary("matmul", _a([[3]], np.uint8), _a([[2]], np.uint8)),
    "rint float16": _unary("rint", _a([2.5, -0.5], np.float16)),
    "lgamma bfloat16": _unary("lgamma", _a([2.5], np.float32).astype("bfloat16")),
    # sign(-0.0) is +0.0 in TF (XLA's: -0.0)
    "sign float32": _with_gradient("sign", _a([-0.0, 0.0, -2.5, np.nan, np.inf], F32)),
    "sign float16": _unary("sign", _a([-0.0, 3.0], np.float16)),
    # saturate_cast as TF 2.21's: clip_by_value to bounds computed in the input's dtype
    # (nudged toward 0 when not exact), then tf.cast; jtrain clamped to the exact
    # bounds (inf to int32: 2147483647, TF's 2147483520), kept infinities of float32,
    # refused bfloat16 targets.
    "saturate_cast float32 to int32": _unary(
        "saturate_cast", _a([np.nan, np.inf, -np.inf, 3e9, -3e9, 7.9], F32), dtype=I32
    ),
    "saturate_cast float32 to float32": _unary(
        "saturate_cast", _a([np.inf, -np.inf, np.nan, 1.5], F32), dtype=F32
    ),
    "saturate_cast float64 to bfloat16": _unary(
        "saturate_cast", _a([1e300, -1e300, 0.1], np.float64), dtype="bfloat16"
    ),
    "saturate_cast float64 to int64": _unary(
        "saturate_cast", _a([1e300, -np.inf, np.nan, -2.5], np.float64), dtype=I64
    ),
    "saturate_cast int64 to uint64": _unary(
        "saturate_cast", _a([300, -1, 2**62], I64), dtype="uint64"
    ),
    "saturate_cast float32 to bool": _unary("saturate_cast", _a([1.0], F32), dtype="bool"),
    # guard
    "saturate_cast complex128 to int32": _unary(
        "saturate_cast", _a([1e20 + 1j, -3e10 - 2j, 0.5 + 7j], np.complex128), dtype=I32
    ),
    "saturate_cast int32 to uint8": _unary("saturate_cast", _a([300, -1, 7], I32), dtype="uint8"),
    # lgamma: TF's values where the C library's are exact (lgamma(1) was 4.8e-07, not 0)
    "lgamma float32": _unary("lgamma", _a([1.0, 2.0, 0.5, 1e-3, 30.0], F32)),
    "lgamma float16": _with_gradient("lgamma", _a([1.0, 2.0, 1.5, 0.5, 3.7], np.float16)),
    "lbeta float32": _unary("lbeta", _a([[1.0, 2.0], [0.5, 0.5]], F32)),
}


_TF_CLASSES = ("TypeError", "ValueError", "InvalidArgumentError", "InternalError")


def _outcome(tf: Any, build: Callable[[Any], Any]) -> tuple[str, Any]:
    """``("ok", value)`` of the snippet, or ``(error class name, message)``."""

    def script(tf):
        fetch, feed = build(tf)
        return lambda sess: sess.run(fetch, feed)

    try:
        return "ok", run_once(tf, script)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        # TF's class, or one of its subclasses (op_def.OpTypeError is a TypeError)
        names = [c.__name__ for c in type(e).__mro__]
        kind = next((n for n in names if n in _TF_CLASSES), names[0])
        return kind, getattr(e, "message", str(e))


def _assert_same_bits(theirs: np.ndarray, ours: np.ndarray) -> None:
    theirs, ours = np.asarray(theirs), np.asarray(ours)
    assert ours.dtype == theirs.dtype, f"dtype: jtrain {ours.dtype} vs TF {theirs.dtype}"
    assert ours.shape == theirs.shape, f"shape: jtrain {ours.shape} vs TF {theirs.shape}"
    if theirs.dtype.kind in "fc":
        nan = np.isnan(theirs)
        np.testing.assert_array_equal(np.isnan(ours), nan)
        # bits, except NaN payloads and signs (not TF's contract)
        t_bits = np.where(nan, 0, theirs).view(f"u{theirs.dtype.itemsize}")
        o_bits = np.where(nan, 0, ours).astype(theirs.dtype).view(f"u{theirs.dtype.itemsize}")
        np.testing.assert_array_equal(o_bits, t_bits, err_msg=f"jtrain {ours} vs TF {theirs}")
    else:
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("case", list(CASES))
def test_edge_values_are_tfs(case):
    from adapters import v1 as jtf

    kind, theirs = _outcome(tf1, CASES[case])
    our_kind, ours = _outcome(jtf, CASES[case])
    assert our_kind == kind, f"jtrain {our_kind}: {ours!r}; TF {kind}: {theirs!r}"
    if kind == "ok":
        for t, o in zip(
            theirs if isinstance(theirs, list) else [theirs],
            ours if isinstance(ours, list) else [ours],
            strict=True,
        ):
            _assert_same_bits(t, o)
    else:  # jtrain's message is TF's (TF's adds the node and its stack)
        head = re.split(r" with these attrs| not in list of allowed", str(ours).splitlines()[-1])
        assert head[0] in theirs


# lgamma and digamma elsewhere: TF's CPU kernels (the C library's lgammaf, Eigen's
# digamma) are not correctly rounded, so jtrain's (float64, rounded) are within a few
# ulps of them, where XLA's float32 approximations were 30 ulps off (digamma(1.5)).
SPECIAL = {
    "lgamma": np.array([1.0, 2.0, 1.5, 0.5, 3.7, 1e-3, 30.0], np.float32),
    "digamma": np.array([1.0, 2.0, 1.5, 0.5, 3.7, 30.0], np.float32),
}


@pytest.mark.parametrize("op", list(SPECIAL))
def test_lgamma_digamma_values_and_gradients_near_tfs(op):
    from tests.interop.twin import assert_twins, run_both

    def script(tf):
        fetch, feed = _with_gradient(op, SPECIAL[op])(tf)
        return lambda sess: sess.run(fetch, feed)

    assert_twins(*run_both(script), rtol=1e-6)


def test_checks_of_other_dtypes_leave_a_node_unchecked():
    """A float32 ``lgamma``/``matmul``/``realdiv`` (whose entries check only the dtypes
    TF has no CPU kernel for) in a step that also checks (an integer division): the
    step runs to TF's values; the unmarked nodes failed "check of ... failed"."""
    from tests.interop.twin import assert_twins, run_both

    def script(tf):
        x = tf.placeholder(tf.float32, [2, 2])
        n = tf.placeholder(tf.int32, [2])
        fetch = [
            tf.lgamma(x + 1.0),
            tf.matmul(x, x),
            tf.realdiv(x, 2.0),
            tf.floordiv(n, tf.constant([2, 3])),
        ]
        feed = {x: np.float32([[1.0, 2.0], [0.5, 3.0]]), n: np.int32([7, -7])}
        return lambda sess: sess.run(fetch, feed)

    assert_twins(*run_both(script), rtol=1e-6)
