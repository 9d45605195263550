"""``tf.math.rsqrt``, ``tf.math.reciprocal`` and the kernels built on TF's ``Rsqrt``
(``RsqrtGrad``, ``tf.nn.batch_normalization``, ``tf.nn.l2_normalize``,
``tf.image.per_image_standardization``) bit for bit against TF 2.21
(``jtrain._eigen.rsqrt``, ``jtrain._eigen.reciprocal``).

Before: jtrain's correctly rounded ``1 / sqrt`` (XLA's ``rsqrt``) differed from TF's
``rsqrtps`` estimate and Newton step in 32% of float32 values (up to 4 ulps), and its
``RsqrtGrad`` multiplied in another order (35% of a 100,003-value gradient);
``tf.math.reciprocal`` was the quotient (TF: the ``rcpps`` estimate and a Newton step) and
``ReciprocalGrad`` -0.0 where TF's is +0.0. Where this machine's estimates are not
Intel's (``cpu_estimates``), TF's own values move within the estimate's bound (of the
terms of a sum built on it, ``batch_normalization``'s).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.bits import assert_bits
from tests.interop.cpu_estimates import estimate_ulps, rsqrt_estimate_ulps
from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(5)
_EDGES = np.float32(
    [0.0, -0.0, 1e-45, -1e-45, 1e-39, 1.1754944e-38, 1e-20, 0.25, 0.5, 1.0, 1.0000001,
     2.0, 4.0, 3.9999998, 100.0, 1e10, 3.4e38, -1.0, -3.4e38, np.inf, -np.inf, np.nan]
)  # fmt: skip
DTYPES = ["float32", "float16", "bfloat16"]
# 4133 and 93: 5 values past full packets of 8 (TF's scalar path, 1 / sqrtf); 7: none.
SHAPES = [(4133,), (31, 3), (7,), (1,), (32, 32)]


def _inputs(shape, signed=False):
    size = int(np.prod(shape))
    values = (_RNG.randn(size) * 10.0 ** _RNG.uniform(-6, 6, size)).astype(np.float32)
    values = values if signed else np.abs(values)
    if size >= 2 * len(_EDGES) + 8:
        values[: len(_EDGES)] = values[-len(_EDGES) :] = _EDGES
    grads = _RNG.randn(size).astype(np.float32)
    grads[::17] = 0.0  # the gradients' +0 where the incoming gradient is 0 (y may be inf)
    return values.reshape(shape), grads.reshape(shape)


# op -> (signed inputs, this machine's estimate's bound)
OPS = {"rsqrt": (False, rsqrt_estimate_ulps), "reciprocal": (True, estimate_ulps)}


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", list(OPS))
def test_values_and_gradients_bit_for_bit(op, dtype, shape):
    signed, bound = OPS[op]
    values, grads = _inputs(shape, signed)

    def script(tf):
        x = tf.placeholder(getattr(tf, dtype), shape)
        dy = tf.placeholder(getattr(tf, dtype), shape)
        y = getattr(tf.math, op)(x)
        (dx,) = tf.gradients(y, [x], grad_ys=dy)
        np_dtype = x.dtype.as_numpy_dtype
        feed = {x: values.astype(np_dtype), dy: grads.astype(np_dtype)}
        return lambda sess: sess.run([y, dx], feed)

    (t_y, t_dx), (o_y, o_dx) = run_both(script)
    assert_bits(o_y, t_y, packet_ulps=bound())
    assert_bits(o_dx, t_dx, packet_ulps=2 * bound())


@pytest.mark.parametrize("size", [1, 3, 11], ids=str)
@pytest.mark.parametrize("op", list(OPS))
def test_signed_zeros_keep_their_infinity_on_both_paths(op, size):
    """``-0.0`` (and a negative denormal, flushed) gives ``-inf`` on the packet path and
    on the scalar one (``1 / sqrtf(-0.0)``); jtrain's scalar path gave ``+inf``."""
    values = np.resize(np.float32([-0.0, 0.0, -1e-45, 1e-45, 4.0]), size)

    def script(tf):
        x = tf.placeholder(tf.float32, [size])
        y = getattr(tf.math, op)(x)
        return lambda sess: sess.run(y, {x: values})

    t_y, o_y = run_both(script)
    # The zeros' infinities are exact on every CPU; 4.0 on a full packet is the CPU's
    # estimate (an AMD EPYC's rsqrt(4.0) is 0.5, Intel's 0.49999994).
    assert_bits(o_y, t_y, packet_ulps=OPS[op][1]())
    assert np.array_equal(np.signbit(o_y[np.isinf(t_y)]), np.signbit(t_y[np.isinf(t_y)]))
    assert np.array_equal(np.isinf(o_y), np.isinf(t_y))


@pytest.mark.parametrize("channels", [5, 8, 64, 67])
def test_kernels_built_on_rsqrt_bit_for_bit(channels):
    """``batch_normalization``'s ``rsqrt(variance + eps) * scale`` over the channels,
    ``l2_normalize``'s ``x * rsqrt(max(sum(x * x), eps))`` over rows, and the scalar
    ``rsqrt(num_pixels)`` of ``per_image_standardization``."""
    rng = np.random.RandomState(channels)
    x = rng.randn(6, channels).astype(np.float32) * 3
    var = rng.uniform(1e-3, 9, channels).astype(np.float32)
    mean, offset, scale = (rng.randn(channels).astype(np.float32) for _ in range(3))
    image = rng.uniform(0, 255, (2, 7, channels)).astype(np.float32)

    def script(tf):
        xs = tf.placeholder(tf.float32, [None, channels])
        v = tf.placeholder(tf.float32, [channels])
        img = tf.placeholder(tf.float32, [2, 7, channels])
        outs = [
            tf.nn.batch_normalization(xs, mean, v, offset, scale, 1e-3),
            tf.nn.l2_normalize(xs, axis=1),
            tf.image.per_image_standardization(img),
        ]
        return lambda sess: sess.run(outs, {xs: x, v: var, img: image})

    theirs, ours = run_both(script)
    bound = rsqrt_estimate_ulps()
    for o, t in zip(ours[1:], theirs[1:], strict=True):
        assert_bits(o, t, packet_ulps=bound)
    if not bound:
        assert_bits(ours[0], theirs[0])
    else:
        # Another CPU's estimate: batch_normalization's ``x * inv + (offset - mean * inv)``
        # (``inv = rsqrt(variance + eps) * scale``) moves each of its two terms within the
        # estimate's bound of that term, so a sum that cancels moves by more of its own
        # ulps (64 measured on an AMD EPYC): within the bound of the terms' magnitudes
        # (at most 3 of them there).
        inv = scale / np.sqrt(var.astype(np.float64) + 1e-3)
        terms = (np.abs(x * inv) + np.abs(offset) + np.abs(mean * inv)).astype(np.float32)
        assert ours[0].dtype == theirs[0].dtype and ours[0].shape == theirs[0].shape
        apart = np.abs(ours[0].astype(np.float64) - theirs[0]) / np.spacing(terms)
        assert (apart <= bound).all(), f"{apart.max()} ulps of the terms apart"
