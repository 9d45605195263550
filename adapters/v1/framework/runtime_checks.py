"""Run-time checks inside the one step program (``check_numerics``, ``Assert``...).

TF raises ``InvalidArgumentError`` from inside a run when a checked condition
fails. jtrain's step is one compiled program, so a check cannot stop it midway:
an operation records a *failure flag* and the data for its message, the program
returns them, and the session raises TF's error after the run.

How an operation uses it (two lines, see ``ops/numerics.py``):

1. At graph build time, ``mark(op, message)``: ``message(*data) -> OpError``
   builds the error on the host from the NumPy values of the data (TF's class and
   message; ``op`` names the node). An op with several checks passes several
   messages and selects one with ``check(..., which=k)``.
2. In ``compute(ctx, ...)``, ``check(ctx, op, ok, *data)`` with ``ok`` a boolean
   scalar (True: passed) and ``data`` arrays for the message.

For example, a gather that must refuse out-of-range indices (TF on CPU)::

    def compute(ctx, params, indices):
        ok = jnp.all((indices >= 0) & (indices < params.shape[0]))
        runtime_checks.check(ctx, op, ok, indices)
        return (jnp.take(params, indices, axis=0, mode="clip"),)

    op = graph.create_op("GatherV2", ..., compute=compute, ...)
    runtime_checks.mark(op, lambda idx: errors.InvalidArgumentError(
        None, op, f"indices = {idx} is not in [0, {n})"))

Control-flow nodes (``tf.cond``, ``tf.while_loop``, ``map_fn``...) call
``mark_body`` when a check is inside their body, so checks inside branches and
loops work; a failure inside a loop reports its first failing iteration.

Mechanism, only for plans with a marked operation (the others compile exactly as
before): each check traced at the program's own level is collected as the program
is traced, its condition and data becoming outputs of the program. A check inside a
transformation cannot leave it so: a plan with a check in a ``tf.while_loop`` or
``tf.cond`` body (``mark_body``) is traced under ``jax.experimental.checkify``,
which threads the checks through every transformation; a check met inside another
one while collecting (a ``vmap``, a second derivative) drops the collecting trace (a
nested ``jax.jit``, so nothing of it stays in the step) and the program is traced
again under checkify. (checkify re-interprets the whole step's program: an eighth of
a transformer script's first step, measured.) The program also returns one boolean,
"a check failed", which the session reads after the run; the checks' data are read
only when it is True. Cost when the
checks pass: computing the checks themselves (a ``check_numerics`` of 256
floats in an ``assign_add`` step: about +60 us a run on a shared XLA:CPU host,
the same as returning a hand-written ``isfinite`` flag), and a run that fetches
nothing waits for its program to end. The run's variable writes are committed
before the error is raised (the step program ran to its end), unlike TF, which
stops at the failing node. Re-evaluations for ``tf.gradients`` (a frozen
``RunContext``) and traces
outside a session's program (output shape inference) do not check.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import core as _jax_core
from jax.experimental import checkify

from jtrain import errors

__all__ = ["mark", "mark_body", "check", "needed", "in_bodies", "functionalize", "raise_failed"]

_TAG = "jtrain-check:"
_local = threading.local()


def mark(op: Any, *messages: Callable[..., errors.OpError]) -> None:
    """Declares that ``op`` checks at run time; ``messages[k](*data)`` builds check k's error."""
    op._runtime_check = messages


def mark_body(op: Any, body_ops: Any) -> None:
    """Marks a control-flow node whose body contains checking operations."""
    if needed(body_ops):
        op._runtime_check = True


def needed(operations: Any) -> bool:
    """Whether any of ``operations`` checks at run time (directly or in a body)."""
    return any(getattr(op, "_runtime_check", None) for op in operations)


def check(ctx: Any, op: Any, ok: Any, *data: Any, which: int = 0) -> None:
    """Fails ``op``'s check ``which`` when ``ok`` is False; ``data`` feeds its message.

    A no-op outside a session's checked program and in gradient re-evaluations
    (a frozen ``ctx``); a check of a gradient itself (in a ``custom_vjp``'s
    backward function, ``check_numerics``) passes ``ctx=None``.
    """
    if not getattr(_local, "active", False) or getattr(ctx, "frozen", False):
        return
    tag = f"{_TAG}{which}:{op.name}"
    passed, values = jnp.asarray(ok, bool), [jnp.asarray(d) for d in data]
    collected = getattr(_local, "collected", None)
    if collected is None:
        checkify.check(passed, tag, *values)
        return
    if _current_trace() is not collected.trace:
        raise _Nested
    collected.checks.append((tag, jnp.all(passed), values))


@contextlib.contextmanager
def _active() -> Iterator[None]:
    old = getattr(_local, "active", False)
    _local.active = True
    try:
        yield
    finally:
        _local.active = old


def _current_trace() -> Any:
    """The trace JAX records operations in now (``None`` where JAX does not say)."""
    ctx = getattr(_jax_core, "trace_ctx", None)
    return getattr(ctx, "trace", None)


class _Nested(BaseException):
    """A check traced inside a transformation: the program is checkified instead.

    (A ``BaseException``: an operation's ``except Exception`` must not swallow it.)"""


class _Collecting:
    """The checks of one trace of a program: ``(tag, ok, data)`` in trace order."""

    def __init__(self, trace: Any):
        self.trace = trace
        self.checks: list[tuple[str, Any, list[Any]]] = []


@jax.tree_util.register_pytree_node_class
class _Collected:
    """What the host needs of a program's collected checks: ``first``, the index of
    the first that failed (0 when none did), and ``data[groups[k]]``, the data of
    check ``k`` when it is that first failure. Checks whose data have the same shapes
    and dtypes share one slot (the first failing one's selected), so that a step with
    many like checks (a gather per embedding) returns one set of arrays, as checkify
    did. A pytree: ``tags`` (check ``k``'s op and message index) and ``groups`` are
    static."""

    def __init__(self, tags: tuple[str, ...], groups: tuple[int, ...], first: Any, data: Any):
        self.tags, self.groups, self.first, self.data = tags, groups, first, data

    def tree_flatten(self) -> tuple[tuple[Any, Any], tuple[tuple[str, ...], tuple[int, ...]]]:
        return (self.first, self.data), (self.tags, self.groups)

    @classmethod
    def tree_unflatten(cls, static: Any, children: Any) -> _Collected:
        return cls(*static, *children)

    @classmethod
    def of(cls, checks: list[tuple[str, Any, list[Any]]]) -> tuple[Any, _Collected]:
        """``(failed, collected)`` of ``checks``, traced in the program."""
        if not checks:
            return jnp.asarray(False), cls((), (), jnp.asarray(0, jnp.int32), [])
        bad = ~jnp.stack([ok for _, ok, _ in checks])
        first = jnp.argmax(bad).astype(jnp.int32)
        slots: dict[tuple, int] = {}
        data: list[list[Any]] = []
        groups = []
        for k, (_, _, values) in enumerate(checks):
            signature = tuple((v.shape, v.dtype) for v in values)
            if signature not in slots:
                slots[signature] = len(data)
                data.append(list(values))
            else:
                slot = data[slots[signature]]
                slot[:] = [jnp.where(first == k, v, s) for v, s in zip(values, slot, strict=True)]
            groups.append(slots[signature])
        tags = tuple(tag for tag, _, _ in checks)
        return jnp.any(bad), cls(tags, tuple(groups), first, data)


def in_bodies(operations: Any) -> bool:
    """Whether any of ``operations`` checks inside a loop or branch body (``mark_body``)."""
    return any(getattr(op, "_runtime_check", None) is True for op in operations)


def functionalize(program: Callable[..., Any], direct: bool = True) -> Callable[..., Any]:
    """``program`` returning its outputs and, last, ``(failed, checks)``: whether a
    check failed and what ``raise_failed`` builds the error from.

    With ``direct`` the checks are collected in ``program``'s own trace, traced in a
    nested ``jax.jit`` so that a check met inside a transformation leaves no partial
    trace behind (its operations, a ``py_func``'s callback among them, would stay in
    the step); ``direct=False`` (checks inside bodies: ``in_bodies``) goes straight to
    checkify.
    """
    checked = checkify.checkify(program, errors=checkify.user_checks)

    def collect(*args: Any) -> Any:
        old = getattr(_local, "collected", None)
        _local.collected = collecting = _Collecting(_current_trace())
        try:
            out = program(*args)
        finally:
            _local.collected = old
        failed, checks = _Collected.of(collecting.checks)
        return out, failed, checks

    collected = jax.jit(collect)

    def run(*args: Any) -> Any:
        with _active():
            if direct and _current_trace() is not None:
                try:
                    out, failed, checks = collected(*args)
                except _Nested:
                    pass  # a check inside a transformation: checkify's trace below
                else:
                    return (*out, (failed, checks))
            err, out = checked(*args)
        # One boolean for the host to read: the error value itself is fetched only
        # when a check failed.
        preds = [jnp.any(p) for p in jax.tree.leaves(err._pred)]
        failed = jnp.any(jnp.stack(preds)) if preds else jnp.asarray(False)
        return (*out, (failed, err))

    return run


def _first_failure(err: Any) -> tuple[str, list[Any]] | None:
    """``(tag, data)`` of the first failed check in ``err`` (either form)."""
    if isinstance(err, _Collected):
        k = int(np.asarray(err.first))
        return err.tags[k], list(err.data[err.groups[k]])
    failure = err.get_exception()
    if failure is None:
        return None
    return failure.fmt_string, list(failure.args)


def raise_failed(err: Any, graph: Any) -> None:
    """Raises the error of the first failed check of a run (nothing if all passed)."""
    failed, err = err
    if not np.asarray(failed):
        return
    first = _first_failure(err)
    if first is None:
        return
    tag, args = first
    which, _, name = tag[len(_TAG) :].partition(":")
    op = graph._names.get(name)
    messages = getattr(op, "_runtime_check", None)
    data = [_host(a) for a in args]
    if isinstance(messages, tuple) and int(which) < len(messages):
        raise messages[int(which)](*data)
    raise errors.InvalidArgumentError(None, op, f"check of {name} failed")


def _host(value: Any) -> Any:
    return np.asarray(value)
