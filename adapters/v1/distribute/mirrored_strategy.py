"""``tf.distribute.MirroredStrategy``: synchronous replicas on the devices of one machine.

On a machine without GPUs TF's ``MirroredStrategy()`` has one replica, on
``/cpu:0``; jtrain gives that strategy, with TF's values (see
``distribute_lib``'s docstring), on any machine: ``MirroredStrategy()`` and
``MirroredStrategy(devices=[one device])`` have one replica.

.. note:: Several devices are not supported (``UnimplementedError``): TF calls the step
   function once per device, on each device's share of the batch, and reduces the
   per-replica values; jtrain's data parallelism (``tf.jax_data_parallel()``) compiles
   one step over the whole batch and lets XLA split it, which gives the values of one
   device on the whole batch, not TF's per-replica values (a per-replica batch
   normalization, a ``SUM`` of per-replica means). Use ``tf.jax_data_parallel()``
   with a one-replica strategy (or none) to spread a step over local GPUs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax

from adapters.v1.distribute import device_util, distribute_lib
from jtrain import errors

__all__ = ["MirroredStrategy"]


def _default_devices() -> list[str]:
    """TF's choice: every local GPU, else the CPU."""
    gpus = [d for d in jax.local_devices() if d.platform == "gpu"]
    return [f"/device:GPU:{i}" for i in range(len(gpus))] or ["/device:CPU:0"]


class _MirroredExtended(distribute_lib.StrategyExtended):
    _replica_scope = "update_0"  # TF names replica i's variable updates update_i
    _copies_sums = True

    def __init__(
        self,
        container_strategy: distribute_lib.Strategy,
        devices: tuple[str, ...],
        cross_device_ops: Any,
    ):
        super().__init__(container_strategy)
        self._devices = devices
        self._cross_device_ops = cross_device_ops

    @property
    def worker_devices_by_replica(self) -> list[list[str]]:
        """Each replica's devices (one list of one device)."""
        return [[device] for device in self._devices]

    def _replica_devices(self, context: distribute_lib.ReplicaContext) -> Any:
        return self.worker_devices_by_replica[:1]


class MirroredStrategy(distribute_lib.Strategy):
    """Synchronous training over replicas of one machine, variables mirrored on each.

    Args:
      devices: the replicas' devices (default None: every local GPU, else the CPU).
      cross_device_ops: a ``tf.distribute.CrossDeviceOps`` choosing how replicas'
        values are combined (default None: TF's choice); accepted, nothing to combine
        over one replica.

    Raises:
      ValueError: ``devices`` is a string (a list of strings is expected) or an
        empty list.
      AssertionError: a device is listed twice (TF's check).
      UnimplementedError: more than one device (see the module's note).
    """

    def __init__(self, devices: Sequence[str] | None = None, cross_device_ops: Any = None):
        if isinstance(devices, str):
            raise ValueError(
                f"MirroredStrategy(devices={devices!r}): `devices` is a list of device "
                "strings, e.g. ['/cpu:0']"
            )
        names = _default_devices() if devices is None else list(devices)
        if not names:
            raise ValueError("MirroredStrategy(devices=[]): `devices` must not be empty")
        canonical = tuple(device_util.canonicalize(d) for d in names)
        assert len(set(canonical)) == len(canonical), (
            f"No duplicates allowed in `devices` argument: {canonical}"
        )
        if len(canonical) > 1:
            raise errors.UnimplementedError(
                None,
                None,
                f"MirroredStrategy over {len(canonical)} devices {list(canonical)} is not "
                "supported: TF runs the step once per device on its share of the batch, "
                "which jtrain's data parallelism does not reproduce. Use "
                "MirroredStrategy(devices=[one device]) (or no strategy) and "
                "tf.jax_data_parallel() to spread each step over the local devices.",
            )
        super().__init__(_MirroredExtended(self, canonical, cross_device_ops))

    def update_config_proto(self, config_proto: Any) -> Any:
        """A copy of ``config_proto`` with ``isolate_session_state`` set, as TF's."""
        updated = super().update_config_proto(config_proto)
        updated.isolate_session_state = True
        return updated
