"""TF's CPU ``Softmax``, ``LogSoftmax``, ``SoftmaxCrossEntropyWithLogits`` and
``SparseSoftmaxCrossEntropyWithLogits`` kernels, bit for bit on float32.

``Softmax`` is not Eigen's: TF 2.21's x86 build runs oneDNN's softmax primitive for it
(``_MklSoftmax``, float32, float16 and bfloat16; :func:`softmax`, at the end of this
module): oneDNN's own ``exp`` (a degree-5 polynomial, fused multiply-adds on AVX2 and
AVX-512), the row sums in vector registers of the CPU's width and a product by the
sum's reciprocal. The rest of this docstring is about the three Eigen kernels.

TF's kernels (``softmax_op_functor.h``, ``xent_op.h``, ``sparse_xent_op.h``) are Eigen
tensor expressions over ``[batch, classes]``: the row maximum, the shifted logits
``x - max``, the row sums of their ``exp`` and the ``log`` of those sums. Which of
Eigen's paths computes an ``exp`` or a ``log`` depends on the expression it sits in
(measured against TF 2.21, whose oneDNN build leaves these three kernels to Eigen):

* ``exp`` inside a row sum (``shifted.exp().sum(along_class)``): Eigen's
  InnerMostDimReducer, per leaf (the row, or halves of rows longer than 8,192 values
  split at absolute packet boundaries) its full packets of 8 through ``pexp_float``
  and its last ``length % 8`` values through the C library (glibc's ``expf``,
  :mod:`jtrain._eigen._libm`), added in Eigen's order (``jtrain._numerics``'
  :func:`~jtrain._numerics.eigen_sum`'s, for any number of rows);
* an elementwise expression over the whole tensor (``log`` of the ``[batch]`` sums,
  the sparse kernel's ``exp``): packets over the flattened tensor, the C library on its
  last ``size % 8`` values;
* the dense kernel's ``backprop = exp(shifted) / sum - labels`` has a broadcast, which
  Eigen's executor evaluates in tiles: blocks of 4,507 values at most (its cost model's
  target for this expression), whole rows or parts of one row, each block's last
  ``length % 8`` values through the C library;
* the sparse kernel's loss (a generator): the C library's ``logf`` on every row.

None of these depends on the number of threads. Divisions are single roundings
(:func:`jtrain._numerics.kernel_divide`: XLA would multiply by a reciprocal) and the
loss's products are rounded before their sum (no FMA in TF's build). The gradients
are TF's Python ones (``nn_grad.py``) on TF's kernels.

.. note::
   float64, float16 and bfloat16 keep XLA's functions (TF's Python wrappers send
   float16, and bfloat16 for the dense loss, through the float32 kernels: the adapters
   cast), and so do classes of symbolic size (``jax.export``). ``LogSoftmax``'s
   gradient sums a single row as :func:`~jtrain._numerics.eigen_sum` does (XLA's sum
   from 108,388 values, where TF's threads split it).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jtrain._eigen import _detect, _libm, exp_log, on_cpu, tf_cpu_kernels
from jtrain._eigen._packet import PACKET
from jtrain._eigen._packet import packets as _packets
from jtrain._eigen.exp_log import _exp_f32, _log_f32
from jtrain._numerics import (
    _eigen_leaves,
    _eigen_tree,
    _ordered_sum,
    _sequential_rows,
    eigen_sum,
    kernel_divide,
    rounded,
)

__all__ = [
    "OneDnnIsa",
    "log_softmax",
    "onednn_isa",
    "softmax",
    "softmax_cross_entropy",
    "softmax_cross_entropy_kernel",
    "sparse_softmax_cross_entropy",
    "sparse_softmax_cross_entropy_kernel",
]

_LEAF = 1024 * PACKET  # InnerMostDimReducer's leaf, in values
# The scalar path: glibc's expf and logf (TF's scalar functor calls them).
_scalar_exp = _libm.expf
_scalar_log = _libm.logf
_flat_exp = _packets(_exp_f32, _scalar_exp)
_flat_log = _packets(_log_f32, _scalar_log)


def _leaf_tail_columns(offset: int, n: int) -> np.ndarray:
    """The columns of a row of ``n`` values starting at ``offset`` modulo 8 that Eigen's
    row reduction computes on the scalar path: the last ``length % 8`` of each leaf
    (rows longer than 8,192 values split in halves at absolute packet boundaries)."""
    leaves = _eigen_leaves(_eigen_tree(offset, n, PACKET))
    columns = [
        np.arange(start - offset + length - length % PACKET, start - offset + length)
        for start, length in leaves
    ]
    return np.concatenate(columns).astype(np.int32)


def _row_exp(shifted: jax.Array, packet: jax.Array) -> jax.Array:
    """``exp`` of ``[rows, n]`` values as Eigen's row reduction evaluates it
    (``packet``: ``pexp_float`` of every value): the full packets of each leaf (the row,
    up to 8,192 values) through ``pexp_float``, its last ``length % 8`` values through
    the C library."""
    rows, n = shifted.shape
    if n <= _LEAF or n % PACKET == 0:  # every row alike: its last n % 8 values
        head = n - n % PACKET
        if head == n:
            return packet
        return jnp.concatenate([packet[:, :head], _scalar_exp(shifted[:, head:])], axis=1)
    columns = {o: _leaf_tail_columns(o, n) for o in range(PACKET)}
    if not isinstance(rows, int):  # symbolic rows: a mask by each row's offset
        table = np.zeros((PACKET, n), bool)
        for o, cols in columns.items():
            table[o, cols] = True
        offsets = (lax.broadcasted_iota(jnp.int32, (rows,), 0) * n) % PACKET
        return jnp.where(jnp.asarray(table)[offsets], _scalar_exp(shifted), packet)
    starts = np.arange(rows, dtype=np.int64) * n
    index = np.concatenate([s + columns[int(s % PACKET)] for s in starts])
    return _scalar_at(shifted, packet, index.astype(np.int32))


# Eigen's target block size for the dense kernel's ``backprop`` expression: its cost
# model's 1 / taskSize of the expression's cost per value (fixed by the build;
# measured on TF 2.21: scalar tails at the ends of blocks of 4,507 values).
_XENT_BLOCK = 4507


def _block_tails(rows: int, n: int) -> np.ndarray:
    """Flat indices of the values of ``[rows, n]`` that Eigen's tiled evaluation of
    the dense kernel's ``backprop`` computes on the scalar path.

    Eigen's block mapper (``kSkewedInnerDims``) splits a tensor larger than the target
    size into blocks of ``min(target, n)`` columns and ``ceil(target / columns)`` rows;
    each block, contiguous or row by row, is evaluated in packets from its start and its
    last ``length % 8`` values through the scalar functor."""
    size = rows * n
    if size <= _XENT_BLOCK:
        starts, lengths = np.array([0]), np.array([size])
    elif n <= _XENT_BLOCK:
        block_rows = min(-(-_XENT_BLOCK // n), rows)
        first = np.arange(0, rows, block_rows)
        starts, lengths = first * n, np.minimum(block_rows, rows - first) * n
    else:
        cols = np.arange(0, n, _XENT_BLOCK)
        starts = (np.arange(rows)[:, None] * n + cols[None, :]).reshape(-1)
        lengths = np.tile(np.minimum(_XENT_BLOCK, n - cols), rows)
    tails = lengths % PACKET
    ends = starts + lengths
    return (ends[:, None] - np.arange(PACKET, 0, -1)[None, :])[
        np.arange(PACKET, 0, -1)[None, :] <= tails[:, None]
    ].astype(np.int32)


def _scalar_at(shifted: jax.Array, packet: jax.Array, index: np.ndarray) -> jax.Array:
    """``packet`` (``pexp_float`` of ``shifted``) with the C library's ``exp`` at the
    flat ``index``."""
    flat = shifted.reshape(-1)
    return packet.reshape(-1).at[index].set(_scalar_exp(flat[index])).reshape(shifted.shape)


def _block_tail_mask(rows: Any, n: int) -> jax.Array:
    """:func:`_block_tails` as a mask of ``[rows, n]``, for a symbolic number of rows
    (``jax.export``): the blocks computed from the row count at run time."""
    row = lax.broadcasted_iota(jnp.int32, (rows, n), 0)
    col = lax.broadcasted_iota(jnp.int32, (rows, n), 1)
    if n > _XENT_BLOCK:  # blocks of one row, the same in every row
        first = (col // _XENT_BLOCK) * _XENT_BLOCK
        position, length = col - first, jnp.minimum(_XENT_BLOCK, n - first)
    else:  # blocks of whole rows (one block if the tensor fits in the target size)
        count = jnp.asarray(rows, jnp.int32)
        block_rows = jnp.minimum(-(-_XENT_BLOCK // n), count)
        first = (row // block_rows) * block_rows
        position = (row - first) * n + col
        length = jnp.minimum(block_rows, count - first) * n
    return position >= length - length % PACKET


def _tiled_exp(shifted: jax.Array, packet: jax.Array) -> jax.Array:
    """``exp`` of ``[rows, n]`` as the dense kernel's tiled ``backprop`` evaluates it
    (``packet``: ``pexp_float`` of every value)."""
    rows, n = shifted.shape
    if not isinstance(rows, int):
        return jnp.where(_block_tail_mask(rows, n), _scalar_exp(shifted), packet)
    return _scalar_at(shifted, packet, _block_tails(rows, n))


def _flat_exp_of(shifted: jax.Array, packet: jax.Array) -> jax.Array:
    """``exp`` of ``shifted`` as an elementwise expression over the whole tensor
    evaluates it: the last ``size % 8`` values through the C library."""
    if not all(isinstance(d, int) for d in shifted.shape):
        return _flat_exp(shifted)
    size = shifted.size
    return _scalar_at(shifted, packet, np.arange(size - size % PACKET, size, dtype=np.int32))


def _row_sum(x: jax.Array) -> jax.Array:
    """Eigen's sum of each row of ``[rows, n]`` (its InnerMostDimReducer)."""
    return _ordered_sum(x, (1,), False, x.shape)


def _shifted(logits: jax.Array) -> jax.Array:
    return logits - jnp.max(logits, axis=1, keepdims=True)


def _log_softmax_cpu(logits: jax.Array) -> jax.Array:
    shifted = _shifted(logits)
    log_sum = _flat_log(_row_sum(_row_exp(shifted, _exp_f32(shifted))))
    return shifted - log_sum[:, None]


def _xent_cpu(labels: jax.Array, logits: jax.Array) -> tuple[jax.Array, jax.Array]:
    shifted = _shifted(logits)
    packet = _exp_f32(shifted)
    total = _row_sum(_row_exp(shifted, packet))
    log_sum = _flat_log(total)
    loss = _row_sum(rounded(labels * (log_sum[:, None] - shifted)))
    backprop = kernel_divide(_tiled_exp(shifted, packet), total[:, None]) - labels
    return loss, backprop


def _sparse_xent_cpu(labels: jax.Array, logits: jax.Array) -> tuple[jax.Array, jax.Array]:
    shifted = _shifted(logits)
    packet = _exp_f32(shifted)
    total = _row_sum(_row_exp(shifted, packet))
    depth = logits.shape[1]
    index = labels.astype(jnp.int32)[:, None]
    picked = jnp.take_along_axis(shifted, jnp.clip(index, 0, depth - 1), axis=1)[:, 0]
    one_hot = jnp.arange(depth, dtype=jnp.int32)[None, :] == index
    loss = _scalar_log(total) - picked
    backprop = kernel_divide(_flat_exp_of(shifted, packet), total[:, None]) - jnp.where(
        one_hot, np.float32(1), np.float32(0)
    )
    valid = (labels >= 0) & (labels < depth)
    return jnp.where(valid, loss, np.float32(np.nan)), jnp.where(
        valid[:, None], backprop, np.float32(np.nan)
    )


def _log_softmax_xla(logits: jax.Array) -> jax.Array:
    return jax.nn.log_softmax(logits, axis=1)


def _xent_xla(labels: jax.Array, logits: jax.Array) -> tuple[jax.Array, jax.Array]:
    log_probs = jax.nn.log_softmax(logits, axis=1)
    return -jnp.sum(labels * log_probs, axis=1), jnp.exp(log_probs) - labels


def _sparse_xent_xla(labels: jax.Array, logits: jax.Array) -> tuple[jax.Array, jax.Array]:
    depth = logits.shape[1]
    one_hot = jax.nn.one_hot(labels, depth, dtype=logits.dtype)
    loss, backprop = _xent_xla(one_hot, logits)
    valid = (labels >= 0) & (labels < depth)
    return jnp.where(valid, loss, jnp.nan), jnp.where(valid[:, None], backprop, jnp.nan)


def _matrix(x: jax.Array) -> jax.Array:
    return x.reshape((-1, x.shape[-1]))


def _tf_order(logits: jax.Array) -> bool:
    """Whether jtrain computes TF's CPU bits for ``logits`` (float32, classes of static
    size); XLA's functions otherwise."""
    return logits.dtype == jnp.float32 and isinstance(logits.shape[-1], int) and logits.size != 0


def _broadcast_product(g: jax.Array, mat: jax.Array) -> jax.Array:
    """TF's ``_BroadcastMul``: ``g[..., None] * mat`` (a ``Mul``, rounded before any sum)."""
    return rounded(g[..., None] * mat)


@jax.custom_vjp
def log_softmax(logits: Any) -> jax.Array:
    """``logits - log(sum(exp(logits)))`` over the last axis as TF's CPU ``LogSoftmax``.

    Args:
      logits: a float array of rank at least 1.

    Returns:
      The log-probabilities, ``logits``'s shape and dtype; the gradient is TF's
      ``_LogSoftmaxGrad``, ``grad - reduce_sum(grad, -1, keepdims=True) * exp(output)``
      (its ``Sum``, ``Exp`` and ``Mul`` kernels).
    """
    logits = jnp.asarray(logits)
    if not _tf_order(logits):
        return jax.nn.log_softmax(logits, axis=-1)
    out = on_cpu(_log_softmax_cpu, _log_softmax_xla)(_matrix(logits))
    return out.reshape(logits.shape)


def _log_softmax_fwd(logits: Any) -> tuple:
    out = log_softmax(logits)
    return out, out


def _sum_last(g: jax.Array) -> jax.Array:
    """TF's ``reduce_sum(g, -1, keepdims=True)`` (its ``Sum`` kernel)."""
    one_row = all(isinstance(d, int) and d == 1 for d in g.shape[:-1])
    if g.dtype != jnp.float32 or one_row or not isinstance(g.shape[-1], int):
        return eigen_sum(g, -1, keepdims=True)
    # Rows: Eigen's order whatever their number, symbolic too (eigen_sum keeps XLA's
    # sum for many values, where TF's order does not depend on threads either).
    xla_sum = lambda m: jnp.sum(m, axis=1)  # noqa: E731
    total = on_cpu(_row_sum, xla_sum)(_matrix(g))
    return total.reshape(g.shape[:-1] + (1,))


def _log_softmax_bwd(out: jax.Array, g: jax.Array) -> tuple:
    total = _sum_last(g)
    return (g - rounded(total * exp_log.exp(out)),)


log_softmax.defvjp(_log_softmax_fwd, _log_softmax_bwd)


def _xent(labels: jax.Array, logits: jax.Array) -> tuple[jax.Array, jax.Array]:
    shape = logits.shape
    if _tf_order(logits):
        loss, backprop = on_cpu(_xent_cpu, _xent_xla)(_matrix(labels), _matrix(logits))
    else:
        loss, backprop = _xent_xla(_matrix(labels), _matrix(logits))
    return loss.reshape(shape[:-1]), backprop.reshape(shape)


@jax.custom_vjp
def softmax_cross_entropy(labels: Any, logits: Any) -> jax.Array:
    """TF's CPU ``SoftmaxCrossEntropyWithLogits`` over the last axis (float32; other
    dtypes by XLA's functions).

    Args:
      labels: the label distributions, ``logits``'s shape and dtype.
      logits: a float array of rank at least 1.

    Returns:
      The cross entropies, ``logits``'s shape without its last axis. The gradient is
      TF's: ``grad * backprop`` to the logits (the kernel's second output, ``softmax -
      labels``), ``grad * -log_softmax(logits)`` to the labels (TF's ``LogSoftmax``).
    """
    return _xent(jnp.asarray(labels), jnp.asarray(logits))[0]


def _xent_fwd(labels: Any, logits: Any) -> tuple:
    labels, logits = jnp.asarray(labels), jnp.asarray(logits)
    loss, backprop = _xent(labels, logits)
    return loss, (logits, backprop)


def _xent_bwd(residuals: tuple, g: jax.Array) -> tuple:
    logits, backprop = residuals
    return _broadcast_product(g, -log_softmax(logits)), _broadcast_product(g, backprop)


softmax_cross_entropy.defvjp(_xent_fwd, _xent_bwd)


def _sparse_xent(labels: jax.Array, logits: jax.Array) -> tuple[jax.Array, jax.Array]:
    shape = logits.shape
    flat_labels = labels.reshape(-1)
    if _tf_order(logits):
        fn = on_cpu(_sparse_xent_cpu, _sparse_xent_xla)
        loss, backprop = fn(flat_labels, _matrix(logits))
    else:
        loss, backprop = _sparse_xent_xla(flat_labels, _matrix(logits))
    return loss.reshape(labels.shape), backprop.reshape(shape)


@jax.custom_vjp
def sparse_softmax_cross_entropy(labels: Any, logits: Any) -> jax.Array:
    """TF's CPU ``SparseSoftmaxCrossEntropyWithLogits`` over the last axis (float32;
    other dtypes by XLA's functions).

    Args:
      labels: class indices, ``logits``'s shape without its last axis (an integer
        array); an index out of ``[0, classes)`` gives NaN (TF's GPU kernel; its CPU
        kernel raises).
      logits: a float array of rank at least 1.

    Returns:
      The cross entropies, ``labels``'s shape. The gradient is TF's, ``grad *
      backprop`` to the logits (the kernel's second output, ``softmax -
      one_hot(labels)``), none to the labels.
    """
    return _sparse_xent(jnp.asarray(labels), jnp.asarray(logits))[0]


def _sparse_xent_fwd(labels: Any, logits: Any) -> tuple:
    labels, logits = jnp.asarray(labels), jnp.asarray(logits)
    loss, backprop = _sparse_xent(labels, logits)
    return loss, backprop


def _sparse_xent_bwd(backprop: jax.Array, g: jax.Array) -> tuple:
    return None, _broadcast_product(g, backprop)


sparse_softmax_cross_entropy.defvjp(_sparse_xent_fwd, _sparse_xent_bwd)


def softmax_cross_entropy_kernel(labels: Any, logits: Any) -> tuple[jax.Array, jax.Array]:
    """TF's ``SoftmaxCrossEntropyWithLogits`` op's two outputs, the loss and the backprop
    (``softmax - labels``), as its CPU kernel computes them (for a TF-written graph's
    node, whose gradient graph reads the backprop)."""
    return _xent(jnp.asarray(labels), jnp.asarray(logits))


def sparse_softmax_cross_entropy_kernel(labels: Any, logits: Any) -> tuple[jax.Array, jax.Array]:
    """TF's ``SparseSoftmaxCrossEntropyWithLogits`` op's two outputs, the loss and the
    backprop (``softmax - one_hot(labels)``), as its CPU kernel computes them."""
    return _sparse_xent(jnp.asarray(labels), jnp.asarray(logits))


# -- Softmax: oneDNN's softmax primitive -----------------------------------------------------
# TF 2.21's x86 build rewrites ``Softmax`` (float32, float16, bfloat16) to ``_MklSoftmax``,
# oneDNN's ``softmax_accurate`` primitive (oneDNN 3.7's JIT kernel), seen in the step stats'
# timeline labels; ``TF_ENABLE_ONEDNN_OPTS=0`` gives Eigen's kernel and other bits (69% of
# a 64x1000 softmax).


class OneDnnIsa(NamedTuple):
    """The vector width of oneDNN's JIT softmax kernel on a CPU.

    Attributes:
      lanes: float32 values per vector register (16 AVX-512, 8 AVX2, 4 SSE4.1).
      fma: whether its multiply-adds are fused (AVX2 and above) or two roundings.
    """

    lanes: int
    fma: bool


_ISA_KERNELS = {
    "avx512_core": OneDnnIsa(16, True),
    "avx2": OneDnnIsa(8, True),
    "sse41": OneDnnIsa(4, False),  # also oneDNN's softmax on AVX-only CPUs (measured)
}


def _isa(flags: frozenset[str], cap: str) -> OneDnnIsa:
    """oneDNN's choice for a CPU of ``flags`` under ``ONEDNN_MAX_CPU_ISA=cap``."""
    environ = {"ONEDNN_MAX_CPU_ISA": cap} if cap else {}
    return _ISA_KERNELS[_detect(flags, environ).isa]


def onednn_isa() -> OneDnnIsa:
    """The vector width of oneDNN's softmax kernel on this CPU (as oneDNN reads it, once
    per process: :func:`jtrain._eigen.tf_cpu_kernels`).

    oneDNN picks its JIT kernel by the CPU's instruction set (the ``flags`` of Linux's
    ``/proc/cpuinfo``): AVX-512 (``avx512f``, ``avx512bw``, ``avx512vl`` and
    ``avx512dq``: its ``avx512_core``) with 16 lanes, else AVX2 (with FMA) with 8, else
    SSE4.1 with 4, capped by ``ONEDNN_MAX_CPU_ISA`` (or its older name
    ``DNNL_MAX_CPU_ISA``). All three measured bit for bit against TF 2.21 on one
    AVX-512 machine, the other two by capping oneDNN there (``AVX`` gives the SSE4.1
    kernel). Without ``/proc/cpuinfo`` (another system or architecture, where TF may
    not run oneDNN's kernel at all) the SSE4.1 kernel's order, not measured there.

    Returns:
      The kernel's :class:`OneDnnIsa`.
    """
    return _ISA_KERNELS[tf_cpu_kernels().isa]


def _f32(bits: int) -> np.float32:
    return np.float32(np.array([bits], np.uint32).view(np.float32)[0])


# oneDNN's exp (jit_uni_eltwise_injector): its table's constants, by their bits.
_DNNL_LN_FLT_MIN = _f32(0xC2AEAC50)
_DNNL_LN_FLT_MAX = _f32(0x42B17218)
_DNNL_LOG2E = _f32(0x3FB8AA3B)
_DNNL_LN2 = _f32(0x3F317218)
# ln 2 in two parts whose products with an integer of 8 bits are exact: x - n * ln2
# computed exactly but for its last rounding, the fused multiply-add's.
_DNNL_LN2_HI = _f32(0x3F317200)
_DNNL_LN2_LO = np.float32(_DNNL_LN2 - _DNNL_LN2_HI)
# The polynomial, highest degree first (p5 ... p1, then 1).
_DNNL_EXP_POLY = tuple(
    _f32(b) for b in (0x3C07CFCE, 0x3D2B9D0D, 0x3E2AAD40, 0x3EFFFEE3, 0x3F7FFFFB, 0x3F800000)
)
_SMALLEST_NORMAL = np.float32(2.0**-126)


def _fused_multiply_add(
    a: jax.Array, b: jax.Array, c: Any, dominant_addend: bool = False
) -> jax.Array:
    """``a * b + c`` of float32 values rounded once (a fused multiply-add), whatever XLA
    contracts: the product is exact in float64, its sum with ``c`` is rounded to odd
    there (TwoSum's error picks the odd neighbour of an inexact sum) and then to float32,
    which is the correct rounding (53 bits >= 24 + 2). ``dominant_addend``: ``|c| >=
    |a * b|`` everywhere (oneDNN's polynomial), the error by Fast2Sum (cheaper)."""
    with jax.enable_x64(True):
        product = a.astype(jnp.float64) * b.astype(jnp.float64)
        addend = jnp.asarray(c, jnp.float64)
        total = rounded(product + addend)  # barriers: TwoSum must not be simplified
        if dominant_addend:
            error = product - (total - addend)
        else:
            back = rounded(total - product)
            error = (product - (total - back)) + (addend - back)
        bits = lax.bitcast_convert_type(total, jnp.int64)
        step = jnp.where((error > 0) == (total > 0), np.int64(1), np.int64(-1))
        odd = lax.bitcast_convert_type(bits + step, jnp.float64)
        total = jnp.where((error != 0) & ((bits & 1) == 0), odd, total)
        return total.astype(jnp.float32)


def _onednn_exp(x: jax.Array, fma: bool) -> jax.Array:
    """oneDNN's ``exp`` of float32 ``x``: ``2 * 2**(n - 1) * p(r)`` with ``n =
    floor(x * log2(e) + 1/2)``, ``r = x - n * ln 2`` and a polynomial of degree 5 (Horner,
    multiply-adds fused with ``fma``), 0 below ``log(FLT_MIN)``."""
    below = x < _DNNL_LN_FLT_MIN
    # minps/maxps: the second operand where the first is NaN (NaN's exp is exp's maximum)
    x = jnp.where(x < _DNNL_LN_FLT_MAX, x, _DNNL_LN_FLT_MAX)
    x = jnp.where(x > _DNNL_LN_FLT_MIN, x, _DNNL_LN_FLT_MIN)
    n = jnp.floor(rounded(x * _DNNL_LOG2E) + np.float32(0.5))
    if fma:  # x - n * hi is exact (Sterbenz): one rounding, the fused one
        r = (x - n * _DNNL_LN2_HI) - n * _DNNL_LN2_LO
    else:
        r = x - rounded(n * _DNNL_LN2)
    biased = lax.shift_left((n - np.float32(1)).astype(jnp.int32) + 127, np.int32(23))
    half_scale = jnp.where(below, np.float32(0), lax.bitcast_convert_type(biased, jnp.float32))
    p = jnp.full_like(x, _DNNL_EXP_POLY[0])
    for coeff in _DNNL_EXP_POLY[1:]:
        # |r| <= ln(2) / 2 keeps |p * r| below each coefficient (p5 ... p1, 1)
        p = _fused_multiply_add(p, r, coeff, True) if fma else rounded(p * r) + coeff
    y = rounded(p * half_scale)  # exact, or below 2**-126: flushed (TF runs with FTZ)
    # the barrier: XLA would move the 2 into a later product (2**127 * (2 * 0) is 0)
    return rounded(jnp.where(y < _SMALLEST_NORMAL, np.float32(0), y) * np.float32(2))


def _x86_max(a: jax.Array, b: jax.Array) -> jax.Array:
    """x86's ``maxps``: ``a`` where ``a > b``, else ``b`` (``b`` where either is NaN)."""
    return jnp.where(a > b, a, b)


def _onednn_lane_max(x: jax.Array, lanes: int) -> jax.Array:
    """oneDNN's row maximum of ``x`` (``[rows, n]``), one per vector lane (``[rows,
    lanes]``): vectors into four accumulators from ``-FLT_MAX`` as the sums go
    (:func:`_onednn_row_sum`), by ``maxps``, then its halving. Without NaN every lane
    holds the maximum; a NaN reaches some lanes only (``maxps`` keeps its second
    operand), and the columns of those lanes subtract it."""
    rows, n = x.shape
    full, tail = divmod(n, lanes)
    loops, rest = divmod(full, 4)
    width = 4 if loops else max(rest, 1)
    acc = jnp.full((rows, width * lanes), -np.finfo(np.float32).max, x.dtype)
    if loops:
        body = x[:, : loops * 4 * lanes].reshape(rows, loops, 4 * lanes)
        step = lambda j, a: _x86_max(a, lax.dynamic_index_in_dim(body, j, 1, False))  # noqa: E731
        acc = lax.fori_loop(0, loops, step, acc, unroll=8)
    start = loops * 4 * lanes
    if rest:
        head = _x86_max(acc[:, : rest * lanes], x[:, start : start + rest * lanes])
        acc = acc.at[:, : rest * lanes].set(head)
    if tail:
        acc = acc.at[:, :tail].set(_x86_max(acc[:, :tail], x[:, full * lanes :]))
    a = [acc[:, i * lanes : (i + 1) * lanes] for i in range(width)]
    if width == 4:
        v = _x86_max(_x86_max(a[0], a[1]), _x86_max(a[2], a[3]))
    elif width == 3:
        v = _x86_max(_x86_max(a[0], a[1]), a[2])
    else:
        v = _x86_max(a[0], a[1]) if width == 2 else a[0]
    shift = lanes // 2
    while shift:
        v = _x86_max(v, v[:, np.arange(lanes) ^ shift])
        shift //= 2
    return v


def _onednn_shifted(x: jax.Array, lanes: int) -> jax.Array:
    """``x - max`` as oneDNN's kernel subtracts it: its maximum of each lane (NaN's
    order: :func:`_onednn_lane_max`) where the row has a NaN, the maximum otherwise."""
    n = x.shape[1]

    def by_lanes(v: jax.Array) -> jax.Array:
        lane_max = _onednn_lane_max(v, lanes)
        return v - jnp.tile(lane_max, (1, -(-n // lanes)))[:, :n]

    def plain(v: jax.Array) -> jax.Array:
        return v - jnp.max(v, axis=1, keepdims=True)

    return lax.cond(jnp.isnan(x).any(), by_lanes, plain, x)


def _onednn_row_sum(e: jax.Array, lanes: int) -> jax.Array:
    """The sums of the rows of ``e`` (``[rows, n]``) in oneDNN's softmax order: vectors
    of ``lanes`` values into four accumulators in turn (vector ``k`` into ``k % 4``; a
    row of fewer than 4 full vectors has that many), the remaining full vectors into the
    first ones, the last ``n % lanes`` values into the first; then ``(a0 + a1) + (a2 +
    a3)`` and the lanes halved pairwise (lane ``i`` plus lane ``i + lanes / 2``...)."""
    rows, n = e.shape
    full, tail = divmod(n, lanes)
    loops, rest = divmod(full, 4)
    width = 4 if loops else max(rest, 1)
    acc = jnp.zeros((rows, width * lanes), e.dtype)
    if loops:
        body = e[:, : loops * 4 * lanes].reshape(rows, loops, 4 * lanes)
        acc = _sequential_rows(body, 0, loops, acc)
    start = loops * 4 * lanes
    if rest:
        acc = acc.at[:, : rest * lanes].add(e[:, start : start + rest * lanes])
    if tail:
        acc = acc.at[:, :tail].add(e[:, full * lanes :])
    a = [acc[:, i * lanes : (i + 1) * lanes] for i in range(width)]
    if width == 4:
        v = (a[0] + a[1]) + (a[2] + a[3])
    elif width == 3:
        v = (a[0] + a[1]) + a[2]
    else:
        v = a[0] + a[1] if width == 2 else a[0]
    shift = lanes // 2
    while shift:
        v = v + v[:, np.arange(lanes) ^ shift]
        shift //= 2
    return v[:, 0]


def _softmax_onednn(logits: jax.Array, isa: OneDnnIsa) -> jax.Array:
    """oneDNN's softmax of each row of ``logits`` (``[rows, n]``; float16 and bfloat16
    computed in float32 and rounded back): the row maximum, ``exp(x - max)``, its sum,
    ``1 / sum`` (a division) and the products by it; denormal results flushed to 0
    (TF runs its kernels with FTZ), NaN where the kernel gives it (a NaN's ``exp`` and
    a ``+inf`` overflow the sum: ``inf * 0``)."""
    x = logits.astype(jnp.float32)
    e = _onednn_exp(_onednn_shifted(x, isa.lanes), isa.fma)
    total = _onednn_row_sum(e, isa.lanes)
    inverse = kernel_divide(jnp.ones_like(total), total)
    inverse = jnp.where(inverse < _SMALLEST_NORMAL, np.float32(0), inverse)  # FTZ
    out = rounded(e * inverse[:, None])
    return jnp.where(out < _SMALLEST_NORMAL, np.float32(0), out).astype(logits.dtype)


def _onednn_order(logits: jax.Array) -> bool:
    """Whether jtrain computes TF's CPU bits of ``Softmax`` for ``logits`` (float32,
    float16, bfloat16, classes of static size, where TF runs oneDNN's kernel:
    :func:`jtrain._eigen.tf_cpu_kernels`); XLA's function otherwise."""
    dtypes = (jnp.float32, jnp.float16, jnp.bfloat16)
    static = logits.ndim >= 1 and isinstance(logits.shape[-1], int)
    if not (logits.dtype in dtypes and static and logits.size != 0):
        return False
    kernels = tf_cpu_kernels()
    # TF's rewrite takes float16 and bfloat16 to oneDNN on AVX-512 CPUs only (measured:
    # oneDNN forced on on an AVX2 EPYC, float32 is _MklSoftmax, the halves Eigen's Softmax)
    return kernels.onednn and (logits.dtype == jnp.float32 or kernels.isa == "avx512_core")


@jax.custom_vjp
def softmax(logits: Any) -> jax.Array:
    """``exp(logits) / sum(exp(logits))`` over the last axis as TF's CPU ``Softmax``.

    TF 2.21's x86 build runs oneDNN's softmax primitive for float32, float16 and
    bfloat16 (``_MklSoftmax``; the 16-bit floats on AVX-512 CPUs only): its ``exp``
    approximation, its order of the row sums (by the CPU's vector width,
    :func:`onednn_isa`) and a product by the sum's reciprocal, reproduced bit for bit
    (float16 and bfloat16 through float32, as the kernel computes them). float64
    (Eigen's kernel there), classes of symbolic size, machines where TF leaves oneDNN
    off (TF runs Eigen's kernel: not reproduced, :func:`jtrain._eigen.tf_cpu_kernels`)
    and other platforms keep XLA's function.

    Args:
      logits: a float array of rank at least 1.

    Returns:
      The probabilities, ``logits``'s shape and dtype; the gradient is TF's
      ``_SoftmaxGrad``, ``(grad - reduce_sum(grad * softmax, -1, keepdims=True)) *
      softmax`` (its ``Mul``, ``Sum``, ``Sub`` and ``Mul`` kernels).
    """
    logits = jnp.asarray(logits)
    if not _onednn_order(logits):
        return jax.nn.softmax(logits, axis=-1)
    cpu = functools.partial(_softmax_onednn, isa=onednn_isa())
    out = on_cpu(cpu, lambda m: jax.nn.softmax(m, axis=1))(_matrix(logits))
    return out.reshape(logits.shape)


def _softmax_fwd(logits: Any) -> tuple:
    out = softmax(logits)
    return out, out


def _softmax_bwd(out: jax.Array, g: jax.Array) -> tuple:
    product = rounded(g * out)
    if product.dtype == jnp.bfloat16:  # TF's Sum of bfloat16 adds in float32
        total = _sum_last(product.astype(jnp.float32)).astype(jnp.bfloat16)
    else:
        total = _sum_last(product)
    return (rounded((g - total) * out),)


softmax.defvjp(_softmax_fwd, _softmax_bwd)
