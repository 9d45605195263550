"""TF's ``TensorShape`` and ``Dimension``, with TF1's (v1) behaviour by default.

A ``TensorShape`` is a possibly partial static shape: an unknown rank
(``TensorShape(None)``), or a list of dimensions each known or unknown
(``None``). In v1 behaviour, what ``tf.compat.v1`` with ``disable_v2_behavior()``
gives, indexing and iterating give ``Dimension`` objects (``shape[0].value``)
and ``str`` writes unknown dimensions as ``?``; ``enable_v2_tensorshape()``
switches to TF2's plain ints and ``None``.

An integer is a one-dimensional shape (``as_shape(100)`` is ``[100]``), as in TF.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterator
from typing import Any

__all__ = [
    "Dimension",
    "TensorShape",
    "as_dimension",
    "as_shape",
    "dimension_at_index",
    "dimension_value",
    "disable_v2_tensorshape",
    "enable_v2_tensorshape",
    "matrix",
    "scalar",
    "unknown_shape",
    "vector",
]

_V2_BEHAVIOR = False


def enable_v2_tensorshape() -> None:
    """TF2 shapes: indexing and iterating a ``TensorShape`` give ints or ``None``."""
    global _V2_BEHAVIOR
    _V2_BEHAVIOR = True


def disable_v2_tensorshape() -> None:
    """TF1 shapes (the default here): indexing gives ``Dimension`` objects."""
    global _V2_BEHAVIOR
    _V2_BEHAVIOR = False


def _to_value(value: Any) -> int | None:
    """The int (or ``None``) a dimension value stands for; TF's errors otherwise."""
    if value is None:
        return None
    if isinstance(value, Dimension):
        return value.value
    try:
        number = int(value.__index__())
    except AttributeError:
        raise TypeError(
            "Dimension value must be integer or None or have an __index__ method, got "
            f"value '{value!r}' with type '{type(value)}'"
        ) from None
    if number < 0:
        raise ValueError(f"Dimension {number} must be >= 0")
    return number


class Dimension:
    """One dimension of a shape: a non-negative int or unknown (``None``).

    Arithmetic with an unknown dimension gives an unknown dimension; comparisons
    and ``==`` with one give ``None`` (TF's three-valued logic).

    Args:
      value: an int (anything with ``__index__``), ``None`` or a ``Dimension``.

    Raises:
      TypeError: ``value`` is not an integer.
      ValueError: ``value`` is negative.
    """

    __slots__ = ("_value",)

    def __init__(self, value: Any):
        self._value = _to_value(value)

    @property
    def value(self) -> int | None:
        """The int value, or ``None`` if unknown."""
        return self._value

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __int__(self) -> int:
        return self._value  # type: ignore[return-value]  # TypeError for unknown, as TF

    def __index__(self) -> int:
        return self._value  # type: ignore[return-value]

    def __reduce__(self):
        return Dimension, (self._value,)

    # -- compatibility -----------------------------------------------------------
    def is_compatible_with(self, other: Any) -> bool:
        """True unless both are known and differ."""
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raises ``ValueError`` if ``other`` is not compatible with this dimension."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other: Any) -> Dimension:
        """The known one of two compatible dimensions (``ValueError`` if they differ)."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other.value)

    # -- comparisons (None when either is unknown) -------------------------------
    def _compare(self, other: Any, op: Any) -> Any:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return op(self._value, other.value)

    def __eq__(self, other: Any) -> Any:
        return self._compare(other, operator.eq)

    def __ne__(self, other: Any) -> Any:
        return self._compare(other, operator.ne)

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, operator.lt)

    def __le__(self, other: Any) -> Any:
        return self._compare(other, operator.le)

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, operator.gt)

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, operator.ge)

    __hash__ = None  # unhashable, as TF's

    # -- arithmetic (unknown when either is unknown) -----------------------------
    def _arith(self, other: Any, op: Any, reverse: bool = False) -> Any:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return Dimension(None)
        a, b = (other.value, self._value) if reverse else (self._value, other.value)
        return Dimension(op(a, b))

    def __add__(self, other: Any) -> Dimension:
        return self._arith(other, operator.add)

    def __radd__(self, other: Any) -> Dimension:
        return self._arith(other, operator.add, reverse=True)

    def __sub__(self, other: Any) -> Dimension:
        return self._arith(other, operator.sub)

    def __rsub__(self, other: Any) -> Dimension:
        return self._arith(other, operator.sub, reverse=True)

    def __mul__(self, other: Any) -> Dimension:
        return self._arith(other, operator.mul)

    def __rmul__(self, other: Any) -> Dimension:
        return self._arith(other, operator.mul, reverse=True)

    def __floordiv__(self, other: Any) -> Dimension:
        return self._arith(other, operator.floordiv)

    def __rfloordiv__(self, other: Any) -> Dimension:
        return self._arith(other, operator.floordiv, reverse=True)

    def __mod__(self, other: Any) -> Dimension:
        return self._arith(other, operator.mod)

    def __rmod__(self, other: Any) -> Dimension:
        return self._arith(other, operator.mod, reverse=True)

    def __truediv__(self, other: Any) -> Any:
        raise TypeError(
            "unsupported operand type(s) for /: 'Dimension' and "
            f"'{type(other).__name__}', please use // instead"
        )


def dims_text(dims: Any) -> str:
    """Dimensions as TF's kernels and shape functions write them in messages:
    ``[2,?,3]`` (``?`` for an unknown dimension)."""
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def as_dimension(value: Any) -> Dimension:
    """``value`` as a ``Dimension`` (a ``Dimension`` is returned as is)."""
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension: Any) -> int | None:
    """The int value of a ``Dimension`` (other values are returned as they are)."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape: Any, index: int) -> Dimension:
    """``shape``'s dimension ``index`` as a ``Dimension`` (unknown for unknown rank)."""
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return Dimension(shape.as_list()[index])


def _iterable_dims(dims: Any, items: Any) -> tuple[int | None, ...]:
    """The dimensions of an iterable other than a tuple or list (a string, a generator,
    an array), each as a ``Dimension`` converts it.

    Raises:
      TypeError: an item is not a dimension, with TF's message naming ``dims`` and the item.
    """
    out = []
    for d in items:
        try:
            out.append(_to_value(d))
        except TypeError as e:
            # TF's text, its missing space before "could" included.
            raise TypeError(
                f"Failed to convert '{dims!r}' to a shape: '{d!r}'could not be converted to "
                "a dimension. A shape should either be single dimension (e.g. 10), or an "
                "iterable of dimensions (e.g. [1, 10, None])."
            ) from e
    return tuple(out)


class TensorShape:
    """A static shape, possibly partial (``tf.TensorShape``).

    Args:
      dims: ``None`` (unknown rank), an int (a vector's length), or an iterable of
        ints, ``None``s and ``Dimension``s.

    Raises:
      TypeError, ValueError: a dimension is not a non-negative int or ``None``.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Any):
        if dims is None:
            self._dims: tuple[int | None, ...] | None = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            try:
                items = iter(dims)
            except TypeError:
                items = iter([dims])
            else:
                if not isinstance(dims, (tuple, list)):
                    self._dims = _iterable_dims(dims, items)
                    return
            self._dims = tuple(_to_value(d) for d in items)

    # -- views -------------------------------------------------------------------
    @property
    def rank(self) -> int | None:
        """The number of dimensions, ``None`` if unknown."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> int | None:
        """Same as ``rank``."""
        return self.rank

    @property
    def dims(self) -> list[Any] | None:
        """The dimensions (``Dimension``s in v1, ints/``None`` in v2); ``None`` if unknown."""
        if self._dims is None:
            return None
        return list(self._dims) if _V2_BEHAVIOR else [Dimension(d) for d in self._dims]

    def as_list(self) -> list[int | None]:
        """The dimensions as ints and ``None``s (``ValueError`` for an unknown rank)."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self) -> Iterator[Any]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            value = list(self._dims)[key]  # IndexError: "list index out of range", as TF
            return value if _V2_BEHAVIOR else Dimension(value)
        if isinstance(key, slice):
            if key.step is not None:
                raise ValueError("Steps are not yet handled")
            start = 0 if key.start is None else key.start
            if key.stop is None or start < 0 or key.stop < 0:
                return unknown_shape()
            return unknown_shape(rank=max(key.stop - start, 0))
        return None if _V2_BEHAVIOR else Dimension(None)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        unknown = "None" if _V2_BEHAVIOR else "?"
        parts = [unknown if d is None else str(d) for d in self._dims]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        if _V2_BEHAVIOR:
            return f"TensorShape({list(self._dims)!r})"
        return "TensorShape([" + ", ".join(repr(Dimension(d)) for d in self._dims) + "])"

    def __reduce__(self):
        return TensorShape, (None if self._dims is None else list(self._dims),)

    # -- predicates --------------------------------------------------------------
    def is_fully_defined(self) -> bool:
        """Whether the rank and every dimension are known."""
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self) -> None:
        """Raises ``ValueError`` unless the shape is fully defined."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self) -> int | None:
        """The number of elements, ``None`` unless the shape is fully defined."""
        if not self.is_fully_defined():
            return None
        return functools.reduce(operator.mul, self._dims, 1)

    def is_compatible_with(self, other: Any) -> bool:
        """Whether some fully defined shape matches both shapes."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims, strict=True)
        )

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raises ``ValueError`` unless ``other`` is compatible with this shape."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other: Any) -> TensorShape:
        """The most specific shape compatible with both (``ValueError`` if none is)."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape(
            [a if a is not None else b for a, b in zip(self._dims, other._dims, strict=True)]
        )

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        """The most specific shape both ``self`` and ``other`` are compatible with."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape(
            [a if a == b else None for a, b in zip(self._dims, other._dims, strict=True)]
        )

    def concatenate(self, other: Any) -> TensorShape:
        """The dimensions of ``self`` then ``other`` (unknown if either rank is)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    def __add__(self, other: Any) -> TensorShape:
        return self.concatenate(other)

    def __radd__(self, other: Any) -> TensorShape:
        return as_shape(other).concatenate(self)

    # -- rank checks -------------------------------------------------------------
    def assert_same_rank(self, other: Any) -> None:
        """Raises ``ValueError`` if both ranks are known and differ."""
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank: int) -> None:
        """Raises ``ValueError`` if the rank is known and not ``rank``."""
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank: int) -> TensorShape:
        """This shape merged with an unknown shape of ``rank`` (``ValueError`` if not)."""
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank: int) -> TensorShape:
        """This shape, if its rank is unknown or at least ``rank`` (else ``ValueError``)."""
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        """This shape, if its rank is unknown or at most ``rank`` (else ``ValueError``)."""
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    # -- equality ----------------------------------------------------------------
    def __eq__(self, other: Any) -> Any:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other: Any) -> Any:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._dims)


def as_shape(shape: Any) -> TensorShape:
    """``shape`` as a ``TensorShape`` (a ``TensorShape`` is returned as is)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: int | None = None, **kwargs: Any) -> TensorShape:
    """A shape of unknown rank, or of ``rank`` unknown dimensions."""
    if rank is None and "ndims" in kwargs:
        rank = kwargs.pop("ndims")
    if kwargs:
        raise TypeError(f"Unknown argument: {kwargs}")
    return TensorShape(None if rank is None else [None] * rank)


def scalar() -> TensorShape:
    """The shape of a scalar, ``[]``."""
    return TensorShape([])


def vector(length: Any) -> TensorShape:
    """The shape of a vector of ``length``."""
    return TensorShape([length])


def matrix(rows: Any, cols: Any) -> TensorShape:
    """The shape of a ``rows`` x ``cols`` matrix."""
    return TensorShape([rows, cols])
