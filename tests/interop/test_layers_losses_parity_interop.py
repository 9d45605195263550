"""``tf.layers``, ``tf.losses`` and ``tf.nn`` snippets under TF 2.21 and ``adapters.v1``.

Each test builds one TF1 graph with ``twin.run_both`` (TF's ``compat.v1`` and
jtrain's ``adapters.v1``) and compares static shapes (``shape.as_list()``),
dtypes and values with ``twin.assert_twins``; an error case checks that both
raise the same error class at graph construction.

The bit-for-bit tests of ``l2_normalize`` (TF's ``Rsqrt``) and of the losses whose
gradients multiply by TF's ``Reciprocal`` (``Log``'s and ``Log1p``'s) depend on the CPU's
``rsqrtps`` and ``rcpps`` estimates: bits where they are the ones jtrain reproduces
(Intel's), within their bound elsewhere (``cpu_estimates``).
"""

from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from twin import assert_twins, jtf, run_both, run_once, tf1  # noqa: E402

from tests._helpers import assert_same_bits  # noqa: E402
from tests.interop.bits import assert_bits, assert_within_estimate  # noqa: E402
from tests.interop.cpu_estimates import estimate_ulps, rsqrt_estimate_ulps  # noqa: E402

pytestmark = pytest.mark.interop


def _outcomes(script):
    """``run_both``, an exception (graph construction or run) standing for a result."""
    results = []
    for tf in (tf1, jtf):
        try:
            results.append(run_once(tf, script))
        except Exception as e:  # noqa: BLE001 - compared with the other's
            results.append(e)
    return tuple(results)


def _error_class(error):
    """What must match: the builtin class (``ValueError``, ``TypeError``) of a graph
    construction error, the class name of a run-time ``OpError``."""
    builtin = next(c for c in type(error).__mro__ if c.__module__ == "builtins")
    return type(error).__name__ if builtin is Exception else builtin.__name__


def assert_same_outcome(theirs, ours):
    """Both raised an error of the same class (then ``True``), or neither did."""
    raised = isinstance(theirs, Exception), isinstance(ours, Exception)
    assert raised[0] == raised[1], f"TF {theirs!r} vs jtrain {ours!r}"
    if raised[0]:
        assert _error_class(ours) == _error_class(theirs), f"TF {theirs!r} vs jtrain {ours!r}"
    return raised[0]


def _eps(dtype):
    """One ulp at 1.0 of a floating dtype (``ml_dtypes``' bfloat16 included)."""
    return float(ml_dtypes.finfo(dtype).eps)


def _assert_estimate_bits(ours, theirs, ulps, cancelled=False):
    """The same bits where ``ulps`` is 0 (the CPU's estimate is the one jtrain
    reproduces); else float32 values within ``ulps`` ulps of TF's (``bits.assert_bits``)
    or, ``cancelled``, within ``ulps * 2**-23`` of TF's value or of TF's largest value:
    a gradient that sums terms of that size, each off by the estimate's bound, and
    cancels (measured on an AMD EPYC with AVX2, ``ulps`` 8: 0.06 of the bound at most,
    ``l2_normalize``'s gradients)."""
    if ulps == 0:
        assert_same_bits(ours, theirs)
    elif not cancelled:
        assert_bits(ours, theirs, packet_ulps=ulps)
    else:
        assert_within_estimate(ours, theirs, ulps)


def _static(t):
    """A tensor's static shape as TF lists it (``None`` for unknown rank)."""
    return t.shape.as_list() if t.shape.rank is not None else None


# ---------------------------------------------------------------- max pooling

_POOLS = {
    "nn.max_pool": (4, lambda tf, x: tf.nn.max_pool(x, 2, 2, "VALID")),
    "nn.max_pool2d": (4, lambda tf, x: tf.nn.max_pool2d(x, 2, 2, "VALID")),
    "nn.max_pool1d": (3, lambda tf, x: tf.nn.max_pool1d(x, 2, 2, "VALID")),
    "nn.max_pool3d": (5, lambda tf, x: tf.nn.max_pool3d(x, 2, 2, "VALID")),
    "nn.pool.MAX": (4, lambda tf, x: tf.nn.pool(x, [2, 2], "MAX", "VALID", strides=[2, 2])),
    "nn.pool.AVG": (4, lambda tf, x: tf.nn.pool(x, [2, 2], "AVG", "VALID", strides=[2, 2])),
    "nn.avg_pool": (4, lambda tf, x: tf.nn.avg_pool(x, 2, 2, "VALID")),
    "layers.max_pooling1d": (3, lambda tf, x: tf.layers.max_pooling1d(x, 2, 2)),
    "layers.max_pooling2d": (4, lambda tf, x: tf.layers.max_pooling2d(x, 2, 2)),
    "layers.max_pooling3d": (5, lambda tf, x: tf.layers.max_pooling3d(x, 2, 2)),
    "layers.max_pooling2d.same": (
        4,
        lambda tf, x: tf.layers.max_pooling2d(x, 2, 2, padding="same"),
    ),
    "layers.max_pooling2d.3x3": (4, lambda tf, x: tf.layers.max_pooling2d(x, 3, 3)),
}


@pytest.mark.parametrize("batch", [None, 1])
@pytest.mark.parametrize("kind", sorted(_POOLS))
def test_max_pool_of_unknown_spatial_dims_stays_unknown(kind, batch):
    """TF: a window over an unknown dimension gives an unknown dimension, even with
    ``ksize == strides`` and ``'VALID'`` (jtrain said 1), so ``flatten`` of it keeps
    the batch: ``(1, 4, 4, 3)`` pooled 2x2 flattens to ``(1, 12)`` (jtrain: ``(4, 3)``)."""
    rank, pool = _POOLS[kind]

    def script(tf):
        x = tf.placeholder(tf.float32, [batch] + [None] * (rank - 2) + [3])
        p = pool(tf, x)
        # flatten of unknown batch and spatial dimensions is dynamic (tf.shape) in TF
        f = tf.layers.flatten(p) if batch else tf.identity(p)
        feed = np.arange(4 ** (rank - 2) * 3, dtype=np.float32).reshape(
            (1,) + (4,) * (rank - 2) + (3,)
        )
        return lambda sess: (_static(p), _static(f), sess.run([p, f], {x: feed}))

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2])


def test_max_pool_of_partly_known_dims():
    """TF: known spatial dimensions keep their pooled size, unknown ones stay unknown."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 4, None, 3])
        p = tf.nn.max_pool(x, 2, 2, "VALID")
        s = tf.nn.max_pool(x, 3, 2, "SAME")
        feed = np.arange(1 * 4 * 6 * 3, dtype=np.float32).reshape(1, 4, 6, 3)
        return lambda sess: (_static(p), _static(s), sess.run([p, s], {x: feed}))

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2])


# ---------------------------------------------------------------- tf.losses dtypes

_LOSSES = (
    "absolute_difference",
    "compute_weighted_loss",
    "cosine_distance",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_pairwise_squared_error",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
)


def _loss(tf, name, labels, predictions, **kw):
    """``tf.losses.<name>`` of ``labels`` and ``predictions`` (logits)."""
    if name == "compute_weighted_loss":
        return tf.losses.compute_weighted_loss(predictions, **kw)
    if name == "cosine_distance":
        kw["axis"] = 1
    return getattr(tf.losses, name)(labels, predictions, **kw)


# (predictions, labels, weights) dtypes; weights None: the default 1.0
_DTYPES = [
    ("float16", "float16", None),
    ("float64", "float64", None),
    ("bfloat16", "bfloat16", None),
    ("float16", "float32", None),
    ("float32", "int32", None),
    ("float32", "bool", None),
    ("float32", "float32", "float64"),
    ("float64", "float32", "float16"),
]
_NON_FLOAT = {"int32"}  # predictions TF casts to float32 (the cross entropies refuse them)


@pytest.mark.parametrize("dtypes", _DTYPES + [("int32", "int32", None)], ids=str)
@pytest.mark.parametrize("loss", _LOSSES)
def test_loss_dtype_and_value(loss, dtypes):
    """TF's dtypes: the float32 losses (``mean_squared_error``... ``hinge_loss``) cast
    their inputs to float32 and return float32; the cross entropies and
    ``compute_weighted_loss`` return the input's dtype (integer logits: TypeError);
    weights of any dtype are cast to float32."""
    p_dtype, l_dtype, w_dtype = dtypes

    def script(tf):
        p = tf.constant(np.array([[0.3, 0.1, 0.8], [0.6, 0.25, 0.5]]), getattr(tf, p_dtype))
        y = tf.constant(np.array([[1, 0, 1], [0, 0, 1]]), getattr(tf, l_dtype))
        kw = {}
        if w_dtype:
            kw["weights"] = tf.constant(np.array([[2.0], [0.5]]), getattr(tf, w_dtype))
        t = _loss(tf, loss, y, p, **kw)
        return lambda sess: (t.dtype.name, _static(t), sess.run(t))

    theirs, ours = _outcomes(script)
    if assert_same_outcome(theirs, ours):
        return
    assert ours[:2] == theirs[:2]
    # TF's float16/bfloat16 SoftmaxCrossEntropyWithLogits kernel rounds its row
    # values differently from jtrain's (one ulp of the result here; nn_ops'
    # kernel, not the loss's dtype handling checked here)
    half = theirs[0] in ("float16", "bfloat16") and loss == "softmax_cross_entropy"
    assert_twins(theirs[2], ours[2], rtol=_eps(theirs[2].dtype) if half else 1e-6)


def test_float16_loss_does_not_overflow():
    """TF: ``mean_squared_error`` of float16 ``[300, 1]`` against zeros is float32
    45000.5 (squared in float32); jtrain squared in float16: ``inf``."""

    def script(tf):
        p = tf.constant([300.0, 1.0], tf.float16)
        t = tf.losses.mean_squared_error(tf.zeros([2], tf.float16), p)
        return lambda sess: sess.run(t)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    assert theirs == np.float32(45000.5)


# ---------------------------------------------------------------- batch normalization


@pytest.mark.parametrize("fused", [None, False])
@pytest.mark.parametrize("trainable", [False, True])
def test_frozen_batch_normalization_adds_no_update_ops(trainable, fused):
    """TF: a layer that is not trainable drops its updates (``Layer.updates`` is empty,
    nothing goes to ``UPDATE_OPS``), even with ``training=True``: the output uses the
    batch's statistics and running ``UPDATE_OPS`` leaves the moving mean at 0."""

    def script(tf):
        x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
        layer = tf.layers.BatchNormalization(trainable=trainable, fused=fused)
        y = layer(x, training=True)
        z = tf.layers.batch_normalization(x, training=True, trainable=trainable, fused=fused)
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        counts = len(update_ops), len(layer.updates)
        names = [v.name for v in tf.trainable_variables()]

        def run(sess):
            out = sess.run([y, z])
            sess.run(update_ops)
            moving = [v for v in tf.global_variables() if "moving" in v.name]
            return counts, names, out, sess.run(moving)

        return run

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2:], ours[2:], rtol=1e-6, atol=1e-6)


def test_unfrozen_layer_adds_its_earlier_updates():
    """TF: ``UPDATE_OPS`` gets ``layer.updates`` after each call, so a layer frozen for
    its first call and trainable for its second adds both calls' updates then."""

    def script(tf):
        x = tf.constant(np.arange(24, dtype=np.float32).reshape(6, 4))
        layer = tf.layers.BatchNormalization(trainable=False)
        layer(x, training=True)
        first = len(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        layer.trainable = True
        layer(x * 2.0, training=True)
        second = len(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)

        def run(sess):
            for update in update_ops:  # one at a time: TF runs a list's ops in any order
                sess.run(update)
            return first, second, sess.run([layer.moving_mean, layer.moving_variance])

        return run

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2], rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- weight regularizers


def _scope_and_layer_regularized(tf, reuse_twice=False):
    """A dense layer with its own regularizers inside a scope with a default one."""
    with tf.variable_scope("s", regularizer=lambda t: tf.reduce_sum(t)):
        layer = tf.layers.Dense(
            1,
            kernel_initializer=tf.ones_initializer(),
            bias_initializer=tf.ones_initializer(),
            kernel_regularizer=lambda t: 10 * tf.reduce_sum(t),
            bias_regularizer=lambda t: 3 * tf.reduce_sum(t),
        )
        layer(tf.ones([1, 2]))
        if reuse_twice:
            layer(tf.ones([1, 2]))
            with tf.variable_scope("t", reuse=tf.AUTO_REUSE):
                for _ in range(2):
                    tf.layers.dense(
                        tf.ones([1, 2]),
                        1,
                        name="d",
                        kernel_initializer=tf.ones_initializer(),
                        kernel_regularizer=lambda t: 5 * tf.reduce_sum(t),
                    )
    return layer


@pytest.mark.parametrize("reuse_twice", [False, True])
def test_layer_regularizer_adds_to_the_scope_default(reuse_twice):
    """TF: ``get_variable`` applies the scope's default regularizer and the layer's own
    ``kernel_regularizer`` adds a second loss (22.0 in the brief's repro; jtrain's layer
    regularizer replaced the scope's: 20.0); a reused variable adds none; both are in
    ``REGULARIZATION_LOSSES`` in TF's order with TF's names, and ``layer.losses`` holds
    the layer's own (TF: 1 for the kernel; jtrain had none)."""

    def script(tf):
        layer = _scope_and_layer_regularized(tf, reuse_twice)
        regs = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        names = [t.name for t in regs]
        own = layer.losses
        own_names = [t.name for t in own]
        total = tf.losses.get_regularization_loss()
        return lambda sess: (names, own_names, sess.run([total, regs, own]))

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2])


def test_brief_repro_regularization_loss():
    """The brief's repro: TF's total regularization loss is 22.0 and ``layer.losses``
    has one loss, 20.0."""

    def script(tf):
        with tf.variable_scope("s", regularizer=lambda t: tf.reduce_sum(t)):
            layer = tf.layers.Dense(
                1,
                kernel_initializer=tf.ones_initializer(),
                kernel_regularizer=lambda t: 10 * tf.reduce_sum(t),
            )
            layer(tf.ones([1, 2]))
        total = tf.losses.get_regularization_loss()
        return lambda sess: sess.run([total, layer.losses])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    assert theirs[0] == 22.0


# ---------------------------------------------------------------- sparse softmax shapes

_SPARSE_SHAPES = [
    # (labels shape, logits shape, weights shape or None)
    ((4, 1), (4, 3), None),
    ((4, 1), (4, 3), (4, 1)),
    ((4,), (4, 3), (4, 1)),
    ((4,), (4, 3), (4,)),
    ((4,), (4, 3, 1), None),
    ((2, 2, 1), (2, 2, 3), (2, 2, 1)),
    ((2, 2, 1), (2, 2, 3), (2, 1)),
    ((4,), (4, 3), (4, 3)),  # TF: cannot squeeze the weights' last dimension
]


@pytest.mark.parametrize("shapes", _SPARSE_SHAPES, ids=str)
def test_sparse_softmax_cross_entropy_squeezes_labels_and_weights(shapes):
    """TF squeezes labels of the logits' rank (``[N, 1]``), logits of the labels' rank
    + 2, then weights of the labels' rank + 1: the brief's ``[4, 1]`` labels and
    weights with ``4x3`` logits give TF's value (jtrain raised ValueError)."""
    labels_shape, logits_shape, weights_shape = shapes

    def script(tf):
        rng = np.random.default_rng(5)
        labels = tf.constant(rng.integers(0, 3, labels_shape), tf.int32)
        logits = tf.constant(rng.normal(size=logits_shape), tf.float32)
        kw = {}
        if weights_shape:
            kw["weights"] = tf.constant(rng.uniform(0.5, 2.0, weights_shape), tf.float32)
        t = tf.losses.sparse_softmax_cross_entropy(labels, logits, **kw)
        none = tf.losses.sparse_softmax_cross_entropy(
            labels, logits, reduction=tf.losses.Reduction.NONE, **kw
        )
        return lambda sess: (_static(t), _static(none), sess.run([t, none]))

    theirs, ours = _outcomes(script)
    if assert_same_outcome(theirs, ours):
        return
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2])


def test_sparse_softmax_brief_repro():
    """The brief's repro: ``[4, 1]`` labels and weights with ``4x3`` logits."""

    def script(tf):
        logits = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0)
        labels = tf.constant([[0], [1], [2], [1]], tf.int64)
        t = tf.losses.sparse_softmax_cross_entropy(labels, logits, weights=tf.ones([4, 1]))
        return lambda sess: sess.run(t)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


# ---------------------------------------------------------------- loss shape checks

# (labels shape, predictions shape, weights shape or None); None dims are placeholders'
_LOSS_SHAPES = [
    ((3, 1), (3, 3), None),  # TF: Shapes (3, 3) and (3, 1) are incompatible
    ((3, 3), (3, 3), (3,)),  # TF: weights.rank=1, values.rank=2
    ((3, 3), (3, 3), (2, 3)),  # TF: Mismatch at dim 0
    ((3, 3), (3, 3), (3, 1)),
    ((3, 3), (3, 3), (1, 3)),
    ((3, 3), (3, 3), ()),
    ((None, 3), (3, 3), (3, 1)),
    ((None, 3), (None, 3), (2, 1)),  # values' shape unknown: TF checks at run time
    ((None, 3), (None, 3), (3, 1, 1)),  # the ranks differ: TF raises when it is built
    ((3, 3), (3, 4), None),
    ((3,), (3, 3), None),
]


@pytest.mark.parametrize("shapes", _LOSS_SHAPES, ids=str)
@pytest.mark.parametrize("loss", _LOSSES)
def test_loss_shape_checks(loss, shapes):
    """TF's graph-construction checks: predictions (logits) compatible with labels,
    weights a scalar or of the losses' rank with dimensions 1 or the losses' (TF
    raises ValueError for ``[3, 1]`` labels of ``[3, 3]`` predictions and ``[3]``
    weights of ``[3, 3]`` values; jtrain broadcast them)."""
    labels_shape, predictions_shape, weights_shape = shapes

    def script(tf):
        rng = np.random.default_rng(3)
        labels = tf.placeholder(tf.float32, labels_shape)
        predictions = tf.placeholder(tf.float32, predictions_shape)
        kw = {}
        if weights_shape is not None:
            kw["weights"] = tf.constant(rng.uniform(0.5, 2.0, weights_shape), tf.float32)
        t = _loss(tf, loss, labels, predictions, **kw)
        feed = {
            labels: rng.integers(0, 2, [3 if d is None else d for d in labels_shape]),
            predictions: rng.uniform(0.1, 0.9, [3 if d is None else d for d in predictions_shape]),
        }
        return lambda sess: (_static(t), sess.run(t, feed))

    theirs, ours = _outcomes(script)
    if assert_same_outcome(theirs, ours):
        if isinstance(theirs, ValueError):
            assert str(ours).split(".")[0] == str(theirs).split(".")[0]
        return
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


_BN_INPUTS = [
    ("float64", (2, 2, 3, 4)),  # TF: the fused kernel has no float64; moments path
    ("float64", (2, 3, 4)),
    ("float32", (2, 3, 4)),  # rank 3: fused=True falls back too (jtrain raised)
    ("float32", (2, 2, 3, 4)),
]


@pytest.mark.parametrize("fused", [None, True])
@pytest.mark.parametrize("inputs", _BN_INPUTS, ids=str)
def test_batch_normalization_fused_falls_back(inputs, fused):
    """TF's v1 layer: ``fused`` None or True uses the fused kernel only where it can
    (rank 4, channel axis, float16/bfloat16/float32) and otherwise the moments path,
    silently: float64 input with ``fused`` left default works (jtrain: TypeError)."""
    dtype, shape = inputs

    def script(tf):
        x = tf.constant(np.arange(np.prod(shape)).reshape(shape) / 10.0, getattr(tf, dtype))
        layer = tf.layers.BatchNormalization(fused=fused)
        y = layer(x, training=True)
        z = tf.layers.batch_normalization(x, training=False, fused=fused)
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        facts = layer.fused, y.op.type, _static(y), _static(z)

        def run(sess):
            out = sess.run([y, z])
            sess.run(update_ops)
            return facts, out, sess.run([layer.moving_mean, layer.moving_variance])

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- top_k, l2_normalize


@pytest.mark.parametrize("name", ["nn.top_k", "math.top_k"])
def test_top_k_returns_tfs_namedtuple(name):
    """TF: ``TopKV2(values, indices)``, a namedtuple (jtrain: a plain tuple), which
    ``Session.run`` returns as such."""

    def script(tf):
        x = tf.constant(np.array([[3.0, 1.0, 4.0, 1.5], [9.0, 2.0, 6.0, 5.0]], np.float32))
        top_k = tf.nn.top_k if name == "nn.top_k" else tf.math.top_k
        r = top_k(x, 2)
        facts = type(r).__name__, r._fields, _static(r.values), _static(r.indices)

        def run(sess):
            out = sess.run(r)
            return facts, type(out).__name__, tuple(sess.run([r.values, r.indices]))

        return run

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2])


@pytest.mark.parametrize(
    "axes",
    [dict(axis=[1, 2]), dict(axis=(0, -1)), dict(axis=[1]), dict(dim=[1, 2]), dict(axis=1), {}],
    ids=str,
)
def test_l2_normalize_over_several_axes(axes):
    """TF: ``axis`` (or ``dim``) may be a list of axes (jtrain raised ValueError)."""

    def script(tf):
        x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.0)
        y = tf.nn.l2_normalize(x, **axes)
        return lambda sess: (_static(y), sess.run(y))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


L2_CASES = {
    # the upstream gradient fed, the batch unknown (a metric-learning embedding)
    "fed gradient": lambda tf, x, g: tf.gradients(tf.nn.l2_normalize(x, 1), x, grad_ys=g)[0],
    "loss of a product": lambda tf, x, g: tf.gradients(
        tf.reduce_sum(tf.nn.l2_normalize(x, axis=1) * g), x
    )[0],
    "squared error": lambda tf, x, g: tf.gradients(
        tf.reduce_sum(tf.square(tf.math.l2_normalize(x, axis=-1) - g)), x
    )[0],
    "all axes": lambda tf, x, g: tf.gradients(tf.nn.l2_normalize(x), x, grad_ys=g)[0],
    "axis 0": lambda tf, x, g: tf.gradients(tf.linalg.l2_normalize(x, 0), x, grad_ys=g)[0],
}


@pytest.mark.parametrize("case", sorted(L2_CASES))
def test_l2_normalize_values_and_gradients_bit_for_bit(case):
    """``tf.nn.l2_normalize`` is TF's Python composite (``Square``, ``Sum``,
    ``Maximum``, ``Rsqrt``, ``Mul``): the value and ``tf.gradients``' graph of TF's
    nodes, bit for bit (as one JAX function differentiated whole, 31% of a 24 x 8
    batch's gradient was 1 ulp off TF's). float32: TF's float16 ``Sum`` order is not
    known (docs/migration.md). Where the CPU's ``rsqrtps`` is not Intel's, within its
    bound (2 ulps measured on an AMD EPYC; the gradients cancel: up to 256 ulps of a
    small value, ``0.6 * 2**-23`` of the largest)."""
    rng = np.random.RandomState(0)
    xv = rng.normal(size=(24, 8)).astype(np.float32)
    gv = rng.normal(size=(24, 8)).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 8])
        g = tf.placeholder(tf.float32, [None, 8])
        y = tf.nn.l2_normalize(x, axis=1, name="unit")
        grad = L2_CASES[case](tf, x, g)
        types = [  # (the reduction's axis: a Const node in TF, an attribute in jtrain)
            op.type
            for op in y.graph.get_operations()
            if op.name.startswith("unit") and op.type != "Const"
        ]
        return lambda sess: (y.name, types, sess.run([y, grad], {x: xv, g: gv}))

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    for t, o in zip(theirs[2], ours[2], strict=True):
        _assert_estimate_bits(o, t, rsqrt_estimate_ulps(), cancelled=True)


NN_LOSSES = {
    "weighted xent": lambda tf, x, z: tf.nn.weighted_cross_entropy_with_logits(
        labels=z, logits=x, pos_weight=3.0
    ),
    "weighted xent, targets": lambda tf, x, z: tf.nn.weighted_cross_entropy_with_logits(
        targets=z, logits=x, pos_weight=0.5, name="wxe"
    ),
    "log_poisson_loss": lambda tf, x, z: tf.nn.log_poisson_loss(z * 3.0, x),
    "log_poisson_loss full": lambda tf, x, z: tf.nn.log_poisson_loss(
        z * 3.0 + 0.5, x, compute_full_loss=True
    ),
}


@pytest.mark.parametrize("case", sorted(NN_LOSSES))
def test_nn_python_losses_bit_for_bit(case):
    """``tf.nn.weighted_cross_entropy_with_logits`` and ``tf.nn.log_poisson_loss`` as
    TF's Python functions build them (``Exp``, ``Log1p``, ``Relu``, ``Log`` nodes):
    values and gradients (logits' and labels') bit for bit (computed with XLA's
    ``exp``/``log1p``/``log`` in one JAX function, 22-43% of a probe's values and
    34-40% of its gradients were 1-4 ulp off TF's). ``Log1p``'s gradient multiplies by
    TF's ``Reciprocal``: where the CPU's ``rcpps`` is not Intel's, the weighted cross
    entropy's gradient is within its bound (2 ulps measured on an AMD EPYC)."""
    rng = np.random.RandomState(1)
    xv = (rng.normal(size=(24, 8)) * 2).astype(np.float32)
    zv = (rng.rand(24, 8) > 0.5).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 8])
        z = tf.placeholder(tf.float32, [None, 8])
        loss = NN_LOSSES[case](tf, x, z)
        grads = tf.gradients(tf.reduce_sum(loss), [x, z])
        return lambda sess: (loss.name, sess.run([loss, *grads], {x: xv, z: zv}))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    ulps = estimate_ulps() if case.startswith("weighted xent") else 0
    for t, o in zip(theirs[1], ours[1], strict=True):
        _assert_estimate_bits(o, t, ulps)


STATISTICS = {
    "reduce_variance rows": lambda tf, x: tf.math.reduce_variance(x, axis=1),
    "reduce_variance columns kept": lambda tf, x: tf.math.reduce_variance(x, axis=0, keepdims=True),
    "reduce_std rows": lambda tf, x: tf.math.reduce_std(x, axis=1),
    "reduce_std all": lambda tf, x: tf.math.reduce_std(x),
}


@pytest.mark.parametrize("case", sorted(STATISTICS))
def test_reduce_variance_and_std_gradients_bit_for_bit(case):
    """``tf.math.reduce_variance``/``reduce_std`` are TF's Python composites (``Mean``,
    ``Sub``, ``Square``, ``Mean``, ``Sqrt``): values and gradients bit for bit (as one
    JAX function each, 18-56% of a 24 x 8 probe's gradients were off TF's)."""
    rng = np.random.RandomState(1)
    xv = rng.normal(size=(24, 8)).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 8])
        y = STATISTICS[case](tf, x)
        (grad,) = tf.gradients(tf.reduce_sum(y * y), x)
        return lambda sess: sess.run([y, grad], {x: xv})

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        assert_same_bits(o, t)


NORMS = {
    "rows": lambda tf, x: tf.norm(x, axis=1),
    "all": lambda tf, x: tf.norm(x),
    "kept": lambda tf, x: tf.linalg.norm(x, axis=-1, keepdims=True),
    "fro": lambda tf, x: tf.norm(x, ord="fro", axis=[0, 1]),
}


@pytest.mark.parametrize("case", sorted(NORMS))
def test_euclidean_norm_and_gradient_bit_for_bit(case):
    """``tf.norm``'s Euclidean and Frobenius norms, ``sqrt(reduce_sum(x * conj(x)))``,
    with TF's ``Sum`` order and ``SqrtGrad``: values and gradients bit for bit (XLA's
    sum and square root's derivative left 12% of a probe's row norms and 41% of their
    gradients off TF's; the full norms were TF's already)."""
    rng = np.random.RandomState(1)
    xv = rng.normal(size=(24, 8)).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 8])
        y = NORMS[case](tf, x)
        (grad,) = tf.gradients(tf.reduce_sum(y * y * 0.5 + y), x)
        return lambda sess: sess.run([y, grad], {x: xv})

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        assert_same_bits(o, t)


LOG_LOSSES = {
    "default": lambda tf, p, z: tf.losses.log_loss(z, p),
    "weighted": lambda tf, p, z: tf.losses.log_loss(z, p, weights=z * 2.0 + 0.5),
    "none": lambda tf, p, z: tf.losses.log_loss(z, p, reduction=tf.losses.Reduction.NONE),
}


@pytest.mark.parametrize("case", sorted(LOG_LOSSES))
def test_log_loss_and_gradient_bit_for_bit(case):
    """``tf.losses.log_loss`` with TF's ``Log`` kernel and gradient (it took XLA's
    ``log``: 43% of a probe's gradients off TF's). ``Log``'s gradient multiplies by TF's
    ``Reciprocal``: where the CPU's ``rcpps`` is not Intel's, within its bound (2 ulps
    measured on an AMD EPYC)."""
    rng = np.random.RandomState(1)
    pv = (rng.rand(24, 8) * 0.98 + 0.01).astype(np.float32)
    zv = (rng.rand(24, 8) > 0.5).astype(np.float32)

    def script(tf):
        p = tf.placeholder(tf.float32, [None, 8])
        z = tf.placeholder(tf.float32, [None, 8])
        loss = LOG_LOSSES[case](tf, p, z)
        (grad,) = tf.gradients(tf.reduce_sum(loss), p)
        return lambda sess: sess.run([loss, grad], {p: pv, z: zv})

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        _assert_estimate_bits(o, t, estimate_ulps())


@pytest.mark.parametrize("broadcast", [False, True], ids=["same shape", "broadcast"])
def test_xlogy_and_gradients_bit_for_bit(broadcast):
    """``tf.math.xlogy`` is TF's ``Xlogy`` kernel (``x * log(y)`` with TF's ``Log``, 0
    where ``x`` is 0) and its gradients TF's ``_XLogyGrad`` (``xlogy(x != 0, y) * g``,
    ``xdivy(x, y) * g``, summed over broadcast axes in TF's order): bit for bit (XLA's
    ``log`` left 11% of a probe's values and 15% of ``y``'s gradient off TF's)."""
    rng = np.random.RandomState(1)
    xv = (rng.rand(24, 8) > 0.3).astype(np.float32) * rng.rand(24, 8).astype(np.float32)
    yv = (rng.rand(1 if broadcast else 24, 8) * 60 + 0.01).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.placeholder(tf.float32, [None, 8])
        z = tf.math.xlogy(x, y)
        grads = tf.gradients(tf.reduce_sum(z * z), [x, y])
        return lambda sess: sess.run([z, *grads], {x: xv, y: yv})

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        assert_same_bits(o, t)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.nn.weighted_cross_entropy_with_logits(
            labels=tf.zeros([2, 3]), logits=tf.zeros([2, 4]), pos_weight=2.0
        ),
        lambda tf: tf.nn.log_poisson_loss(tf.zeros([2, 3]), tf.zeros([3])),
    ],
    ids=["weighted xent", "log_poisson_loss"],
)
def test_nn_python_losses_shape_errors_as_tf(build):
    def script(tf):
        with pytest.raises(ValueError) as info:
            build(tf)
        return lambda sess: str(info.value)

    theirs, ours = run_both(script)
    assert ours == theirs
