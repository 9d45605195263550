"""TF's set operations (``tf.sets``) on the last dimension of dense or sparse tensors.

Each group of the leading coordinates holds a set: the values of its last
dimension (repeats counted once). ``set_size`` counts them; ``set_intersection``,
``set_union`` and ``set_difference`` return a ``SparseTensor`` whose group ``g``
holds the result's values in ascending order, ``dense_shape`` the leading shape
and the largest result's size.

The results' sizes depend on the values, so, as TF's kernels (CPU only), these
run on the host: before the step when their inputs are constants or fed
placeholders, after it (its fetches only) when they are computed in the step.
Integer and string values, as TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.sparse_tensor import SparseTensor, SparseTensorValue
from adapters.v1.ops.data_flow_ops import host_inputs, placement
from jtrain import errors

__all__ = ["set_size", "set_intersection", "set_union", "set_difference"]

_VALID = ("int8", "int16", "int32", "int64", "uint8", "uint16", "string")
_VALID_TEXT = "frozenset({tf.int32, tf.uint8, tf.int16, tf.int8, tf.string, tf.int64, tf.uint16})"


def _dense_or_sparse(value: Any, name: str) -> Any:
    """TF's ``convert_to_tensor_or_sparse_tensor``."""
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        return value
    return ops.convert_to_tensor(value, name=name)


def _shape_text(shape: Any) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _groups(op: Any, tensor: Any, validate: bool) -> tuple[tuple[int, ...], list[np.ndarray]]:
    """``(leading shape, the set of each group)`` of a dense value or a sparse triple."""
    if not isinstance(tensor, tuple):
        value = np.asarray(tensor)
        lead = value.shape[:-1]
        rows = value.reshape(-1, value.shape[-1]) if value.size else value.reshape(-1, 0)
        count = int(np.prod(lead, dtype=np.int64))
        return lead, [np.unique(rows[g]) if rows.shape[0] else rows[:0, 0] for g in range(count)]
    indices, values, shape = (np.asarray(t) for t in tensor)
    indices = indices.reshape(-1, shape.shape[0])
    if validate:
        _validate(op, indices, shape)
    lead = tuple(int(d) for d in shape[:-1])
    count = int(np.prod(lead, dtype=np.int64))
    group = np.ravel_multi_index(tuple(indices[:, :-1].T), lead, mode="clip") if count else []
    group = np.asarray(group, np.int64).reshape(-1)
    return lead, [np.unique(values[group == g]) for g in range(count)]


def _validate(op: Any, indices: np.ndarray, shape: np.ndarray) -> None:
    """TF's checks of a sparse input: indices in range and in row-major order."""
    for i, index in enumerate(indices):
        if np.any(index < 0) or np.any(index >= shape):
            raise errors.InvalidArgumentError(
                None,
                op,
                f"indices[{i}] = {_shape_text(index)} is out of bounds: need 0 <= index < "
                f"{_shape_text(shape)}",
            )
        if i and tuple(index) <= tuple(indices[i - 1]):
            raise errors.InvalidArgumentError(
                None,
                op,
                f"indices[{i}] = {_shape_text(index)} is out of order. Many sparse ops "
                "require sorted indices.",
            )


def _dtype_text(dtype: Any) -> str:
    """A dtype as TF formats it in messages: ``<dtype: 'int32'>``."""
    return f"<dtype: '{dtypes.as_dtype(dtype).name}'>"


def _check_dtype(tensor: Any, message: str) -> None:
    if dtypes.as_dtype(tensor.dtype).name not in _VALID:
        raise TypeError(message.format(dtype=_dtype_text(tensor.dtype), valid=_VALID_TEXT))


def host_op(
    op_type: str, inputs: list[Any], compute: Any, specs: list[Any], name: str | None = None
) -> ops.Operation:
    """A host operation: ``compute(op, *NumPy inputs) -> outputs`` before the step (its
    inputs constants or fed placeholders) or after it; ``specs`` its ``(shape, dtype)``s."""
    # A constant's exact value (``host_inputs`` evaluates it, which loses int64 bits
    # with x64 off: 2**53 + 1 gave 1).
    exact = [
        np.asarray(t.op._const_value, t._np_dtype)
        if isinstance(t, ops.Tensor) and t.op.type == "Const" and t.op._const_value is not None
        else t
        for t in inputs
    ]
    flat = host_inputs(exact)
    holder: list[ops.Operation] = []
    op = ops.get_default_graph().create_op(
        op_type,
        name or op_type,
        inputs=flat,
        compute=lambda session, *values: compute(holder[0], *values),
        output_specs=specs,
        host=placement(flat),
    )
    holder.append(op)
    return op


def set_size(a: Any, validate_indices: bool = True) -> ops.Tensor:
    """``tf.sets.size``: the number of distinct values in each set of ``a``.

    Args:
      a: a ``SparseTensor`` of integers or strings, indices in row-major order.
      validate_indices: check the indices' range and order (default ``True``).

    Returns:
      int32 of shape ``a.dense_shape[:-1]`` (static shape unknown, as TF's).

    Raises:
      TypeError: ``a`` is not sparse, or of another dtype (TF's messages).
      InvalidArgumentError: (when run) an index out of range or out of order.
    """
    a = _dense_or_sparse(a, "a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    _check_dtype(a.values, "Invalid dtype `{dtype}` not in supported dtypes: `{valid}`.")

    def compute(op: Any, indices: Any, values: Any, shape: Any) -> tuple[np.ndarray]:
        lead, sets = _groups(op, (indices, values, shape), validate_indices)
        return (np.asarray([s.size for s in sets], np.int32).reshape(lead),)

    op = host_op("SetSize", [a.indices, a.values, a.dense_shape], compute, [(None, np.int32)])
    return op.outputs[0]


def _set_operation(a: Any, b: Any, operation: str, validate_indices: bool) -> SparseTensor:
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sparse and not b_sparse:
        raise ValueError(
            "Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of "
            "your inputs."
        )
    kind = "SparseToSparse" if a_sparse else "DenseToSparse" if b_sparse else "DenseToDense"
    op_type = f"{kind}SetOperation"
    inputs: list[Any] = []
    rank = None
    for t in (a, b):
        if isinstance(t, SparseTensor):
            inputs += [t.indices, t.values, t.dense_shape]
            shape = t.dense_shape._shape
            rank = rank if shape is None or shape[0] is None else shape[0]
        else:
            if t._shape is not None and len(t._shape) < 2:
                raise ValueError(f"Shape must be at least rank 2 but is rank {len(t._shape)}")
            rank = rank if t._shape is None else len(t._shape)
            inputs.append(t)
    if not a_sparse and not b_sparse and a._shape is not None and b._shape is not None:
        lead_a, lead_b = list(a._shape[:-1]), list(b._shape[:-1])
        for i, (x, y) in enumerate(zip(lead_a, lead_b, strict=False)):
            if x is not None and y is not None and x != y:
                raise ValueError(
                    f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes "
                    f"are {_shape_text(lead_a)} and {_shape_text(lead_b)}."
                )
    combine = {
        "intersection": np.intersect1d,
        "union": np.union1d,
        "a-b": np.setdiff1d,
        "b-a": lambda x, y: np.setdiff1d(y, x),
    }[operation]

    def compute(op: Any, *values: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        first = tuple(values[:3]) if a_sparse else values[0]
        second = tuple(values[-3:]) if b_sparse else values[-1]
        lead_a, sets_a = _groups(op, first, validate_indices)
        lead_b, sets_b = _groups(op, second, validate_indices)
        if tuple(lead_a) != tuple(lead_b):
            raise errors.InvalidArgumentError(
                None, op, f"Mismatched shapes {_shape_text(lead_a)} vs {_shape_text(lead_b)}"
            )
        results = [combine(x, y) for x, y in zip(sets_a, sets_b, strict=True)]
        out_indices, out_values = [], []
        for g, result in enumerate(results):
            at = np.unravel_index(g, lead_a) if lead_a else ()
            out_indices += [(*(int(c) for c in at), j) for j in range(result.size)]
            out_values.append(result)
        dtype = np.asarray(values[1] if a_sparse else values[0]).dtype
        flat = np.concatenate(out_values) if out_values else np.zeros([0], dtype)
        longest = max((r.size for r in results), default=0)
        return (
            np.asarray(out_indices, np.int64).reshape(-1, len(lead_a) + 1),
            flat.astype(dtype),
            np.asarray([*lead_a, longest], np.int64),
        )

    values_dtype = (a.values if a_sparse else a).dtype
    specs = [((None, rank), np.int64), ((None,), values_dtype), ((rank,), np.int64)]
    op = host_op(op_type, inputs, compute, specs)
    indices, values, shape = op.outputs
    return SparseTensor(indices, values, shape)


def _pair(a: Any, b: Any) -> tuple[Any, Any, bool]:
    """TF's conversion: dtypes checked, a ``(sparse, dense)`` pair flipped."""
    a = _dense_or_sparse(a, "a")
    _check_dtype(a, "'a' has invalid dtype `{dtype}` not in supported dtypes: `{valid}`.")
    b = _dense_or_sparse(b, "b")
    if dtypes.as_dtype(b.dtype) != dtypes.as_dtype(a.dtype):
        raise TypeError(f"Types don't match, {_dtype_text(a.dtype)} vs {_dtype_text(b.dtype)}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


_ARGS = """    Args:
      a: a ``Tensor`` (rank >= 2) or ``SparseTensor`` of integers or strings.
      b: the same for ``b``, of ``a``'s dtype and leading shape (a sparse ``a`` with a
        dense ``b`` is taken as ``(b, a)``).
"""
_RETURNS = """    Returns:
      A ``SparseTensor`` of ``a``'s rank: each group's result in ascending order.

    Raises:
      TypeError: another dtype, or ``a`` and ``b`` of different dtypes (TF's messages).
      ValueError: a dense input of rank < 2, or leading shapes that differ statically.
      InvalidArgumentError: (when run) leading shapes that differ, or (with
        ``validate_indices``) a sparse index out of range or out of order.
"""


def set_intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    a, b, _ = _pair(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    a, b, _ = _pair(a, b)
    return _set_operation(a, b, "union", validate_indices)


def set_difference(
    a: Any, b: Any, aminusb: bool = True, validate_indices: bool = True
) -> SparseTensor:
    a, b, flipped = _pair(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


set_intersection.__doc__ = (
    "``tf.sets.intersection``: the values in both sets of each group.\n\n"
    + _ARGS
    + "      validate_indices: check sparse indices' range and order (default ``True``).\n\n"
    + _RETURNS
)
set_union.__doc__ = (
    "``tf.sets.union``: the values in either set of each group.\n\n"
    + _ARGS
    + "      validate_indices: check sparse indices' range and order (default ``True``).\n\n"
    + _RETURNS
)
set_difference.__doc__ = (
    "``tf.sets.difference``: the values of ``a``'s set not in ``b``'s (``aminusb``), or\n"
    "    of ``b``'s not in ``a``'s, for each group.\n\n"
    + _ARGS
    + "      aminusb: ``a - b`` (default ``True``), else ``b - a``.\n"
    + "      validate_indices: check sparse indices' range and order (default ``True``).\n\n"
    + _RETURNS
)
