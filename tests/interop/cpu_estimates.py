"""Whether this CPU's reciprocal estimate is the one jtrain reproduces.

TF's CPU kernels compute ``1 / x`` on full packets with Eigen's ``preciprocal``
(``EIGEN_FAST_MATH``): the x86 ``rcpps`` estimate and one Newton step. ``tf.atan`` (for
``|x| > 1``), ``tf.atan2``, ``tf.math.reciprocal`` and the gradients that call TF's
``Reciprocal`` kernel (``atan``'s, ``log``'s, ``log1p``'s) inherit its last bits.
``jtrain._eigen.trig`` reproduces Intel's estimate (measured over all 2**23 mantissas);
Intel and AMD document only its error bound, ``|relative error| <= 1.5 * 2**-12``, and
AMD's values differ, so on such a machine TF's own results differ from TF's on Intel.

:func:`estimate_ulps` is 0 where TF's ``Reciprocal`` on this machine gives jtrain's bits
for one value of each of the estimate's 2,048 mantissa intervals, and otherwise the
bound the documented error allows: after the Newton step each side is within
``(1.5 * 2**-12)**2`` relative of ``1 / x`` plus two roundings, 2 ulps of float32, so
the two are at most 4 ulps apart, and a later product or polynomial (each term scaled
by at most 1) adds a rounding or two: 8.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import tensorflow as real_tf

from jtrain._eigen.trig import _reciprocal_f32

# The bound of the module docstring, in float32 ulps, for machines whose estimate differs.
OTHER_ESTIMATE_ULPS = 8


def _ulps(tf_fn, ours_fn, exponents, scales=(1,)) -> int:
    """0 where TF's ``tf_fn`` gives ``ours_fn``'s bits for one value of each of 2,048
    mantissa intervals (11 bits) at each exponent and scale, else the bound above."""
    mantissas = (np.arange(2048, dtype=np.int64) << 12) | 0x5A5
    bits = np.concatenate([mantissas | (e << 23) for e in exponents]).astype(np.int32)
    values = np.concatenate([bits.view(np.float32) * s for s in scales]).astype(np.float32)
    theirs = tf_fn(real_tf.constant(values)).numpy()
    with jax.default_device(jax.devices("cpu")[0]):
        ours = np.asarray(jax.jit(ours_fn)(values))
    same = np.array_equal(theirs.view(np.int32), ours.view(np.int32))
    return 0 if same else OTHER_ESTIMATE_ULPS


@functools.cache
def estimate_ulps() -> int:
    """0 if this machine's ``rcpps`` is the one jtrain reproduces, else the bound above."""
    return _ulps(real_tf.math.reciprocal, _reciprocal_f32, (127,), (1, -3, 2.0**-40, 2.0**50))


@functools.cache
def rsqrt_estimate_ulps() -> int:
    """0 if this machine's ``rsqrtps`` is the one ``jtrain._eigen.rsqrt`` reproduces (TF's
    ``Rsqrt`` gives jtrain's bits for one value of each of the estimate's 4,096 intervals:
    the exponent's parity and 11 mantissa bits), else the bound of the module docstring
    (the same reasoning: a 12-bit estimate, one Newton step)."""
    from jtrain._eigen.rsqrt import rsqrt

    return _ulps(real_tf.math.rsqrt, rsqrt, (126, 127, 20, 201))


@functools.cache
def tf_onednn() -> bool:
    """Whether TF here runs oneDNN's kernels (its graph rewrite on: ``IsMklEnabled``)."""
    from tensorflow.python.util import _pywrap_util_port

    return bool(_pywrap_util_port.IsMklEnabled())


@functools.cache
def kernels_reproduced() -> bool:
    """Whether TF on this machine runs the CPU kernels jtrain reproduces bit for bit:
    oneDNN's on AVX-512 (``jtrain._eigen.tf_cpu_kernels``) and Intel's ``rcpps`` and
    ``rsqrtps`` estimates. Elsewhere (an AMD EPYC with AVX2: TF runs Eigen's ``MatMul``
    and ``Softmax``, the CPU's estimates are AMD's) jtrain's values of those kernels are
    within float32 rounding of TF's, not its bits (``bits.assert_tf_bits``)."""
    from jtrain._eigen.matmul import onednn_sgemm

    return onednn_sgemm() and tf_onednn() and estimate_ulps() == 0 and rsqrt_estimate_ulps() == 0
