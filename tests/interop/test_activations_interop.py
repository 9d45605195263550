"""Activations at special inputs checked live against TF 2.21: NaN, signed zeros,
infinities, in float32, float16, bfloat16 and float64, values to the bit and their
gradients exactly.

Before: ``relu``/``relu6`` turned NaN into 0 (hiding a diverged step from
``NanTensorHook``) and ``-0.0`` into ``0.0``; ``leaky_relu`` of float64 used 0.2 where
TF's float32 attribute gives 0.200000003; ``selu``'s gradient missed TF's rule (from
the output) by an ulp and was NaN at NaN and infinity; ``softsign``'s gradient was NaN
at infinities (TF: 0).

Gradients in float16 and bfloat16 are compared to within one unit of their last place:
XLA keeps float32 precision between the operations of a fused expression where TF's
Eigen rounds each to the half type (``softsign``'s ``1 / (|x| + 1)**2`` at 0.5:
0.44444445 against TF's bfloat16 0.4453125). ``softplus`` is not here: XLA's float32
``log`` and ``exp`` differ from Eigen's by an ulp or two."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers import assert_same_bits
from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

INPUTS = np.float32([np.nan, -0.0, 0.0, -1.0, 0.5, 7.0, np.inf, -np.inf])
OPS = ["relu", "relu6", "leaky_relu", "elu", "selu", "softsign"]
DTYPES = ["float32", "float16", "bfloat16", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_activation_at_special_values_as_tf(name, dtype):
    def script(tf):
        x = tf.placeholder(tf.float32, [len(INPUTS)])
        y = getattr(tf.nn, name)(tf.cast(x, getattr(tf, dtype)))
        wide = tf.cast(y, tf.float64)
        (grad,) = tf.gradients(tf.reduce_sum(tf.cast(y, tf.float32)), [x])
        static = y.shape.as_list(), y.dtype.name
        return lambda sess: (*sess.run([wide, grad], {x: INPUTS}), static)

    (t_value, t_grad, t_static), (o_value, o_grad, o_static) = run_both(script)
    assert o_static == t_static
    # the very bits (NaN kept, -0.0 kept or not as TF), through float64
    np.testing.assert_array_equal(np.isnan(o_value), np.isnan(t_value))
    assert np.signbit(o_value[~np.isnan(o_value)]).tolist() == (
        np.signbit(t_value[~np.isnan(t_value)]).tolist()
    )
    np.testing.assert_array_equal(o_value, t_value)
    if dtype in ("float32", "float64"):
        np.testing.assert_array_equal(o_grad, t_grad)
    else:
        ulp = float(np.finfo(np.float16).eps if dtype == "float16" else 2.0**-7)
        np.testing.assert_allclose(o_grad, t_grad, rtol=ulp, atol=0)


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "int64"])
def test_leaky_relu_of_integers_as_tf(dtype):
    """TF casts integer features to float32 (jtrain kept the integer dtype: -2 gave 0)."""

    def script(tf):
        y = tf.nn.leaky_relu(tf.constant([1, -2, 7], getattr(tf, dtype)))
        return lambda sess: (sess.run(y), y.dtype.name)

    theirs, ours = run_both(script)
    assert ours[1] == theirs[1] == "float32"
    np.testing.assert_array_equal(ours[0], theirs[0])


@pytest.mark.parametrize(
    ("value", "bias", "data_format"),
    [([2, 2], [2, 2], None), ([2], [2], None), ([2, 3], [1], None), ([2, 3, 4, 5], [4], "NCHW")],
)
def test_bias_add_shape_errors_as_tf(value, bias, data_format):
    """TF's BiasAdd shape function refuses these when the graph is built (jtrain
    broadcast the bias and returned a value)."""

    def script(tf):
        try:
            tf.nn.bias_add(
                tf.placeholder(tf.float32, value),
                tf.placeholder(tf.float32, bias),
                data_format=data_format,
            )
        except ValueError as e:
            found = str(e).split(" for ")[0]
        else:
            found = None
        return lambda sess: found

    theirs, ours = run_both(script)
    assert theirs is not None
    assert ours == theirs


COMPOSITES = {
    "swish": lambda tf, x, beta: tf.nn.swish(x),
    "silu of a trainable beta": lambda tf, x, beta: tf.nn.silu(x, beta),
    "swish of a Python beta": lambda tf, x, beta: tf.nn.swish(x, 1.5),
    "log_sigmoid": lambda tf, x, beta: tf.math.log_sigmoid(x),
    "log_sigmoid named": lambda tf, x, beta: tf.log_sigmoid(x * 4.0, name="ls"),
}


@pytest.mark.parametrize("case", sorted(COMPOSITES))
def test_python_composite_activations_bit_for_bit(case):
    """``tf.nn.swish``/``silu`` (TF's ``custom_gradient`` of ``x * sigmoid(beta * x)``)
    and ``tf.math.log_sigmoid`` (``-softplus(-x)``) as TF's Python functions build
    them: values and gradients (``beta``'s too) bit for bit. jtrain computed them as
    one JAX function each (``jax.nn.sigmoid``, ``jax.nn.log_sigmoid``): 57% and 51% of
    the values, 68% of the gradients 1-2 ulp off TF's."""
    rng = np.random.RandomState(1)
    xv = (rng.normal(size=(24, 8)) * 3).astype(np.float32)
    gv = rng.normal(size=(24, 8)).astype(np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 8])
        g = tf.placeholder(tf.float32, [None, 8])
        beta = tf.Variable(0.8, name="beta")
        y = COMPOSITES[case](tf, x, beta)
        grads = tf.gradients(tf.reduce_sum(y * g), [x, beta])
        fetch = [y] + [d for d in grads if d is not None]

        def run(sess):
            sess.run(tf.global_variables_initializer())
            return y.name, len(fetch), sess.run(fetch, {x: xv, g: gv})

        return run

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    for t, o in zip(theirs[2], ours[2], strict=True):
        assert_same_bits(o, t)
