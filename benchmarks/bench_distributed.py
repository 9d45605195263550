"""Data-parallel training across processes and across devices (issue 17).

The same MLP step (784-256-256-10, ReLU, softmax cross-entropy, SGD 1e-3; the loss
fetched to the host every step) is compiled by ``jtrain.distributed.data_parallel``:

- **processes**: 1 vs 2 processes on 127.0.0.1 (``jax.distributed``, gloo all-reduce
  on the CPU), with the global batch fixed and split (256 = 2 x 128) and with the
  per-process batch fixed (256 each, global 512);
- **devices**: 1 vs 8 virtual CPU devices (``--xla_force_host_platform_device_count=8``)
  in one process, global batch 256, with ``data_parallel`` and through the compat
  layer (the MLP as a TF1 graph, ``sess.run([train_op, loss], feed)`` every step,
  with and without ``tf.jax_data_parallel()``).

The all-reduce's share of a step is the step's time minus the same step without the
collective (each process, or each device in a ``shard_map``, updating from its own
gradients), over the step's time, timed in interleaved blocks in the same job.

Jobs of the process comparison run one after another in interleaved rounds (a job
per configuration per round); in each job, timed blocks alternate the step with and
without the collective. Figures are medians. Run:
``python benchmarks/bench_distributed.py`` (``--quick`` for a short run,
``--devices-only`` for the devices table alone).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

SIZES = (784, 256, 256, 10)
GLOBAL_BATCH = 256
JOB_DEADLINE_SECS = 120


# --------------------------------------------------------------------------- children


def _model():
    """``(params, loss_fn, batch(rows, seed))`` of the MLP (NumPy parameters)."""
    import jax
    import numpy as np
    import optax

    rng = np.random.default_rng(0)
    params = [
        ((rng.normal(size=(m, n)) * np.sqrt(2 / m)).astype(np.float32), np.zeros(n, np.float32))
        for m, n in zip(SIZES[:-1], SIZES[1:], strict=True)
    ]

    def loss_fn(p, x, y):
        h = x
        for i, (w, b) in enumerate(p):
            h = h @ w + b
            if i < len(p) - 1:
                h = jax.nn.relu(h)
        return optax.softmax_cross_entropy_with_integer_labels(h, y).mean()

    def batch(rows, seed):
        r = np.random.default_rng(seed)
        return {
            "x": r.normal(size=(rows, SIZES[0])).astype(np.float32),
            "y": r.integers(0, SIZES[-1], size=rows).astype(np.int32),
        }

    return params, loss_fn, batch


def _sgd_step(loss_fn, reduce=lambda g: g):
    import jax

    def step(params, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch["x"], batch["y"])
        grads = reduce(grads)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads), loss

    return step


def _time_blocks(loops: dict, steps: int, blocks: int) -> dict[str, float]:
    """Median seconds per step of each loop over ``blocks`` interleaved blocks."""
    import numpy as np

    for run in loops.values():
        run(3)
    samples = {name: [] for name in loops}
    for _ in range(blocks):
        for name, run in loops.items():
            t = time.perf_counter()
            run(steps)
            samples[name].append((time.perf_counter() - t) / steps)
    return {name: float(np.median(v)) for name, v in samples.items()}


def _loop(fn, state, batch):
    """``run(n)``: ``n`` steps of ``fn``, the loss fetched to the host every step."""
    import numpy as np

    box = [state]

    def run(n):
        for _ in range(n):
            box[0], loss = fn(box[0], batch)
            np.asarray(loss)

    return run


def process_child(args) -> None:
    """One process of a 1- or 2-process job: times the step with and without all-reduce."""
    import jax

    if args.num_processes > 1:
        jax.distributed.initialize(
            f"127.0.0.1:{args.port}", args.num_processes, args.process_id,
            heartbeat_timeout_seconds=30, shutdown_timeout_seconds=30,
        )  # fmt: skip
    from jtrain import distributed

    params, loss_fn, make_batch = _model()
    rows = args.rows
    batch = make_batch(rows, 1 + args.process_id)
    dp = distributed.data_parallel(_sgd_step(loss_fn))
    loops = {"all-reduce": _loop(dp, dp.replicate(params), batch)}
    if args.num_processes > 1:
        local = jax.jit(_sgd_step(loss_fn), donate_argnums=(0,))
        loops["local"] = _loop(local, jax.device_put(params, jax.local_devices()[0]), batch)
    t = _time_blocks(loops, args.steps, args.blocks)
    if jax.process_index() == 0:
        with open(args.out, "w") as f:
            json.dump(t, f)


def devices_child(args) -> None:
    """1 vs 8 virtual devices in one process, and 8 devices without the all-reduce."""
    import jax
    import numpy as np
    from jax.sharding import Mesh
    from jax.sharding import PartitionSpec as P

    from jtrain import distributed

    assert jax.device_count() == 8, jax.devices()
    params, loss_fn, make_batch = _model()
    batch = make_batch(GLOBAL_BATCH, 1)
    mesh8 = distributed.default_mesh()
    mesh1 = Mesh(np.array(jax.devices()[:1]), ("data",))
    loops = {}
    for name, mesh in (("1 device", mesh1), ("8 devices", mesh8)):
        dp = distributed.data_parallel(_sgd_step(loss_fn), mesh=mesh)
        loops[name] = _loop(dp, dp.replicate(params), batch)
    # The same per-device work written as a shard_map, with and without the pmean.
    for name, reduce in (
        ("8 devices, shard_map + pmean", lambda g: jax.lax.pmean(g, "data")),
        ("8 devices, shard_map, no collective", lambda g: g),
    ):
        inner = _sgd_step(loss_fn, reduce)

        def per_device(p, b, inner=inner):
            p, loss = inner(p, b)
            return p, loss[None]  # each device's loss: no collective for it

        fn = jax.jit(
            jax.shard_map(per_device, mesh=mesh8, in_specs=(P(), P("data")),
                          out_specs=(P(), P("data")), check_vma=False),
            donate_argnums=(0,),
        )  # fmt: skip
        dp = distributed.data_parallel(lambda s, b: (s, 0.0), mesh=mesh8)
        loops[name] = _loop(fn, dp.replicate(params), dp.shard_batch(batch))
    # The compat layer: the same MLP as a TF1 graph, fed every step, one device and
    # all 8 through tf.jax_data_parallel().
    for name, parallel in (
        ("compat layer, 1 device", False),
        ("compat layer, 8 devices (`tf.jax_data_parallel`)", True),
    ):
        loops[name] = _compat_loop(parallel, params, batch)  # fmt: skip
    t = _time_blocks(loops, args.steps, args.blocks)
    t[PROFILE] = {
        name: _collective_share(loops[name], args.steps)
        for name in loops
        if name.startswith(("8 devices", "compat layer, 8"))
    }
    with open(args.out, "w") as f:
        json.dump(t, f)


PROFILE = "profile"
_COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")
_HLO_OP = re.compile(r"^[a-z][a-z0-9_\-]*(\.\d+)?$")  # dot.6, all-reduce.7, loop_fusion


def _collective_share(run, steps: int) -> float:
    """The collectives' share of the devices' op time in a ``jax.profiler`` trace.

    ``steps`` steps of ``run`` are traced; every XLA op event of the device threads
    (events named as HLO instructions: ``dot.6``, ``all-reduce.7``...) counts, a
    collective's time including its wait for the other devices.
    """
    import gzip

    import jax

    with tempfile.TemporaryDirectory() as tmp:
        jax.profiler.start_trace(tmp)
        try:
            run(steps)
        finally:
            jax.profiler.stop_trace()
        (trace,) = glob.glob(os.path.join(tmp, "plugins", "profile", "*", "*.trace.json.gz"))
        with gzip.open(trace) as f:
            events = json.load(f)["traceEvents"]
    total = collective = 0.0
    for e in events:
        name = e.get("name", "")
        if "dur" not in e or not _HLO_OP.match(name):
            continue
        total += e["dur"]
        if name.startswith(_COLLECTIVES):
            collective += e["dur"]
    return collective / total if total else float("nan")


def _compat_loop(parallel: bool, params, batch):
    """``run(n)``: ``n`` runs of ``sess.run([train_op, loss], feed)`` of the MLP."""
    from adapters import v1 as tf

    with tf.Graph().as_default():
        if parallel:
            tf.jax_data_parallel()
        x = tf.placeholder(tf.float32, [None, SIZES[0]])
        y = tf.placeholder(tf.int32, [None])
        h = x
        for i, (w, b) in enumerate(params):
            h = tf.matmul(h, tf.Variable(w)) + tf.Variable(b)
            if i < len(params) - 1:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train_op = tf.train.GradientDescentOptimizer(1e-3).minimize(loss)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
    feed = {x: batch["x"], y: batch["y"]}

    def run(n):
        for _ in range(n):
            sess.run([train_op, loss], feed)

    return run


# --------------------------------------------------------------------------- parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_job(commands: list[list[str]], env: dict) -> None:
    """Runs the commands as one job (each in its own process group) under a deadline."""
    procs = []
    try:
        for cmd in commands:
            procs.append(subprocess.Popen(cmd, env=env, start_new_session=True))
        deadline = time.monotonic() + JOB_DEADLINE_SECS
        for p in procs:
            rc = p.wait(max(deadline - time.monotonic(), 0.1))
            if rc != 0:
                raise RuntimeError(f"{cmd} exited with {rc}")
    finally:
        for p in procs:
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def _child_env(devices: int = 1) -> dict:
    env = dict(os.environ, JAX_PLATFORMS="cpu", CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), env.get("PYTHONPATH", "")]
    )
    env.pop("XLA_FLAGS", None)
    if devices > 1:
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    return env


def _job(kind: str, num_processes: int, rows: int, steps: int, blocks: int, tmp: str) -> dict:
    out = os.path.join(tmp, f"{kind}-{num_processes}-{rows}.json")
    port = _free_port()
    base = [sys.executable, os.path.abspath(__file__), "--child", kind, "--out", out,
            "--steps", str(steps), "--blocks", str(blocks), "--rows", str(rows),
            "--num_processes", str(num_processes), "--port", str(port)]  # fmt: skip
    commands = [base + ["--process_id", str(i)] for i in range(num_processes)]
    _run_job(commands, _child_env(8 if kind == "devices" else 1))
    with open(out) as f:
        return json.load(f)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short blocks (a smoke run)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--devices-only", action="store_true", help="only the devices table")
    parser.add_argument("--child", choices=["processes", "devices"])
    parser.add_argument("--out")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--rows", type=int, default=GLOBAL_BATCH)
    parser.add_argument("--num_processes", type=int, default=1)
    parser.add_argument("--process_id", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.child == "processes":
        return process_child(args)
    if args.child == "devices":
        return devices_child(args)

    import numpy as np

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import jax
    from bench_session import machine

    rounds = 1 if args.quick else args.rounds
    steps, blocks = (5, 2) if args.quick else (args.steps, args.blocks)
    configs = {  # name: (processes, rows per process, global batch)
        "1 process": (1, GLOBAL_BATCH, GLOBAL_BATCH),
        "2 processes, global batch split": (2, GLOBAL_BATCH // 2, GLOBAL_BATCH),
        "1 process, batch 512": (1, 2 * GLOBAL_BATCH, 2 * GLOBAL_BATCH),
        "2 processes, per-process batch fixed": (2, GLOBAL_BATCH, 2 * GLOBAL_BATCH),
    }
    samples = {name: [] for name in configs}
    local = {name: [] for name in configs}
    devices = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if args.devices_only:
            configs = {}
        for _ in range(rounds):
            for name, (n, rows, _) in configs.items():
                t = _job("processes", n, rows, steps, blocks, tmp)
                samples[name].append(t["all-reduce"])
                if "local" in t:
                    local[name].append(t["local"])
            devices.append(_job("devices", 1, GLOBAL_BATCH, steps, blocks, tmp))
    elapsed = time.perf_counter() - started

    print("## Data-parallel training: processes and devices (issue 17)\n")
    print(f"Machine: {machine()}; jax {jax.__version__}; load average "
          f"{os.getloadavg()[0]:.1f}. Command: `python {os.path.relpath(__file__)}"
          f"{' --quick' if args.quick else ''}{' --devices-only' if args.devices_only else ''}"
          f"`; {rounds} rounds x {blocks} blocks x "
          f"{steps} steps, {elapsed:.0f} s. MLP {'-'.join(map(str, SIZES))}, SGD, "
          "loss fetched every step.\n")  # fmt: skip
    if configs:
        _print_processes(configs, samples, local)
    print("| devices (one process, global batch 256) | ms / step | examples/s | vs 1 device |")
    print("|---|---:|---:|---:|")
    dev = {
        name: float(np.median([d[name] for d in devices])) for name in devices[0] if name != PROFILE
    }
    for name, t in dev.items():
        base = dev["compat layer, 1 device" if name.startswith("compat") else "1 device"]
        print(f"| {name} | {t * 1e3:.2f} | {GLOBAL_BATCH / t:,.0f} | "
              f"{base / t:.2f}x |")  # fmt: skip
    pm, nc = dev["8 devices, shard_map + pmean"], dev["8 devices, shard_map, no collective"]
    print(f"\nAll-reduce share over 8 virtual devices: {1 - nc / pm:.0%} of the shard_map step.")
    print("\n| 8 devices, from a `jax.profiler` trace | collectives' share of the op time |")
    print("|---|---:|")
    for name in devices[0][PROFILE]:
        share = float(np.median([d[PROFILE][name] for d in devices]))
        print(f"| {name} | {share:.0%} |")


def _print_processes(configs: dict, samples: dict, local: dict) -> None:
    import numpy as np

    print(
        "| configuration | global batch | ms / step | examples/s | vs 1 process, same global "
        "batch | step without all-reduce, ms | all-reduce share |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    med = {name: float(np.median(v)) for name, v in samples.items()}
    for name, (_, _, gb) in configs.items():
        base = med["1 process" if gb == GLOBAL_BATCH else "1 process, batch 512"]
        loc = f"{np.median(local[name]) * 1e3:.2f}" if local[name] else ""
        share = f"{1 - np.median(local[name]) / med[name]:.0%}" if local[name] else ""
        print(f"| {name} | {gb} | {med[name] * 1e3:.2f} | {gb / med[name]:,.0f} | "
              f"{base / med[name]:.2f}x | {loc} | {share} |")  # fmt: skip
    print()


if __name__ == "__main__":
    main()
