"""``tf.RaggedTensor`` and the ragged string ops under jtrain alone (x64 off): int64
exactness, ragged values computed by the step's program, what raises. TF-parity values
are in ``tests/interop/test_ragged_interop.py`` and
``tests/interop/test_strings_unicode_interop.py``."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_int64_values_and_splits_stay_exact(graph):
    big = [[2**62 + 1, -(2**53) - 1], [7]]
    rt = tf.ragged.constant(big, dtype=tf.int64)
    dense = rt.to_tensor(default_value=np.int64(2**60 + 3))
    with tf.Session() as sess:
        value, got = sess.run([rt, dense])
    assert isinstance(value, tf.ragged.RaggedTensorValue)
    assert value.to_list() == big
    assert value.values.dtype == np.int64 and value.row_splits.dtype == np.int64
    np.testing.assert_array_equal(got, [[2**62 + 1, -(2**53) - 1], [7, 2**60 + 3]])


def test_values_computed_in_the_step_then_densified(graph):
    x = tf.placeholder(tf.float32, [None])
    rt = tf.RaggedTensor.from_row_lengths(x * 2.0, [2, 0, 1])
    dense = rt.to_tensor()
    with tf.Session() as sess:
        got = sess.run(dense, {x: np.array([1.0, 2.0, 3.0], np.float32)})
    np.testing.assert_array_equal(got, [[2.0, 4.0], [0.0, 0.0], [6.0, 0.0]])
    assert got.dtype == np.float32


def test_text_pipeline(graph):
    lines = tf.placeholder(tf.string, [None])
    tokens = tf.strings.split(lines, result_type="RaggedTensor")
    bigrams = tf.strings.ngrams(tokens, 2, separator="_")
    padded = tokens.to_tensor(default_value="<pad>")
    chars = tf.strings.unicode_decode(lines, "UTF-8").row_lengths()
    with tf.Session() as sess:
        got_b, got_p, got_c = sess.run(
            [bigrams, padded, chars], {lines: ["a b c", "d", "h\u00e9 x"]}
        )
    assert got_b.to_list() == [[b"a_b", b"b_c"], [], [b"h\xc3\xa9_x"]]
    assert got_p.tolist() == [[b"a", b"b", b"c"], [b"d", b"<pad>", b"<pad>"],
                              [b"h\xc3\xa9", b"x", b"<pad>"]]  # fmt: skip
    np.testing.assert_array_equal(got_c, [5, 1, 4])


def test_unsupported_cases_raise(graph):
    rt = tf.ragged.constant([[1, 2], [3]])
    with pytest.raises(NotImplementedError, match="scalars only"):
        _ = rt + tf.constant([1, 2])
    with pytest.raises(NotImplementedError, match="int or a slice"):
        _ = rt[:, 0]
    with pytest.raises(ValueError, match="eager mode"):
        rt.to_list()
    with pytest.raises(ValueError, match="constructor is private"):
        tf.RaggedTensor(rt.values, rt.row_splits)
