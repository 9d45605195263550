"""``tf.jax_data_parallel``: every ``Session.run`` of a graph data-parallel over local devices.

TF1 spread a step over several GPUs of one machine by hand (one "tower" per
device, gradients averaged on the CPU). jtrain does it with XLA's SPMD
partitioner: after ``tf.jax_data_parallel()``, each run of the graph's sessions
(plain ``Session``, ``MonitoredTrainingSession``, ``Supervisor``...) is still one
compiled program, with its buffers donated, but

- every variable is *replicated*: each device holds a full copy, equal on all of
  them (an update is computed from the whole batch's gradients);
- each fed batch (and each batch a queue dequeues) is *split* along axis 0, one
  slice per device;
- XLA inserts the collectives (the all-reduce of the gradients, the gathers of
  fetched values), so the values are those of one device on the whole batch, up to
  the order of floating-point sums.

Which inputs are split (a layout choice: the values are the same either way):

- a fed value of rank 0 is replicated;
- a fed value whose placeholder has an unknown first dimension (``[None, ...]``,
  TF1's batch idiom) is split; its first dimension must be a multiple of the
  number of devices, else the run raises ``InvalidArgumentError`` naming the
  placeholder (TF's multi-tower scripts required the same: ``tf.split`` of the
  batch into equal towers);
- any other input (a placeholder of known first dimension, a dequeued batch) is
  split when its first dimension is a multiple of the number of devices, and
  replicated otherwise.

In a multi-process job (``tf.train.Server``), steps already run over one device of
each process; combining that with the local devices of each process is not
supported (``UnimplementedError``).
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from adapters.v1.framework import ops
from jtrain import errors

__all__ = ["jax_data_parallel", "mesh_for"]

AXIS = "batch"
_log = logging.getLogger(__name__)
_meshes: weakref.WeakKeyDictionary[ops.Graph, Mesh] = weakref.WeakKeyDictionary()


def jax_data_parallel(
    devices: Sequence[Any] | None = None, graph: ops.Graph | None = None
) -> Mesh | None:
    """Runs every ``Session.run`` of ``graph`` data-parallel over ``devices``.

    Call it before the graph's sessions run their first step (each kind of run is
    compiled once, for the devices set when it is first compiled). See the module
    docstring for what is split and what is replicated.

    Args:
      devices: JAX devices of this process (default None: ``jax.local_devices()``,
        e.g. every local GPU). An empty sequence switches data parallelism off.
      graph: the graph (default: the default graph).

    Returns:
      The one-axis mesh (axis ``"batch"``) the runs use, or None when switched off.

    Raises:
      InvalidArgumentError: a device belongs to another process.
      UnimplementedError: this process is a worker of a multi-process job.
    """
    from adapters.v1.client import _replicas

    graph = graph if graph is not None else ops.get_default_graph()
    if devices is not None and len(devices) == 0:
        _meshes.pop(graph, None)
        return None
    if _replicas.active() is not None:
        raise errors.UnimplementedError(
            None,
            None,
            "tf.jax_data_parallel over the local devices of a process of a multi-process "
            "job (tf.train.Server) is not supported: the job's steps already run over one "
            "device of each process. Start one process per device instead.",
        )
    devices = list(devices) if devices is not None else jax.local_devices()
    foreign = [d for d in devices if d.process_index != jax.process_index()]
    if foreign:
        raise errors.InvalidArgumentError(
            None, None, f"tf.jax_data_parallel: devices {foreign} belong to another process"
        )
    mesh = Mesh(np.array(devices), (AXIS,))
    _meshes[graph] = mesh
    _log.info("Session.run steps of the graph run data-parallel over %d devices", len(devices))
    return mesh


def mesh_for(graph: ops.Graph) -> Mesh | None:
    """The mesh ``graph``'s runs are data-parallel over, or None."""
    return _meshes.get(graph)


class DataParallelProgram:
    """``program(donated, read, feeds) -> (new values, fetched...)`` over a mesh.

    Variables enter and leave replicated; ``inputs[i]`` is the tensor that feeds
    ``feeds[i]`` (a placeholder or a host operation's output), which decides its
    split (module docstring). The jitted function is ``self.jitted``.
    """

    def __init__(
        self,
        mesh: Mesh,
        program: Callable,
        inputs: list[ops.Tensor],
        compiler_options: dict[str, Any] | None = None,
    ):
        self.mesh = mesh
        self.count = mesh.devices.size
        self.inputs = inputs
        self.replicated = NamedSharding(mesh, P())
        self.split = NamedSharding(mesh, P(AXIS))
        self.jitted = jax.jit(
            program,
            donate_argnums=(0,),
            out_shardings=self.replicated,
            compiler_options=compiler_options,
        )
        self.feed_shardings: list[NamedSharding] = []  # of the last run

    def _variable(self, value: Any) -> Any:
        if isinstance(value, jax.Array):
            if value.sharding == self.replicated:
                return value
        elif np.asarray(value).dtype.kind in "OSU":
            return value  # host-only (strings): never a device buffer
        return jax.device_put(value, self.replicated)

    def _feed_sharding(self, tensor: ops.Tensor, value: Any) -> NamedSharding:
        shape = np.shape(value)
        if not shape:
            return self.replicated
        if shape[0] % self.count == 0:
            return self.split
        declared = tensor._shape
        if tensor.op.type == "Placeholder" and (declared is None or declared[0] is None):
            raise errors.InvalidArgumentError(
                None,
                tensor.op,
                f"Cannot split the value of shape {tuple(shape)} fed for placeholder "
                f"'{tensor.op.name}' over {self.count} devices (tf.jax_data_parallel): its "
                f"first dimension must be a multiple of {self.count}. Feed a multiple of "
                f"{self.count} rows, or switch data parallelism off with "
                "tf.jax_data_parallel([]).",
            )
        return self.replicated

    def __call__(self, donated: list, read: list, feeds: list) -> Any:
        shardings = [self._feed_sharding(t, v) for t, v in zip(self.inputs, feeds, strict=True)]
        self.feed_shardings = shardings
        args = (
            [self._variable(v) for v in donated],
            [self._variable(v) for v in read],
            [jax.device_put(v, s) for v, s in zip(feeds, shardings, strict=True)],
        )
        return self.jitted(*args)
