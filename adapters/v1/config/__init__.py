"""``tf.config``: the devices JAX has, in TF's terms.

``list_physical_devices()`` lists the host's CPU (``/physical_device:CPU:0``: TF
counts one physical CPU) and each JAX GPU or TPU (``/physical_device:GPU:0``...);
``list_logical_devices()`` lists each JAX device (``/device:CPU:0``,
``/device:GPU:1``...: several CPUs when XLA is asked for several host devices).
``device_type`` filters as TF does (exact, upper-case ``"CPU"``/``"GPU"``).

``set_visible_devices`` accepts TF's arguments and TF's errors. JAX starts its
backends when devices are first listed, and which devices it uses cannot change
afterwards: as TF once its runtime has started, asking for the devices already
visible is accepted and any other set raises TF's ``RuntimeError``. Choose
devices before the process starts (``CUDA_VISIBLE_DEVICES``, ``JAX_PLATFORMS``).

.. note::
   Not here (``AttributeError``): ``threading`` (XLA's thread pools are sized
   when its backend starts), ``optimizer``, the logical-device configurations,
   soft placement, ``run_functions_eagerly`` and the cluster connections.
"""

from __future__ import annotations

from adapters.v1._missing import missing_name_getattr
from adapters.v1.config import experimental
from adapters.v1.config._devices import (
    LogicalDevice,
    PhysicalDevice,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_visible_devices,
)

__all__ = [
    "LogicalDevice",
    "PhysicalDevice",
    "experimental",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "set_visible_devices",
]

__getattr__ = missing_name_getattr("tf.config", globals())
