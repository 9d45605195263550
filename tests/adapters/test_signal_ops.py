"""``tf.signal``'s framing, windows, STFT, mel, DCT and MDCT without TF (values against
TF: ``tests/interop/test_signal_interop.py``): shapes, dtypes, the inverses, errors."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

SIG = np.sin(np.arange(2 * 96, dtype=np.float32).reshape(2, 96) / 5.0)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_frame_is_data_movement_and_overlap_and_add_its_inverse():
    x = tf.constant(SIG)
    frames = tf.signal.frame(x, 16, 16)
    framed, back = _run([frames, tf.signal.overlap_and_add(frames, 16)])
    assert framed.shape == (2, 6, 16) and np.array_equal(framed[1, 2], SIG[1, 32:48])
    assert np.array_equal(back, SIG)
    assert tf.signal.frame(x, 200, 10).shape.as_list() == [2, 0, 200]  # TF: no error


def test_stft_round_trip_and_64_bit():
    x = tf.constant(SIG.astype(np.float64))
    spec = tf.signal.stft(x, 32, 8)
    back = tf.signal.inverse_stft(spec, 32, 8, window_fn=tf.signal.inverse_stft_window_fn(8))
    assert (spec.dtype, back.dtype) == (tf.complex128, tf.float64)
    assert spec.shape.as_list() == [2, 9, 17]
    out = _run(back)
    # samples covered by a full set of overlapping frames come back (float64's precision)
    np.testing.assert_allclose(out[:, 24:72], SIG[:, 24:72], rtol=0, atol=1e-12)


def test_dct_inverses_and_mdct_round_trip():
    x = tf.constant(SIG[:, :16])
    dct2 = tf.signal.dct(x, norm="ortho")
    back = tf.signal.idct(dct2, norm="ortho")
    mdct = tf.signal.mdct(tf.constant(SIG), 16)
    imdct = tf.signal.inverse_mdct(mdct)
    out, rebuilt = _run([back, imdct])
    np.testing.assert_allclose(out, SIG[:, :16], rtol=0, atol=2e-6)
    assert mdct.shape.as_list() == [2, 11, 8]
    np.testing.assert_allclose(rebuilt[:, 8:-8], SIG[:, 8:88], rtol=0, atol=2e-5)


def test_windows_and_mel_matrix_shapes():
    assert tf.signal.hann_window(10).shape.as_list() == [10]
    assert tf.signal.kaiser_bessel_derived_window(8, dtype=tf.float64).dtype == tf.float64
    mel = tf.signal.linear_to_mel_weight_matrix(10, 33, 16000, 20.0, 8000.0)
    weights = _run(mel)
    assert weights.shape == (33, 10) and np.all(weights[0] == 0) and np.all(weights >= 0)


def test_errors():
    with pytest.raises(ValueError, match="dtype must be a floating point type"):
        tf.signal.hann_window(4, dtype=tf.int32)
    with pytest.raises(ValueError, match="The frame length must be a multiple of 4."):
        tf.signal.mdct(tf.constant(SIG), 10)
    with pytest.raises(NotImplementedError, match="axis must be -1"):
        tf.signal.dct(tf.constant(SIG), axis=0)
    with pytest.raises(ValueError, match="upper_edge_hertz must not be larger than"):
        tf.signal.linear_to_mel_weight_matrix(sample_rate=4000)
    with pytest.raises(ValueError, match="frame_step must be an integer"):
        tf.signal.overlap_and_add(tf.zeros([2, 3, 4]), 2.0)
