"""TF's numerics where XLA would round differently, shared by every jtrain module.

Hyperparameters as TF sees them: a Python float is a float32 tensor. TF's v1
optimizers call ``ops.convert_to_tensor(hyperparameter)`` and then
``math_ops.cast(tensor, var.dtype)``. A Python ``float`` therefore becomes a
float32 tensor *first*: a float64 variable trained with ``learning_rate=0.1``
sees ``float64(float32(0.1))``, not ``0.1``. For most optimizers that is a
relative difference of ~3e-8; for Adam it is not negligible
(``1 - float32(0.999)`` differs from ``1 - 0.999`` by 1.3e-5 relative, and
``beta1_power``/``beta2_power`` are float32 variables). :func:`tf_constant`
applies TF's conversion, so ``_base.hparam`` then casts exactly as TF does.

Products before sums: TF's Eigen kernels round ``a * b`` before adding ``c``;
under ``jax.jit`` XLA's CPU backend contracts ``a * b + c`` into one FMA (no
intermediate rounding). :func:`rounded` keeps the product rounded.

Square roots in denominators: :func:`div_sqrt` keeps ``a / sqrt(b)`` a correctly
rounded square root and division, as TF's kernels compute it.

Quotients: :func:`kernel_divide` keeps ``x / y`` one correctly rounded division where
XLA would multiply by the reciprocal of a broadcast or constant divisor.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def tf_constant(value: Any) -> Any:
    """What ``ops.convert_to_tensor`` makes of ``value``, before the cast to a variable's dtype.

    A Python ``float`` becomes ``np.float32`` (TF's default float dtype). NumPy
    and JAX scalars and arrays keep their dtype (``np.float64(0.1)`` stays
    float64, as in TF), Python ints stay exact. A schedule ``step -> value`` is
    wrapped so that its Python-float results are converted the same way.
    """
    if callable(value):
        schedule = value
        return lambda count: tf_constant(schedule(count))
    if type(value) is float:
        return np.float32(value)
    return value


def static_value(value: Any) -> float | None:
    """``float(value)`` for a concrete number or array, ``None`` for a schedule or a
    traced value (used to pick TF's kernel branches at trace time)."""
    if callable(value):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):  # a tracer, or an array of more than one element
        return None


def div_sqrt(a: jax.Array | float, b: jax.Array) -> jax.Array:
    """``a / sqrt(b)`` with a correctly rounded square root and division, as TF's
    kernels compute it (and its scalar ``rsqrt``, ``1 / sqrt``).

    XLA's algebraic simplifier rewrites ``a / sqrt(b)`` into ``a * rsqrt(b)``, and
    XLA's ``rsqrt`` is not correctly rounded (on CPU, 1 ulp off for about a third of
    float32 inputs), which a later cancellation (RMSProp's momentum) can amplify
    past 1e-5. ``abs`` of the (non-negative) square root changes no value and keeps
    the pattern from matching.

    TF's own vectorized Eigen ``rsqrt`` (used where a kernel's row holds a full
    SIMD packet: ``tf.math.rsqrt``, Adagrad's kernels) is the CPU's estimate and a
    Newton step: :mod:`jtrain._eigen.rsqrt`, not this.
    """
    return a / jnp.abs(jnp.sqrt(b))


_SIGNED = {2: jnp.int16, 4: jnp.int32, 8: jnp.int64}


def _is_float(x: Any) -> bool:
    return jnp.issubdtype(jnp.result_type(x), jnp.floating)


def _sign_bit_set(x: jax.Array) -> jax.Array:
    return jax.lax.bitcast_convert_type(x, _SIGNED[x.dtype.itemsize]) < 0


def rounded(x: jax.Array) -> jax.Array:
    """``x`` (a product) rounded to its dtype before it meets an addition, as TF rounds it.

    Under ``jax.jit`` XLA's CPU backend lets LLVM contract a multiply into a
    following add (FMA, no intermediate rounding); TF's Eigen kernels round the
    product. The difference is one rounding, but an update that cancels (a slot
    passing near zero, ``1 - p`` with ``p`` near 1) amplifies it past 1e-5.

    ``where(sign bit of x, x, |x|)`` is the identity on every value (NaN and its
    sign, +-0, +-inf included) but stands between the two operations so they are
    not fused: plain selects, bitcasts, a xor with zero and selects on ``x > 0``
    are seen through by XLA or LLVM. It costs no memory traffic and four element
    operations, few enough that XLA's CPU cost model still takes a small update
    for memory-bound and does not split it across threads (``copysign(|x|, x)``,
    six, made a tiny model's Adam step 35-60 us slower in thread hand-offs).

    .. note::
       For a value XLA can tell is not negative (a square, a power of a positive
       constant, an ``abs``) use :func:`rounded_nonnegative`: XLA drops the
       ``|x|`` there, the two branches merge and the barrier is gone.
    """
    if not _is_float(x):
        return x  # integer products are exact: nothing to keep
    x = jnp.asarray(x)
    return jnp.where(_sign_bit_set(x), x, jnp.abs(x))


def rounded_nonnegative(x: jax.Array) -> jax.Array:
    """:func:`rounded` for a value XLA knows is not negative (a square, ``pow`` of a
    positive constant...).

    ``where(sign bit of x, -|x|, x)``: the identity (with the sign bit set
    ``-|x| == x``), which XLA's rewrite of ``|x|`` to ``x`` leaves a select between
    ``-x`` and ``x`` that it cannot merge (that rewrite may flip the sign of a NaN,
    which no comparison sees). Four element operations once XLA has dropped the
    ``|x|``, five otherwise.
    """
    if not _is_float(x):
        return x  # integer products are exact: nothing to keep
    x = jnp.asarray(x)
    return jnp.where(_sign_bit_set(x), -jnp.abs(x), x)


def rounded_product(x: Any, y: Any, square: bool = False) -> Any:
    """``x * y`` rounded to its dtype before it meets an addition: TF's ``Mul``, and its
    gradient's products rounded as TF's ``_MulGrad`` rounds them.

    Without it XLA's CPU backend contracts ``x * y + z`` (two graph ops) into one FMA:
    measured on 4,096 float32 normals, 21-30% of ``x * y + z``, ``z - x * y``,
    ``x * 3.1 + z`` differed from TF 2.21 by 1 ulp. The gradient is TF's:
    ``dx = sum_to_shape(grad * y)``, ``dy = sum_to_shape(x * grad)``, each product
    rounded before the backward pass adds it to another path's gradient (JAX's own
    derivative of a product let XLA contract ``grad * y`` into that sum: the gradient of
    ``x * y * z + x`` was 1 ulp off TF's in 250 of 1,024 elements). ``x * x`` takes
    :func:`rounded_nonnegative` (XLA knows a square is not negative).

    Args:
      x, y: the factors.
      square: ``x`` and ``y`` are one value under two names (copies from
        :func:`fan_out`, which XLA merges back into one): a square, as ``x is y`` is.
    """
    product = jnp.multiply(x, y)
    if not _is_float(product):
        return product
    return _product(square or x is y, jnp.asarray(x), jnp.asarray(y))


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _product(square: bool, x: jax.Array, y: jax.Array) -> jax.Array:
    """``x * y`` behind its barrier (``square``: ``x`` is ``y``), TF's gradient."""
    product = jnp.multiply(x, y)
    return rounded_nonnegative(product) if square else rounded(product)


def _product_fwd(square: bool, x: jax.Array, y: jax.Array) -> tuple:
    return _product(square, x, y), (x, y)


def _product_bwd(square: bool, residuals: tuple, grad: jax.Array) -> tuple:
    x, y = residuals
    # Differentiable again (rounded_product), for gradients of gradients.
    dx = _sum_to_shape(rounded_product(grad, y), jnp.shape(x))
    dy = _sum_to_shape(rounded_product(x, grad), jnp.shape(y))
    return dx.astype(x.dtype), dy.astype(y.dtype)


_product.defvjp(_product_fwd, _product_bwd)


def _sum_to_shape(value: jax.Array, shape: tuple) -> jax.Array:
    """``value`` summed over the axes a broadcast to its shape added or stretched, in TF's
    order (``Sum`` over ``BroadcastGradientArgs``' axes: :func:`eigen_sum`)."""
    if value.shape == tuple(shape):
        return value
    lead = value.ndim - len(shape)
    stretched = [lead + i for i, n in enumerate(shape) if n == 1 and value.shape[lead + i] != 1]
    summed = eigen_sum(value, axis=tuple(range(lead)) + tuple(stretched))
    return summed.reshape(shape)


def broadcast_add(x: Any, y: Any) -> Any:
    """``x + y`` whose gradient is TF's ``_AddGrad``: the incoming gradient summed over
    each side's broadcast axes in TF's order (JAX's transpose of a broadcast sums with
    XLA's order: a bias's gradient differed from TF's on 70% of its values)."""
    return _ADD(x, y)


def broadcast_subtract(x: Any, y: Any) -> Any:
    """``x - y`` whose gradient is TF's ``_SubGrad`` (see :func:`broadcast_add`)."""
    return _SUBTRACT(x, y)


def tf_binary(
    forward: Callable[[Any, Any], Any],
    gradient: Callable[[jax.Array, jax.Array, jax.Array, jax.Array], tuple[Any, Any]],
) -> Callable[[Any, Any], Any]:
    """An elementwise op of two broadcasting operands whose gradient is TF's.

    TF's gradient functions of binary ops (``math_grad.py``) compute each operand's
    gradient at the broadcast shape, then ``_ReduceGradientArgs`` sums it over the axes
    the operand was broadcast along (``Sum`` in Eigen's order: :func:`eigen_sum`) and
    reshapes it. JAX's derivative of the same op rounds in other places (a quotient's
    ``-g * x / y**2`` against TF's ``g * ((-x / y) / y)``) and transposes the broadcast
    with XLA's sum.

    Args:
      forward: the op, ``forward(x, y)``, broadcasting.
      gradient: ``gradient(x, y, z, g)`` with ``z = forward(x, y)`` and ``g`` the incoming
        gradient (``z``'s shape): the gradients of ``x`` and ``y`` at the broadcast shape,
        as TF's gradient function computes them from its kernels.

    Returns:
      ``forward`` whose gradient is TF's for real floating results (others: ``forward``
      and JAX's derivative, if any).
    """

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def op(shapes: tuple, x: jax.Array, y: jax.Array) -> jax.Array:
        return forward(x, y)

    def op_fwd(shapes: tuple, x: jax.Array, y: jax.Array) -> tuple:
        z = forward(x, y)
        return z, (x, y, z)

    def op_bwd(shapes: tuple, residuals: tuple, g: jax.Array) -> tuple:
        (x_shape, x_dtype), (y_shape, y_dtype) = shapes
        x, y, z = residuals
        gx, gy = gradient(x, y, z, g)
        dx = _sum_to_shape(gx, x_shape).astype(x_dtype)
        return dx, _sum_to_shape(gy, y_shape).astype(y_dtype)

    op.defvjp(op_fwd, op_bwd)

    @functools.wraps(forward)
    def apply(x: Any, y: Any) -> Any:
        x, y = jnp.asarray(x), jnp.asarray(y)
        if not _is_float(jnp.result_type(x, y)):
            return forward(x, y)
        return op(((x.shape, x.dtype), (y.shape, y.dtype)), x, y)

    return apply


def fan_out(value: jax.Array, order: tuple[int, ...]) -> tuple[jax.Array, ...]:
    """``len(order)`` copies of ``value``, one per use, whose gradients are added as TF's
    ``AddN`` adds a tensor's gradients: one after another in TF's order.

    TF's ``tf.gradients`` collects the gradients a tensor receives from its consumers in
    the order its backward pass reaches them and adds them with ``AddN`` (left to right,
    each a materialized tensor); JAX accumulates a value's cotangents in its own order
    (from its last use back). With three uses or more the sums differ in the last bits.

    Args:
      value: the tensor.
      order: a permutation of ``range(n)``, ``n`` the number of copies: copy
        ``order[0]``'s gradient first, then ``order[1]``'s...

    Returns:
      ``n`` copies of ``value``.
    """
    return _fan_out(order, value)


# Copies of an op's input for its uses inside the op, given by the caller (see ``uses``):
# by the id of the value the op receives, (that value, its copies).
_GIVEN_USES: contextvars.ContextVar[dict[int, tuple[Any, tuple[Any, ...]]] | None] = (
    contextvars.ContextVar("given_uses", default=None)
)


def uses(value: jax.Array, order: tuple[int, ...]) -> tuple[jax.Array, ...]:
    """Copies of ``value``, one per use inside one op that TF builds of several ops:
    :func:`fan_out`'s, unless the caller gave the copies (:func:`given_uses`).

    An op computing what TF computes with several ops reads an input once where TF's
    graph reads it once per op; TF adds the gradients of all the tensor's uses, these and
    those outside the op, in one ``AddN`` in the order of their names. A caller that
    knows the other uses (the graph's gradient walk) gives one copy per inner use, made
    by one ``fan_out`` together with the outer uses' copies, so that the inner uses'
    gradients take their places among the others.

    Args:
      value: the op's input, as the op received it.
      order: as :func:`fan_out`'s, of the inner uses alone (used when none were given).

    Returns:
      ``len(order)`` copies of ``value``, in the op's order of its uses.
    """
    given = (_GIVEN_USES.get() or {}).get(id(value))
    if given is not None and given[0] is value and len(given[1]) == len(order):
        return given[1]
    return fan_out(value, order)


@contextlib.contextmanager
def given_uses(copies: dict[int, tuple[Any, tuple[Any, ...]]]) -> Iterator[None]:
    """Within the block, :func:`uses` of a value ``v`` with ``copies[id(v)] == (v, c)``
    returns ``c``."""
    token = _GIVEN_USES.set(copies)
    try:
        yield
    finally:
        _GIVEN_USES.reset(token)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _fan_out(order: tuple[int, ...], value: jax.Array) -> tuple[jax.Array, ...]:
    return tuple(value for _ in order)


def _fan_out_fwd(order: tuple[int, ...], value: jax.Array) -> tuple:
    return _fan_out(order, value), None


def _fan_out_bwd(order: tuple[int, ...], _: None, cotangents: tuple) -> tuple:
    return (add_n([cotangents[j] for j in order]),)


def add_n(values: list[jax.Array]) -> jax.Array:
    """``values`` added as TF's CPU ``AddN`` kernel adds them: the first ``n % 8`` (8 if
    that is 0, 9 if it is 1) left to right, then each next 8 added left to right and
    their sum added to the total (``out += in1 + ... + in8``). Measured against TF 2.21
    for 3 to 13 inputs."""
    if len(values) == 1:
        return values[0]
    head = len(values) % 8
    head = {0: 8, 1: 9}.get(head, head)

    def left_to_right(chunk: list[jax.Array]) -> jax.Array:
        total = chunk[0]
        for v in chunk[1:]:
            total = total + v
        return total

    total = left_to_right(values[:head])
    for start in range(head, len(values), 8):
        total = total + left_to_right(values[start : start + 8])
    return total


_fan_out.defvjp(_fan_out_fwd, _fan_out_bwd)


def row_sum_in_order(x: jax.Array) -> jax.Array:
    """The rows of ``x`` (``[rows, n]``) added one after another, from zero: TF's
    ``BiasAddGrad`` CPU kernel (``ReduceOuterDimensions``; half types summed in float32,
    as its accumulator type), measured bit for bit against TF 2.21 (its blocks of rows
    for a few columns per thread did not show: TF's Eigen device ran one block). Beyond
    1,048,576 values, XLA's sum (a conv layer's bias over a large batch of images).

    .. note::
       On CPUs only: elsewhere XLA's sum (on a GPU the loop over rows was a kernel
       launch and a predicate copied to the host per 8 rows: 9,216 rows of a conv
       layer's bias took the step to 14 ms on an H200).
    """
    wide = x.astype(jnp.float32) if x.dtype in (jnp.float16, jnp.bfloat16) else x
    rows, n = wide.shape
    zeros = jnp.zeros((1, n), wide.dtype)
    xla_sum = lambda w: jnp.sum(w, axis=0)
    if not isinstance(rows, int):  # ``jax.export`` with an unknown batch: chosen at run time
        add = lambda j, a: a + jax.lax.dynamic_index_in_dim(wide[None], j, 1, keepdims=False)
        in_order = lambda w: jax.lax.fori_loop(0, jnp.asarray(rows), add, zeros)[0]
        few = jnp.asarray(rows) <= _ROW_SUM_LIMIT // max(n, 1)
        on_cpu = lambda w: jax.lax.cond(few, in_order, xla_sum, w)
    elif rows * n > _ROW_SUM_LIMIT:  # the loop over rows: 4 times XLA's time at 4M values
        return xla_sum(wide).astype(x.dtype)
    else:
        on_cpu = lambda w: _sequential_rows(w[None], 0, rows, zeros)[0]
    return jax.lax.platform_dependent(wide, cpu=on_cpu, default=xla_sum).astype(x.dtype)


def rounded_square(x: jax.Array) -> jax.Array:
    """``x * x`` rounded to its dtype before it meets an addition: TF's ``Square``
    (see :func:`rounded_nonnegative`)."""
    return rounded_nonnegative(x * x)


def kernel_divide(x: Any, y: Any) -> Any:
    """``x / y`` rounded once, as TF's CPU kernels divide (Eigen's quotient).

    XLA rewrites a division by a broadcast value (a scalar, a column) or by a constant
    as a multiplication by the divisor's reciprocal: a second rounding, up to 1 ulp
    off TF's quotient (``tf.reduce_mean`` of 7 values, ``x / v`` of a scalar variable,
    measured against TF 2.21). float16, bfloat16 and float32 are divided in float64
    and rounded back, which gives the correctly rounded quotient whatever XLA does with
    the float64 division: its reciprocal's error (2**-52 relative) stays below the
    distance from a quotient of two float32 values to a float32 rounding boundary (at
    least 2**-49 relative), and no such quotient lies on a boundary. float64 divisors
    of another shape are broadcast behind an optimization barrier, where XLA cannot see
    the broadcast (a constant one keeps XLA's rewrite); complex values divide as JAX's.

    .. note::
       On TPUs, which have no float64, the quotient is JAX's (XLA's rewrite included).
       A float64 division by a constant of the full shape (``avg_pool``'s counts) keeps
       XLA's product too: up to 1 ulp off TF's.

    Args:
      x: the dividend, of a floating dtype.
      y: the divisor, broadcastable with ``x``, of its dtype.

    Returns:
      The quotient, of ``x``'s dtype.
    """
    dtype = np.dtype(x.dtype)
    shape = jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))
    wide_ok = jax.default_backend() in ("cpu", "gpu")  # TPUs have no float64
    if jnp.issubdtype(dtype, jnp.floating) and dtype.itemsize <= 4 and wide_ok:
        with jax.enable_x64(True):  # float64 whatever jax_enable_x64 says (scoped)
            wide = jnp.true_divide(
                jnp.asarray(x).astype(jnp.float64), jnp.asarray(y).astype(jnp.float64)
            )
            return wide.astype(dtype)
    if dtype == np.float64 and jnp.shape(y) != shape:
        y = jax.lax.optimization_barrier(jnp.broadcast_to(y, shape))
    return jnp.true_divide(x, y)


_ADD = tf_binary(jnp.add, lambda x, y, z, g: (g, g))
_SUBTRACT = tf_binary(jnp.subtract, lambda x, y, z, g: (g, -g))


def _realdiv_gradient(x: jax.Array, y: jax.Array, z: jax.Array, g: jax.Array) -> tuple:
    """TF's ``_RealDivGrad`` (and ``_DivGrad``): ``g / y`` and ``g * ((-x / y) / y)``."""
    return kernel_divide(g, y), rounded_product(g, kernel_divide(kernel_divide(-x, y), y))


def realdiv(x: Any, y: Any) -> Any:
    """``x / y`` as TF's ``RealDiv`` (``Div``) computes it, value and gradient: the
    quotient rounded once (:func:`kernel_divide`), the gradient TF's ``_RealDivGrad``
    with the broadcast operands' sums in TF's order (:func:`tf_binary`)."""
    return _REALDIV(x, y)


_REALDIV = tf_binary(kernel_divide, _realdiv_gradient)


# -- Eigen's summation order ---------------------------------------------------------
# TF's CPU ``Sum``, ``Mean`` and ``L2Loss`` kernels reduce with Eigen's tensor reductions
# (x86 builds: AVX packets of 32 bytes, 8 float32 or 4 float64).
_EIGEN_PACKET_BYTES = 32
_EIGEN_LEAF = 1024  # InnerMostDimReducer's kLeafSize, in packets
# Eigen's TensorCostModel: a full reduction runs on one thread while
# ``(n * cost - startup) / per_thread + 0.9 < 2`` (cycles per coefficient measured
# against TF 2.21: 1.9375 for a float32 Sum, 2.1875 for L2Loss's ``x * x * 0.5``).
_EIGEN_STARTUP_CYCLES = 100_000.0
_EIGEN_PER_THREAD_CYCLES = 100_000.0
_EIGEN_LOAD_CYCLES = 11.0 / 64  # per byte
_EIGEN_REDUCER_CYCLES = 10.0  # per packet
# Reductions over leading or middle axes follow Eigen's order up to this many values (the
# rows are added in a loop, one after another: slower than XLA's sum beyond).
_PRESERVING_LIMIT = 1 << 22
_ROW_SUM_LIMIT = 1 << 20


def _eigen_predux(p: jax.Array) -> jax.Array:
    """Eigen's horizontal sum of packets (last axis): halves added until one value is left."""
    while p.shape[-1] > 1:
        half = p.shape[-1] // 2
        p = p[..., :half] + p[..., half:]
    return p[..., 0]


def _eigen_leaf(x: jax.Array, packet: int) -> jax.Array:
    """Eigen's sum of each row (last axis) of ``x`` short enough for one leaf: four packet
    accumulators over blocks of four packets, then single packets, then the scalar tail
    added to a scalar accumulator, which finally meets the packets' horizontal sum."""
    n = x.shape[-1]
    lead = x.shape[:-1]
    full = n // packet
    # The row's packets in place (a bitcast where n is a multiple of the packet): the
    # loop reads each block where it lies. Slicing the blocks out first copied the
    # rows and made XLA store its producer again for the packets after them (a sparse
    # cross entropy's step over [400, 2000]: 2.9 -> 2.0 ms of CPU for exp and row sums).
    packets = x[..., : full * packet].reshape(lead + (full, packet))
    paccum = jnp.zeros(lead + (packet,), x.dtype)
    blocks = full // 4
    if blocks:
        add = lambda i, acc: acc + jax.lax.dynamic_slice_in_dim(packets, 4 * i, 4, axis=-2)
        zeros = jnp.zeros(lead + (4, packet), x.dtype)
        accs = jax.lax.fori_loop(0, blocks, add, zeros, unroll=8)
        paccum = ((accs[..., 0, :] + accs[..., 1, :]) + accs[..., 2, :]) + accs[..., 3, :]
    for k in range(4 * blocks, full):
        paccum = paccum + packets[..., k, :]
    accum = jnp.zeros(lead, x.dtype)
    for j in range(full * packet, n):
        accum = accum + x[..., j]
    return accum + _eigen_predux(paccum)


def _eigen_tree(first: int, n: int, packet: int) -> Any:
    """Eigen's split of ``n`` values from index ``first``: ``(start, length)`` for a
    leaf, ``[left, right]`` for a split (halves rounded to absolute packet boundaries)."""
    if n <= packet * _EIGEN_LEAF:
        return (first, n)
    split = packet * -(-(first + -(-n // 2)) // packet)
    left = min(split - first, n)
    if left >= n:
        return _eigen_tree(first, left, packet)
    return [_eigen_tree(first, left, packet), _eigen_tree(split, n - left, packet)]


def _eigen_leaves(tree: Any) -> list[tuple[int, int]]:
    """The ``(start, length)`` leaves of an ``_eigen_tree``, in order."""
    if isinstance(tree, tuple):
        return [tree]
    return _eigen_leaves(tree[0]) + _eigen_leaves(tree[1])


def _eigen_rows(x: jax.Array, first: int) -> jax.Array:
    """Eigen's InnerMostDimReducer over the last axis of ``x``, each row starting at an
    index ``first`` modulo the packet size. Leaves of the same length are reduced together
    (one batched loop), then added as Eigen's tree adds them."""
    packet = _EIGEN_PACKET_BYTES // x.dtype.itemsize
    tree = _eigen_tree(first, x.shape[-1], packet)
    leaves = _eigen_leaves(tree)
    sums: dict[tuple[int, int], jax.Array] = {}
    for length in sorted({n for _, n in leaves}):
        same = [leaf for leaf in leaves if leaf[1] == length]
        begin = same[0][0]
        if all(start == begin + i * length for i, (start, _) in enumerate(same)):
            lo = begin - first
            rows = x[..., lo : lo + len(same) * length].reshape(x.shape[:-1] + (len(same), length))
        else:
            rows = jnp.stack([x[..., s - first : s - first + length] for s, _ in same], axis=-2)
        totals = _eigen_leaf(rows, packet)
        sums.update({leaf: totals[..., i] for i, leaf in enumerate(same)})

    def add(node: Any) -> jax.Array:
        if isinstance(node, tuple):
            return sums[node]
        return add(node[0]) + add(node[1])

    return add(tree)


def _merged_axes(shape: tuple[Any, ...], axes: tuple[int, ...]) -> list[list[Any]]:
    """``[size, reduced]`` runs of ``shape``, as TF's ``ReductionHelper`` sees it: axes of
    (static) size 1 dropped, neighbours of the same kind merged."""
    merged: list[list[Any]] = []
    for i, d in enumerate(shape):
        if isinstance(d, int) and d == 1:
            continue
        reduced = i in axes
        if merged and merged[-1][1] == reduced:
            merged[-1][0] *= d
        else:
            merged.append([d, reduced])
    return merged


def _eigen_layout(shape: tuple[Any, ...], axes: tuple[int, ...]) -> tuple[Any, int] | None:
    """``(rows, n)`` where TF reduces ``shape`` over ``axes`` as Eigen's full (``rows`` 1)
    or innermost-dimension reduction of ``rows`` rows of ``n`` values; ``None`` for
    another reduction (outer or middle axes), none, or a symbolic size among the reduced
    axes (``rows`` may be symbolic). Like TF's ``ReductionHelper``: axes of size 1
    dropped, neighbours of the same kind merged."""
    merged = _merged_axes(shape, axes)
    kinds = [reduced for _, reduced in merged]
    if kinds not in ([True], [False, True]) or not isinstance(merged[-1][0], int):
        return None
    return (1 if kinds == [True] else merged[0][0]), merged[-1][0]


def _preserving_layout(
    shape: tuple[Any, ...], axes: tuple[int, ...]
) -> tuple[int, int, int] | None:
    """``(outer, reduced, inner)`` where TF reduces ``shape`` over ``axes`` as Eigen's
    reduction preserving the innermost dimension, of ``[outer, reduced, inner]`` (``outer``
    1 for leading reduced axes: ``axis=0`` of a matrix); ``None`` otherwise or for
    symbolic sizes. Axes of size 1 dropped, neighbours of the same kind merged."""
    if not all(isinstance(d, int) for d in shape):
        return None
    merged = _merged_axes(shape, axes)
    kinds = [reduced for _, reduced in merged]
    if kinds == [True, False]:
        return 1, merged[0][0], merged[1][0]
    if kinds == [False, True, False]:
        return merged[0][0], merged[1][0], merged[2][0]
    return None


def _sequential_rows(x: jax.Array, start: int, stop: int, acc: jax.Array) -> jax.Array:
    """``acc + x[:, start] + ... + x[:, stop - 1]`` (axis 1 of ``[outer, reduced, inner]``),
    one row after another."""
    if isinstance(start, int) and isinstance(stop, int) and stop <= start:
        return acc  # no rows to add
    add = lambda j, a: a + jax.lax.dynamic_index_in_dim(x, j, 1, keepdims=False)
    return jax.lax.fori_loop(start, stop, add, acc, unroll=8)


def _preserving_sum(x: jax.Array) -> jax.Array:
    """Eigen's sum over axis 1 of ``x`` (``[outer, reduced, inner]``) on the CPU, as TF's
    ``Sum`` over leading or middle axes: each output packet of 8 float32 (4 float64)
    inside one row of ``inner`` values reduces the rows with four packet accumulators
    (rows ``j % 4``, from 16 rows on: ``InnerMostDimPreserver``), added in order, then the
    remaining rows; the other outputs (the rest of each row of ``inner``) add the rows
    in order. Measured bit for bit against TF 2.21."""
    outer, reduced, inner = x.shape
    packet = _EIGEN_PACKET_BYTES // x.dtype.itemsize
    zeros = jnp.zeros((outer, inner), x.dtype)
    scalar = _sequential_rows(x, 0, reduced, zeros)
    if reduced >= 16:
        u4 = reduced // 4 * 4
        fours = x[:, :u4].reshape(outer, u4 // 4, 4, inner)
        add4 = lambda j, a: a + jax.lax.dynamic_index_in_dim(fours, j, 1, keepdims=False)
        # A loop, not unrolled: XLA:CPU (jaxlib 0.10.2: its algebraic simplifier and
        # fusion together) miscompiled the unrolled form's gradient behind a relu's
        # mask (tf.nn.moments over 16 rows of 12 after a dense layer: 0.25 off, right
        # op by op; test_moments_gradient_after_relu).
        zeros4 = jnp.zeros((outer, 4, inner), x.dtype)
        accs = jax.lax.fori_loop(0, u4 // 4, add4, zeros4)
        vector = ((accs[:, 0] + accs[:, 1]) + accs[:, 2]) + accs[:, 3]
        vector = _sequential_rows(x, u4, reduced, vector)
    else:
        vector = scalar
    # Which outputs Eigen computes as packets: groups of 8 of the flattened output that
    # start a packet and stay inside one row of ``inner``.
    index = np.arange(outer * inner)
    start = index - index % packet
    packed = ((start % inner) + packet - 1 < inner) & (start + packet <= outer * inner)
    if packed.all():
        return vector
    if not packed.any():
        return scalar
    return jnp.where(jnp.asarray(packed.reshape(outer, inner)), vector, scalar)


def _eigen_single_thread(n: int, itemsize: int, elementwise_ops: int) -> bool:
    """Whether Eigen's cost model runs a full reduction of ``n`` values on one thread."""
    packet = _EIGEN_PACKET_BYTES // itemsize
    cost = itemsize * _EIGEN_LOAD_CYCLES + (_EIGEN_REDUCER_CYCLES + elementwise_ops) / packet
    threads = (n * cost - _EIGEN_STARTUP_CYCLES) / _EIGEN_PER_THREAD_CYCLES + 0.9
    return threads < 2


@functools.cache
def _eigen_thread_limit(itemsize: int, elementwise_ops: int) -> int:
    """The fewest values ``_eigen_single_thread`` puts on more than one thread."""
    lo, hi = 1, 1 << 40  # single thread at lo, not at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _eigen_single_thread(mid, itemsize, elementwise_ops) else (lo, mid)
    return hi


def _normalize_axes(ndim: int, axis: Any) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(int(a) for a in np.ravel(axis))
    return tuple(sorted({a % ndim for a in axes})) if ndim else ()


def eigen_sum(x: Any, axis: Any = None, keepdims: bool = False, *, elementwise_ops: int = 0) -> Any:
    """``jnp.sum(x, axis, keepdims)`` added in the order of TF's CPU kernels (``Sum``,
    ``Mean``, ``L2Loss``: Eigen's tensor reductions), which XLA's ``reduce`` does not
    follow (up to a few ulps apart).

    Eigen's order, for float32 and float64 on x86 builds (packets of 32 bytes): per
    leaf of up to 1024 packets, four packet accumulators over blocks of four packets,
    then single packets, the remaining values added to a scalar accumulator, which
    finally meets the packets' horizontal sum; longer runs are split in halves at
    packet boundaries and the halves' sums added (a tree). It applies where TF reduces
    all values (``axis=None`` or every axis) or the innermost values of each row (the
    reduced axes trailing, after axes of size 1 are dropped: ``axis=-1`` of a
    ``[batch, n]`` array). Over leading or middle axes (``axis=0`` of a ``[batch, n]``
    array: a bias's gradient, ``tf.nn.moments``) Eigen keeps packets of the innermost
    values and adds the reduced rows into them (``_preserving_sum``). All measured bit
    for bit against TF 2.21.

    .. note::
       XLA's sum is kept (a few ulps from TF's where they differ) for:

       * a full reduction large enough for Eigen's cost model to split it across
         intra-op threads, whose blocks depend on the number of cores: from 108,388
         float32 values (96,000 for ``L2Loss``'s expression with
         ``elementwise_ops=2``; measured against TF 2.21);
       * per-row sums of as many values in all (TF's order there does not depend on
         threads, but jtrain's loop over blocks of 32 values is slow: rows of 1,024
         values took 7 times XLA's time);
       * leading and middle axes (``axis=0`` of a matrix: ``_preserving_sum``, Eigen's
         reduction that keeps the innermost dimension, whose order does not depend on
         threads) of more than 4,194,304 values (its rows are added in a loop);
       * float16, bfloat16, integer and complex values, and platforms other than the
         CPU (TF's GPU kernels have their own order);
       * reduced axes of symbolic size (``jax.export``; an imported meta graph's sum over
         an unknown batch), Eigen's order being a static program of the size, but for a
         full reduction of up to one leaf (8,192 float32 values, 4,096 float64), whose
         order is chosen at run time (a jtrain-written graph's loss over its batch sums
         as the live graph did). Rows of symbolic count keep TF's order, chosen at run
         time.

    The derivative is the plain one (the tangents summed by XLA; reverse mode
    broadcasts the cotangent), as TF's ``Sum`` gradient.

    Args:
      x: the array to sum.
      axis: an int, a sequence of ints or ``None`` (all axes, the default).
      keepdims: keep the reduced axes with size 1 (default ``False``).
      elementwise_ops: how many element-wise operations TF's kernel applies to ``x``'s
        values before summing them (``L2Loss``: 2, ``x * x * 0.5``); it enters Eigen's
        cost model only (the threshold for threads), default 0.

    Returns:
      The sums, of ``x``'s dtype.
    """
    x = jnp.asarray(x)
    axes = _normalize_axes(x.ndim, axis)
    xla_sum = lambda x: jnp.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
    if x.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        return xla_sum(x)
    if len(axes) == x.ndim and not all(isinstance(d, int) for d in x.shape):
        # A full reduction of symbolic size (an imported graph's mean over an unknown
        # batch): Eigen's order for one leaf, chosen at run time.
        shape = jnp.sum(x, axis=axes, keepdims=keepdims).shape
        return _symbolic_full_sum(x.reshape(-1)).reshape(shape)
    layout = _eigen_layout(x.shape, axes)
    if layout is None:
        preserving = _preserving_layout(x.shape, axes)
        if preserving is not None and 0 < math.prod(preserving) < _PRESERVING_LIMIT:
            return _ordered_preserving_sum(x, axes, keepdims, preserving)
        return xla_sum(x)
    if layout[1] == 0:
        return xla_sum(x)
    rows, n = layout
    limit = _eigen_thread_limit(x.dtype.itemsize, elementwise_ops)
    if isinstance(rows, int):
        # TF's threads (full reductions), or too slow (rows): XLA's sum
        return _ordered_sum(x, axes, keepdims, layout) if 0 < rows * n < limit else xla_sum(x)
    # Rows of symbolic count (``jax.export`` of a graph with an unknown batch): the
    # choice is made at run time, as the concrete size makes it.
    few = jnp.asarray(rows) < -(-limit // n)
    ordered = lambda x: _ordered_sum(x, axes, keepdims, layout)
    return jax.lax.cond(few, ordered, xla_sum, x)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _ordered_sum(x: jax.Array, axes: tuple, keepdims: bool, layout: tuple[int, int]) -> jax.Array:
    """Eigen's sum of ``x`` over ``axes`` on the CPU (``layout``: see ``_eigen_layout``),
    XLA's elsewhere."""
    shape = jnp.sum(x, axis=axes, keepdims=keepdims).shape

    def on_cpu(x: jax.Array) -> jax.Array:
        rows, n = layout
        packet = _EIGEN_PACKET_BYTES // x.dtype.itemsize
        flat = x.reshape(rows, n)
        if n <= packet * _EIGEN_LEAF or n % packet == 0:
            return _eigen_rows(flat, 0).reshape(shape)
        # Eigen's tree splits at absolute packet boundaries: rows whose first index
        # lies at another offset within a packet split elsewhere.
        if not isinstance(rows, int):  # symbolic: every offset, each row picks its own
            offsets = (jnp.arange(rows) * n) % packet
            total = jnp.zeros([rows], x.dtype)
            for offset in sorted({(r * n) % packet for r in range(packet)}):
                total = jnp.where(offsets == offset, _eigen_rows(flat, offset), total)
            return total.reshape(shape)
        offsets = (np.arange(rows) * n) % packet
        total = jnp.zeros([rows], x.dtype)
        for offset in np.unique(offsets):
            (index,) = np.nonzero(offsets == offset)
            total = total.at[index].set(_eigen_rows(flat[index], int(offset)))
        return total.reshape(shape)

    default = lambda x: jnp.sum(x, axis=axes, keepdims=keepdims)
    return jax.lax.platform_dependent(x, cpu=on_cpu, default=default)


@jax.custom_jvp
def _symbolic_full_sum(x: jax.Array) -> jax.Array:
    """Eigen's sum of a vector of symbolic length (``_eigen_leaf``'s order, the loops'
    counts taken from the length at run time) on the CPU, where it fits one leaf (up to
    8,192 float32 values); XLA's sum beyond and on other platforms."""
    packet = _EIGEN_PACKET_BYTES // x.dtype.itemsize
    block = 4 * packet

    def on_cpu(x: jax.Array) -> jax.Array:
        n = jnp.asarray(x.shape[0], jnp.int32)
        padded = jnp.concatenate([x, jnp.zeros((block,), x.dtype)])  # slices stay inside
        blocks = n // block
        add = lambda i, acc: acc + jax.lax.dynamic_slice_in_dim(padded, i * block, block)
        accs = jax.lax.fori_loop(0, blocks, add, jnp.zeros((block,), x.dtype))
        accs = accs.reshape(4, packet)
        zeros = jnp.zeros((packet,), x.dtype)
        # Eigen adds the four accumulators only where a block was summed.
        paccum = jnp.where(blocks > 0, ((accs[0] + accs[1]) + accs[2]) + accs[3], zeros)
        start = blocks * block
        for j in range(3):  # the remaining whole packets, at most three
            here = jax.lax.dynamic_slice_in_dim(padded, start + j * packet, packet)
            paccum = jnp.where(j < (n - start) // packet, paccum + here, paccum)
        start = n - n % packet
        accum = jnp.zeros((), x.dtype)
        for j in range(packet - 1):  # the scalar tail, at most packet - 1 values
            here = jax.lax.dynamic_index_in_dim(padded, start + j, keepdims=False)
            accum = jnp.where(j < n % packet, accum + here, accum)
        ordered = accum + _eigen_predux(paccum)
        return jnp.where(n <= packet * _EIGEN_LEAF, ordered, jnp.sum(x))

    return jax.lax.platform_dependent(x, cpu=on_cpu, default=jnp.sum)


@_symbolic_full_sum.defjvp
def _symbolic_full_sum_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _symbolic_full_sum(x), jnp.sum(dx)


@_ordered_sum.defjvp
def _ordered_sum_jvp(axes, keepdims, layout, primals, tangents):
    (x,), (dx,) = primals, tangents
    return _ordered_sum(x, axes, keepdims, layout), jnp.sum(dx, axis=axes, keepdims=keepdims)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _ordered_preserving_sum(x: jax.Array, axes: tuple, keepdims: bool, layout: tuple) -> jax.Array:
    """Eigen's sum of ``x`` over leading or middle ``axes`` on the CPU (``layout``: see
    ``_preserving_layout``), XLA's elsewhere."""
    shape = jnp.sum(x, axis=axes, keepdims=keepdims).shape
    on_cpu = lambda x: _preserving_sum(x.reshape(layout)).reshape(shape)
    default = lambda x: jnp.sum(x, axis=axes, keepdims=keepdims)
    return jax.lax.platform_dependent(x, cpu=on_cpu, default=default)


@_ordered_preserving_sum.defjvp
def _ordered_preserving_sum_jvp(axes, keepdims, layout, primals, tangents):
    (x,), (dx,) = primals, tangents
    value = _ordered_preserving_sum(x, axes, keepdims, layout)
    return value, jnp.sum(dx, axis=axes, keepdims=keepdims)
