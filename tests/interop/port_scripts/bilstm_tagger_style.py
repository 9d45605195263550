"""A BiLSTM sequence tagger in the style of TF1 NER / POS-tagging repos (2017-2018).

Word ids padded per batch with their lengths, ``tf.nn.embedding_lookup``, a
``tf.nn.bidirectional_dynamic_rnn`` of two ``LSTMCell``s with ``sequence_length``, the
two outputs ``tf.concat``-ed, a projection through ``tf.get_variable`` weights on the
outputs reshaped to ``[-1, 2 * hidden]``, the per-token
``sparse_softmax_cross_entropy_with_logits`` weighted by a float ``tf.sequence_mask``,
``RMSPropOptimizer`` with a global step. Inference the way such
repos serve a model: the model code builds a new graph, ``Saver.restore``, and
``sess.run`` of tensors fetched by name (``get_tensor_by_name("predictions:0")``).
Weights from seeded TF initializers. (``tf.train.import_meta_graph`` of jtrain's
``.meta`` instead fails: its ``dynamic_rnn`` loop over unknown batch and time
dimensions does not reload.)

The mask is ``tf.sequence_mask(lengths, maxlen=nsteps)`` multiplied in, as many such
repos write it: jtrain refuses ``tf.sequence_mask(lengths)`` (no ``maxlen``) of fed
lengths and ``tf.boolean_mask`` by such a mask (shapes that depend on the data).
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/bilstm_tagger_style", "Directory for the checkpoint.")
flags.DEFINE_integer("max_steps", 15, "Number of training steps.")
flags.DEFINE_integer("batch_size", 6, "Batch size.")
FLAGS = flags.FLAGS

VOCAB = 20
TAGS = 4
EMBED = 8
HIDDEN = 8


def batch(rng):
    """Tag of a word: its id mod 4, except after word 0, where it is 0."""
    lengths = rng.randint(2, 8, size=FLAGS.batch_size)
    words = np.zeros((FLAGS.batch_size, lengths.max()), np.int32)
    tags = np.zeros_like(words)
    for b, n in enumerate(lengths):
        words[b, :n] = rng.randint(0, VOCAB, size=n)
        tags[b, :n] = words[b, :n] % TAGS
        tags[b, 1:n][words[b, : n - 1] == 0] = 0
    return words, tags, lengths.astype(np.int32)


def build():
    words = tf.placeholder(tf.int32, [None, None], name="word_ids")
    tags = tf.placeholder(tf.int32, [None, None], name="tags")
    lengths = tf.placeholder(tf.int32, [None], name="sequence_lengths")
    with tf.variable_scope("words"):
        embeddings = tf.get_variable(
            "embeddings", [VOCAB, EMBED], initializer=tf.random_uniform_initializer(-0.5, 0.5)
        )
        embedded = tf.nn.embedding_lookup(embeddings, words, name="word_embeddings")
    with tf.variable_scope("bi-lstm", initializer=tf.glorot_uniform_initializer()):
        cell_fw = tf.nn.rnn_cell.LSTMCell(HIDDEN)
        cell_bw = tf.nn.rnn_cell.LSTMCell(HIDDEN)
        (output_fw, output_bw), _ = tf.nn.bidirectional_dynamic_rnn(
            cell_fw, cell_bw, embedded, sequence_length=lengths, dtype=tf.float32
        )
        output = tf.concat([output_fw, output_bw], axis=-1)
    with tf.variable_scope("proj"):
        w = tf.get_variable("W", [2 * HIDDEN, TAGS], initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable("b", [TAGS], initializer=tf.zeros_initializer())
        nsteps = tf.shape(output)[1]
        flat = tf.reshape(output, [-1, 2 * HIDDEN])
        logits = tf.reshape(tf.matmul(flat, w) + b, [-1, nsteps, TAGS], name="logits")
    predictions = tf.cast(tf.argmax(logits, axis=-1), tf.int32, name="predictions")
    losses = tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits, labels=tags)
    mask = tf.sequence_mask(lengths, maxlen=nsteps, dtype=tf.float32)
    loss = tf.divide(tf.reduce_sum(losses * mask), tf.reduce_sum(mask), name="loss")
    correct = tf.cast(tf.equal(predictions, tags), tf.float32) * mask
    accuracy = tf.divide(tf.reduce_sum(correct), tf.reduce_sum(mask), name="accuracy")
    return words, tags, lengths, loss, accuracy


def train():
    rng = np.random.RandomState(17)
    with tf.Graph().as_default():
        tf.set_random_seed(99)
        words, tags, lengths, loss, accuracy = build()
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.RMSPropOptimizer(0.02).minimize(loss, global_step=global_step)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(FLAGS.max_steps):
                w, t, n = batch(rng)
                _, loss_value = sess.run([train_op, loss], {words: w, tags: t, lengths: n})
                print("LOSS %d %r" % (step, float(loss_value)))
            path = saver.save(sess, os.path.join(FLAGS.train_dir, "tagger"), global_step)
            print("CKPT %s" % path)
    return path


def serve(path):
    rng = np.random.RandomState(5)
    w, t, n = batch(rng)
    with tf.Graph().as_default() as graph:
        build()
        tf.train.get_or_create_global_step()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, path)
            feed = {
                graph.get_tensor_by_name("word_ids:0"): w,
                graph.get_tensor_by_name("sequence_lengths:0"): n,
                graph.get_tensor_by_name("tags:0"): t,
            }
            predictions, accuracy = sess.run(
                [graph.get_tensor_by_name("predictions:0"), "accuracy:0"], feed
            )
            for b in range(len(n)):
                print("TAGGED %s" % " ".join(map(str, predictions[b, : n[b]])))
            print("ACC %.4f" % accuracy)
            print("STEP %d" % sess.run(tf.train.get_global_step(graph)))


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    serve(train())


if __name__ == "__main__":
    tf.app.run()
