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


class _Inferred:
    """A column default ``make_csv_dataset`` inferred (0 or ``""`` of the type)."""

    def __init__(self, dtype: dtypes.DType):
        self.dtype = dtype
        self.value = b"" if dtype == dtypes.string else 0


def _column(default: Any) -> tuple[dtypes.DType, Any]:
    """A record default's ``(dtype, default value or None for a required column)``,
    as TF reads ``record_defaults``.

    .. note:: As TF's, a value equal to a CSV dtype makes the column required: NumPy
       values (``np.int64(-1)``: ``tf.int64``), the Python numbers 1, 2, 3, 7 and 9
       (TF's DataType enum values: 7 is ``tf.string``) and dtype names (``"int64"``).
    """
    if isinstance(default, _Inferred):
        return default.dtype, default.value
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
    with np.errstate(over="ignore"):  # a float32 field beyond its range is inf, as TF's
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


_INFERRED = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string)


def _valid_as(text: str, dtype: dtypes.DType) -> bool:
    """Whether ``text`` converts to ``dtype`` as TF's inference checks it (NumPy's
    conversion: an int32 that is also the same int64, a finite float)."""
    try:
        if dtype == dtypes.int32:
            return bool(np.int32(text) == np.int64(text))
        if dtype == dtypes.int64:
            np.int64(text)
            return True
        if dtype == dtypes.float32:
            with np.errstate(over="ignore"):
                return bool(np.float32(text) < np.inf)
        if dtype == dtypes.float64:
            return bool(np.float64(text) < np.inf)
    except (ValueError, OverflowError):
        return False
    return True


def _infer_type(text: str, na_value: str, previous: dtypes.DType | None) -> Any:
    """The least permissive type of ``text`` that keeps ``previous`` valid (TF's)."""
    if text in ("", na_value):
        return previous
    for i, dtype in enumerate(_INFERRED):
        if _valid_as(text, dtype) and (previous is None or previous in _INFERRED[: i + 1]):
            return dtype
    return None


def make_csv_dataset(
    file_pattern: Any,
    batch_size: int,
    column_names: list[str] | None = None,
    column_defaults: list[Any] | None = None,
    label_name: str | None = None,
    select_columns: list[Any] | None = None,
    field_delim: str = ",",
    use_quote_delim: bool = True,
    na_value: str = "",
    header: bool = True,
    num_epochs: int | None = None,
    shuffle: bool = True,
    shuffle_buffer_size: int = 10000,
    shuffle_seed: int | None = None,
    prefetch_buffer_size: Any = None,
    num_parallel_reads: Any = None,
    sloppy: bool = False,
    num_rows_for_inference: int | None = 100,
    compression_type: Any = None,
    ignore_errors: bool = False,
    encoding: str = "utf-8",
) -> Any:
    """Batches of CSV records as ``(features, label)`` (``features`` an ``OrderedDict``
    of column name to batched column), the pipeline TF builds: the files (sorted,
    shuffled with ``shuffle``), one ``CsvDataset`` each interleaved
    (``num_parallel_reads``), shuffled, repeated ``num_epochs`` times (``None``:
    forever), batched (the last partial batch dropped when repeating forever).

    Args:
      file_pattern: a glob or a list of globs.
      batch_size: records per batch.
      column_names: the columns' names (default: each file's header row).
      column_defaults: as ``CsvDataset``'s ``record_defaults`` (default: inferred
        from the first ``num_rows_for_inference`` rows, as TF infers them: int32,
        int64, float32, float64 or string, defaults 0 and ``""``).
      label_name: the column returned apart as the label.
      select_columns: names or indices of the columns to read.
      field_delim: as ``CsvDataset``'s.
      use_quote_delim: as ``CsvDataset``'s.
      na_value: as ``CsvDataset``'s.
      header: as ``CsvDataset``'s.
      compression_type: as ``CsvDataset``'s.
      num_epochs: passes over the data (``None``: forever).
      shuffle: shuffle the files and the records (TF's shuffle).
      shuffle_buffer_size: the record shuffle's buffer.
      shuffle_seed: the shuffles' op seed.
      prefetch_buffer_size: accepted (one Python thread).
      num_parallel_reads: files read at once, interleaved record by record (default
        1).
      sloppy: accepted; the order is the deterministic one.
      num_rows_for_inference: rows read to infer the types (``None``: all).
      ignore_errors: drop the bad records.
      encoding: the files' text encoding (for the header and the inference).

    Raises:
      ValueError: no file matches, no ``column_names`` and no ``header``, duplicate
        or unknown columns, a ``label_name`` not among the columns, or rows of
        another width while inferring types (TF's messages).
    """
    import collections
    import csv
    import gzip

    from adapters.v1.data.dataset_ops import AUTOTUNE, DatasetV1
    from adapters.v1.platform import gfile

    if isinstance(file_pattern, list):
        if not file_pattern:
            raise ValueError("Argument `file_pattern` should not be empty.")
        filenames = [n for entry in file_pattern for n in gfile.glob(entry)]
    else:
        filenames = list(gfile.glob(file_pattern))
    if not filenames:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    filenames = sorted(filenames)
    dataset = DatasetV1.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)

    kind = compression_type or ""
    if kind == "ZLIB" and (column_names is None or column_defaults is None):
        raise ValueError(
            f"`compression_type` {compression_type} is not supported for probing columns."
        )

    def open_text(name: str) -> Any:
        if kind == "GZIP":
            return gzip.open(name, "rt", encoding=encoding)
        return open(name, encoding=encoding, newline="")

    options = {
        "delimiter": field_delim,
        "quoting": csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE,
    }
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        names: list[str] | None = None
        for name in filenames:
            with open_text(name) as f:
                try:
                    row = next(csv.reader(f, **options))
                except StopIteration:
                    raise ValueError(
                        f"Failed when reading the header line of {name}. Is it an empty file?"
                    ) from None
            if names is not None and row != names:
                raise ValueError(
                    "All input CSV files should have the same column names in the header "
                    f"row. File {name} has different column names."
                )
            names = names or row
        column_names = names
    assert column_names is not None
    if len(column_names) != len(set(column_names)):
        ordered = sorted(column_names)
        duplicates = {a for a, b in zip(ordered[:-1], ordered[1:], strict=True) if a == b}
        raise ValueError(
            "Either `column_names` argument or CSV header row contains duplicate column "
            f"names: {duplicates}."
        )
    selected: list[int] | None = None
    if select_columns is not None:
        index = {n: i for i, n in enumerate(column_names)}
        picked = []
        for v in select_columns:
            if isinstance(v, int):
                if v < 0 or v >= len(column_names):
                    raise ValueError(
                        f"Column index {v} specified in `select_columns` should be > 0  and "
                        f"<= {len(column_names)}, which is the number of columns."
                    )
                picked.append(v)
            elif v not in index:
                raise ValueError(
                    f"Column {v} specified in `select_columns` must be of one of the "
                    f"columns: {index.keys()}."
                )
            else:
                picked.append(index[v])
        selected = sorted(set(picked))
        if len(selected) != len(select_columns):
            raise ValueError(
                "The `select_columns` argument contains duplicate columns: "
                f"{ {a for a, b in zip(selected[:-1], selected[1:], strict=True) if a == b} }."
            )
    if column_defaults is None:
        columns = selected if selected is not None else list(range(len(column_names)))
        types: list[Any] = [None] * len(columns)
        rows = 0
        for name in filenames:
            with open_text(name) as f:
                reader = csv.reader(f, **options)
                number = 1
                if header:
                    next(reader)
                    number += 1
                for row in reader:
                    if num_rows_for_inference is not None and rows >= num_rows_for_inference:
                        break
                    if len(row) != len(column_names):
                        raise ValueError(
                            f"Problem inferring types: CSV row {number} has {len(row)} number "
                            f"of fields. Expected: {len(column_names)}."
                        )
                    number += 1
                    rows += 1
                    for j, c in enumerate(columns):
                        types[j] = _infer_type(row[c], na_value, types[j])
            if num_rows_for_inference is not None and rows >= num_rows_for_inference:
                break
        column_defaults = [_Inferred(t or dtypes.string) for t in types]
    if selected is not None and len(column_defaults) != len(selected):
        raise ValueError(
            "If specified, `column_defaults` and `select_columns` must have the same length: "
            f"`column_defaults` has length {len(column_defaults)}, `select_columns` has "
            f"length {len(selected)}."
        )
    if selected is not None and len(column_names) > len(selected):
        column_names = [column_names[i] for i in selected]
    if label_name is not None and label_name not in column_names:
        raise ValueError(
            f"`label_name` provided must be one of the columns: {column_names}. Received: "
            f"{label_name}."
        )
    defaults = list(column_defaults)
    final_names = list(column_names)

    def filename_to_dataset(filename: Any) -> DatasetV1:
        ds: DatasetV1 = CsvDataset(
            filename,
            defaults,
            compression_type=compression_type,
            header=header,
            field_delim=field_delim,
            use_quote_delim=use_quote_delim,
            na_value=na_value,
            select_cols=selected,
        )
        return ds.ignore_errors() if ignore_errors else ds

    def map_fn(*columns: Any) -> Any:
        features = collections.OrderedDict(zip(final_names, columns, strict=True))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    reads = 1 if num_parallel_reads is None else num_parallel_reads
    if reads == AUTOTUNE:
        dataset = dataset.interleave(filename_to_dataset, num_parallel_calls=reads)
    else:
        dataset = dataset.interleave(filename_to_dataset, cycle_length=reads, block_length=1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    return dataset.map(map_fn)
