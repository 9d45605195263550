"""``jtrain._eigen.pow``: TF 2.21's CPU ``Pow`` kernel (Eigen's ``generic_pow`` on packets,
glibc's ``powf`` on the scalar path), against a table of TF's own bits and against this
machine's ``libm.so.6`` (ctypes).

``_TF_BITS`` holds, for hard ``(x, y)`` pairs (a grid of special values: signed zeros,
+-1, infinities, NaN, denormals, the largest float, Eigen's "huge" exponent; pairs
where the two paths round differently; results at the ends of float32's range), TF
2.21's result on its packet path (the pair in a tensor of 8 elements) and on its scalar
path (a rank-0 tensor), as bit patterns ``x y packet scalar``. They were written by
TF 2.21 (``tf.raw_ops.Pow`` in a TF1 session, fed through placeholders) and are checked
live against TF by ``tests/interop/test_pow_kernel_interop.py::test_committed_table_is_tfs``.

Before: ``jtrain._eigen.pow`` did not exist and ``tf.pow`` was XLA's ``pow``, which
differs from TF's kernel on a quarter of float32 values (``pow(3, -1)``: TF
0.33333334 on packets, XLA 0.3333333 under ``jax.jit``; NaN's sign, ``pow(-2, 0.5)``:
TF's scalar path ``0xFFC00000``).
"""

from __future__ import annotations

import ctypes
import platform

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtrain import errors
from jtrain._eigen import pow as pow_module
from jtrain._eigen.pow import pow as tf_pow

pytestmark = pytest.mark.usefixtures("cpu_programs")  # TF's CPU kernels: on_cpu's branch

_TF_BITS = [
    "00000000 00000000 3f800000 3f800000",
    "00000000 80000000 3f800000 3f800000",
    "00000000 3f800000 00000000 00000000",
    "00000000 bf800000 7f800000 7f800000",
    "00000000 7f800000 00000000 00000000",
    "00000000 ff800000 7f800000 7f800000",
    "00000000 7fc00000 7fc00000 7fc00000",
    "00000000 00000001 3f800000 00000000",
    "00000000 8020aac8 3f800000 7f800000",
    "00000000 40000000 00000000 00000000",
    "00000000 c0000000 7f800000 7f800000",
    "00000000 3f000000 00000000 00000000",
    "00000000 c0200000 7f800000 7f800000",
    "00000000 7f7fffff 00000000 00000000",
    "00000000 4e317218 00000000 00000000",
    "00000000 3f7fffff 00000000 00000000",
    "80000000 00000000 3f800000 3f800000",
    "80000000 80000000 3f800000 3f800000",
    "80000000 3f800000 80000000 80000000",
    "80000000 bf800000 ff800000 ff800000",
    "80000000 7f800000 00000000 00000000",
    "80000000 ff800000 7f800000 7f800000",
    "80000000 7fc00000 7fc00000 7fc00000",
    "80000000 00000001 3f800000 00000000",
    "80000000 8020aac8 3f800000 7f800000",
    "80000000 40000000 00000000 00000000",
    "80000000 c0000000 7f800000 7f800000",
    "80000000 3f000000 00000000 00000000",
    "80000000 c0200000 7f800000 7f800000",
    "80000000 7f7fffff 00000000 00000000",
    "80000000 4e317218 00000000 00000000",
    "80000000 3f7fffff 00000000 00000000",
    "3f800000 00000000 3f800000 3f800000",
    "3f800000 80000000 3f800000 3f800000",
    "3f800000 3f800000 3f800000 3f800000",
    "3f800000 bf800000 3f800000 3f800000",
    "3f800000 7f800000 3f800000 3f800000",
    "3f800000 ff800000 3f800000 3f800000",
    "3f800000 7fc00000 3f800000 3f800000",
    "3f800000 00000001 3f800000 3f800000",
    "3f800000 8020aac8 3f800000 3f800000",
    "3f800000 40000000 3f800000 3f800000",
    "3f800000 c0000000 3f800000 3f800000",
    "3f800000 3f000000 3f800000 3f800000",
    "3f800000 c0200000 3f800000 3f800000",
    "3f800000 7f7fffff 3f800000 3f800000",
    "3f800000 4e317218 3f800000 3f800000",
    "3f800000 3f7fffff 3f800000 3f800000",
    "bf800000 00000000 3f800000 3f800000",
    "bf800000 80000000 3f800000 3f800000",
    "bf800000 3f800000 bf800000 bf800000",
    "bf800000 bf800000 bf800000 bf800000",
    "bf800000 7f800000 3f800000 3f800000",
    "bf800000 ff800000 3f800000 3f800000",
    "bf800000 7fc00000 7fc00000 7fc00000",
    "bf800000 00000001 3f800000 ffc00000",
    "bf800000 8020aac8 3f800000 ffc00000",
    "bf800000 40000000 3f800000 3f800000",
    "bf800000 c0000000 3f800000 3f800000",
    "bf800000 3f000000 7fc00000 ffc00000",
    "bf800000 c0200000 7fc00000 ffc00000",
    "bf800000 7f7fffff 3f800000 3f800000",
    "bf800000 4e317218 3f800000 3f800000",
    "bf800000 3f7fffff 7fc00000 ffc00000",
    "7f800000 00000000 3f800000 3f800000",
    "7f800000 80000000 3f800000 3f800000",
    "7f800000 3f800000 7f800000 7f800000",
    "7f800000 bf800000 00000000 00000000",
    "7f800000 7f800000 7f800000 7f800000",
    "7f800000 ff800000 00000000 00000000",
    "7f800000 7fc00000 7fc00000 7fc00000",
    "7f800000 00000001 3f800000 7f800000",
    "7f800000 8020aac8 3f800000 00000000",
    "7f800000 40000000 7f800000 7f800000",
    "7f800000 c0000000 00000000 00000000",
    "7f800000 3f000000 7f800000 7f800000",
    "7f800000 c0200000 00000000 00000000",
    "7f800000 7f7fffff 7f800000 7f800000",
    "7f800000 4e317218 7f800000 7f800000",
    "7f800000 3f7fffff 7f800000 7f800000",
    "ff800000 00000000 3f800000 3f800000",
    "ff800000 80000000 3f800000 3f800000",
    "ff800000 3f800000 ff800000 ff800000",
    "ff800000 bf800000 80000000 80000000",
    "ff800000 7f800000 7f800000 7f800000",
    "ff800000 ff800000 00000000 00000000",
    "ff800000 7fc00000 7fc00000 7fc00000",
    "ff800000 00000001 3f800000 7f800000",
    "ff800000 8020aac8 3f800000 00000000",
    "ff800000 40000000 7f800000 7f800000",
    "ff800000 c0000000 00000000 00000000",
    "ff800000 3f000000 7f800000 7f800000",
    "ff800000 c0200000 00000000 00000000",
    "ff800000 7f7fffff 7f800000 7f800000",
    "ff800000 4e317218 7f800000 7f800000",
    "ff800000 3f7fffff 7f800000 7f800000",
    "7fc00000 00000000 3f800000 3f800000",
    "7fc00000 80000000 3f800000 3f800000",
    "7fc00000 3f800000 7fc00000 7fc00000",
    "7fc00000 bf800000 7fc00000 7fc00000",
    "7fc00000 7f800000 7fc00000 7fc00000",
    "7fc00000 ff800000 7fc00000 7fc00000",
    "7fc00000 7fc00000 7fc00000 7fc00000",
    "7fc00000 00000001 3f800000 7fc00000",
    "7fc00000 8020aac8 3f800000 7fc00000",
    "7fc00000 40000000 7fc00000 7fc00000",
    "7fc00000 c0000000 7fc00000 7fc00000",
    "7fc00000 3f000000 7fc00000 7fc00000",
    "7fc00000 c0200000 7fc00000 7fc00000",
    "7fc00000 7f7fffff 7fc00000 7fc00000",
    "7fc00000 4e317218 7fc00000 7fc00000",
    "7fc00000 3f7fffff 7fc00000 7fc00000",
    "00000001 00000000 3f800000 3f800000",
    "00000001 80000000 3f800000 3f800000",
    "00000001 3f800000 00000001 00000000",
    "00000001 bf800000 7f800000 7f800000",
    "00000001 7f800000 00000000 00000000",
    "00000001 ff800000 7f800000 7f800000",
    "00000001 7fc00000 7fc00000 7fc00000",
    "00000001 00000001 3f800000 3f800000",
    "00000001 8020aac8 3f800000 3f800000",
    "00000001 40000000 00000000 00000000",
    "00000001 c0000000 7f800000 7f800000",
    "00000001 3f000000 00000000 1a000000",
    "00000001 c0200000 7f800000 7f800000",
    "00000001 7f7fffff 00000000 00000000",
    "00000001 4e317218 00000000 00000000",
    "00000001 3f7fffff 00000000 00000000",
    "8020aac8 00000000 3f800000 3f800000",
    "8020aac8 80000000 3f800000 3f800000",
    "8020aac8 3f800000 8020aac8 80000000",
    "8020aac8 bf800000 ff800000 ff800000",
    "8020aac8 7f800000 00000000 00000000",
    "8020aac8 ff800000 7f800000 7f800000",
    "8020aac8 7fc00000 7fc00000 7fc00000",
    "8020aac8 00000001 3f800000 ffc00000",
    "8020aac8 8020aac8 3f800000 ffc00000",
    "8020aac8 40000000 00000000 00000000",
    "8020aac8 c0000000 7f800000 7f800000",
    "8020aac8 3f000000 00000000 ffc00000",
    "8020aac8 c0200000 7f800000 ffc00000",
    "8020aac8 7f7fffff 00000000 00000000",
    "8020aac8 4e317218 00000000 00000000",
    "8020aac8 3f7fffff 00000000 ffc00000",
    "40000000 00000000 3f800000 3f800000",
    "40000000 80000000 3f800000 3f800000",
    "40000000 3f800000 40000000 40000000",
    "40000000 bf800000 3f000000 3f000000",
    "40000000 7f800000 7f800000 7f800000",
    "40000000 ff800000 00000000 00000000",
    "40000000 7fc00000 7fc00000 7fc00000",
    "40000000 00000001 3f800000 3f800000",
    "40000000 8020aac8 3f800000 3f800000",
    "40000000 40000000 40800000 40800000",
    "40000000 c0000000 3e800000 3e800000",
    "40000000 3f000000 3fb504f3 3fb504f3",
    "40000000 c0200000 3e3504f3 3e3504f3",
    "40000000 7f7fffff 7f800000 7f800000",
    "40000000 4e317218 7f800000 7f800000",
    "40000000 3f7fffff 3fffffff 3fffffff",
    "c0000000 00000000 3f800000 3f800000",
    "c0000000 80000000 3f800000 3f800000",
    "c0000000 3f800000 c0000000 c0000000",
    "c0000000 bf800000 bf000000 bf000000",
    "c0000000 7f800000 7f800000 7f800000",
    "c0000000 ff800000 00000000 00000000",
    "c0000000 7fc00000 7fc00000 7fc00000",
    "c0000000 00000001 3f800000 ffc00000",
    "c0000000 8020aac8 3f800000 ffc00000",
    "c0000000 40000000 40800000 40800000",
    "c0000000 c0000000 3e800000 3e800000",
    "c0000000 3f000000 7fc00000 ffc00000",
    "c0000000 c0200000 7fc00000 ffc00000",
    "c0000000 7f7fffff 7f800000 7f800000",
    "c0000000 4e317218 7f800000 7f800000",
    "c0000000 3f7fffff 7fc00000 ffc00000",
    "3f000000 00000000 3f800000 3f800000",
    "3f000000 80000000 3f800000 3f800000",
    "3f000000 3f800000 3f000000 3f000000",
    "3f000000 bf800000 40000000 40000000",
    "3f000000 7f800000 00000000 00000000",
    "3f000000 ff800000 7f800000 7f800000",
    "3f000000 7fc00000 7fc00000 7fc00000",
    "3f000000 00000001 3f800000 3f800000",
    "3f000000 8020aac8 3f800000 3f800000",
    "3f000000 40000000 3e800000 3e800000",
    "3f000000 c0000000 40800000 40800000",
    "3f000000 3f000000 3f3504f3 3f3504f3",
    "3f000000 c0200000 40b504f3 40b504f3",
    "3f000000 7f7fffff 00000000 00000000",
    "3f000000 4e317218 00000000 00000000",
    "3f000000 3f7fffff 3f000000 3f000000",
    "c0200000 00000000 3f800000 3f800000",
    "c0200000 80000000 3f800000 3f800000",
    "c0200000 3f800000 c0200000 c0200000",
    "c0200000 bf800000 becccccc becccccd",
    "c0200000 7f800000 7f800000 7f800000",
    "c0200000 ff800000 00000000 00000000",
    "c0200000 7fc00000 7fc00000 7fc00000",
    "c0200000 00000001 3f800000 ffc00000",
    "c0200000 8020aac8 3f800000 ffc00000",
    "c0200000 40000000 40c80000 40c80000",
    "c0200000 c0000000 3e23d70a 3e23d70a",
    "c0200000 3f000000 7fc00000 ffc00000",
    "c0200000 c0200000 7fc00000 ffc00000",
    "c0200000 7f7fffff 7f800000 7f800000",
    "c0200000 4e317218 7f800000 7f800000",
    "c0200000 3f7fffff 7fc00000 ffc00000",
    "7f7fffff 00000000 3f800000 3f800000",
    "7f7fffff 80000000 3f800000 3f800000",
    "7f7fffff 3f800000 7f7fffff 7f7fffff",
    "7f7fffff bf800000 00000000 00000000",
    "7f7fffff 7f800000 7f800000 7f800000",
    "7f7fffff ff800000 00000000 00000000",
    "7f7fffff 7fc00000 7fc00000 7fc00000",
    "7f7fffff 00000001 3f800000 3f800000",
    "7f7fffff 8020aac8 3f800000 3f800000",
    "7f7fffff 40000000 7f800000 7f800000",
    "7f7fffff c0000000 00000000 00000000",
    "7f7fffff 3f000000 5f7fffff 5f7fffff",
    "7f7fffff c0200000 00000000 00000000",
    "7f7fffff 7f7fffff 7f800000 7f800000",
    "7f7fffff 4e317218 7f800000 7f800000",
    "7f7fffff 3f7fffff 7f7fffa6 7f7fffa6",
    "4e317218 00000000 3f800000 3f800000",
    "4e317218 80000000 3f800000 3f800000",
    "4e317218 3f800000 4e317218 4e317218",
    "4e317218 bf800000 30b8aa3b 30b8aa3b",
    "4e317218 7f800000 7f800000 7f800000",
    "4e317218 ff800000 00000000 00000000",
    "4e317218 7fc00000 7fc00000 7fc00000",
    "4e317218 00000001 3f800000 3f800000",
    "4e317218 8020aac8 3f800000 3f800000",
    "4e317218 40000000 5cf5fdf0 5cf5fdf0",
    "4e317218 c0000000 22053526 22053526",
    "4e317218 3f000000 46d5224d 46d5224d",
    "4e317218 c0200000 1a9fffa8 1a9fffa8",
    "4e317218 7f7fffff 7f800000 7f800000",
    "4e317218 4e317218 7f800000 7f800000",
    "4e317218 3f7fffff 4e317209 4e31720a",
    "3f7fffff 00000000 3f800000 3f800000",
    "3f7fffff 80000000 3f800000 3f800000",
    "3f7fffff 3f800000 3f7fffff 3f7fffff",
    "3f7fffff bf800000 3f800001 3f800001",
    "3f7fffff 7f800000 00000000 00000000",
    "3f7fffff ff800000 7f800000 7f800000",
    "3f7fffff 7fc00000 7fc00000 7fc00000",
    "3f7fffff 00000001 3f800000 3f800000",
    "3f7fffff 8020aac8 3f800000 3f800000",
    "3f7fffff 40000000 3f7ffffe 3f7ffffe",
    "3f7fffff c0000000 3f800001 3f800001",
    "3f7fffff 3f000000 3f7fffff 3f7fffff",
    "3f7fffff c0200000 3f800001 3f800001",
    "3f7fffff 7f7fffff 00000000 00000000",
    "3f7fffff 4e317218 00000000 1f7fffe8",
    "3f7fffff 3f7fffff 3f7fffff 3f7fffff",
    "45ee5b9c 40200000 4f976ce7 4f976ce6",
    "408ba7ad 40200000 421f283a 421f283b",
    "33bb17a9 3e99999a 3bf9bd64 3bf9bd63",
    "31fb0ea3 bfc00000 53ba6436 53ba6435",
    "330df707 3fc00000 2cd36ff7 2cd36ff6",
    "2d836efc bfc00000 5a7608c7 5a7608c8",
    "4b05e7ce 3fc00000 50c1b0ae 50c1b0af",
    "23f5684d 3fc00000 1629e6b9 1629e6b8",
    "39a1a437 40800000 2822c2e5 2822c2e6",
    "3e995d0b 3e99999a 3f324f57 3f324f58",
    "279b4481 40200000 03cf6ffa 03cf6ffb",
    "4345a988 c0000000 37d6b487 37d6b486",
    "517fb77a 40200000 6c7f4ad7 6c7f4ad8",
    "37797c9c bfc00000 4b850b88 4b850b87",
    "24a7c9b2 bfc00000 67aa9312 67aa9311",
    "2873bf28 3e99999a 3890e2bc 3890e2bb",
    "38ba9261 3e99999a 3d7987f7 3d7987f8",
    "4012890e 40800000 41dbdb58 41dbdb59",
    "38101000 3fc00000 34582402 34582401",
    "2352d02f 3e99999a 370ab632 370ab633",
    "3e35048e 3e99999a 3f1837d6 3f1837d7",
    "3a5a9eea c0000000 49af831b 49af831a",
    "25b7948a 3fc00000 18dbda8f 18dbda90",
    "3a22a286 c0000000 4a1e9302 4a1e9301",
    "40000000 42ffcccd 7f6edb51 7f6edb51",
    "40000000 43000000 7f800000 7f800000",
    "40000000 c2fc0000 00800000 00800000",
    "40000000 c2fd0000 00000000 00000000",
    "40000000 c3150000 00000000 00000000",
    "40000000 c3160000 00000000 00000000",
    "41200000 421a0000 7f6de741 7f6de741",
    "41200000 c217999a 00891598 00891598",
    "c0000000 42fe0000 ff000000 ff000000",
    "c0000000 c2fe0000 80000000 80000000",
    "3f000000 43158000 00000000 00000000",
    "3f800347 49742400 7f800000 7f800000",
    "3f7ff972 49742400 00000000 00000000",
]
_TABLE = np.array([[int(word, 16) for word in row.split()] for row in _TF_BITS], np.uint32)
_X, _Y = _TABLE[:, 0].view(np.float32), _TABLE[:, 1].view(np.float32)
_PACKET, _SCALAR = _TABLE[:, 2], _TABLE[:, 3]
_TINY = np.finfo(np.float32).tiny


def _assert_bits(ours, theirs):
    """Equal bit patterns, NaN's sign and payload included."""
    ours, theirs = np.asarray(ours).view(np.uint32), np.asarray(theirs).view(np.uint32)
    differ = ours != theirs
    assert not differ.any(), (
        f"{differ.sum()} of {differ.size} differ at {np.nonzero(differ)[0][:6]}: "
        f"{[hex(v) for v in ours[differ][:6]]} (jtrain) vs "
        f"{[hex(v) for v in theirs[differ][:6]]} (TF)"
    )


def test_packets_and_tail_are_tfs():
    """A tensor of the table's 293 pairs: the first 288 on TF's packet path, the last 5
    (293 % 8) on its scalar path."""
    out = np.asarray(jax.jit(tf_pow)(_X, _Y))
    head = _X.size - _X.size % 8
    _assert_bits(out[:head], _PACKET[:head])
    _assert_bits(out[head:], _SCALAR[head:])


def test_packet_path_is_tfs():
    _assert_bits(jax.jit(pow_module._pow_f32)(_X, _Y), _PACKET)


def test_scalar_path_is_tfs():
    _assert_bits(jax.jit(pow_module._powf_tf)(_X, _Y), _SCALAR)


def test_rank0_is_the_scalar_path():
    for i in (0, 17, 100, 250, 280):
        _assert_bits(tf_pow(_X[i], _Y[i]), _SCALAR[i])


_SPECIAL = np.float32(
    [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5, -2.5, np.inf, -np.inf,
     np.nan, 3.4028235e38, -3.4028235e38, 1.1754944e-38, 1.0000001, 0.99999994, -0.99999994,
     7.45e8, -7.45e8, 16777216.0, 16777217.0, -16777215.0, 0.3, 126.0, 128.0, -126.0,
     -149.0, -150.0, 150.0, 1e10, -1e10, 8388607.5, 1e-7, 0.70710677, 1.4142135]
)  # fmt: skip


def _samples():
    """2**16 random pairs over several ranges, and the grid of ``_SPECIAL``."""
    rng = np.random.RandomState(0)
    n = 2**14
    x = np.concatenate([rng.uniform(0.5, 10, n), np.exp(rng.uniform(-80, 80, n)),
                        -rng.uniform(0, 10, n), np.exp(rng.uniform(-5, 5, n))])  # fmt: skip
    y = np.concatenate([rng.uniform(-5, 5, n), rng.uniform(-3, 3, n),
                        np.round(rng.uniform(-8, 8, n)), rng.uniform(-60, 60, n)])  # fmt: skip
    gx, gy = (a.ravel() for a in np.meshgrid(_SPECIAL, _SPECIAL))
    return np.concatenate([x, gx]).astype(np.float32), np.concatenate([y, gy]).astype(np.float32)


def _glibc_powf(x, y):
    fn = ctypes.CDLL("libm.so.6").powf
    fn.argtypes, fn.restype = [ctypes.c_float, ctypes.c_float], ctypes.c_float
    with np.errstate(all="ignore"):
        return np.frompyfunc(fn, 2, 1)(x, y).astype(np.float32)


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="the scalar path reproduces glibc's powf: no libm to compare with",
)
@pytest.mark.parametrize("fma", [True, False])
def test_scalar_path_is_glibcs_powf(fma):
    """Both compilations (``__powf_fma``, ``__powf_sse2``) against this machine's glibc,
    where TF's flushing does not enter (a ctypes call keeps denormals): denormal
    arguments and results below 2**-126 left out. No pair was found on which the two
    compilations differ (4M random pairs compared)."""
    x, y = _samples()
    theirs = _glibc_powf(x, y)
    with jax.enable_x64(True):
        ours = np.asarray(jax.jit(lambda a, b: pow_module._powf(a, b, fma))(x, y))
    flushed = ((np.abs(x) < _TINY) & (x != 0)) | ((np.abs(y) < _TINY) & (y != 0))
    flushed |= (theirs != 0) & (np.abs(theirs) < _TINY)
    _assert_bits(ours[~flushed], theirs[~flushed])


def test_flushes_denormals_as_tf_threads_do():
    """DAZ: a denormal ``x`` is a zero to Eigen's comparisons, ``2**-150`` to glibc's
    normalization; ``pow(x, 1)`` keeps it (a select). FTZ: results below 2**-126 are 0."""
    d = np.float32(1e-45)
    packet = np.asarray(jax.jit(pow_module._pow_f32)(np.float32([d, d, d, -d, 2.0]),
                                                     np.float32([2, -2, 1, 3, -127])))  # fmt: skip
    assert packet.view(np.uint32).tolist() == [0, 0x7F800000, 1, 0x80000000, 0]
    scalar = np.asarray(jax.jit(pow_module._powf_tf)(np.float32([d, d, 2.0]),
                                                     np.float32([0.5, 2, -127])))  # fmt: skip
    assert scalar.tolist() == [2.0**-75, 0.0, 0.0]


@pytest.mark.parametrize(
    ("x_shape", "y_shape", "first"),
    [
        # Measured on TF 2.21: where its output's elements take the scalar path.
        ((37,), (1,), [32, 33, 34, 35, 36]),
        ((5, 13), (1, 13), [64]),
        ((300, 1001), (1, 1001), [12008, 12009, 12010, 12011, 24020, 24021]),
        ((1000, 37), (1000, 1), [11872, 11873, 11874, 11875, 11876, 23749]),
        ((1, 2001), (257, 1), [12000, 12001, 12002, 12003, 12004, 12005, 24006]),
        ((17, 29, 31), (17, 1, 31), [15280, 15281, 15282]),
        ((2, 30000), (2, 1), [11848, 11849, 11850, 23699, 23700, 23701, 29998, 29999]),
    ],
    ids=str,
)
def test_scalar_positions_are_tfs(x_shape, y_shape, first):
    """Flat outputs end in their ``size % 8``; broadcast ones are cut into Eigen's blocks
    (about 11851 elements when both operands are broadcast, 20000 when one is), each
    contiguous run of a block ending in its own tail."""
    at = pow_module._scalar_positions(x_shape, y_shape)
    assert at[: len(first)].tolist() == first


def test_broadcast_shape_and_dtype():
    out = tf_pow(np.float32([[2.0], [3.0]]), np.float32([1.0, 2.0, 0.5]))
    assert out.shape == (2, 3) and out.dtype == jnp.float32
    assert np.asarray(out)[1].tolist() == [3.0, 9.0, np.float32(np.sqrt(np.float32(3)))]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.complex64])
def test_other_dtypes_are_xlas(dtype):
    with jax.enable_x64(True):
        x, y = np.array([2, 3, -2], dtype), np.array([3, 2, 3], dtype)
        out = tf_pow(x, y)
        assert out.dtype == dtype
        np.testing.assert_array_equal(np.asarray(out), np.asarray(jnp.power(x, y)))


def test_errors_are_tfs():
    """TF's messages (measured on TF 2.21), naming Pow's arguments."""
    with pytest.raises(TypeError, match="x and y"):
        tf_pow(np.float32([1.0]), np.float16([1.0]))
    with pytest.raises(
        errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[4\]"
    ):
        tf_pow(np.ones((2, 3), np.float32), np.ones(4, np.float32))
    with pytest.raises(errors.UnimplementedError, match=r"Broadcast between \[64,3,2,5,7,3\]"):
        tf_pow(np.ones((64, 3, 2, 5, 7, 3), np.float32), np.ones((1, 3, 1, 5, 1, 3), np.float32))
