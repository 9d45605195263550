"""``tf.compat.v1.train.GradientDescentOptimizer``."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from adapters.v1.training.optimizer import Optimizer
from jtrain import optimizers
from jtrain._numerics import rounded, tf_constant
from jtrain.indexed_slices import IndexedSlices


class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent over :func:`jtrain.optimizers.gradient_descent`. No slots.

    .. note:: A sparse gradient (``IndexedSlices``) is applied as TF applies it, without
       summing duplicate indices first (TF's ``_apply_sparse_duplicate_indices``
       override): ``ScatterSub`` of ``values * learning_rate`` subtracts each row in
       turn, in the order of the indices (a resource variable's ``ResourceScatterAdd``
       of ``-values * learning_rate`` gives the same bits). An id looked up three times
       moves its row by three rounded subtractions, not by one of their sum.
    """

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

    def _apply_updates(
        self, params: dict[str, Any], updates: dict[str, Any], grads: dict[str, Any], hparams: dict
    ) -> dict[str, Any]:
        new = super()._apply_updates(params, updates, grads, hparams)
        lr = tf_constant(hparams["learning_rate"])
        if callable(lr):  # a schedule: the transformation's summed update stands
            return new
        for key, g in grads.items():
            if isinstance(g, IndexedSlices):
                p = params[key]
                step = rounded(jnp.asarray(lr).astype(p.dtype) * g.values.astype(p.dtype))
                # XLA's scatter applies repeated indices one after the other, in order.
                new[key] = p.at[g.indices].subtract(step, mode="drop")
        return new
