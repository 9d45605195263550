"""jtrain._numerics.eigen_sum: TF's summation order (bit-for-bit parity with TF is checked
in tests/interop/test_reduction_order_interop.py); here its shapes, dtypes, derivatives
and the reductions it leaves to XLA."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtrain._numerics import eigen_sum


def _values(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10 ** rng.uniform(-2, 2, shape)).astype(dtype)


CASES = [
    ((1,), None),
    ((7,), None),
    ((1000,), 0),
    ((20_001,), None),
    ((2, 3, 1001), None),
    ((2, 3, 1001), (0, 1, 2)),
    ((3, 20_001), -1),  # rows longer than a leaf, starting at other packet offsets
    ((4, 30_000), -1),  # more values than a single-threaded full reduction: XLA's sum
    ((4, 1, 33), (1, 2)),
    ((5, 7, 1), 1),
    ((33, 77), 0),  # an outer axis: XLA's sum
    ((6, 9, 5), 1),  # a middle axis: XLA's sum
]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_shape_dtype_and_value(shape, axis, keepdims):
    x = _values(shape)
    got = jax.jit(lambda a: eigen_sum(a, axis, keepdims))(x)
    want = np.sum(x.astype(np.float64), axis=axis, keepdims=keepdims)
    assert got.dtype == np.float32
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_exact_where_every_order_is_exact(shape, axis):
    """Small integers add exactly in any order: the result is the exact sum."""
    x = np.random.default_rng(1).integers(-50, 50, shape).astype(np.float32)
    got = eigen_sum(jnp.asarray(x), axis)
    np.testing.assert_array_equal(got, np.sum(x.astype(np.int64), axis=axis).astype(np.float32))


@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_gradient_is_the_broadcast_cotangent(shape, axis):
    x = jnp.asarray(_values(shape))
    out, vjp = jax.vjp(lambda a: eigen_sum(a, axis), x)
    cotangent = jnp.asarray(_values(out.shape, seed=2))
    (grad,) = vjp(cotangent)
    expand = tuple(range(x.ndim)) if axis is None else axis
    np.testing.assert_array_equal(grad, jnp.broadcast_to(jnp.expand_dims(cotangent, expand), shape))
    tangent = jnp.asarray(_values(shape, seed=3))
    _, jvp_out = jax.jvp(lambda a: eigen_sum(a, axis), (x,), (tangent,))
    np.testing.assert_array_equal(jvp_out, jnp.sum(tangent, axis=axis))


def test_second_derivative():
    x = jnp.asarray(_values((5, 40)))
    hess_vec = jax.grad(lambda a: jnp.sum(jax.grad(lambda b: eigen_sum(b * b))(a)))(x)
    np.testing.assert_array_equal(hess_vec, jnp.full_like(x, 2.0))


@pytest.mark.parametrize(
    ("shape", "elementwise_ops"),
    [((108_388,), 0), ((200_001,), 0), ((96_000,), 2), ((1_000_003,), 2), ((4, 30_000), 0)],
)
def test_multithreaded_sizes_keep_xla_sum(shape, elementwise_ops):
    """From these sizes on TF splits a full reduction across threads: XLA's sum stays
    (and for per-row sums of as many values)."""
    x = jnp.asarray(_values(shape))
    np.testing.assert_array_equal(
        jax.jit(lambda a: eigen_sum(a, -1, elementwise_ops=elementwise_ops))(x),
        jax.jit(lambda a: jnp.sum(a, -1))(x),
    )


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, jnp.bfloat16, np.float16])
def test_other_dtypes_keep_their_dtype(dtype):
    x = jnp.asarray(np.arange(60).reshape(3, 20) % 7, dtype)
    for axis in (None, -1, 0):
        got = eigen_sum(x, axis)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, jnp.sum(x, axis=axis, dtype=x.dtype))


def test_empty():
    x = jnp.zeros((3, 0), jnp.float32)
    np.testing.assert_array_equal(eigen_sum(x, -1), jnp.zeros(3, jnp.float32))
    assert eigen_sum(x).shape == ()


@pytest.mark.parametrize(
    ("shape", "axis"),
    [
        ((5, 3, 4), (1, 2)),  # rows of 12
        ((3, 20_001), -1),  # rows longer than a leaf, starting at other packet offsets
        ((6, 20_001), -1),  # as many values as TF spreads across threads: XLA's sum
        ((2, 1, 33), (1, 2)),
    ],
)
def test_symbolic_row_count_sums_as_the_concrete_shape(shape, axis):
    """A ``jax.export`` with an unknown batch (an imported meta graph's op) adds in the
    order the concrete shape does, on either side of the thread threshold."""
    from jax import export

    (batch,) = export.symbolic_shape("batch")
    fn = jax.jit(lambda a: eigen_sum(a, axis))
    exported = export.export(fn)(jax.ShapeDtypeStruct((batch, *shape[1:]), jnp.float32))
    x = _values(shape, seed=4)
    np.testing.assert_array_equal(exported.call(x), fn(x))
    xla = jax.jit(lambda a: jnp.sum(a, axis))(x)
    if jax.default_backend() != "cpu":  # TF's CPU order on CPUs only; XLA's sum elsewhere
        np.testing.assert_array_equal(fn(x), xla)
    elif x.size < 108_388:  # (the values chosen so that TF's order and XLA's differ)
        assert not np.array_equal(fn(x), xla)


@pytest.mark.parametrize("shape", [(9,), (33,), (71,), (1,), (8_192,), (700, 3), (8_193,)])
def test_symbolic_full_sum_adds_as_the_concrete_size(shape):
    """A full sum over an unknown batch (an imported meta graph's loss, ``tf.losses``'
    mean over the batch) adds in the order the concrete size does, up to one leaf (8,192
    values: beyond, XLA's sum, ``(8_193,)``). XLA's sum under the export made a
    jtrain-written graph's loss differ from the live graph's (1 ulp, 35% of batches of
    9)."""
    from jax import export

    (batch,) = export.symbolic_shape("batch")
    fn = jax.jit(lambda a: eigen_sum(a))
    exported = export.export(fn)(jax.ShapeDtypeStruct((batch, *shape[1:]), jnp.float32))
    differs = 0
    for seed in range(12):
        x = _values(shape, seed=seed)
        if x.size <= 8_192:
            np.testing.assert_array_equal(exported.call(x), fn(x))
        else:
            np.testing.assert_array_equal(exported.call(x), jnp.sum(x))
        differs += int(fn(x) != jax.jit(jnp.sum)(x))
    if jax.default_backend() == "cpu" and 1 < math.prod(shape) <= 8_192:
        assert differs  # the seeds give sums whose XLA order differs from TF's


@pytest.mark.parametrize("rows", [1, 33, 200_000])
def test_row_sum_in_order_under_an_unknown_batch(rows):
    """``BiasAddGrad``'s order (rows added in order, up to 1M values; XLA's sum beyond) is
    chosen at run time under ``jax.export`` with an unknown batch, as the concrete shape
    chooses it."""
    from jax import export

    from jtrain._numerics import row_sum_in_order

    (batch,) = export.symbolic_shape("batch")
    fn = jax.jit(row_sum_in_order)
    exported = export.export(fn)(jax.ShapeDtypeStruct((batch, 7), jnp.float32))
    x = _values((rows, 7), seed=rows)
    np.testing.assert_array_equal(exported.call(x), fn(x))


@pytest.mark.parametrize(("rows", "cols"), [(16, 12), (32, 12), (16, 20), (20, 12)])
def test_moments_gradient_after_relu(rows, cols):
    """The gradient of a variance over the batch (``tf.nn.moments``' order) behind a
    relu's mask is the same compiled as op by op: XLA:CPU miscompiled the unrolled
    four-accumulator loop of 16 rows of 12 values (0.25 off under ``jax.jit``: a Keras
    Dense(relu) + BatchNormalization port trained off TF)."""
    rng = np.random.RandomState(1)
    x = jnp.asarray(rng.normal(size=(rows, 12)).astype(np.float32))
    r = jnp.asarray(rng.normal(size=(cols,)).astype(np.float32))
    w = jnp.asarray((rng.randn(12, cols) * 0.3).astype(np.float32))

    def loss(w):
        p = x @ w
        h = jnp.where(p > 0, p, 0.0)
        mean = eigen_sum(h, 0, True) / rows
        variance = eigen_sum(jnp.square(h - jax.lax.stop_gradient(mean)), 0, True) / rows
        return jnp.sum(variance * r)

    eager = jax.grad(loss)(w)
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(w), eager, rtol=1e-5, atol=1e-6)
