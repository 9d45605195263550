"""CSV records to columns as TF's ``DecodeCSV`` kernel parses them (``tf.io.decode_csv``).

Pure NumPy: ``decode_csv(records, columns, ...)`` splits each record (a ``bytes``)
into fields, converts each selected field to its column's dtype, and returns one
array per column with the records' shape. The field rules are TF's:

- a record's fields are separated by ``field_delim`` (one byte); a record ending in
  the delimiter has an empty last field; an empty record has no field;
- with ``use_quote_delim``, a field starting with ``"`` runs to a ``"`` followed by
  the delimiter or the record's end, ``""`` inside it being one quote; an unquoted
  field may hold no quote; no unquoted field may hold ``\\n`` or ``\\r``, and those
  characters are skipped where a field starts;
- an empty field, or one equal to ``na_value``, takes the column's default; a column
  without one is required;
- numbers as TF's ``safe_strto32``/``safe_strto64``/``safe_strtof``/``safe_strtod``:
  surrounding white space allowed, decimal integers only (no ``_``, no hex), floats
  in decimal or hexadecimal (``0x1.8p1``), ``inf``/``infinity``/``nan`` in any case,
  rounded once, directly to the column's precision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from jtrain import errors

__all__ = ["DTYPES", "decode_csv", "parse_number"]

# The column dtypes TF's kernel takes, by their TF names in messages.
DTYPES = {
    np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(object): "string",
}

_INT = re.compile(rb"[+-]?[0-9]+")
_DEC = rb"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_HEX = rb"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
_SPECIAL = rb"(?i:inf|infinity|nan)"
_FLOAT = re.compile(rb"([+-]?)(?:(" + _DEC + rb")|(" + _HEX + rb")|" + _SPECIAL + rb")")


def decode_csv(
    records: np.ndarray,
    columns: Sequence[tuple[np.dtype, Any]],
    field_delim: bytes = b",",
    use_quote_delim: bool = True,
    na_value: bytes = b"",
    select_cols: Sequence[int] | None = None,
) -> list[np.ndarray]:
    """The columns of CSV ``records``, each with the records' shape.

    Args:
      records: an array of ``bytes`` (any shape).
      columns: per output column, ``(dtype, default)``: one of ``DTYPES``' dtypes,
        and the value of an empty or ``na_value`` field (None: the field is required).
      field_delim: the one-byte field separator.
      use_quote_delim: whether ``"`` quotes fields (RFC 4180), else it is a character.
      na_value: a field equal to it is missing.
      select_cols: the indices of the fields kept, strictly increasing (None: all
        fields, as many as ``columns``).

    Returns:
      One array per column, of its dtype (``object`` arrays of ``bytes`` for strings).

    Raises:
      InvalidArgumentError: TF's messages: a record's field count, a required field
        missing, a field not a number of its column's type, a misplaced quote.
    """
    if len(field_delim) != 1:
        raise errors.InvalidArgumentError(None, None, "field_delim should be only 1 char")
    records = np.asarray(records, dtype=object)
    outs = [np.empty(records.shape, dtype) for dtype, _ in columns]
    flat_outs = [o.reshape(-1) for o in outs]
    for i, record in enumerate(records.reshape(-1)):
        fields = _fields(bytes(record), field_delim[0], use_quote_delim)
        if select_cols is not None:
            fields = [fields[c] for c in select_cols if c < len(fields)]
        if len(fields) != len(columns):
            raise errors.InvalidArgumentError(
                None, None, f"Expect {len(columns)} fields but have {len(fields)} in record {i}"
            )
        for f, (field, (dtype, default), out) in enumerate(
            zip(fields, columns, flat_outs, strict=True)
        ):
            if not field or field == na_value:
                if default is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Field {f} is required but missing in record {i}!"
                    )
                out[i] = default
            else:
                out[i] = _convert(field, dtype, f, i)
    return outs


def _fields(record: bytes, delim: int, quoting: bool) -> list[bytes]:
    """A record's fields (TF's state machine, byte by byte)."""
    fields: list[bytes] = []
    n, i = len(record), 0
    quote, newline, ret = 0x22, 0x0A, 0x0D
    while i < n:
        if record[i] in (newline, ret):  # skipped where a field starts
            i += 1
            continue
        if quoting and record[i] == quote:
            i += 1
            field = bytearray()
            while i < n - 1 and not (record[i] == quote and record[i + 1] == delim):
                if record[i] != quote:
                    field.append(record[i])
                    i += 1
                elif record[i + 1] == quote:
                    field.append(quote)
                    i += 2
                else:
                    raise errors.InvalidArgumentError(
                        None, None, "Quote inside a string has to be escaped by another quote"
                    )
            if not (i < n and record[i] == quote and (i == n - 1 or record[i + 1] == delim)):
                raise errors.InvalidArgumentError(
                    None, None, "Quoted field has to end with quote followed by delim or end"
                )
            fields.append(bytes(field))
            i += 2
        else:
            end = record.find(bytes((delim,)), i)
            end = n if end < 0 else end
            field_bytes = record[i:end]
            if (quoting and b'"' in field_bytes) or b"\n" in field_bytes or b"\r" in field_bytes:
                raise errors.InvalidArgumentError(
                    None, None, "Unquoted fields cannot have quotes/CRLFs inside"
                )
            fields.append(field_bytes)
            i = end + 1
    if record and record[-1] == delim:
        fields.append(b"")
    return fields


def _convert(field: bytes, dtype: np.dtype, f: int, i: int) -> Any:
    """One field as a value of ``dtype`` (bytes for strings)."""
    if dtype.kind == "O":
        return field
    value = parse_number(field, dtype)
    if value is None:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Field {f} in record {i} is not a valid {DTYPES[dtype]}: {field.decode('latin-1')}",
        )
    return value


def parse_number(text: bytes, dtype: np.dtype) -> Any:
    """``text`` as a number of ``dtype`` by TF's ``strings::SafeStringToNumeric`` rules
    (``safe_strto32``/``64``, ``safe_strtou32``/``64``, ``safe_strtof``/``d``), or None
    when it is not one (or an integer out of ``dtype``'s range).

    Surrounding white space is allowed; integers are decimal with an optional sign
    (unsigned ones: no ``-``); floats as ``_FLOAT``, rounded once to ``dtype``.
    """
    text = text.strip(b" \t\n\v\f\r")
    if dtype.kind in "iu":
        if not _INT.fullmatch(text) or (dtype.kind == "u" and text[:1] == b"-"):
            return None
        number = int(text)
        info = np.iinfo(dtype)
        return number if info.min <= number <= info.max else None
    return _float(text, dtype)


def _float(text: bytes, dtype: np.dtype) -> Any:
    """``text`` as a float of ``dtype``, rounded once from its exact value; None when it
    is not a float."""
    match = _FLOAT.fullmatch(text)
    if match is None:
        return None
    sign, decimal, hexadecimal = match.groups()
    if hexadecimal is None:
        wide = float(text)  # correctly rounded (inf, nan, overflow and underflow too)
    else:
        try:
            wide = float.fromhex(text.decode())
        except OverflowError:
            wide = -np.inf if sign == b"-" else np.inf
    if dtype == np.float64 or decimal is None and hexadecimal is None:
        return dtype.type(wide)
    # float32, rounded from the float64: where that lies exactly halfway between two
    # float32s, or past the largest one, the exact value decides (one rounding).
    with np.errstate(over="ignore"):
        narrow = np.float32(wide)
    if np.isinf(narrow) and np.isfinite(wide):
        largest = Fraction(float(np.finfo(np.float32).max))
        exact = _exact(sign, decimal, hexadecimal)
        if abs(exact) < largest + Fraction(2) ** 103:  # below halfway to 2**128
            largest32 = np.finfo(np.float32).max
            return largest32 if wide > 0 else -largest32
        return narrow
    # Compared as Python floats: NumPy 2 compares a float32 with a Python float in
    # float32, where ``wide`` rounds to ``narrow``.
    below = np.nextafter(narrow, np.float32(-np.inf)) if float(narrow) > wide else narrow
    with np.errstate(over="ignore"):
        above = np.nextafter(below, np.float32(np.inf))
    if np.isfinite(above) and wide != float(narrow):
        middle = (Fraction(float(below)) + Fraction(float(above))) / 2
        if Fraction(wide) == middle:
            exact = _exact(sign, decimal, hexadecimal)
            if exact != middle:
                return below if exact < middle else above
    return narrow


def _exact(sign: bytes, decimal: bytes | None, hexadecimal: bytes | None) -> Fraction:
    """The exact value of a decimal or hexadecimal float literal."""
    if decimal is not None:
        value = Fraction(decimal.decode())
    else:
        assert hexadecimal is not None
        mantissa, _, exponent = hexadecimal[2:].decode().lower().partition("p")
        whole, _, frac = mantissa.partition(".")
        digits = int((whole + frac) or "0", 16)
        value = Fraction(digits, 16 ** len(frac)) * Fraction(2) ** int(exponent or "0")
    return -value if sign == b"-" else value
