"""Ops whose output sizes depend on values computed in the step, checked live against
TF 2.21 (``twin.py``): ``tf.boolean_mask`` of a mask from a float feed, a large int
feed, a variable, a model's output; values over successive runs whose counts change,
dtypes, static shapes, gradients (values, types, dense shapes) and TF's errors.

All raised ``NotImplementedError`` in jtrain (the mask had to be known when the step
is compiled); a mask of a fed int vector failed with a build-time trial size in its
message. Now the session computes the sizes before the step
(``framework/data_sizes.py``, ``client/sized_programs.py``).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from tests.interop.twin import assert_twins, classic_tf1, kernel_message, run_both, tf1

pytestmark = pytest.mark.interop

# Quarters: float32 sums exact in any order.
FEEDS = [
    np.array([1.0, -2.0, 3.0, 0.25], np.float32),
    np.array([-1.0, -2.0, -3.0], np.float32),  # nothing selected
    np.array([0.5, 2.0, 3.0, 4.25, -7.0, 6.0], np.float32),
    np.array([1.75, -2.0, 3.0, 0.5], np.float32),  # the first run's count, other values
]


def _static(t):
    return None if t.shape.ndims is None else t.shape.as_list()


def _grad_info(g):
    """A gradient's Python type and static shape (TF's Tensor or IndexedSlices)."""
    kind = "IndexedSlices" if hasattr(g, "indices") else type(g).__name__
    return "Tensor" if kind in ("Tensor", "SymbolicTensor") else kind, _static(g)


def test_boolean_mask_by_a_float_feed():
    def script(tf):
        x = tf.placeholder(tf.float32, [None])
        picked = tf.boolean_mask(x, x > 0)
        total = tf.reduce_sum(picked)
        loss = tf.reduce_sum(tf.square(picked)) + 3.0 * total
        grad = tf.gradients(loss, x)[0]
        static = [_static(picked), _static(total), _grad_info(grad)]
        return lambda sess: (static, [sess.run([picked, total, grad], {x: v}) for v in FEEDS])

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0] == [[None], [], ("Tensor", [None])]
    assert_twins(theirs[1], ours[1])


def test_boolean_mask_of_a_variable_by_a_large_int_feed():
    """The brief's repro: jtrain raised 'Shapes (3,) and (1048583,) are incompatible'."""

    def script(tf):
        y = tf.placeholder(tf.int32, [None])
        v = tf.Variable([1.0, 2.0, 3.0])
        picked = tf.boolean_mask(v, tf.not_equal(y, 0))
        loss = tf.reduce_mean(picked)
        (grad,) = tf.gradients(loss, v)
        static = [_static(picked), _grad_info(grad)]
        feeds = [[1, 0, 2], [0, 0, 7], [5, 6, 7], [0, 0, 0]]
        return lambda sess: (static, [sess.run([picked, loss, grad], {y: f}) for f in feeds])

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def test_boolean_mask_by_a_variable_that_training_changes():
    """The mask reads a variable that each step's update changes: the count follows."""

    def script(tf):
        w = tf.Variable([0.25, -0.5, 1.0, -1.0, 2.0])
        picked = tf.boolean_mask(w, w > 0.0)
        loss = tf.reduce_sum(picked * 2.0)
        train = tf.train.GradientDescentOptimizer(0.375).minimize(loss)

        def run(sess):
            out = []
            for _ in range(4):
                out.append(sess.run([picked, loss]))
                sess.run(train)
            return out, sess.run(w)

        return run

    assert_twins(*run_both(script))


def test_boolean_mask_of_model_outputs_in_a_training_step():
    """Per-example losses kept where the model is wrong (its argmax), minimized."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        labels = tf.placeholder(tf.int64, [None])
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 8.0 - 0.25)
        logits = tf.matmul(x, w)
        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        wrong = tf.not_equal(tf.argmax(logits, 1), labels)
        kept = tf.boolean_mask(losses, wrong)
        loss = tf.reduce_sum(kept) / tf.maximum(tf.cast(tf.size(kept), tf.float32), 1.0)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        rng = np.random.RandomState(3)
        batches = [
            (rng.randint(-4, 5, (n, 3)).astype(np.float32) / 4, rng.randint(0, 2, n))
            for n in (4, 6, 5)
        ]

        def run(sess):
            out = []
            for bx, by in batches:
                out.append(sess.run([kept, loss, train], {x: bx, labels: by})[:2])
            return out, sess.run(w)

        return run

    assert_twins(*run_both(script), rtol=2e-5)


def test_boolean_mask_2d_mask_and_axis():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        z = tf.placeholder(tf.float32, [2, None, 2])
        rows = tf.boolean_mask(x, x > 0.0)  # a 2-D mask: elements
        cols = tf.boolean_mask(z, tf.reduce_sum(z, [0, 2]) > 0.0, axis=1)
        loss = tf.reduce_sum(rows * rows) + tf.reduce_sum(cols * 3.0)
        grads = tf.gradients(loss, [x, z])
        static = [_static(rows), _static(cols), [_grad_info(g) for g in grads]]
        xs = [np.arange(-3, 9, dtype=np.float32).reshape(4, 3) / 4, -np.ones((2, 3), np.float32)]
        zs = [np.arange(-6, 6, dtype=np.float32).reshape(2, 3, 2) / 2, np.ones((2, 1, 2))]

        def run(sess):
            return static, [
                sess.run([rows, cols, *grads], {x: a, z: b}) for a, b in zip(xs, zs, strict=True)
            ]

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def test_boolean_mask_int64_and_float64_exact():
    def script(tf):
        y = tf.placeholder(tf.int64, [None])
        f = tf.placeholder(tf.float64, [None])
        big = tf.boolean_mask(y, y > 2**40)
        small = tf.boolean_mask(f, f < 0.1)
        feeds = {y: np.array([2**53 + 1, 3, -(2**60), 2**62 + 5]), f: [np.pi, -1e-300, 0.1]}
        return lambda sess: sess.run([big, small], feeds)

    assert_twins(*run_both(script), rtol=0)


def test_boolean_mask_errors_as_tf():
    from adapters import v1 as jtf

    cases = [
        (lambda tf: tf.boolean_mask(tf.placeholder(tf.float32, [None]), tf.zeros([]) > 0),
         "mask cannot be scalar"),
        (lambda tf: tf.boolean_mask(tf.placeholder(tf.float32, [3]), tf.placeholder(tf.bool, [4])),
         r"Shapes \(3,\) and \(4,\) are incompatible"),
        (lambda tf: tf.boolean_mask(
            tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.bool, [None, 4])),
         r"Shapes \(\?, 3\) and \(\?, 4\) are incompatible"),
        (lambda tf: tf.boolean_mask(tf.placeholder(tf.float32, [None]), tf.placeholder(tf.bool)),
         "Number of mask dimensions must be specified"),
    ]  # fmt: skip
    for build, message in cases:
        for tf in (tf1, jtf):
            classic = classic_tf1() if tf is tf1 else contextlib.nullcontext()
            with classic, tf.Graph().as_default(), pytest.raises(ValueError, match=message):
                build(tf)


def test_boolean_mask_fed_lengths_differ_at_run_time_as_tf():
    """Mask and tensor of unknown lengths fed differently: TF gathers at the mask's
    true positions (no error while they are in range; TF's gather error past it)."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None])
        m = tf.placeholder(tf.float32, [None])
        picked = tf.boolean_mask(x, m > 0)

        def run(sess):
            short = sess.run(picked, {x: [1.0, 2.0, 3.0], m: [1.0]})
            try:
                sess.run(picked, {x: [1.0, 2.0, 3.0], m: [1.0, 0.0, 0.0, 0.0, 1.0]})
            except Exception as e:  # noqa: BLE001 - the error is the result
                return short, kernel_message(e)
            return short, None

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs[0], ours[0])
    assert ours[1] == theirs[1] == ("InvalidArgumentError", "indices[1] = 4 is not in [0, 3)")


# -- tf.where(condition) -------------------------------------------------------------------
GRID = [
    np.array([[0.5, -1.0, 2.0], [-3.0, 0.0, 4.0]], np.float32),
    -np.ones((3, 3), np.float32),  # no coordinates
    np.array([[1.0, 2.0, 3.0]], np.float32),
]


def test_where_coordinates_of_a_computed_condition():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        labels = tf.placeholder(tf.int32, [None])
        coords = [
            tf.where(x > 0),
            tf.where_v2(tf.not_equal(x, 0.0)),
            tf.where(tf.cast(x, tf.int32)),  # a numeric condition: its nonzeros
            tf.where(labels > 0)[:, 0],  # detection: indices of positives
        ]
        positives = tf.gather_nd(x, coords[0])
        grad = tf.gradients(tf.reduce_sum(positives * positives), x)[0]
        static = [(_static(c), c.dtype.name) for c in coords] + [_grad_info(grad)]
        feeds = [{x: g, labels: np.arange(len(g) * 2) % 3} for g in GRID]
        return lambda sess: (static, [sess.run([coords, positives, grad], f) for f in feeds])

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=0)


def test_where_coordinates_of_a_variable_and_a_large_int_feed():
    def script(tf):
        v = tf.Variable([[3, 0, 1], [0, 0, 7]], dtype=tf.int64)
        ids = tf.placeholder(tf.int64, [None])
        a = tf.where(v > 0)
        b = tf.where(tf.equal(ids, 2**40))
        step = tf.assign_sub(v, tf.ones_like(v))

        def run(sess):
            out = []
            for f in ([2**40, 1, 2**40], [0], []):
                out.append(sess.run([a, b], {ids: np.array(f, np.int64)}))
                sess.run(step)
            return out

        return run

    assert_twins(*run_both(script), rtol=0)


def test_where_coordinates_of_a_scalar_or_unknown_rank_condition_as_tf():
    def script(tf):
        p = tf.placeholder(tf.float32, [])
        q = tf.placeholder(tf.float32)
        a, b = tf.where(p > 0), tf.compat.v1.where(q > 0)

        def run(sess):
            out = [_static(a), _static(b), sess.run(b, {q: [[1.0, -1.0]]})]
            for t, feeds in ((a, {p: 1.0}), (b, {q: 2.0})):
                try:
                    sess.run(t, feeds)
                except Exception as e:  # noqa: BLE001 - the error is the result
                    out.append(kernel_message(e))
            return out

        return run

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2] == [[None, 0], [None, None]]
    assert_twins(theirs[2], ours[2])
    expected = ("InvalidArgumentError", "WhereOp : Unhandled input dimensions: 0")
    assert ours[3:] == theirs[3:] == [expected, expected]


# -- tf.dynamic_partition ------------------------------------------------------------------
def test_dynamic_partition_by_computed_partitions():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, 2])
        v = tf.Variable([2, 0, 1, 1], dtype=tf.int32)
        parts = tf.dynamic_partition(x, tf.cast(tf.reduce_sum(x, 1) > 0, tf.int32), 2)
        by_var = tf.dynamic_partition(tf.constant([1.0, 2.0, 3.0, 4.0]), v, 3)
        loss = tf.reduce_sum(parts[0] * parts[0]) + 3.0 * tf.reduce_sum(parts[1])
        grad = tf.gradients(loss, x)[0]
        shift = tf.assign(v, tf.mod(v + 1, 3))
        static = [_static(t) for t in (*parts, *by_var)] + [_grad_info(grad)]
        xs = [
            np.array([[1.0, -2.0], [0.5, 0.25], [-1.0, -1.0]], np.float32),
            np.ones((2, 2), np.float32),
            np.zeros((0, 2), np.float32),  # no rows
        ]

        def run(sess):
            out = []
            for a in xs:
                out.append(sess.run([parts, by_var, grad], {x: a}))
                sess.run(shift)
            return static, out

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def test_dynamic_partition_of_elements_by_a_2d_computed_mask_int64_exact():
    def script(tf):
        y = tf.placeholder(tf.int64, [None, 2])
        outs = tf.dynamic_partition(y, tf.cast(y > 2**40, tf.int32), 2)
        feed = np.array([[2**53 + 1, 3], [-(2**60), 2**62 + 5]], np.int64)
        return lambda sess: ([_static(o) for o in outs], sess.run(outs, {y: feed}))

    assert_twins(*run_both(script), rtol=0)


def test_dynamic_partition_computed_partitions_out_of_range_as_tf():
    def script(tf):
        p = tf.placeholder(tf.float32, [None])
        outs = tf.dynamic_partition(tf.constant([1.0, 2.0, 3.0]), tf.cast(p, tf.int32), 2)

        def run(sess):
            try:
                sess.run(outs, {p: [0.0, 5.0, 1.0]})
            except Exception as e:  # noqa: BLE001 - the error is the result
                return kernel_message(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs == ("InvalidArgumentError", "partitions[1] = 5 is not in [0, 2)")


# -- tf.unique, tf.unique_with_counts ---------------------------------------------------------
def test_unique_of_computed_values_in_first_occurrence_order():
    def script(tf):
        y = tf.placeholder(tf.int32, [None])
        f = tf.placeholder(tf.float32, [4])
        u = tf.unique(y * 2)
        uc = tf.unique_with_counts(y, out_idx=tf.int64)
        of_mask = tf.unique(tf.boolean_mask(y, y > 0))  # two stages of sizes
        floats = tf.unique_with_counts(f + 0.0)  # NaNs distinct, -0.0 == 0.0 (TF's)
        outs = [u, uc, of_mask, floats]
        static = [[(_static(t), t.dtype.name) for t in o] for o in outs]
        feeds = [
            ([3, 1, 3, 5, 2, 1, -1, 0, 0], [np.nan, -0.0, 0.0, np.nan]),
            ([], [1.0, 1.0, 1.0, 1.0]),
            ([-4, -4], [2.0, 1.0, 2.0, 3.0]),
        ]

        def run(sess):  # (TF's namedtuples are another class than jtrain's: as lists)
            return static, [[list(o) for o in sess.run(outs, {y: a, f: b})] for a, b in feeds]

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=0)


def test_unique_of_a_variable_int64_exact_and_errors_as_tf():
    def script(tf):
        v = tf.Variable(np.array([2**53 + 1, 2**53, 2**53 + 1, -(2**62)], np.int64))
        u = tf.unique(v)
        bad = tf.placeholder(tf.float32)
        grad_error = None
        try:
            tf.gradients(tf.reduce_sum(tf.unique(tf.placeholder(tf.float32, [None])).y), [])
        except Exception as e:  # noqa: BLE001
            grad_error = type(e).__name__
        try:
            tf.unique(tf.placeholder(tf.float32, [None, 2]))
        except ValueError as e:
            build_error = str(e)
        u_bad = tf.unique(bad)

        def run(sess):
            try:
                sess.run(u_bad, {bad: [[1.0]]})
            except Exception as e:  # noqa: BLE001 - the error is the result
                run_error = kernel_message(e)
            return list(sess.run(u)), grad_error, build_error, run_error

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs[0], ours[0], rtol=0)
    assert ours[1:] == theirs[1:]


# -- tf.sequence_mask(lengths) without maxlen ----------------------------------------------
def test_sequence_mask_of_computed_lengths_and_masked_losses():
    """Padded tokens' losses masked out: ``boolean_mask(losses, sequence_mask(lengths))``
    with lengths fed, computed from floats and read from a variable; minimized."""

    def script(tf):
        tokens = tf.placeholder(tf.float32, [None, None])
        lengths = tf.placeholder(tf.int32, [None])
        floats = tf.placeholder(tf.float32, [None])
        w = tf.Variable(0.5)
        steps = tf.Variable([2, 1], dtype=tf.int64)
        losses = tf.square(tokens * w - 1.0)
        mask = tf.sequence_mask(lengths, tf.shape(tokens)[1])
        loss = tf.reduce_mean(tf.boolean_mask(losses, mask))
        train = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
        computed = [
            tf.sequence_mask(lengths * 2),
            tf.sequence_mask(floats * 1.5, dtype=tf.int32),  # float lengths: ceil(max)
            tf.sequence_mask(steps),
            tf.sequence_mask(lengths, maxlen=tf.reduce_max(lengths) + 1),
        ]
        static = [_static(m) for m in computed]
        bump = tf.assign_add(steps, [1, 2])
        batches = [
            (np.arange(8, dtype=np.float32).reshape(2, 4) / 4, [3, 1], [0.5, 2.0]),
            (np.ones((3, 2), np.float32), [2, 0, 1], [1.0, 0.25, 0.0]),
            (np.arange(6, dtype=np.float32).reshape(1, 6) / 8, [6], [-1.0]),
        ]

        def run(sess):
            out = []
            for x, n, f in batches:
                feeds = {tokens: x, lengths: n, floats: f}
                out.append(sess.run([loss, computed], feeds))
                sess.run([train, bump], feeds)
            return static, out, sess.run(w)

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:])


# -- segment_* of computed segment ids --------------------------------------------------------
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reductions_of_computed_ids(reduce):
    def script(tf):
        x = tf.placeholder(tf.float32, [None, 2])
        ids = tf.placeholder(tf.float32, [None])
        v = tf.Variable([0, 1, 1], dtype=tf.int64)
        op = getattr(tf, f"segment_{reduce}")
        out = op(x, tf.cast(ids, tf.int32))
        by_var = op(tf.constant([[1.0], [2.0], [4.0]]), v)
        grad = tf.gradients(tf.reduce_sum(out * out), x)[0]
        static = [_static(out), _static(by_var), _grad_info(grad)]
        shift = tf.assign_add(v, [0, 1, 2])
        feeds = [
            (np.arange(8, dtype=np.float32).reshape(4, 2) / 4 - 0.5, [0.0, 0.0, 2.0, 3.5]),
            (np.array([[1.0, -2.0]], np.float32), [4.0]),
            (np.zeros((0, 2), np.float32), []),
        ]

        def run(sess):
            out_values = []
            for a, b in feeds:
                out_values.append(sess.run([out, by_var, grad], {x: a, ids: b}))
                sess.run(shift)
            return static, out_values

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def test_dynamic_partition_computed_partitions_of_another_length_as_tf():
    def script(tf):
        x = tf.placeholder(tf.float32, [None])
        p = tf.placeholder(tf.float32, [None])
        outs = tf.dynamic_partition(x, tf.cast(p, tf.int32), 2)
        static_error = None
        try:
            tf.dynamic_partition(
                tf.zeros([5, 3]), tf.cast(tf.placeholder(tf.float32, [2]), tf.int32), 2
            )
        except ValueError as e:
            static_error = "Dimensions must be equal, but are 5 and 2" in str(e)

        def run(sess):
            try:
                sess.run(outs, {x: [1.0, 2.0, 3.0], p: [0.0, 1.0, 1.0, 0.0]})
            except Exception as e:  # noqa: BLE001 - the error is the result
                return static_error, kernel_message(e)
            return static_error, None

        return run

    theirs, ours = run_both(script)
    message = (
        "data.shape must start with partitions.shape, got data.shape = [3], partitions.shape = [4]"
    )
    assert ours == theirs == (True, ("InvalidArgumentError", message))


# -- tf.math.bincount without a fixed length ----------------------------------------------
def test_bincount_of_computed_values_without_a_fixed_length():
    def script(tf):
        a = tf.placeholder(tf.int32, [None])
        w = tf.placeholder(tf.float32, [None])
        v = tf.Variable([2, 0, 2], dtype=tf.int32)
        outs = [
            tf.math.bincount(a),
            tf.bincount(a, weights=w),
            tf.math.bincount(a, minlength=6),
            tf.math.bincount(a, maxlength=2),
            tf.math.bincount(a * 2, minlength=3, maxlength=5, dtype=tf.int64),
            tf.math.bincount(v),
            tf.math.bincount(a, minlength=3, maxlength=3),  # a fixed length
        ]
        static = [(_static(o), o.dtype.name) for o in outs]
        bump = tf.assign_add(v, [3, 1, 0])
        feeds = [([1, 3, 3, 0], [1.0, 2.0, 3.0, 4.0]), ([], []), ([7], [0.5])]

        def run(sess):
            out = []
            for x, y in feeds:
                out.append(sess.run(outs, {a: x, w: y}))
                sess.run(bump)
            return static, out

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=0)
