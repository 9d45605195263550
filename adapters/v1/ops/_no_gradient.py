"""An identity whose gradient raises TF's ``LookupError``, for the inputs of ops TF
registers no gradient for (``tf.gradients`` through them fails in TF; jtrain raises
when it traces the step)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax

__all__ = ["without_gradient"]


@functools.cache
def without_gradient(op_type: str) -> Callable[[jax.Array], jax.Array]:
    """``x -> x`` whose derivative raises TF's ``LookupError`` naming ``op_type``."""

    @jax.custom_vjp
    def same(x: jax.Array) -> jax.Array:
        return x

    def fwd(x: jax.Array) -> tuple[jax.Array, None]:
        return x, None

    def bwd(_: None, g: jax.Array) -> tuple[jax.Array]:
        raise LookupError(
            f"No gradient defined for operation '{op_type}' (op type: {op_type}). In general "
            "every operation must have an associated `@tf.RegisterGradient` for correct "
            "autodiff, which this op is lacking. If you want to pretend this operation is a "
            "constant in your program, you may insert `tf.stop_gradient`."
        )

    same.defvjp(fwd, bwd)
    return same
