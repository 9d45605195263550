"""``tf.distribute.OneDeviceStrategy``: one replica on one device.

Values are TF's one-replica values (``distribute_lib``'s docstring): ``run`` calls the
step function once, ``reduce`` returns the value (over ``axis``: its sum, or its mean).
"""

from __future__ import annotations

from typing import Any

from adapters.v1.distribute import device_util, distribute_lib

__all__ = ["OneDeviceStrategy"]


class _OneDeviceExtended(distribute_lib.StrategyExtended):
    def __init__(self, container_strategy: distribute_lib.Strategy, device: str):
        super().__init__(container_strategy)
        self._devices = (device,)


class OneDeviceStrategy(distribute_lib.Strategy):
    """Places variables and computation on ``device``, one replica.

    Args:
      device: the device (``"/cpu:0"``, ``"/gpu:0"``...). jtrain runs the graph where
        JAX places it; the string is kept, canonical, as the worker device.

    Raises:
      TypeError: ``device`` is not a string.
    """

    def __init__(self, device: Any):
        super().__init__(_OneDeviceExtended(self, device_util.canonicalize(device)))
