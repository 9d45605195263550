"""``tf.nn.softmax_cross_entropy_with_logits`` (v1) passes no gradient to its labels:
``tf.gradients`` gives ``None`` for them, as TF 2.21 (the v2 form gives a value)."""

from __future__ import annotations

import numpy as np

from adapters import v1 as tf

LABELS = np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]], np.float32)
LOGITS = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], np.float32)


def test_v1_gives_no_gradient_to_the_labels(graph):
    labels = tf.placeholder(tf.float32, [2, 3])
    logits = tf.placeholder(tf.float32, [2, 3])
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    to_labels, to_logits = tf.gradients(loss, [labels, logits])
    assert to_labels is None
    with tf.Session() as sess:
        g = sess.run(to_logits, {labels: LABELS, logits: LOGITS})
    softmax = np.exp(LOGITS) / np.exp(LOGITS).sum(1, keepdims=True)
    np.testing.assert_allclose(g, softmax - LABELS, rtol=1e-5, atol=1e-7)
    assert any(op.type == "StopGradient" for op in graph.get_operations())


def test_v1_with_dim_and_zero_unconnected_gradients(graph):
    labels = tf.placeholder(tf.float32, [2, 3])
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=LOGITS, dim=0)
    assert loss.shape.as_list() == [3]
    (zeros,) = tf.gradients(loss, [labels], unconnected_gradients="zero")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(zeros, {labels: LABELS}), np.zeros([2, 3]))


def test_v2_gives_minus_log_softmax_to_the_labels(graph):
    labels = tf.placeholder(tf.float32, [2, 3])
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=LOGITS)
    (to_labels,) = tf.gradients(loss, [labels])
    with tf.Session() as sess:
        g = sess.run(to_labels, {labels: LABELS})
    log_softmax = LOGITS - np.log(np.exp(LOGITS).sum(1, keepdims=True))
    np.testing.assert_allclose(g, -log_softmax, rtol=1e-5)
