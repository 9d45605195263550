"""``adapters.v1.keras``: what jtrain refuses (Model.save...) and its
session helpers. The TF-exact behaviour is checked live in
tests/interop/test_keras_interop.py."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

K = tf.keras


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_saving_the_whole_model_as_savedmodel_raises_not_implemented(graph):
    model = K.Sequential([K.layers.Dense(2, input_shape=(3,))])
    with pytest.raises(NotImplementedError, match=r"SavedModel format is not supported"):
        model.save("model", save_format="tf")


def test_unsupported_arguments_raise(graph):
    with pytest.raises(NotImplementedError, match="groups"):
        K.layers.Conv2D(4, 3, groups=2)
    with pytest.raises(NotImplementedError, match="mask_zero"):
        K.layers.Embedding(4, 3, mask_zero=True)
    with pytest.raises(NotImplementedError, match="interpolation"):
        K.layers.UpSampling2D(interpolation="bilinear")
    with pytest.raises(NotImplementedError, match="output_padding"):
        K.layers.Conv2DTranspose(2, 3, output_padding=1)
    with pytest.raises(ValueError, match="Could not interpret constraint"):
        K.layers.Dense(2, kernel_constraint="no_such_norm")


def test_missing_names_say_so():
    with pytest.raises(AttributeError, match="tf.keras.layers.ConvLSTM2D is not in adapters.v1"):
        K.layers.ConvLSTM2D  # noqa: B018
    with pytest.raises(AttributeError, match="tf.keras.datasets is not in adapters.v1"):
        K.datasets  # noqa: B018


def test_get_session_initializes_only_what_is_not(graph):
    layer = K.layers.Dense(2)
    layer(tf.placeholder(tf.float32, [None, 3]))
    with tf.Session(graph=graph) as sess:
        sess.run(tf.global_variables_initializer())
        layer.set_weights([np.ones((3, 2), np.float32), np.full(2, 3.0, np.float32)])
        kernel, bias = layer.get_weights()
        # a second get_session in the same session keeps the loaded values
        assert K.backend.get_session() is sess
        np.testing.assert_array_equal(sess.run(layer.kernel), np.ones((3, 2)))
    np.testing.assert_array_equal(kernel, np.ones((3, 2)))
    np.testing.assert_array_equal(bias, [3.0, 3.0])


def test_get_session_creates_one_and_initializes(graph):
    v = K.backend.variable([1.0, 2.0], name="v")
    sess = K.backend.get_session()
    assert sess.graph is graph
    np.testing.assert_array_equal(K.backend.get_value(v), [1.0, 2.0])
    K.backend.set_value(v, [5.0, 6.0])
    np.testing.assert_array_equal(sess.run(v), [5.0, 6.0])
    assert K.backend.get_session() is sess
    np.testing.assert_array_equal(sess.run(v), [5.0, 6.0])  # not initialized again
    sess.close()


def test_set_weights_checks_count_and_shapes(graph):
    layer = K.layers.Dense(2)
    layer(tf.placeholder(tf.float32, [None, 3]))
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer.set_weights([np.ones((3, 2))])
    with pytest.raises(ValueError, match=r"weight shape \(3, 2\) is not compatible"):
        layer.set_weights([np.ones((2, 2)), np.ones(2)])
    assert layer.count_params() == 8


def test_set_learning_phase_fixes_training(graph):
    K.backend.set_learning_phase(1)
    assert K.backend.learning_phase() == 1
    bn = K.layers.BatchNormalization(momentum=0.5)
    x = tf.placeholder(tf.float32, [None, 2])
    out = bn(x)
    data = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    with tf.Session(graph=graph) as sess:
        sess.run(tf.global_variables_initializer())
        y, _ = sess.run([out, bn.updates], {x: data})
        mean = sess.run(bn.moving_mean)
    np.testing.assert_allclose(y.mean(axis=0), [0.0, 0.0], atol=1e-6)  # batch statistics
    np.testing.assert_allclose(mean, [1.0, 2.0])  # 0.5 * 0 + 0.5 * [2, 4]
    with pytest.raises(ValueError, match="Expected learning phase to be 0 or 1"):
        K.backend.set_learning_phase(2)


def test_functional_model_graph_disconnected(graph):
    a = K.Input(shape=(3,))
    b = K.Input(shape=(3,))
    out = K.layers.Dense(2)(K.layers.Add()([a, b]))
    with pytest.raises(ValueError, match="Graph disconnected"):
        K.Model(a, out)
    model = K.Model([a, b], out)
    assert [layer.name for layer in model.layers] == ["input_1", "input_2", "add", "dense"]
    assert model.get_layer("dense") is model.layers[3]


def test_subclassed_model_tracks_its_layers(graph):
    class Net(K.Model):
        def __init__(self):
            super().__init__()
            self.hidden = K.layers.Dense(4, activation="relu")
            self.out = K.layers.Dense(1)

        def call(self, inputs):
            return self.out(self.hidden(inputs))

    net = Net()
    y = net(tf.placeholder(tf.float32, [None, 3]))
    assert y.shape.as_list() == [None, 1]
    assert [w.name for w in net.weights] == [
        "net/dense/kernel:0", "net/dense/bias:0", "net/dense_1/kernel:0", "net/dense_1/bias:0",
    ]  # fmt: skip


def test_to_categorical():
    out = K.utils.to_categorical([1, 0, 2])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.eye(3)[[1, 0, 2]])


def test_functional_model_over_a_raw_op_says_to_use_lambda(graph):
    x = K.Input(shape=(3,))
    doubled = K.layers.Dense(2)(x) * 2.0
    with pytest.raises(NotImplementedError, match="wrap the op in tf.keras.layers.Lambda"):
        K.Model(x, K.layers.Dense(1)(doubled))
    out = K.layers.Dense(1)(K.layers.Lambda(lambda t: t * 2.0)(K.layers.Dense(2)(x)))
    assert len(K.Model(x, out).layers) == 4


def test_summary_of_an_unbuilt_model_raises(graph):
    with pytest.raises(ValueError, match="This model has not yet been built"):
        K.Sequential([K.layers.Dense(2)]).summary()
    with pytest.raises(NotImplementedError, match="expand_nested"):
        K.Sequential([K.layers.Dense(2, input_shape=(2,))]).summary(expand_nested=True)


@pytest.mark.parametrize(
    "layer, shape, out_shape, weights",
    [
        (lambda: K.layers.PReLU(shared_axes=[1]), (None, 5, 3), (None, 5, 3), [(1, 3)]),
        (
            lambda: K.layers.LayerNormalization(axis=[1, 2]),
            (None, 5, 3),
            (None, 5, 3),
            [(5, 3)] * 2,
        ),
        (lambda: K.layers.LayerNormalization(scale=False), (None, 4), (None, 4), [(4,)]),
        (lambda: K.layers.RepeatVector(3), (None, 4), (None, 3, 4), []),
        (lambda: K.layers.Permute((2, 1)), (None, 5, 3), (None, 3, 5), []),
        (lambda: K.layers.GlobalAveragePooling1D(), (None, 5, 3), (None, 3), []),
        (lambda: K.layers.GlobalMaxPool1D(keepdims=True), (None, 5, 3), (None, 1, 3), []),
        (lambda: K.layers.ELU(0.5), (None, 4), (None, 4), []),
        (lambda: K.layers.ThresholdedReLU(0.5), (None, 4), (None, 4), []),
    ],
)
def test_new_layers_shapes_and_weights(graph, layer, shape, out_shape, weights):
    """Static output shapes and weight shapes (a PReLU's alpha shared along axis 1, a
    LayerNormalization's gamma and beta over its axes); a step of gradient descent on
    the weights runs."""
    x = tf.placeholder(tf.float32, shape)
    out = layer()(x)
    assert tuple(out.shape.as_list()) == out_shape
    assert [tuple(v.shape.as_list()) for v in tf.trainable_variables()] == weights
    loss = tf.reduce_sum(tf.square(out))
    feed = {
        x: np.linspace(-1.0, 2.0, 2 * int(np.prod(shape[1:])), dtype=np.float32).reshape(
            (2, *shape[1:])
        )
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        if weights:
            sess.run(tf.train.GradientDescentOptimizer(0.1).minimize(loss), feed)
        assert np.isfinite(sess.run(loss, feed))
