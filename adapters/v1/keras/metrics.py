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
``MeanMetricWrapper`` and its classes: the accuracies incl. top-k, the errors, the
hinges, the cross-entropies, ``CosineSimilarity``...; ``RootMeanSquaredError``,
``MeanRelativeError``, ``R2Score``; the confusion-matrix metrics of
``confusion_metrics``, the IoU metrics of ``iou_metrics``, the F-scores of
``f_score_metrics``) work standalone as TF's graph-mode Keras: ``update_state(...)``
returns the update op, ``result()`` the value, a call both (the result after the
update), ``reset_state()`` zeroes the state at once in Keras' session. Their variables
are in no collection (initialize them with ``tf.variables_initializer(m.variables)``).
``compile(metrics=[...])`` takes the ``MeanMetricWrapper`` ones.

.. note:: TF 2.21's ``R2Score``, ``FBetaScore`` and ``F1Score`` assign several
   variables in ``update_state`` and return nothing; in a TF1 graph Keras returns the
   graph's last op, so only the last assignment ever runs (the F-scores stay 0,
   ``R2Score`` NaN, in ``compile`` too), and their ``reset_state()`` builds
   assignments it does not run. These classes keep that behaviour.

``serialize``/``deserialize``/``get`` use a table of TF's names (never evaluated), in
TF1's legacy format (``{'class_name', 'config'}``; a function by its name).

.. note:: ``tf.keras.metrics.cosine``/``cosine_proximity`` are TF's loss (the negative
   similarity), while ``get('cosine_proximity')`` and ``CosineSimilarity`` give the
   positive metric, as TF's.
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
    "AUC",
    "KLD",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "Accuracy",
    "BinaryAccuracy",
    "BinaryCrossentropy",
    "BinaryIoU",
    "CategoricalAccuracy",
    "CategoricalCrossentropy",
    "CategoricalHinge",
    "CosineSimilarity",
    "F1Score",
    "FBetaScore",
    "FalseNegatives",
    "FalsePositives",
    "Hinge",
    "IoU",
    "KLDivergence",
    "LogCoshError",
    "Mean",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanIoU",
    "MeanMetricWrapper",
    "MeanRelativeError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "MeanTensor",
    "Metric",
    "OneHotIoU",
    "OneHotMeanIoU",
    "Poisson",
    "Precision",
    "PrecisionAtRecall",
    "R2Score",
    "Recall",
    "RecallAtPrecision",
    "RootMeanSquaredError",
    "SensitivityAtSpecificity",
    "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy",
    "SpecificityAtSensitivity",
    "SquaredHinge",
    "Sum",
    "TopKCategoricalAccuracy",
    "TrueNegatives",
    "TruePositives",
    "accuracy",
    "binary_accuracy",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_accuracy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "cosine",
    "cosine_proximity",
    "deserialize",
    "get",
    "hinge",
    "kl_divergence",
    "kld",
    "kullback_leibler_divergence",
    "log_cosh",
    "logcosh",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "mse",
    "msle",
    "poisson",
    "serialize",
    "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy",
    "squared_hinge",
    "top_k_categorical_accuracy",
]

mean_squared_error = mse = MSE = losses.mean_squared_error
mean_absolute_error = mae = MAE = losses.mean_absolute_error
binary_crossentropy = losses.binary_crossentropy
categorical_crossentropy = losses.categorical_crossentropy
sparse_categorical_crossentropy = losses.sparse_categorical_crossentropy
hinge = losses.hinge
kl_divergence = kld = KLD = kullback_leibler_divergence = losses.kl_divergence
squared_hinge = losses.squared_hinge
poisson = losses.poisson
log_cosh = logcosh = losses.log_cosh
mean_absolute_percentage_error = mape = MAPE = losses.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = losses.mean_squared_logarithmic_error
binary_focal_crossentropy = losses.binary_focal_crossentropy
categorical_focal_crossentropy = losses.categorical_focal_crossentropy
# TF's ``tf.keras.metrics.cosine``/``cosine_proximity`` are the loss (the negative
# similarity); ``CosineSimilarity`` averages the positive one (``_cosine_similarity``).
cosine = cosine_proximity = losses.cosine_similarity


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


def _sparse_top_k_matches(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    """Keras' ``sparse_top_k_categorical_matches``: ``in_top_k(y_pred, y_true, k)``
    (floatx), ``y_pred`` flattened to ``[-1, classes]``, ``y_true`` to ``[-1]`` and the
    matches back to ``y_true``'s shape."""
    y_true = ops.convert_to_tensor(y_true)
    y_pred = ops.convert_to_tensor(y_pred)
    reshape = False
    true_shape = op("shape")(y_true)
    if y_true.shape.ndims is not None and y_pred.shape.ndims is not None:
        if y_pred.shape.ndims > 2:
            y_pred = op("reshape")(y_pred, [-1, y_pred.shape.as_list()[-1]])
        if y_true.shape.ndims > 1:
            reshape = True
            y_true = op("reshape")(y_true, [-1])
    found = op("math.in_top_k")(predictions=y_pred, targets=op("cast")(y_true, "int32"), k=k)
    matches = op("cast")(found, backend.floatx())
    return op("reshape")(matches, true_shape) if reshape else matches


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    """Whether the one-hot label's class is among the ``k`` highest predictions (floatx),
    one per example.

    Args:
      y_true: the one-hot labels.
      y_pred: the predictions.
      k: how many top predictions count (TF's default 5).

    Returns:
      1.0 where the label's ``argmax`` is in the top ``k``, else 0.0.
    """
    return _sparse_top_k_matches(op("argmax")(y_true, axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    """Whether the integer label is among the ``k`` highest predictions (floatx).

    Args:
      y_true: the integer labels (a trailing axis of 1 is kept in the result's shape).
      y_pred: the predictions.
      k: how many top predictions count (TF's default 5).

    Returns:
      1.0 where the label is in the top ``k``, else 0.0, in ``y_true``'s shape.
    """
    return _sparse_top_k_matches(y_true, y_pred, k)


def _cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Keras' metric ``cosine_similarity``: ``sum(l2_normalize(y_true) *
    l2_normalize(y_pred), axis)`` (the loss's is its negative)."""
    y_true = op("math.l2_normalize")(y_true, axis=axis)
    y_pred = op("math.l2_normalize")(y_pred, axis=axis)
    return op("reduce_sum")(op("multiply")(y_true, y_pred), axis=axis)


_cosine_similarity.__name__ = "cosine_similarity"  # TF's name (serialize gives it)


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


def _last_update(updates: list[Any]) -> Any:
    """What TF's graph-mode Keras returns from an ``update_state`` that assigns several
    variables without returning an op: the graph's last op, here the last update's.

    .. note:: So in a TF1 graph only that last update runs when the returned op (or the
       metric's call) runs; the other updates are built and never run (TF 2.21's
       ``FBetaScore``, ``F1Score``, ``R2Score``).
    """
    return _as_op(updates[-1])


def _reset_not_run(metric: Metric) -> None:
    """What TF's ``v.assign(zeros)`` resets do in a TF1 graph: build the assign ops,
    run none (TF 2.21's ``FBetaScore``, ``F1Score``, ``R2Score``: the state is kept)."""
    for variable in metric.variables:
        variable.assign(op("zeros")(variable.shape, dtype=variable.dtype.base_dtype))


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

Hinge = _wrapper(
    "Hinge", hinge, "hinge", "The hinge metric: ``mean(max(1 - y_true * y_pred, 0))``."
)
SquaredHinge = _wrapper("SquaredHinge", squared_hinge, "squared_hinge", "The squared hinge metric.")
CategoricalHinge = _wrapper(
    "CategoricalHinge",
    losses.categorical_hinge,
    "categorical_hinge",
    "The categorical hinge metric (TF's compat.v1 has no ``categorical_hinge`` function).",
)
KLDivergence = _wrapper(
    "KLDivergence",
    kl_divergence,
    "kullback_leibler_divergence",
    "The Kullback-Leibler divergence (TF's default name ``kullback_leibler_divergence``).",
)
Poisson = _wrapper("Poisson", poisson, "poisson", "The Poisson metric.")
LogCoshError = _wrapper(
    "LogCoshError", log_cosh, "logcosh", "The log-cosh error (TF's default name ``logcosh``)."
)
MeanAbsolutePercentageError = _wrapper(
    "MeanAbsolutePercentageError",
    mean_absolute_percentage_error,
    "mean_absolute_percentage_error",
    "The mean absolute percentage error.",
)
MeanSquaredLogarithmicError = _wrapper(
    "MeanSquaredLogarithmicError",
    mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error",
    "The mean squared logarithmic error.",
)
CosineSimilarity = _wrapper(
    "CosineSimilarity",
    _cosine_similarity,
    "cosine_similarity",
    "The mean cosine similarity (positive, unlike the loss), along ``axis`` (default -1).",
    axis=-1,
)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the top ``k`` predictions.

    Args:
      k: how many top predictions count (TF's default 5).
      name: the metric's name (TF's default ``'top_k_categorical_accuracy'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
    """

    def __init__(self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype: Any = None):
        super().__init__(top_k_categorical_accuracy, name, dtype=dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the top ``k`` predictions.

    Args:
      k: how many top predictions count (TF's default 5).
      name: the metric's name (TF's default ``'sparse_top_k_categorical_accuracy'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
    """

    def __init__(
        self, k: int = 5, name: str = "sparse_top_k_categorical_accuracy", dtype: Any = None
    ):
        super().__init__(_sparse_top_k_matches, name, dtype=dtype, k=k)


class RootMeanSquaredError(Mean):
    """``sqrt`` of the (weighted) mean of ``squared_difference(y_pred, y_true)``.

    Args:
      name: the metric's name (TF's default ``'root_mean_squared_error'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
    """

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None):
        super().__init__(name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:  # type: ignore[override]
        """Adds the batch's squared errors to the mean.

        Args:
          y_true: the targets.
          y_pred: the predictions.
          sample_weight: optional weights (TF's default ``None``).

        Returns:
          The update op.
        """
        from adapters.v1.keras.training import _squeeze_or_expand

        y_true = op("cast")(y_true, self._dtype)
        y_pred = op("cast")(y_pred, self._dtype)
        y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
        error_sq = op("math.squared_difference")(y_pred, y_true)
        return super().update_state(error_sq, sample_weight=sample_weight)

    def result(self) -> Any:
        """``sqrt(div_no_nan(total, count))``."""
        value = op("div_no_nan")(self.total.read_value(), self.count.read_value())
        return array_ops.identity(op("sqrt")(value))


class MeanRelativeError(Mean):
    """The (weighted) mean of ``div_no_nan(|y_true - y_pred|, normalizer)``.

    Args:
      normalizer: values of the predictions' shape (cast to the dtype when built).
      name: the metric's name (TF's default ``None``: ``mean_relative_error``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: predictions whose shape is not the labels' (TF's message).
    """

    def __init__(self, normalizer: Any, name: str | None = None, dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.normalizer = op("cast")(normalizer, self._dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:  # type: ignore[override]
        """Adds the batch's relative errors to the mean.

        Args:
          y_true: the targets.
          y_pred: the predictions.
          sample_weight: optional weights (TF's default ``None``).

        Returns:
          The update op.
        """
        from adapters.v1.keras.training import _squeeze_or_expand

        y_true = op("cast")(y_true, self._dtype)
        y_pred = op("cast")(y_pred, self._dtype)
        y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
        self.normalizer, y_pred = _squeeze_or_expand(self.normalizer, y_pred)
        y_pred.shape.assert_is_compatible_with(y_true.shape)
        errors = op("div_no_nan")(op("abs")(op("subtract")(y_true, y_pred)), self.normalizer)
        return super().update_state(errors, sample_weight=sample_weight)

    def get_config(self) -> dict[str, Any]:
        """The name, dtype and the normalizer's value (in Keras' session)."""
        return {**super().get_config(), "normalizer": backend.get_value(self.normalizer)}


def _check_2d(cls_name: str, y_true_shape: Any, y_pred_shape: Any) -> int:
    """The classes of 2-D inputs (Keras' ``FBetaScore``/``R2Score`` ``build``).

    Raises:
      ValueError: inputs not of rank 2, or of an unknown last dimension (TF's messages).
    """
    shapes = f"y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}."
    expects = f"{cls_name} expects 2D inputs with shape (batch_size, output_dim)"
    if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
        raise ValueError(f"{expects}. Received input shapes: {shapes}")
    if y_pred_shape[-1] is None or y_true_shape[-1] is None:
        raise ValueError(
            f"{expects}, with output_dim fully defined (not None). Received input shapes: {shapes}"
        )
    return int(y_pred_shape[-1])


_R2_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """The coefficient of determination ``1 - SS_res / SS_tot`` per output column,
    aggregated (Keras' ``R2Score``).

    Args:
      class_aggregation: ``'uniform_average'`` (the mean of the columns'),
        ``'variance_weighted_average'`` (weighted by their ``SS_tot``) or ``None``
        (one per column) (TF's default ``'uniform_average'``).
      num_regressors: the regressors of an adjusted R2 (TF's default 0).
      name: the metric's name (TF's default ``'r2_score'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: an unknown ``class_aggregation``, a negative ``num_regressors``;
        (at the first update) inputs not of rank 2 or of an unknown last dimension
        (TF's messages).
      TypeError: ``result()`` with ``num_regressors``: TF compares it with the
        ``num_samples`` variable as a Python bool (``OperatorNotAllowedInGraphError``).

    .. note:: In a TF1 graph TF 2.21's update runs only its last assignment (of the
       int32 ``num_samples``, the number of elements): ``sum``, ``squared_sum``,
       ``residual`` and ``count`` stay 0 and the result is NaN; ``reset_state()``
       builds assignments and runs none. As TF's.
    """

    def __init__(
        self,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        name: str = "r2_score",
        dtype: Any = None,
    ):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _R2_AGGREGATIONS:
            raise ValueError(
                "Invalid value for argument `class_aggregation`. Expected one of "
                f"{_R2_AGGREGATIONS}. Received: class_aggregation={class_aggregation}"
            )
        if num_regressors < 0:
            raise ValueError(
                "Invalid value for argument `num_regressors`. Expected a value >= 0. "
                f"Received: num_regressors={num_regressors}"
            )
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_weight("num_samples", dtype="int32")
        self.built = False

    def build(self, y_true_shape: Any, y_pred_shape: Any) -> None:
        """Creates the per-column state for 2-D inputs."""
        shape = (_check_2d("R2Score", y_true_shape, y_pred_shape),)
        self.squared_sum = self.add_weight("squared_sum", shape=shape, initializer="zeros")
        self.sum = self.add_weight("sum", shape=shape, initializer="zeros")
        self.total_mse = self.add_weight("residual", shape=shape, initializer="zeros")
        self.count = self.add_weight("count", shape=shape, initializer="zeros")
        self.built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's (weighted) sums per column and its number of elements.

        Args:
          y_true: the ``[batch, outputs]`` targets (of the metric's dtype).
          y_pred: the predictions, of the same dtype.
          sample_weight: optional weights, one per example or broadcast to the targets
            (TF's default ``None``: 1).

        Returns:
          The last update op (``num_samples``'s: TF's graph-mode Keras' return).

        Raises:
          ValueError: inputs of another dtype or not of rank 2 (TF's messages).
        """
        y_true = ops.convert_to_tensor(y_true, dtype=self._dtype)
        y_pred = ops.convert_to_tensor(y_pred, dtype=self._dtype)
        if not self.built:
            self.build(y_true.shape, y_pred.shape)
        weight = ops.convert_to_tensor(1 if sample_weight is None else sample_weight, self._dtype)
        if weight.shape.ndims == 1:
            weight = op("expand_dims")(weight, axis=1)
        weight = _broadcast_weights(weight, y_true)
        weighted = op("multiply")(y_true, weight)
        residual = op("multiply")(op("pow")(op("subtract")(y_true, y_pred), 2), weight)
        return _last_update(
            [
                self.sum.assign_add(op("reduce_sum")(weighted, axis=0)),
                self.squared_sum.assign_add(
                    op("reduce_sum")(op("multiply")(y_true, weighted), axis=0)
                ),
                self.total_mse.assign_add(op("reduce_sum")(residual, axis=0)),
                self.count.assign_add(op("reduce_sum")(weight, axis=0)),
                self.num_samples.assign_add(op("size")(y_true)),
            ]
        )

    def result(self) -> Any:
        """The aggregated ``1 - residual / (squared_sum - sum * sum / count)`` (an
        infinite column's score is 0).

        Raises:
          TypeError: ``num_regressors`` given (TF's graph-mode error).
        """
        mean = op("truediv")(self.sum.read_value(), self.count.read_value())
        total = op("subtract")(
            self.squared_sum.read_value(), op("multiply")(self.sum.read_value(), mean)
        )
        raw = 1 - op("truediv")(self.total_mse.read_value(), total)
        raw = op("where_v2")(op("math.is_inf")(raw), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            score = op("reduce_mean")(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = op("truediv")(
                op("reduce_sum")(op("multiply")(total, raw)), op("reduce_sum")(total)
            )
        else:
            score = raw
        if self.num_regressors != 0:
            raise TypeError(
                f"R2Score(num_regressors={self.num_regressors}).result(): TF's Keras "
                "compares num_regressors with the num_samples variable as a Python bool, "
                "which is not allowed in a graph (OperatorNotAllowedInGraphError)"
            )
        return array_ops.identity(score)

    def reset_state(self) -> None:
        """Builds assignments of zeros and runs none (TF's graph-mode ``reset_state``)."""
        _reset_not_run(self)

    def get_config(self) -> dict[str, Any]:
        """The name, dtype, ``class_aggregation`` and ``num_regressors``."""
        return {
            **super().get_config(),
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }


# What ``get``/``deserialize`` resolve: TF's module names (not ``kld``, ``cosine``,
# the focal cross-entropies: TF's ``get`` does not know them either).
_BY_NAME: dict[str, Any] = {
    "accuracy": accuracy,
    "acc": accuracy,
    "ACC": accuracy,
    "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
    "mean_squared_error": mean_squared_error,
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error,
    "msle": mean_squared_logarithmic_error,
    "MSLE": mean_squared_logarithmic_error,
    "binary_crossentropy": binary_crossentropy,
    "bce": binary_crossentropy,
    "BCE": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "hinge": hinge,
    "squared_hinge": squared_hinge,
    "categorical_hinge": losses.categorical_hinge,
    "kullback_leibler_divergence": kl_divergence,
    "poisson": poisson,
    "logcosh": log_cosh,
    "log_cosh": log_cosh,
    "cosine_similarity": _cosine_similarity,
    "cosine_proximity": _cosine_similarity,
}

_CLASSES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        Accuracy,
        BinaryAccuracy,
        BinaryCrossentropy,
        CategoricalAccuracy,
        CategoricalCrossentropy,
        CategoricalHinge,
        CosineSimilarity,
        Hinge,
        KLDivergence,
        LogCoshError,
        Mean,
        MeanAbsoluteError,
        MeanAbsolutePercentageError,
        MeanRelativeError,
        MeanSquaredError,
        MeanSquaredLogarithmicError,
        MeanTensor,
        Poisson,
        R2Score,
        RootMeanSquaredError,
        SparseCategoricalAccuracy,
        SparseCategoricalCrossentropy,
        SparseTopKCategoricalAccuracy,
        SquaredHinge,
        Sum,
        TopKCategoricalAccuracy,
    )
}


def _unknown(name: Any) -> ValueError:
    return ValueError(
        f"Unknown metric function: '{name}'. Please ensure you are using a "
        "`keras.utils.custom_object_scope` and that this object is included in the scope. "
        "See https://www.tensorflow.org/guide/keras/save_and_serialize"
        "#registering_the_custom_object for details."
    )


def serialize(metric: Any, use_legacy_format: bool = False) -> Any:
    """TF1's serialization of ``metric``: a metric as ``{'class_name': ..., 'config':
    metric.get_config()}``, a metric function as its name, ``None`` as ``None``.

    Args:
      metric: a metric of this module's classes, or one of its metric functions.
      use_legacy_format: accepted; TF1 graphs get the legacy format either way.

    Returns:
      The config dict, or the function's name.

    Raises:
      ValueError: a metric of another class (adapters.v1 serializes only its own), or
        neither a metric nor a named function.
    """
    del use_legacy_format  # TF's format under TF1 behaviour is the legacy one
    if metric is None:
        return None
    if isinstance(metric, Metric):
        class_name = type(metric).__name__
        if _CLASSES.get(class_name) is not type(metric):
            raise ValueError(
                f"tf.keras.metrics.serialize: {class_name} is not one of tf.keras.metrics' "
                "classes; adapters.v1 serializes only those"
            )
        return {"class_name": class_name, "config": metric.get_config()}
    name = getattr(metric, "__name__", None)
    if not callable(metric) or name is None:
        raise ValueError(f"tf.keras.metrics.serialize: cannot serialize {metric!r}")
    return name


def deserialize(
    config: Any, custom_objects: dict[str, Any] | None = None, use_legacy_format: bool = False
) -> Any:
    """The metric ``config`` describes: a function's or class's name (a class is built
    with its defaults), or a ``{'class_name', 'config'}`` dict (``from_config``). Names
    only, never evaluated.

    Args:
      config: a name or a config dict.
      custom_objects: more names (looked up first).
      use_legacy_format: accepted; both formats are read.

    Returns:
      A metric function or a metric instance.

    Raises:
      ValueError: an unknown name (TF's message), a dict without ``class_name``.
    """
    del use_legacy_format
    custom = dict(custom_objects or {})

    def lookup(key: Any) -> Any:
        if isinstance(key, str):
            for table in (custom, _CLASSES, _BY_NAME):
                if key in table:
                    return table[key]
        raise _unknown(key)

    if isinstance(config, dict):
        if "class_name" not in config:
            raise ValueError(f"Unknown `config` as a `dict`, config={config}")
        found = lookup(config["class_name"])
        if isinstance(found, type):
            return found.from_config(dict(config.get("config") or {}))
        return found
    found = lookup(config)
    return found() if isinstance(found, type) else found


def get(identifier: Any) -> Any:
    """The metric ``identifier`` names (a function, or an instance of a named class), the
    one a config dict describes, or the callable itself.

    Args:
      identifier: a name, a config dict or a callable.

    Returns:
      A metric function or a metric instance.

    Raises:
      ValueError: an unknown name (TF's message) or anything else.
    """
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


from adapters.v1.keras.confusion_metrics import (  # noqa: E402 (they build on Metric)
    AUC,
    FalseNegatives,
    FalsePositives,
    Precision,
    PrecisionAtRecall,
    Recall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
    TrueNegatives,
    TruePositives,
)
from adapters.v1.keras.f_score_metrics import F1Score, FBetaScore  # noqa: E402
from adapters.v1.keras.iou_metrics import (  # noqa: E402
    BinaryIoU,
    IoU,
    MeanIoU,
    OneHotIoU,
    OneHotMeanIoU,
)

_CLASSES.update(
    (cls.__name__, cls)
    for cls in (
        AUC,
        BinaryIoU,
        F1Score,
        FBetaScore,
        FalseNegatives,
        FalsePositives,
        IoU,
        MeanIoU,
        OneHotIoU,
        OneHotMeanIoU,
        Precision,
        PrecisionAtRecall,
        Recall,
        RecallAtPrecision,
        SensitivityAtSpecificity,
        SpecificityAtSensitivity,
        TrueNegatives,
        TruePositives,
    )
)

__getattr__ = missing_name_getattr("tf.keras.metrics", globals())
