"""``tf.distribute.CrossDeviceOps`` and its kinds: how ``MirroredStrategy`` reduces values.

``NcclAllReduce``, ``HierarchicalCopyAllReduce`` and ``ReductionToOneDevice`` choose
how several devices' values are combined; jtrain's strategies have one replica, so
each reduction of one replica's value is that value (copied, an ``Identity``, as TF
copies it to the destination). They are accepted by ``MirroredStrategy``'s
``cross_device_ops`` and validate their arguments as TF does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.v1.distribute.reduce_util import as_reduce_op
from adapters.v1.ops import array_ops

__all__ = [
    "CrossDeviceOps",
    "HierarchicalCopyAllReduce",
    "NcclAllReduce",
    "ReductionToOneDevice",
]


class CrossDeviceOps:
    """The base of the cross-device reductions: ``reduce``, ``batch_reduce``,
    ``broadcast`` of one replica's values."""

    def reduce(
        self, reduce_op: Any, per_replica_value: Any, destinations: Any, options: Any = None
    ) -> Any:
        """``per_replica_value`` reduced over the replicas onto ``destinations``: over
        one replica, a copy of the value (``SUM`` and ``MEAN`` alike).

        Raises:
          ValueError: ``reduce_op`` names no reduction, or ``destinations`` is None.
        """
        as_reduce_op(reduce_op)
        _require_destinations(destinations)
        return array_ops.identity(per_replica_value)

    def batch_reduce(
        self, reduce_op: Any, value_destination_pairs: Any, options: Any = None
    ) -> list[Any]:
        """``reduce`` of each ``(value, destinations)`` pair."""
        return [self.reduce(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def broadcast(self, tensor: Any, destinations: Any) -> Any:
        """``tensor`` copied to ``destinations`` (an ``Identity``).

        Raises:
          ValueError: ``destinations`` is None.
        """
        _require_destinations(destinations)
        return array_ops.identity(tensor)


def _require_destinations(destinations: Any) -> None:
    if destinations is None:
        raise ValueError("destinations can not be None")


class ReductionToOneDevice(CrossDeviceOps):
    """Reduces on one device, then broadcasts.

    Args:
      reduce_to_device: the device reducing (default None: the first destination).
      accumulation_fn: how values are summed (default None: ``tf.math.add_n``).
    """

    def __init__(
        self, reduce_to_device: str | None = None, accumulation_fn: Callable | None = None
    ):
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class _AllReduce(CrossDeviceOps):
    _label = ""

    def __init__(self, num_packs: int = 1):
        if num_packs < 0:
            raise ValueError(f"{self._label} requires num_packs >= 0, but {num_packs} is specified")
        self.num_packs = num_packs


class NcclAllReduce(_AllReduce):
    """All-reduce with NCCL (GPUs).

    Args:
      num_packs: how many packs tensors are grouped into (default 1).

    Raises:
      ValueError: ``num_packs`` is negative.
    """

    _label = "NCCL all-reduce"


class HierarchicalCopyAllReduce(_AllReduce):
    """All-reduce by hierarchical copies (for DGX-1-like GPU topologies).

    Args:
      num_packs: how many packs tensors are grouped into (default 1).

    Raises:
      ValueError: ``num_packs`` is negative.
    """

    _label = "HierarchicalCopy"
