"""Lookup tables (``tf.lookup``) and ``tf.compat.v1.tables_initializer``.

A table is a per-session map held on the host (TF keeps it in the session's
resource manager): its initializer op fills it when run (``tables_initializer()``
groups every table's, from ``GraphKeys.TABLE_INITIALIZERS``), ``lookup`` and
``size`` read it. They are host operations: a lookup of keys the host holds (a
placeholder, a ``decode_csv`` or ``string_split`` output, a ``tf.data`` element)
runs before the step's program and its ids feed it (an ``embedding_lookup``).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops import control_flow_ops
from adapters.v1.ops.constant_op import literal_array
from adapters.v1.ops.data_flow_ops import host_inputs, placement, session_state
from adapters.v1.ops.ragged.ragged_tensor import RaggedTensor
from jtrain import errors

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
    "tables_initializer",
]


def tables_initializer(name: str = "init_all_tables") -> ops.Operation:
    """One op running every table initializer of the default graph.

    Args:
      name: the op's name (default ``"init_all_tables"``).

    Returns:
      A ``group`` of ``GraphKeys.TABLE_INITIALIZERS``, or a ``no_op`` when empty.
    """
    initializers = ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return control_flow_ops.group(*initializers, name=name)
    return control_flow_ops.no_op(name=name)


def _python_key(value: Any) -> Any:
    """A NumPy element as a hashable Python key (``bytes`` for strings)."""
    if isinstance(value, str):
        return value.encode()
    return bytes(value) if isinstance(value, (bytes, np.bytes_)) else value.item()


class _TableState:
    """One session's contents of a table."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.data: dict[Any, Any] | None = None


class KeyValueTensorInitializer:
    """A table's contents given as two tensors (``tf.lookup.KeyValueTensorInitializer``).

    Args:
      keys: the keys (a 1-D tensor or value).
      values: the values, one per key.
      key_dtype: the keys' dtype (default: ``keys``').
      value_dtype: the values' dtype (default: ``values``').
      name: the initializer's name.
    """

    def __init__(
        self,
        keys: Any,
        values: Any,
        key_dtype: Any = None,
        value_dtype: Any = None,
        name: str | None = None,
    ):
        self._keys, self._values = (
            _as_host(keys, key_dtype, "keys"),
            _as_host(values, value_dtype, "values"),
        )
        self._name = name or "key_value_init"
        self.key_dtype = self._keys.dtype
        self.value_dtype = self._values.dtype

    def _inputs(self) -> list[ops.Tensor]:
        return [self._keys, self._values]

    def _contents(self, keys: Any, values: Any) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(keys).reshape(-1), np.asarray(values).reshape(-1)


def _as_host(value: Any, dtype: Any, what: str) -> ops.Tensor:
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        (tensor,) = host_inputs([value])
        if dtype is not None and ops.as_dtype(dtype) != tensor.dtype:
            raise TypeError(
                f"Dtype of argument `{what}` must be {_repr(ops.as_dtype(dtype))}, received: "
                f"{_repr(tensor.dtype)}"
            )
        return tensor
    arr = literal_array(value, None if dtype is None else ops.as_dtype(dtype).dtype)
    (tensor,) = host_inputs([arr])
    return tensor


class TextFileIndex:
    """Special columns of ``TextFileInitializer`` (``tf.lookup.TextFileIndex``)."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer:
    """A table's contents read from a text file, one entry a line
    (``tf.lookup.TextFileInitializer``).

    Args:
      filename: the file's path (a Python string).
      key_dtype: the keys' dtype (string, int32 or int64 for a column).
      key_index: the key's column, or ``TextFileIndex.WHOLE_LINE`` (the whole line: a string,
        or parsed as a number of an integer ``key_dtype``, as TF)
        or ``TextFileIndex.LINE_NUMBER`` (its number from 0, int64).
      value_dtype: the values' dtype.
      value_index: the value's column (or a ``TextFileIndex``).
      vocab_size: the number of lines read (default None: all); the file must have at
        least as many.
      delimiter: the column separator (default ``"\\t"``).
      name: the initializer's name.
      value_index_offset: added to line numbers taken as values (default 0).

    Raises (when the table is initialized):
      InvalidArgumentError: TF's "Invalid vocab_size in FILE: expected N but got M";
        a column missing or not a number of its dtype.
    """

    def __init__(
        self,
        filename: Any,
        key_dtype: Any,
        key_index: int,
        value_dtype: Any,
        value_index: int,
        vocab_size: int | None = None,
        delimiter: str = "\t",
        name: str | None = None,
        value_index_offset: int = 0,
    ):
        if not isinstance(filename, (str, bytes)):
            raise NotImplementedError(
                "tf.lookup.TextFileInitializer: give the filename as a Python string"
            )
        self._filename = filename.decode() if isinstance(filename, bytes) else filename
        self.key_dtype = ops.as_dtype(key_dtype)
        self.value_dtype = ops.as_dtype(value_dtype)
        _check_index(key_index, self.key_dtype, "key")
        _check_index(value_index, self.value_dtype, "value")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter.encode() if isinstance(delimiter, str) else delimiter
        self._offset = value_index_offset
        self._name = name or "text_file_init"

    def _inputs(self) -> list[ops.Tensor]:
        return []

    def _column(self, line: bytes, number: int, index: int, dtype: Any) -> Any:
        if index == TextFileIndex.LINE_NUMBER:
            return number
        if index == TextFileIndex.WHOLE_LINE:
            field = line  # an integer dtype parses the whole line (TF's kernel)
        else:
            fields = line.split(self._delimiter)
            if index >= len(fields):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Invalid number of columns in {self._filename} line {number} ({line!r}) : "
                    f"expected at least {index + 1} got {len(fields)}",
                )
            field = fields[index]
        if dtype.name == "string":
            return field
        from jtrain.records import csv

        number_value = csv.parse_number(field, np.dtype(dtype.as_numpy_dtype))
        if number_value is None:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Field {field.decode('utf-8', 'replace')} in line {number} is not a valid "
                f"{dtype.name}.",
            )
        return number_value

    def _contents(self) -> tuple[np.ndarray, np.ndarray]:
        try:
            with open(self._filename, "rb") as f:
                lines = f.read().split(b"\n")
        except OSError as e:
            raise errors.NotFoundError(None, None, f"{self._filename}; {e.strerror}") from None
        if lines and lines[-1] == b"":
            lines.pop()
        lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Invalid vocab_size in {self._filename}: expected {self._vocab_size} "
                    f"but got {len(lines)}",
                )
            lines = lines[: self._vocab_size]
        keys, values = [], []
        for n, line in enumerate(lines):
            keys.append(self._column(line, n, self._key_index, self.key_dtype))
            value = self._column(line, n, self._value_index, self.value_dtype)
            if self._value_index == TextFileIndex.LINE_NUMBER:
                value += self._offset
            values.append(value)
        return _array(keys, self.key_dtype), _array(values, self.value_dtype)


def _check_index(index: int, dtype: Any, what: str) -> None:
    """TF 2.21's checks of a ``TextFileInitializer`` column and its dtype.

    Raises:
      ValueError: an index below ``WHOLE_LINE``; ``LINE_NUMBER`` not int64;
        ``WHOLE_LINE`` neither integer nor string (TF's messages).
    """
    if index < -2:
        end = "." if what == "key" else ""
        raise ValueError(f"`{what}_index` should be >= -2, received: {index}{end}")
    if index == TextFileIndex.LINE_NUMBER and dtype.name != "int64":
        link = "if `key_index` is" if what == "key" else "for `value_index`"
        raise ValueError(
            f"`{what}_dtype` must be int64 {link} {TextFileIndex.LINE_NUMBER}, received: "
            f"{_repr(dtype)}"
        )
    if index == TextFileIndex.WHOLE_LINE and not (dtype.is_integer or dtype.name == "string"):
        raise ValueError(
            f"`{what}_dtype` should be either integer or string for `{what}_index` "
            f"{TextFileIndex.WHOLE_LINE}, received: {_repr(dtype)}"
        )


def _array(items: list, dtype: Any) -> np.ndarray:
    np_dtype = np.dtype(object) if dtype.name == "string" else np.dtype(dtype.as_numpy_dtype)
    out = np.empty(len(items), np_dtype)
    out[:] = items
    return out


class StaticHashTable:
    """An immutable table filled once by its initializer (``tf.lookup.StaticHashTable``).

    Args:
      initializer: a ``KeyValueTensorInitializer`` or ``TextFileInitializer``.
      default_value: the value of a missing key (a scalar of the values' dtype).
      name: the table's name.
      experimental_is_anonymous: accepted (TF2 resources), must be False.

    Raises:
      TypeError: a ``default_value`` not of the values' dtype (TF's message).

    The initializer op (``table.initializer``) is added to
    ``GraphKeys.TABLE_INITIALIZERS``; running it fills the table in that session.
    """

    def __init__(
        self,
        initializer: Any,
        default_value: Any,
        name: str | None = None,
        experimental_is_anonymous: bool = False,
    ):
        if experimental_is_anonymous:
            raise NotImplementedError(
                "tf.lookup.StaticHashTable(experimental_is_anonymous=True): TF1 tables only"
            )
        self._initializer = initializer
        self.key_dtype = initializer.key_dtype
        self.value_dtype = initializer.value_dtype
        graph = ops.get_default_graph()
        with ops.name_scope(name, "hash_table"):
            self.default_value = _default(default_value, self.value_dtype)
            self._name = graph.unique_name("hash_table", mark_as_used=False)
            self.initializer = self._init_op(graph, name)
        ops.add_to_collection(ops.GraphKeys.TABLE_INITIALIZERS, self.initializer)

    @property
    def name(self) -> str:
        return self._name

    def _state(self, session: Any) -> _TableState:
        return session_state(session, self, _TableState)

    def _init_op(self, graph: Any, name: str | None) -> ops.Operation:
        initializer = self._initializer
        inputs = initializer._inputs()

        def compute(session: Any, *values: Any) -> tuple:
            state = self._state(session)
            keys, vals = initializer._contents(*values)
            with state.lock:
                if state.data is not None:
                    return ()  # TF: an initialized table ignores its initializer
                data: dict[Any, Any] = {}
                for k, v in zip(keys.tolist(), vals.tolist(), strict=True):
                    k = _python_key(np.asarray(k, dtype=keys.dtype)[()])
                    if k in data and data[k] != v:
                        raise errors.FailedPreconditionError(
                            None,
                            None,
                            "HashTable has different value for same key. Key "
                            f"{_show(k)} has {_show(data[k])} and trying to add value "
                            f"{_show(v)}",
                        )
                    data[k] = v
                state.data = data
            return ()

        return graph.create_op(
            "InitializeTableV2" if inputs else "InitializeTableFromTextFileV2",
            "table_init",
            inputs=inputs,
            compute=compute,
            output_specs=[],
            host=placement(inputs),
        )

    def _table(self, session: Any) -> dict:
        data = self._state(session).data
        if data is None:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")
        return data

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """The value of each key (``default_value`` where missing).

        Args:
          keys: a tensor of the keys' dtype, any shape, or a ``SparseTensor`` or
            ``RaggedTensor`` of them.
          name: the op's name.

        Returns:
          A tensor of the values' dtype with the keys' shape (a ``SparseTensor`` of the
          keys' indices and dense shape for a ``SparseTensor``, a ``RaggedTensor`` of
          the keys' row partition for a ``RaggedTensor``).

        Raises:
          TypeError: keys of another dtype (TF's message); a ``RaggedTensor`` of more
            than one ragged dimension (TF converts its ``values``, a ``RaggedTensor``,
            to a tensor and fails).
          FailedPreconditionError (at run time): "Table not initialized."
        """
        if isinstance(keys, (SparseTensor, RaggedTensor)):
            if keys.dtype != self.key_dtype:
                raise TypeError(
                    f"Dtype of argument `keys` must be {_repr(self.key_dtype)}, received: "
                    f"{_repr(keys.dtype)}"
                )
            values = self._find(keys.values, name)
            if isinstance(keys, RaggedTensor):
                return keys.with_values(values)
            return SparseTensor(keys.indices, values, keys.dense_shape)
        return self._find(keys, name)

    def _find(self, keys: Any, name: str | None) -> ops.Tensor:
        """The lookup of a dense tensor of keys (TF's ``LookupTableFindV2``)."""
        (tensor,) = host_inputs([keys])
        if tensor.dtype != self.key_dtype:
            raise TypeError(
                f"Dtype of argument `keys` must be {_repr(self.key_dtype)}, received: "
                f"{_repr(tensor.dtype)}"
            )
        (default,) = host_inputs([self.default_value])
        out_dtype = np.dtype(object) if self.value_dtype.name == "string" else None
        out_dtype = out_dtype or np.dtype(self.value_dtype.as_numpy_dtype)

        def compute(session: Any, value: Any, default_value: Any) -> tuple:
            table = self._table(session)
            missing = np.asarray(default_value, out_dtype)[()]
            arr = np.asarray(value)
            out = np.empty(arr.shape, out_dtype)
            flat = out.reshape(-1)
            for i, k in enumerate(arr.reshape(-1)):
                flat[i] = table.get(_python_key(k), missing)
            return (out,)

        with ops.name_scope(name, f"{self._name}_Lookup"):
            op = ops.get_default_graph().create_op(
                "LookupTableFindV2",
                "hash_table_Lookup",
                inputs=[tensor, default],
                compute=compute,
                output_specs=[(tensor._shape, out_dtype)],
                host=placement([tensor, default]),
            )
        return op.outputs[0]

    def size(self, name: str | None = None) -> ops.Tensor:
        """The number of entries (an int64 scalar; run time: "Table not initialized."
        before the initializer runs)."""
        op = ops.get_default_graph().create_op(
            "LookupTableSizeV2",
            name or f"{self._name}_Size",
            compute=lambda session: (np.int64(len(self._table(session))),),
            output_specs=[((), np.dtype(np.int64))],
            host="pre",
        )
        return op.outputs[0]


def _repr(dtype: Any) -> str:
    """A dtype as TF's ``repr`` writes it."""
    return f"<dtype: '{dtype.name}'>"


def _show(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _default(value: Any, dtype: Any) -> ops.Tensor:
    """The default value as a host constant of ``dtype`` (TF's ``TypeError`` otherwise)."""
    if isinstance(value, ops.Tensor):
        if value.dtype != dtype:
            raise TypeError(f"Expected {dtype.name}, but got a tensor of type {value.dtype.name}.")
        (tensor,) = host_inputs([value])
        return tensor
    arr = np.asarray(value)
    np_dtype = np.dtype(object) if dtype.name == "string" else np.dtype(dtype.as_numpy_dtype)
    kind_ok = (
        (arr.dtype.kind in "SUO") == (np_dtype.kind == "O")
        and not (np_dtype.kind in "iu" and arr.dtype.kind == "f")
        and not (np_dtype.kind in "iuf" and arr.dtype.kind == "b")
    )
    if not kind_ok:
        raise TypeError(
            f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'."
        )
    (tensor,) = host_inputs([literal_array(value, np_dtype)])
    return tensor


class StaticVocabularyTable:
    """A vocabulary with out-of-vocabulary buckets (``tf.lookup.StaticVocabularyTable``):
    a key in the table gets its id, another key ``vocab_size + bucket`` where
    ``bucket`` is FarmHash ``Fingerprint64`` of the key (an integer key: of its
    decimal string) modulo ``num_oov_buckets`` (TF's ``to_hash_bucket_fast``).

    Args:
      initializer: a ``KeyValueTensorInitializer``/``TextFileInitializer`` of int64
        values with string or int64 keys, or None (buckets only).
      num_oov_buckets: the number of buckets (> 0).
      lookup_key_dtype: the dtype of looked-up keys (default the initializer's keys';
        an integer dtype for int64 keys, cast to int64).
      name: the table's name.
      experimental_is_anonymous: accepted (TF2 resources), must be False.

    Raises:
      ValueError: ``num_oov_buckets`` <= 0.
      TypeError: TF's messages for key or value dtypes it refuses.
    """

    def __init__(
        self,
        initializer: Any,
        num_oov_buckets: int,
        lookup_key_dtype: Any = None,
        name: str | None = None,
        experimental_is_anonymous: bool = False,
    ):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        string, int64 = ops.as_dtype("string"), ops.as_dtype("int64")
        self._table: StaticHashTable | None = None
        if initializer is not None:
            key_dtype = ops.as_dtype(lookup_key_dtype or initializer.key_dtype)
            if initializer.key_dtype not in (int64, string):
                raise TypeError(
                    "Invalid `key_dtype`, expected one of (tf.int64, tf.string), but got "
                    f"{_repr(initializer.key_dtype)}."
                )
            if initializer.key_dtype.is_integer != key_dtype.is_integer:
                raise TypeError(
                    "Invalid `key_dtype`, expected "
                    f"{'integer' if key_dtype.is_integer else 'non-integer'} but got "
                    f"{_repr(initializer.key_dtype)}."
                )
            if initializer.value_dtype != int64:
                raise TypeError(
                    f"Invalid `value_dtype`, expected {_repr(int64)} but got "
                    f"{_repr(initializer.value_dtype)}."
                )
            self._table = StaticHashTable(
                initializer, -1, experimental_is_anonymous=experimental_is_anonymous
            )
        else:
            key_dtype = ops.as_dtype(lookup_key_dtype or string)
        if not key_dtype.is_integer and key_dtype != string:
            raise TypeError(
                f"Invalid `key_dtype`, expected integer or string, got {_repr(key_dtype)}"
            )
        self.key_dtype = key_dtype
        self.value_dtype = int64
        self._num_oov_buckets = int(num_oov_buckets)
        self._name = (name or "hash_table").rstrip("/")

    @property
    def name(self) -> str:
        return self._name

    def size(self, name: str | None = None) -> ops.Tensor:
        """The vocabulary's size plus ``num_oov_buckets`` (an int64 scalar)."""
        table = self._table

        def compute(session: Any) -> tuple:
            vocab = len(table._table(session)) if table is not None else 0
            return (np.int64(vocab + self._num_oov_buckets),)

        op = ops.get_default_graph().create_op(
            "LookupTableSizeV2",
            name or f"{self._name}_Size",
            compute=compute,
            output_specs=[((), np.dtype(np.int64))],
            host="pre",
        )
        return op.outputs[0]

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """Each key's id (int64, the keys' shape; a ``SparseTensor`` of ids for one of
        keys, a ``RaggedTensor`` of ids with the keys' row partitions for one of keys);
        an unknown key's bucket after the vocabulary.

        Raises:
          TypeError: keys not of ``lookup_key_dtype`` (TF's message).
          FailedPreconditionError (at run time): "Table not initialized."
        """
        from adapters.v1.ops.string_ops import fingerprint64

        if isinstance(keys, (SparseTensor, RaggedTensor)):
            if keys.dtype != self.key_dtype:
                raise TypeError(
                    f"Dtype of argument `keys` must be {_repr(self.key_dtype)}, received: "
                    f"{_repr(keys.dtype)}"
                )
            if isinstance(keys, RaggedTensor):
                return keys.with_flat_values(self.lookup(keys.flat_values, name))
            values = self.lookup(keys.values, name)
            return SparseTensor(keys.indices, values, keys.dense_shape)
        (tensor,) = host_inputs([keys])
        if tensor.dtype != self.key_dtype:
            raise TypeError(
                f"Dtype of argument `keys` must be {_repr(self.key_dtype)}, received: "
                f"{_repr(tensor.dtype)}"
            )
        table, buckets = self._table, self._num_oov_buckets
        integer = self.key_dtype.is_integer

        def compute(session: Any, value: Any) -> tuple:
            data = table._table(session) if table is not None else {}
            arr = np.asarray(value)
            out = np.empty(arr.shape, np.int64)
            flat = out.reshape(-1)
            for i, k in enumerate(arr.reshape(-1)):
                key = int(k) if integer else _python_key(k)
                found = data.get(key)
                if found is None:
                    text = str(key).encode() if integer else key
                    found = len(data) + fingerprint64(text) % buckets
                flat[i] = found
            return (out,)

        with ops.name_scope(name, f"{self._name}_Lookup"):
            op = ops.get_default_graph().create_op(
                "LookupTableFindV2",
                "hash_table_Lookup",
                inputs=[tensor],
                compute=compute,
                output_specs=[(tensor._shape, np.dtype(np.int64))],
                host=placement([tensor]),
            )
        return op.outputs[0]
