"""``tf.image``'s non-max suppression (TF: ``image_ops_impl.py`` over the kernels of
``core/kernels/image/non_max_suppression_op.cc``), on the op table.

Greedy non-max suppression visits boxes by descending score and keeps a box unless
its similarity to a box already kept exceeds the threshold:

.. math::

    \\mathrm{IoU}(i, j) = \\frac{|B_i \\cap B_j|}{|B_i| + |B_j| - |B_i \\cap B_j|}

with each box's corners first ordered (``min``/``max`` of its two y and two x, so
flipped boxes work) and an IoU of 0 where either area is not positive, in float32
in TF's order of operations (the same bits). Ties in score go to the lower index.

Forms and how jtrain computes them:

- ``non_max_suppression`` (``NonMaxSuppressionV3``), ``non_max_suppression_with_scores``
  (``NonMaxSuppressionV5``, soft-NMS when ``soft_nms_sigma > 0``) and
  ``non_max_suppression_overlaps`` (``NonMaxSuppressionWithOverlaps``) return as
  many indices as they select: a data-dependent shape ``[None]``, which jtrain's
  static programs cannot hold. Their inputs must be constants; the selection is then
  computed when the graph is built by TF's kernel algorithm (its priority queue,
  soft-NMS re-queueing and float arithmetic included). Computed inputs raise
  ``NotImplementedError`` pointing at ``non_max_suppression_padded(...,
  pad_to_max_output_size=True)``, whose output has a fixed size.
- ``non_max_suppression_padded`` is TF 2's tiled algorithm (``non_max_suppression_padded_v2``:
  boxes sorted by score, suppressed tile by tile with IoU ``i / (u + 1e-8)``), one node
  of the step; with ``pad_to_max_output_size=False`` the result is sliced to the
  valid count, a data-dependent shape again (constants only).
- ``combined_non_max_suppression`` (``CombinedNonMaxSuppression``) has fixed output
  sizes and is one node of the step: per image and class the greedy selection, then
  the selections of all classes by descending score.

.. note:: Equal scores in ``combined_non_max_suppression``: TF's kernel orders them
   by its ``std::priority_queue`` (per class) and an unstable ``std::sort`` (across
   classes, stable only up to 16 candidates), jtrain by index and class (stable
   sorts). Distinct scores give TF's result bit for bit (checked live); tied ones
   may come in another order.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import heapq
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS, define, np_dtype
from adapters.v1.ops._no_gradient import without_gradient
from jtrain import errors

__all__: list[str] = []

_FLOAT_TYPES = ("float16", "float32")


# -- TF's similarity ---------------------------------------------------------------------


def _iou_matrix(xp: Any, boxes: Any) -> Any:
    """TF kernel's ``IOU(boxes, i, j)`` for every pair, in float32 (``xp``: NumPy or jnp).

    Corners are ordered per box; the intersection is ``max(dy, 0) * max(dx, 0)``;
    an IoU is 0 where either box has no positive area.
    """
    b = boxes.astype(np.float32)
    ymin, ymax = xp.minimum(b[:, 0], b[:, 2]), xp.maximum(b[:, 0], b[:, 2])
    xmin, xmax = xp.minimum(b[:, 1], b[:, 3]), xp.maximum(b[:, 1], b[:, 3])
    area = (ymax - ymin) * (xmax - xmin)
    zero = np.float32(0.0)
    dy = xp.minimum(ymax[:, None], ymax[None, :]) - xp.maximum(ymin[:, None], ymin[None, :])
    dx = xp.minimum(xmax[:, None], xmax[None, :]) - xp.maximum(xmin[:, None], xmin[None, :])
    inter = xp.maximum(dy, zero) * xp.maximum(dx, zero)
    union = area[:, None] + area[None, :] - inter
    empty = (area[:, None] <= zero) | (area[None, :] <= zero)
    if xp is np:
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = inter / union
    else:
        iou = inter / union
    return xp.where(empty, zero, iou)


# -- the greedy kernel (TF's DoNonMaxSuppressionOp), on the host -------------------------


def _libm_expf() -> Callable[[float], float] | None:
    """The C library's ``expf``, which TF's kernel calls (``Eigen::numext::exp``)."""
    path = ctypes.util.find_library("m")
    if path is None:
        return None
    try:
        function = ctypes.CDLL(path).expf
    except (OSError, AttributeError):
        return None
    function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
    return function


_LIBM_EXPF = _libm_expf()


def _expf(x: np.float32) -> np.float32:
    """float32 ``exp`` as TF's CPU kernel computes it: the C library's ``expf`` (NumPy's
    own float32 ``exp`` differs from it by an ulp on many inputs); without one, the
    double-precision ``exp`` rounded to float32."""
    if _LIBM_EXPF is not None:
        return np.float32(_LIBM_EXPF(float(x)))
    return np.float32(math.exp(float(x)))


def _greedy_host(
    similarity: np.ndarray,
    scores: np.ndarray,
    max_output_size: int,
    similarity_threshold: float,
    score_threshold: float,
    soft_nms_sigma: float,
) -> tuple[np.ndarray, np.ndarray]:
    """TF's greedy selection with its priority queue: ``(indices int32, scores)``.

    A candidate is compared with the boxes selected since it was last queued, newest
    first; hard NMS drops it above the threshold, soft NMS scales its score by
    ``exp(-0.5 / sigma * iou**2)`` and queues it again while above
    ``score_threshold``. The score arithmetic is in the scores' dtype.
    """
    if max_output_size < 0:
        raise errors.InvalidArgumentError(None, None, "output size must be non-negative")
    t = scores.dtype.type
    threshold, floor, sigma = t(similarity_threshold), t(score_threshold), t(soft_nms_sigma)
    soft = sigma > t(0.0)
    scale = t(-0.5) / sigma if soft else t(0.0)
    # (-score, index, score, suppress_begin_index): the queue's order is TF's comparator.
    queue = [(-float(s), i, s, 0) for i, s in enumerate(scores) if s > floor]
    heapq.heapify(queue)
    selected: list[int] = []
    selected_scores: list[Any] = []
    while len(selected) < max_output_size and queue:
        _, index, score, begin = heapq.heappop(queue)
        original = score
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = t(similarity[index, selected[j]])
            weight = t(_expf(np.float32(scale * sim * sim)))
            score = t(score * (weight if soft or sim <= threshold else t(0.0)))
            if not soft and sim > threshold:
                hard = True
                break
            if score <= floor:
                break
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > floor:
            heapq.heappush(queue, (-float(score), index, score, len(selected)))
    return np.asarray(selected, np.int32), np.asarray(selected_scores, scores.dtype)


# -- graph-construction checks (TF's shape functions) and folding ------------------------


def _rank(tensor: Any, rank: int, what: str, op_type: str) -> None:
    shape = tensor.get_shape()
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(
            f"Shape must be rank {rank} but is rank {shape.ndims} for '{op_type}' ({what})"
        )


def _check_boxes_scores(boxes: Any, scores: Any, op_type: str) -> None:
    _rank(boxes, 2, "boxes", op_type)
    _rank(scores, 1, "scores", op_type)
    b, s = boxes.get_shape().as_list(), scores.get_shape().as_list()
    if b[1] is not None and b[1] != 4:
        raise ValueError(f"Dimension must be 4 but is {b[1]} for '{op_type}' (boxes)")
    if b[0] is not None and s[0] is not None and b[0] != s[0]:
        raise ValueError(
            f"Dimensions must be equal, but are {b[0]} and {s[0]} for '{op_type}' "
            "(boxes and scores)"
        )


def _threshold_in_unit(value: float, what: str = "iou_threshold") -> None:
    """TF's kernel check (a run-time error in TF, raised here when the graph is built)."""
    if not (0.0 <= np.float32(value) <= 1.0):
        raise errors.InvalidArgumentError(None, None, f"{what} must be in [0, 1]")


def _constants(name: str, **tensors: Any) -> dict[str, np.ndarray]:
    """The values of constant tensors; a computed one raises ``NotImplementedError``."""
    values = {}
    for param, tensor in tensors.items():
        value = tensor.op._const_value
        if value is None:
            raise NotImplementedError(
                f"tf.image.{name}: {param} is the computed tensor {tensor.name}; the number of "
                "selected boxes depends on the values, a data-dependent shape which jtrain's "
                "static programs cannot hold (it works on constants). Use "
                "tf.image.non_max_suppression_padded(..., pad_to_max_output_size=True), "
                "whose output has max_output_size entries and a count of the valid ones."
            )
        values[param] = np.asarray(value, np_dtype(tensor.dtype))
    return values


def _scalar_int(name: str, value: Any) -> int:
    """``max_output_size``: a Python int or a constant scalar tensor."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        tensor = ops.convert_to_tensor(value)
        _rank(tensor, 0, "max_output_size", name)
        return int(_constants(name, max_output_size=tensor)["max_output_size"])
    array = np.asarray(value)
    if array.ndim != 0:
        raise ValueError(
            f"Shape must be rank 0 but is rank {array.ndim} for '{name}' (max_output_size)"
        )
    return int(array)


def _scalar_float(name: str, param: str, value: Any) -> float:
    """A threshold: a Python number or a constant scalar tensor."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        tensor = ops.convert_to_tensor(value)
        _rank(tensor, 0, param, name)
        return float(_constants(name, **{param: tensor})[param])
    return float(value)


def _float_dtype(value: Any) -> str:
    """The dtype TF converts a threshold to: a tensor's own, a Python number's float32."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        return np_dtype(ops.convert_to_tensor(value).dtype).name
    return "float32"


def _is_tensor(value: Any) -> bool:
    return isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")


def _as_float32(value: Any) -> Any:
    """A value that is no tensor as TF converts it to a float32 input (a NumPy array of
    any number type is cast); a tensor unchanged."""
    return value if _is_tensor(value) else np.asarray(value).astype(np.float32)


def _as_float_tensor(value: Any, param: str, op_type: str) -> Any:
    tensor = ops.convert_to_tensor(value)
    dtype = np_dtype(tensor.dtype).name
    if dtype not in _FLOAT_TYPES:
        raise TypeError(
            f"Value passed to parameter '{param}' has DataType {dtype} not in list of "
            f"allowed values: {', '.join(_FLOAT_TYPES)}"
        )
    return tensor


def _folded(
    name: str | None, default_name: str, op_type: str, outputs: tuple[np.ndarray, ...]
) -> tuple[Any, ...]:
    """The selection computed when the graph was built, as tensors whose static shape
    leaves the data-dependent size unknown (``[None]``), as TF's."""
    from adapters.v1.ops.array_ops import placeholder_with_default
    from adapters.v1.ops.constant_op import constant

    with ops.name_scope(name, default_name):
        return tuple(
            placeholder_with_default(constant(o), [None] * o.ndim, name=op_type)
            if o.ndim
            else constant(o)
            for o in outputs
        )


def _register(name: str, function: Callable[..., Any], op_type: str) -> Any:
    """Enters ``function`` (TF's public function, folding constants) in the op table under
    ``image.<name>``: the entry records TF's op type and signature."""
    lifted = define(f"image.{name}", op_type, function, tensors=())
    function._op_def = lifted._op_def
    FUNCTIONS[f"image.{name}"] = function
    return function


# -- non_max_suppression, _with_scores, _overlaps ----------------------------------------


def non_max_suppression(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: float = 0.5,
    score_threshold: float = float("-inf"),
    name: str | None = None,
) -> Any:
    """Greedy non-max suppression (``tf.image.non_max_suppression``, op ``NonMaxSuppressionV3``).

    Args:
      boxes: ``[num_boxes, 4]`` float32/float16 ``[y1, x1, y2, x2]`` (any diagonal pair
        of corners), a constant (see the module docstring).
      scores: ``[num_boxes]`` scores, the dtype of ``boxes``.
      max_output_size: the most boxes selected (int or constant int32 scalar).
      iou_threshold: a box overlapping a selected one by more is dropped (default 0.5).
      score_threshold: boxes scoring at most this are never selected (default -inf).
      name: the name scope (default ``"non_max_suppression"``).

    Returns:
      int32 ``[M]`` indices of the selected boxes, by descending score (``M <=
      max_output_size``; static shape ``[None]`` as TF's).

    Raises:
      ValueError: bad ranks or sizes (TF's shape function).
      InvalidArgumentError: ``iou_threshold`` outside ``[0, 1]``, a negative
        ``max_output_size`` (TF raises them when run; jtrain when the graph is built).
      NotImplementedError: ``boxes`` or ``scores`` computed in the graph.
    """
    return _greedy_op(
        "non_max_suppression",
        "NonMaxSuppressionV3",
        boxes,
        scores,
        max_output_size,
        iou_threshold,
        score_threshold,
        0.0,
        name,
    )[0]


def non_max_suppression_with_scores(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: float = 0.5,
    score_threshold: float = float("-inf"),
    soft_nms_sigma: float = 0.0,
    name: str | None = None,
) -> tuple[Any, Any]:
    """Greedy or soft non-max suppression with the selected scores (op ``NonMaxSuppressionV5``).

    With ``soft_nms_sigma > 0`` (Bodla et al.) a candidate's score is multiplied by
    ``exp(-0.5 * iou**2 / soft_nms_sigma)`` for each selected box instead of being
    dropped, and the candidate queued again while above ``score_threshold``.

    Args:
      boxes: ``[num_boxes, 4]`` float32/float16 boxes, a constant.
      scores: ``[num_boxes]`` scores, the dtype of ``boxes``.
      max_output_size: the most boxes selected.
      iou_threshold: hard NMS's threshold (default 0.5; unused by soft NMS).
      score_threshold: scores at most this are dropped (default -inf).
      soft_nms_sigma: soft NMS's sigma (default 0.0: hard NMS).
      name: the name scope (default ``"non_max_suppression_with_scores"``).

    Returns:
      ``(selected_indices int32 [M], selected_scores [M])``, the scores after soft NMS.

    Raises:
      InvalidArgumentError: a negative ``soft_nms_sigma``; otherwise as
        ``non_max_suppression``.
    """
    return _greedy_op(
        "non_max_suppression_with_scores",
        "NonMaxSuppressionV5",
        boxes,
        scores,
        max_output_size,
        iou_threshold,
        score_threshold,
        soft_nms_sigma,
        name,
    )


def _greedy_op(
    public: str,
    op_type: str,
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: Any,
    score_threshold: Any,
    soft_nms_sigma: Any,
    name: str | None,
) -> tuple[Any, Any]:
    if not _is_tensor(boxes):
        # TF converts a value that is no tensor to the op's default type, float32
        # (float16 stays), and then ``scores`` that is no tensor to the boxes' dtype.
        array = np.asarray(boxes)
        boxes = array if array.dtype == np.float16 else array.astype(np.float32)
    boxes = _as_float_tensor(boxes, "boxes", op_type)
    if not _is_tensor(scores):
        scores = np.asarray(scores).astype(np_dtype(boxes.dtype))
    scores = ops.convert_to_tensor(scores)
    if scores.dtype != boxes.dtype:
        raise TypeError(
            f"Input 'scores' of '{op_type}' Op has type {np_dtype(scores.dtype).name} that "
            f"does not match type {np_dtype(boxes.dtype).name} of argument 'boxes'."
        )
    _check_boxes_scores(boxes, scores, op_type)
    if op_type == "NonMaxSuppressionV5":  # its thresholds are of the boxes' dtype
        for param, value in (
            ("iou_threshold", iou_threshold),
            ("score_threshold", score_threshold),
            ("soft_nms_sigma", soft_nms_sigma),
        ):
            dtype = _float_dtype(value)
            if dtype != np_dtype(boxes.dtype).name:
                raise TypeError(
                    f"Input '{param}' of '{op_type}' Op has type {dtype} that does not match "
                    f"type {np_dtype(boxes.dtype).name} of argument 'boxes'."
                )
    size = _scalar_int(op_type, max_output_size)
    iou = _scalar_float(op_type, "iou_threshold", iou_threshold)
    floor = _scalar_float(op_type, "score_threshold", score_threshold)
    sigma = _scalar_float(op_type, "soft_nms_sigma", soft_nms_sigma)
    values = _constants(public, boxes=boxes, scores=scores)
    _threshold_in_unit(iou)
    if sigma < 0:
        raise errors.InvalidArgumentError(None, None, "soft_nms_sigma_val must be >= 0")
    t = values["scores"].dtype.type
    selected, selected_scores = _greedy_host(
        _iou_matrix(np, values["boxes"]),
        values["scores"],
        size,
        float(t(np.float32(iou))),
        float(t(np.float32(floor))),
        float(t(np.float32(sigma))),
    )
    return _folded(name, public, op_type, (selected, selected_scores))


def non_max_suppression_overlaps(
    overlaps: Any,
    scores: Any,
    max_output_size: Any,
    overlap_threshold: float = 0.5,
    score_threshold: float = float("-inf"),
    name: str | None = None,
) -> Any:
    """Greedy non-max suppression over given overlaps (op ``NonMaxSuppressionWithOverlaps``).

    Args:
      overlaps: float32 ``[num_boxes, num_boxes]``, ``overlaps[i, j]`` the similarity
        of box ``i`` (candidate) to box ``j`` (selected), a constant.
      scores: float32 ``[num_boxes]``.
      max_output_size: the most boxes selected.
      overlap_threshold: a candidate overlapping a selected box by more is dropped
        (default 0.5; any value, no ``[0, 1]`` check, as TF).
      score_threshold: scores at most this are dropped (default -inf).
      name: the name scope (default ``"non_max_suppression_overlaps"``).

    Returns:
      int32 ``[M]`` selected indices, by descending score.

    Raises:
      ValueError: bad ranks (TF's shape function); NotImplementedError: computed inputs.
    """
    op_type = "NonMaxSuppressionWithOverlaps"
    # TF converts a value that is no tensor to the input's float32 (NumPy float64 too)
    overlaps = ops.convert_to_tensor(_as_float32(overlaps))
    scores = ops.convert_to_tensor(_as_float32(scores))
    for param, tensor in (("overlaps", overlaps), ("scores", scores)):
        dtype = np_dtype(tensor.dtype).name
        if dtype != "float32":
            raise TypeError(
                f"Input '{param}' of '{op_type}' Op has type {dtype} that does not match "
                "expected type of float32."
            )
    _rank(overlaps, 2, "overlaps", op_type)
    _rank(scores, 1, "scores", op_type)
    size = _scalar_int(op_type, max_output_size)
    threshold = _scalar_float(op_type, "overlap_threshold", overlap_threshold)
    floor = _scalar_float(op_type, "score_threshold", score_threshold)
    values = _constants("non_max_suppression_overlaps", overlaps=overlaps, scores=scores)
    n = values["overlaps"].shape
    if n[0] != n[1]:
        raise errors.InvalidArgumentError(None, None, f"overlaps must be square[{n[0]},{n[1]}]")
    if values["scores"].shape[0] != n[0]:
        raise errors.InvalidArgumentError(
            None,
            None,
            "scores has incompatible shape (Dimensions must be equal, but are "
            f"{n[0]} and {values['scores'].shape[0]})",
        )
    selected, _ = _greedy_host(
        values["overlaps"],
        values["scores"],
        size,
        float(np.float32(threshold)),
        float(np.float32(floor)),
        0.0,
    )
    return _folded(name, "non_max_suppression_overlaps", op_type, (selected,))[0]


_register("non_max_suppression", non_max_suppression, "NonMaxSuppressionV3")
_register(
    "non_max_suppression_with_scores",
    non_max_suppression_with_scores,
    "NonMaxSuppressionV5",
)
_register(
    "non_max_suppression_overlaps",
    non_max_suppression_overlaps,
    "NonMaxSuppressionWithOverlaps",
)


# -- non_max_suppression_padded (TF 2's tiled algorithm) ---------------------------------


def _bbox_overlap(a: jax.Array, b: jax.Array) -> jax.Array:
    """TF's ``_bbox_overlap``: ``[batch, n, 4] x [batch, m, 4] -> [batch, n, m]`` IoU of
    canonical boxes, ``i / (a + b - i + 1e-8)`` in float32."""
    ay0, ax0, ay1, ax1 = (a[..., k : k + 1] for k in range(4))
    by0, bx0, by1, bx1 = (jnp.swapaxes(b[..., k : k + 1], 1, 2) for k in range(4))
    zero = np.float32(0.0)
    inter = jnp.maximum(jnp.minimum(ax1, bx1) - jnp.maximum(ax0, bx0), zero) * jnp.maximum(
        jnp.minimum(ay1, by1) - jnp.maximum(ay0, by0), zero
    )
    area_a = (ay1 - ay0) * (ax1 - ax0)
    area_b = (by1 - by0) * (bx1 - bx0)
    return inter / (area_a + area_b - inter + np.float32(1e-8))


def _tile_body(boxes: jax.Array, threshold: Any, count: jax.Array, idx: Any, tile: int):
    """One tile: suppressed by the earlier tiles, then by itself until nothing changes."""
    batch, total, _ = boxes.shape
    tiles = total // tile
    start = idx * tile
    box_slice = jax.lax.dynamic_slice_in_dim(boxes, start, tile, axis=1)

    def cross(inner: Any, box_slice: jax.Array) -> jax.Array:
        other = jax.lax.dynamic_slice_in_dim(boxes, inner * tile, tile, axis=1)
        keep = jnp.all(_bbox_overlap(other, box_slice) < threshold, axis=1)
        return keep[..., None].astype(box_slice.dtype) * box_slice

    box_slice = jax.lax.fori_loop(0, idx, cross, box_slice)
    iou = _bbox_overlap(box_slice, box_slice)
    upper = jnp.arange(tile)[None, :] > jnp.arange(tile)[:, None]
    iou = iou * (upper[None] & (iou >= threshold)).astype(iou.dtype)

    def self_cond(state: tuple) -> Any:
        return state[1]

    def self_body(state: tuple) -> tuple:
        iou, _, iou_sum = state
        free = (jnp.max(iou, axis=1) < threshold).astype(iou.dtype)[..., None]
        kept = (jnp.max(free * iou, axis=1) < threshold).astype(iou.dtype)[..., None]
        iou = kept * iou
        new_sum = jnp.sum(iou, axis=(1, 2))
        return iou, jnp.any(iou_sum - new_sum > threshold), new_sum

    iou, _, _ = jax.lax.while_loop(
        self_cond, self_body, (iou, jnp.asarray(True), jnp.sum(iou, axis=(1, 2)))
    )
    suppressed = jnp.sum(iou, axis=1) > 0
    box_slice = box_slice * (1.0 - suppressed.astype(box_slice.dtype))[..., None]
    mask = (jnp.arange(tiles) == idx).astype(boxes.dtype).reshape(1, -1, 1, 1)
    boxes = jnp.tile(box_slice[:, None], (1, tiles, 1, 1)) * mask + boxes.reshape(
        batch, tiles, tile, 4
    ) * (1 - mask)
    boxes = boxes.reshape(batch, -1, 4)
    count = count + jnp.sum(jnp.any(box_slice > 0, axis=2), axis=1, dtype=np.int32)
    return boxes, count


def _padded_v2(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    sorted_input=False,
    canonicalized_coordinates=False,
    tile_size=512,
):
    """TF's ``non_max_suppression_padded_v2``: ``(idx [batch..., max_output_size] int32,
    num_valid [batch...] int32)``."""
    batch_dims = boxes.shape[:-2]
    n = boxes.shape[-2]
    size = int(max_output_size)
    score_threshold = float(score_threshold)
    boxes = boxes.reshape(-1, n, 4)
    scores = scores.reshape(-1, n)
    batch = boxes.shape[0]
    if score_threshold != float("-inf"):
        keep = (scores > jnp.asarray(score_threshold, scores.dtype)).astype(scores.dtype)
        scores = scores * keep
        boxes = boxes * keep.astype(boxes.dtype)[..., None]
    if not canonicalized_coordinates:
        y1, x1, y2, x2 = (boxes[..., k : k + 1] for k in range(4))
        y_first = y1[0, 0, 0] <= y2[0, 0, 0]
        x_first = x1[0, 0, 0] <= x2[0, 0, 0]
        boxes = jnp.concatenate(
            [
                jnp.where(y_first, y1, y2),
                jnp.where(x_first, x1, x2),
                jnp.where(y_first, y2, y1),
                jnp.where(x_first, x2, x1),
            ],
            axis=2,
        )
    if not sorted_input:
        # TF's argsort DESCENDING: top_k, ties to the lower index.
        _, order = jax.lax.top_k(scores, n)
        scores = jnp.take_along_axis(scores, order, axis=1)
        boxes = jnp.take_along_axis(boxes, order[..., None], axis=1)
    else:
        order = jnp.zeros(scores.shape, np.int32)
    padded = int(math.ceil(np.float32(max(n, size)) / np.float32(tile_size))) * tile_size
    boxes = jnp.pad(boxes.astype(np.float32), ((0, 0), (0, padded - n), (0, 0)))
    iterations = padded // tile_size
    threshold = jnp.asarray(iou_threshold, np.float32)

    def cond(state: tuple) -> Any:
        _, count, idx = state
        return (jnp.min(count) < size) & (idx < iterations)

    def body(state: tuple) -> tuple:
        boxes, count, idx = state
        boxes, count = _tile_body(boxes, threshold, count, idx, tile_size)
        return boxes, count, idx + 1

    boxes, count, _ = jax.lax.while_loop(
        cond, body, (boxes, jnp.zeros((batch,), np.int32), jnp.asarray(0, np.int32))
    )
    num_valid = jnp.minimum(count, size)
    chosen = jnp.any(boxes > 0, axis=2).astype(np.int32) * jnp.arange(padded, 0, -1, dtype=np.int32)
    idx = padded - jax.lax.top_k(chosen, size)[0]
    idx = jnp.minimum(idx, n - 1)
    if not sorted_input:
        idx = jnp.take_along_axis(order.astype(np.int32), idx, axis=1)
    idx = jnp.where(jnp.arange(size)[None, :] < num_valid[:, None], idx, 0)
    return idx.reshape((*batch_dims, size)), num_valid.reshape(batch_dims)


def _check_padded(args: dict[str, Any]) -> None:
    boxes = args["boxes"]
    if boxes.get_shape().ndims is not None and boxes.get_shape().ndims < 2:
        raise ValueError(f"'boxes' (shape {boxes.get_shape()}) must be at least 2-D")


_padded_entry = define(
    "_internal.image.non_max_suppression_padded_v2",  # not a public TF name
    "NonMaxSuppressionPaddedV2",
    _padded_v2,
    params="boxes, scores, max_output_size, iou_threshold=0.5, score_threshold='-inf', "
    "sorted_input=False, canonicalized_coordinates=False, tile_size=512, name=None",
    tensors="boxes scores",
    same_dtype=(),
    allowed={"boxes": _FLOAT_TYPES, "scores": _FLOAT_TYPES},
    default_name="non_max_suppression_padded_v2",
    check=_check_padded,
)


class _Padded(NamedTuple):
    selected_indices: Any
    valid_outputs: Any


def non_max_suppression_padded(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: float = 0.5,
    score_threshold: float = float("-inf"),
    pad_to_max_output_size: bool = False,
    name: str | None = None,
    sorted_input: bool = False,
    canonicalized_coordinates: bool = False,
    tile_size: int = 512,
) -> tuple[Any, Any]:
    """Non-max suppression padded to ``max_output_size`` (TF 2's tiled algorithm).

    TF's ``non_max_suppression_padded_v2``: boxes are sorted by descending score
    (unless ``sorted_input``), cut into tiles of ``tile_size`` and each tile is
    suppressed by the earlier tiles' surviving boxes and then by itself, IoU
    ``i / (u + 1e-8)`` of canonical boxes.

    .. note:: TF's algorithm is not ``non_max_suppression``'s. Coordinates are
       canonicalized by the first box's corner order only (not box by box);
       boxes scoring at most ``score_threshold`` are zeroed, and a box whose four
       coordinates are all ``<= 0`` is never selected. jtrain reproduces all of it.

    Args:
      boxes: ``[..., num_boxes, 4]`` boxes (leading dimensions: a batch).
      scores: ``[..., num_boxes]`` scores.
      max_output_size: the most boxes selected (known when the step is compiled).
      iou_threshold: the IoU above which a box is suppressed (default 0.5).
      score_threshold: scores at most this are dropped (default -inf).
      pad_to_max_output_size: pad the indices to ``max_output_size`` (default False:
        the valid indices only, for one image of constant inputs).
      name: the name scope (default ``"non_max_suppression_padded"``).
      sorted_input: the boxes come sorted by descending score (default False).
      canonicalized_coordinates: boxes are ``[y_min, x_min, y_max, x_max]`` (False).
      tile_size: boxes per tile (default 512).

    Returns:
      ``(selected_indices int32 [..., max_output_size] (or ``[M]``), valid_outputs
      int32 [...])``; padding indices are 0.

    Raises:
      ValueError: ``pad_to_max_output_size=False`` with batched boxes (TF's message).
      NotImplementedError: ``pad_to_max_output_size=False`` with computed inputs (a
        data-dependent shape).
    """
    with ops.name_scope(name, "non_max_suppression_padded"):
        boxes = ops.convert_to_tensor(boxes)
        scores = ops.convert_to_tensor(scores)
        rank = boxes.get_shape().ndims
        if not pad_to_max_output_size and rank is not None and rank > 2:
            raise ValueError(
                f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be True for "
                "batched input"
            )
        if pad_to_max_output_size:
            idx, num_valid = _padded_entry(
                boxes,
                scores,
                max_output_size,
                iou_threshold,
                score_threshold,
                sorted_input,
                canonicalized_coordinates,
                tile_size,
            )
            return _Padded(idx, num_valid)
        public = "non_max_suppression_padded"
        values = _constants(public, boxes=boxes, scores=scores)
        with jax.default_device(jax.devices("cpu")[0]):
            all_idx, count = _padded_v2(
                jnp.asarray(values["boxes"]),
                jnp.asarray(values["scores"]),
                _scalar_int(public, max_output_size),
                _scalar_float(public, "iou_threshold", iou_threshold),
                _scalar_float(public, "score_threshold", score_threshold),
                sorted_input,
                canonicalized_coordinates,
                tile_size,
            )
        count = np.asarray(count, np.int32)
        valid = np.asarray(all_idx, np.int32)[..., : int(count)]
        return _Padded(*_folded(None, public, "NonMaxSuppressionPadded", (valid, count)))


_register(
    "non_max_suppression_padded",
    non_max_suppression_padded,
    "NonMaxSuppressionPadded",
)


# -- combined_non_max_suppression --------------------------------------------------------


def _greedy_device(
    iou: jax.Array, scores: jax.Array, size: int, iou_threshold: Any, score_threshold: Any
) -> jax.Array:
    """Hard greedy selection in the step: ``[size]`` selected indices (-1 padded), by
    descending score, ties to the lower index."""
    n = scores.shape[0]
    candidate = scores > score_threshold
    key = -jnp.where(candidate, scores, -jnp.inf) + np.float32(0.0)  # (-0.0 ties 0.0)
    order = jnp.argsort(key, stable=True).astype(np.int32)

    def body(k: Any, state: tuple) -> tuple:
        keep, count, slots = state
        c = order[k]
        ok = candidate[c] & (count < size) & ~jnp.any(keep & (iou[c] > iou_threshold))
        slots = slots.at[jnp.where(ok, count, size)].set(c, mode="drop")
        return keep.at[c].set(keep[c] | ok), count + ok.astype(np.int32), slots

    state = (jnp.zeros((n,), bool), jnp.asarray(0, np.int32), jnp.full((size,), -1, np.int32))
    return jax.lax.fori_loop(0, n, body, state)[2]


_no_gradient = without_gradient("CombinedNonMaxSuppression")  # TF registers none


def _combined(
    boxes,
    scores,
    max_output_size_per_class,
    max_total_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    pad_per_class=False,
    clip_boxes=True,
):
    boxes, scores = _no_gradient(boxes), _no_gradient(scores)
    batch, n, q, _ = boxes.shape
    classes = scores.shape[2]
    per_class = int(max_output_size_per_class)
    total = int(max_total_size)
    size = min(per_class, n)
    per_batch = min(total, per_class * classes) if pad_per_class else total
    iou_t = np.float32(iou_threshold)
    score_t = np.float32(float(score_threshold))

    def one_class(class_boxes: jax.Array, class_scores: jax.Array) -> jax.Array:
        iou = _iou_matrix(jnp, class_boxes)
        return _greedy_device(iou, class_scores, size, iou_t, score_t)

    # [batch, classes, n, 4] boxes of each class, [batch, classes, n] scores
    class_boxes = jnp.broadcast_to(
        jnp.moveaxis(boxes, 2, 1), (batch, classes, n, 4) if q == 1 else (batch, q, n, 4)
    )
    class_scores = jnp.moveaxis(scores, 2, 1)
    slots = jax.vmap(jax.vmap(one_class))(class_boxes, class_scores)  # [batch, classes, size]
    valid = slots >= 0
    safe = jnp.maximum(slots, 0)
    slot_scores = jnp.where(valid, jnp.take_along_axis(class_scores, safe, axis=2), -jnp.inf)
    slot_boxes = jnp.take_along_axis(class_boxes, safe[..., None], axis=2)
    slot_classes = jnp.broadcast_to(
        jnp.arange(classes, dtype=np.float32)[None, :, None], slots.shape
    )
    flat = batch, classes * size
    slot_scores, slot_classes = slot_scores.reshape(flat), slot_classes.reshape(flat)
    slot_boxes = slot_boxes.reshape((*flat, 4))
    order = jnp.argsort(-slot_scores, axis=1, stable=True)
    if classes * size < per_batch:
        extra = per_batch - classes * size
        order = jnp.pad(order, ((0, 0), (0, extra)))
    order = order[:, :per_batch]
    detections = jnp.minimum(jnp.sum(valid.reshape(flat), axis=1, dtype=np.int32), per_batch)
    shown = jnp.arange(per_batch)[None, :] < detections[:, None]
    out_boxes = jnp.take_along_axis(slot_boxes, order[..., None], axis=1)
    if clip_boxes:
        out_boxes = jnp.maximum(jnp.minimum(out_boxes, np.float32(1.0)), np.float32(0.0))
    zero = np.float32(0.0)
    out_boxes = jnp.where(shown[..., None], out_boxes, zero)
    out_scores = jnp.where(shown, jnp.take_along_axis(slot_scores, order, axis=1), zero)
    out_classes = jnp.where(shown, jnp.take_along_axis(slot_classes, order, axis=1), zero)
    return CombinedNonMaxSuppression(out_boxes, out_scores, out_classes, detections)


class CombinedNonMaxSuppression(NamedTuple):
    """``tf.image.combined_non_max_suppression``'s result."""

    nmsed_boxes: Any
    nmsed_scores: Any
    nmsed_classes: Any
    valid_detections: Any


def _check_combined(args: dict[str, Any]) -> None:
    op = "CombinedNonMaxSuppression"
    boxes, scores = args["boxes"], args["scores"]
    _rank(boxes, 4, "boxes", op)
    _rank(scores, 3, "scores", op)
    b, s = boxes.get_shape().as_list(), scores.get_shape().as_list()
    if b[3] is not None and b[3] != 4:
        raise ValueError(f"Dimension must be 4 but is {b[3]} for '{op}' (boxes)")
    if b[2] is not None and s[2] is not None and b[2] not in (1, s[2]):
        raise ValueError(
            "third dimension of boxes must be either 1 or equal to the third dimension of scores"
        )
    for param in ("max_output_size_per_class", "max_total_size"):
        if isinstance(args[param], ops.Tensor):
            return  # computed in the graph: known when the step is compiled
        if np.ndim(args[param]) != 0:
            raise ValueError(
                f"Shape must be rank 0 but is rank {np.ndim(args[param])} for '{op}' ({param})"
            )
    if int(args["max_output_size_per_class"]) < 0:
        raise ValueError(
            "Dimension size, given by scalar input 2, must be non-negative but is "
            f"{int(args['max_output_size_per_class'])} for '{op}'"
        )
    if int(args["max_total_size"]) <= 0:
        raise ValueError(f"max_total_size should be > 0  for '{op}'")
    if int(args["max_output_size_per_class"]) == 0:  # TF's kernel, when run
        raise errors.InvalidArgumentError(None, None, "max_size_per_class must be positive")
    _threshold_in_unit(float(args["iou_threshold"]))


_combined_entry = define(
    "image.combined_non_max_suppression",
    "CombinedNonMaxSuppression",
    _combined,
    params="boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5, "
    "score_threshold='-inf', pad_per_class=False, clip_boxes=True, name=None",
    tensors="boxes scores",
    allowed=("float32",),
    default_name="combined_non_max_suppression",
    check=_check_combined,
    tf_gradient="",
)


def _float_defaults(function: Any) -> None:
    """The table's signature holds ``'-inf'`` (its parser takes literals); the public
    function shows TF's ``float('-inf')``."""
    signature = function._op_def.signature
    params = [
        p.replace(default=float("-inf")) if p.default == "-inf" else p
        for p in signature.parameters.values()
    ]
    function.__signature__ = signature.replace(parameters=params)


_float_defaults(_combined_entry)


@functools.wraps(_combined_entry)  # its name, signature, docstring and ``_op_def``
def combined_non_max_suppression(boxes: Any, scores: Any, *args: Any, **kwargs: Any) -> Any:
    # TF converts ``boxes``/``scores`` that are no tensors to their float32 (NumPy
    # float64 too)
    return _combined_entry(_as_float32(boxes), _as_float32(scores), *args, **kwargs)


FUNCTIONS["image.combined_non_max_suppression"] = combined_non_max_suppression
