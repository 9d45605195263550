"""``tf.compat.v1.saved_model``: TF1 SavedModels, written and loaded in TF's format.

``simple_save`` or a ``Builder`` writes ``saved_model.pb`` (one ``MetaGraphDef``
per tag set, with its signatures), the variables' V2 checkpoint under
``variables/`` and the assets under ``assets/``; ``loader.load`` (also
``tf.saved_model.load``, as in ``tf.compat.v1``) imports a meta graph into a
session and restores its variables, from a jtrain- or TF-written SavedModel.
TF 2's object-based API (``save``, ``load_v2``, ``Asset``, ``SaveOptions``,
``experimental``) is not here.
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.saved_model import (
    builder,
    constants,
    loader,
    main_op,
    signature_constants,
    signature_def_utils,
    tag_constants,
    utils,
)
from adapters.v1.saved_model.builder_impl import SavedModelBuilder as Builder
from adapters.v1.saved_model.constants import (
    ASSETS_DIRECTORY,
    ASSETS_KEY,
    DEBUG_DIRECTORY,
    DEBUG_INFO_FILENAME_PB,
    LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY,
    SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION,
    VARIABLES_DIRECTORY,
    VARIABLES_FILENAME,
)
from adapters.v1.saved_model.loader_impl import (
    contains_saved_model,
    load,
    maybe_saved_model_directory,
)
from adapters.v1.saved_model.main_op_impl import main_op_with_restore
from adapters.v1.saved_model.signature_constants import (
    CLASSIFY_INPUTS,
    CLASSIFY_METHOD_NAME,
    CLASSIFY_OUTPUT_CLASSES,
    CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    PREDICT_INPUTS,
    PREDICT_METHOD_NAME,
    PREDICT_OUTPUTS,
    REGRESS_INPUTS,
    REGRESS_METHOD_NAME,
    REGRESS_OUTPUTS,
)
from adapters.v1.saved_model.signature_def_utils_impl import (
    build_signature_def,
    classification_signature_def,
    is_valid_signature,
    predict_signature_def,
    regression_signature_def,
)
from adapters.v1.saved_model.simple_save import simple_save
from adapters.v1.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING
from adapters.v1.saved_model.utils_impl import build_tensor_info, get_tensor_from_tensor_info

__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_KEY",
    "Builder",
    "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES",
    "CLASSIFY_OUTPUT_SCORES",
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "GPU",
    "LEGACY_INIT_OP_KEY",
    "MAIN_OP_KEY",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME",
    "REGRESS_OUTPUTS",
    "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT",
    "SAVED_MODEL_SCHEMA_VERSION",
    "SERVING",
    "TPU",
    "TRAINING",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
    "build_signature_def",
    "build_tensor_info",
    "builder",
    "classification_signature_def",
    "constants",
    "contains_saved_model",
    "get_tensor_from_tensor_info",
    "is_valid_signature",
    "load",
    "loader",
    "main_op",
    "main_op_with_restore",
    "maybe_saved_model_directory",
    "predict_signature_def",
    "regression_signature_def",
    "signature_constants",
    "signature_def_utils",
    "simple_save",
    "tag_constants",
    "utils",
]

__getattr__ = missing_name_getattr("tf.saved_model", globals())
