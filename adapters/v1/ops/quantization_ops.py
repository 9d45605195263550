"""TF's quantization-aware training ops (``tf.quantization.fake_quant_*``; TF's
``array_ops.py``/``gen_array_ops``, kernels ``core/kernels/fake_quant_ops*``).

A fake-quant op rounds float32 values to the ``2**num_bits`` levels of an integer
grid spanning ``[min, max]`` and returns them as float32, as TF's kernel does:
``[min, max]`` is first *nudged* so that 0.0 is exactly a level. With
``q_min = 1 if narrow_range else 0`` and ``q_max = 2**num_bits - 1``, in float32:

.. math::

   s = \\frac{max - min}{q_{max} - q_{min}},\\quad
   s^{-1} = \\frac{q_{max} - q_{min}}{max - min},\\quad
   z = \\mathrm{clip}(\\mathrm{round}(q_{min} - min / s), q_{min}, q_{max})

   m = (q_{min} - z) s,\\quad M = (q_{max} - z) s,\\quad
   z_0 = \\lfloor -m s^{-1} + 0.5 \\rfloor

   \\text{out} = \\lfloor (\\mathrm{clip}(x, m, M) - m)\\, s^{-1} - z_0 + 0.5 \\rfloor s

(``round`` half away from zero, ``z`` a ``uint16``, each quotient rounded once as
TF's kernels divide (``jtrain._numerics.kernel_divide``: XLA's reciprocal products
moved 16-bit levels by one step); ``FakeQuantWithMinMaxVars``
divides by ``s`` where the others multiply by ``s^{-1}``, as TF's kernels; ``min ==
max == 0`` gives zeros for the ``*_vars*`` ops.) The gradients are TF's registered
ones, the ``*_gradient`` ops: straight through to the inputs inside ``[m, M]``;
to ``min`` (``max``) the sum of the incoming gradient where ``x < m`` (``x > M``),
per channel (the last dimension) for ``*_per_channel``.

``quantize_and_dequantize`` (op ``QuantizeAndDequantizeV2``) and
``quantize_and_dequantize_v2`` (``QuantizeAndDequantizeV4``) round to a symmetric
integer grid instead: see their section below.

.. note::
   ``quantize``, ``dequantize`` and ``quantized_concat`` (tensors of TF's quantized
   dtypes) are not provided: jtrain's sessions hold no ``qint8``/``quint8`` values.
"""

from __future__ import annotations

import threading
from collections import namedtuple
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework.op_def import FLOATING, OpValueError, define
from jtrain import errors
from jtrain._numerics import kernel_divide

__all__ = [
    "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient",
    "quantize_and_dequantize",
    "quantize_and_dequantize_v2",
]

_F32 = ("float32",)

FakeQuantWithMinMaxVarsGradient = namedtuple(
    "FakeQuantWithMinMaxVarsGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"],
)
FakeQuantWithMinMaxVarsPerChannelGradient = namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"],
)


def _std_round(x: jax.Array) -> jax.Array:
    """C's ``round``: half away from zero, exact (``x - trunc(x)`` is exact)."""
    whole = jnp.trunc(x)
    return whole + jnp.where(jnp.abs(x - whole) >= 0.5, jnp.sign(x), jnp.zeros_like(x))


def _grid(num_bits: int, narrow_range: bool) -> tuple[np.float32, np.float32]:
    return np.float32(1 if narrow_range else 0), np.float32((1 << int(num_bits)) - 1)


def _nudge(lo: Any, hi: Any, num_bits: int, narrow_range: bool):
    """TF's ``Nudge``: ``(nudged_min, nudged_max, scale, inv_scale)`` in float32."""
    q_min, q_max = _grid(num_bits, narrow_range)
    lo = jnp.asarray(lo, jnp.float32)
    hi = jnp.asarray(hi, jnp.float32)
    span = jnp.asarray(q_max - q_min, jnp.float32)
    scale = kernel_divide(hi - lo, span)
    inv_scale = kernel_divide(span, hi - lo)
    from_min = q_min - kernel_divide(lo, scale)
    zero = jnp.where(
        from_min < q_min, q_min, jnp.where(from_min > q_max, q_max, _std_round(from_min))
    )
    # TF's uint16 zero point (a NaN or an out-of-range float cast as C++ would: to 0).
    zero = jnp.where(jnp.isfinite(zero), zero, 0.0).astype(jnp.uint16).astype(jnp.float32)
    return (q_min - zero) * scale, (q_max - zero) * scale, scale, inv_scale


def _quantize(x: Any, lo: Any, hi: Any, num_bits: int, narrow_range: bool, divide: bool):
    nudged_min, nudged_max, scale, inv_scale = _nudge(lo, hi, num_bits, narrow_range)
    quant_zero = jnp.floor(-nudged_min * inv_scale + np.float32(0.5))
    shifted = jnp.maximum(jnp.minimum(x, nudged_max), nudged_min) - nudged_min
    steps = kernel_divide(shifted, scale) if divide else shifted * inv_scale
    return jnp.floor(steps - quant_zero + np.float32(0.5)) * scale


def _masks(x: Any, lo: Any, hi: Any, num_bits: int, narrow_range: bool):
    nudged_min, nudged_max, _, _ = _nudge(lo, hi, num_bits, narrow_range)
    return (x >= nudged_min) & (x <= nudged_max), x < nudged_min, x > nudged_max


# -- run-time checks of the attributes (TF's kernels refuse them when the run starts) --
_BAD_ATTRS = threading.local()


def _attrs_message(arguments: dict[str, Any], with_range: bool) -> str | None:
    num_bits = arguments["num_bits"]
    if with_range:
        lo, hi = arguments["min"], arguments["max"]
        if not lo < hi:
            return f"min has to be smaller than max, was: {lo:g} >= {hi:g}"
    if not 2 <= int(num_bits) <= 16:
        return "num_bits must be between 2 and 16, inclusive"
    return None


def _attr_check(with_range: bool):
    """``(check, runtime_check)`` of an op whose attributes TF's kernel validates: the
    node checks (fails its run with TF's ``InvalidArgumentError``) only when they are
    bad, so a valid node's program carries no check."""

    def check(arguments: dict[str, Any]) -> None:
        _BAD_ATTRS.message = _attrs_message(arguments, with_range)

    def test(*_: Any) -> tuple[jax.Array, tuple[()]]:
        return jnp.asarray(False), ()

    def error(op: Any) -> Any:
        return errors.InvalidArgumentError(None, op, op._fake_quant_error)

    def applies(op: Any) -> bool:
        message, _BAD_ATTRS.message = getattr(_BAD_ATTRS, "message", None), None
        op._fake_quant_error = message
        return message is not None

    return check, (test, error, applies)


def _rank_check(arguments: dict[str, Any], op_type: str, scalar: bool) -> None:
    """TF's shape function: ``min``/``max`` scalars (vectors of the last dimension's
    size, per channel)."""
    x = arguments.get("inputs")
    rank_x = x.get_shape().ndims if x is not None else None
    depth = x.get_shape().as_list()[-1] if rank_x else None
    for param in ("min", "max"):
        t = arguments.get(param)
        rank = t.get_shape().ndims
        if rank is None:
            continue
        want = 0 if scalar else 1
        if rank != want:
            raise OpValueError(f"Shape must be rank {want} but is rank {rank} for '{op_type}'")
        if not scalar and depth is not None:
            size = t.get_shape().as_list()[0]
            if size is not None and size != depth:
                raise OpValueError(
                    f"Dimensions must be equal, but are {depth} and {size} for '{op_type}'"
                )
    if not scalar and rank_x == 0:
        raise OpValueError(f"Shape must be at least rank 1 but is rank 0 for '{op_type}'")


# -- FakeQuantWithMinMaxArgs ------------------------------------------------------------
def _args_gradient(gradients, inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False):
    inside, _, _ = _masks(inputs, min, max, num_bits, narrow_range)
    return jnp.where(inside, gradients, jnp.zeros_like(gradients))


def _args(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False):
    @jax.custom_vjp
    def f(x):
        return _quantize(x, min, max, num_bits, narrow_range, divide=False)

    def fwd(x):
        return f(x), x

    def bwd(x, g):
        return (_args_gradient(g, x, min, max, num_bits, narrow_range),)

    f.defvjp(fwd, bwd)
    return f(inputs)


_args_check, _args_runtime = _attr_check(with_range=True)

fake_quant_with_min_max_args = define(
    ("quantization.fake_quant_with_min_max_args", "fake_quant_with_min_max_args"),
    "FakeQuantWithMinMaxArgs",
    _args,
    params="inputs, min=-6, max=6, num_bits=8, narrow_range=False, name=None",
    tensors="inputs",
    allowed=_F32,
    check=_args_check,
    runtime_check=_args_runtime,
    tf_gradient="FakeQuantWithMinMaxArgsGradient: the gradient inside the nudged range",
)

fake_quant_with_min_max_args_gradient = define(
    (
        "quantization.fake_quant_with_min_max_args_gradient",
        "fake_quant_with_min_max_args_gradient",
    ),
    "FakeQuantWithMinMaxArgsGradient",
    _args_gradient,
    params="gradients, inputs, min=-6, max=6, num_bits=8, narrow_range=False, name=None",
    tensors="gradients inputs",
    allowed=_F32,
    check=_args_check,
    runtime_check=_args_runtime,
)


# -- FakeQuantWithMinMaxVars ------------------------------------------------------------
def _vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False):
    inside, below, above = _masks(inputs, min, max, num_bits, narrow_range)
    zero = jnp.zeros_like(gradients)
    both_zero = (min == 0) & (max == 0)  # TF: everything to the inputs
    return FakeQuantWithMinMaxVarsGradient(
        jnp.where(inside | both_zero, gradients, zero),
        jnp.where(both_zero, 0.0, jnp.sum(jnp.where(below, gradients, zero))).astype(jnp.float32),
        jnp.where(both_zero, 0.0, jnp.sum(jnp.where(above, gradients, zero))).astype(jnp.float32),
    )


def _vars(inputs, min, max, num_bits=8, narrow_range=False):
    @jax.custom_vjp
    def f(x, lo, hi):
        out = _quantize(x, lo, hi, num_bits, narrow_range, divide=True)
        return jnp.where((lo == 0) & (hi == 0), jnp.zeros_like(out), out)

    def fwd(x, lo, hi):
        return f(x, lo, hi), (x, lo, hi)

    def bwd(res, g):
        return tuple(_vars_gradient(g, *res, num_bits, narrow_range))

    f.defvjp(fwd, bwd)
    return f(inputs, min, max)


def _vars_checks(op_type: str, scalar: bool):
    bits_check, runtime = _attr_check(with_range=False)

    def check(arguments: dict[str, Any]) -> None:
        _rank_check(arguments, op_type, scalar)
        bits_check(arguments)

    return check, runtime


_vars_check, _vars_runtime = _vars_checks("FakeQuantWithMinMaxVars", scalar=True)

fake_quant_with_min_max_vars = define(
    ("quantization.fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars"),
    "FakeQuantWithMinMaxVars",
    _vars,
    params="inputs, min, max, num_bits=8, narrow_range=False, name=None",
    allowed=_F32,
    check=_vars_check,
    runtime_check=_vars_runtime,
    tf_gradient="FakeQuantWithMinMaxVarsGradient: straight through inside the nudged range, "
    "to min/max the sums below/above it",
)

_vars_grad_check, _vars_grad_runtime = _vars_checks("FakeQuantWithMinMaxVarsGradient", True)

fake_quant_with_min_max_vars_gradient = define(
    (
        "quantization.fake_quant_with_min_max_vars_gradient",
        "fake_quant_with_min_max_vars_gradient",
    ),
    "FakeQuantWithMinMaxVarsGradient",
    _vars_gradient,
    params="gradients, inputs, min, max, num_bits=8, narrow_range=False, name=None",
    allowed=_F32,
    check=_vars_grad_check,
    runtime_check=_vars_grad_runtime,
)


# -- FakeQuantWithMinMaxVarsPerChannel --------------------------------------------------
def _per_channel_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False):
    inside, below, above = _masks(inputs, min, max, num_bits, narrow_range)
    zero = jnp.zeros_like(gradients)
    both_zero = (min == 0) & (max == 0)
    axes = tuple(range(inputs.ndim - 1))
    return FakeQuantWithMinMaxVarsPerChannelGradient(
        jnp.where(inside | both_zero, gradients, zero),
        jnp.where(both_zero, 0.0, jnp.sum(jnp.where(below, gradients, zero), axes)).astype(
            jnp.float32
        ),
        jnp.where(both_zero, 0.0, jnp.sum(jnp.where(above, gradients, zero), axes)).astype(
            jnp.float32
        ),
    )


def _per_channel(inputs, min, max, num_bits=8, narrow_range=False):
    @jax.custom_vjp
    def f(x, lo, hi):
        out = _quantize(x, lo, hi, num_bits, narrow_range, divide=False)
        return jnp.where((lo == 0) & (hi == 0), jnp.zeros_like(out), out)

    def fwd(x, lo, hi):
        return f(x, lo, hi), (x, lo, hi)

    def bwd(res, g):
        return tuple(_per_channel_gradient(g, *res, num_bits, narrow_range))

    f.defvjp(fwd, bwd)
    return f(inputs, min, max)


_pc_check, _pc_runtime = _vars_checks("FakeQuantWithMinMaxVarsPerChannel", scalar=False)

fake_quant_with_min_max_vars_per_channel = define(
    (
        "quantization.fake_quant_with_min_max_vars_per_channel",
        "fake_quant_with_min_max_vars_per_channel",
    ),
    "FakeQuantWithMinMaxVarsPerChannel",
    _per_channel,
    params="inputs, min, max, num_bits=8, narrow_range=False, name=None",
    allowed=_F32,
    check=_pc_check,
    runtime_check=_pc_runtime,
    tf_gradient="FakeQuantWithMinMaxVarsPerChannelGradient: straight through inside each "
    "channel's nudged range, to min/max the per-channel sums below/above it",
)

_pc_grad_check, _pc_grad_runtime = _vars_checks(
    "FakeQuantWithMinMaxVarsPerChannelGradient", scalar=False
)

fake_quant_with_min_max_vars_per_channel_gradient = define(
    (
        "quantization.fake_quant_with_min_max_vars_per_channel_gradient",
        "fake_quant_with_min_max_vars_per_channel_gradient",
    ),
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    _per_channel_gradient,
    params="gradients, inputs, min, max, num_bits=8, narrow_range=False, name=None",
    allowed=_F32,
    check=_pc_grad_check,
    runtime_check=_pc_grad_runtime,
)


# -- QuantizeAndDequantizeV2 / V4 -------------------------------------------------------
# ``tf.quantization.quantize_and_dequantize`` (op V2: gradient straight through) and
# ``quantize_and_dequantize_v2`` (op V4: gradient inside ``[input_min, input_max]``).
# TF's kernel (``quantize_and_dequantize_op.h``), in ``input``'s dtype: with
# ``q_min, q_max`` the integer grid (``[-2**(b-1) (+1 narrow), 2**(b-1) - 1]`` signed,
# ``[0, 2**b - 1]`` unsigned) and ``[m, M]`` the given range (``range_given``) or the
# input's (per ``axis`` channel), the scale is the smaller of ``q_min / m`` and
# ``q_max / M`` (each only where the product is positive), the other end of the range
# moves to match it, and ``out = round(clip(x, m, M) * scale) * (1 / scale)`` (no clip
# without ``range_given``; ``round`` half to even, or ``floor(x + 0.5)`` for
# ``HALF_UP``; ``1 / scale`` computed as ``m / q_min`` or ``M / q_max``).
_QDQ_ROUND = ("HALF_TO_EVEN", "HALF_UP")


def _qdq_grid(signed_input: bool, num_bits: int, narrow_range: bool) -> tuple[int, int]:
    if signed_input:
        low = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        return low, (1 << (num_bits - 1)) - 1
    return 0, (1 << num_bits) - 1


def _qdq(
    input,
    input_min,
    input_max,
    signed_input=True,
    num_bits=8,
    range_given=False,
    round_mode="HALF_TO_EVEN",
    narrow_range=False,
    axis=None,
):
    dtype = input.dtype
    if input.size == 0:  # TF: an empty output, no range to measure
        return input
    axis = _qdq_axis(axis, input.ndim)
    q_min, q_max = _qdq_grid(bool(signed_input), int(num_bits), bool(narrow_range))
    one = axis == -1  # one scale for the whole tensor
    shape = () if one else tuple(input.shape[axis] if d == axis else 1 for d in range(input.ndim))
    reduce = None if one else tuple(d for d in range(input.ndim) if d != axis)
    if range_given:
        lo = jnp.asarray(input_min, dtype).reshape(shape)
        hi = jnp.asarray(input_max, dtype).reshape(shape)
    else:
        lo = jnp.min(input, axis=reduce).reshape(shape)
        hi = jnp.max(input, axis=reduce).reshape(shape)
    qmin = jnp.asarray(q_min, dtype)
    qmax = jnp.asarray(q_max, dtype)
    big = jnp.asarray(jnp.finfo(dtype).max, dtype)
    from_min = jnp.where(qmin * lo > 0, kernel_divide(qmin, lo), big)
    from_max = jnp.where(qmax * hi > 0, kernel_divide(qmax, hi), big)
    use_min = from_min < from_max
    scale = jnp.where(use_min, from_min, from_max)
    inverse = jnp.where(use_min, kernel_divide(lo, qmin), kernel_divide(hi, qmax))
    lo, hi = jnp.where(use_min, lo, qmin * inverse), jnp.where(use_min, qmax * inverse, hi)
    x = jnp.maximum(jnp.minimum(input, hi), lo) if range_given else input
    scaled = x * scale
    if round_mode == "HALF_UP":
        rounded = jnp.floor(scaled + jnp.asarray(0.5, dtype))
    else:
        rounded = jnp.round(scaled)
    return (rounded * inverse).astype(dtype)


def _qdq_axis(axis: Any, rank: int) -> int:
    """TF's Python: ``None`` is -1 (one scale); a negative axis counts from the end."""
    if axis is None:
        return -1
    return int(axis) % rank if int(axis) < 0 else int(axis)


def _qdq_checks(op_type: str):
    """TF's graph-construction checks (``round_mode``, the ranges' shapes) and run-time
    ones (``num_bits``; ``input_min > input_max`` with ``range_given``)."""

    def check(arguments: dict[str, Any]) -> None:
        if arguments["round_mode"] not in _QDQ_ROUND:
            raise OpValueError(
                f"Attr 'round_mode' of '{op_type}' Op passed string "
                f'\'{arguments["round_mode"]}\' not in: "HALF_TO_EVEN", "HALF_UP".'
            )
        x = arguments["input"]
        axis = arguments["axis"]
        if axis is not None and int(axis) < 0 and x.get_shape().ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        want = 0 if axis is None else 1  # TF's Python: an axis of -1 is the last one
        for param in ("input_min", "input_max"):
            rank = arguments[param].get_shape().ndims
            if rank is not None and rank != want:
                raise OpValueError(f"Shape must be rank {want} but is rank {rank} for '{op_type}'")
        if want == 1 and x.get_shape().ndims is not None:
            depth = x.get_shape().as_list()[_qdq_axis(axis, x.get_shape().ndims)]
            for param in ("input_min", "input_max"):
                size = arguments[param].get_shape().as_list()[0]
                if None not in (size, depth) and size != depth:
                    raise OpValueError(
                        f"Dimensions must be equal, but are {size} and {depth} for '{op_type}'"
                    )
        bits, signed = int(arguments["num_bits"]), bool(arguments["signed_input"])
        if not 0 < bits < (62 if signed else 63):
            message = f"num_bits is out of range: {bits} with signed_input_ {int(signed)}"
        elif arguments["range_given"] and want == 1:
            # TF 2.21 refuses a given per-channel range (measured; its docs allow it)
            message = "input_min must be a scalar."
        else:
            message = "range" if arguments["range_given"] else None
        _BAD_ATTRS.message = message

    def test(input, input_min, input_max, signed_input, num_bits, range_given, *rest: Any):
        bits, axis = int(num_bits), rest[-1]
        per_channel = axis is not None and _qdq_axis(axis, input.ndim) != -1
        if not 0 < bits < (62 if signed_input else 63) or per_channel:
            return jnp.asarray(False), (jnp.zeros((), input.dtype), jnp.zeros((), input.dtype))
        bad = jnp.asarray(input_min) > jnp.asarray(input_max)
        first = jnp.argmax(bad.reshape(-1))
        return ~jnp.any(bad), (
            jnp.asarray(input_min).reshape(-1)[first],
            jnp.asarray(input_max).reshape(-1)[first],
        )

    def error(op: Any, lo: Any, hi: Any) -> Any:
        if op._fake_quant_error != "range":
            return errors.InvalidArgumentError(None, op, op._fake_quant_error)
        return errors.InvalidArgumentError(
            None, op, f"Invalid range: input_min {lo.item():g} > input_max {hi.item():g}"
        )

    def applies(op: Any) -> bool:
        message, _BAD_ATTRS.message = getattr(_BAD_ATTRS, "message", None), None
        op._fake_quant_error = message
        return message is not None

    return check, (test, error, applies)


def _qdq_v2(input, input_min, input_max, signed_input=True, num_bits=8, range_given=False,
            round_mode="HALF_TO_EVEN", narrow_range=False, axis=None):  # fmt: skip
    @jax.custom_vjp
    def f(x, lo, hi):
        return _qdq(x, lo, hi, signed_input, num_bits, range_given, round_mode, narrow_range, axis)

    def fwd(x, lo, hi):
        return f(x, lo, hi), (lo, hi)

    def bwd(res, g):  # TF's QuantizeAndDequantizeV2 gradient: [grad, None, None]
        return g, jnp.zeros_like(res[0]), jnp.zeros_like(res[1])

    f.defvjp(fwd, bwd)
    return f(input, input_min, input_max)


def _qdq_v4(input, input_min, input_max, signed_input=True, num_bits=8, range_given=False,
            round_mode="HALF_TO_EVEN", narrow_range=False, axis=None):  # fmt: skip
    @jax.custom_vjp
    def f(x, lo, hi):
        return _qdq(x, lo, hi, signed_input, num_bits, range_given, round_mode, narrow_range, axis)

    def fwd(x, lo, hi):
        return f(x, lo, hi), (x, lo, hi)

    def bwd(res, g):  # TF's QuantizeAndDequantizeV4Grad: inside the given range
        x, lo, hi = res
        where = _qdq_axis(axis, x.ndim)
        shape = () if where == -1 else tuple(-1 if d == where else 1 for d in range(x.ndim))
        inside = (x >= lo.reshape(shape)) & (x <= hi.reshape(shape))
        return jnp.where(inside, g, jnp.zeros_like(g)), jnp.zeros_like(lo), jnp.zeros_like(hi)

    f.defvjp(fwd, bwd)
    return f(input, input_min, input_max)


_QDQ_PARAMS = (
    "input, input_min, input_max, signed_input=True, num_bits=8, range_given=False, "
    "round_mode='HALF_TO_EVEN', name=None, narrow_range=False, axis=None"
)
_qdq2_check, _qdq2_runtime = _qdq_checks("QuantizeAndDequantizeV2")
_qdq4_check, _qdq4_runtime = _qdq_checks("QuantizeAndDequantizeV4")

quantize_and_dequantize = define(
    "quantization.quantize_and_dequantize",
    "QuantizeAndDequantizeV2",
    _qdq_v2,
    params=_QDQ_PARAMS,
    tensors="input input_min input_max",
    allowed=FLOATING,
    check=_qdq2_check,
    runtime_check=_qdq2_runtime,
    tf_gradient="QuantizeAndDequantizeV2: the gradient passes through unchanged",
)

quantize_and_dequantize_v2 = define(
    "quantization.quantize_and_dequantize_v2",
    "QuantizeAndDequantizeV4",
    _qdq_v4,
    params=_QDQ_PARAMS,
    tensors="input input_min input_max",
    allowed=FLOATING,
    check=_qdq4_check,
    runtime_check=_qdq4_runtime,
    tf_gradient="QuantizeAndDequantizeV4Grad: the gradient where input_min <= x <= input_max "
    "(the given range, whatever range_given), zeros to input_min/input_max",
)
