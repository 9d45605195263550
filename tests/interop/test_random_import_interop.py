"""Random ops of imported graphs draw TF's Philox stream, checked live against TF 2.21.

A TF-written ``.meta`` or ``GraphDef`` holds ``RandomUniform``, ``RandomUniformInt``,
``RandomStandardNormal`` and ``TruncatedNormal`` nodes with their ``seed``/``seed2``
attributes; TF running the imported graph gives run ``k`` of each node from its own
``GuardedPhiloxRandom``. jtrain importing the same graph gives the same numbers run
after run (normal float32 draws: the fraction of bit-identical elements and the ulp
distance, as ``test_random_streams_interop.py``). Before, these nodes drew
``jax.random`` values. jtrain's own ``.meta`` of a random op of a run-time shape
imports and runs to TF's values (before, its node did not import).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.test_random_streams_interop import (
    NORMAL_BOUNDS,
    _assert_bit_identical,
    _normal_closeness,
)
from tests.interop.twin import classic_tf1, run_once, tf1

pytestmark = pytest.mark.interop

from adapters import v1 as jtf  # noqa: E402

X = np.arange(12, dtype=np.float32).reshape(3, 4)
X2 = np.arange(20, dtype=np.float32).reshape(5, 4)

# name -> (build(tf, x), bit-identical): seeded random ops as a TF1 script builds them
EXACT = {
    "uniform": lambda tf, x: tf.random_uniform([3, 37], seed=1),
    "uniform float64": lambda tf, x: tf.random_uniform([7], dtype=tf.float64, seed=3),
    "uniform float16": lambda tf, x: tf.random_uniform([9], dtype=tf.float16, seed=4),
    "uniform bfloat16": lambda tf, x: tf.random_uniform([6], dtype=tf.bfloat16, seed=4),
    "uniform int32": lambda tf, x: tf.random_uniform([7, 3], -5, 1000, tf.int32, seed=5),
    "uniform int64": lambda tf, x: tf.random_uniform([5], -(2**40), 2**62, tf.int64, seed=6),
    "uniform of run-time shape": lambda tf, x: tf.random_uniform(tf.shape(x), seed=7),
    "normal float64": lambda tf, x: tf.random_normal([4, 3], dtype=tf.float64, seed=8),
    "truncated float64": lambda tf, x: tf.truncated_normal([11], dtype=tf.float64, seed=9),
    "truncated float16": lambda tf, x: tf.truncated_normal([6], dtype=tf.float16, seed=10),
    "int of run-time shape": lambda tf, x: tf.random_uniform(
        [tf.shape(x)[0], 2], 0, 7, tf.int32, seed=11
    ),
}
NORMAL = {
    "normal": lambda tf, x: tf.random_normal([9, 41], stddev=2.0, seed=12),
    "truncated": lambda tf, x: tf.truncated_normal([5, 30], stddev=2.0, seed=13),
    "normal of run-time shape": lambda tf, x: tf.random_normal(tf.shape(x), seed=14),
}
# TF's Python arithmetic around the raw values (``rnd * (maxval - minval) + minval``):
# imported, its Mul and Add nodes are contracted into one FMA by XLA (a few ulps).
SHIFTED = {
    "uniform range": lambda tf, x: tf.random_uniform([5], -2.5, 4.0, seed=2),
    "normal shifted": lambda tf, x: tf.random_normal([6], 0.5, 2.0, seed=15),
}
CASES = {**EXACT, **NORMAL, **SHIFTED}


def _build(tf, graph_seed=None):
    if graph_seed is not None:
        tf.set_random_seed(graph_seed)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    for name, build in CASES.items():
        tf.identity(build(tf, x), name=name.replace(" ", "_"))
    return x


def _names():
    return [name.replace(" ", "_") + ":0" for name in CASES]


def _runs(sess, x_name, n=3):
    # the run-time shape changes between runs (3 rows, then 5): one counter per node
    feeds = [X, X2, X]
    return [sess.run(_names(), {x_name: feeds[i]}) for i in range(n)]


def _compare(theirs, ours):
    for run_t, run_o in zip(theirs, ours, strict=True):
        exact = [(t, o) for name, t, o in zip(CASES, run_t, run_o, strict=True) if name in EXACT]
        _assert_bit_identical([t for t, _ in exact], [o for _, o in exact])
        normal = [(t, o) for name, t, o in zip(CASES, run_t, run_o, strict=True) if name in NORMAL]
        fraction, ulps = _normal_closeness([t for t, _ in normal], [o for _, o in normal])
        low, most = NORMAL_BOUNDS["float32"]
        assert fraction >= low, fraction
        assert ulps <= most, ulps
        for name, t, o in zip(CASES, run_t, run_o, strict=True):
            if name in SHIFTED:
                assert o.dtype == t.dtype and o.shape == t.shape
                np.testing.assert_allclose(o, t, atol=8 * float(np.finfo(o.dtype).eps))


def _tf_graph(tmp_path, graph_seed=None):
    """TF's ``.meta`` and ``GraphDef`` of the random ops, and TF's three runs of them."""
    path = str(tmp_path / "random.meta")
    with classic_tf1(), tf1.Graph().as_default() as graph:
        _build(tf1, graph_seed)
        tf1.train.export_meta_graph(path)
        graph_def = graph.as_graph_def()
        with tf1.Session() as sess:
            theirs = _runs(sess, "x:0")
    return path, graph_def.SerializeToString(), theirs


@pytest.mark.parametrize("how", ["import_meta_graph", "import_graph_def"])
def test_imported_tf_random_nodes_three_runs_as_tf(how, tmp_path):
    path, graph_def, theirs = _tf_graph(tmp_path, graph_seed=17)
    with jtf.Graph().as_default():
        if how == "import_meta_graph":
            jtf.train.import_meta_graph(path)
        else:
            proto = jtf.GraphDef()
            proto.ParseFromString(graph_def)
            jtf.import_graph_def(proto, name="")
        with jtf.Session() as sess:
            ours = _runs(sess, "x:0")
    _compare(theirs, ours)


def test_imported_tf_random_nodes_start_again_in_a_new_session(tmp_path):
    path, _, theirs = _tf_graph(tmp_path, graph_seed=17)
    with jtf.Graph().as_default():
        jtf.train.import_meta_graph(path)
        for _ in range(2):  # each session starts every node's counter at 0, as TF's
            with jtf.Session() as sess:
                ours = _runs(sess, "x:0", n=2)
            _compare(theirs[:2], ours)


def test_imported_unseeded_tf_random_nodes(tmp_path):
    # No seeds: TF writes seed=0, seed2=0 and its kernels draw from random seeds; only
    # the shapes, dtypes and ranges are comparable, and runs and sessions differ.
    path = str(tmp_path / "unseeded.meta")
    with classic_tf1(), tf1.Graph().as_default():
        u = tf1.random_uniform([50])
        tf1.identity(u, name="u")
        tf1.identity(tf1.random_uniform([40], 3, 9, tf1.int64), name="i")
        tf1.identity(tf1.truncated_normal([60]), name="t")
        assert u.op.type == "RandomUniform"
        assert (u.op.get_attr("seed"), u.op.get_attr("seed2")) == (0, 0)
        tf1.train.export_meta_graph(path)
    with jtf.Graph().as_default():
        jtf.train.import_meta_graph(path)
        with jtf.Session() as sess:
            first = sess.run(["u:0", "i:0", "t:0"])
            second = sess.run(["u:0", "i:0", "t:0"])
        with jtf.Session() as sess:
            again = sess.run(["u:0", "i:0", "t:0"])
    for run in (first, second, again):
        u, i, t = run
        assert u.dtype == np.float32 and u.shape == (50,) and 0 <= u.min() and u.max() < 1
        assert i.dtype == np.int64 and i.shape == (40,) and 3 <= i.min() and i.max() < 9
        assert t.dtype == np.float32 and t.shape == (60,) and np.abs(t).max() < 2
    assert not np.array_equal(first[0], second[0])
    assert not np.array_equal(first[0], again[0])


def test_jtrain_meta_graph_of_random_ops_round_trips_to_tfs_values(tmp_path):
    # jtrain's .meta of the seeded random ops (static and run-time shapes), imported
    # into a new graph, runs to TF's values for the same script.
    path = str(tmp_path / "jtrain.meta")
    theirs = run_once(tf1, lambda tf: (_build(tf, 17), lambda sess: _runs(sess, "x:0"))[1])
    with jtf.Graph().as_default():
        _build(jtf, 17)
        jtf.train.export_meta_graph(path)
    with jtf.Graph().as_default():
        jtf.train.import_meta_graph(path)
        with jtf.Session() as sess:
            ours = _runs(sess, "x:0")
    _compare(theirs, ours)


def _tf_meta_of(tmp_path, build):
    path = str(tmp_path / "graph.meta")
    with classic_tf1(), tf1.Graph().as_default():
        build(tf1)
        tf1.train.export_meta_graph(path)
    return path


def test_imported_tf_random_node_of_a_fed_shape_as_tf(tmp_path):
    def build(tf):
        tf.set_random_seed(21)
        n = tf.placeholder(tf.int32, [2], name="n")
        tf.identity(tf.random_uniform(n), name="u")
        tf.identity(tf.random_uniform(n, 0, 100, tf.int64), name="i")

    path = _tf_meta_of(tmp_path, build)
    feeds = [[2, 3], [4, 1], [2, 3]]
    with classic_tf1(), tf1.Graph().as_default():
        tf1.train.import_meta_graph(path)
        with tf1.Session() as sess:
            theirs = [sess.run(["u:0", "i:0"], {"n:0": f}) for f in feeds]
    with jtf.Graph().as_default():
        jtf.train.import_meta_graph(path)
        with jtf.Session() as sess:
            ours = [sess.run(["u:0", "i:0"], {"n:0": f}) for f in feeds]
    for t, o in zip(theirs, ours, strict=True):
        _assert_bit_identical(t, o)


def _int_bounds(tf):
    tf.set_random_seed(22)
    lo = tf.placeholder(tf.int32, [], name="lo")
    tf.identity(tf.random_uniform([4], lo, 10, tf.int32), name="fed")
    tf.identity(tf.random_uniform([3], 5, 5, tf.int64), name="equal")
    tf.identity(tf.random_uniform([0], 5, 5, tf.int32), name="empty")


def _bounds_runs(tf, sess):
    """(values for lo=3, the empty draw, TF's error messages for lo=10 and 5 >= 5)."""
    out = [sess.run("fed:0", {"lo:0": 3}), sess.run("empty:0")]
    for name, feed in (("fed:0", {"lo:0": 10}), ("equal:0", None)):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(name, feed)
        out.append(info.value.message)
    return out


@pytest.mark.parametrize("how", ["built", "imported TF meta", "jtrain meta"])
def test_uniform_int_bounds_checked_at_run_time_as_tf(how, tmp_path):
    # minval >= maxval raises TF's InvalidArgumentError when the op runs (not for an
    # empty output), whether the bounds are constants or fed.
    theirs = run_once(tf1, lambda tf: (_int_bounds(tf), lambda sess: _bounds_runs(tf, sess))[1])
    if how == "built":
        ours = run_once(jtf, lambda tf: (_int_bounds(tf), lambda sess: _bounds_runs(tf, sess))[1])
    else:
        path = str(tmp_path / "bounds.meta")
        if how == "imported TF meta":
            path = _tf_meta_of(tmp_path, _int_bounds)
        else:
            with jtf.Graph().as_default():
                _int_bounds(jtf)
                jtf.train.export_meta_graph(path)
        with jtf.Graph().as_default():
            jtf.train.import_meta_graph(path)
            with jtf.Session() as sess:
                ours = _bounds_runs(jtf, sess)
    _assert_bit_identical(theirs[:2], ours[:2])
    for t, o in zip(theirs[2:], ours[2:], strict=True):
        assert o in t, (o, t)
    assert ours[2:] == ["Need minval < maxval, got 10 >= 10", "Need minval < maxval, got 5 >= 5"]
