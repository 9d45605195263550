"""The one owner of a session's variable buffers.

A ``Session`` keeps every variable's current value in a ``VariableStore``. Steps,
savers, checkpoints, input pipelines, ``Variable.load`` and supervisors go through
its public methods only, under its lock:

- a step reads the buffers it needs, runs (donating the buffers it writes) and
  ``commit``\\ s the new ones while holding ``locked()``, so no other thread ever
  sees a donated (deleted) buffer;
- ``snapshot`` takes a consistent set of values (all from one step) under the lock
  and moves them to the host after releasing it, so a save writes its files while
  training goes on. On a CPU device nothing is copied: the snapshot's arrays are the
  buffers themselves, lent to it until it drops them, and a step that would donate a
  lent buffer meanwhile donates a copy of it instead (``donatable``);
- ``write`` sets values directly (``Variable.load``, restoring a checkpoint).

Every change bumps ``version``; a change to the set of initialized variables also
bumps ``init_version`` (a session plans its programs per set).

The store also keeps exact host copies of scalar integer variables (the global
step) for the session; any write the session cannot follow drops the copy.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

import jax
import numpy as np

from adapters.v1.framework import _x64
from jtrain import errors

__all__ = ["VariableStore", "Snapshot"]


class Snapshot(NamedTuple):
    """Host copies of variable values, all from the same ``version`` of the store."""

    version: int
    values: dict[Any, np.ndarray]


class VariableStore:
    """Variable values of one session, a lock, and version counters."""

    def __init__(self) -> None:
        self._values: dict[Any, Any] = {}
        self._host_copies: dict[Any, np.ndarray] = {}
        # Buffers lent to snapshots (on a CPU device, their host arrays are the buffers):
        # var -> [the buffer, how many live snapshot arrays view it]. Loans end in
        # finalizers, which may run in any thread at any allocation: they only queue
        # (var, buffer) in _returned, settled under the lock (no lock taken in them).
        self._lent: dict[Any, list] = {}
        self._returned: collections.deque = collections.deque()
        self._version = 0
        self._init_version = 0
        # Reentrant: a step's host ops (``limit_epochs``) use the store while the
        # session's ``run`` is on the stack of the same thread.
        self._lock = threading.RLock()

    # -- locking and versions -------------------------------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[VariableStore]:
        """Holds the store's lock: the values read inside stay valid until it exits."""
        with self._lock:
            yield self

    @property
    def version(self) -> int:
        """Counts changes of any value (steps that write variables, direct writes)."""
        return self._version

    @property
    def init_version(self) -> int:
        """Counts changes of the set of initialized variables."""
        return self._init_version

    # -- queries -----------------------------------------------------------------------
    def is_initialized(self, var: Any) -> bool:
        return var in self._values

    def initialized(self) -> frozenset:
        """The variables that have a value."""
        with self._lock:
            return frozenset(self._values)

    def uninitialized(self, variables: Iterable[Any]) -> list[Any]:
        """Those of ``variables`` that have no value, in order."""
        with self._lock:
            return [v for v in variables if v not in self._values]

    # -- values ------------------------------------------------------------------------
    def read(self, var: Any) -> Any:
        """The current value of ``var`` (a device array).

        The buffer may be donated by the next step: use it inside ``locked()``, or
        take a ``snapshot``.

        Raises:
          FailedPreconditionError: ``var`` has no value (names it).
        """
        try:
            return self._values[var]
        except KeyError:
            raise errors.FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {var.op.name}"
            ) from None

    def buffers(self, variables: Iterable[Any]) -> list[Any]:
        """The current values of ``variables`` (for a step, inside ``locked()``).

        Raises:
          FailedPreconditionError: a variable has no value (names the first).
        """
        values = self._values
        try:
            return [values[v] for v in variables]
        except KeyError:
            return [self.read(v) for v in variables]  # raises, naming the variable

    def donatable(self, variables: Iterable[Any]) -> list[Any]:
        """The current values of ``variables`` for a step that donates them (inside
        ``locked()``): a buffer lent to a live snapshot is first replaced by a copy,
        which the step donates instead, so the snapshot's arrays stay intact.

        Raises:
          FailedPreconditionError: a variable has no value (names the first).
        """
        if self._lent:
            self._settle()
            for v in variables:
                entry = self._lent.get(v)
                if entry is not None and entry[0] is self._values.get(v):
                    self._values[v] = _copy(entry[0])
                    del self._lent[v]  # the lent buffer is no longer the variable's
        return self.buffers(variables)

    def write(self, var: Any, value: Any) -> None:
        """Sets ``var`` to ``value`` (converted to the variable's dtype, on device)."""
        self.write_all({var: value})

    def write_all(self, values: Mapping[Any, Any], converted: bool = False) -> None:
        """Sets several variables at once: no reader sees some of them set and not others.

        Args:
          values: variable -> value (converted to the variable's dtype, on device).
          converted: the values are already ``device_value(var, ...)`` results that
            nothing else holds (a restore converting as it reads); default False.
        """
        if not converted:
            values = {v: _to_device(v, value) for v, value in values.items()}
        with self._lock:
            self._store(values)
            for v in values:
                self._host_copies.pop(v, None)

    def start(self, states: Iterable[Any]) -> None:
        """Gives hidden op state (a random op's generator) its first value if it has none.

        A state is an object with ``dtype``, ``shape``, ``op`` and ``_start_value()``;
        no collection holds it and savers never see it. Starting one does not change
        ``init_version``: only the plans that use a state need it, and a plan starts
        its states before it looks at what is initialized.
        """
        with self._lock:
            for state in states:
                if state not in self._values:
                    self._values[state] = _to_device(state, state._start_value())

    def commit(self, values: Mapping[Any, Any]) -> None:
        """Stores a step's new values (device arrays of the variables' dtypes).

        Host copies are the caller's to keep (``set_host_copy``); call inside
        ``locked()``, in the same hold as the ``buffers`` the step consumed.
        """
        with self._lock:
            self._store(values)

    def _store(self, values: Mapping[Any, Any]) -> None:
        new = False
        for v, value in values.items():
            new = new or v not in self._values
            self._values[v] = value
        if new:
            self._init_version += 1
        if values:
            self._version += 1
        if self._returned:
            self._settle()  # the ended loans' entries would keep replaced buffers alive

    def snapshot(self, variables: Iterable[Any] | None = None) -> Snapshot:
        """Host values of ``variables`` (all variables if None), all from one step.

        The buffers are taken under the lock and moved to the host after it is
        released, so steps go on meanwhile. A single-device CPU buffer is lent, not
        copied: its host array is the buffer itself (read-only), and until that array
        is dropped a step writing the variable donates a copy instead (``donatable``).
        Other buffers (other devices, sharded, strings) are copied under the lock.

        Raises:
          FailedPreconditionError: a variable has no value (names them).
        """
        with self._lock:
            wanted = list(self._values) if variables is None else list(variables)
            missing = [v for v in wanted if v not in self._values]
            if missing:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    f"Attempting to use uninitialized values: {[v.op.name for v in missing]}",
                )
            version = self._version
            taken = []  # (variable, buffer, lent)
            for v in wanted:
                value = self._values[v]
                if _lendable(value):
                    self._lend(v, value)
                    taken.append((v, value, True))
                else:
                    taken.append((v, _copy(value), False))
        host = {}
        done = 0
        try:
            for v, value, lent in taken:
                host[v] = self._host_view(v, value) if lent else np.asarray(value)
                done += 1
        except BaseException:
            # The failed one gave its loan back; so do those not reached.
            for v, value, lent in taken[done + 1 :]:
                if lent:
                    self._give_back(v, value)
            raise
        return Snapshot(version, host)

    def _lend(self, var: Any, buffer: Any) -> None:
        """Counts one more loan of ``buffer`` (``var``'s value; inside the lock)."""
        self._settle()
        entry = self._lent.get(var)
        if entry is not None and entry[0] is buffer:
            entry[1] += 1
        else:
            self._lent[var] = [buffer, 1]

    def _give_back(self, var: Any, buffer: Any) -> None:
        """Ends one loan of ``buffer``: any thread, without the lock (a finalizer)."""
        self._returned.append((var, buffer))

    def _settle(self) -> None:
        """Applies the loans ended since the last call (inside the lock)."""
        returned = self._returned
        while returned:
            var, buffer = returned.popleft()
            entry = self._lent.get(var)
            if entry is not None and entry[0] is buffer:
                entry[1] -= 1
                if not entry[1]:
                    del self._lent[var]

    def _host_view(self, var: Any, buffer: Any) -> np.ndarray:
        """The host array of a lent buffer: the buffer itself where the device shares
        host memory (lent until the array is dropped), else a copy (given back now)."""
        try:
            host = np.asarray(buffer)  # on a CPU device: the buffer, read-only, not cached
            shared = host.size and host.ctypes.data == buffer.unsafe_buffer_pointer()
        except BaseException:
            self._give_back(var, buffer)
            raise
        if not shared:
            self._give_back(var, buffer)
            return host
        view = host.view()  # the snapshot's own object: the loan ends when it is dropped
        weakref.finalize(view, self._give_back, var, buffer).atexit = False
        return view

    # -- host copies of scalar integer variables ------------------------------------------
    def host_copy(self, var: Any) -> np.ndarray | None:
        """The exact host copy of ``var`` the session keeps, or None."""
        return self._host_copies.get(var)

    def set_host_copy(self, var: Any, value: np.ndarray | None) -> None:
        """Sets (or, with None, drops) the host copy of ``var``."""
        with self._lock:
            if value is None:
                self._host_copies.pop(var, None)
            else:
                self._host_copies[var] = value

    def has_host_copies(self) -> bool:
        return bool(self._host_copies)

    def clear(self) -> None:
        """Frees every value (the session closes)."""
        with self._lock:
            self._values.clear()
            self._host_copies.clear()
            self._lent.clear()  # lent arrays stay valid: no step can donate them now
            self._returned.clear()
            self._version += 1
            self._init_version += 1


def device_value(var: Any, value: Any) -> Any:
    """``value`` as the store keeps it for ``var`` (see ``write_all(converted=True)``).

    A NumPy array of the variable's dtype that the caller gives up (a restored
    tensor) goes through ``jax.device_put``, which on a CPU device takes a 64-byte
    aligned array without copying it (``jnp.asarray`` always copies).
    """
    if (
        type(value) is np.ndarray
        and value.dtype.kind not in "OSU"
        and value.dtype == np.dtype(var.dtype)
    ):
        with jax.enable_x64(True):
            return jax.device_put(value)
    return _to_device(var, value)


def _to_device(var: Any, value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.dtype.kind in "OSU":
        return value
    return _x64.to_device(value, var.dtype)  # exact: int64 stays int64 with x64 off


def _lendable(value: Any) -> bool:
    """A single-device CPU buffer, whose host array can be the buffer itself."""
    if not isinstance(value, jax.Array) or not value.is_fully_addressable:
        return False
    devices = value.devices()
    return len(devices) == 1 and next(iter(devices)).platform == "cpu"


def _copy(value: Any) -> Any:
    """A copy no later step can donate: a new device buffer (or a NumPy copy)."""
    if isinstance(value, jax.Array):
        with _x64.exact():  # a copy keeps a 64-bit dtype
            return value.copy()
    return np.array(value, copy=True)
