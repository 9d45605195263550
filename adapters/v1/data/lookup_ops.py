"""``tf.data.experimental.DatasetInitializer``, ``table_from_dataset`` and
``index_table_from_dataset``: lookup tables filled from a dataset of ``(key, value)``
pairs.

The initializer's contents are a host operation draining the dataset (each run of
the table's initializer reads it again, as TF's ``InitializeTableFromDataset``); the
table is ``tf.lookup.StaticHashTable`` (``adapters/v1/ops/lookup_ops.py``), whose
initializer op joins ``GraphKeys.TABLE_INITIALIZERS``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.data.dataset_ops import DatasetV1, Failed
from adapters.v1.data.structure import Spec, spec_repr
from adapters.v1.framework import dtypes, ops

__all__ = ["DatasetInitializer", "index_table_from_dataset", "table_from_dataset"]

_BASE_ERROR = (
    "Datasets used to initialize lookup tables must produce elements in the form (key, "
    "value), where the keys and values are scalar tensors. "
)


def _check_pairs(dataset: DatasetV1) -> tuple[Spec, Spec]:
    """The key's and value's specs of ``dataset``'s elements.

    Raises:
      ValueError: elements that are not pairs of scalars (TF's message).
      TypeError: elements that are one tensor (TF's ``len()`` of its spec).
      KeyError: elements that are dicts of two (TF indexes them by 0).
    """
    element = dataset._structure
    if isinstance(element, Spec):  # TF's len() of a TensorSpec
        raise TypeError("object of type 'TensorSpec' has no len()")
    if len(element) != 2:
        raise ValueError(
            _BASE_ERROR + f"However, the given dataset produces {len(element)} components "
            "instead of two (key, value) components. Full dataset element spec: "
            f"{spec_repr(element)}."
        )
    if isinstance(element, dict):  # TF indexes the dict by 0 and 1
        raise KeyError(0)
    for part, spec in zip(("key", "value"), element, strict=True):
        if not isinstance(spec, Spec):
            raise ValueError(
                _BASE_ERROR + f"However, the given dataset produces non-Tensor {part}s of "
                f"type {type(spec)}."
            )
    for part, spec in zip(("key", "value"), element, strict=True):
        if spec.shape.rank not in (None, 0):
            raise ValueError(
                _BASE_ERROR + f"However, the given dataset produces non-scalar {part} "
                f"Tensors of rank {spec.shape.rank}."
            )
    return element[0], element[1]


class DatasetInitializer:
    """A lookup table's contents from a dataset of ``(key, value)`` scalar pairs
    (``tf.data.experimental.DatasetInitializer``).

    Args:
      dataset: the pairs; a key given twice with another value fails the table's
        initializer (``FailedPreconditionError``, as TF).

    Raises:
      ValueError: elements that are not pairs of scalars (TF's message).
    """

    def __init__(self, dataset: DatasetV1):
        from adapters.v1.data.iterator_ops import _Pipeline

        key, value = _check_pairs(dataset)
        self.dataset = dataset
        self.key_dtype = key.dtype
        self.value_dtype = value.dtype
        pipeline = _Pipeline(dataset)
        specs = (key, value)

        def compute(session: Any, *fed: Any) -> tuple[np.ndarray, np.ndarray]:
            rows: list[tuple[Any, Any]] = []
            for element in pipeline.start(
                session, dict(zip(pipeline.placeholders, fed, strict=True))
            ):
                if isinstance(element, Failed):
                    raise element.error
                rows.append((element[0][()], element[1][()]))
            keys, values = (np.array([r[i] for r in rows], dtype=specs[i].np_dtype) for i in (0, 1))
            return keys, values

        op = ops.get_default_graph().create_op(
            "DatasetToKeyValues",
            "dataset_initializer",
            inputs=pipeline.placeholders,
            compute=compute,
            output_specs=[((None,), key.dtype), ((None,), value.dtype)],
            host="pre",
        )
        self._keys, self._values = op.outputs

    def _inputs(self) -> list[ops.Tensor]:
        return [self._keys, self._values]

    def _contents(self, keys: Any, values: Any) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(keys).reshape(-1), np.asarray(values).reshape(-1)


def table_from_dataset(
    dataset: DatasetV1 | None = None,
    num_oov_buckets: int = 0,
    vocab_size: Any = None,
    default_value: Any = None,
    hasher_spec: Any = None,
    key_dtype: Any = dtypes.string,
    name: str | None = None,
) -> Any:
    """A ``StaticHashTable`` of ``dataset``'s ``(key, value)`` pairs.

    Args:
      dataset: the pairs (scalar keys and values).
      num_oov_buckets: hash buckets for missing keys (default 0; only 0 in jtrain).
      vocab_size: the pairs read (the first ``vocab_size``; default: all); the
        dataset must have that many (``FailedPreconditionError`` when initialized).
      default_value: the value of a missing key (default -1, for numeric values).
      hasher_spec: accepted (for ``num_oov_buckets``).
      key_dtype: the keys' dtype for the buckets (default ``tf.string``): an integer
        or string dtype.
      name: the name scope (default ``"string_to_index"``).

    Raises:
      ValueError: elements that are not pairs of scalars, no ``default_value`` for
        non-numeric values, a negative ``num_oov_buckets`` or a ``vocab_size`` below 1
        (TF's messages).
      TypeError: a ``key_dtype`` that is neither an integer nor a string dtype.
      NotImplementedError: ``num_oov_buckets`` > 0 (TF's ``IdTableWithHashBuckets``
        is not in adapters.v1).
    """
    from adapters.v1.data.experimental import assert_cardinality
    from adapters.v1.ops.lookup_ops import StaticHashTable

    if dataset is None:
        raise ValueError("`dataset` must be given")
    _key, value = _check_pairs(dataset)
    if default_value is None:
        default_value = -1
        if not (value.dtype.is_integer or value.dtype.is_floating):
            raise ValueError(
                "`default_value` must be specified when creating a table from a dataset "
                f"that produces values of type {value.dtype}."
            )
    if num_oov_buckets < 0:
        raise ValueError(
            f"`num_oov_buckets` must be greater than or equal to 0, got {num_oov_buckets}."
        )
    if not isinstance(vocab_size, ops.Tensor) and vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype.base_dtype != dtypes.string:
        raise TypeError(
            f"`key_dtype` must be either an integer or string type, but got {key_dtype}"
        )
    if num_oov_buckets:
        raise NotImplementedError(
            "table_from_dataset(num_oov_buckets > 0) needs TF's IdTableWithHashBuckets, "
            "which is not in adapters.v1: look up with num_oov_buckets=0 and map the "
            "default value to buckets with tf.strings.to_hash_bucket_fast"
        )
    if vocab_size is not None:
        if isinstance(vocab_size, ops.Tensor):
            from adapters.v1.ops import math_ops

            vocab_size = math_ops.cast(vocab_size, dtypes.int64)
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    with ops.name_scope(name, "string_to_index"):
        initializer = DatasetInitializer(dataset)
        return StaticHashTable(initializer, default_value)


def index_table_from_dataset(
    dataset: DatasetV1 | None = None,
    num_oov_buckets: int = 0,
    vocab_size: Any = None,
    default_value: Any = -1,
    hasher_spec: Any = None,
    key_dtype: Any = dtypes.string,
    name: str | None = None,
) -> Any:
    """A table of each of ``dataset``'s scalar elements to its position (``tf.int64``):
    ``table_from_dataset`` of ``(element, index)`` pairs (see it).

    Args:
      dataset: the keys, one scalar per element.
      num_oov_buckets: as ``table_from_dataset``'s (only 0).
      vocab_size: as ``table_from_dataset``'s.
      default_value: the index of a missing key (default -1).
      hasher_spec: accepted.
      key_dtype: as ``table_from_dataset``'s.
      name: the name scope.
    """
    if dataset is None:
        raise ValueError("`dataset` must be given")
    pairs = dataset.enumerate().map(lambda index, key: (key, index))
    return table_from_dataset(
        pairs, num_oov_buckets, vocab_size, default_value, hasher_spec, key_dtype, name
    )
