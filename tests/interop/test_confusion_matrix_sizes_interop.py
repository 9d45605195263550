"""``tf.math.confusion_matrix`` without ``num_classes`` (or with a computed one), checked
live against TF 2.21 (classic TF1): TF sizes the matrix ``max(max(labels),
max(predictions)) + 1``, a size that depends on the values; jtrain computes it before
the step (``framework/data_sizes.py``). Values, dtypes, static shapes (``[None,
None]``), the gradient of the weights, and TF's error for a negative label.

Before, a call without ``num_classes`` raised NotImplementedError.
"""

from __future__ import annotations

import pytest

from tests.interop.twin import assert_twins, kernel_message, run_both

pytestmark = pytest.mark.interop


def _static(t):
    return None if t.shape.ndims is None else t.shape.as_list()


FEEDS = [
    ([0, 2, 1, 2], [1, 2, 3, 0], [0.5, 1.0, 2.0, 3.0]),
    ([4, 0], [1, 1], [0.25, 2.0]),
    ([1, 3, 0], [2, 0, 1], [1.0, 1.0, 4.0]),  # the first run's size, other values
]


def test_confusion_matrix_sized_by_the_values():
    def script(tf):
        labels = tf.placeholder(tf.int32, [None])
        predictions = tf.placeholder(tf.int64, [None])
        weights = tf.placeholder(tf.float32, [None])
        v = tf.Variable([2, 0, 2], dtype=tf.int32)
        counts = tf.math.confusion_matrix(labels, predictions)
        summed = tf.confusion_matrix(labels, predictions, weights=weights, dtype=tf.float32)
        cast = tf.math.confusion_matrix(
            tf.cast(labels, tf.float32) + 0.5, tf.expand_dims(predictions, 1), dtype=tf.int64
        )
        of_variable = tf.math.confusion_matrix(v, v + 1)
        computed = tf.math.confusion_matrix(
            labels, predictions, num_classes=tf.reduce_max(labels) + 3
        )
        outs = [counts, summed, cast, of_variable, computed]
        grad = tf.gradients(tf.reduce_sum(tf.square(summed)), weights)[0]
        static = [(_static(o), o.dtype.name) for o in outs] + [_static(grad)]
        bump = tf.assign_add(v, [3, 1, 0])

        def run(sess):
            out = []
            for x, y, w in FEEDS:
                out.append(sess.run(outs + [grad], {labels: x, predictions: y, weights: w}))
                sess.run(bump)
            return static, out

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=0)


def test_confusion_matrix_errors_as_tf():
    def script(tf):
        labels = tf.placeholder(tf.int32, [None])
        predictions = tf.placeholder(tf.int32, [None])
        m = tf.math.confusion_matrix(labels, predictions)
        also = tf.math.confusion_matrix(labels, predictions, num_classes=2, name="bounded")

        def run(sess):
            out = []
            for fetch, x, y in (
                (m, [0, -1], [1, 0]),
                (m, [1, 0], [-2, -1]),
                (m, [], []),  # TF's side: the int64 max of nothing, plus 1
                (also, [2, 0], [1, 0]),
                (also, [1, 0], [1, 5]),
            ):
                try:
                    sess.run(fetch, {labels: x, predictions: y})
                    out.append(None)
                except tf.errors.OpError as e:
                    out.append(kernel_message(e))
            return out

        return run

    theirs, ours = run_both(script)
    assert all(t is not None for t in theirs)
    assert ours == theirs
