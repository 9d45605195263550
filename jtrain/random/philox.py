"""TF's Philox4x32-10 stream and its bits-to-values conversions, in JAX.

TensorFlow's random kernels draw from ``random::PhiloxRandom`` (Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3"): a 64-bit key ``(k0, k1)`` and a
128-bit counter ``(c0, c1, c2, c3)``. One call gives four ``uint32`` words and
advances the counter by one. Ten rounds, each

.. math::

    (hi_0, lo_0) = M_A \\cdot c_0, \\quad (hi_1, lo_1) = M_B \\cdot c_2 \\\\
    c \\leftarrow (hi_1 \\oplus c_1 \\oplus k_0,\\ lo_1,\\ hi_0 \\oplus c_3 \\oplus k_1,\\ lo_0)

with ``M_A = 0xD2511F53``, ``M_B = 0xCD9E8D57``, and the key raised by
``(0x9E3779B9, 0xBB67AE85)`` between rounds. Everything here is ``uint32``
arithmetic (the 32x32->64 products as scoped uint64 ones), vectorized over many
counters, so a draw is elementwise integer work inside a jitted program.

A stateful TF op (``RandomUniform``...) owns a ``GuardedPhiloxRandom``: key
``(seed, 0)`` and counter ``(0, 0, seed2, 0)`` from its ``seed``/``seed2``
attributes (:func:`seeded`); each run fills its output from the counter it finds,
and moves it on by ``256 * num_elements`` (:func:`reserve`). The output is filled
in groups of one call each (``kResultElementCount`` values: 4 for 32-bit and 16-bit
types, 2 for 64-bit ones), group ``g`` from counter ``+ g``; the truncated normal
gives each group of outputs its own region of 256 values per output (``+ g * 256``
calls for 4 float outputs) and rejects candidates beyond two standard deviations.
``RandomShuffle`` instead reserves one word per swap (``ReserveSamples32``: the
counter moves on by ``ceil((n - 1) / 4)`` calls) and reads them one at a time
(:func:`shuffle_permutation`).

.. note::
   TF's normal draws call the C library's ``logf`` and ``sincosf`` (``log`` and
   ``sincos`` for float64), so TF's own bits depend on the machine's libm. float32
   (and the 16-bit types, rounded from it) use glibc 2.36's, reproduced bit for bit
   (:mod:`jtrain._eigen._libm`, measured against glibc on each of the 2**23 arguments
   a draw can give either function): TF 2.21's values on every element. (Computed in
   float64 and rounded, 1.5% of float32 values were 1-2 ulps off, 2 in a million
   float16 ones.) float64 uses XLA's float64 ``log``/``sin``/``cos``: measured equal to
   glibc's ``log``/``sincos`` on 2,000,000 draws, and to TF's on 2,000,000 more.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jtrain._eigen import _libm

__all__ = [
    "RESERVED_SAMPLES_PER_OUTPUT",
    "seeded",
    "stateless_key_counter",
    "philox",
    "skip",
    "reserve",
    "random_bits",
    "uint32_to_float",
    "uint16_to_half",
    "uint16_to_bfloat16",
    "uint64_to_double",
    "box_muller_float",
    "box_muller_double",
    "uniform",
    "uniform_int",
    "normal",
    "truncated_normal",
    "shuffle_permutation",
]

_KEY_A = 0x9E3779B9
_KEY_B = 0xBB67AE85
_MUL_A = 0xD2511F53
_MUL_B = 0xCD9E8D57
_MASK = 0xFFFFFFFF
RESERVED_SAMPLES_PER_OUTPUT = 256  # TF's ReserveRandomOutputs multiplier (and the
# truncated normal's region per output: FillPhiloxRandomTask's kReservedSamplesPerOutput)
_U32 = jnp.uint32


def _u32(x: Any) -> Any:
    return jnp.asarray(x, _U32) if not hasattr(x, "dtype") else x.astype(_U32)


def seeded(seed: int, seed2: int) -> tuple[Any, Any]:
    """The key and counter of ``PhiloxRandom(seed, seed2)`` (TF's op attributes).

    Args:
      seed: the ``seed`` attribute (the graph-level seed), a 64-bit integer.
      seed2: the ``seed2`` attribute (the op-level seed).

    Returns:
      ``(key uint32[2], counter uint32[4])``: key ``(seed lo, seed hi)``, counter
      ``(0, 0, seed2 lo, seed2 hi)``.
    """
    seed &= 2**64 - 1
    seed2 &= 2**64 - 1
    key = np.array([seed & _MASK, seed >> 32], np.uint32)
    counter = np.array([0, 0, seed2 & _MASK, seed2 >> 32], np.uint32)
    return jnp.asarray(key), jnp.asarray(counter)


# StatelessRandomGetKeyCounter scrambles a stateless op's seed under this fixed key.
_STATELESS_KEY = (0x3EC8F720, 0x02461E29)


def stateless_key_counter(seed: Any) -> tuple[Any, Any]:
    """A stateless op's key and counter from its ``seed`` (``StatelessRandomGetKeyCounter``).

    The seed's two int64 words (int32 seeds sign-extended) form a counter; one Philox
    call of it under a fixed key gives the key (its first two words) and the counter's
    high half (its last two); the low half is 0. The V2 kernels then draw from there.

    Args:
      seed: ``int32[2]`` or ``int64[2]`` (a JAX or NumPy array).

    Returns:
      ``(key uint32[2], counter uint32[4])``.
    """
    with jax.enable_x64(True):
        words = jnp.asarray(seed).astype(jnp.int64).astype(jnp.uint64)
        lo = words.astype(_U32)
        hi = (words >> jnp.uint64(32)).astype(_U32)
    k0, k1 = _U32(_STATELESS_KEY[0]), _U32(_STATELESS_KEY[1])
    m0, m1, m2, m3 = _rounds(k0, k1, lo[0], hi[0], lo[1], hi[1])
    zero = jnp.zeros((), _U32)
    return jnp.stack([m0, m1]), jnp.stack([zero, zero, m2, m3])


def _mulhilo(m: int, x: Any) -> tuple[Any, Any]:
    """``(high, low)`` words of the 64-bit product ``m * x`` (``x`` uint32).

    One uint64 product (scoped 64-bit types): on XLA's CPU backend about four times
    faster than four 16-bit partial products.
    """
    with jax.enable_x64(True):
        product = x.astype(jnp.uint64) * jnp.uint64(m)
        return (product >> jnp.uint64(32)).astype(_U32), product.astype(_U32)


Words = tuple[Any, Any, Any, Any]


def _rounds(k0: Any, k1: Any, c0: Any, c1: Any, c2: Any, c3: Any) -> Words:
    """Philox4x32-10 on counter words (any shape) under key words: the four output words.

    The ten rounds are a ``fori_loop`` (raising the key after each, which the last
    round's output does not see): unrolled, XLA's CPU backend fuses them into code
    about three times slower.
    """
    shape = jnp.broadcast_shapes(*(jnp.shape(c) for c in (c0, c1, c2, c3)))
    words = tuple(jnp.broadcast_to(_u32(c), shape) for c in (c0, c1, c2, c3))

    def round_(_: Any, state: tuple[Any, ...]) -> tuple[Any, ...]:
        k0, k1, c0, c1, c2, c3 = state
        hi0, lo0 = _mulhilo(_MUL_A, c0)
        hi1, lo1 = _mulhilo(_MUL_B, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        return k0 + _U32(_KEY_A), k1 + _U32(_KEY_B), c0, c1, c2, c3

    out = jax.lax.fori_loop(0, 10, round_, (_u32(k0), _u32(k1), *words))
    return out[2], out[3], out[4], out[5]


def philox(key: Any, counter: Any) -> Any:
    """Philox4x32-10 of ``counter`` under ``key`` (one ``PhiloxRandom()`` call each).

    Args:
      key: ``uint32[..., 2]``.
      counter: ``uint32[..., 4]``, broadcast with ``key``.

    Returns:
      ``uint32[..., 4]``: the four words TF's generator returns for that counter.
    """
    key, counter = _u32(key), _u32(counter)
    words = _rounds(key[..., 0], key[..., 1], *(counter[..., i] for i in range(4)))
    return jnp.stack(jnp.broadcast_arrays(*words), axis=-1)


def _add_words(c: Words, lo: Any, hi: Any) -> Words:
    """Counter words ``c`` plus ``(hi << 32 | lo)``, with TF's ``Skip`` carries."""
    c0, c1, c2, c3 = c
    lo, hi = _u32(lo), _u32(hi)
    c0 = c0 + lo
    hi = hi + (c0 < lo).astype(_U32)
    c1 = c1 + hi
    carry = (c1 < hi).astype(_U32)
    c2 = c2 + carry
    c3 = c3 + (carry & (c2 == 0)).astype(_U32)
    return c0, c1, c2, c3


def _add64(counter: Any, lo: Any, hi: Any) -> Any:
    """``counter + (hi << 32 | lo)`` on the 128-bit counter, with TF's ``Skip`` carries."""
    words = _add_words(tuple(counter[..., i] for i in range(4)), lo, hi)
    return jnp.stack(jnp.broadcast_arrays(*words), axis=-1)


def skip(counter: Any, count: Any) -> Any:
    """``PhiloxRandom::Skip(count)``: the counter ``count`` calls later.

    Args:
      counter: ``uint32[..., 4]``.
      count: a Python int (< 2**64), or ``uint32[..., 2]`` words ``(low, high)``.

    Returns:
      The advanced counter, ``uint32[..., 4]``.
    """
    counter = _u32(counter)
    if isinstance(count, (int, np.integer)):
        count = int(count)
        return _add64(counter, count & _MASK, (count >> 32) & _MASK)
    count = _u32(count)
    return _add64(counter, count[..., 0], count[..., 1])


def reserve(counter: Any, num_elements: int) -> Any:
    """The counter after one run of a stateful op with ``num_elements`` outputs.

    ``GuardedPhiloxRandom::ReserveRandomOutputs(num_elements, 256)``: every run moves
    the op's counter on by ``256 * num_elements`` calls, whatever the distribution.
    """
    return skip(counter, num_elements * RESERVED_SAMPLES_PER_OUTPUT)


def _offsets(i: Any, stride: int) -> tuple[Any, Any]:
    """Low and high words of ``i * stride`` (``i`` uint32, ``stride`` a power of two)."""
    shift = int(stride).bit_length() - 1
    if 1 << shift != stride:
        raise ValueError(f"stride must be a power of two, got {stride}")
    if shift == 0:
        return i, jnp.zeros_like(i)
    return i << _U32(shift), i >> _U32(32 - shift)


def _bit_words(key: Any, counter: Any, calls: int, stride: int = 1) -> Words:
    """The four words of the generator's calls at ``counter + i * stride``, each ``[calls]``."""
    key, counter = _u32(key), _u32(counter)
    lo, hi = _offsets(jnp.arange(calls, dtype=_U32), stride)
    c = _add_words(tuple(counter[i] for i in range(4)), lo, hi)
    c0, c1, c2, c3 = (jnp.broadcast_to(w, (calls,)) for w in c)
    return _rounds(key[0], key[1], c0, c1, c2, c3)


def random_bits(key: Any, counter: Any, calls: int, stride: int = 1) -> Any:
    """``uint32[calls, 4]``: the generator's calls at ``counter + i * stride``."""
    return jnp.stack(_bit_words(key, counter, calls, stride), axis=-1)


# -- bits to values (TF's random_distributions) ----------------------------------------------


def uint32_to_float(x: Any) -> Any:
    """``Uint32ToFloat``: 23 low bits as the mantissa of a float in [1, 2), minus 1."""
    bits = (_u32(x) & _U32(0x7FFFFF)) | _U32(127 << 23)
    return jax.lax.bitcast_convert_type(bits, jnp.float32) - jnp.float32(1.0)


def uint16_to_half(x: Any) -> Any:
    """``Uint16ToHalf``: 10 low bits as the mantissa of a half in [1, 2), minus 1."""
    bits = ((_u32(x) & _U32(0x3FF)) | _U32(15 << 10)).astype(jnp.uint16)
    return jax.lax.bitcast_convert_type(bits, jnp.float16) - jnp.float16(1.0)


def uint16_to_bfloat16(x: Any) -> Any:
    """``Uint16ToGfloat16``: 7 low bits as the mantissa of a bfloat16 in [1, 2), minus 1."""
    bits = ((_u32(x) & _U32(0x7F)) | _U32(127 << 7)).astype(jnp.uint16)
    return jax.lax.bitcast_convert_type(bits, jnp.bfloat16) - jnp.bfloat16(1.0)


def uint64_to_double(x0: Any, x1: Any) -> Any:
    """``Uint64ToDouble``: 20 low bits of ``x0`` and all of ``x1`` as the mantissa, minus 1.

    Needs 64-bit types (call it under ``jax.enable_x64(True)``).
    """
    hi = (_u32(x0) & _U32(0xFFFFF)) | _U32(1023 << 20)
    words = jnp.stack([_u32(x1), hi], axis=-1)  # little-endian: low word first
    return jax.lax.bitcast_convert_type(words, jnp.float64) - 1.0


def box_muller_float(x0: Any, x1: Any) -> tuple[Any, Any]:
    """``BoxMullerFloat``: two standard normal float32 values from two words.

    ``u1 = max(Uint32ToFloat(x0), 1e-7f)``, ``v1 = float(2 * M_PI * Uint32ToFloat(x1))``
    (the product in double), ``u2 = sqrtf(-2.0f * logf(u1))``, then
    ``(sin(v1) * u2, cos(v1) * u2)`` with glibc's ``logf`` and ``sincosf``, bit for bit
    (:mod:`jtrain._eigen._libm`; see the module note).
    """
    u1 = jnp.maximum(uint32_to_float(x0), jnp.float32(1.0e-7))
    with jax.enable_x64(True):
        v1 = (jnp.float64(2 * np.pi) * uint32_to_float(x1).astype(jnp.float64)).astype(jnp.float32)
    sin_v1, cos_v1 = _libm.sincosf(v1, below_120=True)
    u2 = jnp.sqrt(jnp.float32(-2.0) * _libm.logf(u1))
    return sin_v1 * u2, cos_v1 * u2


def box_muller_double(x0: Any, x1: Any, x2: Any, x3: Any) -> tuple[Any, Any]:
    """``BoxMullerDouble``: two standard normal float64 values from four words.

    Needs 64-bit types (call it under ``jax.enable_x64(True)``).
    """
    u1 = jnp.maximum(uint64_to_double(x0, x1), 1.0e-7)
    v1 = 2 * np.pi * uint64_to_double(x2, x3)
    u2 = jnp.sqrt(-2.0 * jnp.log(u1))
    return jnp.sin(v1) * u2, jnp.cos(v1) * u2


# -- distributions over a run's output --------------------------------------------------------


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def _fill(groups: Any, shape: tuple[int, ...]) -> Any:
    """Groups ``[n, per group]`` in order, cut to the output's size and shaped."""
    return groups.reshape(-1)[: _size(shape)].reshape(shape)


def _wide(dtype: np.dtype) -> bool:
    return np.dtype(dtype).itemsize == 8


def uniform(key: Any, counter: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """TF's ``UniformDistribution`` over an output (``RandomUniform``'s raw values).

    Args:
      key: ``uint32[2]``.
      counter: ``uint32[4]``, the counter the run starts from.
      shape: the output shape.
      dtype: float16, bfloat16, float32 or float64.

    Returns:
      Values in [0, 1): float32 from each word, float16/bfloat16 from each word's
      low 16 bits, float64 from each pair of words.
    """
    dtype = np.dtype(dtype)
    n = _size(shape)
    per = 2 if _wide(dtype) else 4
    w0, w1, w2, w3 = _bit_words(key, counter, -(-n // per))
    if dtype == np.float64:
        with jax.enable_x64(True):
            pair = [uint64_to_double(w0, w1), uint64_to_double(w2, w3)]
            return _fill(jnp.stack(pair, axis=-1), shape)
    convert = {
        np.dtype(np.float32): uint32_to_float,
        np.dtype(np.float16): uint16_to_half,
        np.dtype(jnp.bfloat16): uint16_to_bfloat16,
    }.get(dtype)
    if convert is None:
        raise TypeError(f"uniform: dtype {dtype} is not float16, bfloat16, float32 or float64")
    return _fill(jnp.stack([convert(w) for w in (w0, w1, w2, w3)], axis=-1), shape)


def uniform_int(
    key: Any, counter: Any, shape: tuple[int, ...], minval: Any, maxval: Any, dtype: Any
) -> Any:
    """TF's ``UniformDistribution<int32/int64>``: ``minval + bits % (maxval - minval)``.

    The range is taken unsigned (``uint32(maxval) - uint32(minval)``) and the sum wraps
    as TF's ``SignedAdd``; int64 draws one value per pair of words (low word first).

    Args:
      key: ``uint32[2]``.
      counter: ``uint32[4]``.
      shape: the output shape.
      minval: the lower bound, a scalar of ``dtype``.
      maxval: the upper bound (exclusive), ``minval < maxval`` (TF checks it).
      dtype: int32 or int64.

    Returns:
      An array of ``shape`` and ``dtype``.
    """
    dtype = np.dtype(dtype)
    n = _size(shape)
    if dtype == np.int32:
        bits = jnp.stack(_bit_words(key, counter, -(-n // 4)), axis=-1)
        lo = jnp.asarray(minval, jnp.int32).astype(_U32)
        span = jnp.asarray(maxval, jnp.int32).astype(_U32) - lo
        return _fill(jax.lax.bitcast_convert_type(lo + bits % span, jnp.int32), shape)
    if dtype == np.int64:
        with jax.enable_x64(True):
            w = [x.astype(jnp.uint64) for x in _bit_words(key, counter, -(-n // 2))]
            words = jnp.stack([w[0] | (w[1] << 32), w[2] | (w[3] << 32)], axis=-1)
            lo = jnp.asarray(minval, jnp.int64).astype(jnp.uint64)
            span = jnp.asarray(maxval, jnp.int64).astype(jnp.uint64) - lo
            out = jax.lax.bitcast_convert_type(lo + words % span, jnp.int64)
            return _fill(out, shape)
    raise TypeError(f"uniform_int: dtype {dtype} is not int32 or int64")


def _narrow(values: Any, dtype: np.dtype) -> Any:
    """float32 normal values in ``dtype`` (TF's ``Eigen::half(f)``/``bfloat16(f)``)."""
    return values if dtype == np.float32 else values.astype(dtype)


def normal(key: Any, counter: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """TF's ``NormalDistribution`` (``RandomStandardNormal``'s values): Box-Muller pairs.

    float32/float16/bfloat16: each call's words ``(x0, x1)``, ``(x2, x3)`` give two
    values each (rounded from float32 for 16-bit types); float64: each call gives two.
    """
    dtype = np.dtype(dtype)
    n = _size(shape)
    if dtype == np.float64:
        with jax.enable_x64(True):
            d0, d1 = box_muller_double(*_bit_words(key, counter, -(-n // 2)))
            return _fill(jnp.stack([d0, d1], axis=-1), shape)
    w0, w1, w2, w3 = _bit_words(key, counter, -(-n // 4))
    values = jnp.stack([*box_muller_float(w0, w1), *box_muller_float(w2, w3)], axis=-1)
    return _fill(_narrow(values, dtype), shape)


def _candidates(key: Any, counter: Any, groups: int, calls: int, dtype: np.dtype) -> Any:
    """Box-Muller candidates of each truncated-normal group, in the order TF takes them.

    Group ``g`` reads single words from ``counter + g * region`` on: pairs of words
    (float32) or quadruples (float64), each giving two candidates.
    """
    region = (4 if dtype != np.float64 else 2) * RESERVED_SAMPLES_PER_OUTPUT // 4
    counter = _u32(counter)
    g_lo, g_hi = _offsets(jnp.arange(groups, dtype=_U32), region)
    starts = _add_words(tuple(counter[i] for i in range(4)), g_lo, g_hi)
    j = jnp.arange(calls, dtype=_U32)[None, :]
    words = _add_words(tuple(w[:, None] for w in starts), j, jnp.zeros_like(j))
    c0, c1, c2, c3 = (jnp.broadcast_to(w, (groups, calls)) for w in words)
    w0, w1, w2, w3 = _rounds(_u32(key)[0], _u32(key)[1], c0, c1, c2, c3)  # [groups, calls]
    if dtype == np.float64:
        d0, d1 = box_muller_double(w0, w1, w2, w3)
        return jnp.stack([d0, d1], axis=-1).reshape(groups, -1)
    cands = [*box_muller_float(w0, w1), *box_muller_float(w2, w3)]
    return jnp.stack(cands, axis=-1).reshape(groups, -1)


def _first_accepted(cands: Any, per: int) -> tuple[Any, Any]:
    """The first ``per`` candidates below 2 in magnitude, and whether every group had them."""
    accept = jnp.abs(cands) < 2.0
    rank = jnp.cumsum(accept.astype(jnp.int32), axis=1)
    picks = []
    for r in range(1, per + 1):
        hit = accept & (rank == r)
        picks.append(jnp.sum(jnp.where(hit, cands, jnp.zeros_like(cands)), axis=1))
    return jnp.stack(picks, axis=-1), jnp.all(rank[:, -1] >= per)


def truncated_normal(key: Any, counter: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """TF's ``TruncatedNormalDistribution`` (``TruncatedNormal``'s values).

    Outputs come in groups (4 values; 2 for float64); group ``g`` draws single words
    from its own region (``counter + g * 256`` calls; ``g * 128`` for float64) and
    keeps the first Box-Muller candidates with ``|z| < 2`` (the comparison in float32
    for 16-bit types, which are rounded after). Vectorized: the first 4 calls of every
    region give 16 (float64: 8) candidates; if a group has too few accepted (rarer than
    1e-14 per group), the whole region is computed for every group instead, as TF reads it.
    """
    dtype = np.dtype(dtype)
    n = _size(shape)
    wide = dtype == np.float64
    per = 2 if wide else 4
    groups = -(-n // per)
    region = per * RESERVED_SAMPLES_PER_OUTPUT // 4

    def draw(calls: int) -> tuple[Any, Any]:
        return _first_accepted(_candidates(key, counter, groups, calls, dtype), per)

    def compute() -> Any:
        values, ok = draw(4)
        values = jax.lax.cond(ok, lambda: values, lambda: draw(region)[0])
        return _fill(values if wide else _narrow(values, dtype), shape)

    if groups == 0:
        return jnp.zeros(shape, dtype)
    if wide:
        with jax.enable_x64(True):
            return compute()
    return compute()


def shuffle_permutation(key: Any, counter: Any, n: int) -> Any:
    """The order ``RandomShuffle`` gives ``n`` rows: TF's Fisher-Yates over single words.

    TF's kernel swaps row ``i`` with row ``i + word_i % (n - i)`` for ``i = 0 .. n - 2``,
    ``word_i`` the ``i``-th 32-bit word of the stream from ``counter`` (the four words of
    each call in order, ``SingleSampleAdapter``; the modulo in ``uint32``). The words
    are drawn at once; the swaps, each depending on the ones before, run as a
    ``fori_loop`` on an index array (rows are then gathered once).

    Args:
      key: ``uint32[2]``.
      counter: ``uint32[4]``, the counter the run starts from.
      n: the number of rows (``< 2**31``).

    Returns:
      ``int32[n]``: output row ``r`` is input row ``perm[r]``.
    """
    if n <= 1:
        return jnp.arange(n, dtype=jnp.int32)
    if n >= 2**31:
        raise ValueError(f"shuffle_permutation: {n} rows do not fit int32 indices")
    words = random_bits(key, counter, -(-(n - 1) // 4)).reshape(-1)[: n - 1]
    i = jnp.arange(n - 1, dtype=_U32)
    targets = (i + words % (_U32(n) - i)).astype(jnp.int32)

    def swap(k: Any, perm: Any) -> Any:
        # One two-element scatter: XLA's CPU backend updates it in place (two
        # single-element updates copied the array every step: 6 s for 1e5 rows).
        pair = jnp.stack([k, targets[k]])
        return perm.at[pair].set(perm[pair][::-1])

    return jax.lax.fori_loop(0, n - 1, swap, jnp.arange(n, dtype=jnp.int32))
