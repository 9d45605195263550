"""Top-k metrics check the labels' rank against the top-k indices' as TF 2.21 does when
the graph is built (``_maybe_expand_labels``, then the set intersection's shape
function), and name their value (precision/recall) or update op (average precision)
as the metric's scope, as TF."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

SCORES = np.array([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1]], np.float32)


def test_labels_of_another_rank_are_refused(graph):
    with pytest.raises(ValueError, match=r"^Unexpected labels shape \(2, 1, 1\) for predictions"):
        tf.metrics.recall_at_k(tf.zeros([2, 1, 1], tf.int64), SCORES, 2)
    with pytest.raises(ValueError, match=r"^Unexpected labels shape \(\) for predictions shape"):
        tf.metrics.average_precision_at_k(tf.constant(1, tf.int64), SCORES, 1)


def test_rank_one_predictions_are_refused_by_the_set_operation(graph):
    labels = tf.constant([1], tf.int64)
    message = (
        "Shape must be at least rank 2 but is rank 1 for '{{node precision_at_1/"
        "true_positive_at_1/true_positives/DenseToDenseSetOperation}} = "
        'DenseToDenseSetOperation[T=DT_INT64, set_operation="intersection", '
        "validate_indices=true](precision_at_1/Cast, Const)' with input shapes: [1], [1]."
    )
    with pytest.raises(ValueError) as info:
        tf.metrics.precision_at_k(labels, SCORES[0], 1)
    assert str(info.value) == message
    # average precision has no such limit
    value, update = tf.metrics.average_precision_at_k(labels, SCORES[0], 1)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(update) == 1.0


def test_leading_dimensions_must_agree(graph):
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are 2"):
        tf.metrics.recall_at_k(tf.zeros([3], tf.int64), SCORES, 1)


def test_value_and_update_names(graph):
    labels = tf.constant([1, 0], tf.int64)
    value, update = tf.metrics.recall_at_k(labels, SCORES, 1)
    assert (value.name, update.name) == ("recall_at_1:0", "recall_at_1/update:0")
    value, update = tf.metrics.precision_at_top_k(labels, [[1], [2]], k=1, name="mine")
    assert (value.name, update.name) == ("mine:0", "mine/update:0")
    mean, update = tf.metrics.average_precision_at_k(labels, SCORES, 1)
    assert (mean.name, update.name) == ("average_precision_at_1/mean:0", "average_precision_at_1:0")
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(update) == 1.0
        assert np.isnan(sess.run(tf.get_default_graph().get_tensor_by_name("recall_at_1:0")))
