"""jtrain._eigen.rsqrt's properties: dtypes and shapes kept, the estimate's documented
accuracy, special values, the gradient's zeros, symbolic shapes. Values against TF are in
tests/interop/test_eigen_rsqrt_interop.py."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtrain._eigen.rsqrt import _rsqrt_estimate, rsqrt

_RNG = np.random.RandomState(0)
_X = np.abs(_RNG.randn(4096) * 10.0 ** _RNG.uniform(-30, 30, 4096)).astype(np.float32)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16, jnp.bfloat16, jnp.complex64])
@pytest.mark.parametrize("shape", [(), (5,), (3, 8), (2, 3, 7)])
def test_dtype_and_shape_kept(dtype, shape):
    x = jnp.asarray(np.resize(_X % 100 + 0.5, shape), dtype)
    y = jax.jit(rsqrt)(x)
    assert y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_allclose(
        np.asarray(y, np.complex64), 1 / np.sqrt(np.asarray(x, np.complex64)), rtol=1e-2
    )


def test_estimate_within_its_documented_error():
    """Intel and AMD document ``|relative error| <= 1.5 * 2**-12`` for ``rsqrtps``."""
    estimate = np.asarray(jax.jit(_rsqrt_estimate)(_X), np.float64)
    exact = 1 / np.sqrt(_X.astype(np.float64))
    ok = np.isfinite(exact) & (exact > 0) & (_X >= np.finfo(np.float32).tiny)
    assert np.max(np.abs(estimate[ok] / exact[ok] - 1)) <= 1.5 * 2.0**-12


def test_newton_step_within_four_ulps_of_the_quotient():
    """One Newton step squares the estimate's error (``1.5 * (1.5 * 2**-12)**2``, about
    3.4 * 2**-24), plus its roundings: within 4 ulps (TF's values are up to 4 off)."""
    y = np.asarray(jax.jit(rsqrt)(_X))
    exact = (1 / np.sqrt(_X.astype(np.float64))).astype(np.float32)
    ulps = np.abs(y.view(np.int32).astype(np.int64) - exact.view(np.int32))
    assert ulps.max() <= 4


def test_special_values():
    x = np.float32([0.0, -0.0, 1e-45, np.inf, -1.0, -np.inf, np.nan, 4.0])
    y = np.asarray(jax.jit(rsqrt)(x))
    assert y[0] == np.inf and y[1] == -np.inf and y[2] == np.inf and y[3] == 0
    assert np.isnan(y[4:7]).all()
    assert y[7] == np.float32(0.5) or abs(y[7] - 0.5) <= 2 * np.spacing(np.float32(0.5))


def test_gradient_zero_where_the_incoming_gradient_is():
    x = jnp.asarray(np.float32([0.0, np.inf, 4.0, 2.0, 1.0, 9.0, 3.0, 5.0, 0.0]))
    dy = jnp.asarray(np.float32([0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]))
    (dx,) = jax.vjp(rsqrt, x)[1](dy)
    assert dx[0] == 0 and dx[2] == 0 and dx[8] == 0 and not np.signbit(dx[1])
    np.testing.assert_allclose(dx[3:8], -0.5 * np.asarray(x[3:8]) ** -1.5, rtol=1e-6)


def test_symbolic_shape_as_the_concrete_one():
    from jax import export

    (n,) = export.symbolic_shape("n")
    exported = export.export(jax.jit(rsqrt))(jax.ShapeDtypeStruct((n,), jnp.float32))
    x = _X[:1003]
    np.testing.assert_array_equal(exported.call(x), jax.jit(rsqrt)(x))
