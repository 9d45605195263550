"""Datasets reading files: ``TFRecordDataset`` and ``TextLineDataset``.

Each reads its files one after another, in the order given, each to its end, as
TF's readers do with ``num_parallel_reads=None``. Records come from
``jtrain.records.tf_record_iterator`` (both checksums verified; a corrupt record
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

__all__ = ["TFRecordDataset", "TextLineDataset"]

_log = logging.getLogger(__name__)


class _FileDataset(DatasetV1):
    """Scalar string elements read from ``filenames`` (a string, a list or a tensor)."""

    def __init__(self, filenames: Any, compression_type: Any = None):
        if isinstance(filenames, ops.Tensor):
            if filenames.dtype != dtypes.string:
                raise TypeError(f"`filenames` must be a tf.string tensor, got {filenames.dtype}")
        self._filenames = _component(filenames)
        if not isinstance(self._filenames, ops.Tensor) and self._filenames.dtype.kind != "O":
            raise TypeError(f"`filenames` must be strings, got {filenames!r}")
        self._compression = compression_type
        self._structure = Spec.of((), dtypes.string)

    def _captures(self) -> list[ops.Tensor]:
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
      num_parallel_reads: accepted; files are read one after another, in order.
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

    def _records(self, path: str, compression: str) -> Iterator[bytes]:
        return tf_record_iterator(path, compression)


class TextLineDataset(_FileDataset):
    """The lines of text files (without their ``\\n`` or ``\\r\\n``), as scalar
    ``tf.string`` elements.

    Args:
      filenames: a file name, a list of them, or a ``tf.string`` tensor of them.
      compression_type: ``""`` (default), ``"ZLIB"`` or ``"GZIP"``.
      buffer_size: accepted, unused.
      num_parallel_reads: accepted; files are read one after another, in order.
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

    def _records(self, path: str, compression: str) -> Iterator[bytes]:
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
        if not data:
            return
        for line in data.split(b"\n")[: -1 if data.endswith(b"\n") else None]:
            yield line[:-1] if line.endswith(b"\r") else line
