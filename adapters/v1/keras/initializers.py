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
from adapters.v1.ops import init_ops

__all__ = [
    "Constant",
    "Identity",
    "Initializer",
    "Ones",
    "Orthogonal",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "constant",
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
glorot_uniform = init_ops.glorot_uniform_initializer
glorot_normal = init_ops.glorot_normal_initializer
he_normal = init_ops.he_normal
he_uniform = init_ops.he_uniform
lecun_normal = init_ops.lecun_normal
lecun_uniform = init_ops.lecun_uniform


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


def get(identifier: Any) -> Any:
    """The initializer ``identifier`` names (a string: a new instance), or itself.

    Raises:
      ValueError: an unknown name or a value that is not callable.
    """
    if identifier is None or callable(identifier) and not isinstance(identifier, str):
        return identifier
    if isinstance(identifier, str):
        key = _CLASS_NAMES.get(identifier, identifier)
        if key in _BY_NAME:
            return _BY_NAME[key]()
        raise ValueError(
            f"Unknown initializer: '{identifier}'. Please ensure you are using a "
            "`keras.utils.custom_object_scope` and that this object is included "
            "in the scope."
        )
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


__getattr__ = missing_name_getattr("tf.keras.initializers", globals())
