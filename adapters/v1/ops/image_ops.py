"""``tf.image``: TF's image ops (``tensorflow/python/ops/image_ops_impl.py``) on the op table.

Every deterministic function is one table entry (``framework/op_def.py``): one
node whose JAX implementation reproduces TF's composition of kernels (the
dtype conversions of ``convert_image_dtype`` around the float kernels, TF's
resize coordinate mappings, the HSV arithmetic of TF's colour kernels).
TF's graph-construction checks (ranks, static sizes, offsets) run when the
node is built and raise TF's ``ValueError`` messages. The random
augmentations (``random_flip_left_right``...) are graph functions composing
``tf.random_uniform`` with these entries, as TF's Python does; ``rot90`` by a
``k`` computed in the graph is one lifted node switching between the rotations,
and ``crop_to_bounding_box``/``pad_to_bounding_box`` with computed offsets put
TF's run-time assertions (``framework/runtime_checks.py``) before their entry.

Images are ``[height, width, channels]`` or batches ``[batch, height, width,
channels]``; sizes, offsets and fractions must be known when the graph is built
(jtrain compiles static shapes), except the offsets of ``crop_to_bounding_box``
and ``pad_to_bounding_box`` which may be computed tensors.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS, define, np_dtype
from adapters.v1.ops.math_ops import kernel_mean
from jtrain import errors
from jtrain._eigen.rsqrt import rsqrt
from jtrain._numerics import kernel_divide, rounded_square

__all__ = ["ResizeMethod", "GRAPH_FUNCTIONS"]


class ResizeMethod:
    """``tf.compat.v1.image.ResizeMethod``: the v1 resize methods."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# -- TF's graph-construction checks -----------------------------------------------------


def _shape(tensor: Any) -> Any:
    return tensor.get_shape()


def _at_least_3d(image: Any) -> None:
    """TF's ``_CheckAtLeast3DImage(require_static=False)``."""
    shape = _shape(image)
    if shape.ndims is not None and shape.ndims < 3:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    if shape.ndims is not None and any(d == 0 for d in shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")


def _rank_3_or_4(
    image: Any, message: str = "'image' (shape {}) must have either 3 or 4 dimensions."
) -> int:
    shape = _shape(image)
    if shape.ndims not in (3, 4):
        raise ValueError(message.format(shape))
    return shape.ndims


def _check_flip(args: dict[str, Any]) -> None:
    _at_least_3d(args["image"])
    # TF's _flip message lacks the space after the shape.
    _rank_3_or_4(args["image"], "'image' (shape {})must have either 3 or 4 dimensions.")


def _check_image_3_or_4(args: dict[str, Any]) -> None:
    _at_least_3d(args["image"])
    _rank_3_or_4(args["image"])


def _check_at_least_3d(args: dict[str, Any]) -> None:
    _at_least_3d(args.get("image", args.get("images")))


def _channels(args: dict[str, Any], op: str) -> None:
    """The colour kernels' run-time checks, made when the graph is built."""
    images = args.get("image", args.get("images"))
    shape = _shape(images)
    if shape.ndims is not None and shape.ndims < (1 if op in ("RGBToHSV", "HSVToRGB") else 3):
        raise errors.InvalidArgumentError(
            None, None, f"input must be at least 3-D, got shape{shape}"
        )
    if shape.ndims is not None and shape.as_list()[-1] not in (None, 3):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"input must have 3 channels but input only has {shape.as_list()[-1]} channels.",
        )


def _const(tensor: Any) -> Any:
    """The value of a constant tensor, else ``None``."""
    value = tensor.op._const_value
    return None if value is None else np.asarray(value)


# -- convert_image_dtype ----------------------------------------------------------------


def _dtype_max(dtype: np.dtype) -> Any:
    return dtypes.as_dtype(dtype).max


def _saturate_cast(x: jax.Array, dtype: np.dtype) -> jax.Array:
    """TF's ``saturate_cast``: clamp to the target's range in the input's dtype, then cast."""
    out = dtypes.as_dtype(dtype)
    src = dtypes.as_dtype(x.dtype)
    if src.min < out.min:
        x = jnp.maximum(x, jnp.asarray(out.min, x.dtype))
    if src.max > out.max:
        x = jnp.minimum(x, jnp.asarray(out.max, x.dtype))
    return x.astype(dtype)


def _convert(image: jax.Array, dtype: Any, saturate: bool = False) -> jax.Array:
    """TF's ``convert_image_dtype`` on arrays (integers scale to their type's range)."""
    dtype = np.dtype(dtype)
    if image.dtype == dtype:
        return image
    src_int = np.issubdtype(image.dtype, np.integer)
    dst_int = np.issubdtype(dtype, np.integer)
    if src_int and dst_int:
        scale_in, scale_out = _dtype_max(image.dtype), _dtype_max(dtype)
        if scale_in > scale_out:
            scale = (scale_in + 1) // (scale_out + 1)
            scaled = jnp.floor_divide(image, jnp.asarray(scale, image.dtype))
            return _saturate_cast(scaled, dtype) if saturate else scaled.astype(dtype)
        cast = _saturate_cast(image, dtype) if saturate else image.astype(dtype)
        return cast * jnp.asarray((scale_out + 1) // (scale_in + 1), dtype)
    if not src_int and not dst_int:
        return image.astype(dtype)
    if src_int:
        return image.astype(dtype) * jnp.asarray(1.0 / _dtype_max(image.dtype), dtype)
    scaled = image * jnp.asarray(_dtype_max(dtype) + 0.5, image.dtype)
    return _saturate_cast(scaled, dtype) if saturate else scaled.astype(dtype)


def _to_float(image: jax.Array) -> jax.Array:
    """The float image TF's ``adjust_*`` work on: float16/float32 as is, else float32."""
    if image.dtype in (np.float16, np.float32):
        return image
    return _convert(image, np.float32)


def _convert_image_dtype(image, dtype, saturate=False):
    return _convert(image, np_dtype(dtype), saturate)


def _check_convert(args: dict[str, Any]) -> None:
    dtype = dtypes.as_dtype(args["dtype"])
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    source = dtypes.as_dtype(args["image"].dtype)
    if not source.is_floating and not source.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")


convert_image_dtype = define(
    "image.convert_image_dtype",
    "ConvertImage",
    _convert_image_dtype,
    "image, dtype, saturate=False, name=None",
    tensors="image",
    default_name="convert_image",
    check=_check_convert,
)


# -- flips, transpose, rotations --------------------------------------------------------


def _flip_axis(image: jax.Array, axis: int) -> jax.Array:
    return jnp.flip(image, axis + (image.ndim == 4))


flip_left_right = define(
    "image.flip_left_right",
    "ReverseV2",
    lambda image: _flip_axis(image, 1),
    "image",
    name_param="",
    default_name="flip_left_right",
    check=_check_flip,
)
flip_up_down = define(
    "image.flip_up_down",
    "ReverseV2",
    lambda image: _flip_axis(image, 0),
    "image",
    name_param="",
    default_name="flip_up_down",
    check=_check_flip,
)


def _transpose(image):
    return jnp.swapaxes(image, -3, -2)


transpose = define(
    ("image.transpose", "image.transpose_image"),
    "Transpose",
    _transpose,
    "image, name=None",
    default_name="transpose",
    check=_check_image_3_or_4,
)


def _rot90(image, k):
    return jnp.rot90(image, int(k) % 4, axes=(image.ndim - 3, image.ndim - 2))


def _check_rot90(args: dict[str, Any]) -> None:
    _check_image_3_or_4(args)
    if np.ndim(args["k"]) != 0:
        raise ValueError(f"Shape {tuple(np.shape(args['k']))} must have rank 0")


_rot90_static = define(
    "image.rot90",
    "rot90",
    _rot90,
    "image, k=1, name=None",
    tensors="image",
    check=_check_rot90,
)


def _rot90_dynamic(image, k):
    """Rotations by a ``k`` known only when run (square images: one shape for all four)."""
    axes = (image.ndim - 3, image.ndim - 2)
    branches = [functools.partial(jnp.rot90, k=i, axes=axes) for i in range(4)]
    return jax.lax.switch(jnp.mod(k, 4), branches, image)


def rot90(image: Any, k: Any = 1, name: str | None = None) -> Any:
    """Rotates an image (each image of a batch) by ``k`` quarter turns counter-clockwise.

    Args:
      image: a ``[height, width, channels]`` image or a batch of them.
      k: the number of quarter turns (1): a Python int or constant, or an int32
        scalar tensor computed in the graph (``tf.random_uniform(..., dtype=tf.int32)``)
        when the image is square.
      name: the op name (``"rot90"``).

    Returns:
      The rotated image.

    Raises:
      ValueError: the image's rank is not 3 or 4, or ``k`` is not a scalar (TF's messages).
      NotImplementedError: a computed ``k`` for an image that is not known to be square
        (its output shape would depend on ``k``).
    """
    is_tensor = isinstance(k, ops.Tensor) or hasattr(k, "_as_graph_tensor")
    if not is_tensor or ops.convert_to_tensor(k).op._const_value is not None:
        return _rot90_static(image, k, name)
    from adapters.v1.framework.op_def import FUNCTIONS as tf_ops
    from adapters.v1.ops import script_ops

    image = ops.convert_to_tensor(image, name="image")
    k = tf_ops["cast"](k, dtypes.int32) if k.dtype != dtypes.int32 else k
    _check_rot90({"image": image, "k": np.zeros(k.get_shape().as_list() or ())})
    height, width = _hw(image)
    if height is None or height != width:
        raise NotImplementedError(
            f"tf.image.rot90 with a k computed in the graph needs a square image (shape "
            f"{_shape(image)}): its shape would depend on k; jtrain compiles static shapes. "
            "Crop or resize to a square first, or pass k as a Python int"
        )
    return script_ops.lift(_rot90_dynamic, [image, k], name or "rot90")


# -- crops and pads ----------------------------------------------------------------------


def _batched(image: jax.Array) -> jax.Array:
    return image if image.ndim == 4 else image[None]


def _unbatched(like: jax.Array, out: jax.Array) -> jax.Array:
    return out if like.ndim == 4 else out[0]


def _hw(image: Any) -> tuple[Any, Any]:
    dims = _shape(image).as_list()
    return dims[-3], dims[-2]


def _check_crop(args: dict[str, Any]) -> None:
    image = args["image"]
    _rank_3_or_4(image)
    _at_least_3d(image)
    if _shape(image).ndims == 3 and 0 in _shape(image).as_list():
        raise ValueError(
            f"inner 3 dims of 'image.shape' must be > 0: {_shape(image).concatenate_front(1)}"
        )
    height, width = _hw(image)
    oh, ow = _const(args["offset_height"]), _const(args["offset_width"])
    th, tw = args["target_height"], args["target_width"]
    for value, message in [
        (ow, "offset_width must be >= 0."),
        (oh, "offset_height must be >= 0."),
    ]:
        if value is not None and value < 0:
            raise ValueError(message)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    if ow is not None and width is not None and width < tw + ow:
        raise ValueError("width must be >= target + offset.")
    if oh is not None and height is not None and height < th + oh:
        raise ValueError("height must be >= target + offset.")


def _crop(image, offset_height, offset_width, target_height, target_width):
    batch = _batched(image)
    zero = jnp.zeros((), jnp.int32)
    start = (
        zero,
        jnp.asarray(offset_height, jnp.int32),
        jnp.asarray(offset_width, jnp.int32),
        zero,
    )
    size = (batch.shape[0], target_height, target_width, batch.shape[3])
    return _unbatched(image, jax.lax.dynamic_slice(batch, start, size))


_crop_entry = define(
    "image.crop_to_bounding_box",
    "Slice",
    _crop,
    "image, offset_height, offset_width, target_height, target_width",
    tensors="image offset_height offset_width",
    same_dtype=(),
    allowed={"offset_height": ("int32", "int64"), "offset_width": ("int32", "int64")},
    name_param="",
    default_name="crop_to_bounding_box",
    check=_check_crop,
)


def _check_pad(args: dict[str, Any]) -> None:
    image = args["image"]
    _rank_3_or_4(image)
    dims = _shape(image).as_list()
    if any(d == 0 for d in dims[-3:]):
        shape = _shape(image) if len(dims) == 4 else _shape(image).concatenate_front(1)
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    height, width = _hw(image)
    oh, ow = _const(args["offset_height"]), _const(args["offset_width"])
    th, tw = args["target_height"], args["target_width"]
    if oh is not None and oh < 0:
        raise ValueError("offset_height must be >= 0")
    if ow is not None and ow < 0:
        raise ValueError("offset_width must be >= 0")
    if ow is not None and width is not None and tw - ow - width < 0:
        raise ValueError("width must be <= target - offset")
    if oh is not None and height is not None and th - oh - height < 0:
        raise ValueError("height must be <= target - offset")


def _pad(image, offset_height, offset_width, target_height, target_width):
    batch = _batched(image)
    out = jnp.zeros((batch.shape[0], target_height, target_width, batch.shape[3]), image.dtype)
    zero = jnp.zeros((), jnp.int32)
    start = (
        zero,
        jnp.asarray(offset_height, jnp.int32),
        jnp.asarray(offset_width, jnp.int32),
        zero,
    )
    return _unbatched(image, jax.lax.dynamic_update_slice(out, batch, start))


_pad_entry = define(
    "image.pad_to_bounding_box",
    "Pad",
    _pad,
    "image, offset_height, offset_width, target_height, target_width",
    tensors="image offset_height offset_width",
    same_dtype=(),
    allowed={"offset_height": ("int32", "int64"), "offset_width": ("int32", "int64")},
    name_param="",
    default_name="pad_to_bounding_box",
    check=_check_pad,
)


# TF's run-time assertions on computed offsets: (failure test, message) per check.
_CROP_ASSERTS = (
    (lambda h, w, oh, ow, th, tw: ow < 0, "offset_width must be >= 0."),
    (lambda h, w, oh, ow, th, tw: oh < 0, "offset_height must be >= 0."),
    (lambda h, w, oh, ow, th, tw: w < tw + ow, "width must be >= target + offset."),
    (lambda h, w, oh, ow, th, tw: h < th + oh, "height must be >= target + offset."),
)
_PAD_ASSERTS = (
    (lambda h, w, oh, ow, th, tw: oh < 0, "offset_height must be >= 0"),
    (lambda h, w, oh, ow, th, tw: ow < 0, "offset_width must be >= 0"),
    (lambda h, w, oh, ow, th, tw: tw - ow - w < 0, "width must be <= target - offset"),
    (lambda h, w, oh, ow, th, tw: th - oh - h < 0, "height must be <= target - offset"),
)


def _with_offset_asserts(entry, asserts, image, oh, ow, th, tw):
    """``entry`` on offsets computed in the graph, with TF's run-time assertions on them.

    Constant offsets are checked when the graph is built (the entry's check); a
    computed one passes through a checking node that fails the run with TF's
    ``InvalidArgumentError`` instead of letting the slice clamp it.
    """
    from adapters.v1.framework import runtime_checks

    def computed(value: Any) -> bool:
        is_tensor = isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")
        return is_tensor and ops.convert_to_tensor(value).op._const_value is None

    if not (computed(oh) or computed(ow)):
        return entry(image, oh, ow, th, tw)
    image = ops.convert_to_tensor(image, name="image")
    oh, ow = ops.convert_to_tensor(oh), ops.convert_to_tensor(ow)
    graph = image.graph

    def compute(ctx: Any, img: Any, h_off: Any, w_off: Any) -> tuple[Any, ...]:
        height, width = img.shape[-3], img.shape[-2]
        for k, (fails, _) in enumerate(asserts):
            bad = fails(height, width, h_off, w_off, th, tw)
            runtime_checks.check(ctx, op, jnp.logical_not(bad), which=k)
        return h_off, w_off

    op = graph.create_op(
        "Assert",
        "offsets_check",
        inputs=[image, oh, ow],
        compute=compute,
        output_specs=[((), oh.dtype), ((), ow.dtype)],
    )

    def failure(message: str):
        return lambda: errors.InvalidArgumentError(None, op, f"assertion failed: [{message}]")

    runtime_checks.mark(op, *[failure(message) for _, message in asserts])
    return entry(image, op.outputs[0], op.outputs[1], th, tw)


def crop_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: int, target_width: int
) -> Any:
    """Crops ``image`` to the box at ``(offset_height, offset_width)`` of the target size.

    Args:
      image: a ``[height, width, channels]`` image or a batch of them.
      offset_height: the box's top row (an int, or an int32/int64 scalar tensor).
      offset_width: the box's left column (an int, or an int32/int64 scalar tensor).
      target_height: the box's height (an int).
      target_width: the box's width (an int).

    Returns:
      The cropped image(s).

    Raises:
      ValueError: bad rank, sizes or constant offsets (TF's messages).
      InvalidArgumentError (at run time): computed offsets outside the image (TF's
        assertion messages).
    """
    return _with_offset_asserts(
        _crop_entry, _CROP_ASSERTS, image, offset_height, offset_width, target_height, target_width
    )


def pad_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: int, target_width: int
) -> Any:
    """Pads ``image`` with zeros to the target size, placing it at the given offsets.

    Args:
      image: a ``[height, width, channels]`` image or a batch of them.
      offset_height: zero rows above the image (an int, or an int32/int64 scalar tensor).
      offset_width: zero columns left of the image (an int, or an int32/int64 scalar tensor).
      target_height: the output's height (an int).
      target_width: the output's width (an int).

    Returns:
      The padded image(s).

    Raises:
      ValueError: bad rank, sizes or constant offsets (TF's messages).
      InvalidArgumentError (at run time): computed offsets that do not fit (TF's
        assertion messages).
    """
    return _with_offset_asserts(
        _pad_entry, _PAD_ASSERTS, image, offset_height, offset_width, target_height, target_width
    )


def _crop_or_pad_offsets(size: int, target: int) -> tuple[int, int]:
    """TF's (crop offset, pad offset) along one dimension."""
    diff = target - size
    return max(-diff // 2, 0), max(diff // 2, 0)


def _crop_or_pad(image, target_height, target_width):
    batch = _batched(image)
    height, width = batch.shape[1], batch.shape[2]
    crop_h, pad_h = _crop_or_pad_offsets(height, target_height)
    crop_w, pad_w = _crop_or_pad_offsets(width, target_width)
    ch, cw = min(target_height, height), min(target_width, width)
    cropped = batch[:, crop_h : crop_h + ch, crop_w : crop_w + cw]
    padded = jnp.pad(
        cropped,
        [(0, 0), (pad_h, target_height - pad_h - ch), (pad_w, target_width - pad_w - cw), (0, 0)],
    )
    return _unbatched(image, padded)


def _check_crop_or_pad(args: dict[str, Any]) -> None:
    image = args["image"]
    _rank_3_or_4(image)
    dims = _shape(image).as_list()
    if any(d == 0 for d in dims[-3:]):
        shape = _shape(image) if len(dims) == 4 else _shape(image).concatenate_front(1)
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    if args["target_width"] <= 0:
        raise ValueError("target_width must be > 0.")
    if args["target_height"] <= 0:
        raise ValueError("target_height must be > 0.")


resize_image_with_crop_or_pad = define(
    ("image.resize_image_with_crop_or_pad", "image.resize_with_crop_or_pad"),
    "ResizeImageWithCropOrPad",
    _crop_or_pad,
    "image, target_height, target_width",
    tensors="image",
    name_param="",
    default_name="resize_image_with_crop_or_pad",
    check=_check_crop_or_pad,
)


def _central_offsets(size: int, fraction: float) -> tuple[int, int]:
    start = int((float(size) - float(size) * fraction) / 2)
    return start, size - 2 * start


def _central_crop(image, central_fraction):
    if central_fraction == 1.0:
        return image
    h0, h = _central_offsets(image.shape[-3], central_fraction)
    w0, w = _central_offsets(image.shape[-2], central_fraction)
    return image[..., h0 : h0 + h, w0 : w0 + w, :]


def _check_central_crop(args: dict[str, Any]) -> None:
    fraction = args["central_fraction"]
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    image = args["image"]
    _at_least_3d(image)
    rank = _shape(image).ndims
    if rank != 3 and rank != 4:
        raise ValueError(
            f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}."
        )


central_crop = define(
    "image.central_crop",
    "Slice",
    _central_crop,
    "image, central_fraction",
    tensors="image",
    name_param="",
    default_name="central_crop",
    check=_check_central_crop,
)


# -- pixel value adjustments -------------------------------------------------------------


def _standardize(image):
    image = image.astype(jnp.float32)
    axes = (-1, -2, -3)
    n = np.prod(image.shape[-3:]).astype(np.int32)
    # TF: reduce_mean and reduce_std, divided as its Mean kernel divides
    mean = kernel_mean(image, axis=axes, keepdims=True)
    variance = kernel_mean(rounded_square(image - mean), axis=axes, keepdims=True)
    # A flat image (variance 0) takes the minimum: no gradient through sqrt(0), as TF.
    positive = variance > 0
    stddev = jnp.where(positive, jnp.sqrt(jnp.where(positive, variance, 1)), 0)
    min_stddev = rsqrt(jnp.asarray(n, jnp.float32))  # TF's Rsqrt kernel (a scalar: 1 / sqrtf)
    return kernel_divide(image - mean, jnp.maximum(stddev, min_stddev))


per_image_standardization = define(
    "image.per_image_standardization",
    "PerImageStandardization",
    _standardize,
    "image",
    name_param="",
    default_name="per_image_standardization",
    check=_check_at_least_3d,
)


def _adjust_brightness(image, delta):
    flt = _to_float(image)
    return _convert(flt + jnp.asarray(delta).astype(flt.dtype), image.dtype, saturate=True)


adjust_brightness = define(
    "image.adjust_brightness",
    "AdjustBrightness",
    _adjust_brightness,
    "image, delta",
    tensors="image delta",
    same_dtype=(),
    name_param="",
    default_name="adjust_brightness",
)


def _adjust_contrast(images, contrast_factor):
    flt = _to_float(images)
    mean = jnp.mean(flt, axis=(-3, -2), keepdims=True)
    factor = jnp.asarray(contrast_factor).astype(flt.dtype)
    return _convert((flt - mean) * factor + mean, images.dtype, saturate=True)


adjust_contrast = define(
    "image.adjust_contrast",
    "AdjustContrastv2",
    _adjust_contrast,
    "images, contrast_factor",
    tensors="images contrast_factor",
    same_dtype=(),
    allowed={"contrast_factor": ("float32",)},
    name_param="",
    default_name="adjust_contrast",
    check=lambda args: _channels_at_least_3d(args["images"]),
)


def _channels_at_least_3d(images: Any) -> None:
    shape = _shape(images)
    if shape.ndims is not None and shape.ndims < 3:
        raise errors.InvalidArgumentError(
            None, None, f"input must be at least 3-D, got shape{shape}"
        )


def _adjust_gamma(image, gamma, gain):
    flt = _to_float(image)
    adjusted = jnp.asarray(gain).astype(flt.dtype) * flt ** jnp.asarray(gamma).astype(flt.dtype)
    return _convert(adjusted, image.dtype, saturate=True)


def _check_gamma(args: dict[str, Any]) -> None:
    gamma = _const(args["gamma"])
    if gamma is not None and not np.all(gamma >= 0):
        raise ValueError("Gamma should be a non-negative real number.")


adjust_gamma = define(
    "image.adjust_gamma",
    "AdjustGamma",
    _adjust_gamma,
    "image, gamma=1, gain=1",
    tensors="image gamma gain",
    same_dtype=(),
    name_param="",
    default_name="adjust_gamma",
    check=_check_gamma,
)


# -- colour spaces -----------------------------------------------------------------------


def _rgb_to_hsv(images):
    """TF's ``RGBToHSV`` kernel, differentiable as TF's gradient rule.

    The value and the minimum are picked by one-hot masks with the tie-breaking of
    TF's gradient (the largest: red, then green, then blue; the smallest: blue,
    then green, then red), so JAX's derivative is TF's: analytic on the selected
    channels, zero where the range is 0, and, as TF's, no saturation gradient
    through a smallest channel that is 0.
    """
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    dt = images.dtype
    red_big = (r >= b) & (r >= g)
    green_big = (g > r) & (g >= b)
    big = [red_big, green_big, ~(red_big | green_big)]
    small = [(r < b) & (r < g), (g <= r) & (g < b), (b <= r) & (b <= g)]
    zero = jnp.zeros((), dt)
    channels = [r, g, b]
    v = sum(jnp.where(m, c, zero) for m, c in zip(big, channels, strict=True))
    vmin = sum(jnp.where(m, c, zero) for m, c in zip(small, channels, strict=True))
    # The saturation's minimum passes no gradient to a channel at 0 (TF's rule).
    vmin_s = sum(
        jnp.where(m, jnp.where(c > 0, c, jax.lax.stop_gradient(c)), zero)
        for m, c in zip(small, channels, strict=True)
    )
    rng = v - vmin
    positive = v > 0
    s = jnp.where(positive, (v - vmin_s) / jnp.where(positive, v, 1), zero)
    safe = jnp.where(rng > 0, rng, 1)
    norm = (1 / safe) * jnp.asarray(1.0 / 6.0, dt)
    h = jnp.where(
        big[0],
        norm * (g - b),
        jnp.where(
            big[1],
            norm * (b - r) + jnp.asarray(2.0 / 6.0, dt),
            norm * (r - g) + jnp.asarray(4.0 / 6.0, dt),
        ),
    )
    h = jnp.where(rng > 0, h, zero)
    h = jnp.where(h < 0, h + 1, h)
    return jnp.stack([h, s, v], axis=-1)


def _hsv_to_rgb(images):
    """TF's ``HSVToRGB`` kernel (TF registers no gradient: none here either)."""
    images = jax.lax.stop_gradient(images)
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    dh = h * 6

    def clip(x):
        return jnp.minimum(jnp.maximum(x, 0), 1)

    dr = clip(jnp.abs(dh - 3) - 1)
    dg = clip(-jnp.abs(dh - 2) + 2)
    db = clip(-jnp.abs(dh - 4) + 2)
    one_s = -s + 1
    return jnp.stack([(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v], -1)


_COLOUR = ("bfloat16", "float16", "float32", "float64")
rgb_to_hsv = define(
    "image.rgb_to_hsv",
    "RGBToHSV",
    _rgb_to_hsv,
    "images, name=None",
    allowed=_COLOUR,
    check=lambda args: _channels(args, "RGBToHSV"),
)
hsv_to_rgb = define(
    "image.hsv_to_rgb",
    "HSVToRGB",
    _hsv_to_rgb,
    "images, name=None",
    allowed=_COLOUR,
    check=lambda args: _channels(args, "HSVToRGB"),
)


def _kernel_rgb_to_hsv(r, g, b):
    """The HSV conversion of TF's ``AdjustHue``/``AdjustSaturation`` kernels (float32)."""
    v = jnp.maximum(r, jnp.maximum(g, b))
    rng = v - jnp.minimum(r, jnp.minimum(g, b))
    s = jnp.where(v > 0, rng / jnp.where(v > 0, v, 1), 0).astype(r.dtype)
    norm = 1 / (6 * jnp.where(rng > 0, rng, 1))
    third, two_thirds = np.float64(2.0 / 6.0), np.float64(4.0 / 6.0)
    # TF adds the double constants 2/6 and 4/6 to a float and rounds back to float.
    h_g = ((norm * (b - r)).astype(np.float64) + third).astype(r.dtype)
    h_b = ((norm * (r - g)).astype(np.float64) + two_thirds).astype(r.dtype)
    h = jnp.where(r == v, norm * (g - b), jnp.where(g == v, h_g, h_b))
    h = jnp.where(rng <= 0, jnp.zeros((), r.dtype), h)
    h = jnp.where(h < 0, h + 1, h)
    return h, s, v


def _kernel_hsv_to_rgb(h, s, v):
    """The RGB conversion of TF's ``AdjustHue``/``AdjustSaturation`` kernels (float32)."""
    c = s * v
    m = v - c
    dh = h * 6
    category = dh.astype(jnp.int32)  # C++ truncation
    # fmodu: dh moved into (0, 2) by steps of 2 (TF's while loops).
    fmodu = dh - 2 * jnp.floor(dh / 2)
    fmodu = jnp.where(fmodu <= 0, fmodu + 2, fmodu)
    x = c * (1 - jnp.abs(fmodu - 1))
    zero = jnp.zeros_like(c)
    table = [(c, x, zero), (x, c, zero), (zero, c, x), (zero, x, c), (x, zero, c), (c, zero, x)]
    rgb = [zero, zero, zero]
    for i in reversed(range(6)):
        rgb = [jnp.where(category == i, table[i][j], rgb[j]) for j in range(3)]
    return rgb[0] + m, rgb[1] + m, rgb[2] + m


def _adjust_hue(image, delta):
    flt = _to_float(image)
    r, g, b = flt[..., 0], flt[..., 1], flt[..., 2]
    h, s, v = _kernel_rgb_to_hsv(r, g, b)
    h = h + jnp.asarray(delta).astype(flt.dtype)
    h = jnp.fmod(h, jnp.asarray(1.0, h.dtype))
    h = jnp.where(h < 0, h + 1, h)
    out = jnp.stack(_kernel_hsv_to_rgb(h, s, v), axis=-1)
    return _convert(out, image.dtype)


def _check_colour(args: dict[str, Any]) -> None:
    _channels(args, "AdjustHue")


adjust_hue = define(
    "image.adjust_hue",
    "AdjustHue",
    _adjust_hue,
    "image, delta, name=None",
    tensors="image delta",
    same_dtype=(),
    allowed={"delta": ("float32",)},
    check=_check_colour,
)


def _adjust_saturation(image, saturation_factor):
    flt = _to_float(image)
    r, g, b = flt[..., 0], flt[..., 1], flt[..., 2]
    h, s, v = _kernel_rgb_to_hsv(r, g, b)
    s = jnp.clip(s * jnp.asarray(saturation_factor).astype(flt.dtype), 0, 1)
    out = jnp.stack(_kernel_hsv_to_rgb(h, s, v), axis=-1)
    return _convert(out, image.dtype)


adjust_saturation = define(
    "image.adjust_saturation",
    "AdjustSaturation",
    _adjust_saturation,
    "image, saturation_factor, name=None",
    tensors="image saturation_factor",
    same_dtype=(),
    allowed={"saturation_factor": ("float32",)},
    check=_check_colour,
)

_GRAY_WEIGHTS = np.array([0.2989, 0.5870, 0.1140], np.float32)


def _rgb_to_grayscale(images):
    flt = _convert(images, np.float32)
    # TF's tensordot sums the weighted channels in order (compiled, XLA may round
    # differently by one float32 ulp: see the coverage table's gap).
    w = _GRAY_WEIGHTS
    gray = flt[..., 0] * w[0] + flt[..., 1] * w[1] + flt[..., 2] * w[2]
    return _convert(gray[..., None], images.dtype)


rgb_to_grayscale = define(
    "image.rgb_to_grayscale",
    "RGBToGrayscale",
    _rgb_to_grayscale,
    "images, name=None",
    default_name="rgb_to_grayscale",
)


def _check_grayscale(args: dict[str, Any]) -> None:
    shape = _shape(args["images"])
    if shape.ndims is not None and shape.ndims < 2:
        raise ValueError(f"A grayscale image (shape {shape}) must be at least two-dimensional.")
    if shape.is_fully_defined() and shape.as_list()[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")


grayscale_to_rgb = define(
    "image.grayscale_to_rgb",
    "Tile",
    lambda images: jnp.concatenate([images] * 3, axis=-1),
    "images, name=None",
    default_name="grayscale_to_rgb",
    check=_check_grayscale,
)


# TF's 3x3 colour-space matrices (rows: input channels; columns: output channels).
_COLOUR_KERNELS = {
    "rgb_to_yiq": [
        [0.299, 0.59590059, 0.2115],
        [0.587, -0.27455667, -0.52273617],
        [0.114, -0.32134392, 0.31119955],
    ],
    "yiq_to_rgb": [
        [1, 1, 1],
        [0.95598634, -0.27201283, -1.10674021],
        [0.6208248, -0.64720424, 1.70423049],
    ],
    "rgb_to_yuv": [
        [0.299, -0.14714119, 0.61497538],
        [0.587, -0.28886916, -0.51496512],
        [0.114, 0.43601035, -0.10001026],
    ],
    "yuv_to_rgb": [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]],
}


def _colour_matrix(kernel: list[list[float]]):
    def convert(images):
        matrix = jnp.asarray(np.asarray(kernel, np.float64).astype(images.dtype))
        return jnp.matmul(images, matrix, precision=jax.lax.Precision.HIGHEST)

    return convert


for _name, _kernel in _COLOUR_KERNELS.items():
    globals()[_name] = define(
        f"image.{_name}",
        "Tensordot",
        _colour_matrix(_kernel),
        "images",
        name_param="",
        default_name=_name,
    )


def _psnr(a, b, max_val):
    max_val = _convert(jnp.asarray(max_val).astype(a.dtype), np.float32)
    a, b = _convert(a, np.float32), _convert(b, np.float32)
    mse = kernel_mean(rounded_square(a - b), axis=(-3, -2, -1))
    ten = jnp.log(jnp.asarray(10.0, jnp.float32))
    return 20 * jnp.log(max_val) / ten - np.float32(10 / np.log(10)) * jnp.log(mse)


def _check_psnr(args: dict[str, Any]) -> None:
    shapes = [_shape(args[p]) for p in ("a", "b")]
    for shape in shapes:
        if shape.ndims is not None and shape.ndims < 3:
            raise ValueError(f"Shape {shape} must have rank at least 3")
    inner = [s.as_list()[-3:] for s in shapes]
    for x, y in zip(*inner, strict=True):
        if x is not None and y is not None and x != y:
            listed = ", ".join("[" + ",".join(map(str, s.as_list())) + "]" for s in shapes)
            raise ValueError(
                f"Dimensions must be equal, but are {x} and {y} for 'PSNR' with input "
                f"shapes: {listed}."
            )


psnr = define(
    "image.psnr",
    "PSNR",
    _psnr,
    "a, b, max_val, name=None",
    tensors="a b max_val",
    same_dtype="a b",
    default_name="PSNR",
    check=_check_psnr,
)


def _sobel_edges(image):
    padded = jnp.pad(image, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    height, width = image.shape[1], image.shape[2]

    def window(di: int, dj: int):
        return padded[:, di : di + height, dj : dj + width]

    dy = (window(2, 0) + 2 * window(2, 1) + window(2, 2)) - (
        window(0, 0) + 2 * window(0, 1) + window(0, 2)
    )
    dx = (window(0, 2) + 2 * window(1, 2) + window(2, 2)) - (
        window(0, 0) + 2 * window(1, 0) + window(2, 0)
    )
    return jnp.stack([dy, dx], axis=-1)


sobel_edges = define(
    "image.sobel_edges",
    "SobelEdges",
    _sobel_edges,
    "image",
    allowed=("bfloat16", "float16", "float32", "float64"),
    name_param="",
    default_name="sobel_edges",
    check=lambda args: _check_rank_4_sobel(args),
)


def _patch_axis(size: int, k: int, stride: int, rate: int, padding: str) -> tuple[int, int, int]:
    """(output size, padding before, padding after) along one axis, as TF's convolutions."""
    span = (k - 1) * rate + 1
    if padding == "VALID":
        return max(-(-(size - span + 1) // stride), 0), 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


def _extract_patches(images, sizes, strides, rates, padding):
    (_, kh, kw, _), (_, sh, sw, _), (_, rh, rw, _) = sizes, strides, rates
    oh, top, bottom = _patch_axis(images.shape[1], kh, sh, rh, padding)
    ow, left, right = _patch_axis(images.shape[2], kw, sw, rw, padding)
    padded = jnp.pad(images, [(0, 0), (top, bottom), (left, right), (0, 0)])
    taps = [
        padded[
            :, i * rh : i * rh + (oh - 1) * sh + 1 : sh, j * rw : j * rw + (ow - 1) * sw + 1 : sw
        ]
        for i in range(kh)
        for j in range(kw)
    ]
    out = jnp.stack(taps, axis=3)  # [batch, oh, ow, kh * kw, depth]
    return out.reshape(out.shape[:3] + (kh * kw * images.shape[3],))


def _check_patches(args: dict[str, Any]) -> None:
    shape = _shape(args["images"])
    if shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.ndims} for 'images'")
    for what in ("sizes", "strides", "rates"):
        value = args[what] if what != "sizes" else args.get("sizes", args.get("ksizes"))
        if value is None or len(value) != 4:
            raise ValueError(f"{what} must be a list of 4 ints [1, rows, cols, 1]")
        if value[0] != 1 or value[3] != 1:
            raise errors.InvalidArgumentError(
                None,
                None,
                "Only support ksizes across space."
                if what == "sizes"
                else f"Only support {what} across space.",
            )
    if args["padding"] not in ("SAME", "VALID"):
        raise ValueError(f"padding must be SAME or VALID, got {args['padding']!r}")


_PATCH_TYPES = (
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
)
extract_patches = define(
    "image.extract_patches",
    "ExtractImagePatches",
    _extract_patches,
    "images, sizes, strides, rates, padding, name=None",
    tensors="images",
    allowed=_PATCH_TYPES,
    check=_check_patches,
)


def _extract_image_patches(images, ksizes, strides, rates, padding, sizes):
    return _extract_patches(images, ksizes if sizes is None else sizes, strides, rates, padding)


def _check_image_patches(args: dict[str, Any]) -> None:
    sizes = args["ksizes"] if args["sizes"] is None else args["sizes"]
    _check_patches({**args, "sizes": sizes})


extract_image_patches = define(
    "image.extract_image_patches",
    "ExtractImagePatches",
    _extract_image_patches,
    "images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None",
    tensors="images",
    allowed=_PATCH_TYPES,
    default_name="ExtractImagePatches",
    check=_check_image_patches,
)


# -- gradients and total variation -------------------------------------------------------


def _image_gradients(image):
    dy = image[:, 1:] - image[:, :-1]
    dx = image[:, :, 1:] - image[:, :, :-1]
    dy = jnp.pad(dy, [(0, 0), (0, 1), (0, 0), (0, 0)])
    dx = jnp.pad(dx, [(0, 0), (0, 0), (0, 1), (0, 0)])
    return dy, dx


def _check_rank_4_sobel(args: dict[str, Any]) -> None:
    shape = _shape(args["image"])
    if shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.ndims} for 'image'")


def _check_image_gradients(args: dict[str, Any]) -> None:
    shape = _shape(args["image"])
    if shape.ndims != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {shape}.")


image_gradients = define(
    "image.image_gradients",
    "ImageGradients",
    _image_gradients,
    "image",
    name_param="",
    default_name="image_gradients",
    check=_check_image_gradients,
)


def _total_variation(images):
    axes = None if images.ndim == 3 else (-3, -2, -1)
    dif1 = images[..., 1:, :, :] - images[..., :-1, :, :]
    dif2 = images[..., :, 1:, :] - images[..., :, :-1, :]
    return jnp.sum(jnp.abs(dif1), axis=axes) + jnp.sum(jnp.abs(dif2), axis=axes)


def _check_total_variation(args: dict[str, Any]) -> None:
    if _shape(args["images"]).ndims not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")


total_variation = define(
    "image.total_variation",
    "TotalVariation",
    _total_variation,
    "images, name=None",
    default_name="total_variation",
    check=_check_total_variation,
)


# -- resizing ----------------------------------------------------------------------------


def _resize_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """TF's ``CalculateResizeScale`` (float32)."""
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _source(out_size: int, scale: np.float32, half_pixel: bool) -> np.ndarray:
    """Source coordinates of the output pixels (TF's legacy or half-pixel scaler, float32)."""
    x = np.arange(out_size, dtype=np.float32)
    if half_pixel:
        return (x + np.float32(0.5)) * scale - np.float32(0.5)
    return x * scale


def _bilinear_axis(in_size: int, out_size: int, align: bool, half: bool):
    src = _source(out_size, _resize_scale(in_size, out_size, align), half)
    floor = np.floor(src)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lower, upper, (src - floor).astype(np.float32)


def _resize_bilinear(images, size, align_corners=False, half_pixel_centers=False):
    x = images.astype(jnp.float32)
    ylo, yhi, ylerp = _bilinear_axis(x.shape[1], size[0], align_corners, half_pixel_centers)
    xlo, xhi, xlerp = _bilinear_axis(x.shape[2], size[1], align_corners, half_pixel_centers)
    top, bottom = x[:, ylo], x[:, yhi]
    xl = jnp.asarray(xlerp)[None, None, :, None]
    top = top[:, :, xlo] + (top[:, :, xhi] - top[:, :, xlo]) * xl
    bottom = bottom[:, :, xlo] + (bottom[:, :, xhi] - bottom[:, :, xlo]) * xl
    return top + (bottom - top) * jnp.asarray(ylerp)[None, :, None, None]


def _nearest_axis(in_size: int, out_size: int, align: bool, half: bool) -> np.ndarray:
    scale = _resize_scale(in_size, out_size, align)
    x = np.arange(out_size, dtype=np.float32)
    src = (x + np.float32(0.5)) * scale if half else x * scale
    # roundf: half away from zero.
    index = np.where(src >= 0, np.floor(src + 0.5), np.ceil(src - 0.5)) if align else np.floor(src)
    index = np.minimum(index.astype(np.int64), in_size - 1)
    return np.maximum(index, 0) if half else index


def _resize_nearest(images, size, align_corners=False, half_pixel_centers=False):
    ys = _nearest_axis(images.shape[1], size[0], align_corners, half_pixel_centers)
    xs = _nearest_axis(images.shape[2], size[1], align_corners, half_pixel_centers)
    return images[:, ys][:, :, xs]


@functools.lru_cache(maxsize=2)
def _cubic_table(a: float) -> np.ndarray:
    """TF's bicubic coefficient table (1025 entries of two weights, float32)."""
    size = 1024
    table = np.zeros((size + 1, 2), np.float64)
    for i in range(size + 1):
        x = np.float64(np.float32(i * 1.0 / size))
        table[i, 0] = ((a + 2) * x - (a + 3)) * x * x + 1
        x += 1.0
        table[i, 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return table.astype(np.float32)


def _cubic_axis(in_size: int, out_size: int, align: bool, half: bool):
    """Per output pixel: 4 source indices and weights (TF's ``GetWeightsAndIndices``)."""
    size = 1024
    src = _source(out_size, _resize_scale(in_size, out_size, align), half)
    table = _cubic_table(-0.5 if half else -0.75)
    loc = np.floor(src).astype(np.int64)
    delta = (src - loc).astype(np.float32)
    offset = np.rint(delta * np.float32(size)).astype(np.int64)
    weights = np.stack(
        [
            table[offset, 1],
            table[offset, 0],
            table[size - offset, 0],
            table[size - offset, 1],
        ],
        axis=1,
    )
    raw = loc[:, None] + np.arange(-1, 3)[None, :]
    index = np.clip(raw, 0, in_size - 1)
    if half:  # Keys' cubic: taps outside the image weigh 0, the rest renormalized
        weights = np.where(index == raw, weights, np.float32(0))
        total = weights[:, 0] + weights[:, 1] + weights[:, 2] + weights[:, 3]
        ok = np.abs(total) >= 1000.0 * np.finfo(np.float32).tiny
        weights = np.where(
            ok[:, None], weights * (np.float32(1) / np.where(ok, total, 1))[:, None], weights
        )
    return index, weights.astype(np.float32)


def _resize_bicubic(images, size, align_corners=False, half_pixel_centers=False):
    x = images.astype(jnp.float32)
    yi, yw = _cubic_axis(x.shape[1], size[0], align_corners, half_pixel_centers)
    xi, xw = _cubic_axis(x.shape[2], size[1], align_corners, half_pixel_centers)
    # TF interpolates along y first (per source column), then along x.
    rows = [x[:, yi[:, k]] * jnp.asarray(yw[:, k])[None, :, None, None] for k in range(4)]
    cols = rows[0] + rows[1] + rows[2] + rows[3]
    taps = [cols[:, :, xi[:, k]] * jnp.asarray(xw[:, k])[None, None, :, None] for k in range(4)]
    return taps[0] + taps[1] + taps[2] + taps[3]


def _area_weights(in_size: int, out_size: int, align: bool) -> tuple[np.ndarray, np.float32]:
    """Dense ``[out, in]`` coverage weights of TF's ``ResizeArea`` along one axis."""
    scale = _resize_scale(in_size, out_size, align)
    w = np.zeros((out_size, in_size), np.float32)
    for o in range(out_size):
        lo = np.float32(o) * scale
        hi = np.float32(o + 1) * scale
        start, end = int(np.floor(lo)), int(np.ceil(hi))
        for i in range(start, end):
            if i < lo:
                cover = scale if i + 1 > hi else np.float32(i + 1) - lo
            else:
                cover = hi - np.float32(i) if i + 1 > hi else np.float32(1.0)
            w[o, min(max(i, 0), in_size - 1)] += np.float32(cover)
    return w, scale


def _resize_area(images, size, align_corners=False):
    x = images.astype(jnp.float32)
    wy, sy = _area_weights(x.shape[1], size[0], align_corners)
    wx, sx = _area_weights(x.shape[2], size[1], align_corners)
    out = jnp.einsum(
        "hi,bijc,wj->bhwc", jnp.asarray(wy), x, jnp.asarray(wx), precision=jax.lax.Precision.HIGHEST
    )
    return out * jnp.asarray(np.float32(1.0) / (sy * sx), jnp.float32)


def _check_resize(args: dict[str, Any]) -> None:
    images = args["images"]
    shape = _shape(images)
    if shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.ndims} for 'images'")
    size = np.asarray(args["size"])
    if size.shape != (2,):
        raise ValueError(f"Shape must be rank 1 (2 elements) but is {size.shape} for 'size'")
    if args.get("half_pixel_centers") and args.get("align_corners"):
        raise errors.InvalidArgumentError(
            None, None, "If half_pixel_centers is True, align_corners must be False."
        )


_RESIZE_TYPES = (
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "int64",
    "bfloat16",
    "float16",
    "float32",
    "float64",
)


def _sizes(size: Any) -> tuple[int, int]:
    return int(size[0]), int(size[1])


resize_bilinear = define(
    "image.resize_bilinear",
    "ResizeBilinear",
    lambda images, size, align_corners, half_pixel_centers: _resize_bilinear(
        images, _sizes(size), align_corners, half_pixel_centers
    ),
    "images, size, align_corners=False, name=None, half_pixel_centers=False",
    tensors="images",
    allowed=_RESIZE_TYPES,
    check=_check_resize,
)
resize_nearest_neighbor = define(
    "image.resize_nearest_neighbor",
    "ResizeNearestNeighbor",
    lambda images, size, align_corners, half_pixel_centers: _resize_nearest(
        images, _sizes(size), align_corners, half_pixel_centers
    ),
    "images, size, align_corners=False, name=None, half_pixel_centers=False",
    tensors="images",
    allowed=_RESIZE_TYPES,
    check=_check_resize,
)
resize_bicubic = define(
    "image.resize_bicubic",
    "ResizeBicubic",
    lambda images, size, align_corners, half_pixel_centers: _resize_bicubic(
        images, _sizes(size), align_corners, half_pixel_centers
    ),
    "images, size, align_corners=False, name=None, half_pixel_centers=False",
    tensors="images",
    allowed=_RESIZE_TYPES,
    check=_check_resize,
)
resize_area = define(
    "image.resize_area",
    "ResizeArea",
    lambda images, size, align_corners: _resize_area(images, _sizes(size), align_corners),
    "images, size, align_corners=False, name=None",
    tensors="images",
    allowed=_RESIZE_TYPES,
    check=_check_resize,
)


def _box_positions(c1, c2, size: int, n: int):
    """TF's ``CropAndResize`` sample positions ``[boxes, n]`` along one axis (float32)."""
    extent = np.float32(size - 1)
    if n > 1:
        scale = (c2 - c1) * extent / np.float32(n - 1)
        return (c1 * extent)[:, None] + jnp.arange(n, dtype=jnp.float32)[None, :] * scale[:, None]
    return ((np.float32(0.5) * (c1 + c2)) * extent)[:, None]


def _crop_and_resize_bilinear(images, boxes, box_ind, crop_size, extrapolation_value):
    height, width = images.shape[1], images.shape[2]
    in_y = _box_positions(boxes[:, 0], boxes[:, 2], height, crop_size[0])
    in_x = _box_positions(boxes[:, 1], boxes[:, 3], width, crop_size[1])
    crops = images[box_ind].astype(jnp.float32)  # [boxes, height, width, depth]

    def rows(index):
        return jnp.take_along_axis(crops, jnp.clip(index, 0, height - 1)[:, :, None, None], axis=1)

    def cols(part, index):
        return jnp.take_along_axis(part, jnp.clip(index, 0, width - 1)[:, None, :, None], axis=2)

    fy, fx = jnp.floor(in_y), jnp.floor(in_x)
    ty, by = fy.astype(jnp.int32), jnp.ceil(in_y).astype(jnp.int32)
    lx, rx = fx.astype(jnp.int32), jnp.ceil(in_x).astype(jnp.int32)
    y_lerp = (in_y - fy)[:, :, None, None]
    x_lerp = (in_x - fx)[:, None, :, None]
    top_rows, bottom_rows = rows(ty), rows(by)
    top_left, top_right = cols(top_rows, lx), cols(top_rows, rx)
    bottom_left, bottom_right = cols(bottom_rows, lx), cols(bottom_rows, rx)
    top = top_left + (top_right - top_left) * x_lerp
    bottom = bottom_left + (bottom_right - bottom_left) * x_lerp
    out = top + (bottom - top) * y_lerp
    inside = ((in_y >= 0) & (in_y <= height - 1))[:, :, None, None] & (
        (in_x >= 0) & (in_x <= width - 1)
    )[:, None, :, None]
    return jnp.where(inside, out, jnp.asarray(extrapolation_value, jnp.float32)), (
        in_y,
        in_x,
        inside,
    )


def _crop_and_resize_nearest(images, boxes, box_ind, crop_size, extrapolation_value):
    """Nearest samples; the boxes' gradient is the bilinear one, as TF's (one grad kernel)."""
    height, width = images.shape[1], images.shape[2]
    frozen = jax.lax.stop_gradient(boxes)
    bilinear, _ = _crop_and_resize_bilinear(
        jax.lax.stop_gradient(images), boxes, box_ind, crop_size, extrapolation_value
    )
    in_y = _box_positions(frozen[:, 0], frozen[:, 2], height, crop_size[0])
    in_x = _box_positions(frozen[:, 1], frozen[:, 3], width, crop_size[1])

    def roundf(v):  # C's roundf: half away from zero
        return (jnp.sign(v) * jnp.floor(jnp.abs(v) + np.float32(0.5))).astype(jnp.int32)

    crops = images[box_ind].astype(jnp.float32)
    picked = jnp.take_along_axis(crops, jnp.clip(roundf(in_y), 0, height - 1)[:, :, None, None], 1)
    picked = jnp.take_along_axis(picked, jnp.clip(roundf(in_x), 0, width - 1)[:, None, :, None], 2)
    inside = ((in_y >= 0) & (in_y <= height - 1))[:, :, None, None] & (
        (in_x >= 0) & (in_x <= width - 1)
    )[:, None, :, None]
    out = jnp.where(inside, picked, jnp.asarray(extrapolation_value, jnp.float32))
    return out + (bilinear - jax.lax.stop_gradient(bilinear))


def _crop_and_resize(image, boxes, box_ind, crop_size, method, extrapolation_value, box_indices):
    indices = box_ind if box_indices is None else box_indices
    size = _sizes(crop_size)
    if method == "nearest":
        return _crop_and_resize_nearest(image, boxes, indices, size, extrapolation_value)
    return _crop_and_resize_bilinear(image, boxes, indices, size, extrapolation_value)[0]


def _check_crop_and_resize(args: dict[str, Any]) -> None:
    if _shape(args["image"]).ndims != 4:
        raise ValueError(
            f"Shape must be rank 4 but is rank {_shape(args['image']).ndims} for 'image'"
        )
    if args["method"] not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {args['method']!r}")
    if (args.get("box_ind") is None) == (args.get("box_indices") is None):
        raise ValueError("Cannot specify both 'box_indices' and 'box_ind'")
    if args["crop_size"] is None or np.shape(args["crop_size"]) != (2,):
        raise ValueError("crop_size must be a 1-D tensor of 2 elements: crop_height, crop_width")


_crop_and_resize_entry = define(
    "image.crop_and_resize",
    "CropAndResize",
    _crop_and_resize,
    "image, boxes, box_ind=None, crop_size=None, method='bilinear', extrapolation_value=0,"
    " name=None, box_indices=None",
    tensors="image boxes box_ind box_indices",
    same_dtype=(),
    allowed={
        "image": _RESIZE_TYPES,
        "boxes": ("float32",),
        "box_ind": ("int32",),
        "box_indices": ("int32",),
    },
    check=_check_crop_and_resize,
    tf_gradient="the boxes' gradient of method='nearest' is the bilinear one (TF's kernel)",
)


def crop_and_resize(
    image: Any,
    boxes: Any,
    box_ind: Any = None,
    crop_size: Any = None,
    method: str = "bilinear",
    extrapolation_value: float = 0,
    name: str | None = None,
    box_indices: Any = None,
) -> Any:
    """Crops boxes out of images and resizes them (``tf.compat.v1.image.crop_and_resize``).

    Args:
      image: ``[batch, height, width, depth]`` images.
      boxes: float32 ``[num_boxes, 4]`` normalized ``(y1, x1, y2, x2)``.
      box_ind: int32 ``[num_boxes]``, the image of each box (``box_indices`` is its
        newer name).
      crop_size: ``[crop_height, crop_width]`` (known when the graph is built).
      method: ``"bilinear"`` (default) or ``"nearest"``.
      extrapolation_value: the value of samples outside the image (0).
      name: the op name (``"CropAndResize"``).
      box_indices: see ``box_ind``.

    Returns:
      float32 ``[num_boxes, crop_height, crop_width, depth]``.

    Raises:
      ValueError: both ``box_ind`` and ``box_indices`` (TF's message), bad ranks.
      OutOfRangeError (at run time): a box index outside the batch (TF's message).
    """
    from adapters.v1.framework import runtime_checks

    if box_ind is not None and box_indices is not None:
        raise ValueError("Cannot specify both 'box_indices' and 'box_ind'")
    image = ops.convert_to_tensor(image, name="image")
    indices = ops.convert_to_tensor(box_ind if box_indices is None else box_indices)

    def compute(ctx: Any, images: Any, idx: Any) -> tuple[Any, ...]:
        ok = jnp.all((idx >= 0) & (idx < images.shape[0]))
        runtime_checks.check(ctx, op, ok)
        return (idx,)

    op = image.graph.create_op(
        "CheckBoxIndex",
        "box_index_check",
        inputs=[image, indices],
        compute=compute,
        output_specs=[(indices._shape, indices.dtype)],
    )
    runtime_checks.mark(
        op,
        lambda: errors.OutOfRangeError(None, op, "box_index has values outside [0, batch_size)"),
    )
    return _crop_and_resize_entry(
        image, boxes, op.outputs[0], crop_size, method, extrapolation_value, name
    )


_RESIZERS = {
    ResizeMethod.BILINEAR: lambda x, s, a: _resize_bilinear(x, s, a),
    ResizeMethod.NEAREST_NEIGHBOR: lambda x, s, a: _resize_nearest(x, s, a),
    ResizeMethod.BICUBIC: lambda x, s, a: _resize_bicubic(x, s, a),
    ResizeMethod.AREA: _resize_area,
}
# TF 2's method names, which v1's resize_images accepts too.
_V2_METHODS = {"bilinear": 0, "nearest": 1, "bicubic": 2, "area": 3}


def _method(method: Any) -> int | None:
    if isinstance(method, str):
        return _V2_METHODS.get(method)
    if (
        isinstance(method, (int, np.integer))
        and not isinstance(method, bool)
        and method in _RESIZERS
    ):
        return int(method)
    return None


def _target_size(
    height: int, width: int, size: Any, preserve_aspect_ratio: bool
) -> tuple[int, int]:
    new_h, new_w = _sizes(size)
    if not preserve_aspect_ratio:
        return new_h, new_w
    factor = min(np.float32(new_h) / np.float32(height), np.float32(new_w) / np.float32(width))
    return (
        int(np.rint(np.float32(factor * np.float32(height)))),
        int(np.rint(np.float32(factor * np.float32(width)))),
    )


def _resize_images(images, size, method, align_corners, preserve_aspect_ratio):
    batch = _batched(images)
    target = _target_size(batch.shape[1], batch.shape[2], size, preserve_aspect_ratio)
    if target == (batch.shape[1], batch.shape[2]):
        return images
    out = _RESIZERS[_method(method)](batch, target, align_corners)
    return _unbatched(images, out)


def _check_resize_images(args: dict[str, Any]) -> None:
    shape = _shape(args["images"])
    if shape.ndims is None:
        raise ValueError("'images' contains no shape.")
    if shape.ndims not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    size = np.asarray(args["size"])
    if size.dtype.kind not in "iu":
        raise ValueError("'size' must be a 1-D int32 Tensor")
    if size.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if _method(args["method"]) is None:
        raise ValueError(f"Resize method is not implemented: {args['method']}")
    height, width = _hw(args["images"])
    dtype = np_dtype(args["images"].dtype)
    if (height is None or width is None) and dtype != np.float32 and _method(args["method"]) != 1:
        # TF skips the resize only where the size is known equal when the graph is built.
        raise NotImplementedError(
            f"tf.image.resize_images of a {dtype.name} image of unknown height or width "
            f"(shape {shape}): cast the image to float32 first (TF resizes it to float32)"
        )


_resize_images_node = define(
    ("image.resize_images", "image.resize"),
    "ResizeImages",
    _resize_images,
    "images, size, method=0, align_corners=False, preserve_aspect_ratio=False, name=None",
    tensors="images",
    allowed=_RESIZE_TYPES,
    default_name="resize",
    check=_check_resize_images,
)


@functools.wraps(_resize_images_node)
def resize_images(
    images: Any,
    size: Any,
    method: Any = 0,
    align_corners: bool = False,
    preserve_aspect_ratio: bool = False,
    name: str | None = None,
) -> Any:
    # The table entry's function (its docstring is the entry's); with method=AREA the
    # node is TF's ResizeArea (resize/ResizeArea), which has no gradient: tf.gradients
    # through it raises TF's LookupError, unless the size is known equal when the graph
    # is built (TF then returns images).
    args = (images, size, method, align_corners, preserve_aspect_ratio)
    if _method(method) != ResizeMethod.AREA:
        return _resize_images_node(*args, name=name)
    with ops.name_scope(name, "resize", [images]):
        out = _resize_images_node(*args, name="ResizeArea")
    height, width = _hw(out.op.inputs[0])
    same = (
        height is not None
        and width is not None
        and _target_size(height, width, size, preserve_aspect_ratio) == (height, width)
    )
    if not same:
        out.op._type = "ResizeArea"
    return out


for _name in ("image.resize_images", "image.resize"):
    FUNCTIONS[_name] = resize_images


def _resize_with_pad(image, target_height, target_width, method, align_corners):
    batch = _batched(image)
    height, width = np.float32(batch.shape[1]), np.float32(batch.shape[2])
    th, tw = np.float32(target_height), np.float32(target_width)
    ratio = max(width / tw, height / th)
    new_h, new_w = height / ratio, width / ratio
    pad_h = max(0, int(np.floor((th - new_h) / np.float32(2))))
    pad_w = max(0, int(np.floor((tw - new_w) / np.float32(2))))
    # TF's size here is computed, so resize_images never skips an equal size.
    resized = _RESIZERS[_method(method)](batch, (int(new_h), int(new_w)), align_corners)
    padded = jnp.pad(
        resized,
        [
            (0, 0),
            (pad_h, target_height - pad_h - resized.shape[1]),
            (pad_w, target_width - pad_w - resized.shape[2]),
            (0, 0),
        ],
    )
    return _unbatched(image, padded)


def _check_resize_with_pad(args: dict[str, Any]) -> None:
    _check_crop_or_pad(args)
    if _method(args["method"]) is None:
        raise ValueError(f"Resize method is not implemented: {args['method']}")


resize_image_with_pad = define(
    "image.resize_image_with_pad",
    "ResizeImageWithPad",
    _resize_with_pad,
    "image, target_height, target_width, method=0, align_corners=False",
    tensors="image",
    allowed=_RESIZE_TYPES,
    name_param="",
    default_name="resize_image_with_pad",
    check=_check_resize_with_pad,
)


# -- random augmentations: tf.random_uniform composed with the entries, as TF's Python ---------


def _random_flip(image: Any, axis: int, seed: int | None, scope: str) -> Any:
    """TF's ``_random_flip``: one draw per image (rank 3: a select; rank 4: TF's arithmetic)."""
    from adapters.v1.framework.op_def import FUNCTIONS as tf_ops
    from adapters.v1.ops.random_ops import random_uniform

    with ops.name_scope(None, scope, [image]):
        image = ops.convert_to_tensor(image, name="image")
        _at_least_3d(image)
        rank = _rank_3_or_4(image)
        if rank == 3:
            uniform = random_uniform([], 0, 1.0, seed=seed)
            flipped = tf_ops["reverse"](image, [axis])
            return tf_ops["where_v2"](tf_ops["less"](uniform, 0.5), flipped, image)
        batch = _shape(image).as_list()[0]
        if batch is None:
            batch = tf_ops["strided_slice"](tf_ops["shape"](image), [0], [1], [1])
            shape = batch
        else:
            shape = [batch]
        uniform = random_uniform(shape, 0, 1.0, seed=seed)
        flips = tf_ops["round"](tf_ops["reshape"](uniform, [-1, 1, 1, 1]))
        flips = tf_ops["cast"](flips, image.dtype)
        flipped = tf_ops["reverse"](image, [axis + 1])
        one = tf_ops["cast"](1, image.dtype)
        return flips * flipped + (one - flips) * image


def random_flip_left_right(image: Any, seed: int | None = None) -> Any:
    """Flips an image (each image of a batch) left to right with probability 1/2.

    Args:
      image: a ``[height, width, channels]`` image or a batch of them.
      seed: the op-level seed of the ``tf.random_uniform`` draw (TF's seed rules).

    Returns:
      The image, flipped or not; a fresh draw on every ``Session.run``.

    Raises:
      ValueError: the image's rank is not 3 or 4 (TF's messages).
    """
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image: Any, seed: int | None = None) -> Any:
    """Flips an image (each image of a batch) upside down with probability 1/2.

    Args:
      image: a ``[height, width, channels]`` image or a batch of them.
      seed: the op-level seed of the ``tf.random_uniform`` draw (TF's seed rules).

    Returns:
      The image, flipped or not; a fresh draw on every ``Session.run``.

    Raises:
      ValueError: the image's rank is not 3 or 4 (TF's messages).
    """
    return _random_flip(image, 0, seed, "random_flip_up_down")


def _uniform_factor(lower: Any, upper: Any, seed: int | None) -> Any:
    from adapters.v1.ops.random_ops import random_uniform

    return random_uniform([], lower, upper, seed=seed)


def random_brightness(image: Any, max_delta: float, seed: int | None = None) -> Any:
    """``adjust_brightness`` by a delta uniform in ``[-max_delta, max_delta)``.

    Args:
      image: an image or a batch of images.
      max_delta: a non-negative float.
      seed: the op-level seed of the draw.

    Returns:
      The adjusted image (one delta for the whole tensor, fresh on every run).

    Raises:
      ValueError: ``max_delta`` is negative.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform_factor(-max_delta, max_delta, seed))


def _check_range(lower: float, upper: float) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_contrast(image: Any, lower: float, upper: float, seed: int | None = None) -> Any:
    """``adjust_contrast`` by a factor uniform in ``[lower, upper)``.

    Args:
      image: an image or a batch of images.
      lower: the factor's lower bound (non-negative).
      upper: the factor's upper bound (above ``lower``).
      seed: the op-level seed of the draw.

    Returns:
      The adjusted image (one factor for the whole tensor, fresh on every run).

    Raises:
      ValueError: ``upper <= lower`` or ``lower < 0``.
    """
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform_factor(lower, upper, seed))


def random_saturation(image: Any, lower: float, upper: float, seed: int | None = None) -> Any:
    """``adjust_saturation`` by a factor uniform in ``[lower, upper)``.

    Args:
      image: an RGB image or a batch of them.
      lower: the factor's lower bound (non-negative).
      upper: the factor's upper bound (above ``lower``).
      seed: the op-level seed of the draw.

    Returns:
      The adjusted image (one factor for the whole tensor, fresh on every run).

    Raises:
      ValueError: ``upper <= lower`` or ``lower < 0``.
    """
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform_factor(lower, upper, seed))


def random_hue(image: Any, max_delta: float, seed: int | None = None) -> Any:
    """``adjust_hue`` by a delta uniform in ``[-max_delta, max_delta)``.

    Args:
      image: an RGB image or a batch of them.
      max_delta: in ``[0, 0.5]``.
      seed: the op-level seed of the draw.

    Returns:
      The adjusted image (one delta for the whole tensor, fresh on every run).

    Raises:
      ValueError: ``max_delta`` is above 0.5 or negative.
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _uniform_factor(-max_delta, max_delta, seed))


# The tf.image names that are graph functions over the table's entries (not entries).
GRAPH_FUNCTIONS: tuple[str, ...] = (
    "rot90",
    "crop_and_resize",
    "crop_to_bounding_box",
    "pad_to_bounding_box",
    "random_flip_left_right",
    "random_flip_up_down",
    "random_brightness",
    "random_contrast",
    "random_saturation",
    "random_hue",
)
