"""TF1's queues (``FIFOQueue``, ``RandomShuffleQueue``, ``PaddingFIFOQueue``) as host objects.

A queue's elements live in Python, per ``Session`` (as in TF, a graph describes
the queue and each session holds its own), as tuples of NumPy arrays in a
bounded, thread-safe buffer. Its operations are *host operations* (see
``Graph.create_op(host=...)``): a dequeue runs in Python before the step's XLA
program and its arrays enter the program like feeds; it blocks until enough
elements are there and raises ``OutOfRangeError`` once the queue is closed with
too few. An enqueue of host values (a reader's records, a producer's file
names) is a ``"pre"`` host operation too, so a queue runner's
``sess.run(enqueue)`` launches no device program; an enqueue of values computed
on the device runs after the program (``"post"``) on its outputs.
"""

from __future__ import annotations

import collections
import contextlib
import heapq
import itertools
import json
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from adapters.v1.ops.constant_op import literal_array
from jtrain import errors

__all__ = [
    "QueueBase",
    "FIFOQueue",
    "RandomShuffleQueue",
    "PaddingFIFOQueue",
    "PriorityQueue",
]

_STATES_LOCK = threading.Lock()
# How often a blocked queue operation checks whether its session was closed.
_POLL_SECS = 0.1


def as_host_dtype(dtype: Any) -> np.dtype:
    """NumPy dtype of a queue component: TF's ``string`` is an object array of ``bytes``."""
    if dtype in (bytes, str, object, "string", "str", "bytes"):
        return np.dtype(object)
    return ops.as_dtype(dtype).dtype  # tf.string: object


def to_host_array(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` as a NumPy array of ``dtype`` (strings become an object array of bytes).

    Raises:
      TypeError: ``dtype`` is a string one and ``value`` holds something other than
        ``bytes``/``str`` (``bytes(5)`` would be five NUL bytes), with the message of
        TF's ``compat.as_bytes``.
    """
    if dtype.kind == "O":
        arr = np.asarray(value, dtype=object)
        flat = []
        for v in arr.ravel():
            if not isinstance(v, (bytes, str)):
                raise TypeError(f"Expected binary or unicode string, got {v!r}")
            flat.append(v.encode() if isinstance(v, str) else bytes(v))
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(arr.shape)
    return np.asarray(value, dtype=dtype)


def _owned(value: Any, dtype: np.dtype) -> np.ndarray:
    """``to_host_array(value, dtype)`` that nothing else can change: an enqueued element
    outlives the run, and TF copies it, so a caller may refill the array it fed (a
    writeable array, or a view of one, is copied; a conversion's new array is kept)."""
    arr = to_host_array(value, dtype)
    if arr.flags.writeable and arr.dtype.kind != "O" and (arr is value or arr.base is not None):
        return arr.copy()
    return arr


def host_inputs(values: Sequence[Any], dtypes: Sequence[Any] | None = None) -> list[ops.Tensor]:
    """Tensors for ``values``; constants become host constants, so host ops can read them.

    With ``dtypes`` (one per value, as TF's ``convert_to_tensor(value, dtype)`` for an
    op's typed inputs), a Python or NumPy value is converted to its dtype by TF's literal
    rules and a tensor must have it.

    Raises:
      TypeError: a value of a kind its dtype does not take (``5`` for ``tf.string``,
        ``1.5`` for ``tf.int32``), as TF.
      ValueError: a tensor of another dtype (TF's "Tensor conversion requested dtype").
    """
    graph = ops.get_default_graph()
    out = []
    wanted = [None] * len(values) if dtypes is None else list(dtypes)
    for v, dtype in zip(values, wanted, strict=True):
        if dtype is not None and (isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_tensor")):
            v = ops.convert_to_tensor(v, dtype=dtype)
        if isinstance(v, ops.Tensor) and v.op.type == "Const" and v.op._host is None:
            const = v.op._const_value  # its exact value (int64/float64 keep their bits)
            v = np.asarray(v.op._compute(None)[0] if const is None else const, dtype=v.dtype)
        if isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_tensor"):
            out.append(ops.convert_to_tensor(v))
            continue
        out.append(host_constant(literal_array(v, dtype), graph))
    return out


def host_constant(arr: np.ndarray, graph: ops.Graph | None = None, name: str = "Const"):
    """A ``"pre"`` host op returning the NumPy array ``arr``."""
    graph = graph or ops.get_default_graph()
    return graph.create_op(
        "Const",
        name,
        compute=lambda session: (arr,),
        output_specs=[(arr.shape, arr.dtype)],
        host="pre",
    ).outputs[0]


def placement(inputs: Sequence[ops.Tensor]) -> str:
    """``"pre"`` when every input is a host value or a placeholder, else ``"post"``."""
    for t in inputs:
        if t.op._host == "pre" or t.op.type == "Placeholder":
            continue
        return "post"
    return "pre"


_DEADLINE = threading.local()


def blocking_deadline(timeout_ms: int) -> contextlib.AbstractContextManager:
    """Blocking queue operations of this thread raise ``DeadlineExceededError`` after
    ``timeout_ms`` milliseconds (0: no limit), as TF's ``operation_timeout_in_ms``.

    Every ``Session.run`` enters one: without a limit it is a shared no-op (a
    generator-based context costs ~1 us a run)."""
    return _deadline(timeout_ms) if timeout_ms > 0 else _NO_DEADLINE


_NO_DEADLINE = contextlib.nullcontext()


@contextlib.contextmanager
def _deadline(timeout_ms: int) -> Iterator[None]:
    outer = getattr(_DEADLINE, "at", None)
    _DEADLINE.at = time.monotonic() + timeout_ms / 1000.0
    try:
        yield
    finally:
        _DEADLINE.at = outer


def session_state(session: Any, key: Any, factory: Any) -> Any:
    """The per-session state of a queue or reader ``key``, made by ``factory()`` once."""
    states = getattr(session, "_jtrain_host_states", None)
    if states is None:
        with _STATES_LOCK:
            states = getattr(session, "_jtrain_host_states", None)
            if states is None:
                states = {}
                session._jtrain_host_states = states
    state = states.get(key)
    if state is None:
        with _STATES_LOCK:
            state = states.get(key)
            if state is None:
                state = factory()
                states[key] = state
    return state


class _Buffer:
    """One session's elements of a queue: a bounded buffer guarded by a condition."""

    def __init__(self, queue: QueueBase):
        self.queue = queue
        self.items: Any = queue._new_items()
        self.cond = threading.Condition()
        self.closed = False
        self.cancelled = False
        self.rng = np.random.default_rng(queue._seed) if queue._random else None

    def _wait(self, session: Any) -> None:
        deadline = getattr(_DEADLINE, "at", None)
        wait = _POLL_SECS if deadline is None else min(_POLL_SECS, deadline - time.monotonic())
        if wait > 0:
            self.cond.wait(wait)
        if session._closed:
            raise errors.CancelledError(None, None, "Session has been closed.")
        if deadline is not None and time.monotonic() >= deadline:
            raise errors.DeadlineExceededError(None, None, "Timed out waiting for notification")

    def put(self, session: Any, elements: list[tuple]) -> None:
        q = self.queue
        items = self.items
        with self.cond:
            try:
                done, count = 0, len(elements)
                while done < count:
                    if self.closed:
                        raise errors.CancelledError(None, None, f"{q._kind} '{q.name}' is closed.")
                    room = q._capacity - len(items)
                    if room <= 0:
                        self.cond.notify_all()  # what came so far, before waiting for room
                        while len(items) >= q._capacity:
                            if self.cancelled:
                                raise errors.CancelledError(
                                    None, None, "Enqueue operation was cancelled"
                                )
                            self._wait(session)
                        continue
                    # As many as there is room for, in one call (the lock is held).
                    items.extend(elements[done : done + room])
                    done += min(room, count - done)
            finally:
                self.cond.notify_all()

    def take(self, session: Any, n: int, up_to: bool) -> list[tuple]:
        q = self.queue
        with self.cond:
            while True:
                size = len(self.items)
                if self.closed:
                    if size >= n or (up_to and size > 0):
                        break
                    raise errors.OutOfRangeError(
                        None,
                        None,
                        f"{q._kind} '{q.name}' is closed and has insufficient elements "
                        f"(requested {n}, current size {size})",
                    )
                if size >= n + q._min_after_dequeue:
                    break
                self._wait(session)
            count = min(n, len(self.items))
            if self.rng is None:
                out = [self.items.popleft() for _ in range(count)]
            else:
                out = []
                items = self.items
                # One draw per element, all drawn in one call: pick i of what is left.
                size = len(items)
                for i in self.rng.integers(0, np.arange(size, size - count, -1)).tolist():
                    items[i], items[-1] = items[-1], items[i]
                    out.append(items.pop())
            self.cond.notify_all()
            return out

    def close(self, cancel_pending_enqueues: bool) -> None:
        with self.cond:
            self.closed = True
            self.cancelled = self.cancelled or cancel_pending_enqueues
            self.cond.notify_all()


def _as_shape_list(shapes: Any, unknown_dim_allowed: bool = False) -> list[tuple] | None:
    """A queue's ``shapes`` argument as one tuple per component (``None`` dims unknown).

    As TF: one ``TensorShape`` or a list of ints and ``None`` is a single shape; every
    shape needs a known rank and, unless ``unknown_dim_allowed`` (``PaddingFIFOQueue``),
    known dimensions.

    Raises:
      ValueError: an unknown rank or dimension, or (``unknown_dim_allowed``) ``shapes``
        not a non-empty list of shapes.
      TypeError: ``shapes`` neither a ``TensorShape`` nor a list or tuple.
    """
    if unknown_dim_allowed and (
        not isinstance(shapes, Sequence)
        or isinstance(shapes, TensorShape)
        or not shapes
        or any(s is None or isinstance(s, int) for s in shapes)
    ):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(
            "Shapes must be a TensorShape or a list or tuple of TensorShapes, "
            f"got {type(shapes)} instead."
        )
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # a single shape
    parsed = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and not all(s.is_fully_defined() for s in parsed):
        raise ValueError(f"All shapes must be fully defined: {parsed}")
    if any(s.rank is None for s in parsed):
        raise ValueError(f"All shapes must have a defined rank: {parsed}")
    return [tuple(s.as_list()) for s in parsed]


class QueueBase:
    """A queue of tuples of tensors (``tf.queue.QueueBase``); see the subclasses."""

    _kind = "Queue"
    _random = False

    def _new_items(self) -> Any:
        """An empty container of elements: ``append``, ``extend``, ``popleft`` and ``len``."""
        return collections.deque()

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any = None,
        names: Any = None,
        shared_name: str | None = None,
        name: str = "queue",
        min_after_dequeue: int = 0,
        seed: int | None = None,
    ):
        self._configure(capacity, dtypes, shapes, names, min_after_dequeue, seed)
        graph = ops.get_default_graph()
        self._graph = graph
        # The queue's own op, named as the queue (TF's FIFOQueueV2).
        self._bind(graph.create_op(self._kind + "V2", name, host="pre"))

    def _bind(self, op: ops.Operation) -> None:
        """Makes ``op`` this queue's own op; its ``_host_recipe`` describes the queue."""
        self._queue_op = op
        op._queue = self  # QueueRunner.from_proto finds the queue by its op
        op._host_recipe = {"queue": json.dumps(self._spec())}
        # TF names the queue's ops after the last component of its name, in the name
        # scope where each op is made ("scope/fifo_enqueue"), and reports the whole name.
        self._name = op.name.split("/")[-1]

    def _spec(self) -> dict[str, Any]:
        """What rebuilds this queue (``QueueBase.rebuild``): plain values only."""
        return {
            "class": type(self).__name__,
            "capacity": self._capacity,
            "dtypes": [np.dtype(d).str if d.kind != "O" else "string" for d in self._dtypes],
            "shapes": self._shapes,
            "names": self._names,
            "min_after_dequeue": self._min_after_dequeue,
            "seed": self._seed,
        }

    @staticmethod
    def rebuild(op: ops.Operation, spec: str) -> QueueBase:
        """The queue of ``op`` (a queue node imported from a meta graph) from its spec.

        Raises:
          ValueError: a spec naming no queue class of this module.
        """
        fields = json.loads(spec)
        cls = _QUEUE_CLASSES.get(fields.get("class"))
        if cls is None:
            raise ValueError(f"unknown queue class in a meta graph: {fields.get('class')!r}")
        queue = cls.__new__(cls)
        dts = [object if d == "string" else np.dtype(d) for d in fields["dtypes"]]
        queue._configure(
            fields["capacity"],
            dts,
            fields["shapes"],
            fields["names"],
            fields["min_after_dequeue"],
            fields["seed"],
        )
        queue._graph = op.graph
        queue._bind(op)
        return queue

    def _configure(self, capacity, dtypes, shapes, names, min_after_dequeue, seed) -> None:
        if not isinstance(capacity, (int, np.integer)) or capacity <= 0:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        if not isinstance(dtypes, (list, tuple)):
            dtypes = [dtypes]
        self._dtypes = [as_host_dtype(d) for d in dtypes]
        if shapes is not None:
            if not isinstance(shapes, (list, tuple)) or (
                shapes and not isinstance(shapes[0], (list, tuple, type(None)))
            ):
                shapes = [shapes]
            if len(shapes) != len(self._dtypes):
                raise ValueError(
                    "Queue shapes must have the same length as dtypes, received "
                    f"len(shapes)={len(shapes)}, len(dtypes)={len(self._dtypes)}"
                )
            shapes = [
                None if s is None else tuple(None if d is None or d == -1 else int(d) for d in s)
                for s in shapes
            ]
        self._shapes = shapes
        if names is not None:
            if isinstance(names, str):
                names = [names]
            if len(names) != len(self._dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
            names = list(names)
        self._names = names
        self._capacity = int(capacity)
        self._min_after_dequeue = int(min_after_dequeue)
        self._seed = seed

    # -- properties -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self._queue_op.name

    @property
    def dtypes(self) -> list[np.dtype]:
        return list(self._dtypes)

    @property
    def shapes(self) -> list[TensorShape]:
        """Each component's ``TensorShape`` (of unknown rank when no shapes were given)."""
        if self._shapes is None:
            return [unknown_shape() for _ in self._dtypes]
        return [unknown_shape() if s is None else TensorShape(s) for s in self._shapes]

    @property
    def names(self) -> list[str] | None:
        return None if self._names is None else list(self._names)

    @property
    def queue_ref(self) -> ops.Operation:
        return self._queue_op

    def _buffer(self, session: Any) -> _Buffer:
        return session_state(session, self, lambda: _Buffer(self))

    # -- element handling -----------------------------------------------------
    def _flatten(self, vals: Any) -> list[Any]:
        if isinstance(vals, dict):
            if self._names is None:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names) != sorted(vals):
                raise ValueError(
                    f"Keys in dictionary to enqueue do not match names of Queue. "
                    f"Dictionary: {sorted(vals)}, Queue: {sorted(self._names)}"
                )
            return [vals[k] for k in self._names]
        if not isinstance(vals, (list, tuple)):
            return [vals]
        return list(vals)

    def _check_component(self, i: int, shape: tuple, what: str) -> None:
        if self._shapes is None or self._shapes[i] is None:
            return
        want = self._shapes[i]
        if len(want) != len(shape) or any(
            w is not None and w != s for w, s in zip(want, shape, strict=True)
        ):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Shape mismatch in tuple component {i}. Expected {list(want)}, got "
                f"{list(shape)} ({what} of {self._kind} '{self.name}')",
            )

    def _enqueue_op(
        self, vals: Any, many: bool, name: str | None, keep_input: Any = None
    ) -> ops.Operation:
        flat = self._flatten(vals)
        if len(flat) != len(self._dtypes):
            raise ValueError(f"Expected {len(self._dtypes)} components to enqueue, got {len(flat)}")
        for i, (v, dtype) in enumerate(zip(flat, self._dtypes, strict=True)):
            if v is None:
                raise ValueError("None values not supported.")
            if isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_tensor"):
                try:  # TF converts each component by the name "component_i"
                    flat[i] = ops.convert_to_tensor(v, dtype=dtype)
                except ValueError as e:
                    raise ValueError(f"component_{i}: {e}") from None
        tensors = host_inputs(flat, self._dtypes)
        keep = [] if keep_input is None else host_inputs([keep_input])
        for i, t in enumerate(tensors):
            shape = t._shape
            if shape is not None and self._shapes is not None and self._shapes[i] is not None:
                if many:
                    shape = shape[1:]
                if all(d is not None for d in shape):
                    try:
                        self._check_component(i, tuple(shape), "enqueue")
                    except errors.InvalidArgumentError as e:
                        raise ValueError(e.message) from None
        kind = "QueueEnqueueManyV2" if many else "QueueEnqueueV2"
        default = "EnqueueMany" if many else "enqueue"  # TF's default names
        op = self._graph.create_op(
            kind,
            name or f"{self._name}_{default}",
            inputs=tensors + keep,
            compute=self._enqueue_compute(many, bool(keep)),
            host=placement(tensors + keep),
        )
        op._host_recipe = {"queue": self.name, "many": many, "keep": bool(keep)}
        if not many and not keep:
            self._add_batch_form(op)
        return op

    def _add_batch_form(self, op: ops.Operation) -> None:
        """n elements in one call, as n runs of ``op`` (training/batched_enqueue.py)."""
        queue = self
        op._batch = lambda session, columns: queue._put_rows(
            session,
            [to_host_array(v, dt) for v, dt in zip(columns, queue._dtypes, strict=True)],
        )

    def _enqueue_compute(self, many: bool, keep: bool) -> Any:
        """An enqueue op's host computation (``keep``: its last input is a keep mask)."""
        queue = self

        def compute(session, *values):
            if keep:
                values, mask = values[:-1], np.asarray(values[-1], dtype=bool)
                if mask.ndim == 0 and not mask:
                    return ()
            arrays = [_owned(v, dt) for v, dt in zip(values, queue._dtypes, strict=True)]
            if keep and mask.ndim == 1:
                arrays = [a[mask] for a in arrays]
            if many:
                queue._put_rows(session, arrays)
            else:
                for i, c in enumerate(arrays):
                    queue._check_component(i, np.shape(c), "enqueue")
                queue._buffer(session).put(session, [tuple(arrays)])
            return ()

        return compute

    def _put_rows(self, session: Any, arrays: list[np.ndarray]) -> None:
        """Enqueues the slices of ``arrays`` along their first dimension as elements."""
        n = {a.shape[0] if a.ndim else -1 for a in arrays}
        if len(n) != 1 or -1 in n:
            raise errors.InvalidArgumentError(
                None, None, "enqueue_many: components must share their first dimension"
            )
        count = n.pop()
        # Rows as views of the batch (0-d views of a vector's items).
        rows = [list(a) if a.ndim > 1 else [a[j, ...] for j in range(count)] for a in arrays]
        elements = list(zip(*rows, strict=True))
        if elements:
            for i, c in enumerate(elements[0]):
                self._check_component(i, np.shape(c), "enqueue")
        self._buffer(session).put(session, elements)

    def enqueue(self, vals: Any, name: str | None = None) -> ops.Operation:
        """An op adding one element (blocks while the queue is full).

        Raises at run time ``CancelledError`` if the queue is closed.
        """
        return self._enqueue_op(vals, False, name)

    def enqueue_many(self, vals: Any, name: str | None = None) -> ops.Operation:
        """An op adding the slices of ``vals`` along their first dimension as elements."""
        return self._enqueue_op(vals, True, name)

    def _stack(self, rows: list[tuple], i: int) -> np.ndarray:
        parts = [r[i] for r in rows]
        if self._dtypes[i].kind != "O":
            try:
                # Equal-shaped rows in one C loop: np.stack's view per row costs 3-10x more
                # (a dequeue_many of 100 MNIST rows: 57 us against 160 us).
                return np.array(parts).astype(self._dtypes[i], copy=False)
            except ValueError:
                pass  # rows of different shapes: np.stack raises its error
        return np.stack(parts).astype(self._dtypes[i], copy=False)

    def _dequeue_op(self, n: int | None, up_to: bool, name: str, kind: str):
        if n is not None and int(n) < 0:
            raise ValueError(f"n must be non-negative, got {n}")
        op = self._graph.create_op(
            kind,
            name,
            compute=self._dequeue_compute(n, up_to),
            output_specs=self._dequeue_specs(n, up_to),
            host="pre",
        )
        op._host_recipe = {"queue": self.name, "n": -1 if n is None else int(n), "up_to": up_to}
        outs = list(op.outputs)
        if self._names is not None:
            return dict(zip(self._names, outs, strict=True))
        return outs[0] if len(outs) == 1 else outs

    def _dequeue_specs(self, n: int | None, up_to: bool) -> list[tuple[Any, Any]]:
        """A dequeue's output ``(shape, dtype)``s."""
        specs = []
        for i, dt in enumerate(self._dtypes):
            shape = None if self._shapes is None else self._shapes[i]
            if shape is not None and n is not None:
                shape = (None if up_to else int(n), *shape)
            specs.append((shape, dt))
        return specs

    def _dequeue_compute(self, n: int | None, up_to: bool) -> Any:
        """A dequeue op's host computation (``n=None``: one element, unstacked)."""
        queue = self
        count = 1 if n is None else int(n)

        def compute(session):
            if n is not None and queue._shapes is None:  # TF's kernel: before any wait
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"{queue._kind}'s DequeueMany and DequeueUpTo require the components to "
                    f"have specified shapes. ({queue._kind} '{queue.name}')",
                )
            rows = queue._buffer(session).take(session, count, up_to)
            if n is None:  # string scalars are bytes, as TF fetches them
                return tuple(c.item() if c.dtype.kind == "O" and not c.ndim else c for c in rows[0])
            if not rows:
                return tuple(
                    np.zeros((0, *(d or 0 for d in (s or ()))), dtype=dt)
                    for s, dt in zip(
                        queue._shapes or [()] * len(queue._dtypes), queue._dtypes, strict=True
                    )
                )
            return tuple(queue._stack(rows, i) for i in range(len(queue._dtypes)))

        return compute

    def dequeue(self, name: str | None = None) -> Any:
        """A host op removing one element (blocks until there is one).

        Raises at run time ``OutOfRangeError`` when the queue is closed and empty.
        """
        return self._dequeue_op(None, False, name or f"{self._name}_Dequeue", "QueueDequeueV2")

    def dequeue_many(self, n: int, name: str | None = None) -> Any:
        """A host op removing ``n`` elements, stacked (blocks until there are ``n``).

        Raises at run time ``OutOfRangeError`` when the queue is closed with fewer than ``n``.
        """
        return self._dequeue_op(n, False, name or f"{self._name}_DequeueMany", "QueueDequeueManyV2")

    def dequeue_up_to(self, n: int, name: str | None = None) -> Any:
        """As ``dequeue_many``, but once the queue is closed returns the last ``< n`` elements.

        Raises at run time ``OutOfRangeError`` when the queue is closed and empty.
        """
        return self._dequeue_op(n, True, name or f"{self._name}_DequeueUpTo", "QueueDequeueUpToV2")

    def close(self, cancel_pending_enqueues: bool = False, name: str | None = None):
        """An op closing the queue: later enqueues fail; dequeues drain what is left.

        With ``cancel_pending_enqueues`` blocked enqueues fail with ``CancelledError``.
        """
        op = self._graph.create_op(
            "QueueCloseV2",
            name or f"{self._name}_Close",
            compute=self._close_compute(cancel_pending_enqueues),
            host="pre",
        )
        op._host_recipe = {"queue": self.name, "cancel": bool(cancel_pending_enqueues)}
        return op

    def _close_compute(self, cancel_pending_enqueues: bool) -> Any:
        queue = self

        def compute(session):
            queue._buffer(session).close(cancel_pending_enqueues)
            return ()

        return compute

    def is_closed(self, name: str | None = None) -> ops.Tensor:
        """A host op: whether the queue is closed (``bool`` scalar)."""
        op = self._graph.create_op(
            "QueueIsClosedV2",
            name or f"{self._name}_IsClosed",
            compute=self._is_closed_compute(),
            output_specs=[((), np.dtype(bool))],
            host="pre",
        )
        op._host_recipe = {"queue": self.name}
        return op.outputs[0]

    def _is_closed_compute(self) -> Any:
        queue = self
        return lambda session: (np.asarray(queue._buffer(session).closed),)

    def size(self, name: str | None = None) -> ops.Tensor:
        """A host op: the number of elements (``int32`` scalar)."""
        op = self._graph.create_op(
            "QueueSizeV2",
            name or f"{self._name}_Size",
            compute=self._size_compute(),
            output_specs=[((), np.dtype(np.int32))],
            host="pre",
        )
        op._host_recipe = {"queue": self.name}
        return op.outputs[0]

    def _size_compute(self) -> Any:
        queue = self

        def compute(session):
            return (np.asarray(len(queue._buffer(session).items), dtype=np.int32),)

        return compute


class FIFOQueue(QueueBase):
    """A bounded first-in first-out queue (``tf.queue.FIFOQueue``).

    Args:
      capacity: the most elements it holds (enqueues block beyond).
      dtypes: the component types; ``shapes``: their fully defined shapes (a list of
        ``TensorShape``s or lists; one shape alone for one component), needed by
        ``dequeue_many`` and ``dequeue_up_to``; ``names``: component names (elements
        are then dicts); ``shared_name``: accepted, unused (one process).

    Raises:
      ValueError: a shape with an unknown dimension or rank.

    .. note:: A queue made without ``shapes`` builds ``dequeue_many`` but raises
       ``InvalidArgumentError`` when it runs, as TF's kernel does.
    """

    _kind = "FIFOQueue"

    def __init__(
        self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"
    ):
        super().__init__(capacity, dtypes, _as_shape_list(shapes), names, shared_name, name)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads components to the batch's largest shape.

    ``shapes`` is required; ``None`` dimensions vary between elements and are
    padded with zeros (``b""`` for strings), as ``tf.queue.PaddingFIFOQueue``.
    """

    _kind = "PaddingFIFOQueue"

    def __init__(
        self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"
    ):
        if not isinstance(dtypes, (list, tuple)):
            dtypes = [dtypes]
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        if len(shapes) != len(dtypes):
            raise ValueError(
                "Shapes must be provided for all components, but received "
                f"{len(dtypes)} dtypes and {len(shapes)} shapes."
            )
        super().__init__(capacity, dtypes, shapes, names, shared_name, name)

    def _stack(self, rows: list[tuple], i: int) -> np.ndarray:
        parts = [np.asarray(r[i]) for r in rows]
        shape = tuple(max(p.shape[d] for p in parts) for d in range(parts[0].ndim))
        dt = self._dtypes[i]
        out = np.full((len(parts), *shape), b"" if dt.kind == "O" else 0, dtype=dt)
        for j, p in enumerate(parts):
            out[(j, *(slice(0, s) for s in p.shape))] = p
        return out


class RandomShuffleQueue(QueueBase):
    """A bounded queue dequeuing elements in random order (``tf.queue.RandomShuffleQueue``).

    Args:
      capacity: as ``FIFOQueue``.
      dtypes: as ``FIFOQueue``.
      shapes: as ``FIFOQueue``.
      names: as ``FIFOQueue``.
      shared_name: as ``FIFOQueue``.
      name: as ``FIFOQueue``.
      min_after_dequeue: a dequeue waits until this many elements would remain
        (ignored once the queue is closed), which keeps the mix large.
      seed: seeds the order (NumPy's generator: the order differs from TF's for
        the same seed, as any two implementations' do).
    """

    _kind = "RandomShuffleQueue"
    _random = True

    def _new_items(self) -> Any:
        return []  # random picks swap with the last element: O(1) in a list

    def __init__(
        self,
        capacity,
        min_after_dequeue,
        dtypes,
        shapes=None,
        names=None,
        seed=None,
        shared_name=None,
        name="random_shuffle_queue",
    ):
        if min_after_dequeue < 0 or min_after_dequeue >= capacity:
            raise ValueError(
                f"min_after_dequeue ({min_after_dequeue}) must be in [0, capacity ({capacity}))"
            )
        super().__init__(
            capacity,
            dtypes,
            _as_shape_list(shapes),
            names,
            shared_name,
            name,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
        )


class _ByPriority:
    """Elements ordered by their first component (smallest first; FIFO among equals)."""

    def __init__(self) -> None:
        self._heap: list = []
        self._count = itertools.count()

    def __len__(self) -> int:
        return len(self._heap)

    def append(self, element: tuple) -> None:
        heapq.heappush(self._heap, (int(element[0]), next(self._count), element))

    def extend(self, elements: list[tuple]) -> None:
        for element in elements:
            self.append(element)

    def popleft(self) -> tuple:
        return heapq.heappop(self._heap)[2]


class PriorityQueue(QueueBase):
    """A bounded queue dequeuing the element of smallest priority first
    (``tf.queue.PriorityQueue``).

    Each element's first component is its ``int64`` scalar priority, followed by
    components of ``types``; dequeues return the priority first too. Elements of
    equal priority leave in the order they came (TF leaves that order unspecified).

    Args:
      capacity: the most elements it holds.
      types: the component types after the priority.
      shapes: their fully defined shapes, required (the priority's ``()`` is added in
        front).
      names: component names, the priority's included (elements are then dicts).
      shared_name: accepted, unused (one process).
      name: the op name.
    """

    _kind = "PriorityQueue"

    def __init__(
        self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"
    ):
        if not isinstance(types, (list, tuple)):
            types = [types]
        if shapes is None:  # TF's op requires the attribute
            raise TypeError(
                "Expected list for 'shapes' argument to 'priority_queue_v2' Op, not None."
            )
        shapes = [(), *_as_shape_list(shapes)]
        super().__init__(capacity, [np.int64, *types], shapes, names, shared_name, name)

    def _new_items(self) -> Any:
        return _ByPriority()

    def dequeue_up_to(self, n: int, name: str | None = None) -> Any:
        """As ``dequeue_many``: TF 2.21's ``PriorityQueue`` does not return a smaller
        final batch once closed; it raises ``OutOfRangeError`` (TF also drops the
        remaining elements then; here they stay)."""
        return self._dequeue_op(n, False, name or f"{self._name}_DequeueUpTo", "QueueDequeueUpToV2")


# Queue classes by name, for ``QueueBase.rebuild``.
_QUEUE_CLASSES: dict[str, type[QueueBase]] = {
    cls.__name__: cls for cls in (FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, PriorityQueue)
}
