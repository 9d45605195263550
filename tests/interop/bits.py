"""Bit-for-bit comparison of jtrain's values with TF's, for the ``jtrain._eigen`` tests."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np


def _ordered(values: np.ndarray) -> np.ndarray:
    """The float values' bit patterns as integers in the values' order (ulps apart;
    -0.0 one below +0.0)."""
    signed = {1: np.int8, 2: np.int16, 4: np.int32}[values.dtype.itemsize]
    v = values.view(signed).astype(np.int64)
    return np.where(v < 0, -(v & np.iinfo(signed).max) - 1, v)


def ulps_apart(a, b) -> np.ndarray:
    """Elementwise distance of two float arrays of one dtype in units in the last place
    (across zero too: -0.0 and +0.0 are one apart)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    return np.abs(_ordered(a) - _ordered(b))


def assert_bits(ours, theirs, tail_ulps: int = 0, packet_ulps: int = 0) -> None:
    """Equal values to the bit, NaN where TF's is NaN (its sign is the hardware's): the
    last ``size % 8`` elements within ``tail_ulps`` of their dtype (TF's scalar path, the
    C library), every element within ``packet_ulps`` (TF's values vary with the CPU's
    estimates: ``cpu_estimates``)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    ours, theirs = ours.reshape(-1), theirs.reshape(-1)
    nan = np.isnan(theirs.astype(np.float32))
    np.testing.assert_array_equal(np.isnan(ours.astype(np.float32)), nan)
    apart = ulps_apart(ours, theirs)
    allowed = np.full(apart.shape, packet_ulps, np.int64)
    allowed[apart.size - apart.size % 8 :] = max(tail_ulps, packet_ulps)
    differ = (apart > allowed) & ~nan
    assert not differ.any(), (
        f"{differ.sum()} of {differ.size} differ, e.g. {ours[differ][:4]} (jtrain) vs "
        f"{theirs[differ][:4]} (TF) at {np.nonzero(differ)[0][:4]}"
    )


# Where TF runs other CPU kernels than those jtrain reproduces (``cpu_estimates.
# kernels_reproduced``), the bound of ``assert_tf_bits``: float32 rounding of sums in
# another order (K of up to 2,048 terms) and of 12-bit estimates after a Newton step,
# relative to the values' scale, for float32; four of the dtype's ulps for 16-bit floats.
OTHER_KERNELS_RTOL = {"float32": 1e-4, "float16": 4 * 2.0**-10, "bfloat16": 4 * 2.0**-7}


def assert_tf_bits(ours, theirs, atol: float = 1e-6) -> None:
    """:func:`assert_bits` where this machine's TF runs the kernels jtrain reproduces
    (an x86 CPU with AVX-512 and oneDNN on, Intel's estimates); elsewhere equal within
    ``OTHER_KERNELS_RTOL`` (and ``atol`` near zero), NaN where TF's is NaN: TF's bits
    there come from Eigen's ``MatMul`` order or AMD's estimates, which jtrain does not
    reproduce (the machine is named in the interop session's header)."""
    from tests.interop.cpu_estimates import kernels_reproduced

    if kernels_reproduced():
        assert_bits(ours, theirs)
        return
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if not jnp.issubdtype(theirs.dtype, jnp.inexact):
        np.testing.assert_array_equal(ours, theirs)
        return
    rtol = OTHER_KERNELS_RTOL.get(theirs.dtype.name, 1e-4)
    np.testing.assert_allclose(
        ours.astype(np.float64), theirs.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True
    )


def assert_within_estimate(ours, theirs, ulps: int) -> None:
    """float32 values within ``ulps * 2**-23`` of TF's value or of TF's largest finite
    value in the array, NaN where TF's is NaN: the bound of a CPU's ``rcpps``/``rsqrtps``
    estimate that is not the one jtrain reproduces (``cpu_estimates``), through values
    that sum terms of the array's size, each off by the estimate's bound, and cancel
    (``x - mean``, a gradient's sum over a row or the batch)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype == np.float32 and ours.shape == theirs.shape
    bound = ulps * 2.0**-23
    largest = float(np.abs(theirs[np.isfinite(theirs)]).max(initial=0.0))
    np.testing.assert_allclose(ours, theirs, rtol=bound, atol=bound * largest, equal_nan=True)
