"""``tf.distributions`` (TF 2.21's ``tf.compat.v1.distributions``) checked live
against TF (``twin.py``): every deterministic method's values, gradients with
respect to the parameters, dtypes and static shapes, for float32 and float64;
batch shapes with broadcasting; the registered KL pairs; sample shapes and dtypes
(draws are JAX's, their law is checked in tests/adapters/test_distributions.py);
reparameterized sample gradients; ``validate_args`` errors; a REINFORCE step.

Before ``adapters/v1/distributions`` every test failed: ``tf.distributions`` raised
``AttributeError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

# Tolerances: float32 math summed in other orders (and XLA's erf/log) differs by a
# few ulps of float32; float64 by a few ulps of float64.
RTOL = {"float32": 2e-6, "float64": 1e-13}
ATOL = {"float32": 1e-7, "float64": 1e-15}

LOC = [[0.5, -1.0, 2.0], [0.0, 3.0, -2.5]]
SCALE = [1.5, 0.25, 3.0]  # broadcasts against LOC: batch shape (2, 3)
# z = (x - loc) / scale reaches every segment of log_ndtr (float32: -10 and 5).
NORMAL_X = [[-30.0, 0.2, 40.0], [-0.3, -1.0, 15.0]]
LOGITS = [[1.0, 2.0, 0.5, -1.0], [0.0, 0.0, -3.0, 0.0]]  # ties in the second row
PROBS = [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]]
B_LOGITS = [-2.0, 0.0, 0.7, 3.5]
B_PROBS = [0.0, 0.5, 0.3, 1.0]
LOW = [[0.0, -1.0], [2.0, 0.5]]
HIGH = [3.0, 1.5]
UNIFORM_X = [[1.0, float("nan")], [3.0, -2.0]]  # high itself, NaN, below low

# name -> (build(tf, dtype) -> (distribution, parameter tensors), method arguments)
Build = Callable[[Any, Any], tuple[Any, list[Any]]]


def _consts(tf: Any, dtype: Any, *values: Any) -> list[Any]:
    return [tf.constant(np.asarray(v, dtype.as_numpy_dtype)) for v in values]


def _normal(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    loc, scale = _consts(tf, dtype, LOC, SCALE)
    return tf.distributions.Normal(loc, scale), [loc, scale]


def _categorical_logits(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    (logits,) = _consts(tf, dtype, LOGITS)
    return tf.distributions.Categorical(logits=logits), [logits]


def _categorical_probs(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    (probs,) = _consts(tf, dtype, PROBS)
    return tf.distributions.Categorical(probs=probs), [probs]


def _bernoulli_logits(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    (logits,) = _consts(tf, dtype, B_LOGITS)
    return tf.distributions.Bernoulli(logits=logits), [logits]


def _bernoulli_probs(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    (probs,) = _consts(tf, dtype, B_PROBS)
    return tf.distributions.Bernoulli(probs=probs), [probs]


def _uniform(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    low, high = _consts(tf, dtype, LOW, HIGH)
    return tf.distributions.Uniform(low, high), [low, high]


CONC = [[0.5, 2.0, 3.5], [1.0, 0.8, 7.0]]
RATE = [1.5, 0.25, 3.0]
GAMMA_X = [[0.3, 2.0, 0.01], [1.0, 6.0, 2.5]]
LAPLACE_X = [[-3.0, 0.2, 40.0], [-0.3, -1.0, 3.0]]


def _gamma(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    conc, rate = _consts(tf, dtype, CONC, RATE)
    return tf.distributions.Gamma(conc, rate), [conc, rate]


def _exponential(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    (rate,) = _consts(tf, dtype, [[0.5, 2.0, 3.5], [1.0, 0.8, 7.0]])
    return tf.distributions.Exponential(rate), [rate]


def _laplace(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    loc, scale = _consts(tf, dtype, LOC, SCALE)
    return tf.distributions.Laplace(loc, scale), [loc, scale]


C1 = [[0.5, 2.0, 3.5], [1.0, 1.5, 7.0]]
C0 = [[2.5, 0.7, 3.0], [1.2, 2.0, 0.9]]  # TF's betainc (cdf) takes no broadcasting
BETA_X = [[0.3, 0.99, 0.01], [0.5, 0.2, 0.75]]
DF = [[0.8, 2.0, 5.0], [1.5, 3.0, 10.0]]  # mean NaN for df <= 1, variance inf for df <= 2


def _beta(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    c1, c0 = _consts(tf, dtype, C1, C0)
    return tf.distributions.Beta(c1, c0), [c1, c0]


def _student_t(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    df, loc, scale = _consts(tf, dtype, DF, LOC, SCALE)
    return tf.distributions.StudentT(df, loc, scale), [df, loc, scale]


DIRICHLET_C = [[0.5, 2.0, 3.5], [1.5, 1.2, 7.0]]
DIRICHLET_X = [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]


def _dirichlet(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    (c,) = _consts(tf, dtype, DIRICHLET_C)
    return tf.distributions.Dirichlet(c), [c]


def _dirichlet_square(tf: Any, dtype: Any) -> tuple[Any, list[Any]]:
    """TF's Dirichlet.mode broadcasts the batch's test on the event axis (a ValueError
    unless they agree): a batch of 3 events of 3."""
    (c,) = _consts(tf, dtype, DIRICHLET_C + [[2.0, 3.0, 0.9]])
    return tf.distributions.Dirichlet(c), [c]


X_METHODS = ("log_prob", "prob", "cdf", "log_cdf", "survival_function", "log_survival_function")
STATS = ("entropy", "mean", "mode", "stddev", "variance")

# name -> (build, value argument of the x-methods, methods)
CASES: dict[str, tuple[Build, Any, tuple[str, ...]]] = {
    "Normal": (_normal, NORMAL_X, X_METHODS + STATS),
    "Normal scalar x": (_normal, 0.7, X_METHODS),
    "Categorical logits": (
        _categorical_logits,
        [3, 1],
        (
            "log_prob",
            "prob",
            "cdf",
            "log_cdf",
            "survival_function",
            "log_survival_function",
            "entropy",
            "mode",
        ),
    ),
    "Categorical logits broadcast x": (
        _categorical_logits,
        [[0], [2], [3]],
        ("log_prob", "prob", "cdf"),
    ),
    "Categorical probs": (
        _categorical_probs,
        [0, 3],
        ("log_prob", "prob", "cdf", "entropy", "mode"),
    ),
    "Categorical float x": (_categorical_logits, np.float32([2.0, 1.0]), ("log_prob", "cdf")),
    "Bernoulli logits": (
        _bernoulli_logits,
        [1, 0, 1, 0],
        ("log_prob", "prob", "entropy", "mean", "mode", "stddev", "variance"),
    ),
    "Bernoulli logits broadcast x": (_bernoulli_logits, [[1], [0]], ("log_prob", "prob")),
    "Bernoulli probs": (
        _bernoulli_probs,
        [1, 1, 0, 0],
        ("log_prob", "prob", "entropy", "mean", "mode", "variance"),
    ),
    "Uniform": (_uniform, UNIFORM_X, X_METHODS + ("entropy", "mean", "stddev", "variance")),
    "Uniform scalar x": (_uniform, 0.75, ("prob", "cdf")),
    "Gamma": (
        _gamma,
        GAMMA_X,
        ("log_prob", "prob", "cdf", "log_cdf", "survival_function", "log_survival_function")
        + STATS,
    ),
    "Exponential": (_exponential, GAMMA_X, X_METHODS + STATS),
    "Laplace": (_laplace, LAPLACE_X, X_METHODS + STATS),
    "Beta": (_beta, BETA_X, X_METHODS + STATS),
    "Dirichlet": (
        _dirichlet,
        DIRICHLET_X,
        ("log_prob", "prob", "entropy", "mean", "stddev", "variance", "covariance"),
    ),
    "Dirichlet mode": (_dirichlet_square, DIRICHLET_X, ("mode",)),
    "StudentT": (_student_t, LAPLACE_X, X_METHODS + ("entropy", "mean", "mode")),
    "StudentT variance": (_student_t, 0.0, ("variance", "stddev")),
}


def _shape(t: Any) -> list[int]:
    dims = t.shape.as_list() if t.shape.ndims is not None else [-2]
    return [-1 if d is None else d for d in dims]


def _method_script(build: Build, x: Any, methods: tuple[str, ...], dtype: str):
    def script(tf: Any):
        dist, params = build(tf, tf.as_dtype(dtype))
        outs, grads, static = {}, {}, {}
        for m in methods:
            fn = getattr(dist, m)
            out = fn(x) if m in X_METHODS else fn()
            outs[m] = out
            static[m] = (_shape(out), out.dtype.name)
            if out.dtype.is_floating:
                # Weights differ per element so each element's gradient counts.
                w = tf.cast(tf.reshape(tf.range(1, 1 + tf.size(out)), tf.shape(out)), out.dtype)
                g = tf.gradients(
                    tf.reduce_sum(tf.where(tf.is_finite(out), out, tf.zeros_like(out)) * w), params
                )
                grads[m] = [gi for gi in g if gi is not None]
                static[m] += (["none" if gi is None else "grad" for gi in g],)
        shapes = {
            "batch_shape": [-1 if d is None else d for d in dist.batch_shape.as_list()],
            "event_shape": dist.event_shape.as_list(),
            "dtype": dist.dtype.name,
            "reparameterization": repr(dist.reparameterization_type),
            "name": dist.name,
        }
        tensors = {"bst": dist.batch_shape_tensor(), "est": dist.event_shape_tensor()}

        def run(sess: Any):
            got = sess.run({"outs": outs, "grads": grads, "tensors": tensors})
            return got, static, shapes

        return run

    return script


# TF's float32 lgamma/digamma (the C library's lgammaf, Eigen's digamma) are not
# correctly rounded; jtrain's are (computed in float64, rounded), so sums of many of
# them (Beta, Dirichlet, StudentT, Gamma's entropy and gradients) differ from TF's by
# 2.3e-6 to 4.9e-6 relative, above this file's float32 bound of 2e-6. Strict: a change
# of either side turns these into failures. (Exponential and the Gamma KL, which read
# lgamma(1.0), matched once jtrain's lgamma(1.0) became TF's 0.)
LGAMMA_F32 = pytest.mark.xfail(
    strict=True, reason="float32 lgamma/digamma: TF's C library vs correctly rounded, ulps"
)


def _method_params() -> list[Any]:
    out = []
    for case in CASES:
        for dtype in ("float32", "float64"):
            if case == "StudentT variance" and dtype == "float64":
                continue  # TF raises TypeError (test_student_t_float64_variance)
            gamma_f32 = dtype == "float32" and case in (
                "Gamma",
                "Beta",
                "StudentT",
                "Dirichlet",
            )
            out.append(pytest.param(case, dtype, marks=[LGAMMA_F32] if gamma_f32 else []))
    return out


@pytest.mark.parametrize(("case", "dtype"), _method_params())
def test_methods_values_gradients_shapes(case: str, dtype: str) -> None:
    build, x, methods = CASES[case]
    if dtype == "float64" and isinstance(x, np.ndarray):
        x = x.astype(np.float64)
    theirs, ours = run_both(_method_script(build, x, methods, dtype))
    assert ours[1] == theirs[1]  # static shapes and dtypes of every method's result
    assert ours[2] == theirs[2]  # batch/event shapes, dtype, reparameterization, name
    assert_twins(theirs[0], ours[0], rtol=RTOL[dtype], atol=ATOL[dtype])


def test_methods_tf_does_not_have() -> None:
    """Bernoulli has no cdf, Categorical no mean: NotImplementedError in both."""

    def script(tf: Any):
        b = tf.distributions.Bernoulli(logits=[0.5])
        c = tf.distributions.Categorical(logits=[0.5, 1.0])
        found = []
        for call in (lambda: b.cdf(1), lambda: c.mean(), lambda: c.variance()):
            try:
                call()
                found.append("none")
            except NotImplementedError as e:
                found.append(str(e))
        return lambda sess: found

    theirs, ours = run_both(script)
    assert ours == theirs


def _kl_script(dtype: str, kind: str):
    def script(tf: Any):
        d = tf.as_dtype(dtype)
        if kind == "Normal":
            a, pa = _normal(tf, d)
            lb, sb = _consts(tf, d, [1.0, -2.0, 0.0], [[0.5], [2.0]])
            b, pb = tf.distributions.Normal(lb, sb), [lb, sb]
        elif kind == "Categorical":
            a, pa = _categorical_logits(tf, d)
            (lb,) = _consts(tf, d, [[0.3, -1.0, 2.0, 0.1]])
            b, pb = tf.distributions.Categorical(logits=lb), [lb]
        elif kind == "Dirichlet":
            a, pa = _dirichlet(tf, d)
            (cb,) = _consts(tf, d, [[2.0, 0.5, 1.0]])
            b, pb = tf.distributions.Dirichlet(cb), [cb]
        elif kind == "Beta":
            a, pa = _beta(tf, d)
            c1b, c0b = _consts(tf, d, [2.0, 0.5, 1.0], [[1.0], [4.0]])
            b, pb = tf.distributions.Beta(c1b, c0b), [c1b, c0b]
        elif kind == "Gamma":
            a, pa = _gamma(tf, d)
            cb, rb = _consts(tf, d, [2.0, 0.5, 1.0], [[1.0], [4.0]])
            b, pb = tf.distributions.Gamma(cb, rb), [cb, rb]
        else:
            a, pa = _bernoulli_logits(tf, d)
            (lb,) = _consts(tf, d, [[1.0], [-0.5]])
            b, pb = tf.distributions.Bernoulli(logits=lb), [lb]
        kl = tf.distributions.kl_divergence(a, b)
        method = a.kl_divergence(b)
        xent = a.cross_entropy(b)
        w = tf.cast(tf.reshape(tf.range(1, 1 + tf.size(kl)), tf.shape(kl)), kl.dtype)
        grads = tf.gradients(tf.reduce_sum(kl * w), pa + pb)
        static = [(_shape(t), t.dtype.name) for t in (kl, method, xent)]
        return lambda sess: (sess.run([kl, method, xent, grads]), static)

    return script


@pytest.mark.parametrize(
    ("kind", "dtype"),
    [
        (kind, dtype)
        if dtype == "float64" or kind not in ("Beta", "Dirichlet")
        else pytest.param(kind, dtype, marks=[LGAMMA_F32])
        for kind in ("Normal", "Categorical", "Bernoulli", "Gamma", "Beta", "Dirichlet")
        for dtype in ("float32", "float64")
    ],
)
def test_kl_divergence_pairs(kind: str, dtype: str) -> None:
    theirs, ours = run_both(_kl_script(dtype, kind))
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=RTOL[dtype], atol=ATOL[dtype])


def test_kl_unregistered_pair_and_nan_check() -> None:
    def script(tf: Any):
        n = tf.distributions.Normal(0.0, 1.0)
        u = tf.distributions.Uniform(0.0, 1.0)
        try:
            tf.distributions.kl_divergence(n, u)
            unregistered = "none"
        except NotImplementedError as e:
            unregistered = str(e)
        scale = tf.placeholder(tf.float32, [2])
        a = tf.distributions.Normal([0.0, 1.0], scale)
        kl = tf.distributions.kl_divergence(a, a, allow_nan_stats=False)

        def run(sess: Any):
            ok = sess.run(kl, {scale: [1.0, 2.0]})
            try:
                sess.run(kl, {scale: [0.0, 2.0]})  # 0/0: NaN
                failed = "none"
            except tf.errors.InvalidArgumentError as e:
                failed = "returned NaN values" in str(e)
            return unregistered, ok, failed

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])
    assert ours[2] is True and theirs[2] is True


def test_register_kl_for_a_subclass() -> None:
    """A user's subclass reaches the parent's registered KL; a second registration of a
    pair raises TF's ValueError; a function registered for the subclass wins."""

    def script(tf: Any):
        class MyNormal(tf.distributions.Normal):
            pass

        a = MyNormal(0.0, 1.0)
        b = tf.distributions.Normal(1.0, 2.0)
        inherited = tf.distributions.kl_divergence(a, b)
        try:
            tf.distributions.RegisterKL(tf.distributions.Normal, tf.distributions.Normal)(
                lambda a, b, name=None: None
            )
            twice = "none"
        except ValueError as e:
            twice = str(e).split(" has already")[0]

        @tf.distributions.RegisterKL(MyNormal, tf.distributions.Normal)
        def _kl(a: Any, b: Any, name: Any = None) -> Any:
            return tf.constant(7.0)

        own = tf.distributions.kl_divergence(a, b)
        return lambda sess: (sess.run([inherited, own]), twice)

    theirs, ours = run_both(script)
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0])


SAMPLE_SHAPES = [(), 5, [2, 3], np.int32(4), [1]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "build",
    [
        _normal,
        _categorical_logits,
        _bernoulli_probs,
        _uniform,
        _gamma,
        _exponential,
        _laplace,
        _beta,
        _student_t,
        _dirichlet,
    ],
    ids=[
        "Normal",
        "Categorical",
        "Bernoulli",
        "Uniform",
        "Gamma",
        "Exponential",
        "Laplace",
        "Beta",
        "StudentT",
        "Dirichlet",
    ],
)
def test_sample_shapes_and_dtypes(build: Build, dtype: str) -> None:
    def script(tf: Any):
        dist, _ = build(tf, tf.as_dtype(dtype))
        samples = [dist.sample(s, seed=3) for s in SAMPLE_SHAPES]
        static = [(_shape(s), s.dtype.name) for s in samples]
        return lambda sess: (static, [v.shape for v in sess.run(samples)])

    theirs, ours = run_both(script)
    assert ours == theirs


def test_sample_dtype_argument() -> None:
    def script(tf: Any):
        c = tf.distributions.Categorical(logits=[[0.0, 1.0], [2.0, 0.0]], dtype=tf.int64)
        b = tf.distributions.Bernoulli(probs=[0.5], dtype=tf.float32)
        out = [c.sample(3), c.mode(), b.sample(2), b.mode()]
        return lambda sess: (
            [(_shape(t), t.dtype.name) for t in out],
            [v.dtype.name for v in sess.run(out)],
        )

    theirs, ours = run_both(script)
    assert ours == theirs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reparameterized_sample_gradients(dtype: str) -> None:
    """Normal/Uniform samples carry gradients to their parameters (as TF: d/d loc = 1,
    d/d scale = the standard draw; d/d low = 1 - u, d/d high = u); Categorical and
    Bernoulli samples carry none."""

    def script(tf: Any):
        d = tf.as_dtype(dtype)
        normal, (loc, scale) = _normal(tf, d)
        uniform, (low, high) = _uniform(tf, d)
        cat, (logits,) = _categorical_logits(tf, d)
        bern, (probs,) = _bernoulli_probs(tf, d)
        s = normal.sample(4, seed=1)
        u = uniform.sample(3, seed=2)
        g_loc, g_scale = tf.gradients(tf.reduce_sum(s), [loc, scale])
        z_sum = tf.reduce_sum((s - loc) / scale, axis=[0, 1])  # what d/d scale must be
        g_low, g_high = tf.gradients(tf.reduce_sum(u), [low, high])
        frac = (u - low) / (high - low)
        none = [
            tf.gradients(tf.reduce_sum(tf.cast(cat.sample(2), d)), [logits]),
            tf.gradients(tf.reduce_sum(tf.cast(bern.sample(2), d)), [probs]),
        ]

        def run(sess: Any):
            gl, gs, zs, glow, ghigh, fr = sess.run([g_loc, g_scale, z_sum, g_low, g_high, frac])
            return (
                gl,
                np.allclose(gs, zs, rtol=RTOL[dtype]),
                np.allclose(glow, np.sum(1 - fr, axis=0), rtol=RTOL[dtype] * 10),
                np.allclose(ghigh, np.sum(fr, axis=(0, 1)), rtol=RTOL[dtype] * 10),
                none,
            )

        return run

    theirs, ours = run_both(script)
    assert ours[1:4] == (True, True, True) and theirs[1:4] == (True, True, True)
    assert_twins(theirs[0], ours[0])
    assert ours[4] == theirs[4] == [[None], [None]]


# validate_args: (build(tf, value) -> tensor to run, bad value, good value)
VALIDATE = {
    "Normal scale > 0": lambda tf, v: tf.distributions.Normal(0.0, v, validate_args=True).log_prob(
        0.5
    ),
    "Uniform low < high": lambda tf, v: tf.distributions.Uniform(v, 1.0, validate_args=True).mean(),
    "Categorical probs sum to 1": lambda tf, v: tf.distributions.Categorical(
        probs=tf.stack([v, 0.5]), validate_args=True
    ).entropy(),
    "Categorical probs >= 0": lambda tf, v: tf.distributions.Categorical(
        probs=tf.stack([v, 1.0 - v]), validate_args=True
    ).entropy(),
    "Categorical log_prob integer": lambda tf, v: tf.distributions.Categorical(
        logits=[0.0, 1.0, 2.0], validate_args=True
    ).log_prob(v),
    "Bernoulli probs <= 1": lambda tf, v: tf.distributions.Bernoulli(
        probs=v, validate_args=True
    ).entropy(),
    "Gamma rate > 0": lambda tf, v: tf.distributions.Gamma(2.0, v, validate_args=True).mean(),
    "Gamma cdf x > 0": lambda tf, v: tf.distributions.Gamma(2.0, 1.0, validate_args=True).cdf(v),
    "Gamma mode needs concentration > 1": lambda tf, v: tf.distributions.Gamma(
        v, 1.0, allow_nan_stats=False
    ).mode(),
    "Beta concentration > 0": lambda tf, v: tf.distributions.Beta(
        v, 1.0, validate_args=True
    ).mean(),
    "Beta sample in (0, 1)": lambda tf, v: tf.distributions.Beta(
        2.0, 3.0, validate_args=True
    ).log_prob(v),
    "Beta mode needs concentrations > 1": lambda tf, v: tf.distributions.Beta(
        2.0, v, allow_nan_stats=False
    ).mode(),
    "StudentT df > 0": lambda tf, v: tf.distributions.StudentT(
        v, 0.0, 1.0, validate_args=True
    ).mode(),
    "StudentT mean needs df > 1": lambda tf, v: tf.distributions.StudentT(
        v, 0.0, 1.0, allow_nan_stats=False
    ).mean(),
    "Dirichlet concentration > 0": lambda tf, v: tf.distributions.Dirichlet(
        tf.stack([v, 1.0]), validate_args=True
    ).mean(),
    "Dirichlet sample sums to 1": lambda tf, v: tf.distributions.Dirichlet(
        [2.0, 3.0], validate_args=True
    ).log_prob(tf.stack([v, 0.5])),
    "Laplace scale > 0": lambda tf, v: tf.distributions.Laplace(
        0.0, v, validate_args=True
    ).entropy(),
    "Bernoulli log_prob 0 or 1": lambda tf, v: tf.distributions.Bernoulli(
        probs=0.3, validate_args=True
    ).log_prob(v),
}
VALUES = {
    "Normal scale > 0": (-1.0, 2.0),
    "Uniform low < high": (1.0, 0.5),
    "Categorical probs sum to 1": (0.7, 0.5),
    "Categorical probs >= 0": (-0.5, 0.25),
    "Categorical log_prob integer": (1.5, 2.0),
    "Bernoulli probs <= 1": (1.5, 0.4),
    "Bernoulli log_prob 0 or 1": (0.5, 1.0),
    "Gamma rate > 0": (0.0, 2.0),
    "Gamma cdf x > 0": (-1.0, 1.5),
    "Gamma mode needs concentration > 1": (0.5, 3.0),
    "Laplace scale > 0": (-2.0, 2.0),
    "Dirichlet concentration > 0": (-1.0, 2.0),
    "Dirichlet sample sums to 1": (0.7, 0.5),
    "Beta concentration > 0": (0.0, 2.0),
    "Beta sample in (0, 1)": (1.5, 0.5),
    "Beta mode needs concentrations > 1": (0.5, 3.0),
    "StudentT df > 0": (-1.0, 3.0),
    "StudentT mean needs df > 1": (0.5, 3.0),
}


@pytest.mark.parametrize("fed", [True, False], ids=["run time", "constant"])
@pytest.mark.parametrize("case", list(VALIDATE))
def test_validate_args(case: str, fed: bool) -> None:
    """A bad fed value fails the run with InvalidArgumentError (a good one runs); a bad
    constant fails as TF fails it (when the graph is built, or when run)."""
    bad, good = VALUES[case]

    def script(tf: Any):
        if fed:
            v = tf.placeholder(tf.float32, [])
            out = VALIDATE[case](tf, v)

            def run(sess: Any):
                value = sess.run(out, {v: good})
                try:
                    sess.run(out, {v: bad})
                    error = "none"
                except tf.errors.InvalidArgumentError:
                    error = "InvalidArgumentError at run time"
                return value, error

            return run
        try:
            out = VALIDATE[case](tf, tf.constant(bad))
        except Exception as e:  # noqa: BLE001 - the class is compared with TF's
            error = f"{type(e).__name__} when built"
            return lambda sess: (None, error)

        def run(sess: Any):
            try:
                sess.run(out)
                return None, "none"
            except tf.errors.InvalidArgumentError:
                return None, "InvalidArgumentError at run time"

        return run

    theirs, ours = run_both(script)
    assert theirs[1] != "none"
    assert ours[1] == theirs[1]
    if fed:
        assert_twins(theirs[0], ours[0])


def test_constructor_errors_and_parameters() -> None:
    def script(tf: Any):
        found = []
        for make in (
            lambda: tf.distributions.Normal(np.float64(0.0), 1.0),
            lambda: tf.distributions.Normal(1, 1),
            lambda: tf.distributions.Categorical(),
            lambda: tf.distributions.Categorical(logits=[1, 2]),
            lambda: tf.distributions.Bernoulli(logits=[0.0], probs=[0.5]),
            lambda: tf.distributions.Uniform(0.0, np.float64(1.0)),
        ):
            try:
                make()
                found.append("none")
            except (TypeError, ValueError) as e:
                found.append(type(e).__name__)
        n = tf.distributions.Normal(0.0, 1.0, name="my_normal")
        c = n.copy(scale=2.0)
        params = sorted(n.parameters.items())
        return lambda sess: (found, params, c.name, sess.run(c.stddev()))

    theirs, ours = run_both(script)
    assert ours == theirs


def test_reinforce_step() -> None:
    """Policy gradient: loss = -mean(Categorical(logits).log_prob(actions) * advantages),
    three GradientDescent steps on fed actions, plus the policy's entropy."""
    obs = np.array(
        [[0.5, -1.0, 2.0], [1.0, 0.0, -0.5], [0.2, 0.3, 0.1], [-1.0, 1.0, 0.0]], np.float32
    )
    steps = [
        ([0, 1, 2, 1], [1.0, -0.5, 2.0, 0.3]),
        ([2, 2, 0, 1], [0.1, 0.2, -1.0, 1.5]),
        ([1, 0, 0, 2], [-0.7, 1.0, 0.4, 0.9]),
    ]

    def script(tf: Any):
        x = tf.placeholder(tf.float32, [None, 3])
        actions = tf.placeholder(tf.int32, [None])
        adv = tf.placeholder(tf.float32, [None])
        w = tf.get_variable(
            "w", initializer=tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3) / 10.0)
        )
        b = tf.get_variable("b", initializer=tf.constant([0.1, -0.2, 0.0]))
        policy = tf.distributions.Categorical(logits=tf.matmul(x, w) + b)
        loss = -tf.reduce_mean(policy.log_prob(actions) * adv) - 0.01 * tf.reduce_mean(
            policy.entropy()
        )
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)

        def run(sess: Any):
            losses = []
            for a, g in steps:
                losses.append(sess.run([loss, train], {x: obs, actions: a, adv: g})[0])
            return losses, sess.run([w, b])

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-5)


def test_vae_normal_step() -> None:
    """A VAE's latent: Normal(mu, softplus(s)), a reparameterized sample's
    gradients (through loc) and the KL to N(0, 1), one Adam step."""

    def script(tf: Any):
        mu = tf.get_variable("mu", initializer=tf.constant([[0.3, -0.2], [1.0, 0.5]]))
        s = tf.get_variable("s", initializer=tf.constant([[0.1, -0.4], [0.0, 0.2]]))
        q = tf.distributions.Normal(mu, tf.nn.softplus(s))
        prior = tf.distributions.Normal(tf.zeros([2]), tf.ones([2]))
        kl = tf.reduce_sum(tf.distributions.kl_divergence(q, prior), axis=-1)
        z_mean = q.mean()
        loss = (
            tf.reduce_mean(kl)
            + tf.reduce_sum(tf.square(z_mean - 1.0))
            - tf.reduce_sum(q.log_prob(z_mean))
        )
        train = tf.train.AdamOptimizer(0.1).minimize(loss)

        def run(sess: Any):
            first = sess.run([loss, train])[0]
            return first, sess.run([loss, mu, s])

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-5)


def test_namespace() -> None:
    import tensorflow as real_tf

    from adapters import v1 as jtf

    tf_names = {n for n in dir(real_tf.compat.v1.distributions) if not n.startswith("_")}
    ours = set(jtf.distributions.__all__)
    assert ours <= tf_names
    for name in sorted(tf_names - ours):  # the rest raise a helpful AttributeError
        with pytest.raises(AttributeError, match=f"tf.distributions.{name} is not in adapters.v1"):
            getattr(jtf.distributions, name)
    assert repr(jtf.distributions.FULLY_REPARAMETERIZED) == repr(
        real_tf.compat.v1.distributions.FULLY_REPARAMETERIZED
    )


def test_student_t_float64_variance() -> None:
    """TF's StudentT.variance compares df with a float32 fill: float64 raises TypeError."""

    def script(tf: Any):
        d = tf.distributions.StudentT(*_consts(tf, tf.float64, 3.0, 0.0, 1.0))
        try:
            d.variance()
            error = "none"
        except TypeError:
            error = "TypeError"
        return lambda sess: error

    theirs, ours = run_both(script)
    assert ours == theirs == "TypeError"
