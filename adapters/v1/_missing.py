"""Helpful ``AttributeError``s for TF names the compat layer does not have.

Each public module of ``adapters.v1`` (the top level, ``tf.train``...) installs
``__getattr__ = missing_name_getattr("tf.train", globals())``: a TF1 name that is
absent then raises an ``AttributeError`` naming it and saying what to use
instead, with the closest names that exist. ``hasattr(tf, name)`` stays False.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["missing_attribute_error", "missing_name_getattr", "missing_name_message"]

# What to use instead of names (or whole namespaces) a TF1 script may reach for.
_INSTEAD: dict[str, str] = {
    "contrib": "tf.contrib was removed in TF 2 and has no compat layer; port the few "
    "functions you use to jax.numpy inside tf.jax_function",
    "estimator": "drive training with tf.train.MonitoredTrainingSession and hooks",
    # tf.distribute has the one-replica strategies; these map onto tf.train.Server.
    **{
        f"distribute.experimental.{name}": "multi-worker training runs through "
        "tf.train.ClusterSpec/tf.train.Server (variables replicated on every worker, "
        "the batch split) and tf.train.SyncReplicasOptimizer; read TF_CONFIG with "
        "tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec(). On one "
        "machine use tf.distribute.MirroredStrategy() (one replica) or "
        "tf.jax_data_parallel()"
        for name in (
            "MultiWorkerMirroredStrategy",
            "ParameterServerStrategy",
            "CentralStorageStrategy",
            "TPUStrategy",
            "CollectiveCommunication",
            "CommunicationImplementation",
            "CommunicationOptions",
            "CollectiveHints",
        )
    },
    **{
        f"distribute.cluster_resolver.{name}": "describe the cluster with "
        "tf.distribute.cluster_resolver.SimpleClusterResolver or TFConfigClusterResolver "
        "(TF_CONFIG) and start tf.train.Server from its cluster_spec()"
        for name in (
            "GCEClusterResolver",
            "KubernetesClusterResolver",
            "KubernetesExecutableLocation",
            "SlurmClusterResolver",
            "TPUClusterResolver",
        )
    },
    # Names TensorFlow itself removed (TF 1.0's summary renames, old optimizer versions).
    "train.SummaryWriter": "tf.train.SummaryWriter was removed in TF 1.0: use "
    "tf.summary.FileWriter",
    "train.SummaryWriterCache": "tf.train.SummaryWriterCache was removed in TF 1.0: use "
    "tf.summary.FileWriterCache",
    "train.SyncReplicasOptimizerV2": "removed in TF 1.0: use tf.train.SyncReplicasOptimizer",
    "scalar_summary": "removed in TF 1.0: use tf.summary.scalar",
    "histogram_summary": "removed in TF 1.0: use tf.summary.histogram",
    "image_summary": "removed in TF 1.0: use tf.summary.image",
    "audio_summary": "removed in TF 1.0: use tf.summary.audio",
    "merge_summary": "removed in TF 1.0: use tf.summary.merge",
    "merge_all_summaries": "removed in TF 1.0: use tf.summary.merge_all",
    "tpu.CrossShardOptimizer": "call tf.jax_data_parallel() and use the optimizer itself: "
    "XLA averages the whole batch's gradients over the devices",
    "tpu.replicate": "use tf.tpu.shard (inputs split over the shards) or tf.jax_data_parallel()",
    "tpu.rewrite": "there is no TPU: every Session.run already is one XLA program",
    "tpu.initialize_system": "there is no TPU system to initialize on CPUs and GPUs; drop the call",
}

# TF's quantized tensors (qint8, quint8, qint32...): no values of them in jtrain's sessions.
_QUANTIZED_HINT = (
    "jtrain's sessions hold no values of TF's quantized dtypes (qint8, quint8, qint32); for "
    "quantization-aware training use tf.quantization.fake_quant_with_min_max_vars (or "
    "_args, _per_channel) or tf.quantization.quantize_and_dequantize_v2, which simulate "
    "the quantization in float32 as TF's QAT graphs do"
)
_INSTEAD.update(
    {
        name: _QUANTIZED_HINT
        for name in ("quantize", "quantize_v2", "dequantize", "quantized_concat")
    }
)
_INSTEAD["quantization.experimental"] = (
    "TF's saved-model quantizer (quantize_saved_model) works on TF SavedModels: run it "
    "with TensorFlow"
)

# tf.compat.v1.data.experimental names (TF 2.21) jtrain's tf.data does not have.
_DATA_EXPERIMENTAL_HINTS = {
    "Options": "not in TF 2.21 either: use tf.data.Options",
    "make_one_shot_iterator": "not in TF 2.21 either: use tf.data.make_one_shot_iterator",
    "make_initializable_iterator": "not in TF 2.21 either: use tf.data.make_initializable_iterator",
}
for _name in (
    "DatasetInitializer DatasetStructure Optional OptionalStructure "
    "RaggedTensorStructure RandomDataset Reducer SHARD_HINT "
    "SparseTensorStructure SqlDataset Structure TFRecordWriter TensorArrayStructure "
    "TensorStructure dense_to_ragged_batch dense_to_sparse_batch "
    "distributed_save enable_debug_mode from_list from_variant get_model_proto "
    "get_next_as_optional get_structure group_by_reducer "
    "index_table_from_dataset make_saveable_from_iterator "
    "map_and_batch_with_legacy_function pad_to_cardinality "
    "rejection_resample service snapshot table_from_dataset to_variant"
).split():
    _DATA_EXPERIMENTAL_HINTS.setdefault(
        _name,
        "jtrain's tf.data.experimental has AUTOTUNE, shuffle_and_repeat, map_and_batch, "
        "parallel_interleave, ignore_errors, unbatch, get_single_element, enumerate_dataset, "
        "take_while, scan, group_by_window, bucket_by_sequence_length, "
        "sample_from_datasets, choose_from_datasets, CsvDataset, make_csv_dataset, Counter, "
        "unique, cardinality, assert_cardinality, parse_example_dataset, "
        "make_batched_features_dataset, "
        "prefetch_to_device, copy_to_device and the options classes; build the rest "
        "from the Dataset methods (map, filter, batch, interleave, flat_map, "
        "from_generator...)",
    )
_INSTEAD.update({f"data.experimental.{k}": v for k, v in _DATA_EXPERIMENTAL_HINTS.items()})

_OP_HINT = "if it is an op, write it in jax.numpy inside tf.jax_function"


def missing_name_message(module: str, name: str, existing: Any = ()) -> str:
    """The message for ``module.name`` missing (``module`` as TF users write it)."""
    full = f"{module}.{name}"
    instead = _INSTEAD.get(name) or _INSTEAD.get(full.split(".", 1)[-1]) or _OP_HINT
    message = f"{full} is not in adapters.v1; {instead}"
    public = [n for n in existing if not n.startswith("_")]
    close = difflib.get_close_matches(name, public, n=3, cutoff=0.75)
    if close:
        message += " (names that exist: " + ", ".join(f"{module}.{c}" for c in close) + ")"
    return message


def missing_name_getattr(module: str, namespace: Mapping[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` raising a helpful ``AttributeError`` for absent names.

    Args:
      module: the module as TF users write it (``"tf"``, ``"tf.train"``).
      namespace: the module's ``globals()`` (for close-match suggestions).

    Returns:
      The ``__getattr__`` function; it always raises ``AttributeError``.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 (module protocol)
        raise missing_attribute_error(module, name, namespace)

    return __getattr__


def missing_attribute_error(module: str, name: str, namespace: Mapping[str, Any]) -> AttributeError:
    """The ``AttributeError`` for ``module.name`` (a module ``__getattr__`` raises it).

    Python's own probes (``__path__``, ``__wrapped__``...) get the ordinary message.
    """
    if name.startswith("__") and name.endswith("__"):
        return AttributeError(f"module {namespace.get('__name__')!r} has no attribute {name!r}")
    return AttributeError(missing_name_message(module, name, namespace.keys()))
