"""A ``tf.nn.dynamic_rnn`` over a ``[None, None, depth]`` placeholder saved with
``Saver.save`` (its ``.meta``), reloaded with ``tf.train.import_meta_graph`` into a new
graph, restored and run by tensor names, under TF 2.21 and under ``adapters.v1``:
each side reloads its own ``.meta``; the values are TF's.

jtrain's ``.meta`` did not reload: the loop's ``Exit`` node was exported without its
function (``UnimplementedError`` at run time), since the time-major inputs
``[time, batch, depth]`` and the zero state ``[batch, units]`` were given unrelated
symbolic dimensions (``meta_graph._traced_specs``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

FEEDS = [
    np.linspace(-1.0, 1.0, 2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4),
    np.linspace(1.5, -0.5, 1 * 5 * 4, dtype=np.float32).reshape(1, 5, 4),
]

_count = itertools.count()


def _reloaded(tf, sess, tmp_path, fetch_names, feeds):
    """Saves ``sess``'s graph, imports its ``.meta`` into a new graph and runs
    ``fetch_names`` there for each of ``feeds`` (``{name: value}``)."""
    prefix = str(tmp_path / f"model{next(_count)}")
    tf.train.Saver().save(sess, prefix)
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        with tf.Session(graph=graph) as new:
            saver.restore(new, prefix)
            return [new.run(fetch_names, feed) for feed in feeds]


def test_dynamic_rnn_gru_reloads_from_meta(tmp_path):
    def script(tf):
        x = tf.placeholder(tf.float32, [None, None, 4], name="x")
        cell = tf.nn.rnn_cell.GRUCell(
            3, kernel_initializer=tf.random_uniform_initializer(-0.7, 0.7, seed=3)
        )
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        tf.identity(outputs, name="outputs")
        tf.identity(state, name="state")

        def run(sess):
            before = [sess.run(["outputs:0", "state:0"], {"x:0": f}) for f in FEEDS]
            after = _reloaded(
                tf, sess, tmp_path, ["outputs:0", "state:0"], [{"x:0": f} for f in FEEDS]
            )
            return before, after

        return run

    (t_before, t_after), (o_before, o_after) = run_both(script)
    assert_twins(t_after, o_after, rtol=1e-6, atol=1e-7)
    assert_twins(o_before, o_after, rtol=0.0)


def test_dynamic_rnn_lstm_with_sequence_length_reloads_from_meta(tmp_path):
    def script(tf):
        x = tf.placeholder(tf.float32, [None, None, 4], name="x")
        lengths = tf.placeholder(tf.int32, [None], name="lengths")
        cell = tf.nn.rnn_cell.LSTMCell(
            3, num_proj=2, initializer=tf.random_uniform_initializer(-0.5, 0.5, seed=5)
        )
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
        tf.identity(outputs, name="outputs")
        tf.identity(state.c, name="c")
        tf.identity(state.h, name="h")
        names = ["outputs:0", "c:0", "h:0"]
        feeds = [{"x:0": FEEDS[0], "lengths:0": [3, 1]}, {"x:0": FEEDS[1], "lengths:0": [4]}]

        def run(sess):
            before = [sess.run(names, f) for f in feeds]
            return before, _reloaded(tf, sess, tmp_path, names, feeds)

        return run

    (t_before, t_after), (o_before, o_after) = run_both(script)
    assert_twins(t_after, o_after, rtol=1e-6, atol=1e-7)
    assert_twins(o_before, o_after, rtol=0.0)


def test_rnn_training_graph_reloads_from_meta_and_trains_on(tmp_path):
    """A ``MultiRNNCell`` and a ``bidirectional_dynamic_rnn`` trained by
    ``GradientDescentOptimizer``: the reloaded graph's ``train`` op (the loops'
    gradients) run by name, steps of two feed shapes, TF's losses."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None, None, 4], name="x")
        init = tf.random_uniform_initializer(-0.5, 0.5, seed=1)
        with tf.variable_scope("model", initializer=init):
            cells = tf.nn.rnn_cell.MultiRNNCell(
                [tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.GRUCell(2)]
            )
            outputs, _ = tf.nn.dynamic_rnn(cells, x, dtype=tf.float32)
            (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(
                tf.nn.rnn_cell.GRUCell(2, name="fw"),
                tf.nn.rnn_cell.GRUCell(2, name="bw"),
                x,
                dtype=tf.float32,
            )
        total = tf.reduce_sum(outputs**2) + tf.reduce_sum(fw * bw)
        tf.identity(total, name="loss")
        tf.train.GradientDescentOptimizer(0.1).minimize(total, name="train")

        def run(sess):
            feeds = [{"x:0": FEEDS[i % 2]} for i in range(4)]
            return _reloaded(tf, sess, tmp_path, ["loss:0", "train"], feeds)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=2e-6, atol=1e-7)
