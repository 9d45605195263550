"""The pieces Eigen's packet functions share: the packet width, ``pmadd`` without FMA,
Horner's scheme, and the split between packets and the scalar tail."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jtrain._numerics import rounded

__all__ = ["PACKET", "madd", "packets", "polevl"]

PACKET = 8  # float32 elements in an AVX packet (TF's x86 wheel)


def madd(a: jax.Array, b: jax.Array | np.float32, c: jax.Array | np.float32) -> jax.Array:
    """Eigen's ``pmadd`` without FMA: ``a * b`` rounded, then ``+ c``."""
    return rounded(a * b) + c


def polevl(x: jax.Array, coeffs: tuple[np.float32, ...]) -> jax.Array:
    """Eigen's ``ppolevl``: Horner's scheme, highest coefficient first."""
    p = jnp.full_like(x, coeffs[0])
    for c in coeffs[1:]:
        p = madd(p, x, c)
    return p


def packets(
    packet_fn: Callable[..., jax.Array], scalar_fn: Callable[..., jax.Array]
) -> Callable[..., jax.Array]:
    """``packet_fn`` on the elements that fill packets of 8, ``scalar_fn`` on the last
    ``size % 8`` (TF's executor: the remainder of the flattened tensor goes through the
    functor's scalar path), of arguments of one shape. With symbolic dimensions
    (``jax.export`` of a graph with unknown sizes) both paths run on every element and
    the element's index picks one."""

    def fn(*args: jax.Array) -> jax.Array:
        shape, size = args[0].shape, args[0].size
        if not all(isinstance(d, int) for d in shape):
            flat = [a.reshape(-1) for a in args]
            index = jnp.arange(size, dtype=np.int32)
            out = jnp.where(index < size - size % PACKET, packet_fn(*flat), scalar_fn(*flat))
            return out.reshape(shape)
        tail = size % PACKET
        if tail == 0:
            return packet_fn(*args)
        flat = [a.reshape(-1) for a in args]
        head = size - tail
        parts = [scalar_fn(*(a[head:] for a in flat))]
        if head:
            parts.insert(0, packet_fn(*(a[:head] for a in flat)))
        return jnp.concatenate(parts).reshape(shape)

    return fn
