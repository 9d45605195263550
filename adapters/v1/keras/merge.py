"""``tf.keras.layers``' merge functions and ``Dot`` (legacy Keras 2 in a TF1 graph).

``add``, ``subtract``, ``multiply``, ``average``, ``maximum``, ``minimum``,
``concatenate`` and ``dot`` build the layer of that name and call it on their
inputs, as Keras' functional interface does (the layer is named as any other:
``add``, ``add_1``...). ``Dot`` is ``tf.keras.backend.batch_dot`` of two inputs, as
Keras' (checked live against TF 2.21 in tests/interop/test_keras_layers_more_interop.py).
"""

from __future__ import annotations

from typing import Any

from adapters.v1.keras import backend
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
        return backend.batch_dot(x1, x2, axes)


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
