"""``tf.compat.v1.saved_model.simple_save``: a serving SavedModel in one call."""

from __future__ import annotations

import os
from typing import Any

from adapters.v1.framework import ops
from adapters.v1.saved_model import signature_constants, tag_constants
from adapters.v1.saved_model.builder_impl import SavedModelBuilder
from adapters.v1.saved_model.signature_def_utils_impl import predict_signature_def

__all__ = ["simple_save"]


def simple_save(
    session: Any,
    export_dir: str | os.PathLike[str],
    inputs: dict[str, Any],
    outputs: dict[str, Any],
    legacy_init_op: Any = None,
) -> None:
    """Writes a SavedModel for serving (``tf.compat.v1.saved_model.simple_save``).

    One meta graph tagged ``serve``, with the variables of ``session``, the
    ``serving_default`` predict signature of ``inputs`` and ``outputs``, the
    ``ASSET_FILEPATHS`` collection as assets, and devices cleared, as TF.

    Args:
      session: the session whose graph and variables are saved.
      export_dir: the export directory (must not exist or be empty).
      inputs: key -> input ``Tensor``.
      outputs: key -> output ``Tensor``.
      legacy_init_op: an op run after the restore when loading (default ``None``).

    Raises:
      AssertionError: ``export_dir`` exists and is not empty (TF's message).
      ValueError: ``inputs`` or ``outputs`` is empty (TF's message).
    """
    signature_def_map = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(
            inputs, outputs
        )
    }
    builder = SavedModelBuilder(export_dir)
    graph = getattr(session, "graph", None) or ops.get_default_graph()
    builder.add_meta_graph_and_variables(
        session,
        tags=[tag_constants.SERVING],
        signature_def_map=signature_def_map,
        assets_collection=graph.get_collection(ops.GraphKeys.ASSET_FILEPATHS),
        main_op=legacy_init_op,
        clear_devices=True,
    )
    builder.save()
