"""``tf.keras.constraints``: projections ``tf.train`` optimizers apply to a variable after
each update (a layer's ``kernel_constraint``...), as Keras' formulas.

``MaxNorm(max_value=2, axis=0)``: ``w * clip(n, 0, max) / (epsilon + n)`` with ``n``
the L2 norms over ``axis``; ``NonNeg``: ``w * (w >= 0)``; ``UnitNorm(axis=0)``:
``w / (epsilon + n)``; ``MinMaxNorm(min_value=0, max_value=1, rate=1, axis=0)``:
``w * (rate * clip(n, min, max) + (1 - rate) * n) / (epsilon + n)``.
"""

from __future__ import annotations

from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras import backend
from adapters.v1.layers.base import op

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "deserialize",
    "get",
    "max_norm",
    "maxnorm",
    "min_max_norm",
    "non_neg",
    "nonneg",
    "serialize",
    "unit_norm",
    "unitnorm",
]


class Constraint:
    """The base class: ``constraint(w)`` returns the projected weights (here ``w``)."""

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """``cls(**config)``."""
        return cls(**config)


def _norms(w: Any, axis: Any) -> Any:
    return backend.sqrt(op("reduce_sum")(op("square")(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Norms over ``axis`` at most ``max_value``; Args (TF's defaults): max_value=2, axis=0."""

    def __init__(self, max_value: float = 2, axis: Any = 0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = backend.clip(norms, 0, self.max_value)
        return op("multiply")(w, op("truediv")(desired, op("add")(backend.epsilon(), norms)))

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Negative weights set to 0."""

    def __call__(self, w: Any) -> Any:
        return op("multiply")(w, op("cast")(op("greater_equal")(w, 0.0), backend.floatx()))


class UnitNorm(Constraint):
    """Norms over ``axis`` scaled to 1; Args (TF's defaults): axis=0."""

    def __init__(self, axis: Any = 0):
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        return op("truediv")(w, op("add")(backend.epsilon(), _norms(w, self.axis)))

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Norms over ``axis`` moved ``rate`` of the way into ``[min_value, max_value]``;
    Args (TF's defaults): min_value=0.0, max_value=1.0, rate=1.0, axis=0."""

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis: Any = 0):  # fmt: skip
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = op("add")(
            op("multiply")(self.rate, backend.clip(norms, self.min_value, self.max_value)),
            op("multiply")(1 - self.rate, norms),
        )
        return op("multiply")(w, op("truediv")(desired, op("add")(backend.epsilon(), norms)))

    def get_config(self) -> dict[str, Any]:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}  # fmt: skip


max_norm = maxnorm = MaxNorm
non_neg = nonneg = NonNeg
unit_norm = unitnorm = UnitNorm
min_max_norm = MinMaxNorm

_BY_NAME: dict[str, Any] = {
    "max_norm": MaxNorm, "maxnorm": MaxNorm, "MaxNorm": MaxNorm,
    "non_neg": NonNeg, "nonneg": NonNeg, "NonNeg": NonNeg,
    "unit_norm": UnitNorm, "unitnorm": UnitNorm, "UnitNorm": UnitNorm,
    "min_max_norm": MinMaxNorm, "MinMaxNorm": MinMaxNorm,
}  # fmt: skip


def serialize(constraint: Any) -> Any:
    """``{"class_name", "config"}`` of ``constraint`` (None for None)."""
    from adapters.v1.keras import saving

    return saving.serialize_keras_object(constraint)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The constraint a :func:`serialize` dict (or a name) describes.

    Raises:
      ValueError: an unknown class name (TF's message).
    """
    from adapters.v1.keras import saving

    return saving.deserialize_keras_object(
        config, _BY_NAME, custom_objects, printable_module_name="constraint"
    )


def get(identifier: Any) -> Any:
    """The constraint ``identifier`` names (a new instance), or itself if callable.

    Raises:
      ValueError: an unknown name or a value that is not callable.
    """
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]()
    raise ValueError(f"Could not interpret constraint function identifier: {identifier}")


__getattr__ = missing_name_getattr("tf.keras.constraints", globals())
