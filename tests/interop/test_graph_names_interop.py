"""Graph details scripts see, checked live against TF 2.21 as classic TF1 (``twin.py``):
the errors of literal conversion, and the names of the nodes TF's functions create
(scripts fetch tensors by name with ``graph.get_tensor_by_name``).

Before these tests, ``tf.constant(5, dtype=tf.string)`` was ``b'\\x00' * 5`` (Python's
``bytes(5)``) where TF raises ``TypeError``.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest

from tests.interop.twin import classic_tf1, jtf, tf1

pytestmark = pytest.mark.interop


def _in_graph(tf: Any, build: Any) -> Any:
    """``build(tf)`` in a fresh graph of ``tf`` (TF's as classic TF1)."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            return build(tf)


def _outcome(tf: Any, build: Any) -> Any:
    """``build(tf)``'s result, or its exception's class name and message."""
    try:
        return _in_graph(tf, build)
    except Exception as e:  # noqa: BLE001 - the error itself is the result compared
        return (type(e).__name__, str(e))


# name -> (value, string dtype given?)
STRING_LITERALS = {
    "int": (5, True),
    "float": (5.0, True),
    "bool": (True, True),
    "list of ints": ([1, 2], True),
    "bytes and int": ([b"a", 3], True),
    "nested": ([[b"a"], [3]], True),
    "bytes and None": ([b"a", None], True),
    "numpy int scalar in list": ([np.int64(3)], True),
    "numpy ints": (np.array([1, 2]), True),
    "numpy floats": (np.array([1.5]), True),
    "numpy scalar": (np.float32(2.0), True),
    "bytearray": (bytearray(b"ab"), True),
    "mixed, no dtype": ([b"a", 3], False),
    "None": (None, True),
    "strings": (["a", b"b"], True),
    "str, no dtype": ("s", False),
    "empty": ([], True),
}


@pytest.mark.parametrize("case", list(STRING_LITERALS))
def test_string_constant_literals(case):
    value, explicit = STRING_LITERALS[case]

    def build(tf):
        c = tf.constant(value, dtype=tf.string if explicit else None)
        with tf.Session() as sess:
            out = sess.run(c)
        return (c.dtype.name, np.asarray(out, dtype=object).tolist())

    theirs, ours = _outcome(tf1, build), _outcome(jtf, build)
    assert ours == theirs


def _ops_of(graph: Any, prefix: str = "") -> list[tuple[str, str]]:
    """``(name, type)`` of ``graph``'s operations under ``prefix``, sorted."""
    return sorted((o.name, o.type) for o in graph.get_operations() if o.name.startswith(prefix))


# name -> initializer(tf)
INITIALIZERS = {
    "zeros": lambda tf: tf.zeros_initializer(),
    "ones": lambda tf: tf.ones_initializer(),
    "constant": lambda tf: tf.constant_initializer(2.5),
    "zeros int64": lambda tf: tf.zeros_initializer(tf.int64),
    "ones int64": lambda tf: tf.ones_initializer(tf.int64),
}


@pytest.mark.parametrize("case", list(INITIALIZERS))
@pytest.mark.parametrize("shape", [[3], [999], [1000], [40, 30]])
def test_initializer_names(case, shape):
    """Called directly and through ``get_variable``: TF's node names and types (a
    ``Const`` named ``zeros``/``ones`` below 1000 elements, a ``Fill`` from 1000), and
    the variable's initial value."""

    def build(tf):
        init = INITIALIZERS[case](tf)
        direct = init(shape)
        with tf.variable_scope("s"):
            var = tf.get_variable("w", shape, dtype=direct.dtype, initializer=init)
        graph = tf.get_default_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(var)
        return (
            direct.name,
            direct.op.type,
            direct.dtype.name,
            _ops_of(graph, "s/w/Initializer"),
            value.dtype.name,
            value.ravel()[:3].tolist(),
        )

    theirs, ours = _in_graph(tf1, build), _in_graph(jtf, build)
    assert ours == theirs


X = (np.arange(2 * 3, dtype=np.float32).reshape(2, 3) - 2.0) / 3.0


# name -> build(tf, x): the batch-normalized tensor
BATCH_NORMS = {
    "python floats": lambda tf, x: tf.nn.batch_normalization(x, 0.5, 2.0, 0.1, 1.5, 1e-3),
    "no offset, scale": lambda tf, x: tf.nn.batch_normalization(x, 0.5, 2.0, None, None, 1e-3),
    "moments": lambda tf, x: tf.nn.batch_normalization(
        x, *tf.nn.moments(x, [0]), tf.constant([0.1, 0.2, 0.3]), tf.constant(2.0), 1e-3
    ),
    "named": lambda tf, x: tf.nn.batch_normalization(
        x, tf.constant(0.5), tf.constant(2.0), None, tf.constant(1.5), 1e-3, name="bn"
    ),
    "epsilon tensor": lambda tf, x: tf.nn.batch_normalization(
        x, 0.5, 2.0, 0.1, None, tf.constant(1e-3)
    ),
}


@pytest.mark.parametrize("case", list(BATCH_NORMS))
def test_batch_normalization_output_name(case):
    """TF's output name (``batchnorm/add_1``, ``.../add`` when the variance and epsilon
    are Python values), fetchable by it, with TF's values and gradient."""

    def build(tf):
        x = tf.constant(X)
        first = BATCH_NORMS[case](tf, x)
        second = BATCH_NORMS[case](tf, x)
        (grad,) = tf.gradients(tf.reduce_sum(first * first), [x])
        fetched = tf.get_default_graph().get_tensor_by_name(first.name)
        with tf.Session() as sess:
            value, g = sess.run([fetched, grad])
        return first.name, first.op.type, second.name, value.dtype.name, value, g

    theirs, ours = _in_graph(tf1, build), _in_graph(jtf, build)
    assert ours[:4] == theirs[:4]
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-6)
    # the gradient through moments is a difference of terms of order 1 (about 0.06):
    # float32 sums in another order differ by a few ulps of the terms
    np.testing.assert_allclose(ours[5], theirs[5], rtol=1e-5, atol=2e-6)


def test_layers_batch_normalization_unfused_name():
    """``tf.layers.batch_normalization(fused=False)`` normalizes with
    ``tf.nn.batch_normalization``: TF's output name under the layer's scope."""

    def build(tf):
        x = tf.constant(X.reshape(2, 1, 1, 3))
        y = tf.layers.batch_normalization(x, fused=False, training=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(y)
        return y.name, y.op.type, value

    theirs, ours = _in_graph(tf1, build), _in_graph(jtf, build)
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5, atol=1e-6)


def test_sparse_tensor_constant_names():
    """A ``tf.SparseTensor`` of Python values: its parts are constants named as TF's
    (``SparseTensor/indices``...), in a new ``SparseTensor_N`` scope per tensor, with
    TF's dtypes and values."""

    def build(tf):
        first = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[2, 3])
        second = tf.SparseTensor(
            indices=np.array([[1]], np.int64), values=[3], dense_shape=np.array([4], np.int64)
        )
        dense = tf.sparse_tensor_to_dense(first)
        parts = [t for s in (first, second) for t in (s.indices, s.values, s.dense_shape)]
        with tf.Session() as sess:
            values = sess.run(parts + [dense])
        names = [(t.name, t.op.type, t.dtype.name) for t in parts]
        return names, [v.tolist() for v in values]

    assert _in_graph(jtf, build) == _in_graph(tf1, build)
