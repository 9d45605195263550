"""TF's ``MetaGraphDef`` of a compat graph: ``export_meta_graph`` and ``import_meta_graph``.

A meta graph holds TF's fields: ``meta_info_def``, the ``GraphDef``, the
``SaverDef`` and the collections (variables as ``VariableDef`` bytes, ops and
tensors as node names, queue runners as ``QueueRunnerDef`` bytes, Python numbers
and strings as lists), so TF and its tools read a jtrain ``.meta``.

**The computation travels beside TF's fields.** A jtrain node's function is JAX
code, which no ``GraphDef`` field can hold; ``export_meta_graph`` serializes each
device operation with ``jax.export`` (StableHLO, with symbolic dimensions where
the static shape has ``None``: one per tensor and axis, else one per axis, else as
the graph derives them from its placeholders' own, so a ``dynamic_rnn``'s loop
sees its inputs' and zero state's batch as one) into the node's attribute
``_jtrain_fn``, beside ``_jtrain_reads``/``_jtrain_writes`` (the variables it reads
and writes, by op name) and ``_jtrain_memo`` (for a gradient: the values of the forward tensors it
re-evaluates from, by tensor name). A node reading and computing floating tensors
that writes no variable carries its derivative too (``vjp_order=1``), so that
``tf.gradients`` of the imported graph (a new optimizer's ``minimize``) goes through
it. A node of the op table that reads and writes no variable (``MatMul``,
``Reshape``, ``Relu``...) has no exported function: it travels as its call,
``_jtrain_call`` (JSON: the table entry, the arguments known when the graph was
built, the inputs' layout, the names of those computed in the graph), and is rebuilt
through the table. That is much cheaper than exporting (a transformer's first save
spent most of its time in ``jax.export``), and the only way for an op whose shapes,
sizes or axes are computed in the graph (``tf.reshape(x, [tf.shape(x)[0], -1])``),
since those arguments are taken when the step is traced. ``import_meta_graph`` rebuilds the graph
from these alone: placeholders, constants and variables from TF's attributes,
every other node as a call of its deserialized function. Nothing is unpickled or
evaluated: only protos, JSON and ``jax.export``'s own serialization are parsed. TF
ignores the ``_jtrain_*`` attributes.

Host operations travel as what rebuilds them (``Operation._host_recipe``, written
as ``_jtrain_host_<key>`` attributes): a summary's tag and parameters (and any
``MergeSummary``), a queue's spec (class, capacity, dtypes, shapes, names) and its
enqueue/dequeue/close/size ops (``QUEUE_RUNNERS`` are rebuilt from their
``QueueRunnerDef``s). A random op's generator node carries TF's ``seed``/``seed2``,
so an imported random op draws the sequence the exported one did in a new
session. TF's Philox ops (``RandomUniform``, ``RandomUniformInt``,
``RandomStandardNormal``, ``TruncatedNormal``) travel as their recipe instead of a
function: ``seed``/``seed2`` and ``_jtrain_philox`` (JSON: TF's Python arithmetic
around the raw values, the dtype, the static shape or the position of the run-time
shape input), rebuilt by ``random_ops.philox_compute`` (whatever their shape: a
run-time one cannot be exported with symbolic dimensions, its draw count being a
trace-time value). A TF-written graph's nodes of these types run TF's kernels on
their own ``GuardedPhiloxRandom`` (``graph_kernels``): TF's values, run after run.
A ``py_func``'s Python function cannot travel: running it raises
``UnimplementedError`` naming it and saying what to do.

A TF-written meta graph has no ``_jtrain_fn``: its placeholders, constants,
variables (with their ``Assign``/``read`` nodes), ``NoOp``s, TF's graph-only op
types of ``graph_kernels`` (gradient kernels, shape arithmetic,
``ApplyGradientDescent``) and the op types the op library defines with the same
inputs (``MatMul``, ``BiasAdd``, ``Relu``...) become runnable; a node of another
type is imported as an op that raises ``UnimplementedError`` naming it and every
unsupported op type of the import.
Variables, collections and the ``SaverDef`` are imported either way, so
``saver.restore`` works and names line up.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

import numpy as np
from google.protobuf import any_pb2

from adapters.v1.framework import _x64, data_sizes, dtypes, graph_kernels, ops, runtime_checks
from adapters.v1.framework import graph_def as graph_def_lib
from jtrain import errors

__all__ = ["create_meta_graph_def", "export_meta_graph", "import_meta_graph", "TF_VERSION"]

_log = logging.getLogger(__name__)

# The TF release whose behaviour jtrain reproduces, written as the meta graph's
# ``tensorflow_version`` (its ``tensorflow_git_version`` names jtrain).
TF_VERSION = "2.21.0"


def _jtrain_version() -> str:
    try:
        from importlib.metadata import version

        return f"jtrain-{version('jtrain')}"
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "jtrain"


def meta_info_def(meta_info: Any = None, tags: Any = None) -> Any:
    """A ``MetaInfoDef`` with TF's version fields (``meta_info`` is copied first)."""
    from jtrain.protos import meta_graph_pb2

    out = meta_graph_pb2.MetaGraphDef.MetaInfoDef()
    if meta_info is not None:
        out.CopyFrom(meta_info)
    out.tensorflow_version = TF_VERSION
    out.tensorflow_git_version = _jtrain_version()
    if tags:
        out.tags.extend(tags)
    return out


def create_meta_graph_def(
    meta_info_def: Any = None,
    graph_def: Any = None,
    saver_def: Any = None,
    collection_list: Any = None,
    graph: Any = None,
    export_scope: str | None = None,
    exclude_nodes: Any = None,
    clear_extraneous_savers: bool = False,
    strip_default_attrs: bool = False,
) -> Any:
    """A ``MetaGraphDef`` from its parts (TF's ``meta_graph.create_meta_graph_def``).

    Args:
      meta_info_def: a ``MetaInfoDef`` to start from (default ``None``).
      graph_def: the ``GraphDef`` (default: ``graph``'s, with ``_output_shapes``).
      saver_def: a ``SaverDef`` (default ``None``: none).
      collection_list: names of ``graph``'s collections to add (default ``None``:
        none without a ``graph``, all of them with one).
      graph: the ``Graph`` the collections come from (default ``None``).
      export_scope: keep only collection items under this name scope, their names
        stripped of it (default ``None``).
      exclude_nodes: names of nodes whose collection items are left out (default
        ``None``).
      clear_extraneous_savers: the ``savers`` collection holds ``saver_def`` only
        (default False).
      strip_default_attrs: remove attributes holding TF's default value (default
        False).

    Returns:
      A ``MetaGraphDef`` proto (``jtrain.protos.meta_graph_pb2``, TF's wire format).
    """
    from jtrain.protos import meta_graph_pb2

    out = meta_graph_pb2.MetaGraphDef()
    out.meta_info_def.CopyFrom(_meta_info(meta_info_def))
    if graph_def is None and graph is not None:
        graph_def = graph.as_graph_def(add_shapes=True)
    if graph_def is not None:
        if isinstance(graph_def, (bytes, bytearray)):
            out.graph_def.ParseFromString(bytes(graph_def))
        else:
            out.graph_def.ParseFromString(graph_def.SerializeToString())
    if strip_default_attrs:
        from adapters.v1.framework import op_def_defaults

        op_def_defaults.strip_default_attrs(out)
    if saver_def is not None:
        out.saver_def.ParseFromString(saver_def.SerializeToString())
    if graph is not None:
        keys = graph.get_all_collection_keys() if collection_list is None else collection_list
        exclude = set(exclude_nodes or ())
        for key in keys:
            if clear_extraneous_savers and key == "savers":
                if saver_def is not None:
                    entry = out.collection_def[key].bytes_list
                    entry.value.append(saver_def.SerializeToString())
                continue
            add_collection_def(out, key, graph, export_scope, exclude)
    return out


def _meta_info(value: Any) -> Any:
    return meta_info_def(value)


def add_collection_def(
    meta_graph_def: Any,
    key: str,
    graph: Any,
    export_scope: str | None = None,
    exclude_nodes: Any = None,
) -> None:
    """Adds ``graph``'s collection ``key`` to ``meta_graph_def`` as TF serializes it.

    Variables become ``VariableDef`` bytes, operations and tensors node names,
    queue runners ``QueueRunnerDef`` bytes, ints/floats/strings typed lists. A
    collection holding anything else is left out with a warning, as TF does. With
    ``export_scope``, only items named under it are kept, their names stripped.
    """
    exclude = set(exclude_nodes or ())
    items = [
        item
        for item in graph.get_collection(key)
        if not isinstance(getattr(item, "name", None), str)
        or _include(item.name.partition(":")[0], export_scope, exclude)
    ]
    if not items:
        return
    try:
        kind, values = _collection_values(items, export_scope)
    except Exception as e:  # noqa: BLE001 - TF warns and leaves the collection out
        logging.warning(
            "Issue encountered when serializing %s.\nType is unsupported, or the types of "
            "the items don't match field type in CollectionDef. Note this is a warning and "
            "probably safe to ignore.\n%s",
            key,
            e,
        )
        return
    if not values:
        return
    entry = meta_graph_def.collection_def[key]
    getattr(entry, kind).value.extend(values)


def _collection_values(items: list[Any], export_scope: str | None = None) -> tuple[str, list[Any]]:
    """``(CollectionDef field, values)`` for a collection's items (one kind for all)."""
    from adapters.v1.framework import ops

    first = items[0]
    if hasattr(first, "_snapshot") and hasattr(first, "initializer"):
        return "bytes_list", [variable_def(v, export_scope).SerializeToString() for v in items]
    if isinstance(first, (ops.Operation, ops.Tensor)):
        names = []
        for item in items:
            if not isinstance(item, (ops.Operation, ops.Tensor)):
                raise TypeError(f"{item!r} is not an Operation or a Tensor")
            names.append(strip_name_scope(item.name, export_scope))
        return "node_list", names
    if isinstance(first, any_pb2.Any):  # e.g. a SavedModel's assets (AssetFileDefs)
        return "any_list", list(items)
    if hasattr(first, "to_proto"):
        protos = [item.to_proto(export_scope=export_scope) for item in items]
        return "bytes_list", [p.SerializeToString() for p in protos if p is not None]
    if isinstance(first, bool) or not isinstance(first, (int, float, str, bytes)):
        raise TypeError(f"{type(first).__name__} items cannot be serialized")
    if isinstance(first, int):
        return "int64_list", [int(i) for i in items]
    if isinstance(first, float):
        return "float_list", [float(i) for i in items]
    return "bytes_list", [i.encode() if isinstance(i, str) else bytes(i) for i in items]


def variable_def(var: Any, export_scope: str | None = None) -> Any:
    """The ``VariableDef`` of a variable (names of its ops, as TF's ``Variable.to_proto``;
    ``export_scope`` stripped from them)."""
    from jtrain.protos import variable_pb2

    def name(value: str) -> str:
        return strip_name_scope(value, export_scope)

    out = variable_pb2.VariableDef(
        variable_name=name(var.name),
        initializer_name=name(var.initializer.name),
        snapshot_name=name(var._snapshot.name),
        initial_value_name=name(var.initial_value.name),
        trainable=var.trainable,
        is_resource=bool(getattr(var, "_resource", False)),
    )
    sync = getattr(var, "_synchronization", None)
    aggregation = getattr(var, "_aggregation", None)
    if sync is not None:
        out.synchronization = int(sync.value)
    if aggregation is not None:
        out.aggregation = int(aggregation.value)
    info = getattr(var, "_save_slice_info", None)
    if info is not None:
        out.save_slice_info_def.full_name = name(info.full_name)
        out.save_slice_info_def.full_shape.extend(info.full_shape)
        out.save_slice_info_def.var_offset.extend(info.var_offset)
        out.save_slice_info_def.var_shape.extend(info.var_shape)
    return out


# -- export ---------------------------------------------------------------------------
# TF's prefix of a node input outside ``export_scope`` (``meta_graph._UNBOUND_INPUT_PREFIX``).
UNBOUND_INPUT_PREFIX = "$unbound_inputs_"
# Op types of TF's save and restore nodes (``meta_graph.SAVE_AND_RESTORE_OPS``).
_SAVE_AND_RESTORE_OPS = (
    "SaveV2",
    "Save",
    "SaveSlice",
    "LegacySave",
    "LegacySaveSlice",
    "RestoreV2",
    "Restore",
    "RestoreSlice",
    "LegacyRestore",
    "LegacyRestoreSlice",
)


def export_meta_graph(
    filename: str | os.PathLike[str] | None = None,
    meta_info_def: Any = None,
    graph_def: Any = None,
    saver_def: Any = None,
    collection_list: Any = None,
    as_text: bool = False,
    graph: Any = None,
    export_scope: str | None = None,
    clear_devices: bool = False,
    clear_extraneous_savers: bool = False,
    strip_default_attrs: bool = False,
    save_debug_info: bool = False,
    **kwargs: Any,
) -> Any:
    """``tf.compat.v1.train.export_meta_graph``: the graph as a ``MetaGraphDef``.

    Args:
      filename: write the meta graph there too (atomically; default ``None``).
      meta_info_def: a ``MetaInfoDef`` to start from.
      graph_def: the ``GraphDef`` to export instead of the graph's (default
        ``None``); its nodes that name an operation of ``graph`` of the same type
        carry that operation's computation.
      saver_def: the ``SaverDef`` (default: none).
      collection_list: the collections to export (default: all).
      as_text: write protobuf text instead of binary (default False).
      graph: the graph (default: the default graph).
      export_scope: export only the nodes whose names start with it, with the scope
        stripped from their names (default ``None``: all); inputs from outside the
        scope become ``$unbound_inputs_<name>``, listed in the graph's and the meta
        graph's ``unbound_inputs`` collection, as TF.
      clear_devices: drop the nodes' device names (default False).
      clear_extraneous_savers: leave out the save/restore nodes of other savers
        than ``saver_def``'s and keep only ``saver_def`` in the ``savers``
        collection (default False).
      strip_default_attrs: remove the attributes whose value is the default of TF's
        op definition (default False; sets ``meta_info_def.stripped_default_attrs``).
      save_debug_info: not supported: jtrain operations do not record the Python
        stack that created them (default False).
      **kwargs: ``unbound_inputs_col_name`` (default ``"unbound_inputs"``; ``None``
        records no unbound inputs), as TF.

    Returns:
      The ``MetaGraphDef`` proto, each device node carrying its serialized
      computation (see the module docstring).

    Raises:
      NotImplementedError: ``save_debug_info=True``.
      TypeError: an unknown keyword argument.
    """
    unbound_col = kwargs.pop("unbound_inputs_col_name", "unbound_inputs")
    if kwargs:
        raise TypeError(
            f"create_meta_graph_def() got an unexpected keyword argument {next(iter(kwargs))!r}"
        )
    if save_debug_info:
        raise NotImplementedError(
            "export_meta_graph(save_debug_info=True) is not supported by jtrain: its operations "
            "do not record the Python stack that created them (TF's GraphDebugInfo); export "
            "without it"
        )
    graph = ops.get_default_graph() if graph is None else graph
    given = graph_def is not None
    if not given:
        graph_def = graph.as_graph_def(add_shapes=True)
    else:
        graph_def = _copy_graph_def(graph_def)
    by_name = {op.name: op for op in graph.get_operations()}
    for node in graph_def.node:
        op = by_name.get(node.name)
        if op is not None and op.type == node.op and "_jtrain_fn" not in node.attr:
            _attach_computation(node, op)
            _attach_host(node, op)
    exclude: set[str] = set()
    if export_scope or clear_extraneous_savers or clear_devices:
        if clear_extraneous_savers:
            exclude = _extraneous_saver_nodes(graph_def, saver_def)
        unbound: list[str] = []
        scoped = type(graph_def)()
        scoped.versions.CopyFrom(graph_def.versions)
        for node in graph_def.node:
            if _include(node.name, export_scope, exclude):
                scoped.node.append(_scoped_node(node, export_scope, unbound, clear_devices))
        graph_def = scoped
        if unbound_col:
            graph.clear_collection(unbound_col)
            for name in unbound:
                graph.add_to_collection(unbound_col, name)
    out = create_meta_graph_def(
        meta_info_def=meta_info_def,
        graph_def=graph_def,
        saver_def=saver_def,
        collection_list=collection_list,
        graph=graph,
        export_scope=export_scope,
        exclude_nodes=exclude,
        clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs,
    )
    if filename is not None:
        write_meta_graph(out, filename, as_text)
    return out


def _copy_graph_def(graph_def: Any) -> Any:
    from jtrain.protos import graph_pb2

    if isinstance(graph_def, (bytes, bytearray)):
        return graph_pb2.GraphDef.FromString(bytes(graph_def))
    if not hasattr(graph_def, "node") or not hasattr(graph_def, "SerializeToString"):
        raise TypeError(f"graph_def must be of type GraphDef. Received type: {type(graph_def)}.")
    return graph_pb2.GraphDef.FromString(graph_def.SerializeToString())


def strip_name_scope(name: str, export_scope: str | None) -> str:
    """``name`` without a leading ``export_scope/`` (TF's ``ops.strip_name_scope``;
    a ``^`` or ``loc:@`` prefix is kept)."""
    if not export_scope:
        return name
    scope = export_scope if export_scope.endswith("/") else export_scope + "/"
    for lead in ("^", "loc:@", ""):
        if name.startswith(lead + scope):
            return lead + name[len(lead) + len(scope) :].lstrip("/")
    return name


def prepend_name_scope(name: str, import_scope: str | None) -> str:
    """``import_scope/name`` (TF's ``ops.prepend_name_scope``; ``^`` and ``loc:@`` kept)."""
    if not import_scope:
        return name
    scope = import_scope.rstrip("/") + "/"
    for lead in ("^", "loc:@"):
        if name.startswith(lead):
            return lead + scope + name[len(lead) :]
    return scope + name


def _include(name: str, export_scope: str | None, exclude: set[str]) -> bool:
    """TF's ``_should_include_node``: not excluded, and under ``export_scope`` (a plain
    prefix test, as TF) or an unbound input."""
    if name in exclude:
        return False
    if name.startswith(UNBOUND_INPUT_PREFIX) or not export_scope:
        return True
    return name.startswith(export_scope)


def _scoped_node(node: Any, export_scope: str | None, unbound: list[str], clear_devices: bool):
    """A copy of ``node`` with ``export_scope`` stripped from its names (TF's ``_node_def``).

    An input from outside the scope becomes ``$unbound_inputs_<input>`` and is added
    to ``unbound``; the ``_jtrain_*`` name lists are rewritten the same way.
    """
    out = type(node)()
    out.CopyFrom(node)
    del out.input[:]
    for name in node.input:
        if export_scope and not name.lstrip("^").startswith(export_scope):
            lead = "^" if name.startswith("^") else ""
            name = lead + UNBOUND_INPUT_PREFIX + name.lstrip("^")
            unbound.append(name)
        else:
            name = strip_name_scope(name, export_scope)
        out.input.append(name)
    out.name = strip_name_scope(node.name, export_scope)
    if export_scope:
        if "_class" in node.attr:
            keep = [
                strip_name_scope(s.decode(), export_scope).encode()
                for s in node.attr["_class"].list.s
                if s.decode().split("@", 1)[-1].startswith(export_scope)
            ]
            del out.attr["_class"].list.s[:]
            out.attr["_class"].list.s.extend(keep)
        if node.op in _QUEUE_OP_TYPES and "_jtrain_host_queue" in node.attr:
            queue = node.attr["_jtrain_host_queue"].s.decode()
            out.attr["_jtrain_host_queue"].s = strip_name_scope(queue, export_scope).encode()
        for key in ("_jtrain_reads", "_jtrain_writes", "_jtrain_memo"):
            if key in node.attr:
                names = [
                    (
                        strip_name_scope(s.decode(), export_scope)
                        if s.decode().startswith(export_scope)
                        else UNBOUND_INPUT_PREFIX + s.decode()
                    ).encode()
                    for s in node.attr[key].list.s
                ]
                del out.attr[key].list.s[:]
                out.attr[key].list.s.extend(names)
    if clear_devices:
        out.device = ""
    return out


def _extraneous_saver_nodes(graph_def: Any, saver_def: Any) -> set[str]:
    """The nodes of savers other than ``saver_def``'s (TF's ``_find_extraneous_saver_nodes``:
    every node in the name scope of a save/restore node outside the kept saver's scope)."""

    def scope_of(name: str) -> str:
        name = name.lstrip("^")
        return name.rsplit("/", 1)[0] if "/" in name else ""

    keep = set()
    if saver_def is not None:
        keep = {
            scope_of(saver_def.save_tensor_name.partition(":")[0]) + "/",
            scope_of(saver_def.restore_op_name.partition(":")[0]) + "/",
        }
    saver_nodes = {n.name for n in graph_def.node if n.op in _SAVE_AND_RESTORE_OPS}
    scopes = {scope_of(n) for n in saver_nodes} - saver_nodes
    extraneous = {s + "/" for s in scopes} - keep
    return {n.name for n in graph_def.node if any(n.name.startswith(s) for s in extraneous)}


def write_meta_graph(meta_graph_def: Any, filename: Any, as_text: bool = False) -> str:
    """Writes ``meta_graph_def`` to ``filename`` atomically (binary, or text)."""
    from google.protobuf import text_format

    from jtrain.checkpoint import _fileio

    path = os.fspath(filename)
    if as_text:
        data = text_format.MessageToString(meta_graph_def).encode()
    else:
        data = meta_graph_def.SerializeToString(deterministic=True)
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    _fileio.atomic_write(path, data)
    return path


def _attach_computation(node: Any, op: Any) -> None:
    """Adds the ``_jtrain_*`` attributes of ``op`` to ``node``: a node of the op table
    that touches no variable travels as its call (``_jtrain_call``), any other device
    op as its exported function (``_jtrain_fn``)."""
    if _rebuilt_natively(op):
        return
    # Asked in graph order, so that the answer is cached when its readers ask (a long
    # chain would otherwise recurse as deep as it is long).
    dead = _dead_on_import(op)
    call = _table_call_json(op) if _rebuilt_through_table(op) else None
    exported = None if call is not None or dead else _exported(op)
    if exported is None:
        if call is None and _traced_arguments(op):
            call = _table_call_json(op)  # (no function to export: its only form)
        if call is not None:
            node.attr["_jtrain_call"].s = call
        return
    blob, memo = exported
    node.attr["_jtrain_fn"].s = blob
    if runtime_checks.needed([op]):
        node.attr["_jtrain_checked"].b = True
    for key, variables in (("_jtrain_reads", op._reads), ("_jtrain_writes", op._writes)):
        node.attr[key].list.SetInParent()
        node.attr[key].list.s.extend(v.op.name.encode() for v in variables)
    if memo:
        node.attr["_jtrain_memo"].list.s.extend(t.name.encode() for t in memo)


def _traced_arguments(op: Any) -> bool:
    """Whether ``op`` is a table node with arguments taken when the step is traced
    (computed in the graph, or a ``sized`` entry's sizes)."""
    call = getattr(op, "_table_call", None)
    return call is not None and (bool(call.deferred) or getattr(op, "_sized", None) is not None)


def _rebuilt_through_table(op: Any) -> bool:
    """Whether the importer can rebuild ``op`` from its call (cached on the op): a node
    of the table that touches no variable, each of whose inputs the importer rebuilds
    with its dtype (``_typed_on_import``)."""
    if not hasattr(op, "_jtrain_through_table"):
        op._jtrain_through_table = (
            getattr(op, "_table_call", None) is not None
            and not (op._reads or op._writes)
            and all(_typed_on_import(t.op) for t in op.inputs)
        )
    through: bool = op._jtrain_through_table
    return through


def _typed_on_import(op: Any) -> bool:
    """Whether the importer rebuilds ``op``'s outputs with their dtypes: not a loop
    body's inputs (no computation: only the loop's node feeds them), nor a node that
    neither travels as its call nor exports (``GradientInput``, which never runs)."""
    if _rebuilt_natively(op) or op._host is not None:
        return True
    if op._compute is None:
        return False
    return _rebuilt_through_table(op) or _exported(op) is not None


def _attach_host(node: Any, op: Any) -> None:
    """Adds a host op's ``_jtrain_host_*`` attributes: what rebuilds it on import."""
    recipe = getattr(op, "_host_recipe", None)
    if recipe is None:
        return
    for key, value in recipe.items():
        node.attr["_jtrain_host_" + key].CopyFrom(graph_def_lib.attr_value(value))


def _table_call_json(op: Any) -> bytes | None:
    """A node of the op table as JSON: the entry's name, the arguments known when the
    graph was built, its inputs' layout, the arguments computed in the graph by name
    (``op_def.TableCall``); None for another node, or where an argument is not JSON
    (``op_def.to_json``)."""
    import json

    from adapters.v1.framework.op_def import to_json

    call = getattr(op, "_table_call", None)
    if call is None:
        return None
    try:
        return json.dumps(to_json(call._asdict()), allow_nan=False).encode()
    except (TypeError, ValueError):  # an argument JSON cannot carry
        return None


def _exported(op: Any) -> tuple[bytes, list[Any]] | None:
    """``(serialized jax.export, memo tensors)`` of a device op; cached on the op.

    ``None`` for an op without a device computation (placeholders, variables, host
    ops) or one ``jax.export`` cannot serialize (logged at debug level).
    """
    if hasattr(op, "_jtrain_exported"):
        cached: tuple[bytes, list[Any]] | None = op._jtrain_exported
        return cached
    result = None
    # State that is not a graph variable (a random op's generator) cannot be rebuilt.
    state = all(getattr(v, "_variable_op", None) is not None for v in op._reads + op._writes)
    if (
        op._compute is not None
        and op._host is None
        and state
        and not _rebuilt_natively(op)
        and not any(_dead_on_import(t.op) for t in op.inputs)
    ):
        try:
            result = _export(op)
        except Exception as e:  # noqa: BLE001 - any failure: the node is not exportable
            _log.debug("op %s (%s) not exported: %s", op.name, op.type, e)
    op._jtrain_exported = result
    return result


def _dead_on_import(op: Any) -> bool:
    """Whether ``op`` cannot run once imported (cached on the op): a device op reading
    one that cannot, or one that neither travels as its call nor exported (a gradient
    re-evaluating a random op's draws) of a type the importer does not rebuild from
    TF's attributes either. Such an op is not exported (a transformer's gradient
    clipping and optimizer update spent 3.6 s of its first ``Saver.save`` exporting
    them)."""
    if op._compute is None or op._host is not None or _rebuilt_natively(op):
        return False
    dead: bool | None = getattr(op, "_jtrain_dead", None)
    if dead is None:
        dead = any(_dead_on_import(t.op) for t in op.inputs) or (
            op.type not in _tf_node_types()
            and not _rebuilt_through_table(op)
            and not _traced_arguments(op)
            and _exported(op) is None
        )
        op._jtrain_dead = dead
    return dead


@functools.cache
def _tf_node_types() -> frozenset[str]:
    """The op types the importer may rebuild from a TF node's attributes alone."""
    from adapters.v1.framework.op_def import OPS

    table = {entry.op_type for entry in OPS.values()}
    return frozenset(table | set(_TF_NATIVE) | set(graph_kernels.KERNELS))


# Op types import_meta_graph rebuilds from TF's attributes (no exported function).
_NATIVE = ("Placeholder", "Const", "VariableV2", "NoOp")
# TF's variable node types: a ref variable, a resource variable's handle.
_VARIABLE_OPS = ("VariableV2", "VarHandleOp")


def _rebuilt_natively(op: Any) -> bool:
    """Whether the importer rebuilds ``op`` from its node alone, as a TF node's.

    Constants, placeholders, variables, a variable's plain read (``Identity``) and
    assignments of a tensor (``Assign``/``AssignAdd``/``AssignSub``).
    """
    if op.type == "Const":
        return op._const_value is not None or getattr(op, "_host_value", None) is not None
    if op.type in _NATIVE or "_jtrain_philox" in (getattr(op, "_static_attrs", None) or {}):
        return True
    if op.type == "Identity":
        return op._read_of is not None and not op.inputs and op._reads == (op._read_of,)
    if op.type in ("Assign", "AssignAdd", "AssignSub"):
        return op._assigns is not None and len(op.inputs) == 1 and len(op._writes) == 1
    return False


class _MemoUsed(Exception):
    """The op's function looks up values beyond its inputs (a gradient)."""


class _Trap(dict):
    """A memo that raises ``_MemoUsed`` on any lookup."""

    def _used(self, *args: Any, **kwargs: Any) -> Any:
        raise _MemoUsed

    __getitem__ = get = items = keys = values = __iter__ = __contains__ = copy = _used


def _export(op: Any) -> tuple[bytes, list[Any]]:

    try:
        return _export_with(op, None), []
    except _MemoUsed:
        memo = _forward_tensors(op)
        return _export_with(op, memo), memo


def _forward_tensors(op: Any) -> list[Any]:
    """The tensors computed before ``op`` in any run of it: its data ancestors."""
    seen: dict[Any, None] = {}
    stack = list(op.inputs)
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen[t] = None
        stack.extend(t.op.inputs)
    return [t for t in seen if t._np_dtype is not None and t._np_dtype.kind not in "OSU"]


def _export_with(op: Any, memo: list[Any] | None) -> bytes:
    import jax
    from jax import export

    from adapters.v1.client.session import RunContext

    reads = list(op._reads)

    def fn(read_vals, memo_vals, *input_vals):
        variables = dict(zip(reads, read_vals, strict=True))
        if memo is None:
            values: dict = _Trap()
        else:
            values = dict(zip(memo, memo_vals, strict=True))
            values.update(zip(op.inputs, input_vals, strict=True))
        ctx = RunContext(variables, values, initialized=frozenset(reads))
        ctx.op = op
        outs = op._compute(ctx, *input_vals)
        return tuple(outs), tuple(variables[v] for v in op._writes)

    if runtime_checks.needed([op]):
        # The op's run-time checks (an index out of range, a NaN) travel as a third
        # output, "a check failed" (``_jtrain_checked``); their messages do not.
        unchecked = fn
        checked = runtime_checks.functionalize(unchecked, not runtime_checks.in_bodies([op]))

        def fn(read_vals, memo_vals, *input_vals):
            outs, written, (failed, _) = checked(read_vals, memo_vals, *input_vals)
            return outs, written, failed

    tensors = list(op.inputs) + list(memo or [])
    last: Exception | None = None
    attempts = [(False, _specs), (True, _specs), (False, _traced_specs), (True, _traced_specs)]
    for shared, make_specs in attempts:
        try:
            specs = make_specs(tensors, shared)
        except Exception as e:  # noqa: BLE001 - no abstract values: the last error stands
            last = last or e
            continue
        args = specs[: len(op.inputs)]
        memo_specs = tuple(specs[len(op.inputs) :])
        read_specs = tuple(jax.ShapeDtypeStruct(v._shape, v._dtype.dtype) for v in reads)
        try:
            with _x64.exact():
                exported = export.export(jax.jit(fn), platforms=_export_platforms())(
                    read_specs, memo_specs, *args
                )
                return _serialized(op, exported)
        except _MemoUsed:
            raise
        except Exception as e:  # noqa: BLE001 - retry with shared or traced dimensions
            last = e
    assert last is not None
    raise last


def _serialized(op: Any, exported: Any) -> bytes:
    """``exported`` serialized, with its derivative (``vjp_order=1``) where ``tf.gradients``
    may go through the imported node: a node reading floating tensors to compute
    floating ones, writing no variable (an optimizer's update is not differentiated),
    not itself a gradient. Without it the imported node has no gradient (JAX: "No VJP
    is available"); a function JAX cannot reverse-differentiate keeps none."""
    differentiable = (
        not op._writes
        and op.type not in ("Gradients", "ApplyGradients")
        and any(_is_floating(t) for t in op.inputs)
        and any(_is_floating(t) for t in op.outputs)
    )
    if differentiable:
        try:
            return bytes(exported.serialize(vjp_order=1))
        except Exception as e:  # noqa: BLE001 - e.g. a loop of a computed length
            _log.debug("op %s (%s) exported without its gradient: %s", op.name, op.type, e)
    return bytes(exported.serialize())


def _is_floating(t: Any) -> bool:
    return t._np_dtype is not None and t._np_dtype.kind in "fc"


def _imported_check_failed(op: Any) -> errors.OpError:
    """The error of an imported op whose run-time check failed: TF's class, naming the
    node (a meta graph keeps that a check failed, not its message)."""
    return errors.InvalidArgumentError(
        None,
        op,
        f"A run-time check of {op.type} node '{op.name}' failed (an argument out of its "
        "valid range, or a value a check refuses: an index out of range, a NaN or "
        "infinity); the meta graph does not keep TF's message, which running the "
        f"original graph gives.\n\t [[{{{{node {op.name}}}}}]]",
    )


def _export_platforms() -> tuple[str, ...]:
    """The platforms a device op's computation is lowered for: this process's, and the
    CPU, so a ``.meta`` written on a GPU machine also imports and runs on a CPU one."""
    from jax import export

    return tuple(dict.fromkeys((export.default_export_platform(), "cpu")))


def _specs(tensors: list[Any], shared: bool) -> list[Any]:
    """Abstract values of ``tensors``; unknown dimensions symbolic.

    ``shared``: one symbol per axis position (``b0`` for every unknown dimension 0,
    as a batch dimension), else one symbol per tensor and axis.
    """
    import jax
    from jax import export

    names: list[str] = []
    for i, t in enumerate(tensors):
        if t._np_dtype is None or t._np_dtype.kind in "OSU":
            raise TypeError(f"input {t.name} has no array dtype")
        if t._shape is None:
            raise TypeError(f"input {t.name} has an unknown rank")
        for axis, d in enumerate(t._shape):
            if d is None:
                name = f"b{axis}" if shared else f"d{i}_{axis}"
                if name not in names:
                    names.append(name)
    symbols = (
        dict(zip(names, export.symbolic_shape(", ".join(names)), strict=True)) if names else {}
    )
    out = []
    for i, t in enumerate(tensors):
        shape = tuple(
            (symbols[f"b{axis}" if shared else f"d{i}_{axis}"] if d is None else d)
            for axis, d in enumerate(t._shape)
        )
        out.append(jax.ShapeDtypeStruct(shape, t._np_dtype))
    return out


def _traced_specs(tensors: list[Any], shared: bool) -> list[Any]:
    """Abstract values of ``tensors`` as the graph computes them from its placeholders.

    Each unknown dimension of a placeholder (or of a host op's output) is a symbol
    (``shared``: one per axis position, as :func:`_specs`) and the graph between them
    and ``tensors`` is evaluated abstractly, so dimensions the graph derives from one
    another share their symbol: a ``dynamic_rnn``'s time-major inputs ``[time,
    batch, depth]`` and its zero state ``[batch, units]``, both from ``x: [None,
    None, depth]`` (and, shared, its ``sequence_length: [None]``).

    Raises:
      TypeError: a placeholder of unknown rank or without an array dtype.
    """
    import jax
    from jax import export

    from adapters.v1.client.session import RunContext, execution_order

    roots: list[Any] = []
    seen: set[Any] = set()
    stack = list(tensors)
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        if t.op.type == "Placeholder" or t.op._compute is None or t.op._host is not None:
            roots.append(t)
        else:
            stack.extend(t.op.inputs)

    def name(i: int, axis: int) -> str:
        return f"b{axis}" if shared else f"r{i}_{axis}"

    names: list[str] = []
    for i, t in enumerate(roots):
        if t._np_dtype is None or t._np_dtype.kind in "OSU" or t._shape is None:
            raise TypeError(f"input {t.name} has no array dtype or an unknown rank")
        names.extend(name(i, a) for a, d in enumerate(t._shape) if d is None)
    names = list(dict.fromkeys(names))
    symbols = dict(zip(names, export.symbolic_shape(", ".join(names)), strict=True))
    root_specs = []
    for i, t in enumerate(roots):
        shape = tuple(symbols[name(i, a)] if d is None else d for a, d in enumerate(t._shape))
        root_specs.append(jax.ShapeDtypeStruct(shape, t._np_dtype))
    order = execution_order([t.op for t in tensors], set(roots))
    variables: list[Any] = []
    for op in order:
        variables.extend(v for v in op._reads + op._writes if v not in variables)
    var_specs = [jax.ShapeDtypeStruct(v._shape, v._dtype.dtype) for v in variables]

    def evaluate(root_vals: list[Any], var_vals: list[Any]) -> list[Any]:
        memo = dict(zip(roots, root_vals, strict=True))
        ctx = RunContext(
            dict(zip(variables, var_vals, strict=True)), memo, initialized=frozenset(variables)
        )
        ctx.run_ops(order)
        return [memo[t] for t in tensors]

    with _x64.exact():
        values = jax.eval_shape(evaluate, root_specs, var_specs)
    pairs = zip(values, tensors, strict=True)
    return [jax.ShapeDtypeStruct(v.shape, t._np_dtype) for v, t in pairs]


# -- import ---------------------------------------------------------------------------
def read_meta_graph_file(filename: Any) -> Any:
    """The ``MetaGraphDef`` of a ``.meta`` file, binary or text (TF's order of tries).

    Raises:
      OSError: the file does not exist (TF's message).
      ValueError: the file is neither form of a ``MetaGraphDef``.
    """
    from google.protobuf import message, text_format

    from jtrain.protos import meta_graph_pb2

    path = os.fspath(filename)
    if not os.path.exists(path):
        raise OSError(f"File {path} does not exist.")
    with open(path, "rb") as f:
        data = f.read()
    out = meta_graph_pb2.MetaGraphDef()
    try:
        out.ParseFromString(data)
        return out
    except message.DecodeError:
        pass
    try:
        text_format.Parse(data.decode("utf-8"), out)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise ValueError(f"Cannot parse file {path}: {e}.") from None
    return out


def import_meta_graph(
    meta_graph_or_file: Any,
    clear_devices: bool = False,
    import_scope: str | None = None,
    **kwargs: Any,
) -> Any:
    """``tf.compat.v1.train.import_meta_graph``: rebuilds a meta graph in the default graph.

    Args:
      meta_graph_or_file: a ``MetaGraphDef`` (jtrain's or TF's proto) or the path of
        a ``.meta`` file.
      clear_devices: drop the nodes' device names (default False).
      import_scope: a name scope prefixed to every imported name (default ``None``).
      **kwargs: TF's ``input_map`` (tensor names of the meta graph, ``"x:0"`` or
        ``"x"``, to tensors of the default graph that replace them; it must name
        exactly the meta graph's ``unbound_inputs`` when it has some),
        ``return_elements`` (imported, not returned, as TF), ``graph`` (import there
        instead of the default graph), ``unbound_inputs_col_name`` and
        ``restore_collections_predicate`` (a collection ``key`` is restored when it
        gives True).

    Returns:
      A ``Saver`` built from the meta graph's ``SaverDef`` (over the imported
      global variables), or ``None`` when it has none and no variables, as TF.

    Raises:
      ValueError: a node's input names no imported node, the meta graph has unbound
        inputs that ``input_map`` does not give, or ``input_map`` names a tensor the
        graph does not have (TF's messages).
      TypeError: an unknown keyword argument.
    """

    input_map = kwargs.pop("input_map", None)
    return_elements = kwargs.pop("return_elements", None)
    unbound_col = kwargs.pop("unbound_inputs_col_name", "unbound_inputs")
    restore = kwargs.pop("restore_collections_predicate", None)
    graph = kwargs.pop("graph", None) or ops.get_default_graph()
    if kwargs:
        raise TypeError(
            f"import_meta_graph() got an unexpected keyword argument {next(iter(kwargs))!r}"
        )
    with graph.as_default():
        return _import_meta_graph(
            meta_graph_or_file,
            clear_devices,
            import_scope,
            input_map,
            return_elements,
            unbound_col,
            restore,
        )


def _import_meta_graph(
    meta_graph_or_file: Any,
    clear_devices: bool,
    import_scope: str | None,
    input_map: Any,
    return_elements: Any,
    unbound_col: str | None,
    restore: Any,
) -> Any:
    from jtrain.protos import meta_graph_pb2

    if isinstance(meta_graph_or_file, (str, os.PathLike)):
        meta = read_meta_graph_file(meta_graph_or_file)
    else:
        meta = meta_graph_pb2.MetaGraphDef.FromString(meta_graph_or_file.SerializeToString())
    if unbound_col and unbound_col in meta.collection_def:
        entry = meta.collection_def[unbound_col]
        kind = entry.WhichOneof("kind")
        names = [v.decode() if isinstance(v, bytes) else str(v) for v in getattr(entry, kind).value]
        if names and (not input_map or sorted(names) != sorted(input_map)):
            # TF lists every unbound input (its check compares bytes with str keys).
            raise ValueError(
                f"Graph contains unbound inputs: {','.join(names)}. Must provide these "
                "inputs through input_map."
            )
    graph = ops.get_default_graph()
    importer = _Importer(graph, import_scope, clear_devices, input_map)
    importer.build(meta.graph_def.node)
    importer.collections(meta.collection_def, skip=unbound_col, restore=restore)
    if return_elements:
        importer.return_elements(return_elements)
    from adapters.v1.ops.variables import global_variables
    from adapters.v1.training.saver import Saver

    prefix = importer.prefix
    # Checkpoint keys are the names without the import scope.
    var_list = {
        v.op.name[len(prefix) :]: v for v in global_variables() if v.op.name.startswith(prefix)
    }
    if meta.HasField("saver_def"):
        return Saver(var_list=var_list or None, saver_def=meta.saver_def, allow_empty=True)
    if var_list:
        return Saver(var_list=var_list)
    _log.info("Saver not created because there are no variables in the graph to restore")
    return None


def import_graph_def(
    graph_def: Any,
    input_map: dict[str, Any] | None = None,
    return_elements: Any = None,
    name: str | None = None,
    op_dict: Any = None,
    producer_op_list: Any = None,
) -> Any:
    """``tf.import_graph_def``: adds a ``GraphDef``'s nodes to the default graph.

    The nodes are built as ``import_meta_graph`` builds them (see the module
    docstring): a jtrain ``GraphDef`` taken from a meta graph (whose nodes carry
    ``_jtrain_fn``) runs; ``Graph.as_graph_def()`` alone does not carry the
    computation, so its ``JaxFunction``/``Gradients``/``ApplyGradients`` nodes,
    like any op type jtrain cannot run, raise ``UnimplementedError`` when run.
    Variables become variables (in no collection, as TF).

    Args:
      graph_def: a ``GraphDef`` (jtrain's or TF's proto).
      input_map: tensor names of ``graph_def`` (``"x:0"``, or ``"x"`` for output 0)
        to tensors of the default graph that replace them (default ``None``).
      return_elements: names of operations (``"op"``) and tensors (``"op:0"``) of
        ``graph_def`` to return (default ``None``).
      name: the name scope of the imported nodes (default ``None``: ``"import"``,
        made unique; ``""``: none).
      op_dict: ignored (deprecated in TF too).
      producer_op_list: ignored (TF uses it to drop attributes its op
        definitions lack; jtrain reads the attributes it knows).

    Returns:
      The operations and tensors named by ``return_elements``, in order, or
      ``None`` without it.

    Raises:
      TypeError: ``graph_def`` is not a ``GraphDef``.
      ValueError: an ``input_map`` or ``return_elements`` name the graph does not
        have, or an ``input_map`` value of another dtype than the tensor it replaces.
    """
    del op_dict, producer_op_list
    if not hasattr(graph_def, "node") or not hasattr(graph_def, "SerializeToString"):
        raise TypeError(f"graph_def must be a GraphDef proto, got {type(graph_def).__name__}.")
    graph = ops.get_default_graph()
    if input_map is not None:
        if not isinstance(input_map, dict) or not all(isinstance(k, str) for k in input_map):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
        if any(not isinstance(v, ops.Tensor) for v in input_map.values()):
            if not name and name is not None:
                raise ValueError(
                    "tf.import_graph_def() requires a non-empty `name` if `input_map` contains "
                    "non-Tensor values. Try calling tf.convert_to_tensor() on `input_map` values "
                    "before calling tf.import_graph_def()."
                )
            input_map = {k: ops.convert_to_tensor(v) for k, v in input_map.items()}
    if return_elements is not None and any(not isinstance(r, str) for r in return_elements):
        raise TypeError("return_elements must be a list of strings.")
    scope = ""
    if name != "":
        with graph.name_scope(name or "import") as scoped:
            scope = scoped.rstrip("/")
    importer = _Importer(graph, scope or None, False, input_map)
    importer.build(graph_def.node)
    if return_elements is None:
        return None
    return importer.return_elements(return_elements)


class _Importer:
    """Builds the operations of ``NodeDef``s into a graph (see the module docstring)."""

    def __init__(self, graph: Any, scope: str | None, clear_devices: bool, input_map: Any = None):
        self.graph = graph
        self.prefix = f"{scope}/" if scope else ""
        self.clear_devices = clear_devices
        # Tensor names ("op:i"; "^op" for control inputs) -> what replaces them.
        self.input_map = {
            (k if ":" in k or k.startswith("^") else k + ":0"): v
            for k, v in (input_map or {}).items()
        }
        self.mapped: set[str] = set()
        self.ops: dict[str, Any] = {}  # node name (unprefixed) -> Operation
        self.variables: dict[str, Any] = {}  # variable node name -> Variable
        self.unsupported: dict[str, str] = {}  # node name -> op type

    def build(self, nodes: Any) -> None:
        nodes = _topological(list(nodes))
        self.variable_nodes = {n.name for n in nodes if n.op in _VARIABLE_OPS}
        self.generators = {n.name for n in nodes if n.op == "RandomGenerator"}
        types = sorted({n.op for n in nodes if not self._runnable(n)})
        self.unsupported_types = types
        # (a user's gradient's stand-in for its incoming gradient never runs, in the
        # exported graph either: tf.custom_gradient, tf.nn.swish)
        warned = [t for t in types if t != "GradientInput"]
        if warned:
            _log.warning(
                "import_meta_graph: nodes of these op types cannot run in jtrain: %s",
                ", ".join(warned),
            )
        # How many outputs each node has at least (the highest index its consumers use).
        self.n_outputs: dict[str, int] = {}
        # Who reads each tensor ("op:i" -> (NodeDef, data input position)).
        self.readers: dict[str, list[tuple[Any, int]]] = {}
        for node in nodes:
            data = [name for name in node.input if not name.startswith("^")]
            for position, name in enumerate(data):
                op_name, _, index = name.partition(":")
                count = self.n_outputs.get(op_name, 0)
                self.n_outputs[op_name] = max(count, int(index or 0) + 1)
                self.readers.setdefault(f"{op_name}:{index or 0}", []).append((node, position))
        for node in nodes:
            self._build(node)
            self._check_mapped(node)
        unused = sorted(set(self.input_map) - self.mapped)
        if unused:
            raise ValueError(
                f"Attempted to map inputs that were not found in graph_def: [{', '.join(unused)}]"
            )

    def _check_mapped(self, node: Any) -> None:
        """Marks ``input_map`` keys naming ``node``'s outputs; checks their dtypes (TF)."""
        op = self.ops[node.name]
        for i, t in enumerate(op.outputs):
            key = f"{node.name}:{i}"
            if key not in self.input_map:
                continue
            self.mapped.add(key)
            new = self.input_map[key]
            if t.dtype is not None and new.dtype is not None and t.dtype != new.dtype:
                raise ValueError(
                    f"Input 0 of node {op.name} was passed {new.dtype.name} from {new.name} "
                    f"incompatible with expected {t.dtype.name}."
                )
        if "^" + node.name in self.input_map:
            self.mapped.add("^" + node.name)

    def return_elements(self, names: Any) -> list[Any]:
        """The imported operations and tensors named by ``names`` (TF's ``return_elements``)."""
        out = []
        for name in names:
            op_name = name.partition(":")[0]
            if op_name not in self.ops:
                what = "tensor" if ":" in name else "operation"
                raise ValueError(
                    f"Requested return_element {name!r} not found in graph_def "
                    f"(no {what} of that name)."
                )
            out.append(self._element(name))
        return out

    def _unexported_random(self, node: Any) -> bool:
        """A jtrain random op (it takes a ``RandomGenerator``'s key) whose sample
        function did not travel (``jax.export`` could not serialize it)."""
        return "_jtrain_fn" not in node.attr and any(
            name.partition(":")[0] in self.generators
            for name in node.input
            if not name.startswith("^")
        )

    def _runnable(self, node: Any) -> bool:
        if self._unexported_random(node):
            return False
        return (
            _host_builder(node) is not None
            or ("_jtrain_fn" in node.attr and self._known_state(node))
            or "_jtrain_call" in node.attr
            or (node.op in _NATIVE and (node.op != "Const" or "value" in node.attr))
            or node.op in _VARIABLE_OPS
            or node.op in _TF_NATIVE
            or node.op in graph_kernels.KERNELS
            or _table_entry(node) is not None
        )

    def _tensor(self, name: str, mapped: bool = True) -> Any:
        op_name, _, index = name.partition(":")
        key = f"{op_name}:{index or 0}"
        if mapped and key in self.input_map:
            self.mapped.add(key)
            return self.input_map[key]
        if op_name not in self.ops:
            raise ValueError(f"Input {name!r} names no node of the imported graph")
        return self.ops[op_name].outputs[int(index or 0)]

    def _split(self, node: Any) -> tuple[list[str], list[Any]]:
        data, controls = [], []
        for name in node.input:
            if name in self.input_map:
                self.mapped.add(name)
                value = self.input_map[name]
                controls.append(value.op if isinstance(value, ops.Tensor) else value)
            elif name.startswith("^"):
                controls.append(self.ops[name[1:]])
            else:
                data.append(name)
        return data, controls

    def _create(self, node: Any, inputs, controls, compute, specs, host=None) -> Any:
        op = self.graph.create_op(
            node.op,
            self.prefix + node.name,
            inputs=inputs,
            compute=compute,
            output_specs=specs,
            control_inputs=controls,
            exact_name=True,
            host=host,
        )
        if not self.clear_devices:
            op._device = node.device
        if "_class" in node.attr:  # colocation groups, moved into the import scope as TF's
            prefix = self.prefix.encode()
            op._class = [
                b"loc:@" + prefix + g[5:] if g.startswith(b"loc:@") else g
                for g in node.attr["_class"].list.s
            ]
        if "_gradient_op_type" in node.attr:  # a gradient_override_map's name, as TF keeps it
            op._gradient_op_type = node.attr["_gradient_op_type"].s.decode()
        self.ops[node.name] = op
        return op

    def _build(self, node: Any) -> None:
        data, controls = self._split(node)
        attr = node.attr
        if node.op == "Placeholder":
            specs = [(_shape(attr["shape"].shape), _dtype(attr["dtype"].type))]
            self._create(node, [], controls, None, specs)
        elif node.op == "Const" and "value" in attr:
            value = graph_def_lib.tensor_value(attr["value"].tensor)
            op = self._create(node, [], controls, _constant(value), [(value.shape, value.dtype)])
            if value.dtype.kind in "OSU":
                op._host_value = value
            else:
                op._const_value = value
        elif node.op in _VARIABLE_OPS:
            from adapters.v1.ops.variables import _imported_variable

            shape = _shape(attr["shape"].shape)
            dtype = _dtype(attr["dtype"].type)
            box: list[Any] = []

            def read(ctx: Any) -> tuple[Any, ...]:
                return (ctx.read(box[0]),)

            # A reference variable's ``name:0`` reads it (as TF's and a jtrain
            # variable's do: ``sess.run("w:0")``); a resource handle has no value.
            ref = node.op == "VariableV2"
            specs = [(tuple(int(d) for d in shape), dtype)] if ref else []
            op = self._create(node, [], controls, read if ref else None, specs)
            var = _imported_variable(op, dtype, shape, trainable=False)
            var._resource = node.op == "VarHandleOp"
            if ref:
                box.append(var)
                op._reads = (var,)
                op._read_of = var
            self.variables[node.name] = var
        elif node.op == "NoOp":
            self._create(node, [], controls, None, [])
        elif _host_builder(node) is not None:
            _host_builder(node)(self, node, data, controls)
        elif self._unexported_random(node):
            self._build_unsupported(node, data, controls, _RANDOM_INSTEAD)
        elif "_jtrain_fn" in attr and self._known_state(node):
            self._build_exported(node, data, controls)
        elif "_jtrain_call" in attr:
            self._build_call(node, data, controls)
        elif node.op in _TF_NATIVE:
            _TF_NATIVE[node.op](self, node, data, controls)
        elif node.op in graph_kernels.KERNELS:
            self._build_kernel(node, data, controls)
        elif _table_entry(node) is not None:
            try:
                self._build_table_op(node, data, controls)
            except Exception as e:  # noqa: BLE001 - e.g. an input of an unsupported node
                _log.info("import_meta_graph: %s (%s) cannot run: %s", node.name, node.op, e)
                self.unsupported_types = sorted({*self.unsupported_types, node.op})
                self._build_unsupported(node, data, controls)
        else:
            self._build_unsupported(node, data, controls)

    def _known_state(self, node: Any) -> bool:
        """Whether every variable the exported function reads or writes was imported."""
        names = [*node.attr["_jtrain_reads"].list.s, *node.attr["_jtrain_writes"].list.s]
        return all(n.decode() in self.variable_nodes for n in names)

    def _build_exported(self, node: Any, data: list[str], controls: list[Any]) -> None:
        from jax import export

        attr = node.attr
        exported = export.deserialize(bytearray(attr["_jtrain_fn"].s))
        reads = [self.variables[n.decode()] for n in attr["_jtrain_reads"].list.s]
        writes = [self.variables[n.decode()] for n in attr["_jtrain_writes"].list.s]
        inputs = [self._tensor(n) for n in data if n.partition(":")[0] not in self.variables]
        memo = [self._tensor(n.decode()) for n in attr["_jtrain_memo"].list.s]
        n_in = len(inputs)
        checked = attr["_jtrain_checked"].b if "_jtrain_checked" in attr else False
        created: list[Any] = []  # the op, once created (its checks name it)

        def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
            read_vals = tuple(ctx.read(v) for v in reads)
            result = exported.call(read_vals, tuple(values[n_in:]), *values[:n_in])
            outs, written = result[0], result[1]
            if checked:
                runtime_checks.check(ctx, created[0], ~result[2])
            for v, value in zip(writes, written, strict=True):
                ctx.write(v, value)
            return tuple(outs)

        out_avals = exported.out_avals[: len(exported.out_avals) - len(writes) - checked]
        if node.op in _SHAPE_OF and n_in == 1 and not memo and not reads and not writes:
            # tf.shape/size/rank read their input's shape: computed from it, not by the
            # exported function (whose output is a traced value), so that a shape
            # computed from them (``tf.reshape(x, [tf.shape(x)[0], -1])``) is known
            # when the step is compiled, as in the graph that was exported.
            compute = _shape_of(_SHAPE_OF[node.op], out_avals[0].dtype, compute)
        shapes = _output_shapes(node, len(out_avals))
        if self.input_map:  # as TF, shapes follow the mapped inputs' static shapes
            shapes = _inferred_shapes(exported, reads, inputs + memo, n_in) or shapes
        specs = [
            (shape if shape is not None else None, aval.dtype)
            for shape, aval in zip(shapes, out_avals, strict=True)
        ]
        op = self._create(node, inputs + memo, controls, compute, specs)
        op._reads = tuple(reads)
        op._writes = tuple(writes)
        if checked:
            created.append(op)
            runtime_checks.mark(op, functools.partial(_imported_check_failed, op))
        self._link_variable(node, op, reads, writes, inputs)

    def _build_call(self, node: Any, data: list[str], controls: list[Any]) -> None:
        """A jtrain node of the op table whose arguments computed in the graph are
        its last inputs (``_table_call_json``), rebuilt through the table."""
        import json

        from adapters.v1.framework import op_def, shape_values

        fields = json.loads(node.attr["_jtrain_call"].s, object_hook=op_def.from_json)
        call = op_def.TableCall(
            fields["name"], fields["attrs"], fields["layout"], tuple(fields["deferred"])
        )
        inputs = [self._tensor(n) for n in data]
        _, compute, specs, attach = op_def.rebuilt_node(call, inputs, self.prefix + node.name)
        for t in inputs[len(inputs) - len(call.deferred) :]:
            # the integer placeholders read (``n`` in ``tf.ones([n, 3])``): shape feeds
            shape_values.known_when_traced(t)
        attach(self._create(node, inputs, controls, compute, specs))

    def _link_variable(self, node: Any, op: Any, reads, writes, inputs) -> None:
        """Sets a variable's snapshot (its ``read``) and initializer (its ``Assign``)."""
        if node.op == "Identity" and len(reads) == 1 and not writes and not inputs:
            var = reads[0]
            op._read_of = var
            if var._snapshot is None and node.name.endswith("/read"):
                var._snapshot = op.outputs[0]
        if node.op == "Assign" and len(writes) == 1 and len(inputs) == 1:
            var = writes[0]
            op._assigns = ("set", inputs[0])
            if var._initializer_op is None:
                var._initializer_op = op.outputs[0]
                var._initial_value = inputs[0]

    def _build_kernel(self, node: Any, data: list[str], controls: list[Any]) -> None:
        """A node run by ``graph_kernels`` (TF's graph-only op types)."""
        kernel = graph_kernels.KERNELS[node.op]
        attrs = {k: _attr_python(v) for k, v in node.attr.items() if not k.startswith("_")}
        if node.op == "AddN":  # grappler sorts an AddN's inputs by name before it runs
            attrs["_sorted"] = tuple(sorted(range(len(data)), key=lambda i: data[i]))
        refs = [self.variables[n.partition(":")[0]] for n in data[: kernel.refs]]
        inputs = [self._tensor(n) for n in data[kernel.refs :]]
        in_dtypes = [v._dtype.dtype for v in refs] + [t._np_dtype for t in inputs]
        out_dtypes = kernel.dtypes(attrs, in_dtypes)
        shapes = _output_shapes(node, len(out_dtypes))
        state = _philox_state(attrs) if kernel.random else None
        # Outputs whose sizes depend on the first input's values: computed before the
        # step (``data_sizes``), unless every reader ignores their length.
        sized, created = None, []
        if kernel.sized is not None and not (
            kernel.unsized is not None
            and kernel.unsized(lambda t: self.readers.get(t, []), node.name)
        ):
            sized = data_sizes.Sized(0, functools.partial(kernel.sized, attrs))

        static = {i % len(inputs) for i in kernel.static} if inputs else set()
        if kernel.all_static:
            static = set(range(len(inputs)))
        if state is not None:  # a random op's shape may be fed (one program per value)
            from adapters.v1.framework import shape_values

            for i in static:
                shape_values.known_when_traced(inputs[i])

        def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
            if static:
                from adapters.v1.framework.shape_values import trace_time_value

                values = tuple(
                    trace_time_value(ctx, inputs[i]) if i in static else v
                    for i, v in enumerate(values)
                )
            if kernel.effect == "initialized":
                args = tuple(np.bool_(ctx.is_initialized(v)) for v in refs) + values
            elif kernel.effect == "assign":  # (the variable's shape and dtype only)
                args = tuple(_abstract(v) for v in refs) + values
            else:
                args = tuple(ctx.read(v) for v in refs) + values
            if state is not None:
                from adapters.v1.ops.random_ops import philox_run

                args = (functools.partial(philox_run, ctx, state), *args)
            if kernel.sized is None:
                outs = tuple(kernel.fn(attrs, *args))
            else:
                sizes = None
                if sized is not None:
                    sizes = data_sizes.sizes_for(created[0], values[0], sized.count)
                outs = tuple(kernel.fn(attrs, *args, sizes=sizes))
            if kernel.effect in ("write", "assign"):
                for var, new in zip(refs, outs, strict=False):
                    ctx.write(var, new)
            return outs[: len(out_dtypes)]

        op = self._create(
            node, inputs, controls, compute, list(zip(shapes, out_dtypes, strict=True))
        )
        if sized is not None:
            created.append(op)
            op._sized = sized
        if refs and kernel.effect in ("read", "write"):
            op._reads = tuple(refs)
        if refs and kernel.effect in ("write", "assign"):
            op._writes = tuple(refs)
        if state is not None:
            from adapters.v1.ops import random_ops

            op._writes = (state,)
            state.op = op
            if node.op == "RandomUniformInt":
                random_ops.mark_range_check(op)

    def _build_table_op(self, node: Any, data: list[str], controls: list[Any]) -> None:
        entry = _table_entry(node)
        inputs = [self._tensor(n) for n in data]
        params = {}
        for p in entry.signature.parameters.values():
            if p.name in entry.tensors or p.name in (entry.name_param, entry.collection_param):
                continue
            if p.name in node.attr:
                params[p.name] = _attr_python(node.attr[p.name])

        def call(*values: Any) -> Any:
            import inspect

            arguments = dict(zip(entry.tensors, values, strict=False))
            arguments.update(params)
            order = [
                n
                for n in entry.signature.parameters
                if n not in (entry.name_param, entry.collection_param)
            ]
            bound = [
                arguments.get(n, entry.signature.parameters[n].default)
                for n in order
                if n in arguments
                or entry.signature.parameters[n].default is not inspect.Parameter.empty
            ]
            return entry.impl(*bound)

        def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
            import jax

            return tuple(jax.tree.leaves(call(*values)))

        from adapters.v1.ops.script_ops import _output_specs

        with _x64.exact():
            _, specs = _output_specs(call, inputs, node.name)
        self._create(node, inputs, controls, compute, specs)

    def _build_unsupported(
        self, node: Any, data: list[str], controls: list[Any], instead: str | None = None
    ) -> None:
        inputs = [self._tensor(n) for n in data if n.partition(":")[0] not in self.variables]
        # (host values such as strings never reach a device computation: left out, so
        # running the node raises its error.)
        inputs = [t for t in inputs if t._np_dtype is None or t._np_dtype.kind not in "OSU"]
        types = ", ".join(self.unsupported_types)
        name, op_type = self.prefix + node.name, node.op
        instead = (
            instead
            or _INSTEAD.get(op_type)
            or graph_kernels.INSTEAD.get(op_type, "rebuild this part of the graph in Python")
        )

        def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
            raise errors.UnimplementedError(
                None,
                None,
                f"Node {name!r} of op type {op_type} was imported from a meta graph but "
                f"jtrain's op library has no implementation of it (unsupported op types in "
                f"this import: {types}); {instead}.",
            )

        shapes = _output_shapes(node, None)
        shapes += [None] * (self.n_outputs.get(node.name, 0) - len(shapes))
        dtype = next(
            (dtypes.as_dtype(node.attr[k].type) for k in _TYPE_ATTRS if k in node.attr), None
        )
        specs = [(s, dtype) for s in shapes]
        self._create(node, inputs, controls, compute, specs)
        self.unsupported[node.name] = node.op

    def collections(self, collection_defs: Any, skip: str | None = None, restore=None) -> None:
        """Adds the meta graph's collections to the graph (variables as ``Variable``s);
        ``skip`` names one left out (the unbound inputs), and so does ``restore(key)``
        being false (TF's ``restore_collections_predicate``)."""
        from jtrain.protos import variable_pb2

        for key in sorted(collection_defs):
            if key == skip or (restore is not None and not restore(key)):
                continue
            entry = collection_defs[key]
            kind = entry.WhichOneof("kind")
            if kind == "node_list":
                for name in entry.node_list.value:
                    self.graph.add_to_collection(key, self._element(name))
            elif kind == "bytes_list" and key in _VARIABLE_COLLECTIONS:
                for raw in entry.bytes_list.value:
                    self.graph.add_to_collection(
                        key, self._variable(variable_pb2.VariableDef.FromString(raw))
                    )
            elif kind == "bytes_list" and key == "queue_runners":
                self._queue_runners(key, entry.bytes_list.value)
            elif kind == "bytes_list" and key in (
                "savers",
                "cond_context",
                "while_context",
            ):
                _log.info("import_meta_graph: collection %r is not imported", key)
            elif kind == "bytes_list":
                for raw in entry.bytes_list.value:
                    self.graph.add_to_collection(key, raw)
            elif kind == "int64_list":
                for i in entry.int64_list.value:
                    self.graph.add_to_collection(key, int(i))
            elif kind == "float_list":
                for f in entry.float_list.value:
                    self.graph.add_to_collection(key, float(f))
            elif kind == "any_list":
                for packed in entry.any_list.value:
                    item = any_pb2.Any()
                    item.CopyFrom(packed)
                    self.graph.add_to_collection(key, item)
        for var in self.graph.get_collection("trainable_variables"):
            var._trainable = True

    def _queue_runners(self, key: str, values: Any) -> None:
        """Rebuilds the ``QueueRunner``s of ``QueueRunnerDef``s whose queue was rebuilt."""
        from adapters.v1.training.queue_runner_impl import QueueRunner
        from jtrain.protos import queue_runner_pb2

        for raw in values:
            proto = queue_runner_pb2.QueueRunnerDef.FromString(raw)
            queue = self.ops.get(proto.queue_name)
            if queue is None or getattr(queue, "_queue", None) is None:
                _log.warning(
                    "import_meta_graph: the queue runner of %r is not imported (its queue "
                    "cannot run in jtrain)",
                    proto.queue_name,
                )
                continue
            runner = QueueRunner.from_proto(proto, import_scope=self.prefix.rstrip("/") or None)
            self.graph.add_to_collection(key, runner)

    def _element(self, name: str) -> Any:
        if ":" in name:
            return self._tensor(name, mapped=False)
        return self.ops[name]

    def _variable(self, proto: Any) -> Any:
        """The imported variable of a ``VariableDef`` (its snapshot and initializer set)."""
        op_name = proto.variable_name.partition(":")[0]
        var = self.variables[op_name]
        if proto.snapshot_name and proto.snapshot_name.partition(":")[0] in self.ops:
            var._snapshot = self._tensor(proto.snapshot_name)
        if proto.initializer_name in self.ops:
            init = self.ops[proto.initializer_name]
            var._initializer_op = init.outputs[0] if init.outputs else _OpHolder(init)
        if proto.initial_value_name and proto.initial_value_name.partition(":")[0] in self.ops:
            var._initial_value = self._tensor(proto.initial_value_name)
        return var


class _OpHolder:
    """Stands for an initializer's output where its op has none (``.op`` only)."""

    def __init__(self, op: Any):
        self.op = op


# Attributes naming a TF node's output dtype, in the order they are looked for.
_TYPE_ATTRS = ("dtype", "out_type", "DstT", "T")

_VARIABLE_COLLECTIONS = (
    "variables",
    "trainable_variables",
    "local_variables",
    "model_variables",
    "moving_average_variables",
    "metric_variables",
    "global_step",
    "concatenated_variables",
)


def _topological(nodes: list[Any]) -> list[Any]:
    """``nodes`` ordered so that every node follows its inputs (stable; TF's order kept)."""
    by_name = {n.name: n for n in nodes}
    out, state = [], {}
    for root in nodes:
        if root.name in state:
            continue
        stack = [(root, iter(root.input))]
        state[root.name] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[node.name] = 2
                out.append(node)
                continue
            dep = nxt.lstrip("^").partition(":")[0]
            if dep in by_name and dep not in state:
                state[dep] = 1
                stack.append((by_name[dep], iter(by_name[dep].input)))
    return out


def _inferred_shapes(exported: Any, reads: list[Any], tensors: list[Any], n_in: int) -> Any:
    """The output shapes of an exported function given its inputs' static shapes, or
    ``None`` when an input's shape is not fully known (or the shapes do not fit)."""
    import jax

    structs = []
    for t in tensors:
        if t._shape is None or any(d is None for d in t._shape) or t._np_dtype is None:
            return None
        structs.append(jax.ShapeDtypeStruct(t._shape, t._np_dtype))
    read_structs = tuple(jax.ShapeDtypeStruct(v._shape, v._dtype.dtype) for v in reads)
    try:
        with _x64.exact():
            outs, _ = jax.eval_shape(
                lambda r, m, *a: exported.call(r, m, *a),
                read_structs,
                tuple(structs[n_in:]),
                *structs[:n_in],
            )
    except Exception as e:  # noqa: BLE001 - keep the exported shapes
        _log.debug("import: shapes of %s not inferred: %s", exported.fun_name, e)
        return None
    return [tuple(o.shape) for o in outs]


def _constant(value: np.ndarray):
    def compute(ctx: Any) -> tuple[Any, ...]:
        return (value,)

    return compute


def _dtype(enum: int) -> Any:
    return dtypes.as_dtype(enum)


def _shape(proto: Any) -> Any:
    if proto.unknown_rank:
        return None
    return tuple(None if d.size < 0 else int(d.size) for d in proto.dim)


# The shape-reading op types an exported node may be, and what each takes of its
# input's shape.
_SHAPE_OF = {"Shape": np.shape, "Size": np.size, "Rank": np.ndim}


def _shape_of(read: Any, dtype: Any, exported: Any) -> Any:
    """A node's compute giving ``read`` (``np.shape``...) of its one input as ``dtype``;
    ``exported`` (the node's exported function) where the shape is symbolic."""

    def compute(ctx: Any, value: Any) -> tuple[Any, ...]:
        if not all(isinstance(d, (int, np.integer)) for d in np.shape(value)):
            return exported(ctx, value)
        return (np.asarray(read(value), dtype),)

    return compute


def _output_shapes(node: Any, count: int | None) -> list[Any]:
    shapes = [_shape(s) for s in node.attr["_output_shapes"].list.shape]
    if count is None:
        return shapes
    return shapes if len(shapes) == count else [None] * count


def _attr_python(value: Any) -> Any:
    """A Python value of an ``AttrValue`` (``DataType``s as ``DType``)."""
    kind = value.WhichOneof("value")
    if kind == "type":
        return dtypes.as_dtype(value.type)
    if kind == "s":
        return value.s.decode()
    if kind in ("i", "f", "b"):
        return getattr(value, kind)
    if kind == "list":
        for field in ("i", "f", "b", "s"):
            items = list(getattr(value.list, field))
            if items:
                return [v.decode() if isinstance(v, bytes) else v for v in items]
        return []
    if kind == "shape":
        return _shape(value.shape)
    return None


def _random_state(attrs: dict[str, Any]) -> Any:
    """A random node's generator state from TF's ``seed``/``seed2`` (both 0: unseeded)."""
    from adapters.v1.ops.random_ops import GeneratorState

    seeds = (attrs.get("seed") or 0, attrs.get("seed2") or 0)
    return GeneratorState((None, None) if seeds == (0, 0) else seeds)


def _philox_state(attrs: dict[str, Any]) -> Any:
    """An imported TF Philox node's state from its ``seed``/``seed2`` (both 0: unseeded)."""
    from adapters.v1.ops.random_ops import philox_state

    return philox_state(attrs.get("seed") or 0, attrs.get("seed2") or 0)


def _abstract(var: Any) -> Any:
    """A variable's shape and dtype, for a kernel that overwrites it without reading."""
    import jax

    return jax.ShapeDtypeStruct(var._shape, var._dtype.dtype)


def _table_entry(node: Any) -> Any:
    """The op table's entry implementing a TF node's op type with its inputs, if any.

    One whose tensor parameters match the node's data inputs one to one and whose
    other parameters are the node's attributes or have defaults.
    """
    import inspect

    from adapters.v1.framework.op_def import OPS

    n_inputs = sum(1 for i in node.input if not i.startswith("^"))
    for entry in dict.fromkeys(OPS.values()):
        if entry.op_type != node.op or entry.lists or len(entry.tensors) != n_inputs:
            continue
        ok = all(
            p.name in entry.tensors
            or p.name in (entry.name_param, entry.collection_param)
            or p.name in node.attr
            or p.default is not inspect.Parameter.empty
            for p in entry.signature.parameters.values()
        )
        if ok:
            return entry
    return None


def _tf_identity(imp: _Importer, node: Any, data: list[str], controls: list[Any]) -> None:
    """TF's ``Identity``: of a variable, its read; of a tensor, the tensor. One without
    an input is a jtrain loop body's parameter: it runs only inside its loop's node."""
    if not data:
        imp._build_unsupported(
            node, data, controls, "it is a tf.while_loop body's parameter, computed only "
            "inside the loop; fetch the loop's outputs",
        )  # fmt: skip
        return
    source = data[0].partition(":")[0]
    if source in imp.variables:
        var = imp.variables[source]

        def read(ctx: Any) -> tuple[Any, ...]:
            return (ctx.read(var),)

        op = imp._create(node, [], controls, read, [(var._shape, var._dtype)])
        op._reads = (var,)
        op._read_of = var
        if node.name == source + "/read":
            var._snapshot = op.outputs[0]
        return
    t = imp._tensor(data[0])
    imp._create(node, [t], controls, lambda ctx, x: (x,), [(t._shape, t.dtype)])


def _tf_assign(imp: _Importer, node: Any, data: list[str], controls: list[Any]) -> None:
    """TF's ``Assign``/``AssignAdd``/``AssignSub`` of a ref variable."""
    import jax.numpy as jnp

    var = imp.variables[data[0].partition(":")[0]]
    value = imp._tensor(data[1])
    kind = {"Assign": "set", "AssignAdd": "add", "AssignSub": "sub"}[node.op]

    def compute(ctx: Any, new: Any) -> tuple[Any, ...]:
        new = jnp.asarray(new, var._dtype.dtype)
        if kind == "add":
            new = ctx.read(var) + new
        elif kind == "sub":
            new = ctx.read(var) - new
        new = jnp.broadcast_to(new, var._shape)
        ctx.write(var, new)
        return (new,)

    op = imp._create(node, [value], controls, compute, [(var._shape, var._dtype)])
    op._writes = (var,)
    op._reads = (var,) if kind != "set" else ()
    op._assigns = (kind, value)
    if kind == "set" and node.name == var.op.name + "/Assign":
        var._initializer_op = op.outputs[0]
        var._initial_value = value


# -- host operations and random generators of a jtrain meta graph --------------------
# What to do instead of running op types that cannot travel in a meta graph.
_INSTEAD = {
    "PyFunc": "tf.py_func's Python function cannot travel in a meta graph: build the "
    "py_func again in Python (tf.py_func(func, inp, Tout)) and use its output instead",
}
_RANDOM_INSTEAD = (
    "its sampling function could not be serialized with jax.export when the meta graph "
    "was written (see the exporter's debug log): build this random op again in Python"
)
# String recipe entries kept as bytes (the others are text).
_BYTES_RECIPE = ("metadata",)


def _recipe(node: Any) -> dict[str, Any]:
    """A host op's ``_host_recipe`` from its node's ``_jtrain_host_*`` attributes."""
    out = {}
    for key, value in node.attr.items():
        if key.startswith("_jtrain_host_"):
            name = key[len("_jtrain_host_") :]
            out[name] = value.s if name in _BYTES_RECIPE else _attr_python(value)
    return out


def _build_generator(imp: _Importer, node: Any, data: list[str], controls: list[Any]) -> None:
    """A random op's ``RandomGenerator`` node: its state from ``seed``/``seed2``, so the
    imported op draws the sequence the exported one did. A generator with an input (a
    Philox op's run-time shape) reserves ``256`` calls per element of that shape."""
    from adapters.v1.framework import shape_values
    from adapters.v1.ops import random_ops

    attrs = {k: _attr_python(node.attr[k]) for k in ("seed", "seed2") if k in node.attr}
    state = _random_state(attrs)
    specs = [((2,), dtypes.uint32)]
    inputs = [imp._tensor(n) for n in data]
    calls = None
    if inputs:
        shape_values.known_when_traced(inputs[0])
        calls = random_ops.philox_calls(inputs[0], ())
    op = imp._create(node, inputs, controls, random_ops.generator_compute(state, calls), specs)
    random_ops.own_state(op, state)


def _build_philox(imp: _Importer, node: Any, data: list[str], controls: list[Any]) -> None:
    """A jtrain Philox op's sample node (``RandomUniform``... taking its generator's
    position): rebuilt from its ``_jtrain_philox`` recipe and TF's ``seed``/``seed2``."""
    import json

    from adapters.v1.framework import shape_values
    from adapters.v1.ops import random_ops

    recipe = json.loads(node.attr["_jtrain_philox"].s)
    attrs = {k: _attr_python(node.attr[k]) for k in ("seed", "seed2") if k in node.attr}
    seeds = (attrs.get("seed") or 0, attrs.get("seed2") or 0)
    inputs = [imp._tensor(n) for n in data]
    tensors = inputs[1:]
    if recipe["shape_input"] is not None:
        shape_values.known_when_traced(tensors[recipe["shape_input"]])
    dtype = dtypes.as_dtype(recipe["dtype"])
    draw = random_ops.philox_draw(node.op, dtype, recipe["form"])
    compute = random_ops.philox_compute(draw, seeds, recipe, tensors)
    shape = recipe["shape"]
    (static,) = _output_shapes(node, 1) if shape is None else [tuple(shape)]
    op = imp._create(node, inputs, controls, compute, [(static, dtype)])
    if np.dtype(dtype.dtype).kind in "iu":
        random_ops.mark_range_check(op)
    op._static_attrs = {k: _attr_python(node.attr[k]) for k in ("seed", "seed2", "_jtrain_philox")}


def _build_summary(imp: _Importer, node: Any, data: list[str], controls: list[Any]) -> None:
    """A jtrain summary op (its tag and parameters travel as ``_jtrain_host_*``)."""
    from adapters.v1 import summary

    recipe = _recipe(node)
    inputs = [imp._tensor(n) for n in data]
    compute = summary.host_compute(node.op, recipe)
    op = imp._create(node, inputs, controls, compute, [((), np.dtype(object))], host="post")
    op._host_recipe = recipe


def _build_merge_summary(imp: _Importer, node: Any, data: list[str], controls: list[Any]) -> None:
    """``MergeSummary`` (jtrain's or TF's: its inputs are serialized summaries)."""
    from adapters.v1 import summary

    inputs = [imp._tensor(n) for n in data]

    def compute(session: Any, *values: Any) -> tuple[bytes]:
        return (summary.merge_values(values, op),)

    op = imp._create(node, inputs, controls, compute, [((), np.dtype(object))], host="post")


_QUEUE_TYPES = ("FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2")


def _build_queue(imp: _Importer, node: Any, data: list[str], controls: list[Any]) -> None:
    """A jtrain queue's own node: the queue object rebuilt from its spec (each session
    holds its own elements, as for a queue built in Python)."""
    from adapters.v1.ops.data_flow_ops import QueueBase

    op = imp._create(node, [], controls, None, [], host="pre")
    QueueBase.rebuild(op, _recipe(node)["queue"])


def _build_queue_op(imp: _Importer, node: Any, data: list[str], controls: list[Any]) -> None:
    """An enqueue, dequeue, close, size or is-closed op of a rebuilt jtrain queue."""
    from adapters.v1.ops.data_flow_ops import placement

    recipe = _recipe(node)
    queue_node = recipe["queue"]
    if queue_node not in imp.ops or getattr(imp.ops[queue_node], "_queue", None) is None:
        imp._build_unsupported(node, data, controls, f"its queue {queue_node!r} was not imported")
        return
    queue = imp.ops[queue_node]._queue
    inputs = [imp._tensor(n) for n in data]
    kind, specs, host = node.op, [], "pre"
    if kind in ("QueueEnqueueV2", "QueueEnqueueManyV2"):
        compute = queue._enqueue_compute(recipe["many"], recipe["keep"])
        host = placement(inputs)
    elif kind.startswith("QueueDequeue"):
        n = None if recipe["n"] < 0 else recipe["n"]
        compute = queue._dequeue_compute(n, recipe["up_to"])
        specs = queue._dequeue_specs(n, recipe["up_to"])
    elif kind == "QueueCloseV2":
        compute = queue._close_compute(recipe["cancel"])
    elif kind == "QueueSizeV2":
        compute, specs = queue._size_compute(), [((), np.dtype(np.int32))]
    else:
        compute, specs = queue._is_closed_compute(), [((), np.dtype(bool))]
    op = imp._create(node, inputs, controls, compute, specs, host=host)
    op._host_recipe = recipe
    if kind == "QueueEnqueueV2" and not recipe["many"] and not recipe["keep"]:
        queue._add_batch_form(op)


_QUEUE_OP_TYPES = (
    "QueueEnqueueV2",
    "QueueEnqueueManyV2",
    "QueueDequeueV2",
    "QueueDequeueManyV2",
    "QueueDequeueUpToV2",
    "QueueCloseV2",
    "QueueSizeV2",
    "QueueIsClosedV2",
)


def _host_builder(node: Any) -> Any:
    """The builder of a node that runs on the host or owns random state, if any."""
    if node.op == "RandomGenerator":
        return _build_generator
    if "_jtrain_philox" in node.attr:
        return _build_philox
    if node.op == "MergeSummary":
        return _build_merge_summary
    if "_jtrain_host_queue" in node.attr:
        if node.op in _QUEUE_TYPES:
            return _build_queue
        if node.op in _QUEUE_OP_TYPES:
            return _build_queue_op
    if "_jtrain_host_tag" in node.attr:
        from adapters.v1 import summary

        if node.op in summary._SERIALIZERS:
            return _build_summary
    return None


_TF_NATIVE = {
    "Identity": _tf_identity,
    "Assign": _tf_assign,
    "AssignAdd": _tf_assign,
    "AssignSub": _tf_assign,
}
