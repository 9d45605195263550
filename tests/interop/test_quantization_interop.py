"""TF's fake quantization (``tf.quantization.fake_quant_*`` and the top-level names), as
quantization-aware training scripts use it, checked live against TF 2.21 (``twin.py``):
values bit for bit (TF's nudged ranges, ``num_bits``, ``narrow_range``), dtypes, static
shapes, TF's registered gradients (the ``*_gradient`` ops: to the inputs, to ``min`` and
``max``), the gradient ops themselves and TF's errors for bad arguments.

Before, each of these names raised ``AttributeError`` under ``from adapters import v1 as
tf``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

_RNG = np.random.RandomState(0)
X = (_RNG.randn(600) * 4).astype(np.float32)
X[:40] = np.round(X[:40] * 8) / 8  # values on a coarse grid: ties of the rounding
# (min, max): symmetric, asymmetric, nudged up from a positive min, all negative,
# tiny negative min, irrational, both zero (the vars ops: zeros), min > max (vars ops
# accept it: TF's arithmetic on the reversed range).
RANGES = [
    (-6.0, 6.0),
    (-1.0, 3.0),
    (-0.3, 1.7),
    (0.5, 2.0),
    (-2.0, -0.5),
    (-1e-3, 5.0),
    (-3.14159, 2.71828),
    (0.0, 0.0),
    (1.0, -1.0),
]
BITS = [(2, False), (4, True), (8, False), (8, True), (13, False), (16, False), (16, True)]


def _bits(values):
    """float32 results as their bit patterns (bit-exact comparison), lists kept."""
    return [np.asarray(v).view(np.int32) for v in values]


def _run_error(e):
    """TF's run error message: the line before ``[[{{node ...}}]]`` (jtrain's: its first)."""
    lines = str(getattr(e, "message", e)).split("\n")
    ends = [i for i, line in enumerate(lines) if line.strip().startswith("[[")]
    return lines[ends[0] - 1].strip() if ends else lines[0]


def test_fake_quant_values_bit_exact_over_ranges_and_bits():
    """176 outputs of 600 values (ties, clamping, 2 to 16 bits, narrow range), bit for bit."""

    def script(tf):
        x = tf.constant(X)
        x2 = tf.constant(X.reshape(300, 2))
        x4 = tf.constant(X.reshape(5, 4, 5, 6))
        outs = []
        for lo, hi in RANGES:
            for bits, narrow in BITS:
                kw = {"num_bits": bits, "narrow_range": narrow}
                outs.append(tf.fake_quant_with_min_max_vars(x, lo, hi, **kw))
                outs.append(
                    tf.quantization.fake_quant_with_min_max_vars_per_channel(
                        x2, [lo, lo / 2], [hi, hi * 1.5], **kw
                    )
                )
                if lo < hi:
                    outs.append(tf.fake_quant_with_min_max_args(x, lo, hi, **kw))
        span = np.linspace(-1, 1, 6, dtype=np.float32)
        outs.append(tf.fake_quant_with_min_max_vars_per_channel(x4, span - 2, span + 2))
        info = [(t.dtype.name, t.get_shape().as_list(), t.op.type) for t in outs]
        return lambda sess: (info, _bits(sess.run(outs)))

    theirs, ours = run_both(script)
    assert len(ours[1]) == 176
    assert_twins(theirs, ours, rtol=0)


def test_fake_quant_gradients_are_tfs_registered_ones():
    """``tf.gradients`` through each op: to the inputs inside the nudged range, to min and
    max the (per-channel) sums of what falls below and above it; the gradient ops' types."""

    def script(tf):
        x = tf.constant(X[:60].reshape(10, 6))
        lo = tf.constant(-1.0)
        hi = tf.constant(3.0)
        lo_c = tf.constant(np.linspace(-2, 0, 6, dtype=np.float32))
        hi_c = tf.constant(np.linspace(0.5, 4, 6, dtype=np.float32))
        weight = tf.constant(np.arange(60, dtype=np.float32).reshape(10, 6))
        a = tf.fake_quant_with_min_max_args(x, min=-2.5, max=1.5, num_bits=4)
        v = tf.fake_quant_with_min_max_vars(x, lo, hi, num_bits=6, narrow_range=True)
        c = tf.fake_quant_with_min_max_vars_per_channel(x, lo_c, hi_c, num_bits=8)
        z = tf.fake_quant_with_min_max_vars(x, tf.constant(0.0), tf.constant(0.0))
        grads = [
            tf.gradients(a * weight, [x]),
            tf.gradients(v * weight, [x, lo, hi]),
            tf.gradients(c * weight, [x, lo_c, hi_c]),
            tf.gradients(z * weight, [x]),
        ]
        shapes = [[g.get_shape().as_list() for g in gs] for gs in grads]
        return lambda sess: (shapes, sess.run(grads))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_gradient_ops_called_directly():
    def script(tf):
        g = tf.constant(np.arange(1, 61, dtype=np.float32).reshape(10, 6))
        x = tf.constant(X[:60].reshape(10, 6))
        a = tf.quantization.fake_quant_with_min_max_args_gradient(g, x, min=-1.0, max=2.0)
        v = tf.fake_quant_with_min_max_vars_gradient(g, x, -1.0, 2.0, num_bits=5)
        c = tf.fake_quant_with_min_max_vars_per_channel_gradient(
            g, x, [-1.0, -2, 0, -0.5, -3, 0], [1.0, 2, 0, 0.5, 3, 1], narrow_range=True
        )
        info = [
            type(v).__name__,
            list(v._fields),
            type(c).__name__,
            [[t.get_shape().as_list(), t.dtype.name] for t in (a, *v, *c)],
        ]
        return lambda sess: (info, sess.run([a, list(v), list(c)]))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


def test_unknown_shapes_and_fed_ranges():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        lo = tf.placeholder(tf.float32, [])
        hi = tf.placeholder(tf.float32, [3])
        v = tf.fake_quant_with_min_max_vars(x, lo, 2.0)
        c = tf.fake_quant_with_min_max_vars_per_channel(x, [-1.0, -1, -1], hi)
        shapes = [v.get_shape().as_list(), c.get_shape().as_list()]
        feed = {x: X[:12].reshape(4, 3), lo: -0.7, hi: [0.4, 1.3, 7.0]}
        return lambda sess: (shapes, _bits(sess.run([v, c], feed)))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


@pytest.mark.parametrize(
    "call",
    [
        "args_min_max",
        "args_equal",
        "args_bits_low",
        "args_bits_high",
        "vars_bits",
        "per_channel_bits",
        "args_gradient_min_max",
    ],
)
def test_bad_attributes_fail_the_run_with_tfs_error(call):
    """TF's kernels refuse ``min >= max`` (the args ops) and ``num_bits`` outside [2, 16]
    when the run starts: ``InvalidArgumentError`` with TF's message."""

    def script(tf):
        x = tf.constant(X[:6])
        build = {
            "args_min_max": lambda: tf.fake_quant_with_min_max_args(x, min=1.0, max=-1.0),
            "args_equal": lambda: tf.fake_quant_with_min_max_args(x, min=0.5, max=0.5),
            "args_bits_low": lambda: tf.fake_quant_with_min_max_args(x, num_bits=1),
            "args_bits_high": lambda: tf.fake_quant_with_min_max_args(x, num_bits=17),
            "vars_bits": lambda: tf.fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=17),
            "per_channel_bits": lambda: tf.fake_quant_with_min_max_vars_per_channel(
                x, [-1.0] * 6, [1.0] * 6, num_bits=1
            ),
            "args_gradient_min_max": lambda: tf.fake_quant_with_min_max_args_gradient(
                x, x, min=2.0, max=1.5
            ),
        }
        out = build[call]()

        def run(sess):
            try:
                sess.run(out)
            except tf.errors.InvalidArgumentError as e:
                return _run_error(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


@pytest.mark.parametrize(
    "call, error",
    [
        ("vars_vector_min", ValueError),
        ("per_channel_scalar_min", ValueError),
        ("per_channel_depth", ValueError),
        ("per_channel_scalar_input", ValueError),
        ("float64_input", TypeError),
    ],
)
def test_bad_shapes_and_dtypes_raise_when_built(call, error):
    def script(tf):
        x = tf.constant(X[:6])
        build = {
            "vars_vector_min": lambda: tf.fake_quant_with_min_max_vars(x, [-1.0], [1.0]),
            "per_channel_scalar_min": lambda: tf.fake_quant_with_min_max_vars_per_channel(
                x, -1.0, 1.0
            ),
            "per_channel_depth": lambda: tf.fake_quant_with_min_max_vars_per_channel(
                x, [-1.0] * 5, [1.0] * 5
            ),
            "per_channel_scalar_input": lambda: tf.fake_quant_with_min_max_vars_per_channel(
                tf.constant(1.0), [-1.0], [1.0]
            ),
            "float64_input": lambda: tf.fake_quant_with_min_max_args(tf.cast(x, tf.float64)),
        }
        try:
            build[call]()
        except error as e:
            # TF's message up to the node it names (the class alone for the TypeError)
            said = (error.__name__, str(e).split(" for '")[0] if error is ValueError else "")
            return lambda sess: said
        return lambda sess: None

    theirs, ours = run_both(script)
    assert ours == theirs and ours[0] == error.__name__


def test_namespace_names():
    """The fake-quant names of ``tf.compat.v1.quantization`` and the top level exist and
    are the same functions in both places, as TF's."""
    import tensorflow as real_tf

    from adapters import v1 as jtf

    names = [
        "fake_quant_with_min_max_args",
        "fake_quant_with_min_max_args_gradient",
        "fake_quant_with_min_max_vars",
        "fake_quant_with_min_max_vars_gradient",
        "fake_quant_with_min_max_vars_per_channel",
        "fake_quant_with_min_max_vars_per_channel_gradient",
    ]
    for name in names:
        assert getattr(real_tf.compat.v1, name) is getattr(real_tf.compat.v1.quantization, name)
        assert getattr(jtf, name) is getattr(jtf.quantization, name)
    for name in ("quantize_and_dequantize", "quantize_and_dequantize_v2"):
        assert hasattr(real_tf.compat.v1.quantization, name)
        assert hasattr(jtf.quantization, name)


QDQ_CASES = [
    # (min, max, signed_input, num_bits, range_given, round_mode, narrow_range)
    (-1.0, 3.0, True, 8, True, "HALF_TO_EVEN", False),
    (-1.0, 3.0, True, 8, True, "HALF_UP", True),
    (-6.0, 0.5, False, 4, True, "HALF_TO_EVEN", False),
    (0.0, 0.0, True, 8, False, "HALF_TO_EVEN", False),
    (0.0, 0.0, False, 5, False, "HALF_UP", False),
    (-0.3, 0.2, True, 16, True, "HALF_TO_EVEN", True),
    (0.25, 2.5, True, 3, True, "HALF_UP", False),
]


@pytest.mark.parametrize("v2", [False, True])
def test_quantize_and_dequantize_values_bit_exact_and_gradients(v2):
    """Per tensor and per channel (axis), given or measured ranges, both rounding modes,
    float32 and float64; gradients: V2's straight through, V4's inside the given range."""

    def script(tf):
        qdq = (
            tf.quantization.quantize_and_dequantize_v2
            if v2
            else tf.quantization.quantize_and_dequantize
        )
        x = tf.constant(X[:120].reshape(20, 6))
        outs, grads = [], []
        for lo, hi, signed, bits, given, mode, narrow in QDQ_CASES:
            kw = dict(signed_input=signed, num_bits=bits, range_given=given, round_mode=mode)
            lo_t, hi_t = tf.constant(lo), tf.constant(hi)
            y = qdq(x, lo_t, hi_t, narrow_range=narrow, **kw)
            outs.append(y)
            # (V2's gradient to the range is None in TF, zeros in jtrain: not compared)
            grads.append(tf.gradients(y * x, [x, lo_t, hi_t] if v2 else [x]))
        lo_c = tf.constant(np.linspace(-3, -0.5, 6, dtype=np.float32))
        hi_c = tf.constant(np.linspace(0.5, 4, 6, dtype=np.float32))
        for axis, given in ((1, False), (-1, False), (0, False)):
            los = lo_c if axis != 0 else tf.constant(np.full(20, -1.0, np.float32))
            his = hi_c if axis != 0 else tf.constant(np.full(20, 2.0, np.float32))
            y = qdq(x, los, his, range_given=given, axis=axis)
            outs.append(y)
            grads.append(tf.gradients(y * x, [x, los, his] if v2 else [x]))
        x64 = tf.constant(X[:50].astype(np.float64) / 3)
        outs.append(qdq(x64, tf.constant(-2.0, tf.float64), tf.constant(1.0, tf.float64),
                        range_given=True, num_bits=12))  # fmt: skip
        info = [(t.dtype.name, t.get_shape().as_list(), t.op.type) for t in outs]
        return lambda sess: (info, sess.run(outs), sess.run(grads))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)


@pytest.mark.parametrize(
    "call",
    ["v2_range", "v4_range", "v2_bits", "v4_bits_unsigned", "v2_channel_range"],
)
def test_quantize_and_dequantize_run_errors(call):
    def script(tf):
        x = tf.constant(X[:12].reshape(4, 3))
        q = tf.quantization
        build = {
            "v2_range": lambda: q.quantize_and_dequantize(x, 1.0, -1.0, range_given=True),
            "v4_range": lambda: q.quantize_and_dequantize_v2(x, 0.5, 0.25, range_given=True),
            "v2_bits": lambda: q.quantize_and_dequantize(x, -1.0, 1.0, num_bits=64),
            "v4_bits_unsigned": lambda: q.quantize_and_dequantize_v2(
                x, -1.0, 1.0, num_bits=0, signed_input=False
            ),
            "v2_channel_range": lambda: q.quantize_and_dequantize(
                x, [-1.0, 2.0, -1.0], [1.0, 1.5, 1.0], range_given=True, axis=1
            ),
        }
        out = build[call]()

        def run(sess):
            try:
                sess.run(out)
            except tf.errors.InvalidArgumentError as e:
                return _run_error(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs and ours is not None


@pytest.mark.parametrize(
    "call, error",
    [
        ("round_mode", ValueError),
        ("vector_range", ValueError),
        ("scalar_channel_range", ValueError),
        ("depth", ValueError),
        ("integer_input", TypeError),
    ],
)
def test_quantize_and_dequantize_build_errors(call, error):
    def script(tf):
        x = tf.constant(X[:12].reshape(4, 3))
        q = tf.quantization.quantize_and_dequantize
        build = {
            "round_mode": lambda: q(x, -1.0, 1.0, round_mode="BAD"),
            "vector_range": lambda: q(x, [-1.0], [1.0]),
            "scalar_channel_range": lambda: q(x, -1.0, 1.0, axis=1),
            "depth": lambda: q(x, [-1.0, 1.0], [1.0, 2.0], axis=1),
            "integer_input": lambda: q(tf.constant([1, 2]), -1, 1),
        }
        try:
            build[call]()
        except error as e:
            said = (error.__name__, str(e).split(" for '")[0] if error is ValueError else "")
            return lambda sess: said
        return lambda sess: None

    theirs, ours = run_both(script)
    assert ours == theirs and ours[0] == error.__name__


@pytest.mark.parametrize("v2", [False, True])
def test_quantize_and_dequantize_empty_input_with_measured_range(v2):
    """An empty input (per tensor or per channel, static or fed) quantizes to an empty
    output without a range to measure; before, the build failed (``min`` of nothing)."""

    def script(tf):
        qdq = (
            tf.quantization.quantize_and_dequantize_v2
            if v2
            else tf.quantization.quantize_and_dequantize
        )
        x = tf.constant(np.zeros((0, 3), np.float32))
        fed = tf.placeholder(tf.float32, [None, 3])
        no_channels = tf.constant(np.zeros((2, 0), np.float32))
        outs = [
            qdq(x, -1.0, 1.0),
            qdq(x, [-1.0] * 3, [1.0] * 3, axis=1),
            qdq(no_channels, [], [], axis=1),
            qdq(fed, -1.0, 1.0),
        ]
        grads = tf.gradients([tf.reduce_sum(y) for y in outs], [x, no_channels, fed])
        feed = {fed: np.zeros((0, 3), np.float32)}
        return lambda sess: sess.run((outs, grads), feed)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
