"""TF's ``tf.nn`` convolutions (``conv1d/2d/3d``, transposes, backprops, depthwise, separable).

Every convolution lowers through one function, ``convolve`` (``lax.conv_general_dilated``
at full precision): a faster lowering is swapped in there. TF's transposed
convolutions and backprops (``Conv2DBackpropInput``, ``Conv2DBackpropFilter``, ...)
are the vector-Jacobian products of that forward convolution, so their shapes,
``"SAME"`` padding split (the smaller half first) and values are TF's by
construction, and their gradients are JAX's derivatives of a linear map (TF's).

Arguments follow TF's rules: ``strides``/``dilations`` of 1, N or N+2 entries
(batch and channel entries 1), ``padding`` ``"SAME"``, ``"VALID"`` (upper case, as
TF's attribute check) or, where TF allows, explicit ``[[before, after], ...]`` for
every dimension; ``data_format`` channels-last (``NWC``/``NHWC``/``NDHWC``) or
channels-first. Filters are TF's: ``[spatial..., in, out]`` (transposes:
``[spatial..., out, in]``; depthwise: ``[h, w, in, multiplier]``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from adapters.v1.framework.op_def import FLOATING, OpTypeError, OpValueError, define

CONV_DTYPES = FLOATING + ("int32",)
_FILTER_LAYOUT = {1: "WIO", 2: "HWIO", 3: "DHWIO"}
_FORMATS = {
    1: ("NWC", "NCW"),
    2: ("NHWC", "NCHW"),
    3: ("NDHWC", "NCDHW"),
}


def convolve(
    x: Any,
    w: Any,
    strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dilations: Sequence[int],
    data_format: str,
    groups: int = 1,
) -> Any:
    """The one lowering of TF's convolutions.

    Args:
      x: the input, ``data_format`` layout.
      w: the filter, ``[spatial..., in / groups, out]``.
      strides: one stride per spatial dimension.
      padding: ``"SAME"``, ``"VALID"`` or one ``(before, after)`` per spatial dimension.
      dilations: one rate per spatial dimension.
      data_format: ``NWC``/``NHWC``/``NDHWC`` or the channels-first form.
      groups: feature groups (depthwise: the input channels).

    Returns:
      The convolution, ``data_format`` layout.
    """
    layout = (data_format, _FILTER_LAYOUT[w.ndim - 2], data_format)
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=tuple(strides),
        padding=padding if isinstance(padding, str) else [tuple(p) for p in padding],
        rhs_dilation=tuple(dilations),
        dimension_numbers=layout,
        feature_group_count=groups,
        precision=lax.Precision.HIGHEST,
    )


# -- TF's argument rules ------------------------------------------------------------------------
def channels_first(data_format: str | None) -> bool:
    return data_format is not None and data_format.startswith("NC")


def check_attr(op_type: str, attr: str, value: Any, allowed: Sequence[str]) -> None:
    """TF's op-attribute check of a string attribute (``padding``, ``data_format``)."""
    if value not in allowed:
        listed = ", ".join(f'"{a}"' for a in allowed)
        raise OpValueError(
            f"Attr '{attr}' of '{op_type}' Op passed string '{value}' not in: {listed}."
        )


def sequence(value: Any, n: int, data_format: str | None, name: str) -> list[int]:
    """TF's ``_get_sequence``: ``value`` as ``n + 2`` entries (1 for batch and channels)."""
    if value is None:
        return [1] * (n + 2)
    values = [value] if isinstance(value, int) else list(value)
    if len(values) == n + 2:
        return values
    if len(values) == 1:
        values = values * n
    elif len(values) != n:
        raise OpValueError(
            f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length "
            f"{len(values)}"
        )
    return [1, 1] + values if channels_first(data_format) else [1] + values + [1]


def spatial(values: Sequence[int], data_format: str | None) -> tuple[int, ...]:
    """The spatial entries of a full (``n + 2``) strides/ksize/dilations list."""
    return tuple(values[2:]) if channels_first(data_format) else tuple(values[1:-1])


def shape_error(message: str, op_type: str, *arrays: Any) -> OpValueError:
    """TF's shape-function error: ``message`` then the op and its input shapes."""
    shapes = ", ".join("[" + ",".join(str(d) for d in a.shape) + "]" for a in arrays)
    return OpValueError(f"{message} for '{op_type}' with input shapes: {shapes}.")


def padding_arg(
    padding: Any, n: int, data_format: str | None, op_type: str, explicit: bool = True
) -> str | list[tuple[int, int]]:
    """TF's ``padding``: ``"SAME"``/``"VALID"``, or the spatial pairs of an explicit list."""
    if isinstance(padding, (list, tuple)) and explicit:
        pairs = []
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):
                raise OpValueError(
                    "When `padding` is a list, each element of `padding` must be a list/tuple "
                    f"of size 2. Received: padding={padding} with element at index {i} of type "
                    f"{type(pair)}"
                )
            if len(pair) != 2:
                raise OpValueError(
                    "When `padding` is a list, each element of `padding` must be a list/tuple "
                    f"of size 2. Received: padding={padding} with element at index {i} of size "
                    f"{len(pair)}"
                )
            pairs.append((int(pair[0]), int(pair[1])))
        if len(pairs) != n + 2:
            raise OpValueError(
                f"When padding is a list, it must be of size {n + 2}. Received: "
                f"padding={padding} of size {len(pairs)}"
            )
        outer = [pairs[0], pairs[1]] if channels_first(data_format) else [pairs[0], pairs[-1]]
        if any(p != (0, 0) for p in outer):
            raise OpValueError(
                "Nonzero explicit padding in the batch or depth dimensions is not supported "
                f"for '{op_type}'."
            )
        return list(spatial(pairs, data_format))
    if not isinstance(padding, str):
        raise OpTypeError(f"Expected string for argument 'padding' not {padding!r}.")
    allowed = ("SAME", "VALID", "EXPLICIT") if explicit else ("SAME", "VALID")
    check_attr(op_type, "padding", padding, allowed)
    if padding == "EXPLICIT":
        raise OpValueError(
            "'EXPLICIT' is not a valid value for `padding`. To use explicit padding, "
            "`padding` must be a list."
        )
    return padding


def _check_unit_outer(values: list[int], data_format: str | None, what: str, op_type: str, *a):
    outer = (values[0], values[1]) if channels_first(data_format) else (values[0], values[-1])
    if outer != (1, 1):
        raise shape_error(
            f"Current implementation does not yet support {what} in the batch and depth "
            "dimensions.",
            op_type,
            *a,
        )


def _channels(shape: Sequence[int], data_format: str | None) -> int:
    return shape[1] if channels_first(data_format) else shape[-1]


def _forward(
    x, w, strides, padding, dilations, data_format, op_type, groups=1, check_depth=True
) -> Any:
    """A TF convolution op of full-length strides/dilations: checks, then ``convolve``."""
    n = w.ndim - 2
    if x.ndim != n + 2:
        raise shape_error(f"Shape must be rank {n + 2} but is rank {x.ndim}", op_type, x, w)
    if len(strides) != n + 2:
        raise OpValueError(
            f"Attr 'strides' of '{op_type}' Op passed list of length {len(strides)} less than "
            f"minimum {n + 2}."
            if len(strides) < n + 2
            else f"Sliding window strides field must specify {n + 2} dimensions"
        )
    _check_unit_outer(list(strides), data_format, "strides", op_type, x, w)
    _check_unit_outer(list(dilations), data_format, "dilations", op_type, x, w)
    depth = _channels(x.shape, data_format)
    if check_depth and depth % w.shape[-2]:
        raise shape_error(
            f"Depth of input ({depth}) is not a multiple of input depth of filter ({w.shape[-2]})",
            op_type,
            x,
            w,
        )
    groups = groups if not check_depth else depth // w.shape[-2]
    return convolve(
        x,
        w,
        spatial(strides, data_format),
        padding,
        spatial(dilations, data_format),
        data_format,
        groups,
    )


def _input_grad(input_sizes, w, dy, forward) -> Any:
    """``d forward(x) / dx`` applied to ``dy``: TF's ``*BackpropInput`` of ``input_sizes``."""
    sizes = tuple(int(s) for s in input_sizes)
    expected = jax.eval_shape(forward, jax.ShapeDtypeStruct(sizes, dy.dtype), w).shape
    if tuple(expected) != tuple(dy.shape):
        # A dimension still unknown (symbolic) while the graph is built is no mismatch
        # yet: a plain error lets the build try the known sizes for it.
        known = all(isinstance(d, int) for d in dy.shape)
        raise (OpValueError if known else ValueError)(
            f"The shape of out_backprop {list(dy.shape)} does not match the output "
            f"{list(expected)} of the convolution of an input of shape {list(sizes)} "
            f"(output_shape/input_sizes) with a filter of shape {list(w.shape)}"
        )
    _, vjp = jax.vjp(lambda x: forward(x, w), jnp.zeros(sizes, dy.dtype))
    return vjp(dy)[0]


def _filter_grad(x, filter_sizes, dy, forward) -> Any:
    """``d forward(x, w) / dw`` applied to ``dy``: TF's ``*BackpropFilter``."""
    sizes = tuple(int(s) for s in filter_sizes)
    _, vjp = jax.vjp(lambda w: forward(x, w), jnp.zeros(sizes, dy.dtype))
    return vjp(dy)[0]


def _either(a: Any, b: Any, what: str) -> Any:
    if a is not None and b is not None:
        raise OpValueError(f"Cannot specify both '{what[0]}' and '{what[1]}'.")
    return a if a is not None else b


# -- conv2d and its backprops ---------------------------------------------------------------
def _conv2d_parts(strides, padding, data_format, dilations, op_type="Conv2D"):
    check_attr(op_type, "data_format", data_format, _FORMATS[2])
    strides = sequence(strides, 2, data_format, "strides")
    dilations = sequence(dilations, 2, data_format, "dilations")
    return strides, padding_arg(padding, 2, data_format, op_type), dilations


def _conv2d(
    input,
    filter=None,
    strides=None,
    padding=None,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
    filters=None,
):
    filter = _either(filter, filters, ("filter", "filters"))
    strides, padding, dilations = _conv2d_parts(strides, padding, data_format, dilations)
    return _forward(input, filter, strides, padding, dilations, data_format, "Conv2D")


define(
    "nn.conv2d",
    "Conv2D",
    _conv2d,
    params="input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True, "
    "data_format='NHWC', dilations=[1, 1, 1, 1], name=None, filters=None",
    tensors="input filter filters",
    allowed=CONV_DTYPES,
)


def _conv2d_backprop_input(
    input_sizes,
    filter=None,
    out_backprop=None,
    strides=None,
    padding=None,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
    filters=None,
):
    op_type = "Conv2DBackpropInput"
    filter = _either(filter, filters, ("filter", "filters"))
    strides, padding, dilations = _conv2d_parts(strides, padding, data_format, dilations, op_type)
    depth = _channels(input_sizes, data_format)
    if depth != filter.shape[2] or _channels(out_backprop.shape, data_format) != filter.shape[3]:
        dy_depth = _channels(out_backprop.shape, data_format)
        a, b = (depth, filter.shape[2]) if depth != filter.shape[2] else (dy_depth, filter.shape[3])
        raise shape_error(
            f"Dimensions must be equal, but are {a} and {b}", op_type, filter, out_backprop
        )

    def forward(x, w):
        return _forward(x, w, strides, padding, dilations, data_format, op_type)

    return _input_grad(input_sizes, filter, out_backprop, forward)


define(
    "nn.conv2d_backprop_input",
    "Conv2DBackpropInput",
    _conv2d_backprop_input,
    params="input_sizes, filter=None, out_backprop=None, strides=None, padding=None, "
    "use_cudnn_on_gpu=True, data_format='NHWC', dilations=[1, 1, 1, 1], name=None, "
    "filters=None",
    tensors="filter out_backprop filters",
    allowed=FLOATING,
)


def _conv2d_backprop_filter(
    input,
    filter_sizes,
    out_backprop,
    strides,
    padding,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
):
    op_type = "Conv2DBackpropFilter"
    strides, padding, dilations = _conv2d_parts(strides, padding, data_format, dilations, op_type)

    def forward(x, w):
        return _forward(x, w, strides, padding, dilations, data_format, op_type)

    return _filter_grad(input, filter_sizes, out_backprop, forward)


define(
    "nn.conv2d_backprop_filter",
    "Conv2DBackpropFilter",
    _conv2d_backprop_filter,
    params="input, filter_sizes, out_backprop, strides, padding, use_cudnn_on_gpu=True, "
    "data_format='NHWC', dilations=[1, 1, 1, 1], name=None",
    tensors="input out_backprop",
    allowed=FLOATING,
)


def _conv2d_transpose(
    value=None,
    filter=None,
    output_shape=None,
    strides=None,
    padding="SAME",
    data_format="NHWC",
    input=None,
    filters=None,
    dilations=None,
):
    value = _either(value, input, ("value", "input"))
    filter = _either(filter, filters, ("filter", "filters"))
    return _conv2d_backprop_input(
        list(output_shape),
        filter,
        value,
        strides,
        padding,
        True,
        data_format,
        dilations,
        None,
    )


define(
    "nn.conv2d_transpose",
    "Conv2DBackpropInput",
    _conv2d_transpose,
    params="value=None, filter=None, output_shape=None, strides=None, padding='SAME', "
    "data_format='NHWC', name=None, input=None, filters=None, dilations=None",
    tensors="value filter input filters",
    allowed=FLOATING,
    default_name="conv2d_transpose",
)


# -- conv1d, conv3d, N-d ----------------------------------------------------------------------
def _conv1d(
    value=None,
    filters=None,
    stride=None,
    padding=None,
    use_cudnn_on_gpu=None,
    data_format=None,
    input=None,
    dilations=None,
):
    value = _either(value, input, ("value", "input"))
    if data_format is None or data_format in ("NHWC", "NWC"):
        data_format = "NWC"
    elif data_format in ("NCHW", "NCW"):
        data_format = "NCW"
    else:
        raise OpValueError(
            f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}"
        )
    strides = sequence(stride, 1, data_format, "stride")
    dilations = sequence(dilations, 1, data_format, "dilations")
    padding = padding_arg(padding, 1, data_format, "Conv2D")
    return _forward(value, filters, strides, padding, dilations, data_format, "Conv2D")


define(
    "nn.conv1d",
    "Squeeze",
    _conv1d,
    params="value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None, "
    "data_format=None, name=None, input=None, dilations=None",
    tensors="value filters input",
    allowed=CONV_DTYPES,
    default_name="conv1d",
)


def _conv1d_transpose(
    input, filters, output_shape, strides, padding="SAME", data_format="NWC", dilations=None
):
    if data_format not in ("NWC", "NCW"):
        raise OpValueError(
            f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}"
        )
    strides = sequence(strides, 1, data_format, "strides")
    dilations = sequence(dilations, 1, data_format, "dilations")
    padding = padding_arg(padding, 1, data_format, "Conv2DBackpropInput")

    def forward(x, w):
        return _forward(x, w, strides, padding, dilations, data_format, "Conv2DBackpropInput")

    return _input_grad(list(output_shape), filters, input, forward)


define(
    "nn.conv1d_transpose",
    "Squeeze",
    _conv1d_transpose,
    params="input, filters, output_shape, strides, padding='SAME', data_format='NWC', "
    "dilations=None, name=None",
    tensors="input filters",
    allowed=FLOATING,
    default_name="conv1d_transpose",
)


def _conv3d_parts(strides, padding, data_format, dilations, op_type):
    check_attr(op_type, "data_format", data_format, _FORMATS[3])
    if strides is None or len(strides) < 5:
        raise OpValueError(
            f"Attr 'strides' of '{op_type}' Op passed list of length "
            f"{0 if strides is None else len(strides)} less than minimum 5."
        )
    dilations = sequence(dilations, 3, data_format, "dilations")
    return list(strides), padding_arg(padding, 3, data_format, op_type, explicit=False), dilations


def _conv3d(
    input,
    filter=None,
    strides=None,
    padding=None,
    data_format="NDHWC",
    dilations=(1, 1, 1, 1, 1),
    filters=None,
):
    filter = _either(filter, filters, ("filter", "filters"))
    strides, padding, dilations = _conv3d_parts(strides, padding, data_format, dilations, "Conv3D")
    return _forward(input, filter, strides, padding, dilations, data_format, "Conv3D")


define(
    "nn.conv3d",
    "Conv3D",
    _conv3d,
    params="input, filter=None, strides=None, padding=None, data_format='NDHWC', "
    "dilations=[1, 1, 1, 1, 1], name=None, filters=None",
    tensors="input filter filters",
    allowed=FLOATING,
)


def _conv3d_transpose(
    value,
    filter=None,
    output_shape=None,
    strides=None,
    padding="SAME",
    data_format="NDHWC",
    input=None,
    filters=None,
    dilations=None,
):
    op_type = "Conv3DBackpropInputV2"
    value = _either(value, input, ("value", "input"))
    filter = _either(filter, filters, ("filter", "filters"))
    strides, padding, dilations = _conv3d_parts(strides, padding, data_format, dilations, op_type)

    def forward(x, w):
        return _forward(x, w, strides, padding, dilations, data_format, op_type)

    return _input_grad(list(output_shape), filter, value, forward)


define(
    "nn.conv3d_transpose",
    "Conv3DBackpropInputV2",
    _conv3d_transpose,
    params="value, filter=None, output_shape=None, strides=None, padding='SAME', "
    "data_format='NDHWC', name=None, input=None, filters=None, dilations=None",
    tensors="value filter input filters",
    allowed=FLOATING,
    default_name="conv3d_transpose",
)


def _conv3d_backprop_filter(
    input,
    filter_sizes,
    out_backprop,
    strides,
    padding,
    data_format="NDHWC",
    dilations=(1, 1, 1, 1, 1),
):
    op_type = "Conv3DBackpropFilterV2"
    strides, padding, dilations = _conv3d_parts(strides, padding, data_format, dilations, op_type)

    def forward(x, w):
        return _forward(x, w, strides, padding, dilations, data_format, op_type)

    return _filter_grad(input, list(filter_sizes), out_backprop, forward)


define(
    ("nn.conv3d_backprop_filter", "nn.conv3d_backprop_filter_v2"),
    "Conv3DBackpropFilterV2",
    _conv3d_backprop_filter,
    params="input, filter_sizes, out_backprop, strides, padding, data_format='NDHWC', "
    "dilations=[1, 1, 1, 1, 1], name=None",
    tensors="input out_backprop",
    allowed=FLOATING,
)


def _conv_transpose(
    input, filters, output_shape, strides, padding="SAME", data_format=None, dilations=None
):
    output_shape = list(output_shape)
    n = len(output_shape) - 2
    if n not in _FORMATS:
        raise OpValueError(
            f"`output_shape` must be of length 3, 4 or 5. Received: output_shape="
            f"{output_shape} of length {n + 2}."
        )
    data_format = _FORMATS[n][1 if channels_first(data_format) else 0]
    op_type = {1: "Conv2DBackpropInput", 2: "Conv2DBackpropInput", 3: "Conv3DBackpropInputV2"}[n]
    strides = sequence(strides, n, data_format, "strides")
    dilations = sequence(dilations, n, data_format, "dilations")
    padding = padding_arg(padding, n, data_format, op_type, explicit=n != 3)

    def forward(x, w):
        return _forward(x, w, strides, padding, dilations, data_format, op_type)

    return _input_grad(output_shape, filters, input, forward)


define(
    "nn.conv_transpose",
    "Conv2DBackpropInput",
    _conv_transpose,
    params="input, filters, output_shape, strides, padding='SAME', data_format=None, "
    "dilations=None, name=None",
    tensors="input filters",
    allowed=FLOATING,
    default_name="conv_transpose",
)


def _atrous_conv2d_transpose(value, filters, output_shape, rate, padding):
    if rate < 1:
        raise OpValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    padding = padding_arg(padding, 2, "NHWC", "Conv2DBackpropInput", explicit=False)
    return _conv_transpose(value, filters, output_shape, 1, padding, "NHWC", rate)


define(
    "nn.atrous_conv2d_transpose",
    "Conv2DBackpropInput",
    _atrous_conv2d_transpose,
    params="value, filters, output_shape, rate, padding, name=None",
    tensors="value filters",
    allowed=FLOATING,
    default_name="atrous_conv2d_transpose",
)


def _convolution(
    input,
    filter,
    padding,
    strides=None,
    dilation_rate=None,
    data_format=None,
    filters=None,
    dilations=None,
):
    filter = _either(filter, filters, ("filter", "filters"))
    dilation_rate = _either(dilation_rate, dilations, ("dilation_rate", "dilations"))
    n = filter.ndim - 2
    if n not in _FORMATS:
        raise OpValueError(f"`input` must be 3D, 4D or 5D. Received: input rank {input.ndim}")
    data_format = _FORMATS[n][1 if channels_first(data_format) else 0]
    # TF's rule: an int, n values or n + 2 (batch and channels 1), as every conv op's
    strides = list(spatial(sequence(strides, n, data_format, "strides"), data_format))
    rates = list(spatial(sequence(dilation_rate, n, data_format, "dilations"), data_format))
    if any(s != 1 for s in strides) and any(r != 1 for r in rates):
        raise OpValueError(
            "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
            f"Received: strides={strides} and dilation_rate={rates}"
        )
    padding = padding_arg(padding, n, data_format, "Conv2D", explicit=False)
    full = (lambda v: [1, 1, *v]) if channels_first(data_format) else (lambda v: [1, *v, 1])
    return _forward(
        input,
        filter,
        full(strides),
        padding,
        full(rates),
        data_format,
        {1: "Conv2D", 2: "Conv2D", 3: "Conv3D"}[n],
    )


define(
    "nn.convolution",
    "Conv2D",
    _convolution,
    params="input, filter, padding, strides=None, dilation_rate=None, name=None, "
    "data_format=None, filters=None, dilations=None",
    tensors="input filter filters",
    allowed=FLOATING,
    default_name="convolution",
)
define(
    "nn.atrous_conv2d",
    "Conv2D",
    lambda value, filters, rate, padding: _convolution(
        value, filters, padding, dilation_rate=[rate, rate]
    ),
    params="value, filters, rate, padding, name=None",
    tensors="value filters",
    allowed=FLOATING,
    default_name="atrous_conv2d",
)


# -- depthwise and separable --------------------------------------------------------------
def _depthwise_native(input, filter, strides, padding, data_format, dilations, op_type):
    check_attr(op_type, "data_format", data_format, _FORMATS[2])
    if len(strides) != 4:
        raise OpValueError(
            f"Attr 'strides' of '{op_type}' Op passed list of length {len(strides)} less than "
            "minimum 4."
        )
    dilations = sequence(dilations, 2, data_format, "dilations")
    padding = padding_arg(padding, 2, data_format, op_type)
    depth = _channels(input.shape, data_format)
    if depth != filter.shape[2]:
        raise shape_error(
            f"Dimensions must be equal, but are {depth} and {filter.shape[2]}",
            op_type,
            input,
            filter,
        )
    h, w, c, m = filter.shape
    return _forward(
        input,
        filter.reshape(h, w, 1, c * m),
        list(strides),
        padding,
        dilations,
        data_format,
        op_type,
        groups=c,
        check_depth=False,
    )


def _depthwise_conv2d_native(
    input, filter, strides, padding, data_format="NHWC", dilations=(1, 1, 1, 1)
):
    return _depthwise_native(
        input, filter, strides, padding, data_format, dilations, "DepthwiseConv2dNative"
    )


define(
    "nn.depthwise_conv2d_native",
    "DepthwiseConv2dNative",
    _depthwise_conv2d_native,
    params="input, filter, strides, padding, data_format='NHWC', dilations=[1, 1, 1, 1], name=None",
    tensors="input filter",
    allowed=FLOATING,
)


def _depthwise_backprop_input(
    input_sizes,
    filter,
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
):
    def forward(x, w):
        return _depthwise_native(
            x, w, strides, padding, data_format, dilations, "DepthwiseConv2dNativeBackpropInput"
        )

    return _input_grad(list(input_sizes), filter, out_backprop, forward)


def _depthwise_backprop_filter(
    input,
    filter_sizes,
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
):
    def forward(x, w):
        return _depthwise_native(
            x, w, strides, padding, data_format, dilations, "DepthwiseConv2dNativeBackpropFilter"
        )

    return _filter_grad(input, list(filter_sizes), out_backprop, forward)


define(
    ("nn.depthwise_conv2d_native_backprop_input", "nn.depthwise_conv2d_backprop_input"),
    "DepthwiseConv2dNativeBackpropInput",
    _depthwise_backprop_input,
    params="input_sizes, filter, out_backprop, strides, padding, data_format='NHWC', "
    "dilations=[1, 1, 1, 1], name=None",
    tensors="filter out_backprop",
    allowed=FLOATING,
)
define(
    ("nn.depthwise_conv2d_native_backprop_filter", "nn.depthwise_conv2d_backprop_filter"),
    "DepthwiseConv2dNativeBackpropFilter",
    _depthwise_backprop_filter,
    params="input, filter_sizes, out_backprop, strides, padding, data_format='NHWC', "
    "dilations=[1, 1, 1, 1], name=None",
    tensors="input out_backprop",
    allowed=FLOATING,
)


def _rate(rate: Any, dilations: Any, strides: Sequence[int]) -> list[int]:
    """``depthwise_conv2d``'s spatial ``rate`` (TF: dilation > 1 wants unit strides)."""
    rate = _either(rate, dilations, ("rate", "dilations"))
    rate = [1, 1] if rate is None else ([rate, rate] if isinstance(rate, int) else list(rate))
    if len(rate) != 2:
        raise OpValueError(f"rate must be two integers, got {rate}")
    if any(r > 1 for r in rate) and any(s != 1 for s in strides):
        warnings.warn(
            "When dilation rate is greater than 1, then all values of strides must be 1. "
            f"Received: `dilation rate` {rate} and `strides` {list(strides)}",
            stacklevel=2,
        )
        raise OpValueError(
            "jtrain: depthwise/separable convolutions with a dilation rate > 1 need strides "
            f"of 1 (TF only warns and computes a strided space-to-batch result); got rate "
            f"{rate} and strides {list(strides)}"
        )
    return rate


def _depthwise_conv2d(input, filter, strides, padding, rate=None, data_format=None, dilations=None):
    rate = _rate(rate, dilations, strides)
    data_format = data_format or "NHWC"
    full = [1, 1, *rate] if channels_first(data_format) else [1, *rate, 1]
    return _depthwise_native(
        input, filter, strides, padding, data_format, full, "DepthwiseConv2dNative"
    )


define(
    "nn.depthwise_conv2d",
    "DepthwiseConv2dNative",
    _depthwise_conv2d,
    params="input, filter, strides, padding, rate=None, name=None, data_format=None, "
    "dilations=None",
    tensors="input filter",
    allowed=FLOATING,
    default_name="depthwise",
)


def _separable_conv2d(
    input,
    depthwise_filter,
    pointwise_filter,
    strides,
    padding,
    rate=None,
    data_format=None,
    dilations=None,
):
    data_format = data_format or "NHWC"
    if pointwise_filter.shape[0] != 1 or pointwise_filter.shape[1] != 1:
        raise OpValueError(
            "pointwise_filter must have its two first dimensions 1; got "
            f"{list(pointwise_filter.shape)}"
        )
    depthwise = _depthwise_conv2d(input, depthwise_filter, strides, padding, rate, data_format)
    return _forward(
        depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", [1, 1, 1, 1], data_format, "Conv2D"
    )


define(
    "nn.separable_conv2d",
    "Conv2D",
    _separable_conv2d,
    params="input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None, "
    "data_format=None, dilations=None",
    tensors="input depthwise_filter pointwise_filter",
    allowed=FLOATING,
    default_name="separable_conv2d",
)
