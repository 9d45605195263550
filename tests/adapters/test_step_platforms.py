"""A TF1 training step lowered for a GPU carries none of the CPU emulations' loops.

TF's CPU arithmetic (sums over a batch in Eigen's order, ``BiasAddGrad``'s rows added
one after another, the ``rsqrtps`` table...) is chosen with ``lax.platform_dependent``:
lowered for CUDA the step is XLA's own arithmetic. A loop left in a GPU program costs a
kernel launch and a predicate copied to the host per iteration (``BiasAddGrad``'s row
loop took a convnet's step on an H200 to 14 ms). The programs are lowered here for
``"cuda"`` and ``"cpu"`` from any machine (nothing is compiled for the GPU).
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from tests._helpers import step_program


def _convnet_step():
    """Conv + bias + pool, batch normalization, dense layers, both softmax losses, an
    L2 penalty; Momentum on the weights, Adagrad on the rest, and a moving average."""
    x = tf.placeholder(tf.float32, [8, 12, 12, 3], name="x")
    labels = tf.placeholder(tf.int32, [8], name="labels")
    kernel = tf.get_variable("kernel", initializer=np.full((5, 5, 3, 8), 0.01, np.float32))
    bias = tf.get_variable("bias", initializer=np.zeros(8, np.float32))
    conv = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, kernel, [1, 1, 1, 1], "SAME"), bias))
    pool = tf.nn.max_pool(conv, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    mean, variance = tf.nn.moments(pool, [0, 1, 2])
    normed = tf.nn.batch_normalization(pool, mean, variance, None, None, 1e-3)
    hidden = tf.layers.dense(tf.reshape(normed, [8, -1]), 16, tf.nn.relu, name="hidden")
    logits = tf.layers.dense(hidden, 10, name="logits")
    onehot = tf.one_hot(labels, 10)
    loss = (
        tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=onehot, logits=logits))
        + tf.losses.sparse_softmax_cross_entropy(labels, logits)
        + 1e-4 * tf.nn.l2_loss(kernel)
    )
    step = tf.train.get_or_create_global_step()
    weights = [kernel, bias]
    rest = [v for v in tf.trainable_variables() if v not in weights]
    train = tf.group(
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, step, var_list=weights),
        tf.train.AdagradOptimizer(0.1).minimize(loss, var_list=rest),
    )
    ema = tf.train.ExponentialMovingAverage(0.99)
    with tf.control_dependencies([train]):
        train = ema.apply(tf.trainable_variables())
    rng = np.random.RandomState(0)
    feed = {x: rng.randn(8, 12, 12, 3).astype(np.float32), labels: rng.randint(0, 10, 8)}
    return [train, loss], feed


@pytest.mark.parametrize("platform", ["cuda", "cpu"])
def test_a_gpu_step_has_no_loops(graph, platform):
    fetches, feed = _convnet_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        text = step_program(sess, fetches, feed, platform)
    if platform == "cuda":
        assert "stablehlo.while" not in text
    else:  # the same step on a CPU adds the bias's gradient rows in TF's order: a loop
        assert "stablehlo.while" in text
