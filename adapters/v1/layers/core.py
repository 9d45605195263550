"""``tf.layers.dense``, ``dropout`` and ``flatten`` (TF1) and their classes.

``Dense`` creates ``kernel`` (``[input_dim, units]``, Glorot uniform unless the
scope or ``kernel_initializer`` says otherwise) and ``bias`` (zeros) and computes
``activation(inputs @ kernel + bias)`` with ``tf.matmul`` and ``tf.nn.bias_add``
(inputs of rank > 2 are contracted on their last axis). ``Dropout`` is
``tf.nn.dropout`` when ``training`` is True (or a bool tensor that is true) and
the identity otherwise. ``Flatten`` reshapes to ``[batch, -1]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from adapters.v1.framework import dtypes, ops
from adapters.v1.layers.base import InputSpec, Layer, op, passed_arguments
from adapters.v1.ops import init_ops, nn_dropout
from adapters.v1.ops.array_ops import identity

__all__ = ["Dense", "Dropout", "Flatten", "dense", "dropout", "flatten"]
# TF's default initializers (shared instances, as TF's signatures show).
_ZEROS = init_ops.zeros_initializer()


class Dense(Layer):
    """A densely connected layer: ``activation(inputs @ kernel + bias)``.

    Args (TF's defaults): units, activation=None, use_bias=True,
    kernel_initializer=None (the scope's, else Glorot uniform),
    bias_initializer=zeros, kernel_regularizer=None, bias_regularizer=None,
    activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
    trainable=True, name=None, **kwargs (``Layer``'s).
    """

    def __init__(
        self,
        units: int,
        activation: Callable | None = None,
        use_bias: bool = True,
        kernel_initializer: Any = None,
        bias_initializer: Any = _ZEROS,
        kernel_regularizer: Callable | None = None,
        bias_regularizer: Callable | None = None,
        activity_regularizer: Callable | None = None,
        kernel_constraint: Callable | None = None,
        bias_constraint: Callable | None = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(
            trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs
        )
        self.units = int(units)
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(
                "A Dense layer can only be built with a floating-point dtype. "
                f"Received: dtype={dtype}"
            )
        last_dim = input_shape.as_list()[-1] if input_shape.ndims else None
        if last_dim is None:
            raise ValueError(
                "The last dimension of the inputs to a Dense layer should be defined. "
                "Found None. Full input shape received: " + str(input_shape)
            )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight(
            "kernel",
            shape=[last_dim, self.units],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            dtype=self.dtype,
            trainable=True,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=[self.units],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                dtype=self.dtype,
                trainable=True,
            )
        self.built = True

    def call(self, inputs: Any) -> Any:
        inputs = self._to_compute_dtype(inputs)
        dims = inputs.shape.as_list()
        if len(dims) == 2:
            outputs = op("matmul")(inputs, self.kernel)
        else:  # contract the last axis (TF: tensordot)
            flat = op("reshape")(inputs, [-1, dims[-1]])
            if sum(d is None for d in dims[:-1]) > 1:  # two unknown: the run's sizes
                shape = op("concat")([op("shape")(inputs)[:-1], [self.units]], 0)
            else:
                shape = [-1 if d is None else d for d in dims[:-1]] + [self.units]
            outputs = op("reshape")(op("matmul")(flat, self.kernel), shape)
        if self.use_bias:
            outputs = op("nn.bias_add")(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs


def dense(
    inputs: Any,
    units: int,
    activation: Callable | None = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = _ZEROS,
    kernel_regularizer: Callable | None = None,
    bias_regularizer: Callable | None = None,
    activity_regularizer: Callable | None = None,
    kernel_constraint: Callable | None = None,
    bias_constraint: Callable | None = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> ops.Tensor:
    """The functional form of ``Dense`` (``tf.compat.v1.layers.dense``).

    Args:
      inputs: the input tensor (rank >= 2, last dimension known).
      units: and the other arguments: as ``Dense``.
      name: the layer's variable scope (None: ``dense``, ``dense_1``...).
      reuse: reuse the variables of a layer of the same ``name``.

    Returns:
      The output tensor.
    """
    arguments = passed_arguments(locals(), "inputs", "reuse")
    layer = Dense(**arguments, _scope=name, _reuse=reuse)
    return layer(inputs)


def smart_cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """``true_fn()`` or ``false_fn()`` for a Python bool; a select of both for a bool tensor.

    TF's layers take ``training`` as either; with a tensor both branches are
    built and the output selects one at run time.
    """
    if isinstance(pred, ops.Tensor) or hasattr(pred, "_as_graph_tensor"):
        pred = ops.convert_to_tensor(pred)
        return op("where_v2")(pred, true_fn(), false_fn())
    return true_fn() if pred else false_fn()


class Dropout(Layer):
    """Dropout: each element is kept with probability ``1 - rate`` and scaled by ``1 / (1 - rate)``.

    Args (TF's defaults): rate=0.5, noise_shape=None, seed=None, name=None,
    **kwargs. ``call(inputs, training=False)``: ``training`` is a Python bool
    or a bool tensor.
    """

    def __init__(
        self,
        rate: float = 0.5,
        noise_shape: Any = None,
        seed: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self._next_seed = seed

    def _legacy_seed(self) -> int | None:
        """The op seed of the next mask this layer builds: ``seed``, then ``seed + 1``...
        (Keras' ``RandomGenerator.make_legacy_seed``); None without a seed."""
        seed = self._next_seed
        if seed is not None:
            self._next_seed = seed + 1
        return seed

    def call(self, inputs: Any, training: Any = False) -> Any:
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return identity(inputs)

        def dropped() -> Any:
            # A seeded layer called again draws another mask (TF's Keras layers, which
            # TF's tf.layers.Dropout is, take a new op seed for each mask they build).
            return nn_dropout.dropout(
                inputs, noise_shape=self.noise_shape, seed=self._legacy_seed(), rate=self.rate
            )

        return smart_cond(training, dropped, lambda: identity(inputs))


def dropout(
    inputs: Any,
    rate: float = 0.5,
    noise_shape: Any = None,
    seed: int | None = None,
    training: Any = False,
    name: str | None = None,
) -> ops.Tensor:
    """The functional form of ``Dropout`` (``tf.compat.v1.layers.dropout``).

    Args:
      inputs: the input tensor.
      rate: the fraction of elements dropped (default 0.5).
      noise_shape: the shape of the keep mask (broadcast to the inputs).
      seed: the op-level seed.
      training: a Python bool or a bool tensor (default False: the identity).
      name: the layer's name.

    Returns:
      The output tensor.
    """
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer(inputs, training=training)


class Flatten(Layer):
    """Flattens all axes but the first: ``[batch, ...] -> [batch, -1]``.

    Args (TF's defaults): data_format=None (``channels_last``; ``channels_first``
    inputs are transposed to channels last first), **kwargs.
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: Any) -> Any:
        dims = inputs.shape.as_list()
        if self.data_format == "channels_first" and len(dims) > 1:
            perm = [0, *range(2, len(dims)), 1]
            inputs = op("transpose")(inputs, perm)
            dims = [dims[i] for i in perm]
        if len(dims) == 1:
            return op("expand_dims")(inputs, 1)
        rest = dims[1:]
        if all(d is not None for d in rest):
            return op("reshape")(inputs, [-1, int(math.prod(rest))])
        if dims[0] is not None:
            return op("reshape")(inputs, [dims[0], -1])
        # Batch and some other dimension unknown: TF's [tf.shape(inputs)[0], -1], read
        # when the graph runs (static shape [?, ?]).
        return op("reshape")(inputs, [op("shape")(inputs)[0], -1])


def flatten(inputs: Any, name: str | None = None, data_format: str = "channels_last") -> Any:
    """The functional form of ``Flatten`` (``tf.compat.v1.layers.flatten``).

    Returns:
      ``inputs`` reshaped to ``[batch, -1]``.
    """
    return Flatten(name=name, data_format=data_format)(inputs)


def _data_format(value: str | None) -> str:
    """TF's ``normalize_data_format``: ``channels_last`` or ``channels_first``; None is
    ``tf.keras.backend.image_data_format()`` (``channels_last`` unless set)."""
    if value is None:
        from adapters.v1.keras import backend  # tf.layers and Keras share the setting

        value = backend.image_data_format()
    value = str(value).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(
            'The `data_format` argument must be one of "channels_first", "channels_last". '
            f"Received: {value}"
        )
    return value
