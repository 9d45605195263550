"""File operations of checkpoint writers and readers: durable, atomic, typed errors.

The one home of the small pieces every checkpoint file goes through: writing a
buffer fully, syncing a directory, replacing a file atomically, reading a small
file only when it is a regular file of bounded size. Every ``OSError`` leaves as
the TF error class of its ``errno`` (:func:`jtrain.errors.from_os_error`), naming
the file.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import secrets
import stat
from collections.abc import Iterator
from typing import Any

from jtrain import errors

__all__ = [
    "Writeback",
    "fsync_dir",
    "write_all",
    "atomic_write",
    "read_regular_file",
    "remove_quietly",
    "io",
]


@contextlib.contextmanager
def io(path: str) -> Iterator[None]:
    """Raises the TF error of an ``OSError`` in the block, naming ``path``."""
    try:
        yield
    except OSError as exc:
        raise errors.from_os_error(exc, path) from exc


def write_all(fd: int, buf: Any) -> None:
    """Writes all of ``buf`` (any buffer) to ``fd`` (``os.write`` may write less)."""
    view = memoryview(buf).cast("B") if not isinstance(buf, bytes) else memoryview(buf)
    while view:
        view = view[os.write(fd, view) :]


# Linux's sync_file_range(2) flag: start writing the range's dirty pages, don't wait.
_SYNC_FILE_RANGE_WRITE = 2


@functools.cache
def _sync_file_range() -> Any:
    """libc's ``sync_file_range`` (Linux), or None where there is none."""
    try:
        fn = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError, TypeError):  # TypeError: no CDLL(None) (Windows)
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


class Writeback:
    """Starts the disk writing a file's data while the file is still being written.

    A durable save writes its bytes into the page cache, then ``fsync`` waits for the
    disk to write them all: the two run one after the other. Told each time the
    file has grown by ``every`` bytes (default 8 MB), this asks the kernel to start
    writing the new range at once (Linux's ``sync_file_range`` with
    ``SYNC_FILE_RANGE_WRITE``: it does not wait, and promises nothing), so the disk
    works while the writer fills the cache and the final ``fsync`` finds little left.
    Durability still comes from that ``fsync`` alone. Where the call does not exist or
    fails (another system, a file system that refuses it), it does nothing.

    Args:
      fd: the file, written sequentially from ``start``.
      start: the offset the writer starts at (default 0).
      every: how many new bytes start a writeback (default 8 MB).
    """

    def __init__(self, fd: int, start: int = 0, every: int = 8 << 20):
        self._fd = fd
        self._started = start  # the end of the range whose writeback was started
        self._every = every
        self._call = _sync_file_range()

    def wrote(self, end: int) -> None:
        """The file now holds its data up to offset ``end``."""
        if self._call is None or end - self._started < self._every:
            return
        if self._call(self._fd, self._started, end - self._started, _SYNC_FILE_RANGE_WRITE):
            self._call = None  # refused here (e.g. ESPIPE, EINVAL): the fsync does it all
        self._started = end


def fsync_dir(path: str) -> None:
    """Makes the renames in directory ``path`` durable (best effort: some file
    systems refuse to sync a directory)."""
    try:
        fd = os.open(path or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_quietly(path: str) -> None:
    """Removes ``path`` if it exists (cleanup after a failure: errors are ignored)."""
    try:
        os.remove(path)
    except OSError:
        pass


def atomic_write(path: str, data: bytes) -> None:
    """Replaces ``path`` by ``data`` through a synced temporary file and a rename.

    A reader sees the old content or the new, never a mix. On failure the
    temporary file is removed and ``path`` is unchanged.

    Raises:
      OpError: the TF error of the failed operation (e.g. ``ResourceExhaustedError``
        on a full disk), naming the file.
    """
    tmp = f"{path}.tmp{secrets.token_hex(8)}"
    try:
        with io(tmp):
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        with io(path):
            os.replace(tmp, path)
    except BaseException:
        remove_quietly(tmp)
        raise
    fsync_dir(os.path.dirname(path))


def read_regular_file(path: str, max_bytes: int, what: str = "file") -> bytes | None:
    """The content of ``path`` if it is a regular file of at most ``max_bytes``.

    The file is opened without blocking (a FIFO does not wait for a writer) and
    checked with ``fstat`` before anything is read; a link is followed to what it
    names (a link to ``/dev/zero`` is refused, not read forever).

    Returns:
      The bytes, or None when ``path`` (or a directory on the way) does not exist.

    Raises:
      FailedPreconditionError: ``path`` is not a regular file (a FIFO, a device, a
        socket, a directory).
      ResourceExhaustedError: the file is larger than ``max_bytes``.
      OpError: the TF error of a failed read (e.g. ``PermissionDeniedError``).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise errors.from_os_error(exc, path) from exc
    try:
        with io(path):
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise errors.FailedPreconditionError(
                    None, None, f"{path}: the {what} is not a regular file; not read"
                )
            if st.st_size > max_bytes:
                raise errors.ResourceExhaustedError(
                    None,
                    None,
                    f"{path}: the {what} holds {st.st_size} bytes, more than the "
                    f"{max_bytes} a {what} may hold; not read",
                )
            chunks = []
            total = 0
            while True:  # bounded even if the file grows while read
                chunk = os.read(fd, max_bytes + 1 - total)
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
                if total > max_bytes:
                    raise errors.ResourceExhaustedError(
                        None, None, f"{path}: the {what} grew past {max_bytes} bytes; not read"
                    )
            return b"".join(chunks)
    finally:
        os.close(fd)
