"""``tf.compat.v1.train.ExponentialMovingAverage`` over ``jtrain.averaging``."""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops import control_flow_ops, variable_scope
from adapters.v1.ops.variables import (
    Variable,
    global_variables,
    moving_average_variables,
    trainable_variables,
)
from adapters.v1.training.optimizer import create_slot, create_zeros_slot
from jtrain import averaging

__all__ = ["ExponentialMovingAverage"]


class ExponentialMovingAverage:
    """Shadow variables tracking moving averages of variables or tensors.

    ``apply(var_list)`` creates, per item, a shadow named ``<op name>/<name>``
    (``w/ExponentialMovingAverage``) and returns an op that moves every shadow
    towards its item with :func:`jtrain.averaging.exponential_moving_average`:
    ``shadow -= (1 - decay) * (shadow - value)``, ``decay = min(decay, (1 +
    num_updates) / (10 + num_updates))`` when ``num_updates`` is given.

    A variable's shadow starts at the variable's initial value; a tensor's shadow
    starts at zero and, with ``zero_debias``, is debiased with the ``biased`` and
    ``local_step`` variables TF creates (``zero_debias`` never applies to
    variables, as in TF).

    Args:
      decay: the decay (typically 0.999).
      num_updates: an optional tensor or variable (the global step).
      zero_debias: debias the shadows of tensors.
      name: the shadows' name suffix and the ops' scope.
    """

    def __init__(
        self,
        decay: Any,
        num_updates: Any = None,
        zero_debias: bool = False,
        name: str = "ExponentialMovingAverage",
    ):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict[Any, Variable] = {}
        self._debias: dict[Any, tuple[Variable, Variable]] = {}

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list: list[Any] | None = None) -> ops.Operation:
        """Creates the shadows (once per item) and returns the op updating them all.

        Raises:
          TypeError: an item is not half, float or double.
          ValueError: an item appears twice, or its shadow already exists.
        """
        if var_list is None:
            var_list = trainable_variables()
        var_list = list(var_list)
        graph = ops.get_default_graph()
        items = []
        for var in var_list:
            if var.dtype is None or np.dtype(var.dtype).kind != "f":
                raise TypeError(
                    f"The variables must be half, float, or double: {var.name} has {var.dtype}"
                )
            if var in self._averages:
                raise ValueError(f"Moving average already computed for: {var.name}")
            items.append(var)
        with graph.control_dependencies(None):
            for var in items:
                self._create_shadow(var, graph)
        ema_var = averaging.exponential_moving_average(self._decay)
        ema_tensor = averaging.exponential_moving_average(self._decay, zero_debias=True)
        inputs = [ops.convert_to_tensor(v) for v in items]
        num_updates = (
            [ops.convert_to_tensor(self._num_updates)] if self._num_updates is not None else []
        )
        plan = [(self._averages[v], self._debias.get(v)) for v in items]

        def compute(ctx, *values):
            n = values[len(items)] if num_updates else None
            for (shadow, debias), value in zip(plan, values, strict=False):
                if debias is None:
                    state = averaging.ExponentialMovingAverageState(average=ctx.read(shadow))
                    new = ema_var.update(value, state, num_updates=n)
                else:
                    biased, step = debias
                    state = averaging.ExponentialMovingAverageState(
                        ctx.read(shadow), ctx.read(biased), ctx.read(step)
                    )
                    new = ema_tensor.update(value, state, num_updates=n)
                    ctx.write(biased, new.biased)
                    ctx.write(step, new.local_step)
                ctx.write(shadow, new.average)
            return ()

        with graph.name_scope(self._name) as scope:
            op = graph.create_op(
                "ExponentialMovingAverage", "update", inputs=inputs + num_updates, compute=compute
            )
            written = [self._averages[v] for v in items]
            written += [x for v in items if v in self._debias for x in self._debias[v]]
            op._writes = tuple(written)
            op._reads = tuple(written)
            return control_flow_ops.group(op, name=scope)

    def _create_shadow(self, var: Any, graph: ops.Graph) -> None:
        """The shadow of ``var``, named as TF names it (``slot_creator.create_slot``):
        in the current variable scope, ``<var op name>/<name>`` made unique
        (``e/w/ExponentialMovingAverage`` inside ``variable_scope("e")``; a name scope
        changes nothing). A debiased tensor's ``biased`` and ``local_step`` are
        ``get_variable``s in the current variable scope under the shadow's name."""
        is_variable = isinstance(var, Variable)
        shape, dtype = var._shape, var.dtype
        if is_variable:
            shadow = create_slot(var, var.initialized_value(), self._name)
        else:  # TF: a zeros slot, not colocated with the tensor
            shadow = create_zeros_slot(var, self._name, colocate_with_primary=False)
        self._averages[var] = shadow
        if is_variable:
            graph.add_to_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, var)
        elif self._zero_debias:
            with variable_scope.variable_scope(shadow.op.name):
                biased = variable_scope.get_variable(
                    _unique_in_scope("biased"),
                    initializer=np.zeros(shape, dtype),
                    dtype=dtype,
                    trainable=False,
                )
                step = variable_scope.get_variable(
                    _unique_in_scope("local_step"),
                    initializer=np.zeros((), dtype),
                    dtype=dtype,
                    trainable=False,
                )
            self._debias[var] = (biased, step)

    def average(self, var: Any) -> Variable | None:
        """The shadow of ``var``, or None."""
        return self._averages.get(var)

    def average_name(self, var: Any) -> str:
        """The shadow's op name for ``var`` (``<var op name>/<name>``), as checkpoints key it."""
        if var in self._averages:
            return self._averages[var].op.name
        return f"{var.op.name}/{self._name}"

    def variables_to_restore(self, moving_avg_variables: list[Any] | None = None) -> dict:
        """A ``Saver`` var_list that restores shadows into the variables they average."""
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        name_map: dict[str, Any] = {}
        for v in moving_avg_variables:
            name_map[self.average_name(v)] = v
        names = {v.name for v in moving_avg_variables}
        for v in global_variables():
            if v.name not in names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map


def _unique_in_scope(name: str) -> str:
    """TF's ``_zero_debias._maybe_get_unique``: ``name``, or ``name_1``... when the
    current variable scope already holds a global variable of that name (unless it
    reuses)."""
    scope = variable_scope.get_variable_scope()
    if scope.reuse:
        return name
    taken = {v.op.name for v in scope.global_variables()}
    full = f"{scope.name}/{name}"
    if full not in taken:
        return name
    i = 1
    while f"{full}_{i}" in taken:
        i += 1
    return f"{name}_{i}"
