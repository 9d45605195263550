"""``tf.sparse.cross`` and ``tf.sparse.cross_hashed`` (TF's ``SparseCrossV2`` and
``SparseCross``) checked live against TF 2.21 (``twin.py``): crosses of sparse and dense,
string and integer inputs in TF's order, separators, FarmHash/``FingerprintCat64``
hashes bit for bit (with and without ``num_buckets`` and ``hash_key``), dtypes, static
shapes, fed inputs and TF's errors.

Before, these names raised ``AttributeError`` under ``from adapters import v1 as tf``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop


def _plain(values):
    """SparseTensorValues (TF's class or jtrain's) as lists of their three arrays."""
    if type(values).__name__ == "SparseTensorValue":
        return [values.indices, values.values, values.dense_shape]
    if isinstance(values, (list, tuple)):
        return [_plain(v) for v in values]
    return values


def _static(sp):
    return [t.get_shape().as_list() for t in (sp.indices, sp.values, sp.dense_shape)] + [
        sp.values.dtype.name,
        sp.indices.op.type,
    ]


def _run_error(e):
    lines = str(getattr(e, "message", e)).split("\n")
    ends = [i for i, line in enumerate(lines) if line.strip().startswith("[[")]
    return lines[ends[0] - 1].strip() if ends else lines[0]


def _inputs(tf):
    words = tf.SparseTensor(
        [[0, 0], [1, 0], [1, 1], [3, 2]], ["a", "b", "c", "longer word"], [4, 3]
    )
    ints = tf.SparseTensor(
        [[0, 0], [1, 0], [1, 3], [3, 0]],
        tf.constant([3, -4, 5, 2**40], tf.int64),
        [4, 4],
    )
    small = tf.SparseTensor([[0, 1], [2, 0]], tf.constant([7, 8], tf.int32), [4, 2])
    dense_s = tf.constant([["f"], ["g"], ["h"], ["a string longer than thirty-two bytes"]])
    dense_i = tf.constant([[1, 2], [3, 4], [5, 6], [-7, 8]], tf.int64)
    return words, ints, small, dense_s, dense_i


def test_cross_strings_and_integers_in_tfs_order():
    def script(tf):
        words, ints, small, dense_s, dense_i = _inputs(tf)
        crosses = [
            tf.sparse.cross([words, dense_s]),
            tf.sparse.cross([dense_i, words, ints], separator="--"),
            tf.sparse.cross([words, small, dense_s, dense_i]),
            tf.sparse.cross([words]),
            tf.sparse.cross([dense_s, dense_i], name="dense_only"),
        ]
        info = [_static(c) for c in crosses]
        return lambda sess: (info, _plain(sess.run(crosses)))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_cross_hashed_bit_exact():
    def script(tf):
        words, ints, small, dense_s, dense_i = _inputs(tf)
        floats = tf.constant([[1.5], [2.5], [-3.7], [4.0]])
        crosses = [
            tf.sparse.cross_hashed([words, dense_s]),
            tf.sparse.cross_hashed([words, ints, dense_i], num_buckets=1000),
            tf.sparse.cross_hashed([dense_i, small], hash_key=7),
            tf.sparse.cross_hashed([words, floats], num_buckets=10, hash_key=2**62 + 5),
            tf.sparse.cross_hashed([ints]),
        ]
        info = [_static(c) for c in crosses]
        return lambda sess: (info, _plain(sess.run(crosses)))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_fed_inputs_and_use_downstream():
    """Fed sparse and dense inputs; the hashed ids feed an embedding lookup."""

    def script(tf):
        sp = tf.sparse_placeholder(tf.string, shape=[None, None])
        dense = tf.placeholder(tf.int64, [None, 2])
        ids = tf.sparse.cross_hashed([sp, dense], num_buckets=5)
        table = tf.constant(np.arange(10, dtype=np.float32).reshape(5, 2))
        looked = tf.nn.embedding_lookup(table, ids.values)
        feed = {
            sp: ([[0, 0], [0, 1], [2, 0]], np.array([b"x", b"y", b"z"], object), [3, 2]),
            dense: [[1, 2], [3, 4], [5, 6]],
        }
        return lambda sess: _plain(sess.run([ids, looked], feed))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


@pytest.mark.parametrize("hashed", [False, True])
@pytest.mark.parametrize("case", ["batch", "rank"])
def test_run_errors_are_tfs(hashed, case):
    def script(tf):
        words = tf.SparseTensor([[0, 0], [1, 0]], ["a", "b"], [2, 2])
        dense = tf.constant([["f"], ["g"], ["h"]]) if case == "batch" else tf.constant(["f", "g"])
        cross = tf.sparse.cross_hashed if hashed else tf.sparse.cross
        out = cross([words, dense])

        def run(sess):
            try:
                sess.run(out)
            except tf.errors.InvalidArgumentError as e:
                return _run_error(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


@pytest.mark.parametrize("hashed", [False, True])
def test_bad_inputs_raise_tfs_type_errors(hashed):
    def script(tf):
        words = tf.SparseTensor([[0, 0]], ["a"], [1, 1])
        cross = tf.sparse.cross_hashed if hashed else tf.sparse.cross
        said = []
        for bad in (words, [words, 3]):
            try:
                cross(bad)
            except TypeError as e:
                said.append(str(e))
        return lambda sess: said

    theirs, ours = run_both(script)
    assert ours == theirs and len(ours) == 2


@pytest.mark.parametrize("hashed", [False, True])
def test_empty_batch_gives_empty_crosses(hashed):
    """A batch of 0 rows (a sparse input's dense_shape [0, n]) crosses to an empty
    [0, 0] SparseTensor as TF's kernel does; before, the host op failed (a ValueError)."""

    def script(tf):
        sp = tf.SparseTensor(np.zeros((0, 2), np.int64), tf.constant([], tf.string), [0, 3])
        dense = tf.constant(np.zeros((0, 2), np.int64))
        cross = tf.sparse.cross_hashed if hashed else tf.sparse.cross
        out = cross([sp, dense])
        return lambda sess: _plain(sess.run(out))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_dense_placeholder_with_default_unfed_and_fed():
    """A dense input from tf.placeholder_with_default, run with its default and fed;
    before, any PlaceholderWithDefault input was taken as fed, so the run with the
    default failed (the cross was placed before the step that computes it)."""

    def script(tf):
        dense = tf.placeholder_with_default(tf.constant([["a"], ["b"]]), [None, 1])
        sp = tf.SparseTensor([[0, 0], [1, 0]], ["x", "y"], [2, 2])
        out = tf.sparse.cross_hashed([sp, dense], num_buckets=7)
        joined = tf.sparse.cross([sp, dense])
        feed = {dense: [["q"], ["r"]]}
        return lambda sess: _plain([sess.run([out, joined]), sess.run([out, joined], feed)])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_hashed_attribute_errors_are_tfs():
    """num_buckets below 0, num_buckets and hash_key outside int64 raise TF's ValueErrors
    (before, a negative num_buckets meant none and a big hash_key was wrapped)."""

    def script(tf):
        words = tf.SparseTensor([[0, 0], [1, 0]], ["a", "b"], [2, 2])
        said = []
        for kw in (
            {"num_buckets": -1},
            {"num_buckets": 2**63},
            {"hash_key": 2**63},
            {"hash_key": -(2**63) - 1},
            {"num_buckets": -3, "hash_key": 2**64},
        ):
            try:
                tf.sparse.cross_hashed([words, words], **kw)
            except ValueError as e:
                said.append(str(e))
        out = tf.sparse.cross_hashed([words], hash_key=2**63 - 1, num_buckets=2**63 - 1)
        return lambda sess: (said, _plain(sess.run(out)))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert len(ours[0]) == 5
