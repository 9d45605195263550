"""``tf.image.draw_bounding_boxes`` (TF: ``image_ops_impl.py`` over the kernel of
``core/kernels/image/draw_bounding_box_op.cc``), on the op table.

Each box ``[y_min, x_min, y_max, x_max]`` (fractions of the image) becomes pixel rows
and columns ``int(y * (height - 1))`` (float32 product, truncated toward zero) and
its four one-pixel edges are painted in its colour, box after box (a later box paints
over an earlier one). Inverted boxes and boxes wholly outside the image are skipped;
edges outside the image are not drawn, the others are clamped to it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS, define
from adapters.v1.ops._no_gradient import without_gradient
from jtrain import errors

__all__: list[str] = []

# TF's DefaultColorTable (RGBA): yellow, blue, red, lime, purple, olive, maroon, navy
# blue, aqua, fuchsia.
_DEFAULT_COLORS = np.array(
    [
        [1, 1, 0, 1],
        [0, 0, 1, 1],
        [1, 0, 0, 1],
        [0, 1, 0, 1],
        [0.5, 0, 0.5, 1],
        [0.5, 0.5, 0, 1],
        [0.5, 0, 0, 1],
        [0, 0, 0.5, 1],
        [0, 1, 1, 1],
        [1, 0, 1, 1],
    ],
    np.float32,
)


def _color_table(colors: Any, depth: int) -> Any:
    """TF's table: the given colours' first ``depth`` channels, else the default table
    (its first channel 1 for grey images)."""
    if colors is not None and colors.size:
        return colors[:, :depth].astype(np.float32)
    table = _DEFAULT_COLORS.copy()
    if depth == 1:
        table[:, 0] = 1
    return jnp.asarray(table[:, :depth])


def _draw(images, boxes, colors=None):
    _, height, width, depth = images.shape
    table = _color_table(colors, depth)
    rows = jnp.arange(height)[:, None]
    cols = jnp.arange(width)[None, :]

    def pixel(fraction: jax.Array, size: int) -> jax.Array:
        return (fraction.astype(np.float32) * np.float32(size - 1)).astype(np.int32)

    def one_box(k: Any, canvas: jax.Array) -> jax.Array:
        box = boxes[:, k]  # [batch, 4]
        r0, c0 = pixel(box[:, 0], height), pixel(box[:, 1], width)
        r1, c1 = pixel(box[:, 2], height), pixel(box[:, 3], width)
        drawn = (r0 <= r1) & (c0 <= c1) & (r0 < height) & (r1 >= 0) & (c0 < width) & (c1 >= 0)
        r0, r1, c0, c1 = (v[:, None, None] for v in (r0, r1, c0, c1))
        in_rows = (rows >= jnp.maximum(r0, 0)) & (rows <= jnp.minimum(r1, height - 1))
        in_cols = (cols >= jnp.maximum(c0, 0)) & (cols <= jnp.minimum(c1, width - 1))
        edges = (
            ((rows == r0) & in_cols)
            | ((rows == r1) & in_cols)
            | ((cols == c0) & in_rows)
            | ((cols == c1) & in_rows)
        )
        paint = edges & drawn[:, None, None]
        color = table[k % table.shape[0]].astype(canvas.dtype)
        return jnp.where(paint[..., None], color, canvas)

    return jax.lax.fori_loop(0, boxes.shape[1], one_box, images)


def _check_draw(args: dict[str, Any]) -> None:
    op = "DrawBoundingBoxes"
    images, boxes, colors = args["images"], args["boxes"], args.get("colors")
    shape, box_shape = images.get_shape(), boxes.get_shape()
    if shape.ndims is not None and shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.ndims} for '{op}' (images)")
    if box_shape.ndims is not None and box_shape.ndims != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {box_shape.ndims} for '{op}' (boxes)")
    depth = shape.as_list()[3] if shape.ndims else None
    if depth is not None and depth not in (1, 3, 4):
        raise ValueError(f"Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA) for '{op}'")
    last = box_shape.as_list()[2] if box_shape.ndims else None
    if last is not None and last != 4:
        raise ValueError(f"Dimension must be 4 but is {last} for '{op}' (boxes)")
    # TF's kernel checks, when run in TF: raised here when the graph is built.
    batch, box_batch = shape.as_list()[0], box_shape.as_list()[0]
    if batch is not None and box_batch is not None and batch != box_batch:
        raise errors.InvalidArgumentError(None, None, "The batch sizes should be the same")
    if colors is not None:
        color_shape = colors.get_shape()
        if color_shape.ndims is not None and color_shape.ndims != 2:
            raise errors.InvalidArgumentError(
                None, None, f"colors must be a 2-D matrix{color_shape.as_list()}"
            )
        channels = color_shape.as_list()[1] if color_shape.ndims == 2 else None
        if channels is not None and depth is not None and channels < depth:
            raise errors.InvalidArgumentError(
                None,
                None,
                "colors must have equal or more channels than the image provided: "
                f"{color_shape.as_list()}",
            )


_draw_v1 = define(
    "image.draw_bounding_boxes",
    "DrawBoundingBoxes",
    lambda images, boxes: _draw(images, boxes),
    params="images, boxes, name=None",
    allowed={"images": ("float32", "float16"), "boxes": ("float32",)},
    same_dtype=(),
    default_name="DrawBoundingBoxes",
    check=_check_draw,
)


def _draw_v2(images, boxes, colors):
    raising = without_gradient("DrawBoundingBoxesV2")  # TF registers no gradient
    return _draw(raising(images), raising(boxes), colors)


_draw_v2_entry = define(
    "_internal.image.draw_bounding_boxes_v2",  # not a public TF name: no namespace has it
    "DrawBoundingBoxesV2",
    _draw_v2,
    params="images, boxes, colors, name=None",
    allowed={
        "images": ("float32", "float16"),
        "boxes": ("float32",),
        "colors": ("float32",),
    },
    same_dtype=(),
    default_name="DrawBoundingBoxesV2",
    check=_check_draw,
)


def draw_bounding_boxes(images: Any, boxes: Any, name: str | None = None, colors: Any = None):
    """Draws boxes on a batch of images (``tf.compat.v1.image.draw_bounding_boxes``).

    Args:
      images: ``[batch, height, width, depth]`` float32/float16 images, ``depth`` 1, 3
        or 4.
      boxes: float32 ``[batch, num_boxes, 4]`` boxes ``[y_min, x_min, y_max, x_max]``
        in fractions of the image.
      name: the op name (``"DrawBoundingBoxes"``, ``"DrawBoundingBoxesV2"`` with colours).
      colors: float32 ``[num_colors, >= depth]`` colours used in turn (default ``None``:
        TF's table of ten colours).

    Returns:
      The images with the boxes' edges painted, of ``images``' dtype and shape.

    Raises:
      ValueError: bad ranks or depth (TF's shape function).
      InvalidArgumentError: batch sizes differ or too few colour channels (TF's kernel
        checks, raised when the graph is built).

    .. note:: Images that are no tensor (NumPy arrays, lists) are converted to float32
       (float16 ones stay float16), as TF converts them to the op's default type; a
       uint8 tensor raises TF's ``TypeError``.

    .. note:: TF registers no gradient: ``tf.gradients`` gives ``None`` without
       ``colors`` (``DrawBoundingBoxes`` is not differentiable) and raises
       ``LookupError`` with them (``DrawBoundingBoxesV2`` has no gradient), as here.
    """
    if not (isinstance(images, ops.Tensor) or hasattr(images, "_as_graph_tensor")):
        # TF converts a value that is no tensor to the op's default type, float32
        # (float16 stays): a NumPy uint8 image draws as a float32 one.
        array = np.asarray(images)
        if array.dtype != np.float16:
            images = array.astype(np.float32)
    if colors is None:
        return _draw_v1(images, boxes, name)
    return _draw_v2_entry(images, boxes, colors, name)


draw_bounding_boxes._op_def = _draw_v1._op_def
FUNCTIONS["image.draw_bounding_boxes"] = draw_bounding_boxes


# -- sample_distorted_bounding_box -----------------------------------------------------


def _lrint(x: jax.Array) -> jax.Array:
    """C's ``lrintf``: round half to even, to an integer."""
    return jnp.round(x).astype(np.int32)


def _random_crop(
    key: jax.Array,
    width: jax.Array,
    height: jax.Array,
    min_relative: np.float32,
    max_relative: np.float32,
    aspect: jax.Array,
) -> tuple[jax.Array, jax.Array]:
    """TF's ``GenerateRandomCrop``: ``(ok, [x_min, y_min, x_max, y_max])``, float32
    arithmetic as the kernel (its one double expression in float64)."""
    k_height, k_y, k_x = jax.random.split(key, 3)
    fw, fh = width.astype(np.float32), height.astype(np.float32)
    min_area = min_relative * fw * fh
    max_area = max_relative * fw * fh
    crop_h = _lrint(jnp.sqrt(min_area / aspect))
    max_h = _lrint(jnp.sqrt(max_area / aspect))
    too_wide = _lrint(max_h.astype(np.float32) * aspect) > width
    eps = np.float64(np.float32(0.0000001))
    fitted = ((width.astype(np.float64) + 0.5 - eps) / aspect.astype(np.float64)).astype(np.int32)
    fitted = jnp.where(_lrint(fitted.astype(np.float32) * aspect) > width, fitted - 1, fitted)
    max_h = jnp.where(too_wide, fitted, max_h)
    max_h = jnp.minimum(max_h, height)
    crop_h = jnp.minimum(crop_h, max_h)
    span = jnp.maximum(max_h - crop_h + 1, 1)
    crop_h = crop_h + jax.random.randint(k_height, (), 0, span, dtype=np.int32)
    crop_w = _lrint(crop_h.astype(np.float32) * aspect)
    area = (crop_w * crop_h).astype(np.float32)
    grow = area < min_area
    crop_h = jnp.where(grow, crop_h + 1, crop_h)
    crop_w = jnp.where(grow, _lrint(crop_h.astype(np.float32) * aspect), crop_w)
    area = (crop_w * crop_h).astype(np.float32)
    shrink = area > max_area
    crop_h = jnp.where(shrink, crop_h - 1, crop_h)
    crop_w = jnp.where(shrink, _lrint(crop_h.astype(np.float32) * aspect), crop_w)
    area = (crop_w * crop_h).astype(np.float32)
    ok = (
        (max_relative > 0)
        & (aspect > 0)
        & (width > 0)
        & (height > 0)
        & (min_relative <= max_relative)
        & (area >= min_area)
        & (area <= max_area)
        & (crop_w <= width)
        & (crop_h <= height)
        & (crop_w > 0)
        & (crop_h > 0)
    )
    y = jax.random.randint(k_y, (), 0, jnp.maximum(height - crop_h, 1), dtype=np.int32)
    x = jax.random.randint(k_x, (), 0, jnp.maximum(width - crop_w, 1), dtype=np.int32)
    return ok, jnp.stack([x, y, x + crop_w, y + crop_h])


def _area(rect: jax.Array) -> jax.Array:
    return ((rect[..., 2] - rect[..., 0]) * (rect[..., 3] - rect[..., 1])).astype(np.float32)


def _covers(crop: jax.Array, boxes: jax.Array, min_covered: jax.Array) -> jax.Array:
    """TF's ``SatisfiesOverlapConstraints``: the crop has a pixel and covers at least
    ``min_covered`` of some box with a pixel."""
    lo = jnp.maximum(crop[:2], boxes[:, :2])
    hi = jnp.minimum(crop[2:], boxes[:, 2:])
    empty = jnp.any(lo > hi, axis=1)
    inter = jnp.where(empty, np.float32(0.0), _area(jnp.concatenate([lo, hi], axis=1)))
    area = _area(boxes)
    # (the quotient in float64, rounded once: see _sample_box's note on XLA's division)
    ratio = inter.astype(np.float64) / jnp.where(area >= 1, area, 1).astype(np.float64)
    covered = (area >= 1) & (ratio.astype(np.float32) >= min_covered)
    return (_area(crop) >= 1) & jnp.any(covered)


def _sample_box(
    key: jax.Array,
    image_size: jax.Array,
    boxes: jax.Array,
    min_covered: jax.Array,
    aspect_range: tuple[float, float],
    area_range: tuple[float, float],
    attempts: int,
    dtype: np.dtype,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    height, width = image_size[0].astype(np.int32), image_size[1].astype(np.int32)
    flat = boxes.reshape(-1, 4).astype(np.float32)
    image = jnp.stack([0, 0, width, height]).astype(np.int32)
    if flat.shape[0]:
        rects = jnp.stack(
            [
                (flat[:, 1] * width.astype(np.float32)).astype(np.int32),
                (flat[:, 0] * height.astype(np.float32)).astype(np.int32),
                (flat[:, 3] * width.astype(np.float32)).astype(np.int32),
                (flat[:, 2] * height.astype(np.float32)).astype(np.int32),
            ],
            axis=1,
        )
    else:
        rects = image[None]
    low_ar, high_ar = np.float32(aspect_range[0]), np.float32(aspect_range[1])
    low_area, high_area = np.float32(area_range[0]), np.float32(area_range[1])

    def cond(state: tuple) -> jax.Array:
        i, _, found, _ = state
        return (i < attempts) & ~found

    def body(state: tuple) -> tuple:
        i, key, _, crop = state
        key, k_ratio, k_crop = jax.random.split(key, 3)
        aspect = jax.random.uniform(k_ratio, (), np.float32) * (high_ar - low_ar) + low_ar
        ok, candidate = _random_crop(k_crop, width, height, low_area, high_area, aspect)
        found = ok & _covers(candidate, rects, min_covered.astype(np.float32))
        return i + 1, key, found, jnp.where(found, candidate, crop)

    _, _, found, crop = jax.lax.while_loop(
        cond, body, (jnp.asarray(0, np.int32), key, jnp.asarray(False), image)
    )
    crop = jnp.where(found, crop, image)
    x0, y0, x1, y1 = crop[0], crop[1], crop[2], crop[3]
    begin = jnp.stack([y0, x0, 0]).astype(dtype)
    size = jnp.stack([y1 - y0, x1 - x0, -1]).astype(dtype)
    # (in float64, rounded once: XLA turns a division by a constant into a product by
    # its reciprocal, which misses float32's quotient by an ulp)
    fh, fw = height.astype(np.float64), width.astype(np.float64)
    bbox = jnp.stack(
        [
            (y0.astype(np.float64) / fh).astype(np.float32),
            (x0.astype(np.float64) / fw).astype(np.float32),
            (y1.astype(np.float64) / fh).astype(np.float32),
            (x1.astype(np.float64) / fw).astype(np.float32),
        ]
    ).reshape(1, 1, 4)
    return begin, size, bbox


def _range(value: Any, default: tuple[float, float], what: str) -> tuple[float, float]:
    value = default if value is None else tuple(float(v) for v in value)
    if len(value) != 2:
        raise errors.InvalidArgumentError(None, None, f"{what} field must specify 2 dimensions")
    return value[0], value[1]


def sample_distorted_bounding_box(
    image_size: Any,
    bounding_boxes: Any,
    seed: int | None = None,
    seed2: int | None = None,
    min_object_covered: Any = 0.1,
    aspect_ratio_range: Any = None,
    area_range: Any = None,
    max_attempts: int | None = None,
    use_image_if_no_bounding_boxes: bool | None = None,
    name: str | None = None,
) -> tuple[Any, Any, Any]:
    """A random crop covering part of a box (``tf.compat.v1.image.sample_distorted_bounding_box``,
    op ``SampleDistortedBoundingBoxV2``).

    Each attempt draws an aspect ratio uniformly in ``aspect_ratio_range``, a crop
    height between those giving the ``area_range`` bounds (rounded as TF's kernel,
    ``lrintf``), then a position; the first crop covering at least
    ``min_object_covered`` of one box (with at least a pixel) is returned. After
    ``max_attempts`` failures: the whole image.

    .. note:: The random stream is jtrain's (``jax.random``, see ``random_ops``), not
       TF's Philox: the crops drawn differ from TF's; the distribution, the rounding,
       the constraints and the fallback are TF's kernel's. The seeds: ``seed`` (or
       ``seed2`` when ``seed`` is 0/None) is the op seed of TF's graph-seed rules
       (``random_ops.get_seed``); TF's v1 op ignores the graph seed and is random
       unless ``seed`` or ``seed2`` is non-zero.

    Args:
      image_size: ``[height, width, depth]`` of an integer dtype (the outputs' dtype).
      bounding_boxes: float32 ``[batch, N, 4]`` boxes ``[y_min, x_min, y_max, x_max]``
        in ``[0, 1]``.
      seed: the op seed (default ``None``).
      seed2: TF's second seed (default ``None``).
      min_object_covered: the fraction of a box the crop must cover (default 0.1).
      aspect_ratio_range: ``(low, high)`` of width / height (default ``(0.75, 1.33)``).
      area_range: ``(low, high)`` fractions of the image area (default ``(0.05, 1.0)``).
      max_attempts: crops tried before the whole image is taken (default 100).
      use_image_if_no_bounding_boxes: take the whole image as the box when there is
        none (default False: no boxes is an error).
      name: the name scope (``"sample_distorted_bounding_box"``).

    Returns:
      ``(begin, size, bboxes)``: ``[offset_y, offset_x, 0]`` and ``[height, width,
      -1]`` of ``image_size``'s dtype (for ``tf.slice``), and the crop as a float32
      ``[1, 1, 4]`` box.

    Raises:
      InvalidArgumentError: TF's kernel checks on the ranges, ``max_attempts``,
        ``min_object_covered`` and missing boxes (raised when the graph is built).
      ValueError: ``image_size`` or ``bounding_boxes`` of the wrong shape.
    """
    from adapters.v1.framework import ops
    from adapters.v1.framework.op_def import np_dtype
    from adapters.v1.ops.random_ops import random_node

    aspect = _range(aspect_ratio_range, (0.75, 1.33), "Aspect ratio range")
    area = _range(area_range, (0.05, 1.0), "Area range")
    attempts = 100 if max_attempts is None else int(max_attempts)
    use_image = bool(use_image_if_no_bounding_boxes)
    if not (aspect[0] > 0 and aspect[1] > 0):
        raise errors.InvalidArgumentError(
            None, None, f"Aspect ratio range must be non-negative: [{aspect[0]:g}, {aspect[1]:g}]"
        )
    if not (area[0] > 0 and area[1] > 0):
        raise errors.InvalidArgumentError(
            None, None, f"Area range must be non-negative: [{area[0]:g}, {area[1]:g}]"
        )
    if not (area[0] <= 1 and area[1] <= 1):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Area range must be less then or equal to 1.0: [{area[0]:g}, {area[1]:g}]",
        )
    if attempts <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"Max attempts must be non-negative: {attempts}"
        )
    with ops.name_scope(name, "sample_distorted_bounding_box") as scope:
        size_t = ops.convert_to_tensor(image_size)
        boxes_t = ops.convert_to_tensor(bounding_boxes)
        covered_t = ops.convert_to_tensor(np.float32(min_object_covered))
        dtype = np_dtype(size_t.dtype)
        if dtype.kind not in "iu":
            raise TypeError(
                f"Value passed to parameter 'image_size' has DataType {dtype.name} not in "
                "list of allowed values: uint8, int8, int16, int32, int64"
            )
        shape = size_t.get_shape()
        if shape.ndims is not None and (shape.ndims != 1 or shape.as_list()[0] not in (3, None)):
            raise ValueError(f"image_size must be a vector of 3 elements, got shape {shape}")
        box_shape = boxes_t.get_shape()
        if box_shape.ndims is not None and box_shape.ndims != 3:
            raise ValueError(
                f"Shape must be rank 3 but is rank {box_shape.ndims} for "
                "'SampleDistortedBoundingBoxV2' (bounding_boxes)"
            )
        known = box_shape.as_list() if box_shape.ndims is not None else None
        if known is not None and 0 in known and not use_image:
            raise errors.InvalidArgumentError(
                None,
                None,
                "No bounding boxes provided as input. One must enable "
                "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.",
            )
        value = covered_t.op._const_value
        if value is not None and float(value) < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Min object covered must be non-negative: {float(value):g}"
            )

        def sample(key: Any, size: Any, boxes: Any, covered: Any) -> Any:
            return _sample_box(key, size, boxes, covered, aspect, area, attempts, dtype)

        begin, size, bboxes = random_node(
            "SampleDistortedBoundingBoxV2",
            sample,
            [size_t, boxes_t, covered_t],
            [((3,), dtype), ((3,), dtype), ((1, 1, 4), np.dtype(np.float32))],
            seed if seed else (seed2 or None),
            scope,
        )
    return begin, size, bboxes


FUNCTIONS["image.sample_distorted_bounding_box"] = sample_distorted_bounding_box
