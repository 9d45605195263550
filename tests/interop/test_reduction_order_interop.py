"""``tf.reduce_sum``, ``tf.reduce_mean`` and ``tf.nn.l2_loss`` under TF 2.21's
``compat.v1`` (classic TF1) and under ``adapters.v1``: the same float32 bits, values and
gradients, where TF's CPU kernels add in Eigen's order (full reductions below Eigen's
threshold for intra-op threads, and the innermost axis of each row at any size).

``reduce_logsumexp``'s gradient multiplies by TF's ``Reciprocal`` (``Log``'s gradient),
whose last bits are the CPU's ``rcpps`` estimate's: bit for bit where it is the one jtrain
reproduces (Intel's), within its bound elsewhere (``cpu_estimates.estimate_ulps``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.bits import assert_bits
from tests.interop.cpu_estimates import estimate_ulps
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

# Eigen's cost model splits a full float32 reduction across threads from these sizes on
# (measured against TF 2.21): the last single-threaded sizes are exact.
SUM_SINGLE_THREAD = 108_387
L2_LOSS_SINGLE_THREAD = 95_999

SIZES = [1, 7, 8, 31, 33, 1000, 8192 + 5, 65536 + 3]

OPS = {
    "reduce_sum": lambda tf, x, axis: tf.reduce_sum(x, axis=axis),
    "reduce_mean": lambda tf, x, axis: tf.reduce_mean(x, axis=axis),
    "reduce_sum_keepdims": lambda tf, x, axis: tf.reduce_sum(x, axis=axis, keepdims=True),
    "l2_loss": lambda tf, x, axis: tf.nn.l2_loss(x),
    "reduce_logsumexp": lambda tf, x, axis: tf.reduce_logsumexp(x, axis=axis),
    "moments": lambda tf, x, axis: tf.add_n(tf.nn.moments(x, np.ravel(axis).tolist())),
    "reduce_logsumexp_keepdims": lambda tf, x, axis: tf.reduce_logsumexp(x, axis, keepdims=True),
}


def _values(shape, seed):
    """float32 values over four decades (sums in another order round differently)."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10 ** rng.uniform(-2, 2, shape)).astype(np.float32)


def _value_and_gradient(op, shape, axis, seed, fed=True):
    """A script fetching ``op`` of a placeholder (fed, so that no graph optimizer folds
    it) or of a variable, and its gradient for a random upstream gradient."""
    x_value = _values(shape, seed)

    def script(tf):
        if fed:
            x = tf.placeholder(tf.float32, shape)
            feed = {x: x_value}
        else:
            x = tf.Variable(x_value)
            feed = {}
        y = OPS[op](tf, x, axis)
        upstream = tf.placeholder(tf.float32, y.shape)  # as a loss's gradient: not folded
        feed[upstream] = _values(y.shape.as_list(), seed + 1)
        (grad,) = tf.gradients(y, x, grad_ys=upstream)
        return lambda sess: sess.run([y, grad], feed)

    return script


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "l2_loss"])
def test_full_reduction_bits(op, n):
    theirs, ours = run_both(_value_and_gradient(op, [n], None, seed=n))
    assert_twins(theirs, ours, rtol=0, atol=0)


@pytest.mark.parametrize(
    ("op", "n"),
    [
        ("reduce_sum", SUM_SINGLE_THREAD),
        ("reduce_mean", SUM_SINGLE_THREAD),
        ("l2_loss", L2_LOSS_SINGLE_THREAD),
    ],
)
def test_full_reduction_bits_below_thread_threshold(op, n):
    theirs, ours = run_both(_value_and_gradient(op, [n], None, seed=3))
    assert_twins(theirs, ours, rtol=0, atol=0)


@pytest.mark.parametrize(
    ("op", "n"),
    [("reduce_sum", SUM_SINGLE_THREAD + 2), ("l2_loss", L2_LOSS_SINGLE_THREAD + 2)],
)
def test_full_reduction_above_thread_threshold_is_close(op, n):
    """TF's result depends on its intra-op threads from here on; jtrain keeps XLA's sum
    (documented in ``jtrain._numerics.eigen_sum``): within a few ulps."""
    theirs, ours = run_both(_value_and_gradient(op, [n], None, seed=4))
    assert_twins(theirs, ours, rtol=1e-6)


@pytest.mark.parametrize("n", [*SIZES[:-1], 30_001, SUM_SINGLE_THREAD // 3])
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "reduce_sum_keepdims"])
def test_innermost_axis_bits(op, n):
    """Per-row sums ``[3, n]`` over ``axis=-1``: Eigen's order per row, its tree split at
    packet boundaries of the whole tensor's index (rows of 30,001 start at other
    offsets); up to as many values in all as a single-threaded full reduction."""
    theirs, ours = run_both(_value_and_gradient(op, [3, n], -1, seed=n + 7))
    assert_twins(theirs, ours, rtol=0, atol=0)


@pytest.mark.parametrize(
    ("shape", "axis"),
    [
        ([2, 3, 1001], None),
        ([2, 3, 1001], [0, 1, 2]),
        ([4, 1, 333], [1, 2]),  # trailing axes (a size-1 axis among them): one row each
        ([100, 10], 1),  # a loss of batch 100 over 10 classes
        ([5, 7, 1], -2),  # the innermost axis of size 1 is dropped: rows of 7
    ],
)
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean"])
def test_rank_and_axes_bits(op, shape, axis):
    theirs, ours = run_both(_value_and_gradient(op, shape, axis, seed=sum(shape)))
    assert_twins(theirs, ours, rtol=0, atol=0)


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "l2_loss"])
def test_variable_input_bits(op):
    """A variable's value (not fed): the same kernels."""
    theirs, ours = run_both(_value_and_gradient(op, [4, 999], None, seed=11, fed=False))
    assert_twins(theirs, ours, rtol=0, atol=0)


@pytest.mark.parametrize(
    ("shape", "axis"),
    [
        ([64, 10], -1),
        ([64, 10], None),
        ([3, 1000], 1),
        ([5, 7, 9], 2),
        ([7], 0),
        ([1], None),
        ([33, 77], 0),
    ],
)
@pytest.mark.parametrize("op", ["reduce_logsumexp", "reduce_logsumexp_keepdims"])
def test_logsumexp_bits(op, shape, axis):
    """``reduce_logsumexp`` as TF composes it (``Max``, ``Exp``, ``Sum``, ``Log``, ``Add``),
    value and gradient: with XLA's ``logsumexp`` 9-11% of values and 56-100% of gradients
    differed. The gradient's ``Reciprocal`` of the sums (full packets of 8: the CPU's
    estimate) is within ``estimate_ulps`` of jtrain's on another vendor's CPU (3 ulps
    measured on an AMD EPYC)."""
    theirs, ours = run_both(_value_and_gradient(op, shape, axis, seed=len(shape)))
    for o, t in zip(ours, theirs, strict=True):
        assert_bits(o, t, packet_ulps=estimate_ulps())


@pytest.mark.parametrize(
    ("shape", "axis"),
    [
        ([100, 10], 0),  # a batch of 100 over 10 units: bias gradients, moments
        ([17, 9], 0),  # 16 rows in four accumulators, one after them; a scalar column
        ([15, 33], 0),  # fewer than 16 rows: added in order
        ([64, 1000], 0),
        ([20000, 10], 0),
        ([4, 37, 12], 1),  # a middle axis: packets that cross a row of 12 are scalars
        ([6, 20, 16], [0, 1]),
        ([2, 3, 19, 5], [1, 2]),
        ([1, 40, 1, 9], 1),
    ],
)
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "moments"])
def test_leading_and_middle_axes_bits(op, shape, axis):
    """Eigen's reduction preserving the inner dimension (``InnerMostDimPreserver``): XLA's
    order differed on 6-70% of the sums (``tf.nn.moments`` over the batch, as
    ``batch_normalization`` in training uses it)."""
    theirs, ours = run_both(_value_and_gradient(op, shape, axis, seed=len(shape) + 20))
    assert_twins(theirs, ours, rtol=0, atol=0)


BROADCASTS = {
    "x + b": lambda tf, x, b: x + b,
    "x - b": lambda tf, x, b: x - b,
    "b - x": lambda tf, x, b: b - x,
    "x * b": lambda tf, x, b: x * b,
    "bias_add": lambda tf, x, b: tf.nn.bias_add(x, b),
    # TF's gradient formulas (_RealDivGrad: g * ((-x / b) / b); _MaximumMinimumGrad;
    # _SquaredDifferenceGrad: (2 * g) * (x - b)) before the same sums.
    "x / b": lambda tf, x, b: x / b,
    "b / x": lambda tf, x, b: tf.realdiv(b, x),
    "div(x, b)": lambda tf, x, b: tf.div(x, b),
    "maximum": lambda tf, x, b: tf.maximum(x, b),
    "minimum": lambda tf, x, b: tf.minimum(b, x),
    "squared_difference": lambda tf, x, b: tf.squared_difference(x, b),
}


@pytest.mark.parametrize("shape", [[64, 30], [7, 5], [100, 33], [4, 3, 3, 8]], ids=str)
@pytest.mark.parametrize("op", list(BROADCASTS))
def test_broadcast_gradients_bits(op, shape):
    """The gradient of a bias broadcast over the batch: TF sums the incoming gradient over
    the broadcast axes (``Sum``: Eigen's order over leading axes) or, for ``BiasAdd``,
    adds its rows in order (``BiasAddGrad``); JAX's transpose of a broadcast summed in
    XLA's order (57-80% of a [64, 30] bias's gradient differed; 62-79% for a quotient,
    ``maximum`` and ``squared_difference``, whose formulas also rounded elsewhere)."""
    x_value = _values(shape, seed=len(shape))
    upstream = _values(shape, seed=5)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, *shape[1:]])
        g = tf.placeholder(tf.float32, [None, *shape[1:]])
        b = tf.Variable(_values(shape[-1:], seed=6))
        y = BROADCASTS[op](tf, x, b)
        grads = tf.gradients(y, [x, b], grad_ys=g)
        return lambda sess: sess.run(grads, {x: x_value, g: upstream})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)


def test_xw_plus_b_bias_gradient_bits():
    """``tf.nn.xw_plus_b`` is TF's ``bias_add(matmul(x, w), b)``: its bias gradient is
    ``BiasAddGrad``'s (jtrain added ``+ b``: XLA's sum)."""
    x_value, upstream = _values([64, 20], seed=8), _values([64, 30], seed=9)
    w_value = _values([20, 30], seed=10)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 20])
        g = tf.placeholder(tf.float32, [None, 30])
        b = tf.Variable(_values([30], seed=11))
        y = tf.nn.xw_plus_b(x, tf.constant(w_value), b)
        return lambda sess: sess.run(tf.gradients(y, b, grad_ys=g)[0], {x: x_value, g: upstream})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)
