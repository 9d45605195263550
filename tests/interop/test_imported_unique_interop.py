"""TF-written graphs' data-dependent sizes, imported with ``import_meta_graph`` and run,
checked live against TF 2.21 (classic TF1): TF writes the ``.meta``, each side imports
it into a new graph and runs it by name.

``Unique``/``UniqueWithCounts`` of a fed vector give TF's values in order of first
occurrence, of TF's exact length (static shape ``[None]``), with ``out_idx``'s dtype.
Before, ``Unique`` returned the distinct values ascending, padded to the input's length
(``[1, 2, 3, 1]`` for TF's ``[3, 1, 2]``), and ``UniqueWithCounts`` could not run.

A TF optimizer's deduplication of a sparse gradient (``Unique`` read only by its
segment sum and its ``SparseApply*``/``Scatter*``) keeps the padded form, one program
for every batch, with TF's updated variables.

``Where`` (of ``tf.where(c)`` and ``tf.boolean_mask``) gives TF's coordinates (it could
not run before). The other data-dependent op types (``UniqueV2``, ``ListDiff``,
``DynamicPartition``) raise ``UnimplementedError`` naming the node, never a value.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf1

pytestmark = pytest.mark.interop

FEEDS = [
    np.array([3, 1, 3, 2], np.int32),
    np.array([5, 5, -1, 0, 5, 7, -1], np.int32),
    np.array([4], np.int32),
]


def _unique_graph(tf):
    x = tf.placeholder(tf.int32, [None], name="x")
    tf.unique(x, name="u")
    tf.unique(x, out_idx=tf.int64, name="u64")
    tf.unique_with_counts(x, name="uc")
    y, idx = tf.unique(x * 2, name="u2x")
    tf.identity(tf.reduce_sum(y) + tf.size(y), name="used")
    tf.gather(y, idx, name="gathered")


FETCHES = [
    "u:0",
    "u:1",
    "u64:0",
    "u64:1",
    "uc:0",
    "uc:1",
    "uc:2",
    "u2x:0",
    "used:0",
    "gathered:0",
]


def _write(path, build):
    with classic_tf1(), tf1.Graph().as_default():
        build(tf1)
        tf1.train.export_meta_graph(path)


def _imported(tf, path, run):
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default() as graph:
            tf.train.import_meta_graph(path)
            with tf.Session() as sess:
                return run(graph, sess)


def _values(graph, sess):
    out = []
    for x in FEEDS:
        values = sess.run(FETCHES, {"x:0": x})
        out.append([(np.asarray(v), np.asarray(v).dtype) for v in values])
    shapes = [graph.get_tensor_by_name(f).get_shape().as_list() for f in FETCHES]
    return out, shapes


def test_imported_unique_gives_tf_values_order_and_length(tmp_path):
    path = str(tmp_path / "unique.meta")
    _write(path, _unique_graph)
    theirs = _imported(tf1, path, _values)
    ours = _imported(jtf, path, _values)
    assert ours[1] == theirs[1]  # static shapes: [None] (TF records no length)
    for run_ours, run_theirs in zip(ours[0], theirs[0], strict=True):
        for (v, dtype), (tv, tdtype), name in zip(run_ours, run_theirs, FETCHES, strict=True):
            assert dtype == tdtype, name
            np.testing.assert_array_equal(v, tv, err_msg=name)


def test_imported_unique_of_a_matrix_raises_tf_error(tmp_path):
    def build(tf):
        x = tf.placeholder(tf.int32, None, name="x")
        tf.unique(x, name="u")

    path = str(tmp_path / "unique_matrix.meta")
    _write(path, build)

    def run(tf):
        def raised(graph, sess):
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run("u:0", {"x:0": np.array([[1, 2], [2, 1]], np.int32)})
            return str(info.value)

        return raised

    theirs = _imported(tf1, path, run(tf1))
    ours = _imported(jtf, path, run(jtf))
    assert "unique expects a 1D vector" in theirs
    assert "unique expects a 1D vector" in ours


def _where_graph(tf):
    c = tf.placeholder(tf.bool, [None], name="c")
    m = tf.placeholder(tf.float32, None, name="m")
    v = tf.placeholder(tf.float32, [None, 2], name="v")
    tf.where(c, name="w")
    tf.where(tf.greater(m, 0.0), name="wm")
    picked = tf.boolean_mask(v, c, name="bm")
    tf.reduce_sum(picked, name="total")


WHERE_FETCHES = ["w:0", "wm:0", "bm/GatherV2:0", "total:0"]
WHERE_FEEDS = [
    ([True, False, True], [[1.0, -2.0], [0.0, 3.0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    ([False, False], [[-1.0]], [[1.0, 2.0], [3.0, 4.0]]),
    ([True, True, False, True], [[1.0, 2.0, 3.0]], np.ones((4, 2), np.float32)),
]


def test_imported_where_and_boolean_mask_give_tf_values(tmp_path):
    path = str(tmp_path / "where.meta")
    _write(path, _where_graph)

    def run(graph, sess):
        out = []
        for c, m, v in WHERE_FEEDS:
            out.append(
                [np.asarray(r) for r in sess.run(WHERE_FETCHES, {"c:0": c, "m:0": m, "v:0": v})]
            )
        shapes = [graph.get_tensor_by_name(f).get_shape().as_list() for f in WHERE_FETCHES]
        return out, shapes

    theirs = _imported(tf1, path, run)
    ours = _imported(jtf, path, run)
    assert ours[1] == theirs[1]
    for run_ours, run_theirs in zip(ours[0], theirs[0], strict=True):
        for v, tv, name in zip(run_ours, run_theirs, WHERE_FETCHES, strict=True):
            assert v.dtype == tv.dtype, name
            np.testing.assert_array_equal(v, tv, err_msg=name)

    def scalar(tf):
        def raised(graph, sess):
            with pytest.raises(tf.errors.InvalidArgumentError, match="Unhandled input dimensions"):
                sess.run("wm:0", {"m:0": 1.0})

        return raised

    _imported(tf1, path, scalar(tf1))
    _imported(jtf, path, scalar(jtf))


def _embedding_training(tf):
    table = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(6, 2), name="table")
    ids = tf.placeholder(tf.int32, [None], name="ids")
    loss = tf.reduce_sum(tf.square(tf.gather(table, ids)), name="loss")
    tf.train.AdagradOptimizer(0.1).minimize(loss, name="adagrad")
    tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, name="momentum")
    tf.train.AdamOptimizer(0.01).minimize(loss, name="adam")
    tf.global_variables_initializer()


BATCHES = [[0, 3, 0, 5], [2, 2, 2], [1, 4, 0, 3, 1, 5]]


def test_imported_optimizer_dedupe_keeps_one_program_and_tf_values(tmp_path):
    path = str(tmp_path / "train.meta")
    _write(path, _embedding_training)

    def run(graph, sess):
        sess.run("init")
        tables = []
        for ids in BATCHES:
            for train in ("adagrad", "momentum", "adam"):
                sess.run(train, {"ids:0": ids})
            tables.append(sess.run("table:0"))
        return graph, tables

    _, theirs = _imported(tf1, path, run)
    graph, ours = _imported(jtf, path, run)
    for table, expected in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(table, expected, rtol=1e-6)
    dedupes = [op for op in graph.get_operations() if op.type == "Unique"]
    assert len(dedupes) == 3
    # the optimizers' deduplication: no sizes computed before the step
    assert all(getattr(op, "_sized", None) is None for op in dedupes)


def _unsupported_graph(tf):
    x = tf.placeholder(tf.int32, [None], name="x")
    tf.raw_ops.UniqueV2(x=x, axis=tf.constant([0], tf.int64), name="u2")
    tf.setdiff1d(x, tf.constant([1, 5]), name="sd")
    tf.dynamic_partition(x, tf.cast(tf.greater(x, 1), tf.int32), 2, name="dp")


@pytest.mark.parametrize("fetch", ["u2:0", "sd:0", "dp:1"])
def test_other_data_dependent_op_types_raise_naming_the_node(fetch, tmp_path):
    path = str(tmp_path / "others.meta")
    _write(path, _unsupported_graph)
    feed = {"x:0": FEEDS[0]}
    theirs = _imported(tf1, path, lambda graph, sess: sess.run(fetch, feed))
    assert np.asarray(theirs).size > 0

    def run(graph, sess):
        with pytest.raises(jtf.errors.UnimplementedError, match=f"Node '{fetch[:-2]}'"):
            sess.run(fetch, feed)

    _imported(jtf, path, run)
