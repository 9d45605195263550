"""More of ``tf.data.experimental`` under TF 2.21's ``compat.v1`` (classic TF1 graph
mode) and under ``adapters.v1``: ``get_next_as_optional``/``Optional``,
``group_by_reducer``/``Reducer``, ``RandomDataset`` (TF's Philox values),
``SqlDataset``, ``TFRecordWriter`` (the file's bytes), ``from_list``,
``pad_to_cardinality``, ``snapshot``, ``get_structure``, ``SHARD_HINT`` and
``enable_debug_mode``: the same elements, dtypes, static shapes, end of input and
errors. Each test failed before these names existed in ``adapters.v1`` (the
missing-name ``AttributeError``)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
import tensorflow as real_tf

from tests.interop.test_data_interop import _drain
from tests.interop.test_data_more_interop import _check, _error
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1


def _sum_count_reducer(tf):
    return tf.data.experimental.Reducer(
        init_func=lambda key: (tf.constant(0, tf.int64), tf.constant(0.0)),
        reduce_func=lambda state, x: (state[0] + 1, state[1] + tf.cast(x, tf.float32)),
        finalize_func=lambda n, total: {"count": n, "mean": total / tf.cast(n, tf.float32)},
    )


def _seeded_random(tf):
    tf.set_random_seed(7)
    return tf.data.experimental.RandomDataset().take(4)


PIPELINES = {
    "from_list_tuples": lambda tf: tf.data.experimental.from_list([(1, "a"), (2, "b"), (3, "c")]),
    "from_list_ragged_dims": lambda tf: tf.data.experimental.from_list(
        [{"x": np.array([1.5, 2.5]), "y": np.int64(1)}, {"x": np.array([3.5]), "y": np.int64(2)}]
    ),
    "pad_to_cardinality": lambda tf: tf.data.Dataset.from_tensor_slices(
        {"a": [[1, 2], [3, 4], [5, 6]], "b": [0.5, 1.5, 2.5]}
    ).apply(tf.data.experimental.pad_to_cardinality(5)),
    "pad_to_cardinality_mask_key": lambda tf: tf.data.Dataset.from_tensor_slices(
        {"a": [1, 2]}
    ).apply(tf.data.experimental.pad_to_cardinality(4, mask_key="m")),
    # graph mode checks nothing: a longer input is followed by fillers forever
    "pad_to_cardinality_shorter_target": lambda tf: (
        tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3]})
        .apply(tf.data.experimental.pad_to_cardinality(2))
        .take(6)
    ),
    # unknown cardinality (-2): TF's count of fillers is the target plus 2
    "pad_to_cardinality_unknown_input": lambda tf: (
        tf.data.Dataset.from_tensor_slices(
            {"s": ["a", "bb", "c"], "v": [[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]]}
        )
        .filter(lambda e: tf.strings.length(e["s"]) < 2)
        .apply(tf.data.experimental.pad_to_cardinality(3))
    ),
    "from_list_tensors": lambda tf: tf.data.experimental.from_list(
        [tf.constant([1, 2]) * 2, tf.constant([3, 4]) + 1]
    ).map(lambda x: x * 10),
    "random_dataset_seeded": lambda tf: tf.data.experimental.RandomDataset(seed=3).take(6),
    "random_dataset_each_epoch": lambda tf: (
        tf.data.experimental.RandomDataset(seed=11).take(3).repeat(2)
    ),
    "random_dataset_graph_seed": _seeded_random,
    "group_by_reducer_sum": lambda tf: tf.data.Dataset.range(10).apply(
        tf.data.experimental.group_by_reducer(
            lambda x: (x + 2) % 3,  # keys come 2, 0, 1
            tf.data.experimental.Reducer(
                init_func=lambda key: key * 100,
                reduce_func=lambda state, x: state + x,
                finalize_func=lambda state: state,
            ),
        )
    ),
    "group_by_reducer_structured": lambda tf: tf.data.Dataset.from_tensor_slices(
        [5, 1, 4, 2, 8, 7]
    ).apply(
        tf.data.experimental.group_by_reducer(
            lambda x: tf.cast(x % 2, tf.int64), _sum_count_reducer(tf)
        )
    ),
    "shard_hint_constant": lambda tf: tf.data.Dataset.from_tensors(
        np.int64(tf.data.experimental.SHARD_HINT)
    ),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_elements_match_tf(name):
    _check(PIPELINES[name])


def test_snapshot_gives_the_input_elements(tmp_path):
    def build(tf):
        path = str(tmp_path / ("tf" if tf is tf1 else "jtrain"))
        return (
            tf.data.Dataset.range(5).map(lambda x: x * 3).apply(tf.data.experimental.snapshot(path))
        )

    _check(build)

    def build_method(tf):
        path = str(tmp_path / ("tf_method" if tf is tf1 else "jtrain_method"))
        return tf.data.Dataset.range(4).snapshot(path, compression=None).map(lambda x: x + 1)

    _check(build_method)


def test_sql_dataset_rows(tmp_path):
    db = str(tmp_path / "rows.db")
    with sqlite3.connect(db) as c:
        c.execute("create table t (a integer, b text, c real, d integer)")
        c.executemany(
            "insert into t values (?, ?, ?, ?)",
            [(1, "x", 1.5, 0), (-2, "yz", 2.25, 1), (2**40, "", -3.0, 1)],
        )
    c.close()

    def build(tf):
        types = (tf.int64, tf.string, tf.float64, tf.bool)
        return tf.data.experimental.SqlDataset("sqlite", db, "select * from t order by a", types)

    _check(build)

    def build_converted(tf):  # text, reals and big integers read as other dtypes
        return tf.data.experimental.SqlDataset(
            "sqlite", db, "select a, b, c, c, a, a, a from t",
            (tf.int32, tf.int64, tf.int64, tf.string, tf.float64, tf.uint8, tf.bool),
        )  # fmt: skip

    _check(build_converted)


@pytest.mark.parametrize("compression", [None, "ZLIB", "GZIP"])
def test_tfrecord_writer_writes_tfs_bytes(tmp_path, compression):
    def script(tf):
        path = str(tmp_path / f"{'tf' if tf is tf1 else 'jtrain'}.tfrecord")
        records = tf.data.Dataset.from_tensor_slices([b"first", b"", b"x" * 300])
        op = tf.data.experimental.TFRecordWriter(path, compression).write(records)

        def run(sess):
            sess.run(op)
            with open(path, "rb") as f:
                return f.read()

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_tfrecord_writer_into_a_missing_directory(tmp_path):
    def script(tf):
        path = str(tmp_path / "missing" / "x.tfrecord")
        op = tf.data.experimental.TFRecordWriter(path).write(tf.data.Dataset.from_tensors(b"a"))

        def run(sess):
            try:
                sess.run(op)
            except tf.errors.OpError as e:
                return type(e).__name__
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs == "NotFoundError"
    assert not (tmp_path / "missing").exists()


def test_get_next_as_optional_until_the_end():
    def script(tf):
        ds = tf.data.Dataset.from_tensor_slices(
            (np.array([1, 2], np.int32), [[1.0, 2.0], [3.0, 4.0]])
        )
        it = tf.data.make_one_shot_iterator(ds)
        opt = tf.data.experimental.get_next_as_optional(it)
        spec = repr(opt.element_spec)
        both = (opt.has_value(), opt.get_value())
        value = opt.get_value()
        shapes = [t.shape.as_list() for t in value]

        def run(sess):
            got = [sess.run(both), sess.run(both)]
            ends = [sess.run(opt.has_value())]
            try:
                sess.run(value)
            except tf.errors.OpError as e:
                ends.append((type(e).__name__, "does not have a value" in str(e)))
            return {"spec": spec, "shapes": shapes, "got": got, "ends": ends}

        return run

    theirs, ours = run_both(script)
    assert ours["spec"] == theirs["spec"]
    assert ours["shapes"] == theirs["shapes"]
    assert ours["ends"] == theirs["ends"] == [False, ("InvalidArgumentError", True)]
    assert_twins(theirs["got"], ours["got"])


def test_iterator_get_next_as_optional_method():
    def script(tf):
        it = tf.data.make_initializable_iterator(tf.data.Dataset.range(2).map(lambda x: {"x": x}))
        opt = it.get_next_as_optional()
        fetch = (opt.has_value(), opt.get_value())

        def run(sess):
            sess.run(it.initializer)
            got = [sess.run(fetch) for _ in range(2)]
            sess.run(it.initializer)  # starts again
            return got, sess.run(fetch), sess.run(opt.has_value())

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_optional_from_value_and_empty():
    def script(tf):
        full = tf.data.experimental.Optional.from_value(
            {"a": tf.constant(1.5), "b": (tf.constant([1, 2]),)}
        )
        empty = tf.data.experimental.Optional.empty(tf.TensorSpec([2], tf.float32))
        specs = (repr(full.element_spec), repr(empty.element_spec))
        empty_value = empty.get_value()

        def run(sess):
            out = sess.run([full.has_value(), full.get_value(), empty.has_value()])
            try:
                sess.run(empty_value)
            except tf.errors.OpError as e:
                out.append(type(e).__name__)
            return specs, out

        return run

    (t_specs, theirs), (o_specs, ours) = run_both(script)
    assert o_specs == t_specs
    assert ours[-1] == theirs[-1] == "InvalidArgumentError"
    assert_twins(theirs[:-1], ours[:-1])


def test_get_structure_of_datasets_and_iterators():
    def script(tf):
        ds = tf.data.Dataset.from_tensor_slices({"x": np.zeros((3, 2), np.float32), "y": [1, 2, 3]})
        it = tf.data.make_one_shot_iterator(ds.batch(2))
        found = (
            repr(tf.data.experimental.get_structure(ds)),
            repr(tf.data.experimental.get_structure(it)),
        )
        return lambda sess: found

    theirs, ours = run_both(script)
    assert ours == theirs


ERRORS = {
    "from_list_empty": lambda tf: tf.data.experimental.from_list([]),
    "from_list_not_a_list": lambda tf: tf.data.experimental.from_list((1, 2)),
    "pad_to_cardinality_not_a_dict": lambda tf: tf.data.Dataset.range(3).apply(
        tf.data.experimental.pad_to_cardinality(5)
    ),
    "get_structure_of_a_tensor": lambda tf: tf.data.experimental.get_structure(tf.constant(1)),
    "tfrecord_writer_of_ints": lambda tf: tf.data.experimental.TFRecordWriter(
        "/nonexistent/x"
    ).write(tf.data.Dataset.range(3)),
    "enable_debug_mode": lambda tf: tf.data.experimental.enable_debug_mode(),
    "group_by_reducer_vector_key": lambda tf: tf.data.Dataset.range(3).apply(
        tf.data.experimental.group_by_reducer(
            lambda x: tf.stack([x, x]),
            tf.data.experimental.Reducer(lambda k: k, lambda s, x: s + x, lambda s: s),
        )
    ),
    "group_by_reducer_int32_key": lambda tf: tf.data.Dataset.range(3).apply(
        tf.data.experimental.group_by_reducer(
            lambda x: tf.cast(x, tf.int32),
            tf.data.experimental.Reducer(lambda k: k, lambda s, x: s + x, lambda s: s),
        )
    ),
    "sql_dataset_other_driver": lambda tf: tf.data.experimental.SqlDataset(
        "mysql", "/nonexistent.db", "select 1", (tf.int64,)
    ),
    "sql_dataset_float32": lambda tf: tf.data.experimental.SqlDataset(
        "sqlite", ":memory:", "select 1", (tf.float32,)
    ),
    "sql_dataset_columns": lambda tf: tf.data.experimental.SqlDataset(
        "sqlite", ":memory:", "select 1, 2", (tf.int64,)
    ),
    "sql_dataset_bad_query": lambda tf: tf.data.experimental.SqlDataset(
        "sqlite", ":memory:", "selec 1", (tf.int64,)
    ),
}


def _message(text):
    """The kernel's line of a run's error, else the first line, without the class TF
    names (a ``SymbolicTensor``, jtrain's ``Tensor``)."""
    lines = text.split("\n")
    ends = [i for i, line in enumerate(lines) if line.strip().startswith("[[")]
    line = lines[ends[0] - 1] if ends and ends[0] > 0 else lines[0]
    return line.strip().split(" but got <class")[0]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_tf(name):
    theirs, ours = _error(ERRORS[name])
    assert theirs is not None and ours is not None
    assert ours[0] == theirs[0]
    if name == "sql_dataset_bad_query":  # the text after "[1]" is SQLite's own
        assert ours[1].startswith("Prepare() failed")
        assert _message(theirs[1]).startswith("Prepare() failed")
    else:
        assert _message(ours[1]) == _message(theirs[1])


def _table_script(make_table, keys):
    def script(tf):
        table = make_table(tf)
        found = table.lookup(tf.constant(keys))
        size = table.size()
        dtypes = (table.key_dtype.name, table.value_dtype.name)

        def run(sess):
            sess.run(tf.tables_initializer())
            return dtypes, sess.run([found, size])

        return run

    return script


TABLES = {
    "table_from_dataset_strings": (
        lambda tf: tf.data.experimental.table_from_dataset(
            tf.data.Dataset.zip(
                (
                    tf.data.Dataset.from_tensor_slices(["a", "b", "c"]),
                    tf.data.Dataset.range(10, 13),
                )
            )
        ),
        ["c", "z", "a"],
    ),
    "table_from_dataset_vocab_size": (
        lambda tf: tf.data.experimental.table_from_dataset(
            tf.data.Dataset.from_tensor_slices((np.array([4, 5, 6], np.int64), [0.5, 1.5, 2.5])),
            vocab_size=2,
            default_value=-9.0,
        ),
        np.array([4, 5, 6], np.int64),
    ),
    "index_table_from_dataset": (
        lambda tf: tf.data.experimental.index_table_from_dataset(
            tf.data.Dataset.from_tensor_slices(["x", "y", "z"])
        ),
        ["z", "x", "q"],
    ),
    "dataset_initializer": (
        lambda tf: tf.lookup.StaticHashTable(
            tf.data.experimental.DatasetInitializer(
                tf.data.Dataset.range(4).map(lambda x: (x, tf.strings.as_string(x * 2)))
            ),
            "none",
        ),
        np.array([3, 0, 7], np.int64),
    ),
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_tables_from_datasets_match_tf(name):
    make_table, keys = TABLES[name]
    theirs, ours = run_both(_table_script(make_table, keys))
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def test_table_vocab_size_past_the_dataset_fails_as_tf():
    def script(tf):
        tf.data.experimental.table_from_dataset(  # its initializer: TABLE_INITIALIZERS
            tf.data.Dataset.from_tensor_slices((["a"], [1])), vocab_size=3
        )

        def run(sess):
            try:
                sess.run(tf.tables_initializer())
            except tf.errors.OpError as e:
                return type(e).__name__
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs == "FailedPreconditionError"


def test_map_and_batch_with_legacy_function():
    _check(
        lambda tf: tf.data.Dataset.range(7).apply(
            tf.data.experimental.map_and_batch_with_legacy_function(
                lambda x: (x * 2, tf.cast(x, tf.float32) / 3), 3, drop_remainder=False
            )
        )
    )


TABLE_ERRORS = {
    "three_components": lambda tf: tf.data.experimental.table_from_dataset(
        tf.data.Dataset.from_tensors((1, 2, 3))
    ),
    "vector_values": lambda tf: tf.data.experimental.table_from_dataset(
        tf.data.Dataset.from_tensors((1, [2, 3]))
    ),
    "string_values_no_default": lambda tf: tf.data.experimental.table_from_dataset(
        tf.data.Dataset.from_tensors((1, "a"))
    ),
    "negative_oov": lambda tf: tf.data.experimental.table_from_dataset(
        tf.data.Dataset.from_tensors((1, 2)), num_oov_buckets=-1
    ),
    "zero_vocab": lambda tf: tf.data.experimental.table_from_dataset(
        tf.data.Dataset.from_tensors((1, 2)), vocab_size=0
    ),
    "float_key_dtype": lambda tf: tf.data.experimental.table_from_dataset(
        tf.data.Dataset.from_tensors((1, 2)), key_dtype=tf.float32
    ),
}


@pytest.mark.parametrize("name", sorted(TABLE_ERRORS))
def test_table_errors_match_tf(name):
    theirs, ours = _error(TABLE_ERRORS[name])
    assert theirs is not None and ours is not None
    assert ours == theirs


@pytest.mark.parametrize("rerandomize", [None, False, True])
def test_dataset_random_each_pass_and_each_initialization(rerandomize):
    def script(tf):
        ds = tf.data.Dataset.random(seed=3, rerandomize_each_iteration=rerandomize)
        it = tf.data.make_initializable_iterator(ds.take(3).repeat(2))
        element = it.get_next()

        def run(sess):
            out = []
            for _ in range(2):
                sess.run(it.initializer)
                out.append(_drain(tf, sess, element))
            return out

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


@pytest.mark.parametrize("rerandomize", [None, True])
def test_dataset_random_under_a_one_shot_iterator(rerandomize):
    """``rerandomize_each_iteration``'s seed generator is refused (TF's ValueError);
    without it the values go on (both drains stop at their limit)."""
    theirs, ours = _error(
        lambda tf: tf.data.Dataset.random(seed=1, rerandomize_each_iteration=rerandomize)
    )
    assert ours == theirs
