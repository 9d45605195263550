"""``tf.compat.v1.train.GradientDescentOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers
from jtrain._numerics import tf_constant


class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent over :func:`jtrain.optimizers.gradient_descent`. No slots."""

    # TF's ``_prepare`` calls these when they are callables: ``lambda: 0.1``.
    _callable_hparams = ("learning_rate",)

    def __init__(
        self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent"
    ):
        super().__init__(use_locking, name)
        self._set_hparams(learning_rate=learning_rate)

    def _transformation(self, hp: dict[str, Any]) -> Any:
        # TF converts a Python-float learning rate to a float32 tensor, then casts it
        # to the variable's dtype: a float64 variable steps by float64(float32(lr)).
        return optimizers.gradient_descent(tf_constant(hp["learning_rate"]))
