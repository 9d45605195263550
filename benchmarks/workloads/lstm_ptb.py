"""PTB-style word LSTM: 2 layers of ``LSTMCell(200)`` through ``tf.nn.dynamic_rnn``
over 20 steps, batch 20, vocabulary 2,000, the final state carried to the next batch
(fed back, as TF's PTB tutorial does), gradient descent with ``clip_by_global_norm``."""

import numpy as np

from ._timing import timed

UNIT = "steps/s"
WARMUP = 20
BATCH, STEPS, HIDDEN, VOCAB, LAYERS = 20, 20, 200, 2000, 2


def run(tf, workdir: str, seconds: float) -> dict:
    rng = np.random.RandomState(0)
    words = rng.randint(0, VOCAB, (BATCH, 10 * STEPS + 1)).astype(np.int32)

    x = tf.placeholder(tf.int32, [BATCH, STEPS], name="inputs")
    y = tf.placeholder(tf.int32, [BATCH, STEPS], name="targets")
    init = tf.random_uniform_initializer(-0.1, 0.1, seed=1)
    with tf.variable_scope("model", initializer=init):
        embedding = tf.get_variable("embedding", [VOCAB, HIDDEN])
        inputs = tf.nn.embedding_lookup(embedding, x)
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.LSTMCell(HIDDEN, forget_bias=0.0) for _ in range(LAYERS)]
        )
        initial = cell.zero_state(BATCH, tf.float32)
        outputs, final = tf.nn.dynamic_rnn(cell, inputs, initial_state=initial)
        w = tf.get_variable("softmax_w", [HIDDEN, VOCAB])
        b = tf.get_variable("softmax_b", [VOCAB])
        logits = tf.matmul(tf.reshape(outputs, [-1, HIDDEN]), w) + b
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(y, [-1]), logits=logits
            )
        )
    params = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, params), 5.0)
    optimizer = tf.train.GradientDescentOptimizer(1.0)
    train_op = optimizer.apply_gradients(zip(grads, params, strict=True))
    flat_initial = [t for pair in initial for t in pair]
    flat_final = [t for pair in final for t in pair]

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        state = {"i": 0, "carry": sess.run(flat_initial)}

        def step():
            i = state["i"] % 10
            feed = {x: words[:, i * STEPS : (i + 1) * STEPS],
                    y: words[:, i * STEPS + 1 : (i + 1) * STEPS + 1]}  # fmt: skip
            if i == 0:
                state["carry"] = sess.run(flat_initial)
            feed.update(zip(flat_initial, state["carry"], strict=True))
            _, value, state["carry"] = sess.run([train_op, loss, flat_final], feed)
            state["i"] += 1
            return value

        return timed(step, WARMUP, seconds)
