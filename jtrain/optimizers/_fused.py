"""Slot updates in one pass over memory on XLA:CPU (opt-in helper for multi-slot rules).

By default XLA:CPU emits one loop fusion per output array: Adam's ``m`` and ``v``
are two passes over the gradient, then the parameter update a third
(40 bytes per float32 parameter instead of 28; see BENCHMARKS.md, issue 2).
:func:`slots_in_one_pass` computes a leaf's new slots chunk by chunk inside one
``lax.fori_loop``: each chunk of every slot is read, updated and written back in
place (``dynamic_update_slice``) while the chunk is in cache, so the slots cost
one pass; the rule then computes ``delta`` from the new slots as plain
``jax.numpy``, which XLA fuses with the user's ``optax.apply_updates``.

The results are bit-identical to applying the same functions to whole arrays
(same elementwise expressions, same order); the loop is only a schedule.

The loop body runs on one thread (XLA:CPU never splits an in-place
dynamic-update-slice across threads), while XLA splits a plain bandwidth-bound
pass over ``ceil(sqrt(cores))`` threads. So the loop is used only on CPU (never on
GPU/TPU, where a chunked loop would be a chain of tiny kernels and XLA fuses the
slots anyway), only where XLA would use at most two threads for the plain passes
(at most 4 cores), and only for leaves of at least four chunks; elsewhere the
plain whole-array path runs. On a shared 2-core host it saved ~10% CPU time per
Adam step; its wall-time gain there was within noise (BENCHMARKS.md, issue 2),
so no optimizer uses it yet.

Usage inside a rule (dense branch), e.g. TF's Adam::

    m_t, v_t = _fused.slots_in_one_pass(
        g, p, (m, v),
        (lambda g, p, m: m + r((g - m) * (1 - b1)),
         lambda g, p, v, m_t: v + r((r2(g) - v) * (1 - b2))),
    )
    delta = -((m_t * alpha) / (jnp.sqrt(v_t) + eps))
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence

import jax
from jax import lax

SlotFn = Callable[..., jax.Array]

# Elements per chunk: 1 MiB of float32 per array; the 3-5 arrays a chunk touches
# stay in this machine's L2/L3 between the slot updates. 256 Ki-element chunks
# measured best on the issue-2 benchmark (64 Ki: per-iteration overhead shows).
CHUNK = 262144


def loop_is_worth_it(size: int, chunk: int = CHUNK, cores: int | None = None) -> bool:
    """Whether :func:`slots_in_one_pass` takes the chunked loop for a leaf of ``size``
    elements on CPU: at least four chunks, and XLA would run the plain passes on at
    most two threads (``ceil(sqrt(cores)) <= 2``)."""
    if cores is None:
        cores = os.cpu_count() or 1
    return size >= 4 * chunk and math.ceil(math.sqrt(cores)) <= 2


def plain_slots(
    g: jax.Array, p: jax.Array | None, slots: Sequence[jax.Array], fns: Sequence[SlotFn]
):
    """The reference path: ``new[i] = fns[i](g, p, slots[i], *new[:i])`` on whole arrays."""
    new: list[jax.Array] = []
    for fn, slot in zip(fns, slots, strict=True):
        new.append(fn(g, p, slot, *new))
    return tuple(new)


def chunked_slots(
    g: jax.Array,
    p: jax.Array | None,
    slots: Sequence[jax.Array],
    fns: Sequence[SlotFn],
    chunk: int = CHUNK,
):
    """The same as :func:`plain_slots`, chunk by chunk in one ``fori_loop`` (any shape;
    a last partial chunk is done before the loop).

    Within a chunk, a slot computed after another reads the other's *updated* chunk
    back from its buffer (``dynamic_slice``) instead of reusing the traced value:
    otherwise XLA fuses a second copy of the first slot's arithmetic into the
    second's fusion, which then reads the first slot's old buffer after its
    in-place update, and XLA copies whole slots every iteration to allow it.
    """
    if len(fns) != len(slots):
        raise ValueError(f"fns has {len(fns)} functions for {len(slots)} slots")
    shape = g.shape
    g1 = g.reshape(-1)
    p1 = p.reshape(-1) if p is not None else None
    carry = tuple(s.reshape(-1) for s in slots)
    n = g1.size

    def update(start, size, carry):
        def ds(x):
            return lax.dynamic_slice(x, (start,), (size,))

        g_c = ds(g1)
        p_c = ds(p1) if p1 is not None else None
        carry = list(carry)
        for i, fn in enumerate(fns):
            new_c = fn(g_c, p_c, ds(carry[i]), *(ds(carry[j]) for j in range(i)))
            carry[i] = lax.dynamic_update_slice(carry[i], new_c.astype(carry[i].dtype), (start,))
        return tuple(carry)

    full = n // chunk
    if n % chunk:  # the partial chunk first: after the loop, XLA would copy the slots
        carry = update(full * chunk, n % chunk, carry)
    if full:
        carry = lax.fori_loop(0, full, lambda i, c: update(i * chunk, chunk, c), carry)
    return tuple(c.reshape(shape) for c in carry)


def slots_in_one_pass(
    g: jax.Array,
    p: jax.Array | jax.ShapeDtypeStruct | None,
    slots: Sequence[jax.Array],
    fns: Sequence[SlotFn],
    chunk: int = CHUNK,
):
    """A dense leaf's new slots, ``new[i] = fns[i](g, p, slots[i], *new[:i])``.

    On CPU, for large leaves on small machines (:func:`loop_is_worth_it`), computed
    by :func:`chunked_slots` in one pass over memory; elsewhere by
    :func:`plain_slots`. Bit-identical either way.

    Args:
      g: the dense gradient of the leaf.
      p: the parameter (read-only here; ``fns`` may ignore it), or a stand-in
        without values (``update`` called without params): ``fns`` then get None.
      slots: the leaf's current slots, each shaped like ``p``.
      fns: one elementwise function per slot, in order; the i-th receives the
        gradient, the parameter, its own current slot and the new values of the
        slots before it.
      chunk: elements per chunk.

    Returns:
      A tuple of the new slots.
    """
    slots = tuple(slots)
    if not hasattr(p, "reshape"):  # a shape-only stand-in (update called without params)
        p = None
    if not loop_is_worth_it(g.size, chunk):
        return plain_slots(g, p, slots, fns)
    if p is None:
        return tuple(
            lax.platform_dependent(
                g,
                *slots,
                cpu=lambda g, *s: chunked_slots(g, None, s, fns, chunk),
                default=lambda g, *s: plain_slots(g, None, s, fns),
            )
        )
    return tuple(
        lax.platform_dependent(
            g,
            p,
            *slots,
            cpu=lambda g, p, *s: chunked_slots(g, p, s, fns, chunk),
            default=lambda g, p, *s: plain_slots(g, p, s, fns),
        )
    )
