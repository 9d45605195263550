"""Bit-for-bit comparison of jtrain's values with TF's, for the ``jtrain._eigen`` tests."""

from __future__ import annotations

import numpy as np


def _ordered(values: np.ndarray) -> np.ndarray:
    """The float values' bit patterns as integers in the values' order (ulps apart;
    -0.0 one below +0.0)."""
    signed = {1: np.int8, 2: np.int16, 4: np.int32}[values.dtype.itemsize]
    v = values.view(signed).astype(np.int64)
    return np.where(v < 0, -(v & np.iinfo(signed).max) - 1, v)


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
    apart = np.abs(_ordered(ours) - _ordered(theirs))
    allowed = np.full(apart.shape, packet_ulps, np.int64)
    allowed[apart.size - apart.size % 8 :] = max(tail_ulps, packet_ulps)
    differ = (apart > allowed) & ~nan
    assert not differ.any(), (
        f"{differ.sum()} of {differ.size} differ, e.g. {ours[differ][:4]} (jtrain) vs "
        f"{theirs[differ][:4]} (TF) at {np.nonzero(differ)[0][:4]}"
    )
