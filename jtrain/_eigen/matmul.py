"""TF's CPU ``MatMul`` of ``float32`` matrices, bit for bit: oneDNN's order of operations.

TF 2.21's x86 build runs ``MatMul`` through oneDNN's ``sgemm``, which adds the
products of each output element in a fixed order: a chain of fused multiply-adds over
``k``, ``c = fma(a[m, k], b[k, n], c)`` from ``c = 0``, cut into blocks of ``k`` whose
chains (each from 0) are added in order. The blocks: ``K <= 384``, one; ``384 < K <=
768``, two, the first ``ceil(K / 2)`` long; ``K > 768``, a block of 384, then the same
rule on the rest (784: 384 + 200 + 200; 1024: 384 + 320 + 320). XLA's ``dot`` adds in
its own order: 65-89% of the outputs of a dense layer's shapes (16x12x16, 100x784x128)
differed from TF's by an ulp or more (measured against TF 2.21).

Measured exact against TF 2.21 on an x86 Xeon (``tests/interop/test_matmul_order_interop.py``
and probes over K of 1-2,048, the same with 1, 2 and 8 intra-op threads), the region
:func:`matmul` computes in TF's order, ``M x K`` times ``K x N`` after the transposes:

* ``M >= 2`` and ``N >= 2``, no transposes, ``transpose_a`` alone, or both (``N`` up to
  512 measured): the blocked chains above;
* ``transpose_b`` alone (``a @ b^T``), ``M >= 16``: the same, but past ``K = 768`` only
  for ``N <= 100`` (beyond, oneDNN's K-blocks are plain blocks of 384 for some ``N``,
  769-2,048 by 101-256, and the halving ones for others, 1,024 by 512: neither taken);
* ``transpose_b`` alone, ``2 <= M < 16`` (any ``N``, ``N = 1`` included): oneDNN's
  dot-product kernel, 16 chains over ``k mod 16`` summed pairwise (:func:`_lanes`);
* ``M == 1`` without ``transpose_b``, and ``N == 1`` with ``transpose_a``: one chain over
  all of K, no blocks (K of 385-1,001 measured where blocks would differ).

Outside it :func:`matmul` is XLA's ``jnp.matmul``: machines where TF does not run
oneDNN's AVX-512 ``sgemm`` (:func:`jtrain._eigen.tf_cpu_kernels`: TF's Eigen
contraction on CPUs without AVX-512 VNNI, AVX-VNNI or AMX, such as AMD's EPYC with
AVX2, adds in an order that depends on the caches' sizes; oneDNN's AVX2 kernels in
another), other dtypes, other platforms (TF's
GPU kernels call cuBLAS, whose order XLA's GPU backend's is not either), ``M == 1`` with
``transpose_b``, ``N == 1`` without ``transpose_a`` (oneDNN's GEMV kernels, orders not
found), ``a @ b^T`` past the bounds above, and shapes not known when traced (a symbolic
batch under ``jax.export``). A product that underflows to ``-0.0`` at the start of a
chain may come out ``+0.0`` (the first step is the product, a zero made ``+0.0``).

``tf.matmul`` (``adapters.v1``) computes the products :func:`small` accepts here, where
the chains cost about XLA's ``dot``; larger ones stay XLA's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from jtrain._eigen import on_cpu, tf_cpu_kernels
from jtrain.errors import InvalidArgumentError

__all__ = ["in_tf_order", "k_blocks", "matmul", "onednn_sgemm", "small"]

_BLOCK = 384  # oneDNN's sgemm K-block for float32
_UNROLL = 16  # FMA steps per loop iteration (one fused XLA loop of 16 products each)
_TRANSPOSE_B_MIN_M = 16  # below it, ``a @ b^T`` takes oneDNN's other kernel
_LANES = 16  # the dot-product kernel's accumulators (a @ b^T below 16 rows)
_TRANSPOSE_B_MAX_N = 100  # above it (K > 768), ``a @ b^T`` has other K-blocks

# The products ``tf.matmul`` computes in TF's order (:func:`small`): M * K * N up to
# SMALL_MAX_PRODUCT and each of M, K, N up to SMALL_MAX_DIM. Measured, jitted forward and
# TF's gradient (three products: chains over K, N and M) against ``jnp.matmul``'s, medians
# of 9 interleaved blocks in one process, per product with 8 products in one program, on a
# 2-core VM loaded by a CI run (+-30% between runs): at most 16,384 (15 shapes), median
# 1.12x (16x12x16 1.07x, 16x16x3 1.10x, 32x12x16 0.79x, 100x16x10 1.15x, 16x64x16 1.01x;
# worst 8x128x10 1.57x, a few microseconds); 20,480-32,768, median 1.4x (32x32x32
# 1.15-1.46x, 64x32x16 1.52x, 64x64x8 1.92x); past that 1.7-3x (128x32x10 2.1-3.0x,
# 64x64x64 2.6x) and a dense layer's 2-5x (100x784x128 2.4x, 64x2304x384 5.2x): XLA's dot.
SMALL_MAX_PRODUCT = 16_384
SMALL_MAX_DIM = 128


def k_blocks(k: int) -> list[tuple[int, int]]:
    """oneDNN's K-blocks for a contraction of length ``k``: ``(start, stop)`` pairs.

    Args:
      k: the contraction's length.

    Returns:
      The blocks in order, covering ``range(k)``.
    """
    blocks: list[tuple[int, int]] = []
    start = 0
    while k - start > 2 * _BLOCK:
        blocks.append((start, start + _BLOCK))
        start += _BLOCK
    rest = k - start
    if rest > _BLOCK:
        half = -(-rest // 2)
        return [*blocks, (start, start + half), (start + half, k)]
    return [*blocks, (start, k)]


def _dims(a: Any, b: Any, transpose_a: bool, transpose_b: bool) -> tuple[Any, Any, Any]:
    m, k = a.shape[::-1] if transpose_a else a.shape
    k_b, n = b.shape[::-1] if transpose_b else b.shape
    del k_b
    return m, k, n


def onednn_sgemm() -> bool:
    """Whether TF on this machine runs oneDNN's AVX-512 ``sgemm``, the kernel whose order
    :func:`matmul` reproduces (:func:`jtrain._eigen.tf_cpu_kernels`)."""
    return tf_cpu_kernels() == (True, "avx512_core")


def in_tf_order(
    shape_a: tuple[Any, ...],
    shape_b: tuple[Any, ...],
    dtype: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
) -> bool:
    """Whether :func:`matmul` computes this product in TF's CPU order (see the module).

    Args:
      shape_a: ``a``'s shape (as given, before a transpose).
      shape_b: ``b``'s shape.
      dtype: the inputs' dtype.
      transpose_a: as :func:`matmul` (default False).
      transpose_b: as :func:`matmul` (default False).

    Returns:
      True where the product is TF's on a CPU, False where it is XLA's ``dot``: always
      where TF on this machine does not run oneDNN's AVX-512 ``sgemm``
      (:func:`jtrain._eigen.tf_cpu_kernels`).
    """
    if not onednn_sgemm():
        return False  # Eigen's contraction, or oneDNN's AVX2 kernels: orders not reproduced
    if jnp.dtype(dtype) != jnp.float32 or len(shape_a) != 2 or len(shape_b) != 2:
        return False
    dims = _dims(jax.ShapeDtypeStruct(shape_a, dtype), jax.ShapeDtypeStruct(shape_b, dtype),
                 transpose_a, transpose_b)  # fmt: skip
    if not all(isinstance(d, int) for d in dims):
        return False  # symbolic: the order depends on values known at run time
    return _kernel(*dims, transpose_a, transpose_b) is not None


def small(
    shape_a: tuple[Any, ...],
    shape_b: tuple[Any, ...],
    dtype: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
) -> bool:
    """Whether a ``float32`` product of matrices is small enough that :func:`matmul`'s
    chains, its own and its gradient's, cost about XLA's ``dot`` (``SMALL_MAX_PRODUCT``,
    ``SMALL_MAX_DIM``); each product is then TF's where :func:`in_tf_order`.

    Args:
      shape_a: ``a``'s shape (as given, before a transpose).
      shape_b: ``b``'s shape.
      dtype: the inputs' dtype.
      transpose_a: as :func:`matmul` (default False).
      transpose_b: as :func:`matmul` (default False).

    Returns:
      True for a ``float32`` product of known, matching shapes within the bounds.
    """
    if jnp.dtype(dtype) != jnp.float32 or len(shape_a) != 2 or len(shape_b) != 2:
        return False
    m, k = shape_a[::-1] if transpose_a else shape_a
    k_b, n = shape_b[::-1] if transpose_b else shape_b
    if not all(isinstance(d, int) for d in (m, k, n)):
        return False  # symbolic
    if k != k_b:
        return False  # XLA's dot reports the mismatch (the compat layer names the node)
    return max(m, k, n) <= SMALL_MAX_DIM and m * k * n <= SMALL_MAX_PRODUCT


def _kernel(m: int, k: int, n: int, transpose_a: bool, transpose_b: bool) -> str | None:
    """The order oneDNN adds this product's terms in (measured), None where not known:
    ``"blocked"`` (FMA chains over K-blocks), ``"chain"`` (one chain over all of K),
    ``"lanes"`` (16 chains over ``k mod 16``, then summed pairwise)."""
    if k < 1 or m < 1 or n < 1:
        return None
    b_rows_only = transpose_b and not transpose_a  # a's and b's rows both contiguous in k
    if m == 1:  # a vector times a matrix
        return None if transpose_b else "chain"
    if b_rows_only and m < _TRANSPOSE_B_MIN_M:
        return "lanes"
    if n == 1:  # a matrix times a vector
        return "chain" if transpose_a else None
    if b_rows_only and k > 2 * _BLOCK and n > _TRANSPOSE_B_MAX_N:
        return None  # other K-blocks (module docstring)
    return "blocked"


def _outer(x: jax.Array, y: jax.Array) -> jax.Array:
    return x[:, None] * y[None, :]


def _chain(
    a_rows: jax.Array,
    b_rows: jax.Array,
    start: int,
    stop: int,
    product: Callable[[jax.Array, jax.Array], jax.Array] = _outer,
) -> jax.Array:
    """``sum_k product(a_rows[k], b_rows[k])`` for ``k`` in ``[start, stop)`` (by default
    the outer product, ``M x N``): one chain of fused multiply-adds from ``+0.0``, as
    oneDNN's kernel adds.

    Each step is ``c + x * y`` in a while loop's body, which LLVM contracts into an FMA:
    ``c`` is the loop's carry, so the product is the only one it can fuse. The loop is
    kept a loop (at least two trips of ``unroll`` steps; XLA inlines a loop of one): in a
    chain inlined from its zeros, ``0.0 + x0 * y0`` was folded to the product (or a
    select standing for it was fused into the next add), and the second step contracted
    the first product, not its own (10-25% of 16xKxN products with K <= 6, 1 ulp off
    TF's). The remainder of the steps, past the loop, continues from its carry.
    """

    def step(k: Any, c: jax.Array) -> jax.Array:
        x = lax.dynamic_index_in_dim(a_rows, k, 0, keepdims=False)
        y = lax.dynamic_index_in_dim(b_rows, k, 0, keepdims=False)
        return c + product(x, y)

    steps = stop - start
    if steps == 1:  # one product: fma(x, y, +0.0) rounds it, a zero product to +0.0
        first = product(a_rows[start], b_rows[start])
        return jnp.where(first == 0, jnp.zeros((), first.dtype), first)
    unroll = min(_UNROLL, steps // 2)
    looped = steps - steps % unroll
    shape = jax.eval_shape(product, a_rows[0], b_rows[0]).shape
    zeros = jnp.zeros(shape, a_rows.dtype)
    c = lax.fori_loop(start, start + looped, step, zeros, unroll=unroll)
    if looped == steps:
        return c
    return lax.fori_loop(start + looped, stop, step, c, unroll=steps - looped)


def _lanes(a: jax.Array, b_t: jax.Array) -> jax.Array:
    """``a @ b_t^T`` as oneDNN's dot-product kernel adds: 16 FMA chains, lane ``j`` over
    ``k = j, j + 16, ...`` (a 512-bit register), then lanes ``j`` and ``j + 8`` added,
    then ``j`` and ``j + 4``, ``j + 2``, ``j + 1`` (measured: ``a @ b^T`` below 16 rows,
    K of 3-1,001). The last rows of 16 are padded with zeros: ``fma(0, 0, c)`` is ``c``.
    """
    m, k = a.shape
    n = b_t.shape[0]
    rows = -(-k // _LANES)
    pad = ((0, 0), (0, rows * _LANES - k))

    def by_rows(x: jax.Array) -> jax.Array:  # R x (M or N) x 16: row r holds k of 16r..
        x = jnp.pad(x, pad).reshape(x.shape[0], rows, _LANES)
        return jnp.transpose(x, (1, 0, 2))

    lanes = _chain(by_rows(a), by_rows(b_t), 0, rows, lambda x, y: x[:, None, :] * y[None, :, :])
    width = _LANES
    while width > 1:
        width //= 2
        lanes = lanes[..., :width] + lanes[..., width : 2 * width]
    del m, n
    return lanes[..., 0]


def _tf_order(a: jax.Array, b: jax.Array, transpose_a: bool, transpose_b: bool) -> jax.Array:
    kernel = _kernel(*_dims(a, b, transpose_a, transpose_b), transpose_a, transpose_b)
    if kernel == "lanes":
        return _lanes(a, b)  # transpose_b alone: a is M x K, b is N x K
    a_rows = a if transpose_a else a.T  # K x M: row k holds the k-th products' factors
    b_rows = b.T if transpose_b else b  # K x N
    k = a_rows.shape[0]
    total: jax.Array | None = None
    for start, stop in k_blocks(k) if kernel == "blocked" else [(0, k)]:
        part = _chain(a_rows, b_rows, start, stop)
        total = part if total is None else total + part
    assert total is not None
    return total


def _xla(a: jax.Array, b: jax.Array, transpose_a: bool, transpose_b: bool) -> jax.Array:
    # HIGHEST: float32 products in float32 on a GPU too (not TF32), as TF's cuBLAS calls
    a, b = a.T if transpose_a else a, b.T if transpose_b else b
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _forward(a: jax.Array, b: jax.Array, transpose_a: bool, transpose_b: bool) -> jax.Array:
    xla = partial(_xla, transpose_a=transpose_a, transpose_b=transpose_b)
    if not in_tf_order(a.shape, b.shape, a.dtype, transpose_a, transpose_b):
        return xla(a, b)
    tf = partial(_tf_order, transpose_a=transpose_a, transpose_b=transpose_b)
    return on_cpu(tf, xla)(a, b)


@partial(jax.custom_vjp, nondiff_argnums=(2, 3))
def _matmul_f32(a: jax.Array, b: jax.Array, transpose_a: bool, transpose_b: bool) -> jax.Array:
    return _forward(a, b, transpose_a, transpose_b)


def _matmul_fwd(
    a: jax.Array, b: jax.Array, transpose_a: bool, transpose_b: bool
) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
    return _forward(a, b, transpose_a, transpose_b), (a, b)


def _matmul_bwd(
    transpose_a: bool, transpose_b: bool, res: tuple[jax.Array, jax.Array], grad: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """TF's ``_MatMulGrad``: each input's gradient one more ``MatMul``, transposes set so
    no transpose is materialized (tensorflow/python/ops/math_grad.py)."""
    a, b = res
    if not transpose_a and not transpose_b:
        return matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)
    if not transpose_a:
        return matmul(grad, b), matmul(grad, a, transpose_a=True)
    if not transpose_b:
        return matmul(b, grad, transpose_b=True), matmul(a, grad)
    return (
        matmul(b, grad, transpose_a=True, transpose_b=True),
        matmul(grad, a, transpose_a=True, transpose_b=True),
    )


_matmul_f32.defvjp(_matmul_fwd, _matmul_bwd)


def _shape_text(shape: tuple[Any, ...]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def matmul(
    a: jax.Array, b: jax.Array, transpose_a: bool = False, transpose_b: bool = False
) -> jax.Array:
    """The matrix product ``a @ b`` of two matrices, as TF's CPU ``MatMul`` computes it.

    ``float32`` products in the region the module names are TF's bit for bit on a CPU;
    the rest are XLA's ``jnp.matmul``. The gradient of a ``float32`` product is TF's
    ``_MatMulGrad``: two more products of this function (``grad @ b^T`` as
    ``matmul(grad, b, transpose_b=True)``, ``a^T @ grad`` as ``matmul(a, grad,
    transpose_a=True)``...), each in TF's order where it is in the region.

    Args:
      a: a matrix, ``M x K`` (``K x M`` with ``transpose_a``).
      b: a matrix of ``a``'s dtype, ``K x N`` (``N x K`` with ``transpose_b``).
      transpose_a: multiply by ``a``'s transpose (TF's default False).
      transpose_b: multiply by ``b``'s transpose (TF's default False).

    Returns:
      The ``M x N`` product, of the inputs' dtype.

    Raises:
      InvalidArgumentError: an input that is not a matrix, or contractions of different
        lengths (TF's ``MatMulOp`` messages).
    """
    a = jnp.asarray(a)
    b = jnp.asarray(b)
    for i, x in enumerate((a, b)):
        if x.ndim != 2:
            raise InvalidArgumentError(
                None,
                None,
                f"In[{i}] is not a matrix. Instead it has shape {_shape_text(x.shape)}",
            )
    k_a = a.shape[0] if transpose_a else a.shape[1]
    k_b = b.shape[1] if transpose_b else b.shape[0]
    if not isinstance(k_a, int) or not isinstance(k_b, int) or k_a != k_b:
        try:
            same = bool(k_a == k_b)
        except Exception:  # symbolic dimensions that cannot be compared yet
            same = True
        if not same:
            raise InvalidArgumentError(
                None,
                None,
                f"Matrix size-incompatible: In[0]: {_shape_text(a.shape)}, "
                f"In[1]: {_shape_text(b.shape)}",
            )
    if a.dtype == jnp.float32 and b.dtype == jnp.float32:
        return _matmul_f32(a, b, bool(transpose_a), bool(transpose_b))
    return _xla(a, b, bool(transpose_a), bool(transpose_b))
