"""``tf.constant``."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops

_INT32 = np.iinfo(np.int32)
_INT64 = np.iinfo(np.int64)
_BFLOAT16 = np.dtype(jnp.bfloat16)
# Which kinds of Python element TF converts to a dtype of each kind (a float to an
# integer dtype, an int to bool or a string to a number is a TypeError; NumPy values
# are cast). bfloat16 (NumPy kind ``V``) takes what a float takes.
_ACCEPTS = {"b": "b", "i": "bi", "u": "bi", "f": "bif", "V": "bif", "c": "bifc"}
_NOTHING = object()


def _element_kind(element: Any) -> str:
    """``b`` bool, ``i`` integer, ``f`` floating, ``c`` complex, ``o`` anything else."""
    if isinstance(element, (bool, np.bool_)):
        return "b"
    if isinstance(element, (int, np.integer)):
        return "i"
    if isinstance(element, (float, np.floating)):
        return "f"
    if isinstance(element, (complex, np.complexfloating)):
        return "c"
    return "o"


def _first_refused(value: Any, dtype: np.dtype) -> Any:
    """The first element of the (nested) Python ``value``, in order, that TF does not
    convert to the numeric ``dtype`` (``_NOTHING`` when all convert)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            found = _first_refused(v, dtype)
            if found is not _NOTHING:
                return found
        return _NOTHING
    if isinstance(value, np.ndarray):
        return _NOTHING
    kind = _element_kind(value)
    if kind not in _ACCEPTS.get(dtype.kind, "bifc"):
        return value
    if (
        dtype == _BFLOAT16
        and isinstance(value, int)
        and not isinstance(value, bool)
        and not _INT64.min <= value <= _INT64.max
    ):
        return value  # TF's bfloat16 conversion takes a Python int only within int64
    return _NOTHING


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
        integer dtype, an int for bool, a string for a number), as TF raises, naming
        the first such element.
    """
    if value is None:
        raise ValueError("None values not supported.")
    numpy_value = isinstance(value, (np.ndarray, np.generic))
    arr = np.asarray(value)
    target = None if dtype is None else np.dtype(dtype)
    if target is not None and target.kind not in "SUO" and not numpy_value:
        # A Python value of a kind the numeric dtype does not take (a string, a float
        # for an integer dtype): TF names the first such element.
        bad = _first_refused(value, target)
        if bad is not _NOTHING:
            if target == _BFLOAT16 and isinstance(bad, int):
                raise TypeError("expected number, got int")
            raise TypeError(
                f"Expected {target.name}, but got {bad} of type '{type(bad).__name__}'."
            )
    if target.kind in "SUO" if target is not None else arr.dtype.kind in "SUO":
        # Strings are object arrays of bytes: NumPy's fixed-width bytes dtype would drop
        # trailing NUL bytes.
        from adapters.v1.ops.data_flow_ops import to_host_array

        _check_strings(value, explicit=target is not None)

        return to_host_array(value, np.dtype(object))
    if target is not None:
        # NumPy values are cast as NumPy casts (a NumPy string parsed as a number, or
        # NumPy's ValueError), as TF casts them.
        with np.errstate(over="ignore", invalid="ignore"):
            return arr.astype(target)
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
