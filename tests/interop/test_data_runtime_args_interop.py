"""``tf.data`` arguments known only when the graph runs (placeholders, tensors computed
from them), as TF1 scripts feed them to an initializable iterator's initializer, under
TF 2.21's ``compat.v1`` and under ``adapters.v1``: each initialization's elements (values,
dtypes, shapes, the end), the static ``output_shapes``, and TF's errors for bad values,
with their class, message and time (building the graph, running the initializer, or a
``get_next``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import kernel_message, run_both

pytestmark = pytest.mark.interop

LIMIT = 25  # get_next runs per initialization (an infinite repeat stops there)
X = np.arange(10, dtype=np.float32).reshape(5, 2) / 4.0
Y = np.arange(5, dtype=np.int64) * 3
XV = np.arange(6, dtype=np.float32).reshape(3, 2) + 0.5
YV = np.array([7, 8, 9], np.int64)


def _ph(tf, dtype=None, shape=()):
    """A placeholder, ``tf.int64`` scalar unless told (a dtype by name or ``DType``)."""
    dtype = tf.int64 if dtype is None else getattr(tf, dtype) if isinstance(dtype, str) else dtype
    return tf.placeholder(dtype, shape)


def _range(tf, n=7):
    return tf.data.Dataset.range(n)


def _element(value):
    """An element's components as ``(dtype, shape, values)``."""
    parts = value if isinstance(value, tuple) else (value,)
    return [
        (str(c.dtype), list(c.shape), c.tolist()) if isinstance(c, np.ndarray) else repr(c)
        for c in parts
    ]


def _script(build, feeds):
    """A twin script: ``build(tf)`` gives ``(dataset, {name: placeholder})``; each feed
    initializes the iterator and reads it to its end (or ``LIMIT``)."""

    def script(tf):
        try:
            dataset, placeholders = build(tf)
            shapes = str(tf.data.get_output_shapes(dataset))
            types = str(tf.data.get_output_types(dataset))
            iterator = tf.data.make_initializable_iterator(dataset)
            element = iterator.get_next()
        except (TypeError, ValueError, NotImplementedError) as e:
            error = ("build", type(e).__name__, str(e).split(" for '{{node")[0])
            return lambda sess: error

        def run(sess):
            out: list = [shapes, types]
            for feed in feeds:
                fed = {placeholders[k]: v for k, v in feed.items()}
                try:
                    sess.run(iterator.initializer, fed)
                except tf.errors.OpError as e:
                    out.append(("initializer", *kernel_message(e)))
                    continue
                values: list = []
                for _ in range(LIMIT):
                    try:
                        values.append(_element(sess.run(element)))
                    except tf.errors.OutOfRangeError:
                        values.append("end")
                        break
                    except tf.errors.OpError as e:
                        values.append(("get_next", *kernel_message(e)))
                out.append(values)
            return out

        return run

    return script


def _idiom(tf):
    """The classic TF1 input idiom: fed data, a fed shuffle buffer and batch size."""
    x, y = tf.placeholder(tf.float32, [None, 2]), tf.placeholder(tf.int64, [None])
    buffer, batch = _ph(tf), _ph(tf)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(buffer, seed=1).batch(batch)
    return ds, {"x": x, "y": y, "buffer": buffer, "batch": batch}


def _padded(tf, shape=(1,), pad_shape=()):
    size, shapes, pad = _ph(tf), _ph(tf, shape=shape), _ph(tf, shape=pad_shape)
    ds = _range(tf, 5).map(lambda x: tf.fill([x], x))
    return ds.padded_batch(size, padded_shapes=shapes, padding_values=pad), {
        "size": size,
        "shapes": shapes,
        "pad": pad,
    }


def _one(method, dtype=None, shape=()):
    """``range(7).method(placeholder)``."""

    def build(tf):
        p = _ph(tf, dtype, shape)
        return getattr(_range(tf), method)(p), {"p": p}

    return build


def _interleave(tf):
    cycle, block = _ph(tf), _ph(tf)
    ds = _range(tf, 3).interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + 4), cycle_length=cycle, block_length=block
    )
    return ds, {"cycle": cycle, "block": block}


def _window(tf):
    size, shift, stride, drop = _ph(tf), _ph(tf), _ph(tf), _ph(tf, tf.bool)
    ds = _range(tf).window(size, shift, stride, drop).flat_map(lambda w: w.batch(10))
    return ds, {"size": size, "shift": shift, "stride": stride, "drop": drop}


CASES = {
    "idiom_train_then_eval": (
        _idiom,
        [
            {"x": X, "y": Y, "buffer": 100, "batch": 2},
            {"x": XV, "y": YV, "buffer": 1, "batch": 3},
            {"x": X, "y": Y, "buffer": 3, "batch": 4},
        ],
    ),
    "batch": (
        _one("batch"),
        [{"p": 3}, {"p": 7}, {"p": 10}, {"p": 0}, {"p": -1}, {"p": 2}],
    ),
    "batch_drop_remainder": (
        lambda tf: (lambda p: (_range(tf).batch(p, drop_remainder=True), {"p": p}))(_ph(tf)),
        [{"p": 3}, {"p": 8}, {"p": 7}],
    ),
    "batch_drop_remainder_fed": (
        lambda tf: (lambda p: (_range(tf).batch(3, drop_remainder=p), {"p": p}))(_ph(tf, tf.bool)),
        [{"p": True}, {"p": False}],
    ),
    "batch_computed_size": (
        lambda tf: (lambda p: (_range(tf).batch(p * 2 + 1), {"p": p}))(_ph(tf)),
        [{"p": 1}, {"p": 0}],
    ),
    "batch_unknown_rank_fed_vector": (_one("batch", shape=None), [{"p": 3}, {"p": [3]}]),
    "batch_num_parallel_calls": (
        lambda tf: (lambda p: (_range(tf).batch(3, num_parallel_calls=p), {"p": p}))(_ph(tf)),
        [{"p": 2}],
    ),
    "map_then_batch": (
        lambda tf: (lambda p: (_range(tf).map(lambda v: v * 2).batch(p), {"p": p}))(_ph(tf)),
        [{"p": 4}, {"p": 0}],
    ),
    "shuffle": (
        lambda tf: (lambda p: (_range(tf).shuffle(p, seed=1), {"p": p}))(_ph(tf)),
        [{"p": 3}, {"p": 3}, {"p": 100}, {"p": -2}, {"p": 0}, {"p": -1}, {"p": -3}],
    ),
    "shuffle_repeat_reshuffles": (
        lambda tf: (lambda p: (_range(tf, 5).shuffle(p, seed=7).repeat(2), {"p": p}))(_ph(tf)),
        [{"p": 2}, {"p": 5}],
    ),
    "prefetch": (_one("prefetch"), [{"p": 2}, {"p": -1}, {"p": 0}, {"p": -2}]),
    "repeat": (
        lambda tf: (lambda p: (_range(tf, 3).repeat(p), {"p": p}))(_ph(tf)),
        [{"p": 2}, {"p": 0}, {"p": -1}],
    ),
    "take": (_one("take"), [{"p": 2}, {"p": -1}, {"p": -5}, {"p": 0}, {"p": 30}]),
    "skip": (_one("skip"), [{"p": 2}, {"p": -1}, {"p": 0}]),
    "shard": (
        lambda tf: (lambda a, b: (_range(tf).shard(a, b), {"a": a, "b": b}))(_ph(tf), _ph(tf)),
        [{"a": 3, "b": 1}, {"a": 0, "b": 0}, {"a": 2, "b": 2}, {"a": 2, "b": -1}, {"a": 2, "b": 0}],
    ),
    "range_stop": (
        lambda tf: (lambda p: (tf.data.Dataset.range(p), {"p": p}))(_ph(tf)),
        [{"p": 3}, {"p": 0}, {"p": -2}],
    ),
    "range_start_stop_step": (
        lambda tf: (lambda a, b, c: (tf.data.Dataset.range(a, b, c), {"a": a, "b": b, "c": c}))(
            _ph(tf), _ph(tf), _ph(tf)
        ),
        [{"a": 1, "b": 8, "c": 3}, {"a": 8, "b": 1, "c": -2}, {"a": 1, "b": 8, "c": 0}],
    ),
    "map_num_parallel_calls": (
        lambda tf: (lambda p: (_range(tf, 4).map(lambda v: v * 2, num_parallel_calls=p), {"p": p}))(
            _ph(tf)
        ),
        [{"p": 2}, {"p": -1}, {"p": 0}, {"p": -2}],
    ),
    "interleave": (
        _interleave,
        [
            {"cycle": 2, "block": 2},
            {"cycle": 1, "block": 3},
            {"cycle": 0, "block": 1},
            {"cycle": 2, "block": 0},
            {"cycle": -1, "block": 1},
        ],
    ),
    "padded_batch": (
        _padded,
        [
            {"size": 2, "shapes": [5], "pad": -1},
            {"size": 2, "shapes": [-1], "pad": 9},
            {"size": 3, "shapes": [4], "pad": 0},
            {"size": 0, "shapes": [5], "pad": 0},
        ],
    ),
    "padded_batch_fed_shape_and_value_of_unknown_shapes": (
        lambda tf: _padded(tf, shape=None, pad_shape=None),
        [
            {"size": 2, "shapes": [5], "pad": 1},
            {"size": 2, "shapes": [5, 5], "pad": 0},
            {"size": 2, "shapes": 5, "pad": 0},
            {"size": 2, "shapes": [[5]], "pad": 0},
            {"size": 2, "shapes": [5], "pad": [1]},
            {"size": 2, "shapes": [-2], "pad": 0},
            {"size": 2, "shapes": [], "pad": 0},
            {"size": 3, "shapes": [-1], "pad": 7},
        ],
    ),
    "padded_batch_fed_shape_of_unknown_length": (
        lambda tf: _padded(tf, shape=(None,)),
        [{"size": 2, "shapes": [5], "pad": 1}],
    ),
    "window": (
        _window,
        [
            {"size": 3, "shift": 2, "stride": 1, "drop": False},
            {"size": 2, "shift": 3, "stride": 2, "drop": True},
            {"size": 0, "shift": 1, "stride": 1, "drop": False},
            {"size": 2, "shift": 0, "stride": 1, "drop": False},
            {"size": 2, "shift": 1, "stride": -1, "drop": False},
        ],
    ),
    "group_by_window": (
        lambda tf: (
            lambda p: (
                _range(tf, 9).group_by_window(
                    lambda v: v % 2, lambda k, w: w.batch(5), window_size=p
                ),
                {"p": p},
            )
        )(_ph(tf)),
        [{"p": 2}, {"p": 4}],
    ),
    "experimental_shuffle_and_repeat": (
        lambda tf: (
            lambda b, c: (
                _range(tf, 5).apply(tf.data.experimental.shuffle_and_repeat(b, c, seed=3)),
                {"b": b, "c": c},
            )
        )(_ph(tf), _ph(tf)),
        [{"b": 4, "c": 2}, {"b": 1, "c": 1}, {"b": 0, "c": 1}],
    ),
    "experimental_map_and_batch": (
        lambda tf: (
            lambda p: (
                _range(tf).apply(tf.data.experimental.map_and_batch(lambda v: v * 3, p)),
                {"p": p},
            )
        )(_ph(tf)),
        [{"p": 3}, {"p": 0}],
    ),
    "experimental_parallel_interleave": (
        lambda tf: (
            lambda c, b: (
                _range(tf, 3).apply(
                    tf.data.experimental.parallel_interleave(
                        lambda x: tf.data.Dataset.range(x * 10, x * 10 + 3),
                        c,
                        b,
                        buffer_output_elements=4,
                        prefetch_input_elements=4,
                    )
                ),
                {"c": c, "b": b},
            )
        )(_ph(tf), _ph(tf)),
        [{"c": 2, "b": 2}, {"c": 3, "b": 1}, {"c": 0, "b": 1}, {"c": 2, "b": 0}],
    ),
    "experimental_assert_cardinality": (
        lambda tf: (
            lambda p: (
                _range(tf, 3).apply(tf.data.experimental.assert_cardinality(p)),
                {"p": p},
            )
        )(_ph(tf)),
        [{"p": 3}, {"p": 2}, {"p": 5}],
    ),
    "counter": (
        lambda tf: (lambda a, b: (tf.data.Dataset.counter(a, b).take(4), {"a": a, "b": b}))(
            _ph(tf), _ph(tf)
        ),
        [{"a": 5, "b": -2}, {"a": 0, "b": 3}],
    ),
    # TF's errors building the graph: a tensor of another dtype or rank.
    "batch_int32": (_one("batch", dtype="int32"), [{"p": 2}]),
    "batch_vector": (_one("batch", shape=(1,)), [{"p": [2]}]),
    "shuffle_int32": (_one("shuffle", dtype="int32"), [{"p": 2}]),
    "shuffle_vector": (_one("shuffle", shape=(1,)), [{"p": [2]}]),
    "repeat_int32": (_one("repeat", dtype="int32"), [{"p": 2}]),
    "take_int32": (_one("take", dtype="int32"), [{"p": 2}]),
    "take_vector": (_one("take", shape=(1,)), [{"p": [2]}]),
    "skip_int32": (_one("skip", dtype="int32"), [{"p": 2}]),
    "prefetch_int32": (_one("prefetch", dtype="int32"), [{"p": 2}]),
    "range_int32": (
        lambda tf: (lambda p: (tf.data.Dataset.range(p), {"p": p}))(_ph(tf, tf.int32)),
        [{"p": 2}],
    ),
    "shard_int32": (
        lambda tf: (lambda p: (_range(tf).shard(p, 0), {"p": p}))(_ph(tf, tf.int32)),
        [{"p": 2}],
    ),
    "drop_remainder_int64": (
        lambda tf: (lambda p: (_range(tf).batch(2, drop_remainder=p), {"p": p}))(_ph(tf)),
        [{"p": 1}],
    ),
    "map_num_parallel_calls_int32": (
        lambda tf: (lambda p: (_range(tf).map(lambda v: v, num_parallel_calls=p), {"p": p}))(
            _ph(tf, tf.int32)
        ),
        [{"p": 2}],
    ),
    "interleave_cycle_int32": (
        lambda tf: (
            lambda p: (
                _range(tf).interleave(lambda v: tf.data.Dataset.range(v), cycle_length=p),
                {"p": p},
            )
        )(_ph(tf, tf.int32)),
        [{"p": 2}],
    ),
    "padded_batch_int32": (
        lambda tf: (lambda p: (_range(tf).padded_batch(p, padded_shapes=[]), {"p": p}))(
            _ph(tf, tf.int32)
        ),
        [{"p": 2}],
    ),
    # Constant sizes TF refuses when the iterator starts, not when the graph is built.
    "batch_zero": (lambda tf: (_range(tf).batch(0), {}), [{}]),
    "shuffle_zero": (lambda tf: (_range(tf).shuffle(0), {}), [{}]),
    "prefetch_below_autotune": (lambda tf: (_range(tf).prefetch(-2), {}), [{}]),
    "map_zero_parallel_calls": (
        lambda tf: (_range(tf).map(lambda v: v + 1, num_parallel_calls=0), {}),
        [{}],
    ),
    "shard_zero": (lambda tf: (_range(tf).shard(0, 0), {}), [{}]),
    "interleave_zero_cycle": (
        lambda tf: (
            _range(tf, 3).interleave(lambda v: tf.data.Dataset.range(v), cycle_length=0),
            {},
        ),
        [{}],
    ),
    "range_zero_step": (lambda tf: (tf.data.Dataset.range(0, 5, 0), {}), [{}]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_runtime_arguments_as_tf(name):
    """Each initialization gives TF's elements, or TF's error (class, message, time)."""
    build, feeds = CASES[name]
    theirs, ours = run_both(_script(build, feeds))
    assert ours == theirs


def test_one_shot_iterator_constant_batch_zero_fails_at_first_get_next():
    """A one-shot iterator over ``batch(0)``: built, then TF's error at its first run."""

    def script(tf):
        element = tf.data.make_one_shot_iterator(_range(tf).batch(0)).get_next()

        def run(sess):
            out = []
            for _ in range(2):
                try:
                    out.append(sess.run(element).tolist())
                except tf.errors.OpError as e:
                    out.append(kernel_message(e))
            return out

        return run

    theirs, ours = run_both(script)
    assert ours == theirs
    assert theirs[0] == ("InvalidArgumentError", "Batch size must be greater than zero.")


def test_unfed_placeholder_fails_at_the_initializer():
    """A placeholder the dataset reads, not fed: TF's error class and message start at
    the initializer's run (not at ``get_next``); fed, the iterator runs."""

    def script(tf):
        p = _ph(tf)
        iterator = tf.data.make_initializable_iterator(_range(tf).batch(p))
        element = iterator.get_next()

        def run(sess):
            try:
                sess.run(iterator.initializer)
                error = None
            except tf.errors.InvalidArgumentError as e:
                error = kernel_message(e)[1]
            sess.run(iterator.initializer, {p: 4})
            return error, sess.run(element).tolist(), sess.run(element).tolist()

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_cardinality_of_fed_arguments():
    """``cardinality()`` computed with each run's fed sizes, as TF's."""

    def script(tf):
        size, count = _ph(tf), _ph(tf)
        ds = _range(tf).repeat(count).batch(size, drop_remainder=True).take(5)
        cardinality = tf.data.experimental.cardinality(ds)

        def run(sess):
            feeds = [(3, 1), (2, 3), (30, 1), (4, -1)]
            return [sess.run(cardinality, {size: a, count: b}).tolist() for a, b in feeds]

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


@pytest.mark.parametrize("argument", ["cycle_length", "block_length"])
def test_parallel_interleave_refuses_a_tensor_length_without_its_buffer_argument(argument):
    """TF 2.21's ``parallel_interleave`` refuses a tensor ``cycle_length`` (without
    ``prefetch_input_elements``) or ``block_length`` (without
    ``buffer_output_elements``): its defaults of those are ``2 *`` the tensor, which it
    then makes a constant of."""

    def script(tf):
        lengths = {"cycle_length": 2, "block_length": 1, argument: _ph(tf)}
        try:
            _range(tf, 3).apply(
                tf.data.experimental.parallel_interleave(
                    lambda x: tf.data.Dataset.range(x), **lengths
                )
            )
        except TypeError as e:
            error = str(e)
            return lambda sess: error
        return lambda sess: None

    theirs, ours = run_both(script)
    # TF names its product tensor ("mul:0"); jtrain names the argument's tensor.
    assert theirs.startswith("Expected int64, but got Tensor(")
    assert ours is not None and ours.startswith("Expected int64, but got ")
    assert ours.endswith(" of type 'SymbolicTensor'.")


def test_failed_initializer_leaves_the_iterator_where_it_was():
    """An initializer run refused (a fed batch size of 0) does not restart the
    iterator: ``get_next`` goes on as before it, as TF's."""

    def script(tf):
        p = _ph(tf)
        iterator = tf.data.make_initializable_iterator(_range(tf).batch(p))
        element = iterator.get_next()

        def run(sess):
            out = []
            try:
                sess.run(iterator.initializer, {p: 0})
            except tf.errors.InvalidArgumentError as e:
                out.append(kernel_message(e))
            try:
                sess.run(element)
            except tf.errors.OpError as e:
                out.append(type(e).__name__)
            sess.run(iterator.initializer, {p: 3})
            out.append(sess.run(element).tolist())
            try:
                sess.run(iterator.initializer, {p: -1})
            except tf.errors.InvalidArgumentError as e:
                out.append(kernel_message(e))
            for _ in range(3):
                try:
                    out.append(sess.run(element).tolist())
                except tf.errors.OutOfRangeError:
                    out.append("end")
            return out

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


@pytest.mark.parametrize("reader", ["TextLineDataset", "TFRecordDataset"])
def test_readers_refuse_a_tensor_num_parallel_reads(reader):
    """TF 2.21's readers refuse a tensor ``num_parallel_reads`` (a placeholder or a
    constant): it makes a constant of ``2 *`` it."""

    def script(tf):
        errors = []
        for value in (_ph(tf), tf.constant(2, tf.int64)):
            try:
                getattr(tf.data, reader)(["unused"], num_parallel_reads=value)
                errors.append(None)
            except TypeError as e:
                errors.append(str(e))
        return lambda sess: errors

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        # TF names its product tensor ("mul:0"); jtrain names the argument's tensor.
        assert t.startswith("Expected int64, but got Tensor(")
        assert o is not None and o.startswith("Expected int64, but got ")
        assert o.endswith(" of type 'SymbolicTensor'.")
