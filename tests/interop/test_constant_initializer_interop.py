"""``tf.constant_initializer`` with a list that does not fill the variable, checked
live against TF 2.21: TF1 repeats the last value over the rest and refuses too many
values with a ``ValueError`` (jtrain raised ``TypeError`` for both before)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf1

pytestmark = pytest.mark.interop

CASES = {
    "floats over 2x3": ([1.0, 2.0], [2, 3], "float32", {}),
    "ints over 5": ([1, 2, 3], [5], "int32", {}),
    "numpy over 4": (np.array([1.0, 2.0]), [4], "float32", {}),
    "exact fill": ([1.0, 2.0, 3.0, 4.0], [2, 2], "float32", {}),
    "scalar": (7.0, [3], "float32", {}),
    "empty list": ([], [3], "float32", {}),
    "too many": ([1.0, 2.0, 3.0], [2], "float32", {}),
    "verify_shape": ([1.0, 2.0], [2, 3], "float32", {"verify_shape": True}),
}


def _outcome(tf, value, shape, dtype, kwargs):
    try:
        with tf.Graph().as_default():
            init = tf.constant_initializer(value, **kwargs)
            v = tf.get_variable("v", shape, dtype=getattr(tf, dtype), initializer=init)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                out = sess.run(v)
                return ("value", out.dtype.name, out.tolist())
    except Exception as e:  # noqa: BLE001 - the error is the result compared
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("case", sorted(CASES))
def test_constant_initializer_fills_as_tf1(case):
    with classic_tf1():
        theirs = _outcome(tf1, *CASES[case])
    ours = _outcome(jtf, *CASES[case])
    assert ours == theirs
