"""TF's math ops (``tf.add``, ``tf.matmul``, ``tf.reduce_sum``...) as table entries.

Each entry gives TF's name(s), op type, signature, dtype rule and a JAX
implementation with TF's semantics where they differ from NumPy's: integer
``truediv`` gives float64 (float32 for 8/16-bit integers), ``floordiv``/``floormod``
round toward negative infinity, ``reduce_mean`` of integers truncates,
``argmax`` returns int64, ``round`` rounds half to even. Where TF's gradient
differs from JAX's (``maximum``/``minimum`` ties and so ``clip_by_value`` at its
bounds, ``abs`` at 0, ``pow`` for a non-positive base) the implementation carries
TF's rule as a ``jax.custom_jvp``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework.op_def import (
    BOOL,
    FLOATING,
    FUNCTIONS,
    INDEX,
    INTEGER,
    NUMERIC,
    REAL,
    chosen_by_arguments,
    define,
    lift,
    np_dtype,
)
from adapters.v1.framework.tensor_shape import TensorShape
from jtrain._eigen import exp_log as eigen_exp_log
from jtrain._eigen import matmul as eigen_matmul
from jtrain._eigen import pow as eigen_pow
from jtrain._eigen import reciprocal as eigen_reciprocal
from jtrain._eigen import rsqrt as eigen_rsqrt
from jtrain._eigen import sqrt as eigen_sqrt
from jtrain._eigen import tanh_logistic
from jtrain._eigen import trig as eigen_trig
from jtrain._numerics import (
    add_n,
    broadcast_add,
    broadcast_subtract,
    eigen_sum,
    kernel_divide,
    realdiv,
    rounded,
    rounded_product,
    rounded_square,
    tf_binary,
)

_FLOAT_OR_COMPLEX = FLOATING + ("complex64", "complex128")
_SIGNED = FLOATING + ("int8", "int16", "int32", "int64", "complex64", "complex128")
_TRUNCATEMOD = ("int32", "int64") + FLOATING


# -- gradients as TF's -------------------------------------------------------------
def _selected_gradient(select: Any) -> Any:
    """TF's ``_MaximumMinimumGrad``: the incoming gradient to ``x`` where
    ``select(x, y)`` (ties go to ``x``, not split in halves), to ``y`` elsewhere."""

    def gradient(x: Any, y: Any, z: Any, g: Any) -> tuple:
        mask = select(x, y)
        zeros = jnp.zeros_like(g)
        return jnp.where(mask, g, zeros), jnp.where(mask, zeros, g)

    return gradient


_maximum = tf_binary(jnp.maximum, _selected_gradient(jnp.greater_equal))
_minimum = tf_binary(jnp.minimum, _selected_gradient(jnp.less_equal))


def _squared_difference_gradient(x: Any, y: Any, z: Any, g: Any) -> tuple:
    """TF's ``_SquaredDifferenceGrad``: ``(2 * g) * (x - y)`` to ``x``, its negation to ``y``."""
    x_grad = rounded_product(2 * g, x - y)
    return x_grad, -x_grad


_squared_difference = tf_binary(lambda x, y: rounded_square(x - y), _squared_difference_gradient)


@jax.custom_jvp
def _abs(x: Any) -> Any:
    return jnp.abs(x)


@_abs.defjvp
def _abs_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    out = jnp.abs(x)
    if jnp.iscomplexobj(x):  # TF: the real part of conj(x / |x|) * dx, 0 at 0
        zero = out == 0
        safe = jnp.where(zero, jnp.ones((), out.dtype), out)
        return out, jnp.where(zero, jnp.zeros((), out.dtype), jnp.real(jnp.conj(x) * dx) / safe)
    return out, dx * jnp.sign(x)


def _pow_kernel(x: Any, y: Any) -> Any:
    """TF's ``Pow`` kernel: ``jtrain._eigen.pow`` for real floating values, XLA's ``pow``
    for integers and complex values."""
    return eigen_pow.pow(x, y) if _real_float(x) else jnp.power(x, y)


@jax.custom_jvp
def _pow(x: Any, y: Any) -> Any:
    return _pow_kernel(x, y)


@_pow.defjvp
def _pow_jvp(primals, tangents):
    # (the derivative of the kernel's bit operations would be 0: TF's formula, which
    # ``tf.hessians`` and other derivatives of gradients differentiate in turn)
    x, y = primals
    dx, dy = tangents
    z = _pow_kernel(x, y)
    # TF: d/dx = y * x^(y-1); d/dy = z * log(x) where x > 0, else 0.
    positive = x > 0
    log_x = jnp.where(positive, jnp.log(jnp.where(positive, x, 1)), 0)
    return z, dx * y * _pow(x, y - jnp.ones((), y.dtype)) + dy * z * log_x


# -- Pow as TF runs it: grappler's ConvertPow, TF's _PowGrad ------------------------
def _converted_pow(exponent: float, x: Any, y: Any) -> Any | None:
    """``x ** exponent`` (``exponent`` the value of every element of ``y``) as the kernel
    TF's grappler runs instead of ``Pow`` (``ConvertPowStage``): 2 ``Square``, 3
    ``Mul(x, Square(x))`` (CPU), 0.5 ``Sqrt``, -0.5 ``Rsqrt``, -1 ``Reciprocal``, and, where
    ``x`` has the output's shape, 1 ``Identity`` and 0 ones; ``None`` where it keeps the
    ``Pow`` kernel. Real floating values only."""
    shape = jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))
    if exponent in (1.0, 0.0) and jnp.shape(x) != shape:
        return None
    kernel = {
        2.0: _square,
        3.0: lambda v: rounded_product(v, _square(v)),
        1.0: lambda v: v,
        0.5: _sqrt,
        0.0: jnp.ones_like,
        -0.5: eigen_rsqrt.rsqrt,
        -1.0: _reciprocal,
    }.get(exponent)
    return None if kernel is None else jnp.broadcast_to(kernel(x), shape)


def _real_float(x: Any) -> bool:
    return jnp.issubdtype(np_dtype(x.dtype), jnp.floating)


def _tf_pow(exponent: float | None) -> Any:
    """``Pow`` with TF's value and gradient where ``y`` folds to the constant ``exponent``
    (``None``: any ``y``). The value: the kernel grappler substitutes
    (:func:`_converted_pow`), else ``Pow``'s. The gradient: TF's ``_PowGrad``,
    ``(g * y) * pow(x, y - 1)`` (grappler converts that ``Pow`` too: ``x ** 1.5``'s
    gradient takes ``Sqrt``) and ``(g * z) * log(x)`` where ``x > 0``, else 0, each
    product rounded, the broadcast operands' sums in TF's order (``tf_binary``).

    The ``Pow`` kernel is TF's CPU kernel (``jtrain._eigen.pow``: Eigen's ``generic_pow``
    on packets, glibc's ``powf`` on the rest); integers and complex values take XLA's
    ``pow`` (and JAX's derivative).
    """

    def power(x: Any, y: Any, e: float | None) -> Any:
        if e is not None and _real_float(x):
            converted = _converted_pow(e, x, y)
            if converted is not None:
                return converted
        return _pow(x, y)

    def forward(x: Any, y: Any) -> Any:
        return power(x, y, exponent)

    def gradient(x: Any, y: Any, z: Any, g: Any) -> tuple:
        one = jnp.ones((), y.dtype)
        below = None if exponent is None else exponent - 1.0
        gx = rounded_product(rounded_product(g, y), power(x, y - one, below))
        positive = x > 0
        log_x = jnp.where(
            positive, eigen_exp_log.log(jnp.where(positive, x, jnp.ones((), x.dtype))), 0
        ).astype(x.dtype)
        return gx, rounded_product(rounded_product(g, z), log_x)

    return tf_binary(forward, gradient)


# Exponents whose Pow, or whose gradient's Pow (``exponent - 1``), grappler converts.
_CONSTANT_EXPONENTS = (2.0, 3.0, 1.0, 0.5, 0.0, -0.5, -1.0, 4.0, 1.5)


# -- division as TF's kernels round it ----------------------------------------------
def kernel_mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``jnp.mean`` of a floating ``x`` as TF's ``Mean`` kernel computes it: Eigen's sum
    (``eigen_sum``: TF's order for full and innermost reductions of float32 and float64),
    then divided by the count (``kernel_divide``; JAX's mean multiplies by the count's
    reciprocal). float16 and bfloat16 are summed in float32 by XLA."""
    if np_dtype(x.dtype).itemsize < 4:
        total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=jnp.float32)
    else:
        total = eigen_sum(x, axis, keepdims)
    acc = total.dtype
    count = x.size // max(total.size, 1) if x.size else 0
    return kernel_divide(total, jnp.asarray(count, acc)).astype(x.dtype)


def folds_to_constant(value: Any) -> bool:
    """Whether TF's graph optimizer (grappler) takes ``value`` as a constant: a Python or
    NumPy value, or a tensor computed from constants and fully known static shapes.
    It rewrites a floating ``RealDiv``/``Div`` by such a divisor as a multiplication by
    its reciprocal (``ReduceDivToReciprocalMul``), as XLA does; by any other divisor, and
    by any divisor in a ``tf.data`` function (which it does not rewrite), TF divides
    (``kernel_divide``)."""
    from adapters.v1.framework import ops, shape_values

    if getattr(ops.get_default_graph(), "_dataset_functions", 0):
        return False  # a tf.data function: TF divides whatever the divisor
    if isinstance(value, ops.Tensor):
        return shape_values.is_static(value)
    return not hasattr(value, "_as_graph_tensor")  # a Variable reads its value


# -- arithmetic --------------------------------------------------------------------
def _truediv(x: Any, y: Any) -> Any:
    dtype = np_dtype(x.dtype)
    if dtype.kind in "iu":
        target = jnp.float32 if dtype.itemsize <= 2 else jnp.float64
        x, y = x.astype(target), y.astype(target)
    return realdiv(x, y)


def _folded_truediv(x: Any, y: Any) -> Any:
    """``_truediv`` by a divisor grappler folds: XLA's reciprocal, as TF's (the product
    rounded, as TF's ``Mul`` kernel rounds it, before an addition can contract it)."""
    dtype = np_dtype(x.dtype)
    if dtype.kind in "iu":
        target = jnp.float32 if dtype.itemsize <= 2 else jnp.float64
        x, y = x.astype(target), y.astype(target)
    return rounded(jnp.true_divide(x, y))


def _floordiv(x: Any, y: Any) -> Any:
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.floor_divide(x, y)
    return jnp.floor(kernel_divide(x, y))


def _div(x: Any, y: Any) -> Any:
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.floor_divide(x, y)
    return realdiv(x, y)


def _folded_div(x: Any, y: Any) -> Any:
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.floor_divide(x, y)
    return rounded(jnp.true_divide(x, y))  # (see _folded_truediv)


def _safe_integer_divisor(x: Any, y: Any) -> tuple[Any, Any]:
    """``(x, y)`` broadcast, with the divisors that trap on x86-64 (0, and -1 under the
    type's lowest value) replaced by 1: XLA's integer ``div``/``rem`` would kill the
    process with SIGFPE. A zero divisor fails the op's run-time check (TF's error);
    ``lowest / -1`` is fixed by the callers (it wraps, as TF's kernels give)."""
    x, y = jnp.broadcast_arrays(x, y)
    trap = y == 0
    if jnp.issubdtype(np_dtype(x.dtype), jnp.signedinteger):
        trap = trap | ((y == -1) & (x == jnp.iinfo(x.dtype).min))
    return x, jnp.where(trap, jnp.ones((), y.dtype), y)


def _truncatemod(x: Any, y: Any) -> Any:
    if jnp.issubdtype(np_dtype(x.dtype), jnp.integer):
        x, safe = _safe_integer_divisor(x, y)
        return jnp.where(safe == y, lax.rem(x, safe), jnp.zeros((), x.dtype))
    return lax.rem(x, y)


def _realdiv(x: Any, y: Any) -> Any:
    """``RealDiv``: ``x / y`` in their dtype (TF has no CPU kernel for integers)."""
    if jnp.issubdtype(np_dtype(x.dtype), jnp.integer):
        return _truncatediv(x, y)  # never fetched: _no_cpu_kernel("RealDiv") refuses it
    return realdiv(x, y)


def _folded_realdiv(x: Any, y: Any) -> Any:
    if jnp.issubdtype(np_dtype(x.dtype), jnp.integer):
        return _truncatediv(x, y)
    return rounded(jnp.true_divide(x, y))  # (see _folded_truediv)


def _truncatediv(x: Any, y: Any) -> Any:
    if jnp.issubdtype(np_dtype(x.dtype), jnp.integer):
        x, safe = _safe_integer_divisor(x, y)
        # lowest / -1 wraps to lowest (its negation); a zero divisor raises at run time.
        return jnp.where(safe == y, lax.div(x, safe), -x)
    return jnp.trunc(kernel_divide(x, y))


# TF 2.21's OpDefs list the allowed dtypes of these ops in this order (their registration
# order), and so do its "not in list of allowed values" messages (measured live,
# tests/interop/test_math_gaps_interop.py); the op table's tuples hold the same dtypes.
_INTEGERS_INTERLEAVED = (
    "uint8", "int8", "uint16", "int16", "int32", "uint32", "uint64", "int64",
)  # fmt: skip
_TF_ORDER = {
    "AddV2": FLOATING + ("uint8", "uint16", "uint32", "uint64") + (
        "int8", "int16", "int32", "int64", "complex64", "complex128",
    ),
    "Sub": FLOATING + ("uint8", "int8", "uint16", "int16", "int32", "int64") + (
        "complex64", "complex128", "uint32", "uint64",
    ),
    "Mul": FLOATING + _INTEGERS_INTERLEAVED + ("complex64", "complex128"),
    "RealDiv": FLOATING + _INTEGERS_INTERLEAVED + ("complex64", "complex128"),
    "Div": FLOATING + _INTEGERS_INTERLEAVED + ("complex64", "complex128"),
    "FloorDiv": FLOATING + _INTEGERS_INTERLEAVED + ("complex64", "complex128"),
    "TruncateDiv": FLOATING + _INTEGERS_INTERLEAVED + ("complex64", "complex128"),
    "FloorMod": INTEGER + FLOATING,
    "Pow": ("bfloat16", "float32", "float16", "float64", "int8", "int16", "int32", "int64") + (
        "complex64", "complex128",
    ),
    "Maximum": FLOATING + ("int8", "uint8", "int16", "uint16", "int32", "uint32") + (
        "int64", "uint64",
    ),
    "Minimum": FLOATING + ("int8", "uint8", "int16", "uint16", "int32", "uint32") + (
        "int64", "uint64",
    ),
    "SquaredDifference": FLOATING + ("int32", "int64", "complex64", "complex128"),
    **{
        _compare: (
            "float32", "float64", "int32", "uint8", "int16", "int8", "int64", "bfloat16",
            "uint16", "float16", "uint32", "uint64",
        )
        for _compare in ("Less", "LessEqual", "Greater", "GreaterEqual")
    },
    **{
        _x: ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")
        for _x in ("Xlogy", "Xlog1py", "Xdivy")
    },
    "DivNoNan": ("float16", "float32", "bfloat16", "float64", "complex64", "complex128"),
}  # fmt: skip


def _in_tf_order(op_type: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """``allowed`` in the order TF's OpDef of ``op_type`` lists it (``_TF_ORDER``)."""
    ordered = _TF_ORDER.get(op_type)
    if ordered is None:
        return allowed
    if sorted(ordered) != sorted(allowed):
        raise AssertionError(f"{op_type}: TF's allowed dtypes {ordered} vs the table's {allowed}")
    return ordered


_BINARY = [
    # names, op type, default node name, implementation, allowed dtypes
    (("add", "math.add"), "AddV2", "Add", broadcast_add, NUMERIC),
    (("subtract", "math.subtract"), "Sub", "Sub", broadcast_subtract, NUMERIC),
    (("multiply", "math.multiply"), "Mul", "Mul", rounded_product, NUMERIC),
    (("_square.multiply",), "Mul", "Mul", functools.partial(rounded_product, square=True), NUMERIC),
    (("truediv", "math.truediv"), "RealDiv", "truediv", _truediv, NUMERIC),
    (("divide", "math.divide"), "RealDiv", "truediv", _truediv, NUMERIC),
    (("realdiv", "math.realdiv"), "RealDiv", "RealDiv", _realdiv, NUMERIC),
    (("div",), "Div", "div", _div, NUMERIC),
    # The same ops by a divisor TF's grappler folds to a constant (see _divide_as_tf).
    (("_folded.truediv",), "RealDiv", "truediv", _folded_truediv, NUMERIC),
    (("_folded.realdiv",), "RealDiv", "RealDiv", _folded_realdiv, NUMERIC),
    (("_folded.div",), "Div", "div", _folded_div, NUMERIC),
    (("floordiv", "math.floordiv"), "FloorDiv", "floordiv", _floordiv, NUMERIC),
    (("floor_div",), "FloorDiv", "FloorDiv", _floordiv, NUMERIC),
    (("floormod", "mod", "math.floormod", "math.mod"), "FloorMod", "FloorMod", jnp.mod, REAL),
    (("truncatediv", "math.truncatediv"), "TruncateDiv", "TruncateDiv", _truncatediv, NUMERIC),
    (("truncatemod", "math.truncatemod"), "TruncateMod", "TruncateMod", _truncatemod, _TRUNCATEMOD),
    (("pow", "math.pow"), "Pow", "Pow", _tf_pow(None), _SIGNED),
    # The same op by an exponent TF's grappler folds to one constant (see _pow_as_tf).
    *(
        ((f"_constant.pow.{_e:g}",), "Pow", "Pow", _tf_pow(_e), _SIGNED)
        for _e in _CONSTANT_EXPONENTS
    ),
    (("maximum", "math.maximum"), "Maximum", "Maximum", _maximum, REAL),
    (("minimum", "math.minimum"), "Minimum", "Minimum", _minimum, REAL),
    (
        ("squared_difference", "math.squared_difference"),
        "SquaredDifference",
        "SquaredDifference",
        _squared_difference,
        _FLOAT_OR_COMPLEX + ("int32", "int64"),
    ),
    (("equal", "math.equal"), "Equal", "Equal", jnp.equal, NUMERIC + BOOL),
    (("not_equal", "math.not_equal"), "NotEqual", "NotEqual", jnp.not_equal, NUMERIC + BOOL),
    (("less", "math.less"), "Less", "Less", jnp.less, REAL),
    (("less_equal", "math.less_equal"), "LessEqual", "LessEqual", jnp.less_equal, REAL),
    (("greater", "math.greater"), "Greater", "Greater", jnp.greater, REAL),
    (
        ("greater_equal", "math.greater_equal"),
        "GreaterEqual",
        "GreaterEqual",
        jnp.greater_equal,
        REAL,
    ),
    (("logical_and", "math.logical_and"), "LogicalAnd", "LogicalAnd", jnp.logical_and, BOOL),
    (("logical_or", "math.logical_or"), "LogicalOr", "LogicalOr", jnp.logical_or, BOOL),
    (("logical_xor", "math.logical_xor"), "LogicalXor", "LogicalXor", jnp.logical_xor, BOOL),
]

_TF_GRADIENTS = {
    "Maximum": "the gradient goes to x where x >= y (ties to x), not split in halves",
    "Minimum": "the gradient goes to x where x <= y (ties to x), not split in halves",
    "Pow": "d/dy is 0 where x <= 0 (JAX: log of the base)",
    "Abs": "grad * sign(x): 0 at x = 0 (JAX: 1)",
}


# -- TF's run-time errors of integer arithmetic (framework/runtime_checks.py) ----------
def _integer_divisor_nonzero(x: Any, y: Any) -> tuple[Any, tuple[Any, ...]]:
    """TF's CPU kernels refuse an integer division (or modulo) by zero."""
    if not jnp.issubdtype(np_dtype(y.dtype), jnp.integer):
        return jnp.asarray(True), ()
    return jnp.all(y != 0), ()


def _integer_exponent_nonnegative(x: Any, y: Any) -> tuple[Any, tuple[Any, ...]]:
    """TF's ``Pow`` kernel refuses any negative integer exponent (even of 1 or -1)."""
    if not jnp.issubdtype(np_dtype(y.dtype), jnp.signedinteger):
        return jnp.asarray(True), ()
    return jnp.all(y >= 0), ()


def _on_integers(op: Any) -> bool:
    """Whether the binary op ``op`` works on integers (only those nodes check)."""
    return np_dtype(op.inputs[1].dtype).kind in "iu"


def _run_error(error: str, message: str) -> Any:
    def build(op: Any) -> Any:
        from jtrain import errors

        return getattr(errors, error)(None, op, message)

    return build


# Dtypes TF's op definitions accept but no CPU kernel of TF 2.21 runs: the session
# raises TF's InvalidArgumentError (TF: when the graph is run, as here).
_NO_CPU_KERNEL = {
    "RealDiv": INTEGER,
    "Reciprocal": ("int8", "int16", "int32", "int64"),
    "MatMul": ("uint8", "uint16", "uint32", "uint64"),
    "BatchMatMulV2": ("uint8", "uint16", "uint32", "uint64"),
    "Rint": ("float16", "bfloat16"),
    "Lgamma": ("bfloat16",),
    "Digamma": ("bfloat16",),
    "BesselI0e": ("bfloat16",),
}
_TF_ENUM = {"float16": "HALF", "float32": "FLOAT", "float64": "DOUBLE"}


def _no_cpu_kernel(op_type: str) -> tuple[Any, ...] | None:
    """The run-time check refusing ``op_type`` for its dtypes without a CPU kernel."""
    refused = _NO_CPU_KERNEL.get(op_type)
    if refused is None:
        return None

    def dtype_of(op: Any) -> str:
        return np_dtype(op.inputs[0].dtype).name

    def error(op: Any) -> Any:
        from jtrain import errors

        enum = _TF_ENUM.get(dtype_of(op), dtype_of(op).upper())
        return errors.InvalidArgumentError(
            None,
            op,
            f"No OpKernel was registered to support Op '{op_type}' used by "
            f"{{{{node {op.name}}}}} with these attrs: [T=DT_{enum}]",
        )

    return (
        lambda *args, **kwargs: (jnp.asarray(False), ()),
        error,
        lambda op: dtype_of(op) in refused,
    )


_DIVISION_BY_ZERO = (
    _integer_divisor_nonzero,
    _run_error("InvalidArgumentError", "Integer division by zero"),
    _on_integers,
)
# TF 2.21's TruncateDiv/TruncateMod kernels fail with an InternalError.
_TRUNCATED_BY_ZERO = (
    _integer_divisor_nonzero,
    _run_error(
        "InternalError",
        "Unexpected error in binary operator (only integer div and mod should have errors)",
    ),
    _on_integers,
)
_RUNTIME_CHECKS = {
    "Div": _DIVISION_BY_ZERO,
    "FloorDiv": _DIVISION_BY_ZERO,
    "FloorMod": _DIVISION_BY_ZERO,
    "TruncateDiv": _TRUNCATED_BY_ZERO,
    "TruncateMod": _TRUNCATED_BY_ZERO,
    "Pow": (
        _integer_exponent_nonnegative,
        _run_error("InvalidArgumentError", "Integers to negative integer powers are not allowed"),
        _on_integers,
    ),
}

for _names, _type, _default, _impl, _allowed in _BINARY:
    define(
        _names,
        _type,
        _impl,
        params="x, y, name='LogicalXor'" if _type == "LogicalXor" else "x, y, name=None",
        # TF's logical ops take bool inputs of a fixed type (no ``T``): each converts to
        # bool on its own ("Input 'x' of 'LogicalAnd' Op has type float16 that does not
        # match expected type of bool.")
        same_dtype=() if _allowed == BOOL else None,
        allowed={"x": BOOL, "y": BOOL} if _allowed == BOOL else _in_tf_order(_type, _allowed),
        default_name=_default,
        tf_gradient=_TF_GRADIENTS.get(_type, ""),
        # tf.truediv/tf.divide cast integers to a float first (TF's Python): no check
        runtime_check=_RUNTIME_CHECKS.get(_type)
        or (None if _impl in (_truediv, _folded_truediv) else _no_cpu_kernel(_type)),
    )


def _multiply_as_tf(table_fn: Any, square_fn: Any) -> Any:
    """``tf.multiply`` (and ``*``): a tensor multiplied by itself is a square, whose
    rounding XLA sees through unless it is told (``rounded_product``'s ``square``).
    ``x is y`` alone says so in the step; in ``tf.gradients`` the op's two inputs are
    two copies of the tensor (``fan_out``: TF adds their gradients apart), which XLA
    merges back into one: the node keeps that it squares (a hand-written layer norm's
    ``xc * xc``: 4-16% of the gradient differed from TF's)."""
    return chosen_by_arguments(table_fn, lambda a: square_fn if a["x"] is a["y"] else table_fn)


for _full in ("multiply", "math.multiply"):
    FUNCTIONS[_full] = _multiply_as_tf(FUNCTIONS[_full], FUNCTIONS["_square.multiply"])


def _divide_as_tf(table_fn: Any, folded_fn: Any) -> Any:
    """``tf.truediv``/``tf.realdiv``/``tf.div``: TF's quotient (``kernel_divide``), or
    the reciprocal's product where TF's grappler takes the divisor as a constant
    (``folds_to_constant``) and multiplies by its reciprocal, as XLA does. Where the
    dividend folds too, grappler folds the whole quotient first (``FoldGraph`` before
    ``ReduceDivToReciprocalMul``): TF's quotient."""

    def choose(arguments: dict[str, Any]) -> Any:
        folded = folds_to_constant(arguments["y"]) and not folds_to_constant(arguments["x"])
        return folded_fn if folded else table_fn

    return chosen_by_arguments(table_fn, choose)


for _full, _folded in (
    ("truediv", "truediv"),
    ("math.truediv", "truediv"),
    ("divide", "truediv"),
    ("math.divide", "truediv"),
    ("realdiv", "realdiv"),
    ("math.realdiv", "realdiv"),
    ("div", "div"),
):
    FUNCTIONS[_full] = _divide_as_tf(FUNCTIONS[_full], FUNCTIONS[f"_folded.{_folded}"])


def _uniform_constant(value: Any) -> float | None:
    """The one real value of every element of ``value`` where TF's grappler folds it to a
    constant (``folds_to_constant``), else ``None``."""
    from adapters.v1.framework import ops, shape_values

    if not folds_to_constant(value):
        return None
    if isinstance(value, ops.Tensor):
        array = shape_values.static_value(value)
    else:
        array = np.asarray(value)
    if array is None or array.size == 0 or array.dtype.kind not in "biufc":
        return None
    flat = np.ravel(array)
    if np.iscomplexobj(flat) and np.any(flat.imag != 0):
        return None
    flat = np.real(flat)
    return float(flat[0]) if np.all(flat == flat[0]) else None


def _pow_as_tf(table_fn: Any) -> Any:
    """``tf.pow`` (and ``**``): where TF's grappler takes the exponent as one constant and
    the base as no constant, the entry for that exponent (``_constant.pow.*``: the kernel
    grappler substitutes, and its gradient's); otherwise the table's ``Pow`` (a constant
    base and exponent fold to the ``Pow`` kernel's value first)."""

    def choose(arguments: dict[str, Any]) -> Any:
        exponent = None if folds_to_constant(arguments["x"]) else _uniform_constant(arguments["y"])
        if exponent is None or exponent not in _CONSTANT_EXPONENTS:
            return table_fn
        return FUNCTIONS[f"_constant.pow.{exponent:g}"]

    return chosen_by_arguments(table_fn, choose)


for _full in ("pow", "math.pow"):
    FUNCTIONS[_full] = _pow_as_tf(FUNCTIONS[_full])


# TF's ``_TRUEDIV_TABLE``'s dtypes, in its order (its message lists them so).
_TRUEDIV_DTYPES = (
    "uint8",
    "int8",
    "uint16",
    "int16",
    "uint32",
    "int32",
    "uint64",
    "int64",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)


def _truediv_as_tf(table_fn: Any, divide: bool) -> Any:
    """``tf.truediv``/``tf.divide`` (and ``/``) with the checks of TF's Python function:
    ``y`` converts with ``x``'s dtype as a hint, and dtypes that differ, or one outside
    its table (bool, string), are TF's ``TypeError`` ("`x` and `y` must have the same
    dtype, got tf.int32 != tf.float32.", "Invalid dtype tf.bool in __truediv__...")
    rather than the ``RealDiv`` op's. ``tf.divide`` first converts a Python ``x`` to
    a tensor ``y``'s dtype."""

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def truediv(x: Any, y: Any, name: Any = None) -> Any:
        from adapters.v1.framework import ops

        if divide and isinstance(y, ops.Tensor) and not _is_graph_value(x):
            x = ops.convert_to_tensor(x, dtype=y.dtype.base_dtype)  # TF's, outside the scope
        try:
            return table_fn(x, y, name=name)
        except TypeError:
            x_dtype = ops.convert_to_tensor(x).dtype.base_dtype
            y_dtype = ops.convert_to_tensor(y, dtype_hint=x_dtype).dtype.base_dtype
            if x_dtype != y_dtype:
                raise TypeError(
                    f"`x` and `y` must have the same dtype, got {x_dtype!r} != {y_dtype!r}."
                ) from None
            if x_dtype.name not in _TRUEDIV_DTYPES:
                expected = ", ".join(f"tf.{d}" for d in _TRUEDIV_DTYPES)
                raise TypeError(
                    f"Invalid dtype {x_dtype!r} in __truediv__. Expected one of {{{expected}}}."
                ) from None
            raise

    return truediv


def _is_graph_value(value: Any) -> bool:
    """Whether ``value`` is a tensor or a variable (``tensor_util.is_tf_type``)."""
    from adapters.v1.framework import ops

    return isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")


for _full in ("truediv", "math.truediv", "divide", "math.divide"):
    FUNCTIONS[_full] = _truediv_as_tf(FUNCTIONS[_full], divide="divide" in _full)


def _div_as_tf(table_fn: Any, scope_name: str = "div") -> Any:
    """``tf.div`` (TF 1's ``div``) or ``tf.math.multiply_no_nan`` (``scope_name``) as
    TF's Python function: in a ``scope_name`` scope, ``x`` converts on its own and ``y``
    to ``x``'s dtype, their errors raised as TF's conversion raises them (a tensor of
    another dtype: ``ValueError`` "y: Tensor conversion requested dtype ..."; ``2.5``
    for an integer ``x``: ``TypeError``)."""

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def div(x: Any, y: Any, name: Any = None) -> Any:
        from adapters.v1.framework import ops

        with ops.name_scope(name, scope_name, [x, y]) as scope:
            x = ops.convert_to_tensor(x, name="x")
            # A tensor of another dtype: TF's ValueError, prefixed "y: " by convert_to_tensor.
            y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return table_fn(x, y, name=scope)

    return div


def _div_by_dtype(x: Any, y: Any, name: Any = None) -> Any:
    """TF 1's ``div`` (Python 2 division): ``RealDiv`` for floating or complex ``x``,
    ``FloorDiv`` otherwise, as TF's ``_div_python2`` builds it.

    .. note::
       TF 2.21 records no ``Div`` node for ``tf.compat.v1.div``: its node is ``RealDiv``
       or ``FloorDiv`` (checked live in tests/interop/test_graph_fidelity2_interop.py).
    """
    from adapters.v1.framework import dtypes

    dtype = dtypes.as_dtype(x.dtype)
    if dtype.is_floating or dtype.is_complex:
        return FUNCTIONS["realdiv"](x, y, name=name)
    return FUNCTIONS["floordiv"](x, y, name=name)


# The table's name, module and ``_op_def``; this docstring.
functools.update_wrapper(
    _div_by_dtype, FUNCTIONS["div"], assigned=("__module__", "__name__", "__qualname__")
)
_div_by_dtype._op_def = FUNCTIONS["div"]._op_def
FUNCTIONS["div"] = _div_as_tf(_div_by_dtype)


def _with_strings(table_fn: Any, op_type: str) -> Any:
    """``tf.equal``/``tf.not_equal``: strings compare on the host (ops/string_ops.py),
    other dtypes through the op table."""

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def compare(x: Any, y: Any, name: Any = None) -> Any:
        from adapters.v1.ops import string_ops

        if string_ops.is_string(x) or string_ops.is_string(y):
            return string_ops.string_compare(op_type, x, y, name)
        return table_fn(x, y, name=name)

    return compare


for _key, _type in (("equal", "Equal"), ("not_equal", "NotEqual")):
    for _full in (_key, f"math.{_key}"):
        FUNCTIONS[_full] = _with_strings(FUNCTIONS[_full], _type)


def _string_add(x: Any, y: Any, name: Any) -> Any:
    """``tf.add`` of strings: TF's ``Add`` op (not ``AddV2``, which has no string kernel)
    concatenates them element-wise, broadcasting (``tf.add(["a", "b"], "x")`` is
    ``["ax", "bx"]``), on the host as jtrain's strings.

    .. note::
       Shapes that do not broadcast raise ``ValueError`` at graph build, as TF, with
       the broadcasting error's words rather than TF's shape function's.
    """
    from adapters.v1.framework import ops
    from adapters.v1.ops import string_ops

    tx = string_ops._string_input(x, "x", "Add")
    if not string_ops.is_string(y):
        observed = ops.convert_to_tensor(y).dtype.base_dtype.name
        raise TypeError(
            f"Input 'y' of 'Add' Op has type {observed} that does not match type string "
            "of argument 'x'."
        )
    ty = string_ops._string_input(y, "y", "Add")
    shape = string_ops._broadcast_shape([tx._shape, ty._shape], "Add")

    def compute(a: Any, b: Any) -> tuple[Any, ...]:
        a, b = np.broadcast_arrays(np.asarray(a, object), np.asarray(b, object))
        out = np.empty(a.shape, object)
        flat = out.reshape(-1)
        for i, (p, q) in enumerate(zip(a.reshape(-1), b.reshape(-1), strict=True)):
            flat[i] = bytes(p) + bytes(q)
        return (out,)

    op = string_ops._host_op("Add", name or "Add", [tx, ty], compute, [(shape, object)])
    return op.outputs[0]


def _add_as_tf(table_fn: Any) -> Any:
    """``tf.add``: strings concatenate (``_string_add``), as TF's ``Add``; other dtypes
    through the op table (``AddV2``)."""
    from adapters.v1.ops import string_ops

    def string_add(x: Any, y: Any, name: Any = None) -> Any:
        return _string_add(x, y, name)

    return chosen_by_arguments(
        table_fn, lambda a: string_add if string_ops.is_string(a["x"]) else table_fn
    )


for _full in ("add", "math.add"):
    FUNCTIONS[_full] = _add_as_tf(FUNCTIONS[_full])


def _sign(x: Any) -> Any:
    """``tf.sign``: +0.0 for -0.0 (TF's kernel; XLA's sign keeps -0.0)."""
    if jnp.issubdtype(np_dtype(x.dtype), jnp.floating):
        return jnp.where(x == 0, jnp.zeros((), x.dtype), jnp.sign(x))
    return jnp.sign(x)


def _square(x: Any) -> Any:
    """``tf.square``: TF's ``Square`` kernel (``x * x``, rounded before it meets an
    addition) and its gradient ``grad * (x * 2)`` (``_SquareGrad``, two ``Mul``s).

    ``jnp.square`` let XLA contract the square into a following sum (the variance of a
    hand-written layer norm: 6% of its ``rsqrt`` and 29% of its scale's gradient
    differed from TF's once the step also computed gradients)."""
    if jnp.issubdtype(np_dtype(x.dtype), jnp.floating):
        return _real_square(x)
    return jnp.square(x)


@jax.custom_vjp
def _real_square(x: Any) -> Any:
    return rounded_square(x)


def _real_square_fwd(x: Any) -> tuple:
    return rounded_square(x), x


def _real_square_bwd(x: Any, g: Any) -> tuple:
    return (rounded_product(g, x * np.asarray(2, x.dtype)),)  # (x * 2 is exact)


_real_square.defvjp(_real_square_fwd, _real_square_bwd)


def _sqrt(x: Any) -> Any:
    """``sqrt(x)``; float32 with TF's ``SqrtGrad`` (``jtrain._eigen.sqrt``: JAX's
    ``dy * 0.5 / y`` left 27% of a probe's gradients 1 ulp off TF's)."""
    if np_dtype(x.dtype) == np.float32:
        return eigen_sqrt.sqrt(x)
    return jnp.sqrt(x)


def _reciprocal(x: Any) -> Any:
    """``1 / x`` as TF's kernel computes it (``jtrain._eigen.reciprocal``); integers
    returned as they are (TF has no CPU kernel for them: never fetched)."""
    if jnp.issubdtype(np_dtype(x.dtype), jnp.integer):
        return x
    return eigen_reciprocal.reciprocal(x)


_UNARY = [
    (("negative", "math.negative"), "Neg", jnp.negative, _SIGNED),
    (("abs", "math.abs"), "Abs", _abs, _SIGNED),
    (("sign", "math.sign"), "Sign", _sign, _SIGNED),
    (("square", "math.square"), "Square", _square, NUMERIC),
    (("sqrt", "math.sqrt"), "Sqrt", _sqrt, _FLOAT_OR_COMPLEX),
    (("rsqrt", "math.rsqrt"), "Rsqrt", eigen_rsqrt.rsqrt, _FLOAT_OR_COMPLEX),
    (("exp", "math.exp"), "Exp", eigen_exp_log.exp, _FLOAT_OR_COMPLEX),
    (("expm1", "math.expm1"), "Expm1", eigen_exp_log.expm1, _FLOAT_OR_COMPLEX),
    (("log", "math.log"), "Log", eigen_exp_log.log, _FLOAT_OR_COMPLEX),
    (("log1p", "math.log1p"), "Log1p", eigen_exp_log.log1p, _FLOAT_OR_COMPLEX),
    (("reciprocal", "math.reciprocal"), "Reciprocal", _reciprocal, _SIGNED),
    (("round", "math.round"), "Round", jnp.round, _SIGNED),
    (("floor", "math.floor"), "Floor", jnp.floor, FLOATING),
    (("ceil", "math.ceil"), "Ceil", jnp.ceil, FLOATING),
    (("sin", "math.sin"), "Sin", eigen_trig.sin, _FLOAT_OR_COMPLEX),
    (("cos", "math.cos"), "Cos", eigen_trig.cos, _FLOAT_OR_COMPLEX),
    (
        ("sigmoid", "math.sigmoid", "nn.sigmoid"),
        "Sigmoid",
        tanh_logistic.logistic,
        _FLOAT_OR_COMPLEX,
    ),
    (("tanh", "math.tanh", "nn.tanh"), "Tanh", tanh_logistic.tanh, _FLOAT_OR_COMPLEX),
    (("math.is_nan", "is_nan"), "IsNan", jnp.isnan, FLOATING),
    (("math.is_finite", "is_finite"), "IsFinite", jnp.isfinite, FLOATING),
    (("logical_not", "math.logical_not"), "LogicalNot", jnp.logical_not, BOOL),
]

for _names, _type, _impl, _allowed in _UNARY:
    define(
        _names,
        _type,
        _impl,
        params="x, name=None",
        same_dtype=() if _allowed == BOOL else None,  # LogicalNot: a fixed bool input
        allowed={"x": BOOL} if _allowed == BOOL else _allowed,
        tf_gradient=_TF_GRADIENTS.get(_type, ""),
        runtime_check=_no_cpu_kernel(_type),
    )


def _round_as_tf(table_fn: Any) -> Any:
    """``tf.round``: an integer tensor (uint8... included, which TF's ``Round`` op does not
    take) is returned itself, as TF's Python function returns it; other dtypes round
    half to even (the ``Round`` op)."""

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def round(x: Any, name: Any = None) -> Any:  # noqa: A001 - TF's name
        from adapters.v1.framework import ops

        x = ops.convert_to_tensor(x, name="x")
        if np_dtype(x.dtype).kind in "iu":
            return x
        return table_fn(x, name=name)

    return round


for _full in ("round", "math.round"):
    FUNCTIONS[_full] = _round_as_tf(FUNCTIONS[_full])


def _add_n(inputs: list[Any]) -> Any:
    """TF's ``AddN`` kernel's order (``jtrain._numerics.add_n``). (A product reaching it
    from ``tf.multiply`` is already rounded; a barrier here changed the gradients of
    ops fed through it, ``moments``', where XLA then contracted other products.)"""
    return add_n(list(inputs))


define(
    ("add_n", "math.add_n"),
    "AddN",
    _add_n,
    params="inputs, name=None",
    lists="inputs",
    allowed=NUMERIC,
)


def _graph_input_name(t: Any) -> str:
    """How a ``GraphDef`` names ``t`` as an input after grappler drops ``Identity`` nodes
    (``"op"`` for output 0, ``"op:1"``...)."""
    while t.op.type == "Identity" and t.op.inputs:
        t = t.op.inputs[0]
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _add_n_as_tf(table_fn: Any) -> Any:
    """``tf.add_n``: its node keeps the inputs in the caller's order, and adds them in
    the order TF 2.21 runs it: grappler's arithmetic optimizer sorts an ``AddN``'s inputs
    by name first (measured: ``add_n([zz, mm, aa, kk])`` is ``aa + kk + mm + zz``)."""

    @functools.wraps(table_fn)
    def add_n(inputs: Any, name: Any = None) -> Any:
        out = table_fn(inputs, name=name)
        op = getattr(out, "op", None)
        if op is not None and op.type == "AddN" and len(op.inputs) > 2:
            order = sorted(range(len(op.inputs)), key=lambda i: _graph_input_name(op.inputs[i]))
            if order != list(range(len(order))):
                compute = op._compute
                op._compute = lambda ctx, *args: compute(ctx, *(args[i] for i in order))
        return out

    return add_n


for _full in ("add_n", "math.add_n"):
    FUNCTIONS[_full] = _add_n_as_tf(FUNCTIONS[_full])


def _matmul_impl(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: Any = None,
    grad_a: bool = False,
    grad_b: bool = False,
    name: Any = None,
    *,
    tf_order: bool = True,
) -> Any:
    if transpose_a and adjoint_a or transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if output_type is not None:
        raise NotImplementedError("tf.matmul: output_type is not supported; cast the result")
    t_a, t_b = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)
    if (
        tf_order
        and b.dtype == jnp.float32
        and eigen_matmul.small(a.shape, b.shape, a.dtype, t_a, t_b)
    ):
        # TF's CPU order and _MatMulGrad, at about XLA's cost at these sizes (SMALL_MAX_*)
        return eigen_matmul.matmul(a, b, transpose_a=t_a, transpose_b=t_b)
    if t_a:
        a = jnp.swapaxes(a, -1, -2)
        a = jnp.conj(a) if adjoint_a else a
    if t_b:
        b = jnp.swapaxes(b, -1, -2)
        b = jnp.conj(b) if adjoint_b else b
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


# TF's signature (``tf.matmul``'s arguments), without the order switch.
_MATMUL_SIGNATURE = inspect.signature(_matmul_impl).replace(
    parameters=[
        p for p in inspect.signature(_matmul_impl).parameters.values() if p.name != "tf_order"
    ]
)


def _matmul(*args: Any, **kwargs: Any) -> Any:
    """``tf.matmul``: TF's CPU order where ``eigen_matmul.small`` takes the product."""
    return _matmul_impl(*args, **kwargs, tf_order=True)


def _xla_matmul(*args: Any, **kwargs: Any) -> Any:
    """``_matmul`` on XLA's dot whatever the sizes (see ``_xla_matmul_op``)."""
    return _matmul_impl(*args, **kwargs, tf_order=False)


_matmul.__signature__ = _MATMUL_SIGNATURE
_xla_matmul.__signature__ = _MATMUL_SIGNATURE


_matmul_op = define(
    ("matmul", "linalg.matmul"),
    "MatMul",
    _matmul,
    tensors="a b",
    allowed=_FLOAT_OR_COMPLEX + ("int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    runtime_check=_no_cpu_kernel("MatMul"),
)
# The same node where a shape is unknown when the graph is built: XLA's dot whatever
# the fed sizes, so that the graph computes the same values when a jtrain-written
# ``.meta`` reloads it with symbolic sizes (where TF's order is not chosen).
_xla_matmul_op = define(
    "_internal.xla_matmul",
    "MatMul",
    _xla_matmul,
    tensors="a b",
    allowed=_FLOAT_OR_COMPLEX + ("int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    runtime_check=_no_cpu_kernel("MatMul"),
)


def _batch_mat_mul(
    x: Any, y: Any, adj_x: bool = False, adj_y: bool = False, grad_x: bool = False, grad_y=False
) -> Any:
    """TF's ``BatchMatMulV2``: ``x @ y`` over broadcast batch dimensions, ``adj_x``/``adj_y``
    taking a matrix's conjugate transpose."""
    if adj_x:
        x = jnp.conj(jnp.swapaxes(x, -1, -2))
    if adj_y:
        y = jnp.conj(jnp.swapaxes(y, -1, -2))
    return jnp.matmul(x, y, precision=lax.Precision.HIGHEST)


# The node ``tf.matmul`` records for inputs of rank > 2 (or unknown), TF's op with its
# attributes; not a public name (TF's ``gen_math_ops.batch_mat_mul_v2`` is no
# namespace's). A TF-written graph's BatchMatMulV2 node imports through it.
_batch_mat_mul_op = define(
    "_internal.linalg.batch_mat_mul_v2",
    "BatchMatMulV2",
    _batch_mat_mul,
    params="x, y, adj_x=False, adj_y=False, grad_x=False, grad_y=False, name=None",
    tensors="x y",
    allowed=FLOATING
    + ("int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
    + ("complex64", "complex128"),
    default_name="MatMul",
    runtime_check=_no_cpu_kernel("BatchMatMulV2"),
)


def _rank_above_two(t: Any) -> bool:
    return t._shape is None or len(t._shape) > 2


def _check_matmul_shapes(op_type: str, name: str, a: Any, b: Any, attrs: dict[str, bool]) -> None:
    """TF's shape function of ``MatMul`` (matrices) or ``BatchMatMulV2`` (rank >= 2, batch
    dimensions broadcast): its ``ValueError``, worded as TF's, naming the node."""
    from adapters.v1.framework.graph_def import input_name

    def fail(problem: str) -> None:
        dtype = np_dtype(a.dtype).name
        listed = ", ".join(
            [f"T=DT_{_TF_ENUM.get(dtype, dtype.upper())}"]
            + [f"{k}={str(v).lower()}" for k, v in sorted(attrs.items())]
        )
        shapes = ", ".join(
            "?"
            if t._shape is None
            else "[" + ",".join("?" if d is None else str(d) for d in t._shape) + "]"
            for t in (a, b)
        )
        raise ValueError(
            f"{problem} for '{{{{node {name}}}}} = {op_type}[{listed}]"
            f"({input_name(a)}, {input_name(b)})' with input shapes: {shapes}."
        )

    batched = op_type == "BatchMatMulV2"
    for t in (a, b):
        if t._shape is not None and (len(t._shape) < 2 if batched else len(t._shape) != 2):
            at_least = "at least " if batched else ""
            fail(f"Shape must be {at_least}rank 2 but is rank {len(t._shape)}")
    if a._shape is None or b._shape is None:
        return
    flip_a, flip_b = (
        (attrs["adj_x"], attrs["adj_y"])
        if batched
        else (attrs["transpose_a"], attrs["transpose_b"])
    )
    inner_a = a._shape[-2] if flip_a else a._shape[-1]
    inner_b = b._shape[-1] if flip_b else b._shape[-2]
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        fail(f"Dimensions must be equal, but are {inner_a} and {inner_b}")
    for x, y in zip(reversed(a._shape[:-2]), reversed(b._shape[:-2]), strict=False):
        if x is not None and y is not None and x != y and 1 not in (x, y):
            fail(f"Dimensions must be equal, but are {x} and {y}")


@functools.wraps(_matmul_op)  # its name, signature, module and ``_op_def``
def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: Any = None,
    grad_a: bool = False,
    grad_b: bool = False,
    name: str | None = None,
) -> Any:
    """``tf.matmul``: the matrix product ``a @ b``, over batch dimensions when the
    inputs have them (broadcast, as TF's ``BatchMatMulV2``).

    Args:
      a: a tensor of rank >= 2.
      b: a tensor of ``a``'s dtype and rank >= 2.
      transpose_a: transpose ``a``'s last two dimensions (default False).
      transpose_b: transpose ``b``'s last two dimensions (default False).
      adjoint_a: conjugate and transpose ``a`` (default False).
      adjoint_b: conjugate and transpose ``b`` (default False).
      a_is_sparse: a hint, no effect on values (default False).
      b_is_sparse: a hint, no effect on values (default False).
      output_type: must be None here (default None).
      grad_a: TF's hint for a gradient's product (default False).
      grad_b: TF's hint for a gradient's product (default False).
      name: the op name (default ``"MatMul"``).

    Returns:
      The product, of the inputs' dtype.

    Raises:
      ValueError: both ``transpose_a`` and ``adjoint_a`` (or ``_b``) set (TF's message),
        or shapes that do not multiply.
      TypeError: a dtype TF's op does not take.
      NotImplementedError: ``output_type`` (cast the result instead).

    .. note:: As TF, the op type follows the static ranks: ``MatMul`` (attributes
       ``transpose_a``/``transpose_b``) for two matrices, ``BatchMatMulV2``
       (``adj_x``/``adj_y``) when an input has rank > 2 or an unknown rank. A complex
       input transposed for ``BatchMatMulV2`` (or adjoint for ``MatMul``) is conjugated
       by a ``Conj`` node first, as TF's graph does.
    """
    from adapters.v1.framework import ops

    for x, transpose, adjoint in (("a", transpose_a, adjoint_a), ("b", transpose_b, adjoint_b)):
        if transpose and adjoint:
            raise ValueError(
                f"Only one of `transpose_{x}` and `adjoint_{x}` can be True. "
                f"Received `transpose_{x}`={transpose}, `adjoint_{x}`={adjoint}."
            )

    def conj(t: Any) -> Any:  # TF's math_ops.conj: no node for a real tensor
        return FUNCTIONS["conj"](t) if t.dtype.is_complex else t

    with ops.name_scope(name, "MatMul", [a, b]) as scope:
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, dtype_hint=a.dtype.base_dtype, name="b")
        if not a_is_sparse and not b_is_sparse and (_rank_above_two(a) or _rank_above_two(b)):
            if output_type is not None:
                raise NotImplementedError(
                    "tf.matmul: output_type is not supported; cast the result"
                )
            if transpose_a:
                a, adjoint_a = conj(a), True
            if transpose_b:
                b, adjoint_b = conj(b), True
            flags = {"adj_x": adjoint_a, "adj_y": adjoint_b, "grad_x": grad_a, "grad_y": grad_b}
            _check_matmul_shapes("BatchMatMulV2", scope[:-1], a, b, flags)
            return _batch_mat_mul_op(a, b, adjoint_a, adjoint_b, grad_a, grad_b, name=scope)
        if adjoint_a:
            a, transpose_a = conj(a), True
        if adjoint_b:
            b, transpose_b = conj(b), True
        if not a_is_sparse and not b_is_sparse:
            flags = {
                "transpose_a": transpose_a,
                "transpose_b": transpose_b,
                "grad_a": grad_a,
                "grad_b": grad_b,
            }
            _check_matmul_shapes("MatMul", scope[:-1], a, b, flags)
        known = all(t._shape is not None and None not in t._shape for t in (a, b))
        return (_matmul_op if known else _xla_matmul_op)(
            a,
            b,
            transpose_a,
            transpose_b,
            a_is_sparse=a_is_sparse,
            b_is_sparse=b_is_sparse,
            output_type=output_type,
            grad_a=grad_a,
            grad_b=grad_b,
            name=scope,
        )


FUNCTIONS["matmul"] = FUNCTIONS["linalg.matmul"] = matmul


# -- reductions --------------------------------------------------------------------
_REDUCE_PARAMS = (
    "input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None"
)


def _reduction(reduce: Any) -> Any:
    """A TF v1 reduction over ``reduce(x, axis, keepdims)``: axis/keep_dims aliases."""

    def impl(input_tensor, axis=None, keepdims=None, reduction_indices=None, keep_dims=None):
        if axis is not None and reduction_indices is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
        if keepdims is not None and keep_dims is not None:
            raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
        axis = reduction_indices if axis is None else axis
        keepdims = bool(keep_dims if keepdims is None else keepdims)
        if isinstance(axis, list):
            axis = tuple(axis)
        ndim = jnp.ndim(input_tensor)
        if axis is not None:
            axes = axis if isinstance(axis, tuple) else (axis,)
            for a in axes:
                if not -ndim <= a < max(ndim, 1):
                    raise ValueError(
                        f"Invalid reduction dimension {a} for input with {ndim} dimensions."
                    )
            if ndim == 0:
                axis = None
        return reduce(input_tensor, axis, keepdims)

    return impl


def _mean(x: Any, axis: Any, keepdims: bool) -> Any:
    """``reduce_mean``: an integer mean sums in 64 bits (uint64 for unsigned types,
    int64 for signed ones), divides there with C++'s truncating division, then casts
    back, as TF's Mean kernel does: the mean of uint8 pixels does not wrap at 256.

    .. note::
       An integer mean over no elements (``[0]``, or ``[2, 0]`` along axis 1) is 0 in
       TF 2.21, measured on CPU with fed and constant inputs, for int8 to int64 and
       uint8: TF's process does not crash. jtrain gives those zeros without dividing:
       its integer division by a count of 0 killed the process with SIGFPE on
       XLA:CPU.
    """
    if jnp.issubdtype(x.dtype, jnp.integer):
        wide = jnp.uint64 if jnp.issubdtype(x.dtype, jnp.unsignedinteger) else jnp.int64
        total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=wide)
        count = x.size // max(total.size, 1) if x.size else 0
        if count == 0:  # no elements to average: TF's 0 (see the note)
            return jnp.zeros(total.shape, x.dtype)
        return lax.div(total, jnp.asarray(count, wide)).astype(x.dtype)
    if jnp.issubdtype(x.dtype, jnp.floating):
        return kernel_mean(x, axis, keepdims)
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def _mean_folded(x: Any, axis: Any, keepdims: bool) -> Any:
    """``_mean`` whose gradient multiplies by the count's reciprocal: TF's ``Mean``
    gradient divides by a constant count where the static shapes are known, which
    grappler turns into that product (see ``_mean_as_tf``). The product is rounded
    before it meets an addition, as TF's ``Mul`` kernel rounds it (a layer norm's
    gradient adds it to the variance's: XLA contracted the two into an FMA, 14% of a
    ``tf.nn.moments`` gradient differed)."""
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return _mean(x, axis, keepdims)
    return _mean_by_reciprocal(x, axis, keepdims)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def _mean_by_reciprocal(x: Any, axis: Any, keepdims: bool) -> Any:
    return _mean(x, axis, keepdims)


def _mean_by_reciprocal_fwd(x: Any, axis: Any, keepdims: bool) -> tuple:
    return _mean(x, axis, keepdims), x


def _mean_by_reciprocal_bwd(axis: Any, keepdims: bool, x: Any, g: Any) -> tuple:
    """TF's ``_MeanGrad`` after grappler: ``Tile(g) / count``, rounded. XLA, as grappler,
    multiplies by the count's reciprocal, or divides where ``g`` is a constant too (TF's
    constant folding computes that quotient before it rewrites divisions)."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(np.ravel(axis) % max(x.ndim, 1))
    if not keepdims:
        g = jnp.expand_dims(g, sorted(set(axes)))
    count = x.size // max(g.size, 1) if x.size else 0
    quotient = jnp.broadcast_to(g, x.shape) / np.asarray(max(count, 1), x.dtype)
    return (rounded(quotient).astype(x.dtype),)


_mean_by_reciprocal.defvjp(_mean_by_reciprocal_fwd, _mean_by_reciprocal_bwd)


def _mean_as_tf(
    table_fn: Any, folded_fn: Any, input_name: str = "input_tensor", axis_name: str = "axis"
) -> Any:
    """``tf.reduce_mean`` (and functions built on it, ``tf.nn.moments``): the mean as TF's
    kernel divides it, its gradient divided by the count (the input's shape unknown when
    the graph is built: TF computes the count in the graph) or multiplied by the count's
    reciprocal (the static shapes known: TF's gradient divides by a constant, which
    grappler rewrites so)."""

    def choose(arguments: dict[str, Any]) -> Any:
        from adapters.v1.framework import ops

        x = arguments.get(input_name)
        axis = arguments.get(axis_name)
        if axis is None:
            axis = arguments.get("reduction_indices")
        known = not isinstance(x, ops.Tensor) or (x._shape is not None and None not in x._shape)
        return folded_fn if known and folds_to_constant(axis) else table_fn

    return chosen_by_arguments(table_fn, choose)


def _extremum(reduce: Any, lowest: bool) -> Any:
    """``reduce_max``/``reduce_min``: over no elements TF gives its reducer's identity
    (max: -inf, or the integer type's lowest value; min: +inf, or its highest value),
    where NumPy's reductions raise."""

    def impl(x: Any, axis: Any, keepdims: bool) -> Any:
        if x.size == 0:
            axes = range(x.ndim) if axis is None else axis if isinstance(axis, tuple) else (axis,)
            axes = {a % x.ndim for a in axes}
            shape = tuple(
                1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes
            )
            if jnp.issubdtype(x.dtype, jnp.floating):
                fill = -jnp.inf if lowest else jnp.inf
            else:
                info = jnp.iinfo(x.dtype)
                fill = info.min if lowest else info.max
            return jnp.full(shape, fill, x.dtype)
        return reduce(x, axis, keepdims=keepdims)

    return impl


def _logsumexp(x: Any, axis: Any, keepdims: bool) -> Any:
    """``reduce_logsumexp`` as TF composes it from its kernels: the finite maximum (else 0,
    no gradient) subtracted, ``Log`` of the ``Sum`` of ``Exp``, the maximum added back
    (TF's CPU ``Exp``/``Log``/``Sum``: ``jax.nn.logsumexp`` rounds elsewhere)."""
    raw = _extremum(jnp.max, lowest=True)(x, axis, True)
    top = lax.stop_gradient(jnp.where(jnp.isfinite(raw), raw, jnp.zeros((), x.dtype)))
    out = eigen_exp_log.log(eigen_sum(eigen_exp_log.exp(x - top), axis, keepdims))
    return out + (top if keepdims else top.reshape(out.shape))


_REDUCTIONS = [
    (
        ("reduce_sum", "math.reduce_sum"),
        "Sum",
        eigen_sum,  # x's dtype; TF's order for float32/float64 (full, innermost axes)
        NUMERIC,
    ),
    (("reduce_mean", "math.reduce_mean"), "Mean", _mean, NUMERIC),
    (
        ("reduce_prod", "math.reduce_prod"),
        "Prod",
        lambda x, a, k: jnp.prod(x, axis=a, keepdims=k, dtype=x.dtype),
        NUMERIC,
    ),
    (("reduce_max", "math.reduce_max"), "Max", _extremum(jnp.max, lowest=True), REAL),
    (("reduce_min", "math.reduce_min"), "Min", _extremum(jnp.min, lowest=False), REAL),
    (("reduce_any", "math.reduce_any"), "Any", lambda x, a, k: jnp.any(x, a, keepdims=k), BOOL),
    (("reduce_all", "math.reduce_all"), "All", lambda x, a, k: jnp.all(x, a, keepdims=k), BOOL),
    (
        ("reduce_logsumexp", "math.reduce_logsumexp"),
        "ReduceLogSumExp",
        _logsumexp,
        FLOATING,
    ),
]

for _names, _type, _impl, _allowed in _REDUCTIONS + [
    (("_folded.reduce_mean",), "Mean", _mean_folded, NUMERIC)
]:
    define(
        _names,
        _type,
        _reduction(_impl),
        params=_REDUCE_PARAMS,
        tensors="input_tensor",
        allowed=_allowed,
    )
for _full in ("reduce_mean", "math.reduce_mean"):
    FUNCTIONS[_full] = _mean_as_tf(FUNCTIONS[_full], FUNCTIONS["_folded.reduce_mean"])


def _arg_axis(axis: Any, dimension: Any) -> Any:
    if axis is not None and dimension is not None:
        raise ValueError("Cannot specify both 'axis' and 'dimension'.")
    axis = dimension if axis is None else axis
    return 0 if axis is None else axis


def _arg_reduction(reduce: Any) -> Any:
    def impl(input, axis=None, dimension=None, output_type="int64"):
        return reduce(input, _arg_axis(axis, dimension)).astype(np_dtype(output_type))

    return impl


def _skipping_nan(arg: Any, fill: float) -> Any:
    """``arg`` (``jnp.argmax``/``argmin``) passing over NaN as TF's kernels do: a NaN
    compares as ``fill`` (-inf for argmax, +inf for argmin), so it is picked only
    where nothing else would be (all NaN: index 0); NumPy's would pick the NaN.

    Over an empty axis it gives zeros of the reduced shape: the node builds, as TF's,
    and its run-time check (``_arg_axis_not_empty``) raises TF's error when it runs."""

    def impl(x: Any, axis: Any) -> Any:
        if x.shape[axis] == 0:
            return jnp.zeros(x.shape[:axis] + x.shape[axis:][1:], np.int64)
        if jnp.issubdtype(x.dtype, jnp.floating):
            x = jnp.where(jnp.isnan(x), jnp.asarray(fill, x.dtype), x)
        return arg(x, axis)

    return impl


def _arg_axis_not_empty(input, axis=None, dimension=None, output_type="int64"):
    """TF's ``ArgMax``/``ArgMin`` kernels refuse to reduce an empty axis."""
    given = _arg_axis(axis, dimension)
    return jnp.asarray(input.shape[given] != 0), (
        jnp.asarray(given, np.int64),
        jnp.asarray(input.shape, np.int64),
    )


def _arg_axis_empty_error(op: Any, axis: np.ndarray, shape: np.ndarray) -> Any:
    """TF's message: ``Reduction axis 1 is empty in shape [2,0]`` (the axis as given)."""
    from jtrain import errors

    dims = ",".join(str(int(d)) for d in shape)
    return errors.InvalidArgumentError(
        None, op, f"Reduction axis {int(axis)} is empty in shape [{dims}]"
    )


_ARGMAX = _skipping_nan(jnp.argmax, -np.inf)
_ARGMIN = _skipping_nan(jnp.argmin, np.inf)
# TF's ``T`` of ArgMax/ArgMin, in the order of its message (bool included; the
# quantized types are named but not computed: jtrain has no kernels for them).
_ARG_ALLOWED = (
    *("float32", "float64", "int32", "uint8", "int16", "int8", "int64", "bfloat16"),
    *("uint16", "float16", "uint32", "uint64", "qint8", "quint8", "qint32", "qint16"),
    *("quint16", "bool"),
)


def _may_reduce_empty(input: Any, axis: Any) -> bool:
    """Whether the axis an ``ArgMax``/``ArgMin`` reduces may be empty: its size is not
    known to be positive when the graph is built (a computed axis, an unknown or zero
    dimension). Only those nodes carry the run-time check."""
    shape = input.get_shape() if hasattr(input, "get_shape") else TensorShape(np.shape(input))
    if hasattr(axis, "get_shape") or shape.ndims is None:
        return True
    axis = 0 if axis is None else axis
    if not isinstance(axis, (int, np.integer)) or not -shape.ndims <= axis < shape.ndims:
        return False  # the op's own errors
    size = shape.as_list()[axis]
    return size is None or size == 0


def _checked_arg(function: Any, axis_params: tuple[str, ...]) -> Any:
    """``function`` (an ``ArgMax``/``ArgMin`` entry), its nodes checked at run time
    (``_arg_axis_not_empty``) where the reduced axis may be empty."""
    entry = function._op_def
    test = _arg_axis_not_empty
    if axis_params == ("dimension",):
        test = lambda input, dimension, output_type="int64": _arg_axis_not_empty(  # noqa: E731
            input, dimension
        )
    checked = lift(dataclasses.replace(entry, runtime_check=(test, _arg_axis_empty_error)))

    def arg(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = entry.signature.bind(*args, **kwargs)
        except TypeError:
            return function(*args, **kwargs)  # its message
        given = [bound.arguments.get(p) for p in axis_params]
        axis = next((a for a in given if a is not None), None)
        if _may_reduce_empty(bound.arguments["input"], axis):
            return checked(*args, **kwargs)
        return function(*args, **kwargs)

    for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(arg, attribute, getattr(function, attribute))
    arg.__signature__ = entry.signature
    arg._op_def = entry
    for n in entry.names:
        FUNCTIONS[n] = arg
    return arg


for _names, _type, _impl in [
    (("argmax", "math.argmax"), "ArgMax", _ARGMAX),
    (("argmin", "math.argmin"), "ArgMin", _ARGMIN),
]:
    _checked_arg(
        define(
            _names,
            _type,
            _arg_reduction(_impl),
            params="input, axis=None, name=None, dimension=None, output_type='int64'",
            tensors="input",
            allowed=_ARG_ALLOWED,
        ),
        ("axis", "dimension"),
    )

for _name, _type, _impl in [("arg_max", "ArgMax", _ARGMAX), ("arg_min", "ArgMin", _ARGMIN)]:
    _checked_arg(
        define(  # TF1's names: ``dimension`` required, ``output_type`` before ``name``
            _name,
            _type,
            lambda input, dimension, output_type="int64", _f=_impl: _f(input, dimension).astype(
                np_dtype(output_type)
            ),
            params="input, dimension, output_type='int64', name=None",
            tensors="input",
            allowed=_ARG_ALLOWED,
        ),
        ("dimension",),
    )


def _linspace(start, stop, num, axis=0):
    """TF's ``linspace_nd``: ``start``, ``start + i * delta`` (0 < i < num - 1), ``stop``."""
    num = int(num)
    start = jnp.expand_dims(start, axis)
    stop = jnp.expand_dims(stop, axis)
    shape = jnp.broadcast_shapes(start.shape, stop.shape)
    start, stop = jnp.broadcast_to(start, shape), jnp.broadcast_to(stop, shape)
    steps = jnp.asarray(max(num - 1, 1), start.dtype)
    delta = kernel_divide(stop - start, steps)  # (XLA would multiply by 1/steps)
    index_shape = [1] * len(shape)
    index_shape[axis % len(shape)] = -1
    index = jnp.arange(1, max(num - 1, 1), dtype=start.dtype).reshape(index_shape)
    middle = start + rounded_product(index, delta)  # (TF's Mul, then Add: no FMA)
    out = jnp.concatenate([start, middle, stop], axis=axis)
    return lax.slice_in_dim(out, 0, num, axis=axis)


define(
    ("linspace", "lin_space"),
    "LinSpace",
    _linspace,
    params="start, stop, num, name=None, axis=0",
    tensors="start stop",
    allowed=FLOATING,
    default_name="linspace",
)


# -- casts, clipping, selection ------------------------------------------------------
def _cast(x: Any, dtype: Any) -> Any:
    """``tf.cast``: a float cast to int32 or int64 truncates toward zero, and gives the
    type's lowest value for NaN, infinities and values out of the type's range, as TF's
    CPU kernel on x86-64 does (C++'s ``static_cast``, compiled to ``cvttss2si``/
    ``cvttsd2si``, whose out-of-range result is the "integer indefinite" 0x80...0),
    where XLA's convert saturates and sends NaN to 0.

    .. note::
       Casts of NaN, infinities or out-of-range floats to the other integer types
       (uint8, int8, int16, uint16, uint32, uint64) are undefined behaviour in C++,
       and TF's values for them are not even stable on one machine: TF 2.21 on
       x86-64 casts ``300.0`` to uint8 as 44 (wrapped) in a tensor of a few elements
       and as 255 (saturated) in one of 33 or more, where Eigen's vectorized path
       runs. jtrain keeps XLA's saturating convert for them (NaN: 0); in-range
       values are TF's. (On AArch64 C++'s cast compiles to ``fcvtzs``, which saturates
       and sends NaN to 0 as XLA's convert does; jtrain follows x86-64.)
    """
    target = np_dtype(dtype)
    if target.kind == "b":
        return x != 0
    if target in (np.dtype(np.int32), np.dtype(np.int64)) and jnp.issubdtype(x.dtype, jnp.floating):
        wide = x.astype(jnp.float32) if jnp.finfo(x.dtype).bits < 32 else x
        bound = jnp.asarray(2.0 ** (target.itemsize * 8 - 1), wide.dtype)  # exact
        outside = jnp.isnan(wide) | (wide >= bound) | (wide < -bound)
        return jnp.where(outside, jnp.asarray(np.iinfo(target).min, target), x.astype(target))
    return x.astype(target)


define(("cast", "dtypes.cast"), "Cast", _cast, params="x, dtype, name=None", tensors="x")


# TF's names of dtypes in its kernels' messages (``DataTypeString``), where not the DType's.
_KERNEL_TYPE_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def _kernel_type_name(dtype: Any) -> str:
    name = np_dtype(dtype).name if np_dtype(dtype).kind != "O" else "string"
    return _KERNEL_TYPE_NAMES.get(name, name)


def _string_cast(x: Any, base: Any, name: Any) -> Any:
    """A ``Cast`` to or from ``tf.string``: TF builds the node (its static shape is
    ``x``'s) and its kernel fails when it runs, with ``UnimplementedError`` "Cast string
    to float is not supported" (TF 2.21 casts no dtype to or from strings)."""
    from adapters.v1.ops import string_ops
    from jtrain import errors

    message = f"Cast {_kernel_type_name(x.dtype)} to {_kernel_type_name(base)} is not supported"
    node: list[Any] = []

    def compute(*values: Any) -> tuple[Any, ...]:
        raise errors.UnimplementedError(None, node[0], message)

    op = string_ops._host_op("Cast", name, [x], compute, [(x._shape, base.as_numpy_dtype)])
    node.append(op)
    return op.outputs[0]


def _cast_as_tf(table_fn: Any) -> Any:
    """``tf.cast``: a tensor already of ``dtype`` is returned itself, as TF returns it (no
    ``Cast`` node; a string tensor too); a cast to or from strings is TF's node that fails
    when run (``_string_cast``); other values go through the table's ``Cast``."""

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def cast(x: Any, dtype: Any, name: Any = None) -> Any:
        from adapters.v1.framework import dtypes, ops

        base = dtypes.as_dtype(dtype).base_dtype
        if isinstance(x, ops.Tensor) and x.dtype == base:
            return x
        if isinstance(x, (bool, int, float, complex, str, bytes, list, tuple, np.ndarray)):
            # TF converts a Python or NumPy value in the Cast scope (``Cast/x``) and casts
            # it only where its dtype differs, the node named as the scope.
            with ops.name_scope(name, "Cast", []) as scope:
                x = ops.convert_to_tensor(x, name="x")
                if x.dtype == base:
                    return x
                if base == dtypes.string or x.dtype == dtypes.string:
                    return _string_cast(x, base, scope)
                return table_fn(x, dtype, name=scope)
        if isinstance(x, ops.Tensor) and dtypes.string in (base, x.dtype):
            with ops.name_scope(name, "Cast", [x]) as scope:
                return _string_cast(x, base, scope)
        return table_fn(x, dtype, name=name)

    return cast


for _full in ("cast", "dtypes.cast"):
    FUNCTIONS[_full] = _cast_as_tf(FUNCTIONS[_full])
for _name, _dtype, _default in [
    ("to_float", "float32", "ToFloat"),
    ("to_double", "float64", "ToDouble"),
    ("to_int32", "int32", "ToInt32"),
    ("to_int64", "int64", "ToInt64"),
]:
    define(
        _name,
        "Cast",
        lambda x, _d=_dtype: _cast(x, _d),
        params=f"x, name='{_default}'",
    )


def _clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any) -> Any:
    return _maximum(_minimum(t, clip_value_max), clip_value_min)


define(
    "clip_by_value",
    "ClipByValue",
    _clip_by_value,
    params="t, clip_value_min, clip_value_max, name=None",
    allowed=REAL,
    tf_gradient="TF's minimum/maximum rules: 1.0 passes to t at the bounds (JAX's clip: 0.5)",
)


def _clip_by_value_as_tf(table_fn: Any) -> Any:
    """``tf.clip_by_value``: an ``IndexedSlices`` ``t`` (an embedding's gradient) gives an
    ``IndexedSlices`` of its clipped values, with the same indices and dense shape.

    .. note:: TF clips each row of ``t.values``: a duplicated index keeps its rows apart
       (each clipped), where converting to a dense tensor would sum them first.
    """

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: Any = None) -> Any:
        from adapters.v1.framework.indexed_slices import IndexedSlices

        if isinstance(t, IndexedSlices):
            values = table_fn(t.values, clip_value_min, clip_value_max, name=name)
            return IndexedSlices(values, t.indices, t.dense_shape)
        return table_fn(t, clip_value_min, clip_value_max, name=name)

    return clip_by_value


FUNCTIONS["clip_by_value"] = _clip_by_value_as_tf(FUNCTIONS["clip_by_value"])


def _where_v1(condition: Any, x: Any = None, y: Any = None) -> Any:
    if x is None and y is None and not isinstance(condition, jax.core.Tracer):
        # A constant condition (see _where_coordinates): the coordinates of its true entries.
        return np.argwhere(np.asarray(condition) != 0).astype(np.int64)
    if x is None or y is None:
        raise NotImplementedError(
            "tf.where(condition) without x and y returns coordinates of a data-dependent "
            "shape, which jtrain's static programs cannot hold; pass x and y"
        )
    if jnp.ndim(condition) == 1 and jnp.ndim(x) > 1:  # TF1 Select: a vector picks rows
        condition = condition.reshape((-1,) + (1,) * (jnp.ndim(x) - 1))
    elif jnp.ndim(condition) == 0 and jnp.shape(x) == jnp.shape(y):
        pass  # TF1 Select: a scalar picks x or y whole
    elif jnp.shape(condition) != jnp.shape(x):
        raise ValueError(
            f"tf.where (v1): condition of shape {jnp.shape(condition)} must have the shape of "
            f"x {jnp.shape(x)}, be a vector over its first dimension or a scalar; use "
            "tf.where_v2 to broadcast"
        )
    return jnp.where(condition, x, y)


def _where_v2(condition: Any, x: Any = None, y: Any = None) -> Any:
    if x is None or y is None:
        return _where_v1(condition, x, y)
    return jnp.where(condition, x, y)


define(
    "where",
    "Select",
    _where_v1,
    params="condition, x=None, y=None, name=None",
    tensors="condition x y",
    same_dtype="x y",
    allowed={"condition": BOOL},
)
define(
    "where_v2",
    "SelectV2",
    _where_v2,
    params="condition, x=None, y=None, name=None",
    tensors="condition x y",
    same_dtype="x y",
    allowed={"condition": BOOL},
)


def _where_indices(condition: Any, *, sizes: Any = None) -> Any:
    """TF's ``Where``: the int64 coordinates ``[n, rank]`` of ``condition``'s nonzero
    entries, in row-major order; ``sizes`` is ``(n,)``, computed before the step
    (``framework/data_sizes.py``)."""
    (count,) = sizes
    if jnp.ndim(condition) == 0:
        return jnp.zeros((count, 0), np.int64)
    coordinates = jnp.nonzero(condition, size=count)
    return jnp.stack(coordinates, axis=1).astype(np.int64)


def _count_true(condition: Any, attrs: dict) -> tuple[Any]:
    return (jnp.count_nonzero(condition),)


def _where_has_dimensions(condition: Any) -> tuple[Any, tuple]:
    return jnp.asarray(jnp.ndim(condition) > 0), ()


def _where_scalar_error(op: Any) -> Any:
    from jtrain import errors

    return errors.InvalidArgumentError(None, op, "WhereOp : Unhandled input dimensions: 0")


def _may_be_scalar(op: Any) -> bool:
    shape = op.inputs[0]._shape
    return shape is None or len(shape) == 0


_WHERE_INDICES = define(
    "_internal.where_indices",  # tf.where(condition)'s node; not a public TF name
    "Where",
    _where_indices,
    params="condition, name=None",
    tensors="condition",
    allowed={"condition": (*NUMERIC, *BOOL)},
    default_name="Where",
    sized=("condition", _count_true),
    # TF's kernel refuses a scalar when it runs (its static shape is [None, 0])
    runtime_check=(_where_has_dimensions, _where_scalar_error, _may_be_scalar),
)


def _where_coordinates(name: str) -> None:
    """``tf.where(condition)``: the coordinates of the true entries, computed when the
    graph is built for a constant condition, else (their count depends on values) in
    the step, the session computing their count before it (``data_sizes.py``)."""
    lifted = FUNCTIONS[name]

    def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Any:
        if x is None and y is None:
            from adapters.v1.framework import ops
            from adapters.v1.ops.constant_op import constant

            tensor = ops.convert_to_tensor(condition, name="condition")
            value = tensor.op._const_value
            if value is None:
                out = _WHERE_INDICES(tensor, name=name)
                if tensor._shape is None:
                    out._shape = (None, None)  # TF's: [n, rank], both unknown
                return out
            with ops.name_scope(name or "Where"):
                return constant(_where_v1(np.asarray(value)))
        if x is None or y is None:
            raise ValueError("x and y must both be non-None or both be None.")
        return lifted(condition, x, y, name)

    where.__name__ = where.__qualname__ = name
    where.__doc__ = (
        f"``tf.{name}``: ``x`` where ``condition`` else ``y``; with neither, the int64 "
        "coordinates ``[n, rank]`` of ``condition``'s true entries in row-major order "
        "(TF's ``Where``; ``n`` depends on the values: unknown statically, computed "
        "before the step)."
    )
    where._op_def = lifted._op_def
    FUNCTIONS[name] = where


_where_coordinates("where")
_where_coordinates("where_v2")


# -- segments and scans -----------------------------------------------------------------
def _segment(reduce: str) -> Any:
    """``segment_{reduce}``: ``sizes`` is ``(number of segments,)`` for ``segment_ids``
    computed in the step (computed before it, ``framework/data_sizes.py``); None for
    ids known when the step is traced (NumPy)."""

    def impl(data, segment_ids, *, sizes=None):
        if sizes is None:
            ids = np.asarray(segment_ids)
            num = int(ids.max()) + 1 if ids.size else 0
        else:
            ids, num = segment_ids, sizes[0]
        out = _unsorted_segment(reduce, sorted_ids=True)(data, ids, num)
        if reduce in ("max", "min"):  # TF: an empty segment of segment_max/min is 0
            present = _segment_count(ids, num, data.ndim) > 0
            out = jnp.where(present, out, jnp.zeros((), data.dtype))
        return out

    return impl


def _segment_number(segment_ids: Any, attrs: dict) -> tuple[Any]:
    """The sizes of ``segment_*``: the number of segments, the last id + 1 (TF's: the
    ids are sorted)."""
    flat = jnp.reshape(segment_ids, (-1,))
    if flat.shape[0] == 0:
        return (jnp.zeros((), flat.dtype),)
    return (jnp.max(flat) + 1,)


def _segment_count(ids: Any, num_segments: int, ndim: int) -> Any:
    """How many ids fall in each segment, shaped to broadcast against the output."""
    ids = jnp.asarray(ids)
    count = jax.ops.segment_sum(jnp.ones(ids.shape, jnp.int32), ids, num_segments)
    return count.reshape(count.shape + (1,) * (ndim - ids.ndim))


def _segment_prod(data: Any, ids: Any, num_segments: int) -> Any:
    """Products per segment (1 for an empty one) as one masked reduction.

    JAX's ``segment_prod`` has no gradient for repeated ids; ``jnp.prod`` over a
    ``[num_segments, ids]`` mask has the exact derivative (zeros included), TF's.
    """
    ids = jnp.asarray(ids)
    rows = data.reshape((-1,) + data.shape[ids.ndim :])
    mask = ids.reshape(-1)[None, :] == jnp.arange(num_segments, dtype=ids.dtype)[:, None]
    mask = mask.reshape(mask.shape + (1,) * (rows.ndim - 1))
    return jnp.prod(jnp.where(mask, rows[None], jnp.ones((), data.dtype)), axis=1, dtype=data.dtype)


def _extreme(dtype: Any, highest: bool) -> Any:
    """The dtype's highest or lowest finite value (TF's empty segment of a min/max)."""
    info = jnp.finfo(dtype) if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype)
    return jnp.asarray(info.max if highest else info.min, dtype)


def _unsorted_segment(reduce: str, sorted_ids: bool = False) -> Any:
    """The unsorted segment reduction ``reduce``; ``sorted_ids``: for ``segment_*``
    (an integer mean divides as TF's SegmentMean kernel does)."""

    def impl(data, segment_ids, num_segments):
        ids = jnp.asarray(segment_ids)
        # ids may cover several leading dimensions of data (TF): JAX's take one
        data = data.reshape((-1,) + data.shape[ids.ndim :])
        ids = ids.reshape(-1)
        if reduce == "sum":
            return jax.ops.segment_sum(data, ids, num_segments)
        if reduce == "prod":
            return _segment_prod(data, ids, num_segments)
        if reduce in ("max", "min"):  # an empty segment: the dtype's lowest/highest value
            segment = jax.ops.segment_max if reduce == "max" else jax.ops.segment_min
            out = segment(data, ids, num_segments)
            empty = _segment_count(ids, num_segments, data.ndim) == 0
            return jnp.where(empty, _extreme(data.dtype, reduce == "min"), out)
        total = jax.ops.segment_sum(data, ids, num_segments)
        count = _segment_count(ids, num_segments, data.ndim).astype(data.dtype)
        count = jnp.maximum(count, jnp.ones((), data.dtype))
        if jnp.issubdtype(data.dtype, jnp.integer):
            if sorted_ids:  # TF's SegmentMean kernel: C++ integer division
                return lax.div(total, count)
            # TF's unsorted_segment_mean is ``sum / count`` in Python: a true division,
            # float32 for 8- and 16-bit integers, float64 for wider ones.
            wide = jnp.float32 if data.dtype.itemsize <= 2 else jnp.float64
            return total.astype(wide) / count.astype(wide)
        return total / (jnp.sqrt(count) if reduce == "sqrt_n" else count)

    return impl


for _op in ("sum", "mean", "max", "min", "prod"):
    define(
        (f"segment_{_op}", f"math.segment_{_op}"),
        f"Segment{_op.capitalize()}",
        _segment(_op),
        params="data, segment_ids, name=None",
        tensors="data",
        allowed=REAL,
        sized=("segment_ids", _segment_number),
    )
for _op, _type, _allowed in [
    ("sum", "UnsortedSegmentSum", NUMERIC),
    ("max", "UnsortedSegmentMax", REAL),
    ("min", "UnsortedSegmentMin", REAL),
    ("prod", "UnsortedSegmentProd", NUMERIC),
    # TF's Python compositions (sum / count, sum / sqrt(count)), one node here
    ("mean", "UnsortedSegmentMean", NUMERIC),
    ("sqrt_n", "UnsortedSegmentSqrtN", FLOATING),
]:
    define(
        (f"unsorted_segment_{_op}", f"math.unsorted_segment_{_op}"),
        _type,
        _unsorted_segment(_op),
        params="data, segment_ids, num_segments, name=None",
        tensors="data segment_ids",
        same_dtype="data",
        allowed={"data": _allowed, "segment_ids": INDEX},
        default_name=_type if _op not in ("mean", "sqrt_n") else f"unsorted_segment_{_op}",
    )


def _sequential_scan(x: Any, axis: int, exclusive: bool, reverse: bool, product: bool) -> Any:
    """TF's Eigen scan: one running value per line along ``axis``, started at the
    identity (``0``/``1``) and combined with each element in turn (from the end with
    ``reverse``); the output is the running value after (``exclusive``: before) each
    element. A ``lax.scan`` over ``axis``, vectorized over the other dimensions: on XLA
    CPU faster than ``jnp.cumsum`` (3000 values 0.03 ms vs 0.37; 1x100000 0.53 ms vs
    0.81, jitted); one loop trip per element, so a long axis may be slower on GPU."""
    if x.ndim == 0 or x.shape[axis] == 0:
        return x
    moved = jnp.moveaxis(x, axis, 0)
    combine = lax.mul if product else lax.add

    def step(running: Any, element: Any) -> tuple[Any, Any]:
        after = combine(running, element)
        return after, running if exclusive else after

    start = jnp.full(moved.shape[1:], 1 if product else 0, x.dtype)
    # Not unrolled: XLA reassociates an unrolled chain of additions of constants.
    _, out = lax.scan(step, start, moved, reverse=reverse)
    return jnp.moveaxis(out, 0, axis)


def _scan(product: bool) -> Any:
    """``tf.cumsum``/``tf.cumprod``'s implementation, with TF's registered gradient."""

    def impl(x, axis=0, exclusive=False, reverse=False):
        axis = int(axis) % x.ndim if x.ndim else 0
        exclusive, reverse = bool(exclusive), bool(reverse)

        @jax.custom_vjp
        def scan(x):
            return _sequential_scan(x, axis, exclusive, reverse, product)

        def fwd(x):
            out = scan(x)
            return out, (x, out)

        def bwd(res, ct):
            x, out = res
            # jtrain's cotangents are the conjugates of TF's gradients (complex x).
            grad = jnp.conj(ct) if jnp.iscomplexobj(ct) else ct
            if product:
                # TF's _CumprodGrad: div_no_nan(cumsum(cumprod(x) * grad, reversed), x).
                summed = _sequential_scan(out * grad, axis, exclusive, not reverse, False)
                # Behind a barrier: XLA multiplies by a constant divisor's reciprocal.
                grad = _divide_no_nan(summed, lax.optimization_barrier(x))
            else:
                # TF's _CumsumGrad: the cumsum of the gradient in the other direction.
                grad = _sequential_scan(grad, axis, exclusive, not reverse, False)
            return (jnp.conj(grad) if jnp.iscomplexobj(grad) else grad,)

        scan.defvjp(fwd, bwd)
        return scan(x)

    return impl


for _name, _type, _product in [("cumsum", "Cumsum", False), ("cumprod", "Cumprod", True)]:
    define(
        (_name, f"math.{_name}"),
        _type,
        _scan(_product),
        params="x, axis=0, exclusive=False, reverse=False, name=None",
        tensors="x",
        allowed=NUMERIC,
        tf_gradient=(
            "TF's _CumsumGrad (the cumsum of the gradient in the other direction) and "
            "_CumprodGrad (div_no_nan(cumsum(cumprod(x) * grad, other direction), x))"
        ),
    )


# -- more element-wise math (trigonometric, special functions, no-nan forms) ---------------
def _where_zero(mask: Any, safe: Any, value: Any) -> Any:
    """``value`` (computed from ``safe`` inputs) where not ``mask``, else 0 (and 0 gradient)."""
    return jnp.where(mask, jnp.zeros((), value.dtype), value)


def _xlogy_value(x: Any, y: Any) -> Any:
    """TF's ``Xlogy`` kernel: 0 where ``x`` is 0, else ``x * log(y)`` (TF's ``Log``)."""
    zero = x == 0
    log_y = eigen_exp_log.log(jnp.where(zero, jnp.ones((), y.dtype), y))
    return _where_zero(zero, None, rounded_product(x, log_y))


def _xlog1py(x: Any, y: Any) -> Any:
    zero = x == 0
    return _where_zero(zero, None, x * jnp.log1p(jnp.where(zero, jnp.zeros((), y.dtype), y)))


def _xdivy(x: Any, y: Any) -> Any:
    zero = x == 0
    return _where_zero(zero, None, kernel_divide(x, jnp.where(zero, jnp.ones((), y.dtype), y)))


def _xlogy_gradient(x: Any, y: Any, z: Any, g: Any) -> tuple[Any, Any]:
    """TF's ``_XLogyGrad``: ``xlogy(x != 0, y) * g`` and ``xdivy(x, y) * g``."""
    not_zero_x = (x != 0).astype(x.dtype)
    return rounded_product(_xlogy_value(not_zero_x, y), g), rounded_product(_xdivy(x, y), g)


_xlogy = tf_binary(_xlogy_value, _xlogy_gradient)  # (complex: JAX's derivative)


def _divide_no_nan(x: Any, y: Any) -> Any:
    zero = y == 0
    return _where_zero(zero, None, kernel_divide(x, jnp.where(zero, jnp.ones((), y.dtype), y)))


@jax.custom_jvp
def _multiply_no_nan(x: Any, y: Any) -> Any:
    return jnp.where(y == 0, jnp.zeros((), x.dtype), x * y)


@_multiply_no_nan.defjvp
def _multiply_no_nan_jvp(primals, tangents):
    x, y = primals
    dx, dy = tangents
    return _multiply_no_nan(x, y), _multiply_no_nan(dx, y) + x * dy


@jax.custom_jvp
def _nextafter(x1: Any, x2: Any) -> Any:
    return jnp.nextafter(x1, x2)


@_nextafter.defjvp
def _nextafter_jvp(primals, tangents):
    return _nextafter(*primals), tangents[0]  # TF: the gradient passes to x1, none to x2


def _reciprocal_no_nan(x: Any) -> Any:
    return _divide_no_nan(jnp.ones((), x.dtype), x)


def _erfcinv(x: Any) -> Any:
    return -jax.scipy.special.ndtri(x * jnp.asarray(0.5, x.dtype)) * jnp.asarray(
        np.sqrt(0.5), x.dtype
    )


def _rounded_from_float64(fn: Any) -> Any:
    """``fn`` computed in float64 and rounded to its argument's dtype.

    TF's CPU kernels call the C library (``lgammaf``...), whose float32 results are
    the correctly rounded ones; XLA's float32 approximations are a few ulps off
    (``lgamma(1.0)`` was 4.8e-07, TF's 0.0; ``lgamma(1.5)`` 3 ulps off).
    """

    def wide(x: Any) -> Any:
        if np_dtype(x.dtype).itemsize < 8:
            return fn(x.astype(jnp.float64)).astype(x.dtype)
        return fn(x)

    return wide


_digamma_values = _rounded_from_float64(jax.scipy.special.digamma)
_trigamma = _rounded_from_float64(lambda x: jax.scipy.special.polygamma(1, x))


@jax.custom_jvp
def _lgamma(x: Any) -> Any:
    return _rounded_from_float64(jax.scipy.special.gammaln)(x)


@_lgamma.defjvp
def _lgamma_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _lgamma(x), dx * _digamma_values(x)  # TF: grad * digamma(x), in x's dtype


@jax.custom_jvp
def _digamma(x: Any) -> Any:
    return _digamma_values(x)


@_digamma.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _digamma(x), dx * _trigamma(x)  # TF: grad * polygamma(1, x)


def _lbeta(x: Any) -> Any:
    return jnp.sum(_lgamma(x), axis=-1) - _lgamma(jnp.sum(x, axis=-1))


def _no_grad_first(fn: Any) -> Any:
    """``fn(a, x)`` whose gradient for ``a`` is none, as TF's."""
    return lambda a, x: fn(lax.stop_gradient(a), x)


_special = jax.scipy.special
_UNARY_MORE = [
    # names, op type, implementation, allowed dtypes
    (("math.tan", "tan"), "Tan", jnp.tan, _FLOAT_OR_COMPLEX),
    (("math.sinh", "sinh"), "Sinh", jnp.sinh, _FLOAT_OR_COMPLEX),
    (("math.cosh", "cosh"), "Cosh", jnp.cosh, _FLOAT_OR_COMPLEX),
    (("math.asin", "asin"), "Asin", jnp.arcsin, _FLOAT_OR_COMPLEX),
    (("math.acos", "acos"), "Acos", jnp.arccos, _FLOAT_OR_COMPLEX),
    (("math.atan", "atan"), "Atan", eigen_trig.atan, _FLOAT_OR_COMPLEX),
    (("math.asinh", "asinh"), "Asinh", jnp.arcsinh, _FLOAT_OR_COMPLEX),
    (("math.acosh", "acosh"), "Acosh", jnp.arccosh, _FLOAT_OR_COMPLEX),
    (("math.atanh", "atanh"), "Atanh", jnp.arctanh, _FLOAT_OR_COMPLEX),
    (("math.erf", "erf"), "Erf", eigen_trig.erf, FLOATING),
    (("math.erfc", "erfc"), "Erfc", _special.erfc, FLOATING),
    (("math.erfinv",), "Erfinv", _special.erfinv, FLOATING),
    (("math.erfcinv",), "Erfcinv", _erfcinv, FLOATING),
    (("math.ndtri",), "Ndtri", _special.ndtri, FLOATING),
    (("math.lgamma", "lgamma"), "Lgamma", _lgamma, FLOATING),
    (("math.digamma", "digamma"), "Digamma", _digamma, FLOATING),
    (("math.is_inf", "is_inf"), "IsInf", jnp.isinf, FLOATING),
    (("math.rint", "rint"), "Rint", jnp.round, FLOATING),
    (("math.reciprocal_no_nan",), "DivNoNan", _reciprocal_no_nan, _FLOAT_OR_COMPLEX),
    (("math.lbeta", "lbeta"), "Lbeta", _lbeta, FLOATING),
    (("math.bessel_i0", "math.special.bessel_i0"), "BesselI0", _special.i0, FLOATING),
    (("math.bessel_i0e", "math.special.bessel_i0e"), "BesselI0e", _special.i0e, FLOATING),
    (("math.bessel_i1", "math.special.bessel_i1"), "BesselI1", _special.i1, FLOATING),
    (("math.bessel_i1e", "math.special.bessel_i1e"), "BesselI1e", _special.i1e, FLOATING),
]
for _names, _type, _impl, _allowed in _UNARY_MORE:
    define(
        _names,
        _type,
        _impl,
        params="x, name=None",
        allowed=_in_tf_order(_type, _allowed),
        runtime_check=_no_cpu_kernel(_type),
    )


def _reciprocal_no_nan_as_tf(table_fn: Any) -> Any:
    """``tf.math.reciprocal_no_nan`` as TF's Python function: in a ``reciprocal_no_nan``
    scope it makes the constant ``one`` of ``x``'s dtype first, so a dtype that cannot
    hold 1 (bool, string) is that conversion's ``TypeError`` ("Expected bool, but got 1
    of type 'int'."), as TF's; the quotient is the table's."""

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def reciprocal_no_nan(x: Any, name: Any = None) -> Any:
        from adapters.v1.framework import ops

        with ops.name_scope(name, "reciprocal_no_nan", [x]) as scope:
            x = ops.convert_to_tensor(x, name="x")
            ops.convert_to_tensor(1, dtype=x.dtype.base_dtype, name="one")
            return table_fn(x, name=scope)

    return reciprocal_no_nan


FUNCTIONS["math.reciprocal_no_nan"] = _reciprocal_no_nan_as_tf(FUNCTIONS["math.reciprocal_no_nan"])

_BINARY_MORE = [
    # names, op type, signature, implementation, allowed dtypes, TF's gradient
    (("math.atan2", "atan2"), "Atan2", "y, x, name=None", eigen_trig.atan2, FLOATING, ""),
    (
        ("math.xlogy",),
        "Xlogy",
        "x, y, name=None",
        _xlogy,
        _FLOAT_OR_COMPLEX,
        "0 for both operands where x = 0",
    ),
    (
        ("math.xlog1py",),
        "Xlog1py",
        "x, y, name=None",
        _xlog1py,
        _FLOAT_OR_COMPLEX,
        "0 for both operands where x = 0",
    ),
    (
        ("math.xdivy",),
        "Xdivy",
        "x, y, name=None",
        _xdivy,
        _FLOAT_OR_COMPLEX,
        "0 for both operands where x = 0",
    ),
    (
        ("math.divide_no_nan", "div_no_nan"),
        "DivNoNan",
        "x, y, name=None",
        _divide_no_nan,
        _FLOAT_OR_COMPLEX,
        "0 for both operands where y = 0",
    ),
    (
        ("math.multiply_no_nan",),
        "MulNoNan",
        "x, y, name=None",
        _multiply_no_nan,
        _FLOAT_OR_COMPLEX,
        "d/dx is 0 where y = 0, d/dy is x",
    ),
    (
        ("math.igamma", "igamma"),
        "Igamma",
        "a, x, name=None",
        _special.gammainc,
        ("float32", "float64"),
        "",
    ),
    (
        ("math.igammac", "igammac"),
        "Igammac",
        "a, x, name=None",
        _special.gammaincc,
        ("float32", "float64"),
        "",
    ),
    (
        ("math.zeta", "zeta"),
        "Zeta",
        "x, q, name=None",
        _no_grad_first(_special.zeta),
        ("float32", "float64"),
        "none for x",
    ),
    (
        ("math.polygamma", "polygamma"),
        "Polygamma",
        "a, x, name=None",
        _no_grad_first(lax.polygamma),
        ("float32", "float64"),
        "none for a",
    ),
    (
        ("math.nextafter",),
        "NextAfter",
        "x1, x2, name=None",
        _nextafter,
        ("float32", "float64"),
        "the incoming gradient for x1, none for x2",
    ),
]
for _names, _type, _params, _impl, _allowed, _grad in _BINARY_MORE:
    define(
        _names,
        _type,
        _impl,
        params=_params,
        allowed=_in_tf_order(_type, _allowed),
        tf_gradient=_grad,
    )


def _divide_no_nan_as_tf(table_fn: Any) -> Any:
    """``tf.math.divide_no_nan``/``tf.div_no_nan`` as TF's Python function: in a
    ``div_no_nan`` scope, a Python ``x`` converts to a tensor ``y``'s dtype (else ``y``
    with ``x``'s as a hint); integers are cast to a float first, as ``tf.truediv``
    (int8/int16/uint8/uint16 to float32, wider ones to float64); different dtypes or a
    dtype outside ``tf.truediv``'s table are TF's ``TypeError``."""

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def divide_no_nan(x: Any, y: Any, name: Any = None) -> Any:
        from adapters.v1.framework import ops

        with ops.name_scope(name, "div_no_nan", [x, y]) as scope:
            if not _is_graph_value(x) and _is_graph_value(y):
                y = ops.convert_to_tensor(y, name="y")
                x = ops.convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            else:
                x = ops.convert_to_tensor(x, name="x")
                y = ops.convert_to_tensor(y, name="y", dtype_hint=x.dtype.base_dtype)
            x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
            if x_dtype != y_dtype:
                raise TypeError(
                    f"`x` and `y` must have the same dtype, got {x_dtype!r} != {y_dtype!r}."
                )
            if x_dtype.name not in _TRUEDIV_DTYPES:
                expected = ", ".join(f"tf.{d}" for d in _TRUEDIV_DTYPES)
                raise TypeError(
                    f"Invalid dtype {x_dtype!r} in tf.math.divide_no_nan. Expected one of "
                    f"{{{expected}}}."
                )
            kind = np_dtype(x_dtype)
            if kind.kind in "iu":
                target = "float32" if kind.itemsize <= 2 else "float64"
                x, y = FUNCTIONS["cast"](x, target), FUNCTIONS["cast"](y, target)
            return table_fn(x, y, name=scope)

    return divide_no_nan


for _full in ("math.divide_no_nan", "div_no_nan"):
    FUNCTIONS[_full] = _divide_no_nan_as_tf(FUNCTIONS[_full])
FUNCTIONS["math.multiply_no_nan"] = _div_as_tf(FUNCTIONS["math.multiply_no_nan"], "multiply_no_nan")

define(
    ("math.betainc", "betainc"),
    "Betainc",
    lambda a, b, x: _special.betainc(lax.stop_gradient(a), lax.stop_gradient(b), x),
    params="a, b, x, name=None",
    allowed=("float32", "float64"),
    tf_gradient="none for a and b",
)
define(
    ("math.scalar_mul", "scalar_mul"),
    "Mul",
    rounded_product,
    params="scalar, x, name=None",
    allowed=_in_tf_order("Mul", NUMERIC),
)


def _scalar_mul_as_tf(table_fn: Any) -> Any:
    """``tf.scalar_mul(scalar, x)``: ``scalar * x``, the scalar converted to ``x``'s dtype
    (``tf.scalar_mul(2.0, float64_tensor)`` is float64; ``np.float64(2.0)`` converts to
    float32 for a float32 ``x``) as a constant named ``scalar``, the node ``Mul``; an
    ``IndexedSlices`` ``x`` gives ``IndexedSlices`` of its scaled values.

    Raises:
      ValueError: a ``scalar`` not of rank 0 ("The input scalar must be a 0-D value"),
        or a tensor of another dtype (TF's conversion error, prefixed ``scalar:``).
      TypeError: a Python value ``x``'s dtype cannot hold (``2.5`` for int32).
    """

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def scalar_mul(scalar: Any, x: Any, name: Any = None) -> Any:
        from adapters.v1.framework import dtypes, ops
        from adapters.v1.framework.indexed_slices import IndexedSlices

        base = dtypes.as_dtype(x.dtype).base_dtype
        # A tensor of another dtype: TF's ValueError, prefixed "scalar: " by convert_to_tensor.
        scalar = ops.convert_to_tensor(scalar, dtype=base, name="scalar")
        shape = scalar.shape
        if shape.ndims != 0:
            raise ValueError(f"The input scalar must be a 0-D value. Received shape {shape}.")
        # TF's ``Mul`` op: its errors name the scalar 'x', as ``tf.multiply``'s.
        multiply = FUNCTIONS["multiply"]
        if isinstance(x, IndexedSlices):
            return IndexedSlices(multiply(scalar, x.values, name=name), x.indices, x.dense_shape)
        return multiply(scalar, x, name=name)

    return scalar_mul


for _full in ("scalar_mul", "math.scalar_mul"):
    FUNCTIONS[_full] = _scalar_mul_as_tf(FUNCTIONS[_full])


# -- statistics reductions (v2-style signatures in TF's v1 namespace) ------------------------
def reduce_variance(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Any = None
) -> Any:
    """The variance of ``input_tensor``'s elements along ``axis``, as TF's Python
    function builds it: ``reduce_mean(square(x - reduce_mean(x, axis, keepdims=True)))``
    (``|x - mean|**2`` for complex ``x``), of TF's nodes, so its gradient is TF's graph.

    Args:
      input_tensor: a floating or complex tensor.
      axis: the dimensions to reduce (default None: all).
      keepdims: keep the reduced dimensions with size 1 (default False).
      name: the scope's name (default ``"reduce_variance"``).

    Returns:
      The variances (real for complex input).

    Raises:
      TypeError: an integer tensor (TF's message).
    """
    from adapters.v1.framework import ops

    fn = FUNCTIONS
    with ops.name_scope(name or "reduce_variance"):
        input_tensor = ops.convert_to_tensor(input_tensor)
        means = fn["reduce_mean"](input_tensor, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(
                f"Input must be either real or complex. Received integer type {means.dtype}."
            )
        diff = input_tensor - means
        if diff.dtype.is_complex:  # |diff|**2 as conj(diff) * diff
            squared_deviations = fn["real"](fn["multiply"](fn["conj"](diff), diff))
        else:
            squared_deviations = fn["square"](diff)
        return fn["reduce_mean"](squared_deviations, axis=axis, keepdims=keepdims)


def reduce_std(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Any = None
) -> Any:
    """The standard deviation along ``axis``: ``sqrt(reduce_variance(...))``, as TF's
    Python function builds it (see :func:`reduce_variance`).

    Args:
      input_tensor: a floating or complex tensor.
      axis: the dimensions to reduce (default None: all).
      keepdims: keep the reduced dimensions with size 1 (default False).
      name: the scope's name (default ``"reduce_std"``).

    Returns:
      The standard deviations.

    Raises:
      TypeError: an integer tensor (TF's message).
    """
    from adapters.v1.framework import ops

    with ops.name_scope(name or "reduce_std"):
        input_tensor = ops.convert_to_tensor(input_tensor)
        variance = reduce_variance(input_tensor, axis=axis, keepdims=keepdims)
        return FUNCTIONS["sqrt"](variance)


FUNCTIONS["math.reduce_variance"] = reduce_variance
FUNCTIONS["math.reduce_std"] = reduce_std

define(
    ("math.reduce_euclidean_norm",),
    "EuclideanNorm",
    _reduction(lambda x, a, k: jnp.sqrt(jnp.sum(jnp.square(x), axis=a, keepdims=k))),
    params="input_tensor, axis=None, keepdims=False, name=None",
    tensors="input_tensor",
    allowed=FLOATING,
    default_name="reduce_euclidean_norm",
)


# -- counting, accumulation, polynomials, permutations ----------------------------------------
def _count_nonzero(
    input_tensor=None,
    axis=None,
    keepdims=None,
    dtype="int64",
    reduction_indices=None,
    keep_dims=None,
    input=None,
):
    if input is not None and input_tensor is not None:
        raise ValueError("Cannot specify both 'input' and 'input_tensor'.")
    x = input if input_tensor is None else input_tensor
    if x is None:
        raise ValueError("Must specify 'input_tensor'.")
    nonzero = (x != jnp.zeros((), x.dtype)).astype(jnp.int64)
    count = _reduction(lambda v, a, k: jnp.sum(v, a, keepdims=k, dtype=jnp.int64))(
        nonzero, axis, keepdims, reduction_indices, keep_dims
    )
    return count.astype(np_dtype(dtype))


define(
    ("count_nonzero", "math.count_nonzero"),
    "count_nonzero",
    _count_nonzero,
    params="input_tensor=None, axis=None, keepdims=None, dtype='int64', name=None, "
    "reduction_indices=None, keep_dims=None, input=None",
    tensors="input_tensor input",
    same_dtype=(),
    allowed={"input_tensor": NUMERIC + BOOL, "input": NUMERIC + BOOL},
)


def _accumulate_n_check(arguments: dict[str, Any]) -> None:
    """TF's checks: one dtype and compatible shapes for all inputs, ``tensor_dtype`` theirs."""
    from adapters.v1.framework import tensor_shape

    inputs = arguments["inputs"]
    error = "inputs must be a list of at least one Tensor with the same dtype and shape"
    if not inputs or any(np_dtype(t.dtype) != np_dtype(inputs[0].dtype) for t in inputs):
        raise ValueError(error)
    shape = arguments.get("shape")
    merged = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.unknown_shape()
    for t in inputs:
        merged = merged.merge_with(t.get_shape())
    dtype = arguments.get("tensor_dtype")
    if dtype is not None and np_dtype(dtype) != np_dtype(inputs[0].dtype):
        from adapters.v1.framework import dtypes as _dtypes

        raise TypeError(
            f"The `tensor_dtype` argument is {_dtypes.as_dtype(dtype)}, but `input` is of type "
            f"{inputs[0].dtype}. These must be equal. Try casting the input to the desired type."
        )


define(
    ("accumulate_n", "math.accumulate_n"),
    "AddN",
    lambda inputs, shape=None, tensor_dtype=None: _add_n(inputs),
    params="inputs, shape=None, tensor_dtype=None, name=None",
    tensors="inputs",
    lists="inputs",
    same_dtype=(),
    allowed={"inputs": NUMERIC},
    check=_accumulate_n_check,
)


def _cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False):
    axis = axis % x.ndim
    out = lax.cumlogsumexp(x, axis=axis, reverse=reverse)
    if exclusive:  # shifted by one, -inf (the empty sum's log) first
        pad = [(0, 0)] * x.ndim
        pad[axis] = (0, 1) if reverse else (1, 0)
        out = jnp.pad(out, pad, constant_values=-np.inf)
        start = 1 if reverse else 0
        out = lax.slice_in_dim(out, start, start + x.shape[axis], axis=axis)
    return out


define(
    "math.cumulative_logsumexp",
    "CumulativeLogsumexp",
    _cumulative_logsumexp,
    params="x, axis=0, exclusive=False, reverse=False, name=None",
    tensors="x",
    allowed=("float16", "float32", "float64"),
)


def _polyval(coeffs: list[Any], x: Any) -> Any:
    if not coeffs:
        return jnp.zeros_like(x)
    p = coeffs[0]
    for c in coeffs[1:]:
        p = c + p * x
    return p


define(
    "math.polyval",
    "polyval",
    _polyval,
    params="coeffs, x, name=None",
    tensors="coeffs x",
    lists="coeffs",
    allowed=NUMERIC,
)


def _invert_permutation(x: Any) -> Any:
    return jnp.zeros_like(x).at[x].set(jnp.arange(x.shape[0], dtype=x.dtype), mode="drop")


def _is_permutation(x: Any) -> Any:
    n = x.shape[0]
    in_range = jnp.all((x >= 0) & (x < n))
    hits = jnp.zeros((n,), jnp.int32).at[x].add(1, mode="drop")
    return in_range & jnp.all(hits == 1), (x,)


def _permutation_error(op: Any, x: np.ndarray) -> Any:
    """TF's message for the first bad entry: out of range, or a repeated value."""
    from jtrain import errors

    seen: set[int] = set()
    for d in x.tolist():
        if not 0 <= d < len(x):
            return errors.InvalidArgumentError(None, op, f"{d} is not between 0 and {len(x)}")
        if d in seen:
            return errors.InvalidArgumentError(None, op, f"{d} is duplicated in the input.")
        seen.add(d)
    return errors.InvalidArgumentError(None, op, "x is not a permutation")


define(
    ("invert_permutation", "math.invert_permutation"),
    "InvertPermutation",
    _invert_permutation,
    params="x, name=None",
    allowed=INDEX,
    runtime_check=(_is_permutation, _permutation_error),
)


def _numeric_check(arguments: dict[str, Any]) -> None:
    x = arguments["x"]
    if np_dtype(x.dtype).name not in NUMERIC:
        raise TypeError(f"Expected x to be numeric, instead found: {x}")


def _monotonic(compare: Any) -> Any:
    def impl(x: Any) -> Any:
        flat = x.reshape(-1)
        return jnp.all(compare(flat[1:], flat[:-1]))

    return impl


for _name, _compare in [
    ("is_non_decreasing", jnp.greater_equal),
    ("is_strictly_increasing", jnp.greater),
]:
    define(
        (_name, f"math.{_name}"),
        "All",
        _monotonic(_compare),
        params="x, name=None",
        default_name=_name,
        check=_numeric_check,
    )


# -- tf.math.special (the functions JAX provides) ---------------------------------------------
@jax.custom_jvp
def _spence(x: Any) -> Any:
    return _special.spence(x)


@_spence.defjvp
def _spence_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    one = jnp.ones((), x.dtype)
    at_one = x == one
    slope = jnp.log(x) / jnp.where(at_one, one, one - x)
    return _spence(x), dx * jnp.where(at_one, -one, slope)  # TF: -1 at x = 1


@jax.custom_jvp
def _expint(x: Any) -> Any:
    return jnp.where(x < 0, jnp.asarray(np.nan, x.dtype), _special.expi(x))  # TF: NaN below 0


@_expint.defjvp
def _expint_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _expint(x), dx * jnp.exp(x) / x  # TF's rule, also where the value is NaN


_SPECIAL = [
    ("dawsn", "Dawsn", _special.dawsn),
    ("expint", "Expint", _expint),
    ("fresnel_cos", "FresnelCos", lambda x: _special.fresnel(x)[1]),
    ("fresnel_sin", "FresnelSin", lambda x: _special.fresnel(x)[0]),
    ("spence", "Spence", _spence),
]
for _name, _type, _impl in _SPECIAL:
    define(
        f"math.special.{_name}",
        _type,
        _impl,
        params="x, name=None",
        allowed=("float32", "float64"),
        tf_gradient={"spence": "log(x) / (1 - x), -1 at x = 1", "expint": "exp(x) / x"}.get(
            _name, ""
        ),
    )


# -- complex numbers ----------------------------------------------------------------------------
def _complex(real: Any, imag: Any) -> Any:
    return lax.complex(real, imag)


def _complex_check(arguments: dict[str, Any]) -> None:
    real, imag = np_dtype(arguments["real"].dtype), np_dtype(arguments["imag"].dtype)
    if real != imag or real.name not in ("float32", "float64"):
        raise TypeError(
            f"The `real` and `imag` components have incorrect types: {real.name} {imag.name}. "
            "They must be consistent, and one of [tf.float32, tf.float64]"
        )


define(
    "complex",
    "Complex",
    _complex,
    params="real, imag, name=None",
    same_dtype=(),
    default_name="Complex",
    check=_complex_check,
)


def _is_complex(x: Any) -> bool:
    return jnp.issubdtype(x.dtype, jnp.complexfloating)


define(
    ("real", "math.real"),
    "Real",
    lambda input: jnp.real(input) if _is_complex(input) else input,
    params="input, name=None",
    allowed=NUMERIC,
    default_name="Real",
)
define(
    ("imag", "math.imag"),
    "Imag",
    lambda input: jnp.imag(input) if _is_complex(input) else jnp.zeros_like(input),
    params="input, name=None",
    allowed=NUMERIC,
    default_name="Imag",
)
define(
    ("conj", "math.conj"),
    "Conj",
    lambda x: jnp.conj(x) if _is_complex(x) else x,
    params="x, name=None",
    allowed=NUMERIC,
    default_name="Conj",
)


def _angle(input: Any) -> Any:
    if _is_complex(input):
        return jnp.angle(input)
    # TF: pi where the real input is negative, else 0 (no gradient)
    pi = jnp.asarray(np.pi, input.dtype)
    return lax.stop_gradient(jnp.where(input < 0, pi, jnp.zeros((), input.dtype)))


define(
    ("angle", "math.angle"),
    "Angle",
    _angle,
    params="input, name=None",
    allowed=FLOATING + ("complex64", "complex128"),
    default_name="Angle",
)
