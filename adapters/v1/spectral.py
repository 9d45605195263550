"""``tf.spectral`` (TF 1's name of ``tf.signal``'s FFTs and DCTs): ``ops/fft_ops.py``,
``ops/dct_ops.py``."""

from adapters.v1 import signal as _signal
from adapters.v1._missing import missing_name_getattr

dct = _signal.dct
fft = _signal.fft
fft2d = _signal.fft2d
fft3d = _signal.fft3d
idct = _signal.idct
ifft = _signal.ifft
ifft2d = _signal.ifft2d
ifft3d = _signal.ifft3d
irfft = _signal.irfft
irfft2d = _signal.irfft2d
irfft3d = _signal.irfft3d
rfft = _signal.rfft
rfft2d = _signal.rfft2d
rfft3d = _signal.rfft3d

__all__ = [
    "dct",
    "fft",
    "fft2d",
    "fft3d",
    "idct",
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

__getattr__ = missing_name_getattr("tf.spectral", globals())
