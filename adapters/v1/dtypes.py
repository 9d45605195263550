"""``tf.dtypes``: the ``DType`` objects, ``as_dtype``, ``QUANTIZED_DTYPES`` and the
conversions ``cast``, ``saturate_cast``, ``complex``, ``as_string``.

Every name is the one at the top level (``tf.dtypes.float32 is tf.float32``).

.. note::
   TF 2.21's ``tf.compat.v1.dtypes.experimental`` (its 4-bit and 8-bit float
   types) has no counterpart here: ``tf.dtypes.experimental`` raises
   ``AttributeError``.
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.dtypes import (  # noqa: A004 - TF's names (tf.dtypes.bool)
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from adapters.v1.framework.op_def import tf_names as _tf_names
from adapters.v1.ops import array_ops as _array_ops  # noqa: F401  (fills TF's op table)
from adapters.v1.ops import math_ops as _math_ops  # noqa: F401  (fills TF's op table)
from adapters.v1.ops.string_ops import as_string

_top = _tf_names("")
cast = _top["cast"]
saturate_cast = _top["saturate_cast"]
complex = _top["complex"]  # noqa: A001 - TF's name

# TF's quantized dtypes and their reference dtypes (``tf.qint8_ref``...).
QUANTIZED_DTYPES = frozenset(
    d for q in (qint8, quint8, qint16, quint16, qint32) for d in (q, q._as_ref)
)

__all__ = [
    "DType",
    "QUANTIZED_DTYPES",
    "as_dtype",
    "as_string",
    "bfloat16",
    "bool",
    "cast",
    "complex",
    "complex64",
    "complex128",
    "double",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "qint8",
    "qint16",
    "qint32",
    "quint8",
    "quint16",
    "resource",
    "saturate_cast",
    "string",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "variant",
]

__getattr__ = missing_name_getattr("tf.dtypes", globals())
