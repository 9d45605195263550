"""``tf.compat.v1.ragged``: ragged tensors in graphs (``ops/ragged/``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.ragged.ragged_array_ops import (
    boolean_mask,
    stack,
    stack_dynamic_partitions,
)
from adapters.v1.ops.ragged.ragged_factory_ops import constant, constant_value, placeholder
from adapters.v1.ops.ragged.ragged_functional_ops import map_flat_values
from adapters.v1.ops.ragged.ragged_math_ops import range  # noqa: A004 - TF's name
from adapters.v1.ops.ragged.ragged_tensor_value import RaggedTensorValue
from adapters.v1.ops.ragged.segment_id_ops import (
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
)

__all__ = [
    "RaggedTensorValue",
    "boolean_mask",
    "constant",
    "constant_value",
    "map_flat_values",
    "placeholder",
    "range",
    "row_splits_to_segment_ids",
    "segment_ids_to_row_splits",
    "stack",
    "stack_dynamic_partitions",
]

__getattr__ = missing_name_getattr("tf.ragged", globals())
