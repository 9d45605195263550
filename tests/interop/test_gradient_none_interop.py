"""Where TF 2.21's ``tf.gradients`` gives ``None`` or raises ``LookupError``, checked
live (``twin.py``): an op whose gradient function gives some inputs ``None``
(``Zeta``'s ``x``, ``QuantizeAndDequantizeV2``'s range, the given mean and variance of
an inference ``fused_batch_norm``), ops TF registers no gradient for
(``tf.random.poisson``, ``tf.math.is_nan``, ``tf.image.adjust_hue``...).

jtrain gave zeros where TF gives ``None``, and zeros, ``None`` or values where TF
raises (the tables of ``adapters/v1/ops/_no_gradient.py``, found by a scan of ~180 ops
against TF 2.21). An optimizer raises "No gradients provided" where every gradient
is ``None``: zeros train silently instead.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, run_both, run_once, tf1

pytestmark = pytest.mark.interop

A = np.array([[0.3, 0.6, 0.2], [0.8, 0.45, 0.7]], np.float32)
B = np.array([[0.5, 0.25, 0.9], [0.35, 0.55, 0.15]], np.float32)
IMG = np.linspace(0.1, 0.9, 1 * 4 * 4 * 3).reshape(1, 4, 4, 3).astype(np.float32)
C3 = np.array([0.2, 0.5, 0.3], np.float32)
V3 = np.array([1.5, 0.5, 2.0], np.float32)
W9 = np.arange(9, dtype=np.float32).reshape(3, 3)
CTC = np.linspace(0.1, 0.9, 3 * 1 * 3).reshape(3, 1, 3).astype(np.float32)
N = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0]], np.float32)


def _fused_bn_inference(tf, x, s, v):
    return tf.nn.fused_batch_norm(x, s, s, s, v, is_training=False)[0]


def _fused_bn_mean_of_x(tf, x, s, v):
    """The mean given is computed from x: TF drops that path (None to the mean)."""
    mean = tf.reduce_mean(x, [0, 1, 2])
    return tf.nn.fused_batch_norm(x, s, s, mean, v, is_training=False)[0]


# name -> (inputs, build(tf, *inputs) -> y): tf.gradients(y, inputs) is compared
NONE_CASES: dict[str, tuple[tuple[Any, ...], Any]] = {
    "zeta x": ((A + 1.5, B), lambda tf, x, q: tf.math.zeta(x, q)),
    "betainc a, b": ((A, B, A), lambda tf, a, b, x: tf.math.betainc(a + 1, b + 1, x)),
    "polygamma n": ((N, B), lambda tf, n, x: tf.math.polygamma(n, x)),
    "quantize_and_dequantize range": (
        (A, np.float32(-1.0), np.float32(1.0)),
        lambda tf, x, lo, hi: tf.quantization.quantize_and_dequantize(x, lo, hi, range_given=True),
    ),
    "fused_batch_norm inference": ((IMG, C3, V3), _fused_bn_inference),
    "fused_batch_norm mean of x": ((IMG, C3, V3), _fused_bn_mean_of_x),
    "fused_batch_norm mean of x, x only": (
        (IMG,),
        lambda tf, x: _fused_bn_mean_of_x(tf, x, tf.constant(C3), tf.constant(V3)),
    ),
    "imag of a real": ((A,), lambda tf, x: tf.math.imag(x)),
    "angle of a real": ((A,), lambda tf, x: tf.math.angle(x - 0.5)),
    # ops TF declares not differentiable (jtrain gave values, zeros or an error)
    "fake_quant_with_min_max_args_gradient": (
        (A, B),
        lambda tf, g, x: tf.quantization.fake_quant_with_min_max_args_gradient(g, x),
    ),
    "fake_quant_with_min_max_vars_gradient": (
        (A, B, np.float32(-1.0), np.float32(1.0)),
        lambda tf, g, x, lo, hi: tf.quantization.fake_quant_with_min_max_vars_gradient(
            g, x, lo, hi
        )[0],
    ),
    "fake_quant_with_min_max_vars_per_channel_gradient": (
        (A, B, C3 - 1.0, C3 + 1.0),
        lambda tf, g, x, lo, hi: tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(
            g, x, lo, hi
        )[0],
    ),
    "edit_distance": (
        (A,),
        lambda tf, a: tf.edit_distance(
            tf.SparseTensor([[0, 0]], a[0, :1], [1, 1]), tf.SparseTensor([[0, 0]], a[1, :1], [1, 1])
        ),
    ),
    "ctc_greedy_decoder": (
        (CTC,),
        lambda tf, x: tf.nn.ctc_greedy_decoder(x, [3])[1],
    ),
    "ctc_beam_search_decoder": (
        (CTC,),
        lambda tf, x: tf.nn.ctc_beam_search_decoder(x, [3], 2, 1)[1],
    ),
    # tf.meshgrid: each grid from its own vector (jtrain gave zeros to the other)
    "meshgrid first grid": ((A, B), lambda tf, a, b: tf.meshgrid(a[0], b[0])[0] * tf.constant(W9)),
    "meshgrid ij second grid": (
        (A, B),
        lambda tf, a, b: tf.meshgrid(a[0], b[1], indexing="ij")[1] * 2.0,
    ),
    # guards: both grids used, a complex input keeps its gradient
    "meshgrid both grids": ((A, B), lambda tf, a, b: tf.add_n(tf.meshgrid(a[0] * 3.0, b[0]))),
    "imag of a complex": ((A, B), lambda tf, x, y: tf.math.imag(tf.complex(x, y) ** 2)),
    "angle of a complex": ((A, B), lambda tf, x, y: tf.math.angle(tf.complex(x, y))),
}


@pytest.mark.parametrize("case", list(NONE_CASES))
def test_gradient_none_for_inputs_as_tf(case: str) -> None:
    inputs, build = NONE_CASES[case]

    def script(tf):
        xs = [tf.constant(v) for v in inputs]
        y = build(tf, *xs)
        grads = tf.gradients(y, xs)
        shapes = [None if g is None else g.shape.as_list() for g in grads]
        run = [g for g in grads if g is not None]
        return lambda sess: (sess.run([y, *run]), shapes, [g is None for g in grads])

    theirs, ours = run_both(script)
    assert ours[2] == theirs[2], f"None-ness: jtrain {ours[2]} vs TF {theirs[2]}"
    assert_twins(theirs, ours, rtol=2e-6)


# name -> build(tf) -> (ys, xs): tf.gradients(ys, xs) raises TF's LookupError
LOOKUP_CASES: dict[str, Any] = {
    "random.poisson": lambda tf, x: tf.random.poisson(x, [2], seed=1),
    "random.poisson int": lambda tf, x: tf.random.poisson(x, [2], dtype=tf.int32, seed=1),
    "random_poisson of x * 2": lambda tf, x: tf.reduce_sum(tf.random_poisson(x * 2, [3], seed=1)),
    "is_nan": lambda tf, x: tf.math.is_nan(x),
    "is_finite": lambda tf, x: tf.math.is_finite(x),
    "is_inf": lambda tf, x: tf.math.is_inf(x),
    "histogram_fixed_width": lambda tf, x: tf.histogram_fixed_width(x, [0.0, 1.0], nbins=3),
    "bitcast": lambda tf, x: tf.bitcast(x, tf.int32),
    "guarantee_const": lambda tf, x: tf.guarantee_const(x) * 2.0,
    "resize_area": lambda tf, x: tf.image.resize_area(tf.reshape(x, [1, 2, 3, 1]), [1, 1]),
    "adjust_contrast": lambda tf, x: tf.image.adjust_contrast(tf.reshape(x, [2, 1, 3]), 0.5),
    "adjust_hue": lambda tf, x: tf.image.adjust_hue(tf.reshape(x, [2, 1, 3]), 0.1),
    "adjust_saturation": lambda tf, x: tf.image.adjust_saturation(tf.reshape(x, [2, 1, 3]), 0.5),
    "linalg.lu": lambda tf, x: tf.linalg.lu(x[:, :2] + tf.eye(2))[0],
    "parallel_stack": lambda tf, x: tf.parallel_stack([x, x * 2.0]),
}


def _lookup_error(build) -> tuple[str, str, str]:
    """``tf.gradients(build(tf, x), x)``'s error under TF and jtrain: (class, op type,
    message), each as TF's or jtrain's."""

    def outcome(tf):
        def script(tf):
            x = tf.constant(A)
            y = build(tf, x)
            try:
                tf.gradients(y, x)
            except Exception as e:  # noqa: BLE001 - the class is compared
                return lambda sess, error=e: error
            return lambda sess: None

        e = run_once(tf, script)
        assert e is not None, "no error"
        found = re.search(r"\(op type: (\w+)\)", str(e))
        return type(e).__name__, found.group(1) if found else "", str(e)

    return outcome(tf1), outcome(jtf)


@pytest.mark.parametrize("case", list(LOOKUP_CASES))
def test_gradient_through_an_op_without_one_raises_lookup_error(case: str) -> None:
    theirs, ours = _lookup_error(LOOKUP_CASES[case])
    assert theirs[0] == "LookupError"
    assert ours[:2] == theirs[:2]
    # The message after the op's name is TF's word for word (the names of some ops,
    # histogram_fixed_width's, adjust_hue's, differ: other modules' graph names).
    assert ours[2].split(" (op type:")[1] == theirs[2].split(" (op type:")[1]


def test_lookup_error_message_names_the_op_as_tf() -> None:
    theirs, ours = _lookup_error(LOOKUP_CASES["random.poisson"])
    assert ours[2] == theirs[2]


def test_unregistered_op_off_the_path_does_not_raise() -> None:
    """TF looks a gradient up only for ops a gradient reaches from ``xs``: a Poisson
    draw added to ``y`` from another input, one behind ``tf.stop_gradient`` or in
    ``stop_gradients``, and an ``is_nan`` whose result selects (no gradient to the
    condition) raise nothing."""

    def script(tf):
        x, lam = tf.constant(A), tf.constant(B)
        draw = tf.random.poisson(lam, [], seed=1)
        y = x * 2.0 + draw + tf.stop_gradient(tf.random.poisson(x, [], seed=2))
        y = tf.where(tf.math.is_nan(x), tf.zeros_like(x), y)
        g1 = tf.gradients(y, x)
        draw2 = tf.random.poisson(x, [], seed=3)
        g2 = tf.gradients(x * 3.0 + draw2, x, stop_gradients=[draw2])
        return lambda sess: sess.run([g1, g2])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_optimizer_minimize_through_random_poisson_raises_lookup_error() -> None:
    """``minimize`` of a loss through a Poisson draw of a variable: TF's LookupError
    when the graph is built (jtrain trained the variable with zero gradients)."""

    def outcome(tf):
        def script(tf):
            v = tf.Variable(A)
            loss = tf.reduce_sum(tf.random.poisson(v, [2], seed=1))
            try:
                tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            except LookupError as e:
                return lambda sess, text=str(e): text.split(" (op type:")[1]
            return lambda sess: None

        return run_once(tf, script)

    theirs, ours = outcome(tf1), outcome(jtf)
    assert theirs is not None
    assert ours == theirs
