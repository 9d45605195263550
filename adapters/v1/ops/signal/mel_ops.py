"""``tf.signal.linear_to_mel_weight_matrix`` (TF: ``signal/mel_ops.py``): triangular
mel filters over a linear-frequency spectrogram's bins, built from TF's ops in TF's
order.

.. math::

   \\mathrm{mel}(f) = 1127 \\ln(1 + f / 700), \\qquad
   W[i, j] = \\max\\!\\left(0, \\min\\!\\left(
     \\frac{m_i - l_j}{c_j - l_j}, \\frac{u_j - m_i}{u_j - c_j}\\right)\\right)

for the mel value ``m_i`` of spectrogram bin ``i`` (bin 0, DC, is all zeros) and the
band edges ``l_j, c_j, u_j`` of mel band ``j``, evenly spaced in mel between
``lower_edge_hertz`` and ``upper_edge_hertz`` (HTK's mel scale, as TF).

.. note:: ``Log``/``Exp`` are XLA's approximations, not Eigen's: the weights are
   within the bound measured in ``tests/interop/test_signal_interop.py``.
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.ops.signal.shape_ops import frame

__all__ = ["linear_to_mel_weight_matrix"]

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(tf: Any, frequencies_hertz: Any) -> Any:
    with tf.name_scope(None, "hertz_to_mel", [frequencies_hertz]):
        frequencies_hertz = ops.convert_to_tensor(frequencies_hertz)
        return _MEL_HIGH_FREQUENCY_Q * tf.log(
            1.0 + (frequencies_hertz / _MEL_BREAK_FREQUENCY_HERTZ)
        )


def _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype) -> None:
    """TF's ``_validate_arguments`` (its messages)."""
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(
            f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz {upper_edge_hertz:.1f}"
        )
    if not isinstance(sample_rate, ops.Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError(
                "upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate "
                f"/ 2). Got {upper_edge_hertz} for sample_rate: {sample_rate}"
            )
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def linear_to_mel_weight_matrix(
    num_mel_bins: int = 20,
    num_spectrogram_bins: int = 129,
    sample_rate: Any = 8000,
    lower_edge_hertz: float = 125.0,
    upper_edge_hertz: float = 3800.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> ops.Tensor:
    """The ``[num_spectrogram_bins, num_mel_bins]`` matrix turning a linear
    magnitude spectrogram into a mel one (``tf.signal.linear_to_mel_weight_matrix``).

    Args:
      num_mel_bins: mel bands (default 20).
      num_spectrogram_bins: bins of the spectrogram, ``fft_length // 2 + 1``
        (default 129).
      sample_rate: samples per second of the signal (default 8000; a Python number
        or a scalar tensor).
      lower_edge_hertz: the lowest band's lower edge (default 125.0).
      upper_edge_hertz: the highest band's upper edge (default 3800.0).
      dtype: a floating dtype (default float32).
      name: the name scope (default ``"linear_to_mel_weight_matrix"``).

    Returns:
      The weight matrix, of ``dtype``.

    Raises:
      ValueError: a non-positive ``num_mel_bins`` or ``sample_rate``, edges out of
        order or above the Nyquist frequency, a non-floating dtype (TF's messages).
    """
    from adapters import v1 as tf

    dtype = dtypes.as_dtype(dtype)
    with tf.name_scope(name, "linear_to_mel_weight_matrix") as scope:
        if isinstance(sample_rate, ops.Tensor):
            value = tf.get_static_value(sample_rate)
            if value is not None:
                sample_rate = value
        _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
        sample_rate = tf.cast(sample_rate, dtype, name="sample_rate")
        lower_edge_hertz = ops.convert_to_tensor(lower_edge_hertz, dtype, name="lower_edge_hertz")
        upper_edge_hertz = ops.convert_to_tensor(upper_edge_hertz, dtype, name="upper_edge_hertz")
        zero = ops.convert_to_tensor(0.0, dtype)
        bands_to_zero = 1
        nyquist_hertz = sample_rate / 2.0
        linear_frequencies = tf.linspace(zero, nyquist_hertz, num_spectrogram_bins)[bands_to_zero:]
        spectrogram_bins_mel = tf.expand_dims(_hertz_to_mel(tf, linear_frequencies), 1)
        band_edges_mel = frame(
            tf.linspace(
                _hertz_to_mel(tf, lower_edge_hertz),
                _hertz_to_mel(tf, upper_edge_hertz),
                num_mel_bins + 2,
            ),
            frame_length=3,
            frame_step=1,
        )
        lower_edge_mel, center_mel, upper_edge_mel = tuple(
            tf.reshape(t, [1, num_mel_bins]) for t in tf.split(band_edges_mel, 3, axis=1)
        )
        lower_slopes = (spectrogram_bins_mel - lower_edge_mel) / (center_mel - lower_edge_mel)
        upper_slopes = (upper_edge_mel - spectrogram_bins_mel) / (upper_edge_mel - center_mel)
        mel_weights_matrix = tf.maximum(zero, tf.minimum(lower_slopes, upper_slopes))
        return tf.pad(mel_weights_matrix, [[bands_to_zero, 0], [0, 0]], name=scope)


FUNCTIONS["signal.linear_to_mel_weight_matrix"] = linear_to_mel_weight_matrix
