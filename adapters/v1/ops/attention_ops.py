"""``tf.compat.v1.image.extract_glimpse`` (TF: ``image_ops_impl.py`` over the kernel of
``core/kernels/image/attention_ops.cc`` and Eigen's ``ExtractGlimpses``).

Each image's glimpse starts at the offset converted to pixels as the kernel does, in
float32, then truncated toward zero:

.. math::

    x = \\begin{cases}
      o_x W / 2 + W / 2 - w / 2 & \\text{centered, normalized} \\\\
      o_x W - w / 2 & \\text{normalized} \\\\
      o_x / 2 + W / 2 - w / 2 & \\text{centered (pixels, halved as TF 2.21)} \\\\
      o_x - w / 2 & \\text{otherwise}
    \\end{cases}

and ``glimpse[i, j] = image[y + i, x + j]`` where that pixel exists. A glimpse reaching
outside the image is first filled with noise: uniform in ``[min, max)`` of the image
(``uniform_noise=True``), else per channel Gaussian with the channel's mean and
standard deviation, clipped to its ``[min, max]``.

.. note:: The noise is drawn from jtrain's random stream (``random_ops``), not Eigen's
   generator: glimpses inside the image are TF's bit for bit, the noise around the
   image has TF's distribution but not its values (TF 1's function has no
   ``noise='zero'``).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS

__all__ = ["extract_glimpse"]


def _start(offset: jax.Array, size: int, window: int, centered: bool, normalized: bool):
    """The kernel's pixel start of one axis, float32 then truncated."""
    f = np.float32
    x = offset.astype(np.float32)
    if normalized:
        x = x * f(size)
    if centered:  # (halved whether normalized or not: TF 2.21's kernel, version 1)
        x = x / f(2.0)
        x = x + f(size / 2.0)
    x = x - f(window / 2.0)  # (the offset is the glimpse's centre in every mode)
    return x.astype(np.int32)


def _glimpse(key, images, offsets, size, centered, normalized, uniform_noise):
    batch, height, width, channels = images.shape
    gh, gw = size
    y0 = _start(offsets[:, 0], height, gh, centered, normalized)
    x0 = _start(offsets[:, 1], width, gw, centered, normalized)
    rows = y0[:, None] + jnp.arange(gh, dtype=np.int32)[None, :]  # [batch, gh]
    cols = x0[:, None] + jnp.arange(gw, dtype=np.int32)[None, :]  # [batch, gw]
    inside = ((rows >= 0) & (rows < height))[:, :, None] & ((cols >= 0) & (cols < width))[
        :, None, :
    ]
    safe_r = jnp.clip(rows, 0, height - 1)
    safe_c = jnp.clip(cols, 0, width - 1)
    picked = jax.vmap(lambda im, r, c: im[r][:, c])(images, safe_r, safe_c)
    shape = (batch, gh, gw, channels)
    if uniform_noise:
        low = jnp.min(images, axis=(1, 2, 3)).reshape(-1, 1, 1, 1)
        span = jnp.max(images, axis=(1, 2, 3)).reshape(-1, 1, 1, 1) - low
        noise = low + jax.random.uniform(key, shape, np.float32) * span
    else:
        mean = jnp.mean(images, axis=(1, 2), keepdims=True)
        sigma = jnp.sqrt(jnp.mean(jnp.square(images - mean), axis=(1, 2), keepdims=True))
        noise = mean + jax.random.normal(key, shape, np.float32) * sigma
        noise = jnp.maximum(
            jnp.minimum(noise, jnp.max(images, axis=(1, 2), keepdims=True)),
            jnp.min(images, axis=(1, 2), keepdims=True),
        )
    return jnp.where(inside[..., None], picked, noise)


def extract_glimpse(
    input: Any,  # noqa: A002 - TF's name
    size: Any,
    offsets: Any,
    centered: bool = True,
    normalized: bool = True,
    uniform_noise: bool = True,
    name: str | None = None,
) -> Any:
    """Glimpses of ``size`` cut out of a batch of images at ``offsets`` (op ``ExtractGlimpse``).

    Args:
      input: float32 ``[batch, height, width, channels]`` images.
      size: ``[glimpse_height, glimpse_width]`` (known when the graph is built).
      offsets: float32 ``[batch, 2]`` ``(y, x)`` centres of the glimpses: with
        ``centered`` (default True) relative to the image centre, in ``[-1, 1]`` when
        ``normalized`` (default True), else in half pixels (TF 2.21 halves them);
        otherwise from the top-left corner, in ``[0, 1]`` when normalized, else in
        pixels.
      centered: see ``offsets``.
      normalized: see ``offsets``.
      uniform_noise: fill outside the image with uniform noise (default True) or
        clipped Gaussian noise.
      name: the op name (``"ExtractGlimpse"``).

    Returns:
      float32 ``[batch, glimpse_height, glimpse_width, channels]``.

    Raises:
      ValueError: bad ranks or a ``size`` not of two elements (TF's shape function).
      TypeError: ``input`` not float32.
    """
    from adapters.v1.framework.op_def import np_dtype
    from adapters.v1.ops.random_ops import random_node

    # TF converts a value that is no tensor to the input's float32 (NumPy float64 too)
    images, offsets_t = (
        ops.convert_to_tensor(
            v
            if isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_tensor")
            else np.asarray(v).astype(np.float32)
        )
        for v in (input, offsets)
    )
    for param, tensor in (("input", images), ("offsets", offsets_t)):
        if np_dtype(tensor.dtype) != np.float32:
            raise TypeError(
                f"Input '{param}' of 'ExtractGlimpse' Op has type "
                f"{np_dtype(tensor.dtype).name} that does not match expected type of float32."
            )
    shape = images.get_shape()
    if shape.ndims is not None and shape.ndims != 4:
        raise ValueError(
            f"Shape must be rank 4 but is rank {shape.ndims} for 'ExtractGlimpse' (input)"
        )
    offset_shape = offsets_t.get_shape()
    if offset_shape.ndims is not None and offset_shape.ndims != 2:
        raise ValueError(
            f"Shape must be rank 2 but is rank {offset_shape.ndims} for 'ExtractGlimpse' (offsets)"
        )
    if isinstance(size, ops.Tensor):
        value = size.op._const_value
        if value is None:
            raise NotImplementedError(
                "tf.image.extract_glimpse: size must be known when the graph is built "
                "(jtrain compiles static shapes)"
            )
        size = np.asarray(value).tolist()
    sizes = [int(v) for v in np.asarray(size).reshape(-1)]
    if len(sizes) != 2:
        raise ValueError(f"Dimension must be 2 but is {len(sizes)} for 'ExtractGlimpse' (size)")
    batch = shape.as_list()[0] if shape.ndims else None
    channels = shape.as_list()[3] if shape.ndims else None
    with ops.name_scope(name, "ExtractGlimpse") as scope:

        def sample(key: Any, images: Any, offsets: Any) -> Any:
            images, offsets = jax.lax.stop_gradient(images), jax.lax.stop_gradient(offsets)
            return _glimpse(key, images, offsets, sizes, centered, normalized, uniform_noise)

        (out,) = random_node(
            "ExtractGlimpse",
            sample,
            [images, offsets_t],
            [((batch, sizes[0], sizes[1], channels), np.dtype(np.float32))],
            None,
            scope,
        )
    return out


FUNCTIONS["image.extract_glimpse"] = extract_glimpse
