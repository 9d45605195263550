"""jtrain._eigen.trig's properties: dtypes and shapes kept, the other dtypes left to XLA,
symmetry, ranges, jit and eager alike, and the ``rcpps`` estimate's accuracy. Values
against TF are in tests/interop/test_eigen_trig_interop.py."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtrain._eigen import trig

_RNG = np.random.RandomState(0)
_X = np.concatenate(
    [_RNG.randn(2048).astype(np.float32) * s for s in (0.1, 1, 10, 1e3, 1e5)]
    + [np.float32([0.0, 1e-30, 25966.0, 18838.0, 3e38, np.inf, np.nan])]
)
UNARY = ["sin", "cos", "atan", "erf"]


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return (a == b) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16, jnp.bfloat16])
@pytest.mark.parametrize("shape", [(5,), (3, 8), (2, 3, 7), ()])
@pytest.mark.parametrize("name", UNARY)
def test_keeps_dtype_and_shape(name, shape, dtype):
    x = jnp.asarray(_RNG.randn(*shape), dtype)
    y = getattr(trig, name)(x)
    assert y.dtype == dtype and y.shape == shape


@pytest.mark.parametrize("name, xla", [("sin", jnp.sin), ("cos", jnp.cos), ("atan", jnp.arctan)])
def test_complex_values_are_xla(name, xla):
    z = jnp.asarray(_RNG.randn(6) + 1j * _RNG.randn(6), jnp.complex64)
    np.testing.assert_array_equal(getattr(trig, name)(z), xla(z))


@pytest.mark.parametrize("name", UNARY)
def test_jit_and_eager_agree(name):
    fn = getattr(trig, name)
    assert _same_bits(jax.jit(fn)(_X), fn(_X)).all()


@pytest.mark.parametrize("name, parity", [("sin", -1), ("cos", 1), ("atan", -1), ("erf", -1)])
def test_symmetry(name, parity):
    fn = jax.jit(getattr(trig, name))
    assert _same_bits(fn(-_X), parity * np.asarray(fn(_X))).all()


@pytest.mark.parametrize("name, bound", [("sin", 1), ("cos", 1), ("erf", 1), ("atan", np.pi / 2)])
def test_range(name, bound):
    y = np.asarray(jax.jit(getattr(trig, name))(_X[np.isfinite(_X)]))
    assert (np.abs(y) <= np.float32(bound)).all()


@pytest.mark.parametrize("name", UNARY)
def test_close_to_float64(name):
    """Within a few ulps of NumPy's float64 function (Eigen's approximations are)."""
    x = _X[np.isfinite(_X) & (np.abs(_X) < 1e4)]
    ref = {"sin": np.sin, "cos": np.cos, "atan": np.arctan, "erf": np.vectorize(math.erf)}
    want = ref[name](x.astype(np.float64))
    got = np.asarray(jax.jit(getattr(trig, name))(x), np.float64)
    assert (np.abs(got - want) <= 4e-7 * np.maximum(np.abs(want), 1e-3)).all()


def test_atan2_broadcasts_and_quadrants():
    y = jnp.float32([[1.0], [-1.0]])
    x = jnp.float32([1.0, -1.0, 0.0])
    z = np.asarray(trig.atan2(y, x))
    assert z.shape == (2, 3)
    np.testing.assert_allclose(z, np.arctan2(np.asarray(y), np.asarray(x)), rtol=1e-6)
    gy, gx = jax.grad(lambda a, b: trig.atan2(a, b).sum(), argnums=(0, 1))(y, x)
    assert gy.shape == (2, 1) and gx.shape == (3,)


def test_rcp_estimate_accuracy_and_specials():
    """``rcpps``: a relative error below 1.5 * 2**-12 on every mantissa; +-inf for +-0 and
    denormals, +-0 from 2**126, NaN kept."""
    mantissas = np.arange(0, 2**23, 97, dtype=np.uint32)
    a = (mantissas | np.uint32(0x3F800000)).view(np.float32)
    r = np.asarray(jax.jit(trig._rcp_estimate)(a), np.float64)
    assert (np.abs(r * a - 1) < 1.5 * 2.0**-12).all()
    special = np.float32([0.0, -0.0, 1e-40, 2.0**126, -(2.0**127), np.inf, np.nan])
    got = np.asarray(trig._rcp_estimate(jnp.asarray(special)))
    want = np.float32([np.inf, -np.inf, np.inf, 0.0, -0.0, 0.0, np.nan])
    assert _same_bits(got, want).all() and (np.signbit(got) == np.signbit(want)).all()


def test_reciprocal_within_two_ulps():
    x = _X[np.isfinite(_X) & (_X != 0) & (np.abs(_X) < 1e30)]
    got = np.asarray(jax.jit(trig._reciprocal)(x))
    want = np.float32(1) / x
    ulps = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
    assert ulps.max() <= 2


@pytest.mark.parametrize("name", UNARY)
def test_gradients_keep_dtype(name):
    for dtype in (jnp.float32, jnp.float16, jnp.bfloat16):
        x = jnp.asarray(_RNG.randn(9), dtype)
        g = jax.grad(lambda v: getattr(trig, name)(v).astype(jnp.float32).sum())(x)
        assert g.dtype == dtype and np.isfinite(np.asarray(g, np.float32)).all()
