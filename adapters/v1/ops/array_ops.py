"""TF's array ops: ``tf.placeholder``, ``tf.identity``, and the table of array ops.

``placeholder``/``placeholder_with_default``/``identity`` are graph primitives;
``reshape``, ``concat``, ``gather``, ``strided_slice``... are entries of TF's op
table (``framework/op_def.py``), with TF's signatures and semantics.
"""

from __future__ import annotations

import functools
import inspect
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework import dtypes, ops, tensor_shape
from adapters.v1.framework.op_def import (
    FUNCTIONS,
    OpDef,
    OpTypeError,
    OpValueError,
    define,
    lift,
    np_dtype,
)
from adapters.v1.ops.data_flow_ops import placement
from jtrain import errors
from jtrain._numerics import eigen_sum


def _shape(shape: Any) -> tuple[int | None, ...] | None:
    """A shape argument as TF takes it: ``None``, an int, a list or a ``TensorShape``."""
    try:
        return tensor_shape.as_shape(shape)._dims
    except (TypeError, ValueError) as e:
        raise ValueError(f"Error converting shape to a TensorShape: {e}.") from None


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> ops.Tensor:
    """A tensor that must be fed through ``feed_dict`` when a fetch needs it.

    Args:
      dtype: the element type fed values are converted to (anything ``as_dtype``
        takes: ``tf.float32``, ``"float"``, ``np.float32``, ``"string"``...).
      shape: the shape: ``None`` (any shape), an int (a vector's length), or a
        list or ``TensorShape`` with ``None`` for unknown dimensions.
      name: the op name (default ``"Placeholder"``).

    Running a fetch that needs an unfed placeholder raises ``InvalidArgumentError``
    naming it; feeding a value of another shape or an incompatible dtype too.

    Raises:
      TypeError: ``dtype`` is not a TF dtype.
      ValueError: ``shape`` is not a shape (a negative dimension, as in TF).
    """
    op = ops.get_default_graph().create_op(
        "Placeholder",
        name or "Placeholder",
        compute=None,
        output_specs=[(_shape(shape), ops.as_dtype(dtype))],
    )
    return op.outputs[0]


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> ops.Tensor:
    """A tensor that is ``input`` unless it is fed (``shape`` may relax input's shape)."""
    value = ops.convert_to_tensor(input)
    op = ops.get_default_graph().create_op(
        "PlaceholderWithDefault",
        name or "PlaceholderWithDefault",
        inputs=[value],
        compute=lambda ctx, x: (x,),
        output_specs=[(_shape(shape), value.dtype)],
    )
    return op.outputs[0]


def identity(input: Any, name: str | None = None) -> ops.Tensor:
    """The value of ``input`` (a new node, e.g. to attach control dependencies).

    A string tensor's identity is a host operation (XLA has no strings).
    """
    value = ops.convert_to_tensor(input)
    host = placement([value]) if value.dtype == "string" else None
    op = ops.get_default_graph().create_op(
        "Identity",
        name or "Identity",
        inputs=[value],
        compute=lambda ctx, x: (x,),
        output_specs=[(value.shape, value.dtype)],
        host=host,
    )
    return op.outputs[0]


# -- array ops of TF's table (lifted by framework/op_def.py) ----------------------------
def _axes(axis: Any) -> tuple[int, ...] | None:
    if axis is None:
        return None
    return tuple(axis) if isinstance(axis, (list, tuple)) else (int(axis),)


def _one_of(a: Any, b: Any, names: str) -> Any:
    if a is not None and b is not None:
        first, second = names.split()
        raise ValueError(f"Cannot specify both '{first}' and '{second}'.")
    return b if a is None else a


def _reshape(tensor, shape):
    """``jnp.reshape``, a size mismatch raising TF's run-time error (where the sizes are
    numbers: a symbolic dimension at graph construction is JAX's to check)."""
    try:
        dims = [int(d) for d in np.ravel(np.asarray(shape))]
    except (TypeError, ValueError, jax.errors.ConcretizationTypeError):
        dims = None  # a traced shape: JAX checks it
    if dims is not None and all(isinstance(d, int) for d in np.shape(tensor)):
        size = int(np.prod(np.shape(tensor), dtype=np.int64))
        known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
        if -1 in dims and known and size % known:
            error = errors.InvalidArgumentError(
                None, None, f"Input to reshape is a tensor with {size} values, but the "
                f"requested shape requires a multiple of {known}",
            )  # fmt: skip
            # For script_ops._output_specs, when it tries sizes for unknown dimensions.
            error.required_multiple = known
            raise error
        if -1 not in dims and size != known:
            raise errors.InvalidArgumentError(
                None, None, f"Input to reshape is a tensor with {size} values, but the "
                f"requested shape has {known}",
            )  # fmt: skip
    return jnp.reshape(tensor, shape)


def _expand_dims(input, axis=None, dim=None):
    axis = _one_of(axis, dim, "axis dim")
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return jnp.expand_dims(input, int(axis))


def _squeeze(input, axis=None, squeeze_dims=None):
    axis = _axes(_one_of(axis, squeeze_dims, "axis squeeze_dims"))
    if axis:
        for a in axis:
            if input.shape[a] != 1:
                raise ValueError(
                    f"Can not squeeze dim[{a}], expected a dimension of 1, got {input.shape[a]}"
                )
    return jnp.squeeze(input, axis)


def _tile(input: Any, multiples: Any) -> Any:
    """``Tile``: ``input`` repeated ``multiples`` times along each axis; a real floating
    input's gradient is TF's ``_TileGrad`` (see ``_tiled``)."""
    x = jnp.asarray(input)
    reps = tuple(int(m) for m in np.ravel(multiples))
    if not jnp.issubdtype(x.dtype, jnp.floating) or len(reps) != x.ndim or 0 in reps:
        return jnp.tile(x, reps)
    return _tiled(reps, x)


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def _tiled(reps: tuple[int, ...], x: jax.Array) -> jax.Array:
    return jnp.tile(x, reps)


def _tiled_fwd(reps: tuple[int, ...], x: jax.Array) -> tuple:
    return jnp.tile(x, reps), None


def _tiled_bwd(reps: tuple[int, ...], _: None, g: jax.Array) -> tuple:
    """TF's ``_TileGrad``: the gradient reshaped to ``[m0, d0, m1, d1, ...]`` and summed
    over the multiples' axes by TF's ``Sum`` kernel (Eigen's order: ``eigen_sum``; JAX's
    transpose of a tile sums with XLA's, 75% of a tiled bias's gradient differed)."""
    shape = tuple(n // m for n, m in zip(g.shape, reps, strict=True))
    split = tuple(d for pair in zip(reps, shape, strict=True) for d in pair)
    summed = eigen_sum(g.reshape(split), axis=tuple(range(0, len(split), 2)))
    return (summed.reshape(shape),)


_tiled.defvjp(_tiled_fwd, _tiled_bwd)


def _split(value, num_or_size_splits, axis=0, num=None):
    size = value.shape[axis]
    if isinstance(num_or_size_splits, int):
        if size % num_or_size_splits:
            raise ValueError(
                f"Dimension size {size} of axis {axis} is not divisible by "
                f"num_split {num_or_size_splits}"
            )
        return jnp.split(value, num_or_size_splits, axis)
    sizes = list(num_or_size_splits)
    if -1 in sizes:
        sizes[sizes.index(-1)] = size - (sum(sizes) + 1)
    return jnp.split(value, np.cumsum(sizes)[:-1].tolist(), axis)


def _split_even(value, num_split, axis=0):
    """TF's ``Split``: ``num_split`` equal parts of ``value`` along ``axis``."""
    size = value.shape[axis]
    if size % num_split:
        raise OpValueError(f"Dimension size must be evenly divisible by {num_split} but is {size}")
    return jnp.split(value, num_split, axis)


def _pad(tensor, paddings, mode="CONSTANT", constant_values=0):
    mode = mode.upper()
    kinds = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}
    if mode not in kinds:
        raise ValueError(
            f"Value of argument `mode` expected to be one of "
            f'"CONSTANT", "REFLECT", or "SYMMETRIC". Received: mode={mode}'
        )
    if mode == "CONSTANT":
        return jnp.pad(tensor, paddings, constant_values=jnp.asarray(constant_values, tensor.dtype))
    return jnp.pad(tensor, paddings, mode=kinds[mode])


def _gather_axes(params: Any, indices: Any, axis: Any, batch_dims: int) -> tuple[int, int]:
    """``(axis, batch_dims)`` of a ``GatherV2`` as non-negative ints, with its shape
    function's errors (TF's ``ValueError``: ``Shape must be at least rank 4 but is
    rank 3``); an ``axis`` of ``None`` is ``batch_dims`` (TF's ``tf.gather``)."""
    axis = batch_dims if axis is None else int(axis)
    need = axis + 1 if axis >= 0 else -axis
    shapes = ", ".join(
        "[" + ",".join(str(d) for d in s) + "]" for s in (params.shape, indices.shape, ())
    )
    if params.ndim < need:
        raise OpValueError(
            f"Shape must be at least rank {need} but is rank {params.ndim} for 'GatherV2' "
            f"with input shapes: {shapes}."
        )
    need = abs(batch_dims)
    if indices.ndim < need:
        raise OpValueError(
            f"Shape must be at least rank {need} but is rank {indices.ndim} for 'GatherV2' "
            f"with input shapes: {shapes}."
        )
    return axis % params.ndim, batch_dims + indices.ndim if batch_dims < 0 else batch_dims


def _gather_problem(params: Any, indices: Any, axis: int, batch_dims: int) -> tuple[int, ...]:
    """The ``GatherV2`` kernel's refusal of the shapes, checked at run time as TF's CPU
    kernel does: ``(1, batch_dims, axis)`` for a ``batch_dims`` past ``axis``,
    ``(2, i, params.shape[i], indices.shape[i])`` for unequal batch dimensions, or
    ``(0,)``."""
    if batch_dims > axis:
        return (1, batch_dims, axis)
    for i in range(batch_dims):
        sizes = params.shape[i], indices.shape[i]
        # (a dimension unknown while the graph is built or exported is checked when run)
        if all(isinstance(d, int) for d in sizes) and sizes[0] != sizes[1]:
            return (2, i, *sizes)
    return (0,)


def _gather(params, indices, validate_indices=None, axis=None, batch_dims=0):
    # Out-of-range indices raise at run time (_gather_in_range, as TF on CPU); a
    # gradient's re-evaluation, which is not checked, reads them as zeros.
    axis, batch_dims = _gather_axes(params, indices, axis, batch_dims)
    shape = params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1 :]
    if _gather_problem(params, indices, axis, batch_dims)[0] or params.shape[axis] == 0:
        # TF's static shape; the run raises (any index of an empty axis is out of range)
        return jnp.zeros(shape, params.dtype)
    take = partial(jnp.take, axis=axis - batch_dims, mode="fill", fill_value=0)
    if not batch_dims:
        return take(params, indices)
    # One gather per batch element: mapped over each batch dimension.
    for _ in range(batch_dims):
        take = jax.vmap(take)
    return take(params, indices)


def _gather_in_range(params, indices, validate_indices=None, axis=None, batch_dims=0):
    """TF's CPU kernel refuses an index outside ``[0, params.shape[axis])``, and a
    ``batch_dims`` past ``axis`` or batch dimensions that differ."""
    axis, batch_dims = _gather_axes(params, indices, axis, batch_dims)
    problem = _gather_problem(params, indices, axis, batch_dims)
    limit = params.shape[axis]
    ok = jnp.all((indices >= 0) & (indices < limit)) & (problem[0] == 0)
    return ok, (indices, jnp.asarray(limit, np.int64), jnp.asarray(problem, np.int64))


def _gather_v2_error(
    op: ops.Operation, indices: np.ndarray, limit: np.ndarray, problem: np.ndarray
) -> Any:
    """TF's ``GatherV2`` kernel messages: its shape refusals, else the first bad index."""
    kind, *values = (int(v) for v in problem)
    if kind == 1:
        message = f"batch_dims ({values[0]}) must be less than or equal to axis ({values[1]})."
        return errors.InvalidArgumentError(None, op, message)
    if kind == 2:
        i, p, n = values
        message = f"params.shape[{i}]: {p} should be equal to indices.shape[{i}]: {n}"
        return errors.InvalidArgumentError(None, op, message)
    return _gather_error(op, indices, limit)


def _gather_error(op: ops.Operation, indices: np.ndarray, limit: np.ndarray) -> Any:
    """TF's message: ``indices[0,1] = 9 is not in [0, 5)`` (the first bad index)."""
    bad = np.argwhere((indices < 0) | (indices >= limit))
    where = tuple(int(i) for i in bad[0]) if bad.size else ()
    position = f"[{','.join(str(i) for i in where)}]" if indices.ndim else ""
    value = indices[where] if indices.ndim else indices[()]
    return errors.InvalidArgumentError(
        None, op, f"indices{position} = {int(value)} is not in [0, {int(limit)})"
    )


def _gather_nd_batched(params: Any, indices: Any, batch_dims: int) -> tuple[Any, tuple[int, int]]:
    """The index rows of a ``gather_nd`` with ``batch_dims`` as TF's ``batch_gather_nd``
    rewrites it for a plain ``GatherNd``: each row prefixed with its batch element's
    coordinates in ``params``, the indices' batch dimensions flattened to ``params``'s
    batch size (whatever their own shape, as TF's reshape). Also ``(size, wanted)``,
    the element counts of that reshape where they differ (TF raises), else ``(0, 0)``.

    With dimensions unknown while the graph is built (symbolic), or counts that
    differ, the rows keep ``indices``' own batch dimensions."""
    if not batch_dims:
        return indices, (0, 0)
    batch = params.shape[:batch_dims]
    dims = (*batch, *indices.shape)
    if all(isinstance(d, int) for d in dims):
        count = int(np.prod(batch, dtype=np.int64))
        flat = (count,) + indices.shape[batch_dims:]
        size = int(np.prod(indices.shape, dtype=np.int64))
        wanted = int(np.prod(flat, dtype=np.int64))
        if size == wanted:
            coords = np.indices(batch).reshape(batch_dims, count).T.astype(indices.dtype)
            coords = coords.reshape((count,) + (1,) * (len(flat) - 2) + (batch_dims,))
            rows = indices.reshape(flat)
            coords = jnp.broadcast_to(jnp.asarray(coords), rows.shape[:-1] + (batch_dims,))
            return jnp.concatenate([coords, rows], axis=-1), (0, 0)
        problem = (size, wanted)
    else:
        problem = (0, 0)
    lead = indices.shape[:-1]
    coords = [lax.broadcasted_iota(indices.dtype, lead, k) for k in range(batch_dims)]
    return jnp.concatenate([jnp.stack(coords, axis=-1), indices], axis=-1), problem


def _gather_nd_checked(params: Any, indices: Any, batch_dims: int) -> None:
    """The static checks of TF's ``gather_nd`` (its Python and ``GatherNd``'s shape
    function): TF's ``ValueError`` messages."""
    if batch_dims < 0:
        raise OpValueError("tf.gather_nd does not allow negative batch_dims.")
    for what, rank in (("indices", indices.ndim), ("params", params.ndim)):
        if batch_dims and batch_dims >= rank:
            raise OpValueError(
                f"Argument `batch_dims` = {batch_dims} must be less than rank(`{what}`) = {rank}"
            )
    if indices.ndim and indices.shape[-1] + batch_dims > params.ndim:
        shape = ",".join(str(d) for d in indices.shape)
        raise OpValueError(
            f"indices.shape[-1] must be <= params.rank, but saw indices shape: [{shape}] and "
            f"params shape: [{','.join(str(d) for d in params.shape)}]"
        )


def _gather_nd(params, indices, batch_dims=0, bad_indices_policy=""):
    # Out-of-range rows raise at run time (_gather_nd_in_range, as TF on CPU) unless
    # bad_indices_policy is "IGNORE"; a gradient's re-evaluation reads them as zeros.
    _gather_nd_checked(params, indices, batch_dims)
    rows, _ = _gather_nd_batched(params, indices, batch_dims)
    # A negative index reads zeros too (TF's "IGNORE" policy), not from the end.
    columns = jnp.moveaxis(rows, -1, 0)
    index = tuple(
        jnp.where(columns[i] < 0, params.shape[i], columns[i]) for i in range(rows.shape[-1])
    )
    if _empty(params):  # nothing to read: TF refuses any row (_gather_nd_in_range)
        out = jnp.zeros(rows.shape[:-1] + params.shape[rows.shape[-1] :], params.dtype)
    else:
        out = jnp.asarray(params).at[index].get(mode="fill", fill_value=0)
    if batch_dims and rows.shape[:-1] != indices.shape[:-1]:
        out = out.reshape(params.shape[:batch_dims] + out.shape[1:])  # TF's reshape back
    return out


def _empty(params: Any) -> bool:
    """Whether ``params`` has no element (a dimension known to be 0)."""
    return any(isinstance(d, int) and d == 0 for d in params.shape)


def _gather_nd_in_range(params, indices, batch_dims=0, bad_indices_policy=""):
    """TF's CPU kernel refuses an index row outside ``params``'s leading dimensions
    (unless ``bad_indices_policy`` is ``"IGNORE"``) and any row of an empty ``params``;
    with ``batch_dims``, TF's reshape of the indices refuses batch dimensions of
    another element count."""
    rows, problem = _gather_nd_batched(params, indices, batch_dims)
    empty = _empty(params) and rows.size > 0
    limits = jnp.asarray(params.shape[: rows.shape[-1]], rows.dtype)
    ok = jnp.all((rows >= 0) & (rows < limits)) | (bad_indices_policy.upper() == "IGNORE")
    ok = ok & (problem[0] == 0) & (not empty)
    shape = jnp.asarray(params.shape, np.int64)
    return ok, (rows, shape, jnp.asarray((*problem, empty), np.int64))


def _gather_nd_error(
    op: ops.Operation, indices: np.ndarray, shape: np.ndarray, problem: np.ndarray
) -> Any:
    """TF's message: ``indices[1,1] = [1, 3] does not index into param shape [2,3,4],
    node name: GatherNd`` (the last bad row, at its position in ``indices``)."""
    size, wanted, empty = (int(v) for v in problem)
    dims = ",".join(str(int(d)) for d in shape)
    if size:
        return errors.InvalidArgumentError(
            None,
            op,
            f"Input to reshape is a tensor with {size} values, but the requested shape "
            f"has {wanted}",
        )
    if empty:
        message = f"Requested more than 0 entries, but params is empty.  Params shape: [{dims}]"
        return errors.InvalidArgumentError(None, op, message)
    depth = indices.shape[-1]
    rows = indices.reshape(-1, depth)
    bad = np.flatnonzero(np.any((rows < 0) | (rows >= shape[:depth]), axis=-1))
    i = int(bad[-1]) if bad.size else 0  # TF's kernel reports the last bad row
    where = np.unravel_index(i, indices.shape[:-1]) if indices.ndim > 1 else ()
    position = f"[{','.join(str(int(k)) for k in where)}]" if indices.ndim > 1 else ""
    row = ", ".join(str(int(v)) for v in rows[i])
    return errors.InvalidArgumentError(
        None,
        op,
        f"indices{position} = [{row}] does not index into param shape [{dims}], "
        f"node name: {op.name}",
    )


def _slice(input_, begin, size):
    index = tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size, strict=True))
    return input_[index]


def _strided_slice(
    input_,
    begin,
    end,
    strides=None,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    var=None,
):
    strides = strides or [1] * len(begin)
    index: list[Any] = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides, strict=True)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(b)
        else:
            index.append(slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return input_[tuple(index)]


def _one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None):
    if dtype is None:
        given = on_value if on_value is not None else off_value
        dtype = np.asarray(given).dtype if given is not None else np.float32
        if given is not None and isinstance(given, float):
            dtype = np.float32
    dtype = np_dtype(dtype)
    on = jnp.asarray(1 if on_value is None else on_value, dtype)
    off = jnp.asarray(0 if off_value is None else off_value, dtype)
    hot = jax.nn.one_hot(indices, depth, dtype=bool, axis=-1 if axis is None else axis)
    return jnp.where(hot, on, off)


def _range(start, limit=None, delta=1, dtype=None):
    if limit is None:
        start, limit = 0, start
    if dtype is None:
        floats = any(isinstance(v, float) for v in (start, limit, delta))
        dtype = np.float32 if floats else np.int32
    return jnp.arange(start, limit, delta, dtype=np_dtype(dtype))


def _eye(num_rows, num_columns=None, batch_shape=None, dtype="float32"):
    out = jnp.eye(num_rows, num_columns, dtype=np_dtype(dtype))
    if batch_shape:
        out = jnp.broadcast_to(out, tuple(batch_shape) + out.shape)
    return out


def _like(fill: int):
    def impl(tensor, dtype=None, optimize=True):
        return jnp.full(tensor.shape, fill, np_dtype(tensor.dtype if dtype is None else dtype))

    return impl


def _filled(fill: int):
    def impl(shape, dtype="float32", layout=None):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return jnp.full(shape, fill, np_dtype(dtype))

    return impl


def _matrix_band_part(input, num_lower, num_upper):
    rows, cols = input.shape[-2], input.shape[-1]
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    keep = ((num_lower < 0) | (i - j <= num_lower)) & ((num_upper < 0) | (j - i <= num_upper))
    return jnp.where(keep, input, jnp.zeros((), input.dtype))


def _diag(diagonal):
    shape = diagonal.shape
    return jnp.diag(jnp.ravel(diagonal)).reshape(shape + shape)


def _diag_part(input):
    if input.ndim % 2 or input.shape[: input.ndim // 2] != input.shape[input.ndim // 2 :]:
        raise ValueError(
            f"Input must have even rank and its first half of dimensions must equal "
            f"its second half, got shape {list(input.shape)}"
        )
    half = input.shape[: input.ndim // 2]
    size = int(np.prod(half))
    return jnp.diagonal(input.reshape(size, size)).reshape(half)


def _nhwc_only(op: str, data_format: str) -> None:
    if data_format != "NHWC":
        raise NotImplementedError(
            f"tf.{op}: data_format={data_format!r} is not supported; use 'NHWC' "
            "(tf.transpose the input and output)"
        )


def _space_to_depth(input, block_size, data_format="NHWC"):
    _nhwc_only("space_to_depth", data_format)
    n, h, w, c = input.shape
    if h % block_size or w % block_size:
        raise ValueError(
            f"Dimension size must be evenly divisible by {block_size} but is {h} and {w}"
        )
    x = input.reshape(n, h // block_size, block_size, w // block_size, block_size, c)
    x = jnp.transpose(x, (0, 1, 3, 2, 4, 5))
    return x.reshape(n, h // block_size, w // block_size, block_size * block_size * c)


def _depth_to_space(input, block_size, data_format="NHWC"):
    _nhwc_only("depth_to_space", data_format)
    n, h, w, c = input.shape
    if c % (block_size * block_size):
        raise ValueError(
            f"Dimension size must be evenly divisible by {block_size * block_size} but is {c}"
        )
    depth = c // (block_size * block_size)
    x = input.reshape(n, h, w, block_size, block_size, depth)
    x = jnp.transpose(x, (0, 1, 3, 2, 4, 5))
    return x.reshape(n, h * block_size, w * block_size, depth)


_ARRAY_OPS = [
    # names, op type, implementation, TF's parameters, tensor parameters
    (
        "reshape",
        "Reshape",
        _reshape,
        "tensor, shape, name=None",
        "tensor",
    ),
    (
        "transpose",
        "Transpose",
        lambda a, perm=None, conjugate=False: (jnp.conj if conjugate else (lambda v: v))(
            jnp.transpose(a, perm)
        ),
        "a, perm=None, name='transpose', conjugate=False",
        "a",
    ),
    ("expand_dims", "ExpandDims", _expand_dims, "input, axis=None, name=None, dim=None", "input"),
    ("squeeze", "Squeeze", _squeeze, "input, axis=None, name=None, squeeze_dims=None", "input"),
    (
        "concat",
        "ConcatV2",
        lambda values, axis: jnp.concatenate(values, axis),
        "values, axis, name='concat'",
        "values",
    ),
    (
        "stack",
        "Pack",
        lambda values, axis=0: jnp.stack(values, axis),
        "values, axis=0, name='stack'",
        "values",
    ),
    (
        "unstack",
        "Unpack",
        lambda value, num=None, axis=0: [
            jnp.take(value, i, axis) for i in range(value.shape[axis])
        ],
        "value, num=None, axis=0, name='unstack'",
        "value",
    ),
    (
        "split",
        "SplitV",
        _split,
        "value, num_or_size_splits, axis=0, num=None, name='split'",
        "value",
    ),
    (
        "tile",
        "Tile",
        _tile,
        "input, multiples, name=None",
        "input",
    ),
    (
        "pad",
        "Pad",
        _pad,
        "tensor, paddings, mode='CONSTANT', name=None, constant_values=0",
        "tensor",
    ),
    (
        "gather",
        "GatherV2",
        _gather,
        "params, indices, validate_indices=None, name=None, axis=None, batch_dims=0",
        "params indices",
    ),
    (
        "gather_nd",
        "GatherNd",
        _gather_nd,
        "params, indices, name=None, batch_dims=0, bad_indices_policy=''",
        "params indices",
    ),
    ("slice", "Slice", _slice, "input_, begin, size, name=None", "input_"),
    (
        "strided_slice",
        "StridedSlice",
        _strided_slice,
        "input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, "
        "new_axis_mask=0, shrink_axis_mask=0, var=None, name=None",
        "input_",
    ),
    (
        "reverse",
        "ReverseV2",
        lambda tensor, axis: jnp.flip(tensor, _axes(axis)),
        "tensor, axis, name=None",
        "tensor",
    ),
    (
        "one_hot",
        "OneHot",
        _one_hot,
        "indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None",
        "indices",
    ),
    (
        "shape",
        "Shape",
        lambda input, out_type=None: jnp.asarray(input.shape, np_dtype(out_type or "int32")),
        "input, name=None, out_type=None",
        "input",
    ),
    (
        "size",
        "Size",
        lambda input, out_type=None: jnp.asarray(input.size, np_dtype(out_type or "int32")),
        "input, name=None, out_type=None",
        "input",
    ),
    ("rank", "Rank", lambda input: jnp.asarray(input.ndim, jnp.int32), "input, name=None", "input"),
    ("zeros", "Fill", _filled(0), "shape, dtype='float32', name=None, layout=None", ""),
    ("ones", "Fill", _filled(1), "shape, dtype='float32', name=None, layout=None", ""),
    ("zeros_like", "ZerosLike", _like(0), "tensor, dtype=None, name=None, optimize=True", "tensor"),
    ("ones_like", "OnesLike", _like(1), "tensor, dtype=None, name=None, optimize=True", "tensor"),
    (
        "fill",
        "Fill",
        lambda dims, value, layout=None: jnp.broadcast_to(value, tuple(dims)),
        "dims, value, name=None, layout=None",
        "value",
    ),
    ("range", "Range", _range, "start, limit=None, delta=1, dtype=None, name='range'", ""),
    (
        "eye",
        "Eye",
        _eye,
        "num_rows, num_columns=None, batch_shape=None, dtype='float32', name=None",
        "",
    ),
    ("stop_gradient", "StopGradient", lax.stop_gradient, "input, name=None", "input"),
    (
        "broadcast_to",
        "BroadcastTo",
        lambda input, shape: jnp.broadcast_to(input, tuple(shape)),
        "input, shape, name=None",
        "input",
    ),
    (
        "roll",
        "Roll",
        lambda input, shift, axis: jnp.roll(input, shift, axis),
        "input, shift, axis, name=None",
        "input",
    ),
    (
        "matrix_transpose",
        "Transpose",
        lambda a, conjugate=False: (jnp.conj if conjugate else (lambda v: v))(
            jnp.swapaxes(a, -1, -2)
        ),
        "a, name='matrix_transpose', conjugate=False",
        "a",
    ),
    (
        "matrix_band_part",
        "MatrixBandPart",
        _matrix_band_part,
        "input, num_lower, num_upper, name=None",
        "input",
    ),
    ("diag", "Diag", _diag, "diagonal, name=None", "diagonal"),
    ("diag_part", "DiagPart", _diag_part, "input, name=None", "input"),
    (
        "space_to_depth",
        "SpaceToDepth",
        _space_to_depth,
        "input, block_size, name=None, data_format='NHWC'",
        "input",
    ),
    (
        "depth_to_space",
        "DepthToSpace",
        _depth_to_space,
        "input, block_size, name=None, data_format='NHWC'",
        "input",
    ),
]

_DEFAULT_NAMES = {
    "zeros": "zeros",
    "ones": "ones",
    "zeros_like": "zeros_like",
    "ones_like": "ones_like",
    "shape": "Shape",
    "eye": "eye",
}

# TF's run-time checks (framework/runtime_checks.py): TF's CPU kernels raise.
_RUNTIME_CHECKS = {
    "gather": (_gather_in_range, _gather_v2_error),
    "gather_nd": (_gather_nd_in_range, _gather_nd_error),
}

_ALIASES = {
    "eye": ("eye", "linalg.eye"),
    "reverse": ("reverse", "reverse_v2"),
    "matrix_transpose": ("matrix_transpose", "linalg.matrix_transpose", "linalg.transpose"),
    "matrix_band_part": ("matrix_band_part", "linalg.band_part"),
    "diag": ("diag", "linalg.tensor_diag"),
    "diag_part": ("diag_part", "linalg.tensor_diag_part"),
    "space_to_depth": ("space_to_depth", "nn.space_to_depth"),
    "depth_to_space": ("depth_to_space", "nn.depth_to_space"),
}

for _name, _type, _impl, _params, _tensors in _ARRAY_OPS:
    define(
        _ALIASES.get(_name, _name),
        _type,
        _impl,
        params=_params,
        tensors=_tensors,
        lists="values" if _name in ("concat", "stack") else (),
        same_dtype=_tensors.split()[:1],
        default_name=_DEFAULT_NAMES.get(_name),
        runtime_check=_RUNTIME_CHECKS.get(_name),
    )

_GATHER_OP = FUNCTIONS["gather"]
_GATHER_ND_OP = FUNCTIONS["gather_nd"]


def _is_tensor(value: Any) -> bool:
    return isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    name: str | None = None,
    axis: Any = None,
    batch_dims: int = 0,
) -> ops.Tensor:
    """``tf.gather``: slices of ``params`` along ``axis`` at ``indices`` (TF's ``GatherV2``).

    .. math:: out[b..., i..., r...] = params[b..., indices[b..., i...], r...]

    with ``b`` the ``batch_dims`` leading dimensions shared by ``params`` and
    ``indices``, ``i`` the other dimensions of ``indices`` and ``r`` those of
    ``params`` after ``axis``.

    Args:
      params: the tensor (or variable) to gather from.
      indices: int32 or int64 indices into ``params.shape[axis]``.
      validate_indices: ignored (as TF).
      name: the op name (default ``"GatherV2"``).
      axis: the axis of ``params`` to gather along, negative from the end; ``None``
        (TF's default) is ``batch_dims``.
      batch_dims: the number of leading batch dimensions (default 0), negative
        from the end of ``indices``' rank.

    Returns:
      A tensor of ``params``'s dtype, of shape
      ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]``.

    Raises:
      ValueError: ``axis`` or ``batch_dims`` outside ``params``' or ``indices``' rank
        (TF's shape function's messages).
      TypeError: ``batch_dims`` is a tensor (TF takes an int).
      InvalidArgumentError: when run, an index outside ``[0, params.shape[axis])``,
        a ``batch_dims`` past ``axis``, or batch dimensions that differ.

    .. note:: TF's ``tf.gather`` drops ``batch_dims`` when ``axis`` is 0: the result
       is a plain gather along axis 0 (its gradient an ``IndexedSlices``). Only a
       plain axis-0 gather has an ``IndexedSlices`` gradient; other axes and
       ``batch_dims`` give a dense one, as TF's.
    """
    if _is_tensor(batch_dims):
        raise TypeError(f"Expected int for argument 'batch_dims' not {batch_dims!r}.")
    if axis is None:
        axis = batch_dims
    fixed = axis
    if _is_tensor(axis):
        from adapters.v1.framework import shape_values

        fixed = shape_values.static_value(ops.convert_to_tensor(axis))
    if fixed is not None and int(np.asarray(fixed)) == 0:
        batch_dims = 0
    return _GATHER_OP(params, indices, validate_indices, name, axis, batch_dims)


def gather_nd(
    params: Any,
    indices: Any,
    name: str | None = None,
    batch_dims: Any = 0,
    bad_indices_policy: str = "",
) -> ops.Tensor:
    """``tf.gather_nd``: slices of ``params`` at the index rows of ``indices``.

    .. math:: out[b..., i...] = params[b..., indices[b..., i..., :]]

    with ``b`` the ``batch_dims`` leading dimensions (TF's ``batch_gather_nd``:
    ``indices``' batch dimensions are flattened to ``params``'s batch size).

    Args:
      params: the tensor to gather from.
      indices: int32 or int64 index rows along the last dimension.
      name: the op name (default ``"GatherNd"``; with ``batch_dims``, the gather is
        ``BatchGatherND/GatherNd`` as TF names it).
      batch_dims: the number of leading batch dimensions (default 0): an int or a
        tensor the graph fixes.
      bad_indices_policy: ``""`` or ``"DEFAULT"`` (an out-of-range row raises, TF on
        CPU), ``"ERROR"`` (raises) or ``"IGNORE"`` (zeros).

    Returns:
      A tensor of ``params``'s dtype.

    Raises:
      ValueError: a negative ``batch_dims``, one not less than either rank, or index
        rows longer than ``params``' rank (TF's messages).
      TypeError: ``batch_dims`` is a tensor whose value the graph does not fix.
      InvalidArgumentError: when run, an index row outside ``params``
        (``indices[0] = [5] does not index into param shape [3], node name: GatherNd``).
    """
    if _is_tensor(batch_dims):
        from adapters.v1.framework import shape_values

        fixed = shape_values.static_value(ops.convert_to_tensor(batch_dims))
        if fixed is None:
            raise TypeError(f"Argument `batch_dims` must be an int; got {batch_dims}")
        batch_dims = int(fixed)
    if not batch_dims:
        return _GATHER_ND_OP(params, indices, name, 0, bad_indices_policy)
    with ops.name_scope(name, "BatchGatherND", [params, indices]):
        indices = ops.convert_to_tensor(indices, name="indices")
        params = ops.convert_to_tensor(params, name="params")
        shapes = (params._shape or (None,))[:batch_dims], indices._shape or (None,)
        ranks = len(shapes[1]), len(params._shape or ())
        known = all(d is not None for s in shapes for d in s)
        if known and 0 < batch_dims < min(ranks):
            # TF's reshape of the indices to params' batch size, refused at build time
            count = int(np.prod(shapes[0], dtype=np.int64))
            flat = (count, *shapes[1][batch_dims:])
            size, wanted = (int(np.prod(s, dtype=np.int64)) for s in (shapes[1], flat))
            if size != wanted:
                dims = ",".join(str(d) for d in flat)
                raise ValueError(
                    f"Cannot reshape a tensor with {size} elements to shape [{dims}] "
                    f"({wanted} elements)"
                )
        return _GATHER_ND_OP(params, indices, None, batch_dims, bad_indices_policy)


gather._op_def = _GATHER_OP._op_def
gather_nd._op_def = _GATHER_ND_OP._op_def
FUNCTIONS["gather"] = gather
FUNCTIONS["gather_nd"] = gather_nd


_split_v_op = FUNCTIONS["split"]
# TF's ``Split`` (a number of equal parts): the node ``tf.split`` records for an int;
# not a public name (TF's ``gen_array_ops.split`` is no namespace's).
_split_op = define(
    "_internal.split",
    "Split",
    _split_even,
    params="value, num_split, axis=0, name='split'",
    tensors="value",
)


def _num_split(num_or_size_splits: Any) -> int | None:
    """``num_or_size_splits`` as TF's ``Split`` count (an int, NumPy integer or known
    ``Dimension``), or None for sizes (``SplitV``)."""
    if isinstance(num_or_size_splits, tensor_shape.Dimension):
        return num_or_size_splits.value
    if isinstance(num_or_size_splits, (int, np.integer)):
        return int(num_or_size_splits)
    return None


@functools.wraps(_split_v_op)  # its name, signature, module and ``_op_def``
def split(
    value: Any,
    num_or_size_splits: Any,
    axis: Any = 0,
    num: int | None = None,
    name: str = "split",
) -> list[ops.Tensor]:
    """``tf.split``: ``value`` cut along ``axis`` into equal parts or parts of given sizes.

    Args:
      value: the tensor to split.
      num_or_size_splits: a number of equal parts (an int: TF's ``Split`` node), or
        the parts' sizes (a list or 1-D tensor, one of them ``-1`` for the rest: TF's
        ``SplitV`` node).
      axis: the dimension to split (default 0); may be computed in the graph.
      num: the number of outputs when the sizes' length is not static (default None);
        ignored for a number of parts, as TF.
      name: the op name (default ``"split"``).

    Returns:
      The list of parts.

    Raises:
      ValueError: the dimension is not divisible by the number of parts (TF's
        message), or the sizes do not add up.

    .. note:: As TF, the op type follows the argument: ``Split`` for an int (a NumPy
       integer or a ``Dimension`` too), ``SplitV`` for sizes, so a GraphDef names
       TF's op types.
    """
    count = _num_split(num_or_size_splits)
    if count is not None:
        return _split_op(value, count, axis, name)
    return _split_v_op(value, num_or_size_splits, axis, num, name)


FUNCTIONS["split"] = split


def identity_n(input: Any, name: str | None = None) -> list[ops.Tensor]:  # noqa: A002
    """``tf.identity_n``: the values of a list of tensors, as one ``IdentityN`` node."""
    values = [ops.convert_to_tensor(x) for x in input]
    op = ops.get_default_graph().create_op(
        "IdentityN",
        name or "IdentityN",
        inputs=values,
        compute=lambda ctx, *xs: xs,
        output_specs=[(v._shape, v.dtype) for v in values],
    )
    return list(op.outputs)


# -- more array ops of TF's table: masks, scatters, sequences, batch/space moves ----------
def _sequence_mask(lengths, maxlen=None, dtype="bool", *, sizes=None):
    """TF's ``range(maxlen) < cast(lengths, maxlen's dtype)[..., None]``: a given
    ``maxlen`` (a Python int: int32, a float: float32) truncates float lengths; without
    one, ``maxlen = max(lengths)`` in the lengths' dtype. ``sizes``: ``(the mask's
    last dimension,)`` for a ``maxlen`` computed from the step's values (traced, in
    its own dtype; computed before the step: ``framework/data_sizes.py``)."""
    if sizes is not None:
        kind = maxlen.dtype
        mask = jnp.arange(sizes[0], dtype=kind) < lengths.astype(kind)[..., None]
        return mask.astype(np_dtype(dtype))
    if maxlen is None:
        if isinstance(lengths, jax.core.Tracer):
            raise NotImplementedError(
                "tf.sequence_mask: maxlen=None needs max(lengths), a data-dependent shape; "
                "pass maxlen or constant lengths"
            )
        # constant lengths (the public function): range(0, max) in their dtype
        top = np.max(np.asarray(lengths), initial=0)
        return (jnp.arange(int(np.ceil(top)), dtype=lengths.dtype) < lengths[..., None]).astype(
            np_dtype(dtype)
        )
    kind = np.float32 if isinstance(maxlen, float) else np.int32
    size = int(np.ceil(maxlen)) if isinstance(maxlen, float) else int(maxlen)
    mask = jnp.arange(size, dtype=kind) < lengths.astype(kind)[..., None]
    return mask.astype(np_dtype(dtype))


def _mask_length(maxlen, attrs):
    """The sizes of ``tf.sequence_mask``: the length of ``range(maxlen)``."""
    top = jnp.ceil(maxlen) if jnp.issubdtype(maxlen.dtype, jnp.floating) else maxlen
    return (jnp.maximum(top, 0),)


def _repeat(input, repeats, axis=None):
    if axis is None:
        input, axis = jnp.ravel(input), 0
    counts = np.asarray(repeats).reshape(-1)
    if counts.size == 1:
        return jnp.repeat(input, int(counts[0]), axis=axis)
    return jnp.repeat(input, counts, axis=axis, total_repeat_length=int(counts.sum()))


def _reverse_sequence(
    input, seq_lengths, seq_axis=None, batch_axis=None, seq_dim=None, batch_dim=None
):
    seq_axis = _one_of(seq_axis, seq_dim, "seq_axis seq_dim")
    batch_axis = _one_of(batch_axis, batch_dim, "batch_axis batch_dim")
    batch_axis = 0 if batch_axis is None else batch_axis
    rank = input.ndim
    seq_axis, batch_axis = seq_axis % rank, batch_axis % rank
    steps = input.shape[seq_axis]
    position = jnp.arange(steps, dtype=seq_lengths.dtype)
    lengths = seq_lengths[:, None]
    source = jnp.where(position < lengths, lengths - 1 - position, position)  # [batch, steps]
    shape = [1] * rank
    shape[batch_axis], shape[seq_axis] = input.shape[batch_axis], steps
    if batch_axis > seq_axis:
        source = source.T
    return jnp.take_along_axis(input, source.reshape(shape).astype(np.int32), axis=seq_axis)


def _boolean_mask(tensor, mask, axis=None, *, sizes=None):
    """``sizes``: ``(count of Trues,)`` for a mask computed in the step (traced), whose
    count the session computed before it (``framework/data_sizes.py``); None for a mask
    known when the step is traced (NumPy)."""
    axis = 0 if axis is None else axis % tensor.ndim
    if sizes is not None:
        # TF's composite: the tensor's dimensions under the mask merged, gathered at the
        # mask's true positions (a mask fed shorter than them selects among the first;
        # a position past them is the gather's run-time error, ``_mask_in_range``).
        merged = _mask_merged(tensor, mask, axis)
        (count,) = sizes
        (rows,) = jnp.nonzero(jnp.reshape(mask, (-1,)), size=count)
        return jnp.take(merged, rows, axis=axis, mode="clip")
    mask = np.asarray(mask, bool)
    ndims = mask.ndim
    if ndims == 0:
        raise ValueError("mask cannot be scalar.")
    if tensor.shape[axis : axis + ndims] != mask.shape:
        raise ValueError(
            f"Shapes {tensor.shape[axis : axis + ndims]} and {mask.shape} are incompatible"
        )
    merged = tensor.reshape(tensor.shape[:axis] + (-1,) + tensor.shape[axis + ndims :])
    return jnp.take(merged, np.flatnonzero(mask), axis=axis)


def _mask_merged(tensor, mask, axis):
    """``tensor`` with the ``mask.ndim`` dimensions from ``axis`` merged into one."""
    ndims = jnp.ndim(mask)
    return tensor.reshape(tensor.shape[:axis] + (-1,) + tensor.shape[axis + ndims :])


def _mask_in_range(tensor, mask, axis=None):
    """TF's gather check of a computed mask: its true positions index the merged
    dimension of ``tensor`` (``indices[k] = p is not in [0, n)``)."""
    axis = 0 if axis is None else axis % tensor.ndim
    limit = _mask_merged(tensor, mask, axis).shape[axis]
    flat = jnp.reshape(mask, (-1,)) != 0
    if flat.shape[0] <= limit:
        return jnp.asarray(True), (jnp.zeros(2, np.int64), jnp.asarray(limit, np.int64))
    beyond = flat[limit:]
    position = (limit + jnp.argmax(beyond)).astype(np.int64)  # the first true past the end
    index = jnp.count_nonzero(flat[:limit]).astype(np.int64)  # its place among the trues
    return ~jnp.any(beyond), (jnp.stack([index, position]), jnp.asarray(limit, np.int64))


def _mask_error(op: ops.Operation, where: np.ndarray, limit: np.ndarray) -> Any:
    """TF's message of its gather: ``indices[1] = 4 is not in [0, 3)``."""
    index, position = (int(v) for v in where)
    return errors.InvalidArgumentError(
        None, op, f"indices[{index}] = {position} is not in [0, {int(limit)})"
    )


def _boolean_mask_check(bound: dict) -> None:
    """TF's graph-construction errors of ``tf.boolean_mask`` (static shapes)."""
    tensor, mask, axis = bound["tensor"], bound["mask"], bound.get("axis")
    if isinstance(mask, ops.Tensor):
        mask_shape = mask._shape
    else:
        mask_shape = np.shape(mask)
    if mask_shape is None:
        raise ValueError(
            "Number of mask dimensions must be specified, even if some dimensions are "
            "None.  E.g. shape=[None] is ok, but shape=None is not."
        )
    if not mask_shape:
        raise ValueError("mask cannot be scalar.")
    shape = tensor._shape
    if shape is None or not isinstance(axis, (int, type(None))):
        return
    start = 0 if axis is None else axis % max(len(shape), 1)
    under = tuple(shape[start : start + len(mask_shape)])
    fits = len(under) == len(mask_shape) and all(
        a is None or b is None or a == b for a, b in zip(under, mask_shape, strict=True)
    )
    if not fits:
        raise ValueError(
            f"Shapes {_shape_tuple(under)} and {_shape_tuple(mask_shape)} are incompatible"
        )


def _shape_tuple(dims: Any) -> str:
    """A shape as TF1's ``TensorShape`` prints it: ``(?, 3)``, ``(2,)``."""
    text = ", ".join("?" if d is None else str(d) for d in dims)
    return f"({text},)" if len(dims) == 1 else f"({text})"


def _count_true(mask, attrs):
    """The sizes of ``tf.boolean_mask``: the count of nonzeros of its mask."""
    return (jnp.count_nonzero(mask),)


def _unique(x, out_idx="int32", counts=False, *, sizes=None):
    """TF's ``Unique``/``UniqueWithCounts``: the distinct values in order of first
    occurrence, each element's index among them (and their counts). ``sizes``:
    ``(number of distinct values,)`` for an ``x`` computed in the step (computed
    before it, ``framework/data_sizes.py``); None for a constant ``x`` (NumPy)."""
    if sizes is not None:
        return _unique_traced(x, sizes[0], np_dtype(out_idx), counts)
    x = np.asarray(x)
    values, first, idx, count = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True
    )
    order = np.argsort(first, kind="stable")  # TF: in order of first occurrence
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    y = values[order]
    out = (y.astype(x.dtype), rank[idx.reshape(-1)].astype(np_dtype(out_idx)))
    if counts:
        out += (count[order].astype(np_dtype(out_idx)),)
    return out


def _unique_traced(x, count, index_dtype, counts):
    """``_unique`` of a traced ``x`` with ``count`` distinct values (a static size)."""
    if jnp.ndim(x) != 1:
        raise errors.InvalidArgumentError(None, None, "unique expects a 1D vector.")
    size = x.shape[0]
    if size == 0 or count == 0:
        empty = jnp.zeros((0,), index_dtype)
        out = (jnp.zeros((0,), x.dtype), jnp.zeros((size,), index_dtype))
        return out + ((empty,) if counts else ())
    order = jnp.argsort(x, stable=True)  # equal values: first occurrence first
    ordered = x[order]
    starts = jnp.concatenate([jnp.ones(1, bool), ordered[1:] != ordered[:-1]])
    group = jnp.cumsum(starts) - 1  # each sorted element's group (by value)
    first = order[jnp.nonzero(starts, size=count)[0]]  # each group's first position
    rank = jnp.argsort(jnp.argsort(first))  # TF's order: by first occurrence
    y = x[jnp.sort(first)]
    idx = jnp.zeros(size, index_dtype).at[order].set(rank[group].astype(index_dtype))
    if not counts:
        return y, idx
    per_group = jnp.zeros(count, index_dtype).at[group].add(1)
    return y, idx, jnp.zeros(count, index_dtype).at[rank].set(per_group)


def _count_distinct(x, attrs):
    """The sizes of ``tf.unique``: the number of distinct values of ``x``."""
    ordered = jnp.sort(jnp.reshape(x, (-1,)))
    if ordered.shape[0] == 0:
        return (jnp.zeros((), np.int32),)
    return (1 + jnp.count_nonzero(ordered[1:] != ordered[:-1]),)


def _scatter_index(indices):
    depth = indices.shape[-1]
    return tuple(jnp.moveaxis(indices, -1, 0)[i] for i in range(depth))


def _scatter_nd(indices, updates, shape, bad_indices_policy=""):
    out = jnp.zeros(tuple(shape), updates.dtype)
    return out.at[_scatter_index(indices)].add(updates, mode="drop")


def _tensor_scatter(method: str):
    def impl(tensor, indices, updates, bad_indices_policy=""):
        at = jnp.asarray(tensor).at[_scatter_index(indices)]
        if method == "sub":
            return at.add(-updates, mode="drop")
        return getattr(at, method)(updates, mode="drop")

    return impl


def _scatter_in_range(indices: Any, shape: tuple[int, ...]) -> tuple[Any, tuple[Any, ...]]:
    """TF's CPU kernels refuse an index row outside ``shape``'s leading dimensions."""
    limits = jnp.asarray(shape[: indices.shape[-1]], indices.dtype)
    ok = jnp.all((indices >= 0) & (indices < limits))
    return ok, (indices, jnp.asarray(shape, np.int64))


def _scatter_error(op: ops.Operation, indices: np.ndarray, shape: np.ndarray) -> Any:
    """TF's message: ``indices[1] = [0, 5] does not index into shape [3,3]``."""
    from jtrain import errors

    rows = indices.reshape(-1, indices.shape[-1])
    limits = shape[: rows.shape[-1]]
    bad = np.flatnonzero(np.any((rows < 0) | (rows >= limits), axis=-1))
    i = int(bad[0]) if bad.size else 0
    row = ", ".join(str(int(v)) for v in rows[i])
    dims = ",".join(str(int(d)) for d in shape)
    return errors.InvalidArgumentError(
        None, op, f"indices[{i}] = [{row}] does not index into shape [{dims}]"
    )


_SCATTER_ND_CHECK = (
    lambda indices, updates, shape, bad_indices_policy="": _scatter_in_range(indices, tuple(shape)),
    _scatter_error,
)
_TENSOR_SCATTER_CHECK = (
    lambda tensor, indices, updates, bad_indices_policy="": _scatter_in_range(
        indices, tuple(jnp.shape(tensor))
    ),
    _scatter_error,
)


def _batch_gather_flat(params: Any, indices: Any) -> tuple[Any, Any, int]:
    """TF's ``batch_gather``: ``indices`` offset by their batch's start into the flattened
    ``params`` (an index past its row reads the next batch's, as TF's)."""
    batch = indices.ndim - 1
    if params.shape[:batch] != indices.shape[:batch]:
        raise OpValueError(
            f"batch_gather: params {params.shape} and indices {indices.shape} must share "
            f"their first {batch} dimensions"
        )
    rows = params.shape[batch]
    count = int(np.prod(params.shape[:batch], dtype=np.int64))
    offsets = (jnp.arange(count, dtype=indices.dtype) * rows).reshape(params.shape[:batch] + (1,))
    flat = (indices + offsets).reshape(-1)
    table = params.reshape((count * rows,) + params.shape[batch + 1 :])
    return table, flat, count * rows


def _batch_gather(params, indices):
    table, flat, _ = _batch_gather_flat(params, indices)
    out = jnp.take(table, flat, axis=0, mode="fill", fill_value=0)
    return out.reshape(indices.shape + params.shape[indices.ndim :])


def _batch_gather_in_range(params, indices):
    _, flat, limit = _batch_gather_flat(params, indices)
    ok = jnp.all((flat >= 0) & (flat < limit))
    return ok, (flat, jnp.asarray(limit, np.int64))


def _searchsorted(sorted_sequence, values, side="left", out_type="int32"):
    if side not in ("left", "right"):
        raise ValueError(f"side must be either 'right' or 'left'.  Saw: {side}.")
    lead = sorted_sequence.shape[:-1]
    seqs = sorted_sequence.reshape((-1, sorted_sequence.shape[-1]))
    vals = values.reshape((seqs.shape[0], -1))
    out = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(seqs, vals)
    return out.reshape(lead + values.shape[-1:]).astype(np_dtype(out_type))


def _matrix_diag(diagonal, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    k = _single_diagonal("matrix_diag", k)
    n = diagonal.shape[-1]
    rows = n + abs(k) if num_rows == -1 else num_rows  # TF: square when neither is given
    cols = n + abs(k) if num_cols == -1 else num_cols
    if num_rows == -1 and num_cols != -1:
        rows = cols - k
    if num_cols == -1 and num_rows != -1:
        cols = rows + k
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    on = (j - i) == k
    index = np.clip(np.minimum(i, j), 0, n - 1) * np.ones_like(j)
    picked = jnp.take(diagonal, index.reshape(-1), axis=-1).reshape(diagonal.shape[:-1] + on.shape)
    return jnp.where(on, picked, jnp.asarray(padding_value, diagonal.dtype))


def _matrix_diag_part(input, k=0, padding_value=0, align="RIGHT_LEFT"):
    k = _single_diagonal("matrix_diag_part", k)
    return jnp.diagonal(input, offset=k, axis1=-2, axis2=-1)


def _matrix_set_diag(input, diagonal, k=0, align="RIGHT_LEFT"):
    k = _single_diagonal("matrix_set_diag", k)
    rows, cols = input.shape[-2:]
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    n = diagonal.shape[-1]
    index = np.clip(np.minimum(i, j), 0, n - 1) * np.ones_like(j)
    picked = jnp.take(diagonal, index.reshape(-1), axis=-1).reshape(
        diagonal.shape[:-1] + (rows, cols)
    )
    return jnp.where((j - i) == k, picked, input)


def _single_diagonal(op: str, k: Any) -> int:
    ks = np.asarray(k).reshape(-1)
    if ks.size == 2 and ks[0] == ks[1]:
        return int(ks[0])
    if ks.size != 1:
        raise NotImplementedError(
            f"tf.{op}: a band of diagonals (k=[low, high]) is not supported; one diagonal "
            "(an int k) is"
        )
    return int(ks[0])


def _space_to_batch_nd(input, block_shape, paddings):
    block = [int(b) for b in np.asarray(block_shape).reshape(-1)]
    m = len(block)
    pads = [tuple(int(p) for p in row) for row in np.asarray(paddings).reshape(m, 2)]
    x = jnp.pad(input, [(0, 0), *pads] + [(0, 0)] * (input.ndim - 1 - m))
    batch, spatial, rest = x.shape[0], x.shape[1 : 1 + m], x.shape[1 + m :]
    for size, b in zip(spatial, block, strict=True):
        if size % b:
            raise ValueError(f"padded spatial dimension {size} is not divisible by block size {b}")
    split = [batch]
    for size, b in zip(spatial, block, strict=True):
        split += [size // b, b]
    x = x.reshape(split + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, x.ndim))
    x = jnp.transpose(x, perm)
    inner = [s // b for s, b in zip(spatial, block, strict=True)]
    return x.reshape([batch * int(np.prod(block))] + inner + list(rest))


def _batch_to_space_nd(input, block_shape, crops):
    block = [int(b) for b in np.asarray(block_shape).reshape(-1)]
    m = len(block)
    crop = [tuple(int(c) for c in row) for row in np.asarray(crops).reshape(m, 2)]
    prod = int(np.prod(block))
    if input.shape[0] % prod:
        raise ValueError(
            f"Input batch dimension {input.shape[0]} is not divisible by product of block "
            f"sizes {prod}"
        )
    batch = input.shape[0] // prod
    spatial, rest = input.shape[1 : 1 + m], input.shape[1 + m :]
    x = input.reshape(block + [batch] + list(spatial) + list(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, x.ndim))
    x = jnp.transpose(x, perm)
    x = x.reshape([batch] + [s * b for s, b in zip(spatial, block, strict=True)] + list(rest))
    index = [slice(None)] + [slice(lo, x.shape[1 + i] - hi) for i, (lo, hi) in enumerate(crop)]
    return x[tuple(index)]


def _block(block_size: Any, block_shape: Any) -> list[int]:
    size = _one_of(block_size, block_shape, "block_size block_shape")
    if size is None:
        raise ValueError("Must specify either 'block_size' or 'block_shape'.")
    return [int(size)] * 2 if np.ndim(size) == 0 else [int(s) for s in size]


def _saturate_cast(value, dtype):
    """TF 2.21's ``saturate_cast``: always ``clip_by_value`` to the target's range as
    TF computes it in the input's dtype (a bound the input cannot hold exactly is
    nudged toward zero: float32 to int32 clamps to 2147483520, +-inf to float32's
    finite range), then ``tf.cast`` (NaN to int32 gives its lowest value, as TF's
    cast). A complex input casts its real part to a real target; complex to complex
    is a plain cast."""
    from adapters.v1.ops.math_ops import _cast

    target = np_dtype(dtype)
    source = np.dtype(value.dtype)
    if source.kind == "c":
        if target.kind == "c":
            return _cast(value, target)
        value, source = jnp.real(value), np.dtype(jnp.real(value).dtype)
    out = (
        np.dtype(np.float32 if target == np.complex64 else np.float64)
        if target.kind == "c"
        else target
    )
    if target.kind == "b" or source.kind == "b":
        raise OpTypeError(
            f"Cannot find minimum value of <dtype: '{target.name}'> with type <dtype: "
            f"'{target.name}'>."
        )
    in_info = jnp.iinfo(source) if source.kind in "iu" else jnp.finfo(source)
    out_info = jnp.iinfo(out) if out.kind in "iu" else jnp.finfo(out)
    try:
        promoted: Any = np.promote_types(source, out)
    except TypeError:  # bfloat16 (TF: "fall back to just floats")
        promoted = float
    # TF's arithmetic, numpy's conversions included
    low = source.type(np.maximum(in_info.min, out_info.min))
    pair = np.array([low, out_info.min], dtype=promoted)
    if pair[0] < pair[1]:
        low = np.nextafter(low, source.type(0), dtype=source)
    with np.errstate(invalid="ignore"):  # int64's max as a float overflows, as in TF
        high = source.type(np.minimum(float(in_info.max), float(out_info.max)))
    pair = np.array([high, out_info.max], dtype=promoted)
    if pair[0] > pair[1]:
        high = np.nextafter(high, source.type(0), dtype=source)
    # TF's ClipByValue: max(min(x, high), low) (int64 to uint64 gives 0: high overflowed)
    clipped = jnp.maximum(jnp.minimum(value, jnp.asarray(high, source)), jnp.asarray(low, source))
    return _cast(clipped, target)


_MORE_ARRAY_OPS = [
    # names, op type, implementation, TF's parameters, tensor parameters, default name
    (
        "sequence_mask",
        "SequenceMask",
        _sequence_mask,
        "lengths, maxlen=None, dtype='bool', name=None",
        "lengths",
        "SequenceMask",
    ),
    (
        "repeat",
        "Repeat",
        _repeat,
        "input, repeats, axis=None, name=None",
        "input",
        "Repeat",
    ),
    (
        "reverse_sequence",
        "ReverseSequence",
        _reverse_sequence,
        "input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None, "
        "batch_dim=None",
        "input seq_lengths",
        "ReverseSequence",
    ),
    (
        "boolean_mask",
        "BooleanMask",
        _boolean_mask,
        "tensor, mask, name='boolean_mask', axis=None",
        "tensor",
        "boolean_mask",
    ),
    (
        "scatter_nd",
        "ScatterNd",
        _scatter_nd,
        "indices, updates, shape, bad_indices_policy='', name=None",
        "indices updates",
        "ScatterNd",
    ),
    (
        ("tensor_scatter_nd_update", "tensor_scatter_update"),
        "TensorScatterUpdate",
        _tensor_scatter("set"),
        "tensor, indices, updates, name=None",
        "tensor indices updates",
        "TensorScatterUpdate",
    ),
    *[
        (
            (f"tensor_scatter_nd_{m}", f"tensor_scatter_{m}")
            if m in ("add", "sub")
            else f"tensor_scatter_nd_{m}",
            f"TensorScatter{m.capitalize()}",
            _tensor_scatter(m),
            "tensor, indices, updates, bad_indices_policy='', name=None",
            "tensor indices updates",
            f"TensorScatter{m.capitalize()}",
        )
        for m in ("add", "sub", "min", "max")
    ],
    (
        "batch_gather",
        "BatchGather",
        _batch_gather,
        "params, indices, name=None",
        "params indices",
        "BatchGather",
    ),
    (
        "searchsorted",
        "LowerBound",
        _searchsorted,
        "sorted_sequence, values, side='left', out_type='int32', name=None",
        "sorted_sequence values",
        "LowerBound",
    ),
    (
        "shape_n",
        "ShapeN",
        lambda input, out_type="int32": [jnp.asarray(x.shape, np_dtype(out_type)) for x in input],
        "input, out_type='int32', name=None",
        "input",
        "ShapeN",
    ),
    (
        "parallel_stack",
        "ParallelConcat",
        lambda values: jnp.stack(values, 0),
        "values, name='parallel_stack'",
        "values",
        "parallel_stack",
    ),
    (
        "saturate_cast",
        "Cast",
        _saturate_cast,
        "value, dtype, name=None",
        "value",
        "saturate_cast",
    ),
    (
        ("matrix_diag", "linalg.diag"),
        "MatrixDiagV3",
        _matrix_diag,
        "diagonal, name='diag', k=0, num_rows=-1, num_cols=-1, padding_value=0, align='RIGHT_LEFT'",
        "diagonal",
        "diag",
    ),
    (
        ("matrix_diag_part", "linalg.diag_part"),
        "MatrixDiagPartV3",
        _matrix_diag_part,
        "input, name='diag_part', k=0, padding_value=0, align='RIGHT_LEFT'",
        "input",
        "diag_part",
    ),
    (
        ("matrix_set_diag", "linalg.set_diag"),
        "MatrixSetDiagV3",
        _matrix_set_diag,
        "input, diagonal, name='set_diag', k=0, align='RIGHT_LEFT'",
        "input diagonal",
        "set_diag",
    ),
    (
        "space_to_batch_nd",
        "SpaceToBatchND",
        _space_to_batch_nd,
        "input, block_shape, paddings, name=None",
        "input",
        "SpaceToBatchND",
    ),
    (
        "batch_to_space_nd",
        "BatchToSpaceND",
        _batch_to_space_nd,
        "input, block_shape, crops, name=None",
        "input",
        "BatchToSpaceND",
    ),
    (
        ("space_to_batch", "nn.space_to_batch"),
        "SpaceToBatchND",
        lambda input, paddings, block_size=None, block_shape=None: _space_to_batch_nd(
            input, _block(block_size, block_shape), paddings
        ),
        "input, paddings, block_size=None, name=None, block_shape=None",
        "input",
        "SpaceToBatchND",
    ),
    (
        "batch_to_space",
        "BatchToSpaceND",
        lambda input, crops, block_size, block_shape=None: _batch_to_space_nd(
            input, _block(block_size, block_shape), crops
        ),
        "input, crops, block_size, name=None, block_shape=None",
        "input",
        "BatchToSpaceND",
    ),
]


def _unravel_index(indices, dims):
    strides = jnp.concatenate(
        [jnp.cumprod(dims[::-1])[::-1][1:], jnp.ones((1,), dims.dtype)]
    ).reshape((-1,) + (1,) * indices.ndim)
    return (indices[None] // strides) % dims.reshape((-1,) + (1,) * indices.ndim)


def _histogram_fixed_width(values, value_range, nbins=100, dtype="int32"):
    """TF's kernel: bin ``min((max(v, lo) - lo) / step, nbins - 1)`` in float64."""
    lo, hi = value_range[0], value_range[1]
    step = (hi - lo).astype(np.float64) / nbins
    shifted = (jnp.maximum(values, lo) - lo).astype(np.float64)
    index = jnp.minimum(shifted / step, float(nbins - 1)).astype(np.int32)
    counts = jnp.zeros(nbins, np_dtype(dtype)).at[jnp.ravel(index)].add(1)
    return counts


def _histogram_fixed_width_bins(values, value_range, nbins=100, dtype="int32"):
    """TF's Python: ``clip(floor(nbins * (v - lo) / (hi - lo)), 0, nbins - 1)`` in v's dtype."""
    scaled = (values - value_range[0]) / (value_range[1] - value_range[0])
    index = jnp.floor(jnp.asarray(nbins, values.dtype) * scaled)
    index = jnp.clip(index, jnp.asarray(0, values.dtype), jnp.asarray(nbins - 1, values.dtype))
    return index.astype(np_dtype(dtype))


def _dynamic_stitch(indices, data):
    """``merged[indices[m][i]] = data[m][i]`` (a later ``(m, i)`` wins a repeated index);
    ``indices`` are constants (the output's length is their maximum + 1)."""
    flat_indices = [np.asarray(i, np.int64).reshape(-1) for i in indices]
    if len(flat_indices) != len(data):
        raise OpValueError(
            f"dynamic_stitch: {len(flat_indices)} indices and {len(data)} data tensors"
        )
    rest = data[0].shape[np.ndim(indices[0]) :]
    pieces = [d.reshape((i.size,) + rest) for i, d in zip(flat_indices, data, strict=True)]
    rows = int(max((i.max() for i in flat_indices if i.size), default=-1)) + 1
    total = sum(i.size for i in flat_indices)
    winner = np.full(rows, total, np.int64)  # row -> position in the data (none: zeros)
    offset = 0
    for i in flat_indices:
        winner[i] = offset + np.arange(i.size)
        offset += i.size
    return _stitch(tuple(pieces), winner, tuple(flat_indices))


@partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def _stitch(pieces, winner, flat_indices):
    return jnp.take(jnp.concatenate(pieces, axis=0), winner, axis=0, mode="fill", fill_value=0)


def _stitch_fwd(pieces, winner, flat_indices):
    return _stitch(pieces, winner, flat_indices), None


def _stitch_bwd(winner, flat_indices, _, grad):
    # TF's gradient: every data[m] gets grad[indices[m]], overwritten entries included.
    return (tuple(grad[i] for i in flat_indices),)


_stitch.defvjp(_stitch_fwd, _stitch_bwd)


_MORE_ARRAY_OPS += [
    (
        "dynamic_stitch",
        "DynamicStitch",
        _dynamic_stitch,
        "indices, data, name=None",
        "data",
        "DynamicStitch",
    ),
    (
        "unravel_index",
        "UnravelIndex",
        _unravel_index,
        "indices, dims, name=None",
        "indices dims",
        "UnravelIndex",
    ),
    (
        "histogram_fixed_width",
        "HistogramFixedWidth",
        _histogram_fixed_width,
        "values, value_range, nbins=100, dtype='int32', name=None",
        "values value_range",
        "HistogramFixedWidth",
    ),
    (
        "histogram_fixed_width_bins",
        "HistogramFixedWidthBins",
        _histogram_fixed_width_bins,
        "values, value_range, nbins=100, dtype='int32', name=None",
        "values value_range",
        "histogram_fixed_width_bins",
    ),
    (
        "bitcast",
        "Bitcast",
        lambda input, type: lax.bitcast_convert_type(input, np_dtype(type)),
        "input, type, name=None",
        "input",
        "Bitcast",
    ),
    (
        "to_bfloat16",
        "Cast",
        lambda x: x.astype(np_dtype("bfloat16")),
        "x, name='ToBFloat16'",
        "x",
        "ToBFloat16",
    ),
    (
        "guarantee_const",
        "GuaranteeConst",
        lambda input: input,
        "input, name=None",
        "input",
        "GuaranteeConst",
    ),
]

# Parameters of one dtype (TF's ``T``); the others (indices, lengths) are free.
_SAME_DTYPE = {
    "reverse_sequence": "input",
    "scatter_nd": "updates",
    "batch_gather": "params",
    "matrix_set_diag": "input diagonal",
    "tensor_scatter_nd_update": "tensor updates",
    "tensor_scatter_nd_add": "tensor updates",
    "tensor_scatter_nd_sub": "tensor updates",
    "tensor_scatter_nd_min": "tensor updates",
    "tensor_scatter_nd_max": "tensor updates",
    "shape_n": "",
    "histogram_fixed_width": "values value_range",
    "histogram_fixed_width_bins": "values value_range",
}

_RANGE_OP = FUNCTIONS["range"]
# TF's order of range dtypes: the widest of start, limit and delta wins.
_RANGE_DTYPES = ("int32", "int64", "float16", "bfloat16", "float32", "float64")


@functools.wraps(_RANGE_OP)  # its name, signature, module and ``_op_def``
def _range_as_tf(
    start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: Any = "range"
):
    """``tf.range``: TF's conversions and dtype, the sequence ``start, start + delta, ...``
    below ``limit``.

    As TF's: Python values become ``start``/``limit``/``delta`` constants of ``dtype``
    (Python ints int32, floats float32 when none is given), the result's dtype is the
    widest of the three (int32 < int64 < float16 < bfloat16 < float32 < float64) or
    ``dtype``, and each is cast to it.
    """
    if limit is None:
        start, limit = 0, start
    with ops.name_scope(name, "Range", [start, limit, delta]) as scope:
        args = [
            v if isinstance(v, ops.Tensor) else ops.convert_to_tensor(v, dtype=dtype, name=n)
            for v, n in ((start, "start"), (limit, "limit"), (delta, "delta"))
        ]
        if dtype is None:
            names = [a.dtype.base_dtype.name for a in args]
            if any(n not in _RANGE_DTYPES for n in names):
                raise TypeError(
                    f"tf.range: start, limit and delta must be of {', '.join(_RANGE_DTYPES)}, "
                    f"got {', '.join(names)}"
                )
            dtype = max(names, key=_RANGE_DTYPES.index)
        cast = FUNCTIONS["cast"]
        args = [cast(a, dtype) for a in args]
        return _RANGE_OP(*args, dtype=dtype, name=scope)


FUNCTIONS["range"] = _range_as_tf


def _zeros_ones_as_tf(table_fn: Any, value: int) -> Any:
    """``tf.zeros``/``tf.ones`` (``value`` 0 or 1) as TF's Python function builds them.

    In graph mode TF records a ``Const`` named after the scope when ``shape`` is a known
    list of dimensions (not a tensor, not a bare int) of fewer than 1000 elements;
    otherwise ``Fill`` of the shape as a tensor (a ``shape_as_tensor`` constant when it
    is fully known, else the shape converted to an int32 tensor, e.g. a ``packed`` stack
    of mixed ints and tensors) and a scalar ``Const`` of the value. A scalar shape
    tensor is reshaped to ``[-1]``.
    """
    default_name = table_fn.__name__

    @functools.wraps(table_fn)  # its name, signature, module and ``_op_def``
    def zeros_or_ones(
        shape: Any, dtype: Any = dtypes.float32, name: Any = None, layout: Any = None
    ) -> Any:
        from adapters.v1.ops.constant_op import constant

        if layout is not None:
            return table_fn(shape, dtype=dtype, name=name, layout=layout)
        dtype = dtypes.as_dtype(dtype).base_dtype
        fill_value: Any = bool(value) if dtype == dtypes.bool else value
        if dtype == dtypes.string:
            fill_value = ""  # TF's zeros of strings; ones of strings fails in ``constant``
        with ops.name_scope(name, default_name, [shape]) as scope:
            if not _is_tensor(shape):
                try:
                    static = tensor_shape.TensorShape(shape)
                    small = static.is_fully_defined() and static.num_elements() < 1000
                    # A bare int shape is no list of dimensions to TF's ``constant``: Fill.
                    if small and hasattr(shape, "__len__"):
                        dims = static.as_list()
                        return constant(np.full(dims, fill_value), dtype=dtype, name=scope)
                    if not static.is_fully_defined():
                        raise ValueError(f"Cannot convert a partially known TensorShape {static}")
                    # int64 only when a dimension needs it, as TF's shape conversion.
                    wide = any(d >= 2**31 for d in static.as_list())
                    shape = constant(
                        static.as_list(),
                        dtypes.int64 if wide else dtypes.int32,
                        name="shape_as_tensor",
                    )
                except (TypeError, ValueError):
                    shape = ops.convert_to_tensor(shape, dtype=dtypes.int32)
            if shape.shape.ndims == 0:
                shape = FUNCTIONS["reshape"](shape, [-1])
            try:
                return FUNCTIONS["fill"](shape, constant(fill_value, dtype=dtype), name=scope)
            except NotImplementedError as e:  # a shape from the step's data: name ours
                prefix = "tf.fill: argument 'dims'"
                if not str(e).startswith(prefix):
                    raise
                ours = f"tf.{default_name}: argument 'shape'"
                raise NotImplementedError(ours + str(e)[len(prefix) :]) from None

    return zeros_or_ones


FUNCTIONS["zeros"] = _zeros_ones_as_tf(FUNCTIONS["zeros"], 0)
FUNCTIONS["ones"] = _zeros_ones_as_tf(FUNCTIONS["ones"], 1)


_ONE_HOT_OP = FUNCTIONS["one_hot"]
_ONE_HOT_INDICES = ("uint8", "int8", "int32", "int64")


def one_hot(
    indices: Any,
    depth: Any,
    on_value: Any = None,
    off_value: Any = None,
    axis: Any = None,
    dtype: Any = None,
    name: str | None = None,
) -> ops.Tensor:
    """``tf.one_hot``: ``on_value`` where ``indices`` points along a new ``depth`` axis,
    ``off_value`` elsewhere.

    The output dtype is ``dtype``; else ``on_value``'s, else ``off_value``'s, each
    converted as TF converts it (toward ``dtype`` when given: a Python int is int32, a
    float float32, a NumPy value or a tensor keeps its dtype); else float32.

    Raises:
      TypeError: ``indices`` is not uint8, int8, int32 or int64; ``on_value``'s or
        ``off_value``'s dtype differs from ``dtype``, or from the other's (TF's
        messages).
    """
    want = None if dtype is None else dtypes.as_dtype(dtype)
    given = {}
    for param, value in (("on_value", on_value), ("off_value", off_value)):
        if value is not None:
            given[param] = _converted_toward(value, want)
    for param, t in given.items():
        if want is not None and t.dtype.base_dtype != want:
            raise TypeError(f"dtype {t.dtype} of {param} does not match dtype parameter {want}")
    if len(given) == 2 and given["on_value"].dtype != given["off_value"].dtype:
        raise TypeError(
            f"dtype {given['on_value'].dtype} of on_value does not match dtype "
            f"{given['off_value'].dtype} of off_value"
        )
    if want is None:
        want = next(iter(given.values())).dtype.base_dtype if given else dtypes.float32
    kind = np_dtype(ops.convert_to_tensor(indices).dtype).name
    if kind not in _ONE_HOT_INDICES:
        raise TypeError(
            f"Value passed to parameter 'indices' has DataType {kind} not in list of "
            f"allowed values: {', '.join(_ONE_HOT_INDICES)}"
        )
    return _ONE_HOT_OP(
        indices, depth, given.get("on_value"), given.get("off_value"), axis, want, name
    )


def _converted_toward(value: Any, dtype: Any) -> ops.Tensor:
    """``value`` as a tensor, of ``dtype`` where it converts to it (TF's
    ``dtype_hint``); a tensor keeps its dtype."""
    is_tensor = isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor")
    if dtype is not None and not is_tensor:
        try:
            return ops.convert_to_tensor(value, dtype)
        except (TypeError, ValueError):
            pass
    return ops.convert_to_tensor(value)


one_hot.__signature__ = _ONE_HOT_OP.__signature__
one_hot._op_def = _ONE_HOT_OP._op_def
FUNCTIONS["one_hot"] = one_hot

for _name, _type, _impl, _params, _tensors, _default in _MORE_ARRAY_OPS:
    _first = _name if isinstance(_name, str) else _name[0]
    _check = None
    if _first == "scatter_nd":
        _check = _SCATTER_ND_CHECK
    elif _first.startswith("tensor_scatter_nd_"):
        _check = _TENSOR_SCATTER_CHECK
    elif _first == "batch_gather":
        _check = (_batch_gather_in_range, _gather_error)
    elif _first == "boolean_mask":  # a computed mask only: TF's gather check
        _check = (_mask_in_range, _mask_error, lambda op: op._sized is not None)
    define(
        _name,
        _type,
        _impl,
        sized={
            "boolean_mask": ("mask", _count_true),
            "sequence_mask": ("maxlen", _mask_length),
        }.get(_first),
        check=_boolean_mask_check if _first == "boolean_mask" else None,
        params=_params,
        tensors=_tensors,
        lists={"parallel_stack": "values", "shape_n": "input", "dynamic_stitch": "data"}.get(
            _first, ()
        ),
        same_dtype=_SAME_DTYPE.get(_first, _tensors.split()[:1]),
        default_name=_default,
        runtime_check=_check,
    )

_boolean_mask_op = FUNCTIONS["boolean_mask"]


@functools.wraps(_boolean_mask_op)  # its name, signature, module and ``_op_def``
def boolean_mask(
    tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None
) -> ops.Tensor:
    """``tf.boolean_mask``: the elements (or slices along ``axis``) of ``tensor`` where
    ``mask`` is True, the mask's dimensions flattened into one.

    Args:
      tensor: the values, of shape ``S[:axis] + mask.shape + S[axis + mask.ndim:]``.
      mask: the boolean mask: a constant, or computed (from shapes, feeds, variables,
        the model's outputs: the session computes its count before the step and runs
        the step compiled for that count, ``framework/data_sizes.py``).
      name: the op name (default ``"boolean_mask"``).
      axis: the first dimension the mask covers (default 0).

    Returns:
      The selected values, of shape ``S[:axis] + [n] + S[axis + mask.ndim:]``; ``n``
      (the count of Trues) is unknown statically, as TF's (its ``Where`` has an
      unknown first dimension), even where the mask is a constant.

    Raises:
      ValueError: a scalar mask, a mask of unknown rank, or static shapes that do not
        match (TF's messages).
      InvalidArgumentError: (when run) a computed mask with a True past the end of
        ``tensor``'s masked dimensions (TF's gather error).

    .. note:: As TF's composite, a computed mask fed shorter than the dimensions it
      covers selects among their first elements without an error.
    """
    out = _boolean_mask_op(tensor, mask, name, axis)
    source, attrs = out.op.inputs[0]._shape, out.op._static_attrs
    if out._shape is not None and source and "axis" in attrs:
        first = (attrs["axis"] or 0) % len(source)
        out._shape = (*out._shape[:first], None, *out._shape[first + 1 :])
    return out


FUNCTIONS["boolean_mask"] = boolean_mask

_sequence_mask_op = FUNCTIONS["sequence_mask"]


def sequence_mask(
    lengths: Any, maxlen: Any = None, dtype: Any = "bool", name: str | None = None
) -> ops.Tensor:
    """``tf.sequence_mask``: ``mask[..., j] = j < lengths[...]``.

    Args:
      lengths: tensor of lengths (integer or float).
      maxlen: the mask's last dimension (default ``None``: ``max(0, max(lengths))``;
        for ``lengths`` computed in the step, the static shape's last dimension is
        unknown, as TF's, and the session computes it before the step:
        ``framework/data_sizes.py``; one program per value).
      dtype: the mask's dtype (default ``tf.bool``).
      name: the op name (default ``"SequenceMask"``).

    Returns:
      A tensor of shape ``lengths.shape + [maxlen]``.
    """
    if maxlen is None:
        tensor = ops.convert_to_tensor(lengths)
        value = tensor.op._const_value
        if value is None:
            # TF's maximum(0, max(lengths)): taken when the step is traced where static
            # shapes give it, else computed before the step (data_sizes.py).
            # (named as TF's: SequenceMask/Max, .../Less, or .../Cast_1 for another dtype,
            # TF's Cast being that of the lengths)
            with ops.name_scope(name, "SequenceMask"):
                top = FUNCTIONS["reduce_max"](tensor)
                maxlen = FUNCTIONS["maximum"](ops.convert_to_tensor(0, tensor.dtype), top)
                last = "Less" if dtypes.as_dtype(dtype) == dtypes.bool else "Cast_1"
                return _sequence_mask_op(lengths, maxlen, dtype, last)
        # TF: maximum(0, max(lengths)) in the lengths' dtype (float lengths: a float).
        top = np.max(value, initial=0)
        maxlen = float(top) if np.asarray(value).dtype.kind == "f" else int(top)
    return _sequence_mask_op(lengths, maxlen, dtype, name)


sequence_mask._op_def = _sequence_mask_op._op_def
FUNCTIONS["sequence_mask"] = sequence_mask


def _fold_constants(name: str, impl: Any, params: str, default: str, result: Any) -> Any:
    """An op with a data-dependent output shape: computed when the graph is built from
    a constant input (TF's value, as constants); for a computed input, in the step,
    the session computing its sizes before it (``framework/data_sizes.py``)."""
    lifted = define(
        name,
        default,
        impl,
        params=params,
        tensors="x",
        default_name=default,
        sized=("x", _count_distinct),
    )
    entry = lifted._op_def

    def op_function(*args: Any, **kwargs: Any) -> Any:
        bound = entry.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        x = ops.convert_to_tensor(bound.arguments["x"])
        value = x.op._const_value
        if value is None:
            if x._shape is not None and len(x._shape) != 1:
                raise ValueError(_rank_1_message(default, x, bound.arguments))
            out = lifted(**bound.arguments)
            out[1]._shape = None if x._shape is None else tuple(x._shape)  # idx: x's shape
            return result(*out)
        from adapters.v1.ops.constant_op import constant

        out = impl(np.asarray(value, np_dtype(x.dtype)), bound.arguments["out_idx"])
        with ops.name_scope(bound.arguments["name"] or default):
            return result(*(constant(np.asarray(o)) for o in out))

    op_function.__name__ = op_function.__qualname__ = name
    op_function.__signature__ = entry.signature
    op_function.__doc__ = lifted.__doc__
    op_function._op_def = entry
    FUNCTIONS[name] = op_function
    return op_function


def _rank_1_message(op_type: str, x: ops.Tensor, arguments: dict) -> str:
    """TF's shape-inference error of ``Unique``/``UniqueWithCounts`` for an ``x`` that
    is not a vector."""
    graph = x.graph
    node = graph.unique_name(arguments.get("name") or op_type, mark_as_used=False)
    kinds = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}
    t = dtypes.as_dtype(x.dtype).base_dtype.name
    index = dtypes.as_dtype(arguments.get("out_idx") or "int32").name
    attrs = ", ".join(
        f"{k}={kinds.get(v, f'DT_{v.upper()}')}" for k, v in (("T", t), ("out_idx", index))
    )
    source = x.name[:-2] if x.name.endswith(":0") else x.name
    return (
        f"Shape must be rank 1 but is rank {len(x._shape)} for '{{{{node {node}}}}} = "
        f"{op_type}[{attrs}]({source})' with input shapes: {tensor_shape.dims_text(x._shape)}."
    )


class Unique(NamedTuple):
    """``tf.unique``'s result."""

    y: Any
    idx: Any


class UniqueWithCounts(NamedTuple):
    """``tf.unique_with_counts``' result."""

    y: Any
    idx: Any
    count: Any


unique = _fold_constants("unique", _unique, "x, out_idx='int32', name=None", "Unique", Unique)
unique_with_counts = _fold_constants(
    "unique_with_counts",
    lambda x, out_idx="int32", *, sizes=None: _unique(x, out_idx, counts=True, sizes=sizes),
    "x, out_idx='int32', name=None",
    "UniqueWithCounts",
    UniqueWithCounts,
)


# -- meshgrid (variadic), broadcast shapes, ensure_shape ------------------------------------
def _meshgrid(args, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise OpValueError(
            f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'"
        )
    return list(jnp.meshgrid(*args, indexing=indexing))


_meshgrid_op = lift(
    OpDef(
        names=("meshgrid",),
        op_type="Meshgrid",
        impl=_meshgrid,
        signature=inspect.signature(lambda args, indexing="xy", name=None: None),
        tensors=("args",),
        lists=("args",),
        same_dtype=("args",),
        default_name="meshgrid",
    )
)


def meshgrid(*args: Any, **kwargs: Any) -> list[ops.Tensor]:
    """``tf.meshgrid``: coordinate grids from 1-D coordinate vectors.

    Args:
      *args: the coordinate vectors (one dtype).
      **kwargs: ``indexing`` (``"xy"``, the default, or ``"ij"``) and ``name`` (the op
        name, default ``"meshgrid"``).

    Returns:
      One tensor per vector, each of the grid's shape.

    Raises:
      TypeError: another keyword argument.
      ValueError: ``indexing`` is neither ``"xy"`` nor ``"ij"``.
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = next(iter(kwargs))
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    return _meshgrid_op(list(args), indexing, name)


def _broadcast_shapes(x: tuple[Any, ...], y: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """NumPy's broadcast of two shapes (``None``: unknown dimension); ``None`` if they clash."""
    n = max(len(x), len(y))
    x = (1,) * (n - len(x)) + tuple(x)
    y = (1,) * (n - len(y)) + tuple(y)
    out: list[Any] = []
    for a, b in zip(x, y, strict=True):
        if a == 1:
            out.append(b)
        elif b == 1 or b is None or a == b:
            out.append(a if a is not None or b == 1 else b)
        elif a is None:
            out.append(b)
        else:
            return None
    return tuple(out)


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> tensor_shape.TensorShape:
    """``tf.broadcast_static_shape``: the broadcast of two ``TensorShape``s.

    Args:
      shape_x: a ``TensorShape``.
      shape_y: a ``TensorShape``.

    Returns:
      The broadcast ``TensorShape`` (unknown if either rank is).

    Raises:
      ValueError: the shapes cannot broadcast (TF's message).
    """
    x, y = tensor_shape.as_shape(shape_x), tensor_shape.as_shape(shape_y)
    if x._dims is None or y._dims is None:
        return tensor_shape.unknown_shape()
    out = _broadcast_shapes(x._dims, y._dims)
    if out is None:
        raise ValueError(
            "Incompatible shapes for broadcasting. Two shapes are compatible if for each "
            "dimension pair they are either equal or one of them is 1. Received: "
            f"{tuple(x._dims)} and {tuple(y._dims)}."
        )
    return tensor_shape.TensorShape(list(out))


def _broadcast_dynamic_shape(shape_x, shape_y):
    n = max(shape_x.shape[0], shape_y.shape[0])
    x = jnp.concatenate([jnp.ones(n - shape_x.shape[0], shape_x.dtype), shape_x])
    y = jnp.concatenate([jnp.ones(n - shape_y.shape[0], shape_y.dtype), shape_y])
    return jnp.where(x == 1, y, x)


def _broadcast_dynamic_ok(shape_x, shape_y):
    n = max(shape_x.shape[0], shape_y.shape[0])
    x = jnp.concatenate([jnp.ones(n - shape_x.shape[0], shape_x.dtype), shape_x])
    y = jnp.concatenate([jnp.ones(n - shape_y.shape[0], shape_y.dtype), shape_y])
    return jnp.all((x == y) | (x == 1) | (y == 1)), (shape_x, shape_y)


def _broadcast_dynamic_error(op: ops.Operation, x: np.ndarray, y: np.ndarray) -> Any:
    from jtrain import errors

    text = ",".join(str(int(d)) for d in x), ",".join(str(int(d)) for d in y)
    return errors.InvalidArgumentError(
        None, op, f"Incompatible shapes: [{text[0]}] vs. [{text[1]}]"
    )


define(
    "broadcast_dynamic_shape",
    "BroadcastArgs",
    _broadcast_dynamic_shape,
    params="shape_x, shape_y",
    tensors="shape_x shape_y",
    allowed={"shape_x": ("int32", "int64")},
    name_param="",
    default_name="BroadcastArgs",
    runtime_check=(_broadcast_dynamic_ok, _broadcast_dynamic_error),
)


def _shape_text(dims: Any) -> str:
    """A shape as TF's messages write it: ``[2,?]``."""
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> ops.Tensor:
    """``tf.ensure_shape``: ``x``, checked to have ``shape`` (``None``: any dimension).

    Args:
      x: a tensor.
      shape: the expected shape (a ``TensorShape``, list or ``None``).
      name: the op name (default ``"EnsureShape"``).

    Returns:
      ``x``, with the static shape ``x``'s merged with ``shape``.

    Raises:
      ValueError: ``x``'s static shape contradicts ``shape`` (when the graph is built).
      InvalidArgumentError: the fed value's shape contradicts ``shape`` (in the run).
    """
    from jtrain import errors

    value = ops.convert_to_tensor(x)
    expected = tensor_shape.as_shape(shape)
    static = tensor_shape.as_shape(value.shape)
    if static.rank is not None and expected.rank is not None:
        if static.rank != expected.rank:
            raise ValueError(f"Shape must be rank {expected.rank} but is rank {static.rank}")
        for i, (a, b) in enumerate(zip(expected._dims, static._dims, strict=True)):
            if a is not None and b is not None and a != b:
                raise ValueError(
                    f"Dimension {i} in both shapes must be equal, but are {a} and {b}. "
                    f"Shapes are {_shape_text(expected._dims)} and {_shape_text(static._dims)}."
                )
    merged = static.merge_with(expected)

    def compute(ctx: Any, v: Any) -> tuple[Any]:
        dims = expected._dims
        if dims is not None and (
            len(dims) != v.ndim
            or any(d is not None and d != s for d, s in zip(dims, v.shape, strict=True))
        ):
            raise errors.InvalidArgumentError(
                None,
                op,
                f"Shape of tensor {value.op.name} {_shape_text(v.shape)} is not compatible "
                f"with expected shape {_shape_text(dims)}.",
            )
        return (v,)

    op = ops.get_default_graph().create_op(
        "EnsureShape",
        name or "EnsureShape",
        inputs=[value],
        compute=compute,
        output_specs=[(merged._dims, value.dtype)],
    )
    return op.outputs[0]


# -- x[i] with an index computed in the step ----------------------------------------------
def _index_at(input_, index, axis, dimension):
    """``input_[..., index, ...]`` along ``axis`` (a negative index from the end)."""
    size = input_.shape[axis]
    at = jnp.where(index < 0, index + size, index)
    return lax.dynamic_index_in_dim(input_, at, axis, keepdims=False)


def _index_in_range(input_, index, axis, dimension):
    """TF's StridedSlice refuses an index outside ``[-size, size)``."""
    size = input_.shape[axis]
    ok = (index >= -size) & (index < size)
    return ok, (index, jnp.asarray(size, np.int64), jnp.asarray(dimension, np.int64))


def _index_error(op: ops.Operation, index: np.ndarray, size: np.ndarray, dimension: np.ndarray):
    """TF's message: ``slice index 4 of dimension 0 out of bounds.``"""
    at = int(index) + int(size) if index < 0 else int(index)
    return errors.InvalidArgumentError(
        None, op, f"slice index {at} of dimension {int(dimension)} out of bounds."
    )


_index_op = lift(
    OpDef(
        names=("strided_slice",),
        op_type="StridedSlice",
        impl=_index_at,
        signature=inspect.signature(lambda input_, index, axis, dimension, name=None: None),
        tensors=("input_", "index"),
        same_dtype=(),
        allowed={"index": ("int32", "int64")},
        default_name="strided_slice",
        runtime_check=(_index_in_range, _index_error),
    )
)


def index_with_tensors(x: ops.Tensor, items: tuple, dynamic: list[int]) -> ops.Tensor:
    """``x[items]`` where the items at ``dynamic`` are scalar integer tensors computed
    in the step (a loop counter, a fed index): TF's ``StridedSlice`` with a computed
    begin, as a dynamic index (one program for every value).

    The other items are indexed first (one ``strided_slice``), then each dynamic index
    in turn, so that an index out of range is reported for the first dimension, as TF.

    Raises:
      NotImplementedError: ``...`` or ``tf.newaxis`` in the same index, or a slice
        bound computed in the step (its size would depend on values).
      InvalidArgumentError: (when run) an index outside ``[-size, size)``.
    """
    for item in items:
        if item is Ellipsis or item is None:
            raise NotImplementedError(
                "Indexing with a tensor computed in the step together with `...` or "
                "tf.newaxis is not supported; index in two steps"
            )
    static = tuple(slice(None) if k in dynamic else item for k, item in enumerate(items))
    out = x[static] if any(not _full(item) for item in static) else x
    shrunk = 0  # axes the static items removed before the current one
    for k, item in enumerate(items):
        if k in dynamic:
            index = ops.convert_to_tensor(item)
            if index._shape is not None and len(index._shape) != 0:
                raise TypeError(
                    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                    f"scalar tf.int32/tf.int64 tensors are valid indices, got {item!r}"
                )
            out = _index_op(out, index, k - shrunk, k, name="strided_slice")
            shrunk += 1
        elif not isinstance(item, slice):
            shrunk += 1
    return out


def _full(item: Any) -> bool:
    return isinstance(item, slice) and item == slice(None)


# -- dynamic_partition, setdiff1d, volume patches, space-to-batch paddings, to_complex ------
def _dynamic_partition(data, partitions, num_partitions, *, sizes=None):
    """``outputs[k] = data[partitions == k]`` (rows in order). ``sizes``: the count of
    each partition, for ``partitions`` computed in the step (computed before it,
    ``framework/data_sizes.py``); None for partitions known when the step is traced."""
    parts = np.asarray(partitions) if sizes is None else partitions
    if sizes is not None and not _shape_prefix(data.shape, parts.shape):
        # (the static shapes were checked when the graph was built: the run's differ)
        raise errors.InvalidArgumentError(
            None,
            None,
            "data.shape must start with partitions.shape, got data.shape = "
            f"{tensor_shape.dims_text(data.shape).replace(',', ', ')}, partitions.shape = "
            f"{tensor_shape.dims_text(parts.shape).replace(',', ', ')}",
        )
    _check_partition_shapes(data.shape, parts.shape)
    rows = data.reshape((-1,) + data.shape[parts.ndim :])
    rows = data.reshape((-1,) + data.shape[parts.ndim :])
    flat = parts.reshape(-1)
    if sizes is None:
        return [jnp.take(rows, np.flatnonzero(flat == k), axis=0) for k in range(num_partitions)]
    picks = [jnp.nonzero(flat == k, size=n)[0] for k, n in enumerate(sizes)]
    return [jnp.take(rows, pick, axis=0) for pick in picks]


def _shape_prefix(shape: Any, prefix: Any) -> bool:
    """Whether ``prefix`` leads ``shape`` (a symbolic dimension fits any)."""
    return len(prefix) <= len(shape) and all(
        not (isinstance(a, int) and isinstance(b, int)) or a == b
        for a, b in zip(shape[: len(prefix)], prefix, strict=True)
    )


def _check_partition_shapes(data_shape: Any, parts_shape: Any) -> None:
    """TF's graph-construction error where ``partitions``' shape is not the leading
    part of ``data``'s (``None``, or symbolic, for an unknown dimension)."""
    mine, theirs = list(data_shape[: len(parts_shape)]), list(parts_shape)
    differ = [
        i
        for i, (a, b) in enumerate(zip(mine, theirs, strict=False))
        if isinstance(a, int) and isinstance(b, int) and a != b
    ]
    if differ or len(mine) != len(theirs):
        k = differ[0] if differ else len(mine)
        bad = mine[k] if k < len(mine) else 0
        raise OpValueError(
            f"Dimensions must be equal, but are {bad} and {theirs[k]} for 'DynamicPartition' "
            f"with input shapes: {list(data_shape)}, {theirs}."
        )


def _partition_counts(partitions, attrs):
    """The sizes of ``tf.dynamic_partition``: the count of each partition."""
    return tuple(jnp.count_nonzero(partitions == k) for k in range(attrs["num_partitions"]))


def _partitions_in_range(data, partitions, num_partitions):
    parts = jnp.asarray(partitions)
    ok = jnp.all((parts >= 0) & (parts < num_partitions))
    return ok, (parts.astype(np.int32), jnp.asarray(num_partitions, np.int32))


def _partitions_error(op: ops.Operation, parts: np.ndarray, limit: np.ndarray) -> Any:
    """TF's message: ``partitions[1] = 5 is not in [0, 3)`` (the first bad one)."""
    bad = np.argwhere((parts < 0) | (parts >= limit))
    where = tuple(int(i) for i in bad[0]) if bad.size else ()
    position = f"[{','.join(str(i) for i in where)}]" if parts.ndim else ""
    value = parts[where] if parts.ndim else parts[()]
    return errors.InvalidArgumentError(
        None, op, f"partitions{position} = {int(value)} is not in [0, {int(limit)})"
    )


_dynamic_partition_op = define(
    "dynamic_partition",
    "DynamicPartition",
    _dynamic_partition,
    params="data, partitions, num_partitions, name=None",
    tensors="data",
    runtime_check=(_partitions_in_range, _partitions_error),
    sized=("partitions", _partition_counts),
)


def dynamic_partition(
    data: Any, partitions: Any, num_partitions: int, name: str | None = None
) -> list[ops.Tensor]:
    """``tf.dynamic_partition``: the rows of ``data`` split by ``partitions``.

    ``outputs[k] = [data[j] for j where partitions[j] == k]`` in order, for ``k`` in
    ``[0, num_partitions)``; ``partitions`` covers the leading dimensions of ``data``.

    Args:
      data: the tensor to split.
      partitions: int32 partition of each row, of shape ``data.shape[:rank]``; the
        outputs' sizes are its counts, computed before the step where it is computed
        from the step's values (``framework/data_sizes.py``).
      num_partitions: the number of outputs (a Python int).
      name: the op name (default ``"DynamicPartition"``).

    Returns:
      A list of ``num_partitions`` tensors of shape ``[None] + data.shape[rank:]``
      (the row counts are not static, as TF's).

    Raises:
      ValueError: ``partitions``' shape is not ``data``'s leading shape.
      InvalidArgumentError: (when run) a partition outside ``[0, num_partitions)``.

    .. note:: TF's gradient is ``dynamic_stitch`` of the outputs' gradients, which is
      JAX's derivative of the gather (each row lands in one output).
    """
    parts = ops.convert_to_tensor(partitions) if isinstance(partitions, ops.Tensor) else None
    data_tensor = ops.convert_to_tensor(data) if isinstance(data, ops.Tensor) else None
    if parts is not None and data_tensor is not None:
        if parts._shape is not None and data_tensor._shape is not None:
            _check_partition_shapes(data_tensor._shape, parts._shape)  # static shapes
    outputs = _dynamic_partition_op(data, partitions, num_partitions, name)
    for out in outputs:
        if out._shape is not None and out._shape:
            out._shape = (None, *out._shape[1:])
    return list(outputs)


dynamic_partition._op_def = _dynamic_partition_op._op_def
FUNCTIONS["dynamic_partition"] = dynamic_partition


class ListDiff(NamedTuple):
    """``tf.setdiff1d``'s result."""

    out: Any
    idx: Any


def _setdiff1d(x, y, index_dtype="int32"):
    x, y = np.asarray(x), np.asarray(y)
    for what, v in (("x", x), ("y", y)):
        if v.ndim != 1:
            raise OpValueError(f"Shape must be rank 1 but is rank {v.ndim} for '{what}'")
    keep = np.flatnonzero(~np.isin(x, y))
    return x[keep], keep.astype(np_dtype(index_dtype))


_setdiff1d_entry = define(
    "setdiff1d",
    "ListDiff",
    _setdiff1d,
    params="x, y, index_dtype='int32', name=None",
    tensors="x y",
)._op_def


def setdiff1d(x: Any, y: Any, index_dtype: Any = "int32", name: str | None = None) -> ListDiff:
    """``tf.setdiff1d``: the values of ``x`` not in ``y``, in ``x``'s order, and their
    positions in ``x`` (repeats of ``x`` kept).

    Args:
      x: 1-D values.
      y: 1-D values to remove (converted to ``x``'s dtype).
      index_dtype: ``idx``'s dtype (default ``tf.int32``).
      name: the name scope (default ``"ListDiff"``).

    Returns:
      ``ListDiff(out, idx)``, both of static shape ``[None]`` as TF's.

    Raises:
      ValueError: ``x`` or ``y`` is not 1-D (statically).

    .. note:: The output's size depends on the values: as TF's CPU-only kernel, it is
      computed on the host, before the step for constants and fed placeholders,
      after it (its fetches only) when ``x`` or ``y`` is computed in the step.
    """
    from adapters.v1.ops.sets_ops import host_op

    tx = ops.convert_to_tensor(x, name="x")
    ty = ops.convert_to_tensor(y, dtype=tx.dtype, name="y")
    for what, t in (("x", tx), ("y", ty)):
        if t._shape is not None and len(t._shape) != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {len(t._shape)} for '{what}'")
    index = np_dtype(index_dtype)

    def compute(op: Any, x_value: Any, y_value: Any) -> tuple[np.ndarray, np.ndarray]:
        out, idx = _setdiff1d(x_value, y_value, index)
        return np.asarray(out, np.asarray(x_value).dtype), idx

    specs = [((None,), tx._np_dtype), ((None,), index)]
    op = host_op("ListDiff", [tx, ty], compute, specs, name)
    return ListDiff(*op.outputs)


setdiff1d._op_def = _setdiff1d_entry
FUNCTIONS["setdiff1d"] = setdiff1d


def _extract_volume_patches(input, ksizes, strides, padding):
    from adapters.v1.ops.image_ops import _patch_axis

    if len(ksizes) != 5 or len(strides) != 5:
        raise OpValueError("ksizes and strides must be lists of 5 ints [1, p, r, c, 1]")
    if ksizes[0] != 1 or ksizes[4] != 1 or strides[0] != 1 or strides[4] != 1:
        raise OpValueError("Only support ksizes and strides across space.")
    if padding not in ("SAME", "VALID"):
        raise OpValueError(f"padding must be SAME or VALID, got {padding!r}")
    axes = [_patch_axis(input.shape[a], ksizes[a], strides[a], 1, padding) for a in (1, 2, 3)]
    pads = [(0, 0)] + [(lo, hi) for _, lo, hi in axes] + [(0, 0)]
    padded = jnp.pad(input, pads)
    (op, _, _), (orow, _, _), (ocol, _, _) = axes
    sp, sr, sc = strides[1:4]
    taps = [
        padded[
            :,
            i : i + (op - 1) * sp + 1 : sp,
            j : j + (orow - 1) * sr + 1 : sr,
            k : k + (ocol - 1) * sc + 1 : sc,
        ]
        for i in range(ksizes[1])
        for j in range(ksizes[2])
        for k in range(ksizes[3])
    ]
    out = jnp.stack(taps, axis=4)  # [batch, op, orow, ocol, taps, depth]
    return out.reshape(out.shape[:4] + (len(taps) * input.shape[4],))


extract_volume_patches = define(
    "extract_volume_patches",
    "ExtractVolumePatches",
    _extract_volume_patches,
    params="input, ksizes, strides, padding, name=None",
    tensors="input",
    allowed=(
        *("bfloat16", "float16", "float32", "float64"),
        *("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    ),
)


def required_space_to_batch_paddings(
    input_shape: Any, block_shape: Any, base_paddings: Any = None, name: str | None = None
) -> tuple[ops.Tensor, ops.Tensor]:
    """``tf.required_space_to_batch_paddings``: paddings making each spatial size (after
    ``base_paddings``) divisible by its block, and the crops that undo the extra.

    ``pad_end_extra = (block - (input + base_start + base_end) % block) % block``;
    ``paddings = [base_start, base_end + pad_end_extra]``, ``crops = [0, pad_end_extra]``.

    Args:
      input_shape: int32 spatial sizes, ``[num_block_dims]``.
      block_shape: int32 block sizes, ``[num_block_dims]``, of a static shape.
      base_paddings: int32 ``[num_block_dims, 2]`` minimum paddings (default ``None``: 0).
      name: the name scope (default ``"required_space_to_batch_paddings"``).

    Returns:
      ``(paddings, crops)``, int32 ``[num_block_dims, 2]`` tensors named ``paddings``
      and ``crops`` in the scope.

    Raises:
      ValueError: ``block_shape``'s shape is not static and 1-D.
    """
    from adapters.v1.ops.constant_op import constant

    with ops.name_scope(name or "required_space_to_batch_paddings"):
        shape = ops.convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block = ops.convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        if block._shape is None or len(block._shape) != 1 or block._shape[0] is None:
            raise ValueError(f"Shape {block.shape} must be fully defined and of rank 1")
        count = block._shape[0]
        if base_paddings is None:
            base = constant(np.zeros([count, 2], np.int32))
        else:
            base = ops.convert_to_tensor(base_paddings, dtype=dtypes.int32, name="base_paddings")
        known = [t.op._const_value for t in (shape, block, base)]
        if all(v is not None for v in known):
            s, b, p = (np.asarray(v, np.int32) for v in known)
            extra = (b - (s + p[:, 0] + p[:, 1]) % b) % b
            paddings = np.stack([p[:, 0], p[:, 1] + extra], axis=1)
            crops = np.stack([np.zeros_like(extra), extra], axis=1)
            return (
                identity(constant(paddings), name="paddings"),
                identity(constant(crops), name="crops"),
            )
        start, end = base[:, 0], base[:, 1]
        extra_t = (block - (shape + start + end) % block) % block
        stack = FUNCTIONS["stack"]
        return (
            stack([start, end + extra_t], axis=1, name="paddings"),
            stack([FUNCTIONS["zeros_like"](extra_t), extra_t], axis=1, name="crops"),
        )


for _bits, _default in ((64, "ToComplex64"), (128, "ToComplex128")):
    # ``tf.to_complex64(x, name="ToComplex64")``: ``tf.cast(x, tf.complex64)``, deprecated in TF.
    define(
        f"to_complex{_bits}",
        "Cast",
        partial(lambda x, kind: x.astype(kind), kind=np.dtype(f"complex{_bits}")),
        params=f"x, name='{_default}'",
        tensors="x",
        default_name=_default,
    )


# -- edit_distance -------------------------------------------------------------------------
def _sequences(indices, values, dense_shape, out_shape):
    """A sparse tensor's sequences as ``([groups, longest] values, [groups] lengths)``:
    group ``g`` holds the values whose leading coordinates ravel to ``g`` in
    ``out_shape`` (TF's group-by), in their order (indices row-major, as TF needs)."""
    groups = int(np.prod(out_shape, dtype=np.int64))
    longest = int(dense_shape[-1]) if len(dense_shape) else 0
    lead = indices[:, :-1].astype(np.int32)
    strides = np.cumprod([1, *out_shape[::-1]])[:-1][::-1].astype(np.int32)
    group = jnp.sum(lead * jnp.asarray(strides), axis=1).astype(np.int32)
    count = jax.ops.segment_sum(jnp.ones_like(group), group, groups)
    start = jnp.cumsum(count) - count
    rank = jnp.arange(group.shape[0], dtype=np.int32) - start[group]
    seqs = jnp.zeros((groups, max(longest, 1)), values.dtype)
    seqs = seqs.at[group, rank].set(values, mode="drop")
    return seqs, count


def _levenshtein(hyp, hyp_len, truth, truth_len):
    """Edit distances of ``[groups, Lh]`` and ``[groups, Lt]`` sequences (lengths given),
    one dynamic-programming row over the truth per hypothesis element; a row's
    insertions are a running minimum (``row[j] = min_k tmp[k] + j - k``)."""
    positions = jnp.arange(truth.shape[1] + 1, dtype=np.int32)
    row0 = jnp.broadcast_to(positions, (hyp.shape[0], positions.shape[0]))

    def step(row, i):
        cost = (hyp[:, i, None] != truth).astype(np.int32)  # [groups, Lt]
        tmp = jnp.concatenate(
            [row[:, :1] + 1, jnp.minimum(row[:, 1:] + 1, row[:, :-1] + cost)], axis=1
        )
        new = lax.cummin(tmp - positions, axis=1) + positions
        return jnp.where((i < hyp_len)[:, None], new, row), None

    row, _ = lax.scan(step, row0, jnp.arange(hyp.shape[1], dtype=np.int32))
    return jnp.take_along_axis(row, truth_len[:, None].astype(np.int32), axis=1)[:, 0]


def _edit_distance(
    hypothesis_indices,
    hypothesis_values,
    hypothesis_shape,
    truth_indices,
    truth_values,
    truth_shape,
    normalize=True,
):
    hyp_shape, truth_shape = list(hypothesis_shape), list(truth_shape)
    if len(hyp_shape) != len(truth_shape):
        raise OpValueError(
            f"hypothesis and truth must have the same rank, got {len(hyp_shape)} and "
            f"{len(truth_shape)}"
        )
    out_shape = [max(int(a), int(b)) for a, b in zip(hyp_shape[:-1], truth_shape[:-1], strict=True)]
    hyp, hyp_len = _sequences(hypothesis_indices, hypothesis_values, hyp_shape, out_shape)
    truth, truth_len = _sequences(truth_indices, truth_values, truth_shape, out_shape)
    distance = _levenshtein(hyp, hyp_len, truth, truth_len).astype(np.float32)
    if normalize:  # TF: an empty truth gives inf, 0 where the hypothesis is empty too
        empty = jnp.where(hyp_len == 0, 0.0, np.inf).astype(np.float32)
        shares = distance / jnp.maximum(truth_len, 1).astype(np.float32)
        distance = jnp.where(truth_len == 0, empty, shares)
    return distance.reshape(out_shape)


def _edit_distance_signature(
    hypothesis_indices,
    hypothesis_values,
    hypothesis_shape,
    truth_indices,
    truth_values,
    truth_shape,
    normalize=True,
    name=None,
):
    """TF's ``EditDistance`` op (``tf.raw_ops.EditDistance``)."""


_edit_distance_op = lift(
    OpDef(
        names=("edit_distance",),
        op_type="EditDistance",
        impl=_edit_distance,
        signature=inspect.signature(_edit_distance_signature),
        tensors=("hypothesis_indices", "hypothesis_values", "truth_indices", "truth_values"),
        same_dtype=("hypothesis_values", "truth_values"),
        default_name="edit_distance",
    )
)


def edit_distance(
    hypothesis: Any, truth: Any, normalize: bool = True, name: str = "edit_distance"
) -> ops.Tensor:
    """``tf.edit_distance``: the Levenshtein distance between sequences of two sparse tensors.

    The sequences are grouped by all but the last index coordinate: ``output[g] =
    levenshtein(hypothesis[g], truth[g])`` (insertions, deletions and substitutions
    cost 1), divided by ``len(truth[g])`` when ``normalize``.

    Args:
      hypothesis: a ``SparseTensor`` (or ``SparseTensorValue``) of sequences, indices
        in row-major order. Numbers are compared on the device; strings, which XLA
        cannot hold, on the host (before the step when they are constants or fed,
        after it otherwise), as TF's CPU kernel.
      truth: a ``SparseTensor`` of the same rank and values' dtype.
      normalize: divide by the truth's length (default ``True``).
      name: the op name (default ``"edit_distance"``).

    Returns:
      float32 of shape ``max(hypothesis.dense_shape, truth.dense_shape)[:-1]``.

    Raises:
      TypeError: ``hypothesis`` or ``truth`` is not a ``SparseTensor`` (TF's message).
      NotImplementedError: numeric values with dense shapes that depend on the step's
        data.

    .. note:: As TF, with ``normalize`` an empty truth gives ``inf``, and 0 where the
      hypothesis is empty too.
    """
    from adapters.v1.framework.sparse_tensor import SparseTensor, SparseTensorValue

    pair = []
    for what, value in (("Hypothesis", hypothesis), ("Truth", truth)):
        if isinstance(value, SparseTensorValue):
            value = SparseTensor.from_value(value)
        if not isinstance(value, SparseTensor):
            raise TypeError(f"{what} must be a SparseTensor.")
        pair.append(value)
    hyp, tru = pair
    if any(t.dtype is not None and t.dtype.name == "string" for t in pair):
        if hyp.dtype != tru.dtype:
            raise TypeError(
                f"Input 'truth_values' of 'EditDistance' Op has type {tru.dtype.name} that "
                f"does not match type {hyp.dtype.name} of argument 'hypothesis_values'."
            )
        out = _edit_distance_of_strings(hyp, tru, normalize, name)
    else:
        out = _edit_distance_op(
            hyp.indices,
            hyp.values,
            hyp.dense_shape,
            tru.indices,
            tru.values,
            tru.dense_shape,
            normalize,
            name=name,
        )
    if any(t.op._const_value is None for t in (hyp.dense_shape, tru.dense_shape)):
        out._shape = None  # TF's shape function: unknown rank unless both shapes are constants
    return out


def _edit_distance_of_strings(hyp: Any, tru: Any, normalize: bool, name: Any) -> ops.Tensor:
    """``tf.edit_distance`` of string sequences, on the host (NumPy and Python)."""
    from adapters.v1.ops.sets_ops import host_op

    def groups(indices: Any, values: Any, lead: list[int]) -> dict[int, list[bytes]]:
        out: dict[int, list[bytes]] = {}
        indices = np.asarray(indices).reshape(len(values), -1)
        for index, value in zip(indices, values, strict=True):
            g = int(np.ravel_multi_index(tuple(index[:-1]), lead)) if lead else 0
            out.setdefault(g, []).append(bytes(value))
        return out

    def levenshtein(a: list[bytes], b: list[bytes]) -> int:
        row = list(range(len(b) + 1))
        for i, x in enumerate(a, 1):
            prev, row[0] = row[0], i
            for j, y in enumerate(b, 1):
                prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
        return row[-1]

    def compute(op: Any, hi: Any, hv: Any, hs: Any, ti: Any, tv: Any, ts: Any) -> tuple:
        if len(hs) != len(ts):
            raise errors.InvalidArgumentError(
                None, op, f"hypothesis and truth must have the same rank: {len(hs)} vs {len(ts)}"
            )
        lead = [max(int(a), int(b)) for a, b in zip(hs[:-1], ts[:-1], strict=True)]
        hyp_groups, truth_groups = groups(hi, hv, lead), groups(ti, tv, lead)
        out = np.zeros(int(np.prod(lead, dtype=np.int64)), np.float32)
        for g in set(hyp_groups) | set(truth_groups):
            h, t = hyp_groups.get(g, []), truth_groups.get(g, [])
            d = np.float32(levenshtein(h, t))
            if normalize:
                d = d / np.float32(len(t)) if t else np.float32(np.inf if h else 0.0)
            out[g] = d
        return (out.reshape(lead),)

    shapes = [t.dense_shape.op._const_value for t in (hyp, tru)]
    static = None
    if all(v is not None for v in shapes):
        static = tuple(int(max(a, b)) for a, b in zip(shapes[0][:-1], shapes[1][:-1], strict=True))
    inputs = [hyp.indices, hyp.values, hyp.dense_shape, tru.indices, tru.values, tru.dense_shape]
    op = host_op("EditDistance", inputs, compute, [(static, np.float32)], name)
    return op.outputs[0]


# -- fingerprint -----------------------------------------------------------------------------
def fingerprint(data: Any, method: Any = "farmhash64", name: str | None = None) -> ops.Tensor:
    """``tf.fingerprint``: FarmHash ``Fingerprint64`` of each row of ``data``, as 8 bytes.

    Row ``i`` (``data[i]``, all its elements) is hashed from its bytes in little-endian
    order; a string row of one string from the string, a string row of several from
    the concatenated fingerprints of its strings (TF's kernel). The 64-bit value is
    stored little-endian.

    Args:
      data: a tensor of rank >= 1 (numbers, bools or strings).
      method: the hash (default ``"farmhash64"``, the only one TF has).
      name: the op name (default ``"Fingerprint"``).

    Returns:
      uint8 ``[data.shape[0], 8]``. Computed on the host, as TF's CPU-only kernel:
      before the step for constants and fed placeholders, after it otherwise.

    Raises:
      ValueError: ``method`` is not ``"farmhash64"``, or ``data`` is a scalar (TF's
        messages, when the graph is built).
      InvalidArgumentError: (when run) ``data`` is a scalar of unknown static rank.
    """
    from adapters.v1.ops.sets_ops import host_op
    from adapters.v1.ops.string_ops import fingerprint64

    tensor = ops.convert_to_tensor(data, name="data")
    method_value = method.decode() if isinstance(method, bytes) else str(method)
    if method_value != "farmhash64":  # TF's shape function reads the constant method
        raise ValueError(f"Unsupported method: {method_value}")
    if tensor._shape is not None and len(tensor._shape) == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")

    def one(buffer: bytes) -> np.ndarray:
        return np.frombuffer(np.uint64(fingerprint64(buffer)).astype("<u8").tobytes(), np.uint8)

    def compute(op: Any, value: Any) -> tuple[np.ndarray]:
        value = np.asarray(value)
        if value.ndim == 0:
            raise errors.InvalidArgumentError(
                None, op, "`data` should have at least one dimension: []"
            )
        rows = value.reshape(value.shape[0], -1) if value.shape[0] else value.reshape(0, 0)
        out = np.zeros((rows.shape[0], 8), np.uint8)
        for i, row in enumerate(rows):
            if value.dtype == object:
                strings = [s.encode() if isinstance(s, str) else bytes(s) for s in row]
                if len(strings) == 1:
                    out[i] = one(strings[0])
                else:
                    out[i] = one(b"".join(one(s).tobytes() for s in strings))
            else:
                out[i] = one(row.astype(row.dtype.newbyteorder("<")).tobytes())
        return (out,)

    rows = None if tensor._shape is None or not tensor._shape else tensor._shape[0]
    return host_op("Fingerprint", [tensor], compute, [((rows, 8), np.uint8)], name).outputs[0]
