"""``tf.keras.preprocessing.sequence`` as TF 2.21's legacy Keras
(``tf_keras/preprocessing/sequence.py``): ``pad_sequences``, ``TimeseriesGenerator``,
``make_sampling_table`` and ``skipgrams``.

.. note:: ``skipgrams`` draws from Python's global ``random`` (and reseeds it with
   ``seed`` when shuffling), ``TimeseriesGenerator(shuffle=True)`` from NumPy's global
   stream, as Keras': seeding them gives TF's results.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras.data_utils import Sequence, pad_sequences

__all__ = ["TimeseriesGenerator", "make_sampling_table", "pad_sequences", "skipgrams"]


class TimeseriesGenerator(Sequence):
    """Batches of windows over a time series: sample ``i`` is
    ``data[row - length:row:sampling_rate]`` with target ``targets[row]``.

    Args (TF's defaults):
      data: the series (indexable, first axis time).
      targets: one target per time step (``len(data)`` of them).
      length: the window's length in time steps (before sampling).
      sampling_rate=1: the step between the window's time steps.
      stride=1: the step between two windows' rows.
      start_index=0, end_index=None (``len(data) - 1``): the rows used (the first
        row is ``start_index + length``).
      shuffle=False: random rows (NumPy's global stream) instead of in order.
      reverse=False: each window's time steps reversed.
      batch_size=128: windows per batch.

    Raises:
      ValueError: ``data`` and ``targets`` of different lengths, no row left
        (TF's messages).
    """

    def __init__(
        self,
        data: Any,
        targets: Any,
        length: int,
        sampling_rate: int = 1,
        stride: int = 1,
        start_index: int = 0,
        end_index: int | None = None,
        shuffle: bool = False,
        reverse: bool = False,
        batch_size: int = 128,
    ):
        if len(data) != len(targets):
            raise ValueError(
                f"Data and targets have to be of same length. Data length is {len(data)} "
                f"while target length is {len(targets)}"
            )
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError(
                f"`start_index+length={int(self.start_index)} > "
                f"end_index={int(self.end_index)}` is disallowed, as no part of the "
                "sequence would be left to be used as current step."
            )

    def __len__(self) -> int:
        span = self.batch_size * self.stride
        return int((self.end_index - self.start_index + span) // span)

    def __getitem__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """Batch ``index``: ``(windows, targets)``."""
        if self.shuffle:
            rows = np.random.randint(  # noqa: NPY002 (Keras' global stream)
                self.start_index, self.end_index + 1, size=self.batch_size
            )
        else:
            first = self.start_index + self.batch_size * self.stride * index
            last = min(first + self.batch_size * self.stride, self.end_index + 1)
            rows = np.arange(first, last, self.stride)
        samples = np.array(
            [self.data[row - self.length : row : self.sampling_rate] for row in rows]
        )
        targets = np.array([self.targets[row] for row in rows])
        return (samples[:, ::-1, ...], targets) if self.reverse else (samples, targets)

    def get_config(self) -> dict[str, Any]:
        """The arguments, ``data`` and ``targets`` as JSON strings (``start_index``
        already includes ``length``, as TF's).

        Raises:
          TypeError: data or targets that JSON cannot hold (TF's message).
        """

        def as_json(value: Any, what: str) -> str:
            if type(value).__module__ == np.__name__:
                value = value.tolist()
            try:
                return json.dumps(value)
            except TypeError as e:
                raise TypeError(f"{what} not JSON Serializable:", value) from e

        return {
            "data": as_json(self.data, "Data"),
            "targets": as_json(self.targets, "Targets"),
            "length": self.length,
            "sampling_rate": self.sampling_rate,
            "stride": self.stride,
            "start_index": self.start_index,
            "end_index": self.end_index,
            "shuffle": self.shuffle,
            "reverse": self.reverse,
            "batch_size": self.batch_size,
        }

    def to_json(self, **kwargs: Any) -> str:
        """``{'class_name': 'TimeseriesGenerator', 'config': get_config()}`` as JSON
        (``kwargs`` go to ``json.dumps``)."""
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> np.ndarray:
    """Word2vec's sampling probabilities for word ranks ``0..size-1`` (Zipf's law
    frequencies, Keras' formula): a float64 array of ``size``.

    Args (TF's defaults): size, sampling_factor=1e-5.
    """
    rank = np.arange(size)
    rank[0] = 1
    inverse_frequency = rank * (np.log(rank) + 0.577) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inverse_frequency
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(
    sequence: Any,
    vocabulary_size: int,
    window_size: int = 4,
    negative_samples: float = 1.0,
    shuffle: bool = True,
    categorical: bool = False,
    sampling_table: Any = None,
    seed: int | None = None,
) -> tuple[list[list[int]], list[Any]]:
    """Skip-gram pairs of word indices (0 is skipped) and their labels.

    Args (TF's defaults):
      sequence: word indices.
      vocabulary_size: the number of words (negatives are drawn from 1..size-1).
      window_size=4: the context on each side.
      negative_samples=1.0: negative pairs per positive one.
      shuffle=True: shuffle the pairs and labels alike (``random.seed(seed)`` twice).
      categorical=False: labels ``[0, 1]``/``[1, 0]`` instead of ``1``/``0``.
      sampling_table=None: keep word ``w`` with probability ``sampling_table[w]``.
      seed=None: the shuffle's seed (drawn from ``random`` when None).

    Returns:
      ``(couples, labels)``: lists of ``[word, context]`` and of labels.
    """
    couples: list[list[int]] = []
    labels: list[Any] = []
    for i, word in enumerate(sequence):
        if not word:
            continue
        if sampling_table is not None and sampling_table[word] < random.random():  # noqa: S311
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([word, sequence[j]])
                labels.append([0, 1] if categorical else 1)
    if negative_samples > 0:
        count = int(len(labels) * negative_samples)
        words = [couple[0] for couple in couples]
        random.shuffle(words)
        couples += [
            [words[i % len(words)], random.randint(1, int(vocabulary_size - 1))]  # noqa: S311
            for i in range(count)
        ]
        labels += [[1, 0] if categorical else 0 for _ in range(count)]
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(10e6))  # noqa: S311
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels


__getattr__ = missing_name_getattr("tf.keras.preprocessing.sequence", globals())
