"""``tf.compat``: string conversions, numeric type tuples and forward compatibility.

What TF 2.21's ``tf.compat.v1.compat`` has: ``as_bytes``/``as_text``/``as_str``/
``as_str_any``/``path_to_str`` with TF's ``TypeError`` for other values, the
``integral_types``/``real_types``/``complex_types``/``bytes_or_text_types``
tuples for ``isinstance``, ``dimension_value``/``dimension_at_index`` (TF1 shapes),
``forward_compatible``/``forward_compatibility_horizon`` and ``v1`` (this
package, ``adapters.v1``).

.. note::
   ``tf.compat.v2`` (TF 2's eager API) has no counterpart: ``tf.compat.v2``
   raises ``AttributeError``. The forward-compatibility horizon is TF 2.21's
   (2026-01-16), moved by ``TF_FORWARD_COMPATIBILITY_DELTA_DAYS`` as in TF;
   jtrain's graphs do not depend on it.
"""

from __future__ import annotations

import codecs
import datetime
import logging
import numbers
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from adapters.v1._missing import missing_attribute_error
from adapters.v1.framework.tensor_shape import dimension_at_index, dimension_value

__all__ = [
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "dimension_at_index",
    "dimension_value",
    "forward_compatibility_horizon",
    "forward_compatible",
    "integral_types",
    "path_to_str",
    "real_types",
    "v1",  # noqa: F822 - module __getattr__ (this package, imported lazily)
]

# ``isinstance`` tuples (NumPy scalars are not ``numbers.Integral``... in every version).
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text: Any, encoding: str = "utf-8") -> bytes:
    """``bytes_or_text`` as ``bytes``: text encoded, ``bytearray`` copied.

    Args:
      bytes_or_text: a ``bytes``, ``bytearray`` or ``str``.
      encoding: the codec for text (default ``"utf-8"``).

    Returns:
      ``bytes``.

    Raises:
      TypeError: anything else (``"Expected binary or unicode string, got 1"``).
      LookupError: an unknown ``encoding`` (checked first, as TF).
    """
    codec = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, (bytes, bytearray)):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(codec)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text: Any, encoding: str = "utf-8") -> str:
    """``bytes_or_text`` as ``str``: bytes decoded.

    Args:
      bytes_or_text: a ``bytes`` or ``str`` (a ``bytearray`` is refused, as TF).
      encoding: the codec for bytes (default ``"utf-8"``).

    Returns:
      ``str``.

    Raises:
      TypeError: anything else (``"Expected binary or unicode string, got 1"``).
      UnicodeDecodeError: bytes that are not valid in ``encoding``.

    .. note::
       TF formats its message with ``%`` and the value itself, so a tuple is
       spread into the format: ``as_text((1, 2))`` raises TF's ``TypeError``
       ``"not all arguments converted during string formatting"``, and so does
       this function.
    """
    codec = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(codec)
    raise TypeError("Expected binary or unicode string, got %r" % bytes_or_text)  # noqa: UP031


def as_str(bytes_or_text: Any, encoding: str = "utf-8") -> str:
    """``as_text`` under its other name (same arguments, same errors)."""
    return as_text(bytes_or_text, encoding)


def as_str_any(value: Any, encoding: str = "utf-8") -> str:
    """``str(value)``, except that ``bytes`` are decoded with ``encoding`` (``as_str``)."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path: Any) -> Any:
    """A path-like object's path as ``str`` (``Path("./a")`` is ``"a"``); anything
    without ``__fspath__`` is returned unchanged (TF does not check it)."""
    if hasattr(path, "__fspath__"):
        return as_str_any(path.__fspath__())
    return path


# TF 2.21's forward-compatibility horizon (tensorflow/python/compat/compat.py).
_HORIZON = datetime.date(2026, 1, 16)
_DELTA_DAYS_VAR = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"
_date_number = 0


def _number(year: int, month: int, day: int) -> int:
    return (year << 9) | (month << 5) | day


def _set_horizon(date: datetime.date | None = None) -> None:
    global _date_number
    if date is None:
        date = _HORIZON
        delta = os.getenv(_DELTA_DAYS_VAR)
        if delta:
            date += datetime.timedelta(days=int(delta))
    if date < _HORIZON:
        logging.getLogger("tensorflow").warning(
            "Trying to set the forward compatibility date to the past date %s. "
            "This will be ignored by TensorFlow.",
            date,
        )
        return
    _date_number = _number(date.year, date.month, date.day)


_set_horizon()


def forward_compatible(year: int, month: int, day: int) -> bool:
    """Whether the forward-compatibility window ending at ``year-month-day`` has passed.

    True when the horizon (TF 2.21's 2026-01-16, plus
    ``TF_FORWARD_COMPATIBILITY_DELTA_DAYS``, or the date of an enclosing
    ``forward_compatibility_horizon``) is strictly after the date.

    Args:
      year: the year (an ``int``).
      month: the month, 1 to 12.
      day: the day of the month.

    Returns:
      ``bool``.
    """
    return _date_number > _number(year, month, day)


@contextmanager
def forward_compatibility_horizon(year: int, month: int, day: int) -> Iterator[None]:
    """Context manager moving the horizon ``forward_compatible`` compares with.

    Args:
      year: the year (an ``int``).
      month: the month, 1 to 12.
      day: the day of the month.

    Raises:
      ValueError: not a valid date (``datetime.date``'s error, as TF).

    .. note::
       A date before TF 2.21's horizon is ignored with a warning, as in TF.
    """
    try:
        _set_horizon(datetime.date(year, month, day))
        yield
    finally:
        _set_horizon()


def __getattr__(name: str) -> Any:  # noqa: N807 (module protocol)
    if name == "v1":  # this package itself (imported lazily: it imports this module)
        return sys.modules["adapters.v1"]
    if name == "v2":
        raise AttributeError(
            "tf.compat.v2 is not in adapters.v1: jtrain has TF1 graph mode only "
            "(adapters.v1); TF 2's eager API has no counterpart"
        )
    raise missing_attribute_error("tf.compat", name, globals())


def __dir__() -> list[str]:  # noqa: N807 (module protocol)
    return sorted({*globals(), "v1"})
