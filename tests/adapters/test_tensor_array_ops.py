"""``tf.TensorArray`` where jtrain differs from TF on purpose: what one compiled
program with static shapes cannot do raises a clear error, never a wrong value.

TF's own behaviour (values, gradients, shapes, TF's errors) is checked live in
``tests/interop/test_tensor_array_interop.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain import errors


def _run(build, feed=None):
    with tf.Graph().as_default():
        fetch = build()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(fetch, feed)


def test_dynamic_size_without_a_bound_names_the_array_and_maximum_iterations():

    with pytest.raises(NotImplementedError, match=r"'grow'.*maximum_iterations=N"):
        with tf.Graph().as_default():
            n = tf.placeholder(tf.int32, [])
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, name="grow")
            _, ta = tf.while_loop(
                lambda t, a: t < n, lambda t, a: (t + 1, a.write(t, 1.0)), (0, ta)
            )
            with tf.Session() as sess:
                sess.run(ta.size(), {n: 2})


def test_dynamic_size_bounded_by_maximum_iterations_sizes_and_fails_when_stack_is_short():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [])
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(
            lambda t, a: t < n,
            lambda t, a: (t + 1, a.write(t, tf.cast(t, tf.float32))),
            (0, ta),
            maximum_iterations=4,
        )
        with tf.Session() as sess:
            assert sess.run(ta.size(), {n: 2}) == 2
            np.testing.assert_array_equal(sess.run(ta.stack(), {n: 4}), [0.0, 1.0, 2.0, 3.0])
            with pytest.raises(errors.UnimplementedError, match="holds 2 elements"):
                sess.run(ta.stack(), {n: 2})


def test_split_of_unequal_lengths_is_not_implemented():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2)
        with pytest.raises(NotImplementedError, match=r"lengths \[1, 2\] differ"):
            ta.split(tf.zeros([3]), [1, 2])


def test_elements_of_different_shapes_are_not_implemented():
    def build():
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
        return ta.write(0, [1.0]).write(1, [1.0, 2.0]).concat()

    with pytest.raises(NotImplementedError, match="one buffer of one shape"):
        _run(build)


def test_grad_is_not_implemented():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=1)
        with pytest.raises(NotImplementedError, match="TensorArray.grad"):
            ta.grad("source")


def test_int64_elements_keep_their_bits():
    big = np.int64(2**53 + 1)
    out = _run(lambda: tf.TensorArray(tf.int64, size=2).write(1, big).stack())
    assert out.dtype == np.int64 and out.tolist() == [0, int(big)]


def test_loop_without_maximum_iterations_differentiated_through_a_fixed_size_array():
    def build():
        v = tf.Variable(2.0)
        ta = tf.TensorArray(tf.float32, size=3)
        _, ta = tf.while_loop(
            lambda t, a: t < 3,
            lambda t, a: (t + 1, a.write(t, v ** tf.cast(t + 1, tf.float32))),
            (0, ta),
        )
        return tf.gradients(tf.reduce_sum(ta.stack()), v)[0]

    assert _run(build) == pytest.approx(1.0 + 2 * 2.0 + 3 * 4.0)


def test_loop_dropping_its_writes_is_not_bounded_by_the_array():
    # The body writes the array but returns it unwritten: jtrain's array keeps no
    # write, so the iteration count is not bounded by its size; differentiating the
    # loop needs maximum_iterations (never a scan of the wrong length).
    with tf.Graph().as_default():
        v = tf.Variable(2.0)
        ta = tf.TensorArray(tf.float32, size=3)

        def body(t, a, acc):
            a.write(t, v)
            return t + 1, a, acc * v

        _, _, acc = tf.while_loop(lambda t, a, acc: t < 5, body, (0, ta, tf.constant(1.0)))
        with pytest.raises(NotImplementedError, match="maximum_iterations=N"):
            tf.gradients(acc, v)
