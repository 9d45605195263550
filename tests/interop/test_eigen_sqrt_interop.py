"""``tf.math.sqrt``'s gradient, TF's ``SqrtGrad`` CPU kernel, bit for bit against TF 2.21
(``jtrain._eigen.sqrt``).

Before: JAX's derivative, which XLA compiled with its ``rsqrt`` of the input, differed
from TF's on 27% of a 24 x 8 gradient (1-2 ulps). TF multiplies ``0.5 * dy`` by the
quotient ``1 / y`` on full packets of 8 values and divides ``(0.5 * dy) / y`` on the
rest; 0 where ``dy`` is 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers import assert_same_bits
from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

# (4133,) and (31, 3): 5 values past full packets of 8 (the scalar path); (7,): only it.
SHAPES = [(4133,), (31, 3), (7,), (24, 8)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sqrt_gradient_bit_for_bit(shape):
    rng = np.random.RandomState(7)
    size = int(np.prod(shape))
    x = (rng.rand(size) * 10.0 ** rng.uniform(-4, 4, size)).astype(np.float32)
    dy = rng.normal(size=size).astype(np.float32)
    x[:3], dy[:3] = [0.0, 0.0, 2.0], [1.0, 0.0, 0.0]  # inf, 0 where dy is 0 (y of 0 too)
    x, dy = x.reshape(shape), dy.reshape(shape)

    def script(tf):
        xs = tf.placeholder(tf.float32, [None, *shape[1:]])
        g = tf.placeholder(tf.float32, [None, *shape[1:]])
        y = tf.sqrt(xs)
        (grad,) = tf.gradients(y, xs, grad_ys=g)
        return lambda sess: sess.run([y, grad], {xs: x, g: dy})

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        assert_same_bits(o, t)
