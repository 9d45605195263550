"""``tf.ragged.row_splits_to_segment_ids`` and ``tf.ragged.segment_ids_to_row_splits``."""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.ragged.ragged_tensor import convert_splits, host_op

__all__ = ["row_splits_to_segment_ids", "segment_ids_to_row_splits"]


def row_splits_to_segment_ids(
    splits: Any, name: str | None = None, out_type: Any = None
) -> ops.Tensor:
    """The segment (row) id of each value: ``i`` repeated ``splits[i+1] - splits[i]``
    times.

    Args:
      splits: an int32/int64 vector of row splits (Python values: int64).
      name: the op's name.
      out_type: the result's dtype (default the splits').

    Returns:
      A ``[splits[-1]]`` vector.

    Raises:
      ValueError: ``splits`` not a vector.
      InvalidArgumentError (at run time): splits that decrease.
    """
    from adapters.v1.ops.ragged.ragged_tensor import _invalid

    tensor = convert_splits(splits, "splits")
    if tensor._shape is not None and len(tensor._shape) != 1:
        raise ValueError(f"Shape {list(tensor._shape)} must have rank 1")
    dtype = tensor._np_dtype if out_type is None else ops.as_dtype(out_type).dtype

    def compute(s: Any) -> tuple[Any, ...]:
        s = np.asarray(s)
        lengths = np.diff(s)
        if np.any(lengths < 0):
            raise _invalid("Condition x >= 0 did not hold element-wise")
        return (np.repeat(np.arange(len(s) - 1), lengths).astype(dtype),)

    (out,) = host_op(
        "RaggedSplitsToSegmentIds",
        name or "RaggedSplitsToSegmentIds",
        [tensor],
        compute,
        [((None,), dtype)],
    )
    return out


def segment_ids_to_row_splits(
    segment_ids: Any, num_segments: Any = None, out_type: Any = None, name: str | None = None
) -> ops.Tensor:
    """The row splits grouping sorted ``segment_ids``: ``[0, cumsum(bincount)]``.

    Args:
      segment_ids: a sorted int32/int64 vector (Python values: int64).
      num_segments: the number of segments (default ``max(segment_ids) + 1``).
      out_type: the result's dtype (default the ids').
      name: the op's name.

    Returns:
      A ``[num_segments + 1]`` vector.
    """
    from adapters.v1.ops.string_ops import constant_value

    ids = convert_splits(segment_ids, "segment_ids")
    dtype = ids._np_dtype if out_type is None else ops.as_dtype(out_type).dtype
    inputs = [ids]
    static = None
    if num_segments is not None:
        count = convert_splits(num_segments, "num_segments", dtype=ids.dtype)
        inputs.append(count)
        known = constant_value(count)
        static = None if known is None else int(known) + 1
    elif ids.op.type == "Const":
        known = constant_value(ids)
        static = None if known is None else (int(known.max()) + 2 if known.size else 1)

    def compute(v: Any, *n: Any) -> tuple[Any, ...]:
        v = np.asarray(v)
        rows = int(np.asarray(n[0])) if n else (int(v.max()) + 1 if v.size else 0)
        counts = np.bincount(v, minlength=rows)[:rows] if v.size else np.zeros(rows, np.int64)
        return (np.concatenate([[0], np.cumsum(counts)]).astype(dtype),)

    (out,) = host_op(
        "SegmentIdsToRaggedSplits",
        name or "SegmentIdsToRaggedSplits",
        inputs,
        compute,
        [((static,), dtype)],
    )
    return out
