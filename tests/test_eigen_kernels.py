"""jtrain._eigen.tf_cpu_kernels: which CPU kernels TF 2.21 runs on a machine, decided as TF
and oneDNN decide (the flags of Linux's cpuinfo and their environment variables). That
TF agrees on this machine is checked in tests/interop/test_matmul_order_interop.py."""

from __future__ import annotations

import numpy as np
import pytest

import jtrain._eigen as eigen
from jtrain._eigen import TfCpuKernels, _detect

_AVX2 = frozenset({"sse4_1", "avx", "avx2", "fma"})  # an AMD EPYC of 2019-2022
_AVX512 = _AVX2 | {"avx512f", "avx512bw", "avx512vl", "avx512dq"}  # Skylake-SP
_VNNI = _AVX512 | {"avx512_vnni"}  # Cascade Lake and later


@pytest.mark.parametrize(
    ("flags", "environ", "expected"),
    [
        (_VNNI, {}, (True, "avx512_core")),
        (_AVX512, {}, (False, "avx512_core")),  # AVX-512 without VNNI: TF leaves oneDNN off
        (_AVX2, {}, (False, "avx2")),
        (_AVX2 | {"avx_vnni"}, {}, (True, "avx2")),  # Alder Lake's AVX-VNNI
        (_AVX512 | {"amx_tile"}, {}, (True, "avx512_core")),
        (frozenset(), {}, (False, "sse41")),  # no cpuinfo: another system
        (_AVX2, {"TF_ENABLE_ONEDNN_OPTS": "1"}, (True, "avx2")),
        (_AVX2, {"TF_ENABLE_ONEDNN_OPTS": "true"}, (True, "avx2")),
        (_VNNI, {"TF_ENABLE_ONEDNN_OPTS": "0"}, (False, "avx512_core")),
        (_VNNI, {"TF_ENABLE_ONEDNN_OPTS": "False"}, (False, "avx512_core")),
        (_VNNI, {"TF_ENABLE_ONEDNN_OPTS": "maybe"}, (True, "avx512_core")),  # TF: default
        (_VNNI, {"ONEDNN_MAX_CPU_ISA": "AVX2"}, (True, "avx2")),
        (_VNNI, {"DNNL_MAX_CPU_ISA": "sse41"}, (True, "sse41")),
        (_AVX2, {"ONEDNN_MAX_CPU_ISA": "ALL"}, (False, "avx2")),
        (_AVX2, {"JTRAIN_TF_CPU_KERNELS": "onednn:avx512_core"}, (True, "avx512_core")),
        (_VNNI, {"JTRAIN_TF_CPU_KERNELS": "eigen"}, (False, "avx2")),
        (_VNNI, {"JTRAIN_TF_CPU_KERNELS": " ONEDNN:SSE41 "}, (True, "sse41")),
    ],
)
def test_detection_follows_the_flags_and_the_environment(flags, environ, expected):
    assert _detect(flags, environ) == TfCpuKernels(*expected)


@pytest.mark.parametrize("value", ["onednn", "onednn:avx512", "mkl", "eigen:avx2"])
def test_an_unknown_kernel_set_is_a_value_error_naming_the_variable(value):
    with pytest.raises(ValueError, match=r"JTRAIN_TF_CPU_KERNELS='.*': expected one of"):
        _detect(_AVX2, {"JTRAIN_TF_CPU_KERNELS": value})


def test_the_unit_suite_reproduces_the_measured_machine():
    """tests/conftest.py names TF on an AVX-512 machine with oneDNN on, whatever CPU runs
    the suite: the oneDNN orders below are what the unit tests check."""
    assert eigen.tf_cpu_kernels() == (True, "avx512_core")


@pytest.mark.parametrize("onednn", [True, False])
def test_matmul_and_softmax_take_xla_where_tf_runs_eigen(cpu_programs, monkeypatch, onednn):
    """With oneDNN off TF runs Eigen's MatMul and Softmax, whose orders jtrain does not
    reproduce: XLA's dot and softmax then, to the bit; with it on, oneDNN's orders."""
    import jax
    import jax.numpy as jnp

    from jtrain._eigen import matmul, softmax

    kernels = TfCpuKernels(onednn, "avx512_core")
    monkeypatch.setattr(eigen, "tf_cpu_kernels", lambda: kernels)
    monkeypatch.setattr(matmul, "tf_cpu_kernels", lambda: kernels)
    monkeypatch.setattr(softmax, "tf_cpu_kernels", lambda: kernels)
    rng = np.random.RandomState(0)
    a, b = rng.randn(16, 800).astype(np.float32), rng.randn(800, 16).astype(np.float32)
    assert matmul.in_tf_order(a.shape, b.shape, np.float32) is onednn
    # fresh functions: jit's caches are keyed on the function, not on the machine
    product = jax.jit(lambda a, b: matmul.matmul(a, b))(a, b)
    probabilities = jax.jit(lambda x: softmax.softmax(x))(a[:, :12])
    xla_product = jax.jit(lambda a, b: jnp.matmul(a, b))(a, b)
    xla_probabilities = jax.jit(lambda x: jax.nn.softmax(x, axis=-1))(a[:, :12])
    same = np.array_equal(product, xla_product), np.array_equal(probabilities, xla_probabilities)
    assert same == ((False, False) if onednn else (True, True))


@pytest.mark.parametrize(("isa", "half_onednn"), [("avx512_core", True), ("avx2", False)])
def test_half_softmax_is_onednns_on_avx512_only(cpu_programs, monkeypatch, isa, half_onednn):
    """TF's rewrite sends float16 and bfloat16 ``Softmax`` to oneDNN on AVX-512 CPUs only
    (oneDNN forced on on an AVX2 EPYC: float32 ``_MklSoftmax``, the halves Eigen's)."""
    import jax
    import jax.numpy as jnp

    from jtrain._eigen import softmax

    monkeypatch.setattr(softmax, "tf_cpu_kernels", lambda: TfCpuKernels(True, isa))
    logits = jnp.asarray(np.random.RandomState(1).randn(32, 24) * 3, jnp.float16)
    assert softmax._onednn_order(logits.astype(jnp.float32))
    assert softmax._onednn_order(logits) is half_onednn
    assert softmax._onednn_order(logits.astype(jnp.bfloat16)) is half_onednn
    ours = jax.jit(lambda x: softmax.softmax(x))(logits)
    xla = jax.jit(lambda x: jax.nn.softmax(x, axis=-1))(logits)
    assert np.array_equal(ours, xla) is not half_onednn
