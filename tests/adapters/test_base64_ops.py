"""``tf.io.encode_base64``/``decode_base64`` (``adapters/v1/ops/base64_ops.py``) and
``tf.io.decode_compressed``; expected values are TF 2.21's for the same inputs
(``tests/interop/test_protos_io_interop.py`` checks them live)."""

from __future__ import annotations

import gzip
import zlib

import pytest

from adapters import v1 as tf


def test_encode_base64_web_safe_unpadded_by_default(graph):
    x = tf.constant(["hello?>", "", "ab"])
    with tf.Session() as sess:
        plain, padded = sess.run([tf.encode_base64(x), tf.io.encode_base64(x, pad=True)])
    assert plain.tolist() == [b"aGVsbG8_Pg", b"", b"YWI"]
    assert padded.tolist() == [b"aGVsbG8_Pg==", b"", b"YWI="]


@pytest.mark.parametrize(
    "data, expected",
    [(b"aGVsbG8_Pg", b"hello?>"), (b"aGVsbG8_Pg==", b"hello?>"), (b"YR", b"a"), (b"", b"")],
)
def test_decode_base64_as_tf(graph, data, expected):
    with tf.Session() as sess:
        assert sess.run(tf.io.decode_base64(tf.constant(data))) == expected


@pytest.mark.parametrize(
    "data, message",
    [
        (b"aGVsbG8/Pg", "Invalid character found in base64."),
        (b"a", "Base64 string length cannot be 1 modulo 4."),
    ],
)
def test_decode_base64_errors_as_tf(graph, data, message):
    p = tf.placeholder(tf.string, [])
    out = tf.decode_base64(p)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=message):
        sess.run(out, {p: data})


def test_decode_compressed(graph):
    raw = b"hello world" * 3
    p = tf.placeholder(tf.string, [2])
    z, g = tf.decode_compressed(p, "ZLIB"), tf.io.decode_compressed(p, "GZIP")
    assert z.shape.as_list() == [2]
    with tf.Session() as sess:
        assert sess.run(z, {p: [zlib.compress(raw), zlib.compress(b"")]}).tolist() == [raw, b""]
        assert sess.run(g, {p: [gzip.compress(raw)] * 2}).tolist() == [raw, raw]
        with pytest.raises(tf.errors.DataLossError, match="incorrect header check"):
            sess.run(z, {p: [b"junk", b"junk"]})


def test_decode_compressed_zstd_is_not_implemented(graph):
    with pytest.raises(NotImplementedError, match="ZSTD"):
        tf.io.decode_compressed(tf.constant(b""), "ZSTD")
