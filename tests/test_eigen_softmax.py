"""Unit tests of ``jtrain._eigen.softmax`` (TF's bits are checked against TF in
``tests/interop/test_eigen_softmax_interop.py``): the same bits under ``jax.export`` with
a symbolic batch as with the concrete one, the block layout's two formulations agree,
shapes, dtypes and the edges of the API."""

from __future__ import annotations

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


def _sparse_and_grad(labels, logits):
    index = jnp.argmax(labels, axis=1)
    return jax.value_and_grad(lambda x: jnp.sum(softmax.sparse_softmax_cross_entropy(index, x)))(
        logits
    )


@pytest.mark.parametrize("fn", [_xent_and_grads, _log_softmax_and_grad, _sparse_and_grad])
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
    assert softmax.softmax_cross_entropy(logits, logits).shape == (0,)
