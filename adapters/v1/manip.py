"""``tf.manip``: TF 1's home of a few array ops, the same functions as ``tf.roll``,
``tf.reshape``, ``tf.tile``... (``tf.manip.roll is tf.roll``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.op_def import tf_names as _tf_names
from adapters.v1.ops import array_ops as _array_ops  # noqa: F401  (fills TF's op table)
from adapters.v1.ops import math_ops as _math_ops  # noqa: F401  (fills TF's op table)

__all__ = [
    "batch_to_space_nd",
    "gather_nd",
    "reshape",
    "reverse",
    "roll",
    "scatter_nd",
    "space_to_batch_nd",
    "tile",
]

_top = _tf_names("")
batch_to_space_nd = _top["batch_to_space_nd"]
gather_nd = _top["gather_nd"]
reshape = _top["reshape"]
reverse = _top["reverse"]
roll = _top["roll"]
scatter_nd = _top["scatter_nd"]
space_to_batch_nd = _top["space_to_batch_nd"]
tile = _top["tile"]

__getattr__ = missing_name_getattr("tf.manip", globals())
