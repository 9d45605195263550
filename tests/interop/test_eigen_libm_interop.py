"""``tf.exp`` and ``tf.math.log`` on TF's scalar path bit for bit against TF 2.21: rank-0
tensors and the last ``size % 8`` elements of a tensor, which TF's CPU kernels hand to
glibc's ``expf`` / ``logf`` (``jtrain/_eigen/_libm.py``), fed through placeholders so
nothing is folded.

Before, jtrain computed them in float64 rounded to float32, which differs from glibc on a
few values (measured on 8.4M random float32: exp 0.06%, log 0.6%; e.g. ``logf(1.0285715)``
0.028170932, jtrain 0.028170934) and on denormals (TF's threads flush them: ``exp(-87.5)``
is 0, ``log(1e-45)`` is -103.97208, jtrain gave 9.98e-39 and -103.27893).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(46)
_FLT_MAX = np.finfo(np.float32).max
_COMMON = [0.0, -0.0, 1e-45, -1e-45, 3e-39, -3e-39, 1.1754942e-38, 1.1754944e-38, 1e-30, 1.0,
           -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan, _FLT_MAX, -_FLT_MAX]  # fmt: skip
# Inputs where glibc's result is not the float64 one rounded (found with ctypes' libm):
# 32.564632 and -63.09946 are the only two float32 where glibc's FMA and SSE2 variants
# of expf differ; the clamp points of expf (88.72, -87.34: denormal results, -103.28,
# -103.97).
_EXP_EDGES = np.float32(_COMMON + [
    46.880325, 77.250595, -20.312569, -10.414395, 6.8324366, 30.386972, 2.399914,
    -0.1407158, -16.909254, 0.22157386, -85.378746, 32.564632, -63.09946, 88.72, 88.7228,
    88.72283, 88.7229, 89.0, -87.33, -87.3365, -87.34, -87.5, -100.0, -103.27, -103.28,
    -103.29, -103.97, -103.98, -104.0, 1e30, -1e30, 1e-7, -1e-7, 5.9624035e-08,
])  # fmt: skip
_LOG_EDGES = np.float32(_COMMON + [
    1.0285715, 3.6250264e07, 1.0374506, 3.7677047e-18, 0.97541708, 0.88446325, 0.98288429,
    0.63011426, 2.662712e-02, 1.2778432, 1.2178196, 1.4595965e-14, 9.9721528e12, 2.3083248,
    0.69999999, 0.70000005, 1.4, 1.4000001, 0.99999994, 1.0000001, 1e-37, 8.5e37, -3.0,
])  # fmt: skip


def _values(name, size):
    """``size`` values: the edges first, then random ones over the function's range."""
    if name == "exp":
        edges = _EXP_EDGES
        rand = np.concatenate([_RNG.uniform(-104, 89, size), _RNG.randn(size) * 3])
    else:
        edges = _LOG_EDGES
        rand = np.concatenate([np.exp(_RNG.uniform(-87, 88, size)), _RNG.uniform(0.5, 2, size)])
    rand = _RNG.permutation(rand.astype(np.float32))
    return np.concatenate([edges, rand])[:size]


OPS = {"exp": lambda tf: tf.exp, "log": lambda tf: tf.math.log}


def _assert_bits(ours, theirs):
    """Equal to the bit (NaN where TF's is NaN)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    nan = np.isnan(theirs.astype(np.float32))
    np.testing.assert_array_equal(np.isnan(ours.astype(np.float32)), nan)
    width = {2: np.uint16, 4: np.uint32}[theirs.dtype.itemsize]
    differ = (ours.view(width) != theirs.view(width)) & ~nan
    assert not differ.any(), (
        f"{differ.sum()} of {differ.size} differ: at {np.argwhere(differ)[:4].tolist()}, "
        f"{ours[differ][:4]} (jtrain) vs {theirs[differ][:4]} (TF)"
    )


@pytest.mark.parametrize("name", list(OPS))
def test_rank0_bit_for_bit(name):
    """A rank-0 placeholder fed one value at a time: every value on glibc's path."""
    values = _values(name, 400)

    def script(tf):
        x = tf.placeholder(tf.float32, [])
        y = OPS[name](tf)(x)
        return lambda sess: np.float32([sess.run(y, {x: v}) for v in values])

    theirs, ours = run_both(script)
    _assert_bits(ours, theirs)


# float16 and bfloat16 go through float32 (Eigen's ``half(expf(float(x)))``): over all
# 65,536 inputs of each, glibc's results round to the same half values as the float64
# ones, but for bfloat16's denormals under ``log`` (254 of them).
@pytest.mark.parametrize(
    ("name", "dtype"), [("exp", "float32"), ("log", "float32"), ("log", "bfloat16")]
)
def test_tails_bit_for_bit(name, dtype):
    """Tensors of sizes 8k+1 ... 8k+7 (k = 0, 3), one placeholder each (a split or a
    concat would let grappler hoist the op across it), fed row after row: their last
    1 ... 7 elements go to glibc, the rest to Eigen's packets; with ``exp``'s gradient
    (``grad * y``)."""
    sizes = [8 * k + r for k in (0, 3) for r in range(1, 8)]
    rows = 16
    values = _values(name, rows * sum(sizes)).reshape(rows, -1)
    grads = _RNG.randn(*values.shape).astype(np.float32)
    bounds = np.cumsum([0] + sizes)
    spans = list(zip(bounds[:-1], bounds[1:], strict=True))

    def script(tf):
        dt = getattr(tf, dtype)
        xs = [tf.placeholder(dt, [n]) for n in sizes]
        dys = [tf.placeholder(dt, [n]) for n in sizes]
        ys = [OPS[name](tf)(x) for x in xs]
        outs = [ys]
        if name == "exp":
            outs.append([tf.gradients(y, [x], grad_ys=dy)[0] for x, y, dy in
                         zip(xs, ys, dys, strict=True)])  # fmt: skip

        def run(sess):
            results = []
            for row, grad in zip(values, grads, strict=True):
                row, grad = row.astype(dt.as_numpy_dtype), grad.astype(dt.as_numpy_dtype)
                feed = {x: row[a:b] for x, (a, b) in zip(xs, spans, strict=True)}
                feed.update({dy: grad[a:b] for dy, (a, b) in zip(dys, spans, strict=True)})
                results.append([np.concatenate(out) for out in sess.run(outs, feed)])
            return [np.stack([result[i] for result in results]) for i in range(len(outs))]

        return run

    theirs, ours = run_both(script)
    assert len(theirs) == len(ours) == (2 if name == "exp" else 1)
    for t, o in zip(theirs, ours, strict=True):
        _assert_bits(o, t)
