"""``tf.compat.v1.train.AdamOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers


class AdamOptimizer(Optimizer):
    """Adam over :func:`jtrain.optimizers.adam`.

    Slots ``w/Adam`` (m) and ``w/Adam_1`` (v); non-slot variables ``beta1_power``
    and ``beta2_power``, created once per graph as TF does, starting at ``beta1``
    and ``beta2`` (a tensor's value and dtype when they are tensors).
    """

    # TF's ``_prepare`` calls these when they are callables: ``lambda: 0.1``.
    _callable_hparams = ("learning_rate", "beta1", "beta2", "epsilon")

    _slots = ("m", "v")
    _non_slots = ("beta1_power", "beta2_power")
    # TF creates them from ``beta1``/``beta2``: a tensor's value (and dtype) too.
    _non_slot_initial_values = {"beta1_power": "beta1", "beta2_power": "beta2"}

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta1: Any = 0.9,
        beta2: Any = 0.999,
        epsilon: Any = 1e-8,
        use_locking: bool = False,
        name: str = "Adam",
        use_own_namescope_for_non_slot_vars: bool = False,
    ):
        super().__init__(use_locking, name, use_own_namescope_for_non_slot_vars)
        self._set_hparams(learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon)

    def _get_beta_accumulators(self) -> tuple[Any, Any]:
        return self._get_non_slot_variable("beta1_power"), self._get_non_slot_variable(
            "beta2_power"
        )

    def _transformation(self, hp: dict[str, Any]) -> Any:
        return optimizers.adam(hp["learning_rate"], hp["beta1"], hp["beta2"], hp["epsilon"])
