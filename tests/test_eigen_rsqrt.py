"""jtrain._eigen.rsqrt's properties: dtypes and shapes kept, the estimate's documented
accuracy, special values, the gradient's zeros, symbolic shapes. Values against TF are in
tests/interop/test_eigen_rsqrt_interop.py."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtrain._eigen.rsqrt import _rsqrt_estimate, rsqrt, rsqrt_rows

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
    assert y[0] == np.inf and y[1] == -np.inf and y[3] == 0
    if jax.default_backend() == "cpu":  # TF's CPU threads flush the denormal to zero
        assert y[2] == np.inf
    assert np.isnan(y[4:7]).all()
    assert y[7] == np.float32(0.5) or abs(y[7] - 0.5) <= 2 * np.spacing(np.float32(0.5))


@pytest.mark.parametrize("size", [1, 3, 8, 11])
def test_signed_zero_gives_signed_infinity_on_every_path(size):
    """``1 / sqrt(-0.0)`` is ``-inf`` on the packet path, the scalar path and on other
    platforms' quotient alike (the scalar path and the GPU's gave ``+inf``)."""
    x = np.resize(np.float32([-0.0, 0.0]), size)
    y = np.asarray(jax.jit(rsqrt)(x))
    np.testing.assert_array_equal(y, np.where(np.signbit(x), -np.inf, np.inf))


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


def _bits(x):
    x = np.asarray(x)
    return x.view(f"u{x.dtype.itemsize}")


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16, jnp.bfloat16])
@pytest.mark.parametrize("shape", [(5,), (64, 11), (6, 16), (4, 2, 6), (3, 5)])
def test_rows_each_as_the_row_alone(dtype, shape):
    """TF's sparse kernels evaluate each row on its own: its full packets, then its
    last ``size % 8`` values on the scalar path (a row of a rank-1 tensor: one value)."""
    x = jnp.asarray(np.resize(_X % 100 + 0.5, shape), dtype)
    y = jax.jit(rsqrt_rows)(x)
    assert y.dtype == x.dtype and y.shape == x.shape
    for i in range(shape[0]):
        np.testing.assert_array_equal(_bits(y[i]), _bits(jax.jit(rsqrt)(x[i : i + 1])[0]))


def test_rows_restart_the_packets():
    """Flattened, a [64, 11] tensor's packets straddle its rows: other values than
    each row's own packets (the estimate is 1 to 4 ulps from the quotient)."""
    x = jnp.asarray(np.resize(_X % 100 + 0.5, (64, 11)))
    rows, flat = _bits(jax.jit(rsqrt_rows)(x)), _bits(jax.jit(rsqrt)(x))
    if jax.default_backend() == "cpu":
        assert (rows != flat).any()
    else:  # TF's CPU estimates on CPUs only; elsewhere both are the quotient
        np.testing.assert_array_equal(rows, flat)


def test_short_rows_are_the_quotient_and_the_gradient_rsqrt_grad():
    x = np.float32([[4.0, 2.0], [9.0, 3.0]])
    np.testing.assert_array_equal(rsqrt_rows(x), np.float32(1) / np.sqrt(x))
    x = jnp.asarray(np.resize(_X % 100 + 0.5, (3, 11)))
    (dx,) = jax.vjp(rsqrt_rows, x)[1](jnp.ones_like(x))
    np.testing.assert_allclose(dx, -0.5 * np.asarray(x) ** -1.5, rtol=1e-6)


@pytest.mark.parametrize(
    ("spec", "shape"),
    [("n, 11", (7, 11)), ("n, 3, 8", (7, 3, 8)), ("n", (7,)), ("5, m", (5, 19))],
)
def test_rows_symbolic_shape_as_the_concrete_one(spec, shape):
    from jax import export

    symbolic = jax.ShapeDtypeStruct(export.symbolic_shape(spec), jnp.float32)
    exported = export.export(jax.jit(rsqrt_rows))(symbolic)
    x = np.resize(_X % 100 + 0.5, shape)
    np.testing.assert_array_equal(exported.call(x), jax.jit(rsqrt_rows)(x))
