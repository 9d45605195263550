"""``Dataset.group_by_window`` and ``bucket_by_sequence_length``: elements grouped
by a key, each full group (and at the end each partial one) turned into elements.

As TF's ``GroupByWindowDataset``: each element's ``int64`` key puts it in its
group; a key's window size is computed when its first element comes; when a group
holds that many elements, the group is reduced (its output elements come before
any further input is read); at the end of the input the partial groups are reduced
in increasing key order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import (
    Count,
    DatasetV1,
    Element,
    Failed,
    Run,
    _component,
    _count_arg,
    _Function,
    _spec_of,
    _stack,
    _Unary,
    _value_at,
    padded_shapes_for,
    padded_stack,
    padding_values_for,
)
from adapters.v1.data.host_graph import HostGraph
from adapters.v1.data.structure import DatasetSpec, Spec
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape
from jtrain import errors

__all__ = ["BucketBySequenceLength", "GroupByWindow"]

_KEY = Spec.of((), dtypes.int64)


def _int64_function(fn: Callable[..., Any], element: Any, what: str, scope: str) -> _Function:
    """``fn`` traced on ``element``, its result converted to ``tf.int64`` (as TF's
    wrapper: an ``int32`` tensor is an error), checked to be one scalar.

    Raises:
      ValueError: the result is not one ``tf.int64`` scalar.
    """

    def wrapper(*args: Any) -> Any:
        return ops.convert_to_tensor(fn(*args), dtype=dtypes.int64)

    traced = _Function(wrapper, element, f"Dataset.group_by_window's {what}", scope)
    if traced.specs != [_KEY] and not (
        len(traced.specs) == 1 and traced.specs[0].shape.rank is None
    ):
        got = structure.spec_repr(structure.pack(traced.result, traced.specs))
        raise ValueError(
            f"Invalid `{what}`. `{what}` must return a single `tf.int64` scalar tensor but "
            f"its return type is {got}."
        )
    return traced


class _Grouped(_Unary):
    """Grouping by key and reducing full groups; subclasses give the key, the window
    size and the reduction."""

    def _key(self, run: Run, element: Element) -> int:
        raise NotImplementedError

    def _window_size(self, run: Run, key: int) -> int:
        raise NotImplementedError

    def _reduce(self, run: Run, key: int, rows: list[Element]) -> Iterator[Element]:
        raise NotImplementedError

    def _elements(self, run: Run) -> Iterator[Element]:
        groups: dict[int, list[Element]] = {}
        sizes: dict[int, int] = {}
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            key = self._key(run, element)
            if key not in sizes:
                size = self._window_size(run, key)
                if size <= 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"Window size must be greater than zero, but got {size}."
                    )
                sizes[key] = size
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._reduce(run, key, group)
        for key in sorted(groups):  # TF flushes the partial groups by increasing key
            yield from self._reduce(run, key, groups[key])


class GroupByWindow(_Grouped):
    """``group_by_window(key_func, reduce_func, window_size, window_size_func)``."""

    def __init__(
        self,
        input_dataset: DatasetV1,
        key_func: Callable[..., Any],
        reduce_func: Callable[..., Any],
        window_size: Any = None,
        window_size_func: Callable[..., Any] | None = None,
    ):
        super().__init__(input_dataset)
        if (window_size is not None and window_size_func) or not (
            window_size is not None or window_size_func
        ):
            raise ValueError(
                "Either the `window_size` argument or the `window_size_func` argument must be "
                "specified."
            )
        self._key_fn = _int64_function(
            key_func, input_dataset._structure, "key_func", "group_by_window_key"
        )
        self._size: Count | None = None
        self._size_fn: _Function | None = None
        if window_size is not None:  # a tensor (a fed placeholder): read when the iterator starts
            self._size = _count_arg(window_size, "window_size", "GroupByWindowDataset")
        else:
            assert window_size_func is not None
            self._size_fn = _int64_function(
                window_size_func, _KEY, "window_size_func", "group_by_window_size"
            )

        def checked(key: Any, window: Any) -> Any:
            out = reduce_func(key, window)
            if not isinstance(out, DatasetV1):
                specs = structure.map_structure(lambda v: _spec_of(_component(v)), out)
                raise TypeError(
                    "Invalid `reduce_func`. `reduce_func` must return a single "
                    "`tf.data.Dataset` object but its return type is "
                    f"{structure.spec_repr(specs)}."
                )
            return out

        from adapters.v1.data.interleave_op import _DatasetFunction

        self._reduce_fn = _DatasetFunction(
            self,
            checked,
            (_KEY, DatasetSpec(input_dataset._structure)),
            "Dataset.group_by_window's reduce_func",
            "group_by_window_reduce",
        )
        self._structure = self._reduce_fn.dataset._structure

    def _captures(self) -> list[ops.Tensor]:
        return [self._size] if isinstance(self._size, ops.Tensor) else []

    def _functions(self) -> list[HostGraph]:
        fns = [self._key_fn, *([self._size_fn] if self._size_fn else [])]
        return [f.graph for f in fns]

    def _placeholders(self) -> list[ops.Tensor]:
        return list(dict.fromkeys([*super()._placeholders(), *self._reduce_fn.placeholders]))

    def _key(self, run: Run, element: Element) -> int:
        return int(self._key_fn(run, element)[0])

    def _window_size(self, run: Run, key: int) -> int:
        if self._size_fn is None:
            assert self._size is not None
            return int(_value_at(run, self._size, "window_size"))
        return int(self._size_fn(run, (np.asarray(key, np.int64),))[0])

    def _reduce(self, run: Run, key: int, rows: list[Element]) -> Iterator[Element]:
        return self._reduce_fn.open(run, (np.asarray(key, np.int64), rows))


_INT32 = np.iinfo(np.int32)


class BucketBySequenceLength(_Grouped):
    """``bucket_by_sequence_length``: elements grouped by the bucket of their length,
    each group of its bucket's batch size padded into a batch."""

    def __init__(
        self,
        input_dataset: DatasetV1,
        element_length_func: Callable[..., Any],
        bucket_boundaries: list[int],
        bucket_batch_sizes: list[int],
        padded_shapes: Any = None,
        padding_values: Any = None,
        pad_to_bucket_boundary: bool = False,
        no_padding: bool = False,
        drop_remainder: bool = False,
    ):
        super().__init__(input_dataset)
        if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
            raise ValueError(
                "`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                f"`len(bucket_boundaries)={len(bucket_boundaries)}`."
            )
        self._length_fn = _Function(
            element_length_func,
            input_dataset._structure,
            "bucket_by_sequence_length's element_length_func",
            "bucket_by_sequence_length",
        )
        self._boundaries = [int(b) for b in bucket_boundaries]
        self._batch_sizes = [int(b) for b in bucket_batch_sizes]
        self._to_boundary = bool(pad_to_bucket_boundary)
        self._no_padding = bool(no_padding)
        self._drop = bool(drop_remainder)
        specs = input_dataset._flat_specs()
        if padded_shapes is None or self._no_padding:  # TF reads neither without padding
            shapes = [s.shape for s in specs]
        else:
            shapes = padded_shapes_for(input_dataset._structure, specs, padded_shapes)
        self._shapes = [None if s.rank is None else s.as_list() for s in shapes]
        self._pads = padding_values_for(
            input_dataset._structure, specs, None if self._no_padding else padding_values
        )
        # TF's batch size is a tensor (the bucket's): the batch dimension is unknown.
        out = [
            Spec(TensorShape([None]).concatenate(s.shape if self._no_padding else p), s.dtype)
            for s, p in zip(specs, shapes, strict=True)
        ]
        self._structure = structure.pack(input_dataset._structure, out)

    def _functions(self) -> list[HostGraph]:
        return [self._length_fn.graph]

    def _key(self, run: Run, element: Element) -> int:
        length = int(self._length_fn(run, element)[0])
        lows = [int(_INT32.min), *self._boundaries]
        highs = [*self._boundaries, int(_INT32.max)]
        for i, (low, high) in enumerate(zip(lows, highs, strict=True)):
            if low <= length < high:
                return i
        raise errors.InvalidArgumentError(
            None, None, f"bucket_by_sequence_length: element length {length} is in no bucket"
        )

    def _window_size(self, run: Run, key: int) -> int:
        return self._batch_sizes[key]

    def _reduce(self, run: Run, key: int, rows: list[Element]) -> Iterator[Element]:
        if self._drop and len(rows) < self._batch_sizes[key]:
            return
        if self._no_padding:
            yield tuple(_stack(rows, i) for i in range(len(rows[0])))
            return
        filler = None
        if self._to_boundary:
            if key >= len(self._boundaries):
                last = len(self._batch_sizes) - 1
                raise errors.InternalError(
                    None,
                    None,
                    "assertion failed: [When pad_to_bucket_boundary=True, elements must have "
                    "length < max(bucket_boundaries).] [Condition x < y did not hold "
                    f"element-wise:] [x = ] [{key}] [y = ] [{last}]",
                )
            filler = self._boundaries[key] - 1
        shapes = []
        for shape, row in zip(self._shapes, rows[0], strict=True):
            dims = [None] * row.ndim if shape is None else shape
            shapes.append([filler if d is None else d for d in dims])
        yield padded_stack(rows, shapes, self._pads)
