"""``tf.image``'s box, glimpse and SSIM functions with JAX's defaults (x64 off), no
TensorFlow here; the live comparisons are ``tests/interop/test_image_ops2_interop.py``."""

from __future__ import annotations

import numpy as np

from adapters import v1 as tf


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def test_names_are_in_tf_image():
    for name in (
        "draw_bounding_boxes",
        "sample_distorted_bounding_box",
        "extract_glimpse",
        "ssim",
        "ssim_multiscale",
    ):
        assert name in tf.image.__all__ and callable(getattr(tf.image, name))


def test_sample_distorted_bounding_box_keeps_int64_with_x64_off():
    """The fallback (whole image) is TF's (interop test); int64 stays int64."""
    boxes = np.array([[[0.1, 0.2, 0.5, 0.6]]], np.float32)
    with tf.Graph().as_default():
        size = tf.constant(np.array([40, 60, 3], np.int64))
        begin, extent, bbox = tf.image.sample_distorted_bounding_box(
            size, boxes, min_object_covered=1.0, area_range=(0.05, 0.1)
        )
        assert begin.dtype == tf.int64 and extent.dtype == tf.int64
        b, e, box = _run([begin, extent, bbox])
    assert b.dtype == e.dtype == np.int64
    np.testing.assert_array_equal(b, [0, 0, 0])
    np.testing.assert_array_equal(e, [40, 60, -1])
    np.testing.assert_array_equal(box, np.float32([[[0, 0, 1, 1]]]))


def test_glimpse_inside_the_image_is_the_pixels():
    image = np.arange(9 * 11, dtype=np.float32).reshape(1, 9, 11, 1)
    with tf.Graph().as_default():
        out = tf.image.extract_glimpse(image, [4, 5], np.float32([[0.1, -0.2]]))
        got = _run(out)
    # TF 2.21: rows from 2, columns from 1 (0.1 * 9 / 2 + 4.5 - 2 = 2.95, -1.1 + 3 = 1.9)
    np.testing.assert_array_equal(got[0, ..., 0], image[0, 2:6, 1:6, 0])
