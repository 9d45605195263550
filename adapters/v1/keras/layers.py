"""``tf.keras.layers`` (legacy Keras 2 as TF1 graph-mode scripts use it).

A Keras layer called on a graph tensor works as TF 2.21's legacy Keras does in a
TF1 graph (measured live, tests/interop/test_keras_interop.py):

- Its name is ``snake_case(class)``, made unique per graph zero-based (``dense``,
  ``dense_1``...; the counter is the one ``tf.layers`` uses, so a ``tf.layers``
  layer before it takes ``dense_1`` too). Each call opens a name scope of that
  name (uniquified: a second call's ops are under ``dense_1/``), and the first
  call builds the variables there: ``tf.Variable(name="kernel")`` gives
  ``dense/kernel:0`` (or ``net/dense/kernel:0`` under a scope), never through
  ``get_variable``, so variable scopes' reuse and initializers do not apply.
- Variables are resource variables in ``GLOBAL_VARIABLES``, and in
  ``TRAINABLE_VARIABLES`` when created trainable, even on a layer built with
  ``trainable=False`` (only its ``trainable_weights`` is empty). Defaults:
  ``glorot_uniform`` kernels, ``zeros`` biases (strings resolve through
  ``tf.keras.initializers.get``).
- Nothing is added to ``UPDATE_OPS`` or ``REGULARIZATION_LOSSES``: batch
  normalization's moving-average updates are ``layer.updates`` and regularizer
  losses ``layer.losses`` (built anew under ``<variable>/Regularizer`` on each
  access), which a script adds to its loss and runs itself.
- ``training`` not given (or None) is ``tf.keras.backend.learning_phase()``: the
  graph's ``keras_learning_phase`` bool placeholder (default False), so
  ``Dropout`` and ``BatchNormalization`` infer unless it is fed True (or
  ``set_learning_phase(1)`` fixed it).
- dtypes as TF1's Keras (V2 dtype behaviour off, as after TF's
  ``disable_v2_behavior()``): a layer without ``dtype`` takes its first input's (a
  float64 placeholder gives float64 weights and outputs) and casts no input; ``Dense``
  and the normalizations cast their input to their dtype.
  ``enable_v2_dtype_behavior()`` gives TF 2's: ``floatx`` (float32) layers casting
  floating inputs to their dtype.

The math is jtrain's ``tf.layers`` where TF's is the same (Dense, the
convolutions, pooling, Flatten, Dropout, BatchNormalization); the others are
TF's ops named as Keras names them (``add/add``, ``concatenate/concat``,
``re_lu/Relu``, ``up_sampling2d`` ResizeNearestNeighbor...).

Other modules add layers built on ``Layer`` here, re-exported below: the merge
functions (``add``, ``subtract``, ``multiply``, ``average``, ``maximum``,
``minimum``, ``concatenate``, ``dot``) and ``Dot`` (keras/merge.py); ``Conv3D``,
``Conv1DTranspose``, ``Conv3DTranspose``, ``SeparableConv1D``/``2D``,
``DepthwiseConv2D``, ``MaxPooling3D``, ``AveragePooling3D``,
``GlobalAveragePooling3D``, ``GlobalMaxPooling3D`` and their aliases, ``Cropping1D``/
``2D``/``3D``, ``ZeroPadding1D``/``3D``, ``UpSampling1D``/``3D``
(keras/convolutional.py); the recurrent layers (keras/recurrent.py);
``Bidirectional`` and ``TimeDistributed`` (keras/wrappers.py); ``GaussianNoise``,
``GaussianDropout``, ``AlphaDropout``, ``SpatialDropout1D``/``2D``/``3D``,
``ActivityRegularization``, ``Identity`` and ``Rescaling`` (keras/regularization.py).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.keras import activations, backend, initializers, regularizers, saving
from adapters.v1.layers import base as tl_base
from adapters.v1.layers import convolutional as tl_conv
from adapters.v1.layers import core as tl_core
from adapters.v1.layers import normalization as tl_norm
from adapters.v1.layers import pooling as tl_pool
from adapters.v1.layers.base import InputSpec, op, passed_arguments
from adapters.v1.ops import array_ops
from adapters.v1.ops import variables as tf_variables
from adapters.v1.ops.embedding_ops import embedding_lookup
from adapters.v1.ops.variables import VariableAggregation, VariableSynchronization

__all__ = [
    "Bidirectional",
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "SimpleRNN",
    "SimpleRNNCell",
    "StackedRNNCells",
    "TimeDistributed",
    "ThresholdedReLU",
    "Subtract",
    "RepeatVector",
    "PReLU",
    "Permute",
    "Minimum",
    "Maximum",
    "LayerNormalization",
    "GlobalMaxPooling1D",
    "GlobalMaxPool1D",
    "GlobalAvgPool1D",
    "GlobalAveragePooling1D",
    "ELU",
    "Average",
    "Activation",
    "Add",
    "AveragePooling1D",
    "AveragePooling2D",
    "AvgPool1D",
    "AvgPool2D",
    "BatchNormalization",
    "Concatenate",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Convolution1D",
    "Convolution2D",
    "Convolution2DTranspose",
    "Dense",
    "Dropout",
    "Embedding",
    "Flatten",
    "GlobalAveragePooling2D",
    "GlobalAvgPool2D",
    "GlobalMaxPool2D",
    "GlobalMaxPooling2D",
    "Input",
    "InputLayer",
    "InputSpec",
    "Lambda",
    "Layer",
    "LeakyReLU",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPooling1D",
    "MaxPooling2D",
    "Multiply",
    "ReLU",
    "Reshape",
    "Softmax",
    "UpSampling2D",
    "ZeroPadding2D",
    "disable_v2_dtype_behavior",
    "enable_v2_dtype_behavior",
    "Dot",
    "add",
    "average",
    "concatenate",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
    "AveragePooling3D",
    "AvgPool3D",
    "Conv1DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Convolution1DTranspose",
    "Convolution3D",
    "Convolution3DTranspose",
    "DepthwiseConv2D",
    "GlobalAveragePooling3D",
    "GlobalAvgPool3D",
    "GlobalMaxPool3D",
    "GlobalMaxPooling3D",
    "MaxPool3D",
    "MaxPooling3D",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "UpSampling1D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding3D",
    "ActivityRegularization",
    "AlphaDropout",
    "GaussianDropout",
    "GaussianNoise",
    "Identity",
    "Rescaling",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
]

_SHAPE_KWARGS = ("input_shape", "batch_input_shape", "batch_size", "input_dim")


def _shapes_of(outputs: Any) -> Any:
    def one(t: Any) -> Any:
        return tuple(t.shape.as_list()) if t.shape.ndims is not None else None

    if isinstance(outputs, (list, tuple)):
        return [one(t) for t in outputs]
    return one(outputs)


def constraints_get(identifier: Any) -> Any:
    """A constraint callable: ``tf.keras.constraints.get`` (None stays None)."""
    from adapters.v1.keras import constraints

    return constraints.get(identifier)


def _history(graph: ops.Graph) -> dict[int, tuple[Any, ...]]:
    """The graph's record of which layer call made each tensor (for functional models)."""
    return graph.__dict__.setdefault("_keras_history", {})


def _flat(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _setup(layer: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Keras' base-layer keywords: the name (unique zero-based), ``dtype`` (None: the
    first input's, ``floatx()`` under the V2 dtype behaviour), ``autocast``, the input
    shape a model's first layer may carry; returns the ``tf.layers`` keywords."""
    shape_args = {k: kwargs.pop(k) for k in _SHAPE_KWARGS if k in kwargs}
    batch = shape_args.get("batch_input_shape")
    if batch is None and "input_dim" in shape_args and "input_shape" not in shape_args:
        shape_args["input_shape"] = (shape_args["input_dim"],)
    if batch is None and "input_shape" in shape_args:
        batch = (shape_args.get("batch_size"), *tuple(shape_args["input_shape"]))
    layer._batch_input_shape = tuple(batch) if batch is not None else None
    if kwargs.get("weights") is not None:
        raise NotImplementedError(
            "tf.keras.layers: the `weights` argument is not supported by adapters.v1; call "
            "layer.set_weights(values) after the layer is built"
        )
    kwargs.pop("weights", None)
    kwargs.pop("dynamic", None)
    v2_dtypes = _v2_dtype_behavior_enabled()
    autocast = kwargs.pop("autocast", None)
    layer._autocast = v2_dtypes if autocast is None else bool(autocast)
    name = kwargs.get("name")
    if not name:
        kwargs["name"] = backend.unique_object_name(tl_base._snake_case(type(layer).__name__))
    if kwargs.get("dtype") is None and v2_dtypes:
        kwargs["dtype"] = backend.floatx()
    return kwargs


# Keras' V2 dtype behaviour: None follows TF 2 behaviour, which adapters.v1 never has
# (TF1's, and TF 2's under ``disable_v2_behavior()``): off.
_V2_DTYPE_BEHAVIOR: list[bool | None] = [None]


def enable_v2_dtype_behavior() -> None:
    """Keras layers created after this default to ``floatx()`` and cast floating inputs
    to their dtype (``tf.compat.v1.keras.layers.enable_v2_dtype_behavior``, TF 2's
    behaviour).

    .. note:: Off in adapters.v1 unless this is called, as in TF1 and in TF 2 after
       ``tf.compat.v1.disable_v2_behavior()``: a layer without ``dtype`` takes its
       first input's dtype (a float64 placeholder gives float64 weights and outputs)
       and no input is cast; only ``Dense`` and the normalizations cast their input
       to their dtype, as TF's do.
    """
    _V2_DTYPE_BEHAVIOR[0] = True


def disable_v2_dtype_behavior() -> None:
    """Keras layers created after this take their dtype from their first input and cast
    no input (``tf.compat.v1.keras.layers.disable_v2_dtype_behavior``): TF1's
    behaviour, adapters.v1's default."""
    _V2_DTYPE_BEHAVIOR[0] = False


def _v2_dtype_behavior_enabled() -> bool:
    """Whether Keras layers created now get TF 2's dtype behaviour (see
    ``enable_v2_dtype_behavior``)."""
    return bool(_V2_DTYPE_BEHAVIOR[0])


class Layer(tl_base.Layer):
    """The base of Keras' layers (``tf.keras.layers.Layer``) in a TF1 graph.

    Subclasses implement ``build(input_shape)`` (creating variables with
    ``add_weight``) and ``call(inputs, training=None...)``.

    Args (TF's defaults): trainable=True, name=None (``snake_case`` of the class,
    unique zero-based), dtype=None (the first input's; ``floatx()`` after
    ``enable_v2_dtype_behavior()``), **kwargs: ``input_shape``,
    ``batch_input_shape``, ``batch_size``, ``input_dim`` (a model's first layer),
    ``activity_regularizer``.

    Raises:
      TypeError: an unknown keyword argument.
    """

    _batch_input_shape: tuple[Any, ...] | None
    # the config's entries: constructor arguments TF's config leaves out, entries TF's
    # config holds at a value adapters.v1 fixes (checked by ``from_config``), and
    # arguments taken as given rather than from the attribute of that name
    _config_skip: tuple[str, ...] = ()
    _config_fixed: dict[str, Any] = {}
    _config_args: tuple[str, ...] = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # the constructor's arguments, for ``get_config``
        layer = super().__new__(cls)
        layer.__dict__["_init_arguments"] = saving.bound_arguments(cls, args, kwargs)
        return layer

    def __init__(
        self, trainable: bool = True, name: str | None = None, dtype: Any = None, **kwargs: Any
    ):
        kwargs = _setup(self, dict(kwargs, name=name, dtype=dtype))
        activity = regularizers.get(kwargs.pop("activity_regularizer", None))
        tl_base.Layer.__init__(self, trainable=trainable, activity_regularizer=activity, **kwargs)

    # -- config ----------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """The layer's config: ``name``, ``trainable``, ``batch_input_shape`` (where
        given), ``dtype`` (None until built), then, for Keras' layers, their
        constructor arguments as TF's config holds them (initializers, regularizers,
        constraints as ``{"class_name", "config"}``, activations by name).

        A subclass of the user's that overrides ``get_config`` gets the base entries
        (to add its own), as does one whose constructor takes no arguments of its own.

        Raises:
          NotImplementedError: a subclass whose constructor takes arguments of its own
            and that does not override ``get_config`` (TF1's Keras: no automatic
            config).
        """
        config = saving.base_config(self)
        if type(self).__module__.startswith("adapters.v1.keras."):
            config.update(saving.layer_config(self))
            return config
        if type(self).get_config is not Layer.get_config:
            return config
        own = [
            p
            for p in saving._own_parameters(type(self))
            if p not in ("name", "trainable", "dtype", "dynamic", "batch_input_shape")
        ]
        if own:
            raise NotImplementedError(
                "Layers with arguments in `__init__` must override `get_config`: "
                f"{type(self).__name__} takes {own}."
            )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """A new layer of ``get_config``'s ``config`` (``cls(**config)``).

        Raises:
          NotImplementedError: an entry adapters.v1 has at one value only (``groups``
            of the convolutions, ``implementation`` of the recurrent layers...)
            holding another.
        """
        return saving.layer_from_config(cls, config)

    # -- weights -------------------------------------------------------------------------
    def add_weight(
        self,
        name: str | None = None,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        constraint: Any = None,
        use_resource: bool | None = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
        partitioner: Any = None,
        **kwargs: Any,
    ) -> Any:
        """A resource variable ``name`` in the layer's name scope (``dense/kernel:0``).

        Args (TF's defaults): name, shape=None (a scalar), dtype=None (the layer's),
        initializer=None (``glorot_uniform`` for floats, ``zeros`` for integers and
        bools), regularizer=None (its loss joins ``losses``), trainable=None (True;
        False with ``ON_READ`` synchronization), constraint=None, use_resource,
        synchronization, aggregation, partitioner=None.

        Returns:
          The variable.

        Raises:
          TypeError: an unknown keyword argument.
          ValueError: ``trainable=True`` with ``ON_READ``; no initializer for a
            dtype that is neither floating, integer nor bool.
          NotImplementedError: a ``partitioner``.
        """
        for key in kwargs:
            if key not in ("experimental_autocast", "caching_device", "getter"):
                raise TypeError("Unknown keyword argument:", key)
        if partitioner is not None:
            raise NotImplementedError(
                "tf.keras Layer.add_weight: partitioner is not supported "
                "by adapters.v1; use tf.get_variable with a partitioner"
            )
        trainable = tl_base.weight_trainable(trainable, synchronization)
        dtype = dtypes.as_dtype(dtype or self.dtype or backend.floatx())
        shape = () if shape is None else tuple(shape)
        init = initializers.get(initializer)
        if init is None:
            if dtype.is_floating:
                init = initializers.glorot_uniform()
            elif dtype.is_integer or dtype.is_unsigned or dtype.is_bool:
                init = initializers.zeros()
            else:
                raise ValueError(
                    f"An initializer for variable {name} of type {dtype.name} is "
                    f"required for layer {self.name}. Received: {initializer}."
                )
        variable = tf_variables.Variable(
            initial_value=lambda: init(shape, dtype=dtype),
            name=name,
            dtype=dtype,
            trainable=trainable,
            constraint=constraints_get(constraint),
            use_resource=True,
            synchronization=synchronization,
            aggregation=aggregation,
        )
        backend._track_variable(variable)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._add_weight_regularizer(variable.name.split(":")[0], variable, regularizer)
        (self._trainable_weights if trainable else self._non_trainable_weights).append(variable)
        return variable

    def _add_weight_regularizer(self, name: str, variable: Any, regularizer: Callable) -> None:
        """Keras': a callable evaluated by each ``losses`` access (no collection)."""

        def loss() -> Any:
            with ops.get_default_graph().name_scope(name + "/Regularizer"):
                return regularizer(variable)

        self._callable_losses.append(loss)

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Records losses for ``losses`` (Keras adds none to a collection)."""
        values = [x() if callable(x) else x for x in _flat(losses)]
        self._losses.extend(ops.convert_to_tensor(x) for x in values if x is not None)

    @property
    def trainable_weights(self) -> list[Any]:
        return list(self._trainable_weights) if self.trainable else []

    def get_weights(self) -> list[np.ndarray]:
        """The weights' values in Keras' session (``backend.get_session()``)."""
        return list(backend.get_session().run(self.weights)) if self.weights else []

    def set_weights(self, weights: list[Any]) -> None:
        """Loads ``weights`` (in ``weights``' order) in Keras' session.

        Raises:
          ValueError: the wrong number of arrays or a shape that differs.
        """
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                f'You called `set_weights(weights)` on layer "{self.name}" with a weight list '
                f"of length {len(weights)}, but the layer was expecting {len(params)} "
                f"weights. Provided weights: {weights}..."
            )
        session = backend.get_session()
        for p, w in zip(params, weights, strict=True):
            w = np.asarray(w)
            if tuple(p.shape.as_list()) != w.shape:
                raise ValueError(
                    f"Layer {self.name} weight shape {tuple(p.shape.as_list())} is not "
                    f"compatible with provided weight shape {w.shape}."
                )
            p.load(w, session)

    def count_params(self) -> int:
        """The number of scalars in the layer's weights.

        Raises:
          ValueError: the layer is not built.
        """
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer {self.name}, but the "
                "layer isn't built. You can build it manually via: "
                f"`{self.name}.build(batch_input_shape)`."
            )
        return int(sum(math.prod(w.shape.as_list()) for w in self.weights))

    @property
    def input(self) -> Any:
        """The input of the layer's first call.

        Raises:
          AttributeError: the layer was never called.
        """
        return self._node(0, "input")

    @property
    def output(self) -> Any:
        """The output of the layer's first call.

        Raises:
          AttributeError: the layer was never called.
        """
        return self._node(1, "output")

    @property
    def output_shape(self) -> Any:
        """The static output shape of the layer's calls on Keras tensors, as a tuple
        (a list of tuples for several outputs).

        Raises:
          AttributeError: the layer has no such call, or calls of different shapes.
        """
        nodes = self.__dict__.get("_nodes")
        if not nodes:
            raise AttributeError(
                f'The layer "{self.name}" has never been called and thus '
                "has no defined output shape."
            )
        shapes = {str(_shapes_of(out)) for _, out in nodes}
        if len(shapes) != 1:
            raise AttributeError(
                f'The layer "{self.name}" has multiple inbound nodes, with '
                'different output shapes. Hence the notion of "output '
                'shape" is ill-defined for the layer. Use '
                "`get_output_shape_at(node_index)` instead."
            )
        return _shapes_of(nodes[0][1])

    def _node(self, index: int, what: str) -> Any:
        nodes = self.__dict__.get("_nodes")
        if not nodes:
            raise AttributeError(
                f"Layer {self.name} is not connected, no input to return."
                if what == "input"
                else f"Layer {self.name} has no inbound nodes."
            )
        return nodes[0][index]

    # -- calling ---------------------------------------------------------------------------
    def _expects_training(self) -> bool:
        return "training" in inspect.signature(self.call).parameters

    def _cast_inputs(self, inputs: Any) -> Any:
        if not self.__dict__.get("_autocast", True) or self.dtype is None:
            return inputs
        target = dtypes.as_dtype(self.dtype)

        def cast(x: Any) -> Any:
            if isinstance(x, ops.Tensor) and x.dtype.is_floating and x.dtype != target:
                return op("cast")(x, target)
            return x

        if isinstance(inputs, (list, tuple)):
            return type(inputs)(cast(x) for x in inputs)
        return cast(inputs)

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Builds the layer on first use and applies it to ``inputs`` in its name scope.

        Args:
          inputs: a tensor (or a list of tensors for merge layers), or values
            convertible to tensors.
          *args, **kwargs: passed to ``call``; ``training`` not given (or None) is
            ``tf.keras.backend.learning_phase()`` for layers whose ``call`` takes it.

        Returns:
          The output tensor(s).

        Raises:
          ValueError: inputs incompatible with the layer's ``input_spec`` (TF's
            messages), or a ``call`` returning None.
        """
        graph = ops.get_default_graph()
        self._graph = graph
        if isinstance(inputs, (list, tuple)):
            inputs = type(inputs)(ops.convert_to_tensor(x) for x in inputs)
        else:
            inputs = ops.convert_to_tensor(inputs)
        call_kwargs = dict(kwargs)
        if self._expects_training() and not args and call_kwargs.get("training") is None:
            call_kwargs["training"] = backend.learning_phase()
        with graph.name_scope(self._name):
            if not self.built:
                self._check_input(inputs)
                first = _flat(inputs)[0] if _flat(inputs) else None
                if self._dtype is None and isinstance(first, ops.Tensor):
                    # Keras' "_infer" policy (V2 dtype behaviour off): the first input's
                    self._dtype = first.dtype.base_dtype
                shapes = (
                    [x.shape for x in inputs] if isinstance(inputs, (list, tuple)) else inputs.shape
                )
                self.build(shapes)
                self.built = True
            else:
                self._check_input(inputs)
            outputs = self.call(self._cast_inputs(inputs), *args, **call_kwargs)
            if outputs is None:
                raise ValueError(
                    f"A layer's `call` method should return a Tensor or a list "
                    f"of Tensors, not None (layer: {self.name})."
                )
            if self.activity_regularizer is not None:
                for output in _flat(outputs):
                    self._activity_loss(output)
        # Keras' connectivity: a call on Keras tensors (an Input's, or outputs of such
        # calls) is a node of the layer, and its outputs are Keras tensors in turn.
        history = _history(graph)
        if all(id(x) in history for x in _flat(inputs)):
            for output in _flat(outputs):
                history[id(output)] = (output, self, inputs, args, dict(kwargs), outputs)
            self.__dict__.setdefault("_nodes", []).append((inputs, outputs))
        return outputs

    apply = __call__

    def _check_input(self, inputs: Any) -> None:
        if self.input_spec is not None and not isinstance(inputs, (list, tuple)):
            self.input_spec.check(self._name, inputs.shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output's static shape, from calling the layer on a placeholder of
        ``input_shape`` in a scratch graph."""
        with ops.Graph().as_default():
            clone = type(self).__new__(type(self))
            clone.__dict__.update({k: v for k, v in self.__dict__.items() if k != "_nodes"})
            clone.built = False
            clone._trainable_weights, clone._non_trainable_weights = [], []
            x = array_ops.placeholder(self.dtype or backend.floatx(), shape=input_shape)
            return clone(x).shape


def _tl_init(layer: Any, tl_class: type, *args: Any, **kwargs: Any) -> None:
    kwargs = _setup(layer, kwargs)
    for key in (
        "kernel_initializer",
        "bias_initializer",
        "beta_initializer",
        "gamma_initializer",
        "moving_mean_initializer",
        "moving_variance_initializer",
    ):
        if key in kwargs:
            kwargs[key] = initializers.get(kwargs[key])
    for key in (
        "kernel_regularizer",
        "bias_regularizer",
        "activity_regularizer",
        "beta_regularizer",
        "gamma_regularizer",
    ):
        if key in kwargs:
            kwargs[key] = regularizers.get(kwargs[key])
    for key in ("kernel_constraint", "bias_constraint", "beta_constraint", "gamma_constraint"):
        if key in kwargs:
            kwargs[key] = constraints_get(kwargs[key])
    if "activation" in kwargs:
        act = kwargs["activation"]
        kwargs["activation"] = None if act is None else activations.get(act)
    tl_class.__init__(layer, *args, **kwargs)


class Dense(Layer, tl_core.Dense):
    """``activation(inputs @ kernel + bias)`` (``tf.keras.layers.Dense``).

    Args (TF's defaults): units, activation=None, use_bias=True,
    kernel_initializer='glorot_uniform', bias_initializer='zeros',
    kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
    kernel_constraint=None, bias_constraint=None, **kwargs.

    Raises:
      ValueError: (when called) an input of rank < 2 or an unknown last dimension,
        with TF's messages.
    """

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        arguments = passed_arguments(locals())
        if int(units) <= 0:
            raise ValueError(
                "Received an invalid value for `units`, expected a positive "
                f"integer. Received: units={units}"
            )
        _tl_init(self, tl_core.Dense, **arguments)


class Conv1D(Layer, tl_conv._Conv):
    """1-D convolution (``tf.keras.layers.Conv1D``); Args (TF's defaults): filters,
    kernel_size, strides=1, padding='valid' ('same', 'causal'), data_format=
    'channels_last', dilation_rate=1, groups=1, activation=None, use_bias=True,
    kernel_initializer='glorot_uniform', bias_initializer='zeros', regularizers and
    constraints None, **kwargs.

    Raises:
      NotImplementedError: ``groups`` other than 1.
    """

    _rank = 1

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = "channels_last",
        dilation_rate: Any = 1,
        groups: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        arguments = passed_arguments(locals(), "groups")
        if groups != 1:
            raise NotImplementedError(
                f"tf.keras.layers.{type(self).__name__}: groups != 1 is "
                "not supported by adapters.v1; split the channels and "
                "concatenate"
            )
        _tl_init(self, tl_conv._Conv, self._rank, **arguments)


class Conv2D(Conv1D):
    """2-D convolution (``tf.keras.layers.Conv2D``); Args as ``Conv1D`` with
    strides=(1, 1), padding 'valid' or 'same', data_format=None (channels_last),
    dilation_rate=(1, 1)."""

    _rank = 2

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        groups: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**passed_arguments(locals()))


class Conv2DTranspose(Layer, tl_conv._ConvTranspose):
    """Transposed 2-D convolution (``tf.keras.layers.Conv2DTranspose``); Args (TF's
    defaults): filters, kernel_size, strides=(1, 1), padding='valid',
    output_padding=None, data_format=None, dilation_rate=(1, 1), activation=None,
    use_bias=True, kernel_initializer='glorot_uniform', bias_initializer='zeros',
    regularizers and constraints None, **kwargs. The batch dimension may be unknown.

    Raises:
      NotImplementedError: ``output_padding``, or a ``dilation_rate`` other than 1.
    """

    _config_fixed = {"groups": 1}

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        arguments = passed_arguments(locals(), "output_padding", "dilation_rate")
        if output_padding is not None or tl_conv.normalize_tuple(
            dilation_rate, 2, "dilation_rate"
        ) != (1, 1):
            raise NotImplementedError(
                "tf.keras.layers.Conv2DTranspose: output_padding and "
                "dilation_rate are not supported by adapters.v1; use "
                "tf.nn.conv2d_transpose"
            )
        _tl_init(self, tl_conv._ConvTranspose, 2, dilation_rate=1, **arguments)

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        shape = self._output_shape(inputs)
        outputs = op("nn.conv2d_transpose")(
            inputs,
            self.kernel,
            shape,
            strides=tl_conv._full(self.strides, first),
            padding=self.padding.upper(),
            data_format="NCHW" if first else "NHWC",
        )
        if self.use_bias:
            outputs = op("nn.bias_add")(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class _Pooling(Layer, tl_pool._Pooling):
    def __init__(
        self,
        pool_size: Any = 2,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ):
        _tl_init(
            self,
            tl_pool._Pooling,
            pool_size,
            strides,
            padding,
            data_format,
            **kwargs,
        )


_POOL_DOC = """{kind} pooling over {rank}-D windows (``tf.keras.layers.{cls}``).

    Args (TF's defaults): pool_size={size}, strides=None (pool_size),
    padding='valid', data_format={fmt}, **kwargs.
    """


class MaxPooling1D(_Pooling):
    __doc__ = _POOL_DOC.format(
        kind="Max", rank=1, cls="MaxPooling1D", size=2, fmt="'channels_last'"
    )
    _rank, _pool = 1, "nn.max_pool"

    def __init__(
        self,
        pool_size: Any = 2,
        strides: Any = None,
        padding: str = "valid",
        data_format: str = "channels_last",
        **kwargs: Any,
    ):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(MaxPooling1D):
    __doc__ = _POOL_DOC.format(
        kind="Average", rank=1, cls="AveragePooling1D", size=2, fmt="'channels_last'"
    )
    _rank, _pool = 1, "nn.avg_pool"


class MaxPooling2D(_Pooling):
    __doc__ = _POOL_DOC.format(kind="Max", rank=2, cls="MaxPooling2D", size="(2, 2)", fmt="None")
    _rank, _pool = 2, "nn.max_pool"

    def __init__(
        self,
        pool_size: Any = (2, 2),
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(MaxPooling2D):
    __doc__ = _POOL_DOC.format(
        kind="Average", rank=2, cls="AveragePooling2D", size="(2, 2)", fmt="None"
    )
    _rank, _pool = 2, "nn.avg_pool"


class _GlobalPooling2D(Layer):
    """A reduction over the ``_rank`` spatial axes (the 3-D layers set ``_rank = 3``)."""

    _reduce = "reduce_mean"
    _rank = 2

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = tl_core._data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def call(self, inputs: Any) -> Any:
        first = 1 if self.data_format == "channels_last" else 2
        axes = list(range(first, first + self._rank))
        return op(self._reduce)(inputs, axis=axes, keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling2D):
    """The mean over the spatial axes (``tf.keras.layers.GlobalAveragePooling2D``).

    Args (TF's defaults): data_format=None, keepdims=False, **kwargs.
    """

    _reduce = "reduce_mean"


class GlobalMaxPooling2D(_GlobalPooling2D):
    """The maximum over the spatial axes (``tf.keras.layers.GlobalMaxPooling2D``).

    Args (TF's defaults): data_format=None, keepdims=False, **kwargs.
    """

    _reduce = "reduce_max"


class Flatten(Layer, tl_core.Flatten):
    """``[batch, ...] -> [batch, -1]`` (``tf.keras.layers.Flatten``); Args: data_format=None."""

    def __init__(self, data_format: str | None = None, **kwargs: Any):
        _tl_init(self, tl_core.Flatten, data_format=data_format, **kwargs)


class Dropout(Layer, tl_core.Dropout):
    """Dropout while training (``tf.keras.layers.Dropout``); Args (TF's defaults): rate,
    noise_shape=None, seed=None, **kwargs. ``call(inputs, training=None)``: None is
    the learning phase."""

    def __init__(
        self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any
    ):
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(
                f"Invalid value {rate} received for `rate`, expected a value between 0 and 1."
            )
        _tl_init(self, tl_core.Dropout, rate, noise_shape=noise_shape, seed=seed, **kwargs)


class BatchNormalization(Layer, tl_norm.BatchNormalization):
    """Batch normalization (``tf.keras.layers.BatchNormalization``, Keras' v1 layer).

    Args (TF's defaults): axis=-1, momentum=0.99, epsilon=1e-3, center=True,
    scale=True, beta_initializer='zeros', gamma_initializer='ones',
    moving_mean_initializer='zeros', moving_variance_initializer='ones',
    regularizers and constraints None, renorm=False, renorm_clipping=None,
    renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
    adjustment=None, name=None, **kwargs.

    ``call(inputs, training=None)``: None is the learning phase; the two
    ``AssignMovingAvg`` updates are in ``updates`` (not ``UPDATE_OPS``), no-ops
    while the learning phase is False.

    Raises:
      NotImplementedError: renorm, virtual_batch_size, adjustment, several axes.
    """

    _config_skip = (
        "renorm",
        "renorm_clipping",
        "renorm_momentum",
        "fused",
        "virtual_batch_size",
        "adjustment",
    )
    _config_args = ("axis",)

    def get_config(self) -> dict[str, Any]:
        """Keras' config; ``axis`` as given until built, then the positive axes list."""
        config = super().get_config()
        if self.built:
            config["axis"] = [int(a) for a in self.axis]
        return config

    def __init__(
        self,
        axis: Any = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        renorm: bool = False,
        renorm_clipping: Any = None,
        renorm_momentum: float = 0.99,
        fused: bool | None = None,
        trainable: bool = True,
        virtual_batch_size: int | None = None,
        adjustment: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ):
        _tl_init(self, tl_norm.BatchNormalization, **passed_arguments(locals()))

    def call(self, inputs: Any, training: Any = None) -> Any:
        if training is None:
            training = backend.learning_phase()
        return tl_norm.BatchNormalization.call(self, inputs, training=training)


class Embedding(Layer):
    """Rows of an ``embeddings`` table ``[input_dim, output_dim]`` per id
    (``tf.keras.layers.Embedding``).

    Args (TF's defaults): input_dim, output_dim, embeddings_initializer='uniform'
    (``RandomUniform(-0.05, 0.05)``), embeddings_regularizer=None,
    activity_regularizer=None, embeddings_constraint=None, mask_zero=False,
    input_length=None, **kwargs. Non-integer ids are cast to int32.

    Raises:
      ValueError: a non-positive ``input_dim`` or ``output_dim``.
      NotImplementedError: ``mask_zero`` (masks are not propagated).
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        activity_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        input_length: int | None = None,
        **kwargs: Any,
    ):
        if input_dim <= 0 or output_dim <= 0:
            raise ValueError(
                "Both `input_dim` and `output_dim` should be positive, "
                f"Received input_dim = {input_dim} and output_dim = {output_dim}"
            )
        if mask_zero:
            raise NotImplementedError(
                "tf.keras.layers.Embedding: mask_zero is not supported by "
                "adapters.v1 (masks are not propagated); mask the loss "
                "with tf.not_equal(ids, 0)"
            )
        if "input_shape" not in kwargs and "batch_input_shape" not in kwargs:
            # TF's: an Embedding always carries an input shape (a Sequential starting
            # with one is built at once on a ``(None, input_length)`` input)
            kwargs["input_shape"] = (input_length,)
        if kwargs.get("dtype") is None:
            # TF's: floatx even where layers take their first input's dtype (ids here)
            kwargs["dtype"] = backend.floatx()
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = embeddings_constraint
        self.mask_zero, self.input_length = mask_zero, input_length

    def build(self, input_shape: Any) -> None:
        self.embeddings = self.add_weight(
            "embeddings",
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )
        self.built = True

    def _cast_inputs(self, inputs: Any) -> Any:
        return inputs

    def call(self, inputs: Any) -> Any:
        if inputs.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            inputs = op("cast")(inputs, dtypes.int32)
        return embedding_lookup(self.embeddings, inputs)


class Activation(Layer):
    """``activation(inputs)`` (``tf.keras.layers.Activation``); Args: activation, **kwargs."""

    def __init__(self, activation: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)


class LeakyReLU(Layer):
    """``tf.nn.leaky_relu(inputs, alpha)`` (``tf.keras.layers.LeakyReLU``); alpha=0.3.

    Raises:
      ValueError: ``alpha`` None.
    """

    def __init__(self, alpha: float = 0.3, **kwargs: Any):
        if alpha is None:
            raise ValueError(
                "The alpha value of a Leaky ReLU layer cannot be None, "
                f"Expecting a float. Received: {alpha}"
            )
        super().__init__(**kwargs)
        self.alpha = backend.cast_to_floatx(alpha)

    def call(self, inputs: Any) -> Any:
        return op("nn.leaky_relu")(inputs, alpha=float(self.alpha))


class ReLU(Layer):
    """``max(x, 0)`` (``tf.keras.layers.ReLU``); Args (TF's defaults): max_value=None,
    negative_slope=0.0, threshold=0.0, **kwargs.

    Raises:
      ValueError: a negative ``max_value`` or ``negative_slope``.
    """

    def __init__(
        self,
        max_value: float | None = None,
        negative_slope: float = 0.0,
        threshold: float = 0.0,
        **kwargs: Any,
    ):
        if max_value is not None and max_value < 0.0:
            raise ValueError(
                f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}"
            )
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(
                "negative_slope of a ReLU layer cannot be a negative value. "
                f"Received: {negative_slope}"
            )
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs: Any) -> Any:
        return activations.relu(
            inputs, alpha=self.negative_slope, max_value=self.max_value, threshold=self.threshold
        )


class Softmax(Layer):
    """``tf.nn.softmax(inputs, axis)`` (``tf.keras.layers.Softmax``); axis=-1.

    Raises:
      NotImplementedError: a ``mask`` argument.
    """

    def __init__(self, axis: int = -1, **kwargs: Any):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is not None:
            raise NotImplementedError(
                "tf.keras.layers.Softmax: mask is not supported by "
                "adapters.v1; add a large negative value to masked "
                "logits"
            )
        return op("nn.softmax")(inputs, axis=self.axis)


class Reshape(Layer):
    """``inputs`` reshaped to ``(batch,) + target_shape`` (``tf.keras.layers.Reshape``).

    Args: target_shape (may hold one -1), **kwargs.
    """

    def __init__(self, target_shape: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)

    def call(self, inputs: Any) -> Any:
        known = inputs.shape.as_list()[1:] if inputs.shape.ndims else [None]
        if None not in known:
            self._check_size(known)
        batch = inputs.shape.as_list()[0] if inputs.shape.ndims else None
        if -1 not in self.target_shape:
            return op("reshape")(inputs, [-1, *self.target_shape])
        if batch is not None:
            return op("reshape")(inputs, [batch, *self.target_shape])
        outputs = op("reshape")(inputs, op("stack")([op("shape")(inputs)[0], *self.target_shape]))
        if None not in known:
            rest = math.prod(d for d in self.target_shape if d != -1)
            full = [None] + [math.prod(known) // rest if d == -1 else d for d in self.target_shape]
            outputs.set_shape(full)
        return outputs

    def _check_size(self, input_shape: list[int]) -> None:
        """TF's check of an input whose example shape is known (Keras'
        ``_fix_unknown_dimension``).

        Raises:
          ValueError: ``target_shape`` holds two -1, or does not hold the example's
            size (TF's messages).
        """
        output_shape = list(self.target_shape)
        if output_shape.count(-1) > 1:
            raise ValueError(
                "There must be at most one unknown dimension in "
                f"output_shape. Received: output_shape={output_shape}."
            )
        known = math.prod(d for d in output_shape if d != -1)
        original = math.prod(input_shape)
        fits = known != 0 and original % known == 0 if -1 in output_shape else known == original
        if not fits:
            raise ValueError(
                "total size of new array must be unchanged, "
                f"input_shape = {input_shape}, output_shape = {output_shape}"
            )


class Lambda(Layer):
    """``function(inputs, **arguments)`` as a layer (``tf.keras.layers.Lambda``).

    Args (TF's defaults): function, output_shape=None, mask=None, arguments=None,
    **kwargs.
    """

    def __init__(
        self,
        function: Callable,
        output_shape: Any = None,
        mask: Any = None,
        arguments: dict | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = dict(arguments or {})
        self._output_shape = output_shape

    def _cast_inputs(self, inputs: Any) -> Any:
        return inputs

    def _expects_training(self) -> bool:
        return "training" in inspect.signature(self.function).parameters

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return self.function(inputs, **self.arguments, **kwargs)

    def get_config(self) -> dict[str, Any]:
        """TF's: ``function`` (a Python function as its marshalled bytecode, TF's
        ``"lambda"`` type; another callable by name), ``function_type``, ``module``,
        ``output_shape`` and its type and module, ``arguments``."""
        config = saving.base_config(self)
        config.update(saving.function_config(self.function, "function", "module"))
        config.update(
            saving.function_config(self._output_shape, "output_shape", "output_shape_module")
        )
        config["arguments"] = dict(self.arguments)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        """A ``Lambda`` of a config whose functions are named (``"function"`` type:
        looked up in ``custom_objects``, then the loads' custom objects).

        Raises:
          ValueError: a Python ``lambda`` (marshalled bytecode: adapters.v1 never runs
            code read from a file; TF refuses it too in its default safe mode), or an
            unknown function name.
        """
        config = dict(config)
        config["function"] = saving.function_from_config(
            config, "function", "module", custom_objects
        )
        config["output_shape"] = saving.function_from_config(
            config, "output_shape", "output_shape_module", custom_objects
        )
        return cls(**config)


class _Merge(Layer):
    # Add, Multiply: the op table's binary op folded over the inputs, and its nodes' name.
    _merge_op: tuple[str, str]

    def call(self, inputs: Any) -> Any:
        function, name = self._merge_op
        output = inputs[0]
        for x in inputs[1:]:
            output = op(function)(output, x, name=name)
        return output

    def _check_input(self, inputs: Any) -> None:
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                "A merge layer should be called on a list of inputs. "
                f"Received: inputs={inputs} (not a list of tensors)"
            )
        if len(inputs) < 1:
            raise ValueError(
                "A merge layer should be called on a list of at least 1 input. "
                f"Got {len(inputs)} inputs. Full input_shape received: []"
            )


class Add(_Merge):
    """The sum of a list of tensors (``tf.keras.layers.Add``)."""

    _merge_op = ("add", "add")


class Multiply(_Merge):
    """The product of a list of tensors (``tf.keras.layers.Multiply``)."""

    _merge_op = ("multiply", "mul")


class Concatenate(_Merge):
    """A list of tensors joined on ``axis`` (``tf.keras.layers.Concatenate``); axis=-1."""

    def __init__(self, axis: int = -1, **kwargs: Any):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any) -> Any:
        return backend.concatenate(list(inputs), axis=self.axis)


class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (``tf.keras.layers.Subtract``).

    Raises:
      ValueError: not exactly two inputs (TF's message).
    """

    def _check_input(self, inputs: Any) -> None:
        super()._check_input(inputs)
        if len(inputs) != 2:
            shapes = [tuple(x.shape.as_list()) for x in inputs]
            raise ValueError(
                "A `Subtract` layer should be called on exactly 2 inputs. "
                f"Received: input_shape={shapes}"
            )

    def call(self, inputs: Any) -> Any:
        return inputs[0] - inputs[1]


class Average(_Merge):
    """The mean of a list of tensors (``tf.keras.layers.Average``): their sum, left to
    right, divided by their count."""

    def call(self, inputs: Any) -> Any:
        output = inputs[0]
        for x in inputs[1:]:
            output = output + x
        return output / len(inputs)


class Maximum(_Merge):
    """The element-wise maximum of a list of tensors (``tf.keras.layers.Maximum``)."""

    _merge_op = ("maximum", "Maximum")


class Minimum(_Merge):
    """The element-wise minimum of a list of tensors (``tf.keras.layers.Minimum``)."""

    _merge_op = ("minimum", "Minimum")


class RepeatVector(Layer):
    """``[batch, features] -> [batch, n, features]`` (``tf.keras.layers.RepeatVector``):
    ``tile(expand_dims(x, 1), [1, n, 1])``, as Keras' ``backend.repeat``. Args: n."""

    def __init__(self, n: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs: Any) -> Any:
        pattern = op("stack")([1, self.n, 1])
        return op("tile")(op("expand_dims")(inputs, 1), pattern)


class Permute(Layer):
    """The non-batch axes of the input permuted (``tf.keras.layers.Permute``): ``dims``
    numbers them from 1, as ``transpose(x, (0,) + dims)``.

    Raises:
      ValueError: ``dims`` not a permutation of ``1..len(dims)`` (TF's message).
    """

    def __init__(self, dims: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. "
                "The set of indices in `dims` must be consecutive and start from 1. "
                f"Received dims={dims}"
            )
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs: Any) -> Any:
        return op("transpose")(inputs, perm=(0,) + self.dims)


class _GlobalPooling1D(Layer):
    _reduce = "reduce_mean"

    def __init__(self, data_format: str = "channels_last", keepdims: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = tl_core._data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        steps_axis = 1 if self.data_format == "channels_last" else 2
        return op(self._reduce)(inputs, axis=steps_axis, keepdims=self.keepdims)


class GlobalAveragePooling1D(_GlobalPooling1D):
    """The mean over the steps (``tf.keras.layers.GlobalAveragePooling1D``).

    Args (TF's defaults): data_format='channels_last', keepdims=False, **kwargs.
    """

    _reduce = "reduce_mean"


class GlobalMaxPooling1D(_GlobalPooling1D):
    """The maximum over the steps (``tf.keras.layers.GlobalMaxPooling1D``).

    Args (TF's defaults): data_format='channels_last', keepdims=False, **kwargs.
    """

    _reduce = "reduce_max"


class ELU(Layer):
    """``elu(x)``, its negative part scaled by ``alpha`` (``tf.keras.layers.ELU``);
    alpha=1.0: ``where(x > 0, elu(x), alpha * elu(x))`` for another alpha, as Keras.

    Raises:
      ValueError: ``alpha`` None.
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any):
        if alpha is None:
            raise ValueError(
                "Alpha of an ELU layer cannot be None, expecting a float. Received: None"
            )
        super().__init__(**kwargs)
        self.alpha = backend.cast_to_floatx(alpha)

    def call(self, inputs: Any) -> Any:
        res = op("nn.elu")(inputs)
        if float(self.alpha) == 1:
            return res
        return op("where")(inputs > 0, res, float(self.alpha) * res)


class ThresholdedReLU(Layer):
    """``x`` where ``x > theta``, else 0 (``tf.keras.layers.ThresholdedReLU``);
    theta=1.0: ``x * cast(x > theta)``, as Keras.

    Raises:
      ValueError: ``theta`` None or negative.
    """

    def __init__(self, theta: float = 1.0, **kwargs: Any):
        if theta is None:
            raise ValueError(
                "Theta of a Thresholded ReLU layer cannot be None, expecting a float. "
                f"Received: {theta}"
            )
        if theta < 0:
            raise ValueError(
                f"The theta value of a Thresholded ReLU layer should be >=0. Received: {theta}"
            )
        super().__init__(**kwargs)
        self.theta = backend.cast_to_floatx(theta)

    def call(self, inputs: Any) -> Any:
        theta = op("cast")(float(self.theta), self.dtype)
        return inputs * op("cast")(op("greater")(inputs, theta), self.dtype)


class PReLU(Layer):
    """``max(x, 0) - alpha * max(-x, 0)`` with a learned ``alpha`` per input element
    (``tf.keras.layers.PReLU``), shared along ``shared_axes``.

    Args (TF's defaults): alpha_initializer='zeros', alpha_regularizer=None,
    alpha_constraint=None, shared_axes=None, **kwargs.
    """

    def __init__(
        self,
        alpha_initializer: Any = "zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints_get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape: Any) -> None:
        dims = TensorShape(input_shape).as_list()[1:]
        param_shape = [None if d is None else int(d) for d in dims]
        for axis in self.shared_axes or ():
            param_shape[axis - 1] = 1
        self.alpha = self.add_weight(
            shape=param_shape,
            name="alpha",
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )
        self.built = True

    def call(self, inputs: Any) -> Any:
        pos = backend.relu(inputs)
        neg = -self.alpha * backend.relu(-inputs)
        return pos + neg


class LayerNormalization(Layer):
    """Each example normalized over ``axis`` and scaled (``tf.keras.layers.LayerNormalization``).

    As Keras: where ``axis`` is the last axes and ``epsilon >= 1.001e-5`` (float32
    weights), what ``fused_batch_norm`` computes of the input reshaped ``[1, examples,
    features, 1]`` (NCHW: each example's biased moments), then ``* gamma + beta``;
    otherwise ``nn.moments`` and ``nn.batch_normalization`` with ``gamma`` and ``beta``.

    .. note:: The fused path's values are TF's to float32 rounding, not its bits (TF's
       ``FusedBatchNormV3`` kernel sums in its own order).

    Args (TF's defaults): axis=-1, epsilon=1e-3, center=True, scale=True,
    beta_initializer='zeros', gamma_initializer='ones', beta_regularizer=None,
    gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs.

    Raises:
      TypeError: ``axis`` not an int or a list of ints.
      ValueError: an axis out of range or repeated (TF's messages).
    """

    _config_args = ("axis",)

    def get_config(self) -> dict[str, Any]:
        """Keras' config; ``axis`` as given until built, then the positive axes list."""
        config = super().get_config()
        if self.built:
            config["axis"] = [int(a) for a in self.axis]
        return config

    def __init__(
        self,
        axis: Any = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = [axis]
        else:
            raise TypeError(
                "Expected an int or a list/tuple of ints for the argument 'axis', "
                f"but received: {axis!r}"
            )
        self.epsilon = epsilon
        self.center, self.scale = center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints_get(beta_constraint)
        self.gamma_constraint = constraints_get(gamma_constraint)

    def build(self, input_shape: Any) -> None:
        shape = TensorShape(input_shape).as_list()
        ndims = len(shape)
        for idx, x in enumerate(self.axis):
            if x < 0:
                self.axis[idx] = ndims + x
        for x in self.axis:
            if x < 0 or x >= ndims:
                raise ValueError(
                    f"Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank "
                    f"(with inputs.rank={ndims}). Received: axis={tuple(self.axis)}"
                )
        if len(self.axis) != len(set(self.axis)):
            raise ValueError(f"Duplicate axis: {tuple(self.axis)}")
        param_shape = [int(shape[dim]) for dim in self.axis]
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma",
                shape=param_shape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                trainable=True,
            )
        if self.center:
            self.beta = self.add_weight(
                name="beta",
                shape=param_shape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                trainable=True,
            )
        axis = sorted(self.axis)
        contiguous = axis[-1] == ndims - 1 and axis[-1] - axis[0] == len(axis) - 1
        self._fused = contiguous and self.epsilon >= 1.001e-5 and self.dtype == "float32"
        self.built = True

    def call(self, inputs: Any) -> Any:
        inputs = self._to_compute_dtype(inputs)
        shape = inputs.shape.as_list()
        ndims = len(shape)
        broadcast_shape = [1] * ndims
        for dim in self.axis:
            broadcast_shape[dim] = shape[dim]

        def broadcast(v: Any) -> Any:
            if v is not None and len(v.shape) != ndims and self.axis != [ndims - 1]:
                return op("reshape")(v, broadcast_shape)
            return v

        if not self._fused:
            mean, variance = op("nn.moments")(inputs, self.axis, keep_dims=True)
            return op("nn.batch_normalization")(
                inputs,
                mean,
                variance,
                offset=broadcast(self.beta),
                scale=broadcast(self.gamma),
                variance_epsilon=self.epsilon,
            )
        # (the normalized axes' sizes are static: the weights' shape needs them)
        in_dim = math.prod(shape[sorted(self.axis)[0] :])
        rows = op("reshape")(inputs, [-1, in_dim])
        # fused_batch_norm of [1, examples, in_dim, 1] (NCHW) with scale 1 and offset 0:
        # each row's biased moments, (x - mean) * rsqrt(variance + epsilon)
        mean = op("reduce_mean")(rows, axis=1, keepdims=True)
        centered = rows - mean
        variance = op("reduce_mean")(op("square")(centered), axis=1, keepdims=True)
        outputs = centered * op("rsqrt")(variance + self.epsilon)
        if shape.count(None) <= 1:
            outputs = op("reshape")(outputs, [-1 if d is None else d for d in shape])
        else:
            outputs = op("reshape")(outputs, op("shape")(inputs))
        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        if scale is not None:
            outputs = outputs * op("cast")(scale, outputs.dtype)
        if offset is not None:
            outputs = outputs + op("cast")(offset, outputs.dtype)
        return outputs


class ZeroPadding2D(Layer):
    """Zero rows and columns around an image batch (``tf.keras.layers.ZeroPadding2D``).

    Args (TF's defaults): padding=(1, 1) (an int, 2 ints, or 2 pairs), data_format=None.

    Raises:
      ValueError: a ``padding`` of another form.
    """

    def __init__(self, padding: Any = (1, 1), data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = tl_core._data_format(data_format)
        if isinstance(padding, int):
            pads = ((padding, padding), (padding, padding))
        elif hasattr(padding, "__len__") and len(padding) == 2:
            if all(isinstance(p, int) for p in padding):
                pads = ((padding[0], padding[0]), (padding[1], padding[1]))
            else:
                pads = tuple(tl_conv.normalize_tuple(p, 2, "padding") for p in padding)
        else:
            raise ValueError(f"`padding` should have two elements. Received: padding={padding}.")
        self.padding = pads
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs: Any) -> Any:
        (top, bottom), (left, right) = self.padding
        if self.data_format == "channels_first":
            pads = [[0, 0], [0, 0], [top, bottom], [left, right]]
        else:
            pads = [[0, 0], [top, bottom], [left, right], [0, 0]]
        return op("pad")(inputs, pads)


class UpSampling2D(Layer):
    """Rows and columns repeated ``size`` times (``tf.keras.layers.UpSampling2D``).

    Args (TF's defaults): size=(2, 2), data_format=None, interpolation='nearest'.

    Raises:
      NotImplementedError: ``interpolation`` other than 'nearest', or unknown
        spatial dimensions.
    """

    def __init__(
        self,
        size: Any = (2, 2),
        data_format: str | None = None,
        interpolation: str = "nearest",
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if interpolation != "nearest":
            raise NotImplementedError(
                "tf.keras.layers.UpSampling2D: interpolation="
                f"{interpolation!r} is not supported by adapters.v1; use "
                "tf.image.resize_bilinear"
            )
        self.size = tl_conv.normalize_tuple(size, 2, "size")
        self.data_format = tl_core._data_format(data_format)
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        dims = inputs.shape.as_list()
        h, w = (dims[2], dims[3]) if first else (dims[1], dims[2])
        if h is None or w is None:
            raise NotImplementedError(
                "tf.keras.layers.UpSampling2D in adapters.v1 needs the "
                f"spatial dimensions known; got shape {inputs.shape}"
            )
        x = op("transpose")(inputs, [0, 2, 3, 1]) if first else inputs
        with ops.get_default_graph().name_scope("resize"):
            x = op("image.resize_nearest_neighbor")(
                x, [h * self.size[0], w * self.size[1]], half_pixel_centers=True
            )
        return op("transpose")(x, [0, 3, 1, 2]) if first else x


class InputLayer(Layer):
    """The placeholder a functional model starts from (``tf.keras.layers.InputLayer``).

    Args (TF's defaults): input_shape=None, batch_size=None, dtype=None (floatx),
    input_tensor=None, sparse=False, name=None (``input_1``, ``input_2``...),
    ragged=False, **kwargs (``batch_input_shape``).

    Raises:
      NotImplementedError: ``sparse`` or ``ragged``.
    """

    def get_config(self) -> dict[str, Any]:
        """``batch_input_shape``, ``dtype``, ``sparse``, ``ragged``, ``name`` and
        ``optional`` (False), as TF's ``InputLayer``."""
        return {
            "batch_input_shape": self._batch_input_shape,
            "dtype": saving._dtype_name(self.dtype or backend.floatx()),
            "sparse": False,
            "ragged": False,
            "name": self.name,
            "optional": False,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """An ``InputLayer`` (a new placeholder) of ``get_config``'s ``config``.

        Raises:
          NotImplementedError: ``optional`` True.
        """
        config = dict(config)
        if config.pop("optional", False):
            raise NotImplementedError(
                "tf.keras.layers.InputLayer: optional inputs are not supported by adapters.v1"
            )
        return cls(**config)

    def __init__(
        self,
        input_shape: Any = None,
        batch_size: int | None = None,
        dtype: Any = None,
        input_tensor: Any = None,
        sparse: bool = False,
        name: str | None = None,
        ragged: bool = False,
        **kwargs: Any,
    ):
        if sparse or ragged:
            raise NotImplementedError(
                "tf.keras.layers.InputLayer: sparse and ragged inputs "
                "are not supported by adapters.v1"
            )
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if not name:
            name = backend.unique_object_name("input", zero_based=False)
        super().__init__(name=name, dtype=dtype, **kwargs)
        if input_tensor is not None:
            tensor = ops.convert_to_tensor(input_tensor)
        else:
            if batch_input_shape is None:
                batch_input_shape = (batch_size, *tuple(input_shape or ()))
            tensor = array_ops.placeholder(
                self.dtype or backend.floatx(), shape=list(batch_input_shape), name=self.name
            )
        self._batch_input_shape = tuple(tensor.shape.as_list()) if tensor.shape.ndims else None
        self.built = True
        self.__dict__["_nodes"] = [(tensor, tensor)]
        _history(ops.get_default_graph())[id(tensor)] = (tensor, self, None, (), {}, tensor)

    @property
    def output_shape(self) -> Any:
        """``[shape]``: an input layer's node lists its one output (Keras' display)."""
        return [_shapes_of(self.output)]


def Input(
    shape: Any = None,
    batch_size: int | None = None,
    name: str | None = None,  # noqa: N802
    dtype: Any = None,
    sparse: bool | None = None,
    tensor: Any = None,
    ragged: bool | None = None,
    **kwargs: Any,
) -> ops.Tensor:
    """A placeholder for a functional model (``tf.keras.Input``): ``(batch_size,) + shape``.

    Args (TF's defaults): shape=None, batch_size=None, name=None (``input_1``...),
    dtype=None (floatx), sparse=None, tensor=None (use this tensor), ragged=None,
    **kwargs (``batch_shape``).

    Returns:
      The placeholder tensor (named as the layer).

    Raises:
      ValueError: neither ``shape``, ``batch_shape`` nor ``tensor``.
    """
    batch_shape = kwargs.pop("batch_shape", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {list(kwargs)}")
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError(
            "Please provide to Input a `shape` or a `tensor` or a `type_spec` "
            "argument. Note that `shape` does not include the batch dimension."
        )
    layer = InputLayer(
        input_shape=shape,
        batch_size=batch_size,
        dtype=dtype,
        input_tensor=tensor,
        sparse=bool(sparse),
        name=name,
        ragged=bool(ragged),
        batch_input_shape=batch_shape,
    )
    return layer.output


# Keras' aliases.
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution2DTranspose = Conv2DTranspose
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D

# The layers of other modules, which build on ``Layer`` above: the merge functions and
# Dot (keras/merge.py), more convolutions and poolings (keras/convolutional.py), the
# recurrent layers and wrappers.
from adapters.v1.keras.convolutional import (  # noqa: E402
    AveragePooling3D,
    AvgPool3D,
    Conv1DTranspose,
    Conv3D,
    Conv3DTranspose,
    Convolution1DTranspose,
    Convolution3D,
    Convolution3DTranspose,
    Cropping1D,
    Cropping2D,
    Cropping3D,
    DepthwiseConv2D,
    GlobalAveragePooling3D,
    GlobalAvgPool3D,
    GlobalMaxPool3D,
    GlobalMaxPooling3D,
    MaxPool3D,
    MaxPooling3D,
    SeparableConv1D,
    SeparableConv2D,
    SeparableConvolution1D,
    SeparableConvolution2D,
    UpSampling1D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding3D,
)
from adapters.v1.keras.merge import (  # noqa: E402
    Dot,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from adapters.v1.keras.recurrent import (  # noqa: E402
    GRU,
    LSTM,
    RNN,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    StackedRNNCells,
)
from adapters.v1.keras.regularization import (  # noqa: E402
    ActivityRegularization,
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    Identity,
    Rescaling,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from adapters.v1.keras.wrappers import Bidirectional, TimeDistributed  # noqa: E402

__getattr__ = missing_name_getattr("tf.keras.layers", globals())

GlobalAvgPool1D = GlobalAveragePooling1D
GlobalMaxPool1D = GlobalMaxPooling1D
