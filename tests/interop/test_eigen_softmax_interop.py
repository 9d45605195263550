"""``tf.nn.log_softmax``, ``tf.nn.softmax_cross_entropy_with_logits(_v2)`` and
``tf.nn.sparse_softmax_cross_entropy_with_logits`` and their gradients bit for bit against
TF 2.21's CPU kernels (``LogSoftmax``, ``SoftmaxCrossEntropyWithLogits``,
``SparseSoftmaxCrossEntropyWithLogits``: Eigen expressions, see
``jtrain/_eigen/softmax.py``), fed through placeholders so nothing is folded.

Shapes: batches 1, 3, 64, 128 by 2, 7, 8, 10, 33, 1000 classes (rows that do and do not
fill packets of 8, batches whose ``log`` of the row sums has a scalar tail), rows of
small, unit and large logits, one-hot and soft labels; shapes the dense kernel's
``backprop`` evaluates in several blocks of Eigen's tiled executor (4,507 values each);
rows longer than Eigen's reduction leaf (8,192 values).

Before: XLA's functions differed from TF's on 9% (log_softmax) and 57% (xent) of values;
the sparse loss, through JAX's ``log_softmax``, in 24 of its 25 shapes here (770 of a
1,000-class row's gradient).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

BATCHES = [1, 3, 64, 128]
CLASSES = [2, 7, 8, 10, 33, 1000]
# Shapes the dense kernel's backprop splits into blocks (whole rows, parts of rows).
TILED = [(7, 1001), (600, 33), (300, 1001), (3, 10000)]
# Rows longer than Eigen's reduction leaf (8,192 values), split at packet boundaries.
LONG_ROWS = [(3, 9001), (2, 20001)]
_SCALES = np.float32([3, 0.01, 30])


def _logits(shape, seed):
    """Random logits, each row at one of three scales."""
    rng = np.random.RandomState(seed)
    scale = _SCALES[np.arange(shape[0]) % len(_SCALES)].reshape((-1,) + (1,) * (len(shape) - 1))
    return (rng.randn(*shape) * scale).astype(np.float32), rng


def _soft_labels(rng, shape):
    labels = rng.rand(*shape).astype(np.float32)
    return labels / labels.sum(axis=-1, keepdims=True)


def _one_hot(rng, shape):
    return np.eye(shape[-1], dtype=np.float32)[rng.randint(0, shape[-1], shape[:-1])]


def _assert_bits(ours, theirs):
    """The same dtype, shape and bits (NaN where TF's is NaN)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    width = {2: np.uint16, 4: np.uint32}[theirs.dtype.itemsize]
    nan = np.isnan(theirs.astype(np.float32))
    np.testing.assert_array_equal(np.isnan(ours.astype(np.float32)), nan)
    differ = (ours.view(width) != theirs.view(width)) & ~nan
    assert not differ.any(), (
        f"{differ.sum()} of {differ.size} differ, e.g. at {np.argwhere(differ)[:4].tolist()}: "
        f"{ours[differ][:4]} (jtrain) vs {theirs[differ][:4]} (TF)"
    )


def _check(script):
    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        _assert_bits(o, t)


@pytest.mark.parametrize("shape", [(b, c) for b in BATCHES for c in CLASSES] + LONG_ROWS, ids=str)
def test_log_softmax_bit_for_bit(shape):
    batch, classes = shape
    x_value, rng = _logits((batch, classes), 1)
    dy_value = rng.randn(batch, classes).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, x_value.shape)
        dy = tf.placeholder(tf.float32, x_value.shape)
        y = tf.nn.log_softmax(x)
        (dx,) = tf.gradients(y, [x], grad_ys=dy)
        return lambda sess: sess.run([y, dx], {x: x_value, dy: dy_value})

    _check(script)


@pytest.mark.parametrize("labels", ["one_hot", "soft"])
@pytest.mark.parametrize("classes", CLASSES)
@pytest.mark.parametrize("batch", BATCHES)
def test_softmax_cross_entropy_bit_for_bit(batch, classes, labels):
    _dense_xent((batch, classes), labels)


@pytest.mark.parametrize("shape", TILED + LONG_ROWS, ids=str)
def test_softmax_cross_entropy_tiled_backprop_bit_for_bit(shape):
    """TF's backprop expression has a broadcast: Eigen's tiled executor evaluates it
    block by block, each block's last values through the scalar ``exp``; rows longer
    than a reduction leaf."""
    _dense_xent(shape, "soft")


def _dense_xent(shape, labels):
    x_value, rng = _logits(shape, 2)
    l_value = _one_hot(rng, shape) if labels == "one_hot" else _soft_labels(rng, shape)
    dl_value = rng.randn(shape[0]).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, shape)
        lab = tf.placeholder(tf.float32, shape)
        dl = tf.placeholder(tf.float32, shape[:1])
        loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x)
        dx, dlab = tf.gradients(loss, [x, lab], grad_ys=dl)
        return lambda sess: sess.run([loss, dx, dlab], {x: x_value, lab: l_value, dl: dl_value})

    _check(script)


@pytest.mark.parametrize("classes", CLASSES)
@pytest.mark.parametrize("batch", BATCHES)
def test_sparse_softmax_cross_entropy_bit_for_bit(batch, classes):
    """The loss and its gradient to the logits (the kernel's backprop times the loss's
    gradient); also through ``tf.losses.sparse_softmax_cross_entropy`` (a mean)."""
    x_value, rng = _logits((batch, classes), 6)
    l_value = rng.randint(0, classes, batch).astype(np.int32)
    dl_value = rng.randn(batch).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, x_value.shape)
        lab = tf.placeholder(tf.int32, l_value.shape)
        dl = tf.placeholder(tf.float32, dl_value.shape)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=x)
        mean = tf.losses.sparse_softmax_cross_entropy(lab, x)
        (dx,) = tf.gradients(loss, [x], grad_ys=dl)
        (dmean,) = tf.gradients(mean, [x])
        feed = {x: x_value, lab: l_value, dl: dl_value}
        return lambda sess: sess.run([loss, dx, mean, dmean], feed)

    _check(script)


def test_sparse_softmax_cross_entropy_rank_3_and_float16():
    """Rank-3 logits (TF flattens the outer axes), ``int64`` labels, the edges (``-inf``
    logits, equal values, large values), and float16 logits through float32 (TF's
    wrapper casts)."""
    x_value, rng = _logits((4, 9, 6), 7)
    x_value[0, 0] = [-np.inf, 0, 1, -np.inf, 2, 3]
    x_value[1, 1] = 7.0
    x_value[2, 2] = [1e30, -1e30, 3e38, 0, -3e38, 1]
    l_value = rng.randint(0, 6, (4, 9)).astype(np.int64)
    l_value[0, 0] = 2  # a finite logit's label in a row with -inf ones

    def script(tf):
        x = tf.placeholder(tf.float32, x_value.shape)
        lab = tf.placeholder(tf.int64, l_value.shape)
        half = tf.cast(x[3], tf.float16)
        outs = [
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=x),
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab[3], logits=half),
        ]
        grads = []
        for i, out in enumerate(outs):
            dy = tf.constant(np.random.RandomState(i).randn(*out.shape), out.dtype)
            grads += tf.gradients(out, [x], grad_ys=dy)
        return lambda sess: sess.run(outs + grads, {x: x_value, lab: l_value})

    _check(script)


def test_other_axis_rank_3_and_the_v1_op_bit_for_bit():
    """An axis other than the last (TF transposes it last), rank 3 (TF flattens the
    outer axes), the deprecated v1 op, the edges: ``-inf`` logits, a row of equal values, large
    values."""
    x_value, rng = _logits((4, 9, 6), 4)
    x_value[0, 0] = [-np.inf, 0, 1, -np.inf, 2, 3]
    x_value[1, 1] = 7.0
    x_value[2, 2] = [1e30, -1e30, 3e38, 0, -3e38, 1]
    l_value = _soft_labels(rng, (4, 9, 6))

    def script(tf):
        x = tf.placeholder(tf.float32, x_value.shape)
        lab = tf.placeholder(tf.float32, x_value.shape)
        outs = [
            tf.nn.log_softmax(x, axis=1),
            tf.nn.log_softmax(x),
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x, axis=1),
            tf.nn.softmax_cross_entropy_with_logits(labels=lab, logits=x),
        ]
        grads = []
        for i, out in enumerate(outs):
            dy = tf.constant(np.float32(np.random.RandomState(i).randn(*out.shape)))
            grads += [g for g in tf.gradients(out, [x, lab], grad_ys=dy) if g is not None]
        feed = {x: x_value, lab: l_value}
        return lambda sess: sess.run(outs + grads, feed)

    _check(script)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_cross_entropy_through_float32(dtype):
    """TF's Python wrapper casts float16 and bfloat16 logits to float32 for the kernel
    and the loss back."""
    x_value, rng = _logits((64, 10), 5)
    l_value = _soft_labels(rng, (64, 10))

    def script(tf):
        x = tf.placeholder(getattr(tf, dtype), x_value.shape)
        lab = tf.placeholder(getattr(tf, dtype), x_value.shape)
        outs = [tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x)]
        grads = []
        for out in outs:
            grads += [g for g in tf.gradients(out, [x, lab]) if g is not None]
        np_dtype = x.dtype.as_numpy_dtype
        feed = {x: x_value.astype(np_dtype), lab: l_value.astype(np_dtype)}
        return lambda sess: sess.run(outs + grads, feed)

    _check(script)
