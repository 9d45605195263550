"""MLP 784-128-32-10, batch 100, fed ``Session`` loop, ``Saver`` every 200 steps."""

import os

import numpy as np

from ._timing import timed

UNIT = "steps/s"
# 200 warm-up steps include the first save: like compilation, a one-time cost per
# process (jtrain's first .meta carries the step's computation, jax.export'ed: ~0.5 s
# against TF's ~20 ms; later saves ~12 ms against TF's 6-11 ms; BENCHMARKS.md), which a
# 2-second window would count as a third of the run.
WARMUP = 200
BATCH = 100
SIZES = (784, 128, 32, 10)


def run(tf, workdir: str, seconds: float) -> dict:
    rng = np.random.RandomState(0)
    images = rng.uniform(0, 1, (10 * BATCH, SIZES[0])).astype(np.float32)
    labels = rng.randint(0, SIZES[-1], 10 * BATCH).astype(np.int32)

    x = tf.placeholder(tf.float32, [None, SIZES[0]], name="images")
    y = tf.placeholder(tf.int32, [None], name="labels")
    h = x
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:], strict=True)):
        w0 = rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)).astype(np.float32)
        w = tf.get_variable(f"dense{i}/kernel", initializer=tf.constant(w0))
        b = tf.get_variable(f"dense{i}/bias", [n_out], initializer=tf.zeros_initializer())
        h = tf.matmul(h, w) + b
        if i < len(SIZES) - 2:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss, global_step=global_step)
    saver = tf.train.Saver(max_to_keep=2)
    prefix = os.path.join(workdir, "model.ckpt")

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        state = {"step": 0}

        def step():
            i = state["step"] % 10
            feed = {x: images[i * BATCH : (i + 1) * BATCH], y: labels[i * BATCH : (i + 1) * BATCH]}
            _, value = sess.run([train_op, loss], feed)
            state["step"] += 1
            if state["step"] % 200 == 0:
                saver.save(sess, prefix, global_step=state["step"])
            return value

        return timed(step, WARMUP, seconds)
