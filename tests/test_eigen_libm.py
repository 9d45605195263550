"""``jtrain._eigen._libm``: glibc's ``expf`` and ``logf`` against this machine's own
``libm.so.6`` (ctypes), on float32 bit patterns spread over all 2**32 and the special
values; TF's values (its threads flush denormals, which a ctypes call does not) are
checked in ``tests/interop/test_eigen_libm_interop.py``."""

from __future__ import annotations

import ctypes
import platform

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtrain._eigen import _libm

pytestmark = [
    pytest.mark.skipif(
        platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
        reason="the functions reproduce glibc's: no libm to compare with",
    ),
    pytest.mark.usefixtures("cpu_programs"),  # on_cpu uses them; TF's tails are its CPU's
]

_TINY = np.finfo(np.float32).tiny
# The only two float32 on which glibc's FMA and SSE2 variants of expf differ (all 2**32
# compared by calling both).
_FMA_SENSITIVE = np.uint32([0x4202422F, 0xC27C65D9]).view(np.float32)
_SPECIAL = np.float32([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, _TINY, -_TINY,
                       np.finfo(np.float32).max, -np.finfo(np.float32).max, 88.72, 88.7228,
                       88.72284, 89.0, -87.33, -103.27, -103.97, -104.0, 1.0285715])  # fmt: skip


def _samples():
    """2**17 bit patterns, one at random in each of as many equal slices of 2**32."""
    rng = np.random.RandomState(0)
    step = 2**32 // 2**17
    bits = np.arange(0, 2**32, step, dtype=np.uint64) + rng.randint(0, step, 2**17)
    x = bits.astype(np.uint32).view(np.float32)
    return np.concatenate([x, _SPECIAL, _FMA_SENSITIVE])


def _glibc(name, x):
    fn = getattr(ctypes.CDLL("libm.so.6"), name)
    fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
    with np.errstate(all="ignore"):  # a NaN or an infinity raises no warning in C
        return np.frompyfunc(fn, 1, 1)(x).astype(np.float32)


def _flushed(name, x, y):
    """Where TF's flushed denormals (and ours) differ from a plain call's: a denormal
    argument of ``logf``, a denormal result of ``expf``."""
    if name == "logf":
        return np.abs(x) < _TINY
    return (y != 0) & (np.abs(y) < _TINY)


def _assert_bits(ours, theirs, where):
    nan = np.isnan(theirs)
    np.testing.assert_array_equal(np.isnan(ours), nan)
    differ = (ours.view(np.uint32) != theirs.view(np.uint32)) & ~nan & where
    assert not differ.any(), (where.sum(), differ.sum(), ours[differ][:4], theirs[differ][:4])


@pytest.mark.parametrize("name", ["expf", "logf"])
def test_matches_glibc(name):
    x = _samples()
    theirs = _glibc(name, x)
    ours = np.asarray(jax.jit(getattr(_libm, name))(x))
    assert ours.dtype == np.float32 and ours.shape == x.shape
    _assert_bits(ours, theirs, ~_flushed(name, x, theirs))


@pytest.mark.parametrize("fma", [True, False])
@pytest.mark.parametrize("name", ["expf", "logf"])
def test_both_variants_match_glibc_but_where_they_differ(name, fma):
    """Either compilation's results are glibc's but on the two arguments where the FMA
    variant's rounding differs: there this machine's (``fma_variant``) only."""
    x = _samples()
    theirs = _glibc(name, x)
    with jax.enable_x64(True):
        compute = _libm._expf if name == "expf" else _libm._logf
        ours = np.asarray(jax.jit(lambda v: compute(v, fma))(x))
    where = ~_flushed(name, x, theirs)
    if name == "expf" and fma != _libm.fma_variant():
        where &= ~np.isin(x, _FMA_SENSITIVE)
    _assert_bits(ours, theirs, where)


def test_flushes_denormals_as_tf_threads_do():
    """FTZ: a result below 2**-126 is 0; DAZ: every positive denormal argument of
    ``logf`` gives one value (its bits normalized from 0), a negative one NaN."""
    assert np.all(np.asarray(_libm.expf(np.float32([-87.34, -90.0, -103.5]))) == 0)
    assert np.asarray(_libm.expf(np.float32(-87.33))) >= _TINY
    denormals = np.float32([1e-45, 3e-42, 3e-39, 1.1754942e-38])
    logs = np.asarray(_libm.logf(denormals))
    assert len(set(logs.tolist())) == 1 and logs[0] < np.log(np.float32(1e-45))
    assert np.isnan(np.asarray(_libm.logf(-denormals))).all()


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("shape", [(), (7,), (2, 3)])
def test_keeps_shape_whatever_x64(shape, x64):
    x = np.resize(np.float32([0.5, 2.0, 3.0]), shape)
    with jax.enable_x64(x64):
        for fn in (_libm.expf, _libm.logf):
            y = fn(jnp.asarray(x))
            assert y.dtype == jnp.float32 and y.shape == shape


@pytest.mark.parametrize(
    ("flags", "tunables", "expected"),
    [
        ("fpu sse2 fma avx avx2", "", True),
        ("fpu sse2 fma avx", "", False),
        ("fpu sse2 avx avx2", "", False),
        ("fpu sse2 fma avx avx2", "glibc.cpu.hwcaps=-AVX2_Usable", False),
        ("fpu sse2 fma avx avx2", "glibc.cpu.x86_rep_movsb_threshold=2048", True),
    ],
)
def test_fma_variant_as_glibcs_selector(flags, tunables, expected, monkeypatch, tmp_path):
    """glibc's selector: FMA and AVX2 usable, and not masked by ``GLIBC_TUNABLES``."""
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    monkeypatch.setenv("GLIBC_TUNABLES", tunables)
    assert _libm._fma_variant(str(cpuinfo)) is expected
