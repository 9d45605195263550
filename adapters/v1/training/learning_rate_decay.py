"""TF's v1 decay functions: ``exponential_decay(learning_rate, global_step, ...)``...

Each takes TF's v1 arguments (``global_step`` a tensor or variable, ``name``) and
returns a lazy learning-rate tensor computed by the matching ``jtrain.schedules``
schedule, so an optimizer built with it sees TF's rate at every step.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, NamedTuple

import jax

from adapters.v1.framework import ops
from adapters.v1.ops.script_ops import lift
from jtrain import schedules

__all__ = [
    "exponential_decay",
    "natural_exp_decay",
    "inverse_time_decay",
    "piecewise_constant",
    "piecewise_constant_decay",
    "polynomial_decay",
    "cosine_decay",
    "cosine_decay_restarts",
    "linear_cosine_decay",
    "noisy_linear_cosine_decay",
]


def _lift(
    fn_name: str,
    factory: Callable[..., Any],
    args: tuple,
    global_step: Any,
    name: str | None,
    scope: str,
    op_path: str = "",
    **kwargs: Any,
) -> ops.Tensor:
    """The schedule ``factory(*args, **kwargs)`` at ``global_step``, as one graph node.

    The node is named as TF names the decay's output tensor: the name scope ``name``
    (default ``scope``) itself (TF's ``ExponentialDecay:0``), or ``op_path`` inside it
    (``case/cond/Merge`` for ``piecewise_constant``).

    Any of ``args`` may be a tensor or variable (BERT's ``polynomial_decay(
    tf.constant(lr), ...)``), or a list holding some (``piecewise_constant``'s
    ``values``): those become inputs of the node and the schedule is built from their
    values when the step runs; Python values are checked when the graph is built.
    """
    if global_step is None:
        raise ValueError(f"global_step is required for {fn_name}.")
    step = ops.convert_to_tensor(global_step)
    inputs: list[ops.Tensor] = []

    def placed(value: Any) -> Any:  # a tensor becomes ("input", its index)
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
            inputs.append(ops.convert_to_tensor(value))
            return _Input(len(inputs) - 1)
        if isinstance(value, (list, tuple)):
            return type(value)(placed(v) for v in value)
        return value

    template = [placed(a) for a in args]
    with ops.name_scope(name, scope) as scope_name:
        *inner, op_name = op_path.split("/") if op_path else [scope_name]
        with contextlib.ExitStack() as stack:
            for part in inner:
                stack.enter_context(ops.name_scope(part))
            return _node(factory, args, template, inputs, step, op_name, kwargs)


def _node(
    factory: Callable[..., Any],
    args: tuple,
    template: list,
    inputs: list[ops.Tensor],
    step: ops.Tensor,
    op_name: str,
    kwargs: dict[str, Any],
) -> ops.Tensor:
    """``_lift``'s node, named ``op_name`` in the current scope."""
    if not inputs:
        return lift(factory(*args, **kwargs), [step], name=op_name)

    def at_step(step_value: Any, *values: Any) -> Any:
        def filled(value: Any) -> Any:
            if isinstance(value, _Input):
                return values[value.index]
            if isinstance(value, (list, tuple)):
                return type(value)(filled(v) for v in value)
            return value

        return factory(*[filled(a) for a in template], **kwargs)(step_value)

    return lift(at_step, [step, *inputs], name=op_name)


class _Input(NamedTuple):
    """Where a tensor argument's value goes in the schedule's arguments (``_lift``)."""

    index: int


def exponential_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
) -> ops.Tensor:
    """``learning_rate * decay_rate ** (global_step / decay_steps)``; see
    :func:`jtrain.schedules.exponential_decay`."""
    return _lift(
        "exponential_decay",
        schedules.exponential_decay,
        (learning_rate, decay_steps, decay_rate, staircase),
        global_step,
        name,
        "ExponentialDecay",
    )


def natural_exp_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
) -> ops.Tensor:
    """See :func:`jtrain.schedules.natural_exp_decay`."""
    return _lift(
        "natural_exp_decay",
        schedules.natural_exp_decay,
        (learning_rate, decay_steps, decay_rate, staircase),
        global_step,
        name,
        "ExponentialDecay",
    )


def inverse_time_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
) -> ops.Tensor:
    """See :func:`jtrain.schedules.inverse_time_decay`."""
    return _lift(
        "inverse_time_decay",
        schedules.inverse_time_decay,
        (learning_rate, decay_steps, decay_rate, staircase),
        global_step,
        name,
        "InverseTimeDecay",
    )


def piecewise_constant(x, boundaries, values, name=None) -> ops.Tensor:
    """``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]``; see
    :func:`jtrain.schedules.piecewise_constant`."""
    return _lift(
        "piecewise_constant",
        schedules.piecewise_constant,
        (boundaries, values),
        x,
        name,
        "PiecewiseConstant",
        "case/cond/Merge",
    )


piecewise_constant_decay = piecewise_constant


def polynomial_decay(
    learning_rate,
    global_step,
    decay_steps,
    end_learning_rate=0.0001,
    power=1.0,
    cycle=False,
    name=None,
) -> ops.Tensor:
    """See :func:`jtrain.schedules.polynomial_decay`."""
    return _lift(
        "polynomial_decay",
        schedules.polynomial_decay,
        (learning_rate, decay_steps, end_learning_rate, power, cycle),
        global_step,
        name,
        "PolynomialDecay",
    )


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None) -> ops.Tensor:
    """See :func:`jtrain.schedules.cosine_decay`."""
    return _lift(
        "cosine_decay",
        schedules.cosine_decay,
        (learning_rate, decay_steps, alpha),
        global_step,
        name,
        "CosineDecay",
        "Mul_3",
    )


def cosine_decay_restarts(
    learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None
) -> ops.Tensor:
    """See :func:`jtrain.schedules.cosine_decay_restarts`."""
    return _lift(
        "cosine_decay_restarts",
        schedules.cosine_decay_restarts,
        (learning_rate, first_decay_steps, t_mul, m_mul, alpha),
        global_step,
        name,
        "SGDRDecay",
    )


def linear_cosine_decay(
    learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None
) -> ops.Tensor:
    """See :func:`jtrain.schedules.linear_cosine_decay`."""
    return _lift(
        "linear_cosine_decay",
        schedules.linear_cosine_decay,
        (learning_rate, decay_steps, num_periods, alpha, beta),
        global_step,
        name,
        "LinearCosineDecay",
    )


def noisy_linear_cosine_decay(
    learning_rate,
    global_step,
    decay_steps,
    initial_variance=1.0,
    variance_decay=0.55,
    num_periods=0.5,
    alpha=0.0,
    beta=0.001,
    name=None,
) -> ops.Tensor:
    """See :func:`jtrain.schedules.noisy_linear_cosine_decay`.

    .. note::
       TF draws the noise from a stateful random op; here it is a pure function of
       ``(PRNGKey(0), global_step)``: the same step always gets the same noise (TF's
       noise values are not reproduced). As TF, there is no ``seed`` argument
       (``seed=`` raises ``TypeError``).
    """
    return _lift(
        "noisy_linear_cosine_decay",
        schedules.noisy_linear_cosine_decay,
        (learning_rate, decay_steps, initial_variance, variance_decay, num_periods, alpha, beta),
        global_step,
        name,
        "NoisyLinearCosineDecay",
        key=jax.random.PRNGKey(0),
    )
