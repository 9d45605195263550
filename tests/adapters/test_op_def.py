"""The op table's lifting mechanism: names, node types, dtype rules, static arguments.

Values and gradients against TensorFlow are in ``test_ops_goldens.py``; TF's
messages used here were read from TF 2.21 graph mode.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework.op_def import FUNCTIONS, OPS, OpDef


def test_table_is_introspectable():
    assert isinstance(OPS["add"], OpDef)
    assert OPS["add"] is OPS["math.add"]
    assert OPS["add"].op_type == "AddV2"
    assert OPS["clip_by_value"].tf_gradient  # says where TF's gradient differs
    for name, entry in OPS.items():
        assert name in entry.names
        # "" : TF's function has no name parameter (tf.image.flip_left_right(image)).
        assert entry.name_param in (*entry.signature.parameters, ""), name
        assert FUNCTIONS[name]._op_def is entry


def test_entry_without_name_parameter_and_with_checks(graph):
    x = tf.placeholder(np.float32, [5, 7, 3])
    assert tf.image.flip_left_right(x).op.name == "flip_left_right"
    assert tf.image.flip_left_right(x).op.name == "flip_left_right_1"
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'name'"):
        tf.image.flip_left_right(x, name="flip")
    # The entry's check raises TF's graph-construction error before the node exists.
    with pytest.raises(ValueError, match=r"^'image' \(shape \(5, 7\)\) must be at least"):
        tf.image.flip_left_right(tf.placeholder(np.float32, [5, 7]))


def test_namespaces_expose_table_names():
    assert tf.add is FUNCTIONS["add"]
    assert tf.math.add is FUNCTIONS["math.add"]
    assert tf.math.floormod is FUNCTIONS["math.floormod"]
    assert tf.linalg.matmul is FUNCTIONS["linalg.matmul"]
    assert inspect.signature(tf.reduce_sum) == OPS["reduce_sum"].signature


def test_nodes_carry_tf_types_and_names(graph):
    x = tf.placeholder(np.float32, [2, 3], name="x")
    y = tf.add(x, 1.0)
    assert (y.op.type, y.name) == ("AddV2", "Add:0")
    assert tf.reduce_sum(x).op.type == "Sum"
    assert (x + x).name == "add_1:0"  # TF: unique names ignore case ("Add" is taken)
    assert (x * 2.0).op.type == "Mul"
    assert x[0].op.type == "StridedSlice"
    with tf.name_scope("layer"):
        assert tf.matmul(x, x, transpose_b=True).name == "layer/MatMul:0"
    assert tf.identity(x, name="out").name == "out:0"


def test_static_shapes_and_dtypes(graph):
    x = tf.placeholder(np.float32, [None, 3])
    assert tf.reduce_sum(x, axis=1).shape == (None,)
    assert tf.cast(x, np.int32).dtype == np.int32
    assert tf.concat([x, x], axis=1).shape == (None, 6)


def test_mixed_dtypes_raise_tf_type_error(graph):
    i = tf.constant([1, 2])
    f = tf.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32"):
        tf.add(i, f)
    with pytest.raises(TypeError, match="Input 'y' of 'Mul' Op has type int32"):
        f * i
    with pytest.raises(TypeError, match="Expected int32, but got 2.5"):
        2.5 - i
    with pytest.raises(TypeError, match="not in list of allowed values: bfloat16"):
        tf.sqrt(i)
    # A Python number takes the tensor's dtype.
    assert (f + 1).dtype == np.float32 and (i * 3).dtype == np.int32


def test_argument_errors_name_the_op(graph):
    x = tf.placeholder(np.float32, [2, 3])
    with pytest.raises(TypeError, match=r"reduce_sum\(\)"):
        tf.reduce_sum(x, bogus=1)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'reduction_indices'"):
        tf.reduce_sum(x, axis=0, reduction_indices=0)


def test_computed_static_argument_is_refused(graph):
    x = tf.placeholder(np.float32, [2, 3])
    n = tf.cast(tf.Variable([3.0, 2.0]), tf.int32)  # a variable's value: not a shape
    with pytest.raises(NotImplementedError, match="argument 'shape' of|'shape' must be known"):
        tf.reshape(x, n)
    # A constant is known when the graph is built.
    assert tf.reshape(x, tf.constant([3, 2])).shape == (3, 2)


def test_clip_gradient_in_session(graph):
    x = tf.placeholder(np.float32, [4])
    y = tf.reduce_mean(tf.square(tf.clip_by_value(x, -1.0, 1.0)))
    (g,) = tf.gradients(y, x)
    with tf.Session() as sess:
        value, grad = sess.run([y, g], {x: np.array([-2.0, -1.0, 0.5, 1.0], np.float32)})
    np.testing.assert_allclose(value, (1 + 1 + 0.25 + 1) / 4)
    # TF's clip_by_value passes the gradient at the bounds (JAX's clip halves it).
    np.testing.assert_array_equal(grad, [0.0, -0.5, 0.25, 0.5])


def test_nodes_of_one_entry_get_their_own_shapes_from_the_specs_cache():
    """Output specs are cached by entry, arguments and input shapes: nodes differing
    in any of them (an axis, a tuple or a list, a shape, a dtype) get their own."""
    from adapters.v1.framework import op_def

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3, 4])
        y = tf.placeholder(tf.float32, [2, None, 5])
        shapes = [
            tf.reduce_sum(x, axis=0).shape.as_list(),
            tf.reduce_sum(x, axis=0).shape.as_list(),
            tf.reduce_sum(x, axis=1).shape.as_list(),
            tf.reduce_sum(x, axis=(0, 2)).shape.as_list(),
            tf.reduce_sum(y, axis=0).shape.as_list(),
            tf.reduce_sum(tf.cast(x, tf.int32), axis=2).dtype,
        ]
    assert shapes == [[3, 4], [3, 4], [2, 4], [3], [None, 5], tf.int32]
    entry = OPS["reduce_sum"]
    keys = {
        op_def._specs_key(entry, {"axis": axis}, {"input_tensor": 0}, [x])
        for axis in ((0, 1), [0, 1], 0, 0.0, True)
    }
    assert len(keys) == 5
    assert op_def._specs_key(entry, {"axis": np.int32(0)}, {}, [x]) is None  # not JSON
    assert op_def.to_json((1, [2, (3,)])) == {"__tuple__": [1, [2, {"__tuple__": [3]}]]}
