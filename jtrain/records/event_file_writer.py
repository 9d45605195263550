"""Event files for TensorBoard (``tensorflow/python/summary/writer/event_file_writer.py``).

An event file is a TFRecord file of serialized ``Event`` protos named
``events.out.tfevents.<10-digit seconds>.<hostname><suffix>``, whose first event holds
``file_version: "brain.Event:2"`` (wall time: the whole seconds of the name), as TF's
``EventsWriter`` writes it. Events are written by a background thread from a bounded
queue; :meth:`EventFileWriter.close` writes every queued event before it returns, and
writers left open are closed at interpreter exit (TF's daemon thread drops their
queued events).
"""

from __future__ import annotations

import atexit
import os
import queue
import socket
import threading
import time
import weakref
from typing import Any

from jtrain import errors
from jtrain._threads import mark_idle_waiter
from jtrain.records.tf_record import TFRecordWriter

__all__ = ["EventFileWriter", "FILE_VERSION"]

FILE_VERSION = "brain.Event:2"
_WRITER_NAME = "jtrain.records.event_file_writer"
_SENTINEL = object()
# Writers not closed yet: closed at interpreter exit, so queued events are never lost.
_OPEN: weakref.WeakSet[EventFileWriter] = weakref.WeakSet()


@atexit.register
def _close_open_writers() -> None:
    for writer in list(_OPEN):
        writer.close()


class EventFileWriter:
    """Writes ``Event`` protos to a new event file in ``logdir`` (TF's ``EventFileWriter``).

    The file is created, with its ``file_version`` event, when the writer is made.
    :meth:`add_event` queues an event (blocking while ``max_queue`` events wait); a
    background thread writes them in order and flushes the file at most every
    ``flush_secs`` seconds (and after the first event, as TF).

    Args:
      logdir: the folder of the event file (created if missing).
      max_queue: events that may wait to be written before :meth:`add_event` blocks
        (TF's default 10).
      flush_secs: how often, in seconds, the thread flushes the file (TF's default 120).
      filename_suffix: appended to the file name (TF's default: none).

    Raises:
      ValueError: if ``max_queue`` is negative or ``flush_secs`` is negative.
      jtrain.errors.PermissionDeniedError: if ``logdir`` may not be written.

    .. note:: As TF's, the file is written in place (TensorBoard follows it while it
       grows); a crashed writer leaves every event flushed so far readable. Where TF
       would truncate a file of the same name (two writers, or :meth:`reopen`, within
       one second), jtrain appends ``.1``, ``.2``... to the host name instead.
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str],
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str | None = None,
    ):
        if max_queue < 0:
            raise ValueError(f"max_queue must be >= 0, got {max_queue}")
        if flush_secs < 0:
            raise ValueError(f"flush_secs must be >= 0, got {flush_secs}")
        self._logdir = os.fspath(logdir)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._closed = True
        self._open()

    def _open(self) -> None:
        try:
            os.makedirs(self._logdir, exist_ok=True)
        except OSError as exc:
            raise errors.from_os_error(exc, self._logdir) from exc
        seconds = int(time.time())
        host = socket.gethostname()
        self._path = os.path.join(self._logdir, f"events.out.tfevents.{seconds:010d}.{host}")
        # Never truncate an earlier file of the same second (a second writer, reopen()).
        n = 0
        while os.path.exists(self._path + self._suffix):
            n += 1
            self._path = os.path.join(
                self._logdir, f"events.out.tfevents.{seconds:010d}.{host}.{n}"
            )
        self._path += self._suffix
        self._records = TFRecordWriter(self._path)
        from jtrain.protos import event_pb2

        first = event_pb2.Event(wall_time=float(seconds), file_version=FILE_VERSION)
        first.source_metadata.writer = _WRITER_NAME
        self._records.write(first.SerializeToString())
        self._records.flush()
        self._queue: queue.Queue = queue.Queue(self._max_queue)
        self._error: BaseException | None = None
        self._closed = False
        self._worker = mark_idle_waiter(
            threading.Thread(target=self._run, name=f"EventFileWriter({self._path})", daemon=True)
        )
        self._worker.start()
        _OPEN.add(self)

    def _run(self) -> None:
        next_flush = 0.0  # the first event is flushed at once
        while True:
            item = self._queue.get()
            try:
                if item is _SENTINEL:
                    return
                if self._error is not None:
                    continue  # keep draining so that put() and join() never hang
                try:
                    with self._lock:
                        self._records.write(item)
                        now = time.time()
                        if now > next_flush:
                            self._records.flush()
                            next_flush = now + self._flush_secs
                except BaseException as exc:  # reported by flush() and close()
                    self._error = exc
            finally:
                self._queue.task_done()

    def get_logdir(self) -> str:
        """The folder of the event file."""
        return self._logdir

    def get_filename(self) -> str:
        """The path of the current event file."""
        return self._path

    def add_event(self, event: Any) -> None:
        """Queues an ``Event`` (or its serialized bytes); ignored after :meth:`close`."""
        if self._closed:
            return
        if not isinstance(event, bytes | bytearray):
            event = event.SerializeToString()
        self._queue.put(bytes(event))

    def _raise_error(self) -> None:
        if self._error is not None:
            exc, self._error = self._error, None
            if isinstance(exc, errors.OpError):
                raise type(exc)(
                    None, None, f"Failed to write events to {self._path}: {exc.message}"
                ) from exc
            raise errors.UnknownError(
                None, None, f"Failed to write events to {self._path}: {exc}"
            ) from exc

    def flush(self) -> None:
        """Writes every queued event and flushes the file."""
        if self._closed:
            return
        self._queue.join()
        self._raise_error()
        with self._lock:
            self._records.flush()

    def close(self) -> None:
        """Writes every queued event, then closes the file (idempotent)."""
        if self._closed:
            return
        self._closed = True
        _OPEN.discard(self)
        self._queue.put(_SENTINEL)
        self._worker.join()
        self._records.close()
        self._raise_error()

    def reopen(self) -> None:
        """After :meth:`close`, starts writing to a new event file in the same folder."""
        if self._closed:
            self._open()

    def __enter__(self) -> EventFileWriter:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
