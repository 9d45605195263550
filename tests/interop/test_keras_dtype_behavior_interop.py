"""Keras layers' dtypes in a TF1 graph, checked live against TF 2.21's legacy Keras.

A TF1 script (TF 1.x, or TF 2 after ``tf.compat.v1.disable_v2_behavior()``) runs Keras'
V1 dtype behaviour, which ``tests/interop/conftest.py`` sets for TF here and adapters.v1
has by default: a layer without ``dtype`` takes its first input's (a float64 placeholder
gives float64 weights and outputs; ``Embedding`` stays ``floatx``), no input is cast
(a float32 ``Conv2D`` on float64 input is TF's TypeError), and only ``Dense`` and the
normalizations cast their input to their dtype; regularizers' losses come in the
weights' dtype. ``enable_v2_dtype_behavior()`` gives
TF 2's: float32 layers casting floating inputs. Each test failed before adapters.v1
had the V1 behaviour (it cast every layer's input to float32: a silent dtype change).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from tests.interop.twin import assert_twins, jtf, run_both, tf1

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(3)
FEED = {
    "vec": _RNG.uniform(-1, 1, (2, 3)),
    "seq": _RNG.uniform(-1, 1, (2, 5, 3)),
    "img": _RNG.uniform(-1, 1, (2, 4, 4, 3)),
    "ids": np.array([[0, 3, 1], [4, 2, 2]]),
}
SHAPES = {"vec": [None, 3], "seq": [None, 5, 3], "img": [None, 4, 4, 3], "ids": [None, 3]}

# "variant" -> (input key, input dtype, build(K) -> layer); each layer is called on a
# placeholder of that dtype
LAYERS = {
    "dense float64": ("vec", "float64", lambda K: K.layers.Dense(2, activation="tanh")),
    "dense float64 regularized": (
        "vec",
        "float64",
        lambda K: K.layers.Dense(
            2,
            kernel_regularizer=K.regularizers.l1_l2(0.1, 0.3),
            bias_regularizer="l2",
            activity_regularizer=K.regularizers.L1(0.2),
        ),
    ),
    "dense float16": ("vec", "float16", lambda K: K.layers.Dense(2)),
    "dense float32 on float64": ("vec", "float64", lambda K: K.layers.Dense(2, dtype="float32")),
    "conv2d float64": ("img", "float64", lambda K: K.layers.Conv2D(2, 2, activation="relu")),
    "conv1d float64": ("seq", "float64", lambda K: K.layers.Conv1D(2, 2)),
    "batch_norm float64": ("vec", "float64", lambda K: K.layers.BatchNormalization()),
    "batch_norm float32 on float64": (
        "img",
        "float64",
        lambda K: K.layers.BatchNormalization(dtype="float32"),
    ),
    "layer_norm float64": ("vec", "float64", lambda K: K.layers.LayerNormalization()),
    "layer_norm float32 on float64": (
        "seq",
        "float64",
        lambda K: K.layers.LayerNormalization(dtype="float32"),
    ),
    "embedding int32": ("ids", "int32", lambda K: K.layers.Embedding(5, 2)),
    "activation float64": ("vec", "float64", lambda K: K.layers.Activation("sigmoid")),
    "activation float32 on float64": (
        "vec",
        "float64",
        lambda K: K.layers.Activation("tanh", dtype="float32"),
    ),
    "activation int32": ("ids", "int32", lambda K: K.layers.Activation("relu")),
    "flatten float64": ("img", "float64", lambda K: K.layers.Flatten()),
    "max_pool float32 on float64": (
        "img",
        "float64",
        lambda K: K.layers.MaxPooling2D(dtype="float32"),
    ),
    "global_average_pool float64": ("img", "float64", lambda K: K.layers.GlobalAveragePooling2D()),
    "dropout float64": ("vec", "float64", lambda K: K.layers.Dropout(0.5)),
    "leaky_relu float64": ("vec", "float64", lambda K: K.layers.LeakyReLU()),
    "softmax float64": ("vec", "float64", lambda K: K.layers.Softmax()),
    "reshape float64": ("img", "float64", lambda K: K.layers.Reshape((8, 6))),
}


@contextlib.contextmanager
def _v2_dtypes(tf):
    """Keras' V2 dtype behaviour switched on for ``tf`` (TF's or adapters.v1's), V1's
    restored after."""
    layers = tf.keras.layers if tf is not tf1 else tf1.keras.layers
    layers.enable_v2_dtype_behavior()
    try:
        yield
    finally:
        layers.disable_v2_dtype_behavior()


def _fixed(tf, variables):
    """Assign ops giving each variable fixed values of its dtype."""
    ops = []
    for i, v in enumerate(variables):
        dtype = v.dtype.base_dtype.as_numpy_dtype
        value = np.random.RandomState(i).uniform(-0.5, 0.5, v.shape.as_list())
        ops.append(tf.assign(v, value.astype(dtype)))
    return ops


def _script(names, v2=False):
    def script(tf):
        K = tf.keras
        with _v2_dtypes(tf) if v2 else contextlib.nullcontext():
            layers = {name: LAYERS[name][2](K) for name in names}
        feed, info, outs, losses = {}, [], [], []
        for name in names:
            key, dtype, _ = LAYERS[name]
            x = tf.placeholder(dtype, SHAPES[key])
            feed[x] = FEED[key].astype(dtype)
            layer = layers[name]
            y = layer(x)
            weights = [(w.name, w.dtype.base_dtype.name) for w in layer.weights]
            info.append([layer.dtype, y.dtype.base_dtype.name, str(y.shape.as_list()), weights])
            outs.append([y, *layer.losses])  # the regularizers' losses in its dtype
            if y.dtype.base_dtype.is_floating and x.dtype.base_dtype.is_floating:
                grads = tf.gradients(tf.reduce_sum(y * y), [x, *layer.trainable_weights])
                losses.append(grads)
        inits = _fixed(tf, [v for name in names for v in layers[name].weights])

        def run(sess):
            sess.run(inits)
            return info, sess.run([outs, losses], feed)

        return run

    return script


RTOL, ATOL = 2e-5, 2e-6


@pytest.mark.parametrize("names", [sorted(LAYERS)], ids=["all"])
def test_layers_take_their_first_inputs_dtype_as_tf1(names):
    """Dtypes, names, shapes, values and gradients of every variant in one graph."""
    plain = [n for n in names if "float16" not in n]
    assert_twins(*run_both(_script(plain)), rtol=RTOL, atol=ATOL)
    # float16: jtrain computes in float32 and rounds once, TF's kernels round more often
    half = [n for n in names if "float16" in n]
    assert_twins(*run_both(_script(half)), rtol=2e-3, atol=2e-3)


def test_v2_dtype_behavior_casts_floating_inputs_to_float32_as_tf2():
    """After ``enable_v2_dtype_behavior()`` layers are float32 and cast float64 inputs."""
    names = ["dense float64", "conv2d float64", "activation float64", "flatten float64"]
    assert_twins(*run_both(_script(names, v2=True)), rtol=RTOL, atol=ATOL)


ERRORS = {
    # a float32 convolution does not cast its float64 input (V1 behaviour)
    "conv2d float32 on float64": (
        "img",
        "float64",
        lambda K: K.layers.Conv2D(2, 2, dtype="float32"),
    ),
    "dense int32": ("ids", "int32", lambda K: K.layers.Dense(2)),
    "reshape size": ("img", "float64", lambda K: K.layers.Reshape((12,))),
    "reshape two unknown": ("img", "float64", lambda K: K.layers.Reshape((-1, -1))),
    "reshape unknown size": ("img", "float64", lambda K: K.layers.Reshape((-1, 5))),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_tf(name):
    key, dtype, build = ERRORS[name]
    errors = []
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            x = tf.placeholder(dtype, SHAPES[key])
            with pytest.raises((TypeError, ValueError)) as info:
                build(tf.keras)(x)
            errors.append((type(info.value), str(info.value).split("\n")[0][:60]))
    assert errors[1] == errors[0]
