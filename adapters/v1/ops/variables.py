"""``tf.Variable`` and the variable collections' helpers.

A ``Variable`` is a named, mutable holder of a ``jax.Array`` whose value lives in
each ``Session`` (as in TF, a graph describes variables and sessions hold their
values). Reading it in a run gives its value at that point of the run's order;
``assign`` and friends are operations whose effect runs when a session runs them.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import dtypes, op_def, ops, runtime_checks, tensor_shape
from adapters.v1.framework.v2_compat import resource_variables_enabled
from adapters.v1.ops import control_flow_ops
from jtrain import errors

__all__ = [
    "Variable",
    "VariableAggregation",
    "VariableSynchronization",
    "variable_creator_scope",
    "initialize_local_variables",
    "initialize_variables",
    "count_up_to",
    "global_variables",
    "all_variables",
    "local_variables",
    "trainable_variables",
    "model_variables",
    "moving_average_variables",
    "global_variables_initializer",
    "local_variables_initializer",
    "variables_initializer",
    "initialize_all_variables",
    "report_uninitialized_variables",
    "is_variable_initialized",
    "assert_variables_initialized",
]


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (``tf.VariableSynchronization``).

    jtrain's variables are replicated and updated in one program, so the mode is
    recorded on the variable and only ``ON_READ`` changes a default (not trainable).
    """

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How replicas' updates to a variable combine (``tf.compat.v1.VariableAggregation``)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # TF's deprecated alias of ONLY_FIRST_REPLICA


def _sync_aggregation_trainable(synchronization, aggregation, trainable, name):
    """TF's defaults and checks for the three related variable arguments."""
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    else:
        try:
            aggregation = VariableAggregation(getattr(aggregation, "value", aggregation))
        except ValueError:
            raise ValueError(
                f"Invalid variable aggregation mode: {aggregation} for variable: {name}"
            ) from None
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    else:
        try:
            synchronization = VariableSynchronization(
                getattr(synchronization, "value", synchronization)
            )
        except ValueError:
            raise ValueError(
                f"Invalid variable synchronization mode: {synchronization} for variable: {name}"
            ) from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, trainable


class _VariableMeta(type):
    """Routes ``tf.Variable(...)`` through the active ``variable_creator_scope`` creators."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        creators = _creator_stack(ops.get_default_graph())
        if cls is not Variable or not creators:
            return super().__call__(*args, **kwargs)
        bound = _VARIABLE_SIGNATURE.bind(*args, **kwargs)
        bound.apply_defaults()
        make = lambda **kw: type.__call__(cls, **kw)
        for creator in creators:  # the innermost scope's creator is called first
            make = _chain(creator, make)
        return make(**bound.arguments)


def _chain(creator: Callable, next_creator: Callable) -> Callable:
    return lambda **kwargs: creator(next_creator, **kwargs)


def _creator_stack(graph: ops.Graph) -> list[Callable]:
    local = graph._local
    if not hasattr(local, "variable_creators"):
        local.variable_creators = []
    return local.variable_creators


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Callable) -> Iterator[None]:
    """Routes ``tf.Variable`` construction in the block through ``variable_creator``.

    Args:
      variable_creator: ``creator(next_creator, **kwargs)``; ``kwargs`` are
        ``Variable``'s arguments by name (``initial_value``, ``trainable``,
        ``name``, ``dtype``, ``shape``...); calling ``next_creator(**kwargs)``
        makes the variable (through outer scopes' creators first).

    Returns:
      A context manager (per graph and thread, as TF's).
    """
    stack = _creator_stack(ops.get_default_graph())
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.remove(variable_creator)


class Variable(metaclass=_VariableMeta):
    """A named, mutable value of the graph (``tf.compat.v1.Variable``).

    Args:
      initial_value: a value, a ``Tensor`` or a callable returning one; it sets the
        variable's shape and dtype unless ``shape``/``dtype`` say otherwise.
      trainable: add to ``TRAINABLE_VARIABLES`` (default True).
      collections: the collections to add to (default ``[GLOBAL_VARIABLES]``).
      validate_shape: if False, the shape may be unknown (not supported: jtrain
        needs static shapes; must be True).
      name: the op name (default ``"Variable"``), made unique in the graph.
      dtype: converts the initial value to this dtype.
      shape: the static shape (defaults to the initial value's).
      caching_device: the device of the ``/read`` op (``value()``), recorded only
        (default None: colocated with the variable).

    Devices are recorded as TF records them (``device``, ``op.device``, the
    ``_class`` colocation attribute, ``NodeDef.device``), never used: jtrain runs
    every variable on the JAX device. As TF, a variable's ``Assign`` and ``read``
    ops, and ops that write a ref variable (``assign``, ``scatter_*``), are
    colocated with its op (device and ``_class`` ``loc:@name``); a callable initial
    value (and a resource variable's) is built with no device, ``_class``
    ``loc:@name`` on its ops and on the variable's op.

    The value is read as ``var.value()`` (also what arithmetic on the variable
    uses); ``var.read_value()`` makes a fresh read that honours the active control
    dependencies.
    """

    _dtype: dtypes.DType  # the values' dtype (not a _ref), fixed at construction
    _shape: tuple[int, ...]  # fully known (validate_shape=False is not supported)

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool | None = None,
        collections: Any = None,
        validate_shape: bool = True,
        caching_device: Any = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: Any = None,
        expected_shape: Any = None,
        import_scope: str | None = None,
        constraint: Callable | None = None,
        use_resource: bool | None = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
        shape: Any = None,
    ):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if variable_def is not None:
            raise ValueError("variable_def is not supported by jtrain (no GraphDefs)")
        synchronization, aggregation, trainable = _sync_aggregation_trainable(
            synchronization, aggregation, trainable, name
        )
        trainable = bool(trainable)
        self._synchronization, self._aggregation = synchronization, aggregation
        graph = ops.get_default_graph()
        if collections is None:
            collections = [ops.GraphKeys.GLOBAL_VARIABLES]
        elif isinstance(collections, str) or not isinstance(collections, (list, tuple, set)):
            raise ValueError(
                f"collections argument to Variable constructor must be a list, tuple, "
                f"or set. Got {collections!r} of type {type(collections)}"
            )
        collections = list(collections)
        if trainable and ops.GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(ops.GraphKeys.TRAINABLE_VARIABLES)
        self._trainable = trainable
        # Only the dtype TF reports differs (float32 vs float32_ref): one read rule.
        self._resource = (
            resource_variables_enabled() if use_resource is None else bool(use_resource)
        )
        self._constraint = constraint
        self._graph = graph
        # Controls active where the variable is created don't apply to its ops; the
        # device scopes ``colocate_with`` set aside do (TF's ``init_scope``).
        with (
            graph.control_dependencies(None),
            graph._init_scope_devices(),
            graph.name_scope(name or "Variable") as scope,
        ):
            self._name = scope[:-1]
            # TF's ``_attr_scope({"_class": loc:@name})`` with ``device(None)`` around a
            # callable initial value (every initial value of a resource variable).
            first_op = len(graph._ops)
            from_fn = callable(initial_value) or self._resource
            with graph.device(None) if from_fn else contextlib.nullcontext():
                init = self._initial_tensor(initial_value, dtype)
            self._initial_value = init
            var_shape = init.shape if shape is None else tuple(shape)
            if var_shape is None or any(d is None for d in var_shape):
                raise ValueError(
                    f"Variable {self._name} needs a fully known shape, got {var_shape}"
                )
            if shape is not None and init.shape is not None and tuple(shape) != init.shape:
                raise ValueError(
                    f"Variable {self._name}: initial value shape {init.shape} is not "
                    f"compatible with shape {tuple(shape)}"
                )
            self._shape = tuple(var_shape)
            # The variable's own op, named as the variable (TF's VariableV2); its output
            # ``name:0`` reads the variable (TF's ref tensor), so
            # ``graph.get_tensor_by_name("w:0")`` and ``sess.run("w:0")`` work.
            self._variable_op = self._read_op(None)
            self._variable_op._variable = self
            if from_fn:
                group = [f"loc:@{self._name}".encode()]
                for op in graph._ops[first_op:]:
                    if op._class is None:
                        op._class = list(group)
            self._caching_device = caching_device
            device = self._variable_op.device
            if self._resource:  # TF: the handle's device, no colocation
                with graph.colocate_with(None, ignore_existing=True), graph.device(device):
                    self._initializer_op = self._assign_op(init, "Assign")
                if caching_device is not None:
                    with graph.colocate_with(None, ignore_existing=True):
                        with graph.device(caching_device):
                            self._snapshot = self._read_op("read")
                else:
                    with graph.device(device):
                        self._snapshot = self._read_op("read")
            else:
                self._initializer_op = self._assign_op(init, "Assign")
                if caching_device is not None:
                    with graph.device(caching_device):
                        self._snapshot = self._read_op("read")
                else:
                    with graph.colocate_with(self._variable_op):
                        self._snapshot = self._read_op("read")
        graph.add_to_collections(collections, self)

    def _initial_tensor(self, initial_value: Any, dtype: Any) -> ops.Tensor:
        """The initial value as a tensor of the variable's dtype (sets ``_dtype``)."""
        graph = self._graph
        if callable(initial_value):
            with graph.name_scope("Initializer"):
                initial_value = initial_value()
        if dtype is not None and not isinstance(initial_value, ops.Tensor):
            initial_value = np.asarray(initial_value, dtype=ops.as_dtype(dtype))
        init = ops.convert_to_tensor(initial_value, dtype=None, name="initial_value")
        self._dtype = (init.dtype if dtype is None else ops.as_dtype(dtype)).base_dtype
        if init.dtype != self._dtype:
            from adapters.v1.ops.script_ops import lift

            target = self._dtype
            init = lift(lambda x: x.astype(target), [init], name="Cast")
        return init

    def _colocated(self) -> contextlib.AbstractContextManager[None]:
        """Where an op writing the variable is made: as TF's ops with a ref input,
        colocated with a ref variable's op; a resource variable's in the current scopes."""
        if self._resource:
            return contextlib.nullcontext()
        return self._graph.colocate_with(self._variable_op)

    # -- ops --------------------------------------------------------------------
    def _read_op(self, name: str | None) -> Any:
        """A read of the variable: ``Identity`` op ``name``'s output, or, for ``None``, the
        variable's own ``VariableV2`` op (returned as the op)."""
        var = self

        def compute(ctx):
            return (ctx.read(var),)

        op = self._graph.create_op(
            "Identity" if name is not None else "VariableV2",
            name if name is not None else self._name,
            compute=compute,
            output_specs=[(self._shape, self._dtype)],
            exact_name=name is None,
        )
        op._reads = (self,)
        op._read_of = self
        return op.outputs[0] if name is not None else op

    def _assigned_value(self, value: Any, kind: str) -> ops.Tensor:
        """``value`` converted as TF converts an assignment's: to the variable's dtype
        (a resource variable: ``convert_to_tensor(value, dtype)``; a ref variable: as
        op_def_library converts ``Assign``'s ``value`` input).

        Raises:
          TypeError: a tensor of another dtype, or a Python value the dtype cannot hold
            (a float for an integer variable), with TF's message.
          ValueError: (a resource variable) a tensor of another dtype (TF's message).
        """
        dtype = self.dtype.base_dtype
        if self._resource:
            return ops.convert_to_tensor(value, dtype)
        op_type = _ASSIGN_OP_TYPES.get(kind, "Assign")
        return op_def.convert_input(op_type, "value", value, dtype, "ref")

    def _assign_op(
        self,
        value: Any,
        name: str,
        combine: Callable[[Any, Any], Any] | None = None,
        kind: str = "set",
        exact_name: bool = False,
    ) -> ops.Tensor:
        var = self
        value = self._assigned_value(value, kind)
        if value.graph is not self._graph:
            raise ValueError(
                f"assign value {value.name} must be from the same graph as {self.name}"
            )
        static = value._shape
        if combine is None and static is not None and not _compatible(static, self._shape):
            raise ValueError(_shape_mismatch(self._shape, static, name))
        # A value of partly known shape ((?, 4)) is checked when the run knows it (TF).
        checked = combine is None and (static is None or None in static)

        def compute(ctx, new):
            new = jnp.asarray(new)
            if checked and tuple(new.shape) != var._shape:
                runtime_checks.check(ctx, op, False, np.asarray(new.shape, np.int64))
                return (ctx.read(var),)  # the variable keeps its value
            if combine is not None:
                new = combine(ctx.read(var), new)
            new = jnp.broadcast_to(new, var._shape).astype(var._dtype)
            ctx.write(var, new)
            return (new,)

        with self._colocated():
            op = self._graph.create_op(
                {"set": "Assign", "add": "AssignAdd", "sub": "AssignSub"}[kind],
                name,
                inputs=[value],
                compute=compute,
                output_specs=[(self._shape, self._dtype)],
                exact_name=exact_name,
            )
        op._writes = (self,)
        op._assigns = (kind, value)
        if combine is not None or checked:
            op._reads = (self,)
        if checked:
            lhs = ",".join(map(str, self._shape))
            runtime_checks.mark(
                op,
                lambda rhs: errors.InvalidArgumentError(
                    None,
                    op,
                    "Assign requires shapes of both tensors to match. lhs shape= "
                    f"[{lhs}] rhs shape= [{','.join(map(str, rhs.tolist()))}]",
                ),
            )
        return op.outputs[0]

    @property
    def name(self) -> str:
        return self._name + ":0"

    @property
    def op(self) -> ops.Operation:
        return self._variable_op

    @property
    def device(self) -> str:
        """The device of the variable's op (TF's ``Variable.device``; "" if none).

        Recorded only: jtrain runs every variable on the JAX device.
        """
        return self._variable_op.device

    @property
    def graph(self) -> ops.Graph:
        return self._graph

    @property
    def dtype(self) -> dtypes.DType:
        """``float32_ref`` for TF1's ref variables, ``float32`` for resource variables."""
        return self._dtype if self._resource else self._dtype._as_ref

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape, a ``TensorShape``."""
        return tensor_shape.TensorShape(self._shape)

    def get_shape(self) -> tensor_shape.TensorShape:
        """The static shape (same as ``shape``)."""
        return self.shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def initializer(self) -> ops.Operation:
        """The operation that assigns the initial value."""
        return self._initializer_op.op

    @property
    def initial_value(self) -> ops.Tensor:
        return self._initial_value

    @property
    def constraint(self) -> Callable | None:
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        return self._aggregation

    def value(self) -> ops.Tensor:
        """The variable's value in a run (one read per run, shared by its users)."""
        return self._snapshot

    def read_value(self) -> ops.Tensor:
        """A new read, ordered after the active control dependencies."""
        with ops.name_scope(self._name + "/"):
            return self._read_op("Read/ReadVariableOp")

    def initialized_value(self) -> ops.Tensor:
        """The value if initialized, else the initial value (for dependent initializers)."""
        var = self

        def compute(ctx, init):
            return (ctx.read(var) if ctx.is_initialized(var) else init,)

        with ops.name_scope(self._name + "/"):
            op = self._graph.create_op(
                "InitializedValue",
                "initialized_value",
                inputs=[self._initial_value],
                compute=compute,
                output_specs=[(self._shape, self._dtype)],
            )
        op._reads = (self,)
        return op.outputs[0]

    def _user_assign(
        self,
        value: Any,
        name: str | None,
        kind: str,
        combine: Callable[[Any, Any], Any] | None = None,
    ) -> ops.Tensor:
        """``assign``/``assign_add``/``assign_sub``'s op. A ref variable's is made as
        TF's generated op function makes it: a name scope ``name`` (default the op
        type, ``Assign``) in the current name scope, a Python value converted in it as
        ``<scope>/value``, the op named after the scope (``Assign``, ``Assign_1``...).
        A resource variable's keeps its ``<var>/<OpType>`` name."""
        op_type = _ASSIGN_OP_TYPES[kind]
        if self._resource:
            default = f"{self._name}/Assign_1" if kind == "set" else f"{self._name}/{op_type}"
            return self._assign_op(value, name or default, combine, kind)
        with self._graph.name_scope(name or op_type) as scope:
            if _literal(value):
                try:
                    value = ops.convert_to_tensor(value, self._dtype, name="value")
                except (TypeError, ValueError):
                    pass  # converted again below, raising op_def_library's error
            return self._assign_op(value, scope[:-1], combine, kind, exact_name=True)

    def assign(
        self, value: Any, use_locking: bool = False, name: str | None = None, read_value=True
    ):
        """An op setting the variable to ``value`` (TF's ``Assign``; see ``_user_assign``
        for its name).

        Returns:
          The new value (a Tensor), or the assignment ``Operation`` when
          ``read_value`` is False.
        """
        return _maybe_op(self._user_assign(value, name, "set"), read_value)

    def assign_add(
        self, delta: Any, use_locking: bool = False, name: str | None = None, read_value=True
    ):
        """An op adding ``delta``; the new value, or the op when ``read_value`` is False."""
        return _maybe_op(self._user_assign(delta, name, "add", lambda a, b: a + b), read_value)

    def assign_sub(
        self, delta: Any, use_locking: bool = False, name: str | None = None, read_value=True
    ):
        """An op subtracting ``delta``; the new value, or the op when ``read_value`` is False."""
        return _maybe_op(self._user_assign(delta, name, "sub", lambda a, b: a - b), read_value)

    # -- sparse updates ---------------------------------------------------------------
    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name=None):
        """Sets the rows ``sparse_delta.indices`` to ``sparse_delta.values``.

        Args:
          sparse_delta: an ``IndexedSlices`` (``values``, ``indices``).
          use_locking: accepted (each run's updates are applied in one program).
          name: the op's name (default ``"ScatterUpdate"``).

        Returns:
          The variable's new value.

        Raises:
          TypeError: ``sparse_delta`` is not an ``IndexedSlices``.
          InvalidArgumentError: (at run time) an index outside ``[0, rows)``, with
            TF's message (the in-range rows of that run are written; TF stops at
            the bad index). The other scatters check their indices alike.
        """
        return self._scatter("ScatterUpdate", "set", sparse_delta, name)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name=None):
        """Adds ``sparse_delta.values`` to the rows ``sparse_delta.indices`` (duplicates add)."""
        return self._scatter("ScatterAdd", "add", sparse_delta, name)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name=None):
        """Subtracts ``sparse_delta.values`` from the rows ``sparse_delta.indices``."""
        return self._scatter("ScatterSub", "sub", sparse_delta, name)

    def scatter_mul(self, sparse_delta: Any, use_locking: bool = False, name=None):
        """Multiplies the rows ``sparse_delta.indices`` by ``sparse_delta.values``."""
        return self._scatter("ScatterMul", "multiply", sparse_delta, name)

    def scatter_div(self, sparse_delta: Any, use_locking: bool = False, name=None):
        """Divides the rows ``sparse_delta.indices`` by ``sparse_delta.values``."""
        return self._scatter("ScatterDiv", "divide", sparse_delta, name)

    def scatter_max(self, sparse_delta: Any, use_locking: bool = False, name=None):
        """The rows ``sparse_delta.indices`` become their maximum with ``sparse_delta.values``."""
        return self._scatter("ScatterMax", "max", sparse_delta, name)

    def scatter_min(self, sparse_delta: Any, use_locking: bool = False, name=None):
        """The rows ``sparse_delta.indices`` become their minimum with ``sparse_delta.values``."""
        return self._scatter("ScatterMin", "min", sparse_delta, name)

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None):
        """Sets the elements (or slices) at the N-d ``indices`` (last axis) to ``updates``."""
        return self._scatter_nd("ScatterNdUpdate", "set", indices, updates, name)

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None):
        """Adds ``updates`` at the N-d ``indices`` (duplicates add)."""
        return self._scatter_nd("ScatterNdAdd", "add", indices, updates, name)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None):
        """Subtracts ``updates`` at the N-d ``indices``."""
        return self._scatter_nd("ScatterNdSub", "sub", indices, updates, name)

    def _scatter(self, op_type: str, mode: str, sparse_delta: Any, name: str | None):
        if not (hasattr(sparse_delta, "values") and hasattr(sparse_delta, "indices")):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return self._update(op_type, mode, sparse_delta.indices, sparse_delta.values, name, None)

    def _scatter_nd(self, op_type: str, mode: str, indices: Any, updates: Any, name):
        return self._update(op_type, mode, indices, updates, name, "nd")

    def _update(self, op_type, mode, indices, updates, name, kind) -> ops.Tensor:
        """An op applying ``updates`` at ``indices`` with ``.at[...].<mode>``."""
        var = self
        indices = ops.convert_to_tensor(indices)
        if isinstance(updates, ops.Tensor) or hasattr(updates, "_as_graph_tensor"):
            updates = ops.convert_to_tensor(updates)
        else:  # a Python value takes the variable's dtype (TF's rule for literals)
            from adapters.v1.framework.op_def import convert_operand

            updates = convert_operand(updates, self._snapshot)
        for t in (indices, updates):
            if t.graph is not self._graph:
                raise ValueError(
                    f"{op_type} input {t.name} must be from the same graph as {self.name}"
                )
        self._check_update(op_type, indices, updates, kind)
        dims = tuple(int(d) for d in self._shape)

        def compute(ctx, idx, upd):
            old = ctx.read(var)
            idx = jnp.asarray(idx)
            inside = _inside(idx, dims, kind)
            runtime_checks.check(ctx, op, jnp.all(inside), idx, inside)
            where = tuple(jnp.moveaxis(idx, -1, 0)) if kind == "nd" else idx
            upd = jnp.asarray(upd, dtype=old.dtype)
            at = old.at[where]
            if mode == "divide" and kind is None:
                new = _divide_rows(old, idx, upd)
            elif mode == "sub":
                new = at.add(-upd, mode="drop", wrap_negative_indices=False)
            else:
                new = getattr(at, mode)(upd, mode="drop", wrap_negative_indices=False)
            ctx.write(var, new)
            return (new,)

        with self._colocated():
            op = self._graph.create_op(
                op_type,
                name or op_type,
                inputs=[indices, updates],
                compute=compute,
                output_specs=[(self._shape, self._dtype)],
            )
        op._writes = (self,)
        op._reads = (self,)
        runtime_checks.mark(op, lambda idx, inside: _outside_error(op, idx, inside, dims))
        return op.outputs[0]

    def _check_update(self, op_type: str, indices: ops.Tensor, updates: ops.Tensor, kind):
        """TF's build-time checks of a scatter's dtypes and shapes (TypeError, ValueError)."""
        if np.dtype(indices._np_dtype).name not in ("int32", "int64"):
            raise TypeError(
                f"Value passed to parameter 'indices' has DataType {indices.dtype.name} not in "
                "list of allowed values: int32, int64"
            )
        if updates.dtype.base_dtype != self._dtype:
            raise TypeError(
                f"Input 'updates' of '{op_type}' Op has type {updates.dtype.name} that does not "
                f"match type {self._dtype.name} of argument 'ref'."
            )
        ishape, ushape = indices._shape, updates._shape
        if ishape is None or ushape is None or ushape == ():
            return
        if kind == "nd":
            depth = ishape[-1] if ishape else None
            if depth is None:
                return
            expected = (*ishape[:-1], *self._shape[depth:])
        else:
            expected = (*ishape, *self._shape[1:])
        fits = len(expected) == len(ushape) and all(
            a is None or b is None or a == b for a, b in zip(expected, ushape, strict=True)
        )
        if not fits:
            raise ValueError(
                f"{op_type} on {self._name}: updates of shape {list(ushape)} do not fit "
                f"indices of shape {list(ishape)} into a variable of shape "
                f"{list(self._shape)}; updates must have shape {list(expected)} (or be a scalar)"
            )

    def count_up_to(self, limit: int) -> ops.Tensor:
        """An op incrementing the (integer) variable until ``limit``; its output is the old value.

        Runs on the host, before the step's program, reading and writing the
        value under the session's variable-store lock.

        Raises:
          OutOfRangeError: (at run time) the value has reached ``limit``; the
            variable is then unchanged.
          FailedPreconditionError: (at run time) the variable is uninitialized.
        """
        if not np.issubdtype(self._dtype, np.integer):
            raise TypeError(
                f"Value passed to parameter 'ref' has DataType {self._dtype.name} not in list "
                "of allowed values: int32, int64"
            )
        var, limit = self, int(limit)

        def compute(session):
            store = session.variable_store
            with store.locked():  # read and increment as one change
                count = np.asarray(store.read(var), dtype=var.dtype)
                if count >= limit:
                    raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
                store.write(var, count + 1)
            return (count,)

        with self._colocated():
            op = self._graph.create_op(
                "CountUpTo",
                "CountUpTo",
                compute=compute,
                output_specs=[((), self._dtype)],
                host="pre",
            )
        return op.outputs[0]

    def load(self, value: Any, session: Any = None) -> None:
        """Writes ``value`` into the variable in ``session`` (the default one if None)."""
        from adapters.v1.client.session import _session_for

        sess = _session_for(session, self._graph)
        arr = np.asarray(value)
        if arr.shape != self._shape:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"cannot load value of shape {arr.shape} into {self.name} of shape {self._shape}",
            )
        sess.variable_store.write(self, arr)

    def eval(self, session: Any = None) -> Any:
        return self._snapshot.eval(session=session)

    def _as_graph_tensor(self) -> ops.Tensor:
        """The tensor standing for the variable where it is used as a value.

        Outside ``control_dependencies`` this is the one read per run (``value()``);
        inside, a fresh read ordered after the controls, as TF reads a variable when
        the op using it runs.
        """
        if self._graph._control_stack:
            return self.read_value()
        return self._snapshot

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    # Identity semantics, with C-level hashing (no Python call per dict lookup).
    __hash__ = object.__hash__
    __eq__ = object.__eq__


def _inside(indices: Any, shape: tuple[int, ...], kind: str | None) -> Any:
    """Per index (row of an N-d index), whether it addresses an element of ``shape``."""
    if kind == "nd":
        bounds = jnp.asarray(shape[: indices.shape[-1]], indices.dtype)
        return jnp.all((indices >= 0) & (indices < bounds), axis=-1)
    return (indices >= 0) & (indices < shape[0])


def _compatible(shape: tuple, known: tuple) -> bool:
    """Whether a static shape (``None`` dimensions unknown) can be ``known``'s."""
    if len(shape) != len(known):
        return False
    return all(a is None or a == b for a, b in zip(shape, known, strict=True))


def _outside_error(
    op: ops.Operation, indices: np.ndarray, inside: np.ndarray, shape: tuple[int, ...]
) -> errors.OpError:
    """TF's error for a scatter's first index outside the variable (its CPU kernel's words)."""
    i = int(np.argmin(inside.reshape(-1)))
    if inside.ndim < indices.ndim:  # N-d: one index per row of the last axis
        row = indices.reshape(-1, indices.shape[-1])[i]
        where = ", ".join(str(int(v)) for v in row)
        dims = ",".join(str(d) for d in shape)
        message = f"indices[{i}] = [{where}] does not index into shape [{dims}]"
    else:
        message = f"indices[{i}] = {int(indices.reshape(-1)[i])} is not in [0, {shape[0]})"
    return errors.InvalidArgumentError(None, op, message)


def _divide_rows(old: Any, indices: Any, updates: Any) -> Any:
    """``old`` with its rows ``indices`` divided by ``updates``, one update after another.

    TF divides a row by each of its updates in turn (``x / a / b`` for a row given
    twice); JAX's ``.at[].divide`` divides once by their product, which rounds
    differently. Rows outside ``old`` are dropped.
    """
    rows = indices.reshape(-1)
    updates = jnp.broadcast_to(updates, (*indices.shape, *old.shape[1:]))
    updates = updates.reshape(rows.shape[0], *old.shape[1:])

    def divide_one(i: Any, x: Any) -> Any:
        row = x.at[rows[i]].get(mode="clip")
        quotient = jax.lax.div(row, updates[i])  # integers: truncated, as TF's
        return x.at[rows[i]].set(quotient, mode="drop", wrap_negative_indices=False)

    return jax.lax.fori_loop(0, rows.shape[0], divide_one, old)


def _shape_mismatch(shape: tuple, value_shape: tuple, name: str) -> str:
    """TF's shape-inference message for an ``Assign`` of ``value_shape`` to a variable
    of ``shape`` (the node named without its attributes and inputs)."""

    dims = tensor_shape.dims_text
    where = f"for '{{{{node {name}}}}}' with input shapes: {dims(shape)}, {dims(value_shape)}."
    if len(shape) != len(value_shape):
        return f"Shapes must be equal rank, but are {len(shape)} and {len(value_shape)} {where}"
    pairs = enumerate(zip(shape, value_shape, strict=True))
    i, a, b = next((i, a, b) for i, (a, b) in pairs if b is not None and a != b)
    return (
        f"Dimension {i} in both shapes must be equal, but are {a} and {b}. Shapes are "
        f"{dims(shape)} and {dims(value_shape)}. {where}"
    )


# TF's op types of a ref variable's assignments, by ``_assign_op``'s ``kind``.
_ASSIGN_OP_TYPES = {"set": "Assign", "add": "AssignAdd", "sub": "AssignSub"}


def _literal(value: Any) -> bool:
    """Whether ``value`` is a Python/NumPy value holding no tensor (an assignment's
    value TF converts to a ``value`` constant in the op's name scope)."""
    if isinstance(value, (list, tuple)):
        return all(_literal(v) for v in value)
    return isinstance(value, (bool, int, float, complex, str, bytes, np.ndarray, np.generic))


def _maybe_op(value: ops.Tensor, read_value: bool) -> ops.Tensor | ops.Operation:
    return value if read_value else value.op


def count_up_to(ref: Variable, limit: int, name: str | None = None) -> ops.Tensor:
    """Deprecated (TF: use ``Variable.count_up_to``): ``ref.count_up_to(limit)``."""
    return ref.count_up_to(limit)


def _delegate_operators() -> None:
    """Arithmetic on a Variable is arithmetic on its value."""
    for attr in dir(ops.Tensor):
        if attr.startswith("__") and attr.endswith("__") and attr[2:-2] in _OPERATORS:
            setattr(Variable, attr, _make_delegate(attr))


_OPERATORS = {
    "add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
    "rfloordiv", "mod", "rmod", "pow", "rpow", "matmul", "rmatmul", "neg", "abs",
    "getitem", "lt", "le", "gt", "ge", "and", "rand", "or", "ror", "xor", "rxor", "invert",
}  # fmt: skip


def _make_delegate(attr: str):
    def method(self, *args):
        return getattr(self._as_graph_tensor(), attr)(*args)

    method.__name__ = attr
    return method


_delegate_operators()
Variable.__array_priority__ = 100
Variable._save_slice_info = None  # set on the slices of a partitioned variable
_VARIABLE_SIGNATURE = inspect.signature(Variable.__init__).replace(
    parameters=list(inspect.signature(Variable.__init__).parameters.values())[1:]
)


# -- collections -----------------------------------------------------------------
def global_variables(scope: str | None = None) -> list[Variable]:
    return ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


def local_variables(scope: str | None = None) -> list[Variable]:
    return ops.get_collection(ops.GraphKeys.LOCAL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list[Variable]:
    return ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list[Variable]:
    return ops.get_collection(ops.GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: str | None = None) -> list[Variable]:
    return ops.get_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list: list[Variable], name: str = "init") -> ops.Operation:
    """One op running the initializers of ``var_list`` (a no-op when empty)."""
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


def global_variables_initializer() -> ops.Operation:
    return variables_initializer(global_variables())


initialize_all_variables = global_variables_initializer


def local_variables_initializer() -> ops.Operation:
    return variables_initializer(local_variables())


def initialize_variables(var_list: list[Variable], name: str = "init") -> ops.Operation:
    """Deprecated alias of ``variables_initializer`` (TF: use that instead)."""
    return variables_initializer(var_list, name=name)


def initialize_local_variables() -> ops.Operation:
    """Deprecated alias of ``local_variables_initializer`` (TF: use that instead)."""
    return local_variables_initializer()


def is_variable_initialized(variable: Variable) -> ops.Tensor:
    """A boolean tensor: whether ``variable`` holds a value in the running session."""

    def compute(ctx):
        return (np.bool_(ctx.is_initialized(variable)),)

    op = variable.graph.create_op(
        "IsVariableInitialized", "IsVariableInitialized", compute=compute,
        output_specs=[((), np.dtype(bool))],
    )  # fmt: skip
    return op.outputs[0]


def report_uninitialized_variables(
    var_list: list[Variable] | None = None, name: str = "report_uninitialized_variables"
) -> ops.Tensor:
    """A 1-D string tensor of the names of uninitialized variables (op names, as TF)."""
    graph = ops.get_default_graph()

    def compute(ctx):
        vs = var_list if var_list is not None else global_variables() + local_variables()
        names = [v.op.name for v in vs if not ctx.is_initialized(v)]
        return (np.array([n.encode() for n in names], dtype=object),)

    return graph.create_op(
        "ReportUninitialized", name, compute=compute, output_specs=[((None,), np.dtype(object))]
    ).outputs[0]


def assert_variables_initialized(var_list: list[Variable] | None = None) -> ops.Operation:
    """An op that fails with ``FailedPreconditionError`` if a variable is uninitialized."""
    graph = ops.get_default_graph()

    def compute(ctx):
        vs = var_list if var_list is not None else global_variables()
        for v in vs:
            ctx.read(v)
        return ()

    return graph.create_op(
        "AssertVariablesInitialized", "assert_variables_initialized", compute=compute
    )


def _install_save_slice_info() -> None:
    """``Variable.SaveSliceInfo`` (TF's name), defined with the partitioned variables."""
    from adapters.v1.ops.partitioned_variables import SaveSliceInfo

    Variable.SaveSliceInfo = SaveSliceInfo


_install_save_slice_info()


def _imported_variable(
    variable_op: ops.Operation, dtype: Any, shape: Any, trainable: bool = True
) -> Variable:
    """A ``Variable`` around an imported ``VariableV2`` node (``import_meta_graph``).

    Its initializer, snapshot and initial value are set by the importer once their
    nodes exist (``_initializer_op``, ``_snapshot``, ``_initial_value``); until then
    they are ``None``.
    """
    var = object.__new__(Variable)
    var._synchronization = VariableSynchronization.AUTO
    var._aggregation = VariableAggregation.NONE
    var._trainable = bool(trainable)
    var._resource = False
    var._constraint = None
    var._caching_device = None
    var._graph = variable_op.graph
    var._name = variable_op.name
    var._dtype = ops.as_dtype(dtype).base_dtype
    var._shape = tuple(int(d) for d in shape)
    var._variable_op = variable_op
    var._initializer_op = None
    var._snapshot = None
    var._initial_value = None
    variable_op._variable = var
    return var
