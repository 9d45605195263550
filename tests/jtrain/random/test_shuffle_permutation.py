"""``philox.shuffle_permutation`` gives TF 2.21's ``RandomShuffle`` orders.

The expected orders are ``shuffle_goldens.npz``, written by TF 2.21 with
``gen_shuffle_goldens.py`` (the command is in its docstring): the raw op on
``range(n)`` with attributes ``seed``/``seed2``, three runs of one session. Run ``k``
starts ``k * ceil((n - 1) / 4)`` generator calls on (TF's ``ReserveSamples32``).
"""

from __future__ import annotations

import os

import jax
import numpy as np
import pytest

from jtrain.random import philox

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (2, 3, 7, 1000, 4099)
SEEDS = ((87654321, 9), (1, 0), (5, 2**31 - 1))


@pytest.fixture(scope="module")
def tf_orders():
    with np.load(os.path.join(HERE, "shuffle_goldens.npz")) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("seed,seed2", SEEDS)
def test_tf_orders_over_three_runs(tf_orders, n, seed, seed2):
    key, counter = philox.seeded(seed, seed2)
    draw = jax.jit(philox.shuffle_permutation, static_argnums=2)
    for k in range(3):
        start = philox.skip(counter, k * -(-(n - 1) // 4))
        perm = np.asarray(draw(key, start, n))
        np.testing.assert_array_equal(perm, tf_orders[f"n{n}_s{seed}_{seed2}_run{k}"])


@pytest.mark.parametrize("n", [0, 1])
def test_nothing_to_shuffle(n):
    key, counter = philox.seeded(1, 2)
    assert np.asarray(philox.shuffle_permutation(key, counter, n)).tolist() == list(range(n))
