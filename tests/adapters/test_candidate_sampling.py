"""The unique draw of ``candidate_sampling_ops`` against TF's one-at-a-time loop.

TF's kernel draws one class at a time, keeps each class the first time it appears,
and stops after ``num_sampled`` kept (``num_tries`` draws). jtrain draws chunks on
the device; for the same stream of draws it must keep the same classes in the same
order after the same number of tries.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from adapters.v1.framework import _x64
from adapters.v1.ops.candidate_sampling_ops import _unique_draw


def _stream_draw(range_max):
    return lambda key, n: jax.random.randint(key, (n,), 0, range_max, dtype=np.int64)


def _reference(key, draw, num_sampled):
    """TF's loop over the same stream: the chunks the device loop draws, one by one."""
    kept, tries = [], 0
    while True:
        key, sub = jax.random.split(key)
        for value in np.asarray(draw(sub, num_sampled)).tolist():
            tries += 1
            if value not in kept:
                kept.append(value)
                if len(kept) == num_sampled:
                    return kept, tries


@pytest.mark.parametrize(("num_sampled", "range_max"), [(1, 1), (3, 3), (5, 7), (8, 40), (16, 17)])
@pytest.mark.parametrize("seed", [0, 1])
def test_unique_draw_is_tfs_sequential_loop(num_sampled, range_max, seed):
    with _x64.exact():
        key = jax.random.key(seed, impl="threefry2x32")
        draw = _stream_draw(range_max)
        kept, tries = jax.jit(_unique_draw, static_argnums=(1, 2))(key, draw, num_sampled)
        expected, expected_tries = _reference(key, draw, num_sampled)
    assert np.asarray(kept).tolist() == expected
    assert int(tries) == expected_tries
    assert np.asarray(kept).dtype == np.int64
