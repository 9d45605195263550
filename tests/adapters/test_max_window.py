"""The CPU lowering of max pooling (``adapters/v1/ops/_max_window.py``) against ``reduce_window``.

TF's values and gradients are checked by the op goldens (``nn.max_pool_*``); here
the lowering must equal XLA's ``reduce_window`` / ``select_and_scatter`` bit for
bit (values and gradients), on ties, ``-inf``, NaN-free random data, other
layouts and ranks, strides larger or smaller than the window, explicit pads, and
inside compiled programs whose pooled value is computed by fusible arithmetic.
"""

from __future__ import annotations

import itertools
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from adapters.v1.framework.op_def import OPS, impl_params
from adapters.v1.ops import _max_window

pytestmark = pytest.mark.usefixtures("cpu_programs")  # the CPU lowering / XLA:CPU


@pytest.fixture
def lowering(monkeypatch):
    """The CPU lowering switched on (the default)."""
    monkeypatch.setattr(_max_window, "CPU_LOWERING", True)


GEOMETRIES = [
    # shape, dims, strides, padding
    ((4, 24, 24, 8), (1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
    ((2, 7, 5, 3), (1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
    ((2, 6, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
    ((2, 3, 9, 7), (1, 1, 3, 2), (1, 1, 1, 3), "SAME"),  # NCHW-style window
    ((2, 9, 4), (1, 4, 1), (1, 3, 1), "VALID"),  # 1-d
    ((1, 5, 6, 5, 2), (1, 2, 3, 2, 1), (1, 2, 2, 1, 1), "SAME"),  # 3-d
    ((2, 5, 5, 2), (1, 3, 3, 1), (1, 1, 1, 1), [(0, 0), (2, 1), (0, 2), (0, 0)]),
]


def _pair(shape, dims, strides, padding):
    pads = (
        padding
        if not isinstance(padding, str)
        else lax.padtype_to_pads(shape, dims, strides, padding)
    )
    init = np.array(-np.inf, np.float32)

    def reference(x):
        return lax.reduce_window(x, init, lax.max, dims, strides, pads)

    def lowered(x):
        return _max_window.max_window(x, init, dims, strides, pads)

    return reference, lowered


def _inputs(shape, kind, rng):
    if kind == "random":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "ties":
        return rng.integers(-2, 3, shape).astype(np.float32)
    x = rng.integers(-1, 2, shape).astype(np.float32)
    x[x < 0] = -np.inf
    return x


# every geometry and kind compiled; op by op (slow to dispatch) on two geometries
_IDENTITY_CASES = [
    pytest.param(g, kind, jit, id=f"{'jit' if jit else 'eager'}-{kind}-{'x'.join(map(str, g[0]))}")
    for g in GEOMETRIES
    for kind in ("random", "ties", "minus_inf")
    for jit in (True, False)
    if jit or g in GEOMETRIES[1:3]
]


@pytest.mark.parametrize(("geometry", "kind", "jit"), _IDENTITY_CASES)
@pytest.mark.usefixtures("lowering")
def test_bit_identical_to_reduce_window(geometry, kind, jit):
    rng = np.random.default_rng(7)
    reference, lowered = _pair(*geometry)
    x = jnp.asarray(_inputs(geometry[0], kind, rng))
    want, want_vjp = jax.vjp(reference, x)
    got, got_vjp = jax.vjp(jax.jit(lowered) if jit else lowered, x)
    g = jnp.asarray(rng.standard_normal(want.shape).astype(np.float32))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(got_vjp(g)[0]), np.asarray(want_vjp(g)[0]))


def test_lowering_is_on_by_default():
    assert _max_window.CPU_LOWERING is True


@pytest.mark.usefixtures("lowering")
def test_lowering_is_the_sliced_program_on_cpu():
    """On CPU the gradient has no select_and_scatter (else nothing is gained)."""
    reference, lowered = _pair((4, 24, 24, 8), (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    x = jnp.ones((4, 24, 24, 8), jnp.float32)
    grad = jax.jit(jax.grad(lambda v: jnp.sum(lowered(v) ** 2)))
    text = grad.lower(x).as_text()
    assert "select_and_scatter" not in text and "reduce_window" in text
    text = jax.jit(jax.grad(lambda v: jnp.sum(reference(v) ** 2))).lower(x).as_text()
    assert "select_and_scatter" in text


def test_switch_off_and_integers_keep_reduce_window(monkeypatch):
    x = jnp.arange(2 * 5 * 5 * 1, dtype=jnp.int32).reshape(2, 5, 5, 1)
    init = np.array(np.iinfo(np.int32).min, np.int32)
    pads = [(0, 0), (1, 1), (1, 1), (0, 0)]
    text = jax.jit(lambda v: _max_window.max_window(v, init, (1, 3, 3, 1), (1, 2, 2, 1), pads))
    assert "reduce_window" in text.lower(x).as_text()
    monkeypatch.setattr(_max_window, "CPU_LOWERING", False)
    f = jnp.ones((2, 5, 5, 1), jnp.float32)
    fn = jax.jit(
        lambda v: _max_window.max_window(v, np.float32(-np.inf), (1, 3, 3, 1), (1, 2, 2, 1), pads)
    )
    assert "reduce_window" in fn.lower(f).as_text()


def _first_max_tangent(x, t, dims, strides, pads):
    """Each window's tangent at its first maximum (row-major window order), by brute force."""
    xp = np.pad(x, pads, constant_values=-np.inf)
    tp = np.pad(t, pads)
    out_shape = [(n - d) // s + 1 for n, d, s in zip(xp.shape, dims, strides, strict=True)]
    out = np.zeros(out_shape, np.float32)
    for o in itertools.product(*(range(n) for n in out_shape)):
        starts = [i * s for i, s in zip(o, strides, strict=True)]
        window = tuple(slice(a, a + d) for a, d in zip(starts, dims, strict=True))
        first = np.argmax(xp[window].ravel() == xp[window].max())  # the first maximum
        out[o] = tp[window].ravel()[first]
    return out


@pytest.mark.parametrize("geometry", GEOMETRIES[:3], ids=lambda g: "x".join(map(str, g[0])))
@pytest.mark.parametrize("kind", ["random", "ties"])
@pytest.mark.usefixtures("lowering")
def test_forward_mode_takes_the_first_maximum(geometry, kind):
    """jvp works (custom_jvp) and follows the gradient's first-max rule, ties included."""
    rng = np.random.default_rng(3)
    shape, dims, strides, padding = geometry
    pads = (
        padding
        if not isinstance(padding, str)
        else lax.padtype_to_pads(shape, dims, strides, padding)
    )
    _, lowered = _pair(*geometry)
    x = _inputs(shape, kind, rng)
    t = rng.standard_normal(shape).astype(np.float32)
    _, got = jax.jvp(lowered, (jnp.asarray(x),), (jnp.asarray(t),))
    np.testing.assert_array_equal(np.asarray(got), _first_max_tangent(x, t, dims, strides, pads))


def test_second_order_matches_reduce_window():
    """Hessian-vector products (forward over reverse) equal reduce_window's where no window ties."""
    rng = np.random.default_rng(5)
    reference, lowered = _pair((1, 5, 5, 2), (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    x = jnp.asarray(_inputs((1, 5, 5, 2), "random", rng))
    t = jnp.asarray(_inputs((1, 5, 5, 2), "random", rng))

    def hvp(f):
        grad = jax.grad(lambda v: jnp.sum(f(v) ** 3))
        return jax.jit(lambda v, t: jax.jvp(grad, (v,), (t,))[1])(x, t)

    np.testing.assert_array_equal(np.asarray(hvp(lowered)), np.asarray(hvp(reference)))


_RNG = np.random.RandomState(0)
_X = _RNG.uniform(0, 1, (32, 24, 24, 3)).astype(np.float32)
_KERNEL = (_RNG.normal(size=(3, 3, 3, 8)) * 0.3).astype(np.float32)
_W = _RNG.normal(size=(32, 12, 12, 8)).astype(np.float32)


def _normalized_relu_pool_loss(kernel):
    """Batch statistics, relu, then max pooling: the program where the lowering went wrong."""
    y = jnp.tile(jnp.asarray(_X), (1, 1, 1, 3))[..., :8] * kernel[0, 0, 0]
    mean = y.mean((0, 1, 2))
    y = (y - mean) * lax.rsqrt(((y - mean) ** 2).mean((0, 1, 2)) + 1e-3)
    pooled = _max_window.max_window(
        jnp.maximum(y, 0), np.float32(-np.inf), (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4
    )
    return (pooled * jnp.asarray(_W)).sum()


@pytest.mark.usefixtures("lowering")
def test_default_pooling_gradient_is_right_inside_a_compiled_program():
    """The gradient, compiled, equals the op-by-op one (the strided-slice lowering's was not)."""
    kernel = jnp.asarray(_KERNEL)
    compiled = jax.jit(jax.grad(_normalized_relu_pool_loss))(kernel)
    op_by_op = jax.grad(_normalized_relu_pool_loss)(kernel)
    np.testing.assert_allclose(np.asarray(compiled), np.asarray(op_by_op), rtol=1e-5, atol=1e-4)


def _affine_relu(x, mean, scale, offset):
    """A batch normalization's affine step and relu: arithmetic XLA:CPU fuses into consumers."""
    return jnp.maximum((x - mean) * scale + offset, 0)


@pytest.mark.usefixtures("lowering")
def test_pooled_values_are_the_materialized_ones_inside_a_compiled_program():
    """The pooled values and gradients, compiled after fusible arithmetic, are reduce_window's.

    A forward written as slices let XLA:CPU fuse ``x * scale + offset`` into the
    slices and round it differently (no fused multiply-add there): 26% of the
    pooled values were one ulp away from reduce_window's in this very program,
    enough to flip near-ties downstream (the ``tf.layers`` convnet port drifted).
    """
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((32, 24, 24, 8)).astype(np.float32))
    stats = [jnp.asarray(rng.standard_normal(8).astype(np.float32)) for _ in range(3)]
    w = jnp.asarray(rng.standard_normal((32, 12, 12, 8)).astype(np.float32))
    dims, pads = (1, 2, 2, 1), ((0, 0),) * 4
    init = np.float32(-np.inf)

    def reference(x, *stats):
        return lax.reduce_window(_affine_relu(x, *stats), init, lax.max, dims, dims, pads)

    def lowered(x, *stats):
        return _max_window.max_window(_affine_relu(x, *stats), init, dims, dims, pads)

    want = jax.jit(reference)(x, *stats)
    np.testing.assert_array_equal(np.asarray(jax.jit(lowered)(x, *stats)), np.asarray(want))
    grads = [jax.jit(jax.grad(lambda *a, f=f: (f(*a) * w).sum(), (0, 1, 2, 3)))(x, *stats)
             for f in (reference, lowered)]  # fmt: skip
    for want_grad, got_grad in zip(*grads, strict=True):
        np.testing.assert_array_equal(np.asarray(got_grad), np.asarray(want_grad))


_TIES = os.path.join(os.path.dirname(__file__), "..", "goldens", "ops_pool_ties")


def _tie_cases():
    with open(os.path.join(_TIES, "cases.json")) as f:
        return json.load(f)["cases"]


@pytest.mark.parametrize("case", _tie_cases(), ids=lambda c: c["name"])
@pytest.mark.usefixtures("lowering")
def test_tie_heavy_pooling_routes_gradients_as_tf(case):
    """On all-zero windows, small integers and -inf, values and gradients' support are TF's.

    ``goldens/gen_ops_pool_ties.py`` (TF 2.21): each window's gradient weight is
    distinct, so a gradient sent to another of a window's equal maxima moves the
    support. Values are exact; an element that several overlapping windows
    route to sums them in another order than TF's oneDNN kernel (1 ulp apart).
    """
    arrays = np.load(os.path.join(_TIES, "arrays.npz"))
    entry = OPS[case["op"]]
    args, key = {}, None
    for param, spec in case["arguments"].items():
        if "array" in spec:
            key, args[param] = spec["array"], arrays[spec["array"]]
        else:
            args[param] = spec["value"]
    bound = entry.signature.bind(**args)
    bound.apply_defaults()
    call = dict(bound.arguments)
    tensor = next(p for p in call if p in case["arguments"] and "array" in case["arguments"][p])

    def pool(x):
        return entry.impl(*[x if p == tensor else call[p] for p in impl_params(entry)])

    with jax.enable_x64(True):  # the compat layer's scope, as Session.run runs it
        x = jnp.asarray(arrays[key])
        out, vjp = jax.vjp(jax.jit(pool), x)
        (grad,) = vjp(jnp.asarray(arrays[case["weights"][0]]))
    want = arrays[case["grads"][key]]
    np.testing.assert_array_equal(np.asarray(out), arrays[case["output_keys"][0]])
    np.testing.assert_array_equal(np.asarray(grad) != 0, want != 0)
    np.testing.assert_allclose(np.asarray(grad), want, rtol=2e-6, atol=1e-6)
