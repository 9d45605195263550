"""``tf.losses`` (TF1): weighted, reduced losses added to the ``LOSSES`` collection.

Each loss is an entry of TF's op table (``framework/op_def.py``) with TF's v1
signature (``weights=1.0``, ``scope=None``, ``loss_collection``, ``reduction``):
the per-element loss, multiplied by the broadcast weights and reduced as TF's
``compute_weighted_loss`` does (the default, ``SUM_BY_NONZERO_WEIGHTS``, divides
by the number of non-zero weights, 0 when there are none). ``label_smoothing``
is TF's. The loss tensor is added to ``loss_collection``.

Dtypes are TF's: ``mean_squared_error``, ``absolute_difference``, ``huber_loss``,
``log_loss``, ``hinge_loss``, ``cosine_distance`` and
``mean_pairwise_squared_error`` cast predictions (logits) and labels of any real
or boolean dtype to float32 first and return float32 (a float16 ``300.0`` squares
to 90000.0, not ``inf``); the cross entropies compute in the logits' dtype and
``compute_weighted_loss`` in float32, both returning the input's dtype. Weights
of any real dtype are cast to float32.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import BOOL, FLOATING, INDEX, REAL, define
from adapters.v1.ops.math_ops import _minimum
from adapters.v1.ops.nn_ops import (
    _sigmoid_cross_entropy,
    _softmax_xent,
    _sparse_softmax_cross_entropy,
)

__all__ = [
    "Reduction",
    "add_loss",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
]


class Reduction:
    """TF1's loss reductions (``tf.compat.v1.losses.Reduction``)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple[str, ...]:
        return (
            cls.NONE,
            cls.SUM,
            cls.MEAN,
            cls.SUM_OVER_BATCH_SIZE,
            cls.SUM_OVER_NONZERO_WEIGHTS,
            cls.SUM_BY_NONZERO_WEIGHTS,
        )

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _div_no_nan(x: Any, y: Any) -> Any:
    return jnp.where(y == 0, jnp.zeros((), x.dtype), x / jnp.where(y == 0, 1, y))


def _weighted(losses: Any, weights: Any, reduction: str) -> Any:
    """TF's ``compute_weighted_loss`` on computed per-element losses."""
    Reduction.validate(reduction)
    dtype = losses.dtype
    losses = losses.astype(jnp.float32)  # TF: in float32 whatever the input's dtype
    weights = jnp.asarray(weights, losses.dtype)
    weighted = losses * weights
    if reduction == Reduction.NONE:
        return weighted.astype(dtype)
    total = jnp.sum(weighted)
    if reduction == Reduction.MEAN:
        total = _div_no_nan(total, jnp.sum(jnp.broadcast_to(weights, losses.shape)))
    elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
        total = _div_no_nan(total, jnp.asarray(losses.size, losses.dtype))
    elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
        present = jnp.sum(jnp.broadcast_to(weights != 0, losses.shape).astype(losses.dtype))
        total = _div_no_nan(total, present)
    return total.astype(dtype)


_V1 = "scope=None, loss_collection='losses', reduction='weighted_sum_by_nonzero_weights'"
# TF casts weights (and the float32 losses' inputs) with ``math_ops.cast``: any real dtype
CASTABLE = REAL + BOOL


def _f32(*values: Any) -> Any:
    """TF's ``math_ops.cast(x, dtypes.float32)`` of each value."""
    return tuple(jnp.asarray(v).astype(jnp.float32) for v in values)


def _loss(
    names: str,
    default_name: str,
    impl: Any,
    params: str,
    tensors: str,
    same_dtype: str | None = None,
    allowed: Any = FLOATING,
) -> None:
    define(
        f"losses.{names}",
        "Loss",
        impl,
        params=params,
        tensors=tensors,
        same_dtype=same_dtype,
        allowed=allowed,
        default_name=default_name,
        name_param="scope",
        collection_param="loss_collection",
    )


def _smoothed(labels: Any, smoothing: float, classes: Any) -> Any:
    if not smoothing:
        return labels
    return labels * (1 - smoothing) + smoothing / classes


_loss(
    "softmax_cross_entropy",
    "softmax_cross_entropy_loss",
    lambda onehot_labels, logits, weights=1.0, label_smoothing=0, reduction=None: _weighted(
        _softmax_xent(
            jax.lax.stop_gradient(
                _smoothed(onehot_labels.astype(logits.dtype), label_smoothing, logits.shape[-1])
            ),
            logits,
        ),
        weights,
        reduction,
    ),
    f"onehot_labels, logits, weights=1.0, label_smoothing=0, {_V1}",
    "onehot_labels logits weights",
    same_dtype=(),
    allowed={"logits": FLOATING, "weights": CASTABLE},
)


def _remove_squeezable_dimensions(labels, logits, weights):
    """TF's ``_remove_squeezable_dimensions(..., expected_rank_diff=1)``: labels of
    logits' rank lose a last dimension of 1 (``[N, 1]`` -> ``[N]``), logits of labels'
    rank + 2 likewise; then weights of the labels' rank + 1 lose their last dimension."""
    weights = jnp.asarray(weights)
    rank_diff = logits.ndim - labels.ndim
    if rank_diff == 2 and logits.shape[-1] == 1:
        logits = jnp.squeeze(logits, -1)
    elif rank_diff == 0 and labels.shape[-1] == 1:
        labels = jnp.squeeze(labels, -1)
    if weights.ndim - labels.ndim == 1:
        weights = jnp.squeeze(weights, -1)
    return labels, logits, weights


def _sparse_softmax_loss(labels, logits, weights=1.0, reduction=None):
    labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights)
    return _weighted(_sparse_softmax_cross_entropy(labels, logits), weights, reduction)


_loss(
    "sparse_softmax_cross_entropy",
    "sparse_softmax_cross_entropy_loss",
    _sparse_softmax_loss,
    f"labels, logits, weights=1.0, {_V1}",
    "labels logits weights",
    same_dtype=(),
    allowed={"logits": FLOATING, "labels": INDEX, "weights": CASTABLE},
)
_loss(
    "sigmoid_cross_entropy",
    "sigmoid_cross_entropy_loss",
    lambda multi_class_labels, logits, weights=1.0, label_smoothing=0, reduction=None: _weighted(
        _sigmoid_cross_entropy(
            _smoothed(multi_class_labels.astype(logits.dtype), label_smoothing, 2.0), logits
        ),
        weights,
        reduction,
    ),
    f"multi_class_labels, logits, weights=1.0, label_smoothing=0, {_V1}",
    "multi_class_labels logits weights",
    same_dtype=(),
    allowed={"logits": FLOATING, "weights": CASTABLE},
)
_FLOAT32_LOSS = {"labels": CASTABLE, "predictions": CASTABLE, "weights": CASTABLE}


def _mean_squared_error(labels, predictions, weights=1.0, reduction=None):
    labels, predictions = _f32(labels, predictions)
    return _weighted(jnp.square(predictions - labels), weights, reduction)


def _absolute_difference(labels, predictions, weights=1.0, reduction=None):
    labels, predictions = _f32(labels, predictions)
    return _weighted(jnp.abs(predictions - labels), weights, reduction)


_loss(
    "mean_squared_error",
    "mean_squared_error",
    _mean_squared_error,
    f"labels, predictions, weights=1.0, {_V1}",
    "labels predictions weights",
    same_dtype=(),
    allowed=_FLOAT32_LOSS,
)
_loss(
    "absolute_difference",
    "absolute_difference",
    _absolute_difference,
    f"labels, predictions, weights=1.0, {_V1}",
    "labels predictions weights",
    same_dtype=(),
    allowed=_FLOAT32_LOSS,
)


def _huber(labels, predictions, weights=1.0, delta=1.0, reduction=None):
    labels, predictions = _f32(labels, predictions)
    error = predictions - labels
    abs_error = jnp.abs(error)
    quadratic = _minimum(abs_error, jnp.asarray(delta, abs_error.dtype))
    linear = abs_error - quadratic
    return _weighted(0.5 * quadratic * quadratic + delta * linear, weights, reduction)


_loss(
    "huber_loss",
    "huber_loss",
    _huber,
    f"labels, predictions, weights=1.0, delta=1.0, {_V1}",
    "labels predictions weights",
    same_dtype=(),
    allowed=_FLOAT32_LOSS,
)


def _log_loss(labels, predictions, weights=1.0, epsilon=1e-7, reduction=None):
    labels, predictions = _f32(labels, predictions)
    losses = -labels * jnp.log(predictions + epsilon) - (1 - labels) * jnp.log(
        1 - predictions + epsilon
    )
    return _weighted(losses, weights, reduction)


_loss(
    "log_loss",
    "log_loss",
    _log_loss,
    f"labels, predictions, weights=1.0, epsilon=1e-07, {_V1}",
    "labels predictions weights",
    same_dtype=(),
    allowed=_FLOAT32_LOSS,
)


def _hinge(labels, logits, weights=1.0, reduction=None):
    labels, logits = _f32(labels, logits)
    signs = 2 * labels - 1
    margin = 1 - signs * logits
    return _weighted(jnp.where(margin > 0, margin, 0), weights, reduction)


_loss(
    "hinge_loss",
    "hinge_loss",
    _hinge,
    f"labels, logits, weights=1.0, {_V1}",
    "labels logits weights",
    same_dtype=(),
    allowed={"labels": CASTABLE, "logits": CASTABLE, "weights": CASTABLE},
)


_loss(
    "compute_weighted_loss",
    "weighted_loss",
    lambda losses, weights=1.0, reduction=None: _weighted(losses, weights, reduction),
    f"losses, weights=1.0, {_V1}",
    "losses weights",
    same_dtype=(),
    allowed={"losses": REAL, "weights": CASTABLE},
)


def _cosine_distance(labels, predictions, axis=None, weights=1.0, reduction=None, dim=None):
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    products = predictions.astype(jnp.float32) * labels.astype(jnp.float32)
    losses = 1 - jnp.sum(products, axis=(axis,), keepdims=True)
    return _weighted(losses, weights, reduction)


def _compatible(arguments: dict[str, Any]) -> None:
    """TF's ``predictions.shape.assert_is_compatible_with(labels.shape)``."""
    labels, predictions = arguments["labels"].get_shape(), arguments["predictions"].get_shape()
    if not predictions.is_compatible_with(labels):
        raise ValueError(f"Shapes {predictions} and {labels} are incompatible")


def _cosine_check(arguments: dict[str, Any]) -> None:
    if arguments.get("axis") is None and arguments.get("dim") is None:
        raise ValueError("You must specify argument `axis`.")
    _compatible(arguments)


define(
    "losses.cosine_distance",
    "Loss",
    _cosine_distance,
    params=f"labels, predictions, axis=None, weights=1.0, {_V1}, dim=None",
    tensors="labels predictions weights",
    same_dtype=(),
    default_name="cosine_distance_loss",
    name_param="scope",
    collection_param="loss_collection",
    check=_cosine_check,
)


def _mean_pairwise_squared_error(labels, predictions, weights=1.0):
    """TF's loss over each example's pairs of elements, in float32."""
    f32 = jnp.float32
    weights = jnp.asarray(weights, f32)
    diffs = predictions.astype(f32) - labels.astype(f32)
    axes = tuple(range(1, diffs.ndim))
    nonzero = jnp.where(weights == 0, jnp.zeros((), f32), jnp.ones((), f32))
    present = jnp.sum(jnp.broadcast_to(nonzero, diffs.shape), axes, keepdims=True)
    two = jnp.asarray(2.0, f32)
    zero = jnp.zeros((), f32)
    sum_squares = jnp.sum(jnp.square(diffs), axes, keepdims=True)
    term1 = two * _div_no_nan(sum_squares, jnp.maximum(present - 1, zero))
    sum_diff = jnp.sum(diffs, axes, keepdims=True)
    term2 = two * _div_no_nan(jnp.square(sum_diff), jnp.maximum(present * (present - 1), zero))
    loss = jnp.sum((term1 - term2) * weights)
    return jnp.where(jnp.sum(present) > 0, loss, zero)


define(
    "losses.mean_pairwise_squared_error",
    "Loss",
    _mean_pairwise_squared_error,
    params="labels, predictions, weights=1.0, scope=None, loss_collection='losses'",
    tensors="labels predictions weights",
    same_dtype=(),
    default_name="mean_pairwise_squared_error",
    name_param="scope",
    collection_param="loss_collection",
    check=_compatible,
)


# -- the LOSSES collection ------------------------------------------------------------------
def add_loss(loss: Any, loss_collection: str = ops.GraphKeys.LOSSES) -> None:
    """Adds ``loss`` to ``loss_collection`` (nothing when it is falsy)."""
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_losses(scope: str | None = None, loss_collection: str = ops.GraphKeys.LOSSES) -> list:
    """The losses in ``loss_collection`` (names matching ``scope``)."""
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope: str | None = None) -> list:
    """The ``REGULARIZATION_LOSSES`` collection (names matching ``scope``)."""
    return ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(
    scope: str | None = None, name: str = "total_regularization_loss"
) -> ops.Tensor:
    """The sum of the regularization losses (a float32 0.0 when there are none)."""
    from adapters.v1.framework.op_def import FUNCTIONS
    from adapters.v1.ops.constant_op import constant

    losses = get_regularization_losses(scope)
    if losses:
        return FUNCTIONS["add_n"](losses, name=name)
    return constant(0.0, name=name)


def get_total_loss(
    add_regularization_losses: bool = True, name: str = "total_loss", scope: str | None = None
) -> ops.Tensor:
    """The sum of the losses and, by default, the regularization losses.

    Raises:
      ValueError: there are no losses.
    """
    from adapters.v1.framework.op_def import FUNCTIONS

    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found in the graph.")
    return FUNCTIONS["add_n"](losses, name=name)
