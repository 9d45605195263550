"""TF's ``Rsqrt`` and ``RsqrtGrad`` CPU kernels, bit for bit: Eigen's ``prsqrt``.

On full packets TF's x86 build computes ``1 / sqrt(a)`` from the ``rsqrtps`` estimate
(12 bits) and one Newton step without FMA, ``r + r * (0.5 - ((0.5 * a) * r) * r)``
(measured against TF 2.21: every one of 2**20 values of 12 decades, where a correctly
rounded ``1 / sqrt`` matched 68%; ``rsqrt(1.0)`` is ``0.99999988``), the estimate itself
where it is 0 or infinite (``a`` of 0, a denormal, +inf). The elements that do not fill a
packet take the scalar path, ``1 / sqrtf(a)``: both correctly rounded.

The estimate is the CPU's: Intel's ``rsqrtps`` depends on the exponent's parity and
the top 11 bits of the mantissa only (checked over all 2**31 positive normal float32
values on an Intel Xeon: one 12-bit mantissa per pair, ``_ESTIMATE``); AMD's differ
(within the same documented ``1.5 * 2**-12`` relative error), and so does TF there.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jtrain._eigen import on_cpu
from jtrain._eigen._packet import PACKET, packets
from jtrain._numerics import rounded

__all__ = ["rsqrt", "rsqrt_grad", "rsqrt_rows"]

_SIGN_BIT = np.int32(-0x80000000)


def _table(start: int, steps: str) -> np.ndarray:
    return start - np.concatenate([[0], np.cumsum([int(c) for c in steps])])


# rsqrtps's 12-bit result mantissa (bits 22..11) for an even biased exponent, then an
# odd one, by the input's mantissa bits 22..12: its first value, then each next one's
# decrease (measured; see the module docstring).
_EVEN_STEPS = (
    "0302030303030203030303020303030203030303020303020303030203030203030302030302030302030302"
    "0303020303020302030302030203030203020303020302030203030203020302030203020303020302030203"
    "0203020302020302030203020302030203020203020302030202030203020203020302020302020302030202"
    "0302020302020302020302020302020302020302020203020203020202030202020302020203020202030202"
    "0203020202020302020202030202020203020202020203020202020203020202020202030202020202020203"
    "0202020202020202020302020202020202020202020202020302020202020202020202020202020202020202"
    "0202020202020202020202020202020202020202020202010202020202020202020202020202010202020202"
    "0202020202010202020202020201020202020202020102020202020201020202020201020202020201020202"
    "0201020202020102020202010202020201020202020102020201020202010202020102020201020202010202"
    "0201020201020202010202010202020102020102020102020201020201020201020201020201020201020201"
    "0202010202010201020201020201020201020102020102010202010202010201020201020102020102010201"
    "0202010201020102020102010201020201020102010201020102020102010201020102010201020102020102"
    "0102010201020102010201020102010201020102010201010201020102010201020102010201020101020102"
    "0102010201020101020102010201010201020102010102010201020101020102010102010201010201020101"
    "0201020101020102010102010102010201010201010201020101020101020101020102010102010102010102"
    "0101020101020101020101020101020101020101020101010201010201010201010201010102010102010101"
    "0201010201010102010102010101020101020101010201010102010101020101010201010102010101020101"
    "0102010101020101010201010101020101010201010101020101010201010101020101010102010101010201"
    "0101010201010101020101010101020101010102010101010102010101010102010101010102010101010102"
    "0101010101010201010101010102010101010101020101010101010201010101010101020101010101010101"
    "0201010101010101010201010101010101010201010101010101010101020101010101010101010101020101"
    "0101010101010101010102010101010101010101010101010101020101010101010101010101010101010101"
    "0101010201010101010101010101010101010101010101010101010101010101010101010101010101010101"
    "01010101010101010101010"
)
_ODD_STEPS = (
    "0404040404040404040404040304040404040404040403040404040404030404040403040404040304040403"
    "0404040304040403040403040403040403040403040403040403040304040304030404030403040304040304"
    "0304030403040304030403040304030403030403040304030304030403030403040303040303040304030304"
    "0303040303030403030403030403030304030303040303030403030303040303030304030303030304030303"
    "0303040303030303030304030303030303030303030403030303030303030303030303030303030303030303"
    "0303030303030303030303030303020303030303030303030303020303030303030302030303030303020303"
    "0303030203030303020303030302030303030203030302030303020303030203030302030302030303020303"
    "0203030203030203030203030203030203030203030203020303020303020302030302030203020303020302"
    "0302030302030203020302030203030203020302030203020302030203020302030203020203020302030203"
    "0203020203020302030202030203020203020302020302030202030203020203020203020203020302020302"
    "0203020203020203020203020202030202030202030202020302020203020203020202030202020302020203"
    "0202020203020202030202020203020202020302020202030202020203020202020203020202020202030202"
    "0202020203020202020202020302020202020202020302020202020202020202030202020202020202020202"
    "0202020202030202020202020202020202020202020202020202020202020202020202020202020202020202"
    "0202020202020202010202020202020202020202020202020201020202020202020202020201020202020202"
    "0202020102020202020202020102020202020201020202020202010202020202020102020202020102020202"
    "0201020202020102020202010202020201020202020102020202010202020102020202010202020102020201"
    "0202020102020201020202010202020102020201020201020202010202010202020102020102020201020201"
    "0202010202010202020102020102020102020102020102020102020102020102010202010202010202010201"
    "0202010202010202010201020201020102020102020102010202010201020201020102010202010201020201"
    "0201020102020102010201020201020102010201020201020102010201020102010202010201020102010201"
    "0201020102010201020201020102010201020102010201020102010201020101020102010201020102010201"
    "0201020102010201010201020102010201020102010102010201020102010102010201020101020102010201"
    "01020102010201010201020"
)
_ESTIMATE = (np.concatenate([_table(1695, _EVEN_STEPS), _table(4094, _ODD_STEPS)]) << 11).astype(
    np.int32
)


def _bits(x: jax.Array) -> jax.Array:
    return jax.lax.bitcast_convert_type(x, jnp.int32)


def _float(b: jax.Array) -> jax.Array:
    return jax.lax.bitcast_convert_type(b, jnp.float32)


def _rsqrt_estimate(a: jax.Array) -> jax.Array:
    """``rsqrtps`` of float32 ``a``: +-inf for +-0 and denormals, 0 for +inf, NaN for
    other negative values (the default NaN), NaN kept."""
    b = _bits(a)
    e = (b >> 23) & 0xFF
    key = ((e & 1) << 11) | ((b >> 12) & 0x7FF)
    out = (((190 - (e & 1)) - (e >> 1)) << 23) | jnp.take(jnp.asarray(_ESTIMATE), key)
    out = jnp.where(e == 0xFF, 0, out)  # +inf (a NaN or a negative value is set below)
    out = jnp.where(e == 0, (b & _SIGN_BIT) | 0x7F800000, out)
    out = jnp.where((b < 0) & (e != 0), np.int32(-0x400000), out)
    return _float(jnp.where(jnp.isnan(a), b | 0x400000, out))  # (a NaN quieted)


def _half_times(a: jax.Array, r: jax.Array) -> jax.Array:
    """``(0.5 * a) * r`` as TF rounds it: ``0.5 * a`` is a denormal where ``a`` is in the
    lowest normal binade (XLA's CPU code flushes denormals to zero). There it is
    ``k * 2**-149``, ``k`` the mantissa halved (ties to even); ``k * r`` is scaled back
    in the exponent's bits (XLA would fold two constant factors into one that overflows)."""
    normal = rounded(jnp.float32(0.5) * a) * r
    b = _bits(a)
    m = (b & 0x7FFFFF) | 0x800000  # a * 2**149 where the exponent field is 1
    k = (m >> 1) + (m & (m >> 1) & 1)
    product = _bits(rounded(k.astype(jnp.float32) * r))  # ~2**85: normal
    tiny = _float(product - (149 << 23)) * jnp.where(b < 0, -1, 1).astype(jnp.float32)
    return jnp.where(((b >> 23) & 0xFF) == 1, tiny, normal)


def _rsqrt_f32(a: jax.Array) -> jax.Array:
    """Eigen's ``prsqrt<Packet8f>``: the estimate and one Newton step without FMA."""
    r = _rsqrt_estimate(a)
    t = jnp.float32(0.5) - rounded(rounded(_half_times(a, r)) * r)
    newton = rounded(r * t) + r
    keep = (r == 0) | jnp.isinf(r)
    return jnp.where(keep, r, newton)


def _xla_rsqrt(x: jax.Array) -> jax.Array:
    """``1 / sqrt(x)``, the quotient correctly rounded: ``abs`` keeps XLA from folding it
    to its approximate ``rsqrt``, and ``1 / x`` gives a zero its signed infinity (TF's
    ``1 / sqrt(-0.0)`` is ``-inf``; ``|sqrt(-0.0)|`` would make it ``+inf``)."""
    one = jnp.ones((), x.dtype)
    return jnp.where(x == 0, one / x, one / jnp.abs(jnp.sqrt(x)))


_rsqrt_scalar = _xla_rsqrt  # TF's scalar path: 1 / sqrtf


def _paths(dtype: jnp.dtype) -> tuple[Callable[..., jax.Array], Callable[..., jax.Array]]:
    """The packet path and the scalar path of ``Rsqrt`` for ``dtype``, on float32
    values, each rounded to ``dtype``."""
    if dtype == jnp.float32:
        return _rsqrt_f32, _rsqrt_scalar
    # float16/bfloat16: packets widened to float32 and rounded once; the scalar path is
    # ``1 / sqrt(x)`` in the half type, each operation rounded (measured against TF).
    info = jnp.finfo(dtype)
    narrow = lambda v: jax.lax.reduce_precision(v, info.nexp, info.nmant)
    packet = lambda a: narrow(_rsqrt_f32(a))
    scalar = lambda a: narrow(jnp.float32(1) / narrow(jnp.sqrt(a)))
    return packet, scalar


def _eigen_rsqrt(x: jax.Array) -> jax.Array:
    return packets(*_paths(x.dtype))(x.astype(jnp.float32)).astype(x.dtype)


_RSQRT = on_cpu(_eigen_rsqrt, _xla_rsqrt)


@jax.custom_vjp
def rsqrt(x: jax.Array) -> jax.Array:
    """``tf.math.rsqrt`` as TF's CPU kernel computes it (Eigen's ``prsqrt``).

    Args:
      x: a tensor of a floating or complex dtype.

    Returns:
      ``1 / sqrt(x)``, of ``x``'s dtype: float32 on CPUs from the ``rsqrtps`` estimate
      and a Newton step (the last ``size % 8`` elements ``1 / sqrtf``), float16 and
      bfloat16 through float32; float64 the correctly rounded quotient, complex values
      and other platforms XLA's. Its gradient is TF's ``RsqrtGrad``.
    """
    x = jnp.asarray(x)
    if x.dtype in (jnp.float32, jnp.float16, jnp.bfloat16):
        return _RSQRT(x)
    if jnp.issubdtype(x.dtype, jnp.floating):
        return _xla_rsqrt(x)
    return jax.lax.rsqrt(x)


def _rsqrt_fwd(x: jax.Array) -> tuple:
    y = rsqrt(x)
    return y, y


def _rsqrt_bwd(y: jax.Array, dy: jax.Array) -> tuple:
    return (rounded(rsqrt_grad(y, dy)),)


rsqrt.defvjp(_rsqrt_fwd, _rsqrt_bwd)


def _by_row(x: jax.Array) -> jax.Array:
    """``_eigen_rsqrt`` of each row of ``x`` (its first dimension) on its own: the full
    packets of the row's values, then the row's last ``size % 8`` on the scalar path."""
    packet, scalar = _paths(x.dtype)
    rows = x.reshape(x.shape[0], math.prod(x.shape[1:])).astype(jnp.float32)
    width = rows.shape[1]
    if not isinstance(width, int):  # a symbolic row size: each value's column picks
        column = jax.lax.broadcasted_iota(np.int32, rows.shape, 1)
        out = jnp.where(column < width - width % PACKET, packet(rows), scalar(rows))
    else:
        head = width - width % PACKET
        out = jnp.concatenate([packet(rows[:, :head]), scalar(rows[:, head:])], axis=1)
    return out.astype(x.dtype).reshape(x.shape)


_RSQRT_ROWS = on_cpu(_by_row, _xla_rsqrt)


@jax.custom_vjp
def rsqrt_rows(x: jax.Array) -> jax.Array:
    """``rsqrt`` of each row of ``x`` as TF's sparse training kernels compute it.

    ``SparseApplyAdagrad``, ``SparseApplyAdadelta``, ``SparseApplyRMSProp``... loop over
    the rows a gradient touches and evaluate an Eigen expression on each row: the
    packets restart at each row (a row of 11 values is one packet and 3 values on the
    scalar path), where :func:`rsqrt` takes the packets of the flattened tensor.

    Args:
      x: a tensor of rank >= 1 whose first dimension indexes the rows (a row of a
        rank-1 tensor is one value: the scalar path).

    Returns:
      ``1 / sqrt(x)``, of ``x``'s dtype, each row as :func:`rsqrt` of that row alone.
    """
    x = jnp.asarray(x)
    if x.dtype in (jnp.float32, jnp.float16, jnp.bfloat16):
        return _RSQRT_ROWS(x)
    return rsqrt(x)


def _rows_fwd(x: jax.Array) -> tuple:
    y = rsqrt_rows(x)
    return y, y


rsqrt_rows.defvjp(_rows_fwd, _rsqrt_bwd)


def _grad_packet(y: jax.Array, dy: jax.Array) -> jax.Array:
    """``RsqrtGrad``'s packet path: ``mul_no_nan(-0.5 * y * y, mul_no_nan(y, dy))``
    (``mul_no_nan(a, b)``: +0 where ``b`` is 0)."""
    zero = jnp.zeros((), y.dtype)
    inner = jnp.where(dy == 0, zero, rounded(y * dy))
    outer = rounded(jnp.asarray(-0.5, y.dtype) * rounded(y * y)) * inner
    return jnp.where(inner == 0, zero, outer)


def _grad_scalar(y: jax.Array, dy: jax.Array) -> jax.Array:
    """``RsqrtGrad``'s scalar path: 0 where ``dy`` is 0, else ``-0.5 * (dy * y) * (y * y)``
    (-0.0 where ``y`` is 0)."""
    out = rounded(jnp.asarray(-0.5, y.dtype) * rounded(dy * y)) * rounded(y * y)
    return jnp.where(dy == 0, jnp.zeros((), y.dtype), out)


_GRAD = on_cpu(packets(_grad_packet, _grad_scalar), _grad_packet)


def rsqrt_grad(y: jax.Array, dy: jax.Array) -> jax.Array:
    """TF's ``RsqrtGrad`` kernel: ``-0.5 * y**3 * dy`` in its order, 0 where ``dy`` is 0.

    Args:
      y: ``rsqrt(x)``.
      dy: the gradient with respect to ``y``.

    Returns:
      The gradient with respect to ``x``, of ``y``'s dtype.
    """
    if jnp.issubdtype(y.dtype, jnp.complexfloating):
        return jnp.asarray(-0.5, y.dtype) * jnp.conj(y * y * y) * dy
    return _GRAD(y, dy)
