"""``tf.image``'s non-max suppression with JAX's defaults (x64 off), no TensorFlow here.

Expected values are TF 2.21's (printed by ``tf.compat.v1`` for these inputs); the live
comparisons are ``tests/interop/test_image_ops2_interop.py``.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from adapters import v1 as tf

BOXES = np.array(
    [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
     [0, 100, 1, 101]],
    np.float32,
)  # fmt: skip
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)


def _run(fetches, feeds=None):
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def test_namespace_and_tfs_signatures():
    for name in (
        "non_max_suppression",
        "non_max_suppression_with_scores",
        "non_max_suppression_overlaps",
        "non_max_suppression_padded",
        "combined_non_max_suppression",
    ):
        assert name in tf.image.__all__
        params = inspect.signature(getattr(tf.image, name)).parameters
        assert params["score_threshold"].default == float("-inf")


def test_greedy_and_soft_selection_are_tfs():
    with tf.Graph().as_default():
        hard = tf.image.non_max_suppression(BOXES, SCORES, 3, 0.5)
        soft = tf.image.non_max_suppression_with_scores(BOXES, SCORES, 6, soft_nms_sigma=0.5)
        assert hard.shape.as_list() == [None] and hard.dtype == tf.int32
        hard_v, (idx, scores) = _run([hard, list(soft)])
    np.testing.assert_array_equal(hard_v, [3, 0, 5])
    np.testing.assert_array_equal(idx, [3, 0, 1, 5, 4, 2])
    expected = np.array([0.95, 0.9, 0.38400355, 0.3, 0.2560026, 0.19697244], np.float32)
    assert scores.dtype == np.float32 and scores.tobytes() == expected.tobytes()


def test_padded_and_combined_run_in_the_step_on_fed_values():
    with tf.Graph().as_default():
        b = tf.placeholder(tf.float32, [None, 4])
        s = tf.placeholder(tf.float32, [None])
        idx, valid = tf.image.non_max_suppression_padded(b, s, 4, pad_to_max_output_size=True)
        assert idx.shape.as_list() == [4] and valid.shape.as_list() == []
        bb = tf.placeholder(tf.float32, [1, 6, 1, 4])
        ss = tf.placeholder(tf.float32, [1, 6, 2])
        combined = tf.image.combined_non_max_suppression(bb, ss, 3, 4)
        feeds = {
            b: BOXES,
            s: SCORES,
            bb: BOXES[None, :, None],
            ss: np.stack([SCORES, SCORES[::-1]], 1)[None],
        }
        idx_v, valid_v, out = _run([idx, valid, list(combined)], feeds)
    np.testing.assert_array_equal(idx_v, [3, 0, 5, 0])
    assert valid_v == 3
    boxes, scores, classes, detections = out
    np.testing.assert_array_equal(
        boxes[0], np.float32([[0, 1, 1, 1], [0, 0, 1, 0.9], [0, 0, 1, 1], [0, 1, 1, 1]])
    )
    np.testing.assert_array_equal(scores[0], np.float32([0.95, 0.95, 0.9, 0.9]))
    np.testing.assert_array_equal(classes[0], [0, 1, 0, 1])
    np.testing.assert_array_equal(detections, [4])


def test_unpadded_forms_of_computed_boxes_raise_not_implemented():
    with tf.Graph().as_default():
        b = tf.placeholder(tf.float32, [6, 4])
        with pytest.raises(NotImplementedError, match="data-dependent shape"):
            tf.image.non_max_suppression(b, SCORES, 3)
