"""``tf.compat.v1.train.ProximalAdagradOptimizer`` as an optax transformation."""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jtrain._eigen.rsqrt import rsqrt, rsqrt_rows
from jtrain._numerics import div_sqrt, static_value
from jtrain._numerics import rounded as r
from jtrain._numerics import rounded_square as r2
from jtrain.indexed_slices import IndexedSlices, gather_rows, scatter_rows
from jtrain.optimizers import _base


class ProximalAdagradState(NamedTuple):
    """State of :func:`proximal_adagrad`.

    Attributes:
      count: updates applied so far (TF's global step), the schedule's input.
      accumulator: TF's ``accumulator`` slot, the sum of squared gradients; starts
        at ``initial_accumulator_value``.
    """

    count: jax.Array  # type: ignore[assignment]  # optax's field name; shadows tuple.count
    accumulator: optax.Updates


def proximal_adagrad(
    learning_rate: _base.ScalarOrSchedule,
    initial_accumulator_value: float = 0.1,
    l1_regularization_strength: _base.ScalarOrSchedule = 0.0,
    l2_regularization_strength: _base.ScalarOrSchedule = 0.0,
) -> _base.AssigningTransformation:
    """TF's proximal Adagrad, FOBOS with Adagrad's rate (``ApplyProximalAdagrad``).

    Dense::

        accumulator += grad * grad
        rate = learning_rate * rsqrt(accumulator)
        prox = var - grad * rate
        var = sign(prox) * max(|prox| - rate * l1, 0) / (1 + l2 * rate)   # l1 > 0
        var = prox / (1 + l2 * rate)                                       # l1 == 0

    No epsilon: the accumulator starts at ``initial_accumulator_value`` (> 0).
    Sparse (``IndexedSlices``, duplicate indices summed first, kernel
    ``SparseApplyProximalAdagrad``): the same on the touched rows only; for rows
    of one element (a rank-1 variable) TF writes the rate as
    ``learning_rate / sqrt(accumulator)`` and divides in double by the double
    ``1.0 + l2 * rate``, and jtrain follows. Untouched rows keep their values.

    Args:
      learning_rate: a number or a schedule ``step -> lr`` (no default, as in TF).
      initial_accumulator_value: starting value of the accumulator, must be
        positive (TF's default 0.1).
      l1_regularization_strength: ``>= 0`` (TF's default 0.0).
      l2_regularization_strength: ``>= 0`` (TF's default 0.0).

    Returns:
      A :class:`~jtrain.optimizers.AssigningTransformation` (an
      ``optax.GradientTransformation``) with state :class:`ProximalAdagradState`;
      its ``update`` and ``assign`` need ``params`` (TF reads the variable).

    Raises:
      ValueError: if ``initial_accumulator_value`` is not positive (TF's
        constructor), or ``learning_rate`` is not positive or an l1/l2 strength
        is negative (TF's kernels reject these when they run).

    .. note::
       ``var`` is *assigned* by TF, not decremented. ``update`` returns
       ``new_var - var``, so ``optax.apply_updates`` gives ``new_var`` up to one
       rounding of that difference (exact zeros stay exact); ``assign`` (or
       :func:`jtrain.optimizers.apply_gradients`) gives ``new_var``. TF's
       ``ProximalAdagradOptimizer`` does not cast its hyperparameters for dense
       float64 variables (a Python-float ``learning_rate`` raises a ``TypeError``
       there; TF users pass float64 tensors); jtrain takes a Python float as that
       float64 tensor (unlike the other optimizers, which round Python floats to
       float32 first, as TF does). On CPUs ``rsqrt`` is TF's
       (:mod:`jtrain._eigen.rsqrt`): on full packets of 8 values (of the flattened
       variable, or of each row for the sparse kernel; float16 and bfloat16 through
       float32) the ``rsqrtps`` estimate and a Newton step, up to 4 ulps from
       ``1 / sqrt``; the other values, float64 variables and other platforms take
       ``1 / sqrt`` correctly rounded.
    """
    _base.check_learning_rate("learning_rate", learning_rate)
    _base.check("learning_rate", learning_rate, lambda v: v > 0, "must be positive")
    _base.check(
        "initial_accumulator_value", initial_accumulator_value, lambda v: v > 0, "must be positive"
    )
    for name, value in (
        ("l1_regularization_strength", l1_regularization_strength),
        ("l2_regularization_strength", l2_regularization_strength),
    ):
        _base.check(name, value, lambda v: v >= 0, "must be non-negative")
    # No float32 rounding of Python floats here (``tf_constant``): TF's dense kernel
    # gets the hyperparameters uncast, so float64 variables train only with float64
    # tensors, whose values a Python float stands for exactly.
    lr_c, l1_c, l2_c = learning_rate, l1_regularization_strength, l2_regularization_strength
    l1_static = static_value(l1_c)
    # The kernels branch on l1 > 0; for l1 == 0 both branches agree, so a schedule
    # or traced l1 takes the l1 branch.
    with_l1 = l1_static is None or l1_static > 0

    def init_fn(params):
        return ProximalAdagradState(
            count=_base.init_count(),
            accumulator=_base.full_like_tree(params, initial_accumulator_value),
        )

    def step_fn(grads, state, params, assign):
        if params is None:
            raise ValueError(
                _base.NO_PARAMS_MSG.format(name="proximal_adagrad", tf_name="ApplyProximalAdagrad")
            )

        def prox_step(w, a, g, lr, l1, l2, scalar_rows, inverse_sqrt=rsqrt):
            a = a + r2(g)
            if scalar_rows:
                rate = div_sqrt(lr, a)
                prox = w - r(rate * g)
            else:
                rate = r(lr * inverse_sqrt(a))
                prox = w - r(g * rate)
            if with_l1:
                numerator = jnp.sign(prox) * jnp.maximum(jnp.abs(prox) - r(rate * l1), 0)
            else:
                numerator = prox
            if scalar_rows:
                # TF's scalar loop divides in double by the double ``1.0 + l2 * rate``.
                wide = _base.in_double(lambda n, x: n / (1.0 + x), w.dtype, numerator, r(l2 * rate))
                return wide, a
            return numerator / (1 + r(l2 * rate)), a

        def rule(g, p, accum):
            dtype = p.dtype
            lr = _base.hparam(lr_c, state.count, dtype)
            l1 = _base.hparam(l1_c, state.count, dtype)
            l2 = _base.hparam(l2_c, state.count, dtype)
            if isinstance(g, IndexedSlices):
                i = g.indices
                w = gather_rows(p, i)
                scalar_rows = math.prod(p.shape[1:]) == 1
                a = gather_rows(accum, i)
                new_w, a = prox_step(w, a, g.values, lr, l1, l2, scalar_rows, rsqrt_rows)
                return _base.Rows(i, new_w, w), scatter_rows(accum, i, a)
            return prox_step(p, accum, g, lr, l1, l2, False)

        new, accums = _base.apply_assigning_rule(rule, assign, grads, params, state.accumulator)
        return new, ProximalAdagradState(count=_base.next_count(state.count), accumulator=accums)

    return _base.assigning(init_fn, step_fn)
