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
    allowed={"images": ("float16", "float32", "uint8"), "boxes": ("float32",)},
    same_dtype=(),
    default_name="DrawBoundingBoxes",
    check=_check_draw,
)


def _draw_v2(images, boxes, colors):
    raising = without_gradient("DrawBoundingBoxesV2")  # TF registers no gradient
    return _draw(raising(images), raising(boxes), colors)


_draw_v2_entry = define(
    "image.draw_bounding_boxes_v2",
    "DrawBoundingBoxesV2",
    _draw_v2,
    params="images, boxes, colors, name=None",
    allowed={
        "images": ("float16", "float32", "uint8"),
        "boxes": ("float32",),
        "colors": ("float32",),
    },
    same_dtype=(),
    default_name="DrawBoundingBoxesV2",
    check=_check_draw,
)
del FUNCTIONS["image.draw_bounding_boxes_v2"]  # not a public TF name


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

    .. note:: TF registers no gradient: ``tf.gradients`` gives ``None`` without
       ``colors`` (``DrawBoundingBoxes`` is not differentiable) and raises
       ``LookupError`` with them (``DrawBoundingBoxesV2`` has no gradient), as here.
    """
    if colors is None:
        return _draw_v1(images, boxes, name)
    return _draw_v2_entry(images, boxes, colors, name)


draw_bounding_boxes._op_def = _draw_v1._op_def
FUNCTIONS["image.draw_bounding_boxes"] = draw_bounding_boxes
