"""``tf.data.experimental.RandomDataset``: pseudorandom ``tf.int64`` scalars forever.

As TF's ``RandomDataset`` kernel: each element is the next ``uint32`` of
``SingleSampleAdapter<PhiloxRandom>(seed, seed2)`` (``jtrain.random.sample_stream``),
as an ``int64`` in ``[0, 2**32)``. The seeds are ``tf.data``'s ``get_seed`` of the
op seed (the graph seed's rules); every pass (each epoch of a ``repeat`` over it,
each initialization of an iterator) starts the stream again from those seeds, and
no seeds at all give new random ones for each pass.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import numpy as np

from adapters.v1.data.dataset_ops import INFINITE_CARDINALITY, DatasetV1, Element, Run
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes
from jtrain.random.sample_stream import SampleStream

__all__ = ["RandomDataset"]


class RandomDataset(DatasetV1):
    """Pseudorandom ``tf.int64`` scalars in ``[0, 2**32)``, forever (see the module).

    Args:
      seed: the op seed (default ``None``: the graph seed's rules; neither: new
        random seeds for each pass).
    """

    def __init__(self, seed: int | None = None):
        from adapters.v1.ops.random_ops import get_seed

        graph_seed, op_seed = get_seed(seed)
        self._seeds = (graph_seed or 0, op_seed or 0)  # tf.data's get_seed: None is 0
        self._structure = Spec.of((), dtypes.int64)

    def _cardinality(self, run: Run) -> int:
        return INFINITE_CARDINALITY

    def _elements(self, run: Run) -> Iterator[Element]:
        seeds = self._seeds
        if seeds == (0, 0):  # TF's kernel: random::New64() twice
            seeds = (secrets.randbits(64), secrets.randbits(64))
        draw = SampleStream(*seeds)
        while True:
            yield (np.asarray(draw(), np.int64),)
