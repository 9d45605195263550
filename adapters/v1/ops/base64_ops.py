"""TF's web-safe base64 (``tf.io.encode_base64`` / ``tf.io.decode_base64``) as host ops.

TF's alphabet is the URL-safe one (``-`` and ``_`` for ``+`` and ``/``). Encoding
writes no ``=`` padding unless ``pad=True``; decoding accepts a string with or
without its padding, and as TF ignores the unused low bits of a last partial group.
Both are element-wise host operations on string tensors (see ``string_ops.py``).
"""

from __future__ import annotations

import base64
from typing import Any

from adapters.v1.framework import ops
from adapters.v1.ops.string_ops import _unary
from jtrain import errors

__all__ = ["decode_base64", "encode_base64"]

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_VALUE = {c: i for i, c in enumerate(_ALPHABET)}


def encode_base64(input: Any, pad: bool = False, name: str | None = None) -> ops.Tensor:  # noqa: A002 - TF's name
    """``tf.io.encode_base64``: each string in web-safe base64.

    Args:
      input: a string tensor.
      pad: whether to end each result with ``=`` padding (default ``False``).
      name: the operation's name (default ``"EncodeBase64"``).

    Returns:
      A string tensor of ``input``'s shape.
    """

    def encode(s: bytes) -> bytes:
        out = base64.urlsafe_b64encode(s)
        return out if pad else out.rstrip(b"=")

    return _unary("EncodeBase64", name, input, encode)


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _group(chars: bytes) -> bytes:
    """Three bytes of four base64 characters (TF's ``DecodeThreeChars``)."""
    bits = 0
    for c in chars:
        v = _VALUE.get(c)
        if v is None:
            raise _invalid("Invalid character found in base64.")
        bits = bits << 6 | v
    return bits.to_bytes(3, "big")


def _decode(data: bytes) -> bytes:
    """TF's ``Base64Decode``: whole groups, then a last group of 2-4 characters
    (its ``=``/``==`` padding dropped) completed with ``A`` and cut to its bytes."""
    if not data:
        return b""
    out = bytearray()
    i = 0
    while len(data) - i > 4:
        out += _group(data[i : i + 4])
        i += 4
    tail = data[i:]
    if len(tail) == 4 and tail[3:] == b"=":
        tail = tail[:2] if tail[2:3] == b"=" else tail[:3]
    if len(tail) == 1:
        raise _invalid("Base64 string length cannot be 1 modulo 4.")
    out += _group(tail + b"A" * (4 - len(tail)))[: len(tail) - 1]
    return bytes(out)


def decode_base64(input: Any, name: str | None = None) -> ops.Tensor:  # noqa: A002 - TF's name
    """``tf.io.decode_base64``: each web-safe base64 string decoded.

    Args:
      input: a string tensor (padded or not).
      name: the operation's name (default ``"DecodeBase64"``).

    Returns:
      A string tensor of ``input``'s shape.

    Raises:
      InvalidArgumentError (at run time): a character outside the web-safe alphabet
        (``+`` and ``/`` included) or a length of 1 modulo 4 (TF's messages).
    """
    return _unary("DecodeBase64", name, input, _decode)
