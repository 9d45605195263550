"""Parts of the graph that a dataset evaluates on the host, in Python.

A ``Dataset.map`` or ``filter`` function builds TF ops on tensors standing for
one element (TF traces it into a graph function); a source such as
``from_tensor_slices(placeholder)`` reads tensors of the graph. Neither runs in a
step's XLA program: a dataset's pipeline runs before it, in Python, as the
queue input pipeline does. :class:`HostGraph` evaluates such a subgraph given
the values of some of its tensors: host operations (``parse_single_example``,
``decode_raw``...) call their Python computation, and device operations run as the
step would trace them, in one ``jax.jit`` program on the host's CPU when the
subgraph has only device operations (compiled once per input shape), one by one
otherwise. A ``map`` runs a chunk of elements as one batch where the subgraph has a
batch form (``HostGraph.call_rows``: the Example parse, ``decode_raw``, then casts and
scaling vmapped in one program), as a queue runner's enqueue does
(``training/batched_enqueue.py``).

What a subgraph may read: the given tensors, constants, placeholders (fed when the
iterator is initialized) and random ops (their generators are per iterator
initialization: the values differ from TF's, as every jtrain random op's do). A
subgraph reading a variable raises ``NotImplementedError`` when it is built: the
session's variables live on the device and change every step.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import _x64, auto_mixed_precision, ops, runtime_checks
from jtrain import errors

__all__ = ["HostGraph", "host_device"]

_log = logging.getLogger(__name__)


def host_device() -> Any:
    """The CPU device for host-side programs, or ``None`` (JAX's default) without one."""
    import jax

    try:
        return jax.devices("cpu")[0]
    except RuntimeError:  # JAX_PLATFORMS names no CPU
        return None


def _is_state(var: Any) -> bool:
    """A random op's hidden generator state (not a graph variable)."""
    return hasattr(var, "_start_value")


class HostGraph:
    """``outputs`` as a function of ``given`` tensors, evaluated on the host.

    Args:
      outputs: the tensors to compute.
      given: tensors whose values each call gives.
      what: what the subgraph is, for error messages (``"Dataset.map's function"``).

    Raises:
      NotImplementedError: the subgraph reads or writes a variable.
    """

    def __init__(self, outputs: Sequence[ops.Tensor], given: Sequence[ops.Tensor], what: str):
        from adapters.v1.client.session import execution_order

        self.outputs = list(outputs)
        self.given = list(given)
        fed = set(self.given)
        order = execution_order([t.op for t in self.outputs if t not in fed], fed)
        for op in order:
            if op.type == "PlaceholderWithDefault":
                # Its value when fed is the run's, when not its default's: the iterator
                # could not tell which when it starts (it would take the default).
                raise NotImplementedError(
                    f"{what} reads tf.placeholder_with_default {op.name}: jtrain's tf.data "
                    "cannot tell a fed value from the default; use tf.placeholder and feed "
                    "it with the iterator's initializer"
                )
        # Placeholders of the graph the subgraph reads: fed when the iterator starts.
        self.placeholders = [op.outputs[0] for op in order if op.type == "Placeholder"]
        self.order = [op for op in order if op.type != "Placeholder"]
        states: list[Any] = []
        for op in self.order:
            for var in (*op._reads, *op._writes):
                if not _is_state(var):
                    raise NotImplementedError(
                        f"{what} reads or writes the variable {var.op.name} (op {op.name}): "
                        "jtrain evaluates tf.data functions on the host, outside the session's "
                        "variables; pass the value in as a constant or apply it in the model"
                    )
                if var not in states:
                    states.append(var)
        self.states = states
        # One jitted program where every op is a device op and no input is a string.
        self.device_only = all(op._host is None for op in self.order) and not any(
            np.dtype(t.dtype.dtype).kind == "O" for t in (*self.placeholders, *self.given)
        )
        self._jitted: Any = None
        self._compiled = False  # whether the jitted program ran once
        # Whether a chunk of elements may run as one batch (``call_rows``): host ops
        # with a batch form fed by the elements, then pure device ops, nothing else.
        self.batchable = self._batch_plan()
        self._rows_programs: dict[tuple, Any] = {}

    def __call__(
        self, session: Any, values: Sequence[Any], known: dict[ops.Tensor, Any], state: dict
    ) -> list[np.ndarray]:
        """The outputs' values.

        Args:
          session: the session running the pipeline.
          values: the values of ``given``, in order.
          known: values of the placeholders (and other tensors) fed to the iterator.
          state: the random generators' states of this iterator run (updated).
        """
        for var in self.states:
            if var not in state:
                state[var] = var._start_value()
        import jax

        with _x64.exact(), jax.default_device(host_device()):
            if self.device_only and self.order:
                try:
                    outs = self._run_jitted(session, values, known, state)
                except (errors.InvalidArgumentError, jax.errors.JAXTypeError):
                    if self._compiled:
                        raise
                    # A shape computed from the element's values (``tf.fill([n], n)``):
                    # known per element, op by op, never in one program for all.
                    _log.debug("tf.data function runs op by op: shapes depend on values")
                    self.device_only = False
                    outs = self._run_ops(session, values, known, state)
            else:
                outs = self._run_ops(session, values, known, state)
        return [np.asarray(v) if not isinstance(v, np.ndarray) else v for v in outs]

    def _batch_plan(self) -> bool:
        """Whether the subgraph has a batch form: no placeholder, random state or
        run-time check; host ops with a row-wise batch form (``Operation._batch``: the
        Example parse, ``decode_raw``, element-wise string ops) reading only the
        elements and each other; device ops of ``batched_enqueue``'s allowlist (moves,
        casts and element-wise arithmetic, bit for bit the same per row)."""
        from adapters.v1.training.batched_enqueue import pure_device_op

        if self.placeholders or self.states or not self.order or runtime_checks.needed(self.order):
            return False
        host_made = set(self.given)
        device: list[ops.Operation] = []
        for op in self.order:
            if op.control_inputs:
                return False
            if op._host is None:
                if not pure_device_op(op):
                    return False
                device.append(op)
                continue
            if op._batch is None or not op.inputs or not all(t in host_made for t in op.inputs):
                return False
            host_made.update(op.outputs)
        made = {t for op in device for t in op.outputs}
        self._device = device
        read = (t for op in device for t in op.inputs if t not in made)
        self._device_in = list(dict.fromkeys(read))
        self._device_out = [t for t in dict.fromkeys(self.outputs) if t in made]
        # Device ops read numbers: a string reaching one is not a batch.
        return not any(np.dtype(t.dtype.dtype).kind == "O" for t in self._device_in)

    def call_rows(self, session: Any, rows: Sequence[Sequence[Any]]) -> list[np.ndarray] | None:
        """The outputs for a chunk of elements computed as one batch: per output, an
        array whose first dimension runs over ``rows``; None when the elements do not
        stack (components of different shapes), or a host op's batch form or the device
        program refuses the batch (the caller then runs them one by one and so raises
        each element's own error, as TF does).

        The host ops run their batch forms; the device ops run as one program vmapped
        over the rows (NumPy moves where it only reshapes and casts integers), each row
        computing what the element's own run computes.
        """
        import jax

        from adapters.v1.training.batched_enqueue import numpy_moves

        got: dict[ops.Tensor, Any] = {}
        for i, t in enumerate(self.given):
            column = _stacked([row[i] for row in rows])
            if column is None:
                return None
            got[t] = column
        try:
            for op in self.order:
                if op._host is not None:
                    outs = op._batch(session, *[got[t] for t in op.inputs])
                    got.update(zip(op.outputs, outs, strict=True))
            if self._device:
                values = [got[t] for t in self._device_in]
                key = tuple((np.shape(v), np.asarray(v).dtype) for v in values)
                program = self._rows_programs.get(key)
                with _x64.exact(), jax.default_device(host_device()):
                    if program is None:
                        vmapped = jax.vmap(self._device_function(session))
                        specs = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in key]
                        program = numpy_moves(jax.make_jaxpr(vmapped)(*specs)) or jax.jit(vmapped)
                        self._rows_programs[key] = program
                    outs = program(*values)
                got.update(zip(self._device_out, (np.asarray(v) for v in outs), strict=True))
        except errors.OpError:
            return None
        except Exception as e:  # noqa: BLE001 - a batch the program cannot take
            _log.debug("tf.data function runs element by element: %s", e)
            self.batchable = False
            return None
        columns = [np.asarray(got[t]) for t in self.outputs]
        if any(c.ndim == 0 or c.shape[0] != len(rows) for c in columns):
            self.batchable = False
            return None
        return columns

    def _device_function(self, session: Any) -> Any:
        """The device ops as a function of one element's values (as the step traces them)."""
        from adapters.v1.client.session import RunContext

        def one(*values: Any) -> tuple[Any, ...]:
            memo = dict(zip(self._device_in, values, strict=True))
            with auto_mixed_precision.scope(session._compute_dtype):
                RunContext({}, memo).run_ops(self._device)
            return tuple(memo[t] for t in self._device_out)

        return one

    def _memo(self, values: Sequence[Any], known: dict[ops.Tensor, Any]) -> dict:
        memo = {t: known[t] for t in self.placeholders}
        memo.update(zip(self.given, values, strict=True))
        return memo

    def _run_ops(self, session: Any, values: Sequence[Any], known: dict, state: dict) -> list:
        from adapters.v1.client.session import RunContext

        memo = self._memo(values, known)
        ctx = RunContext(state, memo)
        with auto_mixed_precision.scope(session._compute_dtype):
            for op in self.order:
                if op._host is None and runtime_checks.needed([op]):
                    self._run_checked(op, memo, state)
                    continue
                if op._host is None:
                    ctx.run_ops([op])
                    continue
                outs = op._compute(session, *[memo[t] for t in op.inputs])
                for t, v in zip(op.outputs, outs, strict=True):
                    memo.setdefault(t, v)
        return [memo[t] for t in self.outputs]

    def _run_checked(self, op: ops.Operation, memo: dict, state: dict) -> None:
        """Runs ``op`` (a ``check_numerics``, an ``Assert``, a loop holding one) alone,
        its run-time checks raising TF's error as a step's would."""
        from adapters.v1.client.session import RunContext

        inputs = [memo[t] for t in op.inputs]
        keys = list(state)

        def run(values: list, states: list) -> tuple[list, list]:
            local = dict(zip(op.inputs, values, strict=True))
            variables = dict(zip(keys, states, strict=True))
            RunContext(variables, local).run_ops([op])
            return [local[t] for t in op.outputs], [variables[k] for k in keys]

        outs, new_states, failure = runtime_checks.functionalize(run)(
            inputs, [state[k] for k in keys]
        )
        runtime_checks.raise_failed(failure, op.graph)
        state.update(zip(keys, new_states, strict=True))
        for t, v in zip(op.outputs, outs, strict=True):
            memo.setdefault(t, v)

    def _run_jitted(self, session: Any, values: Sequence[Any], known: dict, state: dict) -> list:
        if self._jitted is None:
            import jax

            from adapters.v1.client.session import RunContext

            graph = self
            feeds = [*self.placeholders, *self.given]

            def run(states: list, feed_values: list) -> tuple[list, list]:
                memo = dict(zip(feeds, feed_values, strict=True))
                variables = dict(zip(graph.states, states, strict=True))
                with auto_mixed_precision.scope(session._compute_dtype):
                    RunContext(variables, memo).run_ops(graph.order)
                return [variables[v] for v in graph.states], [memo[t] for t in graph.outputs]

            _log.debug("compiling a tf.data function of %d ops", len(self.order))
            # Run-time checks (check_numerics, Assert) fail the element, as in TF.
            checked = runtime_checks.needed(self.order)
            self._jitted = jax.jit(runtime_checks.functionalize(run) if checked else run)
        feed_values = [*(known[t] for t in self.placeholders), *values]
        new_states, outs, *failure = self._jitted([state[v] for v in self.states], feed_values)
        self._compiled = True
        if failure:
            runtime_checks.raise_failed(failure[0], self.order[0].graph)
        state.update(zip(self.states, new_states, strict=True))
        return list(outs)


def _stacked(values: list[Any]) -> np.ndarray | None:
    """``values`` (one component of each element) stacked on a new first dimension, or
    None when their shapes or dtypes differ."""
    first = np.asarray(values[0])
    if first.dtype.kind == "O":
        out = np.empty((len(values), *first.shape), dtype=object)
        for i, v in enumerate(values):
            v = np.asarray(v, dtype=object)
            if v.shape != first.shape:
                return None
            out[i] = v if v.ndim else v.item()  # a 0-d array would be stored as such
        return out
    if any(np.shape(v) != first.shape or np.asarray(v).dtype != first.dtype for v in values):
        return None
    return np.stack(values)
