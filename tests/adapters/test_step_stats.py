"""``Session.run``'s ``RunMetadata``: step statistics at a trace level, empty without.

What TF does is measured in tests/interop/test_run_metadata_interop.py; here the
parts of jtrain's step: the step program on its device, host operations on the host,
the run paths that pass ``run_metadata`` (``run``, ``make_callable``, a monitored
session).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.client import step_stats

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
DEVICE = step_stats.device_name(jax.devices()[0])  # where step programs run (a GPU's too)
FULL = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


@pytest.fixture
def model(graph):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.ones((3, 2), np.float32), name="w")
    loss = tf.reduce_sum(tf.matmul(x, w), name="loss")
    summary = tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return x, loss, summary, train


def _nodes(md):
    return [(d.device, n.node_name) for d in md.step_stats.dev_stats for n in d.node_stats]


def _host_first(nodes):
    """``nodes`` as TF lists them: the host CPU's first (a stable sort)."""
    return sorted(nodes, key=lambda node: node[0] != CPU)


@pytest.mark.parametrize(
    "options",
    [None, tf.RunOptions(), tf.RunOptions(timeout_in_ms=5000)],
    ids=["no options", "NO_TRACE", "timeout only"],
)
def test_without_a_trace_level_the_run_metadata_is_emptied(model, options):
    x, loss, _, _ = model
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        md = tf.RunMetadata()
        md.session_metadata.name = "before"
        sess.run(loss, {x: [[1, 2, 3]]}, options=options, run_metadata=md)
    assert md.ByteSize() == 0


@pytest.mark.parametrize("level", ["SOFTWARE_TRACE", "HARDWARE_TRACE", "FULL_TRACE"])
def test_a_trace_level_times_the_step_program_and_the_host_operations(model, level):
    x, _, summary, train = model
    options = tf.RunOptions(trace_level=getattr(tf.RunOptions, level))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        md = tf.RunMetadata()
        sess.run([summary, train], {x: [[1, 2, 3]]}, options=options, run_metadata=md)
    assert [f.name for f, _ in md.ListFields()] == ["step_stats"]
    assert _nodes(md) == _host_first([(DEVICE, "step_program"), (CPU, "loss_1")])
    nodes = {n.node_name: n for d in md.step_stats.dev_stats for n in d.node_stats}
    program, host = nodes["step_program"], nodes["loss_1"]
    assert program.timeline_label == "step_program = XlaProgram(x)"
    assert host.timeline_label == "loss_1 = ScalarSummary(loss)"
    for node in (program, host):
        assert node.all_start_micros == node.all_start_nanos // 1000
        assert node.op_end_rel_nanos == node.all_end_rel_nanos >= 0
        assert node.op_end_rel_micros == node.op_end_rel_nanos // 1000
        assert node.scheduled_nanos == node.all_start_nanos
    # The summary is serialized after the program's outputs are ready.
    assert host.all_start_nanos >= program.all_start_nanos + program.all_end_rel_nanos


def test_a_run_of_host_operations_only_has_no_program_node(graph):
    value = tf.placeholder(tf.float32, [], name="value")
    summary = tf.summary.scalar("fed", value)
    with tf.Session() as sess:
        md = tf.RunMetadata()
        sess.run(summary, {value: 2.0}, options=FULL, run_metadata=md)
    assert _nodes(md) == [(CPU, "fed")]
    assert md.step_stats.dev_stats[0].node_stats[0].timeline_label == "fed = ScalarSummary(value)"


def test_make_callable_and_a_monitored_session_pass_the_run_metadata(model):
    x, loss, _, train = model
    tf.train.get_or_create_global_step()
    with tf.train.MonitoredSession() as sess:
        md = tf.RunMetadata()
        sess.run(train, {x: [[1, 2, 3]]}, options=FULL, run_metadata=md)
        assert _nodes(md) == [(DEVICE, "step_program")]
        call = sess._tf_sess().make_callable(loss, [x], accept_options=True)
        md = tf.RunMetadata()
        call(np.ones((1, 3), np.float32), options=FULL, run_metadata=md)
        assert _nodes(md) == [(DEVICE, "step_program")]


def test_options_without_run_metadata_and_tfs_error_for_a_non_message(model):
    x, loss, _, _ = model
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(loss, {x: [[1, 2, 3]]}, options=FULL) == 12.0
        with pytest.raises(AttributeError, match="'int' object has no attribute 'ParseFromString'"):
            sess.run(loss, {x: [[1, 2, 3]]}, options=FULL, run_metadata=5)


def test_traced_reads_the_trace_level():
    assert not step_stats.traced(None)
    assert not step_stats.traced(tf.RunOptions())
    assert step_stats.traced(tf.RunOptions(trace_level=tf.RunOptions.SOFTWARE_TRACE))


def test_device_names_are_tfs():
    assert step_stats.device_name(jax.devices("cpu")[0]) == CPU


def test_a_program_without_array_outputs_is_on_the_default_device():
    collector = step_stats.StepStatsCollector()
    start = collector.now()
    collector.record_program([[], [None]], [], start, start + 2500)
    (dev,) = collector.run_metadata().step_stats.dev_stats
    assert dev.device == step_stats.device_name(jax.devices()[0])
    (node,) = dev.node_stats
    assert node.timeline_label == "step_program = XlaProgram()"
    assert (node.op_end_rel_nanos, node.op_end_rel_micros) == (2500, 2)
