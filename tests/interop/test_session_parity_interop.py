"""``Session.run`` feeds that differed from TF 2.21's, checked live (``twin.py``).

A ``feed_dict`` key may be a tuple of tensors (an ``LSTMStateTuple``, the state a
PTB-style loop feeds back each step), fed the value at the same place; a fetched
tensor that is fed gives its fed value without its inputs being fed.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1

ONES = np.ones(2, np.float32)


def _state_tuple(tf):
    a = tf.placeholder(tf.float32, [2])
    b = tf.placeholder(tf.float32, [2])
    state = tf.nn.rnn_cell.LSTMStateTuple(a, b)
    value = tf.nn.rnn_cell.LSTMStateTuple(ONES, ONES * 2.0)
    return lambda sess: sess.run(a - b, {state: value})


def _lstm_state_fed_back(tf):
    cell = tf.nn.rnn_cell.LSTMCell(3, initializer=tf.constant_initializer(0.1))
    init = cell.zero_state(2, tf.float32)
    inputs = tf.constant(np.linspace(-1.0, 1.0, 40, dtype=np.float32).reshape(2, 4, 5))
    out, final = tf.nn.dynamic_rnn(cell, inputs, initial_state=init)

    def run(sess):
        state = sess.run(init)
        outs = []
        for _ in range(3):
            o, state = sess.run([out, final], {init: state})
            outs.append(o)
        return outs, tuple(state)

    return run


def _nested_keys(tf):
    a = tf.placeholder(tf.float32, [2])
    b = tf.placeholder(tf.float32, [2])
    c = tf.placeholder(tf.float32, [])
    return lambda sess: [
        sess.run(a + b, {(a, b): [ONES, ONES * 3.0]}),
        sess.run(a * b + c, {((a, b), c): ((ONES, ONES * 2.0), 3.0)}),
        sess.run(a - b, {(a, (b,)): (ONES, ONES * 5.0)}),
    ]


def _fetching_what_is_fed(tf):
    x = tf.placeholder(tf.float32, [2])
    y = x * 2.0
    v = tf.Variable([1.0, 2.0])
    z = v * 3.0
    return lambda sess: [
        sess.run(y, {y: [5.0, 5.0]}),
        sess.run([y, y + 1.0], {y: [5.0, 6.0]}),
        sess.run(z, {z: [0.0, 1.0]}),
        sess.run(y, {x: [1.0, 2.0]}),
    ]


CASES = {
    "an LSTMStateTuple key": _state_tuple,
    "an LSTM's state fed back": _lstm_state_fed_back,
    "tuple keys, nested": _nested_keys,
    "fetching a fed tensor": _fetching_what_is_fed,
}


@pytest.mark.parametrize("case", list(CASES))
def test_feeds_as_tf(case):
    assert_twins(*run_both(CASES[case]), rtol=1e-6)


BAD_FEEDS = {
    "a tuple key, one value": lambda a, b: {(a, b): ONES},
    "a tuple key, too few values": lambda a, b: {(a, b): (ONES,)},
    "a tensor fed twice": lambda a, b: {(a, b): (ONES, ONES), a: ONES},
}


@pytest.mark.parametrize("case", list(BAD_FEEDS))
def test_bad_tuple_feeds_raise_tfs_error(case):
    errors = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else jtf.Graph().as_default():
            graph = tf.Graph()
            with graph.as_default():
                a = tf.placeholder(tf.float32, [2])
                b = tf.placeholder(tf.float32, [2])
                with tf.Session(graph=graph) as sess, pytest.raises(ValueError) as info:
                    sess.run(a + b, BAD_FEEDS[case](a, b))
                errors.append(str(info.value).split(":")[0].split(".")[0])
    assert errors[1] == errors[0]
