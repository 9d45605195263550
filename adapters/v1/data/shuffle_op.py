"""``Dataset.shuffle``: TF's ``ShuffleDataset`` kernel, its order included.

TF's kernel keeps a buffer of ``buffer_size`` elements, filled from the input before
each output; it outputs the element at ``start + Random() % size`` of the buffer's
live range and moves the element at ``start`` into its place (``Random()`` is the
next ``uint32`` of ``SingleSampleAdapter<PhiloxRandom>(seed, seed2)``). With
``reshuffle_each_iteration`` (the default) the seeds of each pass come from a seed
generator kept by the iterator: a ``PhiloxRandom`` of the dataset's seeds gives two
samples per pass, so each epoch of a ``repeat`` after the shuffle has its own order,
and initializing the iterator again starts that sequence again. Without it, every
pass uses the dataset's seeds. The dataset's seeds are ``tf.data``'s ``get_seed``:
the op-level rules, ``(0, 0)`` then ``(0, 2**31 - 1)``, and no seeds at all random
ones for each initialization.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

from adapters.v1.data.dataset_ops import DatasetV1, Element, Failed, Run, _Unary
from jtrain.random.sample_stream import SampleStream

__all__ = ["ShuffleDataset"]


class ShuffleDataset(_Unary):
    """The shuffled dataset (``DatasetV1.shuffle`` builds it).

    Args:
      input_dataset: the dataset shuffled.
      buffer_size: the buffer's size, > 0.
      seeds: ``(seed, seed2)`` of ``tf.data``'s ``get_seed``; ``(0, 0)``: random seeds
        for each initialization of the iterator.
      reshuffle: TF's ``reshuffle_each_iteration``.
    """

    def _cardinality(self, run: Run) -> int:
        return self._input._cardinality(run)

    def __init__(
        self,
        input_dataset: DatasetV1,
        buffer_size: int,
        seeds: tuple[int, int],
        reshuffle: bool,
    ):
        super().__init__(input_dataset)
        self._size = buffer_size
        self._seeds = seeds
        self._reshuffle = reshuffle

    def _pass_seeds(self, run: Run) -> tuple[int, int]:
        """The seeds of this pass over the input (see the module)."""
        seeds = run.states.get((self, "seeds"))
        if seeds is None:  # the iterator's first pass
            seeds = self._seeds
            if seeds == (0, 0):  # TF's kernel: random::New64() twice
                seeds = (secrets.randbits(64), secrets.randbits(64))
            run.states[(self, "seeds")] = seeds
        if not self._reshuffle:
            return seeds
        generator = run.states.get((self, "generator"))
        if generator is None:
            generator = run.states[(self, "generator")] = SampleStream(*seeds)
        return generator(), generator()

    def _elements(self, run: Run) -> Iterator[Element]:
        draw = SampleStream(*self._pass_seeds(run))
        buffer: list[Any] = []  # the live range, ``start`` first
        start = 0
        source = self._input._elements(run)
        exhausted = False
        while True:
            while not exhausted and len(buffer) - start < self._size:
                element = next(source, None)
                if element is None:
                    exhausted = True
                elif isinstance(element, Failed):
                    yield element  # as TF's: the error when it comes, the buffer kept
                else:
                    buffer.append(element)
            if len(buffer) == start:
                return
            index = start + draw() % (len(buffer) - start)
            out = buffer[index]
            buffer[index] = buffer[start]
            buffer[start] = None
            start += 1
            if start > 1024 and start * 2 > len(buffer):  # drop the consumed head
                del buffer[:start]
                start = 0
            yield out
