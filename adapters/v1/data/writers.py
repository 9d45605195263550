"""``tf.data.experimental.TFRecordWriter``: a dataset of strings written as one
TFRecord file.

``write(dataset)`` is a host operation: each run reads the whole dataset and writes
its records with ``jtrain.records``' writer (TF's framing and compression). The
file is written under a temporary name in the same directory and renamed into
place when complete, so a reader never sees a partial file.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from adapters.v1.data.dataset_ops import DatasetV1, Failed
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes, ops
from jtrain import errors
from jtrain.records.tf_record import TFRecordWriter as _RecordWriter

__all__ = ["TFRecordWriter"]

_COMPRESSIONS = ("", "ZLIB", "GZIP")


def _text(value: Any, what: str) -> str:
    if isinstance(value, ops.Tensor):
        from adapters.v1.framework.tensor_util import get_static_value

        value = get_static_value(value)
        if value is None:
            raise NotImplementedError(f"a `{what}` known only when the graph runs")
        value = value.item() if hasattr(value, "item") else value
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str):
        raise TypeError(f"`{what}` must be a string, got {value!r}")
    return value


class TFRecordWriter:
    """Writes a dataset of scalar ``tf.string`` elements to a TFRecord file.

    Args:
      filename: the file's path (a string or a constant ``tf.string`` scalar).
      compression_type: ``None`` or ``""`` (default: none), ``"ZLIB"`` or ``"GZIP"``.

    .. note:: TF 2.21 logs that this name is deprecated (use ``tf.io.TFRecordWriter``);
       the file is TF's, record for record and byte for byte.
    """

    def __init__(self, filename: Any, compression_type: Any = None):
        self._filename = _text(filename, "filename")
        self._compression = (
            "" if compression_type is None else _text(compression_type, "compression_type")
        )

    def write(self, dataset: DatasetV1) -> ops.Operation:
        """An op writing ``dataset``'s records to the file each time it runs.

        Args:
          dataset: a dataset of scalar ``tf.string`` elements.

        Raises:
          TypeError: ``dataset`` is not a dataset, or not of scalar strings (TF's
            message).
          InvalidArgumentError: when run, an unknown ``compression_type``.
        """
        from adapters.v1.data.iterator_ops import _Pipeline

        if not isinstance(dataset, DatasetV1):
            raise TypeError(
                f"Invalid `dataset.` Expected a `tf.data.Dataset` object but got {type(dataset)}."
            )
        spec = dataset._structure
        if not isinstance(spec, Spec) or spec.dtype != dtypes.string or spec.shape.rank != 0:
            shapes = dataset.output_shapes
            types = dataset.output_types
            raise TypeError(
                "Invalid `dataset`. Expected a`dataset` that produces scalar `tf.string` "
                f"elements, but got a dataset which produces elements with shapes {shapes} "
                f"and types {types}."
            )
        pipeline = _Pipeline(dataset)
        path, compression = self._filename, self._compression

        def compute(session: Any, *fed: Any) -> tuple[()]:
            if compression not in _COMPRESSIONS:
                raise errors.InvalidArgumentError(
                    None, None, f"Unsupported compression_type: {compression!r}"
                )
            known = dict(zip(pipeline.placeholders, fed, strict=True))
            directory = os.path.dirname(os.path.abspath(path))
            try:
                fd, temp = tempfile.mkstemp(
                    prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory
                )
            except OSError as e:
                raise errors.from_os_error(e, path) from e
            os.close(fd)
            try:
                with _RecordWriter(temp, compression) as writer:
                    for element in pipeline.start(session, known):
                        if isinstance(element, Failed):
                            raise element.error
                        writer.write(bytes(element[0].item()))
                os.replace(temp, path)
            finally:
                if os.path.exists(temp):
                    os.remove(temp)
            return ()

        return ops.get_default_graph().create_op(
            "DatasetToTFRecord",
            "DatasetToTFRecord",
            inputs=pipeline.placeholders,
            compute=compute,
            host="pre",
        )
