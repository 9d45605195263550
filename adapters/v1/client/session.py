"""``tf.compat.v1.Session``: runs the part of a graph that fetches need, as one XLA program.

``Session.run(fetches, feed_dict)`` plans once per fetch structure, feed
signature and set of initialized variables: it orders the operations the
fetches need (data and control dependencies), then traces them into one pure
function ``(written variable values, read variable values, feeds) -> (new
variable values, fetched values)`` compiled with ``jax.jit``. The buffers of
variables the step writes are donated, so an update happens in place. Fetched
values come back as NumPy arrays in the structure of ``fetches``.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np

from adapters.v1.client import _replicas, data_parallel, sized_programs
from adapters.v1.client.session_config import check_config, timeout_ms
from adapters.v1.client.step_stats import StepStatsCollector, fill_run_metadata, traced
from adapters.v1.client.variable_store import VariableStore
from adapters.v1.framework import (
    _x64,
    auto_mixed_precision,
    data_sizes,
    dtypes,
    nest,
    ops,
    runtime_checks,
    shape_errors,
)
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops.data_flow_ops import blocking_deadline
from jtrain import errors, xla_options
from jtrain._numerics import fan_out, given_uses
from jtrain._threads import alone_but_idle_waiters

__all__ = ["Session", "InteractiveSession", "get_default_session"]


# -- evaluation context (used while tracing) -------------------------------------
class RunContext:
    """Variable values and computed tensors while one ``run`` is traced.

    Operations call ``read``/``write`` for variables; ``value(t)`` gives the value of
    an input tensor that was computed (or fed) earlier in the run.

    An operation's effects are declared in one place, its ``_reads`` and ``_writes``:
    the session plans the step's inputs, donations and outputs from them. A ``read``
    or ``write`` of a variable the running operation did not declare raises
    ``InvalidArgumentError`` naming both (the graph is malformed, as TF reports an
    invalid graph), instead of reading a value the plan did not provide or writing one
    the step would not store.
    """

    def __init__(
        self,
        variables: dict[Any, Any],
        memo: dict[ops.Tensor, Any],
        frozen: bool = False,
        initialized: frozenset = frozenset(),
        fed: frozenset | None = None,
    ):
        self.variables = variables
        self.memo = memo
        self.frozen = frozen  # a gradient's re-evaluation may not assign
        self.initialized = initialized  # variables with a value in the session
        # The tensors the run fed (None: not known here); a placeholder_with_default
        # not among them computes its default.
        self.fed = fed
        self.op: ops.Operation | None = None  # the operation computing now
        # A gradient's re-evaluation: tensors whose uses each read a copy of their own
        # (``jtrain._numerics.fan_out``: the uses' gradients added in TF's order), by
        # tensor: (the copy of each (consumer, input index), TF's order of the copies). A
        # consumer with uses of the input inside it (``Operation._inner_uses``) has a
        # tuple of copies there, which its computation takes (``jtrain._numerics.uses``).
        self.fan_outs: dict[
            ops.Tensor, tuple[dict[tuple[Any, int], int | tuple[int, ...]], tuple[int, ...]]
        ] = {}
        self._copies: dict[ops.Tensor, tuple[Any, ...]] = {}
        # Computations standing in for some operations' own (``ops.rnn``'s deferred
        # kernel products), by operation.
        self.overrides: dict[ops.Operation, Any] = {}

    def _undeclared(self, var: Any, effect: str, declared: tuple) -> None:
        op = self.op
        if op is not None and var not in declared:
            raise errors.InvalidArgumentError(
                None,
                op,
                f"Operation '{op.name}' (type {op.type}) {effect} variable {var.op.name}, "
                f"which it does not declare: add the variable to the operation's "
                f"{'_writes' if effect == 'writes' else '_reads'} where it is created.",
            )

    def read(self, var: Any) -> Any:
        op = self.op
        if op is not None:
            self._undeclared(var, "reads", op._reads + op._writes)
        try:
            return self.variables[var]
        except KeyError:
            raise errors.FailedPreconditionError(
                None,
                None,
                f"Attempting to use uninitialized value {var.op.name}: run its initializer "
                "(e.g. tf.global_variables_initializer()) or restore it first.",
            ) from None

    def is_initialized(self, var: Any) -> bool:
        return var in self.variables or var in self.initialized

    def write(self, var: Any, value: Any) -> None:
        if self.frozen:
            raise errors.InvalidArgumentError(
                None, None, f"cannot assign {var.op.name} inside a gradient computation"
            )
        if self.op is not None:
            self._undeclared(var, "writes", self.op._writes)
        self.variables[var] = value

    def run_ops(self, order: list[ops.Operation]) -> None:
        for op in order:
            if op._compute is None:
                continue
            outer, self.op = self.op, op
            compute = self.overrides.get(op, op._compute) if self.overrides else op._compute
            compute = auto_mixed_precision.wrap(op.type, compute)
            given: dict[int, tuple[Any, tuple[Any, ...]]] = {}
            if self.fan_outs:
                args = self._inputs(op, given)
            else:
                args = [self.memo[t] for t in op.inputs]
            try:
                if given:
                    with given_uses(given):
                        outs = compute(self, *args)
                else:
                    outs = compute(self, *args)
            except (TypeError, ValueError) as e:
                # JAX refusing the fed shapes: TF's kernel error, naming the node.
                error = shape_errors.kernel_error(op, args, e)
                if error is None:
                    raise
                raise error from e
            finally:
                self.op = outer
            for t, v in zip(op.outputs, outs, strict=True):
                if t not in self.memo:  # fed tensors keep their fed value
                    self.memo[t] = v

    def _inputs(
        self, op: ops.Operation, given: dict[int, tuple[Any, tuple[Any, ...]]]
    ) -> list[Any]:
        """``op``'s input values, each use of a fanned-out tensor its own copy; the copies
        for uses inside ``op`` go to ``given`` (``jtrain._numerics.given_uses``)."""
        args = []
        for i, t in enumerate(op.inputs):
            spec = self.fan_outs.get(t)
            if spec is None or (op, i) not in spec[0]:
                args.append(self.memo[t])
                continue
            copies = self._copies.get(t)
            if copies is None:
                copies = self._copies[t] = fan_out(self.memo[t], spec[1])
            index = spec[0][(op, i)]
            if isinstance(index, tuple):
                inner = tuple(copies[k] for k in index)
                given[id(inner[0])] = (inner[0], inner)
                args.append(inner[0])
            else:
                args.append(copies[index])
        return args

    def evaluate(self, tensors: list[ops.Tensor], fed: set[ops.Tensor]) -> list[Any]:
        """Values of ``tensors``, running what they need that is not yet in ``memo``."""
        order = execution_order([t.op for t in tensors], fed | set(self.memo))
        self.run_ops(order)
        return [self.memo[t] for t in tensors]


def execution_order(targets: list[ops.Operation], fed: set[ops.Tensor]) -> list[ops.Operation]:
    """Operations needed by ``targets``, dependencies first (iterative post-order DFS).

    A fed tensor cuts its producer off, as in TF; ops all of whose outputs are fed
    and that are not targets themselves do not run.
    """
    order: list[ops.Operation] = []
    state: dict[ops.Operation, int] = {}  # 1 = on stack, 2 = done
    for target in targets:
        if state.get(target) == 2:
            continue
        stack: list[tuple[ops.Operation, Iterator[ops.Operation]]] = [(target, _deps(target, fed))]
        state[target] = 1
        while stack:
            op, deps = stack[-1]
            nxt = next(deps, None)
            if nxt is None:
                stack.pop()
                state[op] = 2
                order.append(op)
                continue
            s = state.get(nxt)
            if s == 2:
                continue
            if s == 1:
                raise errors.InvalidArgumentError(
                    None, None, f"graph has a cycle through {nxt.name}"
                )
            state[nxt] = 1
            stack.append((nxt, _deps(nxt, fed)))
    return order


def _deps(op: ops.Operation, fed: set[ops.Tensor]) -> Iterator[ops.Operation]:
    yield from op.control_inputs
    for t in op.inputs:
        if t not in fed:
            yield t.op


# -- fetch structures ----------------------------------------------------------------
def _flatten_fetches(fetches: Any, graph: ops.Graph, out: list) -> Any:
    """Returns a rebuild template and appends graph elements to ``out``."""
    if isinstance(fetches, (ops.Tensor, ops.Operation, str)) or (
        hasattr(fetches, "_as_graph_tensor") and not hasattr(fetches, "_as_fetch_components")
    ):
        element = _as_fetch_element(fetches, graph)
        out.append(element)
        return len(out) - 1
    if fetches is None:
        raise TypeError(f"Fetch argument {fetches!r} has invalid type {type(fetches)}")
    if isinstance(fetches, dict):
        return (type(fetches), [(k, _flatten_fetches(v, graph, out)) for k, v in fetches.items()])
    if hasattr(fetches, "_as_fetch_components"):  # SparseTensor, IndexedSlices -> ...Value
        value_type, parts = fetches._as_fetch_components()
        return (value_type, [_flatten_fetches(v, graph, out) for v in parts])
    if isinstance(fetches, tuple) and hasattr(fetches, "_fields"):
        return (type(fetches), [_flatten_fetches(v, graph, out) for v in fetches])
    if isinstance(fetches, (list, tuple)):
        return (type(fetches), [_flatten_fetches(v, graph, out) for v in fetches])
    raise TypeError(
        f"Fetch argument {fetches!r} has invalid type {type(fetches)}, must be a string, "
        "Tensor, Operation or Variable (or a list, tuple, dict or namedtuple of them)."
    )


def _rebuilder(template: Any) -> Callable[[list], Any]:
    """The function turning a run's values (one per flattened element) back into the
    structure ``template`` describes (``_flatten_fetches``), built once per template."""
    if isinstance(template, int):
        return operator.itemgetter(template)
    cls, items = template
    if issubclass(cls, dict):
        keys = [k for k, _ in items]
        subs = [v for _, v in items]
        # Directly of elements (a hook's {"global_step": ...} every step): C-level gets.
        if cls is dict and len(subs) == 1 and isinstance(subs[0], int):
            key, index = keys[0], subs[0]
            return lambda values: {key: values[index]}
        if len(subs) > 1 and all(isinstance(v, int) for v in subs):
            get = operator.itemgetter(*subs)
            return lambda values: cls(zip(keys, get(values), strict=True))
        parts = [_rebuilder(v) for v in subs]
        return lambda values: cls(zip(keys, [f(values) for f in parts], strict=True))
    if (cls is list or cls is tuple) and all(isinstance(v, int) for v in items):
        # Directly of elements (``sess.run([train_op, loss])`` every step): C-level gets.
        if len(items) > 1:
            get = operator.itemgetter(*items)
            return get if cls is tuple else lambda values: list(get(values))
        if not items:
            return (lambda values: ()) if cls is tuple else lambda values: []
        (index,) = items
        if cls is tuple:
            return lambda values: (values[index],)
        return lambda values: [values[index]]
    parts = [_rebuilder(v) for v in items]
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return lambda values: cls(*[f(values) for f in parts])
    if cls is list:
        return lambda values: [f(values) for f in parts]
    return lambda values: cls([f(values) for f in parts])


# Fetch structures flattened per session (``Session._flat_fetches``), at most this many.
_FETCH_CACHE_SIZE = 256


def _fetch_key(fetches: Any) -> Any:
    """A hashable key for a structure of lists, tuples and dicts of Tensors, Operations,
    Variables and names, equal for equal structures of the same elements; None for
    anything else (those are flattened on every run). Elements count by identity: the
    cached entry holds them, so their ids stay theirs."""
    kind = type(fetches)
    if kind is ops.Tensor or kind is ops.Operation:
        return id(fetches)
    if kind in _VARIABLE_TYPES:
        return ("var", id(fetches))
    if kind is str:
        return ("name", fetches)
    if kind is list or kind is tuple:
        keys = tuple(map(_fetch_key, fetches))
        return None if None in keys else (kind, keys)
    if kind is dict:
        items = []
        for k, v in fetches.items():
            sub = _fetch_key(v)
            if sub is None:
                return None
            items.append((k if type(k) is str else ("id", id(k)), sub))
        return (dict, tuple(items))
    if _is_variable(fetches):  # a fetched Variable is itself the element (a global step)
        _VARIABLE_TYPES.add(kind)
        return ("var", id(fetches))
    return None


# Variable classes seen by ``_fetch_key`` (a set lookup instead of two hasattr a run).
_VARIABLE_TYPES: set[type] = set()


class _FlatFetches:
    """A fetch structure flattened: its distinct elements (``unique``, in first-seen
    order), their set (one plan per set), and the function rebuilding the structure
    from one value per distinct element. A fetch repeated in the structure (the global
    step every hook asks for) is converted once and appears as the same object, as
    TF's fetch handler does."""

    __slots__ = ("unique", "element_set", "rebuild", "_renumbered", "_keep")

    def __init__(self, elements: list, template: Any):
        position: dict[int, int] = {}
        unique: list = []
        for e in elements:
            if id(e) not in position:
                position[id(e)] = len(unique)
                unique.append(e)
        self.unique = unique
        # One plan (one compiled program) per *set* of fetched elements: a hook that
        # fetches the loss every n steps, again or in another order, reuses the
        # program of the steps without it (values are looked up per element).
        self.element_set = frozenset(position)
        self._renumbered = _renumber(template, [position[id(e)] for e in elements])
        self.rebuild = _rebuilder(self._renumbered)
        self._keep = template  # holds the dict keys whose ids a cache key names

    def item_rebuilders(self) -> list[Callable[[list], Any]]:
        """For a list or tuple structure, one rebuilding function per item: the
        monitored session hands each hook its results without the whole list."""
        cls, items = self._renumbered
        if not (cls is list or cls is tuple):
            raise TypeError(f"item_rebuilders needs a list or tuple structure, not {cls}")
        return [_rebuilder(item) for item in items]


def _renumber(template: Any, index: list[int]) -> Any:
    """``template`` with each element position replaced by ``index[position]``."""
    if isinstance(template, int):
        return index[template]
    cls, items = template
    if issubclass(cls, dict):
        return (cls, [(k, _renumber(v, index)) for k, v in items])
    return (cls, [_renumber(v, index) for v in items])


def _is_variable(obj: Any) -> bool:
    return hasattr(obj, "_as_graph_tensor") and hasattr(obj, "_variable_op")


def _as_fetch_element(fetch: Any, graph: ops.Graph) -> Any:
    """The graph element a fetch names: a Tensor, an Operation, or a Variable itself.

    A fetched Variable stays a Variable: it stands for TF1's reference to the
    variable, whose value is read at the end of the run (after the run's writes).
    """
    try:
        if isinstance(fetch, str):
            return graph.as_graph_element(fetch)
        as_tensor = getattr(fetch, "_as_graph_tensor", None)
        if as_tensor is None or _is_variable(fetch):
            element = fetch
        else:
            element = as_tensor()
        if element.graph is not graph:
            raise ValueError(f"{element!r} is not an element of this graph.")
        return element
    except (KeyError, ValueError) as e:
        raise ValueError(
            f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({e})"
        ) from None


class FeedError(errors.InvalidArgumentError, ValueError):
    """A bad feed: an ``InvalidArgumentError`` that TF code catching ``ValueError`` also sees."""


# -- the plan: one compiled program per (fetches, fed tensors, initialized variables) ----
class _Plan:
    """What one kind of ``run`` does, in three phases.

    1. *pre* host operations (``Operation._host == "pre"``, e.g. a queue's dequeue)
       run in Python and their outputs enter the program like feeds;
    2. the device program (``jax.jit``, variable buffers donated) runs every device
       operation the fetches need;
    3. *post* host operations (``"post"``, e.g. serializing a summary) run in Python
       on the program's outputs.
    """

    def __init__(
        self,
        session: Session,
        elements: list,
        feed_tensors: list[ops.Tensor],
        shape_feeds: dict[ops.Tensor, np.ndarray] | None = None,
    ):
        self.elements = elements
        self.feed_tensors = feed_tensors
        # Fed values that shapes or axes read: constants of this plan's program.
        self.shape_feeds = shape_feeds or {}
        fed = self.fed = set(feed_tensors)
        # A fetched tensor that is fed is its fed value: its operation need not run.
        targets = [
            e if isinstance(e, ops.Operation) else e.op
            for e in elements
            if isinstance(e, ops.Operation) or e not in fed
        ]
        order = execution_order(targets, fed)
        self.pre = [op for op in order if op._host == "pre"]
        self.post = [op for op in order if op._host == "post"]
        device = [op for op in order if op._host is None]
        for op in order:
            if op.type == "Placeholder" and not all(t in fed for t in op.outputs):
                t = op.outputs[0]
                # TF's kernel names the shape only when it has dimensions.
                shape = f" and shape {_shape_str(t._shape)}" if t._shape else ""
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                    f"{_dtype_name(t.dtype)}{shape}",
                )
            producers = {t.op._host for t in op.inputs if t not in fed}
            if op._host is None and "post" in producers:
                raise errors.InvalidArgumentError(
                    None, op, f"{op.name} runs in the step program but reads a host-side value"
                )
            if op._host == "pre" and None in producers:
                raise errors.InvalidArgumentError(
                    None, op, f"{op.name} runs before the step program but reads a value of it"
                )
        # Pre-op outputs the device program reads (a fetched string stays on the host).
        device_inputs = {t for op in device for t in op.inputs}
        self.pre_outputs = [t for op in self.pre for t in op.outputs if t in device_inputs]
        # Device tensors the post phase reads, then the fetched device tensors.
        device_outputs: list[ops.Tensor] = []
        for op in self.post:
            for t in op.inputs:
                if t.op._host is None and t not in fed and t not in device_outputs:
                    device_outputs.append(t)
        for e in elements:
            if isinstance(e, ops.Tensor) and e.op._host is None and e not in fed:
                if e not in device_outputs:
                    device_outputs.append(e)
            elif _is_variable(e) and e not in device_outputs:
                device_outputs.append(e)  # its value after the run's writes
        self.device_outputs = device_outputs
        written = []
        for op in device:
            for v in op._writes:
                if v not in written:
                    written.append(v)
        # Hidden state (a random op's generator) starts when a plan first needs it.
        hidden = [v for v in written if hasattr(v, "_start_value")]
        if hidden:
            session.variable_store.start(hidden)
        initialized = session.variable_store.initialized()
        self.donated = [v for v in written if v in initialized]
        donated = set(self.donated)
        readable = {v for v in device_outputs if _is_variable(v)}
        for op in device:
            readable.update(op._reads)
        self.read_only = [v for v in initialized if v in readable and v not in donated]
        self.written = written
        self._plan_mirror(device, fed)
        self.static: dict[ops.Tensor, Any] = {}
        # Whether a run of this plan waits for its program (it converts a fetched device
        # value, or reads its run-time checks) before returning; None until the first
        # run tells. A run that does not wait passes private copies of the feeds the
        # caller may still change (``_unaliased``).
        self.waits: bool | None = None
        self.alias_align = _CPU_ALIGN if jax.default_backend() == "cpu" else 1
        # Fed strings stay on the host (host ops and fetches read them; XLA has none);
        # the step program reads them as codes (_plan_strings).
        self.string_feeds = [i for i, t in enumerate(feed_tensors) if _is_string(t)]
        self._plan_strings(device, feed_tensors)
        self.device_feeds = [
            i
            for i, t in enumerate(feed_tensors)
            if (not _is_string(t) or t in self.coded) and t not in self.shape_feeds
        ]
        self.host_feeds = len(self.device_feeds) < len(feed_tensors)
        # TF runs nothing when every fetch is fed (a fed string is returned as fed).
        self.runs = len(targets) > 0
        program_inputs = [feed_tensors[i] for i in self.device_feeds] + self.pre_outputs
        # The tensors the step program takes from the host (its step-statistics label).
        self.program_inputs = list(program_inputs)
        self.coded_inputs = [i for i, t in enumerate(program_inputs) if t in self.coded]
        program_inputs += self.string_consts
        fed_inputs = frozenset(feed_tensors)
        plan = self

        def program_for(outputs: list, sizes: dict | None = None) -> Any:
            def program(donated_vals, read_vals, feed_vals):
                return run_program(outputs, sizes, donated_vals, read_vals, feed_vals)

            return program

        def evaluate(order, sizes, donated_vals, read_vals, feed_vals) -> RunContext:
            # (traced) ``order`` run on the step's inputs; ``sizes``: those of its sized
            # operations (framework/data_sizes.py), None for a plan without them
            variables = dict(zip(plan.donated, donated_vals, strict=True))
            variables.update(zip(plan.read_only, read_vals, strict=True))
            memo = dict(zip(program_inputs, feed_vals, strict=True))
            memo.update(plan.shape_feeds)
            ctx = RunContext(variables, memo, initialized=initialized, fed=fed_inputs)
            with auto_mixed_precision.scope(session._compute_dtype), data_sizes.given(sizes):
                ctx.run_ops(order)
            return ctx

        def run_program(outputs, sizes, donated_vals, read_vals, feed_vals):
            ctx = evaluate(device, sizes, donated_vals, read_vals, feed_vals)
            variables, memo = ctx.variables, ctx.memo
            fetched = []
            for t in outputs:
                value = ctx.read(t) if _is_variable(t) else memo[t]
                if isinstance(value, np.ndarray) and value.dtype.kind in "OSU":
                    plan.static[t] = value  # host-only values (strings) known at trace time
                    value = None
                fetched.append(value)
            new_vars = [variables[v] for v in plan.written]
            return new_vars, fetched

        program = program_for(device_outputs)
        # A run of host ops only (a queue runner's enqueue) launches no program.
        self.host_only = not device
        # The last run's program ended within _POLL_S of its launch (see _poll_until_ready).
        self.short = False
        # In a multi-process job, a step with an averaged update runs on every replica.
        replicas = _replicas.active()
        self.collective = replicas is not None and any(op._collective for op in device)
        # Run-time checks (check_numerics, Assert...): the error value is one more
        # output, read after the run (framework/runtime_checks.py).
        self.checked = not self.collective and runtime_checks.needed(device)
        # Checks inside loop or branch bodies go through checkify; the others are
        # collected as the step is traced.
        direct = not runtime_checks.in_bodies(device)
        # tf.jax_data_parallel: the step split over this process's devices.
        mesh = data_parallel.mesh_for(session.graph)
        if mesh is not None and replicas is not None:
            raise errors.UnimplementedError(
                None,
                None,
                "tf.jax_data_parallel cannot run in a process of a multi-process job.",
            )
        # XLA:CPU's convolutions on Eigen, per program (jtrain/xla_options.py).
        options = xla_options.step_options()
        # Operations whose output sizes depend on values: a sizes program, then the
        # step's program per tuple of sizes (client/sized_programs.py).
        sizes = None
        if any(getattr(op, "_sized", None) is not None for op in device):
            if self.collective or mesh is not None:
                raise NotImplementedError(
                    "Operations whose output sizes depend on values (tf.boolean_mask of a "
                    "computed mask, tf.where(condition), tf.dynamic_partition, tf.unique) "
                    "cannot run in a data-parallel or multi-process step, whose replicas "
                    "must run one program: give them fixed sizes (tf.where(mask, x, 0))."
                )
            sizes = sized_programs.Sizes(device, fed | set(program_inputs), evaluate, options)
            label = ", ".join(getattr(e, "name", str(e)) for e in elements[:4])

        def sized_step(outputs: list) -> Any:
            def compile_for(step_sizes: dict) -> Any:
                sized = program_for(outputs, step_sizes)
                if self.checked:
                    sized = runtime_checks.functionalize(sized, direct)
                return jax.jit(sized, donate_argnums=(0,), compiler_options=options)

            assert sizes is not None
            return sized_programs.SizedProgram(sizes, compile_for, label)

        if sizes is not None:
            self.fn = sized_step(device_outputs)
        elif self.collective:
            self.fn = _replicas.collective_program(replicas, program, options)
        elif mesh is not None:
            checked = runtime_checks.functionalize(program, direct) if self.checked else program
            self.fn = data_parallel.DataParallelProgram(mesh, checked, program_inputs, options)
        elif self.checked:
            self.fn = jax.jit(
                runtime_checks.functionalize(program, direct),
                donate_argnums=(0,),
                compiler_options=options,
            )
        else:
            self.fn = jax.jit(program, donate_argnums=(0,), compiler_options=options)
        # Fetched reads that the host copies give (the global step that hooks read each
        # step) need no program output when the copy is there: every output costs the
        # launch ~4 us on XLA:CPU. ``lean_fn`` leaves them out; a run finding a copy
        # missing takes it from the device first (once, after a restore). Only reads of
        # variables whose copy this run keeps (a known net effect), on one device.
        self.lean_reads = frozenset(
            t
            for t, (v, effect) in self.mirror_reads.items()
            if effect is not None and self.mirror_effects.get(v, _IDENTITY) is not None
        )
        self.lean_vars: set = set()
        self.lean_fn = None
        self.lean_outputs = device_outputs
        if self.lean_reads and not self.collective and mesh is None:
            self.lean_vars = {self.mirror_reads[t][0] for t in self.lean_reads}
            self.lean_outputs = [t for t in device_outputs if t not in self.lean_reads]
            if sizes is not None:
                self.lean_fn = sized_step(self.lean_outputs)
            else:
                lean_program = program_for(self.lean_outputs)
                if self.checked:
                    lean_program = runtime_checks.functionalize(lean_program, direct)
                self.lean_fn = jax.jit(lean_program, donate_argnums=(0,), compiler_options=options)

    def _plan_strings(self, device: list[ops.Operation], feed_tensors: list[ops.Tensor]) -> None:
        """How the step program reads strings, which XLA has not: as int32 *codes*.

        A string the program reads from the host (a fed one, a host operation's
        output) enters it as ``codes``, indices into a table of the run's strings;
        operations that only move whole elements (``_STRING_MOVES``: indexing,
        reshapes, gathers, concatenation...) run on the codes unchanged, and a
        fetched string output is looked up in the table after the run. A string
        constant such an operation reads is in the table too (``string_consts``).
        Another operation reading a string the program takes from the host raises
        ``UnimplementedError`` when the run is planned.

        Sets ``coded`` (the string tensors the program holds as codes),
        ``string_consts`` and ``const_table``/``const_codes`` (their strings, codes).
        """
        coded: set[ops.Tensor] = set()
        consts: list[ops.Tensor] = []
        host = set(feed_tensors) | set(self.pre_outputs)
        for op in device:
            strings = [t for t in op.inputs if _is_string(t)]
            if not strings:
                continue
            from_host = [t for t in strings if t in host or t in coded]
            if op.type not in _STRING_MOVES:
                if from_host:
                    raise errors.UnimplementedError(
                        None,
                        op,
                        f"{op.name} ({op.type}) reads the string tensor {from_host[0].name} "
                        "in the step program: XLA has no strings, and jtrain runs only "
                        "operations that move whole strings there (indexing, reshape, "
                        "gather, concat, stack, tile, where...); use them, or fetch the "
                        "strings and work on them in Python.",
                    )
                continue  # as before: a string constant it reads while tracing
            for t in strings:
                if t in coded:
                    continue
                if t in host:
                    coded.add(t)
                elif t.op.type == "Const" and getattr(t.op, "_host_value", None) is not None:
                    coded.add(t)
                    consts.append(t)
                else:
                    raise errors.UnimplementedError(
                        None,
                        op,
                        f"{op.name} ({op.type}) reads the string tensor {t.name}, which the "
                        "step program computes: XLA has no strings.",
                    )
            coded.update(t for t in op.outputs if _is_string(t))
        self.coded = coded
        self.string_consts = consts
        values = [_as_bytes_array(np.array(t.op._host_value, dtype=np.object_)) for t in consts]
        self.const_table = (
            np.concatenate([v.reshape(-1) for v in values]) if values else np.empty(0, dtype=object)
        )
        self.const_codes = []
        offset = 0
        for v in values:
            self.const_codes.append(
                np.arange(offset, offset + v.size, dtype=np.int32).reshape(v.shape)
            )
            offset += v.size

    def _plan_mirror(self, device: list[ops.Operation], fed: set[ops.Tensor]) -> None:
        """What this run does to the session's host copies of scalar integer variables.

        ``mirror_effects[v]``: the run's net effect on ``v`` (``None``: unknown, the
        copy is dropped). ``mirror_reads[t]``: for a fetched read ``t`` of ``v``, the
        effect of the writes ordered before it, so its value is known on the host.
        """
        effects: dict[Any, Any] = {}
        reads: dict[ops.Tensor, tuple[Any, Any]] = {}
        outputs = set(self.device_outputs)
        for op in device:
            for v in op._writes:
                if _mirrorable(v):
                    effects[v] = _compose(effects.get(v, _IDENTITY), _assign_effect(op, fed))
            v = op._read_of
            if v is not None and _mirrorable(v) and op.outputs[0] in outputs:
                reads[op.outputs[0]] = (v, effects.get(v, _IDENTITY))
        for v in self.device_outputs:
            if _is_variable(v) and _mirrorable(v):
                reads[v] = (v, effects.get(v, _IDENTITY))  # after every write
        self.mirror_effects = effects
        self.mirror_reads = reads
        # The variables' NumPy dtypes, looked up once (``v.dtype`` costs ~1 us a run).
        self.mirror_dtypes = {
            v: np.dtype(v.dtype.as_numpy_dtype) for v in [*effects, *(v for v, _ in reads.values())]
        }
        # Nothing written and every fetch a mirrored read: no program needs to run.
        self.mirror_only = (
            not self.written
            and bool(self.device_outputs)
            and all(t in reads for t in self.device_outputs)
        )


# -- strings in the step program (``_Plan._plan_strings``) ----------------------------
# Operations that only move whole elements of their string inputs (and those that
# read only their shapes): on int32 codes they compute the codes of their result.
_STRING_MOVES = frozenset(
    {
        "StridedSlice", "Slice", "Reshape", "ExpandDims", "Squeeze", "Transpose",
        "GatherV2", "Gather", "GatherNd", "ConcatV2", "Pack", "Tile", "ReverseV2",
        "Select", "SelectV2", "Fill", "BroadcastTo", "Split", "SplitV", "IdentityN",
        "Identity", "StopGradient", "Shape", "ShapeN", "Size", "Rank",
    }
)  # fmt: skip


def _is_string(t: ops.Tensor) -> bool:
    return t._np_dtype is not None and t._np_dtype.kind == "O"


def _encode_strings(plan: _Plan, values: list) -> tuple[list, np.ndarray]:
    """The program's inputs with each string input as its codes, and the run's table."""
    values = list(values)
    parts = [plan.const_table]
    offset = plan.const_table.size
    for i in plan.coded_inputs:
        strings = _as_bytes_array(np.asarray(values[i], dtype=object))
        values[i] = np.arange(offset, offset + strings.size, dtype=np.int32).reshape(strings.shape)
        parts.append(strings.reshape(-1))
        offset += strings.size
    return values + plan.const_codes, np.concatenate(parts)


def _decode_strings(table: np.ndarray, codes: Any) -> np.ndarray:
    """The strings a program's string output holds as ``codes``."""
    codes = np.asarray(codes)
    return table[codes.reshape(-1)].reshape(codes.shape)


# -- host copies of scalar integer variables (the global step) -------------------------
# Monitored sessions' hooks fetch the global step every step; a host copy kept exact
# through runs that assign or add constants lets those fetches skip waiting for the
# step program (a per-step host sync costs ~100-170 us on XLA:CPU).
_IDENTITY = ("add", 0)


def _mirrorable(var: Any) -> bool:
    dtype = getattr(var, "dtype", None)
    return var.shape == () and dtype is not None and np.issubdtype(np.dtype(dtype), np.integer)


def _assign_effect(op: ops.Operation, fed: set[ops.Tensor]) -> tuple[str, Any] | None:
    """("set" | "add", integer) for an assignment of a constant, else None."""
    if op._assigns is None:
        return None
    kind, value = op._assigns
    const = value.op._const_value
    if const is None or value in fed or const.shape != () or const.dtype.kind not in "iu":
        return None
    number = int(const)
    return ("add", -number) if kind == "sub" else (kind, number)


def _compose(first: Any, then: Any) -> Any:
    if first is None or then is None:
        return None
    if then[0] == "set":
        return then
    return (first[0], first[1] + then[1])


def _copy_to_host(store: Any, var: Any, dtype: np.dtype) -> np.ndarray | None:
    """Starts ``var``'s host copy from its device value (waits for the step writing it);
    None if it has no value (the run then outputs its reads and reports the error)."""
    try:
        buffer = store.read(var)
    except errors.FailedPreconditionError:
        return None
    value = np.array(buffer, dtype=dtype)  # a copy: the buffer may be donated next
    store.set_host_copy(var, value)
    return value


def _apply(effect: Any, base: np.ndarray | None, dtype: np.dtype) -> np.ndarray | None:
    """The value after ``effect`` on ``base``, wrapped to ``dtype`` as the device wraps."""
    if effect is _IDENTITY:
        return base  # a read before any write: the copy itself (copies are never mutated)
    if effect is None:
        return None
    if effect[0] == "set":
        value = effect[1]
    elif base is None:
        return None
    else:
        value = int(base) + effect[1]
    bounds = _BOUNDS.get(dtype)
    if bounds is None:
        info = np.iinfo(dtype)
        bounds = _BOUNDS[dtype] = (int(info.min), int(info.max))
    low, high = bounds
    if not low <= value <= high:
        value = (value - low) % (high - low + 1) + low
    return np.array(value, dtype=dtype)


_BOUNDS: dict[np.dtype, tuple[int, int]] = {}


# -- feeds a program may read after its run returned ---------------------------------
# XLA:CPU reads a NumPy argument in place when its data is aligned to 64 bytes (no copy),
# and the program runs after its launch returns; a run fetching no device value returns
# then. TF copies feeds during the run, so a caller may refill its batch array as soon as
# ``run`` returns: such a run hands the program a copy of each array it can still change.
# Other backends' transfers may also read the host array after the launch: any writeable
# array is copied there.
_CPU_ALIGN = 64


def _unaliased(values: list, align: int) -> list:
    """``values`` with each writeable NumPy array the program could read in place after
    ``run`` returns (data aligned to ``align`` bytes) replaced by a copy."""
    out = values
    for i, v in enumerate(values):
        if type(v) is np.ndarray and v.flags.writeable and v.size:
            if align == 1 or v.ctypes.data % align == 0:
                if out is values:
                    out = list(values)
                out[i] = v.copy()
    return out


# -- waiting for a short step's fetched values ---------------------------------------
# XLA:CPU runs a program on a worker thread; a caller blocked on its result sleeps and is
# woken when it ends, which costs ~45 us on a VM (a third of a 784-32-10 MLP's step:
# 156 -> 109 us a step when the result is polled instead). A run whose program ended
# within _POLL_S of its launch last time polls for at most _POLL_S before blocking; only
# when no other Python thread but idle waiters (event writers, jtrain._threads) lives,
# since polling holds the GIL that queue runners would use meanwhile. A longer program
# blocks at once.
_POLL_S = 200e-6


def _poll_until_ready(
    values: list, budget_s: float, pause: Callable[[], object] | None = None
) -> None:
    """Polls the first of ``values`` (one program's outputs, ready together) until it
    is ready or ``budget_s`` seconds have passed, calling ``pause`` between looks (a
    busy poll when None, as ``run`` polls; ``os.sched_yield`` gives up the core, the
    variant ``benchmarks/bench_monitored_session.py --poll`` times)."""
    first = next((v for v in values if v is not None), None)
    is_ready = getattr(first, "is_ready", None)
    if is_ready is None:
        return
    end = time.perf_counter() + budget_s
    while not is_ready() and time.perf_counter() < end:
        if pause is not None:
            pause()


def _run_host_ops(
    session: Any,
    host_ops: list[ops.Operation],
    values: dict,
    trace: StepStatsCollector | None = None,
) -> None:
    """Runs host operations in order; their outputs go into ``values`` (and their
    times into ``trace``, when the run is traced)."""
    for op in host_ops:
        args = [values[t] for t in op.inputs]
        start = time.perf_counter_ns() if trace is not None else 0
        try:
            outs = op._compute(session, *args)
        except (TypeError, ValueError) as e:
            error = shape_errors.kernel_error(op, args, e)
            if error is None:
                raise
            raise error from e
        if trace is not None:
            trace.record_host_op(op, start, time.perf_counter_ns())
        for t, v in zip(op.outputs, outs, strict=True):
            values[t] = v


def _dtype_name(dtype: Any) -> str:
    return "unknown" if dtype is None else dtypes.as_dtype(dtype).name


def _shape_str(shape: Any) -> str:
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


# -- default session ---------------------------------------------------------------------
_local = threading.local()


def _session_stack() -> list[Session]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def get_default_session() -> Session | None:
    """The innermost ``with sess:`` / ``sess.as_default()`` session of this thread."""
    stack = _session_stack()
    return stack[-1] if stack else None


def _session_for(session: Session | None, graph: ops.Graph) -> Session:
    session = session or get_default_session()
    if session is None:
        raise ValueError(
            "Cannot evaluate tensor using `eval()`: No default session is registered. "
            "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`"
        )
    if session.graph is not graph:
        raise ValueError(
            "Cannot use the given session to evaluate tensor: the tensor's graph is "
            "different from the session's graph."
        )
    return session


class Session:
    """``tf.compat.v1.Session(target='', graph=None, config=None)``.

    Holds the values of the graph's variables; ``run`` evaluates fetches. A context
    manager: ``with tf.Session() as sess:`` makes it the default session and closes
    it on exit.
    """

    def __init__(self, target: str = "", graph: ops.Graph | None = None, config: Any = None):
        self._graph = graph if graph is not None else ops.get_default_graph()
        self._target = target
        self._config = check_config(config)
        # The mixed precision graph rewrite applies to sessions created after it is enabled.
        self._compute_dtype = auto_mixed_precision.session_compute_dtype()
        # The variables' values. Its lock is held from reading a step's buffers to
        # storing its new ones: runs from several threads (queue runners, a
        # Supervisor's services, a saver) never see a donated buffer. Host ops (a
        # blocking dequeue) run outside it. It also keeps host copies of scalar
        # integer variables, exact while runs only assign or add constants to them
        # (see ``_Plan._plan_mirror``).
        self._store = VariableStore()
        self._plans: dict[Any, _Plan] = {}
        self._fetch_cache: dict[Any, _FlatFetches] = {}
        self._closed = False
        self._default_cm: contextlib.AbstractContextManager | None = None
        # In a multi-process job: whether this session took the chief's values yet.
        self._replicas_synced = False
        self._devices: list[_DeviceAttributes] | None = None
        self._partial_runs: dict[str, Any] = {}

    @property
    def graph(self) -> ops.Graph:
        return self._graph

    @property
    def variable_store(self) -> VariableStore:
        """The owner of this session's variable values (see ``variable_store.py``)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        return self._store

    @property
    def graph_def(self) -> Any:
        """The ``GraphDef`` of the session's graph (``graph.as_graph_def()``)."""
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return self._target

    # -- lifecycle ------------------------------------------------------------------
    def close(self) -> None:
        """Frees the variable values; later ``run`` calls raise ``RuntimeError``."""
        self._closed = True
        self._store.clear()
        self._plans.clear()
        self._fetch_cache.clear()

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Session]:
        _session_stack().append(self)
        try:
            with self._graph.as_default():
                yield self
        finally:
            _session_stack().pop()

    def __enter__(self) -> Session:
        self._default_cm = self.as_default()
        self._default_cm.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        cm, self._default_cm = self._default_cm, None
        if cm is not None:
            cm.__exit__(exc_type, exc, tb)
        self.close()

    # -- run ------------------------------------------------------------------------
    def run(
        self,
        fetches: Any,
        feed_dict: dict | None = None,
        options: Any = None,
        run_metadata: Any = None,
    ) -> Any:
        """Evaluates ``fetches`` (a graph element or a nested list/tuple/dict/namedtuple).

        Args:
          fetches: Tensors, Operations, Variables or their names, nested in lists,
            tuples, dicts and namedtuples.
          feed_dict: maps placeholders (or any tensor) to values: NumPy arrays, Python
            scalars or lists. Values are converted to the tensor's dtype. A
            ``SparseTensor`` key (``tf.sparse_placeholder``) takes a
            ``SparseTensorValue`` or an ``(indices, values, dense_shape)`` tuple, its
            three tensors fed as TF pairs them; a fed number of values compiles one
            program per number (see ``ops/sparse_ops.py``).
          options: a ``RunOptions``; its ``timeout_in_ms`` is honoured, and a
            ``trace_level`` of ``SOFTWARE_TRACE`` or above fills ``run_metadata``'s
            step statistics (see ``adapters.v1.client.session_config`` for every
            option).
          run_metadata: a ``RunMetadata``; replaced, as TF, by the run's metadata:
            empty without a trace level, else the step statistics of
            ``adapters.v1.client.step_stats`` (the step program's time on its
            device, each host operation's on the host).

        Returns:
          The values, in the structure of ``fetches``: NumPy arrays for tensors,
          ``None`` for operations. A fetched ``Variable`` gives its value after all
          of the run's writes, as TF1's reference variables do, wherever it appears
          in ``fetches`` and whatever else (a hook's fetches) the run includes; a
          tensor reading a variable gives the value when its operation runs, after
          the writes it depends on (data and control dependencies).

        Raises:
          RuntimeError: the session is closed.
          ValueError: a fetch is not an element of this graph.
          InvalidArgumentError: a feed has the wrong shape or dtype, or a needed
            placeholder is not fed (names the placeholder).
          FailedPreconditionError: a variable is read before it is initialized.
          AttributeError: ``options`` or ``run_metadata`` is not a proto message.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        deadline = blocking_deadline(timeout_ms(self._config, options))
        trace = StepStatsCollector() if run_metadata is not None and traced(options) else None
        with _x64.exact(), deadline:  # int64/float64 exact whatever jax_enable_x64 says
            flat = self._flat_fetches(fetches)
            # Untraced, ``_run`` is called as before tracing existed (callers wrap it).
            values = (
                self._run(flat, feed_dict) if trace is None else self._run(flat, feed_dict, trace)
            )
            result = flat.rebuild(values)
        if run_metadata is not None:
            fill_run_metadata(run_metadata, trace)
        return result

    def _run_flat(
        self,
        flat: _FlatFetches,
        feed_dict: dict | None,
        options: Any = None,
        run_metadata: Any = None,
    ) -> list:
        """``run`` of a structure ``_flat_fetches`` flattened before (a caller that
        caches it, as the monitored session caches its merged hook fetches): the
        values of ``flat.unique``, one per distinct element, for the caller to rebuild
        (``flat.rebuild`` or ``flat.item_rebuilders``)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        deadline = blocking_deadline(timeout_ms(self._config, options))
        trace = StepStatsCollector() if run_metadata is not None and traced(options) else None
        with _x64.exact(), deadline:
            values = (
                self._run(flat, feed_dict) if trace is None else self._run(flat, feed_dict, trace)
            )
        if run_metadata is not None:
            fill_run_metadata(run_metadata, trace)
        return values

    def _flat_fetches(self, fetches: Any) -> _FlatFetches:
        """``fetches`` flattened, from a cache when the same structure was run before."""
        key = _fetch_key(fetches)
        flat = self._fetch_cache.get(key) if key is not None else None
        if flat is None:
            elements: list = []
            template = _flatten_fetches(fetches, self._graph, elements)
            flat = _FlatFetches(elements, template)
            if key is not None:
                if len(self._fetch_cache) >= _FETCH_CACHE_SIZE:
                    self._fetch_cache.clear()
                self._fetch_cache[key] = flat
        return flat

    def _run(
        self, flat: _FlatFetches, feed_dict: dict | None, trace: StepStatsCollector | None = None
    ) -> list:
        """Runs ``flat``'s elements: their values, in ``flat.unique``'s order; a
        ``trace`` collects the step statistics of the run."""
        elements = flat.unique
        feed_tensors, feed_values = self._convert_feeds(feed_dict)
        store = self._store
        key = (flat.element_set, tuple(map(id, feed_tensors)), store.init_version)
        shape_feeds = None
        if self._graph._shape_feeds:  # one program per fed value of a shape
            shape_feeds = _shape_feeds(self._graph, feed_tensors, feed_values)
            key += tuple(v.tobytes() for v in shape_feeds.values())
        plan = self._plans.get(key)
        if plan is None:
            plan = _Plan(self, elements, feed_tensors, shape_feeds)
            self._plans[key] = plan
        host: dict[ops.Tensor, Any] = dict(zip(feed_tensors, feed_values, strict=True))
        as_fed = None
        if plan.string_feeds:
            # A fetched fed string is what was fed; a step reads its elements as bytes.
            as_fed = {feed_tensors[i]: feed_values[i] for i in plan.string_feeds}
            if not plan.runs:
                return [_result(e, host, plan.fed) for e in elements]
            feed_values = list(feed_values)
            for i in plan.string_feeds:
                t = feed_tensors[i]
                feed_values[i] = host[t] = _string_values(t, feed_values[i])
        if plan.host_feeds:
            feed_values = [feed_values[i] for i in plan.device_feeds]
        if plan.pre:
            _run_host_ops(self, plan.pre, host, trace)
            feed_values = feed_values + [host[t] for t in plan.pre_outputs]
        table = None
        if plan.coded:
            feed_values, table = _encode_strings(plan, feed_values)
        if plan.host_only:
            _run_host_ops(self, plan.post, host, trace)
            if as_fed:
                host.update(as_fed)
            return [_result(e, host, plan.fed) for e in elements]
        if plan.collective and not self._replicas_synced:
            self._sync_replicas()
        known: dict[ops.Tensor, np.ndarray] = {}
        failure: list[Any] = []
        with store.locked():
            dtypes_ = plan.mirror_dtypes
            for t, (v, effect) in plan.mirror_reads.items():
                base = store.host_copy(v)
                if base is None and v in plan.lean_vars:
                    base = _copy_to_host(store, v, dtypes_[v])
                # A read before any write is the copy itself (copies are never mutated).
                value = base if effect is _IDENTITY else _apply(effect, base, dtypes_[v])
                if value is not None:
                    known[t] = value
            fn, outputs = plan.fn, plan.device_outputs
            if plan.lean_fn is not None and known.keys() >= plan.lean_reads:
                fn, outputs = plan.lean_fn, plan.lean_outputs
            if plan.mirror_only and len(known) == len(plan.device_outputs):
                fetched = []  # every fetch is a known read: no program to launch
            else:
                start = time.perf_counter()
                if not plan.waits:
                    feed_values = _unaliased(feed_values, plan.alias_align)
                # Donated buffers are replaced below; if tracing fails nothing was donated.
                launch = time.perf_counter_ns() if trace is not None else 0
                new_vars, fetched, *failure = fn(
                    store.donatable(plan.donated), store.buffers(plan.read_only), feed_values
                )
                if trace is not None:
                    outs = (new_vars, fetched, failure)
                    jax.block_until_ready(outs)
                    trace.record_program(outs, plan.program_inputs, launch, time.perf_counter_ns())
                if plan.waits is None:
                    # Mirrored reads may be known (not waited for) in a later run.
                    plan.waits = plan.checked or any(
                        val is not None and t not in plan.mirror_reads
                        for t, val in zip(outputs, fetched, strict=True)
                    )
                store.commit(dict(zip(plan.written, new_vars, strict=True)))
                for v, effect in plan.mirror_effects.items():
                    store.set_host_copy(v, _apply(effect, store.host_copy(v), dtypes_[v]))
            run_number = store.version
        if plan.checked and failure:
            runtime_checks.raise_failed(failure[0], self._graph)
        host.update(known)
        if fetched:
            if plan.short and alone_but_idle_waiters():
                _poll_until_ready(fetched, _POLL_S)
            # np.asarray per value, not jax.device_get: its async copies cost ~50 us a
            # step on XLA:CPU, where a monitored session fetches the loss every step.
            for t, val in zip(outputs, fetched, strict=True):
                if t not in known:
                    host[t] = plan.static.get(t) if val is None else np.asarray(val)
            if table is not None:
                for t in outputs:
                    if t in plan.coded:
                        host[t] = _decode_strings(table, host[t])
            plan.short = time.perf_counter() - start < _POLL_S
            if len(known) < len(plan.mirror_reads):
                self._learn_mirror(plan, host, run_number)
        if plan.post:
            _run_host_ops(self, plan.post, host, trace)
        if as_fed:
            host.update(as_fed)
        return [_result(e, host, plan.fed) for e in elements]

    def _sync_replicas(self) -> None:
        """Takes the chief's values of the global variables (every process at once).

        Called once per session in a multi-process job: by a ``SessionManager`` when
        it creates the session, else before the session's first collective step.
        """
        with _x64.exact():
            _replicas.sync_from_chief(self)
        self._replicas_synced = True

    def _convert_feeds(self, feed_dict: dict | None):
        if not feed_dict:
            return [], []
        tensors: list[ops.Tensor] = []
        values: list[Any] = []
        try:
            if self._convert_feed_items(feed_dict.items(), tensors, values):
                return tensors, values
        except Exception:
            # TF flattens tuple keys before it converts a value: its errors come first.
            if not any(isinstance(key, tuple) for key in feed_dict):
                raise
            del tensors[:], values[:]
        # A tuple key (an LSTMStateTuple of placeholders...): the keys flattened as TF's
        # flatten_dict_items; those before it (not tuples) are converted already.
        flat = _flat_feed_items(feed_dict).items()
        self._convert_feed_items(itertools.islice(flat, len(tensors), None), tensors, values)
        return tensors, values

    def _convert_feed_items(self, items: Any, tensors: list, values: list) -> bool:
        """Appends the fed tensors and their converted values; False when it stops at a
        tuple key (the caller flattens the keys and goes on from there)."""
        for key, value in items:
            t = key
            if not isinstance(t, ops.Tensor):
                if isinstance(key, tuple):
                    return False
                if isinstance(key, SparseTensor):
                    # TF's expansion: its three tensors fed the items of the value (a
                    # SparseTensorValue or a 3-tuple), paired as zip pairs them.
                    parts = [key.indices, key.values, key.dense_shape]
                    self._convert_feed_items(zip(parts, value, strict=False), tensors, values)
                    continue
                if hasattr(key, "_feed_components"):  # RaggedTensor: splits and flat values
                    pairs = key._feed_components(value)
                    self._convert_feed_items(pairs, tensors, values)
                    continue
                try:
                    t = _as_fetch_element(key, self._graph)
                except ValueError as e:
                    raise TypeError(
                        f"Cannot interpret feed_dict key {key!r} as a Tensor: {e}"
                    ) from None
                if not isinstance(t, ops.Tensor):
                    raise TypeError(f"Cannot interpret feed_dict key {key!r} as a Tensor.")
            if t.graph is not self._graph:
                raise ValueError(
                    f"Tensor {t.name} fed in feed_dict is not an element of this graph."
                )
            value = _convert_feed(t, value, key)
            tensors.append(t)
            values.append(value)
        return True

    def _learn_mirror(self, plan: _Plan, host: dict, run_number: int) -> None:
        """Starts host copies from reads this run fetched, if no change came after it."""
        store = self._store
        with store.locked():
            if store.version != run_number:
                return
            for t, (v, effect) in plan.mirror_reads.items():
                after = plan.mirror_effects.get(v, _IDENTITY)
                if store.host_copy(v) is not None or effect is None or after is None:
                    continue
                if effect[0] == "add" and after[0] == "add":
                    # The value after the run = the read + the later additions.
                    value = _apply(("add", after[1] - effect[1]), host[t], plan.mirror_dtypes[v])
                    store.set_host_copy(v, value)

    def make_callable(
        self, fetches: Any, feed_list: list | None = None, accept_options: bool = False
    ) -> Any:
        """A function running ``fetches`` with positional feeds for ``feed_list``.

        Args:
          fetches: as ``run``'s.
          feed_list: the tensors the callable's positional arguments feed.
          accept_options: the callable also takes ``options`` and ``run_metadata``
            keywords (passed to ``run``).
        """
        feed_list = list(feed_list or [])

        def call(*args, **kwargs):
            if len(args) != len(feed_list):
                raise TypeError(f"expected {len(feed_list)} feeds, got {len(args)}")
            return self.run(fetches, feed_dict=dict(zip(feed_list, args, strict=True)), **kwargs)

        if not accept_options:
            return call

        def call_with_options(*args, options=None, run_metadata=None):
            return call(*args, options=options, run_metadata=run_metadata)

        return call_with_options

    def list_devices(self) -> list[_DeviceAttributes]:
        """The devices this session computes on: the host CPU, then JAX's accelerators.

        Names are TF's (``/job:localhost/replica:0/task:0/device:CPU:0``); a CPU
        reports TF's 256 MiB ``memory_limit_bytes``, an accelerator its
        allocator's limit where JAX reports one (else 0).
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._devices is None:
            self._devices = _list_devices()
        return list(self._devices)

    def partial_run_setup(self, fetches: Any, feeds: Any = None) -> str:
        """Starts a partial run that will fetch ``fetches`` and feed ``feeds``.

        Returns:
          A handle for ``partial_run``.
        """
        from adapters.v1.client.partial_run import PartialRun, new_handle

        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        state = PartialRun(self, fetches, feeds)
        handle = new_handle()
        self._partial_runs[handle] = state
        return handle

    def partial_run(self, handle: str, fetches: Any, feed_dict: dict | None = None) -> Any:
        """Feeds some of the setup's feeds and fetches what they make computable.

        Raises:
          InvalidArgumentError: an unknown or finished ``handle``; a feed or fetch
            the setup did not declare; a fetch needing a declared feed not fed yet.
          UnimplementedError: a fetch needs an op with an effect an earlier call ran.
        """
        state = self._partial_runs.get(handle)
        if state is None:
            raise errors.InvalidArgumentError(
                None, None, "Must run 'setup' before performing partial runs!"
            )
        result, done = state.run(fetches, feed_dict)
        if done:
            self._partial_runs.pop(handle, None)
        return result


class _DeviceAttributes:
    """A device of ``Session.list_devices()``: TF's ``name``, ``device_type``, limits."""

    def __init__(self, name: str, device_type: str, memory_limit_bytes: int, incarnation: int):
        self._name = name
        self._device_type = device_type
        self._memory_limit_bytes = memory_limit_bytes
        self._incarnation = incarnation

    name = property(lambda self: self._name)
    device_type = property(lambda self: self._device_type)
    memory_limit_bytes = property(lambda self: self._memory_limit_bytes)
    incarnation = property(lambda self: self._incarnation)

    def __repr__(self) -> str:
        return (
            f"_DeviceAttributes({self._name}, {self._device_type}, "
            f"{self._memory_limit_bytes}, {self._incarnation})"
        )


_CPU_MEMORY_LIMIT = 268435456  # what TF reports for its CPU device


def _list_devices() -> list[_DeviceAttributes]:
    prefix = f"/job:localhost/replica:0/task:{jax.process_index()}/device:"
    cpu = _DeviceAttributes(prefix + "CPU:0", "CPU", _CPU_MEMORY_LIMIT, random.getrandbits(63))
    devices = [cpu]
    counts: dict[str, int] = {}
    for d in jax.local_devices():
        if d.platform == "cpu":
            continue
        kind = "TPU" if d.platform == "tpu" else "GPU"
        index = counts.get(kind, 0)
        counts[kind] = index + 1
        try:
            limit = int((d.memory_stats() or {}).get("bytes_limit", 0))
        except Exception:  # a backend without memory statistics
            limit = 0
        devices.append(
            _DeviceAttributes(f"{prefix}{kind}:{index}", kind, limit, random.getrandbits(63))
        )
    return devices


def _shape_feeds(graph: ops.Graph, tensors: list, values: list) -> dict[ops.Tensor, np.ndarray]:
    """The fed values that shapes or axes read (``n`` of ``tf.ones([n, 3])``), by tensor."""
    feeds = graph._shape_feeds
    return {t: np.asarray(v) for t, v in zip(tensors, values, strict=True) if t in feeds}


def _flat_feed_items(feed_dict: dict) -> dict:
    """``feed_dict`` with each key that is a tuple (an ``LSTMStateTuple`` of
    placeholders, a tuple of them, nested) replaced by its elements, each fed the
    value at the same place in the flattened value, as TF's ``flatten_dict_items``.

    Raises:
      ValueError: a key and its value flatten to different numbers of elements, or a
        tensor is fed twice (TF's messages).
    """
    flat: dict = {}
    for key, value in feed_dict.items():
        if isinstance(key, tuple):
            keys, values = nest.flatten(key), nest.flatten(value)
            if len(keys) != len(values):
                raise ValueError(
                    f"Could not flatten dictionary. Key had {len(keys)} elements, but value "
                    f"had {len(values)} elements. Key: {keys}, value: {values}."
                )
            pairs = list(zip(keys, values, strict=True))
        else:
            pairs = [(key, value)]
        for k, v in pairs:
            if k in flat:
                raise ValueError(f"Cannot flatten dict because this key is not unique: {k}")
            flat[k] = v
    return flat


def _convert_feed(t: ops.Tensor, value: Any, key: Any = None) -> Any:
    """A fed value as TF 2.21's ``Session.run`` converts it (its ``_run``).

    A Python ``int`` (or ``bool``) that the tensor's NumPy type changes raises TF's
    ``TypeError`` (a string tensor takes none); a ``Tensor`` value raises TF's
    ``TypeError``. Anything else becomes ``numpy_compat.np_asarray(value, dtype)``: for
    a numeric dtype ``np.asarray(value).astype(dtype)``, which casts as NumPy does
    (int64 300 into uint8 wraps to 44, float64 1.9 into int32 truncates to 1, a
    float64 too large for float32 is inf, strings of numbers parse; NumPy's warnings
    and errors, e.g. ``ValueError`` for ``"a"`` into float32, are TF's); for ``bool``
    and ``string`` ``np.asarray(value, dtype=dtype)`` (strings: an object array of
    what was fed, turned into ``bytes`` when a step runs: ``_string_values``).
    Then the shape must fit.
    """
    dtype = t._np_dtype
    if type(value) is np.ndarray and value.dtype == dtype and _shape_fits(t._shape, value.shape):
        if dtype.kind != "O":
            return value  # the common case, checked cheaply (once per feed per step)
    if isinstance(value, ops.Tensor):
        raise TypeError(
            "The value of a feed cannot be a tf.Tensor object. Acceptable feed values "
            "include Python scalars, strings, lists, numpy ndarrays, or TensorHandles. "
            f"For reference, the tensor object was {value} which was passed to the "
            f"argument `feed_dict` with key {t if key is None else key}."
        )
    if dtype is None:
        arr = value if isinstance(value, jax.Array) else np.asarray(value)
    else:
        numpy_type = object if dtype.kind == "O" else dtype.type
        if isinstance(value, int) and _int_changes(value, numpy_type):
            raise TypeError(
                f"Type of feed value {value} with type {type(value)} is not compatible "
                f"with Tensor type {numpy_type}. Try explicitly setting the type of the "
                "feed tensor to a larger type (e.g. int64)."
            )
        if isinstance(value, jax.Array) and value.dtype == dtype:
            arr = value  # a device array of the right type stays on its device
        elif np.issubdtype(numpy_type, np.number):
            arr = np.asarray(value).astype(dtype, copy=None)
        else:
            arr = np.asarray(value, dtype=dtype)
    shape = t._shape
    if shape is not None:
        if not _shape_fits(shape, arr.shape):
            raise FeedError(
                None,
                t.op,
                f"Cannot feed value of shape {tuple(arr.shape)} for Tensor {t.name}, "
                f"which has shape {t.get_shape()}",
            )
    return arr


def _int_changes(value: int, numpy_type: Any) -> bool:
    """TF's check of a Python int feed (``_convert_to_numpy_obj(type, value) != value``,
    compared as NumPy compares: a float16 2049 is 2048, equal): a string tensor takes
    no int; NumPy's ``OverflowError`` for an int no NumPy integer holds is TF's."""
    if numpy_type is object:
        return True  # TF compares str(value) with the int
    return bool(numpy_type(np.array(value).astype(numpy_type)) != value)


def _string_values(t: ops.Tensor, value: np.ndarray) -> np.ndarray:
    """A string feed's elements as ``bytes`` (``str`` as UTF-8), as TF's runtime takes
    them when a step runs; another element raises TF's ``InternalError``."""
    flat = value.reshape(-1)
    if all(type(item) is bytes for item in flat):
        return value
    out = np.empty(value.shape, dtype=object)
    out_flat = out.reshape(-1)
    for i, item in enumerate(flat):
        if isinstance(item, str):
            out_flat[i] = item.encode("utf-8")
        elif isinstance(item, bytes):
            out_flat[i] = bytes(item)
        else:
            kind = type(item).__name__
            raise errors.InternalError(
                None, t.op, f"Graph execution error:\n\nUnsupported object type {kind}"
            )
    return out


def _result(element: Any, host: dict, fed: set) -> Any:
    """What ``run`` returns for one fetch: a fed tensor's fed array, as TF; else _fetched."""
    if isinstance(element, ops.Operation):
        return None
    return host[element] if element in fed else _fetched(host[element])


def _fetched(value: Any) -> Any:
    """A fetched value as TF returns it: NumPy scalars (``bytes`` for strings), arrays.

    Strings come back as ``bytes`` and object arrays of ``bytes`` (trailing NUL bytes
    kept, which NumPy's ``S`` arrays would drop). An array is the caller's own, as
    TF's are: writeable, and changing it changes nothing in the session (a program's
    output is a read-only view of its buffer; a host value may be kept for the next
    run), so it is a copy.
    """
    if isinstance(value, (bytes, str)):
        return value.encode("utf-8") if isinstance(value, str) else value
    if not isinstance(value, np.ndarray):
        arr = np.asarray(value)
        value = np.asarray(value, dtype=object) if arr.dtype.kind in "SU" else arr
    if value.dtype.kind in "SUO":
        converted = _as_bytes_array(value)
        if converted is not value:
            return converted if converted.ndim else converted[()]  # a new array
    if value.ndim:
        return value.copy()
    return value[()]


def _as_bytes_array(value: np.ndarray) -> np.ndarray:
    if value.dtype.kind == "O" and all(type(v) is bytes for v in value.flat):
        return value
    out = np.empty(value.shape, dtype=object)
    for index, item in np.ndenumerate(value):
        out[index] = item.encode("utf-8") if isinstance(item, str) else item
    return out


def _shape_fits(shape: tuple | None, actual: tuple) -> bool:
    if shape is None:
        return True
    if len(shape) != len(actual):
        return False
    for d, a in zip(shape, actual, strict=True):
        if d is not None and d != a:
            return False
    return True


class InteractiveSession(Session):
    """A ``Session`` that installs itself as the default on construction (for shells)."""

    def __init__(self, target: str = "", graph: ops.Graph | None = None, config: Any = None):
        super().__init__(target, graph, config)
        self._interactive_cm = self.as_default()
        self._interactive_cm.__enter__()

    def close(self) -> None:
        cm, self._interactive_cm = getattr(self, "_interactive_cm", None), None
        super().close()
        if cm is not None:
            with contextlib.suppress(IndexError, ValueError):
                cm.__exit__(None, None, None)
