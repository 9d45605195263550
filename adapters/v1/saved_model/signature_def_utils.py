"""``tf.compat.v1.saved_model.signature_def_utils``: ``SignatureDef`` builders."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.saved_model.signature_def_utils_impl import (
    build_signature_def,
    classification_signature_def,
    is_valid_signature,
    predict_signature_def,
    regression_signature_def,
)

__all__ = [
    "build_signature_def",
    "classification_signature_def",
    "is_valid_signature",
    "predict_signature_def",
    "regression_signature_def",
]

__getattr__ = missing_name_getattr("tf.saved_model.signature_def_utils", globals())
