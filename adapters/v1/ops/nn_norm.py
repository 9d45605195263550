"""TF's ``tf.nn`` normalization: moments, ``batch_normalization``, ``fused_batch_norm``.

TF's semantics: ``batch_normalization`` computes ``inv = rsqrt(variance + eps) * scale``
and ``x * inv + (offset - mean * inv)`` in that order; ``fused_batch_norm``
(``FusedBatchNormV3``; TF 2.21 keeps ``epsilon`` as given) normalizes with the
batch's biased variance when training but returns the unbiased one
(``n / (n - 1)``), mixes them into the given ``mean``/``variance`` by
``exponential_avg_factor``, and its gradient flows from ``y`` only (none from
its mean and variance outputs, none to the given mean and variance);
``moments``' variance gradient does not flow through its mean.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import jax.numpy as jnp
from jax import lax

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FLOATING, FUNCTIONS, OpValueError, define
from adapters.v1.ops.math_ops import _mean_as_tf, _mean_folded, _squared_difference, kernel_mean
from adapters.v1.ops.nn_conv import channels_first, check_attr, shape_error
from jtrain._eigen.rsqrt import rsqrt
from jtrain._numerics import (
    broadcast_add,
    broadcast_subtract,
    rounded_product,
    uses,
)


def _keep(keep_dims, keepdims) -> bool:
    if keep_dims is not None and keepdims is not None:
        raise OpValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    return bool(keepdims if keep_dims is None else keep_dims)


def _axes(axes) -> tuple[int, ...]:
    return (axes,) if isinstance(axes, int) else tuple(axes)


def _moments_with(reduce_mean: Any) -> Any:
    """``moments`` over TF's ``reduce_mean`` (``reduce_mean(x, axes, keepdims)``: its
    Mean kernel, and its gradient's division, see ``math_ops._mean_as_tf``)."""

    def moments(x, axes, shift=None, keep_dims=None, keepdims=None):
        keep = _keep(keep_dims, keepdims)
        axes = _axes(axes)
        # TF's graph: x read by Mean and SquaredDifference, whose gradients TF adds with
        # those of x's other uses, in the order of their names (the node's ``_inner_uses``)
        for_mean, for_variance = uses(x, (0, 1))
        mean = reduce_mean(for_mean, axes, True)
        # TF: SquaredDifference rounds each square before Mean adds them (no FMA)
        variance = reduce_mean(
            _squared_difference(for_variance, lax.stop_gradient(mean)), axes, True
        )
        if not keep:
            mean, variance = jnp.squeeze(mean, axes), jnp.squeeze(variance, axes)
        return mean, variance

    return moments


for _names, _mean in ((("nn.moments",), kernel_mean), (("_folded.nn.moments",), _mean_folded)):
    define(
        _names,
        "Moments",
        _moments_with(_mean),
        params="x, axes, shift=None, name=None, keep_dims=None, keepdims=None",
        tensors="x",
        allowed=FLOATING,
        tf_gradient="the variance's gradient does not flow through its mean",
    )
# TF's reduce_mean gradient divides by a constant count where x's static shape is known,
# which grappler turns into the product by its reciprocal.
FUNCTIONS["nn.moments"] = _mean_as_tf(
    FUNCTIONS["nn.moments"], FUNCTIONS["_folded.nn.moments"], "x", "axes"
)


def _moments_declaring_uses(fn: Any) -> Any:
    """``tf.nn.moments`` whose node declares x's uses inside it as TF's ops reading x
    (``Operation._inner_uses``, see ``gradients_impl._fan_outs``): ``Mean`` and
    ``SquaredDifference`` under TF's name scope ``moments`` (a float16 x: its ``Cast`` to
    float32, one gradient), in the order the computation uses them
    (``jtrain._numerics.uses``)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)  # its name, signature, module and ``_op_def``
    def moments(*args: Any, **kwargs: Any) -> Any:
        try:
            name = signature.bind(*args, **kwargs).arguments.get("name")
        except TypeError:
            return fn(*args, **kwargs)  # the table's own error
        # TF's ``name_scope(name, "moments")``: the name the node then takes (the node
        # named "Moments" by default: the same name, regardless of case)
        scope = ops.get_default_graph().unique_name(name or "moments", mark_as_used=False)
        out = fn(*args, **kwargs)
        node = out[0].op
        if node.inputs[0].dtype.base_dtype.name == "float16":
            inner: tuple[str, ...] = ("Cast_grad/Cast",)
        else:
            inner = ("mean_grad/truediv", "SquaredDifference_grad/mul_1")
        node._inner_uses = {0: tuple(f"{scope}/{n}" for n in inner)}
        return out

    return moments


FUNCTIONS["nn.moments"] = _moments_declaring_uses(FUNCTIONS["nn.moments"])


def _weighted_moments(x, axes, frequency_weights, keep_dims=None, keepdims=None):
    keep = _keep(keep_dims, keepdims)
    axes = _axes(axes)
    weights = frequency_weights.astype(x.dtype)
    weighted_sum = jnp.sum(weights * x, axes, keepdims=True)
    sum_of_weights = jnp.sum(weights + jnp.zeros_like(x), axes, keepdims=True)
    divisor = 1 / sum_of_weights
    mean = weighted_sum * divisor
    variance = jnp.sum(weights * jnp.square(x - mean), axes, keepdims=True) * divisor
    if not keep:
        mean, variance = jnp.squeeze(mean, axes), jnp.squeeze(variance, axes)
    return mean, variance


define(
    "nn.weighted_moments",
    "Moments",
    _weighted_moments,
    params="x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None",
    tensors="x frequency_weights",
    same_dtype="x",
    allowed={"x": FLOATING},
    default_name="weighted_moments",
)


def _sufficient_statistics(x, axes, shift=None, keep_dims=None, keepdims=None):
    keep = _keep(keep_dims, keepdims)
    axes = _axes(axes)
    count = 1
    for a in axes:
        count *= x.shape[a]
    counts = jnp.asarray(count, x.dtype)
    if shift is None:
        m_ss, v_ss = x, jnp.square(x)
    else:
        m_ss, v_ss = x - shift, jnp.square(x - shift)
    return counts, jnp.sum(m_ss, axes, keepdims=keep), jnp.sum(v_ss, axes, keepdims=keep), shift


define(
    "nn.sufficient_statistics",
    "Sum",
    _sufficient_statistics,
    params="x, axes, shift=None, keep_dims=None, name=None, keepdims=None",
    tensors="x shift",
    allowed=FLOATING,
    default_name="sufficient_statistics",
)


def _normalize_moments(counts, mean_ss, variance_ss, shift):
    divisor = 1 / counts
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + shift
    variance = variance_ss * divisor - jnp.square(shifted_mean)
    return mean, variance


define(
    "nn.normalize_moments",
    "Sub",
    _normalize_moments,
    params="counts, mean_ss, variance_ss, shift, name=None",
    allowed=FLOATING,
    default_name="normalize",
)


def _batch_normalization(x, mean, variance, offset, scale, variance_epsilon):
    epsilon = jnp.asarray(variance_epsilon, variance.dtype)
    inv = rsqrt(broadcast_add(variance, epsilon))  # TF's Rsqrt kernel
    if scale is not None:
        # (rounded: a barrier, XLA would multiply a constant mean by a constant scale)
        inv = rounded_product(inv, scale)
    # TF's Mul, Sub and Add kernels and their gradients: each product rounded before its
    # sum (no FMA), a broadcast operand's gradient summed in TF's order
    product = rounded_product(mean, inv)
    shift = -product if offset is None else broadcast_subtract(offset, product)
    return broadcast_add(rounded_product(x, inv.astype(x.dtype)), shift.astype(x.dtype))


_batch_normalization_node = define(
    "nn.batch_normalization",
    "AddV2",
    _batch_normalization,
    params="x, mean, variance, offset, scale, variance_epsilon, name=None",
    tensors="x mean variance offset scale",
    same_dtype="mean variance offset scale",
    allowed={"x": FLOATING, "mean": FLOATING},
    default_name="batchnorm",
)


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any,
    scale: Any,
    variance_epsilon: Any,
    name: str | None = None,
) -> ops.Tensor:
    """TF's ``tf.nn.batch_normalization``: ``x * inv + (offset - mean * inv)`` with
    ``inv = rsqrt(variance + variance_epsilon) * scale``.

    Args:
      x: the input.
      mean: its mean (broadcast against ``x``).
      variance: its variance (broadcast against ``x``).
      offset: ``beta``, added (``None``: none).
      scale: ``gamma``, multiplied (``None``: none).
      variance_epsilon: a small float added to ``variance``.
      name: the name scope (default ``"batchnorm"``).

    Returns:
      The normalized ``x``, of its dtype.

    .. note::
       The result is one ``AddV2`` node (TF's last op) named as TF's:
       ``batchnorm/add_1``, or ``batchnorm/add`` when neither ``variance`` nor
       ``variance_epsilon`` is a tensor (TF then adds them in Python); scripts fetch it
       by that name. TF's intermediate ``Rsqrt``/``mul``/``sub`` nodes are not built.
    """
    graph_values = (variance, variance_epsilon)
    tensor_add = any(
        isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_tensor") for v in graph_values
    )
    last = "add_1" if tensor_add else "add"
    with ops.name_scope(name, "batchnorm", [x, mean, variance, offset, scale]):
        out = _batch_normalization_node(
            x, mean, variance, offset, scale, variance_epsilon, name=last
        )
    # x's gradient as TF names it: its ``Mul`` by ``inv`` (``mul_1`` after ``inv *= scale``)
    scope = out.op.name.rpartition("/")[0]
    product = "mul" if scale is None else "mul_1"
    out.op._inner_uses = {0: (f"{scope}/{product}_grad/Mul",)}
    return out


# The table entry, as every lifted function carries it.
batch_normalization._op_def = _batch_normalization_node._op_def
FUNCTIONS["nn.batch_normalization"] = batch_normalization


def _batch_norm_with_global_normalization(
    t=None,
    m=None,
    v=None,
    beta=None,
    gamma=None,
    variance_epsilon=None,
    scale_after_normalization=None,
    input=None,
    mean=None,
    variance=None,
):
    pairs = (("t", t, "input", input), ("m", m, "mean", mean), ("v", v, "variance", variance))
    for old, a, new, b in pairs:
        if a is not None and b is not None:
            raise OpValueError(f"Cannot specify both '{new}' and '{old}'.")
    return _batch_normalization(
        t if input is None else input,
        m if mean is None else mean,
        v if variance is None else variance,
        beta,
        gamma if scale_after_normalization else None,
        variance_epsilon,
    )


define(
    "nn.batch_norm_with_global_normalization",
    "AddV2",
    _batch_norm_with_global_normalization,
    params="t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None, "
    "scale_after_normalization=None, name=None, input=None, mean=None, variance=None",
    tensors="t m v beta gamma input mean variance",
    same_dtype="m v beta gamma mean variance",
    allowed={"t": FLOATING, "input": FLOATING, "m": FLOATING},
    default_name="batchnorm",
)


_BN_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")


def _fused_batch_norm(
    x,
    scale,
    offset,
    mean=None,
    variance=None,
    epsilon=0.001,
    data_format="NHWC",
    is_training=True,
    exponential_avg_factor=1.0,
):
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise OpValueError(
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
            f"`exponential_avg_factor` != 1.0. Received: `mean` {mean} and `variance` {variance}"
        )
    check_attr("FusedBatchNormV3", "data_format", data_format, _BN_FORMATS)
    rank = len(data_format)
    if x.ndim != rank:
        raise shape_error(
            f"Shape must be rank {rank} but is rank {x.ndim}", "FusedBatchNormV3", x, scale
        )
    channel = 1 if channels_first(data_format) else x.ndim - 1
    depth = x.shape[channel]
    for t in (scale, offset) + ((mean, variance) if not is_training else ()):
        if t.shape != (depth,):
            raise shape_error(
                f"Dimensions must be equal, but are {depth} and {t.shape[-1] if t.ndim else 1}",
                "FusedBatchNormV3",
                x,
                scale,
                offset,
            )
    axes = tuple(a for a in range(x.ndim) if a != channel)
    bshape = [1] * x.ndim
    bshape[channel] = depth
    u = scale.dtype
    xu = x.astype(u)
    if is_training:
        batch_mean = jnp.mean(xu, axes)
        batch_var = jnp.mean(jnp.square(xu - batch_mean.reshape(bshape)), axes)
        use_mean, use_var = batch_mean, batch_var
    else:
        use_mean, use_var = lax.stop_gradient(mean), lax.stop_gradient(variance)
    factor = lax.rsqrt(use_var + jnp.asarray(epsilon, u)) * scale
    y = (xu - use_mean.reshape(bshape)) * factor.reshape(bshape) + offset.reshape(bshape)
    y = y.astype(x.dtype)
    if not is_training:
        return y, lax.stop_gradient(mean), lax.stop_gradient(variance)
    n = x.size // depth
    unbiased = batch_var * jnp.asarray(n / max(n - 1, 1), u)
    out_mean, out_var = batch_mean, unbiased
    if exponential_avg_factor != 1.0:
        f = jnp.asarray(exponential_avg_factor, u)
        out_mean = (1 - f) * lax.stop_gradient(mean) + f * batch_mean
        out_var = (1 - f) * lax.stop_gradient(variance) + f * unbiased
    return y, lax.stop_gradient(out_mean), lax.stop_gradient(out_var)


define(
    "nn.fused_batch_norm",
    "FusedBatchNormV3",
    _fused_batch_norm,
    params="x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format='NHWC', "
    "is_training=True, name=None, exponential_avg_factor=1.0",
    tensors="x scale offset mean variance",
    same_dtype="scale offset mean variance",
    allowed={"x": ("float16", "bfloat16", "float32"), "scale": ("float32",)},
    default_name="FusedBatchNormV3",
    tf_gradient="from y only; none to the given mean and variance",
)
