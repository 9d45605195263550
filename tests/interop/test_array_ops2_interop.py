"""TF1 ops that were missing from ``adapters.v1`` (an AttributeError before), checked
live against TF 2.21 (``twin.py``): values, dtypes, static shapes (unknown dimensions
included), gradients, and TF's errors for bad input.

``tf.dynamic_partition``, ``tf.setdiff1d``, ``tf.sparse_segment_sum``/``_mean``/
``_sqrt_n`` (and ``tf.sparse.segment_*``), ``tf.extract_image_patches``,
``tf.extract_volume_patches``, ``tf.required_space_to_batch_paddings``,
``tf.to_complex64``/``128``.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, run_both, run_once, tf1

pytestmark = pytest.mark.interop

X = (np.arange(5 * 3, dtype=np.float32).reshape(5, 3) - 6.0) / 7.0
X64 = X.astype(np.float64) * np.pi


def _static(tensors):
    """Static shapes as text (``[None, 3]``), to compare TF's and jtrain's."""
    return [str(t.shape) for t in tensors]


def _graded(tf, build, x_value):
    """``(values, static shapes, gradient of a weighted sum w.r.t. x)`` of ``build(tf, x)``."""
    x = tf.constant(x_value)
    outs = build(tf, x)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    shapes = _static(outs)
    floats = [o for o in outs if o.dtype.is_floating]
    loss = tf.add_n(
        [tf.reduce_sum(o * tf.cast(k + 2, o.dtype) * tf.sin(o)) for k, o in enumerate(floats)]
    )
    grad = tf.gradients(loss, x)[0]
    return lambda sess: (sess.run(outs), shapes, sess.run(grad))


def _error(build):
    """``{module: (error class name, message)}`` of running ``build(tf)`` under each."""
    out = {}
    for tf in (tf1, jtf):

        def script(tf, build=build):
            t = build(tf)

            def run(sess):
                try:
                    sess.run(t)
                except Exception as e:  # noqa: BLE001 - the error is the result
                    return type(e).__name__, getattr(e, "message", str(e))
                return None

            return run

        out[tf is jtf] = run_once(tf, script)
    return out[False], out[True]


def _assert_same_error(build, expected):
    theirs, ours = _error(build)
    assert theirs is not None and ours is not None, (theirs, ours)
    assert ours[0] == theirs[0] == "InvalidArgumentError"
    assert expected in theirs[1], theirs[1]  # TF 2.21's words
    assert expected in ours[1], ours[1]


# -- dynamic_partition -----------------------------------------------------------------
PARTITIONS = {
    "rows": lambda tf, x: tf.dynamic_partition(x, [1, 0, 1, 2, 1], 4),
    "elements": lambda tf, x: tf.dynamic_partition(
        x, np.array([[0, 1, 0], [1, 1, 1], [0, 0, 0], [1, 0, 1], [0, 0, 1]], np.int32), 2
    ),
    "one partition": lambda tf, x: tf.dynamic_partition(x, [0, 0, 0, 0, 0], 1),
    "computed data": lambda tf, x: tf.dynamic_partition(tf.square(x) + 1.0, [2, 0, 2, 0, 1], 3),
}


@pytest.mark.parametrize("case", list(PARTITIONS))
def test_dynamic_partition_as_tf(case):
    assert_twins(*run_both(lambda tf: _graded(tf, PARTITIONS[case], X)))


def test_dynamic_partition_float64_and_int64_exact():
    big = np.array([2**53 + 1, -(2**60) + 3, 7], np.int64)

    def script(tf):
        a = tf.dynamic_partition(tf.constant(big), [1, 0, 1], 2)
        b = tf.dynamic_partition(tf.constant(X64), [0, 1, 0, 1, 1], 2)
        return lambda sess: (sess.run(a), sess.run(b), _static(a + b))

    assert_twins(*run_both(script), rtol=0)


def test_dynamic_partition_errors_as_tf():
    _assert_same_error(
        lambda tf: tf.dynamic_partition(tf.constant(X), [0, 3, 1, -1, 0], 3),
        "partitions[1] = 3 is not in [0, 3)",
    )
    for tf in (tf1, jtf):
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 2"):
            run_once(tf, lambda tf: tf.dynamic_partition(tf.constant(X), [0, 1], 2))


def test_dynamic_partition_fed_partitions_as_tf():
    def script(tf):
        parts = tf.placeholder(tf.int32, [5])
        x = tf.constant(X)
        outs = tf.dynamic_partition(x, parts, 2)
        grad = tf.gradients(tf.reduce_sum(outs[0] * 3.0) + tf.reduce_sum(outs[1] ** 2), x)[0]
        feeds = [{parts: [0, 1, 1, 0, 1]}, {parts: [1, 1, 1, 1, 1]}]
        return lambda sess: ([sess.run([outs, grad], f) for f in feeds], _static(outs))

    assert_twins(*run_both(script), rtol=1e-6)


def test_dynamic_partition_of_data_of_unknown_batch_as_tf():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        outs = tf.dynamic_partition(x, [1, 0, 1, 1], 2)
        grad = tf.gradients(tf.reduce_sum(outs[1] ** 2), x)[0]
        return lambda sess: (sess.run([outs, grad], {x: X[:4]}), _static(outs))

    assert_twins(*run_both(script), rtol=1e-6)


def test_dynamic_partition_by_the_steps_data_as_tf():
    """Partitions computed from a float feed (jtrain raised NotImplementedError before
    the session computed output sizes before the step: data_sizes.py)."""

    def script(tf):
        p = tf.placeholder(tf.float32, [5])
        outs = tf.dynamic_partition(tf.constant(X), tf.cast(p, tf.int32), 2)
        feeds = [{p: [0.0, 1.5, 1.0, 0.0, 1.0]}, {p: [1.0, 1.0, 1.0, 1.0, 1.0]}]
        return lambda sess: ([sess.run(outs, f) for f in feeds], _static(outs))

    assert_twins(*run_both(script), rtol=0)


# -- setdiff1d ---------------------------------------------------------------------------
SETDIFF = {
    "ints": lambda tf: tf.setdiff1d([5, 1, 2, 2, 3, 9, 1], [2, 9, 7]),
    "index int64": lambda tf: tf.setdiff1d([4, 4, 1], [1], index_dtype=tf.int64),
    "floats, int y": lambda tf: tf.setdiff1d([1.5, 2.0, 3.0], [2]),
    "int64 exact": lambda tf: tf.setdiff1d(
        tf.constant([2**53 + 1, 2**53, 5], tf.int64), tf.constant([2**53], tf.int64)
    ),
    "strings": lambda tf: tf.setdiff1d(["a", "bc", "d"], ["d"]),
    "nothing left": lambda tf: tf.setdiff1d([1, 2], [2, 1]),
}


@pytest.mark.parametrize("case", list(SETDIFF))
def test_setdiff1d_as_tf(case):
    def script(tf):
        out = SETDIFF[case](tf)
        names = [t.name for t in out]
        return lambda sess: (tuple(sess.run(out)), _static(out), type(out).__name__, names)

    assert_twins(*run_both(script), rtol=0)


def test_setdiff1d_of_fed_and_computed_values_as_tf():
    def script(tf):
        x = tf.placeholder(tf.int64, [None])
        y = tf.constant([3, 2**40], tf.int64)
        fed = tf.setdiff1d(x, y, name="fed")
        computed = tf.setdiff1d(tf.range(6) * 2, tf.constant([4, 0, 7]))
        outs = [*fed, *computed]
        feeds = [{x: [2**40, 1, 3, 5, 1]}, {x: [3]}]
        names = [t.name for t in outs]
        return lambda sess: ([sess.run(outs, f) for f in feeds], _static(outs), names)

    assert_twins(*run_both(script), rtol=0)


def test_setdiff1d_rank_error_as_tf():
    for tf in (tf1, jtf):
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            run_once(tf, lambda tf: tf.setdiff1d([[1, 2]], [2]))


# -- sparse_segment_sum / mean / sqrt_n -------------------------------------------------
SEGMENTS = {
    "sum": lambda tf, x: tf.sparse_segment_sum(x, [0, 2, 4, 1], [0, 0, 1, 3]),
    "sum repeated rows": lambda tf, x: tf.sparse_segment_sum(x, [3, 3, 0], [0, 1, 1]),
    "sum num_segments": lambda tf, x: tf.sparse_segment_sum(
        x, [0, 2, 4], [0, 0, 2], num_segments=5
    ),
    "mean": lambda tf, x: tf.sparse_segment_mean(x, [0, 2, 4, 1, 1], [0, 0, 0, 2, 2]),
    "mean num_segments": lambda tf, x: tf.sparse_segment_mean(
        x, [4, 2, 1], [1, 1, 2], num_segments=4
    ),
    "sqrt_n": lambda tf, x: tf.sparse_segment_sqrt_n(x, [0, 2, 4, 1], [0, 0, 0, 2]),
    "sqrt_n num_segments": lambda tf, x: tf.sparse_segment_sqrt_n(
        x, [0, 1, 2], [0, 0, 1], num_segments=3
    ),
    "sparse.segment_sum": lambda tf, x: tf.sparse.segment_sum(x, [1, 2], [0, 1]),
    "sparse.segment_mean": lambda tf, x: tf.sparse.segment_mean(x, [1, 2, 3], [0, 0, 1]),
    "sparse.segment_sqrt_n": lambda tf, x: tf.sparse.segment_sqrt_n(x, [1, 2, 3], [0, 0, 1]),
    "int64 ids": lambda tf, x: tf.sparse_segment_sum(
        x, tf.constant([0, 1], tf.int64), tf.constant([0, 2], tf.int64)
    ),
    "computed ids with num_segments": lambda tf, x: tf.sparse_segment_mean(
        x, tf.range(3), tf.cast(tf.range(3) // 2, tf.int32), num_segments=tf.shape(x)[0]
    ),
}


@pytest.mark.parametrize("case", list(SEGMENTS))
def test_sparse_segment_as_tf(case):
    assert_twins(*run_both(lambda tf: _graded(tf, SEGMENTS[case], X)), rtol=1e-6)


def test_sparse_segment_empty_as_tf():
    """No ids: no rows. (Values and shapes only: TF 2.21's gradient of it is read from
    uninitialized memory, 1e36 and denormals that change between runs; jtrain's is 0.)"""

    def script(tf):
        none = tf.zeros([0], tf.int32)
        out = tf.sparse_segment_sum(tf.constant(X), none, none)
        return lambda sess: (sess.run(out), _static([out]))

    assert_twins(*run_both(script), rtol=0)


def test_sparse_segment_float64_int64_and_names_as_tf():
    big = np.array([[2**53 + 1], [2**40 - 3], [-(2**61)]], np.int64)

    def script(tf):
        outs = [
            tf.sparse_segment_sum(tf.constant(big), [0, 2, 1], [0, 0, 1]),
            tf.sparse_segment_mean(tf.constant(X64), [0, 3, 4], [0, 1, 1]),
            tf.sparse_segment_sqrt_n(tf.constant(X64), [0, 3, 4], [0, 1, 1], num_segments=3),
        ]
        return lambda sess: (sess.run(outs), _static(outs), [t.name for t in outs])

    assert_twins(*run_both(script), rtol=0)


SEGMENT_ERRORS = {
    "index out of range": (
        lambda tf: tf.sparse_segment_sum(tf.constant(X), [0, 5, 1], [0, 0, 1]),
        "Bad: indices[1] == 5 out of range [0, 5)",
    ),
    "negative index": (
        lambda tf: tf.sparse_segment_mean(tf.constant(X), [0, -1], [0, 0]),
        "Bad: indices[1] == -1 out of range [0, 5)",
    ),
    "not increasing": (
        lambda tf: tf.sparse_segment_sum(tf.constant(X), [0, 1, 2], [1, 0, 1], num_segments=3),
        "segment ids are not increasing",
    ),
    "negative id": (
        lambda tf: tf.sparse_segment_sum(tf.constant(X), [0, 1], [-1, 0]),
        "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted.",
    ),
    "id past num_segments": (
        lambda tf: tf.sparse_segment_sqrt_n(tf.constant(X), [0, 1], [0, 7], num_segments=3),
        "segment ids must be < num_segments",
    ),
}


@pytest.mark.parametrize("case", list(SEGMENT_ERRORS))
def test_sparse_segment_errors_as_tf(case):
    build, message = SEGMENT_ERRORS[case]
    _assert_same_error(build, message)


def test_sparse_segment_dtype_errors_as_tf():
    for tf in (tf1, jtf):
        with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
            run_once(tf, lambda tf: tf.sparse_segment_mean(tf.constant([1, 2, 3]), [0], [0]))
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2"):
            run_once(tf, lambda tf: tf.sparse_segment_sum(tf.constant(X), [0, 1], [0, 0, 1]))


def test_sparse_segment_fed_ids_as_tf():
    """Integer ids fed to a placeholder are known when the step is compiled (one
    program per fed value), as jtrain's other shapes read from values."""

    def script(tf):
        ids = tf.placeholder(tf.int32, [3])
        x = tf.constant(X)
        out = tf.sparse_segment_mean(x, [0, 2, 3], ids)
        grad = tf.gradients(tf.reduce_sum(out * out), x)[0]
        feeds = [{ids: [0, 0, 2]}, {ids: [1, 1, 1]}]
        return lambda sess: ([sess.run([out, grad], f) for f in feeds], _static([out]))

    assert_twins(*run_both(script), rtol=1e-6)


def test_sparse_segment_sparse_gradient_raises():
    """TF's sparse_gradient=True gives an IndexedSlices gradient: not supported."""
    with jtf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="sparse_gradient=False"):
            jtf.sparse_segment_sum(jtf.constant(X), [0, 1], [0, 0], sparse_gradient=True)


def test_sparse_segment_ids_of_the_step_without_num_segments_raise():
    with jtf.Graph().as_default():
        ids = jtf.cast(jtf.placeholder(jtf.float32, [2]), jtf.int32)
        with pytest.raises(NotImplementedError, match="pass num_segments"):
            jtf.sparse_segment_sum(jtf.constant(X), [0, 1], ids)


# -- patches -----------------------------------------------------------------------------
IMAGES = (np.arange(2 * 5 * 6 * 3, dtype=np.float32).reshape(2, 5, 6, 3) - 40.0) / 9.0
VOLUMES = (np.arange(2 * 4 * 5 * 3 * 2, dtype=np.float32).reshape(2, 4, 5, 3, 2) - 50) / 11.0
PATCHES = {
    "image VALID": (
        lambda tf, x: tf.extract_image_patches(
            x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1], "VALID"
        ),
        IMAGES,
    ),
    "image SAME rates": (
        lambda tf, x: tf.extract_image_patches(
            x, ksizes=[1, 2, 2, 1], strides=[1, 3, 2, 1], rates=[1, 2, 1, 1], padding="SAME"
        ),
        IMAGES,
    ),
    "image.extract_patches": (
        lambda tf, x: tf.image.extract_patches(x, [1, 3, 2, 1], [1, 1, 2, 1], [1, 1, 2, 1], "SAME"),
        IMAGES,
    ),
    "volume VALID": (
        lambda tf, x: tf.extract_volume_patches(x, [1, 2, 3, 2, 1], [1, 1, 2, 1, 1], "VALID"),
        VOLUMES,
    ),
    "volume SAME": (
        lambda tf, x: tf.extract_volume_patches(x, [1, 3, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
        VOLUMES,
    ),
}


@pytest.mark.parametrize("case", list(PATCHES))
def test_patches_as_tf(case):
    build, value = PATCHES[case]
    assert_twins(*run_both(lambda tf: _graded(tf, build, value)), rtol=1e-6)


# -- required_space_to_batch_paddings, to_complex ----------------------------------------
PADDINGS = {
    "no base": lambda tf: tf.required_space_to_batch_paddings([4, 5], [2, 3]),
    "base": lambda tf: tf.required_space_to_batch_paddings([7, 5], [4, 2], [[1, 0], [2, 3]]),
    "computed shape": lambda tf: tf.required_space_to_batch_paddings(
        tf.shape(tf.zeros([3, 6, 5]))[1:], [4, 2]
    ),
}


@pytest.mark.parametrize("case", list(PADDINGS))
def test_required_space_to_batch_paddings_as_tf(case):
    def script(tf):
        out = PADDINGS[case](tf)
        return lambda sess: (sess.run(out), _static(out), [t.name for t in out])

    assert_twins(*run_both(script), rtol=0)


def test_to_complex_as_tf():
    def script(tf):
        outs = [
            tf.to_complex64(tf.constant(X)),
            tf.to_complex128(tf.constant(X64)),
            tf.to_complex64(tf.constant([1, 2])),
            tf.to_complex128(tf.constant(X), name="c"),
        ]
        return lambda sess: (sess.run(outs), _static(outs), [t.name for t in outs])

    assert_twins(*run_both(script), rtol=0)


@pytest.mark.parametrize(
    "name",
    [
        "dynamic_partition",
        "setdiff1d",
        "sparse_segment_sum",
        "sparse_segment_mean",
        "sparse_segment_sqrt_n",
        "extract_image_patches",
        "extract_volume_patches",
        "required_space_to_batch_paddings",
        "to_complex64",
        "to_complex128",
    ],
)
def test_signature_is_tfs(name):
    def params(f):
        return [
            (p.name, None if p.default is p.empty else str(p.default))
            for p in inspect.signature(f).parameters.values()
        ]

    assert name in jtf.__all__
    theirs = params(getattr(tf1, name))
    ours = params(getattr(jtf, name))
    if name == "setdiff1d":  # TF's default is the DType tf.int32, ours its name
        assert theirs[2] == ("index_dtype", "<dtype: 'int32'>")
        theirs[2] = ("index_dtype", "int32")
    assert ours == theirs


# -- edit_distance -----------------------------------------------------------------------
def _sparse(tf, indices, values, shape, dtype=None):
    return tf.SparseTensor(indices, tf.constant(values, dtype), shape)


EDITS = {
    "one row each": lambda tf: (
        _sparse(tf, [[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 2]),
        _sparse(tf, [[0, 0], [1, 0]], [1, 4], [2, 1]),
    ),
    "longer sequences, gaps in positions": lambda tf: (
        _sparse(
            tf,
            [[0, 0], [0, 1], [0, 2], [0, 4], [1, 1], [1, 3], [2, 0]],
            [3, 1, 4, 1, 5, 9, 2],
            [3, 5],
        ),
        _sparse(tf, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], [3, 4, 1, 9, 5, 5], [3, 4]),
    ),
    "empty truth and empty hypothesis rows": lambda tf: (
        _sparse(tf, [[0, 0], [0, 1], [2, 0]], [1, 2, 7], [4, 3]),
        _sparse(tf, [[1, 0], [2, 0], [2, 1]], [5, 7, 7], [4, 2]),
    ),
    "rank 3, int64 values": lambda tf: (
        _sparse(tf, [[0, 0, 0], [0, 1, 0], [1, 1, 1]], [2**40, 2**40 + 1, 3], [2, 2, 2], tf.int64),
        _sparse(tf, [[0, 0, 0], [0, 0, 1], [1, 1, 0]], [2**40, 2, 3], [2, 2, 3], tf.int64),
    ),
    "strings (on the host)": lambda tf: (
        _sparse(
            tf, [[0, 0], [0, 1], [0, 2], [1, 0], [2, 1]], ["the", "cat", "sat", "a", "b"], [4, 3]
        ),
        _sparse(
            tf, [[0, 0], [0, 1], [1, 0], [1, 1], [3, 0]], ["the", "sat", "a", "x", "y"], [4, 2]
        ),
    ),
    "strings, rank 3": lambda tf: (
        _sparse(tf, [[0, 0, 0], [0, 0, 1], [1, 1, 0]], ["ab", "c", "d"], [2, 2, 2]),
        _sparse(tf, [[0, 0, 0], [1, 1, 0], [1, 1, 1]], ["ab", "d", "d"], [2, 2, 2]),
    ),
    "float values, truth wider": lambda tf: (
        _sparse(tf, [[0, 0], [0, 1]], [0.5, 1.5], [1, 2]),
        _sparse(tf, [[0, 0], [0, 1], [1, 0]], [0.5, 2.5, 1.0], [2, 2]),
    ),
}


@pytest.mark.parametrize("case", list(EDITS))
def test_edit_distance_as_tf(case):
    def script(tf):
        hyp, truth = EDITS[case](tf)
        outs = [tf.edit_distance(hyp, truth), tf.edit_distance(hyp, truth, normalize=False)]
        return lambda sess: (sess.run(outs), _static(outs), [t.name for t in outs])

    assert_twins(*run_both(script), rtol=1e-6)


def test_edit_distance_of_computed_strings_as_tf():
    def script(tf):
        words = tf.SparseTensor([[0, 0], [0, 1]], tf.constant(["x", "y"]), [1, 2])
        hyp = tf.SparseTensor(
            [[0, 0], [0, 1]], tf.strings.join([words.values, tf.constant(["", "z"])]), [1, 2]
        )
        out = tf.edit_distance(hyp, words, normalize=False)
        return lambda sess: (sess.run(out), _static([out]))

    assert_twins(*run_both(script), rtol=0)


def test_edit_distance_fed_sparse_as_tf():
    def script(tf):
        hyp = tf.sparse_placeholder(tf.int32, shape=[None, None])
        truth = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], [1, 2, 3], [2, 2])
        out = tf.edit_distance(hyp, truth)
        values = tf1.SparseTensorValue if tf is tf1 else jtf.SparseTensorValue
        feeds = [
            values(np.array([[0, 0], [1, 1]]), np.array([1, 3], np.int32), np.array([2, 3])),
            values(np.array([[1, 0]]), np.array([2], np.int32), np.array([2, 1])),
        ]
        return lambda sess: ([sess.run(out, {hyp: f}) for f in feeds], _static([out]))

    assert_twins(*run_both(script), rtol=1e-6)


def test_edit_distance_errors_as_tf():
    for tf in (tf1, jtf):
        with pytest.raises(TypeError, match="Hypothesis must be a SparseTensor."):
            run_once(tf, lambda tf: tf.edit_distance(tf.constant([1]), tf.constant([1])))
    for tf in (tf1, jtf):
        with pytest.raises(TypeError, match="has type int32 that does not match type string"):
            run_once(
                tf,
                lambda tf: tf.edit_distance(
                    tf.SparseTensor([[0, 0]], ["a"], [1, 1]),
                    tf.SparseTensor([[0, 0]], tf.constant([1]), [1, 1]),
                ),
            )


# -- tf.sets -----------------------------------------------------------------------------
DENSE_A = np.array([[3, 1, 3, 0], [2, 2, 2, 2], [7, 8, 9, 7]], np.int32)
DENSE_B = np.array([[1, 5, 5, 7], [2, 9, 9, 9], [6, 6, 6, 6]], np.int32)
SPARSE = ([[0, 0], [0, 2], [1, 1], [1, 3], [2, 0]], [5, 5, 1, 2, 4], [3, 4])
SPARSE2 = ([[0, 1], [2, 0], [2, 1]], [5, 4, 3], [3, 2])


def _sp(tf, triple, dtype="int32"):
    indices, values, shape = triple
    return tf.SparseTensor(indices, tf.constant(values, dtype), shape)


SETS = {
    "intersection": lambda tf: tf.sets.intersection(DENSE_A, DENSE_B),
    "set_intersection": lambda tf: tf.sets.set_intersection(DENSE_A, DENSE_B),
    "union": lambda tf: tf.sets.union(DENSE_A, DENSE_B),
    "set_union": lambda tf: tf.sets.set_union(tf.constant(DENSE_A), DENSE_B),
    "difference": lambda tf: tf.sets.difference(DENSE_A, DENSE_B),
    "set_difference b-a": lambda tf: tf.sets.set_difference(DENSE_A, DENSE_B, aminusb=False),
    "dense, sparse": lambda tf: tf.sets.intersection(DENSE_A[:, :3], _sp(tf, SPARSE)),
    "sparse, dense (flipped)": lambda tf: tf.sets.union(_sp(tf, SPARSE), DENSE_B),
    "difference sparse, dense (flipped)": lambda tf: tf.sets.difference(_sp(tf, SPARSE), DENSE_A),
    "sparse, sparse": lambda tf: tf.sets.union(_sp(tf, SPARSE), _sp(tf, SPARSE2)),
    "sparse minus sparse": lambda tf: tf.sets.difference(_sp(tf, SPARSE), _sp(tf, SPARSE2)),
    "rank 3": lambda tf: tf.sets.intersection(
        np.array([[[1, 2], [3, 3]], [[4, 4], [5, 6]]], np.int32),
        np.array([[[2, 2], [3, 1]], [[9, 9], [6, 5]]], np.int32),
    ),
    "int64 exact": lambda tf: tf.sets.union(
        tf.constant([[2**53 + 1, 2**53]], tf.int64), tf.constant([[2**53 + 2, 2**53]], tf.int64)
    ),
    "strings": lambda tf: tf.sets.union([["a", "b"], ["c", "c"]], [["c", "a"], ["b", "a"]]),
    "empty results": lambda tf: tf.sets.intersection([[1, 2]], [[3, 4]]),
    "computed in the step": lambda tf: tf.sets.intersection(
        tf.constant(DENSE_A) * 2, tf.constant(DENSE_B) + 1
    ),
}


@pytest.mark.parametrize("case", list(SETS))
def test_set_operation_as_tf(case):
    def script(tf):
        out = SETS[case](tf)
        parts = [out.indices, out.values, out.dense_shape]
        return lambda sess: (tuple(sess.run(parts)), _static(parts), [t.name for t in parts])

    assert_twins(*run_both(script), rtol=0)


def test_set_operation_of_fed_values_as_tf():
    def script(tf):
        a = tf.placeholder(tf.int32, [None, 3])
        out = tf.sets.union(a, tf.constant([[1, 1, 2], [4, 5, 6]]))
        parts = [out.indices, out.values, out.dense_shape]
        feeds = [{a: [[2, 0, 0], [6, 6, 6]]}, {a: [[9, 8, 7], [1, 1, 1]]}]
        return lambda sess: ([tuple(sess.run(parts, f)) for f in feeds], _static(parts))

    assert_twins(*run_both(script), rtol=0)


SIZES = {
    "size": lambda tf: tf.sets.size(_sp(tf, SPARSE)),
    "set_size": lambda tf: tf.sets.set_size(_sp(tf, SPARSE2)),
    "rank 3, int64": lambda tf: tf.sets.size(
        tf.SparseTensor(
            [[0, 0, 0], [0, 0, 1], [1, 1, 0]], tf.constant([2**40, 2**40, 3], tf.int64), [2, 2, 2]
        )
    ),
    "strings": lambda tf: tf.sets.size(tf.SparseTensor([[0, 0], [0, 1]], ["x", "y"], [1, 2])),
    "not validated": lambda tf: tf.sets.size(_sp(tf, SPARSE), validate_indices=False),
}


@pytest.mark.parametrize("case", list(SIZES))
def test_set_size_as_tf(case):
    def script(tf):
        out = SIZES[case](tf)
        return lambda sess: (sess.run(out), _static([out]), out.name)

    assert_twins(*run_both(script), rtol=0)


SET_ERRORS = {
    "size out of order": (
        lambda tf: tf.sets.size(tf.SparseTensor([[0, 2], [0, 1]], [1, 2], [1, 3])),
        "",
    ),
    "size out of bounds": (
        lambda tf: tf.sets.size(tf.SparseTensor([[0, 5]], [1], [1, 3])),
        "indices[0] = [0,5] is out of bounds: need 0 <= index < [1,3]",
    ),
    "sparse shapes differ": (
        lambda tf: tf.sets.union(
            _sp(tf, SPARSE), tf.SparseTensor([[0, 0]], tf.constant([1]), [4, 2])
        ),
        "Mismatched shapes [3] vs [4]",
    ),
}


@pytest.mark.parametrize("case", list(SET_ERRORS))
def test_set_errors_as_tf(case):
    """(Out of order: TF 2.21's message is empty; jtrain's says which index.)"""
    build, message = SET_ERRORS[case]
    _assert_same_error(build, message)


def test_set_argument_errors_as_tf():
    bad = {
        "Expected `SparseTensor`, got": lambda tf: tf.sets.size(tf.constant([[1, 2]])),
        "Invalid dtype `<dtype: 'float32'>` not in supported dtypes": lambda tf: tf.sets.size(
            tf.SparseTensor([[0, 0]], [1.0], [1, 1])
        ),
        "Types don't match, <dtype: 'int32'> vs <dtype: 'int64'>.": lambda tf: tf.sets.intersection(
            tf.constant([[1, 2]]), tf.constant([[1, 2]], tf.int64)
        ),
        "'a' has invalid dtype `<dtype: 'float32'>`": lambda tf: tf.sets.union(
            tf.constant([[1.0]]), tf.constant([[1.0]])
        ),
    }
    for message, build in bad.items():
        for tf in (tf1, jtf):
            with pytest.raises(TypeError, match=re.escape(message)):
                run_once(tf, build)
    for tf in (tf1, jtf):
        with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
            run_once(tf, lambda tf: tf.sets.union(tf.constant([1, 2]), tf.constant([1, 2])))
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but"):
            run_once(tf, lambda tf: tf.sets.union([[1, 2]], [[1], [2]]))


def test_sets_names_are_tfs():
    ours = sorted(n for n in jtf.sets.__all__)
    theirs = sorted(n for n in dir(tf1.sets) if not n.startswith("_"))
    assert ours == theirs
    for name in theirs:
        mine = inspect.signature(getattr(jtf.sets, name))
        assert [p.name for p in mine.parameters.values()] == [
            p.name for p in inspect.signature(getattr(tf1.sets, name)).parameters.values()
        ]


# -- fingerprint -------------------------------------------------------------------------
FINGERPRINTS = {
    "strings": lambda tf: tf.fingerprint(tf.constant(["ab", "c", ""])),
    "string rows": lambda tf: tf.fingerprint(tf.constant([["a", "b"], ["", "xyz"]])),
    "string rows of one": lambda tf: tf.fingerprint(tf.constant([["a"], ["b"]])),
    "int32 rows": lambda tf: tf.fingerprint(tf.constant([[1, 2, 3], [3, 4, 5]])),
    "int64 exact": lambda tf: tf.fingerprint(tf.constant([2**53 + 1, 2**53], tf.int64)),
    "float32": lambda tf: tf.fingerprint(tf.constant(X)),
    "float64, named": lambda tf: tf.fingerprint(tf.constant(X64), name="fp"),
    "bool, uint8": lambda tf: tf.concat(
        [
            tf.fingerprint(tf.constant([[True, False], [False, False]])),
            tf.fingerprint(tf.constant([[7, 255], [0, 1]], tf.uint8)),
        ],
        0,
    ),
    "computed in the step": lambda tf: tf.fingerprint(tf.constant(X) * 2.0 + 1.0),
    "empty": lambda tf: tf.fingerprint(tf.zeros([0, 3])),
}


@pytest.mark.parametrize("case", list(FINGERPRINTS))
def test_fingerprint_as_tf(case):
    def script(tf):
        out = FINGERPRINTS[case](tf)
        return lambda sess: (sess.run(out), _static([out]), out.name)

    assert_twins(*run_both(script), rtol=0)


def test_fingerprint_fed_as_tf():
    def script(tf):
        data = tf.placeholder(tf.int32, [None, 2])
        out = tf.fingerprint(data)
        feeds = [{data: [[1, 2]]}, {data: [[5, 6], [7, 8], [9, 9]]}]
        return lambda sess: ([sess.run(out, f) for f in feeds], _static([out]))

    assert_twins(*run_both(script), rtol=0)


def test_fingerprint_errors_as_tf():
    for tf in (tf1, jtf):
        with pytest.raises(ValueError, match="Unsupported method: md5"):
            run_once(tf, lambda tf: tf.fingerprint(tf.constant([1, 2]), method="md5"))
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
            run_once(tf, lambda tf: tf.fingerprint(tf.constant(1)))


def test_sparse_segment_embedding_training_step_as_tf():
    """The embedding use: fed ids and segments, a variable table, SGD steps."""

    def script(tf):
        table = tf.get_variable("table", initializer=tf.constant(X))
        ids = tf.placeholder(tf.int64, [None])
        segments = tf.placeholder(tf.int32, [None])
        pooled = tf.sparse_segment_sqrt_n(table, ids, segments, num_segments=3)
        loss = tf.reduce_sum(tf.square(pooled - 0.5))
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        feeds = [
            {ids: [4, 0, 0, 2], segments: [0, 0, 1, 2]},
            {ids: [1, 3], segments: [2, 2]},
        ]

        def run(sess):
            out = []
            for f in feeds:
                out.append(sess.run([pooled, loss], f))
                sess.run(step, f)
            return out, sess.run(table), _static([pooled])

        return run

    assert_twins(*run_both(script), rtol=1e-6)
