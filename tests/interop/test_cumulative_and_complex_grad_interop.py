"""``tf.cumsum``/``tf.cumprod`` and ``tf.gradients`` with respect to complex tensors,
checked live against TF 2.21 (``twin.py``), bit for bit.

Before, jtrain's cumulative sums and products were ``jnp.cumsum``/``jnp.cumprod``, whose
XLA lowering combines the elements in another order than TF's Eigen scan (one running
value along the axis): float32 sums of mixed-sign data differed by up to 116736 ulps
(float64: 15744, float16: 8000; products up to 59 ulps), and ``tf.cumprod``'s gradient
at a zero of ``x`` was JAX's, not TF's ``div_no_nan``. ``tf.gradients`` with respect to
a complex tensor returned the conjugate of TF's gradient (``6-8j`` for TF's ``6+8j``).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RNG = np.random.RandomState(7)
SHAPES = {
    "1": ((1,), 0),
    "7": ((7,), 0),
    "100": ((100,), 0),
    "3000": ((3000,), 0),
    "axis 0 of 2-d": ((100, 5), 0),
    "middle axis": ((3, 100, 4), 1),
    "last axis": ((5, 100), -1),
}
DTYPES = ["float32", "float64", "float16", "int32"]


def _data(shape, dtype, product):
    if dtype == "int32":
        return RNG.randint(-2, 3, shape).astype(dtype)
    if product:  # near 1, so long products stay finite
        return (1 + RNG.randn(*shape) * 0.05).astype(dtype)
    return (RNG.randn(*shape) * 4).astype(dtype)  # mixed signs: many zero crossings


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", list(SHAPES))
def test_cumsum_cumprod_bits(case, dtype):
    shape, axis = SHAPES[case]
    xs, xp = _data(shape, dtype, False), _data(shape, dtype, True)

    def script(tf):
        outs = [
            getattr(tf, op)(tf.constant(x), axis=axis, exclusive=ex, reverse=rev)
            for op, x in [("cumsum", xs), ("cumprod", xp)]
            for ex in (False, True)
            for rev in (False, True)
        ]
        shapes = [tuple(o.shape.as_list()) for o in outs]
        return lambda sess: (sess.run(outs), shapes)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cumsum_cumprod_gradients(dtype):
    # Zeros in x: TF's _CumprodGrad divides with div_no_nan (0 there).
    x = (RNG.randn(4, 30) * 3).astype(dtype)
    x[1, 5] = 0.0
    x[2, 0] = 0.0
    w = RNG.randn(4, 30).astype(dtype)

    def script(tf):
        t = tf.constant(x)
        grads = []
        for op in ("cumsum", "cumprod"):
            for ex in (False, True):
                for rev in (False, True):
                    y = getattr(tf, op)(t, axis=1, exclusive=ex, reverse=rev)
                    grads += tf.gradients(tf.reduce_sum(y * w), t)
        return lambda sess: sess.run(grads)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0.0)


def test_cumsum_cumprod_int64_and_complex():
    # int64 beyond int32 (jax_enable_x64 off); complex values and gradients, a zero in x.
    xi = np.array([2**40, 3, -(2**41), 7], np.int64)
    xc = np.array([1 + 2j, -0.5j, 2 - 1j, 0.25 + 0.5j, 0], np.complex64)
    gy = np.array([1 + 1j, 2, -1j, 0.5, 1j], np.complex64)

    def script(tf):
        outs = [
            tf.cumsum(tf.constant(xi)),
            tf.cumprod(tf.constant(xi), exclusive=True, reverse=True),
        ]
        z = tf.constant(xc)
        for op in ("cumsum", "cumprod"):
            for ex in (False, True):
                y = getattr(tf, op)(z, exclusive=ex)
                outs += [y, *tf.gradients(y, z, grad_ys=tf.constant(gy))]
        return lambda sess: sess.run(outs)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0.0)


def test_cumsum_fed_placeholder_axis_0():
    x = (RNG.randn(50, 3) * 4).astype(np.float32)

    def script(tf):
        p = tf.placeholder(tf.float32, [None, 3])
        y = tf.cumsum(p, reverse=True)
        (g,) = tf.gradients(tf.reduce_sum(y * y), p)
        return lambda sess: sess.run([y, g], {p: x})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0.0)


Z = np.array([3 + 4j, -1.5 + 0.25j, 0.5 - 2j], np.complex64)
W = np.array([[1 - 1j, 2 + 0.5j, 0.25j], [-1 + 2j, 1, 0.5 - 0.5j], [2j, -1j, 1 + 1j]])
COMPLEX_CASES = {
    "square of abs": lambda tf, z: tf.reduce_sum(tf.square(tf.abs(z))),
    "abs": lambda tf, z: tf.reduce_sum(tf.abs(z)),
    "real": lambda tf, z: tf.reduce_sum(tf.math.real(z) * [1.0, 2.0, 3.0]),
    "imag": lambda tf, z: tf.reduce_sum(tf.math.imag(z) * [1.0, 2.0, 3.0]),
    "real of a complex product": lambda tf, z: tf.reduce_sum(
        tf.math.real(z * tf.constant([1 - 2j, 0.5j, 3.0], z.dtype))
    ),
    "abs of exp": lambda tf, z: tf.reduce_sum(tf.abs(tf.exp(z * 0.5))),
    "imag of a matmul": lambda tf, z: tf.reduce_sum(
        tf.math.imag(tf.matmul(tf.reshape(z, [1, 3]), tf.constant(W, z.dtype)))
    ),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("case", list(COMPLEX_CASES))
def test_gradients_with_respect_to_complex(case, dtype):
    def script(tf):
        z = tf.constant(Z.astype(dtype))
        (g,) = tf.gradients(COMPLEX_CASES[case](tf, z), z)
        return lambda sess: sess.run(g)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6 if dtype == "complex64" else 1e-14)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_gradients_of_complex_ys_need_grad_ys(dtype):
    def script(tf):
        z = tf.constant(Z.astype(dtype))
        y = tf.multiply(z, tf.constant([1 - 2j, 0.5j, 3.0], z.dtype), name="mul")
        with pytest.raises(TypeError) as error:
            tf.gradients(y, z)
        return lambda sess: str(error.value)

    theirs, ours = run_both(script)
    assert ours == theirs
    assert "must set grad_ys (y.dtype = " + dtype in ours


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_gradients_with_complex_grad_ys(dtype):
    gy = np.array([1 + 2j, -0.5j, 2 - 1j], dtype)

    def script(tf):
        z = tf.constant(Z.astype(dtype))
        v = tf.Variable(Z.astype(dtype) * 0.5)
        y = tf.exp(z) * tf.matmul(tf.reshape(v, [1, 3]), tf.constant(W, z.dtype))[0]
        grads = tf.gradients(y, [z, v], grad_ys=tf.constant(gy))
        return lambda sess: sess.run(grads)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6 if dtype == "complex64" else 1e-14)


def test_gradients_through_a_user_gradient_of_complex():
    # The user's gradient function sees TF's (not JAX's) incoming gradient.
    def script(tf):
        z = tf.constant(Z)

        @tf.custom_gradient
        def scaled(x):
            def grad(dy):
                return dy * tf.constant(1 + 1j, tf.complex64)

            return x * 2, grad

        y = tf.reduce_sum(tf.square(tf.abs(scaled(z) * tf.constant(0.5 - 1j, tf.complex64))))
        return lambda sess: sess.run(tf.gradients(y, z))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6)
