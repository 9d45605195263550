"""Math ops' dtype and conversion rules, checked live against TF 2.21 (``twin.py``):
what each snippet gives (dtype, static shape, value, gradient), or the error it raises
(class and message) when the graph is built or run.

Before these fixes jtrain raised where TF computes (``tf.scalar_mul(2.0, float64_x)``,
``tf.add`` of strings, ``tf.scalar_mul`` of ``IndexedSlices``), computed where TF
raises (``tf.cast`` of a string to a number parsed it; TF's ``Cast`` kernel refuses it
when run; ``tf.scalar_mul`` of a vector "scalar"), or raised TF's errors with other
classes or words (``tf.truediv`` of an int and a float: the ``RealDiv`` op's message,
where TF's Python function raises its own before any op).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import run_once, tf1

pytestmark = pytest.mark.interop


def _kernel_message(message: str) -> str:
    """A run-time error's own words: TF's ``message`` adds the node's Python traceback
    and ``[[{{node X}}]]``; its last other line is the kernel's message."""
    lines = [ln.strip() for ln in message.splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("[[")][-1]


def _outcome(tf: Any, build: Any) -> tuple:
    """``build(tf)``'s result in a session (``("ok", dtypes, static shapes, values)``),
    or its error (``("build"|"run", class name, message)``)."""

    def script(tf: Any) -> Any:
        try:
            out = build(tf)
        except (TypeError, ValueError) as e:
            error = ("build", type(e).__name__, str(e))
            return lambda sess: error
        outs = out if isinstance(out, (list, tuple)) else [out]

        def run(sess: Any) -> tuple:
            try:
                values = sess.run(list(outs))
            except tf.errors.OpError as e:
                return ("run", type(e).__name__, _kernel_message(e.message))
            return (
                "ok",
                [t.dtype.name for t in outs],
                [str(t.shape) for t in outs],
                [(np.asarray(v).dtype.str, np.asarray(v).tolist()) for v in values],
            )

        return run

    return run_once(tf, script)


def _slices(tf: Any) -> Any:
    return tf.IndexedSlices(
        tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([2, 0]), tf.constant([3, 2])
    )


def _scalar_mul_grad(tf: Any) -> Any:
    x = tf.constant([1.5, -2.0], tf.float64)
    y = tf.scalar_mul(2.0, x)
    return [y, tf.gradients(tf.reduce_sum(y * y), x)[0]]


def _scalar_mul_slices(tf: Any) -> Any:
    s = tf.scalar_mul(3.0, _slices(tf))
    assert isinstance(s, tf.IndexedSlices)
    return [s.values, s.indices, s.dense_shape]


def _scalar_mul_names(tf: Any) -> Any:
    x = tf.constant([1.0], tf.float64)
    y = tf.scalar_mul(2.0, x)
    z = tf.scalar_mul(3.0, x, name="foo")
    names = [y.name, z.name, y.op.inputs[0].name, y.op.type]
    return [y, z, tf.constant(names)]


def _string_add_names(tf: Any) -> Any:
    a, b = tf.constant(["a"]), tf.constant(["b"])
    c, d, e = tf.add(a, b), a + b, tf.add(a, "x", name="q")
    return [c, d, e, tf.constant([c.name, d.name, e.name, c.op.type])]


def _cast(dtype_from: str, dtype_to: str) -> Any:
    def build(tf: Any) -> Any:
        x = tf.constant(["1"]) if dtype_from == "string" else tf.zeros([2], dtype_from)
        return tf.cast(x, dtype_to)

    return build


def _div_no_nan_names(tf: Any) -> Any:
    a = tf.div_no_nan(tf.constant([1, 2]), tf.constant([0, 4]))
    b = tf.div_no_nan(tf.constant([1.0]), 2.0, name="q")
    c = tf.math.divide_no_nan(3.0, tf.constant([1.0]))
    ops = [o.name for o in tf.get_default_graph().get_operations()]
    return [a, b, c, tf.constant([a.name, b.name, c.name, a.op.type, *ops])]


def _div_no_nan_grads(tf: Any) -> Any:
    x, y = tf.constant([1.0, 2.0]), tf.constant([0.0, 4.0])
    xi, yi = tf.constant([1, 2]), tf.constant([0, 4])
    no_grads = tf.gradients(tf.div_no_nan(xi, yi), [xi, yi])
    return [*tf.gradients(tf.div_no_nan(x, y), [x, y]), tf.constant(str(no_grads))]


def _reciprocal_no_nan(tf: Any) -> Any:
    x = tf.constant([0.0, 4.0])
    y = tf.math.reciprocal_no_nan(x)
    z = tf.math.reciprocal_no_nan([2.0], name="r")
    ops = [o.name for o in tf.get_default_graph().get_operations()]
    return [y, z, tf.gradients(y, x)[0], tf.constant([y.name, z.name, *ops])]


def _round_integer(tf: Any) -> Any:
    x = tf.constant([3, -2], tf.int32)
    return [tf.round(tf.constant([3, 250], tf.uint8)), tf.constant(tf.round(x) is x)]


CASES = {
    # 1. tf.scalar_mul converts the scalar to x's dtype (a constant named "scalar")
    "scalar_mul py float, float64 x": lambda tf: tf.scalar_mul(
        2.0, tf.constant([1.0, 3.0], tf.float64)
    ),
    "scalar_mul py int, float32 x": lambda tf: tf.scalar_mul(2, tf.constant([1.5], tf.float32)),
    "scalar_mul np.float64, float32 x": lambda tf: tf.scalar_mul(
        np.float64(2.0), tf.constant([1.5])
    ),
    "scalar_mul py float, int32 x": lambda tf: tf.scalar_mul(2.5, tf.constant([1], tf.int32)),
    "scalar_mul float32 tensor, float64 x": lambda tf: tf.scalar_mul(
        tf.constant(2.0), tf.constant([1.0], tf.float64)
    ),
    "scalar_mul vector scalar": lambda tf: tf.scalar_mul(tf.constant([2.0]), tf.constant([1.0])),
    "scalar_mul list scalar": lambda tf: tf.scalar_mul([2.0], tf.constant([1.0])),
    "scalar_mul gradient": _scalar_mul_grad,
    "scalar_mul IndexedSlices": _scalar_mul_slices,
    "scalar_mul names": _scalar_mul_names,
    # 3. tf.truediv / tf.divide / `/`: TF's Python checks before the RealDiv op
    "truediv int32, float32": lambda tf: tf.truediv(tf.constant([1]), tf.constant([2.0])),
    "truediv float32, int32": lambda tf: tf.truediv(tf.constant([1.0]), tf.constant([2])),
    "truediv int32, int64": lambda tf: tf.truediv(tf.constant([1]), tf.constant([2], tf.int64)),
    "truediv bool": lambda tf: tf.truediv(tf.constant([True]), tf.constant([True])),
    "truediv string": lambda tf: tf.truediv(tf.constant(["a"]), tf.constant(["b"])),
    "divide int32, float32": lambda tf: tf.divide(tf.constant([1]), tf.constant([2.0])),
    "divide py float, int32": lambda tf: tf.divide(2.5, tf.constant([2])),
    "operator int32 / float32": lambda tf: tf.constant([1]) / tf.constant([2.0]),
    "operator int32 / py float": lambda tf: tf.constant([1]) / 2.5,
    # tf.math.divide_no_nan / tf.div_no_nan: TF's Python function (integers as truediv)
    "div_no_nan int32": lambda tf: tf.math.divide_no_nan(tf.constant([1, 2]), tf.constant([0, 4])),
    "div_no_nan int8": lambda tf: tf.div_no_nan(
        tf.constant([1, 2], tf.int8), tf.constant([0, 4], tf.int8)
    ),
    "div_no_nan py int, int32": lambda tf: tf.div_no_nan(3, tf.constant([0, 4])),
    "div_no_nan py float, int32": lambda tf: tf.div_no_nan(3.5, tf.constant([0, 4])),
    "div_no_nan int32, py float": lambda tf: tf.div_no_nan(tf.constant([0, 4]), 2.5),
    "div_no_nan py ints": lambda tf: tf.div_no_nan(1, 0),
    "div_no_nan bool": lambda tf: tf.div_no_nan(tf.constant([True]), tf.constant([True])),
    "div_no_nan float32, float64": lambda tf: tf.div_no_nan(
        tf.constant([1.0]), tf.constant([1.0], tf.float64)
    ),
    "div_no_nan names": _div_no_nan_names,
    "div_no_nan gradients": _div_no_nan_grads,
    "reciprocal_no_nan values, names": _reciprocal_no_nan,
    # tf.round of integers returns them (TF's Python function; uint8 too)
    "round integers": _round_integer,
    # 4. tf.add of strings concatenates (TF's Add op; AddV2 has no string kernel)
    "add strings": lambda tf: tf.add(tf.constant(["a", "b"]), tf.constant(["c", "d"])),
    "add string, py string": lambda tf: tf.add(tf.constant(["a", "b"]), "x"),
    "add py string, string": lambda tf: tf.add("x", tf.constant(["a", "b"])),
    "add string lists broadcast": lambda tf: tf.add(["x", "y"], [["a"], ["b"]]),
    "operator string + string": lambda tf: tf.constant(["a"]) + tf.constant(["b"]),
    "operator py string + string": lambda tf: "q" + tf.constant(["b"]),
    "add string, int": lambda tf: tf.add(tf.constant(["a"]), 1),
    "add string, int tensor": lambda tf: tf.add(tf.constant(["a"]), tf.constant([1])),
    "add string static shape": lambda tf: tf.constant(
        str(tf.add(tf.placeholder(tf.string, [None, 1]), tf.constant(["x", "y", "z"])).shape)
    ),
    "add string names": _string_add_names,
    # 6. tf.cast to or from strings: TF's Cast kernel refuses it when run
    "cast py string to float32": lambda tf: tf.cast("1.5", tf.float32),
    **{
        f"cast {a} to {b}": _cast(a, b)
        for a, b in [
            ("string", "float32"),
            ("string", "float16"),
            ("string", "float64"),
            ("string", "int64"),
            ("string", "bool"),
            ("string", "complex64"),
            ("float32", "string"),
            ("float64", "string"),
            ("int32", "string"),
            ("bool", "string"),
        ]
    },
}


def _on_bools(name: str) -> Any:
    def build(tf: Any) -> Any:
        function = tf
        for part in name.split("."):
            function = getattr(function, part)
        if name == "math.reciprocal_no_nan":
            return function(tf.constant([True]))
        if name == "scalar_mul":
            return function(True, tf.constant([False]))
        return function(tf.constant([True]), tf.constant([False]))

    return build


# 2. An op refusing a dtype lists its allowed dtypes in its OpDef's order (TF's message).
CASES.update(
    {
        f"{name} of bools": _on_bools(name)
        for name in [
            "add",
            "subtract",
            "multiply",
            "scalar_mul",
            "realdiv",
            "div",
            "floordiv",
            "floormod",
            "truncatediv",
            "pow",
            "maximum",
            "minimum",
            "squared_difference",
            "less",
            "less_equal",
            "greater",
            "greater_equal",
            "math.xlogy",
            "math.xlog1py",
            "math.xdivy",
            "math.reciprocal_no_nan",
        ]
    }
)


def _div_names(tf: Any) -> Any:
    a = tf.div(tf.constant([7, -7]), 2)
    b = tf.div(tf.constant([7.0, -7.0]), tf.constant([2.0, 4.0]), name="q")
    ops = [o.name for o in tf.get_default_graph().get_operations()]
    return [a, b, tf.constant([a.name, b.name, *ops])]


# tf.div (TF 1's): y converts to x's dtype, TF's conversion errors as they are
CASES.update(
    {
        "div int32, py float": lambda tf: tf.div(tf.constant([1]), 2.5),
        "div py int, float16": lambda tf: tf.div(2, tf.zeros([2], tf.float16)),
        "div float32, float64": lambda tf: tf.div(
            tf.constant([1.0]), tf.constant([2.0], tf.float64)
        ),
        "div names": _div_names,
    }
)


def _multiply_no_nan(tf: Any) -> Any:
    x, y = tf.constant([np.inf, 2.0, 3.0]), tf.constant([0.0, 4.0, -1.0])
    z = tf.math.multiply_no_nan(x, y)
    w = tf.math.multiply_no_nan(tf.constant([1.5]), 2.0, name="m")
    ops = [o.name for o in tf.get_default_graph().get_operations()]
    return [z, w, *tf.gradients(z, [x, y]), tf.constant([z.name, w.name, *ops])]


# tf.math.multiply_no_nan: y converts to x's dtype, TF's conversion errors as they are
CASES.update(
    {
        "multiply_no_nan values, gradients, names": _multiply_no_nan,
        "multiply_no_nan py int, float16": lambda tf: tf.math.multiply_no_nan(
            2, tf.zeros([2], tf.float16)
        ),
        "multiply_no_nan float16, py string": lambda tf: tf.math.multiply_no_nan(
            tf.zeros([2], tf.float16), "s"
        ),
        "multiply_no_nan float32, float64": lambda tf: tf.math.multiply_no_nan(
            tf.constant([1.0]), tf.constant([2.0], tf.float64)
        ),
    }
)


# TF's logical ops take fixed bool inputs (no type attribute): each converts on its own.
CASES.update(
    {
        "logical_and float16": lambda tf: tf.logical_and(tf.zeros([2], tf.float16), True),
        "logical_or py int": lambda tf: tf.logical_or(2, tf.constant([True])),
        "logical_and bool, int tensor": lambda tf: tf.logical_and(
            tf.constant([True]), tf.constant([1])
        ),
        "logical_not int": lambda tf: tf.logical_not(tf.constant([1])),
    }
)
GUARDS_LOGICAL = {
    "logical_and bool, py bool": lambda tf: tf.logical_and(tf.constant([True, False]), True),
    "operator & | ~ of bools": lambda tf: [
        tf.constant([True, False]) & tf.constant([True, True]),
        tf.constant([True, False]) | False,
        ~tf.constant([True, False]),
        tf.logical_xor(tf.constant([True, False]), tf.constant([True, True])),
    ],
}


@pytest.mark.parametrize("name", list(CASES))
def test_math_gap_as_tf(name: str) -> None:
    theirs = _outcome(tf1, CASES[name])
    ours = _outcome(jtf, CASES[name])
    assert ours == theirs


# Guards (TF's already before these fixes): integer powers wrap in their dtype, exactly in
# int64 whatever JAX's x64 setting, and a negative integer exponent fails when run; a
# string cast's static shape; a cast to the tensor's own dtype (no node).
GUARDS = {
    "pow int64 wraps": lambda tf: tf.pow(
        tf.constant([3, 2**20], tf.int64), tf.constant([40, 3], tf.int64)
    ),
    "pow int32 wraps": lambda tf: tf.pow(tf.constant([3], tf.int32), tf.constant([40], tf.int32)),
    # (exponents not all one constant: TF's grappler rewrites ``pow(x, -1)`` of a constant
    # -1 as ``Reciprocal``, with no integer kernel: NotFoundError, in graphs of 4+ nodes)
    "pow int32 negative exponent": lambda tf: tf.pow(tf.constant([2, 3]), tf.constant([-2, 1])),
    "pow int64 negative exponent of 1": lambda tf: tf.pow(
        tf.constant([1, 1], tf.int64), tf.constant([-1, 2], tf.int64)
    ),
    "pow uint8": lambda tf: tf.pow(tf.constant([3], tf.uint8), tf.constant([6], tf.uint8)),
    "cast string static shape": lambda tf: tf.constant(
        str(tf.cast(tf.placeholder(tf.string, [None, 2]), tf.float32).shape)
    ),
    "cast string to string": _cast("string", "string"),
    **GUARDS_LOGICAL,
    "truediv uint8": lambda tf: tf.truediv(tf.constant([1], tf.uint8), tf.constant([2], tf.uint8)),
}


@pytest.mark.parametrize("name", list(GUARDS))
def test_math_guard_as_tf(name: str) -> None:
    theirs = _outcome(tf1, GUARDS[name])
    ours = _outcome(jtf, GUARDS[name])
    assert ours == theirs
