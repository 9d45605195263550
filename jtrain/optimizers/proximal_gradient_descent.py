"""``tf.compat.v1.train.ProximalGradientDescentOptimizer`` as an optax transformation."""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jtrain._numerics import kernel_divide, rounded
from jtrain.indexed_slices import IndexedSlices, gather_rows
from jtrain.optimizers import _base


class ProximalGradientDescentState(NamedTuple):
    """State of :func:`proximal_gradient_descent`.

    Attributes:
      count: updates applied so far (TF's global step), the schedules' input.
    """

    count: jax.Array  # type: ignore[assignment]  # optax's field name; shadows tuple.count


def proximal_gradient_descent(
    learning_rate: _base.ScalarOrSchedule,
    l1_regularization_strength: _base.ScalarOrSchedule = 0.0,
    l2_regularization_strength: _base.ScalarOrSchedule = 0.0,
) -> _base.AssigningTransformation:
    """TF's proximal gradient descent, the FOBOS update (``ApplyProximalGradientDescent``).

    Dense, with ``lr = learning_rate``, ``l1``, ``l2`` the strengths::

        prox = var - grad * lr
        if l1 > 0:
            var = sign(prox) * max(|prox| - lr * l1, 0) / (1 + l2 * lr)
        else:
            var = prox / (1 + l2 * lr)

    Sparse (``SparseApplyProximalGradientDescent``, duplicate indices summed
    first): the same on the touched rows only; untouched rows are not shrunk.
    For rows of one element (a rank-1 variable) TF divides in double by the
    double ``1.0 + l2 * lr``, and jtrain follows. No slots.

    Args:
      learning_rate: a number or a schedule ``step -> lr`` (no default, as in TF).
      l1_regularization_strength: a number >= 0 or a schedule (TF's default
        ``0.0``).
      l2_regularization_strength: a number >= 0 or a schedule (TF's default
        ``0.0``).

    Returns:
      A :class:`~jtrain.optimizers.AssigningTransformation` (an
      ``optax.GradientTransformation``) with state
      :class:`ProximalGradientDescentState`. ``update`` and ``assign`` need
      ``params``: the new value is computed from the variable, not added to it.

    Raises:
      ValueError: if a regularization strength is negative (TF documents
        ``>= 0``), or an argument is neither a number nor a schedule; from
        ``update``, if ``params`` is not given.

    .. note::
       TF documents but does not check ``l1 >= 0`` and ``l2 >= 0`` (a negative
       ``l1`` is silently ignored there); jtrain rejects them. TF's dense
       optimizer passes the hyperparameters to the kernel without casting them
       to the variable's dtype, so in TF a float64 variable needs float64
       hyperparameter tensors (Python floats raise a ``TypeError``); jtrain
       takes a Python float as that float64 tensor (the other optimizers round
       Python floats to float32 first, as TF does for them). ``var`` is
       *assigned* by TF, not decremented: ``update`` returns ``new_var - var``,
       so ``optax.apply_updates`` gives ``new_var`` up to one rounding of that
       difference (exact zeros stay exact); ``assign`` (or
       :func:`jtrain.optimizers.apply_gradients`) gives ``new_var``.
    """
    _base.check_learning_rate("learning_rate", learning_rate)
    _base.check(
        "l1_regularization_strength",
        l1_regularization_strength,
        lambda v: v >= 0,
        "must be greater than or equal to zero",
    )
    _base.check(
        "l2_regularization_strength",
        l2_regularization_strength,
        lambda v: v >= 0,
        "must be greater than or equal to zero",
    )

    def init_fn(params):
        del params
        return ProximalGradientDescentState(count=_base.init_count())

    def step_fn(grads, state, params, assign):
        if params is None:
            raise ValueError(
                _base.NO_PARAMS_MSG.format(
                    name="proximal_gradient_descent",
                    tf_name="ProximalGradientDescentOptimizer",
                )
            )

        def rule(g, p):
            lr = _base.hparam(learning_rate, state.count, p.dtype)
            l1 = _base.hparam(l1_regularization_strength, state.count, p.dtype)
            l2 = _base.hparam(l2_regularization_strength, state.count, p.dtype)
            one = jnp.ones([], p.dtype)
            if isinstance(g, IndexedSlices):
                v = gather_rows(p, g.indices)
                if math.prod(p.shape[1:]) > 1:
                    prox = v - rounded(g.values * lr)
                    new = _shrink(prox, lr, l1, l2, one, False)
                else:
                    prox = v - rounded(lr * g.values)
                    new = _shrink(prox, lr, l1, l2, one, True)
                return (_base.Rows(g.indices, new, v),)
            prox = p - rounded(g * lr)
            return (_shrink(prox, lr, l1, l2, one, False),)

        (new,) = _base.apply_assigning_rule(rule, assign, grads, params)
        return new, ProximalGradientDescentState(count=_base.next_count(state.count))

    return _base.assigning(init_fn, step_fn)


def _shrink(prox, lr, l1, l2, one, scalar_rows):
    """FOBOS' closed form: soft-threshold by ``lr * l1`` (when ``l1 > 0``), divide by
    ``1 + l2 * lr``; TF's scalar loop (``scalar_rows``) divides in double by the double
    ``1.0 + l2 * lr``."""
    shrunk = jnp.sign(prox) * jnp.maximum(jnp.abs(prox) - rounded(lr * l1), 0)
    numerator = jnp.where(l1 > 0, shrunk, prox)
    if scalar_rows:
        return _base.in_double(
            lambda n, x: kernel_divide(n, 1.0 + x), prox.dtype, numerator, rounded(l2 * lr)
        )
    return kernel_divide(numerator, one + rounded(l2 * lr))
