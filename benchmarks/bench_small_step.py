"""A tiny model's whole training step with jtrain's optimizers vs optax's (issue 2, small leaves).

``bench_optimizers.py`` measures the update on 16M parameters, where memory bandwidth
decides. Here the step is the 784-32-10 MLP at batch 8 (``bench_session.py``'s tiny
model): ``jax.grad`` of the loss, the optimizer's update, ``optax.apply_updates``, one
``jax.jit`` program with params and state donated, waited for every step. Such steps
are decided by per-operation costs: how many loops XLA:CPU emits and whether it
splits them across threads. ``grad only`` (plain SGD written inline) is the floor;
"update us" is a loop's time minus the floor's.

Loops are interleaved in blocks; figures are medians. Run:
``python benchmarks/bench_small_step.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from bench_session import _batch, _init, machine, measure, mlp_loss  # noqa: E402

import jtrain.optimizers as jo  # noqa: E402

SIZES, BATCH = (784, 32, 10), 8

# (jtrain, optax) pairs with the same hyperparameters.
PAIRS = {
    "adam": (lambda: jo.adam(1e-3), lambda: optax.adam(1e-3, eps=1e-8)),
    "rmsprop (momentum 0.9)": (
        lambda: jo.rmsprop(1e-3, decay=0.9, momentum=0.9, epsilon=1e-10),
        lambda: optax.rmsprop(1e-3, decay=0.9, eps=1e-10, momentum=0.9),
    ),
    "adagrad": (lambda: jo.adagrad(0.1), lambda: optax.adagrad(0.1)),
    "momentum": (lambda: jo.momentum(0.1, 0.9), lambda: optax.sgd(0.1, momentum=0.9)),
}


def step_loop(opt: optax.GradientTransformation | None):
    """``(step, sync)`` of a donated jitted step; ``opt=None``: inline SGD (the floor)."""
    params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in _init(SIZES)]
    state = [params, opt.init(params) if opt is not None else ()]
    xb, yb = _batch(SIZES, BATCH)

    def update(p, s, x, y):
        g = jax.grad(mlp_loss)(p, x, y)
        if opt is None:
            return jax.tree.map(lambda a, b: a - 1e-3 * b, p, g), s
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s

    update = jax.jit(update, donate_argnums=(0, 1))

    def step():
        state[0], state[1] = update(state[0], state[1], xb, yb)
        jax.block_until_ready(state[0])

    return step, lambda: jax.block_until_ready(state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short blocks (a smoke run)")
    args = parser.parse_args()
    loops = {"grad only": step_loop(None)}
    for name, (ours, theirs) in PAIRS.items():
        loops[f"jtrain {name}"] = step_loop(ours())
        loops[f"optax {name}"] = step_loop(theirs())
    t = measure(loops, 0.1 if args.quick else 0.5, 3 if args.quick else 11)
    floor = t["grad only"]
    print("## A tiny model's training step (issue 2, small leaves)\n")
    print(
        f"Machine: {machine()}; jax {jax.__version__}. Command: `python "
        f"{os.path.relpath(__file__)}`. 784-32-10 MLP, batch 8; grad only: "
        f"{floor * 1e6:.1f} us/step\n"
    )
    print("| optimizer | jtrain us/step | optax us/step | jtrain update us | optax update us |")
    print("|---|---:|---:|---:|---:|")
    for name in PAIRS:
        a, b = t[f"jtrain {name}"], t[f"optax {name}"]
        print(
            f"| {name} | {a * 1e6:.1f} | {b * 1e6:.1f} | {(a - floor) * 1e6:.1f} "
            f"| {(b - floor) * 1e6:.1f} |"
        )


if __name__ == "__main__":
    main()
