"""Fed shapes that an operation cannot compute on, checked live against TF 2.21.

A graph built from partly known shapes (``[None, 32]``) passes its build-time checks;
TF's kernels raise ``InvalidArgumentError`` naming the node when a run feeds shapes
that disagree. jtrain raised JAX's ``TypeError`` (``add got incompatible shapes for
broadcasting``) from the step's tracing: the class a TF1 script catches was wrong
and no node was named.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import kernel_message, run_both

pytestmark = pytest.mark.interop


def _f32(*shape):
    return np.zeros(shape, np.float32)


# case -> (build(tf, a, b) -> tensor named "op", feeds for a [None, None] and b)
CASES = {
    "add": (lambda tf, a, b: tf.add(a, b, name="op"), _f32(3, 2), _f32(4, 2)),
    "operator +": (lambda tf, a, b: tf.identity(a + b, name="op"), _f32(3, 2), _f32(2, 3)),
    "multiply": (lambda tf, a, b: tf.multiply(a, b, name="op"), _f32(3, 2), _f32(4, 2)),
    "subtract": (lambda tf, a, b: tf.subtract(a, b, name="op"), _f32(2, 5), _f32(2, 4)),
    "maximum": (lambda tf, a, b: tf.maximum(a, b, name="op"), _f32(3, 2), _f32(4, 2)),
    "equal": (lambda tf, a, b: tf.equal(a, b, name="op"), _f32(3, 2), _f32(4, 2)),
    "matmul": (lambda tf, a, b: tf.matmul(a, b, name="op"), _f32(3, 2), _f32(4, 2)),
    "matmul transpose_b": (
        lambda tf, a, b: tf.matmul(a, b, transpose_b=True, name="op"), _f32(3, 2), _f32(4, 3),
    ),
    "concat axis 1": (lambda tf, a, b: tf.concat([a, b], 1, name="op"), _f32(3, 2), _f32(4, 2)),
    "concat axis 0": (lambda tf, a, b: tf.concat([a, b], 0, name="op"), _f32(3, 2), _f32(3, 5)),
    "concat axis -1": (
        lambda tf, a, b: tf.concat([a, a, b], -1, name="op"), _f32(3, 2), _f32(4, 1),
    ),
}  # fmt: skip


def _script(build, a_value, b_value):
    def script(tf):
        a = tf.placeholder(tf.float32, [None, None], name="a")
        b = tf.placeholder(tf.float32, [None, None], name="b")
        out = build(tf, a, b)

        def run(sess):
            try:
                sess.run(out, {a: a_value, b: b_value})
            except tf.errors.OpError as e:
                return (*kernel_message(e), "{{node op}}" in str(e))
            except Exception as e:  # the wrong class: reported, not raised
                return (type(e).__name__, str(e).split("\n")[0], False)
            return ("no error", "", False)

        return run

    return script


@pytest.mark.parametrize("case", list(CASES))
def test_fed_shapes_an_op_cannot_compute_on_raise_tf_error(case):
    theirs, ours = run_both(_script(*CASES[case]))
    assert theirs[0] == "InvalidArgumentError"
    assert ours == theirs


def test_known_shapes_that_are_consistent_still_compute():
    """The conversion changes nothing for runs whose shapes agree."""

    def script(tf):
        a = tf.placeholder(tf.float32, [None, 2], name="a")
        out = tf.concat([a + 1.0, tf.ones([3, 1])], 1) @ tf.ones([3, 2])

        def run(sess):
            return sess.run(out, {a: np.arange(6, dtype=np.float32).reshape(3, 2)})

        return run

    theirs, ours = run_both(script)
    np.testing.assert_array_equal(ours, theirs)
