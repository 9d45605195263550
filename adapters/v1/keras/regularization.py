"""``tf.keras.layers``' regularization layers, ``Identity`` and ``Rescaling`` (Keras 2).

Legacy Keras 2 as TF1 graph-mode scripts use it.

TF's layers/regularization: ``GaussianNoise``, ``GaussianDropout``, ``AlphaDropout``,
``SpatialDropout1D``/``2D``/``3D`` and ``ActivityRegularization``. The random layers
act while training only (``training`` None: the learning phase) and draw as TF's
legacy Keras does in a TF1 graph: each random op a layer builds takes the next op
seed, ``seed``, ``seed + 1``... (``RandomGenerator.make_legacy_seed``, the mechanism
of ``Dropout``), so with a graph seed their noise is TF's bit for bit. Outside
training they return their input tensor itself (no op), as TF's.

``Identity`` (TF's layers/core/identity.py) and ``Rescaling`` (TF's
layers/preprocessing/image_preprocessing.py) are here too: two stateless
pass-through layers, kept with these so that ``tf.keras.layers`` re-exports one
module. Checked live against TF 2.21 in
tests/interop/test_keras_regularization_interop.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.keras import backend, regularizers
from adapters.v1.keras.layers import Dropout, Layer, _history
from adapters.v1.layers import core as tl_core
from adapters.v1.layers.base import InputSpec, op
from adapters.v1.ops import random_ops
from adapters.v1.ops.array_ops import identity

__all__ = [
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


def _unless_input(layer: Layer, inputs: Any, outputs: Any) -> Any:
    """``outputs``, or the ``tf.identity`` of a Keras tensor input returned as is.

    TF's functional Keras copies such an output under the layer's name
    (``activity_regularization/activity_regularization/Identity``), so that it is a
    tensor of its own in the model's graph.
    """
    if outputs is inputs and id(inputs) in _history(ops.get_default_graph()):
        with ops.get_default_graph().name_scope(layer.name):
            return identity(inputs)
    return outputs


class _RandomLayer(Layer):
    """A layer drawing its random ops with Keras' legacy op seeds (``seed``, ``seed + 1``...).

    Args:
      seed: the first op seed (None: the graph's seeds).
      **kwargs: Keras' base-layer keywords.
    """

    # Dropout's counter: the op seed of the next random op this layer builds.
    _legacy_seed = tl_core.Dropout._legacy_seed

    def __init__(self, seed: int | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.seed = seed
        self._next_seed = seed
        self.supports_masking = True


class GaussianNoise(_RandomLayer):
    """Adds zero-centered Gaussian noise while training (``tf.keras.layers.GaussianNoise``).

    ``call(inputs, training=None)``: ``inputs + tf.random.normal(tf.shape(inputs),
    0.0, stddev, inputs.dtype, seed)`` while training, else ``inputs`` itself.

    Args:
      stddev: the standard deviation of the noise.
      seed: the op seed of the first noise this layer draws (default None).
      **kwargs: Keras' base-layer keywords (``name``, ``dtype``, ``input_shape``...).
    """

    def __init__(self, stddev: float, seed: int | None = None, **kwargs: Any):
        super().__init__(seed=seed, **kwargs)
        self.stddev = stddev

    def call(self, inputs: Any, training: Any = None) -> Any:
        def noised() -> Any:
            noise = random_ops.random_normal(
                op("shape")(inputs),
                mean=0.0,
                stddev=self.stddev,
                dtype=inputs.dtype,
                seed=self._legacy_seed(),
            )
            return inputs + noise

        return _unless_input(self, inputs, backend.in_train_phase(noised, inputs, training))


class GaussianDropout(_RandomLayer):
    """Multiplies by 1-centered Gaussian noise while training (``tf.keras.layers.GaussianDropout``).

    ``call(inputs, training=None)``: ``inputs * tf.random.normal(tf.shape(inputs), 1.0,
    sqrt(rate / (1 - rate)), inputs.dtype, seed)`` while training, else ``inputs``.

    .. note:: As TF's, ``rate`` is not checked: one outside ``(0, 1)`` makes the layer
       return ``inputs`` itself, even while training.

    Args:
      rate: the drop probability (as ``Dropout``'s).
      seed: the op seed of the first noise this layer draws (default None).
      **kwargs: Keras' base-layer keywords (``name``, ``dtype``, ``input_shape``...).
    """

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any):
        super().__init__(seed=seed, **kwargs)
        self.rate = rate

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not 0 < self.rate < 1:
            return _unless_input(self, inputs, inputs)

        def noised() -> Any:
            noise = random_ops.random_normal(
                op("shape")(inputs),
                mean=1.0,
                stddev=np.sqrt(self.rate / (1.0 - self.rate)),
                dtype=inputs.dtype,
                seed=self._legacy_seed(),
            )
            return inputs * noise

        return _unless_input(self, inputs, backend.in_train_phase(noised, inputs, training))


class AlphaDropout(_RandomLayer):
    """Dropout keeping the inputs' mean and variance, for SELU (``tf.keras.layers.AlphaDropout``).

    While training each element (or each ``noise_shape`` cell) is dropped with
    probability ``rate`` (``tf.random.uniform(noise_shape, seed=seed) < rate``, drawn
    in ``floatx``) to SELU's negative saturation ``-alpha * scale``, then ``a * x + b``
    restores the mean and variance; otherwise ``inputs`` itself.

    .. note:: As TF's, ``rate`` is not checked: one outside ``(0, 1)`` makes the layer
       return ``inputs`` itself, even while training.

    Args:
      rate: the drop probability.
      noise_shape: the shape of the drop mask, broadcast to the inputs (default None:
        ``tf.shape(inputs)``).
      seed: the op seed of the first mask this layer draws (default None).
      **kwargs: Keras' base-layer keywords (``name``, ``dtype``, ``input_shape``...).
    """

    _config_skip = ("noise_shape",)

    def __init__(
        self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any
    ):
        super().__init__(seed=seed, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not 0.0 < self.rate < 1.0:
            return _unless_input(self, inputs, inputs)
        noise_shape = self.noise_shape if self.noise_shape else op("shape")(inputs)
        rate = self.rate

        def dropped() -> Any:
            alpha = 1.6732632423543772848170429916717
            scale = 1.0507009873554804934193349852946
            alpha_p = -alpha * scale
            uniform = random_ops.random_uniform(
                noise_shape, 0.0, None, dtype=backend.floatx(), seed=self._legacy_seed()
            )
            kept = op("cast")(op("greater_equal")(uniform, rate), inputs.dtype)
            a = ((1 - rate) * (1 + rate * alpha_p**2)) ** -0.5
            b = -a * alpha_p * rate
            x = inputs * kept + alpha_p * (1 - kept)
            return a * x + b

        return _unless_input(self, inputs, backend.in_train_phase(dropped, inputs, training))


class SpatialDropout1D(Dropout):
    """Dropout of whole 1-D feature maps (``tf.keras.layers.SpatialDropout1D``).

    ``Dropout`` with the mask's shape ``[batch, 1, channels]`` for inputs
    ``[batch, steps, channels]`` (a given ``noise_shape`` is ignored, as TF's).

    Args:
      rate: the fraction of feature maps dropped, in ``[0, 1]``.
      **kwargs: ``Dropout``'s ``noise_shape`` and ``seed``, Keras' base-layer keywords.

    Raises:
      ValueError: ``rate`` outside ``[0, 1]``; (when called) inputs of another rank
        than 3, with TF's messages.
    """

    _config_fixed = {"noise_shape": None, "seed": None}

    def __init__(self, rate: float, **kwargs: Any):
        super().__init__(rate, **kwargs)
        self.supports_masking = True
        self.input_spec = InputSpec(ndim=3)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """``input_shape`` itself, as TF's ``Dropout``."""
        return input_shape

    def _get_noise_shape(self, inputs: Any) -> tuple[Any, ...]:
        shape = op("shape")(inputs)
        return (shape[0], 1, shape[2])

    def call(self, inputs: Any, training: Any = None) -> Any:
        # Dropout's call draws a mask of ``noise_shape``: this call's, for this call.
        if training is None:
            training = backend.learning_phase()
        given, self.noise_shape = self.noise_shape, self._get_noise_shape(inputs)
        try:
            return super().call(inputs, training=training)
        finally:
            self.noise_shape = given


class SpatialDropout2D(SpatialDropout1D):
    """Dropout of whole 2-D feature maps (``tf.keras.layers.SpatialDropout2D``).

    ``Dropout`` with the mask's shape ``[batch, 1, 1, channels]`` (``[batch, channels,
    1, 1]`` channels first); a given ``noise_shape`` is ignored, as TF's.

    Args:
      rate: the fraction of feature maps dropped, in ``[0, 1]``.
      data_format: ``"channels_last"`` or ``"channels_first"`` (default None:
        ``tf.keras.backend.image_data_format()``).
      **kwargs: ``Dropout``'s ``noise_shape`` and ``seed``, Keras' base-layer keywords.

    Raises:
      ValueError: ``rate`` outside ``[0, 1]``; another ``data_format``; (when called)
        inputs of another rank than 4, with TF's messages.
    """

    _rank = 2

    _config_skip = ("data_format",)  # TF's config leaves it out

    def __init__(self, rate: float, data_format: str | None = None, **kwargs: Any):
        super().__init__(rate, **kwargs)
        if data_format is None:
            data_format = backend.image_data_format()
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError(
                '`data_format` must be "channels_last" or "channels_first". '
                f"Received: data_format={data_format}."
            )
        self.data_format = data_format
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _get_noise_shape(self, inputs: Any) -> tuple[Any, ...]:
        shape = op("shape")(inputs)
        ones = (1,) * self._rank
        if self.data_format == "channels_first":
            return (shape[0], shape[1], *ones)
        return (shape[0], *ones, shape[self._rank + 1])


class SpatialDropout3D(SpatialDropout2D):
    """Dropout of whole 3-D feature maps (``tf.keras.layers.SpatialDropout3D``).

    ``Dropout`` with the mask's shape ``[batch, 1, 1, 1, channels]`` (``[batch,
    channels, 1, 1, 1]`` channels first); a given ``noise_shape`` is ignored, as TF's.

    Args:
      rate: the fraction of feature maps dropped, in ``[0, 1]``.
      data_format: ``"channels_last"`` or ``"channels_first"`` (default None:
        ``tf.keras.backend.image_data_format()``).
      **kwargs: ``Dropout``'s ``noise_shape`` and ``seed``, Keras' base-layer keywords.

    Raises:
      ValueError: ``rate`` outside ``[0, 1]``; another ``data_format``; (when called)
        inputs of another rank than 5, with TF's messages.
    """

    _rank = 3


class ActivityRegularization(Layer):
    """Adds ``L1L2(l1, l2)`` of its inputs to ``losses`` (``keras.layers.ActivityRegularization``).

    The output is the input tensor itself.
    As every Keras activity regularizer, the loss is divided by the batch size
    (``activity_regularization/ActivityRegularizer/truediv``).

    Args:
      l1: the L1 factor (default 0.0).
      l2: the L2 factor (default 0.0).
      **kwargs: Keras' base-layer keywords (``name``, ``dtype``, ``input_shape``...).
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2

    def call(self, inputs: Any) -> Any:
        return _unless_input(self, inputs, inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """``input_shape`` itself, as TF's."""
        return input_shape


class Identity(Layer):
    """``tf.identity`` of its input, or of each input of a list (``tf.keras.layers.Identity``).

    Args:
      **kwargs: Keras' base-layer keywords (``name``, ``dtype``...).
    """

    def call(self, inputs: Any) -> Any:
        if isinstance(inputs, (list, tuple)):
            return type(inputs)(identity(x) for x in inputs)
        return identity(inputs)


class Rescaling(Layer):
    """``inputs * scale + offset`` in the layer's dtype (``tf.keras.layers.Rescaling``).

    Inputs of another dtype (integers too) are cast to the layer's dtype (``floatx``
    unless ``dtype`` is given), and so are ``scale`` and ``offset``.

    Args:
      scale: the factor.
      offset: the term added (default 0.0).
      **kwargs: Keras' base-layer keywords (``name``, ``dtype``, ``input_shape``...).
    """

    def __init__(self, scale: Any, offset: Any = 0.0, **kwargs: Any):
        self.scale = scale
        self.offset = offset
        super().__init__(**kwargs)

    def call(self, inputs: Any) -> Any:
        dtype = self.dtype
        scale = op("cast")(self.scale, dtype)
        offset = op("cast")(self.offset, dtype)
        return op("cast")(inputs, dtype) * scale + offset

    def compute_output_shape(self, input_shape: Any) -> Any:
        """``input_shape`` itself, as TF's."""
        return input_shape
