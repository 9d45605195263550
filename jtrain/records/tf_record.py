"""TFRecord files (``tf.io.TFRecordWriter``, ``tf.compat.v1.io.tf_record_iterator``).

A TFRecord file is a sequence of records, each framed as TF's ``RecordWriter``
frames it (``tensorflow/core/lib/io/record_writer.cc``)::

    uint64  length              little-endian
    uint32  masked_crc32c(length bytes)
    byte    data[length]
    uint32  masked_crc32c(data)

with ``masked_crc32c(x) = ((crc >> 15) | (crc << 17)) + 0xa282ead8`` (mod 2**32)
over CRC-32C (Castagnoli). The whole stream may be compressed with zlib (``ZLIB``)
or gzip (``GZIP``) framing, with TF's deflate settings (level ``Z_DEFAULT_COMPRESSION``,
``memLevel`` 9, window bits 15, ``Z_DEFAULT_STRATEGY``), so that jtrain's files are
byte-identical to TF's for the same records.

.. note:: Both sides leave the gzip header to zlib's ``deflate`` with window bits 31:
   ``1f 8b 08 00``, mtime 0, extra flags 0, then zlib's ``OS_CODE`` (``03``, Unix, on
   Linux; TF's ``zlib_compression_options.h`` says 255, which zlib does not write).
   Python's ``gzip`` module would write the time and a file name instead, so jtrain
   does not use it.
"""

from __future__ import annotations

import functools
import os
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from jtrain import _crc32c, errors

__all__ = [
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "tf_record_iterator",
    "masked_crc32c",
]

_HEADER = struct.Struct("<QI")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
# Records kept in memory before they are framed and go to the file (or the compressor).
_WRITE_BUFFER_BYTES = 1 << 20
_WRITE_BUFFER_RECORDS = 8192
_READ_CHUNK_BYTES = 256 << 10  # small batches stay in cache while consumed
_crc = _crc32c.bytes_value
_mask = _crc32c.mask


def masked_crc32c(data: bytes) -> int:
    """TF's masked CRC-32C of ``data`` (``tensorflow/core/lib/hash/crc32c.h``, ``Mask``).

    Args:
      data: the bytes to checksum.

    Returns:
      ``((crc >> 15) | (crc << 17)) + 0xa282ead8`` modulo 2**32, ``crc`` the CRC-32C.
    """
    return _mask(_crc(data))


def _crc32c_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1)
    return table.astype(np.uint32)


_CRC_TABLE = _crc32c_table()
_HEAD = np.dtype([("length", "<u8"), ("crc", "<u4")])


def _crc32c_u64(values: np.ndarray) -> np.ndarray:
    """CRC-32C of each value's 8 little-endian bytes, vectorized (the length fields)."""
    data = np.ascontiguousarray(values, dtype="<u8").view(np.uint8).reshape(-1, 8)
    crc = np.full(data.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for k in range(8):
        crc = _CRC_TABLE[(crc ^ data[:, k]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(0xFFFFFFFF)


@functools.cache
def _masked_length_crcs() -> np.ndarray:
    """The masked CRC of every length below 2**16 (most records), computed once."""
    return _mask(_crc32c_u64(np.arange(1 << 16, dtype=np.uint64)))


def _masked_crc_u64(lengths: np.ndarray) -> np.ndarray:
    """Masked CRC-32C of the 8 little-endian bytes of each length."""
    table = _masked_length_crcs()
    small = lengths < table.size
    if small.all():
        return table[lengths]
    out = _mask(_crc32c_u64(lengths))
    out[small] = table[lengths[small]]
    return out


def _frame(records: list[bytes]) -> bytes:
    """The framed bytes of ``records``: checksums computed in C loops, not per record."""
    n = len(records)
    lengths = np.fromiter(map(len, records), dtype="<u8", count=n)
    head = np.empty(n, dtype=_HEAD)
    head["length"] = lengths
    head["crc"] = _masked_crc_u64(lengths)
    foot = _mask(np.fromiter(map(_crc, records), dtype=np.uint32, count=n)).astype("<u4")
    parts: list[Any] = [None] * (3 * n)
    parts[0::3] = head.view("V12").tolist()
    parts[1::3] = records
    parts[2::3] = foot.view("V4").tolist()
    return b"".join(parts)


class TFRecordCompressionType:
    """The compression of a TFRecord file (``tf.compat.v1.io.TFRecordCompressionType``)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """Options of a TFRecord file (``tf.io.TFRecordOptions``).

    Options other than ``compression_type`` only affect writing a compressed file; left
    as ``None`` they take TF's defaults (``zlib_compression_options.h``).

    Args:
      compression_type: ``"GZIP"``, ``"ZLIB"``, ``""``/``None`` (no compression) or a
        :class:`TFRecordCompressionType` value.
      flush_mode: zlib flush mode applied to each full input buffer; TF's default
        ``Z_NO_FLUSH``.
      input_buffer_size: TF's zlib input buffer (default 256 KiB); the bytes written
        depend on it only with a ``flush_mode`` other than ``Z_NO_FLUSH``.
      output_buffer_size: accepted for TF's signature (TF: 256 KiB); the bytes written
        do not depend on it.
      window_bits: zlib window bits; TF's default 15, or 31 (15 + 16, gzip framing)
        for ``GZIP``. A value given replaces that default as it is, as in TF: a
        ``GZIP`` file written with ``window_bits=12`` has zlib framing, 28 gzip's.
      compression_level: 0 to 9; TF's default ``Z_DEFAULT_COMPRESSION`` (-1, i.e. 6).
      compression_method: only ``Z_DEFLATED`` (8), TF's default.
      mem_level: 1 to 9; TF's default 9 (zlib's own default is 8).
      compression_strategy: zlib strategy; TF's default ``Z_DEFAULT_STRATEGY`` (0).

    Raises:
      ValueError: if ``compression_type`` is not one of the above.
    """

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(
        self,
        compression_type: str | int | None = None,
        flush_mode: int | None = None,
        input_buffer_size: int | None = None,
        output_buffer_size: int | None = None,
        window_bits: int | None = None,
        compression_level: int | None = None,
        compression_method: int | None = None,
        mem_level: int | None = None,
        compression_strategy: int | None = None,
    ):
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """The compression of ``options`` as TF's string: ``"ZLIB"``, ``"GZIP"`` or ``""``.

        Args:
          options: a :class:`TFRecordOptions`, a :class:`TFRecordCompressionType` value,
            a string or ``None``.

        Raises:
          ValueError: if ``options`` names no compression type.
        """
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, int) and not isinstance(options, bool):
            if options in cls.compression_type_map:
                return cls.compression_type_map[options]
        elif isinstance(options, str) and options in cls.compression_type_map.values():
            return options
        raise ValueError(f'Not a valid compression_type: "{options}"')

    def _compressobj(self) -> Any:
        kind = self.get_compression_type_string(self)
        if not kind:
            return None
        if self.window_bits is not None:
            window_bits = self.window_bits  # as given, even for GZIP (TF's quirk)
        else:
            window_bits = 31 if kind == "GZIP" else 15
        return zlib.compressobj(
            zlib.Z_DEFAULT_COMPRESSION
            if self.compression_level is None
            else self.compression_level,
            zlib.DEFLATED if self.compression_method is None else self.compression_method,
            window_bits,
            9 if self.mem_level is None else self.mem_level,
            zlib.Z_DEFAULT_STRATEGY
            if self.compression_strategy is None
            else self.compression_strategy,
        )

    def __repr__(self) -> str:
        return f"TFRecordOptions(compression_type={self.compression_type!r})"


def _as_options(options: Any) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(compression_type=options)


class TFRecordWriter:
    """Writes records to a TFRecord file (``tf.io.TFRecordWriter``).

    Opening truncates ``path``. Records are framed in memory and reach the file in
    blocks; :meth:`flush` pushes everything written so far to the operating system
    (through a ``Z_PARTIAL_FLUSH`` when compressed, as TF's ``ZlibOutputBuffer::Flush``),
    :meth:`close` finishes the compressed stream. Usable as a context manager.

    Args:
      path: the file to write.
      options: a :class:`TFRecordOptions`, a compression-type string (``"GZIP"``,
        ``"ZLIB"``, ``""``), a :class:`TFRecordCompressionType` value or ``None``.

    Raises:
      ValueError: if ``options`` names no compression type.
      jtrain.errors.NotFoundError: if the folder of ``path`` does not exist.
      jtrain.errors.PermissionDeniedError: if ``path`` may not be written.
      jtrain.errors.OpError: from any method, the TF error of a failed write
        (``ResourceExhaustedError`` on a full disk or past the file-size limit),
        naming the file.

    .. note:: As TF's writer, this one writes in place (no temporary file and rename):
       a reader may follow the file while it grows, and sees every record once
       :meth:`flush` or :meth:`close` returned.
    """

    def __init__(self, path: str | os.PathLike[str], options: Any = None):
        self._options = _as_options(options)
        self._path = os.fspath(path)
        self._compressor = self._options._compressobj()
        flush_mode = self._options.flush_mode
        self._flush_mode = zlib.Z_NO_FLUSH if flush_mode is None else flush_mode
        try:
            self._file = open(self._path, "wb")
        except OSError as exc:
            raise errors.from_os_error(exc, self._path) from exc
        self._pending: list[bytes] | None = []
        self._pending_bytes = 0
        # With a flush mode other than Z_NO_FLUSH, where deflate is called changes the
        # bytes: replay TF's ZlibOutputBuffer input buffer (deflate when a header, data
        # or footer piece does not fit in what is left of input_buffer_size).
        self._tf_buffered = self._compressor is not None and self._flush_mode != zlib.Z_NO_FLUSH
        self._zin: list[bytes] = []
        self._zin_bytes = 0
        self._zin_capacity = self._options.input_buffer_size or (256 << 10)

    def write(self, record: bytes) -> None:
        """Appends one record (``bytes``; a ``str`` is encoded as UTF-8, as TF does).

        Raises:
          jtrain.errors.FailedPreconditionError: if the writer was closed.
        """
        pending = self._pending
        if pending is None:
            raise errors.FailedPreconditionError(
                None, None, f"Writer of {self._path} not initialized or previously closed"
            )
        if type(record) is not bytes:
            record = record.encode("utf-8") if isinstance(record, str) else bytes(record)
        pending.append(record)
        self._pending_bytes += len(record)
        if self._pending_bytes >= _WRITE_BUFFER_BYTES or len(pending) >= _WRITE_BUFFER_RECORDS:
            self._drain()

    def _drain(self) -> None:
        if not self._pending:
            return
        data = _frame(self._pending)
        lengths = list(map(len, self._pending)) if self._tf_buffered else None
        self._pending.clear()
        self._pending_bytes = 0
        if lengths is not None:  # TF-buffered compression
            data = self._deflate_as_tf(data, lengths)
        elif self._compressor is not None:
            data = self._compressor.compress(data)
        self._write(data)

    def _write(self, data: bytes) -> None:
        """Writes to the file; an ``OSError`` leaves as its TF error naming the file."""
        try:
            self._file.write(data)
        except OSError as exc:
            raise errors.from_os_error(exc, self._path) from exc

    def _deflate_as_tf(self, framed: bytes, lengths: list[int]) -> bytes:
        """TF's ``ZlibOutputBuffer::Append`` of each header, data and footer piece."""
        compressor, mode, capacity = self._compressor, self._flush_mode, self._zin_capacity
        out = []
        pos = 0
        for length in lengths:
            for size in (12, length, 4):
                piece = framed[pos : pos + size]
                pos += size
                if size <= capacity - self._zin_bytes:
                    self._zin.append(piece)
                    self._zin_bytes += size
                    continue
                out.append(self._deflate_buffered(mode))
                if size <= capacity:
                    self._zin, self._zin_bytes = [piece], size
                else:
                    out.append(compressor.compress(piece) + compressor.flush(mode))
        return b"".join(out)

    def _deflate_buffered(self, mode: int) -> bytes:
        """TF's ``DeflateBuffered(mode)``: the buffered input, then ``mode``."""
        data = b"".join(self._zin)
        self._zin, self._zin_bytes = [], 0
        # compress(b"") would reset zlib's last flush and change the next flush's bytes.
        head = self._compressor.compress(data) if data else b""
        return head + self._compressor.flush(mode)

    def flush(self) -> None:
        """Pushes every record written so far to the file.

        Raises:
          jtrain.errors.FailedPreconditionError: if the writer was closed.
        """
        if self._pending is None:
            raise errors.FailedPreconditionError(
                None, None, f"Writer of {self._path} not initialized or previously closed"
            )
        self._drain()
        if self._tf_buffered:
            self._write(self._deflate_buffered(zlib.Z_PARTIAL_FLUSH))
        elif self._compressor is not None:
            self._write(self._compressor.flush(zlib.Z_PARTIAL_FLUSH))
        try:
            self._file.flush()
        except OSError as exc:
            raise errors.from_os_error(exc, self._path) from exc

    def close(self) -> None:
        """Writes what is left, ends the compressed stream and closes the file (idempotent)."""
        if self._pending is None:
            return
        try:
            self._drain()
            if self._tf_buffered:
                self._write(self._deflate_buffered(zlib.Z_FINISH))
            elif self._compressor is not None:
                self._write(self._compressor.flush(zlib.Z_FINISH))
        finally:
            self._pending = None
            try:
                self._file.close()
            except OSError as exc:
                raise errors.from_os_error(exc, self._path) from exc

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_pending", None) is not None:
            self.close()


class _Source:
    """The decompressed byte stream of a TFRecord file, read in large chunks.

    A ``GZIP`` file may hold several gzip members one after the other (files joined
    with ``cat``): every member is read, as TF and Python's ``gzip`` do. Bytes after
    the last member that do not start a new one, bytes after a ``ZLIB`` stream, and
    a stream that ends without its trailer (the checksum of the whole stream) raise
    ``DataLossError``. TF 2.21 accepts a missing trailer and bytes after a ``ZLIB``
    stream without a word; jtrain does not (the file was cut short, or is not what
    it claims to be).
    """

    def __init__(self, path: str, compression: str):
        try:
            self._file = open(path, "rb")
        except OSError as exc:
            raise errors.from_os_error(exc, path) from exc
        self._path = path
        self._gzip = compression == "GZIP"
        self._inflater: Any = zlib.decompressobj(31 if self._gzip else 15) if compression else None
        self._unused = b""  # what followed the end of the last member
        self._started = False
        self._members = 0  # gzip members finished before the current one

    def _data_loss(self, what: str) -> errors.DataLossError:
        return errors.DataLossError(None, None, f"{self._path}: {what}")

    def read(self) -> bytes:
        """The next chunk of the stream; ``b""`` at its end."""
        while True:
            raw, self._unused = self._unused or self._file.read(_READ_CHUNK_BYTES), b""
            inflater = self._inflater
            if inflater is None:
                return raw
            if not raw:
                if self._started and not inflater.eof:
                    raise self._data_loss(
                        "the compressed stream ends without its trailer (the file is truncated)"
                    )
                return b""
            if inflater.eof:
                if not self._gzip:
                    raise self._data_loss(f"{len(raw)}+ bytes of garbage after the zlib stream")
                inflater = self._inflater = zlib.decompressobj(31)  # the next gzip member
                self._members += 1
            self._started = True
            try:
                data = inflater.decompress(raw)
            except zlib.error as exc:
                where = f" (gzip member {self._members + 1})" if self._members else ""
                raise self._data_loss(f"corrupted compressed stream{where}: {exc}") from exc
            if inflater.eof:
                self._unused = inflater.unused_data
            if data:
                return data

    def close(self) -> None:
        self._file.close()


def tf_record_iterator(path: str | os.PathLike[str], options: Any = None) -> Iterator[bytes]:
    """Iterates over the records of a TFRecord file (``tf.compat.v1.io.tf_record_iterator``).

    Both checksums of every record are verified.

    Args:
      path: the TFRecord file.
      options: a :class:`TFRecordOptions`, a compression-type string, a
        :class:`TFRecordCompressionType` value or ``None`` (no compression).

    Returns:
      An iterator of the records, as ``bytes``.

    Raises:
      ValueError: if ``options`` names no compression type.
      jtrain.errors.NotFoundError: if ``path`` does not exist (at the call, as TF).
      jtrain.errors.DataLossError: on a corrupted or truncated record, naming the file
        and the record's byte offset (in the decompressed stream).
    """
    compression = TFRecordOptions.get_compression_type_string(options)
    path = os.fspath(path)
    return _iterate(path, _Source(path, compression))


def _iterate(path: str, source: _Source) -> Iterator[bytes]:
    """Yields the records of ``path``, a buffer of records at a time.

    Each buffer is walked in one Python loop that reads the lengths and slices the
    records out; both checksums of the records found are then verified in C loops
    (vectorized CRC of the lengths, ``map`` of CRC-32C over the data) before any
    record is yielded. A bad record stops the batch: the records before it are
    yielded, then DataLossError.
    """
    unpack_length = _U64.unpack_from
    buf = b""
    pos = 0  # position in buf
    base = 0  # stream offset of buf[0]
    eof = False
    try:
        while True:
            end = len(buf)
            found: list[bytes] = []
            append = found.append
            p = pos
            try:
                while True:  # the hot loop: as little as possible per record
                    (length,) = unpack_length(buf, p)  # struct.error: < 8 bytes left
                    stop = p + 16 + length
                    if stop > end:
                        break
                    append(buf[p + 12 : stop - 4])
                    p = stop
            except struct.error:
                pass
            if found:
                good, error = _checked(buf, base, pos, found, path)
                yield from good
                if error is not None:
                    raise error
            pos = p
            if end - pos >= 12 and not _header_ok(buf, pos):
                raise errors.DataLossError(
                    None, None, f"corrupted record at {base + pos} in {path} (length checksum)"
                )
            if eof:
                if pos == end:
                    return
                raise errors.DataLossError(
                    None, None, f"truncated record at {base + pos} in {path}"
                )
            need = 12 if end - pos < 12 else 16 + unpack_length(buf, pos)[0]
            buf, base, pos, eof = _refill(source, buf, base, pos, max(need, 1))
    finally:
        source.close()


def _header_ok(buf: bytes, pos: int) -> bool:
    return _HEADER.unpack_from(buf, pos)[1] == masked_crc32c(buf[pos : pos + 8])


def _checked(
    buf: bytes, base: int, pos: int, records: list[bytes], path: str
) -> tuple[list[bytes], errors.OpError | None]:
    """``records`` (framed one after the other from ``buf[pos]``) up to the first bad
    one, and the error that one raises."""
    n = len(records)
    lengths = np.fromiter(map(len, records), dtype=np.int64, count=n)
    first = np.empty(n, dtype=np.int64)
    first[0] = pos
    np.cumsum(lengths[:-1] + 16, out=first[1:])
    first[1:] += pos
    # The stored checksums: the length's at first + 8, the data's at first + 12 + length.
    # A little-endian uint32 starting at every byte of buf (stride 1, a view).
    words = np.ndarray((len(buf) - 3,), dtype="<u4", buffer=buf, strides=(1,))
    stored = words[np.concatenate([first + 8, first + 12 + lengths])]
    length_ok = _masked_crc_u64(lengths.astype(np.uint64)) == stored[:n]
    data_ok = _mask(np.fromiter(map(_crc, records), dtype=np.uint32, count=n)) == stored[n:]
    good = length_ok & data_ok
    if good.all():
        return records, None
    bad = int(np.argmin(good))
    what = "length checksum" if not length_ok[bad] else "data checksum"
    error = errors.DataLossError(
        None, None, f"corrupted record at {base + int(first[bad])} in {path} ({what})"
    )
    return records[:bad], error


def _refill(
    source: _Source, buf: bytes, base: int, pos: int, need: int
) -> tuple[bytes, int, int, bool]:
    """Drops consumed bytes and reads until ``need`` bytes follow ``pos`` (or the end)."""
    parts = [buf[pos:]]
    have = len(parts[0])
    eof = False
    while have < need:
        chunk = source.read()
        if not chunk:
            eof = True
            break
        parts.append(chunk)
        have += len(chunk)
    return b"".join(parts), base + pos, 0, eof
