"""``tf.signal``: TF's FFTs (``ops/fft_ops.py``) and its signal processing
(``ops/signal/``: framing, windows, STFT, mel filters, MFCCs, DCT, MDCT)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.op_def import tf_names as _tf_names
from adapters.v1.ops import fft_ops as _fft_ops
from adapters.v1.ops.signal import dct_ops as _dct_ops
from adapters.v1.ops.signal import mel_ops as _mel_ops
from adapters.v1.ops.signal import mfcc_ops as _mfcc_ops
from adapters.v1.ops.signal import reconstruction_ops as _reconstruction_ops
from adapters.v1.ops.signal import shape_ops as _shape_ops
from adapters.v1.ops.signal import spectral_ops as _spectral_ops
from adapters.v1.ops.signal import window_ops as _window_ops

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
fftnd = _ops["fftnd"]
ifftnd = _ops["ifftnd"]
rfftnd = _ops["rfftnd"]
irfftnd = _ops["irfftnd"]
fftshift = _fft_ops.fftshift
ifftshift = _fft_ops.ifftshift
dct = _dct_ops.dct
idct = _dct_ops.idct
linear_to_mel_weight_matrix = _mel_ops.linear_to_mel_weight_matrix
mfccs_from_log_mel_spectrograms = _mfcc_ops.mfccs_from_log_mel_spectrograms
overlap_and_add = _reconstruction_ops.overlap_and_add
frame = _shape_ops.frame
stft = _spectral_ops.stft
inverse_stft = _spectral_ops.inverse_stft
inverse_stft_window_fn = _spectral_ops.inverse_stft_window_fn
mdct = _spectral_ops.mdct
inverse_mdct = _spectral_ops.inverse_mdct
hann_window = _window_ops.hann_window
hamming_window = _window_ops.hamming_window
kaiser_window = _window_ops.kaiser_window
kaiser_bessel_derived_window = _window_ops.kaiser_bessel_derived_window
vorbis_window = _window_ops.vorbis_window

__all__ = [
    "dct",
    "fft",
    "fft2d",
    "fft3d",
    "fftnd",
    "fftshift",
    "frame",
    "hamming_window",
    "hann_window",
    "idct",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftnd",
    "ifftshift",
    "inverse_mdct",
    "inverse_stft",
    "inverse_stft_window_fn",
    "irfft",
    "irfft2d",
    "irfft3d",
    "irfftnd",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "linear_to_mel_weight_matrix",
    "mdct",
    "mfccs_from_log_mel_spectrograms",
    "overlap_and_add",
    "rfft",
    "rfft2d",
    "rfft3d",
    "rfftnd",
    "stft",
    "vorbis_window",
]

__getattr__ = missing_name_getattr("tf.signal", globals())
