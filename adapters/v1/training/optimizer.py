"""``tf.compat.v1.train.Optimizer``: the TF1 optimizer classes over ``jtrain.optimizers``.

An optimizer class keeps TF's graph-side shape — ``minimize``,
``compute_gradients``, ``apply_gradients``, slot variables named as TF names
them (``w/Adam``, ``w/Adam_1``, ``beta1_power``...) — and leaves the math to
the matching ``jtrain.optimizers`` transformation, so a TF1 checkpoint restores
into the slots and training continues from the same state.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import jax.numpy as jnp
import numpy as np
import optax

from adapters.v1.client import _replicas
from adapters.v1.framework import _x64, ops
from adapters.v1.framework.indexed_slices import IndexedSlices
from adapters.v1.ops import control_flow_ops, gradients_impl
from adapters.v1.ops.variables import Variable, trainable_variables
from jtrain import optimizers
from jtrain.indexed_slices import IndexedSlices as JIndexedSlices

__all__ = ["Optimizer"]

_log = logging.getLogger(__name__)


class Optimizer:
    """Base class of the TF1 optimizers (``tf.compat.v1.train.Optimizer``).

    Subclasses set:

    - ``_slots``: the state fields that are slots, in TF's creation order (the
      order gives the ``_1``, ``_2`` suffixes of the slot variable names).
    - ``_non_slots``: the state fields that are scalar variables TF creates once
      per graph (Adam's ``beta1_power``...), named as the field.
    - ``_transformation(hparams)``: builds the ``jtrain.optimizers`` transformation
      from hyperparameter values (numbers or traced tensors' values).

    Slot and non-slot variables start at the values of the transformation's
    ``init``, so they have TF's initial values and dtypes by construction.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    _slots: tuple[str, ...] = ()
    _non_slots: tuple[str, ...] = ()
    # A non-slot variable TF creates with a hyperparameter as its initial value
    # (Adam's ``beta1_power`` starts at ``beta1``): field -> hyperparameter.
    _non_slot_initial_values: dict[str, str] = {}
    # The hyperparameters TF's ``_prepare`` calls when they are callables (with no
    # argument, each time the update is built): ``GradientDescentOptimizer(lambda: 0.1)``.
    _callable_hparams: tuple[str, ...] = ()
    # Set by SyncReplicasOptimizer: averaging over the workers is what the user asked.
    _synchronous = False

    def __init__(
        self, use_locking: bool, name: str, use_own_namescope_for_non_slot_vars: bool = False
    ):
        """The base of every TF1 optimizer.

        Args:
          use_locking: TF's locking flag (updates are atomic in a compiled step).
          name: the name of the optimizer's ops and slot variables.
          use_own_namescope_for_non_slot_vars: create the non-slot variables
            (Adam's ``beta1_power``...) under a variable scope named uniquely after
            ``name`` when the optimizer is built (``Adam/beta1_power``), as TF does.

        Raises:
          ValueError: ``name`` is empty.
        """
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._use_own_namescope_for_non_slot_vars = use_own_namescope_for_non_slot_vars
        self._non_slot_scope: str | None = None
        if use_own_namescope_for_non_slot_vars:
            from adapters.v1.ops import variable_scope

            with variable_scope.variable_scope(None, default_name=name) as vs:
                self._non_slot_scope = vs.name
        self._slot_vars: dict[str, dict[Variable, Variable]] = {}
        self._non_slot_vars: dict[tuple[str, ops.Graph], Variable] = {}
        self._hparams: dict[str, Any] = {}

    def get_name(self) -> str:
        return self._name

    # -- hyperparameters ------------------------------------------------------------
    def _set_hparams(self, **hparams: Any) -> None:
        """Hyperparameters as given: numbers, or tensors/variables evaluated per step."""
        self._hparams = hparams

    def _prepare_hparams(self) -> dict[str, Any]:
        """The hyperparameters of one update, as TF's ``_prepare`` takes them: those
        of ``_callable_hparams`` that are callables are called with no argument (a
        number or a tensor comes back)."""
        return {
            k: v() if k in self._callable_hparams and callable(v) else v
            for k, v in self._hparams.items()
        }

    def _transformation(self, hparams: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _apply_updates(
        self, params: dict[str, Any], updates: dict[str, Any], grads: dict[str, Any], hparams: dict
    ) -> dict[str, Any]:
        """The variables' new values: ``params + updates`` (the transformation's). An
        optimizer whose TF kernel writes the variable in another order (GradientDescent's
        ``ScatterSub``, row by row) overrides it. Not called for an
        ``AssigningTransformation``, whose ``assign`` gives the new values."""
        del grads, hparams
        return optax.apply_updates(params, updates)

    # -- the TF1 API ------------------------------------------------------------------
    def minimize(
        self,
        loss: Any,
        global_step: Variable | None = None,
        var_list: list[Variable] | None = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        name: str | None = None,
        grad_loss: Any = None,
    ) -> ops.Operation:
        """``compute_gradients`` then ``apply_gradients``: the training op.

        Raises:
          ValueError: no variable has a gradient (names the variables and the loss).
        """
        grads_and_vars = self.compute_gradients(
            loss,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                "not support gradients, between variables "
                f"{[v.name for _, v in grads_and_vars]} and loss {_name(loss)}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss: Any,
        var_list: list[Variable] | None = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        grad_loss: Any = None,
    ) -> list[tuple[ops.Tensor | None, Variable]]:
        """``(gradient, variable)`` pairs; the gradient is None where ``loss`` does not
        depend on the variable.

        Args:
          loss: the tensor to minimize.
          var_list: variables to differentiate (default: the trainable variables).
          grad_loss: optional weight of ``loss``'s gradient.

        Raises:
          ValueError: ``var_list`` is empty, or ``gate_gradients`` is invalid.
          TypeError: ``loss`` is a callable (eager mode only in TF).
        """
        if callable(loss):
            raise TypeError("`loss` must be a Tensor in graph mode, not a callable.")
        if gate_gradients not in (self.GATE_NONE, self.GATE_OP, self.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                f"Optimizer.GATE_GRAPH. Not {gate_gradients}"
            )
        loss = ops.convert_to_tensor(loss)
        if var_list is None:
            var_list = trainable_variables() + ops.get_collection(
                ops.GraphKeys.TRAINABLE_RESOURCE_VARIABLES
            )
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients_impl.gradients(
            loss, var_list, grad_ys=None if grad_loss is None else [grad_loss]
        )
        return list(zip(grads, var_list, strict=True))

    def apply_gradients(
        self,
        grads_and_vars: Any,
        global_step: Variable | None = None,
        name: str | None = None,
        skip_gradients_aggregation: bool = False,
    ) -> ops.Operation:
        """An op applying the gradients (then incrementing ``global_step`` if given).

        Creates the slot and non-slot variables on first use for each variable.
        A variable with a ``constraint`` is assigned ``constraint(var)`` after its
        update, as in TF.

        Args:
          grads_and_vars: ``(gradient, variable)`` pairs.
          global_step: incremented after the update (default None).
          name: the returned operation's name (default: the optimizer's name).
          skip_gradients_aggregation: in a multi-process step, apply each worker's
            own gradients instead of their all-reduced mean (TF: no cross-replica
            aggregation; the caller aggregated them). Default False.

        Returns:
          The training operation.

        Raises:
          ValueError: no gradients at all, or a variable appears twice.
          TypeError: a gradient is not a tensor or ``IndexedSlices``.
          RuntimeError: a variable with a constraint has a sparse gradient.

        An ``IndexedSlices`` gradient (``tf.gather``/``embedding_lookup``'s) reaches
        ``jtrain.optimizers`` as a ``jtrain.IndexedSlices``: TF's sparse update.
        """
        pairs = [(g, v) for g, v in grads_and_vars]
        if not pairs:
            raise ValueError("No variables provided.")
        seen = set()
        for g, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(f"Expected a Variable, got {v!r}")
            if v in seen:
                raise ValueError(f"Duplicate variable in grads_and_vars: {v.name}")
            seen.add(v)
            if g is not None and not isinstance(g, (ops.Tensor, IndexedSlices)):
                raise TypeError(
                    f"Gradient must be a Tensor, IndexedSlices, or None, got {g!r} for {v.name}"
                )
            if isinstance(g, IndexedSlices) and g.static_dense_shape() not in (None, v._shape):
                raise ValueError(
                    f"IndexedSlices gradient of {v.name} has dense_shape "
                    f"{g.static_dense_shape()}, the variable has shape {v._shape}"
                )
        pairs = [(g, v) for g, v in pairs if g is not None]
        if not pairs:
            raise ValueError(
                f"No gradients provided for any variable: {[v.name for _, v in grads_and_vars]}."
            )
        graph = pairs[0][1].graph
        var_list = [v for _, v in pairs]
        with graph.control_dependencies(None):
            hparams = self._prepare_hparams()
            non_slots = self._create_non_slots(var_list, hparams)  # first, as TF's Adam
            self._create_slots(var_list, hparams)
        for g, v in pairs:  # TF's check, once the slots exist
            if isinstance(g, IndexedSlices) and v.constraint is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        with graph.name_scope(name or self._name) as scope:
            update = self._apply_op(
                pairs, non_slots, global_step, "update", skip_gradients_aggregation, hparams
            )
            update = self._apply_constraints(pairs, update)
            if global_step is None:
                apply_updates = control_flow_ops.group(update, name=scope)
            else:
                with graph.control_dependencies([update]):
                    step = global_step.assign_add(np.ones((), global_step.dtype), name=scope)
                apply_updates = step.op
        # As TF: the training op joins the TRAIN_OP collection (meta graphs export it).
        train_ops = graph.get_collection_ref(ops.GraphKeys.TRAIN_OP)
        if apply_updates not in train_ops:
            train_ops.append(apply_updates)
        return apply_updates

    def _apply_constraints(
        self, pairs: list[tuple[Any, Variable]], update: ops.Operation
    ) -> ops.Operation:
        """``update`` followed, as TF's ``apply_gradients``, by
        ``var.assign(var.constraint(var))`` for each variable with a ``constraint``
        (``get_variable(constraint=...)``, a layer's ``kernel_constraint``).

        Raises:
          RuntimeError: a variable with a constraint has a sparse gradient (TF's).
        """
        constrained = [v for _, v in pairs if v.constraint is not None]
        if not constrained:
            return update
        graph = update.graph
        assigns = []
        for v in constrained:
            with graph.name_scope("update_" + v.op.name), graph.control_dependencies([update]):
                assigns.append(v.assign(v.constraint(v)))
        return control_flow_ops.group(update, *assigns)

    def get_slot(self, var: Variable, name: str) -> Variable | None:
        """The slot variable ``name`` of ``var``, or None."""
        return self._slot_vars.get(name, {}).get(var)

    def get_slot_names(self) -> list[str]:
        return sorted(self._slot_vars)

    def variables(self) -> list[Variable]:
        """The optimizer's slot and non-slot variables, sorted by name (as TF)."""
        vs = [v for slots in self._slot_vars.values() for v in slots.values()]
        vs += list(self._non_slot_vars.values())
        return sorted(vs, key=lambda v: v.name)

    # -- variables ---------------------------------------------------------------------
    def _initial_state(self, var: Variable, hparams: dict[str, Any] | None = None) -> Any:
        """The transformation's initial state for one variable (static hyperparameters;
        a tensor-valued one is a stand-in here, which slot initial values do not use).

        Computed with 64-bit types on, as TF computes a float64 variable's slots
        (Adagrad's ``0.1`` accumulator is float64 0.1, not float32 0.1 widened).
        """
        if hparams is None:
            hparams = self._prepare_hparams()
        hparams = {k: _number(v) for k, v in hparams.items()}
        with _x64.exact():
            return self._transformation(hparams).init({"0": np.zeros(var._shape, var.dtype)})

    def _create_slots(
        self, var_list: list[Variable], hparams: dict[str, Any] | None = None
    ) -> None:
        """Each variable's slots, named as TF's ``slot_creator`` names them: in the
        current variable scope, under a unique ``<variable op name>/<optimizer name>``
        (``w/Adam``, ``w/Adam_1``; ``train/w/Momentum`` inside
        ``variable_scope("train")``)."""
        for var in var_list:
            missing = [f for f in self._slots if var not in self._slot_vars.get(f, {})]
            if not missing:
                continue
            state = self._initial_state(var, hparams)
            for field in missing:
                # TF's slots have their variable's dtype (slot_creator: the primary's
                # base dtype): a float64 variable's ``w/Adagrad`` is float64.
                value = np.asarray(getattr(state, field)["0"], dtype=np.dtype(var.dtype))
                slot = create_slot(var, value, self._name)
                self._slot_vars.setdefault(field, {})[var] = slot

    def _create_non_slots(
        self, var_list: list[Variable], hparams: dict[str, Any] | None = None
    ) -> dict[str, Variable]:
        """The non-slot variables (Adam's ``beta1_power``...), once per graph.

        As TF's ``_create_non_slot_variable``: a plain variable colocated with the first
        of ``var_list`` by name, named in the current name scope (``opt/beta1_power``
        inside ``name_scope("opt")``, made unique: ``beta1_power_1`` for a second
        optimizer), or, with
        ``use_own_namescope_for_non_slot_vars``, in the optimizer's own scope.
        """
        first = min(var_list, key=lambda v: v.name)
        graph = first.graph
        if hparams is None:
            hparams = self._prepare_hparams()
        out = {}
        for field in self._non_slots:
            key = (field, graph)
            if key not in self._non_slot_vars:
                source = hparams.get(self._non_slot_initial_values.get(field, ""))
                value: Any
                if isinstance(source, Variable):
                    value = source.initialized_value()
                elif isinstance(source, ops.Tensor):
                    # TF: ``Variable(initial_value=beta1)``, the tensor's value and dtype
                    value = source
                else:
                    value = np.asarray(getattr(self._initial_state(first, hparams), field))
                scope = self._non_slot_scope
                # TF colocates them with the first variable by name.
                with graph.colocate_with(first):
                    if scope is None:
                        self._non_slot_vars[key] = Variable(value, trainable=False, name=field)
                    else:
                        with graph.name_scope(None), graph.name_scope(scope + "/"):
                            self._non_slot_vars[key] = Variable(value, trainable=False, name=field)
            out[field] = self._non_slot_vars[key]
        return out

    def _get_non_slot_variable(self, name: str, graph: ops.Graph | None = None) -> Variable:
        return self._non_slot_vars[(name, graph or ops.get_default_graph())]

    # -- the update op -----------------------------------------------------------------------
    def _apply_op(
        self,
        pairs: list[tuple[ops.Tensor, Variable]],
        non_slots: dict[str, Variable],
        global_step: Variable | None,
        name: str,
        skip_gradients_aggregation: bool = False,
        hparams: dict[str, Any] | None = None,
    ) -> ops.Operation:
        var_list = [v for _, v in pairs]
        graph = var_list[0].graph
        static = self._prepare_hparams() if hparams is None else hparams
        hp_names = [k for k, v in static.items() if _is_node(v)]
        hp_tensors = [ops.convert_to_tensor(static[k]) for k in hp_names]
        slot_fields = list(self._slots)
        opt = self
        step_var = self._step_variable(global_step)

        # A sparse gradient is two inputs (values, indices); its dense shape is the variable's.
        grad_inputs: list[ops.Tensor] = []
        for g, _ in pairs:
            grad_inputs += [g.values, g.indices] if isinstance(g, IndexedSlices) else [g]
        n_grad = len(grad_inputs)

        def compute(ctx, *values):
            grads, pos = [], 0
            for g, v in pairs:
                if isinstance(g, IndexedSlices):
                    grads.append(JIndexedSlices(values[pos], values[pos + 1], v._shape))
                    pos += 2
                else:
                    grads.append(values[pos])
                    pos += 1
            if _replicas.in_collective_step() and not skip_gradients_aggregation:
                if not opt._synchronous:
                    _warn_async_once()
                grads = [_replicas.mean(g) for g in grads]
            hparams = dict(static)
            hparams.update(zip(hp_names, values[n_grad:], strict=True))
            transformation = opt._transformation(hparams)
            keys = [str(i) for i in range(len(var_list))]
            params = {k: ctx.read(v) for k, v in zip(keys, var_list, strict=True)}
            state0 = transformation.init(params)
            fields: dict[str, Any] = {}
            for field in state0._fields:
                if field in slot_fields:
                    slots = opt._slot_vars[field]
                    fields[field] = {
                        k: ctx.read(slots[v]) for k, v in zip(keys, var_list, strict=True)
                    }
                elif field in non_slots:
                    fields[field] = ctx.read(non_slots[field])
                elif field == "count" and step_var is not None:
                    fields[field] = jnp.asarray(ctx.read(step_var)).astype(jnp.int32)
                else:
                    fields[field] = getattr(state0, field)
            state = type(state0)(**fields)
            g = {k: gv for k, gv in zip(keys, grads, strict=True)}
            if isinstance(transformation, optimizers.AssigningTransformation):
                # TF's kernel assigns the variable: its value, not params + (new - params).
                new_params, new_state = transformation.assign(g, state, params)
            else:
                updates, new_state = transformation.update(g, state, params)
                new_params = opt._apply_updates(params, updates, g, hparams)
            for k, v in zip(keys, var_list, strict=True):
                ctx.write(v, new_params[k])
            for field in slot_fields:
                slots = opt._slot_vars[field]
                new = getattr(new_state, field)
                for k, v in zip(keys, var_list, strict=True):
                    ctx.write(slots[v], new[k])
            for field, var in non_slots.items():
                ctx.write(var, getattr(new_state, field))
            return ()

        op = graph.create_op(
            "ApplyGradients",
            name,
            inputs=grad_inputs + hp_tensors,
            compute=compute,
        )
        touched = list(var_list)
        for field in slot_fields:
            touched += [self._slot_vars[field][v] for v in var_list]
        touched += list(non_slots.values())
        op._writes = tuple(touched)
        op._reads = tuple(touched) + ((step_var,) if step_var is not None else ())
        op._collective = True  # averaged over the workers of a multi-process job
        return op

    def _step_variable(self, global_step: Variable | None) -> Variable | None:
        """The global step the update reads as the state's ``count``, if any.

        Only AdagradDA's kernel reads the step; the others take None.
        """
        return None


def create_slot(
    primary: Any, value: Any, name: str, colocate_with_primary: bool = True
) -> Variable:
    """TF's ``slot_creator.create_slot``: a non-trainable variable of ``value`` for
    ``primary`` (a variable or a tensor), colocated with ``primary`` unless
    ``colocate_with_primary`` is False (its ops on ``primary``'s device, ``_class``
    ``loc:@<primary>``: a slot of a variable on a ps task lives on that task, not on
    the device setter's next one).

    It is ``get_variable`` in a variable scope opened, inside the current one, with
    the default name ``<primary op name>/<name>`` (made unique as scopes are:
    ``w/Adam``, then ``w/Adam_1``), with the current scope's partitioner off; so
    ``variable_scope("train")`` gives ``train/w/Momentum``, and a name scope alone
    changes nothing. The slot of a partition of a partitioned variable is a
    partition of the slot of the whole. ``value`` is an array or a tensor; the slot
    has its dtype.
    """
    return _slot(primary, name, colocate_with_primary, initializer=value, dtype=value.dtype)


def create_zeros_slot(
    primary: Any, name: str, dtype: Any = None, colocate_with_primary: bool = True
) -> Variable:
    """TF's ``slot_creator.create_zeros_slot``: :func:`create_slot` of zeros of
    ``primary``'s (static) shape and ``dtype`` (default ``primary``'s), made by a
    ``zeros_initializer``: as TF, the initial value is built with the variable
    (``_class`` ``loc:@<slot>`` when not colocated with ``primary``)."""
    from adapters.v1.ops import init_ops

    dtype = primary.dtype if dtype is None else dtype
    shape = list(primary._shape)
    return _slot(
        primary,
        name,
        colocate_with_primary,
        initializer=init_ops.zeros_initializer(),
        shape=shape,
        dtype=dtype,
    )


def _slot(primary: Any, name: str, colocate: bool, **get_variable_args: Any) -> Variable:
    """The slot variable of :func:`create_slot` and :func:`create_zeros_slot`."""
    from adapters.v1.ops import variable_scope

    scope = variable_scope.get_variable_scope()
    partitioner = scope.partitioner
    scope.set_partitioner(None)
    try:
        with variable_scope.variable_scope(None, default_name=f"{primary.op.name}/{name}"):
            graph = ops.get_default_graph()
            colocated = graph.colocate_with(primary) if colocate else None
            with colocated or contextlib.nullcontext():
                slot = variable_scope.get_variable("", trainable=False, **get_variable_args)
    finally:
        scope.set_partitioner(partitioner)
    if isinstance(primary, Variable):
        _slice_like(slot, primary)
    return slot


def _slice_like(slot: Variable, var: Variable) -> None:
    """A slot of a partition of a partitioned variable is a partition of the slot of the
    whole (TF's slot_creator): saved as a slice of ``<full name>/<slot name>``."""
    info = var._save_slice_info
    n = len(slot._shape)
    if info is None or n == 0:
        return
    slot_name = slot.op.name[len(var.op.name) + 1 :]
    slot._save_slice_info = type(info)(
        f"{info.full_name}/{slot_name}",
        list(info.full_shape)[:n],
        list(info.var_offset)[:n],
        list(info.var_shape)[:n],
    )


_async_warned = False


def _warn_async_once() -> None:
    global _async_warned
    if not _async_warned:
        _async_warned = True
        _log.warning(
            "Asynchronous training across processes (an optimizer without "
            "tf.train.SyncReplicasOptimizer) runs synchronously in jtrain: every "
            "step averages the gradients of all workers with an all-reduce and applies "
            "them once on every worker (JAX's SPMD runtime has no parameter server "
            "receiving independent updates). Wrap the optimizer in "
            "SyncReplicasOptimizer to say so and silence this warning."
        )


def _is_node(value: Any) -> bool:
    return isinstance(value, (ops.Tensor, Variable))


def _number(value: Any) -> Any:
    """``value``, or 1.0 for a tensor or variable: a stand-in passing the construction
    checks of ``jtrain.optimizers`` (TF checks only Python numbers; a tensor
    hyperparameter is converted when the update is built)."""
    return 1.0 if _is_node(value) else value


def _name(x: Any) -> str:
    return getattr(x, "name", repr(x))
