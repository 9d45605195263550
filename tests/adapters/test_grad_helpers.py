"""``tf.grad_pass_through``, ``tf.recompute_grad`` and ``tf.timestamp`` without TF
(TF parity: tests/interop/test_grad_helpers_interop.py)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def test_grad_pass_through_gives_the_identity_gradient(graph):
    x = tf.constant([0.4, 1.6])
    y = tf.grad_pass_through(tf.round)(x)
    (g,) = tf.gradients(y * 3.0, x)
    assert tf.gradients(tf.round(x) * 3.0, x) == [None]  # round has none
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run([y, g]), [[0.0, 2.0], [3.0, 3.0]])


def test_recompute_grad_is_the_function(graph):
    x = tf.constant([0.5, -2.0])
    v = tf.Variable([2.0, 3.0])  # a reference variable: accepted (TF 2.21 fails)
    r = tf.recompute_grad(lambda a: tf.sin(a) * v)(x)
    gx, gv = tf.gradients(r, [x, v])
    with tf.Session() as sess:
        sess.run(v.initializer)
        out = sess.run([r, gx, gv])
    xs = np.float32([0.5, -2.0])
    np.testing.assert_allclose(out[0], np.sin(xs) * [2.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(out[1], np.cos(xs) * [2.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(out[2], np.sin(xs), rtol=1e-6)
    with pytest.raises(ValueError, match="keywords arguments only when eager"):
        tf.recompute_grad(lambda a: a)(x=x)


def test_timestamp_is_read_each_run_in_float64(graph):
    p = tf.placeholder(tf.bool)
    t = tf.timestamp()
    inside = tf.cond(p, tf.timestamp, lambda: tf.constant(0.0, tf.float64))
    assert t.op._const_value is None and tf.gradients(t * 2.0, t)[0] is not None
    with tf.Session() as sess:
        before = time.time()
        a, b = sess.run([t, inside], {p: True})
        after = time.time()
        c = sess.run(t, {p: False})
    assert a.dtype == np.float64 and b.dtype == np.float64
    assert before - 1e-6 <= a <= after + 1e-6 and before - 1e-6 <= b <= after + 1e-6
    assert c > a
