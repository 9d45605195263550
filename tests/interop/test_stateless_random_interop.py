"""TF's stateless random ops of ``tf.random`` (split, fold_in, gamma, Poisson...), live
against TF 2.21 (classic TF1, ``twin.py``): values bit for bit, dtypes, static shapes,
gradients and TF's errors.

Before ``adapters/v1/ops/stateless_random_ops.py`` every name here raised
``AttributeError`` under jtrain.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both, run_once, tf1

pytestmark = pytest.mark.interop

from adapters import v1 as jtf  # noqa: E402

SEEDS = ([7, 17], [0, 0], [-3, 2**31 - 1])


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind != "f" and a.dtype.name != "bfloat16":
        return a
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def _assert_close_bits(theirs, ours, fraction: float, ulps: int) -> None:
    """Same dtypes and shapes; at least ``fraction`` of the elements bit-identical and
    none more than ``ulps`` apart (where TF's glibc and XLA's functions round apart)."""
    same, dist = [], []
    for t, o in zip(theirs, ours, strict=True):
        t, o = np.asarray(t), np.asarray(o)
        assert o.dtype == t.dtype and o.shape == t.shape, (o.dtype, t.dtype, o.shape, t.shape)
        d = np.abs(_bits(o).astype(np.int64) - _bits(t).astype(np.int64)).ravel()
        same.append(d == 0)
        dist.append(d)
    assert np.concatenate(same).mean() >= fraction, np.concatenate(same).mean()
    assert np.concatenate(dist).max() <= ulps, np.concatenate(dist).max()


def _assert_identical(theirs, ours) -> None:
    assert len(theirs) == len(ours)
    for i, (t, o) in enumerate(zip(theirs, ours, strict=True)):
        t, o = np.asarray(t), np.asarray(o)
        assert o.dtype == t.dtype and o.shape == t.shape, (i, o.dtype, t.dtype, o.shape, t.shape)
        np.testing.assert_array_equal(_bits(o), _bits(t), err_msg=f"output {i}")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("seed_dtype", ["int32", "int64"])
def test_split_and_fold_in_bit_identical(seed, seed_dtype):
    def script(tf):
        s = tf.constant(seed, getattr(tf, seed_dtype))
        outs = [
            tf.random.split(s),
            tf.random.split(s, 5),
            tf.random.split(s, num=3, alg="philox"),
            tf.random.fold_in(s, 3),
            tf.random.fold_in(s, tf.constant(2**40, tf.int64)),
            tf.random.fold_in(s, 7, alg=tf.random.Algorithm.AUTO_SELECT),
        ]
        shapes = [t.shape.as_list() for t in outs]
        assert shapes == [[2, 2], [5, 2], [3, 2], [2], [2], [2]], shapes
        # A split seed seeds the other stateless ops.
        outs.append(tf.random.stateless_uniform([3], tf.random.split(s)[1]))
        return lambda sess: sess.run(outs)

    _assert_identical(*run_both(script))


def test_create_rng_state_and_algorithm():
    def script(tf):
        outs = [
            tf.random.create_rng_state(1234, "philox"),
            tf.random.create_rng_state([12, 34], "threefry"),
            tf.random.create_rng_state(2**70 + 5, tf.random.Algorithm.PHILOX),
            tf.random.create_rng_state([1, 2, 3, 4], 3),
        ]
        assert [t.shape.as_list() for t in outs] == [[3], [2], [3], [3]]
        return lambda sess: sess.run(outs)

    _assert_identical(*run_both(script))
    assert [a.value for a in jtf.random.Algorithm] == [a.value for a in tf1.random.Algorithm]
    for tf in (tf1, jtf):
        with pytest.raises(ValueError, match="unsupported value"):
            tf.random.create_rng_state(1, "mersenne")


GAMMA_DTYPES = ("float32", "float16")


@pytest.mark.parametrize("seed", SEEDS)
def test_stateless_gamma_bit_identical(seed):
    def script(tf):
        s = tf.constant(seed, tf.int64)
        outs = [
            tf.random.stateless_gamma([40, 4], s, [0.3, 1.0, 2.5, 40.0]),
            tf.random.stateless_gamma([6, 3, 2], s, [[1.0], [3.0], [0.7]], beta=[2.0, 0.5]),
            tf.random.stateless_gamma([9], tf.constant(seed, tf.int32), 0.05),  # tiny values
        ]
        outs += [
            tf.random.stateless_gamma([5, 3], s, [0.5, 1.0, 4.0], dtype=getattr(tf, d))
            for d in GAMMA_DTYPES[1:]
        ]
        assert outs[1].shape.as_list() == [6, 3, 2] and outs[1].dtype == tf.float32
        return lambda sess: sess.run(outs)

    _assert_identical(*run_both(script))


@pytest.mark.parametrize("seed", SEEDS)
def test_stateless_gamma_float64_agreement(seed):
    # float64 samples go through XLA's float64 log/pow/sin/cos where TF calls glibc's:
    # measured 96.7-98.7% bit-identical on these seeds, the rest at most 12 ulps apart
    # (float32 and float16 round those differences away: bit-identical above).
    def script(tf):
        alpha = [0.3, 1.0, 7.0, 0.9, 150.0]
        return lambda sess: sess.run(
            tf.random.stateless_gamma([30, 5], seed, alpha, beta=1.5, dtype=tf.float64)
        )

    theirs, ours = run_both(script)
    _assert_close_bits([theirs], [ours], 0.95, 16)


def test_stateless_gamma_gradients():
    alpha = np.array([[0.4], [1.0], [3.0]], np.float32)
    beta = np.array([2.0, 0.5], np.float32)

    def script(tf):
        a = tf.constant(alpha)
        b = tf.constant(beta)
        g = tf.random.stateless_gamma([7, 3, 2], [3, 4], a, beta=b)
        loss = tf.reduce_sum(
            g * tf.constant(np.linspace(-1, 1, 42, dtype=np.float32).reshape(7, 3, 2))
        )
        grads = tf.gradients(loss, [a, b])
        return lambda sess: sess.run([g, grads])

    theirs, ours = run_both(script)
    _assert_identical([theirs[0]], [ours[0]])
    assert_twins(theirs[1], ours[1], rtol=2e-5, atol=1e-6)


POISSON_CASES = (
    ("float32", "int32"),
    ("float64", "int64"),
    ("int32", "float32"),
    ("float16", "float64"),
    ("int64", "float16"),
)


@pytest.mark.parametrize("seed", SEEDS)
def test_stateless_poisson_bit_identical(seed):
    def script(tf):
        s = tf.constant(seed, tf.int64)
        outs = []
        for lam_dtype, out_dtype in POISSON_CASES:
            lam = tf.cast([0.0, 0.5, 3.0, 9.9, 10.0, 30.0, 1234.0], getattr(tf, lam_dtype))
            outs.append(tf.random.stateless_poisson([6, 7], s, lam, dtype=getattr(tf, out_dtype)))
        outs.append(
            tf.random.stateless_poisson([4, 2, 1], tf.constant(seed, tf.int32), [[1.5], [20.0]])
        )
        assert [o.dtype.name for o in outs[:5]] == [c[1] for c in POISSON_CASES]
        assert outs[-1].shape.as_list() == [4, 2, 1]
        return lambda sess: sess.run(outs)

    _assert_identical(*run_both(script))


def test_stateless_poisson_has_no_gradient():
    def script(tf):
        lam = tf.constant([2.0, 15.0])
        p = tf.random.stateless_poisson([3, 2], [1, 2], lam, dtype=tf.float32)
        assert tf.gradients(tf.reduce_sum(p), lam) == [None]
        return lambda sess: sess.run(p)

    _assert_identical(*[[r] for r in run_both(script)])


@pytest.mark.parametrize(
    "build, error",
    [
        (lambda tf: tf.random.stateless_gamma([3], [1, 2, 3], 1.0), ValueError),
        (lambda tf: tf.random.stateless_poisson([3], [1.0, 2.0], 1.0), TypeError),
        (lambda tf: tf.random.stateless_poisson([3], [1, 2], 1.0, dtype=tf.uint8), TypeError),
        (lambda tf: tf.random.stateless_gamma([3], [1, 2], 1.0, dtype=tf.int32), TypeError),
        (lambda tf: tf.random.stateless_gamma([3], [1, 2], 1.0, dtype=tf.bfloat16), TypeError),
        (lambda tf: tf.random.split([1, 2], alg="mersenne"), ValueError),
        (lambda tf: tf.random.fold_in([1, 2], 1.5), ValueError),
    ],
)
def test_build_errors(build, error):
    for tf in (tf1, jtf):
        with tf.Graph().as_default(), pytest.raises(error):
            build(tf)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.random.stateless_gamma([4, 3], [1, 2], [1.0, 2.0]),
        lambda tf: tf.random.stateless_poisson([3, 2], [1, 2], [1.0, 2.0, 3.0]),
    ],
)
def test_parameters_must_end_the_shape(build):
    for tf in (tf1, jtf):
        with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted shape"):
            run_once(tf, lambda tf: (lambda t: lambda sess: sess.run(t))(build(tf)))


@pytest.mark.parametrize("seed", SEEDS)
def test_stateless_binomial_bit_identical(seed):
    def script(tf):
        s = tf.constant(seed, tf.int64)
        counts = [0.0, 5.0, 20.0, 100.0, 30.0, 1000.0, 7.0]
        probs = [0.3, 0.5, 0.2, 0.7, 0.95, 0.01, 1.0]  # inversion, BTRS, complements
        outs = [
            tf.random.stateless_binomial([20, 7], s, counts, probs),
            tf.random.stateless_binomial(
                [5, 3, 2],
                tf.constant(seed, tf.int32),
                [[3.0], [50.0], [200.0]],
                tf.constant([0.4, 0.9], tf.float64),
                output_dtype=tf.float32,
            ),
            tf.random.stateless_binomial(
                [4, 3],
                s,
                tf.constant([10.0, 100.0, 40.0], tf.float16),
                tf.constant([0.0, 0.25, 0.6], tf.float16),
                output_dtype=tf.int64,
            ),
        ]
        assert [o.dtype.name for o in outs] == ["int32", "float32", "int64"]
        assert outs[1].shape.as_list() == [5, 3, 2]
        return lambda sess: sess.run(outs)

    _assert_identical(*run_both(script))


def test_stateless_binomial_errors():
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            with pytest.raises(TypeError):  # counts int32, probs float32
                tf.random.stateless_binomial([2], [1, 2], tf.constant([3, 4]), [0.5, 0.5])
            with pytest.raises(TypeError):
                tf.random.stateless_binomial([2], [1, 2], [3.0], [0.5], output_dtype=tf.uint8)
        with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted"):
            run_once(
                tf,
                lambda tf: (lambda t: lambda sess: sess.run(t))(
                    tf.random.stateless_binomial([3, 2], [1, 2], [3.0, 4.0, 5.0], 0.5)
                ),
            )


LOGITS = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1], [0.25] * 4], np.float32))


@pytest.mark.parametrize("seed", SEEDS)
def test_stateless_multinomial_and_categorical_bit_identical(seed):
    # Small batches: TF's CPU kernel runs them as one shard (see stateless_multinomial).
    def script(tf):
        s = tf.constant(seed, tf.int64)
        odd = tf.constant([[-np.inf, 0.0, 1.0, np.nan, 2.0]], tf.float64)  # non-finite skipped
        outs = [
            tf.random.stateless_multinomial(LOGITS, 7, s),
            tf.random.stateless_multinomial(LOGITS, 4, tf.constant(seed, tf.int32), tf.int32),
            tf.random.stateless_categorical(LOGITS, 5, s, dtype=tf.int32),
            tf.random.stateless_categorical(tf.cast(LOGITS, tf.float16), 6, s),
            tf.random.stateless_categorical(odd, 9, s),
            # bfloat16 logits raised a TypeError (NumPy's finfo does not know bfloat16)
            tf.random.stateless_categorical(tf.cast(LOGITS, tf.bfloat16), 6, s),
        ]
        shapes = [[3, 7], [3, 4], [3, 5], [3, 6], [1, 9], [3, 6]]
        assert [o.shape.as_list() for o in outs] == shapes
        return lambda sess: sess.run(outs)

    _assert_identical(*run_both(script))


def test_stateless_categorical_errors():
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            with pytest.raises(ValueError):
                tf.random.stateless_categorical([0.5, 0.5], 3, [1, 2])
            with pytest.raises(ValueError, match="Accepted dtypes"):
                tf.random.stateless_categorical(LOGITS, 3, [1, 2], dtype=tf.float32)
            logits = tf.constant(LOGITS)
            draws = tf.random.stateless_multinomial(logits, 3, [1, 2], output_dtype=tf.int64)
            assert tf.gradients(tf.cast(draws, tf.float32), logits) == [None]


@pytest.mark.parametrize("seed", SEEDS)
def test_stateless_parameterized_truncated_normal_matches_tf(seed):
    # Normal, uniform and exponential rejection, flipped bounds, one-sided bounds;
    # small outputs, which TF's CPU kernel draws as one shard. The normal-rejection
    # float32 samples are Box-Muller values (glibc's logf/sincosf, reproduced: see
    # jtrain/random/philox.py): bit for bit (before, 99% bit-identical, the rest 1-2
    # ulps away).
    def script(tf):
        s = tf.constant(seed, tf.int64)
        f64 = lambda v: tf.constant(v, tf.float64)  # noqa: E731
        outs = [
            tf.random.stateless_parameterized_truncated_normal([10, 3], s),
            tf.random.stateless_parameterized_truncated_normal(
                [5, 4],
                tf.constant(seed, tf.int32),
                [0.0, 1.0, 0.0, 3.0],
                [1.0, 2.0, 1.0, 0.5],
                [0.1, 1.0, 3.0, -np.inf],
                [0.3, 4.0, np.inf, 2.0],
            ),
            tf.random.stateless_parameterized_truncated_normal(
                [6, 2], s, f64([0.0, 0.0]), f64(1.0), f64([-1.0, 2.5]), f64([1.0, 9.0])
            ),
            tf.random.stateless_parameterized_truncated_normal(
                [3, 2, 2], s, [[0.5], [-1.0]], 2.0, -1.0, [0.0, 5.0]
            ),
        ]
        assert [o.shape.as_list() for o in outs] == [[10, 3], [5, 4], [6, 2], [3, 2, 2]]
        assert outs[2].dtype == tf.float64
        return lambda sess: sess.run(outs)

    _assert_close_bits(*run_both(script), 1.0, 0)


def test_stateless_parameterized_truncated_normal_errors():
    for tf in (tf1, jtf):
        with tf.Graph().as_default(), pytest.raises(TypeError):
            tf.random.stateless_parameterized_truncated_normal(
                [2], [1, 2], tf.constant(0.0, tf.float64), 1.0
            )
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid parameters"):
            run_once(
                tf,
                lambda tf: (lambda t: lambda sess: sess.run(t))(
                    tf.random.stateless_parameterized_truncated_normal([4], [1, 2], 0.0, -1.0)
                ),
            )


def test_random_experimental_seed_names():
    def script(tf):
        s = tf.constant([5, 6])
        ex = tf.random.experimental
        outs = [
            ex.stateless_split(s, 3),
            ex.stateless_fold_in(s, 4),
            ex.create_rng_state(9, "philox"),
        ]
        assert ex.Algorithm.PHILOX.value == 1
        return lambda sess: sess.run(outs)

    _assert_identical(*run_both(script))
    with pytest.raises(AttributeError, match="stateless_shuffle"):
        jtf.random.experimental.stateless_shuffle  # noqa: B018
