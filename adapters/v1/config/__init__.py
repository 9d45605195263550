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

``threading``, ``optimizer``, soft placement and ``run_functions_eagerly`` set TF 2's
eager context; in classic TF1 no session reads them (sessions take a ``ConfigProto``),
so in TF as in jtrain they are kept and given back and change nothing a session runs.
A logical-device configuration is accepted when it is the one JAX already has.

.. note::
   Not here (``AttributeError``): the cluster connections
   (``experimental_connect_to_cluster``, ``experimental_connect_to_host``): use
   ``tf.train.Server`` and ``tf.train.ClusterSpec``.
"""

from __future__ import annotations

from adapters.v1._missing import missing_name_getattr
from adapters.v1.config import experimental, optimizer, threading
from adapters.v1.config._context import (
    experimental_functions_run_eagerly,
    experimental_run_functions_eagerly,
    functions_run_eagerly,
    get_soft_device_placement,
    run_functions_eagerly,
    set_soft_device_placement,
)
from adapters.v1.config._devices import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    get_logical_device_configuration,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_visible_devices,
)

__all__ = [
    "LogicalDevice",
    "LogicalDeviceConfiguration",
    "PhysicalDevice",
    "experimental",
    "experimental_functions_run_eagerly",
    "experimental_run_functions_eagerly",
    "functions_run_eagerly",
    "get_logical_device_configuration",
    "get_soft_device_placement",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "optimizer",
    "run_functions_eagerly",
    "set_logical_device_configuration",
    "set_soft_device_placement",
    "set_visible_devices",
    "threading",
]

__getattr__ = missing_name_getattr("tf.config", globals())
