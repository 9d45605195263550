"""``tf.ragged.map_flat_values``: an op applied to a ragged tensor's flat values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.v1.ops.ragged.ragged_tensor import RaggedTensor

__all__ = ["map_flat_values"]


def map_flat_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``op`` applied to the flat values of the ``RaggedTensor`` arguments (in
    ``args``/``kwargs``, nested in lists, tuples and dicts), the result given their row
    partition (``tf.ragged.map_flat_values``).

    Returns:
      A ``RaggedTensor`` with the first ragged argument's nested row splits and the
      op's result as flat values; ``op``'s result when no argument is ragged.

    Raises:
      ValueError: ragged arguments with different ragged ranks or splits (the same
        splits tensors are required: adapters.v1 does not compare values at run time).
    """
    partitions: list[tuple] = []
    ragged: list[RaggedTensor] = []

    def replace(x: Any) -> Any:
        if isinstance(x, RaggedTensor):
            partitions.append(x.nested_row_splits)
            ragged.append(x)
            return x.flat_values
        if isinstance(x, dict):
            return {k: replace(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return type(x)(replace(v) for v in x)
        return x

    new_args = replace(list(args))
    new_kwargs = replace(kwargs)
    if not partitions:
        return op(*new_args, **new_kwargs)
    first = partitions[0]
    for other in partitions[1:]:
        if len(other) != len(first):
            raise ValueError("All ragged inputs must have the same ragged_rank.")
        if any(a is not b for a, b in zip(first, other, strict=True)):
            raise ValueError(
                "tf.ragged.map_flat_values: adapters.v1 needs every ragged input to share its "
                "row splits tensors (TF checks equal values at run time)"
            )
    return ragged[0].with_flat_values(op(*new_args, **new_kwargs))
