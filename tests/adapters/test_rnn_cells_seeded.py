"""The RNN cells' default weight initializers under ``tf.set_random_seed``: TF1
behaviour's, whether or not the script calls ``disable_v2_behavior()`` (TF 2.21's
values: ``tests/interop/test_rnn_cells_seeded_interop.py``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework import v2_compat


def _build(with_cell: bool):
    """``{name: initial value}`` of a graph: maybe a GRU cell, then ``get_variable``."""
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


@pytest.fixture(params=["as imported", "after disable_v2_behavior()"])
def behaviour(request):
    saved = dict(v2_compat._state)
    if request.param != "as imported":
        tf.disable_v2_behavior()
    yield
    v2_compat._state.update(saved)


def test_kernels_take_the_graphs_op_seeds_and_leave_python_random(behaviour):
    alone, after_cell = _build(False), _build(True)
    # Each kernel takes the graph's next op seed: the later variable's differs.
    assert not np.array_equal(alone["after"], after_cell["after"])
    kernel = "gru_cell/gates/kernel"
    assert np.array_equal(_build(True)[kernel], after_cell[kernel])
    random.seed(4)
    expected_next = random.random()
    random.seed(4)
    _build(True)
    assert random.random() == expected_next
    np.testing.assert_array_equal(after_cell["gru_cell/gates/bias"], np.ones(6, np.float32))
    limit = np.sqrt(6.0 / (8 + 6))
    assert np.all(np.abs(after_cell["gru_cell/gates/kernel"]) <= limit)
