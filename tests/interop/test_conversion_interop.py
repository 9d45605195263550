"""Python values given to ops convert as TF1's ``convert_to_tensor`` and
``op_def_library`` convert them, live against TF 2.21 (classic TF1 graphs,
``twin.classic_tf1``): the dtype inferred, the promotions TF allows (an int or float
to complex, a bool to a number, an empty list to the wanted dtype), and the error
class and message for what it refuses (``None``, a string for a number, a float for
an integer dtype), for operators on either side, the op table's functions,
``tf.concat``/``tf.stack`` lists, ``tf.constant`` and ``tf.convert_to_tensor``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf1

pytestmark = pytest.mark.interop

Build = Callable[[Any], Any]


def _f32(tf: Any) -> Any:
    return tf.constant([1.0, 2.0])


def _i32(tf: Any) -> Any:
    return tf.constant([1, 2])


def _c64(tf: Any) -> Any:
    return tf.constant([1 + 2j, 2], tf.complex64)


def _shape(tf: Any) -> Any:
    return tf.shape(tf.placeholder_with_default(np.zeros([2, 3], np.float32), [None, 3]))


CASES: dict[str, Build] = {
    # An empty list converts to the dtype the op wants.
    "concat_shape_empty_list": lambda tf: tf.concat([_shape(tf), []], 0),
    "concat_f32_int_list": lambda tf: tf.concat([_f32(tf), [1, 2]], 0),
    "concat_i32_float_list": lambda tf: tf.concat([_i32(tf), [1.5]], 0),
    "concat_int_list_f32": lambda tf: tf.concat([[1, 2], _f32(tf)], 0),
    "stack_f32_int_list": lambda tf: tf.stack([_f32(tf), [1, 2]]),
    "add_n_float_int": lambda tf: tf.add_n([1.0, 2]),
    # Python ints, floats and bools convert to complex and float dtypes.
    "float_times_complex": lambda tf: 2.0 * _c64(tf),
    "complex_times_int": lambda tf: _c64(tf) * 2,
    "int_minus_complex": lambda tf: 2 - _c64(tf),
    "add_complex_float": lambda tf: tf.add(_c64(tf), 1.5),
    "multiply_complex_int": lambda tf: tf.multiply(_c64(tf), 2),
    "maximum_f32_bool": lambda tf: tf.maximum(_f32(tf), True),
    "bool_plus_f32": lambda tf: True + _f32(tf),
    "f32_times_bool": lambda tf: _f32(tf) * True,
    "i32_minus_bool": lambda tf: _i32(tf) - True,
    # NumPy values cast to the op's dtype; out-of-range ints wrap as TF's do.
    "maximum_f32_np_f64_array": lambda tf: tf.maximum(_f32(tf), np.array([1.5, 2.5])),
    "multiply_i32_np_int64": lambda tf: tf.multiply(_i32(tf), np.int64(3)),
    "add_i32_2_pow_31": lambda tf: tf.add(_i32(tf), 2**31),
    # What TF refuses, with its error and message.
    "add_i32_float": lambda tf: tf.add(_i32(tf), 2.5),
    "multiply_i32_float": lambda tf: tf.multiply(_i32(tf), 2.5),
    "float_times_i32": lambda tf: 2.5 * _i32(tf),
    "multiply_f32_str": lambda tf: tf.multiply(_f32(tf), "a"),
    "str_times_f32": lambda tf: "a" * _f32(tf),
    "f32_times_complex": lambda tf: _f32(tf) * (1 + 2j),
    "add_f32_complex": lambda tf: tf.add(_f32(tf), 1 + 2j),
    "f32_plus_none": lambda tf: _f32(tf) + None,
    "none_times_f32": lambda tf: None * _f32(tf),
    "multiply_f32_none": lambda tf: tf.multiply(_f32(tf), None),
    "multiply_none_f32": lambda tf: tf.multiply(None, _f32(tf)),
    "maximum_none_none": lambda tf: tf.maximum(None, None),
    "cast_none": lambda tf: tf.cast(None, tf.float32),
    # tf.constant with a dtype.
    "constant_float_int32": lambda tf: tf.constant(1.5, tf.int32),
    "constant_mixed_list": lambda tf: tf.constant([1, 2.5]),
    "constant_str_float32": lambda tf: tf.constant("a", tf.float32),
    "constant_int_str_list_int32": lambda tf: tf.constant([1, "a"], tf.int32),
    "constant_float_str_list_int32": lambda tf: tf.constant([1.5, "a"], tf.int32),
    "constant_none_float32": lambda tf: tf.constant(None, tf.float32),
    "constant_complex_bfloat16": lambda tf: tf.constant(1 + 2j, tf.bfloat16),
    "constant_unicode_string": lambda tf: tf.constant("\u00e9t\u00e9", tf.string),
    # tf.convert_to_tensor's preferred_dtype / dtype_hint.
    "convert_int_preferred_float32": lambda tf: tf.convert_to_tensor(2, preferred_dtype=tf.float32),
    "convert_float_preferred_int32": lambda tf: tf.convert_to_tensor(2.5, preferred_dtype=tf.int32),
    "convert_empty_hint_int8": lambda tf: tf.convert_to_tensor([], dtype_hint=tf.int8),
    "convert_tensor_preferred_other": lambda tf: tf.convert_to_tensor(
        _i32(tf), preferred_dtype=tf.float32
    ),
    "convert_both_hints": lambda tf: tf.convert_to_tensor(
        1, preferred_dtype=tf.int8, dtype_hint=tf.int32
    ),
    "convert_str_float32": lambda tf: tf.convert_to_tensor(["a"], tf.float32),
    # A variable converts as its value, of its dtype.
    "multiply_f32_int_variable": lambda tf: tf.multiply(_f32(tf), tf.Variable([1, 2])),
    "convert_int_variable_float32": lambda tf: tf.convert_to_tensor(
        tf.Variable([1, 2]), tf.float32
    ),
    "concat_int_variable_float_list": lambda tf: tf.concat([tf.Variable([1, 2]), [1.5]], 0),
    # &, |, ^ and ~ are bitwise on integer tensors.
    "i32_and_int": lambda tf: _i32(tf) & 3,
    "int_or_i32": lambda tf: 4 | _i32(tf),
    "i32_xor_i32": lambda tf: _i32(tf) ^ _i32(tf),
    "invert_i32": lambda tf: ~_i32(tf),
    "bool_and_true": lambda tf: tf.constant([True, False]) & True,
}


def _outcome(tf: Any, build: Build) -> tuple[Any, ...]:
    """``("ok", dtype, static shape, fetched value)`` or ``("error", class, message)``."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            try:
                tensor = build(tf)
            except (TypeError, ValueError) as e:
                return ("error", type(e).__name__, str(e)[:90])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                value = np.asarray(sess.run(tensor))
            return ("ok", tensor.dtype.name, tensor.shape.as_list(), value.dtype, value.tolist())


@pytest.mark.parametrize("case", sorted(CASES))
def test_conversion_as_tf(case: str) -> None:
    theirs, ours = _outcome(tf1, CASES[case]), _outcome(jtf, CASES[case])
    assert ours == theirs


# A list holding tensors converted to a dtype: TF casts its tensors when the dtype is
# not the first tensor's (``_autopacking_conversion_function``), else refuses another
# dtype (jtrain refused every tensor of another dtype: ``tf.zeros([n])`` of an int64
# ``n`` in a ``Dataset.map``).
PACKED = {
    "[int64] to int32": (lambda tf: [tf.constant(3, tf.int64)], "int32"),
    "[int64, 2] to int32": (lambda tf: [tf.constant(3, tf.int64), 2], "int32"),
    "[int32, int64] to int32": (
        lambda tf: [tf.constant(2, tf.int32), tf.constant(3, tf.int64)],
        "int32",
    ),
    "[int64, int32] to int32": (
        lambda tf: [tf.constant(3, tf.int64), tf.constant(2, tf.int32)],
        "int32",
    ),
    "[float32] to int32": (lambda tf: [tf.constant(1.5)], "int32"),
    "[int32] to int64": (lambda tf: [tf.constant(2)], "int64"),
    "[[int64]] to int32": (lambda tf: [[tf.constant(3, tf.int64)]], "int32"),
}


def _packed(tf: Any, case: str) -> Any:
    make, dtype = PACKED[case]
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            try:
                t = tf.convert_to_tensor(make(tf), dtype=dtype)
            except TypeError as e:
                return ("TypeError", str(e).split(" (Tensor is")[0])
            with tf.Session() as sess:
                return (t.dtype.name, sess.run(t).tolist(), t.op.type)


@pytest.mark.parametrize("case", list(PACKED))
def test_lists_of_tensors_pack_to_a_dtype_as_tf(case: str) -> None:
    assert _packed(jtf, case) == _packed(tf1, case)
