"""``tf.keras.optimizers`` in a TF1 graph: Keras 2's legacy ``OptimizerV2`` classes.

TF 2.21 under ``tf.compat.v1`` (``TF_USE_LEGACY_KERAS=1``, TF1 graphs) gives
``tf.keras.optimizers.Adam`` as ``tf_keras``'s legacy ``OptimizerV2``; this
module rebuilds those classes on the compat graph:

- The state is TF's: ``<name>/iter`` (int64), one float32 variable per
  hyperparameter given as a number (``<name>/learning_rate``, ``<name>/decay``,
  ``<name>/beta_1``..., created in sorted order), and the slots
  ``<name>/<var>/<slot>`` (``Adam/dense/kernel/m``), all resource variables in
  ``GLOBAL_VARIABLES``, named in the name scope where they are first created
  (``training/Adam/...`` under Keras' ``fit``), so ``tf.train.Saver``
  checkpoints move between TF and jtrain.
- ``apply_gradients`` makes one update op for every variable (TF's
  ``update_<var>`` ops, one step of the session's compiled program) then
  increments ``iterations``; ``get_updates(loss, params)`` (Keras' ``fit``)
  returns ``[apply_gradients(...)]``.
- The hyperparameters are prepared in the graph with TF's ops exactly as
  ``_prepare_local`` does (``lr / (1 + decay * iterations)``, Adam's
  ``beta_1 ** (iterations + 1)``...), per variable dtype; the updates compute
  what TF's kernels (``ResourceApplyAdam``, ``ResourceApplyKerasMomentum``...)
  or Keras' own ops compute, dense and sparse (``IndexedSlices`` gradients,
  duplicate indices summed first as Keras does).
- A user's subclass written against TF's API (``_resource_apply_dense``,
  ``_resource_apply_sparse``, ``apply_state``, ``add_slot``/``get_slot``) builds
  its updates as TF ops, as in TF.
- In a multi-process job the gradients are the workers' mean, as jtrain's
  ``tf.train`` optimizers take them.

Also here: :func:`get` (a ``tf.train`` optimizer is wrapped as Keras'
``TFOptimizer``), :func:`serialize`/:func:`deserialize`, ``legacy`` (the same
classes) and ``schedules`` (``adapters/v1/keras/optimizer_schedules.py``).
"""

from __future__ import annotations

import copy
import logging
import numbers
from collections.abc import Iterable
from typing import Any

import jax.numpy as jnp
import numpy as np
import optax

from adapters.v1.client import _replicas
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.indexed_slices import IndexedSlices
from adapters.v1.keras import optimizer_schedules as schedules
from adapters.v1.keras.serialization import custom_objects_in_scope
from adapters.v1.ops.variables import Variable
from adapters.v1.training.optimizer import _warn_async_once
from jtrain import optimizers as joptimizers
from jtrain._numerics import kernel_divide
from jtrain._numerics import rounded as _r
from jtrain._numerics import rounded_square as _r2
from jtrain.indexed_slices import IndexedSlices as JIndexedSlices
from jtrain.indexed_slices import deduplicate, gather_rows, scatter_rows

__all__ = [
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "Adamax",
    "Ftrl",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "deserialize",
    "get",
    "legacy",
    "schedules",
    "serialize",
]

_log = logging.getLogger(__name__)

_ALLOWED_KWARGS = {"clipnorm", "clipvalue", "lr", "decay", "global_clipnorm"}


def _tf() -> Any:
    from adapters import v1

    return v1


def _is_schedule(value: Any) -> bool:
    return isinstance(value, schedules.LearningRateSchedule)


class Optimizer:
    """Keras 2's legacy optimizer base (``tf.keras.optimizers.Optimizer`` under
    ``tf.compat.v1``; ``tf_keras``'s ``OptimizerV2``) in a TF1 graph.

    Subclasses declare their slots (``_create_slots``), prepare their
    coefficients as graph tensors (``_prepare_local(var_device, var_dtype,
    apply_state)``) and compute one variable's update from them: the built-in
    classes as JAX functions of the values (``_dense``, ``_sparse``/
    ``_sparse_unique``, all variables in one op), a user's subclass as TF does,
    with TF ops (``_resource_apply_dense``, ``_resource_apply_sparse``).

    Args:
      name: the name scope of the optimizer's variables and ops.
      gradient_aggregator: accepted for TF's signature (one replica: unused).
      gradient_transformers: functions ``grads_and_vars -> grads_and_vars``
        applied after the clipping.
      **kwargs: ``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``lr`` (the
        deprecated ``learning_rate``), ``decay`` (``lr / (1 + decay * iterations)``).

    Raises:
      TypeError: an unknown keyword argument (TF's message).
      ValueError: a negative keyword value, or both ``clipnorm`` and
        ``global_clipnorm``.
    """

    _HAS_AGGREGATE_GRAD = False

    def __init__(
        self,
        name: str,
        gradient_aggregator: Any = None,
        gradient_transformers: Any = None,
        **kwargs: Any,
    ):
        for k in kwargs:
            if k not in _ALLOWED_KWARGS:
                raise TypeError(
                    "Unexpected keyword argument "
                    f"passed to optimizer: {k!s}. Allowed kwargs are "
                    f"{_ALLOWED_KWARGS}."
                )
            if kwargs[k] is not None and kwargs[k] < 0:
                raise ValueError(f"Expected {k} >= 0, received: {kwargs[k]}")
            if k == "lr":
                import warnings

                warnings.warn(
                    "The `lr` argument is deprecated, use `learning_rate` instead.",
                    stacklevel=2,
                )
        self._use_locking = True
        self._init_set_name(name)
        self._hyper: dict[str, Any] = {}
        self._slots: dict[Variable, dict[str, Variable]] = {}
        self._slot_names: list[str] = []
        self._weights: list[Variable] = []
        self._iterations: Variable | None = None
        decay = kwargs.pop("decay", 0.0)
        if decay < 0.0:
            raise ValueError(f"decay cannot be less than 0. Received: decay={decay}.")
        self._initial_decay = decay
        self._hypers_created = False
        self.gradient_aggregator = gradient_aggregator
        self.gradient_transformers = list(gradient_transformers or [])
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError(
                "Cannot accept both `clipnorm` and `global_clipnorm`. "
                f"Received: `clipnorm`={self.clipnorm}, "
                f"`global_clipnorm`={self.global_clipnorm}."
            )
        self.clipvalue = kwargs.pop("clipvalue", None)

    def _init_set_name(self, name: str | None) -> None:
        if not name:
            from adapters.v1.keras import backend

            snake = "".join(
                ("_" + c.lower() if c.isupper() and i else c.lower())
                for i, c in enumerate(type(self).__name__)
            )
            self._name = backend.unique_object_name(snake, zero_based=True)
        else:
            self._name = name

    # -- clipping (TF's properties refuse them next to gradient_transformers) ------------
    def _clip_setter(attr: str) -> Any:  # noqa: N805
        def fset(self: Optimizer, val: Any) -> None:
            if val is not None and self.gradient_transformers:
                raise ValueError(
                    f"`{attr}` cannot be set when `gradient_transformers` "
                    "is set. Instead, use the `gradient_transformers` to "
                    "specify clipping and other transformations. Received: "
                    f"val={val}, "
                    f"gradient_transformers={self.gradient_transformers}."
                )
            self.__dict__["_" + attr] = val

        def fget(self: Optimizer) -> Any:
            return self.__dict__.get("_" + attr)

        return property(fget, fset, doc=f"`float` or `None`: TF's ``{attr}``.")

    clipnorm = _clip_setter("clipnorm")
    global_clipnorm = _clip_setter("global_clipnorm")
    clipvalue = _clip_setter("clipvalue")
    del _clip_setter

    # -- hyperparameters ---------------------------------------------------------------
    def _set_hyper(self, name: str, value: Any) -> None:
        """Sets hyperparameter ``name``: before its variable exists, the value; after,
        a number is assigned to the variable (in Keras' session), a tensor, callable
        or schedule replaces it."""
        if name not in self._hyper:
            self._hyper[name] = value
            return
        prev = self._hyper[name]
        if (
            callable(prev)
            or isinstance(prev, (ops.Tensor, int, float))
            or _is_schedule(value)
            or _is_schedule(prev)
        ):
            self._hyper[name] = value
        else:
            from adapters.v1.keras import backend

            backend.set_value(prev, value)

    def _get_hyper(self, name: str, dtype: Any = None) -> Any:
        """Hyperparameter ``name``: its variable (created on first use), tensor or
        schedule; a callable is called; cast to ``dtype`` when given."""
        if not self._hypers_created:
            self._create_hypers()
        value = self._hyper[name]
        if _is_schedule(value):
            return value
        if callable(value):
            value = value()
        if dtype:
            return _tf().cast(value, dtype)
        return value

    def __getattr__(self, name: str) -> Any:
        # only reached when normal lookup fails: TF's hyperparameter access
        if name.startswith("__") or name == "_hyper":
            raise AttributeError(name)
        hyper = self.__dict__.get("_hyper", {})
        key = "learning_rate" if name == "lr" else name
        if key in hyper:
            return self._get_hyper(key)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "lr":
            name = "learning_rate"
        if "_hyper" in self.__dict__ and name in self._hyper:
            self._set_hyper(name, value)
        else:
            super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        result = set(super().__dir__()) | set(self._hyper)
        if "learning_rate" in self._hyper:
            result.add("lr")
        return sorted(result)

    def _serialize_hyperparameter(self, name: str) -> Any:
        value = self._hyper[name]
        if _is_schedule(value):
            return schedules.serialize(value)
        if callable(value):
            return value()
        if isinstance(value, (ops.Tensor, Variable)):
            from adapters.v1.keras import backend

            return backend.get_value(value)
        return value

    # -- variables ---------------------------------------------------------------------
    def add_weight(
        self,
        name: str,
        shape: Any,
        dtype: Any = None,
        initializer: Any = "zeros",
        trainable: bool | None = None,
        synchronization: Any = None,
        aggregation: Any = None,
    ) -> Variable:
        """A resource variable ``name`` in the current name scope (float32 unless
        ``dtype``); ``initializer`` is a number or ``"zeros"``."""
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        if initializer == "zeros":
            value: Any = np.zeros(shape, dtype.as_numpy_dtype)
        elif isinstance(initializer, (numbers.Number, np.ndarray, np.generic)):
            value = np.asarray(initializer, dtype.as_numpy_dtype)
        else:
            raise NotImplementedError(
                f"Optimizer.add_weight(initializer={initializer!r}) is not supported by "
                "adapters.v1: pass a number or 'zeros'"
            )
        variable = Variable(
            value,
            trainable=True if trainable is None else trainable,
            name=name,
            dtype=dtype,
            use_resource=True,
        )
        from adapters.v1.keras import backend

        backend._track_variable(variable)
        return variable

    @property
    def iterations(self) -> Variable:
        """The int64 variable ``iter``: the number of updates applied."""
        if self._iterations is None:
            self._iterations = self.add_weight(
                "iter", shape=[], dtype=dtypes.int64, trainable=False
            )
            self._weights.append(self._iterations)
        return self._iterations

    @iterations.setter
    def iterations(self, variable: Variable) -> None:
        if self._iterations is not None:
            raise RuntimeError(
                "Cannot set `iterations` to a new Variable after "
                "the Optimizer weights have been created. Here it is "
                f"attempting to set `iterations` to {variable}."
            )
        self._iterations = variable
        self._weights.append(variable)

    def _create_hypers(self) -> None:
        if self._hypers_created:
            return
        for name, value in sorted(self._hyper.items()):
            if isinstance(value, (ops.Tensor, Variable)) or callable(value):
                continue
            self._hyper[name] = self.add_weight(name, shape=[], trainable=False, initializer=value)
        self._hypers_created = True

    def _create_all_weights(self, var_list: list[Variable]) -> None:
        _ = self.iterations
        self._create_hypers()
        self._create_slots(var_list)

    def _create_slots(self, var_list: list[Variable]) -> None:
        pass

    def add_slot(
        self, var: Variable, slot_name: str, initializer: Any = "zeros", shape: Any = None
    ) -> Variable:
        """Slot ``slot_name`` of ``var``: a non-trainable resource variable
        ``<var name>/<slot_name>`` in the current name scope, colocated with ``var``,
        of ``var``'s dtype and shape; ``initializer`` is ``"zeros"`` or a number."""
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        slot_dict = self._slots.setdefault(var, {})
        weight = slot_dict.get(slot_name)
        if weight is None:
            dtype = var.dtype.base_dtype
            slot_shape = tuple(var._shape if shape is None else shape)
            np_dtype = dtype.as_numpy_dtype
            if initializer == "zeros":
                value = np.zeros(slot_shape, np_dtype)
            elif isinstance(initializer, (numbers.Number, np.generic, np.ndarray)):
                value = np.full(slot_shape, initializer, np_dtype)
            elif isinstance(initializer, str) or callable(initializer):
                from adapters.v1.keras import initializers

                init = initializers.get(initializer)
                value = lambda: init(list(slot_shape), dtype=dtype)  # noqa: E731
            else:
                raise NotImplementedError(
                    f"Optimizer.add_slot(initializer={initializer!r}) is not supported by "
                    "adapters.v1: pass an initializer, its name or a number"
                )
            graph = var.graph
            with graph.colocate_with(var):
                weight = Variable(
                    value if callable(value) else (lambda: value),
                    name=f"{var.op.name}/{slot_name}",
                    dtype=dtype,
                    trainable=False,
                    use_resource=True,
                )
            from adapters.v1.keras import backend

            backend._track_variable(weight)
            slot_dict[slot_name] = weight
            self._weights.append(weight)
        return weight

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        """``var``'s slot ``slot_name`` (KeyError if none, as TF)."""
        return self._slots[var][slot_name]

    def get_slot_names(self) -> list[str]:
        """The slot names, in creation order."""
        return self._slot_names

    def variables(self) -> list[Variable]:
        """``iterations`` and the slots, in creation order (not the hyperparameters)."""
        return self._weights

    @property
    def weights(self) -> list[Variable]:
        """As :meth:`variables`."""
        return self._weights

    def get_weights(self) -> list[Any]:
        """The values of :meth:`variables` in Keras' session."""
        from adapters.v1.keras import backend

        return backend.batch_get_value(self._weights)

    def set_weights(self, weights: list[Any]) -> None:
        """Sets :meth:`variables` from ``weights`` (Keras' session).

        Raises:
          ValueError: another number of values, or another shape (TF's messages).
        """
        from adapters.v1.keras import backend

        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on optimizer {self._name} "
                f"with a  weight list of length {len(weights)!s}, "
                f"but the optimizer was expecting {len(params)!s} "
                f"weights. Provided weights: {str(weights)[:50]}..."
            )
        if not params:
            return
        pairs = []
        for p, w in zip(params, weights, strict=True):
            w = np.asarray(w)
            if tuple(p._shape) != w.shape:
                raise ValueError(
                    f"Optimizer weight shape {tuple(p._shape)!s} not compatible with "
                    f"provided weight shape {w.shape!s}."
                )
            pairs.append((p, w))
        backend.batch_set_value(pairs)

    # -- gradients ---------------------------------------------------------------------
    def minimize(
        self,
        loss: Any,
        var_list: Any,
        grad_loss: Any = None,
        name: str | None = None,
        tape: Any = None,
    ) -> ops.Operation:
        """``apply_gradients`` of the gradients of ``loss``.

        Args:
          loss: a callable returning the loss (TF 2.21 requires a ``tape`` for a
            tensor loss; in a TF1 graph use :meth:`get_updates` or
            ``apply_gradients(zip(tf.gradients(loss, vars), vars))``).
          var_list: the variables, or a callable returning them.
          grad_loss: optional weight of ``loss``'s gradient.
          name: the update's name scope (default the optimizer's name).
          tape: not supported (no ``tf.GradientTape`` in a TF1 graph).

        Raises:
          ValueError: a tensor ``loss`` without ``tape`` (TF's message).
          NotImplementedError: a ``tape``.
        """
        if not callable(loss) and tape is None:
            raise ValueError(
                "`tape` is required when a `Tensor` loss is passed. "
                f"Received: loss={loss}, tape={tape}."
            )
        if tape is not None:
            raise NotImplementedError(
                "Optimizer.minimize(tape=...) is not supported by adapters.v1 (no "
                "GradientTape in a TF1 graph): use get_updates(loss, params) or "
                "apply_gradients(zip(tf.gradients(loss, var_list), var_list))"
            )
        loss, var_list = _call_loss(loss, var_list)
        grads: list[Any] = [None] * len(var_list)
        if loss is not None:
            with ops.name_scope(self._name + "/gradients"):
                grads = _tf().gradients(loss, var_list, grad_ys=grad_loss)
        return self.apply_gradients(list(zip(grads, var_list, strict=True)), name=name)

    def get_gradients(self, loss: Any, params: Any) -> list[Any]:
        """``tf.gradients(loss, params)`` in the name scope ``<name>/gradients``.

        Raises:
          ValueError: a variable has no gradient (TF's message).
        """
        params = list(_tf().nest.flatten(params))
        with ops.name_scope(self._name + "/gradients"):
            grads = _tf().gradients(loss, params)
            for grad, param in zip(grads, params, strict=True):
                if grad is None:
                    raise ValueError(
                        f"Variable {param} has `None` for gradient. "
                        "Please make sure that all of your ops have a "
                        "gradient defined (i.e. are differentiable). "
                        "Common ops without gradient: "
                        "K.argmax, K.round, K.eval."
                    )
        return grads

    def get_updates(self, loss: Any, params: Any) -> list[ops.Operation]:
        """``[apply_gradients(zip(get_gradients(loss, params), params))]``: Keras'
        training update (it increments ``iterations``)."""
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(list(zip(grads, params, strict=True)))]

    def _transform_gradients(self, grads_and_vars: list[tuple[Any, Variable]]) -> Any:
        tf = _tf()
        if self.clipvalue is not None:
            c = self.clipvalue
            # TF clips an IndexedSlices' values (each duplicate row on its own)
            grads_and_vars = [
                (
                    IndexedSlices(tf.clip_by_value(g.values, -c, c), g.indices, g.dense_shape)
                    if isinstance(g, IndexedSlices)
                    else tf.clip_by_value(g, -c, c),
                    v,
                )
                for g, v in grads_and_vars
            ]
        if self.clipnorm is not None:
            grads_and_vars = [(tf.clip_by_norm(g, self.clipnorm), v) for g, v in grads_and_vars]
        if self.global_clipnorm is not None:
            grads, variables = zip(*grads_and_vars, strict=True)
            clipped, _ = tf.clip_by_global_norm(list(grads), self.global_clipnorm)
            grads_and_vars = list(zip(clipped, variables, strict=True))
        for fn in self.gradient_transformers:
            grads_and_vars = fn(grads_and_vars)
        return grads_and_vars

    # -- the update --------------------------------------------------------------------
    def apply_gradients(
        self,
        grads_and_vars: Iterable[tuple[Any, Any]],
        name: str | None = None,
        experimental_aggregate_gradients: bool = True,
    ) -> ops.Operation:
        """An op applying the gradients, then incrementing ``iterations``.

        Creates ``iterations``, the hyperparameter variables and the slots on
        first use (in the name scope ``<name>``, outside any control
        dependencies). A variable with a ``constraint`` is assigned
        ``constraint(var)`` after its update.

        Args:
          grads_and_vars: ``(gradient, variable)`` pairs (``None`` gradients are
            skipped with a warning, as TF).
          name: the update's name scope (default the optimizer's name).
          experimental_aggregate_gradients: accepted (one replica).

        Returns:
          The op incrementing ``iterations`` (after the updates).

        Raises:
          ValueError: no gradient at all (TF's message).
          RuntimeError: a variable with a constraint has a sparse gradient.
          NotImplementedError: a variable that is a tensor.
        """
        pairs = tuple(grads_and_vars)
        if pairs:
            filtered = tuple((g, v) for g, v in pairs if g is not None)
            if not filtered:
                variable = ([v.name for _, v in pairs],)
                raise ValueError(
                    f"No gradients provided for any variable: {variable}. "
                    f"Provided `grads_and_vars` is {pairs}."
                )
            empty = [v.name for g, v in pairs if g is None]
            if empty:
                _log.warning(
                    "Gradients do not exist for variables %s when minimizing the loss. "
                    "If you're using `model.compile()`, did you forget to provide a "
                    "`loss` argument?",
                    empty,
                )
            pairs = filtered
        var_list = [v for _, v in pairs]
        for v in var_list:
            if not isinstance(v, Variable):
                raise NotImplementedError(
                    f"Updating a `Tensor` is not implemented. Received: var={v}."
                )
        graph = ops.get_default_graph()
        with graph.name_scope(self._name):
            with graph.control_dependencies(None):
                self._create_all_weights(var_list)
            if not pairs:
                return _tf().no_op()
            apply_state = self._prepare(var_list)
            pairs = tuple(
                (ops.convert_to_tensor(g) if not isinstance(g, IndexedSlices) else g, v)
                for g, v in pairs
            )
            pairs = tuple(self._transform_gradients(list(pairs)))
            return self._distributed_apply(list(pairs), apply_state, name)

    def _prepare(self, var_list: list[Variable]) -> dict[Any, dict[str, Any]]:
        """The coefficients of each variable dtype, graph tensors (TF's
        ``_prepare``: one set per (device, dtype); jtrain's devices are one)."""
        apply_state: dict[Any, dict[str, Any]] = {}
        keys = {(v.device, v.dtype.base_dtype) for v in var_list}
        for key in sorted(keys, key=lambda k: (k[0], k[1].name)):
            apply_state[key] = {}
            with ops.get_default_graph().device(key[0]):
                self._prepare_local(key[0], key[1], apply_state)
        return apply_state

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        if "learning_rate" in self._hyper:
            apply_state[(var_device, var_dtype)]["lr_t"] = _tf().identity(
                self._decayed_lr(var_dtype)
            )

    def _decayed_lr(self, var_dtype: Any) -> Any:
        """The learning rate of this step in ``var_dtype``: a schedule's value at
        ``iterations``, divided by ``1 + decay * iterations`` when ``decay > 0``."""
        tf = _tf()
        lr_t = self._get_hyper("learning_rate", var_dtype)
        if _is_schedule(lr_t):
            local_step = tf.cast(self.iterations, var_dtype)
            lr_t = tf.cast(lr_t(local_step), var_dtype)
        if self._initial_decay > 0.0:
            local_step = tf.cast(self.iterations, var_dtype)
            decay_t = tf.cast(self._initial_decay, var_dtype)
            lr_t = lr_t / (1.0 + decay_t * local_step)
        return lr_t

    def _distributed_apply(
        self,
        pairs: list[tuple[Any, Variable]],
        apply_state: dict[Any, dict[str, Any]],
        name: str | None,
    ) -> ops.Operation:
        graph = ops.get_default_graph()
        tf = _tf()
        for g, v in pairs:
            if isinstance(g, IndexedSlices) and v.constraint is not None:
                raise RuntimeError(
                    "Cannot use a constraint function on a sparse "
                    f"variable. Received: grad={g}, "
                    f"var.constraint={v.constraint}."
                )
        if self._graph_updates():
            return self._apply_graph_updates(pairs, apply_state, name)
        dtype_list = list(apply_state)
        coef_names = {d: sorted(apply_state[d]) for d in dtype_list}
        coef_inputs: list[ops.Tensor] = []
        for d in dtype_list:
            coef_inputs += [ops.convert_to_tensor(apply_state[d][k]) for k in coef_names[d]]
        grad_inputs: list[ops.Tensor] = []
        for g, _ in pairs:
            grad_inputs += [g.values, g.indices] if isinstance(g, IndexedSlices) else [g]
        n_grad = len(grad_inputs)
        opt = self
        var_slots = [
            (v, [(s, self._slots[v][s]) for s in self._slot_names if s in self._slots.get(v, {})])
            for _, v in pairs
        ]

        def compute(ctx: Any, *values: Any) -> tuple[()]:
            coefs: dict[Any, dict[str, Any]] = {}
            pos = n_grad
            for d in dtype_list:
                coefs[d] = {}
                for k in coef_names[d]:
                    coefs[d][k] = values[pos]
                    pos += 1
            grads: list[Any] = []
            pos = 0
            for g, v in pairs:
                if isinstance(g, IndexedSlices):
                    grads.append(JIndexedSlices(values[pos], values[pos + 1], v._shape))
                    pos += 2
                else:
                    grads.append(values[pos])
                    pos += 1
            if _replicas.in_collective_step():
                # as jtrain's tf.train optimizers: the workers' mean gradient, applied
                # on every worker (TF1's asynchronous updates have no SPMD form)
                _warn_async_once()
                grads = [_replicas.mean(g) for g in grads]
            for g, v, (_, slots) in zip(grads, [v for _, v in pairs], var_slots, strict=True):
                p = ctx.read(v)
                s = {k: ctx.read(var) for k, var in slots}
                c = coefs[(v.device, v.dtype.base_dtype)]
                if isinstance(g, JIndexedSlices):
                    new_p, new_s = opt._sparse(g.values, g.indices, p, s, c)
                else:
                    new_p, new_s = opt._dense(g, p, s, c)
                ctx.write(v, jnp.asarray(new_p).astype(p.dtype))
                for k, var in slots:
                    if k in new_s:
                        ctx.write(var, jnp.asarray(new_s[k]).astype(p.dtype))
            return ()

        with graph.name_scope(name or self._name):
            op = graph.create_op(
                "ApplyGradients", "update", inputs=grad_inputs + coef_inputs, compute=compute
            )
            touched: list[Variable] = []
            for v, slots in var_slots:
                touched += [v] + [var for _, var in slots]
            op._writes = tuple(touched)
            op._reads = tuple(touched)
            op._collective = True  # averaged over the workers of a multi-process job
            update = op
            constrained = [v for _, v in pairs if v.constraint is not None]
            if constrained:
                assigns = []
                for v in constrained:
                    with graph.name_scope("update_" + v.op.name), graph.control_dependencies([op]):
                        assigns.append(v.assign(v.constraint(v)))
                update = tf.group(op, *assigns)
            with graph.control_dependencies([update]):
                step = self.iterations.assign_add(
                    np.ones((), np.int64), read_value=False, name="AssignAddVariableOp"
                )
        return step

    # -- a subclass's own TF update ops (TF's OptimizerV2 API) -----------------------------
    def _graph_updates(self) -> bool:
        """Whether a subclass builds its updates with TF ops (``_resource_apply_dense``)."""
        return any(
            getattr(type(self), m, None) is not None
            for m in ("_resource_apply_dense", "_resource_apply_sparse")
        )

    def _apply_graph_updates(
        self,
        pairs: list[tuple[Any, Variable]],
        apply_state: dict[Any, dict[str, Any]],
        name: str | None,
    ) -> ops.Operation:
        """TF's ``_distributed_apply`` for a subclass with its own update ops: each
        variable's ``_resource_apply_dense`` (or, for an ``IndexedSlices``,
        ``_resource_apply_sparse_duplicate_indices``) in ``update_<var>``, then the
        ``iterations`` increment after them all."""
        import inspect

        graph = ops.get_default_graph()
        tf = _tf()
        update_ops = []
        with graph.name_scope(name or self._name):
            pairs = [(_worker_mean(g), v) for g, v in pairs]
            for g, v in pairs:
                with graph.colocate_with(v), graph.name_scope("update_" + v.op.name):
                    if isinstance(g, IndexedSlices):
                        fn = self._resource_apply_sparse_duplicate_indices
                        kwargs = _apply_state_kwarg(inspect.signature(fn), apply_state)
                        update = fn(g.values, v, g.indices, **kwargs)
                    else:
                        fn = getattr(self, "_resource_apply_dense", None)
                        if fn is None:
                            raise NotImplementedError(
                                f"{type(self).__name__} has no _resource_apply_dense"
                            )
                        kwargs = _apply_state_kwarg(inspect.signature(fn), apply_state)
                        update = fn(g, v, **kwargs)
                        if v.constraint is not None:
                            with graph.control_dependencies([update]):
                                update = v.assign(v.constraint(v))
                update_ops.append(update)
            with graph.control_dependencies([tf.group(update_ops)]):
                return self.iterations.assign_add(
                    np.ones((), np.int64), read_value=False, name="AssignAddVariableOp"
                )

    def _fallback_apply_state(self, var_device: Any, var_dtype: Any) -> dict[str, Any]:
        """The coefficients of one (device, dtype), for subclasses not given them."""
        apply_state: dict[Any, dict[str, Any]] = {(var_device, var_dtype): {}}
        self._prepare_local(var_device, var_dtype, apply_state)
        return apply_state[(var_device, var_dtype)]

    def _resource_apply_sparse_duplicate_indices(
        self, grad: Any, handle: Any, indices: Any, **kwargs: Any
    ) -> Any:
        """Sums the rows of duplicate indices, then ``_resource_apply_sparse``."""
        summed_grad, unique_indices = _deduplicate_indexed_slices(values=grad, indices=indices)
        fn = getattr(self, "_resource_apply_sparse", None)
        if fn is None:
            raise NotImplementedError(f"{type(self).__name__} has no _resource_apply_sparse")
        return fn(summed_grad, handle, unique_indices, **kwargs)

    def _resource_scatter_add(self, x: Variable, i: Any, v: Any) -> Any:
        """``x[i] += v``; the variable's value after it."""
        tf = _tf()
        with ops.get_default_graph().control_dependencies(
            [x.scatter_add(tf.IndexedSlices(v, i)).op]
        ):
            return x.read_value()

    def _resource_scatter_update(self, x: Variable, i: Any, v: Any) -> Any:
        """``x[i] = v``; the variable's value after it."""
        tf = _tf()
        with ops.get_default_graph().control_dependencies(
            [x.scatter_update(tf.IndexedSlices(v, i)).op]
        ):
            return x.read_value()

    # -- the math of one variable (JAX values) -------------------------------------------
    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _sparse(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        """By default: duplicate indices summed (TF's ``_deduplicate_indexed_slices``),
        then :meth:`_sparse_unique`."""
        unique = deduplicate(JIndexedSlices(values, indices, p.shape))
        return self._sparse_unique(unique.values, unique.indices, p, slots, c)

    def _sparse_unique(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        raise NotImplementedError

    # -- config ------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """The constructor arguments (``name``, clipping, and each subclass's)."""
        config: dict[str, Any] = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        """``cls(**config)`` (``lr`` renamed ``learning_rate``; a schedule's dict
        deserialized: as TF, in ``config`` itself)."""
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if "learning_rate" in config and isinstance(config["learning_rate"], dict):
            config["learning_rate"] = schedules.deserialize(
                config["learning_rate"], custom_objects=custom_objects
            )
        return cls(**config)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        cls = self.__class__
        result = cls.__new__(cls)
        memo[id(self)] = result
        for k, v in self.__dict__.items():
            object.__setattr__(result, k, copy.deepcopy(v, memo))
        return result


def _call_loss(loss: Any, var_list: Any) -> tuple[Any, list[Variable]]:
    """``(loss(), variables)`` of ``minimize``'s callables, with TF's tape semantics:
    only what the callable builds is differentiated (TF 2.21 records it on a
    ``GradientTape``), so a loss built before the call has no gradient (``None``
    for every variable: ``apply_gradients`` raises TF's error).

    Raises:
      NotImplementedError: the loss uses a tensor built before the call that depends
        on a variable of ``var_list`` (TF would see that path as constant).
    """
    graph = ops.get_default_graph()
    before = len(graph._ops)
    value = loss()
    if callable(var_list):
        var_list = var_list()
    variables = list(_tf().nest.flatten(var_list))
    existing = set(graph._ops[:before])
    tensor = ops.convert_to_tensor(value)
    if tensor.op in existing:
        return None, variables
    reads = {v.op for v in variables} | {v.value().op for v in variables}
    seen: set[Any] = set()
    stack = [tensor.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        for t in op.inputs:
            if t.op in existing and t.op not in reads and _depends_on(t.op, reads):
                raise NotImplementedError(
                    "Optimizer.minimize(loss): the loss callable uses "
                    f"{t.name}, built before the call from a variable it trains; TF's "
                    "GradientTape sees no gradient through it. Build the whole loss "
                    "inside the callable (or use get_updates/apply_gradients)"
                )
            stack.append(t.op)
    return tensor, variables


def _depends_on(op: Any, targets: set[Any]) -> bool:
    seen: set[Any] = set()
    stack = [op]
    while stack:
        o = stack.pop()
        if o in targets:
            return True
        if o in seen:
            continue
        seen.add(o)
        stack += [t.op for t in o.inputs]
    return False


def _worker_mean(g: Any) -> Any:
    """``g`` averaged over the workers in a multi-process step (as jtrain's tf.train
    optimizers take their gradients; unchanged in one process): an op of its own
    for a subclass's TF update ops.

    Raises (when the step runs):
      NotImplementedError: an ``IndexedSlices`` gradient in a multi-process step.
    """
    graph = ops.get_default_graph()
    sparse = isinstance(g, IndexedSlices)
    t = g.values if sparse else g

    def compute(ctx: Any, value: Any) -> tuple[Any]:
        if not _replicas.in_collective_step():
            return (value,)
        if sparse:
            raise NotImplementedError(
                "a Keras optimizer subclass with its own update ops cannot average a "
                "sparse gradient over the workers of a multi-process job in adapters.v1: "
                "densify it (tf.convert_to_tensor) or use a built-in Keras optimizer"
            )
        _warn_async_once()
        return (_replicas.mean(value),)

    op = graph.create_op(
        "WorkerMean", "worker_mean", inputs=[t], compute=compute, output_specs=[(t._shape, t.dtype)]
    )
    op._collective = True
    out = op.outputs[0]
    return IndexedSlices(out, g.indices, g.dense_shape) if sparse else out


def _apply_state_kwarg(signature: Any, apply_state: Any) -> dict[str, Any]:
    return {"apply_state": apply_state} if "apply_state" in signature.parameters else {}


def _deduplicate_indexed_slices(values: Any, indices: Any) -> tuple[Any, Any]:
    """``(summed values, unique indices)``: the rows of each index summed (TF's
    ``unique`` then ``unsorted_segment_sum``)."""
    tf = _tf()
    unique_indices, new_index_positions = tf.unique(indices)
    summed_values = tf.math.unsorted_segment_sum(
        values, new_index_positions, tf.shape(unique_indices)[0]
    )
    return summed_values, unique_indices


# -- helpers for the per-variable math ---------------------------------------------------
def _scalar(c: dict[str, Any], key: str, dtype: Any) -> Any:
    return jnp.asarray(c[key]).astype(dtype)


def _run(transformation: optax.GradientTransformation, g: Any, p: Any, **fields: Any) -> Any:
    """One variable through a ``jtrain.optimizers`` transformation: ``(new value,
    new state)`` from the state fields given (slots as arrays)."""
    state0 = transformation.init({"0": p})
    state = state0._replace(
        **{k: ({"0": v} if isinstance(getattr(state0, k), dict) else v) for k, v in fields.items()}
    )
    updates, new = transformation.update({"0": g}, state, {"0": p})
    return optax.apply_updates({"0": p}, updates)["0"], new


class SGD(Optimizer):
    """Gradient descent, with momentum (``ResourceApplyKerasMomentum``) when
    ``momentum > 0``.

    Dense, without momentum: ``var -= lr * grad``; with it::

        accum = accum * momentum - lr * grad
        var += accum                          (nesterov: var += accum * momentum - lr * grad)

    Sparse: without momentum, ``ResourceScatterAdd(var, indices, -grad * lr)`` (a
    duplicated index adds each of its rows in turn); with momentum, the same rows
    of ``accum`` and ``var`` after summing duplicates.

    Args:
      learning_rate: a number, tensor, callable or schedule (default 0.01).
      momentum: a number in [0, 1] (default 0.0).
      nesterov: Nesterov momentum (default False).
      name: default ``"SGD"``.
      **kwargs: see :class:`Optimizer`.

    Raises:
      ValueError: ``momentum`` outside [0, 1] (TF's message).
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: Any = 0.0,
        nesterov: bool = False,
        name: str = "SGD",
        **kwargs: Any,
    ):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._momentum = False
        if isinstance(momentum, ops.Tensor) or callable(momentum) or momentum > 0:
            self._momentum = True
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError(
                "`momentum` must be between [0, 1]. Received: "
                f"momentum={momentum} (of type {type(momentum)})."
            )
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _create_slots(self, var_list: list[Variable]) -> None:
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["momentum"] = _tf().identity(
            self._get_hyper("momentum", var_dtype)
        )

    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        lr = _scalar(c, "lr_t", p.dtype)
        if not self._momentum:
            return p - _r(g * lr), {}
        mom = _scalar(c, "momentum", p.dtype)
        accum = _r(slots["momentum"] * mom) - _r(g * lr)
        if self.nesterov:
            return p + (_r(accum * mom) - _r(g * lr)), {"momentum": accum}
        return p + accum, {"momentum": accum}

    def _sparse(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        if self._momentum:
            return super()._sparse(values, indices, p, slots, c)
        lr = _scalar(c, "lr_t", p.dtype)
        return p.at[indices].add(_r(-values * lr), mode="drop"), {}

    def _sparse_unique(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        lr = _scalar(c, "lr_t", p.dtype)
        mom = _scalar(c, "momentum", p.dtype)
        a = _r(gather_rows(slots["momentum"], indices) * mom) - _r(values * lr)
        rows = gather_rows(p, indices)
        if self.nesterov:
            rows = rows + (_r(a * mom) - _r(values * lr))
        else:
            rows = rows + a
        return scatter_rows(p, indices, rows), {
            "momentum": scatter_rows(slots["momentum"], indices, a)
        }

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "momentum": self._serialize_hyperparameter("momentum"),
                "nesterov": self.nesterov,
            }
        )
        return config


class Adam(Optimizer):
    """Adam (``ResourceApplyAdam``; ``ResourceApplyAdamWithAmsgrad`` with
    ``amsgrad``), with Keras' bias correction from ``iterations``::

        t = iterations + 1
        lr_t = lr * sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)
        m += (grad - m) * (1 - beta_1);  v += (grad**2 - v) * (1 - beta_2)
        vhat = max(vhat, v)                           (amsgrad)
        var -= m * lr_t / (sqrt(v or vhat) + epsilon)

    Sparse gradients take Keras' graph ops: ``m = m * beta_1`` then
    ``m[i] += g * (1 - beta_1)`` (likewise ``v``), and
    ``var -= (lr * (sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t))) * m / (sqrt(v) + epsilon)``
    on every row.

    Args:
      learning_rate: default 0.001. beta_1: default 0.9. beta_2: default 0.999.
      epsilon: default 1e-7 (a falsy value: ``backend.epsilon()``).
      amsgrad: default False. name: default ``"Adam"``.
      **kwargs: see :class:`Optimizer`.

    .. note::
       Slots are ``m`` and ``v`` (and ``vhat``): ``Adam/w/m``, not the
       ``w/Adam`` of ``tf.train.AdamOptimizer``; there are no ``beta1_power``
       variables (the powers come from ``iterations``).
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: Any = 0.9,
        beta_2: Any = 0.999,
        epsilon: Any = 1e-7,
        amsgrad: bool = False,
        name: str = "Adam",
        **kwargs: Any,
    ):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        from adapters.v1.keras import backend

        self.epsilon = epsilon or backend.epsilon()
        self.amsgrad = amsgrad

    def _create_slots(self, var_list: list[Variable]) -> None:
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")
        if self.amsgrad:
            for var in var_list:
                self.add_slot(var, "vhat")

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        tf = _tf()
        local_step = tf.cast(self.iterations + 1, var_dtype)
        beta_1_t = tf.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = tf.identity(self._get_hyper("beta_2", var_dtype))
        beta_1_power = tf.pow(beta_1_t, local_step)
        beta_2_power = tf.pow(beta_2_t, local_step)
        lr = apply_state[(var_device, var_dtype)]["lr_t"] * (
            tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        )
        apply_state[(var_device, var_dtype)].update(
            dict(
                lr=lr,
                epsilon=tf.convert_to_tensor(self.epsilon, var_dtype),
                beta_1_t=beta_1_t,
                beta_1_power=beta_1_power,
                one_minus_beta_1_t=1 - beta_1_t,
                beta_2_t=beta_2_t,
                beta_2_power=beta_2_power,
                one_minus_beta_2_t=1 - beta_2_t,
            )
        )

    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        d = p.dtype
        lr, b1, b2, eps, b1p, b2p = (
            _scalar(c, k, d)
            for k in ("lr_t", "beta_1_t", "beta_2_t", "epsilon", "beta_1_power", "beta_2_power")
        )
        if not self.amsgrad:
            new_p, st = _run(
                joptimizers.adam(lr, b1, b2, eps),
                g,
                p,
                m=slots["m"],
                v=slots["v"],
                beta1_power=b1p,
                beta2_power=b2p,
            )
            return new_p, {"m": st.m["0"], "v": st.v["0"]}
        alpha = lr * jnp.sqrt(1 - b2p) / (1 - b1p)
        m = slots["m"] + _r((g - slots["m"]) * (1 - b1))
        v = slots["v"] + _r((_r2(g) - slots["v"]) * (1 - b2))
        vhat = jnp.maximum(slots["vhat"], v)
        return p - (m * alpha) / (jnp.sqrt(vhat) + eps), {"m": m, "v": v, "vhat": vhat}

    def _sparse_unique(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        d = p.dtype
        lr, b1, b2, eps, omb1, omb2 = (
            _scalar(c, k, d)
            for k in (
                "lr",
                "beta_1_t",
                "beta_2_t",
                "epsilon",
                "one_minus_beta_1_t",
                "one_minus_beta_2_t",
            )
        )
        m = _r(slots["m"] * b1)
        m = scatter_rows(m, indices, gather_rows(m, indices) + _r(values * omb1))
        v = _r(slots["v"] * b2)
        # Keras' ``(grad * grad) * (1 - beta_2)`` as grappler's MinimizeBroadcasts
        # leaves it in TF: the scalar multiplies first, ``grad * (grad * (1 - beta_2))``.
        v = scatter_rows(v, indices, gather_rows(v, indices) + _r(values * _r(values * omb2)))
        out = {"m": m, "v": v}
        denom_v = v
        if self.amsgrad:
            denom_v = jnp.maximum(slots["vhat"], v)
            out["vhat"] = denom_v
        return p - _r(lr * m) / (jnp.sqrt(denom_v) + eps), out

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "beta_1": self._serialize_hyperparameter("beta_1"),
                "beta_2": self._serialize_hyperparameter("beta_2"),
                "epsilon": self.epsilon,
                "amsgrad": self.amsgrad,
            }
        )
        return config


def _jtrain_sparse(values: Any, indices: Any, p: Any) -> JIndexedSlices:
    """A sparse gradient for a ``jtrain.optimizers`` transformation (which sums
    duplicate indices first, as Keras' ``_deduplicate_indexed_slices``)."""
    return JIndexedSlices(values, indices, p.shape)


class RMSprop(Optimizer):
    """RMSprop: TF's kernels (``ResourceApplyRMSProp``, ``...CenteredRMSProp``) when
    ``momentum > 0``, else Keras' own ops::

        rms = rho * rms + (1 - rho) * grad**2
        mg = rho * mg + (1 - rho) * grad                      (centered)
        var -= lr * grad / (sqrt(rms [- mg**2]) + epsilon)    (epsilon outside the root)

    With momentum (the kernel; epsilon inside the root)::

        rms = rms + (grad**2 - rms) * (1 - rho)
        mom = mom * momentum + lr * grad / sqrt(rms [- mg**2] + epsilon)
        var -= mom

    Sparse gradients update the touched rows (duplicates summed); without momentum
    ``rms`` (and ``mg``) decay on every row first, as Keras' ops.

    Args:
      learning_rate: default 0.001. rho: default 0.9. momentum: default 0.0.
      epsilon: default 1e-7. centered: default False. name: default ``"RMSprop"``.
      **kwargs: see :class:`Optimizer`.

    Raises:
      ValueError: ``momentum`` outside [0, 1] (TF's message).

    .. note::
       The slot ``rms`` starts at zeros (``tf.train.RMSPropOptimizer``'s starts at
       ones).
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: Any = 0.9,
        momentum: Any = 0.0,
        epsilon: Any = 1e-7,
        centered: bool = False,
        name: str = "RMSprop",
        **kwargs: Any,
    ):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._momentum = False
        if isinstance(momentum, ops.Tensor) or callable(momentum) or momentum > 0:
            self._momentum = True
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError(
                "`momentum` must be between [0, 1]. Received: "
                f"momentum={momentum} (of type {type(momentum)})."
            )
        self._set_hyper("momentum", momentum)
        from adapters.v1.keras import backend

        self.epsilon = epsilon or backend.epsilon()
        self.centered = centered

    def _create_slots(self, var_list: list[Variable]) -> None:
        for var in var_list:
            self.add_slot(var, "rms")
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")
        if self.centered:
            for var in var_list:
                self.add_slot(var, "mg")

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        tf = _tf()
        rho = tf.identity(self._get_hyper("rho", var_dtype))
        apply_state[(var_device, var_dtype)].update(
            dict(
                neg_lr_t=-apply_state[(var_device, var_dtype)]["lr_t"],
                epsilon=tf.convert_to_tensor(self.epsilon, var_dtype),
                rho=rho,
                momentum=tf.identity(self._get_hyper("momentum", var_dtype)),
                one_minus_rho=1.0 - rho,
            )
        )

    def _kernel(self, c: dict[str, Any], dtype: Any) -> optax.GradientTransformation:
        lr, rho, mom, eps = (_scalar(c, k, dtype) for k in ("lr_t", "rho", "momentum", "epsilon"))
        return joptimizers.rmsprop(lr, rho, mom, eps, self.centered)

    def _kernel_step(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        fields = {"rms": slots["rms"], "momentum": slots["momentum"]}
        if self.centered:
            fields["mg"] = slots["mg"]
        new_p, st = _run(self._kernel(c, p.dtype), g, p, **fields)
        out = {"rms": st.rms["0"], "momentum": st.momentum["0"]}
        if self.centered:
            out["mg"] = st.mg["0"]
        return new_p, out

    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        if self._momentum:
            return self._kernel_step(g, p, slots, c)
        lr, rho, omr, eps = (
            _scalar(c, k, p.dtype) for k in ("lr_t", "rho", "one_minus_rho", "epsilon")
        )
        rms = _r(rho * slots["rms"]) + _r(omr * _r2(g))
        out = {"rms": rms}
        denom = rms
        if self.centered:
            mg = _r(rho * slots["mg"]) + _r(omr * g)
            out["mg"] = mg
            denom = rms - _r2(mg)
        return p - _r(lr * g) / (jnp.sqrt(denom) + eps), out

    def _sparse(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        if self._momentum:
            return self._kernel_step(_jtrain_sparse(values, indices, p), p, slots, c)
        return super()._sparse(values, indices, p, slots, c)

    def _sparse_unique(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        neg_lr, rho, omr, eps = (
            _scalar(c, k, p.dtype) for k in ("neg_lr_t", "rho", "one_minus_rho", "epsilon")
        )
        rms = _r(slots["rms"] * rho)
        # ``(grad * grad) * (1 - rho)`` as grappler's MinimizeBroadcasts leaves it
        rms = scatter_rows(rms, indices, gather_rows(rms, indices) + _r(values * _r(values * omr)))
        denom = gather_rows(rms, indices)
        out = {"rms": rms}
        if self.centered:
            mg = _r(slots["mg"] * rho)
            mg = scatter_rows(mg, indices, gather_rows(mg, indices) + _r(values * omr))
            out["mg"] = mg
            denom = denom - _r2(gather_rows(mg, indices))
        step = _r(neg_lr * values) / (jnp.sqrt(denom) + eps)
        return scatter_rows(p, indices, gather_rows(p, indices) + step), out

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "rho": self._serialize_hyperparameter("rho"),
                "momentum": self._serialize_hyperparameter("momentum"),
                "epsilon": self.epsilon,
                "centered": self.centered,
            }
        )
        return config


class Adagrad(Optimizer):
    """Adagrad with epsilon (``ResourceApplyAdagradV2``)::

        accum += grad**2
        var -= grad * lr / (sqrt(accum) + epsilon)

    Sparse: the same on the touched rows (duplicates summed).

    Args:
      learning_rate: default 0.001. initial_accumulator_value: the slot's start,
        default 0.1. epsilon: default 1e-7. name: default ``"Adagrad"``.
      **kwargs: see :class:`Optimizer`.

    Raises:
      ValueError: ``initial_accumulator_value < 0`` (TF's message).
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: Any = 1e-7,
        name: str = "Adagrad",
        **kwargs: Any,
    ):
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"initial_accumulator_value must be non-negative: {initial_accumulator_value}"
            )
        from adapters.v1.keras import backend

        if epsilon is None:
            epsilon = backend.epsilon()
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list: list[Variable]) -> None:
        for var in var_list:
            self.add_slot(
                var,
                "accumulator",
                np.asarray(self._initial_accumulator_value, var.dtype.base_dtype.as_numpy_dtype),
            )

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        tf = _tf()
        apply_state[(var_device, var_dtype)].update(
            dict(
                epsilon=tf.convert_to_tensor(self.epsilon, var_dtype),
                neg_lr_t=-apply_state[(var_device, var_dtype)]["lr_t"],
            )
        )

    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        lr, eps = _scalar(c, "lr_t", p.dtype), _scalar(c, "epsilon", p.dtype)
        acc = slots["accumulator"] + _r2(g)
        return p - _r(g * lr) / (jnp.sqrt(acc) + eps), {"accumulator": acc}

    def _sparse_unique(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        lr, eps = _scalar(c, "lr_t", p.dtype), _scalar(c, "epsilon", p.dtype)
        a = gather_rows(slots["accumulator"], indices) + _r2(values)
        rows = gather_rows(p, indices) - _r(lr * values) / (jnp.sqrt(a) + eps)
        return scatter_rows(p, indices, rows), {
            "accumulator": scatter_rows(slots["accumulator"], indices, a)
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        config.setdefault("initial_accumulator_value", 0.1)
        return super().from_config(config, custom_objects)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "initial_accumulator_value": self._initial_accumulator_value,
                "epsilon": self.epsilon,
            }
        )
        return config


class Adadelta(Optimizer):
    """Adadelta (``ResourceApplyAdadelta``, sparse ``ResourceSparseApplyAdadelta``),
    the kernel of ``tf.train.AdadeltaOptimizer`` (:func:`jtrain.optimizers.adadelta`)::

        accum_grad = accum_grad * rho + grad**2 * (1 - rho)
        update = sqrt(accum_var + epsilon) * rsqrt(accum_grad + epsilon) * grad
        var -= update * lr
        accum_var = accum_var * rho + update**2 * (1 - rho)

    Args:
      learning_rate: default 0.001. rho: default 0.95. epsilon: default 1e-7.
      name: default ``"Adadelta"``. **kwargs: see :class:`Optimizer`.
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: Any = 0.95,
        epsilon: Any = 1e-7,
        name: str = "Adadelta",
        **kwargs: Any,
    ):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        from adapters.v1.keras import backend

        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            self.add_slot(v, "accum_grad")
        for v in var_list:
            self.add_slot(v, "accum_var")

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        tf = _tf()
        apply_state[(var_device, var_dtype)].update(
            dict(
                epsilon=tf.convert_to_tensor(self.epsilon, var_dtype),
                rho=tf.identity(self._get_hyper("rho", var_dtype)),
            )
        )

    def _step(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        lr, rho, eps = (_scalar(c, k, p.dtype) for k in ("lr_t", "rho", "epsilon"))
        new_p, st = _run(
            joptimizers.adadelta(lr, rho, eps),
            g,
            p,
            accum=slots["accum_grad"],
            accum_update=slots["accum_var"],
        )
        return new_p, {"accum_grad": st.accum["0"], "accum_var": st.accum_update["0"]}

    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        return self._step(g, p, slots, c)

    def _sparse(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        return self._step(_jtrain_sparse(values, indices, p), p, slots, c)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "rho": self._serialize_hyperparameter("rho"),
                "epsilon": self.epsilon,
            }
        )
        return config


class Adamax(Optimizer):
    """Adamax (``ResourceApplyAdaMax``; sparse: Keras' ops)::

        m += (grad - m) * (1 - beta_1)
        v = max(beta_2 * v, |grad|)
        var -= lr / (1 - beta_1 ** t) * (m / (v + epsilon))      (t = iterations + 1)

    Sparse, on the touched rows (duplicates summed):
    ``m = m * beta_1 + grad * (1 - beta_1)``, ``v = max(v * beta_2, |grad|)``,
    ``var += (-lr / (1 - beta_1 ** t)) * (m / (v + epsilon))``.

    Args:
      learning_rate: default 0.001. beta_1: default 0.9. beta_2: default 0.999.
      epsilon: default 1e-7. name: default ``"Adamax"``.
      **kwargs: see :class:`Optimizer`.
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: Any = 0.9,
        beta_2: Any = 0.999,
        epsilon: Any = 1e-7,
        name: str = "Adamax",
        **kwargs: Any,
    ):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        from adapters.v1.keras import backend

        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list: list[Variable]) -> None:
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        tf = _tf()
        local_step = tf.cast(self.iterations + 1, var_dtype)
        beta_1_t = tf.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = tf.identity(self._get_hyper("beta_2", var_dtype))
        beta_1_power = tf.pow(beta_1_t, local_step)
        lr_t = apply_state[(var_device, var_dtype)]["lr_t"]
        apply_state[(var_device, var_dtype)].update(
            dict(
                neg_scaled_lr=-lr_t / (1 - beta_1_power),
                epsilon=tf.convert_to_tensor(self.epsilon, var_dtype),
                beta_1_t=beta_1_t,
                beta_1_power=beta_1_power,
                one_minus_beta_1_t=1 - beta_1_t,
                beta_2_t=beta_2_t,
            )
        )

    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        lr, b1, b2, eps, b1p = (
            _scalar(c, k, p.dtype)
            for k in ("lr_t", "beta_1_t", "beta_2_t", "epsilon", "beta_1_power")
        )
        m = slots["m"] + _r((g - slots["m"]) * (1 - b1))
        v = jnp.maximum(_r(b2 * slots["v"]), jnp.abs(g))
        return p - _r(lr / (1 - b1p) * (m / (v + eps))), {"m": m, "v": v}

    def _sparse_unique(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        neg, b1, b2, eps, omb1 = (
            _scalar(c, k, p.dtype)
            for k in ("neg_scaled_lr", "beta_1_t", "beta_2_t", "epsilon", "one_minus_beta_1_t")
        )
        m = _r(gather_rows(slots["m"], indices) * b1) + _r(values * omb1)
        v = jnp.maximum(_r(gather_rows(slots["v"], indices) * b2), jnp.abs(values))
        rows = gather_rows(p, indices) + _r(neg * (m / (v + eps)))
        return scatter_rows(p, indices, rows), {
            "m": scatter_rows(slots["m"], indices, m),
            "v": scatter_rows(slots["v"], indices, v),
        }

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "beta_1": self._serialize_hyperparameter("beta_1"),
                "beta_2": self._serialize_hyperparameter("beta_2"),
                "epsilon": self.epsilon,
            }
        )
        return config


class Ftrl(Optimizer):
    """FTRL-Proximal (``ResourceApplyFtrl``, ``ResourceApplyFtrlV2`` when
    ``l2_shrinkage_regularization_strength > 0``), the kernels of
    ``tf.train.FtrlOptimizer`` (:func:`jtrain.optimizers.ftrl`), with Keras' ``l2``
    ``l2_regularization_strength + beta / (2 * lr)`` computed in the graph.

    Args:
      learning_rate: default 0.001. learning_rate_power: ``<= 0``, default -0.5
        (a number). initial_accumulator_value: ``>= 0``, default 0.1.
      l1_regularization_strength: ``>= 0``, default 0.
      l2_regularization_strength: ``>= 0``, default 0.
      name: default ``"Ftrl"``. l2_shrinkage_regularization_strength: ``>= 0``,
        default 0. beta: default 0.0. **kwargs: see :class:`Optimizer`.

    Raises:
      ValueError: a value out of its range (TF's messages).
      NotImplementedError: ``learning_rate_power`` that is not a number (jtrain
        picks TF's ``-0.5`` square-root path when the graph is built).
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: Any = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: Any = 0.0,
        l2_regularization_strength: Any = 0.0,
        name: str = "Ftrl",
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: Any = 0.0,
        **kwargs: Any,
    ):
        super().__init__(name, **kwargs)
        if initial_accumulator_value < 0.0:
            raise ValueError(
                "`initial_accumulator_value` needs to be "
                "positive or zero. Received: "
                f"initial_accumulator_value={initial_accumulator_value}."
            )
        if learning_rate_power > 0.0:
            raise ValueError(
                "`learning_rate_power` needs to be "
                "negative or zero. Received: "
                f"learning_rate_power={learning_rate_power}."
            )
        if l1_regularization_strength < 0.0:
            raise ValueError(
                "`l1_regularization_strength` needs to be positive or zero. "
                "Received: l1_regularization_strength="
                f"{l1_regularization_strength}."
            )
        if l2_regularization_strength < 0.0:
            raise ValueError(
                "`l2_regularization_strength` needs to be positive or zero. "
                "Received: l2_regularization_strength="
                f"{l2_regularization_strength}."
            )
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError(
                "`l2_shrinkage_regularization_strength` needs to be positive "
                "or zero. Received: l2_shrinkage_regularization_strength"
                f"={l2_shrinkage_regularization_strength}."
            )
        if not isinstance(learning_rate_power, numbers.Real):
            raise NotImplementedError(
                "tf.keras.optimizers.Ftrl(learning_rate_power=...) takes a number in "
                f"adapters.v1, got {learning_rate_power!r}"
            )
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._set_hyper("beta", beta)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._learning_rate_power_value = learning_rate_power

    def _set_hyper(self, name: str, value: Any) -> None:
        if name == "learning_rate_power" and name in self._hyper:
            if isinstance(self._hyper[name], Variable) or not isinstance(value, numbers.Real):
                raise NotImplementedError(
                    "Ftrl's learning_rate_power is fixed once its variables exist in "
                    "adapters.v1 (the kernel's path is chosen when the graph is built): "
                    "create a new Ftrl optimizer"
                )
            self._learning_rate_power_value = value
        super()._set_hyper(name, value)

    def _create_slots(self, var_list: list[Variable]) -> None:
        for var in var_list:
            dtype = var.dtype.base_dtype.as_numpy_dtype
            self.add_slot(var, "accumulator", np.asarray(self._initial_accumulator_value, dtype))
            self.add_slot(var, "linear")

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        tf = _tf()
        c = apply_state[(var_device, var_dtype)]
        c.update(
            dict(
                l1_regularization_strength=tf.identity(
                    self._get_hyper("l1_regularization_strength", var_dtype)
                ),
                l2_regularization_strength=tf.identity(
                    self._get_hyper("l2_regularization_strength", var_dtype)
                ),
                beta=tf.identity(self._get_hyper("beta", var_dtype)),
                l2_shrinkage_regularization_strength=tf.cast(
                    self._l2_shrinkage_regularization_strength, var_dtype
                ),
            )
        )
        c["adjusted_l2"] = c["l2_regularization_strength"] + c["beta"] / (2.0 * c["lr_t"])

    def _step(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        d = p.dtype
        shrink = self._l2_shrinkage_regularization_strength
        transformation = joptimizers.ftrl(
            _scalar(c, "lr_t", d),
            learning_rate_power=np.asarray(self._learning_rate_power_value, np.float32).astype(d),
            initial_accumulator_value=self._initial_accumulator_value,
            l1_regularization_strength=_scalar(c, "l1_regularization_strength", d),
            l2_regularization_strength=_scalar(c, "adjusted_l2", d),
            l2_shrinkage_regularization_strength=(
                _scalar(c, "l2_shrinkage_regularization_strength", d) if shrink > 0 else 0.0
            ),
        )
        new_p, st = _run(transformation, g, p, accum=slots["accumulator"], linear=slots["linear"])
        return new_p, {"accumulator": st.accum["0"], "linear": st.linear["0"]}

    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        return self._step(g, p, slots, c)

    def _sparse(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        return self._step(_jtrain_sparse(values, indices, p), p, slots, c)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "initial_accumulator_value": self._initial_accumulator_value,
                "learning_rate_power": self._serialize_hyperparameter("learning_rate_power"),
                "l1_regularization_strength": self._serialize_hyperparameter(
                    "l1_regularization_strength"
                ),
                "l2_regularization_strength": self._serialize_hyperparameter(
                    "l2_regularization_strength"
                ),
                "beta": self._serialize_hyperparameter("beta"),
                "l2_shrinkage_regularization_strength": (
                    self._l2_shrinkage_regularization_strength
                ),
            }
        )
        return config


class Nadam(Optimizer):
    """Nesterov Adam with Keras' momentum schedule (Keras' own ops). With
    ``t = iterations + 1`` and ``mu(t) = beta_1 * (1 - 0.5 * 0.96 ** (schedule_decay * t))``,
    the non-slot variable ``momentum_cache`` (starting at 1) becomes
    ``momentum_cache * mu(t)`` each step, and::

        g' = grad / (1 - momentum_cache)
        m = beta_1 * m + (1 - beta_1) * grad;   m' = m / (1 - momentum_cache * mu(t + 1))
        v = beta_2 * v + (1 - beta_2) * grad**2;  v' = v / (1 - beta_2 ** t)
        m_bar = (1 - mu(t)) * g' + mu(t + 1) * m'
        var -= lr * m_bar / (sqrt(v') + epsilon)

    Sparse gradients: ``m``/``v`` decay on every row, the touched rows (duplicates
    summed) take the gradient terms and move.

    Args:
      learning_rate: default 0.001 (not decayed: ``schedule_decay`` is the
        momentum schedule's). beta_1: default 0.9. beta_2: default 0.999.
      epsilon: default 1e-7. name: default ``"Nadam"``.
      **kwargs: see :class:`Optimizer`; ``schedule_decay`` (default 0.004) is
        Keras' ``decay``.

    Raises:
      NotImplementedError: a learning-rate schedule (TF's Nadam fails on one).
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: Any = 0.9,
        beta_2: Any = 0.999,
        epsilon: Any = 1e-7,
        name: str = "Nadam",
        **kwargs: Any,
    ):
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)
        learning_rate = kwargs.get("lr", learning_rate)
        if _is_schedule(learning_rate):
            raise NotImplementedError(
                "tf.keras.optimizers.Nadam with a LearningRateSchedule is not supported "
                "(TF 2.21's legacy Nadam cannot read one either): use Adam"
            )
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        from adapters.v1.keras import backend

        self.epsilon = epsilon or backend.epsilon()
        self._m_cache: Variable | None = None
        self._m_cache_read: Any = None

    def _create_slots(self, var_list: list[Variable]) -> None:
        var_dtype = var_list[0].dtype.base_dtype
        if self._m_cache is None:
            self._m_cache = self.add_weight(
                "momentum_cache", shape=[], dtype=var_dtype, initializer=1.0, trainable=False
            )
            self._weights.append(self._m_cache)
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare(self, var_list: list[Variable]) -> dict[Any, dict[str, Any]]:
        self._m_cache_read = _tf().identity(self._m_cache)
        return super()._prepare(var_list)

    def _prepare_local(
        self, var_device: Any, var_dtype: Any, apply_state: dict[Any, dict[str, Any]]
    ) -> None:
        tf = _tf()
        assert self._m_cache is not None
        lr_t = tf.identity(self._get_hyper("learning_rate", var_dtype))
        beta_1_t = tf.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = tf.identity(self._get_hyper("beta_2", var_dtype))
        local_step = tf.cast(self.iterations + 1, var_dtype)
        next_step = tf.cast(self.iterations + 2, var_dtype)
        decay_base = tf.cast(0.96, var_dtype)
        m_t = beta_1_t * (1.0 - 0.5 * (tf.pow(decay_base, self._initial_decay * local_step)))
        m_t_1 = beta_1_t * (1.0 - 0.5 * (tf.pow(decay_base, self._initial_decay * next_step)))
        m_schedule_new = tf.cast(self._m_cache_read, var_dtype) * m_t
        if var_dtype == self._m_cache.dtype.base_dtype:
            m_schedule_new = tf.identity(self._m_cache.assign(m_schedule_new))
        m_schedule_next = m_schedule_new * m_t_1
        apply_state[(var_device, var_dtype)] = dict(
            lr_t=lr_t,
            neg_lr_t=-lr_t,
            epsilon=tf.convert_to_tensor(self.epsilon, var_dtype),
            beta_1_t=beta_1_t,
            beta_2_t=beta_2_t,
            m_t=m_t,
            m_t_1=m_t_1,
            one_minus_beta_1_t=1 - beta_1_t,
            one_minus_beta_2_t=1 - beta_2_t,
            one_minus_m_t=1.0 - m_t,
            one_minus_m_schedule_new=1.0 - m_schedule_new,
            one_minus_m_schedule_next=1.0 - m_schedule_next,
            v_t_prime_denominator=1.0 - tf.pow(beta_2_t, local_step),
        )

    def _coefs(self, c: dict[str, Any], dtype: Any) -> dict[str, Any]:
        return {k: _scalar(c, k, dtype) for k in c}

    def _dense(self, g: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]) -> Any:
        k = self._coefs(c, p.dtype)
        g_prime = kernel_divide(g, k["one_minus_m_schedule_new"])
        m = _r(k["beta_1_t"] * slots["m"]) + _r(k["one_minus_beta_1_t"] * g)
        m_prime = kernel_divide(m, k["one_minus_m_schedule_next"])
        v = _r(k["beta_2_t"] * slots["v"]) + _r(k["one_minus_beta_2_t"] * _r2(g))
        v_prime = kernel_divide(v, k["v_t_prime_denominator"])
        m_bar = _r(k["one_minus_m_t"] * g_prime) + _r(k["m_t_1"] * m_prime)
        new_p = p - _r(k["lr_t"] * m_bar) / (jnp.sqrt(v_prime) + k["epsilon"])
        return new_p, {"m": m, "v": v}

    def _sparse_unique(
        self, values: Any, indices: Any, p: Any, slots: dict[str, Any], c: dict[str, Any]
    ) -> Any:
        k = self._coefs(c, p.dtype)
        g_prime = kernel_divide(values, k["one_minus_m_schedule_new"])
        m = _r(slots["m"] * k["beta_1_t"])
        m = scatter_rows(m, indices, gather_rows(m, indices) + _r(values * k["one_minus_beta_1_t"]))
        m_prime = kernel_divide(gather_rows(m, indices), k["one_minus_m_schedule_next"])
        m_bar = _r(k["one_minus_m_t"] * g_prime) + _r(k["m_t_1"] * m_prime)
        v = _r(slots["v"] * k["beta_2_t"])
        # ``(grad * grad) * (1 - beta_2)`` as grappler's MinimizeBroadcasts leaves it
        v_rows = gather_rows(v, indices) + _r(values * _r(values * k["one_minus_beta_2_t"]))
        v = scatter_rows(v, indices, v_rows)
        v_prime = kernel_divide(gather_rows(v, indices), k["v_t_prime_denominator"])
        step = _r(k["neg_lr_t"] * m_bar) / (jnp.sqrt(v_prime) + k["epsilon"])
        return scatter_rows(p, indices, gather_rows(p, indices) + step), {"m": m, "v": v}

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "beta_1": self._serialize_hyperparameter("beta_1"),
                "beta_2": self._serialize_hyperparameter("beta_2"),
                "epsilon": self.epsilon,
            }
        )
        return config


# -- get / serialize / deserialize -------------------------------------------------------
def _classes() -> dict[str, type]:
    return {
        "adadelta": Adadelta,
        "adagrad": Adagrad,
        "adam": Adam,
        "adamax": Adamax,
        "nadam": Nadam,
        "rmsprop": RMSprop,
        "sgd": SGD,
        "ftrl": Ftrl,
    }


class TFOptimizer:
    """A ``tf.train`` optimizer as Keras takes it (Keras' ``TFOptimizer``, what
    :func:`get` makes of one): ``iterations`` is a resource variable
    ``TFOptimizer/iterations`` (int64) created with the wrapper, the global step of
    the wrapped optimizer's updates.

    Args:
      optimizer: a ``tf.train`` optimizer.
      iterations: the step variable to use instead (default: a new one).
    """

    def __init__(self, optimizer: Any, iterations: Any = None):
        self.optimizer = optimizer
        if iterations is None:
            from adapters.v1.keras import backend

            with ops.name_scope(type(self).__name__):
                iterations = backend.variable(0, dtype="int64", name="iterations")
        self.iterations = iterations
        self.updates: list[Any] = []

    def minimize(self, loss: Any, var_list: Any, grad_loss: Any = None, tape: Any = None) -> None:
        """The wrapped optimizer's update of the gradients of ``loss()``, with
        ``iterations`` as global step (returns None, as TF).

        Raises:
          ValueError: a tensor ``loss`` without ``tape`` (TF's message).
          NotImplementedError: a ``tape``.
        """
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed.")
        if tape is not None:
            raise NotImplementedError(
                "TFOptimizer.minimize(tape=...) is not supported by adapters.v1 (no "
                "GradientTape in a TF1 graph): use get_updates(loss, params)"
            )
        loss, var_list = _call_loss(loss, var_list)
        if var_list:
            grads: list[Any] = [None] * len(var_list)
            if loss is not None:
                grads = _tf().gradients(loss, var_list, grad_ys=grad_loss)
            self.apply_gradients(list(zip(grads, var_list, strict=True)))

    def apply_gradients(self, grads_and_vars: Any) -> None:
        """The wrapped optimizer's ``apply_gradients`` with ``iterations`` as global
        step (returns None, as TF)."""
        self.optimizer.apply_gradients(grads_and_vars, global_step=self.iterations)

    def get_grads(self, loss: Any, params: Any) -> Any:
        """The wrapped optimizer's ``compute_gradients``."""
        return self.optimizer.compute_gradients(loss, params)

    def get_updates(self, loss: Any, params: Any) -> list[Any]:
        """``[apply_gradients(compute_gradients(loss, params), global_step=iterations)]``
        of the wrapped optimizer; with no ``params``, ``[assign_add(iterations, 1)]``."""
        if not params:
            self.updates = [_tf().assign_add(self.iterations, 1)]
            return self.updates
        grads = self.optimizer.compute_gradients(loss, params)
        self.updates = [self.optimizer.apply_gradients(grads, global_step=self.iterations)]
        return self.updates

    @property
    def weights(self) -> Any:
        raise NotImplementedError

    def get_config(self) -> Any:
        raise NotImplementedError

    def from_config(self, config: Any) -> Any:
        raise NotImplementedError


def serialize(optimizer: Any, use_legacy_format: bool = False) -> dict[str, Any]:
    """``{"module", "class_name", "config", "registered_name"}`` of ``optimizer``, as
    TF 2.21 (``use_legacy_format``: ``{"class_name", "config"}``).

    Raises:
      ValueError: ``optimizer`` is not a Keras optimizer (TF's message).
    """
    if not isinstance(optimizer, Optimizer):
        raise ValueError(f"Could not interpret optimizer identifier: {optimizer}")
    if use_legacy_format:
        return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}
    return {
        "module": "keras.optimizers.legacy",
        "class_name": type(optimizer).__name__,
        "config": optimizer.get_config(),
        "registered_name": None,
    }


def deserialize(
    config: dict[str, Any],
    custom_objects: Any = None,
    use_legacy_format: bool = False,
    **kwargs: Any,
) -> Any:
    """The optimizer of a :func:`serialize` dict (class names case-insensitive for
    the built-in ones; others looked up in ``custom_objects``, then the
    ``custom_object_scope``'s and registered objects).

    Raises:
      ValueError: an unknown class name.
    """
    kwargs.pop("use_legacy_optimizer", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments: {kwargs}")
    classes = _classes()
    name = config["class_name"]
    if str(name).lower() in classes:
        # as TF, the built-in names are made lower case in the caller's dict
        config["class_name"] = name = str(name).lower()
    cls = classes.get(name)
    if cls is None:
        cls = {**custom_objects_in_scope(), **(custom_objects or {})}.get(name)
    if cls is None:
        raise ValueError(
            f"Unknown optimizer: '{name}'. Please ensure you are using a "
            "`keras.utils.custom_object_scope` and that this object is included in the scope. "
            "See https://www.tensorflow.org/guide/keras/save_and_serialize"
            "#registering_the_custom_object for details."
        )
    return cls.from_config(dict(config.get("config", {})), custom_objects=custom_objects)


def get(identifier: Any, **kwargs: Any) -> Any:
    """The Keras optimizer ``identifier`` names: a Keras optimizer is returned as
    is, a ``tf.train`` optimizer wrapped as Keras' ``TFOptimizer``, a dict
    deserialized, a string (``"adam"``, ``"SGD"``...) built with its defaults.

    Raises:
      ValueError: anything else (TF's message).
      TypeError: unknown keyword arguments.
    """
    from adapters.v1.training.optimizer import Optimizer as TrainOptimizer

    kwargs.pop("use_legacy_optimizer", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments: {kwargs}")
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, TrainOptimizer):
        return TFOptimizer(identifier)
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": str(identifier), "config": {}})
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


# names kept for scripts that reach for Keras' spelling
def _legacy_namespace() -> Any:
    import types

    ns = types.ModuleType("adapters.v1.keras.optimizers.legacy")
    for n in (
        "SGD",
        "Adam",
        "RMSprop",
        "Adagrad",
        "Adadelta",
        "Adamax",
        "Nadam",
        "Ftrl",
        "Optimizer",
    ):
        setattr(ns, n, globals()[n])
    return ns


legacy = _legacy_namespace()
