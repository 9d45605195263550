"""``tf.compat.v1.train.RMSPropOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers


class RMSPropOptimizer(Optimizer):
    """RMSProp over :func:`jtrain.optimizers.rmsprop`.

    Slots in TF's order: ``w/RMSProp`` (rms, starts at ones), then ``mg`` when
    centered, then ``momentum``.
    """

    # TF's ``_prepare`` calls these when they are callables: ``lambda: 0.1``.
    _callable_hparams = ("learning_rate", "decay", "momentum", "epsilon")

    def __init__(
        self,
        learning_rate: Any,
        decay: Any = 0.9,
        momentum: Any = 0.0,
        epsilon: Any = 1e-10,
        use_locking: bool = False,
        centered: bool = False,
        name: str = "RMSProp",
    ):
        super().__init__(use_locking, name)
        self._centered = centered
        self._slots = ("rms", "mg", "momentum") if centered else ("rms", "momentum")
        self._set_hparams(
            learning_rate=learning_rate, decay=decay, momentum=momentum, epsilon=epsilon
        )

    def _transformation(self, hp: dict[str, Any]) -> Any:
        return optimizers.rmsprop(
            hp["learning_rate"], hp["decay"], hp["momentum"], hp["epsilon"], self._centered
        )
