"""``tf.compat.v1.train.FtrlOptimizer`` as an optax transformation."""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jtrain._numerics import kernel_divide as q
from jtrain._numerics import rounded as r
from jtrain._numerics import rounded_square as r2
from jtrain._numerics import static_value, tf_constant
from jtrain.indexed_slices import IndexedSlices, gather_rows, scatter_rows
from jtrain.optimizers import _base


class FtrlState(NamedTuple):
    """State of :func:`ftrl`.

    Attributes:
      count: updates applied so far (TF's global step), the schedule's input.
      accum: TF's ``accum`` slot, the sum of squared gradients; starts at
        ``initial_accumulator_value``.
      linear: TF's ``linear`` slot, the FTRL "z" (gradients minus the
        learning-rate-change correction); starts at zeros.
    """

    count: jax.Array  # type: ignore[assignment]  # optax's field name; shadows tuple.count
    accum: optax.Updates
    linear: optax.Updates


def ftrl(
    learning_rate: _base.ScalarOrSchedule,
    learning_rate_power: float = -0.5,
    initial_accumulator_value: float = 0.1,
    l1_regularization_strength: _base.ScalarOrSchedule = 0.0,
    l2_regularization_strength: _base.ScalarOrSchedule = 0.0,
    l2_shrinkage_regularization_strength: _base.ScalarOrSchedule = 0.0,
    beta: float | None = None,
) -> _base.AssigningTransformation:
    """TF's FTRL-proximal (``ApplyFtrl``/``ApplyFtrlV2`` and their sparse kernels).

    With ``p = -learning_rate_power``, ``lr = learning_rate``, ``l1``, and
    ``l2 = l2_regularization_strength + beta / (2 * max(lr, 1e-36))`` (``beta``
    folded into l2 exactly as TF's ``FtrlOptimizer`` does), dense::

        grad_s = grad + 2 * l2_shrinkage * var        # only with l2_shrinkage > 0 (V2)
        new_accum = accum + grad * grad              # the raw gradient
        linear += grad_s - (new_accum ** p - accum ** p) / lr * var
        var = (l1 * sign(linear) - linear) / (new_accum ** p / lr + 2 * l2)
              if |linear| > l1 else 0
        accum = new_accum

    ``x ** 0.5`` is ``sqrt(x)`` (TF's fast path for ``learning_rate_power ==
    -0.5``). No epsilon: the accumulator starts at ``initial_accumulator_value``.

    Sparse (``IndexedSlices``, duplicate indices summed first): the same on the
    touched rows only, with the kernels' clamp form ``var = (clip(linear, -l1,
    l1) - linear) / (new_accum ** p / lr + 2 * l2)`` (equal to the dense
    select); for rows of one element (a rank-1 variable) TF computes the
    correction with ``pow`` even when ``p == 0.5`` and adds ``(linear + grad_s)
    - correction * var``, and jtrain follows. Untouched rows keep their values;
    shrinkage applies to touched rows only.

    Args:
      learning_rate: a number or a schedule ``step -> lr`` (no default, as in TF).
      learning_rate_power: how the per-coordinate rate decays, ``<= 0``; 0 is a
        fixed rate (TF's default -0.5). A number.
      initial_accumulator_value: starting value of ``accum``, ``>= 0`` (TF's
        default 0.1).
      l1_regularization_strength: ``>= 0`` (TF's default 0.0).
      l2_regularization_strength: ``>= 0`` (TF's default 0.0), the stabilization
        penalty.
      l2_shrinkage_regularization_strength: ``>= 0`` (TF's default 0.0), a
        magnitude penalty added to the gradient; when positive TF switches to
        the ``FtrlV2`` kernels.
      beta: the paper's beta (TF's default None, i.e. 0.0), added to l2 as
        ``beta / (2 * learning_rate)``.

    Returns:
      A :class:`~jtrain.optimizers.AssigningTransformation` (an
      ``optax.GradientTransformation``) with state :class:`FtrlState`; its
      ``update`` and ``assign`` need ``params`` (TF reads the variable).

    Raises:
      ValueError: as TF's ``FtrlOptimizer``: ``learning_rate_power > 0``,
        ``initial_accumulator_value < 0`` or a negative l1, l2 or l2-shrinkage
        strength; also ``learning_rate <= 0``, which TF's sparse kernels reject
        when they run and its dense kernel turns into infinities.

    .. note::
       ``var`` is *assigned* by TF, not decremented. ``update`` returns
       ``new_var - var``, so ``optax.apply_updates`` gives ``new_var`` up to one
       rounding of that difference (exact zeros stay exact);
       ``assign`` (or :func:`jtrain.optimizers.apply_gradients`) gives ``new_var``,
       TF's bits. Where the dense kernel raises to a power other than 0.5, TF
       evaluates full SIMD packets with Eigen's vectorized ``pow``, whose last
       bits depend on the CPU; jtrain uses XLA's ``pow``. TF computes
       ``beta``'s contribution to l2 in float32 from Python floats, as jtrain.
    """
    _base.check_learning_rate("learning_rate", learning_rate)
    _base.check("learning_rate", learning_rate, lambda v: v > 0, "must be positive")
    if callable(learning_rate_power):
        raise ValueError(f"learning_rate_power must be a number, got {learning_rate_power!r}")
    _base.check(
        "learning_rate_power", learning_rate_power, lambda v: v <= 0, "must be negative or zero"
    )
    _base.check(
        "initial_accumulator_value",
        initial_accumulator_value,
        lambda v: v >= 0,
        "must be positive or zero",
    )
    for name, value in (
        ("l1_regularization_strength", l1_regularization_strength),
        ("l2_regularization_strength", l2_regularization_strength),
        ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength),
    ):
        _base.check(name, value, lambda v: v >= 0, "must be positive or zero")
    if beta is not None:
        _base.check("beta", beta, lambda _: True, "must be a number")
    lr_c = tf_constant(learning_rate)
    l1_c = tf_constant(l1_regularization_strength)
    l2_c = tf_constant(l2_regularization_strength)
    shrink_c = tf_constant(l2_shrinkage_regularization_strength)
    beta_c = tf_constant(0.0 if beta is None else beta)
    power_c = tf_constant(learning_rate_power)
    shrink_static = static_value(shrink_c)
    # TF picks ApplyFtrl or ApplyFtrlV2 in Python on the number it was given.
    use_v2 = shrink_static is None or shrink_static > 0.0

    def init_fn(params):
        return FtrlState(
            count=_base.init_count(),
            accum=_base.full_like_tree(params, initial_accumulator_value),
            linear=_base.zeros_like_tree(params),
        )

    def step_fn(grads, state, params, assign):
        if params is None:
            raise ValueError(_base.NO_PARAMS_MSG.format(name="ftrl", tf_name="ApplyFtrl"))
        count = state.count
        # TF: l2 + beta / (2. * maximum(learning_rate, 1e-36)), in the learning rate's
        # own dtype (float32 for a Python float), before the cast to each variable.
        lr_tensor = jnp.asarray(lr_c(count) if callable(lr_c) else lr_c)
        adjusted_l2 = jnp.asarray(l2_c(count) if callable(l2_c) else l2_c) + jnp.asarray(beta_c) / (
            2.0 * jnp.maximum(lr_tensor, 1e-36)
        )

        def rule(g, p, accum, linear):
            dtype = p.dtype
            lr = _base.hparam(lr_c, count, dtype)
            l1 = _base.hparam(l1_c, count, dtype)
            two_l2 = 2 * adjusted_l2.astype(dtype)
            two_shrink = 2 * _base.hparam(shrink_c, count, dtype)
            power = np.asarray(power_c).astype(dtype)
            fast = bool(power == -0.5)
            neg_power = -power

            def pw(x):
                return jnp.sqrt(x) if fast else jnp.power(x, neg_power)

            if isinstance(g, IndexedSlices):
                i, gv = g.indices, g.values
                a = gather_rows(accum, i)
                z = gather_rows(linear, i)
                w = gather_rows(p, i)
                g_s = gv + r(two_shrink * w) if use_v2 else gv
                new_a = a + r2(gv)
                if math.prod(p.shape[1:]) == 1:
                    # TF's scalar loop: pow() for the correction, (l + g) - sigma * v.
                    sigma = q(jnp.power(new_a, neg_power) - jnp.power(a, neg_power), lr)
                    new_z = (z + g_s) - r(sigma * w)
                else:
                    new_z = z + (g_s - r(q(pw(new_a) - pw(a), lr) * w))
                quadratic = _base.opaque(q(pw(new_a), lr) + two_l2)
                new_w = (jnp.maximum(jnp.minimum(new_z, l1), -l1) - new_z) / quadratic
                rows = _base.Rows(i, new_w, w)
                return rows, scatter_rows(accum, i, new_a), scatter_rows(linear, i, new_z)
            g_s = g + r(two_shrink * p) if use_v2 else g
            new_a = accum + r2(g)
            new_z = linear + (g_s - r(q(pw(new_a) - pw(accum), lr) * p))
            x = r(l1 * jnp.sign(new_z)) - new_z
            y = _base.opaque(q(pw(new_a), lr) + two_l2)
            new_w = jnp.where(jnp.abs(new_z) > l1, x / y, jnp.zeros_like(x))
            return new_w, new_a, new_z

        new, accums, linears = _base.apply_assigning_rule(
            rule, assign, grads, params, state.accum, state.linear
        )
        return new, FtrlState(count=_base.next_count(count), accum=accums, linear=linears)

    return _base.assigning(init_fn, step_fn)
