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

An operation whose gradient the user gave (``gradient_override_map`` with
``tf.RegisterGradient``, ``tf.custom_gradient``; see ``custom_gradient.py``) has
its gradient function called once, when the graph is built, as TF calls it; in
the re-evaluation the operation is a ``jax.custom_vjp`` whose backward rule
evaluates the tensors the function returned, so it stays in the one compiled
step and can itself be differentiated (``tf.hessians``).
"""

from __future__ import annotations

import collections
import enum
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.client.session import RunContext, execution_order
from adapters.v1.framework import dtypes, ops
from adapters.v1.ops._no_gradient import (
    NO_GRADIENT_FOR_REAL_INPUT,
    NO_INPUT_GRADIENT,
    NOT_DIFFERENTIABLE,
    OUTPUT_FROM_ITS_INPUT,
    UNREGISTERED,
    lookup_error,
)
from adapters.v1.ops.custom_gradient import (
    get_gradient_function,
    lookup_gradient,
    registered_without_gradient,
)
from jtrain import errors


class UnconnectedGradients(enum.Enum):
    """TF's ``tf.UnconnectedGradients``: the gradient of an ``x`` that ``ys`` do not
    depend on through differentiable operations: ``NONE`` (``None``, TF's default) or
    ``ZERO`` (zeros of ``x``'s shape and dtype)."""

    NONE = "none"
    ZERO = "zero"


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
    a non-differentiable op (``tf.stop_gradient``, ``py_func``, ``floor``). An op whose
    gradient ``gradient_override_map`` replaces follows its gradient function (one
    that gives no input a gradient is among ``stop_ops``)."""
    if op in stop_ops or getattr(op, "_not_differentiable", False):
        return True
    if op._gradient_op_type not in (None, op.type):
        return False
    if op.type in NO_GRADIENT_FOR_REAL_INPUT and op.inputs and not _is_complex_tensor(op.inputs[0]):
        return True
    return op.type in NOT_DIFFERENTIABLE or registered_without_gradient(op.type)


def _is_complex_tensor(t: ops.Tensor) -> bool:
    return t.dtype is not None and t.dtype.is_complex


def _inputs_without_gradient(op: ops.Operation) -> frozenset[int]:
    """The inputs of ``op`` TF's gradient function gives ``None`` (``Zeta``'s ``x``,
    ``QuantizeAndDequantizeV2``'s range), unless a user's gradient replaces it."""
    if op._gradient_op_type not in (None, op.type):
        return frozenset()
    return NO_INPUT_GRADIENT.get(op.type, frozenset())


def _own_input(t: ops.Tensor) -> ops.Tensor | None:
    """The one input the gradient of ``t`` reaches, for an op whose output ``i`` is
    computed from its input ``i`` alone (``tf.meshgrid``); else ``None`` (all)."""
    op = t.op
    if op.type not in OUTPUT_FROM_ITS_INPUT or op._gradient_op_type not in (None, op.type):
        return None
    return op.inputs[t.value_index]


def _flowing_inputs(op: ops.Operation) -> list[ops.Tensor]:
    """The inputs of ``op`` that TF's gradient function gives a gradient."""
    cut = _inputs_without_gradient(op)
    return [t for i, t in enumerate(op.inputs) if i not in cut]


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


def _with_gradient(
    ys: list[ops.Tensor], stop_ops: set[ops.Operation], flows: Callable[..., Any] | None = None
) -> set[ops.Tensor]:
    """The tensors a gradient of ``ys`` reaches, as TF's backpropagation: ``ys``, then
    the trainable inputs of ops with a trainable output reached, except through ops
    that cut gradients (``_cuts``); ``flows(op)`` gives the inputs a user's gradient
    function gives a gradient (default: all)."""
    reached = set(ys)
    stack = list(ys)
    while stack:
        t = stack.pop()
        if not _trainable(t) or _cuts(t.op, stop_ops):
            continue
        own = _own_input(t)
        for i in _flowing_inputs(t.op) if flows is None else flows(t.op):
            if own is not None and i is not own:
                continue
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
        or ``aggregation_method`` is unknown (TF's messages).
    """
    if aggregation_method is not None and aggregation_method not in (0, 1, 2):
        # TF's AggregationMethod values (ADD_N, EXPERIMENTAL_TREE, ..._ACCUMULATE_N):
        # all sum the same terms here.
        raise ValueError(
            f"Invalid `aggregation_method` specified {aggregation_method}. "
            "Accepted values are [0, 1, 2]."
        )
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
    for y, g in zip(ys_t, gys, strict=True):
        if g is None and y.dtype.is_complex:
            raise TypeError(
                f"Gradients of complex tensors ({y}) must set grad_ys (y.dtype = {y.dtype.name})"
            )
    stop_ops = (
        {t.op for t in _as_tensor_list(stop_gradients)} if stop_gradients is not None else set()
    )
    by_x = _differentiate(ys_t, gys, xs_t, stop_ops, name)
    result: list[Any] = []
    items = xs if isinstance(xs, (list, tuple)) else [xs]
    for item, x in zip(items, xs_t, strict=True):
        if x in by_x:
            result.append(_through_overridden_read(item, by_x[x], name))
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


class _RefRead:
    """A reference variable's read as TF's graph has it: an ``Identity`` whose input
    is the variable's ref tensor (jtrain's read op reads the variable directly)."""

    def __init__(self, op: ops.Operation, ref: ops.Tensor):
        self._op = op
        self.inputs = (ref,)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._op, name)


def _through_overridden_read(item: Any, grad: Any, name: str) -> Any:
    """The gradient of a reference variable ``item`` whose read was created inside a
    ``gradient_override_map`` of ``Identity`` (``tf.get_variable`` or ``tf.layers``
    inside the map): TF differentiates with respect to the variable's ref, through
    the read, so the user's gradient applies to ``grad`` too; else ``grad``."""
    read = getattr(item, "_snapshot", None)
    if read is None or getattr(item, "_resource", True) or grad is None:
        return grad
    op = read.op
    if op._gradient_op_type in (None, op.type):
        return grad
    fn = lookup_gradient(op)
    ref = item._variable_op.outputs[0] if item._variable_op.outputs else read
    with op.graph.name_scope(name), op.graph.name_scope(f"{op.name}_grad"):
        result = fn(_RefRead(op, ref), grad)
    if isinstance(result, (list, tuple)):
        if len(result) != 1:
            raise ValueError(
                f'Num gradients {len(result)} generated for op name: "{op.name}"\n'
                f'op: "{op.type}"\n do not match num inputs 1'
            )
        (result,) = result
    if result is None or hasattr(result, "indices"):
        return result
    return ops.convert_to_tensor(result)


def hessians(
    ys: Any,
    xs: Any,
    name: str = "hessians",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
) -> list[ops.Tensor]:
    """The second derivatives of ``sum(ys)`` with respect to each ``x`` of ``xs``.

    For each ``x`` (of ``n`` elements), :math:`H_{ij} = \\partial^2 \\sum y /
    \\partial x_i \\partial x_j`, returned with shape ``x.shape + x.shape``: the
    Jacobian of ``tf.gradients(ys, x)`` with respect to ``x``, as TF builds it
    (cross derivatives between different ``xs`` are not computed).

    Args:
      ys: a tensor or list of tensors.
      xs: a tensor, variable, or list of them, of fully known static shapes.
      name: the name scope of the gradient ops (TF's default ``"hessians"``).
      colocate_gradients_with_ops: as ``tf.gradients`` (accepted; XLA places the
        computation).
      gate_gradients: as ``tf.gradients`` (accepted; XLA orders the computation).
      aggregation_method: as ``tf.gradients`` (accepted).

    Returns:
      One tensor per ``x``, of shape ``x.shape + x.shape`` and ``x``'s dtype.

    Raises:
      ValueError: some ``x`` has no gradient (TF's message: its loop converts the
        ``None`` gradient).
      NotImplementedError: an ``x`` whose static shape is not fully known (TF loops
        over its elements with a ``tf.while_loop``).

    .. note:: Where ``ys`` is linear in ``x`` TF's first gradient is built from ``x``'s
       shape only and its Hessian loop raises ``ValueError("None values not
       supported.")``; jtrain's gradient depends on ``x`` and its Hessian is zeros.
    """
    xs_t = _as_tensor_list(xs)
    grads = gradients(ys, xs_t, name=name)
    out = []
    for g, x in zip(grads, xs_t, strict=True):
        if g is None:
            raise ValueError(
                "Tried to convert 'tensor' to a tensor and failed. Error: None values not "
                "supported."
            )
        g = ops.convert_to_tensor(g)  # an IndexedSlices gradient: dense, as TF reshapes it
        if x._shape is None or any(d is None for d in x._shape):
            raise NotImplementedError(
                f"tf.hessians: {x.name} has the static shape {x.shape}; jtrain needs a fully "
                "known shape (TF loops over the elements in a tf.while_loop)."
            )
        by_x = _differentiate([g], [None], [x], set(), name, jacobian=True)
        if x in by_x:
            out.append(by_x[x])
            continue
        from adapters.v1.ops.script_ops import lift

        shape = tuple(x._shape) * 2  # the gradient does not depend on x at all
        out.append(lift(lambda v, s=shape: jnp.zeros(s, v.dtype), [x], name="zeros"))
    return out


def _differentiate(
    ys_t: list[ops.Tensor],
    gys: list[ops.Tensor | None],
    xs_t: list[ops.Tensor],
    stop_ops: set[ops.Operation],
    name: str,
    jacobian: bool = False,
) -> dict[ops.Tensor, Any]:
    """The gradient (or, with ``jacobian``, the Jacobian of the one ``y``) with respect to
    each connected ``x``, by ``x``; unconnected ``xs`` are left out."""
    graph = ys_t[0].graph
    upstream = _ancestors(ys_t)
    # Ops on a path from xs whose gradient the user replaced: their gradient functions
    # run once, here, as TF calls them while building the backward pass.
    from_xs: set[ops.Tensor] = set()
    if any(t.op._gradient_op_type is not None for t in upstream):
        reads = [a for x in xs_t for a in _other_reads(x, upstream)]
        from_xs = _descendants(xs_t + reads, upstream)
    stop_ops = set(stop_ops)
    overrides: dict[ops.Operation, _Override] = {}
    with graph.name_scope(name) as scope:
        pass

    def flows(op: ops.Operation) -> Any:
        if op._gradient_op_type is None or not any(o in from_xs for o in op.outputs):
            return _flowing_inputs(op)
        if op not in overrides:
            fn = get_gradient_function(op)
            if fn is None:
                return _flowing_inputs(op)
            overrides[op] = _Override.build(op, fn, scope)
            if all(g is None for g in overrides[op].grads):
                stop_ops.add(op)
        return [t for t, g in zip(op.inputs, overrides[op].grads, strict=True) if g is not None]

    live = _with_gradient(ys_t, stop_ops, flows)
    _check_registered(live, xs_t, upstream, stop_ops)
    # Ops whose gradient gives some inputs None: recomputed with those inputs constant.
    cut: dict[ops.Operation, Any] = {
        t.op: _InputsWithoutGradient(t.op, _inputs_without_gradient(t.op))
        for t in live
        if _inputs_without_gradient(t.op) and t.op not in overrides
    }
    # A variable read again inside control_dependencies (a fresh read op) is the same
    # x for TF: its gradient flows to the variable too.
    aliases = {x: _other_reads(x, live) for x in xs_t}
    connected = list(dict.fromkeys(x for x in xs_t if _trainable(x) and (x in live or aliases[x])))
    # An x read only by row gathers gets TF's IndexedSlices: JAX differentiates with
    # respect to the gathered rows instead of x (the dense cotangent never exists).
    gathers = {
        x: [] if aliases[x] or jacobian else _row_gathers(x, live, stop_ops, ys_t)
        for x in connected
    }
    sparse = [x for x in connected if gathers[x]]
    dense = [x for x in connected if not gathers[x]]
    rows = [g.outputs[0] for x in sparse for g in gathers[x]]
    row_ids = [g.inputs[1] for x in sparse for g in gathers[x]]
    by_x: dict[ops.Tensor, Any] = {}
    if connected:
        op = _gradients_op(
            ys_t,
            gys,
            dense,
            rows,
            row_ids,
            sparse,
            gathers,
            aliases,
            upstream,
            stop_ops,
            scope,
            {**cut, **{o: v for o, v in overrides.items() if o not in stop_ops}},
            jacobian,
        )
        by_x.update(zip(dense, op.outputs, strict=False))
        from adapters.v1.framework.indexed_slices import IndexedSlices

        for i, x in enumerate(sparse):
            values, indices = op.outputs[len(dense) + 2 * i : len(dense) + 2 * i + 2]
            dense_shape = ops.convert_to_tensor(np.asarray(x._shape, np.int32))
            by_x[x] = IndexedSlices(values, indices, dense_shape)
    return by_x


def _check_registered(
    live: set[ops.Tensor],
    xs: list[ops.Tensor],
    upstream: set[ops.Tensor],
    stop_ops: set[ops.Operation],
) -> None:
    """Raises TF's ``LookupError`` where a gradient reaches an operation TF registers
    no gradient for (``tf.random.poisson``, ``tf.math.is_nan``) on a path from ``xs``:
    TF looks the gradient function up when it builds the backward pass.

    Raises:
      LookupError: such an operation, without a user's gradient, is reached.
    """
    reached = [
        t.op
        for t in live
        if t.op.type in UNREGISTERED
        and t.op._gradient_op_type in (None, t.op.type)
        and not _cuts(t.op, stop_ops)
    ]
    if not reached:
        return
    between = {t.op for t in _descendants(xs, upstream, strict=True)}
    for op in sorted(reached, key=lambda o: o.name):
        if op in between:
            raise lookup_error(op.name, op.type)


class _InputsWithoutGradient:
    """An op recomputed in the gradient with some of its inputs constant: TF's gradient
    function gives them ``None`` (``NO_INPUT_GRADIENT``), so no derivative reaches an
    ``x`` through them, whatever JAX's derivative of the op."""

    externals: tuple[ops.Tensor, ...] = ()

    def __init__(self, op: ops.Operation, cut: frozenset[int]):
        self.op = op
        self.cut = cut

    def run(self, sub: RunContext, step: RunContext, user: Any) -> tuple[Any, ...]:
        from adapters.v1.framework import auto_mixed_precision

        op = self.op
        compute = auto_mixed_precision.wrap(op.type, op._compute)
        ins = [
            jax.lax.stop_gradient(sub.memo[t]) if i in self.cut else sub.memo[t]
            for i, t in enumerate(op.inputs)
        ]
        outer, sub.op = sub.op, op
        try:
            return tuple(compute(sub, *ins))
        finally:
            sub.op = outer


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
    scope: str,
    overrides: dict[ops.Operation, _Override | _InputsWithoutGradient],
    jacobian: bool = False,
) -> ops.Operation:
    """The operation computing the gradients of ``ys`` with respect to ``dense`` and
    ``rows`` (for ``sparse``: values, then indices, per x) with ``jax.grad``.

    Each point (an ``x`` of ``dense`` or a gathered row block) is a point of
    differentiation: one no other point depends on takes its value as the variable; one
    computed from others (``b = a * a`` with ``xs = [a, b]``) is recomputed from the
    points it depends on, plus its own variable, so its gradient is the derivative with
    respect to the tensor and theirs include the paths through it (TF's total
    derivative).

    The ops of ``overrides`` (a user's gradient) are recomputed as ``jax.custom_vjp``
    functions whose backward rule evaluates their gradient tensors. With ``jacobian``
    (one ``y``, one dense ``x``) the output is the Jacobian, of shape
    ``y.shape + x.shape``: one backward pass per element of ``y``.
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
        inner_override = _overridden_inside(op)
        if inner_override is not None:
            raise NotImplementedError(
                f"tf.gradients through {op.type} {op.name!r}: the operation "
                f"{inner_override.name!r} inside it has a user's gradient "
                f"({inner_override._gradient_op_type!r}: gradient_override_map or "
                "tf.custom_gradient), which jtrain applies only outside tf.cond and "
                "tf.while_loop bodies; apply it outside the construct."
            )
    # Outputs of ops that pass no gradient keep their value from the run: constants.
    frozen = {o for op in {t.op for t in downstream} if _cuts(op, stop_ops) for o in op.outputs}
    # Every output of the ops recomputed (an RNN loop's final state beside the outputs
    # the loss reads): the run takes their values from the gradient's forward pass, so
    # that a construct XLA cannot merge with its twin (a while loop, whose
    # differentiated copy also keeps residuals) and what reads it run once.
    # Straight-line code is left to XLA, which merges its identical duplicates (JAX's
    # differentiation may trace a function's primal otherwise: its values then stay
    # the plain forward's, as fetched without the gradient).
    own_reads = set(points) | set(alias_reads)
    loops = any(t.op.type in _CONSTRUCTS for t in downstream)
    shared = list(
        dict.fromkeys(
            o
            for t in (downstream if loops else ())
            for o in t.op.outputs
            if o not in frozen and o not in own_reads
        )
    )
    recomputed = set(downstream) | set(shared)
    # (a dict the op keeps: a gradient of this gradient switches its fan-outs off below)
    uses, variants = (
        ({}, {}) if loops else _fan_outs(ys, gys, points, upstream, stop_ops, overrides)
    )
    fan_outs = {"uses": uses, "variants": variants}
    for op in {t.op for t in downstream}:
        if op.type == "Gradients" and hasattr(op, "_fan_outs"):
            # Differentiated again: TF's graph holds the gradient's own ops, whose second
            # derivatives JAX's order reproduced (measured), and jtrain's copies do not.
            op._fan_outs["uses"] = {}
            op._fan_outs["variants"] = {}
    inner = _descendants(points, upstream, strict=True) & set(points)
    inner_order = _in_execution_order([p for p in points if p in inner])
    weighted = [i for i, g in enumerate(gys) if g is not None]
    differentiated = [i for i, y in enumerate(ys) if _trainable(y)]
    # What the users' gradient functions read from the step (computed before this op).
    externals = list(dict.fromkeys(t for o in overrides.values() for t in o.externals))
    inputs = ys + [gys[i] for i in weighted] + points + row_ids + externals
    index_dtypes = {x: _index_dtype([g.inputs[1] for g in gathers[x]]) for x in sparse}
    n_y, n_w, n_p, n_i = len(ys), len(weighted), len(points), len(row_ids)

    def compute(ctx: RunContext, *values):
        weights = dict(zip(weighted, values[n_y : n_y + n_w], strict=True))
        diff_vals = values[n_y + n_w : n_y + n_w + n_p]
        id_vals = values[n_y + n_w + n_p : n_y + n_w + n_p + n_i]

        def f(xv, weights):
            memo = {t: v for t, v in ctx.memo.items() if t not in recomputed or t in frozen}
            at = dict(zip(points, xv, strict=True))
            memo.update((p, v) for p, v in at.items() if p not in inner)
            for x in dense:
                for a in aliases[x]:
                    # The read's own value (it may follow an assignment), x's derivative.
                    memo[a] = ctx.memo.get(a, at[x]) + (at[x] - jax.lax.stop_gradient(at[x]))
            sub = RunContext(dict(ctx.variables), memo, True, ctx.initialized, ctx.fed)
            sub.fan_outs = fan_outs["uses"]  # a tensor's gradients added in TF's order
            sub.overrides = dict(fan_outs["variants"])  # ops whose gradient TF computes so
            # The written variables' values when each construct of the run started: a
            # loop's recomputation replays its forward run's random draws.
            sub.construct_entries = getattr(ctx, "construct_entries", {})
            user = (overrides, ctx) if overrides else None
            for p in inner_order:
                # Its value in the run; the derivative through the points it depends
                # on, and with respect to itself.
                (e,) = _recompute(sub, [p], user)
                memo[p] = at[p] + (e - jax.lax.stop_gradient(e))
            outs = _recompute(sub, [ys[i] for i in differentiated], user)
            total = 0.0
            for i, y in zip(differentiated, outs, strict=True):
                y = jnp.asarray(y)
                if i in weights:
                    # TF's gradient is the conjugate of JAX's cotangent: weighting y
                    # with conj(w) here and conjugating the result gives TF's.
                    y = jnp.real(y * jnp.conj(weights[i])) if _is_complex(y) else y * weights[i]
                total = total + jnp.sum(y)
            return total, [memo.get(t) for t in shared]

        if jacobian:
            (y,) = ys
            size = _num_elements(y)
            (x,) = dense
            if not size:
                return (jnp.zeros((*y._shape, *x._shape), diff_vals[0].dtype),)
            # One backward pass per element of y, batched (jax.vmap): one trace whatever
            # the size (TF loops over the elements).
            basis = np.eye(size, dtype=y._np_dtype).reshape((size, *y._shape))
            rows = jax.vmap(
                lambda b: _tf_gradient(jax.grad(f, has_aux=True)(list(diff_vals), {0: b})[0][0])
            )(basis)
            jac = rows.reshape((*y._shape, *x._shape))
            return (jac.astype(diff_vals[0].dtype),)
        grads, forward = jax.grad(f, has_aux=True)(list(diff_vals), weights)
        if ctx.fed is not None:
            # The run's values of the recomputed tensors are the gradient's forward pass's
            # (the same operations on the same values); a fed tensor keeps its feed.
            for t, v in zip(shared, forward, strict=True):
                if v is not None and t not in ctx.fed:
                    ctx.memo[t] = v
        out = [_tf_gradient(g).astype(x.dtype) for g, x in zip(grads, diff_vals, strict=True)]
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
    if jacobian:
        specs = [((*ys[0]._shape, *dense[0]._shape), dense[0].dtype)]
    for x in sparse:
        counts = [_num_elements(g.inputs[1]) for g in gathers[x]]
        n = None if None in counts else sum(counts)
        specs += [((n, *x._shape[1:]), x.dtype), ((n,), index_dtypes[x])]
    graph = ys[0].graph
    with graph.name_scope(scope):
        op = graph.create_op(
            "Gradients", "grads", inputs=inputs, compute=compute, output_specs=specs
        )
    op._fan_outs = fan_outs
    return op


def _fan_outs(
    ys: list[ops.Tensor],
    gys: list[ops.Tensor | None],
    points: list[ops.Tensor],
    upstream: set[ops.Tensor],
    stop_ops: set[ops.Operation],
    overrides: dict,
) -> tuple[
    dict[
        ops.Tensor, tuple[dict[tuple[ops.Operation, int], int | tuple[int, ...]], tuple[int, ...]]
    ],
    dict[ops.Operation, Callable[..., Any]],
]:
    """The tensors whose gradients TF adds from three uses or more, each with its uses
    (consumer, input index) numbered in the order TF adds their gradients
    (``RunContext.fan_outs``); and the ops whose incoming gradient TF computes where
    they were built for a constant one, with the computation that adds their inner
    gradients as TF then does (``Operation._gradient_variant``: ``huber_loss``).

    A consumer that is several of TF's ops reading the input (``tf.nn.moments``: ``Mean``
    and ``SquaredDifference``) declares them (``Operation._inner_uses``: by input index,
    the names of their gradients under ``gradients/``, in the order it uses them); each counts
    as a use of its own, and the consumer's entry holds their numbers in that order.

    TF's ``gradients`` walks the ops between ``xs`` and ``ys`` from ``ys`` back (an op
    once all the ops consuming its outputs were: ``_PendingCount``, first in first out)
    and adds each tensor's gradients with one ``AddN``, left to right; grappler's
    arithmetic optimizer first sorts an ``AddN``'s inputs by name (measured: TF 2.21's
    order with grappler on is the sorted one, with it off the walk's). A gradient is named
    in its consumer's scope (``gradients/<consumer>_grad/...``), or is the consumer's
    own incoming gradient where TF's gradient passes it through (``Add``, ``Identity``,
    ``Sub``'s ``x``). The walk and the names are replayed here on the graph. Tensors also
    read otherwise (a ``y``, an op with a user's gradient, a gradient op) keep JAX's
    order.
    """
    up_ops = list(dict.fromkeys(t.op for t in upstream))
    consumers: dict[ops.Tensor, list[ops.Operation]] = collections.defaultdict(list)
    for op in up_ops:
        for t in op.inputs:
            consumers[t].append(op)
    reached: set[ops.Operation] = set()
    queue = collections.deque(p.op for p in points)
    while queue:
        op = queue.popleft()
        if op not in reached:
            reached.add(op)
            for out in op.outputs:
                if _trainable(out):
                    queue.extend(consumers[out])
    starts = [y.op for y in ys if y.op in reached]
    between: list[ops.Operation] = []
    queue = collections.deque(y.op for y in ys)
    while queue:
        op = queue.popleft()
        if op in reached:
            reached.remove(op)
            between.append(op)
            queue.extend(t.op for t in op.inputs)
    inside = set(between)
    pending: collections.Counter = collections.Counter()
    for op in between:
        for t in op.inputs:
            if t.op in inside:
                pending[t.op] += 1
    names: dict[ops.Tensor, str] = {}  # the name of each tensor's (total) gradient
    constant: dict[ops.Tensor, bool] = {}  # whether grappler folds it to a constant
    for y, gy in zip(ys, gys, strict=True):
        names[y] = gy.name if gy is not None else "gradients/Fill"
        constant[y] = (
            y.shape.is_fully_defined() if gy is None else _folds(gy)  # ones(shape(y))
        )
    # (name, consumer, input index, use inside the consumer, a constant in TF's graph)
    uses: dict[ops.Tensor, list[tuple[str, ops.Operation, int, int | None, bool]]] = (
        collections.defaultdict(list)
    )
    queue = collections.deque(dict.fromkeys(op for op in starts if pending[op] == 0))
    while queue:
        op = queue.popleft()
        for out in op.outputs:
            if out in uses and out not in names:
                contributions = uses[out]
                names[out] = contributions[0][0] if len(contributions) == 1 else "gradients/AddN"
                constant[out] = all(c[4] for c in contributions)
        if any(o in names for o in op.outputs) and not _cuts(op, stop_ops):
            cut = _inputs_without_gradient(op)
            incoming_constant = all(constant.get(o, True) for o in op.outputs)
            for i, t in enumerate(op.inputs):
                if i not in cut and _trainable(t):
                    inner = getattr(op, "_inner_uses", {}).get(i)
                    if inner:  # one gradient per use inside the op, named as TF's
                        uses[t].extend(
                            (f"gradients/{n}", op, i, k, False) for k, n in enumerate(inner)
                        )
                    else:
                        folded = incoming_constant and _constant_gradient(op, i)
                        uses[t].append((_gradient_name(op, i, names), op, i, None, folded))
        for t in op.inputs:
            pending[t.op] -= 1
            if pending[t.op] == 0:
                queue.append(t.op)
    excluded = set(ys) | {t for op in overrides for t in op.inputs}
    # A tensor read by a gradient op (a gradient differentiated again): TF's graph has
    # the gradient's own ops there, each reading it, where jtrain has one op.
    excluded |= {t for t, cs in uses.items() if any(c[1].type == "Gradients" for c in cs)}
    fan_outs = {}
    for t, contributions in uses.items():
        if len(contributions) < 3 or t in excluded or not _is_float_tensor(t):
            continue  # (two gradients add in either order to the same bits)
        ordered = sorted(contributions, key=lambda c: c[0])  # (a stable sort)
        index: dict[tuple[ops.Operation, int], int | tuple[int, ...]] = {}
        inner_places: dict[tuple[ops.Operation, int], dict[int, int]] = {}
        for n, (_, op, i, k, _folded) in enumerate(ordered):
            if k is None:
                index[(op, i)] = n
            else:  # a use inside the op: its copies, in the op's order of its uses
                inner_places.setdefault((op, i), {})[k] = n
        for use, places in inner_places.items():
            index[use] = tuple(places[k] for k in sorted(places))
        fan_outs[t] = (index, _forwarded_first(ordered))
    variants = {
        op: op._gradient_variant
        for op in between
        if getattr(op, "_gradient_variant", None) is not None
        and not all(constant.get(o, True) for o in op.outputs)
    }
    return fan_outs, variants


def _forwarded_first(ordered: list[tuple]) -> tuple[int, ...]:
    """The order TF's ``AddN`` kernel adds ``ordered`` (its inputs, sorted by name) in:
    the first input whose buffer it may reuse swaps places with the first
    (``aggregate_ops.h``), then left to right.

    Never reused: either gradient of ``Mul(t, t)`` (grappler merges the two equal
    products into one node, which the ``AddN`` then reads twice) and a gradient grappler
    folded into a constant. Any other input is taken as reused (a fresh tensor read
    once)."""
    order = list(range(len(ordered)))

    def kept(c: tuple) -> bool:
        op = c[1]
        square = op.type == "Mul" and c[3] is None and op.inputs[0] is op.inputs[1]
        return square or c[4]

    if ordered and kept(ordered[0]):
        reused = next((n for n, c in enumerate(ordered) if not kept(c)), 0)
        order[0], order[reused] = order[reused], order[0]
    return tuple(order)


# Ops whose gradient with respect to an input is the incoming gradient reshaped, tiled,
# negated or summed (TF's shape arithmetic folds for static shapes): of a constant
# incoming gradient, grappler folds it into a constant.
_LINEAR = frozenset(
    {"Identity", "Add", "AddV2", "AddN", "Sub", "Neg", "Sum", "Mean", "Reshape",
     "ExpandDims", "Squeeze", "Tile", "Transpose"}
)  # fmt: skip


def _constant_gradient(op: ops.Operation, index: int) -> bool:
    """Whether ``op``'s gradient with respect to input ``index`` is a constant in TF's
    graph once its incoming gradient is one (grappler's constant folding)."""
    shapes = [op.inputs[index], *op.outputs]
    if not all(t.shape.is_fully_defined() for t in shapes):
        return False  # TF's gradient reads the shapes when it runs
    if op.type in _LINEAR:
        return True
    if op.type == "Mul" and len(op.inputs) == 2:
        return _folds(op.inputs[1 - index])  # the incoming gradient times the other
    return False


def _folds(t: ops.Tensor) -> bool:
    """Whether grappler takes ``t`` as a constant (``shape_values.is_static``)."""
    from adapters.v1.framework import shape_values

    return shape_values.is_static(t)


# Ops whose TF gradient hands an input the op's own incoming gradient, unchanged, when
# the input has the output's shape (by input index; None: every input).
_PASS_THROUGH: dict[str, tuple[int, ...] | None] = {
    "Add": None,
    "AddV2": None,
    "AddN": None,
    "Identity": None,
    "Sub": (0,),
}


def _gradient_name(op: ops.Operation, index: int, names: dict[ops.Tensor, str]) -> str:
    """The name (as TF's ``gradients`` names it) of the gradient ``op`` gives its input
    ``index``: the op's incoming gradient's for a pass-through, else in its scope."""
    through = _PASS_THROUGH.get(op.type, ())
    out = op.outputs[0] if op.outputs else None
    if (
        out is not None
        and (through is None or index in through)
        and op.inputs[index].shape.is_fully_defined()
        and op.inputs[index].shape == out.shape
        and out in names
    ):
        return names[out]
    return f"gradients/{op.name}_grad/{index:04d}"


def _is_float_tensor(t: ops.Tensor) -> bool:
    return t.dtype is not None and t.dtype.is_floating


# Operations holding a computation of their own (tf.while_loop, tf.cond, tf.case) and
# their exits, which XLA does not merge with their differentiated twin.
_CONSTRUCTS = frozenset({"While", "Exit", "Merge", "Case"})


def _recompute(ctx: RunContext, tensors: list[ops.Tensor], user: Any = None) -> list[Any]:
    """Values of ``tensors``, running the operations they need that computed a value
    not in ``ctx.memo``: a control input that ran in the step (an assignment in
    ``control_dependencies``) does not run again in the gradient's recomputation.

    ``user``: ``(overrides, step context)``, the ops whose gradient is the user's,
    which run with it (``_Override.run``)."""
    order = execution_order([t.op for t in tensors], set(ctx.memo))
    todo = [op for op in order if any(o not in ctx.memo for o in op.outputs)]
    if user is None:
        ctx.run_ops(todo)
    else:
        overrides, step = user
        for op in todo:
            if op in overrides:
                outs = overrides[op].run(ctx, step, user)
                for t, v in zip(op.outputs, outs, strict=True):
                    ctx.memo.setdefault(t, v)
            else:
                ctx.run_ops([op])
    return [ctx.memo[t] for t in tensors]


class _Override:
    """An op's gradient given by a user's function (``tf.RegisterGradient`` and
    ``gradient_override_map``, ``tf.custom_gradient``), as graph tensors.

    Attributes:
      op: the operation.
      incoming: per output, the tensor standing for its incoming gradient (``None``
        for an output no gradient flows through: an integer one).
      grads: per input, the gradient tensor the function returned, or ``None``.
      externals: tensors of the step the gradient tensors read (other than the op's
        inputs and outputs), and reads of variables made by the function.
    """

    def __init__(self, op, incoming, grads, externals):
        self.op = op
        self.incoming = incoming
        self.grads = grads
        self.externals = externals

    @classmethod
    def build(cls, op: ops.Operation, fn: Callable[..., Any], scope: str) -> _Override:
        """Calls ``fn(op, *incoming gradients)`` once, as TF's backpropagation does.

        Raises:
          ValueError: the function returns a wrong number of gradients, or one whose
            static shape is incompatible with its input's (TF's messages).
        """
        graph = op.graph
        first = len(graph._ops)
        with graph.name_scope(scope), graph.name_scope(f"{op.name}_grad"):
            incoming = [
                _incoming_gradient(graph, t, i) if _trainable(t) else None
                for i, t in enumerate(op.outputs)
            ]
            result = fn(op, *incoming)
        new_ops = graph._ops[first:]
        if not isinstance(result, (list, tuple)):
            result = [result]
        if len(result) != len(op.inputs):
            raise ValueError(
                f'Num gradients {len(result)} generated for op name: "{op.name}"\n'
                f'op: "{op.type}"\n do not match num inputs {len(op.inputs)}'
            )
        grads: list[ops.Tensor | None] = []
        for index, (t, g) in enumerate(zip(op.inputs, result, strict=True)):
            if g is None or not _trainable(t):
                grads.append(None)
                continue
            g = ops.convert_to_tensor(g)
            if not t.shape.is_compatible_with(g.shape):
                raise ValueError(
                    "Incompatible shapes between op input and calculated input gradient. "
                    f"Forward operation: {op.name}. Input index: {index}. "
                    f"Original input shape: {t.shape}. Calculated input gradient shape: "
                    f"{g.shape}"
                )
            grads.append(g)
        own = set(new_ops)
        given = set(op.inputs) | set(op.outputs)
        externals: dict[ops.Tensor, None] = {}
        for new in new_ops:
            if new._reads or new._host is not None:
                externals.update(dict.fromkeys(new.outputs))
            for t in new.inputs:
                if t.op not in own and t not in given:
                    externals[t] = None
        return cls(op, incoming, grads, list(externals))

    def run(self, sub: RunContext, step: RunContext, user: Any) -> tuple[Any, ...]:
        """The op's outputs in the gradient's recomputation ``sub``: its computation,
        with the gradient tensors (evaluated from ``step``'s values) as its backward
        rule."""
        from adapters.v1.framework import auto_mixed_precision

        op = self.op
        compute = auto_mixed_precision.wrap(op.type, op._compute)
        ins = tuple(sub.memo[t] for t in op.inputs)
        ext = tuple(_recompute(sub, self.externals, user))

        @jax.custom_vjp
        def call(ins, ext):
            outer, sub.op = sub.op, op
            try:
                return tuple(compute(sub, *ins))
            finally:
                sub.op = outer

        def fwd(ins, ext):
            outs = call(ins, ext)
            return outs, (ins, outs, ext)

        def bwd(res, cts):
            ins, outs, ext = res
            memo = dict(step.memo)
            memo.update(zip(op.inputs, ins, strict=True))
            memo.update(zip(op.outputs, outs, strict=True))
            memo.update(zip(self.externals, ext, strict=True))
            for t, c in zip(self.incoming, cts, strict=True):
                if t is not None:
                    memo[t] = _tf_gradient(c)  # the user's function takes TF's gradient
            back = RunContext(dict(step.variables), memo, True, step.initialized, step.fed)
            wanted = [g for g in self.grads if g is not None]
            values = iter(_recompute(back, wanted))
            out = []
            for g, v in zip(self.grads, ins, strict=True):
                if g is None:
                    out.append(None)
                else:
                    g = jnp.broadcast_to(next(values), jnp.shape(v)).astype(v.dtype)
                    out.append(_tf_gradient(g))  # back to JAX's cotangent
            return tuple(out), tuple(None for _ in ext)

        call.defvjp(fwd, bwd)
        return call(ins, ext)


def _is_complex(value: Any) -> bool:
    return np.dtype(value.dtype).kind == "c"


def _tf_gradient(cotangent: Any) -> Any:
    """TF's gradient for JAX's ``cotangent``, or JAX's cotangent for TF's gradient: the
    conjugate for complex values (TF's gradient of ``|z|**2`` at ``3+4j`` is ``6+8j``,
    JAX's cotangent ``6-8j``), the value itself for real ones."""
    return jnp.conj(cotangent) if _is_complex(cotangent) else cotangent


def _incoming_gradient(graph: ops.Graph, t: ops.Tensor, index: int) -> ops.Tensor:
    """A tensor standing for the gradient arriving at output ``t`` of an op with a
    user's gradient: it has a value only while ``tf.gradients`` evaluates it."""

    def compute(ctx: Any) -> tuple[Any, ...]:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{t.name}'s incoming gradient has a value only inside the gradient "
            "computation of tf.gradients; fetch the gradients instead.",
        )

    op = graph.create_op(
        "GradientInput", f"grad_{index}", compute=compute, output_specs=[(t._shape, t.dtype)]
    )
    return op.outputs[0]


def _overridden_inside(op: ops.Operation) -> ops.Operation | None:
    """An operation with a user's gradient inside ``op``'s bodies (a ``tf.cond`` or
    ``tf.while_loop``, nested ones included), or ``None``."""
    stack = list(getattr(op, "_body_ops", ()))
    while stack:
        inner = stack.pop()
        if inner._gradient_op_type not in (None, inner.type):
            return inner
        stack.extend(getattr(inner, "_body_ops", ()))
    return None


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
