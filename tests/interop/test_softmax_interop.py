"""``tf.nn.softmax`` (``tf.math.softmax``) and its gradient through ``adapters.v1``, bit for
bit against TF 2.21's CPU kernel: oneDNN's softmax primitive (``_MklSoftmax``, which TF's x86
build runs for float32, float16 and bfloat16; ``jtrain._eigen.softmax.softmax``).

Before: ``jax.nn.softmax``; 64x1000 logits of ``randn * 3``: 60.4% of the values and 97.7%
of the gradients 1 ulp or more from TF's (32x24: 72.8% and 90.4%).

Machine assumption: oneDNN's kernel, and with it the order of its row sums and whether its
``exp`` fuses its multiply-adds, follows the CPU's instruction set (AVX-512: 16 lanes, AVX2:
8, SSE4.1: 4; ``jtrain._eigen.softmax.onednn_isa``). TF and jtrain run on the same CPU
here, so the parametrized tests check that CPU's kernel; ``test_capped_instruction_sets``
checks the narrower ones by capping both with ``ONEDNN_MAX_CPU_ISA`` in a fresh process
(measured on an AVX-512 machine: all three kernels bit for bit).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtrain._eigen.softmax import onednn_isa
from tests.interop.bits import assert_bits
from tests.interop.twin import classic_tf1, run_both, tf1

pytestmark = pytest.mark.interop

_ROOT = Path(__file__).resolve().parents[2]
# (shape, axis): rows shorter than one vector (5), a vector and one value (17), rows not a
# multiple of 16 (24, 127, 1000), four accumulators and their tail, one long row, rank 1
# and 3, and an axis other than the last (TF transposes it last).
CASES = [
    ((32, 24), -1),
    ((64, 1000), -1),
    ((7, 5), -1),
    ((3, 16), -1),
    ((3, 17), -1),
    ((4, 127), -1),
    ((2, 3, 40), -1),
    ((1, 20000), -1),
    ((9,), 0),
    ((6, 37, 4), 1),
    ((40, 3), 0),
]
HALF = [((32, 24), -1), ((5, 65), -1), ((6, 37, 4), 1)]


def _logits(shape, seed=0):
    return (np.random.RandomState(seed).randn(*shape) * 3).astype(np.float32)


def _script(x_value, dtype, axis, api="nn"):
    """Softmax of ``x_value`` (as ``dtype``) over ``axis`` and the gradient of
    ``reduce_sum(softmax * cos(softmax))`` to the logits."""

    def script(tf):
        x = tf.placeholder(getattr(tf, dtype), x_value.shape)
        fn = tf.nn.softmax if api == "nn" else tf.math.softmax
        y = fn(x, axis=axis)
        (grad,) = tf.gradients(tf.reduce_sum(y * tf.cos(y)), [x])
        feed = x_value.astype(tf.as_dtype(getattr(tf, dtype)).as_numpy_dtype)
        return lambda sess: sess.run([y, grad], {x: feed})

    return script


@pytest.mark.parametrize("shape,axis", CASES)
def test_float32_values_and_gradients(shape, axis):
    theirs, ours = run_both(_script(_logits(shape), "float32", axis))
    for t, o in zip(theirs, ours, strict=True):
        assert_bits(o, t)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape,axis", HALF)
def test_half_values(shape, axis, dtype):
    """The kernel computes float16 and bfloat16 in float32 and rounds its output."""
    theirs, ours = run_both(_script(_logits(shape, 1), dtype, axis))
    assert_bits(ours[0], theirs[0])


@pytest.mark.parametrize("shape,axis", HALF)
def test_bfloat16_gradients(shape, axis):
    """The gradient's ops in bfloat16, its ``Sum`` adding in float32 (TF's kernel).
    float16's gradient is not TF's yet: TF's ``Sum`` of float16 adds in an order
    jtrain's ``eigen_sum`` does not reproduce (any ``reduce_sum`` of float16)."""
    theirs, ours = run_both(_script(_logits(shape, 1), "bfloat16", axis))
    assert_bits(ours[1], theirs[1])


def test_math_softmax_and_extreme_logits():
    """``tf.math.softmax``, and rows whose ``exp`` underflows: 0 from ``x - max``
    below about -86.97 (oneDNN's ``2**(n - 1)`` has exponent field 0 there) and below
    ``log(FLT_MIN)``, -inf included."""
    x = _logits((8, 40), 2) * 20
    x[0, :] = 0.0
    x[1, :] = 0.0
    x[1, :8] = [-86.9, -86.97, -87.0, -87.3, -87.4, -88.0, -100.0, -np.inf]
    x[2, :] = -1e30
    theirs, ours = run_both(_script(x, "float32", -1, api="math"))
    for t, o in zip(theirs, ours, strict=True):
        assert_bits(o, t)


@pytest.mark.parametrize("n", [20, 100])
def test_nan_and_inf_logits(n):
    """TF's NaN positions: a NaN's ``exp`` (oneDNN's ``minps`` keeps the bound) and a
    ``+inf``'s overflow the row sum (NaN where the row had it, 0 elsewhere), and a NaN
    reaches the maximum of some vector lanes only (``maxps`` keeps its second operand),
    whose columns then subtract NaN; all-``-inf`` rows."""
    x = _logits((8, n), 3)
    x[0, 3] = np.nan
    x[1, 5] = np.inf
    x[2, 0] = -np.inf
    x[3, n - 1] = np.nan  # in the tail
    x[4, [2, 40 % n, n - 3]] = np.nan
    x[5, :] = -np.inf
    x[6, 17] = np.nan
    x[6, 9] = np.inf
    theirs, ours = run_both(_script(x, "float32", -1))
    for t, o in zip(theirs, ours, strict=True):
        assert_bits(o, t)


def test_tf_runs_onednn_softmax():
    """The assumption behind the order: TF 2.21's graph rewrite runs ``Softmax`` as
    ``_MklSoftmax`` on this CPU (the step stats' timeline label)."""
    with classic_tf1():
        graph = tf1.Graph()
        with graph.as_default():
            x = tf1.placeholder(tf1.float32, [4, 10])
            y = tf1.nn.softmax(x)
            with tf1.Session(graph=graph) as sess:
                options = tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE)
                metadata = tf1.RunMetadata()
                sess.run(y, {x: _logits((4, 10))}, options=options, run_metadata=metadata)
    labels = [
        node.timeline_label
        for device in metadata.step_stats.dev_stats
        for node in device.node_stats
        if node.node_name == y.op.name
    ]
    assert labels and all("_MklSoftmax" in label for label in labels), labels


def test_xla_softmax_differs():
    """``jax.nn.softmax`` (what ``tf.nn.softmax`` was) differs from TF's kernel."""
    x = _logits((64, 1000))
    theirs, _ = run_both(_script(x, "float32", -1))
    xla = np.asarray(jax.jit(lambda v: jax.nn.softmax(v, axis=-1))(jnp.asarray(x)))
    assert np.mean(xla.view(np.int32) != theirs[0].view(np.int32)) > 0.3


_CAPPED = """
import json, numpy as np
from jtrain._eigen.softmax import onednn_isa
from tests.interop.test_softmax_interop import CASES, _logits, _script
from tests.interop.twin import run_both
differ = 0
for shape, axis in CASES:
    theirs, ours = run_both(_script(_logits(shape), "float32", axis))
    differ += sum(int(np.sum(np.asarray(t).view(np.int32) != np.asarray(o).view(np.int32)))
                  for t, o in zip(theirs, ours))
print(json.dumps({"lanes": onednn_isa().lanes, "differ": differ}))
"""


@pytest.mark.parametrize("cap,lanes", [("AVX2", 8), ("SSE41", 4)])
def test_capped_instruction_sets(cap, lanes):
    """oneDNN's AVX2 and SSE4.1 kernels (the order on CPUs without AVX-512, e.g. CI's
    AMD EPYC): TF and jtrain capped alike in a fresh process, every case bit for bit.
    On a CPU without AVX-512 the AVX2 cap is its own kernel."""
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA=cap)
    done = subprocess.run(
        [sys.executable, "-c", _CAPPED],
        cwd=_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["lanes"] == min(lanes, onednn_isa().lanes)
    assert result["differ"] == 0
