"""Graph building: names, scopes, collections, control dependencies, finalize."""

import numpy as np
import pytest

from adapters import v1 as tf


def test_unique_names_and_scopes(graph):
    a = tf.constant(1.0, name="c")
    b = tf.constant(2.0, name="c")
    with tf.name_scope("layer"):
        c = tf.constant(3.0, name="c")
        w = tf.Variable(np.zeros(2, np.float32), name="w")
    with tf.name_scope("layer"):
        d = tf.constant(4.0, name="c")
    assert [a.name, b.name, c.name, d.name] == ["c:0", "c_1:0", "layer/c:0", "layer_1/c:0"]
    assert w.name == "layer/w:0" and w.op.name == "layer/w"
    assert w.initializer.name == "layer/w/Assign"
    assert graph.get_tensor_by_name("layer/c:0") is c
    assert graph.get_operation_by_name("layer/w") is w.op


def test_default_graph_stack():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        assert tf.get_default_graph() is g1
        with g2.as_default():
            assert tf.get_default_graph() is g2
            with pytest.raises(AssertionError):
                tf.reset_default_graph()
        assert tf.get_default_graph() is g1


def test_collections(graph):
    w = tf.Variable(1.0, name="w")
    s = tf.Variable(2.0, name="s", trainable=False)
    loc = tf.Variable(3.0, name="l", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    assert tf.global_variables() == [w, s]
    assert tf.trainable_variables() == [w]
    assert tf.local_variables() == [loc]
    tf.add_to_collection("mine", 7)
    assert tf.get_collection("mine") == [7]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="s") == [s]


def test_finalized_graph_rejects_new_ops(graph):
    tf.constant(1.0)
    graph.finalize()
    with pytest.raises(RuntimeError, match="finalized"):
        tf.constant(2.0)
    with pytest.raises(RuntimeError, match="finalized"):
        tf.add_to_collection("x", 1)


def test_ops_from_another_graph_are_rejected(graph):
    other = tf.Graph()
    with other.as_default():
        x = tf.constant(1.0)
    with pytest.raises(ValueError, match="same graph"):
        tf.jax_function(lambda a: a + 1, [x])


def test_tensor_has_no_python_truth_value(graph):
    x = tf.constant(1.0)
    with pytest.raises(TypeError, match="Python bool"):
        bool(x)


def test_jax_function_output_shapes(graph):
    x = tf.placeholder("float32", [None, 3])
    w = tf.Variable(np.zeros((3, 4), np.float32))
    y = x @ w
    assert y.shape == (None, 4) and y.dtype == np.float32
    s, m = tf.jax_function(lambda a: (a.sum(), a.mean(axis=0)), [y])
    assert s.shape == () and m.shape == (4,)


@pytest.mark.parametrize(
    "obj, kwargs, error, message",
    [  # TF 2.21's classes and messages (compared live in tests/interop)
        ("x:5", {}, KeyError, "The operation, 'x', exists but only has 1 outputs."),
        ("nope:0", {}, KeyError, "The operation, 'nope', does not exist in the graph."),
        ("x:a", {}, ValueError, "looks a like a Tensor name, but is not a valid one"),
        ("x", {"allow_operation": False}, ValueError, "refers to an Operation, not a Tensor."),
        ("x:0", {"allow_tensor": False}, ValueError, "appears to refer to a Tensor, not a Oper"),
        (3, {}, TypeError, "Can not convert a int into a Tensor or Operation."),
        ("x", {"allow_tensor": False, "allow_operation": False}, ValueError, "can't both be"),
    ],
)
def test_as_graph_element_errors(graph, obj, kwargs, error, message):
    tf.placeholder("float32", [None, 2], name="x")
    with pytest.raises(error) as info:
        graph.as_graph_element(obj, **kwargs)
    assert message in str(info.value)


def test_graph_operation_and_tensor_members(graph):
    x = tf.placeholder("float32", [None, 2], name="x")
    c = tf.constant([1.0, 2.0], name="c")
    y, z = x + c, x * 2.0
    v = tf.Variable(3, name="v")
    assert [op.name for op in x.consumers()] == [y.op.name, z.op.name]
    assert x.op.values() == (x,) and x.op.device == ""
    assert x.op.get_attr("dtype") == np.float32 and x.op.get_attr("shape") == (None, 2)
    assert y.op.get_attr("T") == np.float32
    np.testing.assert_array_equal(c.op.get_attr("value"), [1.0, 2.0])
    assert v.op.get_attr("dtype") == np.int32 and v.op.get_attr("shared_name") == ""
    with pytest.raises(ValueError, match="Operation 'x' has no attr named 'foo'."):
        x.op.get_attr("foo")
    assert graph.as_graph_element(v) is v.value() and graph.seed is None
    tf.set_random_seed(5)
    assert (
        graph.seed == 5
        and not graph.building_function
        and graph.version == len(graph.get_operations())
    )
    tf.get_collection_ref("empty")
    assert "empty" in graph.get_all_collection_keys() and "empty" in graph.collections
    graph.clear_collection(tf.GraphKeys.GLOBAL_VARIABLES)
    assert tf.global_variables() == []
    with pytest.raises(TypeError, match="Tensor names are strings"):
        graph.get_tensor_by_name(3)


def test_device_scopes_merge_and_canonicalise_as_tf(graph):
    # Expected devices: TF 2.21's (tests/interop/test_framework_fixes_interop.py checks live).
    with tf.device("/gpu:0"):
        a = tf.constant(1.0)
    with tf.device("/job:worker"):
        with tf.device("/gpu:1"):
            b = tf.constant(1.0)
        with tf.device(None):
            c = tf.constant(1.0)
    with tf.device(tf.DeviceSpec(job="ps", device_type="GPU", device_index=0)):
        d = tf.constant(1.0)
    with tf.device("/job:w"):
        with tf.device(lambda op: "/gpu:3"):
            e = tf.constant(1.0)
    with tf.device(lambda op: "/gpu:3"):
        f = tf.constant(1.0)
    got = [t.op.device for t in (a, b, c, d, e, f)]
    assert got == [
        "/device:GPU:0",
        "/job:worker/device:GPU:1",
        "",
        "/job:ps/device:GPU:0",
        "/job:w/device:GPU:3",
        "/gpu:3",  # a function's result is recorded as it is
    ]
    nodes = {n.name: n.device for n in graph.as_graph_def().node}
    assert nodes[d.op.name] == "/job:ps/device:GPU:0"
    with pytest.raises(ValueError, match="Unknown attribute 'foo'"):
        with tf.device("/foo:0"):
            pass


def test_control_dependency_on_a_data_input_is_dropped_as_tf(graph):
    a = tf.constant(1.0, name="a")
    with tf.control_dependencies([a]):
        b = tf.identity(a)  # a is a data input: no control input (TF)
        c = tf.constant(2.0)  # created inside: controlled
        d = tf.identity(c)  # its input was created inside the block: none
    assert b.op.control_inputs == ()
    assert [op.name for op in c.op.control_inputs] == ["a"]
    assert d.op.control_inputs == ()
