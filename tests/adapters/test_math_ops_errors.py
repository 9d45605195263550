"""Run-time and graph-construction errors of ``invert_permutation``, ``bincount``,
``confusion_matrix`` and the monotonicity checks.

Expected classes and messages are TF 2.21's, measured under ``tf.compat.v1`` graph
mode with the same inputs (values and gradients are in the op goldens,
``goldens/gen_ops_math3.py``); TF's assertion messages name its internal tensors
(``x (confusion_matrix/control_dependency:0)``), and so do ours.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain import errors

CASES = [
    # (function of the fed int32 vector, bad value, TF's message)
    (tf.invert_permutation, [0, 5, 1], "5 is not between 0 and 3"),
    (tf.invert_permutation, [0, 0, 1], "0 is duplicated in the input."),
    (tf.invert_permutation, [-1, 1, 0], "-1 is not between 0 and 3"),
    (
        lambda x: tf.math.bincount(x, minlength=3, maxlength=3),
        [-1, 1, 0],
        "Input arr must be non-negative!",
    ),
    (
        lambda x: tf.confusion_matrix(x, tf.constant([0, 1, 1]), num_classes=3),
        [0, 5, 1],
        "assertion failed: [`labels` out of bound] [Condition x < y did not hold element-wise:] "
        "[x (confusion_matrix/control_dependency:0) = ] [0 5 1] [y (confusion_matrix/Cast_2:0) = ] "
        "[3]",
    ),
    (
        lambda x: tf.confusion_matrix(tf.constant([0, 1, 1]), x, num_classes=3),
        [-1, 1, 0],
        "assertion failed: [`predictions` contains negative values.  ] [Condition x >= 0 did "
        "not hold element-wise:] [x (confusion_matrix/Cast:0) = ] [-1 1 0]",
    ),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_bad_values_fail_the_run(i):
    build, bad, message = CASES[i]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [3])
        out = build(x)
        with tf.Session() as sess:
            sess.run(out, {x: [2, 0, 1]})  # a valid input runs
            with pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(out, {x: bad})
    assert info.value.message == message


# (confusion_matrix without num_classes and bincount without a fixed length run:
# interop/test_confusion_matrix_sizes_interop.py, interop/test_data_dependent_sizes_interop.py)


@pytest.mark.parametrize("op", [tf.is_non_decreasing, tf.math.is_strictly_increasing])
def test_monotonic_checks_refuse_booleans(op):
    # TF: TypeError('Expected x to be numeric, instead found: Tensor(...)')
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="^Expected x to be numeric, instead found: "):
            op(tf.constant(np.array([True, False])))
