"""Partitioned variables: ``get_variable(partitioner=...)`` and TF's three partitioners.

A partitioner maps a variable's shape and dtype to a partition count per axis
(more than one on at most one axis). ``get_variable`` then creates one variable
per slice, named ``NAME/part_0``, ``NAME/part_1``... (the first ``rows % n``
slices one row longer), each initialized as its part of the whole (initializers
see a ``PartitionInfo`` with the full shape and the slice's offset), and
returns a ``PartitionedVariable`` that iterates over them and reads as their
concatenation. Each slice carries a ``SaveSliceInfo``: ``Saver`` stores the
slices under the one checkpoint key ``NAME`` as TF does (a sliced tensor of the
V2 bundle), and restores them from TF's checkpoints, partitioned or not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import ops

__all__ = [
    "PartitionInfo",
    "PartitionedVariable",
    "SaveSliceInfo",
    "create_partitioned_variables",
    "fixed_size_partitioner",
    "min_max_variable_partitioner",
    "variable_axis_size_partitioner",
]


# -- partitioners --------------------------------------------------------------------------
def _dims(shape: Any) -> list[int]:
    as_list = getattr(shape, "as_list", None)
    return [int(d) for d in (as_list() if as_list is not None else shape)]


def _element_bytes(dtype: Any, bytes_per_string_element: int) -> int:
    dtype = ops.as_dtype(dtype)
    if dtype.name == "string":
        return bytes_per_string_element
    return int(dtype.size)


def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Callable[..., list[int]]:
    """A partitioner of ``num_shards`` slices along ``axis`` (fewer if the axis is shorter).

    Returns:
      ``partitioner(shape, **unused)`` returning the partition list.
    """

    def _partitioner(shape, **unused_args):
        dims = _dims(shape)
        partitions = [1] * len(dims)
        partitions[axis] = min(num_shards, dims[axis])
        return partitions

    return _partitioner


def variable_axis_size_partitioner(
    max_shard_bytes: int,
    axis: int = 0,
    bytes_per_string_element: int = 16,
    max_shards: int | None = None,
) -> Callable[..., list[int]]:
    """A partitioner keeping each slice under ``max_shard_bytes`` (whole rows along ``axis``).

    Args:
      max_shard_bytes: the most bytes a slice may hold (a row larger than this
        is one slice).
      axis: the axis to slice.
      bytes_per_string_element: the size assumed for a string element.
      max_shards: the most slices (None: no limit).

    Returns:
      ``partitioner(shape, dtype)`` returning the partition list.

    Raises:
      ValueError: a non-positive ``max_shard_bytes``, ``bytes_per_string_element``
        or ``max_shards``.
    """
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(
            "Both max_shard_bytes and bytes_per_string_element must be positive. "
            f"Currently, max_shard_bytes is {max_shard_bytes} and"
            f"bytes_per_string_element is {bytes_per_string_element}"
        )
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        dims = _dims(shape)
        element = _element_bytes(dtype, bytes_per_string_element)
        bytes_per_slice = 1.0 * (math.prod(dims) / dims[axis]) * element
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * dims[axis] / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions = [1] * len(dims)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(
    max_partitions: int = 1,
    axis: int = 0,
    min_slice_size: int = 256 << 10,
    bytes_per_string_element: int = 16,
) -> Callable[..., list[int]]:
    """A partitioner of slices of at least ``min_slice_size`` bytes, at most ``max_partitions``.

    Returns:
      ``partitioner(shape, dtype)`` returning the partition list.
    """

    def _partitioner(shape, dtype):
        dims = _dims(shape)
        if axis >= len(dims):
            raise ValueError(
                f"Cannot partition variable along axis {axis} when shape is only {shape}"
            )
        total = math.prod(dims) * _element_bytes(dtype, bytes_per_string_element)
        partitions = [1] * len(dims)
        partitions[axis] = max(
            1, min(dims[axis], max_partitions, int(math.ceil(total / min_slice_size)))
        )
        return partitions

    return _partitioner


# -- slices --------------------------------------------------------------------------------
class PartitionInfo:
    """What an initializer is told about the slice it fills (TF's ``_PartitionInfo``).

    Args:
      full_shape: the whole variable's shape.
      var_offset: the slice's offset in it, per axis.
    """

    def __init__(self, full_shape: Sequence[int], var_offset: Sequence[int]):
        if len(full_shape) != len(var_offset):
            raise ValueError(
                f"Expected equal length, but `var_offset` is of length {len(var_offset)} "
                f"while full_shape is of length {len(full_shape)}."
            )
        self.full_shape = [int(d) for d in full_shape]
        self.var_offset = [int(o) for o in var_offset]

    def single_offset(self, shape: Sequence[int]) -> int:
        """The offset along the sliced axis (0 when nothing is sliced)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape: Sequence[int]) -> int | None:
        """The axis along which ``shape`` is a slice of the full shape (None: none)."""
        slice_dim = None
        for i, (full, offset, d) in enumerate(
            zip(self.full_shape, self.var_offset, shape, strict=True)
        ):
            if d != full or offset:
                if slice_dim is not None:
                    raise ValueError(
                        "Cannot use single_slice_dim() with shapes sliced along more "
                        "than one dimension."
                    )
                slice_dim = i
        return slice_dim


class SaveSliceInfo:
    """Where a slice sits in its full variable, for savers (TF's ``Variable.SaveSliceInfo``).

    Args:
      full_name: the full variable's name (the checkpoint key).
      full_shape: its shape.
      var_offset: the slice's offset per axis.
      var_shape: the slice's shape.
    """

    def __init__(
        self,
        full_name: str | None = None,
        full_shape: Sequence[int] | None = None,
        var_offset: Sequence[int] | None = None,
        var_shape: Sequence[int] | None = None,
    ):
        self.full_name = full_name
        self.full_shape = None if full_shape is None else [int(d) for d in full_shape]
        self.var_offset = None if var_offset is None else [int(o) for o in var_offset]
        self.var_shape = None if var_shape is None else [int(d) for d in var_shape]

    @property
    def spec(self) -> str:
        """TF's slice spec: ``"4 2 0,2:0,2"`` (full shape, then ``offset,length`` per axis)."""
        full = " ".join(str(d) for d in self.full_shape)
        parts = ":".join(f"{o},{n}" for o, n in zip(self.var_offset, self.var_shape, strict=True))
        return f"{full} {parts}"

    @property
    def extents(self) -> list[tuple[int, int]]:
        """``(offset, length)`` per axis."""
        return list(zip(self.var_offset, self.var_shape, strict=True))


def _slices(full_shape: list[int], num_slices: int, axis: int) -> Iterator[tuple[list, list]]:
    """``(offset, shape)`` of each slice: the first ``rows % n`` slices one row longer."""
    longer = full_shape[axis] % num_slices
    base = full_shape[axis] // num_slices
    offset = [0] * len(full_shape)
    for i in range(num_slices):
        shape = list(full_shape)
        shape[axis] = base + (1 if i < longer else 0)
        yield list(offset), shape
        offset[axis] += shape[axis]


def _partitions(partitioner: Callable, shape: tuple[int, ...], dtype: Any) -> list[int]:
    """Calls ``partitioner`` and checks its answer as TF does."""
    if not shape:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=_tensor_shape(shape), dtype=ops.as_dtype(dtype))
    if not isinstance(slicing, Sequence):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    slicing = [int(p) for p in slicing]
    if len(slicing) != len(shape):
        raise ValueError(
            "Partitioner returned a partition list that does not match the Variable's "
            f"rank: {slicing} vs. {shape}"
        )
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(
            f"Can only slice a variable along one dimension: shape: {shape}, "
            f"partitioning: {slicing}"
        )
    return slicing


def _tensor_shape(shape: tuple[int, ...]) -> Any:
    """A ``TensorShape`` where the compat layer has one, else the tuple."""
    try:
        from adapters.v1.framework.tensor_shape import TensorShape
    except ImportError:
        return tuple(shape)
    return TensorShape(list(shape))


# -- the partitioned variable ----------------------------------------------------------------
class PartitionedVariable:
    """The slices of one partitioned variable; reads as their concatenation.

    Iterating gives the slice variables (``NAME/part_i``) in order; arithmetic,
    ``convert_to_tensor`` and ``Session.run`` use ``as_tensor()``.
    """

    def __init__(
        self, name: str, shape: Sequence[int], dtype: Any, variable_list: list, partitions: list
    ):
        if not variable_list:
            raise ValueError(f"variable_list must be non-empty for {name}")
        self._name = name
        self._shape = tuple(int(d) for d in shape)
        self._dtype = ops.as_dtype(dtype)
        self._variable_list = sorted(variable_list, key=lambda v: v._save_slice_info.var_offset)
        self._partitions = list(partitions)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._variable_list)

    def __len__(self) -> int:
        axes = sum(p > 1 for p in self._partitions)
        if axes > 1:
            raise ValueError(
                f"Cannot get a length of partitioned variable with {axes} partition axes"
            )
        return len(self._variable_list)

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._variable_list[0].graph)

    def get_shape(self) -> tuple[int, ...]:
        return self._shape

    def _get_variable_list(self) -> list:
        return list(self._variable_list)

    def _get_partitions(self) -> list[int]:
        return list(self._partitions)

    def _partition_axis(self) -> int:
        return next((i for i, p in enumerate(self._partitions) if p > 1), 0)

    def as_tensor(self) -> ops.Tensor:
        """The full value: the slices concatenated along the partition axis."""
        from adapters.v1.ops.script_ops import lift

        if len(self._variable_list) == 1:
            with ops.name_scope(None):
                return lift(lambda x: x, [self._variable_list[0]], name=self._name + "/read")
        axis = self._partition_axis()
        with ops.name_scope(None), ops.name_scope(self._name + "/ConcatPartitions/"):
            import jax.numpy as jnp

            return lift(
                lambda *parts: jnp.concatenate(parts, axis=axis),
                list(self._variable_list),
                name="concat",
            )

    def _as_graph_tensor(self) -> ops.Tensor:
        return self.as_tensor()

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
               read_value: bool = True) -> list:  # fmt: skip
        """Assigns each slice its part of ``value``; returns the slices' assignments."""
        value = np.asarray(value) if not isinstance(value, ops.Tensor) else value
        out = []
        for v in self._variable_list:
            info = v._save_slice_info
            index = tuple(
                slice(o, o + n) for o, n in zip(info.var_offset, info.var_shape, strict=True)
            )
            out.append(v.assign(value[index], read_value=read_value))
        return out

    def __repr__(self) -> str:
        return (
            f"<PartitionedVariable '{self._name}' shape={self._shape} "
            f"partitions={self._partitions}>"
        )


def _delegate_operators() -> None:
    from adapters.v1.ops.variables import _OPERATORS

    for attr in dir(ops.Tensor):
        if attr.startswith("__") and attr.endswith("__") and attr[2:-2] in _OPERATORS:
            setattr(PartitionedVariable, attr, _delegate(attr))


def _delegate(attr: str):
    def method(self, *args):
        return getattr(self.as_tensor(), attr)(*args)

    method.__name__ = attr
    return method


_delegate_operators()
PartitionedVariable.__array_priority__ = 100


def get_partitioned_variable(
    name: str,
    shape: Any = None,
    dtype: Any = np.float32,
    initializer: Any = None,
    regularizer: Callable | None = None,
    reuse: Any = None,
    trainable: bool | None = None,
    collections: Any = None,
    partitioner: Callable | None = None,
    validate_shape: bool = True,
    constraint: Callable | None = None,
    synchronization: Any = None,
    aggregation: Any = None,
    use_resource: bool | None = None,
    caching_device: Any = None,
) -> PartitionedVariable:
    """Gets or creates the partitioned variable ``name`` (a full name) with TF's rules;
    its parts are resource variables when ``use_resource`` (None:
    ``tf.resource_variables_enabled()``), as ``get_variable``'s, each read
    (``part.value()``) on ``caching_device`` when given (recorded only).

    Raises:
      ValueError: the shape is not fully known or of rank 0; the partitioner's
        answer is invalid; sharing rules (``reuse``) are broken; an unpartitioned
        variable of that name exists.
    """
    from adapters.v1.ops import variable_scope as vs

    graph = ops.get_default_graph()
    store = vs._store(graph)
    partitioned = graph.__dict__.setdefault("_partitioned_vars", {})
    if name in store:
        raise ValueError(
            "A partitioner was provided, but an unpartitioned version of the variable "
            f"was found: {name}.  Perhaps a variable of the same name was already created "
            "without partitioning?"
        )
    if shape is None and isinstance(initializer, ops.Tensor):
        shape = initializer.shape
    if shape is None or any(d is None for d in shape):
        raise ValueError(
            f"Shape of a new partitioned variable must be fully defined, but instead was {shape}."
        )
    shape = tuple(int(d) for d in shape)
    dtype = ops.as_dtype(dtype if dtype is not None else np.float32)
    partitions = _partitions(partitioner, shape, dtype)
    if name in partitioned:
        if not reuse:
            raise ValueError(
                f"Partitioned variable with name {name} already exists. Did you mean to set "
                "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
            )
        existing = partitioned[name]
        if shape != existing.shape:
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified shape {shape} "
                f"and found shape {existing.shape}."
            )
        if dtype != existing.dtype:
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified dtype "
                f"{dtype.name} and found dtype {existing.dtype.name}."
            )
        if partitions != existing._get_partitions():
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified partitions "
                f"{partitions} and found partitions {existing._get_partitions()}."
            )
        return existing
    if reuse is True:
        raise ValueError(
            f"PartitionedVariable {name} does not exist, or was not created with "
            "tf.get_variable(). Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in "
            "VarScope?"
        )
    axis = next((i for i, p in enumerate(partitions) if p > 1), 0)
    num_slices = partitions[axis]
    full_value = None
    if initializer is not None and not callable(initializer):
        full_value = initializer
    slices = []
    for i, (offset, part_shape) in enumerate(_slices(list(shape), num_slices, axis)):
        part_name = f"{name}/part_{i}"
        index = tuple(slice(o, o + n) for o, n in zip(offset, part_shape, strict=True))
        if full_value is None:
            init, init_shape = initializer, part_shape
        elif isinstance(full_value, ops.Tensor):
            with ops.name_scope(None), ops.name_scope(part_name + "/PartitionedInitializer/"):
                init = full_value[index]
            init_shape = None
        else:
            init, init_shape = np.asarray(full_value, dtype=dtype.as_numpy_dtype)[index], None
        var = vs._true_getter_single(
            part_name,
            shape=init_shape,
            dtype=dtype,
            initializer=init,
            regularizer=regularizer,
            reuse=reuse,
            trainable=trainable,
            collections=collections,
            validate_shape=validate_shape,
            constraint=constraint,
            synchronization=synchronization,
            aggregation=aggregation,
            partition_info=PartitionInfo(shape, offset),
            use_resource=use_resource,
            caching_device=caching_device,
        )
        var._save_slice_info = SaveSliceInfo(name, shape, offset, part_shape)
        slices.append(var)
    result = PartitionedVariable(name, shape, dtype, slices, partitions)
    partitioned[name] = result
    return result


def create_partitioned_variables(
    shape: Any,
    slicing: Any,
    initializer: Any,
    dtype: Any = np.float32,
    trainable: bool = True,
    collections: Any = None,
    name: str | None = None,
    reuse: Any = None,
) -> list[Any]:
    """``tf.create_partitioned_variables`` (deprecated in TF): a variable made of slices.

    The variable ``<scope>/part_<i>`` slices are created as ``tf.get_variable`` with a
    partitioner returning ``slicing`` creates them, in a variable scope ``name``
    (default a unique ``"PartitionedVariable"``).

    Args:
      shape: the full shape (fully known, rank at least 1).
      slicing: the number of slices along each axis (one axis above 1 at most).
      initializer: an initializer (called per slice with its ``partition_info``), or
        the full value (a NumPy array or tensor, sliced).
      dtype: the dtype (default float32).
      trainable: whether the slices are trainable (default True).
      collections: the collections (default ``[GLOBAL_VARIABLES]``).
      name: the variable scope's name.
      reuse: reuse the slices of an existing partitioned variable.

    Returns:
      The list of slice variables.

    Raises:
      ValueError: ``shape`` and ``slicing`` differ in length, ``shape`` is empty, or
        TF's partitioning and sharing errors.
    """
    from adapters.v1.ops import variable_scope as vs

    if len(shape) != len(slicing):
        raise ValueError(
            "The 'shape' and 'slicing' of a partitioned Variable must have the length: "
            f"shape: {shape}, slicing: {slicing}"
        )
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    with vs.variable_scope(name, "PartitionedVariable", reuse=reuse) as scope:
        variable = get_partitioned_variable(
            scope.name,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            reuse=scope.reuse,
            trainable=trainable,
            collections=collections,
            partitioner=lambda **unused: slicing,
        )
    return list(variable)
