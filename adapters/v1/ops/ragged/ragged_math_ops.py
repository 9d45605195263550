"""``tf.ragged.range``: a ragged tensor of ranges (TF's ``RaggedRange``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.data_flow_ops import host_inputs
from adapters.v1.ops.ragged.ragged_tensor import RaggedTensor, host_op
from jtrain import errors

__all__ = ["range"]

builtin_range = range
_RANKING = [np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64)]
_ALLOWED = ("bfloat16", "float32", "float64", "int32", "int64")


def range(  # noqa: A001 - TF's name
    starts: Any,
    limits: Any = None,
    deltas: Any = 1,
    dtype: Any = None,
    name: str | None = None,
    row_splits_dtype: Any = "int64",
) -> RaggedTensor:
    """A ragged tensor whose row ``i`` is ``range(starts[i], limits[i], deltas[i])``
    (``tf.ragged.range``); scalars broadcast to the vectors' length; with one argument
    it is ``limits`` (starts 0).

    Returns:
      A ``RaggedTensor`` of ``[nrows, None]``, values of the arguments' dtype.

    Raises:
      InvalidArgumentError (at run time): a zero delta ("Requires delta != 0"), vectors
        of different lengths.
    """
    if limits is None:
        starts, limits = 0, starts
    np_dtype = None if dtype is None else ops.as_dtype(dtype).dtype
    tensors = host_inputs([starts, limits, deltas])
    if np_dtype is None:  # TF's matching dtype: the last of _RANKING among the three
        kinds = [np.dtype(t._np_dtype) for t in tensors]
        ranked = [k for k in kinds if k in _RANKING]
        np_dtype = max(ranked, key=_RANKING.index) if len(ranked) == 3 else kinds[0]
    np_dtype = np.dtype(np_dtype)
    if ops.as_dtype(np_dtype).name not in _ALLOWED:
        raise TypeError(
            f"Value passed to parameter 'starts' has DataType {ops.as_dtype(np_dtype).name} "
            "not in list of allowed values: bfloat16, float32, float64, int32, int64"
        )
    sdtype = ops.as_dtype(row_splits_dtype).dtype
    shapes = [t._shape for t in tensors]
    nrows = None
    for shape in shapes:
        if shape is not None and len(shape) == 1 and shape[0] is not None:
            nrows = shape[0]

    def compute(s: Any, lim: Any, d: Any) -> tuple[Any, ...]:
        arrays = [np.asarray(x).astype(np_dtype) for x in (s, lim, d)]
        sizes = {a.shape[0] for a in arrays if a.ndim}
        if len(sizes) > 1:
            raise errors.InvalidArgumentError(
                None, None, "starts, limits, and deltas must have the same shape"
            )
        n = sizes.pop() if sizes else 1
        s_, lim_, d_ = (
            np.broadcast_to(a.reshape(-1), (n,)) if a.ndim else np.full(n, a, np_dtype)
            for a in arrays
        )
        splits, values = [0], []
        for start, limit, delta in zip(s_, lim_, d_, strict=True):
            if delta == 0:
                raise errors.InvalidArgumentError(None, None, "Requires delta != 0")
            if np.issubdtype(np_dtype, np.integer):
                span = int(limit) - int(start)
                size = max(0, -(-span // int(delta))) if (span > 0) == (delta > 0) else 0
                row = int(start) + int(delta) * np.arange(size, dtype=np.int64)
            else:
                t = np_dtype.type
                moves = (delta > 0 and limit > start) or (delta < 0 and limit < start)
                size = int(np.ceil(np.abs((t(limit) - t(start)) / t(delta)))) if moves else 0
                row = np.empty(size, np_dtype)
                value = np_dtype.type(start)
                for j in builtin_range(size):
                    row[j] = value
                    value = np_dtype.type(value + delta)
            values.append(np.asarray(row).astype(np_dtype))
            splits.append(splits[-1] + size)
        flat = np.concatenate(values) if values else np.zeros(0, np_dtype)
        return np.asarray(splits, sdtype), flat.astype(np_dtype)

    splits, values = host_op(
        "RaggedRange",
        name or "RaggedRange",
        tensors,
        compute,
        [((None if nrows is None else nrows + 1,), sdtype), ((None,), np.dtype(np_dtype))],
    )
    return RaggedTensor(values, splits, None, True)
