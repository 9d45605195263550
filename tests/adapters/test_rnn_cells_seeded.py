"""The RNN cells' default weight initializers under ``tf.set_random_seed``, in TF2 and TF1
behaviour (TF 2.21's values: ``tests/interop/test_rnn_cells_seeded_interop.py``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework import v2_compat


def _build(with_cell: bool, seed: int = 4):
    """``{name: initial value}`` of a graph: maybe a GRU cell, then ``get_variable``."""
    random.seed(seed)
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        if with_cell:
            cell = tf.nn.rnn_cell.GRUCell(3)
            x = tf.zeros([2, 5])
            cell(x, cell.zero_state(2, tf.float32))
        tf.get_variable("after", [2, 2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {v.op.name: sess.run(v) for v in tf.global_variables()}


@pytest.fixture
def tf1_behaviour():
    saved = dict(v2_compat._state)
    tf.disable_v2_behavior()
    yield
    v2_compat._state.update(saved)


def test_tf2_behaviour_kernels_take_no_op_seed_and_follow_python_random():
    alone, after_cell = _build(False), _build(True)
    assert np.array_equal(alone["after"], after_cell["after"])
    again, other = _build(True), _build(True, seed=5)
    assert np.array_equal(again["gru_cell/gates/kernel"], after_cell["gru_cell/gates/kernel"])
    assert not np.array_equal(other["gru_cell/gates/kernel"], after_cell["gru_cell/gates/kernel"])
    # One randint(1, 10**9) a kernel, at its creation (tf_keras' RandomGenerator).
    random.seed(4)
    for _ in range(2):
        random.randint(1, int(1e9))
    expected_next = random.random()
    _build(True)
    assert random.random() == expected_next
    np.testing.assert_array_equal(after_cell["gru_cell/gates/bias"], np.ones(6, np.float32))
    limit = np.sqrt(6.0 / (8 + 6))
    assert np.all(np.abs(after_cell["gru_cell/gates/kernel"]) <= limit)


def test_tf1_behaviour_kernels_take_the_graphs_op_seeds(tf1_behaviour):
    alone, after_cell = _build(False), _build(True)
    assert not np.array_equal(alone["after"], after_cell["after"])
    random.seed(4)
    expected_next = random.random()
    _build(True)
    assert random.random() == expected_next


def test_tf2_behaviour_partitioned_weights_raise():
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicRNNCell(4)
        partitioner = tf.fixed_size_partitioner(2)
        with tf.variable_scope("p", partitioner=partitioner):
            with pytest.raises(NotImplementedError, match="GlorotUniform per partition"):
                cell(tf.zeros([2, 3]), cell.zero_state(2, tf.float32))
