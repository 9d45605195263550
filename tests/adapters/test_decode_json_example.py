"""``tf.io.decode_json_example`` (``adapters/v1/ops/parsing_ops.py``): the expected
bytes are TF 2.21's for the same JSON (printed by TF; more cases live in
``tests/interop/test_protos_io_interop.py``)."""

from __future__ import annotations

import pytest

from adapters import v1 as tf
from jtrain.protos import example_pb2

_JSON = (
    '{"features": {"feature": {"b": {"int64List": {"value": ["1", 2]}}, '
    '"a": {"floatList": {"value": [1.5]}}, "c": {"bytesList": {"value": ["eHl6"]}}}}}'
)
_TF_BYTES = (
    b"\n)\n\x0b\n\x01b\x12\x06\x1a\x04\x08\x01\x08\x02\n\x0c\n\x01a\x12\x07\x12\x05\r\x00\x00"
    b"\xc0?\n\x0c\n\x01c\x12\x07\n\x05\n\x03xyz"
)


def test_bytes_are_tfs_and_parse(graph):
    with tf.Session() as sess:
        out = sess.run(tf.io.decode_json_example(tf.constant([_JSON, "{}"])))
    assert out.tolist() == [_TF_BYTES, b""]
    ex = example_pb2.Example.FromString(out[0])
    assert list(ex.features.feature["b"].int64_list.value) == [1, 2]
    assert list(ex.features.feature["c"].bytes_list.value) == [b"xyz"]


def test_bad_json_is_invalid_argument(graph):
    p = tf.placeholder(tf.string, [])
    out = tf.io.decode_json_example(p)
    with (
        tf.Session() as sess,
        pytest.raises(tf.errors.InvalidArgumentError, match="Error while parsing JSON"),
    ):
        sess.run(out, {p: '{"foo": 1}'})
