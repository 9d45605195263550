"""The device functions of ``tf.config`` and ``tf.config.experimental`` (see
``adapters/v1/config/__init__.py``)."""

from __future__ import annotations

import collections
from typing import Any

import jax

from adapters.v1.config._context import SETTINGS

__all__ = [
    "LogicalDevice",
    "LogicalDeviceConfiguration",
    "PhysicalDevice",
    "get_logical_device_configuration",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "set_logical_device_configuration",
    "set_visible_devices",
]

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
PhysicalDevice.__doc__ = (
    "A physical device: ``name`` (``/physical_device:GPU:0``), ``device_type``."
)
LogicalDevice.__doc__ = "A logical device: ``name`` (``/device:GPU:0``), ``device_type``."


class LogicalDeviceConfiguration(
    collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"],
    )
):
    """One logical device to make of a physical one (TF's fields, ``None`` by default).

    Attributes:
      memory_limit: the device's memory in MB (required for a GPU, refused for a CPU).
      experimental_priority: the GPU stream priority.
      experimental_device_ordinal: the GPU's ordinal among the logical devices.
    """

    def __new__(
        cls,
        memory_limit: int | None = None,
        experimental_priority: int | None = None,
        experimental_device_ordinal: int | None = None,
    ) -> LogicalDeviceConfiguration:
        fields = (memory_limit, experimental_priority, experimental_device_ordinal)
        return super().__new__(cls, *fields)


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


def get_logical_device_configuration(device: Any) -> list[Any] | None:
    """The logical-device configurations set for ``device``; ``None`` when none was.

    Raises:
      ValueError: not a physical device (TF's message).
    """
    _check_physical(device)
    return SETTINGS.logical_devices.get(device)


def set_logical_device_configuration(device: Any, logical_devices: list[Any]) -> None:
    """Checks a logical-device configuration as TF does; keeps it when it is JAX's.

    JAX makes its logical devices when its backends start: the CPU's count from
    ``XLA_FLAGS=--xla_force_host_platform_device_count=N``, one per GPU. A
    configuration giving the host CPU as many logical CPUs as JAX has is accepted
    (``get_logical_device_configuration`` then answers it); any other raises TF's
    ``RuntimeError`` for a runtime that has started.

    Args:
      device: a ``PhysicalDevice``.
      logical_devices: ``LogicalDeviceConfiguration``s, one per logical device.

    Raises:
      ValueError: an unknown device, or fields TF refuses for its type (TF's messages).
      RuntimeError: a configuration other than JAX's devices.
    """
    _check_physical(device)
    if device.device_type == "CPU":
        for v in logical_devices:
            for field, message in _CPU_REFUSED:
                if getattr(v, field) is not None:
                    raise ValueError(message)
    elif device.device_type == "GPU":
        if any(v.memory_limit is None for v in logical_devices):
            raise ValueError("Setting memory limit is required for GPU virtual devices")
    else:
        raise ValueError(f"Virtual devices are not supported for {device.device_type}")
    if SETTINGS.logical_devices.get(device) == logical_devices:
        return
    if device.device_type == "CPU" and len(logical_devices) == len(_jax_devices("cpu")):
        SETTINGS.logical_devices[device] = logical_devices
        return
    raise RuntimeError(
        "Virtual devices cannot be modified after being initialized (JAX makes its logical "
        "devices when its backends start: for N logical CPUs set XLA_FLAGS="
        "--xla_force_host_platform_device_count=N before the process starts)"
    )


# The fields TF refuses on a CPU's logical devices, with its messages (spaces included).
_CPU_REFUSED = (
    ("memory_limit", "Setting memory limit on CPU virtual devices is currently not supported"),
    (
        "experimental_priority",
        "Setting experimental_priority on CPU virtual  devices is currently not supported",
    ),
    (
        "experimental_device_ordinal",
        "Setting experimental_device_ordinal on CPU virtual  devices is currently not supported",
    ),
)


def _check_physical(device: Any) -> None:
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
