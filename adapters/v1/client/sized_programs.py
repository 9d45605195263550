"""The step of a plan whose operations' output sizes depend on values.

A plan whose device operations include *sized* ones (``tf.boolean_mask`` of a
computed mask, ``tf.where(cond)``, ``tf.dynamic_partition``, ``tf.unique``:
``framework/data_sizes.py``) runs each step in two launches:

1. the **sizes program** (``Sizes``), compiled once per plan: from the step's
   variable values (as the step reads them at its start) and feeds, it computes
   the operations the sized ones' deciding inputs need and returns their sizes,
   a few integers fetched to the host;
2. the step's program compiled for that tuple of sizes (``SizedProgram``): the
   sizes are static there, the deciding values traced as any other. A step whose
   mask changes but keeps its count reuses the program; at most
   ``MAX_PROGRAMS`` are kept per plan (least recently used first out), and a plan
   that compiled ``MANY_PROGRAMS`` logs it once.

A sized operation whose deciding input needs another sized operation's output
(``tf.unique`` of a ``tf.boolean_mask``) is in a later *stage*: its sizes program
runs with the earlier sizes given, one more launch.

Plans without sized operations never reach this module.

.. note:: The sizes program runs only the operations a deciding input needs (its
  data and control dependencies). TF reads a variable that another operation of
  the same step assigns, without a dependency between the two, at whatever moment
  its executor reaches the read; jtrain's step orders them deterministically, and a
  plan where such an assignment comes before a deciding input's read raises
  ``NotImplementedError`` (add the control dependency, or read the value in the
  previous step) instead of computing sizes from another value than the step's.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops

__all__ = ["Sizes", "SizedProgram", "MAX_PROGRAMS", "MANY_PROGRAMS"]

# Step programs kept per plan, one per tuple of sizes (least recently used first out).
MAX_PROGRAMS = 64
# A plan compiling this many size variants logs it (once): each costs a compilation.
MANY_PROGRAMS = 16

_log = logging.getLogger("tensorflow")

# evaluate(order, sizes, donated values, read values, feed values) -> the RunContext
# after running ``order`` (the session's trace of a step's operations).
Evaluate = Callable[[list[ops.Operation], dict[Any, tuple[int, ...]], Any, Any, Any], Any]


class Sizes:
    """The sizes of a plan's sized operations, computed before its step.

    Args:
      device: the step's device operations, in the step's order.
      inputs: the tensors the step program takes as inputs (feeds, host values).
      evaluate: traces operations of the step (see ``Evaluate``).
      options: XLA compiler options of the step's programs.

    Raises:
      NotImplementedError: an operation the deciding inputs do not depend on assigns
        a variable they read, before them in the step (see the module's note).
    """

    def __init__(
        self,
        device: list[ops.Operation],
        inputs: set[ops.Tensor],
        evaluate: Evaluate,
        options: Any,
    ):
        from adapters.v1.client.session import execution_order

        device_set = set(device)
        position = {op: i for i, op in enumerate(device)}
        sized = [op for op in device if getattr(op, "_sized", None) is not None]
        stage: dict[ops.Operation, int] = {}
        closures: dict[ops.Operation, set[ops.Operation]] = {}
        for op in sized:
            deciding = op.inputs[op._sized.index]
            needed = set(execution_order([deciding.op], inputs)) & device_set
            closures[op] = needed
            earlier = [stage[s] for s in sized if s in needed]
            stage[op] = 1 + max(earlier) if earlier else 0
            _check_order(op, deciding, needed, device, position)
        self.ops = sized
        self.stages = [
            [op for op in sized if stage[op] == k] for k in range(1 + max(stage.values()))
        ]
        self._orders = [
            [op for op in device if any(op in closures[s] for s in ops_k)] for ops_k in self.stages
        ]
        self._evaluate = evaluate
        self._options = options
        self._programs: dict[tuple, Any] = {}

    def __call__(self, donated: Any, read: Any, feeds: Any) -> tuple[tuple, dict]:
        """``(key, sizes)``: the sizes of every sized operation (``op -> tuple of
        ints``) for these step inputs, and all of them as one tuple."""
        known: dict[ops.Operation, tuple[int, ...]] = {}
        key: tuple = ()
        for k, stage_ops in enumerate(self.stages):
            compiled = self._programs.get((k, key))
            if compiled is None:
                compiled = self._programs[(k, key)] = self._compile(k, dict(known))
            program, widths = compiled
            counts = np.asarray(program(donated, read, feeds)).tolist()  # the one host sync
            at = 0
            for op, n in zip(stage_ops, widths, strict=True):
                known[op] = tuple(counts[at : at + n])
                at += n
            key += tuple(counts)
        return key, known

    def _compile(self, k: int, known: dict) -> tuple[Any, list[int]]:
        """Stage ``k``'s program given the earlier stages' sizes ``known``, and the
        number of sizes of each of its operations (known once it is traced)."""
        order, stage_ops = self._orders[k], self.stages[k]
        evaluate = self._evaluate
        widths: list[int] = []

        def program(donated: Any, read: Any, feeds: Any) -> Any:
            memo = evaluate(order, known, donated, read, feeds).memo
            counts = []
            widths.clear()
            for op in stage_ops:
                sizes = op._sized.count(memo[op.inputs[op._sized.index]])
                widths.append(len(sizes))
                counts.extend(jnp.asarray(c).astype(np.int64).reshape(()) for c in sizes)
            return jnp.stack(counts) if counts else jnp.zeros(0, np.int64)

        return jax.jit(program, compiler_options=self._options), widths


class SizedProgram:
    """A step program compiled per tuple of sizes, called as the plan's program.

    ``compile(sizes)`` gives the step's program (``fn(donated, read, feeds)``) for
    the sizes of ``Sizes``; ``compiled`` counts the programs it made.
    """

    def __init__(self, sizes: Sizes, compile: Callable[[dict], Any], label: str):
        self._sizes = sizes
        self._compile = compile
        self._label = label
        self._programs: collections.OrderedDict[tuple, Any] = collections.OrderedDict()
        self.compiled = 0

    def __call__(self, donated: Any, read: Any, feeds: Any) -> Any:
        key, sizes = self._sizes(donated, read, feeds)
        programs = self._programs
        fn = programs.get(key)
        if fn is None:
            fn = programs[key] = self._compile(sizes)
            self.compiled += 1
            if len(programs) > MAX_PROGRAMS:
                programs.popitem(last=False)
            if self.compiled == MANY_PROGRAMS:
                _log.warning(
                    "%d step programs were compiled for the run of %s: the output sizes of "
                    "%s depend on values, and each new tuple of sizes compiles the step "
                    "anew (at most %d are kept). Pad to fixed sizes (tf.where(mask, x, "
                    "0) with a mask-weighted mean...) to compile once.",
                    self.compiled,
                    self._label,
                    ", ".join(f"{op.name} ({op.type})" for op in self._sizes.ops),
                    MAX_PROGRAMS,
                )
        else:
            programs.move_to_end(key)
        return fn(donated, read, feeds)


def _check_order(
    op: ops.Operation,
    deciding: ops.Tensor,
    needed: set[ops.Operation],
    device: list[ops.Operation],
    position: dict[ops.Operation, int],
) -> None:
    """Refuses an assignment outside ``needed``, before it in the step, of a variable
    that the operations computing ``deciding`` read (see the module's note)."""
    if not needed:
        return
    touched = {v for o in needed for v in (*o._reads, *o._writes)}
    if not touched:
        return
    last = max(position[o] for o in needed)
    for other in device[:last]:
        if other in needed:
            continue
        clash = [v for v in other._writes if v in touched]
        if clash:
            name = getattr(getattr(clash[0], "op", None), "name", clash[0])
            raise NotImplementedError(
                f"{op.name} ({op.type}): its output size depends on {deciding.name}, which "
                f"reads {name}, and {other.name} ({other.type}) assigns {name} in the same "
                "step without a dependency between them: TF's value depends on its "
                "executor's order there. Add a control dependency (tf.control_dependencies) "
                "to order the two."
            )
