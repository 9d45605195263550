"""``tf.keras.utils``: ``to_categorical`` (NumPy, as Keras')."""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras.data_utils import Sequence

__all__ = ["Sequence", "to_categorical"]


def to_categorical(y: Any, num_classes: int | None = None, dtype: Any = "float32") -> np.ndarray:
    """One-hot rows for the class ids ``y`` (a trailing axis of size 1 is dropped).

    Args (TF's defaults): y (integer ids), num_classes=None (``max(y) + 1``),
    dtype='float32'.

    Returns:
      A NumPy array of shape ``y.shape + (num_classes,)``.
    """
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = int(np.max(y)) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, (*input_shape, num_classes))


__getattr__ = missing_name_getattr("tf.keras.utils", globals())
