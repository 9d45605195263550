"""``tf.data`` beyond the basics, live against TF 2.21's ``compat.v1``: ``interleave``
(TF's deterministic order, TF's default cycle lengths), ``flat_map``,
``from_generator``, ``unbatch``, ``shard``, ``apply`` and ``tf.data.experimental``,
``list_files``, ``get_single_element`` and feedable iterators (``string_handle``)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

from tests.interop.test_data_interop import _check, _drain
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

SIZES = np.array([3, 0, 1, 4, 2, 5], np.int64)
X2 = np.arange(6, dtype=np.float32).reshape(3, 2) / 4.0  # uneven inner datasets, an empty one


def _inner(tf):
    return lambda n: tf.data.Dataset.range(n).map(lambda i: i + 10 * n)


def _sizes(tf):
    return tf.data.Dataset.from_tensor_slices(SIZES)


def _gen_pairs():
    for i in range(4):
        yield np.full([i % 3 + 1], i, np.int32), float(i) / 3.0


PIPELINES = {
    "interleave_cycle3_block2": lambda tf: _sizes(tf).interleave(
        _inner(tf), cycle_length=3, block_length=2
    ),
    "interleave_default_cycle": lambda tf: _sizes(tf).interleave(_inner(tf)),
    "interleave_autotune_calls": lambda tf: _sizes(tf).interleave(
        _inner(tf), num_parallel_calls=tf.data.experimental.AUTOTUNE
    ),
    "interleave_parallel_calls_cycle": lambda tf: _sizes(tf).interleave(
        _inner(tf), cycle_length=4, block_length=3, num_parallel_calls=2
    ),
    "parallel_interleave": lambda tf: _sizes(tf).apply(
        tf.data.experimental.parallel_interleave(_inner(tf), cycle_length=2, block_length=2)
    ),
    "interleave_tuple_elements": lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.arange(4, dtype=np.float32), np.array([2, 1, 3, 0], np.int64))
    ).interleave(lambda x, n: tf.data.Dataset.from_tensors((x * 2.0, n)).repeat(n), cycle_length=2),
    "flat_map_repeat": lambda tf: _sizes(tf).flat_map(
        lambda n: tf.data.Dataset.from_tensors(n).repeat(n)
    ),
    "flat_map_slices": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    ).flat_map(lambda m: tf.data.Dataset.from_tensor_slices(m * 0.5)),
    "from_generator_int": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([1, 2, 3]), tf.int64
    ),
    "from_generator_tuple_shapes": lambda tf: tf.data.Dataset.from_generator(
        _gen_pairs, (tf.int32, tf.float32), (tf.TensorShape([None]), tf.TensorShape([]))
    ).padded_batch(2, padded_shapes=([None], [])),
    "from_generator_dict_strings": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([{"s": "a", "n": [1.5, 2.5]}, {"s": b"bc", "n": [0.0, -1.0]}]),
        {"s": tf.string, "n": tf.float64},
        {"s": [], "n": [2]},
    ),
    "from_generator_args": lambda tf: tf.data.Dataset.from_generator(
        lambda n, s: iter([repr(type(n)), repr(n), repr(s)] * int(n)),
        tf.string,
        args=(2, "x"),
    ).repeat(2),
    "unbatch": lambda tf: tf.data.Dataset.range(7).batch(3).unbatch(),
    "unbatch_dict": lambda tf: tf.data.Dataset.from_tensors(
        {"a": np.arange(6, dtype=np.float32).reshape(3, 2), "b": np.arange(3)}
    ).unbatch(),
    "experimental_unbatch": lambda tf: (
        tf.data.Dataset.range(5).batch(2).apply(tf.data.experimental.unbatch())
    ),
    "shard": lambda tf: tf.data.Dataset.range(11).shard(3, 1),
    "map_and_batch": lambda tf: tf.data.Dataset.range(7).apply(
        tf.data.experimental.map_and_batch(
            lambda i: tf.cast(i, tf.float32) * 1.5, 3, drop_remainder=True
        )
    ),
    "map_prefetch_autotune": lambda tf: (
        tf.data.Dataset.range(5)
        .map(lambda i: i * 2, num_parallel_calls=tf.data.experimental.AUTOTUNE)
        .prefetch(tf.data.experimental.AUTOTUNE)
    ),
    "prefetch_to_device": lambda tf: (
        tf.data.Dataset.range(4).batch(2).apply(tf.data.experimental.prefetch_to_device("/cpu:0"))
    ),
    "copy_to_device": lambda tf: tf.data.Dataset.range(3).apply(
        tf.data.experimental.copy_to_device("/cpu:0")
    ),
    "enumerate": lambda tf: tf.data.Dataset.from_tensor_slices(X2).enumerate(start=5),
    "enumerate_dataset": lambda tf: tf.data.Dataset.range(3).apply(
        tf.data.experimental.enumerate_dataset()
    ),
    "take_while": lambda tf: tf.data.Dataset.range(10).take_while(lambda i: i * i < 20),
    "experimental_take_while": lambda tf: tf.data.Dataset.range(10).apply(
        tf.data.experimental.take_while(lambda i: i < 3)
    ),
    "ignore_errors_method": lambda tf: _inverse(tf, [1.0, 0.0, 4.0]).ignore_errors(),
    "legacy_function_map_filter": lambda tf: (
        tf.data.Dataset.range(6)
        .map_with_legacy_function(lambda i: i * 3)
        .filter_with_legacy_function(lambda i: i % 2 > 0)
    ),
    "shuffle_and_repeat_one": lambda tf: tf.data.Dataset.range(1).apply(
        tf.data.experimental.shuffle_and_repeat(4, count=3, seed=1)
    ),
    "ignore_errors_map": lambda tf: (
        tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0, 0.0, 4.0])
        .map(lambda x: tf.debugging.check_numerics(1.0 / x, "bad"))
        .apply(tf.data.experimental.ignore_errors())
    ),
    "ignore_errors_after_batch": lambda tf: (
        tf.data.Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0, 5.0, 8.0, 0.0])
        .map(lambda x: tf.debugging.check_numerics(1.0 / x, "bad"))
        .batch(2)
        .apply(tf.data.experimental.ignore_errors())
    ),
    "ignore_errors_generator": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([1, 2.7, "x", 4]), tf.int64
    ).apply(tf.data.experimental.ignore_errors()),
    "ignore_errors_string_elements": lambda tf: (
        tf.data.Dataset.from_tensor_slices((["a", "b", "c"], [1.0, 0.0, 2.0]))
        .map(lambda s, x: (s, tf.debugging.check_numerics(1.0 / x, "bad")))
        .apply(tf.data.experimental.ignore_errors())
    ),
    "interleave_generators_with_element_args": lambda tf: tf.data.Dataset.range(1, 4).interleave(
        lambda n: tf.data.Dataset.from_generator(
            lambda k: iter(range(int(k) * 10, int(k) * 10 + int(k))), tf.int64, [], args=(n,)
        ),
        cycle_length=2,
    ),
    "generator_numpy_conversion": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([[1.0, 2.7], [3, 4]]), tf.int64, [2]
    ),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_elements_shapes_and_end(name):
    _check(PIPELINES[name])


@pytest.fixture
def record_files(tmp_path):
    paths = []
    for f, n in enumerate([3, 1, 4]):
        path = str(tmp_path / f"part-{f}.tfrecord")
        with real_tf.io.TFRecordWriter(path) as w:
            for i in range(n):
                w.write(f"file{f}-rec{i}".encode())
        paths.append(path)
    return tmp_path, paths


def test_list_files_unshuffled_interleave_records(record_files):
    folder, _ = record_files
    pattern = str(folder / "part-*.tfrecord")
    _check(lambda tf: tf.data.Dataset.list_files(pattern, shuffle=False))
    _check(
        lambda tf: tf.data.Dataset.list_files(pattern, shuffle=False).interleave(
            tf.data.TFRecordDataset, cycle_length=2, block_length=2
        )
    )


def test_list_files_shuffled_lists_each_file_once_per_epoch(record_files):
    folder, paths = record_files

    def script(tf):
        ds = tf.data.Dataset.list_files(str(folder / "*.tfrecord"), seed=4).repeat(2)
        nxt = ds.make_one_shot_iterator().get_next()
        return lambda sess: _drain(tf, sess, nxt)

    theirs, ours = run_both(script)
    want = sorted(p.encode() for p in paths)
    for names in (theirs, ours):
        assert len(names) == 6
        assert sorted(names[:3]) == sorted(names[3:]) == want


def test_from_generator_bad_element_raises_invalid_argument_at_get_next():
    def gen():
        yield [1, 2]
        yield [1, 2, 3]

    def script(tf):
        ds = tf.data.Dataset.from_generator(gen, tf.int32, tf.TensorShape([2]))
        nxt = ds.make_one_shot_iterator().get_next()

        def run(sess):
            first = sess.run(nxt)
            try:
                sess.run(nxt)
            except tf.errors.InvalidArgumentError as e:
                return first, "yielded an element of shape (3,)" in str(e), nxt.shape.as_list()
            return first, "no error", None

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    assert ours[1] is True


def test_from_generator_restarts_on_reinitialization():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    def script(tf):
        it = tf.data.Dataset.from_generator(gen, tf.int64).make_initializable_iterator()
        nxt = it.get_next()

        def run(sess):
            out = []
            for _ in range(2):
                sess.run(it.initializer)
                out.append(sess.run(nxt))
                out.append(sess.run(nxt))
            sess.run(it.initializer)
            out.extend(_drain(tf, sess, nxt))
            return out

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    assert len(calls) == 6  # three initializations each, in TF and in jtrain


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.data.Dataset.range(5).shard(2, 2),
        lambda tf: tf.data.Dataset.range(5).shard(0, 0),
        lambda tf: tf.data.experimental.get_single_element(tf.data.Dataset.range(0)),
        lambda tf: tf.data.experimental.get_single_element(tf.data.Dataset.range(2)),
        lambda tf: tf.data.Dataset.range(3, 3).get_single_element(),
    ],
    ids=["shard_index", "shard_zero", "single_empty", "single_two", "method_empty"],
)
def test_run_time_errors_are_invalid_argument(build):
    def script(tf):
        made = build(tf)
        fetch = (
            made
            if not hasattr(made, "make_one_shot_iterator")
            else (made.make_one_shot_iterator().get_next())
        )

        def run(sess):
            try:
                sess.run(fetch)
            except tf.errors.InvalidArgumentError:
                return "InvalidArgument"
            return "ran"

        return run

    theirs, ours = run_both(script)
    assert theirs == ours == "InvalidArgument"


def test_get_single_element_value():
    def script(tf):
        t = tf.data.experimental.get_single_element(
            tf.data.Dataset.from_tensors((np.float32(2.5), np.arange(3))).map(
                lambda a, b: (a * 2, b)
            )
        )
        return lambda sess: (sess.run(t), [x.shape.as_list() for x in t])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


@pytest.mark.parametrize(
    "build, error",
    [
        (lambda tf: tf.data.Dataset.from_tensors((np.zeros(2), np.zeros(3))).unbatch(), ValueError),
        (lambda tf: tf.data.Dataset.range(3).apply(lambda d: 3), TypeError),
        (lambda tf: tf.data.Dataset.from_generator(3, tf.int64), TypeError),
        (lambda tf: tf.data.Dataset.from_generator(lambda: iter([1])), TypeError),
        (
            lambda tf: tf.data.experimental.map_and_batch(
                lambda x: x, 2, num_parallel_batches=1, num_parallel_calls=1
            ),
            ValueError,
        ),
    ],
    ids=[
        "unbatch_dims",
        "apply_not_dataset",
        "gen_not_callable",
        "gen_no_types",
        "map_and_batch_both",
    ],  # fmt: skip
)
def test_build_errors_have_tfs_classes(build, error):
    for tf in (real_tf.compat.v1, __import__("adapters.v1", fromlist=["v1"])):
        with tf.Graph().as_default(), pytest.raises(error):
            build(tf)


def test_feedable_iterator_switches_train_and_validation():
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(12, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)

    def script(tf):
        train = tf.data.Dataset.from_tensor_slices((xs[:8], ys[:8])).batch(4).repeat()
        valid = tf.data.Dataset.from_tensor_slices((xs[8:], ys[8:])).batch(4)
        handle = tf.placeholder(tf.string, shape=[])
        it = tf.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
        x, y = it.get_next()
        w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(0.1))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        train_it = train.make_one_shot_iterator()
        valid_it = valid.make_initializable_iterator()

        def run(sess):
            train_handle, valid_handle = sess.run([train_it.string_handle(),
                                                   valid_it.string_handle()])  # fmt: skip
            out = []
            for _ in range(2):
                out.append([sess.run([step, loss], {handle: train_handle})[1] for _ in range(3)])
                sess.run(valid_it.initializer)
                vals = []
                while True:
                    try:
                        vals.append(sess.run(loss, {handle: valid_handle}))
                    except tf.errors.OutOfRangeError:
                        break
                out.append(vals)
            return out, x.shape.as_list(), isinstance(train_handle, bytes)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6)
    assert [len(v) for v in ours[0]] == [3, 1, 3, 1] and ours[2] is True


def test_check_in_a_map_function_raises_invalid_argument():
    def script(tf):
        ds = tf.data.Dataset.from_tensor_slices((["a", "b"], [1.0, 0.0])).map(
            lambda s, x: (s, tf.debugging.check_numerics(1.0 / x, "bad"))
        )
        nxt = ds.make_one_shot_iterator().get_next()

        def run(sess):
            first = sess.run(nxt)
            try:
                sess.run(nxt)
            except tf.errors.InvalidArgumentError as e:
                return first, "bad : Tensor had Inf values" in str(e)
            return first, "ran"

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    assert ours[1] is True


REDUCTIONS = {
    "count": lambda tf: tf.data.Dataset.range(5).reduce(np.int64(0), lambda n, _: n + 1),
    "sum_python_int": lambda tf: tf.data.Dataset.range(4).reduce(
        0, lambda n, i: n + tf.cast(i, tf.int32) * 2
    ),
    "tuple_state_tuple_elements": lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.arange(6, dtype=np.float32).reshape(3, 2), np.array([1, 2, 3], np.int64))
    ).reduce(
        (np.zeros(2, np.float32), np.int64(0)),
        lambda s, e: (s[0] + e[0] * 0.5, s[1] + e[1]),
    ),
    "growing_state_shape": lambda tf: tf.data.Dataset.range(3).reduce(
        np.zeros([0], np.int64), lambda s, i: tf.concat([s, tf.reshape(i, [1])], 0)
    ),
    "empty_dataset": lambda tf: tf.data.Dataset.range(0).reduce(np.float32(1.5), lambda s, i: s),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduce_values_dtypes_and_static_shapes(name):
    import jax

    def script(tf):
        state = REDUCTIONS[name](tf)
        shapes = jax.tree.map(
            lambda t: t.shape.as_list() if t.shape.rank is not None else None, state
        )
        return lambda sess: (sess.run(state), sess.run(state), shapes)

    theirs, ours = run_both(script)
    assert ours[2] == theirs[2]
    assert_twins(theirs[:2], ours[:2])


def test_reduce_with_new_state_of_another_dtype_is_a_type_error():
    for tf in (real_tf.compat.v1, __import__("adapters.v1", fromlist=["v1"])):
        with tf.Graph().as_default(), pytest.raises(TypeError):
            tf.data.Dataset.range(3).reduce(np.int32(0), lambda s, i: s + i)


def _drain_with_errors(tf, sess, fetch, limit=50):
    """Fetches until OutOfRangeError; a run's error class name in place of its value."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out
        except tf.errors.OpError as e:
            out.append(type(e).__name__)
    raise AssertionError("no OutOfRangeError")


def _inverse(tf, values):
    return tf.data.Dataset.from_tensor_slices(values).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "bad")
    )


FAILING = {
    "generator_goes_on": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([1, 2.7, "x", 4]), tf.int64
    ),
    "map_goes_on": lambda tf: _inverse(tf, [1.0, 0.0, 2.0]),
    "take_counts_good_elements": lambda tf: _inverse(tf, [1.0, 0.0, 2.0, 4.0]).take(2),
    "batch_loses_the_partial_batch": lambda tf: _inverse(
        tf, [1.0, 2.0, 0.0, 4.0, 5.0, 8.0, 0.0, 10.0]
    ).batch(2),
    "batch_of_generator_loses_the_partial_batch": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([1, "x", 3, 4, 5, 6, "y"]), tf.int64
    ).batch(2),
    "padded_batch_then_unbatch": lambda tf: (
        _inverse(tf, [1.0, 0.0, 2.0, 4.0, 8.0]).padded_batch(2, padded_shapes=[]).unbatch()
    ),
    "interleave_reads_the_slot_again": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.array([[1.0, 0.0, 2.0], [4.0, 5.0, 0.0], [8.0, 0.0, 10.0]], np.float32)
    ).interleave(lambda row: _inverse(tf, row), cycle_length=2, block_length=2),
    "concatenate": lambda tf: _inverse(tf, [1.0, 0.0]).concatenate(_inverse(tf, [0.0, 2.0])),
    "repeat_filter_prefetch": lambda tf: (
        _inverse(tf, [1.0, 0.0, 2.0, 4.0]).filter(lambda x: x > 0.3).repeat(2).prefetch(1)
    ),
}


@pytest.mark.parametrize("name", sorted(FAILING))
def test_pipeline_goes_on_after_an_elements_error(name):
    def script(tf):
        nxt = FAILING[name](tf).make_one_shot_iterator().get_next()
        return lambda sess: _drain_with_errors(tf, sess, nxt)

    theirs, ours = run_both(script)
    errors_at = [i for i, v in enumerate(theirs) if isinstance(v, str)]
    assert errors_at and [i for i, v in enumerate(ours) if isinstance(v, str)] == errors_at
    assert [ours[i] for i in errors_at] == [theirs[i] for i in errors_at]
    keep = [i for i in range(len(theirs)) if i not in errors_at]
    assert_twins([theirs[i] for i in keep], [ours[i] for i in keep])


def test_ignore_errors_drops_records_that_do_not_parse(tmp_path):
    path = str(tmp_path / "mixed.tfrecord")
    with real_tf.io.TFRecordWriter(path) as w:
        for i in range(5):
            if i % 2:
                w.write(b"not an Example")
                continue
            feature = real_tf.train.Feature(int64_list=real_tf.train.Int64List(value=[i]))
            ex = real_tf.train.Example(features=real_tf.train.Features(feature={"y": feature}))
            w.write(ex.SerializeToString())

    def build(tf):
        spec = {"y": tf.FixedLenFeature([], tf.int64)}
        return (
            tf.data.TFRecordDataset(path)
            .map(lambda r: tf.parse_single_example(r, spec)["y"])
            .apply(tf.data.experimental.ignore_errors())
        )

    _check(build)
