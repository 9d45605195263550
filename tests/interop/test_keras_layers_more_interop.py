"""More ``tf.keras.layers`` in a TF1 graph, checked live against TF 2.21's legacy Keras
(``tf.compat.v1.keras`` with ``TF_USE_LEGACY_KERAS=1``, classic TF1 graphs: ``twin.py``):
the merge functions and ``Dot``, the 3-D, transposed, separable and depthwise
convolutions, the 3-D poolings, cropping, padding and upsampling layers.

Each layer is called on placeholders, its variables get fixed values; compared: the
output's name, static shape and dtype, the variables' names and shapes, the output's
value and the gradients of ``sum(out ** 2)`` with respect to the inputs and the
variables, and TF's errors for bad arguments. Each test failed before the layers
existed in ``adapters.v1.keras.layers`` (AttributeError).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RTOL, ATOL = 2e-5, 2e-6

_RNG = np.random.RandomState(7)
FEED = {
    "vec": _RNG.uniform(-1, 1, (2, 3)).astype(np.float32),
    "seq": _RNG.uniform(-1, 1, (2, 5, 3)).astype(np.float32),
    "seq2": _RNG.uniform(-1, 1, (2, 3, 5)).astype(np.float32),
    "img": _RNG.uniform(-1, 1, (2, 4, 4, 3)).astype(np.float32),
    "vol": _RNG.uniform(-1, 1, (2, 4, 3, 4, 2)).astype(np.float32),
}
SHAPES = {
    "vec": [None, 3],
    "seq": [None, 5, 3],
    "seq2": [None, 3, 5],
    "img": [None, 4, 4, 3],
    "vol": [None, 4, 3, 4, 2],
    "steps": [None, None, 3],
}
FEED["steps"] = FEED["seq"]


def _fixed(tf, variables):
    """Assign ops giving each variable a fixed value drawn from its index and shape."""
    ops = []
    for i, v in enumerate(variables):
        value = np.random.RandomState(i).uniform(-0.5, 0.5, v.shape.as_list()).astype(np.float32)
        ops.append(tf.assign(v, value))
    return ops


# "layer variant" -> build(K, x) -> output tensor, ``x`` the placeholders by FEED's keys
LAYERS = {
    "add": lambda K, x: K.layers.add([x["seq"], x["seq"] * 2.0, x["seq"]]),
    "add broadcast": lambda K, x: K.layers.add([x["seq"], x["vec"][:, None, :]]),
    "subtract named": lambda K, x: K.layers.subtract([x["vec"], x["vec"] * x["vec"]], name="sub"),
    "multiply": lambda K, x: K.layers.multiply([x["seq"], x["seq"] + 1.0]),
    "average": lambda K, x: K.layers.average([x["vec"], x["vec"] * 2.0, x["vec"] * x["vec"]]),
    "maximum": lambda K, x: K.layers.maximum([x["seq"], -x["seq"], x["seq"] * 0.5]),
    "minimum": lambda K, x: K.layers.minimum([x["vec"], -x["vec"]]),
    "concatenate axis 1": lambda K, x: K.layers.concatenate([x["seq"], x["seq"] * 2.0], axis=1),
    "concatenate": lambda K, x: K.layers.concatenate([x["img"], x["img"] * x["img"]]),
    "dot vectors": lambda K, x: K.layers.dot([x["vec"], x["vec"] * 2.0], axes=1),
    "dot vectors normalize": lambda K, x: K.layers.dot([x["vec"], x["vec"] + 1.0], 1, True),
    "dot seq vec": lambda K, x: K.layers.Dot(axes=-1)([x["seq"], x["vec"]]),
    "dot vec seq": lambda K, x: K.layers.Dot(axes=(1, 2))([x["vec"], x["seq"]]),
    "dot seq seq2": lambda K, x: K.layers.Dot(axes=(1, 2))([x["seq"], x["seq2"]]),
    "dot seq seq2 normalize": lambda K, x: K.layers.Dot((2, 1), normalize=True)(
        [x["seq"], x["seq2"]]
    ),
    "dot img seq": lambda K, x: K.layers.Dot(axes=(3, 2))([x["img"], x["seq"]]),
    "dot seq img": lambda K, x: K.layers.Dot(axes=(1, -1))([x["seq2"], x["img"]]),
    "dot img img": lambda K, x: K.layers.Dot(axes=2)([x["img"], x["img"] * 0.5]),
    # convolutions and poolings
    "conv3d": lambda K, x: K.layers.Conv3D(2, 2, activation="relu")(x["vol"]),
    "conv3d same strided": lambda K, x: K.layers.Convolution3D(
        2, (2, 3, 2), strides=(1, 2, 2), padding="same"
    )(x["vol"]),
    "conv3d dilated": lambda K, x: K.layers.Conv3D(1, 2, dilation_rate=(1, 2, 1))(x["vol"]),
    "conv3d_transpose": lambda K, x: K.layers.Conv3DTranspose(2, 2, strides=2)(x["vol"]),
    "conv3d_transpose same": lambda K, x: K.layers.Convolution3DTranspose(
        1, 3, strides=(1, 2, 1), padding="same", use_bias=False, activation="tanh"
    )(x["vol"]),
    "conv1d_transpose": lambda K, x: K.layers.Conv1DTranspose(2, 3, strides=2)(x["seq"]),
    "conv1d_transpose same": lambda K, x: K.layers.Convolution1DTranspose(
        2, 2, padding="same", activation="relu"
    )(x["seq"]),
    "separable_conv2d": lambda K, x: K.layers.SeparableConv2D(4, 2, depth_multiplier=2)(x["img"]),
    "separable_conv2d same strided": lambda K, x: K.layers.SeparableConvolution2D(
        2, 3, strides=2, padding="same", activation="relu"
    )(x["img"]),
    "separable_conv2d dilated": lambda K, x: K.layers.SeparableConv2D(2, 2, dilation_rate=2)(
        x["img"]
    ),
    "separable_conv1d": lambda K, x: K.layers.SeparableConv1D(2, 2)(x["seq"]),
    "separable_conv1d causal": lambda K, x: K.layers.SeparableConvolution1D(
        2, 2, padding="causal", dilation_rate=2, depth_multiplier=2
    )(x["seq"]),
    "separable_conv1d same strided": lambda K, x: K.layers.SeparableConv1D(
        2, 3, strides=2, padding="same", use_bias=False
    )(x["seq"]),
    "depthwise_conv2d": lambda K, x: K.layers.DepthwiseConv2D(2, depth_multiplier=2)(x["img"]),
    "depthwise_conv2d same strided": lambda K, x: K.layers.DepthwiseConv2D(
        3, strides=2, padding="same", activation="relu"
    )(x["img"]),
    "depthwise_conv2d channels_first": lambda K, x: K.layers.DepthwiseConv2D(
        2, data_format="channels_first"
    )(x["img"]),
    "depthwise_conv2d dilated": lambda K, x: K.layers.DepthwiseConv2D(
        2, dilation_rate=2, use_bias=False
    )(x["img"]),
    "depthwise_conv2d same dilated": lambda K, x: K.layers.DepthwiseConv2D(
        3, dilation_rate=2, padding="same", depth_multiplier=2
    )(x["img"]),
    "max_pool3d": lambda K, x: K.layers.MaxPooling3D()(x["vol"]),
    "max_pool3d same": lambda K, x: K.layers.MaxPool3D((2, 3, 2), strides=1, padding="same")(
        x["vol"]
    ),
    "avg_pool3d": lambda K, x: K.layers.AveragePooling3D((1, 2, 2))(x["vol"]),
    "avg_pool3d channels_first": lambda K, x: K.layers.AvgPool3D(2, data_format="channels_first")(
        x["vol"]
    ),
    "global_avg_pool3d": lambda K, x: K.layers.GlobalAveragePooling3D()(x["vol"]),
    "global_avg_pool3d channels_first keepdims": lambda K, x: K.layers.GlobalAvgPool3D(
        "channels_first", keepdims=True
    )(x["vol"]),
    "global_max_pool3d": lambda K, x: K.layers.GlobalMaxPooling3D(keepdims=True)(x["vol"]),
    "global_max_pool3d alias": lambda K, x: K.layers.GlobalMaxPool3D()(x["vol"]),
    # cropping, padding, upsampling
    "cropping1d": lambda K, x: K.layers.Cropping1D()(x["seq"]),
    "cropping1d end": lambda K, x: K.layers.Cropping1D((0, 2))(x["seq"]),
    "cropping1d int": lambda K, x: K.layers.Cropping1D(2)(x["seq"]),
    "cropping2d": lambda K, x: K.layers.Cropping2D()(x["img"]),
    "cropping2d int": lambda K, x: K.layers.Cropping2D(1)(x["img"]),
    "cropping2d pairs": lambda K, x: K.layers.Cropping2D(((1, 0), (0, 2)))(x["img"]),
    "cropping2d channels_first": lambda K, x: K.layers.Cropping2D(
        (1, 1), data_format="channels_first"
    )(x["img"]),
    "cropping3d": lambda K, x: K.layers.Cropping3D()(x["vol"]),
    "cropping3d pairs": lambda K, x: K.layers.Cropping3D(((0, 1), (1, 0), (0, 0)))(x["vol"]),
    "cropping3d channels_first": lambda K, x: K.layers.Cropping3D(
        ((1, 0), (0, 1), (0, 0)), data_format="channels_first"
    )(x["vol"]),
    "zero_padding1d": lambda K, x: K.layers.ZeroPadding1D()(x["seq"]),
    "zero_padding1d pair": lambda K, x: K.layers.ZeroPadding1D((0, 2))(x["seq"]),
    "zero_padding3d": lambda K, x: K.layers.ZeroPadding3D()(x["vol"]),
    "zero_padding3d ints": lambda K, x: K.layers.ZeroPadding3D((1, 0, 2))(x["vol"]),
    "zero_padding3d channels_first": lambda K, x: K.layers.ZeroPadding3D(
        ((1, 0), (0, 2), (1, 1)), data_format="channels_first"
    )(x["vol"]),
    "up_sampling1d": lambda K, x: K.layers.UpSampling1D()(x["seq"]),
    "up_sampling1d three": lambda K, x: K.layers.UpSampling1D(3)(x["seq"]),
    "up_sampling1d unknown steps": lambda K, x: K.layers.UpSampling1D(2)(x["steps"]),
    "up_sampling3d": lambda K, x: K.layers.UpSampling3D()(x["vol"]),
    "up_sampling3d channels_first": lambda K, x: K.layers.UpSampling3D(
        (1, 2, 3), data_format="channels_first"
    )(x["vol"]),
}


# One test per layer (the first word of LAYERS' keys), its variants in one graph.
KINDS = sorted({name.split()[0] for name in LAYERS})


@pytest.mark.parametrize("kind", KINDS)
def test_layer_names_shapes_values_and_gradients(kind):
    """Each variant of the layer: its output (name, static shape, dtype, value), its
    variables (names, shapes, collections) and the gradients of ``sum(out ** 2)`` with
    respect to the inputs and its variables."""

    def script(tf):
        x = {k: tf.placeholder(tf.float32, SHAPES[k], name=k) for k in FEED}
        inputs = list(x.values())
        outs, grads, info = [], [], []
        for name in sorted(LAYERS):
            if name.split()[0] != kind:
                continue
            before = len(tf.global_variables())
            out = LAYERS[name](tf.keras, x)
            variables = tf.global_variables()[before:]
            grad = tf.gradients(tf.reduce_sum(out * out), [*inputs, *variables])
            info.append(
                [
                    name,
                    out.name,
                    str(out.shape.as_list()),
                    out.dtype.name,
                    [(v.name, str(v.shape.as_list())) for v in variables],
                    [g is None for g in grad],
                ]
            )
            outs.append(out)
            grads.append([tf.convert_to_tensor(g) for g in grad if g is not None])
        info.append([v.name for v in tf.trainable_variables()])
        assigns = _fixed(tf, tf.global_variables())

        def run(sess):
            sess.run(assigns)
            return info, sess.run([outs, grads], {x[k]: FEED[k] for k in FEED})

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


# name -> build(K, x), expected to raise
ERRORS = {
    "dot axes str": lambda K, x: K.layers.Dot(axes="1"),
    "dot three axes": lambda K, x: K.layers.Dot(axes=(1, 2, 1)),
    "dot float axes": lambda K, x: K.layers.Dot(axes=(1, 2.0)),
    "dot three inputs": lambda K, x: K.layers.Dot(1)([x["vec"], x["vec"], x["vec"]]),
    "dot sizes differ": lambda K, x: K.layers.dot([x["seq"], x["seq"]], axes=(1, 2)),
    "dot not a list": lambda K, x: K.layers.Dot(1)(x["vec"]),
    "subtract three": lambda K, x: K.layers.subtract([x["vec"], x["vec"], x["vec"]]),
    "depthwise causal": lambda K, x: K.layers.DepthwiseConv2D(2, padding="causal"),
    "depthwise strides and dilation": lambda K, x: K.layers.DepthwiseConv2D(
        2, strides=2, dilation_rate=2
    ),
    "depthwise rank 5": lambda K, x: K.layers.DepthwiseConv2D(2)(x["vol"]),
    "conv1d_transpose rank 4": lambda K, x: K.layers.Conv1DTranspose(2, 2)(x["img"]),
    "conv3d kernel tuple": lambda K, x: K.layers.Conv3D(2, (2, 2)),
    "cropping1d too large": lambda K, x: K.layers.Cropping1D((3, 2))(x["seq"]),
    "cropping1d rank": lambda K, x: K.layers.Cropping1D()(x["img"]),
    "cropping2d too large": lambda K, x: K.layers.Cropping2D(((2, 2), (0, 0)))(x["img"]),
    "cropping2d three": lambda K, x: K.layers.Cropping2D((1, 1, 1)),
    "cropping2d float": lambda K, x: K.layers.Cropping2D(1.5),
    "cropping3d negative": lambda K, x: K.layers.Cropping3D(((1, -1), (0, 0), (0, 0))),
    "cropping3d entry": lambda K, x: K.layers.Cropping3D(((1, 1, 1), (0, 0), (0, 0))),
    "zero_padding1d negative": lambda K, x: K.layers.ZeroPadding1D(-1),
    "zero_padding3d two": lambda K, x: K.layers.ZeroPadding3D((1, 1)),
    "up_sampling3d zero": lambda K, x: K.layers.UpSampling3D((0, 1, 1)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_tf(name):
    """TF's error class and message for bad arguments and inputs."""

    def script(tf):
        x = {k: tf.placeholder(tf.float32, SHAPES[k], name=k) for k in FEED}
        try:
            ERRORS[name](tf.keras, x)
        except (TypeError, ValueError) as e:
            # TF's classic shapes print as (Dimension(None), ...): compare up to the shape
            result = (type(e).__name__, str(e).split("Full shape received")[0])
            return lambda sess: result
        return lambda sess: ("no error", "")

    theirs, ours = run_both(script)
    assert theirs[0] != "no error"
    assert ours == theirs


def test_layers_default_to_the_backends_image_data_format():
    """``data_format=None`` is ``tf.keras.backend.image_data_format()`` when the layer is
    made, for Keras' layers and ``tf.layers`` alike: after
    ``set_image_data_format("channels_first")`` the channels are axis 1 (before, a layer
    without ``data_format`` stayed channels-last: other shapes, or silently other
    values on square inputs). TF's CPU kernels refuse NCHW convolutions and poolings at
    run time, so those are compared by their static shapes; the rest by values and
    gradients too."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 3, 4, 4])
        K.backend.set_image_data_format("channels_first")
        try:
            conv = K.layers.Conv2D(2, 3)(x)
            pool = K.layers.MaxPooling2D()(x)
            tl_conv = tf.layers.Conv2D(2, 3, data_format=None)(x)
            outs = [
                K.layers.Flatten()(x),
                K.layers.GlobalAveragePooling2D()(x),
                K.layers.ZeroPadding2D(1)(x),
                K.layers.UpSampling2D()(x),
                K.layers.Cropping2D(1)(x),
            ]
        finally:
            K.backend.set_image_data_format("channels_last")
        static = [str(t.shape.as_list()) for t in (conv, pool, tl_conv, *outs)]
        loss = sum(tf.reduce_sum(t * t) for t in outs)
        (grad,) = tf.gradients(loss, [x])

        def run(sess):
            values = sess.run([*outs, grad], {x: FEED["img"].transpose(0, 3, 1, 2)})
            return static, values

        return run

    theirs, ours = run_both(script)
    assert theirs[0][0] == "[None, 2, 2, 2]"
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)
