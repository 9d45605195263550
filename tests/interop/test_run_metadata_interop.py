"""``RunMetadata`` of traced runs, against TensorFlow's.

jtrain's ``RunMetadata`` has TF's fields (``step_stats``, ``cost_graph``,
``partition_graphs``, ``function_graphs``, ``session_metadata``) with TF's numbers and
types, down to every nested message, so a ``RunMetadata`` TF traced parses in jtrain
and serializes back to the same bytes, and one jtrain traced parses in TF. A run
fills ``step_stats`` at the same trace levels as TF's (and replaces the caller's
message as TF does), on TF's device name; ``FileWriter.add_run_metadata`` writes
TF's ``tagged_run_metadata`` event, which TF's ``summary_iterator``, TensorBoard's
``EventAccumulator`` and TF's ``timeline`` read.
"""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pytest
import tensorflow as real_tf
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorflow.python.client import timeline

from adapters import v1 as jtf
from jtrain.protos import config_pb2

from .twin import classic_tf1

tf1 = real_tf.compat.v1

LEVELS = ["NO_TRACE", "SOFTWARE_TRACE", "HARDWARE_TRACE", "FULL_TRACE"]


def _name(descriptor):
    """A message's name without its package (``tensorflow.``, ``jtrain.protos.``)."""
    return descriptor.full_name[len(descriptor.file.package) + 1 :]


def _fields(descriptor, seen=None):
    """A message's fields, recursively: (path, number, type, repeated, message, enum).

    ``GraphDef`` (``partition_graphs``, ``function_graphs``) is compared by its name
    only: jtrain's leaves out its ``library`` and ``debug_info`` (graph.proto says so).
    """
    seen = set() if seen is None else seen
    name = _name(descriptor)
    if name in seen or name == "GraphDef":
        return []
    seen.add(name)
    out = []
    for f in descriptor.fields:
        enum = _name(f.enum_type) if f.enum_type else ""
        kind = _name(f.message_type) if f.message_type else ""
        out.append((f"{name}.{f.name}", f.number, f.type, f.is_repeated, kind, enum))
        if f.message_type is not None:
            out += _fields(f.message_type, seen)
    return sorted(out)


def _build(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.ones((3, 2), np.float32), name="w")
    loss = tf.reduce_sum(tf.matmul(x, w), name="loss")
    tf.summary.scalar("loss", loss)
    merged = tf.summary.merge_all()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return x, loss, merged, train


def _traced_runs(tf, options_for):
    """``{case: RunMetadata fields after the run}`` for each ``options_for`` case."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default():
            x, loss, merged, train = _build(tf)
            out = {}
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                sess.run([merged, train], {x: [[1, 2, 3]]})  # compiled before the traced runs
                for case, options in options_for(tf).items():
                    md = tf.RunMetadata()
                    md.session_metadata.name = "before"  # replaced by the run's, as TF
                    sess.run([merged, train], {x: [[1, 2, 3]]}, options=options, run_metadata=md)
                    out[case] = md
            return out


def _options(tf):
    cases = {"no options": None}
    for level in LEVELS:
        cases[level] = tf.RunOptions(trace_level=getattr(tf.RunOptions, level))
    return cases


def test_run_metadata_has_tfs_fields_numbers_and_types():
    theirs = _fields(tf1.RunMetadata.DESCRIPTOR)
    ours = _fields(config_pb2.RunMetadata.DESCRIPTOR)
    assert ours == theirs
    # the field the tutorial reads
    assert ("RunMetadata.step_stats", 1, 11, False, "StepStats", "") in ours
    assert len(ours) > 60  # StepStats, DeviceStepStats, NodeExecStats..., CostGraphDef


def test_tfs_traced_run_metadata_parses_and_serializes_back_unchanged():
    (theirs,) = _traced_runs(tf1, lambda tf: {"full": tf.RunOptions(trace_level=3)}).values()
    ours = jtf.RunMetadata.FromString(theirs.SerializeToString())
    # Every field known to jtrain's messages: nothing is dropped with the unknown ones.
    ours.DiscardUnknownFields()
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    nodes = [n for d in ours.step_stats.dev_stats for n in d.node_stats]
    assert len(nodes) > 5
    assert any(n.output and n.output[0].tensor_description.dtype == 1 for n in nodes)


@pytest.mark.parametrize("case", ["no options", *LEVELS])
def test_trace_levels_fill_step_stats_as_tf(case):
    theirs = _traced_runs(tf1, lambda tf: {case: _options(tf)[case]})[case]
    ours = _traced_runs(jtf, lambda tf: {case: _options(tf)[case]})[case]
    assert [f.name for f, _ in ours.ListFields()] == [f.name for f, _ in theirs.ListFields()]
    assert [d.device for d in ours.step_stats.dev_stats] == [
        d.device for d in theirs.step_stats.dev_stats
    ]
    # jtrain's bytes parse in TF, with the same devices.
    again = tf1.RunMetadata.FromString(ours.SerializeToString())
    assert [d.device for d in again.step_stats.dev_stats] == [
        d.device for d in theirs.step_stats.dev_stats
    ]
    for dev in again.step_stats.dev_stats:
        for node in dev.node_stats:
            # TF's fields: a start on the wall clock, its ends relative to it.
            assert node.all_start_micros > 1_600_000_000_000_000
            assert node.all_end_rel_micros >= node.op_end_rel_micros >= 0
            assert node.all_start_nanos // 1000 == node.all_start_micros
            assert " = " in node.timeline_label and node.node_name


def test_step_stats_time_the_program_and_the_host_operations():
    (ours,) = _traced_runs(jtf, lambda tf: {"full": tf.RunOptions(trace_level=3)}).values()
    (dev,) = ours.step_stats.dev_stats
    names = [n.node_name for n in dev.node_stats]
    # The step program first, then the summaries serialized on the host after it.
    assert names == ["step_program", "loss_1", "Merge/MergeSummary"]
    program, summary, merge = dev.node_stats
    assert program.timeline_label == "step_program = XlaProgram(x)"
    assert merge.timeline_label == "Merge/MergeSummary = MergeSummary(loss_1)"
    end = program.all_start_nanos + program.all_end_rel_nanos
    assert program.all_end_rel_nanos > 0 and summary.all_start_nanos >= end
    assert merge.all_start_nanos >= summary.all_start_nanos + summary.all_end_rel_nanos


def test_tfs_timeline_reads_jtrains_step_stats():
    (ours,) = _traced_runs(jtf, lambda tf: {"full": tf.RunOptions(trace_level=3)}).values()
    theirs = tf1.RunMetadata.FromString(ours.SerializeToString())
    trace = json.loads(timeline.Timeline(theirs.step_stats).generate_chrome_trace_format())
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    assert [e["name"] for e in events] == ["XlaProgram", "ScalarSummary", "MergeSummary"]
    assert events[0]["args"]["name"] == "step_program" and events[0]["dur"] >= 0


def test_a_run_metadata_that_is_not_a_message_raises_tfs_error():
    def run(tf):
        with classic_tf1() if tf is tf1 else contextlib.nullcontext():
            graph = tf.Graph()
            with graph.as_default():
                x, loss, _, _ = _build(tf)
                with tf.Session(graph=graph) as sess:
                    sess.run(tf.global_variables_initializer())
                    with pytest.raises(AttributeError) as info:
                        sess.run(loss, {x: [[1, 2, 3]]}, tf.RunOptions(trace_level=3), 5)
                    return str(info.value)

    assert run(jtf) == run(tf1)


def test_monitored_session_fills_the_callers_run_metadata_as_tf():
    def run(tf):
        with classic_tf1() if tf is tf1 else contextlib.nullcontext():
            graph = tf.Graph()
            with graph.as_default():
                x, loss, _, train = _build(tf)
                tf.train.get_or_create_global_step()
                md = tf.RunMetadata()
                with tf.train.MonitoredSession() as sess:
                    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                    sess.run(train, {x: [[1, 2, 3]]}, options=options, run_metadata=md)
                return [d.device for d in md.step_stats.dev_stats]

    theirs = run(tf1)
    assert theirs == ["/job:localhost/replica:0/task:0/device:CPU:0"]
    assert run(jtf) == theirs


def test_add_run_metadata_writes_tfs_event(tmp_path):
    (ours,) = _traced_runs(jtf, lambda tf: {"full": tf.RunOptions(trace_level=3)}).values()
    (theirs,) = _traced_runs(tf1, lambda tf: {"full": tf.RunOptions(trace_level=3)}).values()
    with jtf.summary.FileWriter(str(tmp_path / "ours")) as writer:
        writer.add_run_metadata(ours, "step099")
        writer.add_run_metadata(ours, "step199", global_step=199)
    with tf1.Graph().as_default(), tf1.summary.FileWriter(str(tmp_path / "theirs")) as writer:
        writer.add_run_metadata(theirs, "step099")
        writer.add_run_metadata(theirs, "step199", global_step=199)

    def events(folder):
        (path,) = (tmp_path / folder).glob("events.out.tfevents.*")
        return [
            e for e in tf1.train.summary_iterator(str(path)) if e.HasField("tagged_run_metadata")
        ]

    mine, tfs = events("ours"), events("theirs")
    assert [(e.step, e.tagged_run_metadata.tag) for e in mine] == [
        (e.step, e.tagged_run_metadata.tag) for e in tfs
    ]
    for event in mine:
        read = tf1.RunMetadata.FromString(event.tagged_run_metadata.run_metadata)
        assert read.SerializeToString() == ours.SerializeToString()
        assert read.step_stats.dev_stats[0].device == theirs.step_stats.dev_stats[0].device
    # TensorBoard's reader.
    acc = ea.EventAccumulator(str(tmp_path / "ours"))
    acc.Reload()
    assert acc.Tags()["run_metadata"] == ["step099", "step199"]
    assert acc.RunMetadata("step099").step_stats.dev_stats[0].node_stats[0].node_name == (
        "step_program"
    )
