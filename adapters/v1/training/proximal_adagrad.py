"""``tf.compat.v1.train.ProximalAdagradOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers


class ProximalAdagradOptimizer(Optimizer):
    """Proximal Adagrad over :func:`jtrain.optimizers.proximal_adagrad`; slot
    ``w/ProximalAdagrad``. The learning rate and the regularization strengths may be
    tensors, as in TF."""

    _slots = ("accumulator",)

    def __init__(
        self,
        learning_rate: Any,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "ProximalAdagrad",
    ):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._initial_accumulator_value = initial_accumulator_value
        self._set_hparams(
            learning_rate=learning_rate,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
        )

    def _transformation(self, hp: dict[str, Any]) -> Any:
        return optimizers.proximal_adagrad(
            hp["learning_rate"],
            self._initial_accumulator_value,
            hp["l1_regularization_strength"],
            hp["l2_regularization_strength"],
        )
