"""TF's CPU ``Pow`` kernel, bit for bit: Eigen's ``generic_pow`` and glibc's ``powf``.

TF 2.21's ``Pow`` (``cwise_op_pow.cc``, ``functor::pow``: Eigen's ``scalar_pow_op``)
evaluates, on packets of 8 float32 (the AVX build of the x86 wheel, without FMA: each
product is rounded before it meets an addition, :func:`jtrain._numerics.rounded`),
Eigen's ``generic_pow`` (``Eigen/src/Core/arch/Default/GenericPacketMathFunctions.h``
of the headers the wheel ships):

- ``|x| = 2**e * m`` (``pfrexp``), ``m`` scaled into ``[sqrt(1/2), sqrt(2))``;
- ``log2(m)`` as a double word (``accurate_log2<float>``: a degree-8 polynomial in
  ``m - 1``, its last two Horner steps and the final product in double-word
  arithmetic, Dekker's ``twoprod`` on Veltkamp's splitting as there is no FMA);
- ``f = y * e + y * log2(m)`` as a double word, split into an integer ``n`` and a
  fraction ``r`` in ``[-1/2, 1/2]`` (``absolute_split``, ``pround``: halves away from
  zero);
- ``2**r`` as ``exp(hi) * (1 + lo)`` with ``hi + lo = ln 2 * r`` (``generic_exp2`` on
  Eigen's ``pexp_float``), times ``2**n`` (``pldexp``);
- then C++'s special cases (``cppreference``'s ``pow``) by selects: ``x < 0`` with a
  non-integer ``y`` NaN, ``+-0``, ``+-inf``, ``|y|`` from ``128 ln 2 / eps`` (about
  7.4e8) on as infinite, NaN (``0x7FC00000``), ``y == 1`` gives ``x``, ``y == 0`` or
  ``x == 1`` gives 1.

The elements that do not fill a packet (see below for which) go through the functor's
scalar path, ``std::pow(float, float)``: glibc 2.36's ``powf`` (ARM's
optimized-routines, ``e_powf.c``: ``log2`` from a 16-entry table and a degree-5
polynomial in float64, ``exp2`` from ``__exp2f_data``'s 32 entries and a cubic),
reproduced here in both of glibc's x86-64 compilations (``__powf_fma`` where the CPU has
FMA and AVX2, ``__powf_sse2`` elsewhere, :func:`jtrain._eigen._libm.fma_variant`; the FMA
one's products that feed an addition fused, but ``y * log2(x)``, whose bits glibc also
tests: GCC fuses a product only where every use of it is an addition). Its invalid
results are x86's default NaN (``0xFFC00000``, sign bit set), the packets' Eigen's
``0x7FC00000``.

TF's threads flush denormals (FTZ and DAZ), which both paths show: a denormal ``x`` is
a signed zero to Eigen's comparisons (``pow(1e-45, 2)`` is 0 and ``pow(1e-45, -2)`` inf
on packets, but ``pow(1e-45, 1)`` is ``x`` itself: a select), while glibc's normalization
of it (``x * 2**23``, read as 0) leaves bits that decode to ``2**-150`` (``pow(1e-45, 0.5)``
is ``2**-75`` on the scalar path); a denormal ``y`` is 0 to both; results below 2**-126
are 0 (of the result's sign).

``float16`` and ``bfloat16``: Eigen's half packets have no ``pow``
(``packet_traits<half>::HasPow`` is unset), so every element goes through Eigen's scalar
``pow(half, half)``: ``powf`` of the values widened to float, rounded back.

``float64``: Eigen's ``generic_pow`` on packets of 4 doubles (``Packet4d``), with
``accurate_log2<double>`` (``r = 2/ln 2 * (m - 1) / (m + 1)`` and an odd polynomial in
double words) and Cephes' ``pexp_double``; XLA's ``pow`` differs from it on 17% of
random pairs. The scalar path is glibc's ``pow`` (0.52 ulp), for which XLA's ``pow``
stands in (equal on 400,000 random pairs and TF's rank-0 results on 3,000).

Where the scalar path falls: the last ``size % 8`` (float32; ``% 4`` for float64) of a
flat output (same shapes, or an operand of one element); a broadcast output (2 to 5
dimensions once TF's ``BCast`` has merged adjacent dimensions of one pattern) Eigen's
tiled executor cuts into blocks (:func:`_scalar_positions`), each contiguous run of
which ends in such a tail.

Integer and complex dtypes keep XLA's ``pow`` (see :func:`pow`).
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jtrain import errors
from jtrain._eigen import _libm, on_cpu
from jtrain._eigen._packet import madd as _madd
from jtrain._eigen._packet import polevl as _polevl
from jtrain._eigen.exp_log import _exp_f32
from jtrain._eigen.trig import _round_bfloat16
from jtrain._numerics import rounded

__all__ = ["pow"]

_F32 = np.float32
_H = float.fromhex
_SIGN = np.int32(-0x80000000)
_DEFAULT_NAN = np.int32(-0x00400000)  # 0xFFC00000: x86's (x - x) / (x - x)

# accurate_log2<float>: log2(1 + x) / x in x = m - 1, the two lowest coefficients split
# into double words (the float of the double, and the float of what is left).
_LOG2_POLY = tuple(
    _F32(c)
    for c in (
        9.7010828554630279541015625e-02,
        -1.6896486282348632812500000e-01,
        1.7200836539268493652343750e-01,
        -1.7892272770404815673828125e-01,
        2.0505344867706298828125000e-01,
        -2.4046677350997924804687500e-01,
        2.8857553005218505859375000e-01,
        -3.6067414283752441406250000e-01,
        4.8089790344238281250000000e-01,
    )
)


def _double_word(c: float) -> tuple[np.float32, np.float32]:
    hi = _F32(c)
    return hi, _F32(c - float(hi))


_LOG2_C0 = _double_word(1.442695041742110273474963832995854318141937255859375e00)
_LOG2_C1 = _double_word(-7.2134751588268664068692714863573201000690460205078125e-01)
_SQRT_HALF_F64 = 0.70710678118654752440  # Scalar(0.70710678118654752440)
_LN2_F64 = float(np.log(2.0))  # Scalar(EIGEN_LN2)
_LN2 = _F32(_LN2_F64)
# |y| from which (1 + eps)**y overflows: max_exponent * ln 2 / eps, in float.
_HUGE_EXPONENT = _F32(128) * _LN2 / _F32(np.finfo(np.float32).eps)

# accurate_log2<double>: 2 / ln 2 and C as double words, Q's coefficients (q12 first).
_LOG2E2_F64 = (2.88539008177792677, 4.07660016854549667e-17)
_LOG2_C_F64 = (0.0400377511598501157, -4.77726582251425391e-19)
_LOG2_Q_F64 = (
    2.87074255468000586e-9,
    2.38957980901884082e-8,
    2.31032094540014656e-7,
    2.27279857398537278e-6,
    2.31271023278625638e-5,
    2.47556738444535513e-4,
    2.88543873228900172e-3,
)
# pexp_double (Cephes): log2(e), ln 2 in two parts, the rational function's coefficients.
_EXP_LOG2E_F64 = 1.4426950408889634073599
_EXP_C1_F64 = 0.693145751953125
_EXP_C2_F64 = 1.42860682030941723212e-6
_EXP_P_F64 = (1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1)
_EXP_Q_F64 = (
    3.00198505138664455042e-6,
    2.52448340349684104192e-3,
    2.27265548208155028766e-1,
    2.00000000000000000009e0,
)

# glibc's __powf_log2_data (e_powf_log2_data.c; POWF_SCALE is 1 on x86-64): 1/c (the
# same table as logf's, ``_libm._LOGF_INVC``) and log2(c) for the 16 subintervals of
# [0x3f330000, 2 * 0x3f330000), and log1p(r)/ln2's degree-5 polynomial (A[0] r**5 + ...
# + A[4] r).
_POWF_LOGC = np.array(
    [_H(v) for v in (
        "-0x1.efec65b963019p-2", "-0x1.b0b6832d4fca4p-2", "-0x1.7418b0a1fb77bp-2",
        "-0x1.39de91a6dcf7bp-2", "-0x1.01d9bf3f2b631p-2", "-0x1.97c1d1b3b7afp-3",
        "-0x1.2f9e393af3c9fp-3", "-0x1.960cbbf788d5cp-4", "-0x1.a6f9db6475fcep-5", "0x0p+0",
        "0x1.338ca9f24f53dp-4", "0x1.476a9543891bap-3", "0x1.e840b4ac4e4d2p-3",
        "0x1.40645f0c6651cp-2", "0x1.88e9c2c1b9ff8p-2", "0x1.ce0a44eb17bccp-2",
    )],
    np.float64,
)  # fmt: skip
_POWF_A = tuple(
    _H(v)
    for v in (
        "0x1.27616c9496e0bp-2",
        "-0x1.71969a075c67ap-2",
        "0x1.ec70a6ca7baddp-2",
        "-0x1.7154748bef6c8p-1",
        "0x1.71547652ab82bp0",
    )
)
_POWF_OFF = 0x3F330000
# __exp2f_data's poly (unscaled: C0 r**3 + C1 r**2 + C2 r + 1 for r in [-1/64, 1/64])
# and shift_scaled (1.5 * 2**52 / 32: k, xd's nearest multiple of 1/32, in the low bits).
_EXP2F_C = (_H("0x1.c6af84b912394p-5"), _H("0x1.ebfce50fac4f3p-3"), _H("0x1.62e42ff0c52d6p-1"))
_EXP2F_SHIFT = _H("0x1.8p+52") / 32
_SIGN_BIAS = 1 << 16  # in k's bits: shifted by 47 it sets the result's sign bit
_OVERFLOW = _H("0x1.fffffffd1d571p+6")  # above: |x**y| > 0x1.ffffffp127, inf
_BIG = int(np.float64(126.0).view(np.uint64)) >> 47  # |y log2 x| from 126: checked
# What glibc's normalization of a denormal x (``x * 0x1p23f``, read as 0 under DAZ)
# leaves in ix: 0 - (23 << 23), which log2_inline reads as -150.
_DENORMAL_IX = (-(23 << 23)) % 2**32


class _Format(NamedTuple):
    """A floating type's constants in Eigen's packet functions."""

    int: Any  # the integer type of its width (for its bits)
    mantissa: int  # bits of the stored mantissa
    bias: int
    veltkamp: float  # 2**ceil(digits / 2) + 1, Veltkamp's splitting factor
    below_half: int  # the bits of the largest value below 0.5 (pround's offset)
    huge: float  # |y| from which (1 + eps)**y overflows: max_exponent * ln 2 / eps
    exp2_caps: tuple[int, int]  # generic_exp2's clamp of its argument
    ldexp_cap: int  # pldexp's clamp of the exponent


_FORMATS = {
    np.dtype(np.float32): _Format(
        np.int32, 23, 127, 2**12 + 1, 0x3EFFFFFF, float(_HUGE_EXPONENT), (129, -151), 278
    ),
    np.dtype(np.float64): _Format(
        np.int64,
        52,
        1023,
        2**27 + 1,
        0x3FDFFFFFFFFFFFFF,
        1024 * float(np.log(2.0)) / 2.0**-52,
        (1025, -1076),
        2099,
    ),
}


def _fmt(x: jax.Array) -> _Format:
    return _FORMATS[np.dtype(x.dtype)]


def _const(x: jax.Array, value: float) -> jax.Array:
    """``value`` in ``x``'s floating type."""
    return jnp.asarray(value, x.dtype)


def _bits(x: jax.Array) -> jax.Array:
    return lax.bitcast_convert_type(x, _fmt(x).int)


def _float(bits: jax.Array) -> jax.Array:
    width = np.dtype(bits.dtype).itemsize
    return lax.bitcast_convert_type(bits, jnp.float32 if width == 4 else jnp.float64)


def _sign_mask(x: jax.Array) -> Any:
    return _fmt(x).int(np.iinfo(_fmt(x).int).min)


def _signed_zero(x: jax.Array) -> jax.Array:
    """The zero of ``x``'s sign."""
    return _float(_bits(x) & _sign_mask(x))


def _flush(x: jax.Array) -> jax.Array:
    """DAZ (and FTZ): a denormal read (or written) as the zero of its sign."""
    tiny = _const(x, np.finfo(x.dtype).tiny)
    return jnp.where(jnp.abs(x) < tiny, _signed_zero(x), x)


# Eigen's double-word arithmetic (GenericPacketMathFunctions.h), without FMA.


def _veltkamp(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    gamma = rounded(_const(x, _fmt(x).veltkamp) * x)
    rho = x - gamma
    hi = rho + gamma
    return hi, x - hi


def _twoprod(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Dekker's exact product: ``x * y = hi + lo``."""
    x_hi, x_lo = _veltkamp(x)
    y_hi, y_lo = _veltkamp(y)
    hi = rounded(x * y)
    lo = _madd(x_hi, y_hi, -hi)
    lo = _madd(x_hi, y_lo, lo)
    lo = _madd(x_lo, y_hi, lo)
    return hi, _madd(x_lo, y_lo, lo)


def _fast_twosum(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``x + y = s + lo`` exactly where ``|x| >= |y|``; ``s`` behind a barrier, or XLA
    simplifies ``(c + y) - c`` to ``y`` for a constant ``c``."""
    s = rounded(x + y)
    return s, y - (s - x)


def _twosum_dw(
    x_hi: jax.Array, x_lo: jax.Array, y_hi: jax.Array, y_lo: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """``fast_twosum`` of two double words (``|x_hi| >= |y_hi|``)."""
    r_hi, r_lo = _fast_twosum(x_hi, y_hi)
    return _fast_twosum(r_hi, (y_lo + r_lo) + x_lo)


def _twoprod_dw(x_hi: jax.Array, x_lo: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``twoprod`` of a double word and a float (Muller's Algorithm 7)."""
    c_hi, c_lo1 = _twoprod(x_hi, y)
    t_hi, t_lo1 = _fast_twosum(c_hi, rounded(x_lo * y))
    return _fast_twosum(t_hi, t_lo1 + c_lo1)


def _twoprod_dw2(
    x_hi: jax.Array, x_lo: jax.Array, y_hi: jax.Array, y_lo: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """``twoprod`` of two double words."""
    hh, hl = _twoprod_dw(x_hi, x_lo, y_hi)
    lh, ll = _twoprod_dw(x_hi, x_lo, y_lo)
    return _twosum_dw(hh, hl, lh, ll)


def _pround(x: jax.Array) -> jax.Array:
    """AVX's ``pround``: ``x`` plus the value below 1/2 of its sign, truncated."""
    below_half = _fmt(x).int(_fmt(x).below_half)
    return jnp.trunc(x + _float((_bits(x) & _sign_mask(x)) | below_half))


def _log2_f32(m: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``accurate_log2<float>`` of ``m`` in [sqrt(1/2), sqrt(2)): a double word."""
    t = m - _F32(1)
    p = _polevl(t, _LOG2_POLY)
    p_hi, p_lo = _twoprod(t, p)
    c1_hi, c1_lo = (jnp.full_like(t, c) for c in _LOG2_C1)
    p_hi, p_lo = _twosum_dw(c1_hi, c1_lo, p_hi, p_lo)
    p_hi, p_lo = _twoprod_dw(p_hi, p_lo, t)
    c0_hi, c0_lo = (jnp.full_like(t, c) for c in _LOG2_C0)
    p_hi, p_lo = _twosum_dw(c0_hi, c0_lo, p_hi, p_lo)
    return _twoprod_dw(p_hi, p_lo, t)


def _log2_f64(m: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``accurate_log2<double>`` of ``m``: ``r = c (m - 1) / (m + 1)`` in double words
    (``c = 2 / ln 2``), ``((Q(r**2) r**2 + C) r**2 + 1) r``."""
    one = jnp.ones_like(m)
    c2_hi, c2_lo = (jnp.full_like(m, c) for c in _LOG2E2_F64)
    t_hi, t_lo = _twoprod_dw(c2_hi, c2_lo, m - one)
    # doubleword_div_fp: (t_hi + t_lo) / (m + 1).
    d = m + one
    q_hi = t_hi / d
    pi_hi, pi_lo = _twoprod(q_hi, d)
    delta = ((t_hi - pi_hi) - pi_lo) + t_lo
    r_hi, r_lo = _fast_twosum(q_hi, delta / d)
    r2_hi, r2_lo = _twoprod_dw2(r_hi, r_lo, r_hi, r_lo)
    r4_hi, _ = _twoprod_dw2(r2_hi, r2_lo, r2_hi, r2_lo)
    q12, q10, q8, q6, q4, q2, q0 = (_const(m, c) for c in _LOG2_Q_F64)
    q_even = _madd(_madd(_madd(jnp.full_like(m, q12), r4_hi, q8), r4_hi, q4), r4_hi, q0)
    q_odd = _madd(_madd(jnp.full_like(m, q10), r4_hi, q6), r4_hi, q2)
    q = _madd(q_odd, r2_hi, q_even)
    p_hi, p_lo = _twoprod_dw(r2_hi, r2_lo, q)
    c_hi, c_lo = (jnp.full_like(m, c) for c in _LOG2_C_F64)
    p_hi, p_lo = _twosum_dw(c_hi, c_lo, p_hi, p_lo)
    p_hi, p_lo = _twoprod_dw2(r2_hi, r2_lo, p_hi, p_lo)
    # fast_twosum(1, {p_hi, p_lo}): a float and a double word.
    s_hi, s_lo = _fast_twosum(one, p_hi)
    p_hi, p_lo = _fast_twosum(s_hi, p_lo + s_lo)
    return _twoprod_dw2(p_hi, p_lo, r_hi, r_lo)


def _exp_f64(x: jax.Array) -> jax.Array:
    """Eigen's ``pexp_double`` of ``|x| < 1`` (``generic_exp2``'s argument): Cephes'
    rational function of the remainder by ``ln 2`` (in two parts), times ``2**m``."""
    one = jnp.ones_like(x)
    fx = jnp.floor(_madd(x, _const(x, _EXP_LOG2E_F64), _const(x, 0.5)))
    x = (x - rounded(fx * _EXP_C1_F64)) - rounded(fx * _EXP_C2_F64)
    x2 = x * x
    p0, p1, p2 = (_const(x, c) for c in _EXP_P_F64)
    px = _madd(_madd(p0 * one, x2, p1), x2, p2) * x
    q0, q1, q2, q3 = (_const(x, c) for c in _EXP_Q_F64)
    qx = _madd(_madd(_madd(q0 * one, x2, q1), x2, q2), x2, q3)
    x = _madd(px / (qx - px), _const(x, 2), one)
    return _ldexp(x, fx)


def _pow_impl(x: jax.Array, y: jax.Array) -> jax.Array:
    """``generic_pow_impl`` of ``x >= 0`` (denormals read as 0) and ``y``."""
    fmt = _fmt(x)
    one = jnp.ones_like(x)
    # pfrexp: x = 2**e * m, m in [0.5, 1); 0, inf and NaN kept with e = 0.
    bits = _bits(x)
    mantissa = fmt.int(fmt.mantissa)
    biased = lax.shift_right_logical(bits, mantissa)
    special = (x == 0) | (biased == 2 * fmt.bias + 1)
    exponent_field = fmt.int((2 * fmt.bias + 1) << fmt.mantissa)
    half = fmt.int((fmt.bias - 1) << fmt.mantissa)
    m = jnp.where(special, x, _float((bits & ~exponent_field) | half))
    e = jnp.where(special, _const(x, 0), biased.astype(x.dtype) - _const(x, fmt.bias - 1))
    low = m < _const(x, _SQRT_HALF_F64)
    m = jnp.where(low, _const(x, 2) * m, m)
    e = jnp.where(low, e - one, e)
    rx_hi, rx_lo = (_log2_f32 if x.dtype == jnp.float32 else _log2_f64)(m)
    # f = y * e + y * log2(m), split into n + r.
    f1_hi, f1_lo = _twoprod(e, y)
    f2_hi, f2_lo = _twoprod_dw(rx_hi, rx_lo, y)
    f_hi, f_lo = _twosum_dw(f1_hi, f1_lo, f2_hi, f2_lo)
    n = _pround(f_hi)
    r = (f_hi - n) + f_lo
    n_r = _pround(r)
    r = r - n_r
    n = n + n_r
    # generic_exp2(r): exp(hi) * (1 + lo), hi + lo = ln 2 * r (clamped as Eigen does).
    high, low_cap = fmt.exp2_caps
    r = jnp.maximum(jnp.minimum(r, _const(x, high)), _const(x, low_cap))
    e_hi, e_lo = _twoprod(jnp.full_like(r, _const(x, _LN2_F64)), r)
    exp = _exp_f32 if x.dtype == jnp.float32 else _exp_f64
    return _ldexp(exp(e_hi) * (one + e_lo), n)


def _ldexp(a: jax.Array, n: jax.Array) -> jax.Array:
    """Eigen's ``pldexp`` (and ``pldexp_fast``, which gives the same values here): ``a *
    2**n`` in four exact products of normal powers of two, ``n`` clamped to Eigen's cap
    (278 for float); a result below the smallest normal flushed to zero (FTZ)."""
    fmt = _fmt(a)
    shift = fmt.int(fmt.mantissa)
    e = jnp.clip(n, -fmt.ldexp_cap, fmt.ldexp_cap).astype(fmt.int)
    b = lax.shift_right_arithmetic(e, fmt.int(2))
    c = _float(lax.shift_left(b + fmt.bias, shift))
    out = ((a * c) * c) * c
    return _flush(out * _float(lax.shift_left(e - 3 * b + fmt.bias, shift)))


def _pow_packets(x: jax.Array, y: jax.Array) -> jax.Array:
    """Eigen's ``generic_pow`` (the packet path) of float32 or float64 ``x`` and ``y``."""
    x_in = x
    x, y = _flush(x), _flush(y)
    x_abs = jnp.abs(x)
    out = _pow_impl(x_abs, y)
    inf, zero, one = _const(x, np.inf), _const(x, 0), _const(x, 1)
    nan = _float(jnp.full(x.shape, _fmt(x).int(_quiet_nan_bits(x))))
    x_is_negative = x < 0
    x_is_zero = x == 0
    x_has_signbit = _bits(x) < 0
    x_abs_gt_one = x_abs > one
    y_abs = jnp.abs(y)
    y_is_negative = y < 0
    y_is_int = (jnp.floor(y) == y) & (y_abs != inf)
    y_half = y * _const(x, 0.5)
    y_is_odd_int = y_is_int & (_pround(y_half) != y_half)
    out = jnp.where(x_is_negative & ~y_is_int, nan, out)
    out = jnp.where(x_is_zero, jnp.where(y_is_negative, inf, zero), out)
    out = jnp.where(x_has_signbit & y_is_odd_int, -out, out)
    inf_y = jnp.where((y_is_negative & x_is_zero) | (y_is_negative ^ x_abs_gt_one), inf, zero)
    inf_y = jnp.where(x == -one, one, inf_y)
    out = jnp.where(y_abs >= _const(x, _fmt(x).huge), inf_y, out)
    x_pos_inf = jnp.where(y_is_negative, zero, inf)
    x_neg_inf = jnp.where(y_is_odd_int, -x_pos_inf, x_pos_inf)
    out = jnp.where(x_abs == inf, jnp.where(x_is_negative, x_neg_inf, x_pos_inf), out)
    out = jnp.where(jnp.isnan(x) | jnp.isnan(y), nan, out)
    return jnp.where(y == one, x_in, jnp.where((x == one) | (y == 0), one, out))


def _quiet_nan_bits(x: jax.Array) -> int:
    """The bits of ``quiet_NaN()`` (positive) of ``x``'s type."""
    return 0x7FC00000 if x.dtype == jnp.float32 else 0x7FF8000000000000


def _pow_f32(x: jax.Array, y: jax.Array) -> jax.Array:
    """Eigen's ``generic_pow`` on float32 packets."""
    return _pow_packets(x, y)


def _pow_f64(x: jax.Array, y: jax.Array) -> jax.Array:
    """Eigen's ``generic_pow`` on float64 packets (of 4)."""
    with jax.enable_x64(True):  # float64 and int64 whatever jax_enable_x64 says (scoped)
        return _pow_packets(x, y)


def _checkint(iy: jax.Array) -> jax.Array:
    """glibc's ``checkint`` of non-zero finite ``y``'s bits: 0 not an integer, 1 odd, 2 even."""
    e = lax.shift_right_logical(iy, np.uint32(23)) & np.uint32(0xFF)
    shift = (np.uint32(0x7F + 23) - e) & np.uint32(31)
    frac = iy & (lax.shift_left(np.uint32(1), shift) - np.uint32(1))
    odd = (iy & lax.shift_left(np.uint32(1), shift)) != 0
    out = jnp.where(frac != 0, 0, jnp.where(odd, 1, 2))
    out = jnp.where(e > 0x7F + 23, 2, out)
    return jnp.where(e < 0x7F, 0, out)


def _powf(x: jax.Array, y: jax.Array, fma: bool) -> jax.Array:
    """glibc's ``powf`` of float32 ``x`` and ``y`` under FTZ and DAZ (``fma``: the
    compilation ``__powf_fma``, else ``__powf_sse2``)."""
    mul = _libm._mul
    u32 = jnp.uint32
    ix = lax.bitcast_convert_type(x, u32)
    iy = lax.bitcast_convert_type(y, u32)
    ix2, iy2 = ix + ix, iy + iy  # 2 * ix (mod 2**32): the bits less the sign
    inf2 = np.uint32(2 * 0x7F800000)
    y_zeroinfnan = iy2 - np.uint32(1) >= inf2 - np.uint32(1)
    x_zeroinfnan = ix2 - np.uint32(1) >= inf2 - np.uint32(1)
    x_negative = (ix & np.uint32(0x80000000)) != 0
    yint = _checkint(iy)
    # The main path: |x| (denormals as DAZ leaves them), the result's sign.
    ax = ix & np.uint32(0x7FFFFFFF)
    ax = jnp.where(ax < np.uint32(0x00800000), np.uint32(_DENORMAL_IX), ax)
    sign_bias = jnp.where(x_negative & (yint == 1), np.uint64(_SIGN_BIAS), np.uint64(0))
    # log2_inline
    tmp = ax - np.uint32(_POWF_OFF)
    i = (lax.shift_right_logical(tmp, np.uint32(19)) & np.uint32(15)).astype(jnp.int32)
    top = tmp & np.uint32(0xFF800000)
    k = lax.shift_right_arithmetic(lax.bitcast_convert_type(top, jnp.int32), np.int32(23))
    z = lax.bitcast_convert_type(ax - top, jnp.float32).astype(jnp.float64)
    invc = jnp.asarray(_libm._LOGF_INVC)[i]
    logc = jnp.asarray(_POWF_LOGC)[i]
    a = _POWF_A
    r = mul(z, invc, fma) - 1.0
    y0 = logc + k.astype(jnp.float64)
    r2 = r * r
    p1 = mul(r, a[0], fma) + a[1]
    p2 = mul(r, a[2], fma) + a[3]
    r4 = r2 * r2
    q = mul(r, a[4], fma) + y0
    q = mul(p2, r2, fma) + q
    logx = mul(p1, r4, fma) + q
    ylogx = rounded(_flush(y).astype(jnp.float64) * logx)  # no variant fuses it
    # exp2_inline
    shifted = ylogx + _EXP2F_SHIFT
    kd = rounded(shifted) - _EXP2F_SHIFT  # the barrier: XLA simplifies (a + c) - c to a
    rr = ylogx - kd
    ki = lax.bitcast_convert_type(shifted, jnp.uint64)
    t = jnp.asarray(_libm._EXP2F_TAB)[(ki % np.uint64(32)).astype(jnp.int32)]
    s = lax.bitcast_convert_type(t + lax.shift_left(ki + sign_bias, np.uint64(47)), jnp.float64)
    c = _EXP2F_C
    zz = mul(rr, c[0], fma) + c[1]
    rr2 = rr * rr
    yy = mul(rr, c[2], fma) + 1.0
    yy = mul(zz, rr2, fma) + yy
    yy = yy * s
    out = yy.astype(jnp.float32)
    signed_zero = _float(jnp.where(sign_bias != 0, _SIGN, np.int32(0)))
    out = jnp.where(jnp.abs(yy) < _libm._FLUSH_BELOW, signed_zero, out)
    big = (lax.shift_right_logical(lax.bitcast_convert_type(ylogx, jnp.uint64), np.uint64(47))
           & np.uint64(0xFFFF)) >= np.uint64(_BIG)  # fmt: skip
    signed_inf = _float(_bits(signed_zero) | np.int32(0x7F800000))
    out = jnp.where(big & (ylogx > _OVERFLOW), signed_inf, out)
    out = jnp.where(big & (ylogx <= -150.0), signed_zero, out)
    # x < 0 with y not an integer: (x - x) / (x - x).
    invalid = _float(jnp.full(x.shape, _DEFAULT_NAN))
    out = jnp.where(x_negative & (yint == 0), invalid, out)
    # x zero, infinite or NaN: x * x, negated for x < 0 and odd y, inverted for y < 0.
    x2 = x * x
    x2 = jnp.where(x_negative & (yint == 1), -x2, x2)
    y_negative = (iy & np.uint32(0x80000000)) != 0
    out = jnp.where(x_zeroinfnan, jnp.where(y_negative, _F32(1) / x2, x2), out)
    # y zero, infinite or NaN.
    x_snan = _is_signaling(ix)
    y_snan = _is_signaling(iy)
    special_y = jnp.where(
        (ix2 > inf2) | (iy2 > inf2),
        x + y,
        jnp.where(
            ix2 == np.uint32(2 * 0x3F800000),
            _F32(1),
            jnp.where((ix2 < np.uint32(2 * 0x3F800000)) == ~y_negative, _F32(0), y * y),
        ),
    )
    special_y = jnp.where(ix == np.uint32(0x3F800000), jnp.where(y_snan, x + y, _F32(1)), special_y)
    special_y = jnp.where(iy2 == 0, jnp.where(x_snan, x + y, _F32(1)), special_y)
    return jnp.where(y_zeroinfnan, special_y, out)


def _is_signaling(bits: jax.Array) -> jax.Array:
    quiet_clear = (bits & np.uint32(0x7FC00000)) == np.uint32(0x7F800000)
    return quiet_clear & ((bits & np.uint32(0x003FFFFF)) != 0)


def _powf_tf(x: jax.Array, y: jax.Array) -> jax.Array:
    """``powf`` as TF's threads call it: this machine's glibc variant, in a loop of its
    own (:func:`jtrain._eigen._libm._separate`)."""
    with jax.enable_x64(True):  # float64 and uint64 whatever jax_enable_x64 says (scoped)
        return _libm._separate(_powf(x, y, _libm.fma_variant()))


# TF's BinaryOp on CPU: which elements of the output Eigen's executor evaluates on the
# scalar path (packets of 8 float32 or 4 float64). Flat (same shapes, or one operand of
# one element): the last size % packet. Broadcasting (2 to 5 dimensions once TF's BCast
# has merged them): Eigen's tiled executor cuts the output into blocks of about
# 40000 / cost elements (TensorExecutor.h, TensorCostModel.h), the cost per element of a
# block being 11/64 cycle per byte loaded or stored (one element of each for every
# operand that is broadcast) and pow's 5 per packet; the block takes the innermost
# dimensions whole as far as the target lets it (kSkewedInnerDims), and each of its
# contiguous runs ends in a scalar tail of run % packet elements.
_TASK_CYCLES = 40000  # TensorCostModel::kTaskSize
_BYTE_CYCLES = 11 / 64  # an L2 load or store, per byte
_POW_CYCLES = 5  # scalar_pow_op's Cost (5 * MulCost), per packet
_MAX_BCAST_DIMS = 5
_PACKETS = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}  # AVX's Packet8f, Packet4d


def _bcast_dims(x_shape: tuple[int, ...], y_shape: tuple[int, ...]) -> tuple[tuple, tuple, tuple]:
    """TF's ``BCast`` (``fewer_dims_optimization``): the output's dimensions with the
    adjacent ones of one broadcast pattern merged and size-1 ones dropped, and whether each
    operand is broadcast along each (``x_bcast``, ``y_bcast``)."""
    if x_shape == y_shape:
        return (int(np.prod(x_shape, dtype=np.int64)),), (False,), (False,)
    rank = max(len(x_shape), len(y_shape))
    xs = (1,) * (rank - len(x_shape)) + tuple(x_shape)
    ys = (1,) * (rank - len(y_shape)) + tuple(y_shape)
    out: list[int] = []
    xb: list[bool] = []
    yb: list[bool] = []
    prev: tuple[bool, bool] | None = None
    for a, b in zip(reversed(xs), reversed(ys), strict=True):
        if a == 1 and b == 1:
            continue
        pattern = (a == 1, b == 1)
        dim = b if a == 1 else a
        if pattern == prev:
            out[-1] *= dim
        else:
            out.append(dim)
            xb.append(pattern[0])
            yb.append(pattern[1])
        prev = pattern
    if not out:
        return (1,), (False,), (False,)
    return tuple(reversed(out)), tuple(reversed(xb)), tuple(reversed(yb))


def _block_target(x_bcast: tuple, y_bcast: tuple, itemsize: int, packet: int) -> int:
    """Eigen's target block size for TF's broadcasting expression: both operands
    broadcast in 2 dimensions (``pow`` takes no ``use_bcast_optimization``), in 3 to 5
    only those whose broadcast is not all ones."""
    ndims = len(x_bcast)
    broadcast = 2 if ndims == 2 else int(any(x_bcast)) + int(any(y_bcast))
    cost = broadcast * 2 * itemsize * _BYTE_CYCLES + _POW_CYCLES / packet
    return int(1.0 / (cost / _TASK_CYCLES))


def _run_lengths(dims: tuple[int, ...], target: int) -> np.ndarray:
    """The lengths of the contiguous runs, in the output's order, in which Eigen's tiled
    executor evaluates a row-major output of ``dims`` with blocks of about ``target``."""
    size = int(np.prod(dims, dtype=np.int64))
    if size <= target:
        return np.array([size], np.int64)
    block = [0] * len(dims)
    left = target
    for k in reversed(range(len(dims))):
        block[k] = min(left, dims[k])
        left = -(-left // max(1, block[k]))
    # A run: the block's inner dimensions while they span the tensor's, and the next.
    k = len(dims) - 1
    while k > 0 and block[k] == dims[k]:
        k -= 1
    # Along dimension k the block holds block[k] slices of run = prod(dims[k+1:]); the
    # last block along it fewer; the dimensions outside k repeat the pattern.
    inner = int(np.prod(dims[k + 1 :], dtype=np.int64))
    full, rest = divmod(dims[k], block[k])
    along = [block[k] * inner] * full + ([rest * inner] if rest else [])
    outer = int(np.prod(dims[:k], dtype=np.int64))
    return np.tile(np.array(along, np.int64), outer)


def _scalar_positions(
    x_shape: tuple[int, ...], y_shape: tuple[int, ...], dtype: Any = np.float32
) -> np.ndarray:
    """The flat indices of the output that TF's ``Pow`` of ``dtype`` (float32 or
    float64) computes on the scalar path."""
    dims, x_bcast, y_bcast = _bcast_dims(x_shape, y_shape)
    packet = _PACKETS[np.dtype(dtype)]
    if len(dims) <= 1:
        runs = np.array([int(np.prod(dims, dtype=np.int64))], np.int64)
    else:
        target = _block_target(x_bcast, y_bcast, np.dtype(dtype).itemsize, packet)
        runs = _run_lengths(dims, target)
    ends = np.cumsum(runs)
    tails = runs % packet
    return np.concatenate([np.arange(e - t, e) for e, t in zip(ends, tails, strict=True)]).astype(
        np.int64
    )


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _check_shapes(x_shape: tuple, y_shape: tuple) -> None:
    """TF's ``BinaryOp`` checks: broadcastable shapes, at most 5 merged dimensions."""
    if not all(isinstance(d, int) for d in (*x_shape, *y_shape)):
        return  # symbolic: jax.numpy's broadcasting checks what it can
    try:
        np.broadcast_shapes(x_shape, y_shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Incompatible shapes: {_shape_text(x_shape)} vs. {_shape_text(y_shape)} "
            "(Pow's x and y)",
        ) from None
    if len(_bcast_dims(x_shape, y_shape)[0]) > _MAX_BCAST_DIMS:
        raise errors.UnimplementedError(
            None,
            None,
            f"Broadcast between {_shape_text(x_shape)} and {_shape_text(y_shape)} is not "
            "supported yet (Pow's x and y).",
        )


def _pow_cpu(x: jax.Array, y: jax.Array) -> jax.Array:
    """TF's float32 or float64 ``Pow`` on a CPU: Eigen's packets, and the C library's
    ``powf`` / ``pow`` where TF's executor leaves elements to the scalar path
    (:func:`_scalar_positions`)."""
    if x.dtype == jnp.float32:
        packet_fn, scalar_fn = _pow_f32, _powf_tf
    else:
        packet_fn, scalar_fn = _pow_f64, _pow_c64
    shape = jnp.broadcast_shapes(x.shape, y.shape)
    flat_x = jnp.broadcast_to(x, shape).reshape(-1)
    flat_y = jnp.broadcast_to(y, shape).reshape(-1)
    size = flat_x.size
    if not all(isinstance(d, int) for d in shape):
        # Symbolic dimensions (jax.export): as if flat, both paths on every element.
        tail = size % _PACKETS[np.dtype(x.dtype)]
        index = jnp.arange(size)
        both = (packet_fn(flat_x, flat_y), scalar_fn(flat_x, flat_y))
        return jnp.where(index < size - tail, *both).reshape(shape)
    at = _scalar_positions(x.shape, y.shape, x.dtype)
    if at.size == size:
        return scalar_fn(flat_x, flat_y).reshape(shape)
    if at.size and at[0] == size - at.size:  # one tail: the last elements
        head = int(at[0])
        parts = [packet_fn(flat_x[:head], flat_y[:head]), scalar_fn(flat_x[head:], flat_y[head:])]
        return jnp.concatenate(parts).reshape(shape)
    out = packet_fn(flat_x, flat_y)
    if at.size:
        out = out.at[at].set(scalar_fn(flat_x[at], flat_y[at]), unique_indices=True)
    return out.reshape(shape)


def _pow_c64(x: jax.Array, y: jax.Array) -> jax.Array:
    """glibc's ``pow`` (0.52 ulp): XLA's ``pow``, measured equal to it on 400,000 random
    pairs (ctypes)."""
    with jax.enable_x64(True):
        return jnp.power(x, y)


def _pow_cpu_half(x: jax.Array, y: jax.Array) -> jax.Array:
    """TF's float16 / bfloat16 ``Pow`` on a CPU: Eigen's scalar ``pow`` of the half types,
    ``powf`` of the values widened to float, rounded back (to nearest, ties to even)."""
    dtype = x.dtype
    shape = jnp.broadcast_shapes(x.shape, y.shape)
    wide = _powf_tf(*(jnp.broadcast_to(a, shape).astype(jnp.float32) for a in (x, y)))
    return _round_bfloat16(wide) if dtype == jnp.bfloat16 else wide.astype(dtype)


def _xla_pow(x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.power(x, y)


# Compiled as one program (a call outside jax.jit would run its hundred-odd operations
# one by one); inlined into a caller's trace.
_POW = jax.jit(on_cpu(_pow_cpu, _xla_pow))
_POW_HALF = jax.jit(on_cpu(_pow_cpu_half, _xla_pow))


def pow(x: Any, y: Any) -> jax.Array:  # noqa: A001 - TF's name
    """``x ** y`` as TF 2.21's CPU ``Pow`` kernel computes it, broadcast as TF's
    ``BinaryOp`` broadcasts.

    Args:
      x: a tensor (array) of a numeric dtype.
      y: a tensor of ``x``'s dtype, broadcastable with ``x``.

    Returns:
      ``x ** y`` of the broadcast shape and ``x``'s dtype. On CPUs: float32 and float64
      through Eigen's ``generic_pow`` on the elements TF's executor evaluates as packets
      (of 8 and 4) and glibc's ``powf`` / ``pow`` on the rest (see the module's
      docstring); float16 and bfloat16 through ``powf`` of the widened values, rounded
      back. Elsewhere (TF's GPU kernels call CUDA's ``pow``), and for integer and
      complex dtypes, XLA's ``pow``. No custom gradient: differentiating it
      differentiates its operations, not TF's ``_PowGrad``; the caller builds that.

    Raises:
      TypeError: ``x`` and ``y`` are not of one dtype (TF's ``Pow`` takes one ``T``).
      InvalidArgumentError: the shapes do not broadcast (TF's "Incompatible shapes").
      UnimplementedError: the broadcast needs more than 5 dimensions once TF has merged
        adjacent ones of one pattern (TF's ``BinaryOp`` stops there).

    .. note::
       TF's float32 results are not the correctly rounded ones (Eigen's ``generic_pow``
       is within 3 ulps, ``powf`` 0.82 ulp), and where an element falls (packet or
       scalar path) depends on the output's size and on how TF cuts a broadcast output
       into blocks: ``pow(x, 1.5)`` and ``pow(x[-1:], 1.5)`` may differ in their last
       element. A denormal ``x`` or ``y`` is read as zero, a result below 2**-126 is zero
       (TF's threads flush denormals), except ``pow(x, 1)``, which is ``x`` itself.
    """
    x_dtype, y_dtype = np.result_type(x), np.result_type(y)
    if x_dtype != y_dtype:
        raise TypeError(
            f"pow: x and y must have one dtype (TF's Pow takes one T), got x {x_dtype} "
            f"and y {y_dtype}"
        )
    # 64-bit values stay 64-bit whatever jax_enable_x64 says (scoped).
    with jax.enable_x64(True) if x_dtype.itemsize == 8 else contextlib.nullcontext():
        x, y = jnp.asarray(x), jnp.asarray(y)
        _check_shapes(x.shape, y.shape)
        if x.dtype in (jnp.float32, jnp.float64):
            return _POW(x, y)
        if x.dtype in (jnp.float16, jnp.bfloat16):
            return _POW_HALF(x, y)
        return jnp.power(x, y)
