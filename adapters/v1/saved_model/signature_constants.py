"""``tf.compat.v1.saved_model.signature_constants``: signature keys and method names of
TensorFlow Serving's APIs."""

from __future__ import annotations

__all__ = [
    "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES",
    "CLASSIFY_OUTPUT_SCORES",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME",
    "REGRESS_OUTPUTS",
]

# The key of the signature served by default (``simple_save`` writes it).
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"

# Classification API.
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"

# Predict API.
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"

# Regression API.
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"

# Training and evaluation signatures (TF defines them; not exported in v1).
DEFAULT_TRAIN_SIGNATURE_DEF_KEY = "train"
DEFAULT_EVAL_SIGNATURE_DEF_KEY = "eval"
SUPERVISED_TRAIN_METHOD_NAME = "tensorflow/supervised/training"
SUPERVISED_EVAL_METHOD_NAME = "tensorflow/supervised/eval"
