"""Test configuration: CPU; JAX's x64 mode as ``JTRAIN_TEST_X64`` says (``0`` or ``1``)."""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# The unit suite checks jtrain's reproduction of the TF it was measured against (TF 2.21
# on an x86 CPU with AVX-512, oneDNN on) on any machine; tests/interop/conftest.py lets
# jtrain detect this machine's TF instead (jtrain._eigen.tf_cpu_kernels).
os.environ.setdefault("JTRAIN_TF_CPU_KERNELS", "onednn:avx512_core")

import jax  # noqa: E402
import pytest  # noqa: E402

# JAX's default (x64 off), what users run; `nox -s tests_x64` sets JTRAIN_TEST_X64=1.
jax.config.update("jax_enable_x64", os.environ.get("JTRAIN_TEST_X64", "0") == "1")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "x64: the test computes with 64-bit values, so it runs inside jax.enable_x64(True), "
        "as a JAX user enables them (the suite itself runs in JAX's default, x64 off)",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if item.get_closest_marker("x64") is None:
        return (yield)
    with jax.enable_x64(True):
        return (yield)


@pytest.fixture(params=[False, True], ids=["eager", "jit"])
def maybe_jit(request):
    """Runs a numerical test with and without ``jax.jit``."""
    if request.param:
        return jax.jit
    return lambda f, **kwargs: f


@pytest.fixture
def cpu_programs():
    """Arrays and programs on the host's CPU for the test, on a GPU machine too: for tests
    of machinery the library uses in CPU programs only (``lax.platform_dependent``,
    XLA:CPU's options), which a GPU would compile otherwise (contracting FMAs, scattering
    with atomics)."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield
