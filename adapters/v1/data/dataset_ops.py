"""``tf.data.Dataset`` for TF1 graph mode: a Python pipeline over NumPy values.

A dataset describes its elements (``output_types``, ``output_shapes``) and how to
produce them; an iterator (``iterator_ops.py``) runs that description in each
session, in Python, before the step's XLA program, and its ``get_next()`` is a
host operation whose values enter the program as feeds do (as a queue's
``dequeue``). Elements travel flat, as tuples of NumPy arrays (strings as object
arrays of ``bytes``); ``structure.py`` nests them.

Functions given to ``map`` and ``filter`` build TF ops on tensors standing for one
element (or one batch, after ``batch``), as TF traces them; each element runs
through that subgraph on the host (``host_graph.py``).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.host_graph import HostGraph
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops.constant_op import literal_array
from jtrain import errors

__all__ = ["Dataset", "DatasetV1", "Run", "AUTOTUNE", "INFINITE_CARDINALITY"]

_log = logging.getLogger(__name__)

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
_ALL = 2**62  # a buffer size no dataset fills
# Elements a ``map`` whose function has a batch form maps at a time (``_Map._chunked``).
MAP_CHUNK = 64

Element = tuple[np.ndarray, ...]

# TF's Dataset methods jtrain does not have, and what to use instead.
_ABSENT = {
    "element_spec": "use output_types/output_shapes (TF1's properties)",
}
for _name in (
    "fingerprint from_sparse_tensor_slices load ragged_batch "
    "rebatch rejection_resample save sparse_batch unique"
).split():
    _ABSENT[_name] = (
        "build it from map, filter, batch, interleave, flat_map, from_generator, zip, "
        "enumerate and take_while"
    )


class Run:
    """One initialization of an iterator in a session: the values its pipeline reads.

    Args:
      session: the session the iterator runs in.
      known: values of the graph's tensors the pipeline reads (fed placeholders and
        the captured tensors, evaluated when the iterator was initialized).
    """

    def __init__(self, session: Any, known: dict[ops.Tensor, Any]):
        self.session = session
        self.known = known
        # The random generators' states of map functions, and each dataset's own
        # per-run state (a shuffle's generator, a cache's elements), by key.
        self.random_states: dict[Any, Any] = {}
        self.states: dict[Any, Any] = {}
        # The datasets that pass an element's error on as a ``Failed`` element (the
        # pipeline goes on after it, as TF's does) rather than raising it.
        self.markers: frozenset[Any] = frozenset()

    def call(self, fn: HostGraph, values: Element) -> list[np.ndarray]:
        """``fn``'s outputs for ``values``."""
        return fn(self.session, values, self.known, self.random_states)

    def failure(self, dataset: Any, error: Exception) -> Failed:
        """``error`` of one element of ``dataset``: a ``Failed`` element where the
        datasets above pass it on, else raised."""
        if dataset not in self.markers:
            raise error
        return Failed.of(error)


class Failed(tuple):
    """An element whose making failed (its ``error``), passed on in its place: the
    iterator raises it at that ``get_next``, ``ignore_errors`` drops it, and the
    pipeline goes on with the next element, as TF's does."""

    error: Exception

    @staticmethod
    def of(error: Exception) -> Failed:
        failed = Failed()
        failed.error = error
        return failed


def _component(value: Any) -> np.ndarray | ops.Tensor:
    """A component as given: a graph tensor, or a NumPy array by TF's literal rules."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        return ops.convert_to_tensor(value)
    if isinstance(value, (ops.Operation, Dataset)) or value is None:
        raise TypeError(f"Dataset components must be tensors or NumPy values, got {value!r}")
    return literal_array(value)


def _spec_of(value: np.ndarray | ops.Tensor) -> Spec:
    if isinstance(value, ops.Tensor):
        return Spec.of(value.shape, value.dtype)
    return Spec.of(value.shape, dtypes.string if value.dtype.kind == "O" else value.dtype)


def _as_count(value: Any, what: str) -> int:
    """A Python int from an int or a constant tensor (``batch_size``, ``count``...).

    Raises:
      TypeError: a Python value that is not an integer (TF's ``tf.int64`` conversion:
        ``Expected int64, but got 2.0 of type 'float'.``).
      ValueError: a tensor that is not ``tf.int64``, TF's message prefixed with ``what``.
      NotImplementedError: a tensor known only when the graph runs.
    """
    if isinstance(value, ops.Tensor):
        from adapters.v1.framework.tensor_util import get_static_value

        if value.dtype != dtypes.int64:
            raise ValueError(
                f"{what}: Tensor conversion requested dtype int64 for Tensor with dtype "
                f"{value.dtype.name}: {value!r}"
            )
        static = get_static_value(value)
        if static is None:
            raise NotImplementedError(
                f"{what} must be known when the graph is built (a Python int or a constant)"
            )
        value = static
    elif not hasattr(value, "_as_graph_tensor"):
        value = literal_array(value, np.int64)  # TF's int64 conversion of a literal
    return int(value)


Count = int | ops.Tensor  # an argument known now, or the scalar tensor giving it


def _count_arg(value: Any, what: str, op: str) -> Count:
    """A ``tf.int64`` scalar argument (``batch_size``, ``count``...) as TF converts it:
    a Python int when it is known now (a Python or NumPy value, a constant), else the
    tensor itself, read when the iterator starts (a placeholder fed to its initializer,
    a tensor computed from one, an ``interleave`` element).

    Args:
      value: the argument.
      what: its name, as TF's messages give it.
      op: TF's dataset op taking it (named in the rank error).

    Raises:
      TypeError: a Python value that is not an integer (TF's ``tf.int64`` conversion).
      ValueError: a tensor that is not ``tf.int64`` (TF's message prefixed with
        ``what``), or not a scalar (TF's shape function's message).
    """
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        from adapters.v1.framework.tensor_util import get_static_value

        tensor = ops.convert_to_tensor(value)
        if tensor.dtype != dtypes.int64:
            raise ValueError(
                f"{what}: Tensor conversion requested dtype int64 for Tensor with dtype "
                f"{tensor.dtype.name}: {tensor!r}"
            )
        rank = tensor.shape.rank
        if rank is not None and rank != 0:
            raise ValueError(
                f"Shape must be rank 0 but is rank {rank} for '{{{{node {op}}}}}' ({what}: "
                f"{tensor!r})"
            )
        static = get_static_value(tensor)
        if static is None:
            return tensor
        return int(static)
    return int(literal_array(value, np.int64))  # TF's int64 conversion of a literal


def _parallel_calls(value: Any, op: str) -> Count | None:
    """A ``num_parallel_calls`` argument: ``None``, or a ``tf.int64`` scalar argument."""
    return None if value is None else _count_arg(value, "num_parallel_calls", op)


def _bool_arg(value: Any, what: str) -> bool | ops.Tensor:
    """A ``tf.bool`` scalar argument (``drop_remainder``): a Python bool when known now,
    else the tensor, read when the iterator starts.

    Raises:
      ValueError: a tensor that is not ``tf.bool`` (TF's message prefixed with ``what``).
    """
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        from adapters.v1.framework.tensor_util import get_static_value

        tensor = ops.convert_to_tensor(value)
        if tensor.dtype != dtypes.bool:
            raise ValueError(
                f"{what}: Tensor conversion requested dtype bool for Tensor with dtype "
                f"{tensor.dtype.name}: {tensor!r}"
            )
        static = get_static_value(tensor)
        return tensor if static is None else bool(static)
    return bool(value)


def _value_at(run: Run, value: Any, what: str) -> Any:
    """An argument's value in ``run``: itself, or its tensor's value when the iterator
    started (a Python int or bool).

    Raises:
      InvalidArgumentError: the tensor's value is not a scalar (TF's kernels'
        ``ParseScalarArgument``).
    """
    if not isinstance(value, ops.Tensor):
        return value
    arr = np.asarray(run.known[value])
    if arr.ndim:
        raise errors.InvalidArgumentError(None, None, f"{what} must be a scalar")
    return arr.item()


def refuse_tensor(value: Any) -> None:
    """TF's ``TypeError`` for a tensor where TF makes a constant of a Python value
    (``parallel_interleave``'s and the readers' defaults computed from their
    arguments).

    Raises:
      TypeError: ``value`` is a tensor.
    """
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        raise TypeError(f"Expected int64, but got {value!r} of type 'SymbolicTensor'.")


def check_arguments(dataset: DatasetV1, run: Run) -> None:
    """TF's checks of ``dataset``'s and its inputs' arguments (inputs first), with
    ``run``'s values: TF's dataset kernels make their datasets when the iterator starts
    (the initializer's run, a one-shot iterator's first ``get_next``) and refuse bad
    arguments then.

    Raises:
      InvalidArgumentError: an argument out of range, TF's message.
    """
    for d in reversed(dataset._all()):
        d._check_args(run)


def _cast(value: Any, spec: Spec) -> np.ndarray:
    """``value`` as a NumPy array of ``spec``'s dtype."""
    arr = np.asarray(value)
    want = spec.np_dtype
    return arr if arr.dtype == want else arr.astype(want)


class DatasetV1(structure.Structured):
    """A sequence of elements, each a nested structure of tensors (``tf.compat.v1.data.Dataset``).

    Make one with ``from_tensor_slices``, ``from_tensors``, ``range``, ``zip``,
    ``from_generator``, ``list_files`` or a reader (``TFRecordDataset``,
    ``TextLineDataset``); transform it with ``map``, ``filter``, ``batch``,
    ``padded_batch``, ``unbatch``, ``shuffle``, ``repeat``, ``take``, ``skip``,
    ``shard``, ``cache``, ``prefetch``, ``concatenate``, ``flat_map``, ``interleave``
    and ``apply``; read it through an iterator (``make_one_shot_iterator``,
    ``make_initializable_iterator``), ``reduce`` or ``get_single_element``.
    """

    _structure: Any  # nested Specs

    # -- what subclasses define --------------------------------------------------------
    def _inputs(self) -> list[DatasetV1]:
        """The datasets this one reads."""
        return []

    def _captures(self) -> list[ops.Tensor]:
        """Graph tensors this dataset itself reads (evaluated when an iterator starts)."""
        return []

    def _functions(self) -> list[HostGraph]:
        """Its functions (``map``'s, ``filter``'s), for the placeholders they read."""
        return []

    def _placeholders(self) -> list[ops.Tensor]:
        """The graph's placeholders this dataset itself reads (its functions' and
        nested datasets'): fed with an initializable iterator's initializer."""
        return [t for f in self._functions() for t in f.placeholders]

    def _elements(self, run: Run) -> Iterator[Element]:
        """The elements, flat, for one pass."""
        raise NotImplementedError

    def _check_args(self, run: Run) -> None:
        """TF's checks of this dataset's own arguments when an iterator starts
        (``check_arguments``)."""

    def _stateful_node(self) -> str | None:
        """The type of the stateful node TF's dataset holds (a one-shot iterator
        refuses it), or None."""
        return None

    def _flat_specs(self) -> list[Spec]:
        return structure.flatten(self._structure)

    def _cardinality(self, run: Run) -> int:
        """The number of elements as TF's kernels compute it (``INFINITE_CARDINALITY``,
        ``UNKNOWN_CARDINALITY``), with the run's values of the tensors read."""
        return UNKNOWN_CARDINALITY

    def __iter__(self) -> Any:
        raise RuntimeError(
            "`tf.data.Dataset` only supports Python-style iteration in eager mode or within "
            "tf.function: in TF1 graph mode use an iterator "
            "(dataset.make_one_shot_iterator().get_next())."
        )

    def as_numpy_iterator(self) -> Any:
        """TF's ``RuntimeError``: in TF1 graph mode iterate with an iterator's
        ``get_next()`` and ``sess.run``.

        Raises:
          RuntimeError: always (graph mode), as TF.
        """
        raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")

    def __getattr__(self, name: str) -> Any:
        if name in _ABSENT:
            raise AttributeError(f"tf.data.Dataset.{name} is not in adapters.v1; {_ABSENT[name]}")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    # -- sources -----------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> DatasetV1:
        """The slices of ``tensors`` along their first dimension, one element each.

        Args:
          tensors: a nested structure (tuples, dicts) of arrays, lists or tensors,
            all with the same first dimension.
          name: unused (TF's op name).

        Raises:
          ValueError: components of different first dimensions, or a scalar.
        """
        return _TensorSource(tensors, sliced=True)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> DatasetV1:
        """A dataset of one element, ``tensors`` (a nested structure of tensors).

        Args:
          tensors: a nested structure (tuples, dicts) of arrays, lists or tensors.
          name: unused (TF's op name).
        """
        return _TensorSource(tensors, sliced=False)

    @staticmethod
    def range(*args: Any, output_type: Any = dtypes.int64, name: str | None = None) -> DatasetV1:
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)`` as
        scalars of ``output_type`` (default ``tf.int64``), as Python's ``range``.

        Raises:
          ValueError: no argument, more than three, or a zero step.
        """
        return _Range(args, output_type)

    @staticmethod
    def zip(datasets: Any, name: str | None = None) -> DatasetV1:
        """Elements of ``datasets`` (a nested tuple or dict of datasets) side by side,
        as long as the shortest.

        Raises:
          TypeError: ``datasets`` holds something that is not a dataset.
        """
        return _Zip(datasets)

    @staticmethod
    def counter(
        start: Any = 0, step: Any = 1, dtype: Any = dtypes.int64, name: str | None = None
    ) -> DatasetV1:
        """``start, start + step, start + 2 * step...`` forever, as scalars of ``dtype``
        (default ``tf.int64``); of ``tf.int64``, ``start`` and ``step`` may be tensors
        (fed placeholders), read when the iterator starts."""
        if dtypes.as_dtype(dtype) == dtypes.int64:
            return _Counter(
                _count_arg(start, "start", "ScanDataset"),
                _count_arg(step, "step", "ScanDataset"),
                dtype,
            )
        return _Counter(_as_count(start, "start"), _as_count(step, "step"), dtype)

    @staticmethod
    def random(
        seed: int | None = None,
        rerandomize_each_iteration: bool | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """Pseudorandom ``tf.int64`` scalars in ``[0, 2**32)``, forever: TF's values for
        the same seeds (see ``random_op``).

        Args:
          seed: the op seed (the graph seed's rules; neither: random seeds).
          rerandomize_each_iteration: new values for each pass (epoch of a ``repeat``)
            from a seed generator (default ``None``: the same values each pass).
          name: unused (TF's op name).

        .. note:: With ``rerandomize_each_iteration``, TF's dataset holds a seed
           generator (a stateful node): read it with ``make_initializable_iterator``;
           ``make_one_shot_iterator`` raises TF's ``ValueError``.
        """
        from adapters.v1.data.random_op import RandomDataset

        return RandomDataset.of_method(seed, rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(
        datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool = True
    ) -> DatasetV1:
        """The elements of ``datasets``, each from the dataset ``choice_dataset``'s next
        ``tf.int64`` scalar names.

        Args:
          datasets: datasets of compatible elements (the same structure and dtypes).
          choice_dataset: a dataset of ``tf.int64`` scalars in ``[0, len(datasets))``.
          stop_on_empty_dataset: end when a chosen dataset has ended (default True);
            False: skip the choices of ended datasets, and end when every dataset or
            the choices have.

        Raises:
          ValueError: no ``datasets``.
          TypeError: ``choice_dataset`` is not a dataset of ``tf.int64`` scalars, or
            the datasets' elements are not compatible.
          InvalidArgumentError: at ``get_next``, a choice out of range.
        """
        from adapters.v1.data.directed_interleave_op import choose_from_datasets

        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(
        datasets: Any,
        weights: Any = None,
        seed: int | None = None,
        stop_on_empty_dataset: bool = False,
        rerandomize_each_iteration: bool | None = None,
    ) -> DatasetV1:
        """Elements of ``datasets``, each from a dataset drawn at random with
        probabilities proportional to ``weights``.

        Args:
          datasets: datasets of compatible elements.
          weights: one float per dataset (a list, or a ``tf.float32``/``tf.float64``
            tensor); default: uniform. A dataset of zero (list) weight is left out.
          seed: the op seed (with the graph seed, TF's ``get_seed`` rules); none and
            no graph seed: different draws each run.
          stop_on_empty_dataset: end when a drawn dataset has ended (default False:
            draw again among the others, end when all have ended).
          rerandomize_each_iteration: accepted; each pass (each epoch of a ``repeat``
            over it) draws from the seeds anew, the same draws for the same seeds.

        Raises:
          ValueError: no ``datasets``, or weights of another length.
          TypeError: integer weights, or incompatible datasets.
          NotImplementedError: ``weights`` given as a dataset.

        .. note:: The draws are NumPy's, not TF's (TF's stateless multinomial over
           its Philox stream is not reproduced): what is kept is the distribution,
           each dataset's own order, the end (as TF's), and the same sequence for
           the same seeds. One dataset left: that dataset itself, as TF.
        """
        from adapters.v1.data.directed_interleave_op import sample_from_datasets

        return sample_from_datasets(
            datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration
        )

    # -- transformations -----------------------------------------------------------------
    def map(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """Applies ``map_func`` to each element.

        Args:
          map_func: builds TF ops on the element's tensors (tuple elements are passed
            as separate arguments) and returns a nested structure of tensors (a list
            is taken as a tuple); it runs once, when ``map`` is called.
          num_parallel_calls: accepted (``tf.data.experimental.AUTOTUNE`` too, or a
            ``tf.int64`` tensor fed to the initializer); the pipeline is one Python
            thread: elements are mapped one after another, in order.
          deterministic: accepted (the order is always the input's).
          name: unused (TF's op name).

        Raises:
          ValueError: a ``num_parallel_calls`` tensor that is not a ``tf.int64`` scalar.
          InvalidArgumentError: when the iterator starts, ``num_parallel_calls`` of 0
            or below -1 (``AUTOTUNE``), as TF.
          NotImplementedError: the function reads a variable or returns a
            ``SparseTensor``.
        """
        return _Map(self, map_func, _parallel_calls(num_parallel_calls, "ParallelMapDatasetV2"))

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> DatasetV1:
        """The elements for which ``predicate`` (TF ops giving a scalar ``tf.bool``) holds.

        Raises:
          ValueError: the predicate does not return a scalar boolean tensor.
        """
        return _Filter(self, predicate)

    def batch(
        self,
        batch_size: Any,
        drop_remainder: bool = False,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """Stacks ``batch_size`` consecutive elements into one.

        Args:
          batch_size: a positive ``tf.int64`` scalar: an int, or a tensor (a placeholder
            fed to the initializer) read when the iterator starts.
          drop_remainder: drop a last batch smaller than ``batch_size`` (a bool, or a
            ``tf.bool`` tensor read when the iterator starts); with a known size and
            True, the batch dimension is static (otherwise ``None``).
          num_parallel_calls: accepted (a tensor too: fed with the initializer),
            unused.
          deterministic: accepted, unused.
          name: unused (TF's op name).

        Raises:
          ValueError: a ``batch_size`` tensor that is not a ``tf.int64`` scalar, or a
            ``drop_remainder`` tensor that is not ``tf.bool``.
          InvalidArgumentError: when the iterator starts, ``batch_size <= 0``; at
            ``get_next``, elements of different shapes.
        """
        return _Batch(
            self,
            _count_arg(batch_size, "batch_size", "BatchDatasetV2"),
            _bool_arg(drop_remainder, "drop_remainder"),
            _parallel_calls(num_parallel_calls, "BatchDatasetV2"),
        )

    def padded_batch(
        self,
        batch_size: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> DatasetV1:
        """As ``batch``, padding each component to ``padded_shapes``.

        Args:
          batch_size: a positive ``tf.int64`` scalar (as ``batch``'s, a tensor too).
          padded_shapes: per component, the shape to pad to (``None`` or ``-1``
            dimensions: the batch's largest; a ``TensorShape``, a list or a
            ``tf.int64`` vector tensor, read when the iterator starts if it is not
            constant); ``None``: every dimension the largest.
          padding_values: per component, the scalar to pad with, of the component's
            dtype by TF's literal rules (``None``: 0, ``b""`` for strings; a scalar
            tensor, read when the iterator starts); one scalar pads every component.
          drop_remainder: as ``batch``.
          name: unused (TF's op name).

        Raises:
          ValueError: a padded shape of another rank than its component's or smaller
            than its static shape; a padding value that is not a scalar.
          TypeError: a padding value of another dtype than its component's (``0`` is
            ``tf.int32``: an int64 component needs ``np.int64(0)``); a padded-shape
            tensor that is not ``tf.int64``.
          InvalidArgumentError: when the iterator starts, ``batch_size <= 0``, a fed
            padded shape that is not a vector or has a dimension below -1, a fed
            padding value that is not a scalar; at ``get_next``, a row of another
            rank than its fed padded shape.

        A row longer than its padded shape raises ``DataLossError`` at its run, as TF.
        """
        return _PaddedBatch(
            self,
            _count_arg(batch_size, "batch_size", "PaddedBatchDatasetV2"),
            padded_shapes,
            padding_values,
            _bool_arg(drop_remainder, "drop_remainder"),
        )

    def repeat(self, count: Any = None, name: str | None = None) -> DatasetV1:
        """The dataset ``count`` times over (``None`` or ``-1``: forever)."""
        return _Repeat(self, -1 if count is None else _count_arg(count, "count", "RepeatDataset"))

    def shuffle(
        self,
        buffer_size: Any,
        seed: int | None = None,
        reshuffle_each_iteration: bool | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """The elements in random order, drawn from a buffer of ``buffer_size``.

        Args:
          buffer_size: how many elements the buffer holds (the dataset's size or more
            for a uniform shuffle; ``tf.data.experimental.UNKNOWN_CARDINALITY``: all of
            them); an int, or a ``tf.int64`` tensor read when the iterator starts.
          seed: the op seed (with the graph seed, TF's ``get_seed`` rules); none and no
            graph seed: a different order each run.
          reshuffle_each_iteration: a new order each epoch of a ``repeat`` after it
            (default True); False repeats the first epoch's order.
          name: unused (TF's op name).

        The order is TF's for the same seeds (TF's kernel and Philox stream: see
        ``adapters/v1/data/shuffle_op.py``).

        Raises:
          ValueError: a ``buffer_size`` tensor that is not a ``tf.int64`` scalar.
          InvalidArgumentError: when the iterator starts, a ``buffer_size`` of zero or
            less other than ``UNKNOWN_CARDINALITY``.
        """
        from adapters.v1.data.shuffle_op import ShuffleDataset
        from adapters.v1.ops.random_ops import get_seed

        size = _count_arg(buffer_size, "buffer_size", "ShuffleDataset")
        graph_seed, op_seed = get_seed(seed)
        seeds = (graph_seed or 0, op_seed or 0)  # tf.data's get_seed: None is 0
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        return ShuffleDataset(self, size, seeds, reshuffle)

    def take(self, count: Any, name: str | None = None) -> DatasetV1:
        """At most the first ``count`` elements (``-1``: all)."""
        return _Take(self, _count_arg(count, "count", "TakeDataset"))

    def skip(self, count: Any, name: str | None = None) -> DatasetV1:
        """All but the first ``count`` elements (``-1``: none)."""
        return _Skip(self, _count_arg(count, "count", "SkipDataset"))

    def prefetch(self, buffer_size: Any, name: str | None = None) -> DatasetV1:
        """The same elements (accepted for TF's pipelines, ``AUTOTUNE`` too: the pipeline
        is one Python thread and makes elements when asked).

        Raises:
          ValueError: a ``buffer_size`` tensor that is not a ``tf.int64`` scalar.
          InvalidArgumentError: when the iterator starts, ``buffer_size`` below -1
            (``AUTOTUNE``, as ``None``), as TF.
        """
        if buffer_size is None:
            return _Same(self)
        return _Prefetch(self, _count_arg(buffer_size, "buffer_size", "PrefetchDataset"))

    def snapshot(
        self,
        path: str,
        compression: str | None = "AUTO",
        reader_func: Callable[..., Any] | None = None,
        shard_func: Callable[..., Any] | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """The same elements; nothing is written to ``path``.

        Args:
          path: the snapshot directory (accepted, not written).
          compression: ``"AUTO"`` (default), ``"GZIP"``, ``"SNAPPY"`` or ``None``
            (accepted).
          reader_func: accepted (jtrain always reads the input).
          shard_func: accepted.
          name: unused (TF's op name).

        .. note:: TF 2.21 writes the elements on a first run under
           ``path/<fingerprint>/<run id>/`` (its ``snapshot.metadata`` and sharded
           ``.snapshot`` files, in its own format keyed by the graph's fingerprint)
           and reads them back on later runs of the same pipeline; jtrain computes
           the input again each time, which gives the same elements for a
           deterministic input. Files a TF run wrote are neither read nor written.
        """
        return _Same(self)

    def cache(self, filename: str = "", name: str | None = None) -> DatasetV1:
        """The elements, kept in memory after the first complete pass (later passes,
        after a ``repeat``, replay them).

        Raises:
          NotImplementedError: a ``filename`` (a cache on disk).
        """
        if filename:
            raise NotImplementedError(
                "Dataset.cache(filename) on disk is not in adapters.v1; use cache() in memory"
            )
        return _Cache(self)

    def concatenate(self, dataset: DatasetV1, name: str | None = None) -> DatasetV1:
        """This dataset's elements, then ``dataset``'s.

        Raises:
          TypeError: the two have different structures or types.
        """
        return _Concatenate(self, dataset)

    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> DatasetV1:
        """The elements of the datasets ``map_func`` makes of each element, one dataset
        after another.

        Args:
          map_func: builds a dataset from the element's tensors (tuple elements as
            separate arguments); it runs once, when ``flat_map`` is called.
          name: unused (TF's op name).

        Raises:
          TypeError: ``map_func`` does not return a dataset.
        """
        from adapters.v1.data.interleave_op import FlatMap

        return FlatMap(self, map_func)

    def interleave(
        self,
        map_func: Callable[..., Any],
        cycle_length: Any = None,
        block_length: Any = None,
        num_parallel_calls: Any = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """The datasets ``map_func`` makes of the elements, interleaved: ``block_length``
        elements from each of ``cycle_length`` open datasets in turn, an exhausted one
        replaced by the next input element's, in TF's order.

        Args:
          map_func: builds a dataset from the element's tensors.
          cycle_length: how many datasets are open at once (default ``None`` and
            ``AUTOTUNE``: as TF, the number of CPUs the process may use; with
            ``num_parallel_calls=AUTOTUNE``, a third of them rounded up; with
            ``num_parallel_calls=n``, at most ``n``); an int, or a ``tf.int64``
            tensor read when the iterator starts.
          block_length: consecutive elements from each (default 1; a tensor too).
          num_parallel_calls: accepted (``AUTOTUNE`` too): it only sets the default
            cycle length as in TF; the pipeline stays one Python thread.
          deterministic: accepted; the order is always TF's deterministic order.
          name: unused (TF's op name).

        Raises:
          TypeError: ``map_func`` does not return a dataset.
          ValueError: a length tensor that is not a ``tf.int64`` scalar.
          InvalidArgumentError: when the iterator starts, a ``cycle_length`` or
            ``block_length`` of zero or less.
        """
        from adapters.v1.data.interleave_op import Interleave

        return Interleave(self, map_func, cycle_length, block_length, num_parallel_calls)

    def unbatch(self, name: str | None = None) -> DatasetV1:
        """Each element split along its first dimension into elements.

        Raises:
          ValueError: a scalar component, or components whose static first
            dimensions differ.
          InvalidArgumentError: at ``get_next``, components of different first sizes.
        """
        return _Unbatch(self)

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> DatasetV1:
        """Every ``num_shards``-th element, from the ``index``-th.

        Args:
          num_shards: a ``tf.int64`` scalar: an int, or a tensor read when the
            iterator starts.
          index: likewise.
          name: unused (TF's op name).

        Raises:
          ValueError: a tensor that is not a ``tf.int64`` scalar.
          InvalidArgumentError: when the iterator starts, ``num_shards <= 0`` or
            ``index`` outside ``[0, num_shards)``.
        """
        return _Shard(
            self,
            _count_arg(num_shards, "num_shards", "ShardDataset"),
            _count_arg(index, "index", "ShardDataset"),
        )

    def window(
        self,
        size: Any,
        shift: Any = None,
        stride: Any = 1,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> DatasetV1:
        """Windows of the elements: each element a dataset per component (TF's
        ``DatasetSpec``), of the input elements ``start + k * stride`` (``k < size``)
        for the starts ``0, shift, 2 * shift...`` before the input's end.

        Args:
          size: elements per window.
          shift: the input elements between two windows' starts (default ``size``).
          stride: the input elements between two elements of a window (default 1).
          drop_remainder: drop the windows smaller than ``size`` (at the end).
          name: unused (TF's op name).

        Each argument may be a tensor (a fed placeholder), read when the iterator
        starts.

        Raises:
          ValueError: a tensor that is not a ``tf.int64`` (``tf.bool``) scalar.
          InvalidArgumentError: when the iterator starts, a ``size``, ``shift`` or
            ``stride`` of zero or less.
          NotImplementedError: a ``map``/``filter``/``reduce``/``scan`` function or an
            iterator reading the windows: read them with ``flat_map`` or
            ``interleave`` (``ds.window(n).flat_map(lambda w: w.batch(n))``), as TF
            pipelines do.
        """
        from adapters.v1.data.window_op import Window

        return Window(self, size, shift, stride, drop_remainder)

    def scan(
        self, initial_state: Any, scan_func: Callable[..., Any], name: str | None = None
    ) -> DatasetV1:
        """``scan_func(state, element) -> (new_state, output)`` run over the elements
        from ``initial_state``: the outputs, the state carried from element to element
        (and started anew at each pass).

        Args:
          initial_state: a nested structure of tensors or values (TF's literal rules).
          scan_func: builds TF ops from the state and one element (two arguments).
          name: unused (TF's op name).

        Raises:
          TypeError: ``scan_func`` does not return a pair, or the new state's dtypes
            or structure differ from the initial state's.

        .. note:: As TF, a state dimension the function changes becomes unknown.
        """
        from adapters.v1.data.scan_op import Scan

        return Scan(self, initial_state, scan_func)

    def group_by_window(
        self,
        key_func: Callable[..., Any],
        reduce_func: Callable[..., Any],
        window_size: Any = None,
        window_size_func: Callable[..., Any] | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """The elements grouped by ``key_func``'s key: each group of ``window_size``
        elements (and at the end each partial group, by increasing key) becomes the
        elements of ``reduce_func(key, group_dataset)``.

        Args:
          key_func: builds a ``tf.int64`` scalar from an element (an ``int32`` tensor
            is an error, as TF's).
          reduce_func: builds a dataset from the key and a dataset of the group's
            elements (read it with ``batch``, ``padded_batch``, ``map``...).
          window_size: the elements per group.
          window_size_func: instead of ``window_size``, the key's ``tf.int64`` window
            size, computed when the key's first element comes.
          name: unused (TF's op name).

        Raises:
          ValueError: both or neither of ``window_size`` and ``window_size_func``, or
            a key or window size that is not a ``tf.int64`` scalar.
          TypeError: ``reduce_func`` does not return a dataset.
          InvalidArgumentError: at ``get_next``, a window size of zero or less.
        """
        from adapters.v1.data.group_by_window_op import GroupByWindow

        return GroupByWindow(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(
        self,
        element_length_func: Callable[..., Any],
        bucket_boundaries: list[int],
        bucket_batch_sizes: list[int],
        padded_shapes: Any = None,
        padding_values: Any = None,
        pad_to_bucket_boundary: bool = False,
        no_padding: bool = False,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> DatasetV1:
        """Batches of elements of similar length: an element of length ``n`` goes to
        the bucket ``i`` with ``bucket_boundaries[i-1] <= n < bucket_boundaries[i]``,
        whose elements are padded and batched ``bucket_batch_sizes[i]`` at a time (TF's
        ``group_by_window``, so partial batches come at the end by increasing bucket).

        Args:
          element_length_func: builds an element's length (an integer scalar).
          bucket_boundaries: increasing upper length boundaries of the buckets.
          bucket_batch_sizes: the batch size of each bucket (one more than the
            boundaries).
          padded_shapes: as ``padded_batch``'s (default: each ``None`` dimension padded
            to the batch's largest).
          padding_values: as ``padded_batch``'s (default 0, ``b""``).
          pad_to_bucket_boundary: pad the unknown dimensions to the bucket's boundary
            minus one (the last bucket then is an error).
          no_padding: ``batch`` instead of ``padded_batch``.
          drop_remainder: drop the partial batches.
          name: unused (TF's op name).

        Raises:
          ValueError: ``len(bucket_batch_sizes) != len(bucket_boundaries) + 1``.
          InternalError: at ``get_next``, with ``pad_to_bucket_boundary``, a batch of
            the last bucket (TF's failed assertion).

        .. note:: The batch dimension is unknown (``None``) even with
           ``drop_remainder``, as TF's (its batch size is a tensor).
        """
        from adapters.v1.data.group_by_window_op import BucketBySequenceLength

        return BucketBySequenceLength(
            self,
            element_length_func,
            bucket_boundaries,
            bucket_batch_sizes,
            padded_shapes,
            padding_values,
            pad_to_bucket_boundary,
            no_padding,
            drop_remainder,
        )

    def cardinality(self) -> ops.Tensor:
        """A ``tf.int64`` scalar tensor: the number of elements as TF computes it
        without reading them (``tf.data.INFINITE_CARDINALITY``, -1, for a ``repeat()``;
        ``tf.data.UNKNOWN_CARDINALITY``, -2, after a ``filter``, a TF1 ``map``, a
        ``flat_map``...), computed on the host when it runs (a fed
        ``from_tensor_slices``' size included)."""
        from adapters.v1.data.iterator_ops import cardinality

        return cardinality(self)

    def unique(self, name: str | None = None) -> DatasetV1:
        """The elements without repeats (each first occurrence, in order); an element
        is one ``tf.int32``, ``tf.int64`` or ``tf.string`` tensor.

        Raises:
          TypeError: a component of another dtype, as TF.
          InvalidArgumentError: at ``get_next``, elements of more than one component.
        """
        return _Unique(self)

    def apply(self, transformation_func: Callable[[DatasetV1], DatasetV1]) -> DatasetV1:
        """``transformation_func(self)`` (a ``tf.data.experimental`` transformation).

        Raises:
          TypeError: ``transformation_func`` does not return a dataset.
        """
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV1):
            raise TypeError(
                "`transformation_func` must return a `tf.data.Dataset` object. "
                f"Got {type(dataset)}."
            )
        return dataset

    @staticmethod
    def from_generator(
        generator: Callable[..., Any],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> DatasetV1:
        """The elements ``generator(*args)`` yields, converted to ``output_types``.

        Each pass (each iterator initialization, each epoch of a ``repeat``) calls
        ``generator`` again.

        Args:
          generator: a callable returning an iterable.
          output_types: the elements' ``DType``s, nested as the elements.
          output_shapes: their shapes, nested likewise (default: unknown shapes).
          args: tensors or values, evaluated when the iterator starts and passed to
            ``generator`` as NumPy values (a scalar as a NumPy scalar).
          output_signature: the elements' ``tf.TensorSpec``s, nested as the elements
            (instead of ``output_types`` and ``output_shapes``: their dtypes and
            shapes, with the same conversions and checks).
          name: unused (TF's op name).

        Raises:
          TypeError: ``generator`` is not callable, no ``output_types`` nor
            ``output_signature``, both, or a signature leaf that is not a ``TypeSpec``.
          NotImplementedError: an ``output_signature`` leaf that is a ``TypeSpec``
            other than ``tf.TensorSpec`` (no other spec in adapters.v1).
          InvalidArgumentError: at ``get_next``, an element that does not match the
            types or shapes (its message TF's ``TypeError``'s); the pipeline goes on.
          UnknownError: at ``get_next``, the generator raised (TF's ``py_func`` classes:
            ``InvalidArgumentError`` for a ``ValueError`` or ``TypeError``...); the next
            ``get_next`` is the end, as TF's.

        .. note:: As TF, an element is converted with NumPy (``np.asarray(value,
           dtype)``: 2.7 yielded for ``tf.int64`` gives 2) when ``output_shapes`` is
           given or the element is a structure; otherwise as ``tf.convert_to_tensor``
           (2.7 for ``tf.int64`` is an error). After a bad element the next
           ``get_next`` goes on with the generator's next one, as TF's.
        """
        from adapters.v1.data.from_generator_op import FromGenerator, signature_types_shapes

        if output_signature is not None:
            output_types, output_shapes = signature_types_shapes(
                output_signature, output_types, output_shapes
            )

        return FromGenerator(generator, output_types, output_shapes, args)

    @staticmethod
    def list_files(
        file_pattern: Any,
        shuffle: bool | None = None,
        seed: int | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """The names of the files matching ``file_pattern`` (a glob or a list of them),
        as scalar strings, listed at each pass (no match: no element, as TF 2.21's
        graph mode gives).

        Args:
          file_pattern: a pattern, a list of them, or a string tensor of them.
          shuffle: shuffle the names (default ``None``: True), every epoch anew.
          seed: the shuffle's op seed.
          name: unused (TF's op name).

        The order is TF's: sorted with ``shuffle=False``; shuffled, TF's order for the
        same seeds (see ``shuffle``).
        """
        names = _ListFiles(file_pattern)
        if shuffle is None or shuffle:
            # TF's buffer holds every name (listed each pass): a buffer as large.
            return names.shuffle(_ALL, seed=seed)
        return names

    def reduce(
        self, initial_state: Any, reduce_func: Callable[..., Any], name: str | None = None
    ) -> Any:
        """Tensors of ``reduce_func(state, element)`` folded over the elements from
        ``initial_state``, nested as it; each run of an op reading them runs the whole
        dataset on the host.

        Args:
          initial_state: a nested structure of tensors or values (TF's literal rules:
            a Python int is ``tf.int32``).
          reduce_func: builds TF ops from the state and one element (passed as two
            arguments) and returns the new state.
          name: unused (TF's op name).

        Returns:
          The final state's tensors; a dimension the function changes is unknown, as
          TF relaxes it.

        Raises:
          TypeError: the new state's structure or dtypes differ from the initial one's.
        """
        from adapters.v1.data.reduce_op import reduce

        return reduce(self, initial_state, reduce_func)

    def enumerate(self, start: Any = 0, name: str | None = None) -> DatasetV1:
        """``(index, element)`` pairs, the ``tf.int64`` index counting from ``start``
        (TF's ``zip((range(start, int64 max), self))``)."""
        return DatasetV1.zip((DatasetV1.range(start, np.iinfo(np.int64).max), self))

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> DatasetV1:
        """The elements up to the first for which ``predicate`` (TF ops giving a scalar
        ``tf.bool``) is False.

        Raises:
          ValueError: the predicate does not return a scalar boolean tensor.
        """
        return _TakeWhile(self, predicate)

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> DatasetV1:
        """The elements, without those whose making failed (see
        ``tf.data.experimental.ignore_errors``)."""
        return IgnoreErrors(self, log_warning)

    def map_with_legacy_function(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
    ) -> DatasetV1:
        """``map`` (TF1's legacy function tracing is the same here)."""
        return self.map(map_func, num_parallel_calls, deterministic)

    def filter_with_legacy_function(self, predicate: Callable[..., Any]) -> DatasetV1:
        """``filter`` (TF1's legacy function tracing is the same here)."""
        return self.filter(predicate)

    def with_options(self, options: Any, name: str | None = None) -> DatasetV1:
        """The same elements, carrying ``options`` (a ``tf.data.Options``) merged over
        the inputs' (see ``options()``).

        Args:
          options: a ``tf.data.Options``.
          name: unused (TF's op name).

        Raises:
          AttributeError: ``options`` is not a ``tf.data.Options`` (TF's class for it).

        .. note:: No option changes jtrain's elements or their order (``options.py``).
        """
        from adapters.v1.data.options import Options

        if not isinstance(options, Options):
            raise AttributeError(
                f"'{type(options).__name__}' object has no attribute '_to_proto': "
                "Dataset.with_options takes a tf.data.Options"
            )
        return _WithOptions(self, options._copy())

    def options(self) -> Any:
        """The dataset's ``tf.data.Options``: its inputs' merged in order, then the ones
        given to ``with_options`` (a later setting wins), read-only as TF's.

        Returns:
          A ``tf.data.Options`` whose setting raises ``ValueError`` (as TF's).
        """
        result = self._merged_options()
        result._set_mutable(False)
        return result

    def _merged_options(self) -> Any:
        from adapters.v1.data.options import Options

        result = Options()
        for d in self._inputs():
            result = result.merge(d._merged_options())
        return result

    def get_single_element(self, name: str | None = None) -> Any:
        """Tensors of the dataset's only element; each run runs the dataset.

        Raises:
          InvalidArgumentError: at run time, no element or more than one.
        """
        from adapters.v1.data.iterator_ops import get_single_element

        return get_single_element(self)

    # -- iterators -----------------------------------------------------------------------
    def make_one_shot_iterator(self) -> Any:
        """An iterator over this dataset, started on its first ``get_next`` in each
        session (no initializer).

        Raises:
          ValueError: the dataset reads a placeholder (use an initializable iterator).
        """
        from adapters.v1.data.iterator_ops import Iterator

        return Iterator._one_shot(self)

    def make_initializable_iterator(self, shared_name: str | None = None) -> Any:
        """An iterator whose ``initializer`` op (re)starts it, reading the
        placeholders the dataset uses from that run's ``feed_dict``."""
        from adapters.v1.data.iterator_ops import Iterator

        return Iterator._initializable(self)

    # -- running (iterator_ops.py) -------------------------------------------------------
    def _all(self) -> list[DatasetV1]:
        """This dataset and every dataset it reads."""
        out = [self]
        for d in self._inputs():
            out.extend(d._all())
        return out


Dataset = DatasetV1


class _TensorSource(DatasetV1):
    """``from_tensor_slices`` / ``from_tensors``: components given as values or tensors."""

    def __init__(self, tensors: Any, sliced: bool):
        if isinstance(tensors, list) and any(structure.is_structure(t) for t in tensors):
            raise TypeError("a list of structures is not a dataset component; use a tuple")
        self._template = tensors
        self._values = [_component(v) for v in structure.flatten(tensors)]
        specs = [_spec_of(v) for v in self._values]
        self._sliced = sliced
        if sliced:
            firsts = set()
            for v, s in zip(self._values, specs, strict=True):
                if s.shape.rank == 0:
                    raise ValueError(f"Unbatching a tensor is only supported for rank >= 1: {v}")
                if s.shape.rank is not None and s.shape._dims[0] is not None:
                    firsts.add(s.shape._dims[0])
            if len(firsts) > 1:
                raise ValueError(
                    "Dimensions of the components must be equal in their first dimension, "
                    f"got {sorted(firsts)}"
                )
            specs = [Spec(_drop_first(s.shape), s.dtype) for s in specs]
        self._structure = structure.pack(tensors, specs)

    def _captures(self) -> list[ops.Tensor]:
        return [v for v in self._values if isinstance(v, ops.Tensor)]

    def _arrays(self, run: Run) -> list[np.ndarray]:
        return [
            _cast(run.known[v] if isinstance(v, ops.Tensor) else v, s)
            for v, s in zip(self._values, self._flat_specs(), strict=True)
        ]

    def _cardinality(self, run: Run) -> int:
        return int(self._arrays(run)[0].shape[0]) if self._sliced else 1

    def _elements(self, run: Run) -> Iterator[Element]:
        arrays = self._arrays(run)
        if not self._sliced:
            yield tuple(arrays)
            return
        sizes = {a.shape[0] for a in arrays}
        if len(sizes) != 1:
            raise errors.InvalidArgumentError(
                None, None, f"All components must have the same size in the 0th dimension: {sizes}"
            )
        for i in range(sizes.pop()):
            yield tuple(a[i, ...] for a in arrays)


def _drop_first(shape: TensorShape) -> TensorShape:
    return shape if shape.rank is None else TensorShape(shape.as_list()[1:])


class _Range(DatasetV1):
    def __init__(self, args: tuple, output_type: Any):
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to Dataset.range: {args}")
        # A tensor argument (a placeholder, an interleave's element) is read when the
        # iterator (or the pass) starts.
        names = ("stop",) if len(args) == 1 else ("start", "stop", "step")
        self._args = [_count_arg(a, n, "RangeDataset") for a, n in zip(args, names, strict=False)]
        self._names = names
        self._structure = Spec.of((), output_type)

    def _captures(self) -> list[ops.Tensor]:
        return [a for a in self._args if isinstance(a, ops.Tensor)]

    def _range(self, run: Run) -> tuple[int, int, int]:
        values = [int(_value_at(run, a, n)) for a, n in zip(self._args, self._names, strict=False)]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (*values, 1)[:3]
        return start, stop, step

    def _check_args(self, run: Run) -> None:
        if self._range(run)[2] == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")

    def _cardinality(self, run: Run) -> int:
        start, stop, step = self._range(run)
        return len(range(start, stop, step)) if step else UNKNOWN_CARDINALITY

    def _elements(self, run: Run) -> Iterator[Element]:
        start, stop, step = self._range(run)
        dtype = self._structure.np_dtype
        for i in range(start, stop, step):
            yield (np.asarray(i, dtype=dtype),)


class _Zip(DatasetV1):
    def __init__(self, datasets: Any):
        flat = structure.flatten(datasets)
        for d in flat:
            if not isinstance(d, DatasetV1):
                raise TypeError(
                    "Invalid `datasets`. `datasets` is expected to be a (nested) structure of "
                    f"`tf.data.Dataset` objects. Python `list` is not supported, got {d!r}"
                )
        self._datasets = flat
        self._structure = structure.pack(datasets, [d._structure for d in flat])

    def _inputs(self) -> list[DatasetV1]:
        return list(self._datasets)

    def _cardinality(self, run: Run) -> int:
        result = INFINITE_CARDINALITY
        for d in self._datasets:
            n = d._cardinality(run)
            if n == UNKNOWN_CARDINALITY:
                return n
            if n != INFINITE_CARDINALITY:
                result = n if result == INFINITE_CARDINALITY else min(result, n)
        return result

    def _elements(self, run: Run) -> Iterator[Element]:
        for parts in zip(*(d._elements(run) for d in self._datasets), strict=False):
            yield tuple(c for part in parts for c in part)


class _Unary(DatasetV1):
    """A transformation of one input dataset, with the input's element structure."""

    def __init__(self, input_dataset: DatasetV1):
        self._input = input_dataset
        self._structure = input_dataset._structure

    def _inputs(self) -> list[DatasetV1]:
        return [self._input]


class _Same(_Unary):
    def _cardinality(self, run: Run) -> int:
        return self._input._cardinality(run)

    def _elements(self, run: Run) -> Iterator[Element]:
        return self._input._elements(run)


class _Prefetch(_Same):
    """``prefetch``: the same elements; its ``buffer_size`` checked as TF's."""

    def __init__(self, input_dataset: DatasetV1, buffer_size: Count):
        super().__init__(input_dataset)
        self._buffer = buffer_size

    def _captures(self) -> list[ops.Tensor]:
        return [self._buffer] if isinstance(self._buffer, ops.Tensor) else []

    def _check_args(self, run: Run) -> None:
        if int(_value_at(run, self._buffer, "buffer_size")) < -1:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning"
            )


class _WithOptions(_Same):
    """``with_options``: the same elements, with options."""

    def __init__(self, input_dataset: DatasetV1, options: Any):
        super().__init__(input_dataset)
        self._own_options = options

    def _merged_options(self) -> Any:
        return super()._merged_options().merge(self._own_options)


def trace(fn: Callable[..., Any], element: Any, scope: str) -> tuple[list[ops.Tensor], Any]:
    """``fn`` called on placeholders standing for one element of ``element`` (nested
    ``Spec``s), as TF traces a dataset function: ``(the placeholders, its result)``."""
    graph = ops.get_default_graph()
    with graph.name_scope(scope):
        args: list[Any] = []
        for i, s in enumerate(structure.flatten(element)):
            if isinstance(s, structure.DatasetSpec):  # a window's component
                from adapters.v1.data.window_op import WindowSource

                args.append(WindowSource(s.element_spec))
                continue
            op = graph.create_op("Placeholder", f"args_{i}", output_specs=[(s.shape, s.dtype)])
            args.append(op.outputs[0])
        nested = structure.pack(element, args)
        # While it builds, ops know they are in a dataset function (``math_ops``'s
        # division: TF's grappler folds no divisor there).
        graph._dataset_functions = getattr(graph, "_dataset_functions", 0) + 1
        try:
            # TF passes a tuple's components as arguments, anything else as one.
            result = fn(*nested) if type(nested) is tuple else fn(nested)
        finally:
            graph._dataset_functions -= 1
    return args, result


class _Function:
    """A user's function on elements of ``specs``, built as TF ops in the graph."""

    def __init__(self, fn: Callable[..., Any], element: Any, what: str, scope: str):
        graph = ops.get_default_graph()
        if any(isinstance(s, structure.DatasetSpec) for s in structure.flatten(element)):
            raise NotImplementedError(
                f"{what} over elements that are datasets (Dataset.window's) is not in "
                "adapters.v1: read the windows with flat_map or interleave (e.g. "
                "dataset.window(n).flat_map(lambda w: w.batch(n)))"
            )
        args, result = trace(fn, element, scope)
        if isinstance(result, list):
            result = tuple(result)  # as TF: a returned list is a tuple
        outputs = []
        for v in structure.flatten(result):
            if isinstance(v, DatasetV1):
                raise NotImplementedError(
                    f"{what} returned a dataset; jtrain's tf.data elements are tensors (use "
                    "flat_map or interleave to read a dataset's elements)"
                )
            if not isinstance(v, ops.Tensor) and hasattr(v, "dense_shape"):
                raise NotImplementedError(
                    f"{what} returned a SparseTensor; jtrain's tf.data elements are dense "
                    "tensors (use a FixedLenFeature, or tf.sparse.to_dense in the function)"
                )
            with graph.as_default():
                outputs.append(ops.convert_to_tensor(v))
        self.result = result
        self.specs = [Spec.of(t.shape, t.dtype) for t in outputs]
        self.graph = HostGraph(outputs, args, what)

    def __call__(self, run: Run, element: Element) -> list[np.ndarray]:
        values = run.call(self.graph, element)
        return [_cast(v, s) for v, s in zip(values, self.specs, strict=True)]


class _Map(_Unary):
    # TF1's ``map`` does not preserve the cardinality (unknown); ``map_and_batch`` does.
    preserve_cardinality = False

    def _cardinality(self, run: Run) -> int:
        if not self.preserve_cardinality:
            return UNKNOWN_CARDINALITY
        return self._input._cardinality(run)

    def __init__(
        self, input_dataset: DatasetV1, fn: Callable[..., Any], parallel_calls: Count | None = None
    ):
        super().__init__(input_dataset)
        self._fn = _Function(fn, input_dataset._structure, "Dataset.map's function", "Dataset_map")
        self._structure = structure.pack(self._fn.result, self._fn.specs)
        self._parallel_calls = parallel_calls

    def _captures(self) -> list[ops.Tensor]:
        calls = self._parallel_calls
        return [calls] if isinstance(calls, ops.Tensor) else []

    def _check_args(self, run: Run) -> None:
        if self._parallel_calls is None:
            return
        calls = int(_value_at(run, self._parallel_calls, "num_parallel_calls"))
        if calls <= 0 and calls != AUTOTUNE:
            raise errors.InvalidArgumentError(
                None, None, "num_parallel_calls must be greater than zero."
            )

    def _functions(self) -> list[HostGraph]:
        return [self._fn.graph]

    def _elements(self, run: Run) -> Iterator[Element]:
        if self._fn.graph.batchable:
            yield from self._chunked(run)
            return
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            yield from self._one_by_one(run, [element])

    def _one_by_one(self, run: Run, elements: list[Element]) -> Iterator[Element]:
        for element in elements:
            try:
                out = self._fn(run, element)
            except errors.OpError as e:
                yield run.failure(self, e)
                continue
            yield tuple(out)

    def _chunked(self, run: Run) -> Iterator[Element]:
        """The elements mapped :data:`MAP_CHUNK` at a time as one batch (``HostGraph.
        call_rows``): TF runs a map function in C++ per element; here a chunk's Example
        parse is one call and its casts and scaling one vmapped program, each element's
        values as its own run gives them. The input is read up to a chunk ahead (as
        TF's ``num_parallel_calls`` and ``prefetch`` do); an element that fails makes its
        chunk run element by element, so each element's own error comes in its place.
        """
        source = iter(self._input._elements(run))
        pending: list[Element] = []
        while True:
            try:
                element = next(source)
            except StopIteration:
                break
            except BaseException:
                # What was read before the input's error comes first, as one by one.
                yield from self._map_chunk(run, pending)
                raise
            if isinstance(element, Failed):
                yield from self._map_chunk(run, pending)
                pending = []
                yield element
                continue
            pending.append(element)
            if len(pending) == MAP_CHUNK:
                yield from self._map_chunk(run, pending)
                pending = []
        yield from self._map_chunk(run, pending)

    def _map_chunk(self, run: Run, elements: list[Element]) -> Iterator[Element]:
        graph = self._fn.graph
        columns = None
        if len(elements) > 1 and graph.batchable:
            columns = graph.call_rows(run.session, elements)
        if columns is None:
            yield from self._one_by_one(run, elements)
            return
        columns = [_cast(c, s) for c, s in zip(columns, self._fn.specs, strict=True)]
        for j in range(len(elements)):
            yield tuple(c[j : j + 1].reshape(c.shape[1:]) for c in columns)


class _Filter(_Unary):
    _what, _scope = "Dataset.filter's predicate", "Dataset_filter"

    def __init__(self, input_dataset: DatasetV1, predicate: Callable[..., Any]):
        super().__init__(input_dataset)
        self._fn = _Function(predicate, input_dataset._structure, self._what, self._scope)
        specs = self._fn.specs
        if len(specs) != 1 or specs[0].dtype != dtypes.bool or specs[0].shape.rank != 0:
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                f"but its return type was {specs}."
            )

    def _functions(self) -> list[HostGraph]:
        return [self._fn.graph]

    def _elements(self, run: Run) -> Iterator[Element]:
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            try:
                keep = bool(self._fn(run, element)[0])
            except errors.OpError as e:
                yield run.failure(self, e)
                continue
            if keep:
                yield element


class _TakeWhile(_Filter):
    _what, _scope = "Dataset.take_while's predicate", "Dataset_take_while"

    def _elements(self, run: Run) -> Iterator[Element]:
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            try:
                keep = bool(self._fn(run, element)[0])
            except errors.OpError as e:
                yield run.failure(self, e)
                continue
            if not keep:
                return
            yield element


def _stack(rows: list[Element], i: int) -> np.ndarray:
    parts = [r[i] for r in rows]
    first = parts[0].shape
    for j, p in enumerate(parts[1:], 1):
        if p.shape != first:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Cannot batch tensors with different shapes in component {i}. First element "
                f"had shape {list(first)} and element {j} had shape {list(p.shape)}.",
            )
    return np.stack(parts)


class _Batch(_Unary):
    # TF's message for a batch size of zero or less (``map_and_batch``'s kernel words
    # it otherwise).
    zero_size_message = "Batch size must be greater than zero."

    def __init__(
        self,
        input_dataset: DatasetV1,
        batch_size: Count,
        drop_remainder: bool | ops.Tensor,
        parallel_calls: ops.Tensor | None = None,
    ):
        super().__init__(input_dataset)
        self._size_arg = batch_size
        self._drop_arg = drop_remainder
        self._parallel_calls = parallel_calls
        self._structure = structure.map_structure(
            lambda s: Spec(TensorShape([self._static_dim()]).concatenate(s.shape), s.dtype),
            input_dataset._structure,
        )

    def _static_dim(self) -> int | None:
        """The batch dimension of the static shapes: the size when it is known and
        the remainder dropped (TF's), else ``None``."""
        size, drop = self._size_arg, self._drop_arg
        return size if isinstance(size, int) and drop is True else None

    def _captures(self) -> list[ops.Tensor]:
        args = (self._size_arg, self._drop_arg, self._parallel_calls)
        return [a for a in args if isinstance(a, ops.Tensor)]

    def _size_drop(self, run: Run) -> tuple[int, bool]:
        """The batch size and ``drop_remainder`` of this run."""
        return (
            int(_value_at(run, self._size_arg, "batch_size")),
            bool(_value_at(run, self._drop_arg, "drop_remainder")),
        )

    def _check_args(self, run: Run) -> None:
        if self._size_drop(run)[0] <= 0:
            raise errors.InvalidArgumentError(None, None, self.zero_size_message)

    def _batch(self, rows: list[Element]) -> Element:
        return tuple(_stack(rows, i) for i in range(len(rows[0])))

    def _batcher(self, run: Run) -> Callable[[list[Element]], Element]:
        """What makes a batch of rows in ``run``."""
        return self._batch

    def _cardinality(self, run: Run) -> int:
        n = self._input._cardinality(run)
        if n < 0:
            return n
        size, drop = self._size_drop(run)
        return n // size if drop else -(-n // size)

    def _elements(self, run: Run) -> Iterator[Element]:
        size, drop = self._size_drop(run)
        batch_rows = self._batcher(run)
        it = self._input._elements(run)
        # TF fuses map().batch() into one map_and_batch (a default graph optimization):
        # an element's error then fails its whole batch, every element of it read.
        fused = type(self) is _Batch and isinstance(self._input, _Map)
        while True:
            rows: list[Element] = []
            failed: Failed | None = None
            read = 0
            for element in it:
                read += 1
                if isinstance(element, Failed):
                    failed = failed or element
                    if not fused:
                        break  # as TF's batch: the error; the partial batch is lost
                else:
                    rows.append(element)
                if read == size:  # map_and_batch reads the batch's elements
                    break
            if failed is not None:
                yield failed
                continue
            if not read or (drop and len(rows) < size):
                return
            try:
                batch = batch_rows(rows)
            except (errors.InvalidArgumentError, errors.DataLossError) as e:
                yield run.failure(self, e)
                continue
            yield batch


class _PaddedBatch(_Batch):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        super().__init__(input_dataset, batch_size, drop_remainder)
        # Padded shapes and padding values given as tensors read when the iterator
        # starts, by component.
        self._shape_tensors: list[tuple[int, ops.Tensor]] = []
        self._pad_tensors: list[tuple[int, ops.Tensor]] = []
        specs = input_dataset._flat_specs()
        if padded_shapes is None:
            shapes = [s.shape for s in specs]
            for s in shapes:
                if s.rank is None:
                    raise ValueError(
                        "You must provide `padded_shapes` argument because component "
                        "has unknown rank."
                    )
            self._shapes = [TensorShape([None] * (s.rank or 0)) for s in shapes]
        else:
            self._shapes = padded_shapes_for(
                input_dataset._structure, specs, padded_shapes, self._shape_tensors
            )
        self._pads = padding_values_for(
            input_dataset._structure, specs, padding_values, self._pad_tensors
        )
        dim = self._static_dim()
        padded_specs = [
            Spec(TensorShape([dim]).concatenate(p), s.dtype)
            for p, s in zip(self._shapes, specs, strict=True)
        ]
        self._structure = structure.pack(input_dataset._structure, padded_specs)

    def _captures(self) -> list[ops.Tensor]:
        later = [t for _, t in (*self._shape_tensors, *self._pad_tensors)]
        return [*super()._captures(), *later]

    def _shapes_pads(self, run: Run) -> tuple[list[list[Any]], list[Any]]:
        """The padded shapes and padding values of ``run`` (fed tensors read).

        Raises:
          InvalidArgumentError: a fed shape that is not a vector or has a dimension
            below -1, or a fed padding value that is not a scalar (TF's messages).
        """
        shapes: list[Any] = [s.as_list() if s.rank is not None else None for s in self._shapes]
        pads = list(self._pads)
        for i, t in self._shape_tensors:
            value = np.asarray(run.known[t])
            if value.ndim != 1:
                raise errors.InvalidArgumentError(None, None, "All padded shapes must be vectors")
            dims = [int(d) for d in value.tolist()]
            for d in dims:
                if d < -1:
                    raise errors.InvalidArgumentError(None, None, f"Dimension {d} must be >= -1")
            shapes[i] = [None if d == -1 else d for d in dims]
        for i, t in self._pad_tensors:
            value = np.asarray(run.known[t])
            if value.ndim:
                raise errors.InvalidArgumentError(None, None, "All padding values must be scalars")
            pads[i] = value.item()
        return shapes, pads

    def _check_args(self, run: Run) -> None:
        super()._check_args(run)
        self._shapes_pads(run)

    def _batcher(self, run: Run) -> Callable[[list[Element]], Element]:
        if not self._shape_tensors and not self._pad_tensors:
            return self._batch
        shapes, pads = self._shapes_pads(run)
        return lambda rows: padded_stack(rows, shapes, pads)

    def _batch(self, rows: list[Element]) -> Element:
        return padded_stack(rows, [s.as_list() for s in self._shapes], self._pads)


def padded_shapes_for(
    input_structure: Any,
    specs: list[Spec],
    padded_shapes: Any,
    later: list[tuple[int, ops.Tensor]] | None = None,
) -> list[Any]:
    """Each component's padded shape, as TF's ``padded_batch`` reads ``padded_shapes``.

    Args:
      input_structure: the input dataset's element structure.
      specs: its flat component specs.
      padded_shapes: per component, a ``TensorShape``, a list of ints (``None`` or
        ``-1``: the batch's largest) or a ``tf.int64`` vector tensor.
      later: where a tensor known only when the graph runs goes, with its
        component's index (its static shape: as many unknown dimensions as the
        tensor's length, or an unknown rank, as TF's); ``None``: such a tensor is
        refused.

    Returns:
      The flat list of static ``TensorShape``s (unknown dimensions ``None``).

    Raises:
      ValueError: a padded shape of another rank than its component's, or smaller
        than its component's static shape; a tensor that is not a vector.
      TypeError: a tensor that is not ``tf.int64``.
      NotImplementedError: without ``later``, a padded shape known only when the
        graph runs.
    """
    given = structure.flatten_up_to(input_structure, padded_shapes)
    shapes = []
    for i, (g, spec) in enumerate(zip(given, specs, strict=True)):
        if isinstance(g, ops.Tensor):
            from adapters.v1.framework.tensor_util import get_static_value

            if g.shape.rank is not None and g.shape.rank != 1:
                raise ValueError(
                    f"Padded shape {g} must be a `tf.int64` vector tensor, but its shape was "
                    f"{g.shape}."
                )
            if g.dtype != dtypes.int64:
                raise TypeError(
                    f"Padded shape {g} must be a `tf.int64` vector tensor, but its element "
                    f"type was {g.dtype.name}."
                )
            static = get_static_value(g)
            if static is None and later is None:
                raise NotImplementedError(
                    "padded_batch: a padded shape computed when the graph runs is not "
                    "supported; give it as a list of ints or a TensorShape"
                )
            if static is None:
                later.append((i, g))
                length = g.shape.as_list()[0] if g.shape.rank is not None else None
                g = TensorShape(None if length is None else [None] * length)
            else:
                g = [None if d == -1 else int(d) for d in np.asarray(static).tolist()]
        shape = TensorShape(
            None if isinstance(g, TensorShape) and g.rank is None
            else [None if d is None or d == -1 else d for d in _dims(g)]
        )  # fmt: skip
        if not _padded_shape_compatible(shape, spec.shape):
            raise ValueError(
                f"The padded shape {shape} is not compatible with the shape {spec.shape} of "
                "the corresponding input component."
            )
        shapes.append(shape)
    return shapes


def _padded_shape_compatible(padded: TensorShape, shape: TensorShape) -> bool:
    if padded.rank is None or shape.rank is None:
        return True
    if padded.rank != shape.rank:
        return False
    return all(
        p is None or d is None or p >= d
        for p, d in zip(padded.as_list(), shape.as_list(), strict=True)
    )


def padding_values_for(
    input_structure: Any,
    specs: list[Spec],
    padding_values: Any,
    later: list[tuple[int, ops.Tensor]] | None = None,
) -> list[Any]:
    """Each component's padding value, as TF's ``padded_batch`` reads ``padding_values``.

    Args:
      input_structure: the input dataset's element structure.
      specs: its flat component specs.
      padding_values: ``None`` (0, ``b""`` for strings), one scalar for every
        component, or per component a scalar or ``None``; Python values take TF's
        literal dtypes (``0`` is ``tf.int32``, ``0.0`` ``tf.float32``).
      later: where a tensor known only when the graph runs goes, with its
        component's index (its place in the result holds the default); ``None``:
        such a tensor is refused.

    Returns:
      The flat list of padding values (Python scalars or ``bytes``).

    Raises:
      ValueError: a value that is not a scalar.
      TypeError: a value whose dtype is not its component's.
      NotImplementedError: without ``later``, a tensor value known only when the
        graph runs.
    """
    from adapters.v1.framework.tensor_util import get_static_value

    defaults = [b"" if s.dtype == dtypes.string else 0 for s in specs]
    if padding_values is None:
        return defaults
    if structure.is_structure(input_structure) and not isinstance(
        padding_values, (tuple, list, dict)
    ):  # one value for every component
        given = [padding_values] * len(specs)
    else:
        given = structure.flatten_up_to(input_structure, padding_values)
    pads = []
    for i, (value, spec, default) in enumerate(zip(given, specs, defaults, strict=True)):
        if value is None:
            pads.append(default)
            continue
        tensor = None
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
            tensor = ops.convert_to_tensor(value)
            shape, dtype = tensor.shape, tensor.dtype
            static = get_static_value(tensor)
            if static is None and shape.rank == 0 and dtype == spec.dtype and later is None:
                raise NotImplementedError(
                    "padded_batch: a padding value computed when the graph runs is not "
                    "supported; give it as a Python or NumPy scalar or a constant"
                )
        else:
            static = literal_array(value)
            shape = TensorShape(static.shape)
            dtype = dtypes.string if static.dtype.kind in "OSU" else dtypes.as_dtype(static.dtype)
        if not shape.is_compatible_with(TensorShape([])):
            raise ValueError(
                "Invalid `padding_values`. `padding_values` values should be scalars, but got "
                f"{shape}."
            )
        if dtype != spec.dtype:
            raise TypeError(
                f"Invalid `padding_values`. `padding_values` values type {dtype} does not "
                f"match type {spec.dtype} of the corresponding input component."
            )
        if static is None and tensor is not None and later is not None:
            later.append((i, tensor))
            pads.append(default)
            continue
        item = np.asarray(static).item()
        pads.append(item.encode() if isinstance(item, str) else item)
    return pads


def padded_stack(rows: list[Element], shapes: list[list[Any]], pads: list[Any]) -> Element:
    """``rows`` stacked per component, each padded with its ``pads`` value to its
    ``shapes`` (a ``None`` dimension: the rows' largest), as ``padded_batch``.

    Raises:
      DataLossError: a row larger than its padded shape (TF's error class here).
      InvalidArgumentError: a row of another rank than its padded shape (a shape
        fed when the iterator started).
    """
    out = []
    for i, (shape, pad) in enumerate(zip(shapes, pads, strict=True)):
        parts = [r[i] for r in rows]
        if len(shape) != parts[0].ndim:
            raise errors.InvalidArgumentError(
                None,
                None,
                "All elements in a batch must have the same rank as the padded shape for "
                f"component{i}: expected rank {len(shape)} but got element with rank "
                f"{parts[0].ndim}",
            )
        dims = []
        for d, want in enumerate(shape):
            largest = max(p.shape[d] for p in parts)
            if want is not None and largest > want:
                raise errors.DataLossError(
                    None,
                    None,
                    "Attempted to pad to a smaller size than the input element. "
                    f"({want} < {largest} in dimension {d} of component {i})",
                )
            dims.append(largest if want is None else want)
        batch = np.full((len(parts), *dims), pad, dtype=parts[0].dtype)
        for j, p in enumerate(parts):
            batch[(j, *(slice(0, n) for n in p.shape))] = p
        out.append(batch)
    return tuple(out)


def _dims(shape: Any) -> list[Any]:
    if isinstance(shape, TensorShape):
        return shape.as_list()
    if isinstance(shape, ops.Tensor):
        from adapters.v1.framework.tensor_util import get_static_value

        shape = get_static_value(shape)
    return [None if d is None else int(d) for d in np.asarray(shape, dtype=object).tolist()]


class _Counted(_Unary):
    """A transformation with a count: an int, or a scalar tensor read when a pass starts
    (a count computed from an interleave's element)."""

    def __init__(self, input_dataset: DatasetV1, count: Count):
        super().__init__(input_dataset)
        self._count_value = count

    def _captures(self) -> list[ops.Tensor]:
        c = self._count_value
        return [c] if isinstance(c, ops.Tensor) else []

    def _count(self, run: Run) -> int:
        return int(_value_at(run, self._count_value, "count"))


class _Repeat(_Counted):
    def _cardinality(self, run: Run) -> int:
        n, count = self._input._cardinality(run), self._count(run)
        if count < 0:
            return 0 if n == 0 else INFINITE_CARDINALITY if n != UNKNOWN_CARDINALITY else n
        if n < 0:
            return n if count else 0
        return n * count

    def _elements(self, run: Run) -> Iterator[Element]:
        count = self._count(run)
        epochs = itertools.count() if count < 0 else range(count)
        for _ in epochs:
            empty = True
            for element in self._input._elements(run):
                empty = False
                yield element
            if empty:
                return  # TF: repeating an empty dataset ends


class _Take(_Counted):
    def _cardinality(self, run: Run) -> int:
        n, count = self._input._cardinality(run), self._count(run)
        if n == UNKNOWN_CARDINALITY:
            return n
        if count < 0:
            return n
        return count if n == INFINITE_CARDINALITY else min(n, count)

    def _elements(self, run: Run) -> Iterator[Element]:
        count = self._count(run)
        if count < 0:
            yield from self._input._elements(run)
            return
        if count == 0:
            return
        taken = 0
        for element in self._input._elements(run):
            yield element
            if not isinstance(element, Failed):  # as TF's: a failed element is not counted
                taken += 1
                if taken == count:
                    return


class _Skip(_Counted):
    def _cardinality(self, run: Run) -> int:
        n, count = self._input._cardinality(run), self._count(run)
        if n < 0:
            return n
        return 0 if count < 0 else max(0, n - count)

    def _elements(self, run: Run) -> Iterator[Element]:
        count = self._count(run)
        it = self._input._elements(run)
        if count < 0:
            return iter(())
        return itertools.islice(it, count, None)


class _Cache(_Unary):
    def _cardinality(self, run: Run) -> int:
        return self._input._cardinality(run)

    def _elements(self, run: Run) -> Iterator[Element]:
        done = run.states.get(self)
        if done is not None:
            yield from done
            return
        seen: list[Element] = []
        for element in self._input._elements(run):
            seen.append(element)
            yield element
        _log.debug("tf.data cache filled with %d elements", len(seen))
        run.states[self] = seen


class _Concatenate(DatasetV1):
    def __init__(self, first: DatasetV1, second: DatasetV1):
        if not isinstance(second, DatasetV1):
            raise TypeError(f"concatenate takes a dataset, got {second!r}")
        a, b = first._structure, second._structure
        if not structure.same_structure(a, b) or first.output_types != second.output_types:
            raise TypeError(
                f"Incompatible dataset elements:\n  {first.output_types} vs.\n  "
                f"{second.output_types}"
            )
        self._parts = [first, second]
        self._structure = structure.map_structure(
            lambda x, y: Spec(x.shape.most_specific_compatible_shape(y.shape), x.dtype), a, b
        )

    def _inputs(self) -> list[DatasetV1]:
        return list(self._parts)

    def _cardinality(self, run: Run) -> int:
        ns = [p._cardinality(run) for p in self._parts]
        if UNKNOWN_CARDINALITY in ns:
            return UNKNOWN_CARDINALITY
        return INFINITE_CARDINALITY if INFINITE_CARDINALITY in ns else sum(ns)

    def _elements(self, run: Run) -> Iterator[Element]:
        for part in self._parts:
            yield from part._elements(run)


class _Unbatch(_Unary):
    def __init__(self, input_dataset: DatasetV1):
        super().__init__(input_dataset)
        specs = input_dataset._flat_specs()
        firsts = set()
        for spec in specs:
            if spec.shape.rank == 0:
                raise ValueError(
                    "Cannot unbatch an input with scalar components: unbatch() needs a leading "
                    "dimension."
                )
            if spec.shape.rank is not None and spec.shape._dims[0] is not None:
                firsts.add(spec.shape._dims[0])
        if len(firsts) > 1:
            a, b = sorted(firsts)[:2]
            raise ValueError(
                "`unbatch()` is only supported for datasets of elements whose components have "
                f"a matching leading dimension. Encountered both {a} and {b}."
            )
        self._structure = structure.map_structure(
            lambda s: Spec(_drop_first(s.shape), s.dtype), input_dataset._structure
        )

    def _elements(self, run: Run) -> Iterator[Element]:
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            sizes = {c.shape[0] for c in element}
            if len(sizes) != 1:
                yield run.failure(
                    self,
                    errors.InvalidArgumentError(
                        None,
                        None,
                        f"Input element components have different batch sizes: {sorted(sizes)}",
                    ),
                )
                continue
            for i in range(sizes.pop()):
                yield tuple(c[i] for c in element)


class _Shard(_Unary):
    def __init__(self, input_dataset: DatasetV1, num_shards: Count, index: Count):
        super().__init__(input_dataset)
        self._shards_arg = num_shards
        self._index_arg = index

    def _captures(self) -> list[ops.Tensor]:
        return [a for a in (self._shards_arg, self._index_arg) if isinstance(a, ops.Tensor)]

    def _shards_index(self, run: Run) -> tuple[int, int]:
        return (
            int(_value_at(run, self._shards_arg, "num_shards")),
            int(_value_at(run, self._index_arg, "index")),
        )

    def _check_args(self, run: Run) -> None:
        shards, index = self._shards_index(run)
        if shards <= 0:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Number of shards must be greater than zero (currently num_shards = {shards}).",
            )
        if not 0 <= index < shards:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Index must be between 0 and {shards - 1} (currently index = {index}).",
            )

    def _cardinality(self, run: Run) -> int:
        n = self._input._cardinality(run)
        shards, index = self._shards_index(run)
        if n < 0 or shards <= 0:
            return n
        return n // shards + (1 if index < n % shards else 0)

    def _elements(self, run: Run) -> Iterator[Element]:
        shards, index = self._shards_index(run)
        return itertools.islice(self._input._elements(run), index, None, shards)


def _elements_text(n: int) -> str:
    return f"{n} element{'' if n == 1 else 's'}"


class AssertCardinality(_Unary):
    """``assert_cardinality``: the elements, checked to be ``expected`` many."""

    def __init__(self, input_dataset: DatasetV1, expected: Count):
        super().__init__(input_dataset)
        self._expected = expected  # a tensor (a fed placeholder): read when the iterator starts

    def _captures(self) -> list[ops.Tensor]:
        return [self._expected] if isinstance(self._expected, ops.Tensor) else []

    def _cardinality(self, run: Run) -> int:
        return int(_value_at(run, self._expected, "expected_cardinality"))

    def _elements(self, run: Run) -> Iterator[Element]:
        expected = self._cardinality(run)
        want = (
            "an infinite number of elements"
            if expected == INFINITE_CARDINALITY
            else _elements_text(expected)
        )
        count = 0
        for element in self._input._elements(run):
            count += 1
            if expected != INFINITE_CARDINALITY and count > expected:
                # As TF's: each further element is an error counting it.
                yield run.failure(
                    self,
                    errors.FailedPreconditionError(
                        None,
                        None,
                        f"Input dataset was expected to contain {want} but contained at least "
                        f"{_elements_text(count)}.",
                    ),
                )
                continue
            yield element
        if expected == INFINITE_CARDINALITY or count != expected:
            error = errors.FailedPreconditionError(
                None,
                None,
                f"Input dataset was expected to contain {want} but contained only "
                f"{_elements_text(count)}.",
            )
            while True:  # as TF's: every later get_next finds the end again
                yield run.failure(self, error)


class _Counter(DatasetV1):
    def __init__(self, start: Count, step: Count, dtype: Any):
        self._start, self._step = start, step
        self._structure = Spec.of((), dtype)

    def _captures(self) -> list[ops.Tensor]:
        return [a for a in (self._start, self._step) if isinstance(a, ops.Tensor)]

    def _cardinality(self, run: Run) -> int:
        return INFINITE_CARDINALITY

    def _elements(self, run: Run) -> Iterator[Element]:
        dtype = self._structure.np_dtype
        start = int(_value_at(run, self._start, "start"))
        step = int(_value_at(run, self._step, "step"))
        for i in itertools.count():
            yield (np.asarray(start + i * step).astype(dtype),)


class _Unique(_Unary):
    def __init__(self, input_dataset: DatasetV1):
        super().__init__(input_dataset)
        for spec in input_dataset._flat_specs():
            if spec.dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
                raise TypeError(
                    f"`tf.data.Dataset.unique` does not support type <dtype: '{spec.dtype.name}'> "
                    "-- only `tf.int32`, `tf.int64`, and `tf.string` are supported."
                )

    def _elements(self, run: Run) -> Iterator[Element]:
        if len(self._flat_specs()) != 1:
            raise errors.InvalidArgumentError(
                None, None, "UniqueDataset only supports inputs with a single component."
            )
        seen: set[Any] = set()
        for element in self._input._elements(run):
            if isinstance(element, Failed):
                yield element
                continue
            value = element[0]
            key = (value.shape, tuple(value.ravel().tolist()))
            if key not in seen:
                seen.add(key)
                yield element


class _ListFiles(DatasetV1):
    """The sorted names matching the patterns (TF's ``MatchingFiles``)."""

    def __init__(self, file_pattern: Any):
        value = file_pattern
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
            from adapters.v1.framework.tensor_util import get_static_value

            value = get_static_value(ops.convert_to_tensor(value))
            if value is None:
                raise NotImplementedError(
                    "Dataset.list_files of a computed or fed pattern is not in adapters.v1: "
                    "give the pattern as a Python string or list"
                )
        self._patterns = np.asarray(literal_array(value), dtype=object).ravel().tolist()
        self._structure = Spec.of((), dtypes.string)

    def _elements(self, run: Run) -> Iterator[Element]:
        from adapters.v1.platform import gfile

        names: set[str] = set()
        for pattern in self._patterns:
            text = pattern.decode() if isinstance(pattern, bytes) else str(pattern)
            names.update(gfile.glob(text))
        for n in sorted(names):
            yield (np.asarray(n.encode(), dtype=object),)


# Datasets that pass a failed element on, in its place, as TF's do (the others raise
# their inputs' errors, and jtrain's pipeline stops there).
_PASS_FAILURES: tuple[type, ...] = (
    _Map,
    _Filter,
    _Same,
    _Take,
    _Repeat,
    _Batch,
    _Unbatch,
    _Concatenate,
)


def passing_failures(dataset: DatasetV1) -> frozenset[DatasetV1]:
    """``dataset`` and the datasets below it through datasets passing failed elements on:
    the ones whose element errors may travel as ``Failed`` elements."""
    out = {dataset}
    if _passes_failures(dataset):
        for d in dataset._inputs():
            out |= passing_failures(d)
    return frozenset(out)


def _passes_failures(dataset: DatasetV1) -> bool:
    from adapters.v1.data.from_generator_op import FromGenerator
    from adapters.v1.data.interleave_op import _Nested
    from adapters.v1.data.shuffle_op import ShuffleDataset

    return isinstance(dataset, (*_PASS_FAILURES, FromGenerator, _Nested, ShuffleDataset))


class IgnoreErrors(_Unary):
    """``ignore_errors``: elements whose making fails are dropped."""

    def __init__(self, input_dataset: DatasetV1, log_warning: bool = False):
        super().__init__(input_dataset)
        for d in passing_failures(input_dataset):
            if d._inputs() and not _passes_failures(d):
                raise NotImplementedError(
                    f"tf.data.experimental.ignore_errors over {type(d).__name__.lstrip('_')} "
                    "is not in adapters.v1: jtrain does not reproduce how it handles an "
                    "input's error; apply ignore_errors below it (it drops failed elements "
                    "through map, filter, take, repeat, shuffle, prefetch, batch, "
                    "padded_batch, unbatch, concatenate, flat_map and interleave)"
                )
        self._log = log_warning

    def _elements(self, run: Run) -> Iterator[Element]:
        nested = Run(run.session, run.known)
        nested.random_states, nested.states = run.random_states, run.states
        nested.markers = run.markers | passing_failures(self._input)
        for element in self._input._elements(nested):
            if not isinstance(element, Failed):
                yield element
