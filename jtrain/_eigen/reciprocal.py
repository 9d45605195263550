"""TF's ``Reciprocal`` and ``ReciprocalGrad`` CPU kernels, bit for bit.

On full packets TF's x86 build computes ``1 / x`` with Eigen's ``preciprocal``: the
``rcpps`` estimate and one Newton step without FMA (:mod:`jtrain._eigen.trig`, which
its ``atan`` and the ``log``/``log1p`` gradients share); the elements that do not fill
a packet are divided, ``1 / x``, correctly rounded. ``ReciprocalGrad`` is
``-(y * y) * dy`` (measured against TF 2.21 over 100,003 values: the other orders of
the products differed on 35%).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jtrain._eigen.trig import _reciprocal
from jtrain._numerics import rounded

__all__ = ["reciprocal", "reciprocal_grad"]


@jax.custom_vjp
def reciprocal(x: jax.Array) -> jax.Array:
    """``tf.math.reciprocal`` as TF's CPU kernel computes it (Eigen's ``preciprocal``).

    Args:
      x: a tensor of a floating or complex dtype.

    Returns:
      ``1 / x``, of ``x``'s dtype: float32 on CPUs from the ``rcpps`` estimate and a
      Newton step (the last ``size % 8`` elements divided), float16 and bfloat16 through
      float32; float64, complex values and other platforms the quotient. Its gradient
      is TF's ``ReciprocalGrad``.
    """
    return _reciprocal(jnp.asarray(x))


def _reciprocal_fwd(x: jax.Array) -> tuple:
    y = reciprocal(x)
    return y, y


def _reciprocal_bwd(y: jax.Array, dy: jax.Array) -> tuple:
    return (rounded(reciprocal_grad(y, dy)),)


reciprocal.defvjp(_reciprocal_fwd, _reciprocal_bwd)


def reciprocal_grad(y: jax.Array, dy: jax.Array) -> jax.Array:
    """TF's ``ReciprocalGrad`` kernel: ``-(y * y) * dy`` (``-(y * conj(y)) * dy``), +0
    where ``dy`` is 0.

    Args:
      y: ``reciprocal(x)``.
      dy: the gradient with respect to ``y``.

    Returns:
      The gradient with respect to ``x``, of ``y``'s dtype.
    """
    if jnp.issubdtype(y.dtype, jnp.complexfloating):
        return -(y * jnp.conj(y)) * dy
    return jnp.where(dy == 0, jnp.zeros((), y.dtype), -rounded(y * y) * dy)
