"""``tf.keras.metrics``' stateful metrics used standalone in a TF1 graph, checked live
against TF 2.21's legacy Keras (``TF_USE_LEGACY_KERAS=1``, classic TF1 graphs:
``twin.py``).

Each test builds several metrics in one graph on placeholders: ``update_state`` (with
and without ``sample_weight``), ``result()``, a call (``m(y_true, y_pred)``: the update,
then the result after it), ``reset_state()`` (run at once in the default session);
compared: the results after each fed batch, the metrics' names, dtypes, configs and
variables (names, shapes, dtypes), and that the variables are in no collection (TF's:
``tf.variables_initializer(m.variables)`` initializes them, not the global or local
initializers). Each test failed before the metrics were stateful in ``adapters.v1``
(NotImplementedError or AttributeError).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both, tf2_behaviour_off

pytestmark = pytest.mark.interop


@pytest.fixture(autouse=True)
def _tf1_behaviour():
    """TF's Keras as a TF1 script runs it (``disable_v2_behavior()`` turns ``tf2`` off:
    the legacy serialization, the TF1 names ``get`` knows), restored after."""
    with tf2_behaviour_off():
        yield


RTOL, ATOL = 2e-5, 2e-6

_RNG = np.random.RandomState(11)


def _batches(shape, n=3, low=0.0, high=1.0, dtype=np.float32, rng=_RNG):
    return [rng.uniform(low, high, shape).astype(dtype) for _ in range(n)]


def _stream(tf, metrics, updates, feeds, calls=(), call_feed=None, states=False):
    """``run(sess)``: the metrics' variables initialized, each feed's ``updates`` run and
    every result fetched, then the ``calls`` (fed ``call_feed``), then a reset;
    ``states``: the variables' values too, after each step and the reset."""
    results = [m.result() for m in metrics]
    variables = [list(m.variables) for m in metrics] if states else []
    init = tf.variables_initializer([v for m in metrics for v in m.variables])
    collected = [
        len(tf.global_variables()),
        len(tf.local_variables()),
        len(tf.trainable_variables()),
    ]

    def run(sess):
        sess.run(init)
        out = {
            "names": [m.name for m in metrics],
            "dtypes": [m.dtype for m in metrics],
            "variables": [
                [(v.name, v.shape.as_list(), v.dtype.name) for v in m.variables] for m in metrics
            ],
            "collected": collected,
            "updates": [type(u).__name__ for u in updates],
            "before": sess.run(results),
            "steps": [],
        }
        for feed in feeds:
            assert all(x is None for x in sess.run(updates, feed))
            if states:
                step, state = sess.run((results, variables))
                out.setdefault("states", []).append(state)
            else:
                step = sess.run(results)
            out["steps"].append(step)
        if calls:
            out["calls"] = sess.run(list(calls), call_feed)
            out["after calls"] = sess.run(results)
        for m in metrics:
            m.reset_state()
        if states:
            out["reset"], out["states after reset"] = sess.run((results, variables))
        else:
            out["reset"] = sess.run(results)
        return out

    return run


def test_mean_sum_and_mean_tensor():
    """``Mean``/``Sum``/``MeanTensor`` with vector, column, scalar and lower-rank weights
    (the values reduced to the weights' rank), float64 and int32 dtypes (an int32 mean
    is a float64 ``div_no_nan``), names and name scopes."""
    xs = _batches((4, 3), low=-2, high=3)
    ws = _batches((4,))

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.placeholder(tf.float32, [None])
        cube = tf.reshape(x, [4, 3, 1]) * tf.constant([1.0, -0.5], shape=[1, 1, 2])
        with tf.name_scope("scoped"):
            mean = tf.keras.metrics.Mean()
        metrics = [
            mean,
            tf.keras.metrics.Mean(name="weighted mean"),
            tf.keras.metrics.Mean(name="column"),
            tf.keras.metrics.Mean(name="scalar"),
            tf.keras.metrics.Mean(name="cube", dtype="float64"),
            tf.keras.metrics.Mean(name="ints", dtype="int32"),
            tf.keras.metrics.Sum(),
            tf.keras.metrics.Sum(name="weighted sum"),
            tf.keras.metrics.Sum(name="cube sum"),
            tf.keras.metrics.MeanTensor(),
            tf.keras.metrics.MeanTensor(name="weighted tensor", shape=(4, 3), dtype=tf.float64),
            tf.keras.metrics.MeanTensor(name="row weights"),
        ]
        updates = [
            metrics[0].update_state(x),
            metrics[1].update_state(x, sample_weight=w),
            metrics[2].update_state(x, sample_weight=w[:, None]),
            metrics[3].update_state(x, sample_weight=0.5),
            metrics[4].update_state(cube, sample_weight=w),
            metrics[5].update_state(tf.cast(x * 3.0, tf.int32)),
            metrics[6].update_state(x),
            metrics[7].update_state(x, w),
            metrics[8].update_state(cube, w),
            metrics[9].update_state(tf.reshape(x, [4, 3])),
            metrics[10].update_state(tf.reshape(x, [4, 3]), tf.reshape(x, [4, 3]) + 2.0),
            metrics[11].update_state(tf.reshape(cube, [4, 3, 2]), tf.reshape(x, [4, 3])),
        ]
        calls = [
            metrics[0](x * 2.0),
            metrics[7](x, sample_weight=w),
            metrics[9](tf.reshape(x, [4, 3])),
        ]
        feeds = [{x: a, w: b} for a, b in zip(xs, ws, strict=True)]
        return _stream(tf, metrics, updates, feeds, calls, feeds[0])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_mean_tensor_errors():
    """``MeanTensor``: ``result()`` before an update, an update of another shape, a
    first update of a partially known shape: TF's ``ValueError``s."""

    def script(tf):
        m = tf.keras.metrics.MeanTensor()
        errors = []
        for call in (
            m.result,
            lambda: m.update_state(tf.placeholder(tf.float32, [None, 2])),
            lambda: m.update_state(tf.zeros([2, 2])),
            lambda: m.update_state(tf.zeros([3, 2])),
        ):
            try:
                call()
                errors.append(None)
            except ValueError as e:
                errors.append(str(e))
        return lambda sess: errors

    theirs, ours = run_both(script)
    assert ours == theirs


def _pairs(tf, specs, y_true, y_pred, w):
    """``(metrics, updates, calls)``: each ``(metric, weighted)`` updated on the pair
    (with ``w`` if weighted) and called on ``(y_true, 1 - y_pred)``."""
    metrics = [m for m, _ in specs]
    updates = [
        m.update_state(y_true, y_pred, sample_weight=w if weighted else None)
        for m, weighted in specs
    ]
    calls = [m(y_true, 1.0 - y_pred) for m in metrics]
    return metrics, updates, calls


def test_mean_metric_wrappers():
    """The ``MeanMetricWrapper`` classes standalone: accuracies, errors and the
    cross-entropies, weighted and not, a custom function wrapped (TF's default name
    ``mean_metric_wrapper``), labels of rank one less (squeezed to match)."""
    yts = [(_RNG.uniform(0, 1, (5, 3)) > 0.5).astype(np.float32) for _ in range(3)]
    yps = _batches((5, 3), low=0.01, high=0.99)
    ws = _batches((5,))

    def script(tf):
        K = tf.keras
        yt = tf.placeholder(tf.float32, [None, 3])
        yp = tf.placeholder(tf.float32, [None, 3])
        w = tf.placeholder(tf.float32, [None])
        specs = [
            (K.metrics.BinaryAccuracy(), False),
            (K.metrics.BinaryAccuracy(name="acc3", threshold=0.3), True),
            (K.metrics.Accuracy(), True),
            (K.metrics.CategoricalAccuracy(), True),
            (K.metrics.MeanSquaredError(), False),
            (K.metrics.MeanSquaredError(name="wmse"), True),
            (K.metrics.MeanAbsoluteError(dtype="float64"), True),
            (K.metrics.BinaryCrossentropy(label_smoothing=0.1), True),
            (K.metrics.CategoricalCrossentropy(), True),
            (K.metrics.MeanMetricWrapper(lambda a, b: tf.abs(a - b) * 2.0), True),
            (K.metrics.MeanMetricWrapper(K.metrics.mean_squared_error, name="wrapped"), False),
        ]
        metrics, updates, calls = _pairs(tf, specs, yt, yp, w)
        sparse = K.metrics.SparseCategoricalAccuracy()
        labels = tf.cast(tf.argmax(yt, -1), tf.float32)
        metrics.append(sparse)
        updates.append(sparse.update_state(labels[:, None], yp, w))
        calls.append(sparse(labels, yp))
        feeds = [{yt: a, yp: b, w: c} for a, b, c in zip(yts, yps, ws, strict=True)]
        run = _stream(tf, metrics, updates, feeds, calls, feeds[1])

        def run_and_configs(sess):
            out = run(sess)
            out["configs"] = [
                sorted((k, str(v)) for k, v in m.get_config().items() if k != "fn") for m in metrics
            ]
            return out

        return run_and_configs

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_regression_and_probabilistic_wrappers():
    """The wrappers of the loss functions (hinges, KL divergence, Poisson, log-cosh,
    MAPE, MSLE), ``CosineSimilarity`` (positive, the loss's negative; ``axis``),
    ``RootMeanSquaredError`` and ``MeanRelativeError`` (a normalizer), weighted and not;
    TF's default names (``logcosh``, ``kullback_leibler_divergence``)."""
    yts = _batches((5, 4), low=0.1, high=1.0)
    yps = _batches((5, 4), low=0.05, high=1.2)
    ws = _batches((5,))

    def script(tf):
        K = tf.keras
        yt = tf.placeholder(tf.float32, [None, 4])
        yp = tf.placeholder(tf.float32, [None, 4])
        w = tf.placeholder(tf.float32, [None])
        specs = [
            (K.metrics.Hinge(), True),
            (K.metrics.SquaredHinge(), False),
            (K.metrics.CategoricalHinge(), True),
            (K.metrics.KLDivergence(), True),
            (K.metrics.Poisson(), False),
            (K.metrics.LogCoshError(), True),
            (K.metrics.MeanAbsolutePercentageError(), True),
            (K.metrics.MeanSquaredLogarithmicError(), False),
            (K.metrics.CosineSimilarity(), True),
            (K.metrics.CosineSimilarity(name="cos0", axis=0), False),
            (K.metrics.RootMeanSquaredError(), True),
            (K.metrics.RootMeanSquaredError(name="rmse", dtype="float64"), False),
            (K.metrics.MeanRelativeError(normalizer=[[1.0, 2.0, 0.0, 4.0]] * 5), True),
        ]
        metrics, updates, calls = _pairs(tf, specs, yt, yp, w)
        feeds = [{yt: a, yp: b, w: c} for a, b, c in zip(yts, yps, ws, strict=True)]
        return _stream(tf, metrics, updates, feeds, calls, feeds[2])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_top_k_accuracies():
    """``TopKCategoricalAccuracy``/``SparseTopKCategoricalAccuracy`` (k=5 by default,
    ``k`` positional first as TF's), labels of shape ``[N]`` and ``[N, 1]``, 3-D
    predictions flattened; the functions' values and shapes."""
    classes = 7
    labels = [_RNG.randint(0, classes, (6,)) for _ in range(3)]
    yps = _batches((6, classes))
    ws = _batches((6,))

    def script(tf):
        K = tf.keras
        lab = tf.placeholder(tf.int32, [None])
        yp = tf.placeholder(tf.float32, [None, classes])
        w = tf.placeholder(tf.float32, [None])
        onehot = tf.one_hot(lab, classes)
        top = [K.metrics.TopKCategoricalAccuracy(), K.metrics.TopKCategoricalAccuracy(2, "top2")]
        sparse = [
            K.metrics.SparseTopKCategoricalAccuracy(),
            K.metrics.SparseTopKCategoricalAccuracy(k=1, name="top1"),
            K.metrics.SparseTopKCategoricalAccuracy(3),
        ]
        updates = [
            top[0].update_state(onehot, yp),
            top[1].update_state(onehot, yp, w),
            sparse[0].update_state(lab, yp, w),
            sparse[1].update_state(lab[:, None], yp),
            sparse[2].update_state(tf.reshape(lab, [2, 3]), tf.reshape(yp, [2, 3, classes])),
        ]
        metrics = top + sparse
        calls = [top[1](onehot, yp), sparse[1](lab, yp, w)]
        values = [
            K.metrics.top_k_categorical_accuracy(onehot, yp),
            K.metrics.top_k_categorical_accuracy(onehot, yp, k=3),
            K.metrics.sparse_top_k_categorical_accuracy(lab, yp, k=2),
            K.metrics.sparse_top_k_categorical_accuracy(lab[:, None], yp, 1),
            K.metrics.sparse_top_k_categorical_accuracy(
                tf.reshape(lab, [3, 2]), tf.reshape(yp, [3, 2, classes]), 4
            ),
        ]
        feeds = [{lab: a, yp: b, w: c} for a, b, c in zip(labels, yps, ws, strict=True)]
        run = _stream(tf, metrics, updates, feeds, calls, feeds[0])

        def run_and_values(sess):
            out = run(sess)
            out["values"] = sess.run(values, feeds[1])
            return out

        return run_and_values

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_metric_functions():
    """The metric functions that are losses (``cosine``/``cosine_proximity``: the loss,
    negative), the focal cross-entropies with their arguments, and what ``get`` gives
    for the function names (``cosine_proximity``: the positive metric)."""
    yt = (_RNG.uniform(0, 1, (4, 3)) > 0.5).astype(np.float32)
    yp = _RNG.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
    names = [
        "mape",
        "MSLE",
        "msle",
        "poisson",
        "logcosh",
        "log_cosh",
        "squared_hinge",
        "categorical_hinge",
        "hinge",
        "kullback_leibler_divergence",
        "cosine_similarity",
        "cosine_proximity",
        "top_k_categorical_accuracy",
        "bce",
        "acc",
        "mse",
    ]

    def script(tf):
        M = tf.keras.metrics
        t, p = tf.constant(yt), tf.constant(yp)
        values = [
            M.mean_absolute_percentage_error(t, p),
            M.mape(t, p),
            M.MAPE(t, p),
            M.mean_squared_logarithmic_error(t, p),
            M.msle(t, p),
            M.MSLE(t, p),
            M.poisson(t, p),
            M.log_cosh(t, p),
            M.logcosh(t, p),
            M.squared_hinge(t, p),
            M.cosine(t, p),
            M.cosine_proximity(t, p, axis=0),
            M.binary_focal_crossentropy(t, p),
            M.binary_focal_crossentropy(
                t, p, apply_class_balancing=True, alpha=0.4, gamma=1.5, label_smoothing=0.1
            ),
            M.binary_focal_crossentropy(t, p * 4.0 - 2.0, from_logits=True),
            M.categorical_focal_crossentropy(t, p),
            M.categorical_focal_crossentropy(t, p, alpha=0.5, gamma=3.0, label_smoothing=0.2),
        ]
        values += [M.get(n)(t, p) for n in names]
        return lambda sess: sess.run(values)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_serialize_deserialize_get():
    """``serialize`` (the legacy ``{'class_name', 'config'}`` format under TF1, a
    function as its name), ``deserialize``/``get`` of class names (an instance with the
    defaults), config dicts and function names; TF's errors for unknown names."""
    bad = ["nope", "kld", "cosine", "binary_focal_crossentropy", "ce", 3]

    def script(tf):
        M = tf.keras.metrics
        made = [
            M.TopKCategoricalAccuracy(k=3, name="t3"),
            M.BinaryAccuracy(threshold=0.7),
            M.CosineSimilarity(axis=0),
            M.Mean(),
            M.Sum(name="s"),
            M.MeanTensor(),
            M.KLDivergence(),
            M.SparseCategoricalCrossentropy(from_logits=True),
            M.RootMeanSquaredError(),
        ]
        out = {
            "serialized": [M.serialize(m) for m in made],
            "functions": [M.serialize(f) for f in (M.mape, M.msle, M.poisson, M.cosine)],
            "legacy": M.serialize(made[0], use_legacy_format=True),
            "round trip": [M.deserialize(M.serialize(m)).get_config() for m in made],
            "by class name": [
                M.get(n).get_config()
                for n in ("CategoricalAccuracy", "LogCoshError", "Poisson", "MeanTensor")
            ],
            "by dict": M.get({"class_name": "Hinge", "config": {"name": "h"}}).get_config(),
            "function names": [
                M.get(n).__name__ for n in ("mape", "MSLE", "bce", "acc", "cosine_proximity")
            ],
            "none": M.serialize(None),
        }
        errors = []
        for name in bad:
            try:
                M.get(name)
            except ValueError as e:
                errors.append(str(e))
        out["errors"] = errors
        return lambda sess: out

    theirs, ours = run_both(script)
    assert ours == theirs


def test_confusion_counts_precision_recall():
    """``TruePositives``...``FalseNegatives``, ``Precision`` and ``Recall``: one
    threshold (a scalar result) or several (compared with each; evenly spaced ones
    counted by buckets), ``top_k``, ``class_id``, weighted and not, a call and a reset;
    the variables' names (``accumulator``, ``true_positives``...)."""
    yts = [(_RNG.uniform(0, 1, (6, 4)) > 0.6).astype(np.float32) for _ in range(3)]
    yps = _batches((6, 4))
    ws = _batches((6,))

    def script(tf):
        K = tf.keras
        yt = tf.placeholder(tf.float32, [None, 4])
        yp = tf.placeholder(tf.float32, [None, 4])
        w = tf.placeholder(tf.float32, [None])
        specs = [
            (K.metrics.TruePositives(), False),
            (K.metrics.FalsePositives(thresholds=[0.2, 0.7]), True),
            (K.metrics.TrueNegatives(thresholds=0.3), True),
            (K.metrics.FalseNegatives(thresholds=[0.0, 0.5, 1.0]), True),
            (K.metrics.Precision(), False),
            (K.metrics.Precision(thresholds=[0.1, 0.4, 0.8], name="p3"), True),
            (K.metrics.Precision(top_k=2), True),
            (K.metrics.Precision(class_id=1, thresholds=0.4), False),
            (K.metrics.Recall(), True),
            (K.metrics.Recall(thresholds=[0.0, 0.25, 0.5, 0.75, 1.0]), True),
            (K.metrics.Recall(top_k=1, class_id=2), False),
        ]
        metrics, updates, calls = _pairs(tf, specs, yt, yp, w)
        feeds = [{yt: a, yp: b, w: c} for a, b, c in zip(yts, yps, ws, strict=True)]
        run = _stream(tf, metrics, updates, feeds, calls, feeds[1])

        def run_and_configs(sess):
            out = run(sess)
            out["configs"] = [
                sorted((k, _plain(v)) for k, v in m.get_config().items()) for m in metrics
            ]
            return out

        return run_and_configs

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def _plain(value):
    """A config value with TF's ``ListWrapper`` (a layer's list attribute) as a list."""
    return list(value) if type(value).__name__ == "ListWrapper" else value


def test_auc():
    """``AUC``: ROC, PR (interpolated, minoring, majoring) and PR-gain curves, few and
    given thresholds, ``from_logits``, label weights, multi-label (built at the first
    update or from ``num_labels``), weighted and not."""
    yts = [(_RNG.uniform(0, 1, (8, 3)) > 0.5).astype(np.float32) for _ in range(3)]
    yps = _batches((8, 3))
    ws = _batches((8,))

    def script(tf):
        K = tf.keras
        yt = tf.placeholder(tf.float32, [None, 3])
        yp = tf.placeholder(tf.float32, [None, 3])
        w = tf.placeholder(tf.float32, [None])
        specs = [
            (K.metrics.AUC(), False),
            (K.metrics.AUC(num_thresholds=7, name="roc7"), True),
            (K.metrics.AUC(curve="PR"), True),
            (K.metrics.AUC(curve="PR", summation_method="minoring", num_thresholds=11), True),
            (K.metrics.AUC(curve="pr", summation_method="majoring", num_thresholds=5), False),
            (K.metrics.AUC(curve="PR_GAIN", num_thresholds=9), True),
            (K.metrics.AUC(thresholds=[0.6, 0.2, 0.45]), True),
            (K.metrics.AUC(thresholds=[0.25, 0.5, 0.75], curve="PR"), False),
            (K.metrics.AUC(from_logits=True, num_thresholds=13), True),
            (K.metrics.AUC(label_weights=[0.5, 1.0, 2.0], num_thresholds=10), True),
            (K.metrics.AUC(multi_label=True, num_thresholds=8), True),
            (K.metrics.AUC(multi_label=True, num_labels=3, curve="PR"), False),
            (
                K.metrics.AUC(
                    multi_label=True, label_weights=[1.0, 0.0, 3.0], thresholds=[0.3, 0.6]
                ),
                True,
            ),
        ]
        metrics, updates, calls = _pairs(tf, specs, yt, yp, w)
        feeds = [{yt: a, yp: b, w: c} for a, b, c in zip(yts, yps, ws, strict=True)]
        run = _stream(tf, metrics, updates, feeds, calls, feeds[0])

        def run_and_configs(sess):
            out = run(sess)
            out["configs"] = [
                sorted((k, str(v)) for k, v in m.get_config().items()) for m in metrics
            ]
            out["thresholds"] = [
                np.float32(metrics[1].thresholds),
                np.float32(metrics[6].thresholds),
            ]
            return out

        return run_and_configs

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_confusion_errors():
    """TF's ``ValueError``s: thresholds outside ``[0, 1]``, ``num_thresholds`` below 2,
    unknown curve or summation method, ``num_labels`` without ``multi_label``,
    multi-label predictions not of rank 2."""

    def script(tf):
        M = tf.keras.metrics
        errors = []
        for call in (
            lambda: M.TruePositives(thresholds=[0.5, 1.5]),
            lambda: M.Precision(thresholds=-0.1),
            lambda: M.AUC(num_thresholds=1),
            lambda: M.AUC(curve="XY"),
            lambda: M.AUC(summation_method="left"),
            lambda: M.AUC(num_labels=3),
            lambda: M.AUC(multi_label=True).update_state(tf.zeros([2, 2, 2]), tf.zeros([2, 2, 2])),
        ):
            try:
                call()
                errors.append(None)
            except ValueError as e:
                errors.append(str(e))
        return lambda sess: errors

    theirs, ours = run_both(script)
    assert ours == theirs


def test_compile_with_metric_class_names_and_new_wrappers():
    """``Model.compile(metrics=[...])`` with class names (``get`` gives an instance, run
    as its function: before, adapters.v1 averaged the running result) and instances of
    the new wrapper classes; the fit history and ``metrics_names``."""
    rs = np.random.RandomState(0)
    x = rs.randn(10, 4).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rs.randint(0, 3, 10)]

    def script(tf):
        K = tf.keras
        m = K.Sequential(
            [K.layers.Dense(3, activation="softmax", input_shape=(4,), kernel_initializer="ones")]
        )
        m.compile(
            tf.train.GradientDescentOptimizer(0.1),
            "categorical_crossentropy",
            metrics=[
                "CategoricalAccuracy",
                "TopKCategoricalAccuracy",
                K.metrics.TopKCategoricalAccuracy(k=1, name="top1"),
                K.metrics.CategoricalHinge(),
                K.metrics.KLDivergence(),
            ],
        )

        def run(sess):
            h = m.fit(x, y, epochs=2, batch_size=5, verbose=0, shuffle=False)
            return {"history": h.history, "names": m.metrics_names}

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)
