"""TF's stateless random ops beyond uniform/normal: seeds, gamma, Poisson... (``tf.random``).

A stateless op is a pure function of its ``seed`` (an int32/int64 tensor of shape
[2]): the same seed gives the same values, run after run and session after session.
TF turns the seed into a Philox key and counter (``StatelessRandomGetKeyCounter``,
:func:`jtrain.random.philox.stateless_key_counter`) and draws from there; so do these
ops, with TF's CPU algorithms, giving TF 2.21's values:

- :func:`split` / :func:`fold_in` (``tf.random.split``, ``tf.random.fold_in``): seeds
  made of ``StatelessRandomUniformFullIntV2`` words, bit for bit.
- :func:`stateless_random_gamma` (``StatelessRandomGammaV3``): Marsaglia and Tsang's
  transformation-rejection in float64, each output ``i`` (in TF's order: parameter-
  major) drawing from its own Philox region ``counter + 256 * i``, its normal and
  uniform float64 variates taken from two buffers of one call each, last value first,
  as TF's ``SampleBuffer``; TF's ``RandomGammaGrad`` gradient.
- :func:`stateless_random_poisson` (``StatelessRandomPoisson``): Knuth's product of
  uniforms below rate 10, Hormann's transformed rejection above, in float64.
- :func:`stateless_random_binomial` (``StatelessRandomBinomial``): inversion (regions
  of 42 calls) or Hormann's BTRS (256), complements for ``p > 0.5``.
- :func:`stateless_multinomial` / :func:`stateless_categorical`
  (``StatelessMultinomial``) and :func:`stateless_parameterized_truncated_normal`
  (``StatelessParameterizedTruncatedNormal``): one stream read in order, as TF's CPU
  kernels read it when they run as one shard (see their notes).

The rejection loops run for every output at once inside the step's program (a
``lax.while_loop`` over the outputs not yet accepted, each lane with its own generator
position and buffers); the two sequential kernels are a ``while_loop`` over the stream.
Products are rounded before they meet an addition (``jtrain._numerics.rounded``: XLA
would fuse them into FMAs, TF's kernels do not) and divisions by a broadcast value are
TF's (``kernel_divide``).

.. note::
   TF's kernels call glibc's ``log``/``pow``/``sin``/``cos``; here they are XLA's
   (float32 ones computed in float64 and rounded), but for the Box-Muller normals,
   whose ``logf``/``sincosf`` are glibc's (``jtrain/random/philox.py``). Integer
   outputs, float32/float16 gamma samples and the parameterized truncated normals equal
   TF's on every seed and shape the interop tests try
   (``tests/interop/test_stateless_random_interop.py``); float64 gamma samples are
   97-99% bit-identical there (at most 12 ulps apart).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.shape_values import trace_time_value
from adapters.v1.ops import random_ops
from jtrain import errors
from jtrain._numerics import kernel_divide, rounded, rounded_nonnegative, rounded_square
from jtrain.random import philox

__all__ = [
    "Algorithm",
    "create_rng_state",
    "split",
    "fold_in",
    "stateless_random_gamma",
    "stateless_random_poisson",
    "stateless_random_binomial",
    "stateless_multinomial",
    "stateless_categorical",
    "stateless_parameterized_truncated_normal",
]

_U32 = jnp.uint32
_REGION = philox.RESERVED_SAMPLES_PER_OUTPUT  # Philox calls each output may use
_MAX_ATTEMPTS = 1 << 16  # a lane still rejecting after this many draws gives NaN


class Algorithm(enum.Enum):
    """A random-number-generation algorithm (``tf.random.Algorithm``, TF's values).

    ``PHILOX`` (1) is what TF's CPU kernels run and what jtrain reproduces;
    ``THREEFRY`` (2); ``AUTO_SELECT`` (3: Philox on CPU).
    """

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg_error(alg: Any) -> str:
    if isinstance(alg, int):
        names: tuple[Any, ...] = (1, 2, 3)
    elif isinstance(alg, str):
        names = ("philox", "threefry", "auto_select")
    else:
        names = (Algorithm.PHILOX, Algorithm.THREEFRY, Algorithm.AUTO_SELECT)
    return (
        f"Argument `alg` got unsupported value {alg}. Supported values are {names[0]} for "
        f"the Philox algorithm, {names[1]} for the ThreeFry algorithm, and {names[2]} for "
        "auto-selection."
    )


def _alg_value(alg: Any) -> int:
    """TF's ``convert_alg_to_int``: an int, an ``Algorithm`` or a name."""
    if isinstance(alg, bool):
        raise TypeError(
            f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int."
        )
    if isinstance(alg, int):
        return alg
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        values = {"philox": 1, "threefry": 2, "autoselect": 3}
        if canon not in values:
            raise ValueError(_alg_error(alg))
        return values[canon]
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def create_rng_state(seed: Any, alg: Any) -> ops.Tensor:
    """An RNG state from an integer or a vector (``tf.random.create_rng_state``).

    A Python integer is cut into 64-bit words, low word first; a vector is taken as
    int64 words; the state is its first ``size`` words, zero-padded on the left, for
    ``size`` 3 (Philox, auto-select) or 2 (ThreeFry).

    Args:
      seed: an integer or a 1-D array of integers.
      alg: the algorithm: a name (``"philox"``), an ``Algorithm`` or an int.

    Returns:
      An int64 constant of shape ``[size]``.

    Raises:
      ValueError / TypeError: ``alg`` is not an algorithm (TF's messages).
    """
    value = _alg_value(alg)
    if value not in (1, 2, 3):
        raise ValueError(_alg_error(value))
    size = 2 if value == 2 else 3
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seed = int(seed)
        words = []
        for _ in range(size):
            words.append(seed & (2**64 - 1))
            seed >>= 64
    else:
        words = [int(w) for w in np.asarray(seed).reshape(-1)]
    signed = [w - 2**64 if w >= 2**63 else w for w in words][:size]
    state = np.array([0] * (size - len(signed)) + signed, np.int64)
    return ops.convert_to_tensor(state, dtype=dtypes.int64)


# -- seeds made of seeds ----------------------------------------------------------------------


def _full_int(key: Any, counter: Any, count: int, dtype: np.dtype) -> Any:
    """``StatelessRandomUniformFullIntV2``'s values: the words themselves (64-bit: pairs)."""
    if dtype.itemsize == 4:
        words = philox.random_bits(key, counter, -(-count // 4)).reshape(-1)[:count]
        return jax.lax.bitcast_convert_type(words, dtype)
    with jax.enable_x64(True):
        bits = philox.random_bits(key, counter, -(-count // 2)).reshape(-1, 2).astype(jnp.uint64)
        values = (bits[:, 0] | (bits[:, 1] << jnp.uint64(32)))[:count]
        return jax.lax.bitcast_convert_type(values, dtype)


_FULL_INT = ("int32", "int64", "uint32", "uint64")


def _seed_words(
    seed: Any, count: int, dtype: Any, alg: Any, what: str, name: str = ""
) -> ops.Tensor:
    """``count`` full-range integers of ``dtype`` from ``seed`` (a ``[count]`` tensor)."""
    dt = dtypes.as_dtype(dtype).base_dtype
    if dt.name not in _FULL_INT + ("float16", "bfloat16", "float32", "float64"):
        accepted = ", ".join(
            f"tf.{n}"
            for n in ("float16", "bfloat16", "float32", "float64", "int32", "int64")
            + ("uint32", "uint64")
        )
        raise ValueError(
            f"Argument `dtype` got invalid value {dt!r}. Accepted dtypes are ({accepted})."
        )
    if dt.name not in _FULL_INT:
        raise ValueError(
            f"{what}: the seed's dtype {dt.name} is not an integer type (TF draws full-range "
            "integers of it)"
        )
    value = _alg_value(alg)
    if value not in (1, 2, 3):
        raise ValueError(_alg_error(alg))
    if value == 2:
        raise NotImplementedError(
            f"{what} with alg='threefry': jtrain reproduces TF's Philox only; use "
            "alg='philox' or 'auto_select'"
        )
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_random_uniform"):
        seed_t = random_ops._seed_tensor(seed)
        np_dt = np.dtype(dt.dtype)

        def sample(key_counter: Any) -> Any:
            key, counter = key_counter
            return _full_int(key, counter, count, np_dt)

        (out,) = random_ops._node(
            "StatelessRandomUniformFullIntV2",
            sample,
            seed_t,
            philox.stateless_key_counter,
            [],
            [((count,), dt)],
            "",
            (),
        )
    return out


def split(seed: Any, num: int = 2, alg: Any = "auto_select") -> ops.Tensor:
    """``num`` new seeds from ``seed`` (``tf.random.split``).

    The seeds are ``stateless_uniform([num, 2], seed, minval=None, maxval=None,
    dtype=seed.dtype)``: full-range integers, TF's bits.

    Args:
      seed: an int32/int64 tensor of shape [2].
      num: how many seeds (2); a Python int or a constant.
      alg: ``"auto_select"`` (default), ``"philox"`` or an ``Algorithm``.

    Returns:
      ``[num, 2]`` seeds of ``seed``'s dtype.

    Raises:
      NotImplementedError: ``alg="threefry"`` or a ``num`` only known when run.
    """
    seed_t = ops.convert_to_tensor(seed)
    num = _static_int(num, "num")
    if num < 0:
        raise ValueError(f"Invalid value in tensor used for shape: {num}")
    out = _seed_words(seed_t, num * 2, seed_t.dtype, alg, "tf.random.split")
    from adapters.v1.framework.op_def import FUNCTIONS

    return FUNCTIONS["reshape"](out, [num, 2])


def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> ops.Tensor:
    """A new seed from ``seed`` and ``data`` (``tf.random.fold_in``).

    ``[stateless_uniform([], seed, minval=None, maxval=None, dtype=data.dtype), data]``.

    Args:
      seed: an int32/int64 tensor of shape [2].
      data: an int32/int64 scalar folded in (its dtype is the result's).
      alg: ``"auto_select"`` (default), ``"philox"`` or an ``Algorithm``.

    Returns:
      A seed of shape [2] and ``data``'s dtype.
    """
    data_t = ops.convert_to_tensor(data)
    word = _seed_words(seed, 1, data_t.dtype, alg, "tf.random.fold_in")
    from adapters.v1.framework.op_def import FUNCTIONS

    return FUNCTIONS["stack"]([FUNCTIONS["reshape"](word, []), data_t])


def _static_int(value: Any, what: str) -> int:
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        const = ops.convert_to_tensor(value).op._const_value
        if const is None:
            raise NotImplementedError(
                f"{what} must be known when the graph is built (a Python int or a constant): "
                "jtrain compiles static shapes"
            )
        value = const
    return int(np.asarray(value))


# -- per-output Philox streams with TF's sample buffers ----------------------------------------


def _lane_starts(counter: Any, lanes: int) -> Any:
    """``uint32[lanes, 4]``: each output's counter, ``counter + 256 * i`` (TF's ``Skip``)."""
    i = jnp.arange(lanes, dtype=_U32)
    shift = _REGION.bit_length() - 1
    offsets = jnp.stack([i << _U32(shift), i >> _U32(32 - shift)], axis=-1)
    return philox.skip(jnp.broadcast_to(counter, (lanes, 4)), offsets)


class _Buffer:
    """TF's ``SampleBuffer`` of a two-value float64 distribution, one per lane.

    ``take`` returns, for the lanes in ``need``, the buffer's next value: when it is
    empty, one Philox call at the lane's position fills it (``fill(words) -> (v0,
    v1)``) and the position moves on; values come out last first (``v1``, ``v0``).
    """

    def __init__(self, key: Any, starts: Any, fill: Callable[..., tuple[Any, Any]]):
        self.key, self.starts, self.fill = key, starts, fill

    def take(self, need: Any, position: Any, buf: tuple[Any, Any, Any]) -> tuple[Any, ...]:
        v0, v1, remaining = buf
        empty = need & (remaining == 0)
        count = jnp.stack([position, jnp.zeros_like(position)], axis=-1)
        words = philox.philox(self.key, philox.skip(self.starts, count))
        n0, n1 = self.fill(*(words[:, k] for k in range(4)))
        v0 = jnp.where(empty, n0, v0)
        v1 = jnp.where(empty, n1, v1)
        remaining = jnp.where(empty, 2, remaining)
        remaining = jnp.where(need, remaining - 1, remaining)
        position = position + empty.astype(_U32)
        value = jnp.where(remaining == 1, v1, v0)
        return value, position, (v0, v1, remaining)


def _uniform_pair(w0: Any, w1: Any, w2: Any, w3: Any) -> tuple[Any, Any]:
    """``UniformDistribution<double>``: two values per call."""
    return philox.uint64_to_double(w0, w1), philox.uint64_to_double(w2, w3)


def _empty_buffer(lanes: int) -> tuple[Any, Any, Any]:
    zero = jnp.zeros((lanes,), jnp.float64)
    return zero, zero, jnp.zeros((lanes,), jnp.int32)


def _from_double(values: Any, dtype: np.dtype) -> Any:
    """``static_cast<T>(double)``: Eigen's half/bfloat16 round through float32."""
    if dtype.kind == "f" and dtype.itemsize == 2 or dtype == np.dtype(jnp.bfloat16):
        return values.astype(jnp.float32).astype(dtype)
    return values.astype(dtype)


def _to_output_order(lane_values: Any, per: int, params: int, shape: tuple[int, ...]) -> Any:
    """Lanes in TF's order (output ``i``: parameter ``i // per``, sample ``i % per``) to
    the output's (sample-major: ``sample * params + parameter``)."""
    return lane_values.reshape(params, per).T.reshape(shape)


def _check_suffix(shape: tuple[int, ...], param_shape: tuple[int, ...], what: str) -> None:
    n = len(param_shape)
    if n > len(shape) or (n and tuple(shape[len(shape) - n :]) != tuple(param_shape)):
        raise errors.InvalidArgumentError(
            None, None, "Shape passed in must end with broadcasted shape."
        )
    if int(np.prod(param_shape, dtype=np.int64)) == 0 and int(np.prod(shape, dtype=np.int64)):
        raise errors.InvalidArgumentError(
            None, None, f"Input {what} should have non-zero element count, got: 0"
        )


def gamma_samples(key: Any, counter: Any, alpha: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """``StatelessRandomGammaV3``'s values (before ``/ beta``): TF's draws, see the module.

    Args:
      key: ``uint32[2]``, counter: ``uint32[4]`` (from the seed).
      alpha: the concentrations, of shape a suffix of ``shape``.
      shape: the output shape.
      dtype: float16, float32 or float64.

    Returns:
      An array of ``shape`` and ``dtype``.
    """
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return jnp.zeros(shape, dtype)
    with jax.enable_x64(True):
        a_flat = jnp.ravel(alpha).astype(jnp.float64)
        params = a_flat.shape[0]
        per = size // params
        a = jnp.repeat(a_flat, per)  # lane i: alpha[i // per]
        starts = _lane_starts(jnp.asarray(counter, _U32), size)
        key = jnp.asarray(key, _U32)
        normal = _Buffer(key, starts, philox.box_muller_double)
        uniform = _Buffer(key, starts, _uniform_pair)

        less = a < 1
        d = a + jnp.where(less, 2.0 / 3, -1.0 / 3)
        c = (1.0 / 3) / jnp.sqrt(d)

        # alpha == 1: an exponential from the region's first call (its last value).
        first = philox.philox(key, starts)
        u1 = philox.uint64_to_double(first[:, 2], first[:, 3])
        exponential = -jnp.log1p(-u1)

        def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
            step, position, nbuf, ubuf, done, out = state
            active = ~done
            x, position, nbuf = normal.take(active, position, nbuf)
            v = 1 + rounded(c * x)
            positive = active & (v > 0)
            v = v * v * v
            u, position, ubuf = uniform.take(positive, position, ubuf)
            xx = x * x
            accept = positive & (
                (u < 1 - rounded_nonnegative(0.0331 * xx * xx))
                | (jnp.log(u) < rounded(0.5 * x * x) + rounded(d * (1 - v + jnp.log(v))))
            )
            b, position, ubuf = uniform.take(accept & less, position, ubuf)
            res = d * v
            res = jnp.where(less, res * jnp.power(b, 1 / a), res)
            out = jnp.where(accept, res, out)
            return step + 1, position, nbuf, ubuf, done | accept, out

        def cond(state: tuple[Any, ...]) -> Any:
            return (state[0] < _MAX_ATTEMPTS) & ~jnp.all(state[4])

        init = (
            jnp.int32(0),
            jnp.zeros((size,), _U32),
            _empty_buffer(size),
            _empty_buffer(size),
            a == 1,
            jnp.full((size,), jnp.nan, jnp.float64),
        )
        out = jax.lax.while_loop(cond, body, init)[5]
        out = jnp.where(a == 1, exponential, out)
        return _to_output_order(_from_double(out, dtype), per, params, shape)


def _highest(dtype: np.dtype) -> float:
    if dtype.kind in "iu":
        return float(np.iinfo(dtype).max)
    return float(np.finfo(dtype).max)


def poisson_samples(key: Any, counter: Any, rate: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """``StatelessRandomPoisson``'s values: TF's draws, see the module.

    Args:
      key: ``uint32[2]``, counter: ``uint32[4]`` (from the seed).
      rate: the rates, of shape a suffix of ``shape``.
      shape: the output shape.
      dtype: float16, float32, float64, int32 or int64.

    Returns:
      An array of ``shape`` and ``dtype``.
    """
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return jnp.zeros(shape, dtype)
    highest = _highest(dtype)
    with jax.enable_x64(True):
        r_flat = jnp.ravel(rate).astype(jnp.float64)
        params = r_flat.shape[0]
        per = size // params
        r = jnp.repeat(r_flat, per)
        starts = _lane_starts(jnp.asarray(counter, _U32), size)
        uniform = _Buffer(jnp.asarray(key, _U32), starts, _uniform_pair)

        knuth = r < 10
        exp_neg_rate = jnp.exp(-r)
        log_rate = jnp.log(r)
        b = 0.931 + rounded(2.53 * jnp.sqrt(r))
        a = -0.059 + rounded(0.02483 * b)
        inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
        v_r = 0.9277 - 3.6224 / (b - 2)

        def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
            step, position, ubuf, done, count, prod, out = state
            active = ~done
            u, position, ubuf = uniform.take(active, position, ubuf)
            # Knuth: multiply uniforms until the product falls to exp(-rate).
            prod = jnp.where(active & knuth, prod * u, prod)
            k_accept = active & knuth & (prod <= exp_neg_rate) & (count <= highest)
            k_out = count
            count = jnp.where(active & knuth & ~k_accept, count + 1, count)
            # Hormann's transformed rejection.
            hormann = active & ~knuth
            v, position, ubuf = uniform.take(hormann, position, ubuf)
            u = u - 0.5
            us = 0.5 - jnp.abs(u)
            k = jnp.floor(rounded((2 * a / us + b) * u) + r + 0.43)
            fits = k <= highest
            quick = fits & (us >= 0.07) & (v <= v_r)
            rejected = (k < 0) | ((us < 0.013) & (v > us))
            s = jnp.log(v * inv_alpha / (a / (us * us) + b))
            t = -r + rounded(k * log_rate) - jax.lax.lgamma(k + 1)
            h_accept = hormann & fits & (quick | (~rejected & (s <= t)))
            out = jnp.where(k_accept, k_out, jnp.where(h_accept, k, out))
            return step + 1, position, ubuf, done | k_accept | h_accept, count, prod, out

        def cond(state: tuple[Any, ...]) -> Any:
            return (state[0] < _MAX_ATTEMPTS) & ~jnp.all(state[3])

        zeros = jnp.zeros((size,), jnp.float64)
        init = (
            jnp.int32(0),
            jnp.zeros((size,), _U32),
            _empty_buffer(size),
            jnp.zeros((size,), bool),
            zeros,
            zeros + 1,
            jnp.full((size,), jnp.nan, jnp.float64),
        )
        out = jax.lax.while_loop(cond, body, init)[6]
        return _to_output_order(_from_double(out, dtype), per, params, shape)


_STIRLING_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _stirling_tail(k: Any) -> Any:
    """TF's ``stirling_approx_tail``: a table below 10, the series above."""
    table = jnp.asarray(_STIRLING_TAIL, jnp.float64)
    small = table[jnp.clip(jnp.trunc(k), 0, 9).astype(jnp.int32)]
    kp1sq = (k + 1) * (k + 1)
    return jnp.where(k <= 9, small, (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1))


def binomial_samples(
    key: Any, counter: Any, counts: Any, probs: Any, shape: tuple[int, ...], dtype: Any
) -> Any:
    """``StatelessRandomBinomial``'s values: TF's draws.

    Per output (alpha-major order, as gamma): ``0`` for ``count <= 0`` or ``prob <= 0``,
    ``count`` for ``prob >= 1``; else with ``p = min(prob, 1 - prob)`` (the complement
    counted down for ``prob > 0.5``), Hormann's BTRS from ``counter + 256 * i`` when
    ``count * p >= 10`` (in the parameters' dtype) and the inversion of the CDF (a sum of
    geometric variates) from ``counter + 42 * i`` otherwise, float64 uniforms two a call.

    Args:
      key: ``uint32[2]``, counter: ``uint32[4]`` (from the seed).
      counts: the counts (float16/32/64), broadcast with ``probs`` to a suffix of
        ``shape``.
      probs: the probabilities, of the same dtype.
      shape: the output shape.
      dtype: float16, float32, float64, int32 or int64.
    """
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return jnp.zeros(shape, dtype)
    with jax.enable_x64(True):
        batch = jnp.broadcast_shapes(counts.shape, probs.shape)
        n_t = jnp.ravel(jnp.broadcast_to(counts, batch))
        p_t = jnp.ravel(jnp.broadcast_to(probs, batch))
        params = n_t.shape[0]
        per = size // params
        n_t, p_t = jnp.repeat(n_t, per), jnp.repeat(p_t, per)
        one = jnp.asarray(1, p_t.dtype)
        n = n_t.astype(jnp.float64)
        zero = (n <= 0) | (p_t <= 0)
        full = ~zero & (p_t >= one)
        low = ~zero & ~full & (p_t <= jnp.asarray(0.5, p_t.dtype))
        high = ~zero & ~full & (p_t > jnp.asarray(0.5, p_t.dtype))
        q_t = jnp.where(high, one - p_t, p_t)  # in the parameters' dtype, as TF
        use_btrs = (low | high) & (n_t * q_t >= jnp.asarray(10, p_t.dtype))
        use_inv = (low | high) & ~use_btrs
        p = q_t.astype(jnp.float64)

        counter = jnp.asarray(counter, _U32)
        i = jnp.arange(size, dtype=_U32)
        wide = jnp.stack([i * _U32(42), ((i.astype(jnp.uint64) * 42) >> 32).astype(_U32)], -1)
        starts = jnp.where(
            use_btrs[:, None], _lane_starts(counter, size), philox.skip(counter[None, :], wide)
        )
        uniform = _Buffer(jnp.asarray(key, _U32), starts, _uniform_pair)

        # BTRS's constants (spq, b, a, c, v_r, r, alpha, m of Hormann's paper).
        stddev = jnp.sqrt(n * p * (1 - p))
        b = 1.15 + rounded(2.53 * stddev)
        a = -0.0873 + rounded(0.0248 * b) + rounded(0.01 * p)
        c = rounded(n * p) + 0.5
        v_r = 0.92 - 4.2 / b
        r = p / (1 - p)
        alpha = (2.83 + 5.1 / b) * stddev
        m = jnp.floor((n + 1) * p)
        log_p = jnp.log1p(-p)

        def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
            step, position, ubuf, done, geom_sum, num_geom, out = state
            active = ~done
            u, position, ubuf = uniform.take(active, position, ubuf)
            # Inversion: geometric variates until their sum passes count.
            inv = active & use_inv
            geom_sum = jnp.where(inv, geom_sum + jnp.ceil(jnp.log(u) / log_p), geom_sum)
            i_accept = inv & (geom_sum > n)
            i_out = num_geom
            num_geom = jnp.where(inv & ~i_accept, num_geom + 1, num_geom)
            # BTRS.
            btrs = active & use_btrs
            v, position, ubuf = uniform.take(btrs, position, ubuf)
            u = u - 0.5
            us = 0.5 - jnp.abs(u)
            k = jnp.floor(rounded((2 * a / us + b) * u) + c)
            quick = (us >= 0.07) & (v <= v_r)
            rejected = (k < 0) | (k > n)
            v = jnp.log(v * alpha / (a / (us * us) + b))
            upper = (
                rounded((m + 0.5) * jnp.log((m + 1) / (r * (n - m + 1))))
                + rounded((n + 1) * jnp.log((n - m + 1) / (n - k + 1)))
                + rounded((k + 0.5) * jnp.log(r * (n - k + 1) / (k + 1)))
                + _stirling_tail(m)
                + _stirling_tail(n - m)
                - _stirling_tail(k)
                - _stirling_tail(n - k)
            )
            b_accept = btrs & (quick | (~rejected & (v <= upper)))
            out = jnp.where(i_accept, i_out, jnp.where(b_accept, k, out))
            return step + 1, position, ubuf, done | i_accept | b_accept, geom_sum, num_geom, out

        def cond(state: tuple[Any, ...]) -> Any:
            return (state[0] < _MAX_ATTEMPTS) & ~jnp.all(state[3])

        zeros = jnp.zeros((size,), jnp.float64)
        init = (
            jnp.int32(0),
            jnp.zeros((size,), _U32),
            _empty_buffer(size),
            ~(use_btrs | use_inv),
            zeros,
            zeros,
            jnp.full((size,), jnp.nan, jnp.float64),
        )
        drawn = jax.lax.while_loop(cond, body, init)[6]
        drawn = jnp.where(high, n - drawn, drawn)
        out = jnp.where(zero, 0.0, jnp.where(full, n, drawn))
        return _to_output_order(_from_double(out, dtype), per, params, shape)


def multinomial_samples(key: Any, counter: Any, logits: Any, num_samples: int, dtype: Any) -> Any:
    """``StatelessMultinomial``'s values on CPU (one shard): TF's draws.

    Row by row, one stream of float64 uniforms (two words each, ``SimplePhilox``) from
    ``counter``: the row's unnormalized CDF ``cumsum(exp(logit - max))`` over its finite
    logits (summed in order, in float64), then for each sample the number of CDF
    entries ``<= u * total`` (``std::upper_bound``).

    Args:
      key: ``uint32[2]``, counter: ``uint32[4]`` (from the seed).
      logits: ``[batch, classes]``.
      num_samples: draws per row.
      dtype: int32 or int64.
    """
    batch, classes = logits.shape
    count = batch * num_samples
    if count == 0:
        return jnp.zeros((batch, num_samples), dtype)
    with jax.enable_x64(True):
        words = philox.random_bits(key, counter, -(-2 * count // 4)).reshape(-1)[: 2 * count]
        u = philox.uint64_to_double(words[0::2], words[1::2]).reshape(batch, num_samples)
        x = logits.astype(jnp.float64)
        finite = jnp.isfinite(x)
        lowest = float(jnp.finfo(logits.dtype).min)
        top = jnp.max(jnp.where(finite, x, lowest), axis=1, keepdims=True)
        terms = jnp.where(finite, jnp.exp(x - top), 0.0)

        def add(total: Any, term: Any) -> tuple[Any, Any]:
            total = total + term
            return total, total

        total, cdf = jax.lax.scan(add, jnp.zeros((batch,), jnp.float64), terms.T)
        to_find = u * total[:, None]
        below = cdf.T[:, None, :] <= to_find[:, :, None]
        return jnp.sum(below, axis=-1).astype(dtype)


_PTN_MAX_ITERATIONS = 1000  # TF's kMaxIterations
_PTN_RANDN_BOUND = 1.3  # TF's kStdDevsInsideBoundsToUseRandnSampler


def _float_fn(fn: Callable[[Any], Any], x: Any) -> Any:
    """``expf``/``logf`` of float32 ``x``: computed in float64 and rounded (float64 as is)."""
    if x.dtype == jnp.float32:
        return fn(x.astype(jnp.float64)).astype(jnp.float32)
    return fn(x)


def parameterized_truncated_normal_samples(
    key: Any,
    counter: Any,
    means: Any,
    stddevs: Any,
    minvals: Any,
    maxvals: Any,
    shape: tuple[int, ...],
) -> tuple[Any, Any]:
    """``StatelessParameterizedTruncatedNormal``'s values on CPU (one shard): TF's draws.

    One Philox stream from ``counter``, read in order batch member after batch member
    (each member's samples, then the next member's from the following call): per
    member, in the parameters' dtype, normal rejection when a bound is more than 1.3
    standard deviations away on the mean's side, uniform rejection (two calls a round)
    when the normalized interval is narrower than TF's cutoff, exponential rejection
    otherwise (TF's ``TruncatedNormalFunctorV2``).

    Args:
      key: ``uint32[2]``, counter: ``uint32[4]`` (from the seed).
      means: float32/float64 means, the four parameters broadcasting to a suffix of
        ``shape``.
      stddevs: the standard deviations.
      minvals: the lower bounds.
      maxvals: the upper bounds.
      shape: the output shape.

    Returns:
      ``(samples, ok)``: the values, and False where TF fails the run (invalid
      parameters, or a sampler past its 1000 iterations).
    """
    dtype = np.dtype(means.dtype)
    size = int(np.prod(shape, dtype=np.int64))
    batch = jnp.broadcast_shapes(means.shape, stddevs.shape, minvals.shape, maxvals.shape)
    nb = int(np.prod(batch, dtype=np.int64))
    if size == 0:
        return jnp.zeros(shape, dtype), jnp.asarray(True)
    spb = size // nb
    wide = dtype == np.float64
    per = 2 if wide else 4
    with jax.enable_x64(True):
        mean, sd, lo, hi = (
            jnp.ravel(jnp.broadcast_to(v, batch)) for v in (means, stddevs, minvals, maxvals)
        )
        valid = jnp.all((sd > 0) & (lo < hi) & (jnp.isfinite(lo) | jnp.isfinite(hi)))
        flip = (jnp.isinf(lo) & (lo < 0)) | (hi < mean)
        lo, hi, sd = jnp.where(flip, hi, lo), jnp.where(flip, lo, hi), jnp.where(flip, -sd, sd)
        t = lambda v: jnp.asarray(v, dtype)  # noqa: E731
        nmin = (lo - mean) / sd
        nmax = (hi - mean) / sd
        sqrt_factor = jnp.sqrt(rounded_square(nmin) + t(4))
        cutoff = (
            t(2)
            * _float_fn(jnp.exp, t(0.5) + (nmin * (nmin - sqrt_factor)) / t(4))
            / (nmin + sqrt_factor)
        )
        diff = nmax - nmin
        bound = t(_PTN_RANDN_BOUND)
        randn = ((nmin < -bound) & (nmax >= t(0))) | ((nmax > bound) & (nmin <= t(0)))
        method = jnp.where(randn, 0, jnp.where(diff < cutoff, 1, 2))
        plus = jnp.where(nmin < t(0), t(0), nmin * nmin)
        alpha = (nmin + sqrt_factor) / t(2)
        key = jnp.asarray(key, _U32)
        counter = jnp.asarray(counter, _U32)

        def call(position: Any) -> Any:
            words = philox.philox(key, philox.skip(counter, jnp.stack([position, _U32(0)])))
            return tuple(words[k] for k in range(4))

        def uniforms(words: tuple[Any, ...]) -> list[Any]:
            if wide:
                return [philox.uint64_to_double(*words[:2]), philox.uint64_to_double(*words[2:])]
            return [philox.uint32_to_float(w) for w in words]

        def normals(words: tuple[Any, ...]) -> list[Any]:
            if wide:
                return list(philox.box_muller_double(*words))
            return [*philox.box_muller_float(*words[:2]), *philox.box_muller_float(*words[2:])]

        def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
            b, s, iters, position, out, ok = state
            m = method[b]
            first, second = call(position), call(position + 1)
            r, u = uniforms(first), uniforms(second)
            n = normals(first)
            lo_b, hi_b, sd_b, mean_b = nmin[b], nmax[b], sd[b], mean[b]
            live = jnp.asarray(True)

            def take(
                value: Any, accept: Any, forced_fail: Any, state: tuple[Any, ...]
            ) -> tuple[Any, ...]:
                s, iters, out, ok, live = state
                write = live & accept
                index = s * nb + b
                out = jnp.where(write, out.at[index].set(rounded(value * sd_b) + mean_b), out)
                s = jnp.where(write, s + 1, s)
                finished = write & (s >= spb)
                iters = jnp.where(write, 0, jnp.where(live, iters + 1, iters))
                fail = live & forced_fail
                ok = ok & ~fail
                live = live & ~finished & ~fail
                return s, iters, out, ok, live

            inner = (s, iters, out, ok, live)
            st = inner
            for i in range(per):  # normal rejection
                inside = (n[i] >= lo_b) & (n[i] <= hi_b)
                over = ~inside & (st[1] + 1 > _PTN_MAX_ITERATIONS)
                st = take(n[i], inside, over, st)
            normal_state = st
            st = inner
            for i in range(per):  # uniform rejection
                z = rounded(r[i] * diff[b]) + lo_b
                g = (plus[b] - rounded_square(z)) / t(2.0)
                accept = u[i] <= _float_fn(jnp.exp, g)
                last = st[1] + 1 >= _PTN_MAX_ITERATIONS
                st = take(z, accept | last, last & ~accept, st)
            uniform_state = st
            st = inner
            for i in range(0, per, 2):  # exponential rejection
                z = -_float_fn(jnp.log, r[i]) / alpha[b] + lo_b
                x = jnp.where(lo_b < alpha[b], alpha[b] - z, lo_b - alpha[b])
                g = _float_fn(jnp.exp, -x * x / t(2.0))
                accept = (r[i + 1] <= g) & (z < hi_b)
                last = st[1] + 1 >= _PTN_MAX_ITERATIONS
                st = take(z, accept | last, last & ~accept, st)
            exponential_state = st
            pick = [normal_state, uniform_state, exponential_state]
            s, iters, out, ok, _ = (
                jnp.where(m == 0, a, jnp.where(m == 1, c, e)) for a, c, e in zip(*pick, strict=True)
            )
            position = position + jnp.where(m == 1, _U32(2), _U32(1))
            done = s >= spb
            b = jnp.where(done, b + 1, b)
            s = jnp.where(done, 0, s)
            iters = jnp.where(done, 0, iters)
            return b, s, iters, position, out, ok

        def cond(state: tuple[Any, ...]) -> Any:
            return (state[0] < nb) & state[5]

        init = (
            jnp.int32(0),
            jnp.int32(0),
            jnp.int32(0),
            _U32(0),
            jnp.zeros((size,), dtype),
            valid,
        )
        _, _, _, _, out, ok = jax.lax.while_loop(cond, body, init)
        return out.reshape(shape), ok


# -- the ops ----------------------------------------------------------------------------------


def _param_node(
    op_type: str,
    seed: Any,
    shape: Any,
    params: list[ops.Tensor],
    out_dtype: Any,
    draw: Callable[..., Any],
    differentiable: bool = True,
) -> ops.Tensor:
    """A stateless op of a ``shape``, a ``seed`` and parameter tensors: ``draw(key,
    counter, shape, *param values)``, in the current name scope. Not ``differentiable``:
    ``tf.gradients`` gives its inputs ``None`` (TF's ``NotDifferentiable``)."""
    dims, shape_tensor = random_ops.shape_argument(shape)
    seed_t = random_ops._seed_tensor(seed)
    dynamic = shape_tensor is not None

    def sample(key_counter: Any, *values: Any) -> Any:
        if dynamic:
            out_shape, values = tuple(int(d) for d in values[0]), values[1:]
        else:
            out_shape = tuple(int(d) for d in dims)
        key, counter = key_counter
        return draw(key, counter, out_shape, *values)

    inputs = ([shape_tensor] if dynamic else []) + params
    (out,) = random_ops._node(
        op_type,
        sample,
        seed_t,
        philox.stateless_key_counter,
        inputs,
        [(dims, dtypes.as_dtype(out_dtype))],
        "",
        (0,) if dynamic else (),
    )
    if not differentiable:
        out.op._not_differentiable = True
    return out


@jax.custom_jvp
def _gamma_with_grad(alpha: Any, samples: Any) -> Any:
    """``samples`` (gamma draws of ``alpha``, broadcast to them) carrying TF's gradient
    to ``alpha``: ``RandomGammaGrad`` (implicit reparameterization)."""
    return samples


@_gamma_with_grad.defjvp
def _gamma_jvp(primals: Any, tangents: Any) -> Any:
    alpha, samples = primals
    alpha_dot, _ = tangents
    alpha_b = jnp.broadcast_to(alpha, samples.shape)
    partial = jax.lax.random_gamma_grad(alpha_b, samples)
    return samples, partial * jnp.broadcast_to(alpha_dot, samples.shape)


def stateless_random_gamma(
    shape: Any,
    seed: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> ops.Tensor:
    """Gamma samples as a pure function of ``seed`` (``tf.random.stateless_gamma``).

    .. math:: \\max(\\text{tiny}, g / \\beta), \\quad g \\sim \\Gamma(\\alpha, 1)

    with ``g`` TF's ``StatelessRandomGammaV3`` draws (see the module docstring).

    Args:
      shape: the output shape; ``broadcast(alpha, beta)`` must be its suffix.
      seed: an int32/int64 tensor of shape [2].
      alpha: the concentrations.
      beta: the inverse scales (None: 1).
      dtype: float16, float32 or float64 (float32).
      name: the name scope (``"stateless_random_gamma"``).

    Returns:
      A tensor of ``shape`` and ``dtype``; differentiable in ``alpha`` (TF's
      ``RandomGammaGrad``, float32/float64) and in ``beta``.

    Raises:
      TypeError: a dtype TF does not allow.
      InvalidArgumentError (when run): ``shape`` does not end with the parameters'
        broadcast shape.
    """
    dt = np.dtype(dtypes.as_dtype(dtype).base_dtype.dtype)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_random_gamma"):
        alpha_t = ops.convert_to_tensor(alpha, dtype=dt, name="alpha")
        beta_t = ops.convert_to_tensor(1 if beta is None else beta, dtype=dt, name="beta")
        random_ops._check_dtype(dt, ("float16", "float32", "float64"), "alpha")
        tiny = np.finfo(dt).tiny

        def draw(key: Any, counter: Any, out_shape: tuple[int, ...], a: Any, b: Any) -> Any:
            batch = jnp.broadcast_shapes(a.shape, b.shape)
            a_b = jnp.broadcast_to(a, batch)
            _check_suffix(out_shape, batch, "alpha")
            g = gamma_samples(key, counter, jax.lax.stop_gradient(a_b), out_shape, dt)
            g = _gamma_with_grad(a_b, g)
            scaled = kernel_divide(g, b)
            # TF's Maximum(tiny, x): its gradient goes to x where x > tiny.
            return jnp.where(scaled > tiny, scaled, jnp.asarray(tiny, dt))

        return _param_node("StatelessRandomGammaV3", seed, shape, [alpha_t, beta_t], dt, draw)


_POISSON_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def stateless_random_binomial(
    shape: Any,
    seed: Any,
    counts: Any,
    probs: Any,
    output_dtype: Any = dtypes.int32,
    name: str | None = None,
) -> ops.Tensor:
    """Binomial samples as a pure function of ``seed`` (``tf.random.stateless_binomial``).

    TF's ``StatelessRandomBinomial`` draws (see :func:`binomial_samples`).

    Args:
      shape: the output shape; ``broadcast(counts, probs)`` must be its suffix.
      seed: an int32/int64 tensor of shape [2].
      counts: the numbers of trials (float16, float32 or float64, ``probs``' dtype).
      probs: the success probabilities (a Python value becomes float32).
      output_dtype: float16, float32, float64, int32 or int64 (int32).
      name: the name scope (``"stateless_random_binomial"``).

    Returns:
      A tensor of ``shape`` and ``output_dtype`` (no gradient, as TF).

    Raises:
      TypeError: dtypes TF does not allow, or ``counts`` and ``probs`` of different ones.
      InvalidArgumentError (when run): ``shape`` does not end with the parameters'
        broadcast shape.
    """
    out = np.dtype(dtypes.as_dtype(output_dtype).base_dtype.dtype)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_random_binomial"):
        probs_t = ops.convert_to_tensor(probs, dtype_hint=dtypes.float32, name="probs")
        counts_t = ops.convert_to_tensor(counts, dtype_hint=probs_t.dtype, name="counts")
        random_ops._check_dtype(counts_t._np_dtype, ("float16", "float32", "float64"), "T")
        if probs_t.dtype != counts_t.dtype:
            raise TypeError(
                f"Input 'probs' of 'StatelessRandomBinomial' Op has type {probs_t.dtype.name} "
                f"that does not match type {counts_t.dtype.name} of argument 'counts'."
            )
        random_ops._check_dtype(out, _POISSON_DTYPES)

        def draw(key: Any, counter: Any, out_shape: tuple[int, ...], n: Any, p: Any) -> Any:
            try:
                batch = jnp.broadcast_shapes(n.shape, p.shape)
            except ValueError:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "counts and probs must have compatible batch dimensions: "
                    f"{list(n.shape)} vs. {list(p.shape)}",
                ) from None
            _check_suffix(out_shape, batch, "counts")
            n, p = jax.lax.stop_gradient(n), jax.lax.stop_gradient(p)
            return binomial_samples(key, counter, n, p, out_shape, out)

        return _param_node(
            "StatelessRandomBinomial", seed, shape, [counts_t, probs_t], out, draw, False
        )


def stateless_random_poisson(
    shape: Any, seed: Any, lam: Any, dtype: Any = dtypes.int32, name: str | None = None
) -> ops.Tensor:
    """Poisson samples as a pure function of ``seed`` (``tf.random.stateless_poisson``).

    TF's ``StatelessRandomPoisson`` draws (see the module docstring).

    Args:
      shape: the output shape; ``lam``'s shape must be its suffix.
      seed: an int32/int64 tensor of shape [2].
      lam: the rates (float16, float32, float64, int32 or int64).
      dtype: the output dtype, one of the same (int32).
      name: the name scope (``"stateless_random_poisson"``).

    Returns:
      A tensor of ``shape`` and ``dtype`` (no gradient, as TF).

    Raises:
      TypeError: a dtype TF does not allow.
      InvalidArgumentError (when run): ``shape`` does not end with ``lam``'s shape.
    """
    out = np.dtype(dtypes.as_dtype(dtype).base_dtype.dtype)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_random_poisson"):
        lam_t = ops.convert_to_tensor(lam, name="lam")
        random_ops._check_dtype(lam_t._np_dtype, _POISSON_DTYPES, "Rtype")
        random_ops._check_dtype(out, _POISSON_DTYPES)

        def draw(key: Any, counter: Any, out_shape: tuple[int, ...], rate: Any) -> Any:
            _check_suffix(out_shape, rate.shape, "rate")
            return poisson_samples(key, counter, jax.lax.stop_gradient(rate), out_shape, out)

        return _param_node("StatelessRandomPoisson", seed, shape, [lam_t], out, draw, False)


def _multinomial(logits: Any, num_samples: Any, seed: Any, dtype: Any) -> ops.Tensor:
    logits_t = ops.convert_to_tensor(logits, name="logits")
    dt = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    if dt.name not in ("int32", "int64"):
        raise ValueError(
            f"Argument `dtype` got invalid value {dt!r}. Accepted dtypes are (tf.int32, tf.int64)."
        )
    random_ops._check_dtype(logits_t._np_dtype, ("float16", "bfloat16", "float32", "float64"), "T")
    if logits_t._shape is not None and len(logits_t._shape) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(logits_t._shape)}")
    num = _static_int(num_samples, "num_samples")
    seed_t = random_ops._seed_tensor(seed)
    batch = None if logits_t._shape is None else logits_t._shape[0]
    out_dtype = np.dtype(dt.dtype)

    def sample(key_counter: Any, lg: Any) -> Any:
        if num < 0:
            raise errors.InvalidArgumentError(
                None, None, f"num_samples should be non-negative, got {num}"
            )
        if lg.shape[1] == 0:
            raise errors.InvalidArgumentError(None, None, "num_classes should be positive, got 0")
        key, counter = key_counter
        return multinomial_samples(key, counter, jax.lax.stop_gradient(lg), num, out_dtype)

    (out,) = random_ops._node(
        "StatelessMultinomial",
        sample,
        seed_t,
        philox.stateless_key_counter,
        [logits_t],
        [((batch, num), dt)],
        "",
        (),
    )
    out.op._not_differentiable = True
    return out


def stateless_multinomial(
    logits: Any,
    num_samples: Any,
    seed: Any,
    output_dtype: Any = dtypes.int64,
    name: str | None = None,
) -> ops.Tensor:
    """Class indices drawn from ``logits`` as a pure function of ``seed``.

    ``tf.random.stateless_multinomial`` (TF1's name; deprecated there for
    ``stateless_categorical``). TF's ``StatelessMultinomial`` draws (see
    :func:`multinomial_samples`).

    Args:
      logits: ``[batch_size, num_classes]`` unnormalized log-probabilities.
      num_samples: draws per row (a Python int or a constant).
      seed: an int32/int64 tensor of shape [2].
      output_dtype: int32 or int64 (int64).
      name: the name scope (``"stateless_multinomial"``).

    Returns:
      ``[batch_size, num_samples]`` indices (no gradient, as TF).

    .. note::
       TF's CPU kernel splits large batches among its threads, each shard starting its
       stream at ``counter + start_row * (num_samples + 3) // 4``: its values then
       depend on the machine's thread count. jtrain draws every row from one stream,
       TF's values whenever TF runs one shard (``batch * 50 * (num_samples *
       log2(num_classes) + num_classes) < 20000``, or one intra-op thread).

    Raises:
      ValueError: ``logits`` not of rank 2, a dtype TF does not allow.
    """
    with ops.get_default_graph().name_scope(name or "stateless_multinomial"):
        return _multinomial(logits, num_samples, seed, output_dtype)


def stateless_categorical(
    logits: Any,
    num_samples: Any,
    seed: Any,
    dtype: Any = dtypes.int64,
    name: str | None = None,
) -> ops.Tensor:
    """Class indices drawn from ``logits`` as a pure function of ``seed``.

    ``tf.random.stateless_categorical``: :func:`stateless_multinomial` with the
    argument ``dtype`` (int64) and the name scope ``"stateless_categorical"``.
    """
    with ops.get_default_graph().name_scope(name or "stateless_categorical"):
        return _multinomial(logits, num_samples, seed, dtype)


def _ndtr(x: Any) -> Any:
    """The standard normal CDF as TF's gradient evaluates it (``erf`` near 0, ``erfc``
    in the tails)."""
    half_sqrt_2 = jnp.asarray(0.5 * np.sqrt(2.0), x.dtype)
    w = x * half_sqrt_2
    z = jnp.abs(w)
    y = jnp.where(
        z < half_sqrt_2,
        1.0 + jax.scipy.special.erf(w),
        jnp.where(w > 0.0, 2.0 - jax.scipy.special.erfc(z), jax.scipy.special.erfc(z)),
    )
    return 0.5 * y


def _sum_to(x: Any, shape: tuple[int, ...]) -> Any:
    """``x`` summed over the leading axes and the broadcast axes of ``shape``."""
    x = jnp.sum(x, axis=tuple(range(x.ndim - len(shape))))
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and x.shape[i] != 1)
    return jnp.sum(x, axis=axes, keepdims=True).reshape(shape)


@jax.custom_vjp
def _implicit_reparameterization(
    sample: Any, means: Any, stddevs: Any, minvals: Any, maxvals: Any
) -> Any:
    """``sample`` unchanged, differentiable w.r.t. the parameters as TF's
    ``StatelessParameterizedTruncatedNormal`` gradient (implicit reparameterization,
    Figurnov et al. 2018): with :math:`s = (x - \\mu)/\\sigma`, :math:`a, b` the
    standardized bounds and :math:`c = (\\Phi(s) - \\Phi(a))/(\\Phi(b) - \\Phi(a))`
    (clipped to ``[tiny, 1 - eps]``), :math:`dx/d\\mu = 1`, :math:`dx/d\\sigma = s`,
    :math:`dx/d\\text{lo} = e^{(s^2 - a^2)/2}(1 - c)`, :math:`dx/d\\text{hi} =
    e^{(s^2 - b^2)/2} c`, summed over the samples of each parameter."""
    return sample


def _implicit_reparameterization_fwd(
    sample: Any, means: Any, stddevs: Any, minvals: Any, maxvals: Any
) -> tuple[Any, tuple[Any, ...]]:
    return sample, (sample, means, stddevs, minvals, maxvals)


def _implicit_reparameterization_bwd(
    res: tuple[Any, ...], g: Any
) -> tuple[Any, Any, Any, Any, Any]:
    sample, mean, stddev, minval, maxval = res
    info = np.finfo(np.dtype(sample.dtype))
    minval_std = (minval - mean) / stddev
    maxval_std = (maxval - mean) / stddev
    sample_std = (sample - mean) / stddev
    cdf = (_ndtr(sample_std) - _ndtr(minval_std)) / (_ndtr(maxval_std) - _ndtr(minval_std))
    cdf = jnp.clip(cdf, info.tiny, 1 - info.eps)
    dmaxval = jnp.exp(0.5 * (sample_std**2 - maxval_std**2) + jnp.log(cdf))
    dminval = jnp.exp(0.5 * (sample_std**2 - minval_std**2) + jnp.log1p(-cdf))
    return (
        jnp.zeros_like(g),
        _sum_to(g * jnp.ones_like(sample_std), mean.shape),
        _sum_to(g * sample_std, stddev.shape),
        _sum_to(g * dminval, minval.shape),
        _sum_to(g * dmaxval, maxval.shape),
    )


_implicit_reparameterization.defvjp(
    _implicit_reparameterization_fwd, _implicit_reparameterization_bwd
)


def stateless_parameterized_truncated_normal(
    shape: Any,
    seed: Any,
    means: Any = 0.0,
    stddevs: Any = 1.0,
    minvals: Any = -2.0,
    maxvals: Any = 2.0,
    name: str | None = None,
) -> ops.Tensor:
    """Truncated normal samples of per-member bounds as a pure function of ``seed``.

    ``tf.random.stateless_parameterized_truncated_normal``: values of
    :math:`\\mathcal{N}(\\text{means}, \\text{stddevs}^2)` conditioned on
    ``[minvals, maxvals]``, TF's ``StatelessParameterizedTruncatedNormal`` draws (see
    :func:`parameterized_truncated_normal_samples`).

    Args:
      shape: the output shape; the parameters' broadcast shape must be its suffix.
      seed: an int32/int64 tensor of shape [2].
      means: the means (0.0).
      stddevs: the standard deviations (1.0).
      minvals: the lower bounds (-2.0).
      maxvals: the upper bounds (2.0).
      name: the name scope (``"stateless_parameterized_truncated_normal"``).

    Returns:
      A tensor of ``shape`` and the parameters' dtype (float32 or float64).

    .. note::
       TF's CPU kernel splits large outputs among its threads (each shard starting at
       ``counter + (start * 2000 + 3) // 4``): its values then depend on the machine's
       thread count. jtrain reads one stream, TF's values whenever TF runs one shard
       (outputs of a few hundred elements or fewer, or one intra-op thread).

    Raises:
      TypeError: parameters of different dtypes, or of one TF does not allow.
      NotImplementedError: float16 parameters (TF computes in half precision there).
      InvalidArgumentError (when run): invalid parameters (``stddevs <= 0``,
        ``minvals >= maxvals``, both bounds infinite: TF's "Invalid parameters"), or
        ``shape`` not ending with the parameters' broadcast shape.
    """
    from adapters.v1.framework import runtime_checks

    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_parameterized_truncated_normal"):
        dims, shape_tensor = random_ops.shape_argument(shape)
        seed_t = random_ops._seed_tensor(seed)
        params = [
            ops.convert_to_tensor(v, name=n)
            for v, n in (
                (means, "means"),
                (stddevs, "stddevs"),
                (minvals, "minvals"),
                (maxvals, "maxvals"),
            )
        ]
        first = params[0]
        random_ops._check_dtype(first._np_dtype, ("float16", "float32", "float64"))
        for p, what in zip(params[1:], ("stddevs", "minvals", "maxvals"), strict=True):
            if p.dtype != first.dtype:
                raise TypeError(
                    f"Input '{what}' of 'StatelessParameterizedTruncatedNormal' Op has type "
                    f"{p.dtype.name} that does not match type {first.dtype.name} of argument "
                    "'means'."
                )
        if first.dtype.name == "float16":
            raise NotImplementedError(
                "stateless_parameterized_truncated_normal with float16 parameters: TF "
                "computes in half precision, which jtrain does not reproduce; pass float32 "
                "parameters and cast the result"
            )
        dynamic = shape_tensor is not None

        def compute(ctx: Any, seed_value: Any, *values: Any) -> tuple[Any]:
            if dynamic:
                out_shape = tuple(int(d) for d in trace_time_value(ctx, shape_tensor))
                values = values[1:]
            else:
                out_shape = tuple(int(d) for d in dims)
            batch = jnp.broadcast_shapes(*(v.shape for v in values))
            _check_suffix(out_shape, batch, "means")
            key, counter = philox.stateless_key_counter(seed_value)
            m, sd, lo, hi = (jax.lax.stop_gradient(v) for v in values)
            out, ok = parameterized_truncated_normal_samples(key, counter, m, sd, lo, hi, out_shape)
            runtime_checks.check(ctx, op, ok)
            return (_implicit_reparameterization(out, *values),)

        inputs = [seed_t] + ([shape_tensor] if dynamic else []) + params
        op = graph.create_op(
            "StatelessParameterizedTruncatedNormal",
            "StatelessParameterizedTruncatedNormal",
            inputs=inputs,
            compute=compute,
            output_specs=[(dims, first.dtype)],
        )
        runtime_checks.mark(
            op,
            lambda: errors.InvalidArgumentError(
                None, op, "Invalid parameters (or a rejection sampler past 1000 iterations)"
            ),
        )
    return op.outputs[0]
