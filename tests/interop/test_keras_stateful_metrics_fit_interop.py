"""Stateful ``tf.keras.metrics.Metric`` objects (``Precision``, ``Recall``, ``AUC``,
``TruePositives``, ``MeanIoU``...) in ``Model.compile(metrics=[...])``, run by
``fit``/``evaluate``/``train_on_batch``/``test_on_batch``, checked live against TF
2.21's legacy Keras v1 engine (``TF_USE_LEGACY_KERAS=1``, classic TF1 graphs).

As TF's ``training_v1``: each metric object is called on an output's target and
prediction in the compiled graph (unweighted: ``sample_weight``/``class_weight``
weigh only the loss), its running result fetched each batch (the loop logs the last
batch's value, never a mean over batches), its state reset at the start of each
epoch, of ``evaluate`` and of the validation pass, and after ``*_on_batch`` unless
``reset_metrics=False``; the metric renamed to its compiled name; with several
outputs and one list, each output gets a clone (``clone_metric``). Compared: History,
``metrics_names``, ``evaluate``/``*_on_batch`` results, the metric's ``name``,
``result()`` and variables after the calls.

Every test failed before this change (``compile`` raised NotImplementedError for a
metric object that is not a ``MeanMetricWrapper``); the ``MeanMetricWrapper`` classes
(``BinaryAccuracy``, ``CategoricalAccuracy``, ``TopKCategoricalAccuracy``), now run
as metric objects too, are checked alongside.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.interop.test_keras_fit_interop import (  # noqa: F401 (the autouse fixture)
    _both,
    _close,
    _fix,
    _tf1_behaviour,
    tf1,
)

pytestmark = pytest.mark.interop


def _binary(n: int = 23, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rs = np.random.RandomState(seed)
    x = rs.randn(n, 3).astype(np.float32)
    y = ((x[:, :1] + 0.5 * rs.randn(n, 1)) > 0).astype(np.float32)
    return x, y


def _classes(n: int = 21, k: int = 6, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rs = np.random.RandomState(seed)
    x = rs.randn(n, 3).astype(np.float32)
    return x, np.eye(k, dtype=np.float32)[rs.randint(0, k, n)]


def _binary_metrics(tf: Any) -> list[Any]:
    return [
        tf.keras.metrics.Precision(),
        tf.keras.metrics.Recall(thresholds=0.4),
        tf.keras.metrics.AUC(name="auc", num_thresholds=50),
        tf.keras.metrics.TruePositives(),
        tf.keras.metrics.BinaryAccuracy(),
        "acc",
    ]


def _binary_model(tf: Any) -> Any:
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, "sigmoid", input_shape=(3,))])
    _fix(m)
    return m


def test_fit_evaluate_history_binary_metrics():
    x, y = _binary()

    def body(tf):
        m = _binary_model(tf)
        metrics = _binary_metrics(tf)
        m.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy", metrics=metrics)
        h = m.fit(x, y, batch_size=5, epochs=3, verbose=0, validation_split=0.3)
        return {
            "names": m.metrics_names,
            "metric_names": [getattr(k, "name", k) for k in metrics],
            "history": h.history,
            "evaluate": m.evaluate(x, y, batch_size=4, verbose=0),
            # evaluate leaves the state of its last batch
            "results": [np.float32(k.result().eval()) for k in metrics[:4]],
            "weights": m.get_weights(),
        }

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


@pytest.mark.parametrize("reset", [True, False])
def test_on_batch_results_and_reset(reset):
    x, y = _binary()

    def body(tf):
        m = _binary_model(tf)
        metrics = _binary_metrics(tf)[:4]
        m.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy", metrics=metrics)
        out = [
            m.train_on_batch(x[:8], y[:8], reset_metrics=reset),
            m.train_on_batch(x[8:15], y[8:15], reset_metrics=reset),
            m.test_on_batch(x[15:], y[15:], reset_metrics=reset),
            [np.float32(k.result().eval()) for k in metrics],
            [k.get_weights() for k in metrics],
        ]
        m.reset_metrics()
        out.append([k.get_weights() for k in metrics])
        return out

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def test_sample_and_class_weights_leave_the_metrics_unweighted():
    x, y = _binary()
    w = np.random.RandomState(5).uniform(0.1, 2.0, len(x)).astype(np.float32)

    def body(tf):
        m = _binary_model(tf)
        m.compile(
            tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy", _binary_metrics(tf)
        )
        h1 = m.fit(x, y, batch_size=6, epochs=2, verbose=0, sample_weight=w)
        h2 = m.fit(x, y, batch_size=6, epochs=1, verbose=0, class_weight={0: 0.3, 1: 2.0})
        return h1.history, h2.history, m.evaluate(x, y, sample_weight=w, verbose=0)

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def test_categorical_mean_iou_top_k_and_validation_data():
    x, y = _classes()
    xv, yv = _classes(9, seed=8)

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(6, "softmax", input_shape=(3,))])
        _fix(m)
        m.compile(
            tf.train.GradientDescentOptimizer(0.3),
            "categorical_crossentropy",
            metrics=[
                tf.keras.metrics.TopKCategoricalAccuracy(k=2),
                tf.keras.metrics.MeanIoU(num_classes=6, sparse_y_true=False, sparse_y_pred=False),
                tf.keras.metrics.Precision(top_k=2, class_id=1, name="p"),
                tf.keras.metrics.CategoricalAccuracy(),
                "accuracy",
            ],
        )
        h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, validation_data=(xv, yv))
        return m.metrics_names, h.history, m.evaluate(xv, yv, batch_size=4, verbose=0)

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


@pytest.mark.parametrize("spec", ["list", "dict"])
def test_two_outputs(spec):
    rs = np.random.RandomState(11)
    x = rs.randn(16, 3).astype(np.float32)
    y1 = (x[:, :1] > 0).astype(np.float32)
    y2 = (x[:, 1:2] + x[:, 2:3] > 0).astype(np.float32)

    def body(tf):
        inp = tf.keras.Input(shape=(3,), name="x")
        h = tf.keras.layers.Dense(4, activation="tanh")(inp)
        a = tf.keras.layers.Dense(1, "sigmoid", name="a")(h)
        b = tf.keras.layers.Dense(1, "sigmoid", name="b")(h)
        m = tf.keras.Model(inp, [a, b])
        _fix(m)
        given = [tf.keras.metrics.Precision(name="prec"), tf.keras.metrics.AUC(), "acc"]
        if spec == "list":
            metrics: Any = given
        else:
            metrics = {"a": given, "b": [tf.keras.metrics.Recall(), given[0]]}
        m.compile(
            tf.train.GradientDescentOptimizer(0.5),
            "binary_crossentropy",
            metrics=metrics,
            weighted_metrics={"b": ["acc", tf.keras.metrics.AUC(name="wauc")]},
        )
        hist = m.fit(x, [y1, y2], batch_size=5, epochs=2, verbose=0, validation_split=0.25)
        return {
            "names": m.metrics_names,
            # a list is cloned per output: the objects given keep their names
            "given": [given[0].name, given[1].name],
            "history": hist.history,
            "evaluate": m.evaluate(x, [y1, y2], batch_size=6, verbose=0),
            "train_on_batch": m.train_on_batch(x, [y1, y2]),
        }

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


@pytest.mark.parametrize("run_first", [True, False])
def test_one_metric_object_in_two_models(run_first):
    """TF's function fetches the object's latest result when it is made: made before
    the second compile, the first model keeps its own; made after, it fetches the
    second model's and fails on its unfed placeholders (TF names the target, jtrain
    the input: both the second model's)."""
    x, y = _binary()

    def body(tf):
        precision = tf.keras.metrics.Precision()
        m1, m2 = _binary_model(tf), _binary_model(tf)
        m1.compile("sgd", "binary_crossentropy", metrics=[precision])
        out = [m1.test_on_batch(x[:10], y[:10], reset_metrics=False)] if run_first else []
        m2.compile("sgd", "mse", metrics=[precision])
        out.append(m2.test_on_batch(x[10:], y[10:], reset_metrics=False))
        if run_first:
            out.append(m1.test_on_batch(x[:10], y[:10], reset_metrics=False))
        else:
            with pytest.raises(
                tf.errors.InvalidArgumentError,
                match="You must feed a value for placeholder tensor .dense_1_",
            ):
                m1.test_on_batch(x[:10], y[:10])
        out += [np.float32(precision.result().eval()), m1.metrics_names, m2.metrics_names]
        return out

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def test_weighted_metrics_with_sample_and_class_weights():
    """``weighted_metrics`` (``weighted_<name>``, after the output's metrics) take the
    sample (or class) weights; unweighted calls when none are given. TF recompiles
    only the function of the call that changed the weighting: the other keeps the
    metrics' call it was made with."""
    x, y = _binary()
    w = np.random.RandomState(6).uniform(0.1, 2.0, len(x)).astype(np.float32)

    def body(tf):
        m = _binary_model(tf)
        m.compile(
            tf.train.GradientDescentOptimizer(0.5),
            "binary_crossentropy",
            metrics=[tf.keras.metrics.Precision(), "acc"],
            weighted_metrics=[tf.keras.metrics.Recall(), "acc", tf.keras.metrics.AUC()],
        )
        out = {"names": m.metrics_names, "plain": m.test_on_batch(x, y)}
        out["fit"] = m.fit(x, y, batch_size=6, epochs=2, verbose=0, sample_weight=w).history
        out["evaluate"] = m.evaluate(x, y, batch_size=5, sample_weight=w, verbose=0)
        out["class"] = m.fit(x, y, batch_size=7, verbose=0, class_weight={0: 0.5, 1: 3.0}).history
        out["unweighted"] = m.train_on_batch(x, y)
        out["stale"] = m.evaluate(x, y, sample_weight=w, verbose=0)
        out["names_after"] = m.metrics_names
        return out

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def test_class_names_datasets_and_generators():
    """A class's name (``'AUC'``) builds the metric; a ``tf.data`` dataset and a
    generator run the metrics by steps, reset each epoch."""
    x, y = _binary()

    def batches():
        while True:
            for i in range(0, len(x), 8):
                yield x[i : i + 8], y[i : i + 8]

    def body(tf):
        m = _binary_model(tf)
        m.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy", ["AUC", "Recall"])
        data = tf.data.Dataset.from_tensor_slices((x, y)).batch(6)
        return {
            "names": m.metrics_names,
            "dataset": m.fit(data, epochs=2, verbose=0).history,
            "generator": m.fit(batches(), steps_per_epoch=3, epochs=2, verbose=0).history,
            "evaluate": m.evaluate(data, verbose=0),
        }

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def test_metric_class_error():
    def body(tf):
        m = _binary_model(tf)
        with pytest.raises(TypeError) as info:
            m.compile("sgd", "binary_crossentropy", metrics=[tf.keras.metrics.AUC])
        return info.type

    theirs, ours = _both(body)
    assert theirs is ours is TypeError


def test_repeated_names():
    """An output's metrics are keyed by name: of two named alike the last object takes
    the first one's place; a name taken (``loss``) gets ``_1``."""
    x, y = _binary()

    def body(tf):
        m = _binary_model(tf)
        metrics = [
            tf.keras.metrics.Precision(),
            tf.keras.metrics.Recall(name="loss"),
            tf.keras.metrics.Precision(thresholds=0.7),
        ]
        m.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy", metrics)
        out = [m.train_on_batch(x, y, reset_metrics=False), m.metrics_names]
        return out + [[k.name for k in metrics], [k.get_weights() for k in metrics]]

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)


def test_model_metrics_objects():
    """TF's ``Model.metrics``: the compiled metric objects in ``metrics_names``' order
    (an object given to two outputs twice; functions as ``MeanMetricWrapper``s)."""

    def body(tf):
        inp = tf.keras.Input(shape=(3,), name="x")
        a = tf.keras.layers.Dense(1, "sigmoid", name="a")(inp)
        b = tf.keras.layers.Dense(1, "sigmoid", name="b")(inp)
        m = tf.keras.Model(inp, [a, b])
        p = tf.keras.metrics.Precision(name="prec")
        m.compile(
            "sgd",
            "binary_crossentropy",
            metrics={"a": [p, "acc"], "b": [tf.keras.metrics.Recall(), p]},
            weighted_metrics={"b": ["mae"]},
        )
        found = m.metrics
        return [(type(k).__name__, k.name) for k in found], found[0] is found[3] is p

    theirs, ours = _both(body)
    _close(theirs, ours)
