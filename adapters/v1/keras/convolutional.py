"""More of ``tf.keras.layers``' convolution, pooling and reshaping layers (legacy Keras 2 in
a TF1 graph): ``Conv3D``, ``Conv1DTranspose``, ``Conv3DTranspose``, ``SeparableConv1D``,
``SeparableConv2D``, ``DepthwiseConv2D``, ``MaxPooling3D``, ``AveragePooling3D``,
``GlobalAveragePooling3D``, ``GlobalMaxPooling3D`` and their aliases; ``Cropping1D``,
``Cropping2D``, ``Cropping3D`` (a strided slice), ``ZeroPadding1D``, ``ZeroPadding3D``
(``tf.pad``), ``UpSampling1D``, ``UpSampling3D`` (Keras' ``repeat_elements``: split
and concatenate).

As ``Conv2D`` and ``MaxPooling2D`` in keras/layers.py, each is jtrain's ``tf.layers``
class under Keras' signature and defaults (``data_format=None`` is
``channels_last``; ``glorot_uniform`` kernels, ``zeros`` biases) and Keras' variable
names (``kernel``, ``bias``, ``depthwise_kernel``, ``pointwise_kernel``); where
Keras' ``call`` builds other ops than ``tf.layers``' (``SeparableConv1D`` adds its
bias before the squeeze, the 3-D poolings transpose ``channels_first`` inputs,
``DepthwiseConv2D`` is ``backend.depthwise_conv2d``), it builds Keras' (checked live
against TF 2.21 in tests/interop/test_keras_layers_more_interop.py).
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import ops
from adapters.v1.keras import activations, backend, constraints, initializers, regularizers
from adapters.v1.keras.layers import (
    Conv1D,
    InputSpec,
    Layer,
    _GlobalPooling2D,
    _Pooling,
    _tl_init,
)
from adapters.v1.layers import convolutional as tl_conv
from adapters.v1.layers import core as tl_core
from adapters.v1.layers.base import op, passed_arguments
from adapters.v1.ops.nn_with_space_to_batch import with_space_to_batch

__all__ = [
    "AveragePooling3D",
    "AvgPool3D",
    "Conv1DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Convolution1DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
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
    "UpSampling1D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding3D",
]


class Conv3D(Conv1D):
    """3-D convolution (``tf.keras.layers.Conv3D``); Args as ``Conv1D`` with strides=
    (1, 1, 1), padding 'valid' or 'same', data_format=None (channels_last),
    dilation_rate=(1, 1, 1)."""

    _rank = 3

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1, 1),
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


def _no_transpose_extras(cls: str, output_padding: Any, dilation_rate: Any, rank: int) -> None:
    if (
        output_padding is not None
        or tl_conv.normalize_tuple(dilation_rate, rank, "dilation_rate") != (1,) * rank
    ):
        raise NotImplementedError(
            f"tf.keras.layers.{cls}: output_padding and dilation_rate are not supported by "
            f"adapters.v1; use tf.nn.conv{rank}d_transpose"
        )


class Conv3DTranspose(Layer, tl_conv._ConvTranspose):
    """Transposed 3-D convolution (``tf.keras.layers.Conv3DTranspose``); Args (TF's
    defaults): filters, kernel_size, strides=(1, 1, 1), padding='valid',
    output_padding=None, data_format=None, dilation_rate=(1, 1, 1), activation=None,
    use_bias=True, kernel_initializer='glorot_uniform', bias_initializer='zeros',
    regularizers and constraints None, **kwargs.

    Raises:
      NotImplementedError: ``output_padding``, or a ``dilation_rate`` other than 1.
    """

    _config_skip = ("dilation_rate",)
    _config_fixed = {"groups": 1}

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1, 1),
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = (1, 1, 1),
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
        _no_transpose_extras("Conv3DTranspose", output_padding, dilation_rate, 3)
        _tl_init(self, tl_conv._ConvTranspose, 3, dilation_rate=1, **arguments)


class Conv1DTranspose(Layer, tl_conv._ConvTranspose):
    """Transposed 1-D convolution (``tf.keras.layers.Conv1DTranspose``): Keras'
    ``tf.nn.conv1d_transpose``; Args (TF's defaults): filters, kernel_size, strides=1,
    padding='valid', output_padding=None, data_format=None, dilation_rate=1,
    activation=None, use_bias=True, kernel_initializer='glorot_uniform',
    bias_initializer='zeros', regularizers and constraints None, **kwargs.

    Raises:
      NotImplementedError: ``output_padding``.
      ValueError: (when called) an input not of rank 3 (TF's message).
    """

    _config_fixed = {"groups": 1}

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = 1,
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
        arguments = passed_arguments(locals(), "output_padding")
        _no_transpose_extras("Conv1DTranspose", output_padding, 1, 1)
        _tl_init(self, tl_conv._ConvTranspose, 1, **arguments)

    def build(self, input_shape: Any) -> None:
        if input_shape.ndims != 3:
            raise ValueError(f"Inputs should have rank 3. Received input_shape={input_shape}.")
        tl_conv._ConvTranspose.build(self, input_shape)
        channels = input_shape.as_list()[self._channel_axis]
        self.input_spec = InputSpec(ndim=3, axes={self._channel_axis: channels})

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        dynamic = op("shape")(inputs)
        length = dynamic[2 if first else 1]
        out = tl_conv.deconv_output_length(
            length, self.kernel_size[0], self.padding, self.strides[0], self.dilation_rate[0]
        )
        shape = [dynamic[0], self.filters, out] if first else [dynamic[0], out, self.filters]
        outputs = op("nn.conv1d_transpose")(
            inputs,
            self.kernel,
            op("stack")(shape),
            strides=list(self.strides),
            padding=self.padding.upper(),
            data_format="NCW" if first else "NWC",
            dilations=list(self.dilation_rate),
        )
        dims = inputs.shape.as_list()
        static = dims[2 if first else 1]
        static = tl_conv.deconv_output_length(
            static, self.kernel_size[0], self.padding, self.strides[0], self.dilation_rate[0]
        )
        outputs.set_shape(
            [dims[0], self.filters, static] if first else [dims[0], static, self.filters]
        )
        if self.use_bias:
            outputs = op("nn.bias_add")(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


def _separable_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """Keras' depthwise/pointwise initializers, regularizers and constraints resolved."""
    for part in ("depthwise", "pointwise"):
        for key, get in (
            ("initializer", initializers.get),
            ("regularizer", regularizers.get),
            ("constraint", constraints.get),
        ):
            if f"{part}_{key}" in arguments:
                arguments[f"{part}_{key}"] = get(arguments[f"{part}_{key}"])
    for key, get in (
        ("bias_initializer", initializers.get),
        ("bias_regularizer", regularizers.get),
        ("bias_constraint", constraints.get),
        ("activity_regularizer", regularizers.get),
    ):
        if key in arguments:
            arguments[key] = get(arguments[key])
    if "activation" in arguments:
        act = arguments["activation"]
        arguments["activation"] = None if act is None else activations.get(act)
    return arguments


class SeparableConv2D(Layer, tl_conv._SeparableConv):
    """Depthwise separable 2-D convolution (``tf.keras.layers.SeparableConv2D``).

    Args (TF's defaults): filters, kernel_size, strides=(1, 1), padding='valid',
    data_format=None, dilation_rate=(1, 1), depth_multiplier=1, activation=None,
    use_bias=True, depthwise_initializer='glorot_uniform',
    pointwise_initializer='glorot_uniform', bias_initializer='zeros', regularizers
    and constraints None, **kwargs. Variables ``depthwise_kernel``,
    ``pointwise_kernel``, ``bias``.
    """

    _rank = 2

    _config_fixed = {
        "groups": 1,
        "kernel_initializer": {
            "class_name": "GlorotUniform",
            "config": {"seed": None, "dtype": "float32"},
        },
        "kernel_regularizer": None,
        "kernel_constraint": None,
    }

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        arguments = _separable_arguments(passed_arguments(locals()))
        _tl_init(self, tl_conv._SeparableConv, self._rank, **arguments)


class SeparableConv1D(SeparableConv2D):
    """Depthwise separable 1-D convolution (``tf.keras.layers.SeparableConv1D``): Keras'
    ``separable_conv2d`` of the inputs with a unit axis, its bias added before the
    squeeze. Args as ``SeparableConv2D`` with strides=1, padding 'valid', 'same' or
    'causal', dilation_rate=1."""

    _rank = 1

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**passed_arguments(locals()))

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            pads = [[0, 0], [0, 0], [left, 0]] if first else [[0, 0], [left, 0], [0, 0]]
            inputs = op("pad")(inputs, pads)
        # Keras: strides (1, s, s, 1) over [batch, 1, width, channels]
        strides = [1, 1, *self.strides * 2] if first else [1, *self.strides * 2, 1]
        axis = 2 if first else 1
        outputs = op("nn.separable_conv2d")(
            op("expand_dims")(inputs, axis),
            op("expand_dims")(self.depthwise_kernel, 0),
            op("expand_dims")(self.pointwise_kernel, 0),
            strides=strides,
            padding="VALID" if self.padding == "causal" else self.padding.upper(),
            rate=[1, *self.dilation_rate],
            data_format="NCHW" if first else "NHWC",
        )
        if self.use_bias:
            outputs = op("nn.bias_add")(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        outputs = op("squeeze")(outputs, [axis])
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class DepthwiseConv2D(Layer):
    """Each input channel convolved with its own ``depth_multiplier`` filters
    (``tf.keras.layers.DepthwiseConv2D``): Keras' ``backend.depthwise_conv2d`` (on CPU,
    ``channels_first`` inputs transposed to NHWC and back) and ``bias_add``.

    Args (TF's defaults): kernel_size, strides=(1, 1), padding='valid',
    depth_multiplier=1, data_format=None, dilation_rate=(1, 1), activation=None,
    use_bias=True, depthwise_initializer='glorot_uniform', bias_initializer='zeros',
    depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
    depthwise_constraint=None, bias_constraint=None, **kwargs. Variables
    ``depthwise_kernel`` (``kernel_size + (in_channels, depth_multiplier)``) and
    ``bias`` (``in_channels * depth_multiplier``).

    Raises:
      ValueError: 'causal' padding (TF's message); (when called) an input not of rank 4,
        or of unknown channels (TF's messages).
    """

    _config_fixed = {"groups": 1}

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.kernel_size = tl_conv.normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = tl_conv.normalize_tuple(strides, 2, "strides")
        self.padding = tl_conv.normalize_padding(padding, ("valid", "same", "causal"))
        self.data_format = tl_core._data_format(data_format)
        self.dilation_rate = tl_conv.normalize_tuple(dilation_rate, 2, "dilation_rate")
        if self.padding == "causal":
            raise ValueError("Causal padding is only supported for `Conv1D`and `SeparableConv1D`.")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with "
                f"`dilation_rate > 1`. Received: strides={self.strides} and "
                f"dilation_rate={self.dilation_rate}"
            )
        self.depth_multiplier = depth_multiplier
        self.activation = None if activation is None else activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=4)

    def build(self, input_shape: Any) -> None:
        if input_shape.ndims != 4:
            raise ValueError(
                f"Inputs to `DepthwiseConv` should have rank 4. Received input_shape={input_shape}."
            )
        axis = 1 if self.data_format == "channels_first" else -1
        channels = input_shape.as_list()[axis]
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs to `DepthwiseConv` should be defined. "
                f"The input_shape received is {input_shape}, where axis {axis} (0-based) "
                "is the channel dimension, which found to be `None`."
            )
        self.depthwise_kernel = self.add_weight(
            shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            name="depthwise_kernel",
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(channels * self.depth_multiplier,),
                initializer=self.bias_initializer,
                name="bias",
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.input_spec = InputSpec(min_ndim=4, axes={axis: channels})
        self.built = True

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        x = op("transpose")(inputs, (0, 2, 3, 1)) if first else inputs
        kernel, strides = self.depthwise_kernel, [1, *self.strides, 1]

        def depthwise(converted: Any, _: int, padding: str) -> Any:
            return op("nn.depthwise_conv2d_native")(
                converted, kernel, strides, padding, data_format="NHWC", name="depthwise"
            )

        # tf.nn.depthwise_conv2d: a dilated kernel through space_to_batch_nd (its
        # output is depthwise/BatchToSpaceND)
        with ops.get_default_graph().name_scope("depthwise"):
            outputs = with_space_to_batch(
                x,
                list(self.dilation_rate),
                self.padding.upper(),
                depthwise,
                filter_shape=kernel.shape.as_list(),
            )
        if first:
            outputs = op("transpose")(outputs, (0, 3, 1, 2))
        if self.use_bias:
            outputs = op("nn.bias_add")(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


_POOL3D_DOC = """{kind} pooling over 3-D windows (``tf.keras.layers.{cls}``); ``channels_first``
    inputs are transposed to NDHWC and back, as Keras does.

    Args (TF's defaults): pool_size=(2, 2, 2), strides=None (pool_size),
    padding='valid', data_format=None, **kwargs.
    """


class MaxPooling3D(_Pooling):
    __doc__ = _POOL3D_DOC.format(kind="Max", cls="MaxPooling3D")
    _rank, _pool = 3, "nn.max_pool3d"

    def __init__(
        self,
        pool_size: Any = (2, 2, 2),
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        if first:
            inputs = op("transpose")(inputs, (0, 2, 3, 4, 1))
        outputs = op(self._pool)(
            inputs,
            ksize=[1, *self.pool_size, 1],
            strides=[1, *self.strides, 1],
            padding=self.padding.upper(),
        )
        if first:
            outputs = op("transpose")(outputs, (0, 4, 1, 2, 3))
        return outputs


class AveragePooling3D(MaxPooling3D):
    __doc__ = _POOL3D_DOC.format(kind="Average", cls="AveragePooling3D")
    _rank, _pool = 3, "nn.avg_pool3d"


class _GlobalPooling3D(_GlobalPooling2D):
    _rank = 3


class GlobalAveragePooling3D(_GlobalPooling3D):
    """The mean over the spatial axes (``tf.keras.layers.GlobalAveragePooling3D``).

    Args (TF's defaults): data_format=None, keepdims=False, **kwargs.
    """

    _reduce = "reduce_mean"


class GlobalMaxPooling3D(_GlobalPooling3D):
    """The maximum over the spatial axes (``tf.keras.layers.GlobalMaxPooling3D``).

    Args (TF's defaults): data_format=None, keepdims=False, **kwargs.
    """

    _reduce = "reduce_max"


def _normalize_tuple(value: Any, n: int, name: str, allow_zero: bool = False) -> tuple[Any, ...]:
    """An int or ``n`` ints as a tuple (Keras' ``conv_utils.normalize_tuple``): each
    ``>= 0`` (``allow_zero``) or ``> 0``.

    Raises:
      ValueError: another form, or a value out of range (Keras' messages).
    """
    message = f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
    if isinstance(value, int):
        values: tuple[Any, ...] = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(message) from None
        if len(values) != n:
            raise ValueError(message)
        for single in values:
            try:
                int(single)
            except (ValueError, TypeError):
                message += f"including element {single} of type {type(single)}"
                raise ValueError(message) from None
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        requirement = ">= 0" if allow_zero else "> 0"
        message += f" including {bad} that does not satisfy the requirement `{requirement}`."
        raise ValueError(message)
    return values


_ORDINALS = ("1st", "2nd", "3rd")


def _pairs(value: Any, rank: int, what: str, long_message: str) -> tuple[tuple[Any, ...], ...]:
    """Keras' ``padding``/``cropping`` of a 2-D or 3-D layer: an int, ``rank`` ints or
    ``rank`` pairs, as ``rank`` (before, after) pairs."""
    if isinstance(value, int):
        return ((value, value),) * rank
    if hasattr(value, "__len__"):
        if len(value) != rank:
            count = "two" if rank == 2 else "3"
            raise ValueError(f"`{what}` should have {count} elements. Received: {value}.")
        return tuple(
            _normalize_tuple(v, 2, f"{_ORDINALS[i]} entry of {what}", allow_zero=True)
            for i, v in enumerate(value)
        )
    raise ValueError(long_message.format(value))


def _spatial_slices(layer: Any, inputs: Any) -> Any:
    """``inputs`` cropped by ``layer.cropping`` on the spatial axes (one strided slice)."""
    first = layer.data_format == "channels_first"
    spatial = [slice(a, -b if b else None) for a, b in layer.cropping]
    index = (slice(None), slice(None), *spatial) if first else (slice(None), *spatial, slice(None))
    return inputs[index]


class Cropping1D(Layer):
    """Steps cut from the start and end of a sequence batch (``tf.keras.layers.Cropping1D``).

    Args (TF's defaults): cropping=(1, 1) (an int or a pair), **kwargs.

    Raises:
      ValueError: a ``cropping`` of another form or negative; (when called) a
        cropping as long as the steps (TF's messages).
    """

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any):
        super().__init__(**kwargs)
        self.cropping = _normalize_tuple(cropping, 2, "cropping", allow_zero=True)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        steps = inputs.shape.as_list()[1]
        if steps is not None and sum(self.cropping) >= steps:
            raise ValueError(
                "cropping parameter of Cropping layer must be greater than the input shape. "
                f"Received: inputs.shape={inputs.shape}, and cropping={self.cropping}"
            )
        start, end = self.cropping
        return inputs[:, start : (-end if end else None), :]


class Cropping2D(Layer):
    """Rows and columns cut from the sides of an image batch (``tf.keras.layers.Cropping2D``).

    Args (TF's defaults): cropping=((0, 0), (0, 0)) (an int, 2 ints or 2 pairs),
    data_format=None, **kwargs.

    Raises:
      ValueError: a ``cropping`` of another form or negative; (when called) a
        cropping as large as the image (TF's messages).
    """

    def __init__(
        self, cropping: Any = ((0, 0), (0, 0)), data_format: str | None = None, **kwargs: Any
    ):
        super().__init__(**kwargs)
        self.data_format = tl_core._data_format(data_format)
        self.cropping = _pairs(
            cropping,
            2,
            "cropping",
            "`cropping` should be either an int, a tuple of 2 ints (symmetric_height_crop, "
            "symmetric_width_crop), or a tuple of 2 tuples of 2 ints ((top_crop, "
            "bottom_crop), (left_crop, right_crop)). Received: {}.",
        )
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs: Any) -> Any:
        dims = inputs.shape.as_list()
        h, w = (dims[2], dims[3]) if self.data_format == "channels_first" else (dims[1], dims[2])
        if (h is not None and sum(self.cropping[0]) >= h) or (
            w is not None and sum(self.cropping[1]) >= w
        ):
            raise ValueError(
                "Argument `cropping` must be greater than the input shape. Received: "
                f"inputs.shape={inputs.shape}, and cropping={self.cropping}"
            )
        return _spatial_slices(self, inputs)


class Cropping3D(Layer):
    """Slices cut from the sides of a volume batch (``tf.keras.layers.Cropping3D``).

    Args (TF's defaults): cropping=((1, 1), (1, 1), (1, 1)) (an int, 3 ints or 3
    pairs), data_format=None, **kwargs.

    Raises:
      ValueError: a ``cropping`` of another form or negative (TF's messages).
    """

    def __init__(
        self,
        cropping: Any = ((1, 1), (1, 1), (1, 1)),
        data_format: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.data_format = tl_core._data_format(data_format)
        self.cropping = _pairs(
            cropping,
            3,
            "cropping",
            "`cropping` should be either an int, a tuple of 3 ints (symmetric_dim1_crop, "
            "symmetric_dim2_crop, symmetric_dim3_crop), or a tuple of 3 tuples of 2 ints "
            "((left_dim1_crop, right_dim1_crop), (left_dim2_crop, right_dim2_crop), "
            "(left_dim3_crop, right_dim2_crop)). Received: {}.",
        )
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: Any) -> Any:
        return _spatial_slices(self, inputs)


class ZeroPadding1D(Layer):
    """Zero steps before and after a sequence batch (``tf.keras.layers.ZeroPadding1D``):
    Keras' ``temporal_padding``.

    Args (TF's defaults): padding=1 (an int or a pair), **kwargs.

    Raises:
      ValueError: a ``padding`` of another form or negative (TF's messages).
    """

    def __init__(self, padding: Any = 1, **kwargs: Any):
        super().__init__(**kwargs)
        self.padding = _normalize_tuple(padding, 2, "padding", allow_zero=True)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        return op("pad")(inputs, [[0, 0], list(self.padding), [0, 0]])


class ZeroPadding3D(Layer):
    """Zeros around a volume batch (``tf.keras.layers.ZeroPadding3D``): Keras'
    ``spatial_3d_padding``.

    Args (TF's defaults): padding=(1, 1, 1) (an int, 3 ints or 3 pairs),
    data_format=None, **kwargs.

    Raises:
      ValueError: a ``padding`` of another form or negative (TF's messages).
    """

    def __init__(self, padding: Any = (1, 1, 1), data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = tl_core._data_format(data_format)
        self.padding = _pairs(
            padding,
            3,
            "padding",
            "`padding` should be either an int, a tuple of 3 ints (symmetric_dim1_pad, "
            "symmetric_dim2_pad, symmetric_dim3_pad), or a tuple of 3 tuples of 2 ints "
            "((left_dim1_pad, right_dim1_pad), (left_dim2_pad, right_dim2_pad), "
            "(left_dim3_pad, right_dim2_pad)). Received: {}.",
        )
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: Any) -> Any:
        pads = [list(p) for p in self.padding]
        if self.data_format == "channels_first":
            return op("pad")(inputs, [[0, 0], [0, 0], *pads])
        return op("pad")(inputs, [[0, 0], *pads, [0, 0]])


class UpSampling1D(Layer):
    """Each step repeated ``size`` times (``tf.keras.layers.UpSampling1D``): Keras'
    ``repeat_elements`` (the steps split and concatenated, or tiled if unknown).

    Args (TF's defaults): size=2, **kwargs.
    """

    def __init__(self, size: int = 2, **kwargs: Any):
        super().__init__(**kwargs)
        self.size = int(size)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        return backend.repeat_elements(inputs, self.size, 1)


class UpSampling3D(Layer):
    """Each voxel repeated ``size`` times per axis (``tf.keras.layers.UpSampling3D``):
    Keras' ``resize_volumes`` (``repeat_elements`` on each spatial axis in turn).

    Args (TF's defaults): size=(2, 2, 2), data_format=None, **kwargs.

    Raises:
      ValueError: a ``size`` of another form or not positive (TF's messages).
    """

    def __init__(self, size: Any = (2, 2, 2), data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = tl_core._data_format(data_format)
        self.size = _normalize_tuple(size, 3, "size")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: Any) -> Any:
        start = 2 if self.data_format == "channels_first" else 1
        output = inputs
        for i, factor in enumerate(self.size):
            output = backend.repeat_elements(output, factor, start + i)
        return output


# Keras' aliases.
Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D
