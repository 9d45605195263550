"""Nested elements of a dataset: tuples, namedtuples and dicts of components.

As ``tf.nest`` does for ``tf.data``: a tuple (or namedtuple) or a dict is a
structure, a dict flattened in sorted key order; anything else (a NumPy array, a
Python list, a number, a tensor) is one component. A dataset's elements travel
through its Python pipeline flat, as tuples of NumPy arrays, and are packed into
the user's structure only where the user sees them (``get_next``, a ``map``'s
function).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1.framework import dtypes
from adapters.v1.framework.tensor_shape import TensorShape, as_shape

__all__ = [
    "DatasetSpec",
    "Spec",
    "Structured",
    "flatten",
    "flatten_up_to",
    "pack",
    "map_structure",
    "same_structure",
    "tensor_specs",
    "is_structure",
]


@dataclasses.dataclass(frozen=True)
class Spec:
    """One component's static type: its ``TensorShape`` and ``DType`` (a leaf, not a
    structure)."""

    shape: TensorShape
    dtype: dtypes.DType

    @staticmethod
    def of(shape: Any, dtype: Any) -> Spec:
        return Spec(as_shape(shape), dtypes.as_dtype(dtype).base_dtype)

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(object) if self.dtype == dtypes.string else np.dtype(self.dtype.dtype)


class DatasetSpec:
    """A component that is itself a dataset (``tf.data.DatasetSpec``): ``Dataset.window``'s
    elements. TF1's ``output_types``, ``output_shapes`` and ``output_classes`` give the
    spec itself for such a component, as TF's do.

    Args:
      element_spec: the nested dataset's elements (nested ``Spec``s in jtrain).
      dataset_shape: the shape of the dataset component (default ``()``).
    """

    def __init__(self, element_spec: Any, dataset_shape: Any = ()):
        self.element_spec = element_spec
        self.dataset_shape = as_shape(dataset_shape)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DatasetSpec)
            and self.element_spec == other.element_spec
            and self.dataset_shape == other.dataset_shape
        )

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"DatasetSpec({spec_repr(self.element_spec)}, {self.dataset_shape!r})"


def spec_repr(element: Any) -> str:
    """``element`` (nested ``Spec``s) as TF prints its ``element_spec`` (``TensorSpec``s)."""

    def leaf(s: Any) -> str:
        if not isinstance(s, Spec):
            return repr(s)
        if s.shape.rank is None:
            shape = "<unknown>"
        else:
            dims = s.shape.as_list()
            shape = "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
        return f"TensorSpec(shape={shape}, dtype=tf.{s.dtype.name}, name=None)"

    inner = map_structure(leaf, element)
    return inner if isinstance(inner, str) else repr(inner).replace("'", "")


def tensor_specs(element: Any, what: str) -> list[Spec]:
    """The flat ``Spec``s of ``element``, for ``what`` that makes tensors of them.

    Raises:
      NotImplementedError: a component is a dataset (``Dataset.window``'s elements).
    """
    specs = flatten(element)
    if any(isinstance(s, DatasetSpec) for s in specs):
        raise NotImplementedError(
            f"{what} of elements that are datasets (Dataset.window's) is not in adapters.v1: "
            "read the windows with flat_map or interleave (e.g. "
            "dataset.window(n).flat_map(lambda w: w.batch(n)))"
        )
    return specs


def is_structure(value: Any) -> bool:
    """Whether ``value`` is a tuple, namedtuple or dict (not one component)."""
    return isinstance(value, (tuple, dict))


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return list(value)


def flatten(value: Any) -> list[Any]:
    """The components of ``value``, depth first, dict keys sorted."""
    if not is_structure(value):
        return [value]
    out: list[Any] = []
    for child in _children(value):
        out.extend(flatten(child))
    return out


def _rebuild(template: Any, children: list[Any]) -> Any:
    if isinstance(template, dict):
        keys = sorted(template)
        return type(template)((k, children[keys.index(k)]) for k in template)
    if hasattr(template, "_fields"):  # a namedtuple
        return type(template)(*children)
    return tuple(children)


def pack(template: Any, flat: list[Any]) -> Any:
    """``flat`` (as ``flatten`` gives them) in ``template``'s structure."""
    it = iter(flat)

    def build(node: Any) -> Any:
        if not is_structure(node):
            return next(it)
        return _rebuild(node, [build(c) for c in _children(node)])

    return build(template)


def map_structure(fn: Callable[..., Any], template: Any, *others: Any) -> Any:
    """``fn`` applied to each component of ``template`` (and the same of ``others``)."""
    flats = [flatten(template), *(flatten(o) for o in others)]
    return pack(template, [fn(*xs) for xs in zip(*flats, strict=True)])


def flatten_up_to(template: Any, value: Any) -> list[Any]:
    """``value``'s parts at ``template``'s components (a shape ``()`` or ``[None]`` at a
    component is one part, not a structure).

    Raises:
      ValueError: ``value`` does not nest as ``template`` does.
    """
    if not is_structure(template):
        return [value]
    if isinstance(template, dict) != isinstance(value, dict) or not isinstance(
        value, (tuple, list, dict)
    ):
        raise ValueError(f"{value!r} does not have the structure of {template!r}")
    if isinstance(template, dict) and sorted(template) != sorted(value):
        raise ValueError(f"{value!r} does not have the keys of {template!r}")
    ts, vs = _children(template), _children(value)
    if len(ts) != len(vs):
        raise ValueError(f"{value!r} does not have the structure of {template!r}")
    return [part for t, v in zip(ts, vs, strict=True) for part in flatten_up_to(t, v)]


def same_structure(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` nest the same way (same dict keys, same tuple lengths)."""
    if is_structure(a) != is_structure(b):
        return False
    if not is_structure(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return False
    ca, cb = _children(a), _children(b)
    return len(ca) == len(cb) and all(same_structure(x, y) for x, y in zip(ca, cb, strict=True))


class Structured:
    """TF1's ``output_types``/``output_shapes``/``output_classes`` of an object whose
    elements are ``self._structure`` (a dataset, an iterator)."""

    _structure: Any

    @property
    def output_types(self) -> Any:
        """The ``DType`` of each component, nested as the elements."""
        return map_structure(
            lambda s: s if isinstance(s, DatasetSpec) else s.dtype, self._structure
        )

    @property
    def output_shapes(self) -> Any:
        """The static ``TensorShape`` of each component, nested as the elements."""
        return map_structure(
            lambda s: s if isinstance(s, DatasetSpec) else s.shape, self._structure
        )

    @property
    def output_classes(self) -> Any:
        """The class of each component (``tf.Tensor``), nested as the elements."""
        from adapters.v1.framework import ops

        return map_structure(
            lambda s: s if isinstance(s, DatasetSpec) else ops.Tensor, self._structure
        )
