"""``tf.keras.initializers`` (legacy Keras 2, TF1 API): TF's v1 initializers under Keras' names.

Keras' v1 random initializers default to a 0.05 spread (``RandomNormal``'s and
``TruncatedNormal``'s ``stddev``, ``RandomUniform``'s ``[-0.05, 0.05)``); the
others are ``tf.initializers``' own. ``get`` resolves the strings layers take
(``"glorot_uniform"``, ``"zeros"``, ``"he_normal"``...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import dtypes
from adapters.v1.ops import init_ops

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "Initializer",
    "LecunNormal",
    "LecunUniform",
    "Ones",
    "Orthogonal",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "constant",
    "deserialize",
    "get",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "identity",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "ones",
    "orthogonal",
    "random_normal",
    "random_uniform",
    "serialize",
    "truncated_normal",
    "uniform",
    "zeros",
]

Initializer = init_ops._Initializer
Zeros = zeros = init_ops.zeros_initializer
Ones = ones = init_ops.ones_initializer
Constant = constant = init_ops.constant_initializer
VarianceScaling = init_ops.variance_scaling_initializer
Orthogonal = orthogonal = init_ops.orthogonal_initializer
Identity = identity = init_ops.identity_initializer
GlorotUniform = glorot_uniform = init_ops.glorot_uniform_initializer
GlorotNormal = glorot_normal = init_ops.glorot_normal_initializer


class _SeedOnly(init_ops.variance_scaling_initializer):
    """A variance scaling initializer Keras configures by its seed only (TF 1's
    ``HeNormal``, ``HeUniform``, ``LecunNormal``, ``LecunUniform``)."""

    _scaling: tuple[float, str, str] = (1.0, "fan_in", "truncated_normal")

    def __init__(self, seed: int | None = None):
        super().__init__(*self._scaling, seed=seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed}


class HeNormal(_SeedOnly):
    """``VarianceScaling(2.0, "fan_in", "truncated_normal", seed)``; Args: seed=None."""

    _scaling = (2.0, "fan_in", "truncated_normal")


class HeUniform(_SeedOnly):
    """``VarianceScaling(2.0, "fan_in", "uniform", seed)``; Args: seed=None."""

    _scaling = (2.0, "fan_in", "uniform")


class LecunNormal(_SeedOnly):
    """``VarianceScaling(1.0, "fan_in", "truncated_normal", seed)``; Args: seed=None."""

    _scaling = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_SeedOnly):
    """``VarianceScaling(1.0, "fan_in", "uniform", seed)``; Args: seed=None."""

    _scaling = (1.0, "fan_in", "uniform")


he_normal, he_uniform = HeNormal, HeUniform
lecun_normal, lecun_uniform = LecunNormal, LecunUniform


class RandomNormal(init_ops.random_normal_initializer):
    """Normal samples (Keras' defaults: ``mean=0.0, stddev=0.05, seed=None``)."""

    def __init__(
        self,
        mean: float = 0.0,
        stddev: float = 0.05,
        seed: int | None = None,
        dtype: Any = np.float32,
    ):
        super().__init__(mean, stddev, seed, dtype)


class RandomUniform(init_ops.random_uniform_initializer):
    """Uniform samples (Keras' defaults: ``minval=-0.05, maxval=0.05, seed=None``)."""

    def __init__(
        self,
        minval: float = -0.05,
        maxval: float = 0.05,
        seed: int | None = None,
        dtype: Any = np.float32,
    ):
        super().__init__(minval, maxval, seed, dtype)


class TruncatedNormal(init_ops.truncated_normal_initializer):
    """Truncated normal samples (Keras' defaults: ``mean=0.0, stddev=0.05, seed=None``)."""

    def __init__(
        self,
        mean: float = 0.0,
        stddev: float = 0.05,
        seed: int | None = None,
        dtype: Any = np.float32,
    ):
        super().__init__(mean, stddev, seed, dtype)


normal = random_normal = RandomNormal
uniform = random_uniform = RandomUniform
truncated_normal = TruncatedNormal

_BY_NAME: dict[str, Callable[[], Any]] = {
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "variance_scaling": VarianceScaling,
    "orthogonal": Orthogonal,
    "identity": Identity,
    "glorot_uniform": glorot_uniform,
    "glorot_normal": glorot_normal,
    "he_normal": he_normal,
    "he_uniform": he_uniform,
    "lecun_normal": lecun_normal,
    "lecun_uniform": lecun_uniform,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "normal": RandomNormal,
    "uniform": RandomUniform,
}
_CLASS_NAMES = {
    "Zeros": "zeros",
    "Ones": "ones",
    "Constant": "constant",
    "VarianceScaling": "variance_scaling",
    "Orthogonal": "orthogonal",
    "Identity": "identity",
    "GlorotUniform": "glorot_uniform",
    "GlorotNormal": "glorot_normal",
    "HeNormal": "he_normal",
    "HeUniform": "he_uniform",
    "LecunNormal": "lecun_normal",
    "LecunUniform": "lecun_uniform",
    "RandomNormal": "random_normal",
    "RandomUniform": "random_uniform",
    "TruncatedNormal": "truncated_normal",
}


# Keras' class names, most derived first (``RandomNormal`` is TF's
# ``random_normal_initializer`` with Keras' defaults)
_KERAS_NAMES: list[tuple[type, str]] = [
    (HeNormal, "HeNormal"),
    (HeUniform, "HeUniform"),
    (LecunNormal, "LecunNormal"),
    (LecunUniform, "LecunUniform"),
    (init_ops.glorot_uniform_initializer, "GlorotUniform"),
    (init_ops.glorot_normal_initializer, "GlorotNormal"),
    (init_ops.variance_scaling_initializer, "VarianceScaling"),
    (init_ops.zeros_initializer, "Zeros"),
    (init_ops.ones_initializer, "Ones"),
    (init_ops.constant_initializer, "Constant"),
    (init_ops.orthogonal_initializer, "Orthogonal"),
    (init_ops.identity_initializer, "Identity"),
    (init_ops.random_normal_initializer, "RandomNormal"),
    (init_ops.random_uniform_initializer, "RandomUniform"),
    (init_ops.truncated_normal_initializer, "TruncatedNormal"),
]
_FROM_KERAS_NAME: dict[str, Any] = {
    "HeNormal": HeNormal,
    "HeUniform": HeUniform,
    "LecunNormal": LecunNormal,
    "LecunUniform": LecunUniform,
    "GlorotUniform": GlorotUniform,
    "GlorotNormal": GlorotNormal,
    "VarianceScaling": VarianceScaling,
    "Zeros": Zeros,
    "Ones": Ones,
    "Constant": Constant,
    "Orthogonal": Orthogonal,
    "Identity": Identity,
    "RandomNormal": RandomNormal,
    "RandomUniform": RandomUniform,
    "TruncatedNormal": TruncatedNormal,
}


def serialize(initializer: Any) -> Any:
    """``{"class_name", "config"}`` as TF 1's Keras writes ``initializer`` (the dtype
    by name; ``Constant`` without ``verify_shape``); None for None.

    Raises:
      ValueError: an object that is not an initializer with a config.
    """
    if initializer is None:
        return None
    name = next((n for cls, n in _KERAS_NAMES if type(initializer) is cls), None)
    if name is None:
        name = next(
            (n for cls, n in _KERAS_NAMES if isinstance(initializer, cls)),
            type(initializer).__name__,
        )
    if not hasattr(initializer, "get_config"):
        raise ValueError(f"Cannot serialize {initializer}: it has no `get_config()`.")
    config = dict(initializer.get_config())
    if "dtype" in config:
        config["dtype"] = None if config["dtype"] is None else dtypes.as_dtype(config["dtype"]).name
    if name == "Constant":
        config.pop("verify_shape", None)
        if isinstance(config.get("value"), np.ndarray):
            config["value"] = config["value"].tolist()
    return {"class_name": name, "config": config}


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The initializer a :func:`serialize` dict (or a name) describes: a new instance
    (``custom_objects`` and a load's custom objects looked up first).

    Raises:
      ValueError: an unknown class name (TF's message).
    """
    from adapters.v1.keras import saving

    if isinstance(config, str):
        key = _CLASS_NAMES.get(config, config)
        objects: dict[str, Any] = dict(_BY_NAME)
        objects[config] = objects.get(key, _FROM_KERAS_NAME.get(config))
        objects = {k: v for k, v in objects.items() if v is not None}
        return saving.deserialize_keras_object(
            config, objects, custom_objects, printable_module_name="initializer"
        )
    return saving.deserialize_keras_object(
        config, _FROM_KERAS_NAME, custom_objects, printable_module_name="initializer"
    )


def get(identifier: Any) -> Any:
    """The initializer ``identifier`` names (a string or a config dict: a new
    instance), or itself.

    Raises:
      ValueError: an unknown name or a value that is not callable.
    """
    if identifier is None or callable(identifier) and not isinstance(identifier, str):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


__getattr__ = missing_name_getattr("tf.keras.initializers", globals())
