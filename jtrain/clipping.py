"""TF's gradient clipping (``tf.clip_by_*``, ``tf.linalg.global_norm``) on JAX arrays.

The functions reproduce ``tensorflow/python/ops/clip_ops.py`` operation for
operation (the same order of multiplications and divisions, the same handling of
zero, infinite and NaN norms), so their results match TF's to the last bit or
within a few ulps where a reduction sums in another order. Each accepts a dense
array or a :class:`jtrain.IndexedSlices` (whose ``values`` are clipped and whose
``indices``/``dense_shape`` are kept); the list functions (:func:`global_norm`,
:func:`clip_by_global_norm`) take any pytree, in which ``None`` entries are
ignored and come back as ``None``.

The ``*_transform`` factories apply them to gradient trees as
``optax.GradientTransformation`` s, to chain before an optimizer::

    tx = optax.chain(jtrain.clipping.clip_by_global_norm_transform(5.0),
                     jtrain.optimizers.gradient_descent(0.1))

Everything here is pure and jit-able; no Python branching on traced values.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jtrain import _tree
from jtrain._numerics import div_sqrt, eigen_sum, kernel_divide, rounded_square
from jtrain.indexed_slices import IndexedSlices, is_indexed_slices

__all__ = [
    "clip_by_value",
    "clip_by_norm",
    "clip_by_average_norm",
    "global_norm",
    "clip_by_global_norm",
    "ClipByGlobalNormState",
    "clip_by_value_transform",
    "clip_by_norm_transform",
    "clip_by_average_norm_transform",
    "clip_by_global_norm_transform",
]

Axes = int | Sequence[int] | None


def _values(t: Any) -> jax.Array:
    return t.values if isinstance(t, IndexedSlices) else jnp.asarray(t)


def _like(t: Any, values: jax.Array) -> Any:
    """``values`` in the form of ``t``: an ``IndexedSlices`` keeps indices and shape."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(values, t.indices, t.dense_shape)
    return values


def _check_float(name: str, values: jax.Array) -> None:
    if not jnp.issubdtype(values.dtype, jnp.floating):
        raise TypeError(f"{name}: t must be a floating point array, got dtype {values.dtype}")


def _check_number(name: str, value: Any) -> None:
    """Fails fast on a Python number that is NaN (arrays and tracers are not checked)."""
    if isinstance(value, Real) and value != value:
        raise ValueError(f"{name} must be a number, got {value!r}")


def _scalar(value: Any, dtype: Any) -> jax.Array:
    """A Python number or array as ``dtype`` (TF converts Python numbers to the
    tensor's dtype and ``math_ops.cast`` s tensors)."""
    return jnp.asarray(value).astype(dtype)


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any) -> Any:
    """Clips values to ``[clip_value_min, clip_value_max]`` (``tf.clip_by_value``).

    TF computes ``maximum(minimum(t, clip_value_max), clip_value_min)``: NaN
    stays NaN, ``+-inf`` are clipped, and where ``clip_value_min >
    clip_value_max`` every value becomes ``clip_value_min`` (the maximum is
    applied last).

    Args:
      t: an array or ``IndexedSlices`` (any real dtype, integers included).
      clip_value_min: scalar or array broadcastable to ``t``'s shape.
      clip_value_max: scalar or array broadcastable to ``t``'s shape.

    Returns:
      The clipped array, or an ``IndexedSlices`` with clipped values and the same
      indices and dense shape.

    Raises:
      ValueError: if the bounds would broadcast ``t`` to a larger shape (TF raises
        ``InvalidArgumentError``: "Incompatible shapes").
    """
    if t is None:
        return None
    values = _values(t)
    lo = jnp.asarray(clip_value_min).astype(values.dtype)
    hi = jnp.asarray(clip_value_max).astype(values.dtype)
    for name, bound in (("clip_value_min", lo), ("clip_value_max", hi)):
        try:
            grows = jnp.broadcast_shapes(values.shape, bound.shape) != values.shape
        except ValueError:
            grows = True
        if grows:
            raise ValueError(
                f"clip_by_value: {name} of shape {bound.shape} would broadcast t of shape "
                f"{values.shape} to another shape (TF: Incompatible shapes)"
            )
    return _like(t, jnp.maximum(jnp.minimum(values, hi), lo))


def clip_by_norm(t: Any, clip_norm: Any, axes: Axes = None) -> Any:
    """Clips to a maximum L2 norm along ``axes`` (``tf.clip_by_norm``).

    TF's computation, kept as is::

        l2sum  = sum(t * t, axes, keepdims=True)
        l2norm = sqrt(l2sum) where l2sum > 0 else l2sum
        t_clip = (t * clip_norm) / maximum(l2norm, clip_norm)

    so ``t`` is unchanged (up to the round trip through ``* c / c``) when its
    norm is at most ``clip_norm``.

    .. note:: TF's edges: a negative ``clip_norm`` acts as 0; a zero tensor with
       ``clip_norm == 0`` gives NaN (``0 / 0``); an infinite entry makes its own
       entry NaN (``inf / inf``) and every other entry 0 (signed); squares that
       overflow give an infinite norm, hence zeros. For an ``IndexedSlices``
       the norm is that of ``values`` (a duplicated index counts twice). Over all
       axes the squares are summed in TF's CPU order (see :func:`global_norm`).

    Args:
      t: a floating point array or ``IndexedSlices``.
      clip_norm: scalar > 0, the maximum norm (no default, as in TF).
      axes: the dimensions the norm runs over (an int or a sequence of ints,
        negative allowed); ``None`` (TF's default) means all of them. For an
        ``IndexedSlices`` they index the ``values`` array.

    Returns:
      The clipped array, or an ``IndexedSlices`` with clipped values.

    Raises:
      TypeError: if ``t`` is not floating point.
      ValueError: if ``clip_norm`` is not a scalar.
    """
    if t is None:
        return None
    values = _values(t)
    _check_float("clip_by_norm", values)
    _check_number("clip_norm", clip_norm)
    if jnp.ndim(clip_norm) != 0:
        raise ValueError(f"clip_norm must be a scalar, got shape {jnp.shape(clip_norm)}")
    c = jnp.maximum(_scalar(clip_norm, values.dtype), jnp.zeros([], values.dtype))
    axis = tuple(axes) if isinstance(axes, Sequence) else axes
    # TF's Mul rounds each square before Sum adds them; its RealDiv divides (XLA would
    # multiply by the reciprocal of the broadcast norm: 1 ulp off).
    l2sum = eigen_sum(rounded_square(values), axis, keepdims=True)  # TF's Sum
    pred = l2sum > 0
    l2sum_safe = jnp.where(pred, l2sum, jnp.ones_like(l2sum))
    l2norm = jnp.where(pred, jnp.sqrt(l2sum_safe), l2sum)
    return _like(t, kernel_divide(values * c, jnp.maximum(l2norm, c)))


def clip_by_average_norm(t: Any, clip_norm: Any) -> jax.Array | None:
    """Clips to a maximum average L2 norm (``tf.compat.v1.clip_by_average_norm``).

    TF's computation: ``t * clip_norm * minimum(rsqrt(sum(t * t)) * size(t),
    1 / clip_norm)``, i.e. ``t`` is scaled by ``clip_norm / (l2norm(t) /
    size(t))`` when that average norm exceeds ``clip_norm``. A zero tensor stays
    zero; an infinite entry gives NaN there and zeros elsewhere.

    .. note:: TF converts an ``IndexedSlices`` to a dense tensor first (summing
       duplicate indices), so this returns a dense array for one too. TF casts
       ``size(t)`` to float32 and so accepts float32 only; jtrain uses ``t``'s
       dtype.

    Args:
      t: a floating point array or ``IndexedSlices``.
      clip_norm: scalar > 0, the maximum average norm.

    Returns:
      The clipped (dense) array; ``None`` for ``t=None``.

    Raises:
      TypeError: if ``t`` is not floating point.
    """
    if t is None:
        return None
    values = t.to_dense() if isinstance(t, IndexedSlices) else jnp.asarray(t)
    _check_float("clip_by_average_norm", values)
    _check_number("clip_norm", clip_norm)
    c = _scalar(clip_norm, values.dtype)
    n_element = jnp.asarray(values.size, values.dtype)
    one = jnp.ones([], values.dtype)
    # TF's scalar Rsqrt is ``1 / sqrt`` correctly rounded (XLA's rsqrt is not: 1 ulp off).
    l2norm_inv = div_sqrt(one, eigen_sum(rounded_square(values)))
    return values * c * jnp.minimum(l2norm_inv * n_element, one / c)


def _present_values(t_list: Any) -> list[jax.Array]:
    """The arrays of ``t_list``'s entries (``values`` of an ``IndexedSlices``); ``None``
    entries are empty subtrees and do not appear."""
    return [_values(t) for t in jax.tree.leaves(t_list, is_leaf=is_indexed_slices)]


def _norm_dtype(values: list[jax.Array]) -> Any:
    return jnp.result_type(*values) if values else jnp.dtype(jnp.float32)


def global_norm(t_list: Any) -> jax.Array:
    """The L2 norm of all entries together (``tf.linalg.global_norm``).

    ``global_norm = sqrt(2 * sum_i l2_loss(t_i))`` with TF's ``l2_loss(t) =
    sum(t * t) / 2``. ``None`` entries are ignored (the norm of nothing is 0.0,
    float32, as in TF); an ``IndexedSlices`` contributes its ``values`` (a
    duplicated index counts twice). Squares that overflow give ``inf``.

    Args:
      t_list: a list, tuple or any pytree of arrays, ``IndexedSlices`` and
        ``None``.

    Returns:
      A scalar in the entries' dtype.

    .. note:: TF requires every entry to have the same dtype; jtrain promotes
       mixed dtypes (each entry's sum of squares is computed in its own dtype).

    .. note:: The sums follow TF's CPU kernels (Eigen's packet order on x86 builds:
       ``L2Loss`` of each entry, then ``Sum`` of their stack), so float32 and float64
       norms equal TF's bit for bit (measured against TF 2.21 on random lists). Two
       cases stay within an ulp or two instead: an entry large enough for TF to split
       its sum across intra-op threads (the blocks depend on the thread count), and
       constant entries, which TF's graph optimizer folds with another order.
    """
    values = _present_values(t_list)
    dtype = _norm_dtype(values)
    # TF: one L2Loss per entry (Eigen's sum of x * x * 0.5), a Sum of their stack, * 2.
    half = [_l2_loss(v).astype(dtype) for v in values]
    total = eigen_sum(jnp.stack(half)) if half else jnp.zeros([], dtype)
    return jnp.sqrt(total * jnp.asarray(2.0, dtype))


def _l2_loss(v: jax.Array) -> jax.Array:
    """TF's ``L2Loss`` kernel: Eigen's sum of ``v * v * 0.5``."""
    return eigen_sum(rounded_square(v) * jnp.asarray(0.5, v.dtype), elementwise_ops=2)


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None) -> tuple[Any, jax.Array]:
    """Scales every entry by ``clip_norm / max(global_norm, clip_norm)``
    (``tf.clip_by_global_norm``).

    TF's computation::

        scale = clip_norm * minimum(1 / global_norm, 1 / clip_norm)
                + (global_norm - global_norm)
        t_i   = t_i * scale

    The ``global_norm - global_norm`` term makes the scale NaN when the norm is
    infinite or NaN, so every entry becomes NaN "to signal that an error
    occurred" (an overflowing norm does the same). A zero norm gives ``scale =
    clip_norm * (1 / clip_norm)``. Unclipped entries are multiplied by that same
    ``clip_norm * (1 / clip_norm)``, which may differ from 1 by an ulp, as in TF.

    Args:
      t_list: a list, tuple or any pytree of arrays, ``IndexedSlices`` and
        ``None`` (TF takes a list or tuple).
      clip_norm: scalar > 0, the clipping ratio.
      use_norm: the global norm to use instead of computing
        :func:`global_norm` (TF's default ``None``).

    Returns:
      ``(clipped, global_norm)``: ``clipped`` has ``t_list``'s structure, with
      ``None`` entries kept and ``IndexedSlices`` entries scaled on their values;
      ``global_norm`` is ``use_norm`` when given.
    """
    _check_number("clip_norm", clip_norm)
    values = _present_values(t_list)
    if use_norm is None:
        norm = global_norm(t_list)
    elif isinstance(use_norm, Real):
        norm = jnp.asarray(use_norm, _norm_dtype(values))
    else:
        norm = jnp.asarray(use_norm)
    c = _scalar(clip_norm, norm.dtype)
    one = jnp.ones([], norm.dtype)
    scale_for_finite = c * jnp.minimum(one / norm, one / c)
    scale = scale_for_finite + (norm - norm)

    def clip(t):
        v = _values(t)
        return _like(t, v * scale.astype(v.dtype))

    return _tree.map_leaves(clip, t_list), norm


# -- optax transformations --------------------------------------------------------------


def clip_by_value_transform(
    clip_value_min: Any, clip_value_max: Any
) -> optax.GradientTransformation:
    """Clips every gradient with :func:`clip_by_value` (Keras' ``clipvalue`` is the
    symmetric case).

    Args:
      clip_value_min: lower bound (scalar, or broadcastable to every leaf).
      clip_value_max: upper bound.

    Returns:
      An ``optax.GradientTransformation`` with ``optax.EmptyState``; accepts
      ``IndexedSlices`` and ``None`` leaves.
    """

    def update_fn(updates, state, params=None):
        del params
        clip = lambda g: clip_by_value(g, clip_value_min, clip_value_max)
        return _tree.map_leaves(clip, updates), state

    return optax.GradientTransformation(lambda params: optax.EmptyState(), update_fn)


def _check_clip_norm(clip_norm: Any) -> None:
    _check_number("clip_norm", clip_norm)
    if isinstance(clip_norm, Real) and clip_norm <= 0:
        raise ValueError(f"clip_norm must be > 0, got {clip_norm!r}")


def clip_by_norm_transform(clip_norm: Any, axes: Axes = None) -> optax.GradientTransformation:
    """Clips every gradient to norm ``clip_norm`` separately, with :func:`clip_by_norm`
    (the usual ``[tf.clip_by_norm(g, c) for g in grads]``; Keras' ``clipnorm``).

    Args:
      clip_norm: scalar > 0.
      axes: passed to :func:`clip_by_norm` for every leaf (``None``: all axes).

    Returns:
      An ``optax.GradientTransformation`` with ``optax.EmptyState``; accepts
      ``IndexedSlices`` and ``None`` leaves.

    Raises:
      ValueError: if ``clip_norm`` is a number <= 0.
    """
    _check_clip_norm(clip_norm)

    def update_fn(updates, state, params=None):
        del params
        return _tree.map_leaves(lambda g: clip_by_norm(g, clip_norm, axes), updates), state

    return optax.GradientTransformation(lambda params: optax.EmptyState(), update_fn)


def clip_by_average_norm_transform(clip_norm: Any) -> optax.GradientTransformation:
    """Clips every gradient with :func:`clip_by_average_norm`.

    ``IndexedSlices`` gradients come out dense, as TF's op makes them.

    Args:
      clip_norm: scalar > 0.

    Returns:
      An ``optax.GradientTransformation`` with ``optax.EmptyState``.

    Raises:
      ValueError: if ``clip_norm`` is a number <= 0.
    """
    _check_clip_norm(clip_norm)

    def update_fn(updates, state, params=None):
        del params
        return _tree.map_leaves(lambda g: clip_by_average_norm(g, clip_norm), updates), state

    return optax.GradientTransformation(lambda params: optax.EmptyState(), update_fn)


class ClipByGlobalNormState(NamedTuple):
    """State of :func:`clip_by_global_norm_transform`.

    Attributes:
      global_norm: the global norm of the last gradients seen (the second result of
        ``tf.clip_by_global_norm``, handy for summaries); 0 before the first update.
    """

    global_norm: jax.Array


def clip_by_global_norm_transform(clip_norm: Any) -> optax.GradientTransformation:
    """Clips the gradient tree by its global norm with :func:`clip_by_global_norm`,
    TF's ``grads, norm = tf.clip_by_global_norm(grads, clip_norm)`` (Keras'
    ``global_clipnorm``).

    Unlike ``optax.clip_by_global_norm``, this keeps TF's arithmetic: unclipped
    gradients are multiplied by ``clip_norm * (1 / clip_norm)``, and an infinite
    or NaN norm turns every gradient into NaN (chain
    :func:`jtrain.loss_scale.dynamic_loss_scale_transform` or
    ``optax.apply_if_finite`` after it to skip such steps).

    Args:
      clip_norm: scalar > 0, the clipping ratio.

    Returns:
      An ``optax.GradientTransformation`` whose state is a
      :class:`ClipByGlobalNormState`; accepts ``IndexedSlices`` and ``None``
      leaves.

    Raises:
      ValueError: if ``clip_norm`` is a number <= 0.
    """
    _check_clip_norm(clip_norm)

    def init_fn(params):
        dtype = _norm_dtype(_present_values(params))
        return ClipByGlobalNormState(global_norm=jnp.zeros([], dtype))

    def update_fn(updates, state, params=None):
        del params
        clipped, norm = clip_by_global_norm(updates, clip_norm)
        return clipped, ClipByGlobalNormState(norm.astype(state.global_norm.dtype))

    return optax.GradientTransformation(init_fn, update_fn)
