"""``tf.grad_pass_through``, ``tf.recompute_grad`` and ``tf.timestamp`` checked live
against TF 2.21 (classic TF1 graphs): values, gradients (inputs and variables),
dtypes and static shapes; the timestamp read when the run happens, in float64."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

X = np.float32([[0.3, -1.2], [2.0, 0.5]])
W = np.float32([[1.0, 2.0], [-0.5, 0.25]])


def test_recompute_grad_values_and_gradients_as_tf():
    def script(tf):
        x = tf.constant(X)
        # TF 2.21's recompute_grad fails on a classic reference variable (SystemError).
        w = tf.get_variable("w", initializer=tf.constant(W), use_resource=True)

        def f(a, b):
            return tf.tanh(tf.matmul(a, w)) * a + b

        r = tf.recompute_grad(f)(x, 1.5)
        loss = tf.reduce_sum(r * r)
        grads = tf.gradients(loss, [x, w])
        shapes = [str(r.shape), r.dtype.name]
        return lambda sess: (sess.run([r, grads]), shapes)

    theirs, ours = run_both(script)
    assert ours[1] == theirs[1] == ["(2, 2)", "float32"]
    assert_twins(theirs[0], ours[0], rtol=1e-6)


def test_grad_pass_through_as_tf():
    def script(tf):
        x = tf.constant(X)
        p = tf.grad_pass_through(tf.round)(x * 3.0)
        v = tf.get_variable("v", initializer=tf.constant([1.0, 2.0]))
        y = tf.constant([3.0, 4.0])
        z = tf.grad_pass_through(v.assign)(y)
        grads = [tf.gradients(tf.reduce_sum(p * p), x), tf.gradients(tf.reduce_sum(z * z), y)]
        plain = tf.gradients(tf.reduce_sum(tf.round(x * 3.0)), x)
        return lambda sess: (sess.run([p, grads, z, v]), plain)

    theirs, ours = run_both(script)
    assert ours[1] == theirs[1] == [None]  # tf.round alone has no gradient
    assert_twins(theirs[0], ours[0])
    ours = ours[0]
    assert ours[1][1][0].tolist() == [6.0, 8.0]


def test_timestamp_as_tf():
    def script(tf):
        t = tf.timestamp()
        later = tf.timestamp() - t

        def run(sess):
            before = time.time()
            first = sess.run(t)
            after = time.time()
            second = sess.run(t)
            return [
                type(first).__name__,
                bool(before - 1e-6 <= first <= after + 1e-6),  # float32 would be ~100 s off
                bool(second > first),
                (t.op.type, t.op.name, str(t.shape), t.dtype.name),
                sess.run(later).dtype.name,
            ]

        return run

    theirs, ours = run_both(script)
    assert ours == theirs
    assert ours[1] and ours[2]
