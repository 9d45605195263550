"""A character-level RNN language model in the style of ``char-rnn-tensorflow`` (2017).

A ``Model`` class built twice: for training (a ``MultiRNNCell`` of an ``LSTMCell`` and
a ``GRUCell``, each in a ``DropoutWrapper``, run by ``tf.nn.dynamic_rnn`` with
``sequence_length``; the embedded inputs through a ``tf.nn.dropout`` with TF's
stream under ``tf.set_random_seed``) and, in a new graph, for sampling (batch 1, one
step, no dropout) restored from the checkpoint that training wrote
(``tf.train.get_checkpoint_state``). Embeddings from
``tf.get_variable("embedding")`` + ``tf.nn.embedding_lookup``; logits from
``tf.layers.dense`` on the 3-D outputs; the loss is
``tf.losses.sparse_softmax_cross_entropy`` weighted by ``tf.sequence_mask``;
``tf.clip_by_global_norm`` of ``tf.gradients`` goes to ``AdamOptimizer`` on an
``exponential_decay`` learning rate. Training feeds each batch's final state as the
next batch's initial state (``feed[c] = state[i].c``); sampling feeds the state back
one character at a time and picks the argmax. All weights come from seeded TF
initializers under ``tf.set_random_seed``; Adam's ``epsilon`` is a flag (see
``seq2seq_style.py``).

``output_keep_prob`` is 1.0, char-rnn's default (the wrapper then draws nothing):
with masks drawn inside the loop TF's draw order follows its executor's scheduling
(with the default ``parallel_iterations=32`` not the steps' order), and
``tf.gradients`` of the loop in jtrain does not see the masks of the forward pass.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("save_dir", "/tmp/char_rnn_style", "Directory for checkpoints.")
flags.DEFINE_integer("num_epochs", 6, "Passes over the text.")
flags.DEFINE_integer("batch_size", 4, "Minibatch size.")
flags.DEFINE_integer("seq_length", 8, "RNN sequence length.")
flags.DEFINE_integer("rnn_size", 16, "Size of the RNN hidden state.")
flags.DEFINE_float("learning_rate", 0.05, "Initial learning rate.")
flags.DEFINE_float("decay_rate", 0.9, "Decay of the learning rate every epoch.")
flags.DEFINE_float("adam_epsilon", 0.001, "Adam's epsilon (see seq2seq_style.py).")
flags.DEFINE_float("grad_clip", 5.0, "Clip gradients at this global norm.")
flags.DEFINE_float("input_keep_prob", 0.9, "Probability of keeping an input embedding.")
flags.DEFINE_float("output_keep_prob", 1.0, "Probability of keeping an RNN output.")
FLAGS = flags.FLAGS

TEXT = (
    "the quick brown fox jumps over the lazy dog. "
    "a lazy dog sleeps under the brown tree. "
    "the fox runs to the tree and the dog follows. "
) * 2


class TextLoader:
    """Characters to ids, cut into ``num_batches`` batches of ``[batch, seq_length]``."""

    def __init__(self, text, batch_size, seq_length):
        self.chars = sorted(set(text))
        self.vocab = {c: i for i, c in enumerate(self.chars)}
        self.vocab_size = len(self.chars)
        data = np.array([self.vocab[c] for c in text], dtype=np.int32)
        self.num_batches = len(data) // (batch_size * seq_length)
        data = data[: self.num_batches * batch_size * seq_length + 1]
        xdata, ydata = data[:-1], data[1:]
        self.x_batches = np.split(xdata.reshape(batch_size, -1), self.num_batches, 1)
        self.y_batches = np.split(ydata.reshape(batch_size, -1), self.num_batches, 1)
        # the last sequence of a batch stops early (a document's end)
        self.lengths = np.full([batch_size], seq_length, dtype=np.int32)
        self.lengths[-1] = seq_length - 3
        self.pointer = 0

    def next_batch(self):
        x, y = self.x_batches[self.pointer], self.y_batches[self.pointer]
        self.pointer = (self.pointer + 1) % self.num_batches
        return x, y, self.lengths


class Model:
    def __init__(self, vocab_size, num_batches=1, training=True):
        batch_size = FLAGS.batch_size if training else 1
        seq_length = FLAGS.seq_length if training else 1
        cells = []
        for i, cell_fn in enumerate((tf.nn.rnn_cell.LSTMCell, tf.nn.rnn_cell.GRUCell)):
            cell = cell_fn(FLAGS.rnn_size)
            if training:
                cell = tf.nn.rnn_cell.DropoutWrapper(
                    cell, output_keep_prob=FLAGS.output_keep_prob, seed=10 + i
                )
            cells.append(cell)
        self.cell = cell = tf.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=True)

        self.input_data = tf.placeholder(tf.int32, [batch_size, seq_length], name="input")
        self.targets = tf.placeholder(tf.int32, [batch_size, seq_length], name="targets")
        self.lengths = tf.placeholder_with_default(
            tf.fill([batch_size], seq_length), [batch_size], name="lengths"
        )
        self.initial_state = cell.zero_state(batch_size, tf.float32)

        with tf.variable_scope("rnnlm", initializer=tf.random_uniform_initializer(-0.2, 0.2)):
            embedding = tf.get_variable("embedding", [vocab_size, FLAGS.rnn_size])
            inputs = tf.nn.embedding_lookup(embedding, self.input_data)
            if training and FLAGS.input_keep_prob < 1.0:
                inputs = tf.nn.dropout(inputs, FLAGS.input_keep_prob)
            outputs, self.final_state = tf.nn.dynamic_rnn(
                cell, inputs, sequence_length=self.lengths, initial_state=self.initial_state,
                scope="rnn",
            )
            self.logits = tf.layers.dense(
                outputs, vocab_size, name="softmax",
                kernel_initializer=tf.glorot_uniform_initializer(seed=1),
            )
        self.probs = tf.nn.softmax(self.logits)
        weights = tf.sequence_mask(self.lengths, seq_length, dtype=tf.float32)
        self.cost = tf.losses.sparse_softmax_cross_entropy(
            self.targets, self.logits, weights=weights
        )
        if not training:
            return

        self.global_step = tf.train.get_or_create_global_step()
        self.lr = tf.train.exponential_decay(
            FLAGS.learning_rate, self.global_step, decay_steps=num_batches,
            decay_rate=FLAGS.decay_rate, staircase=True,
        )
        tvars = tf.trainable_variables()
        grads, self.global_norm = tf.clip_by_global_norm(
            tf.gradients(self.cost, tvars), FLAGS.grad_clip
        )
        optimizer = tf.train.AdamOptimizer(self.lr, epsilon=FLAGS.adam_epsilon)
        self.train_op = optimizer.apply_gradients(
            zip(grads, tvars, strict=True), global_step=self.global_step
        )


def state_feed(initial_state, state):
    feed = {}
    for i, layer in enumerate(initial_state):
        if isinstance(layer, tf.nn.rnn_cell.LSTMStateTuple):
            feed[layer.c] = state[i].c
            feed[layer.h] = state[i].h
        else:
            feed[layer] = state[i]
    return feed


def train(loader):
    with tf.Graph().as_default():
        tf.set_random_seed(1234)
        model = Model(loader.vocab_size, loader.num_batches, training=True)
        print("VARS %s" % " ".join(v.op.name for v in tf.global_variables()))
        saver = tf.train.Saver(tf.global_variables(), max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            step = 0
            for epoch in range(FLAGS.num_epochs):
                loader.pointer = 0
                state = sess.run(model.initial_state)
                for _ in range(loader.num_batches):
                    x, y, lengths = loader.next_batch()
                    feed = {model.input_data: x, model.targets: y, model.lengths: lengths}
                    feed.update(state_feed(model.initial_state, state))
                    loss, state, _ = sess.run(
                        [model.cost, model.final_state, model.train_op], feed
                    )
                    print("LOSS %d %r" % (step, float(loss)))
                    step += 1
                print("LR %d %.6f" % (epoch, sess.run(model.lr)))
                path = saver.save(
                    sess, os.path.join(FLAGS.save_dir, "model.ckpt"),
                    global_step=model.global_step,
                )
            print("CKPT %s" % path)


def sample(loader, prime="the ", num=40):
    with tf.Graph().as_default():
        model = Model(loader.vocab_size, training=False)
        with tf.Session() as sess:
            saver = tf.train.Saver(tf.global_variables())
            ckpt = tf.train.get_checkpoint_state(FLAGS.save_dir)
            saver.restore(sess, ckpt.model_checkpoint_path)
            print("RESTORED %s" % os.path.basename(ckpt.model_checkpoint_path))
            print("KEPT %d" % len(ckpt.all_model_checkpoint_paths))
            state = sess.run(model.cell.zero_state(1, tf.float32))
            for char in prime[:-1]:
                x = np.array([[loader.vocab[char]]], dtype=np.int32)
                feed = {model.input_data: x}
                feed.update(state_feed(model.initial_state, state))
                state = sess.run(model.final_state, feed)
            text, char = prime, prime[-1]
            for _ in range(num):
                x = np.array([[loader.vocab[char]]], dtype=np.int32)
                feed = {model.input_data: x}
                feed.update(state_feed(model.initial_state, state))
                probs, state = sess.run([model.probs, model.final_state], feed)
                char = loader.chars[int(np.argmax(probs[0, 0]))]
                text += char
            print("SAMPLE %s" % text.replace(" ", "_"))


def main(_):
    if tf.gfile.Exists(FLAGS.save_dir):
        tf.gfile.DeleteRecursively(FLAGS.save_dir)
    tf.gfile.MakeDirs(FLAGS.save_dir)
    loader = TextLoader(TEXT, FLAGS.batch_size, FLAGS.seq_length)
    train(loader)
    sample(loader)


if __name__ == "__main__":
    tf.app.run()
