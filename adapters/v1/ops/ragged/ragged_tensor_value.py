"""``tf.compat.v1.ragged.RaggedTensorValue``: what ``Session.run`` of a ``RaggedTensor``
returns, a ragged value of NumPy arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["RaggedTensorValue"]


class RaggedTensorValue:
    """A ragged value: ``values`` (an array or a ``RaggedTensorValue``) split into rows
    by ``row_splits`` (``tf.compat.v1.ragged.RaggedTensorValue``).

    Args:
      values: the rows' values, concatenated (a NumPy array or a ``RaggedTensorValue``).
      row_splits: an int64 (or int32) vector: row ``i`` is ``values[splits[i]:splits[i+1]]``.

    Raises:
      TypeError: ``row_splits`` not an integer NumPy vector; ``values`` neither an array
        nor a ``RaggedTensorValue`` (TF's messages).
    """

    def __init__(self, values: Any, row_splits: Any):
        if not (
            isinstance(row_splits, (np.ndarray, np.generic))
            and row_splits.dtype in (np.int64, np.int32)
            and row_splits.ndim == 1
        ):
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, (np.ndarray, np.generic, RaggedTensorValue)):
            raise TypeError("values must be a numpy array or a RaggedTensorValue")
        if isinstance(values, RaggedTensorValue) and row_splits.dtype != values.row_splits.dtype:
            raise ValueError("row_splits and values.row_splits must have the same dtype")
        self._values = values
        self._row_splits = row_splits

    row_splits = property(lambda self: self._row_splits, doc="The row-split indices.")
    values = property(lambda self: self._values, doc="The concatenated rows' values.")

    @property
    def dtype(self) -> Any:
        """The values' NumPy dtype."""
        return self._values.dtype

    @property
    def flat_values(self) -> Any:
        """The innermost values (a NumPy array)."""
        rt = self._values
        while isinstance(rt, RaggedTensorValue):
            rt = rt.values
        return rt

    @property
    def nested_row_splits(self) -> tuple[np.ndarray, ...]:
        """The row splits of each ragged dimension, outermost first."""
        out = [self._row_splits]
        rt = self._values
        while isinstance(rt, RaggedTensorValue):
            out.append(rt.row_splits)
            rt = rt.values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions."""
        inner = self._values.ragged_rank if isinstance(self._values, RaggedTensorValue) else 0
        return inner + 1

    @property
    def shape(self) -> tuple:
        """``(nrows, None, *values.shape[1:])``: a ragged dimension is ``None``."""
        return (self._row_splits.shape[0] - 1, None, *self._values.shape[1:])

    def to_list(self) -> list:
        """The value as nested Python lists."""
        if isinstance(self._values, RaggedTensorValue):
            inner = self._values.to_list()
        else:
            inner = self._values.tolist()
        s = self._row_splits
        return [inner[s[i] : s[i + 1]] for i in range(len(s) - 1)]

    def __str__(self) -> str:
        return f"<tf.RaggedTensorValue {self.to_list()}>"

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"
