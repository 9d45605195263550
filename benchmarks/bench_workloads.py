"""Real TF1 workloads under TensorFlow and under jtrain, each script unchanged but for its import.

Each workload is one TF1 script in ``benchmarks/workloads/`` written against ``tf``,
the module passed to its ``run``: under TensorFlow ``import tensorflow.compat.v1 as
tf`` + ``tf.disable_v2_behavior()``, under jtrain ``from adapters import v1 as tf``.
Every measurement is a fresh process; rounds are interleaved (each round runs every
workload under TF, then under jtrain); each script trains untimed warm-up steps
(compilation, queues filling), then trains for ``--seconds`` fetching the loss every
step. Figures are medians over rounds; ratios are jtrain / TF1 of the same run.

Workloads: ``mlp_saver`` (MLP 784-128-32-10, batch 100, fed ``Session`` loop,
``Saver`` every 200 steps), ``convnet_mts`` (CIFAR-like convnet, Momentum +
``exponential_decay`` + EMA, ``MonitoredTrainingSession`` with 3 hooks),
``queue_mlp`` (TFRecord reader -> ``parse_single_example`` -> ``decode_raw`` ->
``shuffle_batch``, 2 threads, feeding the MLP; ``queue_mlp_fed``, run only when named,
is its model fed one NumPy batch, the anchor of the pipeline's "busy"; ``queue_only``,
likewise, is the pipeline alone), ``tiny_mts``
(784-32-10, batch 8, ``MonitoredTrainingSession`` with 4 hooks), ``embedding``
(``embedding_lookup`` + Adagrad's sparse updates; ``embedding_1m``, run only when
named, is the same with a 1,000,000-row table), ``data_mlp`` (the queue workload's
records through ``tf.data``: ``TFRecordDataset`` -> ``map(parse_single_example,
decode_raw)`` -> ``shuffle`` -> ``batch`` -> ``repeat``, feeding the MLP), ``lstm_ptb``
(TF's PTB tutorial in small: 2 layers of ``LSTMCell(200)`` through ``dynamic_rnn`` over 20
steps, batch 20, the final state fed back, ``clip_by_global_norm`` and gradient descent).

Run: ``python benchmarks/bench_workloads.py`` (3 rounds, about 5 minutes on 2 cores),
``--quick`` (1 round of 1 s per process, about a minute), ``--only a,b`` for some
workloads, ``--jtrain-platforms cpu,cuda`` to run jtrain on each JAX platform named
(each a side of its own, e.g. on a GPU machine; TensorFlow always runs on the CPU).
TensorFlow's interpreter: ``--tf-python``, else ``$TF_PYTHON``, else this
interpreter if it imports tensorflow (as under ``nox -s bench``), else the oracle venv.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_convnet import machine, tf_python  # noqa: E402

WORKLOADS = (
    "mlp_saver", "convnet_mts", "queue_mlp", "tiny_mts", "embedding", "data_mlp", "lstm_ptb",
)  # fmt: skip
# Run only when named in --only: variants that show how a cost scales.
EXTRA_WORKLOADS = ("embedding_1m", "queue_mlp_fed", "queue_only")
IMPORTS = {
    "tf1": "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()",
    "jtrain": "from adapters import v1 as tf",
}
CHILD = """
import json, sys
{import_line}
sys.path.insert(0, {here!r})
from workloads import {workload} as w
print("RESULT " + json.dumps(w.run(tf, sys.argv[1], float(sys.argv[2]))))
"""


def run_once(workload: str, side: str, python: str, seconds: float) -> dict:
    """One fresh process running ``workload`` under ``side`` (``tf1``, ``jtrain`` on the
    CPU, or ``jtrain-PLATFORM``); its result dict."""
    framework, _, platform = side.partition("-")
    platform = platform or "cpu"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", TF_USE_LEGACY_KERAS="1",
               JAX_PLATFORMS=platform)  # fmt: skip
    if platform == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    if framework == "jtrain":
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    text = CHILD.format(import_line=IMPORTS[framework], here=HERE, workload=workload)
    workdir = tempfile.mkdtemp(prefix=f"bench_{workload}_{side}_")
    try:
        proc = subprocess.run([python, "-c", text, workdir, str(seconds)], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"{workload} under {side} failed (rc {proc.returncode}):\n"
                       f"{proc.stderr[-3000:]}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per process")
    parser.add_argument("--quick", action="store_true", help="1 round of 1 s per process")
    parser.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated workloads")
    parser.add_argument("--tf-python", default=None)
    parser.add_argument("--jtrain-platforms", default="cpu",
                        help="comma-separated JAX platforms for jtrain, a side each")  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.seconds = 1, 1.0
    names = args.only.split(",")
    unknown = set(names) - set(WORKLOADS) - set(EXTRA_WORKLOADS)
    if unknown:
        known = ", ".join(WORKLOADS + EXTRA_WORKLOADS)
        parser.error(f"unknown workloads {sorted(unknown)}; known: {known}")
    tf_exe = tf_python(args.tf_python)
    sides = {"tf1": tf_exe} if tf_exe else {}
    for platform in args.jtrain_platforms.split(","):
        sides["jtrain" if platform == "cpu" else f"jtrain-{platform}"] = sys.executable
    if tf_exe is None:
        print("TensorFlow not found: jtrain only (ratios against the first jtrain side)\n")
    anchor = next(iter(sides))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"  # fmt: skip
    print("## TF1 workloads: TensorFlow vs jtrain, the same script\n")
    print(f"Machine: {machine()}; commit {commit}. Command: `python "
          f"{os.path.relpath(__file__, ROOT)} --rounds {args.rounds} --seconds {args.seconds}"
          f" --only {','.join(names)}`\n", flush=True)  # fmt: skip
    runs: dict[tuple[str, str], list[dict]] = {(n, s): [] for n in names for s in sides}
    for _ in range(args.rounds):
        for name in names:
            for side, python in sides.items():
                result = run_once(name, side, python, args.seconds)
                runs[name, side].append(result)
                print(f"round {len(runs[name, side])}: {name}, {side}: {result['rate']:,.1f}",
                      file=sys.stderr, flush=True)  # fmt: skip
    others = [s for s in sides if s != anchor]
    print("| workload | unit | " + " | ".join(f"{s} (median)" for s in sides) + " | "
          + " | ".join(f"{s} / {anchor}" for s in others) + " | "
          + " | ".join(f"{s} rounds" for s in sides) + " |")  # fmt: skip
    print("|---|---|" + "---:|" * (len(sides) + len(others)) + "---|" * len(sides))
    for name in names:
        unit = importlib.import_module(f"workloads.{name}").UNIT
        med = {s: statistics.median(r["rate"] for r in runs[name, s]) for s in sides}
        each = {s: ", ".join(f"{r['rate']:,.1f}" for r in runs[name, s]) for s in sides}
        cells = [f"{med[s]:,.1f}" for s in sides] + [f"{med[s] / med[anchor]:.2f}x" for s in others]
        print(f"| {name} | {unit} | " + " | ".join(cells + [each[s] for s in sides]) + " |")
    print("\nProcess CPU over wall time while timed (cores busy, medians), and CPU per unit "
          "(cores / rate):\n")  # fmt: skip
    print("| workload | " + " | ".join(f"{s} cores | {s} CPU us per unit" for s in sides) + " |")
    print("|---|" + "---:|---:|" * len(sides))
    for name in names:
        cells = []
        for s in sides:
            cores = statistics.median(r["cores"] for r in runs[name, s])
            rate = statistics.median(r["rate"] for r in runs[name, s])
            cells += [f"{cores:.2f}", f"{cores / rate * 1e6:,.1f}"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nFirst three losses (same script, same data):")
    for (name, side), results in runs.items():
        print(f"- {name}, {side}: " + ", ".join(f"{v:.6f}" for v in results[0]["first_losses"]))
    print(f"\nLoad average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
