"""tf.keras serialization and HDF5 saving without TensorFlow (adapters.v1.keras.saving):
round trips, atomic writes, and the errors. TF's files and configs are checked live in
tests/interop/test_keras_model_config_interop.py and test_keras_h5_interop.py. Each
test failed before keras/saving.py existed (``NotImplementedError``/``AttributeError``).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.keras import saving

K = tf.keras
X = np.random.RandomState(0).randn(6, 3).astype(np.float32)


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _model():
    model = K.Sequential(
        [K.layers.Dense(4, activation="relu", input_shape=(3,)), K.layers.Dense(2)]
    )
    model.compile(optimizer=K.optimizers.SGD(0.1, momentum=0.9), loss="mse")
    model.fit(X, X[:, :2], epochs=1, verbose=0)
    return model


def test_whole_model_round_trip(graph, tmp_path):
    model = _model()
    path = str(tmp_path / "m.h5")
    model.save(path)
    text, predictions, state = model.to_json(), model.predict(X), model.optimizer.get_weights()
    with tf.Graph().as_default():
        loaded = K.models.load_model(path)
        assert loaded.to_json() == text
        np.testing.assert_array_equal(loaded.predict(X), predictions)
        for a, b in zip(loaded.optimizer.get_weights(), state, strict=True):
            np.testing.assert_array_equal(a, b)
    assert os.listdir(tmp_path) == ["m.h5"]


def test_a_failed_save_leaves_the_old_file_and_no_temporary(graph, tmp_path, monkeypatch):
    model = _model()
    path = tmp_path / "w.h5"
    path.write_bytes(b"old")

    def fail(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(saving, "save_weights_to_hdf5_group", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        model.save_weights(str(path))
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["w.h5"]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda p: K.models.load_model(p + "/missing.h5"), OSError, "No file or directory"),
        (lambda p: K.models.load_model(p), NotImplementedError, "not an HDF5 file"),
        (lambda p: K.models.model_from_yaml("a: 1"), RuntimeError, "model_from_yaml"),
        (lambda p: K.models.model_from_config([]), TypeError, "expects a dictionary"),
        (
            lambda p: K.layers.Conv2DTranspose.from_config(
                {"filters": 2, "kernel_size": 3, "groups": 2}
            ),
            NotImplementedError,
            "groups=2",
        ),
        (
            lambda p: K.layers.Lambda.from_config(
                {"function": ["AAAA", None, None], "function_type": "lambda", "module": "m"}
            ),
            ValueError,
            "arbitrary code execution",
        ),
        (
            lambda p: saving.deserialize_layer({"class_name": "Nope", "config": {}}),
            ValueError,
            "Unknown layer: 'Nope'",
        ),
    ],
    ids=["missing", "directory", "yaml", "list", "groups", "lambda_bytecode", "unknown_layer"],
)
def test_errors(graph, tmp_path, call, error, match):
    with pytest.raises(error, match=match):
        call(str(tmp_path))


def test_custom_objects_and_the_registry_seam(graph, monkeypatch):
    def scaled(x):
        return 2.0 * x

    text = K.Sequential([K.layers.Dense(2, activation=scaled, input_shape=(3,))]).to_json()
    with pytest.raises(ValueError, match="Unknown activation function: 'scaled'"):
        K.models.model_from_json(text)
    assert K.models.model_from_json(text, {"scaled": scaled}).layers[0].activation is scaled
    monkeypatch.setattr(saving, "_lookup_custom_object", {"scaled": scaled}.get)
    assert K.models.model_from_json(text).layers[0].activation is scaled


def test_custom_object_scope_and_registered_objects_reach_loads(graph, tmp_path):
    """``tf.keras.utils.custom_object_scope`` and ``register_keras_serializable`` make a
    custom layer loadable without ``custom_objects``, as TF's ``load_model``."""

    class Twice(K.layers.Layer):
        def call(self, x):
            return 2.0 * x

    model = K.Sequential([K.layers.Dense(2, input_shape=(3,)), Twice(name="twice")])
    path = str(tmp_path / "m.h5")
    model.save(path)
    predictions = model.predict(X)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Twice"):
            K.models.load_model(path, compile=False)
        with K.utils.custom_object_scope({"Twice": Twice}):
            loaded = K.models.load_model(path, compile=False)
        np.testing.assert_array_equal(loaded.predict(X), predictions)
    registered = K.utils.get_custom_objects()
    registered["Twice"] = Twice
    try:
        with tf.Graph().as_default():
            loaded = K.models.load_model(path, compile=False)
            assert type(loaded.layers[-1]) is Twice
    finally:
        del registered["Twice"]


def test_files_get_the_umasks_permissions(graph, tmp_path):
    model = _model()
    path = tmp_path / "m.h5"
    model.save(str(path))
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
