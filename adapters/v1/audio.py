"""``tf.audio``: TF's WAV codec (``ops/audio_ops.py``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.audio_ops import decode_wav, encode_wav

__all__ = ["decode_wav", "encode_wav"]

__getattr__ = missing_name_getattr("tf.audio", globals())
