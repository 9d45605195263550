"""``tf.constant``."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops

_INT32 = np.iinfo(np.int32)
# Which kinds of Python value TF converts to a dtype of each kind (a float to an
# integer dtype, or an int to bool, is a TypeError; NumPy values are cast).
_ACCEPTS = {"b": "b", "i": "biu", "u": "biu", "f": "biuf", "c": "biufc"}


def literal_array(value: Any, dtype: Any = None) -> np.ndarray:
    """``value`` as the NumPy array TF's literal conversion makes of it.

    Without ``dtype``, NumPy arrays and scalars keep their dtype; other Python values
    (numbers, nested lists and tuples, which may hold NumPy scalars) give float32 for
    floats, and int32 for integers when all fit in int32, else int64 (uint64 past
    int64's range). With ``dtype`` the value is cast to it, wrapping as TF does
    (``tf.constant(300, tf.uint8)`` is 44; a float beyond float32's range is ``inf``).
    Strings become object arrays of ``bytes``, as TF fetches them.

    Args:
      value: a Python or NumPy value.
      dtype: the NumPy dtype asked for, or ``None`` to infer TF's.

    Returns:
      The array.

    Raises:
      TypeError: a Python value of a kind ``dtype`` does not take (a float for an
        integer dtype, an int for bool), as TF raises.
    """
    numpy_value = isinstance(value, (np.ndarray, np.generic))
    arr = np.asarray(value)
    if arr.dtype.kind in "SUO" or (dtype is not None and np.dtype(dtype).kind in "SUO"):
        # Strings are object arrays of bytes: NumPy's fixed-width bytes dtype would drop
        # trailing NUL bytes.
        from adapters.v1.ops.data_flow_ops import to_host_array

        _check_strings(value, explicit=dtype is not None)

        return to_host_array(value, np.dtype(object))
    if dtype is not None:
        dtype = np.dtype(dtype)
        # An empty list is float64 to NumPy but holds no value of a wrong kind: TF
        # takes ``tf.constant([], tf.int32)``.
        if not numpy_value and arr.size and arr.dtype.kind not in _ACCEPTS.get(dtype.kind, "biufc"):
            raise TypeError(
                f"Expected {dtype.name}, got {value!r} of type '{type(value).__name__}' instead."
            )
        with np.errstate(over="ignore", invalid="ignore"):
            return arr.astype(dtype)
    if numpy_value:
        return arr
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype == np.int64 and (
        arr.size == 0 or _INT32.min <= arr.min() <= arr.max() <= _INT32.max
    ):
        return arr.astype(np.int32)
    return arr


def _check_strings(value: Any, explicit: bool) -> None:
    """Raise TF's ``TypeError`` when ``value`` holds something other than strings.

    TF converts only ``bytes``/``str`` to ``tf.string``: a number there is a
    ``TypeError`` (``bytes(5)`` would silently be five NUL bytes). Its message depends
    on what was given: a NumPy value (or ``bytearray``) is checked by ``compat.as_bytes``
    ("Expected binary or unicode string, got 1"), a Python value with an explicit
    ``dtype`` by the tensor-proto conversion ("Expected string, but got 5 of type
    'int'."), and mixed Python values without a ``dtype`` fail to infer one.
    """
    if value is None:
        raise ValueError("None values not supported.")
    if isinstance(value, (np.ndarray, np.generic, bytearray)):
        for v in np.asarray(value).ravel().tolist():
            if not isinstance(v, (bytes, str)):
                raise TypeError(f"Expected binary or unicode string, got {v!r}")
        return
    for v in np.asarray(value, dtype=object).ravel():
        if not isinstance(v, (bytes, str)):
            if not explicit:
                raise TypeError(
                    f"Failed to convert elements of {value!r} to Tensor. Consider casting "
                    "elements to a supported type. See "
                    "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF "
                    "dtypes."
                )
            raise TypeError(f"Expected string, but got {v} of type '{type(v).__name__}'.")


def constant(
    value: Any,
    dtype: Any = None,
    shape: Any = None,
    name: str = "Const",
    verify_shape: bool = False,
) -> ops.Tensor:
    """A tensor holding ``value`` (converted to ``dtype``, broadcast to ``shape``).

    Raises:
      TypeError: ``value`` does not fit ``shape`` when ``verify_shape`` is set.
    """
    arr = literal_array(value, None if dtype is None else ops.as_dtype(dtype))
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        if verify_shape and arr.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, got {arr.shape}.")
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.shape != shape:
            arr = arr.reshape(shape)
    host_only = arr.dtype.kind in "OSU"

    def compute(ctx):  # traced under the compat layer's exact-dtype scope (framework/_x64)
        return (arr if host_only else jnp.asarray(arr),)

    op = ops.get_default_graph().create_op(
        "Const", name, compute=compute, output_specs=[(arr.shape, arr.dtype)]
    )
    if not host_only:
        op._const_value = arr
    else:
        op._host_value = arr  # a string constant's value (its GraphDef attribute)
    return op.outputs[0]
