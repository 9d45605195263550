"""``tf.keras.layers``' regularization layers, ``Identity`` and ``Rescaling`` in a TF1
graph, checked live against TF 2.21's legacy Keras (``tf.compat.v1.keras`` with
``TF_USE_LEGACY_KERAS=1``, classic TF1 graphs: ``twin.py``).

The random layers run with a graph seed and layer seeds: their noise and masks must be
TF's bit for bit, each random op a layer builds taking the next op seed (``seed``,
``seed + 1``...). Compared: the outputs' names, static shapes, dtypes and values, the
gradients of ``sum(out ** 2)`` with respect to the inputs, the layers' attributes and
losses, and TF's errors for bad arguments. Each test failed before the layers existed
in ``adapters.v1.keras.layers`` (AttributeError).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RTOL, ATOL = 2e-5, 2e-6

_RNG = np.random.RandomState(11)
FEED = {
    "vec": _RNG.uniform(-1, 1, (4, 6)).astype(np.float32),
    "seq": _RNG.uniform(-1, 1, (3, 5, 4)).astype(np.float32),
    "img": _RNG.uniform(-1, 1, (2, 3, 4, 5)).astype(np.float32),
    "vol": _RNG.uniform(-1, 1, (2, 3, 2, 4, 3)).astype(np.float32),
}
SHAPES = {
    "vec": [None, 6],
    "seq": [None, 5, 4],
    "img": [None, 3, 4, 5],
    "vol": [None, 3, 2, 4, 3],
}


def _placeholders(tf):
    return {k: tf.placeholder(tf.float32, SHAPES[k], name=k) for k in FEED}


def _feed(x):
    return {x[k]: FEED[k] for k in FEED}


def _described(tf, outs, inputs):
    """Each output's name, static shape and dtype, and the gradients of ``sum(out ** 2)``
    with respect to ``inputs`` (None where there is none)."""
    info, grads = [], []
    for out in outs:
        info.append([out.name, str(out.shape.as_list()), out.dtype.name])
        grad = tf.gradients(tf.reduce_sum(out * out), inputs)
        info[-1].append([g is None for g in grad])
        grads.append([g for g in grad if g is not None])
    return info, grads


# "layer variant" -> build(K, x) -> the outputs of its calls (training given)
RANDOM = {
    "gaussian_noise": lambda K, x: _calls(K.layers.GaussianNoise(0.4, seed=3), x["seq"]),
    "gaussian_noise vec": lambda K, x: _calls(K.layers.GaussianNoise(2.0, seed=0), x["vec"]),
    "gaussian_noise float64": lambda K, x: _calls(
        K.layers.GaussianNoise(0.5, seed=12, dtype="float64"), x["img"]
    ),
    "gaussian_noise unseeded float64": lambda K, x: _calls(
        K.layers.GaussianNoise(1.5, dtype="float64"), x["seq"]
    ),
    "gaussian_dropout": lambda K, x: _calls(K.layers.GaussianDropout(0.3, seed=4), x["seq"]),
    "gaussian_dropout high": lambda K, x: _calls(K.layers.GaussianDropout(0.9, seed=1), x["vol"]),
    "gaussian_dropout float64": lambda K, x: _calls(
        K.layers.GaussianDropout(0.5, seed=8, dtype="float64"), x["vec"]
    ),
    "alpha_dropout": lambda K, x: _calls(K.layers.AlphaDropout(0.3, seed=5), x["seq"]),
    "alpha_dropout unseeded": lambda K, x: _calls(K.layers.AlphaDropout(0.5), x["vec"]),
    "alpha_dropout noise_shape": lambda K, x: _calls(
        K.layers.AlphaDropout(0.6, noise_shape=[3, 1, 4], seed=5), x["seq"]
    ),
    "alpha_dropout float64": lambda K, x: _calls(
        K.layers.AlphaDropout(0.2, seed=9, dtype="float64"), x["img"]
    ),
    "spatial_dropout1d": lambda K, x: _calls(K.layers.SpatialDropout1D(0.5, seed=6), x["seq"]),
    "spatial_dropout1d noise_shape ignored": lambda K, x: _calls(
        K.layers.SpatialDropout1D(0.3, noise_shape=[3, 5, 4], seed=2), x["seq"]
    ),
    "spatial_dropout1d unseeded": lambda K, x: _calls(K.layers.SpatialDropout1D(0.5), x["seq"]),
    "spatial_dropout2d": lambda K, x: _calls(K.layers.SpatialDropout2D(0.5, seed=6), x["img"]),
    "spatial_dropout2d channels_first": lambda K, x: _calls(
        K.layers.SpatialDropout2D(0.4, data_format="channels_first", seed=7), x["img"]
    ),
    "spatial_dropout3d": lambda K, x: _calls(K.layers.SpatialDropout3D(0.5, seed=6), x["vol"]),
    "spatial_dropout3d channels_first": lambda K, x: _calls(
        K.layers.SpatialDropout3D(0.5, data_format="channels_first", seed=10), x["vol"]
    ),
}


def _calls(layer, x):
    """The layer called while training, outside training (the input itself, no seed
    taken), and while training again (the next op seed: another draw)."""
    return [layer(x, training=True), layer(x, training=False), layer(x * 2.0, training=True)]


KINDS = sorted({name.split()[0] for name in RANDOM})


@pytest.mark.parametrize("kind", KINDS)
def test_seeded_random_layers_draw_tfs_noise_as_tf(kind):
    """With a graph seed and a layer seed, each call of the layer while training draws
    TF's noise (or mask), the next call with the next op seed (an unseeded layer: the
    graph's next op seed, as every unseeded op's); float64 layers draw
    float64 noise (AlphaDropout's uniform stays floatx, as TF's). Outputs' names,
    shapes, dtypes, values and the gradients of ``sum(out ** 2)``: bit for bit, float32
    Gaussian noise included (before glibc's ``logf``/``sincosf`` were reproduced,
    jtrain's ``tf.random.normal`` was 1-2 ulps from TF's on ~1.5% of the elements and
    the Gaussian layers were compared to a tolerance)."""

    def script(tf):
        tf.set_random_seed(1)
        x = _placeholders(tf)
        outs = []
        for name in sorted(RANDOM):
            if name.split()[0] == kind:
                outs += RANDOM[name](tf.keras, x)
        info, grads = _described(tf, outs, list(x.values()))

        def run(sess):
            return info, sess.run([outs, grads], _feed(x))

        return run

    assert_twins(*run_both(script), rtol=0, atol=0)


def test_random_layers_follow_the_learning_phase_as_tf():
    """``training`` not given is the learning phase: fed True, the seeded layers draw
    TF's noise (each layer's first op seed); by default (False) the output is the input's
    value. (TF builds a ``cond``, jtrain a select: the outputs' names differ, as
    ``Dropout``'s; compared are values, dtypes, shapes and gradients.)"""

    def script(tf):
        tf.set_random_seed(5)
        K = tf.keras
        x = _placeholders(tf)
        layers = [
            (K.layers.GaussianNoise(0.3, seed=1, dtype="float64"), x["vec"]),
            (K.layers.GaussianDropout(0.4, seed=2, dtype="float64"), x["seq"]),
            (K.layers.AlphaDropout(0.5, seed=3), x["img"]),
            (K.layers.SpatialDropout1D(0.5, seed=4), x["seq"]),
            (K.layers.SpatialDropout2D(0.3, seed=5), x["img"]),
            (K.layers.SpatialDropout3D(0.6, data_format="channels_first", seed=6), x["vol"]),
        ]
        outs = [layer(inputs) for layer, inputs in layers]
        outs.append(K.layers.SpatialDropout1D(0.5, seed=7).call(x["seq"]))  # None: the phase
        _, grads = _described(tf, outs, list(x.values()))
        phase = K.backend.learning_phase()

        def run(sess):
            feed = _feed(x)
            return sess.run([outs, grads], {**feed, phase: True}), sess.run([outs, grads], feed)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)
    for t, key in zip(theirs[1][0], ["vec", "seq", "img", "seq", "img", "vol", "seq"], strict=True):
        np.testing.assert_array_equal(t, FEED[key].astype(t.dtype))


def test_layers_outside_training_or_without_noise_return_their_input_as_tf():
    """Outside training the Gaussian and alpha layers return the input tensor itself (no
    op), and so do ``GaussianDropout`` and ``AlphaDropout`` with a rate outside (0, 1)
    even while training (TF does not check it); the spatial dropouts with rate 0 are
    ``tf.identity`` as ``Dropout``; on a Keras tensor a returned input is copied as
    ``<name>/<name>/Identity``, the model's layers and outputs as TF's."""

    def script(tf):
        tf.set_random_seed(2)
        K = tf.keras
        x = _placeholders(tf)
        outs = [
            K.layers.GaussianNoise(1.0, seed=1)(x["vec"], training=False),
            K.layers.GaussianDropout(0.5)(x["seq"], training=False),
            K.layers.GaussianDropout(0.0, seed=1)(x["seq"], training=True),
            K.layers.GaussianDropout(1.0)(x["vec"], training=True),
            K.layers.GaussianDropout(1.5)(x["vec"]),
            K.layers.AlphaDropout(0.2, seed=3)(x["img"], training=False),
            K.layers.AlphaDropout(0.0)(x["img"], training=True),
            K.layers.AlphaDropout(-1.0)(x["img"], training=True),
            K.layers.SpatialDropout1D(0.0, seed=1)(x["seq"], training=True),
            K.layers.SpatialDropout2D(0.0)(x["img"]),
            K.layers.SpatialDropout3D(0.5)(x["vol"], training=False),
            K.layers.ActivityRegularization(0.1)(x["vec"]),
        ]
        keras_in = K.Input((4,))
        held = [
            K.layers.ActivityRegularization(l1=0.5)(keras_in),
            K.layers.GaussianNoise(0.5)(keras_in, training=False),
            K.layers.GaussianDropout(0.0)(keras_in),
            K.layers.AlphaDropout(1.0)(keras_in),
        ]
        model = K.Model(keras_in, K.layers.Dense(2, kernel_initializer="ones")(held[0]))
        called = model(x["seq"][:, 0])
        info, grads = _described(tf, outs, list(x.values()))
        info.append([t.name for t in held] + [called.name, [layer.name for layer in model.layers]])

        def run(sess):
            return info, sess.run([outs, grads, called], _feed(x))

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_activity_regularization_adds_its_loss_as_tf():
    """``ActivityRegularization`` returns its input and adds ``L1L2(l1, l2)`` of it,
    divided by the batch size, to ``losses`` (``.../ActivityRegularizer/truediv``); its
    defaults (0, 0) add a zero loss; the losses' gradients; in a model the layer's loss
    is the model's."""

    def script(tf):
        K = tf.keras
        x = _placeholders(tf)
        layers = [
            K.layers.ActivityRegularization(0.1, 0.2),
            K.layers.ActivityRegularization(l1=0.3),
            K.layers.ActivityRegularization(l2=0.7, name="act"),
            K.layers.ActivityRegularization(),
        ]
        outs = [
            layers[0](x["seq"]),
            layers[1](x["vec"]),
            layers[2](x["img"]),
            layers[3](x["vec"]),
        ]
        losses = [loss for layer in layers for loss in layer.losses]
        seq = K.Sequential([K.layers.Dense(3, input_shape=(6,)), layers[1]])
        info = [
            [t.name for t in outs],
            [(t.name, t.dtype.name, str(t.shape.as_list())) for t in losses],
            [(layer.l1, layer.l2, layer.supports_masking, layer.name) for layer in layers],
            [float(layers[0].activity_regularizer.l1), float(layers[0].activity_regularizer.l2)],
            [str(layers[0].compute_output_shape((None, 5, 4))), len(seq.losses)],
        ]
        grads = tf.gradients(tf.add_n(losses), list(x.values()))
        info.append([g is None for g in grads])
        grads = [g for g in grads if g is not None]

        def run(sess):
            return info, sess.run([outs, losses, grads], _feed(x))

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_identity_and_rescaling_as_tf():
    """``Identity`` is ``tf.identity`` of its input (each of a list); ``Rescaling`` is
    ``inputs * scale + offset`` in the layer's dtype, integer inputs cast (float32 by
    default, float64 with ``dtype``); names, shapes, dtypes, values and gradients."""

    def script(tf):
        K = tf.keras
        x = _placeholders(tf)
        ints = tf.placeholder(tf.int32, [None, 3], name="ints")
        identities = K.layers.Identity()([x["vec"], x["seq"]])
        outs = [
            K.layers.Identity()(x["img"]),
            K.layers.Identity(name="same")(x["vol"]),
            K.layers.Identity()(tf.cast(x["vec"], tf.float64)),
            K.layers.Identity(dtype="float64")(x["seq"]),
            *identities,
            K.layers.Rescaling(1.0 / 255)(x["vec"]),
            K.layers.Rescaling(1.0 / 127.5, offset=-1)(x["img"]),
            K.layers.Rescaling(2, 3)(x["seq"]),
            K.layers.Rescaling(0.5, offset=0.25, dtype="float64")(x["vol"]),
            K.layers.Rescaling(1.0 / 255)(tf.cast(x["vec"] * 100.0, tf.float64)),
        ]
        int_outs = [
            K.layers.Rescaling(1.0 / 255)(ints),
            K.layers.Rescaling(2.0, offset=-1, dtype="float64")(ints),
        ]
        info, grads = _described(tf, outs, list(x.values()))
        info.append([[t.name, str(t.shape.as_list()), t.dtype.name] for t in int_outs])
        scaling = K.layers.Rescaling(3.0, offset=1.5)
        info.append([scaling.scale, scaling.offset, str(scaling.compute_output_shape((None, 2)))])
        seq = K.Sequential([K.layers.Rescaling(0.5, input_shape=(6,)), K.layers.Identity()])
        info.append([seq.outputs[0].name, str(seq.outputs[0].shape.as_list())])

        def run(sess):
            feed = {**_feed(x), ints: [[0, 128, 255], [1, 2, 3]]}
            return info, sess.run([outs, grads, int_outs], feed)

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_attributes_shapes_and_models_as_tf():
    """The layers' attributes (``rate``, ``stddev``, ``seed``, ``noise_shape``,
    ``data_format`` from ``image_data_format()``, ``supports_masking``, ``input_spec``),
    ``compute_output_shape``, and a seeded ``Sequential`` of them whose training output
    is TF's (the noise of the model's own call after its construction's: the next op
    seeds)."""

    def script(tf):
        tf.set_random_seed(3)
        K = tf.keras
        layers = [
            K.layers.GaussianNoise(0.1),
            K.layers.GaussianDropout(0.2, seed=4),
            K.layers.AlphaDropout(0.3, noise_shape=[1, 6], seed=5),
            K.layers.SpatialDropout1D(0.4, seed=6),
            K.layers.SpatialDropout2D(0.5),
            K.layers.SpatialDropout3D(0.6, data_format="channels_first", seed=7),
        ]
        info = [
            [
                layer.name,
                getattr(layer, "rate", None),
                getattr(layer, "stddev", None),
                layer.seed,
                list(layer.noise_shape) if getattr(layer, "noise_shape", None) else None,
                getattr(layer, "data_format", None),
                layer.supports_masking,
                str(layer.input_spec),
                layer.trainable,
                layer.dtype,
            ]
            for layer in layers
        ]
        info.append(
            [
                str(layer.compute_output_shape(shape))
                for layer, shape in zip(
                    layers,
                    [(None, 3), (2, 3), (None, 6), (None, 5, 4), (2, 3, 4, 5), (None, 1, 2, 3, 4)],
                    strict=True,
                )
            ]
        )
        model = K.Sequential(
            [
                K.layers.GaussianNoise(0.5, seed=1, input_shape=(5, 4)),
                K.layers.SpatialDropout1D(0.5, seed=2),
                K.layers.AlphaDropout(0.2, seed=3),
                K.layers.GaussianDropout(0.3, seed=4),
            ]
        )
        x = tf.placeholder(tf.float32, [None, 5, 4])
        out = model(x, training=True)
        info.append([out.name, str(out.shape.as_list()), [layer.name for layer in model.layers]])
        grad = tf.gradients(tf.reduce_sum(out * out), x)

        def run(sess):
            return info, sess.run([out, grad], {x: FEED["seq"]})

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_bad_arguments_raise_tfs_errors():
    """TF's errors: a spatial dropout's rate outside [0, 1] or ``data_format`` other
    than the two (case-sensitive, unlike other layers') raise ValueError; inputs of the
    wrong rank ValueError (the input spec's message); Gaussian noise on integers
    TypeError; unknown keywords and missing arguments TypeError."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        attempts = [
            lambda: K.layers.SpatialDropout1D(1.5),
            lambda: K.layers.SpatialDropout2D(-0.1),
            lambda: K.layers.SpatialDropout2D(0.5, data_format="NHWC"),
            lambda: K.layers.SpatialDropout3D(0.5, data_format="Channels_first"),
            lambda: K.layers.SpatialDropout1D(0.5, name="s1")(x),
            lambda: K.layers.SpatialDropout2D(0.5, name="s2")(x),
            lambda: K.layers.SpatialDropout3D(0.5, name="s3")(x),
            lambda: K.layers.GaussianNoise(0.1)(tf.constant([1, 2]), training=True),
            lambda: K.layers.GaussianNoise(0.1, foo=1),
            lambda: K.layers.ActivityRegularization(l3=1),
            lambda: K.layers.Rescaling(),
            lambda: K.layers.GaussianDropout(),
        ]
        errors = []
        for attempt in attempts:
            with pytest.raises(Exception) as caught:
                attempt()
            # the input spec's message ends with the shape, printed as TF1 Dimensions
            message = str(caught.value).split(" Full")[0]
            if "Keyword argument not understood" in message:
                message = "not understood"  # TF's str is of its args tuple, jtrain's a line
            errors.append([type(caught.value).__name__, message])

        return lambda sess: errors

    theirs, ours = run_both(script)
    assert ours == theirs
