"""``tf.compat.v1.train.RMSPropOptimizer`` as an optax transformation."""

from __future__ import annotations

from typing import NamedTuple

import jax
import optax

from jtrain._eigen.rsqrt import rsqrt_rows
from jtrain._numerics import div_sqrt, tf_constant
from jtrain._numerics import rounded as r
from jtrain._numerics import rounded_square as r2
from jtrain.indexed_slices import IndexedSlices, gather_rows, scatter_rows, sparse_delta
from jtrain.optimizers import _base


class RMSPropState(NamedTuple):
    """State of :func:`rmsprop`.

    Attributes:
      count: updates applied so far (TF's global step), the schedule's input.
      rms: TF's ``rms`` slot, the moving average of the squared gradient; starts
        at **ones**.
      momentum: TF's ``momentum`` slot, the last step taken; starts at zeros.
      mg: TF's ``mg`` slot (``centered=True`` only), the moving average of the
        gradient; starts at zeros. ``None`` when not centered: TF creates no
        ``mg`` slot then, and ``None`` is an empty subtree to ``jax.tree`` maps.
    """

    count: jax.Array  # type: ignore[assignment]  # optax's field name; shadows tuple.count
    rms: optax.Updates
    momentum: optax.Updates
    mg: optax.Updates | None


def rmsprop(
    learning_rate: _base.ScalarOrSchedule,
    decay: _base.ScalarOrSchedule = 0.9,
    momentum: _base.ScalarOrSchedule = 0.0,
    epsilon: _base.ScalarOrSchedule = 1e-10,
    centered: bool = False,
) -> optax.GradientTransformation:
    """TF's RMSProp (``ApplyRMSProp`` / ``ApplyCenteredRMSProp`` and their sparse kernels).

    Dense::

        rms += (grad * grad - rms) * (1 - decay)
        mom = mom * momentum + (grad * learning_rate) / sqrt(rms + epsilon)
        var -= mom

    Centered (``centered=True``) keeps the mean gradient ``mg`` too and divides
    by the estimated variance instead::

        rms += (grad * grad - rms) * (1 - decay)
        mg += (grad - mg) * (1 - decay)
        mom = mom * momentum + (grad * learning_rate) / sqrt((rms - mg * mg) + epsilon)
        var -= mom

    Epsilon sits *inside* the square root. Sparse (``IndexedSlices``, duplicate
    indices summed first), on the touched rows ``i`` only::

        rms[i] = rms[i] * decay + (g * g) * (1 - decay)
        mg[i] = mg[i] * decay + g * (1 - decay)                      # centered
        mom[i] = mom[i] * momentum + rsqrt(rms[i] + epsilon) * learning_rate * g
        mom[i] = mom[i] * momentum
                 + rsqrt((rms[i] + epsilon) - mg[i] * mg[i]) * learning_rate * g  # centered
        var[i] -= mom[i]

    Untouched rows of ``var`` and of every slot keep their values. The slot
    ``rms`` starts at ones, ``momentum`` and ``mg`` at zeros.

    Args:
      learning_rate: a number or a schedule ``step -> lr`` (no default, as in TF).
      decay: discount of the moving averages (TF's default 0.9).
      momentum: momentum of the step (TF's default 0.0).
      epsilon: added to the mean square inside the square root (TF's default
        1e-10; Keras' ``RMSprop`` uses 1e-7).
      centered: normalise by the estimated variance of the gradient (TF's
        default False).

    Returns:
      An ``optax.GradientTransformation`` with state :class:`RMSPropState`.

    Raises:
      ValueError: if a hyperparameter is neither a number nor a schedule. TF
        checks no ranges.

    .. note::
       TF v1 starts ``rms`` at **ones**, not zeros, so the first steps are much
       smaller than those of implementations that start it at zero (optax's
       ``rmsprop`` defaults to zeros; Keras' ``RMSprop`` also starts at zeros).
       The sparse update is lazy: rows without a gradient do not decay and do
       not move by their momentum, unlike the dense update. The dense kernels
       divide by ``sqrt`` (correctly rounded); the sparse ones multiply by
       ``rsqrt``, on CPUs TF's (:mod:`jtrain._eigen.rsqrt`): on full packets of 8
       values of each row (float16 and bfloat16 through float32) the ``rsqrtps``
       estimate and a Newton step, up to 4 ulps from ``1 / sqrt``; the other
       values, float64 variables and other platforms take ``1 / sqrt`` correctly
       rounded.
    """
    _base.check_learning_rate("learning_rate", learning_rate)
    for name, value in (("decay", decay), ("momentum", momentum), ("epsilon", epsilon)):
        _base.check(name, value, lambda _: True, "must be a number")
    if not isinstance(centered, bool):
        raise ValueError(f"centered must be a bool, got {centered!r}")
    lr_c, decay_c, mom_c, eps_c = map(tf_constant, (learning_rate, decay, momentum, epsilon))

    def init_fn(params):
        return RMSPropState(
            count=_base.init_count(),
            rms=_base.full_like_tree(params, 1.0),
            momentum=_base.zeros_like_tree(params),
            mg=_base.zeros_like_tree(params) if centered else None,
        )

    def update_fn(grads, state, params=None):
        if params is None:
            params = _base.grads_like_params(grads)

        def rule(g, p, ms, mom, *mg):
            dtype = p.dtype
            lr = _base.hparam(lr_c, state.count, dtype)
            rho = _base.hparam(decay_c, state.count, dtype)
            mu = _base.hparam(mom_c, state.count, dtype)
            eps = _base.hparam(eps_c, state.count, dtype)
            if isinstance(g, IndexedSlices):
                i, gv = g.indices, g.values
                ms_i = r(gather_rows(ms, i) * rho) + r(r2(gv) * (1 - rho))
                if centered:
                    mg_i = r(gather_rows(mg[0], i) * rho) + r(gv * (1 - rho))
                    denom = (ms_i + eps) - r2(mg_i)
                else:
                    denom = ms_i + eps
                mom_i = r(gather_rows(mom, i) * mu) + r(r(rsqrt_rows(denom) * lr) * gv)
                delta = sparse_delta(p, i, -mom_i)
                new: tuple[jax.Array, ...] = (
                    scatter_rows(ms, i, ms_i),
                    scatter_rows(mom, i, mom_i),
                )
                if centered:
                    new += (scatter_rows(mg[0], i, mg_i),)
                return (delta, *new)
            ms_t = ms + r((r2(g) - ms) * (1 - rho))
            if centered:
                mg_t = mg[0] + r((g - mg[0]) * (1 - rho))
                denom = (ms_t - r2(mg_t)) + eps
            else:
                denom = ms_t + eps
            mom_t = r(mom * mu) + div_sqrt(g * lr, denom)
            return (-mom_t, ms_t, mom_t, *((mg_t,) if centered else ()))

        slots = (state.rms, state.momentum) + ((state.mg,) if centered else ())
        deltas, *new = _base.apply_rule(rule, grads, params, *slots)
        return deltas, RMSPropState(
            count=_base.next_count(state.count),
            rms=new[0],
            momentum=new[1],
            mg=new[2] if centered else None,
        )

    return optax.GradientTransformation(init_fn, update_fn)
