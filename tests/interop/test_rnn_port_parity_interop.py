"""What TF1 language-model and seq2seq scripts (``ptb_word_lm.py``'s style) use,
run under TF 2.21's ``compat.v1`` and under ``adapters.v1``: the same values.

Each test is a crash or difference found porting ``tests/interop/port_scripts``'s
``ptb_style.py``/``seq2seq_style.py``, reduced to the construct that caused it.
"""

from __future__ import annotations

import numpy as np

from tests.interop.twin import assert_twins, run_both


def test_range_input_producer_of_a_tensor_limit():
    """``ptb_producer``'s ``range_input_producer(epoch_size)``: the limit a scalar tensor
    computed in the graph (``(tf.size(data) // batch - 1) // steps``), as TF's
    ``tf.range(limit)``; jtrain raised ValueError at graph build."""

    def script(tf):
        raw = tf.convert_to_tensor(np.arange(47), dtype=tf.int32)
        epoch_size = (tf.size(raw) // 4 - 1) // 3
        with tf.control_dependencies([tf.assert_positive(epoch_size)]):
            epoch_size = tf.identity(epoch_size, name="epoch_size")
        i = tf.train.range_input_producer(epoch_size, num_epochs=2, shuffle=False).dequeue()

        def run(sess):
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            values = [sess.run(i) for _ in range(6)]
            try:
                sess.run(i)
                ended = False
            except tf.errors.OutOfRangeError:
                ended = True
            coord.request_stop()
            coord.join(threads)
            return values, np.asarray(ended), i.shape.as_list()

        return run

    theirs, ours = run_both(script)
    assert theirs[0] == [0, 1, 2, 0, 1, 2] and bool(theirs[1])
    assert_twins(theirs, ours)


def test_variational_recurrent_dropout_wrapper():
    """``DropoutWrapper(variational_recurrent=True)`` (the PTB model's variational
    dropout): at keep probability 1 the outputs and gradients of TF's; at 0.5 one mask
    per run, the same for every batch row and every step, and ``value / keep_prob``
    where kept (the masks' values differ, as every random op's). jtrain raised
    NotImplementedError."""
    x = np.random.RandomState(0).normal(size=(3, 4, 5)).astype(np.float32)

    def script(tf):
        tf.set_random_seed(3)

        def cell(keep):
            lstm = tf.nn.rnn_cell.LSTMCell(
                6, initializer=tf.constant_initializer(0.1), forget_bias=0.0
            )
            return tf.nn.rnn_cell.DropoutWrapper(
                lstm, input_keep_prob=keep, output_keep_prob=keep, state_keep_prob=keep,
                variational_recurrent=True, input_size=5, dtype=tf.float32, seed=7,
            )  # fmt: skip

        with tf.variable_scope("kept"):
            kept, state = tf.nn.dynamic_rnn(cell(1.0), tf.constant(x), dtype=tf.float32)
        grads = tf.gradients(tf.reduce_sum(kept**2), tf.trainable_variables())
        with tf.variable_scope("dropped"):
            inner = tf.nn.rnn_cell.MultiRNNCell([cell(0.5)])
            ones = tf.ones([3, 4, 5])
            dropped, _ = tf.nn.dynamic_rnn(inner, ones, dtype=tf.float32)

        def run(sess):
            k, s, g, d = sess.run([kept, state, grads, dropped])
            zero = d == 0
            shared = bool(np.all(zero == zero[:1, :1]))  # every row, every step
            return k, s.c, s.h, g, np.asarray(shared), np.asarray(zero.any() and not zero.all())

        return run

    theirs, ours = run_both(script)
    assert bool(theirs[4]) and bool(theirs[5])
    assert_twins(theirs, ours, rtol=1e-5, atol=1e-7)


def test_kernel_gradients_after_the_loop_match_tf():
    """An LSTM and a GRU whose products TF's order does not cover (batch 8, 40 units:
    ``[8, 56] @ [56, 160]``), batch known and unknown, with sequence lengths: the
    kernels' gradients, one product over every step after the loop in jtrain
    (``rnn_products``), are TF's per-step sum within float32 rounding, and so are the
    outputs, states and other gradients."""
    rng = np.random.RandomState(4)
    x = rng.normal(size=(8, 6, 16)).astype(np.float32)
    lengths = rng.randint(1, 7, 8).astype(np.int32)

    def script(tf):
        init = tf.random_uniform_initializer(-0.3, 0.3, seed=2)
        inputs = tf.placeholder(tf.float32, [None, 6, 16])
        runs = []
        for name, cell, batch in [
            ("lstm", lambda: tf.nn.rnn_cell.LSTMCell(40, initializer=init), x),
            ("gru", lambda: tf.nn.rnn_cell.GRUCell(40, kernel_initializer=init), x),
            ("lstm_unknown", lambda: tf.nn.rnn_cell.LSTMCell(40, initializer=init), inputs),
        ]:
            with tf.variable_scope(name):
                seq = tf.constant(batch) if batch is x else batch
                out, state = tf.nn.dynamic_rnn(
                    cell(), seq, sequence_length=tf.constant(lengths), dtype=tf.float32
                )
                loss = tf.reduce_sum(tf.square(out)) + sum(
                    tf.reduce_sum(s) for s in tf.nest.flatten(state)
                )
                variables = tf.trainable_variables(scope=name)
                runs.append([loss, out, tf.gradients(loss, variables)])

        def run(sess):
            return sess.run(runs, {inputs: x})

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-5, atol=1e-6)
