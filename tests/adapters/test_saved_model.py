"""``tf.saved_model`` (TF1 SavedModels) and ``tf.graph_util`` in jtrain alone.

What TF does with the same calls (classes, messages, the written protos) is
checked live in ``tests/interop/test_saved_model_interop.py``; here: files appear
complete and only inside the export directory, a jtrain SavedModel reloads
without its Python code, and the arguments are checked as TF checks them.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.saved_model import loader_impl
from jtrain import errors
from jtrain.protos import saved_model_pb2

X = np.arange(8, dtype=np.float32).reshape(2, 4) / 3.0


def _model():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.get_variable("w", [4, 3], initializer=tf.random_normal_initializer(seed=1))
    step = tf.Variable(np.int64(2**40 + 3), name="step")
    y = tf.nn.softmax(tf.matmul(x, w), name="y")
    return x, w, step, y


def _listing(root):
    return sorted(
        os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
    )


def test_simple_save_writes_tfs_layout_only_inside_export_dir(graph, tmp_path):
    x, w, step, y = _model()
    export = tmp_path / "model"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, str(export), {"x": x}, {"y": y})
    assert _listing(tmp_path) == [
        "model/saved_model.pb",
        "model/variables/variables.data-00000-of-00001",
        "model/variables/variables.index",
    ]
    with open(export / "saved_model.pb", "rb") as f:
        proto = saved_model_pb2.SavedModel.FromString(f.read())
    assert proto.saved_model_schema_version == 1
    (meta,) = proto.meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    sig = meta.signature_def["serving_default"]
    assert (sig.inputs["x"].name, sig.outputs["y"].name) == ("x:0", "y:0")
    assert [d.size for d in sig.inputs["x"].tensor_shape.dim] == [-1, 4]
    # TF's restore nodes are in the written graph, not in the session's graph.
    nodes = {n.name: n.op for n in meta.graph_def.node}
    assert nodes["save/RestoreV2"] == "RestoreV2" and nodes["save/restore_all"] == "NoOp"
    assert "save/RestoreV2" not in {op.name for op in graph.get_operations()}


def test_jtrain_saved_model_reloads_without_python_code(tmp_path):
    export = str(tmp_path / "model")
    with tf.Graph().as_default(), tf.Session() as sess:
        x, w, step, y = _model()
        sess.run(tf.global_variables_initializer())
        want = sess.run([y, w, step], {x: X})
        tf.saved_model.simple_save(sess, export, {"x": x}, {"y": y})
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export)
        sig = meta.signature_def["serving_default"]
        variables = {v.op.name: v for v in tf.global_variables()}
        got = sess.run(
            [sig.outputs["y"].name, variables["w"], variables["step"]],
            {sig.inputs["x"].name: X},
        )
        tensor = tf.saved_model.utils.get_tensor_from_tensor_info(sig.outputs["y"], graph)
        assert tensor.name == "y:0"
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1].tobytes() == want[1].tobytes()
    assert got[2].dtype == np.int64 and got[2] == 2**40 + 3


def test_builder_writes_saved_model_pb_last_and_atomically(graph, tmp_path):
    x, w, step, y = _model()
    export = str(tmp_path / "model")
    builder = tf.saved_model.Builder(export)
    assert os.path.isdir(export) and not os.listdir(export)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        builder.add_meta_graph_and_variables(sess, [tf.saved_model.TRAINING])
    # Variables complete, but no saved_model.pb yet: not a SavedModel.
    assert sorted(os.listdir(export)) == ["variables"]
    assert tf.saved_model.contains_saved_model(export) is False
    builder.add_meta_graph(["other"])
    path = builder.save(as_text=True)
    assert path == os.path.join(export, "saved_model.pbtxt").encode()
    assert tf.saved_model.maybe_saved_model_directory(export) is True
    assert tf.saved_model.loader.maybe_saved_model_directory(export) is True
    assert _listing(export) == [
        "saved_model.pbtxt",
        "variables/variables.data-00000-of-00001",
        "variables/variables.index",
    ]
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.load(sess, ["other"], export)
        assert list(meta.meta_info_def.tags) == ["other"]


def test_failed_variable_save_leaves_no_files(graph, tmp_path):
    _model()
    export = str(tmp_path / "model")
    builder = tf.saved_model.Builder(export)
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized"):
            builder.add_meta_graph_and_variables(sess, ["serve"])
    assert os.listdir(export) == []
    assert _listing(tmp_path) == []


def test_assets_are_copied_and_fed_to_the_main_op(graph, tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\n")
    asset = tf.constant(str(vocab), name="vocab")
    tf.get_local_variable("flag", initializer=7)
    main = tf.local_variables_initializer()
    export = str(tmp_path / "model")
    with tf.Session() as sess:
        builder = tf.saved_model.Builder(export)
        builder.add_meta_graph_and_variables(
            sess, ["serve"], assets_collection=[asset], legacy_init_op=main
        )
        builder.save()
    assert sorted(os.listdir(export)) == ["assets", "saved_model.pb", "variables"]
    assert os.listdir(os.path.join(export, "variables")) == []  # no variables: no checkpoint
    assert (tmp_path / "model" / "assets" / "vocab.txt").read_text() == "a\n"
    # The graph's collections got the asset and the main op, as TF's builder adds them.
    assert len(tf.get_collection(tf.saved_model.ASSETS_KEY)) == 1
    assert tf.get_collection(tf.saved_model.MAIN_OP_KEY) == [main]
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export)
        (flag,) = tf.local_variables()
        assert sess.run(flag) == 7  # the main op ran, fed the asset's path
    assert loader_impl.get_asset_tensors(export, meta) == {
        "vocab:0": os.path.join(export, "assets", "vocab.txt")
    }


def test_builder_argument_errors(graph, tmp_path):
    x, w, step, y = _model()
    builder = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "m"))
    with pytest.raises(AssertionError, match="has not been saved yet"):
        builder.add_meta_graph(["serve"])
    good = tf.saved_model.predict_signature_def({"x": x}, {"y": y})
    with pytest.raises(KeyError, match="reserved for initialization"):
        builder.add_meta_graph_and_variables(None, ["serve"], {"__saved_model_init_op": good})
    no_dtype = tf.saved_model.build_signature_def(
        {"x": tf.saved_model.build_tensor_info(x)}, {"y": tf.saved_model.build_tensor_info(y)}
    )
    no_dtype.outputs["y"].dtype = 0
    with pytest.raises(AssertionError, match="must have the dtype field set"):
        builder.add_meta_graph_and_variables(None, ["serve"], {"s": no_dtype})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(TypeError, match="Expected init to be an Operation"):
            builder.add_meta_graph_and_variables(sess, ["serve"], main_op="init")
        with pytest.raises(TypeError, match="must be of type constant"):
            builder.add_meta_graph_and_variables(sess, ["serve"], assets_collection=[y])
        builder.add_meta_graph_and_variables(sess, ["serve"], main_op=tf.no_op())
        with pytest.raises(AssertionError, match="already been saved"):
            builder.add_meta_graph_and_variables(sess, ["serve"])
        with pytest.raises(ValueError, match="already contains one or more main ops"):
            builder.add_meta_graph(["b"], main_op=tf.no_op())
    with pytest.raises(RuntimeError, match="proto_splitter"):
        builder.save(experimental_image_format=True)


def test_signature_helpers_validate_as_tf(graph):
    x = tf.placeholder(tf.float32, [None], name="x")
    s = tf.placeholder(tf.string, [None], name="s")
    with pytest.raises(ValueError, match="Prediction `inputs` cannot be None or empty."):
        tf.saved_model.predict_signature_def({}, {"y": x})
    with pytest.raises(ValueError, match="Prediction `outputs` cannot be None or empty."):
        tf.saved_model.predict_signature_def({"x": x}, None)
    with pytest.raises(ValueError, match="cannot both be None"):
        tf.saved_model.classification_signature_def(s, None, None)
    with pytest.raises(ValueError, match="Classification scores must be a float Tensor."):
        tf.saved_model.classification_signature_def(s, None, s)
    with pytest.raises(ValueError, match="Regression `examples` cannot be None."):
        tf.saved_model.regression_signature_def(None, x)
    sig = tf.saved_model.regression_signature_def(s, x)
    assert tf.saved_model.is_valid_signature(sig)
    assert sig.method_name == tf.saved_model.REGRESS_METHOD_NAME
    sig.outputs["extra"].CopyFrom(sig.outputs["outputs"])
    assert not tf.saved_model.is_valid_signature(sig)
    assert not tf.saved_model.is_valid_signature(None)
    defaults = tf.saved_model.build_signature_def(
        defaults={"k": tf.constant(np.int64(2**40), name="k")}
    )
    assert defaults.defaults["k"].dtype == tf.int64.as_datatype_enum
    with pytest.raises(ValueError, match="Unable to convert object"):
        tf.saved_model.build_signature_def(defaults={"k": x})
    with pytest.raises(AttributeError, match="get_shape"):
        tf.saved_model.build_tensor_info(np.ones(2))


def test_loader_errors(graph, tmp_path):
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.loader.load(None, ["serve"], str(tmp_path))
    (tmp_path / "saved_model.pb").write_bytes(b"\xff\xff\xff")
    with pytest.raises(OSError, match="Cannot parse file"):
        tf.saved_model.loader.load(None, ["serve"], str(tmp_path))


def test_main_op_groups_the_initializers(graph):
    v = tf.Variable(1.0, name="v")
    local = tf.get_local_variable("l", initializer=3.0)
    op = tf.saved_model.main_op.main_op()
    with tf.Session() as sess:
        sess.run(op)
        assert sess.run([v, local]) == [1.0, 3.0]
    with_restore = tf.saved_model.main_op_with_restore(tf.no_op(name="restore").name)
    assert with_restore.type == "NoOp"


# -- tf.graph_util ------------------------------------------------------------------------
def test_convert_variables_to_constants_exact_bits_and_lists(graph):
    x, w, step, y = _model()
    # reduce_sum and cast: their GraphDef nodes alone leave arguments out, and
    # jax_function is jtrain's own type: the frozen nodes carry their computation.
    total = tf.jax_function(lambda v: v * 2.0, [tf.reduce_sum(y) + tf.cast(step, tf.float32)])
    total = tf.identity(total, name="total")
    tf.identity(step, name="step_out")
    outputs = ["total", "step_out"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w_value, want = sess.run([w, total], {x: X})
        frozen = tf.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), outputs)
        partial = tf.graph_util.convert_variables_to_constants(
            sess, graph.as_graph_def(), outputs, variable_names_blacklist=["step"]
        )
        only = tf.graph_util.convert_variables_to_constants(
            sess, graph.as_graph_def(), outputs, variable_names_whitelist=["step"]
        )
    nodes = {n.name: n for n in frozen.node}
    assert nodes["w"].op == "Const" and nodes["step"].op == "Const"
    assert sorted(nodes["w"].attr) == ["dtype", "value"]
    assert nodes["w"].attr["value"].tensor.tensor_content == w_value.tobytes()
    step_bits = nodes["step"].attr["value"].tensor.tensor_content
    assert step_bits == np.int64(2**40 + 3).tobytes()
    assert {n.name: n.op for n in partial.node}["step"] == "VariableV2"
    assert {n.name: n.op for n in only.node}["w"] == "VariableV2"
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.import_graph_def(frozen, name="")
        total, step_out = sess.run(["total:0", "step_out:0"], {"x:0": X})
    assert (
        total.tobytes() == want.tobytes() and step_out.dtype == np.int64 and step_out == 2**40 + 3
    )


def test_extract_sub_graph_and_remove_training_nodes(graph):
    a = tf.placeholder(tf.float32, name="a")
    b = tf.identity(a, name="b")
    c = tf.check_numerics(b, "bad", name="c")
    d = tf.identity(c * 2.0, name="d")
    tf.identity(a, name="unused")
    del d
    sub = tf.graph_util.extract_sub_graph(graph.as_graph_def(), ["d"])
    assert "unused" not in {n.name for n in sub.node}
    pruned = tf.graph_util.remove_training_nodes(sub, protected_nodes=["d"])
    names = {n.name: list(n.input) for n in pruned.node}
    assert "b" not in names and "c" not in names and "d" in names
    with pytest.raises(TypeError, match="graph_def must be a graph_pb2.GraphDef proto"):
        tf.graph_util.extract_sub_graph(b"not a graph", ["d"])
    node = {n.name: n for n in sub.node}["a"]
    assert tf.graph_util.must_run_on_cpu(node) is False
    assert tf.graph_util.tensor_shape_from_node_def_name(graph, "a").dims is None
