"""``tf.sysconfig``: how to compile native code against this library.

jtrain has no C++ library of its own: native kernels for JAX are XLA FFI
custom calls, compiled against jaxlib's headers and linked against nothing.
So ``get_include()`` is jaxlib's XLA FFI include directory
(``jax.ffi.include_dir()``), ``get_lib()`` the ``jaxlib`` package directory,
``get_compile_flags()`` TF's flags for those headers (``-I``, the C++11 ABI,
``--std=c++17``), ``get_link_flags()`` empty, and ``get_build_info()`` says
whether a CUDA or ROCm JAX plugin is installed. ``CXX11_ABI_FLAG`` (1),
``CXX_VERSION`` (201703) and ``MONOLITHIC_BUILD`` (0) are TF 2.21's values, true
of the jaxlib wheels too.

.. note::
   A TensorFlow custom op (``REGISTER_OP``) cannot be built with these flags:
   port its kernel to an XLA FFI handler or to ``jax.numpy`` inside
   ``tf.jax_function``.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import jax
import jaxlib

from adapters.v1._missing import missing_name_getattr

__all__ = [
    "CXX11_ABI_FLAG",
    "CXX_VERSION",
    "MONOLITHIC_BUILD",
    "get_build_info",
    "get_compile_flags",
    "get_include",
    "get_lib",
    "get_link_flags",
]

CXX11_ABI_FLAG = 1
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0


def get_include() -> str:
    """The directory of the headers native extensions compile against (XLA FFI's)."""
    return str(jax.ffi.include_dir())


def get_lib() -> str:
    """The directory of the installed ``jaxlib`` package (its shared libraries)."""
    return os.path.dirname(os.path.abspath(jaxlib.__file__))


def get_compile_flags() -> list[str]:
    """TF's compiler flags, for jtrain's headers: ``-I<include>``, the C++11 ABI flag
    and ``--std=c++17``."""
    return [f"-I{get_include()}", f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}", "--std=c++17"]


def get_link_flags() -> list[str]:
    """The linker flags: none (XLA FFI handlers link against no jtrain library)."""
    return []


def _has_plugin(*names: str) -> bool:
    return any(importlib.util.find_spec(n) is not None for n in names)


def get_build_info() -> dict[str, Any]:
    """TF's build-information keys answered for this installation.

    Returns:
      ``{"is_cuda_build", "is_rocm_build", "is_tensorrt_build"}``: whether a JAX
      CUDA (``jax_cuda12_plugin``/``jax_cuda13_plugin``) or ROCm plugin is
      installed; TensorRT never.
    """
    return {
        "is_cuda_build": _has_plugin("jax_cuda12_plugin", "jax_cuda13_plugin"),
        "is_rocm_build": _has_plugin("jax_rocm6_plugin", "jax_rocm7_plugin"),
        "is_tensorrt_build": False,
    }


__getattr__ = missing_name_getattr("tf.sysconfig", globals())
