"""``tf.compat.v1.feature_column``: structured features as model input, in graph mode.

The modules mirror TF's ``tensorflow/python/feature_column``: ``feature_column_v2``
(the columns: ``numeric_column``, ``bucketized_column``, ``categorical_column_with_*``,
``indicator_column``, ``embedding_column``...) and ``feature_column`` (TF1's
``input_layer``, ``linear_model``, ``make_parse_example_spec``).
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.feature_column.feature_column import (
    input_layer,
    linear_model,
    make_parse_example_spec,
)
from adapters.v1.feature_column.feature_column_v2 import (
    bucketized_column,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
    crossed_column,
    embedding_column,
    indicator_column,
    numeric_column,
    shared_embedding_columns,
    weighted_categorical_column,
)

__all__ = [
    "bucketized_column",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list",
    "crossed_column",
    "embedding_column",
    "indicator_column",
    "input_layer",
    "linear_model",
    "make_parse_example_spec",
    "numeric_column",
    "shared_embedding_columns",
    "weighted_categorical_column",
]

__getattr__ = missing_name_getattr("tf.feature_column", globals())
