"""Benchmark: what computing TF's CPU numbers bit for bit costs against XLA's own.

Run: python benchmarks/bench_tf_numerics.py [--repeats 31] [--calls 20]
(``nox -s bench -- benchmarks/bench_tf_numerics.py``). CPU (``JAX_PLATFORMS=cpu``).

Each row is a pair of jitted functions on the same float32 inputs: the one jtrain
uses (TF's order: ``jtrain._eigen``, ``jtrain._numerics``) and the anchor, XLA's
function computing the same value in its own order (``jnp``, ``jax.nn``, plain
``1 / sqrt``). The pair is called in turn (interleaved, so the machine's noise hits
both alike) for ``--repeats`` rounds of ``--calls`` calls after a warm-up; the
figures are medians of the per-call wall time, and the ratio is TF's order over
XLA's. Forward-and-backward rows time ``jax.value_and_grad`` of the sum of the
output times a fixed cotangent.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jtrain._eigen import exp_log, rsqrt, softmax, tanh_logistic
from jtrain._numerics import eigen_sum, row_sum_in_order


def _grad_of(fn: Callable, cotangent: np.ndarray) -> Callable:
    return jax.value_and_grad(lambda x: jnp.sum(fn(x) * cotangent))


def _adagrad_step(rsqrt_fn: Callable) -> Callable:
    """One dense Adagrad step as TF's ApplyAdagrad: ``var -= grad * lr * rsqrt(accum)``."""

    def step(var: jax.Array, accum: jax.Array, grad: jax.Array) -> tuple:
        accum = accum + grad * grad
        return var - grad * jnp.float32(1e-3) * rsqrt_fn(accum), accum

    return step


def _cases(rng: np.random.Generator) -> list[tuple[str, Callable, Callable, tuple]]:
    big = rng.standard_normal(1_000_007).astype(np.float32)
    positive = np.abs(big) + np.float32(1e-3)
    logits = (rng.standard_normal((128, 1000)) * 3).astype(np.float32)
    labels = np.eye(1000, dtype=np.float32)[rng.integers(0, 1000, 128)]
    batch = rng.standard_normal((128, 1024)).astype(np.float32)
    rows = rng.standard_normal((8192, 64)).astype(np.float32)
    ones = np.ones(128, np.float32)
    plain_rsqrt = lambda x: 1 / jnp.sqrt(x)
    column_sum = lambda x: jnp.sum(x, 0)
    xent = lambda fn: jax.value_and_grad(lambda z: jnp.sum(fn(z) * ones))
    w = rng.standard_normal(25_088).astype(np.float32)
    return [
        ("exp, 1M values", exp_log.exp, jnp.exp, (big,)),
        ("log, 1M values", exp_log.log, jnp.log, (positive,)),
        ("tanh, 1M values", tanh_logistic.tanh, jnp.tanh, (big,)),
        ("sigmoid, 1M values", tanh_logistic.logistic, jax.nn.sigmoid, (big,)),
        ("rsqrt, 1M values", rsqrt.rsqrt, plain_rsqrt, (positive,)),
        (
            "softmax xent [128, 1000], forward and backward",
            xent(lambda z: softmax.softmax_cross_entropy(labels, z)),
            xent(lambda z: -jnp.sum(labels * jax.nn.log_softmax(z), -1)),
            (logits,),
        ),
        (
            "log_softmax [128, 1000], forward and backward",
            _grad_of(softmax.log_softmax, logits),
            _grad_of(jax.nn.log_softmax, logits),
            (logits,),
        ),
        ("sum over the batch [128, 1024]", lambda x: eigen_sum(x, 0), column_sum, (batch,)),
        ("BiasAddGrad rows in order [8192, 64]", row_sum_in_order, column_sum, (rows,)),
        (
            "Adagrad step, 25,088 values",
            _adagrad_step(rsqrt.rsqrt),
            _adagrad_step(plain_rsqrt),
            (w, np.full_like(w, 0.1), w * np.float32(0.5)),
        ),
    ]


def _time(fn: Callable, args: tuple, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        out = fn(*args)
    jax.block_until_ready(out)
    return (time.perf_counter() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    cpu = platform.processor() or platform.machine()
    print(f"# {datetime.date.today()}, {cpu}, {os.cpu_count()} CPUs, jax {jax.__version__}")
    print()
    print("| computation | TF's order | XLA's | ratio |")
    print("|---|---:|---:|---:|")
    for name, ours, anchor, inputs in _cases(rng):
        device_inputs = tuple(jnp.asarray(a) for a in inputs)
        fns = (jax.jit(ours), jax.jit(anchor))
        for fn in fns:
            jax.block_until_ready(fn(*device_inputs))
        times: tuple[list[float], list[float]] = ([], [])
        for _ in range(args.repeats):
            for fn, t in zip(fns, times, strict=True):
                t.append(_time(fn, device_inputs, args.calls))
        ours_s, anchor_s = (statistics.median(t) for t in times)
        ratio = ours_s / anchor_s
        print(f"| {name} | {ours_s * 1e6:.0f} us | {anchor_s * 1e6:.0f} us | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
