"""The device functions of ``tf.config`` and ``tf.config.experimental`` (see
``adapters/v1/config/__init__.py``)."""

from __future__ import annotations

import collections
from typing import Any

import jax

__all__ = [
    "LogicalDevice",
    "PhysicalDevice",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "set_visible_devices",
]

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
PhysicalDevice.__doc__ = (
    "A physical device: ``name`` (``/physical_device:GPU:0``), ``device_type``."
)
LogicalDevice.__doc__ = "A logical device: ``name`` (``/device:GPU:0``), ``device_type``."


def _jax_devices(platform: str) -> list[Any]:
    try:
        return list(jax.devices(platform))
    except RuntimeError:  # that backend is absent (or excluded by JAX_PLATFORMS)
        return []


def _by_type() -> list[tuple[str, list[Any]]]:
    return [(t, _jax_devices(p)) for t, p in (("CPU", "cpu"), ("GPU", "gpu"), ("TPU", "tpu"))]


def list_physical_devices(device_type: str | None = None) -> list[Any]:
    """The physical devices (``PhysicalDevice``), all or of ``device_type`` (``"GPU"``).

    Args:
      device_type: ``None`` (all) or a type name, compared exactly as TF.

    Returns:
      One CPU (the host, if JAX has its CPU backend), then each GPU or TPU.
    """
    out = []
    for kind, devices in _by_type():
        count = min(len(devices), 1) if kind == "CPU" else len(devices)
        out += [PhysicalDevice(f"/physical_device:{kind}:{i}", kind) for i in range(count)]
    return [d for d in out if device_type is None or d.device_type == device_type]


def list_logical_devices(device_type: str | None = None) -> list[Any]:
    """The logical devices (``LogicalDevice``): each JAX device, numbered per type.

    Args:
      device_type: ``None`` (all) or a type name, compared exactly as TF.
    """
    out = []
    for kind, devices in _by_type():
        out += [LogicalDevice(f"/device:{kind}:{i}", kind) for i in range(len(devices))]
    return [d for d in out if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type: str | None = None) -> list[Any]:
    """The visible physical devices: every one JAX has (see the module)."""
    return list_physical_devices(device_type)


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """Keeps the visible physical devices as they are, or raises TF's error.

    Args:
      devices: a ``PhysicalDevice`` or a list of them.
      device_type: restrict the change to this type (the others stay visible).

    Raises:
      ValueError: a device that is not a physical device (of ``device_type``).
      RuntimeError: another set than the visible one (JAX's devices are fixed
        once its backends have started; TF raises this once its runtime has).
    """
    if not isinstance(devices, list):
        devices = [devices]
    physical = list_physical_devices()
    for d in devices:
        if d not in physical or (device_type is not None and d.device_type != device_type):
            raise ValueError(f"Unrecognized device: {d!r}")
    wanted = [d for d in physical if device_type is not None and d.device_type != device_type]
    if wanted + devices != physical:
        raise RuntimeError(
            "Visible devices cannot be modified after being initialized (JAX's devices are "
            "fixed when its backends start: set CUDA_VISIBLE_DEVICES or JAX_PLATFORMS before "
            "the process starts)"
        )
