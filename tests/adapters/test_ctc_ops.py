"""``tf.nn.ctc_*`` and ``tf.nn.dilation2d`` under jtrain's own environment (x64 off),
against small golden values produced by TensorFlow 2.21 (``tf.compat.v1``, classic
graphs); the live comparisons are ``tests/interop/test_ctc_interop.py`` and
``tests/interop/test_nn_ops2_interop.py``."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

X = np.array(
    [
        [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 1.0]],
        [[-0.75, 1.25, 0.5, 0.0], [0.25, 2.0, -1.0, 0.5]],
        [[1.0, 0.5, -0.25, 1.5], [-1.5, 0.75, 1.0, 0.0]],
    ],
    np.float32,
)
INDICES = np.array([[0, 0], [0, 1], [1, 0]], np.int64)
VALUES = np.array([1, 2, 0], np.int32)
SEQ = [3, 2]

# TF 2.21's results for the graph below
TF_LOSS = np.array([4.447332, 1.7333206], np.float32)
TF_GRAD = np.array(
    [
        [[0.15423481, -0.5275129, 0.6912325, -0.31795454],
         [-0.28126132, 0.113552466, 0.06887305, 0.09883574]],
        [[0.07144694, -0.035657287, -0.15108389, 0.11529398],
         [-0.4356678, 0.6912325, 0.03441444, -0.28997916]],
        [[0.28234577, 0.17125136, -0.57793504, 0.12433788], [0.0, 0.0, 0.0, 0.0]],
    ],
    np.float32,
)  # fmt: skip
TF_BEAM_LOG_PROBS = np.array([[-1.2555467, -1.8374481], [-1.0447695, -1.1732304]], np.float32)


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def test_ctc_loss_and_gradient_match_tf_golden():
    with tf.Graph().as_default():
        x = tf.constant(X)
        loss = tf.nn.ctc_loss(tf.SparseTensor(INDICES, VALUES, [2, 2]), x, SEQ)
        grad = tf.gradients(loss, x)[0]
        assert loss.shape.as_list() == [2] and grad.shape.as_list() == [3, 2, 4]
        loss_v, grad_v = _run([loss, grad])
    assert loss_v.dtype == np.float32
    np.testing.assert_allclose(loss_v, TF_LOSS, rtol=1e-6)
    np.testing.assert_allclose(grad_v, TF_GRAD, rtol=0, atol=1e-6)


def test_ctc_loss_not_enough_time_is_tf_error():
    with tf.Graph().as_default():
        loss = tf.nn.ctc_loss(tf.SparseTensor(INDICES, VALUES, [2, 2]), tf.constant(X), [1, 2])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Not enough time"):
            _run(loss)


def test_decoders_match_tf_golden():
    with tf.Graph().as_default():
        x = tf.constant(X)
        greedy, neg_sum = tf.nn.ctc_greedy_decoder(x, SEQ)
        beams, log_probs = tf.nn.ctc_beam_search_decoder(x, SEQ, beam_width=3, top_paths=2)
        g, n, b, lp = _run([greedy[0], neg_sum, beams, log_probs])
    np.testing.assert_array_equal(g.indices, [[0, 0], [0, 1], [1, 0], [1, 1]])
    np.testing.assert_array_equal(g.values, [2, 1, 0, 1])
    assert g.values.dtype == np.int64 and list(g.dense_shape) == [2, 2]
    np.testing.assert_array_equal(n, np.array([[-4.75], [-3.5]], np.float32))
    np.testing.assert_array_equal(b[0].values, [2, 1, 0, 1])
    np.testing.assert_array_equal(b[1].indices, [[0, 0], [1, 0]])
    np.testing.assert_array_equal(b[1].values, [2, 1])
    np.testing.assert_allclose(lp, TF_BEAM_LOG_PROBS, rtol=2e-7)


def test_ctc_unique_labels_int64_exact_with_x64_off():
    big = 2**40 + 3
    with tf.Graph().as_default():
        y, idx = tf.nn.ctc_unique_labels(tf.constant(np.array([[big, 5, big, 0]], np.int64)))
        y_v, idx_v = _run([y, idx])
    assert y_v.dtype == np.int64 and idx_v.dtype == np.int32
    np.testing.assert_array_equal(y_v, [[big, 5, 0, 0]])
    np.testing.assert_array_equal(idx_v, [[0, 1, 0, 2]])


def test_dilation2d_first_maximum_gets_the_gradient():
    # TF 2.21: ties (all zeros) send each output's gradient to the window's first
    # valid position; values the maxima
    with tf.Graph().as_default():
        x = tf.constant(np.zeros((1, 3, 3, 1), np.float32))
        f = tf.constant(np.zeros((2, 2, 1), np.float32))
        y = tf.nn.dilation2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
        gx, gf = tf.gradients(y, [x, f])
        y_v, gx_v, gf_v = _run([y, gx, gf])
    np.testing.assert_array_equal(y_v, np.zeros((1, 2, 2, 1), np.float32))
    np.testing.assert_array_equal(gx_v[0, :, :, 0], [[1, 1, 0], [1, 1, 0], [0, 0, 0]])
    np.testing.assert_array_equal(gf_v[:, :, 0], [[4, 0], [0, 0]])
