"""More of ``tf.sparse`` as TF1 embedding/recommender scripts use it, checked live against
TF 2.21 (``twin.py``): ``SparseTensor.from_value``, ``tf.sparse.reset_shape``,
``fill_empty_rows``, ``eye``, ``maximum``/``minimum``, ``slice``, ``split``: values,
dtypes, static shapes, gradients where TF has them, and TF's errors.

Before, each of these names raised ``AttributeError`` under ``from adapters import v1 as
tf``, and ``SparseTensor.from_value`` of a value with list indices raised ``ValueError``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

IDX = np.array([[0, 1], [1, 3], [1, 4], [3, 0]], np.int64)
VALS = np.array([1.5, -2.0, 3.25, 0.5], np.float32)
SHAPE = np.array([5, 6], np.int64)


def _static(t):
    shape = t.get_shape()
    return None if shape.ndims is None else shape.as_list()


def _plain(values):
    """SparseTensorValues (TF's class or jtrain's) as lists of their three arrays."""
    if type(values).__name__ == "SparseTensorValue":
        return [values.indices, values.values, values.dense_shape]
    if isinstance(values, (list, tuple)):
        return [_plain(v) for v in values]
    return values


def _run_error(e):
    """TF's run error message: the line before ``[[{{node ...}}]]`` (jtrain's: its first)."""
    lines = str(getattr(e, "message", e)).split("\n")
    ends = [i for i, line in enumerate(lines) if line.strip().startswith("[[")]
    return lines[ends[0] - 1].strip() if ends else lines[0]


def test_from_value_of_lists_makes_int64_indices_and_shape():
    def script(tf):
        sp = tf.SparseTensor.from_value(tf.SparseTensorValue([[0, 1]], [1.5], [2, 2]))
        info = [sp.indices.dtype.name, sp.dense_shape.dtype.name, sp.dtype.name, _static(sp)]

        def run(sess):
            return info, _plain(sess.run(sp)), sess.run(tf.sparse.to_dense(sp))

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_fill_empty_rows_values_indicator_static_shapes_and_gradients():
    unsorted = IDX[[2, 3, 0, 1]]

    def script(tf):
        v = tf.Variable(VALS)
        d = tf.Variable(7.0)
        sp = tf.SparseTensor(IDX, v, SHAPE)
        out, empty = tf.sparse.fill_empty_rows(sp, d)
        top, top_empty = tf.sparse_fill_empty_rows(tf.SparseTensor(unsorted, VALS, SHAPE), -1.0)
        ph = tf.sparse_placeholder(tf.int64, shape=[None, 6])
        fed, fed_empty = tf.sparse.fill_empty_rows(ph, 9)
        none, none_empty = tf.sparse.fill_empty_rows(
            tf.SparseTensor(np.zeros((0, 3), np.int64), np.zeros(0, np.float64), [2, 3, 4]), 0.5
        )
        weights = np.arange(1, 7, dtype=np.float32)
        grads = tf.gradients(tf.reduce_sum(out.values * weights), [v, d])
        statics = [
            [_static(x), x.indices.shape.as_list(), x.values.shape.as_list(), e.shape.as_list()]
            for x, e in ((out, empty), (top, top_empty), (fed, fed_empty), (none, none_empty))
        ]
        dtypes = [out.values.dtype.name, empty.dtype.name, fed.values.dtype.name]

        def run(sess):
            big = np.array([2**62 + 1, -(2**53) - 1], np.int64)
            feed = {ph: (np.array([[1, 0], [3, 5]], np.int64), big, [4, 6])}
            return (
                statics, dtypes,
                _plain(sess.run([out, empty, top, top_empty, none, none_empty])),
                _plain(sess.run([fed, fed_empty], feed)), sess.run(grads),
            )  # fmt: skip

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert ours[3][0][1][1] == 2**62 + 1


@pytest.mark.parametrize("row", [5, -1])
def test_fill_empty_rows_row_out_of_range_is_tfs_error(row):
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 6])
        out, _ = tf.sparse.fill_empty_rows(sp, 0.0)

        def run(sess):
            try:
                sess.run(out.values, {sp: ([[0, 1], [row, 2]], [1.0, 2.0], [5, 6])})
            except tf.errors.InvalidArgumentError as e:
                return _run_error(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


def test_reset_shape_tight_given_fed_values_static_shapes_and_gradients():
    def script(tf):
        v = tf.Variable(VALS)
        sp = tf.SparseTensor(IDX, v, SHAPE)
        tight = tf.sparse.reset_shape(sp)
        given = tf.sparse_reset_shape(sp, [7, 8])
        as_int32 = tf.sparse.reset_shape(sp, tf.constant([6, 6]))
        ph = tf.sparse_placeholder(tf.float32, shape=[None, 6])
        new = tf.placeholder(tf.int64, [None])
        fed = tf.sparse.reset_shape(ph, new)
        grads = tf.gradients(tf.reduce_sum(given.values * [1.0, 2.0, 3.0, 4.0]), v)
        outs = [tight, given, as_int32]
        statics = [_static(x) for x in (*outs, fed)]
        dtypes = [x.dense_shape.dtype.name for x in (*outs, fed)]

        def run(sess):
            feed = {ph: (IDX, VALS, [4, 6]), new: [4, 9]}
            try:
                sess.run(fed, {ph: (IDX, VALS, [4, 6]), new: [3, 9]})
                small = None
            except tf.errors.InvalidArgumentError:
                small = "InvalidArgumentError"
            return statics, dtypes, _plain(sess.run(outs)), _plain(sess.run(fed, feed)), (
                sess.run(grads), small,
            )  # fmt: skip

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert ours[-1][-1] == "InvalidArgumentError"


@pytest.mark.parametrize("new_shape", [[4, 5], [7, 8, 9]])
def test_reset_shape_smaller_or_other_rank_is_tfs_value_error(new_shape):
    def script(tf):
        try:
            tf.sparse.reset_shape(tf.SparseTensor(IDX, VALS, SHAPE), new_shape)
            message = None
        except ValueError as e:
            message = str(e)
        return lambda sess: message

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


def test_eye_values_static_shapes_and_dtypes():
    def script(tf):
        n = tf.placeholder(tf.int32, [])
        outs = [
            tf.sparse.eye(3), tf.sparse.eye(2, 4, dtype=tf.int64),
            tf.sparse.eye(tf.constant(4), np.int64(3), dtype=tf.float64),
        ]  # fmt: skip
        fed = tf.sparse.eye(n, 2)
        info = [[_static(x), x.indices.shape.as_list(), x.dtype.name] for x in (*outs, fed)]
        try:
            tf.sparse.eye(2.0)
            err = None
        except TypeError as e:
            err = str(e)

        def run(sess):
            return info, err, _plain(sess.run(outs)), _plain(sess.run(fed, {n: 3}))

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


B_IDX = np.array([[0, 1], [0, 2], [1, 4], [4, 5]], np.int64)
B_VALS = np.array([-3.0, 2.5, 1.0, -0.25], np.float32)


def test_maximum_minimum_union_values_static_shapes_and_no_gradient():
    def script(tf):
        v = tf.Variable(VALS)
        a = tf.SparseTensor(IDX, v, SHAPE)
        b = tf.SparseTensor(B_IDX, B_VALS, SHAPE)
        ph = tf.sparse_placeholder(tf.int64, shape=[None, 6])
        outs = [tf.sparse.maximum(a, b), tf.sparse_minimum(a, b), tf.sparse_maximum(b, a)]
        fed = tf.sparse.minimum(ph, ph)
        info = [[_static(x), x.indices.shape.as_list(), x.values.shape.as_list()] for x in outs]
        try:
            tf.sparse.maximum(a, tf.SparseTensor(IDX, VALS.astype(np.float64), SHAPE))
            err = None
        except TypeError as e:
            err = str(e)

        def run(sess):
            big = np.array([2**62 + 1, -(2**53) - 1], np.int64)
            feed = {ph: (np.array([[1, 0], [3, 5]], np.int64), big, [4, 6])}
            return info, err, _plain(sess.run(outs)), _plain(sess.run(fed, feed))

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert ours[-1][1][0] == 2**62 + 1


def test_maximum_gradient_raises_as_tf():
    """TF 2.21's registered gradient of SparseSparseMaximum is meant to raise
    NotImplementedError; it takes one argument too few, so tf.gradients raises TypeError
    when the graph is built. jtrain raises the intended NotImplementedError when the
    step computing the gradient is traced (documented in sparse_maximum)."""

    def build(tf):
        v = tf.Variable(VALS)
        out = tf.sparse.maximum(
            tf.SparseTensor(IDX, v, SHAPE), tf.SparseTensor(B_IDX, B_VALS, SHAPE)
        )
        return v, tf.gradients(tf.reduce_sum(out.values), v)

    def script(tf):
        try:
            build(tf)
        except TypeError as e:
            arity = "takes 2 positional arguments" in str(e)
            return lambda sess: ["TypeError", arity]
        _, grads = build(tf)

        def run(sess):
            try:
                sess.run(grads)
            except NotImplementedError as e:
                return ["NotImplementedError", str(e)]
            return None

        return run

    theirs, ours = run_both(script)
    assert theirs == ["TypeError", True]
    assert ours == [
        "NotImplementedError",
        "Gradient for SparseSparseMaximum is currently not implemented yet.",
    ]


@pytest.mark.parametrize("other", [([[0, 1]], [5, 7]), ([[1]], [5])])
def test_maximum_of_other_shapes_is_tfs_error(other):
    def script(tf):
        a = tf.SparseTensor(IDX, VALS, SHAPE)
        out = tf.sparse.maximum(a, tf.SparseTensor(other[0], [1.0], other[1]))

        def run(sess):
            try:
                sess.run(out.values)
            except tf.errors.InvalidArgumentError as e:
                return _run_error(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


def test_slice_values_static_shapes_and_gradients():
    def script(tf):
        v = tf.Variable(VALS)
        sp = tf.SparseTensor(IDX, v, SHAPE)
        ph = tf.sparse_placeholder(tf.int64, shape=[None, 6])
        outs = [
            tf.sparse.slice(sp, [1, 1], [3, 10]), tf.sparse_slice(sp, [-1, 1], [3, 2]),
            tf.sparse.slice(sp, [4, 0], [2, 6]), tf.sparse.slice(sp, [9, 9], [1, 1]),
        ]  # fmt: skip
        fed = tf.sparse.slice(ph, tf.constant([1, 0], tf.int64), [2, 6])
        weights = [[1.0, 2.0], [1.0], [], []]
        grads = tf.gradients(
            tf.add_n([tf.reduce_sum(o.values * w) for o, w in zip(outs, weights, strict=True)]), v
        )
        info = [[_static(x), x.indices.shape.as_list(), x.values.shape.as_list()] for x in outs]

        def run(sess):
            big = np.array([2**62 + 1, -(2**53) - 1, 5], np.int64)
            feed = {ph: (np.array([[1, 0], [2, 5], [3, 5]], np.int64), big, [4, 6])}
            return info, _plain(sess.run(outs)), _plain(sess.run(fed, feed)), sess.run(grads)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert ours[2][1][0] == 2**62 + 1


def test_split_parts_static_shapes_deprecated_alias_and_no_gradient():
    def script(tf):
        v = tf.Variable(VALS)
        sp = tf.SparseTensor(IDX, v, SHAPE)
        ph = tf.sparse_placeholder(tf.float32, shape=[None, 6])
        cols = tf.sparse.split(sp_input=sp, num_split=4, axis=1)
        rows = tf.sparse_split(sp_input=sp, num_split=2, axis=-2, name="rows")
        fed = tf.sparse.split(sp_input=ph, num_split=3, axis=0)
        info = [[_static(x), x.indices.shape.as_list()] for x in (*cols, *rows, *fed)]
        errs = []
        for call in (
            lambda: tf.sparse.split(sp, 2, 1),
            lambda: tf.sparse.split(sp_input=sp, num_split=2, split_dim=1),
            lambda: tf.sparse.split(sp_input=sp, num_split=2, axis=1, split_dim=1),
            lambda: tf.sparse.split(num_split=2, axis=1),
            lambda: tf.sparse.split(sp_input=sp, axis=1),
        ):
            try:
                call()
                errs.append(None)
            except ValueError as e:
                errs.append(str(e))
        try:  # TF: LookupError when the graph is built; jtrain: when the step is traced
            grads, no_grad = tf.gradients(cols[0].values, v), None
        except LookupError as e:
            grads, no_grad = None, str(e).split(".")[0]

        def run(sess):
            nonlocal no_grad
            if grads is not None:
                try:
                    sess.run(grads)
                except LookupError as e:
                    no_grad = str(e).split(".")[0]
            feed = {ph: (IDX[:3], VALS[:3], [3, 6])}
            return (
                info, errs, _plain(sess.run(cols)), _plain(sess.run(rows)),
                _plain(sess.run(fed, feed)), [x.values.name for x in rows], no_grad,
            )  # fmt: skip

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


@pytest.mark.parametrize("axis, num_split", [(2, 2), (1, 7)])
def test_split_bad_axis_or_num_split_is_tfs_error(axis, num_split):
    def script(tf):
        sp = tf.SparseTensor(IDX, VALS, SHAPE)
        out = tf.sparse.split(sp_input=sp, num_split=num_split, axis=axis)

        def run(sess):
            try:
                sess.run(out[0].values)
            except tf.errors.InvalidArgumentError as e:
                return _run_error(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


def test_reduce_sum_and_max_sparse_values_static_shapes_and_no_gradient():
    unsorted = np.array([[3, 0, 1], [1, 3, 0], [0, 1, 1], [1, 4, 1], [1, 3, 1]], np.int64)
    values = np.array([1.5, -2.0, 3.25, 0.5, -4.0], np.float32)

    def script(tf):
        v = tf.Variable(values)
        sp = tf.SparseTensor(unsorted, v, [5, 6, 2])
        ph = tf.sparse_placeholder(tf.int64, shape=[None, 6])
        outs = [
            tf.sparse.reduce_sum_sparse(sp, 1), tf.sparse_reduce_sum_sparse(sp, [0, 2]),
            tf.sparse.reduce_max_sparse(sp, -1, keepdims=True),
            tf.sparse_reduce_max_sparse(sp, reduction_axes=1, keep_dims=True),
            tf.sparse.reduce_sum_sparse(sp), tf.sparse.reduce_max_sparse(sp, [0, 1, 2]),
        ]  # fmt: skip
        fed = tf.sparse.reduce_sum_sparse(ph, 1)
        info = [[_static(x), x.indices.shape.ndims, x.values.shape.ndims] for x in outs]
        try:  # TF: LookupError when the graph is built; jtrain: when the step is traced
            grads, no_grad = tf.gradients(outs[0].values, v), None
        except LookupError as e:
            grads, no_grad = None, str(e).split(".")[0]
        both = []  # TF names the deprecated argument first
        for call in (
            lambda: tf.sparse.reduce_sum_sparse(sp, axis=1, reduction_axes=1),
            lambda: tf.sparse.reduce_max_sparse(sp, keepdims=True, keep_dims=True),
            lambda: tf.sparse.reduce_sum(sp, axis=1, reduction_axes=1),
            lambda: tf.sparse.concat(axis=1, sp_inputs=[sp, sp], concat_dim=1),
        ):
            try:
                call()
                both.append(None)
            except ValueError as e:
                both.append(str(e))

        def run(sess):
            nonlocal no_grad
            if grads is not None:
                try:
                    sess.run(grads)
                except LookupError as e:
                    no_grad = str(e).split(".")[0]
            big = np.array([2**62 + 1, -(2**53) - 1, 5], np.int64)
            feed = {ph: (np.array([[1, 0], [3, 5], [3, 1]], np.int64), big, [4, 6])}
            return info, both, no_grad, _plain(sess.run(outs)), _plain(sess.run(fed, feed))

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert ours[-1][1][0] == 2**62 + 1


def test_reduce_sum_sparse_axis_out_of_range_is_tfs_error():
    def script(tf):
        out = tf.sparse.reduce_sum_sparse(tf.SparseTensor(IDX, VALS, SHAPE), 2)

        def run(sess):
            try:
                sess.run(out.values)
            except tf.errors.InvalidArgumentError as e:
                return _run_error(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


def test_mask_of_indexed_slices_values_and_gradients():
    def script(tf):
        v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
        a = tf.IndexedSlices(v, tf.constant([12, 26, 37, 26]), tf.constant([40, 3]))
        kept = tf.sparse.mask(a, [26, 5])
        top = tf.sparse_mask(a, tf.constant([12]), name="drop")
        grads = tf.convert_to_tensor(
            tf.gradients(tf.reduce_sum(kept.values * [[1.0], [2.0]]), v)[0]
        )
        info = [
            [x.values.shape.as_list(), x.indices.shape.as_list(), x.indices.dtype.name]
            for x in (kept, top)
        ]

        def run(sess):
            out = sess.run([kept.values, kept.indices, top.values, top.indices])
            return info, out, sess.run(kept.dense_shape), sess.run(grads)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_merge_ids_and_values_sorted_or_not_and_lists():
    ids_idx = np.array([[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], np.int64)

    def script(tf):
        v = tf.Variable(np.array([0.5, -1.0, 2.0, 3.0, 1.5], np.float32))
        ids = tf.SparseTensor(ids_idx, np.array([4, 1, 0, 3, 2], np.int32), [3, 3])
        ids2 = tf.SparseTensor(ids_idx, np.array([1, 0, 1, 0, 1], np.int64), [3, 3])
        values = tf.SparseTensor(ids_idx, v, [3, 3])
        outs = [
            tf.sparse.merge(ids, values, 5), tf.sparse_merge(ids, values, tf.constant(6)),
            tf.sparse.merge(ids, values, 5, already_sorted=True),
            tf.sparse.merge([ids, ids2], values, [5, 2]),
        ]  # fmt: skip
        grads = tf.gradients(tf.reduce_sum(outs[0].values * [1.0, 2.0, 3.0, 4.0, 5.0]), v)
        info = [[_static(x), x.indices.shape.as_list()] for x in outs]
        errs = []
        for call in (
            lambda: tf.sparse.merge(ids, values, 5.0),
            lambda: tf.sparse.merge([ids, ids2], values, [5]),
            lambda: tf.sparse.merge([ids], values, 5),
        ):
            try:
                call()
                errs.append(None)
            except (TypeError, ValueError) as e:
                errs.append([type(e).__name__, str(e)])

        def run(sess):
            return info, errs, _plain(sess.run(outs)), sess.run(grads)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
