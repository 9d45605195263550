"""TF's ``SingleSampleAdapter<PhiloxRandom>`` on the host: one ``uint32`` at a time.

Host-side TF kernels (tf.data's shuffle, its seed generators) take single 32-bit
samples from a Philox generator: the four words of each generator call in order,
then the next call's. :class:`SampleStream` gives that stream, computing the
Philox calls in blocks (one jitted program per block) rather than one at a time.
"""

from __future__ import annotations

import functools

import jax
import numpy as np

from jtrain.random import philox

__all__ = ["SampleStream"]

_BLOCK_CALLS = 256  # generator calls computed at once (1024 samples)


@functools.partial(jax.jit, static_argnums=2)
def _block(key: jax.Array, counter: jax.Array, calls: int) -> jax.Array:
    return philox.random_bits(key, counter, calls).reshape(-1)


class SampleStream:
    """``random::SingleSampleAdapter<random::PhiloxRandom>(PhiloxRandom(seed, seed2))``.

    Args:
      seed: TF's ``seed`` (the key), a 64-bit integer.
      seed2: TF's ``seed2`` (the counter's high words).
    """

    def __init__(self, seed: int, seed2: int):
        self._key, self._counter = philox.seeded(seed, seed2)
        self._calls = 0  # generator calls already turned into ``_samples``
        self._samples = np.empty(0, np.uint32)
        self._next = 0

    def __call__(self) -> int:
        """The next sample, a ``uint32`` as a Python int."""
        if self._next == len(self._samples):
            start = philox.skip(self._counter, self._calls)
            self._samples = np.asarray(_block(self._key, start, _BLOCK_CALLS))
            self._calls += _BLOCK_CALLS
            self._next = 0
        value = int(self._samples[self._next])
        self._next += 1
        return value
