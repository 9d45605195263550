"""TF's window functions (``tf.signal.hann_window``, ``hamming_window``,
``kaiser_window``, ``kaiser_bessel_derived_window``, ``vorbis_window``; TF:
``signal/window_ops.py``), built from TF's ops in TF's order.

.. math::

   \\mathrm{hann}[n] = 0.5 - 0.5 \\cos\\frac{2 \\pi n}{N}, \\quad
   \\mathrm{hamming}[n] = 0.54 - 0.46 \\cos\\frac{2 \\pi n}{N}

with ``N = window_length`` (``periodic``, even lengths) or ``window_length - 1``;
``vorbis[n] = sin(pi/2 sin^2(pi (n + 1/2) / L))``; ``kaiser[n] =
I0(beta sqrt(1 - (2n/(L-1) - 1)^2)) / I0(beta)`` (as TF, through ``bessel_i0e``);
the Kaiser-Bessel-derived window is the square root of the normalized cumulative sum
of a Kaiser window of ``L/2 + 1`` points, mirrored.

.. note:: Not bit-identical to TF: TF's ``Cos``/``Sin``/``Exp``/``BesselI0e``
   kernels are Eigen's approximations and XLA's CPU ones its own; they differ by up
   to an ulp on some arguments, and so do these windows (bounds measured in
   ``tests/interop/test_signal_interop.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS

__all__ = [
    "hamming_window",
    "hann_window",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "vorbis_window",
]


def _tf() -> Any:
    from adapters import v1

    return v1


def _floating(dtype: Any) -> dtypes.DType:
    """``dtype`` as a DType, which must be floating (TF's message)."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    return dtype


def _check_params(window_length: Any, dtype: Any, name: str | None = None) -> ops.Tensor:
    """TF's ``_check_params``: a floating ``dtype`` and ``window_length`` as an int32
    scalar tensor (named ``name``).

    Raises:
      ValueError: ``dtype`` not floating, or ``window_length`` not a scalar.
    """
    _floating(dtype)
    window_length = ops.convert_to_tensor(window_length, dtype=dtypes.int32, name=name)
    window_length.shape.assert_has_rank(0)
    return window_length


def kaiser_window(
    window_length: Any, beta: Any = 12.0, dtype: Any = dtypes.float32, name: str | None = None
) -> ops.Tensor:
    """A Kaiser window (``tf.signal.kaiser_window``).

    Args:
      window_length: the window's length (an integer scalar).
      beta: the shape parameter (default 12.0).
      dtype: a floating dtype (default float32).
      name: the name scope (default ``"kaiser_window"``).

    Returns:
      A ``[window_length]`` tensor of ``dtype``.

    Raises:
      ValueError: ``dtype`` is not floating.
    """
    tf = _tf()
    dtype = dtypes.as_dtype(dtype)
    with tf.name_scope(name, "kaiser_window"):
        window_length = _check_params(window_length, dtype)
        if tf.get_static_value(window_length) == 1:
            return tf.ones([1], dtype=dtype)
        halflen_float = (tf.cast(window_length, dtype=dtypes.float32) - 1.0) / 2.0
        arg = tf.range(-halflen_float, halflen_float + 0.1, dtype=dtypes.float32)
        arg = tf.cast(arg, dtype=dtype)
        beta = tf.cast(beta, dtype=dtype)
        one = tf.cast(1.0, dtype=dtype)
        halflen_float = tf.cast(halflen_float, dtype=dtype)
        num = beta * tf.sqrt(tf.nn.relu(one - tf.square(arg / halflen_float)))
        return tf.exp(num - beta) * (tf.math.bessel_i0e(num) / tf.math.bessel_i0e(beta))


def kaiser_bessel_derived_window(
    window_length: Any, beta: Any = 12.0, dtype: Any = dtypes.float32, name: str | None = None
) -> ops.Tensor:
    """A Kaiser-Bessel-derived window (``tf.signal.kaiser_bessel_derived_window``),
    for MDCTs.

    Args:
      window_length: the window's length (an even integer scalar).
      beta: the Kaiser window's shape parameter (default 12.0).
      dtype: a floating dtype (default float32).
      name: the name scope (default ``"kaiser_bessel_derived_window"``).

    Returns:
      A ``[window_length]`` tensor of ``dtype``.

    Raises:
      ValueError: ``dtype`` is not floating.
    """
    tf = _tf()
    with tf.name_scope(name, "kaiser_bessel_derived_window"):
        window_length = _check_params(window_length, dtype)
        halflen = window_length // 2
        kaiserw = kaiser_window(halflen + 1, beta, dtype=dtype)
        kaiserw_csum = tf.cumsum(kaiserw)
        halfw = tf.sqrt(kaiserw_csum[:-1] / kaiserw_csum[-1])
        return tf.concat((halfw, halfw[::-1]), axis=0)


def vorbis_window(
    window_length: Any, dtype: Any = dtypes.float32, name: str | None = None
) -> ops.Tensor:
    """A Vorbis power-complementary window (``tf.signal.vorbis_window``).

    Args:
      window_length: the window's length (an integer scalar).
      dtype: a floating dtype (default float32).
      name: the name scope (default ``"vorbis_window"``).

    Returns:
      A ``[window_length]`` tensor of ``dtype``.

    Raises:
      ValueError: ``dtype`` is not floating.
    """
    tf = _tf()
    dtype = dtypes.as_dtype(dtype)
    with tf.name_scope(name, "vorbis_window"):
        window_length = _check_params(window_length, dtype)
        arg = tf.cast(tf.range(window_length), dtype=dtype)
        inner = tf.sin(np.pi / tf.cast(window_length, dtype=dtype) * (arg + 0.5))
        return tf.sin(np.pi / 2.0 * tf.pow(inner, 2.0))


def hann_window(
    window_length: Any,
    periodic: Any = True,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> ops.Tensor:
    """A Hann window (``tf.signal.hann_window``): ``0.5 - 0.5 cos(2 pi n / N)``.

    Args:
      window_length: the window's length (an integer scalar).
      periodic: a periodic window (for spectral analysis, default True) or a
        symmetric one (for filter design).
      dtype: a floating dtype (default float32).
      name: the name scope (default ``"hann_window"``).

    Returns:
      A ``[window_length]`` tensor of ``dtype``.

    Raises:
      ValueError: ``dtype`` is not floating.
    """
    return _raised_cosine_window(name, "hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(
    window_length: Any,
    periodic: Any = True,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> ops.Tensor:
    """A Hamming window (``tf.signal.hamming_window``): ``0.54 - 0.46 cos(2 pi n / N)``.

    Args:
      window_length: the window's length (an integer scalar).
      periodic: a periodic window (default True) or a symmetric one.
      dtype: a floating dtype (default float32).
      name: the name scope (default ``"hamming_window"``).

    Returns:
      A ``[window_length]`` tensor of ``dtype``.

    Raises:
      ValueError: ``dtype`` is not floating.
    """
    return _raised_cosine_window(name, "hamming_window", window_length, periodic, dtype, 0.54, 0.46)


def _raised_cosine_window(
    name: str | None,
    default_name: str,
    window_length: Any,
    periodic: Any,
    dtype: Any,
    a: float,
    b: float,
) -> ops.Tensor:
    """``a - b cos(2 pi n / N)`` as TF's ``_raised_cosine_window`` computes it."""
    tf = _tf()
    dtype = _floating(dtype)
    with tf.name_scope(name, default_name, [window_length, periodic]):
        window_length = _check_params(window_length, dtype, name="window_length")
        const = tf.get_static_value(window_length)
        if const == 1:
            return tf.ones([1], dtype=dtype)
        periodic = tf.cast(
            ops.convert_to_tensor(periodic, dtype=dtypes.bool, name="periodic"), dtypes.int32
        )
        periodic.shape.assert_has_rank(0)
        even = 1 - tf.mod(window_length, 2)
        n = tf.cast(window_length + periodic * even - 1, dtype=dtype)
        count = tf.cast(tf.range(window_length), dtype)
        cos_arg = tf.constant(2 * np.pi, dtype=dtype) * count / n
        if const is not None:
            return tf.cast(a - b * tf.cos(cos_arg), dtype=dtype)
        # TF: a tf.cond of the two; a select here, the length being known when the
        # step is traced (jtrain's cond branches cannot read it from tf.shape yet)
        return tf.where(
            tf.equal(tf.fill([window_length], window_length), 1),
            tf.ones([window_length], dtype=dtype),
            tf.cast(a - b * tf.cos(cos_arg), dtype=dtype),
        )


for _fn in (
    hamming_window,
    hann_window,
    kaiser_bessel_derived_window,
    kaiser_window,
    vorbis_window,
):
    FUNCTIONS[f"signal.{_fn.__name__}"] = _fn
