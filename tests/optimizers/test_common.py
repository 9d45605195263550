"""Properties every jtrain optimizer has, whatever its math.

Each test runs over all ten optimizers (one small constructor each): they
compose with other optax transformations, keep every leaf's dtype, run as one
jitted step with donated buffers, reject a gradient tree that does not match
the parameters (naming the leaf), and take a schedule as learning rate with the
count starting at 0. The math itself is checked against TF in
``test_tf_parity.py``; here optimizers are only compared with themselves.
"""

from __future__ import annotations

import re
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import jtrain
import jtrain.optimizers
from tests._helpers import assert_trees_close

# One small constructor per optimizer (TF's required arguments, a few non-defaults).
CONSTRUCTORS = {
    "gradient_descent": {"learning_rate": 0.1},
    "momentum": {"learning_rate": 0.1, "momentum": 0.9},
    "adagrad": {"learning_rate": 0.1},
    "adagrad_da": {"learning_rate": 0.1, "l1_regularization_strength": 0.01},
    "adadelta": {"learning_rate": 0.1},
    "adam": {"learning_rate": 0.1},
    "ftrl": {"learning_rate": 0.1, "l1_regularization_strength": 0.01},
    "rmsprop": {"learning_rate": 0.1, "momentum": 0.5, "centered": True},
    "proximal_adagrad": {"learning_rate": 0.1, "l2_regularization_strength": 0.01},
    "proximal_gradient_descent": {"learning_rate": 0.1, "l2_regularization_strength": 0.01},
}
NAMES = sorted(CONSTRUCTORS)
# Optimizers whose TF kernels accept bfloat16 variables (dense): checked with
# tensorflow-cpu 2.21; TF's ProximalAdagrad, ProximalGradientDescent and
# AdagradDA reject bfloat16.
BFLOAT16 = ("gradient_descent", "momentum", "adagrad", "adadelta", "adam", "ftrl", "rmsprop")


def make(name: str, **overrides) -> optax.GradientTransformation:
    fn = getattr(jtrain.optimizers, name, None)
    assert fn is not None, f"jtrain.optimizers.{name} does not exist"
    return fn(**{**CONSTRUCTORS[name], **overrides})


def tree(seed: int, dtypes: dict | None = None, scale: float = 1.0) -> dict:
    """A small parameter (or gradient) tree: ``a`` (3, 2) and ``b`` (2,)."""
    dtypes = dtypes or {"a": jnp.float32, "b": jnp.float32}
    rng = np.random.default_rng(seed)
    shapes = {"a": (3, 2), "b": (2,)}
    return {k: jnp.asarray(rng.standard_normal(shapes[k]) * scale, dtypes[k]) for k in shapes}


def sparse_a(grads: dict) -> dict:
    """``grads`` with ``a`` as an ``IndexedSlices`` (rows 2, 0, 2)."""
    a = grads["a"]
    values = jnp.stack([a[2], a[0], a[1]])
    return {**grads, "a": jtrain.IndexedSlices(values, jnp.asarray([2, 0, 2]), a.shape)}


def dtypes_of(x) -> list:
    return [jnp.dtype(leaf.dtype) for leaf in jax.tree.leaves(x)]


@pytest.mark.parametrize("name", NAMES)
def test_composes_with_chain(name, maybe_jit):
    """``optax.chain(clip_by_global_norm, opt)`` equals clipping, then ``opt``."""
    opt = make(name)
    clip = optax.clip_by_global_norm(0.5)
    chained = optax.chain(clip, opt)
    params_c = params_m = tree(0)
    state_c = maybe_jit(chained.init)(params_c)
    state_m = maybe_jit(opt.init)(params_m)
    chained_update = maybe_jit(chained.update)

    @maybe_jit
    def manual_update(grads, state, params):
        clipped, _ = clip.update(grads, clip.init(params))
        return opt.update(clipped, state, params)

    for t in range(3):
        grads = tree(10 + t, scale=3.0)  # global norm > 0.5: the clipping acts
        updates_c, state_c = chained_update(grads, state_c, params_c)
        updates_m, state_m = manual_update(grads, state_m, params_m)
        assert_trees_close(updates_c, updates_m, 1e-6, f"{name} step {t} updates")
        assert_trees_close(state_c[1], state_m, 1e-6, f"{name} step {t} state")
        params_c = optax.apply_updates(params_c, updates_c)
        params_m = optax.apply_updates(params_m, updates_m)


DTYPE_CASES = [(n, "float32") for n in NAMES]
DTYPE_CASES += [(n, "float64") for n in NAMES]
DTYPE_CASES += [(n, "mixed") for n in NAMES]
DTYPE_CASES += [(n, "bfloat16") for n in BFLOAT16]
DTYPES = {
    "float32": {"a": jnp.float32, "b": jnp.float32},
    "float64": {"a": jnp.float64, "b": jnp.float64},
    "mixed": {"a": jnp.float32, "b": jnp.float64},
    "bfloat16": {"a": jnp.bfloat16, "b": jnp.bfloat16},
}


@pytest.mark.parametrize(("name", "dtypes"), DTYPE_CASES)
def test_keeps_leaf_dtypes(name, dtypes, maybe_jit):
    """Each parameter's dtype is kept by its updates and slots, dense and sparse,
    with 64-bit types enabled (the tests' setting): no promotion of float32 by
    Python-float hyperparameters, and the state's dtypes never change."""
    opt = make(name)
    dt = DTYPES[dtypes]
    params = tree(0, dt)
    param_dtypes = dtypes_of(params)
    state = maybe_jit(opt.init)(params)
    state_dtypes = dtypes_of(state)
    update = maybe_jit(opt.update)
    for t, sparse in enumerate([False, True, False]):
        grads = tree(10 + t, dt)
        if sparse and dtypes != "bfloat16":
            grads = sparse_a(grads)
        updates, state = update(grads, state, params)
        assert dtypes_of(updates) == param_dtypes, f"{name} step {t}: updates"
        assert dtypes_of(state) == state_dtypes, f"{name} step {t}: state dtypes changed"
        for field in state._fields:
            value = getattr(state, field)
            if jax.tree.structure(value) == jax.tree.structure(params):
                assert dtypes_of(value) == param_dtypes, f"{name} step {t}: slot {field}"
        params = optax.apply_updates(params, updates)
        assert dtypes_of(params) == param_dtypes


@pytest.mark.parametrize("name", NAMES)
def test_one_jitted_step_with_donated_buffers(name):
    """A training step is one ``jax.jit`` with parameters and state donated:
    every donated buffer is reused (state shapes and dtypes are stable) and the
    results are those of the same step compiled without donation."""
    opt = make(name)

    def step(params, state, grads):
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    donating = jax.jit(step, donate_argnums=(0, 1))
    plain = jax.jit(step)
    params_d = params_p = tree(0)
    state_p = opt.init(params_p)
    state_d = opt.init(jax.tree.map(jnp.copy, params_d))
    for t in range(3):
        grads = tree(10 + t)
        if t == 1:
            grads = sparse_a(grads)
        params_p, state_p = plain(params_p, state_p, grads)
        donated = jax.tree.map(jnp.copy, (params_d, state_d))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            params_d, state_d = donating(*donated, grads)
        unusable = [str(w.message) for w in caught if "donated" in str(w.message)]
        assert not unusable, f"{name}: {unusable}"
        assert all(x.is_deleted() for x in jax.tree.leaves(donated)), f"{name}: not donated"
        for what, a, b in (("params", params_d, params_p), ("state", state_d, state_p)):
            assert jax.tree.structure(a) == jax.tree.structure(b), f"{name} step {t} {what}"
            for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
                np.testing.assert_array_equal(x, y, err_msg=f"{name} step {t} {what}")


def _missing_b(grads):
    return {"a": grads["a"]}


def _b_wrong_shape(grads):
    return {**grads, "b": jnp.zeros((3,), jnp.float32)}


def _b_wrong_dtype(grads):
    return {**grads, "b": grads["b"].astype(jnp.float16)}  # a dtype JAX has with x64 off


def _a_sparse_wrong_shape(grads):
    values = grads["a"][:2]
    return {**grads, "a": jtrain.IndexedSlices(values, jnp.asarray([0, 1]), (4, 2))}


MISMATCHES = {
    "missing_leaf": (_missing_b, "['b']"),
    "wrong_shape": (_b_wrong_shape, "['b']"),
    "wrong_dtype": (_b_wrong_dtype, "['b']"),
    "sparse_wrong_dense_shape": (_a_sparse_wrong_shape, "['a']"),
}


@pytest.mark.parametrize("mismatch", sorted(MISMATCHES))
@pytest.mark.parametrize("name", NAMES)
def test_mismatched_gradients_name_the_leaf(name, mismatch, maybe_jit):
    opt = make(name)
    params = tree(0)
    state = opt.init(params)
    corrupt, leaf = MISMATCHES[mismatch]
    grads = corrupt(tree(1))
    with pytest.raises(ValueError, match=re.escape(leaf)):
        maybe_jit(opt.update)(grads, state, params)


@pytest.mark.parametrize("name", NAMES)
def test_schedule_learning_rate_counts_from_zero(name, maybe_jit):
    """``learning_rate=lambda step: 0.1 * 0.5 ** step``: the first update is the
    constant-0.1 optimizer's, the second the constant-0.05 optimizer's (from the
    same state), and the second differs from constant 0.1's."""
    scheduled = make(name, learning_rate=lambda step: 0.1 * 0.5**step)
    const_01 = make(name, learning_rate=0.1)
    const_005 = make(name, learning_rate=0.05)
    params = tree(0)
    g0, g1 = tree(10), tree(11)

    state_s = maybe_jit(scheduled.init)(params)
    state_c = maybe_jit(const_01.init)(params)
    u0_s, state_s = maybe_jit(scheduled.update)(g0, state_s, params)
    u0_c, state_c = maybe_jit(const_01.update)(g0, state_c, params)
    assert_trees_close(u0_s, u0_c, 1e-6, f"{name} step 0 updates (lr 0.1)")
    assert_trees_close(state_s, state_c, 1e-6, f"{name} step 0 state (lr 0.1)")

    params = optax.apply_updates(params, u0_s)
    u1_s, _ = maybe_jit(scheduled.update)(g1, state_s, params)
    u1_c, _ = maybe_jit(const_005.update)(g1, state_c, params)
    u1_01, _ = maybe_jit(const_01.update)(g1, state_c, params)
    assert_trees_close(u1_s, u1_c, 1e-6, f"{name} step 1 updates (lr 0.05)")
    differs = [
        not np.allclose(np.asarray(a), np.asarray(b), rtol=1e-3)
        for a, b in zip(jax.tree.leaves(u1_s), jax.tree.leaves(u1_01), strict=True)
    ]
    assert any(differs), f"{name}: the schedule's second step equals constant lr 0.1"


# The optimizers whose TF kernels assign the variable (``var = ...``).
ASSIGNING = ("adagrad_da", "ftrl", "proximal_adagrad", "proximal_gradient_descent")


def assert_trees_equal(actual, expected, what: str) -> None:
    """The same leaves, bit for bit."""
    pairs = zip(jax.tree.leaves(actual), jax.tree.leaves(expected), strict=True)
    for i, (a, e) in enumerate(pairs):
        a, e = np.asarray(a), np.asarray(e)
        assert a.dtype == e.dtype, f"{what} leaf {i}"
        np.testing.assert_array_equal(a.view(f"u{a.itemsize}"), e.view(f"u{e.itemsize}"), what)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name", NAMES)
def test_apply_gradients_assigns_or_adds_the_update(name, sparse, maybe_jit):
    """``jtrain.optimizers.apply_gradients`` is the ``assign`` of an
    ``AssigningTransformation`` (the optimizers whose TF kernels assign the variable),
    whose ``update`` stays optax's: exactly the new value minus the old; for the
    others it is ``optax.apply_updates(params, update)``. The state is ``update``'s."""
    opt = make(name)
    params = tree(0)
    state = opt.init(params)
    grads = sparse_a(tree(1)) if sparse else tree(1)
    new, new_state = maybe_jit(lambda g, s, p: jtrain.optimizers.apply_gradients(opt, g, s, p))(
        grads, state, params
    )
    updates, update_state = maybe_jit(opt.update)(grads, state, params)
    assert_trees_equal(new_state, update_state, f"{name} state")
    assert isinstance(opt, optax.GradientTransformation)
    if name in ASSIGNING:
        assert isinstance(opt, jtrain.optimizers.AssigningTransformation)
        assigned, assign_state = maybe_jit(opt.assign)(grads, state, params)
        assert_trees_equal(assigned, new, f"{name} assign")
        assert_trees_equal(assign_state, new_state, f"{name} assign state")
        differences = jax.tree.map(lambda n, p: n - p, new, params)
        assert_trees_equal(updates, differences, f"{name} update")
        assert_trees_close(optax.apply_updates(params, updates), new, 1e-6, f"{name} sum")
    else:
        assert not isinstance(opt, jtrain.optimizers.AssigningTransformation)
        assert_trees_equal(new, optax.apply_updates(params, updates), f"{name} sum")
