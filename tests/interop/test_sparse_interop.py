"""Sparse inputs as TF1 recommender/NLP scripts use them, checked live against TF 2.21
(``twin.py``): ``tf.sparse_placeholder`` fed a ``SparseTensorValue`` or a tuple, TF's
sparse ops (``tf.sparse``, ``tf.sparse_tensor_to_dense``...) on it, their gradients,
errors, and an embedding model over fed sparse ids trained with Adagrad.

Before ``ops/sparse_ops.py``, ``tf.sparse_placeholder`` and every sparse op raised
``AttributeError`` under ``from adapters import v1 as tf``, and
``embedding_lookup_sparse`` refused fed ids (``ValueError``).
"""

from __future__ import annotations

import numpy as np
import pytest

from jtrain._eigen.matmul import onednn_sgemm
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

# Whether TF here runs the sgemm whose order jtrain reproduces (else jtrain takes XLA's dot).
ONEDNN_GEMM = onednn_sgemm()

IDX = np.array([[0, 1], [1, 3], [1, 4], [2, 0]], np.int64)
VALS = np.array([1.5, -2.0, 3.25, 0.5], np.float32)
SHAPE = np.array([3, 5], np.int64)
B = (np.arange(15, dtype=np.float32).reshape(5, 3) - 6.0) / 4.0


def _value(tf, idx=IDX, vals=VALS, shape=SHAPE):
    return tf.SparseTensorValue(idx, vals, shape)


def _plain(values):
    """SparseTensorValues (TF's class or jtrain's) as lists of their three arrays."""
    return [
        [v.indices, v.values, v.dense_shape] if type(v).__name__ == "SparseTensorValue" else v
        for v in values
    ]


def _static(t):
    shape = t.get_shape()
    return None if shape.ndims is None else shape.as_list()


def test_placeholder_fed_a_value_or_a_tuple_and_fetched():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5], name="sp")
        sp_any = tf.sparse_placeholder(tf.int64)
        minus_one = tf.sparse_placeholder(tf.float32, shape=[-1, 5])
        from_tensor = tf.sparse_placeholder(tf.float32, shape=tf.constant([-1, 5], tf.int64))
        dense = tf.sparse.to_dense(sp)
        statics = [_static(x) for x in (sp, sp_any, dense, minus_one, from_tensor)]
        names = [sp.indices.name, sp.values.name, sp.dense_shape.name, sp.dense_shape.op.type]
        dtypes = [sp.indices.dtype.name, sp.dense_shape.dtype.name, sp_any.values.dtype.name]

        def run(sess):
            a = sess.run([sp, dense], {sp: _value(tf)})
            b = sess.run(dense, {sp: (IDX[:2], VALS[:2], [2, 5])})
            big = np.array([2**62 + 1, -(2**53) - 1], np.int64)
            c = sess.run(tf.sparse.to_dense(sp_any), {sp_any: ([[0, 1], [1, 0]], big, [2, 2])})
            fetched = a[0]
            return (
                statics, names, dtypes, type(fetched).__name__,
                [fetched.indices, fetched.values, fetched.dense_shape], a[1], b, c,
            )  # fmt: skip

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
    assert ours[-1][0, 1] == 2**62 + 1  # int64 values keep every bit


def test_dense_array_fed_to_a_sparse_placeholder_is_tfs_value_error():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5], name="sp")
        dense = tf.sparse.to_dense(sp)

        def run(sess):
            try:
                sess.run(dense, {sp: np.ones((2, 5), np.float32)})
            except ValueError as e:
                return str(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


def test_to_dense_default_value_and_static_shapes():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        const = tf.SparseTensor(IDX, VALS, SHAPE)
        outs = [
            tf.sparse.to_dense(sp, default_value=-1.0),
            tf.sparse_tensor_to_dense(const),
            tf.sparse_to_dense(IDX, SHAPE, VALS, default_value=7.0),
            tf.sparse_to_dense([0, 3], [5], 2.5),
            tf.sparse.to_dense(tf.sparse.reorder(tf.SparseTensor(IDX[::-1], VALS[::-1], SHAPE))),
        ]

        def run(sess):
            return [_static(o) for o in outs], _static(const), sess.run(outs, {sp: _value(tf)})

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


BAD = {
    "out of order": (IDX[[1, 0, 2, 3]], True),
    "repeated": (IDX[[0, 0, 2, 3]], True),
    "out of bounds": (np.array([[0, 1], [0, 9], [1, 4], [2, 0]], np.int64), True),
    "negative": (np.array([[0, -1], [0, 1], [1, 4], [2, 0]], np.int64), True),
    "out of bounds unvalidated": (np.array([[0, 1], [0, 9], [1, 4], [2, 0]], np.int64), False),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_to_dense_validation_errors(case):
    indices, validate = BAD[case]

    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        dense = tf.sparse.to_dense(sp, validate_indices=validate)

        def run(sess):
            try:
                sess.run(dense, {sp: _value(tf, indices)})
            except tf.errors.OpError as e:
                return type(e).__name__, e.message
            return None

        return run

    theirs, ours = run_both(script)
    assert ours is not None and theirs is not None
    assert ours[0] == theirs[0] == "InvalidArgumentError"
    assert ours[1] in theirs[1]  # TF's adds "Graph execution error" and the node


def test_to_dense_unvalidated_repeats_take_the_last_value_and_tfs_gradient():
    idx = IDX[[0, 0, 2, 1]]

    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        default = tf.constant(0.5)
        dense = tf.sparse_to_dense(sp.indices, sp.dense_shape, sp.values, default, False)
        w = tf.constant(np.arange(15, dtype=np.float32).reshape(3, 5))
        grads = tf.gradients(tf.reduce_sum(dense * w), [sp.values, default])

        def run(sess):
            return sess.run([dense, grads], {sp: _value(tf, idx)})

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_reduce_sum_axes_and_keepdims():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        const = tf.SparseTensor(IDX, VALS, SHAPE)
        outs = [
            tf.sparse.reduce_sum(sp),
            tf.sparse.reduce_sum(sp, axis=1),
            tf.sparse.reduce_sum(sp, axis=0, keepdims=True),
            tf.sparse.reduce_sum(sp, axis=[-1, 0]),
            tf.sparse_reduce_sum(sp, reduction_axes=1, keep_dims=True),
            tf.sparse.reduce_sum(const, axis=1),
        ]
        grads = tf.gradients(tf.reduce_sum(outs[1] * [1.0, 2.0, 3.0]), sp.values)

        def run(sess):
            unordered = _value(tf, IDX[[3, 1, 0, 2]], VALS[[3, 1, 0, 2]])
            return [_static(o) for o in outs[-1:]], sess.run([outs, grads], {sp: unordered})

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_sparse_dense_matmul_values_and_gradients(adjoint_a, adjoint_b):
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32)
        b_value = B
        if adjoint_a:
            b_value = np.arange(12, dtype=np.float32).reshape(3, 4) / 3.0
        if adjoint_b:
            b_value = b_value.T.copy()
        b = tf.constant(b_value)
        out = tf.sparse.sparse_dense_matmul(sp, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
        out2 = tf.sparse_tensor_dense_matmul(sp, b, adjoint_a, adjoint_b)
        loss = tf.reduce_sum(out * out) + tf.reduce_sum(out2)
        grads = tf.gradients(loss, [b, sp.values])

        def run(sess):
            unordered = _value(tf, IDX[[2, 0, 3, 1]], VALS[[2, 0, 3, 1]])
            return _static(out), sess.run([out, grads], {sp: unordered})

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_sparse_dense_matmul_errors():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        out = tf.sparse.sparse_dense_matmul(sp, tf.constant(B))

        def run(sess):
            found = []
            for value in (
                _value(tf, np.array([[0, 1], [1, 7]], np.int64), VALS[:2]),
                _value(tf, np.array([[0, 1], [4, 2]], np.int64), VALS[:2]),
                _value(tf, IDX[:1], VALS[:1], [2, 6]),
            ):
                try:
                    sess.run(out, {sp: value})
                    found.append(None)
                except tf.errors.OpError as e:
                    found.append((type(e).__name__, e.message))
            return found

        return run

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        assert o is not None and t is not None
        assert o[0] == t[0] and o[1] in t[1], (o, t)


def test_add_sparse_and_dense_with_gradients():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        dense = tf.constant(np.arange(15, dtype=np.float32).reshape(3, 5))
        a = tf.sparse.add(sp, dense)
        b = tf.sparse_add(dense, sp)
        w = tf.constant(np.linspace(-1, 1, 15, dtype=np.float32).reshape(3, 5))
        grads = tf.gradients(tf.reduce_sum(a * w) + tf.reduce_sum(b * b), [dense, sp.values])

        def run(sess):
            return _static(a), sess.run([a, b, grads], {sp: _value(tf, IDX[[0, 0, 1, 3]])})

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_reorder_reshape_retain_from_dense():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        ordered = tf.sparse.reorder(sp)
        reshaped = tf.sparse.reshape(sp, [5, -1])
        # A fully known input shape: TF's constant dense shape, the -1 inferred.
        known = tf.sparse.reshape(tf.SparseTensor(IDX, VALS, SHAPE), [-1, 3])
        retained = tf.sparse.retain(tf.SparseTensor(IDX, VALS, SHAPE), [True, False, True, False])
        dense = np.array([[0, 2, 0], [1, 0, -3]], np.int32)
        from_dense = tf.sparse.from_dense(tf.constant(dense))
        grads = tf.gradients(tf.reduce_sum(ordered.values * [1.0, 2.0, 3.0, 4.0]), sp.values)

        def run(sess):
            unordered = _value(tf, IDX[[3, 1, 0, 2]], VALS[[3, 1, 0, 2]])
            out = sess.run([ordered, reshaped, known, retained, from_dense, grads], {sp: unordered})
            statics = [_static(x) for x in (ordered, reshaped, known, retained, from_dense)]
            return statics, _plain(out)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


# Batches of fed sparse ids of different sizes (nnz 5, 3, 6), as a recommender feeds them;
# id 2 repeats within a batch (TF's unique ids, summed sparse gradient).
BATCHES = [
    (np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]]), np.array([2, 5, 2, 7, 1]), [3, 4]),
    (np.array([[0, 0], [1, 0], [2, 2]]), np.array([3, 3, 0]), [3, 4]),
    (
        np.array([[0, 0], [0, 3], [1, 1], [1, 2], [2, 0], [2, 3]]),
        np.array([1, 2, 2, 9, 4, 6]),
        [3, 4],
    ),
]
LABELS = np.array([[1.0], [0.0], [1.0]], np.float32)


@pytest.mark.parametrize("combiner", ["mean", "sqrtn", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_lookup_sparse_over_fed_ids_trained_with_adagrad(combiner, weighted):
    def script(tf):
        ids = tf.sparse_placeholder(tf.int64)
        weights = tf.sparse_placeholder(tf.float32) if weighted else None
        init = np.linspace(-1.0, 1.0, 10 * 4, dtype=np.float32).reshape(10, 4)
        table = tf.get_variable("table", initializer=tf.constant(init))
        w = tf.get_variable("w", initializer=tf.constant(np.ones((4, 1), np.float32) / 3))
        emb = tf.nn.embedding_lookup_sparse(table, ids, weights, combiner=combiner)
        logits = tf.matmul(emb, w)
        loss = tf.reduce_mean(
            tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant(LABELS), logits=logits)
        )
        train = tf.train.AdagradOptimizer(0.5).minimize(loss)

        def run(sess):
            losses = []
            for step, (i, v, s) in enumerate(BATCHES):
                feed = {ids: tf.SparseTensorValue(i, v.astype(np.int64), s)}
                if weighted:
                    wv = np.linspace(0.5, 2.0, len(v)).astype(np.float32) * (step + 1)
                    feed[weights] = (i, wv, s)
                losses.append(sess.run([loss, train], feed)[0])
            return _static(emb), losses, sess.run([table, w])

        return run

    theirs, ours = run_both(script)
    # ``matmul(emb, w)`` (K = 4): where TF here runs Eigen's ``MatMul`` (not the oneDNN
    # sgemm jtrain reproduces), jtrain's XLA dot rounds its sums in another order, and a
    # weight that trains near zero moves by more than rtol (9.8e-6 relative, 4.5e-8 off
    # 0.0046, measured on an AMD EPYC): within an ulp of 1 (the table's and weights'
    # scale) besides.
    assert_twins(theirs, ours, rtol=2e-6, atol=0.0 if ONEDNN_GEMM else 2.0**-23)


def test_safe_embedding_lookup_sparse_over_fed_ids():
    def script(tf):
        ids = tf.sparse_placeholder(tf.int64, shape=[None, None])
        table = tf.constant(np.arange(24, dtype=np.float32).reshape(6, 4) / 5.0)
        out = tf.nn.safe_embedding_lookup_sparse(table, ids, default_id=5)
        grad = tf.gradients(tf.reduce_sum(out * out), table)[0]

        def run(sess):
            results = []
            for i, v, s in BATCHES[:2]:
                # Row 3 has no ids, id -1 is dropped.
                v = np.where(v > 5, -1, v).astype(np.int64)
                value = tf.SparseTensorValue(i, v, [s[0] + 1, s[1]])
                results.append(sess.run([out, tf.convert_to_tensor(grad)], {ids: value}))
            return _static(out), results

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_no_values_fed():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        b = tf.constant(B)
        outs = [
            tf.sparse.to_dense(sp),
            tf.sparse.reduce_sum(sp, axis=1),
            tf.sparse.sparse_dense_matmul(sp, b),
            tf.sparse.add(sp, tf.ones([2, 5])),
        ]
        grads = tf.gradients(tf.reduce_sum(outs[2]), b)

        def run(sess):
            empty = (np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [2, 5])
            return _plain(sess.run([sp, outs, grads], {sp: empty}))

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_transpose_expand_dims_to_indicator():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        const = tf.SparseTensor(IDX, VALS, SHAPE)
        ids = tf.sparse_placeholder(tf.int64, shape=[None, None])
        outs = [
            tf.sparse.transpose(sp),
            tf.sparse.transpose(const, [1, 0]),
            tf.sparse.expand_dims(sp, 1),
            tf.sparse.expand_dims(const),
            tf.sparse.expand_dims(const, -3),
        ]
        indicator = tf.sparse.to_indicator(ids, 6)
        grads = tf.gradients(tf.reduce_sum(outs[0].values * [1.0, 2.0, 3.0, 4.0]), sp.values)

        def run(sess):
            unordered = _value(tf, IDX[[3, 1, 0, 2]], VALS[[3, 1, 0, 2]])
            id_value = (IDX[:3], np.array([5, 0, 3], np.int64), [2, 4])
            values = sess.run([outs, indicator, grads], {sp: unordered, ids: id_value})
            statics = [_static(x) for x in [*outs, indicator]]
            try:
                sess.run(indicator, {ids: (IDX[:1], np.array([6], np.int64), [1, 4])})
                error = None
            except tf.errors.OpError as e:
                error = type(e).__name__
            return statics, _plain(values[0]), values[1:], error

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(axis):
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        const = tf.SparseTensor(IDX, VALS, SHAPE)
        other = tf.SparseTensor(IDX[:2] + [0, 0], VALS[:2] * 2, [3, 5])
        joined = tf.sparse.concat(axis, [sp, const])
        consts = tf.sparse_concat(axis, [const, other])
        wide = tf.sparse.concat(axis, [const, tf.SparseTensor([[0, 6]], [9.0], [1, 7])],
                                expand_nonconcat_dim=True)  # fmt: skip
        # TF gives SparseConcat no gradient (None).
        grads = tf.gradients(tf.reduce_sum(joined.values * tf.range(8.0)), [sp.values])

        def run(sess):
            values = sess.run([joined, consts, wide], {sp: _value(tf)}) + [grads]
            try:
                sess.run(joined, {sp: _value(tf, IDX, VALS, [3, 6] if axis == 0 else [4, 5])})
                error = None
            except tf.errors.OpError as e:
                error = (type(e).__name__, e.message)
            statics = [_static(x) for x in (joined, consts, wide)]
            return statics, _plain(values[:3]), values[3], error

        return run

    theirs, ours = run_both(script)
    t_error, o_error = theirs[-1], ours[-1]
    assert_twins(theirs[:-1], ours[:-1], rtol=0)
    assert o_error is not None and t_error is not None
    assert o_error[0] == t_error[0] and o_error[1] in t_error[1], (o_error, t_error)


def test_reduce_max_and_softmax():
    def script(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        negative = tf.SparseTensor(IDX, -VALS - 1.0, SHAPE)
        ints = tf.SparseTensor(IDX, np.array([-3, 4, -5, -6], np.int32), [4, 5])
        maxes = [
            tf.sparse.reduce_max(sp),
            tf.sparse.reduce_max(sp, axis=1),
            tf.sparse_reduce_max(negative, reduction_axes=0, keep_dims=True),
            tf.sparse.reduce_max(ints, 1),
        ]
        softmax = tf.sparse.softmax(sp)
        const_softmax = tf.sparse_softmax(negative)
        grads = tf.gradients(tf.reduce_sum(softmax.values * [1.0, -2.0, 3.0, 0.5]), sp.values)

        def run(sess):
            values = sess.run([maxes, softmax, const_softmax, grads], {sp: _value(tf)})
            statics = [_static(x) for x in [*maxes, softmax, const_softmax]]
            return statics, values[0], _plain(values[1:3]), values[3]

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_reduce_max_has_no_gradient():
    """TF raises LookupError in tf.gradients; jtrain raises it when the step is traced."""
    from adapters import v1 as jtf
    from tests.interop.twin import classic_tf1, tf1

    with classic_tf1(), tf1.Graph().as_default():
        sp = tf1.SparseTensor(IDX, VALS, SHAPE)
        with pytest.raises(LookupError, match="SparseReduceMax"):
            tf1.gradients(tf1.reduce_sum(tf1.sparse.reduce_max(sp, 1)), sp.values)
    with jtf.Graph().as_default():
        sp = jtf.SparseTensor(IDX, VALS, SHAPE)
        grad = jtf.gradients(jtf.reduce_sum(jtf.sparse.reduce_max(sp, 1)), sp.values)[0]
        with jtf.Session() as sess, pytest.raises(LookupError, match="SparseReduceMax"):
            sess.run(grad)


def test_transpose_static_shape_of_placeholders():
    """TF's static shape of a transpose: the permuted shape when the input's is fully
    known (a sparse_placeholder of shape [3, 5]), all dimensions unknown when it is only
    partly known (jtrain gave [None, None] for the fully known one)."""

    def script(tf):
        full = tf.sparse_placeholder(tf.float32, shape=[3, 5])
        partial = tf.sparse_placeholder(tf.float32, shape=[None, 5])
        cube = tf.sparse_placeholder(tf.float32, shape=[2, 3, 4])
        outs = [
            tf.sparse.transpose(full),
            tf.sparse.transpose(full, [1, 0]),
            tf.sparse.transpose(partial),
            tf.sparse.transpose(cube, [0, 2, 1]),
        ]
        cube_value = (np.array([[0, 1, 3], [1, 2, 0]], np.int64), VALS[:2], [2, 3, 4])

        def run(sess):
            feed = {full: _value(tf), partial: _value(tf), cube: cube_value}
            values = sess.run(outs, feed)
            return [_static(x) for x in outs], _plain(values)

        return run

    theirs, ours = run_both(script)
    assert theirs[0] == [[5, 3], [5, 3], [None, None], [2, 4, 3]]
    assert_twins(theirs, ours, rtol=0)


@pytest.mark.parametrize("reduce", ["reduce_sum", "reduce_max"])
@pytest.mark.parametrize("axis", [2, -3])
@pytest.mark.parametrize("fed", [True, False])
def test_reduce_axis_out_of_range_fails_at_run_as_tf(reduce, axis, fed):
    """TF builds a sparse reduction over an axis out of range and raises its
    InvalidArgumentError when it runs; jtrain raised ValueError when the graph was built
    (which ``except tf.errors.InvalidArgumentError`` does not catch)."""

    def script(tf):
        if fed:
            sp = tf.sparse_placeholder(tf.float32, shape=[3, 5])
        else:
            sp = tf.SparseTensor(IDX, VALS, SHAPE)
        out = getattr(tf.sparse, reduce)(sp, axis=axis)

        def run(sess):
            try:
                sess.run(out, {sp: _value(tf)} if fed else None)
            except tf.errors.InvalidArgumentError as e:
                # TF's run errors: a header and the node's traceback, then the message
                # on the line before ``[[{{node ...}}]]``
                lines = str(getattr(e, "message", e)).split("\n")
                ends = [i for i, line in enumerate(lines) if line.strip().startswith("[[")]
                return lines[ends[0] - 1].strip() if ends else lines[0]
            return None

        return run

    theirs, ours = run_both(script)
    assert theirs == f"Invalid reduction dimension {axis}, for input with 2 dimensions."
    assert ours == theirs
