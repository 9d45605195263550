"""An integer ``reduce_mean`` over no elements is 0, as TF 2.21 gives (it used to kill
the process: an integer division by a count of 0)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint16"])
def test_integer_mean_of_nothing_is_zero(graph, dtype):
    x = tf.placeholder(tf.as_dtype(dtype), [None, None])
    outs = [tf.reduce_mean(x), tf.reduce_mean(x, 1), tf.reduce_mean(x, 0, keepdims=True)]
    with tf.Session() as sess:
        every, rows, columns = sess.run(outs, {x: np.zeros([2, 0], dtype)})
        assert every == 0 and every.dtype == np.dtype(dtype)
        assert rows.tolist() == [0, 0] and columns.shape == (1, 0)
        assert sess.run(outs[1], {x: [[3, 4, 6]]}).tolist() == [4]


def test_float_mean_of_nothing_is_nan(graph):
    with tf.Session() as sess:
        assert np.isnan(sess.run(tf.reduce_mean(tf.zeros([0]))))
