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

import functools
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
    SIMD packet) is an approximation whose last bit depends on the CPU; jtrain
    computes the correctly rounded form everywhere.
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


def rounded_product(x: Any, y: Any) -> Any:
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
    """
    product = jnp.multiply(x, y)
    if not _is_float(product):
        return product
    return _product(x is y, jnp.asarray(x), jnp.asarray(y))


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
    """``value`` summed over the axes a broadcast to its shape added or stretched."""
    if value.shape == tuple(shape):
        return value
    lead = value.ndim - len(shape)
    stretched = [lead + i for i, n in enumerate(shape) if n == 1 and value.shape[lead + i] != 1]
    summed = jnp.sum(value, axis=tuple(range(lead)) + tuple(stretched))
    return summed.reshape(shape)


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
