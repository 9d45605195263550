"""``tf.dtypes``: the ``DType`` objects, ``as_dtype``, ``QUANTIZED_DTYPES`` and the
conversions ``cast``, ``saturate_cast``, ``complex``, ``as_string``.

Every name is the one at the top level (``tf.dtypes.float32 is tf.float32``).

.. note::
   TF 2.21's ``tf.compat.v1.dtypes.experimental`` (its 4-bit and 8-bit float
   types) has no counterpart here: ``tf.dtypes.experimental`` raises
   ``AttributeError``.
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import dtypes as _dtypes
from adapters.v1.framework.op_def import tf_names as _tf_names
from adapters.v1.ops import array_ops as _array_ops  # noqa: F401  (fills TF's op table)
from adapters.v1.ops import math_ops as _math_ops  # noqa: F401  (fills TF's op table)
from adapters.v1.ops.string_ops import as_string

_top = _tf_names("")
cast = _top["cast"]
saturate_cast = _top["saturate_cast"]
complex = _top["complex"]  # noqa: A001 - TF's name

globals().update({name: getattr(_dtypes, name) for name in _dtypes.__all__})

# TF's quantized dtypes and their reference dtypes (``tf.qint8_ref``...).
QUANTIZED_DTYPES = frozenset(
    d
    for q in (_dtypes.qint8, _dtypes.quint8, _dtypes.qint16, _dtypes.quint16, _dtypes.qint32)
    for d in (q, q._as_ref)
)

__all__ = [
    *_dtypes.__all__,
    "QUANTIZED_DTYPES",
    "as_string",
    "cast",
    "complex",
    "saturate_cast",
]

__getattr__ = missing_name_getattr("tf.dtypes", globals())
