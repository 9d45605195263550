"""``tf.audio.decode_wav``/``encode_wav`` checked live against TF 2.21 (``twin.py``,
classic TF1): the encoded file's bytes, decoded values, dtypes, static shapes, and
TF's errors for malformed files and bad arguments. Before this change ``tf.audio``
raised ``AttributeError``."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1

pytestmark = pytest.mark.interop

RNG = np.random.RandomState(3)
STEREO = RNG.uniform(-1.2, 1.2, (40, 2)).astype(np.float32)
# Rounding ties (half away from zero), saturation at both ends, exact values.
STEREO[:6, 0] = np.array([0.5, -0.5, 1.5, -1.5, 32767.5, -32768.5], np.float32) / 32768
MONO = RNG.uniform(-1, 1, (17, 1)).astype(np.float32)


def _header(
    channels: int = 1,
    rate: int = 16000,
    bits: int = 16,
    fmt_size: int = 16,
    audio_format: int = 1,
    block: int | None = None,
    per_second: int | None = None,
) -> bytes:
    block = (bits * channels + 7) // 8 if block is None else block
    per_second = block * rate if per_second is None else per_second
    body = struct.pack("<HHIIHH", audio_format, channels, rate, per_second, block, bits)
    body += b"\0\0" if fmt_size == 18 else b""
    return b"RIFF\0\0\0\0WAVE" + b"fmt " + struct.pack("<I", fmt_size) + body


def _chunk(chunk_id: bytes, payload: bytes, size: int | None = None) -> bytes:
    return chunk_id + struct.pack("<I", len(payload) if size is None else size) + payload


PCM = struct.pack("<6h", 1, -1, 32767, -32768, 1000, -1000)
FILES = {
    "mono": _header() + _chunk(b"data", PCM),
    "stereo": _header(channels=2) + _chunk(b"data", PCM),
    "format chunk of 18": _header(fmt_size=18) + _chunk(b"data", PCM),
    "JUNK before fmt": b"RIFF\0\0\0\0WAVE"
    + _chunk(b"JUNK", b"ab")
    + _header()[12:]
    + _chunk(b"data", PCM),
    "LIST after fmt": _header() + _chunk(b"LIST", b"xyzw") + _chunk(b"data", PCM),
    "odd data size": _header(channels=2) + _chunk(b"data", PCM[:10]),
    "no data chunk": _header(),
    "two data chunks": _header() + _chunk(b"data", PCM) + _chunk(b"data", PCM),
    "truncated data": _header() + _chunk(b"data", PCM, size=40),
    "not RIFF": b"RIFX" + _header()[4:] + _chunk(b"data", PCM),
    "unexpected field": b"RIFF\0\0\0\0WAVE" + _chunk(b"abcd", b"") + _header()[12:],
    "8 bits": _header(bits=8) + _chunk(b"data", PCM),
    "not PCM": _header(audio_format=3) + _chunk(b"data", PCM),
    "format size 20": _header(fmt_size=20) + _chunk(b"data", PCM),
    "no channels": _header(channels=0, block=2) + _chunk(b"data", PCM),
    "bad block": _header(block=4) + _chunk(b"data", PCM),
    "bad bytes per second": _header(per_second=5) + _chunk(b"data", PCM),
    "empty": b"",
}


def _outcome(tf: Any, build) -> Any:
    """The value of ``build(tf)`` run, or ``(error class names, message)``."""
    graph = tf.Graph()
    try:
        with graph.as_default():
            out = build(tf)
            with tf.Session(graph=graph) as sess:
                return sess.run(out)
    except Exception as e:  # noqa: BLE001 - the error is the result compared
        return [c.__name__ for c in type(e).__mro__], str(e)


def _same(theirs: Any, ours: Any) -> None:
    """The same value (bits and dtype), or TF's error class with TF's message first."""
    if isinstance(theirs, tuple) and isinstance(theirs[0], list):
        assert isinstance(ours, tuple) and isinstance(ours[0], list), (theirs, ours)
        assert theirs[0][0] in ours[0], (theirs, ours)
        # TF adds the node and the graph's traceback after the kernel's message.
        message = ours[1].strip()[:60]
        assert len(message) > 10 and message in theirs[1], (theirs[1], ours[1])
    else:
        assert_twins(theirs, ours, rtol=0)


@pytest.mark.parametrize("case", sorted(FILES))
@pytest.mark.parametrize("channels,samples", [(-1, -1), (3, 2), (1, 9)])
def test_decode_wav_as_tf(case, channels, samples):
    """Decoded samples (float32 ``int16 / 32768``), the rate, and TF's errors."""
    data = FILES[case]

    def build(tf):
        contents = tf.placeholder(tf.string, [])
        audio, rate = tf.audio.decode_wav(
            contents, desired_channels=channels, desired_samples=samples
        )
        return _Fed(audio, rate, contents, data)

    with classic_tf1():
        theirs = _outcome_fed(tf1, build)
    ours = _outcome_fed(jtf, build)
    _same(theirs, ours)


class _Fed:
    def __init__(self, audio: Any, rate: Any, contents: Any, data: bytes):
        self.audio, self.rate, self.contents, self.data = audio, rate, contents, data


def _outcome_fed(tf: Any, build) -> Any:
    graph = tf.Graph()
    try:
        with graph.as_default():
            fed = build(tf)
            static = [fed.audio.shape.as_list(), fed.rate.shape.as_list()]
            with tf.Session(graph=graph) as sess:
                audio, rate = sess.run([fed.audio, fed.rate], {fed.contents: fed.data})
                return audio, rate, static, fed.audio.op.type
    except Exception as e:  # noqa: BLE001 - the error is the result compared
        return [c.__name__ for c in type(e).__mro__], str(e)


@pytest.mark.parametrize(
    "value", [STEREO, MONO, np.zeros((0, 3), np.float32)], ids=["stereo", "mono", "empty"]
)
@pytest.mark.parametrize("rate", [16000, 44100, 1])
def test_encode_wav_bytes_and_round_trip_as_tf(value, rate):
    """The file's bytes are TF's; decoding it gives TF's samples back."""

    def script(tf):
        encoded = tf.audio.encode_wav(value, rate)
        audio, sample_rate = tf.audio.decode_wav(encoded)
        static = [encoded.shape.as_list(), audio.shape.as_list(), sample_rate.shape.as_list()]
        return lambda sess: (*sess.run([encoded, audio, sample_rate]), static, encoded.op.type)

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]  # the same bytes
    assert_twins(theirs[1:], ours[1:], rtol=0)


ENCODE_ERRORS = {
    "rate 0": lambda tf: tf.audio.encode_wav(MONO, 0),
    "negative rate": lambda tf: tf.audio.encode_wav(MONO, -3),
    "audio rank 1": lambda tf: tf.audio.encode_wav(MONO[:, 0], 16000),
    "audio rank 3": lambda tf: tf.audio.encode_wav(MONO[None], 16000),
    "rate vector": lambda tf: tf.audio.encode_wav(MONO, [16000]),
    "float64 audio": lambda tf: tf.audio.encode_wav(tf.constant(MONO, tf.float64), 16000),
    "int64 rate": lambda tf: tf.audio.encode_wav(MONO, tf.constant(16000, tf.int64)),
    "no channels": lambda tf: tf.audio.encode_wav(np.zeros((3, 0), np.float32), 16000),
    "int contents": lambda tf: tf.audio.decode_wav(tf.constant(3)),
    "vector contents": lambda tf: tf.audio.decode_wav(tf.constant(["a", "b"])),
    "desired_channels -2": lambda tf: tf.audio.decode_wav(
        tf.audio.encode_wav(MONO, 8000), desired_channels=-2
    ),
    "desired_samples -2": lambda tf: tf.audio.decode_wav(
        tf.audio.encode_wav(MONO, 8000), desired_samples=-2
    ),
}


@pytest.mark.parametrize("case", sorted(ENCODE_ERRORS))
def test_wav_errors_as_tf(case):
    with classic_tf1():
        theirs = _outcome(tf1, ENCODE_ERRORS[case])
    ours = _outcome(jtf, ENCODE_ERRORS[case])
    assert isinstance(theirs, tuple), theirs
    assert isinstance(ours, tuple), ours
    assert theirs[0][0] in ours[0], (theirs, ours)
