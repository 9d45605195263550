"""``adapters.v1.keras.training``: Keras' training loop in a TF1 graph, what jtrain
refuses and the loop's mechanics. TF's numbers are checked live in
tests/interop/test_keras_fit_interop.py."""

from __future__ import annotations

import os

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework import v2_compat
from adapters.v1.keras import training

K = tf.keras


@pytest.fixture
def graph():
    g = tf.Graph()
    saved = dict(v2_compat._state)
    with g.as_default():
        yield g
    v2_compat._state.update(saved)


def _model(units=1):
    return K.Sequential([K.layers.Dense(units, input_shape=(3,))])


def _xy(n=10):
    rs = np.random.RandomState(0)
    return rs.randn(n, 3).astype(np.float32), rs.randn(n, 1).astype(np.float32)


def test_fit_returns_history_and_trains(graph):
    x, y = _xy()
    m = _model()
    m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=["mae"])
    before = m.evaluate(x, y, verbose=0)
    h = m.fit(x, y, batch_size=4, epochs=3, verbose=0)
    assert isinstance(h, K.callbacks.History) and m.history is h
    assert h.epoch == [0, 1, 2]
    assert list(h.history) == ["loss", "mean_absolute_error"]
    assert all(type(v) is float for v in h.history["loss"])
    assert h.params == {
        "batch_size": 4,
        "epochs": 3,
        "steps": None,
        "samples": 10,
        "verbose": 0,
        "do_validation": False,
        "metrics": ["loss", "mean_absolute_error"],
    }
    after = m.evaluate(x, y, verbose=0)
    assert after[0] < before[0]
    assert all(isinstance(v, np.float32) for v in after)
    pred = m.predict(x, batch_size=3)
    assert pred.shape == (10, 1) and pred.dtype == np.float32
    it = m.optimizer.iterations
    assert tf.keras.backend.get_session().run(it) == 9


def test_initial_epoch_and_callbacks_see_python_logs(graph):
    x, y = _xy(6)
    seen = []
    m = _model()
    m.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    cb = K.callbacks.LambdaCallback(
        on_batch_end=lambda b, logs: seen.append(sorted(logs.items())),
        on_epoch_end=lambda e, logs: seen.append(e),
    )
    h = m.fit(x, y, batch_size=4, epochs=3, initial_epoch=1, verbose=0, callbacks=[cb])
    assert h.epoch == [1, 2]
    assert seen[0][0] == ("batch", 0) and seen[0][2] == ("size", 4)
    assert type(seen[0][1][1]) is float
    assert seen[2] == 1 and seen[-1] == 2


def test_early_stopping_stops(graph):
    x, y = _xy()
    m = _model()
    m.compile(tf.train.GradientDescentOptimizer(10.0), "mse")  # diverges
    stop = K.callbacks.EarlyStopping(monitor="loss", patience=0)
    h = m.fit(x, y, epochs=10, verbose=0, callbacks=[stop])
    assert len(h.epoch) < 10 and stop.stopped_epoch == h.epoch[-1]


def test_metric_names_are_tf1_behaviours(graph):
    # adapters.v1 is TF1 behaviour, with or without disable_v2_behavior(): TF's
    # names after it (TF 2's graph mode keeps the strings: "mae", "accuracy").
    m = _model()
    m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=["mae", "accuracy", "mae"])
    assert m.metrics_names == ["loss", "mean_absolute_error", "acc"]  # TF keys them by name
    tf.disable_v2_behavior()
    m2 = _model()
    m2.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=["mae", "accuracy"])
    assert m2.metrics_names == ["loss", "mean_absolute_error", "acc"]


def test_train_on_batch_metrics_reset(graph):
    x, y = _xy(4)
    m = _model()
    m.compile(tf.train.GradientDescentOptimizer(0.0), "mse", metrics=["mae"])
    a = m.train_on_batch(x[:2], y[:2], reset_metrics=False)
    b = m.test_on_batch(x[2:], y[2:], reset_metrics=False)
    whole = m.test_on_batch(x, y)
    # the running mean over both halves is the mean over all four
    np.testing.assert_allclose(b[1], whole[1], rtol=1e-6)
    assert a[1] != b[1]
    assert isinstance(m.predict_on_batch(x), np.ndarray)


def test_stateful_metric_objects_in_compile(graph):
    """A metric object's state runs in the compiled graph: its running result is each
    batch's value, ``reset_metrics`` zeroes its variables, a list given to several
    outputs is cloned per output and the clones renamed (TF's values: the interop
    tests in tests/interop/test_keras_stateful_metrics_fit_interop.py)."""
    x, y = _xy(6)
    labels = (y > 0).astype(np.float32)
    m = K.Sequential([K.layers.Dense(1, "sigmoid", input_shape=(3,))])
    tp = K.metrics.TruePositives()
    m.compile(tf.train.GradientDescentOptimizer(0.0), "binary_crossentropy", metrics=[tp])
    first = m.test_on_batch(x[:3], labels[:3], reset_metrics=False)[1]
    both = m.test_on_batch(x[3:], labels[3:], reset_metrics=False)[1]
    np.testing.assert_array_equal(tp.get_weights()[0], [both])
    assert both >= first and m.metrics_names == ["loss", "true_positives"]
    m.reset_metrics()
    np.testing.assert_array_equal(tp.get_weights()[0], [0.0])
    a = K.Input(shape=(3,))
    two = K.Model(a, [K.layers.Dense(1, name="u")(a), K.layers.Dense(1, name="v")(a)])
    auc = K.metrics.AUC()
    two.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=[auc])
    assert two.metrics_names == ["loss", "u_loss", "v_loss", "u_auc", "v_auc"]
    assert auc.name == "auc"
    u_auc, v_auc = training.compile_metrics(two)
    assert (u_auc.name, v_auc.name) == ("u_auc", "v_auc") and auc not in (u_auc, v_auc)
    assert training.compile_metrics(m) == [tp]
    assert len(two.test_on_batch(x, [labels, labels])) == 5
    with pytest.raises(TypeError, match=r"compile\(metrics=...\) got the metric class AUC"):
        m.compile("sgd", "mse", metrics=[K.metrics.AUC])


def test_fit_before_compile_and_bad_shapes(graph):
    x, y = _xy()
    m = _model()
    with pytest.raises(RuntimeError, match="You must compile your model"):
        m.fit(x, y)
    m.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    with pytest.raises(ValueError, match=r"expected dense_input to have shape \(3,\)"):
        m.fit(x[:, :2], y, verbose=0)
    with pytest.raises(ValueError, match="Found 10 input samples and 4 target samples"):
        m.fit(x, y[:4], verbose=0)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda m, x, y: m.fit(x, y, class_weight=[1.0]), "class_weight"),
        (
            lambda m, x, y: m.fit(x, y, steps_per_epoch=2, validation_split=0.5),
            "steps_per_epoch",
        ),
        (lambda m, x, y: m.fit(x, y, sample_weight=[np.ones(10)]), "sample_weight"),
    ],
)
def test_unsupported_fit_arguments_raise(graph, call, match):
    x, y = _xy()
    m = _model()
    m.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    with pytest.raises(NotImplementedError, match=match):
        call(m, x, y)


def test_unsupported_compile_arguments_raise(graph):
    m = _model()
    opt = tf.train.GradientDescentOptimizer(0.1)
    for kwargs, match in (
        ({"sample_weight_mode": "temporal"}, "sample_weight_mode"),
        ({"target_tensors": [tf.zeros([1, 1])]}, "target_tensors"),
        ({"loss": K.losses.MeanSquaredError(reduction="none")}, "reduction='none'"),
    ):
        kwargs.setdefault("loss", "mse")
        with pytest.raises(NotImplementedError, match=match):
            m.compile(opt, **kwargs)
    with pytest.raises(ValueError, match="Unknown metric function: 'nope'"):
        m.compile(opt, "mse", metrics=["nope"])
    a = K.Input(shape=(3,))
    two = K.Model(a, [K.layers.Dense(1)(a), K.layers.Dense(1)(a)])
    two.compile(opt, "mse")
    x = np.ones((4, 3), np.float32)
    with pytest.raises(NotImplementedError, match="several outputs with sample/class weights"):
        two.fit(x, [np.ones((4, 1))] * 2, sample_weight=np.ones(4))
    with pytest.raises(NotImplementedError, match="loss=None"):
        two.compile(opt, ["mse", None])
    with pytest.raises(ValueError, match="Unknown entries in loss dictionary"):
        two.compile(opt, {"nope": "mse"})
    unbuilt = K.Sequential([K.layers.Dense(1)])
    unbuilt.compile(opt, "mse")  # built by the first data, as TF
    assert unbuilt.metrics_names == ["loss"] and not unbuilt.built
    with pytest.raises(NotImplementedError, match="not built, on several inputs"):
        unbuilt.fit([np.ones((2, 3)), np.ones((2, 3))], np.ones((2, 1)))
    with pytest.raises(NotImplementedError, match="neither built nor compiled"):
        K.Sequential([K.layers.Dense(1)]).predict(np.ones((2, 3)))


def test_compile_before_build_builds_on_first_data(graph):
    m = K.Sequential([K.layers.Dense(2), K.layers.Dense(1)])
    m.compile(tf.train.GradientDescentOptimizer(0.1), "mse", metrics=["mae"])
    x, y = _xy()
    m.fit(x.astype(np.float64), y, verbose=0)
    assert m.built and m.inputs[0].name == "input_1:0"
    assert m.inputs[0].dtype == tf.float32
    assert m.metrics_names == ["loss", "mean_absolute_error"]
    assert [v.name for v in tf.global_variables()][:2] == [
        "TFOptimizer/iterations:0",
        "sequential/dense/kernel:0",
    ]


def test_model_checkpoint_saves_the_whole_model_as_hdf5(graph, tmp_path):
    m = K.Sequential([K.layers.Dense(2, input_shape=(3,))])
    m.compile(K.optimizers.SGD(0.1), "mse")
    x = np.ones((4, 3), np.float32)
    path = str(tmp_path / "m.{epoch:02d}.h5")
    m.fit(x, x[:, :2], epochs=2, verbose=0, callbacks=[K.callbacks.ModelCheckpoint(path)])
    assert sorted(os.listdir(tmp_path)) == ["m.01.h5", "m.02.h5"]
    weights = m.get_weights()
    with tf.Graph().as_default():
        loaded = K.models.load_model(str(tmp_path / "m.02.h5"))
        for a, b in zip(loaded.get_weights(), weights, strict=True):
            np.testing.assert_array_equal(a, b)


def test_functional_model_dict_inputs(graph):
    a = K.Input(shape=(2,), name="a")
    b = K.Input(shape=(1,), name="b")
    out = K.layers.Dense(1)(K.layers.Concatenate()([a, b]))
    m = K.Model([a, b], out)
    m.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    rs = np.random.RandomState(1)
    xa, xb = rs.randn(8, 2), rs.randn(8, 1)
    y = rs.randn(8, 1)
    h1 = m.fit({"a": xa, "b": xb}, y, epochs=1, verbose=0, shuffle=False)
    assert len(h1.history["loss"]) == 1
    np.testing.assert_allclose(m.predict([xa, xb]), m.predict({"a": xa, "b": xb}))


def test_metric_objects_standalone(graph):
    """Standalone metric objects work as TF's graph-mode Keras (values checked live in
    tests/interop/test_keras_metrics_interop.py): variables in no collection, the update
    an op, the result ``total / count``, a reset in the default session."""
    m = K.metrics.BinaryAccuracy()
    assert m.name == "binary_accuracy" and m.get_config()["threshold"] == 0.5
    assert [v.name for v in m.variables] == ["total:0", "count:0"]
    assert tf.global_variables() == [] and tf.local_variables() == []
    update = m.update_state([[1.0], [0.0]], [[0.9], [0.7]])
    assert isinstance(update, tf.Operation)
    called = m([[1.0]], [[0.2]])
    with tf.Session() as sess:
        sess.run(tf.variables_initializer(m.variables))
        assert sess.run(update) is None
        assert sess.run(m.result()) == 0.5
        assert sess.run(called) == np.float32(1 / 3)
        m.reset_state()
        assert sess.run(m.result()) == 0.0
    with pytest.raises(TypeError, match="unexpected keyword"):
        K.metrics.MeanSquaredError(threshold=0.1)
