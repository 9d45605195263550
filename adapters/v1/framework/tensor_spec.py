"""``tf.TensorSpec``: the static type of a tensor (its shape, dtype and a name).

What ``tf.data.Dataset.from_generator(output_signature=...)`` takes, and what a
script compares tensors against (``spec.is_compatible_with(tensor)``).
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape

__all__ = ["TensorSpec"]


class TensorSpec:
    """The type of a ``tf.Tensor``: ``TensorSpec(shape, dtype=tf.float32, name=None)``.

    Args:
      shape: anything ``tf.TensorShape`` takes (``None``: unknown rank; a ``None``
        dimension: unknown size).
      dtype: anything ``tf.as_dtype`` takes (default ``tf.float32``).
      name: an optional name, kept as given (TF does not check it).

    Raises:
      TypeError: ``shape`` is not a shape or ``dtype`` not a dtype (TF's classes).

    .. note::
       As TF's, two specs are equal only when their shapes, dtypes *and names*
       are, but ``is_compatible_with`` ignores the names.
    """

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: Any = None) -> None:
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @property
    def shape(self) -> TensorShape:
        """The ``TensorShape`` of the tensors of this type."""
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        """The ``DType`` of the tensors of this type."""
        return self._dtype

    @property
    def name(self) -> Any:
        """The name given to the constructor (``None`` if none)."""
        return self._name

    @property
    def value_type(self) -> type:
        """``tf.Tensor``: the Python type of the values this spec describes."""
        return ops.Tensor

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """Whether ``spec_or_value`` (a ``TensorSpec`` or a ``tf.Tensor``) could have
        this type: compatible dtypes and shapes (``None`` dimensions match any size);
        the names are not compared. Anything else (a variable, a NumPy array,
        ``None``) is not compatible, as in TF.
        """
        if not isinstance(spec_or_value, (TensorSpec, ops.Tensor)):
            return False
        return self._dtype.is_compatible_with(
            spec_or_value.dtype
        ) and self._shape.is_compatible_with(spec_or_value.shape)

    @classmethod
    def from_tensor(cls, tensor: Any, name: Any = None) -> TensorSpec:
        """The spec of ``tensor``: its static shape and dtype, named ``name`` or, by
        default, ``tensor``'s op name (``"Const"`` for ``tf.constant(...)``).

        Raises:
          ValueError: ``tensor`` is not a ``tf.Tensor`` (a variable is not, as in
            classic TF1).
        """
        if not isinstance(tensor, ops.Tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        return cls(tensor.shape, tensor.dtype, name or tensor.op.name)

    @classmethod
    def from_spec(cls, spec: TensorSpec, name: Any = None) -> TensorSpec:
        """A copy of ``spec`` named ``name`` (default: ``spec``'s name)."""
        return cls(spec.shape, spec.dtype, name or spec.name)

    def __eq__(self, other: object) -> bool:
        return (
            type(self) is type(other)
            and isinstance(other, TensorSpec)
            and self._shape == other._shape
            and self._dtype == other._dtype
            and self._name == other._name
        )

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        dims = None if self._shape.rank is None else tuple(self._shape.as_list())
        return hash((dims, self._dtype, self._name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return TensorSpec, (self._shape, self._dtype, self._name)
