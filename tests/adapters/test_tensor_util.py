"""``tf.make_tensor_proto`` / ``tf.make_ndarray`` (``adapters/v1/framework/tensor_util.py``).

The expected bytes are TF 2.21's ``tf.compat.v1.make_tensor_proto`` output for the same
call (printed by TF, kept here as literals); ``tests/interop/test_protos_io_interop.py``
checks many more cases live.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

# (values, kwargs, TF 2.21's SerializeToString())
_GOLDEN = [
    ([1, 2], {}, b'\x08\x03\x12\x04\x12\x02\x08\x02"\x08\x01\x00\x00\x00\x02\x00\x00\x00'),
    (np.float16([1, 2]), {}, b'\x08\x13\x12\x04\x12\x02\x08\x02"\x04\x00<\x00@'),
    (np.float16(1), {}, b"\x08\x13\x12\x00j\x02\x80x"),
    (True, {}, b"\x08\n\x12\x00Z\x01\x01"),
    ([True, False], {}, b"\x08\n\x12\x04\x12\x02\x08\x02Z\x02\x01\x00"),
    (np.uint16([1, 2]), {}, b"\x08\x11\x12\x04\x12\x02\x08\x02:\x02\x01\x02"),
    ("ab", {}, b"\x08\x07\x12\x00B\x02ab"),
    (["a", "b"], {}, b"\x08\x07\x12\x04\x12\x02\x08\x02B\x01aB\x01b"),
    (2**40, {}, b"\x08\t\x12\x00R\x06\x80\x80\x80\x80\x80 "),
    ([1.0], {"shape": [3]}, b"\x08\x01\x12\x04\x12\x02\x08\x03*\x04\x00\x00\x80?"),
    (1, {"shape": [2, 2]}, b"\x08\x03\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02:\x01\x01"),
    (np.zeros((2, 0)), {}, b"\x08\x02\x12\x06\x12\x02\x08\x02\x12\x00"),
]


@pytest.mark.parametrize("values, kw, expected", _GOLDEN)
def test_make_tensor_proto_bytes_are_tfs(values, kw, expected):
    assert tf.make_tensor_proto(values, **kw).SerializeToString() == expected


def test_make_ndarray_round_trips_dtype_and_bits():
    for arr in (
        np.array([[1.5, -2.0]], np.float32),
        np.array([2**62, -1], np.int64),
        np.array([0.1], np.float64),
        np.array([1 + 2j], np.complex64),
        np.array([b"a\x00", b""], object),
        np.array([1.0, 2.0], np.float16),
    ):
        back = tf.make_ndarray(tf.make_tensor_proto(arr))
        assert back.dtype == arr.dtype and back.shape == arr.shape
        assert back.tolist() == arr.tolist()


def test_make_tensor_proto_errors():
    with pytest.raises(ValueError, match="Too many elements provided. Takes at most 1, but got 2"):
        tf.make_tensor_proto([1, 2], shape=[1])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(3,\), but got \(2,\)"):
        tf.make_tensor_proto([1, 2], shape=[3], verify_shape=True)
    with pytest.raises(ValueError, match="None values not supported"):
        tf.make_tensor_proto(None)
    with pytest.raises(TypeError, match="Expected int32, but got 1.5 of type 'float'"):
        tf.make_tensor_proto([1.5], dtype=tf.int32)
    with pytest.raises(NotImplementedError, match="quantized"):
        tf.make_tensor_proto([1], dtype=tf.qint8)
