"""TF's gradient clipping on graph tensors: ``tf.clip_by_norm``, ``tf.clip_by_global_norm``,
``tf.global_norm``, ``tf.clip_by_average_norm``.

``clip_by_norm``, ``global_norm`` and ``clip_by_global_norm`` build TF's nodes (so
``tf.gradients`` through them is TF's, bit for bit); ``clip_by_average_norm`` is one
node whose function is ``jtrain.clipping``'s (TF's arithmetic, operation for
operation). A ``tf.IndexedSlices`` (an embedding's gradient) stays one, as in TF: its
values are clipped and its indices kept, so the optimizers still apply TF's sparse
update after clipping.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.indexed_slices import IndexedSlices
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.ops import constant_op
from adapters.v1.ops.array_ops import identity
from adapters.v1.ops.script_ops import lift
from jtrain import clipping

__all__ = ["clip_by_norm", "clip_by_global_norm", "global_norm", "clip_by_average_norm"]


def _parts(t: Any) -> ops.Tensor:
    """The tensor a clip works on: an ``IndexedSlices``' values, else ``t`` as a tensor."""
    return t.values if isinstance(t, IndexedSlices) else ops.convert_to_tensor(t)


def _like(t: Any, values: ops.Tensor) -> Any:
    if isinstance(t, IndexedSlices):
        return IndexedSlices(values, t.indices, t.dense_shape)
    return values


def _number_or_tensor(value: Any) -> tuple[list[ops.Tensor], Any]:
    """``([tensor], None)`` for a tensor argument (a node input), ``([], value)`` for a number."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        return [ops.convert_to_tensor(value)], None
    return [], value


def _entry_tensors(entries: list[Any]) -> list[ops.Tensor | None]:
    """The entries' tensors as TF names them in its list functions (``t_0``, ``t_1``...;
    an ``IndexedSlices``' values), ``None`` kept."""
    return [
        None if t is None else ops.convert_to_tensor(_parts(t), name=f"t_{i}")
        for i, t in enumerate(entries)
    ]


def _check_list(t_list: Any) -> list[Any]:
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def _clip_norm(clip_norm: Any, dtype: Any) -> Any:
    """TF's ``clip_norm`` below 0 as 0: a number directly, a tensor by ``Maximum``."""
    if np.isscalar(clip_norm):
        return 0 if clip_norm < 0 else clip_norm
    return FUNCTIONS["cast"](FUNCTIONS["maximum"](clip_norm, 0), dtype=dtype)


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Any:
    """``t`` scaled so that its L2 norm along ``axes`` is at most ``clip_norm``.

    TF's nodes under the ``clip_by_norm`` scope (its gradient is the one
    ``tf.gradients`` builds from theirs; ``jtrain.clipping.clip_by_norm`` has the
    same values)::

        l2sum  = reduce_sum(t * t, axes, keepdims=True)
        l2norm = where(l2sum > 0, sqrt(where(l2sum > 0, l2sum, 1)), l2sum)
        t_clip = identity((t * clip_norm) / maximum(l2norm, clip_norm))

    Args:
      t: a float tensor or ``IndexedSlices`` (its values are clipped).
      clip_norm: a positive scalar (number or tensor); a negative one acts as 0.
      axes: the dimensions of the norm (default ``None``: all).
      name: the op name (default ``"clip_by_norm"``).

    Returns:
      A tensor, or an ``IndexedSlices`` for one.

    Raises:
      ValueError: ``clip_norm`` would broadcast ``t`` to another shape.
    """
    fn = FUNCTIONS
    with ops.name_scope(name, "clip_by_norm", [_parts(t), clip_norm]) as scope:
        values = ops.convert_to_tensor(_parts(t), name="t")
        clip_norm = _clip_norm(clip_norm, values.dtype)
        l2sum = fn["reduce_sum"](values * values, axes, keepdims=True)
        pred = l2sum > 0
        # Two where's: sqrt of a safe sum, so a zero norm has no NaN gradient.
        l2sum_safe = fn["where"](pred, l2sum, fn["ones_like"](l2sum))
        l2norm = fn["where"](pred, fn["sqrt"](l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        clipped = identity(intermediate / fn["maximum"](l2norm, clip_norm), name=scope)
    return _like(t, clipped)


def global_norm(t_list: Sequence[Any], name: str | None = None) -> ops.Tensor:
    """``sqrt(2 * sum_i l2_loss(t_i))``, TF's nodes under the ``global_norm`` scope
    (``None`` entries ignored; an ``IndexedSlices`` counts its values).

    Raises:
      TypeError: ``t_list`` is not a sequence.
    """
    entries = _check_list(t_list)
    present = [_parts(t) for t in entries if t is not None]
    with ops.name_scope(name, "global_norm", present):
        values = _entry_tensors(entries)
        losses = [FUNCTIONS["nn.l2_loss"](v) for v in values if v is not None]
        # TF stacks an empty list as an empty float32 tensor: the norm of nothing is 0.0.
        stacked = FUNCTIONS["stack"](losses) if losses else constant_op.constant([], "float32")
        half_squared = FUNCTIONS["reduce_sum"](stacked)
        two = constant_op.constant(2.0, dtype=half_squared.dtype)
        return FUNCTIONS["sqrt"](half_squared * two, name="global_norm")


def clip_by_global_norm(
    t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Any], ops.Tensor]:
    """Every entry scaled by ``clip_norm / max(global_norm, clip_norm)``: TF's nodes
    under the ``clip_by_global_norm`` scope::

        scale = clip_norm * minimum(1.0 / use_norm, 1.0 / clip_norm)
                + (use_norm - use_norm)          # NaN for an infinite norm
        t_i   = identity(t_i * scale)

    Args:
      t_list: tensors, ``IndexedSlices`` or ``None``.
      clip_norm: a positive scalar (number or tensor).
      use_norm: the global norm to use instead of computing it (default ``None``).
      name: the op name (default ``"clip_by_global_norm"``).

    Returns:
      ``(list_clipped, global_norm)``; ``None`` entries stay ``None`` and an
      ``IndexedSlices`` stays one (its values scaled).

    Raises:
      TypeError: ``t_list`` is not a sequence.
    """
    entries = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(entries, name)
    use_norm = ops.convert_to_tensor(use_norm)
    present = [_parts(t) for t in entries if t is not None]
    with ops.name_scope(name, "clip_by_global_norm", [*present, clip_norm]) as scope:
        one = constant_op.constant(1.0, dtype=use_norm.dtype)
        scale_for_finite = clip_norm * FUNCTIONS["minimum"](1.0 / use_norm, one / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)
        values = _entry_tensors(entries)
        clipped = [
            None
            if v is None
            else identity(v * FUNCTIONS["cast"](scale, v.dtype), name=f"{scope}_{i}")
            for i, v in enumerate(values)
        ]
    result = [c if t is None else _like(t, c) for t, c in zip(entries, clipped, strict=True)]
    return result, use_norm


def clip_by_average_norm(t: Any, clip_norm: Any, name: str | None = None) -> ops.Tensor:
    """``t`` scaled so that its average L2 norm (norm / number of elements) is at most
    ``clip_norm`` (``tf.compat.v1.clip_by_average_norm``; an ``IndexedSlices`` is summed
    into a dense tensor first, as TF)."""
    tensor = ops.convert_to_tensor(t)
    c_in, c = _number_or_tensor(clip_norm)
    with ops.name_scope(name or "clip_by_average_norm"):
        return lift(
            lambda v, *cn: clipping.clip_by_average_norm(v, cn[0] if cn else c),
            [tensor, *c_in],
            name="clip_by_average_norm",
        )
