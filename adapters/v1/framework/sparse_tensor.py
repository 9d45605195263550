"""``tf.SparseTensor`` and ``tf.SparseTensorValue``: a sparse value as three dense tensors.

A ``SparseTensor`` is ``indices`` (``int64 [nnz, rank]``), ``values`` (``[nnz]``)
and ``dense_shape`` (``int64 [rank]``) in a graph; ``Session.run`` of one returns a
``SparseTensorValue`` (NumPy arrays), as in TF. ``VarLenFeature`` parsing gives
one, and so does ``tf.sparse_placeholder``; a ``SparseTensor`` key of ``feed_dict``
takes a ``SparseTensorValue`` or an ``(indices, values, dense_shape)`` tuple. TF's
sparse ops are in ``adapters/v1/ops/sparse_ops.py`` (``tf.sparse``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import ops, tensor_shape
from adapters.v1.framework.tensor_shape import TensorShape
from jtrain.records.parsing_ops import SparseTensorValue

__all__ = ["SparseTensor", "SparseTensorValue", "convert_to_tensor_or_sparse_tensor"]


class SparseTensor:
    """A sparse tensor in a graph (``tf.sparse.SparseTensor``).

    Args:
      indices: ``int64 [nnz, rank]`` positions of the values, row-major order
        (Python lists are int64, as TF converts them).
      values: ``[nnz]`` values.
      dense_shape: ``int64 [rank]`` shape of the dense tensor.

    Raises:
      ValueError: ``indices`` or ``dense_shape`` is a tensor of another dtype than
        int64 (TF's conversion error).
    """

    def __init__(self, indices: Any, values: Any, dense_shape: Any):
        # TF's names: constants made of Python/NumPy parts are SparseTensor/indices...
        with ops.name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            self._indices = ops.convert_to_tensor(indices, dtype="int64", name="indices")
            self._values = ops.convert_to_tensor(values, name="values")
            self._dense_shape = ops.convert_to_tensor(
                dense_shape, dtype="int64", name="dense_shape"
            )
        # What ``set_shape`` (``tf.sparse_placeholder``'s shape) adds to the static shape.
        self._dense_shape_default: TensorShape | None = None
        # The static shape where TF's shape inference knows less than the value's
        # (an op's result built from computed indices: tf.sparse.expand_dims).
        self._static: TensorShape | None = None

    @classmethod
    def from_value(cls, sparse_tensor_value: SparseTensorValue) -> SparseTensor:
        """A SparseTensor of constants from a ``SparseTensorValue``: its three parts
        given to the constructor, as TF's (lists of indices and dense shape are int64)."""
        v = sparse_tensor_value
        return cls(v.indices, v.values, v.dense_shape)

    @property
    def indices(self) -> ops.Tensor:
        return self._indices

    @property
    def values(self) -> ops.Tensor:
        return self._values

    @property
    def dense_shape(self) -> ops.Tensor:
        return self._dense_shape

    @property
    def dtype(self) -> Any:
        """The values' dtype."""
        return self._values.dtype

    @property
    def graph(self) -> ops.Graph:
        return self._values.graph

    @property
    def op(self) -> ops.Operation:
        return self._values.op

    def get_shape(self) -> TensorShape:
        """The static dense shape (TF's ``constant_value_as_shape`` of ``dense_shape``,
        merged with what ``set_shape`` gave): a ``TensorShape``, ``None`` dimensions
        unknown, of unknown rank when ``dense_shape``'s length is unknown."""
        shape = self._static or _shape_of_value(self._dense_shape)
        if self._dense_shape_default is not None:
            shape = shape.merge_with(self._dense_shape_default)
        return shape

    shape = property(get_shape)

    def set_shape(self, shape: Any) -> None:
        """Refines the static dense shape (``SparseTensor.set_shape``).

        Raises:
          ValueError: ``shape`` is not compatible with the known dense shape.
        """
        new = tensor_shape.as_shape(shape)
        mine = self.get_shape()
        if not mine.is_compatible_with(new):
            raise ValueError(f"Shapes {mine} and {new} are incompatible")
        self._dense_shape_default = mine.merge_with(new)

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> SparseTensorValue:
        """``session.run(self)``: a ``SparseTensorValue``."""
        from adapters.v1.client.session import _session_for

        return _session_for(session, self.graph).run(self, feed_dict=feed_dict)

    def _as_fetch_components(self) -> tuple[type, list[ops.Tensor]]:
        # Session.run fetches the three tensors and builds a SparseTensorValue of them.
        return SparseTensorValue, [self._indices, self._values, self._dense_shape]

    def __repr__(self) -> str:
        return (
            f"SparseTensor(indices={self._indices!r}, values={self._values!r}, "
            f"dense_shape={self._dense_shape!r})"
        )


def _shape_of_value(dense_shape: ops.Tensor) -> TensorShape:
    """The static shape a ``dense_shape`` tensor's value gives: a constant's, else the
    parts the graph's static shapes fix (``shape_values.partial_value``), else its rank."""
    from adapters.v1.framework import shape_values

    const = dense_shape.op._const_value
    if const is not None:
        return TensorShape([None if d < 0 else int(d) for d in np.asarray(const).reshape(-1)])
    rank = dense_shape._shape
    if rank is None or len(rank) != 1 or rank[0] is None:
        return TensorShape(None)
    if dense_shape.op.type != "PlaceholderWithDefault":
        partial = shape_values.partial_value(dense_shape)
        if partial is not None and partial.shape == (rank[0],):
            return TensorShape([None if d is None or int(d) < 0 else int(d) for d in partial])
    return TensorShape([None] * rank[0])


def convert_to_tensor_or_sparse_tensor(
    value: Any, dtype: Any = None, name: str | None = None
) -> ops.Tensor | SparseTensor:
    """``tf.convert_to_tensor_or_sparse_tensor``: a ``SparseTensor`` as it is (a
    ``SparseTensorValue`` made one), anything else ``tf.convert_to_tensor``.

    Args:
      value: a ``SparseTensor``, ``SparseTensorValue`` or what ``convert_to_tensor`` takes.
      dtype: the dtype required (optional).
      name: the name of a new tensor.

    Returns:
      A ``SparseTensor`` or a ``Tensor``.

    Raises:
      RuntimeError: a sparse value of another dtype (TF's message).
      TypeError, ValueError: as ``convert_to_tensor``.
    """
    if dtype is not None:
        dtype = ops.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):  # as TF's from_value: int64 indices and shape
        value = SparseTensor(value.indices, value.values, value.dense_shape)
    if isinstance(value, SparseTensor):
        if dtype is not None and dtype.base_dtype != ops.as_dtype(value.dtype).base_dtype:
            raise RuntimeError(
                f"Sparse dtype mismatch. Requested: {dtype.name},  Actual: "
                f"{ops.as_dtype(value.dtype).name}"
            )
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)
