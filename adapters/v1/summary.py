"""``tf.compat.v1.summary``: summary operations in the graph, ``FileWriter`` and its cache.

A summary op is a *post* host operation (see ``client/session.py``): the step's
XLA program computes the summarized tensor, then Python turns its fetched NumPy
value into a serialized ``Summary`` proto with :mod:`jtrain.records.summary`, as
TF's ``ScalarSummary``, ``HistogramSummary``, ``ImageSummary``,
``AudioSummaryV2`` and ``TensorSummaryV2`` kernels do. Fetching a summary gives
``bytes``, as in TF. Tags follow TF's ``summary_op_util.summary_scope``: the
summary's name scope, prefixed by ``family/`` when a family is given. Summary
ops join ``GraphKeys.SUMMARIES`` unless ``collections`` says otherwise;
:func:`merge_all` merges that collection.

Event files are written by :class:`jtrain.records.FileWriter`;
:class:`FileWriterCache` shares one writer per folder, as TF's hooks expect.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from adapters.v1._missing import missing_attribute_error
from adapters.v1.framework import ops
from jtrain import errors
from jtrain.records import summary as summary_lib
from jtrain.records import summary_iterator
from jtrain.records import writer as writer_lib

__all__ = [
    "scalar",
    "histogram",
    "image",
    "audio",
    "text",
    "tensor_summary",
    "merge",
    "merge_all",
    "FileWriter",
    "FileWriterCache",
    "summary_iterator",
    "all_v2_summary_ops",
    "get_summary_description",
    "initialize",
]

log = logging.getLogger(__name__)

_STRING = np.dtype(object)
_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")

# TF's DataType enum for the dtypes a TensorSummaryV2 writes as tensor_content.
_TF_DTYPES = {
    "float32": 1,
    "float64": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 5,
    "int8": 6,
    "complex64": 8,
    "int64": 9,
    "bool": 10,
    "uint16": 17,
    "complex128": 18,
    "float16": 19,
    "uint32": 22,
    "uint64": 23,
}


def __getattr__(name: str) -> Any:
    """The protos ``tf.summary.Summary``, ``Event``, ``SessionLog``... (loaded on use)."""
    if name in ("Summary", "SummaryDescription", "SummaryMetadata"):
        from jtrain.protos import summary_pb2

        return getattr(summary_pb2, name)
    if name in ("Event", "SessionLog", "TaggedRunMetadata"):
        from jtrain.protos import event_pb2

        return getattr(event_pb2, name)
    raise missing_attribute_error("tf.summary", name, globals())


# -- naming ------------------------------------------------------------------------------
def _clean_tag(name: str | None) -> str | None:
    """TF's ``clean_tag``: illegal characters become ``_``, leading slashes go."""
    if name is None:
        return None
    new_name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if new_name != name:
        log.info("Summary name %s is illegal; using %s instead.", name, new_name)
    return new_name


def _collect(value: ops.Tensor, collections: Sequence[str] | None, default: list[str]) -> None:
    graph = value.graph
    for key in default if collections is None else collections:
        graph.add_to_collection(key, value)


def _summary_op(
    op_type: str,
    name: str,
    family: str | None,
    inputs: Sequence[Any],
    collections: Sequence[str] | None,
    op_in_scope: str | None = None,
    input_names: Sequence[str | None] = (),
    params: dict[str, Any] | None = None,
) -> ops.Tensor:
    """A post host op ``_SERIALIZERS[op_type](tag, *numpy inputs, **params) -> Summary``
    named as TF names it.

    The name scope is ``name`` (``family/name`` with a family), made unique; the tag
    is that scope, prefixed by ``family/`` again with a family (TF's
    ``summary_scope``). The op takes the scope's name unless ``op_in_scope`` names
    it inside the scope. Inputs that are not tensors become constants named by
    ``input_names`` (default ``Const``) inside the scope. The tag and ``params``
    (plain values) are the op's ``_host_recipe``: a meta graph carries them, and
    :func:`host_compute` rebuilds the op from them.
    """
    name = _clean_tag(name)
    family = _clean_tag(family)
    if not name:
        raise ValueError(f"name of a summary must be a non-empty string, got {name!r}")
    graph = _graph_of(inputs)
    base = name if family is None else f"{family}/{name}"
    with graph.as_default(), graph.name_scope(base) as scope:
        tag = scope.rstrip("/")
        if family is not None:
            tag = f"{family}/{tag}"
        names = list(input_names) + [None] * (len(inputs) - len(input_names))
        tensors = [ops.convert_to_tensor(x, name=n) for x, n in zip(inputs, names, strict=True)]

        recipe = {"tag": tag, **(params or {})}
        op = graph.create_op(
            op_type,
            op_in_scope or scope,
            inputs=tensors,
            compute=host_compute(op_type, recipe),
            output_specs=[((), _STRING)],
            host="post",
        )
        op._host_recipe = recipe
    value = op.outputs[0]
    _collect(value, collections, [ops.GraphKeys.SUMMARIES])
    return value


def host_compute(op_type: str, recipe: dict[str, Any]) -> Callable[..., tuple[bytes]]:
    """The host ``compute(session, *values)`` of a summary op from its ``_host_recipe``.

    Raises:
      KeyError: ``op_type`` is not a summary op type jtrain builds.
    """
    serialize = _SERIALIZERS[op_type]
    params = dict(recipe)
    tag = params.pop("tag")

    def compute(session: Any, *values: Any) -> tuple[bytes]:
        return (serialize(tag, *values, **params).SerializeToString(),)

    return compute


def _graph_of(values: Sequence[Any]) -> ops.Graph:
    for v in values:
        graph = getattr(v, "graph", None)
        if isinstance(graph, ops.Graph):
            return graph
    return ops.get_default_graph()


def _invalid(tag: str, message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"{message} (summary {tag!r})")


# -- summary ops -------------------------------------------------------------------------
def scalar(
    name: str,
    tensor: Any,
    collections: Sequence[str] | None = None,
    family: str | None = None,
) -> ops.Tensor:
    """A summary of one real number (TF's ``ScalarSummary``: ``simple_value`` as float32).

    Args:
      name: the summary's name; the tag is its name scope (``scope/name``, made
        unique: ``name_1``...).
      tensor: a real number tensor of shape ``[]``.
      collections: graph collections to add the summary to (default
        ``[GraphKeys.SUMMARIES]``).
      family: a tag prefix, also a name scope (``family/scope/family/name``, as TF:
        it groups the tag in TensorBoard's tab).

    Returns:
      A string tensor: the serialized ``Summary`` when a session runs it.

    Raises:
      InvalidArgumentError: at run time, if the value is not a scalar (TF: "tags
        and values are not the same shape").
    """

    return _summary_op("ScalarSummary", name, family, [tensor], collections)


def _serialize_scalar(tag: str, value: Any) -> Any:
    value = np.asarray(value)
    if value.shape != ():
        raise _invalid(tag, f"tags and values are not the same shape: [] != {list(value.shape)}")
    return summary_lib.scalar(tag, value)


def histogram(
    name: str,
    values: Any,
    collections: Sequence[str] | None = None,
    family: str | None = None,
) -> ops.Tensor:
    """A histogram of ``values`` (TF's ``HistogramSummary``, TF's default buckets).

    Args:
      name: the summary's name (the tag is its name scope).
      values: a real numeric tensor of any shape (converted to float64 as TF does).
      collections: graph collections (default ``[GraphKeys.SUMMARIES]``).
      family: a tag prefix (see :func:`scalar`).

    Returns:
      A string tensor: the serialized ``Summary``.

    Raises:
      InvalidArgumentError: at run time, if a value is NaN or infinite ("Nan in
        summary histogram for: <tag>").
    """

    return _summary_op("HistogramSummary", name, family, [values], collections)


def _serialize_histogram(tag: str, value: Any) -> Any:
    try:
        return summary_lib.histogram(tag, value)
    except ValueError as exc:
        raise errors.InvalidArgumentError(None, None, str(exc)) from None


def image(
    name: str,
    tensor: Any,
    max_outputs: int = 3,
    collections: Sequence[str] | None = None,
    family: str | None = None,
) -> ops.Tensor:
    """Images encoded as PNG (TF's ``ImageSummary``).

    Tags are ``<tag>/image/<i>``, or ``<tag>/image`` when ``max_outputs`` is 1.
    ``uint8`` images are written as they are; float images are rescaled as TF does
    (see :func:`jtrain.records.summary.image`).

    Args:
      name: the summary's name (the tag is its name scope).
      tensor: ``[batch, height, width, channels]``, channels 1, 3 or 4; uint8 or float.
      max_outputs: how many images of the batch to write (TF's default 3).
      collections: graph collections (default ``[GraphKeys.SUMMARIES]``).
      family: a tag prefix (see :func:`scalar`).

    Returns:
      A string tensor: the serialized ``Summary``.

    Raises:
      ValueError: if ``max_outputs`` is less than 1.
      InvalidArgumentError: at run time, if the value is not 4-d with 1, 3 or 4
        channels.
    """
    if int(max_outputs) < 1:
        raise ValueError(f"max_outputs of image summary {name!r} must be >= 1, got {max_outputs}")

    return _summary_op(
        "ImageSummary", name, family, [tensor], collections, params={"max_images": max_outputs}
    )


def _serialize_image(tag: str, value: Any, max_images: int) -> Any:
    value = np.asarray(value)
    if value.ndim != 4 or value.shape[3] not in (1, 3, 4):
        raise _invalid(tag, f"Tensor must be 4-D with last dim 1, 3, or 4, not {list(value.shape)}")
    return summary_lib.image(tag, value, int(max_images))


def audio(
    name: str,
    tensor: Any,
    sample_rate: Any,
    max_outputs: int = 3,
    collections: Sequence[str] | None = None,
    family: str | None = None,
) -> ops.Tensor:
    """Audio clips encoded as 16-bit WAV (TF's ``AudioSummaryV2``).

    Tags are ``<tag>/audio/<i>``, or ``<tag>/audio`` when ``max_outputs`` is 1.

    Args:
      name: the summary's name (the tag is its name scope).
      tensor: float ``[batch, frames, channels]`` or ``[batch, frames]`` in [-1, 1].
      sample_rate: samples per second, a number or a float32 scalar tensor.
      max_outputs: how many clips of the batch to write (TF's default 3).
      collections: graph collections (default ``[GraphKeys.SUMMARIES]``).
      family: a tag prefix (see :func:`scalar`).

    Returns:
      A string tensor: the serialized ``Summary``.

    Raises:
      ValueError: if ``max_outputs`` is less than 1.
      InvalidArgumentError: at run time, if the value is not 2-d or 3-d or the rate
        is not positive.
    """
    if int(max_outputs) < 1:
        raise ValueError(f"max_outputs of audio summary {name!r} must be >= 1, got {max_outputs}")

    if not isinstance(sample_rate, ops.Tensor) and not hasattr(sample_rate, "_as_graph_tensor"):
        sample_rate = np.float32(sample_rate)
    return _summary_op(
        "AudioSummaryV2",
        name,
        family,
        [tensor, sample_rate],
        collections,
        input_names=[None, "sample_rate"],
        params={"max_outputs": int(max_outputs)},
    )


def _serialize_audio(tag: str, value: Any, rate: Any, max_outputs: int) -> Any:
    try:
        return summary_lib.audio(tag, value, float(np.asarray(rate)), int(max_outputs))
    except ValueError as exc:
        raise _invalid(tag, str(exc)) from None


def _tensor_proto(value: np.ndarray) -> Any:
    """TF's ``Tensor::AsProtoTensorContent``: strings in ``string_val``, numbers as bytes."""
    from jtrain.protos import tensor_pb2, tensor_shape_pb2

    shape = tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in value.shape]
    )
    name = value.dtype.name
    if name not in _TF_DTYPES:
        raise TypeError(f"tensor_summary does not support dtype {name}")
    return tensor_pb2.TensorProto(
        dtype=_TF_DTYPES[name],
        tensor_shape=shape,
        tensor_content=np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<")).tobytes(),
    )


def _is_string(t: ops.Tensor) -> bool:
    return t.dtype == "string"


def tensor_summary(
    name: str,
    tensor: Any,
    summary_description: Any = None,
    collections: Sequence[str] | None = None,
    summary_metadata: Any = None,
    family: str | None = None,
    display_name: str | None = None,
) -> ops.Tensor:
    """A tensor of any shape in a ``Summary`` (TF's ``TensorSummaryV2``).

    Args:
      name: the summary's name (the tag is its name scope).
      tensor: a numeric or string tensor.
      summary_description: unused (deprecated in TF too).
      collections: graph collections (default ``[GraphKeys.SUMMARIES]``).
      summary_metadata: a ``SummaryMetadata`` (e.g. naming a TensorBoard plugin);
        default empty (as TF, an empty ``metadata`` field is still written).
      family: a tag prefix (see :func:`scalar`).
      display_name: the metadata's ``display_name`` when no metadata is given.

    Returns:
      A string tensor: the serialized ``Summary``.
    """
    from jtrain.protos import summary_pb2

    if summary_metadata is None:
        summary_metadata = summary_pb2.SummaryMetadata()
        if display_name is not None:
            summary_metadata.display_name = display_name
    metadata = summary_metadata.SerializeToString()
    return _summary_op(
        "TensorSummaryV2", name, family, [tensor], collections, params={"metadata": metadata}
    )


def _serialize_tensor(tag: str, value: Any, metadata: bytes) -> Any:
    from jtrain.protos import summary_pb2

    value = np.asarray(value)
    if value.dtype.kind in "OSU":
        # jtrain.records.summary.text builds TF's DT_STRING TensorProto.
        proto = summary_lib.text(tag, value).value[0].tensor
    else:
        proto = _tensor_proto(value)
    out = summary_pb2.Summary()
    v = out.value.add(tag=tag)
    v.tensor.CopyFrom(proto)
    v.metadata.ParseFromString(metadata)
    return out


def text(name: str, tensor: Any, collections: Sequence[str] | None = None) -> ops.Tensor:
    """A string tensor shown by TensorBoard's text plugin (Markdown rendered).

    Args:
      name: the summary's name (the tag is its name scope).
      tensor: a string tensor of any shape.
      collections: graph collections (default ``[GraphKeys.SUMMARIES]``).

    Returns:
      A string tensor: the serialized ``Summary`` (a ``DT_STRING`` ``TensorProto``,
      metadata ``plugin_name: "text"``).

    Raises:
      ValueError: if ``tensor`` is not a string tensor (as TF, when building).
    """
    from jtrain.protos import summary_pb2

    t = tensor if isinstance(tensor, ops.Tensor) else ops.convert_to_tensor(tensor)
    if not _is_string(t):
        dtype = "unknown" if t.dtype is None else t.dtype.name
        raise ValueError(f"Expected tensor {t.name} to have dtype string, got {dtype}")
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text")
    )
    return tensor_summary(name, t, collections=collections, summary_metadata=metadata)


def merge(
    inputs: Sequence[Any], collections: Sequence[str] | None = None, name: str | None = None
) -> ops.Tensor:
    """Merges serialized summaries into one (TF's ``MergeSummary``).

    Args:
      inputs: string tensors, each a serialized ``Summary`` (or a vector of them).
      collections: graph collections to add the merged summary to (default none).
      name: the op's name (default: scope ``Merge``, op ``Merge/MergeSummary``).

    Returns:
      A string tensor: the serialized ``Summary`` holding every input's values in
      order.

    Raises:
      InvalidArgumentError: at run time, if two inputs hold a value of the same
        non-empty tag ("Duplicate tag <tag> found in summary inputs").
    """

    name = _clean_tag(name)
    inputs = list(inputs)
    graph = _graph_of(inputs)
    with graph.as_default(), graph.name_scope(name or "Merge"):
        tensors = [ops.convert_to_tensor(x) for x in inputs]

        def compute(session: Any, *values: Any) -> tuple[bytes]:
            return (merge_values(values, op),)

        op = graph.create_op(
            "MergeSummary",
            name or "MergeSummary",
            inputs=tensors,
            compute=compute,
            output_specs=[((), _STRING)],
            host="post",
        )
    value = op.outputs[0]
    _collect(value, collections, [])
    return value


def merge_values(values: Sequence[Any], op: Any = None) -> bytes:
    """``MergeSummary``'s host computation: the serialized ``Summary`` of every value.

    Raises:
      InvalidArgumentError: a value is no ``Summary``, or a non-empty tag repeats.
    """
    from jtrain.protos import summary_pb2

    out = summary_pb2.Summary()
    tags: set[str] = set()
    for value in values:
        items = value if isinstance(value, bytes) else np.asarray(value).ravel()
        for item in [items] if isinstance(items, bytes) else items:
            try:
                summary = summary_pb2.Summary.FromString(bytes(item))
            except Exception:
                raise errors.InvalidArgumentError(
                    None, op, "Could not parse one of the summary inputs"
                ) from None
            for v in summary.value:
                if v.tag:
                    if v.tag in tags:
                        raise errors.InvalidArgumentError(
                            None, op, f"Duplicate tag {v.tag} found in summary inputs "
                        )
                    tags.add(v.tag)
                out.value.add().CopyFrom(v)
    return out.SerializeToString()


# Each summary op type's host computation: ``serialize(tag, *values, **recipe params)``.
_SERIALIZERS: dict[str, Callable[..., Any]] = {
    "ScalarSummary": _serialize_scalar,
    "HistogramSummary": _serialize_histogram,
    "ImageSummary": _serialize_image,
    "AudioSummaryV2": _serialize_audio,
    "TensorSummaryV2": _serialize_tensor,
}


def all_v2_summary_ops() -> list[Any]:
    """The default graph's TF2-style summary ops (its ``_SUMMARY_V2`` collection).

    jtrain has no TF2 summary ops, so this is empty unless code added to the
    collection itself; TF1's ``tf.summary.*`` ops are not in it, as in TF.

    Returns:
      A list of operations.
    """
    return ops.get_collection("_SUMMARY_V2")


def get_summary_description(node_def: Any) -> Any:
    """The ``SummaryDescription`` stored in a ``TensorSummary`` node's ``description``
    attribute (JSON), as TF reads it.

    Args:
      node_def: a ``NodeDef`` of a ``TensorSummary`` op.

    Returns:
      A ``tf.summary.SummaryDescription`` proto.

    Raises:
      ValueError: the node is not a ``TensorSummary`` op (TF's message).
    """
    from google.protobuf import json_format

    from jtrain.protos import summary_pb2

    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    text = node_def.attr["description"].s
    description = summary_pb2.SummaryDescription()
    json_format.Parse(text.decode() if isinstance(text, bytes) else text, description)
    return description


def initialize(graph: Any = None, session: Any = None) -> None:
    """TF's initializer of TF2 summary writers in graph mode.

    Args:
      graph: a graph to write to the default TF2 writer.
      session: the session to run the writers' initializers in.

    Raises:
      RuntimeError: always, as TF without a default TF2 ``SummaryWriter``: jtrain has
        none (write summaries with ``tf.summary.FileWriter``).
    """
    del graph, session
    raise RuntimeError(
        "No default tf.contrib.summary.SummaryWriter found (jtrain has no TF2 summary "
        "writers: write summaries with tf.summary.FileWriter and tf.summary.scalar/merge_all)"
    )


def merge_all(
    key: str = ops.GraphKeys.SUMMARIES, scope: str | None = None, name: str | None = None
) -> ops.Tensor | None:
    """Merges every summary of the collection ``key`` (``None`` when there is none).

    Args:
      key: the collection (default ``GraphKeys.SUMMARIES``).
      scope: a regular expression the summaries' names must match.
      name: the merge op's name (see :func:`merge`).

    Returns:
      The merged summary tensor, or ``None`` if the collection holds no summary.
    """
    summary_ops = ops.get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)


# -- event files -------------------------------------------------------------------------
class FileWriter(writer_lib.FileWriter):
    """``tf.compat.v1.summary.FileWriter``: summaries and events into an event file.

    Creates ``logdir`` and a new event file there at once. ``add_summary`` takes a
    ``Summary`` proto or the bytes a summary op's fetch gives; the first time a tag
    is seen its metadata is written, later events of that tag go without it (as TF).
    Given a ``graph`` (or ``graph_def``), the first events are the graph's
    ``GraphDef`` (TensorBoard's Graphs tab) and a ``MetaGraphDef`` holding it, as TF.

    Args:
      logdir: the folder of the event file.
      graph: the ``Graph`` to write (``sess.graph``), or ``None``.
      max_queue: events that may wait to be written (TF's default 10).
      flush_secs: how often, in seconds, pending events are flushed (default 120).
      graph_def: deprecated in TF: a ``GraphDef`` proto to write instead of ``graph``.
      filename_suffix: appended to the event file's name.
      session: TF2 summary-writer sessions are not supported; must be ``None``.

    Raises:
      ValueError: if ``max_queue`` or ``flush_secs`` is negative.
      NotImplementedError: if ``session`` is given.

    .. note:: Usable as a context manager (``close`` on exit); after ``close``,
       events are dropped until :meth:`reopen`, as TF.
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str],
        graph: ops.Graph | None = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        graph_def: Any = None,
        filename_suffix: str | None = None,
        session: Any = None,
    ):
        if session is not None:
            raise NotImplementedError("FileWriter(session=...) is not supported by jtrain")
        super().__init__(logdir, max_queue, flush_secs, filename_suffix)
        self._session_run_tags: set[str] = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            from adapters.v1.framework import meta_graph

            # TF also writes a meta graph holding the GraphDef (graph may be a GraphDef).
            if graph_def is None:
                graph_def = (
                    graph.as_graph_def(add_shapes=True) if isinstance(graph, ops.Graph) else graph
                )
            self.add_meta_graph(meta_graph.create_meta_graph_def(graph_def=graph_def))

    def add_graph(
        self, graph: ops.Graph | None, global_step: int | None = None, graph_def: Any = None
    ) -> None:
        """Writes the ``GraphDef`` of ``graph`` (with ``_output_shapes``), or ``graph_def``.

        Args:
          graph: a ``Graph`` (or, deprecated in TF, a ``GraphDef``).
          global_step: the event's step (default ``None``).
          graph_def: deprecated in TF: a ``GraphDef`` (or a ``Graph``) instead of ``graph``.

        Raises:
          ValueError: both ``graph`` and ``graph_def`` are given (TF's message).
          TypeError: neither is a ``Graph`` or a ``GraphDef``.
        """
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        given = graph if graph is not None else graph_def
        if isinstance(given, ops.Graph):
            if graph is None:
                logging.warning(
                    "When passing a `Graph` object, please use the `graph` named argument "
                    "instead of `graph_def`."
                )
            true_graph_def = given.as_graph_def(add_shapes=True)
        elif _is_graph_def(given):
            logging.warning(
                "Passing a `GraphDef` to the SummaryWriter is deprecated. Pass a `Graph` "
                "object instead, such as `sess.graph`."
            )
            true_graph_def = given
        else:
            raise TypeError(
                "The passed graph must be an instance of `Graph` or the deprecated `GraphDef`"
            )
        self.add_graph_def(true_graph_def.SerializeToString(), global_step)

    def add_meta_graph(self, meta_graph_def: Any, global_step: int | None = None) -> None:
        """Writes a ``MetaGraphDef`` event.

        Raises:
          TypeError: ``meta_graph_def`` is not a ``MetaGraphDef`` (TF's message).
        """
        if type(meta_graph_def).__name__ != "MetaGraphDef" or not hasattr(
            meta_graph_def, "SerializeToString"
        ):
            raise TypeError(
                f"meta_graph_def must be type MetaGraphDef, saw type: {type(meta_graph_def)}"
            )
        event = self._event(global_step)
        event.meta_graph_def = meta_graph_def.SerializeToString()
        self.add_event(event)

    def add_run_metadata(self, run_metadata: Any, tag: str, global_step: int | None = None):
        """Writes a ``RunMetadata`` proto under ``tag`` (TensorBoard's per-run graph data).

        Raises:
          ValueError: ``tag`` was used before by this writer (TF's message).
        """
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags.add(tag)
        event = self._event(global_step)
        event.tagged_run_metadata.tag = tag
        event.tagged_run_metadata.run_metadata = run_metadata.SerializeToString()
        self.add_event(event)


def _is_graph_def(value: Any) -> bool:
    """Whether ``value`` is a ``GraphDef`` proto (jtrain's or TF's)."""
    return type(value).__name__ == "GraphDef" and hasattr(value, "SerializeToString")


class FileWriterCache:
    """One shared :class:`FileWriter` per log folder (``tf.compat.v1.summary.FileWriterCache``).

    Hooks that write summaries (``SummarySaverHook``, ``StepCounterHook``) get their
    writer here, so every writer of a folder shares one event file.
    """

    _cache: dict[str, FileWriter] = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir: str | os.PathLike[str]) -> FileWriter:
        """The writer of ``logdir``, created (for the default graph) the first time."""
        with FileWriterCache._lock:
            key = os.fspath(logdir)
            writer = FileWriterCache._cache.get(key)
            if writer is None:
                writer = FileWriter(key, graph=ops.get_default_graph())
                FileWriterCache._cache[key] = writer
            return writer

    @staticmethod
    def clear() -> None:
        """Closes every cached writer and forgets them."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}
