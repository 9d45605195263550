"""``tf.compat.v1.variable_scope``, ``get_variable`` and ``VariableScope``.

A variable scope prefixes the names of variables made with ``get_variable`` and
controls sharing: with ``reuse=True`` a name must already exist and is returned,
with ``reuse=False``/``None`` (inherited) it must not, and ``AUTO_REUSE`` creates
it on first use. Variables created by ``get_variable`` are named by the variable
scope alone (``scope/name``), whatever the name scope; the scope also opens a
name scope for the other ops, as TF does (re-entering a scope object opens a
new, uniquified name scope named by its last component, as TF's ``scope_1/``).

Scopes carry defaults for ``get_variable`` (initializer, regularizer,
partitioner, dtype, custom getter...); the stack of scopes and the counts that
make default names unique are per graph and per thread, as in TF.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops import init_ops
from adapters.v1.ops.constant_op import literal_array
from adapters.v1.ops.variables import Variable, VariableAggregation, VariableSynchronization

__all__ = [
    "AUTO_REUSE",
    "VariableScope",
    "variable_scope",
    "variable_op_scope",
    "get_variable",
    "get_local_variable",
    "get_variable_scope",
]


log = logging.getLogger(__name__)


class _ReuseMode:
    def __repr__(self) -> str:
        return "AUTO_REUSE"


AUTO_REUSE = _ReuseMode()


class VariableScope:
    """A variable scope: its name, reuse mode and the defaults of ``get_variable``.

    Args (TF's order and defaults):
      reuse: ``True``, ``None``/``False`` or ``AUTO_REUSE``.
      name: the scope's name (``"a/b"``).
      initializer, regularizer, caching_device, partitioner, custom_getter:
        defaults for ``get_variable`` in the scope.
      name_scope: the name scope opened with it (``original_name_scope``).
      dtype: the default dtype (float32).
      use_resource: accepted; jtrain variables behave as TF's ref variables.
      constraint: the default constraint.
    """

    def __init__(
        self,
        reuse: Any,
        name: str = "",
        initializer: Any = None,
        regularizer: Callable | None = None,
        caching_device: Any = None,
        partitioner: Callable | None = None,
        custom_getter: Callable | None = None,
        name_scope: str = "",
        dtype: Any = np.float32,
        use_resource: bool | None = None,
        constraint: Callable | None = None,
    ):
        self._reuse = reuse
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self) -> None:
        """Makes ``get_variable`` in this scope reuse (``reuse=True``) from now on."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self._initializer = initializer

    def set_dtype(self, dtype: Any) -> None:
        self._dtype = dtype

    def set_use_resource(self, use_resource: bool | None) -> None:
        self._use_resource = use_resource

    def set_regularizer(self, regularizer: Callable | None) -> None:
        self._regularizer = regularizer

    def set_caching_device(self, caching_device: Any) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner: Callable | None) -> None:
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter: Callable | None) -> None:
        self._custom_getter = custom_getter

    def get_collection(self, name: str) -> list[Any]:
        """The items of collection ``name`` whose names start with this scope's."""
        return ops.get_collection(name, self._name + "/" if self._name else "")

    def trainable_variables(self) -> list[Any]:
        return self.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self) -> list[Any]:
        return self.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self) -> list[Any]:
        return self.get_collection(ops.GraphKeys.LOCAL_VARIABLES)

    def get_variable(
        self,
        var_store: Any,
        name: str,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Callable | None = None,
        reuse: Any = None,
        trainable: bool | None = None,
        collections: Any = None,
        caching_device: Any = None,
        partitioner: Callable | None = None,
        validate_shape: bool = True,
        use_resource: bool | None = None,
        custom_getter: Callable | None = None,
        constraint: Callable | None = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
    ) -> Any:
        """Gets or creates ``name`` in this scope, with the scope's defaults (``var_store`` unused).

        Returns:
          The ``Variable`` (a ``PartitionedVariable`` when a partitioner applies).
        """
        if custom_getter is None:
            custom_getter = self._custom_getter
        # TF checks an explicit dtype against a value initializer's before defaults.
        if dtype is not None and initializer is not None and not callable(initializer):
            init_dtype = _initial_dtype(initializer)
            if init_dtype != ops.as_dtype(dtype).base_dtype:
                raise ValueError(
                    f"Initializer type '<dtype: '{init_dtype.name}'>' and explicit dtype "
                    f"'<dtype: '{ops.as_dtype(dtype).base_dtype.name}'>' don't match."
                )
        if reuse is None:
            reuse = self._reuse
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if initializer is None:
            initializer = self._initializer
        if constraint is None:
            constraint = self._constraint
        if dtype is None:
            dtype = self._dtype
        if use_resource is None:
            use_resource = self._use_resource
        if trainable is None:  # TF settles it before any custom getter sees it
            trainable = synchronization is None or (
                getattr(synchronization, "name", None) != "ON_READ"
                and synchronization != VariableSynchronization.ON_READ.value
            )
        full_name = f"{self._name}/{name}" if self._name else name
        kwargs = dict(
            shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
            reuse=reuse, trainable=trainable, collections=collections,
            caching_device=caching_device, partitioner=partitioner,
            validate_shape=validate_shape, use_resource=use_resource,
            synchronization=synchronization, aggregation=aggregation,
        )  # fmt: skip
        graph = ops.get_default_graph()
        with graph.name_scope(None):
            if custom_getter is None:
                return _true_getter(full_name, constraint=constraint, **kwargs)
            if not callable(custom_getter):
                raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
            if _accepts(custom_getter, "constraint"):
                kwargs["constraint"] = constraint
            return custom_getter(_true_getter, full_name, **kwargs)

    def __repr__(self) -> str:
        return f"<VariableScope {self._name!r} reuse={self._reuse}>"


def _accepts(fn: Callable, arg: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return arg in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


# -- per-graph, per-thread scope state ---------------------------------------------------
class _ScopeStore:
    """The current variable scope and the counts that make default names unique."""

    def __init__(self) -> None:
        self.current = VariableScope(False)
        self.counts: dict[str, int] = {}

    def open(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1

    def close_subscopes(self, name: str) -> None:
        prefix = name + "/"
        for k in self.counts:
            if k.startswith(prefix):
                self.counts[k] = 0

    def unique(self, prefix: str) -> str:
        """``prefix`` made unique among the scopes opened in the current one."""
        name = f"{self.current.name}/{prefix}" if self.current.name else prefix
        if not self.counts.get(name):
            return prefix
        i = 1
        while self.counts.get(f"{name}_{i}"):
            i += 1
        return f"{prefix}_{i}"


def _scope_store(graph: ops.Graph | None = None) -> _ScopeStore:
    local = (graph or ops.get_default_graph())._local
    if not hasattr(local, "variable_scope_store"):
        local.variable_scope_store = _ScopeStore()
    return local.variable_scope_store


def get_variable_scope() -> VariableScope:
    """The current variable scope (of the default graph, in this thread)."""
    return _scope_store().current


def _store(graph: ops.Graph) -> dict[str, Any]:
    """Variables made by ``get_variable`` in ``graph``, by full name."""
    if not hasattr(graph, "_var_store"):
        graph._var_store = {}
    return graph._var_store


def _wrap_custom_getter(custom_getter: Callable, old_getter: Callable | None) -> Callable:
    """A nested scope's getter runs first; its ``getter`` is the outer scope's."""
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped


@contextlib.contextmanager
def variable_scope(
    name_or_scope: Any,
    default_name: str | None = None,
    values: Any = None,
    initializer: Any = None,
    regularizer: Callable | None = None,
    caching_device: Any = None,
    partitioner: Callable | None = None,
    custom_getter: Callable | None = None,
    reuse: Any = None,
    dtype: Any = None,
    use_resource: bool | None = None,
    constraint: Callable | None = None,
    auxiliary_name_scope: bool = True,
) -> Iterator[VariableScope]:
    """Opens a variable scope (and a name scope) for ``get_variable``.

    Args:
      name_or_scope: a name or a ``VariableScope``; ``None`` uses ``default_name``
        made unique.
      default_name: the name when ``name_or_scope`` is None.
      values: tensors whose graph becomes the default (TF's check).
      initializer: the default ``initializer`` of ``get_variable`` inside (None: the enclosing
        scope's).
      regularizer: the default ``regularizer`` of ``get_variable`` inside (None: the enclosing
        scope's).
      caching_device: the default ``caching_device`` of ``get_variable`` inside (None: the enclosing
        scope's).
      partitioner: the default ``partitioner`` of ``get_variable`` inside (None: the enclosing
        scope's).
      dtype: the default ``dtype`` of ``get_variable`` inside (None: the enclosing
        scope's).
      use_resource: the default ``use_resource`` of ``get_variable`` inside (None: the enclosing
        scope's).
      constraint: the default ``constraint`` of ``get_variable`` inside (None: the enclosing
        scope's).
      custom_getter: wraps the enclosing scope's getter (it runs first).
      reuse: ``True``, ``AUTO_REUSE`` or ``None``/``False`` (inherit).
      auxiliary_name_scope: open a name scope too (default True).

    Raises:
      ValueError: neither ``name_or_scope`` nor ``default_name`` is given, or
        ``reuse=True`` without a name.
      TypeError: ``name_or_scope`` is neither a string nor a ``VariableScope``.
    """
    if name_or_scope is None and default_name is None:
        raise ValueError("If default_name is None then scope (name_or_scope) is required")
    if name_or_scope is not None and not isinstance(name_or_scope, (str, VariableScope)):
        raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
    if reuse is False:
        reuse = None  # TF: False does not turn reuse off inside a reusing scope
    graph = ops.get_default_graph()
    for v in values or ():
        g = getattr(v, "graph", None)
        if isinstance(g, ops.Graph):
            graph = g
            break
    with graph.as_default(), contextlib.ExitStack() as stack:
        store = _scope_store(graph)
        entered = None
        if not auxiliary_name_scope:
            current = graph.get_name_scope()
            entered = stack.enter_context(graph.name_scope(current + "/" if current else None))
        if name_or_scope is None:
            if reuse is True:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            if auxiliary_name_scope:
                entered = stack.enter_context(graph.name_scope(default_name))
            name_or_scope = store.unique(default_name)
        elif auxiliary_name_scope:
            last = (
                name_or_scope
                if isinstance(name_or_scope, str)
                else name_or_scope.name.split("/")[-1]
            )
            if last:
                entered = stack.enter_context(graph.name_scope(last))
        yield stack.enter_context(
            _pure_variable_scope(
                name_or_scope,
                old_name_scope=entered,
                reuse=reuse,
                initializer=initializer,
                regularizer=regularizer,
                caching_device=caching_device,
                partitioner=partitioner,
                custom_getter=custom_getter,
                dtype=dtype,
                use_resource=use_resource,
                constraint=constraint,
            )
        )


@contextlib.contextmanager
def _pure_variable_scope(
    name_or_scope: str | VariableScope,
    old_name_scope: str | None = None,
    reuse: Any = None,
    initializer: Any = None,
    regularizer: Callable | None = None,
    caching_device: Any = None,
    partitioner: Callable | None = None,
    custom_getter: Callable | None = None,
    dtype: Any = None,
    use_resource: bool | None = None,
    constraint: Callable | None = None,
) -> Iterator[VariableScope]:
    """Enters a variable scope without opening a name scope (TF's ``_pure_variable_scope``).

    ``old_name_scope`` becomes a new scope's ``original_name_scope`` (default: its
    name); a ``VariableScope`` keeps its own.
    """
    store = _scope_store()
    old = store.current
    if isinstance(name_or_scope, VariableScope):
        base = name_or_scope
        name = base.name
        scope_reuse = reuse if reuse else base.reuse
        name_scope = base.original_name_scope
        old_getter = base.custom_getter
        saved_counts = dict(store.counts)
    else:
        base = old
        name = f"{old.name}/{name_or_scope}" if old.name else name_or_scope
        scope_reuse = reuse or old.reuse
        name_scope = name_or_scope if old_name_scope is None else old_name_scope
        old_getter = old.custom_getter
        saved_counts = None
    scope = VariableScope(
        scope_reuse,
        name=name,
        initializer=base.initializer,
        regularizer=base.regularizer,
        caching_device=base.caching_device,
        partitioner=base.partitioner,
        custom_getter=base.custom_getter,
        name_scope=name_scope,
        dtype=base.dtype,
        use_resource=base.use_resource,
        constraint=constraint if constraint is not None else base.constraint,
    )
    for value, setter in (
        (initializer, scope.set_initializer),
        (regularizer, scope.set_regularizer),
        (caching_device, scope.set_caching_device),
        (partitioner, scope.set_partitioner),
        (dtype, scope.set_dtype),
        (use_resource, scope.set_use_resource),
    ):
        if value is not None:
            setter(value)
    if custom_getter is not None:
        scope.set_custom_getter(_wrap_custom_getter(custom_getter, old_getter))
    store.open(name)
    store.current = scope
    try:
        yield scope
    finally:
        if store.current is not scope:
            raise RuntimeError("Improper nesting of variable_scope.")
        if saved_counts is None:
            store.close_subscopes(name)
        else:
            store.counts = saved_counts
        store.current = old


def variable_op_scope(
    values: Any,
    name_or_scope: Any,
    default_name: str | None = None,
    initializer: Any = None,
    regularizer: Callable | None = None,
    caching_device: Any = None,
    partitioner: Callable | None = None,
    custom_getter: Callable | None = None,
    reuse: Any = None,
    dtype: Any = None,
    use_resource: bool | None = None,
    constraint: Callable | None = None,
) -> contextlib.AbstractContextManager[VariableScope]:
    """Deprecated (TF: use ``variable_scope``): ``variable_scope`` with ``values`` first."""
    log.warning(
        "tf.variable_op_scope(values, name, default_name) is deprecated, use "
        "tf.variable_scope(name, default_name, values)"
    )
    return variable_scope(
        name_or_scope,
        default_name=default_name,
        values=values,
        initializer=initializer,
        regularizer=regularizer,
        caching_device=caching_device,
        partitioner=partitioner,
        custom_getter=custom_getter,
        reuse=reuse,
        dtype=dtype,
        use_resource=use_resource,
        constraint=constraint,
    )


# -- get_variable ------------------------------------------------------------------------
def get_variable(
    name: str,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Callable | None = None,
    trainable: bool | None = None,
    collections: Any = None,
    caching_device: Any = None,
    partitioner: Callable | None = None,
    validate_shape: bool = True,
    use_resource: bool | None = None,
    custom_getter: Callable | None = None,
    constraint: Callable | None = None,
    synchronization: Any = VariableSynchronization.AUTO,
    aggregation: Any = VariableAggregation.NONE,
) -> Any:
    """Gets an existing variable of the current scope or creates a new one.

    The initializer is ``initializer``, else the scope's, else Glorot uniform for
    floats and zeros otherwise (TF's defaults); it may be an initializer, a
    callable ``(shape, dtype) -> value`` or a value (then ``shape`` is implied).
    A ``regularizer``'s loss goes to ``REGULARIZATION_LOSSES``; a
    ``custom_getter(getter, name, *args, **kwargs)`` replaces the scope's.

    Raises:
      ValueError: the variable exists and the scope does not reuse, or it does
        not exist and the scope reuses (``reuse=True``); or a shape mismatch.
    """
    return get_variable_scope().get_variable(
        None,
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        custom_getter=custom_getter,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


def get_local_variable(
    name: str,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Callable | None = None,
    trainable: bool = False,
    collections: Any = None,
    caching_device: Any = None,
    partitioner: Callable | None = None,
    validate_shape: bool = True,
    use_resource: bool | None = None,
    custom_getter: Callable | None = None,
    constraint: Callable | None = None,
    synchronization: Any = VariableSynchronization.AUTO,
    aggregation: Any = VariableAggregation.NONE,
) -> Any:
    """``get_variable`` for a *local* variable: in ``LOCAL_VARIABLES``, never trainable.

    ``trainable`` is accepted and ignored, as in TF.
    """
    collections = list(collections or []) + [ops.GraphKeys.LOCAL_VARIABLES]
    return get_variable(
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=False,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        custom_getter=custom_getter,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


def _true_getter(
    name: str,
    shape: Any = None,
    dtype: Any = np.float32,
    initializer: Any = None,
    regularizer: Callable | None = None,
    reuse: Any = None,
    trainable: bool | None = None,
    collections: Any = None,
    caching_device: Any = None,
    partitioner: Callable | None = None,
    validate_shape: bool = True,
    use_resource: bool | None = None,
    constraint: Callable | None = None,
    synchronization: Any = None,
    aggregation: Any = None,
) -> Any:
    """Gets or creates the variable ``name`` (a full name) with the sharing rules."""
    if partitioner is not None:
        from adapters.v1.ops import partitioned_variables

        return partitioned_variables.get_partitioned_variable(
            name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
            reuse=reuse, trainable=trainable, collections=collections,
            partitioner=partitioner, validate_shape=validate_shape, constraint=constraint,
            synchronization=synchronization, aggregation=aggregation, use_resource=use_resource,
            caching_device=caching_device,
        )  # fmt: skip
    return _true_getter_single(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        reuse=reuse, trainable=trainable, collections=collections,
        validate_shape=validate_shape, constraint=constraint,
        synchronization=synchronization, aggregation=aggregation, use_resource=use_resource,
        caching_device=caching_device,
    )  # fmt: skip


def _true_getter_single(
    name: str,
    shape: Any = None,
    dtype: Any = np.float32,
    initializer: Any = None,
    regularizer: Callable | None = None,
    reuse: Any = None,
    trainable: bool | None = None,
    collections: Any = None,
    validate_shape: bool = True,
    constraint: Callable | None = None,
    synchronization: Any = None,
    aggregation: Any = None,
    partition_info: Any = None,
    use_resource: bool | None = None,
    caching_device: Any = None,
) -> Variable:
    """Gets or creates the unpartitioned variable ``name`` (a full name); a new one is
    a resource variable when ``use_resource`` (None: ``tf.resource_variables_enabled()``),
    its ``value()`` read on ``caching_device`` when given (recorded only)."""
    graph = ops.get_default_graph()
    store = _store(graph)
    if name in store:
        if not reuse:
            raise ValueError(
                f"Variable {name} already exists, disallowed. Did you mean to set "
                "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
            )
        var = store[name]
        if shape is not None and tuple(shape) != var.shape:
            raise ValueError(
                f"Trying to share variable {name}, but specified shape {tuple(shape)} "
                f"and found shape {var.shape}."
            )
        if dtype is not None and not ops.as_dtype(dtype).is_compatible_with(var.dtype):
            raise ValueError(
                f"Trying to share variable {name}, but specified dtype "
                f"{ops.as_dtype(dtype).name} and found dtype {var.dtype.name}."
            )
        return var
    if reuse is True:
        raise ValueError(
            f"Variable {name} does not exist, or was not created with tf.get_variable(). "
            "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
        )
    var = _create_variable(
        name, shape, dtype, initializer, trainable, collections, constraint,
        synchronization, aggregation, validate_shape, partition_info, use_resource,
        caching_device,
    )  # fmt: skip
    store[name] = var
    if regularizer is not None:
        with graph.name_scope(name + "/Regularizer/"):
            loss = regularizer(var)
        if loss is not None:
            graph.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)
    return var


def _initial_dtype(initializer: Any) -> Any:
    """The dtype TF gives a variable made from the value ``initializer``."""
    if isinstance(initializer, ops.Tensor) or hasattr(initializer, "_as_graph_tensor"):
        return ops.convert_to_tensor(initializer).dtype.base_dtype
    return ops.as_dtype(literal_array(initializer).dtype)


def _create_variable(
    name: str,
    shape: Any,
    dtype: Any,
    initializer: Any,
    trainable: bool | None,
    collections: Any,
    constraint: Callable | None,
    synchronization: Any,
    aggregation: Any,
    validate_shape: bool = True,
    partition_info: Any = None,
    use_resource: bool | None = None,
    caching_device: Any = None,
) -> Variable:
    """A new ``Variable`` named ``name`` exactly, with TF's default initializers."""
    dtype = ops.as_dtype(dtype if dtype is not None else np.float32)
    init = initializer
    if init is None:
        if np.issubdtype(dtype, np.floating):
            init = init_ops.glorot_uniform_initializer()
        else:
            init = init_ops.zeros_initializer()
    if isinstance(init, type):
        init = init(dtype=dtype)  # TF accepts an initializer class
    if callable(init):
        if shape is None:
            raise ValueError(f"Shape of a new variable ({name}) must be fully defined")
        shape = tuple(int(d) for d in shape)
        if partition_info is not None:
            initial = lambda: init(shape, dtype=dtype, partition_info=partition_info)
        else:
            initial = lambda: init(shape, dtype=dtype)
    elif isinstance(init, ops.Tensor):
        if shape is not None:
            raise ValueError("If initializer is a constant, do not specify shape.")
        initial = init
        dtype = init.dtype.base_dtype  # TF: a value initializer decides the dtype
    else:
        initial = literal_array(init)  # TF's dtype for it: 0.5 float32, [1] int32...
        dtype = ops.as_dtype(initial.dtype)
        if shape is not None and tuple(shape) != initial.shape:
            raise ValueError(
                f"Initializer for {name} has shape {initial.shape}, not {tuple(shape)}"
            )
    graph = ops.get_default_graph()
    with graph.name_scope(None):
        return Variable(
            initial,
            trainable=trainable,
            collections=collections,
            validate_shape=validate_shape,
            name=name,
            dtype=dtype,
            constraint=constraint,
            synchronization=synchronization,
            aggregation=aggregation,
            use_resource=use_resource,
            caching_device=caching_device,
        )
