"""TF's ``GraphDef`` of a compat graph: one ``NodeDef`` per operation.

``Graph.as_graph_def()`` calls :func:`graph_def`. A node keeps its operation's
name, TF op type (``MatMul``, ``Relu``, ``VariableV2``, ``Placeholder``,
``Const``...; a JAX function lifted with ``tf.jax_function`` or an internal
helper has the type ``JaxFunction``, the gradient of ``tf.gradients`` the type
``Gradients`` and an optimizer's update the type ``ApplyGradients``), its data
inputs (``"op"`` for output 0, ``"op:i"`` otherwise) followed by its control
inputs (``"^op"``), its device, and the attributes TF gives the op type that
jtrain knows: ``dtype``/``shape`` (placeholders, variables), ``value`` (every
constant, as TF), ``T`` (ops with inputs), ``container``/``shared_name``. An
operation that reads or writes a variable without a data edge (a variable's
``read`` and ``Assign``, an optimizer's update) takes the variable's node as its
first inputs, as TF's ref inputs. The op's Python-valued arguments (``axis``,
``transpose_a``...) that are plain numbers, strings or lists of them become
attributes of the same name. ``add_shapes=True`` adds ``_output_shapes``.

The ``GraphDef`` is for TensorBoard and for TF's parsers: TF reads its bytes and
its text, but ``tf.import_graph_def`` cannot run the ``JaxFunction``,
``Gradients`` and ``ApplyGradients`` nodes (a jtrain ``.meta`` carries their
computation, see ``meta_graph.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, tensor_shape

__all__ = [
    "GRAPH_DEF_VERSION",
    "graph_def",
    "versions",
    "attr_value",
    "tensor_proto",
    "shape_proto",
    "input_name",
    "tensor_value",
]

# TF 2.21's GraphDef version (producer) and the oldest consumer that reads it.
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0


def versions() -> Any:
    """The ``VersionDef`` of graphs jtrain writes (TF 2.21's producer version)."""
    from jtrain.protos import versions_pb2

    return versions_pb2.VersionDef(
        producer=GRAPH_DEF_VERSION, min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER
    )


def graph_def(graph: Any, from_version: int | None = None, add_shapes: bool = False) -> Any:
    """The ``GraphDef`` of ``graph`` (``Graph.as_graph_def``).

    Args:
      graph: a compat ``Graph``.
      from_version: only the operations added after ``graph.version`` was this
        value (``None``: every operation).
      add_shapes: add each node's ``_output_shapes`` attribute.

    Returns:
      A ``GraphDef`` proto (``jtrain.protos.graph_pb2``; TF's wire format).
    """
    from jtrain.protos import graph_pb2

    out = graph_pb2.GraphDef(versions=versions())
    operations = graph.get_operations()
    if from_version is not None:
        operations = operations[from_version:]
    for op in operations:
        out.node.append(node_def(op, add_shapes))
    return out


def input_name(tensor: Any) -> str:
    """A tensor as a ``NodeDef`` input: ``"op"`` for output 0, ``"op:i"`` otherwise."""
    index = tensor.value_index
    return tensor.op.name if index == 0 else f"{tensor.op.name}:{index}"


def node_def(op: Any, add_shapes: bool = False) -> Any:
    """The ``NodeDef`` of one operation (see the module docstring)."""
    from jtrain.protos import node_def_pb2

    node = node_def_pb2.NodeDef(name=op.name, op=op.type, device=op.device)
    data = {t.op for t in op.inputs}
    for var in dict.fromkeys(op._writes + op._reads):
        var_op = var.op
        if var_op is not op and var_op not in data:
            node.input.append(var_op.name)
    node.input.extend(input_name(t) for t in op.inputs)
    node.input.extend("^" + c.name for c in op.control_inputs)
    for key, value in op._attrs().items():
        node.attr[key].CopyFrom(attr_value(value))
    for key, value in (getattr(op, "_static_attrs", None) or {}).items():
        if key not in node.attr and _plain(value):
            node.attr[key].CopyFrom(attr_value(value))
    if add_shapes and op.outputs:
        shapes = node.attr["_output_shapes"].list.shape
        for t in op.outputs:
            shapes.add().CopyFrom(shape_proto(t.shape))
    return node


def _plain(value: Any) -> bool:
    """Whether a Python argument is an attribute value: a number, string or list of them."""
    if isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)) and value:
        kinds = {type(v) for v in value}
        return len(kinds) == 1 and kinds.pop() in (bool, int, float, str)
    return False


def attr_value(value: Any) -> Any:
    """An ``AttrValue`` for a ``DType``, ``TensorShape``, array, number, string or list.

    Raises:
      TypeError: a value of another kind.
    """
    from jtrain.protos import attr_value_pb2

    out = attr_value_pb2.AttrValue()
    if isinstance(value, dtypes.DType):
        out.type = value.as_datatype_enum
    elif isinstance(value, tensor_shape.TensorShape):
        out.shape.CopyFrom(shape_proto(value))
    elif isinstance(value, (np.ndarray, np.generic)):
        out.tensor.CopyFrom(tensor_proto(np.asarray(value)))
    elif isinstance(value, bool):
        out.b = value
    elif isinstance(value, int):
        out.i = value
    elif isinstance(value, float):
        out.f = value
    elif isinstance(value, (str, bytes)):
        out.s = value.encode() if isinstance(value, str) else value
    elif isinstance(value, (list, tuple)):
        out.list.SetInParent()
        for v in value:
            if isinstance(v, bool):
                out.list.b.append(v)
            elif isinstance(v, int):
                out.list.i.append(v)
            elif isinstance(v, float):
                out.list.f.append(v)
            elif isinstance(v, (str, bytes)):
                out.list.s.append(v.encode() if isinstance(v, str) else v)
            else:
                raise TypeError(f"no AttrValue list for {v!r}")
    else:
        raise TypeError(f"no AttrValue for {value!r}")
    return out


def shape_proto(shape: Any) -> Any:
    """A ``TensorShapeProto``: ``-1`` for an unknown dimension, ``unknown_rank`` if ``None``."""
    from jtrain.protos import tensor_shape_pb2

    shape = tensor_shape.as_shape(shape)
    if shape.dims is None:
        return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
    return tensor_shape_pb2.TensorShapeProto(
        dim=[
            tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if d is None else int(d))
            for d in shape.as_list()
        ]
    )


def tensor_proto(value: np.ndarray) -> Any:
    """A ``TensorProto`` of an array: strings in ``string_val``, numbers as raw bytes.

    Raises:
      TypeError: a dtype TF has no ``DataType`` for.
    """
    from jtrain.protos import tensor_pb2, types_pb2

    strings = value.dtype.kind in "OSU"
    enum = types_pb2.DT_STRING if strings else dtypes.as_dtype(value.dtype).as_datatype_enum
    out = tensor_pb2.TensorProto(dtype=enum, tensor_shape=shape_proto(value.shape))
    if strings:
        out.string_val.extend(
            v if isinstance(v, bytes) else str(v).encode() for v in value.reshape(-1).tolist()
        )
    else:
        little = value.astype(value.dtype.newbyteorder("<"), copy=False)
        out.tensor_content = np.ascontiguousarray(little).tobytes()
    return out


def tensor_value(proto: Any) -> np.ndarray:
    """The array of a ``TensorProto`` (a ``Const``'s ``value``): ``tf.make_ndarray``'s
    (``tensor_util.make_ndarray`` is the one home of the decoding, every dtype TF's
    protos carry; fewer values than the shape holds repeat the last, as TF).

    Raises:
      ValueError: more values than the shape holds.
      TypeError: a dtype without NumPy values (``resource``, ``variant``...).
    """
    from adapters.v1.framework.tensor_util import make_ndarray

    return make_ndarray(proto)
