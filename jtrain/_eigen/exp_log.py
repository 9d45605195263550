"""TF's CPU ``Exp``, ``Log``, ``Expm1``, ``Log1p`` and ``Softplus``: Eigen's float32 packet math.

TF's kernels evaluate Eigen's ``pexp_float`` / ``plog_float`` (Cephes-style range
reduction and polynomial, ``Eigen/src/Core/arch/Default/GenericPacketMathFunctions.h``)
on packets of 8 ``float32``, each multiply rounded before its add (the x86 wheels are
built without FMA), and ``expm1`` / ``log1p`` from them by Kahan's formulas. ``float16``
and ``bfloat16`` packets are widened to ``float32``, computed so and rounded back.

The last ``size % 8`` elements of a tensor (and rank-0 tensors) do not fill a packet:
Eigen hands them to the scalar C library. glibc's ``expf`` and ``logf`` are reproduced
bit for bit (:mod:`jtrain._eigen._libm`); the other functions' (``expm1f``, ``log1pf``),
nearly always the correctly rounded values, are computed in float64. ``float64`` and
complex values keep XLA's functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jtrain._eigen import _libm, on_cpu, tanh_logistic
from jtrain._eigen._packet import madd as _madd
from jtrain._eigen._packet import packets as _packets
from jtrain._eigen.trig import _reciprocal as _tf_reciprocal
from jtrain._eigen.trig import _step
from jtrain._numerics import rounded, rounded_nonnegative

__all__ = ["elu", "exp", "expm1", "log", "log1p", "selu", "softplus"]

_F32 = np.float32
_HALF_TYPES = (jnp.float16, jnp.bfloat16)


def _exp_f32(x: jax.Array) -> jax.Array:
    """Eigen's ``pexp_float`` on float32.

    Elementwise: Eigen's packet-wide choice between its two ``pldexp`` does not change
    the value of an element where both apply.

    Eigen scales the polynomial by ``2**m`` as two products by powers of two, then takes
    the maximum with ``x`` and zero below -104; here the second product is a division by
    the reciprocal power of two (both exact before their one rounding, flushed alike:
    the same bits, ``tests/test_eigen_exp_log.py``) and the rest is folded into its
    operands, so that a division is the last operation. XLA's fusion copies a chain of
    cheap operations into each of its readers but never a division: a result that
    several readers take (a softmax kernel's row sums and backprop, ``exp``'s own
    gradient) is evaluated once and stored (a sparse cross entropy's step over
    ``[400, 2000]`` evaluated the polynomial three times). It is also fewer operations:
    CPU time over 800,000 values 1.12-1.15 against 1.18-1.22 ms, with its gradient 2.04-2.06
    against 2.47-2.53 ms (2 cores).
    """
    y, half, e, below = _exp_parts(x)
    # 0 / 1 below -104 (where m may be anything). Eigen's max with x only passes a NaN
    # on (exp(x) > x for every finite x; from 88.723 up the product overflows to inf),
    # which the arithmetic here carries already.
    scaled = jnp.where(below, _F32(0), y * _power_of_two(half))
    return scaled / jnp.where(below, _F32(1), _power_of_two(half - e))


def _exp_parts(x: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """``pexp_float``'s polynomial ``y``, the exponent ``e`` (``m`` as an int32) and its
    half ``e >> 1`` for ``pldexp``, and the mask of ``x`` below -104 (exp 0)."""
    clamped = jnp.minimum(x, _F32(88.723))
    m = jnp.floor(_madd(clamped, _F32(1.44269504088896341), _F32(0.5)))
    r = _madd(m, _F32(-0.693359375), clamped)
    r = _madd(m, _F32(2.12194440e-4), r)
    r2 = rounded_nonnegative(r * r)
    p_even = _madd(
        r2, _F32(1.37449637986719608306884765625e-3), _F32(4.166965186595916748046875e-2)
    )
    p_odd = _madd(r2, _F32(8.36894474923610687255859375e-3), _F32(0.16666518151760101318359375))
    p_even = _madd(r2, p_even, _F32(0.49999988079071044921875))
    p_low = r + _F32(1)
    y = _madd(r, p_odd, p_even)
    y = _madd(r2, y, p_low)
    # pldexp: y * 2**m. m is in [-150, 128] (x below -104 gives 0): two factors of normal
    # powers of two, of which only the last operation can round (a denormal result,
    # flushed to zero as in TF's threads), as Eigen's four.
    # m as an integer by the 1.5 * 2**23 trick (cheaper on CPUs than XLA's saturating
    # conversion); m is integral and, for the values that matter, small.
    magic = _F32(1.5 * 2**23)
    e = lax.bitcast_convert_type(m + magic, jnp.int32) - lax.bitcast_convert_type(magic, jnp.int32)
    half = lax.shift_right_arithmetic(e, jnp.int32(1))
    return y, half, e, x < _F32(-104)


def _power_of_two(exponent: jax.Array) -> jax.Array:
    """``2.0 ** exponent`` (int32, biased result in [1, 254]) built from its bits."""
    return lax.bitcast_convert_type(lax.shift_left(exponent + 127, jnp.int32(23)), jnp.float32)


def _log_f32(x: jax.Array) -> jax.Array:
    """Eigen's ``plog_float`` on float32."""
    # pfrexp: mantissa in [0.5, 1), exponent (denormals scaled by 2**24 first).
    denormal = jnp.abs(x) < _F32(np.finfo(np.float32).tiny)
    normalized = jnp.where(denormal, x * _F32(2**24), x)
    bits = lax.bitcast_convert_type(normalized, jnp.int32)
    biased = lax.shift_right_logical(bits & 0x7FFFFFFF, jnp.int32(23))
    special = (x == 0) | (biased == 255)
    mantissa = lax.bitcast_convert_type((bits & ~0x7F800000) | 0x3F000000, jnp.float32)
    mantissa = jnp.where(special, x, mantissa)
    offset = jnp.where(denormal, _F32(-150), _F32(-126))
    e = jnp.where(special, _F32(0), biased.astype(jnp.float32) + offset)
    # Shift [0.5, 1) to [sqrt(1/2), sqrt(2)) - 1.
    low = mantissa < _F32(0.707106781186547524)
    f = mantissa - _F32(1)
    e = e - jnp.where(low, _F32(1), _F32(0))
    f = f + jnp.where(low, mantissa, _F32(0))
    p = _madd(
        _madd(f, _F32(0.18256296349849254), _F32(1.0000000190281063)), f, _F32(1.0000000190281136)
    )
    p = f * p
    q = _madd(f, _F32(0.049616247954120038), _F32(0.59923249590823520))
    q = _madd(_madd(q, f, _F32(1.4999999999999927)), f, _F32(1))
    y = _madd(e, _F32(np.log(2.0)), p / q)
    y = jnp.where(x == _F32(np.inf), x, y)
    y = jnp.where((x < 0) | jnp.isnan(x), _F32(np.nan), y)
    return jnp.where(x == 0, _F32(-np.inf), y)


def _expm1_f32(x: jax.Array) -> jax.Array:
    """Eigen's ``generic_expm1`` (Kahan) on its ``pexp`` / ``plog``."""
    u = _exp_f32(x)
    u_minus_one = u - _F32(1)
    log_u = _log_f32(u)
    out = u_minus_one * (x / log_u)
    out = jnp.where(log_u == u, u, out)  # exp(x) = +inf
    out = jnp.where(u_minus_one == _F32(-1), _F32(-1), out)
    return jnp.where(u == _F32(1), x, out)


def _log1p_f32(x: jax.Array) -> jax.Array:
    """Eigen's ``generic_log1p`` (Kahan) on its ``plog``."""
    # The barrier keeps XLA from simplifying (x + 1) - 1 to x.
    x_plus_one = rounded(x + _F32(1))
    log1 = _log_f32(x_plus_one)
    out = x * (log1 / (x_plus_one - _F32(1)))
    # TF's kernel returns a denormal x flushed to a zero of its sign (measured).
    x = jnp.where(jnp.abs(x) < _F32(np.finfo(np.float32).tiny), x * _F32(0), x)
    return jnp.where((x_plus_one == _F32(1)) | (x_plus_one == log1), x, out)


def _softplus_threshold(dtype: Any) -> Any:
    """TF's ``Softplus`` threshold ``log(epsilon) + 2`` in ``dtype``."""
    # Eigen's NumTraits<half>::epsilon() is 2**-13, not float16's 2**-10.
    eps = np.float32(2**-13) if dtype == jnp.float16 else jnp.finfo(dtype).eps
    return (np.asarray(np.log(np.float32(eps)), dtype) + np.asarray(2, dtype)).astype(dtype)


def _softplus_f32(x: jax.Array, threshold: Any) -> jax.Array:
    """TF's ``Softplus`` functor on Eigen's float32 packets."""
    e = _exp_f32(x)
    return jnp.where(x > -threshold, x, jnp.where(x < threshold, e, _log1p_f32(e)))


def _softplus_half(x: jax.Array, threshold: Any) -> jax.Array:
    """TF's ``Softplus`` functor on float16 / bfloat16: each Eigen function widens its
    packet to float32 and rounds its result back."""

    def in_float32(fn: Callable[[jax.Array], jax.Array]) -> Callable[[jax.Array], jax.Array]:
        return lambda v: fn(v.astype(jnp.float32)).astype(x.dtype)

    e = _packets(in_float32(_exp_f32), in_float32(_libm.expf))(x)
    log1p_e = _packets(in_float32(_log1p_f32), in_float32(_c_library(jnp.log1p)))(e)
    return jnp.where(x > -threshold, x, jnp.where(x < threshold, e, log1p_e))


def _softplus_scalar(x: jax.Array, threshold: Any) -> jax.Array:
    """TF's ``Softplus`` functor on float32 scalars: glibc's ``expf`` and ``log1pf``."""
    e = _libm.expf(x)
    return jnp.where(x > -threshold, x, jnp.where(x < threshold, e, _c_library(jnp.log1p)(e)))


def _softplus_xla(x: jax.Array, threshold: Any) -> jax.Array:
    e = jnp.exp(x)
    return jnp.where(x > -threshold, x, jnp.where(x < threshold, e, jnp.log1p(e)))


def _c_library(fn: Callable[[jax.Array], jax.Array]) -> Callable[[jax.Array], jax.Array]:
    """``fn`` of float32 values in float64, rounded to float32: glibc's ``expm1f``,
    ``log1pf``... which TF's scalar path calls are (nearly always) the correctly rounded
    values."""

    def wide(x: jax.Array) -> jax.Array:
        with jax.enable_x64(True):  # float64 whatever jax_enable_x64 says (scoped)
            return fn(x.astype(jnp.float64)).astype(jnp.float32)

    return wide


def _elementwise(
    eigen_f32: Callable[[jax.Array], jax.Array],
    xla_fn: Callable[[jax.Array], jax.Array],
    scalar_f32: Callable[[jax.Array], jax.Array] | None = None,
) -> Callable[[Any], jax.Array]:
    """An elementwise function: Eigen's on float32 (and half types through float32) on a
    CPU, the C library's on the scalar tail (``scalar_f32``, or ``xla_fn`` in float64);
    XLA's elsewhere and for other dtypes."""
    cpu = _packets(eigen_f32, scalar_f32 or _c_library(xla_fn))

    def half_cpu(x: jax.Array) -> jax.Array:
        return cpu(x.astype(jnp.float32)).astype(x.dtype)

    def fn(x: Any) -> jax.Array:
        x = jnp.asarray(x)
        if x.dtype == jnp.float32:
            return on_cpu(cpu, xla_fn)(x)
        if x.dtype in _HALF_TYPES:
            return on_cpu(half_cpu, xla_fn)(x)
        return xla_fn(x)

    return fn


_exp = _elementwise(_exp_f32, jnp.exp, _libm.expf)
_expm1 = _elementwise(_expm1_f32, jnp.expm1)
_log = _elementwise(_log_f32, jnp.log, _libm.logf)
_log1p = _elementwise(_log1p_f32, jnp.log1p)


def _with_gradient(op: Any, grad: Callable[[jax.Array, jax.Array, jax.Array], jax.Array]) -> None:
    """Gives the ``custom_vjp`` ``op`` TF's gradient ``grad(g, x, y)`` (``y = op(x)``)."""

    def fwd(x: Any) -> tuple:
        y = op(x)
        return y, (jnp.asarray(x), y)

    def bwd(residuals: tuple, g: jax.Array) -> tuple:
        x, y = residuals
        # TF's gradient is a product (Mul): rounded before the sum it may flow into.
        return (rounded(grad(g, x, y)).astype(x.dtype),)

    op.defvjp(fwd, bwd)


@jax.custom_vjp
def exp(x: Any) -> jax.Array:
    """``e ** x`` as TF's CPU ``Exp`` kernel computes it (Eigen's ``pexp_float``).

    Args:
      x: a float or complex array.

    Returns:
      ``exp(x)``, ``x``'s dtype; its gradient is TF's ``_ExpGrad``, ``grad * y``.
    """
    return _exp(x)


@jax.custom_vjp
def expm1(x: Any) -> jax.Array:
    """``e ** x - 1`` as TF's CPU ``Expm1`` kernel computes it (Eigen's ``generic_expm1``).

    Args:
      x: a float or complex array.

    Returns:
      ``expm1(x)``, ``x``'s dtype; its gradient is TF's ``_Expm1Grad``, ``grad * exp(x)``.
    """
    return _expm1(x)


@jax.custom_vjp
def log(x: Any) -> jax.Array:
    """The natural logarithm as TF's CPU ``Log`` kernel computes it (Eigen's ``plog_float``).

    Args:
      x: a float or complex array.

    Returns:
      ``log(x)``, ``x``'s dtype (``-inf`` at 0, NaN below); its gradient is TF's
      ``_LogGrad``, ``grad * reciprocal(x)`` (TF's ``Reciprocal`` kernel: the processor's
      estimate and a Newton step).
    """
    return _log(x)


@jax.custom_vjp
def log1p(x: Any) -> jax.Array:
    """``log(1 + x)`` as TF's CPU ``Log1p`` kernel computes it (Eigen's ``generic_log1p``).

    Args:
      x: a float or complex array.

    Returns:
      ``log1p(x)``, ``x``'s dtype; its gradient is TF's ``_Log1pGrad``,
      ``grad * reciprocal(1 + x)`` (as :func:`log`'s).
    """
    return _log1p(x)


@jax.custom_vjp
def softplus(x: Any) -> jax.Array:
    """TF's ``Softplus`` kernel: ``x`` above ``-(log(eps) + 2)``, ``exp(x)`` below
    ``log(eps) + 2``, ``log1p(exp(x))`` between (Eigen's packet math on float32 CPUs).

    Args:
      x: a float array.

    Returns:
      ``softplus(x)``, ``x``'s dtype; its gradient is TF's ``_SoftplusGrad``,
      ``grad * sigmoid(x)`` (TF's ``Sigmoid`` kernel).
    """
    x = jnp.asarray(x)
    threshold = _softplus_threshold(x.dtype)
    xla = lambda v: _softplus_xla(v, threshold)  # noqa: E731
    if x.dtype == jnp.float32:
        scalar = lambda v: _softplus_scalar(v, threshold)  # noqa: E731
        return on_cpu(_packets(lambda v: _softplus_f32(v, threshold), scalar), xla)(x)
    if x.dtype in _HALF_TYPES:
        return on_cpu(lambda v: _softplus_half(v, threshold), xla)(x)
    return xla(x)


_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123


@jax.custom_vjp
def elu(features: Any) -> jax.Array:
    """TF's ``Elu`` kernel: ``x < 0 ? exp(x) - 1 : x`` (its ``exp``, not ``expm1``).

    Args:
      features: a float array.

    Returns:
      ``elu(features)``, its dtype; the gradient is TF's ``EluGrad`` of the output ``y``:
      ``y < 0 ? (y + 1) * grad : grad``.
    """
    features = jnp.asarray(features)
    one = jnp.ones((), features.dtype)
    return jnp.where(features < 0, exp(features) - one, features)


@jax.custom_vjp
def selu(features: Any) -> jax.Array:
    """TF's ``Selu`` kernel: ``x < 0 ? scale * alpha * (exp(x) - 1) : scale * x``.

    Args:
      features: a float array.

    Returns:
      ``selu(features)``, its dtype; the gradient is TF's ``SeluGrad`` of the output
      ``y``: ``y < 0 ? grad * (y + scale * alpha) : grad * scale``.
    """
    features = jnp.asarray(features)
    scale_alpha = jnp.asarray(_SELU_SCALE_ALPHA, features.dtype)
    scale = jnp.asarray(_SELU_SCALE, features.dtype)
    expm1 = exp(features) - jnp.ones((), features.dtype)
    return jnp.where(features < 0, scale_alpha * expm1, scale * features)


def _elu_grad(g: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.where(y < 0, (y + jnp.ones((), y.dtype)) * g, g)


def _selu_grad(g: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
    scale_alpha = jnp.asarray(_SELU_SCALE_ALPHA, y.dtype)
    return jnp.where(y < 0, g * (y + scale_alpha), g * jnp.asarray(_SELU_SCALE, y.dtype))


def _plus_one(x: jax.Array) -> jax.Array:
    return x + jnp.ones((), x.dtype)


_with_gradient(exp, lambda g, x, y: g * y)
_with_gradient(expm1, lambda g, x, y: g * exp(x))
_with_gradient(log, lambda g, x, y: g * _tf_reciprocal(x))
_with_gradient(log1p, lambda g, x, y: g * _tf_reciprocal(_step(_plus_one, x)))
_with_gradient(softplus, lambda g, x, y: g * tanh_logistic.logistic(x))
_with_gradient(elu, _elu_grad)
_with_gradient(selu, _selu_grad)
