"""Keras' training loop in a TF1 graph (``Model.compile``/``fit``/``evaluate``/
``predict``/``*_on_batch``, ``tf.keras.callbacks``), checked live against TF 2.21's
legacy Keras v1 engine (``TF_USE_LEGACY_KERAS=1``, classic TF1 graphs: ``twin.py``).

Each script builds the same model under both, gives its weights the same fixed
values (the initializers' random streams differ), seeds NumPy's global stream
(``fit`` shuffles with ``np.random.shuffle``) and trains. Compared: History
(``history``, ``epoch``, ``params``), the weights and ``TFOptimizer/iterations``
after training, ``evaluate``/``predict``/``*_on_batch`` results, ``metrics_names``,
the variable names a ``tf.train.Saver`` writes, verbose=2's text (times masked),
callbacks' hooks and logs, and TF's errors. Every test failed before
``adapters.v1.keras.training`` existed (compile raised NotImplementedError).

Float32 results: the losses and metrics agree with TF to float32 rounding of
differently ordered sums (XLA's and Eigen's reductions), asserted at rtol 2e-6 (and
``ATOL``, looser where TF here runs Eigen's ``MatMul``); History's ``loss`` is a float64
mean of float32 batch losses, as TF's BaseLogger.
"""

from __future__ import annotations

import contextlib
import glob
import io
import os
import re
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from jtrain._eigen.matmul import onednn_sgemm
from tests.interop.twin import classic_tf1, tf2_behaviour_off

pytestmark = pytest.mark.interop


@pytest.fixture(autouse=True)
def _tf1_behaviour():
    """TF's Keras as a TF1 script runs it (``disable_v2_behavior()`` turns ``tf2`` off:
    TF1 metric names such as ``acc``), this process's setting restored after."""
    with tf2_behaviour_off():
        yield


tf1 = real_tf.compat.v1
RTOL = 2e-6
# Where TF here runs Eigen's ``MatMul`` (an AMD EPYC with AVX2; not the oneDNN sgemm
# jtrain reproduces), jtrain's XLA dot rounds a dense layer's sums in another order: an
# ulp or two of its products (magnitude about 1 here) besides, measured there 1.2e-7 off
# an output that cancels near zero (0.0064): within an ulp of values in [2, 4), 2.4e-7.
ATOL = 1e-7 if onednn_sgemm() else 2.0**-22


def _both(body: Any) -> tuple[Any, Any]:
    out = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else contextlib.nullcontext():
            graph = tf.Graph()
            with graph.as_default(), tf.Session(graph=graph).as_default():
                np.random.seed(0)  # noqa: NPY002 (fit shuffles with the global stream)
                out.append(body(tf))
    return out[0], out[1]


def _fix(model: Any) -> None:
    values = []
    for i, w in enumerate(model.weights):
        shape = w.shape.as_list()
        values.append(np.random.RandomState(10 + i).uniform(-0.6, 0.6, shape).astype(np.float32))
    model.set_weights(values)


def _close(theirs: Any, ours: Any, rtol: float = RTOL) -> None:
    if isinstance(theirs, dict):
        assert list(theirs) == list(ours)
        for k in theirs:
            _close(theirs[k], ours[k], rtol)
    elif isinstance(theirs, (list, tuple)):
        assert type(theirs) is type(ours) and len(theirs) == len(ours), (theirs, ours)
        for a, b in zip(theirs, ours, strict=True):
            _close(a, b, rtol)
    elif isinstance(theirs, (np.ndarray, np.generic)):
        assert isinstance(ours, (np.ndarray, np.generic)), ours
        assert theirs.dtype == ours.dtype and np.shape(theirs) == np.shape(ours)
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=ATOL)
    elif isinstance(theirs, float):
        assert type(ours) is float, ours
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=ATOL)
    else:
        assert theirs == ours


def _data(n: int = 30, d: int = 3, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rs = np.random.RandomState(seed)
    x = rs.randn(n, d).astype(np.float32)
    y = (x @ rs.randn(d, 1) + 0.1 * rs.randn(n, 1)).astype(np.float32)
    return x, y


def test_fit_regression_history_weights_evaluate_predict():
    x, y = _data()

    def body(tf):
        m = tf.keras.Sequential(
            [
                tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                tf.keras.layers.Dense(1),
            ]
        )
        _fix(m)
        m.compile(optimizer=tf.train.GradientDescentOptimizer(0.05), loss="mse", metrics=["mae"])
        names = m.metrics_names
        h = m.fit(x, y, batch_size=8, epochs=3, verbose=0, validation_split=0.2)
        sess = tf.keras.backend.get_session()
        it = [v for v in tf.global_variables() if "iterations" in v.name][0]
        return {
            "names": names,
            "history": h.history,
            "epoch": h.epoch,
            "params": h.params,
            "weights": m.get_weights(),
            "iterations": sess.run(it),
            "evaluate": m.evaluate(x, y, batch_size=7, verbose=0),
            "predict": m.predict(x[:5]),
            "predict_batched": m.predict(x, batch_size=4),
            "global": [v.name for v in tf.global_variables()],
        }

    theirs, ours = _both(body)
    assert ours["names"] == theirs["names"] == ["loss", "mean_absolute_error"]
    assert ours["global"] == theirs["global"]
    assert int(ours["iterations"]) == int(theirs["iterations"]) == 9
    _close(theirs, ours)


def test_fit_validation_data_no_shuffle_loss_objects_and_regularizers():
    x, y = _data(20, 2, seed=3)
    xv, yv = _data(6, 2, seed=4)

    def body(tf):
        m = tf.keras.Sequential(
            [
                tf.keras.layers.Dense(
                    3,
                    activation="tanh",
                    input_shape=(2,),
                    kernel_regularizer=tf.keras.regularizers.l2(0.01),
                ),
                tf.keras.layers.Dense(1),
            ]
        )
        _fix(m)
        m.compile(
            optimizer=tf.train.MomentumOptimizer(0.05, 0.9),
            loss=tf.keras.losses.MeanAbsoluteError(),
            metrics=["mse"],
        )
        h = m.fit(x, y, batch_size=6, epochs=2, verbose=0, validation_data=(xv, yv), shuffle=False)
        return {
            "history": h.history,
            "weights": m.get_weights(),
            "train_on_batch": m.train_on_batch(x[:5], y[:5]),
            "test_on_batch": m.test_on_batch(x[:5], y[:5]),
            "predict_on_batch": m.predict_on_batch(x[:2]),
            "global": sorted(v.name for v in tf.global_variables()),
        }

    theirs, ours = _both(body)
    assert ours["global"] == theirs["global"]
    _close(theirs, ours)


@pytest.mark.parametrize(
    "loss,units,activation,metric",
    [
        ("categorical_crossentropy", 3, "softmax", "accuracy"),
        ("sparse_categorical_crossentropy", 3, "softmax", "acc"),
        ("binary_crossentropy", 1, "sigmoid", "accuracy"),
    ],
)
def test_fit_classification_accuracy_dropout_batchnorm(loss, units, activation, metric):
    rs = np.random.RandomState(5)
    x = rs.randn(24, 4).astype(np.float32)
    labels = rs.randint(0, units if units > 1 else 2, size=24)
    if loss == "categorical_crossentropy":
        y = np.eye(units, dtype=np.float32)[labels]
    else:
        y = labels.reshape(-1, 1)

    def body(tf):
        m = tf.keras.Sequential(
            [
                tf.keras.layers.Dense(5, input_shape=(4,)),
                tf.keras.layers.BatchNormalization(),
                tf.keras.layers.Activation("relu"),
                tf.keras.layers.Dropout(0.0),
                tf.keras.layers.Dense(units, activation=activation),
            ]
        )
        _fix(m)
        # (not Adam: through batch normalization the first bias's gradient is rounding
        # noise, which Adam's normalization turns into full steps)
        m.compile(tf.train.GradientDescentOptimizer(0.1), loss=loss, metrics=[metric])
        h = m.fit(x, y, batch_size=10, epochs=2, verbose=0)
        return {
            "names": m.metrics_names,
            "history": h.history,
            "weights": m.get_weights(),
            "evaluate": m.evaluate(x, y, verbose=0),
        }

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=2e-5)


def _mask(text: str) -> str:
    """Times masked: ' - 0s - ', '175ms/epoch', '19ms/sample'."""
    text = re.sub(r"\d+(s|ms|us)/(epoch|sample|step)", r"T/\2", text)
    return re.sub(r" - \d+s", " - Ts", text)


def test_verbose_text_and_train_info():
    x, y = _data(12, 3, seed=6)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=["mae"])
        two, one = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(two):
            m.fit(x, y, batch_size=5, epochs=2, verbose=2, validation_split=0.25)
            m.fit(x, y, batch_size=5, epochs=1, verbose=2)
            m.evaluate(x, y, verbose=1)  # the v1 loop prints nothing for evaluate
            m.predict(x, verbose=1)
        with contextlib.redirect_stdout(one):
            m.fit(x, y, batch_size=5, epochs=1, verbose=1)
        return two.getvalue(), one.getvalue()

    theirs, ours = _both(body)
    assert _mask(ours[0]) == _mask(theirs[0])
    assert ours[0].startswith("Train on 9 samples, validate on 3 samples\nEpoch 1/2\n9/9 - ")
    # verbose=1: TF redraws the bar after each batch ('\r', backspaces); ours prints the
    # finished bar only: TF's last drawing.
    assert _mask(ours[1]) == _mask(theirs[1].split("\n", 1)[0] + "\n" + theirs[1].split("\r")[-1])


def test_callbacks_hooks_logs_early_stopping():
    x, y = _data(16, 3, seed=7)

    def body(tf):
        events: list[Any] = []

        class Recorder(tf.keras.callbacks.Callback):
            def on_train_begin(self, logs=None):
                events.append(("train_begin", logs))

            def on_epoch_begin(self, epoch, logs=None):
                events.append(("epoch_begin", epoch, logs))

            def on_batch_end(self, batch, logs=None):
                events.append(("batch_end", batch, sorted(logs)))

            def on_test_begin(self, logs=None):
                events.append(("test_begin",))

            def on_epoch_end(self, epoch, logs=None):
                events.append(("epoch_end", epoch, dict(logs)))

            def on_train_end(self, logs=None):
                events.append(("train_end", logs))

        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(3.0), "mse")
        stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=1)
        lam = tf.keras.callbacks.LambdaCallback(
            on_epoch_end=lambda epoch, logs: events.append(("lambda", epoch))
        )
        h = m.fit(
            x,
            y,
            batch_size=8,
            epochs=8,
            verbose=0,
            validation_split=0.25,
            callbacks=[Recorder(), stop, lam],
        )
        return {"events": events, "epoch": h.epoch, "stopped": stop.stopped_epoch}

    theirs, ours = _both(body)
    assert theirs["stopped"] > 0
    _close(theirs, ours, rtol=1e-5)


def test_saver_names_after_fit_restore_into_tf(tmp_path):
    x, y = _data(10, 3, seed=8)
    prefix = str(tmp_path / "ckpt")

    def body(tf):
        m = tf.keras.Sequential(
            [tf.keras.layers.Dense(2, input_shape=(3,)), tf.keras.layers.Dense(1)]
        )
        _fix(m)
        m.compile(tf.train.AdamOptimizer(0.01), "mse")
        m.fit(x, y, batch_size=4, epochs=1, verbose=0)
        sess = tf.keras.backend.get_session()
        names = sorted(v.op.name for v in tf.global_variables())
        if tf is jtf:
            tf.train.Saver().save(sess, prefix)
        return names, m.get_weights()

    theirs, ours = _both(body)
    assert ours[0] == theirs[0]
    _close(theirs[1], ours[1])
    reader = tf1.train.load_checkpoint(prefix)
    assert sorted(reader.get_variable_to_shape_map()) == theirs[0]
    assert reader.get_tensor("TFOptimizer/iterations") == 3


@pytest.mark.parametrize("which", ["sgd_momentum", "adam_string"])
def test_fit_with_keras_optimizers(which):
    x, y = _data(14, 3, seed=9)

    def body(tf):
        m = tf.keras.Sequential(
            [
                tf.keras.layers.Dense(3, activation="relu", input_shape=(3,)),
                tf.keras.layers.Dense(1),
            ]
        )
        _fix(m)
        opt = tf.keras.optimizers.SGD(0.05, momentum=0.9) if which == "sgd_momentum" else "adam"
        m.compile(opt, "mse", metrics=["mae"])
        h = m.fit(x, y, batch_size=5, epochs=2, verbose=0)
        return {
            "history": h.history,
            "weights": m.get_weights(),
            "global": sorted(v.name for v in tf.global_variables()),
            "iterations": int(tf.keras.backend.get_session().run(m.optimizer.iterations)),
        }

    theirs, ours = _both(body)
    assert ours["global"] == theirs["global"]
    assert ours["iterations"] == theirs["iterations"] == 6
    _close(theirs, ours, rtol=1e-5)


def test_model_built_by_fit_float64_data():
    x, y = _data(12, 3, seed=11)
    x = x.astype(np.float64)

    def body(tf):
        m = tf.keras.Sequential(
            [tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)]
        )
        m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=["mae"])
        names_before = m.metrics_names
        m.train_on_batch(x[:1], y[:1])  # builds the model; the weights are set below
        _fix(m)
        h = m.fit(x, y, batch_size=5, epochs=2, verbose=0)
        graph = tf.get_default_graph()
        return {
            "names": [names_before, m.metrics_names],
            "history": h.history,
            "weights": m.get_weights(),
            "global": [v.name for v in tf.global_variables()],
            "placeholders": [
                (o.name, o.outputs[0].dtype.name)
                for o in graph.get_operations()
                if o.type == "Placeholder" and "target" in o.name or o.name == "input_1"
            ],
            "predict": m.predict(x[:3]),
        }

    theirs, ours = _both(body)
    assert ours["global"] == theirs["global"]
    assert ours["placeholders"] == theirs["placeholders"]
    _close(theirs, ours)


def test_sample_and_class_weights():
    x, y = _data(16, 3, seed=12)
    sw = np.random.RandomState(13).uniform(0.1, 2.0, 16)
    labels = (x[:, :1] > 0).astype(np.float32)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.05), "mse", metrics=["mae"])
        h1 = m.fit(x, y, batch_size=5, epochs=2, verbose=0, sample_weight=sw, validation_split=0.25)
        h2 = m.fit(x[:10], y[:10], batch_size=4, verbose=0, validation_data=(x[10:], y[10:]))
        ev = m.evaluate(x, y, batch_size=6, sample_weight=sw, verbose=0)
        tb = m.train_on_batch(x[:4], y[:4], sample_weight=sw[:4])
        c = tf.keras.Sequential([tf.keras.layers.Dense(1, "sigmoid", input_shape=(3,))])
        _fix(c)
        c.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy", ["accuracy"])
        h3 = c.fit(x, labels, batch_size=6, epochs=2, verbose=0, class_weight={0: 0.3, 1: 2.0})
        h4 = c.fit(x, labels, verbose=0, class_weight={0: 0.5, 1: 1.5}, sample_weight=sw)
        errors = []
        for call in (
            lambda: c.fit(x, labels, verbose=0, class_weight={0: 1.0}),
            lambda: m.fit(x, y, verbose=0, sample_weight=sw[:5]),
            lambda: m.fit(x, y, verbose=0, sample_weight=sw.reshape(8, 2)),
        ):
            try:
                call()
                errors.append(None)
            except ValueError as e:
                errors.append(str(e))
        return {
            "h1": h1.history,
            "h2": h2.history,
            "evaluate": ev,
            "train_on_batch": tb,
            "h3": h3.history,
            "h4": h4.history,
            "weights": m.get_weights() + c.get_weights(),
            "errors": errors,
        }

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def test_sample_weights_stale_function_as_tf():
    """TF recompiles its loss when the weighting changes, but rebuilds only the
    function of the call that recompiled: an ``evaluate(sample_weight=...)`` after
    ``test_on_batch`` (unweighted) and ``fit`` (weighted) reuses the unweighted test
    function and ignores the weights."""
    x, y = _data(16, 3, seed=12)
    sw = np.random.RandomState(13).uniform(0.1, 2.0, 16)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.0), "mse")
        return [
            m.test_on_batch(x, y, sample_weight=sw),
            m.test_on_batch(x, y),
            m.fit(x, y, batch_size=16, verbose=0, sample_weight=sw).history["loss"],
            m.evaluate(x, y, sample_weight=sw, verbose=0),
            m.evaluate(x, y, verbose=0),
            m.train_on_batch(x, y),
            m.test_on_batch(x, y, sample_weight=sw),
        ]

    theirs, ours = _both(body)
    _close(theirs, ours)
    assert theirs[3] == theirs[4] != theirs[0]


def test_learning_rate_callbacks_with_keras_sgd():
    x, y = _data(12, 3, seed=14)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.keras.optimizers.SGD(0.1), "mse")
        sched = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
        plateau = tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=0, min_delta=10.0)
        h = m.fit(x, y, batch_size=4, epochs=3, verbose=0, callbacks=[sched, plateau])
        t = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        t.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
        try:
            t.fit(x, y, verbose=0, callbacks=[tf.keras.callbacks.LearningRateScheduler(abs)])
            err = None
        except ValueError as e:
            err = str(e)
        return {"history": h.history, "weights": m.get_weights(), "error": err}

    theirs, ours = _both(body)
    _close(theirs, ours)
    assert theirs["error"] == 'Optimizer must have a "lr" attribute.'


@pytest.mark.parametrize("spec", ["lists", "dicts"])
def test_functional_two_outputs(spec):
    rs = np.random.RandomState(15)
    xa, xb = rs.randn(14, 2).astype(np.float32), rs.randn(14, 3).astype(np.float32)
    y1 = rs.randn(14, 1).astype(np.float32)
    y2 = np.eye(3, dtype=np.float32)[rs.randint(0, 3, 14)]

    def body(tf):
        a = tf.keras.Input(shape=(2,), name="a")
        b = tf.keras.Input(shape=(3,), name="b")
        h = tf.keras.layers.Dense(4, activation="relu")(tf.keras.layers.Concatenate()([a, b]))
        reg = tf.keras.layers.Dense(1, name="reg")(h)
        cls = tf.keras.layers.Dense(3, activation="softmax", name="cls")(h)
        m = tf.keras.Model([a, b], [reg, cls])
        _fix(m)
        if spec == "lists":
            m.compile(
                tf.train.GradientDescentOptimizer(0.1),
                loss=["mse", "categorical_crossentropy"],
                loss_weights=[0.5, 2.0],
                metrics=["mae", "accuracy", "mae"],
            )
            x, y = [xa, xb], [y1, y2]
        else:
            m.compile(
                tf.train.GradientDescentOptimizer(0.1),
                loss={"reg": "mse", "cls": "categorical_crossentropy"},
                loss_weights={"cls": 2.0},
                metrics={"cls": ["accuracy", "mse"], "reg": "mae"},
            )
            x, y = {"a": xa, "b": xb}, {"reg": y1, "cls": y2}
        hist = m.fit(x, y, batch_size=4, epochs=2, verbose=0, validation_split=0.3)
        return {
            "names": m.metrics_names,
            "history": hist.history,
            "evaluate": m.evaluate(x, y, batch_size=5, verbose=0),
            "predict": m.predict(x, batch_size=6),
            "train_on_batch": m.train_on_batch(x, y),
            "weights": m.get_weights(),
        }

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def test_fit_evaluate_predict_on_datasets():
    x, y = _data(10, 3, seed=16)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=["mae"])
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            h1 = m.fit(ds, epochs=2, verbose=2)
        h2 = m.fit(
            ds.repeat(),
            epochs=2,
            steps_per_epoch=2,
            verbose=0,
            validation_data=ds,
            validation_steps=3,
        )
        errors = []
        for call in (
            lambda: m.fit(ds.repeat(), verbose=0),
            # TF never checks given steps against the dataset: epoch 2 finds it
            # exhausted, stops and logs epoch 1's loss divided again by the steps
            lambda: m.fit(ds, epochs=2, steps_per_epoch=3, verbose=0),
            lambda: m.fit(ds, batch_size=2, verbose=0),
        ):
            try:
                errors.append(call().history)
            except ValueError as e:
                errors.append(re.sub(r"<[^>]*>", "<ds>", str(e)))
        return {
            "h1": (h1.history, h1.epoch),
            "params": {k: int(v) if k in ("steps", "samples") else v for k, v in h1.params.items()},
            "text": _mask(out.getvalue()),
            "h2": h2.history,
            "evaluate": m.evaluate(ds, verbose=0),
            "predict": m.predict(ds),
            "predict_x": m.predict(tf.data.Dataset.from_tensor_slices(x).batch(3)),
            "weights": m.get_weights(),
            "errors": errors,
        }

    theirs, ours = _both(body)
    _close(theirs, ours)


def test_arrays_by_steps_and_validation_freq():
    x, y = _data(9, 3, seed=17)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.05), "mse", metrics=["mae"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            h1 = m.fit(x, y, steps_per_epoch=2, epochs=2, verbose=2)
        h2 = m.fit(x, y, batch_size=4, epochs=4, verbose=0, validation_split=0.3, validation_freq=2)
        h3 = m.fit(
            x, y, batch_size=4, epochs=3, verbose=0, validation_split=0.3, validation_freq=[1, 3]
        )
        try:
            m.fit(x, y, verbose=0, validation_split=0.3, validation_freq=0)
            err = None
        except ValueError as e:
            err = str(e)
        return {
            "h1": (h1.history, h1.params),
            "text": _mask(out.getvalue()),
            "h2": (h2.history, h2.epoch),
            "h3": h3.history,
            "err": err,
            "evaluate": m.evaluate(x, y, steps=2, verbose=0),
            "predict": m.predict(x, steps=2),
            "weights": m.get_weights(),
        }

    theirs, ours = _both(body)
    _close(theirs, ours)


def _scalar_events(log_dir: str) -> list[tuple[int, str, float]]:
    out = []
    for path in sorted(glob.glob(os.path.join(log_dir, "events.out.tfevents.*"))):
        for event in tf1.train.summary_iterator(path):
            for v in event.summary.value:
                out.append((int(event.step), v.tag, float(v.simple_value)))
    return out


@pytest.mark.parametrize("update_freq", ["epoch", "batch", 5])
def test_tensorboard_scalars(tmp_path, update_freq):
    x, y = _data(10, 3, seed=18)
    dirs = iter([str(tmp_path / "tf"), str(tmp_path / "jtrain")])

    def body(tf):
        log_dir = next(dirs)
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.05), "mse", metrics=["mae"])
        board = tf.keras.callbacks.TensorBoard(
            log_dir, update_freq=update_freq, profile_batch=0, write_graph=False
        )
        m.fit(x, y, batch_size=4, epochs=2, verbose=0, validation_split=0.2, callbacks=[board])
        return _scalar_events(log_dir)

    theirs, ours = _both(body)
    assert [e[:2] for e in ours] == [e[:2] for e in theirs]
    np.testing.assert_allclose([e[2] for e in ours], [e[2] for e in theirs], rtol=RTOL)
    assert "epoch_val_loss" in {e[1] for e in theirs}


def test_csv_logger(tmp_path):
    x, y = _data(10, 3, seed=19)
    paths = iter([tmp_path / "tf.csv", tmp_path / "jtrain.csv"])

    def body(tf):
        path = next(paths)
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.05), "mse", metrics=["mae"])
        log = tf.keras.callbacks.CSVLogger(path)
        m.fit(x, y, batch_size=4, epochs=3, verbose=0, validation_split=0.2, callbacks=[log])
        m.fit(x, y, epochs=1, verbose=0, callbacks=[tf.keras.callbacks.CSVLogger(path, ";", True)])
        return path.read_text()

    theirs, ours = _both(body)
    t_rows = [r.split(",") for r in theirs.replace(";", ",").splitlines()]
    o_rows = [r.split(",") for r in ours.replace(";", ",").splitlines()]
    assert (
        t_rows[0]
        == o_rows[0]
        == [
            "epoch",
            "loss",
            "mean_absolute_error",
            "val_loss",
            "val_mean_absolute_error",
        ]
    )
    assert len(t_rows) == len(o_rows) == 5
    assert theirs.count(";") == ours.count(";")
    assert t_rows[-1][-2:] == o_rows[-1][-2:] == ["NA", "NA"]  # no validation: TF's NA
    for t, o in zip(t_rows[1:], o_rows[1:], strict=True):
        assert t[0] == o[0]
        t_vals = [float(v) for v in t[1:] if v != "NA"]
        o_vals = [float(v) for v in o[1:] if v != "NA"]
        np.testing.assert_allclose(o_vals, t_vals, rtol=RTOL)


def test_metric_objects_in_compile():
    x, _ = _data(12, 3, seed=20)
    labels = np.stack([(x[:, 0] > 0), (x[:, 1] > 0)], 1).astype(np.float32)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(2, "sigmoid", input_shape=(3,))])
        _fix(m)
        m.compile(
            tf.train.GradientDescentOptimizer(0.5),
            "binary_crossentropy",
            metrics=[
                tf.keras.metrics.MeanSquaredError(),
                tf.keras.metrics.BinaryAccuracy(threshold=0.3),
                tf.keras.metrics.Accuracy(name="exact"),
                tf.keras.metrics.CategoricalAccuracy(),
                tf.keras.metrics.BinaryCrossentropy(label_smoothing=0.1),
            ],
        )
        h = m.fit(x, labels, batch_size=5, epochs=2, verbose=0)
        return {
            "names": m.metrics_names,
            "history": h.history,
            "evaluate": m.evaluate(x, labels, verbose=0),
        }

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def _batches(x, y, size, weights=None):
    """An endless generator of (x, y[, w]) batches, in order."""
    i = 0
    while True:
        idx = [(i + k) % len(x) for k in range(size)]
        i += size
        yield (x[idx], y[idx]) if weights is None else (x[idx], y[idx], weights[idx])


@pytest.mark.parametrize("workers", [0, 1])
def test_generator_loops(workers):
    x, y = _data(10, 3, seed=21)
    sw = np.random.RandomState(22).uniform(0.5, 1.5, 10)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.05), "mse", metrics=["mae"])
        val = dict(validation_data=_batches(x, y, 3), validation_steps=2) if workers == 0 else {}
        h = m.fit_generator(
            _batches(x, y, 4, sw), steps_per_epoch=3, epochs=2, verbose=0, workers=workers, **val
        )
        err = []
        for call in (
            lambda: m.fit_generator(_batches(x, y, 4), verbose=0),
            lambda: m.fit_generator(
                _batches(x, y, 4), 1, verbose=0, validation_data=_batches(x, y, 2)
            ),
        ):
            try:
                call()
                err.append(None)
            except ValueError as e:
                err.append(str(e))
        return {
            "history": (h.history, h.epoch),
            "params": h.params,
            "evaluate": m.evaluate_generator(_batches(x, y, 3), steps=3, workers=workers),
            "predict": m.predict_generator(
                (b[0] for b in _batches(x, y, 4)), steps=2, workers=workers
            ),
            "weights": m.get_weights(),
            "errors": err,
        }

    theirs, ours = _both(body)
    _close(theirs, ours)


def test_recompile_names_and_history():
    """A second compile wraps a new TFOptimizer (TFOptimizer_1) and its train function
    opens TF's third 'training' scope (Adam's training_2/beta1_power)."""
    x, y = _data(10, 3, seed=23)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.MomentumOptimizer(0.05, 0.9), "mse", metrics=["mae"])
        h1 = m.fit(x, y, batch_size=4, verbose=0)
        m.compile(tf.train.AdamOptimizer(0.01), "mae")
        h2 = m.fit(x, y, batch_size=4, verbose=0, epochs=2)
        return {
            "h": [h1.history, h2.history],
            "global": sorted(v.name for v in tf.global_variables()),
            "weights": m.get_weights(),
            "names": m.metrics_names,
        }

    theirs, ours = _both(body)
    assert ours["global"] == theirs["global"]
    assert "training_2/beta1_power:0" in theirs["global"]
    _close(theirs, ours)


def test_fit_dataset_of_unknown_size_verbose2():
    x, y = _data(10, 3, seed=21)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.05), "mse")
        ds = tf.data.Dataset.from_tensor_slices((x, y)).filter(lambda a, b: a[0] > -10.0)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            h = m.fit(ds.batch(4), epochs=2, verbose=2)
        return _mask(out.getvalue()), h.history, h.params

    theirs, ours = _both(body)
    assert theirs[0].startswith("Train on None steps\nEpoch 1/2\n3/3 - ")
    _close(theirs, ours)


def test_errors_as_tf():
    x, y = _data(6, 3)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        out = []
        for call in (
            lambda: m.fit(x, y, verbose=0),
            lambda: m.compile(
                tf.train.GradientDescentOptimizer(0.1), tf.keras.losses.MeanSquaredError
            ),
            lambda: m.compile(tf.train.GradientDescentOptimizer(0.1), {"nope": "mse"}),
            lambda: m.compile(tf.train.GradientDescentOptimizer(0.1), ["mse", "mae"]),
            lambda: m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", loss_weights=[1, 2]),
            lambda: m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=[["mae"]] * 2),
        ):
            try:
                call()
                out.append(None)
            except (RuntimeError, ValueError) as e:
                out.append((type(e).__name__, re.sub(r"<class '[\w.]+\.", "<class '", str(e))))
        m.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
        for call in (
            lambda: m.fit(x[:, :2], y, verbose=0),
            lambda: m.fit(x[:, 0], y, verbose=0),
            lambda: m.fit(x, y[:4], verbose=0),
            lambda: m.evaluate(x, np.zeros((6, 2), np.float32), verbose=0),
            lambda: m.fit(x, np.zeros((6, 3, 1), np.float32), verbose=0),
        ):
            try:
                call()
                out.append(None)
            except ValueError as e:
                out.append((type(e).__name__, str(e)))
        return out

    theirs, ours = _both(body)
    assert ours == theirs


_V1_NAMES = textwrap.dedent(
    """
    import sys
    import numpy as np
    if sys.argv[1] == "tf":
        import tensorflow as t
        tf = t.compat.v1
    else:
        from adapters import v1 as tf
    tf.disable_v2_behavior()
    x = np.ones((4, 3), np.float32)
    y = np.zeros((4, 1), np.float32)
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=["mae", "accuracy", "mse"])
    h = m.fit(x, y, verbose=0, validation_split=0.5)
    print("NAMES", m.metrics_names, sorted(h.history))
    """
)


def test_metric_names_after_disable_v2_behavior():
    outs = []
    for which in ("tf", "jtrain"):
        proc = subprocess.run(
            [sys.executable, "-c", _V1_NAMES, which],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        outs.append([ln for ln in proc.stdout.splitlines() if ln.startswith("NAMES")])
    assert outs[0] == outs[1]
    assert "mean_absolute_error" in outs[0][0] and "'acc'" in outs[0][0]
