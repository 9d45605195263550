"""``tf.compat.v1.graph_util``: freezing and pruning ``GraphDef``s.

``convert_variables_to_constants`` keeps the part of a ``GraphDef`` that the
output nodes need (``extract_sub_graph``) and turns each variable node in it
(``VariableV2``, ``VarHandleOp``) into a ``Const`` node of the same name holding
the variable's current value in the session, bit for bit (its ``ReadVariableOp``
reads become ``Identity`` nodes), as TF 2.21's session-based converter does. The
frozen graph imports with ``tf.import_graph_def`` in TF when its nodes have TF op
types (``MatMul``, ``Relu``...). Its nodes also carry their computation, as a
jtrain ``.meta`` does (``_jtrain_*`` attributes, which TF ignores), so jtrain runs
all of them, ``JaxFunction`` nodes included.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import numpy as np

from adapters.v1.framework import graph_def as graph_def_lib
from adapters.v1.framework.meta_graph import import_graph_def

__all__ = [
    "convert_variables_to_constants",
    "extract_sub_graph",
    "import_graph_def",
    "must_run_on_cpu",
    "remove_training_nodes",
    "tensor_shape_from_node_def_name",
]

_log = logging.getLogger(__name__)

# Op types TF counts as variable ops (``graph_util_impl._VARIABLE_OPS``).
_VARIABLE_OPS = {
    "Assign",
    "AssignAdd",
    "AssignSub",
    "Queue",
    "ScatterAdd",
    "ScatterSub",
    "ScatterUpdate",
    "TruncatedNormal",
    "Variable",
    "VariableV2",
}
_DT_STRING, _DT_INT32 = 7, 3


def _as_graph_def(graph_def: Any, arg: str = "graph_def") -> Any:
    """A copy of ``graph_def`` (jtrain's or TF's proto) as jtrain's ``GraphDef``."""
    from jtrain.protos import graph_pb2

    name = getattr(getattr(graph_def, "DESCRIPTOR", None), "name", None)
    if name != "GraphDef":
        raise TypeError(
            f"{arg} must be a graph_pb2.GraphDef proto, but got type {type(graph_def)}."
        )
    return graph_pb2.GraphDef.FromString(graph_def.SerializeToString())


def _node_name(name: str) -> str:
    return name[1:] if name.startswith("^") else name.split(":")[0]


def _colocated(value: bytes) -> str:
    text = value.decode("utf-8")
    return text[5:] if text.startswith("loc:@") else text


def extract_sub_graph(graph_def: Any, dest_nodes: Any) -> Any:
    """The nodes of ``graph_def`` that ``dest_nodes`` reach through inputs (data and
    control) and colocation (``_class``), in their order
    (``tf.compat.v1.graph_util.extract_sub_graph``).

    Args:
      graph_def: a ``GraphDef`` proto (jtrain's or TF's).
      dest_nodes: an iterable of node names.

    Returns:
      A ``GraphDef`` (``jtrain.protos.graph_pb2``) with the kept nodes, the library
      and the versions.

    Raises:
      TypeError: ``graph_def`` is not a ``GraphDef``, or ``dest_nodes`` is a string.
      AssertionError: a destination node is not in the graph (TF's message).
    """
    graph_def = _as_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError(
            f"dest_nodes must be an iterable of strings, but got type {type(dest_nodes)}."
        )
    inputs: dict[str, list[str]] = {}
    by_name: dict[str, Any] = {}
    order: dict[str, int] = {}
    for seq, node in enumerate(graph_def.node):
        name = _node_name(node.name)
        by_name[name] = node
        inputs[name] = [_node_name(x) for x in node.input]
        if "_class" in node.attr:
            inputs[name] += [_colocated(s) for s in node.attr["_class"].list.s]
        order[name] = seq
    for dest in dest_nodes:
        assert dest in by_name, f"{dest} is not in graph"
    keep: set[str] = set()
    todo = list(dest_nodes)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        todo.extend(inputs.get(name, ()))
    kept = [by_name[n] for n in sorted((n for n in keep if n in by_name), key=order.__getitem__)]
    # A copy keeps the versions and the function library (an unknown field of
    # jtrain's GraphDef); its nodes are replaced by the kept ones.
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    del out.node[:]
    out.node.extend(kept)
    return out


def _variable_values(sess: Any, names: list[str]) -> dict[str, np.ndarray]:
    """The host values of the variables named ``names`` in ``sess``, from one snapshot.

    Raises:
      FailedPreconditionError: a variable is not initialized.
      KeyError: a name is not a variable of ``sess.graph``.
    """
    variables = []
    for name in names:
        op = sess.graph.get_operation_by_name(name)
        var = getattr(op, "_variable", None)
        if var is None:
            raise KeyError(
                f"The node {name!r} of the GraphDef is not a variable of the session's graph."
            )
        variables.append(var)
    snap = sess.variable_store.snapshot(variables).values
    return {
        name: np.array(snap[var], dtype=var.dtype.base_dtype.as_numpy_dtype, copy=True)
        for name, var in zip(names, variables, strict=True)
    }


def convert_variables_to_constants(
    sess: Any,
    input_graph_def: Any,
    output_node_names: Any,
    variable_names_whitelist: Any = None,
    variable_names_blacklist: Any = None,
) -> Any:
    """Freezes a graph: its variables become constants of their values in ``sess``
    (``tf.compat.v1.graph_util.convert_variables_to_constants``).

    Args:
      sess: the session holding the variables' values.
      input_graph_def: the ``GraphDef`` (``sess.graph.as_graph_def()``).
      output_node_names: the names of the nodes the frozen graph must compute.
      variable_names_whitelist: convert only these variable nodes (default ``None``:
        all).
      variable_names_blacklist: leave these variable nodes as they are (default
        ``None``).

    Returns:
      The ``GraphDef`` of the nodes the outputs need, each converted variable a
      ``Const`` node (``dtype`` and ``value``, the exact bits) of the variable's name.

    Raises:
      TypeError: ``output_node_names`` is a string (TF's message).
      AssertionError: an output node is not in the graph (TF's message).
      FailedPreconditionError: a converted variable is not initialized.
      NotImplementedError: a resource variable is read by another op than
        ``ReadVariableOp`` (TF rewrites ``ResourceGather`` and a few others; jtrain
        does not).
    """
    graph_def = extract_sub_graph(input_graph_def, output_node_names)

    def convert(name: str) -> bool:
        return (variable_names_whitelist is None or name in variable_names_whitelist) and (
            variable_names_blacklist is None or name not in variable_names_blacklist
        )

    targets = [
        n
        for n in graph_def.node
        if n.op in ("Variable", "VariableV2", "VarHandleOp") and convert(n.name)
    ]
    if not targets:
        _attach_computations(graph_def, sess.graph)
        return graph_def
    values = _variable_values(sess, [n.name for n in targets])
    handles = {n.name for n in targets if n.op == "VarHandleOp"}
    for node in graph_def.node:
        if handles and node.op not in ("VarHandleOp",):
            for name in node.input:
                if _node_name(name) in handles and not name.startswith("^"):
                    if node.op != "ReadVariableOp":
                        raise NotImplementedError(
                            f"convert_variables_to_constants: the resource variable "
                            f"{_node_name(name)!r} is read by {node.name!r} ({node.op}), which "
                            "jtrain does not rewrite; read it with ReadVariableOp "
                            "(var.read_value())"
                        )
    for node in targets:
        name, dtype = node.name, type(node.attr["dtype"])()
        dtype.CopyFrom(node.attr["dtype"])
        node.Clear()
        node.name, node.op = name, "Const"
        node.attr["dtype"].CopyFrom(dtype)
        node.attr["value"].tensor.CopyFrom(graph_def_lib.tensor_proto(values[name]))
    for node in graph_def.node:
        if node.op == "ReadVariableOp" and _node_name(node.input[0]) in handles:
            dtype = type(node.attr["dtype"])()
            dtype.CopyFrom(node.attr["dtype"])
            klass = None
            if "_class" in node.attr:
                klass = type(dtype)()
                klass.CopyFrom(node.attr["_class"])
            name, source = node.name, node.input[0]
            node.Clear()
            node.name, node.op = name, "Identity"
            node.input.append(source)
            node.attr["T"].CopyFrom(dtype)
            if klass is not None:
                node.attr["_class"].CopyFrom(klass)
    _attach_computations(graph_def, sess.graph)
    _log.info("Froze %d variables.", len(targets))
    _log.info("Converted %d variables to const ops.", len(targets))
    return graph_def


def _attach_computations(graph_def: Any, graph: Any) -> None:
    """Gives each node that is an operation of ``graph`` (same name and type) its
    computation, as ``export_meta_graph`` does (``_jtrain_*`` attributes, which TF
    ignores): jtrain then runs the frozen graph's every node (``JaxFunction`` nodes,
    and ops whose ``GraphDef`` form leaves arguments out) without the Python code."""
    from adapters.v1.framework import meta_graph

    by_name = {op.name: op for op in graph.get_operations()}
    for node in graph_def.node:
        op = by_name.get(node.name)
        if op is None or op.type != node.op or {"_jtrain_fn", "_jtrain_call"} & set(node.attr):
            continue
        meta_graph._attach_computation(node, op)
        meta_graph._attach_host(node, op)


def remove_training_nodes(input_graph: Any, protected_nodes: Any = None) -> Any:
    """Removes ``CheckNumerics`` nodes and splices out ``Identity``/``StopGradient``
    nodes not involved in control edges or colocation
    (``tf.compat.v1.graph_util.remove_training_nodes``).

    Args:
      input_graph: a ``GraphDef``.
      protected_nodes: names of nodes kept whatever their type (default ``None``).

    Returns:
      The pruned ``GraphDef`` (its nodes only, as TF: no versions or library).
    """
    from jtrain.protos import graph_pb2, node_def_pb2

    graph = _as_graph_def(input_graph, "input_graph")
    protected = set(protected_nodes or [])
    removed = {n.name for n in graph.node if n.op == "CheckNumerics" and n.name not in protected}
    after_removal = []
    for node in graph.node:
        if node.name in removed:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        for full in node.input:
            if re.sub(r"^\^", "", full) in removed:
                continue
            new.input.append(full)
        after_removal.append(new)
    control_inputs: set[str] = set()
    with_control: set[str] = set()
    colocated: set[str] = set()
    for node in after_removal:
        for name in node.input:
            if "^" in name:
                control_inputs.add(name.replace("^", ""))
                with_control.add(node.name)
        if "_class" in node.attr:
            colocated.update(_colocated(s) for s in node.attr["_class"].list.s)
    splice = {}
    for node in after_removal:
        if node.op in ("Identity", "StopGradient") and node.name not in protected:
            if node.name in colocated:
                continue
            if node.name not in with_control:
                splice[node.name] = node.input[0]
    splice = {k: v for k, v in splice.items() if k not in control_inputs}
    out = graph_pb2.GraphDef()
    for node in after_removal:
        if node.name in splice:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        for full in node.input:
            name = re.sub(r"^\^", "", full)
            while name in splice:
                full = splice[name]
                name = re.sub(r"^\^", "", full)
            new.input.append(full)
        out.node.append(new)
    return out


def must_run_on_cpu(node: Any, pin_variables_on_cpu: bool = False) -> bool:
    """Whether TF places ``node`` (an Operation or ``NodeDef``) on the CPU: int32 and
    string constants, int32 ``DynamicStitch`` and ``Cast``, and with
    ``pin_variables_on_cpu`` the variable ops
    (``tf.compat.v1.graph_util.must_run_on_cpu``)."""
    from adapters.v1.framework import ops

    node_def = graph_def_lib.node_def(node) if isinstance(node, ops.Operation) else node
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    if node_def.op == "Const":
        return node_def.attr["dtype"].type in (_DT_STRING, _DT_INT32)
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == _DT_INT32
    if node_def.op == "Cast":
        return node_def.attr["SrcT"].type == _DT_INT32
    return False


def tensor_shape_from_node_def_name(graph: Any, input_name: str) -> Any:
    """The static shape of the tensor a ``NodeDef`` input names (``"op"`` is ``"op:0"``)."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()
