"""``tf.signal.mfccs_from_log_mel_spectrograms`` (TF: ``signal/mfcc_ops.py``).

.. math::

   \\mathrm{mfcc} = \\frac{\\mathrm{DCT\\text{-}II}(\\log\\text{-mel})}{\\sqrt{2M}}

over the ``M`` mel bins (the orthonormal DCT-II up to the first coefficient's
scale, as TF and HTK). Built from TF's ops in TF's order (``dct_ops``).
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.ops.signal.dct_ops import dct

__all__ = ["mfccs_from_log_mel_spectrograms"]


def mfccs_from_log_mel_spectrograms(
    log_mel_spectrograms: Any, name: str | None = None
) -> ops.Tensor:
    """MFCCs of log-magnitude mel spectrograms (``tf.signal.mfccs_from_log_mel_spectrograms``).

    Args:
      log_mel_spectrograms: ``[..., num_mel_bins]`` float32/float64 tensor.
      name: the name scope (default ``"mfccs_from_log_mel_spectrograms"``).

    Returns:
      ``[..., num_mel_bins]`` MFCCs (keep the first 13 or so, as usual).

    Raises:
      ValueError: ``num_mel_bins`` is 0.
    """
    from adapters import v1 as tf

    with tf.name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        log_mel_spectrograms = ops.convert_to_tensor(log_mel_spectrograms)
        shape = log_mel_spectrograms.shape
        last = shape.as_list()[-1] if shape.ndims else None
        if last is not None:
            num_mel_bins: Any = last
            if num_mel_bins == 0:
                raise ValueError(f"num_mel_bins must be positive. Got: {log_mel_spectrograms}")
        else:
            num_mel_bins = tf.shape(log_mel_spectrograms)[-1]
        dct2 = dct(log_mel_spectrograms, type=2)
        return dct2 * tf.rsqrt(tf.cast(num_mel_bins, dct2.dtype) * 2.0)


FUNCTIONS["signal.mfccs_from_log_mel_spectrograms"] = mfccs_from_log_mel_spectrograms
