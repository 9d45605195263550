"""Child of ``test_optimizers.py``: runs with 4 virtual CPU devices.

Usage: ``python keras_data_parallel_script.py OUT_FILE``. Trains a dense kernel and
an embedding (a sparse gradient) with Keras' Adam and SGD(momentum) through
``get_updates``, with and without ``tf.jax_data_parallel()``, and writes the weights
to ``OUT_FILE`` (npz).
"""

from __future__ import annotations

import sys

import numpy as np

from adapters import v1 as tf

ROWS, STEPS = 16, 3


def train(parallel: bool, make_opt) -> list[np.ndarray]:
    with tf.Graph().as_default():
        if parallel:
            tf.jax_data_parallel()
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        ids = tf.placeholder(tf.int32, [None], name="ids")
        w = tf.get_variable("w", initializer=np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2),
                            use_resource=True)  # fmt: skip
        e = tf.get_variable("e", initializer=np.linspace(0, 1, 10, dtype=np.float32).reshape(5, 2),
                            use_resource=True)  # fmt: skip
        out = tf.matmul(x, w) + tf.gather(e, ids)
        loss = tf.reduce_mean(tf.square(out - 1.0))
        updates = make_opt(tf).get_updates(loss, [w, e])
        r = np.random.RandomState(0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(STEPS):
                feed = {x: r.normal(size=(ROWS, 3)).astype(np.float32),
                        ids: r.randint(0, 5, ROWS).astype(np.int32)}  # fmt: skip
                sess.run(updates, feed)
            return sess.run([w, e])


OPTIMIZERS = {
    "adam": lambda tf: tf.keras.optimizers.Adam(0.1),
    "sgd": lambda tf: tf.keras.optimizers.SGD(0.1, momentum=0.9),
}

if __name__ == "__main__":
    arrays = {}
    for name, make in OPTIMIZERS.items():
        for parallel in (False, True):
            for i, value in enumerate(train(parallel, make)):
                arrays[f"{name}{4 if parallel else 1}_{i}"] = value
    np.savez(sys.argv[1], **arrays)
