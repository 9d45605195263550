"""``Graph.as_graph_def``, ``write_graph`` and the graph events of ``FileWriter``.

TF's side (TF parses these GraphDefs, TensorBoard loads the events, node types
and attributes equal TF's) is in ``tests/interop/test_graph_def_interop.py``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from google.protobuf import text_format

from adapters import v1 as tf
from adapters.v1.framework import graph_def as graph_def_lib
from jtrain.protos import graph_pb2, meta_graph_pb2


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        with tf.device("/cpu:0"):
            c = tf.constant([[1.0], [2.0], [3.0]], name="c")
        v = tf.Variable(np.zeros((3, 1), np.float32), name="v")
        y = tf.matmul(x, c + v, name="y")
        top = tf.nn.top_k(y[:, 0], k=1, name="top")
        with tf.control_dependencies([v.assign_add(c, name="bump")]):
            tf.identity(top[1], name="out")
    return g


def _nodes(g, **kwargs):
    return {n.name: n for n in g.as_graph_def(**kwargs).node}


def test_nodes_inputs_controls_device_and_attrs(graph):
    nodes = _nodes(graph)
    assert [n for n in nodes] == [op.name for op in graph.get_operations()]
    assert nodes["y"].op == "MatMul" and list(nodes["y"].input) == ["x", "add"]
    assert nodes["top"].op == "TopKV2"
    assert list(nodes["out"].input) == ["top:1", "^bump"]
    # A variable's ops take it as their first (ref) input, as TF's.
    assert list(nodes["v/read"].input) == ["v"]
    assert list(nodes["bump"].input) == ["v", "c"] and nodes["bump"].op == "AssignAdd"
    assert nodes["c"].device == "/device:CPU:0"  # TF canonicalises "/cpu:0"
    x = nodes["x"].attr
    assert x["dtype"].type == tf.float32.as_datatype_enum
    assert [d.size for d in x["shape"].shape.dim] == [-1, 3]
    assert nodes["v"].attr["container"].s == b""
    value = graph_def_lib.tensor_value(nodes["c"].attr["value"].tensor)
    np.testing.assert_array_equal(value, np.float32([[1], [2], [3]]))
    assert value.dtype == np.float32
    assert nodes["y"].attr["T"].type == tf.float32.as_datatype_enum
    assert nodes["top"].attr["k"].i == 1  # a Python-valued argument
    assert "_output_shapes" not in nodes["y"].attr


def test_add_shapes_from_version_and_versions(graph):
    nodes = _nodes(graph, add_shapes=True)
    shapes = nodes["top"].attr["_output_shapes"].list.shape
    assert [[d.size for d in s.dim] for s in shapes] == [[1], [1]]
    assert [n.name for n in graph.as_graph_def(from_version=graph.version - 1).node] == ["out"]
    assert graph.as_graph_def().versions.producer == graph.graph_def_versions.producer == 2474
    with tf.Session(graph=graph) as sess:
        assert sess.graph_def == graph.as_graph_def()


def test_write_graph_text_binary_atomic(graph, tmp_path):
    logdir = tmp_path / "new" / "dir"
    path = tf.train.write_graph(graph, logdir, "g.pbtxt")
    assert path == os.path.join(str(logdir), "g.pbtxt")
    parsed = text_format.Parse((logdir / "g.pbtxt").read_text(), graph_pb2.GraphDef())
    assert parsed == graph.as_graph_def()
    path = tf.io.write_graph(graph.as_graph_def(), str(logdir), "g.pb", as_text=False)
    assert graph_pb2.GraphDef.FromString((logdir / "g.pb").read_bytes()) == parsed
    assert sorted(os.listdir(logdir)) == ["g.pb", "g.pbtxt"]  # no temporary files left


def test_file_writer_graph_arguments(graph, tmp_path):
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        with pytest.raises(ValueError, match="only graph, or graph_def"):
            writer.add_graph(graph, graph_def=graph.as_graph_def())
        with pytest.raises(TypeError, match="instance of `Graph` or the deprecated"):
            writer.add_graph("graph")
        with pytest.raises(TypeError, match="must be type MetaGraphDef"):
            writer.add_meta_graph(graph.as_graph_def())
        writer.add_meta_graph(meta_graph_pb2.MetaGraphDef())
        writer.add_run_metadata(tf.RunMetadata(), "a")
        with pytest.raises(ValueError, match="tag was already used"):
            writer.add_run_metadata(tf.RunMetadata(), "a")


def test_supervisor_writes_graph_pbtxt(tmp_path):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(1.0, name="w")
        tf.train.get_or_create_global_step()
        sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            assert sess.run(w) == 1.0
    parsed = text_format.Parse((tmp_path / "graph.pbtxt").read_text(), graph_pb2.GraphDef())
    assert parsed == g.as_graph_def(add_shapes=True)


def test_string_constants_and_odd_collections_export(tmp_path):
    g = tf.Graph()
    with g.as_default():
        tf.constant(["a", "bc"], name="s")
        tf.add_to_collection("objects", object())  # skipped with a warning, as TF
        meta = tf.train.export_meta_graph(str(tmp_path / "m.meta"), graph=g)
    node = next(n for n in meta.graph_def.node if n.name == "s")
    assert node.attr["value"].tensor.dtype == tf.string.as_datatype_enum
    value = graph_def_lib.tensor_value(node.attr["value"].tensor)
    assert value.tolist() == [b"a", b"bc"]
    assert "objects" not in meta.collection_def
    with tf.Graph().as_default() as imported:
        tf.train.import_meta_graph(str(tmp_path / "m.meta"))
        with tf.Session() as sess:
            assert sess.run(imported.get_tensor_by_name("s:0")).tolist() == [b"a", b"bc"]
