"""Device strings as TF's strategies spell them (``/replica:0/task:0/device:CPU:0``)."""

from __future__ import annotations

from adapters.v1.framework.device_spec import DeviceSpec

__all__ = ["canonicalize"]


def canonicalize(device: str) -> str:
    """``device`` (``"/cpu:0"``, ``"GPU:1"``...) with TF's replica and task defaults
    filled in: ``"/replica:0/task:0/device:CPU:0"``.

    Raises:
      TypeError: ``device`` is not a string.
      ValueError: ``device`` is not a device specification.
    """
    if not isinstance(device, str):
        raise TypeError(f"A device must be a string like '/cpu:0', not {device!r}")
    return (
        DeviceSpec(replica=0, task=0).make_merged_spec(DeviceSpec.from_string(device)).to_string()
    )
