"""TF's ``tf.is_tensor`` and ``tf.get_static_value`` (``tensor_util`` in TF)."""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops

__all__ = [
    "is_tensor",
    "is_numeric_tensor",
    "get_static_value",
    "make_tensor_proto",
    "make_ndarray",
]


def is_tensor(x: Any) -> bool:
    """``tf.is_tensor``: whether ``x`` is a graph tensor or tensor-like.

    Args:
      x: any Python object.

    Returns:
      ``True`` for a ``Tensor``, ``Variable``, ``IndexedSlices`` or ``SparseTensor``;
      ``False`` for NumPy arrays and Python values.
    """
    from adapters.v1.framework.indexed_slices import IndexedSlices
    from adapters.v1.framework.sparse_tensor import SparseTensor

    return isinstance(x, (ops.Tensor, IndexedSlices, SparseTensor)) or hasattr(
        x, "_as_graph_tensor"
    )


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """``tf.get_static_value``: a tensor's value if it is known when the graph is built.

    Known: constants, and ``tf.shape``/``tf.size``/``tf.rank`` of inputs whose static
    shape (or rank) is known, as TF's ``constant_value``.

    Args:
      tensor: a tensor, or any other value (returned as it is).
      partial: accepted for TF's signature (partially known shapes give ``None``).

    Returns:
      A NumPy array of the tensor's dtype, or ``None`` when it is computed.
    """
    if not is_tensor(tensor):
        return tensor
    if not isinstance(tensor, ops.Tensor):
        if not hasattr(tensor, "_as_graph_tensor"):
            return None
        tensor = ops.convert_to_tensor(tensor)
    op = tensor.op
    dtype = dtypes.as_dtype(tensor.dtype).dtype
    if op._const_value is not None:
        return np.asarray(op._const_value, dtype)
    if op.type in ("Shape", "Size", "Rank") and op.inputs:
        dims = op.inputs[0].shape._dims if hasattr(op.inputs[0].shape, "_dims") else None
        if dims is None:
            return None
        if op.type == "Rank":
            return np.asarray(len(dims), dtype)
        if any(d is None for d in dims):
            return None
        if op.type == "Shape":
            return np.asarray(dims, dtype)
        return np.asarray(int(np.prod(dims)), dtype)
    return None


def is_numeric_tensor(tensor: Any) -> bool:
    """``tf.is_numeric_tensor``: a ``Tensor`` of a numeric dtype (not bool or string).

    Args:
      tensor: any Python object.

    Returns:
      Whether ``tensor`` is a graph ``Tensor`` of an integer, floating or complex dtype.
    """
    if not isinstance(tensor, ops.Tensor):
        return False
    name = dtypes.as_dtype(tensor.dtype).name
    return name not in ("bool", "string", "resource", "variant")


# -- TensorProto codec (``tf.make_tensor_proto`` / ``tf.make_ndarray``) ------------------
# Dtypes whose values TF writes as raw bytes in ``tensor_content`` when the proto holds
# more than one value and exactly the values of its shape (TF 2.21's list: not bool,
# complex, uint16, the 4- and 2-bit integers).
_CONTENT = frozenset(
    {"float16", "float32", "float64", "int32", "uint8", "int16", "int8", "int64"}
    | {"qint8", "quint8", "qint16", "quint16", "qint32", "uint32", "uint64", "bfloat16"}
    | {"float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz"}
    | {"float8_e5m2fnuz", "float4_e2m1fn"}
)
# The repeated field each dtype's values go in otherwise (16-bit floats as their bits).
_FIELD = {
    "float16": "half_val",
    "bfloat16": "half_val",
    "float32": "float_val",
    "float64": "double_val",
    "int32": "int_val",
    "int16": "int_val",
    "int8": "int_val",
    "uint8": "int_val",
    "uint16": "int_val",
    "int64": "int64_val",
    "uint32": "uint32_val",
    "uint64": "uint64_val",
    "bool": "bool_val",
    "complex64": "scomplex_val",
    "complex128": "dcomplex_val",
    "string": "string_val",
}
_FLOAT8 = frozenset({"float8_e5m2", "float8_e4m3fn", "float4_e2m1fn"})


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def _flat(values: Any) -> list:
    if isinstance(values, (list, tuple)):
        return [leaf for v in values for leaf in _flat(v)]
    return [values]


def _dense_dims(values: Any) -> list[int]:
    if not isinstance(values, (list, tuple)):
        return []
    if not values:
        return [0]
    return [len(values), *_dense_dims(values[0])]


def _check_elements(values: Any, dtype: dtypes.DType | None) -> None:
    """TF's ``_AssertCompatible``: Python leaves of the kind ``dtype`` takes."""
    import numbers

    if dtype is None:
        if any(is_tensor(v) for v in _flat(values)):
            raise TypeError("Expected any non-tensor type, but got a tensor instead.")
        return
    if dtype.is_quantized:
        raise NotImplementedError(
            f"tf.make_tensor_proto: quantized dtype {dtype.name} is not supported; "
            "make the proto of the underlying integer type"
        )
    if dtype.name == "bool":
        kinds: tuple = (bool,)
    elif dtype.name == "string":
        kinds = (bytes, str)
    elif dtype.is_integer:
        kinds = (numbers.Integral, np.integer)
    elif dtype.is_floating:
        kinds = (numbers.Real, np.integer, np.floating)
    elif dtype.is_complex:
        kinds = (numbers.Complex, np.number)
    else:
        kinds = ()
    for v in _flat(values):
        if kinds and not (
            isinstance(v, kinds) or (isinstance(v, np.ndarray) and issubclass(v.dtype.type, kinds))
        ):
            raise TypeError(f"Expected {dtype.name}, but got {v} of type '{type(v).__name__}'.")
        if not kinds and is_tensor(v):
            raise TypeError(f"Expected {dtype.name}, but got {v} of type '{type(v).__name__}'.")


def _array_like(values: Any) -> bool:
    if is_tensor(values):
        return False
    if callable(getattr(values, "__array__", None)) or isinstance(
        getattr(values, "__array_interface__", None), dict
    ):
        return True
    try:
        memoryview(values)
    except TypeError:
        return False
    return not isinstance(values, bytes)


def _as_array(values: Any, dtype: dtypes.DType | None, shape: Any) -> np.ndarray:
    """``values`` as the NumPy array TF's ``make_tensor_proto`` converts it to."""
    np_dt = dtype.as_numpy_dtype if dtype is not None and dtype.is_numpy_compatible else None
    if _array_like(values):
        values = np.asarray(values)
    if isinstance(values, (np.ndarray, np.generic)):
        return np.asarray(values) if np_dt is None else np.asarray(values).astype(np_dt)
    if values is None:
        raise ValueError("None values not supported.")
    if shape is not None and np.prod(shape, dtype=np.int64) == 0:
        arr = np.empty(shape, dtype=np_dt)
    else:
        _check_elements(values, dtype)
        if np_dt is not None and np.issubdtype(np_dt, np.number):
            arr = np.array(values).astype(np_dt)  # wraps out-of-range integers, as TF
        else:
            arr = np.array(values, dtype=np_dt)
        if list(arr.shape) != _dense_dims(values):
            raise ValueError(
                f"Expected values {values} to be a dense tensor with shape "
                f"{_dense_dims(values)}, but got shape {list(arr.shape)}."
            )
    if dtype is None and arr.dtype == np.float64:
        arr = arr.astype(np.float32)  # Python floats are float32 tensors
    elif dtype is None and arr.dtype == np.int64:
        narrow = arr.astype(np.int32)
        if np.array_equal(narrow, arr):  # Python ints are int32 unless they do not fit
            arr = narrow
    return arr


def make_tensor_proto(
    values: Any,
    dtype: Any = None,
    shape: Any = None,
    verify_shape: bool = False,
    allow_broadcast: bool = False,
) -> Any:
    """``tf.make_tensor_proto``: a ``TensorProto`` of ``values``, laid out as TF lays it out.

    More than one value filling ``shape`` exactly, of a fixed-size numeric dtype (not
    bool, complex or uint16): the raw little-endian bytes in ``tensor_content``.
    Otherwise the values in the dtype's repeated field (``float_val``, ``int_val``,
    ``half_val`` holding float16/bfloat16 bits, ``string_val``...), possibly fewer than
    the shape holds (readers repeat the last one). Python floats become float32 and
    Python ints int32 (int64 if one does not fit) unless ``dtype`` says otherwise.

    Args:
      values: a Python scalar or nested list, a NumPy array or scalar, or a
        ``TensorProto`` (returned as it is).
      dtype: the ``DType`` (default ``None``: inferred from ``values``).
      shape: the proto's shape (default ``None``: ``values``'s); ``values`` may hold
        fewer elements.
      verify_shape: whether ``values``'s shape must equal ``shape`` (default ``False``).
      allow_broadcast: whether a scalar or one-element vector may fill ``shape``
        (default ``False``); other sizes must then equal ``shape``'s.

    Returns:
      A ``TensorProto`` (``jtrain.protos.tensor_pb2``), serialized byte for byte as TF's.

    Raises:
      ValueError: ``verify_shape`` and ``allow_broadcast`` both set; ``None`` values;
        ragged nested lists; more values than ``shape`` holds.
      TypeError: values that do not fit ``dtype`` (TF's messages), a tensor, a shape
        that ``verify_shape``/``allow_broadcast`` refuses.
      NotImplementedError: quantized dtypes.

    .. note:: TF raises ``TypeError`` (not ``ValueError``) for a shape mismatch under
       ``verify_shape``/``allow_broadcast``, and a ``tf.string`` proto of Python
       values keeps every string whole (NumPy would strip trailing NULs).
    """
    from adapters.v1.framework.graph_def import shape_proto
    from jtrain.protos import tensor_pb2

    if allow_broadcast and verify_shape:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    dt = dtypes.as_dtype(dtype) if dtype else None
    if dt is not None and dt.is_quantized:
        raise NotImplementedError(
            f"tf.make_tensor_proto: quantized dtype {dt.name} is not supported; make the "
            "proto of the underlying integer type"
        )
    arr = _as_array(values, dt, shape)
    try:
        kind = dtypes.as_dtype(arr.dtype)
    except TypeError:
        raise TypeError(f"Unrecognized data type: {arr.dtype}.") from None
    if dt is not None and dt.base_dtype != kind.base_dtype:
        raise TypeError(f"`dtype` {dt} is not compatible with {values} of dtype {arr.dtype}.")
    if shape is None:
        dims = list(arr.shape)
        size = arr.size
    else:
        dims = [int(d) for d in shape]
        size = int(np.prod(dims, dtype=np.int64))
        if allow_broadcast:
            if arr.shape not in ((1,), ()) and arr.size != size:
                raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {arr.shape}.")
        else:
            if verify_shape and arr.shape != tuple(dims):
                raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {arr.shape}.")
            if arr.size > size:
                raise ValueError(
                    f"Too many elements provided. Takes at most {size:d}, but got {arr.size:d}."
                )
    proto = tensor_pb2.TensorProto(dtype=kind.as_datatype_enum, tensor_shape=shape_proto(dims))
    if arr.size == size and kind.name in _CONTENT and size > 1:
        if arr.size * arr.itemsize >= 1 << 31:
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        proto.tensor_content = (
            np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        )
        return proto
    if kind.name == "string" and not isinstance(values, np.ndarray):
        try:
            strings = [_as_bytes(v) for v in _flat(values)]
        except TypeError:
            raise TypeError(
                f"Failed to convert elements of {values} to Tensor. Consider casting elements "
                "to a supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes "
                "for supported TF dtypes."
            ) from None
        proto.string_val.extend(strings)
        return proto
    flat = arr.reshape(-1)
    if kind.name == "string":
        proto.string_val.extend(_as_bytes(v) for v in flat.tolist())
    elif kind.name in _FLOAT8:
        proto.float8_val = flat.view(np.uint8).tobytes()
    elif kind.name in ("float16", "bfloat16"):
        proto.half_val.extend(flat.view(np.uint16).tolist())
    elif kind.name in ("complex64", "complex128"):
        pairs = np.stack([flat.real, flat.imag], axis=-1).reshape(-1)
        getattr(proto, _FIELD[kind.name]).extend(pairs.tolist())
    elif kind.name in _FIELD:
        getattr(proto, _FIELD[kind.name]).extend(flat.tolist())
    else:
        raise TypeError(f"Element type not supported in TensorProto: {kind.name}.")
    return proto


def make_ndarray(tensor: Any) -> np.ndarray:
    """``tf.make_ndarray``: the NumPy array a ``TensorProto`` holds.

    ``tensor_content`` when set; else the dtype's repeated field, the last value
    repeated up to the shape's size (zeros when there is none).

    Args:
      tensor: a ``TensorProto`` (``jtrain.protos.tensor_pb2`` or TF's).

    Returns:
      An array of the proto's dtype and shape (strings as ``bytes`` objects).

    Raises:
      TypeError: a dtype without NumPy values (``resource``, ``variant``...).
    """
    shape = [d.size for d in tensor.tensor_shape.dim]
    count = int(np.prod(shape, dtype=np.int64))
    dt = dtypes.as_dtype(tensor.dtype)
    if not dt.is_numpy_compatible or dt.is_quantized:
        raise TypeError(
            f"Unsupported tensor type: {tensor.dtype}. See "
            "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes."
        )
    np_dt = np.dtype(dt.as_numpy_dtype)
    if tensor.tensor_content:
        return (
            np.frombuffer(tensor.tensor_content, np_dt.newbyteorder("<"))
            .astype(np_dt)
            .reshape(shape)
        )
    if dt.name == "string":
        strings = list(tensor.string_val)
        strings += [strings[-1] if strings else b""] * (count - len(strings))
        return np.array(strings, dtype=object).reshape(shape)
    if dt.name in ("float16", "bfloat16"):
        values = np.array(list(tensor.half_val), np.uint16).view(np_dt)
    elif dt.name in _FLOAT8:
        values = np.frombuffer(tensor.float8_val, np.uint8).view(np_dt)
    elif dt.name in ("complex64", "complex128"):
        parts = np.array(list(getattr(tensor, _FIELD[dt.name])), np_dt)
        values = parts[0::2] + 1j * parts[1::2] if parts.size else parts
        values = values.astype(np_dt)
    elif dt.name in _FIELD:
        values = np.array(list(getattr(tensor, _FIELD[dt.name])), np_dt)
    else:
        raise TypeError(
            f"Unsupported tensor type: {tensor.dtype}. See "
            "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes."
        )
    if values.size == 0:
        return np.zeros(shape, np_dt)
    if values.size != count:
        values = np.pad(values, (0, count - values.size), "edge")
    return values.reshape(shape)
