"""``tf.gather``/``tf.gather_nd`` without TensorFlow installed: TF 2.21's values and
messages, measured with TF 2.21 on CPU (``tf.compat.v1``, classic TF1 graphs) and
checked live in ``tests/interop/test_gather_parity_interop.py``."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

P = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _run(fetch, feeds=None):
    with tf.Session() as sess:
        return sess.run(fetch, feeds)


def test_gather_nd_out_of_range_raises_tfs_error():
    """The repro: jtrain returned ``[0.]``; TF 2.21 raises."""
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32, [None, 1])
        y = tf.gather_nd(tf.constant([1.0, 2.0, 3.0]), p)
        message = "indices[0] = [5] does not index into param shape [3], node name: GatherNd"
        with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("[", r"\[")):
            _run(y, {p: [[5]]})
        np.testing.assert_array_equal(_run(y, {p: [[2], [0]]}), [3.0, 1.0])


def test_gather_nd_ignore_policy_reads_zeros_for_negative_rows():
    with tf.Graph().as_default():
        y = tf.gather_nd(
            tf.constant([1.0, 2.0, 3.0]), [[1], [-1], [3]], bad_indices_policy="IGNORE"
        )
        np.testing.assert_array_equal(_run(y), [2.0, 0.0, 0.0])


def test_gather_batch_dims_values():
    with tf.Graph().as_default():
        y = tf.gather(tf.constant(P), [[2, 0], [1, 1]], axis=1, batch_dims=1)
        assert y.shape.as_list() == [2, 2, 4]
        want = [[P[0, 2], P[0, 0]], [P[1, 1], P[1, 1]]]  # TF 2.21's values
        np.testing.assert_array_equal(_run(y), want)


def test_gather_nd_batch_dims_values_and_name():
    with tf.Graph().as_default():
        y = tf.gather_nd(tf.constant(P), [[[1], [0]], [[2], [2]]], batch_dims=1)
        assert y.shape.as_list() == [2, 2, 4]
        assert y.op.name == "BatchGatherND/GatherNd"  # the GatherNd TF's messages name
        want = [[P[0, 1], P[0, 0]], [P[1, 2], P[1, 2]]]  # TF 2.21's values
        np.testing.assert_array_equal(_run(y), want)


def test_gather_batch_dims_past_axis_raises_when_run():
    """TF's kernel refuses it when run (its shape function does not)."""
    with tf.Graph().as_default():
        y = tf.gather(tf.constant(P), np.zeros((2, 3), np.int32), axis=1, batch_dims=2)
        assert y.shape.as_list() == [2, 4]
        match = r"batch_dims \(2\) must be less than or equal to axis \(1\)\."
        with pytest.raises(tf.errors.InvalidArgumentError, match=match):
            _run(y)
