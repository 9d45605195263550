"""TF's discrete cosine transforms (``tf.signal.dct``/``idct``, also in
``tf.spectral``; TF: ``signal/dct_ops.py``), built from TF's ops in TF's order
(an ``RFFT`` of the padded or mirrored signal and a complex twiddle).

.. math::

   \\mathrm{DCT\\text{-}II}(x)_k = 2 \\sum_{n=0}^{N-1} x_n
     \\cos\\frac{\\pi k (2n + 1)}{2N}

type I ``x_0 + (-1)^k x_{N-1} + 2 \\sum_{n=1}^{N-2} x_n \\cos(\\pi k n / (N-1))``,
type III the unnormalized inverse of type II (``N`` times it), type IV
``2 \\sum_n x_n \\cos(\\pi (2k+1)(2n+1) / (4N))``; ``norm="ortho"`` scales types
II-IV to orthonormal transforms. ``idct`` of type II is ``dct`` of type III and
conversely (types I and IV are their own inverses up to scale).

.. note:: The twiddle is ``exp`` of a complex value: XLA's and Eigen's differ by an
   ulp on some arguments, so values are within the bound measured in
   ``tests/interop/test_signal_interop.py``, not bit-identical.
"""

from __future__ import annotations

import math
from typing import Any

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS

__all__ = ["dct", "idct"]


def _tf() -> Any:
    from adapters import v1

    return v1


def _validate(input_tensor: Any, dct_type: int, n: Any, axis: int, norm: Any) -> None:
    """TF's ``_validate_dct_arguments``."""
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        last = input_tensor.shape[-1] if input_tensor.shape.ndims else None
        last = getattr(last, "value", last)
        if last is not None and last < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def dct(
    input: Any,  # noqa: A002 - TF's name
    type: int = 2,  # noqa: A002 - TF's name
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """The DCT of the innermost dimension (``tf.signal.dct``).

    Args:
      input: a float32 or float64 tensor.
      type: the DCT type, 1, 2, 3 or 4 (default 2).
      n: the length the signal is truncated or zero-padded to (default None: its own).
      axis: must be -1 (TF's only axis).
      norm: ``None`` or ``"ortho"`` (types 2-4).
      name: the name scope (default ``"dct"``).

    Returns:
      The transform, of ``input``'s dtype.

    Raises:
      ValueError: a bad type, ``n``, ``norm``, or a type I of a dimension below 2.
      NotImplementedError: ``axis`` is not -1 (TF's error).
    """
    input = ops.convert_to_tensor(input)
    _validate(input, type, n, axis, norm)
    return _dct_internal(input, type, n, norm, name)


def idct(
    input: Any,  # noqa: A002 - TF's name
    type: int = 2,  # noqa: A002 - TF's name
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """The inverse DCT of the innermost dimension (``tf.signal.idct``): the DCT of
    type 1, 3, 2, 4 for ``type`` 1, 2, 3, 4 (unnormalized unless ``norm="ortho"``:
    ``idct(dct(x)) == 2N x`` for type II).

    Args:
      input: a float32 or float64 tensor.
      type: the type of the DCT inverted, 1, 2, 3 or 4 (default 2).
      n: the length the signal is truncated or zero-padded to (default None).
      axis: must be -1.
      norm: ``None`` or ``"ortho"``.
      name: the name scope (default ``"dct"``).

    Returns:
      The transform, of ``input``'s dtype.

    Raises:
      ValueError: as ``dct``.
      NotImplementedError: ``axis`` is not -1.
    """
    input = ops.convert_to_tensor(input)
    _validate(input, type, n, axis, norm)
    return _dct_internal(input, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm, name)


def _last_dim(tf: Any, x: Any) -> Any:
    static = x.shape[-1] if x.shape.ndims else None
    static = getattr(static, "value", static)
    return static or tf.shape(x)[-1]


def _two(x: Any) -> ops.Tensor:
    """TF's ``2.0`` times a complex tensor: the constant converted to its complex dtype.

    (jtrain's operators refuse a Python float with a complex tensor, which TF takes.)"""
    complex_dtype = dtypes.complex128 if x.dtype == dtypes.float64 else dtypes.complex64
    return ops.convert_to_tensor(2.0, dtype=complex_dtype)


def _range(tf: Any, limit: ops.Tensor) -> ops.Tensor:
    """TF's ``range(limit)`` of a floating limit, of the limit's dtype.

    (jtrain's ``tf.range`` of a float64 limit computed in the graph gives float32.)"""
    return tf.range(limit, dtype=limit.dtype)


def _dct_internal(x: Any, kind: int, n: Any, norm: Any, name: Any) -> ops.Tensor:
    """TF's ``_dct_internal``."""
    tf = _tf()
    with tf.name_scope(name, "dct", [x]):
        x = ops.convert_to_tensor(x)
        zero = ops.convert_to_tensor(0.0, dtype=x.dtype)
        seq_len = _last_dim(tf, x)
        if n is not None:
            if isinstance(seq_len, int):
                if n <= seq_len:
                    x = x[..., 0:n]
                else:
                    rank = len(x.shape)
                    padding = [[0, 0] for _ in range(rank)]
                    padding[rank - 1][1] = n - seq_len
                    x = tf.pad(x, paddings=ops.convert_to_tensor(padding, dtype=dtypes.int32))
            else:
                raise NotImplementedError(
                    "tf.signal.dct: n with an input of unknown last dimension; give the "
                    "input a static last dimension (set_shape)"
                )
        axis_dim = _last_dim(tf, x)
        axis_dim_float = tf.cast(axis_dim, x.dtype)
        if kind == 1:
            dct1_input = tf.concat([x, x[..., -2:0:-1]], axis=-1)
            return tf.real(tf.signal.rfft(dct1_input))
        if kind == 2:
            scale = _two(x) * tf.exp(
                tf.complex(zero, -_range(tf, axis_dim_float) * math.pi * 0.5 / axis_dim_float)
            )
            dct2 = tf.real(tf.signal.rfft(x, fft_length=[2 * axis_dim])[..., :axis_dim] * scale)
            if norm == "ortho":
                n1 = 0.5 * tf.rsqrt(axis_dim_float)
                n2 = n1 * math.sqrt(2.0)
                weights = tf.pad(tf.expand_dims(n1, 0), [[0, axis_dim - 1]], constant_values=n2)
                dct2 *= weights
            return dct2
        if kind == 3:
            if norm == "ortho":
                n1 = tf.sqrt(axis_dim_float)
                n2 = n1 * math.sqrt(0.5)
                weights = tf.pad(tf.expand_dims(n1, 0), [[0, axis_dim - 1]], constant_values=n2)
                x *= weights
            else:
                x *= axis_dim_float
            scale = _two(x) * tf.exp(
                tf.complex(zero, _range(tf, axis_dim_float) * math.pi * 0.5 / axis_dim_float)
            )
            return tf.real(tf.signal.irfft(scale * tf.complex(x, zero), fft_length=[2 * axis_dim]))[
                ..., :axis_dim
            ]
        dct2 = _dct_internal(x, 2, 2 * axis_dim, None, None)
        dct4 = dct2[..., 1::2]
        if norm == "ortho":
            dct4 *= math.sqrt(0.5) * tf.rsqrt(axis_dim_float)
        return dct4


FUNCTIONS["signal.dct"] = FUNCTIONS["spectral.dct"] = dct
FUNCTIONS["signal.idct"] = FUNCTIONS["spectral.idct"] = idct
