"""TF's gradient registry and ``tf.custom_gradient``: gradients written by the user.

``tf.RegisterGradient("Name")`` registers a Python gradient function under a name;
``graph.gradient_override_map({"Identity": "Name"})`` makes the ops of that type
created inside take it. When ``tf.gradients`` reaches such an op, the function is
called once, as TF calls it, with the op and one incoming gradient per output:

.. math::

    \\frac{\\partial L}{\\partial x_i} = g_i(\\text{op}, \\partial L / \\partial y_1, \\ldots)

and the graph tensors it returns (one per input, ``None`` for none) are the op's
input gradients: ``tf.gradients`` evaluates them, inside the compiled step, as the
backward rule of the op (``gradients_impl``, a ``jax.custom_vjp``); everywhere else
JAX's derivatives of the op library are TF's gradients.

``tf.custom_gradient`` is built on the registry as TF builds it: the function's
results pass through an ``IdentityN`` whose gradient, registered under a fresh
``CustomGradient-N`` name, calls the user's ``grad_fn``.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import traceback
from collections.abc import Callable
from typing import Any

import jax

from adapters.v1.framework import ops
from adapters.v1.ops._tf_gradient_names import TF_GRADIENT_NAMES, TF_NOT_DIFFERENTIABLE

__all__ = [
    "NotDifferentiable",
    "RegisterGradient",
    "custom_gradient",
    "get_gradient_function",
    "grad_pass_through",
    "lookup_gradient",
    "no_gradient",
    "recompute_grad",
    "registered_without_gradient",
]

# Name -> (gradient function or None for ``no_gradient``, where it was registered): the
# user's registrations.
_REGISTRY: dict[str, tuple[Callable[..., Any] | None, str]] = {}
_UIDS = itertools.count(1)

# TF's built-in gradients an override may name: pass the incoming gradients through.
_PASS_THROUGH = frozenset({"Identity", "IdentityN", "Snapshot"})

# TF gradient functions that return ``None`` for every input (and names registered
# without a gradient, ``TF_NOT_DIFFERENTIABLE``).
_NONE_GRADIENTS = frozenset({"Ceil", "Floor", "Rint", "Round", "ArgMax", "ArgMin"})


class RegisterGradient:
    """A decorator registering a gradient function for an op type name.

    The function is called as ``fn(op, *grads)`` with the operation (its ``inputs``,
    ``outputs``, ``type``, ``name``, ``get_attr``) and the gradient of each of its
    outputs, and returns one gradient per input (a tensor or ``None``; a single
    tensor for a single input). Ops take it through ``Graph.gradient_override_map``.

    Args:
      op_type: the name to register (a string).

    Raises:
      TypeError: ``op_type`` is not a string (TF's message).
      KeyError: the name is registered already, by the user or by TensorFlow
        (``"Registering two gradient with name 'X'! ..."``, TF's message).
    """

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f: Callable[..., Any]) -> Callable[..., Any]:
        _register(self._op_type, f)
        return f


def _register(name: str, f: Callable[..., Any] | None) -> None:
    """Adds ``name`` to the registry, refusing a name registered already (TF's KeyError)."""
    if name in _REGISTRY or name in TF_GRADIENT_NAMES:
        where = _REGISTRY[name][1] if name in _REGISTRY else "TensorFlow"
        raise KeyError(
            f"Registering two gradient with name '{name}'! (Previous registration was in {where})"
        )
    frame = traceback.extract_stack(limit=3)[0]
    _REGISTRY[name] = (f, f"{frame.name} {frame.filename}:{frame.lineno}")


def no_gradient(op_type: str) -> None:
    """Declares ops of type ``op_type`` not differentiable (``tf.no_gradient``,
    ``tf.NotDifferentiable``): no gradient flows through them to their inputs.

    Args:
      op_type: the op type name (a string).

    Raises:
      TypeError: ``op_type`` is not a string (TF's message).
      KeyError: the name is registered already (TF's message; TF registers most of
        its op types, ``"Size"`` included).
    """
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _register(op_type, None)


NotDifferentiable = no_gradient


PY_FUNCTION_GRADIENT = "jtrain:EagerPyFunc"  # the gradient name of tf.py_function's ops


def _py_function_gradient(op: ops.Operation, *grads: Any) -> list[Any]:
    raise LookupError(
        f"No gradient defined for operation '{op.name}' (op type: EagerPyFunc). jtrain's "
        "tf.py_function runs NumPy code, which it cannot differentiate (TF differentiates "
        "it with a tape): write the differentiable part with tf.custom_gradient or "
        "tf.jax_function."
    )


_REGISTRY[PY_FUNCTION_GRADIENT] = (_py_function_gradient, "jtrain")


def registered_without_gradient(op_type: str) -> bool:
    """Whether the user declared ``op_type`` not differentiable (``no_gradient``)."""
    entry = _REGISTRY.get(op_type)
    return entry is not None and entry[0] is None


def get_gradient_function(op: ops.Operation) -> Callable[..., Any] | None:
    """The gradient function ``op``'s ``gradient_override_map`` name selects.

    Returns ``None`` where the op has no override, or the override names the op's
    own type (JAX's derivative of the op is TF's gradient then); for a TF built-in
    name, TF's gradient of that type where jtrain has it (pass-through or none).

    Raises:
      LookupError: no gradient is registered under the name (TF's message).
      NotImplementedError: the name is another of TF's built-in gradients.
    """
    name = op._gradient_op_type
    if name is None or not op.inputs or name == op.type:
        return None
    return lookup_gradient(op)


def lookup_gradient(op: Any) -> Callable[..., Any]:
    """The gradient function registered under ``op``'s override name (see
    ``get_gradient_function``; raises as it does)."""
    name = op._gradient_op_type
    if name in _REGISTRY:
        return _REGISTRY[name][0] or _no_gradient
    if name in _PASS_THROUGH:
        return _pass_through
    if name in _NONE_GRADIENTS or name in TF_NOT_DIFFERENTIABLE:
        return _no_gradient
    if name in TF_GRADIENT_NAMES:
        raise NotImplementedError(
            f"gradient_override_map: op {op.name!r} (type {op.type}) takes TF's built-in "
            f"gradient of {name!r}, which jtrain does not provide as an override; register "
            "the gradient with tf.RegisterGradient instead."
        )
    raise LookupError(
        f"No gradient defined for operation'{op.name}' (op type: {op.type}). In general "
        "every operation must have an associated `@tf.RegisterGradient` for correct "
        "autodiff, which this op is lacking. If you want to pretend this operation is a "
        "constant in your program, you may insert `tf.stop_gradient`. This can be useful "
        "to silence the error in cases where you know gradients are not needed, e.g. the "
        "forward pass of tf.custom_gradient. Please see more details in "
        "https://www.tensorflow.org/api_docs/python/tf/custom_gradient."
    )


def _pass_through(op: ops.Operation, *grads: Any) -> list[Any]:
    """TF's ``Identity``/``IdentityN`` gradient: the incoming gradients."""
    return list(grads)


def _no_gradient(op: ops.Operation, *grads: Any) -> list[Any]:
    """A gradient of ``None`` for every input."""
    return [None] * len(op.inputs)


def custom_gradient(f: Callable[..., Any] | None = None) -> Any:
    """Decorates ``f(*x) -> (y, grad_fn)`` so that ``grad_fn`` gives its gradients.

    ``grad_fn(*dys)`` receives the gradient of each output of ``y`` and returns one
    gradient per argument of ``f``; no gradient flows through ``f``'s own ops. If
    ``f`` uses variables (resource variables it creates, or variables created
    outside), ``grad_fn`` must accept ``variables=`` and return
    ``(input_grads, variable_grads)`` with one gradient per variable.

    Args:
      f: the function; ``tf.custom_gradient`` also works as ``@tf.custom_gradient()``.

    Returns:
      The decorated function (positional tensor arguments only, as TF's graph mode).

    Raises:
      ValueError: keyword arguments are passed to the decorated function, or
        ``grad_fn`` returns a wrong number of variable gradients (TF's messages).
      TypeError: ``f`` creates a variable that is not a resource variable, or uses
        variables and ``grad_fn`` takes no ``variables`` argument (TF's messages).

    .. note:: As in TF's graph mode, only the variables ``f`` creates are checked to
       be resource variables; a reference variable created outside and read inside is
       accepted and passed in ``variables``.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        return _graph_mode_decorator(f, args, kwargs)

    return decorated


def grad_pass_through(f: Callable[..., Any]) -> Callable[..., Any]:
    """``tf.grad_pass_through``: ``f``'s values with the identity as its gradient.

    .. math:: \\frac{\\partial L}{\\partial x} = \\frac{\\partial L}{\\partial f(x)}

    Built as TF builds it, on :func:`custom_gradient`: the incoming gradients are
    the gradients of ``f``'s arguments (one output per argument), and the variables
    ``f`` reads get ``None``. ``tf.grad_pass_through(v.assign)(y)`` lets a gradient
    reach ``y`` through an assignment.

    Args:
      f: a function of tensors (positional arguments).

    Returns:
      The wrapped function.
    """

    @custom_gradient
    def passing(*args: Any) -> Any:
        def grad(*dys: Any, variables: Any = None) -> Any:
            if variables is not None:
                return dys, [None] * len(variables)
            return dys

        return f(*args), grad

    return functools.wraps(f)(passing)


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """``tf.recompute_grad``: ``f`` whose backward pass may recompute its forward one.

    Values and gradients (of the inputs and of the variables ``f`` reads) are
    those of ``f`` itself.

    Args:
      f: a function of tensors (positional arguments).

    Returns:
      The wrapped function.

    Raises:
      ValueError: keyword arguments at the call (TF's graph-mode message).

    .. note::
       TF keeps only ``f``'s inputs for the backward pass and runs ``f`` again
       there, trading compute for memory. A jtrain step is one XLA program that
       XLA schedules as a whole (it rematerializes where memory requires), so the
       wrapper changes no value and adds no ops. In classic TF1 graphs TF 2.21 fails
       (``SystemError``) when ``f`` reads a reference variable; jtrain accepts it.
    """

    @functools.wraps(f)
    def inner(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise ValueError(
                "The custom_gradient decorator currently supports keywords "
                "arguments only when eager execution is enabled."
            )
        return f(*args)

    return inner


def _as_tensor(x: Any) -> ops.Tensor:
    return x.value() if hasattr(x, "_snapshot") else ops.convert_to_tensor(x)


def _graph_mode_decorator(f: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    from adapters.v1.ops.array_ops import identity_n
    from adapters.v1.ops.variables import global_variables, local_variables

    if kwargs:
        raise ValueError(
            "The custom_gradient decorator currently supports keywords "
            "arguments only when eager execution is enabled."
        )
    name = f"CustomGradient-{next(_UIDS)}"
    args = tuple(jax.tree.map(_as_tensor, a) for a in args)
    before = set(global_variables() + local_variables())
    result, grad_fn = f(*args)
    flat_args = jax.tree.leaves(args)
    result_leaves, result_tree = jax.tree.flatten(result)
    flat_result = [ops.convert_to_tensor(t) for t in result_leaves]
    for v in global_variables() + local_variables():
        if v not in before and not getattr(v, "_resource", False):
            raise TypeError(
                "All variables used by a function wrapped with @custom_gradient must "
                "be `ResourceVariable`s. Ensure that no `variable_scope` is created "
                "with `use_resource=False`."
            )
    variables = sorted(_dependent_variables(flat_args, flat_result), key=lambda v: v.name)
    spec = inspect.getfullargspec(grad_fn)
    takes_variables = "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw
    if variables and not takes_variables:
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument 'variables', "
            f"since function uses variables: {variables}"
        )
    n_result = len(flat_result)

    @RegisterGradient(name)
    def internal_grad_fn(unused_op: ops.Operation, *result_grads: Any) -> list[Any]:
        result_grads = result_grads[:n_result]
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn."
                )
        else:
            input_grads = grad_fn(*result_grads)
            variable_grads = []
        flat_grads = jax.tree.leaves(input_grads, is_leaf=lambda g: g is None)
        return [None] * n_result + flat_grads + list(variable_grads)

    graph = flat_result[0].graph if flat_result else ops.get_default_graph()
    tensors = flat_result + flat_args + [v.value() for v in variables]
    with graph.gradient_override_map({"IdentityN": name}):
        outs = identity_n(tensors)
    return jax.tree.unflatten(result_tree, outs[:n_result])


def _dependent_variables(inputs: list[ops.Tensor], outputs: list[ops.Tensor]) -> list[Any]:
    """The variables read on the paths from ``outputs`` back to ``inputs`` (TF's
    ``_get_dependent_variables``): the walk stops at ``inputs``."""
    stop = set(inputs)
    seen: set[ops.Tensor] = set()
    found: dict[Any, None] = {}
    stack = [t for t in outputs if t not in stop]
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        var = t.op._read_of
        if var is not None:
            found[var] = None
        stack.extend(i for i in t.op.inputs if i not in stop)
    return list(found)
