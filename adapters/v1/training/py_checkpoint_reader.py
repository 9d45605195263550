"""``tf.train.NewCheckpointReader`` and ``tf.train.load_checkpoint``: TF's
``CheckpointReader`` as TF 1 scripts see it.

jtrain's reader (``jtrain.checkpoint.CheckpointReader``) reads TF's V2 format in
NumPy; this wraps it with what TF's Python reader gives: ``tf.DType`` values in the
dtype map, NumPy scalars (not 0-d arrays) for scalar tensors, TF's
``debug_string`` lines (``name (DT_FLOAT) [2,3]``) and TF's errors and messages.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from adapters.v1.framework import dtypes
from jtrain import checkpoint, errors
from jtrain.protos import types_pb2

__all__ = ["CheckpointReader", "NewCheckpointReader", "load_checkpoint"]


class CheckpointReader:
    """Reads the tensors of one checkpoint (TF's ``py_checkpoint_reader``).

    Args:
      reader: jtrain's reader of the checkpoint.
    """

    def __init__(self, reader: checkpoint.CheckpointReader):
        self._reader = reader

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """Each tensor's shape, a list of ints, by name."""
        return self._reader.get_variable_to_shape_map()

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        """Each tensor's dtype, a ``tf.DType`` (as TF's reader), by name."""
        return {n: dtypes.as_dtype(d) for n, d in self._reader.get_variable_to_dtype_map().items()}

    def has_tensor(self, tensor_str: str) -> bool:
        """Whether the checkpoint holds a tensor named ``tensor_str``."""
        return self._reader.has_tensor(tensor_str)

    def get_tensor(self, tensor_str: str) -> Any:
        """The tensor's value: a NumPy array, or a NumPy scalar for a scalar tensor.

        Raises:
          NotFoundError: no such tensor (TF's message).
        """
        if not self._reader.has_tensor(tensor_str):
            raise errors.NotFoundError(None, None, f"Key {tensor_str} not found in checkpoint")
        value = self._reader.get_tensor(tensor_str)
        return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value

    def debug_string(self) -> bytes:
        """One line per tensor, ``name (DT_TYPE) [d0,d1]``, sorted by name (TF's)."""
        lines = []
        for name, shape in sorted(self.get_variable_to_shape_map().items()):
            dtype = dtypes.as_dtype(self._reader.dtype(name))
            kind = types_pb2.DataType.Name(dtype.as_datatype_enum)
            lines.append(f"{name} ({kind}) [{','.join(str(d) for d in shape)}]\n")
        return "".join(lines).encode()


def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802 - TF's name
    """A reader of the checkpoint whose prefix is ``filepattern`` (``model.ckpt-100``).

    Raises:
      NotFoundError: no checkpoint at that prefix (TF's message).
      DataLossError: ``filepattern`` is a directory (TF reads it as a table file).
    """
    path = os.fspath(filepattern)
    if os.path.isdir(path):
        raise errors.DataLossError(
            None,
            None,
            f"Unable to open table file {path}: FAILED_PRECONDITION: {path}; Is a directory: "
            "perhaps your file is in a different file format and you need to use a "
            "different restore operator?",
        )
    if not os.path.exists(path + ".index"):
        raise errors.NotFoundError(
            None,
            None,
            "Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
            f"for {path}",
        )
    return CheckpointReader(checkpoint.NewCheckpointReader(path))


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """The reader of a checkpoint prefix, or of the latest checkpoint of a directory
    (TF's ``tf.train.load_checkpoint``: the same reader as ``NewCheckpointReader``).

    Raises:
      NotFoundError: the directory has no checkpoint, or the prefix none (TF's messages).
    """
    return CheckpointReader(checkpoint.load_checkpoint(ckpt_dir_or_file))
