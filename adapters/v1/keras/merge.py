"""``tf.keras.layers``' merge functions and ``Dot`` (legacy Keras 2 in a TF1 graph).

``add``, ``subtract``, ``multiply``, ``average``, ``maximum``, ``minimum``,
``concatenate`` and ``dot`` build the layer of that name and call it on their
inputs, as Keras' functional interface does (the layer is named as any other:
``add``, ``add_1``...). ``Dot`` is Keras' ``backend.batch_dot`` of two inputs, with
its transposes, reshapes, ``MatMul`` and squeezes as Keras builds them (checked
live against TF 2.21 in tests/interop/test_keras_layers_more_interop.py).
"""

from __future__ import annotations

from typing import Any

from adapters.v1.keras.layers import (
    Add,
    Average,
    Concatenate,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    _Merge,
)
from adapters.v1.layers.base import op

__all__ = [
    "Dot",
    "add",
    "average",
    "concatenate",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
]


def _batch_dot(x: Any, y: Any, axes: list[int]) -> Any:
    """Keras' ``backend.batch_dot(x, y, axes)`` for two known-rank tensors."""
    x_shape, y_shape = x.shape.as_list(), y.shape.as_list()
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    if x_ndim < 2 or y_ndim < 2:
        raise ValueError(
            "Cannot do batch_dot on inputs with rank < 2. Received inputs with "
            f"shapes {tuple(x_shape)} and {tuple(y_shape)}."
        )
    if x_shape[0] is not None and y_shape[0] is not None and x_shape[0] != y_shape[0]:
        raise ValueError(
            "Cannot do batch_dot on inputs with different batch sizes. Received inputs "
            f"with shapes {tuple(x_shape)} and {tuple(y_shape)}."
        )
    a0, a1 = axes
    if a0 < 0:
        a0 += x_ndim
    if a1 < 0:
        a1 += y_ndim
    if 0 in (a0, a1):
        raise ValueError(
            "Cannot perform batch_dot over axis 0. If your inputs are not batched, add a "
            "dummy batch dimension to your inputs using K.expand_dims(x, 0)"
        )
    d1, d2 = x_shape[a0], y_shape[a1]
    if d1 is not None and d2 is not None and d1 != d2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with shapes {tuple(x_shape)} and "
            f"{tuple(y_shape)} with axes={[a0, a1]}. x.shape[{a0}] != y.shape[{a1}] "
            f"({d1} != {d2})."
        )
    orig_x_ndim, orig_y_ndim = x_ndim, y_ndim
    if x_ndim == 2:
        x = op("expand_dims")(x, 1)
        a0 += 1
        x_ndim += 1
    if y_ndim == 2:
        y = op("expand_dims")(y, 2)
        y_ndim += 1
    if a0 != x_ndim - 1:
        pattern = list(range(x_ndim))
        for i in range(a0, x_ndim - 1):
            pattern[i] = pattern[i + 1]
        pattern[-1] = a0
        x = op("transpose")(x, pattern)
    if a1 != 1:
        pattern = list(range(y_ndim))
        for i in range(a1, 1, -1):
            pattern[i] = pattern[i - 1]
        pattern[1] = a1
        y = op("transpose")(y, pattern)
    x_squashed = y_squashed = False
    if x_ndim > 3:
        shape = op("shape")(x)
        x_mid_dims = shape[1:-1]
        x = op("reshape")(x, op("stack")([shape[0], -1, shape[-1]]))
        x_squashed = True
    if y_ndim > 3:
        shape = op("shape")(y)
        y_trail_dims = shape[2:]
        y = op("reshape")(y, op("stack")([shape[0], shape[1], -1]))
        y_squashed = True
    result = op("matmul")(x, y)
    output_shape = op("shape")(result)
    if x_squashed:
        output_shape = op("concat")([output_shape[:1], x_mid_dims, output_shape[-1:]], 0)
    if y_squashed:
        output_shape = op("concat")([output_shape[:-1], y_trail_dims], 0)
    if x_squashed or y_squashed:
        result = op("reshape")(result, output_shape)
    if orig_x_ndim == 2:
        result = op("squeeze")(result, [1])
    elif orig_y_ndim == 2:
        result = op("squeeze")(result, [-1])
    return result


class Dot(_Merge):
    """The dot product of two tensors' samples along ``axes`` (``tf.keras.layers.Dot``).

    Args (TF's defaults): axes (an int, or one axis per input), normalize=False (L2-
    normalize both along their axis first: the cosine proximity), **kwargs.

    Raises:
      TypeError: ``axes`` neither an int nor a list or tuple (TF's message).
      ValueError: ``axes`` not two ints; (when called) not two inputs, or axes of
        different sizes (TF's messages).
    """

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(
                    "Invalid type for argument `axes`: it should be "
                    f"a list or an int. Received: axes={axes}"
                )
            if len(axes) != 2:
                raise ValueError(
                    "Invalid format for argument `axes`: it should contain two "
                    f"elements. Received: axes={axes}"
                )
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(
                    "Invalid format for argument `axes`: list elements should "
                    f"be integers. Received: axes={axes}"
                )
        self.axes = axes
        self.normalize = normalize

    def _axes(self, ranks: list[int]) -> list[int]:
        if isinstance(self.axes, int):
            if self.axes < 0:
                return [self.axes % ranks[0], self.axes % ranks[1]]
            return [self.axes] * 2
        return [a % r if a < 0 else a for a, r in zip(self.axes, ranks, strict=True)]

    def _check_input(self, inputs: Any) -> None:
        if not isinstance(inputs, (list, tuple)):
            shape = tuple(inputs.shape.as_list()) if inputs.shape.ndims is not None else None
            raise ValueError(
                "A `Dot` layer should be called on a list of 2 inputs. Received: "
                f"input_shape={shape}"
            )

    def build(self, input_shape: Any) -> None:
        shapes = [tuple(s.as_list()) for s in input_shape]
        if len(shapes) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                f"input_shape={shapes}"
            )
        shape1, shape2 = shapes
        if isinstance(self.axes, int):
            axes = self._axes([len(shape1), len(shape2)])
        else:
            axes = list(self.axes)
        if shape1[axes[0]] != shape2[axes[1]]:
            raise ValueError(
                "Incompatible input shapes: "
                f"axis values {shape1[axes[0]]} (at axis {axes[0]}) != "
                f"{shape2[axes[1]]} (at axis {axes[1]}). "
                f"Full input shapes: {shape1}, {shape2}"
            )
        self.built = True

    def call(self, inputs: Any) -> Any:
        x1, x2 = inputs
        axes = self._axes([x1.shape.ndims, x2.shape.ndims])
        if self.normalize:
            x1 = op("nn.l2_normalize")(x1, axis=axes[0])
            x2 = op("nn.l2_normalize")(x2, axis=axes[1])
        return _batch_dot(x1, x2, axes)


def add(inputs: list[Any], **kwargs: Any) -> Any:
    """``Add(**kwargs)(inputs)``: the sum of a list of tensors (``tf.keras.layers.add``)."""
    return Add(**kwargs)(inputs)


def subtract(inputs: list[Any], **kwargs: Any) -> Any:
    """``Subtract(**kwargs)(inputs)``: ``inputs[0] - inputs[1]`` (``tf.keras.layers.subtract``)."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: list[Any], **kwargs: Any) -> Any:
    """``Multiply(**kwargs)(inputs)``: the product of a list of tensors
    (``tf.keras.layers.multiply``)."""
    return Multiply(**kwargs)(inputs)


def average(inputs: list[Any], **kwargs: Any) -> Any:
    """``Average(**kwargs)(inputs)``: the mean of a list of tensors
    (``tf.keras.layers.average``)."""
    return Average(**kwargs)(inputs)


def maximum(inputs: list[Any], **kwargs: Any) -> Any:
    """``Maximum(**kwargs)(inputs)``: the element-wise maximum (``tf.keras.layers.maximum``)."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs: list[Any], **kwargs: Any) -> Any:
    """``Minimum(**kwargs)(inputs)``: the element-wise minimum (``tf.keras.layers.minimum``)."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: list[Any], axis: int = -1, **kwargs: Any) -> Any:
    """``Concatenate(axis=axis, **kwargs)(inputs)`` (``tf.keras.layers.concatenate``);
    axis=-1."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: list[Any], axes: Any, normalize: bool = False, **kwargs: Any) -> Any:
    """``Dot(axes, normalize, **kwargs)(inputs)`` (``tf.keras.layers.dot``); normalize=False."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
