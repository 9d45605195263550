"""glibc's ``expf``, ``logf`` and ``sincosf`` (2.36, x86-64), bit for bit, as TF calls them.

TF's CPU kernels hand the elements that do not fill a packet of 8 (a rank-0 tensor, the
last ``size % 8`` values) to Eigen's scalar functor, which calls the C library. glibc's
``expf`` (0.502 ulp) and ``logf`` (0.818 ulp) are not correctly rounded: a float64
evaluation rounded to float32 differs from them on a few values (``logf(1.0285715f)``:
glibc 0.028170932, correctly rounded 0.028170934). TF's float32 normal draws
(``BoxMullerFloat``) call ``logf`` and ``sincosf`` for every value.

All three are ARM's optimized-routines algorithms (glibc's
``sysdeps/ieee754/flt-32/e_expf.c``, ``e_logf.c``, ``s_sincosf.c`` and their data
files), float64 arithmetic on a table:

- ``expf``: ``x * 32 / ln 2 = k + r`` (``k`` rounded to nearest by adding ``1.5 * 2**52``),
  ``2**(k / 32)`` from a 32-entry table whose exponent field takes ``k // 32``, and a
  cubic in ``r``;
- ``logf``: ``x = 2**k * z`` with ``z`` near 1, ``log(z) = log(c) + log1p(z / c - 1)``
  with ``1 / c`` and ``log(c)`` from a 16-entry table (by ``z``'s leading mantissa bits)
  and a cubic for ``log1p``;
- ``sincosf`` (with ``s_sincosf.h`` and ``sincosf_poly.h``; 0.56 ulp): ``x``
  less the nearest multiple ``n`` of pi/2, then a sine and a cosine polynomial of the
  remainder (odd of degree 7, even of degree 8), swapped and negated by ``n``'s low
  bits. Below ``|x| < 0.75`` no reduction (below 2**-12 the result is ``(x, 1)``);
  below 120 one multiply-subtract (``n`` from the integer part of ``x * 2**24 * 2 / pi``);
  above, the 24-bit mantissa times a 96-bit window of 4/pi, in integers.

glibc picks one of two compilations of that C source when it is loaded (an ``ifunc``):
``__expf_fma`` / ``__logf_fma`` / ``__sincosf_fma`` where the CPU has FMA and AVX2 (the
compiler contracted ``a * b + c`` into fused multiply-adds, read from the disassembly of
Debian's ``libm.so.6``: every product that feeds an addition, the product
``x * 32 / ln 2`` of ``expf`` twice, once per use; ``sincosf``'s reduction
``x - n * pi / 2`` and its seven polynomial steps), ``__expf_sse2`` / ``__logf_sse2`` /
``__sincosf_sse2`` (each product rounded) elsewhere. :func:`fma_variant` reads the same
flags from ``/proc/cpuinfo``; XLA's CPU backend contracts the same products into FMAs
where the CPU has them (the variant's computation below leaves them to it), and
:func:`jtrain._numerics.rounded` keeps each product rounded for the other variant.

TF runs its kernels with denormals flushed (``ScopedFlushDenormal``: FTZ and DAZ), and so
do the C functions it calls: an ``expf`` result below 2**-126 is 0 (measured on TF 2.21:
``exp(-87.5)`` is 0, glibc alone gives 9.98e-39) and a denormal argument of ``logf`` is
read as 0 by the one float operation that meets it (its normalization ``x * 2**23``),
which leaves bits that decode to ``-150 * ln 2`` (TF: ``log(1e-45)`` is -103.97208 for
every positive denormal). Both are reproduced here, whatever XLA's own flags.

The tables are glibc's (``__exp2f_data``, ``__logf_data``; data, MIT/LGPL: see NOTICE),
checked against the bytes of ``libm.so.6``. Measured against glibc 2.36 itself (both
compilations called through ctypes with FTZ and DAZ set, all 2**32 float32 arguments):
identical results, NaN's included, for both variants of both functions. The two
variants differ on two arguments only (``expf(32.564632)``, ``expf(-63.09946)``), which
XLA reproduces where it compiles the computation as one (under ``jax.jit``); op by op,
or folded at compile time (all its inputs constants), it is evaluated without FMA, as
the plain variant.

``sincosf``'s table (``__sincosf_table``, ``__inv_pio4``) is read from ``libm.so.6``
too. Its two compilations are not exported symbols: they were measured by calling the
two addresses its ``ifunc`` resolver returns, with FTZ and DAZ set: identical
sines and cosines on every one of the 2**23 arguments of TF's normal draws
(``float(2 * pi * k / 2**23)``), on 2**24 bit patterns spread over all 2**32 (NaN's
included), and on the 34 arguments where the two compilations differ from each other
(all 2**32 compared: 17 values of ``17 < |x| < 120`` with either sign, none in the
draws' ``[0, 2 pi)``). FTZ and DAZ change none of its results (measured the same): no
intermediate is a denormal, and a denormal argument is returned unchanged as its sine.
"""

from __future__ import annotations

import functools
import os
import platform

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jtrain._eigen import cpu_flags
from jtrain._numerics import rounded

__all__ = ["expf", "fma_variant", "logf", "sincosf"]

_H = float.fromhex

# __exp2f_data: tab[i] = bits of 2**(i/32) less i << 47, so that adding k << 47 (k the
# integer of x * 32 / ln 2) sets the exponent of 2**(k/32) as well.
_EXP2F_TAB = np.array(
    [
        0x3FF0000000000000, 0x3FEFD9B0D3158574, 0x3FEFB5586CF9890F, 0x3FEF9301D0125B51,
        0x3FEF72B83C7D517B, 0x3FEF54873168B9AA, 0x3FEF387A6E756238, 0x3FEF1E9DF51FDEE1,
        0x3FEF06FE0A31B715, 0x3FEEF1A7373AA9CB, 0x3FEEDEA64C123422, 0x3FEECE086061892D,
        0x3FEEBFDAD5362A27, 0x3FEEB42B569D4F82, 0x3FEEAB07DD485429, 0x3FEEA47EB03A5585,
        0x3FEEA09E667F3BCD, 0x3FEE9F75E8EC5F74, 0x3FEEA11473EB0187, 0x3FEEA589994CCE13,
        0x3FEEACE5422AA0DB, 0x3FEEB737B0CDC5E5, 0x3FEEC49182A3F090, 0x3FEED503B23E255D,
        0x3FEEE89F995AD3AD, 0x3FEEFF76F2FB5E47, 0x3FEF199BDD85529C, 0x3FEF3720DCEF9069,
        0x3FEF5818DCFBA487, 0x3FEF7C97337B9B5F, 0x3FEFA4AFA2A490DA, 0x3FEFD0765B6E4540,
    ],
    np.uint64,
)  # fmt: skip
_EXP_INV_LN2_N = _H("0x1.71547652b82fep+0") * 32
_EXP_SHIFT = _H("0x1.8p+52")
# The cubic's coefficients for r in units of 1/32 (the table's step): C0 r**3 + C1 r**2 + C2 r.
_EXP_C0 = _H("0x1.c6af84b912394p-5") / 32**3
_EXP_C1 = _H("0x1.ebfce50fac4f3p-3") / 32**2
_EXP_C2 = _H("0x1.62e42ff0c52d6p-1") / 32
_EXP_OVERFLOW = np.float32(_H("0x1.62e42ep6"))  # above: +inf (log(2**128) ~ 88.72)
# Below: 2**-149 at most, flushed to 0 (glibc's __math_may_uflowf and __math_uflowf).
_EXP_UNDERFLOW = np.float32(_H("-0x1.9d1d9ep6"))
# A float64 result rounds (unbounded exponent) to a float32 below 2**-126, which FTZ
# flushes to 0, exactly where it is below 2**-126 - 2**-151.
_FLUSH_BELOW = 2.0**-126 - 2.0**-151

# __logf_data: 1/c and log(c) for the 16 subintervals of [0x3f330000, 2 * 0x3f330000).
_LOGF_INVC = np.array(
    [_H(v) for v in (
        "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
        "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
        "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0", "0x1p+0",
        "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
        "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1",
    )],
    np.float64,
)  # fmt: skip
_LOGF_LOGC = np.array(
    [_H(v) for v in (
        "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
        "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
        "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5", "0x0p+0",
        "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
        "0x1.bc2860d224770p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2",
    )],
    np.float64,
)  # fmt: skip
_LOG_LN2 = _H("0x1.62e42fefa39efp-1")
_LOG_A0 = _H("-0x1.00ea348b88334p-2")
_LOG_A1 = _H("0x1.5575b0be00b6ap-2")
_LOG_A2 = _H("-0x1.ffffef20a4123p-2")
_LOG_OFF = 0x3F330000
# What glibc's normalization of a denormal leaves in the bits when DAZ reads it as 0:
# asuint(0 * 0x1p23f) - (23 << 23).
_LOG_DENORMAL_BITS = (-(23 << 23)) % 2**32
_DEFAULT_NAN = np.uint32(0xFFC00000)  # x86's default NaN, what (x - x) / (x - x) gives


# __sincosf_table[0]: 2/pi (times 2**24: the quadrant lands in bits 24..31 of its
# integer), pi/2, the cosine's polynomial c0..c4 and the sine's s1..s3 (its entry [1]
# negates the cosine's, which is the result's sign here).
_SC_HPI_INV = _H("0x1.45f306dc9c883p+23")
_SC_HPI = _H("0x1.921fb54442d18p+0")
_SC_C0, _SC_C1, _SC_C2, _SC_C3, _SC_C4 = (
    1.0, _H("-0x1.ffffffd0c621cp-2"), _H("0x1.55553e1068f19p-5"),
    _H("-0x1.6c087e89a359dp-10"), _H("0x1.99343027bf8c3p-16"),
)  # fmt: skip
_SC_S1, _SC_S2, _SC_S3 = (
    _H("-0x1.555545995a603p-3"), _H("0x1.1107605230bc4p-7"), _H("-0x1.994eb3774cf24p-13"),
)  # fmt: skip
# __inv_pio4: 4/pi to 192 bits, 8 new bits per entry (any three entries 4 apart are a
# 96-bit window of it).
_INV_PIO4 = np.array(
    [
        0xA2, 0xA2F9, 0xA2F983, 0xA2F9836E, 0xF9836E4E, 0x836E4E44, 0x6E4E4415, 0x4E441529,
        0x441529FC, 0x1529FC27, 0x29FC2757, 0xFC2757D1, 0x2757D1F5, 0x57D1F534, 0xD1F534DD,
        0xF534DDC0, 0x34DDC0DB, 0xDDC0DB62, 0xC0DB6295, 0xDB629599, 0x6295993C, 0x95993C43,
        0x993C4390, 0x3C439041,
    ],
    np.uint32,
)  # fmt: skip
_SC_PI63 = _H("0x1.921fb54442d18p-62")  # 2 pi / 2**64: the large reduction's fixed point
# Thresholds on the top 12 bits of |x| (its exponent and 3 mantissa bits), as glibc's.
_SC_SMALL = 0x3F4  # below: |x| < 0.75, no reduction (abstop12 of pi/4 as a float)
_SC_TINY = 0x398  # below: |x| < 2**-12, sin x = x and cos x = 1
_SC_FAST = 0x42F  # below: |x| < 120, one multiply-subtract reduction
_SC_INF = 0x7F8


@functools.cache
def fma_variant() -> bool:
    """Whether glibc runs the FMA compilation of ``expf`` / ``logf`` / ``sincosf`` on this
    CPU (their three ``ifunc`` resolvers test the same two features).

    glibc's x86-64 ``ifunc`` selector picks it where the CPU's FMA and AVX2 are usable;
    read here once from the ``flags`` line of ``/proc/cpuinfo`` (the kernel lists
    ``avx2`` only where it saves the AVX state, as glibc's "usable" requires), less what
    ``GLIBC_TUNABLES``'s ``glibc.cpu.hwcaps`` masks off (``-AVX2...``, ``-FMA...``).
    aarch64's glibc is compiled with FMA throughout. Elsewhere (no ``/proc/cpuinfo``: not
    glibc) the plain variant.

    Returns:
      ``True`` for the FMA variant.
    """
    return _fma_variant("/proc/cpuinfo")


def _fma_variant(cpuinfo: str) -> bool:
    if platform.machine().lower() in ("aarch64", "arm64"):
        return True
    names = cpu_flags(cpuinfo)
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    masked = any(f"-{name}" in tunables for name in ("AVX2", "FMA"))
    return {"fma", "avx2"} <= names and not masked


def _mul(a: jax.Array, b: jax.Array | float, fma: bool) -> jax.Array:
    """``a * b`` before an addition: left to XLA's contraction (FMA variant) or rounded."""
    return a * b if fma else rounded(a * b)


def _expf(x: jax.Array, fma: bool) -> jax.Array:
    xd = x.astype(jnp.float64)
    # k = x * 32 / ln 2 rounded to an integer (in the low bits of `shifted`), r the rest.
    # The FMA variant computes the product in each of its two sums (both fused): the
    # second from a copy of x behind a barrier, or XLA and LLVM would share one product
    # between them, and not fuse a product of two uses.
    shifted = _mul(xd, _EXP_INV_LN2_N, fma) + _EXP_SHIFT
    kd = rounded(shifted) - _EXP_SHIFT  # the barrier: XLA simplifies (a + c) - c to a
    r = (rounded(xd) * _EXP_INV_LN2_N if fma else rounded(xd * _EXP_INV_LN2_N)) - kd
    ki = lax.bitcast_convert_type(shifted, jnp.uint64)
    t = jnp.asarray(_EXP2F_TAB)[(ki % np.uint64(32)).astype(jnp.int32)]
    s = lax.bitcast_convert_type(t + lax.shift_left(ki, np.uint64(47)), jnp.float64)
    z = _mul(r, _EXP_C0, fma) + _EXP_C1
    r2 = r * r
    y = _mul(r, _EXP_C2, fma) + 1.0
    y = _mul(z, r2, fma) + y
    y = y * s
    out = jnp.where(y < _FLUSH_BELOW, np.float32(0), y.astype(jnp.float32))
    out = jnp.where(x > _EXP_OVERFLOW, np.float32(np.inf), out)
    out = jnp.where(x < _EXP_UNDERFLOW, np.float32(0), out)
    return jnp.where(jnp.isnan(x), x + x, out)


def _logf(x: jax.Array, fma: bool) -> jax.Array:
    bits = lax.bitcast_convert_type(x, jnp.uint32)
    # A positive denormal: DAZ (see the module's docstring).
    ix = jnp.where((bits > 0) & (bits < 0x00800000), np.uint32(_LOG_DENORMAL_BITS), bits)
    tmp = ix - np.uint32(_LOG_OFF)
    i = (lax.shift_right_logical(tmp, np.uint32(19)) & np.uint32(15)).astype(jnp.int32)
    k = lax.shift_right_arithmetic(lax.bitcast_convert_type(tmp, jnp.int32), np.int32(23))
    iz = ix - (tmp & np.uint32(0xFF800000))
    z = lax.bitcast_convert_type(iz, jnp.float32).astype(jnp.float64)
    invc = jnp.asarray(_LOGF_INVC)[i]
    logc = jnp.asarray(_LOGF_LOGC)[i]
    r = _mul(z, invc, fma) - 1.0
    y0 = _mul(k.astype(jnp.float64), _LOG_LN2, fma) + logc
    r2 = r * r
    y = _mul(r, _LOG_A1, fma) + _LOG_A2
    y = _mul(r2, _LOG_A0, fma) + y
    y = _mul(y, r2, fma) + (y0 + r)
    out = y.astype(jnp.float32)
    # The special values by their bits, as glibc tests them: LLVM rewrites a test of
    # x's own bits for zero as a float comparison, which DAZ (XLA's threads too) makes
    # true for denormals; `ix` (denormals replaced) is no bitcast of a float.
    out = jnp.where(bits == 0x7F800000, x, out)
    nan = jnp.where(jnp.isnan(x), x + x, lax.bitcast_convert_type(_DEFAULT_NAN, jnp.float32))
    out = jnp.where(bits > 0x7F800000, nan, out)  # NaN, or the sign bit set
    return jnp.where(lax.shift_left(ix, np.uint32(1)) == 0, np.float32(-np.inf), out)


def _sincos_poly(x: jax.Array, fma: bool) -> tuple[jax.Array, jax.Array]:
    """glibc's ``sincosf_poly`` (its table's first entry) on a reduced float64 ``x``:
    sine and cosine polynomials, rounded to float32."""
    x2 = x * x
    x3 = x2 * x
    x4 = x2 * x2
    x5 = x3 * x2
    x6 = x4 * x2
    c1 = _mul(x2, _SC_C1, fma) + _SC_C0
    c2 = _mul(x2, _SC_C4, fma) + _SC_C3
    s1 = _mul(x2, _SC_S3, fma) + _SC_S2
    s = _mul(x3, _SC_S1, fma) + x
    c = _mul(x4, _SC_C2, fma) + c1
    sin = _mul(x5, s1, fma) + s
    cos = _mul(x6, c2, fma) + c
    return sin.astype(jnp.float32), cos.astype(jnp.float32)


def _reduce_large(bits: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``|x| mod pi/2`` for ``|x| >= 2`` (float32 ``bits``) by fixed-point arithmetic:
    the 24-bit mantissa times a 96-bit window of 4/pi gives the quadrant (the nearest
    multiple of pi/2, its two low bits) and the remainder in 2.62 fixed point, exact.

    Returns:
      ``(remainder float64 in [-pi/4, pi/4], quadrant int32)``.
    """
    u64 = jnp.uint64
    table = jnp.asarray(_INV_PIO4)
    start = (lax.shift_right_logical(bits, np.uint32(26)) & np.uint32(15)).astype(jnp.int32)
    shift = lax.shift_right_logical(bits, np.uint32(23)) & np.uint32(7)
    m = lax.shift_left((bits & np.uint32(0xFFFFFF)) | np.uint32(0x800000), shift)
    high = (m * table[start]).astype(u64)  # only its low 32 bits count
    mid = m.astype(u64) * table[start + 4].astype(u64)
    low = m.astype(u64) * table[start + 8].astype(u64)
    frac = (lax.shift_right_logical(low, u64(32)) | lax.shift_left(high, u64(32))) + mid
    n = lax.shift_right_logical(frac + u64(1 << 61), u64(62))
    frac = frac - lax.shift_left(n, u64(62))
    x = lax.bitcast_convert_type(frac, jnp.int64).astype(jnp.float64) * _SC_PI63
    return x, n.astype(jnp.int32)


def _sincosf(y: jax.Array, fma: bool, large: bool = True) -> tuple[jax.Array, jax.Array]:
    """glibc's ``sincosf`` (``large=False``: for ``|y| < 120`` only, the large
    reduction left out)."""
    bits = lax.bitcast_convert_type(y, jnp.uint32)
    top = lax.shift_right_logical(bits, np.uint32(20)) & np.uint32(0x7FF)
    x = y.astype(jnp.float64)
    # |y| < 120: n = round(y * 2 / pi) (in bits 24..31 of the product's integer part,
    # truncated), r = y - n * pi / 2, one fused multiply-subtract in the FMA variant.
    scaled = (x * _SC_HPI_INV).astype(jnp.int32)
    n = lax.shift_right_arithmetic(scaled + np.int32(0x800000), np.int32(24))
    r = x - _mul(n.astype(jnp.float64), _SC_HPI, fma)
    small = top < _SC_SMALL
    r = jnp.where(small, x, r)
    n = jnp.where(small, np.int32(0), n)
    quadrant = n  # selects the signs (n + the sign of y in the large reduction)
    if large:
        r_large, n_large = _reduce_large(bits)
        far = top >= _SC_FAST
        r = jnp.where(far, r_large, r)
        n = jnp.where(far, n_large, n)
        sign = lax.shift_right_logical(bits, np.uint32(31)).astype(jnp.int32)
        quadrant = jnp.where(far, n_large + sign, quadrant)
    sin, cos = _sincos_poly(r, fma)
    # glibc evaluates the sine polynomial on -r in quadrants 1 and 2 and takes the
    # negated cosine polynomial in 2 and 3: exactly the polynomials' values negated.
    q = quadrant & np.int32(3)
    sin = jnp.where((q == 1) | (q == 2), -sin, sin)
    cos = jnp.where(q >= 2, -cos, cos)
    odd = (n & np.int32(1)) == 1  # the sine is the cosine's polynomial and vice versa
    sin, cos = jnp.where(odd, cos, sin), jnp.where(odd, sin, cos)
    tiny = top < _SC_TINY
    sin = jnp.where(tiny, y, sin)
    cos = jnp.where(tiny, np.float32(1), cos)
    if large:
        nan = jnp.where(jnp.isnan(y), y + y, lax.bitcast_convert_type(_DEFAULT_NAN, jnp.float32))
        sin = jnp.where(top >= _SC_INF, nan, sin)
        cos = jnp.where(top >= _SC_INF, nan, cos)
    return sin, cos


def _separate(y: jax.Array) -> jax.Array:
    """``y`` computed in a loop of its own: keeps the table lookups (gathers) out of the
    loop XLA fuses from a tensor's packets and its scalar tail (their concatenation)."""
    return lax.optimization_barrier(y)


def expf(x: jax.Array) -> jax.Array:
    """glibc's ``expf`` of float32 values as TF's kernels call it (denormals flushed).

    Args:
      x: a float32 array.

    Returns:
      ``expf(x)``, float32: 0 where the result is below 2**-126 (``x`` below about
      -87.34), +inf above 88.72, NaN for NaN.
    """
    with jax.enable_x64(True):  # float64 and uint64 whatever jax_enable_x64 says (scoped)
        return _separate(_expf(jnp.asarray(x, jnp.float32), fma_variant()))


def logf(x: jax.Array) -> jax.Array:
    """glibc's ``logf`` of float32 values as TF's kernels call it (denormals read as 0 by
    its normalization: ``-150 ln 2``).

    Args:
      x: a float32 array.

    Returns:
      ``logf(x)``, float32: ``-inf`` at +-0, +inf at +inf, NaN below 0 (x86's default
      NaN, sign bit set) and for NaN.
    """
    with jax.enable_x64(True):
        return _separate(_logf(jnp.asarray(x, jnp.float32), fma_variant()))


def sincosf(x: jax.Array, below_120: bool = False) -> tuple[jax.Array, jax.Array]:
    """glibc's ``sincosf`` of float32 values, as TF's normal draws call it.

    Args:
      x: a float32 array.
      below_120: the caller knows every ``|x|`` is below 120 (and finite): the large
        arguments' reduction is left out of the computation (their results are then
        wrong).

    Returns:
      ``(sinf(x), cosf(x))``, float32: ``(x, 1)`` for ``|x| < 2**-12`` (denormals
      included: glibc returns the argument itself), NaN for infinities (x86's default
      NaN) and NaN.
    """
    with jax.enable_x64(True):
        sin, cos = _sincosf(jnp.asarray(x, jnp.float32), fma_variant(), large=not below_120)
        return _separate(sin), _separate(cos)
