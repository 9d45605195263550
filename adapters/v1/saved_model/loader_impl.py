"""``tf.compat.v1.saved_model.loader.load``: a TF1 SavedModel into a session.

The meta graph of the requested tags is imported into ``sess.graph`` with
``tf.train.import_meta_graph`` (a jtrain meta graph from its serialized
computation; a TF-written one through the op library), its variables are
restored from ``variables/variables`` by the ``Saver`` of its ``SaverDef``, and
its init op (the ``__saved_model_init_op`` signature, else the
``saved_model_main_op`` or ``legacy_init_op`` collection) is run with the asset
tensors fed their paths under ``assets/``, as TF's loader does.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from adapters.v1.framework import ops
from adapters.v1.framework.meta_graph import import_meta_graph
from adapters.v1.saved_model import constants
from adapters.v1.saved_model import signature_def_utils_impl as signature_def_utils

__all__ = [
    "SavedModelLoader",
    "contains_saved_model",
    "load",
    "maybe_saved_model_directory",
    "parse_saved_model",
]

_log = logging.getLogger(__name__)


def parse_saved_model(export_dir: Any) -> Any:
    """The ``SavedModel`` proto of ``export_dir`` (``saved_model.pb``, else
    ``saved_model.pbtxt``).

    Raises:
      OSError: neither file exists, or it does not parse (TF's ``IOError`` messages).
      NotImplementedError: only TF's chunked ``saved_model.cpb`` is there.
    """
    from google.protobuf import message, text_format

    from jtrain.protos import saved_model_pb2

    export_dir = os.fsdecode(os.fspath(export_dir))
    path_pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    path_pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    path_cpb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_CPB)
    out = saved_model_pb2.SavedModel()
    if os.path.exists(path_pb):
        with open(path_pb, "rb") as f:
            data = f.read()
        try:
            out.ParseFromString(data)
        except message.DecodeError as e:
            raise OSError(f"Cannot parse file {path_pb}: {e}.") from e
    elif os.path.exists(path_pbtxt):
        with open(path_pbtxt, "rb") as f:
            data = f.read()
        try:
            text_format.Parse(data.decode("utf-8"), out)
        except text_format.ParseError as e:
            raise OSError(f"Cannot parse file {path_pbtxt}: {e}.") from e
    elif os.path.exists(path_cpb):
        raise NotImplementedError(
            f"{path_cpb} is TF's chunked SavedModel format (experimental_image_format), which "
            "jtrain does not read: write the SavedModel without experimental_image_format"
        )
    else:
        raise OSError(
            f"SavedModel file does not exist at: {export_dir}{os.path.sep}"
            f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}"
        )
    return out


def maybe_saved_model_directory(export_dir: Any) -> bool:
    """Whether ``export_dir`` holds a SavedModel file (``saved_model.pb``, ``.pbtxt``
    or ``.cpb``); it may still not load
    (``tf.compat.v1.saved_model.maybe_saved_model_directory``)."""
    export_dir = os.fsdecode(os.fspath(export_dir))
    return any(
        os.path.exists(os.path.join(export_dir, name))
        for name in (
            constants.SAVED_MODEL_FILENAME_PBTXT,
            constants.SAVED_MODEL_FILENAME_PB,
            constants.SAVED_MODEL_FILENAME_CPB,
        )
    )


# TF 1's ``tf.compat.v1.saved_model.contains_saved_model`` is the same function.
contains_saved_model = maybe_saved_model_directory


def get_asset_tensors(
    export_dir: Any, meta_graph_def_to_load: Any, import_scope: str | None = None
) -> dict[str, str]:
    """``{asset tensor name: path under export_dir/assets}`` of a meta graph (its
    ``asset_file_def``s, else its ``saved_model_assets`` collection)."""
    from jtrain.protos import meta_graph_pb2

    protos = list(meta_graph_def_to_load.asset_file_def)
    collection = meta_graph_def_to_load.collection_def
    if not protos and constants.ASSETS_KEY in collection:
        for packed in collection[constants.ASSETS_KEY].any_list.value:
            protos.append(meta_graph_pb2.AssetFileDef.FromString(packed.value))
    assets_dir = os.path.join(os.fsdecode(os.fspath(export_dir)), constants.ASSETS_DIRECTORY)
    out = {}
    for proto in protos:
        name = proto.tensor_info.name
        if import_scope:
            name = f"{import_scope}/{name}"
        out[name] = os.path.join(assets_dir, proto.filename)
    return out


def _op_from_collection(meta_graph_def: Any, key: str) -> Any:
    collection = meta_graph_def.collection_def
    if key not in collection:
        return None
    values = collection[key].node_list.value
    if len(values) != 1:
        raise RuntimeError(
            f"Expected exactly one SavedModel init op. Found {len(values)}: {values}."
        )
    return ops.get_collection(key)[0]


def get_init_op(meta_graph_def: Any, import_scope: str | None = None) -> Any:
    """The op run after the restore: the ``__saved_model_init_op`` signature's, else the
    ``saved_model_main_op`` collection's, else the ``legacy_init_op`` collection's."""
    if constants.INIT_OP_SIGNATURE_KEY in meta_graph_def.signature_def:
        return signature_def_utils.load_op_from_signature_def(
            meta_graph_def.signature_def[constants.INIT_OP_SIGNATURE_KEY],
            constants.INIT_OP_SIGNATURE_KEY,
            import_scope,
        )
    return _op_from_collection(meta_graph_def, constants.MAIN_OP_KEY) or _op_from_collection(
        meta_graph_def, constants.LEGACY_INIT_OP_KEY
    )


class SavedModelLoader:
    """Loads the graphs and restores the variables of a SavedModel.

    Args:
      export_dir: the SavedModel's directory.

    Raises:
      OSError: it holds no SavedModel file (TF's message).
    """

    def __init__(self, export_dir: Any):
        self._export_dir = export_dir
        self._variables_path = os.path.join(
            os.fsdecode(os.fspath(export_dir)),
            constants.VARIABLES_DIRECTORY,
            constants.VARIABLES_FILENAME,
        )
        self._saved_model = parse_saved_model(export_dir)

    @property
    def export_dir(self) -> Any:
        """The SavedModel's directory."""
        return self._export_dir

    @property
    def variables_path(self) -> str:
        """The prefix of the variables' checkpoint (``<export_dir>/variables/variables``)."""
        return self._variables_path

    @property
    def saved_model(self) -> Any:
        """The parsed ``SavedModel`` proto."""
        return self._saved_model

    def get_meta_graph_def_from_tags(self, tags: Any) -> Any:
        """The meta graph whose tags are exactly ``tags`` (as a set).

        Raises:
          RuntimeError: none has them (TF's message, listing the tag sets there are).
        """
        available = []
        for meta in self._saved_model.meta_graphs:
            available.append(set(meta.meta_info_def.tags))
            if set(meta.meta_info_def.tags) == set(tags):
                return meta
        raise RuntimeError(
            f"MetaGraphDef associated with tags {str(tags).strip('[]')} could not be found in "
            f"SavedModel, with available tags '{available}'. To inspect available tag-sets "
            "in the SavedModel, please use the SavedModel CLI: `saved_model_cli`."
        )

    def load_graph(
        self, graph: Any, tags: Any, import_scope: str | None = None, **saver_kwargs: Any
    ) -> tuple[Any, None]:
        """Imports the meta graph of ``tags`` into ``graph``.

        Returns:
          ``(saver, None)``: the ``Saver`` of its ``SaverDef`` (``None`` when it has
          neither one nor variables) and, as TF, the (absent) return elements.
        """
        meta = self.get_meta_graph_def_from_tags(tags)
        with graph.as_default():
            saver = import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        return saver, None

    def restore_variables(self, sess: Any, saver: Any, import_scope: str | None = None) -> None:
        """Restores the variables from ``variables/variables`` with ``saver``.

        Raises:
          ValueError: ``saver`` is ``None`` but the graph has variables (TF's message).
        """
        from adapters.v1.ops.variables import global_variables
        from adapters.v1.training.saver import Saver

        with sess.graph.as_default():
            if saver is None and not (
                global_variables(import_scope)
                + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS, import_scope)
            ):
                _log.info(
                    "The specified SavedModel has no variables; no checkpoints were restored."
                )
            elif isinstance(saver, Saver):
                saver.restore(sess, self._variables_path)
            else:
                raise ValueError(
                    "No tf.train.Saver object was passed to the function "
                    "`SavedModelLoader.restore_variables`. Since there are variables in the "
                    "graph, a saver is required."
                )

    def run_init_ops(self, sess: Any, tags: Any, import_scope: str | None = None) -> None:
        """Runs the meta graph's init op, with the asset tensors fed their paths."""
        meta = self.get_meta_graph_def_from_tags(tags)
        with sess.graph.as_default():
            assets = get_asset_tensors(self._export_dir, meta, import_scope=import_scope)
            init_op = get_init_op(meta, import_scope)
            if init_op is not None:
                sess.run(fetches=[init_op], feed_dict=assets)

    def load(self, sess: Any, tags: Any, import_scope: str | None = None, **saver_kwargs):
        """Imports the meta graph of ``tags``, restores its variables, runs its init op.

        Returns:
          The loaded ``MetaGraphDef`` (without ``import_scope`` in its names).
        """
        with sess.graph.as_default():
            saver, _ = self.load_graph(sess.graph, tags, import_scope, **saver_kwargs)
            self.restore_variables(sess, saver, import_scope)
            self.run_init_ops(sess, tags, import_scope)
        return self.get_meta_graph_def_from_tags(tags)


def load(
    sess: Any, tags: Any, export_dir: Any, import_scope: str | None = None, **saver_kwargs: Any
) -> Any:
    """Loads a SavedModel's meta graph into ``sess`` (``tf.compat.v1.saved_model.loader.load``).

    Args:
      sess: the session whose graph receives the meta graph and whose variables are
        restored.
      tags: the tags of the meta graph to load (compared as a set).
      export_dir: the SavedModel's directory.
      import_scope: a name scope prefixed to every loaded name (default ``None``);
        the returned ``MetaGraphDef`` keeps the unprefixed names.
      **saver_kwargs: passed to ``tf.train.import_meta_graph`` (``clear_devices``,
        ``input_map``...).

    Returns:
      The ``MetaGraphDef`` loaded (``jtrain.protos.meta_graph_pb2``: its
      ``signature_def`` names the tensors to feed and fetch).

    Raises:
      RuntimeError: no meta graph has ``tags`` (TF's message).
      OSError: ``export_dir`` holds no SavedModel (TF's message).
      NotFoundError: a variable is missing from the checkpoint.
    """
    return SavedModelLoader(export_dir).load(sess, tags, import_scope, **saver_kwargs)
