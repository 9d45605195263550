"""``tf.jax_function``'s shape inference (unknown dimensions, fallbacks, errors); py_func inputs."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.mark.parametrize(
    "in_shape,fn,want",
    [
        ([None], lambda r: r.reshape(3, 4), [3, 4]),  # issue 13: TF builds tf.reshape fine
        ([None], lambda r: r.reshape(-1, 6), [None, 6]),  # not symbolic: sizes tried
        ([None], lambda r: jnp.concatenate([r, r]), [None]),
        ([None, 3], lambda r: r.sum(axis=0), [3]),
        ([None, 3], lambda r: r[:, :2] * 2.0, [None, 2]),
        ([None, None], lambda r: r.T, [None, None]),
        ([2, 3], lambda r: r.reshape(6), [6]),
    ],
)
def test_output_shapes(graph, in_shape, fn, want):
    x = tf.placeholder(tf.float32, in_shape)
    y = tf.jax_function(fn, [x])
    assert y.shape.as_list() == want and y.dtype == tf.float32


def test_reshape_of_unknown_runs(graph):
    raw = tf.placeholder(tf.float32, [None])
    y = tf.jax_function(lambda r: r.reshape(3, 4), [raw])
    with tf.Session() as sess:
        assert sess.run(y, {raw: np.arange(12)}).tolist() == np.arange(12.0).reshape(3, 4).tolist()
        with pytest.raises(tf.errors.InvalidArgumentError, match="JaxFunction.*shapes \\[5\\]"):
            sess.run(y, {raw: np.arange(5)})


def test_unknown_rank_inputs_give_unknown_shapes(graph):
    x = tf.placeholder(tf.float32)
    y = x * 2.0
    assert y.shape.ndims is None and y.dtype == tf.float32
    with tf.Session() as sess:
        assert sess.run(y, {x: [[1.0, 2.0]]}).tolist() == [[2.0, 4.0]]


def test_invalid_static_shapes_fail_at_build_naming_the_op(graph):
    x = tf.placeholder(tf.float32, [5])
    with pytest.raises(ValueError, match="my_reshape: the function fails on inputs of shapes"):
        tf.jax_function(lambda r: r.reshape(3, 4), [x], name="my_reshape")


@pytest.mark.parametrize("source", ["fed", "constant", "computed"])
def test_py_func_may_change_its_inputs_in_place_without_changing_anything_else(graph, source):
    """TF hands ``py_func`` writeable arrays (``a += 1``, ``np.random.shuffle(a)`` work).
    Here the function gets its own copies: the caller's fed array, the graph's constant
    and the program's values stay as they were, and every run sees the same inputs.
    (TF 2.21 gives these results for a fed array that is not 64-byte aligned; with an
    aligned one, or a constant, its function can change memory the feed or the constant
    shares, so a change may persist there; here it never does.)"""

    def bump(a):
        a += 1.0
        return np.float32(a.sum())

    p = tf.placeholder(tf.float32, [4])
    inputs = {
        "fed": p,
        "constant": tf.constant(np.zeros(4, np.float32)),
        "computed": p * 1.0,
    }[source]
    out = tf.py_func(bump, [inputs], tf.float32)
    out.set_shape([])
    batch = np.zeros(4, np.float32)
    with tf.Session() as sess:
        assert [sess.run(out, {p: batch}) for _ in range(3)] == [4.0, 4.0, 4.0]
        assert sess.run(inputs, {p: batch}).tolist() == [0.0] * 4
    assert batch.tolist() == [0.0] * 4
