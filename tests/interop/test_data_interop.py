"""``tf.data`` pipelines under TF 2.21's ``compat.v1`` and under ``adapters.v1`` give the
same elements, the same static shapes and dtypes, and end at the same run."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import tensorflow as real_tf

from tests.interop.twin import assert_twins, run_both

X = np.arange(30, dtype=np.float32).reshape(10, 3) / 7.0
Y = np.arange(10, dtype=np.int64) % 3


def _drain(tf, sess, fetch, limit=500):
    """Fetches until OutOfRangeError: the values of the runs before it."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("no OutOfRangeError")


def _signature(element):
    """Static shapes and dtype names of get_next's tensors, nested as the element."""
    import jax

    return jax.tree.map(lambda t: (t.shape.as_list() if t.shape.rank is not None else None,
                                   t.dtype.name), element)  # fmt: skip


def _pipeline_script(build):
    """A script draining a one-shot iterator of ``build(tf)``'s dataset."""

    def script(tf):
        ds = build(tf)
        element = tf.data.make_one_shot_iterator(ds).get_next()
        sig = _signature(element)
        types = [d.name for d in _flat(tf.data.get_output_types(ds))]
        return lambda sess: {"sig": sig, "types": types, "values": _drain(tf, sess, element)}

    return script


def _flat(x):
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in _flat(x[k])]
    if isinstance(x, tuple):
        return [v for c in x for v in _flat(c)]
    return [x]


def _check(build, rtol=1e-6):
    theirs, ours = run_both(_pipeline_script(build))
    assert ours["sig"] == theirs["sig"]
    assert ours["types"] == theirs["types"]
    assert len(ours["values"]) == len(theirs["values"])  # the OutOfRangeError point
    assert_twins(theirs["values"], ours["values"], rtol=rtol)


PIPELINES = {
    "slices_tuple_batch": lambda tf: tf.data.Dataset.from_tensor_slices((X, Y)).batch(4),
    "slices_dict": lambda tf: tf.data.Dataset.from_tensor_slices({"x": X, "y": Y}),
    "slices_lists": lambda tf: tf.data.Dataset.from_tensor_slices(([1.5, 2.5, 3.5], [1, 2, 3])),
    "slices_constant": lambda tf: tf.data.Dataset.from_tensor_slices(tf.constant(X)).take(4),
    "from_tensors": lambda tf: tf.data.Dataset.from_tensors((X, Y)).repeat(3),
    "range": lambda tf: tf.data.Dataset.range(2, 20, 3),
    "range_batch_drop": lambda tf: tf.data.Dataset.range(10).batch(3, drop_remainder=True),
    "map_tuple": lambda tf: tf.data.Dataset.from_tensor_slices((X, Y)).map(
        lambda x, y: (tf.reduce_sum(x * 2.0) + 1.0, tf.one_hot(y, 3))
    ),
    "map_dict_to_list": lambda tf: tf.data.Dataset.from_tensor_slices({"x": X, "y": Y}).map(
        lambda d: [d["x"] / 3.0, tf.cast(d["y"], tf.float32)]
    ),
    "map_after_batch": lambda tf: (
        tf.data.Dataset.from_tensor_slices(X).batch(4).map(lambda b: tf.reduce_mean(b, axis=0))
    ),
    "filter": lambda tf: tf.data.Dataset.range(20).filter(lambda i: tf.equal(i % 3, 0)),
    "repeat_take_skip": lambda tf: tf.data.Dataset.range(5).repeat(3).skip(2).take(9),
    "repeat_batch": lambda tf: tf.data.Dataset.from_tensor_slices((X, Y)).batch(8).repeat(2),
    "concatenate": lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 12)),
    "zip": lambda tf: tf.data.Dataset.zip(
        (tf.data.Dataset.range(4), tf.data.Dataset.from_tensor_slices(X))
    ),
    "cache_prefetch": lambda tf: (
        tf.data.Dataset.from_tensor_slices(X).map(lambda x: x + 1.0).cache().repeat(2).prefetch(2)
    ),
    "padded_batch": lambda tf: (
        tf.data.Dataset.range(1, 6)
        .map(lambda n: tf.fill([n], n))
        .padded_batch(2, padded_shapes=[None])
    ),
    "padded_batch_fixed": lambda tf: (
        tf.data.Dataset.range(1, 5)
        .map(lambda n: tf.fill([n], tf.cast(n, tf.float32)))
        .padded_batch(3, padded_shapes=[6], padding_values=-1.0, drop_remainder=True)
    ),
    "strings": lambda tf: tf.data.Dataset.from_tensor_slices(["a", "bc", "def"]).batch(2),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_elements_shapes_and_end(name):
    _check(PIPELINES[name])


def test_shuffle_gives_each_element_once_per_epoch():
    def script(tf):
        ds = tf.data.Dataset.range(12).shuffle(5, seed=3).repeat(2)
        nxt = ds.make_one_shot_iterator().get_next()
        return lambda sess: _drain(tf, sess, nxt)

    theirs, ours = run_both(script)
    assert len(ours) == len(theirs) == 24
    for epoch in (slice(0, 12), slice(12, 24)):
        assert Counter(map(int, ours[epoch])) == Counter(map(int, theirs[epoch]))
    # The buffer bounds how far an element moves: the first element out is one of the
    # first buffer_size ones, as in TF.
    assert int(ours[0]) < 5 and int(theirs[0]) < 5


def test_initializable_iterator_with_fed_placeholders_restarts():
    def script(tf):
        features = tf.placeholder(tf.float32, [None, 3])
        labels = tf.placeholder(tf.int64, [None])
        ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(3)
        it = ds.make_initializable_iterator()
        x, y = it.get_next()
        total = tf.reduce_sum(x) + tf.cast(tf.reduce_sum(y), tf.float32)

        def run(sess):
            out = []
            for rows in (10, 4):
                sess.run(it.initializer, feed_dict={features: X[:rows], labels: Y[:rows]})
                out.append(_drain(tf, sess, total))
            sess.run(it.initializer, feed_dict={features: X, labels: Y})
            out.append(sess.run([x, y]))
            return {"values": out, "sig": _signature((x, y))}

        return run

    theirs, ours = run_both(script)
    assert ours["sig"] == theirs["sig"]
    assert_twins(theirs["values"], ours["values"])


def test_reinitializable_iterator_from_structure():
    def script(tf):
        train = tf.data.Dataset.from_tensor_slices(X).batch(4)
        valid = tf.data.Dataset.from_tensor_slices(X[:3] * 2.0).batch(4)
        it = tf.data.Iterator.from_structure(
            tf.data.get_output_types(train), tf.data.get_output_shapes(train)
        )
        nxt = it.get_next()
        init_train, init_valid = it.make_initializer(train), it.make_initializer(valid)

        def run(sess):
            sess.run(init_train)
            a = _drain(tf, sess, nxt)
            sess.run(init_valid)
            b = _drain(tf, sess, nxt)
            return a, b, nxt.shape.as_list()

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_uninitialized_iterator_raises_failed_precondition():
    def script(tf):
        it = tf.data.Dataset.range(3).make_initializable_iterator()
        nxt = it.get_next()

        def run(sess):
            try:
                sess.run(nxt)
            except tf.errors.FailedPreconditionError:
                return "FailedPrecondition"
            return "ran"

        return run

    theirs, ours = run_both(script)
    assert theirs == ours == "FailedPrecondition"


@pytest.fixture
def record_file(tmp_path):
    path = str(tmp_path / "data.tfrecord")
    with real_tf.io.TFRecordWriter(path) as w:
        for i in range(7):
            ex = real_tf.train.Example(
                features=real_tf.train.Features(
                    feature={
                        "x": real_tf.train.Feature(
                            float_list=real_tf.train.FloatList(value=X[i].tolist())
                        ),
                        "y": real_tf.train.Feature(
                            int64_list=real_tf.train.Int64List(value=[int(Y[i])])
                        ),
                    }
                )
            )
            w.write(ex.SerializeToString())
    return path


def test_tfrecord_dataset_parse_single_example(record_file):
    def build(tf):
        features = {
            "x": tf.FixedLenFeature([3], tf.float32),
            "y": tf.FixedLenFeature([], tf.int64),
        }
        return (
            tf.data.TFRecordDataset([record_file])
            .map(lambda r: tf.parse_single_example(r, features))
            .map(lambda d: (d["x"] * 2.0, d["y"]))
            .batch(3)
        )

    _check(build)


def test_tfrecord_records_as_strings(record_file):
    _check(lambda tf: tf.data.TFRecordDataset(record_file).take(3))


def test_training_loop_from_dataset_matches_tf():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(20, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)

    def script(tf):
        ds = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(8).repeat(2)
        x, y = ds.make_one_shot_iterator().get_next()
        w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(0.1))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

        def run(sess):
            losses = []
            while True:
                try:
                    losses.append(sess.run([train, loss])[1])
                except tf.errors.OutOfRangeError:
                    break
            return np.array(losses), sess.run(w)

        return run

    theirs, ours = run_both(script)
    assert len(ours[0]) == 6
    assert_twins(theirs, ours, rtol=1e-6)
