"""Skip-gram word2vec in the style of TF1's ``word2vec_basic.py``.

A synthetic Zipf-like corpus (fixed NumPy generator) gives skip-gram batches
(``num_skips`` context words for each center word within ``skip_window``); the center
words' embeddings (``tf.nn.embedding_lookup``) are scored by ``tf.nn.nce_loss``
against their context word and ``NUM_SAMPLED`` negative classes; plain SGD with a
global step trains; cosine similarities of a few validation words come from the
l2-normalised embeddings; a ``tf.train.Saver`` saves the model.

Comparable by construction: TF's and jtrain's samplers draw from the same log-uniform
distribution with different random numbers, so the negatives are drawn here in NumPy
(TF's sampler algorithm, ``floor(exp(u * log(V + 1))) - 1``, with repeats) and fed
through ``sampled_values``. Their expected counts (``P(k) * NUM_SAMPLED``, the
deterministic part of the sampler) come from ``tf.nn.log_uniform_candidate_sampler``
itself: its ``true_expected_count`` for the labels and, with the negatives as its true
classes, for the negatives; its own candidates are not used. Everything printed is
then a function of the data and the ops: losses (``LOSS``), the kind of each
gradient (``GRAD``: ``IndexedSlices`` for the three tables), the nearest words
(``NEAR``) and the checkpoint (``CKPT``).
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/word2vec_style", "Directory for the checkpoint.")
flags.DEFINE_integer("max_steps", 15, "Number of steps to train.")
flags.DEFINE_float("learning_rate", 1.0, "SGD's learning rate.")
FLAGS = flags.FLAGS

VOCAB = 50
EMBEDDING_SIZE = 8
BATCH = 16
NUM_SKIPS = 2
SKIP_WINDOW = 1
NUM_SAMPLED = 6
VALID_WORDS = np.array([1, 4, 9, 16], np.int32)


def corpus(size=2000):
    """Word ids with a Zipf-like frequency, id 0 the most frequent."""
    rng = np.random.RandomState(3)
    ranks = np.arange(1, VOCAB + 1, dtype=np.float64)
    p = (1.0 / ranks) / np.sum(1.0 / ranks)
    return rng.choice(VOCAB, size=size, p=p).astype(np.int32)


def skip_gram_batches(data):
    """word2vec_basic's generate_batch: center words and one context word each."""
    span = 2 * SKIP_WINDOW + 1
    rng = np.random.RandomState(5)
    index = 0
    while True:
        inputs = np.zeros(BATCH, np.int32)
        labels = np.zeros((BATCH, 1), np.int32)
        for i in range(BATCH // NUM_SKIPS):
            window = data[index:index + span]
            if len(window) < span:
                index = 0
                window = data[:span]
            context = [w for w in range(span) if w != SKIP_WINDOW]
            for j, w in enumerate(rng.choice(context, NUM_SKIPS, replace=False)):
                inputs[i * NUM_SKIPS + j] = window[SKIP_WINDOW]
                labels[i * NUM_SKIPS + j, 0] = window[w]
            index += 1
        yield inputs, labels


def negatives(rng):
    """NUM_SAMPLED log-uniform classes, with repeats (TF's sampler's algorithm)."""
    u = rng.uniform(size=NUM_SAMPLED)
    return (np.floor(np.exp(u * np.log1p(VOCAB))).astype(np.int64) - 1) % VOCAB


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    init = np.random.RandomState(7)
    with tf.Graph().as_default():
        train_inputs = tf.placeholder(tf.int32, [BATCH], name="train_inputs")
        train_labels = tf.placeholder(tf.int32, [BATCH, 1], name="train_labels")
        sampled = tf.placeholder(tf.int64, [NUM_SAMPLED], name="sampled")

        embeddings = tf.Variable(
            init.uniform(-1.0, 1.0, (VOCAB, EMBEDDING_SIZE)).astype(np.float32), name="embeddings"
        )
        embed = tf.nn.embedding_lookup(embeddings, train_inputs)
        nce_weights = tf.Variable(
            (init.normal(size=(VOCAB, EMBEDDING_SIZE)) / np.sqrt(EMBEDDING_SIZE)).astype(
                np.float32
            ),
            name="nce_weights",
        )
        nce_biases = tf.Variable(tf.zeros([VOCAB]), name="nce_biases")

        # the sampler's deterministic part: expected counts of given classes
        _, true_count, _ = tf.nn.log_uniform_candidate_sampler(
            tf.cast(train_labels, tf.int64), 1, NUM_SAMPLED, False, VOCAB
        )
        _, sampled_count, _ = tf.nn.log_uniform_candidate_sampler(
            tf.reshape(sampled, [-1, 1]), 1, NUM_SAMPLED, False, VOCAB
        )
        sampled_count = tf.reshape(sampled_count, [-1])

        loss = tf.reduce_mean(
            tf.nn.nce_loss(
                weights=nce_weights,
                biases=nce_biases,
                labels=train_labels,
                inputs=embed,
                num_sampled=NUM_SAMPLED,
                num_classes=VOCAB,
                sampled_values=(sampled, true_count, sampled_count),
            )
        )
        global_step = tf.train.get_or_create_global_step()
        optimizer = tf.train.GradientDescentOptimizer(FLAGS.learning_rate)
        grads_and_vars = optimizer.compute_gradients(loss)
        for grad, var in grads_and_vars:
            kind = "IndexedSlices" if isinstance(grad, tf.IndexedSlices) else "Tensor"
            print("GRAD %s %s" % (var.op.name, kind))
        train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)

        norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
        normalized_embeddings = embeddings / norm
        valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, VALID_WORDS)
        similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)

        saver = tf.train.Saver()
        batches = skip_gram_batches(corpus())
        rng = np.random.RandomState(11)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(FLAGS.max_steps):
                inputs, labels = next(batches)
                feed = {train_inputs: inputs, train_labels: labels, sampled: negatives(rng)}
                _, loss_value = sess.run([train_op, loss], feed_dict=feed)
                print("LOSS %d %r" % (step, float(loss_value)))
            sim = sess.run(similarity)
            for i, word in enumerate(VALID_WORDS):
                nearest = (-sim[i]).argsort()[1:4]
                print("NEAR %d %s" % (word, " ".join(str(int(n)) for n in nearest)))
            path = saver.save(
                sess, os.path.join(FLAGS.train_dir, "model.ckpt"), global_step=global_step
            )
            print("CKPT %s" % path)


if __name__ == "__main__":
    tf.app.run()
