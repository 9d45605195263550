"""``tf.compat.v1.saved_model.builder``: ``SavedModelBuilder``."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.saved_model.builder_impl import SavedModelBuilder

__all__ = ["SavedModelBuilder"]

__getattr__ = missing_name_getattr("tf.saved_model.builder", globals())
