"""``tf.compat.v1.saved_model.main_op``: the op a SavedModel runs after its restore."""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import ops

__all__ = ["main_op", "main_op_with_restore"]


def main_op() -> Any:
    """The group of the global and local variables' initializers and the tables'
    initializer (``tf.compat.v1.saved_model.main_op.main_op``).

    Returns:
      The grouped ``Operation``.
    """
    from adapters.v1.ops.control_flow_ops import group
    from adapters.v1.ops.lookup_ops import tables_initializer
    from adapters.v1.ops.variables import (
        global_variables_initializer,
        local_variables_initializer,
    )

    init = global_variables_initializer()
    init_local = local_variables_initializer()
    init_tables = tables_initializer()
    return group(init, init_local, init_tables)


def main_op_with_restore(restore_op_name: Any) -> Any:
    """``main_op()``, then the op ``restore_op_name``
    (``tf.compat.v1.saved_model.main_op_with_restore``).

    Args:
      restore_op_name: the name (or op) of the restore op to group after ``main_op``.

    Returns:
      The grouped ``Operation``.
    """
    from adapters.v1.ops.control_flow_ops import group

    restore = restore_op_name
    if isinstance(restore, (str, bytes)):
        restore = ops.get_default_graph().as_graph_element(restore)
    with ops.control_dependencies([main_op()]):
        return group(restore)
