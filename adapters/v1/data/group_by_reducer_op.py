"""``tf.data.experimental.group_by_reducer`` and ``Reducer``: one state per key folded
over the whole input, each key's final state finalized into one element.

As TF's ``GroupByReducerDataset``: each element's ``int64`` key (``key_func``) picks
its state, made by ``init_func(key)`` when the key first comes and then folded with
``reduce_func(state, element)``; at the end of the input each key's state gives one
element, ``finalize_func(state)``, in increasing key order (TF sorts the keys).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import (
    UNKNOWN_CARDINALITY,
    DatasetV1,
    Element,
    Failed,
    Run,
    _Function,
    _Unary,
)
from adapters.v1.data.group_by_window_op import _KEY
from adapters.v1.data.host_graph import HostGraph
from adapters.v1.framework import ops

__all__ = ["GroupByReducer", "Reducer"]


class Reducer:
    """How ``group_by_reducer`` folds a key's elements (``tf.data.experimental.Reducer``).

    Args:
      init_func: ``key -> state``, the state of a new key (nested tensors).
      reduce_func: ``(state, element) -> state``, of the same structure and dtypes.
      finalize_func: ``state -> output``, the key's element at the end.
    """

    def __init__(
        self,
        init_func: Callable[..., Any],
        reduce_func: Callable[..., Any],
        finalize_func: Callable[..., Any],
    ):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self) -> Callable[..., Any]:
        return self._init_func

    @property
    def reduce_func(self) -> Callable[..., Any]:
        return self._reduce_func

    @property
    def finalize_func(self) -> Callable[..., Any]:
        return self._finalize_func


class GroupByReducer(_Unary):
    """``dataset.apply(group_by_reducer(key_func, reducer))`` (see the module).

    Raises:
      ValueError: ``key_func`` does not return one ``tf.int64`` scalar (no conversion:
        an ``int32`` key is refused, as TF).
      TypeError: ``reduce_func``'s state of another structure or other dtypes than
        ``init_func``'s.
    """

    def __init__(self, input_dataset: DatasetV1, key_func: Callable[..., Any], reducer: Reducer):
        super().__init__(input_dataset)
        element = input_dataset._structure
        self._key_fn = _Function(
            key_func, element, "group_by_reducer's key_func", "group_by_reducer_key"
        )
        if (
            len(self._key_fn.specs) != 1
            or not _KEY.shape.is_compatible_with(self._key_fn.specs[0].shape)
            or self._key_fn.specs[0].dtype != _KEY.dtype
        ):
            result = structure.pack(self._key_fn.result, self._key_fn.specs)
            types = structure.map_structure(lambda s: s.dtype, result)
            shapes = structure.map_structure(lambda s: s.shape, result)
            raise ValueError(
                "Invalid `key_func`. Expected `key_func` to return a scalar tf.int64 tensor, "
                f"but instead `key_func` has output types={types} and shapes={shapes}."
            )
        self._init_fn = _Function(
            reducer.init_func, _KEY, "group_by_reducer's init_func", "group_by_reducer_init"
        )
        state = structure.pack(self._init_fn.result, self._init_fn.specs)
        self._reduce_fn = _Function(
            reducer.reduce_func,
            (state, element),
            "group_by_reducer's reduce_func",
            "group_by_reducer_reduce",
        )
        new = self._reduce_fn.result
        if not structure.same_structure(self._init_fn.result, new) or [
            s.dtype for s in self._reduce_fn.specs
        ] != [s.dtype for s in self._init_fn.specs]:
            raise TypeError(
                "The element types for the new state must match the initial state. Expected "
                f"{structure.spec_repr(state)}; got "
                f"{structure.spec_repr(structure.pack(new, self._reduce_fn.specs))}."
            )
        self._finalize_fn = _Function(
            reducer.finalize_func,
            state,
            "group_by_reducer's finalize_func",
            "group_by_reducer_finalize",
        )
        self._structure = structure.pack(self._finalize_fn.result, self._finalize_fn.specs)

    def _functions(self) -> list[HostGraph]:
        fns = (self._key_fn, self._init_fn, self._reduce_fn, self._finalize_fn)
        return [f.graph for f in fns]

    def _captures(self) -> list[ops.Tensor]:
        return []

    def _cardinality(self, run: Run) -> int:
        return UNKNOWN_CARDINALITY

    def _elements(self, run: Run) -> Iterator[Element]:
        states: dict[int, Element] = {}
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            (key,) = self._key_fn(run, element)
            k = int(key)
            if k not in states:
                states[k] = tuple(self._init_fn(run, (key,)))
            states[k] = tuple(self._reduce_fn(run, (*states[k], *element)))
        for k in sorted(states):
            yield tuple(self._finalize_fn(run, states[k]))
