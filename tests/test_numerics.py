"""jtrain._numerics: the rounding barriers keep TF's rounded products under jax.jit.

The expected values are NumPy's: NumPy rounds every product to the dtype before an
addition, as TF's Eigen kernels do, while XLA:CPU may contract ``a * b + c`` into an
FMA. Each barrier must also be the identity, bit for bit, on every value.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from jtrain import optimizers
from jtrain._numerics import (
    fan_out,
    given_uses,
    rounded,
    rounded_nonnegative,
    rounded_product,
    rounded_square,
    uses,
)

N = 20_011  # long enough for XLA:CPU's vector loops, odd for their tails


def _data(dtype):
    rng = np.random.default_rng(0)
    a = rng.normal(size=N).astype(dtype)
    b = rng.normal(size=N).astype(dtype)
    # c close to -a*b: the sum cancels, so an unrounded product shows in the result.
    c = (-(a * b) + rng.normal(size=N).astype(dtype) * dtype(1e-3)).astype(dtype)
    return a, b, c


@pytest.mark.parametrize(
    "dtype",
    [np.float32, pytest.param(np.float64, marks=pytest.mark.x64)],
    ids=["f32", "f64"],
)
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_rounded_product_then_add(jit, dtype):
    a, b, c = _data(dtype)
    f = lambda a, b, c: rounded(a * b) + c
    got = np.asarray((jax.jit(f) if jit else f)(a, b, c))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, (a * b) + c)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_rounded_square_in_adams_second_moment(jit):
    # TF's Adam: v += (g * g - v) * (1 - beta2), the square and the product rounded.
    g, v, _ = _data(np.float32)
    v = np.abs(v)
    k = np.float32(1) - np.float32(0.999)
    f = lambda g, v: v + rounded((rounded_square(g) - v) * k)
    got = np.asarray((jax.jit(f) if jit else f)(g, v))
    np.testing.assert_array_equal(got, v + ((g * g) - v) * k)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_rounded_nonnegative_product_then_add(jit):
    a, b, c = _data(np.float32)
    f = lambda a, b, c: rounded_nonnegative(jnp.abs(a) * jnp.abs(b)) - c
    got = np.asarray((jax.jit(f) if jit else f)(a, b, c))
    np.testing.assert_array_equal(got, (np.abs(a) * np.abs(b)) - c)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_a_square_of_two_copies_stays_rounded(jit):
    """``fan_out``'s copies of one value multiplied: XLA merges them back into a square
    and sees through ``rounded``; ``square=True`` keeps the product rounded."""
    a, _, _ = _data(np.float32)
    c = (-(a * a) + np.abs(a) * np.float32(1e-3)).astype(np.float32)

    def f(a, c):
        left, right = fan_out(a, (0, 1))
        return rounded_product(left, right, square=True) + c

    got = np.asarray((jax.jit(f) if jit else f)(a, c))
    np.testing.assert_array_equal(got, (a * a) + c)


_SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 1e-30, -1e-30]


_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@pytest.mark.parametrize("barrier", [rounded, rounded_nonnegative], ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "dtype",
    [np.float16, ml_dtypes.bfloat16, np.float32, pytest.param(np.float64, marks=pytest.mark.x64)],
    ids=["f16", "bf16", "f32", "f64"],
)
def test_barriers_are_the_identity_bit_for_bit(barrier, dtype):
    info = ml_dtypes.finfo(dtype)
    x = np.asarray(
        [*_SPECIAL, info.smallest_subnormal, -info.smallest_subnormal, info.max, info.min],
        dtype=dtype,
    )
    bits = _BITS[x.itemsize]
    for f in (barrier, jax.jit(barrier)):
        got = np.asarray(f(x))
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.view(bits), x.view(bits))


@pytest.mark.parametrize("barrier", [rounded, rounded_nonnegative], ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "dtype",
    [np.int8, np.int32, pytest.param(np.int64, marks=pytest.mark.x64), np.uint8, np.uint32],
)
def test_barriers_leave_integers_alone(barrier, dtype):
    info = np.iinfo(dtype)
    x = np.asarray([0, 1, 2, info.max, info.min], dtype=dtype)
    for f in (barrier, jax.jit(barrier)):
        got = np.asarray(f(x))
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, x)


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="XLA:CPU's thread split")
@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("gradient_descent", {}),
        ("momentum", {"momentum": 0.9}),
        ("adagrad_da", {"l1_regularization_strength": 0.01, "l2_regularization_strength": 0.01}),
        ("adam", {}),
        ("rmsprop", {}),
        ("rmsprop", {"momentum": 0.9, "centered": True}),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(v) or "defaults",
)
def test_small_updates_are_not_split_across_threads(name, kwargs):
    """A 25k-element update stays one memory-bound loop on XLA:CPU.

    XLA:CPU's cost model splits a loop fusion across threads when it counts more
    element operations than bytes; for a small array the hand-off to another thread
    costs more than the loop (a tiny model's Adam step was 35-60 us slower with the
    six-operation ``copysign`` barrier). The barriers are cheap enough to stay under.
    (Nesterov momentum, FTRL and the proximal optimizers are not listed: their
    updates are split, FTRL's even without barriers. Nor are Adagrad and Adadelta since
    they compute TF's ``rsqrt``, the CPU's estimate from a table and a Newton step,
    ``jtrain._eigen.rsqrt``: their 25k-element step went from 70 to 130 us and 123 to
    230 us on a loaded 2-core machine.)
    """
    opt = getattr(optimizers, name)(1e-3, **kwargs)
    params = {"w": jnp.ones((784, 32), jnp.float32)}
    grads = {"w": jnp.full((784, 32), 0.5, jnp.float32)}

    def step(p, s, g):
        u, s = opt.update(g, s, p)
        return jax.tree.map(jnp.add, p, u), s

    hlo = jax.jit(step).lower(params, opt.init(params), grads).compile().as_text()
    split = [
        line for line in hlo.splitlines() if "f32[784,32]" in line and 'partitions":["' in line
    ]
    assert not split, "\n".join(split)


def _inner_uses_gradient(given: bool) -> np.float32:
    """The gradient of ``c0 + u0 + 2**24 * u1`` where ``c0, c1, c2`` are copies of ``v``
    whose gradients are added c1's, c0's, c2's and an op's two inner uses ``u0, u1`` of
    ``c1`` take ``c1, c2`` when given (else ``c1``'s ``fan_out``)."""

    def f(v):
        c0, c1, c2 = fan_out(v, (1, 0, 2))
        with given_uses({id(c1): (c1, (c1, c2))} if given else {}):
            u0, u1 = uses(c1, (0, 1))
        return c0 + u0 + jnp.float32(2**24) * u1

    return np.float32(jax.grad(f)(jnp.float32(1.0)))


@pytest.mark.parametrize(
    ("given", "expected"),
    [(True, 2 + 2**24), (False, 2**24)],  # (1 + 1) + 2**24; (1 + (1 + 2**24)) rounded
    ids=["given", "fan_out"],
)
def test_uses_take_their_places_among_the_outer_uses(given, expected):
    assert _inner_uses_gradient(given) == np.float32(expected)


def test_uses_ignore_copies_given_for_other_values():
    x, y = jnp.float32(1.0), jnp.float32(2.0)
    with given_uses({id(x): (x, (x, x, x))}):
        assert len(uses(x, (0, 1))) == 2  # another count of uses: its own fan_out
        assert [float(u) for u in uses(y, (0, 1))] == [2.0, 2.0]
