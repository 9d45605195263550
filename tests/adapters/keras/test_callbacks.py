"""``tf.keras.callbacks.ModelCheckpoint`` in jtrain alone:
its arguments, restart loading and file naming. TF's file names and messages are
checked live in tests/interop/test_keras_save_weights_interop.py."""

from __future__ import annotations

import os

import numpy as np
import pytest

from adapters import v1 as tf

K = tf.keras
X = np.random.RandomState(1).randn(12, 3).astype(np.float32)
Y = np.random.RandomState(2).randn(12, 2).astype(np.float32)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"options": "x"}, TypeError, "SaveOptions"),
        ({"save_weights_only": True, "save_freq": "batch"}, ValueError, "Unrecognized save_freq"),
        ({"save_weights_only": True, "options": "x"}, TypeError, "CheckpointOptions"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        K.callbacks.ModelCheckpoint("w", **kwargs)


@pytest.mark.parametrize(
    ("mode", "monitor", "best"),
    [
        ("auto", "val_loss", np.inf),
        ("auto", "val_acc", -np.inf),
        ("max", "loss", -np.inf),
        ("nonsense", "loss", np.inf),
    ],
)
def test_mode_picks_the_comparison(mode, monitor, best):
    cb = K.callbacks.ModelCheckpoint("w", monitor=monitor, mode=mode, save_weights_only=True)
    assert cb.best == best


def test_missing_format_key_names_the_filepath(graph, tmp_path):
    model = K.Sequential([K.layers.Dense(2, input_shape=(3,))])
    model.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    cb = K.callbacks.ModelCheckpoint(str(tmp_path / "w.{val_loss:.2f}"), save_weights_only=True)
    with pytest.raises(KeyError, match="Failed to format this callback filepath"):
        model.fit(X, Y, epochs=1, verbose=0, callbacks=[cb])


def test_load_weights_on_restart_loads_the_latest(graph, tmp_path):
    pattern = str(tmp_path / "w.{epoch:02d}")
    model = K.Sequential([K.layers.Dense(2, input_shape=(3,))])
    model.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    cb = K.callbacks.ModelCheckpoint(pattern, save_weights_only=True)
    model.fit(X, Y, epochs=2, verbose=0, callbacks=[cb])
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == [
        "w.01.index",
        "w.02.index",
    ]
    trained = model.get_weights()
    model.set_weights([np.zeros_like(w) for w in trained])
    restart = K.callbacks.ModelCheckpoint(
        pattern, save_weights_only=True, load_weights_on_restart=True
    )
    restart.set_model(model)
    restart.on_train_begin()
    for a, b in zip(trained, model.get_weights(), strict=True):
        np.testing.assert_array_equal(b, a)
