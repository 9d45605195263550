"""Quotients as TF rounds them, checked bit for bit against TF 2.21 (``twin.py``).

XLA rewrites a division by a broadcast value (a scalar, a column) or by a constant as
a multiplication by the divisor's reciprocal, one rounding more than TF's kernels
make: ``tf.reduce_mean`` of 7 values, ``x / v`` of a scalar variable, ``avg_pool``,
``moments`` and ``reduce_variance`` were up to 1 ulp off TF's values (about half of
the elements here). TF's grappler makes the same rewrite where it takes the divisor
as a constant (a ``Const``, a shape it knows when the graph is built), so there the
product is TF's value too (``jtrain._numerics.kernel_divide``,
``math_ops.folds_to_constant``). Sums over more than a row of 7 (``reduce_mean(x)``
of all 42 values) are left out: TF's Eigen kernels add them in another order.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

_RNG = np.random.default_rng(0)
X = (_RNG.standard_normal((6, 7)) * 10).astype(np.float32)
K = _RNG.standard_normal(6).astype(np.float32)

# name -> build(tf, x, k, v): x is [None, 7] or [6, 7] (both are run), k a fed [None]
# vector, v a scalar variable (3.0)
CASES = {
    "x / fed column": lambda tf, x, k, v: x / tf.reshape(k, [-1, 1]),
    "x / row sum": lambda tf, x, k, v: x / tf.reduce_sum(x, 1, keepdims=True),
    "x / scalar variable": lambda tf, x, k, v: x / v,
    "x / constant": lambda tf, x, k, v: x / 7.0,
    # (the reciprocal's product rounded before the add: XLA contracted it into an FMA)
    "1 + x / constant": lambda tf, x, k, v: 1.0 + x / 700.0,
    # a constant by a constant: grappler folds the quotient (TF's kernel), no reciprocal
    "constant / constant, then x": lambda tf, x, k, v: (
        x * (tf.constant(np.linspace(1, 999, 7, dtype=np.float32)) / tf.constant(700.0))
    ),
    "x / batch size": lambda tf, x, k, v: x / tf.cast(tf.shape(x)[0], tf.float32),
    "realdiv by a variable": lambda tf, x, k, v: tf.realdiv(x, v),
    "div by a variable": lambda tf, x, k, v: tf.div(x, v),
    "floordiv by a variable": lambda tf, x, k, v: tf.floordiv(x, v),
    "div_no_nan": lambda tf, x, k, v: tf.div_no_nan(x, tf.reshape(k, [-1, 1])),
    "reduce_mean rows": lambda tf, x, k, v: tf.reduce_mean(x, axis=1),
    "reduce_mean columns": lambda tf, x, k, v: tf.reduce_mean(x, axis=0, keepdims=True),
    "reduce_variance": lambda tf, x, k, v: tf.math.reduce_variance(x, 1),
    "reduce_std": lambda tf, x, k, v: tf.math.reduce_std(x, 0),
    "moments": lambda tf, x, k, v: tf.nn.moments(x, [1]),
    "avg_pool": lambda tf, x, k, v: tf.nn.avg_pool(
        tf.reshape(x, [-1, 7, 1, 1]), [1, 3, 1, 1], [1, 1, 1, 1], "SAME"
    ),
    "per_image_standardization": lambda tf, x, k, v: tf.image.per_image_standardization(
        tf.reshape(x, [-1, 7, 1, 1])
    ),
    "float64 / fed": lambda tf, x, k, v: (
        tf.cast(x, tf.float64) / tf.cast(tf.reshape(k, [-1, 1]), tf.float64)
    ),
    "float16 / variable": lambda tf, x, k, v: tf.cast(x, tf.float16) / tf.cast(v, tf.float16),
}

# Gradients whose division TF makes in the graph: by the count computed from the
# shape (unknown when the graph is built) or by a constant count (known).
GRADIENTS = {
    "reduce_mean rows": lambda tf, x, k, v: tf.reduce_sum(tf.reduce_mean(x, axis=1) * k),
    "reduce_mean all": lambda tf, x, k, v: tf.reduce_mean(x) * 1.3,
    "x / variable": lambda tf, x, k, v: tf.reduce_sum(x / v),
    "x / batch size": lambda tf, x, k, v: tf.reduce_sum(x / tf.cast(tf.shape(x)[0], tf.float32)),
    "x / constant": lambda tf, x, k, v: tf.reduce_sum(x / 7.0),
    "avg_pool": lambda tf, x, k, v: tf.reduce_sum(
        tf.nn.avg_pool(tf.reshape(x, [-1, 7, 1, 1]), [1, 3, 1, 1], [1, 1, 1, 1], "SAME")
    ),
}

SHAPES = {"batch unknown": [None, 7], "shape known": [6, 7]}


def _script(build, shape, gradient=False):
    def script(tf):
        x = tf.placeholder(tf.float32, shape)
        k = tf.placeholder(tf.float32, [None])
        v = tf.Variable(3.0)
        out = build(tf, x, k, v)
        if gradient:
            out = tf.gradients(out, x)[0]
        return lambda sess: sess.run(out, {x: X, k: K})

    return script


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("case", list(CASES))
def test_quotients_are_tfs_bit_for_bit(case, shape):
    theirs, ours = run_both(_script(CASES[case], SHAPES[shape]))
    assert_twins(theirs, ours, rtol=0)


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("case", list(GRADIENTS))
def test_gradients_divide_as_tfs(case, shape):
    theirs, ours = run_both(_script(GRADIENTS[case], SHAPES[shape], gradient=True))
    assert_twins(theirs, ours, rtol=0)


def test_division_in_a_dataset_function_as_tfs():
    """In a ``tf.data`` function TF's grappler rewrites no division, even by a constant:
    ``cast(pixel) / 255.0`` there is the quotient (in the graph it is the product by
    the reciprocal, constants folded aside). jtrain gave the product: 126 of 256 values
    1 ulp off."""

    def script(tf):
        pixels = tf.data.Dataset.from_tensor_slices(np.arange(256, dtype=np.uint8))
        scaled = pixels.map(lambda v: tf.cast(v, tf.float32) / 255.0).batch(256)
        batch = tf.data.make_one_shot_iterator(scaled).get_next()
        return lambda sess: sess.run(batch)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_clipping_by_norm_divides_as_tfs():
    """``clip_by_norm`` and ``embedding_lookup(max_norm=...)``: TF's ``t * c /
    max(norm, c)`` divides by the broadcast norm (rows below the norm come back
    through ``* c / c``); jtrain multiplied by its reciprocal (1 ulp off)."""
    table = np.arange(10, dtype=np.float32).reshape(5, 2) / 7

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 7])
        params = tf.constant(table)
        outs = [
            tf.clip_by_norm(x, 4.5, axes=[1]),
            tf.nn.embedding_lookup(params, [1, 3, 4, 1], max_norm=0.5),
            tf.nn.embedding_lookup_sparse(
                params,
                tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 3, 1], [2, 2]),
                None,
                combiner="sum",
                max_norm=0.5,
            ),
        ]
        return lambda sess: sess.run(outs, {x: X})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_constant_graphs_fold_as_tfs():
    """Values grappler computes from constants alone, before any step: ``tf.linspace``
    between computed ends (its step is a quotient by ``num - 1``, which XLA turned into
    a product by a reciprocal) and ``tf.signal.linear_to_mel_weight_matrix`` (both, and
    its slopes' quotients of constants, which jtrain multiplied by reciprocals): 5 of 8
    and 25 of 102 values differed from TF's, up to 126 ulps.

    .. note:: The default matrix (20 bins) still differs in 47 of 2,580 values: the mel
       value of its lower edge is a scalar ``Log``, which TF takes from glibc's
       ``logf`` (not correctly rounded) and jtrain from float64 (1 ulp apart there).
    """

    def script(tf):
        ends = 1127.0 * tf.log(1.0 + tf.constant([125.0, 3800.0]) / 700.0)
        outs = [
            tf.linspace(ends[0], ends[1], 8),
            tf.signal.linear_to_mel_weight_matrix(6, 17, 8000),
        ]
        return lambda sess: sess.run(outs)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
