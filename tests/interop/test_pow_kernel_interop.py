"""``jtrain._eigen.pow.pow`` bit for bit against TF 2.21's CPU ``Pow`` kernel (Eigen's
``generic_pow`` on packets of 8 float32, glibc's ``powf`` on the scalar path, see
``jtrain/_eigen/pow.py``), ``tf.pow`` in a TF1 session fed through placeholders so that
grappler rewrites no constant exponent: float32 bases over several ranges (negative ones
with integer and non-integer exponents, signed zeros, infinities, NaN, denormals), the
exponents 1.5, -2, 4, 2.5, -1.5, 0.3 as scalars, tensor exponents, sizes that are not
multiples of 8, broadcast shapes (with the scalar tails inside Eigen's blocks), float16
and bfloat16 (every element through ``powf``), float64 (Eigen's packets of 4, glibc's
``pow`` on the rest). NaN's bits are compared too (Eigen's ``0x7FC00000``, x86's
default NaN ``0xFFC00000`` on the scalar path).

Before: ``jtrain._eigen.pow`` did not exist; ``tf.pow`` computed XLA's ``pow``, which
differs from TF's kernel on 27% of float32 ``x ** 1.5`` for x in [0.5, 10] (9% for
``x ** -2``, 17% for ``x ** 4``; float64: 17% of random pairs).
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

from jtrain._eigen import pow as pow_module
from tests.interop.twin import run_once, tf1
from tests.test_eigen_pow import _TABLE, _TABLE_F64

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(61)
_TINY = np.finfo(np.float32).tiny
_EDGES = np.float32(
    [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e-39, -3e-39, _TINY,
     3.4028235e38, -3.4028235e38, 0.99999994, 1.0000001, -2.0, -3.0, 2.0, 0.5, 1e-30, 1e30]
)  # fmt: skip
EXPONENTS = [1.5, -2.0, 4.0, 2.5, -1.5, 0.3]
# 4133 = 516 packets and 5, 93 = 11 and 5, 7 (no packet), 1024, rank 0.
SHAPES = [(4133,), (31, 3), (7,), (32, 32), ()]
_POW = pow_module.pow  # compiled within; 64-bit values stay 64-bit


def _bases(shape, seed=0):
    """Random bases over several scales and signs, the edges first and last (the last
    in TF's scalar tail) where they fit."""
    rng = np.random.RandomState(seed)
    size = int(np.prod(shape))
    n = max(size, 1)
    values = np.concatenate(
        [rng.uniform(0.5, 10, n), np.exp(rng.uniform(-80, 80, n)), -rng.uniform(0, 10, n)]
    ).astype(np.float32)
    values = rng.permutation(values)[:size]
    if size >= 2 * len(_EDGES) + 8:
        values[: len(_EDGES)] = _EDGES
        values[-len(_EDGES) :] = np.roll(_EDGES, 3)
    return values.reshape(shape)


def _tf_pow(x, y):
    """TF's ``x ** y`` of the NumPy arrays ``x`` and ``y``, fed through placeholders."""

    def script(tf):
        xp = tf.placeholder(tf.as_dtype(x.dtype), x.shape)
        yp = tf.placeholder(tf.as_dtype(y.dtype), y.shape)
        z = tf.pow(xp, yp)
        return lambda sess: sess.run(z, {xp: x, yp: y})

    return run_once(tf1, script)


def _assert_bits(ours, theirs):
    """Equal bit patterns (NaN's sign and payload included), same dtype and shape."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[theirs.dtype.itemsize]
    a, b = ours.reshape(-1).view(width), theirs.reshape(-1).view(width)
    differ = a != b
    assert not differ.any(), (
        f"{differ.sum()} of {differ.size} differ at {np.nonzero(differ)[0][:6]}: "
        f"{ours.reshape(-1)[differ][:6]} (jtrain) vs {theirs.reshape(-1)[differ][:6]} (TF)"
    )


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("exponent", EXPONENTS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scalar_exponent_bit_for_bit(dtype, exponent, shape):
    """A tensor to a rank-0 exponent (TF's ``Right`` functor: flat, the last size % 8
    (float64: % 4) on the scalar path), and a scalar base to a tensor (``Left``)."""
    x = _bases(shape).astype(dtype)
    y = np.array(exponent, dtype)
    _assert_bits(_POW(x, y), _tf_pow(x, y))
    base = np.array(1.7, dtype)
    ys = np.resize(np.float32(EXPONENTS + [-e for e in EXPONENTS]), x.shape) * np.float32(exponent)
    ys = ys.astype(dtype)
    _assert_bits(_POW(base, ys), _tf_pow(base, ys))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tensor_exponents_bit_for_bit(dtype, shape):
    """Bases and exponents of one shape: non-integer, integer (odd and even, with
    negative bases), huge (from 7.4e8 Eigen treats them as infinite in float32, 3.2e18
    in float64), zero, one, the edges; every pair of the edges."""
    x = _bases(shape, seed=1).astype(dtype)
    size = x.size
    y = np.concatenate(
        [
            _RNG.uniform(-6, 6, size),
            np.round(_RNG.uniform(-9, 9, size)),
            _RNG.uniform(-60, 60, size),
        ]
    )
    y = _RNG.permutation(y.astype(np.float32))[:size].reshape(shape).astype(dtype)
    _assert_bits(_POW(x, y), _tf_pow(x, y))
    special = np.concatenate([_EDGES, np.float32([7.45e8, -7.45e8, 1.5, -2.5, 3.0, 126.0, -150.0])])
    special = special.astype(dtype)
    if dtype == "float64":
        wide = [5e-324, -1e-310, 2.2250738585072014e-308, 1.7976931348623157e308, 3.3e18, -1075.0]
        special = np.concatenate([special, wide])
    gx, gy = (a.ravel() for a in np.meshgrid(special, special))
    _assert_bits(_POW(gx, gy), _tf_pow(gx, gy))


@functools.cache
def _discriminating_pool(dtype):
    """Bases ``x`` for which the packet and scalar paths round ``x ** 2.5`` differently
    (about a quarter of those in [0.5, 10] in float32, a fifth in float64)."""
    x = np.random.RandomState(62).uniform(0.5, 10, 2**16).astype(dtype)
    y = np.full_like(x, 2.5)
    with jax.enable_x64(dtype == np.float64):
        if dtype == np.float32:
            packet_fn, scalar_fn = pow_module._pow_f32, pow_module._powf_tf
        else:
            packet_fn, scalar_fn = pow_module._pow_f64, pow_module._pow_c64
        packet = np.asarray(jax.jit(packet_fn)(x, y))
        scalar = np.asarray(jax.jit(scalar_fn)(x, y))
    return x[packet != scalar]


def _discriminating(n, seed, dtype):
    """``n`` bases from :func:`_discriminating_pool`: each element of ``x ** 2.5`` shows
    which path TF took."""
    return np.random.RandomState(seed).choice(_discriminating_pool(dtype), n)


@pytest.mark.parametrize(
    ("x_shape", "y_shape"),
    [
        ((5, 13), (1, 13)),
        ((3, 1), (1, 4)),
        ((4, 1, 13), (13,)),
        ((300, 1001), (1, 1001)),  # blocks of 12 rows: a tail every 12012 elements
        ((1000, 37), (1000, 1)),
        ((1, 2001), (257, 1)),  # both operands broadcast
        ((2, 30000), (2, 1)),  # rows longer than a block
        ((17, 29, 31), (17, 1, 31)),
        ((2, 1, 30001), (1, 3, 1)),
        ((7, 3, 5, 11, 13), (7, 1, 5, 1, 13)),
        ((3, 1, 7000), (3, 7000)),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_broadcast_bit_for_bit(dtype, x_shape, y_shape):
    """General broadcasting: TF's ``BCast`` merges dimensions and Eigen's tiled executor
    cuts the output into blocks whose contiguous runs end in scalar tails; bases chosen
    so that every element tells the two paths apart."""
    size = int(np.prod(x_shape))
    x = _discriminating(size, size % 97, dtype).reshape(x_shape)
    y = np.full(y_shape, 2.5, dtype)
    _assert_bits(_POW(x, y), _tf_pow(x, y))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types_bit_for_bit(dtype, shape):
    """Eigen's half packets have no ``pow``: every element is ``powf`` of the widened
    values, rounded back."""
    np_dtype = tf1.as_dtype(dtype).as_numpy_dtype
    with np.errstate(over="ignore"):  # 1e30 and the like are infinite in float16
        x = _bases(shape, seed=2).astype(np_dtype)
    y = np.resize(np.float32(EXPONENTS + [3.0, -1.0, 0.0, 1.0, np.nan]), x.shape)
    y = (y * np.float32(1.25)).astype(np_dtype)
    _assert_bits(_POW(x, y), _tf_pow(x, y))


def test_committed_table_is_tfs():
    """``tests/test_eigen_pow.py``'s table of TF's bits, written again by TF: its pairs
    in a tensor of 8 elements (packets; padded with ones) and one by one (rank 0)."""
    x, y = _TABLE[:, 0].view(np.float32), _TABLE[:, 1].view(np.float32)
    n = x.size
    padded = -(-n // 8) * 8
    xs, ys = np.ones(padded, np.float32), np.ones(padded, np.float32)
    xs[:n], ys[:n] = x, y

    def script(tf):
        xp, yp = tf.placeholder(tf.float32, [padded]), tf.placeholder(tf.float32, [padded])
        x0, y0 = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
        z, z0 = tf.pow(xp, yp), tf.pow(x0, y0)

        def run(sess):
            packet = sess.run(z, {xp: xs, yp: ys})[:n]
            scalar = np.float32([sess.run(z0, {x0: a, y0: b}) for a, b in zip(x, y, strict=True)])
            return packet, scalar

        return run

    packet, scalar = run_once(tf1, script)
    np.testing.assert_array_equal(packet.view(np.uint32), _TABLE[:, 2])
    np.testing.assert_array_equal(scalar.view(np.uint32), _TABLE[:, 3])


def test_committed_float64_table_is_tfs():
    """``tests/test_eigen_pow.py``'s float64 table, written again by TF (a tensor padded
    with ones to a multiple of 4: every pair on packets)."""
    x, y = _TABLE_F64[:, 0].view(np.float64), _TABLE_F64[:, 1].view(np.float64)
    n = x.size
    padded = -(-n // 4) * 4
    xs, ys = np.ones(padded), np.ones(padded)
    xs[:n], ys[:n] = x, y
    np.testing.assert_array_equal(_tf_pow(xs, ys)[:n].view(np.uint64), _TABLE_F64[:, 2])
