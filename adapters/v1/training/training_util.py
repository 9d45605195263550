"""The global step: ``create_global_step``, ``get_global_step``, ``global_step``..."""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.variables import Variable, VariableAggregation

__all__ = [
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "assert_global_step",
    "global_step",
]


def get_global_step(graph: ops.Graph | None = None) -> Variable | ops.Tensor | None:
    """The ``GLOBAL_STEP`` collection's variable (or the tensor named ``global_step:0``).

    Raises:
      TypeError: more than one variable is in the ``GLOBAL_STEP`` collection.
    """
    graph = graph or ops.get_default_graph()
    steps = graph.get_collection(ops.GraphKeys.GLOBAL_STEP)
    if len(steps) == 1:
        return steps[0]
    if len(steps) > 1:
        raise TypeError("Multiple tensors in global_step collection.")
    try:
        return graph.get_tensor_by_name("global_step/read:0")
    except KeyError:
        return None


def create_global_step(graph: ops.Graph | None = None) -> Variable:
    """Creates ``global_step``: an int64 scalar variable starting at 0, not trainable,
    in ``GLOBAL_VARIABLES`` and ``GLOBAL_STEP``.

    As TF, it is ``get_variable("global_step")`` in the root name scope and the
    current variable scope: ``x/global_step`` inside ``variable_scope("x")``, plain
    ``global_step`` inside ``name_scope("x")``.

    Raises:
      ValueError: the graph already has a global step.
    """
    graph = graph or ops.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    from adapters.v1.ops import init_ops, variable_scope

    with graph.as_default(), graph.name_scope(None), graph.control_dependencies(None):
        return variable_scope.get_variable(
            ops.GraphKeys.GLOBAL_STEP,
            shape=[],
            dtype=np.int64,
            initializer=init_ops.zeros_initializer(),
            trainable=False,
            aggregation=VariableAggregation.ONLY_FIRST_REPLICA,
            collections=[ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.GLOBAL_STEP],
        )


def get_or_create_global_step(graph: ops.Graph | None = None) -> Variable | ops.Tensor:
    graph = graph or ops.get_default_graph()
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def assert_global_step(global_step_tensor: Any) -> None:
    """Raises ``TypeError`` unless the argument is a scalar integer variable or tensor."""
    if not isinstance(global_step_tensor, (Variable, ops.Tensor)):
        raise TypeError(
            f"Existing 'global_step' must be a Variable or Tensor: {global_step_tensor}."
        )
    dtype = global_step_tensor.dtype
    if dtype is None or not np.issubdtype(dtype, np.integer):
        raise TypeError(f"Existing 'global_step' does not have integer type: {dtype}")
    if tuple(global_step_tensor._shape or ()) != ():
        raise TypeError(f"Existing 'global_step' is not scalar: {global_step_tensor.shape}")


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The global step's value as a Python int."""
    return int(sess.run(global_step_tensor))
