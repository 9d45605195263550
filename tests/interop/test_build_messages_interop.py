"""TF's graph-construction messages, live against TF 2.21 (classic TF1 graphs,
``twin.classic_tf1``): the error class and full message of an op given a dtype it
does not allow (``DataType string``, TF's dtype name), of ``tf.convert_to_tensor`` of
a tensor to another dtype (prefixed with the ``name`` given), and of a broadcasting
binary op whose static shapes do not broadcast (TF's shape function's ``Dimensions
must be equal`` naming the node, its attributes, inputs and input shapes); shapes
that do broadcast (1s, unknown dimensions, lower ranks) build as TF's.

Before these were matched, jtrain wrote ``DataType object`` for strings, left out the
``"y: "`` prefix, and worded the broadcasting error as JAX's.
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


def _pair(name: str, x: list[Any], y: list[Any], dtype: str = "float32") -> Build:
    """``tf.<name>(zeros(x), zeros(y))``; ``None`` dimensions are placeholders'."""

    def build(tf: Any) -> Any:
        def make(shape: list[Any]) -> Any:
            if None in shape:
                return tf.placeholder(dtype, shape)
            return tf.zeros(shape, dtype)

        namespace, _, short = name.rpartition(".")
        return getattr(getattr(tf, namespace) if namespace else tf, short)(make(x), make(y))

    return build


BINARY = [
    "add", "subtract", "multiply", "truediv", "divide", "realdiv", "floordiv", "floormod",
    "truncatediv", "truncatemod", "pow", "maximum", "minimum", "squared_difference",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
]  # fmt: skip

# TF's Python functions build these nodes inside a scope of their own name
# (``xdivy/Xdivy``), jtrain's as ``Xdivy``: the message matches but for the node's name.
NODE_NAMED_OTHERWISE = ["xdivy", "xlog1py"]

CASES: dict[str, Build] = {
    # 1. An op's dtype outside its allowed list: TF's name of the dtype.
    "negative of strings": lambda tf: tf.negative(tf.constant(["a"])),
    "sqrt of strings": lambda tf: tf.sqrt(tf.constant(["a", "b"])),
    "sqrt of bools": lambda tf: tf.sqrt(tf.constant([True])),
    # 2. convert_to_tensor of a tensor to another dtype: the name given prefixes it.
    "convert named": lambda tf: tf.convert_to_tensor(tf.constant([1]), tf.int64, name="y"),
    "convert unnamed": lambda tf: tf.convert_to_tensor(tf.constant([1]), tf.int64),
    "convert named empty": lambda tf: tf.convert_to_tensor(tf.constant([1.0]), tf.int32, name=""),
    "convert named float": lambda tf: tf.convert_to_tensor(
        tf.constant([1.0]), dtype=tf.float64, name="scope/x"
    ),
    "convert variable named": lambda tf: tf.convert_to_tensor(tf.Variable([1]), tf.int64, name="y"),
    "convert same dtype named": lambda tf: tf.convert_to_tensor(
        tf.constant([1]), tf.int32, name="y"
    ),
    # 3. Broadcasting binary ops of static shapes that do not broadcast.
    **{f"{n} [2,4] [3,4]": _pair(n, [2, 4], [3, 4]) for n in BINARY},
    **{
        f"math.{n} [2] [3]": _pair(f"math.{n}", [2], [3])
        for n in [
            "multiply_no_nan",
            "divide_no_nan",
            "xlogy",
            *NODE_NAMED_OTHERWISE,
            "atan2",
            "igamma",
            "igammac",
            "zeta",
            "polygamma",
        ]
    },  # fmt: skip
    **{
        f"bitwise.{n} [2,2] [2,3]": _pair(f"bitwise.{n}", [2, 2], [2, 3], "int32")
        for n in ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]
    },
    "logical_and [2] [3]": _pair("logical_and", [2], [3], "bool"),
    "logical_or [2,2] [3,1]": _pair("logical_or", [2, 2], [3, 1], "bool"),
    "add int64 [5,2] [3,1]": _pair("add", [5, 2], [3, 1], "int64"),
    "add float64 [2] [3]": _pair("add", [2], [3], "float64"),
    "add float16 [2] [3]": _pair("add", [2], [3], "float16"),
    "add int32 [2] [3]": _pair("add", [2], [3], "int32"),
    "add unknown [?,2] [3,3]": _pair("add", [None, 2], [3, 3]),
    "add ranks [4,2,1] [3,3]": _pair("add", [4, 2, 1], [3, 3]),
    "multiply named": lambda tf: tf.multiply(tf.zeros([2]), tf.zeros([3]), name="m"),
    "multiply in a scope": lambda tf: _scoped(tf, lambda: tf.zeros([2]) * tf.zeros([3])),
    "operator -": lambda tf: tf.zeros([2]) - tf.zeros([3]),
    "add of split outputs": lambda tf: tf.add(*tf.split(tf.zeros([5]), [2, 3])),
    # ... and shapes that do broadcast build as TF's.
    "add [2,1] [1,3]": _pair("add", [2, 1], [1, 3]),
    "add [4,2,3] [3]": _pair("add", [4, 2, 3], [3]),
    "add [?,3] [2,3]": _pair("add", [None, 3], [2, 3]),
    "add [?,3] [?,1]": _pair("add", [None, 3], [None, 1]),
    "equal [2,1] [3]": _pair("equal", [2, 1], [3]),
}


def _scoped(tf: Any, build: Callable[[], Any]) -> Any:
    with tf.name_scope("block"):
        return build()


def _outcome(tf: Any, build: Build) -> tuple[Any, ...]:
    """``("ok", dtype, static shape[, fetched value])`` or ``("error", class, message)``."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            try:
                tensor = build(tf)
            except (TypeError, ValueError) as e:
                return ("error", type(e).__name__, str(e))
            static = (tensor.dtype.name, tensor.shape.as_list())
            if tensor.op.type != "Placeholder" and any(
                op.type == "Placeholder" for op in tensor.graph.get_operations()
            ):
                return ("ok", *static)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                value = np.asarray(sess.run(tensor))
            return ("ok", *static, value.dtype, value.tolist())


@pytest.mark.parametrize("case", sorted(CASES))
def test_build_message_as_tf(case: str) -> None:
    theirs, ours = _outcome(tf1, CASES[case]), _outcome(jtf, CASES[case])
    short = case.split()[0].rpartition(".")[2]
    if short in NODE_NAMED_OTHERWISE:
        theirs = (*theirs[:2], theirs[2].replace(f"{{{{node {short}/", "{{node "))
    assert ours == theirs
