"""Writes ``shuffle_goldens.npz``: TF 2.21's ``RandomShuffle`` orders (run under TensorFlow).

    cd /work/main && env TF_CPP_MIN_LOG_LEVEL=2 JAX_PLATFORMS=cpu CUDA_VISIBLE_DEVICES= \
        /work/wt/tfvenv/bin/python tests/jtrain/random/gen_shuffle_goldens.py

Contents: ``n{n}_s{seed}_{seed2}_run{k}``, the output of the raw ``RandomShuffle`` op
(attributes ``seed``/``seed2``) on ``range(n)`` (int32), fetched on runs 0, 1, 2 of
one classic TF1 session, for the sizes ``SIZES`` and seed pairs ``SEEDS``.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

SIZES = (2, 3, 7, 1000, 4099)
SEEDS = ((87654321, 9), (1, 0), (5, 2**31 - 1))
RUNS = 3


def main() -> None:
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    out = {}
    graph = tf1.Graph()
    with graph.as_default():
        fetches = {}
        for n in SIZES:
            for seed, seed2 in SEEDS:
                fetches[f"n{n}_s{seed}_{seed2}"] = tf.raw_ops.RandomShuffle(
                    value=tf.range(n), seed=seed, seed2=seed2
                )
        with tf1.Session() as sess:
            for k in range(RUNS):
                for name, value in sess.run(fetches).items():
                    out[f"{name}_run{k}"] = value
    here = os.path.dirname(os.path.abspath(__file__))
    np.savez_compressed(os.path.join(here, "shuffle_goldens.npz"), **out)


if __name__ == "__main__":
    main()
