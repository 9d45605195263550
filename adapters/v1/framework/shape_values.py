"""Values that shapes determine: ``tf.shape(x)[0]``, ``tf.rank(x) - 1``, ``[n, -1]``.

jtrain compiles static shapes and axes, yet TF1 code computes them in the graph
(``tf.reshape(x, [tf.shape(x)[0], -1])``, ``tf.zeros(tf.shape(x))``,
``tf.range(tf.shape(x)[0])``). Such a value is known once the step is traced (the
shapes of the run's tensors are concrete then), and partly known when the graph
is built (the static shapes of its tensors):

- :func:`trace_time_value`: the value while the step is traced, one compiled
  program per fed shape (as random ops' ``shape`` and imported graphs' shape
  inputs use it).
- :func:`build_time_value`: the value when the graph is built, with the unknown
  dimensions of the tensors whose shapes it reads taken as one given size; two
  sizes tell which parts of a value (and of an op's output shape) are known.

Both re-evaluate the ops producing the value, down to constants and
``tf.shape``/``tf.size``/``tf.rank`` of other tensors, with JAX's compile-time
evaluation; a value computed from the step's data (a placeholder's value, a
variable) is not known in either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from adapters.v1.framework import _x64, ops
from jtrain import errors

__all__ = [
    "trace_time_value",
    "build_time_value",
    "partial_value",
    "static_value",
    "is_static",
    "depends_on_data",
    "known_when_traced",
    "from_shapes_only",
    "FILLS",
    "FEED_FILLS",
    "SHAPE_OPS",
]

# Ops whose output depends only on the static shape of their input.
SHAPE_OPS = ("Shape", "Size", "Rank")

# Ops whose value a run may feed, though they compute one when not fed
# (``tf.placeholder_with_default``): a fed one is never re-evaluated.
_FEEDABLE = ("PlaceholderWithDefault",)


# Sizes given to unknown dimensions when the graph is built: a part of an op's output
# shape that is the same for all of them is taken as known. Five sizes, small and
# large, so that ``d % 2``, ``tf.minimum(d, 5)`` or ``d // 2000`` are not taken as known.
# A static shape inferred so is only the graph's claim: values are always computed
# from the run's shapes (``static_value`` decides what is a constant).
FILLS = (6, 7, 1009, 2, 1048583)
# The values given to fed integers (a placeholder read as a size or an index) in the
# same trials: small ones, as sizes and indices are, so that a slice clamped at an
# input's end does not give one size for every trial, and a large one.
FEED_FILLS = (1, 2, 3, 1009, 4)
# The most elements a value computed in a trial may have (see ``build_time_value``).
_MAX_TRIAL_SIZE = 1 << 22


def trace_time_value(ctx: Any, tensor: ops.Tensor) -> np.ndarray:
    """The value of ``tensor`` while the step is traced, when shapes determine it.

    Re-evaluates the ops producing ``tensor`` with JAX's compile-time evaluation,
    down to constants and ``tf.shape``/``tf.size``/``tf.rank`` of tensors of the
    run (whose traced shapes are concrete): ``tf.shape(x)``, ``tf.shape(x)[0]``,
    ``tf.stack([tf.shape(x)[0], 10])`` all work, with one program per fed shape.

    Raises:
      InvalidArgumentError: the value depends on values computed in the step.
    """
    symbolic = _symbolic_shape(ctx, tensor)
    if symbolic is not None:
        return symbolic

    def is_leaf(op: ops.Operation) -> bool:  # a placeholder, or a fed default
        fed = ctx.fed is None or op.outputs[0] in ctx.fed
        return op._compute is None or (op.type in _FEEDABLE and fed)

    memo = ctx.memo.__getitem__
    value = _evaluate(tensor, memo, memo, is_leaf, ctx.variables, ctx.initialized, ctx.fed)
    if isinstance(value, jax.core.Tracer):
        raise errors.InvalidArgumentError(
            None,
            tensor.op,
            f"{tensor.name} must be known when the step is compiled (a constant, or "
            "computed from tf.shape of tensors): it depends on values computed in the step",
        )
    return np.asarray(value)


def _trial_shape(tensor: ops.Tensor, fill: int) -> tuple[int, ...]:
    """``tensor``'s static shape (known rank) with its unknown dimensions ``fill``."""
    return tuple(fill if d is None else d for d in tensor._shape)


def _trial_size(tensor: ops.Tensor, fill: int) -> float:
    """The number of elements of ``tensor`` (known rank) with unknown dimensions ``fill``."""
    return float(np.prod(_trial_shape(tensor, fill), dtype=np.float64))


def build_time_value(tensor: ops.Tensor, fill: int, feed_fill: int) -> np.ndarray | None:
    """The value of ``tensor`` from the graph's static shapes, unknown dimensions ``fill``.

    Every unknown dimension of a tensor whose shape the value reads is taken as
    ``fill``, every element of a fed integer placeholder it reads as ``feed_fill``:
    over the trials of ``FILLS``/``FEED_FILLS``, the parts of the value that agree
    are known when the graph is built, the others depend on the run.

    Returns:
      The value as NumPy, or ``None`` when it depends on more than static shapes
      (a placeholder's value, a variable, a tensor of unknown rank).
    """

    def shape_input(t: ops.Tensor) -> Any:
        if t._shape is None:
            raise LookupError(t.name)
        return jax.ShapeDtypeStruct(_trial_shape(t, fill), t._np_dtype)

    def leaf_value(t: ops.Tensor) -> Any:
        # A placeholder's integers (a shape feed): their value is one more unknown, and
        # so is the length of a vector fed at run time (``fill``, as other dimensions).
        if t._shape is None:
            raise LookupError(t.name)
        if t._np_dtype is None or t._np_dtype.kind not in "iu":
            raise LookupError(t.name)
        return np.full(_trial_shape(t, fill), feed_fill, t._np_dtype)

    def is_leaf(op: ops.Operation) -> bool:
        return op._compute is None or op.type in _FEEDABLE

    # A value too large to compute in a trial (a mask of fed lengths with every unknown
    # dimension one million) is not known in it.
    if tensor._shape is not None and _trial_size(tensor, fill) > _MAX_TRIAL_SIZE:
        return None
    try:
        value = _evaluate(tensor, shape_input, leaf_value, is_leaf, {}, frozenset(), None)
    except Exception:  # noqa: BLE001 - whatever fails to evaluate is not known
        return None
    if isinstance(value, jax.core.Tracer):
        return None
    return np.asarray(value)


def is_static(tensor: ops.Tensor) -> bool:
    """Whether the graph fixes ``tensor``'s value: every op it reads computes from
    constants and fully known static shapes (no placeholder, variable or unknown
    dimension), and the value is small enough to compute (``_MAX_TRIAL_SIZE``).

    The test of :func:`static_value` without computing the value: grappler's "is this a
    constant" (``math_ops.folds_to_constant``, the gradients' constant folding) asks
    only this, and evaluating a large constant subgraph op by op cost seconds a graph.
    """
    stack, seen = [tensor.op], set()
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op._compute is None or op.type in _FEEDABLE or op._reads or op._writes:
            return False
        if op.type in SHAPE_OPS:
            shape = op.inputs[0]._shape if op.inputs else None
            if shape is None or (op.type != "Rank" and None in shape):
                return False
            continue
        stack.extend(t.op for t in op.inputs)
    return tensor._shape is None or _trial_size(tensor, FILLS[0]) <= _MAX_TRIAL_SIZE


def static_value(tensor: ops.Tensor) -> np.ndarray | None:
    """``tensor``'s value when the graph fixes it: computed from constants and fully
    known static shapes only (``tf.shape(x)[0]`` of an ``x`` of shape ``[3, 4]``,
    ``tf.rank(x) - 1``); ``None`` when it reads an unknown dimension or a value of the
    run, even where the trials of :func:`partial_value` agree
    (``tf.minimum(tf.shape(x)[0], 5)`` is 5 for every large trial size)."""
    if not is_static(tensor):
        return None
    return build_time_value(tensor, FILLS[0], FEED_FILLS[0])


def partial_value(tensor: ops.Tensor) -> np.ndarray | None:
    """What the graph knows of ``tensor``'s value (TF's static shape inference).

    Returns:
      The value as NumPy when the static shapes determine all of it; an object
      array with ``None`` for the parts that depend on unknown dimensions
      (``tf.shape(x)`` of an ``x`` of shape ``[None, 784]``: ``[None, 784]``); ``None``
      when it depends on more than static shapes.
    """
    values = [build_time_value(tensor, *fills) for fills in zip(FILLS, FEED_FILLS, strict=True)]
    first = values[0]
    if any(v is None or v.shape != first.shape for v in values):
        return None
    same = np.logical_and.reduce([v == first for v in values[1:]])
    if np.all(same):
        return first
    out = np.empty(first.shape, dtype=object)
    out[...] = np.where(same, first, None)
    return out


def depends_on_data(tensor: ops.Tensor) -> bool:
    """Whether ``tensor``'s value reads a value of the step other than a fed one (a
    variable's, a random one): such a value is never known when the step is traced."""
    return _data_sources(tensor)[1]


def from_shapes_only(tensor: ops.Tensor) -> bool:
    """Whether ``tensor``'s value reads only constants and static shapes (no fed or
    computed value of the step)."""
    placeholders, other = _data_sources(tensor)
    return not placeholders and not other


def known_when_traced(tensor: ops.Tensor) -> bool:
    """Prepares ``tensor``'s value to be known when the step is traced.

    The placeholders it reads (``n`` in ``tf.ones([n, 3])``: integer scalars or
    vectors, of a known small size or of a fed length, as sequence lengths) become
    shape feeds of their graph: a run compiles their fed values as constants, one
    program per value.

    Returns:
      Whether the value can be known then: ``False`` when it reads a variable, a
      random value or a placeholder that cannot be a shape feed.
    """
    placeholders, other = _data_sources(tensor)
    if other:
        return False
    for t in placeholders:
        t.graph._shape_feeds.add(t)
    return True


def _data_sources(tensor: ops.Tensor) -> tuple[list[ops.Tensor], bool]:
    """The placeholders whose values ``tensor``'s value reads (a
    ``placeholder_with_default`` among them), and whether it reads other data."""
    stack, seen, placeholders = [tensor.op], set(), []
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op._compute is None and op.type != "Placeholder":
            return placeholders, True  # a loop variable, a function's argument
        if op._compute is None or op.type in _FEEDABLE:
            t = op.outputs[0]
            shape = t._shape
            if shape is None or len(shape) > 1:
                return placeholders, True
            # a vector of a few known integers, or of a fed length (sequence lengths)
            if None not in shape and int(np.prod(shape)) > 64:
                return placeholders, True
            if t._np_dtype is None or t._np_dtype.kind not in "iu":
                return placeholders, True
            placeholders.append(t)
            if op._compute is None:
                continue
        if op._reads or op._writes:
            return placeholders, True
        if op.type in SHAPE_OPS:
            continue
        stack.extend(t.op for t in op.inputs)
    return placeholders, False


def _evaluate(
    tensor: ops.Tensor,
    shape_input: Callable[[ops.Tensor], Any],
    leaf_value: Callable[[ops.Tensor], Any],
    is_leaf: Callable[[ops.Operation], bool],
    variables: dict[Any, Any],
    initialized: Any,
    fed: frozenset | None,
) -> Any:
    """``tensor``'s value, re-evaluating its ops under compile-time evaluation.

    ``shape_input(t)`` gives the inputs of shape ops, ``leaf_value(t)`` the values of
    the outputs of ops that ``is_leaf`` (placeholders); other ops are run anew.
    """
    from adapters.v1.client.session import RunContext

    memo: dict[ops.Tensor, Any] = {}
    order: list[ops.Operation] = []
    seen: set[ops.Operation] = set()
    if is_leaf(tensor.op):
        memo[tensor] = leaf_value(tensor)
    stack = [] if tensor in memo else [tensor.op]
    while stack:  # the ops to re-evaluate
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        order.append(op)
        for t in op.inputs:
            if op.type in SHAPE_OPS:
                memo[t] = shape_input(t)
            elif is_leaf(t.op):
                memo[t] = leaf_value(t)
            else:
                stack.append(t.op)
    sub = RunContext(dict(variables), memo, True, initialized, fed)
    # 64-bit types exact, as the session traces the step (a float64 cast stays float64)
    with jax.ensure_compile_time_eval(), _x64.exact():
        sub.run_ops([op for op in _topological(order) if op.outputs[0] not in memo])
    return sub.memo[tensor]


def _symbolic_shape(ctx: Any, tensor: ops.Tensor) -> np.ndarray | None:
    """``tf.shape(x)`` of an ``x`` with symbolic dimensions (a meta graph's
    ``jax.export`` of a random op shaped like its batch), as an object array of the
    dimensions; ``None`` otherwise."""
    if tensor.op.type != "Shape" or len(tensor.op.inputs) != 1:
        return None
    shape = getattr(ctx.memo[tensor.op.inputs[0]], "shape", None)
    if shape is None or all(isinstance(d, (int, np.integer)) for d in shape):
        return None
    out = np.empty(len(shape), dtype=object)
    out[:] = list(shape)
    return out


def _topological(op_list: list[ops.Operation]) -> list[ops.Operation]:
    chosen = set(op_list)
    done: set[ops.Operation] = set()
    out: list[ops.Operation] = []

    def visit(op: ops.Operation) -> None:
        if op in done:
            return
        done.add(op)
        for t in op.inputs:
            if t.op in chosen:
                visit(t.op)
        out.append(op)

    for op in op_list:
        visit(op)
    return out
