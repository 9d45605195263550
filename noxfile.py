"""Developer sessions for jtrain.

`nox -s tests`     the whole CPU suite (TensorFlow is not installed here).
`nox -s tests_x64` the functional core's tests with JAX's x64 mode on (`tests` runs x64
                   off); `-- tests` for the whole suite.
`nox -s tests_floor` the functional core's tests on the lowest dependency versions
                   pyproject allows; `-- tests` for the whole suite.
`nox -s tests_gpu` the same suite on JAX's CUDA build (needs an NVIDIA GPU).
`nox -s lint`      ruff and mypy.
`nox -s goldens`   installs tensorflow-cpu and regenerates the reference data
                   under tests/goldens/ from real TensorFlow.
`nox -s interop`   tests that run real TensorFlow against jtrain's files.
`nox -s protos`    regenerates jtrain/protos/*_pb2.py from the .proto files.
`nox -s bench`     the benchmarks in benchmarks/ (figures go to BENCHMARKS.md).
`nox -s demo`      the README demo.
`nox -s docs`      the documentation site (MkDocs, warnings are errors) into site/.
`nox -s coverage`  regenerates docs/coverage.md from the code (tools/coverage.py).
"""

from __future__ import annotations

import glob
import os

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True

PYTHON = "3.11"
# The TensorFlow used as the reference (test oracle and benchmark opponent).
TENSORFLOW = "tensorflow-cpu==2.21.0"
# TF 2.21's `tf.compat.v1.layers` lives in the legacy Keras package, switched on by
# TF_USE_LEGACY_KERAS=1 (without it: "`dense` is not available with Keras 3").
TF_KERAS = "tf-keras==2.21.0"
TF_ENV = {"CUDA_VISIBLE_DEVICES": "", "TF_CPP_MIN_LOG_LEVEL": "2", "TF_USE_LEGACY_KERAS": "1"}
# The CPU suite, in two pytest-xdist workers: the machines (CI's too) have two cores and a
# test is mostly single-threaded tracing and compiling, so two workers halve the wall time.
# `-- -n 0` (posargs come after) runs it in one process. The 15 slowest tests are listed
# (CI's log shows where its time goes), and every test's time is in .nox/<session>.xml
# (JUnit XML; git ignores .nox/).
CPU_SUITE = ("--ignore=tests/interop", "-n", "2", "--durations=15")


def _junit(session: nox.Session) -> str:
    return f"--junit-xml={os.path.join(os.path.dirname(__file__), '.nox', session.name)}.xml"


# The test sessions share one JAX persistent compilation cache: most of a test's time is
# XLA compiling small programs, and the suites (x64 off, x64 on, the floor versions: the
# same jaxlib) and interop compile many of the same ones. A cached executable is keyed
# by the program's HLO, the compile options and the jax/jaxlib versions, so a hit is the
# very program a compile would give. Measured on 2 cores: 4,194 tests 13.7 min without
# the cache, 11.9 min filling an empty one, 4.6 min with it filled. Kept under .nox/
# (git ignores it; delete it freely). Compile events still fire on a hit
# (/jax/core/compile/backend_compile_duration wraps the cache read), so the tests that
# count compilations still see every one. Two workers writing one entry at once may let
# the other read it half-written: JAX then warns and compiles, never runs a bad entry.
JAX_CACHE_ENV = {
    "JAX_COMPILATION_CACHE_DIR": os.path.join(os.path.dirname(__file__), ".nox", "jax-cache"),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1",
}
# Python's own cache of compiled modules, on even where the machine's environment turns
# it off (PYTHONDONTWRITEBYTECODE=1 on these development machines): every pytest worker and
# every subprocess a test starts would compile jtrain, adapters and the tests anew.
# Measured on 2 cores: collecting the CPU suite 17.0 s without it, 8.7 s with it (after
# a first run writing the __pycache__ folders git ignores); `import adapters.v1` 3.5 s
# -> 2.5 s. An empty value is Python's "unset".
BYTECODE_ENV = {"PYTHONDONTWRITEBYTECODE": ""}
CPU_ENV = {"JAX_PLATFORMS": "cpu", **JAX_CACHE_ENV, **BYTECODE_ENV}


def _goldens_scripts() -> list[str]:
    return sorted(glob.glob("goldens/gen_*.py"))


# The functional core's own tests (its directories and the modules of its optimizers,
# schedules, clipping, averaging, loss scaling, numerics and errors): with the compat
# layer's tests of JAX's x64 setting, what `tests_x64` runs; with the compat layer's
# session and saver, what `tests_floor` runs. Left to `tests` (current versions,
# x64 off): the compat layer, whose programs trace inside JAX's `enable_x64(True)`
# whatever the user's setting (README), so x64 changes its results only through the
# user's own JAX functions (test_jax_function_dtypes) and what test_x64, test_dtypes and
# test_sparse_ops check; the CPU kernels' emulations (tests/test_eigen_*, which the
# compat layer's ops run, so in x64 already) and the demo, README, distribution and
# coverage checks, which depend on neither setting.
CORE_SUITE = (
    "tests/jtrain",
    "tests/optimizers",
    "tests/checkpoint",
    "tests/records",
    "tests/test_averaging.py",
    "tests/test_clipping.py",
    "tests/test_errors.py",
    "tests/test_indexed_slices.py",
    "tests/test_loss_scale.py",
    "tests/test_numerics.py",
    "tests/test_schedules.py",
)
X64_ADAPTERS = (
    "tests/adapters/test_x64.py",
    "tests/adapters/test_dtypes.py",
    "tests/adapters/test_jax_function_dtypes.py",
    "tests/adapters/test_sparse_ops.py",
)
FLOOR_ADAPTERS = ("tests/adapters/test_session.py", "tests/adapters/test_saver.py")


def _suite(posargs: list[str], default: tuple[str, ...]) -> list[str]:
    """pytest's arguments: ``default``'s paths unless ``posargs`` names some (``-- tests``
    for the whole suite), then ``CPU_SUITE`` and ``posargs`` (``-- -n 0``)."""
    named = any(os.path.exists(arg.split("::")[0]) for arg in posargs)
    return [*(() if named else default), *CPU_SUITE, *posargs]


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The whole test suite on the CPU."""
    session.install("-e", ".[test,image]")
    session.run("pytest", *CPU_SUITE, _junit(session), *session.posargs, env=CPU_ENV)


@nox.session(python=PYTHON)
def tests_x64(session: nox.Session) -> None:
    """The functional core's suite and the compat layer's x64 tests with JAX's x64 mode on
    (``CORE_SUITE``, ``X64_ADAPTERS``; ``tests`` runs the whole suite in JAX's default,
    x64 off). ``-- tests`` runs the whole suite."""
    session.install("-e", ".[test,image]")
    env = {**CPU_ENV, "JTRAIN_TEST_X64": "1"}
    suite = _suite(session.posargs, (*CORE_SUITE, *X64_ADAPTERS))
    session.run("pytest", *suite, _junit(session), env=env)


@nox.session(python=PYTHON, venv_backend="uv")
def tests_floor(session: nox.Session) -> None:
    """The functional core's suite and the compat layer's session on the lowest versions
    pyproject.toml allows (uv's lowest-direct). ``-- tests`` runs the whole suite."""
    session.install("--resolution", "lowest-direct", "-e", ".[test,image]")
    session.run(
        "python",
        "-c",
        "import jax, optax, numpy; print(jax.__version__, optax.__version__, numpy.__version__)",
    )
    suite = _suite(session.posargs, (*CORE_SUITE, *FLOOR_ADAPTERS))
    session.run("pytest", *suite, _junit(session), env=CPU_ENV)


@nox.session(python=PYTHON)
def tests_gpu(session: nox.Session) -> None:
    """The same suite with JAX's CUDA build; run it where an NVIDIA GPU exists."""
    session.install("-e", ".[test,image]")
    session.install("jax[cuda12]")
    session.run("python", "-c", "import jax; print(jax.devices())")
    # tests/conftest.py defaults JAX_PLATFORMS to cpu: name the GPU platform first here
    # (the CPU too: host callbacks such as jax.debug.callback need a CPU device).
    # No preallocation: with `-n N` each worker would claim 75% of the GPU's memory (on an
    # H200 the second worker's first allocation failed: RESOURCE_EXHAUSTED).
    env = {"JAX_PLATFORMS": "cuda,cpu", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    session.run("pytest", "--ignore=tests/interop", *session.posargs, env=env)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff check, and mypy as configured in pyproject.toml."""
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.install("-e", ".", "mypy>=1.15")
    session.run("mypy")


@nox.session(python=PYTHON)
def goldens(session: nox.Session) -> None:
    """Regenerate the reference data from real TensorFlow (graph mode, tf.compat.v1)."""
    session.install(TENSORFLOW, TF_KERAS, "numpy")
    scripts = session.posargs or _goldens_scripts()
    for script in scripts:
        session.run("python", script, env=TF_ENV)


@nox.session(python=PYTHON)
def interop(session: nox.Session) -> None:
    """jtrain against real TensorFlow: each reads what the other wrote."""
    session.install("-e", ".[test,image]", TENSORFLOW, TF_KERAS, "tensorboard")
    env = {**CPU_ENV, **TF_ENV}
    # Two workers, as the CPU suite: each test works in its own tmp_path (660 tests: 10 min
    # in one process on the CI machine, 2.6 min in two here).
    session.run(
        "pytest", "tests/interop", "-n", "2", "--durations=15", _junit(session), *session.posargs,
        env=env,
    )  # fmt: skip


@nox.session(python=PYTHON)
def protos(session: nox.Session) -> None:
    """Regenerate the committed jtrain/protos/*_pb2.py (and .pyi) from the .proto files."""
    # Pinned: its protoc (35.1) sets the protobuf runtime floor in pyproject.toml.
    session.install("grpcio-tools==1.85.1")
    session.run(
        "python",
        "-m",
        "grpc_tools.protoc",
        "-I.",
        "--python_out=.",
        "--pyi_out=.",
        *sorted(glob.glob("jtrain/protos/*.proto")),
    )


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Run the benchmarks; each prints its figures as a Markdown table."""
    session.install("-e", ".", TENSORFLOW, TF_KERAS)
    scripts = session.posargs or sorted(glob.glob("benchmarks/bench_*.py"))
    env = {**TF_ENV, "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu")}
    env.pop("CUDA_VISIBLE_DEVICES")
    for script in scripts:
        session.run("python", script, env=env)


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """The README demo: trains a small model and prints its loss going down."""
    session.install("-e", ".[demo]")
    session.run("python", "examples/demo.py", *session.posargs, env={"JAX_PLATFORMS": "cpu"})


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the documentation site into site/; any warning fails the build."""
    session.install("-e", ".", "mkdocs>=1.6", "mkdocstrings[python]>=0.29", "pymdown-extensions")
    session.run("mkdocs", "build", "--strict", *session.posargs, env={"JAX_PLATFORMS": "cpu"})


@nox.session(python=PYTHON)
def coverage(session: nox.Session) -> None:
    """Regenerate docs/coverage.md (and, with `-- names`, docs/tf_names.txt under TF)."""
    if session.posargs == ["names"]:
        session.install(TENSORFLOW, TF_KERAS)
        session.run("python", "tools/coverage.py", "names", env=TF_ENV)
        return
    session.install("-e", ".")
    session.run("python", "tools/coverage.py", "table", env={"JAX_PLATFORMS": "cpu"})
