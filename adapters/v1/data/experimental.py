"""``tf.data.experimental`` (``tf.compat.v1.data.experimental``): the names TF1
pipelines use, as transformations for ``Dataset.apply`` and constants.

The pipeline is one Python thread on the host: ``AUTOTUNE`` and the
``num_parallel_*`` arguments are accepted and change nothing but what TF's
defaults depend on (``interleave``'s cycle length). Names with more to them have
their own modules (``optional_ops``, ``group_by_reducer_op``, ``random_op``,
``sql_dataset``, ``writers``, ``from_list_op``, ``lookup_ops``). Other names of TF's
``experimental`` namespace raise an ``AttributeError`` saying why and what to use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.data.csv_dataset import CsvDataset, make_csv_dataset
from adapters.v1.data.dataset_ops import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    DatasetV1,
    IgnoreErrors,
)
from adapters.v1.data.from_list_op import from_list
from adapters.v1.data.group_by_reducer_op import GroupByReducer, Reducer
from adapters.v1.data.iterator_ops import get_single_element
from adapters.v1.data.lookup_ops import (
    DatasetInitializer,
    index_table_from_dataset,
    table_from_dataset,
)
from adapters.v1.data.optional_ops import (
    Optional,
    element_spec_of,
    get_next_as_optional,
    zeros_of,
)
from adapters.v1.data.options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ServiceOptions,
    ThreadingOptions,
)
from adapters.v1.data.random_op import RandomDataset
from adapters.v1.data.sql_dataset import SqlDataset
from adapters.v1.data.structure import DatasetSpec
from adapters.v1.data.writers import TFRecordWriter
from adapters.v1.framework.tensor_spec import TensorSpec

__all__ = [
    "AUTOTUNE",
    "AutoShardPolicy",
    "Counter",
    "CsvDataset",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "DatasetInitializer",
    "DatasetStructure",
    "DistributeOptions",
    "Optional",
    "RandomDataset",
    "Reducer",
    "SHARD_HINT",
    "SqlDataset",
    "TFRecordWriter",
    "TensorStructure",
    "enable_debug_mode",
    "from_list",
    "get_next_as_optional",
    "get_structure",
    "index_table_from_dataset",
    "map_and_batch_with_legacy_function",
    "table_from_dataset",
    "group_by_reducer",
    "pad_to_cardinality",
    "snapshot",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "ServiceOptions",
    "ThreadingOptions",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "copy_to_device",
    "enumerate_dataset",
    "assert_cardinality",
    "bucket_by_sequence_length",
    "cardinality",
    "choose_from_datasets",
    "get_single_element",
    "group_by_window",
    "ignore_errors",
    "make_csv_dataset",
    "make_batched_features_dataset",
    "map_and_batch",
    "parallel_interleave",
    "parse_example_dataset",
    "prefetch_to_device",
    "sample_from_datasets",
    "scan",
    "shuffle_and_repeat",
    "take_while",
    "unbatch",
    "unique",
]

Transformation = Callable[[DatasetV1], DatasetV1]

# ``shard``'s ``num_shards`` and ``index`` standing for "the worker's" under auto-sharding
# by hint (TF's ``SHARD_HINT``); jtrain's pipeline is one worker's.
SHARD_HINT = -1


DatasetStructure = DatasetSpec  # TF's deprecated aliases of the spec classes
TensorStructure = TensorSpec


def get_structure(dataset_or_iterator: Any) -> Any:
    """The type of the elements of a dataset or an iterator: nested ``tf.TensorSpec``s.

    Args:
      dataset_or_iterator: a ``tf.data.Dataset`` or a ``tf.compat.v1.data.Iterator``.

    Raises:
      TypeError: anything else (TF's message).
    """
    from adapters.v1.data.iterator_ops import Iterator

    if not isinstance(dataset_or_iterator, (DatasetV1, Iterator)):
        raise TypeError(
            "Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a `tf.data.Dataset` "
            f"or tf.data.Iterator object, but got {type(dataset_or_iterator)}."
        )
    return element_spec_of(dataset_or_iterator._structure)


def group_by_reducer(key_func: Callable[..., Any], reducer: Reducer) -> Transformation:
    """One element per key: ``reducer``'s state folded over the elements of that key
    (for ``Dataset.apply``; see ``group_by_reducer_op``).

    Args:
      key_func: ``element -> tf.int64`` scalar, the element's key.
      reducer: a ``Reducer`` (``init_func``, ``reduce_func``, ``finalize_func``).

    Raises:
      ValueError: when applied, ``key_func`` not returning one ``tf.int64`` scalar.
      TypeError: when applied, ``reduce_func``'s state unlike ``init_func``'s.
    """

    def apply(dataset: DatasetV1) -> DatasetV1:
        return GroupByReducer(dataset, key_func, reducer)

    return apply


def pad_to_cardinality(cardinality: Any, mask_key: str = "valid") -> Transformation:
    """The elements (dicts), each with ``mask_key: True``, then filler elements (zeros,
    ``mask_key: False``) up to ``cardinality`` elements (for ``Dataset.apply``).

    Args:
      cardinality: the number of elements wanted.
      mask_key: the key of the added ``tf.bool`` (default ``"valid"``).

    Raises:
      ValueError: when applied, elements that are not dicts (TF's message).

    .. note:: As TF 2.21 in graph mode, nothing checks the input's cardinality: an
       input of unknown cardinality, or longer than ``cardinality``, is followed by
       fillers forever (the count of fillers is negative: TF's ``repeat`` of it
       repeats forever).
    """

    def apply(dataset: DatasetV1) -> DatasetV1:
        if not isinstance(dataset._structure, dict):
            raise ValueError("`pad_to_cardinality` requires its input dataset to be a dictionary.")
        missing = cardinality - dataset.cardinality()
        filler: dict[str, Any] = {k: zeros_of(s) for k, s in dataset._structure.items()}
        filler[mask_key] = np.False_
        fillers = DatasetV1.from_tensors(filler).repeat(missing)

        def mark(element: dict[str, Any]) -> dict[str, Any]:
            return {**element, mask_key: True}

        return dataset.map(mark).concatenate(fillers)

    return apply


def snapshot(
    path: str,
    compression: str = "AUTO",
    reader_func: Callable[..., Any] | None = None,
    shard_func: Callable[..., Any] | None = None,
) -> Transformation:
    """``dataset.snapshot(path, compression, reader_func, shard_func)`` (for
    ``Dataset.apply``): the same elements, nothing written (see ``Dataset.snapshot``)."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.snapshot(path, compression, reader_func, shard_func)

    return apply


def enable_debug_mode() -> None:
    """TF's ``ValueError``: debug mode (tf.data functions run eagerly) is eager-only.

    Raises:
      ValueError: always, in TF1 graph mode (TF's message).
    """
    raise ValueError("`enable_debug_mode() is only supported in eager mode.")


def shuffle_and_repeat(
    buffer_size: Any, count: Any = None, seed: int | None = None
) -> Transformation:
    """``dataset.shuffle(buffer_size, seed).repeat(count)``, a new order each epoch (for
    ``Dataset.apply``).

    Args:
      buffer_size: the shuffle buffer's size.
      count: epochs (default ``None``: forever).
      seed: the shuffle's op seed.

    The order is TF's for the same seeds (see ``Dataset.shuffle``).
    """

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.shuffle(buffer_size, seed=seed).repeat(count)

    return apply


def map_and_batch(
    map_func: Callable[..., Any],
    batch_size: Any,
    num_parallel_batches: Any = None,
    drop_remainder: bool = False,
    num_parallel_calls: Any = None,
) -> Transformation:
    """``dataset.map(map_func).batch(batch_size, drop_remainder)`` (for ``Dataset.apply``).

    Args:
      map_func: as ``Dataset.map``'s.
      batch_size: elements per batch.
      num_parallel_batches: accepted (one Python thread).
      drop_remainder: drop a last, smaller batch (the batch dimension is then static).
      num_parallel_calls: accepted (one Python thread).

    Raises:
      ValueError: both ``num_parallel_batches`` and ``num_parallel_calls``, as TF.
    """
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "`map_and_batch` allows only one of `num_parallel_batches` and "
            "`num_parallel_calls` to be set, but "
            f"`num_parallel_batches` was set to {num_parallel_batches} "
            f"and `num_parallel_calls` as set to {num_parallel_calls}."
        )

    def apply(dataset: DatasetV1) -> DatasetV1:
        mapped = dataset.map(map_func)
        mapped.preserve_cardinality = True  # as TF's map_and_batch
        batched = mapped.batch(batch_size, drop_remainder=drop_remainder)
        batched.zero_size_message = "batch_size must be greater than zero."  # TF's kernel's
        return batched

    return apply


def map_and_batch_with_legacy_function(
    map_func: Callable[..., Any],
    batch_size: Any,
    num_parallel_batches: Any = None,
    drop_remainder: bool = False,
    num_parallel_calls: Any = None,
) -> Transformation:
    """``map_and_batch`` (see it): jtrain traces every dataset function as TF's legacy
    ``Defun`` path and ``tf.function`` path trace it, once, in the graph."""
    return map_and_batch(
        map_func, batch_size, num_parallel_batches, drop_remainder, num_parallel_calls
    )


def ignore_errors(log_warning: bool = False) -> Transformation:
    """Drops the elements whose making fails (for ``Dataset.apply``).

    Args:
      log_warning: accepted (jtrain logs nothing for a dropped element).

    Raises:
      NotImplementedError: when applied, a ``zip``, ``skip``, ``shard`` or ``cache``
        below it, whose handling of an input's error jtrain does not reproduce.

    .. note:: Dropped as TF drops them: an element failing in a ``map`` or
       ``filter`` function or in ``from_generator``'s conversion, and a batch
       holding one, through ``map``, ``filter``, ``take``, ``repeat``, ``shuffle``,
       ``prefetch``, ``batch``, ``padded_batch``, ``unbatch``, ``concatenate``,
       ``flat_map`` and ``interleave``.
    """

    def apply(dataset: DatasetV1) -> DatasetV1:
        return IgnoreErrors(dataset, log_warning)

    return apply


def parallel_interleave(
    map_func: Callable[..., Any],
    cycle_length: Any,
    block_length: Any = 1,
    sloppy: bool | None = False,
    buffer_output_elements: Any = None,
    prefetch_input_elements: Any = None,
) -> Transformation:
    """``dataset.interleave(map_func, cycle_length, block_length)`` (for
    ``Dataset.apply``), in TF's deterministic order.

    Args:
      map_func: builds a dataset from an element's tensors.
      cycle_length: how many datasets are open at once.
      block_length: consecutive elements from each (default 1).
      sloppy: accepted; the order is always the deterministic one (one of the orders
        TF's ``sloppy=True`` may give).
      buffer_output_elements: accepted (one Python thread).
      prefetch_input_elements: accepted (one Python thread).

    Raises:
      TypeError: a tensor ``cycle_length`` without ``prefetch_input_elements``, or a
        tensor ``block_length`` without ``buffer_output_elements``, as TF 2.21 (whose
        defaults for these, ``2 * cycle_length`` and ``2 * block_length``, it then
        refuses).
    """
    from adapters.v1.data.dataset_ops import refuse_tensor

    def apply(dataset: DatasetV1) -> DatasetV1:
        if buffer_output_elements is None:
            refuse_tensor(block_length)
        if prefetch_input_elements is None:
            refuse_tensor(cycle_length)
        interleaved = dataset.interleave(map_func, cycle_length, block_length)
        interleaved.length_message = "`{}` must be > 0"  # TF's legacy kernel's
        return interleaved

    return apply


def prefetch_to_device(device: str, buffer_size: Any = None) -> Transformation:
    """The same elements (for ``Dataset.apply``): ``get_next``'s values enter the step's
    program as feeds, on its device, whatever ``device`` says.

    Args:
      device: accepted (a device name).
      buffer_size: accepted (one Python thread).
    """

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.prefetch(buffer_size)

    return apply


def copy_to_device(target_device: str, source_device: str = "/cpu:0") -> Transformation:
    """The same elements (for ``Dataset.apply``), as ``prefetch_to_device``.

    Args:
      target_device: accepted (a device name).
      source_device: accepted (default ``"/cpu:0"``).
    """

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.prefetch(None)

    return apply


def enumerate_dataset(start: Any = 0) -> Transformation:
    """``dataset.enumerate(start)`` (for ``Dataset.apply``): ``(index, element)`` pairs."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.enumerate(start)

    return apply


def take_while(predicate: Callable[..., Any]) -> Transformation:
    """``dataset.take_while(predicate)`` (for ``Dataset.apply``)."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.take_while(predicate)

    return apply


def scan(initial_state: Any, scan_func: Callable[..., Any]) -> Transformation:
    """``dataset.scan(initial_state, scan_func)`` (for ``Dataset.apply``): the outputs
    of ``scan_func(state, element) -> (new_state, output)``."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.scan(initial_state, scan_func)

    return apply


def group_by_window(
    key_func: Callable[..., Any],
    reduce_func: Callable[..., Any],
    window_size: Any = None,
    window_size_func: Callable[..., Any] | None = None,
) -> Transformation:
    """``dataset.group_by_window(...)`` (for ``Dataset.apply``; see it).

    Raises:
      ValueError: both or neither of ``window_size`` and ``window_size_func``, as TF
        (when applied).
    """

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)

    return apply


def bucket_by_sequence_length(
    element_length_func: Callable[..., Any],
    bucket_boundaries: list[int],
    bucket_batch_sizes: list[int],
    padded_shapes: Any = None,
    padding_values: Any = None,
    pad_to_bucket_boundary: bool = False,
    no_padding: bool = False,
    drop_remainder: bool = False,
) -> Transformation:
    """``dataset.bucket_by_sequence_length(...)`` (for ``Dataset.apply``; see it)."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.bucket_by_sequence_length(
            element_length_func,
            bucket_boundaries,
            bucket_batch_sizes,
            padded_shapes,
            padding_values,
            pad_to_bucket_boundary,
            no_padding,
            drop_remainder,
        )

    return apply


def choose_from_datasets(
    datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool = False
) -> DatasetV1:
    """``tf.data.Dataset.choose_from_datasets`` (see it), but ``stop_on_empty_dataset``
    defaults to False here, as in TF."""
    return DatasetV1.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def sample_from_datasets(
    datasets: Any,
    weights: Any = None,
    seed: int | None = None,
    stop_on_empty_dataset: bool = False,
) -> DatasetV1:
    """``tf.data.Dataset.sample_from_datasets`` (see it: NumPy's draws, not TF's)."""
    return DatasetV1.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def Counter(start: Any = 0, step: Any = 1, dtype: Any = None) -> DatasetV1:  # noqa: N802 (TF's name)
    """``tf.data.Dataset.counter(start, step, dtype)`` (default ``tf.int64``)."""
    from adapters.v1.framework import dtypes

    return DatasetV1.counter(start, step, dtypes.int64 if dtype is None else dtype)


def assert_cardinality(expected_cardinality: Any) -> Transformation:
    """The elements, checked to be ``expected_cardinality`` many (for
    ``Dataset.apply``); ``cardinality()`` then gives it. A tensor (a fed placeholder)
    is read when the iterator starts.

    Raises:
      FailedPreconditionError: at ``get_next``, the element past the expected count, or
        the end before it (an infinite expectation: any end), with TF's message.
    """
    from adapters.v1.data.dataset_ops import AssertCardinality, _count_arg

    expected = _count_arg(expected_cardinality, "expected_cardinality", "AssertCardinalityDataset")

    def apply(dataset: DatasetV1) -> DatasetV1:
        return AssertCardinality(dataset, expected)

    return apply


def parse_example_dataset(
    features: Any, num_parallel_calls: Any = 1, deterministic: bool | None = None
) -> Transformation:
    """``dataset.map(lambda s: tf.io.parse_example(s, features))`` (for
    ``Dataset.apply``): a dataset of serialized ``Example`` vectors parsed into dicts.

    Args:
      features: the feature specs (``FixedLenFeature``...), by name.
      num_parallel_calls: accepted (one Python thread).
      deterministic: accepted (the order is the input's).

    Raises:
      NotImplementedError: when applied, a feature parsed into a ``SparseTensor``
        (``VarLenFeature``): jtrain's tf.data elements are dense.
    """
    from adapters.v1.ops.parsing_ops import parse_example

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.map(lambda serialized: parse_example(serialized, features))

    return apply


def make_batched_features_dataset(
    file_pattern: Any,
    batch_size: int,
    features: Any,
    reader: Any = None,
    label_key: str | None = None,
    reader_args: Any = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    shuffle_buffer_size: int = 10000,
    shuffle_seed: int | None = None,
    prefetch_buffer_size: Any = None,
    reader_num_threads: Any = None,
    parser_num_threads: Any = None,
    sloppy_ordering: bool = False,
    drop_final_batch: bool = False,
) -> DatasetV1:
    """Batches of parsed ``Example`` records (dicts, ``(features, label)`` with
    ``label_key``), TF's pipeline: ``list_files(file_pattern, shuffle, seed)``, one
    ``reader`` per file interleaved (``reader_num_threads``, default 1), shuffled,
    repeated ``num_epochs`` times (``None``: forever), batched (the last partial batch
    dropped with ``drop_final_batch`` or when repeating forever), parsed.

    Args:
      file_pattern: a glob or a list of globs.
      batch_size: records per batch.
      features: the feature specs, by name (dense ones: see
        ``parse_example_dataset``).
      reader: a dataset class of one file's records (default ``TFRecordDataset``).
      label_key: the feature returned apart as the label.
      reader_args: more arguments for ``reader``.
      num_epochs: passes over the data (``None``: forever).
      shuffle: shuffle the files and the records (TF's order).
      shuffle_buffer_size: the record shuffle's buffer.
      shuffle_seed: the shuffles' op seed.
      prefetch_buffer_size: accepted (one Python thread).
      parser_num_threads: accepted (one Python thread).
      sloppy_ordering: accepted (deterministic order).
      reader_num_threads: files read at once, record by record (default 1).
      drop_final_batch: drop a last, partial batch.

    Raises:
      ValueError: ``label_key`` not among the features.
    """
    from adapters.v1.data.readers import TFRecordDataset

    reader = TFRecordDataset if reader is None else reader
    args = list(reader_args or [])
    threads = 1 if reader_num_threads is None else reader_num_threads
    dataset = DatasetV1.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    if threads == AUTOTUNE:
        dataset = dataset.interleave(lambda f: reader(f, *args), num_parallel_calls=threads)
    else:
        dataset = dataset.interleave(lambda f: reader(f, *args), cycle_length=threads)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features))
    if label_key:
        if label_key not in features:
            raise ValueError(
                f"The `label_key` provided ({label_key}) must be one of the `features` keys: "
                f"{features.keys()}."
            )
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset


def cardinality(dataset: DatasetV1) -> Any:
    """``dataset.cardinality()``: a ``tf.int64`` scalar tensor (see it)."""
    return dataset.cardinality()


def unique() -> Transformation:
    """``dataset.unique()`` (for ``Dataset.apply``)."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.unique()

    return apply


def unbatch() -> Transformation:
    """``dataset.unbatch()`` (for ``Dataset.apply``)."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.unbatch()

    return apply


__getattr__ = missing_name_getattr("tf.data.experimental", globals())
