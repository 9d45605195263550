"""``Dataset.window``: windows of consecutive elements, each a dataset.

A window's element is a nested dataset per component (TF's ``DatasetSpec``
components). In jtrain's pipeline a window travels as one Python list of elements
per component; the function of a ``flat_map`` or ``interleave`` reading it gets, for each
component, a :class:`WindowSource` dataset whose elements are that list's, for the
window at hand (as TF's function gets a ``_VariantDataset``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import (
    Count,
    DatasetV1,
    Element,
    Failed,
    Run,
    _bool_arg,
    _count_arg,
    _Unary,
    _value_at,
)
from adapters.v1.data.structure import DatasetSpec
from adapters.v1.framework import ops
from jtrain import errors

__all__ = ["Window", "WindowSource"]


class WindowSource(DatasetV1):
    """The elements of the window being read (a list of flat elements in the run's
    known values): a dataset standing for a function's argument (a ``window``
    component's, a ``group_by_window`` group's)."""

    def __init__(self, element: Any):
        self._structure = element

    def _elements(self, run: Run) -> Iterator[Element]:
        yield from run.known[self]


class Window(_Unary):
    """``window(size, shift, stride, drop_remainder)``: for each start ``0, shift,
    2*shift...`` before the input's end, the elements ``start + k*stride``
    (``k < size``) that exist. Each argument is a value known now or a tensor (a fed
    placeholder) read when the iterator starts."""

    def __init__(
        self,
        input_dataset: DatasetV1,
        size: Any,
        shift: Any = None,
        stride: Any = 1,
        drop_remainder: bool = False,
    ):
        super().__init__(input_dataset)
        self._size: Count = _count_arg(size, "size", "WindowDataset")
        self._shift: Count = (
            self._size if shift is None else _count_arg(shift, "shift", "WindowDataset")
        )
        self._stride: Count = _count_arg(stride, "stride", "WindowDataset")
        self._drop = _bool_arg(drop_remainder, "drop_remainder")
        self._structure = structure.map_structure(
            lambda s: DatasetSpec(s), input_dataset._structure
        )

    def _captures(self) -> list[ops.Tensor]:
        args = (self._size, self._shift, self._stride, self._drop)
        return list(dict.fromkeys(a for a in args if isinstance(a, ops.Tensor)))

    def _arguments(self, run: Run) -> tuple[int, int, int, bool]:
        """``size, shift, stride, drop_remainder`` in ``run``."""
        return (
            int(_value_at(run, self._size, "size")),
            int(_value_at(run, self._shift, "shift")),
            int(_value_at(run, self._stride, "stride")),
            bool(_value_at(run, self._drop, "drop_remainder")),
        )

    def _check_args(self, run: Run) -> None:
        size, shift, stride, _ = self._arguments(run)
        for what, value in (("size", size), ("shift", shift), ("stride", stride)):
            if value <= 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Window {what} must be greater than zero."
                )

    def _cardinality(self, run: Run) -> int:
        n = self._input._cardinality(run)
        size, shift, stride, drop = self._arguments(run)
        if n < 0 or min(size, shift, stride) <= 0:
            return n
        if drop:
            span = (size - 1) * stride + 1
            return 0 if n < span else (n - span) // shift + 1
        return -(-n // shift)

    def _elements(self, run: Run) -> Iterator[Element]:
        size, shift, stride, drop_remainder = self._arguments(run)
        span = (size - 1) * stride + 1  # the input elements a full window covers
        buffer: list[Element] = []
        skip = 0  # input elements to drop before the next window starts
        source = self._input._elements(run)
        done = False
        while True:
            while not done and len(buffer) < span:
                element = next(source, None)
                if element is None:
                    done = True
                elif isinstance(element, Failed):
                    yield element
                elif skip:
                    skip -= 1
                else:
                    buffer.append(element)
            if not buffer:
                return
            rows = buffer[0:span:stride]
            if len(rows) == size or not drop_remainder:
                yield tuple([(v,) for v in parts] for parts in zip(*rows, strict=True))
            elif done:
                return
            drop = min(shift, len(buffer))
            del buffer[:drop]
            skip = shift - drop
