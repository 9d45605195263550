"""``tf.distribute.ReduceOp``: how values of several replicas combine (SUM or MEAN)."""

from __future__ import annotations

import enum
from typing import Any

__all__ = ["ReduceOp"]


class ReduceOp(enum.Enum):
    """How a set of per-replica values is reduced: ``SUM`` adds them, ``MEAN`` averages.

    ``ReduceOp("SUM")`` takes TF's upper-case value; a lower-case or unknown name raises
    ``ValueError`` (``Strategy.reduce`` upper-cases strings before converting them).
    """

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> ReduceOp:
        """The reduction of a ``tf.VariableAggregation`` (``SUM`` or ``MEAN``).

        Raises:
          ValueError: ``aggregation`` is neither (``NONE``, ``ONLY_FIRST_REPLICA``).
        """
        name = getattr(aggregation, "name", None)
        if name in ("SUM", "MEAN"):
            return ReduceOp(name)
        raise ValueError(
            f"Could not convert from `tf.VariableAggregation` {aggregation} to "
            "`tf.distribute.ReduceOp` type"
        )


def as_reduce_op(reduce_op: Any) -> ReduceOp:
    """``reduce_op`` as a :class:`ReduceOp` (a string is upper-cased first, as TF does).

    Raises:
      ValueError: a string that names no reduction (``'MAX' is not a valid ReduceOp``).
      TypeError: neither a ``ReduceOp`` nor a string.
    """
    if isinstance(reduce_op, str):
        return ReduceOp(reduce_op.upper())
    if not isinstance(reduce_op, ReduceOp):
        raise TypeError(
            f"Expected `reduce_op` to be a `tf.distribute.ReduceOp`, not: {reduce_op!r}"
        )
    return reduce_op
