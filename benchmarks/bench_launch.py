"""What launching one compiled step costs per array it takes and returns (XLA:CPU).

A ``Session`` step donates every variable it writes and returns their new values, so a
model's launch cost grows with its number of variables (and slots), not its size. This
times the call of ``jax.jit(step, donate_argnums=0)`` on N small float32 arrays (100
values each, every one read and rewritten; plus one fixed 64x784 input and a scalar
output), against the same with the arrays not donated, interleaved, medians of the
blocks. The call returns before the program ends (asynchronous dispatch); the time is
the caller's, which a training loop pays every step.

Run: ``python benchmarks/bench_launch.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from bench_session import machine  # noqa: E402


def _launcher(n: int, donate: bool):
    """A function launching the step once (its outputs become the next inputs)."""

    def step(arrays, x):
        total = jnp.sum(x) + sum(jnp.sum(a) for a in arrays)
        return [a + 1.0 for a in arrays], total

    fn = jax.jit(step, donate_argnums=(0,) if donate else ())
    state = {"arrays": [jnp.ones((100,), jnp.float32) for _ in range(n)]}
    x = jnp.ones((64, 784), jnp.float32)

    def launch() -> float:
        start = time.perf_counter()
        state["arrays"], total = fn(state["arrays"], x)
        elapsed = time.perf_counter() - start
        total.block_until_ready()  # not timed: the launch alone is the figure
        return elapsed

    for _ in range(200):
        launch()
    return launch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short blocks (a smoke run)")
    parser.add_argument("--counts", default="1,5,15,30", help="numbers of arrays to time")
    args = parser.parse_args()
    blocks, calls = (3, 300) if args.quick else (9, 2000)
    counts = [int(c) for c in args.counts.split(",")]
    launchers = {(n, d): _launcher(n, d) for n in counts for d in (True, False)}
    times: dict = {key: [] for key in launchers}
    for _ in range(blocks):
        for key, launch in launchers.items():
            times[key].append(float(np.median([launch() for _ in range(calls)])))
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"Machine: {machine()}; jax {jax.__version__}; load {os.getloadavg()[0]:.2f}; {when}\n")
    print("| arrays in and out | donated us/launch | not donated | donated us per array |")
    print("|---:|---:|---:|---:|")
    base = float(np.median(times[(counts[0], True)]))
    for n in counts:
        donated = float(np.median(times[(n, True)]))
        plain = float(np.median(times[(n, False)]))
        per = f"{(donated - base) / (n - counts[0]) * 1e6:.2f}" if n != counts[0] else "-"
        print(f"| {n} | {donated * 1e6:.1f} | {plain * 1e6:.1f} | {per} |")


if __name__ == "__main__":
    main()
