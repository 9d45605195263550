"""``tf.keras.Model.save_weights``/``load_weights`` in jtrain alone: round trips,
the files and state file, overwriting, errors. TF's keys, object graph and
cross-framework round trips are checked live in
tests/interop/test_keras_save_weights_interop.py."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain import errors

K = tf.keras
X = np.random.RandomState(1).randn(12, 3).astype(np.float32)
Y = np.random.RandomState(2).randn(12, 2).astype(np.float32)


def _sequential() -> Any:
    return K.Sequential([K.layers.Dense(4, activation="relu", input_shape=(3,)), K.layers.Dense(2)])


def _functional() -> Any:
    inp = K.Input((3,))
    h = K.layers.BatchNormalization()(K.layers.Dense(4)(inp))
    return K.Model(inp, K.layers.Dense(2)(h))


def _subclassed() -> Any:
    class Net(K.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [K.layers.Dense(4)]  # a list of layers is tracked too
            self.second = K.layers.Dense(2)

        def call(self, x):
            return self.second(self.blocks[0](x))

    model = Net()
    model(tf.placeholder(tf.float32, [None, 3]))
    return model


MODELS = {"sequential": _sequential, "functional": _functional, "subclassed": _subclassed}


def _randomize(model: Any, seed: int) -> None:
    rs = np.random.RandomState(seed)
    model.set_weights([rs.randn(*w.shape.as_list()).astype(np.float32) for w in model.weights])


def _outputs(model: Any) -> np.ndarray:
    return K.backend.get_session().run(model(tf.constant(X)))


@pytest.mark.parametrize("kind", list(MODELS))
def test_round_trip_restores_every_weight(graph, tmp_path, kind):
    model = MODELS[kind]()
    _randomize(model, 0)
    model.save_weights(str(tmp_path / "w"))
    other = MODELS[kind]()
    _randomize(other, 1)
    assert len(other.weights) == len(model.weights) == (8 if kind == "functional" else 4)
    status = other.load_weights(tmp_path / "w")  # a path object too
    assert type(status).__name__ == "CheckpointLoadStatus"
    for a, b in zip(model.get_weights(), other.get_weights(), strict=True):
        np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(_outputs(other), _outputs(model))


def test_files_state_file_and_no_temporary_left(graph, tmp_path):
    model = _sequential()
    for _ in range(2):  # a same-prefix save too
        model.save_weights(str(tmp_path / "w"))
        names = os.listdir(tmp_path)
        assert "checkpoint" in names and "w.index" in names
        assert not [n for n in names if "tempstate" in n]
    state = (tmp_path / "checkpoint").read_text()
    assert state == 'model_checkpoint_path: "w"\nall_model_checkpoint_paths: "w"\n'
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "w")
    keys = [k for k, _ in tf.train.list_variables(str(tmp_path / "w"))]
    assert "layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys


def test_optimizer_state_round_trip(graph, tmp_path):
    model = _sequential()
    model.compile("adam", "mse")
    model.fit(X, Y, batch_size=4, epochs=2, verbose=0)
    model.save_weights(str(tmp_path / "w"))
    other = _sequential()
    other.compile("adam", "mse")
    other.fit(X[:4], Y[:4], batch_size=4, epochs=1, verbose=0)
    other.load_weights(str(tmp_path / "w"))
    assert K.backend.get_value(other.optimizer.iterations) == 6
    for a, b in zip(model.optimizer.get_weights(), other.optimizer.get_weights(), strict=True):
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize(("answers", "replaced"), [(["x", "n"], False), (["y"], True)])
def test_overwrite_false_asks(graph, tmp_path, monkeypatch, capsys, answers, replaced):
    model = _sequential()
    _randomize(model, 0)
    model.save_weights(str(tmp_path / "w"))
    old = model.get_weights()
    _randomize(model, 1)
    prompts: list[str] = []
    monkeypatch.setattr("builtins.input", lambda p: (prompts.append(p), answers.pop(0))[1])
    model.save_weights(str(tmp_path / "w"), overwrite=False)
    assert prompts[0] == f"[WARNING] {tmp_path / 'w.index'} already exists - overwrite? [y/n]"
    _randomize(model, 2)
    model.load_weights(str(tmp_path / "w"))
    saved = model.get_weights()
    np.testing.assert_equal(saved[0] == old[0], not replaced)
    assert ("[TIP] Next time specify overwrite=True!" in capsys.readouterr().out) is replaced


def test_another_shape_raises_invalid_argument(graph, tmp_path):
    _sequential().save_weights(str(tmp_path / "w"))
    other = K.Sequential([K.layers.Dense(5, input_shape=(3,)), K.layers.Dense(2)])
    with pytest.raises(errors.InvalidArgumentError, match="layer_with_weights-0/kernel"):
        other.load_weights(str(tmp_path / "w"))


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda m, p: m.save_weights(p + ".keras"), NotImplementedError, "Keras v3"),
        (lambda m, p: m.save_weights(p + ".h5", save_format="tf"), ValueError, "HDF5 file"),
        (lambda m, p: m.load_weights(p + ".keras"), NotImplementedError, "Keras v3"),
        (lambda m, p: m.load_weights(p + ".garbage"), OSError, "neither a TF checkpoint"),
        (lambda m, p: m.load_weights(p + ".missing"), errors.NotFoundError, "missing"),
        (lambda m, p: m.load_weights(os.path.dirname(p)), OSError, "neither a TF"),
        (lambda m, p: m.save("x", save_format="tf"), NotImplementedError, "SavedModel"),
        (lambda m, p: m.save(p + ".keras"), NotImplementedError, "Keras v3"),
    ],
    ids=[
        "save_keras",
        "save_tf_h5_path",
        "load_keras",
        "load_garbage",
        "load_missing",
        "load_directory",
        "save_tf",
        "save_keras_v3",
    ],
)
def test_errors(graph, tmp_path, call, error, match):
    _sequential().save_weights(str(tmp_path / "w"))  # the directory has a checkpoint
    (tmp_path / "w.garbage").write_bytes(b"not a checkpoint")
    (tmp_path / "w.garbage.index").write_bytes(b"not a checkpoint")
    with pytest.raises(error, match=match):
        call(_sequential(), str(tmp_path / "w"))
