"""``tf.gfile`` / ``tf.io.gfile``: TF's file API over local paths and fsspec file systems.

Local paths (and ``file://``) use the operating system directly. A path with
another scheme (``gs://``, ``s3://``, ``memory://``...) goes through ``fsspec``
when it is installed (with the scheme's backend, e.g. ``gcsfs`` for ``gs://``);
without it such a path raises TF's ``UnimplementedError`` naming the scheme.

Errors are TF's classes with TF's messages, naming the path:
``NotFoundError("<path>; No such file or directory")``, ``AlreadyExistsError``,
``FailedPreconditionError("<path>; Is a directory")``, ``PermissionDeniedError``.
Both spellings are here: TF1's CamelCase (``Exists``, ``MakeDirs``, ``Walk``...)
and TF2's snake_case (``exists``, ``makedirs``, ``walk``...).

Writes are TF's: ``GFile(path, "w")`` writes the named file itself as it goes;
``Copy`` writes a temporary file next to the destination and renames it, so the
copy appears whole.
"""

from __future__ import annotations

import contextlib
import errno
import glob as _glob
import io
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from adapters.v1._missing import missing_name_getattr
from jtrain import errors

__all__ = [
    "GFile",
    "FastGFile",
    "Open",
    "Copy",
    "DeleteRecursively",
    "Exists",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "MkDir",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
    "FileStatistics",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]

_MODES = ("r", "w", "a", "r+", "w+", "a+")


# -- file systems -------------------------------------------------------------------
def _scheme(path: str) -> str:
    head, sep, _ = path.partition("://")
    return head if sep and "/" not in head else ""


def _fsspec(path: str) -> tuple[Any, str] | None:
    """``(fsspec file system, path in it)`` for a non-local path, or None for a local one."""
    scheme = _scheme(path)
    if scheme in ("", "file"):
        return None
    try:
        import fsspec
    except ImportError:
        raise errors.UnimplementedError(
            None,
            None,
            f"File system scheme '{scheme}' not implemented (file: '{path}'): "
            "install fsspec (and its backend for the scheme, e.g. gcsfs for gs://)",
        ) from None
    try:
        return fsspec.core.url_to_fs(path)
    except (ImportError, ValueError) as e:
        raise errors.UnimplementedError(
            None, None, f"File system scheme '{scheme}' not implemented (file: '{path}'): {e}"
        ) from None


def _local(path: str) -> str:
    return path[len("file://") :] if path.startswith("file://") else path


def _as_str(path: Any) -> str:
    path = os.fspath(path)
    return path.decode() if isinstance(path, bytes) else path


@contextlib.contextmanager
def _translated(path: str) -> Iterator[None]:
    """Re-raises ``OSError`` as TF's error class, with TF's message naming ``path``."""
    try:
        yield
    except errors.OpError:
        raise
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except FileExistsError:
        raise errors.AlreadyExistsError(None, None, f"{path}; File exists") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except NotADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Not a directory") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None
    except OSError as e:
        if e.errno == errno.ENOTEMPTY:
            raise errors.FailedPreconditionError(
                None, None, f"{path}; Directory not empty"
            ) from None
        raise errors.UnknownError(None, None, f"{path}; {e.strerror or e}") from None


# -- GFile --------------------------------------------------------------------------
class GFile:
    """A file, opened on first use (``tf.io.gfile.GFile(name, mode='r')``).

    Args:
      name: the path.
      mode: ``"r"``, ``"w"``, ``"a"``, ``"r+"``, ``"w+"`` or ``"a+"``, with ``"b"``
        for bytes (reads return ``str`` otherwise, decoded as UTF-8).

    Raises:
      InvalidArgumentError: another mode (at the first use, as TF).
      NotFoundError: at the first read or write, when the file (or its directory)
        does not exist.
    """

    def __init__(self, name: Any, mode: str = "r"):
        self._name = _as_str(name)
        self._mode = mode
        self._binary = "b" in mode
        self._file: Any = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def mode(self) -> str:
        return self._mode

    def _f(self) -> Any:
        if self._file is None:
            base = self._mode.replace("b", "")
            if base not in _MODES:
                raise errors.InvalidArgumentError(
                    None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"
                )
            with _translated(self._name):
                remote = _fsspec(self._name)
                if remote is None:
                    raw = open(_local(self._name), base + "b")
                else:
                    fs, path = remote
                    raw = fs.open(path, base + "b")
            self._file = (
                raw if self._binary else io.TextIOWrapper(raw, encoding="utf-8", newline="")
            )
        return self._file

    def size(self) -> int:
        """The file's length in bytes."""
        return Stat(self._name).length

    def read(self, n: int = -1) -> bytes | str:
        """Up to ``n`` bytes (characters in text mode) from the position; all with -1."""
        with _translated(self._name):
            return self._f().read(n)

    def readline(self) -> bytes | str:
        """The next line, with its newline."""
        with _translated(self._name):
            return self._f().readline()

    def readlines(self) -> list:
        """All remaining lines."""
        with _translated(self._name):
            return self._f().readlines()

    def write(self, file_content: bytes | str) -> None:
        """Writes ``file_content`` (``str`` is written as UTF-8)."""
        f = self._f()
        if self._binary and isinstance(file_content, str):
            file_content = file_content.encode()
        elif not self._binary and isinstance(file_content, (bytes, bytearray)):
            file_content = bytes(file_content).decode()
        with _translated(self._name):
            f.write(file_content)

    def tell(self) -> int:
        """The current position."""
        return self._f().tell()

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None):
        """Moves to ``offset`` from ``whence`` (0 start, 1 current, 2 end); ``position`` is
        TF's deprecated name of ``offset``."""
        if position is not None:
            offset = position
        f = self._f()
        if not self._binary and (whence != 0 or offset):
            f.flush()
            raw = f.buffer
            raw.seek(offset or 0, whence)
            f.seek(raw.tell())
            return None
        f.seek(offset or 0, whence)
        return None

    def seekable(self) -> bool:
        return True

    def flush(self) -> None:
        if self._file is not None:
            with _translated(self._name):
                self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            with _translated(self._name):
                self._file.close()
            self._file = None

    def __iter__(self) -> GFile:
        return self

    def __next__(self) -> bytes | str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


Open = GFile


class FastGFile(GFile):
    """``tf.gfile.FastGFile``: TF1's deprecated alias of ``GFile``."""


# -- stat -----------------------------------------------------------------------------
class FileStatistics:
    """``Stat``'s result: ``length`` (bytes), ``mtime_nsec`` and ``is_directory``."""

    def __init__(self, length: int = 0, mtime_nsec: int = 0, is_directory: bool = False):
        self.length = int(length)
        self.mtime_nsec = int(mtime_nsec)
        self.is_directory = bool(is_directory)

    def __repr__(self) -> str:
        return (
            f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
            f"is_directory={self.is_directory})"
        )


def Stat(filename: Any) -> FileStatistics:
    """The length, modification time and kind of ``filename``.

    ``mtime_nsec`` has whole-second resolution for local files, as TF's.

    Raises:
      NotFoundError: ``filename`` does not exist.
    """
    path = _as_str(filename)
    with _translated(path):
        remote = _fsspec(path)
        if remote is None:
            st = os.stat(_local(path))
            return FileStatistics(st.st_size, int(st.st_mtime) * 10**9, os.path.isdir(_local(path)))
        fs, p = remote
        info = fs.info(p)
        mtime = fs.modified(p).timestamp() if info.get("type") != "directory" else 0
        return FileStatistics(
            info.get("size") or 0, int(mtime) * 10**9, info["type"] == "directory"
        )


# -- queries --------------------------------------------------------------------------
def Exists(filename: Any) -> bool:
    """Whether ``filename`` (a file or directory) exists."""
    path = _as_str(filename)
    remote = _fsspec(path)
    if remote is None:
        return os.path.exists(_local(path))
    fs, p = remote
    return bool(fs.exists(p))


def IsDirectory(dirname: Any) -> bool:
    """Whether ``dirname`` is a directory (False when it does not exist)."""
    path = _as_str(dirname)
    remote = _fsspec(path)
    if remote is None:
        return os.path.isdir(_local(path))
    fs, p = remote
    return bool(fs.isdir(p))


def ListDirectory(dirname: Any) -> list[str]:
    """The names of the entries of ``dirname`` (not paths; no ``.`` or ``..``).

    Raises:
      NotFoundError: ``dirname`` is not a directory.
    """
    path = _as_str(dirname)
    if not IsDirectory(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    with _translated(path):
        remote = _fsspec(path)
        if remote is None:
            return os.listdir(_local(path))
        fs, p = remote
        return [os.path.basename(c.rstrip("/")) for c in fs.ls(p, detail=False)]


def Glob(filename: Any) -> list[str]:
    """The paths matching the pattern(s) ``filename`` (``*``, ``?``, ``[...]``), sorted.

    Args:
      filename: a pattern or a list of patterns.
    """
    if isinstance(filename, (list, tuple)):
        return [p for pattern in filename for p in Glob(pattern)]
    pattern = _as_str(filename)
    with _translated(pattern):
        remote = _fsspec(pattern)
        if remote is None:
            prefix = "file://" if pattern.startswith("file://") else ""
            # TF's glob matches names starting with a dot, as Python's does not by default.
            return sorted(prefix + p for p in _glob.glob(_local(pattern), include_hidden=True))
        fs, p = remote
        return sorted(fs.unstrip_protocol(m) for m in fs.glob(p))


def Walk(top: Any, in_order: bool = True) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(dirname, subdirectories, files)`` for ``top`` and every directory under it.

    Args:
      top: the directory to start from; nothing is yielded when it does not exist.
      in_order: yield a directory before its subdirectories (False: after).
    """
    yield from walk(top, topdown=in_order)


def walk(
    top: Any, topdown: bool = True, onerror: Callable[[Exception], Any] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``tf.io.gfile.walk``: as ``Walk``; ``onerror`` receives a listing error."""
    top = _as_str(top)
    try:
        children = ListDirectory(top)
    except errors.NotFoundError as e:
        if onerror is not None:
            onerror(e)
        return
    subdirs, files = [], []
    for name in children:
        (subdirs if IsDirectory(join(top, name)) else files).append(name)
    if topdown:
        yield top, subdirs, files
    for name in subdirs:
        yield from walk(join(top, name), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


# -- changes --------------------------------------------------------------------------
def MkDir(dirname: Any) -> None:
    """Creates the directory ``dirname`` (its parent must exist); an existing one is fine.

    Raises:
      NotFoundError: the parent does not exist.
    """
    path = _as_str(dirname)
    with _translated(path):
        remote = _fsspec(path)
        if remote is None:
            with contextlib.suppress(FileExistsError):
                os.mkdir(_local(path))
            if not os.path.isdir(_local(path)):
                raise errors.AlreadyExistsError(None, None, f"{path}; File exists")
            return
        fs, p = remote
        fs.mkdir(p, create_parents=False)


def MakeDirs(dirname: Any) -> None:
    """Creates ``dirname`` and any missing parents; an existing directory is fine.

    Raises:
      FailedPreconditionError: a component of the path is a file (names it).
    """
    path = _as_str(dirname)
    remote = _fsspec(path)
    if remote is not None:
        fs, p = remote
        with _translated(path):
            fs.makedirs(p, exist_ok=True)
        return
    local = _local(path)
    # TF names the first component that exists and is not a directory.
    parts = local.rstrip("/").split("/")
    for i in range(1, len(parts) + 1):
        prefix = "/".join(parts[:i])
        if prefix and os.path.exists(prefix) and not os.path.isdir(prefix):
            raise errors.FailedPreconditionError(None, None, f"{prefix} is not a directory")
    with _translated(path):
        os.makedirs(local, exist_ok=True)


def Remove(filename: Any) -> None:
    """Deletes the file ``filename``.

    Raises:
      NotFoundError: it does not exist. FailedPreconditionError: it is a directory.
    """
    path = _as_str(filename)
    with _translated(path):
        remote = _fsspec(path)
        if remote is None:
            if os.path.isdir(_local(path)):
                raise IsADirectoryError(path)
            os.remove(_local(path))
            return
        fs, p = remote
        if fs.isdir(p):
            raise IsADirectoryError(path)
        fs.rm_file(p)


def DeleteRecursively(dirname: Any) -> None:
    """Deletes ``dirname`` and everything under it (a file is deleted too).

    Raises:
      NotFoundError: ``dirname`` does not exist.
    """
    path = _as_str(dirname)
    if not Exists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    with _translated(path):
        remote = _fsspec(path)
        if remote is None:
            if os.path.isdir(_local(path)) and not os.path.islink(_local(path)):
                shutil.rmtree(_local(path))
            else:
                os.remove(_local(path))
            return
        fs, p = remote
        fs.rm(p, recursive=True)


def _check_target(newpath: str, overwrite: bool) -> None:
    if Exists(newpath):
        if not overwrite:
            raise errors.AlreadyExistsError(None, None, "file already exists")
        if IsDirectory(newpath):
            raise errors.FailedPreconditionError(None, None, f"{newpath}; Is a directory")


def Copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:
    """Copies the file ``oldpath`` to ``newpath`` (which appears whole, via a rename).

    Raises:
      NotFoundError: ``oldpath`` does not exist.
      AlreadyExistsError: ``newpath`` exists and ``overwrite`` is False.
      FailedPreconditionError: ``newpath`` is a directory.
    """
    old, new = _as_str(oldpath), _as_str(newpath)
    if not Exists(old):
        raise errors.NotFoundError(None, None, f"{old}; No such file or directory")
    _check_target(new, overwrite)
    if _fsspec(old) is None and _fsspec(new) is None:
        target = _local(new)
        with _translated(new):
            fd, tmp = tempfile.mkstemp(
                prefix=f".{os.path.basename(target)}.",
                suffix=".tmp",
                dir=os.path.dirname(target) or ".",
            )
        try:
            with os.fdopen(fd, "wb") as out, _translated(old), open(_local(old), "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
            with _translated(new):
                os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(tmp)
            raise
        return
    with GFile(old, "rb") as src, GFile(new, "wb") as out:
        while chunk := src.read(1 << 20):
            out.write(chunk)


def Rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:
    """Renames (moves) ``oldname`` to ``newname``.

    Raises:
      NotFoundError: ``oldname`` does not exist.
      AlreadyExistsError: ``newname`` exists and ``overwrite`` is False.
    """
    old, new = _as_str(oldname), _as_str(newname)
    if not Exists(old):
        raise errors.NotFoundError(None, None, f"{old}; No such file or directory")
    _check_target(new, overwrite)
    remote = _fsspec(old)
    with _translated(old):
        if remote is None and _fsspec(new) is None:
            os.replace(_local(old), _local(new))
            return
        fs, p = remote if remote is not None else _fsspec(new)
        fs.mv(p, _fsspec(new)[1], recursive=True)


# -- tf.io.gfile's names --------------------------------------------------------------
def join(path: Any, *paths: Any) -> str:
    """Joins path components with ``/`` (a component starting with ``/`` restarts)."""
    return os.path.join(_as_str(path), *map(_as_str, paths))


def get_registered_schemes() -> list[str]:
    """The schemes paths may use: ``file`` and, when fsspec is installed, its protocols."""
    schemes = ["file"]
    try:
        from fsspec.registry import known_implementations
    except ImportError:
        return schemes
    return schemes + sorted(s for s in known_implementations if s != "file")


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """``tf.io.gfile.copy``: as ``Copy``."""
    Copy(src, dst, overwrite)


def exists(path: Any) -> bool:
    """``tf.io.gfile.exists``: as ``Exists``."""
    return Exists(path)


def glob(pattern: Any) -> list[str]:
    """``tf.io.gfile.glob``: as ``Glob``."""
    return Glob(pattern)


def isdir(path: Any) -> bool:
    """``tf.io.gfile.isdir``: as ``IsDirectory``."""
    return IsDirectory(path)


def listdir(path: Any) -> list[str]:
    """``tf.io.gfile.listdir``: as ``ListDirectory``."""
    return ListDirectory(path)


def makedirs(path: Any) -> None:
    """``tf.io.gfile.makedirs``: as ``MakeDirs``."""
    MakeDirs(path)


def mkdir(path: Any) -> None:
    """``tf.io.gfile.mkdir``: as ``MkDir``."""
    MkDir(path)


def remove(path: Any) -> None:
    """``tf.io.gfile.remove``: as ``Remove``."""
    Remove(path)


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """``tf.io.gfile.rename``: as ``Rename``."""
    Rename(src, dst, overwrite)


def rmtree(path: Any) -> None:
    """``tf.io.gfile.rmtree``: as ``DeleteRecursively``."""
    DeleteRecursively(path)


def stat(path: Any) -> FileStatistics:
    """``tf.io.gfile.stat``: as ``Stat``."""
    return Stat(path)


__getattr__ = missing_name_getattr("tf.gfile", globals())
