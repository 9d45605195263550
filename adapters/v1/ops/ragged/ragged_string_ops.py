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

__all__ = ["unicode_encode"]

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
