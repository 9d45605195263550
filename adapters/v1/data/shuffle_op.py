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
import sys
from collections.abc import Iterator
from typing import Any

from adapters.v1.data.dataset_ops import (
    UNKNOWN_CARDINALITY,
    Count,
    DatasetV1,
    Element,
    Failed,
    Run,
    _Unary,
    _value_at,
)
from adapters.v1.framework import ops
from jtrain import errors
from jtrain.random.sample_stream import SampleStream

__all__ = ["ShuffleDataset"]


class ShuffleDataset(_Unary):
    """The shuffled dataset (``DatasetV1.shuffle`` builds it).

    Args:
      input_dataset: the dataset shuffled.
      buffer_size: the buffer's size, > 0 or ``UNKNOWN_CARDINALITY`` (a buffer as
        large as the input): an int, or a ``tf.int64`` scalar tensor read when the
        iterator starts.
      seeds: ``(seed, seed2)`` of ``tf.data``'s ``get_seed``; ``(0, 0)``: random seeds
        for each initialization of the iterator.
      reshuffle: TF's ``reshuffle_each_iteration``.
    """

    def _cardinality(self, run: Run) -> int:
        return self._input._cardinality(run)

    def __init__(
        self,
        input_dataset: DatasetV1,
        buffer_size: Count,
        seeds: tuple[int, int],
        reshuffle: bool,
    ):
        super().__init__(input_dataset)
        self._size_arg = buffer_size
        self._seeds = seeds
        self._reshuffle = reshuffle

    def _captures(self) -> list[ops.Tensor]:
        return [self._size_arg] if isinstance(self._size_arg, ops.Tensor) else []

    def _check_args(self, run: Run) -> None:
        self._size(run)

    def _size(self, run: Run) -> int:
        """The buffer's size in ``run``.

        Raises:
          InvalidArgumentError: a size of zero or less other than
            ``UNKNOWN_CARDINALITY``, TF's message.
        """
        size = int(_value_at(run, self._size_arg, "buffer_size"))
        if size == UNKNOWN_CARDINALITY:  # TF: a buffer as large as the input
            return sys.maxsize
        if size <= 0:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"
            )
        return size

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
        size = self._size(run)
        draw = SampleStream(*self._pass_seeds(run))
        buffer: list[Any] = []  # the live range, ``start`` first
        start = 0
        source = self._input._elements(run)
        exhausted = False
        while True:
            while not exhausted and len(buffer) - start < size:
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
