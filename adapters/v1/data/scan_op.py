"""``Dataset.scan`` (and ``tf.data.experimental.scan``): a state carried over the
elements, each step giving an output element.

The function builds TF ops from tensors standing for the state and one element, as
TF traces it; the state's shapes are relaxed (a dimension the function changes
becomes unknown) and the function traced again until they stop changing, as TF
does. Each pass starts from the initial state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import (
    DatasetV1,
    Element,
    Failed,
    Run,
    _cast,
    _component,
    _Function,
    _spec_of,
    _Unary,
)
from adapters.v1.data.host_graph import HostGraph
from adapters.v1.data.structure import Spec
from adapters.v1.framework import ops
from jtrain import errors

__all__ = ["Scan"]

_RETRACES = 10  # TF relaxes the state's shapes until they stop changing


def _dims(spec: Spec) -> list[Any] | None:
    return spec.shape.as_list() if spec.shape.rank is not None else None


class Scan(_Unary):
    """``scan(initial_state, scan_func)``: the outputs of ``scan_func(state, element)
    -> (new_state, output)``."""

    def __init__(self, input_dataset: DatasetV1, initial_state: Any, scan_func: Callable):
        super().__init__(input_dataset)
        self._values = [_component(v) for v in structure.flatten(initial_state)]
        specs = [_spec_of(v) for v in self._values]
        template = initial_state
        for _ in range(_RETRACES):
            state = structure.pack(template, specs)
            fn = _Function(
                scan_func, (state, input_dataset._structure), "Dataset.scan's function", "scan"
            )
            result = fn.result
            if not (isinstance(result, tuple) and len(result) == 2):
                raise TypeError(
                    "Invalid `scan_func`. `scan_func` should return a pair consisting of new "
                    "state and the output value but its return type is "
                    f"{structure.spec_repr(structure.pack(result, fn.specs))}."
                )
            new_state, output = result
            if not structure.same_structure(template, new_state):
                raise TypeError(
                    "Invalid `scan_func`. The structure of the new state must match the "
                    f"initial state: {template!r} vs. {new_state!r}."
                )
            n = len(specs)
            new_specs, out_specs = fn.specs[:n], fn.specs[n:]
            if [s.dtype for s in new_specs] != [s.dtype for s in specs]:
                old_types = structure.pack(template, [s.dtype for s in specs])
                new_types = structure.pack(template, [s.dtype for s in new_specs])
                raise TypeError(
                    "Invalid `scan_func`. The element types for the new state must match the "
                    f"initial state. Expected {old_types}, got {new_types}."
                )
            relaxed = [
                Spec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
                for a, b in zip(specs, new_specs, strict=True)
            ]
            if [_dims(r) for r in relaxed] == [_dims(s) for s in specs]:
                break
            specs = relaxed
        self._state_specs = specs
        self._fn = fn
        self._structure = structure.pack(output, out_specs)
        captures = [v for v in self._values if isinstance(v, ops.Tensor)]
        self._initial = (
            HostGraph(captures, [], "Dataset.scan's initial state") if captures else None
        )

    def _functions(self) -> list[HostGraph]:
        return [self._fn.graph, *([self._initial] if self._initial else [])]

    def _cardinality(self, run: Run) -> int:
        return self._input._cardinality(run)  # TF's scan preserves it

    def _elements(self, run: Run) -> Iterator[Element]:
        known: dict[Any, Any] = {}
        if self._initial is not None:
            outs = self._initial(run.session, [], run.known, run.random_states)
            known = dict(zip(self._initial.outputs, outs, strict=True))
        state = tuple(
            _cast(known[v] if isinstance(v, ops.Tensor) else v, s)
            for v, s in zip(self._values, self._state_specs, strict=True)
        )
        n = len(state)
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            try:
                values = self._fn(run, (*state, *element))
            except errors.OpError as e:
                yield run.failure(self, e)
                continue
            state = tuple(values[:n])
            yield tuple(values[n:])
