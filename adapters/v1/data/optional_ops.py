"""``tf.data.experimental.Optional`` and ``get_next_as_optional``: an element that may
be absent.

``get_next_as_optional(iterator)`` is a host operation taking the iterator's next
element as ``get_next`` does, but at the end of the dataset it gives an empty
optional instead of raising ``OutOfRangeError``: its outputs are ``has_value`` and the
components (zeros when empty). ``has_value()`` and ``get_value()`` are host operations
reading them; ``get_value()`` of an empty optional raises TF's ``InvalidArgumentError``
when run, as TF's ``OptionalGetValue`` kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes, ops
from jtrain import errors

__all__ = ["Optional", "element_spec_of", "get_next_as_optional", "zeros_of"]

_NO_VALUE = "The given optional does not have a value."


def element_spec_of(element: Any) -> Any:
    """``element`` (nested ``Spec``s) as TF's ``element_spec``: nested ``tf.TensorSpec``s."""
    from adapters.v1.framework.tensor_spec import TensorSpec

    return structure.map_structure(
        lambda s: s if isinstance(s, structure.DatasetSpec) else TensorSpec(s.shape, s.dtype),
        element,
    )


def _specs_of(element_spec: Any) -> Any:
    """Nested ``tf.TensorSpec``s as jtrain's nested ``Spec``s."""

    def leaf(spec: Any) -> Spec:
        if not hasattr(spec, "shape") or not hasattr(spec, "dtype"):
            raise TypeError(f"`element_spec` must hold tf.TensorSpec objects, got {spec!r}")
        return Spec.of(spec.shape, spec.dtype)

    return structure.map_structure(leaf, element_spec)


def zeros_of(spec: Spec) -> np.ndarray:
    """The zeros standing for an absent component (unknown dimensions: 0)."""
    dims = [] if spec.shape.rank is None else [d or 0 for d in spec.shape.as_list()]
    if spec.dtype == dtypes.string:
        return np.full(dims, b"", dtype=object)
    return np.zeros(dims, spec.np_dtype)


def _raise_no_value() -> None:
    raise errors.InvalidArgumentError(None, None, _NO_VALUE)


class Optional:
    """A value that may be absent (``tf.data.experimental.Optional``): make one with
    ``get_next_as_optional(iterator)``, ``Optional.from_value(value)`` or
    ``Optional.empty(element_spec)``.
    """

    def __init__(self, has_value: ops.Tensor | bool, values: list[Any], element: Any):
        self._has_value = has_value  # a host tensor, or True/False known when built
        self._values = values  # tensors (host ones for an iterator's optional)
        self._structure = element  # nested Specs

    @staticmethod
    def from_value(value: Any) -> Optional:
        """An optional holding ``value`` (a nested structure of tensors).

        Args:
          value: tensors, tuples and dicts of them, or values ``tf.convert_to_tensor``
            takes.
        """
        with ops.name_scope("optional"):
            tensors = [ops.convert_to_tensor(v) for v in structure.flatten(value)]
        element = structure.pack(value, [Spec.of(t.shape, t.dtype) for t in tensors])
        return Optional(True, tensors, element)

    @staticmethod
    def empty(element_spec: Any) -> Optional:
        """An optional without a value, whose value would be of ``element_spec``.

        Args:
          element_spec: nested ``tf.TensorSpec``s.

        Raises:
          TypeError: ``element_spec`` holds something that is not a spec.
        """
        element = _specs_of(element_spec)
        return Optional(False, [], element)

    @property
    def element_spec(self) -> Any:
        """The value's type: nested ``tf.TensorSpec``s."""
        return element_spec_of(self._structure)

    def has_value(self, name: str | None = None) -> ops.Tensor:
        """A ``tf.bool`` scalar: whether this optional holds a value.

        Args:
          name: the op's name (default ``"OptionalHasValue"``).
        """
        graph = ops.get_default_graph()
        if isinstance(self._has_value, bool):
            from adapters.v1.ops import constant_op

            return constant_op.constant(self._has_value, name=name or "OptionalHasValue")
        op = graph.create_op(
            "OptionalHasValue",
            name or "OptionalHasValue",
            inputs=[self._has_value],
            compute=lambda session, has: (np.asarray(has, np.bool_),),
            output_specs=[((), dtypes.bool)],
            host="pre",
        )
        return op.outputs[0]

    def get_value(self, name: str | None = None) -> Any:
        """The value's tensors, nested as the value.

        Args:
          name: the op's name (default ``"OptionalGetValue"``).

        Raises:
          InvalidArgumentError: when run, the optional is empty (TF's message).
        """
        graph = ops.get_default_graph()
        specs = structure.tensor_specs(self._structure, "Optional.get_value")
        output_specs = [(s.shape, s.dtype) for s in specs]
        if self._has_value is True:
            from adapters.v1.ops import array_ops

            with ops.name_scope(name or "OptionalGetValue"):
                outputs = [array_ops.identity(v) for v in self._values]
            return structure.pack(self._structure, outputs)
        if self._has_value is False:

            def compute_empty(session: Any) -> tuple[Any, ...]:
                _raise_no_value()
                return ()

            op = graph.create_op(
                "OptionalGetValue",
                name or "OptionalGetValue",
                compute=compute_empty,
                output_specs=output_specs,
                host="pre",
            )
            return structure.pack(self._structure, list(op.outputs))

        def compute(session: Any, has: Any, *values: Any) -> tuple[Any, ...]:
            if not bool(has):
                _raise_no_value()
            return values

        op = graph.create_op(
            "OptionalGetValue",
            name or "OptionalGetValue",
            inputs=[self._has_value, *self._values],
            compute=compute,
            output_specs=output_specs,
            host="pre",
        )
        return structure.pack(self._structure, list(op.outputs))


def get_next_as_optional(iterator: Any) -> Optional:
    """The iterator's next element as an ``Optional``: empty at the end of the dataset
    (no ``OutOfRangeError``).

    Each run of an op reading the optional takes one element (as ``get_next``).

    Args:
      iterator: a ``tf.compat.v1.data.Iterator``.

    Raises:
      AttributeError: ``iterator`` is not an iterator (TF: a dataset has no
        ``get_next_as_optional``).
      FailedPreconditionError: when run, an initializable iterator not initialized.
    """
    from adapters.v1.data.iterator_ops import Iterator

    if not isinstance(iterator, Iterator):
        raise AttributeError(
            f"'{type(iterator).__name__}' object has no attribute 'get_next_as_optional'"
        )
    specs = structure.tensor_specs(iterator._structure, "get_next_as_optional")
    empty = tuple(zeros_of(s) for s in specs)

    def compute(session: Any) -> tuple[Any, ...]:
        try:
            values = iterator._next(session)
        except errors.OutOfRangeError:
            return (np.asarray(False), *empty)
        return (np.asarray(True), *values)

    op = iterator._graph.create_op(
        "IteratorGetNextAsOptional",
        "IteratorGetNextAsOptional",
        compute=compute,
        output_specs=[((), dtypes.bool), *((s.shape, s.dtype) for s in specs)],
        host="pre",
    )
    has_value, *values = op.outputs
    return Optional(has_value, values, iterator._structure)
