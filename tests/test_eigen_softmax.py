"""Unit tests of ``jtrain._eigen.softmax`` (TF's bits are checked against TF in
``tests/interop/test_eigen_softmax_interop.py``): the same bits under ``jax.export`` with
a symbolic batch as with the concrete one, the block layout's two formulations agree,
shapes, dtypes and the edges of the API."""

from __future__ import annotations

import re
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export

from jtrain._eigen import softmax

_RNG = np.random.RandomState(0)


def _xent_and_grads(labels, logits):
    weights = jnp.arange(logits.shape[0], dtype=jnp.float32)
    total = lambda x, lab: jnp.sum(softmax.softmax_cross_entropy(lab, x) * weights)  # noqa: E731
    return jax.value_and_grad(total, (0, 1))(logits, labels)


def _log_softmax_and_grad(labels, logits):
    return jax.value_and_grad(lambda x: jnp.sum(softmax.log_softmax(x) * labels))(logits)


def _softmax_and_grad(labels, logits):
    return jax.value_and_grad(lambda x: jnp.sum(softmax.softmax(x) * labels))(logits)


def _sparse_and_grad(labels, logits):
    index = jnp.argmax(labels, axis=1)
    return jax.value_and_grad(lambda x: jnp.sum(softmax.sparse_softmax_cross_entropy(index, x)))(
        logits
    )


@pytest.mark.parametrize(
    "fn", [_xent_and_grads, _log_softmax_and_grad, _sparse_and_grad, _softmax_and_grad]
)
@pytest.mark.parametrize("classes", [10, 1001])
def test_symbolic_batch_gives_the_concrete_bits(fn, classes):
    """A graph exported with an unknown batch (a meta graph) computes the bits of the
    graph traced with the concrete one: the blocks of TF's tiled executor and the row
    sums chosen from the row count at run time."""
    (batch,) = export.symbolic_shape("b")
    spec = jax.ShapeDtypeStruct((batch, classes), jnp.float32)
    exported = export.export(jax.jit(fn))(spec, spec)
    for rows in (3, 600):
        logits = (_RNG.randn(rows, classes) * 3).astype(np.float32)
        labels = _RNG.rand(rows, classes).astype(np.float32)
        ours = jax.tree.leaves(exported.call(labels, logits))
        concrete = jax.tree.leaves(jax.jit(fn)(labels, logits))
        for a, b in zip(ours, concrete, strict=True):
            np.testing.assert_array_equal(
                np.asarray(a).view(np.int32), np.asarray(b).view(np.int32)
            )


@pytest.mark.parametrize(
    "shape", [(1, 2), (3, 10), (7, 1001), (137, 33), (138, 33), (600, 33), (2, 4508), (3, 10000)]
)
def test_block_tails_and_their_mask_agree(shape):
    rows, n = shape
    mask = np.zeros(rows * n, bool)
    mask[softmax._block_tails(rows, n)] = True
    np.testing.assert_array_equal(np.asarray(softmax._block_tail_mask(rows, n)).ravel(), mask)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16, jnp.bfloat16])
@pytest.mark.parametrize("shape", [(5,), (2, 3, 9)])
def test_shapes_and_dtypes(dtype, shape):
    logits = jnp.asarray(_RNG.randn(*shape), dtype)
    labels = jax.nn.softmax(jnp.asarray(_RNG.randn(*shape), dtype))
    index = jnp.asarray(_RNG.randint(0, shape[-1], shape[:-1]))
    log_probs = jax.jit(softmax.log_softmax)(logits)
    assert log_probs.shape == shape and log_probs.dtype == dtype
    loss = jax.jit(softmax.softmax_cross_entropy)(labels, logits)
    assert loss.shape == shape[:-1] and loss.dtype == dtype
    sparse = jax.jit(softmax.sparse_softmax_cross_entropy)(index, logits)
    assert sparse.shape == shape[:-1] and sparse.dtype == dtype
    probs = jax.jit(softmax.softmax)(logits)
    assert probs.shape == shape and probs.dtype == dtype
    np.testing.assert_allclose(
        np.asarray(probs, np.float32),
        np.asarray(jax.nn.softmax(logits.astype(jnp.float32)), np.float32),
        rtol=1e-2 if dtype != jnp.float32 else 1e-6,
        atol=1e-2 if dtype != jnp.float32 else 1e-7,
    )
    np.testing.assert_allclose(
        np.asarray(log_probs, np.float32),
        np.asarray(jax.nn.log_softmax(logits.astype(jnp.float32)), np.float32),
        rtol=1e-2 if dtype != jnp.float32 else 1e-6,
        atol=1e-2 if dtype != jnp.float32 else 1e-6,
    )


def test_out_of_range_labels_give_nan_and_the_labels_no_gradient():
    logits = jnp.asarray(_RNG.randn(4, 6), jnp.float32)
    labels = jnp.asarray([0, 6, -1, 5])
    loss = jax.jit(softmax.sparse_softmax_cross_entropy)(labels, logits)
    np.testing.assert_array_equal(np.isnan(loss), [False, True, True, False])
    total = lambda x: jnp.sum(softmax.sparse_softmax_cross_entropy(labels[::3], x))  # noqa: E731
    grad = jax.jit(jax.grad(total))(logits[::3])
    assert grad.shape == (2, 6) and np.isfinite(grad).all()


def test_empty_batch():
    logits = jnp.zeros((0, 4), jnp.float32)
    assert softmax.log_softmax(logits).shape == (0, 4)
    assert softmax.softmax(logits).shape == (0, 4)
    assert softmax.softmax_cross_entropy(logits, logits).shape == (0,)


def _nearest_float32(q: Fraction) -> np.float32:
    """``q`` rounded to the nearest float32, ties to even (exact arithmetic)."""
    guess = np.float32(float(q))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess]
    candidates.append(np.nextafter(guess, np.float32(np.inf)))
    distance = [abs(Fraction(float(c)) - q) for c in candidates]
    best = min(distance)
    near = [c for c, d in zip(candidates, distance, strict=True) if d == best]
    return min(near, key=lambda c: int(np.asarray(c).view(np.uint32)) % 2)


@pytest.mark.parametrize("dominant", [False, True])
def test_fused_multiply_add_rounds_once(dominant):
    """``a * b + c`` rounded once, against exact rational arithmetic: random operands of
    the scales oneDNN's exp meets (tiny products, cancellations), and a sum just below a
    float32 midpoint that a float64 sum rounds onto it (double rounding: ``c + 2**-23``);
    ``dominant``: the Fast2Sum variant on the operands with ``|c| >= |a * b|``."""
    rng = np.random.RandomState(3)
    a = (rng.randn(3000) * 10.0 ** rng.randint(-8, 3, 3000)).astype(np.float32)
    b = (rng.randn(3000) * 10.0 ** rng.randint(-8, 3, 3000)).astype(np.float32)
    c = (rng.randn(3000) * 10.0 ** rng.randint(-4, 2, 3000)).astype(np.float32)
    c[:500] = -(a[:500] * b[:500])  # cancellation
    one_ulp = np.float32(1 + 2.0**-23)
    a = np.append(a, one_ulp)
    b = np.append(b, np.float32(2.0**-24 * (1 - 2.0**-23)))
    c = np.append(c, one_ulp)
    if dominant:
        keep = np.abs(c.astype(np.float64)) >= np.abs(a.astype(np.float64) * b)
        a, b, c = a[keep], b[keep], c[keep]
        assert a.size > 1000
    ours = np.asarray(jax.jit(softmax._fused_multiply_add, static_argnums=3)(a, b, c, dominant))
    exact = [
        _nearest_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
        for x, y, z in zip(a, b, c, strict=True)
    ]
    np.testing.assert_array_equal(ours.view(np.uint32), np.array(exact).view(np.uint32))
    assert ours[-1] == one_ulp


_AVX512_FLAGS = frozenset({"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"})


@pytest.mark.parametrize(
    "flags,cap,isa",
    [
        (_AVX512_FLAGS, "", (16, True)),
        (_AVX512_FLAGS - {"avx512bw"}, "", (8, True)),
        (frozenset({"avx2", "fma", "sse4_1"}), "", (8, True)),
        (frozenset({"avx", "sse4_1"}), "", (4, False)),
        (frozenset(), "", (4, False)),
        (_AVX512_FLAGS, "avx2", (8, True)),
        (_AVX512_FLAGS, "AVX", (4, False)),
        (_AVX512_FLAGS, "SSE41", (4, False)),
        (frozenset({"avx2", "fma"}), "AVX512_CORE", (8, True)),
        (_AVX512_FLAGS, "ALL", (16, True)),
    ],
)
def test_onednn_isa_follows_the_flags_and_the_cap(flags, cap, isa):
    assert tuple(softmax._isa(flags, cap)) == isa


def test_onednn_exp_edges():
    """``exp(0)`` is 1; from ``n = floor(x * log2(e) + 1/2) = -126`` on (``x`` below
    about -86.97), where ``2**(n - 1)``'s exponent field is 0, and below ``log(FLT_MIN)``,
    0 (TF's softmax gives those zeros: ``test_math_softmax_and_extreme_logits``)."""
    x = jnp.asarray([0.0, -86.5, -87.0, -87.33, -87.34, -100.0, -jnp.inf], jnp.float32)
    for fma in (True, False):
        y = np.asarray(jax.jit(softmax._onednn_exp, static_argnums=1)(x, fma))
        assert y[0] == 1.0 and y[1] > 0.0
        np.testing.assert_array_equal(y[2:], 0.0)


def test_exp_polynomial_meets_fast2sums_condition():
    """Over ``|r| <= 0.35`` (oneDNN's exp reduces to ``|r| <= ln(2) / 2``) each Horner
    step's product stays below its coefficient: the Fast2Sum variant gives the general
    fused multiply-add's bits."""
    r = np.random.RandomState(5).uniform(-0.35, 0.35, 200_000).astype(np.float32)
    r = jnp.asarray(np.concatenate([r, np.float32([-0.35, 0.35, 0.0, -1e-30, 1e-30])]))

    def horner(dominant):
        p = jnp.full_like(r, softmax._DNNL_EXP_POLY[0])
        for coeff in softmax._DNNL_EXP_POLY[1:]:
            assert bool(jnp.all(jnp.abs(p * r) <= coeff))
            p = softmax._fused_multiply_add(p, r, coeff, dominant)
        return np.asarray(p)

    np.testing.assert_array_equal(horner(True), horner(False))


def _programs_with_exp(fn, x):
    """The computations of ``fn``'s compiled step (``jtrain.xla_options``' options, as a
    ``Session`` compiles it) that evaluate Eigen's exp polynomial."""
    from jtrain import xla_options

    text = jax.jit(fn, compiler_options=xla_options.step_options()).lower(x).compile().as_text()
    coefficient = "0.00137449"  # pexp_float's highest even coefficient, as HLO prints it
    return [c for c in re.split(r"\n(?=\S.*\{\n)", text) if coefficient in c]


@pytest.mark.parametrize("shape", [(100, 10), (64, 1000), (3, 9000)])
def test_the_kernels_evaluate_exp_once_per_step(shape):
    """The cross entropies' value and gradient, and log-softmax's value, evaluate the
    exp polynomial over the logits once: its row sums and the backprop read the stored
    values (XLA copied it into each reader before: three times over ``[400, 2000]``)."""
    rows, classes = shape
    logits = jnp.asarray(_RNG.randn(rows, classes).astype(np.float32))
    labels = jnp.asarray(_RNG.randint(0, classes, rows).astype(np.int32))
    one_hot = jax.nn.one_hot(labels, classes)
    sparse = lambda x: jnp.mean(softmax.sparse_softmax_cross_entropy(labels, x))  # noqa: E731
    dense = lambda x: jnp.mean(softmax.softmax_cross_entropy(one_hot, x))  # noqa: E731
    assert len(_programs_with_exp(jax.value_and_grad(sparse), logits)) == 1
    assert len(_programs_with_exp(jax.value_and_grad(dense), logits)) == 1
    assert len(_programs_with_exp(softmax.log_softmax, logits)) == 1
