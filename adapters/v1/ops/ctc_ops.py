"""TF's connectionist temporal classification ops (``tf.nn.ctc_*``).

``tf.nn.ctc_loss`` (TF1's, op ``CTCLoss``) is one node computing TF's kernel
(``core/util/ctc/ctc_loss_calculator.h``) in the step's XLA program: per batch
entry ``b`` with ``T_b = sequence_length[b]`` frames and the label sequence
``l`` (the labels of row ``b`` of the ``SparseTensor``, repeats collapsed when
``preprocess_collapse_repeated``, ending at the first blank), the extended
sequence ``l' = [blank, l_1, blank, ..., l_U, blank]`` and the softmax ``y`` of
the logits,

.. math::

   \\alpha_t(u) = \\log y_t(l'_u) + \\operatorname{lse}(\\alpha_{t-1}(u),
   \\alpha_{t-1}(u-1), \\alpha_{t-1}(u-2)), \\qquad
   \\text{loss}_b = -\\operatorname{lse}_u(\\alpha_0(u) + \\beta_0(u)),

in log space, with TF's order of operations: ``lse(a, b) = max + log1p(exp(min -
max))`` (its ``exp``/``log1p`` in float32, as TF's ``expf``/``log1pf``, whatever
the dtype), folded term by term as TF's loops do, and TF's pruning of the states
that cannot reach the end (``-inf``). The gradient w.r.t. the logits is TF's
kernel's, ``y_t(k) - exp(lse_{u: l'_u = k}(\\alpha_t(u) + \\beta_t(u)) +
\\text{loss}_b)``, scaled by the loss's cotangent (TF's ``_CTCLossGrad``).

The forward and backward recursions are ``lax.scan`` over time, vectorized over
the batch. The labels arrive as the ``SparseTensor``'s indices and values; their
rows become a dense ``[batch, min(nnz, max_time)]`` matrix inside the program (a
longer row cannot fit in time: TF refuses it, or skips it with
``ignore_longer_outputs_than_inputs``).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS, OpDef, _parse_signature, lift
from adapters.v1.framework.sparse_tensor import SparseTensor, SparseTensorValue
from jtrain import errors

__all__ = [
    "collapse_repeated",
    "ctc_beam_search_decoder",
    "ctc_beam_search_decoder_v2",
    "ctc_greedy_decoder",
    "ctc_loss",
    "ctc_loss_v2",
    "ctc_unique_labels",
]


# -- TF's log-space sum -------------------------------------------------------------------
def _lse(a: Any, b: Any) -> Any:
    """TF's ``ctc::LogSumExp(a, b)``: ``-inf`` is the identity; otherwise the larger
    plus ``log1pf(expf(smaller - larger))``, the correction in float32 (TF's ``expf``
    and ``log1pf`` whatever the dtype)."""
    neg_inf = jnp.asarray(-jnp.inf, a.dtype)
    big = jnp.where(a > b, a, b)
    small = jnp.where(a > b, b, a)
    diff = jnp.where((a == neg_inf) | (b == neg_inf), 0, small - big).astype(jnp.float32)
    both = big + jnp.log1p(jnp.exp(diff)).astype(a.dtype)
    return jnp.where(a == neg_inf, b, jnp.where(b == neg_inf, a, both))


# -- the labels of each batch entry ---------------------------------------------------------
def _label_rows(indices: Any, values: Any, batch: int, width: int) -> tuple[Any, Any]:
    """``(rows [batch, width], counts [batch])``: each batch entry's label values in
    order (TF groups the sorted entries by their first index), and how many it has."""
    n = values.shape[0]
    b = indices[:, 0].astype(jnp.int32)
    inside = (b >= 0) & (b < batch)
    bs = jnp.where(inside, b, 0)
    counts = jnp.zeros((batch,), jnp.int32).at[bs].add(inside.astype(jnp.int32))
    starts = jnp.cumsum(counts) - counts
    pos = jnp.arange(n, dtype=jnp.int32) - starts[bs]
    keep = inside & (pos >= 0) & (pos < width)
    rows = jnp.zeros((batch, width), jnp.int32)
    rows = rows.at[jnp.where(keep, bs, batch), jnp.where(keep, pos, 0)].set(values, mode="drop")
    return rows, counts


def _extended(rows: Any, counts: Any, collapse: bool, blank: int) -> tuple[Any, Any]:
    """``(l' [batch, 2 * width + 1], U [batch])``: TF's ``l'`` (blanks around the
    labels kept: repeats dropped when ``collapse``, up to the first null label)."""
    batch, width = rows.shape
    i = jnp.arange(width)
    valid = i[None, :] < counts[:, None]
    same = jnp.concatenate([jnp.zeros((batch, 1), bool), rows[:, 1:] == rows[:, :-1]], axis=1)
    kept = valid & ~same if collapse else valid
    kept = kept & (rows < blank)
    dest = jnp.cumsum(kept, axis=1) - 1
    labels = jnp.full((batch, width), blank, jnp.int32)
    b_index = jnp.broadcast_to(jnp.arange(batch)[:, None], (batch, width))
    labels = labels.at[b_index, jnp.where(kept, dest, width)].set(rows, mode="drop")
    size = jnp.sum(kept, axis=1).astype(jnp.int32)
    lp = jnp.full((batch, 2 * width + 1), blank, jnp.int32)
    lp = lp.at[:, 1::2].set(labels)
    return lp, 2 * size + 1


def _ctc_kernel(logits: Any, lp: Any, big_u: Any, seq: Any, merge: bool, blank: int):
    """TF's ``CTCLossCalculator`` for every batch entry: ``(loss [B], gradient [T, B, C])``
    (entries of ``seq == 0`` included: the caller zeroes the skipped ones)."""
    dtype = logits.dtype
    steps, batch, _ = logits.shape
    width = lp.shape[1]
    neg_inf = jnp.asarray(-jnp.inf, dtype)
    m = jnp.max(logits, axis=-1, keepdims=True)
    e = jnp.exp(logits - m)
    y = e / jnp.sum(e, axis=-1, keepdims=True)
    log_y = jnp.log(y)
    ly = jnp.take_along_axis(log_y, jnp.broadcast_to(lp[None], (steps, batch, width)), axis=2)
    u = jnp.arange(width)[None, :]
    is_blank = lp == blank
    stay = jnp.asarray(merge) | is_blank
    prev2 = jnp.concatenate([jnp.full((batch, 2), -1, jnp.int32), lp[:, :-2]], axis=1)
    skip_in = (u > 1) & ~is_blank & ~(merge & (lp == prev2))  # alpha: from u - 2
    next2 = jnp.concatenate([lp[:, 2:], jnp.full((batch, 2), -1, jnp.int32)], axis=1)
    skip_out = (u + 2 < big_u[:, None]) & ~is_blank & ~(merge & (lp == next2))  # beta
    big_u_ = big_u[:, None]
    seq_ = seq[:, None]

    def window(t: Any) -> Any:  # TF's states alive at t (others stay -inf)
        lo = jnp.maximum(0, big_u_ - 2 * (seq_ - t))
        hi = jnp.minimum(big_u_, 2 * (t + 1))
        return (u >= lo) & (u < hi)

    def shift(a: Any, k: int) -> Any:
        return jnp.concatenate([jnp.full((batch, k), neg_inf, dtype), a[:, :-k]], axis=1)

    def unshift(a: Any, k: int) -> Any:
        return jnp.concatenate([a[:, k:], jnp.full((batch, k), neg_inf, dtype)], axis=1)

    alpha0 = jnp.where(u < 2, ly[0], neg_inf)

    def forward(a: Any, t: Any) -> tuple[Any, Any]:
        s = jnp.where(stay, a, neg_inf)
        s = jnp.where(u > 0, _lse(s, shift(a, 1)), s)
        s = jnp.where(skip_in, _lse(s, shift(a, 2)), s)
        new = jnp.where(window(t) & (t < seq_), ly[t] + s, neg_inf)
        return new, new

    _, alphas = lax.scan(forward, alpha0, jnp.arange(1, steps))
    alpha = jnp.concatenate([alpha0[None], alphas], axis=0)  # [T, B, U']

    start = jnp.where((u >= big_u_ - 2) & (u < big_u_), jnp.zeros((), dtype), neg_inf)

    def backward(b_next: Any, t: Any) -> tuple[Any, Any]:
        ly_next = ly[jnp.minimum(t + 1, steps - 1)]
        term = b_next + ly_next
        v = jnp.where(stay, term, neg_inf)
        v = jnp.where(u + 1 < big_u_, _lse(v, unshift(term, 1)), v)
        v = jnp.where(skip_out, _lse(v, unshift(term, 2)), v)
        rec = jnp.where(window(t) & (t < seq_ - 1), v, neg_inf)
        new = jnp.where(t == seq_ - 1, start, rec)
        return new, new

    _, betas = lax.scan(
        backward, jnp.full((batch, width), neg_inf, dtype), jnp.arange(steps), reverse=True
    )
    both = alpha + betas  # [T, B, U']

    def fold(acc: Any, col: Any) -> tuple[Any, None]:
        return _lse(acc, col), None

    log_p, _ = lax.scan(fold, jnp.full((batch,), neg_inf, dtype), jnp.moveaxis(both[0], 1, 0))

    # prob_sum[t, b, k] = lse over u with l'_u = k, in order of u (TF's loop).
    classes = logits.shape[2]
    t_idx = jnp.arange(steps)[:, None]
    b_idx = jnp.arange(batch)[None, :]

    def gather_class(acc: Any, k: Any) -> tuple[Any, None]:
        col, label = k
        cur = acc[t_idx, b_idx, label[None, :]]
        return acc.at[t_idx, b_idx, label[None, :]].set(_lse(cur, col)), None

    prob, _ = lax.scan(
        gather_class,
        jnp.full((steps, batch, classes), neg_inf, dtype),
        (jnp.moveaxis(both, 2, 0), jnp.moveaxis(lp, 1, 0)),
    )
    diff = (prob - log_p[None, :, None]).astype(jnp.float32)
    grad = y - jnp.exp(diff).astype(dtype)
    grad = jnp.where(jnp.isneginf(log_p)[None, :, None], y, grad)
    live = jnp.arange(steps)[:, None] < seq[None, :]
    return -log_p, jnp.where(live[:, :, None], grad, jnp.zeros((), dtype))


@functools.partial(jax.custom_vjp, nondiff_argnums=(4, 5, 6))
def _ctc(inputs, labels_indices, labels_values, sequence_length, collapse, merge, ignore):
    return _ctc_forward(
        inputs, labels_indices, labels_values, sequence_length, collapse, merge, ignore
    )


def _ctc_forward(inputs, labels_indices, labels_values, sequence_length, collapse, merge, ignore):
    steps, batch, classes = inputs.shape
    blank = classes - 1
    width = max(1, min(labels_values.shape[0], steps))
    rows, counts = _label_rows(labels_indices, labels_values, batch, width)
    lp, big_u = _extended(rows, counts, collapse, blank)
    seq = sequence_length.astype(jnp.int32)
    loss, grad = _ctc_kernel(inputs, lp, big_u, seq, merge, blank)
    skipped = (seq == 0) | (counts > seq) if ignore else seq == 0
    loss = jnp.where(skipped, jnp.zeros((), inputs.dtype), loss)
    grad = jnp.where(skipped[None, :, None], jnp.zeros((), inputs.dtype), grad)
    return loss, grad


def _ctc_fwd(inputs, labels_indices, labels_values, sequence_length, collapse, merge, ignore):
    loss, grad = _ctc_forward(
        inputs, labels_indices, labels_values, sequence_length, collapse, merge, ignore
    )
    return (loss, grad), grad


def _ctc_bwd(collapse, merge, ignore, grad, cotangents):
    g_loss, _ = cotangents  # TF: the gradient output has no gradient of its own
    return g_loss[None, :, None] * grad, None, None, None


_ctc.defvjp(_ctc_fwd, _ctc_bwd)


def _ctc_loss_impl(
    inputs,
    labels_indices,
    labels_values,
    sequence_length,
    preprocess_collapse_repeated=False,
    ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False,
):
    if inputs.ndim != 3:
        from adapters.v1.framework.op_def import OpValueError

        raise OpValueError(
            f"Shape must be rank 3 but is rank {inputs.ndim} for '{{{{node CTCLoss}}}} = "
            f"CTCLoss' with input shapes: [{','.join(str(d) for d in inputs.shape)}]."
        )
    return _ctc(
        inputs,
        labels_indices,
        labels_values,
        sequence_length,
        bool(preprocess_collapse_repeated),
        bool(ctc_merge_repeated),
        bool(ignore_longer_outputs_than_inputs),
    )


# -- TF's run-time errors ------------------------------------------------------------------
def _ctc_valid(
    inputs,
    labels_indices,
    labels_values,
    sequence_length,
    preprocess_collapse_repeated=False,
    ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False,
):
    """``(ok, data)``: whether TF's kernel accepts the arguments; the data replays its
    checks on the host for TF's message (``_ctc_error``)."""
    steps, batch, classes = inputs.shape
    idx = labels_indices.astype(jnp.int64)
    n = labels_values.shape[0]
    b, col = idx[:, 0], idx[:, 1]
    in_bounds = jnp.all((b >= 0) & (b < batch) & (col >= 0))
    ordered = jnp.all((b[1:] > b[:-1]) | ((b[1:] == b[:-1]) & (col[1:] > col[:-1])))
    seq = sequence_length.astype(jnp.int64)
    seq_ok = jnp.all((seq >= 0) & (seq <= steps))
    if n == 0:  # every row is empty
        return jnp.zeros((), bool), (idx, labels_values, seq, jnp.asarray([steps, batch, classes]))
    bs = jnp.clip(b, 0, batch - 1).astype(jnp.int32)
    counts = jnp.zeros((batch,), jnp.int32).at[bs].add(1)
    nonempty = jnp.all(counts > 0)
    # Entry i's label: kept (not a collapsed repeat), null (>= num_classes - 1).
    v = labels_values
    same_row = jnp.concatenate([jnp.zeros((1,), bool), b[1:] == b[:-1]])
    repeat = same_row & jnp.concatenate([jnp.zeros((1,), bool), v[1:] == v[:-1]])
    kept = ~repeat if preprocess_collapse_repeated else jnp.ones((n,), bool)
    null = kept & (v >= classes - 1)
    # Whether a null comes before entry i in its row.
    before = jnp.cumsum(null.astype(jnp.int32)) - null.astype(jnp.int32)
    start = lax.cummax(jnp.where(same_row, 0, jnp.arange(n)), axis=0)
    null_before = before > before[start]
    after_null = jnp.any(kept & ~null & null_before)
    negative = jnp.any(kept & ~null & (v < 0))
    enough = jnp.ones((), bool) if ignore_longer_outputs_than_inputs else jnp.all(counts <= seq)
    ok = in_bounds & ordered & seq_ok & nonempty & ~after_null & ~negative & enough
    return ok, (idx, labels_values, seq.astype(jnp.int64), jnp.asarray([steps, batch, classes]))


def _ctc_error(op: ops.Operation, indices, values, seq, dims) -> errors.OpError:
    """TF's ``InvalidArgumentError`` of the first check its kernel fails (its order)."""
    steps, batch, classes = (int(d) for d in dims)
    fail = functools.partial(errors.InvalidArgumentError, None, op)
    bound = [batch, int(indices[:, 1].max()) + 1 if len(indices) else 0]
    for i, (row, col) in enumerate(indices.tolist()):
        if not (0 <= row < bound[0] and 0 <= col < bound[1]):
            return fail(
                f"label SparseTensor is not valid: indices[{i}] = [{row},{col}] is out of "
                f"bounds: need 0 <= index < [{bound[0]},{bound[1]}]"
            )
        if i and (row, col) <= tuple(indices[i - 1].tolist()):
            return fail(
                f"label SparseTensor is not valid: indices[{i}] = [{row},{col}] is out of "
                "order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` "
                "to create a correctly ordered copy.\n\n"
            )
    for b_, s in enumerate(seq.tolist()):
        if s > steps:
            return fail(f"sequence_length({b_}) <= {steps}")
    for b_, s in enumerate(seq.tolist()):
        if s < 0:
            return fail(f"seq_len({b_}) < 0")
    rows: list[list[int]] = [[] for _ in range(batch)]
    for (row, _), value in zip(indices.tolist(), values.tolist(), strict=True):
        rows[row].append(int(value))
    collapse = bool(op._static_attrs.get("preprocess_collapse_repeated"))
    ignore = bool(op._static_attrs.get("ignore_longer_outputs_than_inputs"))
    for b_, label in enumerate(rows):
        if not label:
            return fail(f"Labels length is zero in batch {b_}")
        kept: list[int] = []
        finished = False
        for i, value in enumerate(label):
            if i == 0 or not collapse or value != label[i - 1]:
                if value >= classes - 1:
                    finished = True
                elif finished:
                    return fail(
                        "Saw a non-null label (index >= num_classes - 1) following a null "
                        f"label, batch: {b_} num_classes: {classes} labels: "
                        f"{','.join(map(str, label))} labels seen so far: "
                        f"{','.join(map(str, kept))}"
                    )
                else:
                    kept.append(value)
        if any(k < 0 for k in kept):
            return fail(
                f"All labels must be nonnegative integers, batch: {b_} labels: "
                f"{','.join(map(str, kept))}"
            )
        if not ignore and len(label) > seq[b_]:
            return fail(
                "Not enough time for target transition sequence (required: "
                f"{len(label)}, available: {int(seq[b_])}){b_}You can turn this error into a "
                "warning by using the flag ignore_longer_outputs_than_inputs"
            )
    return fail("CTCLoss: invalid arguments")


_CTC_LOSS_OP = lift(
    OpDef(
        names=("nn.ctc_loss",),
        op_type="CTCLoss",
        impl=_ctc_loss_impl,
        signature=_parse_signature(
            "inputs, labels_indices, labels_values, sequence_length, "
            "preprocess_collapse_repeated=False, ctc_merge_repeated=True, "
            "ignore_longer_outputs_than_inputs=False, name=None"
        ),
        tensors=("inputs", "labels_indices", "labels_values", "sequence_length"),
        same_dtype=(),
        allowed={
            "inputs": ("float32", "float64"),
            "labels_indices": ("int64",),
            "labels_values": ("int32",),
            "sequence_length": ("int32",),
        },
        default_name="CTCLoss",
        tf_gradient="TF's kernel: softmax minus the state occupation of each class, times "
        "the loss's cotangent; no second derivative",
        runtime_check=(_ctc_valid, _ctc_error),
    )
)


def _sparse_labels(labels: Any) -> SparseTensor:
    if isinstance(labels, SparseTensorValue):
        return SparseTensor.from_value(labels)
    if not isinstance(labels, SparseTensor):
        raise TypeError(
            "Expected argument `labels` to be a SparseTensor. Received "
            f"labels={labels} of type: {type(labels).__name__}"
        )
    return labels


def ctc_loss(
    labels: Any,
    inputs: Any = None,
    sequence_length: Any = None,
    preprocess_collapse_repeated: bool = False,
    ctc_merge_repeated: bool = True,
    ignore_longer_outputs_than_inputs: bool = False,
    time_major: bool = True,
    logits: Any = None,
) -> Any:
    """The CTC (connectionist temporal classification) loss (``tf.compat.v1.nn.ctc_loss``).

    The blank is the last class (``num_classes - 1``); a label ``>= num_classes - 1``
    ends the sequence (a later real label is an error).

    Args:
      labels: an int32 ``SparseTensor`` ``[batch, max_label_length]``; row ``b``'s
        values in order are batch entry ``b``'s labels.
      inputs: the logits, float ``[max_time, batch, num_classes]``
        (``[batch, max_time, num_classes]`` when ``time_major=False``); float16 and
        bfloat16 are computed in float32, as TF.
      sequence_length: int32 ``[batch]``, each entry's number of frames.
      preprocess_collapse_repeated: merge repeated labels first (default False).
      ctc_merge_repeated: let repeated outputs merge into one label (default True).
      ignore_longer_outputs_than_inputs: give loss 0 and gradient 0 to an entry
        whose labels outnumber its frames instead of failing (default False).
      time_major: whether ``inputs`` is time-major (default True).
      logits: ``inputs``' other (deprecated) name.

    Returns:
      The loss ``[batch]`` (negative log probability) of ``inputs``' dtype.

    Raises:
      TypeError: ``labels`` is not a ``SparseTensor``.
      InvalidArgumentError: at run time, as TF's kernel: labels longer than an
        entry's frames ("Not enough time for target transition sequence"), a
        ``sequence_length`` above ``max_time`` or negative, an empty label row,
        unsorted or out-of-range label indices, negative labels.

    .. note:: TF's gradient is its kernel's: w.r.t. the logits (the softmax is inside
       the op); an entry with ``sequence_length == 0`` has loss 0 and gradient 0.
    """
    sp = _sparse_labels(labels)
    if inputs is not None and logits is not None:
        raise ValueError("Cannot specify both 'logits' and 'inputs'.")
    x = ops.convert_to_tensor(logits if inputs is None else inputs, name="logits")
    if not time_major:
        x = FUNCTIONS["transpose"](x, [1, 0, 2])
    original = x.dtype
    narrow = dtypes.as_dtype(original).name in ("float16", "bfloat16")
    if narrow:
        x = FUNCTIONS["cast"](x, "float32")
    loss, _ = _CTC_LOSS_OP(
        x,
        sp.indices,
        sp.values,
        sequence_length,
        preprocess_collapse_repeated=preprocess_collapse_repeated,
        ctc_merge_repeated=ctc_merge_repeated,
        ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs,
    )
    if narrow:
        loss = FUNCTIONS["cast"](loss, original)
    return loss


# -- decoders (host operations) -----------------------------------------------------------
def _decoder_inputs(op_type: str, inputs: Any, sequence_length: Any) -> tuple[Any, Any]:
    x = ops.convert_to_tensor(inputs, name="inputs")
    seq = ops.convert_to_tensor(sequence_length, name="sequence_length")
    x_dtype = dtypes.as_dtype(x.dtype).name
    if x_dtype not in ("float32", "float64"):
        raise TypeError(
            f"Value passed to parameter 'inputs' has DataType {x_dtype} not in list of "
            "allowed values: float32, float64"
        )
    if dtypes.as_dtype(seq.dtype).name != "int32":
        raise TypeError(
            f"Value passed to parameter 'sequence_length' has DataType "
            f"{dtypes.as_dtype(seq.dtype).name} not in list of allowed values: int32"
        )
    for t, rank, what in ((x, 3, "inputs"), (seq, 1, "sequence_length")):
        if t._shape is not None and len(t._shape) != rank:
            raise ValueError(
                f"Shape must be rank {rank} but is rank {len(t._shape)} for '{op_type}' ({what})"
            )
    return x, seq


def _check_decoder_inputs(op: ops.Operation, x: np.ndarray, seq: np.ndarray) -> None:
    """TF's ``CTCDecodeHelper::ValidateInputsGenerateOutputs`` checks, at run time."""
    if x.size == 0:
        raise errors.InvalidArgumentError(None, op, "inputs must not be empty")
    if x.shape[1] != seq.shape[0]:
        raise errors.FailedPreconditionError(
            None,
            op,
            f"len(sequence_length) != batch_size.  len(sequence_length):  {seq.shape[0]} "
            f"batch_size: {x.shape[1]}",
        )
    for b, s in enumerate(seq.tolist()):
        if not s <= x.shape[0]:
            raise errors.FailedPreconditionError(None, op, f"sequence_length({b}) <= {x.shape[0]}")


def _sparse_paths(
    paths: list[list[list[int]]], batch: int, top_paths: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """TF's ``StoreAllDecodedSequences``: per path ``p`` the ``(indices [n, 2], values [n],
    dense_shape [2])`` (int64) of every batch entry's ``p``-th decoding."""
    out = []
    for p in range(top_paths):
        rows = [paths[b][p] for b in range(batch)]
        indices = np.array(
            [[b, t] for b, row in enumerate(rows) for t in range(len(row))], np.int64
        ).reshape(-1, 2)
        values = np.array([v for row in rows for v in row], np.int64)
        longest = max((len(r) for r in rows), default=0)
        out.append((indices, values, np.array([batch, longest], np.int64)))
    return out


def _decoder_node(
    op_type: str,
    name: str,
    x: Any,
    seq: Any,
    decode: Any,
    top_paths: int,
) -> tuple[list[SparseTensor], Any]:
    """A host node running ``decode(op, x, seq) -> (paths, log_probs)`` on NumPy values:
    outputs TF's ``decoded_indices``, ``decoded_values``, ``decoded_shape`` per path, then
    ``log_probability [batch, top_paths]``."""
    from adapters.v1.ops.data_flow_ops import placement

    # TF's shape function: the batch of ``inputs`` merged with ``sequence_length``'s.
    batch = x._shape[1] if x._shape is not None else None
    if batch is None and seq._shape is not None:
        batch = seq._shape[0]
    specs = (
        [((None, 2), np.dtype(np.int64))] * top_paths
        + [((None,), np.dtype(np.int64))] * top_paths
        + [((2,), np.dtype(np.int64))] * top_paths
        + [((batch, top_paths), np.dtype(dtypes.as_dtype(x.dtype).as_numpy_dtype))]
    )
    node: list[ops.Operation] = []

    def compute(session: Any, xv: Any, sv: Any) -> tuple[Any, ...]:
        xv, sv = np.asarray(xv), np.asarray(sv)
        _check_decoder_inputs(node[0], xv, sv)
        paths, log_probs = decode(node[0], xv, sv)
        parts = _sparse_paths(paths, xv.shape[1], top_paths)
        return (
            *(p[0] for p in parts),
            *(p[1] for p in parts),
            *(p[2] for p in parts),
            np.asarray(log_probs, xv.dtype).reshape(xv.shape[1], top_paths),
        )

    op = ops.get_default_graph().create_op(
        op_type,
        name,
        inputs=[x, seq],
        compute=compute,
        output_specs=specs,
        host=placement([x, seq]),
    )
    node.append(op)
    out = op.outputs
    decoded = [
        SparseTensor(out[p], out[top_paths + p], out[2 * top_paths + p]) for p in range(top_paths)
    ]
    return decoded, out[3 * top_paths]


def _greedy(merge_repeated: bool, blank_index: int):
    def decode(op: ops.Operation, x: np.ndarray, seq: np.ndarray):
        steps, batch, classes = x.shape
        blank = classes + blank_index if blank_index < 0 else blank_index
        if not 0 <= blank < classes:
            raise errors.InvalidArgumentError(
                None,
                op,
                f"blank_index expected to be between {-classes} and {classes - 1} but was "
                f"{blank_index}",
            )
        paths, log_probs = [], np.zeros((batch,), x.dtype)
        for b in range(batch):
            row: list[int] = []
            prev = -1
            total = x.dtype.type(0)
            for t in range(int(seq[b])):
                k = int(np.argmax(x[t, b]))  # the first maximum, as TF's RowMax
                total = x.dtype.type(total + -x[t, b, k])
                if k != blank and not (merge_repeated and k == prev):
                    row.append(k)
                prev = k
            paths.append([row])
            log_probs[b] = total
        return paths, log_probs

    return decode


def ctc_greedy_decoder(
    inputs: Any,
    sequence_length: Any,
    merge_repeated: bool = True,
    blank_index: int | None = None,
) -> tuple[list[SparseTensor], Any]:
    """Best-path decoding of logits (``tf.nn.ctc_greedy_decoder``, op ``CTCGreedyDecoder``).

    At each frame the class of the greatest logit (the first, on ties); blanks are
    dropped and, with ``merge_repeated``, a class equal to the previous frame's is too.

    Args:
      inputs: float32/float64 logits ``[max_time, batch, num_classes]``.
      sequence_length: int32 ``[batch]``.
      merge_repeated: merge repeated classes (default True).
      blank_index: the blank's class (default ``num_classes - 1``; negative counts
        from ``num_classes``).

    Returns:
      ``([decoded], neg_sum_logits)``: ``decoded`` an int64 ``SparseTensor``
      ``[batch, max_decoded_length]``; ``neg_sum_logits [batch, 1]`` the negated sum
      of each frame's greatest logit.

    Raises:
      InvalidArgumentError / FailedPreconditionError: at run time, as TF's kernel
        (``sequence_length(b) <= max_time``, a ``blank_index`` out of range).

    .. note:: A host operation (as TF's kernel, on the CPU): its outputs' sizes
       depend on the data. It runs after the step's program when its inputs are
       computed in it (then the step's device ops cannot read its outputs), before
       it when they are fed.
    """
    x, seq = _decoder_inputs("CTCGreedyDecoder", inputs, sequence_length)
    blank = -1 if blank_index is None else int(blank_index)
    return _decoder_node(
        "CTCGreedyDecoder",
        "CTCGreedyDecoder",
        x,
        seq,
        _greedy(bool(merge_repeated), blank),
        1,
    )


# -- ctc_loss_v2 with dense labels (TF's ctc_loss_dense) ----------------------------------
def _logsumexp(x: Any, axis: int, keepdims: bool = False) -> Any:
    """TF's ``reduce_logsumexp``: the finite maximum (else 0) subtracted, ``log`` of the
    sum of ``exp``, the maximum added back."""
    raw = jnp.max(x, axis=axis, keepdims=True)
    top = lax.stop_gradient(jnp.where(jnp.isfinite(raw), raw, jnp.zeros((), x.dtype)))
    out = jnp.log(jnp.sum(jnp.exp(x - top), axis=axis, keepdims=keepdims))
    return out + (top if keepdims else jnp.squeeze(top, axis))


def _dense_ctc(logits: Any, labels: Any, label_length: Any, logit_length: Any):
    """TF's ``ctc_loss_and_grad`` (blank 0): ``(loss [B], gradient [T, B, C])``.

    States: 0 the start, ``1..L`` the labels, ``L+1..2L+1`` the blanks after each;
    a forward and a backward pass over time, each step renormalized (the
    normalizers summed into the likelihood), with unreachable states at
    ``log(1e-307)`` rather than ``-inf`` where TF puts them so.
    """
    steps, batch, classes = logits.shape
    width = labels.shape[1]
    n_label = width + 1
    n_states = 2 * n_label
    f32 = jnp.float32
    log_0 = jnp.asarray(np.float32(np.log(np.float64(0) + 1e-307)), f32)
    log_p = jax.nn.log_softmax(logits, axis=-1)
    labels = labels.astype(jnp.int32)
    # observed log-probabilities of each state [T, B, S]
    label_lp = jnp.take_along_axis(
        log_p, jnp.broadcast_to(labels[None], (steps, batch, width)), axis=2
    )
    blank_lp = jnp.broadcast_to(log_p[:, :, :1], (steps, batch, n_label))
    observed = jnp.concatenate(
        [jnp.full((steps, batch, 1), -jnp.inf, f32), label_lp, blank_lp], axis=2
    )
    # transitions trans[b, to, from]
    trans = jnp.eye(n_states, dtype=f32)
    trans = trans.at[1, 0].set(1.0)
    s = np.arange(n_label)
    trans = trans.at[s[1:], s[:-1] + n_label].set(1.0)  # blank -> next label
    trans = trans.at[s + n_label, s].set(1.0)  # label (or start) -> its blank
    trans = jnp.broadcast_to(trans, (batch, n_states, n_states))
    if width > 1:
        repeat = labels[:, :-1] == labels[:, 1:]
        trans = trans.at[:, s[2:], s[1:-1]].add(1.0 - repeat.astype(f32))
    log_trans = jnp.log(trans)
    initial = jnp.where(jnp.arange(n_states) == 0, jnp.zeros((), f32), log_0)
    initial = jnp.broadcast_to(initial, (batch, n_states))
    ends = jnp.concatenate([jnp.arange(n_label), jnp.arange(n_label)])
    final = jnp.where(ends[None, :] == label_length[:, None], jnp.zeros((), f32), log_0)
    mask = (jnp.arange(steps)[:, None] < logit_length[None, :]).astype(f32)  # [T, B]

    def forward(state: Any, obs: Any) -> tuple[Any, Any]:
        new = _logsumexp(state[:, None, :] + log_trans, axis=-1) + obs
        new = new - _logsumexp(new, axis=-1, keepdims=True)
        return new, new

    _, fwd = lax.scan(forward, initial, observed)

    back_trans = jnp.swapaxes(log_trans, 1, 2)

    def backward(carry: Any, elems: Any) -> tuple[Any, Any]:
        state, cum = carry
        obs, m = elems
        new = _logsumexp((state + obs)[:, None, :] + back_trans, axis=-1)
        total = _logsumexp(new, axis=-1, keepdims=True)
        new = new - total
        cum = cum + total[:, 0] * m
        out = new * m[:, None] + final * (1.0 - m[:, None])
        return (out, cum), (out, cum)

    _, (bwd, cums) = lax.scan(
        backward, (final, jnp.zeros((batch,), f32)), (observed, mask), reverse=True
    )
    bwd_next = jnp.concatenate([bwd[1:], final[None]], axis=0)  # bwd[t + 1]
    both = fwd + bwd_next
    both = both - _logsumexp(both, axis=2, keepdims=True)
    both = both + jnp.log(mask[:, :, None])
    log_likelihood = bwd[0, :, 0] + cums[0]
    # class occupation [T, B, C]: blank from the blank states, class k from label states
    label_states = both[:, :, 1:n_label]
    one_hot = jnp.where(
        (labels - 1)[:, :, None] == jnp.arange(classes - 1)[None, None, :],
        jnp.zeros((), f32),
        jnp.asarray(-jnp.inf, f32),
    )
    label_occ = _logsumexp(label_states[:, :, :, None] + one_hot[None], axis=2)
    blank_occ = _logsumexp(both[:, :, n_label:], axis=2, keepdims=True)
    occupation = jnp.concatenate([blank_occ, label_occ], axis=-1)
    grad = jnp.exp(log_p) - jnp.exp(occupation)
    grad = grad * mask[:, :, None]
    return -log_likelihood, grad


@jax.custom_vjp
def _dense_loss(logits, labels, label_length, logit_length):
    return _dense_ctc(logits, labels, label_length, logit_length)[0]


def _dense_fwd(logits, labels, label_length, logit_length):
    loss, grad = _dense_ctc(logits, labels, label_length, logit_length)
    return loss, grad


def _dense_bwd(grad, g_loss):
    return jnp.reshape(g_loss, (1, -1, 1)) * grad, None, None, None


_dense_loss.defvjp(_dense_fwd, _dense_bwd)


_CTC_DENSE_OP = lift(
    OpDef(
        names=("nn.ctc_loss_v2",),
        op_type="IdentityN",
        impl=_dense_loss,
        signature=_parse_signature("logits, labels, label_length, logit_length, name=None"),
        tensors=("logits", "labels", "label_length", "logit_length"),
        same_dtype=(),
        allowed={
            "logits": ("float32",),
            "labels": ("int32", "int64"),
            "label_length": ("int32", "int64"),
            "logit_length": ("int32", "int64"),
        },
        default_name="IdentityN",
        tf_gradient="TF's ctc_loss_dense custom gradient: softmax minus the normalized "
        "state occupation of each class, masked beyond logit_length",
    )
)


def ctc_loss_v2(
    labels: Any,
    logits: Any,
    label_length: Any,
    logit_length: Any,
    logits_time_major: bool = True,
    unique: Any = None,
    blank_index: int | None = None,
    name: str | None = None,
) -> Any:
    """The CTC loss of TF 2's API (``tf.compat.v1.nn.ctc_loss_v2``).

    With a ``SparseTensor`` of labels, ``tf.nn.ctc_loss`` (TF1's kernel) after moving
    the class ``blank_index`` last, as TF; with dense labels ``[batch,
    max_label_length]`` and ``label_length``, TF's ``ctc_loss_dense``: a normalized
    forward-backward over states in log space (log-softmax of the logits, TF's
    ``reduce_logsumexp``), its gradient TF's custom one.

    Args:
      labels: int ``[batch, max_label_length]`` (padded) or a ``SparseTensor``.
      logits: float ``[frames, batch, num_labels]`` (``[batch, frames, num_labels]``
        when ``logits_time_major=False``).
      label_length: int ``[batch]`` (``None`` with a ``SparseTensor``).
      logit_length: int ``[batch]``.
      logits_time_major: default True.
      unique: ``ctc_unique_labels(labels)`` (TPU speed-up in TF; the same loss).
      blank_index: the blank's class (default 0; required with a ``SparseTensor``;
        negative counts from ``num_labels``).
      name: the name scope (default ``"ctc_loss_dense"``).

    Returns:
      The loss ``[batch]``.

    Raises:
      ValueError: a ``SparseTensor`` without ``blank_index`` (TF's message).

    .. note:: As TF's dense path, an impossible alignment (labels longer than the
       frames) gives a large finite loss (states at ``log(1e-307)``), not an error.
    """
    if isinstance(labels, (SparseTensor, SparseTensorValue)):
        sp = _sparse_labels(labels)
        if blank_index is None:
            raise ValueError(
                "Argument `blank_index` must be provided when labels is a SparseTensor."
            )
        x = ops.convert_to_tensor(logits)
        classes = x._shape[2] if x._shape is not None else None
        if classes is None:
            raise NotImplementedError(
                "tf.nn.ctc_loss_v2 with a SparseTensor and a blank_index needs the logits' "
                "number of classes in their static shape"
            )
        if blank_index < 0:
            blank_index += classes
        if blank_index != classes - 1:
            x = FUNCTIONS["concat"](
                [
                    x[:, :, :blank_index],
                    x[:, :, blank_index + 1 :],
                    x[:, :, blank_index : blank_index + 1],
                ],
                axis=2,
            )
            sp = SparseTensor(
                sp.indices,
                FUNCTIONS["where"](sp.values < blank_index, sp.values, sp.values - 1),
                sp.dense_shape,
            )
        return ctc_loss(sp, x, logit_length, time_major=logits_time_major)
    if blank_index is None:
        blank_index = 0
    with ops.name_scope(name or "ctc_loss_dense"):
        x = ops.convert_to_tensor(logits, name="logits")
        lab = ops.convert_to_tensor(labels, name="labels")
        lab_len = ops.convert_to_tensor(label_length, name="label_length")
        logit_len = ops.convert_to_tensor(logit_length, name="logit_length")
        original = x.dtype
        narrow = dtypes.as_dtype(original).name in ("float16", "bfloat16")
        if narrow:
            x = FUNCTIONS["cast"](x, "float32")
        if not logits_time_major:
            x = FUNCTIONS["transpose"](x, [1, 0, 2])
        if blank_index != 0:
            if blank_index < 0:
                blank_index += x._shape[2]
            x = FUNCTIONS["concat"](
                [
                    x[:, :, blank_index : blank_index + 1],
                    x[:, :, :blank_index],
                    x[:, :, blank_index + 1 :],
                ],
                axis=2,
            )
            lab = FUNCTIONS["where"](lab < blank_index, lab + 1, lab)
        loss = _CTC_DENSE_OP(x, lab, lab_len, logit_len)
        if narrow:
            loss = FUNCTIONS["cast"](loss, original)
        return loss


# -- label helpers ------------------------------------------------------------------------
def _unique_labels(labels: Any) -> tuple[Any, Any]:
    """Per row: the distinct labels in order of first appearance padded with 0 (int64),
    and each label's index among them (int32)."""
    n = labels.shape[1]
    eq = labels[:, :, None] == labels[:, None, :]  # [B, i, j]
    earlier = jnp.arange(n)[None, :, None] > jnp.arange(n)[None, None, :]
    first = ~jnp.any(eq & earlier, axis=2)
    order = jnp.cumsum(first, axis=1) - 1
    idx = jnp.take_along_axis(order, jnp.argmax(eq, axis=2), axis=1).astype(jnp.int32)
    rows = jnp.broadcast_to(jnp.arange(labels.shape[0])[:, None], labels.shape)
    y = jnp.zeros(labels.shape, jnp.int64)
    y = y.at[rows, jnp.where(first, order, n)].set(labels.astype(jnp.int64), mode="drop")
    return y, idx


_UNIQUE_OP = lift(
    OpDef(
        names=("nn.ctc_unique_labels",),
        op_type="CTCUniqueLabels",
        impl=_unique_labels,
        signature=_parse_signature("labels, name=None"),
        tensors=("labels",),
        same_dtype=(),
        allowed={"labels": ("int32", "int64")},
        default_name="ctc_unique_labels",
    )
)


def ctc_unique_labels(labels: Any, name: str | None = None) -> list[Any]:
    """The unique labels of each row and the index of each label among them
    (``tf.nn.ctc_unique_labels``): ``[[3, 4, 4, 3]] -> ([[3, 4, 0, 0]], [[0, 1, 1, 0]])``.

    Args:
      labels: int32/int64 ``[batch, max_label_length]``.
      name: the name scope (default ``"ctc_unique_labels"``).

    Returns:
      ``[unique, idx]``: int64 ``[batch, max_label_length]`` padded with 0, and int32
      ``[batch, max_label_length]``.

    .. note:: TF computes it with ``map_fn``: its static shape of ``unique`` is
       ``[batch, None]``; jtrain's knows the width (``max_label_length``).
    """
    with ops.name_scope(name or "ctc_unique_labels"):
        y, idx = _UNIQUE_OP(ops.convert_to_tensor(labels, name="labels"))
        return [y, idx]


def collapse_repeated(labels: Any, seq_length: Any, name: str | None = None) -> tuple[Any, Any]:
    """Repeated labels merged into one (``tf.nn.collapse_repeated``):
    ``[[A, A, B, B, A]] -> [[A, B, A]]``, rows padded with 0 to the longest.

    Args:
      labels: ``[batch, max_length]``, a constant.
      seq_length: ``[batch]``, a constant.
      name: the name scope (default ``"collapse_repeated_labels"``).

    Returns:
      ``(collapsed [batch, new_max_length], new_seq_length [batch])`` of the inputs'
      dtypes.

    Raises:
      NotImplementedError: an input is computed in the graph: the result's width is the
        longest collapsed row, a data-dependent shape that jtrain's static programs
        cannot hold (``ctc_loss``'s ``preprocess_collapse_repeated`` collapses in the op).
    """
    from adapters.v1.ops.constant_op import constant

    with ops.name_scope(name or "collapse_repeated_labels"):
        lab = ops.convert_to_tensor(labels, name="labels")
        length = ops.convert_to_tensor(seq_length, name="seq_length")
        values = lab.op._const_value, length.op._const_value
        if values[0] is None or values[1] is None:
            computed = lab if values[0] is None else length
            raise NotImplementedError(
                f"tf.nn.collapse_repeated of the computed tensor {computed.name}: its output "
                "width is the longest collapsed row, a data-dependent shape that jtrain's "
                "static programs cannot hold; it works on constants (ctc_loss's "
                "preprocess_collapse_repeated collapses inside the op)"
            )
        x = np.asarray(values[0])
        n = np.asarray(values[1])
        keep = np.concatenate([np.ones_like(x[:, :1], bool), x[:, 1:] != x[:, :-1]], axis=1)
        keep &= np.arange(x.shape[1])[None, :] < n[:, None]
        new_length = keep.sum(axis=1)
        out = np.zeros((x.shape[0], int(new_length.max(initial=0))), x.dtype)
        for b in range(x.shape[0]):
            out[b, : new_length[b]] = x[b][keep[b]]
        return constant(out), constant(new_length.astype(n.dtype))


# -- beam search: TF's CTCBeamSearchDecoder on the host, its TopN and libstdc++'s sorts ----
def _sift_down(a: list, hole: int, n: int, value: Any, less: Any, top: int = 0) -> None:
    """libstdc++'s ``__adjust_heap`` then ``__push_heap`` on ``a[:n]``."""
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if less(a[child], a[child - 1]):
            child -= 1
        a[hole] = a[child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[hole] = a[child - 1]
        hole = child - 1
    _sift_up(a, hole, top, value, less)


def _sift_up(a: list, hole: int, top: int, value: Any, less: Any) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(a[parent], value):
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def _make_heap(a: list, n: int, less: Any) -> None:
    if n < 2:
        return
    parent = (n - 2) // 2
    while True:
        _sift_down(a, parent, n, a[parent], less, parent)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a: list, n: int, less: Any) -> None:
    if n > 1:
        value = a[n - 1]
        a[n - 1] = a[0]
        _sift_down(a, 0, n - 1, value, less)


def _push_heap(a: list, n: int, less: Any) -> None:
    _sift_up(a, n - 1, 0, a[n - 1], less)


def _sort_heap(a: list, n: int, less: Any) -> None:
    while n > 1:
        n -= 1
        _pop_heap(a, n + 1, less)


def _std_sort(a: list, less: Any) -> None:
    """libstdc++'s ``std::sort`` (introsort, threshold 16, final insertion sort): the
    order it leaves equal elements in is TF's."""

    def insertion(lo: int, hi: int) -> None:
        for i in range(lo + 1, hi):
            if less(a[i], a[lo]):
                val = a[i]
                a[lo + 1 : i + 1] = a[lo:i]
                a[lo] = val
            else:
                linear(i)

    def linear(i: int) -> None:
        val = a[i]
        j = i - 1
        while less(val, a[j]):
            a[i] = a[j]
            i = j
            j -= 1
        a[i] = val

    def median_to_first(r: int, x: int, y: int, z: int) -> None:
        if less(a[x], a[y]):
            if less(a[y], a[z]):
                a[r], a[y] = a[y], a[r]
            elif less(a[x], a[z]):
                a[r], a[z] = a[z], a[r]
            else:
                a[r], a[x] = a[x], a[r]
        elif less(a[x], a[z]):
            a[r], a[x] = a[x], a[r]
        elif less(a[y], a[z]):
            a[r], a[z] = a[z], a[r]
        else:
            a[r], a[y] = a[y], a[r]

    def partition(lo: int, hi: int, pivot: int) -> int:
        while True:
            while less(a[lo], a[pivot]):
                lo += 1
            hi -= 1
            while less(a[pivot], a[hi]):
                hi -= 1
            if not lo < hi:
                return lo
            a[lo], a[hi] = a[hi], a[lo]
            lo += 1

    def introsort(lo: int, hi: int, depth: int) -> None:
        while hi - lo > 16:
            if depth == 0:
                part = a[lo:hi]
                _make_heap(part, len(part), less)
                _sort_heap(part, len(part), less)
                a[lo:hi] = part
                return
            depth -= 1
            mid = lo + (hi - lo) // 2
            median_to_first(lo, lo + 1, mid, hi - 1)
            cut = partition(lo + 1, hi, lo)
            introsort(cut, hi, depth)
            hi = cut

    n = len(a)
    if n < 2:
        return
    introsort(0, n, 2 * (n.bit_length() - 1))
    if n > 16:
        insertion(0, 16)
        for i in range(16, n):
            linear(i)
    else:
        insertion(0, n)


class _TopN:
    """TF's ``gtl::TopN`` (``core/lib/gtl/top_n.h``) of beam entries, greater
    ``newp.total`` first: an unsorted vector, then a heap once full."""

    def __init__(self, limit: int):
        self.limit = limit
        self.items: list[Any] = []
        self.state = "unordered"

    @staticmethod
    def less(a: Any, b: Any) -> bool:  # TF's BeamComparer: a > b
        return bool(a.newp[0] > b.newp[0])

    def size(self) -> int:
        return min(len(self.items), self.limit)

    def push(self, v: Any) -> None:
        a, less = self.items, self.less
        if self.state != "heap":
            a.append(v)
            if not (self.state == "unordered" or less(a[-1], a[0])):
                a[0], a[-1] = a[-1], a[0]
            if len(a) == self.limit + 1:
                _make_heap(a, len(a), less)
                _pop_heap(a, len(a), less)
                self.state = "heap"
        elif less(v, a[0]):
            a[-1] = v
            _push_heap(a, len(a), less)
            _pop_heap(a, len(a), less)

    def peek_bottom(self) -> Any:
        a = self.items
        if self.state == "unordered":
            low = 0
            for i in range(1, len(a)):
                if self.less(a[low], a[i]):
                    low = i
            a[0], a[low] = a[low], a[0]
            self.state = "bottom"
        return a[0]

    def extract(self) -> list[Any]:
        out, self.items = self.items, []
        if self.state != "heap":
            _std_sort(out, self.less)
        else:
            out.pop()
            _sort_heap(out, len(out), self.less)
        self.state = "unordered"
        return out


class _Entry:
    """A beam entry: ``newp``/``oldp`` are ``[total, blank, label]`` log-probabilities."""

    __slots__ = ("parent", "label", "children", "oldp", "newp")

    def __init__(self, parent: Any, label: int, zero: Any):
        self.parent = parent
        self.label = label
        self.children: dict[int, _Entry] = {}
        self.oldp = [zero, zero, zero]
        self.newp = [zero, zero, zero]

    def label_seq(self, merge_repeated: bool) -> list[int]:
        labels: list[int] = []
        prev = -1
        c = self
        while c.parent is not None:
            if not merge_repeated or c.label != prev:
                labels.append(c.label)
            prev = c.label
            c = c.parent
        return labels[::-1]


def _beam_search(beam_width: int, top_paths: int, merge_repeated: bool):
    def decode(op: ops.Operation, x: np.ndarray, seq: np.ndarray):
        steps, batch, classes = x.shape
        kind = x.dtype.type
        neg_inf = kind(-np.inf)
        blank = classes - 1

        def lse(a: Any, b: Any) -> Any:  # TF's LogSumExp (float32 correction)
            if a == neg_inf:
                return b
            if b == neg_inf:
                return a
            big, small = (a, b) if a > b else (b, a)
            e = np.float32(math.exp(float(np.float32(small - big))))  # expf
            return kind(big + kind(np.float32(math.log1p(float(e)))))  # log1pf

        paths, log_probs = [], np.zeros((batch, top_paths), x.dtype)
        for b in range(batch):
            root = _Entry(None, -1, neg_inf)
            root.newp = [kind(0), kind(0), neg_inf]
            leaves = _TopN(beam_width)
            leaves.push(root)
            for t in range(int(seq[b])):
                raw = x[t, b]
                # TF's normalizer: max + log(sum(exp(raw - max))), summed in order with
                # the C library's exp/log (math's, rounded to the dtype).
                top = raw.max()
                total = kind(0)
                for v in raw:
                    total = kind(total + kind(math.exp(float(kind(v - top)))))
                top = kind(top + kind(math.log(float(total))))
                branches = leaves.extract()
                for e in branches:
                    e.oldp = list(e.newp)
                for e in branches:
                    if e.parent is not None:
                        p = e.parent
                        if p.newp[0] != neg_inf:
                            previous = p.oldp[1] if e.label == p.label else p.oldp[0]
                            e.newp[2] = lse(e.newp[2], previous)
                        e.newp[2] = kind(e.newp[2] + kind(raw[e.label] - top))
                    e.newp[1] = kind(kind(e.oldp[0] + raw[blank]) - top)
                    e.newp[0] = lse(e.newp[1], e.newp[2])
                    leaves.push(e)

                def candidate(prob: list, leaves: _TopN = leaves) -> bool:
                    return bool(
                        prob[0] > neg_inf
                        and (leaves.size() < beam_width or prob[0] > leaves.peek_bottom().newp[0])
                    )

                for e in branches:
                    if not candidate(e.oldp):
                        continue
                    for label in range(classes - 1):
                        c = e.children.get(label)
                        if c is None:
                            c = e.children[label] = _Entry(e, label, neg_inf)
                        if c.newp[0] != neg_inf:
                            continue
                        c.newp[1] = neg_inf
                        previous = e.oldp[1] if label == e.label else e.oldp[0]
                        c.newp[2] = kind(kind(raw[label] - top) + previous)
                        c.newp[0] = c.newp[2]
                        if candidate(c.newp):
                            if leaves.size() == beam_width:
                                leaves.peek_bottom().newp = [neg_inf, neg_inf, neg_inf]
                            leaves.push(c)
                        else:
                            c.oldp = [neg_inf, neg_inf, neg_inf]
                            c.newp = [neg_inf, neg_inf, neg_inf]
            if top_paths > beam_width:
                raise errors.InvalidArgumentError(
                    None, op, "requested more paths than the beam width."
                )
            if top_paths > leaves.size():
                raise errors.InvalidArgumentError(
                    None, op, "Less leaves in the beam search than requested."
                )
            best = _TopN(top_paths)
            for e in leaves.items[: leaves.size()]:
                best.push(e)
            chosen = best.extract()[:top_paths]
            paths.append([e.label_seq(merge_repeated) for e in chosen])
            log_probs[b] = [e.newp[0] for e in chosen]
        return paths, log_probs

    return decode


def _beam_search_decoder(
    inputs: Any, sequence_length: Any, beam_width: int, top_paths: int, merge_repeated: bool
) -> tuple[list[SparseTensor], Any]:
    for attr, value in (("beam_width", beam_width), ("top_paths", top_paths)):
        if int(value) < 1:
            raise ValueError(
                f"Attr '{attr}' of 'CTCBeamSearchDecoder' Op passed {int(value)} less than "
                "minimum 1."
            )
    x, seq = _decoder_inputs("CTCBeamSearchDecoder", inputs, sequence_length)
    return _decoder_node(
        "CTCBeamSearchDecoder",
        "CTCBeamSearchDecoder",
        x,
        seq,
        _beam_search(int(beam_width), int(top_paths), bool(merge_repeated)),
        int(top_paths),
    )


def ctc_beam_search_decoder(
    inputs: Any,
    sequence_length: Any,
    beam_width: int = 100,
    top_paths: int = 1,
    merge_repeated: bool = True,
) -> tuple[list[SparseTensor], Any]:
    """Beam search decoding of logits (``tf.compat.v1.nn.ctc_beam_search_decoder``,
    op ``CTCBeamSearchDecoder``): TF's algorithm (``core/util/ctc/ctc_beam_search.h``)
    with its beam (``gtl::TopN``) and libstdc++'s sorts, so ties break as in TF.

    The blank is the last class. Each frame's scores are the log-softmax of the
    logits (TF's ``max + log(sum(exp(logit - max)))`` subtracted), summed in log space
    with TF's ``LogSumExp``.

    Args:
      inputs: float32/float64 logits ``[max_time, batch, num_classes]``.
      sequence_length: int32 ``[batch]``.
      beam_width: the beam's size (default 100).
      top_paths: how many decodings to return (default 1).
      merge_repeated: merge repeated classes of a path (default True).

    Returns:
      ``(decoded, log_probabilities)``: ``top_paths`` int64 ``SparseTensor``s and
      ``[batch, top_paths]`` scores.

    Raises:
      ValueError: ``beam_width`` or ``top_paths`` below 1.
      InvalidArgumentError / FailedPreconditionError: at run time, as TF's kernel
        (``top_paths > beam_width``, fewer paths than requested, a bad
        ``sequence_length``).

    .. note:: A host operation, as ``ctc_greedy_decoder`` (its outputs' sizes
       depend on the data).
    """
    return _beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated)


def ctc_beam_search_decoder_v2(
    inputs: Any, sequence_length: Any, beam_width: int = 100, top_paths: int = 1
) -> tuple[list[SparseTensor], Any]:
    """``tf.compat.v1.nn.ctc_beam_search_decoder_v2``: ``ctc_beam_search_decoder`` with
    ``merge_repeated=False`` (TF 2's ``tf.nn.ctc_beam_search_decoder``)."""
    return _beam_search_decoder(inputs, sequence_length, beam_width, top_paths, False)
