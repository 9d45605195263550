"""``tf.distribute.cluster_resolver``: where the tasks of a training cluster are.

A resolver gives a ``tf.train.ClusterSpec`` (``cluster_spec()``), this task's
``task_type``/``task_id`` and the ``master()`` address; jtrain's ``tf.train.Server``
starts JAX's multi-process runtime from them. ``TFConfigClusterResolver`` reads the
``TF_CONFIG`` environment variable (JSON: ``cluster``, ``task``, ``rpc_layer``,
``session_master``) at each call, as TF does.
"""

from __future__ import annotations

import abc
import json
import os
from typing import Any

import jax

from adapters.v1._missing import missing_name_getattr
from adapters.v1.training.server_lib import ClusterSpec

__all__ = [
    "ClusterResolver",
    "SimpleClusterResolver",
    "TFConfigClusterResolver",
    "UnionResolver",
]


def format_master_url(master: str, rpc_layer: str | None = None) -> str:
    """``rpc_layer://master``, or ``master`` without an RPC layer."""
    return f"{rpc_layer}://{master}" if rpc_layer else master


class ClusterResolver(abc.ABC):
    """The interface of cluster resolvers: ``cluster_spec()``, ``master()``, the task."""

    @abc.abstractmethod
    def cluster_spec(self) -> ClusterSpec:
        """The cluster's ``tf.train.ClusterSpec``."""

    @abc.abstractmethod
    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        """The address of the master (of ``task_type``/``task_id`` when given)."""

    def num_accelerators(
        self, task_type: str | None = None, task_id: int | None = None, config_proto: Any = None
    ) -> dict[str, int]:
        """This machine's devices by type, as TF counts a local session's devices: its
        CPU (one, however many host devices JAX was told to make) and each GPU
        (``{"CPU": 1, "GPU": 2}``).

        .. note:: TF opens a session on the master to list a remote task's devices;
           jtrain counts this process's.
        """
        counts: dict[str, int] = {"CPU": 1}
        for device in jax.local_devices():
            if device.platform != "cpu":
                kind = device.platform.upper()
                counts[kind] = counts.get(kind, 0) + 1
        return counts

    @property
    def environment(self) -> str:
        """The environment TF runs in: ``""`` outside Google."""
        return ""

    @property
    def task_type(self) -> str | None:
        """This task's job name (None when unknown)."""
        return getattr(self, "_task_type", None)

    @property
    def task_id(self) -> int | None:
        """This task's index in its job (None when unknown)."""
        return getattr(self, "_task_id", None)


class SimpleClusterResolver(ClusterResolver):
    """A resolver returning what it is given.

    Args:
      cluster_spec: a ``tf.train.ClusterSpec``.
      master: the master's address (default ``''``).
      task_type: this task's type (default None).
      task_id: this task's index (default None).
      environment: default ``''``.
      num_accelerators: accelerators by type (default None: ``{}``).
      rpc_layer: e.g. ``"grpc"`` (default None).

    Raises:
      TypeError: ``cluster_spec`` is not a ``ClusterSpec``, or ``master`` not a string.
    """

    def __init__(
        self,
        cluster_spec: ClusterSpec,
        master: str = "",
        task_type: str | None = None,
        task_id: int | None = None,
        environment: str = "",
        num_accelerators: dict[str, int] | None = None,
        rpc_layer: str | None = None,
    ):
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        if not isinstance(master, str):
            raise TypeError("master must be a string.")
        self._cluster_spec = cluster_spec
        self._master = master
        self._task_type = task_type
        self._task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators
        self._rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        """The ``ClusterSpec`` given."""
        return self._cluster_spec

    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        """The address of ``task_type``/``task_id`` in the cluster when both are given,
        else the ``master`` given; prefixed with ``rpc_layer://`` when there is one."""
        if task_type is not None and task_id is not None:
            address = self._cluster_spec.task_address(task_type, task_id)
        else:
            address = self._master
        return format_master_url(address, rpc_layer or self._rpc_layer)

    @property
    def task_type(self) -> str | None:
        """This task's job name."""
        return self._task_type

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:
        """This task's index."""
        return self._task_id

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def environment(self) -> str:
        """The ``environment`` given."""
        return self._environment

    @property
    def rpc_layer(self) -> str | None:
        """The RPC layer."""
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer

    def num_accelerators(
        self, task_type: str | None = None, task_id: int | None = None, config_proto: Any = None
    ) -> dict[str, int]:
        """The ``num_accelerators`` given (``{}`` when None)."""
        return {} if self._num_accelerators is None else self._num_accelerators


def _tf_config() -> dict[str, Any]:
    """``TF_CONFIG``'s JSON (``{}`` when unset)."""
    return json.loads(os.environ.get("TF_CONFIG", "{}"))


class TFConfigClusterResolver(ClusterResolver):
    """The cluster of the ``TF_CONFIG`` environment variable (read at each call).

    Args:
      task_type: this task's type (default None: ``TF_CONFIG``'s ``task``).
      task_id: this task's index (default None: ``TF_CONFIG``'s ``task``).
      rpc_layer: the RPC layer (default None: ``TF_CONFIG``'s ``rpc_layer``).
      environment: default None.
    """

    def __init__(
        self,
        task_type: str | None = None,
        task_id: int | None = None,
        rpc_layer: str | None = None,
        environment: str | None = None,
    ):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self) -> str | None:
        """The task type given, else ``TF_CONFIG``'s ``task.type`` (None if absent)."""
        if self._task_type is not None:
            return str(self._task_type)
        task = _tf_config().get("task", {})
        return str(task["type"]) if "type" in task else None

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:
        """The task id given, else ``TF_CONFIG``'s ``task.index`` (None if absent)."""
        if self._task_id is not None:
            return int(self._task_id)
        task = _tf_config().get("task", {})
        return int(task["index"]) if "index" in task else None

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def environment(self) -> Any:
        """The ``environment`` given (None by default)."""
        return self._environment

    @property
    def rpc_layer(self) -> str | None:
        """The RPC layer given, else ``TF_CONFIG``'s ``rpc_layer``."""
        return self._rpc_layer if self._rpc_layer is not None else _tf_config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        """``TF_CONFIG``'s ``cluster`` as a ``ClusterSpec`` (empty without one)."""
        return ClusterSpec(_tf_config().get("cluster", {}))

    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        """``TF_CONFIG``'s ``session_master`` if set; ``''`` for a cluster of at most
        one task; else the address of the task (this one by default), prefixed with
        ``rpc_layer://`` when there is an RPC layer."""
        config = _tf_config()
        if config.get("session_master") is not None:
            return config["session_master"]
        spec = self.cluster_spec()
        jobs = spec.jobs
        if not jobs or (len(jobs) == 1 and len(spec.job_tasks(jobs[0])) == 1):
            return ""
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        rpc_layer = rpc_layer if rpc_layer is not None else self.rpc_layer
        return format_master_url(spec.task_address(task_type, task_id), rpc_layer)


class UnionResolver(ClusterResolver):
    """The union of several resolvers' clusters (TF's ``UnionResolver``).

    ``master()`` is the first resolver's unless a task is named.

    Args:
      *args: the resolvers (at least one).
      **kwargs: ``task_type``, ``task_id``, ``rpc_layer`` of this task (default: the
        first resolver's).

    Raises:
      ValueError: no resolver given.
      TypeError: an argument is not a ``ClusterResolver``.
    """

    def __init__(self, *args: ClusterResolver, **kwargs: Any):
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        for resolver in args:
            if not isinstance(resolver, ClusterResolver):
                raise TypeError(
                    "All arguments must be a sub-class of `ClusterResolver.` "
                    f"{type(resolver)} is not"
                )
        self._resolvers = args

    def cluster_spec(self) -> ClusterSpec:
        """The union of the resolvers' cluster specs: a job listed (as a list) by
        several resolvers gets their tasks one after the other; a job given as a dict
        of task indices by any of them is merged by index.

        Raises:
          KeyError: two resolvers give the same task index of a job.
        """
        specs = [resolver.cluster_spec().as_dict() for resolver in self._resolvers]
        merged: dict[str, Any] = {}
        for spec in specs:
            for job, tasks in spec.items():
                if job not in merged:
                    merged[job] = [] if isinstance(tasks, list) else {}
                elif isinstance(tasks, dict):
                    merged[job] = {}
        for spec in specs:
            for job, tasks in spec.items():
                if isinstance(merged[job], list):
                    merged[job].extend(tasks)
                    continue
                given = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                clash = set(given) & set(merged[job])
                if clash:
                    raise KeyError(
                        f"Duplicate keys detected when merging two ClusterSpecs: {clash!r}"
                    )
                merged[job].update(given)
        return ClusterSpec(merged)

    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        """The first resolver's master (of ``task_type``/``task_id`` when given)."""
        if task_type is not None and task_id is not None:
            address = self.cluster_spec().task_address(task_type, task_id)
            return format_master_url(address, rpc_layer or self._rpc_layer)
        return self._resolvers[0].master(rpc_layer=rpc_layer)

    @property
    def task_type(self) -> str | None:
        """The task type given, else the first resolver's."""
        return self._task_type or self._resolvers[0].task_type

    @property
    def task_id(self) -> int | None:
        """The task id given, else the first resolver's."""
        return self._task_id if self._task_id is not None else self._resolvers[0].task_id

    @property
    def environment(self) -> str:
        """The first resolver's environment."""
        return self._resolvers[0].environment

    @property
    def rpc_layer(self) -> str | None:
        """The RPC layer given, else the first resolver's."""
        return self._rpc_layer or getattr(self._resolvers[0], "rpc_layer", None)


__getattr__ = missing_name_getattr("tf.distribute.cluster_resolver", globals())
