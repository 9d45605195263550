"""Writes ``philox_goldens.npz``: TF 2.21's random bits and values (run under TensorFlow).

    cd /work/main && env TF_CPP_MIN_LOG_LEVEL=2 JAX_PLATFORMS=cpu CUDA_VISIBLE_DEVICES= \
        /work/wt/tfvenv/bin/python tests/jtrain/random/gen_philox_goldens.py

Contents (every array as TF returned it):
- ``raw``: 16 words of ``StatelessRandomUniformFullIntV2`` (alg 1, Philox) for key
  ``0x12345678ABCDEF01`` and counter ``(0xFFFFFFFFFFFFFFFE, 7)`` (a carry into the
  high counter word at the third call);
- ``{op}_{dtype}_run{k}``: classic TF1 ``tf.random_uniform``/``random_normal``/
  ``truncated_normal`` of shape ``SHAPE`` with graph seed 3 and op seed 5, fetched on
  runs 0, 1, 2 of one session;
- ``int32_run{k}``/``int64_run{k}``: ``tf.random_uniform`` of the integer ranges in
  ``INT_RANGES``, same seeds.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

SHAPE = (5, 103)
INT_RANGES = {"int32": (-5, 1000), "int64": (-(2**40), 2**62)}
FLOATS = ("float32", "float16", "bfloat16", "float64")


def main() -> None:
    out = {}
    key = np.array([0x12345678ABCDEF01], np.uint64)
    ctr = np.array([0xFFFFFFFFFFFFFFFE, 7], np.uint64)
    out["raw"] = tf.raw_ops.StatelessRandomUniformFullIntV2(
        shape=[16], key=key, counter=ctr, alg=1, dtype=tf.uint32
    ).numpy()
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    ops = {
        "uniform": tf1.random_uniform,
        "normal": tf1.random_normal,
        "truncated_normal": tf1.truncated_normal,
    }
    for op, fn in ops.items():
        for dt in FLOATS:
            with tf1.Graph().as_default():
                tf1.set_random_seed(3)
                t = fn(SHAPE, dtype=getattr(tf, dt), seed=5)
                with tf1.Session() as sess:
                    for run in range(3):
                        v = sess.run(t)
                        out[f"{op}_{dt}_run{run}"] = v.view(np.uint16) if dt == "bfloat16" else v
    for dt, (lo, hi) in INT_RANGES.items():
        with tf1.Graph().as_default():
            tf1.set_random_seed(3)
            t = tf1.random_uniform(SHAPE, lo, hi, dtype=getattr(tf, dt), seed=5)
            with tf1.Session() as sess:
                for run in range(3):
                    out[f"{dt}_run{run}"] = sess.run(t)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "philox_goldens.npz")
    np.savez_compressed(path, **out)


if __name__ == "__main__":
    main()
