"""TensorFlow's V2 checkpoint format (the tensor bundle), read and written without TF.

A checkpoint with prefix ``P`` is

- ``P.data-00000-of-0000N`` ... : the tensors' bytes, back to back, little-endian,
  in C order (``bool`` one byte, complex as interleaved real/imaginary, bfloat16
  and half two bytes); a string tensor is ``varint64`` lengths, the masked CRC32C
  of the lengths (as ``uint32``), then the bytes;
- ``P.index``: a LevelDB table (:mod:`jtrain.checkpoint._table`) whose empty key
  holds a ``BundleHeaderProto`` (number of shards, endianness, version) and whose
  other keys are tensor names mapped to ``BundleEntryProto`` (dtype, shape, shard,
  offset, size, masked CRC32C). A partitioned variable has an entry listing its
  slices; each slice is stored under an ``OrderedCode`` key
  (``checkpoint::EncodeTensorNameSlice``).

The writer writes both files under temporary names, fsyncs them, renames the data
file and then the index (the index is what makes a checkpoint exist), then fsyncs
the directory: a reader never sees a partial checkpoint. The reader verifies every
checksum and raises :class:`jtrain.errors.DataLossError` naming the file and tensor.
"""

from __future__ import annotations

import concurrent.futures
import difflib
import functools
import glob
import os
import secrets
import stat
import struct
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import ml_dtypes
import numpy as np
from google.protobuf.message import DecodeError

from jtrain import _crc32c, errors
from jtrain.checkpoint import _fileio, _table
from jtrain.protos import tensor_bundle_pb2, tensor_slice_pb2, types_pb2

__all__ = [
    "BundleWriter",
    "BundleReader",
    "write_tf_checkpoint",
    "data_filename",
    "meta_filename",
    "encode_tensor_name_slice",
    "dtype_to_numpy",
    "numpy_to_dtype",
]

# kTensorBundleVersion / kTensorBundleMinConsumer / kTensorBundleMinProducer.
VERSION = 1
MIN_CONSUMER = 0
MIN_PRODUCER = 0
HEADER_KEY = b""

_DT = types_pb2.DataType
_TO_NUMPY: dict[int, np.dtype] = {
    _DT.DT_FLOAT: np.dtype(np.float32),
    _DT.DT_DOUBLE: np.dtype(np.float64),
    _DT.DT_INT32: np.dtype(np.int32),
    _DT.DT_UINT8: np.dtype(np.uint8),
    _DT.DT_INT16: np.dtype(np.int16),
    _DT.DT_INT8: np.dtype(np.int8),
    _DT.DT_STRING: np.dtype(object),
    _DT.DT_COMPLEX64: np.dtype(np.complex64),
    _DT.DT_INT64: np.dtype(np.int64),
    _DT.DT_BOOL: np.dtype(np.bool_),
    _DT.DT_QINT8: np.dtype(np.int8),
    _DT.DT_QUINT8: np.dtype(np.uint8),
    _DT.DT_QINT32: np.dtype(np.int32),
    _DT.DT_BFLOAT16: np.dtype(ml_dtypes.bfloat16),
    _DT.DT_QINT16: np.dtype(np.int16),
    _DT.DT_QUINT16: np.dtype(np.uint16),
    _DT.DT_UINT16: np.dtype(np.uint16),
    _DT.DT_COMPLEX128: np.dtype(np.complex128),
    _DT.DT_HALF: np.dtype(np.float16),
    _DT.DT_UINT32: np.dtype(np.uint32),
    _DT.DT_UINT64: np.dtype(np.uint64),
    _DT.DT_FLOAT8_E5M2: np.dtype(ml_dtypes.float8_e5m2),
    _DT.DT_FLOAT8_E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
    _DT.DT_FLOAT8_E4M3FNUZ: np.dtype(ml_dtypes.float8_e4m3fnuz),
    _DT.DT_FLOAT8_E4M3B11FNUZ: np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    _DT.DT_FLOAT8_E5M2FNUZ: np.dtype(ml_dtypes.float8_e5m2fnuz),
}
# The DataType written for a NumPy dtype (quantized types are never written).
_FROM_NUMPY: dict[np.dtype, types_pb2.DataType] = {}
for _code, _np in _TO_NUMPY.items():
    if _code not in (_DT.DT_QINT8, _DT.DT_QUINT8, _DT.DT_QINT32, _DT.DT_QINT16, _DT.DT_QUINT16):
        _FROM_NUMPY.setdefault(_np, cast(types_pb2.DataType, _code))


def dtype_to_numpy(dtype: int) -> np.dtype:
    """The NumPy dtype of a TF ``DataType`` enum value (``object`` for strings).

    Raises:
      UnimplementedError: for types with no NumPy equivalent (resource, variant, int4).
    """
    try:
        return _TO_NUMPY[dtype]
    except KeyError:
        name = _DT.Name(dtype) if dtype in _DT.values() else str(dtype)
        raise errors.UnimplementedError(
            None, None, f"checkpoint dtype {name} has no NumPy equivalent"
        ) from None


def numpy_to_dtype(dtype: Any) -> types_pb2.DataType:
    """The TF ``DataType`` enum value for a NumPy dtype (strings: ``object``, ``S``, ``U``)."""
    dt = np.dtype(dtype)
    if dt.kind in "OSU":
        return _DT.DT_STRING
    if dt.byteorder == ">":
        dt = dt.newbyteorder("<")
    try:
        return _FROM_NUMPY[dt]
    except KeyError:
        raise errors.InvalidArgumentError(
            None, None, f"dtype {dt} cannot be stored in a TF checkpoint"
        ) from None


def data_filename(prefix: str, shard: int, num_shards: int) -> str:
    """``PREFIX.data-SSSSS-of-NNNNN`` (TF's ``DataFilename``)."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def meta_filename(prefix: str) -> str:
    """``PREFIX.index`` (TF's ``MetaFilename``)."""
    return f"{prefix}.index"


# --- OrderedCode, as checkpoint::EncodeTensorNameSlice uses it ---------------------


def _num_increasing(val: int) -> bytes:
    body = val.to_bytes((val.bit_length() + 7) // 8, "big") if val else b""
    return bytes([len(body)]) + body


def _escape(s: bytes) -> bytes:
    out = bytearray()
    for b in s:
        if b == 0x00:
            out += b"\x00\xff"
        elif b == 0xFF:
            out += b"\xff\x00"
        else:
            out.append(b)
    return bytes(out)


_HEADER_BITS = [
    (0, 0),
    (0x80, 0),
    (0xC0, 0),
    (0xE0, 0),
    (0xF0, 0),
    (0xF8, 0),
    (0xFC, 0),
    (0xFE, 0),
    (0xFF, 0),
    (0xFF, 0x80),
    (0xFF, 0xC0),
]


def _signed_num_increasing(val: int) -> bytes:
    """OrderedCode::WriteSignedNumIncreasing."""
    x = ~val if val < 0 else val
    if x < 64:
        return bytes([(0x80 ^ val) & 0xFF])
    length = x.bit_length() // 7 + 1
    buf = bytearray((val & ((1 << 80) - 1)).to_bytes(10, "big"))
    begin = buf[10 - length :]
    begin[0] ^= _HEADER_BITS[length][0]
    begin[1] ^= _HEADER_BITS[length][1]
    return bytes(begin)


def encode_tensor_name_slice(name: str, extents: Sequence[tuple[int, int]]) -> bytes:
    """The index key of one slice of a partitioned tensor (length -1: the whole dimension)."""
    out = _num_increasing(0) + _escape(name.encode()) + b"\x00\x01"
    out += _num_increasing(len(extents))
    for start, length in extents:
        out += _signed_num_increasing(start) + _signed_num_increasing(length)
    return out


def _slice_extents(proto: tensor_slice_pb2.TensorSliceProto) -> list[tuple[int, int]]:
    out = []
    for e in proto.extent:
        if e.WhichOneof("has_length") is None:
            out.append((0, -1))
        else:
            out.append((e.start, e.length))
    return out


# --- writing ------------------------------------------------------------------------


def _as_array(value: Any) -> np.ndarray:
    if isinstance(value, (str, bytes)):
        return np.array(value.encode() if isinstance(value, str) else value, dtype=object)
    arr = np.asarray(value)
    if arr.dtype.kind in "SU":
        flat = [v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1).tolist()]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        arr = out.reshape(arr.shape)
    return arr


def _string_bytes(arr: np.ndarray, name: str) -> list[bytes]:
    out = []
    for v in arr.reshape(-1).tolist():
        if isinstance(v, str):
            v = v.encode()
        elif isinstance(v, (bytearray, memoryview, np.bytes_)):
            v = bytes(v)
        if not isinstance(v, bytes):
            raise errors.InvalidArgumentError(
                None, None, f"string tensor {name!r} holds a {type(v).__name__}, not bytes or str"
            )
        out.append(v)
    return out


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# The writer checksums each 1 MB chunk just before writing it, while it is in the CPU
# cache: one pass over memory instead of two.
_CHUNK = 1 << 20


def _write_checksummed(
    fd: int, raw: np.ndarray, writeback: _fileio.Writeback | None = None, offset: int = 0
) -> int:
    """Writes ``raw`` (uint8) at the file's ``offset`` and returns its CRC32C; tells
    ``writeback`` (if any) after each chunk."""
    crc = 0
    for start in range(0, raw.nbytes, _CHUNK):
        chunk = raw[start : start + _CHUNK]
        crc = _crc32c.extend(crc, chunk)
        _fileio.write_all(fd, chunk)
        if writeback is not None:
            writeback.wrote(offset + start + chunk.nbytes)
    return crc


def _current_num_shards(prefix: str) -> int | None:
    """The shard count the index at ``prefix`` declares (None: no readable index)."""
    try:
        with open(meta_filename(prefix), "rb") as f:
            items = _table.read_table(f.read(), meta_filename(prefix))
        header = tensor_bundle_pb2.BundleHeaderProto()
        header.ParseFromString(items[0][1])
    except (OSError, errors.OpError, DecodeError, IndexError, ValueError):
        return None
    return header.num_shards


def _data_files(prefix: str) -> list[str]:
    digits = "[0-9]" * 5
    return glob.glob(f"{glob.escape(prefix)}.data-{digits}-of-{digits}")


class BundleWriter:
    """Writes one tensor bundle (TF's ``BundleWriter``): ``add`` tensors, then ``finish``.

    Files are written under temporary names and renamed into place by
    :meth:`finish`, data first and the index last, so that at every instant
    ``PREFIX`` names a complete checkpoint, the old one or the new one, even when a
    checkpoint already exists at ``PREFIX`` (a same-prefix save): the new data then
    goes to file names the old index does not reference (the shard count
    alternates between 1 and 2, the second shard empty; TF reads both layouts),
    and the old data files are removed only once the new index is in place.

    A failed write (a full disk, a file-size limit, a read-only directory) removes
    every file this writer created and raises the TF error of the failure
    (:func:`jtrain.errors.from_os_error`), naming the file.

    Args:
      prefix: the checkpoint prefix, e.g. ``/tmp/train/model.ckpt-100``.
      sync: fsync the files and the directory (a durable save). Default True.

    Raises:
      OpError: e.g. ``PermissionDeniedError``, ``NotFoundError`` when the temporary
        data file cannot be created (named).
    """

    def __init__(self, prefix: str, *, sync: bool = True):
        self._prefix = os.fspath(prefix)
        self._sync = sync
        directory = os.path.dirname(self._prefix)
        if directory:
            with _fileio.io(directory):
                os.makedirs(directory, exist_ok=True)
        tag = secrets.token_hex(8)
        self._tmp_data = f"{data_filename(self._prefix, 0, 1)}.tempstate{tag}"
        self._tmp_meta = f"{meta_filename(self._prefix)}.tempstate{tag}"
        self._tmp_empty = f"{data_filename(self._prefix, 1, 2)}.tempstate{tag}"
        # Files to remove if the save fails before its index is in place.
        self._uncommitted: list[str] = []
        with _fileio.io(self._tmp_data):
            self._fd: int | None = os.open(
                self._tmp_data, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644
            )
        self._uncommitted.append(self._tmp_data)
        self._size = 0
        # A durable save starts the disk writing as the data file grows.
        self._writeback = _fileio.Writeback(self._fd) if sync else None
        self._entries: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}

    def _check_key(self, key: bytes) -> None:
        if key == HEADER_KEY:
            raise errors.InvalidArgumentError(None, None, "a tensor may not have the empty name")
        if key in self._entries and not self._entries[key].slices:
            raise errors.InvalidArgumentError(
                None, None, f"Adding duplicate key: {key.decode(errors='replace')}"
            )

    def _append(self, key: bytes, arr: np.ndarray, name: str) -> tensor_bundle_pb2.BundleEntryProto:
        assert self._fd is not None, "BundleWriter is closed"
        entry = tensor_bundle_pb2.BundleEntryProto()
        entry.dtype = numpy_to_dtype(arr.dtype)
        entry.shape.SetInParent()  # TF writes an empty shape for scalars
        for d in arr.shape:
            entry.shape.dim.add().size = d
        entry.shard_id = 0
        entry.offset = self._size
        if entry.dtype == _DT.DT_STRING:
            strings = _string_bytes(arr, name)
            lengths = b"".join(_varint(len(s)) for s in strings)
            crc = 0
            for s in strings:
                n = len(s)
                crc = _crc32c.extend(crc, struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n))
            length_crc = struct.pack("<I", _crc32c.mask(crc))
            crc = _crc32c.extend(crc, length_crc)
            body = b"".join(strings)
            crc = _crc32c.extend(crc, body)
            blob = lengths + length_crc + body
            _fileio.write_all(self._fd, blob)
            size = len(blob)
            if self._writeback is not None:
                self._writeback.wrote(self._size + size)
        else:
            data = np.ascontiguousarray(arr)
            if data.dtype.byteorder == ">":
                data = data.astype(data.dtype.newbyteorder("<"))
            raw = data.reshape(-1).view(np.uint8)
            crc = _write_checksummed(self._fd, raw, self._writeback, self._size)
            size = raw.nbytes
        entry.size = size
        entry.crc32c = _crc32c.mask(crc)
        self._size += size
        return entry

    def _append_or_abort(self, key: bytes, arr: np.ndarray, name: str) -> Any:
        """:meth:`_append`; a failed write removes this writer's files first."""
        try:
            return self._append(key, arr, name)
        except OSError as exc:
            self.abort()
            raise errors.from_os_error(exc, self._tmp_data) from exc

    def add(self, name: str, value: Any) -> None:
        """Adds the tensor ``value`` (array-like, ``jax.Array``, bytes/str) under ``name``.

        Raises:
          InvalidArgumentError: an empty or duplicate name, a dtype TF cannot store.
          OpError: the write failed (e.g. ``ResourceExhaustedError``); the writer's
            files are removed.
        """
        key = name.encode()
        self._check_key(key)
        if key in self._entries:
            raise errors.InvalidArgumentError(None, None, f"Adding duplicate key: {name}")
        self._entries[key] = self._append_or_abort(key, _as_array(value), name)

    def add_slice(
        self,
        name: str,
        full_shape: Sequence[int],
        extents: Sequence[tuple[int, int]],
        value: Any,
    ) -> None:
        """Adds one slice of the partitioned tensor ``name`` (TF's ``AddSlice``).

        Args:
          name: the full tensor's name.
          full_shape: the full tensor's shape.
          extents: ``(start, length)`` per dimension, ``length == -1`` meaning all.
          value: the slice's values, shaped as the slice.
        """
        arr = _as_array(value)
        full_shape = tuple(int(d) for d in full_shape)
        if len(extents) != len(full_shape):
            raise errors.InvalidArgumentError(
                None, None, f"slice of {name!r}: {len(extents)} extents for rank {len(full_shape)}"
            )
        expect = tuple(
            d if ln == -1 else ln for (_, ln), d in zip(extents, full_shape, strict=True)
        )
        if tuple(arr.shape) != expect:
            raise errors.InvalidArgumentError(
                None, None, f"slice of {name!r}: value shape {arr.shape} vs slice shape {expect}"
            )
        if all(
            ln == -1 or (st == 0 and ln == d)
            for (st, ln), d in zip(extents, full_shape, strict=True)
        ):
            self.add(name, arr)
            return
        key = name.encode()
        full = self._entries.get(key)
        if full is None:
            full = tensor_bundle_pb2.BundleEntryProto()
            full.dtype = numpy_to_dtype(arr.dtype)
            for d in full_shape:
                full.shape.dim.add().size = d
            self._entries[key] = full
        elif not full.slices or full.dtype != numpy_to_dtype(arr.dtype):
            raise errors.InvalidArgumentError(
                None, None, f"slice of {name!r} conflicts with the tensor already added"
            )
        proto = full.slices.add()
        for st, ln in extents:
            e = proto.extent.add()
            if ln != -1:
                e.start = st
                e.length = ln
        skey = encode_tensor_name_slice(name, list(extents))
        self._entries[skey] = self._append_or_abort(skey, arr, name)

    def finish(self) -> None:
        """Writes the index and makes the checkpoint visible (renames, fsync).

        Raises:
          OpError: a write or rename failed (e.g. ``ResourceExhaustedError``, naming
            the file); this writer's files are removed and ``PREFIX`` still names
            the checkpoint it named before.
        """
        if self._fd is None:
            return
        try:
            self._commit()
        except BaseException:
            self.abort()
            raise

    def _commit(self) -> None:
        fd, self._fd = self._fd, None
        assert fd is not None, "BundleWriter is closed"
        with _fileio.io(self._tmp_data):
            try:
                if self._sync:
                    os.fsync(fd)
            finally:
                os.close(fd)
        # Same-prefix save: the new data must not replace a file the current index
        # references, or a reader could pair the old index with the new data.
        num_shards = 2 if _current_num_shards(self._prefix) == 1 else 1
        header = tensor_bundle_pb2.BundleHeaderProto(num_shards=num_shards)
        header.endianness = tensor_bundle_pb2.BundleHeaderProto.LITTLE
        header.version.producer = VERSION
        header.version.min_consumer = MIN_CONSUMER
        items = [(HEADER_KEY, header.SerializeToString())]
        items += [(k, self._entries[k].SerializeToString()) for k in sorted(self._entries)]
        index = _table.write_table(items)
        self._write_new(self._tmp_meta, index)
        renames = [(self._tmp_data, data_filename(self._prefix, 0, num_shards))]
        if num_shards == 2:
            self._write_new(self._tmp_empty, b"")
            renames.append((self._tmp_empty, data_filename(self._prefix, 1, 2)))
        for tmp, final in renames:
            with _fileio.io(final):
                os.replace(tmp, final)
            self._uncommitted[self._uncommitted.index(tmp)] = final
        if self._sync:
            # The data's renames are durable before the index's (power loss).
            _fileio.fsync_dir(os.path.dirname(self._prefix))
        with _fileio.io(meta_filename(self._prefix)):
            os.replace(self._tmp_meta, meta_filename(self._prefix))
        # Committed: the new index names the new data.
        keep = {os.path.basename(final) for _, final in renames}
        self._uncommitted = []
        if self._sync:
            _fileio.fsync_dir(os.path.dirname(self._prefix))
        for stale in _data_files(self._prefix):
            if os.path.basename(stale) not in keep:
                _fileio.remove_quietly(stale)

    def _write_new(self, path: str, data: bytes) -> None:
        self._uncommitted.append(path)
        with _fileio.io(path):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                _fileio.write_all(fd, data)
                if self._sync:
                    os.fsync(fd)
            finally:
                os.close(fd)

    def abort(self) -> None:
        """Closes and removes this writer's files; nothing becomes visible."""
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None
        uncommitted, self._uncommitted = self._uncommitted, []
        for path in uncommitted:
            _fileio.remove_quietly(path)

    def __enter__(self) -> BundleWriter:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.finish()
        else:
            self.abort()


def write_tf_checkpoint(prefix: str, tensors: Mapping[str, Any], *, sync: bool = True) -> str:
    """Writes ``tensors`` (name -> array-like) as a TF V2 checkpoint at ``prefix``.

    TF reads it with ``tf.train.load_checkpoint(prefix)`` or ``Saver.restore``.

    Args:
      prefix: the checkpoint prefix (``DIR/model.ckpt-STEP``).
      tensors: names (TF variable names, e.g. ``dense/kernel``, ``w/Adam``) to values:
        NumPy or JAX arrays of any dtype in TF's set (bfloat16 through
        ``ml_dtypes``), Python scalars, bytes/str (string tensors, object arrays).
      sync: fsync before the files become visible (default True).

    Returns:
      ``prefix``.

    Raises:
      InvalidArgumentError: a dtype TF cannot store, an empty or duplicate name.
    """
    with BundleWriter(prefix, sync=sync) as w:
        for name, value in tensors.items():
            w.add(name, value)
    return os.fspath(prefix)


# --- reading ------------------------------------------------------------------------

# ``get_tensors``: threads (TF's RestoreV2 reads with a pool of 8) and the largest read.
_READ_THREADS = 8
_READ_PIECE = 16 << 20
# The alignment of the arrays ``get_tensors`` returns (XLA:CPU's for zero-copy buffers).
_ALIGNMENT = 64


class _Converted(dict):
    """``get_tensors``' results: each array stored through ``convert`` (if given)."""

    def __init__(self, convert: Callable[[str, np.ndarray], Any] | None):
        super().__init__()
        self._convert = convert

    def __setitem__(self, name: str, array: Any) -> None:
        convert = self._convert
        super().__setitem__(name, array if convert is None else convert(name, array))


def _raise(error: BaseException) -> None:
    raise error


class _PieceRead:
    """One numeric tensor read by ``get_tensors`` in pieces (one job each); the job
    that completes the last piece verifies the checksum and stores the array."""

    def __init__(self, reader: BundleReader, name: str, entry: Any, out: _Converted):
        self._reader, self._name, self._entry, self._out = reader, name, entry, out
        self._array, self._raw, self._fd, self._path = reader._allocate(name, entry, True)
        self._left = max(1, -(-entry.size // _READ_PIECE))
        self._lock = threading.Lock()

    def jobs(self) -> list[Any]:
        starts = range(0, self._entry.size, _READ_PIECE) if self._entry.size else [0]
        return [functools.partial(self._piece, start) for start in starts]

    def _piece(self, start: int) -> None:
        piece = self._raw[start : start + _READ_PIECE]
        self._reader._pread(self._fd, piece, self._entry.offset + start, self._path, self._name)
        with self._lock:
            self._left -= 1
            last = self._left == 0
        if last:
            actual = _crc32c.value(self._raw)
            self._out[self._name] = self._reader._verified(
                self._name, self._entry, self._array, self._path, actual
            )


# How many times a reader starts over when the index is replaced while it opens the
# checkpoint (each attempt is one save racing it: a reader of a checkpoint that is
# saved over continuously still opens it on the first or second attempt).
_OPEN_ATTEMPTS = 100


def _closest(name: str, names: Iterable[str]) -> str:
    names = sorted(names)
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.5)
    if not close:
        close = names[:5]
    return ", ".join(close) if close else "(the checkpoint holds no tensors)"


class BundleReader:
    """Reads a tensor bundle (TF's ``BundleReader``); verifies every checksum.

    Args:
      prefix: the checkpoint prefix (the path without ``.index``).

    Raises:
      NotFoundError: ``PREFIX.index`` does not exist.
      DataLossError: the index is truncated or corrupt.
    """

    def __init__(self, prefix: str):
        self._prefix = os.fspath(prefix)
        self._index_path = meta_filename(self._prefix)
        self._fds: dict[int, int] = {}
        self._fd_lock = threading.Lock()
        # The index and the data files it names are opened as one consistent set: if
        # the index was replaced meanwhile (a save to the same prefix), start over.
        for _ in range(_OPEN_ATTEMPTS):
            index_fd, raw = self._read_index()
            try:
                self._parse_index(raw)
                self._open_data_files()
                if self._index_unchanged(index_fd):
                    return
            finally:
                os.close(index_fd)
            self.close()
        raise errors.AbortedError(
            None,
            None,
            f"checkpoint {self._prefix} was replaced {_OPEN_ATTEMPTS} times while being "
            "opened; retry",
        )

    def _read_index(self) -> tuple[int, bytes]:
        """An open descriptor of the index (kept open so its inode is not reused) and
        its bytes."""
        try:
            fd = os.open(self._index_path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            raise errors.NotFoundError(
                None,
                None,
                f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
                f"for {self._prefix} ({self._index_path} does not exist)",
            ) from None
        except OSError as exc:
            raise errors.from_os_error(exc, self._index_path) from exc
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise errors.NotFoundError(
                    None, None, f"{self._index_path} is a directory, not a checkpoint index"
                )
            if not stat.S_ISREG(st.st_mode):
                raise errors.FailedPreconditionError(
                    None, None, f"{self._index_path} is not a regular file; not read"
                )
            with _fileio.io(self._index_path):
                raw = os.read(fd, st.st_size) if st.st_size else b""
                while len(raw) < st.st_size:
                    more = os.read(fd, st.st_size - len(raw))
                    if not more:
                        break
                    raw += more
        except BaseException:
            os.close(fd)
            raise
        return fd, raw

    def _index_unchanged(self, index_fd: int) -> bool:
        try:
            now = os.stat(self._index_path)
        except OSError:
            return False
        then = os.fstat(index_fd)
        return (now.st_dev, now.st_ino) == (then.st_dev, then.st_ino)

    def _open_data_files(self) -> None:
        """Opens the data files in shard order, up to the first missing one (reading
        a tensor there raises ``DataLossError``)."""
        for shard in range(self._num_shards):
            try:
                self._open_fd(shard)
            except errors.DataLossError:
                break

    def _parse_index(self, raw: bytes) -> None:
        items = _table.read_table(raw, self._index_path)
        if not items or items[0][0] != HEADER_KEY:
            raise errors.DataLossError(
                None, None, f"corrupt checkpoint index {self._index_path}: no header entry"
            )
        header = tensor_bundle_pb2.BundleHeaderProto()
        self._parse(header, items[0][1], "the header")
        if header.num_shards < 1:
            raise errors.DataLossError(
                None,
                None,
                f"corrupt checkpoint index {self._index_path}: {header.num_shards} shards",
            )
        if header.version.min_consumer > VERSION or header.version.producer < MIN_PRODUCER:
            raise errors.DataLossError(
                None,
                None,
                f"checkpoint {self._prefix}: format version producer={header.version.producer} "
                f"min_consumer={header.version.min_consumer} not readable by version {VERSION}",
            )
        if any(bad == VERSION for bad in header.version.bad_consumers):
            raise errors.DataLossError(
                None, None, f"checkpoint {self._prefix}: version {VERSION} is a bad consumer"
            )
        self._num_shards = header.num_shards
        self._big_endian = header.endianness == tensor_bundle_pb2.BundleHeaderProto.BIG
        self._raw: dict[bytes, bytes] = {}
        prev = None
        for key, value in items[1:]:
            if prev is not None and key <= prev:
                raise errors.DataLossError(
                    None, None, f"corrupt checkpoint index {self._index_path}: keys out of order"
                )
            prev = key
            self._raw[key] = value
        self._entries: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}
        # Variables: every key but the slices of partitioned tensors.
        slice_keys: set[bytes] = set()
        self._names: dict[str, bytes] = {}
        for key in self._raw:
            entry = self._entry(key)
            if entry.slices:
                name = self._decode_name(key)
                for s in entry.slices:
                    slice_keys.add(encode_tensor_name_slice(name, _slice_extents(s)))
        for key in self._raw:
            if key not in slice_keys:
                self._names[self._decode_name(key)] = key

    # -- helpers --
    def _decode_name(self, key: bytes) -> str:
        try:
            return key.decode()
        except UnicodeDecodeError:
            return key.decode("latin-1")

    def _parse(self, msg: Any, raw: bytes, what: str) -> None:
        try:
            msg.ParseFromString(raw)
        except (DecodeError, ValueError, RuntimeError) as e:
            raise errors.DataLossError(
                None,
                None,
                f"corrupt checkpoint index {self._index_path}: {what} not parseable: {e}",
            ) from None

    def _entry(self, key: bytes) -> tensor_bundle_pb2.BundleEntryProto:
        entry = self._entries.get(key)
        if entry is None:
            entry = tensor_bundle_pb2.BundleEntryProto()
            self._parse(entry, self._raw[key], f"entry for {self._decode_name(key)!r}")
            if entry.shape.unknown_rank or any(d.size < 0 for d in entry.shape.dim):
                raise errors.DataLossError(
                    None,
                    None,
                    f"Invalid tensor shape for {self._decode_name(key)!r} in {self._index_path}",
                )
            self._entries[key] = entry
        return entry

    def _fd(self, shard: int) -> int:
        with self._fd_lock:
            return self._open_fd(shard)

    def _open_fd(self, shard: int) -> int:
        fd = self._fds.get(shard)
        if fd is None:
            path = data_filename(self._prefix, shard, self._num_shards)
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            except FileNotFoundError:
                raise errors.DataLossError(
                    None, None, f"data file {path} of checkpoint {self._prefix} is missing"
                ) from None
            except OSError as exc:
                raise errors.from_os_error(exc, path) from exc
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise errors.DataLossError(
                    None, None, f"data file {path} of checkpoint {self._prefix} is not a file"
                )
            if hasattr(os, "posix_fadvise"):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
            self._fds[shard] = fd
        return fd

    def close(self) -> None:
        """Closes the data files (reopened on demand)."""
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            os.close(fd)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self) -> BundleReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- public --
    @property
    def prefix(self) -> str:
        return self._prefix

    def names(self) -> list[str]:
        """The variables' names, sorted (slices of partitioned tensors excluded)."""
        return sorted(self._names)

    def has_tensor(self, name: str) -> bool:
        return name in self._names

    def _lookup(self, name: str) -> tuple[bytes, tensor_bundle_pb2.BundleEntryProto]:
        key = self._names.get(name)
        if key is None:
            raise errors.NotFoundError(
                None,
                None,
                f"Key {name} not found in checkpoint {self._prefix}; closest names present: "
                f"{_closest(name, self._names)}",
            )
        return key, self._entry(key)

    def shape(self, name: str) -> tuple[int, ...]:
        _, entry = self._lookup(name)
        return tuple(d.size for d in entry.shape.dim)

    def dtype(self, name: str) -> np.dtype:
        _, entry = self._lookup(name)
        return dtype_to_numpy(entry.dtype)

    def entry(self, name: str) -> tensor_bundle_pb2.BundleEntryProto:
        """The ``BundleEntryProto`` of a variable."""
        return self._lookup(name)[1]

    def get_tensor(self, name: str) -> np.ndarray:
        """The value of ``name`` as a NumPy array (strings as an object array of bytes).

        Raises:
          NotFoundError: no such variable (the message lists the closest names).
          DataLossError: a checksum fails or a file is truncated (names file and tensor).
        """
        key, entry = self._lookup(name)
        self._check_declared_size(name, entry)
        if entry.slices:
            return self._read_sliced(name, entry)
        return self._read(name, entry)

    def _check_declared_size(self, name: str, entry: tensor_bundle_pb2.BundleEntryProto) -> None:
        """Refuses a declared shape the data files cannot hold, before anything is
        allocated for it (a corrupt index must not make the reader allocate terabytes)."""
        dtype = dtype_to_numpy(entry.dtype)
        n = 1
        for d in entry.shape.dim:
            n *= d.size
        # A string element takes at least its one-byte length.
        need = n if dtype == np.dtype(object) else n * dtype.itemsize
        with self._fd_lock:
            have = 0
            for shard in range(self._num_shards):
                try:
                    have += os.fstat(self._open_fd(shard)).st_size
                except errors.DataLossError:
                    break
        if need > have:
            raise errors.DataLossError(
                None,
                None,
                f"tensor {name!r} in {self._index_path}: declared shape "
                f"{[d.size for d in entry.shape.dim]} of {dtype} needs {need} bytes, more than "
                f"the {have} bytes of the checkpoint's data files: the index is corrupt",
            )

    def get_tensors(
        self,
        names: Sequence[str] | None = None,
        *,
        num_threads: int = _READ_THREADS,
        convert: Callable[[str, np.ndarray], Any] | None = None,
    ) -> dict[str, Any]:
        """Several tensors at once (default: all), read by ``num_threads`` threads.

        What a restore wants on a cold cache: the numeric tensors are read in pieces
        of at most 16 MB, in file order, by ``num_threads`` threads (8 by default,
        the size of TF's ``RestoreV2`` reader pool), each piece straight into its
        slice of the returned array (``preadv``, which releases the GIL: several
        requests in flight, no second copy; the arrays are 64-byte aligned, so a
        CPU device takes them without a copy either); a tensor's CRC32C (GIL released too) is
        computed by the thread that read its last piece, while the others go on
        reading. String and partitioned tensors are read whole, one per thread.

        Args:
          names: the tensors to read (default None: all).
          num_threads: how many threads read (default 8).
          convert: ``convert(name, array)`` gives the value returned for ``name``,
            called by the thread that read it, as soon as its checksum matched (e.g.
            the copy to a device, overlapping the other reads); default None: the
            NumPy arrays themselves.

        Returns:
          name -> value (a NumPy array, or what ``convert`` made of it), in the order
          of ``names``.

        Raises:
          NotFoundError, DataLossError: as :meth:`get_tensor` (the first failure,
            in the order of ``names``).
        """
        names = self.names() if names is None else list(names)
        entries = [self._lookup(name)[1] for name in names]  # NotFoundError before any read
        if num_threads <= 1 or not names:
            if convert is None:
                return {name: self.get_tensor(name) for name in names}
            return {name: convert(name, self.get_tensor(name)) for name in names}
        out = _Converted(convert)
        jobs: list[tuple[str, Any]] = []  # (name, job) in file order within a tensor
        for name, entry in zip(names, entries, strict=True):
            self._check_declared_size(name, entry)
            if entry.slices or dtype_to_numpy(entry.dtype) == np.dtype(object):
                jobs.append((name, functools.partial(self._whole, name, out)))
                continue
            try:
                read = _PieceRead(self, name, entry, out)
            except errors.DataLossError as e:  # raised below, in the caller's order
                jobs.append((name, functools.partial(_raise, e)))
                continue
            jobs.extend((name, job) for job in read.jobs())
        if len(jobs) == 1:
            jobs[0][1]()
            return out
        with concurrent.futures.ThreadPoolExecutor(min(num_threads, len(jobs))) as pool:
            futures = [(name, pool.submit(job)) for name, job in jobs]
        failed = {name for name, f in futures if f.exception() is not None}
        for name in names:  # the first failure in the caller's order
            if name in failed:
                for n, f in futures:
                    if n == name and f.exception() is not None:
                        raise cast(BaseException, f.exception())
        return {name: out[name] for name in names}

    def _whole(self, name: str, out: _Converted) -> None:
        out[name] = self.get_tensor(name)

    def _read(self, name: str, entry: tensor_bundle_pb2.BundleEntryProto) -> np.ndarray:
        dtype = dtype_to_numpy(entry.dtype)
        shape = tuple(d.size for d in entry.shape.dim)
        if dtype == np.dtype(object):
            fd, path = self._checked_range(name, entry)
            n = 1
            for d in shape:
                n *= d
            return self._read_strings(name, entry, fd, path, shape, n)
        out, raw, fd, path = self._allocate(name, entry)
        actual = self._pread_checksummed(fd, raw, entry.offset, path, name)
        return self._verified(name, entry, out, path, actual)

    def _checked_range(
        self, name: str, entry: tensor_bundle_pb2.BundleEntryProto
    ) -> tuple[int, str]:
        """The data file holding ``entry`` (its fd and path), refusing a bad shard or
        a byte range past the end of the file."""
        path = data_filename(self._prefix, entry.shard_id, self._num_shards)
        if not 0 <= entry.shard_id < self._num_shards:
            raise errors.DataLossError(
                None, None, f"tensor {name!r} in {self._index_path}: bad shard {entry.shard_id}"
            )
        fd = self._fd(entry.shard_id)
        file_size = os.fstat(fd).st_size
        if entry.offset < 0 or entry.size < 0 or entry.offset + entry.size > file_size:
            raise errors.DataLossError(
                None,
                None,
                f"tensor {name!r}: bytes [{entry.offset}, {entry.offset + entry.size}) lie "
                f"past the end of {path} ({file_size} bytes): the file is truncated",
            )
        return fd, path

    def _allocate(
        self, name: str, entry: tensor_bundle_pb2.BundleEntryProto, aligned: bool = False
    ) -> tuple[np.ndarray, np.ndarray, int, str]:
        """The array a numeric tensor is read into, its bytes, and the file's fd and path.

        ``aligned``: the array starts on a 64-byte boundary, which lets JAX's CPU
        client take it without a copy (``jax.device_put`` aliases such arrays).
        """
        fd, path = self._checked_range(name, entry)
        dtype = dtype_to_numpy(entry.dtype)
        shape = tuple(d.size for d in entry.shape.dim)
        n = 1
        for d in shape:
            n *= d
        if n * dtype.itemsize != entry.size:
            raise errors.DataLossError(
                None,
                None,
                f"tensor {name!r} in {path}: {entry.size} bytes stored for shape {list(shape)} "
                f"of {dtype} ({n * dtype.itemsize} bytes expected)",
            )
        if not aligned:
            out = np.empty(shape, dtype=dtype)
            return out, out.reshape(-1).view(np.uint8), fd, path
        block = np.empty(entry.size + _ALIGNMENT, np.uint8)
        start = -block.ctypes.data % _ALIGNMENT
        raw = block[start : start + entry.size]
        return raw.view(dtype).reshape(shape), raw, fd, path

    def _verified(
        self,
        name: str,
        entry: tensor_bundle_pb2.BundleEntryProto,
        out: np.ndarray,
        path: str,
        actual: int,
    ) -> np.ndarray:
        """``out`` once its bytes' CRC32C ``actual`` matched the stored one."""
        if actual != _crc32c.unmask(entry.crc32c):
            raise errors.DataLossError(
                None,
                None,
                f"Checksum does not match for tensor {name!r} in {path} "
                f"(shard {entry.shard_id}, {entry.size} bytes at offset {entry.offset}): stored "
                f"{_crc32c.unmask(entry.crc32c):08d} vs. calculated on the restored bytes {actual}",
            )
        if self._big_endian and out.dtype.itemsize > 1:
            out = out.view(out.dtype.newbyteorder(">")).astype(out.dtype)
        return out

    def _pread(self, fd: int, raw: np.ndarray, offset: int, path: str, name: str) -> None:
        view = raw.data  # a writable memoryview of the array
        done = 0
        total = len(view)
        while done < total:
            n = os.preadv(fd, [view[done:]], offset + done)
            if n == 0:
                raise errors.DataLossError(
                    None, None, f"tensor {name!r}: unexpected end of {path} (file truncated)"
                )
            done += n

    def _pread_checksummed(
        self, fd: int, raw: np.ndarray, offset: int, path: str, name: str
    ) -> int:
        """Reads ``raw`` from ``offset`` in one request and returns its CRC32C.

        One large read lets the kernel issue large requests on a cold cache (1 MB
        reads, or a few threads reading pieces, measured slower here).
        """
        self._pread(fd, raw, offset, path, name)
        return _crc32c.value(raw)

    def _read_strings(
        self,
        name: str,
        entry: tensor_bundle_pb2.BundleEntryProto,
        fd: int,
        path: str,
        shape: tuple[int, ...],
        n: int,
    ) -> np.ndarray:
        if entry.size == 0:
            if n:
                raise errors.DataLossError(
                    None, None, f"string tensor {name!r} in {path}: 0 bytes for {n} elements"
                )
            return np.empty(shape, dtype=object)
        if n > entry.size:
            raise errors.DataLossError(
                None, None, f"string tensor {name!r} in {path}: {n} elements in {entry.size} bytes"
            )
        out = np.empty(shape, dtype=object)
        buf = np.empty(entry.size, np.uint8)
        self._pread(fd, buf, entry.offset, path, name)
        blob = buf.tobytes()
        pos = 0
        lengths = []
        crc = 0
        bad = errors.DataLossError(
            None, None, f"string tensor {name!r} in {path}: lengths run past its {entry.size} bytes"
        )
        for _ in range(n):
            value = 0
            shift = 0
            while True:
                if pos >= len(blob) or shift > 63:
                    raise bad
                b = blob[pos]
                pos += 1
                value |= (b & 0x7F) << shift
                if b < 0x80:
                    break
                shift += 7
            lengths.append(value)
            crc = _crc32c.extend(crc, struct.pack("<I" if value <= 0xFFFFFFFF else "<Q", value))
        if pos + 4 > len(blob):
            raise bad
        (stored_len_crc,) = struct.unpack_from("<I", blob, pos)
        if _crc32c.unmask(stored_len_crc) != crc:
            raise errors.DataLossError(
                None,
                None,
                f"string tensor {name!r} in {path}: the length checksum does not match",
            )
        crc = _crc32c.extend(crc, blob[pos : pos + 4])
        pos += 4
        if pos + sum(lengths) != len(blob):
            raise errors.DataLossError(
                None,
                None,
                f"string tensor {name!r} in {path}: {len(blob)} bytes stored, "
                f"{pos + sum(lengths)} expected",
            )
        crc = _crc32c.extend(crc, blob[pos:])
        if crc != _crc32c.unmask(entry.crc32c):
            raise errors.DataLossError(
                None,
                None,
                f"Checksum does not match for tensor {name!r} in {path}: stored "
                f"{_crc32c.unmask(entry.crc32c):08d} vs. calculated on the restored bytes {crc}",
            )
        flat = out.reshape(-1)
        for i, ln in enumerate(lengths):
            flat[i] = blob[pos : pos + ln]
            pos += ln
        return out

    def _read_sliced(self, name: str, entry: tensor_bundle_pb2.BundleEntryProto) -> np.ndarray:
        dtype = dtype_to_numpy(entry.dtype)
        shape = tuple(d.size for d in entry.shape.dim)
        out = np.empty(shape, dtype=dtype)
        covered = np.zeros(shape, dtype=bool)
        for proto in entry.slices:
            extents = _slice_extents(proto)
            if len(extents) != len(shape):
                raise errors.DataLossError(
                    None,
                    None,
                    f"partitioned tensor {name!r}: slice rank {len(extents)} != {len(shape)}",
                )
            index = []
            for (st, ln), d in zip(extents, shape, strict=True):
                if ln == -1:
                    index.append(slice(0, d))
                elif st < 0 or ln < 0 or st + ln > d:
                    raise errors.DataLossError(
                        None,
                        None,
                        f"partitioned tensor {name!r}: slice {extents} outside {list(shape)}",
                    )
                else:
                    index.append(slice(st, st + ln))
            skey = encode_tensor_name_slice(name, extents)
            if skey not in self._raw:
                raise errors.DataLossError(
                    None,
                    None,
                    f"partitioned tensor {name!r}: slice {extents} missing from {self._index_path}",
                )
            sentry = self._entry(skey)
            if sentry.dtype != entry.dtype or sentry.slices:
                raise errors.DataLossError(
                    None, None, f"partitioned tensor {name!r}: slice {extents} has a bad entry"
                )
            part = self._read(f"{name} (slice {extents})", sentry)
            target = tuple(index)
            if part.shape != out[target].shape:
                raise errors.DataLossError(
                    None,
                    None,
                    f"partitioned tensor {name!r}: slice {extents} stored with shape {part.shape}",
                )
            out[target] = part
            covered[target] = True
        if not covered.all():
            raise errors.DataLossError(
                None, None, f"partitioned tensor {name!r}: its slices do not cover {list(shape)}"
            )
        return out
