"""``tf.layers.Layer`` (TF1): a layer whose variables live in a variable scope.

A TF1 layer is named once (``dense``, ``dense_1``... unique in the enclosing
variable scope, or the ``name`` given), captures that variable scope when it is
first called (or at construction for the functional forms' ``name``) and creates
its variables there with ``tf.get_variable``: ``net/dense/kernel``, the names a TF
checkpoint holds. Its ops go under the scope's name scope (``net/dense/MatMul``);
calling a built layer again reuses its variables. Regularizer losses go to
``REGULARIZATION_LOSSES``, updates (batch normalization's moving averages) to
``UPDATE_OPS`` after each call while the layer is trainable, as TF's legacy
layers do.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import variable_scope as vs
from adapters.v1.ops.partitioned_variables import PartitionedVariable
from adapters.v1.ops.variables import VariableAggregation, VariableSynchronization

__all__ = ["InputSpec", "Layer"]

# Keyword arguments TF's layers accept besides their own (Keras' base layer).
_LAYER_KWARGS = {
    "_scope",
    "_reuse",
    "activity_regularizer",
    "input_shape",
    "batch_input_shape",
    "batch_size",
    "weights",
    "autocast",
    "dynamic",
    "input_dim",
}


def op(name: str) -> Callable[..., Any]:
    """The op table's public function ``name`` (``"matmul"``, ``"nn.bias_add"``)."""
    return FUNCTIONS[name]


def has_op(name: str) -> bool:
    """Whether the op table has ``name`` (layers whose op is not built yet say so)."""
    return name in FUNCTIONS


class InputSpec:
    """What a layer accepts: dtype, rank bounds and fixed axis sizes (TF's ``InputSpec``).

    Args (TF's defaults):
      dtype: the expected dtype (None: any).
      shape: the expected shape (None: any); fixes ``ndim``.
      ndim, max_ndim, min_ndim: rank constraints.
      axes: ``{axis: size}`` for axes of fixed size.
      allow_last_axis_squeeze, name, optional: accepted as TF's.
    """

    def __init__(
        self,
        dtype: Any = None,
        shape: Any = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: dict[int, int] | None = None,
        allow_last_axis_squeeze: bool = False,
        name: str | None = None,
        optional: bool = False,
    ):
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        self.optional = optional

    def check(self, layer: str, shape: TensorShape) -> None:
        """Raises ``ValueError`` (TF's messages) when a known ``shape`` breaks the spec."""
        if shape.ndims is None:
            return
        rank = shape.ndims
        for bound, bad, word in (
            (self.ndim, lambda n: rank != n, "expected ndim="),
            (self.min_ndim, lambda n: rank < n, "expected min_ndim="),
            (self.max_ndim, lambda n: rank > n, "expected max_ndim="),
        ):
            if bound is not None and bad(bound):
                raise ValueError(
                    f'Input 0 of layer "{layer}" is incompatible with the layer: '
                    f"{word}{bound}, found ndim={rank}. Full shape received: {_text(shape)}"
                )
        dims = shape.as_list()
        for axis, size in self.axes.items():
            got = dims[axis] if -rank <= axis < rank else None
            if size is not None and got not in (size, None):
                raise ValueError(
                    f'Input 0 of layer "{layer}" is incompatible with the layer: expected '
                    f"axis {axis} of input shape to have value {size}, but received input "
                    f"with shape {_text(shape)}"
                )

    def __repr__(self) -> str:
        parts = [f"{k}={v}" for k, v in vars(self).items() if v not in (None, {}, False)]
        return "InputSpec(" + ", ".join(parts) + ")"


def _text(shape: TensorShape) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape.as_list()) + ")"


def passed_arguments(frame_locals: dict[str, Any], *leave_out: str) -> dict[str, Any]:
    """A call's arguments by name, from the ``locals()`` a function takes first thing.

    What a layer constructor or functional form hands on to the class it wraps:
    each keeps its explicit signature (TF's names and defaults, for ``help()`` and
    TypeErrors) and forwards it whole, without listing it again. ``self``,
    ``__class__`` (a method that calls ``super()``) and ``leave_out`` are left out;
    ``**kwargs`` is merged in.
    """
    arguments = dict(frame_locals)
    extra = arguments.pop("kwargs", {})
    for key in ("self", "__class__", *leave_out):
        arguments.pop(key, None)
    arguments.update(extra)
    return arguments


def weight_trainable(trainable: bool | None, synchronization: Any) -> bool:
    """TF's ``add_weight`` rule: ``trainable`` None is True, and False with ``ON_READ``
    synchronization (a replica-local variable is never trained).

    Raises:
      ValueError: ``trainable=True`` with ``ON_READ`` synchronization (TF's message).
    """
    if synchronization == VariableSynchronization.ON_READ:
        if trainable:
            raise ValueError(
                "Synchronization value can be set to VariableSynchronization.ON_READ only "
                "for non-trainable variables. You have specified trainable=True and "
                "synchronization=VariableSynchronization.ON_READ."
            )
        return False
    return True if trainable is None else trainable


def _snake_case(name: str) -> str:
    """TF's layer base names: ``Conv2D`` -> ``conv2d``, ``BatchNorm`` -> ``batch_norm``."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


class Layer:
    """The base of TF1's layers (``tf.compat.v1.layers.Layer``).

    Subclasses implement ``build(input_shape)`` (creating variables with
    ``add_weight``) and ``call(inputs, ...)``.

    Args (TF's defaults):
      trainable: whether the layer's variables are trainable (in ``TRAINABLE_VARIABLES``).
      name: the layer's name, also its variable scope's (None: the class name in
        snake case, made unique in the enclosing variable scope).
      dtype: the variables' dtype (None: the first input's, float32 for non-floats).
      **kwargs: ``activity_regularizer``; ``_scope``/``_reuse`` (the functional
        forms' ``name``/``reuse``) and the other Keras base-layer keywords.

    Raises:
      TypeError: an unknown keyword argument.
    """

    def __init__(
        self, trainable: bool = True, name: str | None = None, dtype: Any = None, **kwargs: Any
    ):
        for key in kwargs:
            if key not in _LAYER_KWARGS:
                raise TypeError(f"Keyword argument not understood: {key}")
        self.trainable = trainable
        self.built = False
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._reuse = kwargs.get("_reuse")
        self.activity_regularizer = kwargs.get("activity_regularizer")
        self.input_spec: InputSpec | None = None
        self.supports_masking = False
        self._trainable_weights: list[Any] = []
        self._non_trainable_weights: list[Any] = []
        self._updates: list[Any] = []
        self.stateful = False  # TF's: a stateful layer keeps its updates when frozen
        self._losses: list[Any] = []
        # TF's weight regularization: callables evaluated by each ``losses`` access
        self._callable_losses: list[Callable[[], Any]] = []
        self._graph: ops.Graph | None = None
        if isinstance(name, vs.VariableScope):
            self._base_name, self._name = name.name, _unique_layer_name(type(self))
        elif name:
            self._base_name = self._name = name
        else:
            self._name = _unique_layer_name(type(self))
            self._base_name = _snake_case(type(self).__name__)
        self._scope: vs.VariableScope | None = None
        self._current_scope: vs.VariableScope | None = None
        scope = kwargs.get("_scope")
        if scope:
            with vs.variable_scope(scope) as captured:
                self._scope = captured

    def _to_compute_dtype(self, inputs: Any) -> Any:
        """``inputs`` cast to the layer's dtype where it differs: TF's ``Dense``, batch
        and layer normalization cast their input so (``tf.cast(inputs,
        self.compute_dtype)``), whatever Keras' V2 dtype behaviour."""
        if self._dtype is not None and inputs.dtype.base_dtype != self._dtype:
            return op("cast")(inputs, self._dtype)
        return inputs

    # -- properties ------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> str | None:
        return self._dtype.name if self._dtype is not None else None

    @property
    def scope_name(self) -> str:
        if not self._scope:
            raise ValueError(
                f'No name available for layer scope because the layer "{self._name}" has not '
                "been used yet. The scope name  is determined the first time the layer "
                "instance is called. You must therefore call the layer before querying "
                "`scope_name`."
            )
        return self._scope.name

    @property
    def graph(self) -> ops.Graph | None:
        return self._graph

    @property
    def trainable_weights(self) -> list[Any]:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list[Any]:
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self) -> list[Any]:
        return self.trainable_weights + self.non_trainable_weights

    # TF's aliases, looked up on the instance's class: a subclass overriding
    # ``trainable_weights`` (MultiRNNCell: its cells' weights) answers for both.
    @property
    def trainable_variables(self) -> list[Any]:
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list[Any]:
        return self.non_trainable_weights

    @property
    def variables(self) -> list[Any]:
        return self.weights

    @property
    def updates(self) -> list[Any]:
        """The recorded update ops; none while the layer is not trainable (TF's rule:
        a frozen, non-stateful layer's updates are dropped, so a
        ``batch_normalization(trainable=False, training=True)`` adds no
        ``UPDATE_OPS`` and its moving statistics stay put)."""
        return list(self._updates) if self.trainable or self.stateful else []

    @property
    def losses(self) -> list[Any]:
        """The added losses, then the weight regularization losses, as TF's: each
        access builds the weights' regularizer ops anew (``kernel/Regularizer``...)."""
        regularization = [loss() for loss in self._callable_losses]
        return list(self._losses) + [x for x in regularization if x is not None]

    # -- building ---------------------------------------------------------------------
    def build(self, input_shape: TensorShape) -> None:
        """Creates the layer's variables (the base layer has none)."""
        self.built = True

    def call(self, inputs: Any) -> Any:
        """The layer's computation (the base layer returns its inputs); subclasses may
        take more arguments (``training``), passed on from ``__call__``."""
        return inputs

    def add_weight(
        self,
        name: str,
        shape: Any,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Callable | None = None,
        trainable: bool | None = None,
        constraint: Callable | None = None,
        use_resource: bool | None = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
        partitioner: Callable | None = None,
        **kwargs: Any,
    ) -> Any:
        """Gets or creates the variable ``name`` in the layer's scope with ``tf.get_variable``.

        As TF's legacy layers: ``get_variable`` applies the variable scope's default
        regularizer, and the layer's own ``regularizer`` adds a second loss (under
        ``<name>/Regularizer``) to ``REGULARIZATION_LOSSES`` and ``losses``, both only
        when the variable is created (not when reused).

        Returns:
          The variable (created with ``reuse`` when the layer is built or reuses).

        Raises:
          TypeError: an unknown keyword argument.
          ValueError: ``trainable=True`` with ``ON_READ`` synchronization.
        """
        for key in kwargs:
            if key != "experimental_autocast":
                raise TypeError("Unknown keyword argument:", key)
        trainable = weight_trainable(trainable, synchronization)
        dtype = dtype or self.dtype or dtypes.float32
        self._set_scope()
        graph = ops.get_default_graph()
        existing = {id(v) for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)}
        with vs.variable_scope(
            self._scope, reuse=self.built or self._reuse, auxiliary_name_scope=False
        ) as scope:
            self._current_scope = scope
            with graph.name_scope(scope.original_name_scope):
                variable = vs.get_variable(
                    name,
                    shape=shape,
                    dtype=dtype,
                    initializer=initializer,
                    trainable=trainable and self.trainable,
                    constraint=constraint,
                    partitioner=partitioner,
                    use_resource=use_resource,
                    synchronization=synchronization,
                    aggregation=aggregation,
                )
                if regularizer:
                    parts = list(variable) if isinstance(variable, PartitionedVariable) else None
                    if parts is None and id(variable) not in existing:
                        self._add_weight_regularizer(name, variable, regularizer)
                    elif parts is not None and not any(id(v) in existing for v in parts):
                        for part in parts:
                            self._add_weight_regularizer(name, part, regularizer)
        if (
            trainable
            and self.trainable
            and variable in graph.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
        ):
            self._trainable_weights.append(variable)
        else:
            self._non_trainable_weights.append(variable)
        return variable

    def _add_weight_regularizer(self, name: str, variable: Any, regularizer: Callable) -> None:
        """TF's ``_handle_weight_regularization``: a loss callable, evaluated now for
        ``REGULARIZATION_LOSSES`` and again by each ``losses`` access."""

        def loss() -> Any:
            with ops.get_default_graph().name_scope(name + "/Regularizer"):
                return regularizer(variable)

        self._callable_losses.append(loss)
        value = loss()
        if value is not None:
            _add_to_collection([value], ops.GraphKeys.REGULARIZATION_LOSSES)

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Records update ops; ``updates`` (what ``UPDATE_OPS`` gets after each call)
        holds them while the layer is trainable (or stateful), as TF's."""
        self._updates.extend(updates if isinstance(updates, (list, tuple)) else [updates])

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Records losses and adds them to ``REGULARIZATION_LOSSES``, as TF's layers do."""
        losses = [x for x in (losses if isinstance(losses, (list, tuple)) else [losses])]
        losses = [x() if callable(x) else x for x in losses]
        losses = [x for x in losses if x is not None]
        self._losses.extend(losses)
        _add_to_collection(losses, ops.GraphKeys.REGULARIZATION_LOSSES)

    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is not None:
            return
        if self._reuse:
            with vs.variable_scope(scope if scope is not None else self._base_name) as s:
                self._scope = s
        else:
            with vs.variable_scope(scope, default_name=self._base_name) as s:
                self._scope = s

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Builds the layer on first use and applies it to ``inputs``.

        Args:
          inputs: the input tensor (or a value convertible to one).
          *args, **kwargs: passed to ``call`` (``training=``...); ``scope`` names
            the layer's variable scope on first use.

        Returns:
          The output tensor.
        """
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        graph = ops.get_default_graph()
        self._graph = graph
        if not isinstance(inputs, (list, tuple)):
            inputs = ops.convert_to_tensor(inputs)
            if self._dtype is None:
                dt = inputs.dtype
                self._dtype = dt if dt is not None and dt.is_floating else dtypes.float32
        with vs.variable_scope(
            self._scope, reuse=True if self.built else self._reuse, auxiliary_name_scope=False
        ) as current:
            self._current_scope = current
            with graph.name_scope(current.original_name_scope):
                if not self.built:
                    if self.input_spec is not None:
                        self.input_spec.check(self._name, inputs.shape)
                    self.build(inputs.shape)
                    self.built = True
                elif self.input_spec is not None:
                    self.input_spec.check(self._name, inputs.shape)
                outputs = self.call(inputs, *args, **kwargs)
                if outputs is None:
                    raise ValueError(f"A layer's `call` method should return a Tensor; {self}")
                if self.activity_regularizer is not None:
                    self._activity_loss(outputs)
        _add_to_collection(self.updates, ops.GraphKeys.UPDATE_OPS)
        return outputs

    apply = __call__

    def _activity_loss(self, outputs: Any) -> None:
        # TF: the regularizer's value divided by the batch size.
        with ops.get_default_graph().name_scope("ActivityRegularizer"):
            loss = ops.convert_to_tensor(self.activity_regularizer(outputs))
            batch = op("cast")(op("shape")(outputs)[0], loss.dtype)
            self.add_loss(op("truediv")(loss, batch))

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} {self._name!r}>"


def _unique_layer_name(cls: type) -> str:
    """``snake_case(cls)_N``, N counting from 1 per graph (TF's unnamed layers: ``dense_1``...)."""
    graph = ops.get_default_graph()
    counts = graph.__dict__.setdefault("_layer_name_counts", {})
    base = _snake_case(cls.__name__)
    counts[base] = counts.get(base, 0) + 1
    return f"{base}_{counts[base]}"


def _add_to_collection(elements: list[Any], key: str) -> None:
    collection = ops.get_collection_ref(key)
    present = {id(e) for e in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))
