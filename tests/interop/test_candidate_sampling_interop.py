"""Candidate sampling (``tf.nn.nce_loss``, ``tf.nn.sampled_softmax_loss``, the candidate
samplers, ``compute_accidental_hits``), checked live against TF 2.21 (``twin.py``).

The samplers' draws use JAX's random numbers, so the candidates differ from TF's;
everything deterministic is compared with TF: the losses and their gradients for given
``sampled_values`` (TF's own draw fed to both), the expected counts of given classes,
shapes and dtypes, accidental hits. The draws themselves are checked against TF's
distributions with binomial bounds. Before ``candidate_sampling_ops.py`` and
``nn_impl.py`` every name here raised ``AttributeError`` under jtrain.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from adapters.v1.framework import _x64
from adapters.v1.ops.candidate_sampling_ops import expected_count
from tests.interop.bits import ulps_apart
from tests.interop.twin import assert_twins, run_both, run_once, tf1

pytestmark = pytest.mark.interop

CLASSES = 10
DIM = 4
BATCH = 3
RNG = np.random.RandomState(0)
WEIGHTS = RNG.normal(size=(CLASSES, DIM)).astype(np.float32)
BIASES = (0.1 * RNG.normal(size=CLASSES)).astype(np.float32)
INPUTS = RNG.normal(size=(BATCH, DIM)).astype(np.float32)
LABELS = {1: np.array([[2], [5], [0]], np.int64), 2: np.array([[2, 7], [5, 5], [0, 9]], np.int64)}
# a given draw with repeats (unique=False): 5 twice (only its last position is a hit),
# 2 and 9 hit rows 0 and 2
SAMPLED = np.array([5, 1, 2, 5, 9], np.int64)
TRUE_COUNT = {
    n: (0.05 + 0.1 * np.arange(BATCH * n, dtype=np.float32)).reshape(BATCH, n) for n in (1, 2)
}
SAMPLED_COUNT = np.array([0.3, 0.2, 0.45, 0.3, 0.12], np.float32)


def _tables(tf, partitions, strategy):
    """The weights as one variable or as partitions of TF's ``mod``/``div`` layout."""
    if partitions == 1:
        return tf.Variable(WEIGHTS, name="w"), WEIGHTS
    ids = np.arange(CLASSES)
    if strategy == "mod":
        parts = [WEIGHTS[ids % partitions == p] for p in range(partitions)]
    else:
        parts = np.array_split(WEIGHTS, partitions)  # div: the first ones one row larger
    return [tf.Variable(p, name=f"w{i}") for i, p in enumerate(parts)], parts


def _loss_script(loss, num_true, remove_hits, partitions, strategy, sampled_values=None):
    def script(tf):
        weights, _ = _tables(tf, partitions, strategy)
        biases = tf.Variable(BIASES, name="b")
        inputs = tf.Variable(INPUTS, name="x")
        values = sampled_values or (SAMPLED, TRUE_COUNT[num_true], SAMPLED_COUNT)
        num_sampled = len(values[0])
        values = tuple(tf.constant(v) for v in values)
        fn = tf.nn.nce_loss if loss == "nce" else tf.nn.sampled_softmax_loss
        out = fn(
            weights, biases, tf.constant(LABELS[num_true]), inputs, num_sampled=num_sampled,
            num_classes=CLASSES, num_true=num_true, sampled_values=values,
            remove_accidental_hits=remove_hits, partition_strategy=strategy,
        )  # fmt: skip
        tables = weights if isinstance(weights, list) else [weights]
        grads = tf.gradients(
            tf.reduce_sum(out * tf.constant([1.0, 2.0, 3.0])), [*tables, biases, inputs]
        )
        dense = [tf.convert_to_tensor(g) for g in grads]
        static = out.get_shape().as_list()
        return lambda sess: (static, out.dtype.name, sess.run([out, *dense]))

    return script


@pytest.mark.parametrize("loss", ["nce", "sampled_softmax"])
@pytest.mark.parametrize("num_true", [1, 2])
@pytest.mark.parametrize("remove_hits", [False, True])
def test_losses_and_gradients_match_tf_for_given_sampled_values(loss, num_true, remove_hits):
    theirs, ours = run_both(_loss_script(loss, num_true, remove_hits, 1, "mod"))
    assert_twins(theirs, ours, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("loss", ["nce", "sampled_softmax"])
@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("partitions", [2, 3])
def test_losses_with_partitioned_weights_match_tf(loss, strategy, partitions):
    theirs, ours = run_both(_loss_script(loss, 2, True, partitions, strategy))
    assert_twins(theirs, ours, rtol=2e-6, atol=1e-7)


def _tf_draw(sampler, num_true, num_sampled, unique, seed=5, **kwargs):
    """One draw of TF's own sampler for ``LABELS[num_true]``, as NumPy arrays."""

    def script(tf):
        out = getattr(tf.nn, sampler)(
            tf.constant(LABELS[num_true]), num_true, num_sampled, unique, CLASSES, seed=seed,
            **kwargs,
        )  # fmt: skip
        return lambda sess: tuple(sess.run(out))

    return run_once(tf1, script)


@pytest.mark.parametrize("loss", ["nce", "sampled_softmax"])
def test_losses_match_tf_fed_tfs_own_unique_draw(loss):
    """The natural port: TF's log-uniform unique draw (with its expected counts) fed to both."""
    values = _tf_draw("log_uniform_candidate_sampler", 2, 6, True)
    theirs, ours = run_both(_loss_script(loss, 2, loss == "sampled_softmax", 1, "mod", values))
    assert_twins(theirs, ours, rtol=2e-6, atol=1e-7)


def test_nce_loss_default_sampler_trains_shapes_as_tf():
    """Without ``sampled_values`` (the draw is jtrain's): TF's shapes and dtypes, finite."""

    def script(tf):
        out = tf.nn.nce_loss(
            tf.Variable(WEIGHTS), tf.Variable(BIASES), tf.constant(LABELS[1]), tf.constant(INPUTS),
            num_sampled=4, num_classes=CLASSES,
        )  # fmt: skip
        return lambda sess: (out.get_shape().as_list(), out.dtype.name, sess.run(out).shape)

    theirs, ours = run_both(script)
    assert theirs == ours == ([BATCH], "float32", (BATCH,))


# -- expected counts of given classes ---------------------------------------------------------
ALL_CLASSES = np.arange(CLASSES, dtype=np.int64).reshape(CLASSES, 1)
UNIGRAMS = [3.0, 0.5, 7.0, 1.0, 2.0, 9.0, 4.0, 0.25, 6.0, 1.5, 8.0, 2.5]
SAMPLERS = {
    "uniform": ("uniform_candidate_sampler", {}),
    "log_uniform": ("log_uniform_candidate_sampler", {}),
    "unigram": ("fixed_unigram_candidate_sampler", {"unigrams": UNIGRAMS[:CLASSES]}),
    "unigram distorted": (
        "fixed_unigram_candidate_sampler", {"unigrams": UNIGRAMS[:CLASSES], "distortion": 0.75},
    ),
    "unigram reserved, sharded": (
        "fixed_unigram_candidate_sampler",
        {"unigrams": UNIGRAMS + UNIGRAMS[:6], "num_reserved_ids": 2, "num_shards": 2, "shard": 1,
         "distortion": 0.5},
    ),
}  # fmt: skip


def _counts_script(sampler, kwargs, num_sampled, unique):
    def script(tf):
        out = getattr(tf.nn, sampler)(
            tf.constant(ALL_CLASSES), 1, num_sampled, unique, CLASSES, seed=1, **kwargs
        )
        static = [(t.get_shape().as_list(), t.dtype.name) for t in out]
        return lambda sess: (static, sess.run(out.true_expected_count))

    return script


@pytest.mark.parametrize("num_sampled", [1, 7])
@pytest.mark.parametrize("case", sorted(SAMPLERS))
def test_expected_counts_of_every_class_are_tfs_bits(case, num_sampled):
    """``unique=False``: ``P(k) * num_sampled`` for every class, to the bit."""
    sampler, kwargs = SAMPLERS[case]
    theirs, ours = run_both(_counts_script(sampler, kwargs, num_sampled, False))
    assert_twins(theirs, ours, rtol=0)
    assert theirs[0] == [
        ([num_sampled], "int64"),
        ([CLASSES, 1], "float32"),
        ([num_sampled], "float32"),
    ]


@pytest.mark.parametrize("sampler", ["log_uniform_candidate_sampler", "uniform_candidate_sampler"])
def test_expected_counts_in_a_large_vocabulary_are_tfs_bits(sampler):
    classes = np.unique(np.r_[0, 1, 2, 49999, RNG.randint(0, 50000, 300)]).astype(np.int64)

    def script(tf):
        out = getattr(tf.nn, sampler)(tf.constant(classes[:, None]), 1, 64, False, 50000)
        return lambda sess: sess.run(out.true_expected_count)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def _probabilities(sampler, kwargs):
    """jtrain's ``P(k)`` of every class (equal to TF's: the test above)."""
    (_, p) = run_once(jtf, _counts_script(sampler, kwargs, 1, False))
    return p.reshape(-1)


@pytest.mark.parametrize("case", ["log_uniform", "unigram distorted"])
def test_unique_expected_counts_follow_tfs_formula_for_its_num_tries(case):
    """``unique=True``: TF's counts are ``-expm1(num_tries * log1p(-P))`` for its (random)
    ``num_tries``; jtrain's formula for the same ``num_tries`` gives TF's counts within
    one float32 ulp (glibc's ``log1pf``/``expm1f`` are not correctly rounded; jtrain's
    steps are, see the module's note), most of them to the bit."""
    sampler, kwargs = SAMPLERS[case]
    p = _probabilities(sampler, kwargs)
    count = jax.jit(expected_count, static_argnums=1)
    exact = total = repeated = 0
    for seed in range(1, 9):
        cands, true_count, sampled_count = _tf_draw(sampler, 1, 6, True, seed=seed, **kwargs)
        theirs = np.concatenate([true_count.reshape(-1), sampled_count])
        classes = np.concatenate([LABELS[1].reshape(-1), cands])
        with _x64.exact():
            options = [np.asarray(count(p[classes], 6, n)) for n in range(6, 400)]
        best = min(options, key=lambda o: int(ulps_apart(o, theirs).max()))
        assert ulps_apart(best, theirs).max() <= 1, (theirs, best)
        exact += int((best == theirs).sum())
        total += theirs.size
        repeated += int(best is not options[0])
    assert repeated >= 3  # draws with repeats did take the expm1 branch
    assert exact >= 0.8 * total


def test_all_candidate_sampler_matches_tf():
    def script(tf):
        out = tf.nn.all_candidate_sampler(tf.constant(LABELS[2]), 2, CLASSES, True)
        return lambda sess: ([t.get_shape().as_list() for t in out], tuple(sess.run(out)))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


# -- the draws: shapes, uniqueness, range, distribution ----------------------------------------
def _draws(sampler, kwargs, num_sampled, unique, runs, num_true=1):
    """``runs`` draws of jtrain's sampler (graph seed fixed) and its static shapes."""

    def script(tf):
        tf.set_random_seed(1234)
        out = getattr(tf.nn, sampler)(
            tf.constant(LABELS[num_true]), num_true, num_sampled, unique, CLASSES, **kwargs
        )
        static = [(t.get_shape().as_list(), t.dtype.name) for t in out]
        return lambda sess: (static, [sess.run(out) for _ in range(runs)])

    return run_once(jtf, script)


@pytest.mark.parametrize("unique", [False, True])
@pytest.mark.parametrize("case", ["uniform", "log_uniform", "unigram reserved, sharded"])
def test_draws_have_tfs_shapes_dtypes_range_and_uniqueness(case, unique):
    sampler, kwargs = SAMPLERS[case]
    static, draws = _draws(sampler, kwargs, 8, unique, 20, num_true=2)
    with tf1.Graph().as_default():
        out = getattr(tf1.nn, sampler)(tf1.constant(LABELS[2]), 2, 8, unique, CLASSES, **kwargs)
        assert static == [(t.get_shape().as_list(), t.dtype.name) for t in out]
    p = _probabilities(sampler, kwargs)
    for cands, true_count, sampled_count in draws:
        assert cands.dtype == np.int64 and true_count.dtype == sampled_count.dtype == np.float32
        assert np.all((cands >= 0) & (cands < CLASSES)) and np.all(p[cands] > 0)
        if unique:
            assert len(set(cands.tolist())) == 8
        else:
            np.testing.assert_array_equal(sampled_count, p[cands] * np.float32(8))


# Binomial bound: a class of probability p among n independent draws is counted
# n p +- Z sqrt(n p (1 - p)); Z = 5 has a two-sided normal tail of 5.7e-7 per class, so
# 10 classes in each of these tests fail by chance with probability below 1e-5.
Z = 5.0


def _assert_binomial(counts, p, n):
    bound = Z * np.sqrt(n * p * (1 - p)) + 1  # +1: continuity
    assert np.all(np.abs(counts - n * p) <= bound), (counts, n * p, bound)


@pytest.mark.parametrize("case", ["uniform", "log_uniform", "unigram reserved, sharded"])
def test_independent_draws_follow_tfs_distribution(case):
    sampler, kwargs = SAMPLERS[case]
    p = _probabilities(sampler, kwargs).astype(np.float64)
    _, draws = _draws(sampler, kwargs, 4000, False, 1)
    counts = np.bincount(draws[0][0], minlength=CLASSES)
    _assert_binomial(counts, p, 4000)


@pytest.mark.parametrize("case", ["log_uniform", "unigram reserved, sharded"])
def test_unique_draws_follow_tfs_sequential_distribution(case):
    """TF's unique draw: the first candidate is a draw of ``P``; the second, given the
    first ``a``, a draw of ``P`` without ``a`` (``P(k) / (1 - P(a))``); checked on the
    second candidates of the runs whose first was the most likely class."""
    sampler, kwargs = SAMPLERS[case]
    p = _probabilities(sampler, kwargs).astype(np.float64)
    runs = 600
    _, draws = _draws(sampler, kwargs, 3, True, runs)
    firsts = np.array([d[0][0] for d in draws])
    _assert_binomial(np.bincount(firsts, minlength=CLASSES), p, runs)
    top = int(np.argmax(p))
    seconds = np.array([d[0][1] for d in draws if d[0][0] == top])
    q = np.where(np.arange(CLASSES) == top, 0.0, p / (1 - p[top]))
    _assert_binomial(np.bincount(seconds, minlength=CLASSES), q, len(seconds))


def test_unique_num_tries_is_consistent_with_the_counts():
    """jtrain's unique counts are the formula's for one ``num_tries >= num_sampled``."""
    sampler, kwargs = SAMPLERS["log_uniform"]
    p = _probabilities(sampler, kwargs)
    _, draws = _draws(sampler, kwargs, 6, True, 10)
    count = jax.jit(expected_count, static_argnums=1)
    for cands, true_count, sampled_count in draws:
        got = np.concatenate([true_count.reshape(-1), sampled_count])
        classes = np.concatenate([LABELS[1].reshape(-1), cands])
        with _x64.exact():
            assert any(
                np.array_equal(np.asarray(count(p[classes], 6, n)), got) for n in range(6, 400)
            )


# -- accidental hits, errors -------------------------------------------------------------------
@pytest.mark.parametrize("num_true", [1, 2])
def test_compute_accidental_hits_of_constants_matches_tf(num_true):
    def script(tf):
        out = tf.nn.compute_accidental_hits(
            tf.constant(LABELS[num_true]), tf.constant(SAMPLED), num_true
        )
        return lambda sess: tuple(sess.run(out))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert len(theirs[0]) >= 2


def test_compute_accidental_hits_of_a_computed_tensor_raises():
    with jtf.Graph().as_default():
        sampled = jtf.placeholder(jtf.int64, [5])
        with pytest.raises(NotImplementedError, match="compute_accidental_hits"):
            jtf.nn.compute_accidental_hits(jtf.constant(LABELS[1]), sampled, 1)


def test_true_class_out_of_range_raises_tfs_error():
    def script(tf):
        out = tf.nn.uniform_candidate_sampler(tf.constant([[3], [12]], tf.int64), 1, 2, False, 10)
        return lambda sess: sess.run(out)

    for tf in (tf1, jtf):
        with pytest.raises(
            tf.errors.InvalidArgumentError, match=r"out of range \[0, 10\), received 12"
        ):
            run_once(tf, script)


def test_int32_true_classes_raise_typeerror_as_tf():
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            with pytest.raises(TypeError, match="int32 that does not match expected type of int64"):
                tf.nn.log_uniform_candidate_sampler(tf.constant([[1]], tf.int32), 1, 2, True, 5)


def test_unique_with_too_small_range_raises_invalid_argument():
    """TF raises when the op runs, jtrain when the graph is built: the same class and text."""

    def script(tf):
        out = tf.nn.uniform_candidate_sampler(tf.constant([[1]], tf.int64), 1, 6, True, 5)
        return lambda sess: sess.run(out)

    for tf in (tf1, jtf):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Sampler's range is too small"):
            run_once(tf, script)


SAMPLER_OPS = {
    "UniformCandidateSampler": lambda tf, tc, k: tf.nn.uniform_candidate_sampler(tc, **k),
    "LogUniformCandidateSampler": lambda tf, tc, k: tf.nn.log_uniform_candidate_sampler(tc, **k),
    "FixedUnigramCandidateSampler": lambda tf, tc, k: tf.nn.fixed_unigram_candidate_sampler(
        tc, unigrams=[1.0] * 10, **k
    ),
    "AllCandidateSampler": lambda tf, tc, k: tf.random.all_candidate_sampler(
        tc, k["num_true"], k["num_sampled"], k["unique"]
    ),
}


@pytest.mark.parametrize("op_type", sorted(SAMPLER_OPS))
@pytest.mark.parametrize(
    "attrs",
    [
        {"num_true": 1, "num_sampled": 0, "unique": True, "range_max": 10},
        {"num_true": 1, "num_sampled": -1, "unique": False, "range_max": 10},
        {"num_true": 0, "num_sampled": 2, "unique": True, "range_max": 10},
    ],
)
def test_attrs_below_their_minimum_raise_tfs_valueerror(op_type, attrs):
    """TF's op definitions give num_true and num_sampled a minimum of 1: a ValueError
    naming the attribute and the op when the graph is built (jtrain raised JAX's
    'argmax of an empty sequence' or a negative-shape error)."""
    messages = []
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            with pytest.raises(ValueError) as info:
                SAMPLER_OPS[op_type](tf, tf.constant([[1]], tf.int64), attrs)
            messages.append(str(info.value).split("\n")[0])
    assert messages[1] == messages[0]
    assert f"of '{op_type}' Op passed" in messages[0]


def test_learned_unigram_sampler_is_refused_with_a_way_out():
    assert hasattr(tf1.nn, "learned_unigram_candidate_sampler")
    with jtf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="fixed_unigram_candidate_sampler"):
            jtf.nn.learned_unigram_candidate_sampler(jtf.constant(LABELS[1]), 1, 2, True, 10)


def test_namespaces_as_tf():
    names = [
        "all_candidate_sampler", "fixed_unigram_candidate_sampler",
        "learned_unigram_candidate_sampler", "log_uniform_candidate_sampler",
        "uniform_candidate_sampler",
    ]  # fmt: skip
    for name in names:
        assert hasattr(tf1.random, name) and hasattr(jtf.random, name), name
        assert hasattr(tf1.nn, name) and hasattr(jtf.nn, name), name
    for name in ("nce_loss", "sampled_softmax_loss", "compute_accidental_hits"):
        assert hasattr(tf1.nn, name) and hasattr(jtf.nn, name), name


def test_gelu_is_not_in_tf1_nn():
    """TF 2.21 exports ``tf.nn.gelu`` for TF 2 only (``v1=[]``): a TF1 script cannot call
    it, so jtrain's ``tf.nn`` has none either."""
    assert hasattr(real_tf.nn, "gelu")
    assert not hasattr(tf1.nn, "gelu") and not hasattr(jtf.nn, "gelu")


def test_float64_losses_with_a_fed_batch_match_tf():
    """float64 model (float64 expected counts, as TF requires) and a batch of unknown size."""
    rng = np.random.RandomState(1)
    w, b, x = rng.normal(size=(12, 3)), rng.normal(size=12), rng.normal(size=(4, 3))
    labels = np.array([[1], [3], [3], [11]], np.int32)

    def script(tf):
        inputs = tf.placeholder(tf.float64, [None, 3])
        targets = tf.placeholder(tf.int32, [None, 1])
        weights, biases = tf.Variable(w), tf.Variable(b)
        true_count = tf.placeholder(tf.float64, [None, 1])
        values = (
            tf.constant([3, 0, 7, 11], tf.int64),
            true_count,
            tf.constant([0.2, 0.9, 0.1, 0.05], tf.float64),
        )
        feed = {inputs: x, targets: labels, true_count: np.full((4, 1), 0.5)}
        softmax = tf.nn.sampled_softmax_loss(
            weights, biases, targets, inputs, 4, 12, sampled_values=values
        )
        nce = tf.nn.nce_loss(
            weights, biases, targets, inputs, 4, 12, sampled_values=values,
            remove_accidental_hits=True,
        )  # fmt: skip
        total = tf.reduce_sum(softmax) + tf.reduce_sum(nce)
        grads = [tf.convert_to_tensor(g) for g in tf.gradients(total, [weights, biases, inputs])]
        static = [t.get_shape().as_list() for t in (softmax, nce)]
        return lambda sess: (static, sess.run([softmax, nce, *grads], feed))

    theirs, ours = run_both(script)
    assert theirs[0] == [[None], [None]]
    assert_twins(theirs, ours, rtol=1e-13)


def test_expected_counts_of_another_dtype_than_the_inputs_raise_typeerror_as_tf():
    """TF subtracts ``log(expected count)`` from the logits without a cast: float64
    inputs with the samplers' float32 counts are refused."""
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            values = (
                tf.constant([3, 0], tf.int64),
                tf.constant([[0.5]], tf.float32),
                tf.constant([0.2, 0.3], tf.float32),
            )
            with pytest.raises(TypeError, match="type float32 that does not match type float64"):
                tf.nn.nce_loss(
                    tf.constant(WEIGHTS, tf.float64), tf.constant(BIASES, tf.float64),
                    tf.constant([[1]]), tf.constant(INPUTS[:1], tf.float64), 2, CLASSES,
                    sampled_values=values,
                )  # fmt: skip
