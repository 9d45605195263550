"""``tf.image``'s non-max suppression family, checked live against TF 2.21 (``twin.py``):
selected indices and scores bit for bit, dtypes, static shapes and TF's errors.

Before ``adapters/v1/ops/non_max_suppression_ops.py`` every name here raised
``AttributeError`` in ``adapters.v1``.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.bits import ulps_apart
from tests.interop.twin import assert_twins, run_both, run_once, tf1

pytestmark = pytest.mark.interop


def _boxes(seed: int, n: int, spread: float = 3.0, flip: bool = True) -> np.ndarray:
    """Random overlapping boxes, some with flipped corners and some empty."""
    rng = np.random.RandomState(seed)
    y, x = rng.uniform(0, spread, (2, n))
    h, w = rng.uniform(0.2, 1.5, (2, n))
    boxes = np.stack([y, x, y + h, x + w], 1).astype(np.float32)
    if flip:
        boxes[::3] = boxes[::3][:, [2, 3, 0, 1]]  # (y2, x2, y1, x1)
        boxes[1::5] = boxes[1::5][:, [0, 3, 2, 1]]  # x flipped only
    boxes[4::7, 2] = boxes[4::7, 0]  # zero height: IoU 0 with everything
    return boxes


def _scores(seed: int, n: int, ties: bool = True) -> np.ndarray:
    rng = np.random.RandomState(seed + 100)
    scores = rng.uniform(0, 1, n).astype(np.float32)
    if ties:
        scores = np.round(scores * 4) / 4  # many equal scores: ties go to the lower index
    return scores.astype(np.float32)


def _exact(theirs, ours):
    assert_twins(theirs, ours, rtol=0.0, atol=0.0)


# Boxes whose float32 IoU is exactly 0.5 with box 0 (kept at threshold 0.5: TF drops
# only above it), and one a hair above.
AT_THRESHOLD = np.array(
    [[0, 0, 1, 1], [0, 0, 1, 2], [1, 0, 0, 1.0000001], [0, 0.5, 1, 1.5], [0, 0, 2, 1]],
    np.float32,
)


@pytest.mark.parametrize(
    "seed, n, max_out, iou, score",
    [
        (0, 12, 5, 0.5, float("-inf")),
        (1, 30, 30, 0.3, float("-inf")),
        (2, 30, 10, 0.7, 0.4),
        (3, 20, 0, 0.5, float("-inf")),
        (4, 25, 25, 0.0, float("-inf")),
        (5, 25, 25, 1.0, 0.5),
    ],
)
def test_non_max_suppression_matches_tf(seed, n, max_out, iou, score):
    boxes, scores = _boxes(seed, n), _scores(seed, n)

    def script(tf):
        out = [
            tf.image.non_max_suppression(boxes, scores, max_out, iou, score),
            tf.image.non_max_suppression(
                tf.constant(boxes), tf.constant(scores), tf.constant(max_out), iou, score
            ),
        ]
        shapes = [o.shape.as_list() for o in out]
        return lambda sess: (sess.run(out), shapes)

    theirs, ours = run_both(script)
    _exact(theirs, ours)
    assert ours[1] == [[None], [None]]


@pytest.mark.parametrize("iou", [0.5, 0.49999997, 0.0])
def test_iou_ties_at_the_threshold_match_tf(iou):
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5], np.float32)

    def script(tf):
        out = tf.image.non_max_suppression(AT_THRESHOLD, scores, 5, iou)
        return lambda sess: sess.run(out)

    _exact(*run_both(script))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize(
    "sigma, score", [(0.0, float("-inf")), (0.5, 0.0), (0.1, 0.2), (1.0, 0.05)]
)
def test_non_max_suppression_with_scores_soft_nms_matches_tf(dtype, sigma, score):
    boxes, scores = _boxes(7, 24).astype(dtype), _scores(7, 24, ties=False).astype(dtype)

    def script(tf):
        # (V5's thresholds take the boxes' dtype: Python floats are float32 tensors)
        iou_t, score_t, sigma_t = (tf.constant(v, dtype) for v in (0.5, score, sigma))
        out = tf.image.non_max_suppression_with_scores(
            boxes, scores, 20, iou_t, score_t, soft_nms_sigma=sigma_t
        )
        shapes = [o.shape.as_list() for o in out]
        return lambda sess: (sess.run(list(out)), shapes)

    _exact(*run_both(script))


def test_with_scores_of_float16_boxes_and_python_thresholds_is_tfs_type_error():
    boxes, scores = _boxes(7, 4).astype(np.float16), _scores(7, 4).astype(np.float16)
    _raises(
        lambda tf: tf.image.non_max_suppression_with_scores(boxes, scores, 2),
        TypeError,
        "Input 'iou_threshold' of 'NonMaxSuppressionV5' Op has type float32 that does not "
        "match type float16 of argument 'boxes'",
    )


def test_non_max_suppression_overlaps_matches_tf():
    rng = np.random.RandomState(3)
    overlaps = rng.uniform(0, 1, (15, 15)).astype(np.float32)
    scores = _scores(3, 15)

    def script(tf):
        out = [
            tf.image.non_max_suppression_overlaps(overlaps, scores, 15),
            tf.image.non_max_suppression_overlaps(overlaps, scores, 4, 0.8, 0.3),
            tf.image.non_max_suppression_overlaps(overlaps, scores, 15, overlap_threshold=1.5),
        ]
        return lambda sess: sess.run(out)

    _exact(*run_both(script))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"score_threshold": 0.3},
        {"tile_size": 4},
        {"tile_size": 3, "iou_threshold": 0.3},
        {"sorted_input": True},
        {"canonicalized_coordinates": True},
    ],
)
def test_non_max_suppression_padded_matches_tf(kwargs):
    boxes = np.stack([_boxes(11, 14, flip=False), _boxes(12, 14, flip=False)])
    boxes[1] = boxes[1][:, [2, 3, 0, 1]]  # the second image's corners flipped
    scores = np.stack([_scores(11, 14, ties=False), _scores(12, 14)])
    if kwargs.get("sorted_input"):
        order = np.argsort(-scores, axis=1, kind="stable")
        scores = np.take_along_axis(scores, order, 1)
        boxes = np.take_along_axis(boxes, order[..., None], 1)

    def script(tf):
        b = tf.placeholder(tf.float32, [2, 14, 4])
        s = tf.placeholder(tf.float32, [2, 14])
        batched = tf.image.non_max_suppression_padded(
            b, s, 6, pad_to_max_output_size=True, **kwargs
        )
        single = tf.image.non_max_suppression_padded(
            tf.constant(boxes[0]), scores[0], 20, pad_to_max_output_size=False, **kwargs
        )
        padded = tf.image.non_max_suppression_padded(
            tf.constant(boxes[1]), scores[1], 9, pad_to_max_output_size=True, **kwargs
        )
        out = [list(batched), list(single), list(padded)]
        shapes = [[t.shape.as_list() for t in o] for o in out]
        return lambda sess: (sess.run(out, {b: boxes, s: scores}), shapes)

    _exact(*run_both(script))


@pytest.mark.parametrize(
    "q, per_class, total, kwargs",
    [
        (1, 3, 5, {}),
        (3, 4, 20, {}),
        (3, 2, 4, {"pad_per_class": True}),
        (3, 2, 20, {"pad_per_class": True}),
        (1, 5, 8, {"clip_boxes": False, "score_threshold": 0.3, "iou_threshold": 0.3}),
    ],
)
def test_combined_non_max_suppression_matches_tf(q, per_class, total, kwargs):
    n, classes = 10, 3
    rng = np.random.RandomState(q * 10 + per_class)
    boxes = np.stack([_boxes(k, n * q, spread=1.0).reshape(n, q, 4) for k in range(2)])
    boxes = (boxes / 2.0 - 0.2).astype(np.float32)  # some coordinates outside [0, 1]
    # distinct scores (TF's priority queue and std::sort leave equal scores' order open)
    scores = rng.permutation(2 * n * classes).reshape(2, n, classes).astype(np.float32) / 60

    def script(tf):
        b = tf.placeholder(tf.float32, [2, n, q, 4])
        s = tf.placeholder(tf.float32, [2, n, classes])
        out = tf.image.combined_non_max_suppression(b, s, per_class, total, **kwargs)
        shapes = [t.shape.as_list() for t in out]
        return lambda sess: (sess.run(list(out), {b: boxes, s: scores}), shapes)

    _exact(*run_both(script))


def test_combined_non_max_suppression_has_no_gradient_as_tf():
    boxes = _boxes(0, 6, spread=1.0).reshape(1, 6, 1, 4) / 2
    scores = _scores(0, 6, ties=False).reshape(1, 6, 1)

    def script(tf):
        b = tf.constant(boxes)
        out = tf.image.combined_non_max_suppression(b, scores, 3, 3)
        grad = tf.gradients(tf.reduce_sum(out.nmsed_boxes), b)
        return lambda sess: sess.run(grad)

    for tf in (tf1, jtf):
        with pytest.raises(LookupError, match="No gradient defined for operation"):
            run_once(tf, script)


# -- TF's errors -------------------------------------------------------------------------


def _raises(build, error, match):
    """``build(tf)`` raises ``error`` (a class or the name of one of ``tf.errors``) under
    both (TF possibly only when run)."""
    for tf in (tf1, jtf):
        expected = getattr(tf.errors, error) if isinstance(error, str) else error

        def script(tf, build=build):
            out = build(tf)
            return lambda sess: sess.run(out)

        with pytest.raises(expected, match=match):
            run_once(tf, script)


BOXES, SCORES = _boxes(0, 6), _scores(0, 6)


@pytest.mark.parametrize(
    "build, error, match",
    [
        (
            lambda tf: tf.image.non_max_suppression(BOXES, SCORES, 3, 1.5),
            "InvalidArgumentError",
            r"iou_threshold must be in \[0, 1\]",
        ),
        (
            lambda tf: tf.image.non_max_suppression(BOXES, SCORES, -1),
            "InvalidArgumentError",
            "output size must be non-negative",
        ),
        (
            lambda tf: tf.image.non_max_suppression(BOXES[0], SCORES, 3),
            ValueError,
            "Shape must be rank 2 but is rank 1",
        ),
        (
            lambda tf: tf.image.non_max_suppression(BOXES[:, :3], SCORES, 3),
            ValueError,
            "Dimension must be 4 but is 3",
        ),
        (
            lambda tf: tf.image.non_max_suppression(BOXES, SCORES[:4], 3),
            ValueError,
            "Dimensions must be equal, but are 6 and 4",
        ),
        (
            lambda tf: tf.image.non_max_suppression_padded(
                tf.constant(BOXES[None]), SCORES[None], 3
            ),
            ValueError,
            r"'pad_to_max_output_size' \(value False\) must be True for batched input",
        ),
        (
            lambda tf: tf.image.combined_non_max_suppression(
                BOXES.reshape(1, 6, 1, 4), SCORES.reshape(1, 6, 1), 3, 3, iou_threshold=2.0
            ),
            "InvalidArgumentError",
            r"iou_threshold must be in \[0, 1\]",
        ),
        (
            lambda tf: tf.image.combined_non_max_suppression(
                BOXES.reshape(1, 6, 1, 4), SCORES.reshape(1, 6, 1), 3, 0
            ),
            ValueError,
            "max_total_size should be > 0",
        ),
        (
            lambda tf: tf.image.combined_non_max_suppression(
                BOXES.reshape(1, 6, 1, 4), SCORES.reshape(1, 6, 1), 0, 3
            ),
            "InvalidArgumentError",
            "max_size_per_class must be positive",
        ),
        (
            lambda tf: tf.image.combined_non_max_suppression(
                BOXES.reshape(1, 6, 1, 4), SCORES.reshape(1, 6, 1), -1, 3
            ),
            ValueError,
            "Dimension size, given by scalar input 2, must be non-negative but is -1",
        ),
    ],
)
def test_errors_match_tf(build, error, match):
    _raises(build, error, match)


def test_computed_inputs_of_the_unpadded_forms_raise_not_implemented():
    """TF returns a ``[None]`` result of a data-dependent size, which jtrain's static
    programs cannot hold: a clear error naming the padded form instead."""
    with jtf.Graph().as_default():
        b = jtf.placeholder(jtf.float32, [6, 4])
        for call in (
            lambda: jtf.image.non_max_suppression(b, SCORES, 3),
            lambda: jtf.image.non_max_suppression_with_scores(b, SCORES, 3),
            lambda: jtf.image.non_max_suppression_padded(b, SCORES, 3),
        ):
            with pytest.raises(NotImplementedError, match="pad_to_max_output_size=True"):
                call()


def test_non_max_suppression_of_float16_boxes_matches_tf():
    """V3's thresholds have their own dtype: float16 boxes take Python thresholds."""
    boxes, scores = _boxes(9, 30).astype(np.float16), _scores(9, 30).astype(np.float16)

    def script(tf):
        out = tf.image.non_max_suppression(boxes, scores, 12, 0.4, 0.25)
        return lambda sess: sess.run(out)

    _exact(*run_both(script))


# -- draw_bounding_boxes ------------------------------------------------------------------

DRAW_BOXES = np.array(
    [
        [[0, 0, 1, 1], [0.2, 0.3, 0.7, 0.9], [-0.5, 0.1, 0.4, 1.7], [0.9, 0.9, 0.1, 0.1]],
        [[0.5, -0.2, 1.4, 0.6], [1.2, 0, 1.5, 1], [0.33, 0.25, 0.34, 0.26], [0, 0, 0, 0]],
    ],
    np.float32,
)  # (inverted, outside and one-pixel boxes included)


@pytest.mark.parametrize("depth", [1, 3, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize(
    "colors",
    [None, np.array([[0.25, 0.5, 0.75, 1.0], [0.1, 0.2, 0.3, 0.4], [1, 1, 1, 1]], np.float32)],
)
def test_draw_bounding_boxes_matches_tf(depth, dtype, colors):
    images = np.random.RandomState(depth).uniform(0, 1, (2, 7, 9, depth)).astype(dtype)

    def script(tf):
        x = tf.placeholder(dtype, [2, 7, 9, depth])
        b = tf.placeholder(tf.float32, [2, 4, 4])
        out = tf.image.draw_bounding_boxes(x, b, colors=colors)
        # (DrawBoundingBoxes: not differentiable, None; V2, with colors: LookupError below)
        grad = tf.gradients(tf.reduce_sum(out), [x, b]) if colors is None else None
        return lambda sess: (
            sess.run(out, {x: images, b: DRAW_BOXES}),
            out.shape.as_list(),
            grad,
        )

    _exact(*run_both(script))


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
@pytest.mark.parametrize("tensor_boxes", [False, True])
def test_non_max_suppression_of_numpy_inputs_converts_as_tf(dtype, tensor_boxes):
    # NumPy boxes/scores (no tensors) are converted to the op's default type, float32
    # (float16 stays), scores to the boxes' dtype: jtrain refused float64 (TypeError).
    boxes = (_boxes(1, 6) * 4).astype(dtype)
    scores = _scores(1, 6).astype(np.float64)

    def script(tf):
        b = tf.constant(boxes.astype(np.float32)) if tensor_boxes else boxes
        out = [
            tf.image.non_max_suppression(b, scores, 4, 0.5),
            *tf.image.non_max_suppression_with_scores(b, scores, 4, 0.5, soft_nms_sigma=0.5),
        ]
        return lambda sess: (sess.run(out), [o.dtype.name for o in out])

    _exact(*run_both(script))


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_overlaps_combined_nms_and_glimpse_of_numpy_inputs_convert_as_tf(dtype):
    # float32 inputs: TF casts NumPy values of other types (jtrain raised TypeError)
    overlaps = (np.eye(4) * 0.5 + 0.25).astype(dtype)
    scores = np.array([3, 1, 2, 4]).astype(dtype)
    image = np.arange(2 * 5 * 6 * 2).reshape(2, 5, 6, 2).astype(dtype)
    offsets = np.array([[2, 2], [2, 3]]).astype(dtype)  # inside: no noise

    def script(tf):
        out = [
            tf.image.non_max_suppression_overlaps(overlaps, scores, 3, 0.4),
            tf.image.extract_glimpse(image, [3, 2], offsets, centered=False, normalized=False),
            *tf.image.combined_non_max_suppression(
                overlaps.reshape(1, 4, 1, 4), overlaps[:, :3].reshape(1, 4, 3), 2, 3
            ),
        ]
        return lambda sess: (sess.run(out), [o.dtype.name for o in out])

    _exact(*run_both(script))


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float64, np.float16, bool])
@pytest.mark.parametrize("colors", [None, np.ones((1, 3), np.float32)])
def test_draw_bounding_boxes_of_numpy_images_converts_as_tf(dtype, colors):
    # A NumPy image (no tensor) is converted to the op's default type, float32 (float16
    # stays): uint8 draws as float32 (jtrain drew a uint8 image before).
    images = (np.random.RandomState(3).uniform(0, 3, (2, 7, 9, 3))).astype(dtype)

    def script(tf):
        out = tf.image.draw_bounding_boxes(images, DRAW_BOXES, colors=colors)
        return lambda sess: (sess.run(out), out.dtype.name, out.shape.as_list())

    _exact(*run_both(script))


def test_draw_bounding_boxes_with_colors_has_no_gradient_as_tf():
    def build(tf):
        x = tf.constant(np.zeros((2, 5, 5, 3), np.float32))
        out = tf.image.draw_bounding_boxes(x, DRAW_BOXES, colors=np.ones((1, 3), np.float32))
        return tf.gradients(tf.reduce_sum(out), x)

    _raises(build, LookupError, "No gradient defined for operation")


@pytest.mark.parametrize(
    "build, error, match",
    [
        (
            lambda tf: tf.image.draw_bounding_boxes(np.zeros((5, 5, 3), np.float32), DRAW_BOXES),
            ValueError,
            "Shape must be rank 4 but is rank 3",
        ),
        (
            lambda tf: tf.image.draw_bounding_boxes(np.zeros((2, 5, 5, 2), np.float32), DRAW_BOXES),
            ValueError,
            r"Channel depth should be either 1 \(GRY\), 3 \(RGB\), or 4 \(RGBA\)",
        ),
        (
            lambda tf: tf.image.draw_bounding_boxes(
                np.zeros((2, 5, 5, 3), np.float32), DRAW_BOXES[..., :3]
            ),
            ValueError,
            "Dimension must be 4 but is 3",
        ),
        (
            lambda tf: tf.image.draw_bounding_boxes(np.zeros((1, 5, 5, 3), np.float32), DRAW_BOXES),
            "InvalidArgumentError",
            "The batch sizes should be the same",
        ),
        (
            lambda tf: tf.image.draw_bounding_boxes(
                np.zeros((2, 5, 5, 3), np.float32), DRAW_BOXES, colors=np.ones((2, 2), np.float32)
            ),
            "InvalidArgumentError",
            "colors must have equal or more channels than the image provided",
        ),
        # TF's kernels take float32/float16 images only (uint8 is no allowed type)
        (
            lambda tf: tf.image.draw_bounding_boxes(tf.zeros([2, 5, 5, 3], tf.uint8), DRAW_BOXES),
            TypeError,
            "DataType uint8 not in list of allowed values: float32, float16",
        ),
        (
            lambda tf: tf.image.draw_bounding_boxes(
                tf.zeros([2, 5, 5, 3], tf.uint8), DRAW_BOXES, colors=np.ones((1, 3), np.float32)
            ),
            TypeError,
            "DataType uint8 not in list of allowed values: float32, float16",
        ),
    ],
)
def test_draw_bounding_boxes_errors_match_tf(build, error, match):
    _raises(build, error, match)


# -- sample_distorted_bounding_box ------------------------------------------------------
# jtrain draws with jax.random, TF with Philox: the crops differ. Checked against TF: the
# outputs' dtypes and static shapes, the constraints every crop of both satisfies, the
# whole-image fallback (deterministic, equal) and TF's errors.

SDBB_BOXES = np.array([[[0.1, 0.2, 0.5, 0.6], [0.3, 0.3, 0.9, 0.8]]], np.float32)


def _check_crop(begin, size, bbox, image, boxes, covered, aspect, area):
    """The kernel's guarantees for one crop (or the whole-image fallback)."""
    h, w = int(image[0]), int(image[1])
    (y, x, z), (ch, cw, depth) = begin.tolist(), size.tolist()
    assert z == 0 and depth == int(np.array(-1).astype(begin.dtype))  # (uint8: 255, as TF)
    assert 0 <= y and 0 <= x and y + ch <= h and x + cw <= w
    np.testing.assert_array_equal(
        bbox, np.float32([[[y / h, x / w, (y + ch) / h, (x + cw) / w]]]).astype(np.float32)
    )
    if (y, x, ch, cw) == (0, 0, h, w):
        return "fallback"
    crop_area = np.float32(cw * ch)
    assert np.float32(area[0]) * np.float32(w) * np.float32(h) <= crop_area
    assert crop_area <= np.float32(area[1]) * np.float32(w) * np.float32(h)
    # width = lrint(height * ratio), ratio in [low, high] (the height may move by one after)
    assert aspect[0] * (ch - 1) - 0.5 <= cw <= aspect[1] * (ch + 1) + 0.5
    rects = [
        (int(b[1] * np.float32(w)), int(b[0] * np.float32(h)), int(b[3] * np.float32(w)),
         int(b[2] * np.float32(h)))
        for b in boxes.reshape(-1, 4)
    ] or [(0, 0, w, h)]  # fmt: skip
    ok = False
    for x0, y0, x1, y1 in rects:
        inter_w = min(x + cw, x1) - max(x, x0)
        inter_h = min(y + ch, y1) - max(y, y0)
        box_area = (x1 - x0) * (y1 - y0)
        if box_area >= 1 and inter_w >= 0 and inter_h >= 0:
            ok |= np.float32(inter_w * inter_h) / np.float32(box_area) >= np.float32(covered)
    assert ok
    return "crop"


@pytest.mark.parametrize(
    "dtype, image, boxes, kwargs",
    [
        (np.int32, [40, 60, 3], SDBB_BOXES, {"min_object_covered": 0.5}),
        (np.int64, [33, 17, 1], SDBB_BOXES, {"aspect_ratio_range": (0.5, 2.0)}),
        (
            np.int32,
            [50, 50, 3],
            SDBB_BOXES,
            {"area_range": (0.3, 0.6), "min_object_covered": 0.2, "max_attempts": 20},
        ),
        (np.uint8, [24, 30, 3], np.zeros((1, 0, 4), np.float32), {
            "use_image_if_no_bounding_boxes": True, "area_range": (0.1, 0.5)}),
    ],
)  # fmt: skip
def test_sample_distorted_bounding_box_keeps_tfs_constraints(dtype, image, boxes, kwargs):
    def script(tf):
        out = tf.image.sample_distorted_bounding_box(
            tf.constant(np.asarray(image, dtype)), boxes, seed=7, **kwargs
        )
        specs = [(o.dtype.name, o.shape.as_list()) for o in out]
        return lambda sess: (specs, [sess.run(list(out)) for _ in range(25)])

    (t_specs, t_runs), (o_specs, o_runs) = run_both(script)
    assert o_specs == t_specs
    covered = kwargs.get("min_object_covered", 0.1)
    aspect = kwargs.get("aspect_ratio_range", (0.75, 1.33))
    area = kwargs.get("area_range", (0.05, 1.0))
    kinds = {"ours": set(), "tf": set()}
    for who, runs in (("tf", t_runs), ("ours", o_runs)):
        for begin, size, bbox in runs:
            assert begin.dtype == size.dtype == np.dtype(dtype) and bbox.dtype == np.float32
            kinds[who].add(_check_crop(begin, size, bbox, image, boxes, covered, aspect, area))
    assert "crop" in kinds["ours"] and "crop" in kinds["tf"]


def test_sample_distorted_bounding_box_falls_back_to_the_whole_image_as_tf():
    def script(tf):
        out = tf.image.sample_distorted_bounding_box(
            [40, 60, 3], SDBB_BOXES, min_object_covered=1.0, area_range=(0.05, 0.1)
        )
        return lambda sess: [sess.run(list(out)) for _ in range(3)]

    theirs, ours = run_both(script)
    _exact(theirs, ours)
    np.testing.assert_array_equal(ours[0][1], [40, 60, -1])


@pytest.mark.parametrize(
    "kwargs, boxes, match",
    [
        ({}, np.zeros((1, 0, 4), np.float32), "No bounding boxes provided as input"),
        ({"area_range": (0.0, 1.0)}, SDBB_BOXES, "Area range must be non-negative"),
        ({"area_range": (0.1, 1.5)}, SDBB_BOXES, "Area range must be less then or equal to 1.0"),
        ({"aspect_ratio_range": (-1, 1)}, SDBB_BOXES, "Aspect ratio range must be non-negative"),
        ({"max_attempts": 0}, SDBB_BOXES, "Max attempts must be non-negative: 0"),
        ({"min_object_covered": -0.5}, SDBB_BOXES, "Min object covered must be non-negative"),
    ],
)
def test_sample_distorted_bounding_box_errors_match_tf(kwargs, boxes, match):
    _raises(
        lambda tf: list(tf.image.sample_distorted_bounding_box([40, 60, 3], boxes, **kwargs)),
        "InvalidArgumentError",
        match,
    )


# -- extract_glimpse ----------------------------------------------------------------------

GLIMPSE_IMAGES = np.random.RandomState(5).uniform(-1, 3, (2, 9, 11, 2)).astype(np.float32)
INSIDE = {  # (centered, normalized) -> offsets of glimpses [4, 5] inside the 9 x 11 images
    (True, True): [[0.1, -0.2], [-0.33, 0.15]],
    (False, True): [[0.2, 0.3], [0.45, 0.5]],
    (True, False): [[-1.5, 0.7], [0.2, -2.9]],
    (False, False): [[3.9, 5.99], [2.5, 3.0]],
}


@pytest.mark.parametrize("centered, normalized", sorted(INSIDE))
def test_extract_glimpse_inside_the_image_matches_tf(centered, normalized):
    offsets = np.asarray(INSIDE[centered, normalized], np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [2, 9, 11, 2])
        out = tf.image.extract_glimpse(x, [4, 5], offsets, centered=centered, normalized=normalized)
        grad = tf.gradients(tf.reduce_sum(out), x)
        return lambda sess: (sess.run(out, {x: GLIMPSE_IMAGES}), out.shape.as_list(), grad)

    _exact(*run_both(script))


@pytest.mark.parametrize("uniform_noise", [True, False])
def test_extract_glimpse_across_the_border_keeps_tfs_pixels_and_noise_range(uniform_noise):
    offsets = np.array([[0.9, -0.95], [-0.5, 0.8]], np.float32)

    def script(tf):
        out = tf.image.extract_glimpse(GLIMPSE_IMAGES, [6, 7], offsets, uniform_noise=uniform_noise)
        return lambda sess: sess.run(out)

    theirs, ours = run_both(script)
    assert ours.shape == theirs.shape == (2, 6, 7, 2) and ours.dtype == np.float32
    # the pixels inside the image (the glimpse centred at the offset, truncated): TF's
    # y: 0.9 * 9 / 2 + 4.5 - 3 = 5.55 -> 5, -0.5 * 9 / 2 + 1.5 = -0.75 -> 0 (truncated)
    rows = np.arange(6)[None, :] + np.array([5, 0])[:, None]
    # x: -0.95 * 11 / 2 + 5.5 - 3.5 = -3.225 -> -3, 0.8 * 11 / 2 + 2 = 6.4 -> 6
    cols = np.arange(7)[None, :] + np.array([-3, 6])[:, None]
    inside = ((rows >= 0) & (rows < 9))[:, :, None] & ((cols >= 0) & (cols < 11))[:, None, :]
    assert inside.any() and (~inside).any()
    np.testing.assert_array_equal(ours[inside], theirs[inside])
    # the rest: noise within the image's (uniform) or the channel's (Gaussian) range
    axes = (1, 2, 3) if uniform_noise else (1, 2)
    low = np.broadcast_to(GLIMPSE_IMAGES.min(axis=axes, keepdims=True), ours.shape)
    high = np.broadcast_to(GLIMPSE_IMAGES.max(axis=axes, keepdims=True), ours.shape)
    assert np.all(ours >= low) and np.all(ours <= high)
    # (TF 2.21's Gaussian fill of the second image exceeds that image's channel maximum,
    # not the batch's: measured, so TF's side is checked against the whole batch's range)
    assert GLIMPSE_IMAGES.min() <= theirs.min() and theirs.max() <= GLIMPSE_IMAGES.max()
    assert not np.array_equal(ours[~inside], theirs[~inside])  # (jtrain's noise stream)


def test_extract_glimpse_errors_match_tf():
    _raises(
        lambda tf: tf.image.extract_glimpse(GLIMPSE_IMAGES[0], [2, 2], [[0.0, 0.0]]),
        ValueError,
        "Shape must be rank 4 but is rank 3",
    )


# -- ssim ---------------------------------------------------------------------------------


# Not bit for bit: jtrain's Gaussian window differs from TF's by up to 7 ulps (3.7e-9),
# from tf.nn.softmax (XLA's CPU programs divide by the broadcast sum as a product by its
# reciprocal; Eigen's exp) - the depthwise convolution itself is TF's bit for bit given
# TF's window. Measured: mean SSIM of similar images 3 ulps; of unrelated uint8 images
# (SSIM -0.07, a difference of terms of order 1) 88 ulps, 6.6e-7; SSIM maps and gradients
# 2.2e-6 absolute. The bounds are those measurements (ulps where well conditioned).
SSIM_ULPS = 4
SSIM_ATOL = 3e-6


def _ulps(a, b):
    """Largest distance in float32 units in the last place."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return int(np.max(ulps_apart(a, b), initial=0))


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((2, 16, 17, 3), {}),
        ((1, 12, 12, 1), {"filter_size": 5, "filter_sigma": 0.8, "k1": 0.02, "k2": 0.05}),
        ((3, 13, 11, 2), {"return_index_map": True, "filter_size": 7}),
    ],
)
def test_ssim_matches_tf(shape, kwargs):
    rng = np.random.RandomState(len(shape) + shape[1])
    a = rng.uniform(0, 1, shape).astype(np.float32)
    b = np.clip(a + rng.normal(0, 0.2, shape), 0, 1).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, shape)
        y = tf.placeholder(tf.float32, shape)
        out = tf.image.ssim(x, y, 1.0, **kwargs)
        grads = tf.gradients(tf.reduce_sum(out), [x, y])
        return lambda sess: (sess.run([out, grads], {x: a, y: b}), out.shape.as_list())

    (t_vals, t_shape), (o_vals, o_shape) = run_both(script)
    assert o_shape == t_shape
    assert_twins(t_vals, o_vals, rtol=0, atol=SSIM_ATOL)  # structure, dtypes, shapes
    if not kwargs.get("return_index_map"):
        assert _ulps(t_vals[0], o_vals[0]) <= SSIM_ULPS


def test_ssim_of_uint8_images_matches_tf():
    rng = np.random.RandomState(0)
    a = rng.randint(0, 256, (2, 12, 12, 3)).astype(np.uint8)
    b = rng.randint(0, 256, (2, 12, 12, 3)).astype(np.uint8)

    def script(tf):
        out = tf.image.ssim(a, b, 255)
        return lambda sess: (sess.run(out), out.shape.as_list())

    theirs, ours = run_both(script)
    assert ours[1] == theirs[1]
    assert ours[0].dtype == theirs[0].dtype == np.float32
    np.testing.assert_allclose(ours[0], theirs[0], rtol=0, atol=SSIM_ATOL)


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((2, 23, 25, 2), {"power_factors": (0.5, 0.3, 0.2), "filter_size": 5}),
        ((1, 2, 20, 21, 1), {"power_factors": (0.6, 0.4), "filter_size": 7, "k2": 0.05}),
    ],
)
def test_ssim_multiscale_matches_tf(shape, kwargs):
    rng = np.random.RandomState(shape[1])
    a = rng.uniform(0, 1, shape).astype(np.float32)
    b = np.clip(a + rng.normal(0, 0.1, shape), 0, 1).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, shape)
        y = tf.placeholder(tf.float32, shape)
        out = tf.image.ssim_multiscale(x, y, 1.0, **kwargs)
        grads = tf.gradients(tf.reduce_sum(out), [x, y])
        return lambda sess: (sess.run([out, grads], {x: a, y: b}), out.shape.as_list())

    (t_vals, t_shape), (o_vals, o_shape) = run_both(script)
    assert o_shape == t_shape
    assert_twins(t_vals, o_vals, rtol=0, atol=SSIM_ATOL)
    # measured 10 and 5 ulps: the scales' SSIM differences compound through pow and prod
    # (8 before c50edda made the per-scale means TF's to the bit: the remaining gap is the
    # Gaussian convolutions, pow and prod, and it moved, as a sum of rounding errors does)
    assert _ulps(t_vals[0], o_vals[0]) <= 10
