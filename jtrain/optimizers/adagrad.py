"""``tf.compat.v1.train.AdagradOptimizer`` as an optax transformation."""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import optax

from jtrain._eigen.rsqrt import rsqrt, rsqrt_rows
from jtrain._numerics import div_sqrt, rounded, rounded_square, tf_constant
from jtrain.indexed_slices import IndexedSlices, gather_rows, scatter_rows, sparse_delta
from jtrain.optimizers import _base


class AdagradState(NamedTuple):
    """State of :func:`adagrad`.

    Attributes:
      count: updates applied so far (TF's global step), the schedule's input.
      accumulator: TF's ``accumulator`` slot, the sum of squared gradients; starts
        at ``initial_accumulator_value``.
    """

    count: jax.Array  # type: ignore[assignment]  # optax's field name; shadows tuple.count
    accumulator: optax.Params


def adagrad(
    learning_rate: _base.ScalarOrSchedule,
    initial_accumulator_value: float = 0.1,
) -> optax.GradientTransformation:
    """TF's Adagrad (``ApplyAdagrad`` / ``SparseApplyAdagrad``), without epsilon.

    Dense::

        accumulator += grad * grad
        var -= grad * learning_rate * rsqrt(accumulator)

    Sparse (``IndexedSlices``, duplicate indices summed first), on the touched
    rows ``i`` only::

        accumulator[i] += g * g
        var[i] -= learning_rate * g * rsqrt(accumulator[i])   # rows of > 1 element
        var[i] -= learning_rate * g / sqrt(accumulator[i])    # rows of 1 element

    Untouched rows of ``var`` and ``accumulator`` keep their values.

    The slot ``accumulator`` starts at ``initial_accumulator_value`` (no epsilon
    anywhere: the positive start keeps the square root away from zero).

    Args:
      learning_rate: a number or a schedule ``step -> lr`` (no default, as in TF).
      initial_accumulator_value: starting value of the accumulator, must be
        positive (TF's default ``0.1``).

    Returns:
      An ``optax.GradientTransformation`` with state :class:`AdagradState`.

    Raises:
      ValueError: if ``initial_accumulator_value`` is not positive, or
        ``learning_rate`` is neither a number nor a schedule.

    .. note::
       This is TF1's ``AdagradOptimizer`` (kernel ``ApplyAdagrad``), not Keras'
       ``Adagrad`` (``ApplyAdagradV2``, which adds ``epsilon`` to the square root).
       TF's sparse kernel writes the step as a division by ``sqrt`` when a row
       holds one element (a rank-1 variable) and as a product with ``rsqrt``
       otherwise. On CPUs ``rsqrt`` is TF's
       (:mod:`jtrain._eigen.rsqrt`): on full packets of 8 values (of the flattened
       variable, or of each row for the sparse kernel; float16 and bfloat16 through
       float32) the ``rsqrtps`` estimate and a Newton step, up to 4 ulps from
       ``1 / sqrt``; the other values, float64 variables and other platforms take
       ``1 / sqrt`` correctly rounded. A Python-float
       ``learning_rate`` becomes float32 before the cast to the variable's dtype,
       as in TF; ``initial_accumulator_value`` is taken in the variable's dtype.
    """
    _base.check_learning_rate("learning_rate", learning_rate)
    _base.check(
        "initial_accumulator_value", initial_accumulator_value, lambda v: v > 0, "must be positive"
    )
    lr_c = tf_constant(learning_rate)

    def init_fn(params):
        return AdagradState(
            count=_base.init_count(),
            accumulator=_base.full_like_tree(params, initial_accumulator_value),
        )

    def update_fn(grads, state, params=None):
        if params is None:
            params = _base.grads_like_params(grads)

        def rule(g, p, accum):
            lr = _base.hparam(lr_c, state.count, p.dtype)
            if isinstance(g, IndexedSlices):
                a = gather_rows(accum, g.indices) + rounded_square(g.values)
                if math.prod(p.shape[1:]) > 1:
                    step = rounded(rounded(lr * g.values) * rsqrt_rows(a))
                else:
                    step = div_sqrt(lr * g.values, a)
                delta = sparse_delta(p, g.indices, -step)
                return delta, scatter_rows(accum, g.indices, a)
            a = accum + rounded_square(g)
            return -rounded(rounded(g * lr) * rsqrt(a)), a

        deltas, accums = _base.apply_rule(rule, grads, params, state.accumulator)
        return deltas, AdagradState(count=_base.next_count(state.count), accumulator=accums)

    return optax.GradientTransformation(init_fn, update_fn)
