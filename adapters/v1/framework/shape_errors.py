"""TF's ``InvalidArgumentError`` for an operation whose run-time shapes disagree.

A graph built from partly known shapes (a ``[None, 32]`` placeholder) is checked
when it is built only as far as its static shapes go; TF's kernels check the rest
when they run and raise ``InvalidArgumentError`` naming the node:
``Incompatible shapes: [3,2] vs. [4,2]\\n\\t [[{{node add}}]]``. jtrain meets the
fed shapes when it traces the step, where JAX raises its own ``TypeError`` or
``ValueError`` (``add got incompatible shapes for broadcasting``).
:func:`kernel_error` turns such an error into TF's: the message of TF's kernel for
the op types whose message is known here (broadcasting elementwise ops, ``MatMul``,
``ConcatV2``), JAX's own message for the others, each naming the node.

An error JAX raises for an operation whose inputs' shapes were all known when the
graph was built is not a shape the user fed: it stays as raised (a jtrain defect
to report, not the user's input).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

import numpy as np

from adapters.v1.framework import tensor_shape
from jtrain import errors

__all__ = ["kernel_error"]


def kernel_error(op: Any, values: Sequence[Any], error: BaseException) -> errors.OpError | None:
    """TF's ``InvalidArgumentError`` for ``error``, raised by JAX while ``op`` computed
    on ``values`` (its inputs' run-time values), or None when ``error`` is not a
    run-time shape disagreement (raised by jtrain's code, not JAX's, or ``op``'s input
    shapes were all known when the graph was built)."""
    if not isinstance(error, (TypeError, ValueError)) or not _raised_by_jax(error.__traceback__):
        return None
    if all(t._shape is not None and None not in t._shape for t in op.inputs):
        return None
    try:
        shapes = [tuple(int(d) for d in np.shape(v)) for v in values]
    except Exception:  # symbolic dimensions (a meta graph's export): JAX's error stands
        return None
    describe = _MESSAGES.get(op.type)
    message = describe(op, shapes) if describe is not None else None
    if message is None:
        message = f"{op.type} cannot compute on inputs of shapes {_list(shapes)}: {error}"
    return errors.InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


def _raised_by_jax(tb: TracebackType | None) -> bool:
    """Whether the innermost frame of ``tb`` is JAX's (or NumPy's) code."""
    last = None
    while tb is not None:
        last, tb = tb.tb_frame, tb.tb_next
    if last is None:
        return False
    name = last.f_globals.get("__name__", "")
    return name.startswith(("jax.", "jaxlib.", "numpy."))


_dims = tensor_shape.dims_text


def _list(shapes: list[tuple[int, ...]]) -> str:
    return ", ".join(_dims(s) for s in shapes)


def _broadcast(op: Any, shapes: list[tuple[int, ...]]) -> str | None:
    """TF's ``BCast`` message of a binary elementwise kernel."""
    if len(shapes) != 2:
        return None
    return f"Incompatible shapes: {_dims(shapes[0])} vs. {_dims(shapes[1])}"


def _matmul(op: Any, shapes: list[tuple[int, ...]]) -> str | None:
    """``MatMulOp``'s message (its inputs as fed, before any transpose)."""
    return f"Matrix size-incompatible: In[0]: {_dims(shapes[0])}, In[1]: {_dims(shapes[1])}"


def _concat(op: Any, shapes: list[tuple[int, ...]]) -> str | None:
    """``ConcatOp``'s messages: each input against the first, rank then dimensions."""
    axis = getattr(op, "_static_attrs", {}).get("axis")  # the op table's Python arguments
    pieces = shapes
    if not isinstance(axis, int) or not pieces:
        return None
    first = pieces[0]
    axis = int(axis) + (len(first) if int(axis) < 0 else 0)
    for i, shape in enumerate(pieces[1:], start=1):
        if len(shape) != len(first):
            return (
                "ConcatOp : Ranks of all input tensors should match: "
                f"shape[0] = {_dims(first)} vs. shape[{i}] = {_dims(shape)}"
            )
        for j, (a, b) in enumerate(zip(first, shape, strict=True)):
            if j != axis and a != b:
                return (
                    f"ConcatOp : Dimension {j} in both shapes must be equal: "
                    f"shape[0] = {_dims(first)} vs. shape[{i}] = {_dims(shape)}"
                )
    return None


_BINARY = (
    "Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "FloorDiv", "FloorMod",
    "TruncateDiv", "TruncateMod", "Maximum", "Minimum", "Pow", "SquaredDifference", "Atan2",
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
    "LogicalOr", "MulNoNan", "Xdivy", "Xlogy", "Xlog1py", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor", "LeftShift", "RightShift", "Igamma", "Igammac", "Zeta", "Polygamma",
    "Complex",
)  # fmt: skip

# op type -> the message of TF's kernel for its inputs' shapes (None: not known here)
_MESSAGES: dict[str, Callable[[Any, list[tuple[int, ...]]], str | None]] = {
    **dict.fromkeys(_BINARY, _broadcast),
    "MatMul": _matmul,
    "ConcatV2": _concat,
}
