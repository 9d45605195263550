"""``tf.GradientTape`` in classic TF1 graph mode, on ``tf.gradients``.

In a graph, TF's tape records the operations created inside its context whose
inputs it tracks: a watched tensor (``watch``), a read of a watched resource
variable, or an output of an operation it recorded. ``gradient`` then
differentiates the target through those operations only: a tensor computed
before the tape (even from a watched source) or from untracked inputs is a
constant to it, and a source the tape does not track gets ``None``. jtrain
computes that gradient with ``tf.gradients``, the operations the tape did not
record passing no gradient (``stop_gradients``); nothing is recorded op by op:
the tape keeps the stretches of the graph's operation list it was recording.

.. note:: In classic TF1 a ``tf.Variable`` is a reference variable, which TF
   2.21's tape does not know: reading one inside the tape watches nothing
   (``watched_variables()`` is empty), ``tape.gradient(y, ref_variable)`` raises
   ``AttributeError`` and ``tape.watch(ref_variable)`` raises ``SystemError``
   (measured). Resource variables (``use_resource=True``) are watched when read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from adapters.v1 import nest
from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.ops import gradients_impl
from adapters.v1.ops.gradients_impl import UnconnectedGradients

__all__ = ["GradientTape"]

_NOT_PERSISTENT = (
    "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
)


def _is_variable(x: Any) -> bool:
    return hasattr(x, "_snapshot") and hasattr(x, "_resource")


def _ref_variable_error(var: Any, what: str) -> AttributeError:
    """TF's error for a reference variable given to the tape (its C tape asks the
    variable for the ``_id`` only tensors and resource variables have)."""
    return AttributeError(
        f"'RefVariable' object has no attribute '_id': GradientTape.{what} got the "
        f"reference variable {var.name}; TF's tape knows only resource variables "
        "(create it with use_resource=True)"
    )


def _source_shape(source: Any, what: str) -> list[int]:
    """A source's static shape (the Jacobian's trailing dimensions).

    Raises:
      ValueError: it is not fully known.
    """
    t = gradients_impl._as_tensor(source)
    if t._shape is None or None in t._shape:
        raise ValueError(
            f"GradientTape.{what}: source {t.name} needs a fully known static shape, got {t.shape}"
        )
    return list(t._shape)


class GradientTape:
    """Records operations for automatic differentiation (``tf.GradientTape``).

    Args:
      persistent: whether ``gradient`` (and ``jacobian``) may be called more than
        once (default False).
      watch_accessed_variables: whether trainable resource variables read while
        the tape is recording are watched automatically (default True).

    Used as a context manager: operations created inside it, on tensors it
    tracks, are recorded.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed_variables = watch_accessed_variables
        self._graph: ops.Graph | None = None
        self._clear()
        self._recording = False

    def _clear(self) -> None:
        # [start, end) of the graph's operation list while recording (end None: now).
        self._stretches: list[list[int | None]] = []
        self._watched: dict[ops.Tensor, None] = {}  # ordered set of watched tensors
        self._watched_vars: list[tuple[int, Any]] = []  # (position, variable) watched
        self._live = False  # TF's ``_tape is not None``: entered and not yet spent

    # -- recording ---------------------------------------------------------------
    def _position(self) -> int:
        if self._graph is None:
            self._graph = ops.get_default_graph()
        return len(self._graph._ops)

    def _push(self) -> None:
        if self._recording:
            raise ValueError(
                "Tape is still recording, This can happen if you try to re-enter an "
                "already-active tape."
            )
        self._stretches.append([self._position(), None])
        self._recording = self._live = True

    def _pop(self) -> None:
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._stretches[-1][1] = self._position()
        self._recording = False

    def __enter__(self) -> GradientTape:
        self._push()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._recording:
            self._pop()

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Operations created in the block are not recorded.

        Raises:
          RuntimeError: the tape was never entered (or was spent).
          ValueError: the tape is not recording now (TF's messages).
        """
        if not self._live:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forgets everything recorded and watched, and goes on recording.

        Raises:
          ValueError: the tape is not recording (TF's message).
        """
        self._pop()
        self._clear()
        self._push()

    def watch(self, tensor: Any) -> None:
        """Tracks ``tensor`` (a tensor, a resource variable, or a nested structure of
        them): operations on it created while recording are recorded.

        Raises:
          AttributeError: the tape was never entered, or a non-persistent tape gave
            its gradients (TF's class: it has no tape then).
          SystemError: a reference variable while the tape records (TF's error,
            measured; see the module note). Otherwise one is ignored, as by TF.
        """
        if not self._live:
            raise AttributeError(
                "'NoneType' object has no attribute '_tape': GradientTape.watch needs a "
                "tape that was entered (`with tf.GradientTape() as tape:`) and not spent"
            )
        for t in nest.flatten(tensor):
            if _is_variable(t):
                if not t._resource:
                    if not self._recording:
                        continue
                    raise SystemError(
                        "GradientTape.watch returned a result with an exception set"
                    ) from _ref_variable_error(t, "watch")
                self._watched_vars.append((self._position(), t))
            else:
                self._watched[ops.convert_to_tensor(t)] = None

    # -- what the tape tracks -------------------------------------------------------
    def _ops(self) -> list[ops.Operation]:
        if self._graph is None:
            return []
        graph_ops = self._graph._ops
        out: list[ops.Operation] = []
        for start, end in self._stretches:
            out.extend(graph_ops[start : len(graph_ops) if end is None else end])
        return out

    def _accessed(self) -> list[tuple[int, Any]]:
        """The trainable resource variables read by operations made while recording."""
        if not self._watch_accessed_variables or self._graph is None:
            return []
        found: list[tuple[int, Any]] = []
        position = {op: i for i, op in enumerate(self._graph._ops)}
        for op in self._ops():
            reads = [t.op for t in op.inputs]
            if getattr(op, "_read_of", None) is not None and op.outputs:
                reads.append(op)
            for read in reads:
                var = getattr(read, "_read_of", None)
                if var is not None and var._resource and var.trainable:
                    found.append((position[op], var))
        return found

    def watched_variables(self) -> tuple[Any, ...]:
        """The variables the tape watches, in the order it first watched them."""
        pairs = sorted(self._watched_vars + self._accessed(), key=lambda p: p[0])
        return tuple(dict.fromkeys(var for _, var in pairs))

    def _tracked(self) -> tuple[set[ops.Tensor], set[ops.Operation], set[Any]]:
        """(watched tensors, recorded operations, watched variables)."""
        variables = set(self.watched_variables())
        watched = set(self._watched)
        recorded: set[ops.Operation] = set()
        for op in self._ops():
            for t in op.inputs:
                var = getattr(t.op, "_read_of", None)
                if var is not None and var in variables:
                    watched.add(t)
                if t in watched or t.op in recorded:
                    recorded.add(op)
        return watched, recorded, variables

    # -- gradients -------------------------------------------------------------------
    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
    ) -> Any:
        """The gradient of ``target`` (summed over a structure) with respect to each of
        ``sources``, through the operations the tape recorded.

        Args:
          target: a tensor or nested structure of tensors to differentiate.
          sources: a tensor, resource variable or nested structure of them.
          output_gradients: ``None`` (ones, TF's default) or one tensor per target
            leaf weighting it.
          unconnected_gradients: ``"none"`` (TF's default) or ``"zero"``: what a
            source the target does not depend on through recorded operations gets.

        Returns:
          ``sources``' structure of gradients (``None`` where unconnected).

        Raises:
          RuntimeError: a non-persistent tape already gave its gradients, or the tape
            was never entered (TF's message).
          TypeError: ``target`` is ``None``.
          AttributeError: a reference variable among ``target`` or ``sources`` (TF's).
          ValueError: ``unconnected_gradients`` is unknown.
        """
        if not self._live:
            raise RuntimeError(_NOT_PERSISTENT)
        if target is None:
            raise TypeError(
                "Argument `target` should be a list or nested structure of Tensors, "
                "Variables or CompositeTensors to be differentiated, but received None."
            )
        try:
            unconnected = UnconnectedGradients(unconnected_gradients)
        except ValueError:
            raise ValueError(
                f"Unknown value for unconnected_gradients: '{unconnected_gradients}'"
            ) from None
        if self._recording and not self._persistent:
            self._pop()  # TF stops recording a non-persistent tape here
        targets = nest.flatten(target)
        flat_sources = nest.flatten(sources)
        for t in targets + flat_sources:
            if _is_variable(t) and not t._resource:
                raise _ref_variable_error(t, "gradient")
        if not self._persistent:
            self._live = False
        grads = self._gradients(targets, flat_sources, output_gradients, unconnected)
        return nest.pack_sequence_as(sources, grads)

    def _gradients(
        self,
        targets: list[Any],
        sources: list[Any],
        output_gradients: Any,
        unconnected: UnconnectedGradients,
    ) -> list[Any]:
        watched, recorded, variables = self._tracked()
        ys = [gradients_impl._as_tensor(t) for t in targets]
        tracked = set(watched)
        for op in recorded:
            tracked.update(op.outputs)
        boundary = {t.op for t in ys if t.op not in recorded}
        for op in recorded:
            boundary.update(t.op for t in op.inputs if t.op not in recorded)
        # Each source stands for the tracked tensors it is: a variable for its reads.
        per_source: list[list[ops.Tensor]] = []
        for s in sources:
            if _is_variable(s):
                reads = [t for t in tracked if t in watched and t.op._read_of is s]
                per_source.append(reads if s in variables else [])
            else:
                t = ops.convert_to_tensor(s)
                per_source.append([t] if t in tracked else [])
        xs = list(dict.fromkeys(t for reads in per_source for t in reads))
        by_x: dict[ops.Tensor, Any] = {}
        if xs:
            stops = [op.outputs[0] for op in boundary if op.outputs]
            grads = gradients_impl.gradients(
                ys,
                xs,
                grad_ys=None if output_gradients is None else nest.flatten(output_gradients),
                stop_gradients=stops,
            )
            by_x = dict(zip(xs, grads, strict=True))
        out: list[Any] = []
        for s, reads in zip(sources, per_source, strict=True):
            parts = [by_x[t] for t in reads if by_x[t] is not None]
            if len(parts) > 1:
                parts = [FUNCTIONS["add_n"]([ops.convert_to_tensor(p) for p in parts])]
            if parts:
                out.append(parts[0])
            elif unconnected is UnconnectedGradients.ZERO:
                out.append(FUNCTIONS["zeros_like"](gradients_impl._as_tensor(s)))
            else:
                out.append(None)
        return out

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """The Jacobian of each batch row of ``target`` with respect to the same row of
        ``source`` (shape ``[batch, *target.shape[1:], *source.shape[1:]]``), rows
        assumed independent as TF assumes.

        Args:
          target: a tensor of fully known static shape ``[batch, ...]``.
          source: a tensor (or resource variable) of shape ``[batch, ...]``.
          unconnected_gradients: as ``gradient``.
          parallel_iterations: accepted (TF's loop parallelism).
          experimental_use_pfor: accepted (the same values either way).

        Returns:
          The batch Jacobian (``None`` where unconnected).

        Raises:
          RuntimeError: a non-persistent tape already gave its gradients.
          ValueError: ``target``'s static shape is not fully known.
        """
        if not self._live:
            raise RuntimeError(_NOT_PERSISTENT)
        y = gradients_impl._as_tensor(target)
        shape = self._static_shape(y, "batch_jacobian")
        inner = 1
        for d in shape[1:]:
            inner *= d
        persistent, self._persistent = self._persistent, True
        try:
            rows = []
            for i in range(inner):
                picked = FUNCTIONS["one_hot"](i, inner, dtype=y.dtype)
                weights = FUNCTIONS["reshape"](FUNCTIONS["tile"](picked, [shape[0]]), list(shape))
                rows.append(self.gradient(y, source, weights, unconnected_gradients))
        finally:
            self._persistent = persistent
        self._live = persistent
        if any(g is None for g in rows):
            return None
        s_shape = _source_shape(source, "batch_jacobian")
        stacked = FUNCTIONS["stack"]([ops.convert_to_tensor(g) for g in rows], axis=1)
        return FUNCTIONS["reshape"](stacked, shape + s_shape[1:])

    @staticmethod
    def _static_shape(y: ops.Tensor, what: str) -> list[int]:
        shape = y._shape
        if shape is None or any(d is None for d in shape):
            raise ValueError(
                f"GradientTape.{what}: target {y.name} needs a fully known static "
                f"shape, got {y.shape}"
            )
        return [int(d) for d in shape]

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """The Jacobian of ``target`` with respect to each of ``sources``: for each
        source a tensor of shape ``target.shape + source.shape``.

        Args:
          target: a tensor of fully known static shape.
          sources: a tensor, resource variable or nested structure of them.
          unconnected_gradients: as ``gradient``.
          parallel_iterations: accepted (TF's loop parallelism; XLA schedules here).
          experimental_use_pfor: accepted: TF's vectorized and looped Jacobians are
            the same values.

        Returns:
          ``sources``' structure of Jacobians (``None`` where unconnected).

        Raises:
          RuntimeError: a non-persistent tape already gave its gradients.
          ValueError: ``target``'s static shape is not fully known.
        """
        if not self._live:
            raise RuntimeError(_NOT_PERSISTENT)
        y = gradients_impl._as_tensor(target)
        shape = self._static_shape(y, "jacobian")
        size = 1
        for d in shape:
            size *= d
        flat_sources = nest.flatten(sources)
        persistent, self._persistent = self._persistent, True
        try:
            rows = []
            for i in range(size):
                onehot = FUNCTIONS["reshape"](
                    FUNCTIONS["one_hot"](i, size, dtype=y.dtype), list(shape)
                )
                rows.append(self.gradient(y, flat_sources, [onehot], unconnected_gradients))
        finally:
            self._persistent = persistent
        self._live = persistent
        out = []
        for j, s in enumerate(flat_sources):
            column = [row[j] for row in rows]
            if any(g is None for g in column):
                out.append(None)
                continue
            s_shape = _source_shape(s, "jacobian")
            stacked = FUNCTIONS["stack"]([ops.convert_to_tensor(g) for g in column])
            out.append(FUNCTIONS["reshape"](stacked, shape + s_shape))
        return nest.pack_sequence_as(sources, out)
