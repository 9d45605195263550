"""The ``RunMetadata`` of a ``Session.run``: TF's step statistics, as jtrain can time them.

A run with ``options=tf.RunOptions(trace_level=...)`` at ``SOFTWARE_TRACE`` or above
fills ``run_metadata.step_stats`` as TF's ``StepStatsCollector`` does, with what a
jtrain step really consists of:

* each *host* operation (run in Python before or after the step program: a queue's
  dequeue, a summary's serialization) is one ``NodeExecStats`` on the host CPU
  device, named and labelled as TF names a node (``"name = Op(inputs)"``);
* the step program (every other operation, compiled by XLA into one program, whose
  operations XLA fuses and reorders: they have no times of their own) is one
  ``NodeExecStats`` named ``step_program``, on the device the program ran on, from
  its launch until its outputs are ready (a traced run waits for them). The first
  run of a set of fetches and feeds includes compiling its program, as its time
  did: trace a later one for the step alone.

Times are wall-clock (``*_micros`` and ``*_nanos`` since the epoch, ``*_rel_*``
relative to the node's start), measured on one monotonic clock. Device names are
TF's (``/job:localhost/replica:0/task:0/device:CPU:0``, ``...device:GPU:0``). As TF,
a run with ``run_metadata`` replaces the message's contents (TF parses the new
metadata into it), so a run without a trace level leaves it empty.
"""

from __future__ import annotations

import time
from typing import Any

import jax

from adapters.v1.framework.graph_def import input_name
from jtrain.protos.config_pb2 import RunMetadata, RunOptions
from jtrain.protos.step_stats_pb2 import NodeExecStats

__all__ = ["PROGRAM_NODE", "StepStatsCollector", "device_name", "fill_run_metadata", "traced"]

# The node name of the step program in the step statistics.
PROGRAM_NODE = "step_program"


def traced(options: Any) -> bool:
    """Whether ``options`` (a ``RunOptions`` or None) asks for step statistics.

    Args:
      options: the run's ``RunOptions`` (jtrain's or TF's message), or None.

    Returns:
      True for a ``trace_level`` of ``SOFTWARE_TRACE``, ``HARDWARE_TRACE`` or
      ``FULL_TRACE``.
    """
    if options is None:
        return False
    return int(getattr(options, "trace_level", 0) or 0) >= RunOptions.SOFTWARE_TRACE


def device_name(device: Any) -> str:
    """TF's name of a JAX device (``/job:localhost/replica:0/task:0/device:GPU:0``).

    The host's CPU devices are TF's one ``CPU:0``; an accelerator is numbered among
    the process's devices of its kind, as ``Session.list_devices`` numbers it.

    Args:
      device: a ``jax.Device``.

    Returns:
      The device's TF name.
    """
    prefix = f"/job:localhost/replica:0/task:{jax.process_index()}/device:"
    if device.platform == "cpu":
        return prefix + "CPU:0"
    kind = "TPU" if device.platform == "tpu" else "GPU"
    same = [d for d in jax.local_devices() if d.platform == device.platform]
    index = same.index(device) if device in same else device.id
    return f"{prefix}{kind}:{index}"


def _host_device() -> str:
    return f"/job:localhost/replica:0/task:{jax.process_index()}/device:CPU:0"


class StepStatsCollector:
    """Collects the ``NodeExecStats`` of one traced run, per device.

    Times come from ``time.perf_counter_ns`` (monotonic), placed on the wall clock
    by one reading of ``time.time_ns`` when the collector starts.
    """

    def __init__(self) -> None:
        self._wall_ns = time.time_ns()
        self._clock_ns = time.perf_counter_ns()
        self._devices: dict[str, list[NodeExecStats]] = {}

    @staticmethod
    def now() -> int:
        """The monotonic clock, in nanoseconds (a start or end for ``record``)."""
        return time.perf_counter_ns()

    def record(self, device: str, node_name: str, label: str, start_ns: int, end_ns: int) -> None:
        """Adds one node's execution, from ``start_ns`` to ``end_ns`` (``now()`` readings).

        Args:
          device: the TF name of the device it ran on.
          node_name: the node's name.
          label: its ``timeline_label`` (TF's ``"name = Op(inputs)"``).
          start_ns: when it started.
          end_ns: when it ended.
        """
        start = self._wall_ns + (start_ns - self._clock_ns)
        rel = max(end_ns - start_ns, 0)
        stats = NodeExecStats(
            node_name=node_name,
            timeline_label=label,
            all_start_micros=start // 1000,
            op_start_rel_micros=0,
            op_end_rel_micros=rel // 1000,
            all_end_rel_micros=rel // 1000,
            scheduled_micros=start // 1000,
            all_start_nanos=start,
            op_start_rel_nanos=0,
            op_end_rel_nanos=rel,
            all_end_rel_nanos=rel,
            scheduled_nanos=start,
        )
        self._devices.setdefault(device, []).append(stats)

    def record_host_op(self, op: Any, start_ns: int, end_ns: int) -> None:
        """Adds a host operation's execution, on the host CPU device.

        Args:
          op: the ``Operation``.
          start_ns: when it started (a ``now()`` reading).
          end_ns: when it ended.
        """
        inputs = [input_name(t) for t in op.inputs]
        inputs += ["^" + c.name for c in op.control_inputs]
        label = f"{op.name} = {op.type}({', '.join(inputs)})"
        self.record(_host_device(), op.name, label, start_ns, end_ns)

    def record_program(
        self, outputs: Any, program_inputs: list, start_ns: int, end_ns: int
    ) -> None:
        """Adds the step program's execution, on each device its outputs are on.

        Args:
          outputs: the program's outputs (nested lists of ``jax.Array``); their
            devices are the devices the program ran on (the default device when
            it has no array output).
          program_inputs: the tensors the program takes (feeds), for its label.
          start_ns: its launch (a ``now()`` reading).
          end_ns: when its outputs were ready.
        """
        devices: dict[Any, None] = {}
        for leaf in jax.tree_util.tree_leaves(outputs):
            for d in getattr(leaf, "devices", lambda: ())():
                devices[d] = None
        if not devices:
            devices[jax.devices()[0]] = None
        names = dict.fromkeys(device_name(d) for d in devices)
        label = f"{PROGRAM_NODE} = XlaProgram({', '.join(input_name(t) for t in program_inputs)})"
        for name in names:
            self.record(name, PROGRAM_NODE, label, start_ns, end_ns)

    def run_metadata(self) -> RunMetadata:
        """The collected statistics as a ``RunMetadata`` (host CPU first, as TF)."""
        metadata = RunMetadata()
        host = _host_device()
        order = sorted(self._devices, key=lambda name: (name != host, name))
        for name in order:
            dev = metadata.step_stats.dev_stats.add(device=name)
            dev.node_stats.extend(self._devices[name])
        return metadata


def fill_run_metadata(run_metadata: Any, collector: StepStatsCollector | None) -> None:
    """Replaces ``run_metadata``'s contents with a run's metadata, as TF does.

    TF parses the run's metadata into the caller's message (``ParseFromString``),
    which clears it first: without a trace the message ends up empty.

    Args:
      run_metadata: the caller's ``RunMetadata`` (jtrain's or TF's message).
      collector: the run's statistics, or None for a run without a trace level.

    Raises:
      AttributeError: ``run_metadata`` is not a proto message (TF's error, raised
        after the run as TF raises it).
    """
    data = b"" if collector is None else collector.run_metadata().SerializeToString()
    run_metadata.ParseFromString(data)
