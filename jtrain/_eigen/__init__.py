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
from collections.abc import Callable
from typing import Any

from jax import lax

__all__ = ["cpu_flags", "on_cpu"]


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
