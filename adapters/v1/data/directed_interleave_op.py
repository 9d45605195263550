"""``choose_from_datasets`` and ``sample_from_datasets``: elements taken from several
datasets, the next one's index given by a selector dataset (TF's
``DirectedInterleaveDataset``).

Each selector element names the dataset the next element comes from. A dataset that
has ended ends the whole dataset with ``stop_on_empty_dataset``; otherwise the
selections naming it are skipped, and the dataset ends when the selector or every
dataset has. ``sample_from_datasets``'s selector draws the indices at random with
the given weights.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import DatasetV1, Element, Failed, Run
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes, ops
from jtrain import errors

__all__ = ["DirectedInterleave", "choose_from_datasets", "sample_from_datasets"]


def _check_datasets(datasets: Any) -> list[DatasetV1]:
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    return list(datasets)


class DirectedInterleave(DatasetV1):
    """The elements of ``datasets`` in the order ``selector``'s indices give."""

    def __init__(self, selector: DatasetV1, datasets: list[DatasetV1], stop_on_empty: bool):
        self._selector = selector
        self._datasets = datasets
        self._stop = bool(stop_on_empty)
        first = datasets[0]._structure
        merged = first
        for i, d in enumerate(datasets[1:]):
            other = d._structure
            compatible = structure.same_structure(first, other) and all(
                a.dtype == b.dtype
                for a, b in zip(structure.flatten(merged), structure.flatten(other), strict=True)
            )
            if not compatible:
                raise TypeError(
                    "Invalid `datasets`. `datasets` must have compatible element specs.\n "
                    f"Dataset 0 element_spec={structure.spec_repr(first)}.\n"
                    f"Dataset {i + 1} element_spec={structure.spec_repr(other)}."
                )
            merged = structure.map_structure(
                lambda a, b: Spec(a.shape.most_specific_compatible_shape(b.shape), a.dtype),
                merged,
                other,
            )
        self._structure = merged

    def _inputs(self) -> list[DatasetV1]:
        return [self._selector, *self._datasets]

    def _elements(self, run: Run) -> Iterator[Element]:
        inputs: list[Iterator[Element] | None] = [d._elements(run) for d in self._datasets]
        active = len(inputs)
        for choice in self._selector._elements(run):
            if isinstance(choice, Failed):
                yield choice
                continue
            index = int(choice[0])
            if not 0 <= index < len(inputs):
                raise errors.InvalidArgumentError(
                    None, None, f"Selector index out of range: {index} >= {len(inputs)}"
                )
            source = inputs[index]
            if source is None:
                continue  # an ended dataset's selections are skipped
            element = next(source, None)
            if element is not None:
                yield element
                continue
            if self._stop:
                return
            inputs[index] = None
            active -= 1
            if active == 0:
                return


def choose_from_datasets(
    datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool = True
) -> DatasetV1:
    """The elements of ``datasets`` in the order ``choice_dataset``'s ``tf.int64``
    scalars give (see ``Dataset.choose_from_datasets``)."""
    datasets = _check_datasets(datasets)
    if not isinstance(choice_dataset, DatasetV1):
        raise TypeError(
            "Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but is "
            f"{type(choice_dataset)}."
        )
    spec = choice_dataset._structure
    if (
        not isinstance(spec, Spec)
        or spec.dtype != dtypes.int64
        or not spec.shape.is_compatible_with([])
    ):
        raise TypeError(
            "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
            f"tensors but are {structure.spec_repr(spec)}."
        )
    return DirectedInterleave(choice_dataset, datasets, stop_on_empty_dataset)


class _RandomChoices(DatasetV1):
    """Endless indices drawn with probabilities proportional to ``weights`` (a list
    of floats, or a float tensor read when a pass starts), from a NumPy generator of
    the op's seeds (fresh for each pass)."""

    def __init__(self, weights: Any, seeds: tuple[Any, Any]):
        self._weights = weights
        self._seeds = seeds
        self._structure = Spec.of((), dtypes.int64)

    def _captures(self) -> list[ops.Tensor]:
        return [self._weights] if isinstance(self._weights, ops.Tensor) else []

    def _elements(self, run: Run) -> Iterator[Element]:
        w = self._weights
        p = np.asarray(run.known[w] if isinstance(w, ops.Tensor) else w, dtype=np.float64)
        if p.ndim != 1 or not np.all(p >= 0) or not p.sum() > 0:
            raise errors.InvalidArgumentError(
                None, None, f"sample_from_datasets: the weights must be >= 0, not all 0: {p}"
            )
        p = p / p.sum()
        seed = None if self._seeds == (None, None) else [s for s in self._seeds if s is not None]
        rng = np.random.default_rng(seed)
        while True:
            for i in rng.choice(len(p), size=256, p=p):
                yield (np.asarray(i, np.int64),)


def sample_from_datasets(
    datasets: Any,
    weights: Any = None,
    seed: int | None = None,
    stop_on_empty_dataset: bool = False,
    rerandomize_each_iteration: bool | None = None,
) -> DatasetV1:
    """Elements of ``datasets`` drawn at random with ``weights`` (see
    ``Dataset.sample_from_datasets``)."""
    from adapters.v1.ops.random_ops import get_seed

    datasets = _check_datasets(datasets)
    if isinstance(weights, DatasetV1):
        raise NotImplementedError(
            "sample_from_datasets with a dataset of weights is not in adapters.v1: give the "
            "weights as a list or a tensor"
        )
    if weights is None:
        weights = [1.0] * len(datasets)
    elif isinstance(weights, ops.Tensor) or hasattr(weights, "_as_graph_tensor"):
        weights = ops.convert_to_tensor(weights)
        if not weights.shape.is_compatible_with([len(datasets)]):
            raise ValueError(
                "Invalid `weights`. The shape of `weights` should be compatible with "
                f"`[len(datasets)]` but is {weights.shape}."
            )
        if weights.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(
                "Invalid `weights`. `weights` type must be either `tf.float32` or "
                f"`tf.float64` but is {weights.dtype!r}."
            )
    else:
        if len(datasets) != len(weights):
            raise ValueError(
                "Invalid `weights`. `weights` should have the same length as `datasets` but "
                f"got `len(weights)={len(weights)}` vs. `len(datasets)={len(datasets)}`."
            )
        kept = [(d, w) for d, w in zip(datasets, weights, strict=True) if w > 0]
        datasets = [d for d, _ in kept] or [datasets[0].take(0)]
        weights = [w for _, w in kept] or [1.0]
        kind = np.asarray(weights).dtype
        if kind.kind != "f":
            name = "int32" if kind.kind in "iu" else kind.name
            raise TypeError(
                "Invalid `weights`. `weights` type must be either `tf.float32` or "
                f"`tf.float64` but is <dtype: '{name}'>."
            )
    if len(datasets) == 1:
        return datasets[0]
    return DirectedInterleave(
        _RandomChoices(weights, get_seed(seed)), datasets, stop_on_empty_dataset
    )
