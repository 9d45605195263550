"""The settings ``tf.config`` keeps for TF's eager context, in one owner.

In classic TF1 (``tf.compat.v1`` with v2 behaviour disabled) these settings belong to
TF 2's eager context: sessions take a ``ConfigProto`` instead, so setting them changes
no session's placement, threads or values, in TF as in jtrain. TF keeps them and gives
them back; so does :data:`SETTINGS`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# TF's rewriter options reported by ``tf.config.optimizer.get_experimental_options``,
# in TF's order: on/off toggles (reported once set) and booleans (always reported).
REWRITER_TOGGLES = (
    "layout_optimizer",
    "constant_folding",
    "shape_optimization",
    "remapping",
    "arithmetic_optimization",
    "dependency_optimization",
    "loop_optimization",
    "function_optimization",
    "debug_stripper",
    "disable_model_pruning",
    "scoped_allocator_optimization",
    "pin_to_host_optimization",
    "implementation_selector",
    "auto_mixed_precision",
    "use_plugin_optimizers",
    "disable_meta_optimizer",
    "auto_mixed_precision_onednn_bfloat16",
    "auto_mixed_precision_mkl",
)
REWRITER_BOOLS = frozenset({"disable_model_pruning", "disable_meta_optimizer"})


@dataclasses.dataclass
class Settings:
    """The eager-context settings of ``tf.config`` (TF's defaults in classic TF1).

    Attributes:
      intra_op_parallelism_threads: ``tf.config.threading``'s intra-op count (0: the
        system's choice).
      inter_op_parallelism_threads: the inter-op count (0: the system's choice).
      soft_device_placement: ``tf.config.set_soft_device_placement`` (off in graph mode).
      optimizer_jit: ``tf.config.optimizer.set_jit`` (autoclustering on or off).
      optimizer_options: the options given to ``set_experimental_options``, merged.
      run_functions_eagerly: ``tf.config.run_functions_eagerly``.
      logical_devices: ``set_logical_device_configuration``'s accepted configurations,
        by physical device.
    """

    intra_op_parallelism_threads: Any = 0
    inter_op_parallelism_threads: Any = 0
    soft_device_placement: bool = False
    optimizer_jit: bool = False
    optimizer_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    run_functions_eagerly: bool = False
    logical_devices: dict[Any, list[Any]] = dataclasses.field(default_factory=dict)


SETTINGS = Settings()


def get_soft_device_placement() -> bool:
    """Whether soft placement is on for TF's eager context (off in graph mode).

    .. note::
       Sessions take ``ConfigProto(allow_soft_placement=...)`` instead, in TF as here.
    """
    return bool(SETTINGS.soft_device_placement)


def set_soft_device_placement(enabled: bool) -> None:
    """Keeps the soft-placement setting of TF's eager context (no session changes).

    Args:
      enabled: whether to place ops TF cannot put on the requested device elsewhere.
    """
    SETTINGS.soft_device_placement = enabled


def functions_run_eagerly() -> bool:
    """The ``run_functions_eagerly`` setting (``False`` by default)."""
    return SETTINGS.run_functions_eagerly


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Keeps whether ``tf.function``s should run eagerly.

    .. note::
       Graph mode has no eager execution: in classic TF1, as in jtrain, a
       ``tf.function`` called while building a graph adds its graph whatever this
       says.

    Args:
      run_eagerly: whether to run functions eagerly.
    """
    SETTINGS.run_functions_eagerly = bool(run_eagerly)


experimental_functions_run_eagerly = functions_run_eagerly
experimental_run_functions_eagerly = run_functions_eagerly
