"""``tf.py_function`` without TensorFlow (TF parity: tests/interop/test_py_function_interop.py)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def test_values_have_numpy_and_results_follow_tout(graph):
    x = tf.placeholder(tf.float64)
    y = tf.py_function(lambda a: a.numpy() + 1, [x], tf.float64)
    i = tf.py_function(lambda a: [int(a.numpy().sum())], [x], [tf.int64])
    assert y.op.type == "EagerPyFunc" and y.op.name == "EagerPyFunc"
    with tf.Session() as sess:
        out, (n,) = sess.run([y, i], {x: [0.1, 2**52]})
    assert out.dtype == np.float64 and out.tolist() == [1.1, 2**52 + 1]
    assert n.dtype == np.int64 and int(n) == 2**52


def test_gradient_through_it_is_a_lookup_error(graph):
    x = tf.placeholder(tf.float32, [2])
    v = tf.Variable([1.0, 2.0])
    y = tf.py_function(lambda a: a * 3.0, [x], tf.float32)
    z = tf.py_function(lambda a: a * 3.0, [v * 2.0], tf.float32, name="z")
    with pytest.raises(LookupError, match="No gradient defined for operation 'EagerPyFunc'"):
        tf.gradients(y, x)
    with pytest.raises(LookupError, match="operation 'z' .*tf.custom_gradient"):
        tf.gradients(z, v)
    assert tf.gradients(x * 2.0, x)[0] is not None  # other paths are unaffected
