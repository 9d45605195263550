"""The ``tf.keras.losses`` names added after the first set (MAPE, MSLE, squared and
categorical hinge, log-cosh, Poisson, cosine similarity, binary and categorical focal
cross-entropy, their classes and aliases, ``serialize``/``deserialize``/``get`` and
``Model.compile(loss=<name>)``), checked live against TF 2.21's legacy Keras
(``tf.compat.v1.keras`` with ``TF_USE_LEGACY_KERAS=1``, classic TF1 graphs: ``twin.py``).

Compared: each loss's value and gradient with respect to ``y_pred`` (several cases per
graph, TF's non-default arguments), the output's static shape, dtype and (for the
classes) name, float64 outputs, TF's error for a bad reduction, the configs
``serialize`` writes and what ``get``/``deserialize`` build from names and configs, and
a model compiled with each new name (``evaluate``, two ``train_on_batch`` steps).
Each test failed before these names existed (``AttributeError``; ``compile``'s
``ValueError`` from ``get``).
"""

from __future__ import annotations

import contextlib
import copy
import warnings
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.bits import assert_tf_bits
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf2_behaviour_off

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1
RTOL, ATOL = 2e-5, 1e-6

_RS = np.random.RandomState(7)
LABELS = np.eye(3, dtype=np.float32)[[1, 2, 0, 1]]
SOFT = np.array([[0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.7, 0.2, 0.1], [0.3, 0.4, 0.3]], np.float32)
PROBS = np.array([[0.2, 0.7, 0.1], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1], [0.3, 0.3, 0.4]], np.float32)
LOGITS = _RS.randn(4, 3).astype(np.float32) * 2
REG_TRUE = _RS.uniform(0.5, 3.0, (4, 3)).astype(np.float32)
REG_ZERO = REG_TRUE * np.array([[1, 0, 1]], np.float32)  # zero targets (MAPE's epsilon)
REG_PRED = (REG_TRUE + _RS.randn(4, 3)).astype(np.float32)  # some below zero
POS_PRED = _RS.uniform(0.0, 3.0, (4, 3)).astype(np.float32)
POS_PRED[0, 0] = 0.0  # Poisson's log(0 + epsilon)
BIG_PRED = (REG_TRUE + _RS.randn(4, 3) * 20).astype(np.float32)  # log-cosh's linear part
PM_ONE = 2 * LABELS - 1
HINGE_PRED = _RS.randn(4, 3).astype(np.float32)
CUBE_TRUE = _RS.uniform(0.0, 1.0, (2, 3, 4)).astype(np.float32)
CUBE_PRED = _RS.uniform(0.05, 0.95, (2, 3, 4)).astype(np.float32)
ZERO_ROW = LABELS * np.array([[1], [0], [1], [1]], np.float32)  # an all-zero y_true row
WEIGHTS = np.array([1.0, 0.5, 0.0, 2.0], np.float32)

# name -> [(loss of (K.losses, K, y_pred placeholder), y_pred fed), ...]: one graph.
FUNCTIONS: dict[str, list[tuple[Any, np.ndarray]]] = {
    "mean_absolute_percentage_error": [
        (lambda L, K, p: L.mean_absolute_percentage_error(REG_TRUE, p), REG_PRED),
        (lambda L, K, p: L.mape(REG_ZERO, p), REG_PRED),
        (lambda L, K, p: L.MAPE(REG_TRUE.astype(np.int32), p), POS_PRED),
        (lambda L, K, p: L.mape(CUBE_TRUE, p), CUBE_PRED),
    ],
    "mean_squared_logarithmic_error": [
        (lambda L, K, p: L.mean_squared_logarithmic_error(REG_TRUE, p), REG_PRED),
        (lambda L, K, p: L.msle(REG_ZERO - 0.5, p), POS_PRED),
        (lambda L, K, p: L.MSLE(CUBE_TRUE, p), CUBE_PRED),
    ],
    "squared_hinge": [
        (lambda L, K, p: L.squared_hinge(LABELS, p), HINGE_PRED),  # 0/1 -> -1/1
        (lambda L, K, p: L.squared_hinge(PM_ONE, p), HINGE_PRED),
        (lambda L, K, p: L.squared_hinge(SOFT, p), HINGE_PRED),  # not binary: as given
    ],
    "categorical_hinge": [
        (lambda L, K, p: L.categorical_hinge(LABELS, p), HINGE_PRED),
        (lambda L, K, p: L.categorical_hinge(SOFT, p), PROBS),
        (lambda L, K, p: L.categorical_hinge(LABELS, p), LOGITS),
    ],
    "log_cosh": [
        (lambda L, K, p: L.log_cosh(REG_TRUE, p), REG_PRED),
        (lambda L, K, p: L.logcosh(REG_TRUE, p), BIG_PRED),
        (lambda L, K, p: L.log_cosh(CUBE_TRUE, p), CUBE_PRED),
    ],
    "poisson": [
        (lambda L, K, p: L.poisson(REG_TRUE, p), POS_PRED),
        (lambda L, K, p: L.poisson(LABELS, p), PROBS),
        (lambda L, K, p: L.poisson(CUBE_TRUE, p), CUBE_PRED),
    ],
    "cosine_similarity": [
        (lambda L, K, p: L.cosine_similarity(REG_TRUE, p), REG_PRED),
        (lambda L, K, p: L.cosine_similarity(REG_TRUE, p, axis=0), REG_PRED),
        (lambda L, K, p: L.cosine_proximity(ZERO_ROW, p), REG_PRED),
        (lambda L, K, p: L.cosine(CUBE_TRUE, p, axis=1), CUBE_PRED),
    ],
    "binary_focal_crossentropy": [
        (lambda L, K, p: L.binary_focal_crossentropy(LABELS, p), PROBS),
        (
            lambda L, K, p: L.binary_focal_crossentropy(
                LABELS,
                p,
                apply_class_balancing=True,
                alpha=0.3,
                gamma=3.0,
                from_logits=True,
                label_smoothing=0.1,
            ),
            LOGITS,
        ),
        (  # the logits behind a Sigmoid op
            lambda L, K, p: L.binary_focal_crossentropy(SOFT, K.activations.sigmoid(p), gamma=1.5),
            LOGITS,
        ),
        (
            lambda L, K, p: L.binary_focal_crossentropy(
                CUBE_TRUE, p, apply_class_balancing=True, alpha=0.6, axis=1
            ),
            CUBE_PRED,
        ),
    ],
    "categorical_focal_crossentropy": [
        (lambda L, K, p: L.categorical_focal_crossentropy(LABELS, p), PROBS),
        (
            lambda L, K, p: L.categorical_focal_crossentropy(
                LABELS, p, alpha=0.3, gamma=3.0, from_logits=True, label_smoothing=0.2
            ),
            LOGITS,
        ),
        (  # the logits behind a Softmax op
            lambda L, K, p: L.categorical_focal_crossentropy(
                SOFT, K.layers.Softmax()(p), gamma=1.5
            ),
            LOGITS,
        ),
        (lambda L, K, p: L.categorical_focal_crossentropy(CUBE_TRUE, p, axis=1), CUBE_PRED),
    ],
}


def _cases_script(cases: list[tuple[Any, np.ndarray]], dtype: str = "float32") -> Any:
    def script(tf):
        info, outputs, feeds = [], [], {}
        for make, pred in cases:
            p = tf.placeholder(dtype, [None, *pred.shape[1:]])
            loss = make(tf.keras.losses, tf.keras, p)
            outputs.append([loss, tf.gradients(loss, p)[0]])
            info.append((str(loss.shape.as_list()), loss.dtype.name))
            feeds[p] = pred.astype(dtype)
        return lambda sess: (info, sess.run(outputs, feeds))

    return script


# TF's values and gradients to the bit (where this machine's TF runs the kernels jtrain
# reproduces: bits.assert_tf_bits). log_cosh, categorical_hinge and the binary focal
# loss as grappler rewrites them (ConstantPushDown); the binary focal loss's values only.
# The rest is within RTOL: MAPE's folded divisor (TF's reciprocal, an ulp off 1 / y on
# this CPU, in the gradient), the focal losses' gradients, the categorical focal loss
# from logits (a few ulps).
BIT_EXACT = {
    "categorical_hinge",
    "cosine_similarity",
    "log_cosh",
    "mean_squared_logarithmic_error",
    "poisson",
    "squared_hinge",
}
VALUES_BIT_EXACT = {"binary_focal_crossentropy"}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_as_tf(name):
    """Each function (and its aliases): per-example values, gradients w.r.t. ``y_pred``,
    static shapes and dtypes, with TF's non-default arguments."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, ours = run_both(_cases_script(FUNCTIONS[name]))
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)
    if name in BIT_EXACT | VALUES_BIT_EXACT:
        for their_case, our_case in zip(theirs[1], ours[1], strict=True):
            checked = 2 if name in BIT_EXACT else 1  # value and gradient, or the value
            for t, o in zip(their_case[:checked], our_case[:checked], strict=True):
                assert_tf_bits(o, t)


def _classes(L: Any, reduction: str) -> list[tuple[Any, Any, Any, np.ndarray]]:
    """(loss object, y_true, sample_weight, y_pred) of each class."""
    r = reduction
    return [
        (L.MeanAbsolutePercentageError(reduction=r), REG_TRUE, WEIGHTS, REG_PRED),
        (L.MeanSquaredLogarithmicError(reduction=r, name="msle_loss"), REG_TRUE, 2.0, POS_PRED),
        (L.SquaredHinge(reduction=r), LABELS, WEIGHTS, HINGE_PRED),
        (L.CategoricalHinge(reduction=r), LABELS, None, HINGE_PRED),
        (L.Poisson(reduction=r), REG_TRUE, WEIGHTS[:, None], POS_PRED),
        (L.LogCosh(reduction=r), REG_TRUE, WEIGHTS, BIG_PRED),
        (L.CosineSimilarity(axis=1, reduction=r), CUBE_TRUE, None, CUBE_PRED),
        (L.CosineSimilarity(reduction=r), REG_TRUE, WEIGHTS, REG_PRED),
        (
            L.BinaryFocalCrossentropy(
                apply_class_balancing=True,
                alpha=0.35,
                gamma=2.5,
                from_logits=True,
                label_smoothing=0.05,
                reduction=r,
            ),
            LABELS,
            WEIGHTS,
            LOGITS,
        ),
        (L.BinaryFocalCrossentropy(axis=0, reduction=r), LABELS, None, PROBS),
        (
            L.CategoricalFocalCrossentropy(
                alpha=0.4, gamma=1.0, from_logits=True, label_smoothing=0.1, reduction=r
            ),
            LABELS,
            WEIGHTS,
            LOGITS,
        ),
        (L.CategoricalFocalCrossentropy(reduction=r), SOFT, None, PROBS),
    ]


@pytest.mark.parametrize("reduction", ["auto", "sum", "none", "sum_over_batch_size"])
def test_classes_as_tf(reduction):
    """Each class with a reduction, a ``sample_weight`` (per example, scalar, ``[n, 1]``
    or none) and non-default arguments: values, gradients, output names, static shapes
    and dtypes."""

    def script(tf):
        info, outputs, feeds = [], [], {}
        for loss_obj, y_true, weight, pred in _classes(tf.keras.losses, reduction):
            p = tf.placeholder(tf.float32, [None, *pred.shape[1:]])
            loss = loss_obj(y_true, p, sample_weight=weight)
            outputs.append([loss, tf.gradients(loss, p)[0]])
            info.append((loss.name, str(loss.shape.as_list()), loss.dtype.name))
            feeds[p] = pred
        return lambda sess: (info, sess.run(outputs, feeds))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_float64_as_tf():
    """Float64 ``y_true`` and ``y_pred``: float64 losses (log-cosh's ``log(2)`` is
    computed in float32 and cast, as TF's), values and gradients."""
    cases = [
        (lambda L, K, p: L.mape(REG_TRUE.astype(np.float64), p), REG_PRED),
        (lambda L, K, p: L.msle(REG_TRUE.astype(np.float64), p), REG_PRED),
        (lambda L, K, p: L.squared_hinge(LABELS.astype(np.float64), p), HINGE_PRED),
        (lambda L, K, p: L.categorical_hinge(LABELS.astype(np.float64), p), HINGE_PRED),
        (lambda L, K, p: L.log_cosh(REG_TRUE.astype(np.float64), p), REG_PRED),
        (lambda L, K, p: L.poisson(REG_TRUE.astype(np.float64), p), POS_PRED),
        (lambda L, K, p: L.cosine_similarity(REG_TRUE.astype(np.float64), p), REG_PRED),
        (
            lambda L, K, p: L.binary_focal_crossentropy(
                LABELS.astype(np.float64), p, from_logits=True, apply_class_balancing=True
            ),
            LOGITS,
        ),
        (
            lambda L, K, p: L.categorical_focal_crossentropy(
                LABELS.astype(np.float64), p, label_smoothing=0.1
            ),
            PROBS,
        ),
        (lambda L, K, p: L.Poisson(reduction="sum")(REG_TRUE, p, WEIGHTS), POS_PRED),
        (lambda L, K, p: L.LogCosh()(REG_TRUE, p, WEIGHTS), REG_PRED),
    ]
    theirs, ours = run_both(_cases_script(cases, "float64"))
    assert all(dtype == "float64" for _, dtype in theirs[0])
    assert_twins(theirs, ours, rtol=1e-12, atol=1e-12)


def _outcome(fn: Any) -> Any:
    try:
        result = fn()
    except (ValueError, TypeError) as e:
        return (type(e).__name__, str(e))
    if callable(result) and not hasattr(result, "get_config"):
        return ("function", result.__name__)
    if hasattr(result, "get_config"):
        return (type(result).__name__, result.get_config())
    return result


BAD_REDUCTIONS = [
    lambda L: L.MeanAbsolutePercentageError(reduction="bad"),
    lambda L: L.Poisson(reduction="SUM"),
    lambda L: L.CosineSimilarity(reduction="mean"),
    lambda L: L.BinaryFocalCrossentropy(reduction=None),
    lambda L: L.CategoricalFocalCrossentropy(reduction="sum_over_batch"),
    lambda L: L.LogCosh(reduction="Auto"),
]


def test_bad_reduction_as_tf():
    """TF's ValueError (class and message) for a reduction it does not know."""
    theirs = [_outcome(lambda m=make: m(tf1.keras.losses)) for make in BAD_REDUCTIONS]
    ours = [_outcome(lambda m=make: m(jtf.keras.losses)) for make in BAD_REDUCTIONS]
    assert all(kind == "ValueError" for kind, _ in theirs)
    assert ours == theirs


GET_NAMES = [
    "mape",
    "MAPE",
    "mean_absolute_percentage_error",
    "msle",
    "MSLE",
    "mean_squared_logarithmic_error",
    "squared_hinge",
    "categorical_hinge",
    "log_cosh",
    "logcosh",
    "poisson",
    "cosine_similarity",
    "binary_focal_crossentropy",
    "categorical_focal_crossentropy",
    "bce",
    "huber_loss",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "SquaredHinge",
    "CategoricalHinge",
    "LogCosh",
    "Poisson",
    "CosineSimilarity",
    "BinaryFocalCrossentropy",
    "CategoricalFocalCrossentropy",
    "MeanSquaredError",
    "Huber",
    # not names TF's get knows (tf_keras' module globals), though tf.keras.losses has them
    "cosine",
    "cosine_proximity",
    "no_such_loss",
]


def _serialization(L: Any) -> dict[str, Any]:
    objects = [
        L.MeanAbsolutePercentageError(reduction="sum"),
        L.MeanSquaredLogarithmicError(name="m"),
        L.SquaredHinge(),
        L.CategoricalHinge(reduction="none"),
        L.Poisson(),
        L.LogCosh(),
        L.CosineSimilarity(axis=0),
        L.BinaryFocalCrossentropy(True, 0.3, 3.0, True, 0.1, 0),
        L.CategoricalFocalCrossentropy(alpha=0.5, gamma=1.0, from_logits=True),
        L.MeanSquaredError(),
        L.Huber(delta=0.5),
        L.CategoricalCrossentropy(label_smoothing=0.1),
    ]
    new = [L.serialize(o) for o in objects]
    legacy = [L.serialize(o, use_legacy_format=True) for o in objects]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        functions = [
            L.serialize(f) for f in (L.mape, L.msle, L.poisson, L.cosine_similarity, L.log_cosh)
        ] + [L.serialize(L.categorical_hinge, use_legacy_format=True)]
    return {
        "new": new,
        "legacy": legacy,
        "functions": functions,
        "none": L.serialize(None),
        # copies: TF's from_config pops ``fn`` from the dict it is given
        "deserialized": [
            _outcome(lambda c=c: L.deserialize(copy.deepcopy(c))) for c in new + legacy + functions
        ],
        "get_dicts": [_outcome(lambda c=c: L.get(copy.deepcopy(c))) for c in new[:4] + legacy[4:8]],
        "get_names": [_outcome(lambda n=n: L.get(n)) for n in GET_NAMES],
        # not bce, huber_loss: TF's deserialize (not its get) fails to find them
        "deserialize_names": [
            _outcome(lambda n=n: L.deserialize(n))
            for n in GET_NAMES[:27]
            if n not in ("bce", "huber_loss")
        ],
        "errors": [
            _outcome(lambda: L.get(3)),
            _outcome(lambda: L.deserialize({"config": {}})),
            _outcome(lambda: L.get({"class_name": "LogCosh"})),
        ],
    }


def test_serialize_deserialize_get_as_tf():
    """``serialize`` (TF's dicts, both formats, functions by name, ``None``), and what
    ``deserialize`` and ``get`` build from those dicts and from names (a class name: an
    instance with its defaults), TF's errors for unknown names and bad identifiers."""
    theirs, ours = _serialization(tf1.keras.losses), _serialization(jtf.keras.losses)
    for key in theirs:
        assert ours[key] == theirs[key], key


COMPILE_NAMES = [
    ("mape", "linear"),
    ("msle", "softplus"),
    ("squared_hinge", "tanh"),
    ("categorical_hinge", "linear"),
    ("logcosh", "linear"),
    ("poisson", "softplus"),
    ("cosine_similarity", "linear"),
    ("binary_focal_crossentropy", "sigmoid"),
    ("categorical_focal_crossentropy", "softmax"),
    ("MAPE", "linear"),
    ("log_cosh", "linear"),
]


@pytest.fixture
def _tf1_behaviour():
    """TF's Keras as a TF1 script runs it (``disable_v2_behavior()`` turns ``tf2``
    off), this process's setting restored after."""
    with tf2_behaviour_off():
        yield


def test_compile_resolves_new_names_as_tf(_tf1_behaviour):
    """``Model.compile(loss=<name>)`` with each new function's name and aliases:
    ``metrics_names``, ``evaluate``, two ``train_on_batch`` steps and the weights after
    them. (A class's name, which TF's ``get`` makes an instance of, fails in TF's
    compile: it wraps the instance in a ``LossFunctionWrapper`` named after its
    ``__name__``.)"""
    rs = np.random.RandomState(3)
    x = rs.randn(8, 4).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rs.randint(0, 3, 8)]

    def body(tf, loss, activation):
        model = tf.keras.Sequential(
            [tf.keras.layers.Dense(3, activation=activation, input_shape=(4,))]
        )
        model.set_weights(
            [
                np.random.RandomState(10 + i)
                .uniform(-0.6, 0.6, w.shape.as_list())
                .astype(np.float32)
                for i, w in enumerate(model.weights)
            ]
        )
        model.compile(optimizer=tf.train.GradientDescentOptimizer(0.1), loss=loss)
        return {
            "names": model.metrics_names,
            "evaluate": model.evaluate(x, y, batch_size=8, verbose=0),
            "steps": [model.train_on_batch(x, y) for _ in range(2)],
            "weights": model.get_weights(),
        }

    for loss, activation in COMPILE_NAMES:
        results = []
        for tf in (tf1, jtf):
            with classic_tf1() if tf is tf1 else contextlib.nullcontext():
                graph = tf.Graph()
                with graph.as_default(), tf.Session(graph=graph).as_default():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        results.append(body(tf, loss, activation))
        theirs, ours = results
        assert ours["names"] == theirs["names"], loss
        assert type(ours["evaluate"]) is type(theirs["evaluate"]), loss
        for key in ("evaluate", "steps", "weights"):
            np.testing.assert_allclose(
                np.asarray(ours[key], np.float64) if key != "weights" else ours[key][0],
                np.asarray(theirs[key], np.float64) if key != "weights" else theirs[key][0],
                rtol=RTOL,
                atol=ATOL,
                err_msg=f"{loss}: {key}",
            )
        np.testing.assert_allclose(ours["weights"][1], theirs["weights"][1], rtol=RTOL, atol=ATOL)
