"""``tf.compat.v1.feature_column.input_layer``, ``linear_model`` and
``make_parse_example_spec`` (TF's ``feature_column.py``).

``input_layer`` concatenates the dense columns, sorted by name, under the variable
scope ``input_layer`` (one sub-scope per column, named as the column: an embedding's
table is ``input_layer/<key>_embedding/embedding_weights``). ``linear_model`` sums
one weighted term per column plus a bias, with TF's variables
``linear_model/<column>/weights`` and ``linear_model/bias_weights``. The columns
themselves are in ``feature_column_v2.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adapters.v1.feature_column.feature_column_v2 import (
    CategoricalColumn,
    DenseColumn,
    FeatureColumn,
    _expand_sparse,
    _is_sparse,
    _sparse_rank,
)
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.ops import embedding_ops, init_ops
from adapters.v1.ops import variable_scope as vs

__all__ = ["input_layer", "linear_model", "make_parse_example_spec"]

_tf = FUNCTIONS


class _LazyBuilder:
    """The features and each column's transformed feature, made once (TF's
    ``_LazyBuilder``): a ``str`` key is a raw feature (rank 1 expanded to
    ``[batch, 1]``), a column key its ``_transform_feature``."""

    def __init__(self, features: dict):
        self._features = dict(features)
        self._feature_tensors: dict[Any, Any] = {}

    def _raw_feature(self, key: str) -> tuple[Any, bool]:
        """The feature ``key`` as given (a ``Tensor`` or ``SparseTensor``) and whether it
        has rank 1 (TF expands it to ``[batch, 1]``)."""
        if key not in self._features:
            raise ValueError(f"Feature {key} is not in features dictionary.")
        value = self._features[key]
        tensor = value if _is_sparse(value) else ops.convert_to_tensor(value)
        rank = _sparse_rank(tensor) if _is_sparse(tensor) else tensor.get_shape().ndims
        if rank is None:
            raise NotImplementedError(
                f"feature_column: feature {key} has an unknown rank (TF checks it when the "
                "step runs); give it a static rank (tf.sparse_placeholder(shape=...), "
                "tf.placeholder(shape=...))."
            )
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {tensor}")
        return tensor, rank == 1

    def get(self, key: Any) -> Any:
        """The raw feature ``key`` (a ``str``) or the column ``key``'s transform.

        Raises:
          ValueError: a missing feature or a rank-0 one.
          TypeError: a key that is neither a ``str`` nor a column.
        """
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if key in self._features:
            tensor, expand = self._raw_feature(key)
            if expand:
                if _is_sparse(tensor):
                    tensor = _expand_sparse(tensor)
                else:
                    tensor = _tf["expand_dims"](tensor, -1)
            self._feature_tensors[key] = tensor
            return tensor
        if isinstance(key, str):
            raise ValueError(f"Feature {key} is not in features dictionary.")
        if not isinstance(key, FeatureColumn):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        transformed = key._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {key.name} is not supported.")
        self._feature_tensors[key] = transformed
        return transformed


def _normalize_feature_columns(feature_columns: Any) -> list:
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(
                "Items of feature_columns must be a _FeatureColumn. "
                f"Given (type {type(column)}): {column}."
            )
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name: dict[str, Any] = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(
                f"Duplicate feature column name found for columns: {column} and "
                f"{by_name[column.name]}. This usually means that these columns refer to "
                "same base feature. Either one must be discarded or a duplicated but "
                "renamed item must be inserted in features dict."
            )
        by_name[column.name] = column
    return list(feature_columns)


def _num_elements(shape: tuple) -> int:
    out = 1
    for dim in shape:
        out *= int(dim)
    return out


def _verify_static_batch_size_equality(tensors: list, columns: list) -> None:
    expected, expected_column = None, None
    for tensor, column in zip(tensors, columns, strict=True):
        shape = tensor.get_shape()
        batch = shape.as_list()[0] if shape.ndims else None
        if batch is None:
            continue
        if expected is None:
            expected, expected_column = batch, column
        elif expected != batch:
            raise ValueError(
                "Batch size (first dimension) of each feature must be same. Batch size of "
                f"columns ({expected_column.name}, {column.name}): ({expected}, {batch})"
            )


def _with_model_collections(weight_collections: Any) -> list:
    collections = list(weight_collections or [])
    for key in (ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.MODEL_VARIABLES):
        if key not in collections:
            collections.append(key)
    return collections


def input_layer(
    features: dict,
    feature_columns: Any,
    weight_collections: Any = None,
    trainable: bool = True,
    cols_to_vars: dict | None = None,
    cols_to_output_tensors: dict | None = None,
) -> ops.Tensor:
    """The dense float32 ``[batch, sum of the columns' sizes]`` input of a model
    (``tf.compat.v1.feature_column.input_layer``).

    Each column's output is reshaped to ``[batch, num_elements]``; the outputs are
    concatenated in the order of the columns' names.

    Args:
      features: feature name -> ``Tensor`` or ``SparseTensor``.
      feature_columns: dense columns (``numeric_column``, ``bucketized_column``,
        ``indicator_column``, ``embedding_column``).
      weight_collections: collections for the variables created (they also go to
        ``GLOBAL_VARIABLES`` and ``MODEL_VARIABLES``).
      trainable: whether the variables are trainable (default True).
      cols_to_vars: if a dict, filled with column -> list of its variables.
      cols_to_output_tensors: if a dict, filled with column -> its output.

    Returns:
      A float32 tensor ``[batch, first_layer_dimension]``.

    Raises:
      ValueError: a column that is not dense, no columns, duplicate names, a missing
        or rank-0 feature, or static batch sizes that differ.
    """
    columns = _normalize_feature_columns(feature_columns)
    for column in columns:
        if not isinstance(column, DenseColumn):
            raise ValueError(
                "Items of feature_columns must be a _DenseColumn. You can wrap a "
                "categorical column with an embedding_column or indicator_column. "
                f"Given: {column}"
            )
    collections = _with_model_collections(weight_collections)
    with vs.variable_scope(None, default_name="input_layer", values=list(features.values())):
        builder = _LazyBuilder(features)
        outputs, ordered = [], []
        for column in sorted(columns, key=lambda c: c.name):
            ordered.append(column)
            with vs.variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(
                    builder, weight_collections=collections, trainable=trainable
                )
                batch = _tf["shape"](tensor)[0]
                size = _num_elements(column._variable_shape)
                output = _tf["reshape"](tensor, shape=_tf["stack"]([batch, size]))
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = ops.get_collection(
                        ops.GraphKeys.GLOBAL_VARIABLES, scope=vs.get_variable_scope().name
                    )
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        _verify_static_batch_size_equality(outputs, ordered)
        return _tf["concat"](outputs, 1)


def _parts(var: Any) -> list:
    """A variable, or the parts of a ``PartitionedVariable``, as a list."""
    return list(var) if hasattr(var, "_get_variable_list") else [var]


def _add_to_collections(var: Any, weight_collections: list) -> None:
    """TF's ``_add_to_collections``: each part of ``var`` in each collection but
    ``GLOBAL_VARIABLES``."""
    for collection in weight_collections:
        if collection == ops.GraphKeys.GLOBAL_VARIABLES:
            continue
        for part in _parts(var):
            ops.add_to_collection(collection, part)


def _weighted_sum(
    column: Any, builder: _LazyBuilder, units: int, sparse_combiner: str, collections: list,
    trainable: bool,
) -> ops.Tensor:  # fmt: skip
    """One column's term of ``linear_model``: ``tensor @ weights`` for a dense column,
    the ``sparse_combiner`` of its ids' weight rows for a categorical one."""
    if isinstance(column, CategoricalColumn):
        shape: tuple = (column._num_buckets, units)
    else:
        shape = (_num_elements(column._variable_shape), units)
    weights = vs.get_variable(
        "weights",
        shape=shape,
        dtype=dtypes.float32,
        initializer=init_ops.zeros_initializer(),
        trainable=trainable,
    )
    _add_to_collections(weights, collections)
    if isinstance(column, CategoricalColumn):
        pair = column._get_sparse_tensors(
            builder, weight_collections=collections, trainable=trainable
        )
        ids, id_weights = pair.id_tensor, pair.weight_tensor
        if _sparse_rank(ids) != 2:
            raise NotImplementedError(
                f"linear_model: column {column.name} gives ids of rank "
                f"{_sparse_rank(ids)}; jtrain supports rank 2 ([batch, n])."
            )
        return embedding_ops.safe_embedding_lookup_sparse(
            weights, ids, sparse_weights=id_weights, combiner=sparse_combiner,
            name="weighted_sum",
        )  # fmt: skip
    tensor = column._get_dense_tensor(builder, weight_collections=collections, trainable=trainable)
    batch = _tf["shape"](tensor)[0]
    tensor = _tf["reshape"](tensor, shape=_tf["stack"]([batch, shape[0]]))
    return _tf["matmul"](tensor, weights, name="weighted_sum")


def linear_model(
    features: dict,
    feature_columns: Any,
    units: int = 1,
    sparse_combiner: str = "sum",
    weight_collections: Any = None,
    trainable: bool = True,
    cols_to_vars: dict | None = None,
) -> ops.Tensor:
    """A linear prediction ``sum_columns(term) + bias`` of shape ``[batch, units]``
    (``tf.compat.v1.feature_column.linear_model``).

    A dense column's term is its ``[batch, n]`` output times the zero-initialized
    variable ``linear_model/<column>/weights`` ``[n, units]``; a categorical column's
    is the ``sparse_combiner`` of the rows of ``weights`` ``[num_buckets, units]``
    selected by its ids (``safe_embedding_lookup_sparse``). The bias is
    ``linear_model/bias_weights`` ``[units]``. A second model in the same graph is
    ``linear_model_1`` with its column scopes numbered as TF numbers them.

    Args:
      features: feature name -> ``Tensor`` or ``SparseTensor``.
      feature_columns: dense or categorical columns.
      units: the output size (default 1).
      sparse_combiner: ``"sum"`` (default), ``"mean"`` or ``"sqrtn"``.
      weight_collections: collections for the variables (also ``GLOBAL_VARIABLES``
        and ``MODEL_VARIABLES``).
      trainable: whether the variables are trainable (default True).
      cols_to_vars: if a dict, filled with column -> its variables, and ``"bias"``
        -> ``[bias]`` (of a partitioned bias, only its first part, as TF).

    Returns:
      A float32 tensor ``[batch, units]``.

    Raises:
      ValueError: a column neither dense nor categorical, no columns, duplicate
        names, or static batch sizes that differ.
    """
    with vs.variable_scope(None, "linear_model") as scope:
        model_name = scope.name.rsplit("/", 1)[-1]
    columns = _normalize_feature_columns(feature_columns)
    collections = _with_model_collections(weight_collections)
    column_names = {}
    for column in sorted(columns, key=lambda c: c.name):
        with vs.variable_scope(None, default_name=column._var_scope_name) as scope:
            column_names[column] = scope.name.rsplit("/", 1)[-1]
    for column in columns:
        if not isinstance(column, (DenseColumn, CategoricalColumn)):
            raise ValueError(
                "Items of feature_columns must be either a _DenseColumn or "
                f"_CategoricalColumn. Given: {column}"
            )
    with vs.variable_scope(model_name), ops.name_scope(None, model_name):
        builder = _LazyBuilder(features)
        sums, ordered = [], []
        for column in sorted(columns, key=lambda c: column_names[c]):
            ordered.append(column)
            with vs.variable_scope(column_names[column]) as scope:
                sums.append(
                    _weighted_sum(column, builder, units, sparse_combiner, collections, trainable)
                )
                if cols_to_vars is not None:
                    cols_to_vars[column] = ops.get_collection(
                        ops.GraphKeys.GLOBAL_VARIABLES, scope=scope.name + "/"
                    )
        _verify_static_batch_size_equality(sums, ordered)
        no_bias = _tf["add_n"](sums, name="weighted_sum_no_bias")
        bias = vs.get_variable(
            "bias_weights",
            shape=[units],
            dtype=dtypes.float32,
            initializer=init_ops.zeros_initializer(),
            trainable=trainable,
        )
        _add_to_collections(bias, collections)
        if cols_to_vars is not None:
            # TF lists the bias layer's first variable: a partitioned bias's first part.
            cols_to_vars["bias"] = _parts(bias)[:1]
        return _tf["nn.bias_add"](no_bias, bias, name="weighted_sum")


def make_parse_example_spec(feature_columns: Any) -> dict:
    """The ``tf.parse_example`` features of the columns (their
    ``_parse_example_spec`` merged; ``tf.compat.v1.feature_column.make_parse_example_spec``).

    Args:
      feature_columns: an iterable of columns.

    Returns:
      A dict feature name -> ``FixedLenFeature`` / ``VarLenFeature``.

    Raises:
      ValueError: an item that is not a column, or one key with two different specs.
    """
    result: dict = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(
                f"All feature_columns must be _FeatureColumn instances. Given: {column}"
            )
        for key, value in column._parse_example_spec.items():
            if key in result and result[key] != value:
                raise ValueError(
                    f"feature_columns contain different parse_spec for key {key}. "
                    f"Given {value} and {result[key]}"
                )
        result.update(column._parse_example_spec)
    return result
