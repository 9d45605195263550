"""``tf.compat.v1.saved_model.constants``: the names of a SavedModel's files, folders and
collections, as TF 2.21 has them."""

from __future__ import annotations

__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_KEY",
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
    "LEGACY_INIT_OP_KEY",
    "MAIN_OP_KEY",
    "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT",
    "SAVED_MODEL_SCHEMA_VERSION",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
]

# The folder of the asset files, under the export directory.
ASSETS_DIRECTORY = "assets"
# The collection of the graph's asset ``AssetFileDef``s (packed in ``Any``).
ASSETS_KEY = "saved_model_assets"
# The folder of the graph's debug info (not written by jtrain).
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
# Extra assets, ignored by the loader.
EXTRA_ASSETS_DIRECTORY = "assets.extra"
# The collections of the op run after the variables are restored (the legacy name
# is read when the main op's is absent).
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
TRAIN_OP_KEY = "saved_model_train_op"
# Signature keys reserved by TF's builder for its init and train ops.
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"
SAVED_MODEL_SCHEMA_VERSION = 1
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
# TF's chunked format (``experimental_image_format``), neither written nor read by jtrain.
SAVED_MODEL_FILENAME_CPB = "saved_model.cpb"
# The variables' checkpoint: ``variables/variables.index`` and ``.data-00000-of-00001``.
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
