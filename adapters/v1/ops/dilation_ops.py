"""TF's grayscale morphology (``tf.nn.dilation2d``, ``tf.nn.erosion2d``; op ``Dilation2D``).

.. math::

   \\text{out}[b, y, x, c] = \\max_{dy, dx}\\; \\text{in}[b, s_h y + r_h dy - p_t,
   s_w x + r_w dx - p_l, c] + \\text{filter}[dy, dx, c]

over the window positions inside the input (TF skips the padded ones; a window
with none gives the dtype's lowest value), as TF's kernel
(``core/kernels/dilation_ops.cc``): the maximum starts from the lowest value and
is replaced only by a strictly greater one, so on ties the first position in
row-major window order wins, and the gradient goes to that position alone, in the
input and in the filter (TF's ``Dilation2DBackpropInput``/``BackpropFilter``).
``erosion2d`` is TF's duality: ``-dilation2d(-value, reversed kernel)``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS, REAL, OpValueError, define

__all__ = ["dilation2d", "erosion2d"]


def _attr4(value: Any, what: str) -> tuple[int, int]:
    values = list(value) if value is not None else []
    if len(values) < 4:
        attr = {"stride": "strides", "rate": "rates"}[what]
        raise OpValueError(
            f"Attr '{attr}' of 'Dilation2D' Op passed list of length {len(values)} less than "
            "minimum 4."
        )
    if len(values) != 4:
        raise OpValueError(
            f"Dilation2D requires the {what} attribute to contain 4 values, but got: {len(values)}"
        )
    if values[0] != 1 or values[3] != 1:
        raise OpValueError(f"Dilation2D is only supported on the spatial dimensions of {what}s")
    return int(values[1]), int(values[2])


def _lowest(dtype: Any) -> Any:
    if jnp.issubdtype(dtype, jnp.floating):
        return np.array(jnp.finfo(dtype).min, dtype)
    return np.array(np.iinfo(dtype).min, dtype)


def _windows(x: Any, filt: Any, strides: Any, rates: Any, padding: Any):
    """``(values [K, B, Ho, Wo, C], valid [K, Ho, Wo], input positions [K, Ho, Wo, 2],
    pads)``: each window offset's input value plus its filter tap."""
    if x.ndim != 4:
        raise OpValueError(f"Shape must be rank 4 but is rank {x.ndim} for 'Dilation2D'")
    if filt.ndim != 3:
        raise OpValueError(f"Shape must be rank 3 but is rank {filt.ndim} for 'Dilation2D'")
    if x.shape[3] != filt.shape[2]:
        raise OpValueError(
            f"Dimensions must be equal, but are {x.shape[3]} and {filt.shape[2]} for 'Dilation2D'"
        )
    sh, sw = _attr4(strides, "stride")
    rh, rw = _attr4(rates, "rate")
    if padding not in ("SAME", "VALID"):
        raise OpValueError(
            f"Attr 'padding' of 'Dilation2D' Op passed string '{padding}' not in: "
            '"SAME", "VALID".'
        )
    _, height, width, _ = x.shape
    fh, fw, _ = filt.shape
    eh, ew = (fh - 1) * rh + 1, (fw - 1) * rw + 1
    (pt, pb), (pl, pr) = lax.padtype_to_pads((height, width), (eh, ew), (sh, sw), padding)
    ho = (height + pt + pb - eh) // sh + 1
    wo = (width + pl + pr - ew) // sw + 1
    if ho <= 0 or wo <= 0:
        raise OpValueError(
            f"Computed output size would be negative: {min(ho, wo)} [input_size: "
            f"{height if ho <= 0 else width}, effective_filter_size: "
            f"{eh if ho <= 0 else ew}, stride: {sh if ho <= 0 else sw}]"
        )
    lowest = _lowest(x.dtype)
    padded = jnp.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=lowest)
    rows = np.arange(ho) * sh - pt
    cols = np.arange(wo) * sw - pl
    values, valid, where = [], [], []
    for dy in range(fh):
        for dx in range(fw):
            start = (0, dy * rh, dx * rw, 0)
            limit = (
                x.shape[0],
                dy * rh + (ho - 1) * sh + 1,
                dx * rw + (wo - 1) * sw + 1,
                x.shape[3],
            )
            part = lax.slice(padded, start, limit, (1, sh, sw, 1))
            values.append(part + filt[dy, dx])
            r, c = rows + dy * rh, cols + dx * rw
            inside = ((r >= 0) & (r < height))[:, None] & ((c >= 0) & (c < width))[None, :]
            valid.append(inside)
            where.append(np.stack(np.broadcast_arrays(r[:, None], c[None, :]), -1))
    default = np.stack(
        np.broadcast_arrays(np.maximum(rows, 0)[:, None], np.maximum(cols, 0)[None, :]), -1
    )
    return jnp.stack(values), np.stack(valid), np.stack(where), default, lowest


def _select(x, filt, strides, rates, padding):
    """``(out, k)``: TF's maximum and the first window offset reaching it (``-1``: none
    above the lowest value)."""
    vals, valid, _, _, lowest = _windows(x, filt, strides, rates, padding)
    mask = jnp.asarray(valid)[:, None, :, :, None] & (vals > lowest)
    vals = jnp.where(mask, vals, lowest)
    k = jnp.argmax(vals, axis=0)
    out = jnp.max(vals, axis=0)
    return out, jnp.where(out > lowest, k, -1)


def _dilation(x, filt, strides, rates, padding):
    @jax.custom_vjp
    def f(x, filt):
        return _select(x, filt, strides, rates, padding)[0]

    def fwd(x, filt):
        out, k = _select(x, filt, strides, rates, padding)
        return out, (x, filt, k)

    def bwd(res, g):
        x, filt, k = res
        _, _, where, default, _ = _windows(x, filt, strides, rates, padding)
        fh, fw = filt.shape[:2]
        batch, ho, wo, depth = g.shape
        taps = jnp.asarray(where)  # [K, Ho, Wo, 2]
        kk = jnp.maximum(k, 0)
        oy = jnp.arange(ho)[None, :, None, None]
        ox = jnp.arange(wo)[None, None, :, None]
        pos = taps[kk, oy, ox]  # [B, Ho, Wo, C, 2]
        pos = jnp.where((k >= 0)[..., None], pos, jnp.asarray(default)[None, :, :, None, :])
        bi = jnp.arange(batch)[:, None, None, None]
        ci = jnp.arange(depth)[None, None, None, :]
        dx = jnp.zeros(x.shape, g.dtype).at[bi, pos[..., 0], pos[..., 1], ci].add(g)
        dfilt = jnp.zeros((fh * fw, depth), g.dtype).at[kk, ci].add(g)
        return dx.astype(x.dtype), dfilt.reshape(filt.shape).astype(filt.dtype)

    f.defvjp(fwd, bwd)
    return f(x, filt)


def _dilation2d_v1(
    input, filter=None, strides=None, rates=None, padding=None, filters=None, dilations=None
):
    if filter is not None and filters is not None:
        raise ValueError("Cannot specify both 'filters' and 'filter'.")
    if rates is not None and dilations is not None:
        raise ValueError("Cannot specify both 'dilations' and 'rates'.")
    filt = filter if filters is None else filters
    return _dilation(input, filt, strides, rates if dilations is None else dilations, padding)


dilation2d = define(
    "nn.dilation2d",
    "Dilation2D",
    _dilation2d_v1,
    params="input, filter=None, strides=None, rates=None, padding=None, name=None, "
    "filters=None, dilations=None",
    tensors="input filter filters",
    allowed=REAL,
    default_name="Dilation2D",
    tf_gradient="TF's Dilation2DBackprop*: to the first maximizing window position only",
)


def erosion2d(
    value: Any, kernel: Any, strides: Any, rates: Any, padding: Any, name: str | None = None
) -> Any:
    """Grayscale erosion (``tf.compat.v1.nn.erosion2d``): TF's
    ``-dilation2d(-value, reverse(kernel, [0, 1]))``, nodes and gradient included.

    Args:
      value: ``[batch, height, width, depth]``.
      kernel: ``[kernel_height, kernel_width, depth]``.
      strides: ``[1, stride_height, stride_width, 1]``.
      rates: ``[1, rate_height, rate_width, 1]``.
      padding: ``"SAME"`` or ``"VALID"``.
      name: the name scope (default ``"erosion2d"``).

    Returns:
      ``[batch, out_height, out_width, depth]`` of ``value``'s dtype.
    """
    with ops.name_scope(name or "erosion2d") as scope:
        negative, reverse = FUNCTIONS["negative"], FUNCTIONS["reverse_v2"]
        return negative(
            dilation2d(
                input=negative(value),
                filter=reverse(kernel, [0, 1]),
                strides=strides,
                rates=rates,
                padding=padding,
                name=scope,
            )
        )
