"""TF's ``tf.io.serialize_sparse``, ``serialize_many_sparse`` and
``deserialize_many_sparse`` as host operations.

A ``SparseTensor`` serializes to three strings, the serialized ``TensorProto``s of its
indices, values and dense shape (all in ``tensor_content``, strings too);
``serialize_many_sparse`` writes one such row per entry of the first dimension, that
dimension dropped; ``deserialize_many_sparse`` stacks rows back on a new first
dimension, each dense dimension the largest of the rows'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops.data_flow_ops import host_inputs, placement
from jtrain import errors

__all__ = ["deserialize_many_sparse", "serialize_many_sparse", "serialize_sparse"]

_STRING = np.dtype(object)
_INT64 = np.dtype(np.int64)


def _sparse_inputs(sp_input: Any, op_type: str) -> list[ops.Tensor]:
    from adapters.v1.ops.parsing_ops import _exact_constant

    if not hasattr(sp_input, "indices") or not hasattr(sp_input, "dense_shape"):
        raise TypeError(f"{op_type}: expected a SparseTensor, got {type(sp_input).__name__}")
    parts = [sp_input.indices, sp_input.values, sp_input.dense_shape]
    return host_inputs([_exact_constant(p) for p in parts])


def _check_out_type(out_type: Any, op: str) -> None:
    if dtypes.as_dtype(out_type) != dtypes.string:
        raise NotImplementedError(
            f"tf.io.{op}: out_type={dtypes.as_dtype(out_type).name} is not supported (jtrain "
            "has no variant tensors); use out_type=tf.string"
        )


def _row(indices: Any, values: Any, shape: Any) -> list[bytes]:
    """The three serialized tensors, string values in ``tensor_content`` (TF's encoded
    string list: every length as a varint, then the bytes), as TF's sparse
    serialization writes them (``serialize_tensor`` writes ``string_val``)."""
    from adapters.v1.framework.graph_def import tensor_proto
    from jtrain.records.parsing_ops import _varint

    values = np.asarray(values)
    proto = tensor_proto(values)
    if values.dtype.kind in "OSU":
        strings = [bytes(v) for v in values.reshape(-1).tolist()]
        del proto.string_val[:]
        proto.tensor_content = b"".join(_varint(len(v)) for v in strings) + b"".join(strings)
    return [
        tensor_proto(np.ascontiguousarray(indices, np.int64)).SerializeToString(),
        proto.SerializeToString(),
        tensor_proto(np.asarray(shape, np.int64)).SerializeToString(),
    ]


def _host_op(op_type: str, name: str | None, inputs: list, compute: Any, specs: list) -> Any:
    return ops.get_default_graph().create_op(
        op_type,
        name or op_type,
        inputs=inputs,
        compute=lambda session, *values: compute(*values),
        output_specs=specs,
        host=placement(inputs),
    )


def serialize_sparse(
    sp_input: Any, name: str | None = None, out_type: Any = "string"
) -> ops.Tensor:
    """``tf.io.serialize_sparse``: a ``SparseTensor`` as a string vector ``[3]``.

    Args:
      sp_input: the ``SparseTensor``.
      name: the operation's name (default ``"SerializeSparse"``).
      out_type: ``tf.string`` (TF's default; ``tf.variant`` is not supported).

    Returns:
      The serialized indices, values and dense shape (``serialize_tensor`` bytes).

    Raises:
      NotImplementedError: another ``out_type``.
    """
    _check_out_type(out_type, "serialize_sparse")
    inputs = _sparse_inputs(sp_input, "serialize_sparse")

    def compute(indices: Any, values: Any, shape: Any) -> tuple[Any, ...]:
        out = np.empty(3, _STRING)
        out[:] = _row(indices, values, shape)
        return (out,)

    return _host_op("SerializeSparse", name, inputs, compute, [((3,), _STRING)]).outputs[0]


def serialize_many_sparse(
    sp_input: Any, name: str | None = None, out_type: Any = "string"
) -> ops.Tensor:
    """``tf.io.serialize_many_sparse``: one serialized ``SparseTensor`` per entry of
    the first dimension, as a string matrix ``[N, 3]``.

    Row ``i`` holds the entries whose first index is ``i``, that index dropped, and
    the dense shape without its first dimension.

    Args:
      sp_input: a ``SparseTensor`` of rank >= 2, its indices in row-major order.
      name: the operation's name (default ``"SerializeManySparse"``).
      out_type: ``tf.string`` (TF's default; ``tf.variant`` is not supported).

    Returns:
      A string matrix ``[N, 3]``.

    Raises:
      NotImplementedError: another ``out_type``.
      InvalidArgumentError (at run time): rank below 2.
    """
    _check_out_type(out_type, "serialize_many_sparse")
    inputs = _sparse_inputs(sp_input, "serialize_many_sparse")

    def compute(indices: Any, values: Any, shape: Any) -> tuple[Any, ...]:
        indices = np.asarray(indices, np.int64)
        values, shape = np.asarray(values), np.asarray(shape, np.int64)
        if shape.size < 2:
            raise errors.InvalidArgumentError(
                None, None, f"Rank of input SparseTensor should be > 1, but saw rank: {shape.size}"
            )
        out = np.empty((int(shape[0]), 3), _STRING)
        for i in range(int(shape[0])):
            mine = indices[:, 0] == i
            out[i] = _row(indices[mine][:, 1:], values[mine], shape[1:])
        return (out,)

    specs = [((None, 3), _STRING)]
    return _host_op("SerializeManySparse", name, inputs, compute, specs).outputs[0]


def deserialize_many_sparse(
    serialized_sparse: Any, dtype: Any, rank: int | None = None, name: str | None = None
) -> SparseTensor:
    """``tf.io.deserialize_many_sparse``: ``serialize_many_sparse``'s rows stacked back
    into one ``SparseTensor`` on a new first dimension.

    Args:
      serialized_sparse: a string matrix ``[N, 3]``.
      dtype: the values' ``DType``.
      rank: the output's rank, if known (default ``None``): sets the static shapes.
      name: the operation's name (default ``"DeserializeManySparse"``).

    Returns:
      A ``SparseTensor``: dense shape ``[N, *largest row shape]``.

    Raises:
      InvalidArgumentError (at run time): rows of another dtype or of different
        ranks, a row that is not three serialized tensors (TF's messages).
    """
    from adapters.v1.ops.parsing_ops import _TF_TYPE_NAMES, _tensor_from_proto
    from adapters.v1.ops.string_ops import _string_input

    dt = dtypes.as_dtype(dtype)
    tensor = _string_input(serialized_sparse, "serialized_sparse", "DeserializeManySparse")

    def compute(value: Any) -> tuple[Any, ...]:
        rows = np.asarray(value, dtype=object)
        if rows.ndim != 2 or rows.shape[1] != 3:
            dims = ",".join(map(str, rows.shape))
            raise errors.InvalidArgumentError(
                None, None, f"Serialized sparse should be a matrix of shape [N, 3], got [{dims}]"
            )
        all_indices, all_values, shapes = [], [], []
        for i, (ind, val, shp) in enumerate(rows.tolist()):
            indices, values, shape = (_tensor_from_proto(bytes(x)) for x in (ind, val, shp))
            if dtypes.as_dtype(values.dtype) != dt:
                got = dtypes.as_dtype(values.dtype).name
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Requested SparseTensor of type {_TF_TYPE_NAMES.get(dt.name, dt.name)} but "
                    f"SparseTensor[{i}].values.dtype() == {_TF_TYPE_NAMES.get(got, got)}",
                )
            indices = np.asarray(indices, np.int64).reshape(len(values), np.size(shape))
            all_indices.append(
                np.concatenate([np.full((len(indices), 1), i, np.int64), indices], axis=1)
            )
            all_values.append(values)
            shapes.append(np.asarray(shape, np.int64))
        if not shapes:
            raise errors.InvalidArgumentError(
                None, None, "Serialized sparse should have at least one row"
            )
        if len({s.size for s in shapes}) > 1:
            raise errors.InvalidArgumentError(
                None, None, "Inconsistent shape across SparseTensors: rank differs"
            )
        dense = np.max(np.stack(shapes), axis=0)
        return (
            np.concatenate(all_indices).astype(np.int64),
            np.concatenate(all_values).astype(dt.as_numpy_dtype),
            np.asarray([len(shapes), *dense], np.int64),
        )

    specs = [
        ((None, rank), _INT64),
        ((None,), np.dtype(dt.as_numpy_dtype)),
        ((rank,), _INT64),
    ]
    op = _host_op("DeserializeManySparse", name, [tensor], compute, specs)
    return SparseTensor(*op.outputs)
