"""A TF1 convnet training step under TensorFlow and under jtrain, the script unchanged.

One TF1 script text (``SCRIPT``): batch 64 of 24x24x3 images, conv 5x5x64 + ReLU +
max-pool 3x3 stride 2 ``SAME``, the same again, dense 384, dense 192, dense 10,
sparse softmax cross-entropy, ``MomentumOptimizer``, the loss fetched every step
with ``sess.run([train_op, loss], feed)``. It runs under TensorFlow
(``import tensorflow.compat.v1 as tf`` + ``disable_v2_behavior()``, the TF oracle
venv) and under jtrain with only the import line changed (``from adapters import
v1 as tf``), each measurement in a fresh process; rounds are interleaved (TF,
jtrain variants, TF, ...), warm-up steps (compilation included) are excluded,
figures are medians over rounds, ratios are jtrain / TF of the same run.

Variants (``--variants``, each a prelude run before the unchanged script):

- ``jtrain``: jtrain as shipped (``max_pool``'s gradient on CPU rewritten by
  ``adapters/v1/ops/_max_window.py``);
- ``jtrain-reduce-window``: that rewrite switched off (``CPU_LOWERING = False``:
  the gradient is XLA's ``select_and_scatter``);
- ``jtrain-ynnpack-conv``: XLA:CPU's default convolutions (YNNPACK) instead of the
  Eigen ones jtrain's step programs ask for (``jtrain/xla_options.py``);
- ``tf-no-onednn``: TensorFlow with ``TF_ENABLE_ONEDNN_OPTS=0`` (Eigen kernels);
- ``jtrain-flag:<XLA_FLAGS>``: jtrain with a user-set ``XLA_FLAGS`` value.

Run: ``python benchmarks/bench_convnet.py`` (about 3 minutes on 2 busy cores);
``--tf-python`` names TensorFlow's interpreter (default: ``$TF_PYTHON``, else this
interpreter if it imports tensorflow, as under ``nox -s bench``, else
``/work/wt/tfvenv/bin/python``). ``--micro`` times the model's convolution and
pooling ops one by one instead (forward, input and filter gradients; max-pool
forward and gradient with both lowerings), ``jax.jit`` against TF's kernels.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

TF_IMPORT = "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()"
JTRAIN_IMPORT = "from adapters import v1 as tf"

# The TF1 script; {import_line} is the only difference between the two runs.
SCRIPT = """
import json, sys, time
import numpy as np
{import_line}

BATCH, WARMUP, SECONDS = 64, int(sys.argv[1]), float(sys.argv[2])
rng = np.random.RandomState(0)
images = rng.uniform(0, 1, (BATCH, 24, 24, 3)).astype(np.float32)
labels = rng.randint(0, 10, BATCH).astype(np.int32)

x = tf.placeholder(tf.float32, [BATCH, 24, 24, 3], name="images")
y = tf.placeholder(tf.int32, [BATCH], name="labels")


def conv(name, inputs, channels):
    with tf.variable_scope(name):
        shape = [5, 5, int(inputs.shape[-1]), channels]
        w = tf.get_variable("weights", shape, initializer=tf.constant_initializer(
            rng.normal(0, 0.05, shape).astype(np.float32)))
        b = tf.get_variable("biases", [channels], initializer=tf.constant_initializer(0.1))
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(inputs, w, [1, 1, 1, 1], "SAME"), b))
        return tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")


def dense(name, inputs, units, relu=True):
    with tf.variable_scope(name):
        shape = [int(inputs.shape[-1]), units]
        w = tf.get_variable("weights", shape, initializer=tf.constant_initializer(
            rng.normal(0, 0.04, shape).astype(np.float32)))
        b = tf.get_variable("biases", [units], initializer=tf.constant_initializer(0.1))
        h = tf.matmul(inputs, w) + b
        return tf.nn.relu(h) if relu else h


h = conv("conv2", conv("conv1", x, 64), 64)
h = tf.reshape(h, [BATCH, 6 * 6 * 64])
logits = dense("softmax_linear", dense("local4", dense("local3", h, 384), 192), 10, relu=False)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
train_op = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)

feed = {{x: images, y: labels}}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    losses = []
    for _ in range(WARMUP):
        losses.append(float(sess.run([train_op, loss], feed)[1]))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        _, value = sess.run([train_op, loss], feed)
        steps += 1
    elapsed = time.perf_counter() - start
print("RESULT " + json.dumps({{"steps_per_s": steps / elapsed, "steps": steps,
                               "first_losses": losses[:3]}}))
"""

# --micro: the step's convolution and pooling ops one by one, at the model's shapes.
# Each op: (name, input shape, filter shape or None); times in ms, median of 5 blocks.
MICRO_OPS = [
    ("conv1", (64, 24, 24, 3), (5, 5, 3, 64)),
    ("conv2", (64, 12, 12, 64), (5, 5, 64, 64)),
    ("pool1", (64, 24, 24, 64), None),
    ("pool2", (64, 12, 12, 64), None),
]
MICRO_COMMON = """
import json, statistics, time
import numpy as np
OPS = {ops!r}
rng = np.random.RandomState(0)
def timed(fn, *args):
    sync(fn(*args)); start = time.perf_counter(); sync(fn(*args))
    n = max(2, int(0.1 / max(time.perf_counter() - start, 1e-6)))
    blocks = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            out = fn(*args)
        sync(out); blocks.append((time.perf_counter() - start) / n * 1e3)
    return statistics.median(blocks)
def arrays(shape, kernel):
    out = (shape[0], -(-shape[1] // (1 if kernel else 2)), -(-shape[2] // (1 if kernel else 2)), 64)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(kernel).astype(np.float32) * 0.05 if kernel else None
    return x, w, rng.standard_normal(out).astype(np.float32)
results = {{}}
"""
MICRO_JAX = (
    MICRO_COMMON
    + """
import jax, jax.numpy as jnp
from jax import lax
from adapters.v1.ops import _max_window
from jtrain import xla_options
def sync(out): jax.block_until_ready(out)
def jit(fn):  # as the session compiles a step (jtrain/xla_options.py)
    return jax.jit(fn, compiler_options=xla_options.step_options())
def conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", precision=lax.Precision.HIGHEST,
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))
def pool(x):
    pads = lax.padtype_to_pads(x.shape, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    return _max_window.max_window(x, np.float32(-np.inf), (1, 3, 3, 1), (1, 2, 2, 1), pads)
for name, shape, kernel in OPS:
    x, w, dy = (None if a is None else jnp.asarray(a) for a in arrays(shape, kernel))
    if kernel:
        results[name + " forward"] = timed(jit(conv), x, w)
        grads = [jit(lambda x, w, d, i=i: jax.vjp(conv, x, w)[1](d)[i]) for i in (0, 1)]
        results[name + " input grad"] = timed(grads[0], x, w, dy)
        results[name + " filter grad"] = timed(grads[1], x, w, dy)
        continue
    for on in (True, False):
        _max_window.CPU_LOWERING = on
        tag = "" if on else " (reduce_window)"
        results[name + " forward" + tag] = timed(jit(pool), x)
        grad = jit(lambda x, d: jax.vjp(pool, x)[1](d)[0])
        results[name + " grad" + tag] = timed(grad, x, dy)
print("RESULT " + json.dumps(results))
"""
)
MICRO_TF = (
    MICRO_COMMON
    + """
import tensorflow as tf
def sync(out): [t.numpy() for t in tf.nest.flatten(out)]
for name, shape, kernel in OPS:
    x, w, dy = (None if a is None else tf.constant(a) for a in arrays(shape, kernel))
    if kernel:
        s = [1, 1, 1, 1]
        fwd = tf.function(lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"))
        results[name + " forward"] = timed(fwd, x, w)
        grad_x = tf.function(lambda w, d: tf.raw_ops.Conv2DBackpropInput(
            input_sizes=shape, filter=w, out_backprop=d, strides=s, padding="SAME"))
        results[name + " input grad"] = timed(grad_x, w, dy)
        grad_w = tf.function(lambda x, d: tf.raw_ops.Conv2DBackpropFilter(
            input=x, filter_sizes=kernel, out_backprop=d, strides=s, padding="SAME"))
        results[name + " filter grad"] = timed(grad_w, x, dy)
        continue
    fwd = tf.function(lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"))
    results[name + " forward"] = timed(fwd, x)
    results[name + " grad"] = timed(tf.function(lambda x, y, d: tf.raw_ops.MaxPoolGrad(
        orig_input=x, orig_output=y, grad=d, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
        padding="SAME")), x, fwd(x), dy)
print("RESULT " + json.dumps(results))
"""
)

# variant -> (runs under TF?, prelude, extra environment)
FIXED_VARIANTS = {
    "tf": (True, "", {}),
    "tf-no-onednn": (True, "", {"TF_ENABLE_ONEDNN_OPTS": "0"}),
    "jtrain": (False, "", {}),
    "jtrain-reduce-window": (
        False,
        "import adapters.v1.ops._max_window as _w\n_w.CPU_LOWERING = False\n",
        {},
    ),
    "jtrain-ynnpack-conv": (
        False,
        "import jtrain.xla_options as _o\n_o.EIGEN_CONVOLUTIONS = False\n",
        {},
    ),
}


def variant(name: str) -> tuple[bool, str, dict[str, str]]:
    if name.startswith("jtrain-flag:"):
        return False, "", {"XLA_FLAGS": name.partition(":")[2]}
    return FIXED_VARIANTS[name]


def tf_python(explicit: str | None) -> str | None:
    """TensorFlow's interpreter: ``--tf-python``, ``$TF_PYTHON``, this one, the oracle venv."""
    import importlib.util

    for candidate in (explicit, os.environ.get("TF_PYTHON")):
        if candidate and shutil.which(candidate):
            return candidate
    if importlib.util.find_spec("tensorflow") is not None:
        return sys.executable
    fallback = "/work/wt/tfvenv/bin/python"
    return fallback if shutil.which(fallback) else None


def run_once(name: str, tf_exe: str, warmup: int, seconds: float, micro: bool = False) -> dict:
    """One fresh process running the script under ``name``; its RESULT line as a dict."""
    on_tf, prelude, extra = variant(name)
    if micro:
        text = prelude + (MICRO_TF if on_tf else MICRO_JAX).format(ops=MICRO_OPS)
    else:
        text = prelude + SCRIPT.format(import_line=TF_IMPORT if on_tf else JTRAIN_IMPORT)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", TF_USE_LEGACY_KERAS="1",
               CUDA_VISIBLE_DEVICES="", JAX_PLATFORMS="cpu", **extra)  # fmt: skip
    if not on_tf:
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    exe = tf_exe if on_tf else sys.executable
    proc = subprocess.run(
        [exe, "-c", text, str(warmup), str(seconds)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"{name} failed (rc {proc.returncode}):\n{proc.stderr[-3000:]}")


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{os.cpu_count()} cores, {model}, load average {load:.1f} at start"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps (compilation)")
    parser.add_argument("--seconds", type=float, default=5.0, help="timed seconds per process")
    parser.add_argument(
        "--variants", default="tf,jtrain,jtrain-reduce-window",
        help="comma-separated: tf, tf-no-onednn, jtrain, jtrain-reduce-window, "
        "jtrain-flag:<XLA_FLAGS value>; the first TF variant is the ratios' anchor",
    )  # fmt: skip
    parser.add_argument("--tf-python", default=None)
    parser.add_argument(
        "--micro", action="store_true", help="time the conv and pooling ops one by one instead"
    )
    args = parser.parse_args()
    names = args.variants.split(",")
    tf_exe = tf_python(args.tf_python)
    if tf_exe is None:
        names = [n for n in names if not variant(n)[0]]
        print("TensorFlow not found: jtrain variants only (no ratios)\n")
    if args.micro:
        micro(names, tf_exe, args.rounds)
        return
    print("## Convnet training step vs TF1 (CPU)\n")
    print(f"Machine: {machine()}. Command: `python {os.path.relpath(__file__, ROOT)} "
          f"--rounds {args.rounds} --variants {args.variants}`\n")  # fmt: skip
    runs: dict[str, list[float]] = {n: [] for n in names}
    losses: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for name in names:
            result = run_once(name, tf_exe or "", args.warmup, args.seconds)
            runs[name].append(result["steps_per_s"])
            losses.setdefault(name, result["first_losses"])
    anchor = next((n for n in names if variant(n)[0]), None)
    print("| variant | steps/s (median) | rounds | ms/step | / " + (anchor or "n/a") + " |")
    print("|---|---:|---|---:|---:|")
    base = statistics.median(runs[anchor]) if anchor else None
    for name in names:
        med = statistics.median(runs[name])
        ratio = f"{med / base:.2f}x" if base else "n/a"
        each = ", ".join(f"{v:.1f}" for v in runs[name])
        print(f"| {name} | {med:.2f} | {each} | {1e3 / med:.1f} | {ratio} |")
    print("\nFirst three losses (same script, same data):")
    for name, values in losses.items():
        print(f"- {name}: " + ", ".join(f"{v:.6f}" for v in values))
    print(f"\nLoad average at end: {os.getloadavg()[0]:.1f}")


def micro(names: list[str], tf_exe: str | None, rounds: int) -> None:
    """The model's conv and pooling ops alone, per variant, fresh processes, interleaved."""
    print("## Convnet ops vs TF (CPU), ms per call, medians of rounds\n")
    print(f"Machine: {machine()}. Command: `python {os.path.relpath(__file__, ROOT)} --micro "
          f"--rounds {rounds} --variants {','.join(names)}`\n")  # fmt: skip
    runs: dict[str, list[dict]] = {n: [] for n in names}
    for _ in range(rounds):
        for name in names:
            runs[name].append(run_once(name, tf_exe or "", 0, 0.0, micro=True))
    ops = list(dict.fromkeys(op for n in names for op in runs[n][0]))
    print("| op | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for op in ops:
        cells = []
        for name in names:
            values = [r[op] for r in runs[name] if op in r]
            cells.append(f"{statistics.median(values):.2f}" if values else "")
        print(f"| {op} | " + " | ".join(cells) + " |")
    print(f"\nLoad average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
