"""``tf.layers`` and ``tf.keras.layers`` transposed convolutions over inputs whose batch
or spatial sizes are known only when the graph runs, checked live against TF 2.21 as
classic TF1 (``twin.py``): the static shape, the output and the input's gradient.

A GAN's generator or an autoencoder's decoder fed a ``[None, h, w, c]`` placeholder
raised ``ValueError`` (``tf.layers``: "needs the batch dimension of its input known
when the graph is built"; ``tf.keras``: ``NotImplementedError`` for unknown spatial
sizes). As TF's layers do, the output shape is then a ``tf.stack`` of
``tf.shape(inputs)``'s dimensions.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

# Positive inputs and weights: sums without cancellation, so float32 orders agree to 1e-6.
X = np.arange(1, 2 * 4 * 5 * 2 + 1, dtype=np.float32).reshape(2, 4, 5, 2) / 10.0


def _script(api: str, shape: tuple, padding: str, strides: int):
    def script(tf):
        x = tf.placeholder(tf.float32, shape)
        init = tf.constant_initializer(np.linspace(0.1, 0.9, 3 * 3 * 3 * 2))
        if api == "layers":
            y = tf.layers.conv2d_transpose(
                x, 3, 3, strides=strides, padding=padding, kernel_initializer=init,
                bias_initializer=tf.constant_initializer(0.25),
            )  # fmt: skip
        else:
            y = tf.keras.layers.Conv2DTranspose(
                3, 3, strides=strides, padding=padding, kernel_initializer=init,
                bias_initializer=tf.constant_initializer(0.25),
            )(x)  # fmt: skip
        grad = tf.gradients(tf.reduce_sum(y * y), x)
        static = y.shape.as_list()
        return lambda sess: (static, sess.run([y, grad], {x: X}))

    return script


@pytest.mark.parametrize("api", ["layers", "keras"])
@pytest.mark.parametrize("shape", [(None, 4, 5, 2), (None, None, None, 2), (2, None, 5, 2)])
@pytest.mark.parametrize("padding, strides", [("same", 2), ("valid", 2), ("valid", 1)])
def test_unknown_input_sizes(api, shape, padding, strides):
    theirs, ours = run_both(_script(api, shape, padding, strides))
    assert ours[0] == theirs[0]  # the static shape
    assert_twins(theirs[1], ours[1], rtol=1e-6, atol=1e-6)


def test_three_dimensional_of_an_unknown_batch():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, 2, 3, 2, 1])
        y = tf.layers.conv3d_transpose(
            x, 2, 2, strides=2, kernel_initializer=tf.constant_initializer(0.5),
            bias_initializer=tf.constant_initializer(0.25),
        )  # fmt: skip
        grad = tf.gradients(tf.reduce_sum(y * y), x)
        static = y.shape.as_list()
        feed = {x: np.arange(1, 25, dtype=np.float32).reshape(2, 2, 3, 2, 1) / 8.0}
        return lambda sess: (static, sess.run([y, grad], feed))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", ["conv2d_transpose", "conv3d_transpose"])
def test_nn_transpose_of_an_unknown_batch_to_a_static_output_shape(op):
    """``tf.nn.conv2d_transpose`` of a ``[None, ...]`` input to a constant
    ``output_shape`` (a decoder written for a fixed batch): TF builds it (the unknown
    batch merges with the output's) and checks the sizes when it runs; jtrain raised
    ``ValueError`` ("The shape of out_backprop [d0, ...] does not match") when the
    graph was built. TF's values and gradients; the static shape is TF's but for
    ``conv3d_transpose``'s batch, which jtrain leaves unknown (TF's Conv3DBackpropInputV2
    takes it from ``output_shape``, Conv2DBackpropInput's merge leaves it unknown)."""
    rank = 4 if op == "conv2d_transpose" else 5
    spatial = (3,) * (rank - 2)
    xv = np.linspace(0.1, 1, 2 * 3 ** (rank - 2) * 4, dtype=np.float32).reshape(2, *spatial, 4)
    wv = np.linspace(0.05, 0.7, 3 ** (rank - 2) * 5 * 4, dtype=np.float32)
    wv = wv.reshape(*(3,) * (rank - 2), 5, 4)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, *spatial, 4])
        w = tf.constant(wv)
        out = getattr(tf.nn, op)(
            x, w, [2, *(6,) * (rank - 2), 5], [1, *(2,) * (rank - 2), 1], "SAME"
        )
        grads = tf.gradients(tf.reduce_sum(out * out), [x, w])
        return lambda sess: (out.shape.as_list(), sess.run([out, grads], {x: xv}))

    theirs, ours = run_both(script)
    assert theirs[0] == [None if rank == 4 else 2, *(6,) * (rank - 2), 5]
    assert ours[0] == [None, *theirs[0][1:]]
    assert_twins(theirs[1], ours[1])


@pytest.mark.parametrize("api", ["layers", "keras"])
def test_dense_over_an_unknown_batch_and_time(api):
    """``tf.layers.dense`` / ``tf.keras.layers.Dense`` of a ``[None, None, 16]`` input
    (a sequence model's unknown batch and length): jtrain raised ValueError ("can only
    specify one unknown axis size with a -1 value") when the graph was built. TF's
    static shape, values and gradients."""
    xv = np.linspace(0.1, 1, 2 * 3 * 16, dtype=np.float32).reshape(2, 3, 16)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, None, 16])
        init = tf.constant_initializer(np.linspace(0.05, 0.5, 16 * 8))
        if api == "layers":
            y = tf.layers.dense(x, 8, kernel_initializer=init)
        else:
            y = tf.keras.layers.Dense(8, kernel_initializer=init)(x)
        grads = tf.gradients(tf.reduce_sum(y * y), [x])

        def run(sess):
            sess.run(tf.global_variables_initializer())
            return y.shape.as_list(), sess.run([y, grads], {x: xv})

        return run

    theirs, ours = run_both(script)
    assert theirs[0] == ours[0] == [None, None, 8]
    assert_twins(theirs[1], ours[1])
