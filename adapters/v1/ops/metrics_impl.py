"""``tf.metrics`` (TF1): streaming metrics as local variables and update ops.

Each metric opens TF's variable scope (``accuracy``, ``auc``, ``mean``...; made
unique as TF's default names are), creates its accumulators as local variables
(collections ``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``, not trainable, zeros,
named as TF's: ``accuracy/total``, ``auc/true_positives``...), and returns
``(value, update_op)``: ``update_op`` adds one batch's statistics to the
accumulators and gives the metric after the update; ``value`` computes the
metric from the accumulators as they are. A TF1 eval loop runs unchanged::

    sess.run(tf.local_variables_initializer())
    for batch in batches:
        sess.run(update_op, feed_dict=batch)
    print(sess.run(value))

The arithmetic is TF's, in TF's dtypes (float32 statistics; ``mean_iou``'s
confusion matrix float64) and TF's order, so values match TF's within float32
rounding and counts exactly. Each batch's statistics are one JAX function of the
inputs (one node); the accumulators are updated by the variables' own
``assign_add``/``scatter_add``.

Run-time checks are TF's (``InvalidArgumentError`` after the run, TF's
messages): predictions in ``[0, 1]`` for the threshold metrics (``auc``,
``*_at_thresholds``, ``sensitivity_at_specificity``...), class ids in
``[0, num_classes)`` for ``mean_iou``, label ids for ``mean_per_class_accuracy``
(its scatter's check).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import variable_scope as vs
from adapters.v1.ops.script_ops import lift
from adapters.v1.ops.variables import Variable, VariableAggregation, VariableSynchronization

__all__ = [
    "accuracy",
    "auc",
    "average_precision_at_k",
    "false_negatives",
    "false_negatives_at_thresholds",
    "false_positives",
    "false_positives_at_thresholds",
    "mean",
    "mean_absolute_error",
    "mean_cosine_distance",
    "mean_iou",
    "mean_per_class_accuracy",
    "mean_relative_error",
    "mean_squared_error",
    "mean_tensor",
    "metric_variable",
    "percentage_below",
    "precision",
    "precision_at_k",
    "precision_at_thresholds",
    "precision_at_top_k",
    "recall",
    "recall_at_k",
    "recall_at_thresholds",
    "recall_at_top_k",
    "root_mean_squared_error",
    "sensitivity_at_specificity",
    "sparse_average_precision_at_k",
    "sparse_precision_at_k",
    "specificity_at_sensitivity",
    "true_negatives",
    "true_negatives_at_thresholds",
    "true_positives",
    "true_positives_at_thresholds",
]

_log = logging.getLogger(__name__)
F32 = jnp.float32
_KEPSILON = 1e-7  # TF's threshold and ratio epsilon


# -- variables and nodes ----------------------------------------------------------------
def metric_variable(shape: Sequence[int], dtype: Any, name: str | None = None) -> Variable:
    """A zero local variable in ``LOCAL_VARIABLES`` and ``METRIC_VARIABLES`` (TF's).

    Args:
      shape: the static shape.
      dtype: the dtype (a NumPy or TF dtype).
      name: the variable's name in the current scope.

    Returns:
      The non-trainable variable (synchronized on read, summed across replicas).
    """
    np_dtype = ops.as_dtype(dtype).dtype
    return Variable(
        np.zeros(tuple(shape), np_dtype),
        trainable=False,
        collections=[ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES],
        synchronization=VariableSynchronization.ON_READ,
        aggregation=VariableAggregation.SUM,
        name=name,
    )


def _node(fn: Callable[..., Any], name: str, /, **tensors: Any) -> Any:
    """One node computing ``fn(**arrays)``; ``None`` arguments stay ``None``."""
    present = {k: ops.convert_to_tensor(v) for k, v in tensors.items() if v is not None}
    keys = list(present)

    def call(*values: Any) -> Any:
        arrays = dict.fromkeys(tensors)
        arrays.update(zip(keys, values, strict=True))
        return fn(**arrays)

    return lift(call, [present[k] for k in keys], name=name)


def _collect(collections: Any, tensor: Any) -> None:
    if collections:
        ops.add_to_collections(collections, tensor)


def _div_no_nan(x: Any, y: Any) -> Any:
    """``x / y``, 0 where ``y`` is 0 (TF's ``div_no_nan``)."""
    zero = y == 0
    return jnp.where(zero, jnp.zeros((), x.dtype), x / jnp.where(zero, jnp.ones((), y.dtype), y))


# -- TF's shape rules for labels, predictions and weights --------------------------------
def _squeeze_pair(labels: Any, predictions: Any) -> tuple[Any, Any]:
    """Drops a trailing size-1 axis of whichever has one more axis than the other."""
    diff = predictions.ndim - labels.ndim
    if diff == 1 and predictions.shape[-1] == 1:
        predictions = jnp.squeeze(predictions, -1)
    elif diff == -1 and labels.shape[-1] == 1:
        labels = jnp.squeeze(labels, -1)
    return labels, predictions


def _shape(x: Any) -> TensorShape:
    return ops.convert_to_tensor(x).get_shape()


def _squeezed_shapes(labels: TensorShape, predictions: TensorShape) -> tuple[Any, Any]:
    """The static shapes ``labels`` and ``predictions`` after TF's
    ``remove_squeezable_dimensions``: a trailing dimension that is 1 (or unknown)
    of whichever has one more dimension than the other is dropped."""
    if labels.ndims is not None and predictions.ndims is not None:
        diff = predictions.ndims - labels.ndims
        if diff == 1 and predictions.as_list()[-1] in (None, 1):
            predictions = TensorShape(predictions.as_list()[:-1])
        elif diff == -1 and labels.as_list()[-1] in (None, 1):
            labels = TensorShape(labels.as_list()[:-1])
    return labels, predictions


def _flat_shape(x: Any) -> TensorShape:
    """The static shape of ``x`` reshaped to ``[-1]`` where its rank is above 1."""
    shape = _shape(x)
    if shape.ndims is None or shape.ndims <= 1:
        return shape
    dims = shape.as_list()
    return TensorShape([None if None in dims else int(np.prod(dims))])


def _check_pair(labels: Any, predictions: Any, squeeze: bool = True) -> TensorShape:
    """TF's graph-construction check of ``labels`` against ``predictions``: after the
    squeeze (``_remove_squeezable_dimensions``; ``mean_iou`` checks without it) their
    static shapes must be compatible (same rank, equal or unknown dimensions), no
    broadcasting. Returns the predictions' shape after the squeeze.

    Raises:
      ValueError: ``Shapes (4,) and (4, 3) are incompatible`` (predictions' first).
    """
    lab, pred = _shape(labels), _shape(predictions)
    if squeeze:
        lab, pred = _squeezed_shapes(lab, pred)
    pred.assert_is_compatible_with(lab)
    return pred


def _fit_weights(weights: Any, values: Any) -> Any:
    """``weights`` squeezed/expanded by one trailing axis and broadcast to ``values``.

    Raises:
      ValueError: the weights cannot be broadcast (TF: scalar, or the values'
        rank with each dimension 1 or the values').
    """
    if weights.ndim:
        if weights.ndim - values.ndim == 1:
            weights = jnp.squeeze(weights, -1)
        elif values.ndim - weights.ndim == 1:
            weights = jnp.expand_dims(weights, -1)
    if weights.ndim and (
        weights.ndim != values.ndim
        or any(w != 1 and w != v for w, v in zip(weights.shape, values.shape, strict=True))
    ):
        raise ValueError(
            f"weights can not be broadcast to values. values.rank={values.ndim}. "
            f"weights.rank={weights.ndim}. values.shape={values.shape}. "
            f"weights.shape={weights.shape}."
        )
    return jnp.broadcast_to(weights, values.shape)


# -- mean and the metrics that are means ---------------------------------------------------
def _streaming_mean(
    per_element: Callable[..., Any],
    inputs: dict[str, Any],
    weights: Any,
    metrics_collections: Any,
    updates_collections: Any,
    name: str | None,
    default_name: str,
    finish: Callable[[Any], Any] | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """TF's ``mean`` of ``per_element(**inputs)`` (its weights fitted to the values)."""
    with vs.variable_scope(name, default_name, list(inputs.values()) + [weights]):
        total = metric_variable((), np.float32, name="total")
        count = metric_variable((), np.float32, name="count")

        def batch(weights: Any, **arrays: Any) -> Any:
            values = per_element(**arrays).astype(F32)
            if weights is None:
                return jnp.sum(values), jnp.asarray(values.size, F32)
            w = _fit_weights(weights.astype(F32), values)
            return jnp.sum(values * w), jnp.sum(w)

        batch_total, batch_count = _node(batch, "batch", weights=weights, **inputs)
        update_total = total.assign_add(batch_total)
        update_count = count.assign_add(batch_count)

        def ratio(t: Any, c: Any) -> Any:
            out = _div_no_nan(t, jnp.maximum(c, jnp.zeros((), c.dtype)))
            return out if finish is None else finish(out)

        value = _node(ratio, "value", t=total.value(), c=count.value())
        update_op = _node(ratio, "update_op", t=update_total, c=update_count)
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


def mean(
    values: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The (weighted) mean of ``values`` over the stream (``mean/total``, ``mean/count``).

    Args:
      values: a tensor (cast to float32).
      weights: None, a scalar, or a tensor of ``values``' rank broadcastable to it.
      metrics_collections: collections to add the value tensor to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``"mean"``).

    Returns:
      ``(mean, update_op)``: ``total / count`` (0 when ``count`` is 0), and the op
      adding the batch and giving the mean after it.

    Raises:
      ValueError: ``weights`` cannot be broadcast to ``values``.
    """
    return _streaming_mean(
        lambda values: values,
        {"values": values},
        weights,
        metrics_collections,
        updates_collections,
        name,
        "mean",
    )


def _pairwise(fn: Callable[[Any, Any], Any], cast: bool = False) -> Callable[..., Any]:
    """Per-element values of (labels, predictions) after TF's squeeze."""

    def per_element(labels: Any, predictions: Any) -> Any:
        labels, predictions = _squeeze_pair(labels, predictions)
        if cast and labels.dtype != predictions.dtype:
            predictions = predictions.astype(labels.dtype)
        return fn(labels, predictions)

    return per_element


def _same_dtype(metric: str, labels: Any, predictions: Any) -> tuple[Any, Any]:
    labels, predictions = ops.convert_to_tensor(labels), ops.convert_to_tensor(predictions)
    if labels.dtype != predictions.dtype:
        raise TypeError(
            f"tf.metrics.{metric}: labels ({labels.dtype.name}) and predictions "
            f"({predictions.dtype.name}) must have the same dtype"
        )
    return labels, predictions


def accuracy(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """How often ``predictions`` equal ``labels`` (``accuracy/total``, ``accuracy/count``).

    Predictions are cast to the labels' dtype; see ``mean`` for the rest.

    Raises:
      ValueError: the shapes of ``labels`` and ``predictions`` are incompatible
        (after TF's squeeze of a trailing 1; no broadcasting), as in TF.
    """
    _check_pair(labels, predictions)
    return _streaming_mean(
        _pairwise(lambda lab, pred: pred == lab, cast=True),
        {"labels": labels, "predictions": predictions},
        weights,
        metrics_collections,
        updates_collections,
        name,
        "accuracy",
    )


def mean_squared_error(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The mean of ``(labels - predictions)**2`` (``mean_squared_error/total``, ``/count``)."""
    _check_pair(labels, predictions)
    labels, predictions = _same_dtype("mean_squared_error", labels, predictions)
    return _streaming_mean(
        _pairwise(lambda lab, pred: jnp.square(lab - pred)),
        {"labels": labels, "predictions": predictions},
        weights,
        metrics_collections,
        updates_collections,
        name,
        "mean_squared_error",
    )


def root_mean_squared_error(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The square root of ``mean_squared_error`` (scope ``root_mean_squared_error``)."""
    _check_pair(labels, predictions)
    labels, predictions = _same_dtype("root_mean_squared_error", labels, predictions)
    return _streaming_mean(
        _pairwise(lambda lab, pred: jnp.square(lab - pred)),
        {"labels": labels, "predictions": predictions},
        weights,
        metrics_collections,
        updates_collections,
        name,
        "root_mean_squared_error",
        finish=jnp.sqrt,
    )


def mean_absolute_error(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The mean of ``|predictions - labels|`` (``mean_absolute_error/total``, ``/count``)."""
    _check_pair(labels, predictions)
    labels, predictions = _same_dtype("mean_absolute_error", labels, predictions)
    return _streaming_mean(
        _pairwise(lambda lab, pred: jnp.abs(pred - lab)),
        {"labels": labels, "predictions": predictions},
        weights,
        metrics_collections,
        updates_collections,
        name,
        "mean_absolute_error",
    )


def mean_relative_error(
    labels: Any,
    predictions: Any,
    normalizer: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The mean of ``|labels - predictions| / normalizer`` (0 where ``normalizer`` is 0)."""
    pred, norm = _squeezed_shapes(_check_pair(labels, predictions), _shape(normalizer))
    pred.assert_is_compatible_with(norm)
    labels, predictions = _same_dtype("mean_relative_error", labels, predictions)

    def per_element(labels: Any, predictions: Any, normalizer: Any) -> Any:
        labels, predictions = _squeeze_pair(labels, predictions)
        normalizer, predictions = _squeeze_pair(normalizer, predictions)
        normalizer = normalizer.astype(labels.dtype)
        zero = normalizer == 0
        safe = jnp.where(zero, jnp.ones((), normalizer.dtype), normalizer)
        return jnp.where(zero, jnp.zeros_like(labels), jnp.abs(labels - predictions) / safe)

    return _streaming_mean(
        per_element,
        {"labels": labels, "predictions": predictions, "normalizer": normalizer},
        weights,
        metrics_collections,
        updates_collections,
        name,
        "mean_relative_error",
    )


def percentage_below(
    values: Any,
    threshold: float,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The fraction of ``values`` below ``threshold`` (scope ``percentage_below_threshold``)."""
    return _streaming_mean(
        lambda values: values < jnp.asarray(threshold, values.dtype),
        {"values": values},
        weights,
        metrics_collections,
        updates_collections,
        name,
        "percentage_below_threshold",
    )


def mean_cosine_distance(
    labels: Any,
    predictions: Any,
    dim: int,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """``1 -`` the mean of ``sum(labels * predictions, dim)`` (inputs unit-normalized by you).

    Weights are fitted to the products reduced with ``keepdims`` (e.g. ``[batch, 1]``).
    """
    _check_pair(labels, predictions)
    labels, predictions = _same_dtype("mean_cosine_distance", labels, predictions)
    return _streaming_mean(
        _pairwise(lambda lab, pred: jnp.sum(pred * lab, axis=dim, keepdims=True)),
        {"labels": labels, "predictions": predictions},
        weights,
        metrics_collections,
        updates_collections,
        name,
        "mean_cosine_distance",
        finish=lambda m: jnp.ones((), m.dtype) - m,
    )


def mean_tensor(
    values: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The element-wise mean of ``values`` (``mean/total_tensor``, ``mean/count_tensor``).

    Raises:
      ValueError: ``values``' shape is not fully known.
    """
    values = ops.convert_to_tensor(values)
    shape = values._shape
    if shape is None or any(d is None for d in shape):
        raise ValueError(
            f"tf.metrics.mean_tensor needs values of a fully known shape, got {values.shape}"
        )
    with vs.variable_scope(name, "mean", [values, weights]):
        total = metric_variable(shape, np.float32, name="total_tensor")
        count = metric_variable(shape, np.float32, name="count_tensor")

        def batch(values: Any, weights: Any) -> Any:
            values = values.astype(F32)
            if weights is None:
                return values, jnp.ones_like(values)
            w = _fit_weights(weights.astype(F32), values)
            return values * w, w

        batch_total, batch_count = _node(batch, "batch", values=values, weights=weights)
        update_total = total.assign_add(batch_total)
        update_count = count.assign_add(batch_count)

        def ratio(t: Any, c: Any) -> Any:
            return _div_no_nan(t, jnp.maximum(c, jnp.zeros((), c.dtype)))

        value = _node(ratio, "value", t=total.value(), c=count.value())
        update_op = _node(ratio, "update_op", t=update_total, c=update_count)
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


# -- counts of a condition ---------------------------------------------------------------
def _count_condition(
    condition: Callable[[Any, Any], Any],
    labels: Any,
    predictions: Any,
    weights: Any,
    metrics_collections: Any,
    updates_collections: Any,
    name: str | None,
    default_name: str,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The (weighted) count of ``condition(labels, predictions)`` on booleans."""
    _check_pair(labels, predictions)
    with vs.variable_scope(name, default_name, [predictions, labels, weights]):
        count = metric_variable((), np.float32, name="count")

        def batch(labels: Any, predictions: Any, weights: Any) -> Any:
            labels, predictions = _squeeze_pair(labels.astype(bool), predictions.astype(bool))
            hits = condition(labels, predictions).astype(F32)
            if weights is not None:
                hits = hits * _adjust_rank(weights.astype(F32), hits)
            return jnp.sum(hits)

        increment = _node(batch, "batch", labels=labels, predictions=predictions, weights=weights)
        value = count.value()
        update_op = count.assign_add(increment)
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


def _adjust_rank(weights: Any, values: Any) -> Any:
    """TF's squeeze/expand of weights by one trailing axis (no broadcast check)."""
    if weights.ndim and weights.ndim - values.ndim == 1:
        return jnp.squeeze(weights, -1)
    if weights.ndim and values.ndim - weights.ndim == 1:
        return jnp.expand_dims(weights, -1)
    return weights


_CONDITIONS: dict[str, Callable[[Any, Any], Any]] = {
    "true_positives": lambda lab, pred: lab & pred,
    "false_positives": lambda lab, pred: ~lab & pred,
    "true_negatives": lambda lab, pred: ~lab & ~pred,
    "false_negatives": lambda lab, pred: lab & ~pred,
}


def _make_count(metric: str) -> Callable[..., tuple[ops.Tensor, ops.Tensor]]:
    condition = _CONDITIONS[metric]

    def count(
        labels: Any,
        predictions: Any,
        weights: Any = None,
        metrics_collections: Any = None,
        updates_collections: Any = None,
        name: str | None = None,
    ) -> tuple[ops.Tensor, ops.Tensor]:
        return _count_condition(
            condition,
            labels,
            predictions,
            weights,
            metrics_collections,
            updates_collections,
            name,
            metric,
        )

    count.__name__ = count.__qualname__ = metric
    count.__doc__ = (
        f"The (weighted) number of {metric.replace('_', ' ')} (``{metric}/count``).\n\n"
        "Args:\n"
        "  labels: ground truth, cast to bool.\n"
        "  predictions: predictions, cast to bool.\n"
        "  weights: None, a scalar or a tensor of the labels' rank.\n"
        "  metrics_collections: collections to add the value to.\n"
        "  updates_collections: collections to add the update op to.\n"
        f"  name: the variable scope (default ``{metric!r}``).\n\n"
        "Returns:\n"
        "  ``(count, update_op)``: the count variable's value, and the op adding the batch.\n"
    )
    return count


true_positives = _make_count("true_positives")
false_positives = _make_count("false_positives")
true_negatives = _make_count("true_negatives")
false_negatives = _make_count("false_negatives")


def _ratio_of_counts(
    metric: str,
    other: str,
    labels: Any,
    predictions: Any,
    weights: Any,
    metrics_collections: Any,
    updates_collections: Any,
    name: str | None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """``tp / (tp + other)`` (0 when both are 0): precision (other: fp), recall (fn)."""
    with vs.variable_scope(name, metric, [predictions, labels, weights]):
        tp, tp_update = true_positives(labels, predictions, weights)
        o, o_update = _make_count(other)(labels, predictions, weights)

        def ratio(tp: Any, other: Any) -> Any:
            total = tp + other
            safe = jnp.where(total > 0, total, jnp.ones((), total.dtype))
            return jnp.where(total > 0, tp / safe, jnp.zeros((), tp.dtype))

        value = _node(ratio, "value", tp=tp, other=o)
        update_op = _node(ratio, "update_op", tp=tp_update, other=o_update)
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


def precision(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """``tp / (tp + fp)`` of boolean-cast inputs (``precision/true_positives/count``...)."""
    return _ratio_of_counts(
        "precision",
        "false_positives",
        labels,
        predictions,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


def recall(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """``tp / (tp + fn)`` of boolean-cast inputs (``recall/true_positives/count``...)."""
    return _ratio_of_counts(
        "recall",
        "false_negatives",
        labels,
        predictions,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


# -- confusion counts at thresholds ----------------------------------------------------------
_ALL_COUNTS = ("tp", "fn", "tn", "fp")
_COUNT_NAMES = {
    "tp": "true_positives",
    "fn": "false_negatives",
    "tn": "true_negatives",
    "fp": "false_positives",
}


def _assert_all(
    holds: Callable[[Any, Any], Any],
    relation: str,
    x: Any,
    y: Any,
    message: str,
    name: str,
    show_y: bool = True,
) -> ops.Operation:
    """TF's ``check_ops`` assertion: fails the run unless ``holds(x, y)`` everywhere.

    The error is TF's ``InvalidArgumentError``: ``assertion failed: [<message>]
    [Condition x <relation> did not hold element-wise:] [x (<name>) = ] [...]``
    (then ``y``'s, when ``show_y``).
    """
    from adapters.v1.ops.control_flow_ops import Assert

    x = ops.convert_to_tensor(x)
    y = ops.convert_to_tensor(np.asarray(y, x.dtype.as_numpy_dtype))
    ok = _node(lambda x, y: jnp.all(holds(x, y)), "All", x=x, y=y)
    data = [message, f"Condition x {relation} did not hold element-wise:", f"x ({x.name}) = ", x]
    if show_y:
        data += [f"y ({y.name}) = ", y]
    return Assert(ok, data, name=name)


def _in_unit_interval(predictions: Any) -> list[ops.Operation]:
    """TF's run-time checks that predictions are in ``[0, 1]``."""
    message = "predictions must be in [0, 1]"
    return [
        _assert_all(lambda x, y: x >= y, ">= y", predictions, 0, message, "assert_greater_equal"),
        _assert_all(lambda x, y: x <= y, "<= y", predictions, 1, message, "assert_less_equal"),
    ]


def _class_ids_in_range(labels: Any, predictions: Any, num_classes: int) -> list[ops.Operation]:
    """TF's ``confusion_matrix`` run-time checks: ids in ``[0, num_classes)`` (TF's words)."""
    checks = []
    for what, ids in (("labels", labels), ("predictions", predictions)):
        message = f"`{what}` contains negative values.  "
        checks.append(
            _assert_all(
                lambda x, y: x >= y, ">= 0", ids, 0, message, "assert_non_negative", show_y=False
            )
        )
    for what, ids in (("labels", labels), ("predictions", predictions)):
        message = f"`{what}` out of bound"
        checks.append(
            _assert_all(lambda x, y: x < y, "< y", ids, num_classes, message, "assert_less")
        )
    return checks


def _confusion_at_thresholds(
    labels: Any,
    predictions: Any,
    thresholds: Sequence[float],
    weights: Any,
    includes: Sequence[str] = _ALL_COUNTS,
) -> tuple[dict[str, ops.Tensor], dict[str, ops.Tensor]]:
    """Variables ``true_positives``... ``[len(thresholds)]`` and their update ops.

    A prediction is positive at a threshold when it is greater than it.
    """
    _check_pair(labels, predictions)
    cuts = np.asarray(list(thresholds), np.float32)

    def batch(labels: Any, predictions: Any, weights: Any) -> Any:
        labels, predictions = _squeeze_pair(labels.astype(bool), predictions.astype(F32))
        pred = predictions.reshape(-1)
        positive = pred[None, :] > jnp.asarray(cuts)[:, None]
        label = labels.reshape(1, -1)
        w = None
        if weights is not None:
            w = _fit_weights(weights.astype(F32), predictions)
            w = w.reshape(1, -1)
        cells = {
            "tp": label & positive,
            "fn": label & ~positive,
            "tn": ~label & ~positive,
            "fp": ~label & positive,
        }
        out = []
        for key in includes:
            hits = cells[key].astype(F32)
            if w is not None:
                hits = hits * w
            out.append(jnp.sum(hits, axis=1))
        return tuple(out)

    predictions = ops.convert_to_tensor(predictions)
    with ops.control_dependencies(_in_unit_interval(predictions)):
        increments = _node(batch, "batch", labels=labels, predictions=predictions, weights=weights)
    values, updates = {}, {}
    for key, increment in zip(includes, increments, strict=True):
        var = metric_variable((len(cuts),), np.float32, name=_COUNT_NAMES[key])
        values[key] = var.value()
        updates[key] = var.assign_add(increment)
    return values, updates


def _make_count_at_thresholds(key: str) -> Callable[..., tuple[ops.Tensor, ops.Tensor]]:
    metric = _COUNT_NAMES[key]

    def count_at_thresholds(
        labels: Any,
        predictions: Any,
        thresholds: Sequence[float],
        weights: Any = None,
        metrics_collections: Any = None,
        updates_collections: Any = None,
        name: str | None = None,
    ) -> tuple[ops.Tensor, ops.Tensor]:
        with vs.variable_scope(name, metric, [predictions, labels, weights]):
            values, updates = _confusion_at_thresholds(
                labels, predictions, thresholds, weights, (key,)
            )
        _collect(metrics_collections, values[key])
        _collect(updates_collections, updates[key])
        return values[key], updates[key]

    count_at_thresholds.__name__ = count_at_thresholds.__qualname__ = f"{metric}_at_thresholds"
    count_at_thresholds.__doc__ = (
        f"The (weighted) {metric.replace('_', ' ')} at each threshold (``{metric}/{metric}``).\n\n"
        "A prediction (in ``[0, 1]``) is positive when greater than the threshold.\n\n"
        "Returns:\n"
        "  ``(counts, update_op)``, float32 of shape ``[len(thresholds)]``.\n"
    )
    return count_at_thresholds


true_positives_at_thresholds = _make_count_at_thresholds("tp")
false_positives_at_thresholds = _make_count_at_thresholds("fp")
true_negatives_at_thresholds = _make_count_at_thresholds("tn")
false_negatives_at_thresholds = _make_count_at_thresholds("fn")


def _ratio_at_thresholds(
    metric: str,
    other: str,
    labels: Any,
    predictions: Any,
    thresholds: Sequence[float],
    weights: Any,
    metrics_collections: Any,
    updates_collections: Any,
    name: str | None,
) -> tuple[ops.Tensor, ops.Tensor]:
    with vs.variable_scope(name, f"{metric}_at_thresholds", [predictions, labels, weights]):
        values, updates = _confusion_at_thresholds(
            labels, predictions, thresholds, weights, ("tp", other)
        )

        def ratio(tp: Any, other: Any) -> Any:
            return tp / (jnp.asarray(_KEPSILON, tp.dtype) + tp + other)

        value = _node(ratio, f"{metric}_value", tp=values["tp"], other=values[other])
        update_op = _node(ratio, f"{metric}_update_op", tp=updates["tp"], other=updates[other])
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


def precision_at_thresholds(
    labels: Any,
    predictions: Any,
    thresholds: Sequence[float],
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """``tp / (1e-7 + tp + fp)`` at each threshold (predictions in ``[0, 1]``)."""
    return _ratio_at_thresholds(
        "precision",
        "fp",
        labels,
        predictions,
        thresholds,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


def recall_at_thresholds(
    labels: Any,
    predictions: Any,
    thresholds: Sequence[float],
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """``tp / (1e-7 + tp + fn)`` at each threshold (predictions in ``[0, 1]``)."""
    return _ratio_at_thresholds(
        "recall",
        "fn",
        labels,
        predictions,
        thresholds,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


def _even_thresholds(num_thresholds: int, top: float) -> list[float]:
    """TF's ``num_thresholds`` cuts: just below 0, ``i/(n-1)`` inside, then ``top``."""
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON, *inner, top]


_SUMMATIONS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def _auc_of(curve: str, summation_method: str, n: int) -> Callable[..., Any]:
    """The area from the four count vectors (TF's formulas, in float32)."""
    eps = 1e-6

    def interpolated_pr(tp: Any, fp: Any, fn: Any) -> Any:
        zero = jnp.zeros((), tp.dtype)
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        slope = _div_no_nan(dtp, jnp.maximum(p[: n - 1] - p[1:], zero))
        intercept = tp[1:] - slope * p[1:]
        both = (p[: n - 1] > 0) & (p[1:] > 0)
        ratio = jnp.where(
            both, _div_no_nan(p[: n - 1], jnp.maximum(p[1:], zero)), jnp.ones_like(p[1:])
        )
        increments = _div_no_nan(
            slope * (dtp + intercept * jnp.log(ratio)), jnp.maximum(tp[1:] + fn[1:], zero)
        )
        return jnp.sum(increments)

    def area(tp: Any, fn: Any, tn: Any, fp: Any) -> Any:
        if curve == "PR" and summation_method == "careful_interpolation":
            return interpolated_pr(tp, fp, fn)
        e = jnp.asarray(eps, tp.dtype)
        rec = (tp + e) / (tp + fn + e)
        if curve == "ROC":
            x, y = fp / (fp + tn + e), rec
        else:
            x, y = rec, (tp + e) / (tp + fp + e)
        dx = x[: n - 1] - x[1:]
        if summation_method == "minoring":
            heights = jnp.minimum(y[: n - 1], y[1:])
        elif summation_method == "majoring":
            heights = jnp.maximum(y[: n - 1], y[1:])
        else:
            heights = (y[: n - 1] + y[1:]) / jnp.asarray(2.0, y.dtype)
        return jnp.sum(dx * heights)

    return area


def auc(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    num_thresholds: int = 200,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    curve: str = "ROC",
    name: str | None = None,
    summation_method: str = "trapezoidal",
    thresholds: Sequence[float] | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The area under the ROC or PR curve, by a Riemann sum over thresholds (TF's).

    Args:
      labels: ground truth, cast to bool.
      predictions: probabilities in ``[0, 1]``.
      weights: None, a scalar or a tensor of the predictions' rank.
      num_thresholds: the number of thresholds (default 200): ``-1e-7``,
        ``i / (num_thresholds - 1)`` and ``1 + 1e-7``.
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      curve: ``"ROC"`` (default) or ``"PR"``.
      name: the variable scope (default ``"auc"``).
      summation_method: ``"trapezoidal"`` (default), ``"careful_interpolation"``
        (PR: TF's interpolation of precision), ``"minoring"`` or ``"majoring"``.
      thresholds: explicit thresholds (sorted; ``num_thresholds`` is then ignored).

    Returns:
      ``(auc, update_op)``; the variables are ``auc/true_positives``,
      ``auc/false_negatives``, ``auc/true_negatives``, ``auc/false_positives``.

    Raises:
      ValueError: an unknown ``curve`` or ``summation_method``.
    """
    with vs.variable_scope(name, "auc", [labels, predictions, weights]):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        if summation_method not in _SUMMATIONS:
            raise ValueError(
                f"Invalid summation_method: {summation_method} summation_method should be "
                "'trapezoidal', 'careful_interpolation', 'minoring', or 'majoring'."
            )
        if thresholds is not None:
            cuts = [0.0 - _KEPSILON, *sorted(thresholds), 1.0 + _KEPSILON]
        else:
            cuts = _even_thresholds(num_thresholds, 1.0 + _KEPSILON)
        if curve == "PR" and summation_method == "trapezoidal":
            _log.warning(
                "Trapezoidal rule is known to produce incorrect PR-AUCs; please switch to "
                '"careful_interpolation" instead.'
            )
        values, updates = _confusion_at_thresholds(labels, predictions, cuts, weights)
        area = _auc_of(curve, summation_method, len(cuts))
        value = _node(area, "value", **values)
        update_op = _node(area, "update_op", **updates)
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


def _at_operating_point(
    metric: str,
    target: float,
    labels: Any,
    predictions: Any,
    weights: Any,
    num_thresholds: int,
    metrics_collections: Any,
    updates_collections: Any,
    name: str | None,
    pick: Callable[..., Any],
    top: float,
) -> tuple[ops.Tensor, ops.Tensor]:
    with vs.variable_scope(name, metric, [predictions, labels, weights]):
        cuts = _even_thresholds(num_thresholds, top)
        values, updates = _confusion_at_thresholds(labels, predictions, cuts, weights)
        value = _node(pick, "value", **values)
        update_op = _node(pick, "update_op", **updates)
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


def sensitivity_at_specificity(
    labels: Any,
    predictions: Any,
    specificity: float,
    weights: Any = None,
    num_thresholds: int = 200,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The sensitivity at the threshold whose specificity is closest to ``specificity``.

    Raises:
      ValueError: ``specificity`` is outside ``[0, 1]``.
    """
    if specificity < 0 or specificity > 1:
        raise ValueError(
            "`specificity` must be in the range [0, 1]. Currently, `specificity` got "
            f"{specificity}."
        )

    def pick(tp: Any, fn: Any, tn: Any, fp: Any) -> Any:
        e = jnp.asarray(_KEPSILON, tp.dtype)
        specificities = tn / (tn + fp + e)
        i = jnp.argmin(jnp.abs(specificities - jnp.asarray(specificity, tp.dtype)))
        return tp[i] / (tp[i] + fn[i] + e)

    return _at_operating_point(
        "sensitivity_at_specificity",
        specificity,
        labels,
        predictions,
        weights,
        num_thresholds,
        metrics_collections,
        updates_collections,
        name,
        pick,
        1.0 + _KEPSILON,
    )


def specificity_at_sensitivity(
    labels: Any,
    predictions: Any,
    sensitivity: float,
    weights: Any = None,
    num_thresholds: int = 200,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The specificity at the (last) threshold whose sensitivity is closest to ``sensitivity``.

    Raises:
      ValueError: ``sensitivity`` is outside ``[0, 1]``.
    """
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError(
            f"`sensitivity` must be in the range [0, 1]. Currently, `sensitivity` is {sensitivity}."
        )

    def pick(tp: Any, fn: Any, tn: Any, fp: Any) -> Any:
        e = jnp.asarray(_KEPSILON, tp.dtype)
        distance = jnp.abs(tp / (tp + fn + e) - jnp.asarray(sensitivity, tp.dtype))
        closest = (distance == jnp.min(distance)).astype(jnp.int64)
        i = jnp.argmax(jnp.cumsum(closest))  # TF's: the last closest threshold
        return tn[i] / (tn[i] + fp[i] + e)

    return _at_operating_point(
        "specificity_at_sensitivity",
        sensitivity,
        labels,
        predictions,
        weights,
        num_thresholds,
        metrics_collections,
        updates_collections,
        name,
        pick,
        1.0 - _KEPSILON,  # TF's last threshold here is just below 1
    )


# -- per-class metrics ---------------------------------------------------------------------------
def mean_iou(
    labels: Any,
    predictions: Any,
    num_classes: int,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The mean over classes of intersection over union (``mean_iou/total_confusion_matrix``).

    Args:
      labels: int class ids (flattened).
      predictions: int class ids of the labels' shape (flattened).
      num_classes: the number of classes (the confusion matrix is
        ``[num_classes, num_classes]`` float64).
      weights: None, or weights of the labels' shape (flattened).
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``"mean_iou"``).

    Returns:
      ``(mean_iou, update_op)``; as TF's, ``update_op`` gives the updated
      confusion matrix. Classes absent from both labels and predictions are
      left out of the mean.
    """
    with vs.variable_scope(name, "mean_iou", [predictions, labels, weights]):
        _check_pair(labels, predictions, squeeze=False)
        total_cm = metric_variable((num_classes, num_classes), np.float64, "total_confusion_matrix")

        def batch(labels: Any, predictions: Any, weights: Any) -> Any:
            rows = labels.astype(jnp.int64).reshape(-1)
            cols = predictions.astype(jnp.int64).reshape(-1)
            w = (
                jnp.ones(rows.shape, jnp.float64)
                if weights is None
                else jnp.broadcast_to(weights.astype(jnp.float64).reshape(-1), rows.shape)
            )
            cm = jnp.zeros((num_classes, num_classes), jnp.float64)
            return cm.at[rows, cols].add(w, mode="drop")

        labels, predictions = ops.convert_to_tensor(labels), ops.convert_to_tensor(predictions)
        with ops.name_scope("confusion_matrix"):
            checks = _class_ids_in_range(labels, predictions, num_classes)
        with ops.control_dependencies(checks):
            increment = _node(
                batch, "batch", labels=labels, predictions=predictions, weights=weights
            )
        update_op = total_cm.assign_add(increment)

        def compute(cm: Any) -> Any:
            rows = jnp.sum(cm, 0).astype(F32)
            cols = jnp.sum(cm, 1).astype(F32)
            diag = jnp.diagonal(cm).astype(F32)
            denominator = rows + cols - diag
            valid = jnp.sum((denominator != 0).astype(F32))
            denominator = jnp.where(denominator > 0, denominator, jnp.ones_like(denominator))
            iou = diag / denominator
            safe = jnp.where(valid > 0, valid, jnp.ones((), F32))
            return jnp.where(valid > 0, jnp.sum(iou) / safe, jnp.zeros((), F32))

        value = _node(compute, "value", cm=total_cm.value())
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


def mean_per_class_accuracy(
    labels: Any,
    predictions: Any,
    num_classes: int,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The mean over classes of each class's accuracy (``mean_accuracy/total``, ``/count``).

    Args:
      labels: int class ids (flattened).
      predictions: class ids of the labels' shape (flattened).
      num_classes: the number of classes.
      weights: None, or weights of the labels' shape (flattened).
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``"mean_accuracy"``).

    Returns:
      ``(mean_accuracy, update_op)``; as TF's, ``update_op`` gives the per-class
      accuracies ``[num_classes]`` after the update.
    """
    with vs.variable_scope(name, "mean_accuracy", [predictions, labels, weights]):
        # TF flattens both (rank > 1) and then wants compatible shapes.
        _flat_shape(predictions).assert_is_compatible_with(_flat_shape(labels))
        total = metric_variable((num_classes,), np.float32, name="total")
        count = metric_variable((num_classes,), np.float32, name="count")

        def batch(labels: Any, predictions: Any, weights: Any) -> Any:
            ids = labels.astype(jnp.int64).reshape(-1)
            pred = predictions.reshape(-1)
            correct = (pred.astype(ids.dtype) == ids).astype(F32)
            ones = jnp.ones(ids.shape, F32)
            if weights is not None:
                w = weights.astype(F32).reshape(-1)
                correct, ones = correct * w, ones * w
            return ids, ones, correct

        ids, ones, correct = _node(
            batch, "batch", labels=labels, predictions=predictions, weights=weights
        )
        update_total = total._update("ScatterAdd", "add", ids, ones, None, None)
        update_count = count._update("ScatterAdd", "add", ids, correct, None, None)

        def per_class(count: Any, total: Any) -> Any:
            return _div_no_nan(count, jnp.maximum(total, jnp.zeros((), total.dtype)))

        value = _node(
            lambda count, total: jnp.mean(per_class(count, total)),
            "value",
            count=count.value(),
            total=total.value(),
        )
        update_op = _node(per_class, "update_op", count=update_count, total=update_total)
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


# -- top-k metrics (dense labels) ------------------------------------------------------------------
def _at_k_name(metric: str, k: int | None, class_id: int | None = None) -> str:
    """TF's scope name: ``precision_at_5``, ``recall_at_k``, ``precision_at_5_class3``."""
    name = f"{metric}_at_{k}" if k is not None else f"{metric}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def _dense_labels(metric: str, labels: Any) -> ops.Tensor:
    if not isinstance(labels, (ops.Tensor, Variable)) and hasattr(labels, "dense_shape"):
        raise NotImplementedError(
            f"tf.metrics.{metric}: SparseTensor labels are not supported; pass dense labels "
            "([batch] or [batch, num_labels] class ids, each row read as a set)"
        )
    return ops.convert_to_tensor(labels)


def _first_occurrences(x: Any) -> Any:
    """Per element of the last axis: True where the value did not occur earlier in the row."""
    same = x[..., :, None] == x[..., None, :]
    earlier = jnp.tril(jnp.ones((x.shape[-1], x.shape[-1]), bool), -1)
    return ~jnp.any(same & earlier, axis=-1)


def _set_counts(labels: Any, top: Any, class_id: int | None) -> dict[str, Any]:
    """Per row, TF's set sizes of ``top & labels``, ``top - labels``, ``labels - top``."""
    labels = labels.astype(jnp.int64)
    top = top.astype(jnp.int64)
    if labels.ndim == top.ndim - 1:
        labels = labels[..., None]
    if class_id is not None:
        in_labels = jnp.any(labels == class_id, axis=-1)
        in_top = jnp.any(top == class_id, axis=-1)
        return {"tp": in_labels & in_top, "fp": in_top & ~in_labels, "fn": in_labels & ~in_top}
    top_in_labels = jnp.any(top[..., :, None] == labels[..., None, :], axis=-1)
    labels_in_top = jnp.any(labels[..., :, None] == top[..., None, :], axis=-1)
    first_top, first_labels = _first_occurrences(top), _first_occurrences(labels)
    count = lambda m: jnp.sum(m.astype(jnp.int64), axis=-1)  # noqa: E731
    return {
        "tp": count(first_top & top_in_labels),
        "fp": count(first_top & ~top_in_labels),
        "fn": count(first_labels & ~labels_in_top),
    }


def _row_weights(weights: Any, values: Any) -> Any:
    """float64 weights broadcast to the rows' counts (scalar, or their rank)."""
    weights = weights.astype(jnp.float64)
    if weights.ndim and (
        weights.ndim != values.ndim
        or any(w != 1 and w != v for w, v in zip(weights.shape, values.shape, strict=True))
    ):
        raise ValueError(
            f"weights can not be broadcast to values. values.rank={values.ndim}. "
            f"weights.rank={weights.ndim}. values.shape={values.shape}. "
            f"weights.shape={weights.shape}."
        )
    return jnp.broadcast_to(weights, values.shape)


def _shape_text(shape: TensorShape) -> str:
    """A static shape as TF's shape functions write it: ``[2,?,3]``."""
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _input_name(tensor: Any) -> str:
    """A tensor as a NodeDef names its input: ``op`` for output 0, else ``op:i``."""
    return tensor.op.name if tensor.value_index == 0 else tensor.name


def _expanded_labels(labels: Any, top: Any, scope: str) -> tuple[TensorShape, str] | None:
    """TF's ``_maybe_expand_labels(labels, predictions_idx)`` on static shapes: the
    labels' shape once expanded to the top-k indices' rank and the name TF's node
    for them has (``<scope>expand_labels`` when expanded); ``None`` where a rank is
    unknown (TF decides when the graph runs).

    Raises:
      ValueError: the labels' rank is neither the indices' nor one less (TF's message).
    """
    shape, top_shape = labels.get_shape(), top.get_shape()
    if shape.ndims is None or top_shape.ndims is None:
        return None
    if top_shape.ndims == shape.ndims:
        return shape, _input_name(labels)
    if top_shape.ndims == shape.ndims + 1:
        return TensorShape(shape.as_list() + [1]), f"{scope}expand_labels"
    raise ValueError(
        f"Unexpected labels shape {shape} for predictions shape {top_shape}. Predictions "
        "rank should be the same rank as labels rank or labels rank plus one ."
    )


def _set_op_check(node: str, first: tuple[TensorShape, str], second: tuple[TensorShape, str]):
    """TF's shape function of the ``DenseToDenseSetOperation`` ``node`` (an
    intersection of ``first`` and ``second``, each ``(static shape, input name)``):
    both of rank 2 at least, the same leading dimensions.

    Raises:
      ValueError: TF's message, naming the node and its inputs.
    """
    (a, a_name), (b, b_name) = first, second
    where = (
        f" for '{{{{node {node}}}}} = DenseToDenseSetOperation[T=DT_INT64, "
        f'set_operation="intersection", validate_indices=true]({a_name}, {b_name})\' with '
        f"input shapes: {_shape_text(a)}, {_shape_text(b)}."
    )
    for shape in (a, b):
        if shape.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {shape.ndims}{where}")
    lead_a, lead_b = a.as_list()[:-1], b.as_list()[:-1]
    for i, (x, y) in enumerate(zip(lead_a, lead_b, strict=True)):
        if x is not None and y is not None and x != y:
            raise ValueError(
                f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are "
                f"{_shape_text(TensorShape(lead_a))} and {_shape_text(TensorShape(lead_b))}."
                f"{where}"
            )


def _top_k_checks(
    labels: Any, top: Any, top_name: str, scope: str, k: int | None, class_id: int | None
) -> None:
    """TF's graph-construction checks of ``precision``/``recall`` at k: the labels'
    rank (``_maybe_expand_labels``), then its first set intersection's shapes (the
    true positives': top-k indices and labels, or with ``class_id`` the labels and
    the class id filled in their shape)."""
    expanded = _expanded_labels(labels, top, scope)
    if expanded is None or top.get_shape().ndims != expanded[0].ndims:
        return
    where = f"{scope}{_at_k_name('true_positive', k, class_id)}/true_positives/"
    if class_id is None:
        _set_op_check(where + "DenseToDenseSetOperation", (top.get_shape(), top_name), expanded)
    elif expanded[0].ndims < 2:  # TF's other mismatches are run-time errors with a class_id
        filled = TensorShape(expanded[0].as_list()[:-1] + [1])
        _set_op_check(where + "DenseToDenseSetOperation", (filled, where + "Fill"), expanded)


def _top_k_ratio(
    metric: str,
    other: str,
    labels: Any,
    top: Any,
    k: int | None,
    class_id: int | None,
    weights: Any,
    metrics_collections: Any,
    updates_collections: Any,
    scope: str,
) -> tuple[ops.Tensor, ops.Tensor]:
    """``tp / (tp + other)`` over the stream, in the name scope ``scope`` (float64);
    the value is the node named as the scope (``recall_at_5:0``), as TF's."""
    names = {"tp": "true_positive", "fp": "false_positive", "fn": "false_negative"}

    def batch(labels: Any, top: Any, weights: Any) -> Any:
        counts = _set_counts(labels, top, class_id)
        out = []
        for key in ("tp", other):
            c = counts[key].astype(jnp.float64)
            if weights is not None:
                c = c * _row_weights(weights, c)
            out.append(jnp.sum(c))
        return tuple(out)

    tp_batch, other_batch = _node(batch, "batch", labels=labels, top=top, weights=weights)
    tp = metric_variable((), np.float64, name=_at_k_name(names["tp"], k, class_id))
    o = metric_variable((), np.float64, name=_at_k_name(names[other], k, class_id))
    tp_update = tp.assign_add(tp_batch)
    o_update = o.assign_add(other_batch)
    ratio = lambda tp, other: tp / (tp + other)  # noqa: E731  (TF's: NaN before any count)
    value = _node(ratio, scope, tp=tp.value(), other=o.value())
    update = _node(ratio, "update", tp=tp_update, other=o_update)
    _collect(metrics_collections, value)
    _collect(updates_collections, update)
    return value, update


def _top_k_indices(predictions: Any, k: int) -> ops.Tensor:
    """``tf.nn.top_k(predictions, k)``'s indices (ties: the lower index first)."""
    import jax

    return _node(lambda p: jax.lax.top_k(p, k)[1], "TopKV2", p=predictions)


def _make_top_k_metric(metric: str, other: str, from_scores: bool):
    """``precision_at_k``/``recall_at_k`` (``from_scores``) and the ``*_at_top_k`` forms."""

    def at_k(
        labels: Any,
        predictions: Any,
        k: int | None = None,
        class_id: int | None = None,
        weights: Any = None,
        metrics_collections: Any = None,
        updates_collections: Any = None,
        name: str | None = None,
    ) -> tuple[ops.Tensor, ops.Tensor]:
        public = f"{metric}_at_k" if from_scores else f"{metric}_at_top_k"
        labels = _dense_labels(public, labels)
        if from_scores and (k is None or k < 1):
            raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
        at_k_name = _at_k_name(metric, k, class_id)
        with ops.name_scope(name, at_k_name, [predictions, labels, weights]) as scope:
            if from_scores:
                top = _top_k_indices(predictions, k)
                top_name = f"{scope}Cast"  # TF's int64 cast of the int32 indices
            else:
                top = ops.convert_to_tensor(predictions)
                top_name = _input_name(top) if top.dtype == np.int64 else f"{scope}Cast"
            _top_k_checks(labels, top, top_name, scope, k, class_id)
            return _top_k_ratio(
                metric,
                other,
                labels,
                top,
                k,
                class_id,
                weights,
                metrics_collections,
                updates_collections,
                scope,
            )

    what = "precision: tp / (tp + fp)" if other == "fp" else "recall: tp / (tp + fn)"
    source = "the top ``k`` of ``predictions``" if from_scores else "``predictions_idx``"
    at_k.__doc__ = (
        f"Streaming {what} of {source} against the label sets (float64).\n\n"
        "Args:\n"
        "  labels: int class ids, ``[D1, ..., DN]`` or ``[D1, ..., DN, num_labels]``; each\n"
        "    row is read as a set (TF's dense set rules: duplicates once, every value\n"
        "    counts). SparseTensor labels are not supported.\n"
        + (
            "  predictions: scores ``[D1, ..., DN, num_classes]``.\n"
            "  k: the number of top classes.\n"
            if from_scores
            else "  predictions_idx: int class ids ``[D1, ..., DN, k]``.\n  k: used in names.\n"
        )
        + "  class_id: count only this class (default: all).\n"
        "  weights: None, a scalar or ``[D1, ..., DN]``.\n"
        "  metrics_collections: collections to add the value to.\n"
        "  updates_collections: collections to add the update op to.\n"
        f"  name: the name scope (default ``{metric}_at_<k>``).\n\n"
        "Returns:\n"
        "  ``(value, update_op)``, float64 (NaN before anything was counted, as TF's).\n"
    )
    return at_k


_precision_at_k = _make_top_k_metric("precision", "fp", True)
_recall_at_k = _make_top_k_metric("recall", "fn", True)
_precision_at_top_k = _make_top_k_metric("precision", "fp", False)
_recall_at_top_k = _make_top_k_metric("recall", "fn", False)


def precision_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    return _precision_at_k(
        labels, predictions, k, class_id, weights, metrics_collections, updates_collections, name
    )


def recall_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    return _recall_at_k(
        labels, predictions, k, class_id, weights, metrics_collections, updates_collections, name
    )


def precision_at_top_k(
    labels: Any,
    predictions_idx: Any,
    k: int | None = None,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    return _precision_at_top_k(
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


def recall_at_top_k(
    labels: Any,
    predictions_idx: Any,
    k: int | None = None,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    return _recall_at_top_k(
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


for _public, _impl in (
    (precision_at_k, _precision_at_k),
    (recall_at_k, _recall_at_k),
    (precision_at_top_k, _precision_at_top_k),
    (recall_at_top_k, _recall_at_top_k),
):
    _public.__doc__ = _impl.__doc__


def sparse_precision_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """Deprecated (TF: use ``precision_at_k``): ``precision_at_k`` itself."""
    return precision_at_k(
        labels, predictions, k, class_id, weights, metrics_collections, updates_collections, name
    )


def average_precision_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """The mean over rows of the average precision of the top ``k`` (float64).

    Args:
      labels: int class ids ``[D1, ..., DN]`` or ``[D1, ..., DN, num_labels]``;
        ids ``>= num_classes`` are ignored; negative ids pad rows.
      predictions: scores ``[D1, ..., DN, num_classes]``.
      k: the number of top classes.
      weights: None, a scalar or ``[D1, ..., DN]``.
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the name scope (default ``average_precision_at_<k>``).

    Returns:
      ``(mean_average_precision, update_op)``; variables ``.../max_1`` (TF's name) and
      ``.../total``.

    Raises:
      ValueError: ``k < 1``.
    """
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    labels = _dense_labels("average_precision_at_k", labels)
    at_k_name = _at_k_name("average_precision", k)
    with ops.name_scope(name, at_k_name, [predictions, labels, weights]) as scope:
        top = _top_k_indices(predictions, k)
        expanded = _expanded_labels(labels, top, scope)
        if expanded is not None:  # TF's relevance per k: a set intersection
            inner = f"{scope}average_precision/"
            top_shape = top.get_shape().as_list()
            labels_shape = expanded[0].as_list()
            _set_op_check(
                inner + "relevant_per_k/DenseToDenseSetOperation",
                (TensorShape(top_shape + [1]), inner + "predictions_idx_per_k"),
                (
                    TensorShape(labels_shape[:-1] + [k] + labels_shape[-1:]),
                    inner + "labels_per_k",
                ),
            )

        def batch(labels: Any, top: Any, predictions: Any, weights: Any) -> Any:
            num_classes = predictions.shape[-1]
            labels = labels.astype(jnp.int64)
            labels = jnp.where(labels >= num_classes, jnp.asarray(-1, jnp.int64), labels)
            if labels.ndim == top.ndim - 1:
                labels = labels[..., None]
            relevant = jnp.any(top[..., :, None] == labels[..., None, :], axis=-1)
            relevant = relevant.astype(jnp.float64)
            retrieved = jnp.arange(1, k + 1, dtype=jnp.float64)
            precision_sum = jnp.sum(jnp.cumsum(relevant, axis=-1) / retrieved * relevant, axis=-1)
            num_relevant = jnp.minimum(jnp.sum((labels >= 0).astype(jnp.int64), axis=-1), k)
            average = precision_sum / num_relevant.astype(jnp.float64)
            if weights is None:
                return jnp.asarray(average.size, jnp.float64), jnp.sum(average)
            w = _row_weights(weights, average)
            return jnp.sum(w), jnp.sum(average * w)

        batch_max, batch_total = _node(
            batch, "batch", labels=labels, top=top, predictions=predictions, weights=weights
        )
        # TF's name: its scope "max" clashes (TF's names are unique ignoring case) with
        # the reduce_max ("Max") that cleans the labels, so it becomes "max_1".
        max_var = metric_variable((), np.float64, name="max_1")
        total_var = metric_variable((), np.float64, name="total")
        max_update = max_var.assign_add(batch_max)
        total_update = total_var.assign_add(batch_total)
        value = _node(_div_no_nan, "mean", x=total_var.value(), y=max_var.value())
        # TF's update op is the node named as the scope (average_precision_at_5:0)
        update = _node(_div_no_nan, scope, x=total_update, y=max_update)
    _collect(metrics_collections, value)
    _collect(updates_collections, update)
    return value, update


def sparse_average_precision_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """Deprecated (TF: use ``average_precision_at_k``): ``average_precision_at_k`` itself."""
    return average_precision_at_k(
        labels, predictions, k, weights, metrics_collections, updates_collections, name
    )
