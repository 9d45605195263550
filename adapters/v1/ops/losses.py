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

Shapes are checked as TF checks them when the graph is built: predictions (logits)
must be compatible with labels (``ValueError: Shapes (3, 3) and (3, 1) are
incompatible``), and weights broadcastable to the per-element losses in TF's
limited sense (``weights_broadcast_ops.assert_broadcastable``: a scalar, or the
losses' rank with each dimension 1 or the losses'), else ``ValueError: weights can
not be broadcast to values.``; shapes only known at run time are not checked.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import (
    BOOL,
    FLOATING,
    FUNCTIONS,
    INDEX,
    OPS,
    REAL,
    chosen_by_arguments,
    define,
    table_functions,
)
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops.math_ops import (
    _divide_no_nan,
    _minimum,
    _squared_difference,
    folds_to_constant,
)
from adapters.v1.ops.nn_ops import (
    _sigmoid_cross_entropy,
    _softmax_xent,
    _sparse_softmax_cross_entropy,
)
from jtrain import errors
from jtrain._eigen import exp_log as eigen_exp_log
from jtrain._numerics import eigen_sum, fan_out, rounded_product, tf_binary

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


def _div_no_nan_gradient(x: Any, y: Any, z: Any, g: Any) -> tuple:
    """TF's ``_DivNoNanGrad``: ``div_no_nan(g, y)`` and ``g * div_no_nan(div_no_nan(-x, y), y)``."""
    return _divide_no_nan(g, y), rounded_product(g, _divide_no_nan(_divide_no_nan(-x, y), y))


_DIV_NO_NAN = tf_binary(_divide_no_nan, _div_no_nan_gradient)


def _div_no_nan(x: Any, y: Any) -> Any:
    """TF's ``DivNoNan``, value and gradient: 0 where ``y`` is 0, else the quotient
    rounded once (XLA would multiply by the reciprocal of a constant count)."""
    return _DIV_NO_NAN(x, jnp.asarray(y, jnp.result_type(x)))


def _check_broadcastable(weights: Any, losses: Any) -> None:
    """TF's run-time ``assert_broadcastable`` (shapes the graph left unknown): weights
    a scalar or of the losses' rank, each dimension 1 or the losses'; else TF's
    ``InvalidArgumentError`` (symbolic sizes, in shape inference, are not checked)."""
    w, v = tuple(weights.shape), tuple(losses.shape)
    if not all(isinstance(d, int) for d in w + v) or not w:
        return
    if len(w) == len(v) and all(a in (1, b) for a, b in zip(w, v, strict=True)):
        return
    raise errors.InvalidArgumentError(
        None,
        None,
        f"assertion failed: [{_NOT_BROADCASTABLE}] [weights.shape=] [{' '.join(map(str, w))}] "
        f"[values.shape=] [{' '.join(map(str, v))}] [is_scalar=] [0]",
    )


def _weighted(losses: Any, weights: Any, reduction: str) -> Any:
    """TF's ``compute_weighted_loss`` on computed per-element losses."""
    Reduction.validate(reduction)
    dtype = losses.dtype
    losses = losses.astype(jnp.float32)  # TF: in float32 whatever the input's dtype
    weights = jnp.asarray(weights, losses.dtype)
    _check_broadcastable(weights, losses)
    weighted = rounded_product(losses, weights)
    if reduction == Reduction.NONE:
        return weighted.astype(dtype)
    total = eigen_sum(weighted)
    if reduction == Reduction.MEAN:
        # TF: reduce_sum(ones_like(losses) * weights)
        total = _div_no_nan(total, eigen_sum(rounded_product(jnp.ones_like(losses), weights)))
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
    check: Any = None,
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
        check=check,
    )


# -- TF's graph-construction shape checks ------------------------------------------------
def _assert_compatible(first: Any, second: Any) -> None:
    """TF's ``first.get_shape().assert_is_compatible_with(second.get_shape())``."""
    a, b = first.get_shape(), second.get_shape()
    if not a.is_compatible_with(b):
        raise ValueError(f"Shapes {a} and {b} are incompatible")


def _broadcast(a: TensorShape, b: TensorShape) -> TensorShape:
    """The static shape of an element-wise op of two compatible shapes (TF's
    broadcasting shape function: an unknown dimension against 1 stays unknown)."""
    if a.ndims is None or b.ndims is None:
        return TensorShape(None)
    dims = []
    for x, y in zip(a.as_list(), b.as_list(), strict=True):
        if x is None or y is None:
            known = y if x is None else x
            dims.append(None if known in (None, 1) else known)
        else:
            dims.append(x)
    return TensorShape(dims)


_NOT_BROADCASTABLE = "weights can not be broadcast to values."


def _assert_broadcastable(
    weights: Any, values: TensorShape, shape: TensorShape | None = None
) -> None:
    """TF's ``weights_broadcast_ops.assert_broadcastable`` static checks: ``weights`` a
    scalar or of ``values``' rank, each dimension 1 or ``values``'; raises TF's
    ``ValueError`` when the static shapes say no (``values``: the per-element losses;
    ``shape``: the weights' shape where TF squeezed them first)."""
    shape = weights.get_shape() if shape is None else shape
    if shape.ndims is None or values.ndims is None or shape.ndims == 0:
        return
    if shape.ndims != values.ndims:
        raise ValueError(
            f"{_NOT_BROADCASTABLE} values.rank={values.ndims}. weights.rank={shape.ndims}. "
            f"values.shape={values}. weights.shape={shape}. Received weights={weights}, "
            f"values of shape {values}"
        )
    if not (shape.is_fully_defined() and values.is_fully_defined()):
        return
    for i, (w, v) in enumerate(zip(shape.as_list(), values.as_list(), strict=True)):
        if w not in (1, v):
            raise ValueError(
                f"{_NOT_BROADCASTABLE} Mismatch at dim {i}. values.shape="
                f"{np.array(values.as_list())}, weights.shape={np.array(shape.as_list())}. "
                f"Received weights={weights}, values of shape {values}"
            )


def _elementwise_check(first: str, second: str) -> Any:
    """TF's checks of a loss of ``first`` (predictions, logits) against ``second``
    (labels), element by element: compatible shapes, broadcastable weights."""

    def check(arguments: dict[str, Any]) -> None:
        a, b = arguments[first], arguments[second]
        _assert_compatible(a, b)
        _assert_broadcastable(arguments["weights"], _broadcast(a.get_shape(), b.get_shape()))

    return check


def _softmax_check(arguments: dict[str, Any]) -> None:
    logits, labels = arguments["logits"], arguments["onehot_labels"]
    _assert_compatible(logits, labels)
    shape = _broadcast(logits.get_shape(), labels.get_shape())
    values = TensorShape(None) if shape.ndims is None else TensorShape(shape.as_list()[:-1])
    _assert_broadcastable(arguments["weights"], values)


def _sparse_check(arguments: dict[str, Any]) -> None:
    """TF's ``_remove_squeezable_dimensions`` on static shapes, then the weights' check."""
    labels = arguments["labels"].get_shape()
    logits = arguments["logits"].get_shape()
    weights = arguments["weights"]
    if labels.ndims is None or logits.ndims is None:
        return
    dims = labels.as_list()
    if logits.ndims - labels.ndims == 0 and dims and dims[-1] in (None, 1):
        dims = dims[:-1]
    w = weights.get_shape()
    if w.ndims is not None and w.ndims - len(dims) == 1:
        last = w.as_list()[-1]
        if last not in (None, 1):
            raise ValueError(
                f"Can not squeeze dim[{w.ndims - 1}], expected a dimension of 1, got {last} "
                f"for 'Squeeze' (op: 'Squeeze') with input shapes: "
                f"[{','.join('?' if d is None else str(d) for d in w.as_list())}]."
            )
        w = TensorShape(w.as_list()[:-1])
    _assert_broadcastable(weights, TensorShape(dims), w)


def _smoothed(labels: Any, smoothing: float, classes: Any) -> Any:
    if not smoothing:
        return labels
    return labels * (1 - smoothing) + smoothing / classes


_SOFTMAX_LOSS = define(
    "losses.softmax_cross_entropy",
    "Loss",
    lambda onehot_labels, logits, weights=1.0, label_smoothing=0, reduction=None: _weighted(
        _softmax_xent(
            # the node's own derivative is zero too (the StopGradient node makes it None)
            jax.lax.stop_gradient(
                _smoothed(onehot_labels.astype(logits.dtype), label_smoothing, logits.shape[-1])
            ),
            logits,
        ),
        weights,
        reduction,
    ),
    params=f"onehot_labels, logits, weights=1.0, label_smoothing=0, {_V1}",
    tensors="onehot_labels logits weights",
    same_dtype=(),
    allowed={"logits": FLOATING, "weights": CASTABLE},
    default_name="softmax_cross_entropy_loss",
    name_param="scope",
    collection_param="loss_collection",
    check=_softmax_check,
    tf_gradient="none to the labels (a StopGradient node, labels_stop_gradient)",
)


def softmax_cross_entropy(*args: Any, **kwargs: Any) -> Any:
    """``tf.losses.softmax_cross_entropy``: the labels pass through a ``StopGradient``
    node first, ``<scope>/labels_stop_gradient`` as in TF, so ``tf.gradients(loss,
    onehot_labels)`` is ``None``, not zeros."""
    bound = _SOFTMAX_LOSS.__signature__.bind(*args, **kwargs)
    labels = bound.arguments.get("onehot_labels")
    if labels is not None:
        graph = ops.get_default_graph()
        scope = graph.unique_name(
            bound.arguments.get("scope") or "softmax_cross_entropy_loss", mark_as_used=False
        )
        with graph.name_scope(scope + "/"):
            bound.arguments["onehot_labels"] = FUNCTIONS["stop_gradient"](
                labels, name="labels_stop_gradient"
            )
    return _SOFTMAX_LOSS(*bound.args, **bound.kwargs)


softmax_cross_entropy.__signature__ = _SOFTMAX_LOSS.__signature__
softmax_cross_entropy._op_def = _SOFTMAX_LOSS._op_def
softmax_cross_entropy.__module__ = _SOFTMAX_LOSS.__module__
FUNCTIONS["losses.softmax_cross_entropy"] = softmax_cross_entropy


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
    check=_sparse_check,
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
    check=_elementwise_check("logits", "multi_class_labels"),
)
_FLOAT32_LOSS = {"labels": CASTABLE, "predictions": CASTABLE, "weights": CASTABLE}


def _mean_squared_error(labels, predictions, weights=1.0, reduction=None):
    labels, predictions = _f32(labels, predictions)
    return _weighted(_squared_difference(predictions, labels), weights, reduction)


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
    check=_elementwise_check("predictions", "labels"),
)
_loss(
    "absolute_difference",
    "absolute_difference",
    _absolute_difference,
    f"labels, predictions, weights=1.0, {_V1}",
    "labels predictions weights",
    same_dtype=(),
    allowed=_FLOAT32_LOSS,
    check=_elementwise_check("predictions", "labels"),
)


def _huber(labels, predictions, weights=1.0, delta=1.0, reduction=None, forwarded=False):
    """TF's ``huber_loss``: ``0.5 * quadratic**2 + delta * linear`` per element, with
    ``quadratic = minimum(|predictions - labels|, delta)`` and ``linear = |...| -
    quadratic``, weighted and reduced as ``compute_weighted_loss``.

    .. note::
       TF adds ``quadratic``'s three gradients with one ``AddN``: the two of
       ``Mul(quadratic, quadratic)`` (one node after grappler merges the two equal
       products, read twice) and ``linear``'s negated one. TF's ``AddN`` kernel first
       moves to the front the first input whose buffer it may reuse: never the merged
       product (read twice); the negation, unless grappler folded it into a constant,
       which it does when the weights are constants and the shapes known (the
       gradient of the mean of the loss is then a constant). ``forwarded``: the
       negation is computed, TF adds it first (``(n + a) + a``, else ``(a + a) + n``).
    """
    labels, predictions = _f32(labels, predictions)
    error = predictions - labels
    abs_error = jnp.abs(error)
    quadratic = _minimum(abs_error, jnp.asarray(delta, abs_error.dtype))
    # gradients in TF's order: Mul_grad/Mul, Mul_grad/Mul_1, Sub_1_grad/Neg (by name);
    # a forwarded last input swaps places with the first (aggregate_ops.h)
    left, right, subtracted = fan_out(quadratic, (2, 1, 0) if forwarded else (0, 1, 2))
    linear = abs_error - subtracted
    # TF: 0.5 * (quadratic * quadratic) + delta * linear, each product rounded (Mul)
    half = jnp.asarray(0.5, quadratic.dtype)
    squares = rounded_product(half, rounded_product(left, right, square=True))
    losses = squares + rounded_product(jnp.asarray(delta, linear.dtype), linear)
    return _weighted(losses, weights, reduction)


for _names, _forwarded in (("huber_loss", False), ("_forwarded.huber_loss", True)):
    _loss(
        _names,
        "huber_loss",
        functools.partial(_huber, forwarded=_forwarded),
        f"labels, predictions, weights=1.0, delta=1.0, {_V1}",
        "labels predictions weights",
        same_dtype=(),
        allowed=_FLOAT32_LOSS,
        check=_elementwise_check("predictions", "labels"),
    )


def _huber_as_tf(table_fn: Any, forwarded_fn: Any) -> Any:
    """``tf.losses.huber_loss``: the gradient's order as TF's (see ``_huber``): the
    negated gradient first where TF computes it, i.e. unless the weights fold to a
    constant (``folds_to_constant``) and the labels' and predictions' shapes are known
    when the graph is built (an unknown batch size: TF computes the mean's gradient
    from the run's shapes).

    .. note::
       A gradient reaching the loss that is not a constant (the loss multiplied by a
       computed value) makes TF's negation computed too: the constant case's node
       keeps the other order as its ``_gradient_variant``, which ``tf.gradients``
       computes where it finds that gradient computed.
    """
    forwarded = OPS["losses._forwarded.huber_loss"]

    def known(value: Any) -> bool:
        shape = getattr(value, "get_shape", None)
        return shape is None or shape().is_fully_defined()

    def with_variant(*args: Any, **kwargs: Any) -> Any:
        out = table_fn(*args, **kwargs)
        layout = {p: i for i, p in enumerate(forwarded.tensors)}  # (weights: 1.0 or given)
        fn, _ = table_functions(forwarded, out.op._static_attrs, layout)
        out.op._gradient_variant = lambda ctx, *values: tuple(jax.tree.leaves(fn(values, {})))
        return out

    def choose(arguments: dict[str, Any]) -> Any:
        constant = folds_to_constant(arguments.get("weights", 1.0)) and all(
            known(arguments.get(k)) for k in ("labels", "predictions")
        )
        return with_variant if constant else forwarded_fn

    return chosen_by_arguments(table_fn, choose)


FUNCTIONS["losses.huber_loss"] = _huber_as_tf(
    FUNCTIONS["losses.huber_loss"], FUNCTIONS["losses._forwarded.huber_loss"]
)


def _log_loss(labels, predictions, weights=1.0, epsilon=1e-7, reduction=None):
    labels, predictions = _f32(labels, predictions)
    # TF: -(labels * log(predictions + eps)) - (1 - labels) * log(1 - predictions + eps),
    # each product rounded, with TF's Log kernel and gradient
    positive = rounded_product(labels, eigen_exp_log.log(predictions + epsilon))
    negative = rounded_product(1 - labels, eigen_exp_log.log(1 - predictions + epsilon))
    return _weighted(-positive - negative, weights, reduction)


_loss(
    "log_loss",
    "log_loss",
    _log_loss,
    f"labels, predictions, weights=1.0, epsilon=1e-07, {_V1}",
    "labels predictions weights",
    same_dtype=(),
    allowed=_FLOAT32_LOSS,
    check=_elementwise_check("predictions", "labels"),
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
    check=_elementwise_check("logits", "labels"),
)


_loss(
    "compute_weighted_loss",
    "weighted_loss",
    lambda losses, weights=1.0, reduction=None: _weighted(losses, weights, reduction),
    f"losses, weights=1.0, {_V1}",
    "losses weights",
    same_dtype=(),
    allowed={"losses": REAL, "weights": CASTABLE},
    check=lambda arguments: _assert_broadcastable(
        arguments["weights"], arguments["losses"].get_shape()
    ),
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
    axis = arguments["dim"] if arguments.get("axis") is None else arguments["axis"]
    shape = _broadcast(arguments["predictions"].get_shape(), arguments["labels"].get_shape())
    if shape.ndims is not None and -shape.ndims <= axis < shape.ndims:
        dims = shape.as_list()
        dims[axis] = 1
        shape = TensorShape(dims)
    _assert_broadcastable(arguments["weights"], shape)


def _pairwise_check(arguments: dict[str, Any]) -> None:
    _compatible(arguments)
    _assert_broadcastable(arguments["weights"], arguments["labels"].get_shape())


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
    _check_broadcastable(weights, diffs)  # TF: against labels, of the diffs' shape
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
    check=_pairwise_check,
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
