"""TF's per-op float operation counts (``ops.RegisterStatistics(op_type, "flops")``).

One table, :data:`FLOPS`, maps a TF op type to a function of the operation giving
the float operations TF 2.21 registers for it (``tensorflow/python/ops/nn_ops.py``,
``math_ops.py`` and ``profiler/internal/flops_registry.py``), computed from the
static shapes of the op's inputs and outputs. Op types not in the table count 0, as
in TF (``Relu``, ``Reshape``, ``Identity``...).

.. note:: As TF, a count needing a shape that is not fully static raises
   ``ValueError``; the profiler then counts 0 for that op and reports how many.
   Pooling and the backprop convolutions count only NHWC, as TF (``ValueError``
   otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "FLOPS",
    "COMPOSITES",
    "composite_float_ops",
    "float_ops",
    "is_tf_op_type",
    "stands_for_tf_ops",
]

# TF op types missing from the two generated lists ``is_tf_op_type`` reads (TF ops with
# neither a registered gradient nor a default attribute).
_MORE_TF_TYPES = frozenset({"NoOp", "IteratorGetNext", "IteratorV2", "MakeIterator"})


def is_tf_op_type(op_type: str) -> bool:
    """Whether ``op_type`` is an op type of TF 2.21's library (its gradient registry,
    its op definitions with defaults, ``_MORE_TF_TYPES``)."""
    from adapters.v1.framework.op_def_defaults_table import DEFAULTS
    from adapters.v1.ops._tf_gradient_names import TF_GRADIENT_NAMES

    return op_type in TF_GRADIENT_NAMES or op_type in DEFAULTS or op_type in _MORE_TF_TYPES


def _dims(tensor: Any) -> list[int]:
    """The static shape of ``tensor`` as ints; ``ValueError`` (TF's
    ``assert_is_fully_defined``) if it is not fully defined."""
    shape = tensor.shape
    if shape.dims is None or any(d is None for d in shape.as_list()):
        raise ValueError(f"Shape {shape} is not fully defined")
    return [int(d) for d in shape.as_list()]


def _count(tensor: Any) -> int:
    return math.prod(_dims(tensor))


def _attr(op: Any, name: str, default: Any = None) -> Any:
    attrs = getattr(op, "_static_attrs", None) or {}
    value = attrs.get(name, default)
    return default if value is None else value


def _unary(per_element: int) -> Callable[[Any], int]:
    return lambda op: _count(op.inputs[0]) * per_element


def _binary(per_element: int) -> Callable[[Any], int]:
    return lambda op: _count(op.outputs[0]) * per_element


def _reduction(reduce_flops: int, finalize_flops: int) -> Callable[[Any], int]:
    def flops(op: Any) -> int:
        n_in, n_out = _count(op.inputs[0]), _count(op.outputs[0])
        return n_in * reduce_flops + n_out * (finalize_flops - reduce_flops)

    return flops


def _nhwc(op: Any) -> None:
    if _attr(op, "data_format", "NHWC") != "NHWC":
        raise ValueError("Only NHWC format is supported in flops computations")


def _pool(op: Any) -> int:
    _nhwc(op)
    return math.prod(_attr(op, "ksize")) * _count(op.outputs[0])


def _avg_pool_grad(op: Any) -> int:
    _nhwc(op)
    return math.prod(_attr(op, "ksize")) * _count(op.inputs[1]) * 2


def _max_pool_grad(op: Any) -> int:
    _nhwc(op)
    n = _count(op.inputs[1])
    return math.prod(_attr(op, "ksize")) * n + n


def _conv_backprop(image: Any, kernel: Any, op: Any) -> int:
    _nhwc(op)
    image_dims, kernel_count = _dims(image), _count(kernel)
    strides = _attr(op, "strides")
    # TF divides in floating point and keeps the integer part (OpLogEntry is int64).
    return int(
        2 * math.prod(image_dims) * kernel_count / (image_dims[-1] * strides[1] * strides[2])
    )


def _conv2d(op: Any) -> int:
    _count(op.inputs[0])
    height, width, in_depth = _dims(op.inputs[1])[:3]
    return _count(op.outputs[0]) * in_depth * height * width * 2


def _conv3d(op: Any) -> int:
    _count(op.inputs[0])
    time, height, width, in_depth = _dims(op.inputs[1])[:4]
    return _count(op.outputs[0]) * in_depth * time * height * width * 2


def _depthwise(op: Any) -> int:  # also Dilation2D: output * filter area * 2
    _count(op.inputs[0])
    height, width = _dims(op.inputs[1])[:2]
    return _count(op.outputs[0]) * height * width * 2


def _add_n(op: Any) -> int:
    if not op.inputs:
        return 0
    return _count(op.inputs[0]) * (len(op.inputs) - 1)


def _matmul(op: Any) -> int:
    """``2 k`` per output element; ``k`` from the last two dimensions of ``a`` (jtrain's
    ``MatMul`` op also stands for TF's ``BatchMatMulV2`` of rank > 2 inputs)."""
    a = _dims(op.inputs[0])
    transpose = bool(_attr(op, "transpose_a", False) or _attr(op, "adjoint_a", False))
    if not transpose:
        transpose = bool(_attr(op, "adj_x", False))
    k = a[-2] if transpose else a[-1]
    return k * _count(op.outputs[0]) * 2


FLOPS: dict[str, Callable[[Any], int]] = {
    # unary
    "Reciprocal": _unary(1),
    "Square": _unary(1),
    "Rsqrt": _unary(2),
    "Log": _unary(1),
    "Neg": _unary(1),
    "AssignSub": _unary(1),
    "AssignAdd": _unary(1),
    "L2Loss": lambda op: _count(op.inputs[0]) * 3 - 1,
    "Softmax": _unary(5),
    # binary, per output element
    **dict.fromkeys(
        [
            "Add",
            "AddV2",
            "Sub",
            "Mul",
            "RealDiv",
            "Maximum",
            "Minimum",
            "Pow",
            "GreaterEqual",
            "Greater",
            "LessEqual",
            "Less",
            "Equal",
            "NotEqual",
        ],
        _binary(1),
    ),
    "RsqrtGrad": _binary(4),
    "SquaredDifference": _binary(2),
    # reductions
    "Mean": _reduction(1, 1),
    "Sum": _reduction(1, 0),
    "ArgMax": _reduction(1, 0),
    "ArgMin": _reduction(1, 0),
    "BiasAddGrad": _reduction(1, 0),
    # convolution and pooling
    "AvgPool": _pool,
    "MaxPool": _pool,
    "AvgPoolGrad": _avg_pool_grad,
    "MaxPoolGrad": _max_pool_grad,
    "Conv2DBackpropInput": lambda op: _conv_backprop(op.outputs[0], op.inputs[1], op),
    "Conv2DBackpropFilter": lambda op: _conv_backprop(op.inputs[0], op.outputs[0], op),
    "Conv2D": _conv2d,
    "Conv3D": _conv3d,
    "DepthwiseConv2dNative": _depthwise,
    "Dilation2D": _depthwise,
    "BiasAdd": lambda op: _count(op.inputs[0]),
    # other
    "AddN": _add_n,
    "MatMul": _matmul,
    "BatchMatMul": _matmul,
    "BatchMatMulV2": _matmul,
    "BatchMatMulV3": _matmul,
}


# The most inputs TF's op of each type takes (TF's count reads them): a jtrain op of
# the type with more inputs stands for several TF ops (``tf.nn.batch_normalization``
# is one ``AddV2`` of five inputs).
_UNARY_TYPES = ("Reciprocal", "Square", "Rsqrt", "Log", "Neg", "L2Loss", "Softmax")
_THREE_INPUT_TYPES = ("AvgPoolGrad", "MaxPoolGrad", "Conv2DBackpropInput", "Conv2DBackpropFilter")
_MOST_INPUTS = {
    **{t: 2 for t in FLOPS},
    **dict.fromkeys(_UNARY_TYPES, 1),
    **dict.fromkeys(("AvgPool", "MaxPool"), 1),
    **dict.fromkeys(_THREE_INPUT_TYPES, 3),
}
del _MOST_INPUTS["AddN"]


def _softmax_xent(op: Any) -> int:
    """TF's ``softmax_cross_entropy_with_logits``: three scalar ``Sub`` ops computing
    ranks to flatten the logits (measured for ranks 2 and 3); the kernel has none."""
    shape = op.inputs[-1].shape
    if shape.dims is None or len(shape.dims) < 2:
        raise NotImplementedError("logits of rank < 2 or unknown rank")
    return 3


def _random_uniform(op: Any) -> int:
    """``tf.random_uniform`` (inputs: random state, minval, maxval): TF scales and
    shifts a float sample (``sub``, ``mul``, ``add``: ``2n+1``) unless ``minval`` is 0
    and ``maxval`` 1; integer samples 0."""
    if len(op.inputs) != 3:  # TF's own op (a shape input): no float operations
        return 0
    if not op.outputs[0].dtype.is_floating:
        return 0
    low, high = (t.op._const_value for t in op.inputs[1:])  # after the random state
    if low is not None and high is not None and float(low) == 0.0 and float(high) == 1.0:
        return 0
    return 2 * _count(op.outputs[0]) + 1


def _random_normal(op: Any) -> int:
    """``tf.random_normal``/``tf.truncated_normal``: ``mul`` by ``stddev`` and ``add`` of
    ``mean`` (``2n``), whatever their values."""
    return 2 * _count(op.outputs[0]) if len(op.inputs) == 3 else 0


# jtrain ops standing for several TF ops, with TF's count of those ops: clip_by_value
# (``Minimum`` and ``Maximum``), sigmoid_cross_entropy_with_logits (``GreaterEqual``,
# ``Neg``, ``Mul``, ``Sub``, ``AddV2``).
COMPOSITES: dict[str, Callable[[Any], int]] = {
    "SoftmaxCrossEntropyWithLogits": _softmax_xent,
    "ClipByValue": lambda op: 2 * _count(op.outputs[0]),
    "SigmoidCrossEntropyWithLogits": lambda op: 5 * _count(op.outputs[0]),
    # jtrain's random ops take (minval, maxval) or (mean, stddev) and the random state
    "RandomUniform": _random_uniform,
    "RandomStandardNormal": _random_normal,
    "TruncatedNormal": _random_normal,
    # the random state of jtrain's random ops: no TF op, no float operations
    "RandomGenerator": lambda op: 0,
    # tf.nn.moments: Mean, SquaredDifference (2 per element), Mean of the input's size
    "Moments": lambda op: 4 * _count(op.inputs[0]),
}


def _broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(d) for d in np.broadcast_shapes(*shapes))


def _batch_normalization(op: Any) -> int:
    """``tf.nn.batch_normalization`` (jtrain: one ``AddV2`` of ``x, mean, variance``
    and, when given, ``offset, scale``): TF's ``add`` of epsilon, ``Rsqrt`` (2 per
    element), ``mul`` by ``scale``, ``mul`` of ``mean``, ``sub`` (or ``neg``), ``mul``
    of ``x`` and the final ``add``, each per element of its broadcast output."""
    attrs = getattr(op, "_static_attrs", None) or {}
    if "scale_after_normalization" in attrs or len(op.inputs) not in (3, 5):
        # batch_norm_with_global_normalization, or only one of offset and scale given:
        # which one is not recorded on the op
        raise NotImplementedError("batch normalization with one of offset and scale")
    x, mean, var = (tuple(_dims(t)) for t in op.inputs[:3])
    inv = var
    flops = 3 * math.prod(var)  # variance + epsilon, rsqrt
    offset = None
    if len(op.inputs) == 5:
        offset, scale = (tuple(_dims(t)) for t in op.inputs[3:])
        inv = _broadcast(inv, scale)
        flops += math.prod(inv)
    mean_inv = _broadcast(mean, inv)
    shift = mean_inv if offset is None else _broadcast(offset, mean_inv)
    x_inv = _broadcast(x, inv)
    out = _broadcast(x_inv, shift)
    return flops + math.prod(mean_inv) + math.prod(shift) + math.prod(x_inv) + math.prod(out)


def composite_float_ops(op: Any) -> int:
    """TF's float operations of the TF ops the jtrain op ``op`` stands for.

    Raises:
      NotImplementedError: jtrain does not know TF's count for this op.
      ValueError: a shape the count needs is not fully static.
    """
    count = COMPOSITES.get(op.type)
    if count is None and op.type == "AddV2" and "variance_epsilon" in (op._static_attrs or {}):
        count = _batch_normalization
    if count is None:
        raise NotImplementedError(op.type)
    return int(count(op))


def stands_for_tf_ops(op: Any) -> bool:
    """Whether the jtrain op ``op`` stands for several TF ops: its type is no TF op type,
    is one of :data:`COMPOSITES`, or it has more inputs than TF's op of its type."""
    if op.type in COMPOSITES or not is_tf_op_type(op.type):
        return True
    most = _MOST_INPUTS.get(op.type)
    return most is not None and len(op.inputs) > most


def float_ops(op: Any) -> int:
    """TF's registered float operations of ``op`` (0 for an op type TF registers none
    for); see :func:`composite_float_ops` for ops standing for several TF ops.

    Raises:
      ValueError: a shape the count needs is not fully static (TF counts 0).
    """
    count = FLOPS.get(op.type)
    return 0 if count is None else int(count(op))
