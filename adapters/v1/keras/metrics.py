"""``tf.keras.metrics`` functions (legacy Keras 2) on graph tensors, as ``Model.compile``
uses them.

Each function returns one value per example: the accuracies compare predictions with
labels (``binary_accuracy``: ``y_pred > threshold``; ``categorical_accuracy``: the
``argmax`` of both; ``sparse_categorical_accuracy``: the label against the ``argmax``
of the prediction), the loss functions are ``tf.keras.losses``'.

``compile(metrics=[...])`` names: ``'accuracy'``/``'acc'`` pick binary, sparse
categorical or categorical accuracy by the loss and the output's last dimension
(``'crossentropy'``/``'ce'`` the matching cross-entropy), as Keras' v1 engine does.

The ``MeanMetricWrapper`` classes (``Accuracy``, ``BinaryAccuracy(threshold=0.5)``,
``CategoricalAccuracy``, ``SparseCategoricalAccuracy``, ``MeanSquaredError``,
``MeanAbsoluteError``, the cross-entropies) work in ``compile(metrics=[...])`` only;
standalone use raises ``NotImplementedError``. ``Mean``, ``AUC``, ``Precision``...
are not provided.
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
    "Accuracy",
    "BinaryAccuracy",
    "BinaryCrossentropy",
    "CategoricalAccuracy",
    "CategoricalCrossentropy",
    "MeanAbsoluteError",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy",
    "accuracy",
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


def accuracy(y_true: Any, y_pred: Any) -> Any:
    """``cast(equal(y_true, y_pred), floatx)`` (y_pred cast to y_true's dtype), per
    element (``tf.keras.metrics.Accuracy``'s function)."""
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    if y_true.dtype.base_dtype != y_pred.dtype.base_dtype:
        y_pred = op("cast")(y_pred, y_true.dtype.base_dtype)
    return op("cast")(op("equal")(y_true, y_pred), backend.floatx())


def _binary_matches(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    """Per element: ``equal(y_true, cast(y_pred > threshold))`` (floatx)."""
    y_pred = ops.convert_to_tensor(y_pred)
    limit = constant(threshold, dtype=y_pred.dtype.base_dtype)
    y_pred = op("cast")(op("greater")(y_pred, limit), y_pred.dtype.base_dtype)
    return op("cast")(op("equal")(y_true, y_pred), backend.floatx())


class MeanMetricWrapper:
    """A metric averaging ``fn(y_true, y_pred, **kwargs)`` over the batches, as
    ``Model.compile(metrics=[...])`` takes it (Keras' ``MeanMetricWrapper``).

    Args: fn, name=None, dtype=None (float32), and ``fn``'s keyword arguments.

    .. note:: Only ``compile`` runs these metrics in adapters.v1: calling one, or its
       ``update_state``/``result``, raises ``NotImplementedError`` (use
       ``tf.metrics.mean`` on the function's values in a TF1 graph).
    """

    def __init__(self, fn: Any, name: str | None = None, dtype: Any = None, **kwargs: Any):
        self._fn = fn
        self._fn_kwargs = kwargs
        self.name = name or fn.__name__
        self.dtype = dtype or "float32"

    def _compile_fn(self) -> Any:
        def fn(y_true: Any, y_pred: Any) -> Any:
            return self._fn(y_true, y_pred, **self._fn_kwargs)

        return fn

    def _standalone(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"tf.keras.metrics.{type(self).__name__} is supported by adapters.v1 in "
            "Model.compile(metrics=[...]) only; in a TF1 graph use tf.metrics.mean of "
            "the metric function's values"
        )

    __call__ = update_state = result = reset_state = reset_states = _standalone

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype, **self._fn_kwargs}


def _wrapper(cls_name: str, fn: Any, default: str, doc: str, **defaults: Any) -> type:
    def __init__(self: Any, name: str = default, dtype: Any = None, **kwargs: Any) -> None:
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"{cls_name}.__init__() got unexpected keyword arguments {unknown}")
        MeanMetricWrapper.__init__(self, fn, name, dtype, **{**defaults, **kwargs})

    return type(cls_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc})


Accuracy = _wrapper("Accuracy", accuracy, "accuracy", "How often predictions equal labels.")
BinaryAccuracy = _wrapper(
    "BinaryAccuracy",
    _binary_matches,
    "binary_accuracy",
    "How often predictions (above ``threshold``, default 0.5) match binary labels.",
    threshold=0.5,
)
CategoricalAccuracy = _wrapper(
    "CategoricalAccuracy",
    categorical_accuracy,
    "categorical_accuracy",
    "How often the prediction's argmax equals the one-hot label's.",
)
SparseCategoricalAccuracy = _wrapper(
    "SparseCategoricalAccuracy",
    sparse_categorical_accuracy,
    "sparse_categorical_accuracy",
    "How often the prediction's argmax equals the integer label.",
)
MeanSquaredError = _wrapper(
    "MeanSquaredError", mean_squared_error, "mean_squared_error", "The mean squared error."
)
MeanAbsoluteError = _wrapper(
    "MeanAbsoluteError", mean_absolute_error, "mean_absolute_error", "The mean absolute error."
)
BinaryCrossentropy = _wrapper(
    "BinaryCrossentropy",
    binary_crossentropy,
    "binary_crossentropy",
    "The binary cross-entropy (from_logits=False, label_smoothing=0).",
    from_logits=False,
    label_smoothing=0.0,
)
CategoricalCrossentropy = _wrapper(
    "CategoricalCrossentropy",
    categorical_crossentropy,
    "categorical_crossentropy",
    "The categorical cross-entropy (from_logits=False, label_smoothing=0).",
    from_logits=False,
    label_smoothing=0.0,
)
SparseCategoricalCrossentropy = _wrapper(
    "SparseCategoricalCrossentropy",
    sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy",
    "The sparse categorical cross-entropy (from_logits=False).",
    from_logits=False,
)

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
