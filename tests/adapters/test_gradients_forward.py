"""The step that fetches a loss and trains on its gradient runs the forward pass once.

``tf.gradients`` re-evaluates the forward operations as a function of the ``xs`` and
differentiates that with JAX; XLA merges the re-evaluation with the run's own forward
for straight-line code, but not a loop (the differentiated copy also keeps residuals),
nor what reads the loop's outputs. The run therefore takes the values of the
re-evaluated operations from the gradient's forward pass: one forward loop per step.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture
def compiled_steps(monkeypatch):
    """The optimized HLO text of every program the session compiles and runs."""
    texts: list[str] = []
    real_jit = jax.jit

    def recording_jit(fn, *args, **kwargs):
        jitted = real_jit(fn, *args, **kwargs)

        def call(*call_args):
            texts.append(jitted.lower(*call_args).compile().as_text())
            return jitted(*call_args)

        return call

    monkeypatch.setattr(jax, "jit", recording_jit)
    return texts


def _rnn_step():
    x = tf.placeholder(tf.float32, [2, 4, 3])
    cell = tf.nn.rnn_cell.BasicRNNCell(5)
    outputs, final = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(tf.layers.dense(outputs, 1)))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: np.linspace(-1.0, 1.0, 24, dtype=np.float32).reshape(2, 4, 3)}
    return train, loss, final, feed


def test_rnn_loop_runs_once_per_training_step(graph, compiled_steps):
    train, loss, final, feed = _rnn_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        compiled_steps.clear()
        sess.run([train, loss, final], feed)
    (step,) = [t for t in compiled_steps if "while" in t]
    # The forward loop over the 4 time steps (keeping the residuals) and its backward
    # loop; before, the run's own forward loop was a third. (Loops of other trip counts
    # are TF's order of the cell's small matmul: chains over K.)
    time_loops = [line for line in step.splitlines() if " while(" in line and '"n":"4"' in line]
    assert len(time_loops) == 2


def test_fetched_values_are_the_forward_pass_of_the_gradient(graph):
    # The loss and final state fetched with the train op are those a run without it
    # computes (the same operations on the same values).
    train, loss, final, feed = _rnn_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        alone = sess.run([loss, final], feed)
        with_train = sess.run([train, loss, final], feed)[1:]
        after = sess.run(loss, feed)
    np.testing.assert_array_equal(with_train[0], alone[0])
    np.testing.assert_array_equal(with_train[1], alone[1])
    assert after < alone[0]
