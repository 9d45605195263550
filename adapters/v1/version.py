"""``tf.version`` and the version constants at the top level (``tf.VERSION``...).

``VERSION`` (and ``tf.__version__``) is ``"2.21.0"``: jtrain reproduces TF
2.21's ``tf.compat.v1`` in classic TF1 mode, and scripts compare the version to
choose code paths (``if tf.__version__.startswith("1.")``), so they take the
path written for the TF whose behaviour they get. ``GRAPH_DEF_VERSION`` is the
producer version jtrain writes into every ``GraphDef`` and meta graph
(``framework/graph_def.py``: TF 2.21's 2474), with TF's oldest consumer and
producer (0).

``GIT_VERSION`` and ``COMPILER_VERSION`` say what jtrain is instead of copying
TF's build (``"v2.21.0-jtrain-<jtrain version>"``, ``"XLA (jax <version>)"``):
nothing of TF's C++ is compiled. ``tf.CXX11_ABI_FLAG`` and ``tf.MONOLITHIC_BUILD``
live in ``tf.sysconfig`` (as in TF).
"""

from __future__ import annotations

import jax

import jtrain
from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.graph_def import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER

__all__ = [
    "COMPILER_VERSION",
    "GIT_VERSION",
    "GRAPH_DEF_VERSION",
    "GRAPH_DEF_VERSION_MIN_CONSUMER",
    "GRAPH_DEF_VERSION_MIN_PRODUCER",
    "VERSION",
]

VERSION = "2.21.0"
GIT_VERSION = f"v{VERSION}-jtrain-{jtrain.__version__}"
COMPILER_VERSION = f"XLA (jax {jax.__version__})"
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

__getattr__ = missing_name_getattr("tf.version", globals())
