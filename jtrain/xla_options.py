"""XLA compile options for training steps: XLA:CPU's convolutions on Eigen, every core.

``jax.jit(step, compiler_options=jtrain.xla_options.step_options())``; the compat
layer's ``Session`` compiles every step program so.

Why: jaxlib 0.10.2's XLA:CPU hands every convolution to YNNPACK (a ``__ynn_fusion``
in the compiled program, XLA's default ``LIBRARY_FUSION_TYPE_INDIVIDUAL_CONVOLUTION``),
which runs it on one thread, and whose filter and input gradients are slow at
training shapes; XLA's own convolution path (Eigen's, on the intra-op thread pool)
uses every core. Measured on 2 AMD EPYC cores, quiet machine (BENCHMARKS.md,
"Convnet training step vs TF1 (CPU)", update of 2026-11-28): the CIFAR-like convnet's
``Session`` step 201 -> 102 ms, TF1's 122 ms; a ResNet 3x3 layer's gradients
638 -> 70 ms; of eight conv shapes only a 1-channel 5x5 forward got slower
(6.1 -> 7.4 ms). Values stay within float32 rounding of the sums (TF's own oneDNN
and Eigen kernels sum in other orders again) and are the same bits run after run.
On 2 Intel AVX-512 cores TF1's oneDNN convolutions are faster than either XLA:CPU
path (the same step 0.55-0.60x TF1's, YNNPACK's 0.32x); this jaxlib's XLA:CPU hands
oneDNN no convolutions, whatever its flags (BENCHMARKS.md, 2026-11-28 updates).

How: a step's ``jax.jit`` gets ``compiler_options`` that are XLA's
default YNNPACK fusion types less ``INDIVIDUAL_CONVOLUTION``, read from this
jaxlib's default ``DebugOptions`` (``XLA_FLAGS`` included), so a program without
convolutions compiles exactly as before. It is per program, not process-wide:
other ``jax.jit`` programs are untouched, and no ``XLA_FLAGS`` is set.

The user's switches: an ``XLA_FLAGS`` naming ``xla_cpu_experimental_ynn_fusion_type``
is the user's choice and left alone (``--xla_cpu_experimental_ynn_fusion_type=
+individual_convolution`` gives YNNPACK its convolutions back);
``EIGEN_CONVOLUTIONS = False`` does the same from Python, before the first run.
Only the CPU backend gets options; other platforms compile as XLA decides.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

import jax

EIGEN_CONVOLUTIONS = True  # False: XLA:CPU's default (YNNPACK) convolutions

FIELD = "xla_cpu_experimental_ynn_fusion_type"
CONVOLUTION = "LIBRARY_FUSION_TYPE_INDIVIDUAL_CONVOLUTION"

_log = logging.getLogger(__name__)


def default_ynn_fusion_types() -> list[str] | None:
    """XLA:CPU's default YNNPACK fusion types in this process, or ``None`` if unknown."""
    try:
        from jax._src.lib import xla_client

        # Each object is kept alive while the next is read from it: the accessors
        # return views into their owner, and a temporary owner leaves them dangling.
        options = xla_client.CompileOptions()
        build = options.executable_build_options
        debug = build.debug_options
        text = str(debug)
    except Exception as e:  # a jaxlib without these bindings: XLA's choice stands
        _log.debug("XLA's default debug options are not readable: %s", e)
        return None
    prefix = FIELD + ":"
    return [line[len(prefix) :].strip() for line in text.splitlines() if line.startswith(prefix)]


@functools.cache
def _cpu_options() -> dict[str, Any] | None:
    if FIELD in os.environ.get("XLA_FLAGS", ""):
        return None  # the user chose XLA:CPU's libraries
    types = default_ynn_fusion_types()
    if not types or CONVOLUTION not in types:
        return None  # convolutions are not YNNPACK's in this jaxlib
    rest = [t for t in types if t != CONVOLUTION]
    if not rest:
        return None  # an empty list cannot be passed as an option; leave XLA's
    return {FIELD: ",".join(rest)}


def step_options(platform: str | None = None) -> dict[str, Any] | None:
    """The ``compiler_options`` of a step program compiled for ``platform``.

    Args:
      platform: the backend the program runs on (``"cpu"``, ``"gpu"``...); default:
        JAX's default backend.

    Returns:
      A dict for ``jax.jit(..., compiler_options=...)``, or ``None`` for XLA's own
      choices (another platform, ``EIGEN_CONVOLUTIONS`` off, the user's ``XLA_FLAGS``).
    """
    if not EIGEN_CONVOLUTIONS:
        return None
    if (platform or jax.default_backend()) != "cpu":
        return None
    return _cpu_options()
