"""MonitoredTrainingSession's per-step cost vs the plain Session loop vs TF1's.

The same MLP as ``bench_session.py`` (ReLU hidden layers, softmax cross-entropy,
Adam 1e-3, the same fed NumPy batch each step), trained by:

- ``plain``: ``sess.run(train_op, feed_dict)`` on an ``adapters.v1`` ``Session``
  (``bench_session.session_loop``);
- ``fetching``: the plain loop fetching the loss and the global step each step, as
  the monitored session's hooks do (``sess.run([train_op, loss, global_step])``):
  the cost of one host sync per step, which no hook protocol can avoid;
- ``monitored``: ``MonitoredTrainingSession(hooks=[StopAtStepHook, NanTensorHook,
  LoggingTensorHook(every_n_iter=100), StepCounterHook])`` with ``adapters.v1``;
- ``no_nan``: the same without ``NanTensorHook``: the other hooks fetch only the
  global step (known on the host) each step, so no step waits for its program;
- ``plain_loss`` / ``monitored_loss``: the plain loop and the monitored one (all four
  hooks) both fetching the loss, ``sess.run([train_op, loss], feed)``, the monitored
  one asking ``should_stop()`` before each step, as training scripts do: the ratio of
  these two is the monitored session's own cost;
- ``tf1``: TensorFlow's ``tf.compat.v1.train.MonitoredTrainingSession`` with the same
  hooks (when TF is importable).

Timing blocks are interleaved (``bench_session.measure``); figures are medians.
Run: ``python benchmarks/bench_monitored_session.py`` (``--quick`` for a short run).
``--rounds N`` measures only the goal's comparison (plain and monitored loops both
fetching the loss, and the monitored one with MonitoredTrainingSession's default chief
hooks) in N fresh processes, medians over rounds; ``--baseline PATH`` adds the same
loops of another checkout (e.g. ``git archive`` of an older commit), alternating. Its
"paired blocks" columns take each block's ratio to the plain block just before it (the
machine's speed drifts between blocks, adjacent blocks share it), the median over a
process's blocks, then over rounds.
``--gap`` measures what Python run between two steps costs (the monitored session's
hooks run there): the plain loop with a busy loop of K iterations before each step,
against that busy loop's own time.
``--poll`` measures ways of waiting for a short step's result (``Session.run`` polls for
it, see ``_POLL_S`` in ``adapters/v1/client/session.py``): busy polling as shipped and
polling that yields the core (``os.sched_yield`` between looks), each with a 200 us and a
2 ms threshold, on the tiny plain and monitored loops and the small plain loop (a step
XLA runs on every core, which a poller holding a core slows).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_session  # noqa: E402
import jax  # noqa: E402
from bench_session import (  # noqa: E402
    SIZES,
    _init,
    _xent,
    machine,
    measure,
    session_loop,
    steps_per_block,
)

HOOK_STEPS = 10**9  # StopAtStepHook's last step: never reached while timing


def _batch(sizes, batch):
    """The fed batch, the very same arrays for every loop of a process: where a feed's
    data starts decides whether XLA:CPU reads it in place or copies it, which moved a
    loop's step by up to 15 us (10%) on this model; loops feeding one array compare
    their own costs only."""
    key = (tuple(sizes), batch)
    if key not in _BATCHES:
        _BATCHES[key] = bench_session._batch(sizes, batch)
    return _BATCHES[key]


_BATCHES: dict = {}


def _model(tf, sizes):
    g = tf.Graph()
    with g.as_default():
        gs = tf.train.get_or_create_global_step()
        x = tf.placeholder("float32", [None, sizes[0]], name="x")
        y = tf.placeholder("int32", [None], name="y")
        h = x
        layers = _init(sizes)
        for i, (w0, b0) in enumerate(layers):
            h = h @ tf.Variable(w0, name=f"w{i}") + tf.Variable(b0, name=f"b{i}")
            if i < len(layers) - 1:
                h = tf.jax_function(jax.nn.relu, [h])
        loss = tf.jax_function(_xent, [h, y], name="loss")
        train = tf.train.AdamOptimizer(1e-3).minimize(loss, global_step=gs)
    return g, gs, x, y, loss, train


def fetching_loop(sizes, batch, with_global_step=True):
    from adapters import v1 as tf

    g, gs, x, y, loss, train = _model(tf, sizes)
    with g.as_default():
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    xb, yb = _batch(sizes, batch)
    feed = {x: xb, y: yb}
    fetches = [train, loss, gs] if with_global_step else [train, loss]

    def step():
        sess.run(fetches, feed)

    def sync():
        sess.run(loss, feed)

    return step, sync


def monitored_loop(sizes, batch, nan_hook=True, fetch_loss=False, checkpoint_dir=False):
    """The monitored loop; with ``checkpoint_dir`` MonitoredTrainingSession adds its
    chief hooks at their defaults (StepCounterHook and SummarySaverHook every 100 steps,
    CheckpointSaverHook every 600 s). With ``fetch_loss`` or ``checkpoint_dir`` the loop
    asks ``should_stop()`` before each step, as training scripts do."""
    import atexit
    import shutil
    import tempfile

    from adapters import v1 as tf

    g, gs, x, y, loss, train = _model(tf, sizes)
    with g.as_default():
        hooks = [
            tf.train.StopAtStepHook(last_step=HOOK_STEPS),
            tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=100),
            tf.train.StepCounterHook(every_n_steps=100),
        ]
        if nan_hook:
            hooks.insert(1, tf.train.NanTensorHook(loss))
        directory = None
        if checkpoint_dir:
            directory = tempfile.mkdtemp(prefix="bench_mts_")
            atexit.register(shutil.rmtree, directory, ignore_errors=True)
        sess = tf.train.MonitoredTrainingSession(hooks=hooks, checkpoint_dir=directory)
    xb, yb = _batch(sizes, batch)
    feed = {x: xb, y: yb}
    fetches = [train, loss] if fetch_loss else train

    if checkpoint_dir or fetch_loss:

        def step():
            if not sess.should_stop():
                sess.run(fetches, feed)

        def sync():
            sess.run(loss, feed)

        return step, sync

    def step():
        sess.run(fetches, feed)

    def sync():
        sess.run(loss, feed)

    return step, sync


def tf1_monitored_loop(sizes, batch):
    import tensorflow as tf

    tf1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        gs = tf1.train.get_or_create_global_step()
        x = tf1.placeholder(tf.float32, [None, sizes[0]])
        y = tf1.placeholder(tf.int32, [None])
        h = x
        layers = _init(sizes)
        for i, (w0, b0) in enumerate(layers):
            h = tf.matmul(h, tf1.Variable(w0)) + tf1.Variable(b0)
            if i < len(layers) - 1:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = tf1.train.AdamOptimizer(1e-3).minimize(loss, global_step=gs)
        hooks = [
            tf1.train.StopAtStepHook(last_step=HOOK_STEPS),
            tf1.train.NanTensorHook(loss),
            tf1.train.LoggingTensorHook({"loss": loss}, every_n_iter=100),
            tf1.train.StepCounterHook(every_n_steps=100),
        ]
        sess = tf1.train.MonitoredTrainingSession(hooks=hooks)
    xb, yb = _batch(sizes, batch)
    feed = {x: xb, y: yb}

    def step():
        sess.run(train, feed)

    def sync():
        sess.run(loss, feed)

    return step, sync


# The loops of a ``--rounds`` run: the goal's comparison (both fetching the loss).
ROUND_LOOPS = {
    "plain_loss": lambda sizes, batch: fetching_loop(sizes, batch, with_global_step=False),
    "monitored_loss": lambda sizes, batch: monitored_loop(sizes, batch, fetch_loss=True),
    "monitored_ckpt_loss": lambda sizes, batch: monitored_loop(
        sizes, batch, fetch_loss=True, checkpoint_dir=True
    ),
}


def one_round(size: str, blocks: int, seconds: float) -> None:
    """One fresh process's share of a ``--rounds`` run: its medians as one JSON line."""
    import json
    import time

    import numpy as np

    sizes, batch = SIZES[size]
    loops = {name: make(sizes, batch) for name, make in ROUND_LOOPS.items()}
    per_block = {name: steps_per_block(step, sync, seconds) for name, (step, sync) in loops.items()}
    wall: dict[str, list] = {name: [] for name in loops}
    cpu: dict[str, list] = {name: [] for name in loops}
    for _ in range(blocks):
        for name, (step, sync) in loops.items():
            n = per_block[name]
            t, c = time.perf_counter(), time.process_time()
            for _ in range(n):
                step()
            sync()
            wall[name].append((time.perf_counter() - t) / n)
            cpu[name].append((time.process_time() - c) / n)
    out = {name: float(np.median(v)) for name, v in wall.items()}
    out.update({f"cpu_{name}": float(np.median(v)) for name, v in cpu.items()})
    # Each block's ratio to the plain block just before it (the machine's speed drifts
    # between blocks; adjacent blocks share it): the median over blocks.
    for clock, times in (("", wall), ("cpu_", cpu)):
        for name in loops:
            pairs = [t / p for t, p in zip(times[name], times["plain_loss"], strict=True)]
            out[f"{clock}paired_{name}"] = float(np.median(pairs))
    print(json.dumps(out), flush=True)


def rounds(args) -> None:
    """Fresh processes (one per side and round, sides alternating), the loops interleaved
    in blocks inside each; medians over rounds of each process's medians."""
    import json
    import subprocess
    import time

    import numpy as np

    sides = {"new": os.environ.get("PYTHONPATH", "")}
    if args.baseline:
        sides = {"baseline": args.baseline, **sides}
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()[0]
    print(f"Machine: {machine()}; jax {jax.__version__}; load before {load:.2f}; {when}\n")
    for size in args.sizes.split(","):
        results: dict[str, list] = {side: [] for side in sides}
        loads = []
        for r in range(args.rounds):
            order = list(sides) if r % 2 == 0 else list(sides)[::-1]
            for side in order:
                env = dict(os.environ, PYTHONPATH=sides[side])
                cmd = [sys.executable, os.path.abspath(__file__), "--one-round", size,
                       "--blocks", str(args.blocks), "--seconds", str(args.seconds)]  # fmt: skip
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                results[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
                loads.append(os.getloadavg()[0])
        print(f"{size} ({'-'.join(map(str, SIZES[size][0]))}, batch {SIZES[size][1]}): "
              f"{args.rounds} rounds, load {min(loads):.2f}-{max(loads):.2f}\n")  # fmt: skip
        print("| side | clock | plain+loss us/step | monitored+loss us/step "
              "| +default chief hooks us/step | monitored/plain | +chief hooks/plain "
              "| per-round monitored/plain | monitored/plain, paired blocks "
              "| per-round, paired blocks |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|---|---|")
        for side, rs in results.items():
            for clock, prefix in (("wall", ""), ("process CPU", "cpu_")):
                med = {k: float(np.median([r[prefix + k] for r in rs])) for k in ROUND_LOOPS}
                per = [r[prefix + "monitored_loss"] / r[prefix + "plain_loss"] for r in rs]
                chief = [r[prefix + "monitored_ckpt_loss"] / r[prefix + "plain_loss"] for r in rs]
                paired = [r[prefix + "paired_monitored_loss"] for r in rs]
                print(
                    f"| {side} | {clock} | {med['plain_loss'] * 1e6:.1f} "
                    f"| {med['monitored_loss'] * 1e6:.1f} "
                    f"| {med['monitored_ckpt_loss'] * 1e6:.1f} "
                    f"| {float(np.median(per)):.3f}x | {float(np.median(chief)):.3f}x "
                    f"| {', '.join(f'{v:.2f}' for v in per)} "
                    f"| {float(np.median(paired)):.3f}x "
                    f"| {', '.join(f'{v:.2f}' for v in paired)} |",
                    flush=True,
                )


def _busy(n: int) -> int:
    """Pure Python work: ``n`` iterations of an integer sum."""
    total = 0
    for i in range(n):
        total += i
    return total


def _busy_time(n: int, reps: int = 1000) -> float:
    """Seconds one ``_busy(n)`` takes: the median of 9 blocks of ``reps`` calls."""
    import time

    import numpy as np

    times = []
    for _ in range(9):
        t = time.perf_counter()
        for _ in range(reps):
            _busy(n)
        times.append((time.perf_counter() - t) / reps)
    return float(np.median(times))


def gap(args) -> None:
    """The cost of Python run between two steps of the plain loop fetching the loss.

    Each loop runs ``_busy(K)`` then the step; its time per step less the plain loop's
    (paired with the plain block of the same round) is what K iterations cost there,
    printed against the busy loop's own time. The monitored loop (four hooks) is timed
    in the same blocks for comparison.
    """
    import time

    import numpy as np

    sizes, batch = SIZES["tiny"]
    plain, _ = fetching_loop(sizes, batch, with_global_step=False)
    monitored, _ = monitored_loop(sizes, batch, fetch_loss=True)
    counts = [int(k) for k in args.gap.split(",")]

    def between(k):
        def step():
            _busy(k)
            plain()

        return step

    loops = {"plain": plain, "monitored": monitored, **{k: between(k) for k in counts}}
    for step in loops.values():
        for _ in range(50):
            step()
    times: dict = {name: [] for name in loops}
    for _ in range(args.blocks):
        for name, step in loops.items():
            t = time.perf_counter()
            for _ in range(500):
                step()
            times[name].append((time.perf_counter() - t) / 500)
    alone = {k: _busy_time(k) for k in counts}

    def extra(name):
        return float(np.median([a - b for a, b in zip(times[name], times["plain"], strict=True)]))

    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"Machine: {machine()}; jax {jax.__version__}; {when}; load {os.getloadavg()[0]:.2f}")
    print(f"Model 784-32-10, batch 8; {args.blocks} blocks of 500 steps per loop, interleaved\n")
    print(f"plain loop: {np.median(times['plain']) * 1e6:.1f} us/step; monitored (4 hooks): "
          f"{np.median(times['monitored']) * 1e6:.1f} us/step, "
          f"{extra('monitored') * 1e6:.1f} us more (paired blocks)\n")  # fmt: skip
    print("| busy loop iterations | alone us | between steps: us more a step "
          "| between / alone |")  # fmt: skip
    print("|---:|---:|---:|---:|")
    for k in counts:
        print(f"| {k} | {alone[k] * 1e6:.1f} | {extra(k) * 1e6:.1f} "
              f"| {extra(k) / alone[k]:.2f}x |")  # fmt: skip


def poll(args) -> None:
    """Busy and yielding polls for a short step's result, two thresholds each: us/step
    of the tiny plain and monitored loops (both fetching the loss) and the small plain
    loop, every variant and loop interleaved in ``--blocks`` blocks of ``--seconds``."""
    import functools
    import time

    import numpy as np

    from adapters.v1.client import session as session_lib

    busy, shipped = session_lib._poll_until_ready, session_lib._POLL_S
    yielding = functools.partial(busy, pause=os.sched_yield)
    variants = {
        f"busy, {shipped * 1e6:g} us (as shipped)": (busy, shipped),
        "busy, 2 ms": (busy, 2e-3),
        f"yielding, {shipped * 1e6:g} us": (yielding, shipped),
        "yielding, 2 ms": (yielding, 2e-3),
    }
    loops = {
        "tiny plain": fetching_loop(*SIZES["tiny"], with_global_step=False),
        "tiny monitored": monitored_loop(*SIZES["tiny"], fetch_loss=True),
        "small plain": fetching_loop(*SIZES["small"], with_global_step=False),
    }
    steps = {
        name: steps_per_block(step, sync, args.seconds) for name, (step, sync) in loops.items()
    }
    times: dict = {(v, name): [] for v in variants for name in loops}
    try:
        for _ in range(args.blocks):
            for v, (wait, threshold) in variants.items():
                session_lib._poll_until_ready, session_lib._POLL_S = wait, threshold
                for name, (step, _) in loops.items():
                    for _ in range(5):  # the variant's first steps decide `short` anew
                        step()
                    t = time.perf_counter()
                    for _ in range(steps[name]):
                        step()
                    times[v, name].append((time.perf_counter() - t) / steps[name])
    finally:
        session_lib._poll_until_ready, session_lib._POLL_S = busy, shipped
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"Machine: {machine()}; jax {jax.__version__}; {when}; load {os.getloadavg()[0]:.2f}")
    print(f"{args.blocks} interleaved blocks of {args.seconds} s per loop and variant\n")
    print("| wait for a short step | tiny plain us/step | tiny monitored us/step "
          "| small plain us/step | monitored / plain "
          "| monitored / plain, paired blocks |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|")
    for v in variants:
        med = {name: float(np.median(times[v, name])) for name in loops}
        pairs = zip(times[v, "tiny monitored"], times[v, "tiny plain"], strict=True)
        paired = float(np.median([a / b for a, b in pairs]))
        print(f"| {v} | {med['tiny plain'] * 1e6:.1f} | {med['tiny monitored'] * 1e6:.1f} "
              f"| {med['small plain'] * 1e6:.1f} "
              f"| {med['tiny monitored'] / med['tiny plain']:.3f}x | {paired:.3f}x |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short blocks (a smoke run)")
    parser.add_argument("--sizes", default="tiny,small")
    parser.add_argument("--blocks", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=0,
                        help="run the plain/monitored loops fetching the loss in this many "
                        "fresh processes per side instead of the one-process table")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=0.5, help="seconds per block (--rounds)")
    parser.add_argument("--baseline", default="",
                        help="with --rounds: a PYTHONPATH (another checkout's root) measured "
                        "as a side of its own, alternating with this one")  # fmt: skip
    parser.add_argument("--gap", default="",
                        help="comma-separated busy-loop iteration counts: time Python run "
                        "between steps (e.g. 100,300,1000); --blocks blocks")  # fmt: skip
    parser.add_argument("--poll", action="store_true",
                        help="time busy and yielding polls for a short step's result, "
                        "two thresholds each (--blocks blocks of --seconds)")  # fmt: skip
    parser.add_argument("--one-round", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.poll:
        logging.getLogger("adapters.v1.training").setLevel(logging.ERROR)
        poll(args)
        return
    if args.gap:
        logging.getLogger("adapters.v1.training").setLevel(logging.ERROR)
        gap(args)
        return
    if args.one_round or args.rounds:
        logging.getLogger("adapters.v1.training").setLevel(logging.ERROR)
        if args.one_round:
            one_round(args.one_round, args.blocks, args.seconds)
        else:
            rounds(args)
        return
    logging.getLogger("adapters.v1.training").setLevel(logging.ERROR)  # the hooks' INFO
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
    try:
        import tensorflow  # noqa: F401

        have_tf = True
    except ImportError:
        have_tf = False
    print("## MonitoredTrainingSession (issue 7)\n")
    print(
        f"Machine: {machine()}; jax {jax.__version__}. "
        f"Command: `python {os.path.relpath(__file__)}`\n"
    )
    print("| model | batch | plain us/step | fetching us/step | monitored us/step "
          "| tf1 monitored us/step | monitored/plain time | monitored/fetching time "
          "| monitored/tf1 steps/s | no-NaN-hook us/step | no-NaN-hook/plain time "
          "| plain+loss us/step | monitored+loss us/step "
          "| monitored+loss/plain+loss time |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        sizes, batch = SIZES[size]
        loops = {
            "plain": session_loop(sizes, batch),
            "fetching": fetching_loop(sizes, batch),
            "monitored": monitored_loop(sizes, batch),
            "no_nan": monitored_loop(sizes, batch, nan_hook=False),
            "plain_loss": fetching_loop(sizes, batch, with_global_step=False),
            "monitored_loss": monitored_loop(sizes, batch, fetch_loss=True),
        }
        if have_tf:
            loops["tf1"] = tf1_monitored_loop(sizes, batch)
        t = measure(loops, 0.2 if args.quick else 1.0, 3 if args.quick else args.blocks)
        tf_us = f"{t['tf1'] * 1e6:.1f}" if "tf1" in t else "n/a"
        vs_tf = f"{t['tf1'] / t['monitored']:.2f}x" if "tf1" in t else "n/a"
        print(
            f"| {'-'.join(map(str, sizes))} | {batch} | {t['plain'] * 1e6:.1f} | "
            f"{t['fetching'] * 1e6:.1f} | {t['monitored'] * 1e6:.1f} | {tf_us} | "
            f"{t['monitored'] / t['plain']:.3f}x | {t['monitored'] / t['fetching']:.3f}x "
            f"| {vs_tf} | {t['no_nan'] * 1e6:.1f} | {t['no_nan'] / t['plain']:.3f}x "
            f"| {t['plain_loss'] * 1e6:.1f} | {t['monitored_loss'] * 1e6:.1f} "
            f"| {t['monitored_loss'] / t['plain_loss']:.3f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
