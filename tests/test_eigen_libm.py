"""``jtrain._eigen._libm``: glibc's ``expf``, ``logf`` and ``sincosf`` against this
machine's own ``libm.so.6`` (ctypes), on float32 bit patterns spread over all 2**32 and
the special values; TF's values (its threads flush denormals, which a ctypes call does
not) are checked in ``tests/interop/test_eigen_libm_interop.py`` (``sincosf``: through
TF's normal draws, ``tests/interop/test_random_streams_interop.py``).

``sincosf`` was added later (TF's normal draws computed it in float64 and rounded): every
``sincosf`` test here failed before (no such function), and the reference bits below
differ from that rounding on the marked arguments.
"""

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


# glibc 2.36's sincosf, read from Debian 12's libm.so.6 by calling its two compilations at
# the addresses its ifunc resolver returns (__sincosf_fma, __sincosf_sse2; FTZ and DAZ
# set): (x, sin x, cos x) as float32 bits.
# - where the compilations differ: the 17 positive of the 34 such float32 (all 2**32
#   compared; for -x glibc gives the negated sines, the same cosines): FMA's, then SSE2's;
_SINCOSF_FMA_SENSITIVE = [
    (0x418A3ADB, 0xBF800000, 0xB7B4F770, 0xBF800000, 0xB7B4F76F),
    (0x418A3ADC, 0xBF800000, 0xB7A4F770, 0xBF800000, 0xB7A4F76F),
    (0x418A3ADD, 0xBF800000, 0xB794F770, 0xBF800000, 0xB794F76F),
    (0x418A3ADE, 0xBF800000, 0xB784F770, 0xBF800000, 0xB784F76F),
    (0x41BC76D9, 0xBF7FFF80, 0xBB803F6B, 0xBF7FFF80, 0xBB803F6A),
    (0x4202EB4B, 0x3F779884, 0x3E821CE2, 0x3F779884, 0x3E821CE3),
    (0x4255B0A9, 0xBC7D08A9, 0xBF7FF82F, 0xBC7D08A8, 0xBF7FF82F),
    (0x42687A55, 0x3F800000, 0xB552257C, 0x3F800000, 0xB552257B),
    (0x4280CE28, 0x3F800000, 0x34FDD672, 0x3F800000, 0x34FDD671),
    (0x42870E40, 0xBF7FF72D, 0xBC866CC4, 0xBF7FF72D, 0xBC866CC3),
    (0x42A35C07, 0xBADAA3B4, 0x3F7FFFE9, 0xBADAA3B5, 0x3F7FFFE9),
    (0x42A35D44, 0x3A44B889, 0x3F7FFFFB, 0x3A44B888, 0x3F7FFFFB),
    (0x42A97360, 0x3DC7B08A, 0xBF7EC7BA, 0x3DC7B089, 0xBF7EC7BA),
    (0x42C55FAA, 0xBF767F39, 0xBE8A34D1, 0xBF767F39, 0xBE8A34D2),
    (0x42CF5854, 0x382EE64E, 0xBF800000, 0x382EE64F, 0xBF800000),
    (0x42D8D23E, 0x3F7FEA63, 0xBCD25EA8, 0x3F7FEA63, 0xBCD25EA7),
    (0x42E87A55, 0xB5D2257C, 0xBF800000, 0xB5D2257B, 0xBF800000),
]
# - arguments of TF's normal draws (float(2 pi k / 2**23)) where glibc's sine or cosine is
#   not the float64 one rounded (10 drawn at random of the 108,975 such), and the edges of
#   glibc's paths (2**-12, 0.75, 120) and multiples of pi/2 (both compilations agree).
_SINCOSF_EDGES = [
    (0x3F17C961, 0x3F0F0C58, 0x3F544DF4),  # 0.59291655
    (0x3F2653DF, 0x3F1ADEBF, 0x3F4BD75C),  # 0.6497173
    (0x3F7DF914, 0x3F56508B, 0x3F0C04CB),  # 0.9920819
    (0x3FE77A5D, 0x3F78CE6B, 0xBE710B80),  # 1.8084217
    (0x402C3122, 0x3EDF34DD, 0xBF66647C),  # 2.6904988
    (0x4030A45B, 0x3EBEA743, 0xBF6D96F1),  # 2.7600315
    (0x40A01F93, 0xBF7533F2, 0x3E932054),  # 5.0038543
    (0x40A79421, 0xBF5D9827, 0x3F002FE9),  # 5.236832
    (0x40A8FF31, 0xBF57B28D, 0x3F09E102),  # 5.2811513
    (0x40B6E809, 0xBF099394, 0x3F57E3F8),  # 5.7158246
    (0x397FFFFF, 0x397FFFFF, 0x3F800000),  # 0.00024414061
    (0x39800000, 0x39800000, 0x3F800000),  # 2**-12
    (0x3F3FFFFF, 0x3F2E7FE0, 0x3F3B4FF7),  # 0.74999994
    (0x3F400000, 0x3F2E7FE1, 0x3F3B4FF6),  # 0.75
    (0x3FC90FDB, 0x3F800000, 0xB33BBD2E),  # pi / 2
    (0x40490FDB, 0xB3BBBD2E, 0xBF800000),  # pi
    (0x4096CBE4, 0xBF800000, 0x324CDE2E),  # 3 pi / 2
    (0x40C90FDA, 0xB4A22169, 0x3F800000),  # 6.283185, the largest draw argument
    (0x42EFFFFF, 0x3F14A287, 0x3F506E74),  # 119.99999
    (0x42F00000, 0x3F14A2EF, 0x3F506E2A),  # 120
]
# float(2 pi u) for u = k / 2**23, every 64th k: arguments of TF's normal draws.
_DRAW_ARGUMENTS = (2 * np.pi * (np.arange(0, 2**23, 64) / 2**23)).astype(np.float32)


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


def _glibc_sincosf(x):
    fn = ctypes.CDLL("libm.so.6").sincosf
    fn.argtypes = [ctypes.c_float, ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_float)]
    sin, cos = ctypes.c_float(), ctypes.c_float()
    out = np.empty((2, x.size), np.float32)
    with np.errstate(all="ignore"):
        for i, v in enumerate(x.tolist()):
            fn(v, ctypes.byref(sin), ctypes.byref(cos))
            out[:, i] = sin.value, cos.value
    return out[0], out[1]


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


def test_sincosf_matches_glibc():
    """This machine's compilation (``fma_variant``), compiled as one program."""
    denormals = np.float32([1e-45, -1e-45, 3e-39, 1.1754942e-38])
    x = np.concatenate([_samples(), _DRAW_ARGUMENTS, denormals])
    sin, cos = (np.asarray(v) for v in jax.jit(_libm.sincosf)(x))
    glibc_sin, glibc_cos = _glibc_sincosf(x)
    assert sin.dtype == cos.dtype == np.float32 and sin.shape == cos.shape == x.shape
    everywhere = np.ones(x.shape, bool)
    _assert_bits(sin, glibc_sin, everywhere)
    _assert_bits(cos, glibc_cos, everywhere)


@pytest.mark.parametrize("fma", [True, False])
def test_sincosf_both_variants_reference_bits(fma):
    """Either compilation's bits on the arguments where they differ, and on hard ones."""
    rows = np.array(_SINCOSF_FMA_SENSITIVE, np.uint32)
    sin_col, cos_col = (1, 2) if fma else (3, 4)
    edges = np.array(_SINCOSF_EDGES, np.uint32)
    x = np.concatenate([rows[:, 0], rows[:, 0] | np.uint32(1 << 31), edges[:, 0]])
    sign = np.uint32(1 << 31)
    want_sin = np.concatenate([rows[:, sin_col], rows[:, sin_col] ^ sign, edges[:, 1]])
    want_cos = np.concatenate([rows[:, cos_col], rows[:, cos_col], edges[:, 2]])
    with jax.enable_x64(True):
        sin, cos = jax.jit(lambda v: _libm._sincosf(v, fma))(x.view(np.float32))
    np.testing.assert_array_equal(np.asarray(sin).view(np.uint32), want_sin)
    np.testing.assert_array_equal(np.asarray(cos).view(np.uint32), want_cos)


def test_sincosf_below_120_as_the_whole_function():
    """``below_120`` (TF's normal draws) leaves the large reduction out, nothing else."""
    x = np.concatenate([_DRAW_ARGUMENTS, np.float32([0.0, -0.0, 1e-45, 119.99999, -7.5])])
    whole = jax.jit(_libm.sincosf)(x)
    short = jax.jit(lambda v: _libm.sincosf(v, below_120=True))(x)
    for a, b in zip(whole, short, strict=True):
        np.testing.assert_array_equal(np.asarray(a).view(np.uint32), np.asarray(b).view(np.uint32))


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
        for y in _libm.sincosf(jnp.asarray(x)):
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
