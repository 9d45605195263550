"""``tf.nn.nce_loss`` and ``tf.nn.sampled_softmax_loss`` (TF's ``nn_impl`` module).

Both score each example against its ``num_true`` true classes and ``num_sampled``
classes drawn once for the whole batch (``sampled_values``, by default from
``log_uniform_candidate_sampler(unique=True)``; see ``candidate_sampling_ops.py``):

- logits: ``inputs . w_c + b_c`` for the true classes ``c`` (``[batch, num_true]``) and
  the sampled ones (``[batch, num_sampled]``), the rows ``w_c``/``b_c`` looked up with
  ``tf.nn.embedding_lookup`` (``weights`` may be partitioned, ``"mod"``/``"div"``),
  so the gradients of ``weights`` and ``biases`` are ``IndexedSlices`` as TF's;
- with ``remove_accidental_hits``, ``-FLT_MAX`` is added to a sampled logit whose
  class is one of the row's true classes (``compute_accidental_hits``: for a class
  sampled twice, only at its last position, as TF);
- ``log(expected count)`` is subtracted from every logit (TF's ``subtract_log_q``);
- labels: ``1 / num_true`` for the true columns, 0 for the sampled ones;
- ``nce_loss`` sums ``sigmoid_cross_entropy_with_logits`` over the columns,
  ``sampled_softmax_loss`` is ``softmax_cross_entropy_with_logits_v2``.

The sampled values pass through ``stop_gradient``, as in TF. With the same
``sampled_values`` the losses and gradients are TF's (float32: to a few ulps, the
sums run in other orders); without, the draw is jtrain's (see the samplers).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.ops import candidate_sampling_ops
from adapters.v1.ops.embedding_ops import embedding_lookup
from adapters.v1.ops.script_ops import lift

__all__ = ["nce_loss", "sampled_softmax_loss"]

_FLT_MAX = np.float32(np.finfo(np.float32).max)


def _compute_sampled_logits(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int,
    sampled_values: Any,
    remove_accidental_hits: bool,
    partition_strategy: str,
    seed: int | None,
) -> tuple[ops.Tensor, ops.Tensor]:
    """TF's ``_compute_sampled_logits`` with ``subtract_log_q=True``: ``(logits,
    labels)``, each ``[batch_size, num_true + num_sampled]`` (see the module docstring)."""
    num_true, num_sampled = int(num_true), int(num_sampled)
    labels = ops.convert_to_tensor(labels)
    if labels.dtype != dtypes.int64:
        labels = FUNCTIONS["cast"](labels, dtypes.int64)
    inputs = ops.convert_to_tensor(inputs)
    if sampled_values is None:
        sampled_values = candidate_sampling_ops.log_uniform_candidate_sampler(
            true_classes=labels,
            num_true=num_true,
            num_sampled=num_sampled,
            unique=True,
            range_max=num_classes,
            seed=seed,
        )
    stop = FUNCTIONS["stop_gradient"]
    sampled, true_count, sampled_count = (stop(s) for s in sampled_values)
    if sampled.dtype != dtypes.int64:
        sampled = FUNCTIONS["cast"](sampled, dtypes.int64)
    for count in (true_count, sampled_count):
        if count.dtype != inputs.dtype:  # TF: ``logits - log(count)``, one dtype
            raise TypeError(
                f"Input 'y' of 'Sub' Op has type {count.dtype.name} that does not match type "
                f"{inputs.dtype.name} of argument 'x'."
            )
    # TF looks up the true and sampled rows in one lookup of the concatenated ids; two
    # lookups (true ids first) give the same rows and gradient rows, and keep the
    # batch dimension separate from ``num_sampled`` when it is unknown.
    true_ids = FUNCTIONS["reshape"](labels, [-1])
    rows = [
        embedding_lookup(table, ids, partition_strategy=partition_strategy)
        for table in (weights, biases)
        for ids in (true_ids, sampled)
    ]
    dtype = inputs.dtype.as_numpy_dtype

    def logits_and_labels(true_w, sampled_w, true_b, sampled_b, x, true_classes, candidates,
                          q_true, q_sampled):  # fmt: skip
        true_w, sampled_w = true_w.astype(dtype), sampled_w.astype(dtype)
        true_b, sampled_b = true_b.astype(dtype), sampled_b.astype(dtype)
        true_w = true_w.reshape(-1, num_true, true_w.shape[1])
        true_logits = jnp.sum(x[:, None, :] * true_w, axis=2) + true_b.reshape(-1, num_true)
        sampled_logits = jnp.matmul(x, sampled_w.T, precision=lax.Precision.HIGHEST) + sampled_b
        if remove_accidental_hits:
            classes = true_classes.reshape(-1, num_true)
            hits = candidate_sampling_ops.accidental_hit_mask(classes, candidates)
            # TF adds a dense tensor of -FLT_MAX (float32, cast to the logits' dtype) and 0
            penalty = jnp.where(hits, -_FLT_MAX, np.float32(0)).astype(dtype)
            sampled_logits = sampled_logits + penalty
        true_logits = true_logits - jnp.log(q_true)
        sampled_logits = sampled_logits - jnp.log(q_sampled)
        logits = jnp.concatenate([true_logits, sampled_logits], 1)
        targets = jnp.concatenate(
            [jnp.ones_like(true_logits) / num_true, jnp.zeros_like(sampled_logits)], 1
        )
        return logits, targets

    return lift(
        logits_and_labels,
        [*rows, inputs, labels, sampled, true_count, sampled_count],
        name="sampled_logits",
    )


def nce_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = False,
    partition_strategy: str = "mod",
    name: str = "nce_loss",
) -> ops.Tensor:
    """The noise-contrastive estimation loss (``tf.compat.v1.nn.nce_loss``).

    ``sum over columns of sigmoid_cross_entropy_with_logits(labels, logits)`` for the
    sampled logits and labels of the module docstring.

    Args:
      weights: ``[num_classes, dim]`` class embeddings, or a list of partitions (or a
        ``PartitionedVariable``) split by ``partition_strategy``.
      biases: ``[num_classes]`` class biases.
      labels: ``[batch_size, num_true]`` target classes (cast to int64).
      inputs: ``[batch_size, dim]`` activations.
      num_sampled: the number of classes drawn per batch.
      num_classes: the number of classes.
      num_true: target classes per example (default 1).
      sampled_values: ``(sampled_candidates, true_expected_count,
        sampled_expected_count)`` of a candidate sampler (default None:
        ``log_uniform_candidate_sampler(unique=True, range_max=num_classes)``).
      remove_accidental_hits: whether a sampled class equal to a true class is left
        out (default False).
      partition_strategy: ``"mod"`` (default) or ``"div"``, as ``embedding_lookup``.
      name: the name scope (default ``"nce_loss"``).

    Returns:
      A ``[batch_size]`` tensor of per-example losses.
    """
    with ops.name_scope(name or "nce_loss"):
        logits, targets = _compute_sampled_logits(
            weights, biases, labels, inputs, num_sampled, num_classes, num_true,
            sampled_values, remove_accidental_hits, partition_strategy, None,
        )  # fmt: skip
        losses = FUNCTIONS["nn.sigmoid_cross_entropy_with_logits"](
            labels=targets, logits=logits, name="sampled_losses"
        )
        return FUNCTIONS["reduce_sum"](losses, 1)


def sampled_softmax_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = True,
    partition_strategy: str = "mod",
    name: str = "sampled_softmax_loss",
    seed: int | None = None,
) -> ops.Tensor:
    """The sampled softmax loss (``tf.compat.v1.nn.sampled_softmax_loss``).

    ``softmax_cross_entropy_with_logits_v2`` of the sampled logits against the labels
    (``1 / num_true`` on each true class; the labels get no gradient).

    ``weights``, ``biases``, ``labels``, ``inputs``, ``num_sampled``, ``num_classes``,
    ``num_true``, ``sampled_values`` and ``partition_strategy`` are as ``nce_loss``'s.

    Args:
      remove_accidental_hits: default True (unlike ``nce_loss``).
      name: the name scope (default ``"sampled_softmax_loss"``).
      seed: the op-level seed of the default sampler.

    Returns:
      A ``[batch_size]`` tensor of per-example losses.
    """
    with ops.name_scope(name or "sampled_softmax_loss"):
        logits, targets = _compute_sampled_logits(
            weights, biases, labels, inputs, num_sampled, num_classes, num_true,
            sampled_values, remove_accidental_hits, partition_strategy, seed,
        )  # fmt: skip
        targets = FUNCTIONS["stop_gradient"](targets, name="labels_stop_gradient")
        return FUNCTIONS["nn.softmax_cross_entropy_with_logits_v2"](labels=targets, logits=logits)
