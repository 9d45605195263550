"""``tf.config.experimental``: TF's older names of the device functions, and GPU
memory growth.

Memory growth maps to JAX's GPU allocator: growth is on when JAX does not
preallocate (``XLA_PYTHON_CLIENT_PREALLOCATE=false`` or
``XLA_PYTHON_CLIENT_ALLOCATOR=platform`` in the environment), unset otherwise
(``get_memory_growth`` answers ``None``, as TF before anything is set). JAX reads
these when its GPU backend starts, which listing devices already does, so
``set_memory_growth`` to another setting raises TF's ``RuntimeError`` for a runtime
that has started: set the variable before the process starts.
"""

from __future__ import annotations

import os
from typing import Any

import jax

from adapters.v1._missing import missing_name_getattr
from adapters.v1.config._devices import (
    LogicalDeviceConfiguration,
    _check_physical,
    get_logical_device_configuration,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_visible_devices,
)

__all__ = [
    "VirtualDeviceConfiguration",
    "get_device_details",
    "get_memory_growth",
    "get_virtual_device_configuration",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "set_memory_growth",
    "set_virtual_device_configuration",
    "set_visible_devices",
]

# TF's older names of the logical-device configuration.
VirtualDeviceConfiguration = LogicalDeviceConfiguration
get_virtual_device_configuration = get_logical_device_configuration
set_virtual_device_configuration = set_logical_device_configuration


def _growth_from_environment() -> bool | None:
    preallocate = os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "").lower()
    allocator = os.environ.get("XLA_PYTHON_CLIENT_ALLOCATOR", "").lower()
    return True if preallocate in ("false", "0") or allocator == "platform" else None


def get_device_details(device: Any) -> dict[str, Any]:
    """What the runtime knows of a physical device: ``{}`` for a CPU, as TF; a GPU's
    ``device_name`` and ``compute_capability`` (``(major, minor)``) where JAX gives them.

    Raises:
      ValueError: not a physical device (TF's message).
    """
    _check_physical(device)
    if device.device_type != "GPU":
        return {}
    gpu = jax.devices("gpu")[int(device.name.rsplit(":", 1)[1])]
    details: dict[str, Any] = {"device_name": gpu.device_kind}
    capability = getattr(gpu, "compute_capability", None)
    if capability:
        major, minor = str(capability).split(".")[:2]
        details["compute_capability"] = (int(major), int(minor))
    return details


def get_memory_growth(device: Any) -> bool | None:
    """Whether memory growth is on for a GPU (see the module); ``None`` when unset.

    Raises:
      ValueError: not a physical device.
      KeyError: not a GPU (TF's error: it keeps the setting for GPUs only).
    """
    _check_physical(device)
    if device.device_type != "GPU":
        raise KeyError(device)
    return _growth_from_environment()


def set_memory_growth(device: Any, enable: bool) -> None:
    """Keeps a GPU's memory growth as it is, or raises TF's error (see the module).

    Raises:
      ValueError: not a physical device, or not a GPU (TF's messages).
      RuntimeError: another setting than JAX's (its allocator is set at start).
    """
    _check_physical(device)
    if device.device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    if bool(_growth_from_environment()) == bool(enable):
        return
    raise RuntimeError(
        "Physical devices cannot be modified after being initialized (JAX's GPU allocator "
        "is set when its backend starts: set XLA_PYTHON_CLIENT_PREALLOCATE=false before the "
        "process starts for memory growth)"
    )


__getattr__ = missing_name_getattr("tf.config.experimental", globals())
