"""jtrain: TensorFlow's ``tf.train`` rebuilt on JAX (the functional core).

Submodules load on first use, so ``import jtrain`` costs little more than
``import jax, optax``:

- ``jtrain.optimizers``: TF-exact optimizers as optax transformations.
- ``jtrain.IndexedSlices``: sparse gradients, accepted by every optimizer.
- ``jtrain.schedules``, ``jtrain.clipping``, ``jtrain.averaging``,
  ``jtrain.loss_scale``: TF's decay functions, clipping, moving averages and loss
  scaling.
- ``jtrain.checkpoint``: TF's V2 checkpoint format and state file, orbax pytrees.
- ``jtrain.records``: TFRecord files, ``Example`` protos, TensorBoard event files.
- ``jtrain.errors``: TF's error classes.
- ``jtrain.xla_options``: compile options for training steps (XLA:CPU's convolutions
  on every core).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Public submodules, imported lazily on attribute access.
_SUBMODULES = {
    "optimizers",
    "indexed_slices",
    "schedules",
    "clipping",
    "averaging",
    "loss_scale",
    "distributed",
    "errors",
    "checkpoint",
    "records",
    "xla_options",
}

# Public names re-exported from a submodule: name -> module.
_ATTRS = {
    "IndexedSlices": "indexed_slices",
    "value_and_sparse_grad": "indexed_slices",
}

__all__ = sorted(_SUBMODULES | set(_ATTRS))


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"jtrain.{name}")
    if name in _ATTRS:
        return getattr(importlib.import_module(f"jtrain.{_ATTRS[name]}"), name)
    raise AttributeError(f"module 'jtrain' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
