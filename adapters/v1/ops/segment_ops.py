"""TF's sparse segment reductions: ``tf.sparse_segment_sum``, ``_mean``, ``_sqrt_n``.

``output[s] = reduce(data[indices[i]] for every i with segment_ids[i] == s)``: a
gather of the rows ``indices`` then a sorted segment reduction, TF's
``SparseSegmentSum``/``Mean``/``SqrtN`` kernels (``..WithNumSegments`` when
``num_segments`` is given). The embedding ops' combiners are these reductions.

Without ``num_segments`` the output has ``segment_ids[-1] + 1`` rows, a size read
from the values: ``segment_ids`` must then be known when the step is compiled (a
constant, or computed from shapes), as for ``tf.segment_sum``; with
``num_segments`` they may be computed in the step.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import (
    FLOATING,
    FUNCTIONS,
    INDEX,
    REAL,
    OpDef,
    OpValueError,
    define,
    lift,
)
from jtrain import errors

__all__ = ["sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n"]


def _segment_ids(segment_ids: Any) -> Any:
    """The ids as an array: a traced tensor, or the value known when compiling (a list)."""
    if isinstance(segment_ids, jax.Array):
        return segment_ids
    return np.asarray(segment_ids, np.int64).reshape(-1)


def _reduce(kind: str):
    def impl(data, indices, segment_ids, num_segments=None, sparse_gradient=False):
        ids = _segment_ids(segment_ids)
        if num_segments is None:
            known = np.asarray(segment_ids)
            num_segments = int(known[-1]) + 1 if known.size else 0
        if indices.ndim != 1 or ids.ndim != 1:
            raise OpValueError(
                f"Shape must be rank 1 but is rank {max(indices.ndim, ids.ndim)} for "
                f"'SparseSegment{kind}'"
            )
        sizes = (indices.shape[0], ids.shape[0])  # (symbolic when unknown statically)
        if all(isinstance(n, int) for n in sizes) and sizes[0] != sizes[1]:
            raise OpValueError(
                f"Dimension 0 in both shapes must be equal, but are {indices.shape[0]} and "
                f"{ids.shape[0]}. Shapes are [{indices.shape[0]}] and [{ids.shape[0]}]."
            )
        rows = jnp.take(data, indices, axis=0, mode="clip")
        total = jax.ops.segment_sum(rows, ids, int(num_segments), indices_are_sorted=True)
        if kind == "sum":
            return total
        count = jax.ops.segment_sum(jnp.ones(ids.shape, data.dtype), ids, int(num_segments))
        count = jnp.maximum(count, jnp.ones((), data.dtype))
        count = count.reshape(count.shape + (1,) * (data.ndim - 1))
        return total / (jnp.sqrt(count) if kind == "sqrt_n" else count)

    return impl


def _in_range(data, indices, segment_ids, num_segments=None, sparse_gradient=False):
    """Whether TF's kernel accepts the ids: rows in range, segment ids sorted and in range."""
    ids = _segment_ids(segment_ids)
    if num_segments is None:
        known = np.asarray(segment_ids)
        num_segments = int(known[-1]) + 1 if known.size else 0
    ok = jnp.all((indices >= 0) & (indices < data.shape[0]))
    ok &= jnp.all((ids >= 0) & (ids < num_segments))
    ok &= jnp.all(ids[1:] >= ids[:-1])
    limits = jnp.asarray([data.shape[0], num_segments], np.int64)
    return ok, (indices, ids, limits)


def _range_error(op: ops.Operation, indices: Any, ids: Any, limits: Any) -> Any:
    """TF's message for the first fault its kernel meets, walking the segments in order."""
    rows, num = int(limits[0]), int(limits[1])
    with_num = op.type.endswith("WithNumSegments")

    def fail(message: str) -> Any:
        return errors.InvalidArgumentError(None, op, message)

    if ids.size and with_num and ids[-1] >= num:
        return fail("segment ids must be < num_segments")
    start = 0
    while start < ids.size:
        end = start
        while end < ids.size and ids[end] == ids[start]:
            end += 1
        if end < ids.size and ids[start] > ids[end]:
            return fail("segment ids are not increasing")
        if not 0 <= ids[start] < num:
            return fail(
                f"Segment id {int(ids[start])} out of range [0, {num}), possibly because "
                "'segment_ids' input is not sorted."
            )
        for i in range(start, end):
            if not 0 <= indices[i] < rows:
                return fail(f"Bad: indices[{i}] == {int(indices[i])} out of range [0, {rows})")
        start = end
    return fail("segment ids are not increasing")


_DOC = """``tf.sparse_segment_{kind}``: {what} of the rows ``data[indices]`` per segment.

    ``output[s] = {math}`` over the ``i`` with ``segment_ids[i] == s``{empty}.

    Args:
      data: the rows ({dtypes}).
      indices: int32/int64 rows of ``data`` to reduce, 1-D.
      segment_ids: int32/int64 sorted segment of each index, 1-D like ``indices``;
        without ``num_segments`` known when the step is compiled (a constant).
      name: the op name (default ``"{op_type}"``).
      num_segments: the number of output rows (default ``None``: ``segment_ids[-1] + 1``).
      sparse_gradient: TF's IndexedSlices gradient (default ``False``); ``True`` is
        not supported.

    Returns:
      ``[num_segments] + data.shape[1:]`` in ``data``'s dtype; without
      ``num_segments`` its first dimension is unknown statically, as TF's.

    Raises:
      InvalidArgumentError: (when run) an index outside ``[0, data.shape[0])``, segment
        ids not sorted or out of range, with TF's messages.
      NotImplementedError: ``segment_ids`` computed in the step without
        ``num_segments``; ``sparse_gradient=True``.

    .. note:: TF's gradient: ``unsorted_segment_sum`` of the output gradient
      (divided by the counts for the mean and sqrt_n) over ``indices``: JAX's derivative.
    """

_KINDS = {
    "sum": ("Sum", REAL, "the sum", "sum(data[indices[i]])", ", 0 for an empty segment"),
    "mean": ("Mean", FLOATING, "the mean", "sum(data[indices[i]]) / n", ", 0 when n = 0"),
    "sqrt_n": (
        "SqrtN",
        FLOATING,
        "the sum divided by sqrt(n)",
        "sum(data[indices[i]]) / sqrt(n)",
        ", 0 when n = 0",
    ),
}


def _sparse_segment(kind: str) -> Any:
    op_type, allowed, what, math, empty = _KINDS[kind]
    names = (f"sparse_segment_{kind}", f"sparse.segment_{kind}")
    params = "data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False"
    check = (_in_range, _range_error)
    plain = define(
        names,
        f"SparseSegment{op_type}",
        _reduce(kind),
        params=params,
        tensors="data indices",
        same_dtype="data",
        allowed={"data": allowed, "indices": INDEX},
        runtime_check=check,
    )
    entry = plain._op_def
    counted = lift(
        OpDef(
            names=names,
            op_type=f"SparseSegment{op_type}WithNumSegments",
            impl=_reduce(kind),
            signature=entry.signature,
            tensors=("data", "indices", "segment_ids"),
            same_dtype=("data",),
            allowed={"data": allowed, "indices": INDEX, "segment_ids": INDEX},
            default_name=f"SparseSegment{op_type}WithNumSegments",
            runtime_check=check,
        )
    )

    def op_function(
        data: Any,
        indices: Any,
        segment_ids: Any,
        name: str | None = None,
        num_segments: Any = None,
        sparse_gradient: bool = False,
    ) -> ops.Tensor:
        if sparse_gradient:
            raise NotImplementedError(
                f"tf.sparse_segment_{kind}(sparse_gradient=True): the IndexedSlices gradient "
                "is not supported; pass sparse_gradient=False (the same values, dense)"
            )
        if num_segments is not None:
            return counted(data, indices, segment_ids, name, num_segments, sparse_gradient)
        ids = segment_ids
        if isinstance(ids, ops.Tensor) or hasattr(ids, "_as_graph_tensor"):
            tensor = ops.convert_to_tensor(ids)
            if tensor.dtype is not None and tensor.dtype.name not in INDEX:
                raise TypeError(
                    f"Value passed to parameter 'segment_ids' has DataType {tensor.dtype.name} "
                    f"not in list of allowed values: {', '.join(INDEX)}"
                )
        try:
            out = plain(data, indices, segment_ids, name, None, sparse_gradient)
        except NotImplementedError as e:  # segment_ids read from the step's data
            raise NotImplementedError(
                f"{e} Without num_segments the output's size is segment_ids[-1] + 1, read "
                "from the values: pass num_segments."
            ) from None
        if out._shape is not None and out._shape:
            out._shape = (None, *out._shape[1:])  # TF: the row count is not static
        return out

    op_function.__name__ = op_function.__qualname__ = names[0]
    op_function.__signature__ = entry.signature
    op_function.__doc__ = _DOC.format(
        kind=kind,
        what=what,
        math=math,
        empty=empty,
        dtypes=", ".join(allowed),
        op_type=f"SparseSegment{op_type}",
    )
    op_function._op_def = entry
    op_function.__module__ = __name__
    for n in names:
        FUNCTIONS[n] = op_function
    return op_function


sparse_segment_sum = _sparse_segment("sum")
sparse_segment_mean = _sparse_segment("mean")
sparse_segment_sqrt_n = _sparse_segment("sqrt_n")
