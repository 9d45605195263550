"""TF's CPU ``Tanh``, ``Sigmoid`` and their gradients (``TanhGrad``, ``SigmoidGrad``), bit for bit.

TF 2.21's CPU kernels evaluate Eigen's functors (the headers its wheel ships):

- ``Tanh`` (``scalar_tanh_op``): ``ptanh_float``, a [9/8] rational approximation of
  ``x`` clamped to +-7.90738964 (the AVX build without FMA). Eigen's scalar ``tanh`` of a
  float is the same function, so the elements that do not fill a packet agree too.
- ``Sigmoid`` (``scalar_logistic_op<float>``): ``exp(x) / (1 + exp(x))`` with its own
  ``exp``: ``x`` clamped to 16.6355324, halved, reduced by ``m * ln 2`` (Cephes' two
  parts), a degree-5 polynomial, scaled by ``2**m`` and squared; 0 below -104. The
  elements that do not fill a packet of 8 take the scalar path, the C library's
  ``expf``, for which a float64 ``exp`` rounded stands in (13 of 42,000 such elements
  differ from TF's by an ulp).
- ``TanhGrad(y, dy) = dy * (1 - y * y)``, ``SigmoidGrad(y, dy) = dy * (y * (1 - y))``
  (the packet order; the scalar one multiplies ``dy * y`` first).

Every product is rounded before it meets an addition (TF's build has no FMA:
:func:`jtrain._numerics.rounded`, or ``|a * b|`` where the product cannot be negative,
one operation instead of four). float16 and bfloat16 are computed in float32 and
rounded, as Eigen's half packets do (``Sigmoid``: ``exp`` in float32, the quotient in
the half type). float64 and complex values keep XLA's functions (the gradient of a
float64 one TF's formula). Measured against TF 2.21 on 600,068 values per dtype
(scales 0.01 to 60 and the edges): float32, float16 and bfloat16 values and both
gradients identical to the bit.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jtrain._eigen import on_cpu
from jtrain._eigen._packet import madd as _madd
from jtrain._eigen._packet import packets as _packets
from jtrain._numerics import rounded, rounded_nonnegative

__all__ = ["logistic", "logistic_grad", "tanh", "tanh_grad"]

_F32 = np.float32

# ptanh_float (Eigen/src/Core/arch/Default/GenericPacketMathFunctions.h), no FMA.
_TANH_CLAMP = _F32(7.90738964080810547)
_TANH_ALPHA = tuple(
    _F32(c) for c in (1.394553628e-8, 2.102733560e-5, 3.520756727e-3, 1.340216100e-1)
)
_TANH_BETA = tuple(
    _F32(c) for c in (8.015776984e-7, 3.326951409e-4, 2.597254514e-2, 4.673548340e-1, 1.0)
)

# scalar_logistic_op<float> (Eigen/src/Core/functors/UnaryFunctors.h).
_EXP_HI = _F32(16.6355324)
_EXP_LO = _F32(-104.0)
_LOG2E = _F32(1.44269504088896341)
_C1 = _F32(-0.693359375)
_C2 = _F32(2.12194440e-4)
_P2 = _F32(0.49999141693115234375)
_P3 = _F32(0.16666877269744873046875)
_P4 = _F32(4.1898667812347412109375e-2)
_P5 = _F32(8.33471305668354034423828125e-3)


def _madd_nonnegative(
    a: jax.Array, b: jax.Array | np.float32, c: jax.Array | np.float32
) -> jax.Array:
    """``pmadd`` of a product that cannot be negative: ``|a * b|`` is the product, and a
    barrier XLA keeps (it drops ``|.|`` only of values it can tell are not negative) at
    one element operation where :func:`rounded` costs four."""
    return jnp.abs(a * b) + c


def _polevl(x: jax.Array, coeffs: tuple[np.float32, ...]) -> jax.Array:
    """Eigen's ``ppolevl`` (Horner's scheme, highest coefficient first) of a ``x >= 0``
    and positive coefficients."""
    p = jnp.full_like(x, coeffs[0])
    for c in coeffs[1:]:
        p = _madd_nonnegative(p, x, c)
    return p


def _tanh_f32(x: jax.Array) -> jax.Array:
    # Every step of ptanh_float is odd in x and rounds symmetrically: computed on |x|,
    # whose products are not negative, the sign put back after (NaN stays NaN).
    a = jnp.minimum(jnp.abs(x), _TANH_CLAMP)
    a2 = a * a
    a3 = a2 * a
    p = _polevl(a2, _TANH_ALPHA)
    q = _polevl(a2, _TANH_BETA)
    return jnp.copysign(_madd_nonnegative(a3, p, a) / q, x)


def _logistic_f32(x: jax.Array) -> jax.Array:
    below = x < _EXP_LO
    x = jnp.minimum(x, _EXP_HI) * _F32(0.5)
    m = jnp.floor(_madd(x, _LOG2E, _F32(0.5)))
    r = _madd(m, _C1, x)
    r = _madd(m, _C2, r)
    r2 = r * r
    p_even = _madd_nonnegative(r2, _P4, _P2)
    p_odd = _madd_nonnegative(r2, _P5, _P3)
    p_low = r + _F32(1)
    p = _madd(r, p_odd, p_even)  # > 0.44: |r| < 0.35
    p = _madd_nonnegative(r2, p, p_low)
    # pldexp_fast: 2**m built from its biased exponent bits (m is in [-75, 12] here).
    biased = jnp.clip(m + _F32(127), _F32(0), _F32(255)).astype(jnp.int32)
    e = p * lax.bitcast_convert_type(biased << 23, jnp.float32)
    e = e * e
    return jnp.where(below, jnp.zeros_like(e), e / (_F32(1) + e))


def _scalar_logistic_f32(x: jax.Array) -> jax.Array:
    """Eigen's scalar ``logistic`` of a float: ``e / (1 + e)`` with ``e`` the C library's
    ``expf(min(x, 16.6355324))``, correctly rounded but for rare cases (measured against
    TF 2.21 on 42,000 such elements: 13 differ); a float64 ``exp`` rounded stands in."""
    with jax.enable_x64(True):  # float64 whatever jax_enable_x64 says (scoped)
        e = jnp.exp(jnp.minimum(x, _EXP_HI).astype(jnp.float64)).astype(jnp.float32)
    return e / (_F32(1) + e)


def _in_float32(fn: Callable[[jax.Array], jax.Array], x: jax.Array) -> jax.Array:
    """``fn`` on float32 values: float16/bfloat16 widened and rounded back, float64 and
    complex values left to the caller."""
    return fn(x.astype(jnp.float32)).astype(x.dtype)


def _eigen_tanh(x: jax.Array) -> jax.Array:
    if x.dtype == jnp.float32:
        return _tanh_f32(x)
    return _in_float32(_tanh_f32, x)


def _eigen_logistic(x: jax.Array) -> jax.Array:
    if x.dtype == jnp.float32:
        return _packets(_logistic_f32, _scalar_logistic_f32)(x)
    # Half types: Eigen's generic functor on half packets, each step rounded to the
    # half type: e = exp(x) (float32 exp, rounded), 1 where e is inf, else e / (1 + e).
    e = jnp.exp(x.astype(jnp.float32)).astype(x.dtype)
    one = jnp.ones((), x.dtype)
    return jnp.where(jnp.isinf(e), one, e / (one + e))


def _eigen_dtype(x: jax.Array) -> bool:
    return x.dtype in (jnp.float32, jnp.float16, jnp.bfloat16)


def tanh(x: jax.Array) -> jax.Array:
    """``tf.tanh`` as TF's CPU kernel computes it (Eigen's ``ptanh_float``).

    Args:
      x: a tensor of a floating or complex dtype.

    Returns:
      ``tanh(x)``, of ``x``'s dtype: on CPUs Eigen's approximation for float32,
      float16 and bfloat16 (the half types through float32), XLA's elsewhere and for
      float64 and complex values. The derivative of a real ``tanh`` is TF's
      ``TanhGrad`` (:func:`tanh_grad`).
    """
    x = jnp.asarray(x)
    if jnp.iscomplexobj(x):
        return jnp.tanh(x)
    return _tanh(x)


@jax.custom_vjp
def _tanh(x: jax.Array) -> jax.Array:
    if not _eigen_dtype(x):
        return jnp.tanh(x)
    return on_cpu(_eigen_tanh, jnp.tanh)(x)


def _tanh_fwd(x: jax.Array) -> tuple:
    y = _tanh(x)
    return y, y


def _tanh_bwd(y: jax.Array, dy: jax.Array) -> tuple:
    return (tanh_grad(y, dy),)


_tanh.defvjp(_tanh_fwd, _tanh_bwd)


def logistic(x: jax.Array) -> jax.Array:
    """``tf.sigmoid`` as TF's CPU kernel computes it (Eigen's ``scalar_logistic_op``).

    Args:
      x: a tensor of a floating or complex dtype.

    Returns:
      ``1 / (1 + exp(-x))``, of ``x``'s dtype: on CPUs Eigen's evaluation for float32
      (the packet path where a packet of 8 is full, the scalar one on the last
      ``size % 8`` elements), float16 and bfloat16 as Eigen's half packets compute it;
      XLA's elsewhere and for float64 and complex values. The derivative of a real
      ``sigmoid`` is TF's ``SigmoidGrad`` (:func:`logistic_grad`).
    """
    x = jnp.asarray(x)
    if jnp.iscomplexobj(x):
        return jax.nn.sigmoid(x)
    return _logistic(x)


@jax.custom_vjp
def _logistic(x: jax.Array) -> jax.Array:
    if not _eigen_dtype(x):
        return jax.nn.sigmoid(x)
    return on_cpu(_eigen_logistic, jax.nn.sigmoid)(x)


def _logistic_fwd(x: jax.Array) -> tuple:
    y = _logistic(x)
    return y, y


def _logistic_bwd(y: jax.Array, dy: jax.Array) -> tuple:
    return (logistic_grad(y, dy),)


_logistic.defvjp(_logistic_fwd, _logistic_bwd)


def tanh_grad(y: jax.Array, dy: jax.Array) -> jax.Array:
    """TF's ``TanhGrad``: ``dy * (1 - y * y)`` of ``y = tanh(x)``, in TF's order.

    Args:
      y: the output of ``tanh``.
      dy: the gradient with respect to ``y``, of its dtype.

    Returns:
      The gradient with respect to ``x``, of ``y``'s dtype (float16 and bfloat16
      evaluated step by step in float32, each step rounded to the half type, as
      Eigen's half packets compute).
    """
    one = jnp.ones((), y.dtype)
    return rounded(dy * (one - rounded_nonnegative(y * y)))


def logistic_grad(y: jax.Array, dy: jax.Array) -> jax.Array:
    """TF's ``SigmoidGrad``: ``dy * (y * (1 - y))`` of ``y = sigmoid(x)``, in TF's order.

    Args:
      y: the output of ``sigmoid``.
      dy: the gradient with respect to ``y``, of its dtype.

    Returns:
      The gradient with respect to ``x``, of ``y``'s dtype (the last ``size % 8``
      float32, float16 and bfloat16 elements in the scalar functor's order,
      ``(dy * y) * (1 - y)``, as TF computes them).
    """
    y, dy = jnp.asarray(y), jnp.asarray(dy)
    if _eigen_dtype(y):
        return _packets(_logistic_grad_packet, _logistic_grad_scalar)(y, dy)
    return _logistic_grad_packet(y, dy)


def _logistic_grad_packet(y: jax.Array, dy: jax.Array) -> jax.Array:
    one = jnp.ones((), y.dtype)
    return rounded(dy * (y * (one - y)))


def _logistic_grad_scalar(y: jax.Array, dy: jax.Array) -> jax.Array:
    one = jnp.ones((), y.dtype)
    return rounded(rounded(dy * y) * (one - y))
