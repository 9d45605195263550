"""Common TF1 loss and normalization patterns: values and gradients as TF 2.21's, to the bit.

TF's graph computes a loss op by op, each output rounded to float32 and materialized,
and differentiates it op by op (``math_grad.py``). jtrain's ``tf.losses`` ops, ``tf.nn.moments``
and ``tf.nn.batch_normalization`` are single nodes whose gradients JAX derives; under
``jax.jit`` XLA then fused what TF keeps apart. Measured before (share of the elements
differing from TF's, 32 x 24 float32 inputs):

- ``tf.losses.mean_squared_error(x, x * b)``: 74.7% of ``x``'s gradient. XLA rewrote the
  gradient's ``((g / 768 * 2) * (pred - x)) * b`` as ``(pred - x) * broadcast(b * 2/768)``
  (its algebraic simplifier moves a scalar constant onto the smaller broadcast operand);
  TF multiplies ``(2 * g) * (pred - x)`` first (``_SquaredDifferenceGrad``), then by ``b``.
- ``huber_loss``' and ``mean_squared_error``'s value (1 ulp): XLA multiplied the sum by
  ``1 / 768`` where TF's ``DivNoNan`` divides, and summed in its own order.
- a layer normalization written with ``tf.nn.moments``: 48.4% of ``x``'s gradient
  (JAX's derivative of the variance's square and the order it added the gradients of
  ``x``'s three readers, where TF adds ``SquaredDifference``'s, ``Mean``'s and the
  caller's in one ``AddN``, sorted by name).
- ``tf.nn.batch_normalization``: 37.5% of the scale's gradient (XLA's sum over the
  batch, where TF's ``Mul`` gradient sums in Eigen's order).
- ``tf.tile`` of a bias: 75% of the bias's gradient (XLA's sum; TF's ``_TileGrad`` sums
  the reshaped gradient with its ``Sum`` kernel).
- ``tf.reduce_mean``'s gradient (``g * (1 / count)`` after grappler) was not rounded
  before the next addition: XLA contracted it into an FMA with the variance's gradient.

- ``tf.nn.moments`` feeding ``batch_normalization``: 43.9% of ``x``'s gradient. TF's one
  ``AddN`` of ``x``'s gradients sorts by name ``batchnorm/mul_1_grad``'s before
  ``moments``' two (``SquaredDifference_grad``, ``mean_grad``), which jtrain added first,
  inside its one ``Moments`` node; with batchnorm's incoming gradient named after
  ``moments`` (33.7%), jtrain also sorted batchnorm's by that name (an ``AddV2`` node
  passing its gradient through), and moments among four uses (43.8%) by its node's.

- ``huber_loss`` with a weights tensor (41%), or any ``huber_loss`` of an unknown batch
  size: TF adds ``quadratic``'s three gradients with ``AddN(a, a, n)`` (grappler merged
  ``Mul(q, q)``'s two equal products into one node, read twice), and its kernel first
  moves to the front the first input whose buffer it can reuse (``aggregate_ops.h``):
  the negation ``n``, computed, gives ``(n + a) + a``; folded into a constant (constant
  weights, known shapes) it is not reused and the sum stays ``(a + a) + n``.
  A loss multiplied by a computed value makes the negation computed too (its incoming
  gradient is no constant): ``tf.gradients`` then computes the node's other order.

The normalizations' ``tf.rsqrt`` (``tf.nn.batch_normalization``'s too) is TF's ``Rsqrt``,
whose last bits are the CPU's ``rsqrtps`` estimate's: bit for bit where it is the one
jtrain reproduces (Intel's), within its bound elsewhere (``RSQRT_CASES``).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.bits import assert_within_estimate
from tests.interop.cpu_estimates import rsqrt_estimate_ulps
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(0)
X = (_RNG.randn(32, 24) * 2).astype(np.float32)
B = (_RNG.rand(24) + 0.5).astype(np.float32)


def _through_cos(tf, y, xs):
    """``y`` and the gradients of ``sum(y * cos(y))`` (a gradient of ``y``'s shape)."""
    return [y, *tf.gradients(tf.reduce_sum(y * tf.cos(y)), xs)]


def _loss(tf, y, x, b):
    return [y, *tf.gradients(y, [x, b])]


def _mse(tf, x, b):
    return _loss(tf, tf.losses.mean_squared_error(x, x * b), x, b)


def _huber(tf, x, b):
    return _loss(tf, tf.losses.huber_loss(x, x * b), x, b)


def _three_losses(tf, x, b):
    pred = x * b
    y = (
        tf.losses.mean_squared_error(x, pred)
        + tf.losses.absolute_difference(x, pred)
        + tf.losses.huber_loss(x, pred)
    )
    return _loss(tf, y, x, b)


def _weighted_losses(tf, x, b):
    pred = x * b
    y = tf.losses.mean_squared_error(
        x, pred, weights=tf.expand_dims(b, 0)
    ) + tf.losses.absolute_difference(x, pred, weights=tf.reshape(b[:1], [1, 1]))
    return _loss(tf, y, x, b)


def _huber_delta(tf, x, b):
    return _loss(tf, tf.losses.huber_loss(x, x * b, weights=0.3, delta=0.7), x, b)


def _loss_reductions(tf, x, b):
    pred = x * b
    y = tf.losses.mean_squared_error(
        x, pred, weights=tf.expand_dims(b, 0), reduction=tf.losses.Reduction.MEAN
    ) + tf.losses.huber_loss(pred, x, reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE)
    return _loss(tf, y, x, b)


def _layer_norm(tf, x, b):
    m, v = tf.nn.moments(x, [1], keep_dims=True)
    return _through_cos(tf, (x - m) * tf.rsqrt(v + 1e-5) * b, [x, b])


def _layer_norm_sqrt(tf, x, b):
    m, v = tf.nn.moments(x, [1], keep_dims=True)
    y = (x - m) / tf.sqrt(v + 1e-6) * b + b
    return [y, *tf.gradients(tf.reduce_sum(y * y), [x, b])]


def _layer_norm_by_hand(tf, x, b):
    # xc * xc: XLA merges tf.gradients' two copies of xc back into one square and saw
    # through its product's rounding (4% of x's gradient, 29% of b's differed)
    m = tf.reduce_mean(x, axis=-1, keepdims=True)
    xc = x - m
    variance = tf.reduce_mean(xc * xc, axis=-1, keepdims=True)
    return _through_cos(tf, xc * tf.rsqrt(variance + 1e-5) * b, [x, b])


def _layer_norm_square_by_hand(tf, x, b):
    # tf.square: jnp.square let XLA contract the square into the variance's sum once
    # the step also computed gradients (6% of rsqrt's output, 29% of b's gradient)
    m = tf.reduce_mean(x, axis=-1, keepdims=True)
    xc = x - m
    variance = tf.reduce_mean(tf.square(xc), axis=-1, keepdims=True)
    y = xc * tf.rsqrt(variance + 1e-5) * b
    return [y, *tf.gradients(tf.reduce_sum(tf.sin(y)), [b])]


def _rms_norm_by_hand(tf, x, b):
    y = x * tf.rsqrt(tf.reduce_mean(x * x, axis=-1, keepdims=True) + 1e-6) * b
    return [y, *tf.gradients(tf.reduce_sum(tf.sin(y)), [x, b])]


def _batch_norm_scale(tf, x, b):
    m, v = tf.nn.moments(x, [0])
    return _through_cos(tf, tf.nn.batch_normalization(x * 2.0, m, v, None, b, 1e-3), [x, b])


def _batch_norm(tf, x, b):
    # x read by moments' Mean and SquaredDifference and batchnorm's Mul: one AddN of the
    # three gradients, sorted by name (batchnorm's first)
    m, v = tf.nn.moments(x, [0])
    return _through_cos(tf, tf.nn.batch_normalization(x, m, v, b, b * 0.5, 1e-3), [x, b])


def _batch_norm_wave(tf, x, b):
    # batchnorm's incoming gradient (gradients/wave_grad/mul) sorts after moments'; its
    # gradient of x (gradients/batchnorm/mul_1_grad/Mul) before them
    m, v = tf.nn.moments(x, [0])
    y = tf.sin(tf.nn.batch_normalization(x, m, v, b, b, 1e-3), name="wave")
    return _through_cos(tf, y, [x, b])


def _moments_among_uses(tf, x, b):
    # four gradients of x: batchnorm/mul_grad (no scale), lift_grad, then moments' two
    # (SquaredDifference_grad before mean_grad), under a second moments' scope
    tf.nn.moments(x * b, [1])
    m, v = tf.nn.moments(x, [0])
    y = tf.nn.batch_normalization(x, m, v, b, None, 1e-3) + tf.sin(x, name="lift")
    return _through_cos(tf, y, [x, b])


def _tiled_bias(tf, x, b):
    y = tf.cumsum(x, 1) + tf.tile(tf.expand_dims(b, 0), [32, 1]) * tf.reduce_sum(x, 0)
    return _through_cos(tf, y, [x, b])


def _tiled_blocks(tf, x, b):
    # tiled along the batch (20 copies of 4 rows) and along a row (8 copies of 3 columns)
    rows, columns = tf.tile(x[:4], [20, 1]), tf.tile(x[:, :3], [1, 8])
    return _through_cos(tf, tf.reduce_sum(tf.sin(rows)) * columns, [x])


CASES = {
    "mean_squared_error": _mse,
    "huber_loss": _huber,
    "three_losses": _three_losses,
    "weighted_losses": _weighted_losses,
    "huber_delta": _huber_delta,
    "loss_reductions": _loss_reductions,
    "layer_norm": _layer_norm,
    "layer_norm_sqrt": _layer_norm_sqrt,
    "layer_norm_by_hand": _layer_norm_by_hand,
    "rms_norm_by_hand": _rms_norm_by_hand,
    "layer_norm_square_by_hand": _layer_norm_square_by_hand,
    "batch_norm_scale": _batch_norm_scale,
    "batch_norm": _batch_norm,
    "batch_norm_wave": _batch_norm_wave,
    "moments_among_uses": _moments_among_uses,
    "tiled_bias": _tiled_bias,
    "tiled_blocks": _tiled_blocks,
}
# The cases whose values go through TF's ``Rsqrt`` (``cpu_estimates.rsqrt_estimate_ulps``).
RSQRT_CASES = {
    "layer_norm",
    "layer_norm_by_hand",
    "rms_norm_by_hand",
    "layer_norm_square_by_hand",
    "batch_norm_scale",
    "batch_norm",
    "batch_norm_wave",
    "moments_among_uses",
}


def _assert_within_estimate(theirs, ours, ulps):
    """``assert_twins`` bit for bit where ``ulps`` is 0 (the CPU's estimate is the one
    jtrain reproduces); else each leaf within ``ulps`` float32 ulps (relative
    ``ulps * 2**-23``) of TF's value or of TF's largest value in the leaf, NaN where TF's
    is NaN. The second bound is for differences cancelled: ``x - mean`` and the
    gradients' sums over a row or the batch add terms of the leaf's size, each off by
    the estimate's bound (measured on an AMD EPYC with AVX2, ``ulps`` 8: 0.58 of the
    bound at most, ``batch_norm_scale``'s gradient of ``x``)."""
    if ulps == 0:
        assert_twins(theirs, ours, rtol=0, atol=0)
        return
    for t, o in zip(theirs, ours, strict=True):
        assert_within_estimate(o, t, ulps)


@pytest.mark.parametrize("case", list(CASES))
def test_values_and_gradients_bits(case):
    def script(tf):
        x = tf.placeholder(tf.float32, [32, 24], name="x")
        b = tf.placeholder(tf.float32, [24], name="b")
        fetches = CASES[case](tf, x, b)
        return lambda sess: sess.run(fetches, {x: X, b: B})

    theirs, ours = run_both(script)
    _assert_within_estimate(theirs, ours, rsqrt_estimate_ulps() if case in RSQRT_CASES else 0)


_W = (_RNG.rand(32, 1) + 0.1).astype(np.float32)

# huber_loss's gradient: TF's AddN(a, a, n) reuses n's buffer (adds it first) unless
# grappler folded n to a constant (constant weights and known shapes)
HUBER_CASES = {
    "default_weights": lambda tf, x, b, w: tf.losses.huber_loss(x, x * b),
    "computed_weights": lambda tf, x, b, w: tf.losses.huber_loss(
        x, x * b, weights=tf.expand_dims(b, 0)
    ),
    "fed_weights_mean": lambda tf, x, b, w: tf.losses.huber_loss(
        x, x * b, weights=w, reduction=tf.losses.Reduction.MEAN
    ),
    "fed_weights_none": lambda tf, x, b, w: tf.reduce_sum(
        tf.losses.huber_loss(x, x * b, weights=w, reduction=tf.losses.Reduction.NONE)
    ),
    "constant_weights": lambda tf, x, b, w: tf.losses.huber_loss(
        x, x * b, weights=tf.constant(_W), delta=0.7
    ),
    "in_total_loss": lambda tf, x, b, w: (
        tf.losses.huber_loss(x, x * b, weights=0.3),
        tf.losses.get_total_loss(),
    )[1],
    "scaled_by_a_computed_value": lambda tf, x, b, w: (
        tf.losses.huber_loss(x, x * b) * tf.reduce_sum(b)
    ),
}


@pytest.mark.parametrize("batch", [32, None], ids=["known_batch", "unknown_batch"])
@pytest.mark.parametrize("case", list(HUBER_CASES))
def test_huber_loss_gradient_order(case, batch):
    def script(tf):
        x = tf.placeholder(tf.float32, [batch, 24], name="x")
        b = tf.placeholder(tf.float32, [24], name="b")
        w = tf.placeholder(tf.float32, [batch, 1], name="w")
        y = HUBER_CASES[case](tf, x, b, w)
        fetches = [y, *tf.gradients(y, [x, b])]
        return lambda sess: sess.run(fetches, {x: X, b: B, w: _W})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)
