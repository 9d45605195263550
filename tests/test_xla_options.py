"""Step programs' XLA compile options (``jtrain/xla_options.py``).

With ``step_options()``, XLA:CPU's convolutions go to Eigen instead of YNNPACK and
nothing else about a program's compilation changes; the user's ``XLA_FLAGS`` and
``EIGEN_CONVOLUTIONS`` switch it off. The session's use: tests/adapters/test_session.py.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from jtrain import xla_options

pytestmark = pytest.mark.usefixtures("cpu_programs")  # the CPU lowering / XLA:CPU


@pytest.fixture
def fresh_options():
    """``step_options`` computed anew for the test (and again after it)."""
    xla_options._cpu_options.cache_clear()
    yield
    xla_options._cpu_options.cache_clear()


def _conv(x, w):
    return lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def _conv_step(x, w, dy):
    y, vjp = jax.vjp(_conv, x, w)
    return y, vjp(dy)


def _compiled(fn, options, *args) -> str:
    return jax.jit(fn, compiler_options=options).lower(*args).compile().as_text()


def _conv_args():
    rng = np.random.RandomState(0)
    return (  # big enough for XLA:CPU to give YNNPACK the convolutions
        jnp.asarray(rng.standard_normal((4, 8, 8, 32)), jnp.float32),
        jnp.asarray(rng.standard_normal((5, 5, 32, 32)), jnp.float32),
        jnp.asarray(rng.standard_normal((4, 8, 8, 32)), jnp.float32),
    )


def test_convolutions_leave_ynnpack_and_keep_their_values():
    options = xla_options.step_options("cpu")
    assert options is not None, "this jaxlib's XLA:CPU gives convolutions to YNNPACK"
    args = _conv_args()
    default = _compiled(_conv_step, None, *args)
    ours = _compiled(_conv_step, options, *args)
    assert "__ynn_fusion" in default  # what the option is there to change
    assert "__ynn_fusion" not in ours and ours.count("convolution(") == 3
    # Float32 rounding of the sums: within 8 units of rounding of each element's sum of
    # magnitudes (the op on |inputs|) of the float64 values (XLA's default YNNPACK
    # convolutions need 4.3 units on these inputs, the Eigen ones 2.4), and the same
    # bits on every run. Against TF: tests/adapters/test_ops_goldens.py.
    step = jax.jit(_conv_step, compiler_options=options)
    got = step(*args)
    magnitudes = jax.jit(_conv_step)(*map(jnp.abs, args))
    with jax.enable_x64(True):
        exact = jax.jit(_conv_step)(*(jnp.asarray(np.asarray(a), jnp.float64) for a in args))
    leaves = zip(*map(jax.tree.leaves, (got, exact, magnitudes)), strict=True)
    for g, x, m in leaves:
        units = np.abs(np.asarray(g, np.float64) - np.asarray(x)) / (2.0**-24 * np.asarray(m))
        assert units.max() <= 8, units.max()
    again = step(*args)
    for a, b in zip(jax.tree.leaves(again), jax.tree.leaves(got), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_program_without_convolutions_compiles_as_xla_decides():
    """Only the convolution fusion type is dropped: dots and reductions stay YNNPACK's."""
    rng = np.random.RandomState(1)
    x = jnp.asarray(rng.standard_normal((16, 64)), jnp.float32)
    w = jnp.asarray(rng.standard_normal((64, 32)), jnp.float32)

    def mlp_step(x, w):
        loss = lambda w: jnp.mean(jnp.tanh(x @ w) ** 2) + jnp.max(x @ w)
        return jax.value_and_grad(loss)(w)

    options = xla_options.step_options("cpu")
    assert _compiled(mlp_step, options, x, w) == _compiled(mlp_step, None, x, w)


def test_other_platforms_and_the_switch_get_no_options(monkeypatch, fresh_options):
    assert xla_options.step_options("gpu") is None
    assert xla_options.step_options("tpu") is None
    monkeypatch.setattr(xla_options, "EIGEN_CONVOLUTIONS", False)
    assert xla_options.step_options("cpu") is None


def test_the_users_xla_flags_choice_stands(monkeypatch, fresh_options):
    assert xla_options.step_options("cpu") is not None
    xla_options._cpu_options.cache_clear()
    flag = "--xla_cpu_experimental_ynn_fusion_type=+individual_convolution"
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=1 " + flag)
    assert xla_options.step_options("cpu") is None
