"""``tf.layers.conv1d``/``conv2d``/``conv3d`` (TF1) and their classes.

A convolution layer creates ``kernel`` (``kernel_size + (in_channels,
filters)``, Glorot uniform unless said otherwise) and ``bias`` (zeros) and
computes ``activation(conv(inputs, kernel) + bias)`` with the op library's
``tf.nn.conv2d`` (``conv1d`` as TF runs it: the 2-D convolution of inputs
with a unit axis; ``"causal"`` padding pads the start of the time axis) and
``tf.nn.bias_add``. ``padding`` is ``"valid"`` or ``"same"`` (any case),
``data_format`` ``"channels_last"`` or ``"channels_first"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.v1.framework import ops
from adapters.v1.layers.base import InputSpec, Layer, op, passed_arguments
from adapters.v1.layers.core import _data_format
from adapters.v1.ops import init_ops

__all__ = [
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "SeparableConv1D",
    "SeparableConv2D",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "separable_conv1d",
    "separable_conv2d",
]
# TF's default initializers (shared instances, as TF's signatures show).
_ZEROS = init_ops.zeros_initializer()


def normalize_tuple(value: Any, n: int, name: str) -> tuple[int, ...]:
    """An int or ``n`` ints as a tuple of ``n`` ints (TF's ``conv_utils.normalize_tuple``)."""
    if isinstance(value, int):
        return (value,) * n
    try:
        values = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
        ) from None
    if len(values) != n:
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
        )
    return values


def normalize_padding(value: str, allowed: tuple[str, ...] = ("valid", "same")) -> str:
    """``padding`` in lower case, checked (TF's ``conv_utils.normalize_padding``)."""
    padding = str(value).lower()
    if padding not in allowed:
        raise ValueError(
            "The `padding` argument must be a list/tuple or one of "
            f"{', '.join(allowed)}. Received: {value}"
        )
    return padding


class _Conv(Layer):
    """The ``rank``-D convolution layer (TF's ``Conv`` base)."""

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
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
        self.rank = rank
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        allowed = ("valid", "same", "causal") if rank == 1 else ("valid", "same")
        self.padding = normalize_padding(padding, allowed)
        self.data_format = _data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=rank + 2)

    @property
    def _channel_axis(self) -> int:
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape: Any) -> None:
        channels = input_shape.as_list()[self._channel_axis]
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs should be defined. The input_shape "
                f"received is {input_shape}, where axis {self._channel_axis} (0-based) is "
                "the channel dimension, which found to be `None`."
            )
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.kernel = self.add_weight(
            "kernel",
            shape=self._kernel_shape(channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=[self.filters],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                trainable=True,
                dtype=self.dtype,
            )
        self.built = True

    def _kernel_shape(self, channels: int) -> list[int]:
        return [*self.kernel_size, channels, self.filters]

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            pads = [[0, 0], [0, 0], [left, 0]] if first else [[0, 0], [left, 0], [0, 0]]
            inputs = op("pad")(inputs, pads)
        padding = "VALID" if self.padding == "causal" else self.padding.upper()
        if self.rank == 1:
            outputs = self._conv1d(inputs, padding, first)
        elif self.rank == 2:
            outputs = op("nn.conv2d")(
                inputs,
                self.kernel,
                strides=_full(self.strides, first),
                padding=padding,
                data_format="NCHW" if first else "NHWC",
                dilations=_full(self.dilation_rate, first),
            )
        else:
            outputs = op("nn.conv3d")(
                inputs,
                self.kernel,
                strides=_full(self.strides, first),
                padding=padding,
                data_format="NCDHW" if first else "NDHWC",
                dilations=_full(self.dilation_rate, first),
            )
        if self.use_bias:
            outputs = op("nn.bias_add")(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def _conv1d(self, inputs: Any, padding: str, first: bool) -> Any:
        # TF's conv1d: a 2-D convolution over [batch, 1, width, channels].
        axis = 2 if first else 1
        outputs = op("nn.conv2d")(
            op("expand_dims")(inputs, axis),
            op("expand_dims")(self.kernel, 0),
            strides=_full((1, self.strides[0]), first),
            padding=padding,
            data_format="NCHW" if first else "NHWC",
            dilations=_full((1, self.dilation_rate[0]), first),
        )
        return op("squeeze")(outputs, [axis])


def _full(spatial: tuple[int, ...], channels_first: bool) -> list[int]:
    return [1, 1, *spatial] if channels_first else [1, *spatial, 1]


class Conv1D(_Conv):
    """1-D convolution (``tf.compat.v1.layers.Conv1D``; padding may also be ``"causal"``)."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
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
        super().__init__(1, **passed_arguments(locals()))


class Conv2D(_Conv):
    """2-D convolution (``tf.compat.v1.layers.Conv2D``)."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = (1, 1),
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
        super().__init__(2, **passed_arguments(locals()))


class Conv3D(_Conv):
    """3-D convolution (``tf.compat.v1.layers.Conv3D``)."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1, 1),
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = (1, 1, 1),
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
        super().__init__(3, **passed_arguments(locals()))


def deconv_output_length(length: int | None, kernel: int, padding: str, stride: int,
                         dilation: int = 1) -> int | None:  # fmt: skip
    """A transposed convolution's output length (TF's ``conv_utils.deconv_output_length``)."""
    if length is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if padding == "valid":
        return length * stride + max(kernel - stride, 0)
    return length * stride


class _ConvTranspose(_Conv):
    """The ``rank``-D transposed convolution (TF's ``Conv2DTranspose``/``Conv3DTranspose``).

    Its kernel is ``kernel_size + (filters, in_channels)``; the output is
    ``tf.nn.conv2d_transpose``/``conv3d_transpose`` of the inputs.
    """

    @property
    def _op_name(self) -> str:
        return f"conv{self.rank}d_transpose"

    def _kernel_shape(self, channels: int) -> list[int]:
        return [*self.kernel_size, self.filters, channels]

    def _output_shape(self, inputs: Any, dilations: tuple[int, ...] | None = None) -> Any:
        """The op's ``output_shape``: a list of ints when the input's shape is known when
        the graph is built, else (as TF's layer) a ``tf.stack`` of ``tf.shape(inputs)``'s
        unknown dimensions and the lengths computed from them."""
        first = self.data_format == "channels_first"
        dims = inputs.shape.as_list()
        if any(d is None for d in dims):
            dynamic = op("shape")(inputs)
            dims = [dynamic[i] if d is None else d for i, d in enumerate(dims)]
        spatial = dims[2:] if first else dims[1:-1]
        dilations = dilations or (1,) * len(spatial)
        out = [
            deconv_output_length(n, k, self.padding, s, d)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, dilations,
                                  strict=True)
        ]  # fmt: skip
        shape = [dims[0], self.filters, *out] if first else [dims[0], *out, self.filters]
        if any(isinstance(d, ops.Tensor) for d in shape):
            return op("stack")(shape)
        return shape

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        shape = self._output_shape(inputs, self.dilation_rate)
        rank = {2: ("nn.conv2d_transpose", "NCHW", "NHWC"),
                3: ("nn.conv3d_transpose", "NCDHW", "NDHWC")}[self.rank]  # fmt: skip
        outputs = op(rank[0])(
            inputs,
            self.kernel,
            shape,
            strides=_full(self.strides, first),
            padding=self.padding.upper(),
            data_format=rank[1] if first else rank[2],
        )
        if self.use_bias:
            outputs = op("nn.bias_add")(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution (``tf.compat.v1.layers.Conv2DTranspose``)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 activation: Callable | None = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 kernel_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None,
                 kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True,
                 name: str | None = None, **kwargs: Any):  # fmt: skip
        super().__init__(2, filters, kernel_size, strides, padding, data_format, 1, activation,
                         use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                         bias_regularizer, activity_regularizer, kernel_constraint,
                         bias_constraint, trainable, name, **kwargs)  # fmt: skip


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution (``tf.compat.v1.layers.Conv3DTranspose``)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 activation: Callable | None = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                 kernel_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None,
                 kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True,
                 name: str | None = None, **kwargs: Any):  # fmt: skip
        super().__init__(3, filters, kernel_size, strides, padding, data_format, 1, activation,
                         use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                         bias_regularizer, activity_regularizer, kernel_constraint,
                         bias_constraint, trainable, name, **kwargs)  # fmt: skip


class _SeparableConv(_Conv):
    """A depthwise then pointwise convolution (TF's ``SeparableConv1D``/``SeparableConv2D``).

    Variables: ``depthwise_kernel`` (``kernel_size + (in_channels, depth_multiplier)``),
    ``pointwise_kernel`` (``(1,) * rank + (in_channels * depth_multiplier, filters)``),
    ``bias``; the output is ``tf.nn.separable_conv2d`` (1-D: of inputs with a unit axis).
    """

    def __init__(self, rank: int, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = 1, depth_multiplier: int = 1,
                 activation: Callable | None = None, use_bias: bool = True,
                 depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                 bias_initializer: Any = _ZEROS,
                 depthwise_regularizer: Callable | None = None,
                 pointwise_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None,
                 depthwise_constraint: Callable | None = None,
                 pointwise_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True,
                 name: str | None = None, **kwargs: Any):  # fmt: skip
        super().__init__(rank, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, activation, use_bias, None, bias_initializer, None,
                         bias_regularizer, activity_regularizer, None, bias_constraint,
                         trainable, name, **kwargs)  # fmt: skip
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape: Any) -> None:
        channels = input_shape.as_list()[self._channel_axis]
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs should be defined. The input_shape "
                f"received is {input_shape}, where axis {self._channel_axis} (0-based) is "
                "the channel dimension, which found to be `None`."
            )
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            shape=[*self.kernel_size, channels, self.depth_multiplier],
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            shape=[*(1,) * self.rank, channels * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=[self.filters],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                trainable=True,
                dtype=self.dtype,
            )
        self.built = True

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        depthwise, pointwise = self.depthwise_kernel, self.pointwise_kernel
        strides, rate = self.strides, self.dilation_rate
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            pads = [[0, 0], [0, 0], [left, 0]] if first else [[0, 0], [left, 0], [0, 0]]
            inputs = op("pad")(inputs, pads)
        padding = "VALID" if self.padding == "causal" else self.padding.upper()
        if self.rank == 1:  # TF: the 2-D op on [batch, 1, width, channels]
            axis = 2 if first else 1
            inputs = op("expand_dims")(inputs, axis)
            depthwise = op("expand_dims")(depthwise, 0)
            pointwise = op("expand_dims")(pointwise, 0)
            strides, rate = (1, *strides), (1, *rate)
        outputs = op("nn.separable_conv2d")(
            inputs,
            depthwise,
            pointwise,
            strides=_full(strides, first),
            padding=padding,
            rate=list(rate),
            data_format="NCHW" if first else "NHWC",
        )
        if self.rank == 1:
            outputs = op("squeeze")(outputs, [axis])
        if self.use_bias:
            outputs = op("nn.bias_add")(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


def _separable(rank: int, class_name: str, defaults: tuple[Any, Any]) -> type:
    """``SeparableConv1D``/``SeparableConv2D`` with TF's signature and defaults."""

    def __init__(self, filters, kernel_size, strides=defaults[0], padding="valid",  # noqa: N807
                 data_format="channels_last", dilation_rate=defaults[1], depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=_ZEROS,
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):  # fmt: skip
        _SeparableConv.__init__(
            self, rank, filters, kernel_size, strides, padding, data_format, dilation_rate,
            depth_multiplier, activation, use_bias, depthwise_initializer,
            pointwise_initializer, bias_initializer, depthwise_regularizer,
            pointwise_regularizer, bias_regularizer, activity_regularizer,
            depthwise_constraint, pointwise_constraint, bias_constraint, trainable, name,
            **kwargs,
        )  # fmt: skip

    doc = f"Depthwise separable {rank}-D convolution (``tf.compat.v1.layers.{class_name}``)."
    return type(class_name, (_SeparableConv,), {"__init__": __init__, "__doc__": doc,
                                                "__module__": __name__})  # fmt: skip


SeparableConv1D = _separable(1, "SeparableConv1D", (1, 1))
SeparableConv2D = _separable(2, "SeparableConv2D", ((1, 1), (1, 1)))


def _separable_function(cls: type, name: str, defaults: tuple[Any, Any]) -> Callable[..., Any]:
    def layer_function(inputs, filters, kernel_size, strides=defaults[0], padding="valid",
                       data_format="channels_last", dilation_rate=defaults[1],
                       depth_multiplier=1, activation=None, use_bias=True,
                       depthwise_initializer=None, pointwise_initializer=None,
                       bias_initializer=_ZEROS, depthwise_regularizer=None,
                       pointwise_regularizer=None, bias_regularizer=None,
                       activity_regularizer=None, depthwise_constraint=None,
                       pointwise_constraint=None, bias_constraint=None, trainable=True,
                       name=None, reuse=None):  # fmt: skip
        return cls(
            filters, kernel_size, strides, padding, data_format, dilation_rate,
            depth_multiplier, activation, use_bias, depthwise_initializer,
            pointwise_initializer, bias_initializer, depthwise_regularizer,
            pointwise_regularizer, bias_regularizer, activity_regularizer,
            depthwise_constraint, pointwise_constraint, bias_constraint, trainable, name,
            _scope=name, _reuse=reuse,
        )(inputs)  # fmt: skip

    layer_function.__name__ = layer_function.__qualname__ = name
    layer_function.__doc__ = (
        f"The functional form of ``{cls.__name__}`` (``tf.compat.v1.layers.{name}``).\n\n"
        "    Returns:\n      The output tensor; ``name`` is the layer's variable scope, "
        "``reuse`` reuses it.\n    "
    )
    return layer_function


separable_conv1d = _separable_function(SeparableConv1D, "separable_conv1d", (1, 1))
separable_conv2d = _separable_function(SeparableConv2D, "separable_conv2d", ((1, 1), (1, 1)))


def conv1d(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: Any = 1,
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
    """The functional form of ``Conv1D`` (``tf.compat.v1.layers.conv1d``).

    Returns:
      The output tensor; ``name`` is the layer's variable scope, ``reuse`` reuses it.
    """
    arguments = passed_arguments(locals(), "inputs", "reuse")
    return Conv1D(**arguments, _scope=name, _reuse=reuse)(inputs)


def conv2d(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: Any = (1, 1),
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
    """The functional form of ``Conv2D`` (``tf.compat.v1.layers.conv2d``).

    Returns:
      The output tensor; ``name`` is the layer's variable scope, ``reuse`` reuses it.
    """
    arguments = passed_arguments(locals(), "inputs", "reuse")
    return Conv2D(**arguments, _scope=name, _reuse=reuse)(inputs)


def conv3d(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = (1, 1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: Any = (1, 1, 1),
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
    """The functional form of ``Conv3D`` (``tf.compat.v1.layers.conv3d``).

    Returns:
      The output tensor; ``name`` is the layer's variable scope, ``reuse`` reuses it.
    """
    arguments = passed_arguments(locals(), "inputs", "reuse")
    return Conv3D(**arguments, _scope=name, _reuse=reuse)(inputs)


def conv2d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     activation: Callable | None = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                     kernel_regularizer: Callable | None = None,
                     bias_regularizer: Callable | None = None,
                     activity_regularizer: Callable | None = None,
                     kernel_constraint: Callable | None = None,
                     bias_constraint: Callable | None = None, trainable: bool = True,
                     name: str | None = None, reuse: Any = None) -> ops.Tensor:  # fmt: skip
    """The functional form of ``Conv2DTranspose`` (``tf.compat.v1.layers.conv2d_transpose``).

    Returns:
      The output tensor; ``name`` is the layer's variable scope, ``reuse`` reuses it.
    """
    arguments = passed_arguments(locals(), "inputs", "reuse")
    return Conv2DTranspose(**arguments, _scope=name, _reuse=reuse)(inputs)


def conv3d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     activation: Callable | None = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = _ZEROS,
                     kernel_regularizer: Callable | None = None,
                     bias_regularizer: Callable | None = None,
                     activity_regularizer: Callable | None = None,
                     kernel_constraint: Callable | None = None,
                     bias_constraint: Callable | None = None, trainable: bool = True,
                     name: str | None = None, reuse: Any = None) -> ops.Tensor:  # fmt: skip
    """The functional form of ``Conv3DTranspose`` (``tf.compat.v1.layers.conv3d_transpose``).

    Returns:
      The output tensor; ``name`` is the layer's variable scope, ``reuse`` reuses it.
    """
    arguments = passed_arguments(locals(), "inputs", "reuse")
    return Conv3DTranspose(**arguments, _scope=name, _reuse=reuse)(inputs)
