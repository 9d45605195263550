"""TF's ``tf.signal`` beyond the FFTs (``ops/fft_ops.py``), one module per TF module
(``tensorflow/python/ops/signal``): ``shape_ops`` (``frame``), ``reconstruction_ops``
(``overlap_and_add``), ``window_ops``, ``spectral_ops`` (STFT, MDCT), ``mel_ops``,
``mfcc_ops``, ``dct_ops``."""
