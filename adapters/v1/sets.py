"""``tf.sets``: set operations on the last dimension (``ops/sets_ops.py``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.sets_ops import set_difference, set_intersection, set_size, set_union

# TF 2's names, in tf.compat.v1.sets too
difference = set_difference
intersection = set_intersection
size = set_size
union = set_union

__all__ = [
    "difference",
    "intersection",
    "set_difference",
    "set_intersection",
    "set_size",
    "set_union",
    "size",
    "union",
]

__getattr__ = missing_name_getattr("tf.sets", globals())
