"""Values computed from shapes in the graph (``framework/shape_values.py``) and the ops
that take them as shapes and axes (TF's values: ``interop/test_computed_shapes_interop.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework import shape_values


def test_partial_value_knows_what_static_shapes_say(graph):
    x = tf.placeholder(tf.float32, [None, 784])
    shape = tf.shape(x)
    assert shape_values.partial_value(shape).tolist() == [None, 784]
    assert shape_values.partial_value(shape[1] // 2).tolist() == 392
    assert shape_values.partial_value(shape[0] // 8) is not None
    assert shape_values.partial_value(shape[0] // 8).tolist() is None
    assert shape_values.partial_value(shape[0] % 2).tolist() is None
    assert shape_values.partial_value(tf.rank(x) - 1).tolist() == 1
    n = tf.placeholder(tf.int32, [])
    assert shape_values.partial_value(n + 1).tolist() is None  # the fed value
    assert not shape_values.depends_on_data(tf.stack([n, shape[1]]))
    assert not shape_values.depends_on_data(tf.stack([shape[0], shape[1]]))
    assert shape_values.depends_on_data(tf.cast(tf.Variable(1.0), tf.int32))
    assert shape_values.depends_on_data(tf.cast(tf.placeholder(tf.float32, []), tf.int32))


def test_one_program_per_fed_shape(graph):
    x = tf.placeholder(tf.float32, [None, 6])
    flat = tf.reshape(x, [tf.shape(x)[0] * 2, -1])
    counts = tf.range(tf.shape(x)[0])
    assert flat.shape.as_list() == [None, 3]
    with tf.Session() as sess:
        for rows in (2, 5, 2):
            value = np.arange(rows * 6, dtype=np.float32).reshape(rows, 6)
            got, r = sess.run([flat, counts], {x: value})
            np.testing.assert_array_equal(got, value.reshape(rows * 2, 3))
            np.testing.assert_array_equal(r, np.arange(rows))


def test_fully_known_values_are_constants(graph):
    x = tf.placeholder(tf.float32, [4, 6])
    out = tf.reshape(x, [tf.shape(x)[0] // 2, -1])
    assert out.shape.as_list() == [2, 12]
    assert [t.op.type for t in out.op.inputs] == ["Placeholder"]  # no extra input


def test_arguments_from_the_steps_data_are_refused(graph):
    x = tf.placeholder(tf.float32, [None, 6])
    v = tf.Variable(tf.zeros([2]))
    i = tf.cast(v[0], tf.int32)
    with pytest.raises(NotImplementedError, match=r"tf\.ones: argument 'shape'.*step's data"):
        tf.ones([i, 3])
    with pytest.raises(NotImplementedError, match="Use tf.gather for data-dependent indices"):
        x[:i]
    with pytest.raises(NotImplementedError, match=r"tf\.reduce_sum: argument 'axis'"):
        tf.reduce_sum(x, axis=tf.cast(tf.placeholder(tf.float32, []), tf.int32))


def test_fed_sizes_compile_one_program_per_value(graph):
    n = tf.placeholder(tf.int32, [])
    ones = tf.ones([n, 3])
    assert ones.shape.as_list() == [None, 3]
    assert n in graph._shape_feeds
    with tf.Session() as sess:
        shapes = [sess.run(ones, {n: k}).shape for k in (2, 4, 2)]
        assert shapes == [(2, 3), (4, 3), (2, 3)]
        assert len(sess._plans) == 2  # the run of 2 again reuses its program


def test_static_shapes_from_fed_sizes_are_unknown_where_they_vary(graph):
    """A slice at a fed offset: its size is unknown when the graph is built (trials of
    large sizes were all clamped to 0, which claimed a size of 0)."""
    data = tf.reshape(tf.constant(np.arange(20, dtype=np.int32)), [2, 10])
    i = tf.placeholder(tf.int32, [])
    window = tf.strided_slice(data, [0, i * 5], [2, (i + 1) * 5])
    assert window.shape.as_list() == [2, None]
    window.set_shape([2, 5])
    rows = tf.ones([4, 3])[:i]
    assert rows.shape.as_list() == [None, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(
            sess.run(window, {i: 1}), [[5, 6, 7, 8, 9], [15, 16, 17, 18, 19]]
        )
        assert sess.run(rows, {i: 2}).shape == (2, 3)


def test_a_dimension_only_one_size_fits_keeps_the_others(graph):
    """``concat`` of a known and an unknown row count: the columns are known (the
    shape was unknown, which broke an LSTM over a state of unknown batch), and the
    rows are the known count, as TF 2.21 merges them (``[3, 9]``; jtrain gave
    ``[None, 9]``, and a concat of ``[None, 32]`` and ``[64, 16]`` failed to build)."""
    p = tf.placeholder(tf.float32, [None, 4])
    assert tf.concat([tf.ones([3, 5]), p], 1).shape.as_list() == [3, 9]
    x = tf.placeholder(tf.float32, [None, 32])
    assert tf.concat([x, tf.zeros([64, 16])], 1).shape.as_list() == [64, 48]
    assert tf.stack([x[:, :16], tf.zeros([64, 16])]).shape.as_list() == [2, 64, 16]


def test_is_static_is_static_values_test_without_the_value(graph, monkeypatch):
    """``is_static`` says what ``static_value`` would find, and computes nothing."""
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.float32, [3, 4])
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    tensors = {
        "constant arithmetic": tf.exp(c) * 2.0 + tf.reduce_sum(c),
        "a known dimension of a partly known shape": tf.shape(x)[1] // 2,
        "the rank": tf.rank(x) - 1,
        "a fully known shape": tf.shape(y) * 3,
        "an unknown dimension": tf.shape(x)[0] + 1,
        "a fed value": y * 2.0,
        "a variable": tf.Variable(1.0) + 1.0,
        "too large to compute": tf.zeros([2048, 4096]) + 1.0,
    }
    expected = {name: shape_values.static_value(t) is not None for name, t in tensors.items()}
    assert [name for name, known in expected.items() if known] == [
        "constant arithmetic", "the rank", "a fully known shape",
    ]  # fmt: skip

    def no_evaluation(*args, **kwargs):
        raise AssertionError("is_static evaluated the graph")

    monkeypatch.setattr(shape_values, "_evaluate", no_evaluation)
    assert {name: shape_values.is_static(t) for name, t in tensors.items()} == expected
