"""TF's Unicode string ops over code points (``tf.strings.unicode_encode``,
``unicode_decode``, ``unicode_split``...) and ``tf.strings.ngrams``/``bytes_split``.

Strings live on the host (``ops/string_ops.py``): each op here is a host operation on
the NumPy values of its inputs; a ragged result is a ``RaggedTensor`` whose
``values`` and ``row_splits`` are that operation's outputs, as TF's kernels return them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops import string_ops
from adapters.v1.ops.data_flow_ops import host_inputs
from adapters.v1.ops.ragged.ragged_tensor import RaggedTensor, host_op

__all__ = [
    "bytes_split",
    "ngrams",
    "unicode_decode",
    "unicode_decode_with_offsets",
    "unicode_encode",
    "unicode_split",
    "unicode_split_with_offsets",
]

_STRING = np.dtype(object)


def _int32_input(value: Any, arg: str, op_type: str) -> ops.Tensor:
    (tensor,) = host_inputs([value])
    if tensor._np_dtype != np.dtype(np.int32):
        raise TypeError(
            f"Input '{arg}' of '{op_type}' Op has type {tensor.dtype.name} that does not "
            "match expected type of int32."
        )
    return tensor


def unicode_encode(
    input: Any,  # noqa: A002 - TF's name
    output_encoding: str,
    errors: str = "replace",  # noqa: A002 - TF's name
    replacement_char: int = 65533,
    name: str | None = None,
) -> ops.Tensor:
    """Encodes each innermost row of code points as a string (``tf.strings.unicode_encode``).

    Args:
      input: an int32 tensor of code points of rank >= 1 (its last dimension the
        characters of one string).
      output_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
      errors: a value that is not a Unicode scalar value (negative, past U+10FFFF, a
        surrogate) is ``"replace"``d by ``replacement_char`` (default), ``"ignore"``d,
        or ``"strict"``: an error.
      replacement_char: the code point replacing (default U+FFFD).
      name: the op's name.

    Returns:
      A string tensor of shape ``input.shape[:-1]``.

    Raises:
      ValueError: a scalar input; another encoding or ``errors`` (TF's messages).
      TypeError: code points that are not int32.
      NotImplementedError: an input of unknown rank.
      InvalidArgumentError (at run time): "Code point is out of range for Unicode, or is
        a surrogate." (strict); "replacement_char out of unicode codepoint range".
    """
    string_ops.check_unicode_attrs("UnicodeEncode", output_encoding, errors)
    if isinstance(input, RaggedTensor):
        return _encode_ragged(input, output_encoding, errors, replacement_char, name)
    tensor = _int32_input(input, "input_values", "UnicodeEncode")
    if tensor._shape is None:
        raise NotImplementedError("tf.strings.unicode_encode of a tensor of unknown rank")
    if len(tensor._shape) == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    replacement = int(replacement_char)
    errors_ = errors

    def compute(value: Any) -> tuple[Any, ...]:
        string_ops.check_replacement_char(replacement)
        points = np.asarray(value)
        rows = (
            points.reshape(-1, points.shape[-1])
            if points.size
            else points.reshape(int(np.prod(points.shape[:-1])), points.shape[-1])
        )
        out = np.empty(rows.shape[0], object)
        for i, row in enumerate(rows):
            out[i] = _encode_row(row, output_encoding, errors_, replacement)
        return (out.reshape(points.shape[:-1]),)

    op = string_ops._host_op(
        "UnicodeEncode", name, [tensor], compute, [(tensor._shape[:-1], _STRING)]
    )
    return op.outputs[0]


def _encode_row(row: Any, encoding: str, errors_: str, replacement: int) -> bytes:
    return string_ops.encode_codepoints(
        [int(c) for c in row],
        encoding,
        errors_,
        replacement,
        "Code point is out of range for Unicode, or is a surrogate.",
    )


def _encode_ragged(
    rt: RaggedTensor, encoding: str, errors_: str, replacement_char: int, name: str | None
) -> Any:
    """``unicode_encode`` of a ragged tensor: its innermost rows encoded (a tensor of
    ``nrows`` strings for ragged rank 1, else ``rt`` with its values encoded)."""
    if rt.ragged_rank > 1:
        return rt.with_values(_encode_ragged(rt.values, encoding, errors_, replacement_char, name))
    values = _int32_input(rt.values, "input_values", "UnicodeEncode")
    if values._shape is not None and len(values._shape) != 1:
        raise NotImplementedError(
            "tf.strings.unicode_encode of a ragged tensor with inner dense dimensions"
        )
    replacement = int(replacement_char)

    def compute(points: Any, splits: Any) -> tuple[Any, ...]:
        string_ops.check_replacement_char(replacement)
        points, splits = np.asarray(points), np.asarray(splits)
        out = np.empty(len(splits) - 1, object)
        for i in range(len(splits) - 1):
            out[i] = _encode_row(points[splits[i] : splits[i + 1]], encoding, errors_, replacement)
        return (out,)

    (out,) = host_op(
        "UnicodeEncode",
        name or "UnicodeEncode",
        [values, rt.row_splits],
        compute,
        [((rt._nrows_static(),), _STRING)],
    )
    return out


# -- per-string rows (decode, split, bytes_split) ---------------------------------------
def _rows_op(
    op_type: str,
    name: str | None,
    input: Any,  # noqa: A002 - TF's name
    row_fn: Any,
    dtypes: list[np.dtype],
    static_count: bool = False,
    scalar_as_vector: bool = False,
) -> list[Any]:
    """For each string, ``row_fn(bytes)`` gives one list per output (of equal lengths):
    the outputs as ragged tensors of rank ``rank(input) + 1`` sharing their splits (the
    input's dense dimensions uniform), or dense vectors for a scalar input.
    ``static_count``: the number of items of a constant input is known statically (TF's
    shape inference evaluates it for ``unicode_split``)."""
    if isinstance(input, RaggedTensor):
        inner = _rows_op(op_type, name, input.values, row_fn, dtypes, static_count)
        return [input.with_values(v) for v in inner]
    tensor = string_ops._string_input(input, "input", op_type)
    shape = tensor._shape
    if shape is None:
        raise NotImplementedError(f"tf.strings: {op_type} of a tensor of unknown rank")
    if scalar_as_vector and len(shape) == 0:
        shape = (1,)
    rank = len(shape)
    nitems = None
    if static_count:
        known = string_ops.constant_value(tensor)
        if known is not None:
            nitems = sum(len(row_fn(bytes(b))[0]) for b in np.asarray(known, object).reshape(-1))

    def compute(value: Any) -> tuple[Any, ...]:
        strings = np.asarray(value, object)
        if rank and strings.ndim == 0:
            strings = strings.reshape(1)
        dims = strings.shape
        per = [row_fn(bytes(b)) for b in strings.reshape(-1)]
        outs = []
        for k, dtype in enumerate(dtypes):
            flat = [x for p in per for x in p[k]]
            arr = np.empty(len(flat), dtype)
            arr[:] = flat if flat else arr[:0]
            outs.append(arr)
        if rank == 0:
            return tuple(outs)
        lengths = [len(p[0]) for p in per]
        splits = [np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)]
        for level in range(rank - 1, 0, -1):
            rows, width = int(np.prod(dims[:level])), dims[level]
            splits.insert(
                0,
                np.arange(0, rows * width + 1, width or 1, dtype=np.int64)[: rows + 1]
                if width
                else np.zeros(rows + 1, np.int64),
            )
        return (*outs, *splits)

    specs: list[tuple[Any, Any]] = [
        ((nitems if k == 0 else None,), d) for k, d in enumerate(dtypes)
    ]
    for level in range(1, rank + 1):
        lead = shape[:level]
        rows = None if None in lead else int(np.prod(lead))
        specs.append(((None if rows is None else rows + 1,), np.dtype(np.int64)))
    outs = host_op(op_type, name or op_type, [tensor], compute, specs)
    values, splits = outs[: len(dtypes)], outs[len(dtypes) :]
    if rank == 0:
        return list(values)
    results = []
    for v in values:
        rt: Any = v
        for level in range(rank, 0, -1):
            uniform = shape[level] if level < rank else None
            rt = RaggedTensor(rt, splits[level - 1], uniform, True)
        results.append(rt)
    return results


def _decoder(
    op_type: str,
    input_encoding: str,
    errors_: str,
    replacement_char: int,
    replace_control_characters: bool,
) -> Any:
    """``bytes -> (code points, byte offsets)`` as TF's ``UnicodeDecodeWithOffsets``: an
    ill-formed sequence is one replacement at its first byte's offset (or dropped, or
    an error)."""
    string_ops.check_unicode_attrs(op_type, None, errors_)
    codec = string_ops.input_codec(input_encoding, f"tf.strings.{op_type}")
    replacement = int(replacement_char)

    def decode(s: bytes) -> tuple[list[int], list[int]]:
        string_ops.check_replacement_char(replacement)
        points, offsets = _decode_with_offsets(s, codec, input_encoding)
        out_p, out_o = [], []
        for c, o in zip(points, offsets, strict=True):
            if c == string_ops._INVALID:
                if errors_ == "strict":
                    raise string_ops.errors.InvalidArgumentError(
                        None, None, "Invalid formatting on input string"
                    )
                if errors_ == "ignore":
                    continue
                c = replacement
            elif replace_control_characters and c < 0x20:
                c = replacement
            out_p.append(c)
            out_o.append(o)
        return out_p, out_o

    return decode


def _decode_with_offsets(s: bytes, codec: str, encoding: str) -> tuple[list[int], list[int]]:
    """Code points (``_INVALID`` for an ill-formed subsequence) and the byte offset of
    each, decoding one unit at a time after the whole string's decode."""
    points = string_ops.decode_codepoints(s, codec, encoding)
    offsets, pos = [], 0
    for c in points:
        offsets.append(pos)
        if c == string_ops._INVALID:
            pos = _invalid_end(s, pos, codec)
        else:
            pos += len(chr(c).encode(codec))
    return points, offsets


def _invalid_end(s: bytes, pos: int, codec: str) -> int:
    """Where the ill-formed subsequence at ``pos`` ends (as the decoder's error saw it)."""
    try:
        s[pos:].decode(codec)
    except UnicodeDecodeError as e:
        return pos + e.end
    return len(s)


def unicode_decode(
    input: Any,  # noqa: A002 - TF's name
    input_encoding: str,
    errors: str = "replace",  # noqa: A002 - TF's name
    replacement_char: int = 65533,
    replace_control_characters: bool = False,
    name: str | None = None,
) -> Any:
    """The code points of each string (``tf.strings.unicode_decode``).

    Args:
      input: a string tensor of rank N (or a ``RaggedTensor``).
      input_encoding: ``"UTF-8"``, ``"UTF-16-BE"``, ``"UTF-32-BE"``, ``"ISO-8859-1"`` or
        ``"US-ASCII"``.
      errors: an ill-formed sequence is ``"replace"``d by ``replacement_char`` (default),
        ``"ignore"``d or ``"strict"``: an error.
      replacement_char: the code point replacing (default U+FFFD).
      replace_control_characters: whether C0 controls are replaced too (default False).
      name: the op's name.

    Returns:
      An int32 ``RaggedTensor`` of rank N + 1 (the input's dimensions uniform, the
      characters ragged); a 1-D tensor for a scalar input.

    Raises:
      ValueError: an unknown ``errors``.
      InvalidArgumentError (at run time): "Invalid formatting on input string" (strict),
        an unknown encoding (TF's messages).
    """
    decode = _decoder(
        "UnicodeDecode", input_encoding, errors, replacement_char, replace_control_characters
    )
    (out,) = _rows_op("UnicodeDecode", name, input, lambda s: (decode(s)[0],), [np.dtype(np.int32)])
    return out


def unicode_decode_with_offsets(
    input: Any,  # noqa: A002 - TF's name
    input_encoding: str,
    errors: str = "replace",  # noqa: A002 - TF's name
    replacement_char: int = 65533,
    replace_control_characters: bool = False,
    name: str | None = None,
) -> tuple[Any, Any]:
    """``unicode_decode`` with the byte offset where each character starts (int64, the
    same row partition) (``tf.strings.unicode_decode_with_offsets``)."""
    decode = _decoder(
        "UnicodeDecodeWithOffsets",
        input_encoding,
        errors,
        replacement_char,
        replace_control_characters,
    )
    points, offsets = _rows_op(
        "UnicodeDecodeWithOffsets",
        name,
        input,
        decode,
        [np.dtype(np.int32), np.dtype(np.int64)],
    )
    return points, offsets


def _splitter(op_type: str, input_encoding: str, errors_: str, replacement_char: int) -> Any:
    """``bytes -> (characters, offsets)``: each decoded character encoded again in
    ``input_encoding`` (an ill-formed one as ``replacement_char``)."""
    decode = _decoder(op_type, input_encoding, errors_, replacement_char, False)
    encoding = {"utf-8": "UTF-8", "utf-16-be": "UTF-16-BE", "utf-32-be": "UTF-32-BE"}.get(
        string_ops.input_codec(input_encoding, f"tf.strings.{op_type}"), None
    )
    if encoding is None:
        raise NotImplementedError(
            f"tf.strings.{op_type}: adapters.v1 splits UTF-8, UTF-16-BE and UTF-32-BE"
        )

    def split(s: bytes) -> tuple[list[bytes], list[int]]:
        points, offsets = decode(s)
        chars = [
            string_ops.encode_codepoints([c], encoding, "replace", int(replacement_char), "")
            for c in points
        ]
        return chars, offsets

    return split


def unicode_split(
    input: Any,  # noqa: A002 - TF's name
    input_encoding: str,
    errors: str = "replace",  # noqa: A002 - TF's name
    replacement_char: int = 65533,
    name: str | None = None,
) -> Any:
    """Each string's characters, as strings in ``input_encoding``
    (``tf.strings.unicode_split``); arguments as ``unicode_decode``.

    Returns:
      A string ``RaggedTensor`` of rank N + 1 (a 1-D tensor for a scalar input).
    """
    split = _splitter("UnicodeSplit", input_encoding, errors, replacement_char)
    (out,) = _rows_op(
        "UnicodeSplit", name, input, lambda s: (split(s)[0],), [_STRING], static_count=True
    )
    return out


def unicode_split_with_offsets(
    input: Any,  # noqa: A002 - TF's name
    input_encoding: str,
    errors: str = "replace",  # noqa: A002 - TF's name
    replacement_char: int = 65533,
    name: str | None = None,
) -> tuple[Any, Any]:
    """``unicode_split`` with each character's starting byte offset (int64)
    (``tf.strings.unicode_split_with_offsets``)."""
    split = _splitter("UnicodeSplitWithOffsets", input_encoding, errors, replacement_char)
    chars, offsets = _rows_op(
        "UnicodeSplitWithOffsets",
        name,
        input,
        split,
        [_STRING, np.dtype(np.int64)],
        static_count=True,
    )
    return chars, offsets


def bytes_split(input: Any, name: str | None = None) -> Any:  # noqa: A002 - TF's name
    """Each string's bytes, as strings of one byte (``tf.strings.bytes_split``).

    Args:
      input: a string tensor of rank N or a ``RaggedTensor`` of strings.
      name: the op's name.

    Returns:
      A string ``RaggedTensor`` of rank N + 1 (a 1-D tensor for a scalar input).
    """
    (out,) = _rows_op(
        "StringsByteSplit",
        name,
        input,
        lambda s: ([s[i : i + 1] for i in range(len(s))],),
        [_STRING],
    )
    return out


# -- n-grams ------------------------------------------------------------------------------
def _ngrams_of(
    tokens: list[bytes],
    widths: list[int],
    separator: bytes,
    left: bytes,
    right: bytes,
    pad_width: int,
    preserve_short: bool,
) -> list[bytes]:
    """TF's ``StringNGrams`` of one row: for each width, the windows of the row padded
    with ``min(pad_width (n - 1 if negative), n - 1)`` pads on each side."""
    out: list[bytes] = []
    for n in widths:
        pad = min(n - 1 if pad_width < 0 else pad_width, n - 1)
        seq = [left] * pad + tokens + [right] * pad
        out += [separator.join(seq[i : i + n]) for i in range(len(seq) - n + 1)]
    if preserve_short and tokens and not out:
        if pad_width < 0:
            raise string_ops.errors.InvalidArgumentError(
                None,
                None,
                "Pad width should be >= 0 when preserve_short_sequences is True and "
                f"ngram_widths are not provided, got {pad_width}",
            )
        out.append(separator.join([left] * pad_width + tokens + [right] * pad_width))
    return out


def ngrams(
    data: Any,
    ngram_width: Any,
    separator: str = " ",
    pad_values: Any = None,
    padding_width: int | None = None,
    preserve_short_sequences: bool = False,
    name: str | None = None,
) -> Any:
    """The n-grams of each row of tokens (``tf.strings.ngrams``).

    Args:
      data: a string tensor of rank >= 1 (its last dimension the tokens) or a
        ``RaggedTensor`` of strings.
      ngram_width: an int or a list of ints: the n-gram sizes (all, in order, per row).
      separator: joins the tokens of an n-gram (default ``" "``).
      pad_values: ``None`` (no padding), a string, or ``(left, right)`` strings.
      padding_width: pads on each side (default with ``pad_values``: ``n - 1``; at
        most ``n - 1``).
      preserve_short_sequences: a non-empty row too short for any n-gram gives one
        n-gram of the whole padded row (default False).
      name: the op's name.

    Returns:
      A string tensor of shape ``[*data.shape[:-1], None]`` for a dense input, a
      ``RaggedTensor`` for a ragged one.

    Raises:
      ValueError, TypeError: TF's argument checks (widths < 1, ``padding_width`` < 1 or
        without ``pad_values``, ``pad_values`` of another type, a scalar input).
    """
    if isinstance(pad_values, (list, tuple)):
        if len(pad_values) != 2 or not all(isinstance(p, (str, bytes)) for p in pad_values):
            raise ValueError("pad_values must be a string, tuple of strings, or None.")
        left, right = pad_values
    elif pad_values is None:
        left = right = ""
    elif isinstance(pad_values, (str, bytes)):
        left = right = pad_values
    else:
        raise TypeError("pad_values must be a string, tuple of strings, or None.")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    if not isinstance(data, RaggedTensor):
        tensor = string_ops._string_input(data, "data", "StringNGrams")
        if tensor._shape is None:
            raise ValueError("Rank of data must be known.")
        if len(tensor._shape) == 0:
            raise ValueError("Data must have rank>0")
    for w in widths:
        if w < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    pad_width = 0 if pad_values is None else (-1 if padding_width is None else padding_width)
    sep = string_ops._bytes(separator)
    lb, rb = string_ops._bytes(left), string_ops._bytes(right)

    def row(tokens: Any) -> list[bytes]:
        return _ngrams_of(
            [bytes(t) for t in tokens], widths, sep, lb, rb, pad_width, preserve_short_sequences
        )

    if isinstance(data, RaggedTensor):
        return _ngrams_ragged(data, row, name)
    shape = tensor._shape

    def dense(value: Any) -> tuple[Any, ...]:
        strings = np.asarray(value, object)
        rows = strings.reshape(-1, strings.shape[-1])
        grams = [row(r) for r in rows]
        count = len(grams[0]) if grams else 0
        out = np.empty((len(grams), count), object)
        for i, g in enumerate(grams):
            out[i, :] = g
        return (out.reshape((*strings.shape[:-1], count)),)

    (out,) = host_op(
        "StringNGrams", name or "StringNGrams", [tensor], dense, [((*shape[:-1], None), _STRING)]
    )
    return out


def _ngrams_ragged(rt: RaggedTensor, row: Any, name: str | None) -> RaggedTensor:
    if rt.ragged_rank > 1:
        return rt.with_values(_ngrams_ragged(rt.values, row, name))
    values = string_ops._string_input(rt.values, "data", "StringNGrams")

    def compute(v: Any, splits: Any) -> tuple[Any, ...]:
        v, splits = np.asarray(v, object), np.asarray(splits)
        grams, out_splits = [], [0]
        for i in range(len(splits) - 1):
            g = row(v[splits[i] : splits[i + 1]])
            grams += g
            out_splits.append(out_splits[-1] + len(g))
        arr = np.empty(len(grams), object)
        arr[:] = grams
        return arr, np.asarray(out_splits, splits.dtype)

    dtype = rt.row_splits_dtype_np
    out, splits = host_op(
        "StringNGrams",
        name or "StringNGrams",
        [values, rt.row_splits],
        compute,
        [((None,), _STRING), (rt.row_splits._shape, dtype)],
    )
    return RaggedTensor(out, splits, None, True)


def split_ragged(op_type: str, name: str | None, input: Any, split: Any) -> RaggedTensor:  # noqa: A002
    """``tf.strings.split``/``tf.string_split`` with ``result_type="RaggedTensor"``: each
    string's tokens (``split(bytes)``) as a ragged tensor of rank ``rank(input) + 1`` (a
    scalar taken as a vector of one, as TF1's split does)."""
    (out,) = _rows_op(op_type, name, input, lambda s: (split(s),), [_STRING], scalar_as_vector=True)
    return out
