"""``tf.data.experimental.SqlDataset``: the rows of a SQL query over a SQLite database.

As TF's ``SqlDataset`` kernel (whose only driver is ``"sqlite"``): the query runs
when the iterator starts (each pass runs it again); each row is one element, a
tuple of scalars of ``output_types``, one per column. Python's ``sqlite3`` reads
the database, opened read-only.
"""

from __future__ import annotations

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


def _column(value: Any, spec: Spec, index: int) -> np.ndarray:
    """One column's value as a scalar of ``spec``'s dtype (TF reads it as the type asks)."""
    if spec.dtype == dtypes.string:
        out = np.empty((), dtype=object)
        if value is None:
            value = b""
        elif not isinstance(value, bytes):
            value = str(value).encode()
        out[()] = value
        return out
    if value is None:
        return np.zeros((), spec.np_dtype)
    if spec.dtype == dtypes.bool:
        return np.asarray(bool(int(value)))
    if spec.dtype.is_floating:
        return np.asarray(float(value), spec.np_dtype)
    try:
        return np.asarray(int(value)).astype(spec.np_dtype)
    except (TypeError, ValueError):
        raise errors.InvalidArgumentError(
            None, None, f"Column {index}: cannot read {value!r} as {spec.dtype.name}"
        ) from None


class SqlDataset(DatasetV1):
    """The rows of ``query`` over a SQLite database, each a tuple of scalars.

    Args:
      driver_name: the database type; only ``"sqlite"``.
      data_source_name: the database file's path.
      query: a SQL ``SELECT`` whose columns are the elements' components.
      output_types: one ``DType`` per column (a tuple; one dtype: one component).

    Raises:
      InvalidArgumentError: when the iterator starts, another driver (TF's message),
        or a query returning another number of columns than ``output_types``.
      NotFoundError: when the iterator starts, a database that cannot be opened.
    """

    def __init__(self, driver_name: Any, data_source_name: Any, query: Any, output_types: Any):
        self._driver = _text(driver_name, "driver_name")
        self._source = _text(data_source_name, "data_source_name")
        self._query = _text(query, "query")
        self._structure = structure.map_structure(lambda t: Spec.of((), t), output_types)

    def _elements(self, run: Run) -> Iterator[Element]:
        if self._driver != "sqlite":
            raise errors.InvalidArgumentError(
                None, None, f"The database type, {self._driver}, is not supported."
            )
        specs = self._flat_specs()
        try:
            connection = sqlite3.connect(f"file:{self._source}?mode=ro", uri=True)
        except sqlite3.Error as e:
            raise errors.NotFoundError(
                None, None, f"Failed to open the database {self._source}: {e}"
            ) from None
        try:
            try:
                cursor = connection.execute(self._query)
            except sqlite3.Error as e:
                raise errors.InvalidArgumentError(
                    None, None, f"Failed to prepare query {self._query!r}: {e}"
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
                yield tuple(
                    _column(v, s, i) for i, (v, s) in enumerate(zip(row, specs, strict=True))
                )
        finally:
            connection.close()
