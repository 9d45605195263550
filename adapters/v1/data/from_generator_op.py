"""``Dataset.from_generator``: elements a Python generator yields.

Each pass over the dataset (each iterator initialization, each epoch of a
``repeat``) calls ``generator(*args)`` again, with ``args`` evaluated as NumPy
values, and converts what it yields as TF does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import DatasetV1, Element, Run, _component
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape, as_shape
from adapters.v1.framework.tensor_spec import TensorSpec
from adapters.v1.ops.constant_op import literal_array
from jtrain import errors

__all__ = ["FromGenerator", "signature_types_shapes"]


def _bad(message: str) -> errors.InvalidArgumentError:
    """The error a generator's bad element gives at ``get_next`` (TF's ``py_func``
    turns the ``TypeError`` into an ``InvalidArgumentError``)."""
    return errors.InvalidArgumentError(None, None, f"TypeError: {message}")


def signature_types_shapes(signature: Any, output_types: Any, output_shapes: Any) -> tuple:
    """``from_generator``'s ``output_signature`` (nested ``tf.TensorSpec``s) as the
    ``(output_types, output_shapes)`` it stands for, as TF derives them.

    Raises:
      TypeError: ``output_types`` or ``output_shapes`` given too, or a leaf that is
        not a ``TypeSpec`` (TF's messages).
      NotImplementedError: a ``TypeSpec`` leaf other than ``tf.TensorSpec``.
    """
    for given, what in ((output_types, "output_types"), (output_shapes, "output_shapes")):
        if given is not None:
            raise TypeError(
                f"The `{what}` argument can not be used together with the "
                "`output_signature` argument."
            )
    specs = structure.flatten(signature)
    for spec in specs:
        if isinstance(spec, structure.DatasetSpec):
            raise NotImplementedError(
                "Dataset.from_generator(output_signature=...): a tf.data.DatasetSpec "
                "component is not supported in adapters.v1; give tf.TensorSpec components"
            )
        if not isinstance(spec, TensorSpec):
            raise TypeError(
                "`output_signature` must contain objects that are subclass of "
                f"`tf.TypeSpec` but found {type(spec)} which is not."
            )
    return (
        structure.pack(signature, [s.dtype for s in specs]),
        structure.pack(signature, [s.shape for s in specs]),
    )


def _tf_convert(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` as TF's ``py_func`` converts a returned value (``np.asarray`` with the
    dtype; strings as object arrays of ``bytes``)."""
    if dtype.kind == "O":
        return literal_array(value, dtype)
    return np.asarray(value, dtype=dtype, order="C")


class FromGenerator(DatasetV1):
    """``Dataset.from_generator(generator, output_types, output_shapes, args)``."""

    def __init__(self, generator: Any, output_types: Any, output_shapes: Any, args: Any):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_types is None:
            raise TypeError(
                "To specify the output signature you need to provide either the "
                "`output_signature` argument or the `output_types` argument."
            )
        types = structure.map_structure(lambda t: dtypes.as_dtype(t), output_types)
        if output_shapes is None:
            shapes = structure.map_structure(lambda _: TensorShape(None), types)
        else:
            parts = structure.flatten_up_to(types, output_shapes)
            shapes = structure.pack(types, [as_shape(p) for p in parts])
        self._types = types
        self._structure = structure.map_structure(Spec.of, shapes, types)
        # TF checks shapes and converts with NumPy when output_types and output_shapes
        # are both truthy (a structure, or a shape of known rank); otherwise it converts
        # as tf.convert_to_tensor does.
        self._numpy_rules = structure.is_structure(shapes) or shapes.rank is not None
        self._generator = generator
        self._args = [_component(a) for a in (args or ())]
        self._arg_specs = [
            Spec.of(a.shape, a.dtype) if isinstance(a, ops.Tensor) else None for a in self._args
        ]

    def _captures(self) -> list[ops.Tensor]:
        return [a for a in self._args if isinstance(a, ops.Tensor)]

    def _arg_values(self, run: Run) -> list[Any]:
        values = []
        for a, spec in zip(self._args, self._arg_specs, strict=True):
            if spec is not None:
                a = np.asarray(run.known[a], dtype=spec.np_dtype)
            values.append(a[()] if a.ndim == 0 else a)  # a scalar as NumPy's scalar, as TF's
        return values

    def _convert(self, value: Any) -> Element:
        specs: list[Spec] = self._flat_specs()
        try:
            parts = structure.flatten_up_to(self._types, value)
        except ValueError:
            raise _bad(
                "`generator` yielded an element that did not match the expected structure. "
                f"The expected structure was {self._types}, but the yielded element was {value}."
            ) from None
        out = []
        for part, spec in zip(parts, specs, strict=True):
            if self._numpy_rules:
                try:
                    arr = _tf_convert(part, spec.np_dtype)
                except (TypeError, ValueError):
                    raise _bad(
                        "`generator` yielded an element that could not be converted to the "
                        f"expected type. The expected type was {spec.dtype.name}, but the "
                        f"yielded element was {part}."
                    ) from None
                if not spec.shape.is_compatible_with(arr.shape):
                    raise _bad(
                        f"`generator` yielded an element of shape {arr.shape} where an "
                        f"element of shape {spec.shape} was expected."
                    )
            else:
                try:
                    arr = literal_array(part, spec.np_dtype)
                    if arr.dtype != spec.np_dtype:  # a string for a number, or the reverse
                        raise TypeError(arr.dtype)
                except (TypeError, ValueError):
                    raise _bad(
                        "`generator` yielded an element that did not match the expected "
                        f"structure. The expected structure was TensorSpec(shape="
                        f"{spec.shape}, dtype={spec.dtype!r}, name=None), but the yielded "
                        f"element was {value}."
                    ) from None
            out.append(arr)
        return tuple(out)

    def _elements(self, run: Run) -> Iterator[Element]:
        values = iter(self._generator(*self._arg_values(run)))
        while True:
            try:
                value = next(values)
            except StopIteration:
                return
            except errors.OpError:
                raise
            except Exception as e:
                # as TF's py_func: the Python error's class (UnknownError for most), at this
                # get_next; the generator is done after it (the next get_next: the end)
                from adapters.v1.ops.script_ops import _py_error

                yield run.failure(self, _py_error(None, e))
                return
            try:
                element = self._convert(value)
            except errors.InvalidArgumentError as e:
                yield run.failure(self, e)  # as TF's, the generator goes on after it
                continue
            yield element
