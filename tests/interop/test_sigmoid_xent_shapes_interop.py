"""``tf.nn.sigmoid_cross_entropy_with_logits`` refuses labels and logits of different
static shapes as TF 2.21 does (no broadcasting), checked live (``twin.py``). jtrain
broadcast ``[2, 1]`` labels against ``[2]`` logits into a ``[2, 2]`` loss where TF
raises, and worded ``[2]`` against ``[3]`` as a broadcasting error.

The values and gradients are TF's to the bit where the CPU's ``rcpps`` estimate is the one
jtrain reproduces (Intel's; ``Log1p``'s gradient multiplies by TF's ``Reciprocal``), within
its bound elsewhere (``cpu_estimates.estimate_ulps``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.bits import assert_within_estimate
from tests.interop.cpu_estimates import estimate_ulps
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

# (labels' static shape, logits' static shape)
SHAPES = [([2], [3]), ([2, 1], [2]), ([2], [2, 1]), ([None], [3]), ([None, 2], [3, 2]), ([3], [3])]


@pytest.mark.parametrize(("labels", "logits"), SHAPES, ids=str)
def test_shapes_as_tf(labels, logits):
    def script(tf):
        try:
            loss = tf.nn.sigmoid_cross_entropy_with_logits(
                labels=tf.placeholder(tf.float32, labels, name="labels"),
                logits=tf.placeholder(tf.float32, logits, name="logits"),
            )
        except ValueError as e:
            error = ("ValueError", str(e))
            return lambda sess: error
        shape = loss.shape.as_list()
        full = [3 if d is None else d for d in logits]
        feed = {"labels:0": np.full(full, 0.25, np.float32), "logits:0": np.ones(full, np.float32)}
        return lambda sess: (shape, sess.run(loss, feed).tolist())

    theirs, ours = run_both(script)
    assert ours == theirs


@pytest.mark.parametrize("shape", [[64, 30], [7, 5], [3]], ids=str)
def test_values_and_gradients_bits(shape):
    """The loss is TF's composition of TF's kernels, to the bit: ``max(x, 0) - x * z``
    (the product rounded before the difference: XLA contracted it into an FMA) plus
    TF's ``Log1p`` of TF's ``Exp``; 54% of the values differed. The labels' gradient is
    TF's ``Mul`` gradient; the logits', summed over their four paths, TF's ``AddN``.

    ``Log1p``'s gradient is ``g * reciprocal(1 + x)``, TF's ``Reciprocal``: where the
    CPU's ``rcpps`` is not Intel's, each value within ``estimate_ulps`` ulps
    (``ulps * 2**-23`` relative) of TF's or of TF's largest value in the array, as the
    logits' four paths cancel (measured on an AMD EPYC: up to 1,024 ulps of a small
    gradient, ``0.9 * 2**-23`` of the largest: 0.1 of the bound)."""
    rng = np.random.RandomState(len(shape))
    logits_value = (rng.randn(*shape) * 3).astype(np.float32)
    labels_value = rng.uniform(0, 1, shape).astype(np.float32)
    upstream = rng.randn(*shape).astype(np.float32)

    def script(tf):
        logits = tf.placeholder(tf.float32, shape)
        labels = tf.placeholder(tf.float32, shape)
        loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        grads = tf.gradients(loss, [logits, labels], grad_ys=upstream)
        feed = {logits: logits_value, labels: labels_value}
        return lambda sess: sess.run([loss, *grads], feed)

    theirs, ours = run_both(script)
    ulps = estimate_ulps()
    if ulps == 0:
        assert_twins(theirs, ours, rtol=0, atol=0)
        return
    for t, o in zip(theirs, ours, strict=True):
        assert_within_estimate(o, t, ulps)
