"""``tf.distributions`` without TF: the law of samples (JAX's draws cannot equal TF's),
float64 samples kept in float64, reparameterized gradients, the KL registry and the
namespace. Values, gradients and shapes of every method are compared with TF live
in tests/interop/test_distributions_interop.py.

The law of samples is checked with the Dvoretzky-Kiefer-Wolfowitz inequality:
for ``n`` independent draws of any distribution, ``P(sup |F_n - F| > eps) <=
2 exp(-2 n eps**2)``; with ``eps = sqrt(log(2 / ALPHA) / (2 n))`` a correct sampler
fails a check with probability at most ``ALPHA`` (1e-6), whatever the seed, while a
wrong scale, shift or class order moves the CDF by far more than ``eps`` (0.043 for
``n = 4000``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from adapters import v1 as tf

N = 4000
ALPHA = 1e-6
EPS = math.sqrt(math.log(2 / ALPHA) / (2 * N))


def _ks(draws: np.ndarray, cdf) -> float:
    """``sup_x |F_n(x) - F(x)|`` of continuous draws (at the jumps of ``F_n``)."""
    x = np.sort(draws)
    f = np.array([cdf(v) for v in x])
    n = len(x)
    return float(max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n)))


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        tf.set_random_seed(1234)
        yield


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_samples_law(dtype) -> None:
    loc, scale = np.array([0.0, 3.0], dtype), np.array([1.0, 0.5], dtype)
    draws = _run(tf.distributions.Normal(loc, scale).sample(N, seed=7))
    assert draws.shape == (N, 2) and draws.dtype == dtype
    for j in range(2):
        m, s = float(loc[j]), float(scale[j])
        stat = _ks(
            draws[:, j], lambda v, m=m, s=s: 0.5 * (1 + math.erf((v - m) / (s * math.sqrt(2))))
        )
        assert stat < EPS, (j, stat, EPS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_samples_law(dtype) -> None:
    low, high = np.array([-1.0, 2.0], dtype), np.array([1.0, 2.5], dtype)
    draws = _run(tf.distributions.Uniform(low, high).sample(N, seed=7))
    assert draws.shape == (N, 2) and draws.dtype == dtype
    assert np.all(draws >= low) and np.all(draws < high)
    for j in range(2):
        a, b = float(low[j]), float(high[j])
        stat = _ks(draws[:, j], lambda v, a=a, b=b: min(max((v - a) / (b - a), 0.0), 1.0))
        assert stat < EPS, (j, stat, EPS)


def test_float64_samples_are_not_float32() -> None:
    """float64 draws carry float64 bits (x64 stays off in JAX)."""
    draws = _run(tf.distributions.Normal(np.float64(0.0), np.float64(1.0)).sample(100, seed=3))
    assert draws.dtype == np.float64
    assert np.mean(draws.astype(np.float32).astype(np.float64) != draws) > 0.9


@pytest.mark.parametrize("from_logits", [True, False])
def test_categorical_samples_law(from_logits: bool) -> None:
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.0, 0.5]], np.float32)
    with np.errstate(divide="ignore"):
        dist = (
            tf.distributions.Categorical(logits=np.log(probs))
            if from_logits
            else tf.distributions.Categorical(probs=probs)
        )
    draws = _run(dist.sample(N, seed=5))
    assert draws.shape == (N, 2) and draws.dtype == np.int32
    for j in range(2):
        for k in range(3):  # the empirical CDF at every class
            stat = abs(np.mean(draws[:, j] <= k) - probs[j, : k + 1].sum())
            assert stat < EPS, (j, k, stat, EPS)
    assert not np.any(draws[:, 1] == 1)  # a class of probability 0 is never drawn


def test_bernoulli_samples_law() -> None:
    probs = np.array([0.2, 0.9, 0.0], np.float32)
    draws = _run(tf.distributions.Bernoulli(probs=probs).sample(N, seed=5))
    assert draws.shape == (N, 3) and draws.dtype == np.int32
    assert set(np.unique(draws)) <= {0, 1}
    for j in range(3):
        assert abs(np.mean(draws[:, j]) - probs[j]) < EPS


def test_samples_are_fresh_per_run_and_seeded() -> None:
    s = tf.distributions.Normal(0.0, 1.0).sample(3, seed=11)
    with tf.Session() as sess:
        a, b = sess.run(s), sess.run(s)
    assert not np.array_equal(a, b)
    with tf.Graph().as_default():
        tf.set_random_seed(1234)
        s2 = tf.distributions.Normal(0.0, 1.0).sample(3, seed=11)
        with tf.Session() as sess:
            assert np.array_equal(sess.run(s2), a)


def test_reparameterized_gradients() -> None:
    loc = tf.constant([0.5, -1.0])
    scale = tf.constant([2.0, 0.5])
    s = tf.distributions.Normal(loc, scale).sample(5, seed=2)
    g_loc, g_scale = tf.gradients(tf.reduce_sum(s), [loc, scale])
    low, high = tf.constant(1.0), tf.constant([3.0, 4.0])
    u = tf.distributions.Uniform(low, high).sample(6, seed=2)
    g_low, g_high = tf.gradients(tf.reduce_sum(u), [low, high])
    sv, gl, gs, uv, glow, ghigh = _run([s, g_loc, g_scale, u, g_low, g_high])
    np.testing.assert_array_equal(gl, [5.0, 5.0])
    np.testing.assert_allclose(gs, np.sum((sv - [0.5, -1.0]) / [2.0, 0.5], axis=0), rtol=1e-5)
    frac = (uv - 1.0) / (np.array([3.0, 4.0]) - 1.0)
    np.testing.assert_allclose(glow, np.sum(1 - frac), rtol=1e-5)
    np.testing.assert_allclose(ghigh, np.sum(frac, axis=0), rtol=1e-5)


def test_reparameterization_types() -> None:
    d = tf.distributions
    assert d.Normal(0.0, 1.0).reparameterization_type is d.FULLY_REPARAMETERIZED
    assert d.Uniform().reparameterization_type is d.FULLY_REPARAMETERIZED
    assert d.Categorical(logits=[0.0, 1.0]).reparameterization_type is d.NOT_REPARAMETERIZED
    assert d.Bernoulli(logits=0.0).reparameterization_type is d.NOT_REPARAMETERIZED
    assert d.FULLY_REPARAMETERIZED != d.NOT_REPARAMETERIZED
    assert d.ReparameterizationType("FULLY_REPARAMETERIZED") != d.FULLY_REPARAMETERIZED
    assert isinstance(d.Normal(0.0, 1.0), d.Distribution)


def test_float64_parameters_stay_float64() -> None:
    loc = np.float64(0.1)  # not a float32 value
    n = tf.distributions.Normal(loc, np.float64(1.0))
    mean, lp = _run([n.mean(), n.log_prob(loc)])
    assert mean.dtype == np.float64 and mean == loc
    assert lp.dtype == np.float64


def test_kl_registry_dispatch() -> None:
    d = tf.distributions

    class Base(d.Normal):
        pass

    class Child(Base):
        pass

    @d.RegisterKL(Base, d.Normal)
    def _kl_base(a, b, name=None):
        return tf.constant(1.0)

    @d.RegisterKL(Child, Child)
    def _kl_child(a, b, name=None):
        return tf.constant(2.0)

    c, n = Child(0.0, 1.0), d.Normal(0.0, 1.0)
    assert _run(d.kl_divergence(c, c)) == 2.0  # the nearest pair wins
    assert _run(d.kl_divergence(c, n)) == 1.0
    assert _run(d.kl_divergence(n, n)) == 0.0  # Normal-Normal
    with pytest.raises(TypeError, match="kl_fn must be callable"):
        d.RegisterKL(Child, d.Normal)(3)
    with pytest.raises(NotImplementedError, match="No KL"):
        d.kl_divergence(n, d.Uniform())


def test_sample_shape_from_the_graph_is_refused() -> None:
    n = tf.placeholder(tf.int32, [])
    with pytest.raises(NotImplementedError, match="sample_shape must be known"):
        tf.distributions.Normal(0.0, 1.0).sample(n)


def test_namespace_errors() -> None:
    with pytest.raises(
        AttributeError, match="tf.distributions.Multinomial is not in adapters.v1 yet"
    ):
        tf.distributions.Multinomial  # noqa: B018
    with pytest.raises(AttributeError, match="names that exist: tf.distributions.Normal"):
        tf.distributions.Norml  # noqa: B018
    assert not hasattr(tf.distributions, "DirichletMultinomial")
    assert "distributions" in tf.__all__


def _gamma_cdf(a: float, x: float) -> float:
    """The regularized lower incomplete gamma function by its series (x > 0)."""
    if x <= 0:
        return 0.0
    term = total = 1.0 / a
    k = 0
    while abs(term) > 1e-16 * abs(total) and k < 10_000:
        k += 1
        term *= x / (a + k)
        total += term
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gamma_samples_law(dtype) -> None:
    conc, rate = np.array([0.5, 3.0], dtype), np.array([2.0, 0.5], dtype)
    draws = _run(tf.distributions.Gamma(conc, rate).sample(N, seed=9))
    assert draws.shape == (N, 2) and draws.dtype == dtype and np.all(draws > 0)
    for j in range(2):
        a, r = float(conc[j]), float(rate[j])
        stat = _ks(draws[:, j], lambda v, a=a, r=r: _gamma_cdf(a, r * v))
        assert stat < EPS, (j, stat, EPS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exponential_and_laplace_samples_law(dtype) -> None:
    rate = np.array([0.5, 4.0], dtype)
    loc, scale = np.array([1.0, -2.0], dtype), np.array([0.5, 3.0], dtype)
    e, lap = _run(
        [
            tf.distributions.Exponential(rate).sample(N, seed=4),
            tf.distributions.Laplace(loc, scale).sample(N, seed=4),
        ]
    )
    assert e.dtype == lap.dtype == dtype and e.shape == lap.shape == (N, 2)
    for j in range(2):
        r, m, b = float(rate[j]), float(loc[j]), float(scale[j])
        assert _ks(e[:, j], lambda v, r=r: 1 - math.exp(-r * v) if v > 0 else 0.0) < EPS
        laplace_cdf = lambda v, m=m, b=b: (
            0.5 * math.exp((v - m) / b) if v < m else 1 - 0.5 * math.exp(-(v - m) / b)
        )
        assert _ks(lap[:, j], laplace_cdf) < EPS


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_beta_and_student_t_samples_law(dtype) -> None:
    from scipy import stats

    c1, c0 = np.array([0.5, 3.0], dtype), np.array([2.0, 0.7], dtype)
    df, loc, scale = (
        np.array([1.5, 6.0], dtype),
        np.array([0.0, 2.0], dtype),
        np.array([1.0, 0.5], dtype),
    )
    b, t = _run(
        [
            tf.distributions.Beta(c1, c0).sample(N, seed=6),
            tf.distributions.StudentT(df, loc, scale).sample(N, seed=6),
        ]
    )
    assert b.dtype == t.dtype == dtype and b.shape == t.shape == (N, 2)
    for j in range(2):
        beta_cdf = stats.beta(float(c1[j]), float(c0[j])).cdf
        t_cdf = stats.t(float(df[j]), float(loc[j]), float(scale[j])).cdf
        assert _ks(b[:, j], beta_cdf) < EPS
        assert _ks(t[:, j], t_cdf) < EPS


def test_dirichlet_samples_law() -> None:
    """Each coordinate of a Dirichlet draw is Beta(c_i, sum(c) - c_i); draws sum to 1."""
    from scipy import stats

    c = np.array([0.5, 2.0, 3.5], np.float32)
    draws = _run(tf.distributions.Dirichlet(c).sample(N, seed=8))
    assert draws.shape == (N, 3) and draws.dtype == np.float32
    np.testing.assert_allclose(draws.sum(-1), 1.0, rtol=1e-5)
    for i in range(3):
        cdf = stats.beta(float(c[i]), float(c.sum() - c[i])).cdf
        assert _ks(draws[:, i], cdf) < EPS
