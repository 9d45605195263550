"""``tf.signal.frame``: overlapping frames of a signal along one axis (TF:
``signal/shape_ops.py``).

.. math::

   \\mathrm{frames}[\\ldots, f, k, \\ldots] = x[\\ldots, f \\cdot \\mathrm{step} + k, \\ldots],
   \\quad 0 \\le k < \\mathrm{frame\\_length}

with ``max(0, 1 + (n - frame_length) // frame_step)`` frames, or, with ``pad_end``,
``ceil(n / frame_step)`` frames of the signal padded with ``pad_value`` at its end.
A pure data movement: values are the signal's own bits. TF builds it from a
``Reshape`` of gathered sub-frames; jtrain gathers the frames at once (one node,
``Reshape`` as TF's last one). Lengths and the axis are known when the step is traced
(a Python value, a constant or computed from ``tf.shape``).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops, shape_values
from adapters.v1.framework.op_def import FUNCTIONS, OpValueError, define

__all__ = ["frame"]


def _frame(
    signal: Any,
    frame_length: Any,
    frame_step: Any,
    pad_end: bool = False,
    pad_value: Any = 0,
    axis: Any = -1,
) -> Any:
    if signal.ndim < 1:
        raise OpValueError(f"Shape {tuple(signal.shape)} must have rank at least 1")
    for what, value in (("frame_length", frame_length), ("frame_step", frame_step)):
        if np.ndim(value) != 0:
            raise OpValueError(f"Shape {np.shape(value)} must have rank 0 ({what})")
    if np.ndim(axis) != 0:
        raise OpValueError(f"Shape {np.shape(axis)} must have rank 0 (axis)")
    axis = range(signal.ndim)[int(axis)]
    length, step, size = int(frame_length), int(frame_step), signal.shape[axis]
    if pad_end:
        count = -(-size // step)
        extra = max(0, length + step * (count - 1) - size)
        pads = [(0, 0)] * signal.ndim
        pads[axis] = (0, extra)
        signal = jnp.pad(signal, pads, constant_values=np.asarray(pad_value, signal.dtype))
    else:
        count = max(0, 1 + (size - length) // step)
    index = np.arange(count)[:, None] * step + np.arange(length)[None, :]
    return jnp.take(signal, index.astype(np.int32), axis=axis)


_frame_op = define(
    ("signal.frame",),
    "Reshape",
    _frame,
    params=("signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None"),
    tensors="signal",
    default_name="frame",
)


def frame(
    signal: Any,
    frame_length: Any,
    frame_step: Any,
    pad_end: bool = False,
    pad_value: Any = 0,
    axis: Any = -1,
    name: str | None = None,
) -> ops.Tensor:
    """Frames of ``signal`` along ``axis`` (``tf.signal.frame``).

    Args:
      signal: a tensor of rank at least 1.
      frame_length: the samples per frame (an integer scalar).
      frame_step: the samples between the starts of consecutive frames.
      pad_end: pad the signal's end with ``pad_value`` so that every sample is in a
        frame (default False: only whole frames).
      pad_value: the padding value (default 0).
      axis: the axis framed (default -1).
      name: the name scope (default ``"frame"``).

    Returns:
      ``signal``'s frames, of shape ``outer + [num_frames, frame_length] + inner``
      and ``signal``'s dtype.

    Raises:
      ValueError: ``signal`` is a scalar, or a length is not a scalar.

    .. note:: As TF, a ``frame_length`` longer than the signal gives no frames (a
       dimension of 0), not an error.
    """
    out = _frame_op(signal, frame_length, frame_step, pad_end, pad_value, axis, name=name)
    out._shape = _tf_frame_shape(out.op.inputs[0], frame_length, frame_step, pad_end, axis)
    return out


def _static_int(value: Any) -> int | None:
    known = shape_values.static_value(ops.convert_to_tensor(value))
    return None if known is None else int(known)


def _tf_frame_shape(
    signal: ops.Tensor, frame_length: Any, frame_step: Any, pad_end: bool, axis: Any
) -> tuple[Any, ...] | None:
    """TF's ``_infer_frame_shape``: the static shape of the frames (the abstract
    evaluation's trial sizes, shorter than a frame, would all give 0 frames)."""
    if signal._shape is None:
        return None
    length, step, where = _static_int(frame_length), _static_int(frame_step), _static_int(axis)
    dims = list(signal._shape)
    if where is None:
        return (None,) * (len(dims) + 1)
    where = range(len(dims))[where]
    size, count = dims[where], None
    if size is not None and step is not None:
        if pad_end:
            count = max(0, -(-size // step))
        elif length is not None:
            count = max(0, (size - length + step) // step)
    return (*dims[:where], count, length, *dims[where + 1 :])


frame._op_def = _frame_op._op_def  # (the table entry)
FUNCTIONS["signal.frame"] = frame
