"""``tf.keras.losses`` (legacy Keras 2): the loss functions and their classes, on graph tensors.

The functions return one loss per example (the mean or sum over the last axis):
``mean_squared_error`` is ``mean(squared_difference(y_pred, y_true), -1)``;
the cross-entropies clip probabilities to ``[epsilon, 1 - epsilon]``
(``epsilon()`` 1e-7) unless ``from_logits``, and, as TF's, read the logits
behind a ``Softmax`` (``Sigmoid`` for binary) op given as ``y_pred``.

A class instance (``MeanSquaredError(reduction='auto', name=...)``) computes the
function under its name scope, weights it by ``sample_weight`` and reduces it
under ``weighted_loss``: ``auto``/``sum_over_batch_size`` is
``div_no_nan(sum, number of elements)`` (``mean_squared_error/weighted_loss/value``),
``sum`` the sum, ``none`` the weighted losses.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import ops, shape_values
from adapters.v1.keras import backend
from adapters.v1.keras.serialization import custom_objects_in_scope
from adapters.v1.layers.base import op, passed_arguments
from adapters.v1.ops.constant_op import constant

__all__ = [
    "KLD",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "BinaryCrossentropy",
    "BinaryFocalCrossentropy",
    "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy",
    "CategoricalHinge",
    "CosineSimilarity",
    "Hinge",
    "Huber",
    "KLDivergence",
    "LogCosh",
    "Loss",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "SparseCategoricalCrossentropy",
    "SquaredHinge",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "cosine",
    "cosine_proximity",
    "cosine_similarity",
    "deserialize",
    "get",
    "hinge",
    "huber",
    "kl_divergence",
    "kld",
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
    "sparse_categorical_crossentropy",
    "squared_hinge",
]

_REDUCTIONS = ("auto", "none", "sum", "sum_over_batch_size")


def _pred_true(y_true: Any, y_pred: Any) -> tuple[Any, Any]:
    y_pred = ops.convert_to_tensor(y_pred)
    return op("cast")(y_true, y_pred.dtype), y_pred


def _epsilon(dtype: Any) -> Any:
    return constant(backend.epsilon(), dtype=dtype.base_dtype)


def _get_logits(output: Any, from_logits: bool, op_type: str) -> tuple[Any, bool]:
    """TF's rule: the input of a ``Softmax``/``Sigmoid`` op given as probabilities is
    used as logits."""
    producer = getattr(output, "op", None)
    if producer is not None and getattr(producer, "type", None) == op_type:
        inputs = list(producer.inputs)
        if len(inputs) == 1:
            return inputs[0], True
    return output, from_logits


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(y_pred - y_true), axis=-1)``."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    return backend.mean(op("math.squared_difference")(y_pred, y_true), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    """``mean(abs(y_pred - y_true), axis=-1)``."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    return backend.mean(op("abs")(op("subtract")(y_pred, y_true)), axis=-1)


def hinge(y_true: Any, y_pred: Any) -> Any:
    """``mean(max(1 - y_true * y_pred, 0), -1)``; 0/1 labels become -1/1."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _convert_binary_labels(y_true)
    return backend.mean(
        op("maximum")(op("subtract")(1.0, op("multiply")(y_true, y_pred)), 0.0), axis=-1
    )


def _convert_binary_labels(y_true: Any) -> Any:
    # TF: labels all in {0, 1} are mapped to {-1, 1}, decided when the graph runs.
    is_binary = op("reduce_all")(
        op("logical_or")(op("equal")(y_true, 0.0), op("equal")(y_true, 1.0))
    )
    return op("where_v2")(is_binary, 2.0 * y_true - 1.0, y_true)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    """Per example: the mean of ``0.5 e^2`` where ``|e| <= delta``, else
    ``delta |e| - 0.5 delta^2``."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    delta_t = constant(delta, dtype=y_pred.dtype)
    error = op("subtract")(y_pred, y_true)
    abs_error = op("abs")(error)
    half = constant(0.5, dtype=abs_error.dtype)
    return backend.mean(
        op("where_v2")(
            op("less_equal")(abs_error, delta_t),
            op("multiply")(half, op("square")(error)),
            op("subtract")(
                op("multiply")(delta_t, abs_error), op("multiply")(half, op("square")(delta_t))
            ),
        ),
        axis=-1,
    )


def kl_divergence(y_true: Any, y_pred: Any) -> Any:
    """``sum(y_true * log(y_true / y_pred), -1)`` with both clipped to ``[epsilon, 1]``."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    eps = backend.epsilon()
    y_true = op("clip_by_value")(y_true, eps, 1)
    y_pred = op("clip_by_value")(y_pred, eps, 1)
    return op("reduce_sum")(
        op("multiply")(y_true, op("log")(op("truediv")(y_true, y_pred))), axis=-1
    )


def categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """``-sum(y_true * log(y_pred), axis)`` (probabilities rescaled to sum to 1 and
    clipped), or ``softmax_cross_entropy_with_logits`` when ``from_logits``.

    Raises:
      ValueError: ``y_pred`` with a last dimension of 1 (TF's message).
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    if y_pred.shape.ndims and y_pred.shape.as_list()[-1] == 1:
        raise ValueError(
            "Expected y_pred.shape to be (batch_size, num_classes) with num_classes > 1. "
            f"Received: y_pred.shape={y_pred.shape}. Consider using 'binary_crossentropy' "
            "if you only have 2 classes."
        )
    if label_smoothing:
        smoothing = constant(label_smoothing, dtype=y_pred.dtype)
        classes = op("cast")(op("shape")(y_true)[-1], y_pred.dtype)
        y_true = op("add")(
            op("multiply")(y_true, op("subtract")(1.0, smoothing)),
            op("truediv")(smoothing, classes),
        )
    return _categorical(y_true, y_pred, from_logits, axis)


def _categorical(y_true: Any, y_pred: Any, from_logits: bool, axis: int) -> Any:
    """Keras' backend ``categorical_crossentropy``."""
    output, from_logits = _get_logits(y_pred, from_logits, "Softmax")
    if from_logits:
        return op("nn.softmax_cross_entropy_with_logits_v2")(
            labels=y_true, logits=output, axis=axis
        )
    output = op("truediv")(output, op("reduce_sum")(output, axis, keepdims=True))
    eps = _epsilon(output.dtype)
    output = op("clip_by_value")(output, eps, op("subtract")(1.0, eps))
    return op("negative")(op("reduce_sum")(op("multiply")(y_true, op("log")(output)), axis))


def sparse_categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    axis: int = -1,
    ignore_class: int | None = None,
) -> Any:
    """``sparse_softmax_cross_entropy_with_logits`` of the integer ``y_true`` and the logits
    (``log`` of the clipped probabilities unless ``from_logits``).

    Raises:
      NotImplementedError: ``ignore_class``, or ``axis`` other than the last.
    """
    if ignore_class is not None:
        raise NotImplementedError(
            "tf.keras.losses.sparse_categorical_crossentropy: "
            "ignore_class is not supported by adapters.v1; weight the "
            "losses with sample_weight"
        )
    y_pred = ops.convert_to_tensor(y_pred)
    target = op("cast")(y_true, "int64")
    output, from_logits = _get_logits(y_pred, from_logits, "Softmax")
    if not from_logits:
        eps = _epsilon(output.dtype)
        output = op("log")(op("clip_by_value")(output, eps, op("subtract")(1.0, eps)))
    rank = output.shape.ndims
    if rank is not None and axis % rank != rank - 1:
        raise NotImplementedError(
            "tf.keras.losses.sparse_categorical_crossentropy: only the "
            "last axis holds classes in adapters.v1; transpose y_pred"
        )
    t_rank = target.shape.ndims
    reshape = rank is not None and t_rank is not None and t_rank != rank - 1
    if reshape:
        out_shape = op("shape")(output)
        target = op("reshape")(target, [-1])
        output = op("reshape")(output, op("stack")([-1, out_shape[-1]]))
    result = op("nn.sparse_softmax_cross_entropy_with_logits")(labels=target, logits=output)
    if reshape and rank is not None and rank >= 3:
        result = op("reshape")(result, out_shape[:-1])
    return result


def binary_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """``mean(-(y log(p + eps) + (1 - y) log(1 - p + eps)), axis)`` with ``p`` clipped, or
    ``sigmoid_cross_entropy_with_logits`` when ``from_logits``."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        smoothing = constant(label_smoothing, dtype=y_pred.dtype)
        y_true = op("add")(
            op("multiply")(y_true, op("subtract")(1.0, smoothing)), op("multiply")(0.5, smoothing)
        )
    return backend.mean(_binary(y_true, y_pred, from_logits), axis=axis)


def _binary(y_true: Any, y_pred: Any, from_logits: bool) -> Any:
    """Keras' backend ``binary_crossentropy`` (element-wise)."""
    output, from_logits = _get_logits(y_pred, from_logits, "Sigmoid")
    if from_logits:
        bce = op("nn.sigmoid_cross_entropy_with_logits")(labels=y_true, logits=output)
    else:
        eps = _epsilon(output.dtype)
        output = op("clip_by_value")(output, eps, op("subtract")(1.0, eps))
        bce = op("multiply")(y_true, op("log")(op("add")(output, backend.epsilon())))
        bce = op("add")(
            bce,
            op("multiply")(
                op("subtract")(1.0, y_true),
                op("log")(op("add")(op("subtract")(1.0, output), backend.epsilon())),
            ),
        )
        bce = op("negative")(bce)
    return bce


def _pushes_down(x: Any, y: Any) -> bool:
    """Whether grappler's ``ConstantPushDown`` rewrites ``(x op y) op2 c`` (a constant
    ``c``, ``x op y`` read once): not in float16/bfloat16, nor where ``x`` and ``y``
    both fold to constants (the whole expression folds, in the graph's order)."""
    if x.dtype.base_dtype.name in ("float16", "bfloat16"):
        return False
    return not (shape_values.is_static(x) and shape_values.is_static(y))


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    """``100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), epsilon)), -1)``."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    diff = op("abs")((y_true - y_pred) / op("maximum")(op("abs")(y_true), backend.epsilon()))
    return 100.0 * backend.mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(log(maximum(y_pred, eps) + 1) - log(maximum(y_true, eps) + 1)), -1)``."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    eps = backend.epsilon()
    first_log = op("log")(op("maximum")(y_pred, eps) + 1.0)
    second_log = op("log")(op("maximum")(y_true, eps) + 1.0)
    return backend.mean(op("math.squared_difference")(first_log, second_log), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(max(1 - y_true * y_pred, 0)), -1)``; 0/1 labels become -1/1."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _convert_binary_labels(y_true)
    return backend.mean(op("square")(op("maximum")(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    """``maximum(neg - pos + 1, 0)``: ``pos = sum(y_true * y_pred, -1)``,
    ``neg = max((1 - y_true) * y_pred, -1)``.

    Added as TF runs it: grappler's constant folding pushes the constant down
    (``ConstantPushDown``: ``(neg - pos) + 1`` becomes ``neg + (1 - pos)``); not in
    float16 or where the loss folds to a constant.
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    pos = op("reduce_sum")(y_true * y_pred, axis=-1)
    neg = op("reduce_max")((1.0 - y_true) * y_pred, axis=-1)
    zero = op("cast")(0.0, y_pred.dtype)
    if _pushes_down(neg, pos):
        return op("maximum")(neg + (1.0 - pos), zero)
    return op("maximum")(neg - pos + 1.0, zero)


def log_cosh(y_true: Any, y_pred: Any) -> Any:
    """``mean(x + softplus(-2x) - log(2), -1)`` of ``x = y_pred - y_true`` (``log(2)``
    computed in float32 and cast, as TF's).

    Added as TF runs it: grappler sorts the inputs of ``x + softplus`` by name
    (``Softplus`` before ``sub``), then its constant folding pushes the constant
    ``log(2)`` down to the second (``ConstantPushDown``): ``softplus + (x - log(2))``;
    not in float16 or where ``x`` folds to a constant (the whole loss does).
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    x = y_pred - y_true
    log2 = op("cast")(op("log")(constant(2.0)), x.dtype)
    softplus = op("nn.softplus")(-2.0 * x)
    if _pushes_down(softplus, x):
        value = softplus + (x - log2)
    else:
        value = x + softplus - log2
    return backend.mean(value, axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    """``mean(y_pred - y_true * log(y_pred + epsilon), -1)``."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    return backend.mean(y_pred - y_true * op("log")(y_pred + backend.epsilon()), axis=-1)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """``-sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis)`` (``y_true``
    is not cast to ``y_pred``'s dtype, as TF's)."""
    y_true = op("math.l2_normalize")(y_true, axis=axis)
    y_pred = op("math.l2_normalize")(y_pred, axis=axis)
    return -op("reduce_sum")(y_true * y_pred, axis=axis)


def binary_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """``mean((1 - p_t)^gamma * bce, axis)``, ``p_t`` the probability of the true label
    (``sigmoid(y_pred)`` when ``from_logits``), ``bce`` ``binary_crossentropy``'s
    element-wise loss; with ``apply_class_balancing`` weighted by ``alpha`` (label 1)
    or ``1 - alpha`` (label 0)."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        smoothing = constant(label_smoothing, dtype=y_pred.dtype)
        y_true = y_true * (1.0 - smoothing) + 0.5 * smoothing
    return backend.mean(
        _binary_focal(y_true, y_pred, apply_class_balancing, alpha, gamma, from_logits),
        axis=axis,
    )


def _binary_focal(
    target: Any,
    output: Any,
    apply_class_balancing: bool,
    alpha: float,
    gamma: float,
    from_logits: bool,
) -> Any:
    """Keras' backend ``binary_focal_crossentropy`` (element-wise) as TF runs it.

    Grappler sorts the inputs of ``p_t = target * p + (1 - target) * (1 - p)`` by name
    (``mul``, ``mul_1``) and pushes the constant of ``1 - p_t`` down
    (``ConstantPushDown``): ``(1 - mul_1) - mul``. A constant class-balancing weight
    goes into the product the same way: ``x * (weight * y)``, ``x`` the first by name of
    ``Pow`` and the cross-entropy (``logistic_loss`` from logits, ``Neg`` otherwise).
    """
    sigmoidal = op("sigmoid")(output) if from_logits else output
    first = target * sigmoidal
    second = (1 - target) * (1 - sigmoidal)
    if _pushes_down(first, second):
        focal_factor = op("pow")(1.0 - second - first, gamma)
    else:
        focal_factor = op("pow")(1.0 - (first + second), gamma)
    bce = _binary(target, output, from_logits)
    if not apply_class_balancing:
        return focal_factor * bce
    # ``1 - alpha`` in Python (double), as TF's.
    weight = target * alpha + (1 - target) * (1 - alpha)
    if shape_values.is_static(weight) and _pushes_down(focal_factor, bce):
        if _get_logits(output, from_logits, "Sigmoid")[1]:
            return focal_factor * (weight * bce)
        return bce * (weight * focal_factor)
    return weight * (focal_factor * bce)


def categorical_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """``sum(alpha * (1 - p)^gamma * -y_true * log(p), axis)`` with ``p`` the probabilities
    rescaled to sum to 1 and clipped (``softmax(y_pred, axis)`` when ``from_logits``).

    Raises:
      ValueError: ``axis`` a bool, or ``y_true`` and ``y_pred`` of incompatible shapes.
    """
    if isinstance(axis, bool):
        raise ValueError(
            f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}"
        )
    y_true, y_pred = _pred_true(y_true, y_pred)
    if y_pred.shape.ndims and y_pred.shape.as_list()[-1] == 1:
        warnings.warn(
            "In loss categorical_focal_crossentropy, expected y_pred.shape to be "
            "(batch_size, num_classes) with num_classes > 1. Received: "
            f"y_pred.shape={y_pred.shape}. Consider using 'binary_crossentropy' if you "
            "only have 2 classes.",
            SyntaxWarning,
            stacklevel=2,
        )
    if label_smoothing:
        smoothing = constant(label_smoothing, dtype=y_pred.dtype)
        classes = op("cast")(op("shape")(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - smoothing) + smoothing / classes
    return backend.categorical_focal_crossentropy(
        y_true, y_pred, alpha=alpha, gamma=gamma, from_logits=from_logits, axis=axis
    )


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
cosine = cosine_proximity = cosine_similarity


def _squeeze_or_expand(losses: Any, weight: Any) -> Any:
    l_rank, w_rank = losses.shape.ndims, weight.shape.ndims
    if l_rank is None or w_rank is None or w_rank == 0:
        return weight
    if w_rank - l_rank == 1 and weight.shape.as_list()[-1] in (1, None):
        return op("squeeze")(weight, [-1])
    if l_rank - w_rank == 1:
        return op("expand_dims")(weight, -1)
    return weight


def compute_weighted_loss(
    losses: Any, sample_weight: Any = None, reduction: str = "sum_over_batch_size"
) -> Any:
    """Keras' ``compute_weighted_loss``: ``losses * sample_weight`` reduced, under
    ``weighted_loss``."""
    with ops.get_default_graph().name_scope("weighted_loss"):
        losses = ops.convert_to_tensor(losses)
        input_dtype = losses.dtype
        if not losses.dtype.is_floating:
            losses = op("cast")(losses, "float32")
        weight = ops.convert_to_tensor(1.0 if sample_weight is None else sample_weight)
        weight = op("cast")(weight, losses.dtype)
        weight = _squeeze_or_expand(losses, weight)
        weighted = op("multiply")(losses, weight)
        if reduction == "none":
            loss = weighted
        else:
            loss = op("reduce_sum")(weighted)
            if reduction in ("auto", "sum_over_batch_size"):
                with ops.get_default_graph().name_scope("num_elements") as scope:
                    count = op("cast")(op("size")(weighted, name=scope), dtype=weighted.dtype)
                loss = op("div_no_nan")(loss, count, name="value")
        return op("cast")(loss, input_dtype)


class Loss:
    """The base of Keras' loss classes: ``loss(y_true, y_pred, sample_weight=None)``.

    Args (TF's defaults): reduction='auto' (``sum_over_batch_size``), name=None.

    Raises:
      ValueError: an unknown ``reduction``.
    """

    def __init__(self, reduction: str = "auto", name: str | None = None):
        if reduction not in _REDUCTIONS:
            raise ValueError(
                f'Invalid Reduction Key: {reduction}. Expected keys are "{_REDUCTIONS}"'
            )
        self.reduction = reduction
        self.name = name

    def call(self, y_true: Any, y_pred: Any) -> Any:
        raise NotImplementedError("Must be implemented in subclasses.")

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """The reduced, weighted loss (its name scope is the loss's ``name``)."""
        scope = self.name or type(self).__name__.lower()
        with ops.get_default_graph().name_scope(scope):
            losses = self.call(y_true, y_pred)
            return compute_weighted_loss(losses, sample_weight, self.reduction)

    def get_config(self) -> dict[str, Any]:
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """``cls(**config)``."""
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A loss class around a loss function and its keyword arguments."""

    def __init__(
        self,
        fn: Callable[..., Any],
        reduction: str = "auto",
        name: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        """TF's: ``reduction``, ``name``, the function's keyword arguments and ``fn``,
        the function's name."""
        return {**super().get_config(), **self._fn_kwargs, "fn": self.fn.__name__}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """``cls(**config)`` without ``fn`` (``LossFunctionWrapper`` itself: the loss
        function ``fn`` names)."""
        config = dict(config)
        fn_name = config.pop("fn", None)
        if fn_name and cls is LossFunctionWrapper:
            config["fn"] = get(fn_name)
        return cls(**config)


class MeanSquaredError(LossFunctionWrapper):
    """``mean_squared_error`` reduced (name 'mean_squared_error')."""

    def __init__(self, reduction: str = "auto", name: str = "mean_squared_error"):
        super().__init__(mean_squared_error, reduction=reduction, name=name)


class MeanAbsoluteError(LossFunctionWrapper):
    """``mean_absolute_error`` reduced (name 'mean_absolute_error')."""

    def __init__(self, reduction: str = "auto", name: str = "mean_absolute_error"):
        super().__init__(mean_absolute_error, reduction=reduction, name=name)


class CategoricalCrossentropy(LossFunctionWrapper):
    """``categorical_crossentropy`` reduced; Args (TF's defaults): from_logits=False,
    label_smoothing=0.0, axis=-1, reduction='auto', name='categorical_crossentropy'."""

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "auto",
        name: str = "categorical_crossentropy",
    ):
        super().__init__(categorical_crossentropy, **passed_arguments(locals()))


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """``sparse_categorical_crossentropy`` reduced; Args (TF's defaults): from_logits=False,
    ignore_class=None, reduction='auto', name='sparse_categorical_crossentropy'."""

    def __init__(
        self,
        from_logits: bool = False,
        ignore_class: int | None = None,
        reduction: str = "auto",
        name: str = "sparse_categorical_crossentropy",
    ):
        super().__init__(sparse_categorical_crossentropy, **passed_arguments(locals()))


class BinaryCrossentropy(LossFunctionWrapper):
    """``binary_crossentropy`` reduced; Args (TF's defaults): from_logits=False,
    label_smoothing=0.0, axis=-1, reduction='auto', name='binary_crossentropy'."""

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "auto",
        name: str = "binary_crossentropy",
    ):
        super().__init__(binary_crossentropy, **passed_arguments(locals()))


class Hinge(LossFunctionWrapper):
    """``hinge`` reduced (name 'hinge')."""

    def __init__(self, reduction: str = "auto", name: str = "hinge"):
        super().__init__(hinge, reduction=reduction, name=name)


class Huber(LossFunctionWrapper):
    """``huber`` reduced; Args (TF's defaults): delta=1.0, reduction='auto', name='huber_loss'."""

    def __init__(self, delta: float = 1.0, reduction: str = "auto", name: str = "huber_loss"):
        super().__init__(huber, **passed_arguments(locals()))


class KLDivergence(LossFunctionWrapper):
    """``kl_divergence`` reduced (name 'kl_divergence')."""

    def __init__(self, reduction: str = "auto", name: str = "kl_divergence"):
        super().__init__(kl_divergence, reduction=reduction, name=name)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """``mean_absolute_percentage_error`` reduced (name 'mean_absolute_percentage_error')."""

    def __init__(self, reduction: str = "auto", name: str = "mean_absolute_percentage_error"):
        super().__init__(mean_absolute_percentage_error, reduction=reduction, name=name)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """``mean_squared_logarithmic_error`` reduced (name 'mean_squared_logarithmic_error')."""

    def __init__(self, reduction: str = "auto", name: str = "mean_squared_logarithmic_error"):
        super().__init__(mean_squared_logarithmic_error, reduction=reduction, name=name)


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """``binary_focal_crossentropy`` reduced; Args (TF's defaults):
    apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
    label_smoothing=0.0, axis=-1, reduction='auto', name='binary_focal_crossentropy'."""

    def __init__(
        self,
        apply_class_balancing: bool = False,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "auto",
        name: str = "binary_focal_crossentropy",
    ):
        super().__init__(binary_focal_crossentropy, **passed_arguments(locals()))
        self.from_logits = from_logits
        self.apply_class_balancing = apply_class_balancing
        self.alpha = alpha
        self.gamma = gamma


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """``categorical_focal_crossentropy`` reduced; Args (TF's defaults): alpha=0.25,
    gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1, reduction='auto',
    name='categorical_focal_crossentropy'."""

    def __init__(
        self,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "auto",
        name: str = "categorical_focal_crossentropy",
    ):
        super().__init__(categorical_focal_crossentropy, **passed_arguments(locals()))
        self.from_logits = from_logits
        self.alpha = alpha
        self.gamma = gamma


class CosineSimilarity(LossFunctionWrapper):
    """``cosine_similarity`` reduced; Args (TF's defaults): axis=-1, reduction='auto',
    name='cosine_similarity'."""

    def __init__(self, axis: int = -1, reduction: str = "auto", name: str = "cosine_similarity"):
        super().__init__(cosine_similarity, **passed_arguments(locals()))


class SquaredHinge(LossFunctionWrapper):
    """``squared_hinge`` reduced (name 'squared_hinge')."""

    def __init__(self, reduction: str = "auto", name: str = "squared_hinge"):
        super().__init__(squared_hinge, reduction=reduction, name=name)


class CategoricalHinge(LossFunctionWrapper):
    """``categorical_hinge`` reduced (name 'categorical_hinge')."""

    def __init__(self, reduction: str = "auto", name: str = "categorical_hinge"):
        super().__init__(categorical_hinge, reduction=reduction, name=name)


class Poisson(LossFunctionWrapper):
    """``poisson`` reduced (name 'poisson')."""

    def __init__(self, reduction: str = "auto", name: str = "poisson"):
        super().__init__(poisson, reduction=reduction, name=name)


class LogCosh(LossFunctionWrapper):
    """``log_cosh`` reduced (name 'log_cosh')."""

    def __init__(self, reduction: str = "auto", name: str = "log_cosh"):
        super().__init__(log_cosh, reduction=reduction, name=name)


# The names TF's ``get``/``deserialize`` resolve (tf_keras' losses module's globals):
# loss functions, returned as they are...
_BY_NAME: dict[str, Any] = {
    "mean_squared_error": mean_squared_error,
    "mse": mse,
    "MSE": mse,
    "mean_absolute_error": mean_absolute_error,
    "mae": mae,
    "MAE": mae,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mape": mape,
    "MAPE": mape,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error,
    "msle": msle,
    "MSLE": msle,
    "categorical_crossentropy": categorical_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
    "bce": binary_crossentropy,
    "BCE": binary_crossentropy,
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "hinge": hinge,
    "squared_hinge": squared_hinge,
    "categorical_hinge": categorical_hinge,
    "huber": huber,
    "huber_loss": huber,
    "log_cosh": log_cosh,
    "logcosh": log_cosh,
    "kl_divergence": kl_divergence,
    "kld": kld,
    "KLD": kld,
    "kullback_leibler_divergence": kl_divergence,
    "poisson": poisson,
    "cosine_similarity": cosine_similarity,
}

# ... and loss classes, built from a config (a name alone: with their defaults).
_CLASSES: dict[str, type[Loss]] = {
    cls.__name__: cls
    for cls in (
        MeanSquaredError,
        MeanAbsoluteError,
        MeanAbsolutePercentageError,
        MeanSquaredLogarithmicError,
        BinaryCrossentropy,
        BinaryFocalCrossentropy,
        CategoricalCrossentropy,
        CategoricalFocalCrossentropy,
        SparseCategoricalCrossentropy,
        CosineSimilarity,
        Hinge,
        SquaredHinge,
        CategoricalHinge,
        Poisson,
        LogCosh,
        KLDivergence,
        Huber,
    )
}


def _unknown(name: Any) -> ValueError:
    return ValueError(
        f"Unknown loss function: {name!r}. Please ensure you are using a "
        "`keras.utils.custom_object_scope` and that this object is included in the scope. "
        "See https://www.tensorflow.org/guide/keras/save_and_serialize"
        "#registering_the_custom_object for details."
    )


def serialize(loss: Any, use_legacy_format: bool = False) -> Any:
    """TF's serialization of ``loss``: a ``Loss`` as ``{'module': 'keras.losses',
    'class_name': ..., 'config': loss.get_config(), 'registered_name': None}``
    (``{'class_name': ..., 'config': ...}`` with ``use_legacy_format``); a loss function
    as ``{'module': 'builtins', 'class_name': 'function', 'config': its name,
    'registered_name': 'function'}`` (its name with ``use_legacy_format``); ``None`` as
    ``None``.

    Raises:
      ValueError: an object that is neither (a loss class or function of its own).
    """
    if loss is None:
        return None
    if not isinstance(loss, Loss):
        warnings.warn(
            "The `keras.losses.serialize()` API should only be used for objects of type "
            f"`keras.losses.Loss`. Found an instance of type {type(loss)}, which may lead "
            "to improper serialization.",
            stacklevel=2,
        )
    if isinstance(loss, Loss):
        class_name = type(loss).__name__
        if _CLASSES.get(class_name) is not type(loss):
            raise ValueError(
                f"tf.keras.losses.serialize: {class_name} is not one of tf.keras.losses' "
                "classes; adapters.v1 serializes only those"
            )
        config = loss.get_config()
        if use_legacy_format:
            return {"class_name": class_name, "config": config}
        return {
            "module": "keras.losses",
            "class_name": class_name,
            "config": config,
            "registered_name": None,
        }
    name = getattr(loss, "__name__", None)
    if not callable(loss) or _BY_NAME.get(name) is not loss:
        raise ValueError(
            f"tf.keras.losses.serialize: {loss!r} is not one of tf.keras.losses' loss "
            "functions; adapters.v1 serializes only those"
        )
    if use_legacy_format:
        return name
    return {
        "module": "builtins",
        "class_name": "function",
        "config": name,
        "registered_name": "function",
    }


def deserialize(
    name: Any, custom_objects: dict[str, Any] | None = None, use_legacy_format: bool = False
) -> Any:
    """The loss ``name`` describes: a loss function's or class's name (a class is built
    with its defaults), or a dict ``serialize`` gives (either format): a class built
    ``from_config``, a function by its name. ``custom_objects`` names more (looked up
    first), then the ``custom_object_scope``'s and registered objects (TF's). Names
    only, never evaluated.

    Raises:
      ValueError: an unknown name or class (TF's message), a dict without
        ``class_name``.
    """
    del use_legacy_format  # both formats are read
    custom = {**custom_objects_in_scope(), **(custom_objects or {})}

    def lookup(key: Any) -> Any:
        if isinstance(key, str):
            if key in custom:
                return custom[key]
            if key in _CLASSES:
                return _CLASSES[key]
            if key in _BY_NAME:
                return _BY_NAME[key]
        raise _unknown(key)

    if isinstance(name, dict):
        if "class_name" not in name:
            raise ValueError(f"Unknown `config` as a `dict`, config={name}")
        class_name, config = name["class_name"], name.get("config")
        if class_name == "function" and isinstance(config, str):
            return lookup(config)
        found = lookup(class_name)
        if isinstance(found, type):
            if hasattr(found, "from_config"):
                return found.from_config(dict(config or {}))
            return found(**(config or {}))
        return found
    if isinstance(name, str):
        found = lookup(name)
        return found() if isinstance(found, type) else found
    raise ValueError(f"Could not interpret serialized loss function: {name}")


def get(identifier: Any) -> Any:
    """The loss ``identifier`` names (see ``deserialize``: a class's name gives an
    instance with its defaults), the one a config dict describes, or the callable itself.

    Raises:
      ValueError: an unknown name (TF's message) or anything else.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")


__getattr__ = missing_name_getattr("tf.keras.losses", globals())
