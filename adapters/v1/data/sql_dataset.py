"""``tf.data.experimental.SqlDataset``: the rows of a SQL query over a SQLite database.

As TF's ``SqlDataset`` kernel (whose only driver is ``"sqlite"``): the query runs
when the iterator starts (each pass runs it again); each row is one element, a
tuple of scalars of ``output_types``, one per column. Python's ``sqlite3`` reads
the database (opened as TF opens it: a missing file is created, empty).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import DatasetV1, Element, Run
from adapters.v1.data.structure import Spec
from adapters.v1.data.writers import _text
from adapters.v1.framework import dtypes
from jtrain import errors

__all__ = ["SqlDataset"]


# The dtypes TF's kernel reads (its message lists them).
_TYPES = ("string", "int8", "int16", "int32", "int64", "uint8", "uint16", "bool", "float64")
_NUMBER = re.compile(rb"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _number(value: Any) -> int | float:
    """A column's value as SQLite reads it as a number: text (or a blob) by its
    numeric prefix (``"12ab"``: 12, ``"x"``: 0), ``NULL`` as 0."""
    if value is None:
        return 0
    if isinstance(value, (int, float)):
        return value
    text = value.encode() if isinstance(value, str) else bytes(value)
    match = _NUMBER.match(text)
    if match is None:
        return 0
    number = match.group(0).strip()
    return float(number) if any(c in number for c in b".eE") else int(number)


def _column(value: Any, spec: Spec) -> np.ndarray:
    """One column's value as a scalar of ``spec``'s dtype, as TF's kernel reads it
    (``sqlite3_column_text``, ``_int64``, ``_int`` or ``_double`` by the dtype)."""
    if spec.dtype == dtypes.string:
        out = np.empty((), dtype=object)
        if value is None:
            value = b""
        elif not isinstance(value, bytes):
            value = str(value).encode()
        out[()] = value
        return out
    number = _number(value)
    if spec.dtype == dtypes.float64:
        return np.asarray(float(number), np.float64)
    if spec.dtype == dtypes.bool:
        return np.asarray(int(number) != 0)
    # 64-bit read, then the narrower dtypes keep the low bits (sqlite3_column_int's
    # 32 and C's conversion), as TF's kernel
    wide = np.asarray(int(number), np.int64)
    return wide.astype(spec.np_dtype)


class SqlDataset(DatasetV1):
    """The rows of ``query`` over a SQLite database, each a tuple of scalars.

    Args:
      driver_name: the database type; only ``"sqlite"``.
      data_source_name: the database file's path.
      query: a SQL ``SELECT`` whose columns are the elements' components.
      output_types: one ``DType`` per column (a tuple; one dtype: one component).

    Raises:
      NotImplementedError: an argument given as a tensor known only when the graph
        runs (a placeholder; TF reads it when the iterator starts).
      InvalidArgumentError: when the iterator starts, another driver (TF's message),
        or a query returning another number of columns than ``output_types``.
      InvalidArgumentError: when the iterator starts, a dtype TF's kernel does not read
        (``float32``...), TF's message.
      UnknownError: when the iterator starts, a query SQLite cannot prepare.
      NotFoundError: when the iterator starts, a database that cannot be opened.

    .. note:: A number read as a string is SQLite's text of it (Python's for a
       real, which may differ from SQLite's ``%!.15g`` in the last digits).
    """

    def __init__(self, driver_name: Any, data_source_name: Any, query: Any, output_types: Any):
        self._driver = _text(driver_name, "driver_name")
        self._source = _text(data_source_name, "data_source_name")
        self._query = _text(query, "query")
        self._structure = structure.map_structure(lambda t: Spec.of((), t), output_types)

    def _check_args(self, run: Run) -> None:
        if any(s.dtype.name not in _TYPES for s in self._flat_specs()):
            raise errors.InvalidArgumentError(
                None,
                None,
                "Each element of `output_types_` must be one of: DT_STRING, DT_INT8, DT_INT16, "
                "DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_BOOL, DT_DOUBLE ",
            )

    def _elements(self, run: Run) -> Iterator[Element]:
        if self._driver != "sqlite":
            raise errors.InvalidArgumentError(
                None,
                None,
                f"The database type, {self._driver}, is not supported by SqlDataset. The set "
                "of supported databases is: {'sqlite'}.",
            )
        specs = self._flat_specs()
        try:
            connection = sqlite3.connect(self._source)
        except sqlite3.Error as e:
            raise errors.NotFoundError(
                None, None, f"Failed to open the database {self._source}: {e}"
            ) from None
        try:
            try:
                cursor = connection.execute(self._query)
            except sqlite3.Error as e:
                raise errors.UnknownError(
                    None, None, f"Prepare() failed: {e}: {self._query}"
                ) from None
            columns = len(cursor.description or ())
            if columns != len(specs):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"The number of columns in query ({columns}) must match the number of "
                    f"elements in output_types ({len(specs)}).",
                )
            for row in cursor:
                yield tuple(_column(v, s) for v, s in zip(row, specs, strict=True))
        finally:
            connection.close()
