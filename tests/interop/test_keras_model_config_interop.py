"""Keras configs: each layer's ``get_config``/``from_config``, the ``serialize``/
``deserialize`` of initializers, regularizers, constraints and activations, models'
``get_config``/``to_json``, ``tf.keras.models.model_from_json``/``model_from_config``/
``model_from_yaml`` and ``clone_model``, checked live against TF 2.21's legacy Keras
(``TF_USE_LEGACY_KERAS=1``) in classic TF1 graphs (``twin.py``).

Each layer's config, before and after it is built, is TF's dict (after a JSON round
trip: TF's tuples are lists in a file); a config either side writes is read by the
other's ``from_config`` and gives the same config back. A model's JSON is TF's, and
each side rebuilds the other's model from it (the same JSON again). Every test failed
before ``get_config`` existed (``AttributeError``/``NotImplementedError``).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf2_behaviour_off

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1


@pytest.fixture(autouse=True)
def _tf1_behaviour():
    """TF's Keras as a TF1 script runs it (``disable_v2_behavior()`` turns ``tf2``
    off), this process's setting restored after."""
    with tf2_behaviour_off():
        yield


def _in_graph(tf: Any, body: Any) -> Any:
    """``body(tf)`` in a fresh graph and default session of ``tf``'s."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default(), tf.Session(graph=graph).as_default():
            return body(tf)


def _plain(config: Any) -> Any:
    """The config as a file holds it (tuples as lists, NumPy values as numbers)."""
    return json.loads(json.dumps(config, default=lambda x: np.asarray(x).tolist()))


# (layer maker, the input shape it is built on)
LAYERS: dict[str, tuple[Any, tuple[int, ...]]] = {
    "dense": (
        lambda k: k.layers.Dense(
            3,
            activation="relu",
            kernel_initializer="he_normal",
            kernel_regularizer=k.regularizers.l2(0.1),
            bias_constraint=k.constraints.MaxNorm(2.0),
            input_shape=(4,),
        ),
        (4,),
    ),
    "conv2d": (lambda k: k.layers.Conv2D(2, 3, strides=2, padding="same"), (6, 6, 2)),
    "conv1d": (lambda k: k.layers.Conv1D(2, 2, dilation_rate=2), (6, 2)),
    "conv3d": (lambda k: k.layers.Conv3D(2, 2), (4, 4, 4, 1)),
    "conv2d_transpose": (lambda k: k.layers.Conv2DTranspose(2, 3), (4, 4, 2)),
    "conv1d_transpose": (lambda k: k.layers.Conv1DTranspose(2, 3), (4, 2)),
    "separable_conv2d": (lambda k: k.layers.SeparableConv2D(2, 3), (5, 5, 2)),
    "depthwise_conv2d": (lambda k: k.layers.DepthwiseConv2D(3, depth_multiplier=2), (5, 5, 2)),
    "max_pooling2d": (lambda k: k.layers.MaxPooling2D(), (4, 4, 1)),
    "average_pooling1d": (lambda k: k.layers.AveragePooling1D(3, strides=1), (5, 2)),
    "max_pooling3d": (lambda k: k.layers.MaxPooling3D(), (4, 4, 4, 1)),
    "global_average_pooling2d": (lambda k: k.layers.GlobalAveragePooling2D(), (3, 3, 2)),
    "global_max_pooling1d": (lambda k: k.layers.GlobalMaxPooling1D(keepdims=True), (3, 2)),
    "flatten": (lambda k: k.layers.Flatten(), (2, 3)),
    "dropout": (lambda k: k.layers.Dropout(0.3, seed=4), (3,)),
    "batch_normalization": (lambda k: k.layers.BatchNormalization(momentum=0.9), (3, 4)),
    "layer_normalization": (lambda k: k.layers.LayerNormalization(), (3, 4)),
    "embedding": (lambda k: k.layers.Embedding(10, 3, input_length=4), (4,)),
    "activation": (lambda k: k.layers.Activation("softmax"), (3,)),
    "leaky_relu": (lambda k: k.layers.LeakyReLU(0.2), (3,)),
    "re_lu": (lambda k: k.layers.ReLU(max_value=6.0), (3,)),
    "elu": (lambda k: k.layers.ELU(), (3,)),
    "p_re_lu": (lambda k: k.layers.PReLU(), (3,)),
    "softmax": (lambda k: k.layers.Softmax(axis=1), (3, 2)),
    "reshape": (lambda k: k.layers.Reshape((3, 2)), (6,)),
    "permute": (lambda k: k.layers.Permute((2, 1)), (3, 2)),
    "repeat_vector": (lambda k: k.layers.RepeatVector(2), (3,)),
    "zero_padding2d": (lambda k: k.layers.ZeroPadding2D(((1, 0), (2, 1))), (3, 3, 1)),
    "cropping1d": (lambda k: k.layers.Cropping1D((1, 1)), (4, 2)),
    "up_sampling2d": (lambda k: k.layers.UpSampling2D(2), (3, 3, 1)),
    "simple_rnn": (lambda k: k.layers.SimpleRNN(2, return_sequences=True), (3, 2)),
    "lstm": (lambda k: k.layers.LSTM(2, dropout=0.1, go_backwards=True), (3, 2)),
    "gru": (lambda k: k.layers.GRU(2, reset_after=True), (3, 2)),
    "rnn": (lambda k: k.layers.RNN(k.layers.LSTMCell(2)), (3, 2)),
    "bidirectional": (lambda k: k.layers.Bidirectional(k.layers.LSTM(2)), (3, 2)),
    "time_distributed": (lambda k: k.layers.TimeDistributed(k.layers.Dense(2)), (3, 2)),
    "gaussian_noise": (lambda k: k.layers.GaussianNoise(0.1), (3,)),
    "alpha_dropout": (lambda k: k.layers.AlphaDropout(0.1), (3,)),
    "spatial_dropout2d": (lambda k: k.layers.SpatialDropout2D(0.1), (3, 3, 2)),
    "activity_regularization": (lambda k: k.layers.ActivityRegularization(l1=0.1), (3,)),
    "rescaling": (lambda k: k.layers.Rescaling(2.0, offset=1.0), (3,)),
}


def _layer_configs(tf: Any, name: str) -> tuple[Any, Any]:
    make, shape = LAYERS[name]

    def body(tf: Any) -> Any:
        layer = make(tf.keras)
        before = _plain(layer.get_config())
        layer(tf.keras.Input(shape))
        return before, _plain(layer.get_config())

    return _in_graph(tf, body)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_config_is_tfs_and_each_side_reads_the_others(name):
    theirs = _layer_configs(tf1, name)
    ours = _layer_configs(jtf, name)
    assert ours == theirs
    built = theirs[1]
    make, _ = LAYERS[name]

    def round_trip(tf: Any, config: Any) -> Any:
        cls = type(make(tf.keras))
        return _plain(cls.from_config(config).get_config())

    # a built layer's config (float32) read by the other side gives it back
    assert _in_graph(jtf, lambda tf: round_trip(tf, built)) == built
    assert _in_graph(tf1, lambda tf: round_trip(tf, ours[1])) == built


SERIALIZED = {
    "initializers": [
        "zeros",
        "ones",
        "glorot_uniform",
        "glorot_normal",
        "he_normal",
        "he_uniform",
        "lecun_normal",
        "lecun_uniform",
        "orthogonal",
        "identity",
        "random_normal",
        "random_uniform",
        "truncated_normal",
        "variance_scaling",
        lambda k: k.initializers.RandomNormal(0.5, 2.0, seed=3),
        lambda k: k.initializers.Constant(2.5),
        lambda k: k.initializers.VarianceScaling(2.0, "fan_out", "uniform", seed=1),
    ],
    "regularizers": [
        lambda k: k.regularizers.l1(0.2),
        lambda k: k.regularizers.l2(0.3),
        lambda k: k.regularizers.l1_l2(0.1, 0.2),
        lambda k: k.regularizers.L1L2(l1=0.1),
    ],
    "constraints": [
        lambda k: k.constraints.MaxNorm(3, axis=1),
        lambda k: k.constraints.NonNeg(),
        lambda k: k.constraints.UnitNorm(1),
        lambda k: k.constraints.MinMaxNorm(0.5, 2.0, rate=0.5),
    ],
    "activations": ["relu", "linear", None, "softmax", "tanh", "sigmoid", "elu", "selu"],
}


@pytest.mark.parametrize("module", sorted(SERIALIZED))
def test_serialize_and_deserialize_are_tfs(module):
    def body(tf: Any) -> Any:
        mod = getattr(tf.keras, module)
        out = []
        for item in SERIALIZED[module]:
            obj = mod.get(item(tf.keras) if callable(item) else item)
            serialized = _plain(mod.serialize(obj))
            again = _plain(mod.serialize(mod.deserialize(serialized)))
            out.append((serialized, again))
        return out

    theirs = _in_graph(tf1, body)
    assert _in_graph(jtf, body) == theirs
    assert all(s == again for s, again in theirs)


def _models(k: Any) -> dict[str, Any]:
    inp = k.Input((4,), name="features")
    a = k.layers.Dense(3, activation="tanh")(inp)
    b = k.layers.Dense(3)(inp)
    shared = k.layers.Dense(2)
    merged = k.layers.Concatenate()([shared(a), shared(b)])
    out2 = k.layers.Dense(1, name="second")(a)
    return {
        "sequential": k.Sequential(
            [k.layers.Dense(3, activation="relu", input_shape=(4,)), k.layers.Dense(1)]
        ),
        "sequential_lazy": k.Sequential([k.layers.Dense(3), k.layers.Dropout(0.5)]),
        "functional": k.Model(inp, [merged, out2], name="two_heads"),
        "nested": _nested(k),
    }


def _nested(k: Any) -> Any:
    """Models as layers: a ``Sequential`` built on its input (its own node first: the
    outer model's nodes of it count from 1), one built by the call, a functional one."""
    inner = k.Sequential(
        [k.layers.Dense(4, activation="relu", input_shape=(3,)), k.layers.Dense(3)]
    )
    lazy = k.Sequential([k.layers.Dense(3)])
    sub_input = k.Input((3,), name="sub_input")
    sub = k.Model(sub_input, k.layers.Dense(3)(sub_input))
    inp = k.Input((3,))
    return k.Model(inp, k.layers.Dense(2)(k.layers.Add()([inner(inp), lazy(inp), sub(inp)])))


@pytest.mark.parametrize("kind", ["sequential", "sequential_lazy", "functional", "nested"])
def test_model_json_is_tfs_and_each_side_loads_the_others(kind):
    def write(tf: Any) -> Any:
        return _models(tf.keras)[kind].to_json()

    def reload(text: str) -> Any:
        return lambda tf: json.loads(tf.keras.models.model_from_json(text).to_json())

    theirs, ours = _in_graph(tf1, write), _in_graph(jtf, write)
    assert json.loads(ours) == json.loads(theirs)
    assert _in_graph(jtf, reload(theirs)) == json.loads(theirs)
    assert _in_graph(tf1, reload(ours)) == json.loads(theirs)


def test_model_from_config_get_config_and_errors():
    def body(tf: Any) -> Any:
        k = tf.keras
        model = _models(k)["functional"]
        config = {"class_name": "Functional", "config": model.get_config()}
        rebuilt = k.models.model_from_config(config)
        out = [_plain(rebuilt.get_config()) == _plain(model.get_config())]
        out.append([len(rebuilt.inputs), len(rebuilt.outputs), rebuilt.name])
        for call in (
            lambda: k.models.model_from_config([config]),
            lambda: k.models.model_from_yaml("a: 1"),
            lambda: k.models.model_from_config({"class_name": "Nope", "config": {}}),
        ):
            try:
                call()
                out.append(None)
            except Exception as e:  # noqa: BLE001 - the class is compared
                out.append((type(e).__name__, str(e).split(".")[0]))
        return out

    theirs = _in_graph(tf1, body)
    assert theirs[0] is True
    assert _in_graph(jtf, body) == theirs


def test_custom_objects_resolve_a_custom_activation():
    def body(tf: Any) -> Any:
        def scaled(x: Any) -> Any:
            return 2.0 * x

        k = tf.keras
        model = k.Sequential([k.layers.Dense(2, activation=scaled, input_shape=(3,))])
        text = model.to_json()
        try:
            k.models.model_from_json(text)
            error = None
        except ValueError as e:
            error = str(e).split(".")[0]
        rebuilt = k.models.model_from_json(text, custom_objects={"scaled": scaled})
        return json.loads(text), error, rebuilt.layers[0].activation is scaled

    assert _in_graph(jtf, body) == _in_graph(tf1, body)


@pytest.mark.parametrize("kind", ["sequential", "functional"])
def test_clone_model_has_the_config_and_new_weights(kind):
    x = np.random.RandomState(0).randn(5, 4).astype(np.float32)

    def body(tf: Any) -> Any:
        k = tf.keras
        model = _models(k)[kind]
        clone = k.models.clone_model(model)
        new_vars = not {id(w) for w in model.weights} & {id(w) for w in clone.weights}
        k.backend.get_session().run(tf.global_variables_initializer())
        clone.set_weights(model.get_weights())
        same = [
            np.array_equal(a, b) for a, b in zip(model.predict(x), clone.predict(x), strict=True)
        ]
        renamed = json.loads(clone.to_json())["config"]["layers"]
        return new_vars, same, [layer["config"]["name"] for layer in renamed], clone.name

    assert _in_graph(jtf, body) == _in_graph(tf1, body)


def test_clone_model_input_tensors_and_clone_function():
    def body(tf: Any) -> Any:
        k = tf.keras
        model = _models(k)["sequential"]
        seen = []

        def clone_function(layer: Any) -> Any:
            seen.append(layer.name)
            return type(layer).from_config(layer.get_config())

        placeholder = tf.placeholder(tf.float32, [7, 4])
        clone = k.models.clone_model(
            model, input_tensors=placeholder, clone_function=clone_function
        )
        return seen, clone.outputs[0].shape.as_list(), len(clone.weights)

    assert _in_graph(jtf, body) == _in_graph(tf1, body)


def _double(x: Any) -> Any:
    return 2.0 * x


def test_lambda_config_is_tfs_and_loads_by_its_function():
    """A ``Lambda``'s function is written as TF writes it (marshalled bytecode); read
    back, adapters.v1 takes the function of ``custom_objects`` whose bytecode it is
    (it never runs bytecode from a file), TF runs the bytecode."""
    x = np.arange(6, dtype=np.float32).reshape(3, 2)

    def write(tf: Any) -> Any:
        k = tf.keras
        return k.Sequential([k.layers.Lambda(_double, input_shape=(2,))]).to_json()

    def read(text: str) -> Any:
        def body(tf: Any) -> Any:
            try:
                tf.keras.models.model_from_json(
                    text.replace('"function": ["', '"function": ["AAAA')
                )
                refused = None
            except ValueError as e:
                refused = type(e).__name__
            model = tf.keras.models.model_from_json(text, custom_objects={"_double": _double})
            return refused, model.predict(x), json.loads(model.to_json())

        return body

    theirs, ours = _in_graph(tf1, write), _in_graph(jtf, write)
    assert json.loads(ours) == json.loads(theirs)
    ours_read = _in_graph(jtf, read(theirs))
    assert ours_read[0] == "ValueError"
    np.testing.assert_array_equal(ours_read[1], 2.0 * x)
    assert ours_read[2] == json.loads(theirs)
    tf_read = _in_graph(tf1, read(ours))
    np.testing.assert_array_equal(tf_read[1], 2.0 * x)


def test_a_user_layer_without_get_config():
    """TF1's Keras has no automatic config: a layer of the user's whose constructor
    takes arguments must override ``get_config``; one without gets the base entries."""

    def body(tf: Any) -> Any:
        class Plain(tf.keras.layers.Layer):
            def __init__(self, units: int = 2, **kwargs: Any):
                super().__init__(**kwargs)
                self.units = units

            def call(self, x: Any) -> Any:
                return x

        class Bare(tf.keras.layers.Layer):
            def call(self, x: Any) -> Any:
                return x

        out = [_plain(Bare(name="b", input_shape=(2,)).get_config())]
        try:
            Plain(3).get_config()
            out.append(None)
        except NotImplementedError as e:
            out.append(type(e).__name__)
        return out

    theirs = _in_graph(tf1, body)
    assert theirs[1] == "NotImplementedError"
    assert _in_graph(jtf, body) == theirs
