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
(measured on an AVX-512 machine: all three kernels bit for bit; with oneDNN forced on,
the AVX2 and SSE4.1 kernels on an AMD EPYC with AVX2 too).

Where TF leaves oneDNN off (CPUs without AVX-512 VNNI, AVX-VNNI or AMX, such as that
EPYC), TF runs Eigen's ``Softmax`` and jtrain XLA's function
(``jtrain._eigen.tf_cpu_kernels``): the value tests then check that jtrain's values are
within a few ulps of TF's (``OTHER_KERNEL_ULPS``), not its bits.
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

from jtrain._eigen import tf_cpu_kernels
from jtrain._eigen.softmax import onednn_isa, softmax
from tests.interop.bits import assert_bits
from tests.interop.cpu_estimates import tf_onednn
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

# Whether TF here runs oneDNN's softmax, the kernel jtrain reproduces (else Eigen's, and
# jtrain ``jax.nn.softmax``).
ONEDNN_SOFTMAX = tf_cpu_kernels().onednn
# Where TF runs Eigen's ``Softmax``, how far jtrain's (XLA's) probabilities may be from
# TF's, in ulps of their dtype: Eigen's ``exp``, its row sums and its product by the
# sums' reciprocal (the CPU's ``rcpps`` estimate and a Newton step, 8 ulps apart
# between vendors: ``cpu_estimates``) against XLA's ``exp``, sums and division.
# Measured on an AMD EPYC with AVX2 over these cases: 6, 3 and 2 ulps at most.
OTHER_KERNEL_ULPS = {"float32": 16, "float16": 8, "bfloat16": 4}
# ... and the gradient's, ``(g - sum(g * y)) * y``, in units of the dtype's ``eps`` times
# TF's probability ``y``: the gradient is ``y`` times factors of order 1, so the
# probabilities' few ulps move it by a few ``eps * y`` however much ``g - sum(g * y)``
# cancels. Measured there: 5.2 (float32) and 5.0 (bfloat16) at most.
OTHER_KERNEL_GRADIENT_EPS = 16


def _assert_values(ours, theirs):
    """jtrain's probabilities are TF's, bit for bit where TF runs oneDNN's kernel; else
    (Eigen's kernel) within ``OTHER_KERNEL_ULPS``, NaN where TF's is NaN."""
    if ONEDNN_SOFTMAX:
        assert_bits(ours, theirs)
    else:
        assert_bits(ours, theirs, packet_ulps=OTHER_KERNEL_ULPS[np.asarray(theirs).dtype.name])


def _assert_gradient(ours, theirs, probabilities):
    """jtrain's gradient of the logits is TF's, bit for bit where TF runs oneDNN's
    kernel; else within ``OTHER_KERNEL_GRADIENT_EPS * eps * y`` of TF's (``y``, TF's
    ``probabilities``), NaN where TF's is NaN."""
    if ONEDNN_SOFTMAX:
        assert_bits(ours, theirs)
        return
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    o, t = ours.astype(np.float64), theirs.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(o), np.isnan(t))
    eps_y = float(jnp.finfo(theirs.dtype).eps) * np.abs(np.asarray(probabilities, np.float64))
    apart = np.abs(o - t)
    differ = apart > OTHER_KERNEL_GRADIENT_EPS * eps_y  # False at NaNs
    assert not differ.any(), (
        f"{differ.sum()} of {differ.size} differ, e.g. {o[differ][:4]} (jtrain) vs "
        f"{t[differ][:4]} (TF): {(apart / eps_y)[differ][:4]} eps * y"
    )


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
    _assert_values(ours[0], theirs[0])
    _assert_gradient(ours[1], theirs[1], theirs[0])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape,axis", HALF)
def test_half_values(shape, axis, dtype):
    """The kernel computes float16 and bfloat16 in float32 and rounds its output."""
    theirs, ours = run_both(_script(_logits(shape, 1), dtype, axis))
    _assert_values(ours[0], theirs[0])


@pytest.mark.parametrize("shape,axis", HALF)
def test_bfloat16_gradients(shape, axis):
    """The gradient's ops in bfloat16, its ``Sum`` adding in float32 (TF's kernel).
    float16's gradient is not TF's yet: TF's ``Sum`` of float16 adds in an order
    jtrain's ``eigen_sum`` does not reproduce (any ``reduce_sum`` of float16)."""
    theirs, ours = run_both(_script(_logits(shape, 1), "bfloat16", axis))
    _assert_gradient(ours[1], theirs[1], theirs[0])


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
    _assert_values(ours[0], theirs[0])
    _assert_gradient(ours[1], theirs[1], theirs[0])


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
    _assert_values(ours[0], theirs[0])
    _assert_gradient(ours[1], theirs[1], theirs[0])


def test_tf_runs_onednn_softmax():
    """The assumption behind the order: TF 2.21's graph rewrite runs ``Softmax`` as
    ``_MklSoftmax`` on this CPU (the step stats' timeline label). Where TF's oneDNN is off
    (``IsMklEnabled``), TF runs its plain ``Softmax`` (Eigen's), jtrain detects as much
    and its softmax is then XLA's, bit for bit with ``jax.nn.softmax``."""
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
    assert tf_cpu_kernels().onednn == tf_onednn()
    if tf_onednn():
        assert labels and all("_MklSoftmax" in label for label in labels), labels
        return
    assert labels and all(label.startswith(f"{y.op.name} = Softmax(") for label in labels), labels
    for shape, axis in CASES:  # as tf.nn.softmax calls it: the axis moved last
        x = jnp.moveaxis(jnp.asarray(_logits(shape)), axis, -1)
        xla = jax.jit(lambda v: jax.nn.softmax(v, axis=-1))(x)
        assert_bits(np.asarray(jax.jit(softmax)(x)), np.asarray(xla))


def test_xla_softmax_differs():
    """``jax.nn.softmax`` (what ``tf.nn.softmax`` was) differs from TF's kernel."""
    x = _logits((64, 1000))
    theirs, _ = run_both(_script(x, "float32", -1))
    xla = np.asarray(jax.jit(lambda v: jax.nn.softmax(v, axis=-1))(jnp.asarray(x)))
    assert np.mean(xla.view(np.int32) != theirs[0].view(np.int32)) > 0.3


_CAPPED = """
import json, numpy as np
from jtrain._eigen import tf_cpu_kernels
from jtrain._eigen.softmax import onednn_isa
from tests.interop.cpu_estimates import tf_onednn
from tests.interop.test_softmax_interop import CASES, _logits, _script
from tests.interop.twin import run_both
differ = 0
for shape, axis in CASES:
    theirs, ours = run_both(_script(_logits(shape), "float32", axis))
    differ += sum(int(np.sum(np.asarray(t).view(np.int32) != np.asarray(o).view(np.int32)))
                  for t, o in zip(theirs, ours))
print(json.dumps({"lanes": onednn_isa().lanes, "differ": differ,
                  "onednn": [tf_onednn(), tf_cpu_kernels().onednn]}))
"""


@pytest.mark.parametrize("cap,lanes", [("AVX2", 8), ("SSE41", 4)])
def test_capped_instruction_sets(cap, lanes):
    """oneDNN's AVX2 and SSE4.1 kernels (the order on CPUs without AVX-512 where TF runs
    oneDNN: AVX-VNNI ones, or any with ``TF_ENABLE_ONEDNN_OPTS=1``): TF and jtrain capped
    alike in a fresh process, every case bit for bit. The process turns oneDNN on, which
    TF's default leaves off on CPUs without AVX-512 VNNI, AVX-VNNI or AMX (e.g. CI's AMD
    EPYC; jtrain's detection follows the variable). On a CPU without AVX-512 the AVX2 cap
    is its own kernel."""
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA=cap, TF_ENABLE_ONEDNN_OPTS="1")
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
    assert result["onednn"] == [True, True]
    assert result["lanes"] == min(lanes, onednn_isa().lanes)
    assert result["differ"] == 0
