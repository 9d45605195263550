"""``tf.ragged.constant``, ``tf.ragged.constant_value`` and ``tf.ragged.placeholder``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.constant_op import literal_array
from adapters.v1.ops.ragged.ragged_tensor import RaggedTensor, is_ragged
from adapters.v1.ops.ragged.ragged_tensor_value import RaggedTensorValue

__all__ = ["constant", "constant_value", "placeholder"]


def _depths(pylist: Any) -> tuple[int | None, int]:
    """``(depth of the scalars or None if there are none, deepest list nesting)``.

    Raises:
      ValueError: scalars at different depths (TF's message).
    """
    scalar: set[int] = set()
    deepest = 0

    def walk(x: Any, depth: int) -> None:
        nonlocal deepest
        if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0):
            deepest = max(deepest, depth + 1)
            for item in x:
                walk(item, depth + 1)
        else:
            scalar.add(depth)

    walk(pylist, 0)
    if len(scalar) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    return (scalar.pop() if scalar else None), deepest


def _build(
    pylist: Any,
    ragged_rank: int | None,
    inner_shape: tuple | None,
    leaf: Callable[[Any, tuple | None], Any],
    node: Callable[[Any, list[int]], Any],
) -> Any:
    """TF's rules for a ragged constant: ``leaf(flat values, shape)`` for the values,
    ``node(values, row_splits)`` for each ragged dimension."""
    if is_ragged(pylist):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if not isinstance(pylist, (list, tuple)) and np.ndim(pylist) == 0:
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}"
            )
        if inner_shape:
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with dim(inner_shape)={len(inner_shape)}"
            )
        return leaf(pylist, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _depths(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError(
                f"Invalid pylist={pylist!r}: empty list nesting is greater than scalar value "
                "nesting"
            )
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError(
                f"Invalid pylist={pylist}, max depth smaller than ragged_rank={ragged_rank}"
            )
    if inner_shape is not None and ragged_rank is not None:
        expected = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected != scalar_depth) or (
            scalar_depth is None and expected < max_depth
        ):
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank} and "
                f"dim(inner_shape)={len(inner_shape)}"
            )
    if ragged_rank == 0 or (
        ragged_rank is None
        and (max_depth < 2 or (inner_shape is not None and max_depth - len(inner_shape) < 2))
    ):
        return leaf(pylist, inner_shape)
    if ragged_rank is None:
        inner = () if inner_shape is None else tuple(inner_shape)
        depth = max_depth if scalar_depth is None else scalar_depth
        ragged_rank = max(1, depth - 1 - len(inner))
    nested: list[list[int]] = []
    values: list = list(pylist)
    for _ in range(ragged_rank):
        splits = [0]
        flat: list = []
        for row in values:
            splits.append(splits[-1] + len(row))
            flat.extend(row)
        nested.append(splits)
        values = flat
    if inner_shape is None:
        inner_shape = _inner_shape(values, scalar_depth, ragged_rank)
    result = leaf(values, (len(values), *inner_shape))
    for splits in reversed(nested):
        result = node(result, splits)
    return result


def _inner_shape(values: list, scalar_depth: int | None, ragged_rank: int) -> tuple:
    """The uniform shape of each of ``values`` (TF's default inner shape).

    Raises:
      ValueError: values of different shapes (TF's message).
    """
    if not values:
        depth = 0 if scalar_depth is None else scalar_depth - ragged_rank - 1
        return (0,) * max(depth, 0)
    shapes = {np.shape(v) for v in values}
    if len(shapes) != 1:
        raise ValueError("inner values have inconsistent shape")
    return shapes.pop()


def constant(
    pylist: Any,
    dtype: Any = None,
    ragged_rank: int | None = None,
    inner_shape: tuple | None = None,
    name: str | None = None,
    row_splits_dtype: Any = "int64",
) -> Any:
    """A constant ``RaggedTensor`` from a nested list (``tf.ragged.constant``).

    Args:
      pylist: nested lists (or tuples/arrays) of scalars; rows may differ in length.
      dtype: the values' dtype (default TF's inference: int32, float32, string...).
      ragged_rank: the number of ragged dimensions (default: all but the innermost
        lists' nesting, at least 1).
      inner_shape: the shape of each innermost value (default from ``pylist``).
      name: the scope's name (default ``"RaggedConstant"``).
      row_splits_dtype: int64 (default) or int32.

    Returns:
      A ``RaggedTensor`` (a ``Tensor`` when ``pylist`` has fewer than two levels or
      ``ragged_rank`` is 0).

    Raises:
      ValueError: inconsistent nesting or arguments (TF's messages).
    """
    sdtype = ops.as_dtype(row_splits_dtype).dtype
    np_dtype = None if dtype is None else ops.as_dtype(dtype).dtype

    def leaf(values: Any, shape: tuple | None) -> ops.Tensor:
        arr = (
            literal_array(values, np_dtype) if values != [] else np.zeros(0, np_dtype or np.float32)
        )
        if shape is not None:
            arr = arr.reshape(shape)
        return ops.convert_to_tensor(arr, name="values")

    def node(values: Any, splits: list[int]) -> RaggedTensor:
        return RaggedTensor(values, ops.convert_to_tensor(np.asarray(splits, sdtype)), None, True)

    with ops.name_scope(name, "RaggedConstant"):
        return _build(pylist, ragged_rank, inner_shape, leaf, node)


def constant_value(
    pylist: Any,
    dtype: Any = None,
    ragged_rank: int | None = None,
    inner_shape: tuple | None = None,
    row_splits_dtype: Any = "int64",
) -> Any:
    """A ``RaggedTensorValue`` (NumPy arrays) from a nested list
    (``tf.compat.v1.ragged.constant_value``); arguments as ``tf.ragged.constant``."""
    sdtype = ops.as_dtype(row_splits_dtype).dtype
    np_dtype = None if dtype is None else ops.as_dtype(dtype).dtype

    def leaf(values: Any, shape: tuple | None) -> np.ndarray:
        arr = np.asarray(values, dtype=np_dtype)  # NumPy's inference, as TF's
        return arr if shape is None else arr.reshape(shape)

    def node(values: Any, splits: list[int]) -> RaggedTensorValue:
        return RaggedTensorValue(values, np.asarray(splits, sdtype))

    return _build(pylist, ragged_rank, inner_shape, leaf, node)


def placeholder(
    dtype: Any, ragged_rank: int, value_shape: Any = None, name: str | None = None
) -> RaggedTensor:
    """A ``RaggedTensor`` of placeholders (``tf.compat.v1.ragged.placeholder``): fed
    with a ``RaggedTensorValue`` (its flat values and each row splits).

    Args:
      dtype: the values' dtype.
      ragged_rank: the number of ragged dimensions (>= 1).
      value_shape: the shape of each flat value (default ``None``: unknown).
      name: the scope's name (default ``"RaggedPlaceholder"``).

    Raises:
      ValueError: ``ragged_rank`` < 1.
    """
    from adapters.v1.framework.tensor_shape import TensorShape
    from adapters.v1.ops.array_ops import placeholder as dense_placeholder

    if ragged_rank < 1:
        raise ValueError("ragged_rank must be at least 1")
    with ops.name_scope(name, "RaggedPlaceholder"):
        inner = TensorShape(value_shape)
        flat_shape = TensorShape([None]).concatenate(inner)
        result: Any = dense_placeholder(dtype, flat_shape, name="flat_values")
        for i in reversed(range(ragged_rank)):
            splits = dense_placeholder("int64", [None], name=f"row_splits_{i}")
            result = RaggedTensor(result, splits, None, True)
        return result
