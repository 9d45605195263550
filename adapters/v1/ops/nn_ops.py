"""TF's ``tf.nn`` ops (activations, cross entropies, bias, ``lrn``, top k) as table entries.

Convolutions are in ``nn_conv.py``, pooling in ``nn_pool.py``, moments and batch
normalization in ``nn_norm.py``.

TF's semantics where they differ from the obvious JAX code: ``relu``'s gradient
is 0 at 0 and ``relu6``'s 0 at both ends; ``softmax_cross_entropy_with_logits``
passes ``softmax - labels`` to the logits (TF's kernel, also for labels that do
not sum to 1) and, in the v1 form, nothing to the labels; ``in_top_k`` counts a
target tied with the k-th value as in the top k and says False for a row with a
non-finite prediction; ``elu``/``selu`` take the linear branch's gradient at 0.
"""

from __future__ import annotations

import collections
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FLOATING, FUNCTIONS, INDEX, REAL, define, np_dtype
from jtrain._eigen import exp_log as eigen_exp_log
from jtrain._eigen import softmax as eigen_softmax
from jtrain._numerics import (
    broadcast_add,
    broadcast_subtract,
    eigen_sum,
    fan_out,
    rounded_product,
    rounded_square,
    row_sum_in_order,
)

# -- activations ----------------------------------------------------------------------


def _relu(features: Any) -> Any:
    """TF's ``Relu``: ``max(x, 0)`` as its CPU kernels give it, NaN kept; the gradient
    is ``g * (x > 0)``.

    .. note:: TF's ``relu(-0.0)`` is ``-0.0`` in float16 and bfloat16; in float32 and
       float64 it is ``+0.0`` where Eigen's vectorized loop computes it and ``-0.0`` in
       its scalar tail (the last elements of a tensor whose size is not a multiple of
       the vector width): jtrain gives ``+0.0`` there.
    """
    return jnp.where(features > 0, features, lax.stop_gradient(_not_positive(features)))


def _not_positive(features: Any) -> Any:
    """What TF's ``Relu`` gives where ``x > 0`` fails: 0, or ``x`` itself for NaN (and
    for ``-0.0`` in float16 and bfloat16)."""
    zero = jnp.zeros((), features.dtype)
    if not jnp.issubdtype(features.dtype, jnp.floating):
        return jnp.broadcast_to(zero, features.shape)
    if features.dtype.itemsize >= 4:
        return jnp.where(jnp.isnan(features), features, zero)
    return jnp.where(features < 0, zero, features)


def _relu6(features: Any) -> Any:
    """TF's ``Relu6``: ``min(max(x, 0), 6)`` (NaN and signed zeros as ``Relu``); the
    gradient is ``g * (0 < x < 6)``."""
    inside = (features > 0) & (features < 6)
    other = jnp.where(features >= 6, jnp.asarray(6, features.dtype), _not_positive(features))
    return jnp.where(inside, features, lax.stop_gradient(other))


def _leaky_relu(features: Any, alpha: float = 0.2) -> Any:
    if not jnp.issubdtype(features.dtype, jnp.floating):
        features = features.astype(jnp.float32)  # TF casts integer features to float32
    # TF's ``alpha`` attribute is a float32: 0.2 is 0.200000003 for float64 features too
    slope = jnp.asarray(np.float32(alpha), features.dtype)
    return jnp.where(features > 0, features, features * slope)


@jax.custom_jvp
def _softsign(features: Any) -> Any:
    """TF's ``Softsign``: ``x / (|x| + 1)``; the gradient ``g / (|x| + 1)**2`` (0 at
    infinities, where the quotient's derivative is NaN)."""
    return features / (jnp.abs(features) + jnp.asarray(1, features.dtype))


@_softsign.defjvp
def _softsign_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (dx,) = primals, tangents
    return _softsign(x), dx / jnp.square(jnp.abs(x) + jnp.asarray(1, x.dtype))


_ACTIVATIONS = [
    # names, op type, implementation, TF's parameters, allowed dtypes
    (
        ("nn.relu",),
        "Relu",
        _relu,
        "features, name=None",
        REAL,
    ),
    (("nn.relu6",), "Relu6", _relu6, "features, name=None", REAL),
    (("nn.elu",), "Elu", eigen_exp_log.elu, "features, name=None", FLOATING),
    (("nn.selu",), "Selu", eigen_exp_log.selu, "features, name=None", FLOATING),
    (("nn.leaky_relu",), "LeakyRelu", _leaky_relu, "features, alpha=0.2, name=None", REAL),
    (
        ("nn.softplus", "math.softplus"),
        "Softplus",
        eigen_exp_log.softplus,
        "features, name=None",
        FLOATING,
    ),
    (
        ("nn.softsign", "math.softsign"),
        "Softsign",
        _softsign,
        "features, name=None",
        FLOATING,
    ),
]

for _names, _type, _impl, _params, _allowed in _ACTIVATIONS:
    define(_names, _type, _impl, params=_params, tensors=_params.split(",")[0], allowed=_allowed)


def _softmax_axis(axis: Any, dim: Any) -> int:
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    axis = dim if axis is None else axis
    return -1 if axis is None else int(axis)


def _on_axis(fn: Any, axis: int, x: Any) -> Any:
    """``fn`` (of the last axis) over ``axis`` of ``x``: TF's kernels see that axis last."""
    return jnp.moveaxis(fn(jnp.moveaxis(x, axis, -1)), -1, axis)


define(
    ("nn.softmax", "math.softmax"),
    "Softmax",
    lambda logits, axis=None, dim=None: _on_axis(
        eigen_softmax.softmax, _softmax_axis(axis, dim), logits
    ),
    params="logits, axis=None, name=None, dim=None",
    tensors="logits",
    allowed=FLOATING,
)
define(
    ("nn.log_softmax", "math.log_softmax"),
    "LogSoftmax",
    lambda logits, axis=None, dim=None: _on_axis(
        eigen_softmax.log_softmax, _softmax_axis(axis, dim), logits
    ),
    params="logits, axis=None, name=None, dim=None",
    tensors="logits",
    allowed=FLOATING,
)


# -- cross entropies ----------------------------------------------------------------------
def _softmax_xent(labels: Any, logits: Any) -> Any:
    """TF's ``SoftmaxCrossEntropyWithLogits`` over the last axis (``jtrain._eigen.softmax``);
    float16 and bfloat16 through float32, as TF's Python wrapper casts them."""
    half = logits.dtype in (jnp.float16, jnp.bfloat16)
    if half:
        loss = eigen_softmax.softmax_cross_entropy(
            labels.astype(jnp.float32), logits.astype(jnp.float32)
        )
        return loss.astype(logits.dtype)
    return eigen_softmax.softmax_cross_entropy(labels, logits)


def _xent_on_axis(labels: Any, logits: Any, axis: int, stop_labels: bool) -> Any:
    if stop_labels:
        labels = lax.stop_gradient(labels)
    labels = jnp.moveaxis(labels, axis, -1)
    logits = jnp.moveaxis(logits, axis, -1)
    return _softmax_xent(labels, logits)


def _softmax_cross_entropy_v1(labels=None, logits=None, dim=-1, axis=None):
    if axis is not None and dim != -1:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    return _xent_on_axis(labels, logits, dim if axis is None else axis, stop_labels=True)


def _softmax_cross_entropy_v2(labels, logits, axis=None, dim=None):
    return _xent_on_axis(labels, logits, _softmax_axis(axis, dim), stop_labels=False)


_SOFTMAX_XENT_V1 = define(
    "nn.softmax_cross_entropy_with_logits",
    "SoftmaxCrossEntropyWithLogits",
    _softmax_cross_entropy_v1,
    params="labels=None, logits=None, dim=-1, name=None, axis=None",
    tensors="labels logits",
    allowed=FLOATING,
    tf_gradient="softmax - labels to the logits (TF's kernel); none to the labels (v1)",
)


def softmax_cross_entropy_with_logits(labels=None, logits=None, dim=-1, name=None, axis=None):
    """``tf.nn.softmax_cross_entropy_with_logits`` (TF1's, deprecated): the labels pass
    through a ``StopGradient`` node (``labels_stop_gradient``) first, as in TF, so
    ``tf.gradients(loss, labels)`` is ``None``, not zeros."""
    if labels is not None:
        labels = FUNCTIONS["stop_gradient"](labels, name="labels_stop_gradient")
    return _SOFTMAX_XENT_V1(labels, logits, dim, name, axis)


softmax_cross_entropy_with_logits.__signature__ = _SOFTMAX_XENT_V1.__signature__
softmax_cross_entropy_with_logits._op_def = _SOFTMAX_XENT_V1._op_def
FUNCTIONS["nn.softmax_cross_entropy_with_logits"] = softmax_cross_entropy_with_logits
define(
    "nn.softmax_cross_entropy_with_logits_v2",
    "SoftmaxCrossEntropyWithLogits",
    _softmax_cross_entropy_v2,
    params="labels, logits, axis=None, name=None, dim=None",
    tensors="labels logits",
    allowed=FLOATING,
    tf_gradient="softmax - labels to the logits (TF's kernel); -log_softmax to the labels",
)


def _sparse_softmax_cross_entropy(labels=None, logits=None):
    """TF's ``SparseSoftmaxCrossEntropyWithLogits`` (``jtrain._eigen.softmax``); float16
    through float32, as TF's Python wrapper casts it. An out-of-range label gives NaN
    (TF's GPU kernel; its CPU kernel raises)."""
    if logits.dtype == jnp.float16:
        loss = eigen_softmax.sparse_softmax_cross_entropy(labels, logits.astype(jnp.float32))
        return loss.astype(logits.dtype)
    return eigen_softmax.sparse_softmax_cross_entropy(labels, logits)


define(
    "nn.sparse_softmax_cross_entropy_with_logits",
    "SparseSoftmaxCrossEntropyWithLogits",
    _sparse_softmax_cross_entropy,
    params="labels=None, logits=None, name=None",
    tensors="labels logits",
    same_dtype="logits",
    allowed={"logits": FLOATING, "labels": INDEX},
)


def _sigmoid_cross_entropy(labels=None, logits=None):
    """TF's composition, ``max(x, 0) - x * z + log1p(exp(-|x|))`` with selections by
    ``x >= 0``, of TF's kernels and their gradients (the product rounded before the
    difference, TF's ``Exp`` and ``Log1p``, the broadcast sums in TF's order).

    The logits' four gradients are added as TF adds them: one ``AddN`` whose inputs
    grappler sorts by name (``Neg_grad``, ``Select_1_grad``, ``Select_grad``,
    ``mul_grad`` under ``gradients/logistic_loss/``)."""
    zeros = jnp.zeros_like(logits)
    positive = logits >= zeros
    # Uses: Select (relu), Neg, Select_1 (its else branch), mul; added in sorted order.
    relu_in, neg_in, select_in, mul_in = fan_out(logits, (1, 2, 0, 3))
    relu_logits = jnp.where(positive, relu_in, zeros)
    neg_abs_logits = jnp.where(positive, -neg_in, select_in)
    return broadcast_add(
        broadcast_subtract(relu_logits, rounded_product(mul_in, labels)),
        eigen_exp_log.log1p(eigen_exp_log.exp(neg_abs_logits)),
    )


def _same_shape_check(first: str, second: str, message: str) -> Any:
    """A table check: ``first`` and ``second`` of compatible static shapes (TF's
    ``assert_is_compatible_with``, no broadcasting), else ``message`` (``{a}``, ``{b}``:
    their shapes)."""

    def check(arguments: dict[str, Any]) -> None:
        a, b = arguments.get(first), arguments.get(second)
        if a is not None and b is not None and not a.get_shape().is_compatible_with(b.get_shape()):
            raise ValueError(message.format(a=a.get_shape(), b=b.get_shape()))

    return check


_LOGITS_AND_LABELS = _same_shape_check(
    "logits", "labels", "`logits` and `labels` must have the same shape, received ({a} vs {b})."
)
_LOG_INPUT_AND_TARGETS = _same_shape_check(
    "log_input",
    "targets",
    "`log_input` and `targets` must have the same shape, received ({a} vs {b}).",
)


define(
    "nn.sigmoid_cross_entropy_with_logits",
    "SigmoidCrossEntropyWithLogits",
    _sigmoid_cross_entropy,
    params="labels=None, logits=None, name=None",
    tensors="labels logits",
    allowed=FLOATING,
    check=_LOGITS_AND_LABELS,
)


# -- bias, l2, normalization ------------------------------------------------------------------
def _bias_add(value, bias, data_format=None):
    if data_format is not None and data_format.startswith("NC"):
        return broadcast_add(value, bias.reshape((-1,) + (1,) * (value.ndim - 2)))
    if not jnp.issubdtype(value.dtype, jnp.floating):
        return value + bias
    return _bias_add_nhwc(value, bias)


@jax.custom_vjp
def _bias_add_nhwc(value: Any, bias: Any) -> Any:
    """``value + bias`` over the last axis, its gradient TF's ``BiasAddGrad``: the rows of
    the incoming gradient (``[-1, channels]``) added in order (``row_sum_in_order``;
    XLA's sum differed from TF's on 57% of a [64, 30] bias gradient)."""
    return value + bias


def _bias_add_fwd(value: Any, bias: Any) -> tuple:
    return _bias_add_nhwc(value, bias), None


def _bias_add_bwd(_: None, grad: Any) -> tuple:
    return grad, row_sum_in_order(grad.reshape(-1, grad.shape[-1]))


_bias_add_nhwc.defvjp(_bias_add_fwd, _bias_add_bwd)


def _bias_add_check(arguments: dict[str, Any]) -> None:
    """TF's ``BiasAdd`` shape function: a rank-1 bias as long as the channel dimension
    of a value of rank 2 or more (jtrain broadcast any bias)."""
    value, bias = arguments["value"]._shape, arguments["bias"]._shape
    if bias is not None and len(bias) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(bias)} for 'BiasAdd'")
    if value is not None and len(value) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(value)} for 'BiasAdd'")
    if value is None or bias is None:
        return
    data_format = arguments.get("data_format")
    channels = value[1] if data_format is not None and data_format.startswith("NC") else value[-1]
    if channels is not None and bias[0] is not None and channels != bias[0]:
        raise ValueError(
            f"Dimensions must be equal, but are {channels} and {bias[0]} for 'BiasAdd'"
        )


define(
    "nn.bias_add",
    "BiasAdd",
    _bias_add,
    params="value, bias, data_format=None, name=None",
    tensors="value bias",
    allowed=REAL,
    check=_bias_add_check,
)
define(
    "nn.xw_plus_b",
    "XwPlusB",
    lambda x, weights, biases: _bias_add(
        jnp.matmul(x, weights, precision=lax.Precision.HIGHEST), biases
    ),  # TF: bias_add(matmul(x, weights), biases), BiasAddGrad's order
    params="x, weights, biases, name=None",
    allowed=FLOATING,
)


@jax.custom_vjp
def _l2_loss(t: jax.Array) -> jax.Array:
    """TF's ``L2Loss`` kernel: Eigen's sum of ``t * t * 0.5`` (square rounded, halved,
    then summed); its gradient TF's ``t * grad``, rounded before it meets another path's
    gradient (JAX's own derivative let XLA contract it into that sum: 43% of
    ``tf.gradients(x * tf.nn.l2_loss(x), x)`` 1 ulp off TF's)."""
    return eigen_sum(rounded_square(t) * jnp.asarray(0.5, t.dtype), elementwise_ops=2)


def _l2_loss_fwd(t: jax.Array) -> tuple[jax.Array, jax.Array]:
    return _l2_loss(t), t


def _l2_loss_bwd(t: jax.Array, grad: jax.Array) -> tuple[jax.Array]:
    return (rounded_product(t, grad),)


_l2_loss.defvjp(_l2_loss_fwd, _l2_loss_bwd)

define(
    "nn.l2_loss",
    "L2Loss",
    _l2_loss,
    params="t, name=None",
    allowed=FLOATING,
    tf_gradient="TF's L2LossGrad: t * grad, the product rounded",
)


def l2_normalize(
    x: Any, axis: Any = None, epsilon: float = 1e-12, name: Any = None, dim: Any = None
) -> Any:
    """``x`` divided by its L2 norm along ``axis``, as TF's Python function builds it.

    ``x * rsqrt(maximum(reduce_sum(square(x), axis, keepdims=True), epsilon))``: TF's
    nodes (``Square``, ``Sum``, ``Maximum``, ``Rsqrt``, ``Mul`` under the
    ``l2_normalize`` scope), so its gradient is the graph TF's ``tf.gradients`` builds
    from theirs (one JAX function differentiated as a whole rounded ``sum(g * x)`` and
    the sum of the two paths to ``x`` otherwise: 31% of a batch's gradient 1 ulp off).
    A complex ``x`` is normalized by its modulus (TF's ``complex(real * n, imag * n)``).

    Args:
      x: a floating or complex tensor.
      axis: the dimension or dimensions normalized over (default None: all of them).
      epsilon: the norm's lower bound, squared (default 1e-12).
      name: the op's name (default ``"l2_normalize"``).
      dim: the deprecated name of ``axis``.

    Returns:
      A tensor of ``x``'s shape and dtype.

    Raises:
      ValueError: both ``axis`` and ``dim`` are given.
    """
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    axis = dim if axis is None else axis
    fn = FUNCTIONS
    with ops.name_scope(name, "l2_normalize", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            square_real = fn["square"](fn["real"](x))
            square_imag = fn["square"](fn["imag"](x))
            square_sum = fn["real"](
                fn["reduce_sum"](square_real + square_imag, axis, keepdims=True)
            )
            x_inv_norm = fn["rsqrt"](fn["maximum"](square_sum, epsilon))
            norm_real = fn["multiply"](fn["real"](x), x_inv_norm)
            norm_imag = fn["multiply"](fn["imag"](x), x_inv_norm)
            return fn["complex"](norm_real, norm_imag, name=scope)
        square_sum = fn["reduce_sum"](fn["square"](x), axis, keepdims=True)
        x_inv_norm = fn["rsqrt"](fn["maximum"](square_sum, epsilon))
        return fn["multiply"](x, x_inv_norm, name=scope)


for _name in ("nn.l2_normalize", "math.l2_normalize", "linalg.l2_normalize"):
    FUNCTIONS[_name] = l2_normalize


define(
    ("nn.zero_fraction", "math.zero_fraction"),
    "ZeroFraction",
    lambda value: jnp.mean((value == 0).astype(jnp.float32)),
    params="value, name=None",
)


def _in_top_k(predictions, targets, k):
    targets = targets.astype(jnp.int32)
    depth = predictions.shape[-1]
    valid = (targets >= 0) & (targets < depth)
    target_value = jnp.take_along_axis(predictions, jnp.clip(targets, 0, depth - 1)[:, None], -1)
    greater = jnp.sum(predictions > target_value, -1)
    # TF: a row with any non-finite prediction says False.
    return valid & jnp.all(jnp.isfinite(predictions), -1) & (greater < k)


define(
    ("nn.in_top_k", "math.in_top_k"),
    "InTopKV2",
    _in_top_k,
    params="predictions, targets, k, name=None",
    tensors="predictions targets",
    same_dtype="predictions",
    allowed={"predictions": ("float32",), "targets": INDEX},
)


# TF's result type of ``tf.nn.top_k`` (``gen_nn_ops``' ``TopKV2`` namedtuple)
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _top_k(input, k=1, sorted=True, index_type="int32"):
    """TF's ``TopKV2(values, indices)``: a namedtuple, so ``.values``/``.indices``."""
    values, indices = lax.top_k(input, k)
    return TopKV2(values, indices.astype(np_dtype(index_type)))


define(
    ("nn.top_k", "math.top_k"),
    "TopKV2",
    _top_k,
    params="input, k=1, sorted=True, index_type='int32', name=None",
    tensors="input",
    allowed=REAL,
)


# -- local response normalization ---------------------------------------------------------
def _lrn(input, depth_radius=5, bias=1, alpha=1, beta=0.5):
    squared = jnp.square(input)
    window = (1, 1, 1, 2 * depth_radius + 1)
    pad = [(0, 0), (0, 0), (0, 0), (depth_radius, depth_radius)]
    square_sum = lax.reduce_window(
        squared, np.array(0, input.dtype), lax.add, window, (1, 1, 1, 1), pad
    )
    return input / jnp.power(bias + alpha * square_sum, beta)


define(
    ("nn.lrn", "nn.local_response_normalization"),
    "LRN",
    _lrn,
    params="input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None",
    tensors="input",
    allowed=("float16", "bfloat16", "float32"),
)


# -- more activations, weighted and Poisson losses, loss scaling ---------------------------------
def log_sigmoid(x: Any, name: Any = None) -> Any:
    """``log(1 / (1 + exp(-x)))``, as TF's Python function builds it: ``-softplus(-x)``
    (TF's ``Neg`` and ``Softplus`` nodes under ``LogSigmoid``, and their gradients).

    Args:
      x: a floating tensor.
      name: the op's name (default ``"LogSigmoid"``).

    Returns:
      A tensor of ``x``'s shape and dtype.
    """
    with ops.name_scope(name, "LogSigmoid", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        return FUNCTIONS["negative"](FUNCTIONS["nn.softplus"](-x), name=scope)


def swish(features: Any, beta: Any = 1.0) -> Any:
    """``features * sigmoid(beta * features)`` with TF's own gradient, as TF's Python
    function builds it (``tf.custom_gradient``).

    Gradient (TF's, evaluated by TF's kernels in its order): ``dy * (s * (1 + (beta *
    features) * (1 - s)))`` for ``features`` and ``sum(dy * features**2 * s * (1 - s))``
    for ``beta``, ``s = sigmoid(beta * features)`` computed again.

    Args:
      features: a floating tensor (the pre-activations).
      beta: the sigmoid's scale (default 1.0), cast to ``features``' dtype.

    Returns:
      A tensor of ``features``' shape and dtype.
    """
    from adapters.v1.ops.custom_gradient import custom_gradient

    fn = FUNCTIONS
    features = ops.convert_to_tensor(features, name="features")
    beta = ops.convert_to_tensor(beta, name="beta")
    beta = fn["cast"](beta, features.dtype)

    @custom_gradient
    def swish_impl(features: Any, beta: Any) -> Any:
        def grad(dy: Any) -> Any:
            with ops.control_dependencies([dy]):
                sigmoid_features = fn["sigmoid"](beta * features)
            activation_grad = sigmoid_features * (
                1.0 + (beta * features) * (1.0 - sigmoid_features)
            )
            beta_grad = fn["reduce_sum"](
                dy * fn["square"](features) * sigmoid_features * (1.0 - sigmoid_features)
            )
            return (dy * activation_grad, beta_grad)

        return features * fn["sigmoid"](beta * features), grad

    return swish_impl(features, beta)


for _name in ("math.log_sigmoid", "log_sigmoid"):
    FUNCTIONS[_name] = log_sigmoid
for _name in ("nn.swish", "nn.silu"):
    FUNCTIONS[_name] = swish


def _crelu(features: Any, axis: int = -1) -> Any:
    return jnp.concatenate([_relu(features), _relu(-features)], axis)


define(
    "nn.crelu",
    "CRelu",
    _crelu,
    params="features, name=None, axis=-1",
    tensors="features",
    allowed=REAL,
    default_name="CRelu",
)
define(
    "nn.relu_layer",
    "Relu",
    lambda x, weights, biases: _relu(
        jnp.matmul(x, weights, precision=lax.Precision.HIGHEST) + biases
    ),
    params="x, weights, biases, name=None",
    allowed=FLOATING,
    default_name="relu_layer",
)


def weighted_cross_entropy_with_logits(
    labels: Any = None,
    logits: Any = None,
    pos_weight: Any = None,
    name: Any = None,
    targets: Any = None,
) -> Any:
    """The logistic loss with the positives weighted, as TF's Python function builds it.

    ``(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + relu(-x))`` for labels
    ``z``, logits ``x`` and ``pos_weight`` ``q``, of TF's nodes (``Exp``, ``Log1p``,
    ``Relu``... under ``logistic_loss``), so values and gradients are TF's kernels'.

    Args:
      labels: the targets, of ``logits``' shape and dtype.
      logits: a floating tensor.
      pos_weight: the positives' weight (a number or tensor).
      name: the op's name (default ``"logistic_loss"``).
      targets: the deprecated name of ``labels``.

    Returns:
      The element-wise losses, of ``logits``' shape.

    Raises:
      ValueError: both ``labels`` and ``targets`` given, or shapes that differ.
    """
    if labels is not None and targets is not None:
        raise ValueError("Cannot specify both 'labels' and 'targets'.")
    labels = targets if labels is None else labels
    fn = FUNCTIONS
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = ops.convert_to_tensor(labels, name="labels")
        _LOGITS_AND_LABELS({"logits": logits, "labels": labels})
        log_weight = 1 + (pos_weight - 1) * labels
        softplus_neg_abs = fn["log1p"](fn["exp"](-fn["abs"](logits)))
        return fn["add"](
            (1 - labels) * logits, log_weight * (softplus_neg_abs + fn["nn.relu"](-logits)), scope
        )


def log_poisson_loss(
    targets: Any, log_input: Any, compute_full_loss: bool = False, name: Any = None
) -> Any:
    """The Poisson loss of ``log_input``, as TF's Python function builds it.

    ``exp(c) - c * z`` for the log-rate ``c`` and targets ``z``; with
    ``compute_full_loss`` plus Stirling's ``z * log(z) - z + 0.5 * log(2 * pi * z)``
    where ``z > 1`` (TF's nodes under ``log_poisson_loss``: TF's kernels' values).

    Args:
      targets: the counts, of ``log_input``'s shape and dtype.
      log_input: a floating tensor.
      compute_full_loss: add Stirling's approximation (default False).
      name: the scope's name (default ``"log_poisson_loss"``).

    Returns:
      The element-wise losses.

    Raises:
      ValueError: shapes that differ.
    """
    fn = FUNCTIONS
    with ops.name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = ops.convert_to_tensor(log_input, name="log_input")
        targets = ops.convert_to_tensor(targets, name="targets")
        _LOG_INPUT_AND_TARGETS({"log_input": log_input, "targets": targets})
        result = fn["exp"](log_input) - log_input * targets
        if compute_full_loss:
            point_five = ops.convert_to_tensor(0.5, dtype=targets.dtype)
            two_pi = ops.convert_to_tensor(2 * np.pi, dtype=targets.dtype)
            stirling_approx = (
                (targets * fn["log"](targets))
                - targets
                + (point_five * fn["log"](two_pi * targets))
            )
            zeros = fn["zeros_like"](targets, dtype=targets.dtype)
            ones = fn["ones_like"](targets, dtype=targets.dtype)
            cond = fn["logical_and"](targets >= zeros, targets <= ones)
            result += fn["where"](cond, zeros, stirling_approx)
        return result


FUNCTIONS["nn.weighted_cross_entropy_with_logits"] = weighted_cross_entropy_with_logits
FUNCTIONS["nn.log_poisson_loss"] = log_poisson_loss


def _compute_average_loss(
    per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None
) -> Any:
    dtype = per_example_loss.dtype
    if sample_weight is not None:  # TF: scaled in float32, back to the input's dtype
        losses = per_example_loss.astype(jnp.float32)
        weight = sample_weight.astype(jnp.float32)
        if weight.ndim == losses.ndim + 1 and weight.shape[-1] == 1:
            weight = jnp.squeeze(weight, -1)
        elif weight.ndim and weight.ndim == losses.ndim - 1:
            weight = jnp.expand_dims(weight, -1)
        per_example_loss = (losses * weight).astype(dtype)
    if global_batch_size is None:  # one replica: jtrain's step is the whole batch
        global_batch_size = per_example_loss.shape[0]
    return jnp.sum(per_example_loss) / jnp.asarray(global_batch_size, dtype)


def _compute_average_loss_check(arguments: dict[str, Any]) -> None:
    loss = arguments["per_example_loss"]
    if loss.get_shape().ndims == 0:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least "
            f"rank 1. Received per_example_loss={loss} with rank 0"
        )
    size = arguments.get("global_batch_size")
    if size is not None:
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool):
            raise TypeError("global_batch_size must be an integer.")
        if size <= 0:
            raise ValueError("global_batch_size must be positive.")


define(
    "nn.compute_average_loss",
    "truediv",
    _compute_average_loss,
    params="per_example_loss, sample_weight=None, global_batch_size=None",
    tensors="per_example_loss sample_weight",
    same_dtype="per_example_loss",
    allowed={"per_example_loss": FLOATING},
    name_param="",
    default_name="compute_average_loss",
    check=_compute_average_loss_check,
)


def _scale_regularization_loss(regularization_loss: list[Any]) -> Any:
    # one replica (jtrain's step sees the whole batch): the sum divided by 1
    total = sum(jnp.sum(loss) for loss in regularization_loss[1:])
    return jnp.sum(regularization_loss[0]) + total


define(
    "nn.scale_regularization_loss",
    "truediv",
    _scale_regularization_loss,
    params="regularization_loss",
    tensors="regularization_loss",
    lists="regularization_loss",
    same_dtype=(),  # a single tensor or a list (TF packs a list: the same sum)
    allowed=FLOATING,
    name_param="",
    default_name="scale_regularization_loss",
)
