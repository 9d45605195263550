"""Steps run by every worker at once: the replica mesh of a multi-process job.

When a ``tf.train.Server`` of a worker (or chief) task has started JAX's
multi-controller runtime (``jax.distributed``), ``activate`` records the *replica
mesh*: one device of each process, axis ``"replicas"``, ordered by process index
(process 0 is the chief). From then on a ``Session.run`` whose device operations
include a *collective* one (an optimizer's gradient update) compiles its program
with ``shard_map`` over that mesh:

- variable values enter replicated (each process passes its own buffer, zero-copy)
  and leave replicated: every process keeps its own copy, equal on all of them
  because every update is averaged (``mean``) before it is applied;
- feeds and fetches are per replica: each process feeds its own batch (the same
  shapes on every worker) and gets back its own fetched values, as a TF worker does.

All other runs (initializers, hooks' reads, summaries) stay local to their process,
so the chief may run programs the workers do not. Every process must run its
collective steps in the same order (one ``Session.run`` of the training op each):
that is the contract of synchronous training.

``sync_from_chief(session)`` (collective) gives every process the chief's values of
the global variables; sessions call it once, when created by a ``SessionManager``
or before their first collective step.

A process that dies (or whose connection breaks) fails the collective on every
other process: its step raises ``UnavailableError`` naming the lost peer, as a TF
worker's step does when a task of its job is gone. JAX's runtime cannot take a
process back into a running job: restart the whole job, which resumes from the
chief's latest checkpoint.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jtrain import errors
from jtrain.indexed_slices import IndexedSlices, is_indexed_slices

__all__ = [
    "AXIS",
    "Replicas",
    "activate",
    "active",
    "in_collective_step",
    "mean",
    "sync_from_chief",
]

AXIS = "replicas"
_log = logging.getLogger(__name__)


class Replicas:
    """The replica mesh: one device of each process of the job."""

    def __init__(self, devices: list[Any]):
        self.mesh = Mesh(np.array(devices), (AXIS,))
        self.count = len(devices)
        self.index = jax.process_index()
        local = [d for d in devices if d.process_index == self.index]
        self.device = local[0]
        self.replicated = NamedSharding(self.mesh, P())
        self.split = NamedSharding(self.mesh, P(AXIS))

    def to_replicated(self, value: Any) -> jax.Array:
        """``value`` (this process's copy) as a replicated global array."""
        if isinstance(value, jax.Array) and value.sharding == self.replicated:
            return value
        local = self._local(value)
        return jax.make_array_from_single_device_arrays(local.shape, self.replicated, [local])

    def to_split(self, value: Any) -> jax.Array:
        """``value`` (this process's feed) as its row of a ``[replicas, ...]`` array."""
        local = self._local(np.asarray(value)[None])
        shape = (self.count, *local.shape[1:])
        return jax.make_array_from_single_device_arrays(shape, self.split, [local])

    def _local(self, value: Any) -> jax.Array:
        if isinstance(value, jax.Array) and value.devices() == {self.device}:
            return value
        return jax.device_put(np.asarray(value), self.device)

    @staticmethod
    def local_value(value: jax.Array) -> jax.Array:
        """This process's buffer of a global array (no copy)."""
        return value.addressable_shards[0].data


_state: Replicas | None = None
_tracing = threading.local()


def activate(devices: list[Any]) -> Replicas:
    """Records the replica mesh (``devices``: one per process, by process index)."""
    global _state
    _state = Replicas(devices)
    return _state


def deactivate() -> None:
    global _state
    _state = None


def active() -> Replicas | None:
    """The replica mesh of this process's job, or None outside a multi-process job."""
    return _state


@contextlib.contextmanager
def _collective_trace() -> Iterator[None]:
    outer = getattr(_tracing, "on", False)
    _tracing.on = True
    try:
        yield
    finally:
        _tracing.on = outer


def in_collective_step() -> bool:
    """Whether a collective step (over the replica mesh) is being traced."""
    return getattr(_tracing, "on", False)


def mean(value: Any) -> Any:
    """``value`` averaged over the replicas inside a collective step, else unchanged.

    A sparse ``IndexedSlices`` gradient stays sparse: every replica's rows, each
    divided by the number of replicas (their sum is the dense mean).
    """
    if not in_collective_step():
        return value
    if is_indexed_slices(value):
        count = jax.lax.psum(1, AXIS)
        values = jax.lax.all_gather(value.values, AXIS, tiled=True)
        indices = jax.lax.all_gather(value.indices, AXIS, tiled=True)
        return IndexedSlices(values / np.asarray(count, values.dtype), indices, value.dense_shape)
    return jax.lax.pmean(value, AXIS)


_lost: list[str] = []  # why the job's collectives are broken in this process, once known


def peer_lost() -> str | None:
    """Why a collective failed because a process of the job is gone (None: it did not)."""
    return _lost[0] if _lost else None


# Words of XLA's collective runtimes (gloo on the CPU, NCCL on GPUs) and of JAX's
# coordination service when a peer process is gone.
_PEER_LOST = ("Gloo", "Connection closed by peer", "NCCL", "UNAVAILABLE", "ABORTED")


@contextlib.contextmanager
def peer_errors(what: str) -> Iterator[None]:
    """Turns a collective's failure because a peer is gone into ``UnavailableError``.

    Args:
      what: the collective that ran, for the message (e.g. ``"a training step"``).

    Raises:
      UnavailableError: another process of the job died or became unreachable.
    """
    if _lost:
        raise _unavailable(what, _lost[0])
    try:
        yield
    except (jax.errors.JaxRuntimeError, ValueError) as e:
        text = str(e)
        if not any(word in text for word in _PEER_LOST):
            raise
        _lost.append(text.strip().splitlines()[0])
        _log.error("%s failed: a process of the job is gone: %s", what, text)
        raise _unavailable(what, _lost[0]) from e


def _unavailable(what: str, why: str) -> errors.UnavailableError:
    return errors.UnavailableError(
        None,
        None,
        f"{what} failed on process {jax.process_index()} of {jax.process_count()}: a "
        f"process of the job is gone ({why}). JAX's runtime cannot take a process back "
        "into a running job: restart every task; the chief resumes from its latest "
        "checkpoint.",
    )


def collective_program(
    replicas: Replicas, program: Callable, compiler_options: dict[str, Any] | None = None
) -> Callable:
    """``program(donated, read, feeds) -> (new values, fetched)`` run on every replica.

    The result takes and returns this process's values (see the module docstring);
    ``compiler_options`` go to its ``jax.jit``.
    """

    def body(donated, read, feeds):
        feeds = [f[0] for f in feeds]
        with _collective_trace():
            new_vars, fetched = program(donated, read, feeds)
        fetched = [None if v is None else jax.numpy.asarray(v)[None] for v in fetched]
        return new_vars, fetched

    mapped = jax.jit(
        jax.shard_map(
            body,
            mesh=replicas.mesh,
            in_specs=(P(), P(), P(AXIS)),
            out_specs=(P(), P(AXIS)),
            check_vma=False,
        ),
        donate_argnums=(0,),
        compiler_options=compiler_options,
    )

    def run(donated, read, feeds):
        args = (
            [replicas.to_replicated(v) for v in donated],
            [replicas.to_replicated(v) for v in read],
            [replicas.to_split(f) for f in feeds],
        )
        with peer_errors("a training step"):
            new_vars, fetched = mapped(*args)
        new_vars = [replicas.local_value(v) for v in new_vars]
        fetched = [None if v is None else np.asarray(replicas.local_value(v))[0] for v in fetched]
        return new_vars, fetched

    return run


def sync_from_chief(session: Any) -> None:
    """Every process's global variables take the chief's values (collective).

    Every process of the job must call it at the same point, with the same graph.
    """
    replicas = active()
    if replicas is None:
        return
    from adapters.v1.framework import _x64, ops

    store = session.variable_store
    graph = session.graph
    initialized = store.initialized()
    variables = sorted(
        (v for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) if v in initialized),
        key=lambda v: v.op.name,
    )
    # Host-only values (strings) are not device buffers and stay as they are.
    variables = [v for v in variables if isinstance(store.read(v), jax.Array)]
    if not variables:
        return

    def body(values):
        return [jax.lax.all_gather(v, AXIS)[0] for v in values]

    program = jax.jit(
        jax.shard_map(body, mesh=replicas.mesh, in_specs=(P(),), out_specs=P(), check_vma=False)
    )
    with _x64.exact(), store.locked(), peer_errors("taking the chief's values"):
        values = program([replicas.to_replicated(v) for v in store.buffers(variables)])
        store.commit({v: replicas.local_value(x) for v, x in zip(variables, values, strict=True)})
        for v in variables:
            store.set_host_copy(v, None)
