"""``TensorInfo`` protos of graph tensors (TF's ``saved_model/utils_impl.py``).

A signature names its inputs and outputs by ``TensorInfo``: a dense tensor by its
name (``"x:0"``), a ``SparseTensor`` by its three component tensors (``coo_sparse``),
each with the dtype and static shape.
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework import graph_def as graph_def_lib
from adapters.v1.framework.meta_graph import prepend_name_scope
from adapters.v1.framework.sparse_tensor import SparseTensor

__all__ = [
    "build_tensor_info",
    "build_tensor_info_from_op",
    "get_element_from_tensor_info",
    "get_tensor_from_tensor_info",
]


def build_tensor_info(tensor: Any) -> Any:
    """The ``TensorInfo`` of a tensor (``tf.compat.v1.saved_model.build_tensor_info``).

    Args:
      tensor: a ``Tensor``, a ``SparseTensor`` (its ``indices``, ``values`` and
        ``dense_shape`` tensors are named) or a ``Variable`` (named by its own
        tensor, ``"w:0"``).

    Returns:
      A ``TensorInfo`` proto (``jtrain.protos.meta_graph_pb2``, TF's wire format)
      with the name (or ``coo_sparse`` names), dtype and static shape.

    Raises:
      AttributeError: ``tensor`` is not a graph tensor (TF's class: it reads the
        value's ``dtype`` and ``get_shape``).

    .. note:: TF records a reference variable's dtype as ``DT_FLOAT_REF``;
       jtrain variables have no reference dtypes and record ``DT_FLOAT``.
    """
    from jtrain.protos import meta_graph_pb2

    if isinstance(tensor, SparseTensor):
        info = meta_graph_pb2.TensorInfo(
            dtype=tensor.values.dtype.as_datatype_enum,
            tensor_shape=graph_def_lib.shape_proto(_sparse_shape(tensor)),
        )
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
        return info
    if not isinstance(tensor, ops.Tensor) and not hasattr(tensor, "_as_graph_tensor"):
        raise AttributeError(
            f"{type(tensor).__name__!r} object has no attribute 'get_shape': "
            "build_tensor_info takes a graph Tensor, SparseTensor or Variable"
        )
    dtype = dtypes.as_dtype(tensor.dtype).base_dtype
    return meta_graph_pb2.TensorInfo(
        name=tensor.name,
        dtype=dtype.as_datatype_enum,
        tensor_shape=graph_def_lib.shape_proto(tensor.get_shape()),
    )


def _sparse_shape(tensor: SparseTensor) -> Any:
    try:
        return tensor.get_shape()
    except Exception:  # noqa: BLE001 - a dense shape computed in the graph
        return None


def build_tensor_info_from_op(op: Any) -> Any:
    """A ``TensorInfo`` naming an operation (``DT_INVALID``, unknown shape), as TF's
    builder records its init and train ops."""
    from jtrain.protos import meta_graph_pb2, tensor_shape_pb2

    return meta_graph_pb2.TensorInfo(
        name=op.name,
        dtype=0,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(unknown_rank=True),
    )


def get_tensor_from_tensor_info(
    tensor_info: Any, graph: Any = None, import_scope: str | None = None
) -> Any:
    """The tensor a ``TensorInfo`` names (``tf.compat.v1.saved_model.get_tensor_from_tensor_info``).

    Args:
      tensor_info: a ``TensorInfo`` proto (jtrain's or TF's).
      graph: the graph to look in (default ``None``: the default graph).
      import_scope: a name scope prefixed to the names (default ``None``).

    Returns:
      The ``Tensor``, or a ``SparseTensor`` for a ``coo_sparse`` encoding.

    Raises:
      KeyError: a name is not a tensor of ``graph``.
      ValueError: the ``TensorInfo`` has no encoding, or TF's
        ``composite_tensor`` (which jtrain does not read).
    """
    graph = graph or ops.get_default_graph()

    def tensor(name: str) -> Any:
        return graph.get_tensor_by_name(prepend_name_scope(name, import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return tensor(tensor_info.name)
    if encoding == "coo_sparse":
        coo = tensor_info.coo_sparse
        return SparseTensor(
            tensor(coo.indices_tensor_name),
            tensor(coo.values_tensor_name),
            tensor(coo.dense_shape_tensor_name),
        )
    raise ValueError(
        f"Invalid TensorInfo.encoding: {encoding}. Expected `coo_sparse`, "
        "`composite_tensor`, or `name` for a dense tensor."
        + (
            " (a TensorInfo without an encoding may hold TF's composite_tensor, "
            "which jtrain does not read)"
            if encoding is None
            else ""
        )
    )


def get_element_from_tensor_info(
    tensor_info: Any, graph: Any = None, import_scope: str | None = None
) -> Any:
    """The operation or tensor a ``TensorInfo`` names (``graph.as_graph_element``).

    Raises:
      KeyError: nothing of that name in ``graph``.
    """
    graph = graph or ops.get_default_graph()
    return graph.as_graph_element(prepend_name_scope(tensor_info.name, import_scope))
