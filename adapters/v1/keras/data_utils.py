"""Keras' data helpers, as TF 2.21's legacy Keras (``tf_keras/utils/data_utils.py``):
``tf.keras.utils.Sequence`` (batches by index), the enqueuers ``OrderedEnqueuer``,
``GeneratorEnqueuer`` and their base ``SequenceEnqueuer``, ``pad_sequences`` (also
``tf.keras.preprocessing.sequence.pad_sequences``) and ``get_file``.

``Model.fit``/``evaluate``/``predict`` (and the ``*_generator`` methods) take a
``Sequence`` as TF's v1 engine does (``adapters.v1.keras.training.generator_iteration``).
"""

from __future__ import annotations

import hashlib
import os
import random
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from adapters.v1.keras.generic_utils import Progbar
from adapters.v1.keras.io_utils import print_msg

__all__ = [
    "GeneratorEnqueuer",
    "OrderedEnqueuer",
    "Sequence",
    "SequenceEnqueuer",
    "get_file",
    "iter_sequence_infinite",
    "pad_sequences",
    "validate_file",
]


class Sequence:
    """A dataset as a sequence of whole batches: ``seq[i]`` is batch ``i``.

    Subclasses implement ``__getitem__`` (the batch at an index: ``x``, ``(x, y)`` or
    ``(x, y, sample_weight)``) and ``__len__`` (the number of batches); they may
    implement ``on_epoch_end`` to change the data between epochs.

    .. note:: As in TF, the two methods are not enforced when subclassing (no
       ``abc`` metaclass): calling a missing one raises ``NotImplementedError``.
    """

    def __getitem__(self, index: int) -> Any:
        """The batch at position ``index``.

        Raises:
          NotImplementedError: not implemented by the subclass.
        """
        raise NotImplementedError

    def __len__(self) -> int:
        """The number of batches.

        Raises:
          NotImplementedError: not implemented by the subclass.
        """
        raise NotImplementedError

    def on_epoch_end(self) -> None:
        """Called after each pass over the batches (by ``fit``, ``evaluate`` and
        ``predict`` with ``workers`` > 0); does nothing by default."""

    def __iter__(self) -> Iterator[Any]:
        """The batches in order, ``len(self)`` read once (no ``on_epoch_end``)."""
        for index in range(len(self)):
            yield self[index]


def iter_sequence_infinite(seq: Sequence) -> Iterator[Any]:
    """``seq``'s batches in order, pass after pass (no shuffle, no ``on_epoch_end``:
    how TF's v1 loop reads a ``Sequence`` with ``workers=0``); an empty ``seq`` ends
    the iteration (TF's loops forever)."""
    while len(seq):
        yield from seq


class SequenceEnqueuer:
    """Keras' base of the enqueuers: ``start``, ``get`` (a generator of batches),
    ``stop``, ``is_running``.

    Args (TF's defaults): sequence (a ``Sequence``, or a generator for
    ``GeneratorEnqueuer``), use_multiprocessing=False.

    .. note:: TF reads ahead in ``workers`` threads (or processes), up to
       ``max_queue_size`` batches. adapters.v1 reads each batch in the calling thread
       when ``get`` yields it, in the order TF's queue gives (the batches, and the
       draws a ``Sequence`` makes from the global random streams, are TF's with one
       worker); ``workers``, ``max_queue_size`` and ``use_multiprocessing`` are
       recorded only.
    """

    def __init__(self, sequence: Any, use_multiprocessing: bool = False):
        self.sequence = sequence
        self.use_multiprocessing = use_multiprocessing
        self.workers = 0
        self.max_queue_size = 0
        self._running = False

    def is_running(self) -> bool:
        """Between ``start`` and ``stop``."""
        return self._running

    def start(self, workers: int = 1, max_queue_size: int = 10) -> None:
        """Starts reading (TF's defaults: workers=1, max_queue_size=10)."""
        self.workers, self.max_queue_size = workers, max_queue_size
        self._running = True

    def stop(self, timeout: float | None = None) -> None:
        """Stops reading: ``get``'s generator ends (``timeout`` accepted)."""
        del timeout
        self._running = False

    def get(self) -> Iterator[Any]:
        """The batches, while running."""
        raise NotImplementedError


class OrderedEnqueuer(SequenceEnqueuer):
    """A ``Sequence``'s batches pass after pass, as TF's ``OrderedEnqueuer`` queues
    them: each pass over ``list(range(len(seq)))`` (read once), shuffled in place with
    Python's ``random.shuffle`` at its start when ``shuffle`` (``random.seed`` gives
    TF's order), ``seq.on_epoch_end()`` after it.

    Args (TF's defaults): sequence, use_multiprocessing=False, shuffle=False.

    .. note:: TF's thread calls ``on_epoch_end`` once it sees a pass consumed (it
       polls every 0.1 s), so after the last pass of a loop only if that comes before
       ``stop``. Here a pass read entirely is ended when the next batch is asked for
       or at ``stop``.
    """

    def __init__(
        self, sequence: Sequence, use_multiprocessing: bool = False, shuffle: bool = False
    ):
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle
        self._pass_consumed = False
        self._passes: Iterator[Any] | None = None

    def _read(self) -> Iterator[Any]:
        order = list(range(len(self.sequence)))
        while order:
            if self.shuffle:
                random.shuffle(order)
            for k, index in enumerate(order):
                batch = self.sequence[index]
                self._pass_consumed = k == len(order) - 1
                yield batch
            self._pass_consumed = False
            self.sequence.on_epoch_end()

    def start(self, workers: int = 1, max_queue_size: int = 10) -> None:
        """Starts the passes (TF's defaults: workers=1, max_queue_size=10)."""
        super().start(workers, max_queue_size)
        self._passes = self._read()

    def get(self) -> Iterator[Any]:
        """The batches while running (ends when the ``Sequence`` is empty)."""
        while self.is_running() and self._passes is not None:
            try:
                batch = next(self._passes)
            except StopIteration:
                return
            yield batch

    def stop(self, timeout: float | None = None) -> None:
        """Stops; a pass read entirely is ended first (``on_epoch_end``)."""
        if self._pass_consumed:
            self._pass_consumed = False
            self.sequence.on_epoch_end()
        super().stop(timeout)


class GeneratorEnqueuer(SequenceEnqueuer):
    """A Python generator's items, as TF's ``GeneratorEnqueuer`` gives them with one
    worker (see ``SequenceEnqueuer``'s note).

    Args (TF's defaults): generator, use_multiprocessing=False, random_seed=None
    (TF seeds its worker processes with it; recorded only).
    """

    def __init__(self, generator: Any, use_multiprocessing: bool = False, random_seed: Any = None):
        super().__init__(generator, use_multiprocessing)
        self.random_seed = random_seed

    def get(self) -> Iterator[Any]:
        """The generator's items (``None`` skipped, as TF) while running, until it ends."""
        while self.is_running():
            try:
                item = next(self.sequence)
            except StopIteration:
                return
            if item is not None:
                yield item


def pad_sequences(
    sequences: Any,
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray:
    """The sequences padded (or truncated) to one length, as one NumPy array.

    Args (TF's defaults):
      sequences: a list of sequences (each a list or array, its items scalars or of
        one shape).
      maxlen=None: the length (None: the longest sequence's).
      dtype='int32': the array's dtype (``object`` for strings of any length).
      padding='pre': 'pre' or 'post': where the ``value``s go.
      truncating='pre': 'pre' or 'post': which end of a longer sequence is cut.
      value=0.0: the padding value.

    Returns:
      An array of shape ``(len(sequences), maxlen) + item shape``.

    Raises:
      ValueError: ``sequences`` not a list of sequences, a string ``value`` with a
        non-string ``dtype``, items of another shape than the first non-empty
        sequence's, another ``padding``/``truncating`` (TF's messages).
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths = []
    sample_shape: tuple[int, ...] = ()
    found_shape = False
    for seq in sequences:
        try:
            lengths.append(len(seq))
        except TypeError as e:
            raise ValueError(
                f"`sequences` must be a list of iterables. Found non-iterable: {seq}"
            ) from e
        if not found_shape and len(seq):
            sample_shape = np.asarray(seq).shape[1:]
            found_shape = True
    if maxlen is None:
        maxlen = int(np.max(lengths))
    if isinstance(value, str) and dtype is not object and not np.issubdtype(dtype, np.str_):
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )
    out = np.full((len(sequences), maxlen, *sample_shape), value, dtype=dtype)
    for i, seq in enumerate(sequences):
        if not len(seq):
            continue
        if truncating == "pre":
            kept = seq[-maxlen:]
        elif truncating == "post":
            kept = seq[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {kept.shape[1:]} of sequence at position {i} is "
                f"different from expected shape {sample_shape}"
            )
        if padding == "post":
            out[i, : len(kept)] = kept
        elif padding == "pre":
            out[i, -len(kept) :] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out


# -- get_file --------------------------------------------------------------------------
def _hasher(algorithm: str, file_hash: str | None = None) -> Any:
    """Keras' choice: sha256 when asked, or 'auto' with a 64-character hash; md5
    otherwise."""
    if algorithm == "sha256" or (
        algorithm == "auto" and file_hash is not None and len(file_hash) == 64
    ):
        return hashlib.sha256()
    return hashlib.md5()  # noqa: S324 (the hash Keras' users give, not a security check)


def _hash_file(path: str, hasher: Any, chunk_size: int = 65535) -> str:
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return str(hasher.hexdigest())


def validate_file(
    fpath: str, file_hash: str, algorithm: str = "auto", chunk_size: int = 65535
) -> bool:
    """Whether the file's hash is ``file_hash``.

    Args (TF's defaults): fpath, file_hash (md5 or sha256, hex), algorithm='auto'
    ('md5', 'sha256', or 'auto': sha256 for a 64-character hash, md5 otherwise),
    chunk_size=65535.
    """
    return _hash_file(fpath, _hasher(algorithm, file_hash), chunk_size) == str(file_hash)


def _inside(path: str, base: str) -> bool:
    return os.path.realpath(os.path.join(base, path)).startswith(base)


def _safe_members(members: Iterable[tarfile.TarInfo], base: str) -> Iterator[tarfile.TarInfo]:
    """The tar members that land inside ``base`` (links: pointing inside it); the
    others skipped with Keras' warning."""
    for info in members:
        if _inside(info.name, base) or (
            (info.issym() or info.islnk())
            and _inside(
                info.linkname, os.path.realpath(os.path.join(base, os.path.dirname(info.name)))
            )
        ):
            yield info
        else:
            warnings.warn(
                f"Skipping invalid path during archive extraction: '{info.name}'.", stacklevel=3
            )


def _extract_archive(file_path: str, path: str, archive_format: Any = "auto") -> bool:
    """Extracts ``file_path`` into ``path`` if it is one of ``archive_format``
    ('auto': tar then zip; 'tar', 'zip', a list, or None: none); whether it was."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else archive_format
    for kind in [formats] if isinstance(formats, str) else formats:
        if kind == "tar" and tarfile.is_tarfile(file_path):
            with tarfile.open(file_path) as archive:
                base = os.path.realpath(os.path.abspath(path))
                archive.extractall(path, members=_safe_members(archive, base))
            return True
        if kind == "zip" and zipfile.is_zipfile(file_path):
            with zipfile.ZipFile(file_path) as archive:
                archive.extractall(path)
            return True
    return False


class _DownloadProgress:
    """``urlretrieve``'s report hook drawing Keras' ``Progbar`` (bytes)."""

    def __init__(self) -> None:
        self.progbar: Progbar | None = None
        self.finished = False

    def __call__(self, block_num: int, block_size: int, total_size: int) -> None:
        if self.progbar is None:
            self.progbar = Progbar(None if total_size == -1 else total_size)
        current = block_num * block_size
        target = self.progbar.target
        if target is None or current < target:
            self.progbar.update(current)
        elif not self.finished:
            self.progbar.update(target)
            self.finished = True


def _retrieve(url: str, path: str, report: _DownloadProgress) -> None:
    """Keras' ``urlretrieve``: 8192-byte reads into ``path``, ``report(count, 8192,
    size)`` after each (the empty last one included; size -1 without a
    Content-Length)."""
    with urllib.request.urlopen(url) as response, open(path, "wb") as f:  # noqa: S310
        length = response.info().get("Content-Length")
        total = int(length.strip()) if length is not None else -1
        count = 0
        while True:
            chunk = response.read(8192)
            count += 1
            report(count, 8192, total)
            if not chunk:
                break
            f.write(chunk)


def _download(origin: str, fpath: str, file_hash: str | None, hash_algorithm: str) -> None:
    """``origin`` into ``fpath`` atomically (a temporary file in its directory, checked
    against ``file_hash``, then renamed)."""
    print_msg(f"Downloading data from {origin}")
    fd, partial = tempfile.mkstemp(
        dir=os.path.dirname(fpath), prefix=os.path.basename(fpath) + ".", suffix=".part"
    )
    os.close(fd)
    try:
        try:
            _retrieve(origin, partial, _DownloadProgress())
        except urllib.error.HTTPError as e:
            raise Exception(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from e
        except urllib.error.URLError as e:
            raise Exception(f"URL fetch failure on {origin}: {e.errno} -- {e.reason}") from e
        if file_hash is not None and not validate_file(partial, file_hash, hash_algorithm):
            raise ValueError(
                f"Incomplete or corrupted file detected. The {hash_algorithm} file hash "
                f"does not match the provided value of {file_hash}."
            )
        os.replace(partial, fpath)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def get_file(
    fname: Any = None,
    origin: str | None = None,
    untar: bool = False,
    md5_hash: str | None = None,
    file_hash: str | None = None,
    cache_subdir: str = "datasets",
    hash_algorithm: str = "auto",
    extract: bool = False,
    archive_format: Any = "auto",
    cache_dir: Any = None,
) -> str:
    """The path of ``origin``'s file in Keras' cache, downloaded when missing (or when
    its hash does not match ``file_hash``).

    Args (TF's defaults):
      fname=None: the file's name in the cache (an absolute path: that path; None:
        the last part of ``origin``'s path).
      origin: the URL (``urllib``: ``http(s)://``, ``file://``...).
      untar=False: deprecated: ``fname + '.tar.gz'`` is downloaded and extracted
        into the cache directory once; the path without ``.tar.gz`` is returned.
      md5_hash=None: deprecated: ``file_hash`` with ``hash_algorithm='md5'``.
      file_hash=None: the file's md5 or sha256 (hex), checked after downloading.
      cache_subdir='datasets': the directory under ``cache_dir`` (an absolute path:
        that directory).
      hash_algorithm='auto': 'md5', 'sha256', or 'auto' (by the hash's length).
      extract=False: extract the file (tar, tar.gz, tar.bz2, zip) into its directory.
      archive_format='auto': 'tar', 'zip', 'auto' (both) or None.
      cache_dir=None: ``~/.keras`` (``/tmp/.keras`` when not writable).

    Returns:
      The file's path.

    Raises:
      ValueError: no ``origin``, no file name in it, a downloaded file whose hash is
        not ``file_hash`` (TF's messages; the file is not kept).
      Exception: the download failed (TF's ``URL fetch failure on ...``).

    .. note:: TF writes the download straight to its cache path and keeps a file
       whose hash did not match; here it is written to a temporary name and renamed
       once checked. Tar members that would land outside the directory are skipped
       with a warning (TF checks them against the working directory instead).
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if cache_dir is None:
        cache_dir = os.path.join(os.path.expanduser("~"), ".keras")
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(os.fspath(cache_dir))
    if not os.access(base, os.W_OK):
        base = os.path.join("/tmp", ".keras")  # noqa: S108 (Keras' fallback)
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    fname = os.fspath(fname) if isinstance(fname, os.PathLike) else fname
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(
                f"Can't parse the file name from the origin provided: '{origin}'."
                "Please specify the `fname` as the input param."
            )
    untar_fpath = ""
    if untar:
        if fname.endswith(".tar.gz"):
            fname = fname[: -len(".tar.gz")]
        untar_fpath = os.path.join(datadir, fname)
        fpath = untar_fpath + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)
    download = not os.path.exists(fpath)
    if (
        not download
        and file_hash is not None
        and not validate_file(fpath, file_hash, hash_algorithm)
    ):
        print_msg(
            "A local file was found, but it seems to be incomplete or outdated because the "
            f"{hash_algorithm} file hash does not match the original value of {file_hash} "
            "so we will re-download the data."
        )
        download = True
    if download:
        _download(origin, fpath, file_hash, hash_algorithm)
    if untar:
        if not os.path.exists(untar_fpath):
            _extract_archive(fpath, datadir, archive_format="tar")
        return untar_fpath
    if extract:
        _extract_archive(fpath, datadir, archive_format)
    return fpath
