"""Output sizes that depend on values: ``tf.boolean_mask``, ``tf.where(cond)``,
``tf.dynamic_partition``, ``tf.unique``, ``tf.sequence_mask`` without ``maxlen``,
``tf.segment_*``.

jtrain compiles one static XLA program per step, yet these ops' output sizes
depend on the values of an input (the *deciding* input: the mask, the condition,
the partitions, the values to deduplicate). Such an op declares the **sizes** it
needs, as a function of its deciding input (``count``: the number of true
elements, the count per partition, the number of distinct values); its node
carries ``op._sized = Sized(index, count)``.

A ``Session.run`` whose step runs such ops (``client/sized_programs.py``) first
runs a small *sizes program*, compiled per plan from the same feeds and variable
values, that computes the deciding inputs and their sizes, fetches those few
integers, then runs the step's program compiled for that tuple of sizes: the
sizes are static there (``given``), the deciding values ordinary traced inputs
(``x[jnp.nonzero(mask, size=count)]``). A mask that changes every step but keeps
its count reuses its program; no program bakes a mask's values in.

Where the deciding value is concrete when traced (a constant, a value computed
from static shapes), the op counts it itself (``sizes_for``).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

import jax
import numpy as np

__all__ = ["Sized", "given", "sizes_for", "TRIAL_SIZES"]


class Sized(NamedTuple):
    """What an op's output sizes depend on: ``op._sized`` of its node.

    Attributes:
      index: the position of the deciding input among the node's inputs.
      count: ``count(value) -> tuple of integer scalars`` (JAX arrays): the sizes,
        computed from the deciding input's value in the sizes program.
    """

    index: int
    count: Callable[[Any], tuple[Any, ...]]


# The sizes given to each sized op of the program being traced: op -> tuple of ints.
_given: contextvars.ContextVar[Mapping[Any, tuple[int, ...]] | None] = contextvars.ContextVar(
    "jtrain_data_sizes", default=None
)

# Two sizes of the graph-building trials: an output dimension that follows the sizes
# differs between them and is unknown statically (TF's ``[None]`` of ``Where``).
TRIAL_SIZES = (2, 3)


@contextlib.contextmanager
def given(sizes: Mapping[Any, tuple[int, ...]]) -> Iterator[None]:
    """The sizes of the sized ops (``op -> tuple of ints``) while a program is traced:
    every evaluation of those ops in the trace (a gradient's re-evaluation included)
    takes them."""
    token = _given.set(sizes)
    try:
        yield
    finally:
        _given.reset(token)


def sizes_for(op: Any, value: Any, count: Callable[[Any], tuple[Any, ...]]) -> tuple[int, ...]:
    """The output sizes of ``op`` whose deciding input has ``value``.

    The sizes the session computed before the step (``given``), or, for a concrete
    ``value`` (a constant, a value of static shapes), its own count.

    Raises:
      NotImplementedError: ``value`` is computed in a trace the session did not
        compute sizes for (the body of a ``tf.while_loop``/``tf.cond``, a
        ``tf.data`` function, an exported function).
    """
    sizes = _given.get()
    if sizes is not None and op in sizes:
        return sizes[op]
    if not isinstance(value, jax.core.Tracer):
        with jax.ensure_compile_time_eval():
            return tuple(int(np.asarray(c)) for c in count(value))
    raise NotImplementedError(
        f"{op.name} ({op.type}): its output size depends on the values of its input "
        f"{op.inputs[op._sized.index].name}, which jtrain "
        "computes before the step only for the operations a Session.run step runs "
        "directly (not inside tf.while_loop or tf.cond bodies, tf.data functions or "
        "exported functions); compute it outside the construct."
    )
