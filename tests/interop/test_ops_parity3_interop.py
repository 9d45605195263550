"""Ops whose gradients, errors, names or rank checks differed from TF 2.21's, checked live.

Each case is one TF1 snippet run under TF's ``compat.v1`` (as classic TF1) and under
``adapters.v1`` (``twin.py``), one section per fix.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1


def _jtf():
    from adapters import v1 as jtf

    return jtf


@contextlib.contextmanager
def _graph_of(tf):
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default() as graph:
            yield graph


# -- tf.losses cross entropies: the gradients to the labels -------------------------------
LABELS = np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]], np.float32)
LOGITS = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], np.float32)
LOSSES = {
    "softmax": lambda tf, lab, lo: tf.losses.softmax_cross_entropy(lab, lo),
    "softmax smoothed": lambda tf, lab, lo: tf.losses.softmax_cross_entropy(
        lab, lo, label_smoothing=0.1
    ),
    "softmax scope, weights": lambda tf, lab, lo: tf.losses.softmax_cross_entropy(
        lab, lo, weights=[1.0, 2.0], scope="xent"
    ),
    "sigmoid": lambda tf, lab, lo: tf.losses.sigmoid_cross_entropy(lab, lo),
    "sigmoid smoothed": lambda tf, lab, lo: tf.losses.sigmoid_cross_entropy(
        lab, lo, label_smoothing=0.1
    ),
}


@pytest.mark.parametrize("case", list(LOSSES))
def test_loss_gradients_to_labels(case):
    def script(tf):
        lab = tf.placeholder(tf.float32, [2, 3])
        lo = tf.placeholder(tf.float32, [2, 3])
        loss = LOSSES[case](tf, lab, lo)
        grads = tf.gradients(loss, [lab, lo])
        feed = {lab: LABELS, lo: LOGITS}
        return lambda sess: (
            sess.run(loss, feed),
            [None if g is None else sess.run(g, feed) for g in grads],
        )

    assert_twins(*run_both(script), rtol=1e-5, atol=1e-6)


def test_sparse_softmax_loss_gradients():
    def script(tf):
        lab = tf.placeholder(tf.int32, [2])
        lo = tf.placeholder(tf.float32, [2, 3])
        loss = tf.losses.sparse_softmax_cross_entropy(lab, lo)
        grads = tf.gradients(loss, [lab, lo])
        feed = {lab: [2, 0], lo: LOGITS}
        return lambda sess: (
            sess.run(loss, feed),
            [None if g is None else sess.run(g, feed) for g in grads],
        )

    assert_twins(*run_both(script), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("tf", [tf1, "jtf"], ids=["tf", "jtrain"])
def test_softmax_loss_stop_gradient_nodes(tf):
    tf = _jtf() if tf == "jtf" else tf
    with _graph_of(tf) as graph:
        lab = tf.placeholder(tf.float32, [2, 3])
        tf.losses.softmax_cross_entropy(lab, LOGITS)
        tf.losses.softmax_cross_entropy(lab, LOGITS)
        tf.losses.softmax_cross_entropy(lab, LOGITS, scope="mine")
        stops = sorted(op.name for op in graph.get_operations() if op.type == "StopGradient")
    assert stops == [
        "mine/labels_stop_gradient",
        "softmax_cross_entropy_loss/labels_stop_gradient",
        "softmax_cross_entropy_loss_1/labels_stop_gradient",
    ]


def test_softmax_loss_trains_only_the_logits():
    def script(tf):
        w = tf.Variable(np.ones([3, 3], np.float32))
        lab = tf.nn.softmax(tf.matmul(tf.constant(LABELS), w))
        loss = tf.losses.softmax_cross_entropy(lab, LOGITS)
        (grad,) = tf.gradients(loss, [w])
        return lambda sess: grad

    theirs, ours = run_both(script)
    assert theirs is None and ours is None
