"""``tf.pow`` and ``**`` by a constant exponent, value and gradient, bit for bit against
TF 2.21 (classic TF1 graphs, where grappler's arithmetic optimizer runs).

TF's grappler replaces ``Pow`` by another kernel where the exponent is one constant
(``ConvertPowStage``): 2 ``Square``, 3 ``x * Square(x)``, 0.5 ``Sqrt``, -0.5 ``Rsqrt``,
-1 ``Reciprocal``, 1 ``Identity``, 0 ones; the gradient TF builds, ``(g * y) *
pow(x, y - 1)`` and ``(g * z) * log(x)``, has a ``Pow`` of its own that it converts the
same way (``x ** 1.5``'s takes ``Sqrt``, ``x ** 4``'s ``x * Square(x)``).

Before: jtrain ran XLA's ``pow`` for all of them: ``x ** -0.5`` and ``x ** -1`` differed
from TF on a third of float32 elements, the gradients of ``x ** 0.5``, ``x ** 3`` and
``x ** 1.5`` on 29-38% (JAX's derivative multiplied in another order, through XLA's
``pow``), and where ``Pow`` stays (``x ** 1.5``, ``x ** -2``, a fed exponent) XLA's
``pow`` is not TF's Eigen kernel (a quarter of float32 values; ``jtrain._eigen.pow`` and
its own tests reproduce that kernel).

.. note::
   The exponent's gradient is a sum over the base's elements; TF sums float16 in another
   order than jtrain (measured here: 0.1-0.7% apart over 4,133 values), so it is compared
   for float32 only.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.bits import assert_bits
from tests.interop.cpu_estimates import estimate_ulps, rsqrt_estimate_ulps
from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(21)


def _no_estimate() -> int:
    return 0


# exponent -> this machine's bound on the estimates its kernels take (Rsqrt, Reciprocal)
EXPONENTS = {
    2.0: _no_estimate,
    3.0: _no_estimate,
    1.0: _no_estimate,
    0.0: estimate_ulps,
    0.5: rsqrt_estimate_ulps,
    -0.5: rsqrt_estimate_ulps,
    -1.0: estimate_ulps,
    1.5: rsqrt_estimate_ulps,
    4.0: _no_estimate,
    2.5: _no_estimate,
    -2.0: _no_estimate,
}
# 4133: 5 values past full packets of 8 (TF's scalar path); 7: none.
SHAPES = [(4133,), (7,)]


def _inputs(shape, dtype):
    size = int(np.prod(shape))
    values = _RNG.uniform(0.01, 30.0, size) * _RNG.choice([-1.0, 1.0], size)
    grads = _RNG.randn(size)
    return values.reshape(shape).astype(dtype), grads.reshape(shape).astype(dtype)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("exponent", list(EXPONENTS), ids=str)
def test_constant_exponent_value_and_gradients(exponent, dtype, shape):
    bound = EXPONENTS[exponent]
    values, grads = _inputs(shape, dtype)

    def script(tf):
        x = tf.placeholder(getattr(tf, dtype), shape)
        dz = tf.placeholder(getattr(tf, dtype), shape)
        y = tf.constant(exponent, getattr(tf, dtype))
        z = x**y
        dx, dy = tf.gradients(z, [x, y], grad_ys=dz)
        return lambda sess: sess.run([z, dx, dy], {x: values, dz: grads})

    (t_z, t_dx, t_dy), (o_z, o_dx, o_dy) = run_both(script)
    assert_bits(o_z, t_z, packet_ulps=bound())
    assert_bits(o_dx, t_dx, packet_ulps=2 * bound())
    if dtype == "float32":  # (float16 sums are not TF's: see the module's note)
        # a sum of 4,133 terms: within the estimates' bound where they are not Intel's
        np.testing.assert_allclose(o_dy, t_dy, rtol=bound() * 2.0**-10, atol=0)
        if not bound():
            assert_bits(o_dy, t_dy)


def test_fed_exponent_value_and_gradients():
    """An exponent grappler cannot see (fed): ``Pow``'s own kernel, in the gradient too
    (``x ** (y - 1)``), negative bases with integer and other exponents."""
    values, grads = _inputs((4133,), "float32")
    exponents = _RNG.choice([-2.0, -1.5, 0.3, 2.0, 2.5, 3.0], 4133).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [4133])
        y = tf.placeholder(tf.float32, [4133])
        dz = tf.placeholder(tf.float32, [4133])
        z = tf.pow(x, y)
        dx, dy = tf.gradients(z, [x, y], grad_ys=dz)
        return lambda sess: sess.run([z, dx, dy], {x: values, y: exponents, dz: grads})

    for ours, theirs in zip(*run_both(script), strict=True):
        assert_bits(ours, theirs)


@pytest.mark.parametrize(
    "make_exponent",
    [
        pytest.param(lambda tf: 0.5, id="python float"),
        pytest.param(lambda tf: tf.constant(0.25) * 2.0, id="folded product"),
        pytest.param(lambda tf: tf.fill([3, 5], 0.5), id="uniform tensor"),
    ],
)
def test_exponents_grappler_folds(make_exponent):
    """A Python number, a product of constants and a tensor of one value are constants
    to grappler: ``Sqrt``, and ``Rsqrt`` in the gradient."""
    values = np.abs(_inputs((3, 5), "float32")[0])

    def script(tf):
        x = tf.placeholder(tf.float32, [3, 5])
        z = tf.pow(x, make_exponent(tf))
        (dx,) = tf.gradients(tf.reduce_sum(z * x), [x])
        return lambda sess: sess.run([z, dx], {x: values})

    (t_z, t_dx), (o_z, o_dx) = run_both(script)
    bound = rsqrt_estimate_ulps()
    assert_bits(o_z, t_z, packet_ulps=bound)
    if not bound:
        assert_bits(o_dx, t_dx)


def test_constant_base_and_broadcast_identity_keep_pow():
    """grappler folds a constant base's power whole (``Pow``'s kernel), and keeps ``Pow``
    for an exponent of 1 that broadcasts the base: the values stay ``x`` there."""
    values = _inputs((4, 1), "float32")[0]

    def script(tf):
        x = tf.placeholder(tf.float32, [4, 1])
        base = tf.constant(values) ** -1.0
        grown = tf.pow(x, tf.ones([4, 3]))
        return lambda sess: sess.run([base, grown], {x: values})

    (t_base, t_grown), (o_base, o_grown) = run_both(script)
    assert_bits(o_base, t_base)
    assert_bits(o_grown, t_grown)
