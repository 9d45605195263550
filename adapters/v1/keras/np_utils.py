"""Keras' NumPy helpers ``tf.keras.utils.to_categorical``, ``to_ordinal`` and
``normalize``, as TF 2.21's legacy Keras (``tf_keras/utils/np_utils.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["normalize", "to_categorical", "to_ordinal"]


def _class_ids(y: Any, num_classes: int | None) -> tuple[np.ndarray, tuple[int, ...], int]:
    """``y`` as a flat int array, the output's leading shape (a trailing axis of size 1
    dropped) and the number of classes (``max(y) + 1`` when not given)."""
    ids = np.array(y, dtype="int")
    shape = ids.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = tuple(shape[:-1])
    ids = ids.ravel()
    if not num_classes:
        num_classes = int(np.max(ids)) + 1
    return ids, tuple(shape), num_classes


def to_categorical(y: Any, num_classes: int | None = None, dtype: Any = "float32") -> np.ndarray:
    """One-hot rows for the class ids ``y`` (a trailing axis of size 1 is dropped).

    Args (TF's defaults): y (integer ids), num_classes=None (``max(y) + 1``),
    dtype='float32'.

    Returns:
      A NumPy array of shape ``y.shape + (num_classes,)``.
    """
    ids, shape, num_classes = _class_ids(y, num_classes)
    n = ids.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), ids] = 1
    return np.reshape(categorical, (*shape, num_classes))


def to_ordinal(y: Any, num_classes: int | None = None, dtype: Any = "float32") -> np.ndarray:
    """Ordinal-regression rows for the class ids ``y``: class ``k`` is ``k`` ones then
    zeros, ``num_classes - 1`` columns (a trailing axis of size 1 is dropped).

    Args (TF's defaults): y (integer ids), num_classes=None (``max(y) + 1``),
    dtype='float32'.

    Returns:
      A NumPy array of shape ``y.shape + (num_classes - 1,)``.
    """
    ids, shape, num_classes = _class_ids(y, num_classes)
    ordinal = (np.arange(num_classes - 1)[None, :] < ids[:, None]).astype(dtype)
    return np.reshape(ordinal, (*shape, num_classes - 1))


def normalize(x: Any, axis: int = -1, order: Any = 2) -> np.ndarray:
    """``x`` divided by its ``order``-norm along ``axis`` (a zero norm taken as 1).

    Args (TF's defaults): x (a NumPy array), axis=-1, order=2 (``np.linalg.norm``'s
    ``ord``).

    Returns:
      The normalized copy (``x``'s float dtype; integers give float64, as NumPy).
    """
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)
