"""GraphDefs of jtrain graphs read by TensorFlow and TensorBoard.

The same small MLP (``tf.layers.dense`` + relu, sparse softmax loss,
GradientDescent with a global step) is built with TF (ref variables, as
``disable_v2_behavior()`` makes them) and with ``adapters.v1``. TF parses
jtrain's ``GraphDef`` bytes and ``.pbtxt`` text; the nodes both graphs have keep
TF's op types, inputs and ``T``/``dtype``/``shape`` attributes. TensorBoard's
``EventAccumulator`` loads the graph that ``FileWriter(logdir, graph)`` and
``MonitoredTrainingSession`` write, and ``graph.pbtxt`` appears in the
checkpoint folder as TF writes it.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as real_tf
from google.protobuf import text_format
from tensorboard.backend.event_processing import event_accumulator as ea

from adapters import v1 as jtf

tf1 = real_tf.compat.v1

# Nodes whose op type, inputs and attributes are TF's exactly.
SAME = [
    "x",
    "y",
    "h/kernel",
    "h/kernel/read",
    "h/bias/read",
    "h/MatMul",
    "h/BiasAdd",
    "h/Relu",
    "out/kernel",
    "out/MatMul",
    "out/BiasAdd",
    "global_step",
    "global_step/read",
]
# Nodes with TF's name and op type whose inputs differ: the initializer's own
# nodes are named differently (TF: .../stateless_random_uniform, jtrain: one
# JaxFunction node); TF drops a control input that a data input already implies.
SAME_TYPE = ["h/kernel/Assign", "h/bias/Assign", "global_step/Assign", "GradientDescent"]


def _build(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="h")
    logits = tf.layers.dense(h, 3, name="out")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return x, y, loss, train


@pytest.fixture(scope="module")
def graphs():
    tf_graph = real_tf.Graph()
    root = None
    with tf_graph.as_default():
        root = tf1.get_variable_scope()
        with tf1.variable_scope(root, use_resource=False):
            _build(tf1)
    graph = jtf.Graph()
    with graph.as_default():
        _build(jtf)
    return tf_graph, graph


def _attrs(node):
    return {k: node.attr[k] for k in ("T", "dtype", "shape") if k in node.attr}


def test_tf_parses_the_graph_def_and_nodes_match(graphs):
    tf_graph, graph = graphs
    ours = tf1.GraphDef.FromString(graph.as_graph_def().SerializeToString())
    assert ours.versions.producer == tf_graph.graph_def_versions.producer
    theirs = {n.name: n for n in tf_graph.as_graph_def().node}
    mine = {n.name: n for n in ours.node}
    for name in SAME:
        a, b = theirs[name], mine[name]
        assert (b.op, list(b.input), _attrs(b)) == (a.op, list(a.input), _attrs(a)), name
    for name in SAME_TYPE:
        assert mine[name].op == theirs[name].op, name
        assert mine[name].input[0] == theirs[name].input[0]  # the ref input
    # A control input: "^name", after the data inputs.
    # (TF names the step's increment "GradientDescent/value", as an assignment's value.)
    assert mine["GradientDescent/value"].input == ["^GradientDescent/update"]
    assert theirs["GradientDescent/value"].input == ["^GradientDescent/update"]


def test_write_graph_text_and_binary_parse_in_tf(graphs, tmp_path):
    _, graph = graphs
    text_path = jtf.train.write_graph(graph, str(tmp_path / "logs"), "graph.pbtxt")
    assert text_path == os.path.join(str(tmp_path / "logs"), "graph.pbtxt")
    binary_path = jtf.train.write_graph(
        graph.as_graph_def(), str(tmp_path / "logs"), "graph.pb", as_text=False
    )
    from_text = text_format.Parse(open(text_path).read(), tf1.GraphDef())
    with open(binary_path, "rb") as f:
        from_binary = tf1.GraphDef.FromString(f.read())
    assert from_text == from_binary
    assert [n.name for n in from_text.node] == [op.name for op in graph.get_operations()]
    # TF's own reader takes the binary file as a frozen graph would be read.
    with real_tf.io.gfile.GFile(binary_path, "rb") as f:
        assert tf1.GraphDef.FromString(f.read()).node[0].op == "Placeholder"
    assert sorted(os.listdir(tmp_path / "logs")) == ["graph.pb", "graph.pbtxt"]


def test_tensorboard_reads_the_file_writer_graph(graphs, tmp_path):
    _, graph = graphs
    with jtf.summary.FileWriter(str(tmp_path), graph) as writer:
        writer.add_run_metadata(jtf.RunMetadata(), "step1", global_step=1)
    acc = ea.EventAccumulator(str(tmp_path))
    acc.Reload()
    loaded = acc.Graph()
    assert [n.name for n in loaded.node] == [op.name for op in graph.get_operations()]
    relu = next(n for n in loaded.node if n.name == "h/Relu")
    assert relu.op == "Relu" and list(relu.input) == ["h/BiasAdd"]
    # add_shapes=True, as TF's FileWriter: TensorBoard labels edges with them.
    shape = relu.attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [-1, 8]
    assert acc.MetaGraph().graph_def == loaded
    assert acc.Tags()["run_metadata"] == ["step1"]


def test_monitored_training_session_writes_graph_pbtxt_and_events(tmp_path):
    graph = jtf.Graph()
    with graph.as_default():
        x, y, loss, train = _build(jtf)
        feed = {x: np.ones((2, 4), np.float32), y: np.array([0, 2], np.int32)}
        with jtf.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), save_summaries_steps=None
        ) as sess:
            sess.run(train, feed)
    jtf.summary.FileWriterCache.get(str(tmp_path)).flush()  # TF's hooks leave it queued
    pbtxt = text_format.Parse((tmp_path / "graph.pbtxt").read_text(), tf1.GraphDef())
    assert "GradientDescent" in [n.name for n in pbtxt.node]
    acc = ea.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [n.name for n in acc.Graph().node] == [n.name for n in pbtxt.node]
    assert acc.MetaGraph().saver_def.restore_op_name == "save/restore_all"
