"""``tf.io.serialize_tensor`` / ``tf.io.parse_tensor`` (``adapters/v1/ops/parsing_ops.py``).

Expected bytes: TF 2.21's ``serialize_tensor`` output for the same constants (printed by
TF, kept as literals); ``tests/interop/test_protos_io_interop.py`` checks more live.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

_GOLDEN = [
    ([1.5, 2.0], tf.float32, b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00\x00@'),
    (["a", "bc"], tf.string, b"\x08\x07\x12\x04\x12\x02\x08\x02B\x01aB\x02bc"),
    (3, tf.int32, b'\x08\x03\x12\x00"\x04\x03\x00\x00\x00'),
    ([True, False], tf.bool, b'\x08\n\x12\x04\x12\x02\x08\x02"\x02\x01\x00'),
    ([1.0], tf.float16, b'\x08\x13\x12\x04\x12\x02\x08\x01"\x02\x00<'),
    (2**40, tf.int64, b'\x08\t\x12\x00"\x08\x00\x00\x00\x00\x00\x01\x00\x00'),
]


@pytest.mark.parametrize("value, dtype, expected", _GOLDEN)
def test_serialize_tensor_bytes_are_tfs_and_parse_back(graph, value, dtype, expected):
    s = tf.io.serialize_tensor(tf.constant(value, dtype))
    back = tf.parse_tensor(s, dtype)
    assert s.shape.as_list() == [] and back.shape.dims is None
    with tf.Session() as sess:
        data, arr = sess.run([s, back])
    assert data == expected
    want = np.array(value, dtype=object if dtype == tf.string else dtype.as_numpy_dtype)
    if dtype == tf.string:
        want = np.array([v.encode() for v in value], dtype=object)
    assert arr.dtype == want.dtype and arr.tolist() == want.tolist()


def test_parse_tensor_type_mismatch_is_tfs_error(graph):
    p = tf.placeholder(tf.string, [])
    out = tf.parse_tensor(p, tf.int32)
    with (
        tf.Session() as sess,
        pytest.raises(
            tf.errors.InvalidArgumentError,
            match=r"Type mismatch between parsed tensor \(float\) and dtype \(int32\)",
        ),
    ):
        sess.run(out, {p: _GOLDEN[0][2]})


def test_parse_tensor_refuses_resource(graph):
    with pytest.raises(NotImplementedError, match="parse_tensor"):
        tf.parse_tensor(tf.constant(b""), tf.resource)
