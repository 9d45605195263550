"""``tf.bitwise``: TF's bitwise ops on integers (``ops/bitwise_ops.py``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.op_def import tf_names as _tf_names
from adapters.v1.ops import bitwise_ops as _bitwise_ops  # noqa: F401  (fills TF's op table)

_ops = _tf_names("bitwise")
bitwise_and = _ops["bitwise_and"]
bitwise_or = _ops["bitwise_or"]
bitwise_xor = _ops["bitwise_xor"]
invert = _ops["invert"]
left_shift = _ops["left_shift"]
right_shift = _ops["right_shift"]

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

__getattr__ = missing_name_getattr("tf.bitwise", globals())
