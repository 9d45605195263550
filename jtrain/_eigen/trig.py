"""TF's CPU ``Sin``, ``Cos``, ``Atan``, ``Atan2`` and ``Erf``, and their gradients, bit for bit.

TF 2.21's CPU kernels evaluate Eigen's functors (the headers its wheel ships), on
packets of 8 float32 (the AVX build, without FMA: every product is rounded before it
meets an addition, :func:`jtrain._numerics.rounded`):

- ``Sin``, ``Cos`` (``scalar_sin_op``/``scalar_cos_op``): ``psincos_float``. ``|x|``
  is reduced by the nearest multiple ``q`` of pi/2 in four parts (the version for
  CPUs without FMA), or, from 25966 (sin) and 18838 (cos), by ``trig_reduce_huge``
  (Payne-Hanek with 96 bits of 2/pi); a degree-8 cosine or degree-7 sine polynomial
  of the remainder by ``q``'s parity, the sign from ``q`` and ``x``.
- ``Atan`` (``scalar_atan_op``): ``generic_atan``: ``|x|``, or its reciprocal
  above 1, in a [3/4]-degree rational function (``patan_reduced<float>``), ``pi/2`` less
  it above 1, ``x``'s sign.
- ``Atan2`` (``scalar_atan2_op``): ``patan2``: ``atan(y / x)`` (``+-1`` where
  ``|x| == |y|``, ``+-0`` where both are zero) plus ``+-pi`` where ``x``'s sign bit is
  set, ``y``'s signed zero otherwise.
- ``Erf`` (``scalar_erf_op``): ``generic_fast_erf<float>``: ``x * P(x^2) / Q(x^2)``,
  ``x^2`` clamped to 16, the quotient to ``[-1, 1]``; Eigen's scalar ``erf`` of a
  float is the same function.

The elements that do not fill a packet (the last ``size % 8`` of the flattened tensor:
TF's executor aligns its blocks to packets) go through the functor's scalar path:
the C library's ``sinf``, ``cosf``, ``atanf``, ``atan2f`` (correctly rounded but in
rare cases), for which the float64 function rounded to float32 stands in.

float16 and bfloat16 are computed in float32 and rounded (Eigen's half packets, and
its scalar ``half`` functions, widen to float). float64 (a scalar loop in TF's build,
the C library's ``sin``...) keeps XLA's functions, as complex values do.

The gradients are TF's Python gradient functions, with TF's kernels in TF's order:
``d sin = dy * cos(x)``, ``d cos = -dy * sin(x)`` (these kernels),
``d atan = dy * reciprocal(1 + x * x)``, ``d atan2 = (x * g, -y * g)`` with
``g = dy / (y * y + x * x)``, ``d erf = (dy * 2/sqrt(pi)) * exp(-(x * x))``.
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
from jtrain._eigen._packet import polevl as _polevl
from jtrain._numerics import rounded, rounded_nonnegative

__all__ = ["atan", "atan2", "cos", "erf", "sin"]

_F32 = np.float32

# psincos_float (Eigen/src/Core/arch/Default/GenericPacketMathFunctions.h), no FMA.
_TWO_OVER_PI = _F32(0.636619746685028076171875)
_PI_OVER_2_PARTS = tuple(
    _F32(c)
    for c in (
        -1.5703125,
        -0.000483989715576171875,
        1.62865035235881805419921875e-07,
        5.5644315544167710640977020375430583953857421875e-11,
    )
)
_SIN_HUGE = _F32(25966.0)
_COS_HUGE = _F32(18838.0)
_COS_POLY = tuple(
    _F32(c)
    for c in (
        2.4372266125283204019069671630859375e-05,
        -0.00138865201734006404876708984375,
        0.041666619479656219482421875,
        -0.5,
        1.0,
    )
)
_SIN_POLY = tuple(
    _F32(c)
    for c in (
        -0.0001959234114083702898469196984621021329076029360294342041015625,
        0.0083326873655616851693794799871284340042620897293090820312500000,
        -0.1666666203982298255503735617821803316473960876464843750000000000,
    )
)
# trig_reduce_huge: 192 bits of 2/pi, each word the bits of the previous shifted by 8.
_TWO_OVER_PI_BITS = np.array(
    [
        0x00000028, 0x000028BE, 0x0028BE60, 0x28BE60DB, 0xBE60DB93, 0x60DB9391, 0xDB939105,
        0x9391054A, 0x91054A7F, 0x054A7F09, 0x4A7F09D5, 0x7F09D5F4, 0x09D5F47D, 0xD5F47D4D,
        0xF47D4D37, 0x7D4D3770, 0x4D377036, 0x377036D8, 0x7036D8A5, 0x36D8A566, 0xD8A5664F,
        0xA5664F10, 0x664F10E4, 0x4F10E410, 0x10E41000, 0xE4100000,
    ],
    dtype=np.uint32,
)  # fmt: skip
_PIO2_2M62 = 3.4061215800865545e-19  # pi/2 * 2**-62

# patan_reduced<float>, generic_atan.
_ATAN_ALPHA = tuple(
    _F32(c)
    for c in (
        1.12026982009410858154296875e-01,
        7.296695709228515625e-01,
        8.109951019287109375e-01,
    )
)
_ATAN_BETA = tuple(
    _F32(c)
    for c in (
        1.00917108356952667236328125e-02,
        2.8318560123443603515625e-01,
        1.0,
        8.109951019287109375e-01,
    )
)
_PI_OVER_2 = _F32(np.pi / 2)
_PI = _F32(np.pi)

# generic_fast_erf<float> (unsupported/Eigen/src/SpecialFunctions/SpecialFunctionsImpl.h).
_ERF_ALPHA = tuple(
    _F32(c)
    for c in (
        2.123732201653183437883853912353515625e-06,
        2.861979592125862836837768554687500000e-04,
        3.658048342913389205932617187500000000e-03,
        5.243302136659622192382812500000000000e-02,
        1.874160766601562500000000000000000000e-01,
        1.128379106521606445312500000000000000e00,
    )
)
_ERF_BETA = tuple(
    _F32(c)
    for c in (
        3.89185734093189239501953125000e-05,
        1.14329601638019084930419921875e-03,
        1.47520881146192550659179687500e-02,
        1.12945675849914550781250000000e-01,
        4.99425798654556274414062500000e-01,
        1.0,
    )
)
_ERF_X2_CLAMP = _F32(16.0)
_TWO_OVER_SQRT_PI = 2 / np.sqrt(np.pi)

_SIGN_BIT = np.int32(-0x80000000)

# The x86 ``rcpps`` estimate (measured on an Intel Xeon, all 2**23 mantissas): the
# reciprocal of the middle of the input's 2**-11-wide mantissa interval, rounded to 12
# bits: mantissa bits of 1/1.m for m's top 11 bits k, round(2**25 / (4097 + 2k)).
_RCP_DIVISOR = 4097 + 2 * np.arange(2048, dtype=np.int64)
_RCP_MANTISSA = (((2**26 + _RCP_DIVISOR) // (2 * _RCP_DIVISOR) - 4096) << 11).astype(np.int32)


def _bits(x: jax.Array) -> jax.Array:
    return lax.bitcast_convert_type(x, jnp.int32)


def _float(bits: jax.Array) -> jax.Array:
    return lax.bitcast_convert_type(bits, jnp.float32)


def _trig_reduce_huge(a: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Eigen's ``trig_reduce_huge`` of ``a = |x| >= 18838`` (finite): ``(r, q)`` with
    ``a = q * pi/2 + r`` (``q`` mod 4), from ``a``'s mantissa times 96 bits of 2/pi in
    64-bit fixed point."""
    with jax.enable_x64(True):  # 64-bit integers whatever jax_enable_x64 says (scoped)
        xi = lax.bitcast_convert_type(a, jnp.uint32)
        e = (xi >> 23) - np.uint32(118)
        mant = ((xi & np.uint32(0x007FFFFF)) | np.uint32(0x00800000)) << (e & np.uint32(7))
        i = (e >> 3).astype(jnp.int32)
        table = jnp.asarray(_TWO_OVER_PI_BITS)
        word = [jnp.take(table, i + k, mode="clip").astype(jnp.uint64) for k in (-1, 3, 7)]
        m = mant.astype(jnp.uint64)
        p = m * word[2]
        p = m * word[1] + (p >> np.uint64(32))
        p = (((m * word[0]) & np.uint64(0xFFFFFFFF)) << np.uint64(32)) + p
        q = (p + (np.uint64(1) << np.uint64(61))) >> np.uint64(62)
        p = p - (q << np.uint64(62))
        r = (lax.bitcast_convert_type(p, jnp.int64).astype(jnp.float64) * _PIO2_2M62).astype(
            jnp.float32
        )
        return r, q.astype(jnp.int32)


def _rcp_estimate(a: jax.Array) -> jax.Array:
    """``rcpps`` of float32 ``a`` (``_mm256_rcp_ps``): 12 bits of ``1 / a``; +-inf for
    +-0 and denormals, +-0 from ``|a| >= 2**126``, NaN kept."""
    b = _bits(a)
    e = (b >> 23) & 0xFF
    sign = b & _SIGN_BIT
    out = sign | ((253 - e) << 23) | jnp.take(jnp.asarray(_RCP_MANTISSA), (b >> 12) & 0x7FF)
    out = jnp.where(e >= 253, sign, out)
    out = jnp.where(e == 0, sign | 0x7F800000, out)
    return jnp.where(jnp.isnan(a), a, _float(out))


def _reciprocal_f32(a: jax.Array) -> jax.Array:
    """Eigen's ``preciprocal<Packet8f>`` (``EIGEN_FAST_MATH``): ``rcpps`` and one Newton
    step without FMA, ``x + x * (1 - a * x)`` (the estimate itself where that is NaN)."""
    x = _rcp_estimate(a)
    t = _F32(1) - rounded(a * x)
    return jnp.where(t == t, _madd(x, t, x), x)


def _sincos_f32(x: jax.Array, sine: bool) -> jax.Array:
    """Eigen's ``psincos_float`` (the packet path) of float32 ``x``."""
    a = jnp.abs(x)
    y = rounded_nonnegative(a * _TWO_OVER_PI)
    # Eigen adds and subtracts 1.5 * 2**23 (XLA folds that away): y is below 2**15 here.
    y = lax.round(y, lax.RoundingMethod.TO_NEAREST_EVEN)
    q = y.astype(jnp.int32)
    r = a
    for part in _PI_OVER_2_PARTS:
        r = _madd(y, part, r)
    huge = (a >= (_SIN_HUGE if sine else _COS_HUGE)) & jnp.isfinite(a)
    r_huge, q_huge = _trig_reduce_huge(a)
    r = jnp.where(huge, r_huge, r)
    q = jnp.where(huge, q_huge, q)
    if sine:
        sign = (_bits(x) ^ (q << 30)) & _SIGN_BIT
    else:
        sign = ((q + 1) << 30) & _SIGN_BIT
    even = (q & 1) == 0  # sin uses the sine polynomial, cos the cosine one
    r2 = r * r
    c = _polevl(r2, _COS_POLY)
    s = rounded_nonnegative(_polevl(r2, _SIN_POLY) * r2)
    s = _madd(s, r, r)
    out = jnp.where(even, s, c) if sine else jnp.where(even, c, s)
    return _float(_bits(out) ^ sign)


def _sin_f32(x: jax.Array) -> jax.Array:
    return _sincos_f32(x, True)


def _cos_f32(x: jax.Array) -> jax.Array:
    return _sincos_f32(x, False)


def _atan_f32(x: jax.Array) -> jax.Array:
    """Eigen's ``generic_atan`` (the packet path) of float32 ``x``."""
    a = jnp.abs(x)
    large = a > _F32(1)
    z = jnp.where(large, _reciprocal_f32(a), a)
    z2 = z * z
    p = _polevl(z2, _ATAN_ALPHA)
    q = _polevl(z2, _ATAN_BETA)
    t = z * (p / q)
    t = jnp.where(large, _PI_OVER_2 - t, t)
    return _float(_bits(t) ^ (_bits(x) & _SIGN_BIT))


def _atan2_f32(y: jax.Array, x: jax.Array) -> jax.Array:
    """Eigen's ``patan2`` (the packet path) of float32 ``y`` and ``x``."""
    y_sign = _bits(y) & _SIGN_BIT
    x_sign = _bits(x) & _SIGN_BIT
    sign = y_sign ^ x_sign
    shift = jnp.where(x_sign != 0, _bits(jnp.full_like(x, _PI)), 0) | y_sign
    arg = y / x
    arg = jnp.where(jnp.abs(x) == jnp.abs(y), _float(_bits(jnp.ones_like(x)) | sign), arg)
    arg = jnp.where(_float(_bits(x) | _bits(y)) == 0, _float(sign), arg)
    return _atan_f32(arg) + _float(shift)


def _erf_f32(x: jax.Array) -> jax.Array:
    """Eigen's ``generic_fast_erf<float>`` (packets and scalars) of float32 ``x``."""
    x2 = jnp.minimum(rounded_nonnegative(x * x), _ERF_X2_CLAMP)
    p = rounded(x * _polevl(x2, _ERF_ALPHA))
    q = _polevl(x2, _ERF_BETA)
    return jnp.clip(p / q, _F32(-1), _F32(1))


def _from_float64(fn: Callable[..., jax.Array], odd: bool = False) -> Callable[..., jax.Array]:
    """``fn`` in float64, rounded to float32: the C library's float functions (``sinf``...),
    which TF's scalar path calls (measured against TF 2.21: 99% of ``sinf`` and 99.9% of
    ``atanf`` results the correctly rounded ones). ``odd``: ``fn(x) = x`` for denormal
    ``x``, as ``sinf``/``atanf`` return it (XLA's CPU code flushes denormals to zero)."""

    def wide(*args: jax.Array) -> jax.Array:
        with jax.enable_x64(True):  # float64 whatever jax_enable_x64 says (scoped)
            out = fn(*(a.astype(jnp.float64) for a in args)).astype(jnp.float32)
        if odd:
            (x,) = args
            out = jnp.where(jnp.abs(x) < _F32(2.0**-126), x, out)
        return out

    return wide


def _round_bfloat16(v: jax.Array) -> jax.Array:
    """float32 ``v`` rounded to bfloat16 (to nearest, ties to even) with integer
    operations: XLA's CPU code computes bfloat16 in float32 and drops a rounding between
    two operations (``xla_allow_excess_precision``), which TF's kernels each make."""
    b = _bits(v)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & np.int32(-0x10000)
    return jnp.where(jnp.isnan(v), v, _float(b)).astype(jnp.bfloat16)


def _step(fn: Callable[..., jax.Array], *args: jax.Array) -> jax.Array:
    """One of TF's kernels on ``args``: in their dtype, bfloat16 through float32 and
    rounded back (:func:`_round_bfloat16`)."""
    if args[0].dtype != jnp.bfloat16:
        return fn(*args)
    return _round_bfloat16(fn(*(a.astype(jnp.float32) for a in args)))


def _eigen(
    packet_fn: Callable[..., jax.Array],
    scalar_fn: Callable[..., jax.Array] | None,
    half_packets: bool = True,
) -> Callable[..., jax.Array]:
    """The CPU function: float32 through ``packet_fn`` on full packets and ``scalar_fn``
    on the rest; float16 and bfloat16 widened to float32 and the result rounded back, on
    packets (``half_packets``) or all through ``scalar_fn`` (Eigen's half packets have no
    ``atan``: its scalar ``atan`` of a half is ``atanf`` of the float)."""
    fn = packet_fn if scalar_fn is None else _packets(packet_fn, scalar_fn)
    half_fn = fn if half_packets or scalar_fn is None else scalar_fn

    def eigen(*args: jax.Array) -> jax.Array:
        dtype = args[0].dtype
        wide = tuple(a.astype(jnp.float32) for a in args)
        out = (fn if dtype == jnp.float32 else half_fn)(*wide)
        return _round_bfloat16(out) if dtype == jnp.bfloat16 else out.astype(dtype)

    return eigen


def _eigen_dtype(x: jax.Array) -> bool:
    return x.dtype in (jnp.float32, jnp.float16, jnp.bfloat16)


def _divide_one(x: jax.Array) -> jax.Array:
    return jnp.ones((), x.dtype) / x


_RECIPROCAL = on_cpu(_eigen(_reciprocal_f32, _divide_one), _divide_one)


def _reciprocal(x: jax.Array) -> jax.Array:
    """TF's ``Reciprocal`` kernel: Eigen's ``preciprocal`` on full packets (float16 and
    bfloat16 through float32), ``1 / x`` on the rest and for other dtypes."""
    return _RECIPROCAL(x) if _eigen_dtype(x) else _divide_one(x)


_SIN = on_cpu(_eigen(_sin_f32, _from_float64(jnp.sin, odd=True)), jnp.sin)
_COS = on_cpu(_eigen(_cos_f32, _from_float64(jnp.cos)), jnp.cos)
_ATAN = on_cpu(_eigen(_atan_f32, _from_float64(jnp.arctan, odd=True), False), jnp.arctan)
_ATAN2 = on_cpu(_eigen(_atan2_f32, _from_float64(jnp.arctan2), False), jnp.arctan2)
_ERF = on_cpu(_eigen(_erf_f32, None), jax.scipy.special.erf)


def sin(x: jax.Array) -> jax.Array:
    """``tf.sin`` as TF's CPU kernel computes it (Eigen's ``psin_float``).

    Args:
      x: a tensor of a floating or complex dtype.

    Returns:
      ``sin(x)``, of ``x``'s dtype: on CPUs Eigen's approximation for float32 (the last
      ``size % 8`` elements the C library's ``sinf``), float16 and bfloat16 (through
      float32); XLA's elsewhere and for float64 and complex values. Its derivative is
      TF's: ``dy * cos(x)``.
    """
    x = jnp.asarray(x)
    return _sin(x) if _eigen_dtype(x) else jnp.sin(x)


def cos(x: jax.Array) -> jax.Array:
    """``tf.cos`` as TF's CPU kernel computes it (Eigen's ``pcos_float``).

    Args:
      x: a tensor of a floating or complex dtype.

    Returns:
      ``cos(x)``, of ``x``'s dtype: on CPUs Eigen's approximation for float32 (the last
      ``size % 8`` elements the C library's ``cosf``), float16 and bfloat16 (through
      float32); XLA's elsewhere and for float64 and complex values. Its derivative is
      TF's: ``-dy * sin(x)``.
    """
    x = jnp.asarray(x)
    return _cos(x) if _eigen_dtype(x) else jnp.cos(x)


def atan(x: jax.Array) -> jax.Array:
    """``tf.atan`` as TF's CPU kernel computes it (Eigen's ``generic_atan``).

    Args:
      x: a tensor of a floating or complex dtype.

    Returns:
      ``atan(x)``, of ``x``'s dtype: on CPUs Eigen's approximation for float32 (the last
      ``size % 8`` elements the C library's ``atanf``), float16 and bfloat16 (through
      float32); XLA's elsewhere and for float64 and complex values. Its derivative is
      TF's: ``dy * reciprocal(1 + x * x)``.
    """
    x = jnp.asarray(x)
    return _atan(x) if _eigen_dtype(x) else jnp.arctan(x)


def atan2(y: jax.Array, x: jax.Array) -> jax.Array:
    """``tf.atan2`` as TF's CPU kernel computes it (Eigen's ``patan2``).

    Args:
      y: a tensor of a floating dtype.
      x: a tensor of ``y``'s dtype, broadcastable with ``y``.

    Returns:
      The angle of ``(x, y)``, of ``y``'s dtype and the broadcast shape: on CPUs Eigen's
      approximation for float32 (the last ``size % 8`` elements the C library's
      ``atan2f``), float16 and bfloat16 (through float32); XLA's elsewhere and for
      float64. Its derivative is TF's: ``(x * g, -y * g)`` with
      ``g = dy / (y * y + x * x)``, summed over broadcast dimensions.
    """
    y, x = jnp.broadcast_arrays(jnp.asarray(y), jnp.asarray(x))
    return _atan2(y, x) if _eigen_dtype(y) else jnp.arctan2(y, x)


def erf(x: jax.Array) -> jax.Array:
    """``tf.math.erf`` as TF's CPU kernel computes it (Eigen's ``generic_fast_erf``).

    Args:
      x: a tensor of a floating dtype.

    Returns:
      ``erf(x)``, of ``x``'s dtype: on CPUs Eigen's rational approximation for float32,
      float16 and bfloat16 (through float32); XLA's elsewhere and for float64. Its
      derivative is TF's: ``(dy * 2/sqrt(pi)) * exp(-(x * x))``.
    """
    x = jnp.asarray(x)
    return _erf(x) if _eigen_dtype(x) else jax.scipy.special.erf(x)


def _keep_x(fn: Callable[..., jax.Array]) -> Callable[..., tuple]:
    def fwd(*args: jax.Array) -> tuple:
        return fn(*args), args

    return fwd


@jax.custom_vjp
def _sin(x: jax.Array) -> jax.Array:
    return _SIN(x)


def _sin_bwd(res: tuple, dy: jax.Array) -> tuple:
    (x,) = res
    return (_step(lambda d, c: rounded(d * c), dy, cos(x)),)  # TF's _SinGrad: grad * cos(x)


_sin.defvjp(_keep_x(_sin), _sin_bwd)


@jax.custom_vjp
def _cos(x: jax.Array) -> jax.Array:
    return _COS(x)


def _cos_bwd(res: tuple, dy: jax.Array) -> tuple:
    (x,) = res
    return (_step(lambda d, s: rounded(-d * s), dy, sin(x)),)  # TF's _CosGrad: -grad * sin(x)


_cos.defvjp(_keep_x(_cos), _cos_bwd)


@jax.custom_vjp
def _atan(x: jax.Array) -> jax.Array:
    return _ATAN(x)


def _atan_bwd(res: tuple, dy: jax.Array) -> tuple:
    (x,) = res
    # TF's _AtanGrad: grad * reciprocal(1 + square(x)), TF's Reciprocal kernel
    x2 = _step(lambda v: rounded_nonnegative(v * v), x)
    inv = _reciprocal(_step(lambda v: jnp.ones((), v.dtype) + v, x2))
    return (_step(lambda d, i: rounded(d * i), dy, inv),)


_atan.defvjp(_keep_x(_atan), _atan_bwd)


@jax.custom_vjp
def _atan2(y: jax.Array, x: jax.Array) -> jax.Array:
    return _ATAN2(y, x)


def _atan2_bwd(res: tuple, dz: jax.Array) -> tuple:
    y, x = res
    # TF's _Atan2Grad: grad_inv = grad / (square(y) + square(x)); (x * grad_inv, -y * grad_inv)
    y2 = _step(lambda v: rounded_nonnegative(v * v), y)
    x2 = _step(lambda v: rounded_nonnegative(v * v), x)
    g = _step(lambda d, n: d / n, dz, _step(lambda a, b: a + b, y2, x2))
    return _step(lambda v, w: rounded(v * w), x, g), _step(lambda v, w: rounded(-v * w), y, g)


_atan2.defvjp(_keep_x(_atan2), _atan2_bwd)


@jax.custom_vjp
def _erf(x: jax.Array) -> jax.Array:
    return _ERF(x)


def _erf_bwd(res: tuple, dy: jax.Array) -> tuple:
    (x,) = res
    # TF's _ErfGrad: grad * two_over_root_pi * exp(-square(x))
    scale = jnp.asarray(_TWO_OVER_SQRT_PI, x.dtype)
    scaled = _step(lambda d, c: rounded(d * c), dy, scale)
    # TF's Exp kernel; imported here: exp_log takes this module's reciprocal (rcpps).
    from jtrain._eigen import exp_log

    e = exp_log.exp(_step(lambda v: -rounded_nonnegative(v * v), x))
    return (_step(lambda a, b: rounded(a * b), scaled, e),)


_erf.defvjp(_keep_x(_erf), _erf_bwd)
