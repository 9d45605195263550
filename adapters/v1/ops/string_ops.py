"""TF's string operations (``tf.strings.*``, ``tf.string_split``...) as host operations.

XLA has no strings: a string tensor is a host value (an object array of ``bytes``),
and every operation here runs in Python, as ``tf.decode_csv`` does
(``parsing_ops.py``): ``"pre"`` (before the step's program, feeding it) when all its
inputs are host values or placeholders, ``"post"`` (after it) otherwise. Inside a
``tf.data`` function they run on the host with the element (``data/host_graph.py``).
Element-wise ones also take a batch of records at once (``op._batch``).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops.data_flow_ops import host_inputs, placement
from jtrain import errors
from jtrain.records import csv

__all__ = [
    "as_string",
    "is_string",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "string_join",
    "string_length",
    "string_lower",
    "string_split",
    "string_split_v1",
    "string_strip",
    "string_to_hash_bucket_fast",
    "string_to_hash_bucket_strong",
    "string_compare",
    "string_to_number",
    "string_upper",
    "fingerprint64",
    "hash64",
    "string_to_hash_bucket",
    "siphash24",
    "substr",
    "string_format",
    "unicode_script",
    "unicode_transcode",
    "unsorted_segment_join",
]

_STRING = np.dtype(object)
_WHITESPACE = b" \t\n\v\f\r"


def _bytes(value: Any) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)


def _string_input(value: Any, arg: str, op_type: str) -> ops.Tensor:
    """``value`` as a host-readable string tensor (TF's ``TypeError`` otherwise)."""
    if isinstance(value, (list, tuple)) and any(_has_tensor(v) for v in value):
        return _host_pack(value, arg, op_type)
    (tensor,) = host_inputs([value])
    if tensor._np_dtype is None or tensor._np_dtype.kind != "O":
        raise TypeError(
            f"Input '{arg}' of '{op_type}' Op has type {tensor.dtype.name} that does not "
            "match expected type of string."
        )
    return tensor


def _host_pack(values: Sequence[Any], arg: str, op_type: str) -> ops.Tensor:
    """A list of string tensors (or nested lists) stacked on the host, as TF's
    conversion packs it."""
    parts = [
        _host_pack(v, arg, op_type)
        if isinstance(v, (list, tuple))
        else _string_input(v, arg, op_type)
        for v in values
    ]
    shapes = {p._shape for p in parts}
    inner = shapes.pop() if builtin_len(shapes) == 1 else None
    op = _host_op(
        "Pack",
        "packed",
        parts,
        lambda *vs: (np.stack([_strings(v) for v in vs]),),
        [(None if inner is None else (builtin_len(parts), *inner), _STRING)],
    )
    return op.outputs[0]


def _has_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_has_tensor(v) for v in value)
    return isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")


def _host_op(
    op_type: str,
    name: str | None,
    inputs: Sequence[ops.Tensor],
    compute: Callable[..., tuple[Any, ...]],
    output_specs: Sequence[tuple[Any, Any]],
    elementwise: bool = False,
) -> ops.Operation:
    """A host operation computing ``compute(*numpy inputs)``."""
    op = ops.get_default_graph().create_op(
        op_type,
        name or op_type,
        inputs=list(inputs),
        compute=lambda session, *values: compute(*values),
        output_specs=list(output_specs),
        host=placement(inputs),
    )
    if elementwise and len(inputs) == 1:
        op._batch = op._compute
    return op


def constant_value(tensor: ops.Tensor) -> np.ndarray | None:
    """The value of a constant (a graph constant or a host one), else ``None``."""
    op = tensor.op
    if op.type != "Const":
        return None
    if op._const_value is not None:
        return np.asarray(op._const_value)
    return np.asarray(op._compute(None)[0])


def _strings(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=object)


def _map(fn: Callable[[bytes], Any], value: Any, dtype: Any = _STRING) -> np.ndarray:
    """``fn`` applied to each string of ``value``."""
    arr = _strings(value)
    out = np.empty(arr.shape, dtype)
    flat = out.reshape(-1)
    for i, s in enumerate(arr.reshape(-1)):
        flat[i] = fn(bytes(s))
    return out


def _unary(op_type: str, name: str | None, value: Any, fn: Callable, dtype: Any = _STRING):
    if hasattr(value, "with_flat_values"):  # a RaggedTensor: its flat values, as TF's dispatch
        return value.with_flat_values(_unary(op_type, name, value.flat_values, fn, dtype))
    tensor = _string_input(value, "input", op_type)
    op = _host_op(
        op_type,
        name,
        [tensor],
        lambda v: (_map(fn, v, dtype),),
        [(tensor._shape, np.dtype(dtype))],
        elementwise=True,
    )
    return op.outputs[0]


# -- splitting ------------------------------------------------------------------------
def _sparse_split(
    op_type: str, name: str | None, tensor: ops.Tensor, sep: Any, split: Callable, rank: int = 1
) -> SparseTensor:
    """A ``SparseTensor`` of each string's tokens (``split(string, sep)``): indices are
    the string's position (``rank`` coordinates; a scalar is a vector of one) and the
    token's, the dense shape the input's plus the most tokens."""
    (sep_tensor,) = host_inputs([sep])

    def compute(value: Any, delimiter: Any) -> tuple[Any, ...]:
        strings = _strings(value)
        shape = strings.shape if strings.ndim else (1,)
        rows = strings.reshape(-1)
        delim = bytes(np.asarray(delimiter, dtype=object).item())
        indices, values, longest = [], [], 0
        for r, row in enumerate(rows):
            tokens = split(bytes(row), delim)
            longest = max(longest, builtin_len(tokens))
            at = tuple(int(c) for c in np.unravel_index(r, shape))
            indices += [(*at, j) for j in range(builtin_len(tokens))]
            values += tokens
        out_values = np.empty(builtin_len(values), object)
        out_values[:] = values
        return (
            np.asarray(indices, np.int64).reshape(-1, builtin_len(shape) + 1),
            out_values,
            np.asarray([*shape, longest], np.int64),
        )

    specs = [
        ((None, rank + 1), np.dtype(np.int64)),
        ((None,), _STRING),
        ((rank + 1,), np.dtype(np.int64)),
    ]
    op = _host_op(op_type, name, [tensor, sep_tensor], compute, specs)
    return SparseTensor(*op.outputs)


def _check_vector(tensor: ops.Tensor, op_type: str) -> None:
    shape = tensor._shape
    if shape is not None and len(shape) != 1:
        raise ValueError(
            f"Shape must be rank 1 but is rank {len(shape)} for '{{{{node {op_type}}}}} = "
            f"{op_type}[]' with input shapes: {list(shape)}."
        )


def string_split(
    source: Any,
    sep: Any = None,
    skip_empty: bool = True,
    delimiter: Any = None,
    result_type: str = "SparseTensor",
    name: str | None = None,
) -> Any:
    """Splits each string of a vector at any byte of ``sep`` (``tf.compat.v1.string_split``).

    Args:
      source: a 1-D string tensor.
      sep: the delimiter bytes (default ``" "``): each one is a split point; an empty
        ``sep`` splits into single bytes.
      skip_empty: whether empty tokens are dropped (default True).
      delimiter: TF's deprecated alias of ``sep``.
      result_type: ``"SparseTensor"`` (default) or ``"RaggedTensor"``.
      name: the op's name.

    Returns:
      A ``SparseTensor`` of rank 2: ``indices`` ``[n, 2]`` int64 (row, token),
      ``values`` the tokens, ``dense_shape`` ``[rows, most tokens]``; or the
      ``RaggedTensor`` ``[rows, None]`` of the tokens.

    Raises:
      ValueError: ``source`` not a vector; both ``sep`` and ``delimiter``; a
        ``result_type`` other than TF's two.
      NotImplementedError: ``result_type="RaggedTensor"`` with ``sep`` a computed tensor.

    .. note:: A ``sep`` of several bytes is a set of single-byte delimiters (TF's
       ``StringSplit``), unlike ``tf.strings.split``'s.
    """
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    sep = delimiter if sep is None else sep
    _check_result_type(result_type)
    tensor = _string_input(source, "input", "StringSplit")
    _check_vector(tensor, "StringSplit")
    ragged = result_type == "RaggedTensor"

    def split(row: bytes, delim: bytes) -> list[bytes]:
        if not row:
            return []
        if not delim:
            tokens = [row[i : i + 1] for i in range(len(row))]
        else:
            tokens = re.split(b"[" + re.escape(delim) + b"]", row)
        return [t for t in tokens if t] if skip_empty else tokens

    if ragged:
        delim = _python_sep(" " if sep is None else sep, "tf.string_split")
        return _ragged_split("StringSplit", name, tensor, lambda row: split(row, delim))
    return _sparse_split("StringSplit", name, tensor, " " if sep is None else sep, split)


def _python_sep(sep: Any, op: str) -> bytes:
    """A separator given as a Python string (or a constant), as bytes."""
    if isinstance(sep, (str, bytes)):
        return _bytes(sep)
    if isinstance(sep, ops.Tensor):
        known = constant_value(sep)
        if known is not None:
            return bytes(known.item())
    raise NotImplementedError(f"{op} with result_type='RaggedTensor': give sep as a Python string")


def _ragged_split(op_type: str, name: str | None, tensor: ops.Tensor, split: Callable) -> Any:
    from adapters.v1.ops.ragged.ragged_string_ops import split_ragged

    return split_ragged(op_type, name, tensor, split)


def _check_result_type(result_type: str) -> None:
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def string_split_v1(
    input: Any = None,  # noqa: A002 - TF's name
    sep: Any = None,
    maxsplit: int = -1,
    result_type: str = "SparseTensor",
    source: Any = None,
    name: str | None = None,
) -> Any:
    """Splits each string as Python's ``bytes.split`` (``tf.compat.v1.strings.split``).

    Args:
      input: a string tensor (a scalar is a vector of one; an unknown rank is taken
        as a vector, as TF does).
      sep: the separator (a whole string); ``None`` or ``""``: runs of ASCII white
        space, with no empty token.
      maxsplit: at most this many splits per string when positive (default -1: all).
      result_type: ``"SparseTensor"`` (default) or ``"RaggedTensor"``.
      source: TF's alias of ``input``.
      name: the op's name.

    Returns:
      A ``SparseTensor`` of rank ``rank(input) + 1``: indices the string's position and
      the token's, dense shape ``[*input.shape, most tokens]``; or the ``RaggedTensor``
      of the tokens, of rank ``rank(input) + 1`` (the input's dimensions uniform).

    Raises:
      ValueError: both ``input`` and ``source``; an unknown ``result_type``.
      NotImplementedError: ``result_type="RaggedTensor"`` with ``sep`` a computed tensor,
        or an input of unknown rank.
    """
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'")
    value = source if input is None else input
    _check_result_type(result_type)
    tensor = _string_input(value, "input", "StringSplitV2")
    rank = 1 if tensor._shape is None else max(len(tensor._shape), 1)
    limit = int(maxsplit)

    def split(row: bytes, delim: bytes) -> list[bytes]:
        if not delim:
            return _split_whitespace(row, limit)
        return row.split(delim, limit)

    if result_type == "RaggedTensor":
        delim = _python_sep("" if sep is None else sep, "tf.strings.split")
        return _ragged_split("StringSplitV2", name, tensor, lambda row: split(row, delim))
    return _sparse_split("StringSplitV2", name, tensor, "" if sep is None else sep, split, rank)


def _split_whitespace(row: bytes, maxsplit: int) -> list[bytes]:
    """TF's ``StringSplitV2`` on runs of white space: after ``maxsplit`` tokens the rest
    (white space skipped) is one more token, even when empty (Python drops it)."""
    tokens: list[bytes] = []
    pos, n = 0, builtin_len(row)
    while pos < n and row[pos] in _WHITESPACE:
        pos += 1
    while pos < n:
        start = pos
        while pos < n and row[pos] not in _WHITESPACE:
            pos += 1
        tokens.append(row[start:pos])
        while pos < n and row[pos] in _WHITESPACE:
            pos += 1
        if 0 < maxsplit <= builtin_len(tokens):
            tokens.append(row[pos:])
            break
    return tokens


# -- conversions ----------------------------------------------------------------------
_TO_NUMBER = {
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64",
    np.dtype(np.uint32): "uint32",
    np.dtype(np.uint64): "uint64",
}


def string_to_number(
    string_tensor: Any = None,
    out_type: Any = None,
    name: str | None = None,
    input: Any = None,  # noqa: A002 - TF's name
) -> ops.Tensor:
    """Each string as a number of ``out_type`` (``tf.strings.to_number``).

    Numbers are read as TF's ``StringToNumber`` kernel reads them (the rules of
    ``jtrain.records.csv.parse_number``: surrounding white space, decimal integers,
    decimal or hexadecimal floats, ``inf``/``nan``), each rounded once.

    Args:
      string_tensor: a string tensor of any shape.
      out_type: float32 (default), float64, int32, int64, uint32 or uint64.
      name: the op's name.
      input: TF's alias of ``string_tensor``.

    Returns:
      A tensor of ``out_type`` with the input's shape.

    Raises:
      TypeError: another ``out_type``.
      InvalidArgumentError (at run time): "StringToNumberOp could not correctly convert
        string: ..." for a string that is not a number of the type (or out of range).
    """
    if string_tensor is not None and input is not None:
        raise ValueError("Cannot specify both 'string_tensor' and 'input'")
    value = input if string_tensor is None else string_tensor
    if hasattr(value, "with_flat_values"):  # TF's v1 to_number has no ragged dispatch
        raise TypeError(
            "Expected string passed to parameter 'string_tensor' of op 'StringToNumber', "
            f"got {value} of type 'RaggedTensor' instead. Error: Expected string, but got "
            f"{value} of type 'RaggedTensor'."
        )
    dtype = np.dtype(np.float32) if out_type is None else ops.as_dtype(out_type).dtype
    if dtype not in _TO_NUMBER:
        raise TypeError(
            f"Value passed to parameter 'out_type' has DataType {ops.as_dtype(dtype).name} "
            "not in list of allowed values: float32, float64, int32, int64, uint32, uint64"
        )

    def convert(text: bytes) -> Any:
        number = csv.parse_number(text, dtype)
        if number is None:
            raise errors.InvalidArgumentError(
                None,
                None,
                "StringToNumberOp could not correctly convert string: "
                + text.decode("utf-8", "replace"),
            )
        return number

    return _unary("StringToNumber", name, value, convert, dtype)


def _printf_format(
    dtype: np.dtype, precision: int, scientific: bool, shortest: bool, width: int, fill: str
) -> str:
    """TF's ``AsString`` printf format for ``dtype``; its errors."""
    floating = dtype.kind in "fc"
    name = ops.as_dtype(dtype).name
    if not floating:
        if scientific or shortest:
            raise errors.InvalidArgumentError(
                None, None, f"scientific and shortest format not supported for datatype {name}"
            )
        if precision > -1:
            raise errors.InvalidArgumentError(
                None, None, f"precision not supported for datatype {name}"
            )
    if len(fill) > 1:
        raise errors.InvalidArgumentError(None, None, "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise errors.InvalidArgumentError(
            None, None, "Cannot select both scientific and shortest notation"
        )
    if fill and fill not in "-0 +#":
        raise NotImplementedError(
            f"tf.as_string fill={fill!r}: TF passes it to printf as a flag; adapters.v1 "
            "takes only printf's flags ' ', '0', '-', '+', '#'"
        )
    fmt = "%"
    if width > -1:
        fmt += f"{fill}{width}"
    if precision > -1:
        fmt += f".{precision}"
    if floating:
        fmt += "g" if shortest else "e" if scientific else "f"
    else:
        fmt += "d"
    return fmt


def as_string(
    input: Any,  # noqa: A002 - TF's name
    precision: int = -1,
    scientific: bool = False,
    shortest: bool = False,
    width: int = -1,
    fill: str = "",
    name: str | None = None,
) -> ops.Tensor:
    """Each element as a string, printf-formatted (``tf.strings.as_string``).

    Args:
      input: a numeric or bool tensor.
      precision: digits after the point of floats (default -1: printf's 6).
      scientific: ``%e`` for floats (default False).
      shortest: ``%g`` for floats (default False).
      width: the minimum width (default -1: none), padded with ``fill``.
      fill: a printf flag character (``"0"``, ``"-"``, ``" "``...; default ``""``).
      name: the op's name.

    Returns:
      A string tensor of the input's shape (bools as ``b"true"``/``b"false"``,
      complex numbers as ``(re,im)``).

    Raises:
      InvalidArgumentError (at run time): TF's messages for precision or notation on
        integers, both notations, a fill longer than one character.
      NotImplementedError: a fill character that is not a printf flag.
    """
    if hasattr(input, "with_flat_values"):  # a RaggedTensor, as TF's dispatch
        return input.with_flat_values(
            as_string(input.flat_values, precision, scientific, shortest, width, fill, name)
        )
    (tensor,) = host_inputs([input])
    dtype = tensor._np_dtype
    if dtype is None or dtype.kind not in "biufc" or dtype.itemsize > 8 and dtype.kind == "c":
        raise TypeError(
            f"Value passed to parameter 'input' has DataType {tensor.dtype.name} not in "
            "list of allowed values: float32, float64, int32, uint8, int16, int8, int64, "
            "bfloat16, uint16, float16, uint32, uint64, complex64, complex128, bool, variant, "
            "string"
        )
    fill = fill.decode() if isinstance(fill, bytes) else fill

    def compute(value: Any) -> tuple[Any, ...]:
        arr = np.asarray(value)
        out = np.empty(arr.shape, object)
        flat = out.reshape(-1)
        if arr.dtype.kind == "b":
            for i, v in enumerate(arr.reshape(-1)):
                flat[i] = b"true" if v else b"false"
            return (out,)
        fmt = _printf_format(arr.dtype, precision, scientific, shortest, width, fill)
        for i, v in enumerate(arr.reshape(-1)):
            if arr.dtype.kind == "c":
                text = f"({fmt % float(v.real)},{fmt % float(v.imag)})"
            elif arr.dtype.kind == "f":
                text = fmt % float(v)
            else:
                text = fmt % int(v)
            flat[i] = text.encode()
        return (out,)

    op = _host_op("AsString", name, [tensor], compute, [(tensor._shape, _STRING)], True)
    return op.outputs[0]


# -- comparisons ----------------------------------------------------------------------
def is_string(value: Any) -> bool:
    """Whether ``value`` (a tensor, array or Python value) holds strings."""
    if isinstance(value, ops.Tensor):
        return value._np_dtype is not None and value._np_dtype.kind == "O"
    if hasattr(value, "_as_graph_tensor"):
        return False  # variables: never strings
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, (list, tuple)):
        return any(is_string(v) for v in value)
    return isinstance(value, np.ndarray) and value.dtype.kind in "SUO"


def string_compare(op_type: str, x: Any, y: Any, name: str | None = None) -> ops.Tensor:
    """``tf.equal``/``tf.not_equal`` of strings (``op_type`` ``"Equal"``/``"NotEqual"``):
    element-wise, broadcasting, on the host; a bool tensor.

    Raises:
      TypeError: one side not strings.
      ValueError: shapes that do not broadcast (at graph build).
    """
    tx = _string_input(x, "x", op_type)
    ty = _string_input(y, "y", op_type)
    shape = _broadcast_shape([tx._shape, ty._shape], op_type)
    equal = op_type == "Equal"

    def compute(a: Any, b: Any) -> tuple[Any, ...]:
        a, b = np.broadcast_arrays(_strings(a), _strings(b))
        out = np.empty(a.shape, np.bool_)
        flat = out.reshape(-1)
        for i, (p, q) in enumerate(zip(a.reshape(-1), b.reshape(-1), strict=True)):
            flat[i] = (bytes(p) == bytes(q)) == equal
        return (out,)

    op = _host_op(op_type, name, [tx, ty], compute, [(shape, np.dtype(np.bool_))])
    return op.outputs[0]


# -- element-wise ---------------------------------------------------------------------
def string_length(input: Any, name: str | None = None, unit: str = "BYTE") -> ops.Tensor:  # noqa: A002
    """The length of each string in bytes or UTF-8 characters (``tf.strings.length``).

    Args:
      input: a string tensor.
      name: the op's name.
      unit: ``"BYTE"`` (default) or ``"UTF8_CHAR"`` (code points; bytes that do not
        continue a character).

    Returns:
      An int32 tensor of the input's shape.

    Raises:
      ValueError: another ``unit``.
    """
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(
            f"Attr 'unit' of 'StringLength' Op passed string '{unit}' not in: "
            '"BYTE", "UTF8_CHAR".'
        )
    if unit == "BYTE":
        return _unary("StringLength", name, input, len, np.int32)
    return _unary(
        "StringLength", name, input, lambda s: sum((b & 0xC0) != 0x80 for b in s), np.int32
    )


def _case(op_type: str, encoding: str, ascii_fn: Callable, text_fn: Callable) -> Callable:
    if encoding in ("", None):
        return ascii_fn
    if encoding.lower().replace("-", "") != "utf8":
        raise NotImplementedError(
            f"tf.strings.{op_type[6:].lower()} encoding={encoding!r}: adapters.v1 takes "
            "'' (ASCII) or 'utf-8'"
        )
    return lambda s: text_fn(s.decode("utf-8")).encode("utf-8")


def string_lower(input: Any, encoding: str = "", name: str | None = None) -> ops.Tensor:  # noqa: A002
    """Lower-cases each string: ASCII letters (``encoding=""``) or Unicode (``"utf-8"``)
    (``tf.strings.lower``)."""
    fn = _case("StringLower", encoding, bytes.lower, str.lower)
    return _unary("StringLower", name, input, fn)


def string_upper(input: Any, encoding: str = "", name: str | None = None) -> ops.Tensor:  # noqa: A002
    """Upper-cases each string: ASCII letters (``encoding=""``) or Unicode (``"utf-8"``)
    (``tf.strings.upper``)."""
    fn = _case("StringUpper", encoding, bytes.upper, str.upper)
    return _unary("StringUpper", name, input, fn)


def string_strip(input: Any, name: str | None = None) -> ops.Tensor:  # noqa: A002
    """Removes leading and trailing ASCII white space (``tf.strings.strip``)."""
    return _unary("StringStrip", name, input, lambda s: s.strip(_WHITESPACE))


def _broadcast_shape(shapes: Sequence[Any], what: str) -> Any:
    """The static broadcast of ``shapes`` (``None``: unknown)."""
    from adapters.v1.ops.array_ops import broadcast_static_shape

    shape: Any = ()
    for s in shapes:
        shape = broadcast_static_shape(shape, s) if shape is not None and s is not None else None
    return shape


def string_join(inputs: Sequence[Any], separator: str = "", name: str | None = None) -> ops.Tensor:
    """Joins strings element-wise with ``separator`` (``tf.strings.join``).

    Args:
      inputs: string tensors, each a scalar or of one common shape (scalars broadcast).
      separator: put between the strings (default ``""``).
      name: the op's name.

    Returns:
      A string tensor of the inputs' common shape.

    Raises:
      ValueError: shapes that are neither scalars nor equal (at graph build when known).
      InvalidArgumentError (at run time): the same, for shapes known only then.
      NotImplementedError: ragged inputs not sharing their row splits tensors, or with
        dense inputs that are not scalars.
    """
    ragged = [v for v in inputs if hasattr(v, "with_flat_values")]
    if ragged:  # TF's dispatch: the flat values joined, the first one's row partition
        splits = ragged[0].nested_row_splits
        flat = []
        for v in inputs:
            if hasattr(v, "with_flat_values"):
                same = v.nested_row_splits
                if len(same) != len(splits) or any(
                    a is not b for a, b in zip(same, splits, strict=True)
                ):
                    raise NotImplementedError(
                        "tf.strings.join of ragged tensors: adapters.v1 needs them to share "
                        "their row splits tensors"
                    )
                flat.append(v.flat_values)
            elif np.ndim(v) if not isinstance(v, ops.Tensor) else v._shape != ():
                raise NotImplementedError(
                    "tf.strings.join of a ragged tensor with a non-scalar dense one"
                )
            else:
                flat.append(v)
        return ragged[0].with_flat_values(string_join(flat, separator, name))
    tensors = [_string_input(v, "inputs", "StringJoin") for v in inputs]
    shapes = [t._shape for t in tensors]
    known = [s for s in shapes if s is not None and len(s) > 0]
    out_shape: Any = ()
    if any(s is None for s in shapes):
        out_shape = None
    elif known:
        first = known[0]
        for s in known[1:]:
            if len(s) != len(first) or any(
                a is not None and b is not None and a != b for a, b in zip(s, first, strict=True)
            ):
                raise ValueError(
                    f"Dimension 0 in both shapes must be equal, but are {first[0]} and {s[0]}."
                    if len(s) == len(first)
                    else f"Shapes must be equal rank, but are {len(first)} and {len(s)}"
                )
        out_shape = tuple(
            next((s[i] for s in known if s[i] is not None), None) for i in range(len(first))
        )
    sep = _bytes(separator)

    def compute(*values: Any) -> tuple[Any, ...]:
        arrays = [_strings(v) for v in values]
        shape: tuple = ()
        for a in arrays:
            if a.ndim == 0:
                continue
            if shape and a.shape != shape:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Input shapes do not match: {list(shape)} vs. {list(a.shape)}",
                )
            shape = a.shape
        parts = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
        out = np.empty(shape, object)
        flat = out.reshape(-1)
        for i in range(flat.size):
            flat[i] = sep.join(bytes(p[i]) for p in parts)
        return (out,)

    op = _host_op("StringJoin", name, tensors, compute, [(out_shape, _STRING)])
    return op.outputs[0]


def substr(
    input: Any,  # noqa: A002 - TF's name
    pos: Any,
    len: Any,  # noqa: A002 - TF's name
    name: str | None = None,
    unit: str = "BYTE",
) -> ops.Tensor:
    """The substring of each string at ``pos`` of length ``len`` (``tf.strings.substr``).

    Args:
      input: a string tensor.
      pos: int32/int64, broadcast with ``input``: the first byte; a negative one counts
        from the end.
      len: the substring's length (past the string's end: to the end).
      name: the op's name.
      unit: ``"BYTE"`` (default) or ``"UTF8_CHAR"`` (``pos``/``len`` count characters:
        bytes that do not continue a UTF-8 sequence).

    Returns:
      A string tensor of the broadcast shape.

    Raises:
      InvalidArgumentError (at run time): "pos P out of range for string" for a
        ``pos`` past either end.
      ValueError: another ``unit``.
    """
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(
            f"Attr 'unit' of 'Substr' Op passed string '{unit}' not in: \"BYTE\", \"UTF8_CHAR\"."
        )
    chars = unit == "UTF8_CHAR"
    if hasattr(input, "with_flat_values"):  # a RaggedTensor: scalar pos/len, as TF's dispatch
        if np.ndim(pos) or np.ndim(len):
            raise NotImplementedError("tf.strings.substr of a ragged tensor: give scalar pos/len")
        return input.with_flat_values(substr(input.flat_values, pos, len, name, unit))
    tensor = _string_input(input, "input", "Substr")
    pos_t, len_t = host_inputs([pos, len])
    for t in (pos_t, len_t):
        if t._np_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise TypeError(
                f"Value passed to parameter 'pos' has DataType {t.dtype.name} not in list "
                "of allowed values: int32, int64"
            )
    if pos_t._np_dtype != len_t._np_dtype:
        raise TypeError(
            f"Input 'len' of 'Substr' Op has type {len_t.dtype.name} that does not match "
            f"type {pos_t.dtype.name} of argument 'pos'."
        )
    shape = _broadcast_shape([tensor._shape, pos_t._shape, len_t._shape], "Substr")

    def compute(value: Any, p: Any, n: Any) -> tuple[Any, ...]:
        strings, p, n = np.broadcast_arrays(_strings(value), np.asarray(p), np.asarray(n))
        out = np.empty(strings.shape, object)
        flat = out.reshape(-1)
        for i, (s, start, length) in enumerate(
            zip(strings.reshape(-1), p.reshape(-1), n.reshape(-1), strict=True)
        ):
            s, start, length = bytes(s), int(start), int(length)
            # the units' byte offsets: every byte, or where each UTF-8 character starts
            bounds = [j for j, b in enumerate(s) if not chars or (b & 0xC0) != 0x80]
            size = builtin_len(bounds)
            bounds.append(builtin_len(s))
            at = start + size if start < 0 else start
            if at < 0 or at > size:
                shown = "" if chars else f" b'{s.decode('latin-1')}'"
                raise errors.InvalidArgumentError(
                    None, None, f"pos {start} out of range for string{shown} at index {i}"
                )
            flat[i] = s[bounds[at] : bounds[min(at + max(length, 0), size)]]
        return (out,)

    op = _host_op("Substr", name, [tensor, pos_t, len_t], compute, [(shape, _STRING)])
    return op.outputs[0]


builtin_len = len


def reduce_join(
    inputs: Any,
    axis: Any = None,
    keep_dims: bool | None = None,
    separator: str = "",
    name: str | None = None,
    reduction_indices: Any = None,
    keepdims: bool | None = None,
) -> ops.Tensor:
    """Joins strings across ``axis`` (``tf.strings.reduce_join``).

    Args:
      inputs: a string tensor of known rank.
      axis: the axes joined (default None: all), negative ones from the end.
      keep_dims: TF's deprecated alias of ``keepdims``.
      separator: put between joined strings (default ``""``).
      name: the op's name.
      reduction_indices: TF's deprecated alias of ``axis``.
      keepdims: keep the joined axes with length 1 (default False).

    Returns:
      A string tensor.

    Raises:
      ValueError: an axis out of range; both an argument and its alias.
    """
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'")
    axis = reduction_indices if axis is None else axis
    tensor = _string_input(inputs, "inputs", "ReduceJoin")
    if tensor._shape is None:
        raise NotImplementedError("tf.strings.reduce_join of a tensor of unknown rank")
    rank = builtin_len(tensor._shape)
    axes = list(range(rank)) if axis is None else [int(a) for a in np.ravel(axis)]
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
    axes = sorted({a % rank for a in axes}) if rank else []
    shape = tuple((1 if keep else None) if i in axes else d for i, d in enumerate(tensor._shape))
    shape = tuple(d for i, d in enumerate(shape) if keep or i not in axes)
    sep = _bytes(separator)

    def compute(value: Any) -> tuple[Any, ...]:
        arr = _strings(value)
        kept = [i for i in range(arr.ndim) if i not in axes]
        moved = np.transpose(arr, kept + axes)
        lead = moved.shape[: builtin_len(kept)]
        rows = moved.reshape(int(np.prod(lead)), -1)
        out = np.empty(rows.shape[0], object)
        for i, row in enumerate(rows):
            out[i] = sep.join(bytes(s) for s in row)
        out = out.reshape(lead)
        if keep:
            out = out.reshape([1 if i in axes else arr.shape[i] for i in range(arr.ndim)])
        return (out,)

    op = _host_op("ReduceJoin", name, [tensor], compute, [(shape, _STRING)])
    return op.outputs[0]


# -- regular expressions (RE2 syntax) --------------------------------------------------
_UNSUPPORTED = [
    (re.compile(r"\(\?[=!]|\(\?<[=!]"), "look-around assertions (RE2 has none)"),
    (re.compile(r"\\[1-9]"), "back-references (RE2 has none)"),
    (re.compile(r"\(\?>|[*+?}][+]"), "atomic groups and possessive quantifiers"),
    (re.compile(r"\\[ZGbB]"), "\\Z, \\G, \\b or \\B (their meaning differs from RE2's)"),
    (re.compile(r"\(\?[a-zA-Z]*[mxuLa]"), "flags other than i, s and U"),
    (re.compile(r"\{,"), "'{,n}' (RE2 reads it literally)"),
    (re.compile(r"\[\[:|\\[pPC]|\\Q|\(\?P="), "POSIX classes, \\p, \\C, \\Q or (?P=...)"),
    (re.compile(r"\\[sS]"), "\\s and \\S (RE2's exclude \\v)"),
]


def _python_pattern(pattern: str, op: str) -> re.Pattern:
    """An RE2 pattern as the Python pattern matching the same strings, or
    ``NotImplementedError`` where the two syntaxes read it differently."""
    for check, what in _UNSUPPORTED:
        if check.search(pattern):
            raise NotImplementedError(
                f"{op}: pattern {pattern!r} uses {what}; adapters.v1 runs RE2 patterns "
                "with Python's re and refuses syntax the two read differently: rewrite the "
                "pattern without it"
            )
    # RE2's `$` (without (?m)) matches only at the end; Python's also before a final
    # newline; RE2's `\z` is Python's `\Z`.
    out, i, in_class = [], 0, False
    while i < builtin_len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < builtin_len(pattern):
            nxt = pattern[i + 1]
            out.append("\\Z" if nxt == "z" and not in_class else c + nxt)
            i += 2
            continue
        if in_class:
            in_class = c != "]" or out[-1] == "["
        elif c == "[":
            in_class = True
        elif c == "$":
            c = "\\Z"
        out.append(c)
        i += 1
    try:
        return re.compile("".join(out), re.ASCII)
    except re.error as e:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid pattern: {pattern}, error: {e}"
        ) from None


def _text(s: bytes, op: str) -> str:
    try:
        return s.decode("utf-8")
    except UnicodeDecodeError:
        raise NotImplementedError(
            f"{op} of a string that is not UTF-8 ({s[:20]!r}): RE2 reads bytes as Latin-1 "
            "then, which adapters.v1 does not reproduce"
        ) from None


def _pattern_input(pattern: Any, op: str) -> re.Pattern | None:
    if isinstance(pattern, (str, bytes)):
        return _python_pattern(pattern.decode() if isinstance(pattern, bytes) else pattern, op)
    return None


def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> ops.Tensor:  # noqa: A002
    """Whether each string matches ``pattern`` (RE2 syntax) as a whole
    (``tf.strings.regex_full_match``).

    Raises:
      NotImplementedError: a pattern RE2 and Python's ``re`` read differently, a pattern
        given as a tensor.
      InvalidArgumentError (at run time): an invalid pattern.
    """
    compiled = _pattern_input(pattern, "tf.strings.regex_full_match")
    if compiled is None:
        raise NotImplementedError(
            "tf.strings.regex_full_match: give the pattern as a Python string"
        )
    return _unary(
        "RegexFullMatch",
        name,
        input,
        lambda s: compiled.fullmatch(_text(s, "regex_full_match")) is not None,
        np.bool_,
    )


def _expand(rewrite: str, match: re.Match) -> tuple[str, bool]:
    """RE2's rewrite string: ``\\0``-``\\9`` the groups, ``\\\\`` a backslash; with
    whether it was valid (RE2 stops at another escape)."""
    out, i = [], 0
    while i < builtin_len(rewrite):
        c = rewrite[i]
        if c == "\\":
            nxt = rewrite[i + 1 : i + 2]
            if nxt.isdigit():
                out.append(match.group(int(nxt)) or "")
            elif nxt == "\\":
                out.append("\\")
            else:
                return "".join(out), False
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), True


def _groups_valid(rewrite: str, groups: int) -> bool:
    """Whether ``rewrite`` names only groups a pattern of ``groups`` groups has (else
    RE2's replace changes nothing)."""
    named = [int(d) for d in re.findall(r"\\(\d)", rewrite.replace("\\\\", ""))]
    return all(d <= groups for d in named)


def regex_replace(
    input: Any,  # noqa: A002 - TF's name
    pattern: Any,
    rewrite: Any,
    replace_global: bool = True,
    name: str | None = None,
) -> ops.Tensor:
    """Replaces matches of ``pattern`` (RE2 syntax) by ``rewrite``
    (``tf.strings.regex_replace``).

    Args:
      input: a string tensor.
      pattern: an RE2 pattern (a Python string).
      rewrite: the replacement; ``\\0``..``\\9`` insert groups, ``\\\\`` a backslash.
      replace_global: every non-overlapping match (default True), else the first.
      name: the op's name.

    Returns:
      A string tensor of the input's shape.

    Raises:
      NotImplementedError: a pattern RE2 and Python's ``re`` read differently (look-
        arounds, back-references, ``\\b``, ``\\s``...), a pattern or rewrite given as a
        tensor, a non-UTF-8 string.
      InvalidArgumentError (at run time): an invalid pattern.

    .. note:: As RE2's global replace, an empty match right after a match is skipped
       (Python's ``re.sub`` replaces it). A rewrite naming a group the pattern lacks,
       or with another escape than a digit or a backslash, changes nothing; with another escape
       than a digit or a backslash, a match is replaced by the rewrite up to it
       (``replace_global=False``: nothing is replaced), as RE2 does.
    """
    op_name = "tf.strings.regex_replace"
    compiled = _pattern_input(pattern, op_name)
    if compiled is None or not isinstance(rewrite, (str, bytes)):
        raise NotImplementedError(f"{op_name}: give the pattern and rewrite as Python strings")
    text_rewrite = rewrite.decode() if isinstance(rewrite, bytes) else rewrite
    valid = _groups_valid(text_rewrite, compiled.groups)

    def replace(s: bytes) -> bytes:
        if not valid:
            return s
        text = _text(s, "regex_replace")
        out, last, last_match_end = [], 0, -1
        for m in compiled.finditer(text):
            if m.start() == m.end() == last_match_end:
                continue  # RE2: no empty match just after the previous match
            replacement, ok = _expand(text_rewrite, m)
            if not ok and not replace_global:
                return s  # RE2's Replace fails: nothing replaced
            out.append(text[last : m.start()])
            out.append(replacement)
            last = last_match_end = m.end()
            if not replace_global:
                break
        out.append(text[last:])
        return "".join(out).encode("utf-8")

    return _unary("RegexReplace", name, input, replace)


# -- hashing --------------------------------------------------------------------------
# FarmHash's Fingerprint64 and SipHash-2-4, our own ports of the published algorithms,
# checked bit-exact against TF's to_hash_bucket_fast/strong (tests/interop).
_M = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _fetch64(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _fetch32(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rot(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M


def _mix(v: int) -> int:
    return v ^ (v >> 47)


def _len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s: bytes, n: int) -> int:
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _M
        b = _fetch64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        a = _fetch32(s, 0)
        return _len16((n + (a << 3)) & _M, _fetch32(s, n - 4), mul)
    if n > 0:
        a, b, c = s[0], s[n >> 1], s[n - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (n + (c << 2)) & 0xFFFFFFFF
        return (_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _len17to32(s: bytes, n: int) -> int:
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K1) & _M
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M
    d = (_fetch64(s, n - 16) * _K2) & _M
    return _len16(
        (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
        (a + _rot((b + _K2) & _M, 18) + c) & _M,
        mul,
    )


def _len33to64(s: bytes, n: int) -> int:
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K2) & _M
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M
    d = (_fetch64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _len16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    e = (_fetch64(s, 16) * mul) & _M
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _M
    h = ((z + _fetch64(s, n - 24)) * mul) & _M
    return _len16(
        (_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
        (e + _rot((f + a) & _M, 18) + g) & _M,
        mul,
    )


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _fetch64(s, i), _fetch64(s, i + 8), _fetch64(s, i + 16), _fetch64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(s: bytes) -> int:
    """FarmHash's ``Fingerprint64`` (``farmhashna::Hash64``) of ``s``: TF's
    ``Fingerprint64``, for ``to_hash_bucket_fast`` and vocabulary tables' buckets."""
    n = len(s)
    if n <= 16:
        return _len0to16(s, n)
    if n <= 32:
        return _len17to32(s, n)
    if n <= 64:
        return _len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_mix((y * _K2 + 113) & _M) * _K2) & _M
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _fetch64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _fetch64(s, i + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v[1] + _fetch64(s, i + 48)) & _M, 42) * _K1) & _M
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _M
        z = (_rot((z + w[0]) & _M, 33) * _K1) & _M
        v = _weak32(s, i, (v[1] * _K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _fetch64(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _M, w[1])
    v = ((v[0] + w[0]) & _M, v[1])
    w = ((w[0] + v[0]) & _M, w[1])
    x = (_rot((x + y + v[0] + _fetch64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v[1] + _fetch64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _M
    z = (_rot((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, i, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _fetch64(s, i + 16)) & _M)
    z, x = x, z
    return _len16(
        (_len16(v[0], w[0], mul) + _mix(y) * _K0 + z) & _M,
        (_len16(v[1], w[1], mul) + x) & _M,
        mul,
    )


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` keyed by ``(k0, k1)`` (TF's ``StrongKeyedHash``)."""
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rounds(v0: int, v1: int, v2: int, v3: int, n: int) -> tuple[int, int, int, int]:
        for _ in range(n):
            v0 = (v0 + v1) & _M
            v1 = ((v1 << 13) | (v1 >> 51)) & _M
            v1 ^= v0
            v0 = ((v0 << 32) | (v0 >> 32)) & _M
            v2 = (v2 + v3) & _M
            v3 = ((v3 << 16) | (v3 >> 48)) & _M
            v3 ^= v2
            v0 = (v0 + v3) & _M
            v3 = ((v3 << 21) | (v3 >> 43)) & _M
            v3 ^= v0
            v2 = (v2 + v1) & _M
            v1 = ((v1 << 17) | (v1 >> 47)) & _M
            v1 ^= v2
            v2 = ((v2 << 32) | (v2 >> 32)) & _M
        return v0, v1, v2, v3

    n = len(data)
    full = n - n % 8
    for i in range(0, full, 8):
        m = struct.unpack_from("<Q", data, i)[0]
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    last = ((n & 0xFF) << 56) | int.from_bytes(data[full:], "little")
    v3 ^= last
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def hash64(data: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TF's own ``Hash64`` (a 64-bit MurmurHash2 with TF's seed), of
    ``to_hash_bucket``."""
    m, r = 0xC6A4A7935BD1E995, 47
    n = len(data)
    h = (seed ^ (n * m)) & _M
    full = n - n % 8
    for i in range(0, full, 8):
        k = struct.unpack_from("<Q", data, i)[0]
        k = (k * m) & _M
        k ^= k >> r
        k = (k * m) & _M
        h ^= k
        h = (h * m) & _M
    rest = data[full:]
    if rest:
        h ^= int.from_bytes(rest, "little")
        h = (h * m) & _M
    h ^= h >> r
    h = (h * m) & _M
    h ^= h >> r
    return h


def _num_buckets(num_buckets: Any, op_type: str) -> int:
    n = int(num_buckets)
    if n < 1:
        raise ValueError(
            f"Value for attr 'num_buckets' of {n} must be at least minimum 1\n\t; NodeDef: "
            f"{{{{node {op_type}}}}}"
        )
    return n


def string_to_hash_bucket(
    string_tensor: Any = None,
    num_buckets: Any = None,
    name: str | None = None,
    input: Any = None,  # noqa: A002 - TF's name
) -> ops.Tensor:
    """Each string's bucket: TF's ``Hash64(s) % num_buckets``
    (``tf.strings.to_hash_bucket``; prefer ``to_hash_bucket_fast``, as TF says).

    Args:
      string_tensor: a string tensor.
      num_buckets: the number of buckets (>= 1).
      name: the op's name.
      input: TF's alias of ``string_tensor``.

    Returns:
      An int64 tensor of the input's shape.
    """
    if string_tensor is not None and input is not None:
        raise ValueError("Cannot specify both 'string_tensor' and 'input'")
    value = input if string_tensor is None else string_tensor
    n = _num_buckets(num_buckets, "StringToHashBucket")
    return _unary("StringToHashBucket", name, value, lambda s: hash64(s) % n, np.int64)


def string_to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> ops.Tensor:  # noqa: A002
    """Each string's bucket: FarmHash ``Fingerprint64(s) % num_buckets``
    (``tf.strings.to_hash_bucket_fast``).

    Args:
      input: a string tensor.
      num_buckets: the number of buckets (>= 1).
      name: the op's name.

    Returns:
      An int64 tensor of the input's shape.

    Raises:
      ValueError: ``num_buckets`` < 1.
    """
    n = _num_buckets(num_buckets, "StringToHashBucketFast")
    return _unary("StringToHashBucketFast", name, input, lambda s: fingerprint64(s) % n, np.int64)


def string_to_hash_bucket_strong(
    input: Any,  # noqa: A002 - TF's name
    num_buckets: int,
    key: Any,
    name: str | None = None,
) -> ops.Tensor:
    """Each string's bucket: SipHash-2-4 keyed by ``key``, modulo ``num_buckets``
    (``tf.strings.to_hash_bucket_strong``).

    Args:
      input: a string tensor.
      num_buckets: the number of buckets (>= 1).
      key: two integers, the hash's key (int64s, taken as their unsigned bits).
      name: the op's name.

    Returns:
      An int64 tensor of the input's shape.

    Raises:
      ValueError: ``num_buckets`` < 1.
      InvalidArgumentError (at run time): a ``key`` not of two elements (TF's message).
    """
    n = _num_buckets(num_buckets, "StringToHashBucketStrong")
    k = [int(v) % (1 << 64) for v in key]

    def bucket(s: bytes) -> int:
        if builtin_len(k) != 2:
            raise errors.InvalidArgumentError(None, None, "Key must have 2 elements")
        return siphash24(k[0], k[1], s) % n

    return _unary("StringToHashBucketStrong", name, input, bucket, np.int64)


# -- formatting -----------------------------------------------------------------------
def string_format(
    template: str,
    inputs: Any,
    placeholder: str = "{}",
    summarize: int = 3,
    name: str | None = None,
) -> ops.Tensor:
    """A scalar string: ``template`` with each ``placeholder`` replaced by a tensor
    printed as ``tf.print`` prints it (``tf.strings.format``).

    Args:
      template: the template (a Python string).
      inputs: a tensor or a list of tensors (Python values are converted), one per
        placeholder, in order.
      placeholder: the placeholder in ``template`` (default ``"{}"``).
      summarize: elements printed at each end of every dimension (default 3; -1: all):
        ``[0 1 2 ... 7 8 9]``.
      name: the op's name.

    Returns:
      A scalar string tensor.

    Raises:
      ValueError: a placeholder count unlike the number of inputs (TF's message).

    .. note:: Strings are printed quoted and C-escaped (``["x\\n" "y"]``), bools as
       ``1``/``0``, floats as TF's shortest round-trip form, as ``tf.print`` does.
    """
    from adapters.v1.ops.logging_ops import _format_v2

    values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if any(hasattr(v, "nested_row_splits") for v in values):
        return _format_ragged(template, values, placeholder, summarize, name)
    count = template.count(placeholder)
    if count != builtin_len(values):
        raise ValueError(
            f"The template expects {count} tensors, but the inputs only has "
            f"{builtin_len(values)}. Please ensure the number of placeholders in template "
            "matches inputs length."
        )
    tensors = host_inputs(values)
    pieces = template.split(placeholder)
    n = int(summarize)

    def compute(*arrays: Any) -> tuple[Any, ...]:
        out = [pieces[0]]
        for value, piece in zip(arrays, pieces[1:], strict=True):
            out.append(_format_v2(np.asarray(value), n))
            out.append(piece)
        return (np.asarray("".join(out).encode("utf-8"), dtype=object),)

    op = _host_op("StringFormat", name, tensors, compute, [((), _STRING)])
    return op.outputs[0]


def _format_ragged(
    template: str, values: list, placeholder: str, summarize: Any, name: str | None
) -> ops.Tensor:
    """``tf.strings.format`` with ragged inputs (TF's ragged dispatch): a ragged tensor
    prints as nested lists (``[[1, 2], [3]]``), its numbers as ``tf.as_string`` gives
    them, its strings quoted with ``'`` (``'`` and ``\\`` escaped), each dimension cut
    to its first and last ``summarize`` entries around ``...``."""
    from adapters.v1.ops.logging_ops import _format_v2

    pieces = template.split(placeholder)
    if builtin_len(values) != builtin_len(pieces) - 1:
        raise ValueError(
            "num placeholders in template and num inputs must match: "
            f"{builtin_len(pieces) - 1} vs {builtin_len(values)}"
        )
    if (
        summarize is not None
        and summarize != -1
        and not (isinstance(summarize, int) and summarize > 0)
    ):
        raise ValueError(f"Expected summarize to be -1 or a positive int, got {summarize!r}")
    n = -1 if summarize is None else int(summarize)
    tensors: list[Any] = []
    kinds: list[int] = []  # per input: its number of row splits (0: dense)
    for v in values:
        if hasattr(v, "nested_row_splits"):
            splits = list(v.nested_row_splits)
            tensors += [v.flat_values, *splits]
            kinds.append(builtin_len(splits))
        else:
            tensors.append(v)
            kinds.append(0)
    tensors = host_inputs(tensors)

    def cut(items: list[bytes]) -> list[bytes]:
        if n == -1 or builtin_len(items) <= 2 * n:
            return items
        return items[:n] + [b"..."] + items[-n:]

    def compute(*arrays: Any) -> tuple[Any, ...]:
        out = [pieces[0].encode("utf-8")]
        at = 0
        for k, piece in zip(kinds, pieces[1:], strict=True):
            if k == 0:
                out.append(_format_v2(np.asarray(arrays[at]), n).encode("utf-8"))
                at += 1
            else:
                flat = np.asarray(arrays[at])
                splits = [np.asarray(a) for a in arrays[at + 1 : at + 1 + k]]
                out.append(_ragged_text(flat, splits, cut))
                at += 1 + k
            out.append(piece.encode("utf-8"))
        return (np.asarray(b"".join(out), dtype=object),)

    op = _host_op("StringFormat", name, tensors, compute, [((), _STRING)])
    return op.outputs[0]


def _ragged_text(flat: np.ndarray, splits: list[np.ndarray], cut: Callable) -> bytes:
    """A ragged value as TF's ``ragged_tensor_to_string`` writes it."""
    if flat.dtype == object:
        texts = [b"'" + re.sub(rb"(['\\])", rb"\\\1", bytes(x)) + b"'" for x in flat.reshape(-1)]
    elif flat.dtype == np.bool_:
        texts = [b"true" if x else b"false" for x in flat.reshape(-1)]
    else:
        fmt = _printf_format(flat.dtype, -1, False, False, -1, "")
        if flat.dtype.kind == "c":
            texts = [f"({fmt % v.real},{fmt % v.imag})".encode() for v in flat.reshape(-1)]
        elif flat.dtype.kind == "f":
            texts = [(fmt % float(v)).encode() for v in flat.reshape(-1)]
        else:
            texts = [(fmt % int(v)).encode() for v in flat.reshape(-1)]
    strs = np.empty(flat.shape, object)
    strs.reshape(-1)[:] = texts if texts else strs.reshape(-1)[:0]

    def dense(a: Any) -> bytes:
        if not isinstance(a, np.ndarray) or a.ndim == 0:
            return a if isinstance(a, bytes) else a.item()
        return b"[" + b", ".join(cut([dense(x) for x in a])) + b"]"

    def rows(level: int, lo: int, hi: int) -> list[bytes]:
        if level == builtin_len(splits):
            return [dense(strs[i]) for i in range(lo, hi)]
        s = splits[level]
        return [
            b"[" + b", ".join(cut(rows(level + 1, s[i], s[i + 1]))) + b"]" for i in range(lo, hi)
        ]

    return b"[" + b", ".join(cut(rows(0, 0, builtin_len(splits[0]) - 1))) + b"]"


# -- Unicode --------------------------------------------------------------------------
# TF's encodings (``UnicodeEncode``/``UnicodeTranscode``'s output_encoding attr); the
# input encodings adapters.v1 decodes are these and Latin-1 (ICU takes many more).
UNICODE_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")
_CODECS = {
    "utf8": "utf-8",
    "utf16be": "utf-16-be",
    "utf32be": "utf-32-be",
    "iso88591": "latin-1",
    "latin1": "latin-1",
    "usascii": "ascii",
    "ascii": "ascii",
}
_ERRORS = ("strict", "replace", "ignore")
_INVALID = -1  # a code point standing for an ill-formed subsequence of the input


def check_unicode_attrs(op_type: str, output_encoding: str | None, errors_: str) -> None:
    """TF's attr checks for ``output_encoding`` and ``errors`` (build-time ``ValueError``)."""
    if output_encoding is not None and output_encoding not in UNICODE_ENCODINGS:
        raise ValueError(
            f"Attr 'output_encoding' of '{op_type}' Op passed string '{output_encoding}' "
            'not in: "UTF-8", "UTF-16-BE", "UTF-32-BE".'
        )
    if errors_ not in _ERRORS:
        raise ValueError(
            f"Attr 'errors' of '{op_type}' Op passed string '{errors_}' not in: "
            '"strict", "replace", "ignore".'
        )


def input_codec(encoding: str, op_type: str) -> str:
    """The Python codec reading ``encoding`` as ICU does (names compared as ICU compares
    them: case, ``-``, ``_`` and spaces ignored).

    Raises:
      NotImplementedError: an encoding Python knows that adapters.v1 does not map.
      InvalidArgumentError: an encoding neither knows (TF's message, at run time).
    """
    import codecs

    key = re.sub(r"[-_ ]", "", encoding.lower())
    if key in _CODECS:
        return _CODECS[key]
    try:
        codecs.lookup(encoding)
    except LookupError:
        return ""  # TF's error at run time (decode_codepoints)
    raise NotImplementedError(
        f"{op_type} input_encoding={encoding!r}: adapters.v1 decodes UTF-8, UTF-16-BE, "
        "UTF-32-BE, ISO-8859-1 and US-ASCII; transcode to one of them first"
    )


def _mark_invalid(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "\ud800", exc.end  # a lone surrogate: no decoder produces one otherwise


def _register_marker() -> str:
    import codecs

    codecs.register_error("jtrain.mark_invalid", _mark_invalid)
    return "jtrain.mark_invalid"


_MARK = _register_marker()


def decode_codepoints(data: bytes, codec: str, encoding: str) -> list[int]:
    """The code points of ``data`` in ``codec``, each ill-formed subsequence (ICU's and
    Unicode's maximal subparts, as Python's decoders find them) as ``_INVALID``."""
    if not codec:
        raise errors.InvalidArgumentError(
            None, None, f"Could not create converter for input encoding: {encoding}"
        )
    text = data.decode(codec, _MARK)
    return [_INVALID if c == "\ud800" else ord(c) for c in text]


def valid_codepoint(c: int) -> bool:
    return 0 <= c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF


def check_replacement_char(replacement_char: int) -> None:
    """TF's run-time check of ``replacement_char``."""
    if not 0 <= replacement_char <= 0x10FFFF:
        raise errors.InvalidArgumentError(
            None, None, "replacement_char out of unicode codepoint range"
        )


def encode_codepoints(
    codepoints: Sequence[int], encoding: str, errors_: str, replacement_char: int, strict_msg: str
) -> bytes:
    """``codepoints`` in ``encoding`` (one of ``UNICODE_ENCODINGS``); an invalid one
    (``_INVALID`` or not a Unicode scalar value) replaced by ``replacement_char``,
    dropped, or an ``InvalidArgumentError`` (``strict_msg``) as ``errors_`` says."""
    chars = []
    for c in codepoints:
        if not valid_codepoint(c):
            if errors_ == "strict":
                raise errors.InvalidArgumentError(None, None, strict_msg)
            if errors_ == "ignore":
                continue
            c = replacement_char if valid_codepoint(replacement_char) else 0xFFFD
        chars.append(chr(c))
    return "".join(chars).encode(encoding.lower())


def unicode_transcode(
    input: Any,  # noqa: A002 - TF's name
    input_encoding: str,
    output_encoding: str,
    errors: str = "replace",  # noqa: A002 - TF's name
    replacement_char: int = 65533,
    replace_control_characters: bool = False,
    name: str | None = None,
) -> ops.Tensor:
    """Each string re-encoded from ``input_encoding`` to ``output_encoding``
    (``tf.strings.unicode_transcode``).

    Args:
      input: a string tensor.
      input_encoding: the strings' encoding: ``"UTF-8"``, ``"UTF-16-BE"``,
        ``"UTF-32-BE"``, ``"ISO-8859-1"`` or ``"US-ASCII"`` (ICU's name matching).
      output_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
      errors: an ill-formed input sequence is ``"replace"``d by ``replacement_char``
        (default; one per maximal ill-formed subpart), ``"ignore"``d, or ``"strict"``:
        an error.
      replacement_char: the code point replacing (default U+FFFD).
      replace_control_characters: whether C0 controls (U+0000-U+001F) are replaced
        too (default False).
      name: the op's name.

    Returns:
      A string tensor of the input's shape.

    Raises:
      ValueError: another ``output_encoding`` or ``errors`` (TF's attr messages).
      NotImplementedError: an input encoding ICU has that adapters.v1 does not decode.
      InvalidArgumentError (at run time): "Invalid formatting on input string" (strict),
        "Could not create converter for input encoding: X" (an unknown encoding),
        "replacement_char out of unicode codepoint range".
    """
    errors_ = errors
    check_unicode_attrs("UnicodeTranscode", output_encoding, errors_)
    codec = input_codec(input_encoding, "tf.strings.unicode_transcode")
    replacement = int(replacement_char)
    controls = bool(replace_control_characters)

    def transcode(s: bytes) -> bytes:
        check_replacement_char(replacement)
        points = decode_codepoints(s, codec, input_encoding)
        if controls:
            points = [replacement if 0 <= c < 0x20 else c for c in points]
        return encode_codepoints(
            points, output_encoding, errors_, replacement, "Invalid formatting on input string"
        )

    return _unary("UnicodeTranscode", name, input, transcode)


def _script_table() -> tuple[np.ndarray, np.ndarray]:
    from adapters.v1.ops._unicode_script_table import RANGES

    pairs = [p.split(":") for p in "".join(RANGES).split()]
    starts = np.asarray([int(s, 16) for s, _ in pairs], np.int64)
    scripts = np.asarray([int(c, 16) for _, c in pairs], np.int32)
    return starts, scripts


_SCRIPTS: list[tuple[np.ndarray, np.ndarray]] = []


def unicode_script(input: Any, name: str | None = None) -> ops.Tensor:  # noqa: A002
    """Each code point's ICU script code (``UScriptCode``: 0 Common, 1 Inherited,
    25 Latin, 17 Han...; -1 for a value that is not a code point)
    (``tf.strings.unicode_script``).

    Args:
      input: an int32 tensor of code points.
      name: the op's name.

    Returns:
      An int32 tensor of the input's shape.

    Raises:
      TypeError: an input that is not int32 (TF's message).

    .. note:: The codes are TF 2.21's (its ICU's Unicode version), from a table of its
       output for every code point (``ops/_unicode_script_table.py``).
    """
    if hasattr(input, "with_flat_values"):  # a RaggedTensor, as TF's dispatch
        return input.with_flat_values(unicode_script(input.flat_values, name))
    (tensor,) = host_inputs([input])
    if tensor._np_dtype != np.dtype(np.int32):
        raise TypeError(
            f"Input 'input' of 'UnicodeScript' Op has type {tensor.dtype.name} that does "
            "not match expected type of int32."
        )

    def compute(value: Any) -> tuple[Any, ...]:
        if not _SCRIPTS:
            _SCRIPTS.append(_script_table())
        starts, scripts = _SCRIPTS[0]
        points = np.asarray(value, np.int64)
        at = np.searchsorted(starts, points, side="right") - 1
        out = scripts[np.clip(at, 0, None)]
        out = np.where((points < 0) | (points > 0x10FFFF), np.int32(-1), out)
        return (out.astype(np.int32),)

    op = _host_op(
        "UnicodeScript", name, [tensor], compute, [(tensor._shape, np.dtype(np.int32))], True
    )
    return op.outputs[0]


def unsorted_segment_join(
    inputs: Any,
    segment_ids: Any,
    num_segments: Any,
    separator: str = "",
    name: str | None = None,
) -> ops.Tensor:
    """Joins the strings of each segment (``tf.strings.unsorted_segment_join``):
    ``output[i, ...]`` is ``separator.join`` of the ``inputs[j..., ...]`` with
    ``segment_ids[j...] == i``, in order (empty for a segment without one).

    Args:
      inputs: a string tensor.
      segment_ids: int32/int64, a prefix of ``inputs``' shape, each in
        ``[0, num_segments)``.
      num_segments: an int32/int64 scalar.
      separator: put between joined strings (default ``""``).
      name: the op's name.

    Returns:
      A string tensor of shape ``[num_segments, *inputs.shape[rank(segment_ids):]]``.

    Raises:
      TypeError: ids or count not integers.
      ValueError: shapes TF's shape inference refuses (its message).
      InvalidArgumentError (at run time): an id out of range, a shape mismatch, rank-0
        ids (TF's messages).

    .. note:: As TF's kernel, the separator is added only after a non-empty result so
       far: joining ``["", "a"]`` with ``","`` gives ``"a"``.
    """
    tensor = _string_input(inputs, "inputs", "UnsortedSegmentJoin")
    ids_t, n_t = host_inputs([segment_ids, num_segments])
    allowed = (np.dtype(np.int32), np.dtype(np.int64))
    for t, arg in ((ids_t, "segment_ids"), (n_t, "num_segments")):
        if t._np_dtype not in allowed:
            raise TypeError(
                f"Value passed to parameter '{arg}' has DataType {t.dtype.name} not in list "
                "of allowed values: int32, int64"
            )

    scope = name or "UnsortedSegmentJoin"
    labels = [
        v.op.name if isinstance(v, ops.Tensor) else f"{scope}/{arg}"
        for v, arg in (
            (inputs, "inputs"),
            (segment_ids, "segment_ids"),
            (num_segments, "num_segments"),
        )
    ]

    def node() -> str:
        shapes = ", ".join(
            "<unknown>" if s is None else str(list(s))
            for s in (tensor._shape, ids_t._shape, n_t._shape)
        )
        return (
            f"'{{{{node {scope}}}}} = UnsortedSegmentJoin["
            f"Tindices=DT_{ids_t.dtype.name.upper()}, Tnumsegments=DT_"
            f'{n_t.dtype.name.upper()}, separator="{separator}"]'
            f"({', '.join(labels)})' with input shapes: {shapes}."
        )

    if n_t._shape is not None and builtin_len(n_t._shape) != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {builtin_len(n_t._shape)} for {node()}")
    if tensor._shape is not None and ids_t._shape is not None:
        for a, b in zip(tensor._shape, ids_t._shape, strict=False):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b} for {node()}")
    count = constant_value(n_t)
    lead = None if count is None else int(count)
    if tensor._shape is None or ids_t._shape is None:
        out_shape = None
    else:
        out_shape = (lead, *tensor._shape[builtin_len(ids_t._shape) :])
    sep = _bytes(separator)

    def compute(value: Any, ids: Any, n: Any) -> tuple[Any, ...]:
        strings, ids, n = _strings(value), np.asarray(ids), np.asarray(n)
        if n.size == 0:
            raise errors.InvalidArgumentError(None, None, "Number of segments cannot be empty.")
        segments = int(n.reshape(-1)[0])
        if ids.ndim == 0:
            raise errors.InvalidArgumentError(None, None, "Segment_id cannot have rank 0")
        if ids.ndim > strings.ndim:
            raise errors.OutOfRangeError(
                None,
                None,
                f"Invalid segment_id rank {ids.ndim} for input with {strings.ndim} dimension(s)",
            )
        for i in range(ids.ndim):
            if ids.shape[i] != strings.shape[i]:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Segment dimension is {ids.shape[i]} while input dimension is "
                    f"{strings.ndim} in rank {i}",
                )
        flat_ids = ids.reshape(-1)
        if np.any((flat_ids < 0) | (flat_ids >= segments)):
            raise errors.InvalidArgumentError(
                None,
                None,
                "segment_ids are not allowed to exceed num_segments or to have negative values.",
            )
        inner = strings.shape[ids.ndim :]
        rows = strings.reshape(flat_ids.size, -1)
        out = np.empty((segments, rows.shape[1]), object)
        out.fill(b"")
        for r, seg in enumerate(flat_ids):
            for k in range(rows.shape[1]):
                acc = out[seg, k]
                out[seg, k] = (acc + sep if acc else acc) + bytes(rows[r, k])
        return (out.reshape((segments, *inner)),)

    op = _host_op(
        "UnsortedSegmentJoin", name, [tensor, ids_t, n_t], compute, [(out_shape, _STRING)]
    )
    return op.outputs[0]
