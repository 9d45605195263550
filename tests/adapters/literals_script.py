"""TF1's conversion of Python and NumPy literals to tensors, run under a given ``tf``.

``results(tf)`` builds one graph of constants and operator operands from the literals
below (Python ints in and out of int32's range, NumPy scalars, lists of NumPy scalars,
Python floats, explicit dtypes that wrap or overflow) and returns, for each, the
tensor's dtype name and its fetched value as a string. ``goldens/gen_literals.py`` runs
it under TensorFlow; ``tests/adapters/test_literals.py`` under ``adapters.v1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# name -> (builder of the tensor from ``tf``, the int32 and float32 placeholders).
CASES: dict[str, Any] = {
    "py_int": lambda tf, x, f: tf.constant(3),
    "py_int_int32_max": lambda tf, x, f: tf.constant(2**31 - 1),
    "py_int_above_int32": lambda tf, x, f: tf.constant(2**31),
    "py_int_below_int32": lambda tf, x, f: tf.constant(-(2**31) - 1),
    "py_int_2_40": lambda tf, x, f: tf.constant(2**40),
    "py_int_above_int64": lambda tf, x, f: tf.constant(2**63),
    "py_list_mixed_big": lambda tf, x, f: tf.constant([1, 2**40]),
    "py_float": lambda tf, x, f: tf.constant(1.5),
    "py_float_huge": lambda tf, x, f: tf.constant(1e300),
    "py_tuple_int_float": lambda tf, x, f: tf.constant((1, 2.5)),
    "py_bool": lambda tf, x, f: tf.constant(True),
    "np_int64_scalar": lambda tf, x, f: tf.constant(np.int64(3)),
    "np_int64_scalar_big": lambda tf, x, f: tf.constant(np.int64(2**40)),
    "np_int32_scalar": lambda tf, x, f: tf.constant(np.int32(3)),
    "np_uint8_scalar": lambda tf, x, f: tf.constant(np.uint8(3)),
    "np_float64_scalar": lambda tf, x, f: tf.constant(np.float64(1.5)),
    "np_float16_scalar": lambda tf, x, f: tf.constant(np.float16(1.5)),
    "np_bool_scalar": lambda tf, x, f: tf.constant(np.bool_(True)),
    "np_int64_array": lambda tf, x, f: tf.constant(np.array([1, 2], np.int64)),
    "np_float64_array": lambda tf, x, f: tf.constant(np.array([1.5])),
    "list_of_np_int64": lambda tf, x, f: tf.constant([np.int64(1)]),
    "list_of_np_int64_big": lambda tf, x, f: tf.constant([np.int64(2**40)]),
    "list_of_np_float64": lambda tf, x, f: tf.constant([np.float64(1.5)]),
    "list_of_np_int32": lambda tf, x, f: tf.constant([np.int32(1)]),
    "empty_list": lambda tf, x, f: tf.constant([]),
    "empty_list_dtype_int32": lambda tf, x, f: tf.constant([], tf.int32),
    "empty_nested_dtype_int64": lambda tf, x, f: tf.constant([[], []], tf.int64),
    "empty_list_dtype_bool": lambda tf, x, f: tf.constant([], tf.bool),
    "empty_tuple_dtype_uint8": lambda tf, x, f: tf.constant((), tf.uint8),
    "dtype_int32_wraps": lambda tf, x, f: tf.constant(2**40, dtype=tf.int32),
    "dtype_uint8_wraps": lambda tf, x, f: tf.constant(300, dtype=tf.uint8),
    "dtype_uint8_negative": lambda tf, x, f: tf.constant(-1, dtype=tf.uint8),
    "dtype_int32_from_np_int64": lambda tf, x, f: tf.constant(np.int64(2**40), dtype=tf.int32),
    "dtype_float32_huge": lambda tf, x, f: tf.constant(1e300, dtype=tf.float32),
    "dtype_int32_from_py_float": lambda tf, x, f: tf.constant(1.5, dtype=tf.int32),
    "dtype_int32_from_np_float_array": lambda tf, x, f: tf.constant(
        np.array([1.5, -2.5]), dtype=tf.int32
    ),
    "dtype_int32_from_py_bool": lambda tf, x, f: tf.constant(True, dtype=tf.int32),
    "dtype_bool_from_py_int": lambda tf, x, f: tf.constant(1, dtype=tf.bool),
    "dtype_float32_from_py_int": lambda tf, x, f: tf.constant(3, dtype=tf.float32),
    "dtype_int64_from_py_list_big": lambda tf, x, f: tf.constant([1, 2**40], dtype=tf.int64),
    "operand_int32_plus_big": lambda tf, x, f: x + 2**40,
    "operand_int32_plus_np_int64": lambda tf, x, f: x + np.int64(3),
    "operand_float32_plus_np_float64": lambda tf, x, f: f + np.float64(1.5),
    "operand_float32_times_huge": lambda tf, x, f: f * 1e300,
    "add_int32_np_int64": lambda tf, x, f: tf.add(x, np.int64(3)),
    "add_int32_big": lambda tf, x, f: tf.add(x, 2**40),
    "fill_big": lambda tf, x, f: tf.fill([2], 2**40),
}


def results(tf: Any) -> dict[str, Any]:
    """``{case: {"dtype": name, "value": str(fetched)}}`` or ``{"error": class name}``."""
    out: dict[str, Any] = {}
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.int32, [], name="x")
        f = tf.placeholder(tf.float32, [], name="f")
        built = {}
        for name, build in CASES.items():
            try:
                built[name] = build(tf, x, f)
            except Exception as e:  # noqa: BLE001 - the error class is the result
                out[name] = {"error": type(e).__name__}
        with tf.Session(graph=graph) as sess:
            values = sess.run(built, {x: 1, f: 1.0})
    for name, tensor in built.items():
        value = np.asarray(values[name])
        out[name] = {"dtype": tensor.dtype.name, "value": repr(value.tolist())}
    return dict(sorted(out.items()))
