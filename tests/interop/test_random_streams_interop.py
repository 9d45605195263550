"""TF's exact random streams: seeded TF1 scripts give TF 2.21's bits under jtrain.

Each snippet runs under TF 2.21 (classic TF1, ``twin.py``) and under ``adapters.v1``
with only the module changed; the results are compared bit for bit (normal draws:
the fraction of bit-identical elements and the ulp distance, see
``jtrain/random/philox.py``). Before jtrain drew from TF's Philox stream every one
of these differed (its values were ``jax.random``'s).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from tests.interop.twin import run_both, run_once, tf1

pytestmark = pytest.mark.interop

from adapters import v1 as jtf  # noqa: E402

FLOATS = ("float32", "float16", "bfloat16", "float64")


def _bits(a) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind not in "f" and a.dtype.name != "bfloat16":
        return a
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def _assert_bit_identical(theirs, ours) -> None:
    assert len(theirs) == len(ours)
    for t, o in zip(theirs, ours, strict=True):
        t, o = np.asarray(t), np.asarray(o)
        assert o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_array_equal(_bits(o), _bits(t))


def _runs(t, sess, n=3):
    return [sess.run(t) for _ in range(n)]


@pytest.mark.parametrize("dtype", FLOATS)
def test_random_uniform_three_runs_bit_identical(dtype):
    def script(tf):
        tf.set_random_seed(1)
        dt = getattr(tf, dtype)
        a = tf.random_uniform([3, 37], dtype=dt)  # raw values (minval 0, maxval 1)
        b = tf.random_uniform([5], minval=-2.5, maxval=4.0, dtype=dt, seed=7)
        c = tf.random_uniform([2, 3], maxval=3.0, dtype=dt)  # scaled
        assert a.shape.as_list() == [3, 37] and a.dtype == dt
        return lambda sess: _runs([a, b, c], sess)

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        _assert_bit_identical(t, o)


@pytest.mark.parametrize(
    "dtype,lo,hi", [("int32", -5, 1000), ("int64", -(2**40), 2**62), ("int32", 0, 2**31 - 1)]
)
def test_random_uniform_int_three_runs_bit_identical(dtype, lo, hi):
    def script(tf):
        tf.set_random_seed(4)
        t = tf.random_uniform([7, 3], lo, hi, dtype=getattr(tf, dtype))
        return lambda sess: _runs([t], sess)

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        _assert_bit_identical(t, o)


@pytest.mark.parametrize("graph_seed,op_seed", [(None, 9), (2, None), (0, 0)])
def test_seed_rules_pick_tfs_stream(graph_seed, op_seed):
    def script(tf):
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        ts = [tf.random_uniform([6], seed=op_seed) for _ in range(3)]
        return lambda sess: _runs(ts, sess, 2)

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        _assert_bit_identical(t, o)


def test_new_session_repeats_the_sequence():
    def script(tf):
        tf.set_random_seed(5)
        t = tf.random_uniform([4, 4])

        def run(sess):
            first = _runs([t], sess)
            with tf.Session() as again:
                return first, _runs([t], again)

        return run

    (t_first, t_again), (o_first, o_again) = run_both(script)
    _assert_bit_identical(t_first, o_first)
    _assert_bit_identical(t_again, o_again)
    _assert_bit_identical(o_first, o_again)


def test_initial_weights_from_random_ops_bit_identical():
    def script(tf):
        tf.set_random_seed(3)
        w = tf.get_variable("w", initializer=tf.random_uniform([4, 5], -0.5, 0.5))
        v = tf.Variable(tf.random_uniform([6], dtype=tf.float64, seed=2), name="v")
        return lambda sess: sess.run([w, v])

    theirs, ours = run_both(script)
    _assert_bit_identical(theirs, ours)


def _mlp(tf, x, form):
    """A two-layer MLP with dropout (TF1 ``keep_prob`` or ``rate``) trained 3 steps."""
    tf.set_random_seed(11)
    w1 = tf.get_variable("w1", initializer=tf.random_uniform([4, 16], -0.5, 0.5))
    w2 = tf.get_variable("w2", initializer=tf.random_uniform([16, 1], -0.5, 0.5))
    h = tf.nn.relu(tf.matmul(x, w1))
    dropped = tf.nn.dropout(h, keep_prob=0.6) if form == "keep_prob" else tf.nn.dropout(h, rate=0.4)
    loss = tf.reduce_mean(tf.square(tf.matmul(dropped, w2) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return dropped, loss, train


@pytest.mark.parametrize("form", ["keep_prob", "rate"])
def test_dropout_masks_over_three_training_steps(form):
    x_value = np.linspace(-1, 1, 8 * 4, dtype=np.float32).reshape(8, 4)

    def script(tf):
        x = tf.constant(x_value)
        dropped, loss, train = _mlp(tf, x, form)

        def run(sess):
            out = []
            for _ in range(3):
                d, l_, _ = sess.run([dropped, loss, train])
                out.append((d != 0, d, l_))
            return out

        return run

    theirs, ours = run_both(script)
    for (tm, td, tl), (om, od, ol) in zip(theirs, ours, strict=True):
        np.testing.assert_array_equal(om, tm)
        # (values after training: matmul sums in another order, a few ulps apart)
        np.testing.assert_allclose(od, td, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(ol, tl, rtol=1e-5)


def test_dropout_of_a_fed_batch_follows_tfs_counter_and_gradient():
    # Batches of 5, 3, 5 rows: each run reserves 256 calls per element of its own size,
    # and the gradient sees the run's mask.
    batches = [np.full((n, 4), 1.0 + n, np.float32) for n in (5, 3, 5)]

    def script(tf):
        tf.set_random_seed(6)
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.nn.dropout(x, rate=0.5)
        (g,) = tf.gradients(tf.reduce_sum(y * y), [x])
        return lambda sess: [sess.run([y, g], {x: b}) for b in batches]

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        _assert_bit_identical(t, o)


def _normal_closeness(theirs, ours):
    same, ulps = [], []
    for t, o in zip(theirs, ours, strict=True):
        t, o = np.asarray(t), np.asarray(o)
        assert o.dtype == t.dtype and o.shape == t.shape
        same.append((_bits(o) == _bits(t)).ravel())
        ulps.append(np.abs(_bits(o).astype(np.int64) - _bits(t).astype(np.int64)).ravel())
    return np.concatenate(same).mean(), np.concatenate(ulps).max()


# (fraction of elements bit-identical, most ulps apart). Every dtype TF's bits since
# glibc's logf/sincosf are reproduced; before, float32 98-99% (the others 1-2 ulps away).
NORMAL_BOUNDS = {
    "float32": (1.0, 0),
    "float16": (1.0, 0),
    "bfloat16": (1.0, 0),
    "float64": (1.0, 0),
}


@pytest.mark.parametrize("op", ["random_normal", "truncated_normal"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_draws_match_tf(op, dtype):
    def script(tf):
        tf.set_random_seed(8)
        # (stddev 2 scales exactly; a mean would turn an ulp near -mean/stddev into many)
        t = getattr(tf, op)([9, 41], stddev=2.0, dtype=getattr(tf, dtype))
        u = getattr(tf, op)([5, 3], mean=0.5, stddev=2.0, dtype=getattr(tf, dtype))
        return lambda sess: (_runs(t, sess), _runs(u, sess))

    (theirs, t_shifted), (ours, o_shifted) = run_both(script)
    fraction, ulps = _normal_closeness(theirs, ours)
    low, most = NORMAL_BOUNDS[dtype]
    assert fraction >= low, fraction
    assert ulps <= most, ulps
    for t, o in zip(t_shifted, o_shifted, strict=True):  # TF's rnd * stddev + mean
        assert o.dtype == t.dtype
        eps = float(jnp.finfo(o.dtype).eps)
        np.testing.assert_allclose(o.astype(np.float64), t.astype(np.float64), atol=8 * eps)


_NORMAL_OPS = {
    "tf1 names": lambda tf: (tf.random_normal, tf.truncated_normal),
    "tf.random": lambda tf: (tf.random.normal, tf.random.truncated_normal),
}


@pytest.mark.parametrize(
    ("graph_seed", "op_seed", "names"), [(8, None, "tf1 names"), (87654321, 2**31 - 1, "tf.random")]
)
def test_large_normal_draws_bit_for_bit(graph_seed, op_seed, names):
    """TF's float32 Box-Muller values (glibc's ``logf``/``sincosf``) on every element of
    draws of 100k+ elements, of float16 ones rounded from them, and float64 ones
    (``log``/``sincos``: XLA's float64 functions round as glibc's here). Before, with
    ``logf``/``sin``/``cos`` computed in float64 and rounded: about 1.5% of float32
    elements 1-2 ulps off TF's, 2 in a million float16 ones."""

    def script(tf):
        tf.set_random_seed(graph_seed)
        normal, truncated = _NORMAL_OPS[names](tf)
        outs = [
            normal([250, 401], seed=op_seed),
            truncated([4, 25, 1001], stddev=0.1, seed=op_seed),
            normal([20_000], stddev=2.0, dtype=tf.float16, seed=op_seed),
            normal([50_000], dtype=tf.float64, seed=op_seed),
        ]
        return lambda sess: sess.run(outs)

    _assert_bit_identical(*run_both(script))


def test_unseeded_ops_differ_between_sessions():
    def script(tf):
        t = tf.random_uniform([8])

        def run(sess):
            with tf.Session() as again:
                return sess.run(t), again.run(t)

        return run

    first, again = run_once(jtf, script)
    assert not np.array_equal(first, again)
    first, again = run_once(tf1, script)
    assert not np.array_equal(first, again)


@pytest.mark.parametrize("seed_dtype", ["int32", "int64"])
def test_stateless_ops_bit_identical(seed_dtype):
    def script(tf):
        seed = tf.constant([7, -123456789], getattr(tf, seed_dtype))
        outs = [tf.random.stateless_uniform([5, 9], seed, dtype=getattr(tf, dt)) for dt in FLOATS]
        outs.append(tf.random.stateless_uniform([4, 3], seed, minval=-2.0, maxval=3.0))
        outs.append(tf.random.stateless_uniform([11], seed, -7, 900, dtype=tf.int32))
        outs.append(tf.random.stateless_uniform([5], seed, -(2**40), 2**50, dtype=tf.int64))
        outs.append(tf.random.stateless_normal([6, 7], seed, dtype=tf.float64))
        outs.append(tf.random.stateless_truncated_normal([6, 7], seed, dtype=tf.float16))
        return lambda sess: sess.run(outs)

    theirs, ours = run_both(script)
    _assert_bit_identical(theirs, ours)


def test_stateless_normal_float32_matches_tf():
    def script(tf):
        seed = tf.constant([3, 4])
        a = tf.random.stateless_normal([40, 30], seed, stddev=2.0)
        b = tf.random.stateless_truncated_normal([40, 30], seed, stddev=2.0)
        return lambda sess: sess.run([a, b])

    theirs, ours = run_both(script)
    fraction, ulps = _normal_closeness(theirs, ours)
    assert fraction >= NORMAL_BOUNDS["float32"][0], fraction
    assert ulps <= NORMAL_BOUNDS["float32"][1], ulps


def test_imported_tf_graph_stateless_kernels_bit_identical(tmp_path):
    # A TF-written .meta whose stateless random nodes (V1 and V2 kernels) run through
    # graph_kernels: TF's key/counter scramble and Philox draws.
    path = str(tmp_path / "stateless.meta")
    names = ["u", "n", "t", "v1u", "v1n", "h"]
    with tf1.Graph().as_default():
        seed = tf1.constant([5, 77], tf1.int64)
        tf1.identity(tf1.random.stateless_uniform([3, 5], seed), name="u")
        tf1.identity(tf1.random.stateless_normal([8], seed, dtype=tf1.float64), name="n")
        tf1.identity(tf1.random.stateless_truncated_normal([7], seed, dtype=tf1.float16), name="t")
        tf1.identity(tf1.raw_ops.StatelessRandomUniform(shape=[6], seed=seed), name="v1u")
        tf1.identity(
            tf1.raw_ops.StatelessRandomNormal(shape=[4], seed=seed, dtype=tf1.float64), name="v1n"
        )
        tf1.identity(tf1.random.stateless_uniform([9], seed, dtype=tf1.bfloat16), name="h")
        tf1.train.export_meta_graph(path)
        with tf1.Session() as sess:
            theirs = sess.run([n + ":0" for n in names])
    with jtf.Graph().as_default():
        jtf.train.import_meta_graph(path)
        with jtf.Session() as sess:
            ours = sess.run([n + ":0" for n in names])
    _assert_bit_identical(theirs, ours)
