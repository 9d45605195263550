"""TF1's ``Graph``, ``Operation`` and ``Tensor`` as lazy nodes over JAX functions.

A ``Graph`` holds operations, collections and unique names. An ``Operation``
applies a pure JAX function to the values of its input tensors when a
``Session`` evaluates it; operations with effects (assignments) change the
session's variable values, in the order their data and control dependencies
give. Nothing is computed when the graph is built: ``Session.run`` turns the
operations a fetch needs into one ``jax.jit`` program.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from adapters.v1.framework import dtypes, tensor_shape
from adapters.v1.framework.device_spec import DeviceSpec
from adapters.v1.framework.dtypes import as_dtype

__all__ = [
    "Graph",
    "GraphKeys",
    "Operation",
    "Tensor",
    "get_default_graph",
    "reset_default_graph",
    "add_to_collection",
    "add_to_collections",
    "get_collection",
    "get_collection_ref",
    "name_scope",
    "control_dependencies",
    "convert_to_tensor",
    "device",
]


class GraphKeys:
    """Standard names for graph collections (``tf.compat.v1.GraphKeys``)."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


class Tensor:
    """One output of an ``Operation``: a lazy value, computed when a session runs it.

    Supports Python's arithmetic operators and indexing (each builds a new
    operation applying the ``jax.numpy`` function), so model math reads as in TF.
    """

    __array_priority__ = 100  # NumPy defers binary operators to Tensor.

    def __init__(self, op: Operation, value_index: int, shape: Any, dtype: Any):
        self._op = op
        self._value_index = value_index
        # The static shape as a tuple (None: unknown rank); ``shape`` wraps it.
        self._shape = tensor_shape.as_shape(shape)._dims
        # TF's DType for users; the NumPy dtype for the compat layer's own checks.
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self._np_dtype = None if dtype is None else self._dtype.dtype

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def graph(self) -> Graph:
        return self._op.graph

    @property
    def device(self) -> str:
        """The device of the op producing this tensor (TF's ``Tensor.device``; "" if
        none); recorded only."""
        return self._op.device

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._value_index}"

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape, a ``TensorShape`` (``None`` dimensions are unknown)."""
        return tensor_shape.TensorShape(self._shape)

    @property
    def dtype(self) -> dtypes.DType | None:
        """The element type: a ``DType`` (``tf.float32``...), ``None`` if unknown."""
        return self._dtype

    def get_shape(self) -> tensor_shape.TensorShape:
        """The static shape (same as ``shape``)."""
        return self.shape

    def set_shape(self, shape: Any) -> None:
        """Refines the static shape with ``shape`` (merged with what is known).

        Raises:
          ValueError: ``shape`` is not compatible with the tensor's shape.
        """
        mine, other = self.shape, tensor_shape.as_shape(shape)
        if not mine.is_compatible_with(other):
            a, b = mine.as_list(), other.as_list()
            if len(a) != len(b):
                detail = f"Shapes must be equal rank, but are {len(a)} and {len(b)}"
            else:
                i = next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
                detail = (
                    f"Dimension {i} in both shapes must be equal, but are {a[i]} and {b[i]}. "
                    f"Shapes are {_shape_text(a)} and {_shape_text(b)}."
                )
            raise ValueError(detail)
        self._shape = mine.merge_with(other)._dims

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> Any:
        """``session.run(self)``, with the default session when none is given."""
        from adapters.v1.client.session import _session_for

        return _session_for(session, self.graph).run(self, feed_dict=feed_dict)

    def consumers(self) -> list[Operation]:
        """The operations that take this tensor as an input, in creation order."""
        return [op for op in self.graph._ops if any(t is self for t in op._inputs)]

    def __repr__(self) -> str:
        dtype = "unknown" if self._dtype is None else self._dtype.name
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={dtype}>"

    def __str__(self) -> str:
        """TF1's ``Tensor("x:0", shape=(?, 784), dtype=float32)`` (no shape when its rank
        is unknown), as scripts print tensors and TF's messages name them."""
        dtype = "unknown" if self._dtype is None else self._dtype.name
        shape = "" if self._shape is None else f", shape={self.shape}"
        return f'Tensor("{self.name}"{shape}, dtype={dtype})'

    # Identity semantics, with C-level hashing (no Python call per dict lookup).
    __hash__ = object.__hash__
    __eq__ = object.__eq__

    def __bool__(self) -> bool:
        raise TypeError(
            f"Using a Tensor ({self.name}) as a Python bool is not allowed: its value is "
            "only known when a Session runs it."
        )

    def __iter__(self):
        raise TypeError(f"Tensor {self.name} is not iterable; index it instead.")

    def __getitem__(self, key: Any) -> Tensor:
        """``tensor[key]`` as TF's ``strided_slice`` (ints, slices, ``...``, ``None``)."""
        from adapters.v1.framework import shape_values
        from adapters.v1.framework.op_def import FUNCTIONS

        items = key if isinstance(key, tuple) else (key,)
        dynamic = [
            k
            for k, item in enumerate(items)
            if isinstance(item, Tensor)
            and item.op._const_value is None
            and not shape_values.from_shapes_only(item)
        ]
        if dynamic:  # x[i] with i computed in the step
            from adapters.v1.ops.array_ops import index_with_tensors

            return index_with_tensors(self, items, dynamic)
        return FUNCTIONS["strided_slice"](self, name="strided_slice", **_slice_spec(key))

    def __array__(self, *args, **kwargs):
        raise TypeError(
            f"Tensor {self.name} has no value until a Session runs it; fetch it with sess.run()."
        )


_shape_text = tensor_shape.dims_text


def _slice_spec(key: Any) -> dict[str, Any]:
    """``strided_slice`` arguments of a Python index (TF's ``_slice_helper``)."""
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    masks = dict.fromkeys(
        ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"], 0
    )
    for i, item in enumerate(key):
        bit = 1 << i
        if isinstance(item, slice):
            begin.append(0 if item.start is None else _static_index(item.start))
            end.append(0 if item.stop is None else _static_index(item.stop))
            strides.append(1 if item.step is None else _static_index(item.step))
            masks["begin_mask"] |= bit if item.start is None else 0
            masks["end_mask"] |= bit if item.stop is None else 0
            continue
        begin.append(0)
        end.append(0)
        strides.append(1)
        if item is Ellipsis:
            masks["ellipsis_mask"] |= bit
        elif item is None:
            masks["new_axis_mask"] |= bit
        else:
            begin[-1] = _static_index(item)
            end[-1] = begin[-1] + 1
            masks["shrink_axis_mask"] |= bit
    return {"begin": begin, "end": end, "strides": strides, **masks}


def _static_index(item: Any) -> Any:
    """An index as an int, or a computed scalar tensor (``x[: tf.shape(y)[0]]``), whose
    value ``strided_slice`` takes when the step is traced."""
    if isinstance(item, Tensor):
        value = item.op._const_value
        if value is None:
            return item
        return int(value)
    try:
        return int(item.__index__())
    except (AttributeError, TypeError):
        raise TypeError(
            "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
            f"tf.int32/tf.int64 tensors are valid indices, got {item!r}"
        ) from None


# Python operators: (dunder name, TF op table name, TF's node name).
_OPERATORS = [
    ("add", "add", "add"),
    ("sub", "subtract", "sub"),
    ("mul", "multiply", "mul"),
    ("truediv", "truediv", "truediv"),
    ("floordiv", "floordiv", "floordiv"),
    ("mod", "floormod", "mod"),
    ("pow", "pow", "pow"),
    ("matmul", "matmul", "matmul"),
    ("lt", "less", "Less"),
    ("le", "less_equal", "LessEqual"),
    ("gt", "greater", "Greater"),
    ("ge", "greater_equal", "GreaterEqual"),
    ("and", "logical_and", "and"),
    ("or", "logical_or", "or"),
    ("xor", "logical_xor", "xor"),
]
_UNARY_OPERATORS = [
    ("neg", "negative", "Neg"),
    ("abs", "abs", "Abs"),
    ("invert", "logical_not", "LogicalNot"),
]


# TF's ``&``, ``|``, ``^`` and ``~`` are logical on bool tensors and bitwise otherwise.
_BITWISE = {
    "logical_and": "bitwise.bitwise_and",
    "logical_or": "bitwise.bitwise_or",
    "logical_xor": "bitwise.bitwise_xor",
    "logical_not": "bitwise.invert",
}


def _bitwise(op: str, x: Tensor) -> str | None:
    """The bitwise op TF's operator ``op`` applies to ``x`` (not bool), else ``None``."""
    if op in _BITWISE and x.dtype is not None and x.dtype.base_dtype.name != "bool":
        return _BITWISE[op]
    return None


def _binary_operator(op: str, node: str, reverse: bool):
    def method(self, other):
        from adapters.v1.framework.op_def import FUNCTIONS, convert_operand

        if reverse and not isinstance(other, Tensor) and not hasattr(other, "_as_graph_tensor"):
            other = convert_operand(other, self)  # TF: converted to exactly this dtype
        # Forward, the other operand converts with this dtype as a hint (the op's rule).
        x, y = (other, self) if reverse else (self, other)
        bitwise = _bitwise(op, self)
        if bitwise is not None:  # TF names it ``and/BitwiseAnd``
            with name_scope(node):
                return FUNCTIONS[bitwise](x, y)
        return FUNCTIONS[op](x, y, name=node)

    return method


def _unary_operator(op: str, node: str):
    def method(self):
        from adapters.v1.framework.op_def import FUNCTIONS

        bitwise = _bitwise(op, self)
        if bitwise is not None:
            return FUNCTIONS[bitwise](self)  # TF's ``Invert``
        return FUNCTIONS[op](self, name=node)

    return method


def _install_operators() -> None:
    """Python's operators on tensors as TF's ops of the op table (TF's dtype rules)."""
    for key, op, node in _OPERATORS:
        setattr(Tensor, f"__{key}__", _binary_operator(op, node, reverse=False))
        setattr(Tensor, f"__r{key}__", _binary_operator(op, node, reverse=True))
    for key, op, node in _UNARY_OPERATORS:
        setattr(Tensor, f"__{key}__", _unary_operator(op, node))


class Operation:
    """A node of the graph: a pure function of its inputs, maybe with an effect.

    Args:
      graph: the owning graph.
      op_type: TF's op type name (``"Placeholder"``, ``"AssignVariableOp"``...).
      name: the unique name (already made unique by the graph).
      inputs: tensors whose values ``compute`` receives.
      control_inputs: operations that must run before this one.
      compute: ``compute(ctx, *input_values) -> tuple of output values``; ``ctx``
        is the session's evaluation context (variable reads and writes).
      output_specs: ``(shape, dtype)`` per output.
    """

    def __init__(
        self,
        graph: Graph,
        op_type: str,
        name: str,
        inputs: Sequence[Tensor] = (),
        control_inputs: Sequence[Operation] = (),
        compute: Callable[..., tuple[Any, ...]] | None = None,
        output_specs: Sequence[tuple[Any, Any]] = (),
    ):
        self._graph = graph
        self._type = op_type
        self._name = name
        self._inputs = tuple(inputs)
        self._control_inputs = tuple(control_inputs)
        self._compute = compute
        self._outputs = tuple(
            Tensor(self, i, shape, dtype) for i, (shape, dtype) in enumerate(output_specs)
        )
        # Variables this op writes (filled by assignment ops), for donation analysis.
        self._writes: tuple[Any, ...] = ()
        # Variables this op reads directly (not through input tensors).
        self._reads: tuple[Any, ...] = ()
        # None: runs in the step's XLA program. "pre"/"post": runs in Python before /
        # after it, ``compute(session, *numpy inputs)`` (see client/session.py).
        self._host: str | None = None
        # For the session's host copy of scalar integer variables (the global step):
        # a Const's value; a pure read's variable; an assignment's (kind, Const tensor)
        # with kind "set", "add" or "sub".
        self._const_value: Any = None
        self._read_of: Any = None
        self._assigns: tuple[str, Tensor] | None = None
        # True for an op whose value is averaged over the replicas of a multi-process
        # job (an optimizer's update): its run is one collective step (client/_replicas).
        self._collective = False
        # The device requested by the enclosing ``tf.device`` scopes (recorded only:
        # XLA places the computation; see training/device_setter.py).
        self._device = ""
        # TF's ``_class`` attribute: the colocation groups (``b"loc:@name"``) set by
        # ``colocate_with`` scopes or a variable's constructor; None: the op has none.
        self._class: list[bytes] | None = None
        # A host op's batch form, used by a queue runner that enqueues record by record
        # (training/batched_enqueue.py): a reader's ``read_many(session, n)``, a row-wise
        # op's ``compute`` over inputs with a leading batch dimension, an enqueue's
        # ``put_many(session, columns)``. None: the op has none.
        self._batch: Any = None
        # The gradient name ``Graph.gradient_override_map`` gave this op, if any.
        self._gradient_op_type: str | None = None

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def inputs(self) -> tuple[Tensor, ...]:
        return self._inputs

    @property
    def control_inputs(self) -> tuple[Operation, ...]:
        return self._control_inputs

    @property
    def device(self) -> str:
        """The device name requested by ``tf.device`` scopes ("" if none); recorded only."""
        return self._device

    @property
    def outputs(self) -> tuple[Tensor, ...]:
        return self._outputs

    def values(self) -> tuple[Tensor, ...]:
        """The outputs (TF's ``Operation.values()``)."""
        return self._outputs

    def _set_device(self, device: Any) -> None:
        """Records ``device`` on the op (TF's ``Operation._set_device``, which scripts
        use to clear or set devices): a name as given, a ``DeviceSpec`` as its string.

        Raises:
          TypeError: ``device`` is neither (TF's message).
        """
        if isinstance(device, DeviceSpec):
            device = device.to_string()
        elif isinstance(device, bytes):
            device = device.decode()
        if not isinstance(device, str):
            raise TypeError(f"Expected binary or unicode string, got {device!r}")
        self._device = device

    def _set_device_from_string(self, device_str: str) -> None:
        """``_set_device`` of a name (TF's fast path)."""
        self._set_device(device_str)

    def colocation_groups(self) -> list[bytes]:
        """The op's colocation groups: its ``_class`` attribute's ``loc:@`` entries, or
        ``[b"loc:@<its name>"]`` when it has none (TF's ``Operation.colocation_groups``).
        Recorded only: XLA places the computation."""
        groups = [g for g in self._class or () if g.startswith(b"loc:@")]
        return groups or [f"loc:@{self._name}".encode()]

    def get_attr(self, name: str) -> Any:
        """The value of the op's attribute ``name``.

        jtrain ops keep TF's ``dtype`` and ``shape`` (placeholders, variables),
        ``value`` (constants), ``T`` (ops with inputs), ``container`` and
        ``shared_name`` (variables).

        Raises:
          ValueError: the op has no such attribute (TF's message).
        """
        attrs = self._attrs()
        if name not in attrs:
            raise ValueError(f"Operation {self._name!r} has no attr named {name!r}.")
        return attrs[name]

    def _attrs(self) -> dict[str, Any]:
        """The attributes TF gives this op type that jtrain knows."""
        attrs: dict[str, Any] = {}
        variable = getattr(self, "_variable", None)
        if variable is not None:  # a variable's own op (TF's VariableV2)
            attrs.update(dtype=as_dtype(variable.dtype).base_dtype, shape=variable.shape)
            attrs.update(container="", shared_name="")
            if self._class is not None:
                attrs["_class"] = list(self._class)
            return attrs
        first = self._outputs[0] if self._outputs else None
        if self._type in ("Placeholder", "PlaceholderWithDefault") and first is not None:
            attrs.update(dtype=as_dtype(first.dtype), shape=first.shape)
        elif self._type == "Const" and first is not None:
            attrs.update(dtype=as_dtype(first.dtype))
            value = self._const_value
            if value is None:
                value = getattr(self, "_host_value", None)  # a string constant's
            if value is not None:
                attrs["value"] = value
        elif first is not None and first.dtype is not None and (self._inputs or self._reads):
            attrs["T"] = as_dtype(first.dtype)
        if self._gradient_op_type is not None:  # set by Graph.gradient_override_map
            attrs["_gradient_op_type"] = self._gradient_op_type.encode()
        if self._class is not None:
            attrs["_class"] = list(self._class)
        return attrs

    def run(self, feed_dict: dict | None = None, session: Any = None) -> None:
        """``session.run(self)``, with the default session when none is given."""
        from adapters.v1.client.session import _session_for

        _session_for(session, self.graph).run(self, feed_dict=feed_dict)

    def __repr__(self) -> str:
        return f"<tf.Operation {self._name!r} type={self._type}>"

    def __str__(self) -> str:
        """TF's: the op's ``NodeDef`` as protobuf text."""
        from adapters.v1.framework import graph_def

        try:
            return str(graph_def.node_def(self))
        except Exception:  # noqa: BLE001 - an op that has no NodeDef form: its repr
            return repr(self)


class _NumericsState(threading.local):
    """The thread's ``tf.debugging.enable_check_numerics`` hook (TF's op callback is
    per thread too); ``hook`` has ``consumer_inputs(graph, inputs, controls)`` and
    ``instrument(graph, op)`` (adapters/v1/debugging.py)."""

    hook: Any = None


_NUMERICS = _NumericsState()


class _ControlFrame:
    """One ``control_dependencies`` block: its controls and the ops created inside."""

    __slots__ = ("ops", "seen")

    def __init__(self, ops: list[Operation]):
        self.ops = ops
        self.seen: set[Operation] = set()


_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")


class Graph:
    """A TF1 graph: operations, unique names, name scopes, collections, control deps.

    Use ``with g.as_default():`` to build into ``g``; ``finalize()`` makes it
    read-only (adding an op then raises ``RuntimeError``, as TF does).
    """

    def __init__(self) -> None:
        self._ops: list[Operation] = []
        self._names: dict[str, Operation] = {}
        self._name_counts: dict[str, int] = {}
        self._collections: dict[str, list[Any]] = {}
        self._finalized = False
        self._local = threading.local()
        self._version = 0
        self._seed: int | None = None
        # Placeholders whose fed values shapes or axes read (``tf.ones([n, 3])``): a
        # run compiles them as constants, one program per fed value (shape_values.py).
        self._shape_feeds: set[Tensor] = set()
        # Op type -> gradient name for ops created now (``gradient_override_map``).
        self._gradient_override_map: dict[str, str] = {}

    # -- thread-local builder state ---------------------------------------------
    @property
    def _scope(self) -> str:
        return getattr(self._local, "scope", "")

    @_scope.setter
    def _scope(self, value: str) -> None:
        self._local.scope = value

    @property
    def _control_stack(self) -> list[_ControlFrame]:
        if not hasattr(self._local, "control"):
            self._local.control = []
        return self._local.control

    # -- defaults ----------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        """Makes this the default graph of the current thread inside the block."""
        _default_graph_stack().append(self)
        try:
            yield self
        finally:
            _default_graph_stack().pop()

    # -- names -------------------------------------------------------------------
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` under the current name scope, suffixed ``_1``, ``_2``... if taken."""
        if self._scope:
            name = f"{self._scope}/{name}"
        key = name.lower()
        count = self._name_counts.get(key, 0)
        unique = name
        if count > 0:
            base = name
            while True:
                unique = f"{base}_{count}"
                if unique.lower() not in self._name_counts:
                    break
                count += 1
        if mark_as_used:
            self._name_counts[key] = count + 1
            if unique.lower() != key:
                self._name_counts[unique.lower()] = 1
        return unique

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        """TF's name scope: ops created inside get ``scope/`` prefixed names.

        A name ending in ``/`` re-enters that exact scope; ``None`` or ``""`` resets
        to the root scope.
        """
        old = self._scope
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            if not _VALID_NAME.match(name):
                raise ValueError(f"'{name}' is not a valid scope name")
            new = self.unique_name(name)
        self._scope = new
        try:
            yield new + "/" if new else ""
        finally:
            self._scope = old

    def get_name_scope(self) -> str:
        return self._scope

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict[str, str]) -> Iterator[None]:
        """Ops of the mapped types created inside take the mapped gradient: TF's
        ``gradient_override_map`` (the name is looked up in the gradients registered
        with ``tf.RegisterGradient`` when ``tf.gradients`` reaches the op).

        Raises:
          TypeError: ``op_type_map`` is not a dict of strings to strings (TF's message).
        """
        if not isinstance(op_type_map, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()
        ):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    # -- ops ---------------------------------------------------------------------
    def _check_not_finalized(self) -> None:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def create_op(
        self,
        op_type: str,
        name: str,
        inputs: Sequence[Tensor] = (),
        compute: Callable[..., tuple[Any, ...]] | None = None,
        output_specs: Sequence[tuple[Any, Any]] = (),
        control_inputs: Sequence[Operation] = (),
        exact_name: bool = False,
        host: str | None = None,
    ) -> Operation:
        """Adds an operation named uniquely under the current scope.

        Inputs must belong to this graph; the active ``control_dependencies``
        are added to ``control_inputs``. With ``exact_name`` the name is taken as
        an absolute name already reserved by ``name_scope`` (a variable's op).
        ``host="pre"``/``"post"`` makes a host operation: ``compute(session,
        *numpy inputs)`` runs in Python before/after the step's program (a queue's
        dequeue feeds the program; a summary is serialized from its outputs).
        """
        if host not in (None, "pre", "post"):
            raise ValueError(f"host must be None, 'pre' or 'post', got {host!r}")
        self._check_not_finalized()
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError(f"input to op {name} is not a Tensor: {t!r}")
            if t.graph is not self:
                raise ValueError(
                    f"Tensor {t.name} must be from the same graph as the op {name} being created."
                )
        numerics = _NUMERICS.hook if self._numerics_ok() else None
        if numerics is not None:
            inputs, control_inputs = numerics.consumer_inputs(self, inputs, control_inputs)
        controls = list(control_inputs)
        input_ops = {t.op for t in inputs}
        for frame in self._control_stack:
            # TF's _control_dependencies_for_inputs: a block one of whose ops feeds
            # this op adds nothing (that input already runs after the block's
            # controls), and a control that is also a data input is dropped.
            if not input_ops.isdisjoint(frame.seen):
                continue
            controls.extend(c for c in frame.ops if c not in input_ops and c not in controls)
        if name.endswith("/"):  # TF: a scope name ("scope/") names the op exactly
            name, exact_name = name[:-1], True
        if exact_name and name in self._names:
            raise ValueError(f"Duplicate node name in graph: {name!r}")
        op = Operation(
            self,
            op_type,
            name if exact_name else self.unique_name(name),
            inputs,
            controls,
            compute,
            output_specs,
        )
        op._host = host
        if op_type in self._gradient_override_map:
            op._gradient_op_type = self._gradient_override_map[op_type]
        elif self._gradient_override_map:
            _refuse_overrides_of_parts(op, self._gradient_override_map)
        if self._device_stack:
            self._apply_device(op)
        colocation = getattr(self._local, "colocation", ())
        for colocated in reversed(colocation):
            if colocated.device:  # TF: the innermost colocation op with a device
                op._device = colocated.device
                break
        if colocation:  # TF's ``_class``: every colocation op's groups, sorted
            op._class = sorted({g for c in colocation for g in c.colocation_groups()})
        for frame in self._control_stack:
            frame.seen.add(op)
        self._ops.append(op)
        self._names[op.name] = op
        self._version += 1
        if numerics is not None:
            numerics.instrument(self, op)
        return op

    def _numerics_ok(self) -> bool:
        """Whether ``tf.debugging.enable_check_numerics`` instruments new ops here
        (not while it builds its own checks)."""
        return _NUMERICS.hook is not None and not getattr(self._local, "in_numerics", False)

    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        """The operation named ``name``.

        Raises:
          TypeError: ``name`` is not a string.
          KeyError: no such operation; ValueError: ``name`` names a tensor.
        """
        if not isinstance(name, (str, bytes)):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        op = self.as_graph_element(name, allow_tensor=False, allow_operation=True)
        assert isinstance(op, Operation)  # tensors were not allowed
        return op

    def get_tensor_by_name(self, name: str) -> Tensor:
        """The tensor named ``name`` (``"op_name:index"``).

        Raises:
          TypeError: ``name`` is not a string.
          KeyError: no such tensor; ValueError: ``name`` is not a tensor name.
        """
        if not isinstance(name, (str, bytes)):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        tensor = self.as_graph_element(name, allow_tensor=True, allow_operation=False)
        assert isinstance(tensor, Tensor)  # operations were not allowed
        return tensor

    def as_graph_element(
        self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True
    ) -> Tensor | Operation:
        """The Tensor or Operation ``obj`` stands for: itself, a Variable's value, or a name.

        Args:
          obj: a ``Tensor``, ``Operation``, ``Variable`` or a name
            (``"op"`` or ``"op:0"``).
          allow_tensor: whether ``obj`` may be (or name) a tensor.
          allow_operation: whether ``obj`` may be (or name) an operation.

        Raises:
          TypeError: ``obj`` cannot become a graph element of an allowed kind.
          ValueError: ``obj`` is from another graph, or a name of the wrong kind.
          KeyError: ``obj`` names nothing in this graph.
        """
        if allow_tensor and allow_operation:
            kinds = "Tensor or Operation"
        elif allow_tensor:
            kinds = "Tensor"
        elif allow_operation:
            kinds = "Operation"
        else:
            raise ValueError("allow_tensor and allow_operation can't both be False.")
        as_tensor = getattr(obj, "_as_graph_tensor", None)
        if as_tensor is not None and not isinstance(obj, (Tensor, Operation)):
            obj = as_tensor()
        if isinstance(obj, bytes):
            obj = obj.decode()
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation, kinds)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {kinds}.")

    def _element_by_name(
        self, name: str, allow_tensor: bool, allow_operation: bool, kinds: str
    ) -> Tensor | Operation:
        form = 'Tensor names must be of the form "<op_name>:<output_index>".'
        if ":" in name:
            if not allow_tensor:
                raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {kinds}.")
            op_name, _, index = name.rpartition(":")
            if ":" in op_name or not index.lstrip("-").isdigit():
                raise ValueError(
                    f"The name {name!r} looks a like a Tensor name, but is not a valid one. " + form
                )
            op = self._names.get(op_name)
            if op is None:
                raise KeyError(
                    f"The name {name!r} refers to a Tensor which does not exist. The "
                    f"operation, {op_name!r}, does not exist in the graph."
                )
            i = int(index)
            if not 0 <= i < len(op.outputs):
                raise KeyError(
                    f"The name {name!r} refers to a Tensor which does not exist. The "
                    f"operation, {op_name!r}, exists but only has {len(op.outputs)} outputs."
                )
            return op.outputs[i]
        if allow_operation:
            op = self._names.get(name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
            return op
        if name in self._names:
            raise ValueError(f"The name {name!r} refers to an Operation, not a {kinds}. " + form)
        raise ValueError(
            f"The name {name!r} looks like an (invalid) Operation name, not a {kinds}. " + form
        )

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Sequence[Any] | None) -> Iterator[None]:
        """Ops created inside run after ``control_inputs`` (``None`` clears them).

        As TF, a control already given by an enclosing block is not repeated, and an
        op created inside gets no control from a block when one of its data inputs
        was created inside that block, nor a control on an op it takes as a data
        input (``with tf.control_dependencies([a]): b = a + 1`` gives ``b`` no
        control input).
        """
        if control_inputs is None:
            saved = list(self._control_stack)
            self._control_stack.clear()
            try:
                yield
            finally:
                self._control_stack.clear()
                self._control_stack.extend(saved)
            return
        current = {c for frame in self._control_stack for c in frame.ops}
        ops = []
        for c in control_inputs:
            op = _as_op(c)
            if op.graph is not self:
                raise ValueError(f"Control input {op.name} must be from the same graph.")
            if op not in current:
                ops.append(op)
                current.add(op)
        self._control_stack.append(_ControlFrame(ops))
        try:
            yield
        finally:
            self._control_stack.pop()

    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        """Records a device (a name, a ``DeviceSpec`` or a function ``op -> device``) on
        the ops created inside.

        Recorded only (``Operation.device``, ``NodeDef.device``): XLA places the
        computation, and in a multi-process job every worker holds every variable
        (training/device_setter.py). As TF, a name or spec is merged field by field
        with what the inner scopes set (``/job:worker`` around ``/gpu:1`` gives
        ``/job:worker/device:GPU:1``) and written canonically (``/gpu:0`` is
        ``/device:GPU:0``); an empty name changes nothing; ``None`` ignores the
        enclosing scopes; a function is called with the op (its ``device`` already
        set by the inner scopes) and what it returns is recorded as is.

        Raises:
          ValueError: a name TF cannot parse (TF's message), when the scope is entered.
        """
        entry = device_name_or_function
        if isinstance(entry, (str, bytes)):
            entry = DeviceSpec.from_string(entry.decode() if isinstance(entry, bytes) else entry)
        stack = self._device_stack
        stack.append(entry)
        try:
            yield
        finally:
            stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        """Ops created inside are to live on ``op``'s device (``Graph.colocate_with``).

        Recorded only: XLA places the computation. ``op`` is an ``Operation``, a
        tensor or variable (its op), or a value TF converts to a constant (as TF,
        which then colocates with that new ``Const``). As TF, inside the block the
        enclosing ``tf.device`` scopes are set aside and an op created takes the
        device of the innermost colocation op that has one and the colocation
        groups of all of them, sorted, as its ``_class`` attribute
        (``Operation.colocation_groups()``, ``NodeDef`` attribute ``_class``).

        Raises:
          ValueError: ``op`` is ``None`` without ``ignore_existing=True`` (TF's message).
          TypeError: ``op`` converts to no tensor.
        """
        if op is None and not ignore_existing:
            raise ValueError(
                "Trying to reset colocation (op is None) but ignore_existing is not True"
            )
        target = None
        if op is not None:
            target = op if isinstance(op, Operation) else getattr(op, "op", None)
            if not isinstance(target, Operation):
                with self.as_default():
                    target = convert_to_tensor(op).op
        local = self._local
        saved = (
            getattr(local, "device_stack", None),
            getattr(local, "colocation", []),
            getattr(local, "lifted_devices", None),
        )
        # What TF's ``init_scope`` (a variable's creation) finds again: the innermost
        # device stack that is not empty.
        local.lifted_devices = saved[0] or saved[2]
        local.device_stack = []
        stack = [] if ignore_existing else list(saved[1])
        local.colocation = stack + ([target] if target is not None else [])
        try:
            yield
        finally:
            local.device_stack, local.colocation, local.lifted_devices = saved

    @contextlib.contextmanager
    def _init_scope_devices(self) -> Iterator[None]:
        """The device scopes a variable is created under (TF's ``init_scope``): inside
        ``colocate_with``, which sets them aside, the innermost non-empty ones again.

        Their functions run (a ``replica_device_setter``'s round robin advances for a
        slot made inside ``colocate_with(var)``, as in TF); the colocation still
        decides the device.
        """
        local = self._local
        lifted = getattr(local, "lifted_devices", None)
        if self._device_stack or not lifted:
            yield
            return
        local.device_stack = list(lifted)
        try:
            yield
        finally:
            local.device_stack = []

    @contextlib.contextmanager
    def container(self, container_name: str) -> Iterator[str]:
        """The resource container of the stateful ops created inside (``Graph.container``).

        Recorded only (``Graph._container``): jtrain's sessions keep one store of
        values per session, so containers group nothing.

        Yields:
          ``container_name``.
        """
        previous = getattr(self, "_container", "")
        self._container = container_name
        try:
            yield container_name
        finally:
            self._container = previous

    @property
    def _device_stack(self) -> list[Any]:
        stack = getattr(self._local, "device_stack", None)
        if stack is None:
            stack = self._local.device_stack = []
        return stack

    def _apply_device(self, op: Operation) -> None:
        """TF's ``_apply_device_functions``: the scopes innermost first, each merged
        with (a name or spec) or given (a function) what the inner ones set."""
        for entry in reversed(self._device_stack):
            if entry is None:
                break
            if isinstance(entry, DeviceSpec):
                if not entry.to_string():
                    continue  # TF's null merge
                inner = DeviceSpec.from_string(op._device)
                op._device = entry.make_merged_spec(inner).to_string()
                continue
            op._set_device(entry(op))

    def finalize(self) -> None:
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    @property
    def seed(self) -> int | None:
        """The graph-level random seed (``tf.set_random_seed`` sets it)."""
        return self._seed

    @seed.setter
    def seed(self, seed: int | None) -> None:
        self._seed = seed

    @property
    def version(self) -> int:
        """The number of operations created in the graph (grows with each op)."""
        return self._version

    @property
    def graph_def_versions(self) -> Any:
        """The ``VersionDef`` of this graph's ``GraphDef`` (TF 2.21's producer version)."""
        from adapters.v1.framework import graph_def

        return graph_def.versions()

    def as_graph_def(
        self,
        from_version: int | None = None,
        add_shapes: bool = False,
        use_pybind11_proto: bool = False,
    ) -> Any:
        """This graph as TF's ``GraphDef`` proto (for TensorBoard and ``.pbtxt``/``.pb`` files).

        Args:
          from_version: only the operations added once ``version`` had this value
            (default ``None``: all).
          add_shapes: give each node an ``_output_shapes`` attribute (default False).
          use_pybind11_proto: accepted, no effect (TF's choice of how its C++ graph
            becomes a Python proto; jtrain builds the proto in Python).

        Returns:
          A ``GraphDef`` (TF's wire format; see ``framework/graph_def.py`` for the
          op types of nodes TF's op library lacks).
        """
        from adapters.v1.framework import graph_def

        del use_pybind11_proto
        return graph_def.graph_def(self, from_version, add_shapes)

    @property
    def building_function(self) -> bool:
        """Always False: jtrain graphs are never function bodies."""
        return False

    @property
    def collections(self) -> list[str]:
        """The names of the collections this graph knows."""
        return list(self._collections)

    # -- collections -------------------------------------------------------------
    def add_to_collection(self, name: str, value: Any) -> None:
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: Any, value: Any) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name: str) -> list[Any]:
        return self._collections.setdefault(name, [])

    def get_collection(self, name: str, scope: str | None = None) -> list[Any]:
        items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [i for i in items if hasattr(i, "name") and pattern.match(i.name)]

    def get_all_collection_keys(self) -> list[str]:
        """The names of the collections used in this graph (empty ones included, as TF)."""
        return [k for k in self._collections if isinstance(k, str)]

    def clear_collection(self, name: str) -> None:
        self._check_not_finalized()
        self._collections.pop(name, None)


def _as_op(obj: Any) -> Operation:
    if isinstance(obj, Operation):
        return obj
    if isinstance(obj, Tensor):
        return obj.op
    op = getattr(obj, "op", None)
    if isinstance(op, Operation):
        return op
    raise TypeError(f"Can not convert {obj!r} to an Operation.")


_global_default_graph: Graph | None = None
_stack_local = threading.local()


def _default_graph_stack() -> list[Graph]:
    if not hasattr(_stack_local, "stack"):
        _stack_local.stack = []
    return _stack_local.stack


def get_default_graph() -> Graph:
    """The innermost ``as_default()`` graph of this thread, else the global default."""
    global _global_default_graph
    stack = _default_graph_stack()
    if stack:
        return stack[-1]
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph() -> None:
    """Replaces the global default graph (not allowed inside ``as_default()``)."""
    global _global_default_graph
    if _default_graph_stack():
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
            "cleared graph, exit the nesting and create a new graph."
        )
    _global_default_graph = Graph()


def add_to_collection(name: str, value: Any) -> None:
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Any, value: Any) -> None:
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: str | None = None) -> list[Any]:
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list[Any]:
    return get_default_graph().get_collection_ref(key)


def name_scope(name: str | None, default_name: str | None = None, values: Any = None):
    """``tf.compat.v1.name_scope(name, default_name=None, values=None)``."""
    graph = get_default_graph()
    if values:
        for v in values:
            g = getattr(v, "graph", None)
            if isinstance(g, Graph):
                graph = g
                break
    return graph.name_scope(name if name is not None else default_name)


def control_dependencies(control_inputs: Sequence[Any] | None):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function: Any):
    return get_default_graph().device(device_name_or_function)


def convert_to_tensor(
    value: Any,
    dtype: Any = None,
    name: str | None = None,
    preferred_dtype: Any = None,
    dtype_hint: Any = None,
) -> Tensor:
    """``tf.convert_to_tensor``: tensors and variables as they are, anything else a
    constant.

    Args:
      value: a tensor, variable, or a Python/NumPy value.
      dtype: the dtype the result must have (default ``None``: inferred).
      name: the name of a new constant (default ``None``: ``Const``).
      preferred_dtype: a soft preference where ``dtype`` is ``None`` (default
        ``None``): ``value`` converts to it where it can, else as without it (TF's
        ``tf.convert_to_tensor(2.5, preferred_dtype=tf.int32)`` is float32).
      dtype_hint: TF 2's name of ``preferred_dtype`` (default ``None``).

    Returns:
      The tensor.

    Raises:
      ValueError: a tensor of another dtype than ``dtype`` (its message prefixed
        with ``"{name}: "`` where ``name`` is given, as TF's), ``None``, or both
        ``preferred_dtype`` and ``dtype_hint`` given.
      TypeError: a value ``dtype`` cannot hold (a float for an integer dtype).
    """
    if dtype_hint is not None:
        if preferred_dtype is not None:
            raise ValueError("Cannot specify both 'preferred_dtype' and 'dtype_hint'.")
        preferred_dtype = dtype_hint
    if dtype is None and preferred_dtype is not None:
        try:  # TF tries the preferred dtype and falls back on TypeError/ValueError
            return convert_to_tensor(value, as_dtype(preferred_dtype), name)
        except (TypeError, ValueError):
            pass
    as_tensor = getattr(value, "_as_graph_tensor", None)
    if as_tensor is not None:
        tensor = as_tensor()  # a variable: its value, of its dtype
        if dtype is not None and as_dtype(dtype).base_dtype != tensor.dtype.base_dtype:
            kind = getattr(value, "dtype", tensor.dtype)
            raise ValueError(
                f"Incompatible type conversion requested to type '{as_dtype(dtype).name}' "
                f"for variable of type '{kind.name}'"
            )
        return tensor
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not None:
            dtype = as_dtype(dtype)
            if dtype.base_dtype != value.dtype.base_dtype:
                message = (
                    f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                    f"{value.dtype.name}: {value!r}"
                )  # TF prefixes a given name, even "" (a variable's message has none)
                raise ValueError(message if name is None else f"{name}: {message}")
        return value
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return _autopacked(value, dtype, name or "packed")
    from adapters.v1.ops.constant_op import constant

    return constant(value, dtype=dtype, name=name or "Const")


def _is_graph_tensor(value: Any) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_tensor")


# jtrain ops that stand for several ops in TF 2.21's graph of the same call, with the
# TF op types on the gradient's path: TF applies a ``gradient_override_map`` of one of
# those types to its part, which jtrain's one op cannot.
_TF_PARTS = {
    "ClipByValue": ("Maximum", "Minimum"),  # tf.clip_by_value
    "SigmoidCrossEntropyWithLogits": ("AddV2", "Exp", "Log1p", "Mul", "Neg", "Select", "Sub"),
    "SoftmaxCrossEntropyWithLogits": ("Reshape",),
}


def _refuse_overrides_of_parts(op: Operation, override_map: dict[str, str]) -> None:
    """Marks ``op`` so that ``tf.gradients`` through it raises NotImplementedError when
    ``override_map`` names the type of a TF op it stands for (``_TF_PARTS``): TF would
    use the user's gradient for that part, jtrain would silently not."""
    parts = [t for t in _TF_PARTS.get(op.type, ()) if t in override_map]
    if parts:
        op._gradient_error = (
            f"tf.gradients through {op.type} {op.name!r}: TF builds it from "
            f"{', '.join(_TF_PARTS[op.type])} ops, and the gradient_override_map around it "
            f"replaces the gradient of {', '.join(parts)}, which jtrain's single op cannot "
            "apply; create the op outside the gradient_override_map, or give its whole "
            "gradient with tf.custom_gradient."
        )


def _holds_tensor(value: Any) -> bool:
    """Whether nested lists/tuples ``value`` hold a tensor or variable somewhere."""
    return any(
        _holds_tensor(v) if isinstance(v, (list, tuple)) else _is_graph_tensor(v) for v in value
    )


def _first_tensor_dtype(value: Any) -> Any:
    for v in value:
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
        elif _is_graph_tensor(v):
            return convert_to_tensor(v).dtype
    return None


def _autopacked(value: Any, dtype: Any, name: str, cast: bool | None = None) -> Tensor:
    """TF's auto-packing: a (nested) list holding tensors, ``[tf.shape(x)[0], -1]``,
    becomes one tensor stacked from its items, Python numbers converted to the first
    tensor's dtype (or ``dtype``); the op is named ``packed`` as TF names it. As TF's
    ``_autopacking_conversion_function``, a ``dtype`` other than the first tensor's
    casts every tensor of another dtype to it (``cast``, decided on the whole list);
    with the first tensor's dtype, a tensor of another dtype is TF's TypeError."""
    from adapters.v1.framework.op_def import FUNCTIONS

    inferred = _first_tensor_dtype(value)
    if cast is None:
        cast = dtype is not None and inferred is not None and as_dtype(dtype) != inferred
    dtype = as_dtype(dtype) if dtype is not None else inferred
    items = []
    for v in value:
        if isinstance(v, (list, tuple)) and _holds_tensor(v):
            items.append(_autopacked(v, dtype, "packed", cast))
            continue
        if _is_graph_tensor(v):
            t = convert_to_tensor(v)
            if cast and t.dtype.base_dtype != dtype:
                t = FUNCTIONS["cast"](t, dtype)
            if t.dtype.base_dtype != dtype:
                raise TypeError(
                    f"Cannot convert a list containing a tensor of dtype {t.dtype} to {dtype} "
                    f"(Tensor is: {t!r})"
                )
            items.append(t)
        else:
            items.append(convert_to_tensor(v, dtype))
    return FUNCTIONS["stack"](items, name=name)


_install_operators()
