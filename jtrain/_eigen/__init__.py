"""TF's CPU elementwise math, bit for bit: Eigen's vectorized functions in ``jax.numpy``.

TensorFlow's CPU kernels (``Exp``, ``Log``, ``Tanh``, ``Sigmoid``...) evaluate Eigen's
packet math: polynomial and rational approximations on packets of 8 ``float32`` (the
AVX build of the x86 wheels, without FMA), with the scalar C library function for the
elements that do not fill a packet. XLA's CPU backend has its own approximations, which
round differently on a large share of elements (measured against TF 2.21: ``exp`` 22%
of float32 values 1 ulp apart, ``tanh`` and ``sigmoid`` about 60%, up to 7 ulps).

The modules here reproduce Eigen's operations in the same order, each product rounded
before it meets an addition (:func:`jtrain._numerics.rounded`: XLA would contract it
into a fused multiply-add, which TF's build does not use), and are used on the CPU
only (:func:`on_cpu`): on GPUs TF calls CUDA's functions, which XLA's GPU backend also
calls.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, NamedTuple

from jax import lax

__all__ = ["KERNELS_ENV", "TfCpuKernels", "cpu_flags", "on_cpu", "tf_cpu_kernels"]

# Names the TF whose CPU kernels jtrain reproduces, overriding the detection of
# :func:`tf_cpu_kernels`: ``onednn:avx512_core``, ``onednn:avx2``, ``onednn:sse41`` or
# ``eigen`` (to reproduce the TF of another machine, e.g. the one a checkpoint was
# trained on).
KERNELS_ENV = "JTRAIN_TF_CPU_KERNELS"
# The CPU features for which TF 2.21's Linux x86 build turns oneDNN on by default
# (``IsMKLEnabled`` in tensorflow/core/util/util.cc), as Linux's cpuinfo names them.
_ONEDNN_DEFAULT_FLAGS = frozenset(
    {"avx512_vnni", "avx512_bf16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16"}
)
_ISAS = ("avx512_core", "avx2", "sse41")
# ``ONEDNN_MAX_CPU_ISA`` values (oneDNN's names) that cap its kernels below AVX-512.
_ISA_CAPS = {"SSE41": "sse41", "AVX": "sse41", "AVX2": "avx2", "AVX2_VNNI": "avx2"}


@functools.cache
def cpu_flags(cpuinfo: str = "/proc/cpuinfo") -> frozenset[str]:
    """The instruction-set flags Linux lists for this CPU (the ``flags`` line of
    ``cpuinfo``), read once: what glibc's and oneDNN's kernel choices depend on.

    Args:
      cpuinfo: the file to read (Linux's ``/proc/cpuinfo``).

    Returns:
      The flags (``avx2``, ``fma``, ``avx512f``...); empty where the file is absent
      (another system) or has no ``flags`` line (another architecture).
    """
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as info:
            line = next((line for line in info if line.startswith("flags")), "")
    except OSError:
        return frozenset()
    return frozenset(line.partition(":")[2].split())


def on_cpu(eigen_fn: Callable[..., Any], default_fn: Callable[..., Any]) -> Callable[..., Any]:
    """``eigen_fn`` where the program runs on a CPU, ``default_fn`` elsewhere.

    Args:
      eigen_fn: TF's CPU computation (Eigen's order of operations).
      default_fn: the computation on other platforms (XLA's own, as TF's GPU kernels).

    Returns:
      A function of the same arguments choosing by platform when it is lowered.
    """

    def fn(*args: Any) -> Any:
        return lax.platform_dependent(*args, cpu=eigen_fn, default=default_fn)

    return fn


class TfCpuKernels(NamedTuple):
    """Which of its CPU kernels TF 2.21 runs on a machine, as far as their bits differ.

    Attributes:
      onednn: whether TF's oneDNN graph rewrite is on (``MatMul``, ``Softmax``... run
        oneDNN's primitives); off, TF runs Eigen's kernels.
      isa: oneDNN's JIT instruction set on this CPU, ``"avx512_core"``, ``"avx2"`` or
        ``"sse41"`` (its kernels' vector width and whether they fuse multiply-adds).
    """

    onednn: bool
    isa: str


def _detect(flags: frozenset[str], environ: dict[str, str]) -> TfCpuKernels:
    """TF's and oneDNN's choices for a CPU of ``flags`` under ``environ``."""
    override = environ.get(KERNELS_ENV, "").strip().lower()
    if override:
        library, _, named_isa = override.partition(":")
        if library == "eigen" and not named_isa:
            return TfCpuKernels(False, "avx2")
        if library != "onednn" or named_isa not in _ISAS:
            raise ValueError(
                f"{KERNELS_ENV}={override!r}: expected one of "
                + ", ".join(f"'onednn:{name}'" for name in _ISAS)
                + " or 'eigen'"
            )
        return TfCpuKernels(True, named_isa)
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        isa = "avx512_core"
    elif {"avx2", "fma"} <= flags:
        isa = "avx2"
    else:
        isa = "sse41"
    cap = environ.get("ONEDNN_MAX_CPU_ISA") or environ.get("DNNL_MAX_CPU_ISA", "")
    capped = _ISA_CAPS.get(cap.strip().upper())
    if capped is not None and _ISAS.index(capped) > _ISAS.index(isa):
        isa = capped
    onednn = bool(flags & _ONEDNN_DEFAULT_FLAGS)
    setting = environ.get("TF_ENABLE_ONEDNN_OPTS", "").strip().lower()
    if setting in ("1", "true"):
        onednn = True
    elif setting in ("0", "false"):
        onednn = False
    return TfCpuKernels(onednn, isa)


@functools.cache
def tf_cpu_kernels() -> TfCpuKernels:
    """The CPU kernels TF 2.21 runs on this machine, which jtrain's CPU programs reproduce.

    As TF decides, once per process: oneDNN on where the CPU has AVX-512 VNNI or BF16,
    AVX-VNNI or AMX (Linux's ``/proc/cpuinfo`` flags), or as ``TF_ENABLE_ONEDNN_OPTS``
    says; oneDNN's instruction set by the CPU's (AVX-512, else AVX2 with FMA, else
    SSE4.1), capped by ``ONEDNN_MAX_CPU_ISA``. ``JTRAIN_TF_CPU_KERNELS`` (:data:`KERNELS_ENV`)
    names another machine's instead.

    Returns:
      The :class:`TfCpuKernels`.

    Raises:
      ValueError: ``JTRAIN_TF_CPU_KERNELS`` names no kernel set.

    .. note::
       TF's numbers differ between machines: on a CPU without AVX-512 VNNI, AVX-VNNI or
       AMX (AMD's EPYC before Zen 4, Intel's Xeons before Cascade Lake) TF runs Eigen's
       ``MatMul`` and ``Softmax``, whose order of additions is not oneDNN's. jtrain
       reproduces oneDNN's (AVX-512) ``MatMul`` order and oneDNN's ``Softmax``; with
       oneDNN off it computes those two with XLA's functions (within float32 rounding
       of TF's, not its bits).
    """
    return _detect(cpu_flags(), dict(os.environ))
