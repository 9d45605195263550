"""``tf.sparse``: TF's sparse ops on ``SparseTensor`` (``ops/sparse_ops.py``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops.count_ops import sparse_bincount as bincount
from adapters.v1.ops.segment_ops import sparse_segment_mean as segment_mean
from adapters.v1.ops.segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from adapters.v1.ops.segment_ops import sparse_segment_sum as segment_sum
from adapters.v1.ops.sparse_cross_ops import sparse_cross as cross
from adapters.v1.ops.sparse_cross_ops import sparse_cross_hashed as cross_hashed
from adapters.v1.ops.sparse_ops import from_dense
from adapters.v1.ops.sparse_ops import sparse_add as add
from adapters.v1.ops.sparse_ops import sparse_concat as concat
from adapters.v1.ops.sparse_ops import sparse_expand_dims as expand_dims
from adapters.v1.ops.sparse_ops import sparse_eye as eye
from adapters.v1.ops.sparse_ops import sparse_fill_empty_rows as fill_empty_rows
from adapters.v1.ops.sparse_ops import sparse_mask as mask
from adapters.v1.ops.sparse_ops import sparse_maximum as maximum
from adapters.v1.ops.sparse_ops import sparse_merge as merge
from adapters.v1.ops.sparse_ops import sparse_minimum as minimum
from adapters.v1.ops.sparse_ops import sparse_placeholder as placeholder
from adapters.v1.ops.sparse_ops import sparse_reduce_max as reduce_max
from adapters.v1.ops.sparse_ops import sparse_reduce_max_sparse as reduce_max_sparse
from adapters.v1.ops.sparse_ops import sparse_reduce_sum as reduce_sum
from adapters.v1.ops.sparse_ops import sparse_reduce_sum_sparse as reduce_sum_sparse
from adapters.v1.ops.sparse_ops import sparse_reorder as reorder
from adapters.v1.ops.sparse_ops import sparse_reset_shape as reset_shape
from adapters.v1.ops.sparse_ops import sparse_reshape as reshape
from adapters.v1.ops.sparse_ops import sparse_retain as retain
from adapters.v1.ops.sparse_ops import sparse_slice as slice  # noqa: A004 - TF's name
from adapters.v1.ops.sparse_ops import sparse_softmax as softmax
from adapters.v1.ops.sparse_ops import sparse_split as split
from adapters.v1.ops.sparse_ops import sparse_tensor_dense_matmul as matmul
from adapters.v1.ops.sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul
from adapters.v1.ops.sparse_ops import sparse_tensor_to_dense as to_dense
from adapters.v1.ops.sparse_ops import sparse_to_indicator as to_indicator
from adapters.v1.ops.sparse_ops import sparse_transpose as transpose

__all__ = [
    "SparseTensor",
    "add",
    "bincount",
    "concat",
    "cross",
    "cross_hashed",
    "expand_dims",
    "eye",
    "fill_empty_rows",
    "from_dense",
    "mask",
    "matmul",
    "maximum",
    "merge",
    "minimum",
    "placeholder",
    "reduce_max",
    "reduce_max_sparse",
    "reduce_sum",
    "reduce_sum_sparse",
    "reorder",
    "reset_shape",
    "reshape",
    "retain",
    "segment_mean",
    "segment_sqrt_n",
    "segment_sum",
    "slice",
    "softmax",
    "sparse_dense_matmul",
    "split",
    "to_dense",
    "to_indicator",
    "transpose",
]

__getattr__ = missing_name_getattr("tf.sparse", globals())
