"""Every jtrain optimizer against real TensorFlow, step by step.

The reference files in ``tests/goldens/optimizers/`` are written by
``goldens/gen_optimizers.py`` (``nox -s goldens``) from ``tf.compat.v1.train``'s
optimizers in graph mode: the variables, every slot and every non-slot variable
right after initialization and after each of at least 12 steps, for dense and
sparse (``IndexedSlices`` with a duplicated index) gradients in float32 and
float64, with default and non-default hyperparameters. This test replays the
same gradients through ``jtrain.optimizers.<optimizer>(**hparams)`` and compares
everything TF recorded, with and without ``jax.jit``.

Tolerances: rtol 1e-5 for float32 and 1e-6 for float64, no atol: where TF's value
is exactly zero (FTRL's and the proximal optimizers' l1 zeros, untouched slot
rows) jtrain must give exactly zero too. The generator keeps only data on which
TF's float32 and float64 runs agree to 3e-6, so rounding differences alone do
not reach these tolerances.

Parameters are compared with TF's trajectory *as optax updates can follow it*:
optax applies ``params + updates``, so the closest any transformation can come to
TF's new value ``new`` is ``prev + (new - prev)`` rounded in the variable's dtype.
That equals ``new`` except where a kernel *assigns* a value far smaller than the
old one (AdagradDA's, FTRL's and the proximal optimizers' l1 shrinkage:
``-0.0017`` from ``1.13`` in float32 cannot be reached by adding a float32 to
``1.13``). The expected parameters start at TF's initial values; at each step an
element TF changed becomes that rounded sum towards TF's new value, and an
element TF left alone stays. Everything comes from TF's data and optax's
documented addition, nothing from jtrain's formulas. Slots and non-slots are
compared with TF's values directly.
"""

from __future__ import annotations

import json
import pathlib

import jax.numpy as jnp
import numpy as np
import optax
import pytest

import jtrain
import jtrain.optimizers

GOLDEN_DIR = pathlib.Path(__file__).resolve().parent.parent / "goldens" / "optimizers"
CASES = sorted(GOLDEN_DIR.glob("*.npz"))
RTOL = {"float32": 1e-5, "float64": 1e-6}


def load_case(path: pathlib.Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The case's metadata and its arrays (read without pickle)."""
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(str(arrays.pop("meta")))
    return meta, arrays


def test_goldens_present():
    """The reference data exists and covers all ten optimizers in every form."""
    metas = [load_case(p)[0] for p in CASES]
    optimizers = {m["optimizer"] for m in metas}
    assert optimizers == {
        "gradient_descent",
        "momentum",
        "adagrad",
        "adagrad_da",
        "adadelta",
        "adam",
        "ftrl",
        "rmsprop",
        "proximal_adagrad",
        "proximal_gradient_descent",
    }
    for fn in optimizers:
        forms = {(m["sparse"], m["dtype"]) for m in metas if m["optimizer"] == fn}
        assert forms == {(s, d) for s in (False, True) for d in ("float32", "float64")}, fn
    assert all(m["steps"] >= 12 for m in metas)


def make_grads(meta: dict, arrays: dict, t: int) -> dict:
    grads = {}
    for v in meta["vars"]:
        if f"grad/{t}/{v}/values" in arrays:
            values = jnp.asarray(arrays[f"grad/{t}/{v}/values"])
            indices = jnp.asarray(arrays[f"grad/{t}/{v}/indices"])
            grads[v] = jtrain.IndexedSlices(values, indices, arrays[f"init/{v}"].shape)
        else:
            grads[v] = jnp.asarray(arrays[f"grad/{t}/{v}"])
    return grads


def follow(reached: np.ndarray, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """TF's step ``before -> after`` taken from ``reached`` by one optax addition."""
    stepped = (reached + (after - reached)).astype(after.dtype)
    return np.where(after == before, reached, stepped)


def mismatches(
    case: str, when: str, meta: dict, arrays: dict, params, state, expected_params=None
) -> list[str]:
    """Every recorded value of ``when`` ("init" or "after/<t>") that jtrain misses,
    as "case, when, what: detail" lines (empty when all agree); parameters are
    compared with ``expected_params`` (see the module docstring)."""
    rtol = RTOL[meta["dtype"]]
    out = []

    def check(label: str, actual, expected: np.ndarray) -> None:
        where = f"{case}, {when}, {label}"
        actual = np.asarray(actual)
        if actual.dtype != expected.dtype:
            out.append(f"{where}: dtype {actual.dtype}, TF has {expected.dtype}")
            return
        if actual.shape != expected.shape:
            out.append(f"{where}: shape {actual.shape}, TF has {expected.shape}")
            return
        try:
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0)
        except AssertionError as e:
            out.append(f"{where}: {e}")

    def field(name: str):
        if not hasattr(state, name):
            out.append(f"{case}, {when}: state {type(state).__name__} has no field {name!r}")
            return None
        return getattr(state, name)

    for v in meta["vars"]:
        if params is not None:
            check(f"variable {v!r}", params[v], expected_params[v])
        for s in meta["slots"]:
            slot = field(s)
            if slot is not None:
                check(f"variable {v!r} slot {s!r}", slot[v], arrays[f"{when}/{v}/{s}"])
    for n in meta["non_slots"]:
        value = field(n)
        if value is not None:
            check(f"non-slot {n!r}", value, arrays[f"{when}/{n}"])
    return out


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, id=p.stem, marks=[pytest.mark.x64] if "64" in p.stem else []) for p in CASES],
)
def test_tf_parity(path: pathlib.Path, maybe_jit):
    meta, arrays = load_case(path)
    case = path.stem
    fn = getattr(jtrain.optimizers, meta["optimizer"], None)
    assert fn is not None, f"{case}: jtrain.optimizers.{meta['optimizer']} does not exist"
    dtype = jnp.dtype(meta["dtype"])
    hparams = dict(meta["hparams"])
    if meta["hparams_as_tensors"]:
        # TF got these as tensors of the variables' dtype (see the generator).
        for k in ("learning_rate", "l1_regularization_strength", "l2_regularization_strength"):
            hparams[k] = jnp.asarray(hparams.get(k, 0.0), dtype)
    opt = fn(**hparams)
    params = {v: jnp.asarray(arrays[f"init/{v}"], dtype) for v in meta["vars"]}

    state = maybe_jit(opt.init)(params)
    errors = mismatches(case, "init", meta, arrays, None, state)
    assert not errors, "\n".join(errors)

    def step(grads, state, params):
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    step = maybe_jit(step)
    expected = {v: arrays[f"init/{v}"] for v in meta["vars"]}
    for t in range(meta["steps"]):
        params, state = step(make_grads(meta, arrays, t), state, params)
        before = "init" if t == 0 else f"after/{t - 1}"
        expected = {
            v: follow(expected[v], arrays[f"{before}/{v}"], arrays[f"after/{t}/{v}"])
            for v in meta["vars"]
        }
        errors = mismatches(case, f"after/{t}", meta, arrays, params, state, expected)
        assert not errors, f"step {t} differs from TF:\n" + "\n".join(errors)


def test_parity_covers_the_zero_row():
    """The data holds a touched row with zero gradient and, in sparse cases, a
    duplicated index and rows left untouched (guards the generator's design)."""
    meta, arrays = load_case(GOLDEN_DIR / "adam__default__sparse__float32.npz")
    saw_zero_row = False
    for t in range(meta["steps"]):
        indices = arrays[f"grad/{t}/a/indices"]
        values = arrays[f"grad/{t}/a/values"]
        assert len(np.unique(indices)) < len(indices)
        assert len(np.unique(indices)) < arrays["init/a"].shape[0]
        for i in np.unique(indices):
            if not np.any(values[indices == i].sum(axis=0)):
                saw_zero_row = True
    assert saw_zero_row


# The optimizers whose TF kernels assign the variable: ``apply_gradients`` (their
# ``assign``) gives TF's new value itself, not ``params + (new - params)``.
ASSIGNING = ("ftrl", "proximal_adagrad", "proximal_gradient_descent", "adagrad_da")


def vectorized_math(meta: dict) -> bool:
    """Whether TF's kernel computes this case's dense update with Eigen's vectorized
    ``rsqrt`` (ProximalAdagrad) or ``pow`` (Ftrl with ``learning_rate_power`` other than
    -0.5): approximations whose last bits depend on the CPU (up to 7 ulps measured on
    these data), where jtrain computes a correctly rounded ``1 / sqrt`` and XLA's
    ``pow``."""
    if meta["sparse"]:
        return False
    power = meta["hparams"].get("learning_rate_power", -0.5)
    return meta["optimizer"] == "proximal_adagrad" or (
        meta["optimizer"] == "ftrl" and power != -0.5
    )


def assert_same_bits(actual, expected: np.ndarray, what: str) -> None:
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype, what
    bits = np.dtype(f"u{expected.dtype.itemsize}")
    np.testing.assert_array_equal(actual.view(bits), expected.view(bits), err_msg=what)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, id=p.stem, marks=[pytest.mark.x64] if "64" in p.stem else [])
        for p in CASES
        if p.stem.split("__")[0] in ASSIGNING
    ],
)
def test_assigning_optimizers_take_tfs_steps_bit_for_bit(path: pathlib.Path, maybe_jit):
    """From TF's variables before each step, ``jtrain.optimizers.apply_gradients``
    gives TF's variables after it and TF's slots, bit for bit (-0.0 is not 0.0).
    ``update`` plus ``optax.apply_updates`` was up to 128 ulps off on these data (a
    value assigned far smaller than the old one), and gave 0.0 for TF's -0.0."""
    meta, arrays = load_case(path)
    dtype = jnp.dtype(meta["dtype"])
    hparams = dict(meta["hparams"])
    if meta["hparams_as_tensors"]:
        for k in ("learning_rate", "l1_regularization_strength", "l2_regularization_strength"):
            hparams[k] = jnp.asarray(hparams.get(k, 0.0), dtype)
    opt = getattr(jtrain.optimizers, meta["optimizer"])(**hparams)
    assert isinstance(opt, jtrain.optimizers.AssigningTransformation)
    step = maybe_jit(lambda g, s, p: jtrain.optimizers.apply_gradients(opt, g, s, p))
    state = opt.init({v: jnp.asarray(arrays[f"init/{v}"], dtype) for v in meta["vars"]})
    for t in range(meta["steps"]):
        before = "init" if t == 0 else f"after/{t - 1}"
        params = {v: jnp.asarray(arrays[f"{before}/{v}"], dtype) for v in meta["vars"]}
        params, state = step(make_grads(meta, arrays, t), state, params)
        for v in meta["vars"]:
            expected = arrays[f"after/{t}/{v}"]
            what = f"step {t}, variable {v!r}"
            if vectorized_math(meta):
                np.testing.assert_allclose(params[v], expected, rtol=RTOL[meta["dtype"]])
            else:
                assert_same_bits(params[v], expected, what)
                for s in meta["slots"]:
                    slot = getattr(state, s)[v]
                    assert_same_bits(slot, arrays[f"after/{t}/{v}/{s}"], f"{what}, slot {s!r}")
