"""TF1 SavedModels and frozen graphs across TF 2.21 and jtrain, checked live.

TF-written SavedModels (``simple_save``; a ``Builder`` with two meta graphs, a
main op and an asset) load with jtrain's ``loader.load``: variables bit-equal,
signature outputs equal to TF's. A jtrain-written SavedModel parses in TF (its
``SavedModel`` proto and signatures equal TF's for the same graph; its variables
bit-equal through TF's checkpoint reader); TF's own ``loader.load`` runs it when
every node has a TF op type, and refuses the ``JaxFunction`` nodes of jtrain's
random initializers with TF's ``NotFoundError``. Frozen graphs
(``convert_variables_to_constants``) go both ways with the same outputs and the
same constants' bytes. Error classes and messages are compared with TF's own.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from jtrain import errors
from tests.interop.twin import classic_tf1

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1
RNG = np.random.default_rng(3)
X = RNG.normal(size=(5, 4)).astype(np.float32)
Y = np.array([0, 1, 2, 0, 1], np.int32)
VARS = ["h/kernel", "h/bias", "out/kernel", "out/bias"]


def _mlp(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="h")
    logits = tf.layers.dense(h, 3, name="out")
    prob = tf.nn.softmax(logits, name="prob")
    return x, logits, prob


def _tf_values(sess):
    graph = sess.graph
    return {n: sess.run(graph.get_tensor_by_name(n + ":0")) for n in VARS}


@pytest.fixture(scope="module")
def tf_models(tmp_path_factory):
    """TF's SavedModels of the MLP after one training step, its outputs and values,
    and TF's frozen graph of it."""
    d = tmp_path_factory.mktemp("tf_saved_model")
    vocab = d / "vocab.txt"
    vocab.write_text("a\nb\n")
    with classic_tf1(), real_tf.Graph().as_default():
        x, logits, prob = _mlp(tf1)
        y = tf1.placeholder(tf1.int32, [None], name="y")
        loss = tf1.losses.sparse_softmax_cross_entropy(y, logits)
        train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss)
        flag = tf1.get_local_variable("flag", initializer=7, dtype=tf1.int32)
        asset = tf1.constant(str(vocab), name="vocab_path")
        tf1.add_to_collection(tf1.GraphKeys.ASSET_FILEPATHS, asset)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(train, {x: X, y: Y})
            values = _tf_values(sess)
            outputs = sess.run({"logits": logits, "prob": prob}, {x: X})
            tf1.saved_model.simple_save(sess, str(d / "simple"), {"x": x}, {"prob": prob})
            builder = tf1.saved_model.Builder(str(d / "builder"))
            sig = tf1.saved_model.predict_signature_def({"in": x}, {"logits": logits, "prob": prob})
            builder.add_meta_graph_and_variables(
                sess,
                [tf1.saved_model.SERVING, "extra"],
                signature_def_map={"predict": sig},
                assets_collection=[asset],
                main_op=tf1.local_variables_initializer(),
            )
            builder.add_meta_graph([tf1.saved_model.TRAINING])
            builder.save()
            frozen = tf1.graph_util.convert_variables_to_constants(
                sess, sess.graph.as_graph_def(), ["prob"]
            )
            del flag
    return d, values, outputs, frozen


def _j_values(sess):
    by_name = {v.op.name: v for v in jtf.global_variables()}
    return {n: sess.run(by_name[n]) for n in VARS}


def _assert_bit_equal(ours, theirs):
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        assert ours[name].dtype == theirs[name].dtype, name
        assert ours[name].tobytes() == theirs[name].tobytes(), name


# -- (a) TF writes, jtrain loads ------------------------------------------------------
def test_jtrain_loads_tf_simple_save(tf_models):
    d, values, outputs, _ = tf_models
    with jtf.Graph().as_default(), jtf.Session() as sess:
        meta = jtf.saved_model.loader.load(sess, [jtf.saved_model.SERVING], str(d / "simple"))
        assert list(meta.meta_info_def.tags) == ["serve"]
        sig = meta.signature_def[jtf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        assert sig.method_name == "tensorflow/serving/predict"
        assert sig.inputs["x"].name == "x:0" and sig.outputs["prob"].name == "prob:0"
        _assert_bit_equal(_j_values(sess), values)
        prob = sess.run(sig.outputs["prob"].name, {sig.inputs["x"].name: X})
    np.testing.assert_allclose(prob, outputs["prob"], rtol=1e-6)


def test_jtrain_loads_tf_builder_meta_graphs_main_op_and_assets(tf_models):
    d, values, outputs, _ = tf_models
    path = str(d / "builder")
    with jtf.Graph().as_default(), jtf.Session() as sess:
        # tf.saved_model.load is TF1's loader in tf.compat.v1; tags match as a set.
        meta = jtf.saved_model.load(sess, ["extra", "serve"], path)
        sig = meta.signature_def["predict"]
        out = sess.run(
            {k: sig.outputs[k].name for k in ("logits", "prob")}, {sig.inputs["in"].name: X}
        )
        _assert_bit_equal(_j_values(sess), values)
        # The main op (TF's local_variables_initializer) ran after the restore.
        assert sess.run("flag:0") == 7
        # The asset's AssetFileDefs (TF's Anys: simple_save, then the builder, added one
        # to the graph's collection) and its copy under assets/.
        packed = jtf.get_collection(jtf.saved_model.ASSETS_KEY)
        assert [p.type_url for p in packed] == ["type.googleapis.com/tensorflow.AssetFileDef"] * 2
    # float32 sums in another order: the rounding is relative to the summands, so a
    # logit near 0 (a cancellation) gets an absolute bound of 1e-6 of the largest.
    scale = np.abs(outputs["logits"]).max()
    np.testing.assert_allclose(out["logits"], outputs["logits"], rtol=1e-6, atol=1e-6 * scale)
    np.testing.assert_allclose(out["prob"], outputs["prob"], rtol=1e-6)
    assert (d / "builder" / "assets" / "vocab.txt").read_text() == "a\nb\n"
    with jtf.Graph().as_default(), jtf.Session() as sess:
        meta = jtf.saved_model.loader.load(sess, ["train"], path, import_scope="imported")
        assert not meta.signature_def
        by_name = {v.op.name: v for v in jtf.global_variables()}
        assert sess.run(by_name["imported/h/kernel"]).tobytes() == values["h/kernel"].tobytes()


def test_missing_tags_raise_tfs_runtime_error(tf_models):
    d = str(tf_models[0] / "builder")
    with classic_tf1(), real_tf.Graph().as_default(), tf1.Session() as sess:
        with pytest.raises(RuntimeError) as theirs:
            tf1.saved_model.loader.load(sess, ["serve"], d)
    with jtf.Graph().as_default(), jtf.Session() as sess:
        with pytest.raises(RuntimeError) as ours:
            jtf.saved_model.loader.load(sess, ["serve"], d)
    assert str(ours.value) == str(theirs.value)
    assert "could not be found in SavedModel" in str(ours.value)


def test_missing_saved_model_raises_tfs_oserror(tmp_path):
    with pytest.raises(OSError) as theirs:
        tf1.saved_model.loader.load(None, ["serve"], str(tmp_path))
    with pytest.raises(OSError) as ours:
        jtf.saved_model.loader.load(None, ["serve"], str(tmp_path))
    assert str(ours.value) == str(theirs.value)
    assert tf1.saved_model.contains_saved_model(str(tmp_path)) is False
    assert jtf.saved_model.contains_saved_model(str(tmp_path)) is False


def test_builder_refuses_a_non_empty_dir_as_tf(tmp_path):
    (tmp_path / "other").write_text("x")
    with pytest.raises(AssertionError) as theirs:
        tf1.saved_model.Builder(str(tmp_path))
    with pytest.raises(AssertionError) as ours:
        jtf.saved_model.Builder(str(tmp_path))
    assert str(ours.value) == str(theirs.value)


# -- (b) jtrain writes, TF reads --------------------------------------------------------
def _parse_tf(path):
    from tensorflow.core.protobuf import saved_model_pb2

    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        return saved_model_pb2.SavedModel.FromString(f.read())


def test_tf_parses_jtrain_saved_model_and_reads_its_variables(tf_models, tmp_path):
    d, values, outputs, _ = tf_models
    path = str(tmp_path / "jtrain")
    with jtf.Graph().as_default(), jtf.Session() as sess:
        x, logits, prob = _mlp(jtf)
        jtf.train.Saver().restore(sess, str(d / "simple" / "variables" / "variables"))
        j_prob = sess.run(prob, {x: X})
        jtf.saved_model.simple_save(sess, path, {"x": x}, {"prob": prob})
    np.testing.assert_allclose(j_prob, outputs["prob"], rtol=1e-6)
    ours, theirs = _parse_tf(path), _parse_tf(str(d / "simple"))
    assert ours.saved_model_schema_version == 1
    (meta,) = ours.meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    # The same signature as TF's simple_save of the same graph, field for field.
    assert meta.signature_def == theirs.meta_graphs[0].signature_def
    assert meta.saver_def.restore_op_name == "save/restore_all"
    # TF's checkpoint reader: the variables bit for bit.
    reader = real_tf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    _assert_bit_equal({n: reader.get_tensor(n) for n in VARS}, values)
    # TF's loader cannot import jtrain's random initializers: their generator nodes
    # (RandomGenerator, TF's Philox stream) or, for other jtrain ops, JaxFunction nodes.
    with classic_tf1(), real_tf.Graph().as_default(), tf1.Session() as sess:
        with pytest.raises(
            real_tf.errors.NotFoundError,
            match="Op type not registered '(RandomGenerator|JaxFunction)'",
        ):
            tf1.saved_model.loader.load(sess, ["serve"], path)


def test_tf_loads_and_runs_a_jtrain_saved_model_of_tf_ops(tf_models, tmp_path):
    """A graph of TF op types only (variables initialized from constants): TF's
    loader imports it, restores through the written RestoreV2/Assign nodes and runs
    the signature to jtrain's outputs."""
    _, values, _, _ = tf_models
    path = str(tmp_path / "tf_ops")
    with jtf.Graph().as_default(), jtf.Session() as sess:
        x = jtf.placeholder(jtf.float32, [None, 4], name="x")
        w = {n: jtf.Variable(np.zeros_like(v), name=n) for n, v in values.items()}
        h = jtf.nn.relu(jtf.nn.bias_add(jtf.matmul(x, w["h/kernel"]), w["h/bias"]))
        logits = jtf.nn.bias_add(jtf.matmul(h, w["out/kernel"]), w["out/bias"])
        prob = jtf.nn.softmax(logits, name="prob")
        sess.run(jtf.global_variables_initializer())
        for n, v in values.items():
            w[n].load(v, sess)
        j_prob = sess.run(prob, {x: X})
        builder = jtf.saved_model.builder.SavedModelBuilder(path)
        sig = jtf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"p": prob})
        builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"s": sig})
        assert builder.save() == os.path.join(path, "saved_model.pb").encode()
    with classic_tf1(), real_tf.Graph().as_default(), tf1.Session() as sess:
        meta = tf1.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def["s"]
        t_prob = sess.run(sig.outputs["p"].name, {sig.inputs["x"].name: X})
        t_values = {n: sess.run(n + ":0") for n in values}
    _assert_bit_equal(t_values, values)
    np.testing.assert_allclose(t_prob, j_prob, rtol=1e-6)


def test_tf_reads_jtrain_main_op_and_assets(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("x\n")
    path = str(tmp_path / "assets_model")
    with jtf.Graph().as_default(), jtf.Session() as sess:
        asset = jtf.constant(str(vocab), name="vocab_path")
        v = jtf.Variable(np.float32(2.5), name="v")
        sess.run(v.initializer)
        builder = jtf.saved_model.Builder(path)
        builder.add_meta_graph_and_variables(
            sess, ["serve"], assets_collection=[asset], main_op=jtf.no_op(name="main")
        )
        builder.save()
    meta = _parse_tf(path).meta_graphs[0]
    from tensorflow.python.saved_model import loader_impl

    assets = loader_impl.get_asset_tensors(path.encode(), meta)
    assert assets == {"vocab_path:0": os.path.join(path, "assets", "vocab.txt").encode()}
    assert list(meta.collection_def["saved_model_main_op"].node_list.value) == ["main"]
    with classic_tf1(), real_tf.Graph().as_default(), tf1.Session() as sess:
        tf1.saved_model.loader.load(sess, ["serve"], path)
        assert sess.run("v:0") == np.float32(2.5)


def _walk(ours, theirs, left_out=frozenset()):
    """jtrain's message has TF's fields (number, name, type, label, oneof)."""
    theirs_by_number = {f.number: f for f in theirs.fields}
    for f in ours.fields:
        t = theirs_by_number.pop(f.number)
        assert (f.name, f.type, f.is_repeated) == (t.name, t.type, t.is_repeated), f.full_name
        assert (f.containing_oneof and f.containing_oneof.name) == (
            t.containing_oneof and t.containing_oneof.name
        ), f.full_name
    assert {f.name for f in theirs_by_number.values()} == set(left_out), ours.full_name


def test_saved_model_protos_match_tf_field_by_field():
    from tensorflow.core.protobuf import meta_graph_pb2 as tf_meta
    from tensorflow.core.protobuf import saved_model_pb2 as tf_saved

    from jtrain.protos import meta_graph_pb2, saved_model_pb2

    _walk(saved_model_pb2.SavedModel.DESCRIPTOR, tf_saved.SavedModel.DESCRIPTOR)
    _walk(
        meta_graph_pb2.MetaGraphDef.DESCRIPTOR,
        tf_meta.MetaGraphDef.DESCRIPTOR,
        {"object_graph_def"},
    )
    _walk(meta_graph_pb2.SignatureDef.DESCRIPTOR, tf_meta.SignatureDef.DESCRIPTOR)
    _walk(meta_graph_pb2.TensorInfo.DESCRIPTOR, tf_meta.TensorInfo.DESCRIPTOR, {"composite_tensor"})
    _walk(meta_graph_pb2.TensorInfo.CooSparse.DESCRIPTOR, tf_meta.TensorInfo.CooSparse.DESCRIPTOR)
    _walk(meta_graph_pb2.AssetFileDef.DESCRIPTOR, tf_meta.AssetFileDef.DESCRIPTOR)


def test_tensor_info_and_signature_helpers_match_tf():
    def build(tf):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        s = tf.placeholder(tf.string, [None], name="s")
        sp = tf.SparseTensor(
            tf.placeholder(tf.int64, [None, 2], name="i"),
            tf.placeholder(tf.float32, [None], name="v"),
            tf.placeholder(tf.int64, [2], name="ds"),
        )
        return [
            tf.saved_model.build_tensor_info(x),
            tf.saved_model.build_tensor_info(sp),
            tf.saved_model.predict_signature_def({"a": x}, {"b": x}),
            tf.saved_model.regression_signature_def(s, x),
            tf.saved_model.classification_signature_def(s, s, x),
            tf.saved_model.build_signature_def({"i": tf.saved_model.build_tensor_info(x)}),
        ]

    with classic_tf1(), real_tf.Graph().as_default():
        theirs = build(tf1)
        with pytest.raises(ValueError) as t_err:
            tf1.saved_model.regression_signature_def(
                tf1.placeholder(tf1.float32, name="f"), tf1.placeholder(tf1.float32)
            )
    with jtf.Graph().as_default():
        ours = build(jtf)
        with pytest.raises(ValueError) as o_err:
            jtf.saved_model.regression_signature_def(
                jtf.placeholder(jtf.float32, name="f"), jtf.placeholder(jtf.float32)
            )
    for o, t in zip(ours, theirs, strict=True):
        assert o.SerializeToString(deterministic=True) == t.SerializeToString(deterministic=True)
    assert str(o_err.value) == str(t_err.value)
    for o, t in zip(ours[2:], theirs[2:], strict=True):
        assert jtf.saved_model.is_valid_signature(o) == tf1.saved_model.is_valid_signature(t)


# -- (c) frozen graphs --------------------------------------------------------------------
def test_frozen_graphs_both_ways(tf_models):
    d, values, outputs, tf_frozen = tf_models
    with jtf.Graph().as_default() as graph, jtf.Session() as sess:
        x, _, prob = _mlp(jtf)
        jtf.train.Saver().restore(sess, str(d / "simple" / "variables" / "variables"))
        frozen = jtf.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["prob"])
    ours = {n.name: n for n in frozen.node}
    theirs = {n.name: n for n in tf_frozen.node}
    assert list(ours) == list(theirs)
    for name in VARS:
        assert ours[name].op == theirs[name].op == "Const"
        assert (
            ours[name].attr["value"].tensor.SerializeToString()
            == theirs[name].attr["value"].tensor.SerializeToString()
        )
    # jtrain's frozen graph in TF...
    with real_tf.Graph().as_default(), tf1.Session() as sess:
        tf1.import_graph_def(tf1.GraphDef.FromString(frozen.SerializeToString()), name="")
        t_prob = sess.run("prob:0", {"x:0": X})
    np.testing.assert_allclose(t_prob, outputs["prob"], rtol=1e-6)
    # ... and TF's in jtrain.
    with jtf.Graph().as_default(), jtf.Session() as sess:
        jtf.import_graph_def(tf_frozen, name="")
        j_prob = sess.run("prob:0", {"x:0": X})
    np.testing.assert_allclose(j_prob, outputs["prob"], rtol=1e-6)


def test_freezing_errors_as_tf(tf_models):
    tf_frozen = tf_models[3]
    cases = [(["nope"], AssertionError), ("prob", TypeError)]
    for dest, cls in cases:
        with pytest.raises(cls) as theirs:
            tf1.graph_util.extract_sub_graph(tf_frozen, dest)
        with pytest.raises(cls) as ours:
            jtf.graph_util.extract_sub_graph(tf_frozen, dest)
        assert str(ours.value) == str(theirs.value)
    with jtf.Graph().as_default() as graph, jtf.Session() as sess:
        _mlp(jtf)
        with pytest.raises(errors.FailedPreconditionError):
            jtf.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["prob"])


def test_blacklist_and_remove_training_nodes_as_tf(tf_models):
    d = tf_models[0]

    def freeze(tf, sess, graph):
        frozen = tf.graph_util.convert_variables_to_constants(
            sess,
            graph.as_graph_def(),
            ["prob"],
            variable_names_whitelist=["h/kernel", "h/bias", "out/kernel"],
            variable_names_blacklist=["h/bias"],
        )
        pruned = tf.graph_util.remove_training_nodes(frozen, protected_nodes=["h/bias/read"])
        return [(n.name, n.op) for n in frozen.node], [(n.name, list(n.input)) for n in pruned.node]

    with classic_tf1(), real_tf.Graph().as_default() as graph, tf1.Session() as sess:
        _mlp(tf1)
        tf1.train.Saver().restore(sess, str(d / "simple" / "variables" / "variables"))
        theirs = freeze(tf1, sess, graph)
    with jtf.Graph().as_default() as graph, jtf.Session() as sess:
        _mlp(jtf)
        jtf.train.Saver().restore(sess, str(d / "simple" / "variables" / "variables"))
        ours = freeze(jtf, sess, graph)
    assert ours == theirs


def test_tf_runs_the_written_restore_and_save_nodes_of_partitioned_variables(tmp_path):
    """The graph of a partitioned variable has a jtrain node (the concatenation of
    its parts), so TF cannot import it whole; TF runs the restore and save nodes
    written for it (its RestoreV2 slice specs, Assigns, SaveV2) on their own."""
    path = str(tmp_path / "parts")
    with jtf.Graph().as_default(), jtf.Session() as sess:
        x = jtf.placeholder(jtf.float32, [None, 4], name="x")
        w = jtf.get_variable(
            "w",
            [4, 3],
            initializer=jtf.constant_initializer(0.5),
            partitioner=jtf.fixed_size_partitioner(2),
        )
        step = jtf.Variable(np.int64(2**40 + 3), name="step")
        y = jtf.matmul(x, w, name="y")
        sess.run(jtf.global_variables_initializer())
        parts = {p.op.name: RNG.normal(size=p.shape).astype(np.float32) for p in w}
        for p in w:
            p.load(parts[p.op.name], sess)
        jtf.saved_model.simple_save(sess, path, {"x": x}, {"y": y})
        del step
    meta = _parse_tf(path).meta_graphs[0]
    sub = tf1.graph_util.extract_sub_graph(
        meta.graph_def, ["save/restore_all", "save/control_dependency"]
    )
    assert "JaxFunction" not in {n.op for n in sub.node}
    prefix = os.path.join(path, "variables", "variables")
    again = str(tmp_path / "tf_written" / "ckpt")
    with classic_tf1(), real_tf.Graph().as_default(), tf1.Session() as sess:
        tf1.import_graph_def(sub, name="")
        sess.run("save/restore_all", {"save/Const:0": prefix})
        got = {n: sess.run(n + ":0") for n in [*parts, "step"]}
        sess.run("save/control_dependency:0", {"save/Const:0": again})
    _assert_bit_equal(got, {**parts, "step": np.array(2**40 + 3, np.int64)})
    # TF's SaveV2 wrote the full variable "w" from the slices, as jtrain did.
    theirs, ours = real_tf.train.load_checkpoint(again), real_tf.train.load_checkpoint(prefix)
    assert theirs.get_tensor("w").tobytes() == ours.get_tensor("w").tobytes()
    assert theirs.get_tensor("step") == 2**40 + 3


def test_tf_resource_variable_saved_model_reexported_by_jtrain(tmp_path):
    """A TF SavedModel with a resource variable loads in jtrain; jtrain's re-export
    gets its own restore nodes beside TF's imported ``save/`` ones (scope
    ``save_1``, an ``AssignVariableOp`` for the ``VarHandleOp``), which TF runs."""
    value = RNG.normal(size=(4, 3)).astype(np.float32)
    with real_tf.Graph().as_default(), tf1.Session() as sess:
        x = tf1.placeholder(tf1.float32, [None, 4], name="x")
        w = tf1.get_variable("w", initializer=value, use_resource=True)
        y = tf1.matmul(x, w, name="y")
        sess.run(tf1.global_variables_initializer())
        want = sess.run(y, {x: X})
        tf1.saved_model.simple_save(sess, str(tmp_path / "tf"), {"x": x}, {"y": y})
    path = str(tmp_path / "jtrain")
    with jtf.Graph().as_default() as graph, jtf.Session() as sess:
        jtf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "tf"))
        np.testing.assert_allclose(sess.run("y:0", {"x:0": X}), want, rtol=1e-6)
        inputs = {"x": graph.get_tensor_by_name("x:0")}
        jtf.saved_model.simple_save(sess, path, inputs, {"y": graph.get_tensor_by_name("y:0")})
    meta = _parse_tf(path).meta_graphs[0]
    assert meta.saver_def.restore_op_name == "save_1/restore_all"
    sub = tf1.graph_util.extract_sub_graph(meta.graph_def, ["save_1/restore_all"])
    assert {n.name: n.op for n in sub.node}["save_1/AssignVariableOp"] == "AssignVariableOp"
    with real_tf.Graph().as_default() as graph, tf1.Session() as sess:
        tf1.import_graph_def(sub, name="")
        sess.run(
            "save_1/restore_all", {"save_1/Const:0": os.path.join(path, "variables", "variables")}
        )
        handle = graph.get_operation_by_name("w").outputs[0]
        got = sess.run(tf1.raw_ops.ReadVariableOp(resource=handle, dtype=tf1.float32))
    assert got.tobytes() == value.tobytes()
