"""TF's ``nest.flatten`` for the compat layer: one home for what is a leaf.

Two callers flatten nested structures of graph values, and their rules differ in
one respect, kept explicit here (``pytree``):

- ``Session.run``'s tuple ``feed_dict`` keys and their values (TF's
  ``flatten_dict_items``) are flattened by TF's rules exactly: lists, tuples and
  their subclasses (namedtuples, an ``LSTMStateTuple``), other sequences (``range``,
  ``bytearray``), mappings and their views, a mapping's values in sorted key order
  (an ``OrderedDict``'s too).
- Control flow (``tf.cond``, ``tf.while_loop``, ``tf.scan``, the RNN functions)
  needs the structure back (``PyTreeDef.unflatten``, structures compared with
  ``==``): it flattens with JAX's pytree rules (``pytree=True``), where an
  ``OrderedDict`` keeps its insertion order and a list or tuple subclass that is
  not a namedtuple is a leaf. For the structures TF1 code passes there (lists,
  tuples, namedtuples, dicts) both rules give the same leaves in the same order.

In both, ``None``, tensors (and what converts to one: variables), operations and
``TensorShape``s are leaves, and so are ``str``, ``bytes`` and NumPy arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, MappingView, Sequence
from typing import Any, Literal, overload

import jax

from adapters.v1.framework import ops, tensor_shape

__all__ = ["flatten", "is_leaf"]


def is_leaf(value: Any) -> bool:
    """Whether ``value`` is a leaf however it is built: ``None``, a tensor (or a
    variable), an operation or a ``TensorShape``."""
    return (
        value is None
        or isinstance(value, (ops.Tensor, ops.Operation, tensor_shape.TensorShape))
        or hasattr(value, "_as_graph_tensor")
    )


@overload
def flatten(structure: Any, *, pytree: Literal[False] = False) -> list[Any]: ...


@overload
def flatten(structure: Any, *, pytree: Literal[True]) -> tuple[list[Any], Any]: ...


def flatten(structure: Any, *, pytree: bool = False) -> Any:
    """The leaves of ``structure`` by TF's ``nest.flatten`` rules (a list), or, with
    ``pytree=True``, ``(leaves, PyTreeDef)`` by JAX's container rules (see the module
    docstring for where they differ).

    Raises:
      TypeError: a mapping's keys cannot be sorted (TF's error).
    """
    if pytree:
        return jax.tree.flatten(structure, is_leaf=is_leaf)
    out: list[Any] = []
    _flatten_into(structure, out)
    return out


def _flatten_into(value: Any, out: list[Any]) -> None:
    if isinstance(value, (list, tuple)):
        for item in value:
            _flatten_into(item, out)
    elif isinstance(value, Mapping):
        for key in sorted(value):
            _flatten_into(value[key], out)
    elif (
        isinstance(value, (Sequence, MappingView))
        and not isinstance(value, (str, bytes))
        and not is_leaf(value)
    ):
        for item in value:
            _flatten_into(item, out)
    else:
        out.append(value)
