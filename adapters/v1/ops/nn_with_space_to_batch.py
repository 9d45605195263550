"""``tf.nn.with_space_to_batch``: an op applied to a dilated input through
``space_to_batch_nd``/``batch_to_space_nd``, as TF's ``_WithSpaceToBatch``.

With ``dilation_rate`` all ones the op is called directly (``op(input,
num_spatial_dims, padding)``). Otherwise the spatial dimensions are padded (for
``"SAME"``: ``(filter - 1) * rate`` split as TF splits it, start ``// 2``) and
rounded up to multiples of the rate (TF's ``required_space_to_batch_paddings``),
moved into the batch, the op runs with ``"VALID"`` padding, and the result is
moved back and cropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS

__all__ = ["with_space_to_batch"]


def _constant(value: Any, what: str) -> np.ndarray:
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        const = ops.convert_to_tensor(value).op._const_value
        if const is None:
            raise NotImplementedError(
                f"tf.nn.with_space_to_batch: {what} must be known when the graph is built "
                "(a Python value or a constant); jtrain compiles static shapes"
            )
        return np.asarray(const)
    return np.asarray(value)


def with_space_to_batch(
    input: Any,  # noqa: A002 - TF's name
    dilation_rate: Any,
    padding: str,
    op: Callable[[Any, int, str], Any],
    filter_shape: Any = None,
    spatial_dims: Any = None,
    data_format: str | None = None,
) -> Any:
    """``op`` applied to ``input`` dilated by ``dilation_rate`` (``tf.nn.with_space_to_batch``).

    Args:
      input: a tensor ``[batch, spatial..., channels]`` (``NC...``: channels first).
      dilation_rate: int ``[num_spatial_dims]``, positive, known when the graph is built.
      padding: ``"SAME"`` or ``"VALID"``.
      op: ``op(converted_input, num_spatial_dims, padding) -> tensor``.
      filter_shape: the filter's spatial shape first (needed for ``"SAME"``).
      spatial_dims: the spatial dimensions of ``input`` (default those after the batch
        or, ``NC...``, after the channels).
      data_format: ``None`` or a format string (``"NC..."`` for channels first).

    Returns:
      ``op``'s result, moved back from the batch and cropped.

    Raises:
      ValueError: TF's (a bad ``dilation_rate``, ``spatial_dims``, ``padding``, a
        missing ``filter_shape`` for ``"SAME"``, an input of too low rank).
      NotImplementedError: ``dilation_rate``/``filter_shape`` or the input's spatial
        dimensions are not known when the graph is built.
    """
    x = ops.convert_to_tensor(input, name="input")
    rate = _constant(dilation_rate, "dilation_rate").astype(np.int32)
    if rate.ndim != 1:
        raise ValueError(
            f"`dilation_rate.shape.rank` must be 1. Received: dilation_rate={rate} of rank "
            f"{rate.ndim}"
        )
    n = rate.shape[0]
    channels_first = data_format is not None and data_format.startswith("NC")
    start = 2 if channels_first else 1
    dims = list(range(start, n + start)) if spatial_dims is None else [int(d) for d in spatial_dims]
    if dims != sorted(set(dims)) or any(d < 1 for d in dims):
        raise ValueError(
            "`spatial_dims` must be a monotonically increasing sequence of positive "
            f"integers. Received: spatial_dims={list(spatial_dims or [])}"
        )
    rank = dims[-1] if channels_first else dims[-1] + 1
    if x._shape is not None and len(x._shape) < rank:
        raise ValueError(
            f"`input.shape.rank` must be at least {rank}. Received: input.shape="
            f"{x.shape} with rank {len(x._shape)}"
        )
    if np.any(rate < 1):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rate}")
    if np.all(rate == 1):
        return op(x, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError(
                "`filter_shape` must be specified for `padding='SAME'`. Received: "
                f"filter_shape={filter_shape} and padding={padding}"
            )
        extra = (_constant(filter_shape, "filter_shape")[:n].astype(np.int64) - 1) * rate
        base = np.stack([extra // 2, extra - extra // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros([n, 2], np.int64)
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    if x._shape is None or any(x._shape[d] is None for d in dims):
        raise NotImplementedError(
            "tf.nn.with_space_to_batch: the input's spatial dimensions must be known when "
            f"the graph is built, got {x.shape}; jtrain compiles static shapes"
        )
    size = np.array([x._shape[d] for d in dims], np.int64)
    full = size + base[:, 0] + base[:, 1]
    pad_extra = (rate - full % rate) % rate
    paddings = np.stack([base[:, 0], base[:, 1] + pad_extra], axis=1).astype(np.int32)
    crops = np.stack([np.zeros_like(pad_extra), pad_extra], axis=1).astype(np.int32)
    # TF's adjustment: dimensions 1..last spatial one, rate 1 and no padding between
    block = np.ones([dims[-1]], np.int32)
    full_pad = np.zeros([dims[-1], 2], np.int32)
    full_crop = np.zeros_like(full_pad)
    for i, d in enumerate(dims):
        block[d - 1] = rate[i]
        full_pad[d - 1] = paddings[i]
        full_crop[d - 1] = crops[i]
    converted = FUNCTIONS["space_to_batch_nd"](x, block, full_pad)
    result = op(converted, n, "VALID")
    return FUNCTIONS["batch_to_space_nd"](result, block, full_crop)
