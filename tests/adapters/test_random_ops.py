"""Stateful random ops: fresh values every run, reproducible sequences, TF's seed rules.

Values differ from TF's (``jax.random`` draws them); what is TF's and is checked
here: the seed rules (``get_seed``), the sequence semantics (per-op generators,
fresh each ``Session.run``, the same for the same graph and seeds in a new
session), the distributions' parameters, dtypes, shapes; TF's signatures, error
classes and messages, ``get_seed`` values and ``tf.nn.dropout``'s kept values and
gradients are compared with TF's reference data (``goldens/gen_random.py``).
"""

from __future__ import annotations

import inspect
import json
import os

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.ops import random_ops
from tests.adapters.random_cases import DROPOUT_CASES, ERROR_CASES, GET_SEED_CASES


def _runs(fetch, n=3, graph=None, feed=None):
    with tf.Session(graph=graph) as sess:
        return [sess.run(fetch, feed) for _ in range(n)]


def _build(seed=None, op_seed=None):
    g = tf.Graph()
    with g.as_default():
        if seed is not None:
            tf.set_random_seed(seed)
        ops = [
            tf.random_uniform([4], seed=op_seed),
            tf.random_normal([2, 3], seed=op_seed),
            tf.truncated_normal([5], seed=op_seed),
            tf.random_uniform([6], maxval=100, dtype=tf.int32, seed=op_seed),
        ]
    return g, ops


# -- seeds --------------------------------------------------------------------------------


def test_get_seed_rules(graph):
    # Neither seed: nondeterministic.
    assert tf.get_seed(None) == (None, None)
    # Op seed only: TF's default graph seed.
    assert tf.get_seed(7) == (random_ops.DEFAULT_GRAPH_SEED, 7)
    tf.set_random_seed(3)
    # Graph seed: op seeds without one count up per graph; a given one is kept.
    assert [tf.get_seed(None) for _ in range(3)] == [(3, 0), (3, 1), (3, 2)]
    assert tf.get_seed(11) == (3, 11)
    assert tf.random.get_seed(2**31 + 4) == (3, 5)  # truncated to 31 bits
    tf.random.set_random_seed(0)
    assert tf.get_seed(0) == (0, 2**31 - 1)  # (0, 0) means "no seed" to TF's kernels


def test_derived_op_seeds_restart_in_a_new_graph():
    seeds = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(5)
            seeds.append([tf.get_seed(None) for _ in range(2)])
    assert seeds[0] == seeds[1] == [(5, 0), (5, 1)]


# -- the sequence semantics -----------------------------------------------------------------


@pytest.mark.parametrize("seed, op_seed", [(1, None), (None, 9), (4, 9)])
def test_fresh_every_run_and_reproducible_across_graphs_and_sessions(seed, op_seed):
    g1, ops1 = _build(seed, op_seed)
    g2, ops2 = _build(seed, op_seed)
    first, again = _runs(ops1, graph=g1), _runs(ops2, graph=g2)
    for i in range(len(ops1)):
        assert not np.array_equal(first[0][i], first[1][i])  # fresh on every run
        assert not np.array_equal(first[1][i], first[2][i])
        for r in range(3):  # the same sequence in another graph and session
            np.testing.assert_array_equal(first[r][i], again[r][i])
    # A new session on the same graph starts the sequence again.
    third = _runs(ops1, graph=g1)
    for r in range(3):
        for i in range(len(ops1)):
            np.testing.assert_array_equal(first[r][i], third[r][i])


def test_no_seed_differs_between_sessions():
    g, ops = _build()
    a, b = _runs(ops[0], 1, graph=g), _runs(ops[0], 1, graph=g)
    assert not np.array_equal(a[0], b[0])


def test_graph_seed_changes_the_sequence():
    (g1, ops1), (g2, ops2) = _build(1), _build(2)
    assert not np.array_equal(_runs(ops1[0], 1, g1)[0], _runs(ops2[0], 1, g2)[0])


def test_ops_have_independent_sequences(graph):
    tf.set_random_seed(1)
    a = tf.random_uniform([3], seed=5)
    b = tf.random_uniform([3], seed=6)
    same = tf.random_uniform([3], seed=5)
    with tf.Session() as sess:
        alone = [sess.run(a) for _ in range(3)]
    with tf.Session() as sess:
        mixed = []
        for _ in range(3):
            mixed.append(sess.run(a))
            sess.run(b)  # another op's runs do not move a's sequence
        both = sess.run([a, b])
    for x, y in zip(alone, mixed, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(both[0], both[1])
    # TF: ops with the same seeds give the same sequence.
    with tf.Session() as sess:
        np.testing.assert_array_equal(*sess.run([a, same]))


def test_op_runs_once_per_run_whatever_consumes_it(graph):
    tf.set_random_seed(1)
    r = tf.random_uniform([3])
    twice = tf.stack([r, r * 1.0])
    with tf.Session() as sess:
        out = sess.run([r, twice])
    np.testing.assert_array_equal(out[0], out[1][0])
    np.testing.assert_array_equal(out[0], out[1][1])


def test_one_program_across_runs_state_donated_not_saved(graph):
    tf.set_random_seed(1)
    r = tf.random_normal([8])
    v = tf.Variable(0.0)
    step = v.assign_add(tf.reduce_sum(r))
    with tf.Session() as sess:
        sess.run(v.initializer)
        values = [sess.run([step, r])[1] for _ in range(5)]
        plans = [p for p in sess._plans.values() if step in p.elements]
        assert len(plans) == 1 and plans[0].fn._cache_size() == 1
        states = [s for s in plans[0].donated if isinstance(s, random_ops.GeneratorState)]
        assert len(states) == 1  # the generator's key is a donated device buffer
    assert len({tuple(x) for x in values}) == 5
    assert tf.global_variables() == [v]  # hidden state is no variable


# -- distributions, dtypes, shapes ------------------------------------------------------------


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64])
def test_uniform_float_range_and_moments(graph, dtype):
    tf.set_random_seed(1)
    r = tf.random_uniform([20000], minval=-3.0, maxval=5.0, dtype=dtype)
    assert r.dtype == dtype and r.shape.as_list() == [20000]
    with tf.Session() as sess:
        x = sess.run(r)
    assert x.dtype == dtype.as_numpy_dtype
    x = x.astype(np.float64)
    assert x.min() >= -3.0 and x.max() < 5.0
    # TF's bfloat16 draws have 7 random bits: u in {0, 1/128, ..., 127/128}, mean 127/256.
    mean = -3.0 + 8 * 127 / 256 if dtype == tf.bfloat16 else 1.0
    assert abs(x.mean() - mean) < 0.06  # sd of the mean: 8/sqrt(12)/sqrt(2e4) = 0.016
    assert abs(x.std() - 8 / np.sqrt(12)) < 0.05


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_uniform_int_covers_the_range(graph, dtype):
    tf.set_random_seed(1)
    r = tf.random_uniform([5000], minval=-2, maxval=3, dtype=dtype)
    with tf.Session() as sess:
        x = sess.run(r)
    assert x.dtype == dtype.as_numpy_dtype
    assert set(np.unique(x)) == {-2, -1, 0, 1, 2}
    counts = np.bincount(x + 2)
    assert counts.min() > 850 and counts.max() < 1150  # 1000 expected each


def test_uniform_int64_range_beyond_int32(graph):
    r = tf.random_uniform([1000], minval=2**40, maxval=2**40 + 10, dtype=tf.int64, seed=1)
    with tf.Session() as sess:
        x = sess.run(r)
    assert x.min() >= 2**40 and x.max() < 2**40 + 10


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_normal_moments(graph, dtype):
    r = tf.random_normal([20000], mean=2.0, stddev=3.0, dtype=dtype, seed=3)
    with tf.Session() as sess:
        x = sess.run(r)
    assert x.dtype == dtype.as_numpy_dtype
    x = x.astype(np.float64)
    assert abs(x.mean() - 2.0) < 0.08  # sd of the mean: 3/sqrt(2e4) = 0.021
    assert abs(x.std() - 3.0) < 0.08
    assert x.min() < 2.0 - 2 * 3.0  # not truncated


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_truncated_normal_cut_at_two_stddev(graph, dtype):
    r = tf.truncated_normal([20000], mean=-1.0, stddev=0.5, dtype=dtype, seed=3)
    with tf.Session() as sess:
        x = sess.run(r).astype(np.float64)
    assert x.min() >= -2.0 and x.max() <= 0.0
    assert abs(x.mean() + 1.0) < 0.02
    # The standard deviation of a normal truncated at 2 sigma: 0.8796 sigma.
    assert abs(x.std() - 0.8796 * 0.5) < 0.01
    assert (np.abs(x + 1.0) > 1.5 * 0.5).mean() > 0.05  # the tails are kept up to 2 sigma


@pytest.mark.parametrize(
    "shape",
    [[2, 3], (2, 3), np.array([2, 3]), tf.TensorShape([2, 3])],
    ids=["list", "tuple", "ndarray", "TensorShape"],
)
def test_static_shapes(graph, shape):
    r = tf.random_normal(shape)
    assert r.shape.as_list() == [2, 3]
    with tf.Session() as sess:
        assert sess.run(r).shape == (2, 3)


def test_shape_from_constant_tensor(graph):
    r = tf.random_uniform(tf.constant([3, 2], tf.int64), dtype=tf.float64)
    assert r.shape.as_list() == [3, 2] and r.dtype == tf.float64
    with tf.Session() as sess:
        assert sess.run(r).shape == (3, 2)


def test_shape_from_the_shape_of_a_fed_tensor(graph):
    x = tf.placeholder(tf.float32, [None, 3])
    r = tf.random_normal(tf.shape(x))
    rows = tf.random_uniform(tf.stack([tf.shape(x)[0], 2]))
    assert r.shape.as_list() == [None, 3] and rows.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        assert sess.run(r, {x: np.zeros((4, 3))}).shape == (4, 3)
        assert sess.run(r, {x: np.zeros((1, 3))}).shape == (1, 3)
        assert sess.run(rows, {x: np.zeros((5, 3))}).shape == (5, 2)


def test_shape_from_values_of_the_step_is_refused(graph):
    n = tf.cast(tf.Variable([2.0, 2.0]), tf.int32)  # a variable's value: not a shape
    r = tf.random_uniform(n)
    assert r.shape.as_list() == [None, None]
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="compiled"):
        sess.run(tf.global_variables_initializer())
        sess.run(r)


def test_shape_from_a_fed_placeholder_compiles_per_value(graph):
    n = tf.placeholder(tf.int32, [2])
    r = tf.random_uniform(n)
    assert r.shape.as_list() == [None, None]
    with tf.Session() as sess:
        assert sess.run(r, {n: [2, 3]}).shape == (2, 3)
        assert sess.run(r, {n: [1, 4]}).shape == (1, 4)


def test_names_are_tfs(graph):
    assert tf.random_uniform([1]).name == "random_uniform:0"
    assert tf.random_uniform([1]).name == "random_uniform_1:0"
    assert tf.random_normal([1], name="noise").name == "noise:0"
    assert tf.truncated_normal([1]).name == "truncated_normal:0"


# -- gradients ----------------------------------------------------------------------------


def test_gradients_flow_through_the_arithmetic(graph):
    # TF builds random_normal as rnd * stddev + mean: d/dmean = 1, d/dstddev = rnd.
    mean, stddev = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
    r = tf.random_normal([50], mean=mean, stddev=stddev, seed=1)
    g_mean, g_std = tf.gradients(r, [mean, stddev])
    low, high = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
    u = tf.random_uniform([50], minval=low, maxval=high, seed=2)
    g_low, g_high = tf.gradients(u, [low, high])
    with tf.Session() as sess:
        feed = {mean: 1.0, stddev: 2.0, low: -1.0, high: 3.0}
        out = sess.run([r, g_mean, g_std, u, g_low, g_high], feed)
    x, gm, gs, y, gl, gh = out
    assert gm == 50.0
    np.testing.assert_allclose(gs, ((x - 1.0) / 2.0).sum(), rtol=1e-5)
    np.testing.assert_allclose(gh, ((y + 1.0) / 4.0).sum(), rtol=1e-5)
    np.testing.assert_allclose(gl, 50.0 - gh, rtol=1e-5)


# -- errors ----------------------------------------------------------------------------


def test_integer_uniform_needs_maxval(graph):
    with pytest.raises(ValueError, match=r"^Must specify maxval for integer dtype tf.int32$"):
        tf.random_uniform([2], dtype=tf.int32)


def test_uniform_refuses_other_dtypes(graph):
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value"):
        tf.random_uniform([2], maxval=3, dtype=tf.int8)


# -- shuffle, crop, categorical, gamma, poisson ---------------------------------------------------


def test_random_shuffle_permutes_rows_freshly(graph):
    tf.set_random_seed(1)
    value = np.arange(40, dtype=np.int32).reshape(20, 2)
    s = tf.random_shuffle(value)
    assert s.shape.as_list() == [20, 2] and s.dtype == tf.int32
    runs = _runs(s, 3)
    for r in runs:
        assert sorted(r[:, 0].tolist()) == list(range(0, 40, 2))
        np.testing.assert_array_equal(r[:, 1], r[:, 0] + 1)  # rows move whole
    assert not np.array_equal(runs[0], runs[1])
    assert _runs(tf.random_shuffle(5.0), 1)[0] == 5.0  # a scalar is its own shuffle


def test_random_crop_offsets_cover_every_position(graph):
    tf.set_random_seed(1)
    value = np.arange(5 * 4, dtype=np.float32).reshape(5, 4)
    crop = tf.random_crop(value, [2, 4])
    assert crop.shape.as_list() == [2, 4]
    with tf.Session() as sess:
        starts = {int(sess.run(crop)[0, 0]) // 4 for _ in range(60)}
    assert starts == {0, 1, 2, 3}  # rows 0..3 start a 2-row crop of 5 rows


def test_random_crop_of_a_fed_batch_and_its_gradient(graph):
    x = tf.placeholder(tf.float32, [None, 6, 3])
    crop = tf.random_crop(x, [2, 4, 3], seed=3)
    (g,) = tf.gradients(tf.reduce_sum(crop), x)
    xv = np.random.default_rng(0).random((3, 6, 3)).astype(np.float32)
    with tf.Session() as sess:
        c, gv = sess.run([crop, g], {x: xv})
    assert c.shape == (2, 4, 3) and gv.sum() == 2 * 4 * 3
    np.testing.assert_array_equal(xv[gv == 1].reshape(c.shape), c)  # the cropped elements


def test_random_crop_errors(graph):
    with pytest.raises(ValueError, match="must be equal"):
        tf.random_crop(tf.ones([2, 3]), [2])
    crop = tf.random_crop(tf.ones([2, 3]), [3, 3])
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=r"value.shape"):
        sess.run(crop)


@pytest.mark.parametrize("fn", ["multinomial", "categorical"])
def test_categorical_frequencies(graph, fn):
    tf.set_random_seed(1)
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    logits = tf.constant(np.log(probs + 1e-30), tf.float32)
    draw = (
        tf.multinomial(logits, 20000)
        if fn == "multinomial"
        else tf.random.categorical(logits, 20000)
    )
    assert draw.dtype == tf.int64 and draw.shape.as_list() == [2, 20000]
    with tf.Session() as sess:
        d = sess.run(draw)
    for row, p in zip(d, probs, strict=True):
        np.testing.assert_allclose(np.bincount(row, minlength=3) / 20000, p, atol=0.015)
    small = tf.random.categorical(logits, 3, dtype=tf.int32)
    assert small.dtype == tf.int32


def test_gamma_and_poisson_moments(graph):
    tf.set_random_seed(1)
    gamma = tf.random_gamma([20000], alpha=[1.0, 5.0], beta=2.0)
    poisson = tf.random_poisson([3.0, 10.0], [20000], dtype=tf.int32)
    assert gamma.shape.as_list() == [20000, 2] and poisson.shape.as_list() == [20000, 2]
    with tf.Session() as sess:
        g, p = sess.run([gamma, poisson])
    np.testing.assert_allclose(g.mean(0), [0.5, 2.5], rtol=0.03)  # alpha / beta
    np.testing.assert_allclose(g.var(0), [0.25, 1.25], rtol=0.06)  # alpha / beta**2
    assert p.dtype == np.int32
    np.testing.assert_allclose(p.mean(0), [3.0, 10.0], rtol=0.02)
    np.testing.assert_allclose(p.var(0), [3.0, 10.0], rtol=0.06)


def test_gamma_gradient_to_alpha(graph):
    # d E[g] / d alpha = 1 / beta: the reparameterized gradient's mean.
    alpha = tf.placeholder(tf.float32, [])
    g = tf.random_gamma([20000], alpha, beta=2.0, seed=1)
    (da,) = tf.gradients(tf.reduce_mean(g), alpha)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(da, {alpha: 3.0}), 0.5, rtol=0.05)


# -- stateless ops --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda seed: tf.random.stateless_uniform([4], seed=seed),
        lambda seed: tf.random.stateless_uniform([4], seed=seed, maxval=9, dtype=tf.int64),
        lambda seed: tf.random.stateless_normal([4], seed=seed, mean=3.0),
        lambda seed: tf.random.stateless_truncated_normal([4], seed=seed),
        lambda seed: tf.random.stateless_categorical(tf.zeros([2, 5]), 4, seed=seed),
    ],
    ids=["uniform", "uniform_int", "normal", "truncated_normal", "categorical"],
)
def test_stateless_ops_are_functions_of_the_seed(graph, build):
    seed = tf.placeholder(tf.int32, [2])
    a, b = build(seed), build(tf.constant([1, 2], tf.int64))
    with tf.Session() as sess:
        x = [sess.run(a, {seed: [1, 2]}) for _ in range(2)]
        y = sess.run(a, {seed: [1, 3]})
        z = sess.run(b)
    np.testing.assert_array_equal(x[0], x[1])  # the same seed: the same values
    np.testing.assert_array_equal(x[0], z)  # int32 or int64 seeds alike
    assert not np.array_equal(x[0], y)


def test_stateless_seed_errors(graph):
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(TypeError, match="parameter 'seed' has DataType float32"):
        tf.random.stateless_normal([2], seed=[1.0, 2.0])


# -- against TF's reference data (goldens/gen_random.py) --------------------------------------

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), "..", "goldens", "random")
with open(os.path.join(GOLDEN_DIR, "random.json")) as _f:
    GOLDEN = json.load(_f)
DROPOUT = dict(np.load(os.path.join(GOLDEN_DIR, "dropout.npz"), allow_pickle=False))


def _lookup(name):
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _signature(fn):
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.default is inspect.Parameter.empty:
            params.append([p.name])
        else:
            default = p.default.name if isinstance(p.default, tf.DType) else p.default
            params.append([p.name, default])
    return params


@pytest.mark.parametrize("name", sorted(GOLDEN["signatures"]))
def test_signature_is_tfs(name):
    assert _signature(_lookup(name)) == GOLDEN["signatures"][name]


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_error_is_tfs(case):
    cls, message = GOLDEN["errors"][case]
    with tf.Graph().as_default(), pytest.raises(Exception) as info:
        ERROR_CASES[case](tf)
    assert type(info.value).__name__ == cls
    assert str(info.value) == message


@pytest.mark.parametrize("case", sorted(GET_SEED_CASES))
def test_get_seed_is_tfs(case):
    graph_seed, op_seeds = GET_SEED_CASES[case]
    with tf.Graph().as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        assert [list(tf.get_seed(s)) for s in op_seeds] == GOLDEN["get_seed"][case]


def _dropout_case(name):
    dtype, kwargs = DROPOUT_CASES[name]
    x, w = DROPOUT[f"{name}/x"], DROPOUT[f"{name}/w"]
    xp = tf.placeholder(dtype, x.shape)
    args, feed = dict(kwargs), {xp: x}
    if "rate_fed" in args:
        rate = tf.placeholder(dtype, [])
        feed[rate] = args.pop("rate_fed")
        args["rate"] = rate
    y = tf.nn.dropout(xp, seed=1, **args)
    (g,) = tf.gradients(y, xp, grad_ys=w)
    return y, g, feed, kwargs


@pytest.mark.parametrize("name", sorted(DROPOUT_CASES))
def test_dropout_kept_values_and_gradients_are_tfs(graph, name):
    y, g, feed, kwargs = _dropout_case(name)
    assert y.shape.as_list() == list(DROPOUT[f"{name}/x"].shape)
    with tf.Session() as sess:
        yv, gv = sess.run([y, g], feed)
    ty, tg = DROPOUT[f"{name}/y"], DROPOUT[f"{name}/grad"]
    assert yv.dtype == ty.dtype and gv.dtype == tg.dtype
    both = (yv != 0) & (ty != 0)
    assert both.sum() > 500
    # Elements both keep: TF's scaled value and gradient, bit for bit.
    np.testing.assert_array_equal(yv[both], ty[both])
    np.testing.assert_array_equal(gv[both], tg[both])
    # Dropped elements: zero value and zero gradient, the same mask for both.
    np.testing.assert_array_equal(gv[yv == 0], 0)
    rate = kwargs.get("rate", kwargs.get("rate_fed", 1 - kwargs.get("keep_prob", 1)))
    kept, tf_kept = (yv != 0).mean(), (ty != 0).mean()
    # 4000 draws (500 with noise_shape [1, 500]): a swapped rate/keep_prob is far outside.
    n = 500 if "noise_shape" in kwargs else yv.size
    bound = 4 * np.sqrt(rate * (1 - rate) / n) + 1e-9
    assert abs(kept - (1 - rate)) < max(bound, 0.01)
    assert abs(tf_kept - (1 - rate)) < max(bound, 0.01)
    if "noise_shape" in kwargs:  # whole columns kept or dropped
        assert all(len(set((column != 0).tolist())) == 1 for column in yv.T)


# -- dropout ------------------------------------------------------------------------------


def test_dropout_rate_zero_is_x(graph):
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, rate=0) is x
    assert tf.nn.dropout(x, keep_prob=1.0) is x


def test_dropout_fresh_masks_and_tensor_keep_prob(graph):
    tf.set_random_seed(1)
    keep = tf.placeholder(tf.float32, [])
    x = tf.ones([1000])
    y = tf.nn.dropout(x, keep_prob=keep)
    with tf.Session() as sess:
        a, b = sess.run(y, {keep: 0.8}), sess.run(y, {keep: 0.8})
        c = sess.run(y, {keep: 1.0})
    assert not np.array_equal(a != 0, b != 0)
    assert abs((a != 0).mean() - 0.8) < 0.06
    np.testing.assert_array_equal(c, 1.0)  # keep_prob 1 keeps all


def test_dropout_model_trains_in_one_program(graph):
    tf.set_random_seed(1)
    rng = np.random.default_rng(0)
    features = rng.standard_normal((256, 10)).astype(np.float32)
    labels = (features @ rng.standard_normal((10, 1))).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 10])
    t = tf.placeholder(tf.float32, [None, 1])
    w1 = tf.Variable(tf.truncated_normal([10, 64], stddev=0.3))
    w2 = tf.Variable(tf.truncated_normal([64, 1], stddev=0.3))
    hidden = tf.nn.dropout(tf.nn.relu(tf.matmul(x, w1)), rate=0.2)
    loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w2) - t))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([train, loss], {x: features, t: labels})[1] for _ in range(200)]
        plans = [p for p in sess._plans.values() if train in p.elements]
        assert len(plans) == 1 and plans[0].fn._cache_size() == 1
    assert np.mean(losses[-20:]) < 0.2 * np.mean(losses[:5])
    assert len(set(losses[-20:])) == 20  # a fresh mask every step


# -- random initializers follow the same seed rules ----------------------------------------------


def _initial_values(seed):
    with tf.Graph().as_default():
        if seed is not None:
            tf.set_random_seed(seed)
        a = tf.get_variable("a", [50], initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable("b", [50], initializer=tf.glorot_uniform_initializer())
        r = tf.random_uniform([3])  # takes the next derived op seed
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run([a, b, r])


def test_initializers_take_seeds_by_tfs_rules():
    first, again, other = _initial_values(1), _initial_values(1), _initial_values(2)
    for x, y in zip(first, again, strict=True):
        np.testing.assert_array_equal(x, y)  # a seeded graph built again: the same values
    assert not np.array_equal(first[0], first[1])  # each op its own derived seed
    assert not np.array_equal(first[0], other[0])
    unseeded = _initial_values(None), _initial_values(None)
    assert not np.array_equal(unseeded[0][0], unseeded[1][0])  # TF: no seed, new values
