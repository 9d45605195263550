"""``tf.signal``'s FFTs without TF (values against TF: ``tests/interop/test_signal_interop.py``):
64-bit dtypes kept with JAX's x64 off, the op table's entries, TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

X = np.arange(12, dtype=np.float64).reshape(2, 6) ** 1.5


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_64_bit_dtypes_stay_exact_with_x64_off():
    x = tf.constant(X)
    y = tf.signal.rfft(x)
    z = tf.signal.fft(tf.complex(x, x))
    back = tf.signal.irfft(y)
    assert (y.dtype, z.dtype, back.dtype) == (tf.complex128, tf.complex128, tf.float64)
    y_, z_, back_ = _run([y, z, back])
    assert y_.dtype == np.complex128 and back_.dtype == np.float64
    # the sum of a float64 signal is its DC bin, to float64's precision (not float32's)
    np.testing.assert_allclose(y_[:, 0].real, X.sum(axis=1), rtol=1e-15)
    np.testing.assert_allclose(back_, X, rtol=0, atol=1e-14)
    np.testing.assert_allclose(z_[:, 0], X.sum(axis=1) * (1 + 1j), rtol=1e-15)


def test_names_and_op_types():
    x = tf.constant(X.astype(np.float32))
    c = tf.complex(x, x)
    assert tf.fft is tf.signal.fft is tf.spectral.fft
    assert tf.signal.rfft2d is tf.spectral.rfft2d
    assert tf.fft(c).op.type == "FFT" and tf.ifft3d(tf.reshape(c, [1, 2, 6])).op.type == "IFFT3D"
    y = tf.signal.rfft(x, [8])
    assert (y.op.type, y.op.name, y.shape.as_list()) == ("RFFT", "rfft", [2, 5])
    assert tf.signal.irfft(y).shape.as_list() == [2, 8]


def test_errors():
    with pytest.raises(TypeError, match="not in list of allowed values: complex64, complex128"):
        tf.signal.fft(tf.constant(X))
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs"):
        tf.signal.rfft(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="Dimension must be 2 but is 1 for 'RFFT2D'"):
        tf.signal.rfft2d(tf.constant(X), [4])
    x = tf.constant(X)
    (g,) = tf.gradients(tf.reduce_sum(tf.abs(tf.signal.rfft3d(tf.reshape(x, [1, 2, 6])))), x)
    with pytest.raises(LookupError, match="No gradient defined for operation 'RFFT3D'"):
        _run(g)
