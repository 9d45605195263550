"""``tf.layers.flatten``/``Flatten`` of inputs whose batch and some other dimension are
unknown: TF's ``[tf.shape(x)[0], -1]`` reshape, static shape ``[?, ?]``."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


def _fits(shape, dims):
    return all(d is None or d == n for d, n in zip(shape, dims, strict=True))


@pytest.mark.parametrize("shape", [[None, None, None, 3], [None, 4, None, 3], [None, None]])
def test_flatten_with_unknown_batch_and_spatial_dims(graph, shape):
    x = tf.placeholder(tf.float32, shape)
    y = tf.layers.flatten(x)
    assert y.shape.as_list() == [None, None]
    first = np.arange(120, dtype=np.float32).reshape(2, 4, 5, 3)
    second = np.arange(36, dtype=np.float32).reshape(3, 2, 2, 3)
    feeds = [first, second] if len(shape) == 4 else [first.reshape(2, -1)]
    feeds = [f for f in feeds if _fits(shape, f.shape)]
    with tf.Session() as sess:
        for f in feeds:
            np.testing.assert_array_equal(sess.run(y, {x: f}), f.reshape(f.shape[0], -1))


def test_flatten_channels_first_with_unknown_dims(graph):
    x = tf.placeholder(tf.float32, [None, None, None, 3])
    y = tf.layers.Flatten(data_format="channels_first")(x)
    assert y.shape.as_list() == [None, None]
    value = np.arange(120, dtype=np.float32).reshape(2, 4, 5, 3)
    with tf.Session() as sess:
        out = sess.run(y, {x: value})
    np.testing.assert_array_equal(out, value.transpose(0, 2, 3, 1).reshape(2, -1))


def test_flatten_keeps_the_known_shapes(graph):
    assert tf.layers.flatten(tf.placeholder(tf.float32, [None, 4, 5, 3])).shape.as_list() == [
        None,
        60,
    ]
    assert tf.layers.flatten(tf.placeholder(tf.float32, [2, None, 3])).shape.as_list() == [
        2,
        None,
    ]
