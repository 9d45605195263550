"""jtrain._eigen.matmul's properties: shapes and dtypes, the region in TF's order and the
fallback to XLA's dot outside it, the gradient's structure (TF's ``_MatMulGrad``), jit,
errors, a symbolic batch. Values against TF are in
tests/interop/test_matmul_order_interop.py."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtrain._eigen.matmul import in_tf_order, k_blocks, matmul, small
from jtrain.errors import InvalidArgumentError

_RNG = np.random.RandomState(0)
TRANSPOSES = [(False, False), (False, True), (True, False), (True, True)]


def _operands(m, k, n, ta, tb, dtype=np.float32):
    a = _RNG.randn(*((k, m) if ta else (m, k))).astype(dtype)
    b = _RNG.randn(*((n, k) if tb else (k, n))).astype(dtype)
    return jnp.asarray(a), jnp.asarray(b)


def _xla(a, b, ta, tb):
    return jnp.matmul(a.T if ta else a, b.T if tb else b)


@pytest.mark.parametrize(
    ("k", "blocks"),
    [
        (1, [(0, 1)]),
        (384, [(0, 384)]),
        (385, [(0, 193), (193, 385)]),
        (768, [(0, 384), (384, 768)]),
        (769, [(0, 384), (384, 577), (577, 769)]),
        (784, [(0, 384), (384, 584), (584, 784)]),
        (1024, [(0, 384), (384, 704), (704, 1024)]),
    ],
)
def test_k_blocks_as_measured(k, blocks):
    """The partitions measured against TF 2.21 (784: 384 + 200 + 200; 769: 384 + 193 +
    192; 1024: 384 + 320 + 320)."""
    assert k_blocks(k) == blocks


@pytest.mark.parametrize("k", [1, 2, 383, 385, 767, 769, 1153, 2048, 5000])
def test_k_blocks_cover_the_contraction(k):
    blocks = k_blocks(k)
    assert blocks[0][0] == 0 and blocks[-1][1] == k
    assert all(stop == start for (_, stop), (start, _) in zip(blocks, blocks[1:], strict=False))
    assert all(stop - start <= 384 for start, stop in blocks)


@pytest.mark.parametrize(
    ("shape_a", "shape_b", "dtype", "ta", "tb", "expected"),
    [
        ((16, 12), (12, 16), np.float32, False, False, True),
        ((1, 12), (12, 16), np.float32, False, False, True),  # one chain
        ((1, 12), (16, 12), np.float32, False, True, False),  # GEMV, order not found
        ((16, 12), (12, 1), np.float32, False, False, False),
        ((12, 16), (12, 1), np.float32, True, False, True),  # one chain
        ((12, 5), (12, 9), np.float32, True, False, True),
        ((5, 12), (9, 12), np.float32, False, True, True),  # 16 lanes
        ((5, 12), (1, 12), np.float32, False, True, True),
        ((16, 12), (9, 12), np.float32, False, True, True),
        ((16, 784), (128, 784), np.float32, False, True, False),  # past K 768, N > 100
        ((16, 784), (100, 784), np.float32, False, True, True),
        ((16, 768), (512, 768), np.float32, False, True, True),
        ((16, 12), (12, 16), np.float16, False, False, False),
        ((16, 12), (12, 16), np.float64, False, False, False),
        ((16, 12), (12, 16), np.int32, False, False, False),
        ((2, 16, 12), (12, 16), np.float32, False, False, False),
    ],
)
def test_region(shape_a, shape_b, dtype, ta, tb, expected):
    assert in_tf_order(shape_a, shape_b, dtype, ta, tb) is expected


@pytest.mark.parametrize(
    ("shape_a", "shape_b", "dtype", "ta", "tb", "expected"),
    [
        ((16, 12), (12, 16), np.float32, False, False, True),  # keras_fit_style's layers
        ((16, 16), (3, 16), np.float32, False, True, True),
        ((12, 16), (12, 16), np.float32, True, False, True),
        ((12, 16), (16, 16), np.float32, True, False, False),  # 12 against 16: XLA's error
        ((128, 128), (128, 1), np.float32, False, False, True),  # a GEMV: XLA's, its grads TF's
        ((8, 128), (128, 16), np.float32, False, False, True),  # at SMALL_MAX_PRODUCT
        ((8, 129), (129, 2), np.float32, False, False, False),  # past SMALL_MAX_DIM
        ((32, 32), (32, 17), np.float32, False, False, False),  # past SMALL_MAX_PRODUCT
        ((16, 12), (12, 16), np.float64, False, False, False),
        ((16, 12, 3), (3, 16), np.float32, False, False, False),
        # the benchmarks' dense layers stay XLA's dot
        ((100, 784), (784, 128), np.float32, False, False, False),
        ((64, 2304), (2304, 384), np.float32, False, False, False),
        ((20, 400), (400, 800), np.float32, False, False, False),
        ((400, 200), (200, 2000), np.float32, False, False, False),
        ((8, 784), (784, 32), np.float32, False, False, False),
    ],
)
def test_small(shape_a, shape_b, dtype, ta, tb, expected):
    assert small(shape_a, shape_b, dtype, ta, tb) is expected


@pytest.mark.parametrize(("ta", "tb"), TRANSPOSES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32])
def test_shape_and_dtype_kept(cpu_programs, dtype, ta, tb):
    a, b = _operands(7, 5, 3, ta, tb, np.float32)
    a, b = a.astype(dtype), b.astype(dtype)
    y = jax.jit(matmul, static_argnums=(2, 3))(a, b, ta, tb)
    assert y.shape == (7, 3) and y.dtype == a.dtype
    np.testing.assert_allclose(
        np.asarray(y, np.float32), np.asarray(_xla(a, b, ta, tb), np.float32), rtol=2e-2
    )


@pytest.mark.parametrize(
    ("shape", "ta", "tb"),
    [((1, 50, 7), False, True), ((7, 50, 1), False, False), ((16, 800, 128), False, True)],
)
def test_outside_the_region_is_xla_dot(cpu_programs, shape, ta, tb):
    a, b = _operands(*shape, ta, tb)
    assert not in_tf_order(a.shape, b.shape, a.dtype, ta, tb)
    np.testing.assert_array_equal(
        jax.jit(matmul, static_argnums=(2, 3))(a, b, ta, tb),
        jax.jit(_xla, static_argnums=(2, 3))(a, b, ta, tb),
    )


@pytest.mark.parametrize(("platform", "chain"), [("cpu", True), ("cuda", False)])
def test_other_platforms_take_xla_dot(platform, chain):
    """``lax.platform_dependent``: the chain is the CPU's program only."""
    a, b = _operands(16, 12, 16, False, False)
    text = jax.jit(matmul).trace(a, b).lower(lowering_platforms=(platform,)).as_text()
    assert ("while" in text) is chain and ("dot_general" in text) is not chain


@pytest.mark.parametrize(("ta", "tb"), TRANSPOSES, ids=str)
def test_gradient_is_tfs_matmul_grad(cpu_programs, ta, tb):
    """``_MatMulGrad``: each gradient another ``matmul`` with the transposes TF sets."""
    a, b = _operands(20, 12, 18, ta, tb)
    grad = jnp.asarray(_RNG.randn(20, 18).astype(np.float32))
    da, db = jax.jit(lambda a, b, g: jax.vjp(lambda a, b: matmul(a, b, ta, tb), a, b)[1](g))(
        a, b, grad
    )
    products = {
        (False, False): ((grad, b, False, True), (a, grad, True, False)),
        (False, True): ((grad, b, False, False), (grad, a, True, False)),
        (True, False): ((b, grad, False, True), (a, grad, False, False)),
        (True, True): ((b, grad, True, True), (grad, a, True, True)),
    }[ta, tb]
    expected = [jax.jit(matmul, static_argnums=(2, 3))(*args) for args in products]
    np.testing.assert_array_equal(da, expected[0])
    np.testing.assert_array_equal(db, expected[1])


def test_second_derivative(cpu_programs):
    a, b = _operands(16, 8, 4, False, False)
    hvp = jax.grad(lambda a: jnp.sum(jax.grad(lambda a: jnp.sum(matmul(a, b) ** 2))(a)))(a)
    expected = jax.grad(lambda a: jnp.sum(jax.grad(lambda a: jnp.sum((a @ b) ** 2))(a)))(a)
    np.testing.assert_allclose(hvp, expected, rtol=1e-5)


@pytest.mark.parametrize("shape", [(16, 12, 16), (100, 784, 128)], ids=str)
def test_jit_and_eager_agree(cpu_programs, shape):
    a, b = _operands(*shape, False, False)
    np.testing.assert_array_equal(jax.jit(matmul)(a, b), matmul(a, b))


def test_zero_products_give_positive_zero(cpu_programs):
    """``fma(0, -1, +0.0)`` is ``+0.0``: a row of zeros times negative weights (TF 2.21
    gives +0.0 for every shape and transpose measured)."""
    for k in (1, 3, 800):
        y = jax.jit(matmul)(jnp.zeros((16, k), jnp.float32), -jnp.ones((k, 4), jnp.float32))
        assert not np.signbit(np.asarray(y)).any()


@pytest.mark.parametrize(
    ("shape_a", "shape_b", "ta", "tb", "message"),
    [
        ((2, 3, 4), (4, 5), False, False, "In[0] is not a matrix. Instead it has shape [2,3,4]"),
        ((2, 3), (3,), False, False, "In[1] is not a matrix. Instead it has shape [3]"),
        ((2, 3), (4, 5), False, False, "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]"),
        ((2, 3), (5, 4), False, True, "Matrix size-incompatible: In[0]: [2,3], In[1]: [5,4]"),
    ],
)
def test_errors_are_tfs(shape_a, shape_b, ta, tb, message):
    with pytest.raises(InvalidArgumentError, match=message.replace("[", r"\[")):
        matmul(jnp.ones(shape_a), jnp.ones(shape_b), ta, tb)


def test_symbolic_batch_exports(cpu_programs):
    """A batch unknown when traced (``jax.export``) takes XLA's dot, and runs."""
    (m,) = jax.export.symbolic_shape("m")
    b = jnp.asarray(_RNG.randn(12, 16).astype(np.float32))
    spec = jax.ShapeDtypeStruct((m, 12), jnp.float32)
    exported = jax.export.export(jax.jit(lambda a: matmul(a, b)), platforms=["cpu"])(spec)
    a = jnp.asarray(_RNG.randn(3, 12).astype(np.float32))
    np.testing.assert_array_equal(exported.call(a), jax.jit(jnp.matmul)(a, b))
