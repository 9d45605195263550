"""``tf.keras.metrics`` functions (legacy Keras 2) on graph tensors, as ``Model.compile``
uses them.

Each function returns one value per example: the accuracies compare predictions with
labels (``binary_accuracy``: ``y_pred > threshold``; ``categorical_accuracy``: the
``argmax`` of both; ``sparse_categorical_accuracy``: the label against the ``argmax``
of the prediction), the loss functions are ``tf.keras.losses``'.

``compile(metrics=[...])`` names: ``'accuracy'``/``'acc'`` pick binary, sparse
categorical or categorical accuracy by the loss and the output's last dimension
(``'crossentropy'``/``'ce'`` the matching cross-entropy), as Keras' v1 engine does.

The metric classes (``tf.keras.metrics.Mean``, ``AUC``...) are not provided.
"""

from __future__ import annotations

from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import ops
from adapters.v1.keras import backend, losses
from adapters.v1.layers.base import op
from adapters.v1.ops.constant_op import constant

__all__ = [
    "KLD",
    "MAE",
    "MSE",
    "binary_accuracy",
    "binary_crossentropy",
    "categorical_accuracy",
    "categorical_crossentropy",
    "get",
    "hinge",
    "kld",
    "mae",
    "mean_absolute_error",
    "mean_squared_error",
    "mse",
    "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy",
]

mean_squared_error = mse = MSE = losses.mean_squared_error
mean_absolute_error = mae = MAE = losses.mean_absolute_error
binary_crossentropy = losses.binary_crossentropy
categorical_crossentropy = losses.categorical_crossentropy
sparse_categorical_crossentropy = losses.sparse_categorical_crossentropy
hinge = losses.hinge
kl_divergence = kld = KLD = kullback_leibler_divergence = losses.kl_divergence


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    """``mean(equal(y_true, cast(y_pred > threshold)), axis=-1)`` (floatx).

    Args:
      y_true: the 0/1 labels.
      y_pred: the predictions.
      threshold: the decision threshold (TF's default 0.5).

    Returns:
      One accuracy per example (the last axis averaged).
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    limit = constant(threshold, dtype=y_pred.dtype.base_dtype)
    y_pred = op("cast")(op("greater")(y_pred, limit), y_pred.dtype.base_dtype)
    matches = op("cast")(op("equal")(y_true, y_pred), backend.floatx())
    return op("reduce_mean")(matches, axis=-1)


def _sparse_matches(y_true: Any, y_pred: Any) -> Any:
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    reshape = False
    if (
        y_true.shape.ndims is not None
        and y_pred.shape.ndims is not None
        and y_true.shape.ndims == y_pred.shape.ndims
    ):
        y_true = op("squeeze")(y_true, [-1])
        reshape = True
    y_pred = op("argmax")(y_pred, axis=-1)
    if y_pred.dtype.base_dtype != y_true.dtype.base_dtype:
        y_pred = op("cast")(y_pred, y_true.dtype.base_dtype)
    matches = op("cast")(op("equal")(y_true, y_pred), backend.floatx())
    if reshape:  # TF reshapes to y_true's shape: the squeezed axis (of size 1) back
        matches = op("expand_dims")(matches, -1)
    return matches


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    """``equal(argmax(y_true, -1), argmax(y_pred, -1))`` (floatx), one per example."""
    return _sparse_matches(op("argmax")(y_true, axis=-1), y_pred)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    """``equal(y_true, argmax(y_pred, -1))`` (floatx), one per example; a ``[N, 1]``
    result is squeezed to ``[N]``."""
    matches = _sparse_matches(y_true, y_pred)
    if matches.shape.ndims is not None and matches.shape.ndims > 1:
        if matches.shape.as_list()[-1] == 1:
            matches = op("squeeze")(matches, [-1])
    return matches


_BY_NAME: dict[str, Any] = {
    "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "mean_squared_error": mean_squared_error,
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "hinge": hinge,
    "kl_divergence": kl_divergence,
    "kld": kl_divergence,
    "KLD": kl_divergence,
    "kullback_leibler_divergence": kl_divergence,
}


def get(identifier: Any) -> Any:
    """The metric function ``identifier`` names, or itself if callable.

    Raises:
      ValueError: an unknown name (TF's message).
    """
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]
    raise ValueError(f"Unknown metric function: '{identifier}'")


__getattr__ = missing_name_getattr("tf.keras.metrics", globals())
