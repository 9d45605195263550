"""``tf.nn.raw_rnn`` (TF1's ``rnn.py``: the ``loop_fn`` protocol, emit ``TensorArray`` s,
``final_state``, ``final_loop_state``) checked live against TF 2.21 (``twin.py``) with an
``LSTMCell`` whose weights both sides assign (TF's and jtrain's random streams differ):
emits, states, loop states, dtypes, static shapes, gradients to the inputs and the
weights, and TF's errors.

Before, ``tf.nn.raw_rnn`` raised ``AttributeError`` under ``from adapters import v1 as
tf``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

T, B, D, H = 5, 3, 4, 6
_RNG = np.random.RandomState(1)
INPUTS = _RNG.randn(T, B, D).astype(np.float32)
KERNEL = (_RNG.randn(D + H, 4 * H) * 0.3).astype(np.float32)
BIAS = (_RNG.randn(4 * H) * 0.1).astype(np.float32)


def _lstm_raw_rnn(tf, lengths, emit_structure=None, with_loop_state=False, use_peep=False):
    inputs = tf.constant(INPUTS)
    sequence_length = tf.constant(np.asarray(lengths, np.int32))
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=T).unstack(inputs)
    cell = tf.nn.rnn_cell.LSTMCell(H)

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:  # time == 0
            next_state = cell.zero_state(B, tf.float32)
            emit = emit_structure
            next_loop = tf.zeros([B], tf.float32) if with_loop_state else None
        else:
            next_state = cell_state
            emit = cell_output if emit_structure is None else (cell_output, cell_output * 2.0)
            next_loop = loop_state + tf.reduce_sum(cell_output, 1) if with_loop_state else None
        finished = time >= sequence_length
        all_done = tf.reduce_all(finished)
        next_input = tf.cond(
            all_done, lambda: tf.zeros([B, D], tf.float32), lambda: inputs_ta.read(time)
        )
        return finished, next_input, next_state, emit, next_loop

    emit_ta, final_state, final_loop = tf.nn.raw_rnn(cell, loop_fn)
    return inputs, cell, emit_ta, final_state, final_loop


def _assign_weights(tf, cell):
    return [tf.assign(v, KERNEL if "kernel" in v.name else BIAS) for v in cell.trainable_variables]


def test_lstm_emits_states_and_gradients():
    def script(tf):
        inputs, cell, emit_ta, final_state, _ = _lstm_raw_rnn(tf, [T] * B)
        outputs = emit_ta.stack()
        loss = tf.reduce_sum(outputs * outputs) + tf.reduce_sum(final_state.c)
        weights = cell.trainable_variables
        grads = tf.gradients(loss, [inputs, *weights])
        assign = _assign_weights(tf, cell)
        info = [
            outputs.dtype.name,
            outputs.get_shape().as_list(),
            final_state.c.get_shape().as_list(),
            final_state.h.get_shape().as_list(),
            sorted(v.name for v in weights),
        ]

        def run(sess):
            sess.run(assign)
            return info, sess.run([outputs, final_state.c, final_state.h, grads])

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=2e-5, atol=1e-6)


def test_uneven_lengths_copy_state_through_and_zero_emits():
    """Entries finished early: emits zero and the state copied through (one entry runs
    the whole length, so the emit arrays are full)."""

    def script(tf):
        inputs, cell, emit_ta, final_state, _ = _lstm_raw_rnn(tf, [T, 2, 4])
        outputs = emit_ta.stack()
        grads = tf.gradients(tf.reduce_sum(final_state.h) + tf.reduce_sum(outputs), [inputs])
        assign = _assign_weights(tf, cell)

        def run(sess):
            sess.run(assign)
            return sess.run([outputs, tuple(final_state), grads])

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=2e-5, atol=1e-6)


def test_emit_structure_and_loop_state():
    def script(tf):
        emit = (tf.zeros([H], tf.float32), tf.zeros([H], tf.float32))
        _, cell, emit_ta, final_state, final_loop = _lstm_raw_rnn(
            tf, [T, 3, T], emit_structure=emit, with_loop_state=True
        )
        stacked = [ta.stack() for ta in emit_ta]
        assign = _assign_weights(tf, cell)
        info = [type(emit_ta).__name__, [s.get_shape().as_list() for s in stacked]]
        info.append(final_loop.get_shape().as_list())

        def run(sess):
            sess.run(assign)
            return info, sess.run([stacked, tuple(final_state), final_loop])

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=2e-5, atol=1e-6)


def test_no_loop_state_gives_none_and_bad_loop_fn_raises():
    def script(tf):
        _, _, _, _, final_loop = _lstm_raw_rnn(tf, [T] * B)
        cell = tf.nn.rnn_cell.LSTMCell(H)
        try:
            tf.nn.raw_rnn(cell, "not callable", scope="other")
        except TypeError as e:
            error = str(e)
        return lambda sess: (final_loop, error)

    theirs, ours = run_both(script)
    assert ours == theirs


def test_decoder_feeding_its_outputs_with_jtrains_bound():
    """A decoder whose loop_fn feeds the cell's output back (no input TensorArray): TF
    runs until every entry is finished; jtrain needs the bound as ``maximum_iterations``
    (its only addition to TF's call) and gives TF's emits, states and gradients."""
    from adapters import v1 as jtf

    def script(tf):
        start = tf.constant(np.tile(INPUTS[0], [1, 2])[:, :H])  # [B, H]: the cell's input size
        stop = tf.constant(np.array([4, 2, 3], np.int32))
        cell = tf.nn.rnn_cell.LSTMCell(H)

        def loop_fn(time, cell_output, cell_state, loop_state):
            if cell_output is None:
                state, emit, nxt = cell.zero_state(B, tf.float32), None, start
            else:
                state, emit, nxt = cell_state, cell_output, tf.tanh(cell_output)
            return time >= stop, nxt, state, emit, None

        extra = {"maximum_iterations": 4} if tf is jtf else {}
        emit_ta, final_state, _ = tf.nn.raw_rnn(cell, loop_fn, **extra)
        out = emit_ta.stack()
        grads = tf.gradients(tf.reduce_sum(out) + tf.reduce_sum(final_state.h), [start])
        kernel = np.concatenate([KERNEL, KERNEL[: H - D]])  # [2H, 4H]: input size H
        assign = [
            tf.assign(v, kernel if "kernel" in v.name else BIAS) for v in cell.trainable_variables
        ]

        def run(sess):
            sess.run(assign)
            return out.get_shape().as_list(), sess.run([out, tuple(final_state), grads])

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=2e-5, atol=1e-6)
