"""TF1's readers (``tf.TFRecordReader``, ``tf.FixedLengthRecordReader``...): records from
files named by a queue of file names.

A reader is a host object: each ``Session`` has its own position (current work
unit, counts). ``read(queue)`` is a ``"pre"`` host operation returning the next
``(key, value)`` strings; when the current work unit (a file name) ends it
dequeues the next one from ``queue`` (blocking), and raises ``OutOfRangeError``
once that queue is closed and empty, as TF's readers do.

Keys are TF's: ``"file:offset"`` (``TFRecordReader``, byte offset of the record),
``"file:index"`` (``FixedLengthRecordReader``, record number from 0),
``"file:line"`` (``TextLineReader``, line number from 1, header lines counted),
``"file"`` (``WholeFileReader``) and the work unit itself (``IdentityReader``).
Files are opened through ``tf.gfile`` (local paths, other schemes via fsspec).
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.data_flow_ops import session_state
from adapters.v1.platform import gfile
from jtrain import errors

__all__ = [
    "ReaderBase",
    "TFRecordReader",
    "FixedLengthRecordReader",
    "TextLineReader",
    "WholeFileReader",
    "IdentityReader",
    "read_file",
    "write_file",
    "matching_files",
]

_STRING = np.dtype(object)


class _ReaderState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.work: bytes | None = None
        self.records: Iterator[tuple[bytes, bytes]] | None = None
        self.produced = 0
        self.completed = 0
        # A read error met after some records of a batched read: raised by the next read.
        self.error: errors.OpError | None = None


def _queue_of(queue: Any) -> Any:
    # A queue object or its ``queue_ref`` op.
    if hasattr(queue, "_buffer"):
        return queue
    owner = getattr(queue, "_jtrain_queue", None)
    if owner is None:
        raise TypeError(f"expected a queue, got {queue!r}")
    return owner


class ReaderBase:
    """Base of TF1's readers: ``read``, ``read_up_to``, counters and ``reset``."""

    def __init__(self, name: str):
        self._graph = ops.get_default_graph()
        self._reader_op = self._graph.create_op(type(self).__name__ + "V2", name, host="pre")
        self._name = self._reader_op.name

    @property
    def name(self) -> str:
        return self._name

    @property
    def reader_ref(self) -> ops.Operation:
        return self._reader_op

    @property
    def supports_serialize(self) -> bool:
        return False

    def _state(self, session: Any) -> _ReaderState:
        return session_state(session, self, _ReaderState)

    def _open(self, work: bytes) -> Iterator[tuple[bytes, bytes]]:
        """The ``(key, value)`` records of one work unit (a file name), lazily."""
        raise NotImplementedError

    def _next_records(
        self, session: Any, queue: Any, n: int, keep_error: bool = False
    ) -> tuple[list, list]:
        """Up to ``n`` records of one file (at least one), dequeuing file names as needed.

        With ``keep_error`` an error met after some records returns those records and
        is raised by the next call, as ``n`` reads of one record would see it.
        """
        state = self._state(session)
        with state.lock:
            if state.error is not None:
                error, state.error = state.error, None
                raise error
            while True:
                if state.records is None:
                    (name,) = queue._buffer(session).take(session, 1, False)[0]
                    state.work = bytes(np.asarray(name, dtype=object).item())
                    state.records = self._open(state.work)
                keys, values = [], []
                try:
                    for key, record in state.records:
                        keys.append(key)
                        values.append(record)
                        if len(values) == n:
                            break
                except errors.OpError as e:
                    state.records = None  # the work unit is dropped, not completed (TF)
                    if not (keep_error and values):
                        raise
                    state.error = e
                    state.produced += len(values)
                    return keys, values
                if len(values) < n:
                    state.records = None
                    state.completed += 1
                if values:
                    state.produced += len(values)
                    return keys, values

    def read(self, queue: Any, name: str | None = None) -> tuple[ops.Tensor, ops.Tensor]:
        """The next record: ``(key, value)`` string tensors (keys as the module says).

        Raises at run time ``OutOfRangeError`` when ``queue`` is closed and empty and
        the current file is exhausted.
        """
        queue = _queue_of(queue)
        reader = self

        def compute(session):
            keys, values = reader._next_records(session, queue, 1)
            return keys[0], values[0]  # string scalars are bytes, as TF fetches them

        op = self._graph.create_op(
            "ReaderReadV2",
            name or "ReaderReadV2",
            compute=compute,
            output_specs=[((), _STRING), ((), _STRING)],
            host="pre",
        )
        op._batch = lambda session, n: reader._next_records(session, queue, n, keep_error=True)
        return op.outputs[0], op.outputs[1]

    def read_up_to(
        self, queue: Any, num_records: int, name: str | None = None
    ) -> tuple[ops.Tensor, ops.Tensor]:
        """Up to ``num_records`` records of the current file: two ``[n]`` string vectors."""
        queue = _queue_of(queue)
        reader = self
        n = int(num_records)
        if n <= 0:
            raise ValueError(f"num_records must be positive, got {num_records}")

        def compute(session):
            keys, values = reader._next_records(session, queue, n)
            k = np.empty(len(keys), dtype=object)
            v = np.empty(len(values), dtype=object)
            k[:], v[:] = keys, values
            return k, v

        op = self._graph.create_op(
            "ReaderReadUpToV2",
            name or "ReaderReadUpToV2",
            compute=compute,
            output_specs=[((None,), _STRING), ((None,), _STRING)],
            host="pre",
        )
        return op.outputs[0], op.outputs[1]

    def _counter(self, field: str, name: str) -> ops.Tensor:
        reader = self
        return self._graph.create_op(
            name,
            name,
            compute=lambda session: (np.asarray(getattr(reader._state(session), field), np.int64),),
            output_specs=[((), np.dtype(np.int64))],
            host="pre",
        ).outputs[0]

    def num_records_produced(self, name: str | None = None) -> ops.Tensor:
        """Records this reader produced in the session (``int64`` scalar)."""
        return self._counter("produced", name or "ReaderNumRecordsProducedV2")

    def num_work_units_completed(self, name: str | None = None) -> ops.Tensor:
        """Files this reader finished in the session (``int64`` scalar)."""
        return self._counter("completed", name or "ReaderNumWorkUnitsCompletedV2")

    def reset(self, name: str | None = None) -> ops.Operation:
        """An op returning the reader to its initial state."""
        reader = self

        def compute(session):
            state = reader._state(session)
            with state.lock:
                state.__init__()
            return ()

        return self._graph.create_op(
            "ReaderResetV2", name or "ReaderResetV2", compute=compute, host="pre"
        )


class TFRecordReader(ReaderBase):
    """Reads the records of TFRecord files (``tf.compat.v1.TFRecordReader``).

    Args:
      name: the op name.
      options: a ``TFRecordOptions`` (or compression type name) for compressed files.
    """

    def __init__(self, name: str | None = None, options: Any = None):
        super().__init__(name or "TFRecordReader")
        self._options = options

    def _open(self, work: bytes) -> Iterator[tuple[bytes, bytes]]:
        from jtrain.records import tf_record_iterator

        offset = 0
        for record in tf_record_iterator(work.decode(), self._options):
            yield work + b":" + str(offset).encode(), record
            offset += len(record) + 16  # length (8), its crc (4), data, data crc (4)


def _decompressed(f: Any, encoding: str) -> Iterator[bytes]:
    """The chunks of file ``f``, decompressed per ``encoding`` ("", "ZLIB", "GZIP")."""
    inflate = None
    if encoding:
        inflate = zlib.decompressobj(zlib.MAX_WBITS | (16 if encoding == "GZIP" else 0))
    while chunk := f.read(1 << 20):
        yield inflate.decompress(chunk) if inflate else chunk
    if inflate:
        yield inflate.flush()


def _nonnegative(name: str, value: Any) -> int:
    value = 0 if value is None else int(value)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


class FixedLengthRecordReader(ReaderBase):
    """Fixed-size records of binary files (``tf.compat.v1.FixedLengthRecordReader``).

    Each file is ``header_bytes``, then records of ``record_bytes`` starting every
    ``hop_bytes`` (``record_bytes`` when 0 or None), then ``footer_bytes``; bytes
    that do not fill a whole record before the footer are skipped, as TF does. A
    file shorter than its header fails that read with ``OutOfRangeError`` and is
    dropped (not counted as completed), as in TF.

    Args:
      record_bytes: the size of each record.
      header_bytes: bytes skipped at the start of each file (default 0).
      footer_bytes: bytes ignored at the end of each file (default 0).
      hop_bytes: distance between record starts (default ``record_bytes``).
      name: the op name.
      encoding: ``"ZLIB"`` or ``"GZIP"`` for compressed files (default none).

    Raises:
      ValueError: a size is negative or ``record_bytes`` is not positive.
    """

    def __init__(
        self,
        record_bytes: int,
        header_bytes: int | None = None,
        footer_bytes: int | None = None,
        hop_bytes: int | None = None,
        name: str | None = None,
        encoding: str | None = None,
    ):
        self._record_bytes = _nonnegative("record_bytes", record_bytes)
        if self._record_bytes == 0:
            raise ValueError("record_bytes must be > 0")
        self._header_bytes = _nonnegative("header_bytes", header_bytes)
        self._footer_bytes = _nonnegative("footer_bytes", footer_bytes)
        self._hop_bytes = _nonnegative("hop_bytes", hop_bytes) or self._record_bytes
        self._encoding = (encoding or "").upper()
        if self._encoding not in ("", "ZLIB", "GZIP"):
            raise ValueError(f"encoding must be None, 'ZLIB' or 'GZIP', got {encoding!r}")
        super().__init__(name or "FixedLengthRecordReader")

    def _open(self, work: bytes) -> Iterator[tuple[bytes, bytes]]:
        size, hop = self._record_bytes, self._hop_bytes
        # A record is one once the bytes read after it could hold the whole footer.
        need = size + self._footer_bytes
        with gfile.GFile(work.decode(), "rb") as f:
            buf, start, skip, index = bytearray(), 0, self._header_bytes, 0
            for chunk in _decompressed(f, self._encoding):
                buf += chunk
                if skip:
                    dropped = min(skip, len(buf))
                    del buf[:dropped]
                    skip -= dropped
                    if skip:
                        continue
                while len(buf) - start >= need:
                    yield work + b":" + str(index).encode(), bytes(buf[start : start + size])
                    start, index = start + hop, index + 1
                if start > (1 << 20):
                    cut = min(start, len(buf))
                    del buf[:cut]
                    start -= cut
        if skip:  # TF fails the read of a file shorter than its header
            raise errors.OutOfRangeError(
                None, None, f"reached end of file {work.decode()!r} within its header"
            )


class TextLineReader(ReaderBase):
    """The lines of text files, without their newline (``tf.compat.v1.TextLineReader``).

    A line ends at ``\n``; a ``\r`` before it is dropped too; a last line without a
    newline is a record. Keys are ``"file:N"`` with N the 1-based line number.

    Args:
      skip_header_lines: lines skipped at the start of each file (default 0).
      name: the op name.
    """

    def __init__(self, skip_header_lines: int | None = None, name: str | None = None):
        self._skip = _nonnegative("skip_header_lines", skip_header_lines)
        super().__init__(name or "TextLineReader")

    def _open(self, work: bytes) -> Iterator[tuple[bytes, bytes]]:
        with gfile.GFile(work.decode(), "rb") as f:
            for number, line in enumerate(f, start=1):
                if number <= self._skip:
                    continue
                if line.endswith(b"\n"):
                    line = line[:-1]
                if line.endswith(b"\r"):
                    line = line[:-1]
                yield work + b":" + str(number).encode(), line


class WholeFileReader(ReaderBase):
    """Each file as one record: key the file name, value its contents
    (``tf.compat.v1.WholeFileReader``).

    Args:
      name: the op name.
    """

    def __init__(self, name: str | None = None):
        super().__init__(name or "WholeFileReader")

    def _open(self, work: bytes) -> Iterator[tuple[bytes, bytes]]:
        with gfile.GFile(work.decode(), "rb") as f:
            contents = f.read()
        yield work, contents


class IdentityReader(ReaderBase):
    """Each work unit (queue string) as one record, as both key and value
    (``tf.compat.v1.IdentityReader``).

    Args:
      name: the op name.
    """

    def __init__(self, name: str | None = None):
        super().__init__(name or "IdentityReader")

    def _open(self, work: bytes) -> Iterator[tuple[bytes, bytes]]:
        yield work, work


def read_file(filename: Any, name: str | None = None) -> ops.Tensor:
    """The entire contents of the file ``filename`` (``tf.io.read_file``): a string scalar.

    Runs as a host operation at each ``Session.run``; the file is opened through
    ``tf.gfile`` (local paths, other schemes via fsspec).

    Raises:
      NotFoundError (at run time): the file does not exist (names it).
    """
    from adapters.v1.ops.data_flow_ops import host_inputs, placement

    (tensor,) = host_inputs([filename])

    def compute(session, value):
        path = np.asarray(value, dtype=object).item()
        path = path.decode() if isinstance(path, bytes) else str(path)
        with gfile.GFile(path, "rb") as f:
            return (f.read(),)

    return (
        ops.get_default_graph()
        .create_op(
            "ReadFile",
            name or "ReadFile",
            inputs=[tensor],
            compute=compute,
            output_specs=[((), _STRING)],
            host=placement([tensor]),
        )
        .outputs[0]
    )


def _check_rank(t: ops.Tensor, rank: int, how: str, name: str, op_type: str, inputs: list) -> None:
    """TF's shape-function error for an input of a known rank above ``rank``."""
    if t._shape is None or len(t._shape) <= rank:
        return
    shapes = ", ".join(
        "?"
        if x._shape is None
        else "[" + ",".join("?" if d is None else str(d) for d in x._shape) + "]"
        for x in inputs
    )
    raise ValueError(
        f"Shape must be {how} {rank} but is rank {len(t._shape)} for "
        f"'{{{{node {name}}}}} = {op_type}[]({', '.join(x.op.name for x in inputs)})' with "
        f"input shapes: {shapes}."
    )


def _scalar_path(value: Any, what: str) -> str:
    arr = np.asarray(value, dtype=object)
    if arr.shape != ():
        dims = ",".join(map(str, arr.shape))
        raise errors.InvalidArgumentError(
            None, None, f"{what} tensor must be scalar, but had shape: [{dims}]"
        )
    item = arr.item()
    return item.decode() if isinstance(item, bytes) else str(item)


def write_file(filename: Any, contents: Any, name: str | None = None) -> ops.Operation:
    """``tf.io.write_file``: writes ``contents`` to the file ``filename`` when run.

    Missing parent directories are created, as TF does. A local file appears only
    complete: the bytes go to a temporary file in the same directory, renamed over
    ``filename`` (other file systems: through ``tf.gfile``).

    Args:
      filename: a string scalar, the path.
      contents: a string scalar, the bytes to write.
      name: the operation's name (default ``"WriteFile"``).

    Returns:
      The ``WriteFile`` operation (``sess.run`` of it returns ``None``).

    Raises:
      TypeError: a non-string input.
      InvalidArgumentError (at run time): ``filename`` or ``contents`` not a scalar.
      FailedPreconditionError, PermissionDeniedError (at run time): TF's file errors.
    """
    from adapters.v1.ops.data_flow_ops import placement
    from adapters.v1.ops.string_ops import _string_input

    name_t = _string_input(filename, "filename", "WriteFile")
    data_t = _string_input(contents, "contents", "WriteFile")
    for t in (name_t, data_t):
        _check_rank(t, 0, "rank", name or "WriteFile", "WriteFile", [name_t, data_t])

    def compute(session: Any, path_value: Any, data_value: Any) -> tuple[Any, ...]:
        path = _scalar_path(path_value, "Input filename")
        data = np.asarray(data_value, dtype=object)
        if data.shape != ():
            dims = ",".join(map(str, data.shape))
            raise errors.InvalidArgumentError(
                None, None, f"Contents tensor must be scalar, but had shape: [{dims}]"
            )
        item = data.item()
        _write_atomically(path, item.encode() if isinstance(item, str) else bytes(item))
        return ()

    return ops.get_default_graph().create_op(
        "WriteFile",
        name or "WriteFile",
        inputs=[name_t, data_t],
        compute=compute,
        output_specs=[],
        host=placement([name_t, data_t]),
    )


def _write_atomically(path: str, data: bytes) -> None:
    import os
    import tempfile

    from adapters.v1.platform.gfile import _fsspec, _translated

    parent = os.path.dirname(path)
    if parent and not gfile.Exists(parent):
        gfile.MakeDirs(parent)
    if _fsspec(path) is not None:
        with gfile.GFile(path, "wb") as f:
            f.write(data)
        return
    local = path[len("file://") :] if path.startswith("file://") else path
    with _translated(path):
        fd, tmp = tempfile.mkstemp(
            prefix=f".{os.path.basename(local)}.", suffix=".tmp", dir=os.path.dirname(local) or "."
        )
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, local)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def matching_files(pattern: Any, name: str | None = None) -> ops.Tensor:
    """``tf.io.matching_files``: the files matching a glob pattern (or patterns), sorted.

    ``*``, ``?`` and ``[...]`` match within one path component (``**`` is ``*``); a
    pattern matching nothing gives an empty vector. The names of all patterns are
    sorted together, duplicates kept.

    Args:
      pattern: a string scalar or vector of patterns.
      name: the operation's name (default ``"MatchingFiles"``).

    Returns:
      A ``tf.string`` vector of unknown length.

    Raises:
      TypeError: a non-string pattern.
      InvalidArgumentError (at run time): a pattern of rank above 1.

    .. note:: Local names starting with ``.`` match ``*`` as in TF (Python's ``glob``
       skips them unless asked); other file systems match through ``tf.gfile.Glob``.
    """
    from adapters.v1.ops.data_flow_ops import placement
    from adapters.v1.ops.string_ops import _string_input

    t = _string_input(pattern, "pattern", "MatchingFiles")
    _check_rank(t, 1, "at most rank", name or "MatchingFiles", "MatchingFiles", [t])

    def compute(session: Any, value: Any) -> tuple[Any, ...]:
        arr = np.asarray(value, dtype=object)
        if arr.ndim > 1:
            dims = ",".join(map(str, arr.shape))
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Input patterns tensor must be scalar or vector, but had shape: [{dims}]",
            )
        found: list[str] = []
        for p in arr.reshape(-1).tolist():
            found.extend(_glob(p.decode() if isinstance(p, bytes) else str(p)))
        out = np.empty(len(found), dtype=object)
        out[:] = [f.encode() for f in sorted(found)]
        return (out,)

    op = ops.get_default_graph().create_op(
        "MatchingFiles",
        name or "MatchingFiles",
        inputs=[t],
        compute=compute,
        output_specs=[((None,), _STRING)],
        host=placement([t]),
    )
    return op.outputs[0]


def _glob(pattern: str) -> list[str]:
    """TF's ``GetMatchingPaths`` of one pattern (unsorted)."""
    import glob

    from adapters.v1.platform.gfile import _fsspec

    if _fsspec(pattern) is not None:
        return gfile.Glob(pattern)
    if pattern.startswith("file://"):
        return ["file://" + p for p in glob.glob(pattern[len("file://") :], include_hidden=True)]
    return glob.glob(pattern, include_hidden=True)
