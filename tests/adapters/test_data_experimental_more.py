"""More ``tf.data.experimental`` without TF: the refusals, the atomic file writes and
the messages of the names left out (TF's values are checked live in
``tests/interop/test_data_experimental_more_interop.py``). Each test failed before
these names existed (the missing-name ``AttributeError``)."""

from __future__ import annotations

import os

import pytest

from adapters import v1 as tf

E = tf.data.experimental


def _drain(sess, fetch):
    out = []
    while True:
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out


def test_tfrecord_writer_replaces_the_file_only_when_complete(tmp_path):
    path = tmp_path / "out.tfrecord"
    path.write_bytes(b"old")
    with tf.Graph().as_default():
        good = E.TFRecordWriter(str(path)).write(tf.data.Dataset.from_tensor_slices([b"a", b"b"]))
        failing = tf.data.Dataset.from_tensor_slices([b"1", b"x"]).map(
            lambda s: tf.strings.as_string(tf.strings.to_number(s))  # b"x": an error
        )
        bad = E.TFRecordWriter(str(path)).write(failing)
        read = tf.data.make_initializable_iterator(tf.data.TFRecordDataset(str(path)))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(bad)
            assert path.read_bytes() == b"old"  # a failed write leaves the old file
            assert os.listdir(tmp_path) == ["out.tfrecord"]  # and no temporary file
            sess.run(good)
            sess.run(read.initializer)
            assert _drain(sess, read.get_next()) == [b"a", b"b"]
            assert os.listdir(tmp_path) == ["out.tfrecord"]


def test_tfrecord_writer_refuses_an_unknown_compression_when_run(tmp_path):
    with tf.Graph().as_default():
        op = E.TFRecordWriter(str(tmp_path / "x"), "LZ4").write(tf.data.Dataset.from_tensors(b"a"))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="LZ4"):
            sess.run(op)
    assert os.listdir(tmp_path) == []


def test_optional_of_an_initializable_iterator_needs_its_initializer():
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(tf.data.Dataset.range(1))
        has = E.get_next_as_optional(it).has_value()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
                sess.run(has)
            sess.run(it.initializer)
            assert [sess.run(has), sess.run(has)] == [True, False]


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: E.get_next_as_optional(tf.data.Dataset.range(2)), AttributeError,
         "get_next_as_optional"),
        (lambda: E.Optional.empty([1, 2]), TypeError, "element_spec"),
        (lambda: E.from_list([1, 2.5]), TypeError, "component 0 is int32"),
        (lambda: E.from_list([(1, 2), 3]), ValueError, "same nested structure"),
        (lambda: E.get_structure([1]), TypeError, "dataset_or_iterator"),
        (lambda: E.enable_debug_mode(), ValueError, "only supported in eager mode"),
        (lambda: tf.data.Dataset.range(3).apply(E.group_by_reducer(
            lambda x: x,
            E.Reducer(lambda k: k, lambda s, x: tf.cast(s + x, tf.float32), lambda s: s))),
         TypeError, "new state must match"),
        (lambda: E.table_from_dataset(tf.data.Dataset.from_tensors((b"a", 1)), num_oov_buckets=2),
         NotImplementedError, "IdTableWithHashBuckets"),
    ],
)  # fmt: skip
def test_refusals(make, error, match):
    with tf.Graph().as_default(), pytest.raises(error, match=match):
        make()


def test_snapshot_writes_nothing(tmp_path):
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).apply(E.snapshot(str(tmp_path / "snap")))
        it = tf.data.make_one_shot_iterator(ds)
        with tf.Session() as sess:
            assert _drain(sess, it.get_next()) == [0, 1, 2]
    assert os.listdir(tmp_path) == []


def test_sql_dataset_reruns_its_query_each_pass(tmp_path):
    import sqlite3

    db = str(tmp_path / "db")
    with sqlite3.connect(db) as c:
        c.execute("create table t (a integer)")
        c.executemany("insert into t values (?)", [(3,), (1,)])
    c.close()
    with tf.Graph().as_default():
        ds = E.SqlDataset("sqlite", db, "select a from t order by a", (tf.int64,)).repeat(2)
        it = tf.data.make_one_shot_iterator(ds)
        with tf.Session() as sess:
            assert _drain(sess, it.get_next()) == [(1,), (3,), (1,), (3,)]


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("rejection_resample", "TF's seeded draws"),
        ("dense_to_ragged_batch", "elements are dense tensors"),
        ("make_saveable_from_iterator", "keep no state a Saver can write"),
        ("service", "tf.data service"),
        ("to_variant", "not variant tensors"),
        ("OptionalStructure", "Optional.element_spec"),
    ],
)
def test_names_left_out_say_why(name, hint):
    with pytest.raises(AttributeError, match=f"tf.data.experimental.{name} is not in adapters.v1"):
        getattr(E, name)
    with pytest.raises(AttributeError, match=hint):
        getattr(E, name)


def test_aliases_and_constants():
    assert E.SHARD_HINT == -1
    assert E.TensorStructure is tf.TensorSpec
    assert E.DatasetStructure is tf.data.DatasetSpec
