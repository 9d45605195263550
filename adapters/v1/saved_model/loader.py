"""``tf.compat.v1.saved_model.loader``: ``load`` and ``maybe_saved_model_directory``."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.saved_model.loader_impl import load, maybe_saved_model_directory

__all__ = ["load", "maybe_saved_model_directory"]

__getattr__ = missing_name_getattr("tf.saved_model.loader", globals())
