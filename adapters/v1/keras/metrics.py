"""``tf.keras.metrics`` functions (legacy Keras 2) on graph tensors, as ``Model.compile``
uses them.

Each function returns one value per example: the accuracies compare predictions with
labels (``binary_accuracy``: ``y_pred > threshold``; ``categorical_accuracy``: the
``argmax`` of both; ``sparse_categorical_accuracy``: the label against the ``argmax``
of the prediction), the loss functions are ``tf.keras.losses``'.

``compile(metrics=[...])`` names: ``'accuracy'``/``'acc'`` pick binary, sparse
categorical or categorical accuracy by the loss and the output's last dimension
(``'crossentropy'``/``'ce'`` the matching cross-entropy), as Keras' v1 engine does.

The stateful metrics (``Metric``, ``Mean``, ``Sum``, ``MeanTensor``,
``MeanMetricWrapper`` and its classes: ``Accuracy``, ``BinaryAccuracy(threshold=0.5)``,
``MeanSquaredError``, the cross-entropies...) work standalone as TF's graph-mode Keras:
``update_state(...)`` returns the update op, ``result()`` the value, a call both (the
result after the update), ``reset_state()`` zeroes the state at once in Keras' session.
Their variables are in no collection (initialize them with
``tf.variables_initializer(m.variables)``). ``compile(metrics=[...])`` takes the
``MeanMetricWrapper`` ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.keras import backend, losses
from adapters.v1.layers.base import op
from adapters.v1.ops import array_ops
from adapters.v1.ops import variables as tf_variables
from adapters.v1.ops.constant_op import constant
from adapters.v1.ops.variables import VariableAggregation, VariableSynchronization

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
    "Mean",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "MeanTensor",
    "Metric",
    "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy",
    "Sum",
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


_SUM, _WEIGHTED_MEAN = "sum", "weighted_mean"


def _as_op(update: Any) -> Any:
    """The operation of an update (TF's graph-mode ``update_state`` returns one)."""
    return update if isinstance(update, ops.Operation) else update.op


def _broadcast_weights(sample_weight: Any, values: Any) -> Any:
    """TF's ``broadcast_weights``: ``sample_weight`` as is when the static shapes match,
    else times ``ones_like(values)``.

    Raises:
      ValueError: the static shapes cannot broadcast (TF's ``assert_broadcastable``).
    """
    from adapters.v1.ops.losses import _assert_broadcastable

    w_shape, v_shape = sample_weight.get_shape(), values.get_shape()
    if w_shape.is_fully_defined() and v_shape.is_fully_defined() and w_shape == v_shape:
        return sample_weight
    _assert_broadcastable(sample_weight, v_shape)
    return op("multiply")(sample_weight, op("ones_like")(values))


def _weigh(values: Any, sample_weight: Any, reduce: str) -> tuple[Any, Any]:
    """``(values, sample_weight)`` as Keras' ``Reduce``/``MeanTensor`` fit them: the
    weights squeezed/expanded by one axis and broadcast, else the values reduced over
    their trailing axes (``reduce``: ``"reduce_sum"``/``"reduce_mean"``) to the weights'
    rank."""
    sample_weight = losses._squeeze_or_expand(values, sample_weight)
    try:
        sample_weight = _broadcast_weights(sample_weight, values)
    except ValueError:
        ndim, w_ndim = values.shape.ndims, sample_weight.shape.ndims
        values = op(reduce)(values, axis=list(range(w_ndim, ndim)))
    return values, sample_weight


class Metric:
    """The base of Keras' stateful metrics (``tf.keras.metrics.Metric``) in a TF1 graph.

    Subclasses create their state in ``__init__`` with :meth:`add_weight` and implement
    ``update_state(...)`` (returning the update op) and ``result()``.

    Args:
      name: the metric's name (TF's default: the class name in snake case).
      dtype: the dtype of the state and the result (TF's default: ``floatx()``).
      **kwargs: Layer keywords (``trainable``...), accepted and ignored.

    .. note:: As TF's legacy Keras in graph mode, the variables are resource variables
       named in the current name scope (``total:0``, not ``mean/total:0``) and in NO
       collection: neither ``tf.global_variables_initializer()`` nor
       ``tf.local_variables_initializer()`` initializes them; run
       ``tf.variables_initializer(metric.variables)``. ``reset_state()`` runs at once
       in Keras' session (the default session if one is active) and returns ``None``.
    """

    def __init__(self, name: str | None = None, dtype: Any = None, **kwargs: Any):
        from adapters.v1.layers.base import _snake_case

        self.name = name or backend.unique_object_name(_snake_case(type(self).__name__))
        self._dtype = backend.floatx() if dtype is None else dtypes.as_dtype(dtype).name
        self._weights: list[Any] = []
        self.stateful = True
        self.built = True
        self.trainable = kwargs.pop("trainable", True)

    @property
    def dtype(self) -> str:
        """The metric's dtype name (``'float32'``)."""
        return self._dtype

    @property
    def weights(self) -> list[Any]:
        """The state variables, in creation order."""
        return list(self._weights)

    variables = non_trainable_weights = non_trainable_variables = weights

    @property
    def trainable_weights(self) -> list[Any]:
        """``[]``: a metric's state is not trained."""
        return []

    trainable_variables = trainable_weights

    def add_weight(
        self,
        name: str,
        shape: Any = (),
        aggregation: Any = VariableAggregation.SUM,
        synchronization: Any = VariableSynchronization.ON_READ,
        initializer: Any = None,
        dtype: Any = None,
    ) -> Any:
        """A non-trainable resource variable ``name`` in the current name scope, in no
        collection (Keras tracks it for its session's initialization).

        Args:
          name: the variable's name.
          shape: its shape (TF's default ``()``).
          aggregation: the cross-replica aggregation (TF's default ``SUM``).
          synchronization: the synchronization (TF's default ``ON_READ``).
          initializer: an initializer or its name (TF's default ``None``: zeros).
          dtype: its dtype (TF's default ``None``: the metric's).

        Returns:
          The variable.
        """
        from adapters.v1.keras import initializers

        dtype = dtypes.as_dtype(self._dtype if dtype is None else dtype)
        shape = tuple(shape)
        init = initializers.get(initializer or "zeros")
        variable = tf_variables.Variable(
            initial_value=lambda: init(shape, dtype=dtype),
            name=name,
            dtype=dtype,
            trainable=False,
            collections=[],
            use_resource=True,
            synchronization=synchronization,
            aggregation=aggregation,
        )
        backend._track_variable(variable)
        self._weights.append(variable)
        return variable

    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        """Accumulates a batch's statistics; returns the update op.

        Raises:
          NotImplementedError: not implemented by the subclass (TF's message).
        """
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self) -> Any:
        """The metric's value from its state.

        Raises:
          NotImplementedError: not implemented by the subclass (TF's message).
        """
        raise NotImplementedError("Must be implemented in subclasses.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``update_state(*args, **kwargs)``, then ``result()`` ordered after it."""
        update = self.update_state(*args, **kwargs)
        with ops.control_dependencies([update] if update is not None else []):
            return self.result()

    def reset_state(self) -> None:
        """Sets every state variable to 0, at once, in Keras' session (``get_session()``:
        the default session if one is active)."""
        backend.batch_set_value([(v, np.zeros(v.shape.as_list())) for v in self._weights])

    def reset_states(self) -> None:
        """``reset_state()`` (TF's old name)."""
        return self.reset_state()

    def merge_state(self, metrics: Any) -> list[Any]:
        """Ops adding the state of each of ``metrics`` to this one's.

        Args:
          metrics: metrics of the same kind.

        Returns:
          The ``assign_add`` ops.

        Raises:
          ValueError: a metric with another number of variables (TF's message).
        """
        assign_add_ops = []
        for metric in metrics:
            if len(self.weights) != len(metric.weights):
                raise ValueError(f"Metric {metric} is not compatible with {self}")
            for weight, weight_to_add in zip(self.weights, metric.weights, strict=True):
                assign_add_ops.append(weight.assign_add(weight_to_add))
        return assign_add_ops

    def get_weights(self) -> list[Any]:
        """The state's values in Keras' session."""
        return backend.batch_get_value(self._weights)

    def set_weights(self, weights: Any) -> None:
        """Loads ``weights`` into the state variables in Keras' session."""
        backend.batch_set_value(list(zip(self._weights, weights, strict=True)))

    def get_config(self) -> dict[str, Any]:
        """``{'name', 'dtype'}`` (plus the subclass's arguments)."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """``cls(**config)``."""
        return cls(**config)

    def __str__(self) -> str:
        args = ",".join(f"{k}={v}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class _Reduce(Metric):
    """Keras' ``Reduce``: ``total`` (and ``count`` for a mean) of the values."""

    def __init__(self, reduction: str, name: str | None, dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total", initializer="zeros")
        if reduction == _WEIGHTED_MEAN:
            self.count = self.add_weight("count", initializer="zeros")

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        """Adds the (weighted) values to ``total`` (and the weights to ``count``).

        Args:
          values: the per-example values (cast to the metric's dtype).
          sample_weight: optional weights, broadcast to the values (TF's default
            ``None``: 1 each).

        Returns:
          The update op.

        Raises:
          ValueError: weights that neither broadcast nor reduce the values.
        """
        values = op("cast")(values, self._dtype)
        if sample_weight is not None:
            sample_weight = op("cast")(sample_weight, self._dtype)
            reduce = "reduce_sum" if self.reduction == _SUM else "reduce_mean"
            values, sample_weight = _weigh(values, sample_weight, reduce)
            values = op("multiply")(values, sample_weight)
        value_sum = op("reduce_sum")(values)
        with ops.control_dependencies([value_sum]):
            update_total = self.total.assign_add(value_sum)
        if self.reduction == _SUM:
            return _as_op(update_total)
        if sample_weight is None:
            num_values = op("cast")(op("size")(values), self._dtype)
        else:
            num_values = op("reduce_sum")(sample_weight)
        with ops.control_dependencies([update_total]):
            return _as_op(self.count.assign_add(num_values))

    def result(self) -> Any:
        """``total`` (a sum) or ``div_no_nan(total, count)`` (a mean)."""
        if self.reduction == _SUM:
            return array_ops.identity(self.total.read_value())
        value = op("div_no_nan")(self.total.read_value(), self.count.read_value())
        return array_ops.identity(value)


class Sum(_Reduce):
    """The (weighted) sum of the values (``tf.keras.metrics.Sum``), in ``total``.

    Args:
      name: the metric's name (TF's default ``'sum'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
    """

    def __init__(self, name: str = "sum", dtype: Any = None):
        super().__init__(_SUM, name=name, dtype=dtype)


class Mean(_Reduce):
    """The (weighted) mean of the values (``tf.keras.metrics.Mean``): ``total / count``.

    Args:
      name: the metric's name (TF's default ``'mean'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
    """

    def __init__(self, name: str = "mean", dtype: Any = None):
        super().__init__(_WEIGHTED_MEAN, name=name, dtype=dtype)


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over the batches (Keras'
    ``MeanMetricWrapper``), standalone or in ``Model.compile(metrics=[...])``.

    Args:
      fn: the per-example metric function.
      name: the metric's name (TF's default ``None``: ``mean_metric_wrapper``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
      **kwargs: ``fn``'s keyword arguments.
    """

    def __init__(self, fn: Any, name: str | None = None, dtype: Any = None, **kwargs: Any):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def _compile_fn(self) -> Any:
        def fn(y_true: Any, y_pred: Any) -> Any:
            return self._fn(y_true, y_pred, **self._fn_kwargs)

        return fn

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:  # type: ignore[override]
        """Adds ``fn(y_true, y_pred)`` (both cast to the dtype, a trailing axis of 1
        squeezed from the one of higher rank) to the mean.

        Args:
          y_true: the labels.
          y_pred: the predictions.
          sample_weight: optional weights (TF's default ``None``).

        Returns:
          The update op.
        """
        from adapters.v1.keras.training import _squeeze_or_expand

        y_true = op("cast")(y_true, self._dtype)
        y_pred = op("cast")(y_pred, self._dtype)
        y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(matches, sample_weight=sample_weight)

    def get_config(self) -> dict[str, Any]:
        """The name, dtype and ``fn``'s keyword arguments (and ``fn`` for the class itself)."""
        config = dict(self._fn_kwargs)
        if type(self) is MeanMetricWrapper:
            config["fn"] = self._fn
        return {**super().get_config(), **config}


class MeanTensor(Metric):
    """The element-wise (weighted) mean of tensors (``tf.keras.metrics.MeanTensor``).

    Args:
      name: the metric's name (TF's default ``'mean_tensor'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
      shape: the values' shape (TF's default ``None``: the first update's).

    Raises:
      ValueError: ``result()`` before any update (unbuilt); an update of another
        shape; a first update of a partially known shape (TF's messages).
    """

    def __init__(self, name: str = "mean_tensor", dtype: Any = None, shape: Any = None):
        super().__init__(name=name, dtype=dtype)
        self._shape: Any = None
        self._total: Any = None
        self._count: Any = None
        self._built = False
        if shape is not None:
            self._build(shape)

    def _build(self, shape: Any) -> None:
        self._shape = TensorShape(shape)
        if not self._shape.is_fully_defined():
            raise ValueError(
                f"Cannot convert a partially known TensorShape {self._shape} to a Tensor."
            )
        self._total = self.add_weight(name="total", shape=self._shape.as_list())
        self._count = self.add_weight(name="count", shape=self._shape.as_list())
        self._built = True

    @property
    def total(self) -> Any:
        """The ``total`` variable (None before the first update)."""
        return self._total if self._built else None

    @property
    def count(self) -> Any:
        """The ``count`` variable (None before the first update)."""
        return self._count if self._built else None

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        """Adds the (weighted) values to ``total`` and the weights to ``count``.

        Args:
          values: a tensor of the metric's shape.
          sample_weight: optional weights (TF's default ``None``: 1 each).

        Returns:
          The update op.

        Raises:
          ValueError: values of another shape than the first update's (TF's message).
        """
        values = op("cast")(values, self._dtype)
        if not self._built:
            self._build(values.shape)
        elif values.shape != self._shape:
            raise ValueError(
                "MeanTensor input values must always have the same shape. Expected shape "
                f"(set during the first call): {self._shape}. Got: {values.shape}."
            )
        num_values = op("ones_like")(values)
        if sample_weight is not None:
            sample_weight = op("cast")(sample_weight, self._dtype)
            values, sample_weight = _weigh(values, sample_weight, "reduce_mean")
            num_values = op("multiply")(num_values, sample_weight)
            values = op("multiply")(values, sample_weight)
        update_total = self._total.assign_add(values)
        with ops.control_dependencies([update_total]):
            return _as_op(self._count.assign_add(num_values))

    def result(self) -> Any:
        """``div_no_nan(total, count)``, element-wise.

        Raises:
          ValueError: no update yet (TF's message).
        """
        if not self._built:
            raise ValueError(
                "MeanTensor does not have any value yet. Please call the MeanTensor "
                "instance or use `.update_state(value)` before retrieving the result."
            )
        value = op("div_no_nan")(self._total.read_value(), self._count.read_value())
        return array_ops.identity(value)

    def reset_state(self) -> None:
        """Sets ``total`` and ``count`` to 0 in Keras' session (nothing before a build)."""
        if self._built:
            super().reset_state()


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
    label_smoothing=0,
)
CategoricalCrossentropy = _wrapper(
    "CategoricalCrossentropy",
    categorical_crossentropy,
    "categorical_crossentropy",
    "The categorical cross-entropy (from_logits=False, label_smoothing=0, axis=-1).",
    from_logits=False,
    label_smoothing=0,
    axis=-1,
)
SparseCategoricalCrossentropy = _wrapper(
    "SparseCategoricalCrossentropy",
    sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy",
    "The sparse categorical cross-entropy (from_logits=False, ignore_class=None, axis=-1).",
    from_logits=False,
    ignore_class=None,
    axis=-1,
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
