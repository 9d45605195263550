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
from adapters.v1.data.dataset_ops import DatasetV1, Element, Failed, Run, _as_count, _Unary
from adapters.v1.data.structure import DatasetSpec
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
    (``k < size``) that exist."""

    def __init__(
        self,
        input_dataset: DatasetV1,
        size: Any,
        shift: Any = None,
        stride: Any = 1,
        drop_remainder: bool = False,
    ):
        super().__init__(input_dataset)
        self._size = _as_count(size, "size")
        self._shift = self._size if shift is None else _as_count(shift, "shift")
        self._stride = _as_count(stride, "stride")
        self._drop = bool(drop_remainder)
        self._structure = structure.map_structure(
            lambda s: DatasetSpec(s), input_dataset._structure
        )

    def _cardinality(self, run: Run) -> int:
        n = self._input._cardinality(run)
        if n < 0 or min(self._size, self._shift, self._stride) <= 0:
            return n
        if self._drop:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _elements(self, run: Run) -> Iterator[Element]:
        for what, value in (("size", self._size), ("shift", self._shift), ("stride", self._stride)):
            if value <= 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Window {what} must be greater than zero."
                )
        size, shift, stride = self._size, self._shift, self._stride
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
            if len(rows) == size or not self._drop:
                yield tuple([(v,) for v in parts] for parts in zip(*rows, strict=True))
            elif done:
                return
            drop = min(shift, len(buffer))
            del buffer[:drop]
            skip = shift - drop
