"""``tf.layers``, ``tf.losses`` and ``tf.nn`` snippets under TF 2.21 and ``adapters.v1``.

Each test builds one TF1 graph with ``twin.run_both`` (TF's ``compat.v1`` and
jtrain's ``adapters.v1``) and compares static shapes (``shape.as_list()``),
dtypes and values with ``twin.assert_twins``; an error case checks that both
raise the same error class at graph construction.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from twin import assert_twins, run_both  # noqa: E402

pytestmark = pytest.mark.interop


def _static(t):
    """A tensor's static shape as TF lists it (``None`` for unknown rank)."""
    return t.shape.as_list() if t.shape.rank is not None else None


# ---------------------------------------------------------------- max pooling

_POOLS = {
    "nn.max_pool": (4, lambda tf, x: tf.nn.max_pool(x, 2, 2, "VALID")),
    "nn.max_pool2d": (4, lambda tf, x: tf.nn.max_pool2d(x, 2, 2, "VALID")),
    "nn.max_pool1d": (3, lambda tf, x: tf.nn.max_pool1d(x, 2, 2, "VALID")),
    "nn.max_pool3d": (5, lambda tf, x: tf.nn.max_pool3d(x, 2, 2, "VALID")),
    "nn.pool.MAX": (4, lambda tf, x: tf.nn.pool(x, [2, 2], "MAX", "VALID", strides=[2, 2])),
    "nn.pool.AVG": (4, lambda tf, x: tf.nn.pool(x, [2, 2], "AVG", "VALID", strides=[2, 2])),
    "nn.avg_pool": (4, lambda tf, x: tf.nn.avg_pool(x, 2, 2, "VALID")),
    "layers.max_pooling1d": (3, lambda tf, x: tf.layers.max_pooling1d(x, 2, 2)),
    "layers.max_pooling2d": (4, lambda tf, x: tf.layers.max_pooling2d(x, 2, 2)),
    "layers.max_pooling3d": (5, lambda tf, x: tf.layers.max_pooling3d(x, 2, 2)),
    "layers.max_pooling2d.same": (
        4,
        lambda tf, x: tf.layers.max_pooling2d(x, 2, 2, padding="same"),
    ),
    "layers.max_pooling2d.3x3": (4, lambda tf, x: tf.layers.max_pooling2d(x, 3, 3)),
}


@pytest.mark.parametrize("batch", [None, 1])
@pytest.mark.parametrize("kind", sorted(_POOLS))
def test_max_pool_of_unknown_spatial_dims_stays_unknown(kind, batch):
    """TF: a window over an unknown dimension gives an unknown dimension, even with
    ``ksize == strides`` and ``'VALID'`` (jtrain said 1), so ``flatten`` of it keeps
    the batch: ``(1, 4, 4, 3)`` pooled 2x2 flattens to ``(1, 12)`` (jtrain: ``(4, 3)``)."""
    rank, pool = _POOLS[kind]

    def script(tf):
        x = tf.placeholder(tf.float32, [batch] + [None] * (rank - 2) + [3])
        p = pool(tf, x)
        # flatten of unknown batch and spatial dimensions is dynamic (tf.shape) in TF
        f = tf.layers.flatten(p) if batch else tf.identity(p)
        feed = np.arange(4 ** (rank - 2) * 3, dtype=np.float32).reshape(
            (1,) + (4,) * (rank - 2) + (3,)
        )
        return lambda sess: (_static(p), _static(f), sess.run([p, f], {x: feed}))

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2])


def test_max_pool_of_partly_known_dims():
    """TF: known spatial dimensions keep their pooled size, unknown ones stay unknown."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 4, None, 3])
        p = tf.nn.max_pool(x, 2, 2, "VALID")
        s = tf.nn.max_pool(x, 3, 2, "SAME")
        feed = np.arange(1 * 4 * 6 * 3, dtype=np.float32).reshape(1, 4, 6, 3)
        return lambda sess: (_static(p), _static(s), sess.run([p, s], {x: feed}))

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2])
