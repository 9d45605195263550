"""Interop tests run real TensorFlow against jtrain's files (``nox -s interop``).

TensorFlow is imported here, at collection: without it these tests cannot mean
anything, so a missing TensorFlow is an error, not a skip.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
# The unit suite fixes the TF jtrain reproduces (tests/conftest.py); against TF itself,
# jtrain detects this machine's as TF does (jtrain._eigen.tf_cpu_kernels).
os.environ.pop("JTRAIN_TF_CPU_KERNELS", None)

try:
    import tensorflow as tf
except ImportError as e:  # pragma: no cover
    raise ImportError(
        "tests/interop needs TensorFlow: run them with `nox -s interop` (it installs "
        "tensorflow-cpu) or from an environment where `import tensorflow` works"
    ) from e

import pytest  # noqa: E402

# TF1's Keras dtypes, what `tf.compat.v1.disable_v2_behavior()` gives a script and
# adapters.v1 reproduces: a layer without dtype takes its first input's, no input is
# cast (the tests run TF 2's defaults otherwise, whose layers are float32 and cast).
tf.compat.v1.keras.layers.disable_v2_dtype_behavior()


def pytest_report_header(config):
    """The CPU kernels TF runs here, and whether they are the ones jtrain reproduces bit
    for bit (``bits.assert_tf_bits`` checks within float32 rounding where not)."""
    from jtrain._eigen import tf_cpu_kernels
    from tests.interop.cpu_estimates import kernels_reproduced, tf_onednn

    kernels = tf_cpu_kernels()
    reproduced = kernels_reproduced()
    return (
        f"TF's CPU kernels here: oneDNN {'on' if tf_onednn() else 'off'} (jtrain detects "
        f"{'on' if kernels.onednn else 'off'}, {kernels.isa}); "
        + (
            "the ones jtrain reproduces bit for bit"
            if reproduced
            else "not the ones jtrain reproduces: kernel-order tests check float32 rounding"
        )
    )


@pytest.fixture
def tf_graph():
    """A fresh ``tf.Graph`` set as default: TF1 graph mode for this test only.

    Eager execution stays on globally; code under this fixture builds ops in the
    graph and runs them with ``tf.compat.v1.Session(graph=graph)``.
    """
    graph = tf.Graph()
    with graph.as_default():
        yield graph
