"""Ops whose values, shapes, gradients or errors differed from TF 2.21's, checked live.

Each case is one TF1 snippet run under TF's ``compat.v1`` (as classic TF1) and under
``adapters.v1`` (``twin.py``): empty ``reduce_max``/``reduce_min``, ``cast`` of
non-finite and out-of-range floats to int32/int64, the v1 softmax cross entropy's
``None`` gradient to its labels, ``tf.layers.flatten`` of inputs with unknown batch
and spatial dimensions, and the metrics' graph-construction shape checks.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1


def _jtf():
    from adapters import v1 as jtf

    return jtf


@contextlib.contextmanager
def _graph_of(tf):
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            yield


# -- reductions over no elements: the reducer's identity ----------------------------------
EMPTY = {
    "[0]": ([0], None),
    "[2, 0] axis 1": ([2, 0], 1),
    "[0, 3] axis 0": ([0, 3], 0),
    "[2, 0] axis 0": ([2, 0], 0),
    "[2, 0] axes (0, 1)": ([2, 0], (0, 1)),
    "[2, 0] axis -1 keepdims": ([2, 0], -1),
}


@pytest.mark.parametrize("reduction", ["reduce_max", "reduce_min", "reduce_prod", "reduce_sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "int8"])
@pytest.mark.parametrize("case", list(EMPTY))
def test_reductions_of_empty_inputs_give_identities(reduction, dtype, case):
    shape, axis = EMPTY[case]
    keepdims = "keepdims" in case

    def script(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None] * len(shape))
        out = getattr(tf, reduction)(x, axis=axis, keepdims=keepdims)
        fixed = getattr(tf, reduction)(tf.zeros(shape, tf.as_dtype(dtype)), axis, keepdims)
        return lambda sess: (
            sess.run(out, {x: np.zeros(shape, dtype)}),
            sess.run(fixed),
            fixed.shape.as_list(),
        )

    assert_twins(*run_both(script), rtol=0)


def test_gradient_of_an_empty_reduce_max_is_tfs():
    def script(tf):
        x = tf.zeros([2, 0])
        (grad,) = tf.gradients(tf.reduce_sum(tf.reduce_max(x, 1)), [x])
        return lambda sess: sess.run(grad)

    assert_twins(*run_both(script), rtol=0)


# -- cast of NaN, infinities and out-of-range floats ----------------------------------------
# TF's CPU kernel is C++'s static_cast: on x86-64 int32/int64 get the "integer indefinite"
# (the lowest value) for NaN, +-inf and values out of range, whatever the tensor's size.
SPECIALS = [np.nan, np.inf, -np.inf, 3e9, -3e9, 1e20, -1e20, 9.3e18, -9.3e18]
SPECIALS += [2.5, -2.5, -0.7, 255.9, 300.0, 2147483520.0, 2147483648.0, -2147483648.0]


@pytest.mark.parametrize("source", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("target", ["int32", "int64"])
@pytest.mark.parametrize("size", [1, 19, 40])
def test_cast_of_non_finite_and_out_of_range_floats_to_int(source, target, size):
    values = np.resize(np.array(SPECIALS, np.float64), size)

    def script(tf):
        x = tf.placeholder(tf.float64, [None])
        out = tf.cast(tf.cast(x, tf.as_dtype(source)), tf.as_dtype(target))
        folded = tf.cast(tf.constant(values.astype(np.float32)), tf.as_dtype(target))
        legacy = (tf.to_int32 if target == "int32" else tf.to_int64)(tf.cast(x, tf.float32))
        return lambda sess: sess.run((out, folded, legacy), {x: values})

    assert_twins(*run_both(script), rtol=0)


@pytest.mark.parametrize("target", ["uint8", "int8", "int16", "uint16", "uint32", "uint64"])
def test_cast_of_in_range_floats_to_other_integers(target):
    """In-range values only: TF's NaN/inf/out-of-range casts to these types are C++
    undefined behaviour and change with the tensor's size on one machine (see the
    note of ``math_ops._cast``), so jtrain does not copy them."""
    info = np.iinfo(target)
    values = np.array([0.0, 0.7, 1.5, 2.5, 99.9, info.max - 0.5, 1.0], np.float32)
    if info.min < 0:
        values = np.concatenate([values, np.array([-0.7, -2.5, info.min], np.float32)])
    if target in ("uint32", "uint64"):
        values = values[values < 2.0**24]  # float32-exact

    def script(tf):
        x = tf.placeholder(tf.float32, [None])
        out = tf.cast(x, tf.as_dtype(target))
        return lambda sess: sess.run(out, {x: values})

    assert_twins(*run_both(script), rtol=0)


# -- softmax cross entropy: the v1 form passes no gradient to its labels -----------------------
LABELS = np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]], np.float32)
LOGITS = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], np.float32)
XENTS = {
    "v1": lambda tf, lab, lo: tf.nn.softmax_cross_entropy_with_logits(labels=lab, logits=lo),
    "v1 dim 0": lambda tf, lab, lo: tf.nn.softmax_cross_entropy_with_logits(
        labels=lab, logits=lo, dim=0
    ),
    "v2": lambda tf, lab, lo: tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=lo),
    "v2 axis 0": lambda tf, lab, lo: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=lab, logits=lo, axis=0
    ),
}


@pytest.mark.parametrize("case", list(XENTS))
def test_softmax_cross_entropy_gradients_to_labels(case):
    def script(tf):
        lab = tf.placeholder(tf.float32, [2, 3])
        lo = tf.placeholder(tf.float32, [2, 3])
        loss = XENTS[case](tf, lab, lo)
        grads = tf.gradients(loss, [lab, lo])
        feed = {lab: LABELS, lo: LOGITS}
        return lambda sess: (
            sess.run(loss, feed),
            [None if g is None else sess.run(g, feed) for g in grads],
        )

    assert_twins(*run_both(script), rtol=1e-5, atol=1e-6)


def test_v1_softmax_cross_entropy_trains_only_the_logits():
    """The labels computed from a variable get no gradient through the v1 loss."""

    def script(tf):
        w = tf.Variable(np.ones([3, 3], np.float32))
        lab = tf.nn.softmax(tf.matmul(tf.constant(LABELS), w))
        loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=lab, logits=LOGITS))
        (grad,) = tf.gradients(loss, [w])
        return lambda sess: grad

    theirs, ours = run_both(script)
    assert theirs is None and ours is None


# -- tf.layers.flatten of inputs with unknown dimensions ----------------------------------------
FLATTEN_SHAPES = {
    "batch and spatial unknown": [None, None, None, 3],
    "batch and one spatial unknown": [None, 4, None, 3],
    "batch and height unknown": [None, None, 5, 3],
    "all unknown, rank 2": [None, None],
    "batch unknown": [None, 4, 5, 3],
    "spatial unknown": [2, None, None, 3],
}


def _fits(shape, dims):
    return all(d is None or d == n for d, n in zip(shape, dims, strict=True))


@pytest.mark.parametrize("form", ["function", "class", "channels_first"])
@pytest.mark.parametrize("case", list(FLATTEN_SHAPES))
def test_flatten_with_unknown_dimensions(case, form):
    shape = FLATTEN_SHAPES[case]
    feeds = [np.arange(120, dtype=np.float32).reshape(2, 4, 5, 3)]
    if shape[0] is None:
        feeds.append(np.arange(36, dtype=np.float32).reshape(3, 2, 2, 3))
    if len(shape) == 2:
        feeds = [f.reshape(f.shape[0], -1) for f in feeds]
    feeds = [f for f in feeds if _fits(shape, f.shape)]

    def script(tf):
        x = tf.placeholder(tf.float32, shape)
        if form == "function":
            y = tf.layers.flatten(x)
        elif form == "class":
            y = tf.layers.Flatten()(x)
        else:
            y = tf.layers.Flatten(data_format="channels_first")(x)
        return lambda sess: (y.shape.as_list(), [sess.run(y, {x: f}) for f in feeds])

    assert_twins(*run_both(script), rtol=0)


def test_flatten_feeds_a_dense_layer_only_with_a_known_width():
    """Downstream, TF's ``dense`` refuses the ``[?, ?]`` flatten output: so does jtrain."""
    errors = []
    for tf in (tf1, _jtf()):
        with _graph_of(tf):
            x = tf.placeholder(tf.float32, [None, None, None, 3])
            with pytest.raises(ValueError) as info:
                tf.layers.dense(tf.layers.flatten(x), 4)
            errors.append(type(info.value))
    assert errors[0] is errors[1]


# -- metrics: TF's shape checks of labels against predictions -----------------------------------
def _metric(name, tf, labels, predictions):
    m = getattr(tf.metrics, name)
    if name == "mean_relative_error":
        return m(labels, predictions, normalizer=tf.ones_like(labels))
    if name == "mean_cosine_distance":
        return m(labels, predictions, dim=0)
    if name in ("mean_iou", "mean_per_class_accuracy"):
        return m(tf.cast(labels, tf.int64), tf.cast(predictions, tf.int64), num_classes=2)
    if name == "precision_at_thresholds":
        return m(labels, predictions, thresholds=[0.3, 0.7])
    if name == "sensitivity_at_specificity":
        return m(labels, predictions, specificity=0.5)
    return m(labels, predictions)


METRICS = [
    "accuracy",
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_relative_error",
    "mean_cosine_distance",
    "precision",
    "recall",
    "true_positives",
    "false_negatives",
    "auc",
    "precision_at_thresholds",
    "sensitivity_at_specificity",
    "mean_iou",
    "mean_per_class_accuracy",
]
# (labels, predictions) shapes: TF squeezes one trailing 1 when the ranks differ by one,
# then wants compatible shapes (no broadcasting); mean_iou skips the squeeze and
# mean_per_class_accuracy flattens both first.
PAIRS = [
    ([4, 1], [4]),
    ([4], [4, 1]),
    ([4, 1], [1, 4]),
    ([1, 4], [4]),
    ([4], [1, 4]),
    ([4, 3], [4, 1]),
    ([4, 1], [4, 3]),
    ([4, 1, 1], [4]),
    ([4], [4, 1, 1]),
    ([4], [2, 2]),
    ([4, 2, 1], [4, 2]),
    ([4, 2], [4]),
    ([3], [4]),
]


def _ids(pair):
    return f"{pair[0]}-{pair[1]}"


@pytest.mark.parametrize("pair", PAIRS, ids=_ids)
@pytest.mark.parametrize("metric", METRICS)
def test_metrics_check_label_and_prediction_shapes_as_tf(metric, pair):
    labels_shape, predictions_shape = pair
    rng = np.random.RandomState(0)
    labels = (rng.rand(*labels_shape) > 0.5).astype(np.float32)
    predictions = (rng.rand(*predictions_shape) > 0.5).astype(np.float32)
    if metric not in ("mean_iou", "mean_per_class_accuracy", "accuracy"):
        predictions = rng.rand(*predictions_shape).astype(np.float32)
    outcomes = []
    for tf in (tf1, _jtf()):
        with _graph_of(tf):
            try:
                value, update = _metric(metric, tf, tf.constant(labels), tf.constant(predictions))
            except ValueError as e:
                outcomes.append(("ValueError", str(e)))
                continue
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                sess.run(update)
                outcomes.append(("value", np.asarray(sess.run(value))))
    theirs, ours = outcomes
    assert ours[0] == theirs[0], f"jtrain {ours} vs TF {theirs}"
    if theirs[0] == "value":
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    elif "incompatible" in theirs[1]:
        assert ours[1] == theirs[1]


@pytest.mark.parametrize(
    "normalizer_shape", [[4], [4, 1], [1, 4], [3], [4, 2]], ids=lambda s: str(s)
)
def test_mean_relative_error_checks_the_normalizer_as_tf(normalizer_shape):
    outcomes = []
    for tf in (tf1, _jtf()):
        with _graph_of(tf):
            labels = tf.constant([1.0, 2.0, 3.0, 4.0])
            predictions = tf.constant([1.5, 2.0, 2.0, 5.0])
            normalizer = tf.constant(np.full(normalizer_shape, 2.0, np.float32))
            try:
                value, update = tf.metrics.mean_relative_error(labels, predictions, normalizer)
            except ValueError as e:
                outcomes.append(str(e))
                continue
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                sess.run(update)
                outcomes.append(float(sess.run(value)))
    theirs, ours = outcomes
    if isinstance(theirs, float):
        assert ours == pytest.approx(theirs)
    else:
        assert ours == theirs
