"""Random ops inside tf.while_loop / tf.cond: the gradient uses the forward pass's draws.

Each snippet runs under TF 2.21 (classic TF1, ``twin.py``) and under ``adapters.v1``;
values and gradients of several consecutive runs are compared. TF's gradient of a
loop reuses the masks its forward pass drew (one draw position per iteration) and the
stream moves on once per run. Before the fix jtrain's gradient re-ran the loop from the
stream's position after the run, with one position for every iteration (the while
loop cases gave ``y = 10, 8`` and gradients ``8, 12``). The loops run with
``parallel_iterations=1``: a draw that does not depend on the loop variables races
across TF's parallel iterations (which iteration gets which draw varies in TF).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop


def _runs(fetches, sess, n=3):
    return [sess.run(fetches) for _ in range(n)]


def test_dropout_in_while_loop_gradient_uses_forward_masks():
    def script(tf):
        tf.set_random_seed(1)
        w = tf.Variable(1.0)

        def body(i, a):
            return [i + 1, a + tf.nn.dropout(tf.ones([4]) * w, keep_prob=0.5, seed=3)]

        _, out = tf.while_loop(
            lambda i, a: i < 2,
            body,
            [0, tf.zeros([4])],
            maximum_iterations=2,
            parallel_iterations=1,
        )
        y = tf.reduce_sum(out)
        (g,) = tf.gradients(y, [w])
        return lambda sess: _runs([y, g, out], sess)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    for y, g, _ in ours:  # every draw is 0 or 2 (w = 1): the gradient is y
        assert y == g


def test_random_uniform_in_while_loop_three_iterations_gradient():
    def script(tf):
        tf.set_random_seed(4)
        w = tf.Variable([1.0, 2.0, 3.0])

        def body(i, a):
            noise = tf.random_uniform([3], seed=9)
            return [i + 1, a + tf.square(w * noise)]

        _, out = tf.while_loop(
            lambda i, a: i < 3,
            body,
            [0, tf.zeros([3])],
            maximum_iterations=3,
            parallel_iterations=1,
        )
        loss = tf.reduce_sum(out)
        (g,) = tf.gradients(loss, [w])
        return lambda sess: _runs([out, g], sess)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-5)


def test_dropout_in_cond_branch_gradient_uses_forward_mask():
    def script(tf):
        tf.set_random_seed(2)
        w = tf.Variable(1.0)
        p = tf.placeholder_with_default(True, [])
        out = tf.cond(
            p,
            lambda: tf.nn.dropout(tf.ones([6]) * w, keep_prob=0.5, seed=5),
            lambda: tf.ones([6]) * w,
        )
        y = tf.reduce_sum(out)
        (g,) = tf.gradients(y, [w])
        return lambda sess: _runs([y, g, out], sess)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_dropout_without_loop_gradient_is_mask_over_keep_prob():
    def script(tf):
        tf.set_random_seed(1)
        w = tf.Variable(1.0)
        d = tf.nn.dropout(w * tf.ones([6]), keep_prob=0.5, seed=5)
        y = tf.reduce_sum(d)
        (g,) = tf.gradients(y, [w])
        return lambda sess: _runs([y, g, d], sess)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_dropout_in_nested_while_loop_and_cond_gradient():
    def script(tf):
        tf.set_random_seed(3)
        w = tf.Variable([1.0, 2.0])

        def inner(j, b):
            d = tf.nn.dropout(tf.ones([2]) * w, keep_prob=0.5, seed=8)
            return [j + 1, b + tf.cond(j < 1, lambda: d * w, lambda: d)]

        def outer(i, a):
            _, b = tf.while_loop(
                lambda j, b: j < 2,
                inner,
                [0, tf.zeros([2])],
                maximum_iterations=2,
                parallel_iterations=1,
            )
            return [i + 1, a + b * tf.random_uniform([2], seed=4)]

        # parallel_iterations=1: TF draws in iteration order (a draw that does not
        # depend on the loop variables races across TF's parallel iterations)
        _, out = tf.while_loop(
            lambda i, a: i < 2,
            outer,
            [0, tf.zeros([2])],
            maximum_iterations=2,
            parallel_iterations=1,
        )
        (g,) = tf.gradients(tf.reduce_sum(out), [w])
        return lambda sess: _runs([out, g], sess)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6)


def test_dynamic_rnn_dropout_wrapper_gradients():
    def script(tf):
        tf.set_random_seed(7)
        x = tf.constant(np.linspace(-1.0, 1.0, 2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2))
        # constant weights: the test is about the dropout masks, not the initializers
        with tf.variable_scope("rnn_scope", initializer=tf.constant_initializer(0.3)):
            cell = tf.nn.rnn_cell.BasicRNNCell(3, name="rnn_cell")
            cell = tf.nn.rnn_cell.DropoutWrapper(
                cell, input_keep_prob=0.5, output_keep_prob=0.7, seed=11
            )
            # parallel_iterations=1: TF draws in time order (with parallel iterations
            # its draws race: which time step gets which draw varies between runs)
            outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, parallel_iterations=1)
        loss = tf.reduce_sum(tf.square(outputs))
        grads = tf.gradients(loss, tf.trainable_variables())
        return lambda sess: _runs([outputs, grads], sess)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-5, atol=1e-6)
