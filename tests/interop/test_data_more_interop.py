"""More ``tf.data`` under TF 2.21's ``compat.v1`` and under ``adapters.v1``: ``Options``,
``window``, ``scan``, ``group_by_window``, ``bucket_by_sequence_length``,
``sample_from_datasets``/``choose_from_datasets``: the same elements, static shapes,
dtypes, end of input and errors."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.test_data_interop import _drain, _flat, _signature
from tests.interop.twin import assert_twins, run_both, run_once

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1


def _drain_to_end(tf, sess, fetch, limit=200):
    """The values fetched until an error, and that error's class name."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OpError as e:
            return out, type(e).__name__
    raise AssertionError("no end")


def _script(build):
    def script(tf):
        ds = build(tf)
        element = tf.data.make_one_shot_iterator(ds).get_next()
        sig = _signature(element)
        types = [d.name for d in _flat(tf.data.get_output_types(ds))]

        def run(sess):
            values, end = _drain_to_end(tf, sess, element)
            return {"sig": sig, "types": types, "values": values, "end": end}

        return run

    return script


def _check(build):
    theirs, ours = run_both(_script(build))
    assert ours["sig"] == theirs["sig"]
    assert ours["types"] == theirs["types"]
    assert ours["end"] == theirs["end"]  # OutOfRangeError, or the error TF ends with
    assert len(ours["values"]) == len(theirs["values"])  # where it ends
    assert_twins(theirs["values"], ours["values"])


def _error(build):
    """``(class name, message)`` of the error the pipeline raises, building or running."""

    def script(tf):
        try:
            ds = build(tf)
            element = tf.data.make_one_shot_iterator(ds).get_next()
        except Exception as e:  # noqa: BLE001 (the error is the result)
            found = (type(e).__name__, str(e))
            return lambda sess: found

        def run(sess):
            try:
                _drain(tf, sess, element)
            except Exception as e:  # noqa: BLE001
                return type(e).__name__, str(e)
            return None

        return run

    return run_both(script)


def _window(size, shift=None, stride=1, drop=False):
    return lambda tf: (
        tf.data.Dataset.range(7).window(size, shift, stride, drop).flat_map(lambda w: w.batch(10))
    )


def _sequences(tf, lengths=(1, 5, 2, 7, 3, 3, 8, 1, 4)):
    """Sequences of ones (of ``lengths``), their last element their length."""
    return tf.data.Dataset.from_generator(
        lambda: (list(range(1, n)) + [n] for n in lengths), tf.int32, [None]
    )


def _bucket(**kw):
    return lambda tf: _sequences(tf).bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 6], [2, 2, 3], **kw
    )


PIPELINES = {
    # -- window -----------------------------------------------------------------------
    "window_size": _window(3),
    "window_shift": _window(3, 2),
    "window_stride": _window(3, 2, 2),
    "window_drop": _window(3, 1, 1, True),
    "window_gap": _window(2, 5),
    "window_stride_drop": _window(3, 4, 2, True),
    "window_tuple_zip": lambda tf: (
        tf.data.Dataset.from_tensor_slices(([1, 2, 3], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        .window(2)
        .flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2))))
    ),
    "window_batch_drop_static": lambda tf: (
        tf.data.Dataset.range(5)
        .window(2)
        .flat_map(lambda w: w.map(lambda x: x * 2).batch(2, drop_remainder=True))
    ),
    "window_interleave": lambda tf: (
        tf.data.Dataset.range(5).window(2).interleave(lambda w: w, cycle_length=2)
    ),
    "window_dict": lambda tf: (
        tf.data.Dataset.from_tensor_slices({"a": np.arange(5.0), "b": np.arange(5) % 2})
        .window(3, 1, drop_remainder=True)
        .flat_map(lambda d: tf.data.Dataset.zip((d["a"].batch(3), d["b"].batch(3))))
    ),
    # -- scan -------------------------------------------------------------------------
    "scan_cumsum": lambda tf: tf.data.Dataset.range(6).scan(
        tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10 + x)
    ),
    "scan_tuple_state_nested_output": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.arange(8.0, dtype=np.float32).reshape(4, 2)
    ).scan(
        (0.0, tf.constant(1, tf.int32)),
        lambda s, x: ((s[0] + tf.reduce_sum(x), s[1] * 2), {"v": x * s[0], "n": s[1]}),
    ),
    "scan_growing_state_relaxed": lambda tf: tf.data.Dataset.range(4).scan(
        tf.zeros([0], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), tf.size(s))
    ),
    "scan_state_shape_output": lambda tf: (
        tf.data.Dataset.range(4)
        .scan(tf.zeros([0], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), s))
        .padded_batch(4, padded_shapes=[None])
    ),
    "scan_repeat_restarts": lambda tf: (
        tf.data.Dataset.range(3).scan(np.int64(5), lambda s, x: (s + x, s)).repeat(2)
    ),
    "experimental_scan": lambda tf: tf.data.Dataset.range(5).apply(
        tf.data.experimental.scan(
            np.float32(1.0), lambda s, x: (s * 2.0, s + tf.cast(x, tf.float32))
        )
    ),
    # -- group_by_window ------------------------------------------------------------
    "group_by_window_keys_and_end_flush": lambda tf: tf.data.Dataset.range(10).group_by_window(
        lambda x: x % 3 - 1, lambda k, w: w.batch(10).map(lambda b: (k, b)), 2
    ),
    "group_by_window_flush_by_increasing_key": lambda tf: tf.data.Dataset.range(11).group_by_window(
        lambda x: 7 - x % 4 * 2, lambda k, w: w.batch(10).map(lambda b: (k, b)), 4
    ),
    "group_by_window_size_func": lambda tf: tf.data.Dataset.range(12).group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(10), window_size_func=lambda k: k + 1
    ),
    "group_by_window_static_batch": lambda tf: tf.data.Dataset.range(10).group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(2, drop_remainder=True), 2
    ),
    "group_by_window_tuple": lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.arange(6), np.arange(6.0) * 2)
    ).group_by_window(lambda a, b: a % 2, lambda k, w: w.batch(2), 2),
    "experimental_group_by_window": lambda tf: tf.data.Dataset.range(7).apply(
        tf.data.experimental.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), 3)
    ),
    "group_by_window_padded": lambda tf: (
        tf.data.Dataset.range(1, 8)
        .map(lambda n: tf.fill([n], n))
        .group_by_window(
            lambda v: tf.size(v, out_type=tf.int64) % 2, lambda k, w: w.padded_batch(2, [None]), 3
        )
    ),
    # -- bucket_by_sequence_length ---------------------------------------------------
    "bucket_default": _bucket(),
    "bucket_to_boundary_last_bucket_error": _bucket(pad_to_bucket_boundary=True),
    "bucket_drop_remainder": _bucket(drop_remainder=True),
    "bucket_padding_values": _bucket(padding_values=-1),
    "bucket_padded_shapes": _bucket(padded_shapes=[9]),
    "bucket_to_boundary": lambda tf: _sequences(tf).bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 9], [2, 2, 3], pad_to_bucket_boundary=True
    ),
    "bucket_no_padding_same_lengths": lambda tf: _sequences(
        tf, [2, 1, 2, 4, 1, 4, 2]
    ).bucket_by_sequence_length(lambda x: tf.shape(x)[0], [2], [2, 3], no_padding=True),
    "bucket_tuple_experimental": lambda tf: tf.data.Dataset.zip(
        (_sequences(tf), tf.data.Dataset.range(100))
    ).apply(
        tf.data.experimental.bucket_by_sequence_length(
            lambda s, i: tf.size(s), [4], [3, 2], padded_shapes=([None], [])
        )
    ),
    # -- choose_from_datasets / sample_from_datasets ----------------------------------
    "choose_stop_on_empty": lambda tf: tf.data.Dataset.choose_from_datasets(
        _three(tf), tf.data.Dataset.from_tensor_slices(CHOICES)
    ),
    "choose_skip_empty": lambda tf: tf.data.Dataset.choose_from_datasets(
        _three(tf), tf.data.Dataset.from_tensor_slices(CHOICES), stop_on_empty_dataset=False
    ),
    "choose_experimental": lambda tf: tf.data.experimental.choose_from_datasets(
        _three(tf), tf.data.Dataset.from_tensor_slices(CHOICES)
    ),
    "choose_out_of_range": lambda tf: tf.data.Dataset.choose_from_datasets(
        _three(tf), tf.data.Dataset.from_tensor_slices(np.array([0, 3], np.int64))
    ),
    "choose_negative": lambda tf: tf.data.Dataset.choose_from_datasets(
        _three(tf), tf.data.Dataset.from_tensor_slices(np.array([1, -1], np.int64))
    ),
    "choose_relaxed_shapes_dicts": lambda tf: tf.data.Dataset.choose_from_datasets(
        [
            tf.data.Dataset.from_tensors({"a": [1, 2]}).repeat(2),
            tf.data.Dataset.from_tensors({"a": [1, 2, 3]}),
        ],
        tf.data.Dataset.from_tensor_slices(np.array([0, 1, 0, 1], np.int64)),
    ),
    "sample_zero_weight_left_out": lambda tf: tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)], [0.0, 1.0]
    ),
    "sample_one_dataset": lambda tf: tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(4)], seed=3
    ),
    # -- unique / counter ---------------------------------------------------------------
    "unique": lambda tf: tf.data.Dataset.from_tensor_slices([3, 1, 3, 2, 1, 5]).unique(),
    "unique_strings_experimental": lambda tf: tf.data.Dataset.from_tensor_slices(
        ["a", "b", "a", "c", "b"]
    ).apply(tf.data.experimental.unique()),
    "unique_vectors": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.array([[1, 2], [1, 2], [2, 1]], np.int64)
    ).unique(),
    "unique_multi_component_error": lambda tf: tf.data.Dataset.from_tensor_slices(
        ([1], [2])
    ).unique(),
    "counter": lambda tf: tf.data.Dataset.counter(start=3, step=2).take(4),
    "counter_int32_negative_step": lambda tf: tf.data.Dataset.counter(5, -3, tf.int32).take(3),
    "experimental_counter": lambda tf: tf.data.experimental.Counter(2).take(3),
}

CHOICES = np.array([0, 1, 2, 1, 1, 0, 0, 0, 2, 1], np.int64)


def _three(tf):
    return [
        tf.data.Dataset.range(0, 3),
        tf.data.Dataset.range(10, 12),
        tf.data.Dataset.range(20, 25),
    ]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline(name):
    _check(PIPELINES[name])


@pytest.mark.parametrize(
    "kwargs", [{"size": 0}, {"size": 2, "shift": 0}, {"size": 2, "stride": 0}, {"size": -1}]
)
def test_window_bad_arguments_raise_invalid_argument_at_get_next(kwargs):
    theirs, ours = _error(
        lambda tf: tf.data.Dataset.range(3).window(**kwargs).flat_map(lambda w: w)
    )
    assert theirs is not None and ours is not None
    assert ours[0] == theirs[0] == "InvalidArgumentError"
    assert ours[1] in theirs[1]


def test_window_output_types_are_dataset_specs():
    def script(tf):
        ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        w = ds.window(2)
        types = tf.data.get_output_types(w)
        shapes = tf.data.get_output_shapes(w)
        classes = tf.data.get_output_classes(w)
        out = [repr(types), repr(shapes), repr(classes), types == shapes == classes]
        return lambda sess: out

    theirs, ours = run_both(script)
    assert ours == theirs


def test_window_read_by_map_or_iterator_raises_not_implemented():
    ds = jtf.data.Dataset.range(3).window(2)
    with pytest.raises(NotImplementedError, match="flat_map or interleave"):
        ds.map(lambda w: w)
    with pytest.raises(NotImplementedError, match="flat_map or interleave"):
        ds.make_one_shot_iterator().get_next()


@pytest.mark.parametrize(
    "scan_func",
    [
        lambda tf: lambda s, x: s + x,  # not a pair
        lambda tf: lambda s, x: (tf.cast(s, tf.float32), x),  # the state's dtype changes
    ],
)
def test_scan_bad_function_raises_type_error(scan_func):
    theirs, ours = _error(
        lambda tf: tf.data.Dataset.range(3).scan(tf.constant(0, tf.int64), scan_func(tf))
    )
    assert ours[0] == theirs[0] == "TypeError"
    assert ours[1].split(". ")[:2] == theirs[1].split(". ")[:2]


def test_scan_initial_state_from_fed_placeholder():
    def script(tf):
        start = tf.placeholder(tf.int64, [])
        ds = tf.data.Dataset.range(4).scan(start, lambda s, x: (s + x, s))
        it = tf.data.make_initializable_iterator(ds)
        nxt = it.get_next()

        def run(sess):
            out = []
            for v in (0, 100):
                sess.run(it.initializer, feed_dict={start: v})
                out.append(_drain(tf, sess, nxt))
            return out

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


# -- Options ------------------------------------------------------------------------------
def _options_script(tf):
    o = tf.data.Options()
    o.deterministic = False
    o.threading.private_threadpool_size = 4
    o.experimental_optimization.map_fusion = True
    o.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    o2 = tf.data.Options()
    o2.experimental_deterministic = True
    o2.threading.max_intra_op_parallelism = 1
    base = tf.data.Dataset.range(6).with_options(o)
    ds = base.map(lambda x: x * 2).with_options(o2)
    zipped = tf.data.Dataset.zip((base, tf.data.Dataset.range(3).with_options(o2)))
    got = ds.options()
    out = {
        "default_none": [
            tf.data.Options().deterministic,
            tf.data.Options().threading.private_threadpool_size,
        ],
        "default_policy": int(tf.data.Options().experimental_distribute.auto_shard_policy),
        "base": [base.options().deterministic, base.options().experimental_deterministic],
        "merged": [
            got.deterministic,
            got.threading.private_threadpool_size,
            got.threading.max_intra_op_parallelism,
            got.experimental_optimization.map_fusion,
            int(got.experimental_distribute.auto_shard_policy),
        ],
        "zip_merged": [
            zipped.options().deterministic,
            zipped.options().threading.private_threadpool_size,
        ],
        "plain_equal": tf.data.Dataset.range(2).options() == tf.data.Options(),
        "merge_method": o.merge(o2).deterministic,
        "equal": o == o,
        "unequal": o != o2,  # fmt: skip
        "alias_is": tf.data.Options().experimental_threading is not None,
    }
    errors = []
    for bad in (
        lambda: setattr(tf.data.Options(), "foo", 1),
        lambda: setattr(tf.data.Options(), "deterministic", 1),
        lambda: setattr(tf.data.ThreadingOptions(), "private_threadpool_size", "4"),
        lambda: setattr(got, "deterministic", True),
        lambda: setattr(got.threading, "private_threadpool_size", 2),
    ):
        try:
            bad()
            errors.append(None)
        except Exception as e:  # noqa: BLE001
            errors.append((type(e).__name__, str(e)))
    out["errors"] = errors
    element = tf.data.make_one_shot_iterator(ds).get_next()
    return lambda sess: {**out, "values": _drain(tf, sess, element)}


def test_options_stored_merged_and_read_back_as_tf():
    theirs, ours = run_both(_options_script)
    values_t, values_o = theirs.pop("values"), ours.pop("values")
    assert ours == theirs
    assert_twins(values_t, values_o)  # the elements are unchanged by the options


def test_options_types_and_experimental_names():
    def script(tf):
        ex = tf.data.experimental
        names = [
            type(tf.data.Options().threading).__name__,
            type(tf.data.Options().experimental_optimization).__name__,
            type(tf.data.Options().autotune).__name__,
            type(tf.data.Options().experimental_distribute).__name__,
            ex.ThreadingOptions is tf.data.ThreadingOptions,
            sorted(ex.AutoShardPolicy.__members__),
            sorted(ex.ExternalStatePolicy.__members__),
            sorted(ex.AutotuneAlgorithm.__members__),
            isinstance(ex.OptimizationOptions(), object),
            ex.ServiceOptions().pinned,
            type(tf.data.Options().experimental_service).__name__,
        ]
        return lambda sess: names

    theirs, ours = run_both(script)
    assert ours == theirs


def test_with_options_of_a_non_options_raises_attribute_error():
    def script(tf):
        try:
            tf.data.Dataset.range(2).with_options(3)
        except Exception as e:  # noqa: BLE001
            found = (type(e).__name__, str(e))
            return lambda sess: found
        return lambda sess: None

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0] == "AttributeError"
    assert ours[1].startswith(theirs[1])  # then says to give a tf.data.Options


def test_run_once_options_dataset_in_iterator():
    """A dataset with options runs as without them (jtrain's pipeline only)."""
    assert run_once(
        jtf, _script(lambda tf: tf.data.Dataset.range(3).with_options(tf.data.Options()))
    )["values"] == [0, 1, 2]


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.data.Dataset.range(3).group_by_window(lambda x: x, lambda k, w: w),
        lambda tf: tf.data.Dataset.range(3).group_by_window(
            lambda x: x, lambda k, w: w, 2, window_size_func=lambda k: k
        ),
        lambda tf: tf.data.Dataset.range(3).group_by_window(
            lambda x: tf.cast(x, tf.int32), lambda k, w: w, 2
        ),
        lambda tf: tf.data.Dataset.range(3).group_by_window(
            lambda x: tf.stack([x, x]), lambda k, w: w, 2
        ),
        lambda tf: tf.data.Dataset.range(3).group_by_window(lambda x: x, lambda k, w: k, 2),
        lambda tf: tf.data.Dataset.range(3).group_by_window(
            lambda x: 5 - x, lambda k, w: w.batch(9), window_size_func=lambda k: k - 4
        ),
        lambda tf: _sequences(tf).bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [3, 6], [2, 2]
        ),
        lambda tf: _sequences(tf).bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [3, 6], [2, 2, 3], no_padding=True
        ),
    ],
)
def test_grouping_errors_as_tf(build):
    theirs, ours = _error(build)
    assert ours is not None and theirs is not None
    assert ours[0] == theirs[0]
    # TF's run-time messages carry the graph's traceback around the kernel's message.
    assert ours[1] in theirs[1] or ours[1].split(":")[0] in theirs[1]


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.data.Dataset.choose_from_datasets([], tf.data.Dataset.range(2)),
        lambda tf: tf.data.Dataset.choose_from_datasets(_three(tf), [0, 1]),
        lambda tf: tf.data.Dataset.choose_from_datasets(
            _three(tf), tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.int32))
        ),
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.from_tensors(1.0)],
            tf.data.Dataset.range(2),
        ),
        lambda tf: tf.data.Dataset.sample_from_datasets(_three(tf), [0.5, 0.5]),
        lambda tf: tf.data.Dataset.sample_from_datasets(_three(tf), [1, 2, 3]),
        lambda tf: tf.data.Dataset.sample_from_datasets([]),
        lambda tf: tf.data.Dataset.sample_from_datasets(_three(tf), tf.constant([1.0, 2.0])),
    ],
)
def test_choose_and_sample_argument_errors_as_tf(build):
    theirs, ours = _error(build)
    assert ours == theirs


@pytest.mark.parametrize("stop", [False, True])
def test_sample_from_datasets_keeps_each_datasets_order_and_tfs_end(stop):
    """TF's draws are not reproduced (NumPy's): each dataset's elements come in its
    order; without stop_on_empty_dataset every element comes once, as in TF."""

    def script(tf):
        ds = tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(0, 5), tf.data.Dataset.range(10, 15)],
            [0.3, 0.7],
            seed=4,
            stop_on_empty_dataset=stop,
        )
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        return lambda sess: [int(v) for v in _drain(tf, sess, nxt)]

    theirs, ours = run_both(script)
    for got in (theirs, ours):
        assert [v for v in got if v < 10] == sorted(v for v in got if v < 10)
        assert [v for v in got if v >= 10] == sorted(v for v in got if v >= 10)
        if not stop:
            assert sorted(got) == [*range(5), *range(10, 15)]
        else:  # it ends when the first dataset to run out is drawn again
            assert len(got) < 10 and (got.count(4) or got.count(14))


def _sample_run(seed, weights, n, graph_seed=None):
    with jtf.Graph().as_default():
        if graph_seed is not None:
            jtf.set_random_seed(graph_seed)
        ds = jtf.data.Dataset.sample_from_datasets(
            [jtf.data.Dataset.from_tensors(np.int64(i)).repeat() for i in range(len(weights))],
            weights,
            seed=seed,
        ).take(n)
        nxt = ds.make_one_shot_iterator().get_next()
        with jtf.Session() as sess:
            return [int(v) for v in _drain(jtf, sess, nxt, limit=n + 1)]


def test_sample_from_datasets_distribution_and_determinism_per_seed():
    a = _sample_run(7, [0.2, 0.5, 0.3], 4000)
    assert a == _sample_run(7, [0.2, 0.5, 0.3], 4000)  # the same seed, the same draws
    assert a != _sample_run(8, [0.2, 0.5, 0.3], 4000)
    assert _sample_run(None, [0.5, 0.5], 50, graph_seed=1) == _sample_run(
        None, [0.5, 0.5], 50, graph_seed=1
    )
    freq = np.bincount(a, minlength=3) / len(a)
    # 4000 draws: a standard deviation of at most 0.008 per frequency.
    np.testing.assert_allclose(freq, [0.2, 0.5, 0.3], atol=0.035)


# -- CsvDataset -----------------------------------------------------------------------------
CSV_FILES = {
    "good.csv": b'a,b,c,d\n1,2.5,x,7\n3,,"y,z",8\n,4.5,"q""r",\n5,NA,w,9\n',
    "badint.csv": b"1,2\nabc,3\n 4 ,-5\n+6,7\n99999999999,1\n",
    "short.csv": b"1,2,3\n4,5\n6,7,8,9\n10,11,12",
    "badquote.csv": b'1,"ab"c,3\n',
    "unquoted.csv": b'1,a"b,3\n4,ok,6\n',
    "crlf.csv": b'1,2\r\n3,"multi\r\nline"\r\n5,6\r7,8',
    "floats.csv": b"1.5,1e3\n-inf,nan\n.5, 2 \n1.,x\n",
    "semi.csv": b"1;2\n3;4\n",
    "trailing.csv": b"1,2,\n",
}


@pytest.fixture(scope="module")
def csv_dir(tmp_path_factory):
    import gzip

    root = tmp_path_factory.mktemp("csv")
    for name, data in CSV_FILES.items():
        (root / name).write_bytes(data)
    (root / "good.csv.gz").write_bytes(gzip.compress(CSV_FILES["good.csv"]))
    return str(root)


def _csv_cases(d):
    return {
        "dtypes_required": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/good.csv", [tf.int32, tf.float32, tf.string, tf.int64], header=True
        ),
        "defaults_numpy_scalar_is_required": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/good.csv", [0, 0.0, "def", np.int64(-1)], header=True
        ),
        "na_value": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/good.csv",
            [-1, -1.0, "def", tf.constant(-1, tf.int64)],
            header=True,
            na_value="NA",
        ),
        "select_cols": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/good.csv", [-1, "def"], header=True, select_cols=[0, 2]
        ),
        "no_quotes_too_many": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/good.csv", ["a", "b", "c", "d"], use_quote_delim=False
        ),
        "gzip_float64": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/good.csv.gz",
            [tf.float64, tf.constant(0.5, tf.float64), "", 0],
            compression_type="GZIP",
            header=True,
            na_value="NA",
        ),
        "crlf_cr_quoted_newline": lambda tf: tf.data.experimental.CsvDataset(
            [f"{d}/crlf.csv", f"{d}/trailing.csv"], [0, "s"]
        ),
        "semicolon": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/semi.csv", [0, tf.int64], field_delim=";"
        ),
        "trailing_delimiter_empty_last_field": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/trailing.csv", [0, 0, 5]
        ),
        "select_cols_decreasing": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/semi.csv", [0, 0], select_cols=[1, 0]
        ),
        "select_cols_size": lambda tf: tf.data.experimental.CsvDataset(
            f"{d}/semi.csv", [0, 0, 0], select_cols=[0, 1]
        ),
        "missing_file": lambda tf: tf.data.experimental.CsvDataset(f"{d}/nofile.csv", [0, 0]),
        "then_map_batch": lambda tf: (
            tf.data.experimental.CsvDataset(f"{d}/good.csv", [0, 0.0, "", 0], header=True)
            .take(2)
            .map(lambda a, b, c, e: {"x": tf.cast(a, tf.float32) * b, "s": c})
            .batch(2)
        ),
    }


def _drain_with_errors(tf, sess, fetch, limit=12):
    """Every get_next until OutOfRangeError (at most ``limit``): values, and the error
    class and message of a failing one (TF goes on with the next record)."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out
        except tf.errors.OpError as e:
            out.append((type(e).__name__, _kernel_message(str(e))))
    return out


def _kernel_message(text):
    """The kernel's message in TF's (a graph-traceback-wrapped) error text."""
    lines = [
        line
        for line in text.split("\n")
        if line
        and not line.startswith((" ", "\t"))
        and not line.startswith(("Graph execution", "Detected at", "Node:"))
    ]
    return lines[0] if lines else text


CSV_NAMES = [
    "dtypes_required",
    "defaults_numpy_scalar_is_required",
    "na_value",
    "select_cols",
    "no_quotes_too_many",
    "gzip_float64",
    "crlf_cr_quoted_newline",
    "semicolon",
    "trailing_delimiter_empty_last_field",
    "select_cols_decreasing",
    "select_cols_size",
    "missing_file",
    "then_map_batch",
]


STOPPING = {"select_cols_decreasing", "select_cols_size", "missing_file"}


@pytest.mark.parametrize("name", CSV_NAMES)
def test_csv_dataset(csv_dir, name):
    build = _csv_cases(csv_dir)[name]

    def script(tf):
        ds = build(tf)
        element = tf.data.make_one_shot_iterator(ds).get_next()
        sig = _signature(element)
        return lambda sess: {"sig": sig, "values": _drain_with_errors(tf, sess, element)}

    theirs, ours = run_both(script)
    assert ours["sig"] == theirs["sig"]
    t_vals, o_vals = theirs["values"], ours["values"]
    if name in STOPPING:
        # TF repeats a setup error at every get_next; jtrain's pipeline stops at it and
        # says so (FailedPreconditionError) from the next one: the first is TF's.
        t_vals, o_vals = t_vals[:1], o_vals[:1]
    assert len(o_vals) == len(t_vals)
    for t, o in zip(t_vals, o_vals, strict=True):
        if isinstance(t, tuple) and t and isinstance(t[0], str):  # an error
            assert o == t
        else:
            assert_twins(t, o)


@pytest.mark.parametrize(
    "name, defaults",
    [
        ("badint.csv", lambda tf: [0, 0]),
        ("badint.csv", lambda tf: [tf.int64, 0]),
        ("short.csv", lambda tf: [0, 0, 0]),
        ("badquote.csv", lambda tf: [0, "x", 0]),
        ("unquoted.csv", lambda tf: [0, "x", 0]),
        ("floats.csv", lambda tf: [0.0, tf.float64]),
        ("trailing.csv", lambda tf: [0, 0, 7]),  # 7 is tf.string's enum: required
        ("trailing.csv", lambda tf: [np.float64(1.0), "int64", 4]),
    ],
)
def test_csv_bad_records_fail_and_the_next_goes_on(csv_dir, name, defaults):
    def script(tf):
        ds = tf.data.experimental.CsvDataset(f"{csv_dir}/{name}", defaults(tf))
        element = tf.data.make_one_shot_iterator(ds).get_next()
        return lambda sess: _drain_with_errors(tf, sess, element)

    theirs, ours = run_both(script)
    assert len(ours) == len(theirs)
    for t, o in zip(theirs, ours, strict=True):
        if isinstance(t[0], str):
            assert o == t
        else:
            assert_twins(t, o)


def test_csv_dataset_bad_dtype_raises_type_error():
    def script(tf):
        try:
            tf.data.experimental.CsvDataset("x.csv", [tf.bool, 0])
        except Exception as e:  # noqa: BLE001
            found = (type(e).__name__, str(e))
            return lambda sess: found
        return lambda sess: None

    theirs, ours = run_both(script)
    assert ours == theirs


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.data.Dataset.from_tensor_slices([1.0]).unique(),
        lambda tf: tf.data.Dataset.from_tensor_slices(np.array([1, 2], np.int16)).unique(),
        lambda tf: tf.data.Dataset.range(3).as_numpy_iterator(),
    ],
)
def test_unique_dtype_and_as_numpy_iterator_errors_as_tf(build):
    theirs, ours = _error(build)
    assert ours == theirs


# -- make_csv_dataset ------------------------------------------------------------------------
MAKE_CSV = {
    "a.csv": b'id,big,x,name,y\n1,5,0.5,"p,q",0\n2,99999999999,,r,1\n3,7,1e40,s,0\n',
    "b.csv": b"id,big,x,name,y\n4,8,2.5,t,1\n5,9,NA,u,0\n6,1,3,v,1\n7,2,4,w,0\n",
}


@pytest.fixture(scope="module")
def make_csv_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("make_csv")
    for name, data in MAKE_CSV.items():
        (root / name).write_bytes(data)
    return str(root)


def _make_csv_cases(d):
    mk = lambda tf, **kw: tf.data.experimental.make_csv_dataset(f"{d}/*.csv", **kw)  # noqa: E731
    return {
        "label_one_epoch": lambda tf: mk(
            tf, batch_size=3, label_name="y", num_epochs=1, shuffle=False
        ),
        "no_label_na_select_names": lambda tf: mk(
            tf,
            batch_size=2,
            num_epochs=1,
            shuffle=False,
            select_columns=["name", "id", "x"],
            na_value="NA",
        ),
        "select_indices_defaults": lambda tf: mk(
            tf,
            batch_size=4,
            num_epochs=2,
            shuffle=False,
            select_columns=[0, 4],
            column_defaults=[tf.int64, 0.0],
            label_name="y",
        ),
        "forever_drops_remainder": lambda tf: mk(
            tf, batch_size=3, shuffle=False, label_name="id"
        ).take(4),
        "parallel_reads": lambda tf: mk(
            tf, batch_size=2, num_epochs=1, shuffle=False, num_parallel_reads=2, label_name="y"
        ),
        "inference_rows_limited": lambda tf: mk(
            tf, batch_size=7, num_epochs=1, shuffle=False, num_rows_for_inference=1
        ),
        "shuffled_seeded": lambda tf: mk(
            tf, batch_size=2, num_epochs=2, shuffle_seed=5, shuffle_buffer_size=4, label_name="y"
        ),
        "list_of_patterns_names_given": lambda tf: tf.data.experimental.make_csv_dataset(
            [f"{d}/b.csv", f"{d}/a.csv"],
            batch_size=2,
            column_names=["i", "b", "x", "n", "y"],
            column_defaults=[0, tf.int64, "", "", 0],
            header=True,
            num_epochs=1,
            shuffle=False,
        ),
    }


MAKE_CSV_NAMES = [
    "label_one_epoch",
    "no_label_na_select_names",
    "select_indices_defaults",
    "forever_drops_remainder",
    "parallel_reads",
    "inference_rows_limited",
    "list_of_patterns_names_given",
    "shuffled_seeded",
]


@pytest.mark.parametrize("name", MAKE_CSV_NAMES)
def test_make_csv_dataset(make_csv_dir, name):
    build = _make_csv_cases(make_csv_dir)[name]

    def script(tf):
        ds = build(tf)
        element = tf.data.make_one_shot_iterator(ds).get_next()
        sig = _signature(element)
        return lambda sess: {"sig": sig, "values": _drain_with_errors(tf, sess, element)}

    theirs, ours = run_both(script)
    assert ours["sig"] == theirs["sig"]
    assert len(ours["values"]) == len(theirs["values"])
    for t, o in zip(theirs["values"], ours["values"], strict=True):
        if isinstance(t, tuple) and t and isinstance(t[0], str):
            assert o == t
        else:
            assert_twins(t, o)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"file_pattern": "/nonexistent/*.csv"},
        {"file_pattern": []},
        {"header": False},
        {"column_names": ["a", "a", "b", "c", "d"]},
        {"select_columns": ["zz"]},
        {"select_columns": [9]},
        {"select_columns": ["id", 0]},
        {"label_name": "zz"},
        {"select_columns": ["id"], "column_defaults": [0, 0]},
    ],
)
def test_make_csv_dataset_errors_as_tf(make_csv_dir, kwargs):
    kwargs = {"file_pattern": f"{make_csv_dir}/*.csv", **kwargs}
    theirs, ours = _error(
        lambda tf: tf.data.experimental.make_csv_dataset(batch_size=2, shuffle=False, **kwargs)
    )
    assert ours[0] == theirs[0] == "ValueError"
    assert ours[1] == theirs[1]


# -- cardinality ---------------------------------------------------------------------------
def _cardinality_cases(tf):
    d = tf.data.Dataset
    return {
        "slices": d.from_tensor_slices(np.arange(10)),
        "tensors": d.from_tensors([1, 2]),
        "range": d.range(3, 20, 4),
        "range_neg": d.range(5, 0, -2),
        "range_empty": d.range(5, 2),
        "batch": d.range(10).batch(3),
        "batch_drop": d.range(10).batch(3, True),
        "padded": d.range(10).padded_batch(4, padded_shapes=[]),
        "repeat3": d.range(4).repeat(3),
        "repeat_inf": d.range(4).repeat(),
        "repeat_empty_inf": d.range(0).repeat(),
        "take": d.range(10).take(3),
        "take_more": d.range(2).take(5),
        "take_inf": d.range(3).repeat().take(7),
        "take_all": d.range(5).take(-1),
        "skip": d.range(10).skip(3),
        "skip_all": d.range(10).skip(-1),
        "skip_inf": d.range(1).repeat().skip(4),
        "skip_more": d.range(2).skip(5),
        "filter": d.range(5).filter(lambda x: x > 1),
        "map_tf1_unknown": d.range(5).map(lambda x: x * 2),
        "shuffle": d.range(6).shuffle(3),
        "prefetch_cache": d.range(6).prefetch(1).cache(),
        "zip": d.zip((d.range(3), d.range(5))),
        "zip_inf": d.zip((d.range(3).repeat(), d.range(5))),
        "zip_unknown": d.zip((d.range(3).filter(lambda x: True), d.range(5))),
        "concat": d.range(3).concatenate(d.range(4)),
        "concat_inf": d.range(3).concatenate(d.range(4).repeat()),
        "shard": d.range(10).shard(3, 0),
        "shard2": d.range(10).shard(3, 2),
        "flat_map": d.range(3).flat_map(lambda x: d.range(x)),
        "unbatch": d.range(6).batch(2).unbatch(),
        "enumerate": d.range(4).enumerate(),
        "window": d.range(7).window(3, 2),
        "window_drop": d.range(7).window(3, 2, 1, True),
        "window_stride": d.range(7).window(3, 1, 2, True),
        "scan": d.range(4).scan(np.int64(0), lambda s, x: (s, x)),
        "unique": d.range(4).unique(),
        "counter": d.counter(),
        "group_by_window": d.range(4).group_by_window(lambda x: x, lambda k, w: w, 2),
        "options": d.range(3).with_options(tf.data.Options()),
        "shuffle_and_repeat": d.range(3).apply(tf.data.experimental.shuffle_and_repeat(2, 2)),
        "map_and_batch_preserves": d.range(10).apply(
            tf.data.experimental.map_and_batch(lambda x: x, 4)
        ),
    }


def test_cardinality_as_tf():
    def script(tf):
        cases = _cardinality_cases(tf)
        names = sorted(cases)
        p = tf.placeholder(tf.float32, [None])
        tensors = [tf.data.experimental.cardinality(cases[n]) for n in names]
        fed = tf.data.Dataset.from_tensor_slices(p).batch(4).cardinality()
        sig = [(t.dtype.name, t.shape.as_list()) for t in tensors]

        def run(sess):
            values = sess.run(tensors)
            return {
                "sig": sig,
                "values": dict(zip(names, [int(v) for v in values], strict=True)),
                "fed": [int(sess.run(fed, feed_dict={p: np.zeros(n)})) for n in (6, 8)],
            }

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.data.Dataset.range(3).filter(lambda x: x >= 0),
        lambda tf: tf.data.Dataset.range(8).filter(lambda x: x >= 0),
        lambda tf: tf.data.Dataset.range(5).filter(lambda x: x >= 0),
        lambda tf: tf.data.Dataset.range(1).filter(lambda x: x >= 0),
        lambda tf: tf.data.Dataset.range(2).repeat(),
        lambda tf: tf.data.Dataset.range(2),
    ],
)
@pytest.mark.parametrize("expected", [5, 1, -1])
def test_assert_cardinality_as_tf(build, expected):
    def script(tf):
        ds = build(tf).apply(tf.data.experimental.assert_cardinality(expected)).take(9)
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        count = tf.data.experimental.cardinality(ds)
        return lambda sess: {"n": int(sess.run(count)), "values": _drain_with_errors(tf, sess, nxt)}

    theirs, ours = run_both(script)
    assert ours["n"] == theirs["n"]
    assert_twins(
        [v for v in theirs["values"] if not isinstance(v, tuple)],
        [v for v in ours["values"] if not isinstance(v, tuple)],
    )
    assert [v for v in ours["values"] if isinstance(v, tuple)] == [
        v for v in theirs["values"] if isinstance(v, tuple)
    ]


# -- make_batched_features_dataset / parse_example_dataset ----------------------------------
@pytest.fixture(scope="module")
def record_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("records")
    for f in range(2):
        with real_tf.io.TFRecordWriter(str(root / f"part-{f}.tfrecord")) as w:
            for i in range(5):
                k = 10 * f + i
                feature = {
                    "x": real_tf.train.Feature(
                        float_list=real_tf.train.FloatList(value=[k / 4, -k])
                    ),
                    "y": real_tf.train.Feature(int64_list=real_tf.train.Int64List(value=[k])),
                }
                ex = real_tf.train.Example(features=real_tf.train.Features(feature=feature))
                w.write(ex.SerializeToString())
    return str(root)


def _batched_features_cases(d):
    def feats(tf):
        return {"x": tf.FixedLenFeature([2], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}

    return {
        "one_epoch_label": lambda tf: tf.data.experimental.make_batched_features_dataset(
            f"{d}/*.tfrecord", 3, feats(tf), label_key="y", num_epochs=1, shuffle=False
        ),
        "forever_parallel_reads": lambda tf: tf.data.experimental.make_batched_features_dataset(
            f"{d}/*.tfrecord", 4, feats(tf), num_epochs=None, shuffle=False, reader_num_threads=2
        ).take(4),
        "drop_final_two_epochs": lambda tf: tf.data.experimental.make_batched_features_dataset(
            f"{d}/*.tfrecord", 3, feats(tf), num_epochs=2, shuffle=False, drop_final_batch=True
        ),
        "shuffled_seeded": lambda tf: tf.data.experimental.make_batched_features_dataset(
            f"{d}/*.tfrecord", 3, feats(tf), num_epochs=1, shuffle_seed=3, shuffle_buffer_size=4
        ),
        "parse_example_dataset": lambda tf: (
            tf.data.TFRecordDataset(f"{d}/part-0.tfrecord")
            .batch(2)
            .apply(tf.data.experimental.parse_example_dataset(feats(tf)))
        ),
    }


@pytest.mark.parametrize(
    "name",
    [
        "one_epoch_label",
        "forever_parallel_reads",
        "drop_final_two_epochs",
        "shuffled_seeded",
        "parse_example_dataset",
    ],
)
def test_make_batched_features_dataset(record_dir, name):
    build = _batched_features_cases(record_dir)[name]

    def script(tf):
        ds = build(tf)
        element = tf.data.make_one_shot_iterator(ds).get_next()
        sig = _signature(element)
        return lambda sess: {"sig": sig, "values": _drain_with_errors(tf, sess, element)}

    theirs, ours = run_both(script)
    assert ours["sig"] == theirs["sig"]
    assert len(ours["values"]) == len(theirs["values"])
    assert_twins(theirs["values"], ours["values"])


def test_make_batched_features_dataset_bad_label_key(record_dir):
    theirs, ours = _error(
        lambda tf: tf.data.experimental.make_batched_features_dataset(
            f"{record_dir}/*.tfrecord",
            2,
            {"x": tf.FixedLenFeature([2], tf.float32)},
            label_key="y",
        )
    )
    assert ours == theirs
