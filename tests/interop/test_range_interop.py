"""``tf.range``'s dtype, values and names checked live against TF 2.21: the widest of
``start``/``limit``/``delta`` (Python ints int32, floats float32, tensors their own
dtype) or ``dtype``. Before, a float64 or int64 tensor argument gave a float32/int32
range (a silent change of dtype and, past 2**24 or 2**31, of values)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

CASES = {
    "python ints": lambda tf: tf.range(5),
    "python floats": lambda tf: tf.range(1.5, 4.0, 0.5),
    "float32 tensor limit": lambda tf: tf.range(tf.constant(4.0)),
    "float64 tensor limit": lambda tf: tf.range(tf.cast(tf.constant(4), tf.float64)),
    "int64 tensor limit": lambda tf: tf.range(tf.constant(5, tf.int64)),
    "int64 past 2**31": lambda tf: tf.range(tf.constant(2**40, tf.int64), 2**40 + 3),
    "float64 limit, Python start and delta": lambda tf: tf.range(
        2, tf.constant(7.5, tf.float64), 1.5
    ),
    "int32 start, Python float limit": lambda tf: tf.range(tf.constant(3), 9.0),
    "dtype given": lambda tf: tf.range(1, 5, dtype=tf.float64),
    "dtype given over an int32 tensor": lambda tf: tf.range(tf.constant(4), dtype=tf.int64),
    "negative delta": lambda tf: tf.range(10, 2, -3),
    "computed limit": lambda tf: tf.range(tf.shape(tf.zeros([6, 2]))[0]),
    "named": lambda tf: tf.range(3, name="steps"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_range_as_tf(case):
    def script(tf):
        out = CASES[case](tf)
        static = (out.dtype.name, str(out.shape), out.name)
        return lambda sess: (sess.run(out), static)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert np.asarray(ours[0]).dtype == np.asarray(theirs[0]).dtype
