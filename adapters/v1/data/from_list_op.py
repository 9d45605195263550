"""``tf.data.experimental.from_list``: a dataset of the elements of a Python list.

As TF's ``ListDataset``: every element has the first one's structure; each
component's dtype is the first element's, its static shape the most specific
shape all elements' fit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import DatasetV1, Element, Run, _cast, _component, _spec_of
from adapters.v1.data.structure import Spec
from adapters.v1.framework import ops

__all__ = ["ListDataset", "from_list"]


class ListDataset(DatasetV1):
    """The elements of ``elements``, in order (``from_list`` builds it)."""

    def __init__(self, elements: Any):
        if not elements:
            raise ValueError(
                "Invalid `elements`. `elements` should not be empty. If you want an empty "
                "dataset, use `tf.data.Dataset.range(0)`."
            )
        if not isinstance(elements, list):
            raise ValueError("Invalid `elements`. `elements` must be a list.")
        rows = [[_component(v) for v in structure.flatten(e)] for e in elements]
        first = elements[0]
        for e in elements[1:]:
            if not structure.same_structure(first, e):
                raise ValueError(
                    f"The two structures don't have the same nested structure: {first!r} and {e!r}."
                )
        specs = [_spec_of(v) for v in rows[0]]
        for row in rows[1:]:
            for i, v in enumerate(row):
                s = _spec_of(v)
                if s.dtype != specs[i].dtype:
                    raise TypeError(
                        f"Invalid `elements`: component {i} is {specs[i].dtype.name} in the "
                        f"first element and {s.dtype.name} in another."
                    )
                specs[i] = Spec(specs[i].shape.most_specific_compatible_shape(s.shape), s.dtype)
        self._rows = rows
        self._structure = structure.pack(first, specs)

    def _captures(self) -> list[ops.Tensor]:
        return [v for row in self._rows for v in row if isinstance(v, ops.Tensor)]

    def _cardinality(self, run: Run) -> int:
        return len(self._rows)

    def _elements(self, run: Run) -> Iterator[Element]:
        specs = self._flat_specs()
        for row in self._rows:
            yield tuple(
                _cast(run.known[v] if isinstance(v, ops.Tensor) else np.asarray(v), s)
                for v, s in zip(row, specs, strict=True)
            )


def from_list(elements: list[Any], name: str | None = None) -> DatasetV1:
    """A dataset of the elements of ``elements`` (a Python list), in order.

    Args:
      elements: a non-empty list of elements of one structure (nested tuples and
        dicts of values or tensors).
      name: unused (TF's op name).

    Raises:
      ValueError: an empty list, not a list, or elements of different structures.
      TypeError: a component of different dtypes in two elements.
    """
    return ListDataset(elements)
