"""``tf.compat.v1.saved_model.main_op``: ``main_op`` and ``main_op_with_restore``."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.saved_model.main_op_impl import main_op, main_op_with_restore

__all__ = ["main_op", "main_op_with_restore"]

__getattr__ = missing_name_getattr("tf.saved_model.main_op", globals())
