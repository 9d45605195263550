"""``tf.compat.v1.train.MomentumOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers


class MomentumOptimizer(Optimizer):
    """Momentum over :func:`jtrain.optimizers.momentum`; slot ``w/Momentum``."""

    # TF's ``_prepare`` calls these when they are callables: ``lambda: 0.1``.
    _callable_hparams = ("learning_rate", "momentum")

    _slots = ("momentum",)

    def __init__(
        self,
        learning_rate: Any,
        momentum: Any,
        use_locking: bool = False,
        name: str = "Momentum",
        use_nesterov: bool = False,
    ):
        super().__init__(use_locking, name)
        self._use_nesterov = use_nesterov
        self._set_hparams(learning_rate=learning_rate, momentum=momentum)

    def _transformation(self, hp: dict[str, Any]) -> Any:
        return optimizers.momentum(hp["learning_rate"], hp["momentum"], self._use_nesterov)
