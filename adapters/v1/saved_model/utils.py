"""``tf.compat.v1.saved_model.utils``: ``TensorInfo`` protos of graph tensors."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.saved_model.utils_impl import build_tensor_info, get_tensor_from_tensor_info

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]

__getattr__ = missing_name_getattr("tf.saved_model.utils", globals())
