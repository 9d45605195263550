"""``tf.data.experimental.CsvDataset``: the records of CSV files, one scalar per column.

Parsed as TF's ``CSVDataset`` kernel parses (RFC 4180 with TF's choices): records end
at ``\\n``, ``\\r`` or ``\\r\\n``; with ``use_quote_delim`` a field starting with
``"`` is quoted (it may hold the delimiter and line breaks, ``""`` is one quote); an
empty field or ``na_value`` takes the column's default, or is an error for a column
given as a dtype; numbers are parsed as TF's ``safe_strto*`` (surrounding spaces
and a sign allowed). A bad record is an ``InvalidArgumentError`` at its
``get_next``, and the next ``get_next`` goes on with the following record, as TF's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.data.dataset_ops import Element, Run
from adapters.v1.data.readers import _FileDataset, read_all
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes, ops
from jtrain import errors

__all__ = ["CsvDataset"]

_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_INT = re.compile(rb"^\s*[+-]?\d+\s*$")
_FLOAT = re.compile(
    rb"^\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)\s*$",
    re.IGNORECASE,
)
_NAMES = {
    dtypes.int32: "int32",
    dtypes.int64: "int64",
    dtypes.float32: "float",
    dtypes.float64: "double",
}
_QUOTE, _LF, _CR = ord('"'), ord("\n"), ord("\r")


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


# TF's DataType enum values and names of the CSV dtypes: ``x in (tf.float32, ...)``, as
# TF tests a record default, is True for them (``tf.string == 7``).
_ENUM = {1: dtypes.float32, 2: dtypes.float64, 3: dtypes.int32, 7: dtypes.string, 9: dtypes.int64}
_BY_NAME = {
    "float32": dtypes.float32,
    "float": dtypes.float32,
    "float64": dtypes.float64,
    "double": dtypes.float64,
    "int32": dtypes.int32,
    "int64": dtypes.int64,
    "string": dtypes.string,
}


def _as_csv_dtype(default: Any) -> dtypes.DType | None:
    """The CSV dtype ``default`` compares equal to, as TF's ``DType.__eq__`` finds it
    (an enum value, a NumPy value's dtype, a dtype name), else None."""
    if isinstance(default, dtypes.DType):
        return default
    if isinstance(default, str):
        return _BY_NAME.get(default)
    if isinstance(default, (bool, int, float, np.generic)):
        try:
            found = _ENUM.get(default)
        except TypeError:
            found = None
        if found is not None:
            return found
    if isinstance(default, (np.generic, np.ndarray)) and default.dtype.kind != "O":
        dtype = dtypes.as_dtype(default.dtype)
        return dtype if dtype in _TYPES else None
    return None


def _column(default: Any) -> tuple[dtypes.DType, Any]:
    """A record default's ``(dtype, default value or None for a required column)``,
    as TF reads ``record_defaults``.

    .. note:: As TF's, a value equal to a CSV dtype makes the column required: NumPy
       values (``np.int64(-1)``: ``tf.int64``), the Python numbers 1, 2, 3, 7 and 9
       (TF's DataType enum values: 7 is ``tf.string``) and dtype names (``"int64"``).
    """
    dtype = _as_csv_dtype(default)
    if isinstance(default, dtypes.DType) and dtype not in _TYPES:
        raise TypeError(
            f"Failed to convert elements of <dtype: '{default.name}'> to Tensor. Consider "
            "casting elements to a supported type. See "
            "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes."
        )
    if dtype is not None:
        return dtype, None
    if isinstance(default, ops.Tensor) or hasattr(default, "_as_graph_tensor"):
        from adapters.v1.framework.tensor_util import get_static_value

        tensor = ops.convert_to_tensor(default)
        value = get_static_value(tensor)
        if value is None:
            raise NotImplementedError(
                "CsvDataset's record_defaults must be known when the graph is built "
                "(constants or Python values) in adapters.v1"
            )
        dtype = tensor.dtype.base_dtype
    else:
        from adapters.v1.ops.constant_op import literal_array

        value = literal_array(default)
        dtype = dtypes.string if value.dtype.kind == "O" else dtypes.as_dtype(value.dtype)
    flat = np.asarray(value, dtype=object if dtype == dtypes.string else None).ravel()
    return dtype, (flat[0] if flat.size == 1 else None)


def _convert(field: bytes, index: int, dtype: dtypes.DType, default: Any, na: bytes) -> Any:
    """One field as its column's value (TF's ``FieldToOutput``)."""
    if not field or field == na:
        if default is None:
            raise _invalid(f"Field {index} is required but missing in record!")
        value = default
    elif dtype == dtypes.string:
        value = field
    else:
        bad = _invalid(
            f"Field {index} in record is not a valid {_NAMES[dtype]}: {field.decode('latin-1')}"
        )
        if dtype.is_floating:
            if not _FLOAT.match(field):
                raise bad
            value = float(field)
        else:
            if not _INT.match(field) or not dtype.min <= int(field) <= dtype.max:
                raise bad
            value = int(field)
    if dtype == dtypes.string:
        out = np.empty((), dtype=object)
        out[()] = value if isinstance(value, bytes) else str(value).encode()
        return out
    return np.asarray(value, dtype=dtype.as_numpy_dtype)


def _split_record(
    data: bytes, pos: int, delim: int, quotes: bool
) -> tuple[list[tuple[bytes | None, Exception | None]], int]:
    """The raw fields of the record at ``pos`` and where the next one starts. A field
    is ``(text, error)``: a quoting error (``text`` None: the field gives no value)."""
    n = len(data)
    fields: list[tuple[bytes | None, Exception | None]] = []
    while True:
        if pos >= n:  # the record's last field is empty (a delimiter ended the file)
            fields.append((b"", None))
            return fields, pos
        if quotes and data[pos] == _QUOTE:
            pos += 1
            text = bytearray()
            error: Exception | None = None
            while True:
                if pos >= n:
                    fields.append(
                        (
                            None,
                            _invalid("Reached end of file without closing quoted field in record"),
                        )
                    )
                    return fields, n
                ch = data[pos]
                pos += 1
                if ch != _QUOTE:
                    text.append(ch)
                    continue
                if pos >= n:
                    fields.append((None if error else bytes(text), error))
                    return fields, n
                nxt = data[pos]
                pos += 1
                if nxt == delim or nxt in (_LF, _CR):
                    fields.append((None if error else bytes(text), error))
                    if nxt == delim:
                        break
                    if nxt == _CR and pos < n and data[pos] == _LF:
                        pos += 1
                    return fields, pos
                if nxt == _QUOTE:
                    text.append(_QUOTE)
                elif error is None:
                    error = _invalid("Quote inside a string has to be escaped by another quote")
            continue
        start = pos
        error = None
        while pos < n and data[pos] != delim and data[pos] not in (_LF, _CR):
            if quotes and data[pos] == _QUOTE and error is None:
                error = _invalid("Unquoted fields cannot have quotes inside")
            pos += 1
        fields.append((data[start:pos], error))
        if pos >= n:
            return fields, pos
        ch = data[pos]
        pos += 1
        if ch != delim:
            if ch == _CR and pos < n and data[pos] == _LF:
                pos += 1
            return fields, pos


class CsvDataset(_FileDataset):
    """The records of CSV files, each a tuple of scalars, one per (selected) column.

    Args:
      filenames: a file name, a list of them, or a ``tf.string`` tensor of them.
      record_defaults: per column, a default value (its type the column's: a Python
        int is ``tf.int32``, a float ``tf.float32``, a string ``tf.string``) or a
        dtype (``tf.float32``, ``tf.float64``, ``tf.int32``, ``tf.int64``,
        ``tf.string``) for a required column.
      compression_type: ``""`` (default), ``"ZLIB"`` or ``"GZIP"``.
      buffer_size: accepted, unused (files are read whole).
      header: skip each file's first record.
      field_delim: the one-character field delimiter (default ``","``).
      use_quote_delim: ``"``-quoted fields (default True).
      na_value: a field text read as missing (default ``""``).
      select_cols: the increasing column indices to read (default: every column).

    Raises:
      TypeError: a ``record_defaults`` dtype that is not a CSV dtype.
      InvalidArgumentError: at ``get_next``, a bad record (missing required field,
        unparsable number, too many or too few fields, bad quoting), or
        ``select_cols`` not increasing or not as long as ``record_defaults``.
      NotFoundError: at ``get_next``, a missing file.
    """

    def __init__(
        self,
        filenames: Any,
        record_defaults: Any,
        compression_type: Any = None,
        buffer_size: Any = None,
        header: bool = False,
        field_delim: str = ",",
        use_quote_delim: bool = True,
        na_value: str = "",
        select_cols: Any = None,
    ):
        super().__init__(filenames, compression_type)
        columns = [_column(d) for d in record_defaults]
        self._dtypes = [c[0] for c in columns]
        self._defaults = [c[1] for c in columns]
        self._header = bool(header)
        delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
        self._delim = delim[0]
        self._quotes = bool(use_quote_delim)
        self._na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
        self._select = None if select_cols is None else [int(c) for c in select_cols]
        self._structure = tuple(Spec.of((), d) for d in self._dtypes)

    def _check(self) -> None:
        select = self._select
        if select is None:
            return
        if len(select) != len(self._dtypes):
            raise _invalid("select_cols should match output size")
        if any(c < 0 for c in select):
            raise _invalid("select_cols should be non-negative indices")
        if any(b <= a for a, b in zip(select, select[1:], strict=False)):
            raise _invalid("select_cols should be strictly increasing indices")

    def _record(self, fields: list[tuple[bytes | None, Exception | None]]) -> Element:
        """One record's values, or its first error raised (TF's ``ReadRecord``)."""
        first: Exception | None = None
        out: list[Any] = []
        wanted = None if self._select is None else set(self._select)
        for column, (text, error) in enumerate(fields):
            if wanted is not None and column not in wanted:
                continue
            first = first or error
            if text is None:
                continue
            index = len(out)
            if index >= len(self._dtypes):
                first = first or _invalid(
                    f"Expect {len(self._dtypes)} fields but have more in record"
                )
                continue
            try:
                out.append(
                    _convert(text, index, self._dtypes[index], self._defaults[index], self._na)
                )
            except errors.InvalidArgumentError as e:
                out.append(None)
                first = first or e
        if first is not None:
            raise first
        if len(out) != len(self._dtypes):
            raise _invalid(f"Expect {len(self._dtypes)} fields but have {len(out)} in record")
        return tuple(out)

    def _elements(self, run: Run) -> Iterator[Element]:
        self._check()
        compression = self._compression_of(run)
        for path in self._paths(run):
            data = read_all(path, compression)
            pos = 0
            if self._header:
                if not data:
                    raise _invalid("Can't read header of file")
                fields, pos = _split_record(data, 0, self._delim, self._quotes)
                if any(text is None for text, _ in fields):
                    raise _invalid("Can't read header of file")
            while pos < len(data):
                fields, pos = _split_record(data, pos, self._delim, self._quotes)
                try:
                    yield self._record(fields)
                except errors.InvalidArgumentError as e:
                    yield run.failure(self, e)
