"""``tf.compat.v1.train.FtrlOptimizer``."""

from __future__ import annotations

from typing import Any

from adapters.v1.training.optimizer import Optimizer, _number
from jtrain import optimizers


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal over :func:`jtrain.optimizers.ftrl`; slots ``w/Ftrl``, ``w/Ftrl_1``.

    ``learning_rate`` and ``beta`` may be tensors, as in TF.
    """

    _slots = ("accum", "linear")

    def __init__(
        self,
        learning_rate: Any,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "Ftrl",
        accum_name: str | None = None,
        linear_name: str | None = None,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float | None = None,
    ):
        self._kw = dict(
            learning_rate_power=learning_rate_power,
            initial_accumulator_value=initial_accumulator_value,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
            l2_shrinkage_regularization_strength=l2_shrinkage_regularization_strength,
        )
        # TF's argument checks, at construction; a tensor learning rate or beta (TF
        # converts them in ``_prepare``) is not checked.
        optimizers.ftrl(_number(learning_rate), beta=_number(beta), **self._kw)
        super().__init__(use_locking, name)
        self._set_hparams(learning_rate=learning_rate, beta=beta)

    def _transformation(self, hp: dict[str, Any]) -> Any:
        return optimizers.ftrl(hp["learning_rate"], beta=hp["beta"], **self._kw)
