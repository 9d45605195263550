"""``tf.nest``: nested structures of lists, tuples, namedtuples and dicts.

TF's rules (``framework/nest.py`` holds ``flatten``): a dict's values are taken
in sorted key order and packed back in the dict's own key order; ``None``,
strings, arrays, tensors and variables are leaves; lists, tuples, namedtuples,
mappings and other sequences (``range``: packed back as a ``list``) are nested.
Errors are TF's, with TF's messages.

.. note::
   ``expand_composites=True`` (TF 2's composite tensors) has no counterpart:
   it raises ``NotImplementedError``; ``False`` (the default) is TF1's meaning.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping, MappingView, Sequence
from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import nest as _nest

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def _composites(expand_composites: bool) -> None:
    if expand_composites:
        raise NotImplementedError(
            "tf.nest: expand_composites=True (TF 2's composite tensors) is not supported; "
            "flatten SparseTensor/IndexedSlices fields yourself"
        )


def is_nested(seq: Any) -> bool:
    """Whether ``seq`` is a structure (list, tuple, mapping, other sequence) and not a leaf."""
    if isinstance(seq, (list, tuple, Mapping)):
        return True
    return (
        isinstance(seq, (Sequence, MappingView))
        and not isinstance(seq, (str, bytes))
        and not _nest.is_leaf(seq)
    )


def flatten(structure: Any, expand_composites: bool = False) -> list[Any]:
    """The leaves of ``structure`` in TF's order (a leaf gives ``[leaf]``)."""
    _composites(expand_composites)
    return _nest.flatten(structure)


def _children(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [value[k] for k in sorted(value)]
    return list(value)


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _rebuild(instance: Any, children: list[Any]) -> Any:
    if isinstance(instance, Mapping):
        by_key = dict(zip(sorted(instance), children, strict=True))
        if isinstance(instance, collections.defaultdict):
            out = collections.defaultdict(instance.default_factory)
            out.update((k, by_key[k]) for k in instance)
            return out
        return type(instance)((k, by_key[k]) for k in instance)  # type: ignore[call-arg]
    if _is_namedtuple(instance):
        return type(instance)(*children)
    if isinstance(instance, (list, tuple)):
        return type(instance)(children)
    return list(children)


def _pack(structure: Any, flat: list[Any], index: int) -> tuple[Any, int]:
    if not is_nested(structure):
        return flat[index], index + 1
    children = []
    for child in _children(structure):
        value, index = _pack(child, flat, index)
        children.append(value)
    return _rebuild(structure, children), index


def pack_sequence_as(structure: Any, flat_sequence: Any, expand_composites: bool = False) -> Any:
    """``flat_sequence``'s values in the shape of ``structure`` (the inverse of ``flatten``).

    Raises:
      TypeError: ``flat_sequence`` is not a sequence.
      ValueError: the number of leaves differs.
    """
    _composites(expand_composites)
    if not is_nested(flat_sequence):
        raise TypeError(
            f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but found "
            f"incompatible type `{type(flat_sequence)}` instead."
        )
    flat = list(flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever "
                f"the input is a sequence ({type(flat_sequence)}) of length {len(flat)}.\n  "
                f"{flat_sequence}\nnest cannot guarantee that it is safe to map one to the other."
            )
        return flat[0]
    leaves = len(flatten(structure))
    if leaves != len(flat):
        raise ValueError(
            f"Could not pack sequence. Structure had {leaves} atoms, but flat_sequence had "
            f"{len(flat)} items.  Structure: {structure}, flat_sequence: {flat_sequence}."
        )
    return _pack(structure, flat, 0)[0]


def _show(value: Any) -> str:
    return f"type={type(value).__name__} str={value}"


def _same_type(a: Any, b: Any) -> bool:
    if type(a) is type(b) or (isinstance(a, Mapping) and isinstance(b, Mapping)):
        return True
    return (
        _is_namedtuple(a)
        and _is_namedtuple(b)
        and type(a).__name__ == type(b).__name__
        and type(a)._fields == type(b)._fields
    )


def _difference(a: Any, b: Any, check_types: bool) -> tuple[type[Exception], str] | None:
    nested_a, nested_b = is_nested(a), is_nested(b)
    if nested_a != nested_b:
        seq, other = (a, b) if nested_a else (b, a)
        return ValueError, (
            f'Substructure "{_show(seq)}" is a sequence, while substructure "{_show(other)}" is not'
        )
    if not nested_a:
        return None
    if check_types and not _same_type(a, b):
        return TypeError, (
            f"The two namedtuples don't have the same sequence type. First structure "
            f"{_show(a)} has type {type(a).__name__}, while second structure {_show(b)} has "
            f"type {type(b).__name__}"
        )
    if check_types and isinstance(a, Mapping) and isinstance(b, Mapping) and set(a) != set(b):
        return ValueError, (
            f"The two dictionaries don't have the same set of keys. First structure has keys "
            f"{_show(list(a))}, while second structure has keys {_show(list(b))}"
        )
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
        return ValueError, (
            f"The two structures don't have the same number of elements. First structure: "
            f"{_show(a)}. Second structure: {_show(b)}"
        )
    for x, y in zip(ca, cb, strict=True):
        found = _difference(x, y, check_types)
        if found is not None:
            return found
    return None


def _dots(structure: Any) -> Any:
    if not is_nested(structure):
        return "."
    return _rebuild(structure, [_dots(c) for c in _children(structure)])


def _dotted(structure: Any) -> str:
    text = str(_dots(structure))
    return text.replace("'.'", ".")


def assert_same_structure(
    nest1: Any, nest2: Any, check_types: bool = True, expand_composites: bool = False
) -> None:
    """Asserts two structures nest the same way (leaves may differ).

    Args:
      nest1: a structure.
      nest2: a structure.
      check_types: also require the same sequence types (namedtuples of the same
        name and fields count as one type, any two mappings too) and, for two
        mappings, the same keys (without it, TF compares neither).
      expand_composites: ``False`` only (see the module).

    Raises:
      ValueError: different nesting, number of elements or dict keys.
      TypeError: different sequence types (``check_types``).
    """
    _composites(expand_composites)
    found = _difference(nest1, nest2, check_types)
    if found is not None:
        kind, detail = found
        raise kind(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {_show(nest1)}\n\nSecond structure: {_show(nest2)}\n\n"
            f"More specifically: {detail}\n"
            f"Entire first structure:\n{_dotted(nest1)}\n"
            f"Entire second structure:\n{_dotted(nest2)}"
        )


def map_structure(func: Callable[..., Any], *structure: Any, **kwargs: Any) -> Any:
    """``func`` applied to the leaves of ``structure`` (several structures: leaf by leaf),
    in the first structure's shape.

    Args:
      func: called with one leaf of each structure.
      *structure: structures of the same nesting.
      **kwargs: ``check_types`` (default True), ``expand_composites`` (False).

    Raises:
      ValueError: no structure, an unknown keyword, or different structures.
      TypeError: different sequence types (``check_types``).
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: "
            + ", ".join(f"`{k}`" for k in kwargs)
        )
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types, expand_composites)
    columns = [flatten(s, expand_composites) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*columns, strict=True)])


__getattr__ = missing_name_getattr("tf.nest", globals())
