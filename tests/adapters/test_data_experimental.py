"""``tf.data`` pieces that need no TF to check: argument rules, refusals, errors."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.data import interleave_op


def _drain(sess, fetch, feed=None):
    out = []
    while True:
        try:
            out.append(sess.run(fetch, feed))
        except tf.errors.OutOfRangeError:
            return out


def test_autotune_constants_and_namespace():
    assert tf.data.experimental.AUTOTUNE == tf.data.AUTOTUNE == -1
    assert tf.data.experimental.INFINITE_CARDINALITY == -1
    assert tf.data.experimental.UNKNOWN_CARDINALITY == -2
    assert not hasattr(tf.data.experimental, "make_one_shot_iterator")  # not in TF 2.21 either
    with pytest.raises(AttributeError, match="tf.data.Dataset.sparse_batch is not in adapters.v1"):
        tf.data.Dataset.range(2).sparse_batch  # noqa: B018


def test_cycle_length_defaults_follow_tfs_kernels(monkeypatch):
    monkeypatch.setattr(interleave_op, "max_parallelism", lambda: 8)
    assert interleave_op.cycle_length_of(None, None) == 8
    assert interleave_op.cycle_length_of(tf.data.AUTOTUNE, None) == 8
    assert interleave_op.cycle_length_of(None, tf.data.AUTOTUNE) == 3
    assert interleave_op.cycle_length_of(None, 2) == 2
    assert interleave_op.cycle_length_of(None, 20) == 8
    assert interleave_op.cycle_length_of(5, tf.data.AUTOTUNE) == 5


def test_interleave_of_a_placeholder_needs_an_initializable_iterator():
    with tf.Graph().as_default():
        scale = tf.placeholder(tf.int64, [])
        ds = tf.data.Dataset.range(3).flat_map(
            lambda i: tf.data.Dataset.from_tensors(i * scale).repeat(2)
        )
        with pytest.raises(ValueError, match="Cannot capture a placeholder"):
            ds.make_one_shot_iterator()
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer, {scale: 10})
            assert _drain(sess, nxt) == [0, 0, 10, 10, 20, 20]


def test_flat_map_must_return_a_dataset():
    with tf.Graph().as_default(), pytest.raises(TypeError, match="must return a `Dataset`"):
        tf.data.Dataset.range(3).flat_map(lambda i: i)


def test_interleave_zero_cycle_length_fails_at_get_next():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).interleave(tf.data.Dataset.from_tensors, cycle_length=0)
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(nxt)


def test_ignore_errors_over_zip_is_refused():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.zip((tf.data.Dataset.range(4), tf.data.Dataset.range(4)))
        with pytest.raises(NotImplementedError, match="ignore_errors over Zip"):
            ds.apply(tf.data.experimental.ignore_errors())


def test_from_generator_output_signature_must_hold_type_specs():
    # output_signature is taken (tests/interop/test_tensor_spec_interop.py); a leaf that
    # is not a TypeSpec is TF's TypeError.
    with tf.Graph().as_default(), pytest.raises(TypeError, match="`tf.TypeSpec`"):
        tf.data.Dataset.from_generator(lambda: iter([1]), output_signature=object())


def test_from_generator_dataset_spec_signature_is_refused():
    spec = tf.data.get_output_types(tf.data.Dataset.range(2).window(1))  # a DatasetSpec
    with tf.Graph().as_default(), pytest.raises(NotImplementedError, match="DatasetSpec"):
        tf.data.Dataset.from_generator(lambda: iter([1]), output_signature=spec)


def test_generator_error_stops_the_pipeline_and_says_so():
    def gen():
        yield 1
        yield "x"
        yield 3

    with tf.Graph().as_default():
        # zip does not pass a failed element on (TF's has read the other inputs' then)
        ds = tf.data.Dataset.zip((tf.data.Dataset.from_generator(gen, tf.int64),))
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert sess.run(nxt) == (1,)
            with pytest.raises(tf.errors.InvalidArgumentError, match="did not match"):
                sess.run(nxt)
            with pytest.raises(tf.errors.FailedPreconditionError, match="ignore_errors"):
                sess.run(nxt)


def test_feedable_iterator_refuses_unknown_handles_and_other_types():
    with tf.Graph().as_default():
        ints = tf.data.Dataset.range(3)
        floats = tf.data.Dataset.from_tensor_slices(np.ones(3, np.float32))
        handle = tf.placeholder(tf.string, [])
        it = tf.data.Iterator.from_string_handle(handle, ints.output_types, ints.output_shapes)
        nxt = it.get_next()
        assert it.string_handle() is handle
        other = floats.make_one_shot_iterator()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
                sess.run(nxt, {handle: b"nothing"})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Data type mismatch"):
                sess.run(nxt, {handle: sess.run(other.string_handle())})
        with pytest.raises(TypeError):
            tf.data.Iterator.from_string_handle(tf.constant(1), ints.output_types)


def test_feedable_handles_keep_each_sessions_position():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(4)
        handle = tf.placeholder(tf.string, [])
        nxt = tf.data.Iterator.from_string_handle(handle, ds.output_types).get_next()
        source = ds.make_one_shot_iterator()
        h = source.string_handle()
        with tf.Session() as a, tf.Session() as b:
            ha = a.run(h)
            assert [a.run(nxt, {handle: ha}) for _ in range(2)] == [0, 1]
            assert b.run(nxt, {handle: b.run(h)}) == 0
            assert a.run(source.get_next()) == 2


def test_reduce_reads_a_placeholder_fed_in_the_same_run():
    with tf.Graph().as_default():
        scale = tf.placeholder(tf.int64, [])
        total = (
            tf.data.Dataset.range(4)
            .map(lambda i: i * scale)
            .reduce(np.int64(0), lambda s, i: s + i)
        )
        with tf.Session() as sess:
            assert sess.run(total, {scale: 2}) == 12
            assert sess.run(total * 2, {scale: 3}) == 36
