"""A queue runner's record-by-record enqueue, run a batch of records at a time.

TF1's input pipelines enqueue one example per ``sess.run``: a reader's ``read``,
``parse_single_example``, ``decode_raw``, an ``enqueue``. TF runs that subgraph in
C++; run as it is written here, it is per-example Python under the GIL (a
``Session.run``, a proto parse, a queue lock per example; an XLA program per
example where the decoded values are cast or scaled on the device). When a
runner's enqueue op is such a subgraph (one reader's ``read`` feeding only host ops
that have a batch form, see ``Operation._batch``, and pure device ops of an
allowlist), :func:`batched_step` gives a function doing what up to :data:`CHUNK` of
its runs would do, in one call: read up to ``CHUNK`` records of the current file,
parse and decode them as one batch (NumPy, one proto loop), run the device ops as
the step program would for one example, vmapped over the batch (one jitted
program; NumPy moves where that program only reshapes and casts integers, so a
runner thread launches no XLA program next to the training step), and enqueue the
examples as elements under one queue lock.

What is kept from the per-example run:

- the records, their order and the elements enqueued: one thread enqueues the
  records of a file in order, as one after another ``sess.run`` would (the reader
  reads a file to its end before it dequeues the next file name);
- ``OutOfRangeError`` once the reader's queue is closed and empty (the runner then
  closes the queue as before); the queue's ``capacity`` (an enqueue blocks element
  by element while the queue is full) and cancellation;
- errors: when the batch fails, its records are run again one by one as the
  per-example ops would run them, so the examples before a bad record are
  enqueued and the error raised is the per-example one (the same class and
  message, naming the feature); the records after it are kept for the next call.
  A record the reader cannot read (``DataLossError`` naming the file) ends the
  batch: the records before it are enqueued and the next call raises the error.

What changes: a thread reads up to ``CHUNK`` records before it enqueues any, so
threads interleave by chunks rather than by examples (TF does not order examples
across threads either) and a reader's ``num_records_produced`` advances a chunk at
a time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1.client.session_config import timeout_ms
from adapters.v1.framework import _x64, ops
from adapters.v1.ops.data_flow_ops import blocking_deadline, session_state
from jtrain import errors

__all__ = ["CHUNK", "batched_step", "numpy_moves", "pure_device_op"]

# Records per call: large enough that per-call costs vanish, small enough that the
# first batch is not delayed and a runner stops soon after its coordinator asks.
CHUNK = 64

_READ = "ReaderReadV2"
_ENQUEUE = "QueueEnqueueV2"


def _host_device() -> Any:
    """The CPU device for host-side programs, or ``None`` (JAX's default) without one."""
    import jax

    try:
        return jax.devices("cpu")[0]
    except RuntimeError:  # JAX_PLATFORMS names no CPU
        return None


class _Pending:
    """Records read but not yet enqueued (after an error in their batch), per session."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.records: list[tuple[bytes, bytes]] = []


# Device ops a plan may hold: pure functions of their inputs, elementwise or of one
# example's shape (TF1 readers' "cast, scale, reshape" after decode_raw). They run as
# the step program runs them, per example, under jax.vmap: one program per batch.
_DEVICE_OPS = frozenset(
    "Const Identity Cast Reshape ExpandDims Squeeze Fill Add AddV2 Sub Mul RealDiv Div "
    "Maximum Minimum Neg Abs Square Sqrt Rsqrt Floor Ceil Round Exp Log Tanh Sigmoid".split()
)


class _Plan:
    """The enqueue's subgraph: one read, row-wise host ops, device ops, the enqueue."""

    def __init__(
        self,
        read: ops.Operation,
        order: list[ops.Operation],
        device: list[ops.Operation],
        enqueue: ops.Operation,
    ):
        self.read = read
        self.order = order
        self.enqueue = enqueue
        self.device = device
        made = {t for op in device for t in op.outputs}
        # What the device ops read from the host ops, what the enqueue reads from them.
        self.device_in = list(dict.fromkeys(t for op in device for t in op.inputs if t not in made))
        self.device_out = list(dict.fromkeys(t for t in enqueue.inputs if t in made))
        self._programs: dict[bool, Any] = {}
        # Per input signature of a batch: its program as NumPy moves (or None: jitted).
        self._moves: dict[tuple, Callable[..., list[np.ndarray]] | None] = {}

    def _function(self, session: Any) -> Callable[..., tuple[Any, ...]]:
        """The device ops as a function of one example's values (as the step traces them)."""
        from adapters.v1.client.session import RunContext
        from adapters.v1.framework import auto_mixed_precision

        plan = self

        def one(*values: Any) -> tuple[Any, ...]:
            memo = dict(zip(plan.device_in, values, strict=True))
            ctx = RunContext({}, memo)
            with auto_mixed_precision.scope(session._compute_dtype):
                ctx.run_ops(plan.device)
            return tuple(memo[t] for t in plan.device_out)

        return one

    def _program(self, session: Any, batched: bool) -> Any:
        """The device ops as one jitted function (of one example, or vmapped over a batch)."""
        program = self._programs.get(batched)
        if program is None:
            import jax

            one = self._function(session)
            program = jax.jit(jax.vmap(one) if batched else one)
            self._programs[batched] = program
        return program

    def _host_moves(self, session: Any, values: list) -> Callable[..., list[np.ndarray]] | None:
        """The batch program as NumPy reshapes and integer casts, where it is only those."""
        key = tuple((np.shape(v), np.asarray(v).dtype) for v in values)
        if key not in self._moves:
            import jax

            specs = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in key]
            with _x64.exact():
                closed = jax.make_jaxpr(jax.vmap(self._function(session)))(*specs)
            self._moves[key] = numpy_moves(closed)
        return self._moves[key]

    def _run_device(self, session: Any, got: dict, batched: bool) -> None:
        if not self.device:
            return
        values = [got[t] for t in self.device_in]
        moves = self._host_moves(session, values) if batched else None
        if moves is not None:
            outs = moves(*values)  # no XLA launch from a runner thread for a reshape or cast
        else:
            import jax

            # On the host's CPU, as TF places queue input pipelines: on a GPU machine a
            # batch would otherwise go to the GPU and back before entering a host queue.
            with jax.default_device(_host_device()):
                outs = [np.asarray(v) for v in self._program(session, batched)(*values)]
        got.update(zip(self.device_out, outs, strict=True))

    def run_batch(self, session: Any, keys: list, values: list) -> list[np.ndarray]:
        """The enqueue's input columns for these records (row-wise batch forms)."""
        key_col = np.empty(len(keys), dtype=object)
        value_col = np.empty(len(values), dtype=object)
        key_col[:], value_col[:] = keys, values
        got: dict[ops.Tensor, Any] = {
            self.read.outputs[0]: key_col,
            self.read.outputs[1]: value_col,
        }
        for op in self.order:
            outs = op._batch(session, *[got[t] for t in op.inputs])
            for t, v in zip(op.outputs, outs, strict=True):
                got[t] = v
        self._run_device(session, got, batched=True)
        return [got[t] for t in self.enqueue.inputs]

    def run_one(self, session: Any, key: bytes, value: bytes) -> None:
        """One record through the per-example ops, as a ``sess.run(enqueue)`` would."""
        got: dict[ops.Tensor, Any] = {self.read.outputs[0]: key, self.read.outputs[1]: value}
        for op in self.order:
            outs = op._compute(session, *[got[t] for t in op.inputs])
            for t, v in zip(op.outputs, outs, strict=True):
                got[t] = v
        self._run_device(session, got, batched=False)
        self.enqueue._compute(session, *[got[t] for t in self.enqueue.inputs])


def numpy_moves(closed: Any) -> Callable[..., list[np.ndarray]] | None:
    """``closed`` (a jaxpr) as a NumPy function, or None when it computes anything.

    Only data moves and casts whose results NumPy gives bit for bit: ``reshape``,
    ``squeeze``, ``broadcast_in_dim`` adding unit dimensions, and
    ``convert_element_type`` between integer and bool types (two's complement
    wrap-around, ``!= 0`` for bool, as XLA's convert); float casts stay on XLA.
    """
    from jax.extend.core import Literal

    jaxpr = closed.jaxpr
    if closed.consts or jaxpr.constvars or any(isinstance(v, Literal) for v in jaxpr.outvars):
        return None
    steps = []
    for eqn in jaxpr.eqns:
        name, params = eqn.primitive.name, eqn.params
        out = eqn.outvars[0].aval
        if len(eqn.outvars) != 1 or any(isinstance(v, Literal) for v in eqn.invars):
            return None  # a literal operand: arithmetic, not a move
        if name == "convert_element_type":
            src, dst = np.dtype(eqn.invars[0].aval.dtype), np.dtype(params["new_dtype"])
            if src.kind not in "biu" or dst.kind not in "biu":
                return None
        elif name == "broadcast_in_dim":
            if int(np.prod(out.shape)) != int(np.prod(eqn.invars[0].aval.shape)):
                return None  # a real broadcast
        elif name == "reshape":
            if params.get("dimensions") is not None:
                return None
        elif name != "squeeze":
            return None
        steps.append((eqn.invars[0], eqn.outvars[0], np.dtype(out.dtype), tuple(out.shape)))

    def run(*values: Any) -> list[np.ndarray]:
        env = {v: np.asarray(x) for v, x in zip(jaxpr.invars, values, strict=True)}
        for src, dst, dtype, shape in steps:
            env[dst] = env[src].astype(dtype, copy=False).reshape(shape)
        return [env[v] for v in jaxpr.outvars]

    return run


def pure_device_op(op: ops.Operation) -> bool:
    return (
        op._host is None
        and op.type in _DEVICE_OPS
        and op._compute is not None
        and not (op._reads or op._writes or op._collective)
    )


def _traces(sess: Any, plan: _Plan) -> bool:
    """Whether the plan's device ops trace, vmapped, on their inputs' static shapes
    (True without a check where a dimension is known only at run time)."""
    if not plan.device:
        return True
    import jax

    specs = []
    for t in plan.device_in:
        shape = t._shape
        if shape is None or np.dtype(t.dtype).kind == "O":
            return False
        if any(d is None for d in shape):
            # A dimension known only at run time (``decode_raw``'s width, reshaped to
            # one example's shape): each batch traces its own; a batch whose program
            # fails runs record by record, raising the per-example error.
            return True
        specs.append(jax.ShapeDtypeStruct((2, *shape), np.dtype(t.dtype)))
    try:
        with _x64.exact():
            jax.eval_shape(plan._program(sess, batched=True), *specs)
    except Exception:  # an op that needs more than its inputs: per-example runs
        plan._programs.clear()
        return False
    return True


def _plan(enqueue: ops.Operation) -> _Plan | None:
    """The plan of ``enqueue``'s subgraph, or None when it is not one read and row-wise ops."""
    if enqueue.type != _ENQUEUE or enqueue._batch is None or enqueue.control_inputs:
        return None
    reads: set[ops.Operation] = set()
    order: list[ops.Operation] = []
    device: list[ops.Operation] = []
    seen: set[ops.Operation] = set()

    def visit(op: ops.Operation) -> bool:
        if op in seen:
            return True
        seen.add(op)
        if op.control_inputs:
            return False
        if pure_device_op(op):
            if not all(visit(t.op) for t in op.inputs):
                return False
            device.append(op)
            return True
        if op._batch is None or op._host != "pre":
            return False
        if op.type == _READ:
            reads.add(op)
            return True
        if not op.inputs or not all(visit(t.op) for t in op.inputs):
            return False
        order.append(op)  # after its inputs' ops: a topological order
        return True

    if not enqueue.inputs or not all(visit(t.op) for t in enqueue.inputs):
        return None
    if len(reads) != 1:
        return None
    return _Plan(reads.pop(), order, device, enqueue)


def batched_step(sess: Any, enqueue: ops.Operation) -> Callable[[], None] | None:
    """A function doing up to :data:`CHUNK` runs of ``enqueue`` in ``sess``, or None.

    None when ``sess`` is not a plain ``Session`` or ``enqueue`` is not one read
    followed by host ops with a batch form and allowlisted pure device ops whose
    vmapped program traces (the runner then calls ``sess.run(enqueue)``).

    Args:
      sess: the session the runner runs in.
      enqueue: the runner's enqueue op.

    Returns:
      A function of no arguments, or None. It raises what ``sess.run(enqueue)``
      raises: ``RuntimeError`` once the session is closed, ``OutOfRangeError`` when
      the input ran out, the per-example op's error for a bad record.
    """
    from adapters.v1.client.session import Session

    if not isinstance(sess, Session) or enqueue.graph is not sess.graph:
        return None
    plan = _plan(enqueue)
    if plan is None or not _traces(sess, plan):
        return None
    pending = session_state(sess, plan.enqueue, _Pending)

    def step() -> None:
        if sess._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        with _x64.exact(), blocking_deadline(timeout_ms(sess._config, None)):
            with pending.lock:
                records, pending.records = pending.records[:CHUNK], pending.records[CHUNK:]
            if records:
                keys, values = [k for k, _ in records], [v for _, v in records]
            else:
                keys, values = plan.read._batch(sess, CHUNK)
            try:
                # The put checks the elements before it puts any: a failed check
                # leaves the queue as it was.
                plan.enqueue._batch(sess, plan.run_batch(sess, keys, values))
            except (errors.CancelledError, errors.DeadlineExceededError):
                raise  # from the put itself: the queue closed or the run timed out
            except Exception:
                # Run them one by one: the good ones are enqueued and the error raised is
                # the per-example op's; the records after the bad one wait for the next call.
                for i, (key, value) in enumerate(zip(keys, values, strict=True)):
                    try:
                        plan.run_one(sess, key, value)
                    except Exception:
                        with pending.lock:
                            rest = list(zip(keys[i + 1 :], values[i + 1 :], strict=True))
                            pending.records = rest + pending.records
                        raise

    return step
