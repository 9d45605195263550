"""Keras' HDF5 files: ``Model.save_weights``/``load_weights`` with ``.h5`` (``by_name``,
``skip_mismatch``) and whole models (``Model.save``, ``tf.keras.models.save_model``/
``load_model``), exchanged with TF 2.21's legacy Keras (``TF_USE_LEGACY_KERAS=1``) in
classic TF1 graphs (``twin.py``).

Files go both ways: what one side writes the other loads, with the writer's weights
and predictions to the bit, and a compiled model's optimizer state: a model loaded
from either side's file and trained one more epoch in TF or here reaches TF's numbers
(TF trains its own file as reference). The files' layout (attributes, groups,
datasets, the model and training configs) is TF's. Under ``disable_v2_behavior()``
TF's ``Model.save`` writes HDF5 for any path (TF1's default format), as here. Every
test failed before the HDF5 format existed (``NotImplementedError``).
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

import h5py
import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf2_behaviour_off

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1
SIDES = {"tf": tf1, "jtrain": jtf}


@pytest.fixture(autouse=True)
def _tf1_behaviour():
    """TF's Keras as a TF1 script runs it (``disable_v2_behavior()`` turns ``tf2``
    off), this process's setting restored after."""
    with tf2_behaviour_off():
        yield


def _in_graph(tf: Any, body: Any) -> Any:
    """``body(tf)`` in a fresh graph and default session of ``tf``'s, NumPy's global
    stream seeded (``fit`` shuffles with it)."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default(), tf.Session(graph=graph).as_default():
            np.random.seed(0)  # noqa: NPY002
            return body(tf)


X = np.random.RandomState(1).randn(12, 3).astype(np.float32)
Y = (X @ np.random.RandomState(2).randn(3, 2)).astype(np.float32)


def _fix(model: Any) -> None:
    values = []
    for i, w in enumerate(model.weights):
        shape = w.shape.as_list()
        values.append(np.random.RandomState(10 + i).uniform(-0.6, 0.6, shape).astype(np.float32))
    model.set_weights(values)


def _sequential(k: Any) -> Any:
    return k.Sequential(
        [
            k.layers.Dense(4, activation="relu", input_shape=(3,)),
            k.layers.BatchNormalization(),
            k.layers.Dense(2),
        ]
    )


def _functional(k: Any) -> Any:
    inp = k.Input((3,))
    h = k.layers.Dense(4, activation="tanh")(inp)
    return k.Model(inp, k.layers.Add()([k.layers.Dense(2)(h), k.layers.Dense(2)(inp)]))


def _nested(k: Any) -> Any:
    """A functional model calling a ``Sequential`` (one HDF5 group for its weights)."""
    inner = k.Sequential(
        [k.layers.Dense(4, activation="relu", input_shape=(3,)), k.layers.Dense(3)]
    )
    inp = k.Input((3,))
    return k.Model(inp, k.layers.Dense(2)(inner(inp)))


MODELS = {"sequential": _sequential, "functional": _functional, "nested": _nested}


def _layout(path: str) -> list[Any]:
    """Every group's and dataset's name, attributes (configs parsed) and shape."""
    out: list[Any] = []

    def attrs(obj: Any) -> dict[str, Any]:
        found = {}
        for key, value in obj.attrs.items():
            if key in ("model_config", "training_config"):
                value = json.loads(value)
            elif isinstance(value, np.ndarray):
                value = [v.decode() if isinstance(v, bytes) else v for v in value.tolist()]
            elif isinstance(value, bytes):
                value = value.decode()
            found[key] = value
        return found

    with h5py.File(path, "r") as f:
        out.append(("/", attrs(f)))
        f.visititems(
            lambda name, obj: out.append(
                (name, attrs(obj), obj.shape if isinstance(obj, h5py.Dataset) else None)
            )
        )
    return out


def _save_weights(tf: Any, kind: str, path: str) -> Any:
    def body(tf: Any) -> Any:
        model = MODELS[kind](tf.keras)
        _fix(model)
        model.save_weights(path)
        return model.get_weights(), model.predict(X)

    return _in_graph(tf, body)


def _load_weights(tf: Any, kind: str, path: str, weights: list[Any]) -> Any:
    """The weights and predictions of a model loaded from ``path``, and the predictions
    of one given ``weights`` by ``set_weights`` (the same side's arithmetic)."""

    def body(tf: Any) -> Any:
        model = MODELS[kind](tf.keras)
        model.load_weights(path)
        reference = MODELS[kind](tf.keras)
        reference.set_weights(weights)
        return model.get_weights(), model.predict(X), reference.predict(X)

    return _in_graph(tf, body)


@pytest.mark.parametrize("kind", sorted(MODELS))
@pytest.mark.parametrize("writer", ["tf", "jtrain"])
def test_h5_weights_go_both_ways(tmp_path, writer, kind):
    path = str(tmp_path / "w.h5")
    weights, predictions = _save_weights(SIDES[writer], kind, path)
    reference = str(tmp_path / "tf.h5")
    _save_weights(tf1, kind, reference)
    assert _layout(path) == _layout(reference)
    for reader in SIDES.values():
        loaded, loaded_predictions, same_side = _load_weights(reader, kind, path, weights)
        for a, b in zip(loaded, weights, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(loaded_predictions, same_side)
        np.testing.assert_allclose(loaded_predictions, predictions, rtol=2e-6, atol=1e-7)
    assert sorted(os.listdir(tmp_path)) == ["tf.h5", "w.h5"]  # no temporary file left


def _other(k: Any) -> Any:
    """``_sequential`` with its last layer renamed and of another size, plus one more."""
    return k.Sequential(
        [
            k.layers.Dense(4, activation="relu", input_shape=(3,), name="dense"),
            k.layers.BatchNormalization(name="batch_normalization"),
            k.layers.Dense(5, name="dense_1"),
            k.layers.Dense(1, name="extra"),
        ]
    )


def test_load_weights_by_name_and_skip_mismatch(tmp_path):
    path = str(tmp_path / "w.h5")
    _save_weights(tf1, "sequential", path)

    def body(tf: Any) -> Any:
        out = []
        model = _other(tf.keras)
        before = model.get_weights()
        try:
            model.load_weights(path, by_name=True)
        except ValueError as e:
            out.append(("ValueError", str(e)))
        with pytest.warns(UserWarning) if tf is jtf else contextlib.nullcontext():
            model.load_weights(path, by_name=True, skip_mismatch=True)
        after = model.get_weights()
        out.append([not np.array_equal(a, b) for a, b in zip(before, after, strict=True)])
        try:
            model.load_weights(path)
        except ValueError as e:
            out.append(("ValueError", str(e)))
        return out

    assert _in_graph(jtf, body) == _in_graph(tf1, body)


def _two_outputs(k: Any) -> Any:
    inp = k.Input((3,))
    h = k.layers.Dense(4, activation="tanh")(inp)
    return k.Model(inp, [k.layers.Dense(1, name="a")(h), k.layers.Dense(1, name="b")(h)])


# model, compile arguments, targets
COMPILED = {
    "sequential_adam": (
        _sequential,
        lambda k: {"optimizer": k.optimizers.Adam(0.01), "loss": "mse", "metrics": ["mae"]},
        Y,
    ),
    "sequential_loss_object": (
        _sequential,
        lambda k: {
            "optimizer": k.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
            "loss": k.losses.Huber(delta=0.5),
            "metrics": [k.metrics.MeanAbsoluteError()],
        },
        Y,
    ),
    "two_outputs_rmsprop": (
        _two_outputs,
        lambda k: {
            "optimizer": k.optimizers.RMSprop(0.01, momentum=0.5),
            "loss": {"a": "mse", "b": "mae"},
            "loss_weights": [1.0, 0.5],
            "metrics": ["mse"],
        },
        [Y[:, :1], Y[:, 1:]],
    ),
}


def _compiled(tf: Any, kind: str = "sequential_adam") -> Any:
    make, arguments, targets = COMPILED[kind]
    model = make(tf.keras)
    _fix(model)
    model.compile(**arguments(tf.keras))
    model.fit(X, targets, batch_size=4, epochs=1, verbose=0)
    return model


def _save_model(tf: Any, path: str, kind: str) -> Any:
    def body(tf: Any) -> Any:
        model = _compiled(tf, kind)
        model.save(path)
        return model.get_weights(), model.optimizer.get_weights(), _flat(model.predict(X))

    return _in_graph(tf, body)


def _flat(x: Any) -> list[Any]:
    return list(x) if isinstance(x, list) else [x]


def _load_and_train(tf: Any, path: str, kind: str) -> Any:
    def body(tf: Any) -> Any:
        model = tf.keras.models.load_model(path)
        state = model.get_weights(), model.optimizer.get_weights(), _flat(model.predict(X))
        targets = COMPILED[kind][2]
        history = model.fit(X, targets, batch_size=4, epochs=1, verbose=0, shuffle=False)
        return state, history.history, model.get_weights(), model.metrics_names

    return _in_graph(tf, body)


@pytest.mark.parametrize("kind", sorted(COMPILED))
@pytest.mark.parametrize("writer", ["tf", "jtrain"])
def test_whole_model_goes_both_ways_and_keeps_training(tmp_path, writer, kind):
    path = str(tmp_path / "model.h5")
    saved = _save_model(SIDES[writer], path, kind)
    reference = str(tmp_path / "tf_model.h5")
    _save_model(tf1, reference, kind)
    assert _layout(path) == _layout(reference)
    expected = _load_and_train(tf1, reference, kind)
    for reader in SIDES.values():
        state, history, trained, names = _load_and_train(reader, path, kind)
        for a, b in zip(state[:2], saved[:2], strict=True):  # weights, optimizer state
            for x, y in zip(a, b, strict=True):
                np.testing.assert_array_equal(x, y)
        for x, y in zip(state[2], saved[2], strict=True):  # predictions (either's arithmetic)
            np.testing.assert_allclose(x, y, rtol=2e-6, atol=1e-7)
        assert names == expected[3]
        assert sorted(history) == sorted(expected[1])
        for key, values in expected[1].items():
            np.testing.assert_allclose(history[key], values, rtol=1e-6)
        for a, b in zip(trained, expected[2], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("model", {}), ("model.h5", {"include_optimizer": False}), ("m", {"save_format": "h5"})],
)
def test_save_paths_formats_and_compile_false(tmp_path, name, kwargs):
    def body(tf: Any) -> Any:
        directory = tmp_path / tf.__name__.replace(".", "_")
        directory.mkdir()
        path = str(directory / name)
        model = _compiled(tf)
        tf.keras.models.save_model(model, path, **kwargs)
        is_h5 = h5py.is_hdf5(path)
        with h5py.File(path, "r") as f:
            keys = sorted(f.keys()), sorted(f.attrs.keys())
        loaded = tf.keras.models.load_model(path, compile=False)
        return is_h5, keys, getattr(loaded, "optimizer", None) is None, loaded.predict(X)

    theirs, ours = _in_graph(tf1, body), _in_graph(jtf, body)
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-5)
    assert theirs[0] is True


def test_load_model_custom_objects_and_missing_file(tmp_path):
    path = str(tmp_path / "custom.h5")

    def scaled(x: Any) -> Any:
        return 2.0 * x

    def write(tf: Any) -> Any:
        k = tf.keras
        model = k.Sequential([k.layers.Dense(2, activation=scaled, input_shape=(3,))])
        _fix(model)
        model.save(path)
        return model.predict(X)

    def read(tf: Any) -> Any:
        out = []
        try:
            tf.keras.models.load_model(path)
        except ValueError as e:
            out.append(("ValueError", str(e).split(".")[0]))
        model = tf.keras.models.load_model(path, custom_objects={"scaled": scaled})
        out.append(model.predict(X))
        try:
            tf.keras.models.load_model(str(tmp_path / "missing.h5"))
        except OSError as e:
            out.append((type(e).__name__, str(e).split(" at ")[0]))
        return out

    saved = _in_graph(jtf, write)
    theirs, ours = _in_graph(tf1, read), _in_graph(jtf, read)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    np.testing.assert_array_equal(ours[1], saved)
    np.testing.assert_allclose(theirs[1], saved, rtol=2e-6)  # TF's arithmetic


def test_a_tf_train_optimizer_is_not_saved(tmp_path):
    """TF writes no training config for a ``tf.train`` optimizer (a warning says so):
    the loaded model is not compiled."""

    def body(tf: Any) -> Any:
        path = str(tmp_path / f"{tf.__name__}.h5")
        model = _sequential(tf.keras)
        model.compile(optimizer=tf.train.AdamOptimizer(0.01), loss="mse")
        model.save(path)
        with h5py.File(path, "r") as f:
            keys = sorted(f.keys()), sorted(f.attrs.keys())
        loaded = tf.keras.models.load_model(path)
        return keys, getattr(loaded, "optimizer", None) is None

    assert _in_graph(jtf, body) == _in_graph(tf1, body)


def _scale_class(tf: Any) -> type:
    """A layer of the user's with a weight and a constructor argument of its own."""

    class Scale(tf.keras.layers.Layer):
        def __init__(self, factor: float = 2.0, **kwargs: Any):
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape: Any) -> None:
            self.w = self.add_weight("w", shape=(input_shape[-1],), initializer="ones")

        def call(self, x: Any) -> Any:
            return x * self.w * self.factor

        def get_config(self) -> dict[str, Any]:
            return {**super().get_config(), "factor": self.factor}

    return Scale


@pytest.mark.parametrize("writer", ["tf", "jtrain"])
def test_a_custom_layer_loads_with_custom_objects(tmp_path, writer):
    path = str(tmp_path / "custom.h5")

    def write(tf: Any) -> Any:
        k = tf.keras
        model = k.Sequential([k.layers.Dense(2, input_shape=(3,)), _scale_class(tf)(3.0)])
        _fix(model)
        model.save(path)
        return json.loads(model.to_json()), model.get_weights()

    def read(tf: Any) -> Any:
        try:
            tf.keras.models.load_model(path)
            refused = None
        except ValueError as e:
            refused = str(e).split(".")[0]
        scale = _scale_class(tf)
        model = tf.keras.models.load_model(path, custom_objects={"Scale": scale})
        return refused, json.loads(model.to_json()), model.get_weights(), model.layers[1].factor

    written = _in_graph(SIDES[writer], write)
    assert written[0] == _in_graph(tf1, write)[0]
    for reader in SIDES.values():
        refused, config, weights, factor = _in_graph(reader, read)
        assert refused == "Unknown layer: 'Scale'"
        assert (config, factor) == (written[0], 3.0)
        for a, b in zip(weights, written[1], strict=True):
            np.testing.assert_array_equal(a, b)


def test_a_subclassed_model_saves_h5_weights_not_the_model(tmp_path):
    def body(tf: Any) -> Any:
        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = tf.keras.layers.Dense(4, activation="relu")
                self.out = tf.keras.layers.Dense(2)

            def call(self, x: Any) -> Any:
                return self.out(self.hidden(x))

        model = Net()
        model(tf.placeholder(tf.float32, [None, 3]))
        try:
            model.save(str(tmp_path / "net.h5"))
            refused = None
        except NotImplementedError as e:
            refused = str(e).split(".")[0]
        path = str(tmp_path / f"net_{tf.__name__}.h5")
        _fix(model)
        model.save_weights(path)
        return refused, _layout(path), model.get_weights()

    theirs, ours = _in_graph(tf1, body), _in_graph(jtf, body)
    assert ours[:2] == theirs[:2]
