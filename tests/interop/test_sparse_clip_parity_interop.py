"""Clipping and applying an embedding's sparse gradient (``tf.IndexedSlices`` with a
repeated id) under TF 2.21's ``compat.v1`` (classic TF1) and under ``adapters.v1``:
the same kind of result (``IndexedSlices`` or dense tensor), the same indices, and the
same values to the last bit."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

EMB = (np.arange(15, dtype=np.float32).reshape(5, 3) * 0.37 + 0.11).astype(np.float32)
IDS = [1, 3, 1, 1, 4]  # id 1 three times: a dense conversion would sum its rows


def _sparse_grad(tf):
    """The embedding variable and its loss's gradient (an ``IndexedSlices``)."""
    emb = tf.Variable(EMB, name="emb")
    x = tf.nn.embedding_lookup(emb, tf.constant(IDS))
    loss = tf.reduce_sum(x * x) * 0.7
    return emb, loss, tf.gradients(loss, emb)[0]


def _fetch(tf, sess, t):
    """``(kind, values, indices, dense_shape)`` of an ``IndexedSlices``, ``(kind, value)``
    of a tensor."""
    if isinstance(t, tf.IndexedSlices):
        values, indices, shape = sess.run([t.values, t.indices, t.dense_shape])
        return ("IndexedSlices", values, indices, shape)
    return ("Tensor", sess.run(t))


@pytest.mark.parametrize(
    "clip",
    [
        pytest.param(lambda tf, g: tf.clip_by_value(g, -1.5, 2.0), id="clip_by_value"),
        pytest.param(lambda tf, g: tf.clip_by_norm(g, 3.0), id="clip_by_norm"),
        pytest.param(lambda tf, g: tf.clip_by_average_norm(g, 0.1), id="clip_by_average_norm"),
        pytest.param(
            lambda tf, g: tf.clip_by_global_norm([g], 3.0)[0][0], id="clip_by_global_norm"
        ),
    ],
)
def test_clip_of_indexed_slices_keeps_tf_kind_and_values(clip):
    """TF clips ``.values`` row by row and returns ``IndexedSlices`` for clip_by_value,
    clip_by_norm and clip_by_global_norm; clip_by_average_norm converts to a dense
    tensor first (duplicate rows summed)."""

    def script(tf):
        _, _, g = _sparse_grad(tf)
        assert isinstance(g, tf.IndexedSlices)
        out = clip(tf, g)
        return lambda sess: _fetch(tf, sess, out)

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=0, atol=0)
