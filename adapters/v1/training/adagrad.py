"""``tf.compat.v1.train.AdagradOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers


class AdagradOptimizer(Optimizer):
    """Adagrad over :func:`jtrain.optimizers.adagrad`; slot ``w/Adagrad``."""

    # TF's ``_prepare`` calls these when they are callables: ``lambda: 0.1``.
    _callable_hparams = ("learning_rate",)

    _slots = ("accumulator",)

    def __init__(
        self,
        learning_rate: Any,
        initial_accumulator_value: float = 0.1,
        use_locking: bool = False,
        name: str = "Adagrad",
    ):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._initial_accumulator_value = initial_accumulator_value
        self._set_hparams(learning_rate=learning_rate)

    def _transformation(self, hp: dict[str, Any]) -> Any:
        return optimizers.adagrad(hp["learning_rate"], self._initial_accumulator_value)
