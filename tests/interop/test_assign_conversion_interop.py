"""Values assigned to variables converted as TF converts them, checked live against TF
2.21 (``twin.py``): a ref variable's ``Assign``/``AssignAdd``/``AssignSub`` take their
``value`` as op_def_library converts an input (a tensor of another dtype is TF's
TypeError, a Python float for an integer variable too), a resource variable's as
``convert_to_tensor(value, dtype)``; a value of another static shape is TF's
shape-inference ValueError.

Before, jtrain cast every value to the variable's dtype: ``tf.assign(int_var,
[1.5, 2.0])`` stored ``[1, 2]`` and ``tf.assign_add(float_var, int32_tensor)`` ran,
where TF refuses both.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

# case -> assignment(tf, float32 variable [2], int32 variable [2])
CASES = {
    "assign an int32 tensor": lambda tf, v, r: tf.assign(v, tf.constant([1, 2], tf.int32)),
    "Variable.assign an int32 tensor": lambda tf, v, r: v.assign(tf.constant([1, 2])),
    "assign_add an int32 tensor": lambda tf, v, r: tf.assign_add(v, tf.constant([1, 2])),
    "assign_sub a float64 tensor": lambda tf, v, r: tf.assign_sub(
        v, tf.constant([1, 2], tf.float64)
    ),
    "Variable.assign_add a float64 tensor": lambda tf, v, r: v.assign_add(
        tf.constant([1.0, 2.0], tf.float64)
    ),
    "assign a NumPy int32 array": lambda tf, v, r: tf.assign(v, np.array([1, 2], np.int32)),
    "assign a NumPy float64 array": lambda tf, v, r: tf.assign(v, np.array([1.5, 2.0])),
    "assign a list of ints": lambda tf, v, r: tf.assign(v, [1, 2]),
    "assign a list of floats": lambda tf, v, r: tf.assign(v, [1.5, 2.5]),
    "assign a float tensor to an int variable": lambda tf, v, r: tf.assign(
        r, tf.constant([1.5, 2.0])
    ),
    "assign floats to an int variable": lambda tf, v, r: tf.assign(r, [1.5, 2.0]),
    "assign_add floats to an int variable": lambda tf, v, r: tf.assign_add(r, [1.5, 2.0]),
    "resource variable assign an int32 tensor": lambda tf, v, r: tf.Variable(
        [1.0, 2.0], use_resource=True
    ).assign(tf.constant([1, 2])),
    "assign another length": lambda tf, v, r: tf.assign(v, [1.0, 2.0, 3.0]),
    "assign another rank": lambda tf, v, r: tf.assign(v, [[1.0, 2.0]]),
}


def _script(assignment):
    def script(tf):
        v = tf.Variable([1.0, 2.0])
        r = tf.Variable([1, 2])
        try:
            out = assignment(tf, v, r)
        except (TypeError, ValueError) as e:
            error = (type(e).__name__, str(e).split(" for '{{node")[0])
            return lambda sess: error

        def run(sess):
            sess.run(out)
            return sess.run([v, r])

        return run

    return script


@pytest.mark.parametrize("case", list(CASES))
def test_assigned_values_convert_as_tf(case):
    theirs, ours = run_both(_script(CASES[case]))
    if isinstance(theirs, tuple):
        assert ours == theirs
    else:
        assert [a.dtype for a in ours] == [a.dtype for a in theirs]
        assert [a.tolist() for a in ours] == [a.tolist() for a in theirs]
