"""``Dataset.reduce``: a state folded over a dataset's elements, on the host.

The result's tensors are a host operation: each run of an op reading them runs the
whole dataset in Python (as TF's ``ReduceDataset`` runs it in the kernel) before the
step's program, which reads the final state as a feed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import (
    DatasetV1,
    Failed,
    Run,
    _cast,
    _component,
    _Function,
    _spec_of,
)
from adapters.v1.data.host_graph import HostGraph
from adapters.v1.data.structure import Spec
from adapters.v1.framework import ops

__all__ = ["reduce"]

_RETRACES = 10  # TF relaxes the state's shapes until they stop changing


def reduce(dataset: DatasetV1, initial_state: Any, reduce_func: Callable[..., Any]) -> Any:
    """Tensors of ``reduce_func(state, element)`` folded over ``dataset`` from
    ``initial_state``, nested as ``initial_state`` (see ``Dataset.reduce``)."""
    from adapters.v1.data.iterator_ops import _Pipeline, _user_value

    values = [_component(v) for v in structure.flatten(initial_state)]
    specs = [_spec_of(v) for v in values]
    template = initial_state
    for _ in range(_RETRACES):
        state = structure.pack(template, specs)
        fn = _Function(
            reduce_func, (state, dataset._structure), "Dataset.reduce's function", "reduce"
        )
        new = fn.result
        if not structure.same_structure(template, new):
            raise TypeError(
                "The structure of the new state must match the structure of the initial "
                f"state: {template!r} vs. {new!r}."
            )
        if [s.dtype for s in fn.specs] != [s.dtype for s in specs]:
            raise TypeError(
                "The element types for the new state must match the initial state. Expected "
                f"{[s.dtype for s in specs]}; got {[s.dtype for s in fn.specs]}."
            )
        relaxed = [
            Spec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
            for a, b in zip(specs, fn.specs, strict=True)
        ]
        if [r.shape.as_list() if r.shape.rank is not None else None for r in relaxed] == [
            s.shape.as_list() if s.shape.rank is not None else None for s in specs
        ]:
            break
        specs = relaxed
    pipeline = _Pipeline(dataset)
    captures = [v for v in values if isinstance(v, ops.Tensor)]
    initial = HostGraph(captures, [], "Dataset.reduce's initial state") if captures else None
    outside = [*(initial.placeholders if initial else []), *fn.graph.placeholders]
    placeholders = list(dict.fromkeys([*pipeline.placeholders, *outside]))

    def compute(session: Any, *fed: Any) -> tuple[Any, ...]:
        known = dict(zip(placeholders, fed, strict=True))
        start = dict(zip(captures, initial(session, [], known, {}), strict=True)) if initial else {}
        state_values = tuple(
            _cast(start[v] if isinstance(v, ops.Tensor) else v, s)
            for v, s in zip(values, specs, strict=True)
        )
        run = Run(session, known)
        for element in pipeline.start(session, known):
            if isinstance(element, Failed):
                raise element.error
            state_values = tuple(fn(run, (*state_values, *element)))
        return tuple(_user_value(np.asarray(v)) for v in state_values)

    op = ops.get_default_graph().create_op(
        "ReduceDataset",
        "ReduceDataset",
        inputs=placeholders,
        compute=compute,
        output_specs=[(s.shape, s.dtype) for s in specs],
        host="pre",
    )
    return structure.pack(template, list(op.outputs))
