"""``tf.train.replica_device_setter``: TF1's variable placement, recorded.

TF1 placed variables on parameter-server tasks (round-robin over ``ps`` tasks) and
the rest of the graph on the worker. In jtrain's SPMD model (see
``server_lib.py``) every worker holds every variable and XLA places the
computation, so the device names this function returns are only recorded on each
op (``Operation.device``), for scripts and tools that read them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from adapters.v1.framework.device_spec import DeviceSpec
from adapters.v1.training.server_lib import ClusterSpec

__all__ = ["replica_device_setter"]

_log = logging.getLogger(__name__)

STANDARD_PS_OPS = (
    "Variable",
    "VariableV2",
    "AutoReloadVariable",
    "MutableHashTable",
    "MutableHashTableV2",
    "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2",
    "MutableDenseHashTable",
    "MutableDenseHashTableV2",
    "VarHandleOp",
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    "ResourceConditionalAccumulator",
    "DecisionTreeResource",
)


class _RoundRobinStrategy:
    """The next ps task index, cycling over ``num_tasks`` tasks."""

    def __init__(self, num_tasks: int):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op: Any) -> int:
        task = self._next_task
        self._next_task = (task + 1) % self._num_tasks
        return task


def replica_device_setter(
    ps_tasks: int = 0,
    ps_device: str = "/job:ps",
    worker_device: str = "/job:worker",
    merge_devices: bool = True,
    cluster: Any = None,
    ps_ops: list[str] | None = None,
    ps_strategy: Callable[[Any], int] | None = None,
) -> Callable[[Any], str] | None:
    """A device function for ``tf.device``: variables on ps tasks, the rest on the worker.

    Args:
      ps_tasks: the number of ps tasks (ignored when ``cluster`` is given).
      ps_device: the ps job's device prefix (default ``"/job:ps"``).
      worker_device: this worker's device (default ``"/job:worker"``).
      merge_devices: merge the chosen device with the op's own (set by inner scopes)
        field by field, the op's fields winning, as ``DeviceSpec.make_merged_spec``;
        False: an op with a device keeps it as it is (default True).
      cluster: a ``ClusterSpec``, dict or ``ClusterDef``; its ps job gives ``ps_tasks``.
      ps_ops: op types placed on ps tasks (default: TF's variable and table ops).
      ps_strategy: ``op -> ps task index`` (default: round robin).

    Returns:
      The device function, or None when there are no ps tasks (as TF). It returns
      canonical names (``/job:ps/task:0/device:CPU:0``). A ps op takes a task from
      ``ps_strategy`` only when its own job is unset or the ps job.

    Raises:
      TypeError: ``cluster`` cannot be a ``ClusterSpec``, or ``ps_strategy`` is not
        callable.
    """
    if cluster is not None:
        spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        jobs = spec.as_dict()
        ps_job = DeviceSpec.from_string(ps_device).job
        if ps_job not in jobs or jobs[ps_job] is None:
            return None
        ps_tasks = len(jobs[ps_job])
    if ps_tasks == 0:
        return None
    ps_ops = list(STANDARD_PS_OPS) if ps_ops is None else list(ps_ops)
    if not merge_devices:
        _log.warning(
            "DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter"
        )
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")

    def device_function(op: Any) -> str:
        # As TF's _ReplicaDeviceChooser: the chosen device merged field by field with
        # the op's own (set by inner scopes), written canonically.
        if not merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        if ps_device and op.type in ps_ops:
            ps_spec = DeviceSpec.from_string(ps_device)
            if ps_spec.job and (not current.job or current.job == ps_spec.job):
                ps_spec = ps_spec.replace(task=ps_strategy(op))
            return ps_spec.make_merged_spec(current).to_string()
        worker_spec = DeviceSpec.from_string(worker_device or "")
        return worker_spec.make_merged_spec(current).to_string()

    return device_function
