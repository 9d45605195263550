"""Properties of ``jtrain._eigen.exp_log`` (TF's values are checked bit for bit in
``tests/interop/test_eigen_exp_log_interop.py``): dtypes and shapes kept, monotone,
the special values IEEE's, ``log`` inverting ``exp`` within an ulp, float64 and complex
values XLA's, gradients TF's products."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from jtrain._eigen import exp_log

_X = np.concatenate(
    [np.random.RandomState(0).randn(997).astype(np.float32) * 5, np.float32([0, -0.0, 20, -200])]
)
FUNCTIONS = {
    "exp": exp_log.exp,
    "expm1": exp_log.expm1,
    "log": exp_log.log,
    "log1p": exp_log.log1p,
    "softplus": exp_log.softplus,
}


def _domain(name, x):
    return np.abs(x) if name in ("log", "log1p") else x


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.float64])
@pytest.mark.parametrize("shape", [(), (7,), (2, 4, 8)])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_keeps_dtype_and_shape(name, shape, dtype):
    x = _domain(name, np.resize(_X, shape) / 4).astype(dtype)
    with jax.enable_x64(dtype == np.float64):  # float64 where a session would have it
        y = FUNCTIONS[name](x)
        dx = jax.grad(lambda v: jnp.sum(FUNCTIONS[name](v)))(x)
    assert y.dtype == x.dtype and y.shape == x.shape
    assert dx.dtype == x.dtype and dx.shape == x.shape


@pytest.mark.parametrize("name", FUNCTIONS)
def test_monotone(name):
    x = np.sort(_domain(name, _X))
    x = x[x > 0] if name == "log" else x
    y = np.asarray(jax.jit(FUNCTIONS[name])(x))
    assert np.all(np.diff(y) >= 0)


def test_special_values():
    special = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1e-40, 100.0, -200.0])
    exp = np.asarray(exp_log.exp(special))
    np.testing.assert_array_equal(exp[[0, 1, 2, 3, 7, 8]], [1, 1, np.inf, 0, np.inf, 0])
    assert np.isnan(exp[4])
    log = np.asarray(exp_log.log(special))
    np.testing.assert_array_equal(log[[0, 1, 2]], [-np.inf, -np.inf, np.inf])
    assert np.isnan(log[[3, 4, 5]]).all()
    assert np.asarray(exp_log.log1p(np.float32([-1.0, 0.0, np.inf]))).tolist() == [
        -np.inf,
        0.0,
        np.inf,
    ]
    assert np.asarray(exp_log.expm1(np.float32([-np.inf, 0.0, np.inf]))).tolist() == [
        -1.0,
        0.0,
        np.inf,
    ]
    np.testing.assert_array_equal(np.asarray(exp_log.softplus(np.float32([50.0, -50.0])))[0], 50.0)


def test_log_inverts_exp_within_an_ulp():
    x = np.float32(np.linspace(-80, 80, 4001))
    back = np.asarray(jax.jit(lambda v: exp_log.log(exp_log.exp(v)))(x))
    np.testing.assert_allclose(back, x, rtol=2e-7, atol=2e-7)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float64_and_complex_are_xla(name):
    reference = jax.nn.softplus if name == "softplus" else getattr(jnp, name)
    with jax.enable_x64(True):
        x = _domain(name, _X).astype(np.float64)
        np.testing.assert_allclose(FUNCTIONS[name](x), reference(x), rtol=1e-14)
    if name != "softplus":
        z = (_X[:16] + 1j * _X[16:32]).astype(np.complex64)
        np.testing.assert_array_equal(FUNCTIONS[name](z), getattr(jnp, name)(z))


@pytest.mark.parametrize("size", [7, 8, 1001])
def test_exp_gradient_is_grad_times_output(size):
    x, dy = _X[:size] / 4, np.resize(_X[::-1] / 5, size)
    y, vjp = jax.vjp(exp_log.exp, x)
    np.testing.assert_array_equal(vjp(dy)[0], np.asarray(dy) * np.asarray(y))


def test_exp_division_gives_eigens_products_bits():
    """``_exp_f32`` ends in a division by a power of two; Eigen's ``pldexp`` multiplies
    by two powers of two, then takes the maximum with ``x`` and zero below -104: the
    same bits on every kind of float32 (random bit patterns: NaNs, infinities,
    denormals; the clamp and underflow edges; a fine grid)."""
    bits = np.random.RandomState(1).randint(-(2**31), 2**31 - 1, 2_000_000, dtype=np.int64)
    x = np.concatenate(
        [
            bits.astype(np.int32).view(np.float32),
            np.float32([0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 88.723, 88.73, -104]),
            np.float32([-103.99, -87.3, -87.4, 1e-45, -1e-45, 3.4e38, -3.4e38]),
            np.linspace(-110, 90, 1_000_001, dtype=np.float32),
        ]
    )

    def eigen(v):
        y, half, e, below = exp_log._exp_parts(v)
        out = y * exp_log._power_of_two(half) * exp_log._power_of_two(e - half)
        return jnp.where(below, np.float32(0), jnp.maximum(out, v))

    got = np.asarray(jax.jit(exp_log._exp_f32)(x)).view(np.int32)
    np.testing.assert_array_equal(got, np.asarray(jax.jit(eigen)(x)).view(np.int32))
