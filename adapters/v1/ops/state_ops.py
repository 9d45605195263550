"""TF1's state ops: ``tf.assign``, ``tf.assign_add``, ``tf.scatter_*`` on variables.

Each function is TF's ``tf.compat.v1`` name with TF's signature; the work is the
variable's own op (``Variable.assign``, ``Variable.scatter_add``...: one home for
each update), named as TF names its op (``Assign``, ``ScatterAdd``...) in the
current name scope. The result is the variable's value after the write (TF1's
ref semantics: a fetched result is the new value). ``use_locking`` is accepted:
a run's updates are applied in one program, in the run's order.

Scatter indices follow TF's rules: ``scatter_*`` index the first axis,
``scatter_nd_*`` the leading axes named by the last axis of ``indices``;
duplicate indices accumulate for ``add``/``sub``/``mul``/``div``/``max``/``min``.
For ``scatter_update``/``scatter_nd_update`` with duplicate indices TF leaves the
winner undefined; here the last occurrence wins (XLA's CPU scatter applies
updates in order, as TF's CPU kernel does). An index outside the variable fails
the run with TF's ``InvalidArgumentError`` and message (``indices[1] = 7 is not in
[0, 5)``); the run's in-range updates are written first (TF's kernel stops at the
bad index, leaving the rows after it unwritten).
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import ops
from adapters.v1.ops.variables import Variable, count_up_to

__all__ = [
    "assign",
    "assign_add",
    "assign_sub",
    "batch_scatter_update",
    "count_up_to",
    "scatter_add",
    "scatter_div",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_nd_add",
    "scatter_nd_sub",
    "scatter_nd_update",
    "scatter_sub",
    "scatter_update",
]


def _variable(ref: Any, op_type: str) -> Variable:
    """``ref`` as the variable it must be (TF: a ref tensor, i.e. a variable)."""
    if not isinstance(ref, Variable):
        raise TypeError(
            f"Input 'ref' of '{op_type}' Op requires l-value input: tf.{_OP_NAMES[op_type]} "
            f"updates a tf.Variable, got {type(ref).__name__} {getattr(ref, 'name', ref)!r}"
        )
    return ref


def _op_name(name: str | None, op_type: str) -> str:
    """The node name: ``name``, else TF's op type in the current name scope."""
    return name or op_type


def assign(
    ref: Any,
    value: Any,
    validate_shape: bool | None = None,
    use_locking: bool | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """Sets ``ref`` to ``value``.

    Args:
      ref: a ``Variable``.
      value: a tensor or value of the variable's shape (and dtype).
      validate_shape: TF's default (None) validates; ``False`` (a new shape) is
        not supported: jtrain variables have static shapes.
      use_locking: accepted (a run's updates are applied in order).
      name: the op name (default ``"Assign"``).

    Returns:
      The variable's value after the assignment.

    Raises:
      TypeError: ``ref`` is not a variable.
      ValueError: ``value``'s shape differs from the variable's.
      NotImplementedError: ``validate_shape=False``.
    """
    var = _variable(ref, "Assign")
    if validate_shape is False:
        raise NotImplementedError(
            "tf.assign(validate_shape=False) changes a variable's shape; jtrain variables "
            "have static shapes: create a new variable of the new shape"
        )
    return var.assign(value, use_locking=bool(use_locking), name=_op_name(name, "Assign"))


def assign_add(
    ref: Any, value: Any, use_locking: bool | None = None, name: str | None = None
) -> ops.Tensor:
    """Adds ``value`` to ``ref``; returns the new value (op ``AssignAdd``).

    Raises:
      TypeError: ``ref`` is not a variable.
    """
    var = _variable(ref, "AssignAdd")
    return var.assign_add(value, use_locking=bool(use_locking), name=_op_name(name, "AssignAdd"))


def assign_sub(
    ref: Any, value: Any, use_locking: bool | None = None, name: str | None = None
) -> ops.Tensor:
    """Subtracts ``value`` from ``ref``; returns the new value (op ``AssignSub``).

    Raises:
      TypeError: ``ref`` is not a variable.
    """
    var = _variable(ref, "AssignSub")
    return var.assign_sub(value, use_locking=bool(use_locking), name=_op_name(name, "AssignSub"))


def _scatter(method: str, op_type: str, mode: str, default_locking: bool):
    """The public function of one ``tf.scatter_*`` name (``Variable.<method>``)."""

    def scatter(
        ref: Any,
        indices: Any,
        updates: Any,
        use_locking: bool = default_locking,
        name: str | None = None,
    ) -> ops.Tensor:
        var = _variable(ref, op_type)
        kind = "nd" if method.startswith("scatter_nd") else None
        return var._update(op_type, mode, indices, updates, _op_name(name, op_type), kind)

    what = _DOCS[method]
    scatter.__name__ = scatter.__qualname__ = method
    scatter.__doc__ = (
        f"{what} (TF op ``{op_type}``).\n\n"
        "Args:\n"
        "  ref: a ``Variable``.\n"
        "  indices: int32/int64 indices "
        + (
            "whose last axis indexes the variable's leading axes.\n"
            if method.startswith("scatter_nd")
            else "into the variable's first axis.\n"
        )
        + "  updates: the values, of shape ``indices.shape + ref.shape[...]`` (or a scalar).\n"
        f"  use_locking: accepted (default {default_locking}).\n"
        f"  name: the op name (default ``{op_type!r}``).\n\n"
        "Returns:\n"
        "  The variable's value after the update.\n\n"
        "Raises:\n"
        "  TypeError: ``ref`` is not a variable.\n"
        "  InvalidArgumentError: (at run time) an index outside the variable.\n"
    )
    return scatter


_DOCS = {
    "scatter_update": "Sets the rows ``indices`` of ``ref`` to ``updates``",
    "scatter_add": "Adds ``updates`` to the rows ``indices`` of ``ref`` (duplicates add)",
    "scatter_sub": "Subtracts ``updates`` from the rows ``indices`` of ``ref``",
    "scatter_mul": "Multiplies the rows ``indices`` of ``ref`` by ``updates``",
    "scatter_div": "Divides the rows ``indices`` of ``ref`` by ``updates``",
    "scatter_max": "The rows ``indices`` of ``ref`` become their maximum with ``updates``",
    "scatter_min": "The rows ``indices`` of ``ref`` become their minimum with ``updates``",
    "scatter_nd_update": "Sets the elements (or slices) at the N-d ``indices`` to ``updates``",
    "scatter_nd_add": "Adds ``updates`` at the N-d ``indices`` (duplicates add)",
    "scatter_nd_sub": "Subtracts ``updates`` at the N-d ``indices``",
}
# TF op type -> the public name (for messages).
_OP_NAMES = {"Assign": "assign", "AssignAdd": "assign_add", "AssignSub": "assign_sub"}

# (public name, TF op type, Variable._update's mode, TF's use_locking default)
_SCATTERS = [
    ("scatter_update", "ScatterUpdate", "set", True),
    ("scatter_add", "ScatterAdd", "add", False),
    ("scatter_sub", "ScatterSub", "sub", False),
    ("scatter_mul", "ScatterMul", "multiply", False),
    ("scatter_div", "ScatterDiv", "divide", False),
    ("scatter_max", "ScatterMax", "max", False),
    ("scatter_min", "ScatterMin", "min", False),
    ("scatter_nd_update", "ScatterNdUpdate", "set", True),
    ("scatter_nd_add", "ScatterNdAdd", "add", False),
    ("scatter_nd_sub", "ScatterNdSub", "sub", False),
]
for _name, _op_type, _mode, _locking in _SCATTERS:
    _OP_NAMES[_op_type] = _name
    globals()[_name] = _scatter(_name, _op_type, _mode, _locking)

scatter_update: Any
scatter_add: Any
scatter_sub: Any
scatter_mul: Any
scatter_div: Any
scatter_max: Any
scatter_min: Any
scatter_nd_update: Any
scatter_nd_add: Any
scatter_nd_sub: Any


def batch_scatter_update(
    ref: Any, indices: Any, updates: Any, use_locking: bool = True, name: str | None = None
) -> Any:
    """``tf.batch_scatter_update`` (deprecated in TF): ``scatter_update`` on the last axis
    of ``indices``, batched over its leading axes.

    .. math:: \\mathrm{ref}[b_0, \\ldots, b_{k-2}, \\mathrm{indices}[b_0, \\ldots, b_{k-1}]]
        = \\mathrm{updates}[b_0, \\ldots, b_{k-1}]

    Built as TF builds it: the batch positions are prepended to each index and the
    result is ``scatter_nd_update`` (op ``ScatterNdUpdate``, in the root name scope
    unless ``name`` is given, as TF's ``name_scope(None)``).

    Args:
      ref: the variable.
      indices: int32/int64 indices of known rank ``k``.
      updates: the values, of shape ``indices.shape + ref.shape[k:]``.
      use_locking: accepted (TF's default True).
      name: the name scope.

    Returns:
      ``ref`` after the update.

    Raises:
      ValueError: ``indices`` has an unknown rank (TF's message names ``batch_gather``).
    """
    import jax.numpy as jnp

    from adapters.v1.ops.script_ops import lift

    with ops.name_scope(name):
        indices = ops.convert_to_tensor(indices, name="indices")
        rank = indices.get_shape().ndims
        if rank is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")

        def nd_indices(a: Any) -> Any:
            batch = jnp.moveaxis(jnp.indices(a.shape, dtype=a.dtype)[: rank - 1], 0, -1)
            return jnp.concatenate([batch, a[..., None]], axis=-1)

        final = lift(nd_indices, [indices], name="concat")
        scatter_nd = globals()["scatter_nd_update"]  # made by the _SCATTERS loop above
        return scatter_nd(ref, final, updates, use_locking=use_locking)
