"""``export_meta_graph``'s and ``import_meta_graph``'s options, and ``tf.import_graph_def``.

What TF does with each option is compared with TF itself in
``tests/interop/test_meta_graph_options_interop.py``; here: that the computation
travels with each (an ``export_scope`` sub-graph imported with ``input_map`` runs),
``graph_def=``, ``clear_extraneous_savers``, and the errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain.protos import graph_pb2, saver_pb2

W = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
Z = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)


def _build():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.name_scope("net"):
        w = tf.Variable(W, name="w")
        y = tf.nn.relu(tf.matmul(x, w), name="y")
    return x, w, y


@pytest.fixture(scope="module")
def graph():
    g = tf.Graph()
    with g.as_default():
        _build()
    return g


def test_export_scope_imports_with_input_map_and_runs(graph):
    meta = tf.train.export_meta_graph(graph=graph, export_scope="net")
    assert "_jtrain_call" in {n.name: n for n in meta.graph_def.node}["y"].attr
    with tf.Graph().as_default() as g:
        z = tf.placeholder(tf.float32, [4, 2], name="z")
        tf.train.import_meta_graph(meta, input_map={"$unbound_inputs_x": z}, import_scope="m")
        y = g.get_tensor_by_name("m/y:0")
        assert y.shape.as_list() == [4, 3]  # re-inferred from z, as TF
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(y, {z: Z})
    np.testing.assert_array_equal(got, np.maximum(Z @ W, 0))


def test_graph_def_argument_is_exported(graph):
    given = graph.as_graph_def(use_pybind11_proto=True)  # (TF's argument: no effect)
    del given.node[-1]  # "net/y" left out
    meta = tf.train.export_meta_graph(graph=graph, graph_def=given)
    assert [n.name for n in meta.graph_def.node] == [n.name for n in given.node]
    assert "_jtrain_call" in meta.graph_def.node[-1].attr  # net/MatMul carries its call
    with pytest.raises(TypeError, match="graph_def must be of type GraphDef"):
        tf.train.export_meta_graph(graph=graph, graph_def="nodes")


def test_clear_extraneous_savers():
    graph_def = graph_pb2.GraphDef()
    for name, op in (
        ("save/SaveV2", "SaveV2"),
        ("save/Const", "Const"),
        ("save_1/SaveV2", "SaveV2"),
        ("save_1/Const", "Const"),
        ("v", "Const"),
    ):
        graph_def.node.add(name=name, op=op)
    with tf.Graph().as_default() as g:
        tf.Variable(1.0, name="v")
        kept = tf.train.Saver()
        tf.add_to_collection("savers", kept)
        tf.add_to_collection("savers", tf.train.Saver(name="save_1"))
        saver_def = kept.as_saver_def()
        meta = tf.train.export_meta_graph(
            graph=g, graph_def=graph_def, saver_def=saver_def, clear_extraneous_savers=True
        )
        both = tf.train.export_meta_graph(graph=g, graph_def=graph_def, saver_def=saver_def)
    assert [n.name for n in meta.graph_def.node] == ["save/SaveV2", "save/Const", "v"]
    savers = meta.collection_def["savers"].bytes_list.value
    assert [saver_pb2.SaverDef.FromString(s) for s in savers] == [saver_def]
    assert len(both.collection_def["savers"].bytes_list.value) == 2
    assert len(both.graph_def.node) == 5


def test_export_errors(graph):
    with pytest.raises(NotImplementedError, match="save_debug_info"):
        tf.train.export_meta_graph(graph=graph, save_debug_info=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        tf.train.export_meta_graph(graph=graph, bogus=1)


def test_import_graph_def_of_a_meta_graph_runs(graph):
    meta = tf.train.export_meta_graph(graph=graph)
    with tf.Graph().as_default():
        z = tf.placeholder(tf.float32, [4, 2], name="z")
        (y,) = tf.import_graph_def(
            meta.graph_def, input_map={"x:0": z}, return_elements=["net/y:0"]
        )
        assert y.name == "import/net/y:0"
        (w,) = tf.import_graph_def(meta.graph_def, return_elements=["net/w"], name="again")
        assert w.name == "again/net/w"
        with tf.Session() as sess:
            sess.run(tf.get_default_graph().get_operation_by_name("import/net/w/Assign"))
            np.testing.assert_array_equal(sess.run(y, {z: Z}), np.maximum(Z @ W, 0))


def test_input_map_errors(graph):
    # (Not the unbound_inputs collection an export_scope export left in the graph, as TF.)
    meta = tf.train.export_meta_graph(graph=graph, collection_list=["variables"])
    with tf.Graph().as_default():
        ints = tf.placeholder(tf.int32, [4, 2], name="ints")
        with pytest.raises(
            ValueError, match="passed int32 from ints:0 incompatible with expected float32"
        ):
            tf.import_graph_def(meta.graph_def, input_map={"x:0": ints})
        with pytest.raises(ValueError, match=r"not found in graph_def: \[nope:0\]"):
            tf.train.import_meta_graph(meta, input_map={"nope": ints})
        with pytest.raises(ValueError, match="return_element 'nope:0' not found"):
            tf.import_graph_def(meta.graph_def, return_elements=["nope:0"])
        with pytest.raises(TypeError, match="GraphDef"):
            tf.import_graph_def(meta)


def test_import_into_a_graph_with_a_collections_predicate(graph):
    with graph.as_default():
        tf.add_to_collection("extra", 7)
    meta = tf.train.export_meta_graph(graph=graph, collection_list=["variables", "extra"])
    target = tf.Graph()
    saver = tf.train.import_meta_graph(
        meta, graph=target, restore_collections_predicate=lambda key: key != "extra"
    )
    assert target is not tf.get_default_graph()
    assert [v.op.name for v in target.get_collection("variables")] == ["net/w"]
    assert target.get_collection("extra") == []
    assert saver is not None
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        tf.train.import_meta_graph(meta, bogus=1)
