"""``tf.random_shuffle`` and ``tf.multinomial``/``tf.random.categorical`` give TF's values.

Each snippet runs under TF 2.21 (classic TF1, ``twin.py``) and under ``adapters.v1``;
the results are compared exactly (values, dtypes, shapes), run after run in one
session and again in a new one. Before jtrain drew these two ops from TF's Philox
stream, every seeded case here differed (its values were ``jax.random``'s).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import classic_tf1, kernel_message, run_both, run_once, tf1

pytestmark = pytest.mark.interop

from adapters import v1 as jtf  # noqa: E402


def _assert_identical(theirs, ours) -> None:
    """The same nested lists of arrays: dtypes, shapes and every bit."""
    assert type(ours) is type(theirs)
    if isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for t, o in zip(theirs, ours, strict=True):
            _assert_identical(t, o)
        return
    t, o = np.asarray(theirs), np.asarray(ours)
    assert o.dtype == t.dtype and o.shape == t.shape, (o.dtype, o.shape, t.dtype, t.shape)
    if t.dtype.kind == "f" or t.dtype.name == "bfloat16":
        t = t.view(f"u{t.itemsize}")
        o = o.view(f"u{o.itemsize}")
    np.testing.assert_array_equal(o, t)


def _sessions(tf, tensors, runs=3):
    """``runs`` runs of ``tensors`` in the script's session, then in a new session."""

    def run(sess):
        first = [sess.run(tensors) for _ in range(runs)]
        with tf.Session() as again:
            return first, [again.run(tensors) for _ in range(runs)]

    return run


def _seeds(tf, graph_seed):
    if graph_seed is not None:
        tf.set_random_seed(graph_seed)


# -- random_shuffle ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 7, 1000, 2**16 + 3])  # 1 row: test_shuffle_nothing_to_shuffle
@pytest.mark.parametrize("graph_seed,op_seed", [(1, None), (None, 9), (77, 5)])
def test_shuffle_1d_runs_and_new_session(n, graph_seed, op_seed):
    def script(tf):
        _seeds(tf, graph_seed)
        t = tf.random_shuffle(tf.range(n), seed=op_seed)
        u = tf.random.shuffle(tf.range(n, dtype=tf.float32) * 0.5, seed=op_seed)
        return _sessions(tf, [t, u])

    theirs, ours = run_both(script)
    _assert_identical(theirs, ours)


@pytest.mark.parametrize(
    "shape,dtype",
    [
        ((7, 3), "float16"),
        ((13, 2, 3), "int64"),
        ((2, 5), "bool"),
        ((1000, 4), "float64"),
        ((9, 1, 1, 2), "bfloat16"),
        ((300, 2), "uint8"),
        ((6,), "int8"),
    ],
)
def test_shuffle_ranks_and_dtypes(shape, dtype):
    values = (np.arange(np.prod(shape)) % 251).reshape(shape)

    def script(tf):
        tf.set_random_seed(3)
        dt = getattr(tf, dtype)
        t = tf.random_shuffle(tf.cast(tf.constant(values), dt))
        assert t.dtype == dt and t.shape.as_list() == list(shape)
        return _sessions(tf, [t], runs=2)

    theirs, ours = run_both(script)
    _assert_identical(theirs, ours)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (1, 4), (5, 0), (0, 3)])
def test_shuffle_nothing_to_shuffle(shape):
    values = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)

    def script(tf):
        tf.set_random_seed(2)
        t = tf.random_shuffle(values)
        after = tf.random_shuffle(tf.range(10))  # the graph's next op seed
        return _sessions(tf, [t, after], runs=2)

    theirs, ours = run_both(script)
    _assert_identical(theirs, ours)


def test_shuffle_fed_sizes_move_the_counter_by_each_run():
    """A value of unknown length: each run reserves for the length it is fed."""
    feeds = [np.arange(n, dtype=np.int32) for n in (7, 1000, 1, 2, 13, 5)]

    def script(tf):
        tf.set_random_seed(8)
        x = tf.placeholder(tf.int32, [None])
        t = tf.random_shuffle(x)
        return lambda sess: [sess.run(t, {x: f}) for f in feeds]

    theirs, ours = run_both(script)
    _assert_identical(theirs, ours)


def test_shuffle_unseeded_differs_between_sessions():
    x = np.arange(1000)

    def script(tf):
        t = tf.random_shuffle(x)

        def run(sess):
            with tf.Session() as again:
                return sess.run(t), again.run(t)

        return run

    first, second = run_once(jtf, script)
    assert sorted(first.tolist()) == x.tolist()
    assert not np.array_equal(first, second)


# -- multinomial / categorical ---------------------------------------------------------------


def _logits(batch: int, classes: int, dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 2.0, (batch, classes))
    if classes > 2:
        x[rng.random((batch, classes)) < 0.2] = -np.inf
        x[:, 0] = np.where(rng.random(batch) < 0.5, -np.inf, x[:, 0])
    return x.astype(dtype)


@pytest.mark.parametrize(
    "batch,classes,num_samples",
    [
        (1, 2, 9),
        (5, 2, 1),
        (2, 3, 7),
        (3, 10, 50),
        (4, 1000, 4),
        (5, 64, 13),
        (1, 1000, 50),
        (5, 5, 2),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_multinomial_runs_and_new_session(batch, classes, num_samples, dtype):
    logits = _logits(batch, classes, dtype, batch * classes + num_samples)

    def script(tf):
        tf.set_random_seed(4)
        a = tf.multinomial(logits, num_samples)
        b = tf.random.categorical(logits, num_samples, dtype=tf.int32, seed=11)
        c = tf.multinomial(logits, num_samples, output_dtype=tf.int32, seed=2)
        return _sessions(tf, [a, b, c])

    theirs, ours = run_both(script)
    _assert_identical(theirs, ours)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
@pytest.mark.parametrize("graph_seed,op_seed", [(None, 3), (12, None), (0, 0)])
def test_multinomial_dtypes_and_seed_rules(dtype, graph_seed, op_seed):
    logits = _logits(3, 20, "float32", 5)

    def script(tf):
        _seeds(tf, graph_seed)
        lg = tf.cast(tf.constant(logits), getattr(tf, dtype))
        a = tf.random.categorical(lg, 9, seed=op_seed)
        return _sessions(tf, [a], runs=2)

    theirs, ours = run_both(script)
    _assert_identical(theirs, ours)


def test_multinomial_non_finite_rows():
    """``-inf``/``nan``/``inf`` classes are never drawn; a row without a finite logit
    gives ``num_classes`` (TF's ``upper_bound`` past the end)."""
    inf, nan = np.inf, np.nan
    logits = np.array(
        [[-inf, 0.0, -inf, 1.0], [-inf, -inf, -inf, -inf], [nan, 2.0, inf, -1.0]], np.float32
    )

    def script(tf):
        tf.set_random_seed(6)
        return _sessions(tf, [tf.multinomial(logits, 6)], runs=2)

    theirs, ours = run_both(script)
    _assert_identical(theirs, ours)


def test_multinomial_fed_batches_move_the_counter_by_each_run():
    feeds = [_logits(b, 8, "float32", b) for b in (1, 4, 2, 5)]

    def script(tf):
        tf.set_random_seed(9)
        x = tf.placeholder(tf.float32, [None, 8])
        t = tf.random.categorical(x, 5)
        empty = tf.random.categorical(x, 0)  # reserves nothing
        return lambda sess: [sess.run([t, empty], {x: f}) for f in feeds]

    theirs, ours = run_both(script)
    _assert_identical(theirs, ours)


def test_multinomial_no_classes_error():
    def script(tf):
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, None])
        t = tf.multinomial(x, 3)

        def run(sess):
            with pytest.raises(Exception) as info:
                sess.run(t, {x: np.zeros((2, 0), np.float32)})
            return kernel_message(info.value)

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_multinomial_negative_num_samples_error():
    def script(tf):
        with pytest.raises(ValueError) as info:
            tf.multinomial([[0.0, 1.0]], -1)
        return lambda sess: str(info.value).split(" for '")[0]

    theirs, ours = run_both(script)
    assert ours == theirs


def _integer_logits_error(tf):
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        t = tf.multinomial(tf.constant([[1, 2]]), 3, seed=4)
        with tf.Session() as sess, pytest.raises(Exception) as info:
            sess.run(t)  # (TF fails any run of this graph: it places every node first)
    lines = str(getattr(info.value, "message", info.value)).split("\n")
    (line,) = [x for x in lines if "No OpKernel" in x]
    head, attrs = line.split(" with these attrs: ")
    # TF lists the attrs in its hash map's order: compare them as a set
    return type(info.value).__name__, head, sorted(attrs.strip("[]").split(", "))


def test_multinomial_integer_logits_error():
    """TF has no kernel for integer logits: the run fails naming the op and its attrs."""
    with classic_tf1():
        theirs = _integer_logits_error(tf1)
    assert _integer_logits_error(jtf) == theirs
