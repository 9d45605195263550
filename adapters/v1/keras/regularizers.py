"""``tf.keras.regularizers``: ``L1``, ``L2``, ``L1L2`` and ``l1``/``l2``/``l1_l2`` (factor 0.01).

``L2(l2)(x)`` is ``l2 * tf.reduce_sum(tf.square(x))`` with ``l2`` rounded to
``floatx`` (TF's ``cast_to_floatx``: ``L2(0.1).l2`` is ``0.1`` as float32);
``L1L2`` starts from a 0.0 constant and adds each nonzero term.
"""

from __future__ import annotations

from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras import backend
from adapters.v1.layers.base import op

__all__ = [
    "L1",
    "L1L2",
    "L2",
    "Regularizer",
    "deserialize",
    "get",
    "l1",
    "l1_l2",
    "l2",
    "serialize",
]


class Regularizer:
    """The base class: ``regularizer(weights)`` is a scalar loss."""

    def __call__(self, x: Any) -> Any:
        return 0.0

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """``cls(**config)``."""
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(|x|) + 2 * l2 * l2_loss(x)``; Args (TF's defaults): l1=0.0, l2=0.0."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0):
        self.l1 = backend.cast_to_floatx(l1)
        self.l2 = backend.cast_to_floatx(l2)

    def __call__(self, x: Any) -> Any:
        # TF's operators: the float32 factors convert to x's dtype (float64 weights)
        regularization = backend.constant(0.0, dtype=x.dtype.base_dtype)
        if self.l1:
            regularization += self.l1 * op("reduce_sum")(op("abs")(x))
        if self.l2:
            regularization += 2.0 * self.l2 * op("nn.l2_loss")(x)
        return regularization

    def get_config(self) -> dict[str, Any]:
        return {"l1": float(self.l1), "l2": float(self.l2)}


class L1(Regularizer):
    """``l1 * sum(|x|)``; Args (TF's defaults): l1=0.01."""

    def __init__(self, l1: float = 0.01, **kwargs: Any):
        l1 = kwargs.pop("l", l1)
        if kwargs:
            raise TypeError(f"Argument(s) not recognized: {kwargs}")
        self.l1 = backend.cast_to_floatx(l1)

    def __call__(self, x: Any) -> Any:
        return self.l1 * op("reduce_sum")(op("abs")(x))

    def get_config(self) -> dict[str, Any]:
        return {"l1": float(self.l1)}


class L2(Regularizer):
    """``2 * l2 * l2_loss(x)`` (``l2 * sum(x ** 2)``); Args (TF's defaults): l2=0.01."""

    def __init__(self, l2: float = 0.01, **kwargs: Any):
        l2 = kwargs.pop("l", l2)
        if kwargs:
            raise TypeError(f"Argument(s) not recognized: {kwargs}")
        self.l2 = backend.cast_to_floatx(l2)

    def __call__(self, x: Any) -> Any:
        return 2.0 * self.l2 * op("nn.l2_loss")(x)  # TF's: l2 * sum(square(x))

    def get_config(self) -> dict[str, Any]:
        return {"l2": float(self.l2)}


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:
    """``L1L2(l1, l2)`` with Keras' 0.01 defaults."""
    return L1L2(l1=l1, l2=l2)


l1 = L1
l2 = L2


_BY_NAME: dict[str, Any] = {"l1": L1, "l2": L2, "l1_l2": l1_l2, "L1": L1, "L2": L2, "L1L2": L1L2}


def serialize(regularizer: Any) -> Any:
    """``{"class_name", "config"}`` of ``regularizer`` (None for None)."""
    from adapters.v1.keras import saving

    return saving.serialize_keras_object(regularizer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The regularizer a :func:`serialize` dict (or a name) describes.

    Raises:
      ValueError: an unknown class name (TF's message).
    """
    from adapters.v1.keras import saving

    return saving.deserialize_keras_object(
        config, _BY_NAME, custom_objects, printable_module_name="regularizer"
    )


def get(identifier: Any) -> Any:
    """The regularizer ``identifier`` names (``"l1"``, ``"l2"``, ``"l1_l2"``, a config
    dict), or itself.

    Raises:
      ValueError: an unknown name or a value that is not callable.
    """
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]()
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")


__getattr__ = missing_name_getattr("tf.keras.regularizers", globals())
