"""``tf.argmax``/``tf.argmin`` over an empty axis: the node builds (static shape and
dtype as TF's) and the run fails with TF's ``InvalidArgumentError`` (``Reduction axis
1 is empty in shape [2,0]``); bool inputs are accepted, as TF 2.21's kernels do."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

FUNCTIONS = {"argmax": 1, "argmin": 2, "math.argmax": 1, "arg_min": 2}


def _function(name):
    namespace, _, short = name.rpartition(".")
    return getattr(getattr(tf, namespace) if namespace else tf, short)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_an_empty_axis_fails_when_run(graph, name):
    fn = _function(name)
    x = tf.placeholder(tf.float32, [None, None])
    out = fn(x, 1)
    assert out.shape.as_list() == [None] and out.dtype == tf.int64
    static = fn(tf.zeros([2, 0]), -1)
    assert static.shape.as_list() == [2]
    with tf.Session() as sess:
        assert sess.run(out, {x: [[1.0, 3.0, 0.5]]}).tolist() == [FUNCTIONS[name]]
        message = r"Reduction axis 1 is empty in shape \[2,0\]"
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(out, {x: np.zeros([2, 0], np.float32)})
        message = r"Reduction axis -1 is empty in shape \[2,0\]"
        with pytest.raises(tf.errors.InvalidArgumentError, match=message) as info:
            sess.run(static)
        assert info.value.op is static.op
        # nothing to reduce over, but no result either: an empty result
        assert sess.run(out, {x: np.zeros([0, 3], np.float32)}).shape == (0,)


def test_only_nodes_whose_axis_may_be_empty_are_checked(graph):
    known = tf.argmax(tf.placeholder(tf.float32, [None, 10]), 1)
    unknown = tf.argmax(tf.placeholder(tf.float32, [None, None]), 1)
    computed = tf.argmax(tf.ones([2, 3]), tf.constant(1) + 0)
    assert getattr(known.op, "_runtime_check", None) is None
    assert getattr(unknown.op, "_runtime_check", None) is not None
    assert getattr(computed.op, "_runtime_check", None) is not None
    with tf.Session() as sess:
        assert sess.run(computed).tolist() == [0, 0]


def test_bool_inputs(graph):
    b = tf.constant([[False, True, True], [False, False, False]])
    with tf.Session() as sess:
        assert sess.run(tf.argmax(b, 1)).tolist() == [1, 0]
        assert sess.run(tf.argmin(b, 1, output_type=tf.int32)).tolist() == [0, 0]
    with pytest.raises(TypeError, match="not in list of allowed values: float32, float64"):
        tf.argmax(tf.constant(["a"]), 0)
