"""Properties of ``jtrain._eigen.tanh_logistic`` (TF's values are checked bit for bit in
``tests/interop/test_eigen_tanh_logistic_interop.py``): dtypes and shapes kept, ``tanh``
odd to the bit, ``sigmoid`` within [0, 1] and monotone, the gradients TF's kernels,
float64 and complex values XLA's."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from jtrain._eigen import tanh_logistic as tl

_X = np.concatenate(
    [np.random.RandomState(0).randn(997).astype(np.float32) * 5, np.float32([0, -0.0, 20, -200])]
)
FUNCTIONS = {"tanh": tl.tanh, "logistic": tl.logistic}
GRADS = {"tanh": tl.tanh_grad, "logistic": tl.logistic_grad}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.float64])
@pytest.mark.parametrize("shape", [(), (7,), (8,), (3, 5), (2, 4, 8)])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_keeps_dtype_and_shape(name, shape, dtype):
    x = np.resize(_X, shape).astype(dtype)
    with jax.enable_x64(dtype == np.float64):  # float64 where a session would have it
        y = FUNCTIONS[name](x)
        dx = jax.grad(lambda v: jnp.sum(FUNCTIONS[name](v)))(x)
    assert y.dtype == x.dtype and y.shape == x.shape
    assert dx.dtype == x.dtype and dx.shape == x.shape


def test_tanh_is_odd_to_the_bit():
    y = np.asarray(jax.jit(tl.tanh)(_X))
    negated = np.asarray(jax.jit(tl.tanh)(-_X))
    np.testing.assert_array_equal(negated.view(np.uint32), (-y).view(np.uint32))
    assert np.all(np.abs(y) <= 1)
    assert np.asarray(tl.tanh(np.float32([np.inf, -np.inf]))).tolist() == [1.0, -1.0]


def test_logistic_is_a_monotone_probability():
    x = np.sort(_X)
    y = np.asarray(jax.jit(tl.logistic)(x))
    assert np.all((y >= 0) & (y <= 1)) and np.all(np.diff(y) >= 0)
    assert np.asarray(tl.logistic(np.float32([np.inf, -np.inf, -105]))).tolist() == [1, 0, 0]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_nan_stays_nan(name):
    for dtype in (np.float32, np.float16):
        assert np.isnan(np.asarray(FUNCTIONS[name](np.asarray([np.nan] * 9, dtype)))).all()


@pytest.mark.parametrize("size", [7, 8, 1001])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_jax_gradient_is_the_kernel_of_the_output(name, size):
    x, dy = _X[:size], np.resize(_X[::-1] / 5, size)
    y, vjp = jax.vjp(FUNCTIONS[name], x)
    (dx,) = vjp(dy)
    np.testing.assert_array_equal(np.asarray(dx), np.asarray(GRADS[name](y, dy)))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_jit_and_eager_agree(name):
    np.testing.assert_array_equal(
        np.asarray(jax.jit(FUNCTIONS[name])(_X)), np.asarray(FUNCTIONS[name](_X))
    )


@pytest.mark.parametrize(
    ("name", "xla"), [("tanh", jnp.tanh), ("logistic", jax.nn.sigmoid)], ids=["tanh", "logistic"]
)
def test_complex_and_float64_are_xla_s(name, xla):
    z = (_X[:16] + 1j * _X[16:32]).astype(np.complex64)
    np.testing.assert_array_equal(np.asarray(FUNCTIONS[name](z)), np.asarray(xla(z)))
    with jax.enable_x64(True):
        x = _X.astype(np.float64)
        np.testing.assert_array_equal(np.asarray(FUNCTIONS[name](x)), np.asarray(xla(x)))
