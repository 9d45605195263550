"""``tf.RaggedTensor``: a tensor with rows of different lengths, in a graph.

A ``RaggedTensor`` is ``values`` (a tensor, or a ``RaggedTensor`` for more ragged
dimensions) split into rows by ``row_splits`` (an int64 or int32 vector, row ``i``
being ``values[row_splits[i]:row_splits[i + 1]]``), as TF's. ``Session.run`` of one
returns a ``tf.compat.v1.ragged.RaggedTensorValue``, as TF1 does.

Row partitions have data-dependent sizes, which XLA programs do not: every operation
building or reading a row partition (``from_value_rowids``, ``to_tensor``,
``to_sparse``...) is a host operation on NumPy values, as string ops are
(``ops/string_ops.py``): ``"pre"`` (before the step's program, feeding it) when its
inputs are constants or placeholders, ``"post"`` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops.data_flow_ops import host_inputs
from adapters.v1.ops.ragged.ragged_tensor_value import RaggedTensorValue
from jtrain import errors

__all__ = ["RaggedTensor", "RaggedTensorValue", "is_ragged", "host_op", "convert_splits"]

_SPLIT_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))


def is_ragged(value: Any) -> bool:
    """Whether ``value`` is a ``RaggedTensor`` or a ``RaggedTensorValue``."""
    return isinstance(value, (RaggedTensor, RaggedTensorValue))


def host_op(
    op_type: str,
    name: str | None,
    inputs: Sequence[Any],
    compute: Callable[..., tuple[Any, ...]],
    specs: Sequence[tuple[Any, Any]],
) -> list[ops.Tensor]:
    """The outputs of a host operation computing ``compute(*numpy inputs)``
    (``inputs`` converted as host ops read them)."""
    from adapters.v1.ops.string_ops import _host_op

    tensors = host_inputs(list(inputs))
    return list(_host_op(op_type, name, tensors, compute, specs).outputs)


def _np(tensor: ops.Tensor) -> np.dtype:
    return tensor._np_dtype if tensor._np_dtype is not None else np.dtype(object)


def convert_splits(value: Any, arg: str, dtype: Any = None) -> ops.Tensor:
    """A row partition tensor: Python values become ``dtype`` (default int64, TF's
    hint); a tensor must be int32 or int64 (TF's ``ValueError`` otherwise)."""
    if isinstance(value, RaggedTensorValue) or is_ragged(value):
        raise TypeError(f"{arg} may not be ragged")
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        tensor = ops.convert_to_tensor(value)
        if _np(tensor) not in _SPLIT_DTYPES:
            raise ValueError(f"{arg} must have dtype int32 or int64")
        if dtype is not None and _np(tensor) != ops.as_dtype(dtype).dtype:
            raise ValueError(f"dtype mismatch: {arg} is {tensor.dtype.name}")
        return tensor
    return ops.convert_to_tensor(np.asarray(value, ops.as_dtype(dtype or "int64").dtype))


def _convert_values(values: Any) -> RaggedTensor | ops.Tensor:
    if isinstance(values, RaggedTensor):
        return values
    if isinstance(values, RaggedTensorValue):
        return RaggedTensor._from_value(values)
    return ops.convert_to_tensor(values)


def _static_len(tensor: ops.Tensor | RaggedTensor) -> int | None:
    if isinstance(tensor, RaggedTensor):
        return tensor._nrows_static()
    shape = tensor._shape
    return None if shape is None or not shape else shape[0]


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"assertion failed: [{message}]")


class RaggedTensor:
    """A ragged tensor in a graph (``tf.RaggedTensor``): ``values`` split into rows by
    ``row_splits``. Build one with a ``from_*`` factory, ``tf.ragged.constant`` or an op
    returning one, as in TF (the constructor is internal).

    Attributes (as TF's): ``values``, ``row_splits``, ``flat_values``,
    ``nested_row_splits``, ``ragged_rank``, ``dtype``, ``shape``.
    """

    def __init__(
        self,
        values: Any,
        row_splits: ops.Tensor,
        uniform_row_length: int | None = None,
        internal: bool = False,
    ):
        if not internal:
            raise ValueError(
                "RaggedTensor constructor is private; please use one of the factory "
                "methods instead (e.g., RaggedTensor.from_row_lengths())"
            )
        self._values = values
        self._row_splits = row_splits
        self._uniform = uniform_row_length

    # -- structure ----------------------------------------------------------------------
    values = property(lambda self: self._values, doc="The concatenated rows' values.")
    row_splits = property(lambda self: self._row_splits, doc="The row-split indices.")

    @property
    def flat_values(self) -> ops.Tensor:
        """The innermost values (a ``Tensor``)."""
        rt = self._values
        while isinstance(rt, RaggedTensor):
            rt = rt._values
        return rt

    @property
    def nested_row_splits(self) -> tuple[ops.Tensor, ...]:
        """The row splits of each ragged dimension, outermost first."""
        out = [self._row_splits]
        rt = self._values
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions (partitioned dimensions)."""
        inner = self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0
        return inner + 1

    @property
    def dtype(self) -> Any:
        """The values' dtype."""
        return self._values.dtype

    @property
    def row_splits_dtype_np(self) -> np.dtype:
        return _np(self._row_splits)

    @property
    def graph(self) -> ops.Graph:
        return self.flat_values.graph

    def _nrows_static(self) -> int | None:
        shape = self._row_splits._shape
        return None if shape is None or shape[0] is None else shape[0] - 1

    def get_shape(self) -> TensorShape:
        """The static shape: ``[nrows, None (ragged), *values.shape[1:]]``."""
        inner = self._values.get_shape() if isinstance(self._values, RaggedTensor) else None
        if inner is None:
            vshape = self._values._shape
            rest = TensorShape(None) if vshape is None else TensorShape(list(vshape[1:]))
        else:
            rest = TensorShape(inner.as_list()[1:] if inner.ndims is not None else None)
        head = TensorShape([self._nrows_static(), self._uniform])
        return head.concatenate(rest)

    shape = property(get_shape)

    # -- row partitions -----------------------------------------------------------------
    def nrows(self, out_type: Any = None, name: str | None = None) -> ops.Tensor:
        """The number of rows (a scalar of ``out_type``, default the splits' dtype)."""
        dtype = _np(self._row_splits) if out_type is None else ops.as_dtype(out_type).dtype
        (out,) = host_op(
            "RaggedNRows",
            name or "RaggedNRows",
            [self._row_splits],
            lambda s: (np.asarray(np.asarray(s).shape[0] - 1, dtype),),
            [((), dtype)],
        )
        return out

    def _splits_map(self, op_type: str, name: str | None, fn: Callable, shape: Any) -> ops.Tensor:
        dtype = _np(self._row_splits)
        (out,) = host_op(
            op_type,
            name or op_type,
            [self._row_splits],
            lambda s: (np.asarray(fn(np.asarray(s)), dtype),),
            [(shape, dtype)],
        )
        return out

    def row_starts(self, name: str | None = None) -> ops.Tensor:
        """Each row's start offset (``row_splits[:-1]``)."""
        return self._splits_map("RaggedRowStarts", name, lambda s: s[:-1], (self._nrows_static(),))

    def row_limits(self, name: str | None = None) -> ops.Tensor:
        """Each row's end offset (``row_splits[1:]``)."""
        return self._splits_map("RaggedRowLimits", name, lambda s: s[1:], (self._nrows_static(),))

    def value_rowids(self, name: str | None = None) -> ops.Tensor:
        """The row of each value (``[nvals]``)."""
        return self._splits_map(
            "RaggedValueRowIds",
            name,
            lambda s: np.repeat(np.arange(len(s) - 1), np.diff(s)),
            (None,),  # as TF's static shape
        )

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Any:
        """The length of each row along ``axis`` (default 1: ``row_splits[1:] -
        row_splits[:-1]``; a deeper ragged axis gives a ``RaggedTensor``).

        Raises:
          ValueError: ``axis`` 0 (TF's message).
          NotImplementedError: a negative or uniform (dense) axis.
        """
        if axis == 0:
            raise ValueError("axis=0 is not supported")
        if axis < 0 or axis > self.ragged_rank:
            raise NotImplementedError(
                f"RaggedTensor.row_lengths(axis={axis}): adapters.v1 takes a positive ragged axis"
            )
        if axis > 1:
            return self.with_values(self._values.row_lengths(axis - 1, name))
        return self._splits_map("RaggedRowLengths", name, np.diff, (self._nrows_static(),))

    def nested_row_lengths(self, name: str | None = None) -> tuple[ops.Tensor, ...]:
        """``row_lengths`` of each ragged dimension, outermost first."""
        out = []
        rt: Any = self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths(name=name))
            rt = rt._values
        return tuple(out)

    def nested_value_rowids(self, name: str | None = None) -> tuple[ops.Tensor, ...]:
        """``value_rowids`` of each ragged dimension, outermost first."""
        out = []
        rt: Any = self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids(name=name))
            rt = rt._values
        return tuple(out)

    def bounding_shape(
        self, axis: Any = None, name: str | None = None, out_type: Any = None
    ) -> ops.Tensor:
        """The smallest dense shape holding this ragged tensor: ``[nrows, longest row
        at each ragged dimension..., *inner]`` (or its ``axis`` entries).

        Raises:
          NotImplementedError: flat values of unknown rank.
        """
        dtype = _np(self._row_splits) if out_type is None else ops.as_dtype(out_type).dtype
        flat = self.flat_values
        if flat._shape is None:
            raise NotImplementedError("RaggedTensor.bounding_shape of values of unknown rank")
        rank = self.ragged_rank + len(flat._shape)
        picks = None if axis is None else np.asarray(axis)

        def compute(values: Any, *splits: Any) -> tuple[Any, ...]:
            dims = [len(splits[0]) - 1]
            for sp in splits:
                d = np.diff(np.asarray(sp))
                dims.append(int(d.max()) if d.size else 0)
            full = np.asarray([*dims, *np.shape(values)[1:]], dtype)
            return (full if picks is None else full[picks],)

        shape = (rank,) if picks is None else picks.shape
        (out,) = host_op(
            "RaggedBoundingShape",
            name or "RaggedBoundingShape",
            [flat, *self.nested_row_splits],
            compute,
            [(shape, dtype)],
        )
        return out

    def __getitem__(self, key: Any) -> Any:
        """A row (``rt[i]``: a tensor, or a ``RaggedTensor`` for more ragged dimensions)
        or rows (``rt[i:j]``) of the outermost dimension.

        Raises:
          NotImplementedError: other indexing (inner dimensions, steps, tensors).
          InvalidArgumentError (at run time): an index out of range.
        """
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            return self._row(int(key))
        if isinstance(key, slice) and key.step in (None, 1):
            return self._rows(key.start, key.stop)
        raise NotImplementedError(
            f"RaggedTensor[{key!r}]: adapters.v1 takes an int or a slice of the rows"
        )

    def _row(self, index: int) -> Any:
        from adapters.v1.ops.string_ops import constant_value

        splits = self._row_splits
        known = constant_value(splits)
        nested = isinstance(self._values, RaggedTensor)
        sdtype = _np(splits)

        def bounds(s: np.ndarray) -> tuple[int, int]:
            n = len(s) - 1
            i = index + n if index < 0 else index
            if not 0 <= i < n:
                raise errors.InvalidArgumentError(
                    None, None, f"slice index {index} of dimension 0 out of bounds."
                )
            return int(s[i]), int(s[i + 1])

        if not nested:
            values = self._values
            vshape = values._shape
            length = None if known is None else np.subtract(*reversed(bounds(known)))
            inner = () if vshape is None else tuple(vshape[1:])

            def row(v: Any, s: Any) -> tuple[Any, ...]:
                lo, hi = bounds(np.asarray(s))
                return (np.asarray(v)[lo:hi],)

            (out,) = host_op(
                "RaggedGetItem",
                "RaggedGetItem",
                [values, splits],
                row,
                [((length, *inner), _np(values))],
            )
            return out
        inner_rt = self._values

        def row_splits(s: Any, inner_s: Any) -> tuple[Any, ...]:
            lo, hi = bounds(np.asarray(s))
            sub = np.asarray(inner_s)[lo : hi + 1]
            return (sub - sub[0]).astype(sdtype), np.asarray([sub[0], sub[-1]], np.int64)

        inner_known = constant_value(inner_rt._row_splits)
        nsplits = nvals = None
        if known is not None and inner_known is not None:  # TF's shape inference folds them
            lo, hi = bounds(known)
            nsplits, nvals = hi - lo + 1, int(inner_known[hi] - inner_known[lo])
        new_splits, span = host_op(
            "RaggedGetItem",
            "RaggedGetItem",
            [splits, inner_rt._row_splits],
            row_splits,
            [((nsplits,), sdtype), ((2,), np.dtype(np.int64))],
        )
        deeper = inner_rt._values
        if isinstance(deeper, RaggedTensor):
            raise NotImplementedError("RaggedTensor[i] of ragged rank above 2")
        dshape = deeper._shape
        (vals,) = host_op(
            "RaggedGetItem",
            "RaggedGetItem",
            [deeper, span],
            lambda v, sp: (np.asarray(v)[int(sp[0]) : int(sp[1])],),
            [((nvals, *(() if dshape is None else dshape[1:])), _np(deeper))],
        )
        return RaggedTensor(vals, new_splits, inner_rt._uniform, True)

    def _rows(self, start: Any, stop: Any) -> RaggedTensor:
        if isinstance(self._values, RaggedTensor):
            raise NotImplementedError("RaggedTensor[i:j] of ragged rank above 1")
        values, splits = self._values, self._row_splits
        sdtype = _np(splits)
        vshape = values._shape

        def rows(v: Any, s: Any) -> tuple[Any, ...]:
            s = np.asarray(s)
            sel = range(len(s) - 1)[slice(start, stop)]
            if len(sel) == 0:
                return np.asarray(v)[:0], np.zeros(1, sdtype)
            sub = s[sel.start : sel.stop + 1]
            return np.asarray(v)[sub[0] : sub[-1]], (sub - sub[0]).astype(sdtype)

        from adapters.v1.ops.string_ops import constant_value

        known = constant_value(splits)
        nvals = nsplits = None
        if known is not None:  # TF's shape inference folds constant splits
            sel = range(len(known) - 1)[slice(start, stop)]
            nsplits = len(sel) + 1
            nvals = int(known[sel.stop] - known[sel.start]) if len(sel) else 0
        new_values, new_splits = host_op(
            "RaggedGetItem",
            "RaggedGetItem",
            [values, splits],
            rows,
            [((nvals, *(() if vshape is None else vshape[1:])), _np(values)), ((nsplits,), sdtype)],
        )
        return RaggedTensor(new_values, new_splits, self._uniform, True)

    @property
    def uniform_row_length(self) -> Any:
        """The rows' common length when they are uniform (``from_tensor`` without
        lengths or padding: an int64 scalar), else ``None``."""
        if self._uniform is None:
            return None
        return ops.convert_to_tensor(np.asarray(self._uniform, _np(self._row_splits)))

    def with_row_splits_dtype(self, dtype: Any) -> RaggedTensor:
        """This ragged tensor with its row partitions cast to ``dtype`` (int32/int64).

        Raises:
          ValueError: another dtype (TF's message).
        """
        target = ops.as_dtype(dtype).dtype
        if target not in _SPLIT_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, got {ops.as_dtype(dtype).name}")
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.with_row_splits_dtype(dtype)
        splits = self._row_splits
        if _np(splits) != target:
            (splits,) = host_op(
                "Cast",
                "Cast",
                [splits],
                lambda s: (np.asarray(s).astype(target),),
                [(splits._shape, target)],
            )
        return RaggedTensor(values, splits, self._uniform, True)

    def merge_dims(self, outer_axis: int, inner_axis: int) -> Any:
        """Merges dimensions ``outer_axis..inner_axis`` into one: ``(0, 1)`` gives
        ``values``; ``(0, ragged_rank)`` the flat values.

        Raises:
          NotImplementedError: other axes (inner dense dimensions, from axis 1).
        """
        rank = self.ragged_rank
        flat_rank = self.flat_values._shape
        last = None if flat_rank is None else rank + len(flat_rank) - 1
        inner = inner_axis + last + 1 if inner_axis < 0 and last is not None else inner_axis
        if outer_axis == 0 and inner == outer_axis:
            return self
        if outer_axis == 0 and 1 <= inner <= rank:
            out: Any = self
            for _ in range(inner):
                out = out.values
            return out
        raise NotImplementedError(
            f"RaggedTensor.merge_dims({outer_axis}, {inner_axis}): adapters.v1 merges the "
            "outermost dimension with ragged ones only"
        )

    def with_values(self, new_values: Any) -> RaggedTensor:
        """This row partition over ``new_values`` (same number of rows' values)."""
        return RaggedTensor(_convert_values(new_values), self._row_splits, self._uniform, True)

    def with_flat_values(self, new_values: Any) -> RaggedTensor:
        """This nested row partition over ``new_values``."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    # -- factories ----------------------------------------------------------------------
    @classmethod
    def _from_value(cls, value: RaggedTensorValue) -> RaggedTensor:
        inner = value.values
        values = cls._from_value(inner) if isinstance(inner, RaggedTensorValue) else inner
        return cls(_convert_values(values), ops.convert_to_tensor(value.row_splits), None, True)

    @classmethod
    def _partition(
        cls,
        op_type: str,
        values: Any,
        partition: Any,
        arg: str,
        to_splits: Callable[[np.ndarray, int], np.ndarray],
        nrows_static: int | None,
        name: str | None,
        extra: Sequence[Any] = (),
    ) -> RaggedTensor:
        """``values`` split by the row splits ``to_splits(partition, nvals, *extra)``
        computes (and validates) on the host."""
        values = _convert_values(values)
        part = convert_splits(partition, arg)
        dtype = _np(part)
        nvals = _static_len(values)
        inputs: list[Any] = [part, *extra]
        if nvals is None:  # the number of values, read from them at run time
            inputs.append(values._row_splits if isinstance(values, RaggedTensor) else values)

        def compute(p: Any, *rest: Any) -> tuple[Any, ...]:
            if nvals is None:
                last = np.asarray(rest[-1])
                n = last.shape[0] - 1 if isinstance(values, RaggedTensor) else last.shape[0]
                rest = rest[:-1]
            else:
                n = nvals
            return (np.asarray(to_splits(np.asarray(p), n, *rest), dtype),)

        (splits,) = host_op(
            op_type,
            name or op_type,
            inputs,
            compute,
            [((None if nrows_static is None else nrows_static + 1,), dtype)],
        )
        return cls(values, splits, None, True)

    @classmethod
    def from_row_splits(
        cls, values: Any, row_splits: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        """``values`` split by ``row_splits`` (``splits[0] == 0``, non-decreasing,
        ``splits[-1] == nvals``; checked at run time when ``validate``).

        Raises:
          InvalidArgumentError (at run time): invalid splits (TF's assertion messages).
        """

        def splits(s: np.ndarray, n: int) -> np.ndarray:
            if validate:
                if s.size == 0 or s[0] != 0:
                    raise _invalid(
                        "Arguments to from_row_splits do not form a valid RaggedTensor:zero"
                    )
                if np.any(np.diff(s) < 0):
                    raise _invalid(
                        "Arguments to from_row_splits do not form a valid RaggedTensor:monotonic"
                    )
                if s[-1] != n:
                    raise _invalid(
                        "Arguments to _from_row_partition do not form a valid RaggedTensor] "
                        "[Condition x == y did not hold element-wise:"
                    )
            return s

        part = convert_splits(row_splits, "row_splits")
        shape = part._shape
        nrows = None if shape is None or shape[0] is None else shape[0] - 1
        return cls._partition(
            "RaggedFromRowSplits", values, part, "row_splits", splits, nrows, name
        )

    @classmethod
    def from_row_lengths(
        cls, values: Any, row_lengths: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        """``values`` split into rows of ``row_lengths`` (non-negative, summing to nvals)."""

        def splits(lengths: np.ndarray, n: int) -> np.ndarray:
            if validate:
                if np.any(lengths < 0):
                    raise _invalid(
                        "Arguments to from_row_lengths do not form a valid RaggedTensor:negative"
                    )
                if lengths.sum() != n:
                    raise _invalid(
                        "Arguments to _from_row_partition do not form a valid RaggedTensor] "
                        "[Condition x == y did not hold element-wise:"
                    )
            return np.concatenate([[0], np.cumsum(lengths)])

        part = convert_splits(row_lengths, "row_lengths")
        shape = part._shape
        nrows = None if shape is None else shape[0]
        return cls._partition(
            "RaggedFromRowLengths", values, part, "row_lengths", splits, nrows, name
        )

    @classmethod
    def from_row_starts(
        cls, values: Any, row_starts: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        """``values`` split at ``row_starts`` (the first 0, non-decreasing)."""

        def splits(starts: np.ndarray, n: int) -> np.ndarray:
            s = np.concatenate([starts, [n]])
            if validate and (s[0] != 0 or np.any(np.diff(s) < 0)):
                raise _invalid("Arguments to from_row_starts do not form a valid RaggedTensor")
            return s

        part = convert_splits(row_starts, "row_starts")
        nrows = None if part._shape is None else part._shape[0]
        return cls._partition(
            "RaggedFromRowStarts", values, part, "row_starts", splits, nrows, name
        )

    @classmethod
    def from_row_limits(
        cls, values: Any, row_limits: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        """``values`` split at ``row_limits`` (non-decreasing, the last nvals)."""

        def splits(limits: np.ndarray, n: int) -> np.ndarray:
            s = np.concatenate([[0], limits])
            if validate and (np.any(np.diff(s) < 0) or s[-1] != n):
                raise _invalid("Arguments to from_row_limits do not form a valid RaggedTensor")
            return s

        part = convert_splits(row_limits, "row_limits")
        nrows = None if part._shape is None else part._shape[0]
        return cls._partition(
            "RaggedFromRowLimits", values, part, "row_limits", splits, nrows, name
        )

    @classmethod
    def from_value_rowids(
        cls,
        values: Any,
        value_rowids: Any,
        nrows: Any = None,
        name: str | None = None,
        validate: bool = True,
    ) -> RaggedTensor:
        """``values`` grouped by the row of each (``value_rowids``: sorted, non-negative,
        below ``nrows``; ``nrows`` default ``max(value_rowids) + 1``)."""
        from adapters.v1.ops.string_ops import constant_value

        part = convert_splits(value_rowids, "value_rowids")
        extra = []
        static = None
        if nrows is not None:
            nrows_t = convert_splits(nrows, "nrows", dtype=part.dtype)
            extra.append(nrows_t)
            known = constant_value(nrows_t)
            static = None if known is None else int(known)
        else:
            known = constant_value(part)
            static = None if known is None else (int(known.max()) + 1 if known.size else 0)

        def splits(ids: np.ndarray, n: int, *count: Any) -> np.ndarray:
            rows = int(np.asarray(count[0])) if count else (int(ids.max()) + 1 if ids.size else 0)
            if validate:
                if ids.shape[0] != n:
                    raise _invalid(
                        "Arguments to from_value_rowids do not form a valid RaggedTensor:nvals"
                    )
                if np.any(ids < 0) or np.any(np.diff(ids) < 0) or np.any(ids >= rows):
                    raise _invalid(
                        "Arguments to from_value_rowids do not form a valid RaggedTensor"
                    )
            counts = np.bincount(np.clip(ids, 0, None), minlength=rows)[:rows]
            return np.concatenate([[0], np.cumsum(counts)])

        return cls._partition(
            "RaggedFromValueRowIds", values, part, "value_rowids", splits, static, name, extra
        )

    @classmethod
    def from_nested_row_splits(
        cls,
        flat_values: Any,
        nested_row_splits: Sequence[Any],
        name: str | None = None,
        validate: bool = True,
    ) -> RaggedTensor:
        """``flat_values`` split by each of ``nested_row_splits``, innermost last."""
        if isinstance(nested_row_splits, ops.Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result: Any = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, name, validate)
        return result

    @classmethod
    def from_nested_row_lengths(
        cls,
        flat_values: Any,
        nested_row_lengths: Sequence[Any],
        name: str | None = None,
        validate: bool = True,
    ) -> RaggedTensor:
        """``flat_values`` split by each of ``nested_row_lengths``, innermost last."""
        result: Any = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, name, validate)
        return result

    @classmethod
    def from_nested_value_rowids(
        cls,
        flat_values: Any,
        nested_value_rowids: Sequence[Any],
        nested_nrows: Sequence[Any] | None = None,
        name: str | None = None,
        validate: bool = True,
    ) -> RaggedTensor:
        """``flat_values`` grouped by each of ``nested_value_rowids``, innermost last."""
        rowids = list(nested_value_rowids)
        nrows = [None] * len(rowids) if nested_nrows is None else list(nested_nrows)
        if len(nrows) != len(rowids):
            raise ValueError("Expected len(nested_nrows) == len(nested_value_rowids).")
        result: Any = flat_values
        for ids, n in reversed(list(zip(rowids, nrows, strict=True))):
            result = cls.from_value_rowids(result, ids, n, name, validate)
        return result

    @classmethod
    def from_tensor(
        cls,
        tensor: Any,
        lengths: Any = None,
        padding: Any = None,
        ragged_rank: int = 1,
        name: str | None = None,
        row_splits_dtype: Any = "int64",
    ) -> RaggedTensor:
        """A dense ``tensor`` as a ``RaggedTensor`` (``RaggedTensor.from_tensor``): its
        first ``ragged_rank + 1`` dimensions partitioned; rows cut at ``lengths`` (a
        vector, ``ragged_rank`` 1) or before their trailing ``padding`` values, else kept
        whole (uniform rows: the static shape keeps the row length).

        Raises:
          ValueError: both ``lengths`` and ``padding``; ``ragged_rank`` out of range.
          NotImplementedError: ``lengths``/``padding`` with ``ragged_rank`` > 1.
        """
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        if not isinstance(ragged_rank, int) or ragged_rank <= 0:
            raise ValueError(f"ragged_rank must be greater than 0; got {ragged_rank}")
        t = ops.convert_to_tensor(tensor)
        shape = t._shape
        if shape is None or len(shape) <= ragged_rank:
            raise ValueError(
                f"ragged_rank must be less than the rank of the tensor; got {ragged_rank}"
            )
        sdtype = ops.as_dtype(row_splits_dtype).dtype
        if (lengths is not None or padding is not None) and ragged_rank != 1:
            raise NotImplementedError(
                "RaggedTensor.from_tensor with lengths or padding: adapters.v1 takes ragged_rank=1"
            )
        if lengths is None and padding is None:
            # uniform rows, one level at a time from the innermost
            lead = list(shape[: ragged_rank + 1])
            flat = (None if None in lead else int(np.prod(lead)), *shape[ragged_rank + 1 :])

            def collapse(v: Any) -> tuple[Any, ...]:
                v = np.asarray(v)
                out = [v.reshape((-1, *v.shape[ragged_rank + 1 :]))]
                for level in range(ragged_rank, 0, -1):
                    rows = int(np.prod(v.shape[:level]))
                    width = v.shape[level]
                    out.append(
                        np.arange(0, rows * width + 1, width, dtype=sdtype)
                        if width
                        else np.zeros(rows + 1, sdtype)
                    )
                return tuple(out)

            specs = [(flat, _np(t))]
            for level in range(ragged_rank, 0, -1):
                rows = None if None in shape[:level] else int(np.prod(shape[:level]))
                specs.append(((None if rows is None else rows + 1,), sdtype))
            outs = host_op("RaggedFromTensor", name or "RaggedFromTensor", [t], collapse, specs)
            result: Any = outs[0]
            for level, splits in zip(range(ragged_rank, 0, -1), outs[1:], strict=True):
                result = cls(_convert_values(result), splits, shape[level], True)
            return result
        inner = len(shape) - 2
        if lengths is not None:
            lens_t = convert_splits(lengths, "lengths")

            def cut(v: Any, lens: Any) -> tuple[Any, ...]:
                v, lens = np.asarray(v), np.asarray(lens)
                lens = np.minimum(lens, v.shape[1])
                vals = (
                    np.concatenate([v[i, : lens[i]] for i in range(v.shape[0])])
                    if v.shape[0]
                    else v.reshape((0, *v.shape[2:]))
                )
                return vals.astype(v.dtype), np.concatenate([[0], np.cumsum(lens)]).astype(sdtype)

            inputs = [t, lens_t]
        else:
            pad_t = ops.convert_to_tensor(padding, dtype=t.dtype)

            def cut(v: Any, pad: Any) -> tuple[Any, ...]:
                v = np.asarray(v)
                same = v == np.asarray(pad)
                if inner:
                    same = same.reshape(v.shape[0], v.shape[1], -1).all(axis=2)
                keep = (
                    v.shape[1] - np.argmin(same[:, ::-1], axis=1)
                    if v.shape[1]
                    else np.zeros(v.shape[0], int)
                )
                keep = np.where(same.all(axis=1), 0, keep)
                vals = [v[i, : keep[i]] for i in range(v.shape[0])]
                out = np.concatenate(vals) if vals else v.reshape((0, *v.shape[2:]))
                return out.astype(v.dtype), np.concatenate([[0], np.cumsum(keep)]).astype(sdtype)

            inputs = [t, pad_t]
        nrows = shape[0]
        values, splits = host_op(
            "RaggedFromTensor",
            name or "RaggedFromTensor",
            inputs,
            cut,
            [((None, *shape[2:]), _np(t)), ((None if nrows is None else nrows + 1,), sdtype)],
        )
        return cls(values, splits, None, True)

    @classmethod
    def from_sparse(
        cls, st_input: Any, name: str | None = None, row_splits_dtype: Any = "int64"
    ) -> RaggedTensor:
        """A 2-D ``SparseTensor`` in row-major, ragged-right form (each row's columns
        ``0..k-1``) as a ``RaggedTensor``.

        Raises:
          TypeError: not a ``SparseTensor``.
          ValueError: a rank other than 2 (TF's message).
          InvalidArgumentError (at run time): indices not ragged-right.
        """
        if not isinstance(st_input, SparseTensor):
            raise TypeError(f"Expected SparseTensor, got {type(st_input).__name__}")
        rank = st_input.get_shape().ndims
        if rank is not None and rank != 2:
            raise ValueError("rank(st_input) must be 2.")
        sdtype = ops.as_dtype(row_splits_dtype).dtype
        nrows = st_input.get_shape()[0] if rank is not None else None
        nrows = getattr(nrows, "value", nrows)

        def compute(indices: Any, dense_shape: Any) -> tuple[Any, ...]:
            indices = np.asarray(indices).reshape(-1, 2)
            rows = int(np.asarray(dense_shape)[0])
            counts = (
                np.bincount(indices[:, 0], minlength=rows)[:rows]
                if indices.size
                else np.zeros(rows, int)
            )
            splits = np.concatenate([[0], np.cumsum(counts)])
            expected = np.arange(indices.shape[0]) - np.repeat(splits[:-1], counts)
            if np.any(indices[:, 1] != expected):
                raise errors.InvalidArgumentError(None, None, "SparseTensor is not right-ragged")
            return (splits.astype(sdtype),)

        (splits,) = host_op(
            "RaggedFromSparse",
            name or "RaggedFromSparse",
            [st_input.indices, st_input.dense_shape],
            compute,
            [((None if nrows is None else nrows + 1,), sdtype)],
        )
        return cls(st_input.values, splits, None, True)

    # -- conversions --------------------------------------------------------------------
    def to_tensor(
        self, default_value: Any = None, name: str | None = None, shape: Any = None
    ) -> ops.Tensor:
        """The dense tensor (``RaggedTensorToTensor``): rows padded with
        ``default_value`` (default zero/empty) to the longest, or cut/padded to
        ``shape``'s known dimensions.

        Returns:
          A tensor of the values' dtype, of shape ``[nrows, max lengths..., *inner]``.
        """
        rank = self.ragged_rank
        flat = self.flat_values
        dtype = _np(flat)
        inputs: list[Any] = [flat, *self.nested_row_splits]
        if default_value is not None:
            inputs.append(ops.convert_to_tensor(default_value, dtype=flat.dtype))
        target = None if shape is None else TensorShape(shape).as_list()
        static = self.get_shape().as_list() if self.get_shape().ndims is not None else None
        if static is not None:  # ragged dimensions unknown, uniform ones known
            if target is not None:
                static = [t if t is not None else d for t, d in zip(target, static, strict=False)]

        def compute(values: Any, *rest: Any) -> tuple[Any, ...]:
            values = np.asarray(values)
            splits = [np.asarray(s) for s in rest[:rank]]
            fill = np.asarray(rest[rank]) if len(rest) > rank else np.zeros((), values.dtype)
            if values.dtype == object and len(rest) <= rank:
                fill = np.asarray(b"", object)
            dims = [len(splits[0]) - 1]
            for s in splits:
                d = np.diff(s)
                dims.append(int(d.max()) if d.size else 0)
            out_shape = [*dims, *values.shape[1:]]
            out = np.empty(out_shape, values.dtype)
            out[...] = fill
            if values.shape[0]:
                out[_coordinates(splits, values.shape[0])] = values
            if target is None:
                return (out,)
            final_shape = [
                t if t is not None else d for t, d in zip(target, out_shape, strict=False)
            ]
            final = np.empty(final_shape, values.dtype)
            final[...] = fill
            overlap = tuple(
                slice(0, min(a, b)) for a, b in zip(final_shape, out_shape, strict=True)
            )
            final[overlap] = out[overlap]
            return (final,)

        with ops.name_scope(name, "RaggedToTensor"):
            (out,) = host_op(
                "RaggedTensorToTensor",
                "RaggedTensorToTensor",
                inputs,
                compute,
                [(None if static is None else tuple(static), dtype)],
            )
        return out

    def to_sparse(self, name: str | None = None) -> SparseTensor:
        """The ``SparseTensor`` of the values (``RaggedTensorToSparse``): indices the
        coordinates of each value, in row-major order; dense shape the bounding shape."""
        rank = self.ragged_rank
        flat = self.flat_values
        fshape = flat._shape
        full_rank = None if fshape is None else rank + len(fshape)

        def compute(values: Any, *splits_in: Any) -> tuple[Any, ...]:
            values = np.asarray(values)
            splits = [np.asarray(s) for s in splits_in]
            coords = _coordinates(splits, values.shape[0])
            inner = values.shape[1:]
            n_inner = int(np.prod(inner))
            lead = (
                np.stack(coords, axis=1).astype(np.int64)
                if coords
                else np.zeros((values.shape[0], 0), np.int64)
            )
            if inner:
                grid = np.stack(np.unravel_index(np.arange(n_inner), inner), axis=1).astype(
                    np.int64
                )
                lead = np.concatenate(
                    [np.repeat(lead, n_inner, axis=0), np.tile(grid, (values.shape[0], 1))], axis=1
                )
            dims = [len(splits[0]) - 1]
            for s in splits:
                d = np.diff(s)
                dims.append(int(d.max()) if d.size else 0)
            dense = np.asarray([*dims, *inner], np.int64)
            return lead.reshape(-1, len(dense)), values.reshape(-1), dense

        nvals = None
        if fshape is not None and None not in fshape:
            nvals = int(np.prod(fshape))
        with ops.name_scope(name, "RaggedToSparse"):
            idx, vals, dense = host_op(
                "RaggedTensorToSparse",
                "RaggedTensorToSparse",
                [flat, *self.nested_row_splits],
                compute,
                [
                    ((nvals, full_rank), np.dtype(np.int64)),
                    ((nvals,), _np(flat)),
                    ((full_rank,), np.dtype(np.int64)),
                ],
            )
        sparse = SparseTensor(idx, vals, dense)
        sparse._static = TensorShape(None if full_rank is None else [None] * full_rank)
        return sparse

    def to_list(self) -> list:
        """Eager only in TF: graph-mode ragged tensors have no value.

        Raises:
          ValueError: always (TF's message in graph mode).
        """
        raise ValueError("to_list can only be used in eager mode.")

    def numpy(self) -> Any:
        """Eager only in TF.

        Raises:
          ValueError: always (TF's message in graph mode).
        """
        raise ValueError("RaggedTensor.numpy() is only supported in eager mode.")

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> RaggedTensorValue:
        """``session.run(self)``: a ``RaggedTensorValue``."""
        from adapters.v1.client.session import _session_for

        return _session_for(session, self.graph).run(self, feed_dict=feed_dict)

    def _as_fetch_components(self) -> tuple[type, list[Any]]:
        # Session.run fetches the values (recursively) and the splits and rebuilds a
        # RaggedTensorValue of them.
        return _RaggedValueParts, [self._values, self._row_splits]

    def _feed_components(self, value: Any) -> Any:
        # Session.run's feed of a RaggedTensor key (TF's expansion): its nested row splits
        # and flat values fed those of the value (a RaggedTensorValue).
        keys = [*self.nested_row_splits, self.flat_values]
        fed = [*value.nested_row_splits, value.flat_values]
        return zip(keys, fed, strict=False)

    def __repr__(self) -> str:
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"


def _coordinates(splits: Sequence[np.ndarray], nvals: int) -> tuple[np.ndarray, ...]:
    """The ragged coordinates (row, column at each ragged level) of each of ``nvals``
    flat values partitioned by ``splits`` (outermost first)."""
    index = np.arange(nvals)
    coords = []
    for s in reversed(splits):
        rows = np.repeat(np.arange(len(s) - 1), np.diff(s))[index]
        coords.append(index - s[rows])
        index = rows
    coords.append(index)
    return tuple(reversed(coords))


def _operand(rt: RaggedTensor, other: Any, op: str) -> Any:
    """``other`` as the flat values it meets in ``rt <op> other``: a ragged tensor's own
    (sharing ``rt``'s row splits tensors), or a scalar as it is."""
    if isinstance(other, RaggedTensor):
        mine, theirs = rt.nested_row_splits, other.nested_row_splits
        if len(mine) != len(theirs) or any(a is not b for a, b in zip(mine, theirs, strict=True)):
            raise NotImplementedError(
                f"RaggedTensor {op} RaggedTensor: adapters.v1 needs both to share their row "
                "splits tensors (TF compares their values at run time)"
            )
        return other.flat_values
    shape = np.shape(other) if not isinstance(other, ops.Tensor) else other._shape
    if shape is None or len(shape) != 0:
        raise NotImplementedError(
            f"RaggedTensor {op} a non-scalar dense value: adapters.v1 broadcasts scalars only"
        )
    return other


def _binary(op: str, fn: Callable[[Any, Any], Any], reverse: bool = False) -> Callable:
    def method(self: RaggedTensor, other: Any) -> RaggedTensor:
        value = _operand(self, other, op)
        flat = self.flat_values
        return self.with_flat_values(fn(value, flat) if reverse else fn(flat, value))

    method.__name__ = op
    method.__doc__ = f"Element-wise ``{op}`` of the flat values (TF's ragged operator)."
    return method


for _name, _fn in (
    ("__add__", lambda a, b: a + b),
    ("__sub__", lambda a, b: a - b),
    ("__mul__", lambda a, b: a * b),
    ("__truediv__", lambda a, b: a / b),
    ("__floordiv__", lambda a, b: a // b),
    ("__mod__", lambda a, b: a % b),
    ("__pow__", lambda a, b: a**b),
    ("__and__", lambda a, b: a & b),
    ("__or__", lambda a, b: a | b),
    ("__xor__", lambda a, b: a ^ b),
    ("__lt__", lambda a, b: a < b),
    ("__le__", lambda a, b: a <= b),
    ("__gt__", lambda a, b: a > b),
    ("__ge__", lambda a, b: a >= b),
):
    setattr(RaggedTensor, _name, _binary(_name, _fn))
    if _name[2:4] not in ("lt", "le", "gt", "ge"):
        setattr(RaggedTensor, "__r" + _name[2:], _binary("__r" + _name[2:], _fn, reverse=True))
RaggedTensor.__neg__ = lambda self: self.with_flat_values(-self.flat_values)
RaggedTensor.__abs__ = lambda self: self.with_flat_values(abs(self.flat_values))
RaggedTensor.__invert__ = lambda self: self.with_flat_values(~self.flat_values)


class _RaggedValueParts:
    """Builds a ``RaggedTensorValue`` from the fetched ``[values, row_splits]`` (the
    session's rebuild calls ``cls(parts)``)."""

    def __new__(cls, parts: list) -> RaggedTensorValue:
        values, splits = parts
        return RaggedTensorValue(values, np.asarray(splits))
