"""``Dataset.flat_map`` and ``Dataset.interleave``: a dataset per input element.

The function builds a dataset from tensors standing for one input element (as TF
traces it); for each element its pipeline runs on the host with those tensors
known, as a nested pass of the iterator's pipeline. ``interleave`` takes
``block_length`` elements from each of ``cycle_length`` such datasets in turn, in
TF's deterministic order (the order of TF's ``InterleaveDataset``, which TF's
parallel interleave keeps when ``deterministic`` is not False).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from typing import Any

from adapters.v1.data.dataset_ops import (
    AUTOTUNE,
    Count,
    DatasetV1,
    Element,
    Failed,
    Run,
    _count_arg,
    _value_at,
    check_arguments,
    passing_failures,
    trace,
)
from adapters.v1.data.host_graph import HostGraph
from adapters.v1.framework import ops
from jtrain import errors

__all__ = ["max_parallelism"]


def max_parallelism() -> int:
    """The number of CPUs this process may run on (TF's ``port::MaxParallelism``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class _DatasetFunction:
    """A user's function from one element to a dataset, traced once."""

    def __init__(
        self, owner: DatasetV1, fn: Callable[..., Any], element: Any, what: str, scope: str
    ):
        self.owner = owner
        self.args, dataset = trace(fn, element, scope)
        if not isinstance(dataset, DatasetV1):
            raise TypeError(
                f"The `map_func` argument must return a `Dataset` object. Got {type(dataset)}."
            )
        self.dataset = dataset
        captures: list[ops.Tensor] = []
        found: list[ops.Tensor] = []
        for d in dataset._all():
            captures.extend(t for t in d._captures() if t not in captures)
            found.extend(d._placeholders())
        # The element's tensors (a window's components are datasets, read as known values).
        self.tensors = [i for i, a in enumerate(self.args) if isinstance(a, ops.Tensor)]
        given = [self.args[i] for i in self.tensors]
        self.captures = HostGraph(captures, given, what) if captures else None
        if self.captures is not None:
            found = [*self.captures.placeholders, *found]
        mine = set(self.args)
        # The graph's placeholders the nested datasets read (not the element's).
        self.placeholders = [t for t in dict.fromkeys(found) if t not in mine]

    def open(self, run: Run, element: Element) -> Iterator[Element]:
        """The elements of the dataset made of ``element``."""
        known = dict(run.known)
        known.update(zip(self.args, element, strict=True))
        if self.captures is not None:
            given = [element[i] for i in self.tensors]
            values = self.captures(run.session, given, known, run.random_states)
            known.update(zip(self.captures.outputs, values, strict=True))
        nested = Run(run.session, known)
        nested.random_states = run.random_states  # random ops go on, element after element
        if self.owner in run.markers:  # the nested datasets' errors travel on as the outer's do
            nested.markers = passing_failures(self.dataset)
        check_arguments(self.dataset, nested)  # TF makes the element's dataset now
        return self.dataset._elements(nested)


class _Nested(DatasetV1):
    """A dataset of the datasets ``fn`` makes of ``input_dataset``'s elements."""

    def __init__(self, input_dataset: DatasetV1, fn: Callable[..., Any], what: str, scope: str):
        self._input = input_dataset
        self._fn = _DatasetFunction(self, fn, input_dataset._structure, what, scope)
        self._structure = self._fn.dataset._structure

    def _inputs(self) -> list[DatasetV1]:
        return [self._input]

    def _placeholders(self) -> list[ops.Tensor]:
        return list(self._fn.placeholders)


class FlatMap(_Nested):
    """``flat_map``: each element's dataset, one after another."""

    def __init__(self, input_dataset: DatasetV1, fn: Callable[..., Any]):
        super().__init__(input_dataset, fn, "Dataset.flat_map's function", "Dataset_flat_map")

    def _elements(self, run: Run) -> Iterator[Element]:
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            yield from self._fn.open(run, element)


def cycle_length_of(cycle_length: Any, num_parallel_calls: Any) -> int:
    """The cycle length TF's interleave kernels use (``None`` and ``AUTOTUNE``: from
    the number of CPUs, as TF computes it), of arguments known now."""
    from adapters.v1.data.dataset_ops import _as_count

    value = AUTOTUNE if cycle_length is None else _as_count(cycle_length, "cycle_length")
    calls = None
    if num_parallel_calls is not None:
        calls = _as_count(num_parallel_calls, "num_parallel_calls")
    return _cycle_length(value, calls)


def _cycle_length(value: int, calls: int | None) -> int:
    """The cycle length of a ``cycle_length`` of ``value`` (``AUTOTUNE``: from the
    number of CPUs) and ``num_parallel_calls`` of ``calls``."""
    if value != AUTOTUNE:
        return value
    cpus = max_parallelism()
    if calls is None:
        return cpus  # InterleaveDataset
    if calls == AUTOTUNE:
        # ParallelInterleaveDatasetV4: threads for the current and two future cycles.
        return math.ceil(cpus / 3)
    return min(calls, cpus)


class Interleave(_Nested):
    """``interleave``: ``block_length`` elements from each of ``cycle_length`` open
    datasets in turn; an exhausted one is replaced by the next input element's."""

    # TF's message for a length of zero or less (the legacy ``parallel_interleave``'s
    # kernel words it otherwise).
    length_message = "{} must be greater than zero."

    def __init__(
        self,
        input_dataset: DatasetV1,
        fn: Callable[..., Any],
        cycle_length: Any,
        block_length: Any,
        num_parallel_calls: Any = None,
    ):
        super().__init__(input_dataset, fn, "Dataset.interleave's function", "Dataset_interleave")
        op = "InterleaveDataset" if num_parallel_calls is None else "ParallelInterleaveDatasetV4"
        self._cycle_arg: Count = (
            AUTOTUNE if cycle_length is None else _count_arg(cycle_length, "cycle_length", op)
        )
        self._block_arg: Count = (
            1 if block_length is None else _count_arg(block_length, "block_length", op)
        )
        self._calls_arg: Count | None = (
            None
            if num_parallel_calls is None
            else _count_arg(num_parallel_calls, "num_parallel_calls", op)
        )

    def _captures(self) -> list[ops.Tensor]:
        args = (self._cycle_arg, self._block_arg, self._calls_arg)
        return [a for a in args if isinstance(a, ops.Tensor)]

    def _cycle_block(self, run: Run) -> tuple[int, int]:
        """The cycle and block lengths of ``run``.

        Raises:
          InvalidArgumentError: a length of zero or less, TF's message.
        """
        calls = self._calls_arg
        cycle = _cycle_length(
            int(_value_at(run, self._cycle_arg, "cycle_length")),
            None if calls is None else int(_value_at(run, calls, "num_parallel_calls")),
        )
        if cycle <= 0:
            raise errors.InvalidArgumentError(
                None, None, self.length_message.format("cycle_length")
            )
        block = int(_value_at(run, self._block_arg, "block_length"))
        if block <= 0:
            raise errors.InvalidArgumentError(
                None, None, self.length_message.format("block_length")
            )
        return cycle, block

    def _check_args(self, run: Run) -> None:
        self._cycle_block(run)

    def _elements(self, run: Run) -> Iterator[Element]:
        cycle, block_length = self._cycle_block(run)
        inputs = self._input._elements(run)
        slots: list[Iterator[Element] | None] = [None] * cycle
        index = block = opened = 0
        input_done = False
        while not input_done or opened > 0:
            current = slots[index]
            if current is not None:
                element = next(current, None)
                if isinstance(element, Failed):
                    yield element  # as TF's: the same slot is read again next
                    continue
                if element is not None:
                    block += 1
                    if block == block_length:
                        block, index = 0, (index + 1) % cycle
                    yield element
                    continue
                slots[index] = None
                opened -= 1
                block, index = 0, (index + 1) % cycle
            elif not input_done:
                value = next(inputs, None)
                if isinstance(value, Failed):
                    yield value  # as TF's: the slot is filled on the next call
                    continue
                if value is None:
                    input_done = True
                else:
                    slots[index] = self._fn.open(run, value)
                    opened += 1
            else:
                block, index = 0, (index + 1) % cycle
