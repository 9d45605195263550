"""``tf.ragged.boolean_mask`` and ``tf.ragged.stack`` (rank-2 cases)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.ragged.ragged_tensor import RaggedTensor, _np, host_op

__all__ = ["boolean_mask", "stack", "stack_dynamic_partitions"]


def boolean_mask(data: Any, mask: Any, name: str | None = None) -> Any:
    """The values of ``data`` where ``mask`` is true, each row keeping its own
    (``tf.ragged.boolean_mask``).

    Args:
      data: a tensor or a ``RaggedTensor`` (ragged rank 1).
      mask: a bool tensor (rank 1 or 2, a prefix of ``data``'s shape) or a
        ``RaggedTensor`` with ``data``'s row splits.
      name: the scope's name (default ``"RaggedMask"``).

    Returns:
      A dense tensor for a rank-1 dense mask (``tf.boolean_mask``); else a
      ``RaggedTensor`` of ``[nrows, None, *data.shape[2:]]``.

    Raises:
      NotImplementedError: masks of rank above 2, ragged inputs of ragged rank above 1
        or a ragged mask without ``data``'s splits tensor.
    """
    with ops.name_scope(name, "RaggedMask"):
        if isinstance(data, RaggedTensor) or isinstance(mask, RaggedTensor):
            if not (
                isinstance(data, RaggedTensor)
                and isinstance(mask, RaggedTensor)
                and data.ragged_rank == 1
                and mask.ragged_rank == 1
                and mask.row_splits is data.row_splits
            ):
                raise NotImplementedError(
                    "tf.ragged.boolean_mask of ragged inputs: adapters.v1 takes a ragged data "
                    "and mask of ragged rank 1 sharing their row splits tensor"
                )
            values = data.values
            splits = data.row_splits
            dtype = _np(splits)

            def compute(v: Any, m: Any, s: Any) -> tuple[Any, ...]:
                v, m, s = np.asarray(v), np.asarray(m, bool), np.asarray(s)
                rows = np.repeat(np.arange(len(s) - 1), np.diff(s))
                counts = (
                    np.bincount(rows[m], minlength=len(s) - 1)
                    if m.size
                    else np.zeros(len(s) - 1, int)
                )
                return v[m], np.concatenate([[0], np.cumsum(counts)]).astype(dtype)

            vshape = values._shape
            out_v, out_s = host_op(
                "RaggedBooleanMask",
                "boolean_mask",
                [values, mask.values, splits],
                compute,
                [((None, *(vshape[1:] if vshape else ())), _np(values)), (splits._shape, dtype)],
            )
            return RaggedTensor(out_v, out_s, None, True)
        data_t = ops.convert_to_tensor(data)
        mask_t = ops.convert_to_tensor(mask, dtype="bool")
        mrank = None if mask_t._shape is None else len(mask_t._shape)
        dshape = data_t._shape
        if mrank == 1:
            (out,) = host_op(
                "BooleanMask",
                "boolean_mask",
                [data_t, mask_t],
                lambda v, m: (np.asarray(v)[np.asarray(m, bool)],),
                [((None, *(dshape[1:] if dshape else ())), _np(data_t))],
            )
            return out
        if mrank != 2:
            raise NotImplementedError(
                "tf.ragged.boolean_mask: adapters.v1 takes dense masks of rank 1 or 2"
            )

        def dense(v: Any, m: Any) -> tuple[Any, ...]:
            v, m = np.asarray(v), np.asarray(m, bool)
            return v[m], np.concatenate([[0], np.cumsum(m.sum(axis=1))]).astype(np.int64)

        nrows = None if dshape is None else dshape[0]
        out_v, out_s = host_op(
            "RaggedBooleanMask",
            "boolean_mask",
            [data_t, mask_t],
            dense,
            [
                ((None, *(dshape[2:] if dshape else ())), _np(data_t)),
                ((None if nrows is None else nrows + 1,), np.dtype(np.int64)),
            ],
        )
        return RaggedTensor(out_v, out_s, None, True)


def stack(values: Sequence[Any], axis: int = 0, name: str | None = None) -> RaggedTensor:
    """Stacks rank-2 ragged (or dense) tensors along a new first axis
    (``tf.ragged.stack``): the result's row ``i`` is ``values[i]``.

    Raises:
      NotImplementedError: ``axis`` other than 0, inputs not of rank 2.
    """
    if axis != 0:
        raise NotImplementedError("tf.ragged.stack: adapters.v1 takes axis=0")
    rts = []
    for v in values:
        rt = v if isinstance(v, RaggedTensor) else RaggedTensor.from_tensor(v)
        if rt.ragged_rank != 1 or rt.values._shape is None or len(rt.values._shape) != 1:
            raise NotImplementedError("tf.ragged.stack: adapters.v1 takes tensors of rank 2")
        rts.append(rt)
    dtype = _np(rts[0].row_splits)

    def compute(*parts: Any) -> tuple[Any, ...]:
        vals = [np.asarray(p) for p in parts[0::2]]
        splits = [np.asarray(p) for p in parts[1::2]]
        inner, outer, offset = [np.zeros(1, dtype)], [0], 0
        for s in splits:
            inner.append((s[1:] + offset).astype(dtype))
            offset += s[-1]
            outer.append(outer[-1] + len(s) - 1)
        return (
            np.concatenate(vals),
            np.concatenate(inner).astype(dtype),
            np.asarray(outer, dtype),
        )

    inputs: list[Any] = []
    for rt in rts:
        inputs += [rt.values, rt.row_splits]
    sizes = [rt.values._shape[0] for rt in rts]
    rows = [rt._nrows_static() for rt in rts]
    nvals = None if None in sizes else sum(sizes)
    nrows = None if None in rows else sum(rows)
    with ops.name_scope(name, "RaggedConcat"):
        flat, inner_splits, outer_splits = host_op(
            "RaggedStack",
            "stack",
            inputs,
            compute,
            [
                ((nvals,), _np(rts[0].values)),
                ((None if nrows is None else nrows + 1,), dtype),
                ((len(rts) + 1,), dtype),
            ],
        )
    return RaggedTensor(RaggedTensor(flat, inner_splits, None, True), outer_splits, None, True)


def stack_dynamic_partitions(
    data: Any, partitions: Any, num_partitions: int, name: str | None = None
) -> RaggedTensor:
    """Groups the rows of ``data`` by ``partitions``: row ``p`` of the result is
    ``data[partitions == p]`` in order (``tf.ragged.stack_dynamic_partitions``).

    Args:
      data: a tensor (its first dimension the items).
      partitions: int32/int64 ``[len(data)]``, each in ``[0, num_partitions)``.
      num_partitions: the number of rows of the result (a Python int).
      name: the scope's name (default ``"SegmentStack"``).

    Returns:
      A ``RaggedTensor`` ``[num_partitions, None, *data.shape[1:]]``, row splits of the
      partitions' dtype.

    Raises:
      InvalidArgumentError (at run time): a partition out of range (TF's assertion
        message's first part).
    """
    from adapters.v1.ops.ragged.ragged_tensor import _invalid

    data_t = ops.convert_to_tensor(data)
    parts_t = ops.convert_to_tensor(partitions)
    dtype = _np(parts_t)
    count = int(num_partitions)

    def compute(v: Any, p: Any) -> tuple[Any, ...]:
        v, p = np.asarray(v), np.asarray(p).reshape(-1)
        if np.any(p >= count):
            raise _invalid(
                "partitions must be less than num_partitions] [Condition x < y did not hold "
                "element-wise:"
            )
        if np.any(p < 0):
            raise _invalid("partitions must be non-negative")
        order = np.argsort(p, kind="stable")
        counts = np.bincount(p, minlength=count)[:count]
        return v[order], np.concatenate([[0], np.cumsum(counts)]).astype(dtype)

    with ops.name_scope(name, "SegmentStack"):
        values, splits = host_op(
            "SegmentStack",
            "stack",
            [data_t, parts_t],
            compute,
            [(data_t._shape, _np(data_t)), ((count + 1,), dtype)],
        )
    return RaggedTensor(values, splits, None, True)
