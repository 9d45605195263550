"""``tf.keras.metrics``' IoU metrics, F-scores, ``R2Score`` and the rates at a
constraint (``SensitivityAtSpecificity``...), used standalone in a TF1 graph and in
``Model.compile(metrics=[...])``'s ``fit``/``evaluate``, checked live against TF 2.21's
legacy Keras (``TF_USE_LEGACY_KERAS=1``, classic TF1 graphs: ``twin.py``).

As ``test_keras_metrics_interop.py``: several metrics in one graph on placeholders,
updated (with and without ``sample_weight``) on several batches; compared: the results
after each batch, a call, a reset, the variables' names, shapes, dtypes (and values,
where TF's graph-mode update runs only part of them), the configs and their round trip
through ``serialize``/``deserialize``, TF's errors for bad arguments. Each test failed
before these metrics were in ``adapters.v1`` (AttributeError: the names were missing).

.. note:: In a TF1 graph TF 2.21's ``FBetaScore``/``F1Score``/``R2Score`` run only the
   last variable update of ``update_state`` (Keras' graph-mode wrapper returns the
   graph's last op) and their ``reset_state()`` runs nothing: the F-scores stay 0 and
   ``R2Score`` NaN; the tests compare the states to show which updates ran.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.test_keras_metrics_interop import (  # noqa: F401 (an autouse fixture)
    ATOL,
    RTOL,
    _batches,
    _plain,
    _stream,
    _tf1_behaviour,
)
from tests.interop.twin import assert_twins, kernel_message, run_both

pytestmark = pytest.mark.interop

CLASSES = 3


def _configs(metrics):
    """Each metric's config (lists plain) and the config of its ``serialize`` /
    ``deserialize`` round trip."""
    return [sorted((k, str(_plain(v))) for k, v in m.get_config().items()) for m in metrics]


def _with_configs(tf, run, metrics):
    def run_and_configs(sess):
        out = run(sess)
        out["configs"] = _configs(metrics)
        M = tf.keras.metrics
        out["round trip"] = _configs([M.deserialize(M.serialize(m)) for m in metrics])
        return out

    return run_and_configs


def _iou_specs(M, lab, lab_i, yp, w, tf):
    """Each group's ``[(metric, update arguments)]``: the first is also called."""
    ids = tf.argmax(yp, -1)
    onehot = tf.one_hot(lab, CLASSES)
    binary = tf.cast(lab > 0, tf.float32)
    return {
        "IoU": [
            (M.IoU(CLASSES, [0]), (lab, ids)),
            (M.IoU(CLASSES, [0, 2], name="iou02"), (lab, ids, w)),
            (M.IoU(CLASSES, (1,), sparse_y_pred=False), (lab, yp, w)),
            (M.IoU(CLASSES, [0, 1], ignore_class=-1), (lab_i, ids, w)),
            (M.IoU(CLASSES, [2], ignore_class=-1, dtype="float64"), (lab_i, ids)),
        ],
        "MeanIoU": [
            (M.MeanIoU(CLASSES, sparse_y_true=False, sparse_y_pred=False), (onehot, yp, w)),
            (M.MeanIoU(CLASSES), (lab, ids)),
            (
                M.MeanIoU(CLASSES, ignore_class=2, name="maps"),
                (tf.reshape(lab, [2, 3]), tf.reshape(ids, [2, 3]), tf.reshape(w, [2, 3])),
            ),
            (
                M.MeanIoU(CLASSES, sparse_y_true=False, sparse_y_pred=False, axis=0),
                (tf.transpose(onehot), tf.transpose(yp)),
            ),
        ],
        "BinaryIoU": [
            (M.BinaryIoU(target_class_ids=[1], threshold=0.3), (binary, yp[:, 1], w)),
            (M.BinaryIoU(), (binary, yp[:, 0])),
            (M.BinaryIoU([0], 0.7, name="b0"), (binary, yp[:, 2], w)),
        ],
        "OneHot": [
            (M.OneHotIoU(CLASSES, [0, 2]), (onehot, yp, w)),
            (M.OneHotIoU(CLASSES, [1], sparse_y_pred=True), (onehot, ids)),
            (M.OneHotMeanIoU(CLASSES), (onehot, yp)),
            (M.OneHotMeanIoU(CLASSES, ignore_class=1, name="hot"), (onehot, yp, w)),
        ],
    }


@pytest.mark.parametrize("group", ["IoU", "MeanIoU", "BinaryIoU", "OneHot"])
def test_iou_metrics(group):
    """``IoU`` (target classes, dense predictions, ``ignore_class``, float64),
    ``MeanIoU`` (dense labels, 2-D maps flattened with their weights, ``axis``),
    ``BinaryIoU`` (thresholds ``>=``, target classes) and ``OneHotIoU`` /
    ``OneHotMeanIoU`` (sparse predictions, ``ignore_class``), weighted and not."""
    # as many of each class in every batch, 2 ignored (-1): masks of one size
    rng = np.random.RandomState(21)
    labels = [rng.permutation([0, 0, 1, 1, 2, 2]) for _ in range(3)]
    ignored = [np.where(rng.permutation(6) < 2, -1, x) for x in labels]
    yps = _batches((6, CLASSES), rng=rng)
    ws = _batches((6,), rng=rng)

    def script(tf):
        lab = tf.placeholder(tf.int32, [None])
        lab_i = tf.placeholder(tf.int32, [None])
        yp = tf.placeholder(tf.float32, [None, CLASSES])
        w = tf.placeholder(tf.float32, [None])
        specs = _iou_specs(tf.keras.metrics, lab, lab_i, yp, w, tf)[group]
        metrics = [m for m, _ in specs]
        updates = [m.update_state(*args) for m, args in specs]
        calls = [metrics[0](*specs[0][1])]
        feeds = [
            {lab: a, lab_i: b, yp: c, w: d}
            for a, b, c, d in zip(labels, ignored, yps, ws, strict=True)
        ]
        run = _stream(tf, metrics, updates, feeds, calls, feeds[1], states=True)
        return _with_configs(tf, run, metrics)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def _rate_specs(M, group):
    """``[(metric, weighted)]`` of the group's two classes."""
    if group == "sensitivity/specificity":
        return [
            (M.SensitivityAtSpecificity(0.5), False),
            (M.SensitivityAtSpecificity(specificity=0.4, num_thresholds=7), True),
            (M.SensitivityAtSpecificity(1.0, num_thresholds=1, name="one"), True),
            (M.SpecificityAtSensitivity(0.4), True),
            (M.SpecificityAtSensitivity(0.0, num_thresholds=2, class_id=1), False),
        ]
    return [
        (M.PrecisionAtRecall(0.6), True),
        (M.PrecisionAtRecall(recall=0.3, num_thresholds=5, class_id=0), True),
        (M.RecallAtPrecision(0.5), True),
        (M.RecallAtPrecision(precision=1.0, num_thresholds=11), False),
        (M.RecallAtPrecision(0.3, num_thresholds=1, class_id=2, dtype="float64"), True),
    ]


@pytest.mark.parametrize("group", ["sensitivity/specificity", "precision/recall"])
def test_rates_at_a_constraint(group):
    """``SensitivityAtSpecificity``, ``SpecificityAtSensitivity``,
    ``PrecisionAtRecall`` and ``RecallAtPrecision``: 200, 1 (at 0.5), 2 and a few
    thresholds, ``class_id``, constraints nobody reaches (0), weighted and not."""
    rng = np.random.RandomState(22)
    yts = [(rng.uniform(0, 1, (8, 3)) > 0.5).astype(np.float32) for _ in range(3)]
    yps = _batches((8, 3), rng=rng)
    ws = _batches((8,), rng=rng)

    def script(tf):
        yt = tf.placeholder(tf.float32, [None, 3])
        yp = tf.placeholder(tf.float32, [None, 3])
        w = tf.placeholder(tf.float32, [None])
        specs = _rate_specs(tf.keras.metrics, group)
        metrics = [m for m, _ in specs]
        updates = [m.update_state(yt, yp, w if weighted else None) for m, weighted in specs]
        calls = [metrics[0](yt, 1.0 - yp), metrics[1](yt, yp * yp, w)]
        feeds = [{yt: a, yp: b, w: c} for a, b, c in zip(yts, yps, ws, strict=True)]
        run = _stream(tf, metrics, updates, feeds, calls, feeds[2], states=True)

        def run_with_thresholds(sess):
            out = _with_configs(tf, run, metrics)(sess)
            out["thresholds"] = [np.float64(m.thresholds) for m in metrics]
            return out

        return run_with_thresholds

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_f_scores():
    """``F1Score``/``FBetaScore``: the averages (None, micro, macro, weighted), a
    threshold or the row's maximum, ``beta``, weighted and not; as TF's graph mode:
    only ``intermediate_weights`` is updated (the score stays 0) and a reset keeps the
    state."""
    rng = np.random.RandomState(23)
    yts = [(rng.uniform(0, 1, (5, 4)) > 0.5).astype(np.float32) for _ in range(3)]
    yps = _batches((5, 4), rng=rng)
    ws = _batches((5,), rng=rng)

    def script(tf):
        M = tf.keras.metrics
        yt = tf.placeholder(tf.float32, [None, 4])
        yp = tf.placeholder(tf.float32, [None, 4])
        w = tf.placeholder(tf.float32, [None])
        specs = [
            (M.F1Score(), False),
            (M.F1Score(average="micro", threshold=0.5), True),
            (M.F1Score(average="macro", name="f1 macro"), True),
            (M.F1Score(average="weighted", threshold=0.3), True),
            (M.FBetaScore(), False),
            (M.FBetaScore(beta=2.0, average="weighted"), True),
            (M.FBetaScore(average="micro", beta=0.5, threshold=1.0), False),
        ]
        metrics = [m for m, _ in specs]
        updates = [m.update_state(yt, yp, w if weighted else None) for m, weighted in specs]
        calls = [metrics[1](yt, yp, w), metrics[4](yt, 1.0 - yp)]
        feeds = [{yt: a, yp: b, w: c} for a, b, c in zip(yts, yps, ws, strict=True)]
        run = _stream(tf, metrics, updates, feeds, calls, feeds[0], states=True)
        return _with_configs(tf, run, metrics)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_r2_score():
    """``R2Score``: the class aggregations, weights per example (``[N]``, ``[N, 1]``)
    or per element; as TF's graph mode: only the int32 ``num_samples``
    (elements, not examples) is updated, the result is NaN and a reset keeps it."""
    rng = np.random.RandomState(24)
    yts = _batches((5, 2), low=-1.0, high=2.0, rng=rng)
    yps = _batches((5, 2), low=-1.0, high=2.0, rng=rng)
    ws = _batches((5,), rng=rng)

    def script(tf):
        M = tf.keras.metrics
        yt = tf.placeholder(tf.float32, [None, 2])
        yp = tf.placeholder(tf.float32, [None, 2])
        w = tf.placeholder(tf.float32, [None])
        metrics = [
            M.R2Score(),
            M.R2Score(class_aggregation="variance_weighted_average", name="r2v"),
            M.R2Score(class_aggregation=None, name="r2n"),
            M.R2Score(name="r2c"),
            M.R2Score(class_aggregation=None, name="r2e"),
        ]
        updates = [
            metrics[0].update_state(yt, yp),
            metrics[1].update_state(yt, yp, w),
            metrics[2].update_state(yt, yp, w),
            metrics[3].update_state(yt, yp, w[:, None]),
            metrics[4].update_state(yt, yp, yt * 0.5 + 1.0),
        ]
        calls = [metrics[0](yt, yp), metrics[2](yt, yp, w)]
        feeds = [{yt: a, yp: b, w: c} for a, b, c in zip(yts, yps, ws, strict=True)]
        run = _stream(tf, metrics, updates, feeds, calls, feeds[1], states=True)
        return _with_configs(tf, run, metrics)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_f_score_and_r2_results_of_a_state():
    """The F-scores' and ``R2Score``'s ``result()`` of states loaded with
    ``set_weights`` (TF's graph-mode update leaves most of them 0): every average and
    aggregation, ``beta``, classes without positives, a column of no variance (an
    infinite score counts 0) or no count."""
    rs = np.random.RandomState(5)
    f_state = [rs.uniform(0, 4, (4,)).astype(np.float32) for _ in range(4)]
    f_state[0][1] = 0.0  # a class without true positives
    micro = [np.float32(v.sum()) for v in f_state]
    r2_state = [
        np.int32(12),
        *[rs.uniform(0.5, 6, (3,)).astype(np.float32) for _ in range(4)],
    ]
    r2_state[1][1] = r2_state[2][1] ** 2 / r2_state[4][1]  # no variance: -inf, then 0
    r2_state[4][2] = 0.0  # no count: an infinite mean

    def script(tf):
        M = tf.keras.metrics
        yt = tf.placeholder(tf.float32, [None, 4])
        y3 = tf.placeholder(tf.float32, [None, 3])
        f_scores = [
            M.F1Score(),
            M.F1Score(average="macro"),
            M.F1Score(average="weighted"),
            M.FBetaScore(beta=2.0),
            M.FBetaScore(beta=0.5, average="weighted"),
        ]
        micros = [M.F1Score(average="micro"), M.FBetaScore(beta=3.0, average="micro")]
        r2s = [
            M.R2Score(),
            M.R2Score(class_aggregation="variance_weighted_average"),
            M.R2Score(class_aggregation=None),
        ]
        for m in f_scores + micros:
            m.update_state(yt, yt)
        for m in r2s:
            m.update_state(y3, y3)
        results = [m.result() for m in f_scores + micros + r2s]

        def run(sess):
            for m in f_scores:
                m.set_weights(f_state)
            for m in micros:
                m.set_weights(micro)
            for m in r2s:
                m.set_weights(r2_state)
            return sess.run(results)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def _errors(calls, classes=(ValueError, TypeError)):
    """Each call's ``(error class, message)``, or None."""
    out = []
    for call in calls:
        try:
            call()
            out.append(None)
        except classes as e:
            out.append((type(e).__name__, str(e)))
    return out


def test_bad_arguments():
    """TF's errors: target class ids out of range, constraints outside ``[0, 1]``,
    ``num_thresholds`` below 1, unknown averages and aggregations, a ``beta`` or
    ``threshold`` no float or out of range, a negative ``num_regressors``, inputs not
    of rank 2 (the F-scores, ``R2Score``), weights that do not fit IoU's flattened
    predictions."""

    def script(tf):
        M = tf.keras.metrics
        x3 = tf.placeholder(tf.float32, [None, 2, 2])
        return_errors = _errors(
            [
                lambda: M.IoU(3, [0, 3]),
                lambda: M.OneHotIoU(2, [2]),
                lambda: M.BinaryIoU([0, 2]),
                lambda: M.SensitivityAtSpecificity(1.5),
                lambda: M.SpecificityAtSensitivity(-0.1),
                lambda: M.PrecisionAtRecall(2.0),
                lambda: M.RecallAtPrecision(-1.0),
                lambda: M.RecallAtPrecision(0.5, num_thresholds=0),
                lambda: M.F1Score(average="samples"),
                lambda: M.FBetaScore(beta=1),
                lambda: M.FBetaScore(beta=-1.0),
                lambda: M.F1Score(threshold=1),
                lambda: M.F1Score(threshold=1.5),
                lambda: M.F1Score(threshold=0.0),
                lambda: M.R2Score(class_aggregation="mean"),
                lambda: M.R2Score(num_regressors=-1),
                lambda: M.F1Score().update_state(x3, x3),
                lambda: M.R2Score().update_state(x3, x3),
                lambda: M.IoU(2, [0]).update_state([0, 1], [1, 1], sample_weight=0.5),
            ]
        )
        return lambda sess: return_errors

    theirs, ours = run_both(script)
    assert ours == theirs


def test_graph_mode_errors():
    """Errors TF 2.21's graph mode gives: ``R2Score(num_regressors=...)``'s result (a
    variable as a Python bool: a ``TypeError``), float64 ``FBetaScore``/``R2Score``
    results (a float32 ``beta ** 2``, a float32 0 in ``where``), a result before the
    first update (no state yet); a label out of IoU's classes when run (TF's
    ``confusion_matrix`` assertion)."""

    def script(tf):
        M = tf.keras.metrics
        x = tf.placeholder(tf.float32, [None, 2])
        x64 = tf.cast(x, tf.float64)
        adjusted = M.R2Score(num_regressors=2)
        adjusted.update_state(x, x)
        kinds = []
        for call in (
            adjusted.result,
            lambda: M.FBetaScore(dtype="float64")(x64, x64),
            lambda: M.R2Score(dtype="float64")(x64, x64),
            M.F1Score().result,
            M.R2Score().result,
        ):
            try:
                call()
                kinds.append(None)
            except (TypeError, AttributeError) as e:
                kinds.append("TypeError" if isinstance(e, TypeError) else type(e).__name__)
        ids = tf.placeholder(tf.int32, [None])
        iou = M.MeanIoU(2)
        update = iou.update_state(ids, [1, 1])

        def run(sess):
            sess.run(tf.variables_initializer(iou.variables))
            try:
                sess.run(update, {ids: [0, 2]})
                failed = None
            except tf.errors.OpError as e:
                failed = kernel_message(e)
            return {"kinds": kinds, "run": failed}

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_get_serialize_deserialize():
    """``get`` of the class names (an instance with the defaults; TF's ``TypeError``
    where an argument has no default), config dicts, ``serialize`` in the legacy
    format."""
    needs_arguments = [
        "IoU",
        "MeanIoU",
        "OneHotIoU",
        "OneHotMeanIoU",
        "SensitivityAtSpecificity",
        "SpecificityAtSensitivity",
        "PrecisionAtRecall",
        "RecallAtPrecision",
    ]

    def script(tf):
        M = tf.keras.metrics
        out = {
            "defaults": [
                sorted((k, str(_plain(v))) for k, v in M.get(n).get_config().items())
                for n in ("BinaryIoU", "F1Score", "FBetaScore", "R2Score")
            ],
            "by dict": [
                M.get({"class_name": n, "config": c}).get_config()
                for n, c in (
                    ("MeanIoU", {"num_classes": 4, "name": "m"}),
                    ("RecallAtPrecision", {"precision": 0.25, "name": "r"}),
                    ("OneHotIoU", {"num_classes": 3, "target_class_ids": [2], "name": "o"}),
                )
            ],
            "serialized": M.serialize(M.PrecisionAtRecall(0.5, num_thresholds=3, name="p")),
        }
        errors = []
        for name in needs_arguments:
            try:
                M.get(name)
                errors.append(None)
            except TypeError:
                errors.append("TypeError")
        out["errors"] = errors
        return lambda sess: out

    theirs, ours = run_both(script)
    assert ours == theirs


@pytest.mark.parametrize(
    "family", ["iou", "rates at a constraint", "f-scores", "r2"], ids=lambda f: f.replace(" ", "_")
)
def test_metric_families_in_compile_fit_evaluate(family):
    """Each family in ``Model.compile(metrics=[...])``: ``fit`` (History, validation
    included), ``evaluate`` and ``train_on_batch`` as TF's v1 engine runs them (the
    F-scores' and ``R2Score``'s graph-mode quirk included). Failed before
    ``adapters.v1.keras.training`` ran metric objects (NotImplementedError)."""
    from tests.interop.test_keras_fit_interop import _both, _close, _fix

    rs = np.random.RandomState(21)
    x = rs.randn(17, 3).astype(np.float32)
    labels = np.eye(CLASSES, dtype=np.float32)[rs.randint(0, CLASSES, 17)]

    def metrics(tf):
        M = tf.keras.metrics
        return {
            "iou": [
                M.OneHotMeanIoU(CLASSES),
                M.OneHotIoU(CLASSES, target_class_ids=[0, 2]),
                M.BinaryIoU(threshold=0.4),
            ],
            "rates at a constraint": [
                M.SensitivityAtSpecificity(0.5, num_thresholds=20),
                M.RecallAtPrecision(0.3, num_thresholds=20, class_id=1),
            ],
            "f-scores": [M.F1Score(average="macro"), M.FBetaScore(beta=2.0, threshold=0.4)],
            "r2": [M.R2Score()],
        }[family]

    def body(tf):
        m = tf.keras.Sequential([tf.keras.layers.Dense(CLASSES, "softmax", input_shape=(3,))])
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.3), "categorical_crossentropy", metrics(tf))
        h = m.fit(x, labels, batch_size=6, epochs=2, verbose=0, validation_split=0.3)
        return {
            "names": m.metrics_names,
            "history": h.history,
            "evaluate": m.evaluate(x, labels, batch_size=5, verbose=0),
            "train_on_batch": m.train_on_batch(x, labels),
        }

    theirs, ours = _both(body)
    _close(theirs, ours, rtol=1e-5)
