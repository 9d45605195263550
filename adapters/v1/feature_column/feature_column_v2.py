"""Feature columns (TF's ``feature_column_v2.py``, as ``tf.compat.v1.feature_column``
builds them in graph mode).

A column describes how one feature of a batch becomes model input. Dense columns
(``numeric_column``, ``bucketized_column``, ``indicator_column``,
``embedding_column``) give a ``[batch, ...]`` float32 tensor; categorical columns
(``categorical_column_with_*``, ``bucketized_column``,
``weighted_categorical_column``) give ids as a ``SparseTensor``. The columns are
namedtuples with TF's fields, so they hash, compare and print as TF's do.

.. note:: TF turns a dense categorical input into a ``SparseTensor`` of its cells
   that are not the missing value (``''`` for strings, ``-1`` for integers), whose
   size depends on the data. jtrain's programs have static shapes, so it keeps
   every cell and gives the missing ones id ``-1``: the lookups that read the ids
   (``safe_embedding_lookup_sparse``, the indicator's one-hot) drop id ``-1`` as TF
   drops absent cells, and the model's values are TF's. ``crossed_column`` likewise
   computes every combination of a row's possible values and gives the absent ones
   id ``-1``.
"""

from __future__ import annotations

import collections
import math
from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops import embedding_ops, init_ops, lookup_ops, sparse_ops, string_ops
from adapters.v1.ops import variable_scope as vs
from adapters.v1.ops.parsing_ops import FixedLenFeature, VarLenFeature
from adapters.v1.ops.script_ops import lift

__all__ = [
    "bucketized_column",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list",
    "crossed_column",
    "embedding_column",
    "indicator_column",
    "numeric_column",
    "shared_embedding_columns",
    "weighted_categorical_column",
]

_tf = FUNCTIONS

IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])


# -- base classes ---------------------------------------------------------------------
class FeatureColumn:
    """A column: ``name``, ``_parse_example_spec`` and ``_transform_feature(builder)``."""

    name: str

    @property
    def _var_scope_name(self) -> str:
        return self.name

    @property
    def parse_example_spec(self) -> dict:
        return self._parse_example_spec

    @property
    def _parse_example_spec(self) -> dict:
        raise NotImplementedError

    def _transform_feature(self, inputs: Any) -> Any:
        raise NotImplementedError


class DenseColumn(FeatureColumn):
    """A column giving a dense ``[batch, *_variable_shape]`` tensor."""

    @property
    def variable_shape(self) -> tuple:
        return self._variable_shape

    @property
    def _variable_shape(self) -> tuple:
        raise NotImplementedError

    def _get_dense_tensor(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> Any:
        raise NotImplementedError


class CategoricalColumn(FeatureColumn):
    """A column giving ids (an ``IdWeightPair`` of ``SparseTensor``s)."""

    IdWeightPair = IdWeightPair  # TF's CategoricalColumn.IdWeightPair

    @property
    def num_buckets(self) -> int:
        return self._num_buckets

    @property
    def _num_buckets(self) -> int:
        raise NotImplementedError

    def _get_sparse_tensors(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> Any:
        """The ids (an ``IdWeightPair`` of ``SparseTensor``s; weights None)."""
        return IdWeightPair(inputs.get(self), None)


# -- helpers ----------------------------------------------------------------------------
def _assert_key_is_string(key: Any) -> None:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def _assert_string_or_int(dtype: Any, prefix: str) -> None:
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def _check_shape(shape: Any, key: str) -> tuple:
    if not isinstance(shape, (list, tuple)):
        shape = [shape]
    shape = tuple(shape)
    for dimension in shape:
        if not isinstance(dimension, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dimension < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return shape


def _flatten(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    return [value]


def _nested_shape(value: Any) -> tuple:
    if isinstance(value, (list, tuple)):
        inner = {_nested_shape(v) for v in value}
        return (len(value), *inner.pop()) if len(inner) == 1 else (len(value), -1)
    return ()


def _as_tuple(value: Any) -> Any:
    return tuple(_as_tuple(v) for v in value) if isinstance(value, (list, tuple)) else value


def _check_default_value(shape: tuple, default_value: Any, dtype: Any, key: str) -> Any:
    """TF's ``fc_utils.check_default_value``: the default as a nested tuple of ``shape``."""
    if default_value is None:
        return None
    if isinstance(default_value, int) or (isinstance(default_value, float) and dtype.is_floating):
        value: Any = default_value
        for dim in reversed(shape):
            value = (value,) * dim
        return value
    if callable(getattr(default_value, "tolist", None)):
        default_value = default_value.tolist()
    if isinstance(default_value, (list, tuple)):
        if _nested_shape(default_value) != tuple(shape):
            raise ValueError(
                "The shape of default_value must be equal to given shape. default_value: "
                f"{default_value}, shape: {shape}, key: {key}"
            )
        flat = _flatten(default_value)
        if all(isinstance(v, int) for v in flat):
            return _as_tuple(default_value)
        if any(isinstance(v, float) for v in flat) and dtype.is_floating:
            return _as_tuple(default_value)
    raise TypeError(
        f"default_value must be compatible with dtype. default_value: {default_value}, "
        f"dtype: {dtype}, key: {key}"
    )


def _is_sparse(value: Any) -> bool:
    return isinstance(value, SparseTensor)


def _sparse_rank(sp: SparseTensor) -> int | None:
    shape = sp.dense_shape._shape
    return None if shape is None or shape[0] is None else int(shape[0])


def _expand_sparse(sp: SparseTensor) -> SparseTensor:
    """A rank-1 ``SparseTensor`` as ``[batch, 1]`` (TF's ``sparse_reshape``)."""
    shape = _tf["stack"]([sp.dense_shape[0], np.int64(1)])
    return sparse_ops.sparse_reshape(sp, shape)


def _is_all_cells(sp: Any) -> bool:
    """Whether ``sp`` holds every cell of a dense feature (see ``_cells``)."""
    return bool(getattr(sp, "_jtrain_all_cells", False))


def _cells(dense: ops.Tensor) -> SparseTensor:
    """Every cell of a ``[batch, n]`` tensor as a ``SparseTensor`` (row-major, as TF's
    ``where`` lists them)."""
    shape = dense._shape
    if shape is None or len(shape) != 2 or shape[1] is None:
        raise NotImplementedError(
            "feature_column: jtrain supports dense categorical features of shape "
            f"[batch, n] with n known when the graph is built, got {shape}; reshape the "
            "feature, or feed it as a SparseTensor."
        )
    n = int(shape[1])
    batch = _tf["shape"](dense)[0]
    rows = _tf["reshape"](_tf["tile"](_tf["expand_dims"](_tf["range"](0, batch), 1), [1, n]), [-1])
    cols = _tf["tile"](_tf["range"](0, n), [batch])
    indices = _tf["cast"](_tf["transpose"](_tf["stack"]([rows, cols])), dtypes.int64)
    sp = SparseTensor(
        indices, _tf["reshape"](dense, [-1]), _tf["shape"](dense, out_type=dtypes.int64)
    )
    sp._jtrain_all_cells = True
    sp._jtrain_width = n
    return sp


def _categorical_ids(inputs: Any, key: str, transform: Any) -> SparseTensor:
    """TF's ``_to_sparse_input_and_drop_ignore_values`` of feature ``key`` followed by
    ``transform`` of its values (an elementwise map to int64 ids).

    A ``SparseTensor`` keeps its indices. A dense feature keeps all its cells (see the
    module note): ``transform`` maps the dense tensor (a host lookup reads it where the
    feed is) and the missing cells (``''``, ``-1``) get id ``-1``.
    """
    raw, expand = inputs._raw_feature(key)
    if _is_sparse(raw):
        sp = inputs.get(key)  # the raw values: a host lookup reads them where fed
        return SparseTensor(sp.indices, transform(raw.values), sp.dense_shape)
    missing = "" if raw.dtype == dtypes.string else -1
    ids = transform(raw)
    with ops.name_scope(None, "to_sparse_input"):
        absent = _tf["equal"](raw, ops.convert_to_tensor(missing, dtype=raw.dtype))
        ids = _tf["where_v2"](absent, _tf["fill"](_tf["shape"](ids), np.int64(-1)), ids)
        present = _tf["logical_not"](absent)
        if expand:
            ids = _tf["expand_dims"](ids, -1)
            present = _tf["expand_dims"](present, -1)
        sp = _cells(ids)
        sp._jtrain_present = _tf["reshape"](present, [-1])  # id -1 may be a present OOV id
        return sp


# -- numeric and bucketized -----------------------------------------------------------
class NumericColumn(
    DenseColumn,
    collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn")
    ),
):
    """See ``numeric_column``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs: Any) -> ops.Tensor:
        tensor = inputs.get(self.key)
        if _is_sparse(tensor):
            raise ValueError(
                "The corresponding Tensor of numerical column must be a Tensor. "
                f"SparseTensor is not supported. key: {self.key}"
            )
        if self.normalizer_fn is not None:
            tensor = self.normalizer_fn(tensor)
        return _tf["cast"](tensor, dtypes.float32)

    @property
    def _variable_shape(self) -> tuple:
        return tuple(self.shape)

    def _get_dense_tensor(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> ops.Tensor:
        return inputs.get(self)


def numeric_column(
    key: str,
    shape: Any = (1,),
    default_value: Any = None,
    dtype: Any = dtypes.float32,
    normalizer_fn: Any = None,
) -> NumericColumn:
    """A real-valued feature (``tf.compat.v1.feature_column.numeric_column``).

    Args:
      key: the feature's name in the features dict.
      shape: the shape of one example's value (default ``(1,)``).
      default_value: the value ``parse_example`` gives a missing feature (a number or
        a nested list of ``shape``); default None (the feature is required).
      dtype: the parsed dtype (default float32); the column's output is float32.
      normalizer_fn: applied to the feature before the cast to float32.

    Returns:
      A ``NumericColumn``.

    Raises:
      TypeError: non-integer shape dimensions, a default not of ``dtype`` or a
        non-callable ``normalizer_fn``.
      ValueError: dimensions < 1, a dtype that is not integer or floating, a
        ``default_value`` not of ``shape`` or a non-string key.
    """
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    _assert_key_is_string(key)
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


def _bucketize(x: ops.Tensor, boundaries: tuple) -> ops.Tensor:
    """TF's ``Bucketize``: the number of boundaries <= x (int32), float32 boundaries."""
    edges = np.asarray(boundaries, np.float32)

    def bucketize(v: Any) -> Any:
        import jax.numpy as jnp

        return jnp.searchsorted(jnp.asarray(edges), v, side="right").astype(jnp.int32)

    return lift(bucketize, [x], name="Bucketize")


class BucketizedColumn(
    DenseColumn,
    CategoricalColumn,
    collections.namedtuple("BucketizedColumn", ("source_column", "boundaries")),
):
    """See ``bucketized_column``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self) -> dict:
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs: Any) -> ops.Tensor:
        return _bucketize(inputs.get(self.source_column), self.boundaries)

    @property
    def _variable_shape(self) -> tuple:
        return (*self.source_column.shape, len(self.boundaries) + 1)

    def _get_dense_tensor(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> ops.Tensor:
        ids = _tf["cast"](inputs.get(self), dtypes.int64)
        return _tf["one_hot"](ids, depth=len(self.boundaries) + 1, on_value=1.0, off_value=0.0)

    @property
    def _num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> IdWeightPair:
        tensor = inputs.get(self)
        batch = _tf["shape"](tensor)[0]
        dim = self.source_column.shape[0]
        rows = _tf["reshape"](
            _tf["tile"](_tf["expand_dims"](_tf["range"](0, batch), 1), [1, dim]), [-1]
        )
        cols = _tf["tile"](_tf["range"](0, dim), [batch])
        ids = _tf["reshape"](tensor, (-1,)) + (len(self.boundaries) + 1) * cols
        indices = _tf["cast"](_tf["transpose"](_tf["stack"]((rows, cols))), dtypes.int64)
        dense_shape = _tf["cast"](_tf["stack"]([batch, dim]), dtypes.int64)
        sp = SparseTensor(indices, ids, dense_shape)
        sp._jtrain_all_cells = True
        sp._jtrain_width = dim
        return IdWeightPair(sp, None)


def bucketized_column(source_column: NumericColumn, boundaries: Any) -> BucketizedColumn:
    """A ``numeric_column`` discretized by ``boundaries``
    (``tf.compat.v1.feature_column.bucketized_column``).

    Bucket ``i`` holds ``boundaries[i-1] <= x < boundaries[i]`` (float32 comparisons,
    TF's ``Bucketize``); as a dense column it is the one-hot of the bucket, as a
    categorical one the ids ``bucket + (len(boundaries) + 1) * position``.

    Args:
      source_column: a one-dimensional ``numeric_column``.
      boundaries: a sorted list or tuple of floats.

    Returns:
      A ``BucketizedColumn``.

    Raises:
      ValueError: ``source_column`` not a one-dimensional ``numeric_column``, or
        ``boundaries`` empty, not a list/tuple or not sorted.
    """
    if not isinstance(source_column, NumericColumn):
        raise ValueError(
            "source_column must be a column generated with numeric_column(). "
            f"Given: {source_column}"
        )
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))


# -- categorical columns ----------------------------------------------------------------
class HashedCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple("HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype")),
):
    """See ``categorical_column_with_hash_bucket``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs: Any) -> SparseTensor:
        raw, _ = inputs._raw_feature(self.key)
        _assert_string_or_int(raw.dtype, prefix=f"column_name: {self.key} input_tensor")
        if self.dtype.is_integer != raw.dtype.is_integer:
            raise ValueError(
                "Column dtype and SparseTensors dtype must be compatible. key: "
                f"{self.key}, column dtype: {self.dtype}, tensor dtype: {raw.dtype}"
            )

        def hashed(values: ops.Tensor) -> ops.Tensor:
            if values.dtype != dtypes.string:
                values = string_ops.as_string(values)
            return string_ops.string_to_hash_bucket_fast(
                values, self.hash_bucket_size, name="lookup"
            )

        return _categorical_ids(inputs, self.key, hashed)

    @property
    def _num_buckets(self) -> int:
        return self.hash_bucket_size


def categorical_column_with_hash_bucket(
    key: str, hash_bucket_size: int, dtype: Any = dtypes.string
) -> HashedCategoricalColumn:
    """Ids by hashing: FarmHash ``Fingerprint64`` of the value (an integer's decimal
    string) modulo ``hash_bucket_size``
    (``tf.compat.v1.feature_column.categorical_column_with_hash_bucket``).

    Args:
      key: the feature's name.
      hash_bucket_size: the number of buckets (>= 1).
      dtype: the feature's dtype, string (default) or integer.

    Returns:
      A ``HashedCategoricalColumn``.

    Raises:
      ValueError: ``hash_bucket_size`` None or < 1, a dtype not string or integer.
    """
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(
            f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}"
        )
    _assert_key_is_string(key)
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


class VocabularyListCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"),
    ),
):
    """See ``categorical_column_with_vocabulary_list``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs: Any) -> SparseTensor:
        raw, _ = inputs._raw_feature(self.key)
        if self.dtype.is_integer != raw.dtype.is_integer:
            raise ValueError(
                "Column dtype and SparseTensors dtype must be compatible. key: "
                f"{self.key}, column dtype: {self.dtype}, tensor dtype: {raw.dtype}"
            )
        _assert_string_or_int(raw.dtype, prefix=f"column_name: {self.key} input_tensor")
        table = _index_table(
            self.vocabulary_list,
            self.default_value,
            self.num_oov_buckets,
            raw.dtype,
            name=f"{self.key}_lookup",
        )
        return _categorical_ids(inputs, self.key, table.lookup)

    @property
    def _num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets


def _index_table(
    vocabulary: tuple, default_value: int, num_oov_buckets: int, key_dtype: Any, name: str
) -> Any:
    """TF's ``index_table_from_tensor``: the i-th word's id is ``i``; another key's id is
    ``default_value``, or with ``num_oov_buckets`` its bucket after the vocabulary.

    Integer keys of any width are looked up as TF's int64 keys (TF casts them first:
    jtrain's tables read the keys where they are fed, so the table takes the keys'
    dtype; a word the keys' dtype cannot hold matches no key, as in TF)."""
    ids = np.arange(len(vocabulary), dtype=np.int64)
    if key_dtype.is_integer:
        info = np.iinfo(key_dtype.as_numpy_dtype)
        words = np.asarray(vocabulary, np.int64)
        keep = (words >= info.min) & (words <= info.max)
        table_keys: Any = words.astype(np.int64 if num_oov_buckets else key_dtype.as_numpy_dtype)
        table_keys, ids = table_keys[keep], ids[keep]
        lookup_dtype = key_dtype
    else:
        table_keys = np.asarray(
            [w.encode() if isinstance(w, str) else w for w in vocabulary], object
        )
        lookup_dtype = dtypes.string
    with ops.name_scope(name):
        init = lookup_ops.KeyValueTensorInitializer(
            table_keys,
            ids,
            key_dtype=dtypes.int64 if key_dtype.is_integer and num_oov_buckets else None,
            value_dtype=dtypes.int64,
        )
        if num_oov_buckets:
            return lookup_ops.StaticVocabularyTable(
                init, num_oov_buckets, lookup_key_dtype=lookup_dtype
            )
        return lookup_ops.StaticHashTable(init, default_value)


def categorical_column_with_vocabulary_list(
    key: str,
    vocabulary_list: Any,
    dtype: Any = None,
    default_value: int = -1,
    num_oov_buckets: int = 0,
) -> VocabularyListCategoricalColumn:
    """Ids by position in an in-memory vocabulary
    (``tf.compat.v1.feature_column.categorical_column_with_vocabulary_list``).

    A value in ``vocabulary_list`` gets its index; another gets ``default_value``
    (default -1: dropped by the embedding and indicator columns) or, with
    ``num_oov_buckets``, ``len(vocabulary_list) + Fingerprint64(value) %
    num_oov_buckets``. The table is a lookup table: run ``tf.tables_initializer()``.

    Args:
      key: the feature's name.
      vocabulary_list: the words (strings or integers), without duplicates.
      dtype: the feature's dtype (default: the vocabulary's).
      default_value: the id of an out-of-vocabulary value (default -1).
      num_oov_buckets: the number of out-of-vocabulary buckets (default 0).

    Returns:
      A ``VocabularyListCategoricalColumn``.

    Raises:
      ValueError: an empty vocabulary or duplicates, both ``num_oov_buckets`` and
        ``default_value``, ``num_oov_buckets`` < 0, dtypes not string or integer or
        not matching the vocabulary's.
    """
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    vocabulary_dtype = dtypes.as_dtype(np.array(vocabulary_list).dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    _assert_string_or_int(vocabulary_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError(
                f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not match, "
                f"column_name: {key}"
            )
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    _assert_key_is_string(key)
    return VocabularyListCategoricalColumn(
        key, tuple(vocabulary_list), dtype, default_value, num_oov_buckets
    )


class IdentityCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple("IdentityCategoricalColumn", ("key", "number_buckets", "default_value")),
):
    """See ``categorical_column_with_identity``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(dtypes.int64)}

    def _transform_feature(self, inputs: Any) -> SparseTensor:
        raw, _ = inputs._raw_feature(self.key)
        if not raw.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {raw.dtype}")

        def identity(values: ops.Tensor) -> ops.Tensor:
            values = _tf["cast"](values, dtypes.int64, name="values")
            if self.default_value is not None:
                out_of_range = _tf["logical_or"](
                    _tf["less"](values, np.int64(0)),
                    _tf["greater_equal"](values, np.int64(self.number_buckets)),
                    name="out_of_range",
                )
                default = _tf["fill"](_tf["shape"](values), np.int64(self.default_value))
                values = _tf["where_v2"](out_of_range, default, values)
            return values

        return _categorical_ids(inputs, self.key, identity)

    @property
    def _num_buckets(self) -> int:
        return self.number_buckets


def categorical_column_with_identity(
    key: str, num_buckets: int, default_value: int | None = None
) -> IdentityCategoricalColumn:
    """Integer features used as ids (``tf.compat.v1.feature_column.
    categorical_column_with_identity``).

    Args:
      key: the feature's name.
      num_buckets: ids are in ``[0, num_buckets)``.
      default_value: the id of values outside that range (default None: kept, and
        an embedding lookup of one raises at run time, as TF).

    Returns:
      An ``IdentityCategoricalColumn``.

    Raises:
      ValueError: ``num_buckets`` < 1 or ``default_value`` outside the range.
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(
            f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}"
        )
    _assert_key_is_string(key)
    return IdentityCategoricalColumn(key, num_buckets, default_value)


# -- dense columns of categorical ones --------------------------------------------------
class IndicatorColumn(
    DenseColumn,
    collections.namedtuple("IndicatorColumn", ("categorical_column",)),
):
    """See ``indicator_column``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.categorical_column.name}_indicator"

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: Any) -> ops.Tensor:
        pair = self.categorical_column._get_sparse_tensors(inputs)
        size = self._variable_shape[-1]
        dense_ids = sparse_ops.sparse_tensor_to_dense(pair.id_tensor, default_value=-1)
        one_hot = _tf["one_hot"](dense_ids, depth=size, on_value=1.0, off_value=0.0)
        if pair.weight_tensor is not None:
            # TF scatters each id's weight into its bucket (sparse_merge, scatter_nd).
            weights = sparse_ops.sparse_tensor_to_dense(pair.weight_tensor)
            one_hot = one_hot * _tf["expand_dims"](weights, -1)
        return _tf["reduce_sum"](one_hot, axis=[-2])

    @property
    def _variable_shape(self) -> tuple:
        return (1, self.categorical_column._num_buckets)

    def _get_dense_tensor(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> ops.Tensor:
        return inputs.get(self)


def indicator_column(categorical_column: CategoricalColumn) -> IndicatorColumn:
    """The multi-hot ``[batch, num_buckets]`` float32 count of a categorical column's
    ids (``tf.compat.v1.feature_column.indicator_column``).

    Args:
      categorical_column: a ``categorical_column_with_*`` or ``bucketized_column``.

    Returns:
      An ``IndicatorColumn``.

    Raises:
      ValueError: not a categorical column.
    """
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(
            "Unsupported input type. Input must be a CategoricalColumn. "
            f"Given: {categorical_column}"
        )
    return IndicatorColumn(categorical_column)


class EmbeddingColumn(
    DenseColumn,
    collections.namedtuple(
        "EmbeddingColumn",
        (
            "categorical_column",
            "dimension",
            "combiner",
            "initializer",
            "ckpt_to_load_from",
            "tensor_name_in_ckpt",
            "max_norm",
            "trainable",
            "use_safe_embedding_lookup",
        ),
    ),
):
    """See ``embedding_column``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.categorical_column.name}_embedding"

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: Any) -> Any:
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self) -> tuple:
        return (self.dimension,)

    def _lookup(self, pair: IdWeightPair, weights: Any) -> ops.Tensor:
        if self.ckpt_to_load_from is not None:
            from adapters.v1.training.checkpoint_utils import init_from_checkpoint

            init_from_checkpoint(self.ckpt_to_load_from, {self.tensor_name_in_ckpt: weights})
        return embedding_ops.safe_embedding_lookup_sparse(
            weights,
            pair.id_tensor,
            pair.weight_tensor,
            combiner=self.combiner,
            name=f"{self.name}_weights",
            max_norm=self.max_norm,
        )

    def _get_dense_tensor(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> ops.Tensor:
        pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections, trainable)
        if weight_collections and ops.GraphKeys.GLOBAL_VARIABLES not in weight_collections:
            weight_collections.append(ops.GraphKeys.GLOBAL_VARIABLES)
        weights = vs.get_variable(
            name="embedding_weights",
            shape=(self.categorical_column._num_buckets, self.dimension),
            dtype=dtypes.float32,
            initializer=self.initializer,
            trainable=self.trainable and trainable,
            collections=weight_collections,
        )
        return self._lookup(pair, weights)


def _check_embedding_args(
    dimension: Any,
    ckpt_to_load_from: Any,
    tensor_name_in_ckpt: Any,
    initializer: Any,
    use_safe_embedding_lookup: bool,
    column_name: str,
) -> Any:
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError(
            "Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them."
        )
    if initializer is not None and not callable(initializer):
        raise ValueError(
            f"initializer must be callable if specified. Embedding of column_name: {column_name}"
        )
    if not use_safe_embedding_lookup:
        raise NotImplementedError(
            "embedding_column(use_safe_embedding_lookup=False): jtrain keeps the missing "
            "cells of dense features as id -1, which only the safe lookup drops; leave "
            "use_safe_embedding_lookup=True (TF's default, the same values for valid ids)."
        )
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(
            mean=0.0, stddev=1 / math.sqrt(dimension)
        )
    return initializer


def embedding_column(
    categorical_column: CategoricalColumn,
    dimension: int,
    combiner: str = "mean",
    initializer: Any = None,
    ckpt_to_load_from: str | None = None,
    tensor_name_in_ckpt: str | None = None,
    max_norm: float | None = None,
    trainable: bool = True,
    use_safe_embedding_lookup: bool = True,
) -> EmbeddingColumn:
    """Learned ``dimension``-vectors of a categorical column's ids, combined per example
    (``tf.compat.v1.feature_column.embedding_column``).

    The table is the float32 variable ``<scope>/<column>_embedding/embedding_weights``
    of shape ``[num_buckets, dimension]``; the lookup is
    ``tf.nn.safe_embedding_lookup_sparse`` (ids < 0 dropped, empty rows zeros).

    Args:
      categorical_column: the ids' column.
      dimension: the embedding size (>= 1).
      combiner: ``"mean"`` (default), ``"sqrtn"`` or ``"sum"``.
      initializer: the table's initializer (default: truncated normal of stddev
        ``1/sqrt(dimension)``).
      ckpt_to_load_from: a checkpoint to initialize the table from (with
        ``tensor_name_in_ckpt``; ``tf.train.init_from_checkpoint``).
      tensor_name_in_ckpt: the table's name in that checkpoint.
      max_norm: if not None, rows with a larger L2 norm are scaled down to it.
      trainable: whether the table is trainable (default True).
      use_safe_embedding_lookup: must be True in jtrain (TF's default).

    Returns:
      An ``EmbeddingColumn``.

    Raises:
      ValueError: ``dimension`` < 1, only one of the checkpoint arguments, or a
        non-callable initializer.
      NotImplementedError: ``use_safe_embedding_lookup=False``.
    """
    initializer = _check_embedding_args(
        dimension,
        ckpt_to_load_from,
        tensor_name_in_ckpt,
        initializer,
        use_safe_embedding_lookup,
        categorical_column.name,
    )
    return EmbeddingColumn(
        categorical_column,
        dimension,
        combiner,
        initializer,
        ckpt_to_load_from,
        tensor_name_in_ckpt,
        max_norm,
        trainable,
        use_safe_embedding_lookup,
    )


# -- vocabulary file, weighted and shared columns -------------------------------------
class VocabularyFileCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        (
            "key",
            "vocabulary_file",
            "vocabulary_size",
            "num_oov_buckets",
            "dtype",
            "default_value",
            "file_format",
        ),
    ),
):
    """See ``categorical_column_with_vocabulary_file``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs: Any) -> SparseTensor:
        raw, _ = inputs._raw_feature(self.key)
        if self.dtype.is_integer != raw.dtype.is_integer:
            raise ValueError(
                "Column dtype and SparseTensors dtype must be compatible. key: "
                f"{self.key}, column dtype: {self.dtype}, tensor dtype: {raw.dtype}"
            )
        _assert_string_or_int(raw.dtype, prefix=f"column_name: {self.key} input_tensor")
        # TF reads integer words as the whole line (WHOLE_LINE): a delimiter no line
        # holds makes column 0 the whole line.
        integer = raw.dtype.is_integer
        key_dtype = dtypes.int64 if integer and self.num_oov_buckets else raw.dtype
        with ops.name_scope(f"{self.key}_lookup"):
            init = lookup_ops.TextFileInitializer(
                self.vocabulary_file,
                key_dtype,
                0 if integer else lookup_ops.TextFileIndex.WHOLE_LINE,
                dtypes.int64,
                lookup_ops.TextFileIndex.LINE_NUMBER,
                vocab_size=self.vocabulary_size,
                delimiter="\n" if integer else "\t",
            )
            if self.num_oov_buckets:
                table: Any = lookup_ops.StaticVocabularyTable(
                    init, self.num_oov_buckets, lookup_key_dtype=raw.dtype
                )
            else:
                table = lookup_ops.StaticHashTable(init, self.default_value)
        return _categorical_ids(inputs, self.key, table.lookup)

    @property
    def _num_buckets(self) -> int:
        return self.vocabulary_size + self.num_oov_buckets


def categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str,
    vocabulary_size: int | None = None,
    num_oov_buckets: int = 0,
    default_value: int | None = None,
    dtype: Any = dtypes.string,
) -> VocabularyFileCategoricalColumn:
    """Ids by line number in a vocabulary file, one word a line
    (``tf.compat.v1.feature_column.categorical_column_with_vocabulary_file``).

    The table is read when ``tf.tables_initializer()`` runs (its first
    ``vocabulary_size`` lines); other values get ``default_value`` (default -1) or,
    with ``num_oov_buckets``, a bucket after the vocabulary, as
    ``categorical_column_with_vocabulary_list``.

    Args:
      key: the feature's name.
      vocabulary_file: the file's path.
      vocabulary_size: the number of words (default None: the file's line count,
        counted now).
      num_oov_buckets: the number of out-of-vocabulary buckets (default 0).
      default_value: the id of other values (default None: -1).
      dtype: the feature's dtype, string (default) or integer.

    Returns:
      A ``VocabularyFileCategoricalColumn``.

    Raises:
      ValueError: no file, a missing file when counting, a size < 1, both
        ``num_oov_buckets`` and ``default_value``, ``num_oov_buckets`` < 0, a dtype not
        string or integer.
      NotImplementedError: a ``tfrecord.gz`` vocabulary.
    """
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_file.endswith("tfrecord.gz"):
        raise NotImplementedError(
            "categorical_column_with_vocabulary_file: jtrain reads text vocabularies; "
            f"{vocabulary_file} is a tfrecord.gz file."
        )
    if vocabulary_size is None:
        import os

        if not os.path.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with open(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    _assert_key_is_string(key)
    return VocabularyFileCategoricalColumn(
        key,
        vocabulary_file,
        vocabulary_size,
        0 if num_oov_buckets is None else num_oov_buckets,
        dtype,
        -1 if default_value is None else default_value,
        None,
    )


class WeightedCategoricalColumn(
    CategoricalColumn,
    collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype")
    ),
):
    """See ``weighted_categorical_column``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self) -> dict:
        config = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError(
                f"Parse config {config[self.weight_feature_key]} already exists for "
                f"{self.weight_feature_key}."
            )
        config[self.weight_feature_key] = VarLenFeature(self.dtype)
        return config

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs: Any) -> tuple:
        weights = inputs.get(self.weight_feature_key)
        if self.dtype != weights.dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weights.dtype}.")
        ids = inputs.get(self.categorical_column)
        if _is_sparse(weights) == _is_all_cells(ids):
            raise NotImplementedError(
                f"weighted_categorical_column {self.name}: jtrain needs the ids' and the "
                "weights' features both dense or both SparseTensors (TF requires the same "
                "indices for both)."
            )
        if not _is_sparse(weights):
            # TF drops the weights' 0.0 cells as it drops the ids' missing ones: with
            # TF's requirement of the same cells for both, every cell kept is the same.
            weights = _cells(weights)
        if not weights.dtype.is_floating:
            weights = SparseTensor(
                weights.indices, _tf["cast"](weights.values, dtypes.float32), weights.dense_shape
            )
        return ids, weights

    def _get_sparse_tensors(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> Any:
        ids, weights = inputs.get(self)
        return IdWeightPair(ids, weights)


def weighted_categorical_column(
    categorical_column: CategoricalColumn, weight_feature_key: str, dtype: Any = dtypes.float32
) -> WeightedCategoricalColumn:
    """A categorical column whose ids carry the weights of feature
    ``weight_feature_key`` (``tf.compat.v1.feature_column.weighted_categorical_column``).

    Args:
      categorical_column: the ids' column.
      weight_feature_key: the weights' feature (same indices as the ids).
      dtype: the weights' dtype (default float32; integer or floating).

    Returns:
      A ``WeightedCategoricalColumn``.

    Raises:
      ValueError: a dtype that is not integer or floating.
      NotImplementedError (when the model is built): ids and weights not both dense
        or both ``SparseTensor``s.
    """
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


class SharedEmbeddingColumn(
    DenseColumn,
    collections.namedtuple(
        "_SharedEmbeddingColumn",
        (
            "categorical_column",
            "dimension",
            "combiner",
            "initializer",
            "shared_embedding_collection_name",
            "ckpt_to_load_from",
            "tensor_name_in_ckpt",
            "max_norm",
            "trainable",
            "use_safe_embedding_lookup",
        ),
    ),
):
    """See ``shared_embedding_columns``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self) -> str:
        return self.shared_embedding_collection_name

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: Any) -> Any:
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self) -> tuple:
        return (self.dimension,)

    _lookup = EmbeddingColumn._lookup

    def _get_dense_tensor(
        self, inputs: Any, weight_collections: Any = None, trainable: Any = None
    ) -> ops.Tensor:
        with ops.name_scope(None, default_name=self.name):
            pair = self.categorical_column._get_sparse_tensors(
                inputs, weight_collections=weight_collections, trainable=trainable
            )
            shape = (self.categorical_column._num_buckets, self.dimension)
            shared = ops.get_collection(self.shared_embedding_collection_name)
            if shared:
                if len(shared) > 1:
                    raise ValueError(
                        f"Collection {shared} can only contain one variable. Suggested fix "
                        "A: Choose a unique name for this collection. Suggested fix B: Do "
                        "not add any variables to this collection. The feature_column "
                        "library already adds a variable under the hood."
                    )
                weights = shared[0]
                if tuple(weights.get_shape().as_list()) != shape:
                    raise ValueError(
                        f"Shared embedding collection {self.shared_embedding_collection_name}"
                        f" contains variable {weights.name} of unexpected shape "
                        f"{weights.get_shape()}. Expected shape is {shape}. Suggested fix A: "
                        "Choose a unique name for this collection. Suggested fix B: Do not "
                        "add any variables to this collection. The feature_column library "
                        "already adds a variable under the hood."
                    )
            else:
                weights = vs.get_variable(
                    name="embedding_weights",
                    shape=shape,
                    dtype=dtypes.float32,
                    initializer=self.initializer,
                    trainable=self.trainable and trainable,
                    collections=weight_collections,
                )
                ops.add_to_collection(self.shared_embedding_collection_name, weights)
            return self._lookup(pair, weights)


def shared_embedding_columns(
    categorical_columns: Any,
    dimension: int,
    combiner: str = "mean",
    initializer: Any = None,
    shared_embedding_collection_name: str | None = None,
    ckpt_to_load_from: str | None = None,
    tensor_name_in_ckpt: str | None = None,
    max_norm: float | None = None,
    trainable: bool = True,
    use_safe_embedding_lookup: bool = True,
) -> list:
    """Embedding columns of several categorical columns sharing one table
    (``tf.compat.v1.feature_column.shared_embedding_columns``).

    The table is created by the first of them that a model builds, as
    ``<scope>/<collection name>/embedding_weights`` (default name: the columns' names
    sorted and joined by ``_`` plus ``_shared_embedding``), and kept in the graph
    collection of that name.

    Args:
      categorical_columns: categorical columns of one type and number of buckets.
      dimension: the embedding size (>= 1).
      combiner: ``"mean"`` (default), ``"sqrtn"`` or ``"sum"``.
      initializer: the table's initializer (default: truncated normal of stddev
        ``1/sqrt(dimension)``).
      shared_embedding_collection_name: the collection (and variable scope) name.
      ckpt_to_load_from: a checkpoint to initialize the table from.
      tensor_name_in_ckpt: the table's name in that checkpoint.
      max_norm: if not None, rows with a larger L2 norm are scaled down to it.
      trainable: whether the table is trainable (default True).
      use_safe_embedding_lookup: must be True in jtrain (TF's default).

    Returns:
      A list of ``SharedEmbeddingColumn``, in the order of ``categorical_columns``.

    Raises:
      ValueError: as ``embedding_column``; columns not categorical, of different
        types or numbers of buckets.
    """
    initializer = _check_embedding_args(
        dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer,
        use_safe_embedding_lookup, "",
    )  # fmt: skip
    columns = sorted(categorical_columns, key=lambda x: x.name)
    c0 = columns[0]
    if not isinstance(c0, CategoricalColumn):
        raise ValueError(
            "All categorical_columns must be subclasses of _CategoricalColumn. "
            f"Given: {c0}, of type: {type(c0)}"
        )
    num_buckets = c0._num_buckets
    while isinstance(c0, WeightedCategoricalColumn):
        c0 = c0.categorical_column
    for c in columns[1:]:
        while isinstance(c, WeightedCategoricalColumn):
            c = c.categorical_column
        if not isinstance(c, type(c0)):
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the "
                "same type, or be weighted_categorical_column or sequence column of the "
                f"same type. Given column: {c0} of type: {type(c0)} does not match given "
                f"column: {c} of type: {type(c)}"
            )
        if num_buckets != c._num_buckets:
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the "
                f"same number of buckets. ven column: {c0} with buckets: {num_buckets} "
                f"does  not match column: {c} with buckets: {c._num_buckets}"
            )
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in columns)
        shared_embedding_collection_name += "_shared_embedding"
    return [
        SharedEmbeddingColumn(
            column,
            dimension,
            combiner,
            initializer,
            shared_embedding_collection_name,
            ckpt_to_load_from,
            tensor_name_in_ckpt,
            max_norm,
            trainable,
            use_safe_embedding_lookup,
        )  # fmt: skip
        for column in categorical_columns
    ]


_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TF's sparse_cross_hashed default
_K_MUL = 0xC6A4A7935BD1E995


def _fingerprint_cat64(fp1: Any, fp2: Any) -> Any:
    """TF's ``FingerprintCat64`` of two uint64 arrays (wrapping uint64 arithmetic)."""
    import jax.numpy as jnp

    mul = jnp.uint64(_K_MUL)

    def shift_mix(v: Any) -> Any:
        return v ^ (v >> jnp.uint64(47))

    result = fp1 ^ mul
    result = result ^ (shift_mix(fp2 * mul) * mul)
    result = result * mul
    result = shift_mix(result) * mul
    return shift_mix(result)


def _fingerprint64(strings: ops.Tensor) -> ops.Tensor:
    """FarmHash ``Fingerprint64`` of each string, as the int64 of its bits (a host op
    where the strings are, as TF's ``SparseCross`` hashes them)."""
    from adapters.v1.ops.data_flow_ops import host_inputs, placement

    (tensor,) = host_inputs([strings])

    def compute(session: Any, value: Any) -> tuple:
        arr = np.asarray(value)
        flat = [string_ops.fingerprint64(bytes(v)) for v in arr.reshape(-1)]
        return (np.asarray(flat, np.uint64).view(np.int64).reshape(arr.shape),)

    op = ops.get_default_graph().create_op(
        "Fingerprint64", "fingerprint", inputs=[tensor], compute=compute,
        output_specs=[(tensor._shape, np.dtype(np.int64))], host=placement([tensor]),
    )  # fmt: skip
    return op.outputs[0]


class CrossedColumn(
    CategoricalColumn,
    collections.namedtuple("CrossedColumn", ("keys", "hash_bucket_size", "hash_key")),
):
    """See ``crossed_column``."""

    @property
    def name(self) -> str:  # type: ignore[override]
        names = [k.name if isinstance(k, FeatureColumn) else k for k in _leaf_keys(self)]
        return "_X_".join(sorted(names))

    @property
    def _parse_example_spec(self) -> dict:
        config: dict = {}
        for key in self.keys:
            if isinstance(key, FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config[key] = VarLenFeature(dtypes.string)
        return config

    @property
    def _num_buckets(self) -> int:
        return self.hash_bucket_size

    def _transform_feature(self, inputs: Any) -> SparseTensor:
        # TF's SparseCross takes the SparseTensors first (categorical columns' ids and
        # sparse features), then the dense features. Each is given here as its values
        # [batch, width] (int64: an integer, or a string's Fingerprint64) and which of
        # them are present; a cross of an absent value is absent (id -1, see the
        # module note), and the present crosses keep TF's order.
        sparse, dense = [], []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                tensor, expand = inputs._raw_feature(key)
                if _is_sparse(tensor):
                    sp = inputs.get(key)
                    sparse.append(self._densify(sp, _hashable(tensor.values), key))
                    continue
                # Hashed where the strings are fed (host), then expanded as TF's builder.
                values = _hashable(tensor)
                values = _tf["expand_dims"](values, -1) if expand else values
                dense.append((values, None))
            elif isinstance(key, CategoricalColumn):
                pair = key._get_sparse_tensors(inputs)
                if pair.weight_tensor is not None:
                    raise ValueError(
                        "crossed_column does not support weight_tensor, but the given column "
                        f"populates weight_tensor. Given column: {key.name}"
                    )
                ids = pair.id_tensor
                if _is_all_cells(ids):
                    width = ids._jtrain_width
                    values = _tf["reshape"](ids.values, [-1, width])
                    present = getattr(ids, "_jtrain_present", None)
                    if present is not None:
                        present = _tf["reshape"](present, [-1, width])
                    sparse.append((values, present))
                else:
                    sparse.append(self._densify(ids, ids.values, key.name))
            else:
                raise ValueError(f"Unsupported column type. Given: {key}")
        parts, masks = [], []
        for values, present in sparse + dense:
            parts.append(_tf["cast"](values, dtypes.int64))
            masks.append(present)
        key = np.uint64(_DEFAULT_HASH_KEY if self.hash_key is None else self.hash_key)
        buckets = np.uint64(self.hash_bucket_size)
        known = [i for i, m in enumerate(masks) if m is not None]

        def cross(*args: Any) -> Any:
            import jax.numpy as jnp

            values, given = args[: len(parts)], dict(zip(known, args[len(parts) :], strict=True))
            batch = values[0].shape[0]
            hashed = jnp.full((batch, 1), key, jnp.uint64)
            present = jnp.ones((batch, 1), bool)
            for i, v in enumerate(values):
                h = _fingerprint_cat64(hashed[:, :, None], v.astype(jnp.uint64)[:, None, :])
                hashed = h.reshape(batch, -1)
                p = given.get(i, jnp.ones(v.shape, bool))
                present = (present[:, :, None] & p[:, None, :]).reshape(batch, -1)
            ids = (hashed % buckets).astype(jnp.int64)
            return jnp.where(present, ids, jnp.int64(-1))

        total = 1
        for values in parts:
            width = (
                values._shape[1] if values._shape is not None and len(values._shape) == 2 else None
            )
            if width is None:
                raise NotImplementedError(
                    f"crossed_column {self.name}: jtrain crosses features of shape [batch, n] "
                    f"with n known when the graph is built, got {values._shape}."
                )
            total *= int(width)
        with ops.name_scope(None, "SparseCross"):
            crossed = lift(cross, parts + [masks[i] for i in known], name="SparseCross")
            return _cells(_tf["reshape"](crossed, [-1, total]))

    def _densify(self, sp: SparseTensor, values: ops.Tensor, what: str) -> tuple:
        """A ``[batch, width]`` ``SparseTensor`` as its values (``values`` in its cells,
        0 elsewhere) and a mask of its cells (TF crosses each row's values in order)."""
        width = _static_width(sp, self.name, what)
        shape = sp.dense_shape
        dense = sparse_ops.sparse_tensor_to_dense(SparseTensor(sp.indices, values, shape), 0)
        ones = _tf["ones_like"](values, dtype=dtypes.int32)
        count = sparse_ops.sparse_tensor_to_dense(SparseTensor(sp.indices, ones, shape), 0)
        present = _tf["not_equal"](count, np.int32(0))
        return _tf["reshape"](dense, [-1, width]), _tf["reshape"](present, [-1, width])


def _hashable(tensor: ops.Tensor) -> ops.Tensor:
    """A feature's values as ``SparseCross`` hashes them: a string's ``Fingerprint64``
    (on the host), an integer itself."""
    return _fingerprint64(tensor) if tensor.dtype == dtypes.string else tensor


def _static_width(sp: SparseTensor, cross: str, what: str) -> int:
    shape = sp.get_shape()
    dims = None if shape.ndims is None else shape.as_list()
    if dims is None or len(dims) != 2 or dims[1] is None:
        raise NotImplementedError(
            f"crossed_column {cross}: jtrain crosses {what} as [batch, n] with n known when "
            f"the graph is built (it bounds the crosses per example), got shape {dims}; give "
            "the feature a static width (tf.sparse_placeholder(shape=[None, n]))."
        )
    return int(dims[1])


def _leaf_keys(cross: CrossedColumn) -> list:
    keys: list = []
    for k in cross.keys:
        keys.extend(_leaf_keys(k) if isinstance(k, CrossedColumn) else [k])
    return keys


def crossed_column(keys: Any, hash_bucket_size: int, hash_key: int | None = None) -> CrossedColumn:
    """Ids of the crosses of several features: per example, every combination of one
    value of each, hashed (``tf.compat.v1.feature_column.crossed_column``).

    A combination's id is TF's ``SparseCross``: starting from ``hash_key``, the
    ``FingerprintCat64`` with each value's hash (FarmHash ``Fingerprint64`` of a
    string, an integer's own bits) in TF's order (bucketized columns first, then the
    named features; the last feature varies fastest), modulo ``hash_bucket_size``.

    Args:
      keys: feature names (dense string or integer features, whose ``''``/``-1``
        cells are crossed as values, as TF; ``SparseTensor`` features) and
        categorical columns (but ``categorical_column_with_hash_bucket``); nested
        crossed columns are flattened.
      hash_bucket_size: the number of ids (>= 1).
      hash_key: the first value of the hash chain (default TF's ``0xDECAFCAFFE``).

    Returns:
      A ``CrossedColumn``.

    Raises:
      ValueError: ``hash_bucket_size`` < 1, fewer than two keys, or a key that is not
        a string or a categorical column, or a hash-bucket column.
      NotImplementedError (when the model is built): a ``SparseTensor`` input of
        unknown width (jtrain computes every combination of the row's possible
        values, ``prod(widths)`` per example, the absent ones as id -1).
    """
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, CategoricalColumn)):
            raise ValueError(
                "Unsupported key type. All keys must be either string, or categorical "
                f"column except HashedCategoricalColumn. Given: {key}"
            )
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(
                "categorical_column_with_hash_bucket is not supported for crossing. Hashing "
                "before crossing will increase probability of collision. Instead, use the "
                f"feature name as a string. Given: {key}"
            )
    return CrossedColumn(tuple(keys), hash_bucket_size, hash_key)
