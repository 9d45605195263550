"""TF's op library as one table: TF name -> JAX implementation, lifted onto graph nodes.

An ``OpDef`` is one table entry: TF's public name(s), TF's op type (``"AddV2"``,
``"MatMul"``), TF's Python signature (parameter names, defaults, ``name=None``
last), which parameters are tensors (node inputs), which must share a dtype and
the dtypes TF allows, and a pure JAX implementation. ``lift`` turns an entry into
the public function: it binds the arguments as TF does, converts tensor
arguments with TF's dtype rules (TF refuses mixed dtypes; a Python number takes
the other operand's dtype), infers output shapes and dtypes by abstract
evaluation (``script_ops._output_specs``, as ``tf.jax_function``) and adds one
node whose ``compute`` calls the implementation while ``Session.run`` traces its
single XLA program.

Gradients are JAX's derivatives of the implementations (``tf.gradients``
differentiates the traced node functions); where TF's gradient differs from
JAX's, the implementation is a ``jax.custom_jvp`` carrying TF's rule and the
entry's ``tf_gradient`` says what differs.

``OPS`` maps every public TF name (``"add"``, ``"math.add"``, ``"nn.relu"``) to
its entry: the table is introspectable.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import numpy as np

from adapters.v1.framework import _x64, data_sizes, dtypes, ops, shape_values, tensor_shape
from adapters.v1.framework.shape_values import trace_time_value

__all__ = [
    "OpDef",
    "OpTypeError",
    "OpValueError",
    "OPS",
    "lift",
    "define",
    "FLOATING",
    "INTEGER",
    "NUMERIC",
    "REAL",
    "BOOL",
    "np_dtype",
    "convert_operand",
    "tf_names",
    "impl_params",
]

# TF's dtype classes (names as TF lists them in its "allowed values" messages).
FLOATING = ("bfloat16", "float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
INTEGER = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
REAL = FLOATING + INTEGER
NUMERIC = REAL + COMPLEX
BOOL = ("bool",)
INDEX = ("int32", "int64")


class OpValueError(ValueError):
    """TF's ``ValueError`` for an op's arguments, raised by its implementation.

    Graph construction passes it on unchanged (other errors of the abstract
    evaluation are wrapped with the op's name and input shapes), so a check
    inside an implementation gives TF's message as TF words it.
    """


class OpTypeError(TypeError):
    """TF's ``TypeError`` for an op's arguments, raised by its implementation.

    Passed on unchanged by graph construction, as ``OpValueError``.
    """


def np_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype of a TF ``DType``, NumPy/JAX dtype or TF dtype name."""
    return dtypes.as_dtype(dtype).dtype


@dataclasses.dataclass(frozen=True, eq=False)
class OpDef:
    """One entry of the op table.

    Attributes:
      names: TF's public names, first the canonical one (``("add", "math.add")``).
      op_type: TF's op type of the node (``"AddV2"``).
      impl: the JAX implementation, called with TF's arguments in TF's order less
        the name (and collection) parameter: tensor arguments' values, the others
        as Python values.
      signature: TF's Python signature of the public function.
      tensors: parameters converted to tensors (inputs of the node).
      lists: those of ``tensors`` that take a list of tensors.
      same_dtype: parameters that must share one dtype (TF's ``T`` attribute).
      allowed: per parameter, the dtype names TF allows (``None``: any).
      default_name: the node name when ``name`` is not given.
      tf_gradient: where TF's gradient differs from JAX's (the implementation
        carries TF's rule); empty when JAX's derivative is TF's.
      name_param: the parameter naming the node (``"name"``; ``tf.losses``: ``"scope"``).
      collection_param: a parameter naming a collection the output is added to
        (``tf.losses``' ``loss_collection``); empty for none.
      check: called with the bound arguments (tensor parameters as graph
        tensors, the others as Python values) before the node is built; raises
        TF's graph-construction errors (static shape checks); ``None`` for none.
      runtime_check: ``(test, error)``, a check at run time
        (``framework/runtime_checks.py``): ``test(*implementation arguments) ->
        (ok, data)`` in the step (``ok`` a boolean scalar, ``data`` arrays) and
        ``error(op, *data as NumPy) -> OpError`` on the host when ``ok`` is False;
        an optional third ``applies(op) -> bool`` says at graph construction
        whether the node checks at all (an integer-only check leaves float nodes'
        programs unchecked, so without its cost).
      sized: ``(parameter, count)`` for an op whose output sizes depend on the
        values of one argument (``boolean_mask``'s ``mask``): ``count(value, attrs)``
        gives the sizes (integer scalars), ``attrs`` the op's Python-valued
        arguments (``dynamic_partition``'s ``num_partitions``). Where that argument
        is computed from the step's values (not from constants and static shapes
        only), it is an input of the node, the session computes its sizes before the step
        (``framework/data_sizes.py``) and the implementation takes them as a
        keyword ``sizes`` (a tuple of ints; absent for a value known when the step
        is traced, which it reads as NumPy).
    """

    names: tuple[str, ...]
    op_type: str
    impl: Callable[..., Any]
    signature: inspect.Signature
    tensors: tuple[str, ...]
    lists: tuple[str, ...] = ()
    same_dtype: tuple[str, ...] = ()
    allowed: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    default_name: str = ""
    tf_gradient: str = ""
    name_param: str = "name"
    collection_param: str = ""
    check: Callable[[dict[str, Any]], None] | None = None
    runtime_check: tuple[Callable[..., Any], ...] | None = None
    sized: tuple[str, Callable[[Any, dict[str, Any]], tuple[Any, ...]]] | None = None

    @property
    def name(self) -> str:
        return self.names[0]


OPS: dict[str, OpDef] = {}
# TF name -> the lifted public function.
FUNCTIONS: dict[str, Callable[..., Any]] = {}


def define(
    names: str | Sequence[str],
    op_type: str,
    impl: Callable[..., Any],
    params: str | None = None,
    tensors: str | Sequence[str] | None = None,
    lists: str | Sequence[str] = (),
    same_dtype: str | Sequence[str] | None = None,
    allowed: tuple[str, ...] | dict[str, tuple[str, ...]] | None = None,
    default_name: str | None = None,
    tf_gradient: str = "",
    name_param: str = "name",
    collection_param: str = "",
    check: Callable[[dict[str, Any]], None] | None = None,
    runtime_check: tuple[Callable[..., Any], ...] | None = None,
    sized: tuple[str, Callable[[Any, dict[str, Any]], tuple[Any, ...]]] | None = None,
) -> Callable[..., Any]:
    """Adds a table entry and returns its lifted public function.

    Args:
      names: TF's public name, or names (the first is canonical); dotted names
        (``"math.add"``, ``"nn.relu"``) name the TF namespace.
      op_type: TF's op type name.
      impl: the JAX implementation.
      params: TF's signature as text (``"x, y, name=None"``); default: ``impl``'s
        own signature (which then must be TF's, ``name=None`` included).
      tensors: tensor parameters (space-separated or a sequence); default: the
        parameters without a default value.
      lists: parameters taking a list of tensors.
      same_dtype: parameters sharing one dtype; default: all ``tensors``.
      allowed: dtype names allowed for the ``same_dtype`` group (a tuple) or per
        parameter (a dict).
      default_name: the node name when none is given (default ``op_type``).
      tf_gradient: what of TF's gradient the implementation carries.
      name_param: the parameter naming the node; ``""`` where TF's function has
        none (``tf.image.flip_left_right(image)``): the node takes ``default_name``.
      collection_param: the parameter naming a collection for the output.
      check: TF's graph-construction checks (see ``OpDef.check``).
      runtime_check: TF's run-time check (see ``OpDef.runtime_check``).
      sized: the argument deciding the output sizes, and their count (see
        ``OpDef.sized``).

    Returns:
      The public function with TF's signature.
    """
    names = (names,) if isinstance(names, str) else tuple(names)
    if params is None:
        signature = inspect.signature(impl)
    else:
        signature = _parse_signature(params)
    if name_param and name_param not in signature.parameters:
        raise ValueError(f"{names[0]}: TF's signature has a {name_param} parameter")
    if tensors is None:
        tensors = tuple(
            p.name for p in signature.parameters.values() if p.default is inspect.Parameter.empty
        )
    tensors = _names(tensors)
    if same_dtype is None:
        same_dtype = tuple(t for t in tensors)
    same_dtype = _names(same_dtype)
    if isinstance(allowed, tuple):
        allowed = {same_dtype[0] if same_dtype else tensors[0]: allowed}
    entry = OpDef(
        names=names,
        op_type=op_type,
        impl=impl,
        signature=signature,
        tensors=tensors,
        lists=_names(lists),
        same_dtype=same_dtype,
        allowed=dict(allowed or {}),
        default_name=default_name or op_type,
        tf_gradient=tf_gradient,
        name_param=name_param,
        collection_param=collection_param,
        check=check,
        runtime_check=runtime_check,
        sized=sized,
    )
    function = lift(entry)
    # The module whose table defines the entry (adapters.v1.ops.math_ops...).
    function.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    for n in names:
        if n in OPS:
            raise ValueError(f"op {n!r} is defined twice")
        OPS[n] = entry
        FUNCTIONS[n] = function
    return function


def _names(value: str | Sequence[str]) -> tuple[str, ...]:
    return tuple(value.split()) if isinstance(value, str) else tuple(value)


def _parse_signature(params: str) -> inspect.Signature:
    """``inspect.Signature`` of a parameter list (``"x, axis=None, name=None"``).

    Defaults are Python literals; a dtype default is written as its name in quotes.
    """
    tree = ast.parse(f"def f({params}): pass").body[0]
    args = tree.args.args
    defaults = [None] * (len(args) - len(tree.args.defaults)) + list(tree.args.defaults)
    empty = inspect.Parameter.empty
    return inspect.Signature(
        [
            inspect.Parameter(
                a.arg,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=empty if d is None else ast.literal_eval(d),
            )
            for a, d in zip(args, defaults, strict=True)
        ]
    )


class TableCall(NamedTuple):
    """How a node of the table was called, so that ``import_meta_graph`` rebuilds it
    through the table: cheaper than exporting its function, and the only way for one
    with arguments computed in the graph (taken when the step is traced)."""

    name: str  # the table's TF name (``reshape``, ``strided_slice``...)
    attrs: dict  # the arguments known when the graph was built
    layout: dict  # tensor parameter -> its input index, (start, count) or None
    deferred: tuple  # the computed parameters: the node's last inputs, in order


def table_functions(
    entry: OpDef, attrs: dict[str, Any], layout: dict[str, Any]
) -> tuple[Callable[..., Any], Callable[..., Any] | None]:
    """``(fn, test)`` of a node of ``entry`` called with ``attrs`` (arguments known when
    the graph was built) and tensor inputs laid out as ``layout`` (parameter -> input
    index, ``(start, count)`` of a list, or None): ``fn(values, known)`` computes the
    outputs, ``known`` holding the deferred arguments (and ``sizes`` those of a sized
    entry, ``OpDef.sized``); ``test`` the run-time check."""

    def arguments_of(values: tuple[Any, ...], known: dict[str, Any]) -> list[Any]:
        call = {**attrs, **known}
        for param, where in layout.items():
            if where is None:
                call[param] = None
            elif isinstance(where, (tuple, list)):
                call[param] = list(values[where[0] : where[0] + where[1]])
            else:
                call[param] = values[where]
        return [call[p] for p in impl_params(entry)]

    def fn(values: tuple[Any, ...], known: dict[str, Any], sizes: Any = None) -> Any:
        if sizes is None:
            return entry.impl(*arguments_of(values, known))
        return entry.impl(*arguments_of(values, known), sizes=sizes)

    test = None
    if entry.runtime_check is not None:
        check = entry.runtime_check[0]

        def test(values: tuple[Any, ...], known: dict[str, Any]) -> Any:
            return check(*arguments_of(values, known))  # (jnp: a value may be traced)

    return fn, test


def lift(entry: OpDef) -> Callable[..., Any]:
    """The public function of a table entry: builds the op's node in the default graph."""
    signature = entry.signature

    def op_function(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{entry.name}(): {e}") from None
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        name = arguments.pop(entry.name_param, None)
        collection = arguments.pop(entry.collection_param, None)
        tensors = _convert_inputs(entry, arguments)
        flat: list[ops.Tensor] = []
        layout: dict[str, Any] = {}
        for param in entry.tensors:
            value = tensors.get(param)
            if value is None:
                layout[param] = None
            elif isinstance(value, list):
                layout[param] = (len(flat), len(value))
                flat.extend(value)
            else:
                layout[param] = len(flat)
                flat.append(value)
        attrs: dict[str, Any] = {}
        deferred: dict[str, ops.Tensor] = {}  # arguments computed from shapes in the graph
        for k, v in arguments.items():
            if k in entry.tensors:
                continue
            if entry.sized is not None and k == entry.sized[0] and _counted(v):
                # Decides the output's sizes and is computed from the step's values: an
                # input of the node, its sizes computed before the step (data_sizes.py).
                tensors[k] = ops.convert_to_tensor(v, name=k)
                layout[k] = len(flat)
                flat.append(tensors[k])
                continue
            computed = _computed(entry, k, v)
            known = None if computed is None else shape_values.static_value(computed)
            if computed is None:
                attrs[k] = _static(entry, k, v)
            elif known is not None:
                attrs[k] = known.tolist()  # the static shapes fix it
            else:
                deferred[k] = computed
        if entry.check is not None:
            entry.check({**attrs, **deferred, **tensors})

        fn, test = table_functions(entry, attrs, layout)
        sized = _sized(entry, layout, attrs)
        if sized is not None and deferred:
            names = ", ".join(deferred)
            raise NotImplementedError(
                f"tf.{entry.name}: {names} computed in the graph together with the "
                f"{entry.sized[0]!r} of the step's values; pass {names} as Python values"
            )
        key = None if deferred or sized else _specs_key(entry, attrs, layout, flat)
        out, op = _make_node(entry, fn, flat, name, test, deferred, sized, key)
        op._static_attrs = attrs  # the op's Python-valued arguments (axis...)
        # what rebuilds it from a meta graph (meta_graph._build_call)
        op._table_call = TableCall(entry.name, attrs, layout, tuple(deferred))
        if collection:
            ops.add_to_collection(collection, out)
        return out

    op_function.__name__ = entry.name.rpartition(".")[2]
    op_function.__qualname__ = op_function.__name__
    op_function.__signature__ = signature
    op_function.__doc__ = (
        f"``tf.{entry.name}`` (TF op ``{entry.op_type}``), lifted from its JAX implementation."
        + (f"\n\nGradient as TF's: {entry.tf_gradient}" if entry.tf_gradient else "")
    )
    op_function._op_def = entry
    return op_function


def impl_params(entry: OpDef) -> list[str]:
    """The parameters passed to the implementation, in TF's order."""
    skip = (entry.name_param, entry.collection_param)
    return [p for p in entry.signature.parameters if p not in skip]


def _make_node(
    entry: OpDef,
    fn: Callable[..., Any],
    inputs: list[ops.Tensor],
    name: Any,
    test: Callable[..., Any] | None,
    deferred: dict[str, ops.Tensor],
    sized: data_sizes.Sized | None = None,
    key: tuple | None = None,
):
    """The op's node: ``fn(input values, deferred values)`` computes its outputs.

    ``key`` (``_specs_key``) names what its output specs depend on, so a node of the
    same entry, arguments and input shapes (a layer's ops at each step of a
    ``static_rnn``) takes them from ``_SPECS``.

    ``deferred`` arguments (shapes or axes computed in the graph) are extra inputs
    of the node, evaluated when the step is traced (``trace_time_value``). A
    ``sized`` node's output sizes depend on the values of its input ``sized.index``
    (``data_sizes.py``).
    """
    from adapters.v1.ops.script_ops import _output_specs

    graph = inputs[0].graph if inputs else ops.get_default_graph()
    op_name = graph.unique_name(name or entry.default_name, mark_as_used=False)
    binary = len(entry.tensors) == len(inputs) == 2  # not a composite (batch_normalization)
    if entry.op_type in _BROADCAST_ATTRS and binary and not deferred:
        node = name[:-1] if isinstance(name, str) and name.endswith("/") else op_name
        _check_broadcast(entry.op_type, node, inputs[0], inputs[1])
    with _x64.exact():  # dtypes as the session traces them (64-bit exact)
        if sized is not None:
            tree, specs = _sized_specs(fn, inputs, sized, op_name)
        elif deferred:
            tree, specs = _deferred_specs(entry, fn, inputs, deferred, op_name)
        elif key is not None and key in _SPECS:
            tree, cached = _SPECS[key]
            specs = list(cached)
        else:
            tree, specs = _output_specs(lambda *v: fn(v, {}), inputs, op_name)
            if key is not None:
                if len(_SPECS) >= _SPECS_SIZE:
                    _SPECS.clear()
                _SPECS[key] = tree, tuple(specs)
    compute, attach = node_compute(entry, fn, test, deferred, len(inputs), sized)
    op = graph.create_op(
        entry.op_type,
        name or entry.default_name,
        inputs=[*inputs, *deferred.values()],
        compute=compute,
        output_specs=specs,
    )
    attach(op)
    # Under tf.debugging.enable_check_numerics, the checked outputs (as TF's callback).
    checked = graph.__dict__.get("_numerics_checked", {})
    return jax.tree.unflatten(tree, [checked.get(t, t) for t in op.outputs]), op


# Output specs of table nodes by ``_specs_key``: abstract evaluation is most of building
# a node, and a graph repeats nodes (cleared when full; a miss only evaluates again).
_SPECS: dict[tuple, tuple[Any, tuple[Any, ...]]] = {}
_SPECS_SIZE = 4096


def _specs_key(
    entry: OpDef, attrs: dict[str, Any], layout: dict[str, Any], inputs: list[ops.Tensor]
) -> tuple | None:
    """What a table node's output specs depend on: its entry, its arguments and inputs'
    layout (as ``to_json`` writes them: tuples, lists and numbers kept apart), its
    inputs' static shapes and dtypes; None where an argument is not JSON's."""
    try:
        arguments = json.dumps([to_json(attrs), to_json(layout)], allow_nan=False)
    except (TypeError, ValueError):
        return None
    shapes = tuple((None if t._shape is None else tuple(t._shape), t._np_dtype) for t in inputs)
    return entry.name, arguments, shapes


# How a ``DType`` travels in JSON (``to_json``): ``{"__dtype__": name}``; a tuple as
# ``{"__tuple__": [items]}`` (JSON's arrays come back as lists).
DTYPE_KEY = "__dtype__"
TUPLE_KEY = "__tuple__"


def to_json(value: Any) -> Any:
    """A table node's argument as JSON's types, dtypes and tuples kept apart from
    strings and lists; TypeError for anything else (a NumPy value, a dict with keys
    other than strings, an object)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dtypes.DType):
        return {DTYPE_KEY: value.name}
    if isinstance(value, tuple):
        return {TUPLE_KEY: [to_json(v) for v in value]}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: to_json(v) for k, v in value.items()}
    raise TypeError(type(value).__name__)


def from_json(value: dict) -> Any:
    """JSON's object hook undoing ``to_json``'s dtypes and tuples."""
    if list(value) == [DTYPE_KEY]:
        return dtypes.as_dtype(value[DTYPE_KEY])
    if list(value) == [TUPLE_KEY]:
        return tuple(value[TUPLE_KEY])
    return value


# TF's binary ops whose shape function is ``BroadcastBinaryOpShapeFn``, with the node's
# attributes as TF's shape-inference error prints them (``T`` filled in with the dtype).
_BROADCAST_ATTRS = {
    **{
        t: "T={T}"
        for t in (
            "AddV2", "Sub", "Mul", "RealDiv", "FloorDiv", "FloorMod", "TruncateDiv",
            "TruncateMod", "Pow", "Maximum", "Minimum", "SquaredDifference", "Less",
            "LessEqual", "Greater", "GreaterEqual", "MulNoNan", "DivNoNan", "Xlogy", "Xdivy",
            "Xlog1py", "Atan2", "Igamma", "Igammac", "Zeta", "Polygamma", "BitwiseAnd",
            "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift",
        )
    },
    "Equal": "T={T}, incompatible_shape_error=true",
    "NotEqual": "T={T}, incompatible_shape_error=true",
    "LogicalAnd": "",
    "LogicalOr": "",
}  # fmt: skip
# TF's DataType enum names where they are not the dtype's name in capitals.
_DT_NAMES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}


def _check_broadcast(op_type: str, node: str, x: ops.Tensor, y: ops.Tensor) -> None:
    """TF's graph-construction error of a broadcasting binary op whose inputs' static
    shapes cannot broadcast: the first pair of known dimensions (left to right, the
    shorter shape padded with 1s on the left) that differ and are neither 1.

    Raises:
      ValueError: ``Dimensions must be equal, but are 2 and 3 for '{{node Add}} =
        AddV2[T=DT_FLOAT](x, y)' with input shapes: [2], [3].``, as TF words it.
    """
    if x._shape is None or y._shape is None:
        return  # an unknown rank: TF's output shape is unknown, no error
    rank = max(len(x._shape), len(y._shape))
    padded_x = (1,) * (rank - len(x._shape)) + tuple(x._shape)
    padded_y = (1,) * (rank - len(y._shape)) + tuple(y._shape)
    for a, b in zip(padded_x, padded_y, strict=True):
        if a is None or b is None or a == 1 or b == 1 or a == b:
            continue
        dtype = dtypes.as_dtype(x.dtype).base_dtype.name
        attrs = _BROADCAST_ATTRS[op_type].format(T=_DT_NAMES.get(dtype, f"DT_{dtype.upper()}"))
        names = ", ".join(t.name[:-2] if t.name.endswith(":0") else t.name for t in (x, y))
        shapes = ", ".join(tensor_shape.dims_text(t._shape) for t in (x, y))
        raise ValueError(
            f"Dimensions must be equal, but are {a} and {b} for '{{{{node {node}}}}} = "
            f"{op_type}[{attrs}]({names})' with input shapes: {shapes}."
        )


def rebuilt_node(
    call: TableCall, inputs: list[ops.Tensor], op_name: str
) -> tuple[str, Callable[..., Any], list[Any], Callable[[ops.Operation], None]]:
    """``(op type, compute, output specs, attach)`` of a node of the table rebuilt from
    its ``TableCall`` (``import_meta_graph``): ``inputs`` its tensors then its
    deferred arguments, as ``lift`` laid them out."""
    entry = OPS[call.name]
    fn, test = table_functions(entry, call.attrs, call.layout)
    count = len(inputs) - len(call.deferred)
    deferred = dict(zip(call.deferred, inputs[count:], strict=True))
    sized = _sized(entry, call.layout, call.attrs)
    with _x64.exact():
        if sized is not None:
            _, specs = _sized_specs(fn, inputs[:count], sized, op_name)
        elif deferred:
            _, specs = _deferred_specs(entry, fn, inputs[:count], deferred, op_name)
        else:
            from adapters.v1.ops.script_ops import _output_specs

            _, specs = _output_specs(lambda *v: fn(v, {}), inputs, op_name)
    compute, attach = node_compute(entry, fn, test, deferred, count, sized)
    return entry.op_type, compute, specs, attach


def node_compute(
    entry: OpDef,
    fn: Callable[..., Any],
    test: Callable[..., Any] | None,
    deferred: dict[str, ops.Tensor],
    count: int,
    sized: data_sizes.Sized | None = None,
) -> tuple[Callable[..., Any], Callable[[ops.Operation], None]]:
    """``(compute, attach)`` of a table node: ``compute`` runs ``fn`` on its first
    ``count`` inputs and the ``deferred`` arguments' values, taken when the step is
    traced, with the entry's run-time check (and a ``sized`` node's output sizes,
    ``data_sizes.sizes_for``); ``attach(op)`` binds it to its node."""
    from adapters.v1.framework import runtime_checks

    node: list[ops.Operation] = []
    marked: list[bool] = []

    def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
        known = {k: trace_time_value(ctx, t).tolist() for k, t in deferred.items()}
        values = values[:count]
        if test is not None and marked:
            # (only a node its entry marks: ``applies`` may leave it unchecked)
            ok, data = test(values, known)
            runtime_checks.check(ctx, node[0], ok, *data)
        if sized is not None:
            sizes = data_sizes.sizes_for(node[0], values[sized.index], sized.count)
            return tuple(jax.tree.leaves(fn(values, known, sizes)))
        return tuple(jax.tree.leaves(fn(values, known)))

    def attach(op: ops.Operation) -> None:
        node.append(op)
        op._sized = sized
        if test is not None and entry.runtime_check is not None:
            error, *applies = entry.runtime_check[1:]
            if not applies or applies[0](op):
                runtime_checks.mark(op, lambda *data: error(op, *data))
                marked.append(True)

    return compute, attach


def _computed(entry: OpDef, param: str, value: Any) -> ops.Tensor | None:
    """A non-tensor argument computed in the graph (``tf.shape(x)[0]``, ``[n, -1]``), as
    one tensor whose value is needed when the step is traced; ``None`` for a Python
    value or a constant.

    A value the static shapes determine (``tf.rank(x) - 1``) is not deferred: the
    caller takes it as a constant.

    Raises:
      NotImplementedError: the value depends on the step's data (a variable, a
        random value, a float placeholder): jtrain compiles static shapes.
    """
    if _is_tensor(value):
        if ops.convert_to_tensor(value).op._const_value is not None:
            return None
    elif not (isinstance(value, (list, tuple)) and _holds_computed(value)):
        return None
    tensor = ops.convert_to_tensor(value)
    if not shape_values.known_when_traced(tensor):
        raise NotImplementedError(
            f"tf.{entry.name}: argument {param!r} must be known when the step is compiled "
            f"(a Python value, a constant, computed from tf.shape of tensors or from fed "
            f"integer placeholders), got {tensor.name}, which depends on the step's data; "
            "jtrain compiles static shapes and axes." + _DATA_HINTS.get(entry.name, "")
        )
    return tensor


def _counted(value: Any) -> bool:
    """Whether a sized entry's deciding argument (``OpDef.sized``) is computed from
    the step's values (a placeholder's, a variable's, a model's output): its sizes
    are computed before the step. A Python value, a constant or a value of static
    shapes only is read when the step is traced, as other computed arguments."""
    if _is_tensor(value):
        tensor = ops.convert_to_tensor(value)
    elif isinstance(value, (list, tuple)) and _holds_computed(value):
        tensor = ops.convert_to_tensor(value)
    else:
        return False
    return tensor.op._const_value is None and not shape_values.from_shapes_only(tensor)


def _sized(entry: OpDef, layout: dict[str, Any], attrs: dict[str, Any]) -> data_sizes.Sized | None:
    """The ``Sized`` of a node of ``entry`` whose deciding argument is an input, its
    count reading the node's Python-valued arguments ``attrs``."""
    if entry.sized is None:
        return None
    index = layout.get(entry.sized[0])
    if not isinstance(index, int):
        return None
    count = entry.sized[1]
    return data_sizes.Sized(index, lambda value: count(value, attrs))


def _sized_specs(
    fn: Callable[..., Any], inputs: list[ops.Tensor], sized: data_sizes.Sized, op_name: str
):
    """Output specs of a sized node: the op evaluated abstractly with each of
    ``data_sizes.TRIAL_SIZES`` as all its sizes; a dimension that follows them is
    unknown (TF's ``[None]`` of ``Where``, ``Unique``, ``DynamicPartition``)."""
    from adapters.v1.ops.script_ops import _output_specs

    def trial(size: int) -> Callable[..., Any]:
        def run(*values: Any) -> Any:
            count = len(sized.count(values[sized.index]))  # how many sizes it has
            return fn(values, {}, (size,) * count)

        return run

    trials = [_output_specs(trial(size), inputs, op_name) for size in data_sizes.TRIAL_SIZES]
    (tree, first), (_, second) = trials
    specs = []
    for (shape_a, dtype), (shape_b, _) in zip(first, second, strict=True):
        if shape_a is None or shape_b is None or len(shape_a) != len(shape_b):
            specs.append((None, dtype))
        else:
            pairs = zip(shape_a, shape_b, strict=True)
            specs.append((tuple(a if a == b else None for a, b in pairs), dtype))
    return tree, specs


# What to use instead where an argument depends on the step's data.
_DATA_HINTS = {"strided_slice": " Use tf.gather for data-dependent indices."}


def _holds_computed(value: Any) -> bool:
    """Whether a (nested) list holds a tensor that is not a constant."""
    for v in value:
        if _is_tensor(v) and ops.convert_to_tensor(v).op._const_value is None:
            return True
        if isinstance(v, (list, tuple)) and _holds_computed(v):
            return True
    return False


def _deferred_specs(
    entry: OpDef,
    fn: Callable[..., Any],
    inputs: list[ops.Tensor],
    deferred: dict[str, ops.Tensor],
    op_name: str,
):
    """Output specs of an op with deferred arguments: the op evaluated abstractly with
    every unknown dimension (of its inputs, and of the tensors whose shapes the
    deferred values read) taken as each of ``shape_values.FILLS``; an output
    dimension is known where all trials agree.

    A deferred value the static shapes determine fully is a constant (``attrs``);
    the trials concern values with unknown parts, such as ``[tf.shape(x)[0], -1]``.
    """
    from adapters.v1.ops.script_ops import _specs, probe_shape

    outs, error = [], None
    for fill, feed_fill in zip(shape_values.FILLS, shape_values.FEED_FILLS, strict=True):
        known = {k: shape_values.build_time_value(t, fill, feed_fill) for k, t in deferred.items()}
        if any(v is None for v in known.values()) or any(t._shape is None for t in inputs):
            break
        structs = [
            jax.ShapeDtypeStruct(tuple(fill if d is None else d for d in t._shape), t._np_dtype)
            for t in inputs
        ]
        arguments = {k: v.tolist() for k, v in known.items()}
        try:
            outs.append(probe_shape(lambda *v, a=arguments: fn(v, a), *structs))
        except Exception as e:  # noqa: BLE001 - these sizes do not fit together
            error = e
    if len(outs) >= 2:
        return _specs(outs)
    if not outs and not any(t._shape is None for t in inputs):
        # No size fits every unknown dimension (``tf.reshape(z, tf.shape(x))`` of a ``z``
        # with a known size): the unknown parts of the values as -1.
        partial = {k: shape_values.partial_value(t) for k, t in deferred.items()}
        if all(v is not None for v in partial.values()):
            arguments = {
                k: np.where(v == None, -1, v).astype(t._np_dtype).tolist()  # noqa: E711
                for (k, v), t in zip(partial.items(), deferred.values(), strict=True)
            }
            unknown = sum(int(np.sum(v == None)) for v in partial.values())  # noqa: E711
            open_inputs = any(d is None for t in inputs for d in t._shape)
            if entry.op_type == "Reshape" and (
                open_inputs or unknown + sum(int(np.sum(v == -1)) for v in partial.values()) > 1
            ):
                # TF's Reshape where the sizes cannot tell the unknown dimensions (an
                # input of unknown size, or two of them): the shape's known parts.
                (shape,) = partial.values()
                dims = tuple(None if d is None or d == -1 else int(d) for d in shape.ravel())
                leaf = jax.ShapeDtypeStruct((), inputs[0]._np_dtype)
                return jax.tree.structure(leaf), [(dims, np.dtype(leaf.dtype))]
            structs = [jax.ShapeDtypeStruct(tuple(t._shape), t._np_dtype) for t in inputs]
            try:
                out = probe_shape(lambda *v: fn(v, arguments), *structs)
            except Exception as e:  # noqa: BLE001 - nor does -1
                error = e
            else:
                leaves, tree = jax.tree.flatten(out)
                # A reshape's one unknown dimension follows from the sizes (as TF's
                # Reshape infers it); other ops' -1 means "the rest": dimensions unknown.
                exact = entry.op_type == "Reshape"
                return tree, [
                    (tuple(leaf.shape) if exact else (None,) * leaf.ndim, np.dtype(leaf.dtype))
                    for leaf in leaves
                ]
    if len(outs) == 1:  # one size fits: nothing says which dimensions are fixed
        leaves, tree = jax.tree.flatten(outs[0])
        return tree, [(None, np.dtype(leaf.dtype)) for leaf in leaves]
    if not outs and not any(t._shape is None for t in inputs):
        # Unknown dimensions tied to one another (``tf.reshape(tf.squeeze(p, [-1]),
        # tf.shape(p))``: p's last dimension is 1) fit no common size but 1: such a
        # trial tells the outputs' ranks only, every dimension unknown (TF's [?, ?]).
        known = {k: shape_values.build_time_value(t, 1, 1) for k, t in deferred.items()}
        if all(v is not None for v in known.values()):
            structs = [
                jax.ShapeDtypeStruct(tuple(1 if d is None else d for d in t._shape), t._np_dtype)
                for t in inputs
            ]
            arguments = {k: v.tolist() for k, v in known.items()}
            try:
                out = probe_shape(lambda *v: fn(v, arguments), *structs)
            except Exception as e:  # noqa: BLE001 - nor does 1
                error = e
            else:
                leaves, tree = jax.tree.flatten(out)
                return tree, [((None,) * leaf.ndim, np.dtype(leaf.dtype)) for leaf in leaves]
    names = ", ".join(f"{k}={t.name}" for k, t in deferred.items())
    raise NotImplementedError(
        f"tf.{entry.name} ({op_name}): cannot infer the output of the arguments computed "
        f"in the graph ({names}) from the static shapes"
        + (f": {error}" if error is not None else " (a tensor of unknown rank)")
    )


def _static(entry: OpDef, param: str, value: Any) -> Any:
    """A non-tensor argument as a Python value (a constant tensor gives its value)."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        tensor = ops.convert_to_tensor(value)
        const = tensor.op._const_value
        if const is None:
            raise NotImplementedError(
                f"tf.{entry.name}: argument {param!r} must be known when the graph is built "
                f"(a Python value or a constant), got the computed tensor {tensor.name}; "
                "jtrain compiles static shapes and axes."
            )
        return const.tolist()
    if isinstance(value, (list, tuple)) and any(isinstance(v, ops.Tensor) for v in value):
        return type(value)(_static(entry, param, v) for v in value)
    return value


def _is_tensor(value: Any) -> bool:
    return isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")


# TF's OpDefs whose type attribute ``T`` has a default (TF 2.21's op registry, read live
# by tests/interop/test_framework_fixes_interop.py): a Python value whose own dtype the op
# does not allow converts to it (op_def_library's ``preferred_dtype``), as
# ``tf.image.rgb_to_hsv([[[1, 2, 3]]])`` (int32, not allowed) gives float32.
T_DEFAULTS: dict[str, str] = {
    "AdjustContrastv2": "float32",
    "AdjustHue": "float32",
    "AdjustSaturation": "float32",
    "Angle": "complex64",
    "BroadcastArgs": "int32",
    "Complex": "float32",
    "Conj": "complex64",
    "DrawBoundingBoxes": "float32",
    "DrawBoundingBoxesV2": "float32",
    "HSVToRGB": "float32",
    "Imag": "complex64",
    "InTopKV2": "int32",
    "InvertPermutation": "int32",
    "LRN": "float32",
    "LeakyRelu": "float32",
    "MaxPool": "float32",
    "NextAfter": "float32",
    "NonMaxSuppressionV3": "float32",
    "NonMaxSuppressionV5": "float32",
    "RGBToHSV": "float32",
    "Real": "complex64",
}


def _convert_inputs(entry: OpDef, arguments: dict[str, Any]) -> dict[str, Any]:
    """Tensor arguments converted with TF's dtype rules (op_def_library's
    ``_apply_op_helper``; raises TF's ``TypeError``/``ValueError``).

    The ``same_dtype`` group takes the dtype of its first input in TF's order (a
    list input: of its first tensor), and later Python values convert to it as
    ``tf.convert_to_tensor(value, dtype)`` converts (a Python int or float where the
    group is complex, a bool where it is float; a float where it is int raises TF's
    ``TypeError``, as ``tf.multiply(2, float_tensor)``). A Python value first decides
    by its own dtype (a float: float32, an int or int list: int32), unless the op
    does not allow that dtype and TF's OpDef gives ``T`` a default (``T_DEFAULTS``):
    then the default. A parameter outside the group allowed one dtype only is TF's
    fixed-type input: a Python value converts to that dtype
    (``tf.image.adjust_contrast(x, 2)``: float32). A list input's items convert to
    the group's dtype (or its first tensor's: ``tf.concat([tf.shape(x), []], 0)``
    is int32); without one each converts on its own and all must match.
    """
    group = [p for p in entry.tensors if p in entry.same_dtype and arguments.get(p) is not None]
    # The group's dtype: TF infers it from the first input in order (a list input: from
    # its first tensor); a Python value there decides by its own dtype.
    dtype, first = None, None
    if group and entry.op_type in T_DEFAULTS:
        dtype, first = _preferred(entry, group[0], arguments[group[0]])
    if entry.name in _CONVERTED_BY_WRAPPER:
        arguments = _converted_by_wrapper(entry, arguments)
    converted: dict[str, Any] = {}
    for p in entry.tensors:
        if p not in arguments:
            continue
        value = arguments[p]
        if value is None and _optional(entry, p):
            continue  # an optional input left out; a required one given None is TF's error
        fixed = entry.allowed.get(p, ())
        if p in group:
            want = dtype
        else:
            want = np_dtype(fixed[0]) if len(fixed) == 1 else None
        if p in entry.lists:
            converted[p] = _convert_list(entry, p, value, want, fixed_type=p not in group)
            if p in group and dtype is None and converted[p]:
                dtype, first = np_dtype(converted[p][0].dtype), p
        else:
            t = convert_input(entry.op_type, p, value, want, first if p in group else None)
            if p in group and dtype is None:
                dtype, first = np_dtype(t.dtype), p
            converted[p] = t
        _check_allowed(entry, p, converted[p])
    return converted


def _optional(entry: OpDef, param: str) -> bool:
    """Whether a ``None`` for ``param`` leaves the input out: a parameter with a default,
    or one of an op of more than two inputs, whose TF function may take ``None`` for a
    positional input (``tf.nn.batch_normalization``'s ``offset``/``scale``); a unary or
    binary op's ``None`` is TF's conversion error (``tf.multiply(x, None)``)."""
    if len(entry.tensors) > 2:
        return True
    return entry.signature.parameters[param].default is not inspect.Parameter.empty


def _converted_by_wrapper(entry: OpDef, arguments: dict[str, Any]) -> dict[str, Any]:
    """The inputs as TF's Python function converts them before the op sees them (its
    errors raised as they are): the first on its own, later ones with its dtype as a
    hint (``tf.add(int_tensor, 2.5)``: float32, then the op's mismatch error)."""
    arguments = dict(arguments)
    hint = None
    for p in entry.tensors:
        if p not in arguments or (arguments[p] is None and _optional(entry, p)):
            continue
        value = _packed(arguments[p])
        if not _is_tensor(value):
            value = ops.convert_to_tensor(value, preferred_dtype=hint)
        arguments[p] = value
        if hint is None:
            hint = ops.convert_to_tensor(value).dtype.base_dtype
    return arguments


def _preferred(entry: OpDef, param: str, value: Any) -> tuple[Any, str | None]:
    """The group's dtype from its first (Python) value where TF's OpDef gives ``T`` a
    default: ``(None, None)`` when the value's own dtype is allowed."""
    allowed = entry.allowed.get(param) or entry.allowed.get(entry.same_dtype[0])
    item = value[0] if param in entry.lists and isinstance(value, (list, tuple)) else value
    try:
        own = np_dtype(ops.convert_to_tensor(item).dtype).name
    except (TypeError, ValueError):
        return None, None
    if allowed is None or own in allowed:
        return None, None
    return np_dtype(T_DEFAULTS[entry.op_type]), param


def _packed(value: Any) -> Any:
    """A list holding tensors as one tensor (TF's auto-packing: ``[tf.shape(x)[0], 3]``)."""
    if isinstance(value, (list, tuple)) and ops._holds_tensor(value):
        return ops.convert_to_tensor(value)
    return value


def _convert_list(
    entry: OpDef, param: str, value: Any, dtype: Any, fixed_type: bool
) -> list[ops.Tensor]:
    """A list input (TF's ``N * T``) converted as op_def_library converts it: each item
    to ``dtype``, else (in a same-dtype group, not ``fixed_type``) to the dtype of the
    list's first tensor, else on its own; any failure, or items of different dtypes in
    a group, is TF's ``TypeError`` naming the dtypes."""
    items = [_packed(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    inferred = dtype is not None and not fixed_type
    if dtype is None and not fixed_type:
        for item in items:
            if _is_tensor(item):
                dtype = np_dtype(ops.convert_to_tensor(item).dtype)
                break
    try:
        out = [ops.convert_to_tensor(v, None if dtype is None else dtype) for v in items]
        # A list outside a same-dtype group is the op's own check (``accumulate_n``).
        if not fixed_type and len({np_dtype(t.dtype) for t in out}) > 1:
            raise TypeError("not all types matched")
    except (TypeError, ValueError):
        observed = []
        for v in items:
            try:
                observed.append(ops.convert_to_tensor(v).dtype.base_dtype.name)
            except (TypeError, ValueError):
                observed.append("<NOT CONVERTIBLE TO TENSOR>")
        prefix = (
            f"Tensors in list passed to '{param}' of '{entry.op_type}' Op have types "
            f"[{', '.join(observed)}]"
        )
        name = None if dtype is None else ops.as_dtype(dtype).name
        if fixed_type and dtype is not None:
            raise TypeError(f"{prefix} that do not match expected type {name}.") from None
        if inferred:
            raise TypeError(
                f"{prefix} that do not match type {name} inferred from earlier arguments."
            ) from None
        raise TypeError(f"{prefix} that don't all match.") from None
    return out


def convert_input(
    op_type: str, param: str, value: Any, dtype: Any, first: str | None = None
) -> ops.Tensor:
    """Input ``param`` of an ``op_type`` op converted as op_def_library converts it: to
    ``dtype`` where known (from the group's first input ``first``, or the input's fixed
    type), else by the value's own dtype.

    Raises:
      TypeError: a tensor of another dtype (``Input 'value' of 'Assign' Op has type
        int32 that does not match type float32 of argument 'ref'.``), or a Python value
        ``dtype`` cannot hold (TF's messages).
      ValueError: a value that converts to no tensor.
    """
    value = _packed(value)
    try:
        return ops.convert_to_tensor(value, dtype)
    except TypeError as error:
        if dtype is None:
            raise
        raise TypeError(
            f"Expected {ops.as_dtype(dtype).name} passed to parameter '{param}' of op "
            f"'{op_type}', "
            f"got {value!r} of type '{type(value).__name__}' instead. Error: {error}"
        ) from None
    except ValueError:
        try:
            observed = ops.convert_to_tensor(value).dtype.base_dtype.name
        except ValueError as error:
            raise ValueError(
                f"Tried to convert '{param}' to a tensor and failed. Error: {error}"
            ) from None
        name = ops.as_dtype(dtype).name
        against = f"type {name} of argument '{first}'" if first else f"expected type of {name}"
        raise TypeError(
            f"Input '{param}' of '{op_type}' Op has type {observed} that does not match {against}."
        ) from None


# TF functions that convert their inputs themselves before the op sees them (``tf.add``:
# ``convert_to_tensor(x)``, then ``convert_to_tensor(y, dtype_hint=x.dtype)``;
# ``tf.cast``: ``convert_to_tensor(x)``): their conversion errors are raised as they are.
_CONVERTED_BY_WRAPPER = frozenset({"add", "cast"})


def convert_operand(value: Any, like: ops.Tensor) -> ops.Tensor:
    """A Python operand of a tensor's operator as a tensor of ``like``'s dtype (TF's
    rule: ``tf.convert_to_tensor(value, like.dtype)``; ``2.0 * complex_tensor`` is
    complex).

    Raises:
      TypeError: a value the dtype cannot hold (a float for an integer tensor).
      ValueError: ``None``.
    """
    return ops.convert_to_tensor(value, like.dtype.base_dtype)


def _check_allowed(entry: OpDef, param: str, value: Any) -> None:
    allowed = entry.allowed.get(param)
    if allowed is None and param in entry.same_dtype and entry.same_dtype:
        allowed = entry.allowed.get(entry.same_dtype[0])
    if allowed is None:
        return
    for t in value if isinstance(value, list) else [value]:
        dtype = dtypes.as_dtype(t.dtype).base_dtype.name  # TF's name: "string", not "object"
        if dtype not in allowed:
            raise TypeError(
                f"Value passed to parameter '{param}' has DataType {dtype} not in list of "
                f"allowed values: {', '.join(allowed)}"
            )


def chosen_by_arguments(
    table_fn: Callable[..., Any], choose: Callable[[dict[str, Any]], Callable[..., Any]]
) -> Callable[..., Any]:
    """``table_fn``'s public function, each call going to ``choose(arguments)``: a
    function of the same signature (a variant of the entry that TF's graph optimizer
    makes of the op, ``_folded.*``), chosen from the arguments bound to the signature.
    A call they do not bind to gets the table's own error."""
    signature = inspect.signature(table_fn)

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def function(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return table_fn(*args, **kwargs)  # the table's own error
        return choose(dict(bound.arguments))(*args, **kwargs)

    return function


def tf_names(namespace: str = "") -> dict[str, Callable[..., Any]]:
    """Public functions of one TF namespace (``""`` top level, ``"math"``, ``"nn"``)."""
    out = {}
    for full, function in FUNCTIONS.items():
        ns, _, short = full.rpartition(".")
        if ns == namespace:
            out[short] = function
    return out
