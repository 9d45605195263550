"""``tf.signal.overlap_and_add``: a signal rebuilt from overlapping frames (TF:
``signal/reconstruction_ops.py``).

.. math::

   y[t] = \\sum_{f} \\mathrm{frames}[\\ldots, f, t - f \\cdot \\mathrm{step}]

over the frames covering sample ``t``; the output has
``frame_length + frame_step * (frames - 1)`` samples. Computed as TF's Python does
(zero-pad, regroup by ``frame_step`` segments, one sum over the segments), so each
output sample adds the same values in the same order as TF's ``Sum``; with
``frame_step == frame_length`` it is TF's ``fast_path`` reshape.
"""

from __future__ import annotations

import functools
from typing import Any

import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops, shape_values
from adapters.v1.framework.op_def import FUNCTIONS, OpValueError, define

__all__ = ["overlap_and_add"]


def _overlap_and_add(signal: Any, frame_step: Any) -> Any:
    if signal.ndim < 2:
        raise OpValueError(f"Shape {tuple(signal.shape)} must have rank at least 2")
    if np.ndim(frame_step) != 0:
        raise OpValueError(f"Shape {np.shape(frame_step)} must have rank 0 (frame_step)")
    step = int(frame_step)
    *outer, frames, length = signal.shape
    out_length = length + step * (frames - 1)
    if step == length:
        return jnp.reshape(signal, (*outer, out_length))
    segments = -(-length // step)
    pads = [(0, 0)] * len(outer) + [(0, segments), (0, segments * step - length)]
    x = jnp.pad(signal, pads)
    x = jnp.reshape(x, (*outer, frames + segments, segments, step))
    rank = len(outer)
    x = jnp.transpose(x, (*range(rank), rank + 1, rank, rank + 2))
    x = jnp.reshape(x, (*outer, (frames + segments) * segments, step))
    x = x[..., : (frames + segments - 1) * segments, :]
    x = jnp.reshape(x, (*outer, segments, frames + segments - 1, step))
    # TF's Sum adds the segments in order; XLA's reduction may not (an ulp apart)
    x = functools.reduce(lambda a, b: a + b, [x[..., i, :, :] for i in range(segments)])
    x = jnp.reshape(x, (*outer, (frames + segments - 1) * step))
    return x[..., :out_length]


_overlap_and_add_op = define(
    ("signal.overlap_and_add",),
    "StridedSlice",
    _overlap_and_add,
    params="signal, frame_step, name=None",
    tensors="signal",
    default_name="overlap_and_add",
)


def overlap_and_add(signal: Any, frame_step: Any, name: str | None = None) -> ops.Tensor:
    """The sum of ``signal``'s frames placed ``frame_step`` apart
    (``tf.signal.overlap_and_add``).

    Args:
      signal: frames, of shape ``[..., frames, frame_length]`` (rank at least 2).
      frame_step: the samples between the starts of consecutive frames (an integer
        scalar, at most ``frame_length``).
      name: the name scope (default ``"overlap_and_add"``).

    Returns:
      A tensor of shape ``[..., frame_length + frame_step * (frames - 1)]``, of
      ``signal``'s dtype.

    Raises:
      ValueError: ``signal``'s rank is below 2, or ``frame_step`` is not an integer
        scalar (TF's messages).
    """
    step = ops.convert_to_tensor(frame_step)
    if not step.dtype.is_integer:
        raise ValueError(f"frame_step must be an integer. Got {step.dtype}")
    signal = ops.convert_to_tensor(signal)
    static = shape_values.static_value(step)
    shape = signal.shape.as_list() if signal.shape.ndims is not None else None
    if static is not None and shape and len(shape) >= 2 and shape[-1] == int(static):
        # TF's fast path: frames that do not overlap are a reshape
        from adapters import v1 as tf

        with tf.name_scope(name, "overlap_and_add", [signal, frame_step]):
            if None in shape[:-2] or shape[-2] is None:
                outer = tf.shape(signal)[:-2]
                out_shape = tf.concat([outer, [-1]], 0)
            else:
                out_shape = [*shape[:-2], shape[-1] * shape[-2]]
            return tf.reshape(signal, out_shape, name="fast_path")
    return _overlap_and_add_op(signal, frame_step, name=name)


overlap_and_add._op_def = _overlap_and_add_op._op_def  # (the table entry)
FUNCTIONS["signal.overlap_and_add"] = overlap_and_add
