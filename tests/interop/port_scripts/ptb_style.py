"""A word-level LSTM language model in the style of TF1's ``ptb_word_lm.py`` tutorial.

The tutorial's pieces, on a small synthetic corpus instead of PTB: ``ptb_iterator``
batches fed to ``tf.placeholder``s (the tutorial's first reader), a ``PTBModel`` class
built three times in one graph (train, valid with ``reuse=True``, test with batch size
and num_steps 1) under a ``tf.random_uniform_initializer`` variable scope,
``tf.get_variable("embedding")`` + ``tf.nn.embedding_lookup``, a two-layer
``MultiRNNCell`` of ``BasicLSTMCell``s with ``forget_bias=0.0`` inside
``DropoutWrapper``s (``output_keep_prob`` 1.0 in eval), unrolled by hand with
``tf.get_variable_scope().reuse_variables()``, the per-word loss from
``tf.nn.sparse_softmax_cross_entropy_with_logits`` reshaped to ``[batch, steps]``,
``tf.clip_by_global_norm`` of ``tf.gradients``, ``GradientDescentOptimizer`` on a
non-trainable learning-rate variable assigned through a placeholder each epoch
(``lr_decay``), and ``run_epoch`` feeding the final LSTM state of one batch as the
initial state of the next (``feed_dict[c] = state[i].c``). Every cost run prints a
``LOSS`` line (train, valid and test, numbered in order). The trained weights start
from NumPy values loaded into the variables (random initializers' streams differ by
design); the model is saved with a ``Saver``.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os
import time

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("save_path", "/tmp/ptb_style", "Model output directory.")
flags.DEFINE_integer("max_max_epoch", 3, "Number of epochs to train.")
flags.DEFINE_float("keep_prob", 1.0, "Dropout keep probability while training.")
FLAGS = flags.FLAGS


class SmallConfig:
    """Small config (the tutorial's, shrunk)."""

    init_scale = 0.1
    learning_rate = 1.0
    max_grad_norm = 5
    num_layers = 2
    num_steps = 5
    hidden_size = 12
    max_epoch = 1
    lr_decay = 0.5
    batch_size = 4
    vocab_size = 24


def synthetic_corpus(n_words, seed):
    """Word ids from a fixed sparse Markov chain, so that there is something to learn."""
    rng = np.random.RandomState(0)
    vocab = SmallConfig.vocab_size
    successors = rng.randint(0, vocab, size=(vocab, 3))
    rng = np.random.RandomState(seed)
    words = [int(rng.randint(vocab))]
    for _ in range(n_words - 1):
        words.append(int(successors[words[-1], rng.randint(3)]))
    return words


def ptb_iterator(raw_data, batch_size, num_steps):
    """Iterate on the raw data (the tutorial's ``reader.ptb_iterator``).

    Yields pairs of batched data, the second element of which is the first shifted
    to the right by one.
    """
    raw_data = np.array(raw_data, dtype=np.int32)

    data_len = len(raw_data)
    batch_len = data_len // batch_size
    data = np.zeros([batch_size, batch_len], dtype=np.int32)
    for i in range(batch_size):
        data[i] = raw_data[batch_len * i : batch_len * (i + 1)]

    epoch_size = (batch_len - 1) // num_steps

    if epoch_size == 0:
        raise ValueError("epoch_size == 0, decrease batch_size or num_steps")

    for i in range(epoch_size):
        x = data[:, i * num_steps : (i + 1) * num_steps]
        y = data[:, i * num_steps + 1 : (i + 1) * num_steps + 1]
        yield (x, y)


class PTBInput:
    """The input data: placeholders fed by ``ptb_iterator``."""

    def __init__(self, config, data, name=None):
        self.batch_size = batch_size = config.batch_size
        self.num_steps = num_steps = config.num_steps
        self.epoch_size = ((len(data) // batch_size) - 1) // num_steps
        self.data = data
        with tf.name_scope(name, "PTBInput"):
            self.input_data = tf.placeholder(tf.int32, [batch_size, num_steps], name="inputs")
            self.targets = tf.placeholder(tf.int32, [batch_size, num_steps], name="targets")


class PTBModel:
    """The PTB model."""

    def __init__(self, is_training, config, input_):
        self._is_training = is_training
        self._input = input_
        self.batch_size = input_.batch_size
        self.num_steps = input_.num_steps
        size = config.hidden_size
        vocab_size = config.vocab_size

        with tf.device("/cpu:0"):
            embedding = tf.get_variable("embedding", [vocab_size, size], dtype=tf.float32)
            inputs = tf.nn.embedding_lookup(embedding, input_.input_data)

        if is_training and FLAGS.keep_prob < 1:
            inputs = tf.nn.dropout(inputs, FLAGS.keep_prob)

        output, state = self._build_rnn_graph(inputs, config, is_training)

        softmax_w = tf.get_variable("softmax_w", [size, vocab_size], dtype=tf.float32)
        softmax_b = tf.get_variable("softmax_b", [vocab_size], dtype=tf.float32)
        logits = tf.nn.xw_plus_b(output, softmax_w, softmax_b)
        # Reshape logits to be a 3-D tensor for the sequence loss
        logits = tf.reshape(logits, [self.batch_size, self.num_steps, vocab_size])

        # The sequence loss, averaged over the batch and summed over the time steps
        crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(input_.targets, [-1]), logits=tf.reshape(logits, [-1, vocab_size])
        )
        loss = tf.reduce_mean(tf.reshape(crossent, [self.batch_size, self.num_steps]), axis=0)

        self._cost = tf.reduce_sum(loss)
        self._final_state = state

        if not is_training:
            return

        self._lr = tf.Variable(0.0, trainable=False)
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(self._cost, tvars), config.max_grad_norm)
        optimizer = tf.train.GradientDescentOptimizer(self._lr)
        self._train_op = optimizer.apply_gradients(
            zip(grads, tvars, strict=True), global_step=tf.train.get_or_create_global_step()
        )

        self._new_lr = tf.placeholder(tf.float32, shape=[], name="new_learning_rate")
        self._lr_update = tf.assign(self._lr, self._new_lr)

    def _get_lstm_cell(self, config, is_training):
        return tf.nn.rnn_cell.BasicLSTMCell(
            config.hidden_size, forget_bias=0.0, state_is_tuple=True, reuse=not is_training
        )

    def _build_rnn_graph(self, inputs, config, is_training):
        """Build the inference graph using canonical LSTM cells, unrolled by hand."""

        def make_cell():
            cell = self._get_lstm_cell(config, is_training)
            return tf.nn.rnn_cell.DropoutWrapper(
                cell, output_keep_prob=FLAGS.keep_prob if is_training else 1.0
            )

        cell = tf.nn.rnn_cell.MultiRNNCell(
            [make_cell() for _ in range(config.num_layers)], state_is_tuple=True
        )

        self._initial_state = cell.zero_state(self.batch_size, tf.float32)
        state = self._initial_state
        outputs = []
        with tf.variable_scope("RNN"):
            for time_step in range(self.num_steps):
                if time_step > 0:
                    tf.get_variable_scope().reuse_variables()
                (cell_output, state) = cell(inputs[:, time_step, :], state)
                outputs.append(cell_output)
        output = tf.reshape(tf.concat(outputs, 1), [-1, config.hidden_size])
        return output, state

    def assign_lr(self, session, lr_value):
        session.run(self._lr_update, feed_dict={self._new_lr: lr_value})

    @property
    def input(self):
        return self._input

    @property
    def initial_state(self):
        return self._initial_state

    @property
    def cost(self):
        return self._cost

    @property
    def final_state(self):
        return self._final_state

    @property
    def lr(self):
        return self._lr

    @property
    def train_op(self):
        return self._train_op


LOSS_LINES = [0]


def run_epoch(session, model, eval_op=None, verbose=False):
    """Runs the model on the given data."""
    start_time = time.time()
    costs = 0.0
    iters = 0
    state = session.run(model.initial_state)

    fetches = {
        "cost": model.cost,
        "final_state": model.final_state,
    }
    if eval_op is not None:
        fetches["eval_op"] = eval_op

    batches = ptb_iterator(model.input.data, model.input.batch_size, model.input.num_steps)
    for step, (x, y) in enumerate(batches):
        feed_dict = {model.input.input_data: x, model.input.targets: y}
        for i, (c, h) in enumerate(model.initial_state):
            feed_dict[c] = state[i].c
            feed_dict[h] = state[i].h

        vals = session.run(fetches, feed_dict)
        cost = vals["cost"]
        state = vals["final_state"]

        costs += cost
        iters += model.input.num_steps
        print("LOSS %d %r" % (LOSS_LINES[0], float(cost)))
        LOSS_LINES[0] += 1

        if verbose:
            print(
                "%.3f perplexity: %.3f speed: %.0f wps"
                % (
                    step * 1.0 / model.input.epoch_size,
                    np.exp(costs / iters),
                    iters * model.input.batch_size / (time.time() - start_time),
                )
            )

    return np.exp(costs / iters)


def main(_):
    config = SmallConfig()
    eval_config = SmallConfig()
    eval_config.batch_size = 1
    eval_config.num_steps = 1

    train_data = synthetic_corpus(config.batch_size * 4 * config.num_steps + 4, seed=1)
    valid_data = synthetic_corpus(config.batch_size * 2 * config.num_steps + 4, seed=2)
    test_data = synthetic_corpus(8, seed=3)

    with tf.Graph().as_default():
        initializer = tf.random_uniform_initializer(-config.init_scale, config.init_scale, seed=1)

        with tf.name_scope("Train"):
            train_input = PTBInput(config=config, data=train_data, name="TrainInput")
            with tf.variable_scope("Model", reuse=None, initializer=initializer):
                m = PTBModel(is_training=True, config=config, input_=train_input)

        with tf.name_scope("Valid"):
            valid_input = PTBInput(config=config, data=valid_data, name="ValidInput")
            with tf.variable_scope("Model", reuse=True, initializer=initializer):
                mvalid = PTBModel(is_training=False, config=config, input_=valid_input)

        with tf.name_scope("Test"):
            test_input = PTBInput(config=eval_config, data=test_data, name="TestInput")
            with tf.variable_scope("Model", reuse=True, initializer=initializer):
                mtest = PTBModel(is_training=False, config=eval_config, input_=test_input)

        for v in tf.trainable_variables():
            print("VAR %s %s" % (v.op.name, v.get_shape().as_list()))

        saver = tf.train.Saver()
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            # Start from the same weights on every machine: NumPy draws from init_scale.
            rng = np.random.RandomState(1234)
            for v in tf.trainable_variables():
                shape = v.get_shape().as_list()
                v.load(rng.uniform(-config.init_scale, config.init_scale, shape), session)

            for i in range(FLAGS.max_max_epoch):
                lr_decay = config.lr_decay ** max(i + 1 - config.max_epoch, 0.0)
                m.assign_lr(session, config.learning_rate * lr_decay)

                print("Epoch: %d Learning rate: %.3f" % (i + 1, session.run(m.lr)))
                train_perplexity = run_epoch(session, m, eval_op=m.train_op, verbose=True)
                print("Epoch: %d Train Perplexity: %.3f" % (i + 1, train_perplexity))
                valid_perplexity = run_epoch(session, mvalid)
                print("Epoch: %d Valid Perplexity: %.3f" % (i + 1, valid_perplexity))

            test_perplexity = run_epoch(session, mtest)
            print("Test Perplexity: %.3f" % test_perplexity)
            print("STEP %d" % session.run(tf.train.get_global_step()))

            if FLAGS.save_path:
                print("Saving model to %s." % FLAGS.save_path)
                path = saver.save(
                    session,
                    os.path.join(FLAGS.save_path, "model.ckpt"),
                    global_step=tf.train.get_global_step(),
                )
                print("CKPT %s" % path)


if __name__ == "__main__":
    tf.app.run()
