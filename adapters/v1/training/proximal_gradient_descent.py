"""``tf.compat.v1.train.ProximalGradientDescentOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers


class ProximalGradientDescentOptimizer(Optimizer):
    """Proximal gradient descent over :func:`jtrain.optimizers.proximal_gradient_descent`.

    The learning rate and the regularization strengths may be tensors, as in TF.
    """

    def __init__(
        self,
        learning_rate: Any,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "ProximalGradientDescent",
    ):
        super().__init__(use_locking, name)
        self._set_hparams(
            learning_rate=learning_rate,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
        )

    def _transformation(self, hp: dict[str, Any]) -> Any:
        return optimizers.proximal_gradient_descent(
            hp["learning_rate"], hp["l1_regularization_strength"], hp["l2_regularization_strength"]
        )
