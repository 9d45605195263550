"""TF's ``tf.nn`` pooling (``max_pool``/``avg_pool`` 1-d, 2-d, 3-d, ``max_pool_v2``, ``pool``).

TF's semantics: ``"SAME"`` padding never lets a padded element win a max
(``-inf``) and ``avg_pool`` averages over the window's valid (unpadded) elements
only; ``max_pool`` takes explicit padding (``[[0, 0], [t, b], [l, r], [0, 0]]``),
``avg_pool`` does not. Window sizes and strides follow TF's ``_get_sequence``
(1, N or N+2 entries). ``max_pool``'s gradient goes to one maximum of each window
(the first, in row-major window order, where several tie), as TF's kernel; the
window max lowers through ``_max_window.max_window`` (fast on CPU).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework.op_def import FLOATING, REAL, OpValueError, define, np_dtype
from adapters.v1.ops._max_window import max_window
from adapters.v1.ops.nn_conv import channels_first, check_attr, padding_arg, sequence
from jtrain._numerics import kernel_divide

_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _window(value, ksize, strides, padding, data_format, n, op_type, explicit):
    """Window dimensions, strides and padding pairs of every dimension (TF's rules)."""
    ksize = sequence(ksize, n, data_format, "ksize")
    strides = sequence(strides, n, data_format, "strides")
    if any(k == 0 for k in ksize):
        raise OpValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")
    if value.ndim != n + 2:
        raise OpValueError(
            f"Shape must be rank {n + 2} but is rank {value.ndim} for '{op_type}' with input "
            f"shapes: [{','.join(str(d) for d in value.shape)}]."
        )
    for what, values in (("ksize", ksize), ("strides", strides)):
        outer = (values[0], values[1]) if channels_first(data_format) else (values[0], values[-1])
        if outer != (1, 1):
            raise OpValueError(
                f"{op_type} is not yet supported on the batch or depth dimensions of {what} "
                f"({what}={values})"
            )
    pad = padding_arg(padding, n, data_format, op_type, explicit=explicit)
    if isinstance(pad, str):
        pairs = lax.padtype_to_pads(value.shape, ksize, strides, pad)
    else:
        pairs = [(0, 0), (0, 0), *pad] if channels_first(data_format) else [(0, 0), *pad, (0, 0)]
    return tuple(ksize), tuple(strides), pairs


def _max(value, ksize, strides, padding, data_format, n, op_type, explicit=True):
    dims, window_strides, pad = _window(
        value, ksize, strides, padding, data_format, n, op_type, explicit
    )
    # TF pools from the dtype's lowest finite value: a window of -inf gives it
    floating = np.dtype(value.dtype).kind == "f" or value.dtype == jnp.bfloat16
    if floating:
        init = np.array(jnp.finfo(value.dtype).min, value.dtype)
    else:
        init = np.array(np.iinfo(value.dtype).min, value.dtype)
    if not all(isinstance(d, int) for d in value.shape):
        return _symbolic_max(value, init, floating, dims, window_strides, pad)
    return max_window(value, init, dims, window_strides, pad)


def _symbolic_max(value, init, floating, dims, window_strides, pad):
    """``max_window``'s values and gradient for an input of symbolic dimensions.

    Static shape inference traces ops with symbolic sizes for the unknown
    dimensions (and ``export_meta_graph`` exports them so): the result's
    dimensions are then expressions, unknown as in TF (``max_pool`` of a
    ``[None, None, None, 3]`` input is ``(?, ?, ?, 3)`` whatever the window).
    ``max_window``'s CPU rewrite needs concrete sizes; this is its other path,
    ``reduce_window`` from ``-inf`` with JAX's gradient (TF's rule: to the first
    maximum), floored at ``init`` (TF's kernel starts from the lowest finite value).
    """
    if not floating:
        return lax.reduce_window(value, init, lax.max, dims, window_strides, pad)
    low = np.array(-np.inf, value.dtype)
    most = lax.reduce_window(value, low, lax.max, dims, window_strides, pad)
    floor = jnp.asarray(init, value.dtype)
    return jnp.where(most < floor, floor, most)


def _avg(value, ksize, strides, padding, data_format, n, op_type):
    dims, window_strides, pad = _window(
        value, ksize, strides, padding, data_format, n, op_type, explicit=False
    )
    zero = np.array(0, value.dtype)
    total = lax.reduce_window(value, zero, lax.add, dims, window_strides, pad)
    ones = jnp.ones(value.shape, value.dtype)
    count = lax.reduce_window(ones, zero, lax.add, dims, window_strides, pad)
    # TF: the mean over the window's valid (unpadded) elements, divided as its kernel does
    return kernel_divide(total, count)


def _value(value: Any, input: Any) -> Any:
    if value is not None and input is not None:
        raise OpValueError("Cannot specify both 'value' and 'input'.")
    return input if value is None else value


def _format(data_format: str | None, n: int, op_type: str) -> str:
    data_format = data_format or _FORMATS[n][0]
    check_attr(op_type, "data_format", data_format, _FORMATS[n])
    return data_format


def _max_pool(value, ksize, strides, padding, data_format="NHWC", input=None):
    fmt = _format(data_format, 2, "MaxPool")
    return _max(_value(value, input), ksize, strides, padding, fmt, 2, "MaxPool")


def _avg_pool(value, ksize, strides, padding, data_format="NHWC", input=None):
    fmt = _format(data_format, 2, "AvgPool")
    return _avg(_value(value, input), ksize, strides, padding, fmt, 2, "AvgPool")


_V1_POOL = "value, ksize, strides, padding, data_format='NHWC', name=None, input=None"
define(
    "nn.max_pool",
    "MaxPool",
    _max_pool,
    params=_V1_POOL,
    tensors="value input",
    allowed=REAL,
)
define(
    ("nn.avg_pool", "nn.avg_pool2d"),
    "AvgPool",
    _avg_pool,
    params=_V1_POOL,
    tensors="value input",
    allowed=FLOATING,
)
define(
    "nn.max_pool2d",
    "MaxPool",
    lambda input, ksize, strides, padding, data_format="NHWC": _max_pool(
        input, ksize, strides, padding, data_format
    ),
    params="input, ksize, strides, padding, data_format='NHWC', name=None",
    tensors="input",
    allowed=REAL,
)


def _pool_nd(kind: str, input, ksize, strides, padding, data_format, n: int) -> Any:
    op_type = {("max", 3): "MaxPool3D", ("avg", 3): "AvgPool3D"}.get(
        (kind, n), "MaxPool" if kind == "max" else "AvgPool"
    )
    fmt = _format(data_format, n, op_type)
    if kind == "max":
        return _max(input, ksize, strides, padding, fmt, n, op_type, explicit=n != 3)
    return _avg(input, ksize, strides, padding, fmt, n, op_type)


for _kind, _n, _type, _format_default in [
    ("max", 1, "Squeeze", "NWC"),
    ("avg", 1, "Squeeze", "NWC"),
    ("max", 3, "MaxPool3D", "NDHWC"),
    ("avg", 3, "AvgPool3D", "NDHWC"),
]:
    define(
        f"nn.{_kind}_pool{_n}d",
        _type,
        lambda input, ksize, strides, padding, data_format=None, _k=_kind, _n=_n: _pool_nd(
            _k, input, ksize, strides, padding, data_format, _n
        ),
        params=f"input, ksize, strides, padding, data_format='{_format_default}', name=None",
        tensors="input",
        allowed=REAL if _kind == "max" else FLOATING,
        default_name=f"{_kind.capitalize()}Pool{_n}d" if _n == 1 else _type,
    )


def _pool_v2(kind: str):
    def pool(input, ksize, strides, padding, data_format=None):
        n = input.ndim - 2
        if not 1 <= n <= 3:
            raise OpValueError(
                f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={list(input.shape)}"
                f" of rank {n + 2}."
            )
        return _pool_nd(kind, input, ksize, strides, padding, data_format, n)

    return pool


define(
    "nn.max_pool_v2",
    "MaxPool",
    _pool_v2("max"),
    params="input, ksize, strides, padding, data_format=None, name=None",
    tensors="input",
    allowed=REAL,
)
define(
    "nn.avg_pool_v2",
    "AvgPool",
    _pool_v2("avg"),
    params="input, ksize, strides, padding, data_format=None, name=None",
    tensors="input",
    allowed=FLOATING,
)


def _pool(
    input,
    window_shape,
    pooling_type,
    padding,
    dilation_rate=None,
    strides=None,
    data_format=None,
    dilations=None,
):
    if dilation_rate is not None and dilations is not None:
        raise OpValueError("Cannot specify both 'dilation_rate' and 'dilations'.")
    rate = dilation_rate if dilation_rate is not None else dilations
    n = len(window_shape)
    if rate is not None and any(r != 1 for r in rate):
        raise OpValueError(
            "jtrain: tf.nn.pool with dilation_rate > 1 is not supported; use dilation 1 or "
            "tf.nn.max_pool/avg_pool"
        )
    if pooling_type not in ("MAX", "AVG"):
        raise OpValueError(f"Invalid pooling_type: {pooling_type}")
    strides = [1] * n if strides is None else list(strides)
    fmt = _FORMATS[n][1 if channels_first(data_format) else 0]
    kind = "max" if pooling_type == "MAX" else "avg"
    return _pool_nd(kind, input, list(window_shape), strides, padding, fmt, n)


define(
    "nn.pool",
    "MaxPool",
    _pool,
    params="input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, "
    "name=None, data_format=None, dilations=None",
    tensors="input",
    allowed=FLOATING,
    default_name="pool",
)


def _max_pool_with_argmax(
    input,
    ksize,
    strides,
    padding,
    data_format="NHWC",
    Targmax=None,  # noqa: N803 - TF's name
    output_dtype=None,
    include_batch_in_index=False,
):
    if data_format != "NHWC":
        raise OpValueError(
            "`data_format` values other  than 'NHWC' are not supported. Received: "
            f"data_format={data_format}"
        )
    if Targmax is not None and output_dtype is not None:
        raise OpValueError("Cannot specify both 'output_dtype' and 'Targmax'.")
    index_dtype = np_dtype(output_dtype or Targmax or "int64")
    output = _max(input, ksize, strides, padding, "NHWC", 2, "MaxPoolWithArgmax", explicit=False)
    dims, window_strides, pads = _window(
        input, ksize, strides, padding, "NHWC", 2, "MaxPoolWithArgmax", explicit=False
    )
    n, height, width, depth = input.shape
    value = lax.stop_gradient(input)
    low = np.array(-np.inf if np.dtype(value.dtype).kind == "f" else np.iinfo(value.dtype).min)
    padded = lax.pad(value, low.astype(value.dtype), [(lo, hi, 0) for lo, hi in pads])
    out_h, out_w = output.shape[1], output.shape[2]
    rows = jnp.arange(out_h) * window_strides[1] - pads[1][0]
    cols = jnp.arange(out_w) * window_strides[2] - pads[2][0]
    best, where = None, None
    for dy in range(dims[1]):  # row-major window order; a tie keeps the first (TF's kernel)
        for dx in range(dims[2]):
            start = (0, dy, dx, 0)
            limit = (
                n,
                dy + (out_h - 1) * window_strides[1] + 1,
                dx + (out_w - 1) * window_strides[2] + 1,
                depth,
            )
            candidate = lax.slice(
                padded, start, limit, (1, window_strides[1], window_strides[2], 1)
            )
            flat = ((rows[:, None] + dy) * width + (cols[None, :] + dx))[None, :, :, None] * depth
            flat = flat + jnp.arange(depth)
            if include_batch_in_index:
                flat = flat + (jnp.arange(n) * height * width * depth)[:, None, None, None]
            flat = jnp.broadcast_to(flat, candidate.shape).astype(index_dtype)
            if best is None:
                best, where = candidate, flat
            else:
                better = candidate > best
                best, where = jnp.where(better, candidate, best), jnp.where(better, flat, where)
    return output, where


define(
    "nn.max_pool_with_argmax",
    "MaxPoolWithArgmax",
    _max_pool_with_argmax,
    params="input, ksize, strides, padding, data_format='NHWC', Targmax=None, name=None, "
    "output_dtype=None, include_batch_in_index=False",
    tensors="input",
    allowed=REAL,
    tf_gradient="to the first maximum of each window (the argmax), as max_pool",
)
