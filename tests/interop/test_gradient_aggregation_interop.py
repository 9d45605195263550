"""A tensor's gradients from three uses or more are added as TF 2.21 adds them, to the bit.

TF's ``tf.gradients`` walks the graph back from the ``ys``, collects the gradients each
tensor receives, and adds them with one ``AddN``, whose inputs grappler's arithmetic
optimizer sorts by name (measured: with grappler off the walk's order holds, with it on
the sorted one); the ``AddN`` kernel adds left to right, the inputs past the first
``n % 8`` in groups of 8. jtrain's ``jax.grad`` added them in JAX's order (from the last
use back): 5-13% of such gradients differed in the last bits. ``tf.add_n`` adds as TF
runs it too: its inputs sorted by name (grappler), in the kernel's groups (it added in
the caller's order, left to right).

The kernel first moves to the front the first input whose buffer it may reuse
(``aggregate_ops.h``): not the product grappler merged ``Mul(t, t)``'s two gradients
into (read twice), nor one it folded into a constant. Where such a pair sorted first,
jtrain added left to right: 15-46% of the gradients differed. (The case built on TF's
``Rsqrt`` is compared within the CPU's estimate's bound where this machine's estimate is
not Intel's: ``RSQRT``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.cpu_estimates import rsqrt_estimate_ulps
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(11)
X = (_RNG.randn(16, 9) * 2).astype(np.float32)
W = (_RNG.rand(9) + 0.5).astype(np.float32)
G = _RNG.randn(16, 9).astype(np.float32)


def _four_uses(tf, x, w):
    # x feeds a Mul, Sin, Exp and Tanh (names sorted otherwise than the walk reaches them)
    d = tf.multiply(x, w, name="z_scaled")
    a, b, c = tf.sin(x, name="m_sin"), tf.exp(x * 0.0 + x, name="a_exp"), tf.tanh(x, name="q")
    return a * b + c * d + a * c + b * d


def _shared_weight(tf, x, w):
    # w in three broadcast products (a weight shared by layers)
    h = tf.tanh(x * w)
    h = tf.tanh(h * w)
    return h * w + 0.5 * x


def _unrolled(tf, x, w):
    # a static loop: w and u used at each of 6 steps (elementwise recurrence)
    u = w * 0.5 + 0.25
    h = tf.zeros_like(x[:, 0])
    for t in range(6):
        h = tf.tanh(x[:, t] * w[t] + h * u[t])
    return h


def _eleven_uses(tf, x, w):
    # 11 uses: the AddN kernel's first 3, then a group of 8
    return tf.add_n([tf.sin(x * w[i % 9] + float(i)) for i in range(11)])


CASES = {
    "four_uses": _four_uses,
    "shared_weight": _shared_weight,
    "unrolled": _unrolled,
    "eleven_uses": _eleven_uses,
}


@pytest.mark.parametrize("case", list(CASES))
def test_gradients_from_several_uses_bits(case):
    def script(tf):
        x = tf.placeholder(tf.float32, [16, 9], name="x")
        w = tf.Variable(W, name="w")
        y = CASES[case](tf, x, w)
        g = tf.placeholder(tf.float32, y.shape, name="g")
        grads = tf.gradients(y, [x, w], grad_ys=g)
        upstream = G.reshape(-1)[: int(np.prod(y.shape.as_list()))].reshape(y.shape.as_list())
        return lambda sess: sess.run([y, *grads], {x: X, g: upstream})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)


@pytest.mark.parametrize("n", [3, 8, 9, 11, 13])
def test_add_n_kernel_order(n):
    """``tf.add_n`` of inputs named in sorted order (grappler keeps it): TF's kernel
    adds the first ``n % 8`` (8, 9) left to right, then groups of 8; and of inputs
    whose names sort otherwise (``Sin``, ``Sin_1``, ``Sin_10``, ``Sin_2``...)."""
    values = [(_RNG.randn(40, 7) * 10.0 ** _RNG.uniform(-3, 3, (40, 7))).astype(np.float32)
              for _ in range(n)]  # fmt: skip

    def script(tf):
        x = tf.placeholder(tf.float32, [n, 40, 7], name="x")
        parts = [tf.multiply(x[i], float(i + 2), name=f"part_{i:02d}") for i in range(n)]
        named = tf.add_n([tf.sin(x[i]) for i in range(n)])
        return lambda sess: sess.run([tf.add_n(parts), named], {x: np.stack(values)})

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)


_B = (_RNG.rand(9) + 0.5).astype(np.float32)


def _rms_norm(tf, x, b):
    for _ in range(3):
        tf.multiply(b, 2.0)  # earlier products: x * x is mul_3, x * rsqrt(...) mul_4
    mean_square = tf.reduce_mean(x * x, axis=-1, keepdims=True)
    return tf.reduce_sum(tf.sin(x * tf.rsqrt(mean_square + 1e-6) * b))


def _square_and(term):
    def build(tf, x, b):
        d = x * b - x
        return tf.reduce_mean(tf.multiply(d, d, name="a_square")) + term(tf, d)

    return build


def _square_plus_itself(tf, x, b):
    d = x - b
    return tf.reduce_sum(tf.sin(tf.multiply(d, d, name="a_square") + d, name="z"))


# The case taking TF's ``Rsqrt`` (the CPU's estimate, ``cpu_estimates``).
RSQRT = {"rms_norm"}
# t's gradients sorted by name: Mul(t, t)'s pair first, then what the kernel reuses
REUSED = {
    "rms_norm": _rms_norm,
    "pair_then_computed": _square_and(lambda tf, d: tf.reduce_sum(tf.sin(d, name="b"))),
    # a constant for known shapes (not reused: left to right), computed for unknown
    "pair_then_constant": _square_and(lambda tf, d: 0.1 * tf.reduce_mean(d, name="b")),
    "pair_constant_computed": _square_and(
        lambda tf, d: 0.1 * tf.reduce_mean(d, name="b") + tf.reduce_sum(tf.sin(d, name="c"))
    ),
    "pair_then_pass_through": _square_plus_itself,
    # a constant first (known shapes), then the pair: the computed one is reused
    "constant_pair_computed": lambda tf, x, b: (
        lambda d: (
            0.1 * tf.reduce_mean(d, name="a")
            + tf.reduce_mean(tf.multiply(d, d, name="b_square"))
            + tf.reduce_sum(tf.tanh(d, name="c"))
        )
    )(x * b - x),
}


@pytest.mark.parametrize("batch", [16, None], ids=["known_batch", "unknown_batch"])
@pytest.mark.parametrize("case", list(REUSED))
def test_the_add_n_kernel_adds_the_reused_input_first(case, batch):
    def script(tf):
        x = tf.placeholder(tf.float32, [batch, 9], name="x")
        b = tf.placeholder(tf.float32, [9], name="b")
        y = REUSED[case](tf, x, b)
        return lambda sess: sess.run([y, *tf.gradients(y, [x, b])], {x: X, b: _B})

    theirs, ours = run_both(script)
    # rms_norm's TF ``Rsqrt`` of 16 values (two full packets) is the CPU's ``rsqrtps``
    # estimate and a Newton step: where this machine's estimate is not Intel's
    # (``cpu_estimates``: an AMD EPYC's, 1 ulp on 4 of the 16), every value moves within
    # its bound of the value, or of 1 (y sums 144 sines: 256 of its own ulps, 4 of 1,
    # measured there).
    tol = rsqrt_estimate_ulps() * 2.0**-23 if case in RSQRT else 0.0
    assert_twins(theirs, ours, rtol=tol, atol=tol)
