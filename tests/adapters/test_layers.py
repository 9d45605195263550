"""``tf.layers`` (v1) in the compat layer: names, sharing, collections, flags and errors.

Values and gradients against TensorFlow are in ``tests/interop/test_layers_interop.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _names(items):
    return [getattr(x, "name", x) for x in items]


def test_functional_layers_name_variables_like_tf():
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    with tf.variable_scope("net"):
        h = tf.layers.conv2d(x, 3, 3, padding="same")
        h = tf.layers.batch_normalization(h)
        h = tf.layers.dense(tf.layers.flatten(h), 2)
        tf.layers.dense(h, 2)
    assert _names(tf.global_variables()) == [
        "net/conv2d/kernel:0",
        "net/conv2d/bias:0",
        "net/batch_normalization/gamma:0",
        "net/batch_normalization/beta:0",
        "net/batch_normalization/moving_mean:0",
        "net/batch_normalization/moving_variance:0",
        "net/dense/kernel:0",
        "net/dense/bias:0",
        "net/dense_1/kernel:0",
        "net/dense_1/bias:0",
    ]
    assert "net/batch_normalization/moving_mean:0" not in _names(tf.trainable_variables())
    assert tf.moving_average_variables() == []
    assert h.name == "net/dense/BiasAdd:0"


def test_named_layer_reuse_shares_variables_and_opens_a_new_name_scope():
    x = tf.placeholder(tf.float32, [None, 3])
    a = tf.layers.dense(x, 2, name="out")
    b = tf.layers.dense(x, 2, name="out", reuse=True)
    assert _names(tf.global_variables()) == ["out/kernel:0", "out/bias:0"]
    assert (a.name, b.name) == ("out/BiasAdd:0", "out_1/BiasAdd:0")
    with pytest.raises(ValueError, match="already exists"):
        tf.layers.dense(x, 2, name="out")
    with pytest.raises(ValueError, match="does not exist"):
        tf.layers.dense(x, 2, name="other", reuse=True)


def test_a_layer_object_called_twice_reuses_its_variables():
    layer = tf.layers.Dense(3, use_bias=False)
    x = tf.placeholder(tf.float32, [None, 2])
    layer(x)
    layer(x * 2.0)
    assert _names(layer.variables) == ["dense/kernel:0"] == _names(tf.global_variables())
    assert layer.name == "dense_1" and layer.scope_name == "dense"
    with pytest.raises(ValueError, match="incompatible with the layer"):
        layer(tf.placeholder(tf.float32, [None, 5]))


def test_trainable_false_keeps_variables_out_of_trainable_variables():
    x = tf.placeholder(tf.float32, [None, 3])
    layer = tf.layers.Dense(2, trainable=False)
    layer(x)
    assert tf.trainable_variables() == []
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2


def test_regularizers_go_to_regularization_losses():
    x = tf.placeholder(tf.float32, [None, 3])
    reg = lambda w: tf.reduce_sum(w) * 0.0 + 1.0  # noqa: E731
    with tf.variable_scope("net"):
        tf.layers.dense(
            x, 2, kernel_regularizer=reg, bias_regularizer=reg, activity_regularizer=reg
        )
    assert _names(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == [
        "net/dense/kernel/Regularizer/add:0",
        "net/dense/bias/Regularizer/add:0",
        "net/dense/ActivityRegularizer/truediv:0",
    ]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        total = sess.run(tf.losses.get_regularization_loss(), {x: np.ones((4, 3), np.float32)})
    assert total == np.float32(2.25)  # 1 + 1 + 1 / batch of 4


@pytest.mark.parametrize("shape", [[None, 2, 2, 3], [None, 3]])
def test_batch_norm_updates_only_when_training(shape):
    x = tf.placeholder(tf.float32, shape)
    tf.layers.batch_normalization(x, training=False)
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    tf.layers.batch_normalization(x, training=True)
    assert _names(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == [
        "batch_normalization_1/AssignMovingAvg",
        "batch_normalization_1/AssignMovingAvg_1",
    ]


@pytest.mark.parametrize("shape", [[4, 2, 2, 3], [4, 3]])
def test_batch_norm_tensor_flag_moves_statistics_only_when_true(shape):
    x = tf.placeholder(tf.float32, shape)
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, training=training)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        step = tf.identity(y)
    mean = tf.global_variables()[2]
    value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, {x: value, training: False})
        assert not sess.run(mean).any()
        sess.run(step, {x: value, training: True})
        assert sess.run(mean).all()


def test_dropout_is_the_identity_when_not_training_or_rate_zero():
    x = tf.placeholder(tf.float32, [2, 3])
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    outs = [tf.layers.dropout(x, 0.5), tf.layers.dropout(x, 0.0, training=True)]
    with tf.Session() as sess:
        for got in sess.run(outs, {x: value}):
            np.testing.assert_array_equal(got, value)


def _dropout_runs(layer: bool, runs: int = 3):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [40, 50])
        training = tf.placeholder_with_default(True, [])
        if layer:
            out = tf.layers.dropout(x, 0.5, seed=7, training=training)
        else:
            out = tf.nn.dropout(x, rate=0.5, seed=7)
        value = np.arange(1, 2001, dtype=np.float32).reshape(40, 50)
        with tf.Session() as sess:
            got = [sess.run(out, {x: value}) for _ in range(runs)]
            if layer:
                np.testing.assert_array_equal(sess.run(out, {x: value, training: False}), value)
    return value, got


def test_dropout_training_drops_and_scales_as_nn_dropout():
    """training=True (a bool tensor here) is tf.nn.dropout with the layer's rate and seed."""
    value, got = _dropout_runs(layer=True)
    _, direct = _dropout_runs(layer=False)
    for out in got:
        kept = out != 0
        np.testing.assert_array_equal(out[kept], value[kept] * np.float32(2.0))
        assert 0.4 < kept.mean() < 0.6
    assert not np.array_equal(got[0] != 0, got[1] != 0)  # a fresh mask every run
    for a, b in zip(got, direct, strict=True):
        np.testing.assert_array_equal(a, b)


def test_flatten_and_pooling_shapes():
    x = tf.placeholder(tf.float32, [None, 5, 4, 3])
    assert tf.layers.flatten(x).shape.as_list() == [None, 60]
    assert tf.layers.max_pooling2d(x, 2, 2).shape.as_list() == [None, 2, 2, 3]
    assert tf.layers.average_pooling2d(x, 2, 2, padding="same").shape.as_list() == [None, 3, 2, 3]
    s = tf.placeholder(tf.float32, [None, 7, 3])
    assert tf.layers.max_pooling1d(s, 2, 2).shape.as_list() == [None, 3, 3]
    assert tf.layers.conv1d(s, 4, 3, padding="causal").shape.as_list() == [None, 7, 4]


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda x: tf.layers.dense(x, 2, bogus=1), TypeError, "bogus"),
        (lambda x: tf.layers.Dense(2, bogus=1), TypeError, "not understood: bogus"),
        (lambda x: tf.layers.conv2d(x, 2, 3, padding="full"), ValueError, "padding"),
        (lambda x: tf.layers.conv2d(x, 2, (3, 3, 3)), ValueError, "kernel_size"),
        (lambda x: tf.layers.max_pooling2d(x, 2, 2, data_format="NHWC"), ValueError, "data_format"),
        (lambda x: tf.layers.batch_normalization(x, renorm=True), NotImplementedError, "renorm"),
        (lambda x: tf.layers.conv2d(x[0], 2, 3), ValueError, "expected min_ndim=4, found ndim=3"),
    ],
)
def test_bad_arguments_raise_tf_errors(make, error, message):
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    with pytest.raises(error, match=message):
        make(x)


def test_missing_layer_names_raise_helpful_attribute_errors():
    with pytest.raises(AttributeError, match="tf.layers.experimental is not in adapters.v1"):
        tf.layers.experimental  # noqa: B018


def test_transposed_convolution_of_an_unknown_batch():
    # TF's layer stacks tf.shape(inputs)'s batch into the op's output_shape (values
    # checked live in tests/interop/test_conv_transpose_layers_interop.py).
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    z = tf.layers.conv2d_transpose(x, 3, 2, strides=2)
    assert z.shape.as_list() == [None, 8, 8, 3]
    y = tf.layers.conv2d_transpose(tf.placeholder(tf.float32, [2, 4, 4, 2]), 3, 2, strides=2)
    assert y.shape.as_list() == [2, 8, 8, 3]
    assert _names(tf.global_variables())[-2:] == [
        "conv2d_transpose_1/kernel:0",
        "conv2d_transpose_1/bias:0",
    ]
