"""Supervisor and basic_train_loop: a queue-fed script ends at num_epochs, saves, resumes."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from tests.adapters.queue_helpers import call_with_deadline


def _build(epochs):
    step = tf.train.get_or_create_global_step()
    idx = tf.train.range_input_producer(6, num_epochs=epochs, shuffle=False).dequeue()
    b = tf.train.batch([idx], 2)
    total = tf.Variable(0, name="total")
    # v.sum(dtype=...): int64 under x64 otherwise, which Assign refuses (TF's rule).
    total_b = tf.jax_function(lambda v: v.sum(dtype=v.dtype), [b])
    train = tf.group(total.assign_add(total_b), step.assign_add(1))
    return step, total, train


def test_managed_session_ends_cleanly_at_end_of_data(graph, tmp_path):
    step, total, train = _build(epochs=2)
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=3600, summary_op=None)
    assert graph.finalized and sv.is_chief and sv.global_step is step
    assert isinstance(sv.saver, tf.train.Saver)

    def run():
        with sv.managed_session() as sess:
            n = 0
            while not sv.should_stop():
                sess.run(train)  # raises OutOfRangeError after 2 epochs: a clean stop
                n += 1
        return n

    assert call_with_deadline(run) == 6
    assert sv.should_stop()
    # The checkpoint thread saved at start (TF's first save is immediate).
    assert tf.train.latest_checkpoint(str(tmp_path)) is not None


def test_basic_train_loop_and_restore(graph, tmp_path):
    step, total, train = _build(epochs=1)
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=3600, summary_op=None)
    seen = []

    def train_step(sess, tag):
        seen.append(tag)
        sess.run(train)

    call_with_deadline(lambda: tf.train.basic_train_loop(sv, train_step, args=("s",)))
    assert seen == ["s"] * 4  # 3 batches, the 4th raises OutOfRangeError
    # A new managed session restores the checkpoint saved when the services started
    # (TF's Supervisor saves at start and every save_model_secs, not at stop).

    def restore():
        with sv.managed_session(start_standard_services=False) as sess:
            return int(sess.run(step))

    assert call_with_deadline(restore) == 0


def test_exception_in_managed_session_is_reraised(graph, tmp_path):
    _build(epochs=1)
    sv = tf.train.Supervisor(logdir=None, summary_op=None)

    def run():
        with sv.managed_session():
            raise ValueError("in training")

    with pytest.raises(ValueError, match="in training"):
        call_with_deadline(run)


def test_summary_computed_needs_writer(graph):
    tf.Variable(np.float32(1.0))
    sv = tf.train.Supervisor(logdir=None, summary_op=None)
    assert sv.summary_writer is None
    with pytest.raises(RuntimeError, match="summary writer"):
        sv.summary_computed(None, b"")
    assert not sv.should_stop()
    sv.request_stop()
    assert sv.should_stop()


class _Writer:
    """A summary writer recording what the Supervisor's services write."""

    def __init__(self):
        import threading

        self.summaries = []
        self.scalars = []
        self.wrote = threading.Event()
        self.closed = False
        self.graphs = []

    def add_graph(self, graph):
        self.graphs.append(graph)

    def add_meta_graph(self, meta_graph_def):
        self.graphs.append(meta_graph_def)

    def reopen(self):
        self.closed = False

    def close(self):
        self.closed = True

    def add_summary(self, summary, global_step=None):
        self.summaries.append((summary, global_step))
        self.wrote.set()

    def add_scalar(self, tag, value, global_step=None):
        self.scalars.append((tag, global_step))


def test_summary_service_runs_summary_op(graph, tmp_path):
    from adapters.v1 import summary
    from jtrain.protos.summary_pb2 import Summary

    step, total, train = _build(epochs=1)
    summary.scalar("sum", tf.jax_function(lambda v: v.astype(np.float32), [total.value()]))
    writer = _Writer()
    sv = tf.train.Supervisor(
        logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=3600, summary_writer=writer
    )
    assert sv.summary_op is not None

    def run():
        with sv.managed_session() as sess:
            assert writer.wrote.wait(30)  # the summary thread's first run is immediate
            sess.run(train)
            sv.summary_computed(sess, sess.run(sv.summary_op))

    call_with_deadline(run)
    assert writer.closed
    (_, first_step), (last, last_step) = writer.summaries[0], writer.summaries[-1]
    assert first_step == 0 and last_step == 1
    value = Summary.FromString(bytes(last)).value[0]
    assert value.tag == "sum" and value.simple_value == 1.0  # batch [0, 1] summed
