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
_ELEMENTS_DENSE = "jtrain's tf.data elements are dense tensors"
_DATA_EXPERIMENTAL_HINTS.update(
    {
        "dense_to_sparse_batch": f"{_ELEMENTS_DENSE}: batch with padded_batch (and "
        "tf.sparse.from_dense after get_next where a SparseTensor is wanted)",
        "dense_to_ragged_batch": f"{_ELEMENTS_DENSE}: batch with padded_batch (and "
        "tf.RaggedTensor.from_tensor after get_next where a RaggedTensor is wanted)",
        "rejection_resample": "TF's seeded draws (random_uniform in its filter and "
        "sample_from_datasets' stateless multinomial) are not reproduced: resample with "
        "filter and sample_from_datasets (NumPy draws), or run the pipeline with TensorFlow",
        "make_saveable_from_iterator": "jtrain's iterators keep no state a Saver can write "
        "(TF's serialized iterator state): a restored script starts its iterators again; "
        "skip the consumed elements with Dataset.skip",
        "service": "the tf.data service runs TF's dispatcher and workers (gRPC servers): "
        "jtrain's pipeline runs in the training process",
        "distributed_save": "it writes through the tf.data service (TF's dispatcher): save "
        "the elements with TFRecordWriter",
        "get_model_proto": "it reads TF's autotuning model of a running iterator: jtrain's "
        "pipeline is one Python thread without one",
        "from_variant": "jtrain's datasets are Python objects, not variant tensors",
        "to_variant": "jtrain's datasets are Python objects, not variant tensors",
        "Structure": "TF's TypeSpec base class: use tf.TensorSpec (TensorStructure) or "
        "tf.data.DatasetSpec (DatasetStructure)",
        "OptionalStructure": "use Optional.element_spec (nested tf.TensorSpec)",
        "SparseTensorStructure": f"{_ELEMENTS_DENSE}",
        "RaggedTensorStructure": f"{_ELEMENTS_DENSE}",
        "TensorArrayStructure": f"{_ELEMENTS_DENSE}",
    }
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
