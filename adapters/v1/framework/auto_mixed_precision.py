"""The mixed precision graph rewrite (TF's grappler ``auto_mixed_precision``), as a
scope over the compiled step.

``tf.train.experimental.enable_mixed_precision_graph_rewrite`` turns it on for
sessions created afterwards (as TF's rewrite applies to new sessions). In such a
session's step, each operation of TF's allowlist (matrix products and
convolutions, the ops where reduced precision pays) computes in the reduced
dtype: its float32 inputs are cast down, its outputs cast back to float32.
Variables, everything else in the step and the gradients the optimizer sees stay
float32; the backward pass of an allowlisted op (JAX's derivative through the
casts) also runs in the reduced dtype.

The reduced dtype is float16 on GPUs (TF's choice) and bfloat16 on CPU (XLA:CPU
has no fast float16 products; see BENCHMARKS.md). TF's rewrite also keeps the
elementwise ops *between* two allowlisted ops in float16; this one casts back to
float32 after each allowlisted op (more casts, no float16 elementwise rounding).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp

__all__ = [
    "ALLOWLIST",
    "set_enabled",
    "is_enabled",
    "session_compute_dtype",
    "scope",
    "wrap",
]

# TF's allowlist (grappler's auto_mixed_precision_lists.h, AllowList): op types
# the op library has.
ALLOWLIST = frozenset(
    {
        "MatMul",
        "BatchMatMul",
        "BatchMatMulV2",
        "BatchMatMulV3",
        "Conv2D",
        "Conv2DBackpropFilter",
        "Conv2DBackpropInput",
        "Conv3D",
        "Conv3DBackpropFilterV2",
        "Conv3DBackpropInputV2",
        "DepthwiseConv2dNative",
        "DepthwiseConv2dNativeBackpropFilter",
        "DepthwiseConv2dNativeBackpropInput",
        "Einsum",
    }
)

_enabled = False
_local = threading.local()


def set_enabled(enabled: bool) -> None:
    """Turn the rewrite on or off for sessions created from now on."""
    global _enabled
    _enabled = bool(enabled)


def is_enabled() -> bool:
    """Whether sessions created now get the rewrite."""
    return _enabled


def session_compute_dtype() -> Any:
    """The reduced dtype a session created now computes allowlisted ops in, or None."""
    if not _enabled:
        return None
    return jnp.float16 if jax.default_backend() == "gpu" else jnp.bfloat16


@contextlib.contextmanager
def scope(dtype: Any) -> Iterator[None]:
    """While tracing a step: allowlisted ops compute in ``dtype`` (None: no rewrite)."""
    outer = getattr(_local, "dtype", None)
    _local.dtype = dtype
    try:
        yield
    finally:
        _local.dtype = outer


def rewrites(op_type: str) -> bool:
    """Whether the active scope computes ops of type ``op_type`` in a reduced dtype."""
    return getattr(_local, "dtype", None) is not None and op_type in ALLOWLIST


def wrap(op_type: str, compute: Callable[..., Any]) -> Callable[..., Any]:
    """``compute`` of an op of type ``op_type``, rewritten if the active scope says so."""
    dtype = getattr(_local, "dtype", None)
    if dtype is None or op_type not in ALLOWLIST:
        return compute

    def reduced(ctx: Any, *values: Any) -> tuple[Any, ...]:
        down = [_cast(v, jnp.float32, dtype) for v in values]
        return tuple(_cast(o, dtype, jnp.float32) for o in compute(ctx, *down))

    return reduced


def _cast(value: Any, source: Any, target: Any) -> Any:
    if getattr(value, "dtype", None) == source:  # traced values and NumPy constants
        return jnp.asarray(value).astype(target)
    return value
