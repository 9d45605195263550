"""``tf.sparse.bincount``: counts of integer values as a ``SparseTensor`` (TF's
``sparse_ops.sparse_bincount``; ops ``DenseCountSparseOutput`` and
``SparseCountSparseOutput``, kernels ``core/kernels/count_ops.cc``).

With ``axis=0`` every value is counted together (a ``[size]`` result); with
``axis=-1`` each row of a matrix (each row of a rank-2 ``SparseTensor``) on its own
(``[rows, size]``). A count is the number of occurrences, the sum of the values'
``weights`` (in the order of the values, in the weights' dtype), or 1
(``binary_output``); only the values present appear, sorted. Values from
``maxlength`` on are dropped, and the size is ``maxlength`` when given, else
``max(largest value kept + 1, minlength)``. The counts take the weights' dtype, else
the values'.

.. note::
   The number of counts depends on the data: a host operation (as jtrain's string
   ops), computed in NumPy before the step's program when its inputs are constants or
   fed, after it otherwise (then its result can be fetched, not fed to the program's
   ops).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops, shape_values
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops.data_flow_ops import host_inputs
from adapters.v1.ops.logging_ops import summarize_value
from adapters.v1.ops.sparse_cross_ops import fed_placement
from jtrain import errors

__all__ = ["sparse_bincount"]


def _check_integer(tensor: ops.Tensor) -> None:
    if tensor.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"Value passed to parameter 'values' has DataType {tensor.dtype.name} not in list "
            "of allowed values: int32, int64"
        )


def sparse_bincount(
    values: Any,
    weights: Any = None,
    axis: int | None = 0,
    minlength: int | None = None,
    maxlength: int | None = None,
    binary_output: bool = False,
    name: str | None = None,
) -> SparseTensor:
    """Counts the integer ``values`` (``tf.sparse.bincount``), as a ``SparseTensor``.

    Args:
      values: an int32/int64 ``Tensor`` (rank 1 or 2 with ``axis=-1``) or
        ``SparseTensor``.
      weights: optional, ``values``' shape (a ``SparseTensor`` of the same indices for
        a sparse ``values``): summed instead of counting.
      axis: 0 (everything together, default) or -1 (per row).
      minlength: the least size of the result's last dimension.
      maxlength: values from it on are dropped; the size of the last dimension (0
        drops every value; -1 is not given).
      binary_output: 1 for each value present instead of its count.
      name: the name scope (default ``"count"``).

    Returns:
      A ``SparseTensor`` ``[size]`` (``axis=0``) or ``[rows, size]`` (``axis=-1``) of
      the weights' dtype, else the values'.

    Raises:
      ValueError: both ``weights`` and ``binary_output``; an ``axis`` other than 0 and
        -1; weights of another static shape, or not a ``SparseTensor`` for sparse
        ``values``; ``minlength``/``maxlength`` below -1.
      TypeError: non-integer ``values``.
      InvalidArgumentError: sparse weights of other indices or dense shape than the
        values' (when built if the graph fixes both, else in the run); in the run, a
        negative value, dense values not of rank 1 or 2.
    """
    with ops.name_scope(name, "count"):
        sparse = isinstance(values, SparseTensor)
        if not sparse:
            values = ops.convert_to_tensor(values, name="values")
        if weights is not None and not isinstance(weights, SparseTensor):
            weights = ops.convert_to_tensor(weights, name="weights")
        if weights is not None and binary_output:
            raise ValueError(
                "Arguments `binary_output` and `weights` are mutually exclusive. Please "
                "specify only one."
            )
        axis = 0 if axis is None else axis
        if axis not in (0, -1):
            raise ValueError(
                f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently "
                "supported."
            )
        _check_integer(values.values if sparse else values)
        # TF's validate_sparse_weights: SparseTensor weights of the values' indices and
        # dense shape (checked in the run unless they are the same tensors)
        same_as_values: list[tuple[ops.Tensor, ops.Tensor, str]] = []
        if sparse and weights is not None:
            if not isinstance(weights, SparseTensor):
                raise ValueError(
                    "Argument `weights` must be a SparseTensor if `values` is a SparseTensor. "
                    f"Received weights={weights} of type: {type(weights).__name__}"
                )
            for part in ("dense_shape", "indices"):
                theirs, ours = getattr(weights, part), getattr(values, part)
                if theirs is ours:
                    continue
                message = f"'weights' and 'values' must have the same {part.replace('_', ' ')}."
                known = [shape_values.static_value(t) for t in (theirs, ours)]
                if known[0] is None or known[1] is None:
                    same_as_values.append((theirs, ours, message))
                elif np.shape(known[0]) != np.shape(known[1]) or np.any(known[0] != known[1]):
                    raise errors.InvalidArgumentError(None, None, message)  # TF: when built
        if isinstance(weights, SparseTensor):
            weights = weights.values
        if weights is not None and not sparse:
            w_shape, v_shape = weights.get_shape(), values.get_shape()
            if axis == 0:
                w_shape = w_shape.num_elements()
                v_shape = v_shape.num_elements()
                mismatch = None not in (w_shape, v_shape) and w_shape != v_shape
            else:
                mismatch = not w_shape.is_compatible_with(v_shape)
            if mismatch:
                raise ValueError(
                    f"Shapes {weights.get_shape()} and {values.get_shape()} are incompatible: "
                    "weights and values must have the same shape"
                )
        if sparse:
            parts = [values.indices, values.values, values.dense_shape]
        else:
            parts = [values]
        out_dtype = (values.values if sparse else values).dtype
        if weights is not None:
            out_dtype = weights.dtype
            parts.append(weights)
        n_parts = len(parts)
        parts += [t for pair in same_as_values for t in pair[:2]]
        inputs = host_inputs(parts)
        use_weights = weights is not None
        # axis=0 counts a SparseTensor's values as a dense vector (TF's DenseCount)
        op_type = "SparseCountSparseOutput" if sparse and axis == -1 else "DenseCountSparseOutput"
        # TF's attributes: -1 when not given, at least -1 (0 is a length like any other)
        minlength = -1 if minlength is None else int(minlength)
        maxlength = -1 if maxlength is None else int(maxlength)
        for attr, given in (("minlength", minlength), ("maxlength", maxlength)):
            if given < -1:
                raise ValueError(
                    f"Attr '{attr}' of '{op_type}' Op passed {given} less than minimum -1."
                )
        node: list[ops.Operation] = []
        one_d = axis == 0 or (not sparse and values.get_shape().ndims == 1)

        def compute(session: Any, *arrays: Any) -> tuple[Any, ...]:
            op = node[0]
            for i, (x, y, message) in enumerate(same_as_values):
                theirs, ours = arrays[n_parts + 2 * i], arrays[n_parts + 2 * i + 1]
                if np.shape(theirs) != np.shape(ours) or np.any(theirs != ours):
                    quoted = message.replace("'", "\\'")  # TF's Assert escapes its strings
                    raise errors.InvalidArgumentError(
                        None,
                        op,
                        f"assertion failed: [{quoted}] [Condition x == y did not hold "
                        f"element-wise:] [x ({x.name}) = ] [{summarize_value(theirs)}] "
                        f"[y ({y.name}) = ] [{summarize_value(ours)}]",
                    )
            arrays = arrays[:n_parts]
            w = np.asarray(arrays[-1]) if use_weights else None
            if sparse:
                idx = np.asarray(arrays[0], np.int64)
                vals = np.asarray(arrays[1]).reshape(-1)
                shape = np.asarray(arrays[2], np.int64)
                is_1d = axis == 0 or shape.size == 1
                rows = np.zeros(vals.shape, np.int64) if is_1d else idx[:, 0]
                batches = 1 if is_1d else int(shape[0])
            else:
                data = np.asarray(arrays[0])
                if axis == 0:
                    data = data.reshape(-1)
                if data.ndim not in (1, 2):
                    raise errors.InvalidArgumentError(
                        None,
                        op,
                        "Input must be a 1 or 2-dimensional tensor. Got: "
                        f"[{','.join(str(d) for d in data.shape)}]",
                    )
                is_1d = data.ndim == 1
                batches = 1 if is_1d else data.shape[0]
                rows = np.repeat(np.arange(batches), data.size // batches if batches else 0)
                vals = data.reshape(-1)
            if np.any(vals < 0):
                raise errors.InvalidArgumentError(None, op, "Input values must all be non-negative")
            if w is not None:
                w = w.reshape(-1)
            keep = vals < maxlength if maxlength >= 0 else vals >= 0
            kept = vals[keep].astype(np.int64)
            largest = int(kept.max()) if kept.size else 0
            size = maxlength if maxlength >= 0 else max(largest + 1, minlength)
            dtype = np.dtype(out_dtype.as_numpy_dtype)
            keys = rows[keep] * (largest + 1) + kept  # (row, value) in sorted order
            unique, where = np.unique(keys, return_inverse=True)
            counts = np.zeros(unique.shape, dtype)
            if binary_output:
                counts[:] = 1
            elif w is not None:
                np.add.at(counts, where, w[keep].astype(dtype))
            else:
                np.add.at(counts, where, np.ones(where.shape, dtype))
            out_rows, out_values = unique // (largest + 1), unique % (largest + 1)
            if is_1d:
                indices = out_values.reshape(-1, 1)
                dense_shape = [size]
            else:
                indices = np.stack([out_rows, out_values], 1)
                dense_shape = [batches, size]
            return (
                indices.astype(np.int64).reshape(-1, 1 if is_1d else 2),
                counts,
                np.asarray(dense_shape, np.int64),
            )

        rank = 1 if one_d else 2
        if sparse and axis == -1:
            shape = values.get_shape()
            rank = 2 if shape.ndims is None or shape.ndims != 1 else 1
        op = ops.get_default_graph().create_op(
            op_type,
            op_type,
            inputs=inputs,
            compute=compute,
            output_specs=[
                ((None, rank), np.dtype(np.int64)),
                ((None,), np.dtype(out_dtype.as_numpy_dtype)),
                ((rank,), np.dtype(np.int64)),
            ],
            host=fed_placement(inputs, [values] if sparse else []),
        )
        node.append(op)
        return SparseTensor(*op.outputs)
