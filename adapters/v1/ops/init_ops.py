"""TF1's variable initializers (``tf.zeros_initializer``, ``tf.glorot_uniform_initializer``...).

Each is a callable ``init(shape, dtype=None, partition_info=None)`` returning the
initial value as a graph tensor. Random initializers draw from ``jax.random``
with a key made of the seeds of TF's rules (``tf.get_seed``: the graph-level
seed of ``tf.set_random_seed`` and the op-level ``seed``), so a graph built twice
with a seed gets the same values; without any seed they differ, as TF's.

.. note::
   TF's random number generators are not reproduced: the *distributions* are
   TF's (truncated normals cut at two standard deviations, Glorot's fan
   computation...), the values differ. Restore a TF checkpoint to start from
   TF's values.
"""

from __future__ import annotations

import math
import secrets
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops import random_ops

__all__ = [
    "zeros_initializer",
    "ones_initializer",
    "constant_initializer",
    "random_normal_initializer",
    "truncated_normal_initializer",
    "random_uniform_initializer",
    "variance_scaling_initializer",
    "glorot_uniform_initializer",
    "glorot_normal_initializer",
    "he_normal",
    "he_uniform",
    "lecun_normal",
    "lecun_uniform",
    "uniform_unit_scaling_initializer",
    "orthogonal_initializer",
    "identity_initializer",
    "set_random_seed",
]


def set_random_seed(seed: int | None) -> None:
    """Sets the default graph's seed for random initializers (``tf.set_random_seed``)."""
    ops.get_default_graph()._seed = seed


def _dtype(dtype: Any, default: Any = np.float32) -> Any:
    return ops.as_dtype(default if dtype is None else dtype)


def _constant(value: np.ndarray, name: str = "Const") -> ops.Tensor:
    from adapters.v1.ops.constant_op import constant

    return constant(value, name=name)


def _filled(kind: str, shape: Any, dtype: Any) -> ops.Tensor:
    """TF's ``tf.zeros``/``tf.ones`` (``kind``) as its initializers build them: a
    ``Const`` named ``kind`` below 1000 elements, else a ``Fill`` named ``kind`` (TF
    keeps big constants out of the ``GraphDef``), filling the ``Const`` in its scope to
    the shape of the ``Const`` ``shape_as_tensor`` there."""
    shape = tuple(shape)
    make = np.zeros if kind == "zeros" else np.ones
    if math.prod(shape) < 1000 or dtype.name == "string":
        return _constant(make(shape, dtype), name=kind)
    from adapters.v1.framework.op_def import FUNCTIONS

    with ops.name_scope(None, kind, []) as scope:
        dims = _constant(np.asarray(shape, np.int32), name="shape_as_tensor")
        return FUNCTIONS["fill"](dims, _constant(make((), dtype)), name=scope)


class _Initializer:
    dtype: Any = None

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}


class zeros_initializer(_Initializer):  # TF's name
    """All zeros."""

    def __init__(self, dtype: Any = np.float32):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return _filled("zeros", shape, _dtype(dtype, self.dtype))


class ones_initializer(_Initializer):
    """All ones."""

    def __init__(self, dtype: Any = np.float32):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return _filled("ones", shape, _dtype(dtype, self.dtype))


class constant_initializer(_Initializer):
    """A constant value, or a list filling the shape in order (``verify_shape`` checks it).

    As TF1's: a list shorter than the shape holds repeats its last value over the rest;
    a longer one raises ``ValueError``.
    """

    def __init__(self, value: Any = 0, dtype: Any = np.float32, verify_shape: bool = False):
        self.value = value
        self.dtype = dtype
        self.verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = tuple(shape)
        arr = np.asarray(self.value, dtype=_dtype(dtype, self.dtype))
        if arr.size == 1:
            return _constant(np.full(shape, arr.reshape(()), arr.dtype))
        if self.verify_shape and arr.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
        size = math.prod(shape)
        if arr.size > size:
            raise ValueError(
                f"Too many elements provided. Takes at most {size}, but got {arr.size}."
            )
        # As TF1's constant: fewer values than the shape holds repeat the last one (none:
        # zeros).
        flat = arr.reshape(-1)
        if flat.size < size:
            last = flat[-1] if flat.size else np.zeros((), flat.dtype)
            flat = np.concatenate([flat, np.full(size - flat.size, last, flat.dtype)])
        return _constant(flat.reshape(shape))


class _Random(_Initializer):
    seed: int | None = None

    def _key(self) -> np.ndarray:
        """The initializer's key by TF's seed rules (``tf.get_seed``), as raw threefry data.

        With a graph or op seed the value is the same whenever the graph is built
        the same way; with neither it differs at every build (TF: at every
        session), as TF's.
        """
        graph_seed, op_seed = random_ops.get_seed(self.seed)
        if graph_seed is None or op_seed is None:
            graph_seed, op_seed = secrets.randbits(31), secrets.randbits(31)
        return np.array([graph_seed, op_seed], np.uint32)

    def _tensor(self, shape, dtype, sample) -> ops.Tensor:
        from adapters.v1.ops.script_ops import lift

        key = self._key()
        shape = tuple(int(d) for d in shape)
        dtype = _dtype(dtype, self.dtype)
        return lift(
            lambda: sample(jax.random.wrap_key_data(key, impl="threefry2x32"), shape).astype(dtype),
            [],
            name="random_initializer",
        )


class random_normal_initializer(_Random):
    """Normal samples, ``mean`` and ``stddev``."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=np.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(
            _dims(shape), self.mean, self.stddev, _dtype(dtype, self.dtype), seed=self.seed
        )


class truncated_normal_initializer(_Random):
    """Normal samples redrawn beyond two standard deviations (TF's truncation)."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=np.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(
            _dims(shape), self.mean, self.stddev, _dtype(dtype, self.dtype), seed=self.seed
        )


class random_uniform_initializer(_Random):
    """Uniform samples in ``[minval, maxval)``."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=np.float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(
            _dims(shape), self.minval, self.maxval, _dtype(dtype, self.dtype), seed=self.seed
        )


def _fans(shape: tuple[int, ...]) -> tuple[float, float]:
    """TF's ``_compute_fans``: receptive field times input and output channels."""
    if len(shape) < 1:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = math.prod(shape[:-2])
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


class variance_scaling_initializer(_Random):
    """``scale / n`` variance, ``n`` from ``mode`` (fan_in, fan_out, fan_avg).

    Args:
      scale: the variance numerator (positive; default 1.0).
      mode: ``"fan_in"`` (default), ``"fan_out"`` or ``"fan_avg"``.
      distribution: ``"truncated_normal"`` (default; ``"normal"`` is TF's
        deprecated alias for it), ``"untruncated_normal"`` or ``"uniform"``.
      seed: the op-level seed.
      dtype: a floating dtype (default float32).

    Raises:
      ValueError: a bad ``scale``, ``mode``, ``distribution`` or non-float ``dtype``.
    """

    def __init__(
        self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=np.float32
    ):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(
                "Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). "
                f"Received: {mode}"
            )
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(
                "Argument `distribution` should be one of ('normal', uniform', "
                f"'truncated_normal', 'untruncated_normal'). Received: {distribution}"
            )
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.seed, self.dtype = seed, _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = tuple(int(d) for d in shape)
        fan_in, fan_out = _fans(_full_shape(shape, partition_info))
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        dt = _dtype(dtype, self.dtype)
        if self.distribution in ("normal", "truncated_normal"):
            std = math.sqrt(scale) / 0.87962566103423978  # TF: std of N(0,1) cut at +-2
            return random_ops.truncated_normal(shape, 0.0, std, dt, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dt, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dt, seed=self.seed)


class glorot_uniform_initializer(variance_scaling_initializer):
    """Glorot/Xavier uniform: ``variance_scaling(1.0, "fan_avg", "uniform")``."""

    def __init__(self, seed=None, dtype=np.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype}


class glorot_normal_initializer(variance_scaling_initializer):
    """Glorot/Xavier normal: ``variance_scaling(1.0, "fan_avg", "truncated_normal")``."""

    def __init__(self, seed=None, dtype=np.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype}


def he_normal(seed: int | None = None) -> variance_scaling_initializer:
    """He normal: ``variance_scaling(2.0, "fan_in", "truncated_normal")``."""
    return variance_scaling_initializer(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed: int | None = None) -> variance_scaling_initializer:
    """He uniform: ``variance_scaling(2.0, "fan_in", "uniform")``."""
    return variance_scaling_initializer(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed: int | None = None) -> variance_scaling_initializer:
    """LeCun normal: ``variance_scaling(1.0, "fan_in", "truncated_normal")``."""
    return variance_scaling_initializer(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed: int | None = None) -> variance_scaling_initializer:
    """LeCun uniform: ``variance_scaling(1.0, "fan_in", "uniform")``."""
    return variance_scaling_initializer(1.0, "fan_in", "uniform", seed)


class uniform_unit_scaling_initializer(_Random):
    """Uniform in ``+-sqrt(3 / input_size) * factor``, input size all but the last dimension.

    Args:
      factor: multiplies the bound (default 1.0).
      seed: the op-level seed.
      dtype: a floating dtype (default float32).
    """

    def __init__(self, factor=1.0, seed=None, dtype=np.float32):
        self.factor, self.seed, self.dtype = factor, seed, _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = tuple(int(d) for d in shape)
        input_size = max(float(math.prod(_full_shape(shape, partition_info)[:-1])), 1.0)
        limit = math.sqrt(3.0 / input_size) * self.factor
        dt = _dtype(dtype, self.dtype)
        return random_ops.random_uniform(shape, -limit, limit, dt, seed=self.seed)


class orthogonal_initializer(_Random):
    """An orthogonal matrix (rows or columns orthonormal) times ``gain``.

    The shape is flattened to ``(prod(shape[:-1]), shape[-1])``; the matrix is
    the Q of a normal sample's QR decomposition, its signs fixed by R's diagonal.

    Args:
      gain: multiplies the matrix (default 1.0).
      seed: the op-level seed.
      dtype: a floating dtype (default float32).

    Raises:
      ValueError: (on call) a shape of rank below 2.
    """

    def __init__(self, gain=1.0, seed=None, dtype=np.float32):
        self.gain, self.seed, self.dtype = gain, seed, _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = tuple(int(d) for d in shape)
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be at least "
                f"two-dimensional. Received shape={list(shape)}"
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        gain = self.gain

        def sample(key, s):
            a = jax.random.normal(key, (max(rows, cols), min(rows, cols)))
            q, r = jnp.linalg.qr(a)
            q = q * jnp.sign(jnp.diagonal(r))
            if rows < cols:
                q = q.T
            return gain * q.reshape(s)

        return self._tensor(shape, dtype, sample)


class identity_initializer(_Initializer):
    """``gain`` times the identity matrix (2-D shapes only).

    Args:
      gain: multiplies the matrix (default 1.0).
      dtype: a floating dtype (default float32).

    Raises:
      ValueError: (on call) a shape that is not 2-D.
    """

    def __init__(self, gain=1.0, dtype=np.float32):
        self.gain, self.dtype = gain, _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = tuple(int(d) for d in shape)
        full = _full_shape(shape, partition_info)
        if len(full) != 2:
            raise ValueError(
                "The tensor to initialize, specified by argument `shape` must be at least "
                f"two-dimensional. Received shape={list(shape)}"
            )
        eye = np.eye(*full, dtype=_dtype(dtype, self.dtype))
        if partition_info is not None:
            offset = partition_info.var_offset
            eye = eye[tuple(slice(o, o + n) for o, n in zip(offset, shape, strict=True))]
        return _constant((eye * np.asarray(self.gain, eye.dtype)).astype(eye.dtype))


def _dims(shape: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in shape)


def _full_shape(shape: tuple[int, ...], partition_info: Any) -> tuple[int, ...]:
    """The whole variable's shape when initializing one partition of it."""
    if partition_info is None:
        return shape
    return tuple(int(d) for d in partition_info.full_shape)


def _assert_float_dtype(dtype: Any) -> Any:
    if not jnp.issubdtype(ops.as_dtype(dtype), jnp.floating):
        raise ValueError(
            f"Argument `dtype` is expected to be floating point. Received: {ops.as_dtype(dtype)}."
        )
    return dtype
