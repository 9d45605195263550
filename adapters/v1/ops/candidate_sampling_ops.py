"""TF's candidate samplers (``tf.nn.log_uniform_candidate_sampler``...) and
``tf.nn.compute_accidental_hits``, for ``nce_loss``/``sampled_softmax_loss``.

A sampler draws ``num_sampled`` classes in ``[0, range_max)`` from a fixed
distribution ``P`` and returns, with them, the *expected counts* of the true classes
and of the sampled ones: how often each would appear in such a draw.

With ``unique=False`` the ``num_sampled`` draws are independent and the expected
count of class ``k`` is ``P(k) * num_sampled``. With ``unique=True`` TF's kernel
(``tensorflow/core/kernels/range_sampler.cc``) draws independently until it has
``num_sampled`` different classes, in the order they first appeared, after
``num_tries`` draws; the expected count is then ``-expm1(num_tries * log1p(-P(k)))``
(``1 - (1 - P)^num_tries``), or ``P(k) * num_sampled`` when ``num_tries`` equals
``num_sampled`` (no repeat). The counts are float32 (TF's kernel computes them in
float arithmetic); the candidates int64.

The distributions (TF's ``Probability``):

- uniform: ``P(k) = 1 / range_max``;
- log-uniform (Zipfian): ``P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1)``,
  drawn as TF does: ``floor(exp(u * log(range_max + 1))) - 1`` for a uniform double ``u``;
- fixed unigram: ``P(k) = w_k / sum(w)`` with ``w = unigrams ** distortion`` in float32,
  after ``num_reserved_ids`` zero weights, keeping the ids of ``shard`` of ``num_shards``.

jtrain draws with JAX's random numbers (``ops/random_ops.py``: a fresh key per run,
reproducible per graph seed), so the *candidates* differ from TF's; their distribution,
uniqueness and ``num_tries`` (and so the expected counts) follow TF's algorithm. The
unique draw is exact and on the device: a loop over chunks of ``num_sampled``
independent draws keeps each chunk's first appearances of new classes, in order,
until ``num_sampled`` are found; ``num_tries`` counts the draws up to the last one
kept.

.. note:: TF's float32 ``log1p``/``expm1`` are the C library's (glibc's ``log1pf`` and
   ``expm1f``, which are not correctly rounded); jtrain rounds each step of TF's
   formula to float32 from float64, the correctly rounded value: with ``unique=True``
   and a repeated draw an expected count may differ from TF's by one float32 ulp (about
   3% of counts on glibc 2.36). Every other value (probabilities, ``P * num_sampled``,
   the accidental hits) is TF's to the bit.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import dtypes, ops, runtime_checks
from adapters.v1.ops import random_ops
from adapters.v1.ops.script_ops import lift
from jtrain import errors

__all__ = [
    "all_candidate_sampler",
    "compute_accidental_hits",
    "fixed_unigram_candidate_sampler",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "uniform_candidate_sampler",
]

_FLT_MAX = float(np.finfo(np.float32).max)
_NONE = np.iinfo(np.int64).max  # no class: sorts after every class

# TF's result types of the sampler ops (its generated ops' namedtuples, named by op type).
_FIELDS = ["sampled_candidates", "true_expected_count", "sampled_expected_count"]
_OUTPUTS = {
    op_type: namedtuple(op_type, _FIELDS)
    for op_type in (
        "UniformCandidateSampler",
        "LogUniformCandidateSampler",
        "FixedUnigramCandidateSampler",
        "AllCandidateSampler",
    )
}
ComputeAccidentalHits = namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])


# -- the deterministic part: probabilities and expected counts ---------------------------------
def expected_count(p: Any, num_sampled: int, num_tries: Any) -> Any:
    """TF's ``ExpectedCountHelper`` for float32 probabilities ``p``.

    ``p * num_sampled`` when ``num_tries == num_sampled`` (always so with
    ``unique=False``), else ``-expm1(num_tries * log1p(-p))``, each step rounded to
    float32 as TF's float arithmetic (see the module's note).
    """
    p = p.astype(jnp.float32)
    tries = jnp.asarray(num_tries).astype(jnp.float32)
    direct = p * jnp.float32(num_sampled)
    log1p = jnp.log1p(-p.astype(jnp.float64)).astype(jnp.float32)
    exponent = (tries * log1p).astype(jnp.float32)
    repeated = (-jnp.expm1(exponent.astype(jnp.float64))).astype(jnp.float32)
    return jnp.where(jnp.asarray(num_tries) == num_sampled, direct, repeated)


def _uniform_probability(range_max: int) -> Callable[[Any], Any]:
    inverse = np.float32(1.0 / range_max)  # TF: float(double 1 / range)
    return lambda k: jnp.full(k.shape, inverse, jnp.float32)


def _log_uniform_probability(range_max: int) -> Callable[[Any], Any]:
    log_range = float(np.log1p(np.float64(range_max)))

    def probability(k: Any) -> Any:
        k = k.astype(jnp.float64)
        return (jnp.log((k + 2.0) / (k + 1.0)) / log_range).astype(jnp.float32)

    return probability


def _table_probability(weights: np.ndarray, total: np.float32) -> Callable[[Any], Any]:
    # TF's float32 weight / total, divided here (XLA may fold a division by a constant
    # followed by a product into another rounding)
    table = (weights / total).astype(np.float32)

    def probability(k: Any) -> Any:
        inside = (k >= 0) & (k < table.shape[0])
        p = jnp.asarray(table)[jnp.clip(k, 0, table.shape[0] - 1)]
        return jnp.where(inside, p, jnp.float32(0))

    return probability


# -- the random part: independent draws, and TF's unique draw ----------------------------------
def _uniform_draw(range_max: int) -> Callable[[Any, int], Any]:
    return lambda key, n: jax.random.randint(key, (n,), 0, range_max, dtype=jnp.int64)


def _log_uniform_draw(range_max: int) -> Callable[[Any, int], Any]:
    log_range = float(np.log1p(np.float64(range_max)))

    def draw(key: Any, n: int) -> Any:
        u = jax.random.uniform(key, (n,), jnp.float64)
        value = jnp.floor(jnp.exp(u * log_range)).astype(jnp.int64) - 1
        return value % range_max  # TF: a guard against rounding, never taken in practice

    return draw


def _table_draw(weights: np.ndarray) -> Callable[[Any, int], Any]:
    with np.errstate(divide="ignore"):
        logits = np.log(weights.astype(np.float64))

    def draw(key: Any, n: int) -> Any:
        return jax.random.categorical(key, jnp.asarray(logits), shape=(n,)).astype(jnp.int64)

    return draw


def _unique_draw(key: Any, draw: Callable[[Any, int], Any], num_sampled: int) -> tuple[Any, Any]:
    """TF's unique draw: independent draws until ``num_sampled`` different classes.

    Returns ``(candidates in order of first appearance, num_tries)``. Each loop step
    draws a chunk of ``num_sampled`` and keeps its first appearances of classes not
    kept before, as the one-at-a-time loop would.
    """
    m = num_sampled
    positions = jnp.arange(m)

    def step(state: tuple[Any, ...]) -> tuple[Any, ...]:
        key, kept, filled, tries = state
        key, sub = jax.random.split(key)
        chunk = draw(sub, m)
        # kept before: a binary search in the sorted kept classes (O(m log m), not m^2)
        pool = jnp.sort(jnp.where(positions < filled, kept, _NONE))
        found_at = jnp.clip(jnp.searchsorted(pool, chunk), 0, m - 1)
        seen = pool[found_at] == chunk
        # repeated within the chunk: all but the first of equal values (stable sort)
        order = jnp.argsort(chunk, stable=True)
        ordered = chunk[order]
        repeat = jnp.concatenate([jnp.zeros((1,), bool), ordered[1:] == ordered[:-1]])
        earlier = jnp.zeros((m,), bool).at[order].set(repeat)
        new = ~seen & ~earlier
        slot = filled + jnp.cumsum(new) - 1
        take = new & (slot < m)
        kept = kept.at[jnp.where(take, slot, m)].set(chunk, mode="drop")
        found = filled + jnp.sum(new)
        # the draw that completes the batch: the one kept into the last slot
        last = jnp.argmax(take & (slot == m - 1))
        tries = tries + jnp.where(found >= m, last + 1, m)
        return key, kept, jnp.minimum(found, m), tries

    start = (key, jnp.zeros((m,), jnp.int64), jnp.asarray(0), jnp.asarray(0, jnp.int64))
    _, kept, _, tries = jax.lax.while_loop(lambda s: s[2] < m, step, start)
    return kept, tries


# -- the sampler ops ------------------------------------------------------------------------------
def _check_minimums(op_type: str, **attrs: int) -> None:
    """TF's op definitions: each of ``attrs`` (``num_true``, ``num_sampled``, in TF's
    order) is at least 1, else TF's ``ValueError`` when the graph is built."""
    for attr, value in attrs.items():
        if value < 1:
            raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed {value} less than minimum 1.")


def _true_classes(true_classes: Any, num_true: int, op_type: str) -> ops.Tensor:
    if isinstance(true_classes, ops.Tensor) or hasattr(true_classes, "_as_graph_tensor"):
        tensor = ops.convert_to_tensor(true_classes)
        if tensor.dtype != dtypes.int64:
            raise TypeError(
                f"Input 'true_classes' of '{op_type}' Op has type {tensor.dtype.name} that "
                "does not match expected type of int64."
            )
    else:
        tensor = ops.convert_to_tensor(np.asarray(true_classes, np.int64), name="true_classes")
    shape = tensor._shape
    if shape is not None and len(shape) != 2:
        raise ValueError(
            f"Shape must be rank 2 but is rank {len(shape)} for '{op_type}' "
            f"with input shapes: {list(shape)}."
        )
    if shape is not None and shape[1] is not None and shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"true_classes must have num_true columns, expected: {shape[1]} was: {num_true}",
        )
    return tensor


def _checked(classes: ops.Tensor, range_max: int, op_type: str) -> ops.Tensor:
    """``classes``, with TF's run-time check that each is in ``[0, range_max)``."""

    def compute(ctx: Any, tc: Any) -> tuple[Any]:
        runtime_checks.check(ctx, op, jnp.all((tc >= 0) & (tc < range_max)), tc)
        return (tc,)

    op = classes.graph.create_op(
        "CheckTrueClasses", f"{op_type}_true_classes", inputs=[classes], compute=compute,
        output_specs=[(classes._shape, classes.dtype)],
    )  # fmt: skip

    def error(tc: Any) -> errors.OpError:
        flat = np.asarray(tc).reshape(-1)
        bad = int(flat[(flat < 0) | (flat >= range_max)][0])
        return errors.InvalidArgumentError(
            None, op, f"`true_candidate` out of range [0, {range_max}), received {bad}"
        )

    runtime_checks.mark(op, error)
    return op.outputs[0]


def _sampler(
    op_type: str,
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    draw: Callable[[Any, int], Any],
    probability: Callable[[Any], Any],
    seed: int | None,
    name: str | None,
) -> tuple[Any, ...]:
    num_true, num_sampled, range_max = int(num_true), int(num_sampled), int(range_max)
    _check_minimums(op_type, num_true=num_true, num_sampled=num_sampled)
    if range_max <= 0:
        raise errors.InvalidArgumentError(None, None, "range_max must be positive")
    if unique and num_sampled > range_max:
        # TF raises this when the op runs; jtrain when the graph is built.
        raise errors.InvalidArgumentError(None, None, "Sampler's range is too small.")
    classes = _checked(_true_classes(true_classes, num_true, op_type), range_max, op_type)
    batch = None if classes._shape is None else classes._shape[0]

    def sample(key: Any, tc: Any) -> tuple[Any, Any, Any]:
        if unique:
            candidates, tries = _unique_draw(key, draw, num_sampled)
        else:
            candidates, tries = draw(key, num_sampled), num_sampled
        true_count = expected_count(probability(tc), num_sampled, tries)
        sampled_count = expected_count(probability(candidates), num_sampled, tries)
        return tuple(jax.lax.stop_gradient(x) for x in (candidates, true_count, sampled_count))

    specs = [
        ((num_sampled,), dtypes.int64),
        ((batch, num_true), dtypes.float32),
        ((num_sampled,), dtypes.float32),
    ]
    outputs = random_ops.random_node(op_type, sample, [classes], specs, seed, name or "")
    return _OUTPUTS[op_type](*outputs)


_SAMPLER_ARGS = """
    Args:
      true_classes: int64 ``[batch_size, num_true]``, the target classes.
      num_true: the number of target classes per example.
      num_sampled: the number of classes to draw.
      unique: whether the draws are without repeats (see the module docstring).
      range_max: the number of classes.
      seed: the op-level seed (``tf.set_random_seed``'s rules).
      name: the op name.

    Returns:
      ``(sampled_candidates, true_expected_count, sampled_expected_count)``: int64
      ``[num_sampled]``, float32 ``[batch_size, num_true]``, float32 ``[num_sampled]``,
      with no gradient.

    Raises:
      TypeError: ``true_classes`` is a tensor of a dtype other than int64.
      ValueError: ``true_classes`` is not a matrix; ``num_true`` or ``num_sampled`` is
        below 1 (TF's attribute minimum).
      InvalidArgumentError: ``unique`` with ``num_sampled > range_max`` (TF's
        "Sampler's range is too small.", raised here when the graph is built).
"""


def uniform_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Any, ...]:
    """Classes drawn uniformly from ``[0, range_max)``
    (``tf.random.uniform_candidate_sampler``): ``P(k) = 1 / range_max``."""
    return _sampler(
        "UniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max,
        _uniform_draw(int(range_max)), _uniform_probability(int(range_max)), seed, name,
    )  # fmt: skip


def log_uniform_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Any, ...]:
    """Classes drawn from the log-uniform (Zipfian) distribution
    (``tf.random.log_uniform_candidate_sampler``):
    ``P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1)``."""
    return _sampler(
        "LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max,
        _log_uniform_draw(int(range_max)), _log_uniform_probability(int(range_max)), seed, name,
    )  # fmt: skip


def fixed_unigram_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    vocab_file: str = "",
    distortion: float = 1.0,
    num_reserved_ids: int = 0,
    num_shards: int = 1,
    shard: int = 0,
    unigrams: Sequence[float] = (),
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Any, ...]:
    """Classes drawn from given unigram weights (``tf.random.fixed_unigram_candidate_sampler``).

    ``P(k) = w_k / sum(w)``: ``w`` is ``num_reserved_ids`` zeros followed by
    ``unigrams ** distortion`` (float32), keeping only the ids ``i`` with
    ``i % num_shards == shard``; ``range_max`` must equal the number kept.

    Additional args:
      vocab_file: not supported (raises ``NotImplementedError``); pass ``unigrams``.
      distortion, num_reserved_ids, num_shards, shard, unigrams: as TF.

    Raises:
      NotImplementedError: ``vocab_file`` given.
      InvalidArgumentError: neither or both of ``vocab_file`` and ``unigrams``; a
        ``range_max`` other than the number of weights (TF's messages); ``unique``
        with fewer nonzero weights than ``num_sampled`` (TF's kernel would loop forever).
    """
    if vocab_file and len(unigrams):
        raise errors.InvalidArgumentError(
            None, None, "Must only provide one of vocab_file and unigrams."
        )
    if vocab_file:
        raise NotImplementedError(
            "fixed_unigram_candidate_sampler: vocab_file is not supported by jtrain; read "
            "the file's last column into a list and pass it as unigrams="
        )
    if not len(unigrams):
        raise errors.InvalidArgumentError(None, None, "Must provide either vocab_file or unigrams.")
    power = np.float64(np.float32(distortion))
    weights: list[np.float32] = []
    total = np.float32(0.0)
    word_id = 0
    for _ in range(int(num_reserved_ids)):
        if word_id % num_shards == shard:
            weights.append(np.float32(0.0))
        word_id += 1
    word_id = len(weights)  # TF's LoadFromUnigrams counts ids from the weights so far
    for u in unigrams:
        if word_id % num_shards == shard:
            # TF: powf (correctly rounded): the float64 power rounded to float32
            w = np.float32(np.power(np.float64(np.float32(u)), power))
            total = np.float32(total + w)
            weights.append(w)
        word_id += 1
    table = np.asarray(weights, np.float32)
    if int(range_max) != table.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"range is {int(range_max)} must be equal to weights size  {table.shape[0]}"
        )
    if unique and np.count_nonzero(table) < int(num_sampled) <= int(range_max):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"fixed_unigram_candidate_sampler: unique=True needs num_sampled={num_sampled} "
            f"classes of nonzero weight, there are {np.count_nonzero(table)} (TF's kernel "
            "would never finish)",
        )
    return _sampler(
        "FixedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique, range_max,
        _table_draw(table), _table_probability(table, total), seed, name,
    )  # fmt: skip


def learned_unigram_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Any, ...]:
    """``tf.random.learned_unigram_candidate_sampler``: not supported.

    TF's sampler keeps counts of the true classes it has seen inside the op's kernel
    (state that no checkpoint saves); jtrain has no such op.

    Raises:
      NotImplementedError: always; use ``fixed_unigram_candidate_sampler`` with
        counts of the training data (or ``log_uniform_candidate_sampler``).
    """
    raise NotImplementedError(
        "tf.nn.learned_unigram_candidate_sampler is not supported by jtrain (its counts "
        "live in TF's kernel); use fixed_unigram_candidate_sampler(unigrams=<class counts>) "
        "or log_uniform_candidate_sampler"
    )


def all_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Any, ...]:
    """Every class ``0 .. num_sampled - 1`` (``tf.random.all_candidate_sampler``), for tests.

    Returns ``(range(num_sampled), ones [batch_size, num_true], ones [num_sampled])``
    (TF's ``AllSampler``: expected counts of 1); ``unique`` and ``seed`` are unused.
    """
    del unique, seed
    num_true, num_sampled = int(num_true), int(num_sampled)
    _check_minimums("AllCandidateSampler", num_true=num_true, num_sampled=num_sampled)
    with ops.name_scope(name or "AllCandidateSampler"):
        classes = _true_classes(true_classes, num_true, "AllCandidateSampler")
        classes = _checked(classes, num_sampled, "AllCandidateSampler")

        def sample(tc: Any) -> tuple[Any, Any, Any]:
            return (
                jnp.arange(num_sampled, dtype=jnp.int64),
                jnp.ones(tc.shape, jnp.float32),
                jnp.ones((num_sampled,), jnp.float32),
            )

        outputs = lift(sample, [classes], name="AllCandidateSampler")
        return _OUTPUTS["AllCandidateSampler"](*outputs)


# -- accidental hits ------------------------------------------------------------------------------
def accidental_hit_mask(true_classes: Any, sampled: Any) -> Any:
    """Where TF's ``compute_accidental_hits`` puts a hit, as a dense bool
    ``[batch_size, num_sampled]``: row ``i`` has a true class equal to ``sampled[j]``
    and ``j`` is that class's *last* position in ``sampled`` (TF's kernel maps each
    sampled class to its last position, so earlier repeats are not hits)."""
    hit = jnp.any(true_classes[:, :, None] == sampled[None, None, :], axis=1)
    j = jnp.arange(sampled.shape[0])
    later = jnp.any((sampled[:, None] == sampled[None, :]) & (j[None, :] > j[:, None]), axis=1)
    return hit & ~later[None, :]


def compute_accidental_hits(
    true_classes: Any,
    sampled_candidates: Any,
    num_true: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Any, ...]:
    """The sampled candidates equal to a true class (``tf.nn.compute_accidental_hits``).

    For each row ``i`` and each of its true classes (in order) equal to a sampled
    candidate (its last position ``j``): ``indices`` gets ``i`` (int32), ``ids`` gets
    ``j`` (int64), ``weights`` ``-FLT_MAX`` (float32).

    ``nce_loss``/``sampled_softmax_loss`` use the dense form of the same hits
    (:func:`accidental_hit_mask`) inside the step. The public op's output length
    depends on the values, which jtrain's static programs cannot hold: it is
    computed when the graph is built, from constant inputs.

    Raises:
      NotImplementedError: an input is computed (not a constant).
      InvalidArgumentError: ``true_classes`` is not ``[batch_size, num_true]`` or
        ``sampled_candidates`` not a vector (TF's messages).
    """
    del seed
    values = []
    for arg in (true_classes, sampled_candidates):
        tensor = ops.convert_to_tensor(arg, dtype=dtypes.int64)
        value = tensor.op._const_value
        if value is None:
            raise NotImplementedError(
                f"tf.nn.compute_accidental_hits of the computed tensor {tensor.name}: its "
                "output length depends on the values, which jtrain's static programs cannot "
                "hold; it works on constants (nce_loss and sampled_softmax_loss remove "
                "accidental hits inside the step)"
            )
        values.append(np.asarray(value, np.int64))
    classes, sampled = values
    if classes.ndim != 2 or classes.shape[1] != int(num_true):
        raise errors.InvalidArgumentError(
            None, None, "true_candidates must be a batch_size * num_true matrix"
        )
    if sampled.ndim != 1:
        raise errors.InvalidArgumentError(
            None,
            None,
            "sampled_candidates must be a vector, which is typically an output from "
            "CandidateSampler",
        )
    position = {int(c): j for j, c in enumerate(sampled)}
    hits = [
        (i, position[int(c)]) for i, row in enumerate(classes) for c in row if int(c) in position
    ]
    from adapters.v1.ops.constant_op import constant

    with ops.name_scope(name or "ComputeAccidentalHits"):
        return ComputeAccidentalHits(
            constant(np.asarray([i for i, _ in hits], np.int32), name="indices"),
            constant(np.asarray([j for _, j in hits], np.int64), name="ids"),
            constant(np.full(len(hits), -_FLT_MAX, np.float32), name="weights"),
        )
