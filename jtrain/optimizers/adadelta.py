"""``tf.compat.v1.train.AdadeltaOptimizer`` as an optax transformation."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jtrain._eigen.rsqrt import rsqrt, rsqrt_rows
from jtrain._numerics import rounded, tf_constant
from jtrain.indexed_slices import IndexedSlices, gather_rows, scatter_rows, sparse_delta
from jtrain.optimizers import _base


class AdadeltaState(NamedTuple):
    """State of :func:`adadelta`.

    Attributes:
      count: updates applied so far (TF's global step), the schedules' input.
      accum: TF's ``accum`` slot, the decaying average of squared gradients;
        starts at zeros.
      accum_update: TF's ``accum_update`` slot, the decaying average of squared
        updates; starts at zeros.
    """

    count: jax.Array  # type: ignore[assignment]  # optax's field name; shadows tuple.count
    accum: optax.Params
    accum_update: optax.Params


def adadelta(
    learning_rate: _base.ScalarOrSchedule = 0.001,
    rho: _base.ScalarOrSchedule = 0.95,
    epsilon: _base.ScalarOrSchedule = 1e-8,
) -> optax.GradientTransformation:
    """TF's Adadelta (``ApplyAdadelta`` / ``SparseApplyAdadelta``).

    Dense::

        accum = accum * rho + grad * grad * (1 - rho)
        update = sqrt(accum_update + epsilon) * rsqrt(accum + epsilon) * grad
        var -= update * learning_rate
        accum_update = accum_update * rho + update * update * (1 - rho)

    Sparse (``IndexedSlices``, duplicate indices summed first): the same on the
    touched rows ``i`` only; untouched rows of ``var``, ``accum`` and
    ``accum_update`` keep their values (the averages do not decay there).

    Both slots start at zeros. ``epsilon`` sits inside both square roots.

    Args:
      learning_rate: a number or a schedule ``step -> lr`` (TF's default ``0.001``).
      rho: the decay rate, a number or a schedule (TF's default ``0.95``).
      epsilon: added to both averages under the square roots, a number or a
        schedule (TF's default ``1e-8``).

    Returns:
      An ``optax.GradientTransformation`` with state :class:`AdadeltaState`.

    Raises:
      ValueError: if an argument is neither a number nor a schedule.

    .. note::
       TF's ``learning_rate`` default is ``0.001`` (the paper's Adadelta has no
       learning rate, i.e. ``1.0``), so with TF's defaults the variable moves
       about a thousand times less than the paper's method would. Python-float
       hyperparameters become float32 before the cast to the variable's dtype,
       as TF's ``convert_to_tensor`` makes them. On CPUs ``rsqrt`` is TF's
       (:mod:`jtrain._eigen.rsqrt`): on full packets of 8 values (of the flattened
       variable, or of each row for the sparse kernel; float16 and bfloat16 through
       float32) the ``rsqrtps`` estimate and a Newton step, up to 4 ulps from
       ``1 / sqrt``; the other values, float64 variables and other platforms take
       ``1 / sqrt`` correctly rounded.
    """
    _base.check_learning_rate("learning_rate", learning_rate)
    _base.check("rho", rho, lambda v: True, "must be a number")
    _base.check("epsilon", epsilon, lambda v: True, "must be a number")
    lr_c, rho_c, eps_c = map(tf_constant, (learning_rate, rho, epsilon))

    def init_fn(params):
        return AdadeltaState(
            count=_base.init_count(),
            accum=_base.zeros_like_tree(params),
            accum_update=_base.zeros_like_tree(params),
        )

    def update_fn(grads, state, params=None):
        if params is None:
            params = _base.grads_like_params(grads)

        def step(g, accum, accum_update, lr, r, eps, inverse_sqrt=rsqrt):
            one = jnp.ones([], g.dtype)
            accum = rounded(accum * r) + rounded(g * g * (one - r))
            update = jnp.sqrt(accum_update + eps) * inverse_sqrt(accum + eps) * g
            accum_update = rounded(accum_update * r) + rounded(update * update * (one - r))
            return rounded(update * lr), accum, accum_update

        def rule(g, p, accum, accum_update):
            lr = _base.hparam(lr_c, state.count, p.dtype)
            r = _base.hparam(rho_c, state.count, p.dtype)
            eps = _base.hparam(eps_c, state.count, p.dtype)
            if isinstance(g, IndexedSlices):
                rows = (gather_rows(accum, g.indices), gather_rows(accum_update, g.indices))
                x, a, u = step(g.values, *rows, lr, r, eps, rsqrt_rows)
                delta = sparse_delta(p, g.indices, -x)
                return (
                    delta,
                    scatter_rows(accum, g.indices, a),
                    scatter_rows(accum_update, g.indices, u),
                )
            x, a, u = step(g, accum, accum_update, lr, r, eps)
            return -x, a, u

        deltas, accums, updates = _base.apply_rule(
            rule, grads, params, state.accum, state.accum_update
        )
        return deltas, AdadeltaState(
            count=_base.next_count(state.count), accum=accums, accum_update=updates
        )

    return optax.GradientTransformation(init_fn, update_fn)
