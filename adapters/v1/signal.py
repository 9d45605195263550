"""``tf.signal``: TF's FFTs (``ops/fft_ops.py``) and its signal processing
(``ops/signal/``: framing, windows, STFT, mel filters, MFCCs, DCT, MDCT)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.op_def import tf_names as _tf_names
from adapters.v1.ops import fft_ops as _fft_ops  # noqa: F401  (fills TF's op table)

_ops = _tf_names("signal")
fft = _ops["fft"]
fft2d = _ops["fft2d"]
fft3d = _ops["fft3d"]
ifft = _ops["ifft"]
ifft2d = _ops["ifft2d"]
ifft3d = _ops["ifft3d"]
irfft = _ops["irfft"]
irfft2d = _ops["irfft2d"]
irfft3d = _ops["irfft3d"]
rfft = _ops["rfft"]
rfft2d = _ops["rfft2d"]
rfft3d = _ops["rfft3d"]

__all__ = [
    "fft",
    "fft2d",
    "fft3d",
    "ifft",
    "ifft2d",
    "ifft3d",
    "irfft",
    "irfft2d",
    "irfft3d",
    "rfft",
    "rfft2d",
    "rfft3d",
]

__getattr__ = missing_name_getattr("tf.signal", globals())
