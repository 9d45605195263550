"""``tf.metrics``' graph-construction shape checks, as TF 2.21's: after squeezing one
trailing 1 of the input of higher rank, labels and predictions must have compatible
shapes (no broadcasting); ``mean_iou`` checks without the squeeze and
``mean_per_class_accuracy`` after flattening both."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


def _run(value, update):
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        return sess.run(value)


@pytest.mark.parametrize(
    "labels_shape, predictions_shape, message",
    [
        ([4, 1], [1, 4], "Shapes (1, 4) and (4, 1) are incompatible"),
        ([4, 3], [4, 1], "Shapes (4, 1) and (4, 3) are incompatible"),
        ([4], [4, 1, 1], "Shapes (4, 1, 1) and (4,) are incompatible"),
        ([1, 4], [4], "Shapes (4,) and (1, 4) are incompatible"),
    ],
)
@pytest.mark.parametrize("metric", ["accuracy", "mean_squared_error", "precision", "auc"])
def test_broadcastable_but_incompatible_shapes_raise(
    graph, metric, labels_shape, predictions_shape, message
):
    labels = tf.zeros(labels_shape)
    predictions = tf.zeros(predictions_shape)
    with pytest.raises(ValueError) as info:
        getattr(tf.metrics, metric)(labels, predictions)
    assert str(info.value) == message


@pytest.mark.parametrize("pair", [([4, 1], [4]), ([4], [4, 1]), ([4, 2, 1], [4, 2])])
def test_a_trailing_one_is_squeezed(graph, pair):
    labels = tf.constant(np.ones(pair[0], np.float32))
    predictions = tf.constant(np.ones(pair[1], np.float32))
    assert _run(*tf.metrics.accuracy(labels, predictions)) == 1.0


def test_mean_iou_does_not_squeeze(graph):
    with pytest.raises(ValueError, match=r"Shapes \(4,\) and \(4, 1\) are incompatible"):
        tf.metrics.mean_iou(tf.zeros([4, 1], tf.int64), tf.zeros([4], tf.int64), 2)


def test_mean_per_class_accuracy_compares_flattened_shapes(graph):
    ok = tf.metrics.mean_per_class_accuracy(tf.zeros([4], tf.int64), tf.zeros([2, 2], tf.int64), 2)
    assert _run(*ok) == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"Shapes \(4,\) and \(12,\) are incompatible"):
        tf.metrics.mean_per_class_accuracy(
            tf.zeros([4, 3], tf.int64), tf.zeros([4, 1], tf.int64), 2
        )


def test_mean_relative_error_checks_the_normalizer(graph):
    labels, predictions = tf.ones([4]), tf.zeros([4])
    assert _run(*tf.metrics.mean_relative_error(labels, predictions, tf.ones([4, 1]))) == 1.0
    with pytest.raises(ValueError, match=r"Shapes \(4,\) and \(1, 4\) are incompatible"):
        tf.metrics.mean_relative_error(labels, predictions, tf.ones([1, 4]))


def test_unknown_dimensions_are_compatible(graph):
    labels = tf.placeholder(tf.float32, [None, 1])
    predictions = tf.placeholder(tf.float32, [None])
    value, update = tf.metrics.mean_absolute_error(labels, predictions)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update, {labels: [[1.0], [2.0]], predictions: [1.0, 4.0]})
        assert sess.run(value) == 1.0
