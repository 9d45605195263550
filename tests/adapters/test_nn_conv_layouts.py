"""``tf.nn.conv2d`` with NCHW and explicit padding against TF's NHWC result, transposed.

TF 2.21's CPU kernels refuse the NCHW + explicit padding gradient ("only supports
NHWC"), so no TF reference exists for it; the same convolution in NHWC does:
the golden case ``nn_conv.conv2d_explicit`` (``goldens/gen_ops_nn_conv.py``), whose
inputs, outputs and gradients are transposed here to NCHW.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from tests.adapters.test_ops_goldens import ARRAYS, CASES


def _nchw(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.moveaxis(a, -1, 1))


@pytest.mark.parametrize("name", ["nn_conv.conv2d_explicit"])
def test_nchw_explicit_padding_is_tfs_nhwc_transposed(name):
    case = CASES[name]
    args = case["arguments"]
    x = ARRAYS[args["input"]["array"]]
    w = ARRAYS[args["filter"]["array"]]
    (n, h, wd, c), pads = x.shape, args["padding"]["value"]
    strides = args["strides"]["value"]
    weights = ARRAYS[case["weights"][0]]
    with tf.Graph().as_default():
        xs = tf.placeholder(tf.float32, (n, c, h, wd))
        ws = tf.placeholder(tf.float32, w.shape)
        y = tf.nn.conv2d(
            xs,
            ws,
            strides=[strides[0], strides[3], strides[1], strides[2]],
            padding=[pads[0], pads[3], pads[1], pads[2]],
            data_format="NCHW",
        )
        grads = tf.gradients(y, [xs, ws], grad_ys=_nchw(weights))
        with tf.Session() as sess:
            value, gx, gw = sess.run([y, *grads], {xs: _nchw(x), ws: w})
    expected = ARRAYS[case["output_keys"][0]]
    np.testing.assert_allclose(value, _nchw(expected), rtol=2e-6, atol=1e-6)
    expected_gx = ARRAYS[case["grads"][args["input"]["array"]]]
    expected_gw = ARRAYS[case["grads"][args["filter"]["array"]]]
    np.testing.assert_allclose(gx, _nchw(expected_gx), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(gw, expected_gw, rtol=2e-6, atol=1e-6)
