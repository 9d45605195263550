"""``tf.config.threading``: TF's eager-context thread counts, kept and given back.

.. note::
   In classic TF1 these configure TF 2's eager context, not sessions (a ``Session``
   takes ``ConfigProto(intra_op_parallelism_threads=...)``), so in TF as in jtrain they
   change nothing a session runs. XLA's CPU thread pool is sized when JAX's backend
   starts.
"""

from __future__ import annotations

import operator
from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.config._context import SETTINGS

__all__ = [
    "get_inter_op_parallelism_threads",
    "get_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
    "set_intra_op_parallelism_threads",
]


def get_intra_op_parallelism_threads() -> int:
    """The intra-op thread count set (0, TF's default: the system picks).

    Raises:
      TypeError: the count set is not an integer (TF's config refuses it here).
    """
    return operator.index(SETTINGS.intra_op_parallelism_threads)


def set_intra_op_parallelism_threads(num_threads: Any) -> None:
    """Keeps the intra-op thread count (see the module: no session changes).

    Args:
      num_threads: the count; 0 lets the system pick.
    """
    SETTINGS.intra_op_parallelism_threads = num_threads


def get_inter_op_parallelism_threads() -> int:
    """The inter-op thread count set (0, TF's default: the system picks).

    Raises:
      TypeError: the count set is not an integer (TF's config refuses it here).
    """
    return operator.index(SETTINGS.inter_op_parallelism_threads)


def set_inter_op_parallelism_threads(num_threads: Any) -> None:
    """Keeps the inter-op thread count (see the module: no session changes).

    Args:
      num_threads: the count; 0 lets the system pick.
    """
    SETTINGS.inter_op_parallelism_threads = num_threads


__getattr__ = missing_name_getattr("tf.config.threading", globals())
