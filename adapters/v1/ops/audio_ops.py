"""TF's WAV codec (``tf.audio.decode_wav``, ``tf.audio.encode_wav``) as host ops.

A string tensor is a host value (``string_ops.py``): like the image codecs
(``image_codecs.py``) these ops run in Python, where TF runs them, in the input
pipeline or in ``Session.run`` on fed or read strings. Only 16-bit PCM WAV is read and
written, as TF's ``wav_io.cc``: samples are ``int16 / 32768`` as float32 on reading;
on writing ``round(x * 32768)`` (half away from zero) clamped to int16.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.data_flow_ops import placement
from jtrain import errors
from jtrain.records import summary as summary_lib

__all__ = ["decode_wav", "encode_wav"]

_STRING = np.dtype(object)
_FLOAT32, _INT32 = np.dtype(np.float32), np.dtype(np.int32)

# The chunks TF skips between "WAVE" and "fmt " (padding and broadcast-WAV tags).
_SKIPPED_BEFORE_FORMAT = frozenset(
    {b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link", b"axml"}
)
_INT32_MAX = 2**31 - 1


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


class _Reader:
    """Reads a WAV file's fields in order, with TF's bounds checks and messages."""

    def __init__(self, data: bytes):
        self.data = data
        self.offset = 0

    def advance(self, count: int) -> int:
        """The offset after ``count`` more bytes (TF's ``IncrementOffset``)."""
        if self.offset < 0:
            raise _invalid(f"Negative offsets are not allowed: {self.offset}")
        if self.offset > len(self.data):
            raise _invalid(f"Initial offset is outside data range: {self.offset}")
        end = self.offset + count
        if end > len(self.data):
            raise _invalid("Data too short when trying to read string")
        if end > _INT32_MAX:
            raise _invalid(f"Offset too large, overflowed: {end - 2**32}")
        return end

    def text(self, size: int = 4) -> bytes:
        end = self.advance(size)
        found = self.data[self.offset : end]
        self.offset = end
        return found

    def expect(self, expected: bytes) -> None:
        found = self.text(len(expected))
        if found != expected:
            raise _invalid(
                f"Header mismatch: Expected {expected.decode('latin-1')} but found "
                f"{found.decode('latin-1')}"
            )

    def value(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        return int(struct.unpack(fmt, self.text(size))[0])


def _decode(data: bytes) -> tuple[np.ndarray, int, int, int]:
    """``(samples, sample_count, channel_count, sample_rate)`` of a 16-bit PCM WAV
    file, ``samples`` interleaved float32 (TF's ``DecodeLin16WaveAsFloatVector``)."""
    r = _Reader(data)
    r.expect(b"RIFF")
    r.value("<I")  # the file's size, unchecked as in TF
    r.expect(b"WAVE")
    found = r.text()
    while found != b"fmt ":
        if found not in _SKIPPED_BEFORE_FORMAT:
            raise _invalid(f"Unexpected field {found.decode('latin-1')}")
        size = r.value("<I")
        r.offset = r.advance(size)
        found = r.text()
    format_size = r.value("<I")
    if format_size not in (16, 18):
        raise _invalid(f"Bad format chunk size for WAV: Expected 16 or 18, but got{format_size}")
    audio_format = r.value("<H")
    if audio_format != 1:
        raise _invalid(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = r.value("<H")
    if channels < 1:
        raise _invalid(f"Bad number of channels for WAV: Expected at least 1, but got {channels}")
    sample_rate = r.value("<I")
    bytes_per_second = r.value("<I")
    bytes_per_sample = r.value("<H")
    bits_per_sample = r.value("<H")
    if bits_per_sample != 16:
        raise _invalid(f"Can only read 16-bit WAV files, but received {bits_per_sample}")
    expected = (bits_per_sample * channels + 7) // 8
    if bytes_per_sample != expected:
        raise _invalid(
            f"Bad bytes per sample in WAV header: Expected {expected} but got {bytes_per_sample}"
        )
    expected = (bytes_per_sample * sample_rate) % 2**32
    if bytes_per_second != expected:
        raise _invalid(
            f"Bad bytes per second in WAV header: Expected {expected} but got "
            f"{bytes_per_second} (sample_rate={sample_rate}, bytes_per_sample={bytes_per_sample})"
        )
    if format_size == 18:
        r.offset += 2  # an unused extension, skipped
    samples: np.ndarray | None = None
    sample_count = 0
    while r.offset < len(data):
        chunk_id = r.text()
        chunk_size = r.value("<I")
        if chunk_size > _INT32_MAX:
            raise _invalid(
                f"WAV data chunk '{chunk_id.decode('latin-1')}' is too large: {chunk_size} "
                f"bytes, but the limit is {_INT32_MAX}"
            )
        if chunk_id != b"data":
            r.offset += chunk_size
            continue
        if samples is not None:
            raise _invalid("More than one data chunk found in WAV")
        sample_count = chunk_size // bytes_per_sample
        count = sample_count * channels
        end = r.advance(2 * count)  # the data is there before anything is allocated
        pcm = np.frombuffer(data, dtype="<i2", count=count, offset=r.offset)
        samples = pcm.astype(np.float32) * np.float32(1.0 / 32768)
        r.offset = end
    if samples is None:
        raise _invalid("No data chunk found in WAV")
    return samples, sample_count, channels, sample_rate


def _scalar_bytes(value: Any) -> bytes:
    arr = np.asarray(value, dtype=object)
    if arr.ndim != 0:
        raise _invalid(f"contents must be scalar, got shape {list(arr.shape)}")
    item = arr.item()
    return item.encode() if isinstance(item, str) else bytes(item)


def _attr(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"Expected int for argument '{name}' not {value!r}.")
    return int(value)


def decode_wav(
    contents: Any, desired_channels: int = -1, desired_samples: int = -1, name: str | None = None
) -> tuple[ops.Tensor, ops.Tensor]:
    """Decodes a 16-bit PCM WAV file (``tf.audio.decode_wav``).

    Each sample is ``int16 / 32768`` as float32, in [-1.0, 1.0). Chunks TF skips
    (``JUNK``, ``bext``... before the format, any but ``data`` after it) are skipped.

    Args:
      contents: a scalar string tensor, the file's bytes.
      desired_channels: the output's channels (default -1: the file's). With more than
        the file has, the last channel is repeated; with fewer, the first ones are kept.
      desired_samples: the output's samples (default -1: the file's). Missing samples
        are zeros; extra ones are dropped.
      name: the op's name.

    Returns:
      ``(audio, sample_rate)``: float32 ``[samples, channels]`` and an int32 scalar.

    Raises:
      TypeError: a non-string ``contents``, a non-int argument.
      ValueError: ``contents`` not a scalar (statically known).
      InvalidArgumentError (at run time): not a 16-bit PCM WAV file, a truncated one,
        ``desired_channels`` or ``desired_samples`` below -1.
    """
    channels = _attr(desired_channels, "desired_channels")
    samples = _attr(desired_samples, "desired_samples")
    tensor = _string_input(contents, "DecodeWav")

    def compute(session: Any, value: Any) -> tuple[np.ndarray, np.ndarray]:
        decoded, count, file_channels, rate = _decode(_scalar_bytes(value))
        if channels < -1:
            raise _invalid(f"desired_channels must be >= -1, got {channels}")
        if samples < -1:
            raise _invalid(f"desired_samples must be >= -1, got {samples}")
        out_samples = count if samples == -1 else samples
        out_channels = file_channels if channels == -1 else channels
        # Each output channel reads the file's channel of its index, or its last one.
        source = np.minimum(np.arange(out_channels), file_channels - 1)
        kept = min(out_samples, count)
        out = np.zeros((out_samples, out_channels), np.float32)
        out[:kept] = decoded.reshape(count, file_channels)[:kept][:, source]
        return out, np.array(rate, dtype=np.uint32).astype(np.int32)

    op = ops.get_default_graph().create_op(
        "DecodeWav",
        name or "DecodeWav",
        inputs=[tensor],
        compute=compute,
        output_specs=[
            ((None if samples == -1 else samples, None if channels == -1 else channels), _FLOAT32),
            ((), _INT32),
        ],
        host=placement([tensor]),
    )
    return op.outputs[0], op.outputs[1]


def encode_wav(audio: Any, sample_rate: Any, name: str | None = None) -> ops.Tensor:
    """Encodes float32 ``[samples, channels]`` audio as a 16-bit PCM WAV file
    (``tf.audio.encode_wav``).

    Each sample is ``round(x * 32768)`` (half away from zero) clamped to
    [-32768, 32767]: values outside [-1.0, 1.0) saturate.

    Args:
      audio: a 2-D float32 tensor ``[samples, channels]``.
      sample_rate: a scalar int32 tensor, the samples per second.
      name: the op's name.

    Returns:
      A scalar string tensor, the file's bytes.

    Raises:
      TypeError: ``audio`` not float32, ``sample_rate`` not int32.
      ValueError: ``audio`` not rank 2 or ``sample_rate`` not a scalar (statically known).
      InvalidArgumentError (at run time): ``sample_rate`` not in (0, 2^32), no channels.
    """
    audio_t = _typed_input(audio, "audio", _FLOAT32)
    rate_t = _typed_input(sample_rate, "sample_rate", _INT32)
    for t, rank, arg in ((audio_t, 2, "audio"), (rate_t, 0, "sample_rate")):
        if t._shape is not None and len(t._shape) != rank:
            raise ValueError(
                f"Shape must be rank {rank} but is rank {len(t._shape)} for "
                f"'{{{{node EncodeWav}}}} = EncodeWav[]' with input shapes: "
                f"{_shape_text(audio_t)}, {_shape_text(rate_t)}. ({arg})"
            )

    def compute(session: Any, value: Any, rate: Any) -> tuple[np.ndarray]:
        value = np.asarray(value, np.float32)
        rate_value = int(np.asarray(rate).reshape(()))
        if value.ndim != 2:
            raise _invalid(f"audio must be 2-dimensional{list(value.shape)}")
        if np.asarray(rate).ndim != 0:
            raise _invalid(f"Input sample_rate should be a scalar tensor, got {list(rate.shape)}")
        if rate_value <= 0:
            raise _invalid(f"sample_rate must be in (0, 2^32), got: {rate_value % 2**64}")
        if value.shape[1] == 0 or value.shape[1] > 0xFFFF:
            raise _invalid(f"num_channels must be in (0, 2^16), got: {value.shape[1]}")
        return (np.array(summary_lib.encode_wav(value, rate_value), dtype=object),)

    op = ops.get_default_graph().create_op(
        "EncodeWav",
        name or "EncodeWav",
        inputs=[audio_t, rate_t],
        compute=compute,
        output_specs=[((), _STRING)],
        host=placement([audio_t, rate_t]),
    )
    return op.outputs[0]


def _typed_input(value: Any, arg: str, dtype: np.dtype, op_type: str = "EncodeWav") -> ops.Tensor:
    """``value`` as a tensor of ``dtype``; a tensor of another dtype is TF's TypeError."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        tensor = ops.convert_to_tensor(value)
        if np.dtype(tensor.dtype.dtype) != dtype:
            expected = "string" if dtype == _STRING else np.dtype(dtype).name
            raise TypeError(
                f"Input '{arg}' of '{op_type}' Op has type {tensor.dtype.name} that does not "
                f"match expected type of {expected}."
            )
        return tensor
    return ops.convert_to_tensor(value, dtype=dtype)


def _string_input(value: Any, op_type: str) -> ops.Tensor:
    tensor = _typed_input(value, "contents", _STRING, op_type)
    if tensor._shape is not None and len(tensor._shape) != 0:
        raise ValueError(
            f"Shape must be rank 0 but is rank {len(tensor._shape)} for "
            f"'{{{{node {op_type}}}}} = {op_type}[]' with input shapes: {_shape_text(tensor)}."
        )
    return tensor


def _shape_text(t: ops.Tensor) -> str:
    if t._shape is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in t._shape) + "]"
