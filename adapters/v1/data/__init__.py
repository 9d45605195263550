"""``tf.data`` for TF1 graph mode (``tf.compat.v1.data``): datasets and iterators.

A dataset's pipeline runs in Python on the host, per session, before each step's
XLA program; ``iterator.get_next()`` is a host operation whose values enter the
program as feeds do (as the queue input pipeline's ``dequeue``). See
``dataset_ops.py`` and ``iterator_ops.py``.

``tf.data.experimental`` has the names TF1 pipelines use (``AUTOTUNE``,
``shuffle_and_repeat``, ``map_and_batch``, ``parallel_interleave``,
``ignore_errors``, ``unbatch``, ``get_single_element``, ``scan``, ``group_by_window``,
``bucket_by_sequence_length``, ``sample_from_datasets``, ``choose_from_datasets``,
``CsvDataset``, ``make_csv_dataset``, ``unique``, ``Counter``, ``cardinality``,
``get_next_as_optional`` and ``Optional``, ``group_by_reducer`` and ``Reducer``,
``RandomDataset``, ``SqlDataset``, ``TFRecordWriter``, ``from_list``,
``pad_to_cardinality``, ``snapshot`` (a pass-through), ``get_structure``,
``table_from_dataset``, ``index_table_from_dataset``, ``DatasetInitializer``, the
options classes). ``Options`` are stored and merged as TF's and change nothing in
jtrain's one-thread pipeline (``options.py``). Absent: the rest of ``experimental``
(sparse and ragged elements, ``rejection_resample``, the tf.data service, variants,
iterator checkpoints) and TF2's ``element_spec``; each raises an ``AttributeError``
saying what to use.
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.data import experimental
from adapters.v1.data.dataset_ops import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
)
from adapters.v1.data.iterator_ops import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from adapters.v1.data.options import Options, ThreadingOptions
from adapters.v1.data.readers import (
    FixedLengthRecordDataset,
    TextLineDataset,
    TFRecordDataset,
)
from adapters.v1.data.structure import DatasetSpec

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "FixedLengthRecordDataset",
    "Iterator",
    "Options",
    "ThreadingOptions",
    "TFRecordDataset",
    "TextLineDataset",
    "get_output_classes",
    "get_output_shapes",
    "experimental",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]

__getattr__ = missing_name_getattr("tf.data", globals())
