"""``tf.Module`` in a TF1 graph: variables and submodules found from attributes.

A module's ``variables``, ``trainable_variables``, ``non_trainable_variables`` and
``submodules`` are found, as TF finds them, by walking its attributes in sorted
name order, through lists, tuples, namedtuples and dicts (a dict's values in sorted
key order): the module's own matches first, then each submodule's, depth first, each
object once. ``name_scope`` is the name scope the module took (uniquified) when
it was created; entering it again re-enters that same scope. A
``tf.train.Checkpoint`` saves a module's variables under its attribute names
(``net/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE``), as TF's.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from adapters.v1.framework import ops
from adapters.v1.ops.variables import Variable

__all__ = ["Module"]

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")
# Where ``tf.function`` keeps a method's per-instance traces (``def_function``).
_METHOD_CACHE = "_tf_function_methods"


def camel_to_snake(value: str) -> str:
    """``"MyNet"`` -> ``"my_net"``, ``"DenseLSTM"`` -> ``"dense_lstm"`` (TF's rule)."""
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


class _ModuleScope:
    """The module's name scope: entering it re-enters the exact scope ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._stack: list[contextlib.AbstractContextManager[str]] = []

    def __enter__(self) -> str:
        scope = ops.name_scope(self.name)
        self._stack.append(scope)
        return scope.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self._stack.pop().__exit__(*exc)


def _leaves_with_paths(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """``(path, leaf)`` of a structure by TF's ``nest.flatten_with_tuple_paths``."""
    if isinstance(value, Mapping):
        for key in sorted(value):
            yield from _leaves_with_paths(value[key], (*path, key))
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        for field in value._fields:
            yield from _leaves_with_paths(getattr(value, field), (*path, field))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves_with_paths(item, (*path, i))
    else:
        yield path, value


class Module:
    """Base class of objects that own variables and submodules (``tf.Module``).

    Args:
      name: the module's name (default: the class name in snake case); it also
        names the module's name scope, made unique in the graph.

    Raises:
      ValueError: ``name`` is not a valid Python identifier (TF's message).
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)."
            )
        self._name = name
        with ops.name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        """The module's name (as given, not uniquified)."""
        return self._name

    @property
    def name_scope(self) -> _ModuleScope:
        """The module's name scope (``with module.name_scope:``)."""
        return _ModuleScope(self._scope_name)

    @property
    def variables(self) -> tuple[Variable, ...]:
        """The variables of this module and its submodules, in TF's order."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        """The non-trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """The modules reachable from this one's attributes (children first)."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(
        self,
        recursive: bool = True,
        predicate: Callable[[Any], bool] | None = None,
        attribute_traversal_key: Callable[[str], Any] | None = None,
        with_path: bool = False,
        expand_composites: bool = False,
    ) -> Iterator[Any]:
        """The objects reachable from the module's attributes that ``predicate``
        accepts (default: all), in TF's order.

        Args:
          recursive: also walk submodules (default True).
          predicate: which leaves to yield (default None: every leaf).
          attribute_traversal_key: the sort key of attribute names (default None:
            the names).
          with_path: yield ``(path, leaf)``, ``path`` the attribute names and
            indices/keys from this module (then an object reached twice is yielded
            twice).
          expand_composites: accepted (TF 2's composite tensors do not exist here).

        Returns:
          A generator of leaves (or ``(path, leaf)`` pairs).
        """
        accept = predicate if predicate is not None else (lambda _: True)
        return _flatten_module(
            self, recursive, accept, attribute_traversal_key, with_path, (), {id(self)}, []
        )

    def _trackable_children(self) -> dict[str, Any]:
        """The module's checkpoint edges (``tf.train.Checkpoint``): its attributes in
        assignment order, named as the attributes (the checkpoint keeps the trackable
        ones: variables, modules, lists, tuples and dicts of them), as TF's
        ``AutoTrackable``."""
        return {k: v for k, v in vars(self).items() if k != _METHOD_CACHE}

    @classmethod
    def with_name_scope(cls, method: Callable[..., Any]) -> Callable[..., Any]:
        """Decorates a method so that it runs inside the module's name scope."""

        @functools.wraps(method)
        def method_with_name_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope


def _is_variable(value: Any) -> bool:
    return isinstance(value, Variable)


def _is_module(value: Any) -> bool:
    return isinstance(value, Module)


def _flatten_module(
    module: Module,
    recursive: bool,
    predicate: Callable[[Any], bool],
    key: Callable[[str], Any] | None,
    with_path: bool,
    module_path: tuple[Any, ...],
    seen: set[int],
    stack: list[int],
) -> Iterator[Any]:
    """TF's walk: this module's attributes, then each submodule found (a module
    already being walked is not entered again)."""
    if id(module) in stack:
        recursive = False
    submodules: list[tuple[tuple[Any, ...], Module]] = []
    attributes = vars(module)
    for name in sorted(attributes, key=key):
        for path, leaf in _leaves_with_paths(attributes[name], (name,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + path, leaf))
    stack.append(id(module))
    for path, sub in submodules:
        yield from _flatten_module(sub, recursive, predicate, key, with_path, path, seen, stack)
    stack.pop()
