"""adapters.v1 ``Session.run`` training loop vs a hand-written optax + jax.jit loop vs TF1.

The same MLP (ReLU hidden layers, softmax cross-entropy, Adam 1e-3) is trained by
feeding the same NumPy batch each step and fetching the loss every step, as real
scripts do (on a GPU a loop that only dispatches steps would time nothing but dispatch):

- ``session``: ``sess.run([train_op, loss], feed_dict)`` with ``from adapters import v1 as tf``;
- ``jax``: a hand-written ``jax.jit`` step (``optax.adam``), params and state donated,
  returning the loss, which the loop converts to a Python float;
- ``tf1``: TensorFlow's graph-mode ``tf.compat.v1.Session`` (when TF is importable).

Timing blocks of each are interleaved so the machine's noise hits all alike;
the figures are medians of the blocks. Run: ``python benchmarks/bench_session.py``
(``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402

SIZES = {
    "tiny": ((784, 32, 10), 8),
    "small": ((784, 256, 10), 64),
    "large": ((784, 4096, 4096, 10), 256),
}


def _init(sizes):
    rng = np.random.default_rng(0)
    out = []
    for m, n in zip(sizes[:-1], sizes[1:], strict=True):
        out.append(((rng.normal(size=(m, n)) * np.sqrt(2 / m)).astype(np.float32),
                    np.zeros(n, np.float32)))  # fmt: skip
    return out


def _batch(sizes, batch):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], size=batch).astype(np.int32)
    return x, y


def _xent(logits, labels):
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()


def mlp_loss(p, x, y):
    """The MLP's loss in plain JAX: ``p`` is a list of ``(w, b)`` layers."""
    h = x
    for i, (w, b) in enumerate(p):
        h = h @ w + b
        if i < len(p) - 1:
            h = jax.nn.relu(h)
    return _xent(h, y)


def session_loop(sizes, batch):
    from adapters import v1 as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder("float32", [None, sizes[0]], name="x")
        y = tf.placeholder("int32", [None], name="y")
        h = x
        layers = _init(sizes)
        for i, (w0, b0) in enumerate(layers):
            h = h @ tf.Variable(w0, name=f"w{i}") + tf.Variable(b0, name=f"b{i}")
            if i < len(layers) - 1:
                h = tf.jax_function(jax.nn.relu, [h])
        loss = tf.jax_function(_xent, [h, y], name="loss")
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    xb, yb = _batch(sizes, batch)
    feed = {x: xb, y: yb}

    def step():
        return sess.run([train, loss], feed)[1]

    def sync():
        sess.run(loss, feed)

    return step, sync


def jax_loop(sizes, batch):
    params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in _init(sizes)]
    opt = optax.adam(1e-3)
    state = [params, opt.init(params)]

    def update(p, s, x, y):
        value, grads = jax.value_and_grad(mlp_loss)(p, x, y)
        updates, s = opt.update(grads, s, p)
        return optax.apply_updates(p, updates), s, value

    update = jax.jit(update, donate_argnums=(0, 1))
    xb, yb = _batch(sizes, batch)

    def step():
        state[0], state[1], value = update(state[0], state[1], xb, yb)
        return float(value)

    def sync():
        jax.block_until_ready(state[0])

    return step, sync


def tf1_loop(sizes, batch):
    import tensorflow as tf

    tf1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, sizes[0]])
        y = tf1.placeholder(tf.int32, [None])
        h = x
        layers = _init(sizes)
        for i, (w0, b0) in enumerate(layers):
            h = tf.matmul(h, tf1.Variable(w0)) + tf1.Variable(b0)
            if i < len(layers) - 1:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = tf1.train.AdamOptimizer(1e-3).minimize(loss)
        init = tf1.global_variables_initializer()
    sess = tf1.Session(graph=g)
    sess.run(init)
    xb, yb = _batch(sizes, batch)
    feed = {x: xb, y: yb}

    def step():
        return sess.run([train, loss], feed)[1]

    def sync():
        sess.run(loss, feed)

    return step, sync


def steps_per_block(step, sync, seconds: float) -> int:
    """Warms ``step`` up, then the number of its steps that take about ``seconds``
    (from 0.3 s of steps; at least 3)."""
    for _ in range(3):
        step()
    sync()
    t, n = time.perf_counter(), 0
    while time.perf_counter() - t < 0.3:
        step()
        n += 1
    sync()
    return max(3, int(n / (time.perf_counter() - t) * seconds))


def measure(loops, seconds_per_block: float, blocks: int) -> dict[str, float]:
    """Median seconds per step of each loop, timing interleaved blocks."""
    per_block = {
        name: steps_per_block(step, sync, seconds_per_block) for name, (step, sync) in loops.items()
    }
    samples = {name: [] for name in loops}
    for _ in range(blocks):
        for name, (step, sync) in loops.items():
            n = per_block[name]
            t = time.perf_counter()
            for _ in range(n):
                step()
            sync()
            samples[name].append((time.perf_counter() - t) / n)
    return {name: float(np.median(v)) for name, v in samples.items()}


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    return f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short blocks (a smoke run)")
    parser.add_argument("--sizes", default="tiny,small,large")
    args = parser.parse_args()
    try:
        import tensorflow  # noqa: F401

        have_tf = True
    except ImportError:
        have_tf = False
    print("## Session.run loop (issue 6)\n")
    print(
        f"Machine: {machine()}; jax {jax.__version__}. "
        f"Command: `nox -s bench -- {os.path.relpath(__file__)}`\n"
    )
    print("| model | batch | session steps/s | jax steps/s | tf1 steps/s | session/jax time "
          "| session/tf1 steps/s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        sizes, batch = SIZES[size]
        loops = {"session": session_loop(sizes, batch), "jax": jax_loop(sizes, batch)}
        if have_tf:
            loops["tf1"] = tf1_loop(sizes, batch)
        block = 0.2 if args.quick else (1.0 if size != "large" else 3.0)
        t = measure(loops, block, 3 if args.quick else 7)
        tf_rate = f"{1 / t['tf1']:.1f}" if "tf1" in t else "n/a"
        vs_tf = f"{t['tf1'] / t['session']:.2f}x" if "tf1" in t else "n/a"
        print(
            f"| {'-'.join(map(str, sizes))} | {batch} | {1 / t['session']:.1f} | "
            f"{1 / t['jax']:.1f} | {tf_rate} | {t['session'] / t['jax']:.2f}x | {vs_tf} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
