"""A small encoder-decoder in the style of TF1's seq2seq tutorials (no attention).

The task: reverse a variable-length sequence of word ids. The encoder, a ``GRUCell``
run by ``tf.nn.dynamic_rnn`` with ``sequence_length`` from its
``zero_state(tf.shape(x)[0])``, hands its final state to the decoder, another
``GRUCell`` run by ``dynamic_rnn`` over the targets shifted right (teacher forcing).
Logits come from one ``tf.matmul`` on the outputs reshaped to ``[-1, units]`` and
back to ``[tf.shape(x)[0], -1, vocab]``; the loss is the
``sparse_softmax_cross_entropy_with_logits`` masked by ``tf.sequence_mask``,
``tf.reduce_sum(loss * mask) / tf.reduce_sum(mask)``; ``tf.gradients`` clipped by
``tf.clip_by_global_norm`` go to ``AdamOptimizer.apply_gradients`` with a global
step. Adam's ``epsilon`` is 0.1 (TF's docs suggest 0.1 or 1.0 over the default):
with ``1e-8`` Adam divides the rounding differences of gradient elements near 0 (a
few 1e-9 here, XLA and Eigen sum in other orders) by those elements' own size, and
the weights TF and jtrain save differ by 3e-6 after 20 steps. Token accuracy from
``tf.argmax``; at the end a greedy decoder unrolled by hand in
``tf.variable_scope("decoder", reuse=tf.AUTO_REUSE)`` feeds back its own
predictions. Variables start from a NumPy-seeded initializer (random initializers'
streams differ by design); the model is saved with a ``Saver``.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("model_dir", "/tmp/seq2seq_style", "Directory for the checkpoint.")
flags.DEFINE_integer("num_steps", 20, "Number of training steps.")
flags.DEFINE_float("learning_rate", 0.5, "Adam's learning rate.")
flags.DEFINE_float("adam_epsilon", 0.1, "Adam's epsilon (TF's docs suggest 0.1 or 1.0 over 1e-8).")
flags.DEFINE_float("max_gradient_norm", 1.0, "Clip gradients to this global norm.")
FLAGS = flags.FLAGS

PAD, GO, EOS = 0, 1, 2
VOCAB = 12
EMBED = 8
UNITS = 16
BATCH = 6
MIN_LEN, MAX_LEN = 2, 6


def make_batch(rng):
    """Source sequences (padded), their lengths, and the reversed targets with EOS."""
    lengths = rng.randint(MIN_LEN, MAX_LEN + 1, size=BATCH)
    source = np.full((BATCH, MAX_LEN), PAD, np.int32)
    decoder_in = np.full((BATCH, MAX_LEN + 1), PAD, np.int32)
    decoder_out = np.full((BATCH, MAX_LEN + 1), PAD, np.int32)
    for b, n in enumerate(lengths):
        words = rng.randint(3, VOCAB, size=n)
        source[b, :n] = words
        target = list(words[::-1]) + [EOS]
        decoder_in[b, : n + 1] = [GO] + target[:-1]
        decoder_out[b, : n + 1] = target
    return source, lengths.astype(np.int32), decoder_in, decoder_out, (lengths + 1).astype(np.int32)


def seeded_initializer(seed, scale=0.3):
    """Uniform values drawn by NumPy, so that every run starts from the same weights."""
    rng = np.random.RandomState(seed)

    def initializer(shape, dtype=None, partition_info=None):
        shape = [int(d) for d in shape]
        return tf.constant(rng.uniform(-scale, scale, size=shape).astype(np.float32))

    return initializer


class Seq2SeqModel:
    def __init__(self):
        self.encoder_inputs = tf.placeholder(tf.int32, [None, None], name="encoder_inputs")
        self.encoder_lengths = tf.placeholder(tf.int32, [None], name="encoder_lengths")
        self.decoder_inputs = tf.placeholder(tf.int32, [None, None], name="decoder_inputs")
        self.decoder_targets = tf.placeholder(tf.int32, [None, None], name="decoder_targets")
        self.decoder_lengths = tf.placeholder(tf.int32, [None], name="decoder_lengths")
        batch_size = tf.shape(self.encoder_inputs)[0]

        self.embedding = tf.get_variable("embedding", [VOCAB, EMBED], dtype=tf.float32)
        encoder_emb = tf.nn.embedding_lookup(self.embedding, self.encoder_inputs)
        decoder_emb = tf.nn.embedding_lookup(self.embedding, self.decoder_inputs)

        with tf.variable_scope("encoder"):
            encoder_cell = tf.nn.rnn_cell.GRUCell(UNITS)
            initial_state = encoder_cell.zero_state(batch_size, tf.float32)
            _, self.encoder_state = tf.nn.dynamic_rnn(
                encoder_cell, encoder_emb, sequence_length=self.encoder_lengths,
                initial_state=initial_state,
            )

        self.decoder_cell = tf.nn.rnn_cell.GRUCell(UNITS)
        with tf.variable_scope("decoder", reuse=tf.AUTO_REUSE):
            decoder_outputs, _ = tf.nn.dynamic_rnn(
                self.decoder_cell, decoder_emb, sequence_length=self.decoder_lengths,
                initial_state=self.encoder_state,
            )
        logits = self.project(decoder_outputs, batch_size)

        crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=self.decoder_targets, logits=logits
        )
        mask = tf.sequence_mask(
            self.decoder_lengths, tf.shape(self.decoder_targets)[1], dtype=tf.float32
        )
        self.loss = tf.reduce_sum(crossent * mask) / tf.reduce_sum(mask)

        predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
        correct = tf.cast(tf.equal(predictions, self.decoder_targets), tf.float32)
        self.accuracy = tf.reduce_sum(correct * mask) / tf.reduce_sum(mask)

        self.global_step = tf.train.get_or_create_global_step()
        params = tf.trainable_variables()
        gradients = tf.gradients(self.loss, params)
        clipped, self.gradient_norm = tf.clip_by_global_norm(gradients, FLAGS.max_gradient_norm)
        optimizer = tf.train.AdamOptimizer(FLAGS.learning_rate, epsilon=FLAGS.adam_epsilon)
        self.train_op = optimizer.apply_gradients(
            zip(clipped, params, strict=True), global_step=self.global_step
        )

        self.greedy_ids = self.greedy_decode(batch_size, MAX_LEN + 1)

    def project(self, outputs, batch_size):
        with tf.variable_scope("output_projection", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [UNITS, VOCAB])
            b = tf.get_variable("b", [VOCAB], initializer=tf.zeros_initializer())
        flat = tf.reshape(outputs, [-1, UNITS])
        return tf.reshape(tf.matmul(flat, w) + b, [batch_size, -1, VOCAB])

    def greedy_decode(self, batch_size, steps):
        """Feed the decoder its own predictions, one step at a time."""
        state = self.encoder_state
        ids = tf.fill([batch_size], GO)
        outputs = []
        for _ in range(steps):
            inputs = tf.nn.embedding_lookup(self.embedding, ids)
            with tf.variable_scope("decoder", reuse=tf.AUTO_REUSE):
                with tf.variable_scope("rnn"):
                    output, state = self.decoder_cell(inputs, state)
            logits = self.project(output, batch_size)
            ids = tf.argmax(tf.reshape(logits, [batch_size, VOCAB]), axis=1, output_type=tf.int32)
            outputs.append(ids)
        return tf.stack(outputs, axis=1)


def main(_):
    if tf.gfile.Exists(FLAGS.model_dir):
        tf.gfile.DeleteRecursively(FLAGS.model_dir)
    tf.gfile.MakeDirs(FLAGS.model_dir)
    with tf.Graph().as_default():
        with tf.variable_scope("seq2seq", initializer=seeded_initializer(42)):
            model = Seq2SeqModel()
        for v in tf.trainable_variables():
            print("VAR %s %s" % (v.op.name, v.get_shape().as_list()))
        saver = tf.train.Saver()
        rng = np.random.RandomState(5)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(FLAGS.num_steps):
                src, src_len, dec_in, dec_out, dec_len = make_batch(rng)
                feed = {
                    model.encoder_inputs: src,
                    model.encoder_lengths: src_len,
                    model.decoder_inputs: dec_in,
                    model.decoder_targets: dec_out,
                    model.decoder_lengths: dec_len,
                }
                _, loss, accuracy = sess.run([model.train_op, model.loss, model.accuracy], feed)
                print("LOSS %d %r" % (step, float(loss)))
                print("step %d accuracy %.4f" % (step, accuracy))

            src, src_len, dec_in, dec_out, dec_len = make_batch(np.random.RandomState(99))
            feed = {
                model.encoder_inputs: src,
                model.encoder_lengths: src_len,
                model.decoder_inputs: dec_in,
                model.decoder_targets: dec_out,
                model.decoder_lengths: dec_len,
            }
            accuracy, decoded = sess.run([model.accuracy, model.greedy_ids], feed)
            print("ACC %.4f" % accuracy)
            for row in decoded:
                print("DECODED %s" % " ".join(str(i) for i in row))
            print("STEP %d" % sess.run(model.global_step))
            path = saver.save(
                sess, os.path.join(FLAGS.model_dir, "model.ckpt"), global_step=model.global_step
            )
            print("CKPT %s" % path)


if __name__ == "__main__":
    tf.app.run()
