"""Child of ``test_distribute.py``: runs with 4 virtual CPU devices.

Usage: ``python distribute_script.py``. Trains one TF1 model through
``MirroredStrategy().run`` in a ``MonitoredSession`` with and without
``tf.jax_data_parallel()`` and prints, as JSON, the strategy's replica count, the
local devices, the losses and the weights of both runs.
"""

from __future__ import annotations

import json

import jax
import numpy as np

from adapters import v1 as tf


def train(parallel: bool) -> tuple[int, list[float], list[list[float]]]:
    with tf.Graph().as_default():
        if parallel:
            tf.jax_data_parallel()
        strategy = tf.distribute.MirroredStrategy()
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 1])
        with strategy.scope():
            w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(0.3))
            opt = tf.train.AdamOptimizer(0.1)

            def step(a, b):
                loss = tf.reduce_mean(tf.square(tf.matmul(a, w) - b))
                with tf.control_dependencies([opt.minimize(loss)]):
                    return tf.identity(loss)

            loss = strategy.reduce("MEAN", strategy.run(step, args=(x, y)), axis=None)
        rs = np.random.RandomState(0)
        losses = []
        with tf.train.MonitoredSession() as sess:
            for _ in range(3):
                xs = rs.randn(8, 3).astype(np.float32)
                losses.append(float(sess.run(loss, {x: xs, y: xs[:, :1] * 2.0})))
            weights = sess.run(w).tolist()
        return strategy.num_replicas_in_sync, losses, weights


if __name__ == "__main__":
    replicas, losses, weights = train(False)
    _, parallel_losses, parallel_weights = train(True)
    print(
        json.dumps(
            {
                "devices": len(jax.local_devices()),
                "replicas": replicas,
                "losses": losses,
                "weights": weights,
                "parallel_losses": parallel_losses,
                "parallel_weights": parallel_weights,
            }
        )
    )
