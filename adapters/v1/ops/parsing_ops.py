"""``tf.parse_single_example`` / ``tf.parse_example`` / ``tf.decode_csv`` as host operations.

Parsing ``Example`` protos happens in Python (``jtrain.records`` parsing helpers),
so these are host operations: ``"pre"`` when the serialized input is a host value
(a reader's record), so an input pipeline's decode runs in the queue runner's
threads. ``FixedLenFeature``/``FixedLenSequenceFeature`` give dense tensors,
``VarLenFeature``/``SparseFeature`` a ``SparseTensor`` (three outputs of the op).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops.constant_op import literal_array
from adapters.v1.ops.data_flow_ops import host_inputs, placement
from jtrain import errors
from jtrain.records import csv
from jtrain.records.parsing_ops import (
    _NUMPY,
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseTensorValue,
    VarLenFeature,
    _dtype,
    _parse_examples,
    _specs,
    _unbatch,
)

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "SparseFeature",
    "VarLenFeature",
    "parse_single_sequence_example",
    "parse_sequence_example",
    "decode_csv",
    "decode_raw",
    "parse_example",
    "parse_single_example",
    "parse_tensor",
    "serialize_tensor",
    "decode_compressed",
    "decode_json_example",
]


class SparseFeature(NamedTuple):
    """A sparse feature built from an index feature and a value feature
    (``tf.io.SparseFeature``): value ``i`` goes at position ``index[i]`` of a
    ``size``-long dimension.

    Attributes:
      index_key: the ``int64`` feature holding the positions (one key; TF's list of
        keys for several dimensions is not supported).
      value_key: the feature holding the values.
      dtype: the values' type.
      size: the dense length.
      already_sorted: the indices are sorted already (else they are sorted).
    """

    index_key: Any
    value_key: str
    dtype: Any
    size: Any
    already_sorted: bool = False


def _check_sparse_feature(key: str, spec: SparseFeature) -> None:
    if not isinstance(spec.index_key, str):
        raise ValueError(
            f"feature {key!r}: SparseFeature with several index_keys is not supported by "
            "adapters.v1; parse the index features with VarLenFeature and combine them in "
            "tf.jax_function"
        )


def _sparse_outputs(batched: bool, dtype: np.dtype) -> list:
    rank = 2 if batched else 1
    return [((None, rank), np.dtype(np.int64)), ((None,), dtype), ((rank,), np.dtype(np.int64))]


def _as_sparse_feature(
    spec: SparseFeature, parsed: dict[str, Any], batched: bool
) -> SparseTensorValue:
    """Combines the parsed index and value features of ``spec`` (TF's SparseFeature)."""
    index, value = parsed[spec.index_key], parsed[spec.value_key]
    size = int(np.ravel(spec.size)[0]) if np.ndim(spec.size) else int(spec.size)
    positions = np.asarray(index.values, np.int64)
    if len(positions) != len(value.values) or not np.array_equal(index.indices, value.indices):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"SparseFeature {spec.index_key!r}/{spec.value_key!r}: the index and value "
            "features have different lengths",
        )
    bad = (positions < 0) | (positions >= size)
    if bad.any():
        raise errors.InvalidArgumentError(
            None,
            None,
            f"SparseFeature {spec.index_key!r}: index {int(positions[bad][0])} is out of "
            f"bounds for size {size}",
        )
    rows = index.indices[:, 0] if batched else np.zeros(len(positions), np.int64)
    order = np.lexsort((positions, rows)) if not spec.already_sorted else np.arange(len(rows))
    if batched:
        indices = np.stack([rows[order], positions[order]], axis=1)
        shape = np.asarray([index.dense_shape[0], size], np.int64)
    else:
        indices = positions[order].reshape(-1, 1)
        shape = np.asarray([size], np.int64)
    return SparseTensorValue(indices.astype(np.int64), value.values[order], shape)


def _parse_op(serialized: Any, features: Mapping[str, Any], name: str, batched: bool):
    keys = sorted(features)
    (tensor,) = host_inputs([serialized])
    # A batch's dense outputs lead with serialized's static length, as TF's do.
    static = tensor._shape
    batch = static[0] if batched and static is not None and len(static) == 1 else None
    specs, parse = [], {}
    for key in keys:
        spec = features[key]
        if isinstance(spec, SparseFeature):
            _check_sparse_feature(key, spec)
            dtype = np.dtype(_NUMPY[_dtype(key, spec.dtype)])
            specs += _sparse_outputs(batched, dtype)
            parse[spec.index_key] = VarLenFeature("int64")
            parse[spec.value_key] = VarLenFeature(spec.dtype)
            continue
        dtype = np.dtype(_NUMPY[_dtype(key, spec.dtype)])
        parse[key] = spec
        if isinstance(spec, VarLenFeature):
            specs += _sparse_outputs(batched, dtype)
            continue
        shape = tuple(int(d) for d in spec.shape)
        if isinstance(spec, FixedLenSequenceFeature):
            shape = (None, *shape)
        specs.append(((batch, *shape) if batched else shape, dtype))
    checked = _specs(parse, in_example=True)  # once, at build

    def compute(session, value):
        if batched:
            out = _parse_examples(np.ravel(value).tolist(), checked)
        else:
            out = _parse_examples([np.asarray(value, dtype=object).item()], checked)
        results = []
        for key in keys:
            spec = features[key]
            if isinstance(spec, SparseFeature):
                got = _as_sparse_feature(spec, out, batched)
            else:
                got = out[key] if batched else _unbatch(out[key])
            results += list(got) if isinstance(got, SparseTensorValue) else [got]
        return tuple(results)

    op = ops.get_default_graph().create_op(
        "ParseExampleV2",
        name,
        inputs=[tensor],
        compute=compute,
        output_specs=specs,
        host=placement([tensor]),
    )
    if not batched and all(isinstance(features[k], FixedLenFeature) for k in keys):
        # Dense rows stack: a batch of records parses in one call (batched_enqueue.py).
        def parse_many(session, values):
            out = _parse_examples(values.tolist(), checked)
            return tuple(out[k] for k in keys)

        op._batch = parse_many
    return _outputs(keys, features, op.outputs)


def _outputs(keys: list[str], features: Mapping[str, Any], outputs: Sequence[Any]) -> dict:
    """The op's outputs per key: three of them make a ``SparseTensor``."""
    result, i = {}, 0
    for key in keys:
        if isinstance(features[key], (VarLenFeature, SparseFeature)):
            result[key] = SparseTensor(*outputs[i : i + 3])
            i += 3
        else:
            result[key] = outputs[i]
            i += 1
    return result


def parse_single_sequence_example(
    serialized: Any,
    context_features: Mapping[str, Any] | None = None,
    sequence_features: Mapping[str, Any] | None = None,
    example_name: Any = None,
    name: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Parses one serialized ``SequenceExample`` (``tf.io.parse_single_sequence_example``).

    Args:
      serialized: a string scalar.
      context_features: ``FixedLenFeature``/``VarLenFeature`` specs of the context.
      sequence_features: ``FixedLenSequenceFeature`` (``[steps, *shape]``) or
        ``VarLenFeature`` (``SparseTensor`` of dense shape ``[steps, longest]``) specs of
        the feature lists.
      example_name: accepted, unused.
      name: the op name.

    Returns:
      ``(context, sequence)``: two dicts of tensors (``SparseTensor`` for VarLen).

    Raises:
      ValueError: an invalid spec (at graph build).
      InvalidArgumentError (at run time): as ``jtrain.records.parse_single_sequence_example``
        (a missing required feature, a type mismatch, a wrong number of values).
    """
    del example_name
    from jtrain.records.parsing_ops import (
        parse_single_sequence_example as parse_sequence,
    )

    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    _specs(context_features, in_example=True)
    for key, spec in sequence_features.items():
        if isinstance(spec, FixedLenFeature):
            raise ValueError(f"sequence feature {key!r} must be a FixedLenSequenceFeature")
    _specs(sequence_features, in_example=False)
    ckeys, skeys = sorted(context_features), sorted(sequence_features)
    specs = []
    for features, key_list, leading in (
        (context_features, ckeys, ()),
        (sequence_features, skeys, (None,)),
    ):
        for key in key_list:
            spec = features[key]
            dtype = np.dtype(_NUMPY[_dtype(key, spec.dtype)])
            if isinstance(spec, VarLenFeature):
                specs += _sparse_outputs(bool(leading), dtype)
            else:
                specs.append(((*leading, *(int(d) for d in spec.shape)), dtype))
    (tensor,) = host_inputs([serialized])

    def compute(session, value):
        context, sequence = parse_sequence(
            np.asarray(value, dtype=object).item(), context_features, sequence_features
        )
        results = []
        for parsed, key_list in ((context, ckeys), (sequence, skeys)):
            for key in key_list:
                got = parsed[key]
                results += list(got) if isinstance(got, SparseTensorValue) else [got]
        return tuple(results)

    op = ops.get_default_graph().create_op(
        "ParseSingleSequenceExample",
        name or "ParseSingleSequenceExample",
        inputs=[tensor],
        compute=compute,
        output_specs=specs,
        host=placement([tensor]),
    )
    n_context = sum(3 if isinstance(context_features[k], VarLenFeature) else 1 for k in ckeys)
    return (
        _outputs(ckeys, context_features, op.outputs[:n_context]),
        _outputs(skeys, sequence_features, op.outputs[n_context:]),
    )


def parse_single_example(
    serialized: Any, features: Mapping[str, Any], name: str | None = None
) -> dict[str, ops.Tensor]:
    """Parses one serialized ``Example`` (a string scalar) into a dict of dense tensors."""
    return _parse_op(serialized, features, name or "ParseSingleExample", batched=False)


def parse_example(
    serialized: Any, features: Mapping[str, Any], name: str | None = None
) -> dict[str, ops.Tensor]:
    """Parses a vector of serialized ``Example`` protos into ``[batch, ...]`` tensors."""
    return _parse_op(serialized, features, name or "ParseExample", batched=True)


def decode_raw(
    input_bytes: Any = None,
    out_type: Any = None,
    little_endian: bool = True,
    name: str | None = None,
    bytes: Any = None,  # TF1's deprecated alias
) -> ops.Tensor:
    """Reinterprets the bytes of each string as a vector of ``out_type`` (``tf.io.decode_raw``).

    The output has the input's shape plus one dimension (``len(string) / itemsize``);
    all strings of one input must have the same length.

    Raises:
      InvalidArgumentError (at run time): a length is not a multiple of the item size,
        or lengths differ.
    """
    if input_bytes is None:
        input_bytes = bytes
    dtype = ops.as_dtype(out_type).dtype
    dtype = dtype.newbyteorder("<" if little_endian else ">")
    (tensor,) = host_inputs([input_bytes])
    out_dtype = dtype.newbyteorder("=")

    def compute(session, value):
        arr = np.asarray(value, dtype=object)
        flat = [bytes_(v) for v in arr.ravel()]
        lengths = {len(v) for v in flat}
        if any(n % dtype.itemsize for n in lengths):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Input to DecodeRaw has length {min(lengths)} that is not a multiple of "
                f"{dtype.itemsize}, the size of {out_dtype.name}",
            )
        if len(lengths) > 1:
            raise errors.InvalidArgumentError(
                None, None, "DecodeRaw requires input strings to all be the same size"
            )
        width = (lengths.pop() if lengths else 0) // dtype.itemsize
        out = np.frombuffer(b"".join(flat), dtype=dtype).astype(out_dtype, copy=False)
        return (out.reshape(*arr.shape, width),)

    shape = None if tensor._shape is None else (*tensor._shape, None)
    op = ops.get_default_graph().create_op(
        "DecodeRaw",
        name or "DecodeRaw",
        inputs=[tensor],
        compute=compute,
        output_specs=[(shape, out_dtype)],
        host=placement([tensor]),
    )
    op._batch = compute  # row-wise already: [n] strings -> [n, width]
    return op.outputs[0]


bytes_ = bytes


def decode_csv(
    records: Any,
    record_defaults: Sequence[Any],
    field_delim: str = ",",
    use_quote_delim: bool = True,
    name: str | None = None,
    na_value: str = "",
    select_cols: Sequence[int] | None = None,
) -> list[ops.Tensor]:
    """Converts CSV records to tensors, one per column (``tf.io.decode_csv``).

    Each record (a string) is split into fields as RFC 4180 with TF's rules
    (``jtrain.records.csv``); field ``f`` becomes element ``i`` of output ``f``
    (record ``i``), of ``record_defaults[f]``'s dtype (float32, float64, int32,
    int64 or string). Every output has the records' shape.

    Args:
      records: a string tensor of any shape, each element one CSV line.
      record_defaults: per column, the value of an empty (or ``na_value``) field: a
        one-element list or tensor, or an empty one for a required column; its dtype
        is the column's.
      field_delim: the one-character field separator (default ``","``).
      use_quote_delim: whether double quotes delimit fields (default True).
      name: the op's name (default ``"DecodeCSV"``).
      na_value: a field equal to it is missing (default ``""``).
      select_cols: the indices of the columns kept, strictly increasing (default all).

    Returns:
      A list of tensors, one per column.

    Raises:
      ValueError: ``select_cols`` not strictly increasing, negative or not as long as
        ``record_defaults``; a default with more than one element.
      TypeError: a default of a dtype other than the five.
      InvalidArgumentError (at run time): TF's messages for a record's field count, a
        missing required field, a field not a number of its column's type, a
        misplaced quote, a ``field_delim`` not one character.

    .. note:: TF takes a list default's dtype from the Python value (``[0]`` int32,
       ``[0.0]`` float32, even ``[np.float64(0)]``): give a tensor
       (``tf.constant([0], tf.int64)``) for int64 or float64 columns.
    """
    if select_cols is not None:
        cols = list(select_cols)
        if any(a >= b for a, b in zip(cols, cols[1:], strict=False)):
            raise ValueError("select_cols is not strictly increasing.")
        if cols and cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    (tensor,) = host_inputs([records])
    op_name = name or "DecodeCSV"
    columns, default_inputs, where = [], [], []
    for f, default in enumerate(record_defaults):
        if isinstance(default, ops.Tensor) or hasattr(default, "_as_graph_tensor"):
            t = ops.convert_to_tensor(default)
            value = t.op._const_value if t.op.type == "Const" else None
            if value is None:
                value = getattr(t.op, "_host_value", None)
            dtype, shape = np.dtype(t._np_dtype), t._shape
        else:
            value = literal_array(default)
            dtype, shape = value.dtype, value.shape
        if dtype.kind in "SU":
            dtype = np.dtype(object)
        if dtype not in csv.DTYPES:
            raise TypeError(
                f"Value passed to parameter 'record_defaults' has DataType "
                f"{ops.as_dtype(dtype).name} not in list of allowed values: float32, "
                "float64, int32, int64, string"
            )
        if shape is not None and (len(shape) > 1 or (None not in shape and np.prod(shape) > 1)):
            raise ValueError(
                "Shape of a default must be a length-0 or length-1 vector, or a scalar. "
                f"(tf.io.decode_csv {op_name}: record_defaults[{f}] has shape {list(shape)})"
            )
        if value is None:  # computed in the graph: an input of the op
            where.append(f)
            default_inputs.append(ops.convert_to_tensor(default))
            columns.append((dtype, None))
        else:
            value = np.asarray(value, dtype=dtype).reshape(-1)
            columns.append((dtype, value[0] if value.size else None))
    delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
    na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
    chosen = None if select_cols is None else list(select_cols)

    def compute(session, value, *defaults):
        cols = list(columns)
        for f, d in zip(where, defaults, strict=True):
            d = np.asarray(d, dtype=cols[f][0]).reshape(-1)
            if d.size > 1:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"There should only be 1 default per field but field {f} has {d.size}",
                )
            cols[f] = (cols[f][0], d[0] if d.size else None)
        values = np.asarray(value, dtype=object)
        return tuple(csv.decode_csv(values, cols, delim, use_quote_delim, na, chosen))

    inputs = [tensor, *default_inputs]
    shape = tensor._shape
    op = ops.get_default_graph().create_op(
        "DecodeCSV",
        op_name,
        inputs=inputs,
        compute=compute,
        output_specs=[(shape, dtype) for dtype, _ in columns],
        host=placement(inputs),
    )
    if not default_inputs:
        op._batch = compute  # element-wise already: any shape of records
    return list(op.outputs)


# -- serialize_tensor / parse_tensor ------------------------------------------------------
def _exact_constant(value: Any) -> Any:
    """A constant's NumPy value with all its bits (int64 too), else ``value``.

    ``host_inputs`` reads a device constant by running it outside the 64-bit scope,
    which would cut an int64/float64 constant to 32 bits."""
    if isinstance(value, ops.Tensor) and value.op.type == "Const" and value.op._host is None:
        const = value.op._const_value
        if const is not None:
            return np.asarray(const, dtype=value._np_dtype)
    return value


def serialize_tensor(tensor: Any, name: str | None = None) -> ops.Tensor:
    """``tf.io.serialize_tensor``: a tensor as a serialized ``TensorProto`` (a string scalar).

    The proto is TF's ``Tensor::AsProtoTensorContent``: strings in ``string_val``,
    every other dtype (bool, complex and float16 included) as its little-endian bytes
    in ``tensor_content``, the shape always present.

    Args:
      tensor: a tensor of any dtype and shape.
      name: the operation's name (default ``"SerializeTensor"``).

    Returns:
      A ``tf.string`` scalar, byte for byte TF's.
    """
    from adapters.v1.framework.graph_def import tensor_proto

    (t,) = host_inputs([_exact_constant(tensor)])

    def compute(session: Any, value: Any) -> tuple[Any, ...]:
        arr = np.asarray(value, dtype=t._np_dtype)
        return (tensor_proto(arr).SerializeToString(),)

    op = ops.get_default_graph().create_op(
        "SerializeTensor",
        name or "SerializeTensor",
        inputs=[t],
        compute=compute,
        output_specs=[((), np.dtype(object))],
        host=placement([t]),
    )
    return op.outputs[0]


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _no_tensor(proto: Any) -> errors.InvalidArgumentError:
    """TF's error for a proto that makes no tensor: the proto in text format.

    .. note:: TF's text starts with protobuf's ``goo.gle/debugonly`` marker (randomly
       spaced, so that nobody parses it); jtrain writes the text without it.
    """
    from google.protobuf import text_format

    return _invalid("Cannot parse tensor from proto: " + text_format.MessageToString(proto))


def _tensor_from_proto(data: bytes) -> np.ndarray:
    """TF's ``Tensor::FromProto`` of serialized ``data``: repeated fields longer than
    the shape are cut, shorter ones repeat their last value; ``tensor_content`` must
    hold exactly the shape's bytes."""
    from google.protobuf.message import DecodeError

    from adapters.v1.framework import dtypes
    from adapters.v1.framework.tensor_util import _FIELD, make_ndarray
    from jtrain.protos import tensor_pb2

    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(data)
    except DecodeError:
        import base64

        raise _invalid(
            "Could not parse `serialized` as TensorProto, base64: "
            + base64.b64encode(data).decode()
        ) from None
    dims = [d.size for d in proto.tensor_shape.dim]
    try:
        dt = dtypes.as_dtype(proto.dtype)
    except TypeError:
        raise _no_tensor(proto) from None
    if proto.dtype == 0 or not dt.is_numpy_compatible or proto.tensor_shape.unknown_rank:
        raise _no_tensor(proto)
    if dt.is_quantized:
        raise NotImplementedError(f"tf.io.parse_tensor: quantized dtype {dt.name} is not supported")
    if any(d < 0 for d in dims):
        raise _no_tensor(proto)
    count = int(np.prod(dims, dtype=np.int64))
    if proto.tensor_content and dt.name == "string":
        strings = _string_list(proto.tensor_content, count)
        if strings is None:
            raise _no_tensor(proto)
        out = np.empty(count, dtype=object)
        out[:] = strings
        return out.reshape(dims)
    if proto.tensor_content and dt.name != "string":
        if len(proto.tensor_content) != count * np.dtype(dt.as_numpy_dtype).itemsize:
            raise _no_tensor(proto)
    elif dt.name in _FIELD:
        field = getattr(proto, _FIELD[dt.name])
        per = 2 if dt.is_complex else 1
        if len(field) > count * per:
            del field[count * per :]
    return make_ndarray(proto)


def _string_list(data: bytes, count: int) -> list[bytes] | None:
    """TF's encoded string list (``count`` varint lengths, then the bytes), or ``None``
    when ``data`` is not one."""
    lengths, pos = [], 0
    for _ in range(count):
        value = shift = 0
        while True:
            if pos >= len(data) or shift > 28:
                return None
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        lengths.append(value)
    if pos + sum(lengths) != len(data):
        return None
    out = []
    for n in lengths:
        out.append(bytes(data[pos : pos + n]))
        pos += n
    return out


def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> ops.Tensor:
    """``tf.io.parse_tensor``: the tensor a serialized ``TensorProto`` holds.

    Args:
      serialized: a ``tf.string`` scalar, a serialized ``TensorProto``.
      out_type: the ``DType`` the proto must have.
      name: the operation's name (default ``"ParseTensor"``).

    Returns:
      A tensor of ``out_type`` and unknown shape (known when run).

    Raises:
      TypeError: ``serialized`` is not a string tensor.
      NotImplementedError: ``out_type`` without NumPy values (resource, variant,
        quantized types).
      InvalidArgumentError (at run time): ``serialized`` is not a scalar, not a
        ``TensorProto``, not a valid tensor, or of another dtype than ``out_type``
        (TF's messages).
    """
    from adapters.v1.framework import dtypes
    from adapters.v1.ops.string_ops import _string_input

    dt = dtypes.as_dtype(out_type)
    if not dt.is_numpy_compatible or dt.is_quantized:
        raise NotImplementedError(
            f"tf.io.parse_tensor: out_type {dt.name} has no host values in jtrain; parse "
            "a numeric, bool or string tensor"
        )
    t = _string_input(serialized, "serialized", "ParseTensor")

    def compute(session: Any, value: Any) -> tuple[Any, ...]:
        arr = np.asarray(value, dtype=object)
        if arr.shape != ():
            dims = ",".join(map(str, arr.shape))
            raise _invalid(f"Expected `serialized` to be a scalar, got shape: [{dims}]")
        data = arr.item()
        out = _tensor_from_proto(data.encode() if isinstance(data, str) else bytes(data))
        got = dtypes.as_dtype(out.dtype)
        if got != dt:
            raise _invalid(
                f"Type mismatch between parsed tensor ({_TF_TYPE_NAMES.get(got.name, got.name)}) "
                f"and dtype ({_TF_TYPE_NAMES.get(dt.name, dt.name)})"
            )
        return (out,)

    op = ops.get_default_graph().create_op(
        "ParseTensor",
        name or "ParseTensor",
        inputs=[t],
        compute=compute,
        output_specs=[(None, np.dtype(dt.as_numpy_dtype))],
        host=placement([t]),
    )
    return op.outputs[0]


# TF's C++ ``DataTypeString`` where it differs from the Python name.
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


# -- decode_compressed ------------------------------------------------------------------
def _inflate_error(e: Exception) -> errors.DataLossError:
    """A ``zlib.error`` in TF's words (``inflate() failed with error -3: ...``)."""
    import re

    m = re.match(r"Error (-?\d+) while decompressing data: (.*)", str(e))
    code, text = (m.group(1), m.group(2)) if m else ("?", str(e))
    return errors.DataLossError(None, None, f"inflate() failed with error {code}: {text}")


def _inflate(data: bytes, wbits: int) -> bytes:
    """One zlib/gzip stream inflated as TF's ``ZlibInputStream`` reads it: what
    follows the stream's end is ignored."""
    import zlib

    try:
        return zlib.decompressobj(wbits).decompress(data)
    except zlib.error as e:
        raise _inflate_error(e) from None


def decode_compressed(
    bytes: Any,  # noqa: A002 - TF's name
    compression_type: str = "",
    name: str | None = None,
) -> ops.Tensor:
    """``tf.io.decode_compressed``: each string inflated (``"ZLIB"``, ``"GZIP"``) or
    passed through (``""``).

    Args:
      bytes: a string tensor of compressed records.
      compression_type: ``""`` (default, no compression), ``"ZLIB"`` or ``"GZIP"``.
      name: the operation's name (default ``"DecodeCompressed"``).

    Returns:
      A string tensor of ``bytes``'s shape.

    Raises:
      NotImplementedError: ``"ZSTD"`` (no zstd codec in jtrain's Python).
      InvalidArgumentError (at run time): another ``compression_type`` (TF's message).
      DataLossError (at run time): data that does not inflate (zlib's message, as TF).
    """
    from adapters.v1.ops.string_ops import _unary

    kind = compression_type.decode() if isinstance(compression_type, bytes_) else compression_type
    if kind == "ZSTD":
        raise NotImplementedError(
            "tf.io.decode_compressed: compression_type='ZSTD' is not supported by jtrain; "
            "decompress with the zstandard package in a tf.numpy_function"
        )

    def decode(data: bytes_) -> bytes_:
        if kind == "":
            return data
        if kind == "ZLIB":
            return _inflate(data, 15)
        if kind == "GZIP":
            return _inflate(data, 31)
        raise errors.InvalidArgumentError(
            None, None, "Only ZLIB, ZSTD, GZIP or NONE are supported compressions"
        )

    return _unary("DecodeCompressed", name, bytes, decode)


# -- parse_sequence_example -------------------------------------------------------------
def _batch_sparse(parts: list[Any], dtype: np.dtype) -> tuple[np.ndarray, ...]:
    """Per-example ``SparseTensorValue``s stacked on a new leading batch dimension."""
    rank = len(parts[0].dense_shape) if parts else 1
    indices = [
        np.concatenate([np.full((len(p.indices), 1), b, np.int64), p.indices], axis=1)
        for b, p in enumerate(parts)
    ]
    dense = np.max([p.dense_shape for p in parts], axis=0) if parts else np.zeros(rank, np.int64)
    return (
        np.concatenate(indices) if indices else np.zeros((0, rank + 1), np.int64),
        np.concatenate([np.asarray(p.values, dtype) for p in parts]).astype(dtype)
        if parts
        else np.zeros(0, dtype),
        np.asarray([len(parts), *dense], np.int64),
    )


def _padded(rows: list[np.ndarray], shape: tuple, dtype: np.dtype) -> np.ndarray:
    """``[batch, longest, *shape]``: each example's steps, padded with 0 or ``b""``."""
    longest = max((len(r) for r in rows), default=0)
    out = np.empty((len(rows), longest, *shape), dtype)
    out[...] = b"" if dtype.kind == "O" else 0
    for b, r in enumerate(rows):
        out[b, : len(r)] = r
    return out


def parse_sequence_example(
    serialized: Any,
    context_features: Mapping[str, Any] | None = None,
    sequence_features: Mapping[str, Any] | None = None,
    example_names: Any = None,
    name: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Parses a batch of serialized ``SequenceExample``s (``tf.io.parse_sequence_example``).

    Each record is parsed as by ``parse_single_sequence_example``, then batched: dense
    context features ``[batch, *shape]``; ``FixedLenSequenceFeature``s
    ``[batch, longest, *shape]``, padded with 0 or ``b""``, with their lengths;
    ``VarLenFeature``s ``SparseTensor``s with a leading batch dimension.

    Args:
      serialized: a string vector.
      context_features: ``FixedLenFeature``/``VarLenFeature`` specs of the context.
      sequence_features: ``FixedLenSequenceFeature``/``VarLenFeature`` specs of the
        feature lists.
      example_names: accepted, unused (TF names records in its messages).
      name: the op name (default ``"ParseSequenceExample"``).

    Returns:
      ``(context, feature_lists, lengths)``: dicts of tensors; ``lengths`` holds an
      int64 ``[batch]`` vector per ``FixedLenSequenceFeature``.

    Raises:
      ValueError: an invalid spec, a ``FixedLenSequenceFeature`` with a
        ``default_value`` (TF's message; at graph build).
      InvalidArgumentError (at run time): as ``parse_single_sequence_example``.
    """
    del example_names
    from jtrain.records.parsing_ops import (
        parse_single_sequence_example as parse_sequence,
    )

    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    _specs(context_features, in_example=True)
    for key, spec in sequence_features.items():
        if isinstance(spec, FixedLenFeature):
            raise ValueError(f"sequence feature {key!r} must be a FixedLenSequenceFeature")
    _specs(sequence_features, in_example=False)
    for key, spec in sorted(sequence_features.items()):
        if isinstance(spec, FixedLenSequenceFeature) and spec.default_value is not None:
            raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
    ckeys, skeys = sorted(context_features), sorted(sequence_features)
    lkeys = [k for k in skeys if not isinstance(sequence_features[k], VarLenFeature)]
    (tensor,) = host_inputs([serialized])
    batch = tensor._shape[0] if tensor._shape is not None and len(tensor._shape) == 1 else None
    dtypes_ = {}
    specs: list = []
    for features, key_list, leading in (
        (context_features, ckeys, (batch,)),
        (sequence_features, skeys, (batch, None)),
    ):
        for key in key_list:
            spec = features[key]
            dtype = np.dtype(_NUMPY[_dtype(key, spec.dtype)])
            dtypes_[id(features), key] = dtype
            if isinstance(spec, VarLenFeature):
                rank = len(leading) + 1
                specs += [
                    ((None, rank), np.dtype(np.int64)),
                    ((None,), dtype),
                    ((rank,), np.dtype(np.int64)),
                ]
            else:
                specs.append(((*leading, *(int(d) for d in spec.shape)), dtype))
    specs += [((batch,), np.dtype(np.int64)) for _ in lkeys]

    def compute(session: Any, value: Any) -> tuple[Any, ...]:
        records = np.asarray(value, dtype=object)
        if records.ndim != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Expected serialized to be a vector, got shape: {list(records.shape)}"
            )
        parsed = [parse_sequence(r, context_features, sequence_features) for r in records.tolist()]
        results: list = []
        for index, features, key_list in (
            (0, context_features, ckeys),
            (1, sequence_features, skeys),
        ):
            for key in key_list:
                spec, dtype = features[key], dtypes_[id(features), key]
                got = [p[index][key] for p in parsed]
                if isinstance(spec, VarLenFeature):
                    results += _batch_sparse(got, dtype)
                elif index == 0:
                    shape = tuple(int(d) for d in spec.shape)
                    results.append(
                        np.stack(got).astype(dtype) if got else np.zeros((0, *shape), dtype)
                    )
                else:
                    shape = tuple(int(d) for d in spec.shape)
                    results.append(_padded(got, shape, dtype))
        for key in lkeys:
            results.append(np.asarray([len(p[1][key]) for p in parsed], np.int64))
        return tuple(results)

    op = ops.get_default_graph().create_op(
        "ParseSequenceExample",
        name or "ParseSequenceExample",
        inputs=[tensor],
        compute=compute,
        output_specs=specs,
        host=placement([tensor]),
    )
    n_context = sum(3 if isinstance(context_features[k], VarLenFeature) else 1 for k in ckeys)
    n_sequence = sum(3 if isinstance(sequence_features[k], VarLenFeature) else 1 for k in skeys)
    outs = op.outputs
    return (
        _outputs(ckeys, context_features, outs[:n_context]),
        _outputs(skeys, sequence_features, outs[n_context : n_context + n_sequence]),
        dict(zip(lkeys, outs[n_context + n_sequence :], strict=True)),
    )


# -- decode_json_example ----------------------------------------------------------------
class _JsonError(Exception):
    pass


def _field(number: int, wire: int) -> bytes:
    from jtrain.records.parsing_ops import _varint

    return _varint(number << 3 | wire)


def _delimited(number: int, payload: bytes) -> bytes:
    from jtrain.records.parsing_ops import _varint

    return _field(number, 2) + _varint(len(payload)) + payload


def _json_message(value: Any, where: str) -> list[tuple[str, Any]]:
    if not isinstance(value, list):  # an object, as ordered pairs
        raise _JsonError(f"{where}: expected an object")
    return value


def _json_values(pairs: list[tuple[str, Any]], where: str) -> list[Any]:
    out: list[Any] = []
    for key, value in pairs:
        if key != "value":
            raise _JsonError(f"no such field: '{key}'")
        if value is None:
            continue
        if not isinstance(value, list) or (value and isinstance(value[0], tuple)):
            raise _JsonError(f"{where}.value: expected an array")
        out.extend(value)
    return out


def _json_feature(pairs: list[tuple[str, Any]], where: str) -> bytes:
    import base64
    import math
    import struct

    from jtrain.records.parsing_ops import _varint

    out = b""
    for key, value in pairs:
        if value is None:
            continue
        items = _json_values(_json_message(value, f"{where}.{key}"), f"{where}.{key}")
        if key in ("bytesList", "bytes_list"):
            body = b""
            for v in items:
                if not isinstance(v, str):
                    raise _JsonError(f"{where}.{key}.value: expected a base64 string")
                try:
                    data = base64.b64decode(v + "=" * (-len(v) % 4), altchars=b"-_")
                except ValueError:
                    raise _JsonError(f"{where}.{key}.value: invalid base64") from None
                body += _delimited(1, data)
            out += _delimited(1, body)
        elif key in ("floatList", "float_list"):
            body = b""
            for v in items:
                f = (
                    float(v)
                    if isinstance(v, (int, float, str)) and not isinstance(v, bool)
                    else None
                )
                if f is None or (math.isfinite(f) and abs(f) > 3.4028234663852886e38):
                    raise _JsonError(f"{where}.{key}.value: float out of range")
                if f != 0.0 and abs(f) < 1.1754943508222875e-38:
                    f = math.copysign(0.0, f)  # TF's threads flush float32 subnormals to 0
                body += _field(1, 5) + struct.pack("<f", f)
            out += _delimited(2, body)
        elif key in ("int64List", "int64_list"):
            body = b""
            for v in items:
                try:
                    n = int(v) if not isinstance(v, (bool, float)) else None
                except ValueError:
                    n = None
                if isinstance(v, float) and v.is_integer():
                    n = int(v)
                if n is None or not -(2**63) <= n < 2**63:
                    raise _JsonError(f"{where}.{key}.value: invalid int64")
                body += _field(1, 0) + _varint(n % 2**64)
            out += _delimited(3, body)
        else:
            raise _JsonError(f"no such field: '{key}'")
    return out


def _json_example(text: bytes) -> bytes:
    """An ``Example``'s binary proto from its proto3 JSON, fields in the JSON's order
    and repeated numbers unpacked, as TF's JSON converter writes them."""
    import json

    try:
        doc = json.loads(text, object_pairs_hook=list)
    except (ValueError, UnicodeDecodeError) as e:
        raise _JsonError(f"invalid JSON: {e}") from None
    out = b""
    for key, value in _json_message(doc, "Example"):
        if key != "features":
            raise _JsonError(f"no such field: '{key}'")
        if value is None:
            continue
        body = b""
        for fkey, fvalue in _json_message(value, "features"):
            if fkey != "feature":
                raise _JsonError(f"no such field: '{fkey}'")
            if fvalue is None:
                continue
            for name, feature in _json_message(fvalue, "features.feature"):
                entry = _delimited(1, name.encode()) + _delimited(
                    2, _json_feature(_json_message(feature, name), f"features.feature[{name}]")
                )
                body += _delimited(1, entry)
        out += _delimited(1, body)
    return out


def decode_json_example(json_examples: Any, name: str | None = None) -> ops.Tensor:
    """``tf.io.decode_json_example``: ``Example`` protos in proto3 JSON to binary.

    Fields are written in the order the JSON gives them and repeated numbers unpacked,
    as TF's converter does (so the bytes are TF's); ``bytesList`` values are base64.

    Args:
      json_examples: a string tensor of JSON ``Example``s.
      name: the operation's name (default ``"DecodeJSONExample"``).

    Returns:
      A string tensor of ``json_examples``'s shape.

    Raises:
      InvalidArgumentError (at run time): text that is not an ``Example`` in JSON
        (``Error while parsing JSON: ...``; TF's detail text differs run to run).

    .. note:: A float that is subnormal in float32 becomes 0, as TF's threads flush
       subnormals to zero.
    """
    from adapters.v1.ops.string_ops import _unary

    def decode(text: bytes_) -> bytes_:
        try:
            return _json_example(text)
        except _JsonError as e:
            raise errors.InvalidArgumentError(
                None, None, f"Error while parsing JSON: {e}"
            ) from None

    return _unary("DecodeJSONExample", name, json_examples, decode)
