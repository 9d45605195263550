"""``tf.nn`` ops added for TF1 model scripts (``dilation2d``, ``erosion2d``), checked
live against TF 2.21 (``twin.py``): values, gradients, dtypes, static shapes, node
names and TF's errors.

Until ``adapters/v1/ops/dilation_ops.py`` these names raised ``AttributeError``.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RS = np.random.RandomState(0)
# Rounded values: many ties, where TF's gradient goes to the first maximum only.
X = np.round(RS.randn(2, 5, 6, 3) * 2).astype(np.float32)
F = np.round(RS.randn(2, 3, 3)).astype(np.float32)

GEOMETRIES = [
    ([1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    ([1, 2, 1, 1], [1, 1, 2, 1], "VALID"),
    ([1, 2, 3, 1], [1, 2, 1, 1], "SAME"),
    ([1, 3, 3, 1], [1, 3, 3, 1], "SAME"),  # windows reaching into the padding only
]


@pytest.mark.parametrize("op", ["dilation2d", "erosion2d"])
@pytest.mark.parametrize("strides, rates, padding", GEOMETRIES)
def test_morphology_values_gradients_shapes(op, strides, rates, padding):
    def script(tf):
        x, f = tf.constant(X), tf.constant(F)
        fn = getattr(tf.nn, op)
        y = fn(x, f, strides, rates, padding)
        size = int(np.prod(y.shape.as_list()))
        w = np.round(np.random.RandomState(1).randn(size) * 4).astype(np.float32) / 4
        gx, gf = tf.gradients(tf.reduce_sum(y * tf.reshape(w, y.shape.as_list())), [x, f])
        return lambda sess: (sess.run([y, gx, gf]), y.shape.as_list(), y.op.name, y.op.type)

    (t_vals, *t_meta), (o_vals, *o_meta) = run_both(script)
    assert o_meta == t_meta
    assert_twins(t_vals, o_vals, rtol=0)  # bit for bit: maxima, sums of exact values


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8])
def test_dilation2d_dtypes_and_keywords(dtype):
    x = (np.abs(X) * 3).astype(dtype)
    f = (np.abs(F) * 2).astype(dtype)

    def script(tf):
        y = tf.nn.dilation2d(
            tf.constant(x),
            filters=tf.constant(f),
            strides=[1, 1, 2, 1],
            dilations=[1, 2, 1, 1],
            padding="SAME",
        )
        return lambda sess: sess.run(y)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_dilation2d_placeholder_static_shape():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, 5, 6, 3])
        y = tf.nn.dilation2d(x, F, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
        return lambda sess: (sess.run(y, {x: X}), y.shape.as_list())

    theirs, ours = run_both(script)
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


@pytest.mark.parametrize(
    "kwargs, filt",
    [
        ({"strides": [1, 1, 1], "rates": [1, 1, 1, 1]}, F),
        ({"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1]}, F[:, :, :2]),
        ({"strides": [1, 1, 1, 1], "rates": [1, 1, 1]}, F),
        ({"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "FOO"}, F),
        ({"strides": [1, 1, 1, 1], "rates": [1, 9, 1, 1], "padding": "VALID"}, F),
    ],
    ids=["three strides", "depth mismatch", "three rates", "bad padding", "negative size"],
)
def test_dilation2d_errors(kwargs, filt):
    messages = []
    for tf in (real_tf.compat.v1, jtf):
        with tf.Graph().as_default():
            with pytest.raises(ValueError) as info:
                tf.nn.dilation2d(tf.constant(X), tf.constant(filt), **{"padding": "SAME", **kwargs})
            messages.append(str(info.value))
    theirs, ours = messages
    assert ours.split(" for '")[0] in theirs


# -- with_space_to_batch -------------------------------------------------------------------
# Small integers: the convolutions' sums are exact, so TF's and jtrain's agree bit for bit.
SX = np.round(RS.randn(2, 7, 9, 3) * 2).astype(np.float32)
SW = np.round(RS.randn(3, 2, 3, 4)).astype(np.float32)


@pytest.mark.parametrize(
    "rate, padding",
    [([2, 2], "SAME"), ([2, 3], "VALID"), ([1, 1], "SAME"), ([3, 1], "SAME")],
)
def test_with_space_to_batch_conv(rate, padding):
    def script(tf):
        x, w = tf.constant(SX), tf.constant(SW)

        def op(inp, num_spatial_dims, pad):
            assert num_spatial_dims == 2
            return tf.nn.conv2d(inp, w, [1, 1, 1, 1], pad)

        y = tf.nn.with_space_to_batch(x, rate, padding, op, filter_shape=SW.shape)
        ops_ = [o.type for o in tf.get_default_graph().get_operations()]
        kinds = [t for t in ops_ if t in ("SpaceToBatchND", "BatchToSpaceND", "Conv2D")]
        grads = tf.gradients(tf.reduce_sum(y * y), [x, w])
        return lambda sess: (sess.run([y, *grads]), y.shape.as_list(), kinds)

    (t_vals, *t_meta), (o_vals, *o_meta) = run_both(script)
    assert o_meta == t_meta
    assert_twins(t_vals, o_vals, rtol=0)


def test_with_space_to_batch_errors():
    for tf in (real_tf.compat.v1, jtf):
        with tf.Graph().as_default():
            x = tf.constant(SX)
            with pytest.raises(ValueError, match="`filter_shape` must be specified"):
                tf.nn.with_space_to_batch(x, [2, 2], "SAME", lambda i, n, p: i)
            with pytest.raises(ValueError, match="`dilation_rate` must be positive"):
                tf.nn.with_space_to_batch(x, [0, 2], "VALID", lambda i, n, p: i)


def test_convolution_takes_strides_and_rates_as_tf():
    """``tf.nn.convolution``'s ``strides``/``dilation_rate``: an int, one entry per
    spatial dimension, or ``n + 2`` entries, as TF's ``_get_sequence`` (an int raised
    TypeError here before); another length is TF's ValueError."""

    def script(tf):
        x = tf.constant(X)
        w = tf.constant(np.round(np.random.RandomState(2).randn(3, 3, 3, 2)).astype(np.float32))
        outs = [
            tf.nn.convolution(x, w, "SAME", strides=2),
            tf.nn.convolution(x, w, "SAME", dilation_rate=2),
            tf.nn.convolution(x, w, "VALID", strides=[2, 1]),
            tf.nn.convolution(x, w, "SAME", strides=[1, 2, 2, 1]),
            tf.nn.convolution(x, w, "VALID", dilation_rate=(1,)),
        ]
        grads = tf.gradients(sum(tf.reduce_sum(o * o) for o in outs), [x, w])
        try:
            tf.nn.convolution(x, w, "SAME", strides=[1, 2, 2])
            error = None
        except ValueError as e:
            error = str(e)
        shapes = [o.shape.as_list() for o in outs]

        def run(sess):
            return shapes, error, sess.run(outs + grads)

        return run

    theirs, ours = run_both(script)
    assert theirs[1] is not None
    assert_twins(theirs, ours, rtol=1e-5, atol=1e-5)
