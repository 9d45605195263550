"""``tf.nn.raw_rnn``'s bound (jtrain compiles the emit TensorArrays with a static
capacity): found from the fixed-size input TensorArray, given as ``maximum_iterations``,
or a clear ``NotImplementedError``. Values and gradients against TF:
tests/interop/test_raw_rnn_interop.py."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


def _decoder(**kwargs):
    cell = tf.nn.rnn_cell.BasicRNNCell(3)
    start = tf.constant(np.ones([2, 3], np.float32))

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:
            return time >= 3, start, cell.zero_state(2, tf.float32), None, None
        return time >= 3, cell_output, cell_state, cell_output, None

    return tf.nn.raw_rnn(cell, loop_fn, **kwargs)


def test_no_bound_raises_naming_the_way_out():
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="raw_rnn.*maximum_iterations=N"):
            _decoder()


def test_maximum_iterations_bounds_the_emits():
    with tf.Graph().as_default():
        emit_ta, state, loop_state = _decoder(maximum_iterations=3)
        out = emit_ta.stack()
        assert loop_state is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values, final = sess.run([out, state])
        assert values.shape == (3, 2, 3)
        np.testing.assert_array_equal(values[-1], final)
