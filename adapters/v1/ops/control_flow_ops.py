"""TF1 control flow: ``tf.cond``, ``tf.case``, ``tf.while_loop``, ``tf.group``, ``tf.Assert``...

A branch or loop body is a Python function that builds graph operations. jtrain
records the operations it builds (a *body*: ``_Body``) and makes the construct
ONE node whose ``compute`` evaluates the body inside ``lax.switch`` or
``lax.while_loop``/``lax.scan`` while the session traces its step program:

- tensors from outside that the body reads (*captured*) are inputs of the node;
- variables the body reads come from the session's ``RunContext``; variables a
  body assigns are carried through the construct and written once after it
  (an ``assign`` in a ``tf.cond`` branch takes effect only if that branch runs);
- as in TF1, only the body operations that its outputs need run;
- host operations (queues, summaries) cannot run in a body (``NotImplementedError``).

``tf.gradients`` differentiates the node's compute (JAX's derivatives of
``lax.switch`` and ``lax.scan``). JAX cannot reverse-differentiate
``lax.while_loop``: a ``tf.while_loop`` with ``maximum_iterations`` is evaluated as
a bounded ``lax.scan`` when differentiated, as is one whose result holds a
loop-carried fixed-size ``tf.TensorArray`` written on every iteration (it cannot
run more iterations than the array has elements: ``tensor_array_ops``); without
either, ``tf.gradients`` raises.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework import dtypes, nest, ops, runtime_checks, tensor_shape
from adapters.v1.framework.op_def import np_dtype
from jtrain import errors

__all__ = [
    "no_op",
    "group",
    "tuple_",
    "with_dependencies",
    "cond",
    "case",
    "switch_case",
    "while_loop",
    "Assert",
]


def no_op(name: str | None = None) -> ops.Operation:
    """An operation that does nothing (only its control dependencies run)."""
    return ops.get_default_graph().create_op("NoOp", name or "NoOp")


def group(*inputs: Any, name: str | None = None) -> ops.Operation:
    """An operation that runs all ``inputs`` (tensors, operations, variables)."""
    flat: list[ops.Operation] = []
    for x in _flatten(inputs):
        op = ops._as_op(x)
        if op not in flat:
            flat.append(op)
    return ops.get_default_graph().create_op("NoOp", name or "group_deps", control_inputs=flat)


def _flatten(items: Any):
    for x in items:
        if isinstance(x, (list, tuple)):
            yield from _flatten(x)
        elif isinstance(x, dict):
            yield from _flatten(list(x.values()))
        elif x is not None:
            yield x


def with_dependencies(
    dependencies: Sequence[Any], output_tensor: Any, name: str | None = None
) -> ops.Tensor:
    """``output_tensor``'s value, computed only after ``dependencies`` ran."""
    from adapters.v1.ops.array_ops import identity

    with ops.name_scope(name, "control_dependency", [output_tensor]) as scope:
        with ops.control_dependencies(dependencies):
            return identity(output_tensor, name=scope)


def tuple_(
    tensors: Sequence[Any], name: str | None = None, control_inputs: Sequence[Any] | None = None
) -> list[Any]:
    """``tf.tuple``: the tensors, each available only after all of them are computed.

    Args:
      tensors: tensors (``None`` entries stay ``None``).
      name: the name scope (default ``"tuple"``).
      control_inputs: more operations to wait for.

    Returns:
      A list of tensors named ``tuple/control_dependency``, ``..._1``...
    """
    from adapters.v1.ops.array_ops import identity

    tensors = list(tensors)
    with ops.name_scope(name, "tuple", [t for t in tensors if t is not None]):
        deps = [t for t in tensors if t is not None] + list(control_inputs or [])
        gate = group(*deps)
        out = []
        with ops.control_dependencies([gate]):
            for t in tensors:
                out.append(None if t is None else identity(t, name="control_dependency"))
        return out


# -- bodies ---------------------------------------------------------------------------
def _is_tensor(value: Any) -> bool:
    return isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")


def flatten(structure: Any) -> tuple[list[Any], Any]:
    """``(leaves, PyTreeDef)`` of a body's structure: tensors, operations, ``None`` are
    leaves (``nest.flatten(..., pytree=True)``: JAX's container rules, see there)."""
    return nest.flatten(structure, pytree=True)


def assert_same_structure(first: Any, second: Any) -> None:
    """Raises TF's ``ValueError`` when two structures differ."""
    a, b = flatten(first)[1], flatten(second)[1]
    if a != b:
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {first}\n\nSecond structure: {second}"
        )


def parameters(specs: Sequence[tuple[Any, Any]], name: str = "Identity") -> list[ops.Tensor]:
    """Tensors standing for a body's arguments (loop variables, scanned elements)."""
    graph = ops.get_default_graph()
    return [graph.create_op("Identity", name, output_specs=[spec]).outputs[0] for spec in specs]


_building = threading.local()


def building_body() -> bool:
    """Whether a branch or loop body is being built (its ops run inside the program)."""
    return getattr(_building, "depth", 0) > 0


def build(fn: Callable[[], Any]) -> tuple[Any, list[ops.Operation]]:
    """Calls ``fn`` and returns what it returned and the operations it created."""
    graph = ops.get_default_graph()
    start = len(graph._ops)
    _building.depth = getattr(_building, "depth", 0) + 1
    try:
        result = fn()
    finally:
        _building.depth -= 1
    return result, graph._ops[start:]


class _Body:
    """The operations of one branch or loop body, and how to evaluate them.

    Args:
      kind: the construct (``"cond"``, ``"while_loop"``...), for messages.
      created: every operation created while building the body.
      params: the body's argument tensors (values given on each evaluation).
      outputs: the tensors the body returns.
      targets: operations the body returns (they run for their effects).
      reread: variables whose plain read (the variable used as a tensor, its
        ``value()``) the body takes anew on each evaluation instead of once per run:
        those a loop writes, so that each iteration reads the value the iteration
        before left, as TF's loop does.
    """

    def __init__(
        self,
        kind: str,
        created: list[ops.Operation],
        params: Sequence[ops.Tensor],
        outputs: Sequence[ops.Tensor],
        targets: Sequence[ops.Operation] = (),
        reread: Collection[Any] = (),
    ):
        inner: set[ops.Operation] = set()
        for op in created:
            inner.update(getattr(op, "_owned_ops", ()))
        # A variable created in the body (tf.layers inside a branch) keeps its per-run
        # read (``value()``) outside: gradients with respect to it reach the node.
        members = {op for op in created if op not in inner and not _is_snapshot(op)}
        for v in reread:
            snapshot = getattr(v, "_snapshot", None)
            if snapshot is not None:
                members.add(snapshot.op)
        self.params = list(params)
        self.outputs = list(outputs)
        self.order = _order([t.op for t in outputs] + list(targets), members)
        self.captured: list[ops.Tensor] = []
        self.controls: list[ops.Operation] = []
        self.reads: list[Any] = []
        self.writes: list[Any] = []
        param_set = set(self.params)
        for t in [t for op in self.order for t in op.inputs] + self.outputs:
            if t.op not in members and t not in param_set and t not in self.captured:
                self.captured.append(t)
        for op in self.order:
            if op._host is not None:
                raise NotImplementedError(
                    f"tf.{kind}: the operation {op.name} (type {op.type}) runs on the host, "
                    f"outside the step program, and cannot run inside a {kind} body; build it "
                    "outside the body and pass its value in."
                )
            for c in op.control_inputs:
                if c not in members and c not in self.controls:
                    self.controls.append(c)
            for v in op._reads:
                if v not in self.reads:
                    self.reads.append(v)
            for v in op._writes:
                if v not in self.writes:
                    self.writes.append(v)
        self.gradient_error = next(
            (e for op in self.order if (e := getattr(op, "_gradient_error", None))), None
        )

    def run(
        self,
        ctx: Any,
        values: dict,
        written: list[Any],
        var_vals: Sequence[Any],
        reads: dict | None = None,
        overrides: dict | None = None,
    ):
        """The body's output values and the written variables' new values.

        ``values`` maps captured and parameter tensors to their values. With
        ``reads`` (TensorArray read counts a loop carries, see ``tensor_array_ops``)
        the body starts from them and their new values are returned third.
        ``overrides`` computes some operations in place of their own computation.
        """
        from adapters.v1.client.session import RunContext

        variables = dict(ctx.variables)
        variables.update(zip(written, var_vals, strict=True))
        memo = {t: values[t] for t in self.captured + self.params}
        sub = RunContext(variables, memo, ctx.frozen, ctx.initialized, ctx.fed)
        # A gradient's replay of the construct's forward run (see ``_entry_values``):
        # its random ops draw at the forward run's positions and move them on.
        sub.replaying = ctx.frozen and (
            getattr(ctx, "replaying", False) or ctx.op in getattr(ctx, "construct_entries", {})
        )
        if reads is not None:
            sub._tensor_array_reads = dict(reads)
        if overrides:
            sub.overrides = overrides
        sub.run_ops(self.order)
        outs = [memo[t] for t in self.outputs], [variables[v] for v in written]
        if reads is None:
            return outs
        return (*outs, sub._tensor_array_reads)


def _is_snapshot(op: ops.Operation) -> bool:
    var = op._read_of
    return var is not None and getattr(var, "_snapshot", None) is op.outputs[0]


def _order(targets: list[ops.Operation], members: set[ops.Operation]) -> list[ops.Operation]:
    """``targets`` and the member operations they need, dependencies first."""
    order: list[ops.Operation] = []
    done: set[ops.Operation] = set()
    for target in targets:
        if target not in members or target in done:
            continue
        stack = [(target, iter(_member_deps(target, members)))]
        done.add(target)
        while stack:
            op, deps = stack[-1]
            nxt = next(deps, None)
            if nxt is None:
                stack.pop()
                order.append(op)
            elif nxt not in done:
                done.add(nxt)
                stack.append((nxt, iter(_member_deps(nxt, members))))
    return order


def _member_deps(op: ops.Operation, members: set[ops.Operation]) -> list[ops.Operation]:
    deps = [c for c in op.control_inputs if c in members]
    return deps + [t.op for t in op.inputs if t.op in members]


def node(
    op_type: str,
    name: str,
    bodies: Sequence[_Body],
    created: list[ops.Operation],
    extra_inputs: Sequence[ops.Tensor],
    output_specs: Sequence[tuple[Any, Any]],
    compute: Callable[..., tuple[Any, ...]],
) -> ops.Operation:
    """The one node of a control-flow construct.

    Its inputs are ``extra_inputs`` then the bodies' captured tensors;
    ``compute(ctx, extra values, {captured tensor: value}, written variables)``
    returns the outputs. It declares the bodies' variable effects.
    """
    captured: list[ops.Tensor] = []
    controls: list[ops.Operation] = []
    reads: list[Any] = []
    written: list[Any] = []
    for body in bodies:
        captured += [t for t in body.captured if t not in captured]
        controls += [c for c in body.controls if c not in controls]
        reads += [v for v in body.reads if v not in reads]
        written += [v for v in body.writes if v not in written]
    n_extra = len(extra_inputs)

    def run(ctx: Any, *values: Any) -> tuple[Any, ...]:
        known = dict(zip(captured, values[n_extra:], strict=True))
        return compute(ctx, values[:n_extra], known, written)

    op = ops.get_default_graph().create_op(
        op_type,
        name,
        inputs=list(extra_inputs) + captured,
        compute=run,
        output_specs=output_specs,
        control_inputs=controls,
    )
    op._reads = tuple(reads + [v for v in written if v not in reads])
    op._writes = tuple(written)
    op._owned_ops = tuple(created)
    op._body_ops = tuple(o for body in bodies for o in body.order)
    runtime_checks.mark_body(op, op._body_ops)
    gradient_error = next((b.gradient_error for b in bodies if b.gradient_error), None)
    if gradient_error:
        op._gradient_error = gradient_error
    return op


def _entry_values(ctx: Any, written: list[Any]) -> list[Any]:
    """The values of the variables a construct writes (random ops' stream positions
    included) when it starts.

    The forward run records them on ``ctx`` (``construct_entries``, by operation); a
    gradient's re-evaluation of the construct (a frozen ``ctx``, after the run's
    writes) starts from them and replays the forward run: TF's gradient uses the
    draws of the forward pass, one stream position per iteration. Inside a replay
    (``ctx.replaying``, a replayed body) the values are the replay's own.
    """
    values = [ctx.read(v) for v in written]
    op = ctx.op
    if op is None or getattr(ctx, "replaying", False):
        return values
    entries = getattr(ctx, "construct_entries", None)
    if not ctx.frozen:
        if entries is None:
            entries = ctx.construct_entries = {}
        entries[op] = values
        return values
    if entries is not None and op in entries:
        return list(entries[op])
    return values


def _write_back(ctx: Any, written: list[Any], values: Sequence[Any]) -> None:
    if ctx.frozen:  # a gradient's re-evaluation keeps the run's variable values
        if getattr(ctx, "replaying", False):
            # a replayed body's construct: the replay's next operations see them
            ctx.variables.update(zip(written, values, strict=True))
        return
    for v, value in zip(written, values, strict=True):
        ctx.write(v, value)


def _exits(op: ops.Operation, op_type: str, name: str, first: int = 1) -> list[ops.Tensor]:
    """The outputs of a construct's node under TF's tensor names.

    TF's classic control flow ends a loop in one ``Exit`` node per loop variable
    (``while/Exit:0``, ``while/Exit_1:0``...) and a ``cond`` in one ``Merge`` node per
    output (``cond/Merge:0``, ``cond/Merge_1:0``...); jtrain computes them in one
    node (``op``, named ``while/Exit``, ``cond/Merge``). Its outputs from ``first``
    on pass through nodes of TF's type and names (an identity, free in the step's
    program), so that ``graph.get_tensor_by_name``, savers and meta graphs see TF's
    names. ``first`` is 0 where TF's first ``Exit`` is not a loop variable (the
    iteration counter of a loop with ``maximum_iterations``)."""
    outs = list(op.outputs[:first])
    for t in op.outputs[first:]:
        exit_op = op.graph.create_op(
            op_type,
            name,
            inputs=[t],
            compute=lambda ctx, value: (value,),
            output_specs=[(t._shape, t.dtype)],
        )
        outs.append(exit_op.outputs[0])
    return outs


def merged_shape(shapes: Sequence[Any]) -> Any:
    """The most specific shape compatible with all ``shapes`` (tuples; ``None``: unknown rank)."""
    result = tensor_shape.TensorShape(shapes[0])
    for s in shapes[1:]:
        result = result.most_specific_compatible_shape(tensor_shape.TensorShape(s))
    return result._dims


# -- cond and case ----------------------------------------------------------------------
def _branch_outputs(result: Any, fn_name: str) -> tuple[Any, list[Any]]:
    """Structure and leaves of a branch result; Python values become tensors."""
    if result is None:
        raise ValueError(f"'{fn_name}' must have a return value.")
    leaves, tree = flatten(result)
    out = []
    for leaf in leaves:
        if leaf is None or isinstance(leaf, ops.Operation):
            out.append(leaf)
        else:
            out.append(ops.convert_to_tensor(leaf))
    return tree, out


def _switch(
    kind: str,
    index_fn: Callable[..., Any],
    index_inputs: list[ops.Tensor],
    fns: list[tuple[str, Callable[[], Any]]],
    strict: bool,
    scope_name: str,
    checks: Callable[[Any, ops.Operation, Any], None] | None = None,
    check_messages: Sequence[Callable[..., Any]] = (),
    static_index: int | None = None,
) -> Any:
    """One node evaluating the branch ``index_fn(*index_inputs)`` (``lax.switch``).

    With ``static_index`` (a constant predicate) only that branch is evaluated, and
    the branches may return different static shapes, as in TF.
    """
    results, created = [], []
    bodies_leaves = []
    structure = None
    for fn_name, fn in fns:
        result, made = build(fn)
        created += made
        tree, leaves = _branch_outputs(result, fn_name)
        if structure is None:
            structure, first_result = tree, result
        elif tree != structure:
            assert_same_structure(first_result, result)
        results.append(result)
        bodies_leaves.append(leaves)
    first_name = fns[0][0]
    specs = []
    for i in range(len(bodies_leaves[0])):
        column = [leaves[i] for leaves in bodies_leaves]
        if any(isinstance(t, ops.Operation) for t in column):
            specs.append(((), np.dtype(bool)))  # TF: an operation's output is the predicate
            continue
        if any(t is None for t in column):
            specs.append(None)
            continue
        for fn_name, t in zip([f[0] for f in fns], column, strict=True):
            if t.dtype != column[0].dtype:
                raise ValueError(
                    f"Outputs of '{first_name}' and '{fn_name}' must have the same type(s). "
                    f"Received {column[0].dtype.name} from '{first_name}' and {t.dtype.name} "
                    f"from '{fn_name}'."
                )
        shapes = [t._shape for t in column]
        known = all(s is not None and None not in s for s in shapes)
        if static_index is None and known and len(set(shapes)) > 1:
            raise NotImplementedError(
                f"tf.{kind} '{scope_name}': output {i} has shape {shapes[0]} in "
                f"'{first_name}' and {shapes[1:]} in the other branches; jtrain compiles "
                "one program with static shapes, so every branch must return the same shape "
                "(pad or reshape the outputs to a common shape)."
            )
        specs.append((merged_shape(shapes), column[0].dtype))
    bodies = [
        _Body(
            kind,
            created,
            [],
            [t for t in leaves if isinstance(t, ops.Tensor)],
            [t for t in leaves if isinstance(t, ops.Operation)],
        )
        for leaves in bodies_leaves
    ]
    live = [i for i, s in enumerate(specs) if s is not None]

    def branch(b: int, ctx: Any, known: dict, written: list[Any]):
        body = bodies[b]

        def f(var_vals):
            outs, new_vars = body.run(ctx, known, written, var_vals)
            it = iter(outs)
            values = []
            for i in live:
                leaf = bodies_leaves[b][i]
                dtype = specs[i][1]
                if isinstance(leaf, ops.Operation):
                    values.append(jnp.asarray(b == 0 if kind == "cond" else True))
                else:
                    values.append(jnp.asarray(next(it), np_dtype(dtype)))
            return values, new_vars

        return f

    def compute(ctx: Any, extra: tuple, known: dict, written: list[Any]) -> tuple[Any, ...]:
        index = index_fn(*extra)
        if checks is not None:
            checks(ctx, op, extra)
        var_vals = _entry_values(ctx, written)
        fs = [branch(b, ctx, known, written) for b in range(len(bodies))]
        try:
            if static_index is not None:
                outs, new_vars = fs[static_index](var_vals)
            else:
                outs, new_vars = lax.switch(index, fs, var_vals)
        except TypeError as e:
            raise NotImplementedError(
                f"tf.{kind} '{scope_name}': the branches' outputs differ in shape at run "
                f"time ({e}); jtrain compiles one program with static shapes, so every "
                "branch must return the same shape."
            ) from e
        _write_back(ctx, written, new_vars)
        return tuple(outs)

    # TF's tf.case is a tf.cond (of the chosen branch's index) in the case's scope
    merge = "Merge" if kind == "cond" else "cond/Merge"
    op = node(
        "Merge" if kind == "cond" else "Case",
        merge,
        bodies,
        created,
        index_inputs,
        [specs[i] for i in live],
        compute,
    )
    if checks is not None:
        runtime_checks.mark(op, *[message(op) for message in check_messages])
    outputs = iter(_exits(op, "Merge", merge))
    leaves = [next(outputs) if s is not None else None for s in specs]
    packed = jax.tree.unflatten(structure, leaves)
    if not strict and isinstance(packed, (list, tuple)) and len(packed) == 1:
        packed = packed[0]  # TF: a singleton list or tuple is unpacked unless strict
    return packed


def _predicate(pred: Any, op_name: str) -> ops.Tensor:
    if isinstance(pred, bool):
        raise TypeError("'pred' must not be a Python bool.")
    pred = ops.convert_to_tensor(pred)
    if pred.dtype is None or np_dtype(pred.dtype) != np.bool_:
        name = "unknown" if pred.dtype is None else pred.dtype.name
        raise TypeError(
            f"Input 'pred' of 'Switch' Op has type {name} that does not match expected "
            "type of bool."
        )
    if pred._shape is not None and len(pred._shape) != 0:
        raise ValueError(
            f"Shape must be rank 0 but is rank {len(pred._shape)} for '{op_name}' with input "
            f"shapes: {tensor_shape.TensorShape(pred._shape)}."
        )
    return pred


def cond(
    pred: Any,
    true_fn: Callable[[], Any] | None = None,
    false_fn: Callable[[], Any] | None = None,
    strict: bool = False,
    name: str | None = None,
    fn1: Callable[[], Any] | None = None,
    fn2: Callable[[], Any] | None = None,
) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()``, decided when the step runs.

    Args:
      pred: a scalar ``bool`` tensor (a Python bool is refused, as TF does).
      true_fn: builds the true branch; it and ``false_fn`` return the same
        structure (tensors, Python values, operations; nested tuples/lists/dicts)
        with the same dtypes.
      false_fn: builds the false branch.
      strict: keep a singleton list/tuple result as is (default: unpacked).
      name: the name scope (default ``"cond"``).
      fn1: deprecated name of ``true_fn``.
      fn2: deprecated name of ``false_fn``.

    Returns:
      The taken branch's outputs, in the branches' structure.

    Raises:
      TypeError: ``pred`` is a Python bool or not boolean; a function is not callable.
      ValueError: a branch returns None, or the branches' structures or dtypes differ.
      NotImplementedError: the branches return different static shapes.
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    with ops.name_scope(name, "cond", [pred]) as scope:
        pred = _predicate(pred, scope + "Switch")
        const = pred.op._const_value
        return _switch(
            "cond",
            lambda p: jnp.where(p, 0, 1),
            [pred],
            [("true_fn", true_fn), ("false_fn", false_fn)],
            strict,
            scope.rstrip("/"),
            static_index=None if const is None else (0 if bool(const) else 1),
        )


def case(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """The function of the first true predicate (else ``default``), decided at run time.

    Args:
      pred_fn_pairs: a list of ``(pred, fn)`` pairs (or a dict ``{pred: fn}``).
      default: the function when no predicate is true; without one, the last
        pair's function is the default (TF 2.21 raises no error then).
      exclusive: at run time, more than one true predicate raises
        ``InvalidArgumentError`` (TF's message).
      strict: as ``cond``'s.
      name: the name scope.

    Returns:
      The chosen function's outputs.
    """
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else pred_fn_pairs
    if not isinstance(pairs, (list, tuple)):
        raise TypeError("fns must be a list, tuple, or dict")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple: {pair!r}")
        if not callable(pair[1]):
            label = getattr(pair[0], "name", pair[0])
            raise TypeError(f"fn for pred {label} must be callable.")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    preds = [_predicate(p, "case") for p, _ in pairs]
    fns = [(f"fn {i}", f) for i, (_, f) in enumerate(pairs)]
    if default is None:
        if not fns:
            raise ValueError("pred_fn_pairs must not be empty when default is None")
        default_fn, fns, preds_used = fns[-1][1], fns[:-1], preds[:-1]
    else:
        default_fn, preds_used = default, preds
    names = ", ".join(p.name for p in preds)
    no_default = default is None

    def index(*values: Any) -> Any:
        flags = jnp.stack([jnp.asarray(v, bool) for v in values[: len(preds_used)]] + [True])
        return jnp.argmax(flags)

    def case_checks(ctx: Any, op: ops.Operation, values: tuple) -> None:
        flags = jnp.stack([jnp.asarray(v, bool) for v in values])
        if exclusive:
            runtime_checks.check(ctx, op, jnp.sum(flags.astype(jnp.int32)) <= 1, flags)
        if no_default:  # TF: the last function is the default, guarded by its predicate
            runtime_checks.check(ctx, op, jnp.any(flags), flags, which=1)

    exclusive_message = (
        f"Input error: exclusive=True: more than 1 conditions ({names}) evaluated as True:"
    )
    with ops.name_scope(name, "case", preds) as scope:
        out = _switch(
            "case",
            index,
            preds,
            fns + [("default", default_fn)],
            strict,
            scope.rstrip("/"),
            case_checks if exclusive or no_default else None,
            [
                lambda op: _assert_failure(op, [exclusive_message, None]),
                lambda op: _assert_failure(
                    op, ["Input error: None of conditions evaluated as True:", None]
                ),
            ],
        )
    return out


def switch_case(
    branch_index: Any,
    branch_fns: Any,
    default: Callable[[], Any] | None = None,
    name: str = "switch_case",
) -> Any:
    """The branch ``branch_fns[branch_index]``, chosen when the step runs.

    Args:
      branch_index: an integer scalar tensor (a Python int is refused, as TF does).
      branch_fns: callables: a list or tuple (index k runs the k-th), a dict
        ``{k: fn}`` or a list of ``(k, fn)`` pairs, the keys forming ``0..N-1``.
      default: the function for an index outside ``[0, N)``; without one, the
        last branch runs for such an index (TF's ``Case`` op).
      name: the name scope.

    Returns:
      The chosen branch's outputs, in the branches' structure (a singleton list
      stays a list: TF's functional ``Case`` op).

    Raises:
      TypeError: ``branch_index`` not an int32 tensor (TF's messages: not integer,
        or another integer type); an entry not a 2-tuple or not callable; a key not
        an int.
      ValueError: no branch; keys not ``0..N-1``; branches' structures or dtypes differ.
      NotImplementedError: branches returning different static shapes.
    """
    if not _is_tensor(branch_index):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    branch_index = ops.convert_to_tensor(branch_index)
    if branch_index.dtype is None or not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [p[0] for p in pairs]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but "
            f"found {{{','.join(map(str, sorted(keys)))}}}"
        )
    fns = [(f"branch {k}", fn) for k, fn in sorted(pairs, key=lambda p: p[0])]
    if default is not None:
        fns.append(("default", default))
    n = len(fns)

    def index(i: Any) -> Any:
        i = jnp.asarray(i)
        return jnp.where((i < 0) | (i >= n), n - 1, i).astype(np.int32)

    if branch_index.dtype != dtypes.int32:  # TF's Case op takes an int32 index
        raise TypeError(
            f"Input 'branch_index' of 'StatelessCase' Op has type {branch_index.dtype.name} "
            "that does not match expected type of int32."
        )
    const = branch_index.op._const_value
    static = None
    if const is not None:
        k = int(np.asarray(const))
        static = k if 0 <= k < n else n - 1
    with ops.name_scope(name, "case", [branch_index]) as scope:
        return _switch(
            "switch_case",
            index,
            [branch_index],
            fns,
            True,
            scope.rstrip("/"),
            static_index=static,
        )


# -- while_loop ----------------------------------------------------------------------------
def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
    maximum_iterations: Any = None,
    return_same_structure: bool = False,
) -> Any:
    """Repeats ``body`` while ``cond`` is true, as one ``lax.while_loop`` in the step.

    Args:
      cond: ``cond(*loop_vars) -> scalar bool tensor``.
      body: ``body(*loop_vars) -> new loop_vars`` (same structure and dtypes).
      loop_vars: a tuple/list (nested structures allowed) of tensors or values.
      shape_invariants: per loop variable, a less specific ``TensorShape`` (the
        value's shape must still be the same on every iteration: XLA compiles
        static shapes).
      parallel_iterations: accepted (XLA schedules the loop).
      swap_memory: accepted.
      back_prop: False stops gradients through the loop.
      name: the name scope (default ``"while"``).
      maximum_iterations: an int (or int32 scalar tensor) bounding the
        iterations; needed for ``tf.gradients`` through the loop.
      return_same_structure: always return ``loop_vars``' structure (default:
        a single loop variable is returned bare).

    Returns:
      The loop variables after the last iteration.

    Raises:
      TypeError: ``cond`` or ``body`` is not callable.
      ValueError: no loop variables; ``body`` returns another structure; a loop
        variable's shape changes without a ``shape_invariants`` entry (TF's message).
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    if loop_vars is None or (isinstance(loop_vars, (list, tuple, dict)) and not loop_vars):
        raise ValueError("No loop variables provided")
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError(
            f"tf.while_loop: loop_vars must be a tuple or list of loop variables, got "
            f"{loop_vars!r} (TF iterates over it: write [loop_var])."
        )
    leaves, structure = flatten(list(loop_vars))
    if shape_invariants is not None:
        inv_leaves, inv_structure = jax.tree.flatten(
            list(shape_invariants)
            if isinstance(shape_invariants, (list, tuple))
            else [shape_invariants],
            is_leaf=lambda s: s is None or isinstance(s, tensor_shape.TensorShape),
        )
        inv_leaves = _tensor_array_invariants(loop_vars, inv_leaves)
        if len(inv_leaves) != len(leaves):
            raise ValueError(
                "The two structures don't have the same nested structure: loop_vars and "
                "shape_invariants"
            )
    else:
        inv_leaves = [None] * len(leaves)
    with ops.name_scope(name, "while", [v for v in leaves if _is_tensor(v)]) as scope:
        loop_name = scope.rstrip("/")
        tensors = [ops.convert_to_tensor(v) for v in leaves]
        limit = None
        if maximum_iterations is not None:
            limit = ops.convert_to_tensor(maximum_iterations)
            if limit._shape is not None and len(limit._shape) != 0:
                raise ValueError("maximum_iterations must be a scalar")
        shapes = []
        for t, inv in zip(tensors, inv_leaves, strict=True):
            shape = t._shape if inv is None else tensor_shape.as_shape(inv)._dims
            if inv is not None and not tensor_shape.TensorShape(t._shape).is_compatible_with(
                tensor_shape.as_shape(inv)
            ):
                raise ValueError(
                    f"The shape invariant specified for {t.name} is not compatible with the "
                    f"initial shape of the loop variable. It enters the loop with shape "
                    f"{t.shape}, but the specified shape invariant is {tensor_shape.as_shape(inv)}."
                )
            shapes.append(shape)

        def make() -> tuple[list[ops.Tensor], Any, Any]:
            params = parameters([(s, t.dtype) for s, t in zip(shapes, tensors, strict=True)])
            packed = jax.tree.unflatten(structure, params)
            c = cond(*packed)
            b = body(*packed)
            return params, c, b

        (params, c, b), created = build(make)
        c = ops.convert_to_tensor(c)
        if c.dtype is None or np_dtype(c.dtype) != np.bool_ or (c._shape not in (None, ())):
            raise TypeError(
                f"tf.while_loop '{loop_name}': cond must return a scalar bool tensor, got {c!r}"
            )
        given = _pack_like(loop_vars, jax.tree.unflatten(structure, params))
        if maximum_iterations is not None:
            # TF runs (counter, loop_vars) with body (i + 1, body(*loop_vars)): the
            # body's result must have loop_vars' very structure (a lone loop variable,
            # return_same_structure False, compared bare).
            lone = len(loop_vars) == 1 and not return_same_structure
            _same_structure(given[0] if lone else given, b)
            if lone and not isinstance(b, (list, tuple)):
                b = [b]
            top: Any = loop_vars
        else:
            if not isinstance(b, (list, tuple)):
                b = [b]  # TF: a bare result is wrapped in a list
            # TF compares list(loop_vars) with list(body's result), and packs what the
            # loop returns as the body's result: a tuple for a list is fine.
            _same_structure(list(given), list(b))
            top = b
        b = list(b)
        outs = [ops.convert_to_tensor(o) for o in flatten(list(b))[0]]
        for p, t, o in zip(params, tensors, outs, strict=True):
            if o.dtype != p.dtype:
                raise ValueError(
                    f"tf.while_loop '{loop_name}': the loop variable {t.name} enters the loop "
                    f"as {p.dtype.name} but body returns {o.dtype.name}."
                )
            if not tensor_shape.TensorShape(p._shape).is_compatible_with(o.shape):
                raise ValueError(
                    f"Input tensor '{t.name}' enters the loop with shape {t.shape}, but has "
                    f"shape {o.shape} after one iteration. To allow the shape to vary across "
                    "iterations, use the `shape_invariants` argument of tf.while_loop to "
                    "specify a less-specific shape."
                )
        cond_body = _Body("while_loop", created, params, [c])
        loop_body = _Body("while_loop", created, params, outs)
        # A variable the loop writes is read anew by each iteration (and each test of
        # ``cond``), not once before the loop.
        looped = [v for v in loop_body.writes + cond_body.writes if v is not None]
        if looped:
            cond_body = _Body("while_loop", created, params, [c], reread=looped)
            loop_body = _Body("while_loop", created, params, outs, reread=looped)
        static_limit = None if limit is None else limit.op._const_value
        from adapters.v1.ops import tensor_array_ops

        tensor_array_ops.bound_loop(
            loop_vars, None if static_limit is None else int(np.asarray(static_limit))
        )
        # A loop writing a loop-carried TensorArray of fixed size N on every iteration
        # runs at most N iterations (TF fails any further write): a bounded scan.
        implied = tensor_array_ops.implied_bound(loop_body.order, params, outs)
        cleared = tensor_array_ops.cleared_reads(loop_body.order)
        buffers = [k for k, t in enumerate(tensors) if tensor_array_ops.is_buffer(t)]
        if limit is None and implied:
            error = None
        elif limit is None:
            error = (
                f"tf.gradients through tf.while_loop '{loop_name}': JAX cannot "
                "reverse-differentiate an unbounded loop; pass maximum_iterations=N to the "
                "while_loop (it is then differentiated as a bounded scan)."
            )
        elif static_limit is None:
            error = (
                f"tf.gradients through tf.while_loop '{loop_name}': maximum_iterations must be "
                "a Python int or a constant to differentiate the loop (a bounded scan)."
            )
        else:
            error = None
        n_out = len(outs)

        def compute(ctx: Any, extra: tuple, known: dict, written: list[Any]) -> tuple[Any, ...]:
            dtypes_ = [np_dtype(t.dtype) for t in tensors]

            def run_cond(loop: list[Any], var_vals: list[Any]) -> Any:
                values = dict(known)
                values.update(zip(params, loop[:n_out], strict=True))
                (ok,), _ = cond_body.run(ctx, values, written, var_vals)
                return jnp.asarray(ok, bool)

            def run_body(loop: list[Any], var_vals: list[Any]):
                values = dict(known)
                values.update(zip(params, loop[:n_out], strict=True))
                reads = dict(zip(cleared, loop[n_out:], strict=True))
                new, new_vars, reads = loop_body.run(ctx, values, written, var_vals, reads)
                new = [jnp.asarray(v, d) for v, d in zip(new, dtypes_, strict=True)]
                return new + [reads[r] for r in cleared], new_vars

            init = [jnp.asarray(v, d) for v, d in zip(extra[:n_out], dtypes_, strict=True)]
            var_vals = _entry_values(ctx, written)
            try:
                if buffers and any(jnp.ndim(init[k]) == 0 for k in buffers):
                    init = _made_buffers(ctx, loop_body, params, known, written, init, var_vals)
                # reads of arrays with clear_after_read, counted across iterations
                init += [tensor_array_ops.read_counts(ctx, r) for r in cleared]
                scan_length = static_limit
                if ctx.frozen and scan_length is None and limit is None and implied:
                    scan_length = tensor_array_ops.bound_of(ctx, implied)
                if ctx.frozen and scan_length is not None:
                    loop, new_vars = _bounded(run_cond, run_body, init, var_vals, int(scan_length))
                else:
                    bound = None if limit is None else extra[n_out]
                    loop, new_vars = _unbounded(run_cond, run_body, init, var_vals, bound)
            except TypeError as e:
                if "body_fun output and input must have identical types" not in str(e):
                    raise
                raise NotImplementedError(
                    f"tf.while_loop '{loop_name}': a loop variable changes shape between "
                    f"iterations ({e}); jtrain compiles one program with static shapes."
                ) from e
            tensor_array_ops.set_read_counts(ctx, dict(zip(cleared, loop[n_out:], strict=True)))
            loop = loop[:n_out]
            if not back_prop:
                loop = [lax.stop_gradient(v) for v in loop]
            _write_back(ctx, written, new_vars)
            return tuple(loop)

        op = node(
            "While",
            "Exit",
            [cond_body, loop_body],
            created,
            tensors + ([limit] if limit is not None else []),
            [(s, t.dtype) for s, t in zip(shapes, tensors, strict=True)],
            compute,
        )
        if error is not None and back_prop:
            op._gradient_error = error
        exits = _exits(op, "Exit", "Exit", first=1 if limit is None else 0)
    packed = _pack_like(top, jax.tree.unflatten(structure, exits))
    if not return_same_structure and _exit_count(packed) == 1:
        return packed[0]  # TF: one loop variable's value, in its structure
    return packed


def _exit_count(packed: Any) -> int:
    """How many exits TF's loop has: a tensor each, a TensorArray one (its flow)."""
    from adapters.v1.ops.tensor_array_ops import TensorArray

    return len(
        jax.tree.leaves(packed, is_leaf=lambda x: isinstance(x, TensorArray) or nest.is_leaf(x))
    )


def _tensor_array_invariants(loop_vars: Any, inv_leaves: list[Any]) -> list[Any]:
    """``shape_invariants``' leaves with a TensorArray's entry (TF checks it against
    the array's scalar flow) standing for the array's state tensors, unconstrained."""
    from adapters.v1.ops.tensor_array_ops import TensorArray

    outer = jax.tree.leaves(
        list(loop_vars), is_leaf=lambda x: isinstance(x, TensorArray) or nest.is_leaf(x)
    )
    if len(outer) != len(inv_leaves) or not any(isinstance(x, TensorArray) for x in outer):
        return inv_leaves
    out: list[Any] = []
    for var, inv in zip(outer, inv_leaves, strict=True):
        if isinstance(var, TensorArray):
            out += [None] * len(jax.tree.leaves(var, is_leaf=nest.is_leaf))
        else:
            out.append(inv)
    return out


def _made_buffers(
    ctx: Any,
    body: _Body,
    params: list[ops.Tensor],
    known: dict,
    written: list[Any],
    init: list[Any],
    var_vals: list[Any],
) -> list[Any]:
    """``init`` with the buffers of TensorArrays not written yet (scalars) made, of the
    shape one iteration of ``body`` writes (its shapes evaluated, nothing run)."""
    from adapters.v1.client.session import RunContext
    from adapters.v1.ops import tensor_array_ops

    # frozen: no run-time checks and no variable writes while only shapes are traced
    shapes_ctx = RunContext(ctx.variables, ctx.memo, True, ctx.initialized, ctx.fed)

    def one(loop: list[Any], vv: list[Any]) -> list[Any]:
        values = dict(known)
        values.update(zip(params, loop, strict=True))
        return body.run(shapes_ctx, values, written, vv)[0]

    shapes = jax.eval_shape(one, init, var_vals)
    buffers = [k for k, p in enumerate(params) if tensor_array_ops.is_buffer(p)]
    return tensor_array_ops.materialize(init, buffers, shapes)


def _same_structure(given: Any, returned: Any) -> None:
    """TF's ``nest.assert_same_structure`` of the loop variables and the body's result.

    Raises:
      ValueError: they nest differently.
      TypeError: they nest alike, with a list where the other has a tuple.
    """
    if flatten(given)[1] == flatten(returned)[1]:
        return
    untyped = flatten(_as_tuples(given))[1] == flatten(_as_tuples(returned))[1]
    raise (TypeError if untyped else ValueError)(
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: {given}\n\nSecond structure: {returned}"
    )


def _as_tuples(value: Any) -> Any:
    """``value`` with every list and tuple (not namedtuple) a tuple."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return tuple(_as_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_tuples(v) for k, v in value.items()}
    return value


def _pack_like(loop_vars: Any, items: list[Any]) -> Any:
    """``items`` (a list) in the sequence type of ``loop_vars`` (list, tuple, namedtuple)."""
    if isinstance(loop_vars, tuple):
        return type(loop_vars)(*items) if hasattr(loop_vars, "_fields") else tuple(items)
    return items


def _unbounded(run_cond, run_body, init, var_vals, bound):
    def cond_fun(carry):
        i, loop, vv = carry
        ok = run_cond(loop, vv)
        return ok if bound is None else ok & (i < bound)

    def body_fun(carry):
        i, loop, vv = carry
        loop, vv = run_body(loop, vv)
        return i + 1, loop, vv

    start = jnp.zeros((), np.int32 if bound is None else jnp.asarray(bound).dtype)
    _, loop, vv = lax.while_loop(cond_fun, body_fun, (start, init, var_vals))
    return loop, vv


def _bounded(run_cond, run_body, init, var_vals, length: int):
    """The loop as a ``lax.scan`` of ``length`` steps (reverse-differentiable)."""

    def step(carry, _):
        loop, vv, done = carry
        go = jnp.logical_and(jnp.logical_not(done), run_cond(loop, vv))
        loop, vv = lax.cond(
            go, lambda a: run_body(*a), lambda a: (list(a[0]), list(a[1])), (loop, vv)
        )
        return (loop, vv, jnp.logical_not(go)), None

    (loop, vv, _), _ = lax.scan(step, (init, var_vals, jnp.asarray(False)), None, length=length)
    return loop, vv


# -- Assert -------------------------------------------------------------------------------
def _assert_failure(op: ops.Operation, parts: list[Any], summarize: int | None = None):
    """The error builder of an assertion: ``parts`` are strings, or None for a data value."""
    from adapters.v1.ops.logging_ops import summarize_value

    n = 3 if summarize is None else summarize

    def failure(*values: Any) -> errors.OpError:
        it = iter(values)
        texts = [p if isinstance(p, str) else summarize_value(next(it), n) for p in parts]
        return errors.InvalidArgumentError(
            None, op, "assertion failed: " + " ".join(f"[{t}]" for t in texts)
        )

    return failure


def Assert(  # noqa: N802 - TF's name
    condition: Any, data: Sequence[Any], summarize: int | None = None, name: str | None = None
) -> ops.Operation:
    """``tf.Assert``: an operation that fails the run when ``condition`` is False.

    Args:
      condition: a scalar bool tensor.
      data: strings and tensors printed in the error (``[value]`` each).
      summarize: elements printed per tensor (default 3).
      name: the name scope (default ``"Assert"``).

    Returns:
      The assert ``Operation`` (run it, or make it a control dependency).

    Raises:
      InvalidArgumentError (at run time): ``"assertion failed: [..] [..]"``.
    """
    with ops.name_scope(name, "Assert", [condition]):
        condition = ops.convert_to_tensor(condition)
        if condition.dtype is None or np_dtype(condition.dtype) != np.bool_:
            raise TypeError(f"Assert condition must be a bool tensor, got {condition!r}")
        parts: list[Any] = []
        tensors: list[ops.Tensor] = []
        for d in data:
            from adapters.v1.ops.logging_ops import summarize_value

            if isinstance(d, (str, bytes)):  # a string constant of TF's, printed escaped
                parts.append(summarize_value(np.asarray(d, dtype=object)))
                continue
            t = ops.convert_to_tensor(d)
            const = t.op._const_value
            if const is None:
                const = getattr(t.op, "_host_value", None)  # a string constant
            if const is not None and np.asarray(const).dtype.kind in "OSU":
                parts.append(summarize_value(const, 3 if summarize is None else summarize))
            else:
                parts.append(None)
                tensors.append(t)

        def compute(ctx: Any, ok: Any, *values: Any) -> tuple[Any, ...]:
            runtime_checks.check(ctx, op, jnp.all(ok), *values)
            return ()

        op = ops.get_default_graph().create_op(
            "Assert", "Assert", inputs=[condition] + tensors, compute=compute
        )
        runtime_checks.mark(op, _assert_failure(op, parts, summarize))
    return op
