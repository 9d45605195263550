"""``tf.gradients``: derivatives of graph tensors, computed with ``jax.grad``.

The gradient operation re-evaluates, as a function of the ``xs`` values, the
operations that lie on a path from ``xs`` to ``ys`` and differentiates that
function with JAX; values that do not depend on ``xs`` are reused from the run.
XLA removes the duplicated forward computation when the step is compiled.

Which gradients exist is decided when the graph is built, as TF's backpropagation
does: a gradient flows only through trainable (floating or complex) tensors and
operations with a gradient, so an ``x`` without such a path to ``ys`` gets ``None``
(or zeros, ``unconnected_gradients="zero"``). The outputs of operations without a
gradient keep their value from the run in the re-evaluation: constants for JAX.
"""

from __future__ import annotations

import enum
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.client.session import RunContext, execution_order
from adapters.v1.framework import dtypes, ops


class UnconnectedGradients(enum.Enum):
    """TF's ``tf.UnconnectedGradients``: the gradient of an ``x`` that ``ys`` do not
    depend on through differentiable operations: ``NONE`` (``None``, TF's default) or
    ``ZERO`` (zeros of ``x``'s shape and dtype)."""

    NONE = "none"
    ZERO = "zero"


# Operation types TF gives no gradient to their inputs: registered with
# ``ops.NotDifferentiable``, or whose gradient function returns ``None`` (``Floor``,
# ``ArgMax``). Only those that may read or produce floating tensors matter: a path
# through an integer or boolean tensor carries no gradient anyway.
_NO_GRADIENT = frozenset(
    {
        "ArgMax",
        "ArgMin",
        "Assign",
        "AssignAdd",
        "AssignSub",
        "Ceil",
        "DrawBoundingBoxes",
        "ExtractGlimpse",
        "Floor",
        "FloorDiv",
        "HSVToRGB",
        "Multinomial",
        "OneHot",
        "OnesLike",
        "ParameterizedTruncatedNormal",
        "RandomShuffle",
        "Range",
        "Rint",
        "Round",
        "SampleDistortedBoundingBox",
        "SampleDistortedBoundingBoxV2",
        "ScatterAdd",
        "ScatterDiv",
        "ScatterMul",
        "ScatterNdAdd",
        "ScatterNdSub",
        "ScatterNdUpdate",
        "ScatterSub",
        "StopGradient",
        "TruncateDiv",
        "ZerosLike",
    }
)

# TF's trainable dtypes (``backprop_util.IsTrainable``): gradients flow only through
# tensors of these types.
_TRAINABLE = frozenset(
    {"float16", "bfloat16", "float32", "float64", "complex64", "complex128", "resource", "variant"}
)


def _as_tensor(x: Any) -> ops.Tensor:
    """The tensor for ``x``; a variable stands for its per-run value (``value()``)."""
    return x.value() if hasattr(x, "_snapshot") else ops.convert_to_tensor(x)


def _as_tensor_list(x: Any) -> list[ops.Tensor]:
    """Tensors for ``x`` (one or a list); a variable stands for its per-run value."""
    items = x if isinstance(x, (list, tuple)) else [x]
    return [_as_tensor(i) for i in items]


def _trainable(t: ops.Tensor) -> bool:
    """TF's ``IsTrainable``: a gradient can flow through ``t`` (unknown dtype: yes)."""
    return t.dtype is None or t.dtype.name in _TRAINABLE


def _data_inputs(op: ops.Operation) -> tuple[ops.Tensor, ...]:
    """The inputs gradients flow through: none for TF's non-differentiable ops (py_func)."""
    return () if getattr(op, "_not_differentiable", False) else op.inputs


def _cuts(op: ops.Operation, stop_ops: set[ops.Operation]) -> bool:
    """No gradient flows from ``op``'s outputs to its inputs: a ``stop_gradients`` op,
    a non-differentiable op (``tf.stop_gradient``, ``py_func``, ``floor``)."""
    return op in stop_ops or getattr(op, "_not_differentiable", False) or op.type in _NO_GRADIENT


def _ancestors(tensors: list[ops.Tensor]) -> set[ops.Tensor]:
    """Tensors that ``tensors`` depend on through data edges (including themselves)."""
    seen: set[ops.Tensor] = set()
    stack = list(tensors)
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        stack.extend(_data_inputs(t.op))
    return seen


def _with_gradient(ys: list[ops.Tensor], stop_ops: set[ops.Operation]) -> set[ops.Tensor]:
    """The tensors a gradient of ``ys`` reaches, as TF's backpropagation: ``ys``, then
    the trainable inputs of ops with a trainable output reached, except through ops
    that cut gradients (``_cuts``)."""
    reached = set(ys)
    stack = list(ys)
    while stack:
        t = stack.pop()
        if not _trainable(t) or _cuts(t.op, stop_ops):
            continue
        for i in t.op.inputs:
            if i not in reached and _trainable(i):
                reached.add(i)
                stack.append(i)
    return reached


def gradients(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = UnconnectedGradients.NONE,
) -> list[Any]:
    """Symbolic derivatives of ``sum(ys)`` with respect to each of ``xs``.

    As TF, the gradient with respect to each ``x`` is the total derivative through the
    whole graph: an ``x`` that another ``x`` depends on gets the paths through it too.
    Gradients flow only through floating (and complex) tensors and differentiable
    operations: not through ``tf.stop_gradient``, ``floor``, ``argmax``, an integer
    cast, ``py_func`` nor the ops of ``stop_gradients``.

    Args:
      ys: a tensor or list of tensors to differentiate.
      xs: a tensor, variable, or list of them (a variable means its value).
      grad_ys: optional tensors of ``ys``'s shapes weighting each ``y``; a ``None``
        entry (or ``grad_ys=None``) weights its ``y`` with ones.
      stop_gradients: tensors whose ops pass no gradient to their inputs (the
        gradient with respect to such a tensor itself is still computed).
      unconnected_gradients: ``"none"`` (``UnconnectedGradients.NONE``, TF's
        default) gives ``None`` for an ``x`` without a differentiable path to ``ys``
        (an integer ``x``, such as a global step, has none); ``"zero"`` gives zeros of
        ``x``'s shape and dtype.

    Returns:
      One tensor per ``x`` (``None`` where unconnected and ``"none"``); where every
      path from ``x`` to ``ys`` starts with a gather of its rows (``tf.gather`` along
      axis 0, ``tf.nn.embedding_lookup``), a ``tf.IndexedSlices`` as TF gives.

    Raises:
      ValueError: ``grad_ys`` and ``ys`` differ in length, or ``unconnected_gradients``
        is unknown (TF's messages).
    """
    try:
        unconnected = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError(
            f"Unknown value for unconnected_gradients: '{unconnected_gradients}'"
        ) from None
    ys_t = _as_tensor_list(ys)
    xs_t = _as_tensor_list(xs)
    if grad_ys is None:
        gys: list[ops.Tensor | None] = [None] * len(ys_t)
    else:
        items = grad_ys if isinstance(grad_ys, (list, tuple)) else [grad_ys]
        if len(items) != len(ys_t):
            raise ValueError(f"Length mismatch. Passed {len(items)} grad_ys for {len(ys_t)} ys")
        gys = [None if g is None else _as_tensor(g) for g in items]
    stop_ops = (
        {t.op for t in _as_tensor_list(stop_gradients)} if stop_gradients is not None else set()
    )

    upstream = _ancestors(ys_t)
    live = _with_gradient(ys_t, stop_ops)
    # A variable read again inside control_dependencies (a fresh read op) is the same
    # x for TF: its gradient flows to the variable too.
    aliases = {x: _other_reads(x, live) for x in xs_t}
    connected = list(dict.fromkeys(x for x in xs_t if _trainable(x) and (x in live or aliases[x])))
    # An x read only by row gathers gets TF's IndexedSlices: JAX differentiates with
    # respect to the gathered rows instead of x (the dense cotangent never exists).
    gathers = {x: [] if aliases[x] else _row_gathers(x, live, stop_ops, ys_t) for x in connected}
    sparse = [x for x in connected if gathers[x]]
    dense = [x for x in connected if not gathers[x]]
    rows = [g.outputs[0] for x in sparse for g in gathers[x]]
    row_ids = [g.inputs[1] for x in sparse for g in gathers[x]]
    by_x: dict[ops.Tensor, Any] = {}
    if connected:
        op = _gradients_op(
            ys_t, gys, dense, rows, row_ids, sparse, gathers, aliases, upstream, stop_ops, name
        )
        by_x.update(zip(dense, op.outputs, strict=False))
        from adapters.v1.framework.indexed_slices import IndexedSlices

        for i, x in enumerate(sparse):
            values, indices = op.outputs[len(dense) + 2 * i : len(dense) + 2 * i + 2]
            dense_shape = ops.convert_to_tensor(np.asarray(x._shape, np.int32))
            by_x[x] = IndexedSlices(values, indices, dense_shape)
    result: list[Any] = []
    for x in xs_t:
        if x in by_x:
            result.append(by_x[x])
        elif any(y is x for y in ys_t):
            # An x among ys that no gradient reaches otherwise (an integer one): its
            # grad_ys, as TF (ones where not given).
            result.append(_own_gradient(x, ys_t, gys))
        elif unconnected is UnconnectedGradients.ZERO:
            from adapters.v1.ops.script_ops import lift

            result.append(lift(jnp.zeros_like, [x], name="zeros_like"))
        else:
            result.append(None)
    return result


def _own_gradient(x: ops.Tensor, ys: list[ops.Tensor], gys: list[Any]) -> ops.Tensor:
    """The sum of ``grad_ys`` (ones where ``None``) of the entries of ``ys`` that are ``x``."""
    from adapters.v1.ops.script_ops import lift

    parts = [
        g if g is not None else lift(jnp.ones_like, [x], name="grad_ys")
        for y, g in zip(ys, gys, strict=True)
        if y is x
    ]
    return parts[0] if len(parts) == 1 else lift(lambda *p: sum(p[1:], p[0]), parts, name="AddN")


def _gradients_op(
    ys: list[ops.Tensor],
    gys: list[ops.Tensor | None],
    dense: list[ops.Tensor],
    rows: list[ops.Tensor],
    row_ids: list[ops.Tensor],
    sparse: list[ops.Tensor],
    gathers: dict[ops.Tensor, list[ops.Operation]],
    aliases: dict[ops.Tensor, list[ops.Tensor]],
    upstream: set[ops.Tensor],
    stop_ops: set[ops.Operation],
    name: str,
) -> ops.Operation:
    """The operation computing the gradients of ``ys`` with respect to ``dense`` and
    ``rows`` (for ``sparse``: values, then indices, per x) with ``jax.grad``.

    Each point (an ``x`` of ``dense`` or a gathered row block) is a point of
    differentiation: one no other point depends on takes its value as the variable; one
    computed from others (``b = a * a`` with ``xs = [a, b]``) is recomputed from the
    points it depends on, plus its own variable, so its gradient is the derivative with
    respect to the tensor and theirs include the paths through it (TF's total
    derivative).
    """
    points = dense + rows
    alias_reads = [a for x in dense for a in aliases[x]]
    # Tensors on a path from some point to ys: recomputed as functions of the points.
    downstream = _descendants(points + alias_reads, upstream)
    for op in {t.op for t in downstream}:
        # A construct JAX cannot reverse-differentiate (an unbounded tf.while_loop).
        error = getattr(op, "_gradient_error", None)
        if error:
            raise NotImplementedError(error)
    # Outputs of ops that pass no gradient keep their value from the run: constants.
    frozen = {o for op in {t.op for t in downstream} if _cuts(op, stop_ops) for o in op.outputs}
    inner = _descendants(points, upstream, strict=True) & set(points)
    inner_order = _in_execution_order([p for p in points if p in inner])
    weighted = [i for i, g in enumerate(gys) if g is not None]
    differentiated = [i for i, y in enumerate(ys) if _trainable(y)]
    inputs = ys + [gys[i] for i in weighted] + points + row_ids
    index_dtypes = {x: _index_dtype([g.inputs[1] for g in gathers[x]]) for x in sparse}
    n_y, n_w, n_p = len(ys), len(weighted), len(points)

    def compute(ctx: RunContext, *values):
        weights = dict(zip(weighted, values[n_y : n_y + n_w], strict=True))
        diff_vals = values[n_y + n_w : n_y + n_w + n_p]
        id_vals = values[n_y + n_w + n_p :]

        def f(xv):
            memo = {t: v for t, v in ctx.memo.items() if t not in downstream or t in frozen}
            at = dict(zip(points, xv, strict=True))
            memo.update((p, v) for p, v in at.items() if p not in inner)
            for x in dense:
                for a in aliases[x]:
                    # The read's own value (it may follow an assignment), x's derivative.
                    memo[a] = ctx.memo.get(a, at[x]) + (at[x] - jax.lax.stop_gradient(at[x]))
            sub = RunContext(dict(ctx.variables), memo, True, ctx.initialized, ctx.fed)
            for p in inner_order:
                # Its value in the run; the derivative through the points it depends
                # on, and with respect to itself.
                (e,) = _recompute(sub, [p])
                memo[p] = at[p] + (e - jax.lax.stop_gradient(e))
            outs = _recompute(sub, [ys[i] for i in differentiated])
            total = 0.0
            for i, y in zip(differentiated, outs, strict=True):
                y = jnp.asarray(y)
                total = total + (jnp.sum(y * weights[i]) if i in weights else jnp.sum(y))
            return total

        grads = jax.grad(f)(list(diff_vals))
        out = [g.astype(x.dtype) for g, x in zip(grads, diff_vals, strict=True)]
        dense_out, row_grads = out[: len(dense)], out[len(dense) :]
        pos = 0
        for x in sparse:
            parts, ids = [], []
            for _ in gathers[x]:
                row_shape = tuple(x._shape[1:])
                parts.append(row_grads[pos].reshape((-1, *row_shape)))
                ids.append(jnp.reshape(id_vals[pos], (-1,)).astype(index_dtypes[x]))
                pos += 1
            dense_out.append(jnp.concatenate(parts) if len(parts) > 1 else parts[0])
            dense_out.append(jnp.concatenate(ids) if len(ids) > 1 else ids[0])
        return tuple(dense_out)

    specs = [(x._shape, x.dtype) for x in dense]
    for x in sparse:
        counts = [_num_elements(g.inputs[1]) for g in gathers[x]]
        n = None if None in counts else sum(counts)
        specs += [((n, *x._shape[1:]), x.dtype), ((n,), index_dtypes[x])]
    graph = ys[0].graph
    with graph.name_scope(name):
        return graph.create_op(
            "Gradients", "grads", inputs=inputs, compute=compute, output_specs=specs
        )


def _recompute(ctx: RunContext, tensors: list[ops.Tensor]) -> list[Any]:
    """Values of ``tensors``, running the operations they need that computed a value
    not in ``ctx.memo``: a control input that ran in the step (an assignment in
    ``control_dependencies``) does not run again in the gradient's recomputation."""
    order = execution_order([t.op for t in tensors], set(ctx.memo))
    ctx.run_ops([op for op in order if any(o not in ctx.memo for o in op.outputs)])
    return [ctx.memo[t] for t in tensors]


def _in_execution_order(tensors: list[ops.Tensor]) -> list[ops.Tensor]:
    """``tensors`` ordered so that each comes after those it depends on."""
    if len(tensors) < 2:
        return tensors
    rank = {op: i for i, op in enumerate(execution_order([t.op for t in tensors], set()))}
    return sorted(tensors, key=lambda t: (rank[t.op], t.value_index))


def _row_gathers(
    x: ops.Tensor, live: set[ops.Tensor], stop_ops: set[ops.Operation], ys: list[ops.Tensor]
) -> list[ops.Operation]:
    """The gathers of rows of ``x`` on the gradient's paths to ``ys``, if they are its
    only readers there (TF's gradient is then an ``IndexedSlices``); else ``[]`` (a
    dense gradient: TF sums an ``IndexedSlices`` with a dense gradient into a dense
    tensor)."""
    if x in ys or x._shape is None or any(d is None for d in x._shape) or not x._shape:
        return []
    found = []
    for op in _consumers(x.graph).get(x, ()):
        if _cuts(op, stop_ops) or not any(o in live and _trainable(o) for o in op.outputs):
            continue
        if not _is_row_gather(op, x):
            return []
        found.append(op)
    return found


def _other_reads(x: ops.Tensor, upstream: set[ops.Tensor]) -> list[ops.Tensor]:
    """Other reads of the variable whose per-run value ``x`` is, on the paths to ``ys``."""
    var = getattr(x.op, "_read_of", None)
    if var is None:
        return []
    return [
        t
        for t in upstream
        if t is not x and getattr(t.op, "_read_of", None) is var and not t.op.inputs
    ]


def _is_row_gather(op: ops.Operation, x: ops.Tensor) -> bool:
    """``op`` is ``x[ids]`` along axis 0: ``tf.gather`` (``GatherV2``) with axis 0, or
    ``tf.gather_nd`` with indices ``[N, 1]`` (TF gives both an ``IndexedSlices``)."""
    if op.type not in ("GatherV2", "GatherNd") or len(op.inputs) != 2:
        return False
    if op.inputs[0] is not x or op.inputs[1] is x:
        return False
    attrs = getattr(op, "_static_attrs", {})
    ids = op.inputs[1]
    if attrs.get("batch_dims"):
        return False
    if op.type == "GatherNd":
        return ids._shape is not None and len(ids._shape) == 2 and ids._shape[1] == 1
    # The ids' shape may be partly unknown (a placeholder's batch dimension): the
    # compiled step knows it, and the IndexedSlices' row count follows it.
    return attrs.get("axis") in (None, 0)


def _consumers(graph: ops.Graph) -> dict[ops.Tensor, list[ops.Operation]]:
    consumers: dict[ops.Tensor, list[ops.Operation]] = {}
    for op in graph.get_operations():
        for t in op.inputs:
            consumers.setdefault(t, []).append(op)
    return consumers


def _num_elements(t: ops.Tensor) -> int | None:
    """The number of elements of ``t``, or None where its shape is not fully known."""
    if t._shape is None or any(d is None for d in t._shape):
        return None
    return int(np.prod(t._shape, dtype=np.int64))


def _index_dtype(ids: list[ops.Tensor]) -> Any:
    """The indices' dtype: the ids' own, int64 where int32 and int64 ids mix (as TF)."""
    kinds = {np.dtype(dtypes.as_dtype(t.dtype).as_numpy_dtype) for t in ids}
    return kinds.pop() if len(kinds) == 1 else np.dtype(np.int64)


def _descendants(
    xs: list[ops.Tensor], upstream: set[ops.Tensor], strict: bool = False
) -> set[ops.Tensor]:
    """Tensors in ``upstream`` reachable from ``xs`` through data edges: ``xs``
    included, or with ``strict`` only those reached through at least one operation."""
    consumers: dict[ops.Tensor, list[ops.Operation]] = {}
    for t in upstream:
        for i in _data_inputs(t.op):
            consumers.setdefault(i, []).append(t.op)
    seen: set[ops.Tensor] = set()
    stack = list(xs)
    while stack:
        t = stack.pop()
        for op in consumers.get(t, ()):
            for out in op.outputs:
                if out in upstream and out not in seen:
                    seen.add(out)
                    stack.append(out)
    return seen if strict else seen | set(xs)
