"""TF's feature crosses of sparse and dense inputs: ``tf.sparse.cross`` (op
``SparseCrossV2``) and ``tf.sparse.cross_hashed`` (op ``SparseCross`` with hashed
output), as TF's ``sparse_ops.py`` and its kernel (``core/kernels/sparse_cross_op.cc``).

For each batch row, the inputs' features of that row (a ``SparseTensor``'s values of
the row in order, a dense ``[batch, n]`` tensor's row) are crossed in product order,
the last input varying fastest; ``SparseTensor`` inputs come first, then the dense
ones, whatever order ``inputs`` gives. ``cross`` joins the features' strings with
``separator`` (an integer written in decimal); ``cross_hashed`` folds them with TF's
``FingerprintCat64``, starting from ``hash_key``, a string feature as its FarmHash
``Fingerprint64``, an integer as its own bits:

.. math::

   h = \\mathrm{Cat}(\\ldots\\mathrm{Cat}(\\mathrm{Cat}(key, f_1), f_2)\\ldots, f_k)
   \\bmod (num\\_buckets\\ \\text{or}\\ 2^{63} - 1)

Non-string inputs are cast to int64 first (a float truncates), as TF's Python does.
The result is a ``SparseTensor`` of ``[batch, most crosses in a row]``.

.. note::
   The number of crosses depends on the data: these are host operations (as jtrain's
   string ops), computed in NumPy before the step's program when their inputs are
   constants or fed, after it otherwise (then their results can be fetched, not fed
   to the program's ops). Like TF's kernel, a ``SparseTensor``'s row ``b`` is taken as
   the values after the counts of rows ``< b`` (its indices are expected row-major).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops.data_flow_ops import host_inputs, placement
from adapters.v1.ops.string_ops import fingerprint64
from jtrain import errors

__all__ = ["sparse_cross", "sparse_cross_hashed", "fed_placement"]

_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TF's sparse_cross_hashed default
_K_MUL = 0xC6A4A7935BD1E995
_MASK = (1 << 64) - 1
_INT64_MAX = (1 << 63) - 1


def _fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TF's ``FingerprintCat64`` of two unsigned 64-bit integers."""

    def shift_mix(v: int) -> int:
        return v ^ (v >> 47)

    result = fp1 ^ _K_MUL
    result ^= (shift_mix((fp2 * _K_MUL) & _MASK) * _K_MUL) & _MASK
    result = (result * _K_MUL) & _MASK
    result = (shift_mix(result) * _K_MUL) & _MASK
    return shift_mix(result)


def _split_inputs(inputs: Any, what: str) -> tuple[list[SparseTensor], list[ops.Tensor]]:
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if not all(
        isinstance(i, (SparseTensor, ops.Tensor)) or hasattr(i, "_as_graph_tensor") for i in inputs
    ):
        raise TypeError(what)
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [ops.convert_to_tensor(i) for i in inputs if not isinstance(i, SparseTensor)]
    return sparse, dense


def _cross_node(
    op_type: str,
    name: str | None,
    sparse: list[SparseTensor],
    dense: list[ops.Tensor],
    combine: Any,
    out_dtype: Any,
    extra: list[ops.Tensor],
) -> SparseTensor:
    """The host node: ``combine(features of one cross, *extra values)`` gives a value."""
    n_sparse = len(sparse)
    flat = [t for sp in sparse for t in (sp.indices, sp.values, sp.dense_shape)]
    inputs = host_inputs(flat + dense + extra)
    node: list[ops.Operation] = []

    def features(value: Any) -> list[Any]:
        arr = np.asarray(value)
        if arr.dtype == object:
            return [bytes(v) for v in arr.reshape(-1)]
        return [int(v) for v in arr.astype(np.int64).reshape(-1)]

    def compute(session: Any, *values: Any) -> tuple[Any, ...]:
        sparse_vals = [values[3 * i : 3 * i + 3] for i in range(n_sparse)]
        dense_vals = values[3 * n_sparse : len(values) - len(extra)]
        extras = values[len(values) - len(extra) :]
        op = node[0]
        for i, d in enumerate(dense_vals):
            if np.ndim(d) != 2:
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    "Dense inputs should be a matrix but received shape "
                    f"[{','.join(str(s) for s in np.shape(d))}] at position {i}",
                )
        if sparse_vals:
            batch = int(np.asarray(sparse_vals[0][2])[0])
        else:
            batch = int(np.shape(dense_vals[0])[0])
        columns = []  # per input, per row: its features
        for i, (idx, vals, shape) in enumerate(sparse_vals):
            if int(np.asarray(shape)[0]) != batch:
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    f"Expected batch size {batch} got {int(np.asarray(shape)[0])} at position {i}",
                )
            rows = np.asarray(idx, np.int64).reshape(-1, 2)[:, 0]
            counts = np.bincount(rows, minlength=batch)[:batch] if rows.size else np.zeros(batch)
            starts = (np.cumsum(counts) - counts).astype(np.int64)  # (none for no rows)
            feats = features(vals)
            columns.append(
                [feats[int(s) : int(s) + int(c)] for s, c in zip(starts, counts, strict=True)]
            )
        for i, d in enumerate(dense_vals):
            if np.shape(d)[0] != batch:
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    f"Expected batch size {batch} got {np.shape(d)[0]} at dense tensor {i}",
                )
            width = np.shape(d)[1]
            feats = features(d)
            columns.append([feats[b * width : (b + 1) * width] for b in range(batch)])
        indices, out, longest = [], [], 0
        for b in range(batch):
            lists = [col[b] for col in columns]
            crosses = _product(lists)
            longest = max(longest, len(crosses))
            indices += [(b, k) for k in range(len(crosses))]
            out += [combine(c, *extras) for c in crosses]
        if out_dtype == dtypes.string:
            out_values = np.empty(len(out), object)
            out_values[:] = out
        else:
            out_values = np.asarray(out, np.uint64).view(np.int64)
        return (
            np.asarray(indices, np.int64).reshape(-1, 2),
            out_values,
            np.asarray([batch, longest], np.int64),
        )

    op = ops.get_default_graph().create_op(
        op_type,
        name or op_type,
        inputs=inputs,
        compute=compute,
        output_specs=[
            ((None, 2), np.dtype(np.int64)),
            ((None,), out_dtype.dtype),
            ((2,), np.dtype(np.int64)),
        ],
        host=fed_placement(inputs, sparse),
    )
    node.append(op)
    return SparseTensor(*op.outputs)


def fed_placement(inputs: list[ops.Tensor], sparse: Any = ()) -> str:
    """``data_flow_ops.placement``, with the ``dense_shape`` of a
    ``tf.sparse_placeholder`` among ``sparse`` (a ``PlaceholderWithDefault`` beside
    ``Placeholder`` indices and values, fed with them as a ``SparseTensorValue``) taken
    as fed: the crosses of fed sparse inputs run before the program and can feed it (an
    embedding lookup). Any other ``PlaceholderWithDefault`` may run with its default,
    computed in the step: a host op reading it runs after the step."""
    fed_shapes = {
        sp.dense_shape
        for sp in sparse
        if sp.dense_shape.op.type == "PlaceholderWithDefault"
        and sp.indices.op.type == "Placeholder"
        and sp.values.op.type == "Placeholder"
    }
    return placement([t for t in inputs if t not in fed_shapes])


def _product(lists: list[list[Any]]) -> list[tuple[Any, ...]]:
    """TF's ``ProductIterator``: every choice of one feature per input, the last input
    varying fastest; none when an input has no feature."""
    out: list[tuple[Any, ...]] = [()]
    for features in lists:
        out = [(*prefix, f) for prefix in out for f in features]
    return out


def sparse_cross(inputs: Any, name: str | None = None, separator: Any = None) -> SparseTensor:
    """The string crosses of ``inputs`` (``tf.sparse.cross``; TF op ``SparseCrossV2``).

    Args:
      inputs: a list of ``Tensor`` (``[batch, n]``) or ``SparseTensor`` (``[batch, ?]``)
        of strings or integers.
      name: the op's name.
      separator: the string between the crossed features (default ``"_X_"``).

    Returns:
      A string ``SparseTensor`` ``[batch, most crosses in a row]``.

    Raises:
      TypeError: ``inputs`` is not a list, or holds something else than tensors.
      InvalidArgumentError: (in the run) a dense input not a matrix, batch sizes that
        differ.
    """
    sparse, dense = _split_inputs(inputs, "All inputs must be Tensor or SparseTensor.")
    (sep,) = host_inputs([ops.convert_to_tensor("_X_" if separator is None else separator)])

    def join(features: tuple[Any, ...], sep_value: Any) -> bytes:
        glue = bytes(np.asarray(sep_value, dtype=object).item())
        return glue.join(f if isinstance(f, bytes) else str(f).encode() for f in features)

    return _cross_node("SparseCrossV2", name, sparse, dense, join, dtypes.string, [sep])


def sparse_cross_hashed(
    inputs: Any, num_buckets: int = 0, hash_key: int | None = None, name: str | None = None
) -> SparseTensor:
    """The hashed crosses of ``inputs`` (``tf.sparse.cross_hashed``; TF op ``SparseCross``).

    Args:
      inputs: a list of ``Tensor`` (``[batch, n]``) or ``SparseTensor`` (``[batch, ?]``)
        of strings or integers.
      num_buckets: ``>= 0``; the hash modulo ``num_buckets`` when positive (default 0:
        modulo ``2**63 - 1``).
      hash_key: the ``FingerprintCat64`` seed (default: TF's ``0xDECAFCAFFE``; TF takes
        0 as the default too).
      name: the op's name.

    Returns:
      An int64 ``SparseTensor`` ``[batch, most crosses in a row]``.

    Raises:
      TypeError: ``inputs`` is not a list, or holds something else than tensors.
      ValueError: a negative ``num_buckets``; ``num_buckets`` or ``hash_key`` outside
        int64's range.
      InvalidArgumentError: (in the run) a dense input not a matrix, batch sizes that
        differ.
    """
    sparse, dense = _split_inputs(inputs, "All inputs must be SparseTensors")
    hash_key = hash_key or _DEFAULT_HASH_KEY
    for attr, given in (("num_buckets", int(num_buckets)), ("hash_key", int(hash_key))):
        if not -(1 << 63) <= given <= _INT64_MAX:  # TF's int64 attributes
            raise ValueError(f"Value out of range: {given}")
        if attr == "num_buckets" and given < 0:
            raise ValueError(
                f"Attr 'num_buckets' of 'SparseCross' Op passed {given} less than minimum 0."
            )
    key = int(hash_key) & _MASK
    modulo = int(num_buckets) if num_buckets and num_buckets > 0 else _INT64_MAX

    def hashed(features: tuple[Any, ...]) -> int:
        value = key
        for f in features:
            f = fingerprint64(f) if isinstance(f, bytes) else f & _MASK
            value = _fingerprint_cat64(value, f)
        return value % modulo

    return _cross_node("SparseCross", name, sparse, dense, hashed, dtypes.int64, [])
