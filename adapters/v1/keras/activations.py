"""``tf.keras.activations``: Keras' activation functions on graph tensors, and ``get``.

Each applies TF's op (``tf.nn.relu``, ``tf.sigmoid``, ``tf.nn.softmax``...), so
the graph holds TF's op names (``dense/Relu``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.layers.base import op

__all__ = [
    "deserialize",
    "elu",
    "exponential",
    "get",
    "hard_sigmoid",
    "linear",
    "relu",
    "selu",
    "serialize",
    "sigmoid",
    "softmax",
    "softplus",
    "softsign",
    "swish",
    "tanh",
]


def relu(x: Any, alpha: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> Any:
    """``max(x, 0)``; with ``alpha`` a leaky slope below 0, ``max_value`` a ceiling.

    Raises:
      NotImplementedError: a nonzero ``threshold``.
    """
    if threshold != 0:
        raise NotImplementedError(
            "tf.keras.activations.relu: threshold != 0 is not supported "
            "by adapters.v1; write tf.where(x > threshold, x, 0)"
        )
    if alpha != 0:
        y = op("nn.leaky_relu")(x, alpha=alpha)
    elif max_value == 6:
        return op("nn.relu6")(x)
    else:
        y = op("nn.relu")(x)
    if max_value is not None:
        y = op("clip_by_value")(y, 0 if alpha == 0 else y.dtype.min, max_value)
    return y


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))`` (``tf.sigmoid``)."""
    return op("sigmoid")(x)


def tanh(x: Any) -> Any:
    """``tf.tanh``."""
    return op("tanh")(x)


def softmax(x: Any, axis: int = -1) -> Any:
    """``tf.nn.softmax(x, axis)``.

    Raises:
      ValueError: a rank-1 input (TF's: "Cannot apply softmax to a tensor that is 1D").
    """
    if x.shape.ndims == 1:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
    return op("nn.softmax")(x, axis=axis)


def elu(x: Any, alpha: float = 1.0) -> Any:
    """``tf.nn.elu`` (``alpha`` scales the negative part)."""
    y = op("nn.elu")(x)
    if alpha == 1:
        return y
    return op("where_v2")(op("greater")(x, 0), y, op("multiply")(alpha, y))


def selu(x: Any) -> Any:
    """``tf.nn.selu``."""
    return op("nn.selu")(x)


def softplus(x: Any) -> Any:
    """``tf.nn.softplus``."""
    return op("nn.softplus")(x)


def softsign(x: Any) -> Any:
    """``tf.nn.softsign``."""
    return op("nn.softsign")(x)


def swish(x: Any) -> Any:
    """``tf.nn.swish``: ``x * sigmoid(x)``."""
    return op("nn.swish")(x)


def exponential(x: Any) -> Any:
    """``tf.exp``."""
    return op("exp")(x)


def hard_sigmoid(x: Any) -> Any:
    """``clip(0.2 * x + 0.5, 0, 1)``."""
    y = op("add")(op("multiply")(x, 0.2), 0.5)
    return op("clip_by_value")(y, 0.0, 1.0)


def linear(x: Any) -> Any:
    """The identity (``x`` itself)."""
    return x


_BY_NAME: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (
        relu,
        sigmoid,
        tanh,
        softmax,
        elu,
        selu,
        softplus,
        softsign,
        swish,
        exponential,
        hard_sigmoid,
        linear,
    )
}


def get(identifier: Any) -> Callable[..., Any]:
    """The activation ``identifier`` names (``None`` and ``"linear"``: ``linear``).

    Raises:
      ValueError: an unknown name.
      TypeError: neither a name nor a callable.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier}")


def serialize(activation: Callable[..., Any]) -> str:
    """The name a config holds for ``activation`` (Keras' own by their name; another
    function by its ``__name__``, as tf-keras' legacy serialization).

    Raises:
      ValueError: an object without a name.
    """
    name = getattr(activation, "__name__", None)
    if name is None:
        raise ValueError(f"Unknown activation function '{activation}'.")
    return str(name)


def deserialize(name: str, custom_objects: dict[str, Any] | None = None) -> Callable[..., Any]:
    """The activation ``name`` names: ``custom_objects`` first (and the custom objects
    of a load in progress), then Keras' own.

    Raises:
      ValueError: an unknown name (TF's message).
    """
    from adapters.v1.keras import saving

    found = saving._custom(name, custom_objects) if isinstance(name, str) else None
    if found is not None:
        return found
    if not isinstance(name, str) or name not in _BY_NAME:
        raise ValueError(
            f"Unknown activation function: '{name}'. Please ensure you "
            "are using a `keras.utils.custom_object_scope` and that this "
            "object is included in the scope."
        )
    return _BY_NAME[name]


__getattr__ = missing_name_getattr("tf.keras.activations", globals())
