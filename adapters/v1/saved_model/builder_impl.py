"""``tf.compat.v1.saved_model.Builder``: TF1 SavedModels written in TF's format.

An export directory holds ``saved_model.pb`` (a ``SavedModel`` proto, schema
version 1, one ``MetaGraphDef`` per tag set, each with its ``signature_def``s),
``variables/variables.index`` + ``variables/variables.data-00000-of-00001`` (the
variables' V2 checkpoint, written by ``tf.train.Saver``) and ``assets/`` when
assets are given. jtrain's meta graphs carry their computation (see
``framework/meta_graph.py``), so ``tf.saved_model.loader.load`` rebuilds them
without the Python code.

**For TensorFlow's loader**, each meta graph also gets TF's restore nodes (a
``RestoreV2`` op and one ``Assign`` per variable, grouped under
``<save scope>/restore_all``, with the matching ``SaveV2`` nodes) and its
``SaverDef`` names them, as the graph of TF's ``Saver`` would: TF's
``loader.load`` runs them to restore the variables. jtrain's own ``Saver`` adds no
nodes to the graph, so these exist only in the written ``GraphDef``. TF can import
the graph when every node has a TF op type (``Placeholder``, ``VariableV2``,
``MatMul``, ``Relu``...); a node of jtrain's own types (``JaxFunction``: a random
initializer or ``tf.jax_function``; ``Gradients``; ``ApplyGradients``) makes TF's
import fail with TF's ``NotFoundError`` ("Op type not registered").

**Files appear complete**: the variables are written into a temporary folder
inside the export directory and renamed to ``variables/`` when complete; each
asset and ``saved_model.pb`` is written under a temporary name beside it and
renamed. ``saved_model.pb`` is written last (by ``save()``), so a directory is a
SavedModel (``contains_saved_model``) only once everything is there. Nothing is
written outside the export directory.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework import graph_def as graph_def_lib
from adapters.v1.framework import meta_graph as meta_graph_lib
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.saved_model import constants

__all__ = ["SavedModelBuilder"]

_log = logging.getLogger(__name__)

# TF's type URL of an ``AssetFileDef`` packed in an ``Any`` (jtrain's proto package
# differs, the wire format does not): TF's loader unpacks only this name.
ASSET_FILE_DEF_TYPE_URL = "type.googleapis.com/tensorflow.AssetFileDef"


class SavedModelBuilder:
    """Builds a SavedModel (``tf.compat.v1.saved_model.builder.SavedModelBuilder``).

    The first meta graph is added with its variables
    (``add_meta_graph_and_variables``), later ones without
    (``add_meta_graph``); ``save()`` writes ``saved_model.pb``.

    Args:
      export_dir: the export directory; created if missing, and it must be empty.

    Raises:
      AssertionError: ``export_dir`` exists and is not empty (TF's message).
    """

    def __init__(self, export_dir: str | bytes | os.PathLike[str]):
        from jtrain.protos import saved_model_pb2

        self._saved_model = saved_model_pb2.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION
        )
        self._export_dir = os.fsdecode(os.fspath(export_dir))
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    f"Export directory {self._export_dir} already exists, and isn't empty. "
                    "Please choose a different export directory, or delete all the contents "
                    "of the specified directory."
                )
        else:
            os.makedirs(self._export_dir)
        self._has_saved_variables = False
        self._saved_asset_files: set[str] = set()

    # -- assets and collections -----------------------------------------------------
    def _save_and_write_assets(self, assets_collection_to_add: Any = None) -> None:
        """Adds the assets' ``AssetFileDef``s to the graph's ``saved_model_assets``
        collection and copies the files into ``assets/``."""
        filename_map = _maybe_save_assets(_add_asset_to_collection, assets_collection_to_add)
        if not filename_map:
            _log.info("No assets to write.")
            return
        copy_assets_to_destination_dir(filename_map, self._export_dir, self._saved_asset_files)

    def _maybe_add_main_op(self, main_op: Any) -> None:
        if main_op is None:
            return
        if not isinstance(main_op, ops.Operation):
            raise TypeError(
                f"Expected {main_op} to be an Operation but got type {type(main_op)} instead."
            )
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if ops.get_collection(key):
                raise ValueError(
                    f"Graph already contains one or more main ops under the collection {key}."
                )
        ops.add_to_collection(constants.MAIN_OP_KEY, main_op)

    def _add_collections(self, assets_collection: Any, main_op: Any) -> None:
        self._save_and_write_assets(assets_collection)
        self._maybe_add_main_op(main_op)

    # -- signatures -------------------------------------------------------------------
    def _validate_tensor_info(self, tensor_info: Any) -> None:
        if tensor_info is None:
            raise AssertionError(
                "All TensorInfo protos used in the SignatureDefs must have the name and "
                "dtype fields set."
            )
        if tensor_info.WhichOneof("encoding") is None:
            raise AssertionError(
                f"Invalid `tensor_info`: {tensor_info}. All TensorInfo protos used in the "
                "SignatureDefs must have one of the 'encoding' fields (e.g., name or "
                "coo_sparse) set."
            )
        if tensor_info.dtype == 0:
            raise AssertionError(
                f"Invalid `tensor_info`: {tensor_info}. All TensorInfo protos used in the "
                "SignatureDefs must have the dtype field set."
            )

    def _validate_signature_def_map(self, signature_def_map: Any) -> None:
        for key in signature_def_map:
            signature_def = signature_def_map[key]
            for name in signature_def.inputs:
                self._validate_tensor_info(signature_def.inputs[name])
            for name in signature_def.outputs:
                self._validate_tensor_info(signature_def.outputs[name])
        if constants.INIT_OP_SIGNATURE_KEY in signature_def_map:
            raise KeyError(
                f'SignatureDef map key "{constants.INIT_OP_SIGNATURE_KEY}" is reserved for '
                "initialization. Please use a different key."
            )
        if constants.TRAIN_OP_SIGNATURE_KEY in signature_def_map:
            raise KeyError(
                f'SignatureDef map key "{constants.TRAIN_OP_SIGNATURE_KEY}" is reserved for '
                "the train op. Please use a different key."
            )

    def _tag_and_add_meta_graph(self, meta_graph_def: Any, tags: Any, signature_def_map) -> None:
        for tag in tags:
            meta_graph_def.meta_info_def.tags.append(tag)
        for key in signature_def_map or {}:
            meta_graph_def.signature_def[key].ParseFromString(
                signature_def_map[key].SerializeToString()
            )
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    # -- meta graphs ------------------------------------------------------------------
    def _maybe_create_saver(self, saver: Any = None) -> Any:
        """``saver``, or a ``Saver`` of every global variable and saveable object."""
        if saver:
            return saver
        from adapters.v1.ops.variables import global_variables
        from adapters.v1.training.saver import Saver

        var_list = global_variables() + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS)
        return Saver(var_list, allow_empty=True)

    def _export(self, graph: Any, saver: Any, clear_devices: bool, strip_default_attrs: bool):
        """The graph's ``MetaGraphDef`` with ``saver``'s ``SaverDef`` and TF's restore nodes."""
        has_vars = bool(getattr(saver, "_vars", True))
        saver_def = saver.saver_def if has_vars else None
        meta = meta_graph_lib.export_meta_graph(
            saver_def=saver_def,
            graph=graph,
            clear_devices=clear_devices,
            strip_default_attrs=strip_default_attrs,
        )
        if saver_def is not None:
            add_tf_saver_nodes(meta, saver)
        return meta

    def add_meta_graph(
        self,
        tags: Any,
        signature_def_map: Any = None,
        assets_collection: Any = None,
        legacy_init_op: Any = None,
        clear_devices: bool = False,
        main_op: Any = None,
        strip_default_attrs: bool = False,
        saver: Any = None,
    ) -> None:
        """Adds the default graph as a further meta graph (its variables are not saved).

        Args:
          tags: the meta graph's tags (``[tf.saved_model.SERVING]``).
          signature_def_map: key -> ``SignatureDef`` (default ``None``).
          assets_collection: asset tensors (string ``Const`` scalars naming files),
            copied into ``assets/`` (default ``None``).
          legacy_init_op: the op run after the restore when ``main_op`` is ``None``
            (deprecated in TF; default ``None``).
          clear_devices: drop the nodes' device names (default False).
          main_op: the op run after the restore (default ``None``).
          strip_default_attrs: drop attributes holding TF's defaults (default False).
          saver: the ``Saver`` whose ``SaverDef`` the meta graph records (default: one
            of every global variable).

        Raises:
          AssertionError: ``add_meta_graph_and_variables`` was not called first, or a
            signature's ``TensorInfo`` lacks its name or dtype (TF's messages).
          KeyError: a reserved signature key (``__saved_model_init_op``...).
          TypeError: ``main_op`` is not an Operation, or an asset is not a string
            ``Const`` scalar.
          ValueError: the graph already has a main op.
        """
        if not self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has not been saved yet. Please "
                "invoke `add_meta_graph_and_variables()` first."
            )
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        main_op = main_op if main_op is not None else legacy_init_op
        graph = ops.get_default_graph()
        self._add_collections(assets_collection, main_op)
        saver = self._maybe_create_saver(saver)
        meta = self._export(graph, saver, clear_devices, strip_default_attrs)
        self._tag_and_add_meta_graph(meta, tags, signature_def_map)

    def add_meta_graph_and_variables(
        self,
        sess: Any,
        tags: Any,
        signature_def_map: Any = None,
        assets_collection: Any = None,
        legacy_init_op: Any = None,
        clear_devices: bool = False,
        main_op: Any = None,
        strip_default_attrs: bool = False,
        saver: Any = None,
    ) -> None:
        """Adds the session's graph as the first meta graph and saves its variables.

        Args:
          sess: the session whose variables are saved (its graph is exported).
          tags: the meta graph's tags (``[tf.saved_model.SERVING]``).
          signature_def_map: key -> ``SignatureDef`` (default ``None``).
          assets_collection: asset tensors (string ``Const`` scalars naming files),
            copied into ``assets/`` (default ``None``).
          legacy_init_op: the op run after the restore when ``main_op`` is not
            given (deprecated in TF; default ``None``).
          clear_devices: drop the nodes' device names (default False).
          main_op: the op run after the restore (default ``None``).
          strip_default_attrs: drop attributes holding TF's defaults (default False).
          saver: the ``Saver`` that saves the variables (default: one of every global
            variable and saveable object).

        Raises:
          AssertionError: called twice, or a signature's ``TensorInfo`` lacks its name
            or dtype (TF's messages).
          KeyError: a reserved signature key (``__saved_model_init_op``...).
          TypeError: ``main_op`` is not an Operation, or an asset is not a string
            ``Const`` scalar.
          ValueError: the graph already has a main op.
          FailedPreconditionError: a saved variable is not initialized.

        .. note:: TF exports the default graph; jtrain exports ``sess.graph`` (the
           same graph inside ``with tf.Session(graph=g) as sess:``).
        """
        if self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has already been saved. Please "
                "invoke `add_meta_graph()` instead."
            )
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        main_op = main_op or legacy_init_op
        graph = getattr(sess, "graph", None) or ops.get_default_graph()
        with graph.as_default():
            self._add_collections(assets_collection, main_op)
            saver = self._maybe_create_saver(saver)
            self._save_variables(sess, saver)
            meta = self._export(graph, saver, clear_devices, strip_default_attrs)
        self._tag_and_add_meta_graph(meta, tags, signature_def_map)
        self._has_saved_variables = True

    def _save_variables(self, sess: Any, saver: Any) -> None:
        """Writes the checkpoint into a temporary folder inside the export directory,
        renamed to ``variables/`` once complete."""
        final = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
        staging = f"{final}.tempstate{secrets.token_hex(8)}"
        os.makedirs(staging)
        try:
            saver.save(
                sess,
                os.path.join(staging, constants.VARIABLES_FILENAME),
                write_meta_graph=False,
                write_state=False,
            )
            if os.path.isdir(final) and not os.listdir(final):
                os.rmdir(final)
            os.rename(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def save(
        self,
        as_text: bool = False,
        experimental_image_format: bool = False,
        experimental_image_writer_options: Any = None,
    ) -> bytes:
        """Writes ``saved_model.pb`` (or ``saved_model.pbtxt``) atomically.

        Args:
          as_text: write protobuf text, ``saved_model.pbtxt`` (default False).
          experimental_image_format: TF's chunked format (default False; True raises
            ``RuntimeError`` as TF 2.21's pip package does).
          experimental_image_writer_options: ignored (TF's chunked format).

        Returns:
          The path written, as bytes (TF's return type).

        Raises:
          RuntimeError: ``experimental_image_format=True`` (TF's message).
        """
        from google.protobuf import text_format

        from jtrain.checkpoint import _fileio

        del experimental_image_writer_options
        os.makedirs(self._export_dir, exist_ok=True)
        if as_text:
            name = constants.SAVED_MODEL_FILENAME_PBTXT
            data = text_format.MessageToString(self._saved_model).encode()
        elif experimental_image_format:
            raise RuntimeError(
                "No proto_splitter is provided, cannot use experimental_image_format."
            )
        else:
            name = constants.SAVED_MODEL_FILENAME_PB
            data = self._saved_model.SerializeToString(deterministic=True)
        path = os.path.join(self._export_dir, name)
        _fileio.atomic_write(path, data)
        _log.info("SavedModel written to: %s", path)
        return os.fsencode(path)


Builder = SavedModelBuilder


# -- assets -------------------------------------------------------------------------
def _maybe_save_assets(write_fn: Any, assets_to_add: Any = None) -> dict[str, str]:
    """``{filename in assets/: source path}`` of the asset tensors, each recorded by
    ``write_fn(filename, tensor)``."""
    filename_map: dict[str, str] = {}
    if assets_to_add is None:
        _log.info("No assets to save.")
        return filename_map
    for asset_tensor in assets_to_add:
        source = _asset_path_from_tensor(asset_tensor)
        if not source:
            raise ValueError(f"Asset filepath tensor {asset_tensor} in is invalid.")
        filename = get_asset_filename_to_add(source, filename_map)
        write_fn(filename, asset_tensor)
        filename_map[filename] = source
    _log.info("Assets added to graph.")
    return filename_map


def get_asset_filename_to_add(asset_filepath: str, asset_filename_map: dict[str, str]) -> str:
    """The asset's name in ``assets/``: its basename, suffixed ``_1``, ``_2``... when
    another file of that basename with other contents is already there."""
    import filecmp

    filename = os.path.basename(asset_filepath)
    if filename not in asset_filename_map:
        return filename
    other = asset_filename_map[filename]
    if other == asset_filepath:
        return filename
    if not filecmp.cmp(asset_filepath, other, shallow=False):
        i = 1
        unique = filename
        while unique in asset_filename_map:
            unique = f"{filename}_{i}"
            i += 1
        return unique
    return filename


def _asset_path_from_tensor(path_tensor: Any) -> str:
    """The path held by a string ``Const`` scalar (TF's checks and messages)."""
    if not isinstance(path_tensor, ops.Tensor):
        raise TypeError(f"Asset path tensor {path_tensor} must be a Tensor.")
    if path_tensor.op.type != "Const":
        raise TypeError(
            f"Asset path tensor {path_tensor} must be of type constant."
            f"Has type {path_tensor.op.type} instead."
        )
    if path_tensor.dtype != dtypes.string:
        raise TypeError(
            f"Asset path tensor {path_tensor}` must be of dtype string."
            f"Has type {path_tensor.dtype} instead."
        )
    values = graph_def_lib.node_def(path_tensor.op).attr["value"].tensor.string_val
    if len(values) != 1:
        raise TypeError(f"Asset path tensor {path_tensor} must be a scalar.")
    return os.fsdecode(values[0])


def asset_file_def_any(filename: str, tensor_name: str) -> Any:
    """An ``AssetFileDef`` packed in an ``Any`` under TF's type URL."""
    from google.protobuf import any_pb2

    from jtrain.protos import meta_graph_pb2

    proto = meta_graph_pb2.AssetFileDef(filename=filename)
    proto.tensor_info.name = tensor_name
    return any_pb2.Any(type_url=ASSET_FILE_DEF_TYPE_URL, value=proto.SerializeToString())


def _add_asset_to_collection(asset_filename: str, asset_tensor: Any) -> None:
    ops.add_to_collection(
        constants.ASSETS_KEY, asset_file_def_any(asset_filename, asset_tensor.name)
    )


def copy_assets_to_destination_dir(
    asset_filename_map: dict[str, str], destination_dir: str, saved_files: set[str] | None = None
) -> None:
    """Copies each asset into ``destination_dir/assets/`` (atomically, once each)."""
    from jtrain.checkpoint import _fileio

    saved_files = set() if saved_files is None else saved_files
    assets_dir = os.path.join(destination_dir, constants.ASSETS_DIRECTORY)
    os.makedirs(assets_dir, exist_ok=True)
    for basename, source in asset_filename_map.items():
        dest = os.path.join(assets_dir, basename)
        if os.path.exists(source) and source != dest and dest not in saved_files:
            with open(source, "rb") as f:
                _fileio.atomic_write(dest, f.read())
            saved_files.add(dest)
    _log.info("Assets written to: %s", assets_dir)


# -- TF's restore nodes ---------------------------------------------------------------
def _scope_name(graph_def: Any) -> str:
    """``save``, or ``save_1``, ``save_2``... : the first name no node uses as its own
    or as its scope (TF's unique name scope of a new ``Saver``)."""
    names = {n.name for n in graph_def.node}
    scopes = {n.split("/", 1)[0] for n in names}
    scope, i = "save", 0
    while scope in names or scope in scopes:
        i += 1
        scope = f"save_{i}"
    return scope


def add_tf_saver_nodes(meta_graph_def: Any, saver: Any) -> None:
    """Adds the nodes of TF's (non-sharded, V2) ``Saver`` for ``saver``'s variables to
    ``meta_graph_def.graph_def`` and points its ``SaverDef`` at them.

    TF's ``loader.load`` restores a SavedModel by running ``SaverDef.restore_op_name``
    with the checkpoint prefix fed to ``filename_tensor_name``; jtrain's ``Saver``
    has no nodes, so these are written for TF: ``<scope>/filename/input``,
    ``<scope>/filename``, ``<scope>/Const`` (the prefix), ``<scope>/SaveV2`` and
    ``<scope>/control_dependency`` (the save tensor), ``<scope>/RestoreV2`` and one
    ``<scope>/Assign_<i>`` per variable (``AssignVariableOp`` for a resource
    variable), grouped by the ``NoOp`` ``<scope>/restore_all``.
    """
    from jtrain.protos import node_def_pb2

    graph_def = meta_graph_def.graph_def
    scope = _scope_name(graph_def)
    entries = []  # (checkpoint key, variable node name, dtype enum, slice spec, resource)
    by_name = {n.name: n for n in graph_def.node}
    for key in sorted(saver._vars):
        value = saver._vars[key]
        for var in value if isinstance(value, list) else [value]:
            info = var._save_slice_info
            node = by_name.get(var.op.name)
            resource = node is not None and node.op == "VarHandleOp"
            spec = info.spec if info is not None else ""
            entries.append(
                (key, var.op.name, var.dtype.base_dtype.as_datatype_enum, spec, resource)
            )

    def add(name: str, op: str, inputs=(), device: str = "", **attrs: Any) -> Any:
        node = node_def_pb2.NodeDef(name=f"{scope}/{name}", op=op, device=device)
        node.input.extend(inputs)
        for key, value in attrs.items():
            node.attr[key].CopyFrom(value)
        graph_def.node.append(node)
        return node

    def attr(value: Any) -> Any:
        return graph_def_lib.attr_value(value)

    def types(enums: list[int]) -> Any:
        out = graph_def_lib.attr_value([])
        out.list.type.extend(enums)
        return out

    string = dtypes.string
    scalar = TensorShape([])

    def strings(values: list[str]) -> Any:
        return attr(np.array([v.encode() for v in values], dtype=object))

    add("filename/input", "Const", dtype=attr(string), value=attr(np.array(b"model", object)))
    add(
        "filename",
        "PlaceholderWithDefault",
        [f"{scope}/filename/input"],
        dtype=attr(string),
        shape=attr(scalar),
    )
    add(
        "Const",
        "PlaceholderWithDefault",
        [f"{scope}/filename"],
        dtype=attr(string),
        shape=attr(scalar),
    )
    names = [e[0] for e in entries]
    specs = [e[3] for e in entries]
    enums = [e[2] for e in entries]
    add("SaveV2/tensor_names", "Const", dtype=attr(string), value=strings(names))
    add("SaveV2/shape_and_slices", "Const", dtype=attr(string), value=strings(specs))
    save_inputs = []
    for i, (_, var_name, enum, _, resource) in enumerate(entries):
        if resource:
            read = add(
                f"Read_{i}/ReadVariableOp" if i else "Read/ReadVariableOp",
                "ReadVariableOp",
                [var_name],
                dtype=_type(enum),
            )
            save_inputs.append(read.name)
        else:
            save_inputs.append(var_name)
    add(
        "SaveV2",
        "SaveV2",
        [f"{scope}/Const", f"{scope}/SaveV2/tensor_names", f"{scope}/SaveV2/shape_and_slices"]
        + save_inputs,
        dtypes=types(enums),
    )
    add(
        "control_dependency",
        "Identity",
        [f"{scope}/Const", f"^{scope}/SaveV2"],
        T=attr(string),
        _class=attr([f"loc:@{scope}/Const"]),
    )
    cpu = "/device:CPU:0"
    add("RestoreV2/tensor_names", "Const", device=cpu, dtype=attr(string), value=strings(names))
    add("RestoreV2/shape_and_slices", "Const", device=cpu, dtype=attr(string), value=strings(specs))
    add(
        "RestoreV2",
        "RestoreV2",
        [
            f"{scope}/Const",
            f"{scope}/RestoreV2/tensor_names",
            f"{scope}/RestoreV2/shape_and_slices",
        ],
        device=cpu,
        dtypes=types(enums),
    )
    assigns = []
    for i, (_, var_name, enum, _, resource) in enumerate(entries):
        restored = f"{scope}/RestoreV2" if i == 0 else f"{scope}/RestoreV2:{i}"
        suffix = f"_{i}" if i else ""
        if resource:
            node = add(
                f"AssignVariableOp{suffix}",
                "AssignVariableOp",
                [var_name, restored],
                dtype=_type(enum),
            )
        else:
            node = add(
                f"Assign{suffix}",
                "Assign",
                [var_name, restored],
                T=_type(enum),
                _class=attr([f"loc:@{var_name}"]),
                use_locking=attr(True),
                validate_shape=attr(True),
            )
        assigns.append(f"^{node.name}")
    add("restore_all", "NoOp", assigns)
    saver_def = meta_graph_def.saver_def
    saver_def.filename_tensor_name = f"{scope}/Const:0"
    saver_def.save_tensor_name = f"{scope}/control_dependency:0"
    saver_def.restore_op_name = f"{scope}/restore_all"


def _type(enum: int) -> Any:
    from jtrain.protos import attr_value_pb2

    return attr_value_pb2.AttrValue(type=enum)
