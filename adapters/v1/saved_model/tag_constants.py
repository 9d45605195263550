"""``tf.compat.v1.saved_model.tag_constants``: the tags of a SavedModel's meta graphs."""

from __future__ import annotations

__all__ = ["GPU", "SERVING", "TPU", "TRAINING"]

# The meta graph served (``simple_save`` tags its graph with it).
SERVING = "serve"
# The meta graph used for training.
TRAINING = "train"
# The meta graph used for evaluation (TF defines it but does not export it in v1).
EVAL = "eval"
# A meta graph for GPUs.
GPU = "gpu"
# A meta graph for TPUs.
TPU = "tpu"
