"""Sequence lengths fed at run time (a BiLSTM tagger's ``lengths`` placeholder),
checked live against TF 2.21 (``twin.py``): ``tf.sequence_mask(lengths)`` without
``maxlen`` and ``tf.boolean_mask`` by a mask computed from fed lengths, over several
fed length vectors in successive runs of one session (their maximum changing):
values, dtypes, static shapes and gradients w.r.t. the masked tensor.

Both raised ``NotImplementedError`` in jtrain: the lengths' values shape the output,
and jtrain compiles static shapes (now one program per fed lengths vector).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

# Successive runs of one session: the batch, the time steps and max(lengths) change.
RUNS = [
    (np.array([3, 1, 2], np.int32), 4),
    (np.array([2, 2], np.int32), 3),
    (np.array([5, 0, 1, 4], np.int32), 5),
    (np.array([3, 1, 2], np.int32), 4),
]
DEPTH = 2


def _x(lengths, steps):
    return (
        np.arange(len(lengths) * steps * DEPTH, dtype=np.float32).reshape(
            len(lengths), steps, DEPTH
        )
        / 4.0
        - 2.0
    )  # quarters: float32 sums exact in any order


def _static(t):
    return None if t.shape.ndims is None else t.shape.as_list()


def test_sequence_mask_without_maxlen_of_fed_lengths():
    def script(tf):
        lengths = tf.placeholder(tf.int32, [None])
        masks = [
            tf.sequence_mask(lengths),
            tf.sequence_mask(lengths, dtype=tf.float32),
            tf.sequence_mask(tf.reshape(lengths, [-1, 1])),
        ]
        static = [_static(m) for m in masks]
        dtypes = [(m.dtype.name, m.name) for m in masks]

        def run(sess):
            return static, dtypes, [sess.run(masks, {lengths: v}) for v, _ in RUNS]

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0] == [[None, None], [None, None], [None, 1, None]]
    assert ours[1] == theirs[1]
    assert_twins(theirs[2], ours[2])


def test_boolean_mask_by_mask_of_fed_lengths():
    def script(tf):
        lengths = tf.placeholder(tf.int32, [None])
        x = tf.placeholder(tf.float32, [None, None, DEPTH])
        mask = tf.sequence_mask(lengths, tf.shape(x)[1])
        picked = tf.boolean_mask(x, mask)
        weights = tf.cast(tf.less(tf.range(tf.shape(x)[1])[None, :], lengths[:, None]), tf.int32)
        picked2 = tf.boolean_mask(x, tf.cast(weights, tf.bool))
        loss = tf.reduce_sum(tf.square(picked)) + 3.0 * tf.reduce_sum(picked2)
        grad = tf.gradients(loss, x)[0]
        static = [_static(picked), _static(picked2), _static(grad)]

        def run(sess):
            return static, [
                sess.run([picked, picked2, loss, grad], {lengths: v, x: _x(v, s)}) for v, s in RUNS
            ]

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0] == [[None, DEPTH], [None, DEPTH], [None, None, DEPTH]]
    assert_twins(theirs[1], ours[1])


def test_sequence_mask_without_maxlen_of_a_variable_as_tf():
    """Lengths read from a variable (jtrain refused them before the session computed
    output sizes before the step: framework/data_sizes.py)."""

    def script(tf):
        lengths = tf.Variable([1, 2])
        mask = tf.sequence_mask(lengths)
        grow = tf.assign_add(lengths, [2, -1])
        return lambda sess: (_static(mask), [sess.run(mask), sess.run(grow), sess.run(mask)])

    assert_twins(*run_both(script))
