"""``tf.data.experimental.RandomDataset``: pseudorandom ``tf.int64`` scalars forever.

As TF's ``RandomDataset`` kernel: each element is the next ``uint32`` of
``SingleSampleAdapter<PhiloxRandom>(seed, seed2)`` (``jtrain.random.sample_stream``),
as an ``int64`` in ``[0, 2**32)``. The seeds are ``tf.data``'s ``get_seed`` of the
op seed (the graph seed's rules); every pass (each epoch of a ``repeat`` over it,
each initialization of an iterator) starts the stream again from those seeds, and
no seeds at all give new random ones for each pass.

``Dataset.random(seed, rerandomize_each_iteration=True)`` takes each pass's seeds
from a seed generator kept by the iterator (two samples of ``PhiloxRandom`` of the
dataset's seeds per pass, as ``Dataset.shuffle``'s reshuffling), so each epoch of a
``repeat`` has its own values and initializing the iterator again starts that
sequence again. That seed generator is a stateful node in TF: a one-shot iterator
refuses it (TF's ``ValueError``); without ``rerandomize_each_iteration`` it is
``RandomDataset`` itself.
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
        self._rerandomize = False
        self._seed_generator: str | None = None  # TF's stateful node, for Dataset.random

    @staticmethod
    def of_method(seed: int | None, rerandomize_each_iteration: bool | None) -> RandomDataset:
        """``Dataset.random(seed, rerandomize_each_iteration)`` (see the module)."""
        dataset = RandomDataset(seed)
        dataset._rerandomize = bool(rerandomize_each_iteration)
        if rerandomize_each_iteration:  # TF's RandomDatasetV2 over a DummySeedGenerator
            dataset._seed_generator = "DummySeedGenerator"
        return dataset

    def _stateful_node(self) -> str | None:
        return self._seed_generator

    def _cardinality(self, run: Run) -> int:
        return INFINITE_CARDINALITY

    def _pass_seeds(self, run: Run) -> tuple[int, int]:
        seeds = self._seeds
        if not self._rerandomize:
            if seeds == (0, 0):  # TF's kernel: random::New64() twice, each pass
                seeds = (secrets.randbits(64), secrets.randbits(64))
            return seeds
        generator = run.states.get((self, "generator"))
        if generator is None:  # the iterator's first pass
            if seeds == (0, 0):
                seeds = (secrets.randbits(64), secrets.randbits(64))
            generator = run.states[(self, "generator")] = SampleStream(*seeds)
        return generator(), generator()

    def _elements(self, run: Run) -> Iterator[Element]:
        draw = SampleStream(*self._pass_seeds(run))
        while True:
            yield (np.asarray(draw(), np.int64),)
