"""``tf.compat.v1.train.AdagradDAOptimizer`` as an optax transformation."""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jtrain._numerics import kernel_divide, rounded, rounded_square, tf_constant
from jtrain.indexed_slices import IndexedSlices, gather_rows, scatter_rows
from jtrain.optimizers import _base


class AdagradDAState(NamedTuple):
    """State of :func:`adagrad_da`.

    Attributes:
      count: updates applied so far (TF's global step before this update); the
        kernel's step ``T`` is ``count + 1``, and the schedules' input is ``count``.
      gradient_accumulator: TF's ``gradient_accumulator`` slot, the sum of the
        gradients; starts at zeros.
      gradient_squared_accumulator: TF's ``gradient_squared_accumulator`` slot,
        the sum of squared gradients; starts at
        ``initial_gradient_squared_accumulator_value``.
    """

    count: jax.Array  # type: ignore[assignment]  # optax's field name; shadows tuple.count
    gradient_accumulator: optax.Params
    gradient_squared_accumulator: optax.Params


def adagrad_da(
    learning_rate: _base.ScalarOrSchedule,
    initial_gradient_squared_accumulator_value: float = 0.1,
    l1_regularization_strength: _base.ScalarOrSchedule = 0.0,
    l2_regularization_strength: _base.ScalarOrSchedule = 0.0,
) -> _base.AssigningTransformation:
    """TF's Adagrad dual averaging (``ApplyAdagradDA`` / ``SparseApplyAdagradDA``).

    With ``g_acc``, ``gg_acc`` the slots, ``T = count + 1`` the step (TF's
    ``global_step + 1``), ``lr``, ``l1``, ``l2`` the hyperparameters; dense::

        g_acc += grad
        gg_acc += grad * grad
        if l1 > 0:
            var = lr * -1 * sign(g_acc) * max(|g_acc| - T * l1, 0)
                  / (l2 * (T * lr) + sqrt(gg_acc))
        else:
            var = lr * g_acc * -1 / (l2 * (T * lr) + sqrt(gg_acc))

    The variable is *recomputed* from the accumulators, not moved by a step:
    its previous value does not enter.

    Sparse (``IndexedSlices``, duplicate indices summed first): the same on the
    touched rows ``i`` only, written by TF's sparse kernel as (rows of more
    than one element)::

        var[i] = -1 * sign(g_acc[i]) * max(|g_acc[i]| / T - l1, 0)
                 / (l2 + sqrt(gg_acc[i]) / (T * lr))

    and (rows of one element, a rank-1 variable), in double precision as TF's
    scalar loop computes it (the slots stored in the variable's dtype, ``sqrt``
    taken of the stored ``gg_acc[i]``)::

        gg_acc[i] += grad * grad
        var[i] = sign(-g_acc[i]) * lr * max(|g_acc[i]| - T * l1, 0)
                 / (T * l2 * lr + sqrt(gg_acc[i]))

    (without the ``sign``/``max`` when ``l1 <= 0``). Untouched rows of the
    variable and both slots keep their values: the closed form catches up on
    the regularization of a row when the row is next seen.

    Slots: ``gradient_accumulator`` starts at zeros, ``gradient_squared_accumulator``
    at ``initial_gradient_squared_accumulator_value``.

    Args:
      learning_rate: a number or a schedule ``step -> lr`` (no default, as in TF).
      initial_gradient_squared_accumulator_value: starting value of the squared
        accumulator, must be positive (TF's default ``0.1``).
      l1_regularization_strength: a number >= 0 or a schedule (TF's default ``0.0``).
      l2_regularization_strength: a number >= 0 or a schedule (TF's default ``0.0``).

    Returns:
      A :class:`~jtrain.optimizers.AssigningTransformation` (an
      ``optax.GradientTransformation``) with state :class:`AdagradDAState`.
      ``update`` and ``assign`` need ``params`` (the update is the new value
      minus the old).

    Raises:
      ValueError: if ``initial_gradient_squared_accumulator_value`` is not
        positive, a regularization strength is negative (TF documents ``>= 0``),
        or an argument is neither a number nor a schedule; from ``update``, if
        ``params`` is not given.

    .. note::
       TF's constructor takes a ``global_step`` tensor and the kernel sees
       ``global_step + 1`` read *before* ``minimize(global_step=...)`` increments
       it: at the first update ``T = 1``. jtrain uses ``count + 1`` (``count`` is
       the number of updates applied so far), which is the same when the same
       global step is passed to the constructor and to ``minimize`` and starts at
       zero, as TF1 code does. The dense kernel rounds ``T`` to float32 before
       using it, even for float64 variables. Python-float hyperparameters
       become float32 before the cast to the variable's dtype, as in TF. TF
       documents but does not check ``l1 >= 0`` and ``l2 >= 0``; jtrain rejects
       negative values. ``var`` is *assigned* by TF, not decremented: ``update``
       returns ``new_var - var``, so ``optax.apply_updates`` gives ``new_var`` up
       to one rounding of that difference, an absolute error of up to half an ulp
       of the *old* value (exact zeros stay exact), visible where a row's first
       update takes a large initial value to a small one; ``assign`` (or
       :func:`jtrain.optimizers.apply_gradients`) gives ``new_var``, TF's bits.
    """
    _base.check_learning_rate("learning_rate", learning_rate)
    _base.check(
        "initial_gradient_squared_accumulator_value",
        initial_gradient_squared_accumulator_value,
        lambda v: v > 0,
        "must be positive",
    )
    for name, value in (
        ("l1_regularization_strength", l1_regularization_strength),
        ("l2_regularization_strength", l2_regularization_strength),
    ):
        _base.check(name, value, lambda v: v >= 0, "must be greater than or equal to zero")
    lr_c, l1_c, l2_c = map(
        tf_constant, (learning_rate, l1_regularization_strength, l2_regularization_strength)
    )

    def init_fn(params):
        return AdagradDAState(
            count=_base.init_count(),
            gradient_accumulator=_base.zeros_like_tree(params),
            gradient_squared_accumulator=_base.full_like_tree(
                params, initial_gradient_squared_accumulator_value
            ),
        )

    def step_fn(grads, state, params, assign):
        if params is None:
            raise ValueError(
                _base.NO_PARAMS_MSG.format(name="adagrad_da", tf_name="AdagradDAOptimizer")
            )
        # TF's kernel reads the int64 global_step + 1 (the step being taken).
        step = _base.next_count(state.count)

        def rule(g, p, g_acc, gg_acc):
            dtype = p.dtype
            lr = _base.hparam(lr_c, state.count, dtype)
            l1 = _base.hparam(l1_c, state.count, dtype)
            l2 = _base.hparam(l2_c, state.count, dtype)
            if isinstance(g, IndexedSlices):
                ga = gather_rows(g_acc, g.indices) + g.values
                gga = gather_rows(gg_acc, g.indices)
                if math.prod(p.shape[1:]) > 1:
                    gga = gga + rounded_square(g.values)
                    t = step.astype(dtype)
                    denom = _base.opaque(l2 + kernel_divide(jnp.sqrt(gga), t * lr))
                    excess = kernel_divide(jnp.abs(ga), t) - l1
                    shrunk = -jnp.sign(ga) * jnp.maximum(excess, 0) / denom
                    plain = -kernel_divide(ga, t) / denom
                    new = jnp.where(l1 > 0, shrunk, plain)
                else:
                    # TF's scalar loop: double arithmetic on the stored (T) accumulators;
                    # ``ga + g`` in double rounds as in T, ``da + g * g`` does not.
                    gga = _base.in_double(lambda a, v: a + v * v, dtype, gga, g.values)
                    root = jnp.sqrt(gga)  # std::sqrt of a T
                    new = _base.in_double(_scalar_row, dtype, ga, root, lr, l1, l2, step)
                return (
                    _base.Rows(g.indices, new, gather_rows(p, g.indices)),
                    scatter_rows(g_acc, g.indices, ga),
                    scatter_rows(gg_acc, g.indices, gga),
                )
            ga = g_acc + g
            gga = gg_acc + rounded_square(g)
            t = step.astype(jnp.float32).astype(dtype)
            denom = rounded(l2 * (t * lr)) + jnp.sqrt(gga)
            excess = jnp.abs(ga) - rounded(t * l1)
            shrunk = lr * -jnp.sign(ga) * jnp.maximum(excess, 0) / denom
            plain = lr * ga * -1 / denom
            return jnp.where(l1 > 0, shrunk, plain), ga, gga

        new, g_accs, gg_accs = _base.apply_assigning_rule(
            rule,
            assign,
            grads,
            params,
            state.gradient_accumulator,
            state.gradient_squared_accumulator,
        )
        return new, AdagradDAState(
            count=_base.next_count(state.count),
            gradient_accumulator=g_accs,
            gradient_squared_accumulator=gg_accs,
        )

    return _base.assigning(init_fn, step_fn)


def _scalar_row(ga, root, lr, l1, l2, step):
    """TF's ``SparseApplyAdagradDA`` for rows of one element, in double: ``sgn(-ga) *
    lr * max(|ga| - T * l1, 0) / (T * l2 * lr + sqrt(da))`` (``l1 > 0``), else
    ``-ga * lr / (T * l2 * lr + sqrt(da))``."""
    denom = rounded(rounded(step * l2) * lr) + root
    excess = jnp.abs(ga) - rounded(step * l1)
    shrunk = jnp.sign(-ga) * lr * jnp.maximum(excess, 0) / denom
    plain = (-ga * lr) / denom
    return jnp.where(l1 > 0, shrunk, plain)
