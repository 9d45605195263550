"""Benchmark: durable save and cold/warm restore of 512 MB (8 float32 arrays).

Run: python benchmarks/bench_checkpoint.py [--mb 512] [--arrays 8] [--repeats 5] [--dir D]
(``nox -s bench -- benchmarks/bench_checkpoint.py``).

Everything runs in one process, interleaved per repeat, on the same arrays and
directory (default: the system temp dir), so each figure is compared with the
disk's raw bandwidth measured in the same run:

- ``raw write+fsync``: the same bytes written sequentially to one file, fsynced.
- ``raw read cold/warm``: that file read back into fresh NumPy arrays, after
  ``posix_fadvise(DONTNEED)`` on it (cold) or straight after (warm).
- ``jtrain TF-format``: ``write_tf_checkpoint`` (fsyncs data, index, directory)
  and ``BundleReader.get_tensors`` (4 threads; checksums verified).
- ``orbax (default)``: jtrain's orbax path, ``StandardCheckpointer`` with orbax's
  default options; its files fsynced after the save to make it durable; restore of
  the whole pytree (``block_until_ready``).
- ``orbax async save (blocking)``: the time ``CheckpointManager.save(async_=True)``
  blocks the caller, against a synchronous save.
- ``TF Saver``: ``tf.compat.v1.train.Saver.save`` of 8 variables (then fsync of its
  files) and ``Saver.restore``, when TensorFlow is importable.
- ``jtrain Saver``: ``adapters.v1.train.Saver.save``/``restore`` of the same 8
  variables of a ``Session`` (the restore includes the copy to the device, waited
  for): the figure to set against TF's Saver.

Before each save the side's previous files are removed (untimed): a training job
writes each checkpoint under a new name, and replacing 512 MB of another file made the
save after it slower by up to 2x on a VM disk. Cold figures drop the page cache of the
files read with ``posix_fadvise``.
Ratios: ``vs raw`` = raw time / time (1.0 = raw bandwidth); higher is better.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

from jtrain.checkpoint import tensor_bundle  # noqa: E402


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _files(path: str) -> list[str]:
    if os.path.isdir(path):
        return [os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs]
    d, base = os.path.split(path)
    if not os.path.isdir(d):
        return []
    return [os.path.join(d, f) for f in os.listdir(d) if f.startswith(base)]


def _drop_cache(paths: list[str]) -> None:
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _fsync_all(paths: list[str]) -> None:
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_all(fd: int, arr: np.ndarray) -> None:
    view = memoryview(arr.reshape(-1).view(np.uint8))
    while view:
        view = view[os.write(fd, view) :]


def raw_write(path: str, arrays) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for a in arrays:
            _write_all(fd, a)
        os.fsync(fd)
    finally:
        os.close(fd)


def raw_read(path: str, arrays) -> list[np.ndarray]:
    out = []
    fd = os.open(path, os.O_RDONLY)
    try:
        offset = 0
        for a in arrays:
            buf = np.empty(a.shape, a.dtype)
            view = memoryview(buf.reshape(-1).view(np.uint8))
            done = 0
            while done < len(view):
                done += os.preadv(fd, [view[done:]], offset + done)
            offset += a.nbytes
            out.append(buf)
    finally:
        os.close(fd)
    return out


def _timed(fn, *args, **kwargs):
    t = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - t, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=512)
    ap.add_argument("--arrays", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--no-tf", action="store_true", help="skip TensorFlow's Saver")
    ap.add_argument("--no-orbax", action="store_true")
    ap.add_argument("--no-adapters", action="store_true", help="skip adapters' Saver")
    ap.add_argument("--restore-only", action="store_true", help="time restores only")
    args = ap.parse_args()

    n = args.mb * (1 << 20) // 4 // args.arrays
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(n, dtype=np.float32) for _ in range(args.arrays)]
    names = [f"layer_{i}/kernel" for i in range(args.arrays)]
    tensors = dict(zip(names, arrays, strict=True))
    total_mb = sum(a.nbytes for a in arrays) / (1 << 20)
    work = tempfile.mkdtemp(prefix="jtrain-bench-ckpt-", dir=args.dir)

    tf = None
    if not args.no_tf:
        try:
            import tensorflow as tf  # noqa: F811
        except ImportError:
            tf = None
    times: dict[str, list[float]] = {}

    current = {"rep": 0}

    def record(key, seconds):
        if current["rep"] >= 0:
            times.setdefault(key, []).append(seconds)

    if not args.no_orbax:
        import jax
        import jax.numpy as jnp

        from jtrain.checkpoint import CheckpointManager, pytree

        jtree = {name.replace("/", "_"): jnp.asarray(a) for name, a in tensors.items()}
        jax.block_until_ready(jtree)

    if tf is not None:
        tf1 = tf.compat.v1
        graph = tf.Graph()
        with graph.as_default():
            phs = [tf1.placeholder(tf.float32, [n]) for _ in arrays]
            tf_vars = [
                tf1.Variable(ph, name=name, use_resource=True)
                for ph, name in zip(phs, names, strict=True)
            ]
            saver = tf1.train.Saver(tf_vars, max_to_keep=None)
        sess = tf1.Session(graph=graph)
        sess.run([v.initializer for v in tf_vars], feed_dict=dict(zip(phs, arrays, strict=True)))

    # Each side: (name, save(), restore(), files()); all write to their own path.
    sides = []
    raw = os.path.join(work, "raw.bin")
    sides.append(
        ("raw", lambda: raw_write(raw, arrays), lambda: raw_read(raw, arrays), lambda: [raw])
    )
    jt_prefix = os.path.join(work, "jt", "model.ckpt")

    def jt_restore():
        with tensor_bundle.BundleReader(jt_prefix) as r:
            out = r.get_tensors(names)
            return [out[name] for name in names]

    sides.append(
        (
            "jtrain TF-format",
            lambda: tensor_bundle.write_tf_checkpoint(jt_prefix, tensors),
            jt_restore,
            lambda: _files(jt_prefix),
        )
    )
    if not args.no_orbax:
        ob_path = os.path.join(work, "orbax", "ckpt")

        def orbax_save():
            pytree.save_pytree(ob_path, jtree)
            _fsync_all(_files(ob_path))

        sides.append(
            (
                "orbax (default)",
                orbax_save,
                lambda: jax.block_until_ready(pytree.restore_pytree(ob_path)),
                lambda: _files(ob_path),
            )
        )
    if not args.no_adapters:
        # The user's restore: adapters' Saver into a Session's variables (on device).
        import jax

        from adapters import v1 as jtf

        jgraph = jtf.Graph()
        with jgraph.as_default():
            jvars = [jtf.Variable(a, name=name) for a, name in zip(arrays, names, strict=True)]
            jsaver = jtf.train.Saver(jvars)
            jsess = jtf.Session(graph=jgraph)
            jsess.run(jtf.global_variables_initializer())
        ad_prefix = os.path.join(work, "adapters", "model.ckpt")

        def adapters_save():
            with jgraph.as_default():
                jsaver.save(jsess, ad_prefix, write_meta_graph=False, write_state=False)

        def adapters_restore():
            with jgraph.as_default():
                jsaver.restore(jsess, ad_prefix)
            jax.block_until_ready([jsess.variable_store.read(v) for v in jvars])

        sides.append(("jtrain Saver", adapters_save, adapters_restore, lambda: _files(ad_prefix)))
    if tf is not None:
        tf_prefix = os.path.join(work, "tf", "model.ckpt")

        def tf_save():
            with graph.as_default():
                saver.save(sess, tf_prefix, write_meta_graph=False, write_state=False)
            _fsync_all(_files(tf_prefix))

        def tf_restore():
            with graph.as_default():
                saver.restore(sess, tf_prefix)

        sides.append(("TF Saver", tf_save, tf_restore, lambda: _files(tf_prefix)))

    for rep in range(-1, args.repeats):  # round -1 warms up and is not recorded
        current["rep"] = rep
        order = sides[rep % len(sides) :] + sides[: rep % len(sides)]  # rotate the order
        for name, save, _, files in order:
            if args.restore_only and rep >= 0:
                continue
            # A training job saves each checkpoint under a new name: the last save's
            # files go first, so no save pays for freeing another side's blocks. (orbax
            # replaces its directory itself.)
            for path in files() if name != "orbax (default)" else []:
                if os.path.isfile(path):
                    os.remove(path)
            os.sync()
            key = "raw write+fsync" if name == "raw" else f"{name} save"
            record(key, _timed(save)[0])
        for temp in ("cold", "warm"):
            for name, _, restore, files in order:
                os.sync()
                if temp == "cold":
                    _drop_cache(files())
                else:
                    restore()  # make sure every page is cached
                t, got = _timed(restore)
                key = f"raw read {temp}" if name == "raw" else f"{name} restore {temp}"
                record(key, t)
                if name in ("raw", "jtrain TF-format"):
                    assert all(np.array_equal(g, a) for g, a in zip(got, arrays, strict=True))
                del got
        if not args.no_orbax:
            mdir = os.path.join(work, "mgr")
            manager = CheckpointManager(mdir, max_to_keep=1, format="orbax")
            os.sync()
            t_block, _ = _timed(manager.save, jtree, 1, async_=True)
            t_rest, _ = _timed(manager.wait_until_finished)
            record("orbax async save: blocking", t_block)
            record("orbax async save: total", t_block + t_rest)
            os.sync()
            record("orbax sync save (manager)", _timed(manager.save, jtree, 2)[0])
            shutil.rmtree(mdir)
    shutil.rmtree(work, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in times.items()}
    anchor = {
        "save": med.get("raw write+fsync"),
        "restore cold": med["raw read cold"],
        "restore warm": med["raw read warm"],
    }

    def anchor_of(key: str) -> float | None:
        if "blocking" in key:
            return None
        if "cold" in key:
            return anchor["restore cold"]
        if "warm" in key:
            return anchor["restore warm"]
        return anchor["save"]

    print(f"\nMachine: {platform.platform()}, {_cpu_model()}, {os.cpu_count()} cores")
    print(f"Directory: {args.dir} ({total_mb:.0f} MB in {args.arrays} float32 arrays)")
    print(f"Command: {' '.join([os.path.basename(sys.executable)] + sys.argv)}")
    print(f"Medians of {args.repeats} repeats.\n")
    print("| operation | seconds (median) | min-max | MB/s | vs raw |")
    print("|---|---|---|---|---|")
    for key, value in med.items():
        a = anchor_of(key)
        ratio = f"{a / value:.2f}" if a else "-"
        spread = f"{min(times[key]):.2f}-{max(times[key]):.2f}"
        print(f"| {key} | {value:.3f} | {spread} | {total_mb / value:.0f} | {ratio} |")
    if "orbax async save: blocking" in med:
        share = med["orbax async save: blocking"] / med["orbax sync save (manager)"]
        print(f"\nasync save blocks the caller for {share:.1%} of a synchronous save")
    if "jtrain Saver restore cold" in med and "TF Saver restore cold" in med:
        ratios = ", ".join(
            f"{op} {med[f'TF Saver {op}'] / med[f'jtrain Saver {op}']:.2f}x"
            for op in ("restore cold", "restore warm")
        )
        print(f"jtrain Saver.restore (adapters) speed vs TF Saver.restore: {ratios}")
    for other in ("orbax (default)", "TF Saver"):
        if f"{other} save" in med and "jtrain TF-format save" in med:
            ratios = ", ".join(
                f"{op} {med[f'{other} {op}'] / med[f'jtrain TF-format {op}']:.2f}x"
                for op in ("save", "restore cold", "restore warm")
            )
            print(f"jtrain TF-format faster than {other}: {ratios}")


if __name__ == "__main__":
    main()
