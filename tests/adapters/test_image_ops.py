"""``tf.image`` beyond the op goldens (``tests/goldens/ops_image``, TF 2.21's values).

The goldens compare values, gradients and TF's graph-construction errors of every
deterministic op; here: the namespace, partly known shapes, computed offsets, the
resize kernels' errors that TF raises with node-specific text, and the errors
jtrain raises where TF fails only at run time.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain import errors


def _run(fetches, feeds=None):
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def test_namespace_has_tfs_names_and_resize_method():
    for name in [
        "per_image_standardization",
        "flip_left_right",
        "flip_up_down",
        "transpose",
        "transpose_image",
        "rot90",
        "adjust_brightness",
        "adjust_contrast",
        "adjust_saturation",
        "adjust_hue",
        "adjust_gamma",
        "rgb_to_grayscale",
        "grayscale_to_rgb",
        "rgb_to_hsv",
        "hsv_to_rgb",
        "convert_image_dtype",
        "resize_images",
        "resize",
        "resize_bilinear",
        "resize_nearest_neighbor",
        "resize_bicubic",
        "resize_area",
        "central_crop",
        "crop_to_bounding_box",
        "pad_to_bounding_box",
        "resize_image_with_crop_or_pad",
        "resize_with_crop_or_pad",
        "image_gradients",
        "total_variation",
    ]:
        assert callable(getattr(tf.image, name)), name
    m = tf.image.ResizeMethod
    assert (m.BILINEAR, m.NEAREST_NEIGHBOR, m.BICUBIC, m.AREA) == (0, 1, 2, 3)


def test_absent_name_says_what_to_use():
    with pytest.raises(AttributeError, match=r"tf\.image\.decode_webp is not in adapters\.v1"):
        tf.image.decode_webp  # noqa: B018
    assert not hasattr(tf.image, "generate_bounding_box_proposals")


@pytest.mark.parametrize(
    "op", ["resize_bilinear", "resize_nearest_neighbor", "resize_bicubic", "resize_area"]
)
def test_resize_kernels_take_rank_4(op):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [5, 7, 3])
        with pytest.raises(ValueError, match="^Shape must be rank 4 but is rank 3"):
            getattr(tf.image, op)(x, [3, 4])


def test_psnr_of_mismatched_images():
    # TF 2.21: "Dimensions must be equal, but are 7 and 6 for '{{node PSNR/SquaredDifference}}..."
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [5, 7, 3])
        b = tf.placeholder(tf.float32, [5, 6, 3])
        with pytest.raises(ValueError, match="^Dimensions must be equal, but are 7 and 6 for"):
            tf.image.psnr(a, b, 1.0)


@pytest.mark.parametrize("op", ["resize_bilinear", "resize_nearest_neighbor", "resize_bicubic"])
def test_half_pixel_centers_refuses_align_corners(op):
    # TF raises this InvalidArgumentError when the kernel runs; jtrain when the graph is built.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 5, 7, 3])
        with pytest.raises(
            errors.InvalidArgumentError,
            match="If half_pixel_centers is True, align_corners must be False.",
        ):
            getattr(tf.image, op)(x, [3, 4], align_corners=True, half_pixel_centers=True)


def test_colour_kernels_need_three_channels():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [5, 7, 4])
        for fn in [
            lambda: tf.image.adjust_hue(x, 0.1),
            lambda: tf.image.adjust_saturation(x, 0.5),
            lambda: tf.image.rgb_to_hsv(x),
        ]:
            with pytest.raises(errors.InvalidArgumentError, match="3 channels"):
                fn()


def test_unknown_batch_dimension():
    """A batch of unknown size: TF's static shapes and values follow the fed batch."""
    rng = np.random.default_rng(0)
    images = rng.uniform(size=(3, 5, 7, 3)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5, 7, 3])
        flipped = tf.image.flip_left_right(x)
        resized = tf.image.resize_images(x, [4, 9])
        standardized = tf.image.per_image_standardization(x)
        assert flipped.shape.as_list() == [None, 5, 7, 3]
        assert resized.shape.as_list() == [None, 4, 9, 3]
        f, r, s = _run([flipped, resized, standardized], {x: images})
    np.testing.assert_array_equal(f, images[:, :, ::-1])
    assert r.shape == (3, 4, 9, 3)
    np.testing.assert_allclose(s.mean(axis=(1, 2, 3)), 0.0, atol=1e-6)


UNKNOWN_SIZE_OPS = {
    "resize_bilinear": lambda x: tf.image.resize_bilinear(x, [4, 5]),
    "resize_bicubic": lambda x: tf.image.resize_bicubic(x, [3, 3], half_pixel_centers=True),
    "resize_area": lambda x: tf.image.resize_area(x, [2, 2]),
    "resize_nearest_neighbor": lambda x: tf.image.resize_nearest_neighbor(x, [6, 8]),
    "resize_images": lambda x: tf.image.resize_images(x, [6, 2], method=1),
    "resize_images_same": lambda x: tf.image.resize_images(x, [5, 7]),
    "crop_or_pad": lambda x: tf.image.resize_image_with_crop_or_pad(x, 4, 9),
    "central_crop": lambda x: tf.image.central_crop(x, 0.5),
    "standardization": tf.image.per_image_standardization,
    "hue": lambda x: tf.image.adjust_hue(x, 0.1),
    "gradients": lambda x: tf.image.image_gradients(x)[1],
}


@pytest.mark.parametrize("op", sorted(UNKNOWN_SIZE_OPS))
def test_unknown_height_and_width_give_the_known_shape_values(op):
    """Images of unknown size (fed at run time): the values of the known-size graph."""
    images = [
        np.random.default_rng(i).uniform(size=s).astype(np.float32)
        for i, s in enumerate([(2, 5, 7, 3), (1, 9, 4, 3)])
    ]
    build = UNKNOWN_SIZE_OPS[op]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, None, 3])
        out = build(x)
        with tf.Session() as sess:
            unknown = [sess.run(out, {x: a}) for a in images]
    for a, value in zip(images, unknown, strict=True):
        with tf.Graph().as_default():
            known = tf.placeholder(tf.float32, a.shape)
            np.testing.assert_array_equal(value, _run(build(known), {known: a}))


def test_resize_images_of_unknown_size_needs_float32_for_interpolation():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.uint8, [None, None, 3])
        with pytest.raises(NotImplementedError, match="cast the image to float32 first"):
            tf.image.resize_images(x, [4, 4])
        assert tf.image.resize_images(x, [4, 4], method=1).dtype == tf.uint8


def test_crop_and_pad_with_computed_offsets():
    """Offsets may be tensors computed in the graph (a random crop's): TF's slice and pad."""
    image = np.arange(5 * 7 * 2, dtype=np.float32).reshape(5, 7, 2)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [5, 7, 2])
        oh = tf.placeholder(tf.int32, [])
        ow = tf.placeholder(tf.int32, [])
        cropped = tf.image.crop_to_bounding_box(x, oh, ow, 3, 4)
        padded = tf.image.pad_to_bounding_box(x, oh, ow, 8, 10)
        assert cropped.shape.as_list() == [3, 4, 2]
        assert padded.shape.as_list() == [8, 10, 2]
        c, p = _run([cropped, padded], {x: image, oh: 2, ow: 1})
    np.testing.assert_array_equal(c, image[2:5, 1:5])
    expected = np.zeros((8, 10, 2), np.float32)
    expected[2:7, 1:8] = image
    np.testing.assert_array_equal(p, expected)


@pytest.mark.parametrize(
    "op, oh, ow, message",
    [
        ("crop_to_bounding_box", 0, -1, "offset_width must be >= 0."),
        ("crop_to_bounding_box", -2, 0, "offset_height must be >= 0."),
        ("crop_to_bounding_box", 0, 4, "width must be >= target + offset."),
        ("crop_to_bounding_box", 3, 0, "height must be >= target + offset."),
        ("pad_to_bounding_box", -1, 0, "offset_height must be >= 0"),
        ("pad_to_bounding_box", 0, -1, "offset_width must be >= 0"),
        ("pad_to_bounding_box", 0, 4, "width must be <= target - offset"),
        ("pad_to_bounding_box", 4, 0, "height must be <= target - offset"),
    ],
)
def test_computed_offsets_out_of_range_fail_the_run_as_tf(op, oh, ow, message):
    """TF asserts computed offsets when run; jtrain too (no silent clamping)."""
    image = np.zeros((5, 7, 2), np.float32)
    target = (3, 4) if op == "crop_to_bounding_box" else (8, 10)
    with tf.Graph().as_default():
        h = tf.placeholder(tf.int32, [])
        w = tf.placeholder(tf.int32, [])
        out = getattr(tf.image, op)(image, h, w, *target)
        with tf.Session() as sess:
            sess.run(out, {h: 0, w: 0})
            with pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(out, {h: oh, w: ow})
    assert f"assertion failed: [{message}]" in str(info.value)


def test_one_node_per_op():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.uint8, [5, 7, 3])
        out = tf.image.adjust_brightness(x, 0.1)
        assert out.dtype == tf.uint8
        assert [op.type for op in g.get_operations()][-1] == "AdjustBrightness"
        assert tf.image.adjust_hue(tf.cast(x, tf.float32), 0.1, name="hue").name == "hue:0"


# -- random augmentations ---------------------------------------------------------------


IMAGE = np.random.default_rng(1).uniform(size=(5, 7, 3)).astype(np.float32)
BATCH = np.random.default_rng(2).uniform(size=(4, 5, 7, 3)).astype(np.float32)


def _runs(build, n, feed=None):
    """``n`` runs of one graph: the fetched values of ``build()``'s output."""
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        out = build()
        with tf.Session() as sess:
            return [sess.run(out, feed) for _ in range(n)]


@pytest.mark.parametrize(
    "op, axis",
    [("random_flip_left_right", 1), ("random_flip_up_down", 0)],
)
def test_random_flip_image_is_flipped_or_not_both_occur(op, axis):
    values = _runs(lambda: getattr(tf.image, op)(IMAGE), 30)
    flipped = np.flip(IMAGE, axis)
    outcomes = []
    for v in values:
        assert v.dtype == np.float32
        if np.array_equal(v, IMAGE):
            outcomes.append(False)
        else:
            np.testing.assert_array_equal(v, flipped)
            outcomes.append(True)
    assert set(outcomes) == {False, True}


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_random_flip_batch_flips_each_image_on_its_own(dtype):
    batch = (BATCH * 255).astype(dtype)
    values = _runs(lambda: tf.image.random_flip_left_right(batch), 10)
    seen = set()
    for v in values:
        assert v.dtype == dtype
        pattern = []
        for image, out in zip(batch, v, strict=True):
            if np.array_equal(out, image):
                pattern.append(0)
            else:
                np.testing.assert_array_equal(out, image[:, ::-1])
                pattern.append(1)
        seen.add(tuple(pattern))
    assert len(seen) > 1  # fresh per run
    assert any(0 < sum(p) < len(p) for p in seen)  # images of one batch differ


def test_random_flip_unknown_batch():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5, 7, 3])
        out = tf.image.random_flip_up_down(x, seed=1)
        assert out.shape.as_list() == [None, 5, 7, 3]
        with tf.Session() as sess:
            v = sess.run(out, {x: BATCH[:3]})
    for image, o in zip(BATCH[:3], v, strict=True):
        assert np.array_equal(o, image) or np.array_equal(o, image[::-1])


def test_random_brightness_delta_within_max_delta_fresh_per_run():
    values = _runs(lambda: tf.image.random_brightness(IMAGE, 0.3), 12)
    deltas = []
    for v in values:
        delta = v - IMAGE
        np.testing.assert_allclose(delta, delta.flat[0], atol=1e-6)  # one delta per image
        assert -0.3 - 1e-6 <= delta.flat[0] <= 0.3 + 1e-6
        deltas.append(round(float(delta.flat[0]), 5))
    assert len(set(deltas)) == len(deltas)
    assert min(deltas) < 0 < max(deltas)


def test_random_contrast_factor_within_bounds():
    values = _runs(lambda: tf.image.random_contrast(IMAGE, 0.2, 1.8), 8)
    mean = IMAGE.mean(axis=(0, 1))
    factors = []
    for v in values:
        factor = (v - mean) / (IMAGE - mean)
        np.testing.assert_allclose(factor, factor.flat[0], rtol=1e-3)
        assert 0.2 - 1e-4 <= factor.flat[0] <= 1.8 + 1e-4
        factors.append(round(float(factor.flat[0]), 3))
    assert len(set(factors)) > 1


@pytest.mark.parametrize(
    "op, args, adjust",
    [
        ("random_brightness", (0.4,), lambda x, u: tf.image.adjust_brightness(x, u)),
        ("random_contrast", (0.3, 1.5), lambda x, u: tf.image.adjust_contrast(x, u)),
        ("random_saturation", (0.2, 1.9), lambda x, u: tf.image.adjust_saturation(x, u)),
        ("random_hue", (0.45,), lambda x, u: tf.image.adjust_hue(x, u)),
    ],
)
def test_random_adjustments_are_tfs_composition(op, args, adjust):
    """``tf.image.random_X(image, ..., seed=s)`` is ``adjust_X`` of ``random_uniform(seed=s)``."""
    low, high = (-args[0], args[0]) if len(args) == 1 else args
    ours = _runs(lambda: getattr(tf.image, op)(IMAGE, *args, seed=5), 4)
    composed = _runs(
        lambda: adjust(IMAGE, tf.random_uniform([], low, high, seed=5)),
        4,
    )
    for a, b in zip(ours, composed, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(ours[0], ours[1])


@pytest.mark.parametrize(
    "op", ["random_flip_left_right", "random_brightness", "random_hue", "random_saturation"]
)
def test_random_ops_reproducible_across_graphs_with_same_seeds(op):
    args = {
        "random_flip_left_right": (),
        "random_brightness": (0.2,),
        "random_hue": (0.2,),
        "random_saturation": (0.5, 1.5),
    }[op]
    first = _runs(lambda: getattr(tf.image, op)(BATCH, *args, seed=11), 5)
    second = _runs(lambda: getattr(tf.image, op)(BATCH, *args, seed=11), 5)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    other = _runs(lambda: getattr(tf.image, op)(BATCH, *args, seed=12), 5)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other, strict=True))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: tf.image.random_brightness(x, -0.1), "max_delta must be non-negative."),
        (lambda x: tf.image.random_hue(x, 0.6), "max_delta must be <= 0.5."),
        (lambda x: tf.image.random_hue(x, -0.1), "max_delta must be non-negative."),
        (lambda x: tf.image.random_contrast(x, 0.5, 0.5), "upper must be > lower."),
        (lambda x: tf.image.random_contrast(x, -0.5, 0.5), "lower must be non-negative."),
        (lambda x: tf.image.random_saturation(x, 1.0, 0.5), "upper must be > lower."),
        (
            lambda x: tf.image.random_flip_left_right(x[0]),
            r"'image' (shape (7, 3)) must be at least three-dimensional.",
        ),
        (
            lambda x: tf.image.random_flip_up_down(tf.expand_dims(tf.expand_dims(x, 0), 0)),
            "'image' (shape (1, 1, 5, 7, 3)) must have either 3 or 4 dimensions.",
        ),
    ],
)
def test_random_ops_errors_are_tfs(call, message):
    # Messages as TF 2.21's image_ops_impl raises them.
    with tf.Graph().as_default():
        x = tf.constant(IMAGE)
        with pytest.raises(ValueError) as info:
            call(x)
        assert str(info.value) == message


def test_random_uniform_of_scalar_shape():
    # TF's random ops in tf.image draw random_uniform([], ...): [] is a scalar's shape.
    values = _runs(lambda: tf.random_uniform([], -1.0, 1.0, seed=2), 3)
    assert all(np.shape(v) == () and -1.0 <= v < 1.0 for v in values)


def test_rot90_by_a_computed_k_on_square_images():
    """k drawn in the graph: each run rotates by that run's k (TF's rot90 of a tensor k)."""
    square = np.random.default_rng(4).uniform(size=(2, 4, 4, 3)).astype(np.float32)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        k = tf.random_uniform([], 0, 8, dtype=tf.int32, seed=2)
        out = tf.image.rot90(square, k)
        assert out.shape.as_list() == [2, 4, 4, 3]
        with tf.Session() as sess:
            runs = [sess.run([k, out]) for _ in range(12)]
    for kv, value in runs:
        np.testing.assert_array_equal(value, np.rot90(square, int(kv), axes=(1, 2)))
    assert len({int(kv) % 4 for kv, _ in runs}) > 1


def test_rot90_computed_k_needs_a_square_image():
    with tf.Graph().as_default():
        k = tf.placeholder(tf.int32, [])
        with pytest.raises(NotImplementedError, match="needs a square image"):
            tf.image.rot90(tf.zeros([5, 7, 3]), k)
        assert tf.image.rot90(tf.zeros([5, 7, 3]), tf.constant(1)).shape.as_list() == [7, 5, 3]


def test_random_crop_is_tfs_random_crop():
    assert tf.image.random_crop is tf.random_crop
    values = _runs(lambda: tf.image.random_crop(IMAGE, [3, 4, 3], seed=1), 8)
    windows = {(i, j): IMAGE[i : i + 3, j : j + 4] for i in range(3) for j in range(4)}
    seen = {next(k for k, w in windows.items() if np.array_equal(v, w)) for v in values}
    assert len(seen) > 1


def test_crop_and_resize_box_index_outside_the_batch_fails_the_run_as_tf():
    images = np.zeros((2, 5, 7, 3), np.float32)
    boxes = np.array([[0, 0, 1, 1], [0, 0, 1, 1]], np.float32)
    with tf.Graph().as_default():
        index = tf.placeholder(tf.int32, [2])
        out = tf.image.crop_and_resize(images, boxes, index, [3, 3])
        with tf.Session() as sess:
            assert sess.run(out, {index: [1, 0]}).shape == (2, 3, 3, 3)
            for bad in ([0, 2], [-1, 0]):
                with pytest.raises(errors.OutOfRangeError) as info:
                    sess.run(out, {index: bad})
                # TF 2.21's message.
                assert "box_index has values outside [0, batch_size)" in str(info.value)
        with pytest.raises(ValueError, match="Cannot specify both 'box_indices' and 'box_ind'"):
            tf.image.crop_and_resize(images, boxes, [0, 1], [3, 3], box_indices=[0, 1])
