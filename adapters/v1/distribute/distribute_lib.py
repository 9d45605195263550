"""``tf.distribute``'s core: ``Strategy``, ``StrategyExtended``, ``ReplicaContext``, contexts.

A TF1 graph is always under some strategy. Outside any ``strategy.scope()`` it is the
*default strategy* (``tf.distribute.get_strategy()``): one replica, no wrapping,
``in_cross_replica_context()`` False and ``get_replica_context()`` the default replica
context. Inside ``scope()`` the graph is in the strategy's *cross-replica context*;
inside ``strategy.run(fn)`` ``fn`` runs in a *replica context*, from which
``ReplicaContext.merge_call`` goes back to cross-replica context. The contexts are
kept per graph, as TF keeps them.

jtrain's strategies have one replica (``num_replicas_in_sync == 1``), which is what
``MirroredStrategy()`` gives on a machine without GPUs: ``run`` calls the step
function once and returns its values, ``reduce`` of one replica's value is that value
(a ``MEAN`` over an ``axis`` divides by its size), ``experimental_local_results`` is a
1-tuple. Variables created under ``scope()`` are the graph's variables, with their
names, collections and checkpoint keys (TF wraps each in a ``MirroredVariable`` of one
component, whose ``name`` and checkpoint key are the component's).

.. note:: TF's ``MirroredStrategy`` and ``OneDeviceStrategy`` create *resource*
   variables even in classic TF1 graphs; jtrain's variables keep TF1's reference
   semantics, which give the same values in a step, except where TF's own result is
   a race: a resource variable fetched in the run that updates it, with no control
   dependency between the two, is read before or after the update as TF's executor
   happens to schedule it.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from adapters.v1 import nest
from adapters.v1.distribute.reduce_util import ReduceOp, as_reduce_op
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.indexed_slices import IndexedSlices
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.framework.scopes import colocate_with
from adapters.v1.ops import array_ops, control_flow_ops
from adapters.v1.ops.constant_op import constant

__all__ = [
    "InputContext",
    "InputReplicationMode",
    "ReplicaContext",
    "RunOptions",
    "Strategy",
    "StrategyExtended",
    "experimental_set_strategy",
    "get_loss_reduction",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]

_CROSS_REPLICA_ONLY = (
    "Method requires being in cross-replica context, use get_replica_context().merge_call()"
)


# ----------------------------------------------------------------------------- contexts


class _Mode(NamedTuple):
    """One entry of a graph's context stack: the strategy and, in a replica context,
    the replica context (None: cross-replica context)."""

    strategy: Strategy
    replica_context: ReplicaContext | None


_stacks: weakref.WeakKeyDictionary[ops.Graph, list[_Mode]] = weakref.WeakKeyDictionary()
_set_scopes: weakref.WeakKeyDictionary[ops.Graph, Any] = weakref.WeakKeyDictionary()
_defaults: dict[str, Any] = {}


def _stack() -> list[_Mode]:
    return _stacks.setdefault(ops.get_default_graph(), [])


def _mode() -> _Mode:
    stack = _stack()
    if stack:
        return stack[-1]
    strategy = _default_strategy()
    return _Mode(strategy, _default_replica_context())


def _pop(mode: _Mode) -> None:
    stack = _stack()
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is mode:
            del stack[i]
            return


@contextlib.contextmanager
def _entered(mode: _Mode) -> Iterator[None]:
    _stack().append(mode)
    try:
        yield
    finally:
        _pop(mode)


def get_strategy() -> Strategy:
    """The current strategy: the one whose ``scope()`` or ``run`` is active, else the
    default strategy (one replica, nothing wrapped)."""
    return _mode().strategy


def has_strategy() -> bool:
    """Whether a strategy other than the default one is current."""
    return get_strategy() is not _default_strategy()


def get_replica_context() -> ReplicaContext | None:
    """The current replica context, or None in cross-replica context.

    Returns:
      Inside ``strategy.run(fn)``: the replica's context. Inside ``strategy.scope()``
      (and ``merge_call``'s function): None. Outside any strategy: the default replica
      context (replica 0 of the default strategy).
    """
    return _mode().replica_context


def in_cross_replica_context() -> bool:
    """Whether the graph is in a strategy's cross-replica context (inside ``scope()``,
    outside ``run``); False outside any strategy."""
    return _mode().replica_context is None


def get_loss_reduction() -> ReduceOp:
    """The reduction of replicas' losses TF1's optimizers assume: ``ReduceOp.SUM``.

    .. note:: TF answers ``MEAN`` only under an Estimator's strategy (which scales
       losses); TF1 graphs outside Estimators get ``SUM``.
    """
    return ReduceOp.SUM


def experimental_set_strategy(strategy: Strategy | None) -> None:
    """Makes ``strategy`` current for the default graph, as if its ``scope()`` were
    entered until the next call (None: back to the default strategy).

    Raises:
      RuntimeError: another strategy's ``scope()`` is active.
    """
    graph = ops.get_default_graph()
    old = _set_scopes.pop(graph, None)
    if old is not None:
        old.__exit__(None, None, None)
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _set_scopes[graph] = scope


def _require_cross_replica_or_default(strategy: Strategy) -> None:
    mode = _mode()
    if mode.replica_context is not None and mode.strategy is strategy:
        if strategy is not _default_strategy():
            raise RuntimeError(_CROSS_REPLICA_ONLY)
    elif mode.strategy is not strategy and mode.strategy is not _default_strategy():
        raise RuntimeError(_mixing(mode.strategy, strategy))


def _mixing(current: Strategy, other: Strategy) -> str:
    return f"Mixing different tf.distribute.Strategy objects: {current} is not {other}"


# ----------------------------------------------------------------------------- input


class InputReplicationMode(enum.Enum):
    """How ``make_input_fn_iterator``'s ``input_fn`` is replicated: ``PER_WORKER`` (one
    input pipeline per worker, the only mode TF's strategies accept) or
    ``PER_REPLICA``."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputContext:
    """What an ``input_fn``/``dataset_fn`` is told about the input pipelines.

    Args:
      num_input_pipelines: how many pipelines feed the job (default 1).
      input_pipeline_id: this pipeline's index (default 0).
      num_replicas_in_sync: how many replicas take the batches (default 1).
    """

    def __init__(
        self,
        num_input_pipelines: int = 1,
        input_pipeline_id: int = 0,
        num_replicas_in_sync: int = 1,
    ):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    num_input_pipelines = property(lambda self: self._num_input_pipelines)
    input_pipeline_id = property(lambda self: self._input_pipeline_id)
    num_replicas_in_sync = property(lambda self: self._num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """``global_batch_size`` divided among the replicas.

        Raises:
          ValueError: ``global_batch_size`` is not a multiple of the replica count.
        """
        if global_batch_size % self._num_replicas_in_sync:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size} is not divisible by "
                f"`num_replicas_in_sync` {self._num_replicas_in_sync} "
            )
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self) -> str:
        return (
            f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
            f"total: {self._num_input_pipelines})"
        )


class RunOptions(
    NamedTuple(
        "RunOptions",
        [
            ("experimental_enable_dynamic_batch_size", bool),
            ("experimental_bucketizing_dynamic_shape", bool),
            ("experimental_xla_options", Any),
        ],
    )
):
    """Options of ``Strategy.run`` (TF's fields and defaults; they tune TPU compilation
    and change nothing for jtrain's one-replica strategies)."""

    __slots__ = ()

    def __new__(
        cls,
        experimental_enable_dynamic_batch_size: bool = True,
        experimental_bucketizing_dynamic_shape: bool = False,
        experimental_xla_options: Any = None,
    ) -> RunOptions:
        return super().__new__(
            cls,
            experimental_enable_dynamic_batch_size,
            experimental_bucketizing_dynamic_shape,
            experimental_xla_options,
        )


class _InputIterator:
    """The iterator of ``make_dataset_iterator``/``make_input_fn_iterator``: an
    initializable iterator of the dataset, whose ``get_next()`` is one replica's input.

    Args:
      dataset: the dataset.
      grouped: whether ``initialize()`` is one operation (TF's strategies) or a list
        of operations (TF's default strategy).
    """

    def __init__(self, dataset: Any, grouped: bool):
        from adapters.v1.data import iterator_ops

        self._iterator = iterator_ops.make_initializable_iterator(dataset)
        self._grouped = grouped

    def get_next(self, name: str | None = None) -> Any:
        """The next element (one replica's batch)."""
        return self._iterator.get_next(name=name) if name else self._iterator.get_next()

    def initialize(self) -> Any:
        """What (re)initializes the iterator (run it first): one operation (a list of
        them under the default strategy)."""
        if self._grouped:
            return control_flow_ops.group(self._iterator.initializer)
        return [self._iterator.initializer]

    @property
    def initializer(self) -> Any:
        """``initialize()``."""
        return self.initialize()


class DistributedDataset:
    """``experimental_distribute_dataset``'s result: the dataset's global batches for
    the replicas.

    .. note:: In TF1 graphs TF's distributed datasets cannot be iterated (``iter``
       raises ``RuntimeError``: only in ``tf.function`` or eagerly); TF1 scripts read
       a strategy's input through ``make_dataset_iterator``.
    """

    def __init__(self, dataset: Any):
        self._dataset = dataset

    def __iter__(self) -> Any:
        raise RuntimeError(
            "__iter__() is only supported inside of tf.function or when eager execution is enabled."
        )


# ----------------------------------------------------------------------------- replica


class ReplicaContext:
    """The context of one replica inside ``strategy.run(fn)`` (TF's ``ReplicaContext``).

    Args:
      strategy: the strategy running the replica.
      replica_id_in_sync_group: the replica's index (an int or a Tensor).

    Raises:
      ValueError: ``replica_id_in_sync_group`` is neither an int, a Tensor nor None.
    """

    def __init__(self, strategy: Strategy, replica_id_in_sync_group: Any):
        if not (
            replica_id_in_sync_group is None
            or isinstance(replica_id_in_sync_group, (int, ops.Tensor))
        ):
            raise ValueError("replica_id_in_sync_group can only be an integer, a Tensor or None.")
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group

    @property
    def strategy(self) -> Strategy:
        """The strategy running this replica."""
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        """How many replicas are kept in sync."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Any:
        """This replica's index, an int32 scalar ``Tensor`` made at each call (named
        ``replica_id_in_sync_group``), as TF makes it."""
        if isinstance(self._replica_id, ops.Tensor):
            return self._replica_id
        return constant(self._replica_id, dtypes.int32, name="replica_id_in_sync_group")

    @property
    def devices(self) -> Any:
        """The devices this replica runs on (deprecated in TF).

        Raises:
          RuntimeError: this is not the current replica context.
        """
        self._require_current()
        return self._strategy.extended._replica_devices(self)

    def _require_current(self) -> None:
        current = get_replica_context()
        if current is None:
            raise RuntimeError("Need to be inside `call_for_each_replica()`")
        if current is not self:
            raise RuntimeError(
                f"Should be inside the replica context of this strategy's `run`, not {current}"
            )

    def merge_call(self, merge_fn: Callable[..., Any], args: Any = (), kwargs: Any = None) -> Any:
        """Calls ``merge_fn(strategy, *args, **kwargs)`` in cross-replica context.

        With one replica each argument is that replica's value, as is the result.

        Raises:
          RuntimeError: not called from this replica's context.
        """
        self._require_current()
        with _entered(_Mode(self._strategy, None)):
            return merge_fn(self._strategy, *args, **(kwargs or {}))

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        """``value`` (a nest of tensors) reduced over the replicas, in each replica.

        Over one replica the ``SUM`` and the ``MEAN`` are the value itself, returned
        through one ``IdentityN`` for the whole nest (as TF batches the reduction);
        its gradient is the incoming gradient.

        Raises:
          ValueError: ``reduce_op`` names no reduction.
        """
        as_reduce_op(reduce_op)
        self._require_current()
        return _one_identity(value)

    def all_gather(self, value: Any, axis: Any, options: Any = None) -> Any:
        """``value`` (a nest of tensors) of every replica concatenated along ``axis``,
        in each replica: over one replica, the value itself (one ``IdentityN`` for
        the nest), whose gradient is the incoming gradient.

        Raises:
          NotImplementedError: an ``IndexedSlices`` in ``value``.
          RuntimeError: not called from this replica's context.
        """
        flat = nest.flatten(value)
        if any(isinstance(v, IndexedSlices) for v in flat):
            raise NotImplementedError("all_gather does not support IndexedSlices")
        self._require_current()
        return _one_identity(value)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._strategy!r}>"


def _one_identity(value: Any) -> Any:
    """A nest of tensors through one ``IdentityN`` (one replica's collective)."""
    flat = nest.flatten(value)
    if not flat:
        return value
    return nest.pack_sequence_as(value, list(array_ops.identity_n(flat)))


class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside any strategy: replica 0 of the default strategy."""

    @property
    def replica_id_in_sync_group(self) -> int:
        """0 (an int, so that graphs without strategies get no extra node)."""
        return 0


# ----------------------------------------------------------------------------- extended


class StrategyExtended:
    """A strategy's extended API (``strategy.extended``): reductions to devices,
    variable updates, devices.

    Args:
      container_strategy: the strategy this belongs to.
    """

    _devices: tuple[str, ...] = ()  # the replicas' devices, canonical
    _replica_scope: str | None = None  # name scope of replica 0's updates
    _copies_sums = False  # whether a SUM reduction copies the value (an Identity)

    def __init__(self, container_strategy: Strategy):
        self._container_ref = weakref.ref(container_strategy)

    def _container_strategy(self) -> Strategy:
        strategy = self._container_ref()
        assert strategy is not None
        return strategy

    # -- devices
    @property
    def worker_devices(self) -> tuple[str, ...]:
        """The devices the replicas run on (one per replica)."""
        return self._devices

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        """The devices holding the variables."""
        return self._devices

    def non_slot_devices(self, var_list: Any) -> Any:
        """Where non-slot variables of ``var_list`` (an optimizer's beta powers) live."""
        return self._devices

    def _replica_devices(self, context: ReplicaContext) -> Any:
        return self._devices[:1]

    @property
    def experimental_require_static_shapes(self) -> bool:
        """Whether inputs need static shapes (False)."""
        return False

    @property
    def experimental_between_graph(self) -> bool:
        """Whether each worker builds its own graph (False: one graph)."""
        return False

    @property
    def experimental_should_init(self) -> bool:
        """Whether this worker initializes the variables (True)."""
        return True

    @property
    def should_checkpoint(self) -> bool:
        """Whether this worker saves checkpoints (True)."""
        return True

    @property
    def should_save_summary(self) -> bool:
        """Whether this worker writes summaries (True)."""
        return True

    # -- replication
    def call_for_each_replica(
        self, fn: Callable[..., Any], args: Any = (), kwargs: Any = None
    ) -> Any:
        """``fn(*args, **kwargs)`` in each replica's context (once: one replica).

        Raises:
          RuntimeError: called from a replica context, or under another strategy.
        """
        strategy = self._container_strategy()
        _require_cross_replica_or_default(strategy)
        context = self._replica_context()
        with _entered(_Mode(strategy, context)), self._device_scope():
            return fn(*args, **(kwargs or {}))

    def _replica_context(self) -> ReplicaContext:
        return ReplicaContext(self._container_strategy(), 0)

    def _device_scope(self) -> Any:
        if not self._devices:
            return contextlib.nullcontext()
        return ops.device(self._devices[0])

    # -- reductions
    def _reduce(self, reduce_op: ReduceOp, value: Any) -> Any:
        return self.reduce_to(reduce_op, value, self._devices[0] if self._devices else None)

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any, options: Any = None) -> Any:
        """``value`` reduced over the replicas onto ``destinations``.

        Over one replica this is ``value``; TF's ``MirroredStrategy`` copies a ``SUM``
        to the destination (an ``Identity``), as here.

        Raises:
          ValueError: ``reduce_op`` names no reduction.
          RuntimeError: called from a replica context.
        """
        _require_cross_replica_or_default(self._container_strategy())
        reduce_op = as_reduce_op(reduce_op)
        if reduce_op is ReduceOp.SUM and self._copies_sums and isinstance(value, ops.Tensor):
            with self._device_scope():
                return array_ops.identity(value)
        return value

    def batch_reduce_to(
        self, reduce_op: Any, value_destination_pairs: Any, options: Any = None
    ) -> list[Any]:
        """Each ``(value, destinations)`` pair's value reduced over the replicas: over
        one replica the values themselves.

        Raises:
          ValueError: ``reduce_op`` names no reduction.
          RuntimeError: called from a replica context.
        """
        _require_cross_replica_or_default(self._container_strategy())
        as_reduce_op(reduce_op)
        return [value for value, _ in value_destination_pairs]

    def broadcast_to(self, tensor: Any, destinations: Any) -> Any:
        """``tensor`` copied to ``destinations`` (an ``Identity`` on the device).

        Raises:
          AssertionError: ``destinations`` is None (TF's check).
        """
        _require_cross_replica_or_default(self._container_strategy())
        if destinations is None:
            raise AssertionError("broadcast_to: `destinations` is required")
        with self._device_scope():
            return array_ops.identity(tensor)

    # -- variables
    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        """A scope placing the variables created inside with ``colocate_with_variable``."""
        return colocate_with(colocate_with_variable)

    def read_var(self, v: Any) -> ops.Tensor:
        """The value of variable ``v`` (an ``Identity`` of it)."""
        return array_ops.identity(v)

    def value_container(self, value: Any) -> Any:
        """The container of ``value``: the variable itself (one replica)."""
        return value

    def update(
        self,
        var: Any,
        fn: Callable[..., Any],
        args: Any = (),
        kwargs: Any = None,
        group: bool = True,
    ) -> Any:
        """``fn(var, *args, **kwargs)`` run for each copy of ``var``, colocated with it.

        Returns:
          ``fn``'s result; with ``group=False`` each of its leaves as a 1-tuple of the
          replicas' results.

        Raises:
          RuntimeError: called from a replica context.
        """
        return self._update(var, fn, (var, *args), kwargs, group)

    def update_non_slot(
        self,
        colocate_with: Any,
        fn: Callable[..., Any],
        args: Any = (),
        kwargs: Any = None,
        group: bool = True,
    ) -> Any:
        """``fn(*args, **kwargs)`` run where ``colocate_with`` lives (``update`` without
        a variable argument)."""
        return self._update(colocate_with, fn, tuple(args), kwargs, group)

    def _update(
        self, where: Any, fn: Callable[..., Any], args: tuple, kwargs: Any, group: bool
    ) -> Any:
        _require_cross_replica_or_default(self._container_strategy())
        scope = (
            ops.name_scope(self._replica_scope) if self._replica_scope else contextlib.nullcontext()
        )
        colocation = colocate_with(where) if _has_op(where) else contextlib.nullcontext()
        with colocation, scope:
            result = fn(*args, **(kwargs or {}))
        if group:
            return result
        return nest.map_structure(lambda leaf: (leaf,), result)


def _has_op(value: Any) -> bool:
    return isinstance(getattr(value, "op", None), ops.Operation)


class _DefaultExtended(StrategyExtended):
    """The default strategy's extended API: no devices, nothing copied."""

    @property
    def worker_devices(self) -> tuple[str, ...]:
        """Raises ``RuntimeError``: the default strategy has no worker devices."""
        raise RuntimeError("worker_devices() method unsupported by default tf.distribute.Strategy.")

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        """Raises ``RuntimeError``: the default strategy has no parameter devices."""
        raise RuntimeError(
            "parameter_devices() method unsupported by default tf.distribute.Strategy."
        )

    def non_slot_devices(self, var_list: Any) -> Any:
        """The variable of ``var_list`` with the smallest name (TF's choice)."""
        return min(var_list, key=lambda v: v.name)

    def broadcast_to(self, tensor: Any, destinations: Any) -> Any:
        """``tensor`` itself when ``destinations`` is None.

        Raises:
          NotImplementedError: ``destinations`` given (TF's default strategy has no
            devices to copy to).
        """
        if destinations is None:
            return tensor
        raise NotImplementedError("The default tf.distribute.Strategy cannot broadcast_to devices")

    def _replica_devices(self, context: ReplicaContext) -> Any:
        return ("",)


# ----------------------------------------------------------------------------- strategy


class Strategy:
    """A way of running a computation over replicas (TF's ``tf.compat.v1.distribute.Strategy``).

    Use a concrete strategy (``MirroredStrategy``, ``OneDeviceStrategy``) or the
    default one (``get_strategy()``); see the module docstring for the contexts.

    Args:
      extended: the strategy's :class:`StrategyExtended`.
    """

    def __init__(self, extended: StrategyExtended):
        self._extended = extended

    @property
    def extended(self) -> StrategyExtended:
        """The extended API (reductions to devices, variable updates)."""
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        """How many replicas are kept in sync (1)."""
        return 1

    @property
    def cluster_resolver(self) -> Any:
        """The strategy's cluster resolver (None: a local strategy)."""
        return None

    # -- contexts
    def _check_scope(self) -> None:
        mode = _mode()
        if mode.strategy is not self and mode.strategy is not _default_strategy():
            raise RuntimeError(_mixing(mode.strategy, self))
        if mode.strategy is self and mode.replica_context is not None:
            raise RuntimeError(_CROSS_REPLICA_ONLY)

    def scope(self) -> contextlib.AbstractContextManager[Strategy]:
        """A context in which this strategy is current (cross-replica context):
        variables, optimizers and Keras models built inside belong to it.

        Raises:
          RuntimeError: another strategy's scope is active, or the scope is entered
            from one of this strategy's replicas.
        """
        return _StrategyScope(self)

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        """A scope placing variables created inside with ``colocate_with_variable``."""
        return self._extended.colocate_vars_with(colocate_with_variable)

    # -- running
    def run(
        self, fn: Callable[..., Any], args: Any = (), kwargs: Any = None, options: Any = None
    ) -> Any:
        """Runs ``fn(*args, **kwargs)`` on each replica (in its replica context).

        ``args`` that are tensors are given to every replica; the iterators of
        ``make_dataset_iterator`` give each its batch. With one replica the result is
        ``fn``'s own (TF wraps several replicas' results in ``PerReplica`` values).

        Args:
          fn: the step function (builds the graph of one replica's step).
          args: positional arguments of ``fn`` (default ()).
          kwargs: keyword arguments of ``fn`` (default None).
          options: a :class:`RunOptions` (default None; nothing to tune here).

        Returns:
          ``fn``'s result.

        Raises:
          RuntimeError: called from a replica context, or under another strategy.
        """
        with self.scope():
            return self._extended.call_for_each_replica(fn, args=args, kwargs=kwargs)

    def experimental_run_v2(
        self, fn: Callable[..., Any], args: Any = (), kwargs: Any = None, options: Any = None
    ) -> Any:
        """``run`` under its TF 1.15-2.1 name.

        .. note:: TF 2.21's ``tf.compat.v1`` strategies no longer have this name
           (``AttributeError``); TF1 scripts of the 1.15 era call it, so jtrain keeps
           it as ``run``.
        """
        return self.run(fn, args=args, kwargs=kwargs, options=options)

    def experimental_run(self, fn: Callable[..., Any], input_iterator: Any = None) -> Any:
        """``run(fn, args=(input_iterator.get_next(),))`` (``run(fn)`` without an
        iterator; deprecated in TF)."""
        with self.scope():
            args = (input_iterator.get_next(),) if input_iterator is not None else ()
            return self.run(fn, args=args)

    def reduce(self, reduce_op: Any, value: Any, axis: Any = None) -> Any:
        """``value`` (a result of ``run``) reduced over the replicas and, with ``axis``,
        over that axis (or axes) of each replica's value.

        ``MEAN`` over ``axis`` divides the sum by the number of elements summed (its
        static size when known, else the dynamic shape's), cast to the value's dtype.

        Args:
          reduce_op: a ``ReduceOp`` or its name (``"sum"``, ``"MEAN"``).
          value: the per-replica value.
          axis: None (across replicas only), an int or a list of ints.

        Returns:
          A tensor.

        Raises:
          ValueError: ``reduce_op`` names no reduction, or ``axis`` is out of range.
          TypeError: ``reduce_op`` is neither a ``ReduceOp`` nor a string, or ``axis``
            neither an int nor a list/tuple of ints.
          RuntimeError: called from a replica context.
        """
        _require_cross_replica_or_default(self)
        reduce_op = as_reduce_op(reduce_op)
        if axis is None:
            return self._extended._reduce(reduce_op, value)
        if reduce_op is ReduceOp.SUM:
            summed = self.run(lambda v: FUNCTIONS["reduce_sum"](v, axis=axis), args=(value,))
            return self._extended._reduce(reduce_op, summed)
        numer, denom = self.run(_mean_parts, args=(value, axis))
        numer = self._extended._reduce(ReduceOp.SUM, numer)
        denom = self._extended._reduce(ReduceOp.SUM, denom)
        denom = FUNCTIONS["cast"](denom, numer.dtype)
        return FUNCTIONS["truediv"](numer, denom)

    def experimental_local_results(self, value: Any) -> tuple[Any, ...]:
        """The values of ``value`` on this worker's replicas: a 1-tuple of ``value``."""
        return (value,)

    def unwrap(self, value: Any) -> tuple[Any, ...]:
        """``experimental_local_results`` (its deprecated name)."""
        return self.experimental_local_results(value)

    def group(self, value: Any, name: str | None = None) -> Any:
        """An operation running every replica's ``value`` (its op for one tensor)."""
        flat = nest.flatten(self.experimental_local_results(value))
        if len(flat) != 1 or name is not None:
            return control_flow_ops.group(*flat, name=name)
        single = flat[0]
        return single.op if hasattr(single, "op") else single

    # -- input
    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> Any:
        """``dataset`` as the replicas' input (its batches are the global batches)."""
        return DistributedDataset(dataset)

    def distribute_datasets_from_function(
        self, dataset_fn: Callable[..., Any], options: Any = None
    ) -> Any:
        """``dataset_fn(InputContext(...))`` as the replicas' input (each pipeline's
        batches are per-replica batches)."""
        return DistributedDataset(dataset_fn(self._input_context()))

    def experimental_distribute_datasets_from_function(
        self, dataset_fn: Callable[..., Any], options: Any = None
    ) -> Any:
        """``distribute_datasets_from_function`` (its deprecated name)."""
        return self.distribute_datasets_from_function(dataset_fn, options)

    def _input_context(self) -> InputContext:
        return InputContext(1, 0, self.num_replicas_in_sync)

    def make_dataset_iterator(self, dataset: Any) -> Any:
        """An iterator whose ``get_next()`` gives each replica its batch of ``dataset``
        (initialize it first: ``initialize()`` or ``initializer``)."""
        return _InputIterator(dataset, self is not _default_strategy())

    def make_input_fn_iterator(
        self,
        input_fn: Callable[..., Any],
        replication_mode: InputReplicationMode = InputReplicationMode.PER_WORKER,
    ) -> Any:
        """An iterator over ``input_fn(InputContext(...))``'s dataset (initialize it first).

        Raises:
          ValueError: ``replication_mode`` is not ``PER_WORKER``.
        """
        if replication_mode != InputReplicationMode.PER_WORKER:
            raise ValueError(f"Input replication mode not supported: {replication_mode!r}")
        return _InputIterator(input_fn(self._input_context()), self is not _default_strategy())

    # -- configuration
    def update_config_proto(self, config_proto: Any) -> Any:
        """A copy of ``config_proto`` updated for this strategy."""
        return copy.deepcopy(config_proto)

    def configure(
        self,
        session_config: Any = None,
        cluster_spec: Any = None,
        task_type: str | None = None,
        task_id: int | None = None,
    ) -> None:
        """Configures the strategy for a cluster (deprecated in TF).

        Raises:
          NotImplementedError: ``cluster_spec`` given: multi-worker strategies map onto
            ``tf.train.Server`` (see ``tf.distribute.experimental``).
        """
        if cluster_spec:
            raise NotImplementedError(
                f"{type(self).__name__}.configure(cluster_spec=...): multi-worker training "
                "runs through tf.train.ClusterSpec/Server and tf.train.SyncReplicasOptimizer "
                "in jtrain"
            )
        if session_config is not None:
            updated = self.update_config_proto(session_config)
            session_config.CopyFrom(updated)


class _StrategyScope:
    """``strategy.scope()``: the strategy's cross-replica context while entered (a
    plain object, so that a scope entered by hand stays entered, as TF's does)."""

    def __init__(self, strategy: Strategy):
        self._strategy = strategy
        self._modes: list[tuple[ops.Graph, _Mode]] = []

    def __enter__(self) -> Strategy:
        strategy = self._strategy
        strategy._check_scope()
        mode = _Mode(strategy, None)
        if strategy is not _default_strategy():
            _stack().append(mode)
        self._modes.append((ops.get_default_graph(), mode))
        return strategy

    def __exit__(self, *exc: Any) -> None:
        graph, mode = self._modes.pop()
        with graph.as_default():
            _pop(mode)


def _mean_parts(value: Any, axis: Any) -> tuple[Any, Any]:
    """One replica's sum of ``value`` over ``axis`` and the count summed (TF's helper)."""
    numer = FUNCTIONS["reduce_sum"](value, axis=axis)
    shape = value.shape
    rank = shape.ndims

    def size(a: int) -> Any:
        if rank is not None:
            if a < 0:
                if a + rank < 0:
                    raise ValueError(f"`axis` = {a!r} out of range for `value` with rank {rank}")
                a += rank
            elif a >= rank:
                raise ValueError(f"`axis` = {a!r} out of range for `value` with rank {rank}")
            dim = shape.as_list()[a]
            if dim is not None:
                return array_ops.identity(constant(dim, dtypes.int64))
        elif a < 0:
            a = a + FUNCTIONS["rank"](value)
        return array_ops.identity(FUNCTIONS["shape"](value, out_type=dtypes.int64)[a])

    if isinstance(axis, int):
        denom = size(axis)
    elif isinstance(axis, (tuple, list)):
        denom = FUNCTIONS["reduce_prod"]([size(a) for a in axis])
    else:
        raise TypeError(f"Expected `axis` to be an integer or a list of integers, not: {axis!r}")
    return numer, denom


class _DefaultStrategy(Strategy):
    """The strategy in effect outside any ``scope()``: one replica, no devices."""

    def _check_scope(self) -> None:
        mode = _mode()
        if mode.strategy is not self:
            raise RuntimeError(_mixing(mode.strategy, self))

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> Any:
        """``dataset`` itself."""
        return dataset

    def distribute_datasets_from_function(
        self, dataset_fn: Callable[..., Any], options: Any = None
    ) -> Any:
        """``dataset_fn(InputContext())``."""
        return dataset_fn(InputContext())


def default_strategy() -> Strategy:
    """The default strategy (what ``get_strategy()`` is outside any scope)."""
    return _default_strategy()


def _default_strategy() -> Strategy:
    if "strategy" not in _defaults:
        strategy = _DefaultStrategy.__new__(_DefaultStrategy)
        Strategy.__init__(strategy, _DefaultExtended(strategy))
        _defaults["strategy"] = strategy
    return _defaults["strategy"]


def _default_replica_context() -> ReplicaContext:
    if "replica_context" not in _defaults:
        _defaults["replica_context"] = _DefaultReplicaContext(_default_strategy(), 0)
    return _defaults["replica_context"]
