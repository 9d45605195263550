"""TF1's top-level graph context managers and small aliases: ``tf.op_scope``,
``tf.init_scope``, ``tf.container``, ``tf.colocate_with``,
``tf.executing_eagerly_outside_functions``, ``tf.get_logger``, ``tf.NoGradient``,
``tf.no_regularizer``, ``tf.initialize_all_tables``.

.. note::
   jtrain places nothing (XLA places each ``Session.run`` program):
   ``colocate_with`` and ``container`` check their arguments as TF does and
   record nothing on the ops (TF adds a ``_class: "loc:@<op>"`` attribute to the
   ops created inside ``colocate_with``; jtrain's ``GraphDef``s do not have it).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from adapters.v1.framework import ops
from adapters.v1.ops.custom_gradient import no_gradient
from adapters.v1.ops.lookup_ops import tables_initializer
from adapters.v1.platform import tf_logging

__all__ = [
    "NoGradient",
    "colocate_with",
    "container",
    "executing_eagerly_outside_functions",
    "get_logger",
    "init_scope",
    "initialize_all_tables",
    "no_regularizer",
    "op_scope",
]

NoGradient = no_gradient  # TF's older name of ``tf.no_gradient``


def get_logger() -> logging.Logger:
    """TF's logger, ``logging.getLogger("tensorflow")`` (the one ``tf.logging`` writes to;
    given a stderr handler when neither it nor the root logger has one, as TF)."""
    return tf_logging._get_logger()


def no_regularizer(_: Any) -> None:
    """A regularizer adding nothing (``regularizer=tf.no_regularizer`` turns a scope's
    default regularizer off): returns ``None``."""
    return None


def initialize_all_tables(name: str = "init_all_tables") -> ops.Operation:
    """Deprecated TF name of ``tf.tables_initializer`` (same op, same default name)."""
    return tables_initializer(name=name)


def executing_eagerly_outside_functions() -> bool:
    """``False``: jtrain is TF1 graph mode (TF answers ``False`` inside a graph)."""
    return False


@contextlib.contextmanager
def op_scope(values: Any, name: str | None, default_name: str | None = None) -> Iterator[str]:
    """Deprecated TF1 spelling of ``tf.name_scope(name, default_name, values)``.

    Yields:
      The scope's name with its trailing ``/``.
    """
    with ops.name_scope(name, default_name=default_name, values=values) as scope:
        yield scope


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """The context TF creates variables' initializers in: outside every control
    dependency, in the same name scope and device scope (in TF1 graph mode there is
    no outer function graph to lift into)."""
    with ops.control_dependencies(None):
        yield


def container(container_name: str) -> Any:
    """``get_default_graph().container(container_name)`` (see ``Graph.container``)."""
    return ops.get_default_graph().container(container_name)


def colocate_with(op: Any, ignore_existing: bool = False) -> Any:
    """``get_default_graph().colocate_with(op, ignore_existing)`` (deprecated in TF;
    see ``Graph.colocate_with``).

    Raises:
      ValueError: ``op`` is ``None`` without ``ignore_existing=True``.
    """
    return ops.get_default_graph().colocate_with(op, ignore_existing)
