"""``tf.gather``/``tf.gather_nd``/``tf.batch_gather`` checked live against TF 2.21
(``twin.py``): out-of-range indices, ``batch_dims``, values, static shapes,
gradients (``IndexedSlices`` or dense, as TF returns them) and TF's errors.

Before: ``tf.gather_nd`` returned zeros for an out-of-range index where TF's CPU
kernel raises ``InvalidArgumentError``, and ``batch_dims`` raised
``NotImplementedError`` in both ops.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, kernel_message, run_both

pytestmark = pytest.mark.interop

P = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 4.0
W = np.linspace(-1.0, 1.0, 48, dtype=np.float32)

I64 = np.int64

# name -> build(tf, params) of the op under test
CASES = {
    "gather axis 1": lambda tf, x: tf.gather(x, [2, 0], axis=1),
    "gather axis -1": lambda tf, x: tf.gather(x, [[3, 0], [1, 1]], axis=-1),
    "gather axis 0": lambda tf, x: tf.gather(x, [1, 0, 1]),
    "gather batch_dims 1": lambda tf, x: tf.gather(x, [[2, 0], [1, 1]], batch_dims=1),
    "gather batch_dims 1 axis 1": lambda tf, x: tf.gather(x, [[2, 0], [1, 1]], 1, None, 1, 1),
    "gather batch_dims 1 axis 2": lambda tf, x: tf.gather(
        x, [[2, 0], [1, 3]], axis=2, batch_dims=1
    ),
    "gather batch_dims 1 axis -1": lambda tf, x: tf.gather(x, [[3], [1]], axis=-1, batch_dims=1),
    "gather batch_dims -1": lambda tf, x: tf.gather(x, [[2, 0], [1, 1]], axis=1, batch_dims=-1),
    "gather batch_dims 2": lambda tf, x: tf.gather(x, [[[0, 3], [1, 1], [2, 0]]] * 2, batch_dims=2),
    "gather batch_dims = rank(indices)": lambda tf, x: tf.gather(x, [1, 2], axis=1, batch_dims=1),
    "gather batch_dims int64": lambda tf, x: tf.gather(
        x, np.array([[2, 0], [1, 1]], I64), axis=1, batch_dims=1
    ),
    # TF's tf.gather drops batch_dims when axis is 0: a plain gather along axis 0
    "gather axis 0 drops batch_dims": lambda tf, x: tf.gather(x, [[1, 0], [1, 1]], 0, None, 0, 1),
    "gather_nd rows": lambda tf, x: tf.gather_nd(x, [[1], [0], [1]]),
    "gather_nd pairs": lambda tf, x: tf.gather_nd(x, [[1, 2], [0, 0]]),
    "gather_nd scalars int64": lambda tf, x: tf.gather_nd(x, np.array([[1, 2, 3], [0, 0, 1]], I64)),
    "gather_nd batch_dims 1": lambda tf, x: tf.gather_nd(x, [[[1], [0]], [[2], [2]]], batch_dims=1),
    "gather_nd batch_dims 1 pairs": lambda tf, x: tf.gather_nd(x, [[1, 2], [0, 1]], batch_dims=1),
    "gather_nd batch_dims 2": lambda tf, x: tf.gather_nd(x, [[[0], [3], [1]]] * 2, batch_dims=2),
    "gather_nd batch_dims tensor": lambda tf, x: tf.gather_nd(
        x, [[[1], [0]], [[2], [2]]], batch_dims=tf.constant(1)
    ),
    "gather_nd batch_dims int64": lambda tf, x: tf.gather_nd(
        x, np.array([[[1, 3]], [[2, 0]]], I64), batch_dims=1
    ),
    # TF reshapes the indices' batch dimensions to params' batch size (6 = 3 * 2)
    "gather_nd batch_dims reshaped": lambda tf, x: tf.gather_nd(
        x, np.zeros((3, 2, 1), np.int32) + [[[0]], [[1]], [[2]]], batch_dims=2
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_gather_values_shapes_and_gradients_as_tf(case):
    """Values, dtype and static shape; the gradient's kind (TF's ``IndexedSlices`` for
    a plain gather of rows, dense otherwise) and its values."""
    seen = {}

    def script(tf):
        x = tf.placeholder(tf.float32, [2, 3, 4])
        y = CASES[case](tf, x)
        weights = tf.constant(W[: int(np.prod(y.shape.as_list()))].reshape(y.shape.as_list()))
        (grad,) = tf.gradients(tf.reduce_sum(y * weights), [x])
        seen[tf.__name__] = (y.shape.as_list(), type(grad).__name__)
        dense = tf.convert_to_tensor(grad)
        return lambda sess: sess.run([y, dense], {x: P})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    (tf_shape, tf_kind), (our_shape, our_kind) = seen.values()
    assert our_shape == tf_shape
    assert (our_kind == "IndexedSlices") == (tf_kind == "IndexedSlices"), (our_kind, tf_kind)


def test_gather_nd_ignore_policy_as_tf():
    """``bad_indices_policy="IGNORE"``: an out-of-range row reads zeros (no error)."""

    def script(tf):
        i = tf.placeholder(tf.int32, [None, 1])
        y = tf.gather_nd(tf.constant(P), i, bad_indices_policy="IGNORE")
        return lambda sess: sess.run(y, {i: [[1], [5], [-1]]})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_gather_nd_no_rows_of_empty_params_as_tf():
    """No index row: an empty result, no error (TF refuses any row of empty params)."""

    def script(tf):
        i = tf.placeholder(tf.int32, [None, 1])
        y = tf.gather_nd(tf.zeros([0, 3]), i)
        return lambda sess: sess.run(y, {i: np.zeros((0, 1), np.int32)})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_gather_nd_batch_dims_of_unknown_size_as_tf():
    """Placeholders of unknown batch size: values as TF's (static shapes: see below)."""
    shapes = {}

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 3, 4])
        i = tf.placeholder(tf.int32, [None, 2, 1])
        y = tf.gather_nd(x, i, batch_dims=1)
        shapes[tf.__name__] = y.shape.as_list()
        return lambda sess: sess.run(y, {x: P, i: [[[1], [0]], [[2], [2]]]})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    assert list(shapes.values())[0] == list(shapes.values())[1] == [None, 2, 4]


# name -> (build(tf, index placeholder) -> op, the index placeholder's dtype and shape,
# the fed indices)
RUN_ERRORS = {
    "gather_nd past the end (the brief's repro)": (
        lambda tf, i: tf.gather_nd(tf.constant([1.0, 2.0, 3.0]), i),
        "int32",
        [None, 1],
        [[5]],
    ),
    "gather_nd negative": (
        lambda tf, i: tf.gather_nd(tf.constant([1.0, 2.0, 3.0]), i),
        "int32",
        [None, 1],
        [[1], [-1]],
    ),
    "gather_nd int64 pairs": (
        lambda tf, i: tf.gather_nd(tf.constant(P[0]), i),
        "int64",
        [None, 2],
        [[0, 1], [3, 0]],
    ),
    "gather_nd one index row": (
        lambda tf, i: tf.gather_nd(tf.constant(P), i),
        "int32",
        [3],
        [1, 3, 9],
    ),
    "gather_nd reports the last bad row": (
        lambda tf, i: tf.gather_nd(tf.constant([1.0, 2.0, 3.0]), i),
        "int32",
        [None, 1],
        [[7], [0], [5], [1]],
    ),
    "gather_nd position in indices": (
        lambda tf, i: tf.gather_nd(tf.constant(P[0]), i),
        "int32",
        [2, 2, 2],
        [[[0, 5], [9, 0]], [[0, 0], [0, 4]]],
    ),
    "gather_nd error policy": (
        lambda tf, i: tf.gather_nd(tf.constant(P), i, bad_indices_policy="ERROR"),
        "int32",
        [None, 1],
        [[5]],
    ),
    "gather_nd batch_dims 1": (
        lambda tf, i: tf.gather_nd(tf.constant(P), i, batch_dims=1),
        "int32",
        [None, None, 1],
        [[[0], [1]], [[2], [3]]],
    ),
    "gather_nd batch_dims 2": (
        lambda tf, i: tf.gather_nd(tf.constant(P), i, batch_dims=2),
        "int32",
        [2, 3, 1],
        [[[0], [1], [2]], [[3], [4], [5]]],
    ),
    "gather_nd batch_dims negative": (
        lambda tf, i: tf.gather_nd(tf.constant(P), i, batch_dims=1),
        "int64",
        [2, 2, 1],
        [[[0], [-1]], [[2], [1]]],
    ),
    "gather_nd empty params": (
        lambda tf, i: tf.gather_nd(tf.zeros([0, 3]), i),
        "int32",
        [None, 1],
        [[0]],
    ),
    "gather_nd empty params, ignore policy": (
        lambda tf, i: tf.gather_nd(tf.zeros([0, 3]), i, bad_indices_policy="IGNORE"),
        "int32",
        [None, 1],
        [[0]],
    ),
    "gather_nd empty params, rows in range": (
        lambda tf, i: tf.gather_nd(tf.zeros([2, 0]), i),
        "int32",
        [None, 2],
        [[1, 0]],
    ),
    "gather empty axis": (
        lambda tf, i: tf.gather(tf.zeros([0, 3]), i),
        "int32",
        [None],
        [0],
    ),
    "gather axis 1": (
        lambda tf, i: tf.gather(tf.constant(P[0]), i, axis=1),
        "int32",
        [None],
        [0, 4],
    ),
    "gather negative int64": (
        lambda tf, i: tf.gather(tf.constant(P[0]), i),
        "int64",
        [None],
        [0, -1],
    ),
    "gather batch_dims 1": (
        lambda tf, i: tf.gather(tf.constant(P), i, axis=1, batch_dims=1),
        "int32",
        [2, None],
        [[7, 0], [5, 9]],
    ),
    "gather batch_dims past axis": (
        lambda tf, i: tf.gather(tf.constant(P), i, axis=1, batch_dims=2),
        "int32",
        [2, 3],
        np.zeros((2, 3), np.int32),
    ),
    "gather batch dimensions differ": (
        lambda tf, i: tf.gather(tf.constant(P), i, axis=1, batch_dims=1),
        "int32",
        [3, 2],
        np.zeros((3, 2), np.int32),
    ),
    "batch_gather": (
        lambda tf, i: tf.batch_gather(tf.constant(P[0, :2]), i),
        "int32",
        [2, None],
        [[0], [4]],
    ),
}


@pytest.mark.parametrize("case", list(RUN_ERRORS))
def test_gather_run_errors_as_tf(case):
    """TF's CPU kernels raise ``InvalidArgumentError`` with these messages."""
    build, dtype, shape, fed = RUN_ERRORS[case]

    def script(tf):
        i = tf.placeholder(getattr(tf, dtype), shape)
        y = build(tf, i)

        def run(sess):
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(y, {i: fed})
            return kernel_message(info.value)

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


BUILD_ERRORS = {
    "gather batch_dims past params": lambda tf, x: tf.gather(x, [[2, 0], [1, 1]], batch_dims=3),
    "gather batch_dims past -rank(indices)": lambda tf, x: tf.gather(x, [[2, 0]], batch_dims=-3),
    "gather batch_dims past rank(indices)": lambda tf, x: tf.gather(x, [1], axis=2, batch_dims=2),
    "gather axis past params": lambda tf, x: tf.gather(x, [1], axis=3),
    "gather axis before params": lambda tf, x: tf.gather(x, [1], axis=-4),
    "gather batch_dims tensor": lambda tf, x: tf.gather(
        x, [[1]], axis=1, batch_dims=tf.constant(1)
    ),
    "gather_nd negative batch_dims": lambda tf, x: tf.gather_nd(x, [[[1]], [[0]]], batch_dims=-1),
    "gather_nd batch_dims past indices": lambda tf, x: tf.gather_nd(
        x, [[[1]], [[0]]], batch_dims=3
    ),
    "gather_nd batch_dims past params": lambda tf, x: tf.gather_nd(
        x, np.zeros((2, 3, 4, 5, 1), np.int32), batch_dims=3
    ),
    "gather_nd rows past params' rank": lambda tf, x: tf.gather_nd(x, [[0, 0, 0, 0]]),
    "gather_nd batch sizes differ": lambda tf, x: tf.gather_nd(
        x, np.zeros((3, 2, 1), np.int32), batch_dims=1
    ),
}


@pytest.mark.parametrize("case", list(BUILD_ERRORS))
def test_gather_build_errors_as_tf(case):
    """TF's error class and message (up to TF's ``for '{{node ...}}`` suffix)."""

    def script(tf):
        with pytest.raises((ValueError, TypeError)) as info:
            BUILD_ERRORS[case](tf, tf.constant(P))
        message = str(info.value).split(" for '")[0].split(" with input shapes")[0]
        if case == "gather batch_dims tensor":  # the tensors' reprs differ
            message = message.split(" not ")[0]
        kind = next(c for c in type(info.value).__mro__ if c in (ValueError, TypeError))
        return lambda sess: (kind.__name__, message)

    theirs, ours = run_both(script)
    assert ours == theirs
