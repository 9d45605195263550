"""``tf.function`` in a TF1 graph: a Python function traced once per input signature
and called through one node.

Calling the decorated function while a graph is built traces it (runs the Python
function on stand-in tensors) the first time an input signature is seen (tensors:
their shape and dtype; Python values: their value), and adds one call node to the
graph whose outputs are the function's (TF's ``PartitionedCall``, or
``StatefulPartitionedCall`` where the function reads or writes resource variables:
its tensors are named ``PartitionedCall:0``, ``PartitionedCall_1:0``... as TF's).
Later calls with the same signature reuse the trace: the Python function does not
run again. Gradients (``tf.gradients``, ``tf.GradientTape``) flow through the node.

.. note:: Variables may be created on the function's first trace only (an
   optimizer's slots, a module's lazily built weights): TF then traces the function
   a second time (its Python side effects run twice), where creating a variable
   again raises ``ValueError``, as it does in any later trace (measured).

.. note:: TF's AutoGraph converts a Python ``if``/``for``/``while`` on a *tensor*
   into ``tf.cond``/``tf.while_loop``; jtrain does not convert: such a statement
   raises the ``TypeError`` of using a tensor as a Python bool (TF's error with
   ``autograph=False``). Control flow on Python values works as in TF; use
   ``tf.cond``/``tf.while_loop`` for control flow on tensors. The traced operations
   also stay in the graph's operation list (TF keeps them in the function's graph).
"""

from __future__ import annotations

import functools
import inspect
import re
import weakref
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.framework.tensor_spec import TensorSpec
from adapters.v1.module.module import _METHOD_CACHE
from adapters.v1.ops import control_flow_ops as cf
from adapters.v1.ops.variables import variable_creator_scope

__all__ = ["ConcreteFunction", "Function", "function"]

_VARIABLE_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make "
    "sure the tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."
)


_TRACE_SCOPE = "tf_function_trace_"


def _trace_scope(name: str) -> str:
    """The name scope of a trace's operations (``<lambda>`` made a valid name)."""
    return _TRACE_SCOPE + re.sub(r"[^A-Za-z0-9_.\-]", "_", name)


def _refuse_variables(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
    raise ValueError(_VARIABLE_ERROR)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")


class ConcreteFunction:
    """One trace of a ``tf.function``: its stand-in inputs, operations and outputs.

    Calling it with tensors of its signature adds a call node to the graph.
    """

    def __init__(
        self,
        name: str,
        graph: ops.Graph,
        bound: inspect.BoundArguments,
        params: list[ops.Tensor],
        specs: list[TensorSpec],
        result: Any,
        created: list[ops.Operation],
    ) -> None:
        self._name = name
        self._graph = graph
        self._params = params
        self._specs = specs
        leaves, self._tree = cf.flatten(result)
        for leaf in leaves:
            if isinstance(leaf, ops.Operation):
                raise TypeError(
                    "To be compatible with tf.function, Python functions must return zero "
                    "or more Tensors or ExtensionTypes or None values; in compilation of "
                    f"{name}, found return value of type Operation, which is not a Tensor "
                    "or ExtensionType."
                )
        self._leaves = leaves
        self._outputs = [ops.convert_to_tensor(t) for t in leaves if _is_tensor(t)]
        self._body = cf._Body("function", created, params, self._outputs)
        self._created: list[ops.Operation] = created
        self.structured_outputs = result
        args = tuple(_spec_structure(v, bound, n) for n, v in bound.arguments.items())
        self.structured_input_signature = (args, {})
        # TF's body reads a resource variable with a stateful ``ReadVariableOp``; a
        # reference variable's value is captured as a plain tensor (measured).
        read = list(self._body.reads) + [
            getattr(t.op, "_read_of", None) for t in self._body.captured
        ]
        self._stateful = bool(self._body.writes) or any(
            getattr(v, "_resource", False) for v in read
        )

    @property
    def name(self) -> str:
        return self._name

    @property
    def graph(self) -> ops.Graph:
        return self._graph

    @property
    def inputs(self) -> list[ops.Tensor]:
        """The stand-in tensors of the traced inputs."""
        return list(self._params)

    @property
    def outputs(self) -> list[ops.Tensor]:
        """The traced output tensors."""
        return list(self._outputs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tensors = [t for t in cf.flatten((args, kwargs))[0] if _is_tensor(t)]
        if len(tensors) != len(self._params):
            raise TypeError(
                f"{self._name}: the concrete function takes {len(self._params)} tensor "
                f"inputs, got {len(tensors)}"
            )
        return self._call_flat([ops.convert_to_tensor(t) for t in tensors])

    def _call_flat(self, tensors: list[ops.Tensor]) -> Any:
        for t, spec in zip(tensors, self._specs, strict=True):
            if not spec.is_compatible_with(t):
                raise TypeError(
                    f"{self._name}: input {t.name} of shape {t.shape} and dtype "
                    f"{t.dtype.name} does not match the traced {spec}"
                )
        body = self._body

        def compute(ctx: Any, extra: tuple, known: dict, written: list[Any]) -> tuple[Any, ...]:
            values = dict(known)
            values.update(zip(body.params, extra, strict=True))
            outs, new_vars = body.run(ctx, values, written, cf._entry_values(ctx, written))
            cf._write_back(ctx, written, new_vars)
            return tuple(outs)

        op_type = "StatefulPartitionedCall" if self._stateful else "PartitionedCall"
        created, self._created = self._created, []  # the first call's node owns them
        op = cf.node(
            op_type,
            op_type,
            [body],
            created,
            tensors,
            [(t._shape, t.dtype) for t in self._outputs],
            compute,
        )
        _refine_output_shapes(op)
        outputs = iter(op.outputs)
        leaves = [next(outputs) if _is_tensor(t) else t for t in self._leaves]
        return self._tree.unflatten(leaves)


def _refine_output_shapes(op: ops.Operation) -> None:
    """The call's output shapes for its inputs' static shapes, as TF's shape inference
    of a call gives them (a trace of ``(?,)`` called on a ``(2,)`` tensor: ``(2,)``).

    The node's computation is evaluated abstractly (``jax.eval_shape``) when every
    input and variable it uses has a fully known shape; otherwise, or where the body
    cannot be evaluated abstractly, the trace's shapes stay.
    """
    if all(t._shape is not None and None not in t._shape for t in op.outputs):
        return
    inputs = list(op.inputs)
    variables = list(op._reads) + [v for v in op._writes if v not in op._reads]
    shaped = [t._shape for t in inputs] + [tuple(v.shape) for v in variables]
    if any(s is None or None in s for s in shaped):
        return
    from adapters.v1.client.session import RunContext

    def evaluate(values: list[Any], var_values: list[Any]) -> Any:
        ctx = RunContext(dict(zip(variables, var_values, strict=True)), {}, frozen=True)
        return op._compute(ctx, *values)

    def abstract(shape: Any, dtype: Any) -> jax.ShapeDtypeStruct:
        return jax.ShapeDtypeStruct(tuple(shape), dtypes.as_dtype(dtype).as_numpy_dtype)

    try:
        result = jax.eval_shape(
            evaluate,
            [abstract(t._shape, t.dtype) for t in inputs],
            [abstract(v.shape, v.dtype) for v in variables],
        )
    except Exception:  # noqa: BLE001 - best effort, as TF's shape inference
        return
    for t, inferred in zip(op.outputs, result, strict=True):
        t.set_shape(inferred.shape)


def _spec_structure(value: Any, bound: inspect.BoundArguments, name: str) -> Any:
    """``value`` with each stand-in tensor as its ``TensorSpec`` (named as the argument)."""
    leaves, tree = cf.flatten(value)
    specs = [
        TensorSpec(t.shape, t.dtype, name=name) if isinstance(t, ops.Tensor) else t for t in leaves
    ]
    return tree.unflatten(specs)


class Function:
    """A Python function traced into the graph once per input signature
    (``tf.function``'s result); see the module docstring."""

    def __init__(
        self,
        python_function: Callable[..., Any],
        name: str,
        input_signature: Any = None,
        autograph: bool = True,
        jit_compile: bool | None = None,
        reduce_retracing: bool = False,
    ) -> None:
        self._python_function = python_function
        self._name = name
        self._signature = inspect.signature(python_function)
        self._input_signature = None if input_signature is None else list(input_signature)
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        # Per graph (weakly: a graph's traces go with it), by input signature.
        self._traced = False  # variables may be created on the first trace only
        self._traces: weakref.WeakKeyDictionary[ops.Graph, dict[str, ConcreteFunction]] = (
            weakref.WeakKeyDictionary()
        )
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self) -> Callable[..., Any]:
        """The decorated Python function."""
        return self._python_function

    @property
    def input_signature(self) -> Any:
        return None if self._input_signature is None else tuple(self._input_signature)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        # A method: one Function per instance, as TF's (its traces are the instance's).
        cache = instance.__dict__.setdefault(_METHOD_CACHE, {})
        if self not in cache:
            cache[self] = Function(
                functools.partial(self._python_function, instance),
                self._name,
                self._input_signature,
                self._autograph,
                self._jit_compile,
                self._reduce_retracing,
            )
        return cache[self]

    def _bind(self, args: tuple, kwargs: dict) -> inspect.BoundArguments:
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound

    def _concrete(self, args: tuple, kwargs: dict) -> tuple[ConcreteFunction, list[Any]]:
        graph = ops.get_default_graph()
        if self._input_signature is not None:
            args, kwargs = self._cast_to_signature(args, kwargs)
        bound = self._bind(args, kwargs)
        leaves, tree = cf.flatten(bound.arguments)
        tensors = [ops.convert_to_tensor(t) for t in leaves if _is_tensor(t)]
        if self._input_signature is not None:
            specs = [
                s if isinstance(s, TensorSpec) else TensorSpec(s.shape, s.dtype)
                for s in cf.flatten(self._input_signature)[0]
            ]
        else:
            specs = [TensorSpec(t.shape, t.dtype) for t in tensors]
        key = (
            tree,
            tuple(_key(v) for v in leaves if not _is_tensor(v)),
            tuple(
                (s.shape.as_list() if s.shape.rank is not None else None, s.dtype.name)
                for s in specs
            )
            if self._input_signature is None
            else None,
        )
        traces = self._traces.setdefault(graph, {})
        if self._reduce_retracing and self._input_signature is None:
            return self._relaxed(traces, key, graph, bound, leaves, tree, specs), tensors
        concrete = traces.get(repr(key))
        if concrete is None:
            concrete = self._trace(graph, bound, leaves, tree, specs)
            traces[repr(key)] = concrete
        return concrete, tensors

    def _relaxed(
        self,
        traces: dict[str, Any],
        key: tuple,
        graph: ops.Graph,
        bound: inspect.BoundArguments,
        leaves: list[Any],
        tree: Any,
        specs: list[TensorSpec],
    ) -> ConcreteFunction:
        """``reduce_retracing``: a trace whose specs the inputs fit, else a new one whose
        shapes are the most specific ones common to the inputs' and every earlier
        trace's of these dtypes and Python values (TF: ``(2,)``, then ``(None,)``, then
        an unknown shape for a matrix)."""
        dtypes_key = tuple(s.dtype.name for s in specs)
        family: list[ConcreteFunction] = traces.setdefault(repr((key[:2], dtypes_key)), [])
        for concrete in family:
            pairs = zip(concrete._specs, specs, strict=True)
            if all(c.shape.is_compatible_with(s.shape) for c, s in pairs):
                return concrete
        if family:
            shapes = [s.shape for s in specs]
            for concrete in family:
                shapes = [
                    a.most_specific_compatible_shape(c.shape)
                    for a, c in zip(shapes, concrete._specs, strict=True)
                ]
            specs = [TensorSpec(shape, s.dtype) for shape, s in zip(shapes, specs, strict=True)]
        concrete = self._trace(graph, bound, leaves, tree, specs)
        family.append(concrete)
        return concrete

    def _cast_to_signature(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The inputs as tensors of ``input_signature`` (a Python value converted to its
        spec's dtype), checked against it.

        Raises:
          TypeError: an input does not match its spec (TF's message).
        """
        assert self._input_signature is not None
        given = list(args) + list(kwargs.values())
        problem = None
        out: list[Any] = []
        if len(given) != len(self._input_signature):
            problem = f"expected {len(self._input_signature)} arguments, got {len(given)}"
        for value, spec in zip(given, self._input_signature, strict=False):
            if problem is not None:
                break
            spec_leaves, spec_tree = cf.flatten(spec)
            value_leaves = [value] if isinstance(spec, TensorSpec) else cf.flatten(value)[0]
            if len(value_leaves) != len(spec_leaves):
                problem = f"{value!r} does not match the structure of {spec}"
                break
            converted = []
            for leaf, leaf_spec in zip(value_leaves, spec_leaves, strict=True):
                t = leaf if _is_tensor(leaf) else ops.convert_to_tensor(leaf, leaf_spec.dtype)
                got = TensorSpec(t.shape, t.dtype)
                if not leaf_spec.is_compatible_with(got):
                    problem = f"Can not cast {got} to {leaf_spec}"
                    break
                converted.append(t)
            else:
                out.append(spec_tree.unflatten(converted))
        if problem is not None:
            raise TypeError(
                f"Binding inputs to tf.function failed due to `{problem}`. Received args: "
                f"{args} and kwargs: {kwargs} for signature: {self._input_signature}."
            )
        return tuple(out[: len(args)]), dict(zip(kwargs, out[len(args) :], strict=True))

    def _trace(
        self,
        graph: ops.Graph,
        bound: inspect.BoundArguments,
        leaves: list[Any],
        tree: Any,
        specs: list[TensorSpec],
    ) -> ConcreteFunction:
        # TF builds the body in the function's own graph: its names do not take the
        # caller's names (a later ``tf.sin`` is still ``Sin``); here, a scope of its own.
        first, self._traced = not self._traced, True
        made: list[Any] = []

        def record(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
            # Named as in TF's function graph: the trace's own scope left out.
            inner = graph.get_name_scope().partition("/")[2]
            with graph.name_scope(inner + "/" if inner else ""):
                made.append(next_creator(**kwargs))
            return made[-1]

        with graph.name_scope(""), graph.name_scope(_trace_scope(self._name)):
            creator = record if first else _refuse_variables
            concrete = self._trace_in_scope(graph, bound, leaves, tree, specs, creator)
        if made:  # TF traces again; a variable made anew then is refused
            with graph.name_scope(""), graph.name_scope(_trace_scope(self._name)):
                concrete = self._trace_in_scope(
                    graph, bound, leaves, tree, specs, _refuse_variables
                )
        return concrete

    def _trace_in_scope(
        self,
        graph: ops.Graph,
        bound: inspect.BoundArguments,
        leaves: list[Any],
        tree: Any,
        specs: list[TensorSpec],
        creator: Callable[..., Any],
    ) -> ConcreteFunction:
        params = cf.parameters([(TensorShape(s.shape)._dims, s.dtype) for s in specs], "input")
        it = iter(params)
        stand_in = tree.unflatten([next(it) if _is_tensor(v) else v for v in leaves])
        call = self._signature.bind_partial()
        call.arguments.update(stand_in)

        def body() -> Any:
            with variable_creator_scope(creator):
                return self._python_function(*call.args, **call.kwargs)

        result, created = cf.build(body)
        call_bound = self._bind(call.args, call.kwargs)
        return ConcreteFunction(self._name, graph, call_bound, params, specs, result, created)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        concrete, tensors = self._concrete(args, kwargs)
        return concrete._call_flat(tensors)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these inputs (TensorSpecs or tensors; none: the
        ``input_signature``), traced now if new.

        Raises:
          TypeError: a required argument is missing (TF's class).
        """
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        graph = ops.get_default_graph()
        with graph.name_scope(""), graph.name_scope(_trace_scope(self._name)):
            stand = [
                cf.parameters([(TensorShape(s.shape)._dims, s.dtype)], name="spec")[0]
                if isinstance(s, TensorSpec)
                else s
                for s in cf.flatten((args, kwargs))[0]
            ]
        a, k = cf.flatten((args, kwargs))[1].unflatten(stand)
        return self._concrete(tuple(a), dict(k))[0]


def _key(value: Any) -> Any:
    """A Python argument's part of the trace key: its value (arrays: their bytes)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dtypes.DType):
        return ("dtype", value.name)
    return (type(value).__name__, value)


def function(
    func: Callable[..., Any] | None = None,
    input_signature: Any = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: Any = None,
    experimental_autograph_options: Any = None,
    experimental_attributes: Any = None,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_follow_type_hints: bool | None = None,
) -> Any:
    """``tf.function``: traces ``func`` into the graph once per input signature.

    Args:
      func: the Python function (or method); ``None``: returns a decorator.
      input_signature: ``TensorSpec``s of the tensor inputs (default None: each
        new shape and dtype is a new trace); inputs must be compatible with them.
      autograph: accepted (default True); see the module note: control flow on
        tensors is not converted.
      jit_compile: accepted (default None): every run is one XLA program already.
      reduce_retracing: a new input shape first generalizes the traces' shapes
        (default False: one trace per shape); ``experimental_relax_shapes`` is its
        old name.
      experimental_implements: accepted, no effect.
      experimental_autograph_options: accepted, no effect.
      experimental_attributes: accepted, no effect.
      experimental_compile: accepted, no effect.
      experimental_follow_type_hints: accepted, no effect.

    Returns:
      A ``Function`` (or a decorator making one).
    """
    if experimental_relax_shapes is not None:
        reduce_retracing = bool(experimental_relax_shapes)
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile

    def decorate(fn: Callable[..., Any]) -> Function:
        name = getattr(fn, "__name__", "function")
        return Function(fn, name, input_signature, autograph, jit_compile, reduce_retracing)

    return decorate if func is None else decorate(func)
