"""A product meeting an addition (``x * y + z``, two graph ops) is rounded between them as
TF's kernels round it, checked bit for bit against TF 2.21 (``twin.py``). XLA's CPU
backend contracted the two into one FMA: 21-30% of elements 1 ulp off TF's before
``jtrain._numerics.rounded_product``. The gradients' products are rounded as TF's
``_MulGrad`` rounds them before the backward pass sums paths (``x * y * z + x``: 250 of
1,024 elements of x's gradient 1 ulp off before)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RNG = np.random.RandomState(5)
X, Y, Z = (RNG.randn(3, 1024).astype(np.float32) for _ in range(3))
X[0, :4] = [0.0, -0.0, np.inf, 1e-30]

CASES = {
    "x * y + z": lambda tf, x, y, z: x * y + z,
    "z - x * y": lambda tf, x, y, z: z - x * y,
    "x * y * z + x": lambda tf, x, y, z: x * y * z + x,
    "multiply by a constant, add": lambda tf, x, y, z: tf.multiply(x, 3.1) + z,
    "x * x + y": lambda tf, x, y, z: x * x + y,
    "scalar_mul then add": lambda tf, x, y, z: tf.scalar_mul(tf.constant(0.7, x.dtype), x) + y,
    "bias_add of a product": lambda tf, x, y, z: tf.nn.bias_add(
        tf.reshape(x * y, [32, 32]), z[:32]
    ),
    # gradients summing several products' paths
    "x * y + x * z": lambda tf, x, y, z: x * y + x * z,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_product_then_sum_bit_exact_as_tf(case, dtype):
    def script(tf):
        # Fed, not constants: XLA folds a computation of constants without the FMA.
        x, y, z = (tf.placeholder(dtype, [1024]) for _ in range(3))
        feed = {x: X[0].astype(dtype), y: Y[0].astype(dtype), z: Z[0].astype(dtype)}
        out = CASES[case](tf, x, y, z)
        grads = tf.gradients(out, [x, y, z])
        grads = [g for g in grads if g is not None]
        return lambda sess: sess.run([out, grads], feed)

    theirs, ours = run_both(script)
    assert_twins(theirs[0], ours[0], rtol=0)  # the forward values, bit for bit
    assert_twins(theirs[1], ours[1], rtol=0)  # the gradients too


def test_gradient_of_a_gradient_through_products():
    """Second derivatives (a gradient's products differentiated again) as TF's."""

    def script(tf):
        x, y = (tf.placeholder("float32", [1024]) for _ in range(2))
        out = x * x * y + x * y
        (gx,) = tf.gradients(out, [x])
        second = tf.gradients(gx * x + gx, [x, y])
        return lambda sess: sess.run([gx, second], {x: X[0], y: Y[0]})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_gradient_of_a_broadcast_product_sums_to_each_input():
    """A product of broadcast shapes: each input's gradient summed back to its shape
    (quarters: every product and sum is exact, whatever the summation order)."""

    def script(tf):
        x = tf.placeholder("float32", [4, 1, 8])
        y = tf.placeholder("float32", [3, 1])
        out = x * y + 1.0
        feed = {
            x: np.round(X[0, :32] * 4).reshape(4, 1, 8) / 4,
            y: np.round(Y[0, :3] * 4).reshape(3, 1) / 4,
        }
        grads = tf.gradients(out, [x, y])
        return lambda sess: sess.run([out, grads], feed)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
