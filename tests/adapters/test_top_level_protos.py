"""TF1's top-level protos (``tf.Summary``, ``tf.Event``, ``tf.GraphDef``...): the
``jtrain.protos`` classes, where TF1 code finds them."""

from __future__ import annotations

import pytest

from adapters import v1 as tf
from jtrain.protos import (
    attr_value_pb2,
    event_pb2,
    graph_pb2,
    meta_graph_pb2,
    node_def_pb2,
    summary_pb2,
)

_NAMES = [
    ("Summary", summary_pb2.Summary),
    ("SummaryMetadata", summary_pb2.SummaryMetadata),
    ("HistogramProto", summary_pb2.HistogramProto),
    ("Event", event_pb2.Event),
    ("SessionLog", event_pb2.SessionLog),
    ("LogMessage", event_pb2.LogMessage),
    ("GraphDef", graph_pb2.GraphDef),
    ("MetaGraphDef", meta_graph_pb2.MetaGraphDef),
    ("TensorInfo", meta_graph_pb2.TensorInfo),
    ("NodeDef", node_def_pb2.NodeDef),
    ("AttrValue", attr_value_pb2.AttrValue),
    ("NameAttrList", attr_value_pb2.NameAttrList),
]


@pytest.mark.parametrize("name, cls", _NAMES, ids=[n for n, _ in _NAMES])
def test_top_level_proto(name, cls):
    assert getattr(tf, name) is cls
    assert name in tf.__all__


def test_custom_summary_written_and_read_back(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="acc", simple_value=0.5)]), 3)
    writer.close()
    (path,) = tmp_path.glob("events.out.tfevents.*")
    events = [e for e in tf.train.summary_iterator(str(path)) if e.HasField("summary")]
    assert [(e.step, e.summary.value[0].tag, e.summary.value[0].simple_value) for e in events] == [
        (3, "acc", 0.5)
    ]
