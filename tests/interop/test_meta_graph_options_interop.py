"""``export_meta_graph``/``import_meta_graph``/``import_graph_def`` options against TF 2.21.

The same small graph (a placeholder outside a ``net`` scope, a variable and a
matmul inside it, collections of both) is built in TF and in jtrain, and each
option's result is compared with TF's: ``export_scope`` (nodes kept and renamed,
``$unbound_inputs_`` inputs, the ``unbound_inputs`` collection, collections
filtered and stripped, ``VariableDef`` names), ``strip_default_attrs`` (the
attributes TF removes), ``clear_devices``; ``input_map``/``return_elements`` of
``import_meta_graph`` and ``tf.import_graph_def`` (values, names, shapes, and TF's
error messages).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf

tf1 = real_tf.compat.v1
W = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
# Multiples of 1/8 times W's multiples of 1/4: every product and sum of y = z @ w is
# exact in float32, so y's bits do not depend on how a CPU's matmul rounds (with
# linspace values, XLA on an AVX2 machine and TF's kernel differed by one ulp).
Z = (np.arange(8, dtype=np.float32).reshape(4, 2) - 3.5) / 4


def _build(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.name_scope("net"):
        w = tf.Variable(W, name="w", use_resource=False)
        with tf.device("/device:CPU:0"):
            y = tf.matmul(x, w, name="y")
        tf.add_to_collection("outs", y)
        tf.add_to_collection("nums", 3)
    tf.add_to_collection("outs", x)
    return x, w, y


def _export(tf, graph, **kwargs):
    with graph.as_default():
        _build(tf)
        meta = tf.train.export_meta_graph(**kwargs)
        unbound = graph.get_collection("unbound_inputs")
    return meta, unbound


@pytest.fixture(scope="module")
def exports():
    """``{option: ((tf meta, tf unbound collection), (jtrain's))}`` for each option set."""
    options = {
        "scope": {"export_scope": "net"},
        "strip": {"strip_default_attrs": True},
        "devices": {"clear_devices": True},
    }
    return {
        key: (_export(tf1, real_tf.Graph(), **kw), _export(jtf, jtf.Graph(), **kw))
        for key, kw in options.items()
    }


def _nodes(meta):
    return {n.name: (n.op, list(n.input), n.device) for n in meta.graph_def.node}


def _collections(meta):
    from tensorflow.core.framework import variable_pb2

    out = {}
    for key, entry in meta.collection_def.items():
        kind = entry.WhichOneof("kind")
        values = list(getattr(entry, kind).value)
        if key in ("variables", "trainable_variables"):
            values = [str(variable_pb2.VariableDef.FromString(v)) for v in values]
        out[key] = (kind, values)
    return out


def test_export_scope_as_tf(exports):
    (tf_meta, tf_unbound), (j_meta, j_unbound) = exports["scope"]
    tf_nodes, j_nodes = _nodes(tf_meta), _nodes(j_meta)
    assert j_unbound == tf_unbound == ["$unbound_inputs_x"]
    assert j_nodes["y"] == tf_nodes["y"]  # ("MatMul", ["$unbound_inputs_x", "w/read"], dev)
    for name in ("w", "w/Assign", "w/read"):
        assert j_nodes[name] == tf_nodes[name]
    assert not [n for n in j_nodes if n.startswith("net/") or n == "x"]
    assert _collections(j_meta) == _collections(tf_meta)


def test_strip_default_attrs_and_clear_devices_as_tf(exports):
    (tf_meta, _), (j_meta, _) = exports["strip"]
    assert (
        j_meta.meta_info_def.stripped_default_attrs and tf_meta.meta_info_def.stripped_default_attrs
    )
    (tf_full, _), (j_full, _) = exports["devices"]

    def attrs(meta):
        return {n.name: set(n.attr) for n in meta.graph_def.node}

    tf_before, tf_after = attrs(tf_full), attrs(tf_meta)
    j_before, j_after = attrs(j_full), attrs(j_meta)
    stripped = []
    for name in ("net/w", "net/y", "x", "net/w/Assign", "net/w/read"):
        # Each attribute both write is stripped by both or kept by both.
        common = tf_before[name] & j_before[name]
        assert {a for a in common if a in j_after[name]} == {
            a for a in common if a in tf_after[name]
        }, name
        stripped += sorted(common - tf_after[name])
    assert stripped == [
        "container",
        "shared_name",
        "grad_a",
        "grad_b",
        "transpose_a",
        "transpose_b",
    ]
    for meta, _ in exports["devices"]:
        assert {n.device for n in meta.graph_def.node} == {""}


def _import(tf, meta, **kwargs):
    """Imports ``meta`` with ``z`` (a [4, 2] placeholder) for ``x``; y's value and names."""
    graph = tf.Graph()
    with graph.as_default():
        z = tf.placeholder(tf.float32, [4, 2], name="z")
        tf.train.import_meta_graph(meta, input_map={"$unbound_inputs_x": z}, **kwargs)
        y = graph.get_tensor_by_name("imp/y:0")
        names = [op.name for op in graph.get_operations() if not op.name.startswith("save")]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(y, {z: Z})
    return value, y.shape.as_list(), names, graph.get_collection("outs")


def test_import_with_input_map_as_tf(exports):
    (tf_meta, _), (j_meta, _) = exports["scope"]
    tf_value, tf_shape, tf_names, _ = _import(
        tf1, tf_meta, import_scope="imp", return_elements=["y:0"]
    )
    value, shape, names, outs = _import(jtf, j_meta, import_scope="imp", return_elements=["y:0"])
    np.testing.assert_array_equal(value, tf_value)
    assert shape == tf_shape == [4, 3]  # from z's static shape
    assert [n for n in names if not n.startswith("imp/w/Init")] == [
        n for n in tf_names if not n.startswith("imp/w/Init")
    ]
    assert [t.name for t in outs] == ["imp/y:0"]


def _error(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value).__name__, str(info.value)


def test_import_errors_as_tf(exports):
    (tf_meta, _), (j_meta, _) = exports["scope"]
    tf_errors, j_errors = [], []
    for tf, meta, out in ((tf1, tf_meta, tf_errors), (jtf, j_meta, j_errors)):
        with tf.Graph().as_default():
            z = tf.placeholder(tf.float32, [4, 2], name="z")
            out.append(_error(tf.train.import_meta_graph, meta))
            out.append(
                _error(
                    tf.train.import_meta_graph,
                    meta,
                    input_map={"$unbound_inputs_x": z, "nope:0": z},
                )
            )
    assert j_errors == tf_errors


def _graph_def(tf):
    graph = tf.Graph()
    with graph.as_default():
        _build(tf)
    return graph.as_graph_def()


def test_import_graph_def_as_tf():
    results = []
    for tf in (tf1, jtf):
        graph_def = _graph_def(tf)
        with tf.Graph().as_default() as graph:
            z = tf.placeholder(tf.float32, [4, 2], name="z")
            bad = _error(tf.import_graph_def, graph_def, input_map={"nope:0": z})
            y, op = tf.import_graph_def(
                graph_def, input_map={"x": z}, return_elements=["net/y:0", "net/y"]
            )
            none = tf.import_graph_def(graph_def, input_map={"x:0": z}, name="")
            names = [o.name for o in graph.get_operations()]
            results.append((bad, y.name, op.name, op.type, none, "net/y" in names))
    assert results[1] == results[0]
