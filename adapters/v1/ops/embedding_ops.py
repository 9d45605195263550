"""``tf.nn.embedding_lookup`` and ``tf.nn.embedding_lookup_sparse``.

A lookup is ``tf.gather`` of rows of the table (or of each partition of a
partitioned table), so ``tf.gradients`` gives the table an ``IndexedSlices``
gradient, as TF does, and the optimizers apply TF's sparse updates.

Partitioned tables (a list of variables, or a ``PartitionedVariable``) are split
by TF's ``"mod"`` or ``"div"`` strategy. TF partitions the ids with
``dynamic_partition`` (one lookup per partition of only its ids) and stitches
the rows back; jtrain compiles static shapes, so each partition's lookup takes
every id, with the ids of other partitions pointing past the partition's last
row (they read zeros and their gradient rows are dropped by the optimizers).
The looked-up values and the updates are TF's; a fetched gradient
``IndexedSlices`` of one partition has one row per id (zeros, index = the
partition's row count, for the ids of other partitions) where TF's has only the
partition's ids.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops, runtime_checks
from adapters.v1.framework.op_def import FUNCTIONS, np_dtype
from adapters.v1.framework.sparse_tensor import SparseTensor
from adapters.v1.ops import array_ops
from adapters.v1.ops.script_ops import lift
from adapters.v1.ops.sparse_ops import dense_shape_node
from jtrain import errors
from jtrain._numerics import kernel_divide, rounded_square

__all__ = ["embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]


def _params_list(params: Any) -> list[Any]:
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if hasattr(params, "_get_variable_list"):  # a PartitionedVariable
        return list(params)
    return list(params) if isinstance(params, (list, tuple)) else [params]


def _clip(rows: Any, ids_rank: int, max_norm: float):
    """Rows scaled to an L2 norm of at most ``max_norm`` (TF's ``clip_by_norm`` over the
    embedding dimensions, NaN-free gradient at zero rows)."""
    axes = tuple(range(ids_rank, rows.ndim))
    l2sum = jnp.sum(rounded_square(rows), axis=axes, keepdims=True)
    pred = l2sum > 0
    l2norm = jnp.where(pred, jnp.sqrt(jnp.where(pred, l2sum, jnp.ones_like(l2sum))), l2sum)
    clip = jnp.asarray(max_norm, rows.dtype)
    return kernel_divide(rows * clip, jnp.maximum(l2norm, clip))


def _row_counts(params: list[ops.Tensor]) -> list[int]:
    counts = []
    for p in params:
        shape = p._shape
        if shape is None or not shape or shape[0] is None:
            raise ValueError(
                f"embedding_lookup: partition {p.name} needs a known first dimension "
                "(jtrain splits the ids by the partitions' static row counts)."
            )
        counts.append(int(shape[0]))
    return counts


def _partition(flat: Any, counts: list[int], strategy: str) -> tuple[Any, Any]:
    """(partition of each id, its row within the partition), TF's mod/div strategies."""
    n = len(counts)
    dtype = flat.dtype
    if strategy == "mod":
        return flat % jnp.asarray(n, dtype), flat // jnp.asarray(n, dtype)
    total = jnp.asarray(sum(counts), dtype)
    per = total // jnp.asarray(n, dtype)
    extras = total % jnp.asarray(n, dtype)
    one = jnp.asarray(1, dtype)
    assign = jnp.maximum(flat // (per + one), (flat - extras) // per)
    local = jnp.where(assign < extras, flat % (per + one), (flat - extras) % per)
    return assign, local


def embedding_lookup(
    params: Any,
    ids: Any,
    partition_strategy: str = "mod",
    name: str | None = None,
    validate_indices: bool = True,
    max_norm: float | None = None,
) -> ops.Tensor:
    """Rows of ``params`` for each id (``tf.compat.v1.nn.embedding_lookup``).

    Args:
      params: a table (variable or tensor), or a list of tables (a partitioned
        table, or a ``PartitionedVariable``) sharing their row shape.
      ids: integer tensor of any shape (dimensions may be unknown until the step
        runs, as a fed batch's; a partitioned table needs the rank).
      partition_strategy: ``"mod"`` (default: id ``i`` in partition ``i % n``) or
        ``"div"`` (contiguous ranges), as TF; used when ``params`` is a list of more
        than one table.
      name: the op name (default ``"embedding_lookup"``).
      validate_indices: TF ignores it (deprecated); so does jtrain.
      max_norm: if not None, rows with a larger L2 norm are scaled down to it.

    Returns:
      A tensor of shape ``ids.shape + params.shape[1:]``.

    Raises:
      ValueError: no params, an unknown ``partition_strategy``, or ids of unknown
        rank for a partitioned table.

    Raises at run time:
      InvalidArgumentError: an id outside the table (TF's CPU message, after the
        step's program ran: see ``framework/runtime_checks.py``).
    """
    del validate_indices  # deprecated and unused in TF
    tables = _params_list(params)
    with ops.name_scope(name or "embedding_lookup"):
        tables = [ops.convert_to_tensor(t) for t in tables]
        ids = ops.convert_to_tensor(ids)
        gather = FUNCTIONS["gather"]
        ids_rank = len(ids._shape) if ids._shape is not None else None
        if len(tables) == 1:
            result = gather(tables[0], ids)
        else:
            if partition_strategy not in ("mod", "div"):
                raise ValueError(
                    f"Unrecognized partition strategy: {partition_strategy}."
                    "Must be one of either `mod` or `div`."
                )
            counts = _row_counts(tables)
            result = _partitioned(tables, ids, counts, partition_strategy)
        if max_norm is not None:
            if ids_rank is None:
                raise ValueError("embedding_lookup: max_norm needs ids of known rank")
            result = lift(lambda r: _clip(r, ids_rank, max_norm), [result], name="clip_by_norm")
        return array_ops.identity(result)


def _partitioned(tables, ids, counts, strategy, valid=None) -> ops.Tensor:
    """The lookup in a partitioned table; ``valid`` (optional, bool ``[len(ids)]``)
    leaves the other entries out (zeros, no gradient rows)."""
    n = len(tables)
    if ids._shape is None:
        raise ValueError("embedding_lookup in a partitioned table needs ids of known rank")
    # A dimension unknown when the graph is built (a fed batch) is known in the step.
    size = None if None in ids._shape else int(np.prod(ids._shape, dtype=np.int64))
    limits = np.asarray(counts, np.int64)

    def compute(ctx: Any, i: Any, *mask: Any) -> tuple[Any, ...]:
        flat = jnp.reshape(i, (-1,))
        assign, local = _partition(flat, counts, strategy)
        known = (assign >= 0) & (assign < n)
        limit = jnp.asarray(limits)[jnp.clip(assign, 0, n - 1)].astype(local.dtype)
        good = known & (local >= 0) & (local < limit)
        use = mask[0] if mask else jnp.ones(flat.shape, bool)
        runtime_checks.check(ctx, op, jnp.all(good | ~use), assign, local, use)
        # Ids of other partitions point past the partition's rows (zeros, no gradient).
        padded = tuple(
            jnp.where((assign == p) & use, local, jnp.asarray(counts[p], local.dtype))
            for p in range(n)
        )
        return (*padded, assign)

    graph = ids.graph
    op = graph.create_op(
        "DynamicPartition",
        "partition_ids",
        inputs=[ids] + ([valid] if valid is not None else []),
        compute=compute,
        output_specs=[((size,), ids.dtype)] * (n + 1),
    )
    runtime_checks.mark(op, lambda a, loc, use: _partition_error(op, a[use], loc[use], counts))
    *locals_, assign = op.outputs
    rows = [_gather_rows(t, local) for t, local in zip(tables, locals_, strict=True)]

    def stitch(ctx: Any, i: Any, a: Any, *parts: Any) -> tuple[Any]:
        out = parts[0]
        for p in range(1, n):
            out = jnp.where((a == p).reshape((-1,) + (1,) * (out.ndim - 1)), parts[p], out)
        return (jnp.reshape(out, i.shape + out.shape[1:]),)

    shape = (*ids._shape, *tables[0]._shape[1:])
    stitched = graph.create_op(
        "DynamicStitch", "stitch", inputs=[ids, assign, *rows], compute=stitch,
        output_specs=[(shape, tables[0].dtype)],
    )  # fmt: skip
    return stitched.outputs[0]


def _gather_rows(table: ops.Tensor, local: ops.Tensor) -> ops.Tensor:
    """``table[local]`` with the padding ids (past the last row) reading zeros: a row
    gather (``GatherV2``, axis 0) whose gradient is an ``IndexedSlices``; the ids were
    checked by the partition node."""

    def compute(ctx: Any, t: Any, i: Any) -> tuple[Any]:
        return (jnp.take(t, i, axis=0, mode="fill", fill_value=0),)

    shape = (local._shape[0], *table._shape[1:])
    op = table.graph.create_op(
        "GatherV2", "GatherV2", inputs=[table, local], compute=compute,
        output_specs=[(shape, table.dtype)],
    )  # fmt: skip
    op._static_attrs = {"axis": None, "batch_dims": 0}
    return op.outputs[0]


def _partition_error(op: ops.Operation, assign: Any, local: Any, counts: list[int]) -> Any:
    """TF's error for the first bad id: its ``dynamic_partition`` (``div``: an id past
    the table) or its partition's gather (an id past the partition's rows)."""
    n = len(counts)
    bad = np.flatnonzero((assign < 0) | (assign >= n))
    if bad.size:
        k = int(bad[0])
        return errors.InvalidArgumentError(
            None, op, f"partitions[{k}] = {int(assign[k])} is not in [0, {n})"
        )
    for p in range(n):
        ids_p = local[assign == p]
        bad = np.flatnonzero((ids_p < 0) | (ids_p >= counts[p]))
        if bad.size:
            j = int(bad[0])
            return errors.InvalidArgumentError(
                None, op, f"indices[{j}] = {int(ids_p[j])} is not in [0, {counts[p]})"
            )
    return errors.InvalidArgumentError(None, op, "embedding_lookup: an id is out of range")


def embedding_lookup_sparse(
    params: Any,
    sp_ids: SparseTensor,
    sp_weights: SparseTensor | None,
    partition_strategy: str = "mod",
    name: str | None = None,
    combiner: str | None = None,
    max_norm: float | None = None,
    allow_fast_lookup: bool = False,
) -> ops.Tensor:
    """Combined embeddings of each row of a sparse batch of ids
    (``tf.compat.v1.nn.embedding_lookup_sparse``).

    Args:
      params: the table(s), as ``embedding_lookup``.
      sp_ids: ``SparseTensor`` ``[batch, n]`` of int64 ids (row ``r``'s ids are its values).
      sp_weights: ``SparseTensor`` of weights with ``sp_ids``'s indices, or None (all 1).
      partition_strategy: ``"mod"`` or ``"div"``, as ``embedding_lookup``.
      name: the op name (default ``"embedding_lookup_sparse"``).
      combiner: ``"mean"`` (TF's default), ``"sqrtn"`` or ``"sum"``.
      max_norm: as ``embedding_lookup``.
      allow_fast_lookup: accepted for TF's signature (same result).

    Returns:
      A tensor ``[batch, *params.shape[1:]]``: per row, the weighted sum of its
      embeddings, divided by the weights' sum (``mean``) or by the root of the
      squared weights' sum (``sqrtn``); rows without ids are zeros.

    Raises:
      ValueError: unknown ``combiner``.
      TypeError: ``sp_ids`` is not a ``SparseTensor``.
      NotImplementedError: ``sp_ids``' dense shape depends on the step's data.

    Raises at run time:
      UnimplementedError: the last row of a fed ``sp_ids`` has no ids (see the note).

    ``sp_ids`` may be fed (``tf.sparse_placeholder``): its number of values may
    change every run (one program per number, see ``ops/sparse_ops.py``).

    .. note:: TF's result has ``max(row with ids) + 1`` rows. With constant indices
       jtrain's has as many; otherwise it has ``dense_shape[0]`` rows (the fed dense
       shape, a constant of the step's program), and a run whose last rows have no
       ids raises ``UnimplementedError`` rather than return more rows than TF.
    """
    del allow_fast_lookup
    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError(f"sp_weights must be either None or SparseTensor, got {type(sp_weights)}")
    fixed = _rows_of_constant(sp_ids)
    with ops.name_scope(name or "embedding_lookup_sparse"):
        segments = sp_ids.indices
        rows = embedding_lookup(
            params, sp_ids.values, partition_strategy=partition_strategy, max_norm=max_norm
        )
        inputs = [rows, segments] + ([sp_weights.values] if sp_weights is not None else [])

        def combine(ctx, op, shape, r, seg, w=None):
            seg = seg[:, 0].astype(jnp.int32)
            batch = fixed
            if batch is None:
                # dense_shape[0] rows: TF's max(row with ids) + 1 when the last row has ids.
                batch = shape[0]
                top = jnp.max(seg, initial=-1) + 1
                runtime_checks.check(ctx, op, top == batch, top, jnp.asarray(batch))
            dtype = r.dtype
            if w is None:
                w = jnp.ones(r.shape[:1], dtype)
            w = w.astype(dtype).reshape((-1,) + (1,) * (r.ndim - 1))
            total = jax.ops.segment_sum(r * w, seg, batch)
            if combiner == "sum":
                return (total,)
            den = jax.ops.segment_sum(w * w if combiner == "sqrtn" else w, seg, batch)
            if combiner == "sqrtn":
                den = jnp.sqrt(den)
            safe = jnp.where(den == 0, jnp.ones_like(den), den)
            return (jnp.where(den == 0, jnp.zeros_like(total), total / safe),)

        def trailing(top: Any, batch: Any) -> Any:
            return errors.UnimplementedError(
                None,
                op,
                f"embedding_lookup_sparse: sp_ids has no ids in its last rows (dense_shape[0] "
                f"= {int(batch)}, last row with ids + 1 = {int(top)}): TF's result then has "
                f"{int(top)} rows, and jtrain compiles it with dense_shape[0] rows. Feed a "
                "dense_shape whose first dimension is the last row with ids + 1, or use "
                "tf.nn.safe_embedding_lookup_sparse (dense_shape[0] rows, as TF).",
            )

        shape = (fixed, *(rows._shape[1:] if rows._shape is not None else ()))
        op = dense_shape_node(
            "JaxFunction", combiner, inputs, sp_ids.dense_shape, combine,
            [(shape if rows._shape is not None else None, rows.dtype)],
            checks=(trailing,) if fixed is None else (), what="tf.nn.embedding_lookup_sparse",
        )  # fmt: skip
        return op.outputs[0]


def _rows_of_constant(sp: SparseTensor) -> int | None:
    """TF's number of result rows (the last row with ids + 1) when ``sp``'s indices are a
    constant; None otherwise (then ``dense_shape[0]``, checked when the step runs)."""
    const = sp.indices.op._const_value
    if const is None:
        return None
    rows = np.asarray(const).reshape(-1, np.asarray(const).shape[-1] if np.ndim(const) else 1)
    return int(rows[:, 0].max()) + 1 if rows.size else 0


def safe_embedding_lookup_sparse(
    embedding_weights: Any,
    sparse_ids: SparseTensor,
    sparse_weights: SparseTensor | None = None,
    combiner: str = "mean",
    default_id: int | None = None,
    name: str | None = None,
    partition_strategy: str = "div",
    max_norm: float | None = None,
    allow_fast_lookup: bool = False,
) -> ops.Tensor:
    """``embedding_lookup_sparse`` that ignores invalid ids and weights and fills empty
    rows (``tf.compat.v1.nn.safe_embedding_lookup_sparse``).

    Ids < 0 are dropped, and with ``combiner`` other than ``"sum"`` so are entries of
    weight <= 0. A row left without ids looks up ``default_id`` with weight 1, or,
    when ``default_id`` is None, gives zeros (TF looks up id 0 for it and zeroes the
    result, so row 0 gets a zero gradient row: so does jtrain).

    Args:
      embedding_weights: the table(s), as ``embedding_lookup``'s ``params``.
      sparse_ids: ``SparseTensor`` ``[batch, n]`` of int64 ids.
      sparse_weights: ``SparseTensor`` of weights, or None (all 1).
      combiner: ``"mean"`` (default), ``"sqrtn"`` or ``"sum"``.
      default_id: the id of empty rows (default None: zeros).
      name: the op name (default ``"embedding_lookup"``).
      partition_strategy: ``"div"`` (TF's default here) or ``"mod"``.
      max_norm: as ``embedding_lookup``.
      allow_fast_lookup: accepted for TF's signature.

    Returns:
      A tensor ``[batch, *embedding_weights.shape[1:]]``.

    Raises:
      ValueError: no table, unknown ``combiner``, ``sparse_ids`` of a known rank
        other than 2.
      NotImplementedError: ``sparse_ids``' dense shape depends on the step's data.

    Raises at run time (when the step is compiled):
      UnimplementedError: a fed dense shape of rank other than 2.

    ``sparse_ids`` may be fed (``tf.sparse_placeholder``): the result has the fed
    ``dense_shape[0]`` rows, as TF's.
    """
    del allow_fast_lookup
    if embedding_weights is None or (
        isinstance(embedding_weights, (list, tuple)) and not embedding_weights
    ):
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    tables = [ops.convert_to_tensor(t) for t in _params_list(embedding_weights)]
    rank = sparse_ids.dense_shape._shape
    if rank is not None and rank[0] is not None and tuple(rank) != (2,):
        raise ValueError(
            "safe_embedding_lookup_sparse: jtrain supports sparse_ids of rank 2 "
            "([batch, ids]); reshape higher-rank ids to rank 2 first."
        )
    static = sparse_ids.get_shape()
    fixed = static.as_list()[0] if static.rank == 2 else None
    if len(tables) > 1 and partition_strategy not in ("mod", "div"):
        raise ValueError(
            f"Unrecognized partition strategy: {partition_strategy}."
            "Must be one of either `mod` or `div`."
        )
    weighted = sparse_weights is not None
    with ops.name_scope(name or "embedding_lookup"):
        inputs = [sparse_ids.values, sparse_ids.indices]
        if weighted:
            inputs.append(sparse_weights.values)
        dtype = tables[0].dtype

        def prepare(ctx, op, shape, ids, indices, w=None):
            if len(shape) != 2:
                raise errors.UnimplementedError(
                    None, op, "safe_embedding_lookup_sparse: jtrain supports sparse_ids of "
                    f"rank 2 ([batch, ids]), got dense_shape {list(shape)}; reshape them first.",
                )  # fmt: skip
            batch = shape[0]
            seg = indices[:, 0].astype(jnp.int32)
            valid = ids >= 0
            if w is not None and combiner != "sum":
                valid = valid & (w > 0)
            count = jax.ops.segment_sum(valid.astype(jnp.int32), seg, batch)
            empty = count == 0
            fill = jnp.full((batch,), 0 if default_id is None else default_id, ids.dtype)
            all_ids = jnp.concatenate([ids, fill])
            all_seg = jnp.concatenate([seg, jnp.arange(batch, dtype=jnp.int32)])
            all_valid = jnp.concatenate([valid, empty])
            ones = jnp.ones((batch,), np_dtype(dtype))
            w = jnp.ones(ids.shape, np_dtype(dtype)) if w is None else w.astype(np_dtype(dtype))
            all_w = jnp.where(all_valid, jnp.concatenate([w, ones]), jnp.zeros_like(ones[:1]))
            return all_ids, all_seg, all_valid, all_w, empty

        n = sparse_ids.values._shape[0] if sparse_ids.values._shape else None
        total = None if n is None or fixed is None else n + fixed
        pruned = dense_shape_node(
            "JaxFunction", "prune", inputs, sparse_ids.dense_shape, prepare,
            [((total,), sparse_ids.values.dtype), ((total,), np.dtype(np.int32)),
             ((total,), np.dtype(bool)), ((total,), dtype), ((fixed,), np.dtype(bool))],
            what="tf.nn.safe_embedding_lookup_sparse",
        )  # fmt: skip
        ids, seg, valid, w, empty = pruned.outputs
        if len(tables) == 1:
            rows = _masked_rows(tables[0], ids, valid)
        else:
            rows = _partitioned(tables, ids, _row_counts(tables), partition_strategy, valid)
        if max_norm is not None:
            rows = lift(lambda r: _clip(r, 1, max_norm), [rows], name="clip_by_norm")

        def combine(ctx, op, shape, r, s, wt, e):
            batch = shape[0]
            wt = wt.reshape((-1,) + (1,) * (r.ndim - 1))
            total = jax.ops.segment_sum(r * wt, s, batch)
            if combiner != "sum":
                den = jax.ops.segment_sum(wt * wt if combiner == "sqrtn" else wt, s, batch)
                if combiner == "sqrtn":
                    den = jnp.sqrt(den)
                safe = jnp.where(den == 0, jnp.ones_like(den), den)
                total = jnp.where(den == 0, jnp.zeros_like(total), total / safe)
            if default_id is None:
                total = jnp.where(e.reshape((-1,) + (1,) * (r.ndim - 1)), 0, total)
            return (total,)

        out_shape = (fixed, *rows._shape[1:]) if rows._shape is not None else None
        op = dense_shape_node(
            "JaxFunction", combiner, [rows, seg, w, empty], sparse_ids.dense_shape, combine,
            [(out_shape, rows.dtype)],
        )  # fmt: skip
        return op.outputs[0]


def _masked_rows(table: ops.Tensor, ids: ops.Tensor, valid: ops.Tensor) -> ops.Tensor:
    """``table[ids]`` for the valid entries (checked as TF's lookup of the unique valid
    ids); the others read zeros and have no gradient (their index is past the table)."""
    n = _row_counts([table])[0]

    def compute(ctx: Any, i: Any, v: Any) -> tuple[Any]:
        ok = jnp.all(~v | ((i >= 0) & (i < n)))
        runtime_checks.check(ctx, op, ok, i, v)
        return (jnp.where(v, i, jnp.asarray(n, i.dtype)),)

    op = ids.graph.create_op(
        "Prune", "prune_ids", inputs=[ids, valid], compute=compute,
        output_specs=[(ids._shape, ids.dtype)],
    )  # fmt: skip

    def error(i: Any, v: Any) -> Any:
        unique = list(dict.fromkeys(int(x) for x in i[v]))
        for k, x in enumerate(unique):
            if not 0 <= x < n:
                return errors.InvalidArgumentError(
                    None, op, f"indices[{k}] = {x} is not in [0, {n})"
                )
        return errors.InvalidArgumentError(None, op, "embedding_lookup: an id is out of range")

    runtime_checks.mark(op, error)
    return _gather_rows(table, op.outputs[0])
