"""``tf.image.ssim``: the structural similarity of two image batches (TF:
``image_ops_impl.py``), a graph function over the op table's entries, in TF's order
of operations.

With local means ``mu`` and (biased) covariances ``sigma`` from an ``11 x 11``
Gaussian window (``filter_sigma`` 1.5, ``VALID``), ``c1 = (k1 L)^2`` and
``c2 = (k2 L)^2`` for the dynamic range ``L = max_val``:

.. math::

    \\mathrm{SSIM} = \\frac{2 \\mu_x \\mu_y + c_1}{\\mu_x^2 + \\mu_y^2 + c_1} \\cdot
      \\frac{2 \\sigma_{xy} + c_2}{\\sigma_x^2 + \\sigma_y^2 + c_2}

averaged over the window positions and the channels. Images are converted to float32
first (``convert_image_dtype``, ``max_val`` with them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS

__all__ = ["ssim", "ssim_multiscale"]

# Wang et al.'s weights of the five scales (TF's _MSSSIM_WEIGHTS).
_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _gaussian_window(tf: Any, size: int, sigma: float, dtype: Any) -> Any:
    """TF's ``_fspecial_gauss``: a ``[size, size, 1, 1]`` window, the softmax of
    ``-(i^2 + j^2) / (2 sigma^2)`` over centred coordinates."""
    coords = tf.cast(tf.range(size), dtype)
    coords -= tf.cast(size - 1, dtype) / 2.0
    g = tf.square(coords)
    # -0.5 / sigma^2 in float32 on the host: XLA's CPU programs turn a division by a
    # scalar into a product by its reciprocal, an ulp from TF's quotient here
    factor = np.float32(-0.5) / np.square(np.float32(sigma))
    g *= tf.constant(factor, dtype=dtype)
    g = tf.reshape(g, [1, -1]) + tf.reshape(g, [-1, 1])
    g = tf.nn.softmax(tf.reshape(g, [1, -1]))
    return tf.reshape(g, [size, size, 1, 1])


def _ssim_helper(tf: Any, x: Any, y: Any, reducer: Any, max_val: Any, k1: float, k2: float):
    """``(luminance, contrast-structure)`` terms (TF's ``_ssim_helper``)."""
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0 = reducer(x)
    mean1 = reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = tf.square(mean0) + tf.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(tf.square(x) + tf.square(y))
    c2 *= 1.0  # (TF's compensation factor for the biased covariance)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _ssim_per_channel(
    tf: Any, img1: Any, img2: Any, max_val: Any, size: int, sigma: float, k1: float, k2: float,
    index_map: bool,
) -> tuple[Any, Any]:  # fmt: skip
    shape = img1.get_shape().as_list()
    if any(d is not None and d < size for d in shape[-3:-1]):
        raise ValueError(
            f"tf.image.ssim: images of height and width {shape[-3:-1]} are smaller than "
            f"filter_size={size} (TF's assertion fails when run)"
        )
    window = _gaussian_window(tf, size, sigma, img1.dtype)
    window = tf.tile(window, [1, 1, tf.shape(img1)[-1], 1])

    def reducer(x: Any) -> Any:
        shape = tf.shape(x)
        x = tf.reshape(x, tf.concat([[-1], shape[-3:]], 0))
        y = tf.nn.depthwise_conv2d(x, window, strides=[1, 1, 1, 1], padding="VALID")
        return tf.reshape(y, tf.concat([shape[:-3], tf.shape(y)[1:]], 0))

    luminance, cs = _ssim_helper(tf, img1, img2, reducer, max_val, k1, k2)
    if index_map:
        return luminance * cs, cs
    return tf.reduce_mean(luminance * cs, [-3, -2]), tf.reduce_mean(cs, [-3, -2])


def _check_shapes(img1: Any, img2: Any) -> None:
    """TF's ``_verify_compatible_image_shapes`` (its static part)."""
    s1, s2 = img1.get_shape(), img2.get_shape()
    for s in (s1, s2):
        if s.ndims is not None and s.ndims < 3:
            raise ValueError(f"Shape must be at least rank 3 but is rank {s.ndims}")
    if s1.ndims is not None and s2.ndims is not None:
        for a, b in zip(s1.as_list()[-3:], s2.as_list()[-3:], strict=True):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Shapes {s1} and {s2} are incompatible")


def ssim(
    img1: Any,
    img2: Any,
    max_val: Any,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
    return_index_map: bool = False,
) -> Any:
    """The SSIM index of two image batches (``tf.image.ssim``).

    Args:
      img1: ``[..., height, width, channels]`` images (any dtype
        ``convert_image_dtype`` takes; height and width at least ``filter_size``).
      img2: images of ``img1``'s shape and dtype.
      max_val: the images' dynamic range (1.0 for float images in ``[0, 1]``, 255
        for uint8).
      filter_size: the Gaussian window's size (default 11).
      filter_sigma: the window's width (default 1.5).
      k1: default 0.01.
      k2: default 0.03.
      return_index_map: the per-position map instead of its mean (default False).

    Returns:
      float32 ``[...]`` SSIM values (``[..., h', w']`` maps with
      ``return_index_map``), differentiable in both images.

    Raises:
      ValueError: ranks below 3, different shapes, images smaller than the window.
    """
    from adapters import v1 as tf

    with ops.name_scope(None, "SSIM"):
        img1 = ops.convert_to_tensor(img1, name="img1")
        img2 = ops.convert_to_tensor(img2, name="img2")
        _check_shapes(img1, img2)
        max_val = tf.cast(max_val, img1.dtype)
        max_val = tf.image.convert_image_dtype(max_val, tf.float32)
        img1 = tf.image.convert_image_dtype(img1, tf.float32)
        img2 = tf.image.convert_image_dtype(img2, tf.float32)
        per_channel, _ = _ssim_per_channel(
            tf, img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map
        )
        return tf.reduce_mean(per_channel, [-1])


def ssim_multiscale(
    img1: Any,
    img2: Any,
    max_val: Any,
    power_factors: Any = _MSSSIM_WEIGHTS,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
) -> Any:
    """The multi-scale SSIM of two image batches (``tf.image.ssim_multiscale``).

    At each scale after the first the images are halved (a 2 x 2 average pool, an odd
    height or width first padded symmetrically at its end); the result is
    ``prod_k relu(cs_k)^p_k`` over the scales with ``relu(ssim)`` at the last,
    averaged over the channels.

    Args:
      img1: ``[..., height, width, channels]`` images, large enough for the window at
        the coarsest scale (``filter_size * 2^(len(power_factors) - 1)``).
      img2: images of ``img1``'s shape and dtype.
      max_val: the images' dynamic range.
      power_factors: the scales' exponents (default Wang et al.'s five weights).
      filter_size: the Gaussian window's size (default 11).
      filter_sigma: the window's width (default 1.5).
      k1: default 0.01.
      k2: default 0.03.

    Returns:
      float32 ``[...]`` MS-SSIM values, differentiable in both images.

    Raises:
      ValueError: as ``ssim``; images of unknown height or width.
    """
    from adapters import v1 as tf

    with ops.name_scope(None, "MS-SSIM"):
        img1 = ops.convert_to_tensor(img1, name="img1")
        img2 = ops.convert_to_tensor(img2, name="img2")
        _check_shapes(img1, img2)
        max_val = tf.cast(max_val, img1.dtype)
        max_val = tf.image.convert_image_dtype(max_val, tf.float32)
        imgs = [tf.image.convert_image_dtype(x, tf.float32) for x in (img1, img2)]
        shape = imgs[0].get_shape().as_list()
        if shape[-3] is None or shape[-2] is None:
            raise ValueError(
                "tf.image.ssim_multiscale: the images' height and width must be known when "
                "the graph is built (jtrain compiles static shapes)"
            )
        head, tail = shape[:-3], shape[-3:]
        mcs = []
        per_channel = None
        for k in range(len(power_factors)):
            with ops.name_scope(None, f"Scale{k}"):
                if k > 0:
                    flat = [tf.reshape(x, [-1, *tail]) for x in imgs]
                    rem_h, rem_w = tail[0] % 2, tail[1] % 2
                    if rem_h or rem_w:
                        padding = [[0, 0], [0, rem_h], [0, rem_w], [0, 0]]
                        flat = [tf.pad(x, padding, mode="SYMMETRIC") for x in flat]
                    down = [
                        tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], padding="VALID") for x in flat
                    ]
                    tail = down[0].get_shape().as_list()[1:]
                    dims = [-1 if h is None else h for h in head] + tail
                    imgs = [tf.reshape(x, dims) for x in down]
                per_channel, cs = _ssim_per_channel(
                    tf, imgs[0], imgs[1], max_val, filter_size, filter_sigma, k1, k2, False
                )
                mcs.append(tf.nn.relu(cs))
        mcs.pop()  # (the last scale contributes its SSIM, not its cs)
        stacked = tf.stack([*mcs, tf.nn.relu(per_channel)], axis=-1)
        ms_ssim = tf.reduce_prod(tf.pow(stacked, power_factors), [-1])
        return tf.reduce_mean(ms_ssim, [-1])


FUNCTIONS["image.ssim"] = ssim
FUNCTIONS["image.ssim_multiscale"] = ssim_multiscale
