"""Datasets reading files: ``TFRecordDataset``, ``TextLineDataset`` and
``FixedLengthRecordDataset``.

Each reads its files one after another, in the order given, each to its end, as
TF's readers do with ``num_parallel_reads=None``; with ``num_parallel_reads=n`` the
files are interleaved one record at a time, ``n`` open at once, in the order of TF's
deterministic parallel interleave (``Dataset.interleave`` with ``cycle_length=n``).
Records come from ``jtrain.records.tf_record_iterator`` (both checksums verified; a corrupt record
raises ``DataLossError`` naming the file and offset).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.data.dataset_ops import DatasetV1, Element, Run, _component
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes, ops
from jtrain import errors
from jtrain.records.tf_record import tf_record_iterator

__all__ = ["FixedLengthRecordDataset", "TFRecordDataset", "TextLineDataset", "read_all"]

_log = logging.getLogger(__name__)


class _FileDataset(DatasetV1):
    """Scalar string elements read from ``filenames`` (a string, a list or a tensor)."""

    _impl: DatasetV1 | None = None

    def __init__(self, filenames: Any, compression_type: Any = None):
        if isinstance(filenames, ops.Tensor):
            if filenames.dtype != dtypes.string:
                raise TypeError(f"`filenames` must be a tf.string tensor, got {filenames.dtype}")
            if filenames.op.type == "Const" and filenames.op._host is None:
                # a constant's names are known now (the step's program has no strings)
                filenames = np.asarray(filenames.op._compute(None)[0], dtype=object)
        self._filenames = _component(filenames)
        if not isinstance(self._filenames, ops.Tensor) and self._filenames.dtype.kind != "O":
            raise TypeError(f"`filenames` must be strings, got {filenames!r}")
        self._compression = compression_type
        self._structure = Spec.of((), dtypes.string)

    def _interleaved(self, filenames: Any, num_parallel_reads: Any) -> None:
        """With ``num_parallel_reads``: this dataset is TF's interleave of one reader
        per file (``cycle_length=num_parallel_reads``, ``block_length=1``)."""
        if num_parallel_reads is None:
            return
        from adapters.v1.data.dataset_ops import refuse_tensor
        from adapters.v1.data.interleave_op import Interleave

        refuse_tensor(num_parallel_reads)  # as TF 2.21 (it makes a constant of 2 * it)

        flat = self._filenames
        if isinstance(flat, ops.Tensor):
            from adapters import v1 as tf

            flat = tf.reshape(flat, [-1])
        else:
            flat = flat.reshape(-1)
        names = DatasetV1.from_tensor_slices(flat)
        self._impl = Interleave(names, self._one_file, num_parallel_reads, 1, num_parallel_reads)

    def _one_file(self, filename: Any) -> DatasetV1:
        raise NotImplementedError

    def _inputs(self) -> list[DatasetV1]:
        return [self._impl] if self._impl is not None else []

    def _captures(self) -> list[ops.Tensor]:
        if self._impl is not None:
            return []
        return [self._filenames] if isinstance(self._filenames, ops.Tensor) else []

    def _paths(self, run: Run) -> list[str]:
        value = self._filenames
        names = run.known[value] if isinstance(value, ops.Tensor) else value
        flat = np.asarray(names, dtype=object).ravel()
        return [n.decode() if isinstance(n, bytes) else str(n) for n in flat]

    def _compression_of(self, run: Run) -> str:
        kind = self._compression
        if isinstance(kind, ops.Tensor):
            from adapters.v1.framework.tensor_util import get_static_value

            kind = get_static_value(kind)
        if isinstance(kind, bytes):
            kind = kind.decode()
        return kind or ""

    def _records(self, path: str, compression: str) -> Iterator[bytes]:
        raise NotImplementedError

    def _elements(self, run: Run) -> Iterator[Element]:
        if self._impl is not None:
            yield from self._impl._elements(run)
            return
        compression = self._compression_of(run)
        for path in self._paths(run):
            _log.debug("tf.data reading %s", path)
            for record in self._records(path, compression):
                out = np.empty((), dtype=object)
                out[()] = record
                yield (out,)


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files, as scalar ``tf.string`` elements.

    Args:
      filenames: a file name, a list of them, or a ``tf.string`` tensor of them (a
        placeholder fed when an initializable iterator starts).
      compression_type: ``""`` (default), ``"ZLIB"`` or ``"GZIP"``.
      buffer_size: accepted, unused (files are read in chunks).
      num_parallel_reads: how many files are read at once, interleaved record by
        record (default ``None``: one after another, in order); a Python int (a
        tensor raises TF 2.21's ``TypeError``).
      name: unused (TF's op name).

    Raises at run time ``NotFoundError`` for a missing file and ``DataLossError`` for a
    corrupted record.
    """

    def __init__(
        self,
        filenames: Any,
        compression_type: Any = None,
        buffer_size: Any = None,
        num_parallel_reads: Any = None,
        name: str | None = None,
    ):
        super().__init__(filenames, compression_type)
        self._interleaved(filenames, num_parallel_reads)

    def _one_file(self, filename: Any) -> DatasetV1:
        return TFRecordDataset(filename, self._compression)

    def _records(self, path: str, compression: str) -> Iterator[bytes]:
        return tf_record_iterator(path, compression)


class TextLineDataset(_FileDataset):
    """The lines of text files (without their ``\\n`` or ``\\r\\n``), as scalar
    ``tf.string`` elements.

    Args:
      filenames: a file name, a list of them, or a ``tf.string`` tensor of them.
      compression_type: ``""`` (default), ``"ZLIB"`` or ``"GZIP"``.
      buffer_size: accepted, unused.
      num_parallel_reads: how many files are read at once, interleaved record by
        record (default ``None``: one after another, in order); a Python int (a
        tensor raises TF 2.21's ``TypeError``).
      name: unused (TF's op name).
    """

    def __init__(
        self,
        filenames: Any,
        compression_type: Any = None,
        buffer_size: Any = None,
        num_parallel_reads: Any = None,
        name: str | None = None,
    ):
        super().__init__(filenames, compression_type)
        self._interleaved(filenames, num_parallel_reads)

    def _one_file(self, filename: Any) -> DatasetV1:
        return TextLineDataset(filename, self._compression)

    def _records(self, path: str, compression: str) -> Iterator[bytes]:
        data = read_all(path, compression)
        if not data:
            return
        for line in data.split(b"\n")[: -1 if data.endswith(b"\n") else None]:
            yield line[:-1] if line.endswith(b"\r") else line


def read_all(path: str, compression: str) -> bytes:
    """The bytes of the file at ``path``, decompressed (``"GZIP"``, ``"ZLIB"``).

    Raises:
      NotFoundError: no such file, as TF's.
    """
    import gzip
    import zlib

    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    if compression == "GZIP":
        data = gzip.decompress(data)
    elif compression == "ZLIB":
        data = zlib.decompress(data)
    return data


_U64 = 1 << 64


class FixedLengthRecordDataset(_FileDataset):
    """The fixed-size records of binary files (CIFAR-10's format), as scalar
    ``tf.string`` elements.

    Each file is ``header_bytes``, records of ``record_bytes``, then ``footer_bytes``.
    As TF 2.21: an uncompressed file whose body (size less header and footer) is not
    a whole number of records fails with ``InvalidArgumentError`` before giving any
    of its records; a compressed one gives its whole records, then fails with
    ``DataLossError``; a file shorter than its header and footer gives nothing.

    Args:
      filenames: a file name, a list of them, or a ``tf.string`` tensor of them.
      record_bytes: the size of each record (> 0).
      header_bytes: bytes skipped at the start of each file (default ``None``: 0).
      footer_bytes: bytes ignored at the end of each file (default ``None``: 0).
      buffer_size: accepted, unused (files are read in 1 MiB chunks).
      compression_type: ``""`` (default), ``"ZLIB"`` or ``"GZIP"``.
      num_parallel_reads: how many files are read at once, interleaved record by
        record (default ``None``: one after another, in order); a Python int (a
        tensor raises TF 2.21's ``TypeError``).
      name: unused (TF's op name).

    Raises:
      InvalidArgumentError (when iterated): ``record_bytes`` not positive, a
        negative header or footer size, another compression, a body that is not
        whole records (TF's messages).
      NotFoundError (when iterated): a missing file.
    """

    def __init__(
        self,
        filenames: Any,
        record_bytes: Any,
        header_bytes: Any = None,
        footer_bytes: Any = None,
        buffer_size: Any = None,
        compression_type: Any = None,
        num_parallel_reads: Any = None,
        name: str | None = None,
    ):
        super().__init__(filenames, compression_type)
        self._sizes = (record_bytes, header_bytes, footer_bytes)
        self._interleaved(filenames, num_parallel_reads)

    def _one_file(self, filename: Any) -> DatasetV1:
        record, header, footer = self._sizes
        return FixedLengthRecordDataset(filename, record, header, footer, None, self._compression)

    def _size(self, value: Any) -> int:
        if isinstance(value, ops.Tensor):
            from adapters.v1.framework.tensor_util import get_static_value

            value = get_static_value(value)
            if value is None:
                raise NotImplementedError(
                    "tf.data.FixedLengthRecordDataset: record, header and footer sizes "
                    "must be known when the graph is built (Python ints or constants)"
                )
        return 0 if value is None else int(value)

    def _elements(self, run: Run) -> Iterator[Element]:
        if self._impl is not None:
            yield from self._impl._elements(run)
            return
        record, header, footer = (self._size(v) for v in self._sizes)
        if record <= 0:
            raise errors.InvalidArgumentError(None, None, "`record_bytes` must be > 0")
        if header < 0:
            raise errors.InvalidArgumentError(None, None, "`header_bytes` must be >= 0")
        if footer < 0:
            raise errors.InvalidArgumentError(None, None, "`footer_bytes` must be >= 0")
        compression = self._compression_of(run)
        if compression not in ("", "ZLIB", "GZIP"):
            raise errors.InvalidArgumentError(None, None, "Unsupported compression_type.")
        for path in self._paths(run):
            _log.debug("tf.data reading %s", path)
            records = (
                _compressed_records(path, compression, record, header, footer)
                if compression
                else _plain_records(path, record, header, footer)
            )
            for data in records:
                out = np.empty((), dtype=object)
                out[()] = data
                yield (out,)


def _not_whole(path: str, header: int, footer: int, body: int, record: int) -> str:
    return (
        f"Excluding the header ({header} bytes) and footer ({footer} bytes), input file "
        f'"{path}" has body length {body} bytes, which is not an exact multiple of the '
        f"record length ({record} bytes)."
    )


def _plain_records(path: str, record: int, header: int, footer: int) -> Iterator[bytes]:
    """TF's uncompressed reading: the body's size is checked from the file's size
    (TF's unsigned arithmetic) before any record is read."""
    from adapters.v1.platform import gfile

    if not gfile.Exists(path):
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory")
    size = gfile.Stat(path).length
    body = (size - header - footer) % _U64
    if body % record:
        raise errors.InvalidArgumentError(
            None, None, _not_whole(path, header, footer, body, record)
        )
    if header > size:
        raise _short(path, "Read less bytes than requested")
    count = (size - header - footer) // record if size >= header + footer else 0
    if count == 0:
        return
    with gfile.GFile(path, "rb") as f:
        f.read(header)
        for _ in range(count):
            yield f.read(record)


def _short(path: str, original: str) -> errors.InternalError:
    """TF 2.21's error for a file that ends within its header (and footer): an
    ``OutOfRange`` of its reader turned into an ``InternalError``."""
    return errors.InternalError(
        None,
        None,
        f'FixedLengthRecordDataset returned `OutOfRange` in the header or footer of "{path}". '
        f"Original message: {original}",
    )


def _compressed_records(
    path: str, compression: str, record: int, header: int, footer: int
) -> Iterator[bytes]:
    """TF's compressed reading: the header skipped and a footer's worth read ahead
    (errors there fail the read), then whole records while a footer's worth of data
    follows them. A partial record at the end is a ``DataLossError``; a stream error
    while reading records ends the file quietly, as in TF."""
    import zlib

    from adapters.v1.ops.parsing_ops import _inflate_error
    from adapters.v1.platform import gfile

    if not gfile.Exists(path):
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory")
    inflate = zlib.decompressobj(15 if compression == "ZLIB" else 31)
    buf, total, skip = bytearray(), 0, header
    started = header == 0 and footer == 0
    with gfile.GFile(path, "rb") as f:
        while True:
            raw = f.read(1 << 20)
            try:
                chunk = inflate.decompress(raw) if raw else inflate.flush()
            except zlib.error as e:
                if not started:
                    raise _inflate_error(e) from None
                return
            total += len(chunk)
            if skip:
                cut = min(skip, len(chunk))
                chunk, skip = chunk[cut:], skip - cut
            buf += chunk
            started = started or (skip == 0 and len(buf) >= footer)
            while len(buf) >= record + footer:
                yield bytes(buf[:record])
                del buf[:record]
            if not raw or inflate.eof:
                break
    if not started:
        raise _short(path, "EOF reached")
    if len(buf) > footer:
        body = total - header - footer
        raise errors.DataLossError(None, None, _not_whole(path, header, footer, body, record))
