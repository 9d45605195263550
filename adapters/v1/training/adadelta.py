"""``tf.compat.v1.train.AdadeltaOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers


class AdadeltaOptimizer(Optimizer):
    """Adadelta over :func:`jtrain.optimizers.adadelta`; slots ``w/Adadelta``, ``w/Adadelta_1``."""

    # TF's ``_prepare`` calls these when they are callables: ``lambda: 0.1``.
    _callable_hparams = ("learning_rate", "rho", "epsilon")

    _slots = ("accum", "accum_update")

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: Any = 0.95,
        epsilon: Any = 1e-8,
        use_locking: bool = False,
        name: str = "Adadelta",
    ):
        super().__init__(use_locking, name)
        self._set_hparams(learning_rate=learning_rate, rho=rho, epsilon=epsilon)

    def _transformation(self, hp: dict[str, Any]) -> Any:
        return optimizers.adadelta(hp["learning_rate"], hp["rho"], hp["epsilon"])
