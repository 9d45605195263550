"""jtrain's own side of users' gradients (TF parity is in
tests/interop/test_custom_gradients_interop.py): what TF has no counterpart for."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from adapters import v1 as tf

_NAMES = itertools.count()


def test_incoming_gradient_has_no_value_outside_the_gradient() -> None:
    name = f"UnitIncoming{next(_NAMES)}"
    seen = []

    @tf.RegisterGradient(name)
    def _grad(op, grad):
        seen.append(grad)
        return grad * 2.0

    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, 2.0])
        with g.gradient_override_map({"Identity": name}):
            y = tf.identity(x)
        (dx,) = tf.gradients(y * 3.0, x)
        with tf.Session() as sess:
            assert sess.run(dx).tolist() == [6.0, 6.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="incoming gradient"):
                sess.run(seen[0])


def test_override_with_another_builtin_gradient_is_not_implemented() -> None:
    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, -2.0])
        with g.gradient_override_map({"Identity": "Relu"}):
            y = tf.identity(x, name="ident")
        with pytest.raises(NotImplementedError, match="'ident'.*'Relu'"):
            tf.gradients(y, x)


def test_stop_gradient_override_gives_none() -> None:
    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, -2.0])
        with g.gradient_override_map({"Identity": "StopGradient"}):
            y = tf.identity(x)
        assert tf.gradients(y, x) == [None]


def test_hessians_need_a_known_shape() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        with pytest.raises(NotImplementedError, match="fully known shape"):
            tf.hessians(tf.reduce_sum(x**3), x)


def test_custom_gradient_gives_optimizer_variable_gradients() -> None:
    with tf.Graph().as_default():
        w = tf.Variable(np.float32([2.0, 3.0]), name="w", use_resource=True)

        @tf.custom_gradient
        def scaled(a):
            def grad(dy, variables=None):
                return dy, [dy * 0.0 + 7.0 for _ in variables]

            return a * w, grad

        loss = tf.reduce_sum(scaled(tf.constant([1.0, 1.0])))
        ((g, v),) = tf.train.GradientDescentOptimizer(1.0).compute_gradients(loss, [w])
        assert v is w
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(g).tolist() == [7.0, 7.0]


def test_users_gradient_inside_cond_or_while_body_is_not_implemented() -> None:
    """TF applies it inside the construct; jtrain refuses rather than give JAX's."""
    name = f"UnitInBody{next(_NAMES)}"
    tf.RegisterGradient(name)(lambda op, grad: -grad)
    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, 2.0])

        def branch():
            with g.gradient_override_map({"Identity": name}):
                return tf.identity(x * 2.0, name="flip")

        y = tf.cond(tf.constant(True), branch, lambda: x)
        with pytest.raises(NotImplementedError, match="'cond/flip'.*outside tf.cond"):
            tf.gradients(y, x)
        _, z = tf.while_loop(
            lambda i, z: i < 2, lambda i, z: [i + 1, branch() + z], [0, x], maximum_iterations=2
        )
        with pytest.raises(NotImplementedError, match="outside tf.cond and tf.while_loop"):
            tf.gradients(z, x)
