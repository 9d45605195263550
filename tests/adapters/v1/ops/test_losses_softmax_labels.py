"""``tf.losses.softmax_cross_entropy`` passes no gradient to its labels: they go
through a ``<scope>/labels_stop_gradient`` node first, as in TF 2.21, so
``tf.gradients`` gives ``None`` for them (the sigmoid loss gives a value)."""

from __future__ import annotations

import numpy as np

from adapters import v1 as tf

LABELS = np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]], np.float32)
LOGITS = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], np.float32)


def _softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_no_gradient_to_the_labels(graph):
    labels = tf.placeholder(tf.float32, [2, 3])
    logits = tf.placeholder(tf.float32, [2, 3])
    loss = tf.losses.softmax_cross_entropy(labels, logits, label_smoothing=0.0)
    to_labels, to_logits = tf.gradients(loss, [labels, logits])
    assert to_labels is None
    with tf.Session() as sess:
        value, g = sess.run([loss, to_logits], {labels: LABELS, logits: LOGITS})
    expected = -(LABELS * np.log(_softmax(LOGITS))).sum(1).mean()
    np.testing.assert_allclose(value, expected, rtol=1e-6)
    np.testing.assert_allclose(g, (_softmax(LOGITS) - LABELS) / 2, rtol=1e-5, atol=1e-7)


def test_stop_gradient_nodes_are_named_in_the_loss_scope(graph):
    labels = tf.placeholder(tf.int32, [2, 3])
    first = tf.losses.softmax_cross_entropy(labels, LOGITS)
    second = tf.losses.softmax_cross_entropy(onehot_labels=labels, logits=LOGITS, scope="s")
    stops = [op.name for op in graph.get_operations() if op.type == "StopGradient"]
    assert stops == ["softmax_cross_entropy_loss/labels_stop_gradient", "s/labels_stop_gradient"]
    assert first.op.name == "softmax_cross_entropy_loss" and second.op.name == "s"
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [first, second]
    (zeros,) = tf.gradients(first, [labels], unconnected_gradients="zero")
    with tf.Session() as sess:
        assert sess.run(zeros, {labels: np.eye(2, 3, dtype=np.int32)}).shape == (2, 3)


def test_sigmoid_loss_still_gives_labels_a_gradient(graph):
    labels = tf.placeholder(tf.float32, [2, 3])
    loss = tf.losses.sigmoid_cross_entropy(labels, LOGITS)
    (to_labels,) = tf.gradients(loss, [labels])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(to_labels, {labels: LABELS}), -LOGITS / 6, rtol=1e-6)
