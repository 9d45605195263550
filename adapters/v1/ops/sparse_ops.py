"""TF's sparse ops (``tf.sparse``, ``tf.sparse_placeholder``, ``tf.sparse_tensor_to_dense``...).

A ``SparseTensor`` is three dense tensors (``framework/sparse_tensor.py``); each op
here is one node computing on them in the step's XLA program, with TF's values,
dtypes, gradients (JAX's derivatives of the implementations, or TF's rule where
it differs) and TF's run-time errors (``framework/runtime_checks.py``).

**Shapes in a compiled step.** A sparse value's dense shape decides the shape of
dense results (``to_dense``, ``reduce_sum``, the rows of ``sparse_dense_matmul``):
it must be known when the step is compiled. A constant ``dense_shape`` is; a
fed one (``tf.sparse_placeholder``'s, a ``placeholder_with_default``) is a shape
feed of the graph (``shape_values.known_when_traced``): the session compiles one
program per fed dense shape. The number of values (``nnz``) of a fed sparse value
is the shape of its ``indices`` and ``values`` feeds: XLA compiles **one program
per nnz** (``jax.jit``'s cache of the session's plan, no padding), so every
program computes on exactly the fed entries and values and gradients are TF's.
A training loop whose batches have many distinct nnz compiles as many programs
(about 0.1-1 s each on CPU); pad batches to a few sizes with zero-weight entries
where that matters. A dense shape computed from the step's data (a variable, a
float tensor) raises ``NotImplementedError`` when the graph is built.

Ops whose number of outputs depends on values (``sparse.add`` of two sparse
tensors, ``retain`` with a computed mask, ``from_dense`` of a computed tensor)
raise ``NotImplementedError`` naming what to use instead. Those whose number of
values depends on the indices only (``fill_empty_rows``, ``maximum``/``minimum``,
``slice``, ``split``, ``reduce_sum_sparse``/``reduce_max_sparse``) place the entries
on the host when the step is compiled, from constant or fed indices (a fed value is a
shape feed: one program per fed value of the indices), and compute the values on the
device; indices computed in the step raise ``NotImplementedError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops, runtime_checks, shape_values
from adapters.v1.framework.shape_values import trace_time_value
from adapters.v1.framework.sparse_tensor import SparseTensor, SparseTensorValue
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import array_ops
from jtrain import errors

__all__ = [
    "sparse_placeholder",
    "sparse_to_dense",
    "sparse_tensor_to_dense",
    "sparse_reduce_sum",
    "sparse_reduce_max",
    "sparse_tensor_dense_matmul",
    "sparse_add",
    "sparse_reorder",
    "sparse_reshape",
    "sparse_retain",
    "from_dense",
    "sparse_transpose",
    "sparse_expand_dims",
    "sparse_to_indicator",
    "sparse_concat",
    "sparse_softmax",
    "dense_shape_node",
    "sparse_fill_empty_rows",
    "sparse_reset_shape",
    "sparse_eye",
    "sparse_maximum",
    "sparse_minimum",
    "sparse_slice",
    "sparse_split",
    "sparse_reduce_sum_sparse",
    "sparse_reduce_max_sparse",
    "sparse_merge",
    "sparse_mask",
]


# -- the node with a dense shape known when the step is traced -------------------------
_FED = ("Placeholder", "PlaceholderWithDefault")


def dense_shape_node(
    op_type: str,
    name: str,
    inputs: list[ops.Tensor],
    dense_shape: ops.Tensor,
    fn: Callable[..., tuple[Any, ...]],
    specs: list[tuple[Any, Any]],
    checks: tuple[Callable[..., Any], ...] = (),
    what: str | None = None,
) -> ops.Operation:
    """A node ``fn(ctx, op, shape, *input values) -> outputs`` whose ``shape`` is the
    value of ``dense_shape`` (a tuple of ints) known when the step is traced.

    Args:
      op_type: TF's op type of the node.
      name: the node's name.
      inputs: its tensor inputs.
      dense_shape: an integer tensor: a constant, or computed from fed integers
        and static shapes (it becomes a shape feed: one program per fed value).
      fn: the computation; may call ``runtime_checks.check(ctx, op, ...)``.
      specs: ``(static shape, dtype)`` per output.
      checks: the run-time checks' messages (``runtime_checks.mark``).
      what: the TF function named by the error (default ``op_type``).

    Raises:
      NotImplementedError: ``dense_shape`` depends on the step's data.
    """
    const = dense_shape.op._const_value
    known: tuple[int, ...] | None = None
    if const is not None:
        known = tuple(int(d) for d in np.asarray(const).reshape(-1))
    elif dense_shape.op.type in _FED:
        # Fed directly (tf.sparse_placeholder's, of any length): a shape feed.
        dense_shape.graph._shape_feeds.add(dense_shape)
    elif not shape_values.known_when_traced(dense_shape):
        raise NotImplementedError(
            f"{what or op_type} ({name}): the dense shape {dense_shape.name} must be known "
            "when the step is compiled (a constant, a fed value such as "
            "tf.sparse_placeholder's, or computed from tf.shape); it depends on the step's "
            "data (jtrain compiles static shapes). A SparseTensor parsed in the graph "
            "(tf.parse_example's VarLenFeature) is such a value: parse the records on the "
            "host (jtrain.records) and feed the SparseTensorValue to a tf.sparse_placeholder."
        )
    count = len(inputs)

    def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
        shape = known
        if shape is None:
            shape = tuple(int(d) for d in np.asarray(trace_time_value(ctx, dense_shape)).ravel())
        return tuple(fn(ctx, op, shape, *values[:count]))

    graph = (inputs[0] if inputs else dense_shape).graph
    op = graph.create_op(
        op_type, name, inputs=[*inputs, dense_shape], compute=compute, output_specs=specs
    )
    if checks:
        runtime_checks.mark(op, *checks)
    return op


def _static_shape(sp: SparseTensor) -> list[int | None] | None:
    """The dense shape's known dimensions when the graph is built (None: unknown rank)."""
    const = sp.dense_shape.op._const_value
    if const is not None:
        return [int(d) for d in np.asarray(const).reshape(-1)]
    return sp_shape_dims(sp.dense_shape)


def sp_shape_dims(dense_shape: ops.Tensor) -> list[int | None] | None:
    """What the graph knows of a ``dense_shape`` tensor's value (as TF's shape functions,
    which read a constant's value and nothing of a placeholder's)."""
    from adapters.v1.framework.sparse_tensor import _shape_of_value

    shape = _shape_of_value(dense_shape)
    return None if shape.rank is None else shape.as_list()


def _shape_str(shape: tuple[int, ...]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _index_str(row: Any) -> str:
    return "[" + ",".join(str(int(d)) for d in row) + "]"


def _check_sparse(sp: Any, arg: str) -> SparseTensor:
    if isinstance(sp, SparseTensorValue):
        return SparseTensor.from_value(sp)
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor. Got {arg}={sp!r}")
    return sp


def _linear(indices: Any, shape: tuple[int, ...]) -> Any:
    """Row-major linear positions of int64 ``indices [n, rank]`` in ``shape``."""
    lin = jnp.zeros(indices.shape[:1], jnp.int64)
    for j, d in enumerate(shape):
        lin = lin * jnp.int64(d) + indices[:, j].astype(jnp.int64)
    return lin


def _inexact(dtype: Any) -> bool:
    return bool(jnp.issubdtype(dtype, jnp.inexact))


# -- tf.sparse_placeholder ----------------------------------------------------------------
def sparse_placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> SparseTensor:
    """A ``SparseTensor`` of placeholders, fed a ``SparseTensorValue`` or an
    ``(indices, values, dense_shape)`` tuple (``tf.compat.v1.sparse_placeholder``).

    As TF: ``values`` is a placeholder ``[None]`` of ``dtype`` (``name/values``),
    ``indices`` an int64 placeholder ``[None, rank]`` (``name/indices``), and
    ``dense_shape`` an int64 placeholder ``[rank]`` (``name/shape``); with a ``shape``
    given, ``dense_shape`` is a ``placeholder_with_default`` of it (``-1`` for unknown
    dimensions, ``name/shape_default``) and the static shape is ``shape``.

    Args:
      dtype: the values' dtype.
      shape: the dense shape (``None``: any; a list with ``None`` for unknown
        dimensions; or an int64 tensor).
      name: the name prefix (default: the placeholders' own names).

    Returns:
      A ``SparseTensor``.

    .. note:: The fed ``dense_shape`` decides the shapes of dense results: one
       program is compiled per fed dense shape and per number of values (see the
       module docstring).
    """
    shape_name = f"{name}/shape" if name is not None else None
    default_name = f"{name}/shape_default" if name is not None else None
    if shape is None:
        rank = None
        dense_shape = array_ops.placeholder("int64", shape=[rank], name=shape_name)
        default = TensorShape(None)
    else:
        if isinstance(shape, ops.Tensor):
            rank = shape._shape[0] if shape._shape else None
            const = shape.op._const_value
            default = (
                TensorShape([None if d < 0 else int(d) for d in np.asarray(const).reshape(-1)])
                if const is not None
                else TensorShape([None] * rank if rank is not None else None)
            )
        else:
            if isinstance(shape, (list, tuple)):  # -1: unknown, as None (TF's rule)
                shape = [None if d is not None and int(d) == -1 else d for d in shape]
            dims = list(TensorShape(shape).as_list())
            rank = len(dims)
            default = TensorShape([None if d == -1 else d for d in dims])
            shape = ops.convert_to_tensor(
                np.asarray([-1 if d is None else d for d in dims], np.int64), name=default_name
            )
        dense_shape = array_ops.placeholder_with_default(shape, shape=shape._shape, name=shape_name)
    values = array_ops.placeholder(dtype, shape=[None], name=f"{name}/values" if name else None)
    indices = array_ops.placeholder(
        "int64", shape=[None, rank], name=f"{name}/indices" if name else None
    )
    result = SparseTensor(indices, values, dense_shape)
    result.set_shape(default)
    return result


# -- to dense ---------------------------------------------------------------------------
def sparse_to_dense(
    sparse_indices: Any,
    output_shape: Any,
    sparse_values: Any,
    default_value: Any = 0,
    validate_indices: bool = True,
    name: str | None = None,
) -> ops.Tensor:
    """A dense tensor of ``output_shape`` with ``sparse_values`` at ``sparse_indices``
    and ``default_value`` elsewhere (``tf.compat.v1.sparse_to_dense``, TF op
    ``SparseToDense``).

    .. math:: \\mathrm{out}[i] = \\mathrm{values}[k]\\ \\text{if}\\ i = \\mathrm{indices}[k],
              \\ \\text{else}\\ \\mathrm{default}

    Args:
      sparse_indices: int32/int64 ``[N, rank]``, ``[N]`` (rank 1) or a scalar.
      output_shape: int32/int64 ``[rank]``: a constant, or fed/computed from shapes
        (known when the step is compiled: one program per value).
      sparse_values: ``[N]`` values, or a scalar for all of them.
      default_value: the scalar elsewhere (default 0).
      validate_indices: check that indices are sorted row-major and unique (TF's
        default True). Out-of-range indices are an error either way.
      name: the op name (default ``"SparseToDense"``).

    Returns:
      A tensor of ``output_shape`` and the values' dtype.

    Raises at run time:
      InvalidArgumentError: an index out of bounds, out of order or repeated (TF's
        messages). Without validation a repeated index takes its last value, as TF's
        CPU kernel.

    Gradient (TF's): ``gather_nd(grad, indices)`` for the values (every repeat of an
    index gets the gradient of its position) and ``sum(grad) - sum(that)`` for the
    default value.
    """
    indices = ops.convert_to_tensor(sparse_indices)
    shape_t = ops.convert_to_tensor(output_shape)
    values = ops.convert_to_tensor(sparse_values)
    default = ops.convert_to_tensor(default_value)
    if indices.dtype is None or indices.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"Value passed to parameter 'sparse_indices' has DataType "
            f"{indices.dtype.name if indices.dtype else None} not in list of allowed "
            "values: int32, int64"
        )
    if default.dtype != values.dtype and default.op._const_value is not None:
        # A Python number takes the values' dtype (TF's conversion of default_value).
        default = ops.convert_to_tensor(
            np.asarray(default.op._const_value).astype(values.dtype.as_numpy_dtype)
        )
    if values.dtype != default.dtype:
        raise TypeError(
            f"Input 'default_value' of 'SparseToDense' Op has type {default.dtype.name} that "
            f"does not match type {values.dtype.name} of argument 'sparse_values'."
        )
    static = sp_shape_dims(shape_t)
    specs = [(None if static is None else tuple(static), values.dtype)]
    name = name or "SparseToDense"

    def compute(ctx: Any, op: Any, shape: tuple[int, ...], i: Any, v: Any, d: Any):
        rank = len(shape)
        i = i.astype(jnp.int64)
        i = i.reshape((-1, 1)) if i.ndim < 2 else i
        if i.shape[1] != rank:
            raise errors.InvalidArgumentError(
                None, op, f"sparse_indices should be a vector of length {rank}, got shape "
                f"{list(i.shape)}",
            )  # fmt: skip
        if any(s < 0 for s in shape):
            raise errors.InvalidArgumentError(
                None, op, f"Dimension -1 must be >= 0: output_shape = {_shape_str(shape)}"
            )
        n = i.shape[0]
        v = jnp.broadcast_to(v, (n,)) if v.ndim == 0 else v
        if v.shape != (n,):
            raise errors.InvalidArgumentError(
                None, op, f"sparse_values has incorrect shape {list(v.shape)}, should be [] "
                f"or [{n}]",
            )  # fmt: skip
        bounds = jnp.asarray(shape, jnp.int64)
        oob = jnp.any((i < 0) | (i >= bounds), axis=1)
        if validate_indices:
            prev, cur = i[:-1], i[1:]
            diff = cur != prev
            first = jnp.argmax(diff, axis=1)[:, None]
            less = (
                jnp.any(diff, axis=1)
                & (jnp.take_along_axis(cur, first, 1) < jnp.take_along_axis(prev, first, 1))[:, 0]
            )
            none = jnp.zeros((min(n, 1),), bool)
            ooo = jnp.concatenate([none, less])
            rep = jnp.concatenate([none, ~jnp.any(diff, axis=1)])
            bad = oob | ooo | rep
            runtime_checks.check(ctx, op, ~jnp.any(bad), i, oob, ooo, rep, bounds, which=0)
            keep = None
        else:
            runtime_checks.check(ctx, op, ~jnp.any(oob), bounds, which=1)
            keep = i  # repeats: the last one wins
        return (_scatter_dense(i, shape, v, d, keep),)

    def invalid(i: Any, oob: Any, ooo: Any, rep: Any, bounds: Any) -> errors.OpError:
        k = int(np.flatnonzero(oob | ooo | rep)[0])
        where = f"indices[{k}] = {_index_str(i[k])}"
        if oob[k]:
            msg = f"{where} is out of bounds: need 0 <= index < {_shape_str(bounds)}"
        elif ooo[k]:
            msg = (
                f"{where} is out of order. Many sparse ops require sorted indices.\n"
                "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
            )
        else:
            msg = f"{where} is repeated"
        return errors.InvalidArgumentError(None, op, msg)

    def out_of_bounds(bounds: Any) -> errors.OpError:
        return errors.InvalidArgumentError(
            None, op, f"Indices are not valid (out of bounds).  Shape: {_shape_str(bounds)}"
        )

    op = dense_shape_node(
        "SparseToDense", name, [indices, values, default], shape_t, compute, specs,
        checks=(invalid, out_of_bounds),
    )  # fmt: skip
    return op.outputs[0]


def _scatter_dense(i: Any, shape: tuple[int, ...], v: Any, d: Any, last_wins: Any) -> Any:
    """``full(shape, d)`` with ``v[k]`` at ``i[k]``; TF's gradient for float values."""
    size = int(np.prod(shape, dtype=np.int64))
    lin = _linear(i, shape)
    target = lin
    if last_wins is not None and lin.shape[0] > 1:
        order = jnp.argsort(lin, stable=True)
        ranked = lin[order]
        last = jnp.concatenate([ranked[1:] != ranked[:-1], jnp.ones((1,), bool)])
        keep = jnp.zeros(lin.shape, bool).at[order].set(last)
        target = jnp.where(keep, lin, jnp.int64(size))

    def forward(v: Any, d: Any) -> Any:
        flat = jnp.full((size,), d, v.dtype).at[target].set(v, mode="drop")
        return flat.reshape(shape)

    if not _inexact(v.dtype):
        return forward(v, d)

    @jax.custom_vjp
    def dense(v: Any, d: Any) -> Any:
        return forward(v, d)

    def fwd(v: Any, d: Any) -> Any:
        return forward(v, d), None

    def bwd(_: Any, g: Any) -> Any:
        flat = g.reshape(-1)
        gv = jnp.take(flat, lin, mode="fill", fill_value=0)
        return gv, (jnp.sum(flat) - jnp.sum(gv)).astype(d.dtype)

    dense.defvjp(fwd, bwd)
    return dense(v, d)


def sparse_tensor_to_dense(
    sp_input: SparseTensor,
    default_value: Any = None,
    validate_indices: bool = True,
    name: str | None = None,
) -> ops.Tensor:
    """The dense tensor of ``sp_input`` (``tf.sparse.to_dense``,
    ``tf.sparse_tensor_to_dense``): ``sparse_to_dense`` of its three tensors.

    Args:
      sp_input: a ``SparseTensor``.
      default_value: the value where ``sp_input`` has none (default: zero of its dtype).
      validate_indices: check sorted, unique indices (TF's default True).
      name: the op name (default ``"SparseToDense"``).

    Returns:
      A dense tensor of ``sp_input.dense_shape`` (static shape as TF's: a constant
      dense shape's, else unknown dimensions).

    Raises:
      TypeError: ``sp_input`` is not a ``SparseTensor``.

    Raises at run time:
      InvalidArgumentError: as ``sparse_to_dense``.
    """
    sp = _check_sparse(sp_input, "sp_input")
    if default_value is None:
        default_value = np.zeros((), sp.dtype.as_numpy_dtype)
    return sparse_to_dense(
        sp.indices, sp.dense_shape, sp.values, default_value=default_value,
        validate_indices=validate_indices, name=name,
    )  # fmt: skip


# -- reduce_sum ---------------------------------------------------------------------------
def sparse_reduce_sum(
    sp_input: SparseTensor,
    axis: Any = None,
    keepdims: bool | None = None,
    reduction_axes: Any = None,
    keep_dims: bool | None = None,
) -> ops.Tensor:
    """The sum of a ``SparseTensor``'s values over ``axis`` as a dense tensor
    (``tf.compat.v1.sparse.reduce_sum``, TF op ``SparseReduceSum``).

    Args:
      sp_input: a ``SparseTensor`` (indices in any order).
      axis: the axes to reduce (int or list, negative from the end; None: all).
      keepdims: keep reduced axes with length 1 (default False).
      reduction_axes: deprecated alias of ``axis``.
      keep_dims: deprecated alias of ``keepdims``.

    Returns:
      A dense tensor of the values' dtype; positions without values are 0.

    Raises:
      ValueError: both an argument and its deprecated alias are given.
      InvalidArgumentError (when the step is compiled): an axis outside
        ``[-rank, rank)``.
    """
    return _sparse_reduce("sum", sp_input, axis, keepdims, reduction_axes, keep_dims)


def _sparse_reduce(
    kind: str, sp_input: Any, axis: Any, keepdims: Any, reduction_axes: Any, keep_dims: Any
) -> ops.Tensor:
    """``sparse_reduce_sum`` (``kind="sum"``) or ``sparse_reduce_max`` (``"max"``)."""
    op_type = "SparseReduceSum" if kind == "sum" else "SparseReduceMax"
    sp = _check_sparse(sp_input, "sp_input")
    axis = _one_of(axis, reduction_axes, "axis", "reduction_axes")
    keepdims = bool(_one_of(keepdims, keep_dims, "keepdims", "keep_dims"))
    if isinstance(axis, ops.Tensor):
        const = axis.op._const_value
        if const is None:
            raise NotImplementedError(
                "sparse_reduce_sum: axis must be known when the graph is built (a Python "
                "int or list, or a constant)."
            )
        axis = np.asarray(const).tolist()
    axes = None if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    static = _static_shape(sp)
    out_static = None
    if static is not None:
        try:
            reduced = _reduced(tuple(-1 if d is None else d for d in static), axes, keepdims)
        except ValueError:
            # An axis out of range: TF builds the node and fails when it runs (TF's
            # InvalidArgumentError, raised by ``compute``).
            reduced = None
        if reduced is not None and sp.dense_shape.op._const_value is not None:
            # TF's shape function reads only a constant dense shape
            out_static = tuple(None if d < 0 and d != -2 else d for d in reduced)

    def compute(ctx: Any, op: Any, shape: tuple[int, ...], i: Any, v: Any):
        try:
            out_shape, kept = _reduced(shape, axes, keepdims, op=op, with_kept=True)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, op, str(e)) from None
        kept_shape = tuple(shape[a] for a in kept)
        seg = _linear(i[:, kept], kept_shape) if kept else jnp.zeros(i.shape[:1], jnp.int64)
        size = int(np.prod(kept_shape, dtype=np.int64))
        if kind == "sum":
            out = jnp.zeros((size,), v.dtype).at[seg].add(v, mode="drop")
        else:  # the largest present value; 0 where none (TF's SparseReduceMax)
            out = _no_gradient(_segment_max(v, seg, size), "SparseReduceMax", op)
        return (out.reshape(out_shape),)

    op = dense_shape_node(
        op_type, op_type,
        [sp.indices, sp.values], sp.dense_shape, compute, [(out_static, sp.dtype)],
    )  # fmt: skip
    return op.outputs[0]


def _segment_max(v: Any, seg: Any, size: int) -> Any:
    """Per segment, the largest of its values; 0 for a segment without values."""
    kind = v.dtype
    lowest = jnp.finfo(kind).min if _inexact(kind) else jnp.iinfo(kind).min
    out = jnp.full((size,), lowest, kind).at[seg].max(v, mode="drop")
    count = jnp.zeros((size,), jnp.int32).at[seg].add(1, mode="drop")
    return jnp.where(count > 0, out, jnp.zeros((), kind))


def _no_gradient(value: Any, op_type: str, op: Any) -> Any:
    """``value``, whose derivative raises TF's ``LookupError`` (TF registers no gradient
    for ``op_type``; jtrain's ``tf.gradients`` finds out when the step is traced)."""
    if not _inexact(value.dtype):
        return value

    @jax.custom_vjp
    def same(x: Any) -> Any:
        return x

    def fwd(x: Any) -> Any:
        return x, None

    def bwd(_: Any, g: Any) -> Any:
        raise LookupError(
            f"No gradient defined for operation'{op.name}' (op type: {op_type}). In general "
            "every operation must have an associated `@tf.RegisterGradient` for correct "
            "autodiff, which this op is lacking. If you want to pretend this operation is a "
            "constant in your program, you may insert `tf.stop_gradient`."
        )

    same.defvjp(fwd, bwd)
    return same(value)


def sparse_reduce_max(
    sp_input: SparseTensor,
    axis: Any = None,
    keepdims: bool | None = None,
    reduction_axes: Any = None,
    keep_dims: bool | None = None,
) -> ops.Tensor:
    """The largest value of a ``SparseTensor`` over ``axis`` as a dense tensor
    (``tf.compat.v1.sparse.reduce_max``, TF op ``SparseReduceMax``).

    Only the values present count (the implicit zeros do not); a position of the
    result without any value is 0, as TF's.

    Args:
      sp_input: a ``SparseTensor`` (indices in any order).
      axis: the axes to reduce (int or list, negative from the end; None: all).
      keepdims: keep reduced axes with length 1 (default False).
      reduction_axes: deprecated alias of ``axis``.
      keep_dims: deprecated alias of ``keepdims``.

    Returns:
      A dense tensor of the values' dtype.

    Raises:
      ValueError: both an argument and its deprecated alias are given.

    .. note:: TF defines no gradient for it: TF's ``tf.gradients`` raises
       ``LookupError`` when the graph is built; jtrain's raises it when a step
       computing the gradient is traced (``Session.run``).
    """
    return _sparse_reduce("max", sp_input, axis, keepdims, reduction_axes, keep_dims)


def _reduced(shape: tuple[int, ...], axes: list[int] | None, keepdims: bool, op: Any = None,
             with_kept: bool = False) -> Any:  # fmt: skip
    rank = len(shape)
    if axes is None:
        red = set(range(rank))
    else:
        red = set()
        for a in axes:
            if not -rank <= a < rank:
                raise ValueError(
                    f"Invalid reduction dimension {a}, for input with {rank} dimensions."
                )
            red.add(a % rank)
    kept = [d for d in range(rank) if d not in red]
    out = (
        [1 if d in red else shape[d] for d in range(rank)] if keepdims else [shape[d] for d in kept]
    )
    return (tuple(out), kept) if with_kept else out


def _one_of(new: Any, old: Any, new_name: str, old_name: str) -> Any:
    if new is not None and old is not None:
        # TF's deprecated_argument_lookup names the old argument first
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return new if new is not None else old


# -- sparse_dense_matmul ------------------------------------------------------------------
def sparse_tensor_dense_matmul(
    sp_a: SparseTensor,
    b: Any,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    name: str | None = None,
) -> ops.Tensor:
    """``A @ B`` for a rank-2 ``SparseTensor`` A and a dense matrix B
    (``tf.sparse.sparse_dense_matmul``, ``tf.sparse.matmul``,
    ``tf.sparse_tensor_dense_matmul``; TF op ``SparseTensorDenseMatMul``).

    .. math:: \\mathrm{out}[r, :] = \\sum_{k: \\mathrm{row}_k = r} \\mathrm{values}_k\\,
              B[\\mathrm{col}_k, :]

    with A replaced by its conjugate transpose for ``adjoint_a`` and B by its own for
    ``adjoint_b``. Indices may be in any order; repeated ones add up.

    Args:
      sp_a: a ``SparseTensor`` of rank 2.
      b: a dense matrix of A's dtype.
      adjoint_a: use A's conjugate transpose (default False).
      adjoint_b: use B's conjugate transpose (default False).
      name: the name scope (default ``"SparseTensorDenseMatMul"``).

    Returns:
      A dense ``[rows of A (or cols), cols of B (or rows)]`` tensor.

    Raises:
      TypeError: ``sp_a`` is not a ``SparseTensor``; ``b`` of another dtype.
      InvalidArgumentError (when the step is compiled): the inner dimensions differ
        (TF's message).

    Raises at run time:
      InvalidArgumentError: an index out of A's dense shape (TF's message).

    Gradients are TF's: ``A^T @ grad`` for B, ``grad[row] . B[col]`` per value.
    """
    sp = _check_sparse(sp_a, "sp_a")
    with ops.name_scope(name or "SparseTensorDenseMatMul"):
        b = ops.convert_to_tensor(b)
        if b.dtype != sp.dtype:
            raise TypeError(
                f"Input 'b' of 'SparseTensorDenseMatMul' Op has type {b.dtype.name} that does "
                f"not match type {sp.dtype.name} of argument 'a_values'."
            )
        static = _static_shape(sp)
        rows = None
        if static is not None and len(static) == 2:
            rows = static[1] if adjoint_a else static[0]
        cols = None
        if b._shape is not None and len(b._shape) == 2:
            cols = b._shape[0] if adjoint_b else b._shape[1]
        lhs, rhs = (1, 0) if adjoint_a else (0, 1)

        def compute(ctx: Any, op: Any, shape: tuple[int, ...], i: Any, v: Any, m: Any):
            if len(shape) != 2 or m.ndim != 2:
                raise errors.InvalidArgumentError(
                    None, op, "Tensor 'a_shape' is not a vector of length 2"
                    if len(shape) != 2 else "Tensor 'b' is not a matrix",
                )  # fmt: skip
            out_rows, inner = shape[lhs], shape[rhs]
            mm = jnp.conj(m.T) if adjoint_b else m
            if mm.shape[0] != inner:
                raise errors.InvalidArgumentError(
                    None, op,
                    "Cannot multiply A and B because inner dimension does not match: "
                    f"{inner} vs. {mm.shape[0]}.  Did you forget a transpose?  Dimensions "
                    f"of A: [{shape[0]}, {shape[1]}).  Dimensions of B: [{m.shape[0]},"
                    f"{m.shape[1]}]",
                )  # fmt: skip
            r, k = i[:, lhs], i[:, rhs]
            k_bad = (k < 0) | (k >= inner)
            r_bad = (r < 0) | (r >= out_rows)
            dims = jnp.asarray([out_rows, inner], jnp.int64)
            runtime_checks.check(ctx, op, ~jnp.any(k_bad | r_bad), i, k_bad, r_bad, dims)
            vv = jnp.conj(v) if adjoint_a else v
            terms = vv[:, None] * jnp.take(mm, k, axis=0, mode="fill", fill_value=0)
            out = jnp.zeros((out_rows, mm.shape[1]), terms.dtype)
            return (out.at[r].add(terms, mode="drop"),)

        def out_of_bounds(i: Any, k_bad: Any, r_bad: Any, dims: Any) -> errors.OpError:
            n = int(np.flatnonzero(k_bad | r_bad)[0])
            out_rows, inner = int(dims[0]), int(dims[1])
            if k_bad[n]:
                msg = f"k ({int(i[n, rhs])}) from index[{n},{rhs}] out of bounds (>={inner})"
            else:
                msg = f"m ({int(i[n, lhs])}) from index[{n},{lhs}] out of bounds (>={out_rows})"
            return errors.InvalidArgumentError(None, op, msg)

        op = dense_shape_node(
            "SparseTensorDenseMatMul", "SparseTensorDenseMatMul", [sp.indices, sp.values, b],
            sp.dense_shape, compute, [((rows, cols), sp.dtype)], checks=(out_of_bounds,),
        )  # fmt: skip
        return op.outputs[0]


# -- add ------------------------------------------------------------------------------
def sparse_add(a: Any, b: Any, threshold: Any = None, thresh: Any = None) -> ops.Tensor:
    """The sum of a ``SparseTensor`` and a dense tensor, dense
    (``tf.compat.v1.sparse.add``; TF op ``SparseTensorDenseAdd``).

    Args:
      a: a ``SparseTensor``, or a dense tensor of ``b``'s dense shape.
      b: the other operand (one of the two is sparse, in either order).
      threshold: only for two sparse operands (ignored here, as TF).
      thresh: TF1's alias of ``threshold``.

    Returns:
      The dense sum: ``b`` with each value added at its index (repeats add up).

    Raises:
      TypeError: neither operand is sparse (TF's message).
      NotImplementedError: both are sparse (TF's result has a number of values known
        only from the data; jtrain compiles static shapes): add one's dense form.
      InvalidArgumentError (when the step is compiled): the shapes differ.
    """
    del threshold, thresh
    sparse = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if all(isinstance(x, sparse) for x in (a, b)):
        raise NotImplementedError(
            "tf.sparse.add of two SparseTensors: the result's number of values depends on "
            "the data, and jtrain compiles static shapes; add the dense form instead "
            "(tf.sparse.add(a, tf.sparse.to_dense(b)))."
        )
    if isinstance(b, sparse):
        a, b = b, a
    sp = _check_sparse(a, "a")
    b = ops.convert_to_tensor(b, dtype=sp.dtype)

    def compute(ctx: Any, op: Any, shape: tuple[int, ...], i: Any, v: Any, d: Any):
        if tuple(d.shape) != shape:
            raise errors.InvalidArgumentError(
                None, op, f"Dimension mismatch: sparse shape {_shape_str(shape)} vs. dense "
                f"shape {_shape_str(d.shape)}",
            )  # fmt: skip
        bounds = jnp.asarray(shape, jnp.int64)
        bad = jnp.any((i < 0) | (i >= bounds), axis=1)
        runtime_checks.check(ctx, op, ~jnp.any(bad), i, bad)
        lin = _linear(i, shape)
        size = int(np.prod(shape, dtype=np.int64))
        lin = jnp.where(bad, jnp.int64(size), lin)
        return (d.reshape(-1).at[lin].add(v, mode="drop").reshape(shape),)

    def out_of_bounds(i: Any, bad: Any) -> errors.OpError:
        k = int(np.flatnonzero(bad)[0])
        return errors.InvalidArgumentError(
            None, op, f"Index {k} of a_indices ({_index_str(i[k])}) is out of bounds"
        )

    op = dense_shape_node(
        "SparseTensorDenseAdd", "SparseTensorDenseAdd",
        [sp.indices, sp.values, b], sp.dense_shape, compute, [(b._shape, b.dtype)],
        checks=(out_of_bounds,),
    )  # fmt: skip
    return op.outputs[0]


# -- reorder, reshape, retain, from_dense -------------------------------------------------
def sparse_reorder(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """``sp_input`` with its entries sorted row-major (``tf.sparse.reorder``).

    Args:
      sp_input: a ``SparseTensor``.
      name: the op name (default ``"SparseReorder"``).

    Returns:
      A ``SparseTensor`` of the same dense shape and values (gradient: back to their
      original places, as TF's).
    """
    sp = _check_sparse(sp_input, "sp_input")

    def reorder(i: Any, v: Any) -> tuple[Any, Any]:
        if i.shape[0] == 0:
            return i, v
        order = jnp.lexsort(tuple(i[:, j] for j in reversed(range(i.shape[1]))))
        return i[order], v[order]

    def compute(ctx: Any, i: Any, v: Any) -> tuple[Any, Any]:
        return reorder(i, v)

    graph = sp.values.graph
    op = graph.create_op(
        "SparseReorder", name or "SparseReorder", inputs=[sp.indices, sp.values],
        compute=compute,
        output_specs=[(sp.indices._shape, sp.indices.dtype), (sp.values._shape, sp.dtype)],
    )  # fmt: skip
    out = SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape)
    out._dense_shape_default = sp._dense_shape_default
    return out


def sparse_reshape(sp_input: SparseTensor, shape: Any, name: str | None = None) -> SparseTensor:
    """``sp_input`` with a new dense shape, its entries in the same row-major order
    (``tf.sparse.reshape``; one dimension of ``shape`` may be -1).

    Args:
      sp_input: a ``SparseTensor``.
      shape: int64 ``[new rank]`` (a list or tensor known when the step is compiled).
      name: the name scope (default ``"SparseReshape"``).

    Returns:
      A ``SparseTensor`` with the same values.

    Raises at run time (when the step is compiled):
      InvalidArgumentError: the sizes differ, or more than one -1 (TF's messages).
    """
    sp = _check_sparse(sp_input, "sp_input")
    with ops.name_scope(name or "SparseReshape"):
        new = ops.convert_to_tensor(shape, dtype="int64")
        new_static = sp_shape_dims(new)
        rank = None if new._shape is None else new._shape[0]

        def compute(ctx: Any, op: Any, old: tuple[int, ...], i: Any, n: Any):
            target = [int(d) for d in np.asarray(trace_time_value(ctx, new)).ravel()]
            size = int(np.prod(old, dtype=np.int64))
            unknown = [k for k, d in enumerate(target) if d == -1]
            if len(unknown) > 1:
                raise errors.InvalidArgumentError(
                    None, op, f"only one output dimension may be -1, not both {unknown[0]} "
                    f"and {unknown[1]}",
                )  # fmt: skip
            known = int(np.prod([d for d in target if d != -1], dtype=np.int64))
            if unknown:
                if known == 0 or size % known:
                    raise errors.InvalidArgumentError(
                        None, op, f"Input to reshape is a SparseTensor with {size} dense "
                        f"values, but the requested shape requires a multiple of {known}. "
                        f"inputShape={_shape_str(old)} outputShape={_shape_str(tuple(target))}",
                    )  # fmt: skip
                target[unknown[0]] = size // known
            elif known != size:
                raise errors.InvalidArgumentError(
                    None, op, f"Input to reshape is a tensor with {size} dense values, but the "
                    f"requested shape has {known}. inputShape={_shape_str(old)} "
                    f"outputShape={_shape_str(tuple(target))}",
                )  # fmt: skip
            lin = _linear(i, old)
            cols = []
            for d in reversed(target):
                cols.append(lin % jnp.int64(d))
                lin = lin // jnp.int64(d)
            out = jnp.stack(cols[::-1], axis=1) if cols else jnp.zeros((i.shape[0], 0), jnp.int64)
            return out, jnp.asarray(target, jnp.int64)

        if not shape_values.known_when_traced(new) and new.op._const_value is None:
            raise NotImplementedError(
                "tf.sparse.reshape: shape must be known when the step is compiled."
            )
        op = dense_shape_node(
            "SparseReshape", "SparseReshape", [sp.indices, new], sp.dense_shape, compute,
            [((sp.indices._shape[0] if sp.indices._shape else None, rank), np.dtype(np.int64)),
             ((rank,), np.dtype(np.int64))],
        )  # fmt: skip
        values = array_ops.identity(sp.values)
        return SparseTensor(op.outputs[0], values, _reshaped_shape(sp, new, new_static, op))


def _reshaped_shape(sp: SparseTensor, new: ops.Tensor, dims: Any, op: Any) -> Any:
    """TF's dense shape of a reshape: a constant (checked when the graph is built) when
    the input's static shape is fully known and the new one's rank, else the op's output."""
    old = sp.get_shape()
    if dims is None or not old.is_fully_defined():
        return op.outputs[1]
    const = new.op._const_value
    if const is not None and int(np.sum(np.asarray(const) == -1)) > 1:
        raise ValueError(f"At most one dimension can be inferred (-1). Found: {np.asarray(const)}")
    size = int(np.prod(old.as_list(), dtype=np.int64))
    dims, original = list(dims), list(dims)
    unknown = sum(d is None for d in dims)
    if unknown == 1 and 0 not in dims:
        k = original.index(None)
        dims[k] = int(size // np.prod(original[:k] + original[k + 1 :]))
    if unknown == 0 or (unknown == 1 and 0 not in dims):
        reshaped = int(np.prod(dims))
        if reshaped != size:
            raise ValueError(
                f"Cannot reshape a tensor with {size} elements to shape {original} "
                f"({reshaped} elements)."
            )
        from adapters.v1.ops.constant_op import constant

        return constant(np.asarray(dims, np.int64))
    return op.outputs[1]


def sparse_retain(sp_input: SparseTensor, to_retain: Any) -> SparseTensor:
    """The entries of ``sp_input`` where ``to_retain`` is True (``tf.sparse.retain``).

    Args:
      sp_input: a ``SparseTensor`` of ``N`` values.
      to_retain: a bool vector ``[N]``, constant (the number of entries kept is the
        shape of the result, fixed when the graph is built).

    Returns:
      A ``SparseTensor`` of the same dense shape.

    Raises:
      ValueError: ``to_retain`` is not a vector of length ``N`` (TF's message).
      NotImplementedError: ``to_retain`` is computed in the graph.
    """
    sp = _check_sparse(sp_input, "sp_input")
    mask = ops.convert_to_tensor(to_retain)
    const = mask.op._const_value
    if mask._shape is not None and len(mask._shape) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(mask._shape)}")
    n = sp.values._shape[0] if sp.values._shape else None
    if mask._shape is not None and n is not None and mask._shape[0] != n:
        raise ValueError(f"Shapes ({n},) and ({mask._shape[0]},) are incompatible")
    if const is None:
        raise NotImplementedError(
            "tf.sparse.retain with a computed to_retain: the number of entries kept depends "
            "on the data and jtrain compiles static shapes; keep every entry and zero the "
            "others' values instead (tf.where(to_retain, sp.values, tf.zeros_like(...)))."
        )
    where = np.flatnonzero(np.asarray(const)).astype(np.int64)
    from adapters.v1.framework.op_def import FUNCTIONS

    gather = FUNCTIONS["gather"]
    # TF's result reads the dense shape's value only (a placeholder's: unknown).
    return SparseTensor(gather(sp.indices, where), gather(sp.values, where), sp.dense_shape)


def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """The ``SparseTensor`` of the non-zero entries of a constant tensor
    (``tf.sparse.from_dense``), row-major.

    Args:
      tensor: a constant dense tensor.
      name: the name scope (default ``"dense_to_sparse"``).

    Raises:
      NotImplementedError: ``tensor`` is computed in the graph (the number of
        non-zero entries depends on the data; jtrain compiles static shapes).
    """
    with ops.name_scope(name or "dense_to_sparse"):
        t = ops.convert_to_tensor(tensor)
        const = t.op._const_value
        if const is None:
            raise NotImplementedError(
                "tf.sparse.from_dense of a computed tensor: its number of non-zero entries "
                "depends on the data and jtrain compiles static shapes; use the dense tensor."
            )
        value = np.asarray(const)
        nz = np.argwhere(value != np.zeros((), value.dtype)).astype(np.int64)
        from adapters.v1.ops.constant_op import constant

        return SparseTensor(
            constant(nz), constant(value[tuple(nz.T)]), constant(np.asarray(value.shape, np.int64))
        )


# -- transpose, expand_dims, to_indicator ------------------------------------------------
def sparse_transpose(sp_input: SparseTensor, perm: Any = None, name: str | None = None):
    """``sp_input`` with its dimensions permuted, entries sorted row-major again
    (``tf.sparse.transpose``).

    Args:
      sp_input: a ``SparseTensor`` of known rank.
      perm: the permutation (Python ints or a constant; default: reversed dimensions).
      name: the name scope (default ``"SparseTranspose"``).

    Returns:
      A ``SparseTensor``: ``indices[:, perm]`` and ``dense_shape[perm]``, reordered.

    Raises:
      NotImplementedError: the rank is unknown or ``perm`` is computed in the graph.
    """
    from adapters.v1.ops.script_ops import lift

    sp = _check_sparse(sp_input, "sp_input")
    with ops.name_scope(name or "SparseTranspose"):
        rank = sp.get_shape().rank
        if perm is None:
            if rank is None:
                raise NotImplementedError("tf.sparse.transpose needs sp_input of known rank")
            perm = list(range(rank - 1, -1, -1))
        if isinstance(perm, ops.Tensor):
            const = perm.op._const_value
            if const is None:
                raise NotImplementedError(
                    "tf.sparse.transpose: perm must be known when the graph is built"
                )
            perm = np.asarray(const).tolist()
        order = np.asarray(perm, np.int64)
        indices = lift(lambda i: i[:, order], [sp.indices], name="transposed_indices")
        shape = lift(lambda s: s[order], [sp.dense_shape], name="transposed_shape")
        out = sparse_reorder(SparseTensor(indices, sp.values, shape))
        static = sp.get_shape()
        if static.is_fully_defined():
            # TF's static shape: the permuted one when fully known (else unknown dims).
            dims = static.as_list()
            out._static = TensorShape([dims[k] for k in order])
        return out


def sparse_expand_dims(sp_input: SparseTensor, axis: Any = None, name: str | None = None):
    """``sp_input`` with a dimension of length 1 inserted at ``axis``
    (``tf.sparse.expand_dims``).

    Args:
      sp_input: a ``SparseTensor``.
      axis: where (an int in ``[-rank - 1, rank]``; default -1: last).
      name: the name scope (default ``"expand_dims"``).

    Returns:
      A ``SparseTensor`` of rank ``rank + 1``, the same values.

    Raises:
      TypeError: ``axis`` is not an integer (TF's message).
    """
    from adapters.v1.ops.script_ops import lift

    sp = _check_sparse(sp_input, "sp_input")
    axis = -1 if axis is None else axis
    if isinstance(axis, ops.Tensor) and axis.op._const_value is not None:
        axis = int(axis.op._const_value)
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(
            "axis must be an integer value in range [-rank(sp_input) - 1, rank(sp_input)]"
        )
    axis = int(axis)
    with ops.name_scope(name or "expand_dims"):

        def where(rank: int) -> int:
            return axis if axis >= 0 else axis + rank + 1

        def indices_of(i: Any) -> Any:
            k = where(i.shape[1])
            zeros = jnp.zeros((i.shape[0], 1), i.dtype)
            return jnp.concatenate([i[:, :k], zeros, i[:, k:]], axis=1)

        def shape_of(s: Any) -> Any:
            k = where(s.shape[0])
            return jnp.concatenate([s[:k], jnp.ones((1,), s.dtype), s[k:]])

        indices = lift(indices_of, [sp.indices], name="indices")
        shape = lift(shape_of, [sp.dense_shape], name="shape")
        out = SparseTensor(indices, array_ops.identity(sp.values), shape)
        rank = shape._shape[0] if shape._shape is not None else None
        if rank is not None:
            # TF's shape inference knows only the inserted 1 (the axis is computed).
            out._static = TensorShape([1 if k == where(rank - 1) else None for k in range(rank)])
        return out


def sparse_to_indicator(sp_input: SparseTensor, vocab_size: Any, name: str | None = None):
    """A dense bool tensor, True at ``[..., id]`` for each id of each row
    (``tf.sparse.to_indicator``): ``[D0, ..., Dn-1, vocab_size]`` for ids
    ``[D0, ..., Dn-1, K]``.

    Args:
      sp_input: a ``SparseTensor`` of int32/int64 ids.
      vocab_size: the last dimension of the result (an int or a constant).
      name: the op name (default ``"SparseToIndicator"``).

    Returns:
      A bool tensor.

    Raises at run time:
      InvalidArgumentError: an id outside ``[0, vocab_size)`` (TF's message).
    """
    sp = _check_sparse(sp_input, "sp_input")
    if isinstance(vocab_size, ops.Tensor):
        const = vocab_size.op._const_value
        if const is None:
            raise NotImplementedError(
                "tf.sparse.to_indicator: vocab_size must be known when the graph is built"
            )
        vocab_size = int(const)
    vocab = int(vocab_size)
    static = _static_shape(sp)
    if sp.dense_shape.op._const_value is None:
        static = None if static is None else [None] * len(static)
    out_static = None if static is None else (*static[:-1], vocab)

    def compute(ctx: Any, op: Any, shape: tuple[int, ...], i: Any, v: Any):
        out_shape = (*shape[:-1], vocab)
        full = jnp.concatenate([i[:, :-1], v.astype(jnp.int64)[:, None]], axis=1)
        bounds = jnp.asarray(out_shape, jnp.int64)
        bad = jnp.any((full < 0) | (full >= bounds), axis=1)
        runtime_checks.check(ctx, op, ~jnp.any(bad), bounds)
        size = int(np.prod(out_shape, dtype=np.int64))
        lin = jnp.where(bad, jnp.int64(size), _linear(full, out_shape))
        flat = jnp.zeros((size,), bool).at[lin].set(True, mode="drop")
        return (flat.reshape(out_shape),)

    def out_of_bounds(bounds: Any) -> errors.OpError:
        return errors.InvalidArgumentError(
            None, op, f"Indices are not valid (out of bounds).  Shape: {_shape_str(bounds)}"
        )

    with ops.name_scope(name or "SparseToIndicator"):
        op = dense_shape_node(
            "SparseToDense", "SparseToDense", [sp.indices, sp.values], sp.dense_shape, compute,
            [(out_static, np.dtype(bool))], checks=(out_of_bounds,),
        )  # fmt: skip
    return op.outputs[0]


# -- concat -----------------------------------------------------------------------------
def sparse_concat(
    axis: int,
    sp_inputs: list[SparseTensor],
    name: str | None = None,
    expand_nonconcat_dim: bool = False,
    concat_dim: int | None = None,
    expand_nonconcat_dims: bool | None = None,
) -> SparseTensor:
    """``SparseTensor``s joined along ``axis``, entries in row-major order
    (``tf.compat.v1.sparse.concat``, TF op ``SparseConcat``).

    Args:
      axis: the dimension to join along (negative from the end).
      sp_inputs: ``SparseTensor``s of one rank and dtype.
      name: the op name (default ``"SparseConcat"``).
      expand_nonconcat_dim: the other dimensions take the largest input's size
        (default False: they must be equal).
      concat_dim: deprecated alias of ``axis``.
      expand_nonconcat_dims: alias of ``expand_nonconcat_dim``.

    Returns:
      A ``SparseTensor`` with every input's values (their number is the sum).

    Raises:
      ValueError: both ``axis`` and ``concat_dim``; inputs of unknown rank.
      TypeError: an input is not a ``SparseTensor``.

    Raises at run time:
      InvalidArgumentError: ranks or other dimensions differ (TF's message).

    .. note:: TF gives ``SparseConcat`` no gradient: ``tf.gradients`` of the result's
       values with respect to the inputs' values is ``None``, as in TF.
    """
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    axis = _one_of(axis, concat_dim, "axis", "concat_dim")
    inputs = [_check_sparse(sp, "sp_inputs") for sp in sp_inputs]
    if len(inputs) == 1:
        return inputs[0]
    statics = [sp.get_shape() for sp in inputs]
    if any(s.rank is None for s in statics):
        raise ValueError("tf.sparse.concat: jtrain needs inputs of known rank")
    rank = statics[0].rank
    ax = int(axis) % rank
    n = len(inputs)
    counts = [sp.values._shape[0] if sp.values._shape else None for sp in inputs]
    nnz = None if None in counts else sum(counts)
    expand = bool(expand_nonconcat_dim)

    def compute(ctx: Any, *values: Any) -> tuple[Any, Any, Any]:
        idx, vals, shapes = values[:n], values[n : 2 * n], values[2 * n :]
        sizes = jnp.stack([s.astype(jnp.int64) for s in shapes])
        if expand:
            top = jnp.max(sizes, axis=0)
            out_shape = top.at[ax].set(jnp.sum(sizes[:, ax]))
            ok = jnp.asarray(True)
        else:
            others = jnp.asarray([d != ax for d in range(rank)])
            same = jnp.all((sizes == sizes[0]) | ~others, axis=1)
            ok = jnp.all(same)
            out_shape = sizes[0].at[ax].set(jnp.sum(sizes[:, ax]))
        runtime_checks.check(ctx, op, ok, sizes)
        offsets = jnp.cumsum(sizes[:, ax]) - sizes[:, ax]
        moved = [i.at[:, ax].add(offsets[k]) for k, i in enumerate(idx)]
        all_idx = jnp.concatenate(moved, axis=0)
        all_vals = jnp.concatenate(vals, axis=0)
        if all_idx.shape[0]:
            order = jnp.lexsort(tuple(all_idx[:, j] for j in reversed(range(rank))))
            all_idx, all_vals = all_idx[order], all_vals[order]
        return all_idx, all_vals, out_shape

    def mismatch(sizes: Any) -> errors.OpError:
        for i in range(1, len(sizes)):
            for j in range(rank):
                if j != ax and sizes[i][j] != sizes[0][j]:
                    return errors.InvalidArgumentError(
                        None, op, f"Input shapes must match: expected {int(sizes[0][j])} for "
                        f"dimension {j} but got {int(sizes[i][j])} at position {i}",
                    )  # fmt: skip
        return errors.InvalidArgumentError(None, op, "Input shapes must match")

    graph = inputs[0].values.graph
    op = graph.create_op(
        "SparseConcat", name or "SparseConcat",
        inputs=[*(sp.indices for sp in inputs), *(sp.values for sp in inputs),
                *(sp.dense_shape for sp in inputs)],
        compute=compute,
        output_specs=[((nnz, rank), np.dtype(np.int64)), ((nnz,), inputs[0].dtype),
                      ((rank,), np.dtype(np.int64))],
    )  # fmt: skip
    runtime_checks.mark(op, mismatch)
    op._not_differentiable = True  # TF: ops.NotDifferentiable("SparseConcat")
    out = SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])
    dims = [s.as_list() for s in statics]
    if expand:
        known = []
        for k in range(rank):
            sizes = [d[k] for d in dims]
            known.append(None if None in sizes else max(int(x) for x in sizes if x is not None))
    else:
        known = list(dims[0])
    along = [d[ax] for d in dims]
    known[ax] = None if None in along else sum(along)
    if all(s.is_fully_defined() for s in statics):
        from adapters.v1.ops.constant_op import constant

        return SparseTensor(op.outputs[0], op.outputs[1], constant(np.asarray(known, np.int64)))
    out._static = TensorShape(known)
    return out


# -- softmax ----------------------------------------------------------------------------
def sparse_softmax(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """Softmax over the values of each innermost row of a ``SparseTensor``
    (``tf.sparse.softmax``, TF op ``SparseSoftmax``).

    .. math:: \\mathrm{out}_k = \\frac{\\exp(v_k - m_r)}{\\sum_{j \\in r} \\exp(v_j - m_r)},
              \\quad m_r = \\max_{j \\in r} v_j

    over the values ``j`` of the row ``r`` of ``k`` (its indices but the last); the
    implicit zeros take no part.

    Args:
      sp_input: a ``SparseTensor`` of rank >= 2, float values, indices sorted.
      name: the op name (default ``"SparseSoftmax"``).

    Returns:
      A ``SparseTensor`` with ``sp_input``'s indices and dense shape.

    Gradient: TF's rule, ``(grad - sum_row(out * grad)) * out``, computed as TF orders it.
    """
    sp = _check_sparse(sp_input, "sp_input")

    def compute(ctx: Any, op: Any, shape: tuple[int, ...], i: Any, v: Any):
        if len(shape) < 2:
            raise errors.InvalidArgumentError(
                None, op, f"Input should have rank >= 2, but received shape: {_shape_str(shape)}"
            )
        rows = tuple(shape[:-1])
        size = int(np.prod(rows, dtype=np.int64))
        seg = _linear(i[:, :-1], rows)

        def forward(v: Any) -> Any:
            top = jnp.full((size,), -jnp.inf, v.dtype).at[seg].max(v, mode="drop")
            e = jnp.exp(v - jnp.take(top, seg, mode="fill", fill_value=0))
            total = jnp.zeros((size,), v.dtype).at[seg].add(e, mode="drop")
            return e / jnp.take(total, seg, mode="fill", fill_value=1)

        @jax.custom_vjp
        def softmax(v: Any) -> Any:
            return forward(v)

        def fwd(v: Any) -> Any:
            out = forward(v)
            return out, out

        def bwd(sm: Any, g: Any) -> Any:
            # TF's _SparseSoftmaxGrad: (g - sum over the row of sm * g) * sm.
            total = jnp.zeros((size,), g.dtype).at[seg].add(sm * g, mode="drop")
            return ((g + jnp.take(-total, seg, mode="fill", fill_value=0)) * sm,)

        softmax.defvjp(fwd, bwd)
        return (softmax(v),)

    op = dense_shape_node(
        "SparseSoftmax", name or "SparseSoftmax", [sp.indices, sp.values], sp.dense_shape,
        compute, [(sp.values._shape, sp.dtype)],
    )  # fmt: skip
    # TF's result reads the dense shape's value only (a placeholder's: unknown).
    return SparseTensor(sp.indices, op.outputs[0], sp.dense_shape)


# -- ops whose number of values depends on indices (fill_empty_rows, maximum, slice, split) --
def _traced_node(
    op_type: str,
    name: str,
    inputs: list[ops.Tensor],
    hosts: list[ops.Tensor],
    fn: Callable[..., tuple[Any, ...]],
    specs: list[tuple[Any, Any]],
    what: str,
    checks: tuple[Callable[..., Any], ...] = (),
) -> ops.Operation:
    """A node ``fn(ctx, op, host values, *input values) -> outputs`` whose ``hosts``
    (indices, dense shapes, starts...) are known as NumPy arrays when the step is traced.

    The number of values such an op returns depends on the indices: jtrain computes
    which entries go where on the host when the step is compiled, and the values on
    the device (their gradients flow through that gather). A ``hosts`` tensor must be a
    constant, a fed placeholder (a shape feed: one program per fed value) or computed
    from static shapes.

    Raises:
      NotImplementedError: a ``hosts`` tensor depends on the step's data.
    """
    for t in hosts:
        if t.op._const_value is not None:
            continue
        if t.op.type in _FED:
            t.graph._shape_feeds.add(t)
        elif not shape_values.known_when_traced(t):
            raise NotImplementedError(
                f"{what}: {t.name} must be known when the step is compiled (a constant, a fed "
                "value such as tf.sparse_placeholder's, or computed from static shapes); it "
                "depends on the step's data, and the number of values of the result depends "
                "on it (jtrain compiles static shapes). Feed the SparseTensor's parts, or "
                "compute with the dense form (tf.sparse.to_dense)."
            )

    def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
        known = []
        for t in hosts:
            const = t.op._const_value
            known.append(np.asarray(const if const is not None else trace_time_value(ctx, t)))
        return tuple(fn(ctx, op, known, *values[: len(inputs)]))

    graph = (inputs or hosts)[0].graph
    op = graph.create_op(
        op_type, name, inputs=[*inputs, *hosts], compute=compute, output_specs=specs
    )
    if checks:
        runtime_checks.mark(op, *checks)
    return op


def _rank_of(sp: SparseTensor) -> int | None:
    """The rank the graph knows (indices' second or dense shape's only dimension)."""
    for shape, k in ((sp.indices._shape, 1), (sp.dense_shape._shape, 0)):
        if shape is not None and len(shape) > k and shape[k] is not None:
            return int(shape[k])
    return None


def _take(v: Any, where: np.ndarray) -> Any:
    """``v[where]`` on the device, ``where`` a host array of positions."""
    return jnp.take(v, jnp.asarray(where, jnp.int32), axis=0)


def _int64(a: Any) -> Any:
    """A host array as an exact int64 device array."""
    return jnp.asarray(np.asarray(a, np.int64))


# -- fill_empty_rows ----------------------------------------------------------------------
def sparse_fill_empty_rows(
    sp_input: SparseTensor, default_value: Any, name: str | None = None
) -> tuple[SparseTensor, ops.Tensor]:
    """``sp_input`` with an entry ``[r, 0, ..., 0] = default_value`` added to each row
    ``r`` without values (``tf.sparse.fill_empty_rows``, TF op ``SparseFillEmptyRows``).

    The entries are grouped by row, rows in order, each row's entries in their input
    order; an empty row's default entry takes its place.

    Args:
      sp_input: a ``SparseTensor`` of rank >= 1.
      default_value: a scalar of the values' dtype.
      name: the name scope (default ``"SparseFillEmptyRows"``).

    Returns:
      ``(sp, empty_row_indicator)``: the filled ``SparseTensor`` (``sp_input``'s dense
      shape) and a bool ``[dense_shape[0]]`` vector, True for the rows filled.

    Raises:
      TypeError: ``sp_input`` is not a ``SparseTensor``.
      NotImplementedError: the indices or dense shape are computed from the step's data.

    Raises at run time (when the step is compiled):
      InvalidArgumentError: a row index outside ``[0, dense_shape[0])`` (TF's message).

    Gradients are TF's: each value's gradient is its entry's; the default value's, the
    sum of the filled entries'.

    .. note:: jtrain computes the entries' places on the host when the step is
       compiled: one program per fed value of the indices.
    """
    sp = _check_sparse(sp_input, "sp_input")
    with ops.name_scope(name or "SparseFillEmptyRows"):
        default = ops.convert_to_tensor(default_value, dtype=sp.dtype)
        rank = _rank_of(sp)
        static = _static_shape(sp)
        rows = static[0] if static else None

        def compute(ctx: Any, op: Any, known: list[np.ndarray], v: Any, d: Any):
            i = known[0].astype(np.int64).reshape(-1, known[1].size)
            shape = known[1].astype(np.int64).ravel()
            if shape.size == 0:
                raise errors.InvalidArgumentError(None, op, "dense_shape must be a vector of "
                                                  "length >= 1")  # fmt: skip
            n_rows = int(shape[0])
            r = i[:, 0]
            bad = np.flatnonzero((r < 0) | (r >= n_rows))
            if bad.size:
                k = int(bad[0])
                raise errors.InvalidArgumentError(  # TF's words for a negative row too
                    None, op, f"indices({k}, 0) is invalid: {int(r[k])} >= {n_rows}"
                )
            counts = np.bincount(r, minlength=n_rows)
            empty = counts == 0
            filled = np.flatnonzero(empty)
            order = np.argsort(r, kind="stable")
            src = np.concatenate([order, -1 - filled]).astype(np.int64)
            key = np.concatenate([r[order], filled])
            place = np.argsort(key, kind="stable")
            src = src[place]
            fill_idx = np.zeros((filled.size, i.shape[1]), np.int64)
            fill_idx[:, 0] = filled
            out_idx = np.concatenate([i[order], fill_idx])[place]
            is_input = src >= 0
            vals = jnp.where(
                jnp.asarray(is_input), _take(v, np.where(is_input, src, 0)), d.astype(v.dtype)
            ) if v.shape[0] else jnp.broadcast_to(d, (src.size,))  # fmt: skip
            return _int64(out_idx), vals, jnp.asarray(empty)

        op = _traced_node(
            "SparseFillEmptyRows", "SparseFillEmptyRows", [sp.values, default],
            [sp.indices, sp.dense_shape], compute,
            [((None, rank), np.dtype(np.int64)), ((None,), sp.dtype), ((rows,), np.dtype(bool))],
            "tf.sparse.fill_empty_rows",
        )  # fmt: skip
        out = SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape)
        return out, op.outputs[2]


# -- reset_shape ---------------------------------------------------------------------------
def sparse_reset_shape(sp_input: SparseTensor, new_shape: Any = None) -> SparseTensor:
    """``sp_input`` with a new dense shape, its indices and values unchanged
    (``tf.sparse.reset_shape``).

    With ``new_shape`` None the dense shape is the tight one: per dimension, the
    largest index plus one (``reduce_max(indices, 0) + 1``).

    Args:
      sp_input: a ``SparseTensor``.
      new_shape: None, or an integer vector of ``sp_input``'s rank whose sizes are
        at least ``sp_input``'s.

    Returns:
      A ``SparseTensor``.

    Raises:
      TypeError: ``sp_input`` is not a ``SparseTensor``.
      ValueError: ``new_shape`` is not a vector of the rank of ``sp_input``, or (both
        known when the graph is built) smaller than ``sp_input``'s shape (TF's message).

    Raises at run time:
      InvalidArgumentError: ``new_shape`` smaller or of another rank (TF's assertions).
    """
    from adapters.v1.framework.op_def import FUNCTIONS
    from adapters.v1.ops.check_ops import assert_equal, assert_less_equal
    from adapters.v1.ops.control_flow_ops import with_dependencies

    sp = _check_sparse(sp_input, "sp_input")
    in_indices = array_ops.identity(sp.indices)
    in_values = array_ops.identity(sp.values)
    in_shape = array_ops.identity(sp.dense_shape)
    if new_shape is None:
        low = FUNCTIONS["reduce_max"](in_indices, axis=0)
        out_shape = FUNCTIONS["add"](low, FUNCTIONS["ones_like"](in_shape))
        tight = SparseTensor(in_indices, in_values, out_shape)
        rank = _rank_of(sp)
        if rank is not None:  # TF's shape inference folds no reduce_max: unknown sizes
            tight._static = TensorShape([None] * rank)
        return tight
    given = ops.convert_to_tensor(new_shape)
    TensorShape(given._shape).assert_has_rank(1)
    out_shape = FUNCTIONS["cast"](given, "int64")
    if out_shape._shape is not None:
        TensorShape(out_shape._shape).dims[0].assert_is_compatible_with(
            TensorShape(in_shape._shape).dims[0]
        )
    const = given.op._const_value
    if const is not None and sp.get_shape().is_fully_defined():
        in_const = np.array(sp.get_shape().as_list())
        const = np.asarray(const)
        if not np.all(in_const <= const):
            raise ValueError(  # TF's message (its two shapes the other way round)
                "Requested new_shape should have dimension sizes >= sp_input.shape.  "
                f"Found new_shape ({in_const}), sp_input.shape ({const})."
            )
        from adapters.v1.ops.constant_op import constant

        out_shape = constant(const.astype(np.int64))
    else:
        shape = FUNCTIONS["shape"]
        out_shape = with_dependencies([assert_equal(shape(in_shape), shape(out_shape))],
                                      out_shape)  # fmt: skip
        out_shape = with_dependencies([assert_less_equal(in_shape, out_shape)], out_shape)
    return SparseTensor(in_indices, in_values, out_shape)


# -- eye -------------------------------------------------------------------------------------
def _make_int64_tensor(value: Any, name: str) -> ops.Tensor:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return ops.convert_to_tensor(value, name=name, dtype="int64")
    if not isinstance(value, ops.Tensor):
        raise TypeError(f"{name} must be an integer value")
    if value.dtype == np.int64:
        return value
    from adapters.v1.framework.op_def import FUNCTIONS

    return FUNCTIONS["cast"](value, "int64")


def sparse_eye(
    num_rows: Any, num_columns: Any = None, dtype: Any = "float32", name: str | None = None
) -> SparseTensor:
    """A ``[num_rows, num_columns]`` ``SparseTensor`` with ones on the diagonal
    (``tf.sparse.eye``).

    Args:
      num_rows: a non-negative int or integer scalar tensor.
      num_columns: the same, default ``num_rows``.
      dtype: the values' dtype (default float32).
      name: the name scope (default ``"eye"``).

    Returns:
      A ``SparseTensor`` of ``min(num_rows, num_columns)`` ones at ``[k, k]``.

    Raises:
      TypeError: a size neither an integer nor a tensor (TF's message).
    """
    from adapters.v1.framework.op_def import FUNCTIONS

    with ops.name_scope(name, "eye"):
        rows = _make_int64_tensor(num_rows, "num_rows")
        cols = rows if num_columns is None else _make_int64_tensor(num_columns, "num_columns")
        size = FUNCTIONS["minimum"](rows, cols)
        diag = FUNCTIONS["range"](size, dtype="int64")
        return SparseTensor(
            FUNCTIONS["stack"]([diag, diag], axis=1),
            FUNCTIONS["ones"](size, dtype=dtype),
            FUNCTIONS["stack"]([rows, cols]),
        )


# -- maximum, minimum ------------------------------------------------------------------------
def _sparse_sparse(kind: str, sp_a: Any, sp_b: Any, name: str | None) -> SparseTensor:
    """``sparse_maximum`` (``kind="Maximum"``) or ``sparse_minimum`` (``"Minimum"``)."""
    op_type = f"SparseSparse{kind}"
    with ops.name_scope(name, op_type):
        a_values, b_values = sp_a.values, sp_b.values
        if a_values.dtype != b_values.dtype:
            raise TypeError(
                f"Input 'b_values' of '{op_type}' Op has type {b_values.dtype.name} that does "
                f"not match type {a_values.dtype.name} of argument 'a_values'."
            )
        pick = jnp.maximum if kind == "Maximum" else jnp.minimum

        def compute(ctx: Any, op: Any, known: list[np.ndarray], va: Any, vb: Any):
            a_shape, b_shape = (k.astype(np.int64).ravel() for k in known[1::2])
            if a_shape.size != b_shape.size:
                raise errors.InvalidArgumentError(
                    None, op, "Operands do not have the same ranks; got shapes: "
                    f"{' '.join(map(str, a_shape))} and {' '.join(map(str, b_shape))}",
                )  # fmt: skip
            for d, (x, y) in enumerate(zip(a_shape, b_shape, strict=True)):
                if x != y:
                    raise errors.InvalidArgumentError(
                        None, op, f"Operands' shapes do not match: got {x} and {y} for "
                        f"dimension {d}",
                    )  # fmt: skip
            rank = a_shape.size
            ia, ib = (k.astype(np.int64).reshape(-1, rank) for k in known[0::2])
            rows = np.concatenate([ia, ib])
            where, inv = np.unique(rows, axis=0, return_inverse=True)  # row-major order
            inv = inv.reshape(-1)
            pa = np.full(len(where), -1, np.int64)
            pb = np.full(len(where), -1, np.int64)
            pa[inv[: len(ia)]] = np.arange(len(ia))
            pb[inv[len(ia) :]] = np.arange(len(ib))
            in_a, in_b = pa >= 0, pb >= 0
            zero = jnp.zeros((), va.dtype)

            def side(v: Any, present: np.ndarray, pos: np.ndarray) -> Any:
                if not v.shape[0]:
                    return jnp.zeros(pos.shape, v.dtype)
                got = _take(v, np.where(present, pos, 0))
                return jnp.where(jnp.asarray(present), got, zero)

            both = pick(side(va, in_a, pa), side(vb, in_b, pb))
            return _int64(where.reshape(-1, rank)), _gradient_not_implemented(both, op_type)

        op = _traced_node(
            op_type, op_type, [a_values, b_values],
            [sp_a.indices, sp_a.dense_shape, sp_b.indices, sp_b.dense_shape], compute,
            [((None, None), np.dtype(np.int64)), ((None,), a_values.dtype)],
            f"tf.sparse.{kind.lower()}",
        )  # fmt: skip
        return SparseTensor(op.outputs[0], op.outputs[1], sp_a.dense_shape)


def _gradient_not_implemented(value: Any, op_type: str) -> Any:
    """``value``, whose derivative raises TF's ``NotImplementedError`` for ``op_type``
    (when a step computing it is traced)."""
    if not _inexact(value.dtype):
        return value

    @jax.custom_vjp
    def same(x: Any) -> Any:
        return x

    def bwd(_: Any, g: Any) -> Any:
        raise NotImplementedError(f"Gradient for {op_type} is currently not implemented yet.")

    same.defvjp(lambda x: (x, None), bwd)
    return same(value)


def sparse_maximum(sp_a: SparseTensor, sp_b: SparseTensor, name: str | None = None):
    """The element-wise maximum of two ``SparseTensor``s of one shape
    (``tf.sparse.maximum``, ``tf.sparse_maximum``; TF op ``SparseSparseMaximum``).

    The result has an entry at each index of either input (in row-major order); an
    index only one input has is compared with 0: ``max(a, 0)``.

    Args:
      sp_a: a ``SparseTensor`` of real values, indices in row-major order.
      sp_b: the other, of the same dtype, dense shape, and order.
      name: the name scope (default ``"SparseSparseMaximum"``).

    Returns:
      A ``SparseTensor`` with ``sp_a``'s dense shape.

    Raises:
      TypeError: the values' dtypes differ (TF's message).
      NotImplementedError: indices or dense shapes computed from the step's data.

    Raises at run time (when the step is compiled):
      InvalidArgumentError: the ranks or dense shapes differ (TF's messages).

    .. note:: TF's gradient of ``SparseSparseMaximum`` raises: TF 2.21's
       ``tf.gradients`` raises ``TypeError`` when the graph is built (its gradient
       function, meant to raise ``NotImplementedError``, takes one argument too few);
       jtrain raises TF's intended ``NotImplementedError`` when a step computing the
       gradient is traced. Indices are placed on the host when the step is compiled
       (one program per fed value of the indices).
    """
    return _sparse_sparse("Maximum", sp_a, sp_b, name)


def sparse_minimum(sp_a: SparseTensor, sp_b: SparseTensor, name: str | None = None):
    """The element-wise minimum of two ``SparseTensor``s of one shape
    (``tf.sparse.minimum``, ``tf.sparse_minimum``; TF op ``SparseSparseMinimum``):
    as :func:`sparse_maximum`, with ``min(a, 0)`` where only one input has an index.
    """
    return _sparse_sparse("Minimum", sp_a, sp_b, name)


# -- slice, split --------------------------------------------------------------------------
def _sliced(i: np.ndarray, shape: np.ndarray, start: np.ndarray, size: np.ndarray):
    """The entries of ``i`` in ``[start, start + size)`` (positions, new indices) and the
    new dense shape, as TF's ``SparseTensor::Slice``."""
    end = start + size
    keep = np.flatnonzero(np.all((i >= start) & (i < end), axis=1))
    out_shape = np.maximum(np.minimum(end, shape) - start, 0)
    return keep, i[keep] - start, out_shape


def sparse_slice(
    sp_input: SparseTensor, start: Any, size: Any, name: str | None = None
) -> SparseTensor:
    """The entries of ``sp_input`` in the box ``[start, start + size)``, moved to start
    at 0 (``tf.sparse.slice``, ``tf.sparse_slice``; TF op ``SparseSlice``).

    .. math:: \\mathrm{shape}'_d = \\max(\\min(\\mathrm{start}_d + \\mathrm{size}_d,
              \\mathrm{shape}_d) - \\mathrm{start}_d, 0)

    Args:
      sp_input: a ``SparseTensor``.
      start: int64 vector, the box's first index per dimension.
      size: int64 vector, its size per dimension.
      name: the name scope (default ``"SparseSlice"``).

    Returns:
      A ``SparseTensor`` of the entries inside, in their input order.

    Raises:
      TypeError: ``sp_input`` is not a ``SparseTensor``.
      NotImplementedError: indices, dense shape, start or size computed from the
        step's data.

    Gradients are TF's: each value kept gets its entry's, the others 0.

    .. note:: Entries are placed on the host when the step is compiled (one program per
       fed value of the indices).
    """
    sp = _check_sparse(sp_input, "sp_input")
    start_t = ops.convert_to_tensor(start, dtype="int64")
    size_t = ops.convert_to_tensor(size, dtype="int64")
    with ops.name_scope(name, "SparseSlice"):
        rank = _rank_of(sp)

        def compute(ctx: Any, op: Any, known: list[np.ndarray], v: Any):
            shape, first, extent = (k.astype(np.int64).ravel() for k in known[1:])
            for what, vec in (("start", first), ("size", extent)):
                if vec.size != shape.size:
                    raise errors.InvalidArgumentError(
                        None, op, f"Expected {what} to be a vector of length {shape.size} "
                        f"but got length {vec.size}",
                    )  # fmt: skip
            i = known[0].astype(np.int64).reshape(-1, shape.size)
            keep, new, out_shape = _sliced(i, shape, first, extent)
            return _int64(new), _take(v, keep), _int64(out_shape)

        op = _traced_node(
            "SparseSlice", "SparseSlice", [sp.values],
            [sp.indices, sp.dense_shape, start_t, size_t], compute,
            [((None, rank), np.dtype(np.int64)), ((None,), sp.dtype),
             ((rank,), np.dtype(np.int64))],
            "tf.sparse.slice",
        )  # fmt: skip
        return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


class KeywordRequired:
    """TF's stand-in default of ``sparse_split``'s first argument: arguments by keyword."""

    def __repr__(self) -> str:
        return "KeywordRequired()"


def sparse_split(
    keyword_required: Any = KeywordRequired(),  # noqa: B008 - TF's sentinel default
    sp_input: Any = None,
    num_split: int | None = None,
    axis: Any = None,
    name: str | None = None,
    split_dim: Any = None,
) -> list[SparseTensor]:
    """``sp_input`` split into ``num_split`` parts along ``axis``
    (``tf.compat.v1.sparse.split``, ``tf.sparse_split``; TF op ``SparseSplit``).

    The first ``shape[axis] % num_split`` parts are one longer than the others
    (``shape[axis] // num_split``); each part's indices start at 0 along ``axis``.

    Args:
      keyword_required: not to be given (TF's guard: the others by keyword).
      sp_input: the ``SparseTensor`` (required).
      num_split: a Python int, the number of parts (required).
      axis: the dimension to split, in ``[-rank, rank)`` (required).
      name: the op name (default ``"SparseSplit"``).
      split_dim: deprecated alias of ``axis``; as TF 2.21, giving it without ``axis``
        raises "axis is required", and with it "Cannot specify both".

    Returns:
      A list of ``num_split`` ``SparseTensor``s.

    Raises:
      ValueError: an argument given positionally, or a required one missing (TF's
        messages); both ``axis`` and ``split_dim``.
      TypeError: ``sp_input`` is not a ``SparseTensor``.

    Raises at run time (when the step is compiled):
      InvalidArgumentError: ``axis`` out of range, ``num_split`` not in
        ``[1, shape[axis]]`` (TF's messages).

    .. note:: TF gives ``SparseSplit`` no gradient: ``tf.gradients`` raises
       ``LookupError`` (TF when the graph is built; jtrain when the step is traced).
    """
    if not isinstance(keyword_required, KeywordRequired):
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        raise ValueError("axis is required")
    if split_dim is not None:  # TF's deprecated_argument_lookup, its words
        raise ValueError("Cannot specify both 'split_dim' and 'axis'.")
    sp = _check_sparse(sp_input, "sp_input")
    axis_t = ops.convert_to_tensor(axis, dtype="int64")
    parts = int(num_split)
    rank = _rank_of(sp)

    def compute(ctx: Any, op: Any, known: list[np.ndarray], v: Any):
        shape = known[1].astype(np.int64).ravel()
        ax = int(np.asarray(known[2]).reshape(()))
        n = shape.size
        if not -n <= ax < n:
            raise errors.InvalidArgumentError(
                None, op, f"Input axis should be in range [{-n}, {n}), got {ax}"
            )
        ax %= n
        if not 1 <= parts <= shape[ax]:
            raise errors.InvalidArgumentError(
                None, op, "Input num_split should be between 1 and the splitting dimension "
                f"size ({int(shape[ax])}), got {parts}",
            )  # fmt: skip
        i = known[0].astype(np.int64).reshape(-1, n)
        small, extra = divmod(int(shape[ax]), parts)
        outs: list[Any] = []
        begin = 0
        for k in range(parts):
            length = small + (1 if k < extra else 0)
            first, extent = np.zeros(n, np.int64), shape.copy()
            first[ax], extent[ax] = begin, length
            keep, new, out_shape = _sliced(i, shape, first, extent)
            outs += [_int64(new), _no_gradient(_take(v, keep), "SparseSplit", op),
                     _int64(out_shape)]  # fmt: skip
            begin += length
        return tuple(outs[0::3] + outs[1::3] + outs[2::3])

    specs = (
        [((None, rank), np.dtype(np.int64))] * parts
        + [((None,), sp.dtype)] * parts
        + [((rank,), np.dtype(np.int64))] * parts
    )
    op = _traced_node(
        "SparseSplit", name or "SparseSplit", [sp.values], [sp.indices, sp.dense_shape, axis_t],
        compute, specs, "tf.sparse.split",
    )  # fmt: skip
    out = op.outputs
    return [SparseTensor(out[k], out[parts + k], out[2 * parts + k]) for k in range(parts)]


# -- reduce_sum_sparse, reduce_max_sparse ----------------------------------------------------
def _sparse_reduce_sparse(
    kind: str, sp_input: Any, axis: Any, keepdims: Any, reduction_axes: Any, keep_dims: Any
) -> SparseTensor:
    """``sparse_reduce_sum_sparse`` (``kind="Sum"``) or ``sparse_reduce_max_sparse``."""
    op_type = f"SparseReduce{kind}Sparse"
    what = f"tf.sparse.reduce_{kind.lower()}_sparse"
    sp = _check_sparse(sp_input, "sp_input")
    axis = _one_of(axis, reduction_axes, "axis", "reduction_axes")
    keep = bool(_one_of(keepdims, keep_dims, "keepdims", "keep_dims"))
    if isinstance(axis, ops.Tensor):
        const = axis.op._const_value
        if const is None:
            raise NotImplementedError(f"{what}: axis must be known when the graph is built.")
        axis = np.asarray(const).tolist()
    axes = None if axis is None else ([axis] if isinstance(axis, int) else list(axis))

    def compute(ctx: Any, op: Any, known: list[np.ndarray], v: Any):
        shape = tuple(int(d) for d in known[1].astype(np.int64).ravel())
        try:
            out_shape, kept = _reduced(shape, axes, keep, op=op, with_kept=True)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, op, str(e)) from None
        i = known[0].astype(np.int64).reshape(-1, len(shape))
        if keep:
            cols = np.zeros_like(i)
            cols[:, kept] = i[:, kept]
        else:
            cols = i[:, kept]
        groups, inv = np.unique(cols, axis=0, return_inverse=True)  # row-major order
        seg = jnp.asarray(inv.reshape(-1), jnp.int32)
        size = len(groups)
        if kind == "Sum":
            out = jnp.zeros((size,), v.dtype).at[seg].add(v)
        else:
            out = _segment_max(v, seg, size)
        out = _no_gradient(out, op_type, op)
        return _int64(groups.reshape(size, len(out_shape))), out, _int64(out_shape)

    op = _traced_node(
        op_type, op_type, [sp.values], [sp.indices, sp.dense_shape], compute,
        [(None, np.dtype(np.int64)), (None, sp.dtype), (None, np.dtype(np.int64))], what,
    )  # fmt: skip
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


def sparse_reduce_sum_sparse(
    sp_input: SparseTensor,
    axis: Any = None,
    keepdims: bool | None = None,
    reduction_axes: Any = None,
    keep_dims: bool | None = None,
) -> SparseTensor:
    """The sum of a ``SparseTensor``'s values over ``axis``, as a ``SparseTensor``
    (``tf.compat.v1.sparse.reduce_sum_sparse``, TF op ``SparseReduceSumSparse``).

    The result has one entry per position of the kept dimensions that has values, in
    row-major order (with ``keepdims``, the reduced dimensions' indices are 0).

    Args:
      sp_input: a ``SparseTensor`` (indices in any order).
      axis: the axes to reduce (int or list, negative from the end; None: all).
      keepdims: keep reduced axes with length 1 (default False).
      reduction_axes: deprecated alias of ``axis``.
      keep_dims: deprecated alias of ``keepdims``.

    Returns:
      A ``SparseTensor`` of the values' dtype (static shapes unknown, as TF's).

    Raises:
      ValueError: both an argument and its deprecated alias are given.
      NotImplementedError: indices or dense shape computed from the step's data.

    Raises at run time (when the step is compiled):
      InvalidArgumentError: an axis outside ``[-rank, rank)`` (TF's message).

    .. note:: TF defines no gradient for it: ``tf.gradients`` raises ``LookupError``
       (TF when the graph is built; jtrain when the step is traced). Entries are placed
       on the host when the step is compiled (one program per fed value of the indices).
    """
    return _sparse_reduce_sparse("Sum", sp_input, axis, keepdims, reduction_axes, keep_dims)


def sparse_reduce_max_sparse(
    sp_input: SparseTensor,
    axis: Any = None,
    keepdims: bool | None = None,
    reduction_axes: Any = None,
    keep_dims: bool | None = None,
) -> SparseTensor:
    """The largest present value of a ``SparseTensor`` over ``axis``, as a
    ``SparseTensor`` (``tf.compat.v1.sparse.reduce_max_sparse``, TF op
    ``SparseReduceMaxSparse``): as :func:`sparse_reduce_sum_sparse`, with the maximum of
    each position's values (the implicit zeros do not count)."""
    return _sparse_reduce_sparse("Max", sp_input, axis, keepdims, reduction_axes, keep_dims)


# -- merge ----------------------------------------------------------------------------------
def sparse_merge(
    sp_ids: Any,
    sp_values: Any,
    vocab_size: Any,
    name: str | None = None,
    already_sorted: bool = False,
) -> SparseTensor:
    """Ids and values ``SparseTensor``s merged into one whose last dimension is the id
    (``tf.compat.v1.sparse.merge``, ``tf.compat.v1.sparse_merge``; deprecated in TF).

    ``out[i0, ..., in-1, ids[i0, ..., in]] = values[i0, ..., in]``: the ids' indices
    but the last, then the id (one column per ids tensor of a list), sorted row-major
    unless ``already_sorted``.

    Args:
      sp_ids: a ``SparseTensor`` of int32/int64 ids, or a list of them.
      sp_values: a ``SparseTensor`` of the values (the ids' indices).
      vocab_size: an int or scalar tensor (a list of them for a list of ids).
      name: the name scope (default ``"SparseMerge"``).
      already_sorted: the ids are in order already: skip the reorder (default False).

    Returns:
      A ``SparseTensor`` of dense shape ``ids.dense_shape[:-1] + vocab_size``.

    Raises:
      TypeError: ``vocab_size`` or ``sp_ids`` of the wrong kind (TF's messages).
      ValueError: a list of ids and of vocabulary sizes of other lengths.
    """
    from adapters.v1.framework.op_def import FUNCTIONS

    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        sp_ids = [sp_ids]
        if not isinstance(vocab_size, (ops.Tensor, int, np.integer)):
            raise TypeError(
                f"vocab_size has to be a Tensor or Python int. Found {type(vocab_size)}"
            )
        vocab_size = [vocab_size]
    else:
        if not isinstance(sp_ids, (list, tuple)):
            raise TypeError(
                f"sp_ids has to be a SparseTensor or list thereof. Found {type(sp_ids)}"
            )
        if not isinstance(vocab_size, (list, tuple)):
            raise TypeError(
                f"vocab_size has to be a list of Tensors or Python ints. Found {type(vocab_size)}"
            )
        for dim in vocab_size:
            if not isinstance(dim, (ops.Tensor, int, np.integer)):
                raise TypeError(
                    f"vocab_size has to be a list of Tensors or Python ints. Found {type(dim)}"
                )
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    cast, concat = FUNCTIONS["cast"], FUNCTIONS["concat"]
    with ops.name_scope(name, "SparseMerge"):
        ids_sp = [_check_sparse(s, "sp_ids") for s in sp_ids]
        values_sp = _check_sparse(sp_values, "sp_values")
        ids = []
        for s in ids_sp:
            column = s.values if s.dtype == np.int64 else cast(s.values, "int64")
            ids.append(FUNCTIONS["expand_dims"](column, axis=1))
        sizes = [cast(x, "int64") for x in vocab_size]
        new_indices = concat([ids_sp[0].indices[:, :-1], *ids], 1)
        new_shape = concat([ids_sp[0].dense_shape[:-1], FUNCTIONS["stack"](sizes)], 0)
        result = SparseTensor(new_indices, values_sp.values, new_shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, new_shape)


# -- mask -----------------------------------------------------------------------------------
def sparse_mask(a: Any, mask_indices: Any, name: str | None = None) -> Any:
    """The slices of ``IndexedSlices`` ``a`` whose index is not in ``mask_indices``
    (``tf.sparse.mask``, ``tf.sparse_mask``): TF's ``setdiff1d`` of the indices, then a
    gather of the kept rows.

    Args:
      a: an ``IndexedSlices``.
      mask_indices: 1-D indices to drop (``a.indices``' dtype).
      name: the name scope (default ``"sparse_mask"``).

    Returns:
      An ``IndexedSlices`` of the kept rows, in ``a``'s order, ``a``'s dense shape.

    .. note:: The number of rows kept depends on the indices: computed on the host
       (``tf.setdiff1d``'s rules); the rows' gradient is the gather's, as TF's.
    """
    from adapters.v1.framework.indexed_slices import IndexedSlices
    from adapters.v1.framework.op_def import FUNCTIONS

    with ops.name_scope(name, "sparse_mask") as scope:
        out_indices, to_gather = array_ops.setdiff1d(a.indices, mask_indices)
        out_values = FUNCTIONS["gather"](a.values, to_gather, name=scope)
        return IndexedSlices(out_values, out_indices, a.dense_shape)
