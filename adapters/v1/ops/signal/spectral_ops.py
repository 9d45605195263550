"""TF's short-time transforms (``tf.signal.stft``, ``inverse_stft``,
``inverse_stft_window_fn``, ``mdct``, ``inverse_mdct``; TF: ``signal/spectral_ops.py``),
built from TF's ops in TF's order.

.. math::

   \\mathrm{STFT}[\\ldots, f, k] = \\mathrm{rfft}(w \\cdot
     \\mathrm{frame}(x)[\\ldots, f, :], \\mathrm{fft\\_length})_k

``inverse_stft`` inverts it by ``irfft``, the window of ``inverse_stft_window_fn``
and ``overlap_and_add``; ``mdct`` is a DCT-IV of each windowed frame folded to half
its length (frames of ``frame_length`` every ``frame_length / 2`` samples) and
``inverse_mdct`` its time-domain-aliasing-cancelling inverse. ``fft_length``
defaults to the smallest power of 2 enclosing ``frame_length``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.ops.signal import window_ops
from adapters.v1.ops.signal.dct_ops import dct
from adapters.v1.ops.signal.reconstruction_ops import overlap_and_add
from adapters.v1.ops.signal.shape_ops import frame

__all__ = ["inverse_mdct", "inverse_stft", "inverse_stft_window_fn", "mdct", "stft"]


def _tf() -> Any:
    from adapters import v1

    return v1


def _enclosing_power_of_two(tf: Any, value: ops.Tensor) -> ops.Tensor:
    static = tf.get_static_value(value)
    if static is not None:
        return tf.constant(int(2 ** np.ceil(np.log(static) / np.log(2.0))), value.dtype)
    return tf.cast(
        tf.pow(2.0, tf.ceil(tf.log(tf.cast(value, dtypes.float32)) / tf.log(2.0))), value.dtype
    )


def stft(
    signals: Any,
    frame_length: Any,
    frame_step: Any,
    fft_length: Any = None,
    window_fn: Callable[..., Any] | None = window_ops.hann_window,
    pad_end: bool = False,
    name: str | None = None,
) -> ops.Tensor:
    """The short-time Fourier transform of ``signals`` (``tf.signal.stft``).

    Args:
      signals: ``[..., samples]`` float32/float64 signals.
      frame_length: samples per frame (an integer scalar).
      frame_step: samples between frames.
      fft_length: the FFT's size (default: the smallest power of 2 at least
        ``frame_length``).
      window_fn: ``window_fn(frame_length, dtype=...)`` (default ``hann_window``;
        ``None``: no window).
      pad_end: pad the signals' end to frame every sample (default False).
      name: the name scope (default ``"stft"``).

    Returns:
      ``[..., frames, fft_length // 2 + 1]`` complex64/complex128 STFT values.

    Raises:
      ValueError: ``signals`` is a scalar or a length is not a scalar.
    """
    tf = _tf()
    with tf.name_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = ops.convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = ops.convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        frame_step = ops.convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if fft_length is None:
            fft_length = _enclosing_power_of_two(tf, frame_length)
        else:
            fft_length = ops.convert_to_tensor(fft_length, name="fft_length")
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            window = window_fn(frame_length, dtype=framed.dtype)
            framed *= window
        return tf.signal.rfft(framed, [fft_length])


def inverse_stft_window_fn(
    frame_step: Any,
    forward_window_fn: Callable[..., Any] = window_ops.hann_window,
    name: str | None = None,
) -> Callable[..., ops.Tensor]:
    """A ``window_fn`` for ``inverse_stft`` that inverts ``stft`` with
    ``forward_window_fn`` (``tf.signal.inverse_stft_window_fn``): the forward window
    divided by the sum of its squares over the frames overlapping each sample.

    Args:
      frame_step: the samples between frames (an integer scalar).
      forward_window_fn: the window ``stft`` used (default ``hann_window``).
      name: the name scope (default ``"inverse_stft_window_fn"``).

    Returns:
      ``window_fn(frame_length, dtype)``.
    """

    def inverse_stft_window_fn_inner(frame_length: Any, dtype: Any) -> ops.Tensor:
        tf = _tf()
        with tf.name_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
            frame_step_ = ops.convert_to_tensor(frame_step, name="frame_step")
            frame_step_.shape.assert_has_rank(0)
            frame_length = ops.convert_to_tensor(frame_length, name="frame_length")
            frame_length.shape.assert_has_rank(0)
            forward_window = forward_window_fn(frame_length, dtype=dtype)
            denom = tf.square(forward_window)
            overlaps = -(-frame_length // frame_step_)
            denom = tf.pad(denom, [(0, overlaps * frame_step_ - frame_length)])
            denom = tf.reshape(denom, [overlaps, frame_step_])
            denom = tf.reduce_sum(denom, 0, keepdims=True)
            denom = tf.tile(denom, [overlaps, 1])
            denom = tf.reshape(denom, [overlaps * frame_step_])
            denom = denom[:frame_length]
            return tf.where(
                tf.equal(denom, 0.0), tf.zeros_like(forward_window), forward_window / denom
            )

    return inverse_stft_window_fn_inner


def inverse_stft(
    stfts: Any,
    frame_length: Any,
    frame_step: Any,
    fft_length: Any = None,
    window_fn: Callable[..., Any] | None = window_ops.hann_window,
    name: str | None = None,
) -> ops.Tensor:
    """Signals from their STFTs (``tf.signal.inverse_stft``); with
    ``window_fn=inverse_stft_window_fn(frame_step)`` it inverts ``stft``.

    Args:
      stfts: ``[..., frames, fft_length // 2 + 1]`` complex64/complex128 values.
      frame_length: samples per frame.
      frame_step: samples between frames.
      fft_length: the FFT's size (default: the power of 2 enclosing ``frame_length``).
      window_fn: the synthesis window (default ``hann_window``; ``None``: none).
      name: the name scope (default ``"inverse_stft"``).

    Returns:
      ``[..., samples]`` real signals.

    Raises:
      ValueError: ``stfts``' rank is below 2, a length is not a scalar.
    """
    tf = _tf()
    with tf.name_scope(name, "inverse_stft", [stfts]):
        stfts = ops.convert_to_tensor(stfts, name="stfts")
        stfts.shape.with_rank_at_least(2)
        frame_length = ops.convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        frame_step = ops.convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if fft_length is None:
            fft_length = _enclosing_power_of_two(tf, frame_length)
        else:
            fft_length = ops.convert_to_tensor(fft_length, name="fft_length")
            fft_length.shape.assert_has_rank(0)
        real_frames = tf.signal.irfft(stfts, [fft_length])
        length = tf.get_static_value(frame_length)
        last = real_frames.shape.as_list()[-1] if real_frames.shape.ndims else None
        if length is None or last is None:
            real_frames = real_frames[..., :frame_length]
            rank = tf.rank(real_frames)
            shape = tf.shape(real_frames)
            paddings = tf.concat(
                [
                    tf.zeros([rank - 1, 2], dtype=frame_length.dtype),
                    [[0, tf.maximum(0, frame_length - shape[-1])]],
                ],
                0,
            )
            real_frames = tf.pad(real_frames, paddings)
        elif last > length:
            real_frames = real_frames[..., : int(length)]
        elif last < length:
            pads = [[0, 0]] * (real_frames.shape.ndims - 1) + [[0, int(length) - last]]
            real_frames = tf.pad(real_frames, pads)
        if length is not None and real_frames.shape.ndims is not None:
            real_frames.set_shape([None] * (real_frames.shape.ndims - 1) + [int(length)])
        if window_fn is not None:
            window = window_fn(frame_length, dtype=stfts.dtype.real_dtype)
            real_frames *= window
        return overlap_and_add(real_frames, frame_step)


def mdct(
    signals: Any,
    frame_length: Any,
    window_fn: Callable[..., Any] | None = window_ops.vorbis_window,
    pad_end: bool = False,
    norm: str | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """The modified DCT of ``signals`` (``tf.signal.mdct``): frames of
    ``frame_length`` every ``frame_length / 2`` samples, windowed, folded and
    transformed by a DCT-IV.

    Args:
      signals: ``[..., samples]`` float32/float64 signals.
      frame_length: samples per frame, a multiple of 4.
      window_fn: the window (default ``vorbis_window``; ``None``: ``1/sqrt(2)``).
      pad_end: pad the signals' end to frame every sample (default False).
      norm: ``None`` or ``"ortho"``.
      name: the name scope (default ``"mdct"``).

    Returns:
      ``[..., frames, frame_length / 2]`` MDCT values.

    Raises:
      ValueError: ``frame_length`` is not a multiple of 4.
    """
    tf = _tf()
    with tf.name_scope(name, "mdct", [signals, frame_length]):
        signals = ops.convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = ops.convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        length = tf.get_static_value(frame_length)
        if length is not None:
            if length % 4 != 0:
                raise ValueError("The frame length must be a multiple of 4.")
            frame_step = ops.convert_to_tensor(length // 2, dtype=frame_length.dtype)
        else:
            frame_step = frame_length // 2
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed *= window_fn(frame_length, dtype=framed.dtype)
        else:
            framed *= 1.0 / np.sqrt(2)
        split = tf.split(framed, 4, axis=-1)
        first_half = -tf.reverse(split[2], [-1]) - split[3]
        second_half = split[0] - tf.reverse(split[1], [-1])
        rearranged = tf.concat((first_half, second_half), axis=-1)
        return dct(rearranged, type=4, norm=norm)


def inverse_mdct(
    mdcts: Any,
    window_fn: Callable[..., Any] | None = window_ops.vorbis_window,
    norm: str | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """Signals from their MDCTs (``tf.signal.inverse_mdct``).

    Args:
      mdcts: ``[..., frames, frame_length / 2]`` float32/float64 values.
      window_fn: the window (default ``vorbis_window``; ``None``: ``1/sqrt(2)``).
      norm: ``None`` or ``"ortho"``.
      name: the name scope (default ``"inverse_mdct"``).

    Returns:
      ``[..., samples]`` signals.

    Raises:
      ValueError: ``mdcts``' rank is below 2.
    """
    tf = _tf()
    with tf.name_scope(name, "inverse_mdct", [mdcts]):
        mdcts = ops.convert_to_tensor(mdcts, name="mdcts")
        mdcts.shape.with_rank_at_least(2)
        half_len = tf.cast(mdcts.shape.as_list()[-1], dtype=dtypes.int32)
        if norm is None:
            half_len_float = tf.cast(half_len, dtype=mdcts.dtype)
            result_idct4 = (0.5 / half_len_float) * dct(mdcts, type=4)
        elif norm == "ortho":
            result_idct4 = dct(mdcts, type=4, norm="ortho")
        split = tf.split(result_idct4, 2, axis=-1)
        real_frames = tf.concat(
            (
                split[1],
                -tf.reverse(split[1], [-1]),
                -tf.reverse(split[0], [-1]),
                -split[0],
            ),
            axis=-1,
        )
        if window_fn is not None:
            real_frames *= window_fn(2 * half_len, dtype=mdcts.dtype)
        else:
            real_frames *= 1.0 / np.sqrt(2)
        return overlap_and_add(real_frames, half_len)


for _fn in (inverse_mdct, inverse_stft, inverse_stft_window_fn, mdct, stft):
    FUNCTIONS[f"signal.{_fn.__name__}"] = _fn
