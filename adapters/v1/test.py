"""``tf.test``: TF's ``TestCase`` for graph-mode tests, gradient checks and device queries.

``TestCase`` is a ``unittest.TestCase`` with TF's assertions (``assertAllClose``
over nested structures, ``assertAllEqual``, ``assertNear``, ``assertProtoEquals``...)
and TF1's sessions: each test starts on a fresh default graph whose random seed is
TF's ``DEFAULT_GRAPH_SEED`` (87654321, also given to ``random`` and ``np.random``);
``cached_session()`` is one session of that graph for the whole test,
``session()`` a new one, ``evaluate(tensors)`` runs them in the default session
(or a cached one). Tensors passed to the assertions are evaluated first, as in TF.

``compute_gradient`` is TF1's gradient checker: the theoretical Jacobian from
``tf.gradients`` (one backward run per output element) and the numeric one from
central differences ``(y(x + delta) - y(x - delta)) / (2 delta)``, each an array of
shape ``[x_size, y_size]`` (complex values counted as two reals).

Device answers come from JAX: ``is_gpu_available()`` is whether ``jax.devices()``
has a GPU, ``is_built_with_cuda()`` whether JAX's CUDA plugin is installed.

``mock`` is ``unittest.mock`` (as TF's).

.. note::
   ``create_local_cluster`` (jtrain's ``Server`` is the process's one JAX
   runtime), ``Benchmark``, ``StubOutForTesting``, ``benchmark_config`` (its
   ``rewrite_options`` field is not in jtrain's ``ConfigProto``),
   ``is_cpu_target_available``, ``experimental`` and ``test_src_dir_path`` are
   not here (``AttributeError``).
"""

from __future__ import annotations

import atexit
import collections.abc
import contextlib
import functools
import math
import os
import random
import re
import shutil
import sys
import tempfile
import unittest
from collections.abc import Iterator
from typing import Any
from unittest import mock

import jax
import ml_dtypes
import numpy as np
from google.protobuf import text_format

from adapters.v1 import sysconfig as _sysconfig
from adapters.v1._missing import missing_name_getattr
from adapters.v1.client.session import Session, get_default_session
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.device_spec import DeviceSpec
from adapters.v1.framework.indexed_slices import IndexedSlices
from adapters.v1.ops import array_ops, gradients_impl, init_ops
from adapters.v1.ops.constant_op import constant
from jtrain import errors

__all__ = [
    "TestCase",
    "assert_equal_graph_def",
    "compute_gradient",
    "disable_with_predicate",
    "compute_gradient_error",
    "get_temp_dir",
    "gpu_device_name",
    "is_built_with_cuda",
    "is_built_with_gpu_support",
    "is_built_with_rocm",
    "is_built_with_xla",
    "is_gpu_available",
    "main",
    "mock",
    "with_eager_op_as_function",
]

DEFAULT_GRAPH_SEED = 87654321  # TF's random_seed.DEFAULT_GRAPH_SEED

_temp_dir: str | None = None


def get_temp_dir() -> str:
    """The process's temporary directory for tests: ``$TEST_TMPDIR`` when set, else a
    directory made once (named after the running script) and removed at exit."""
    global _temp_dir
    if "TEST_TMPDIR" in os.environ:
        return os.environ["TEST_TMPDIR"]
    if _temp_dir is None:
        script = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "test")
        _temp_dir = tempfile.mkdtemp(prefix=os.path.splitext(script)[0])
        atexit.register(shutil.rmtree, _temp_dir, True)
    return _temp_dir


def main(argv: list[str] | None = None) -> None:
    """Runs the ``__main__`` module's tests with ``unittest`` (TF's ``test.main``).

    Args:
      argv: the command line (default ``sys.argv``).
    """
    unittest.main(module="__main__", argv=argv)


def disable_with_predicate(pred: Any, skip_message: str) -> Any:
    """Decorator for a test method: skip it (``skip_message``) when ``pred()`` is true
    at the time the test runs."""

    def decorator(func: Any) -> Any:
        @functools.wraps(func)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)

        return wrapper

    return decorator


def with_eager_op_as_function(cls: Any = None, only_as_function: bool = False) -> Any:
    """Class decorator that returns the class unchanged (as TF 2.21's, whose flag is gone)."""
    del only_as_function
    return cls if cls is not None else (lambda c: c)


# -- devices (JAX's) ------------------------------------------------------------------
def _gpus() -> list[Any]:
    try:
        return list(jax.devices("gpu"))
    except RuntimeError:  # no GPU backend
        return []


def is_gpu_available(
    cuda_only: bool = False, min_cuda_compute_capability: tuple[int, int] | None = None
) -> bool:
    """Whether JAX has a GPU (``jax.devices("gpu")``).

    Args:
      cuda_only: count only CUDA GPUs (not ROCm).
      min_cuda_compute_capability: a ``(major, minor)`` the GPU must reach; a
        device whose capability JAX does not report does not count.

    Returns:
      ``bool``.
    """
    for device in _gpus():
        version = str(getattr(getattr(device, "client", None), "platform_version", ""))
        if cuda_only and "rocm" in version.lower():
            continue
        if min_cuda_compute_capability is not None:
            capability = getattr(device, "compute_capability", None)
            if capability is None:
                continue
            major, minor = (int(p) for p in str(capability).split(".")[:2])
            if (major, minor) < tuple(min_cuda_compute_capability):
                continue
        return True
    return False


def gpu_device_name() -> str:
    """``"/device:GPU:0"`` when JAX has a GPU, else ``""`` (TF's answers)."""
    return "/device:GPU:0" if _gpus() else ""


def is_built_with_cuda() -> bool:
    """Whether JAX's CUDA plugin is installed."""
    return bool(_sysconfig.get_build_info()["is_cuda_build"])


def is_built_with_rocm() -> bool:
    """Whether JAX's ROCm plugin is installed."""
    return bool(_sysconfig.get_build_info()["is_rocm_build"])


def is_built_with_gpu_support() -> bool:
    """Whether a JAX GPU plugin (CUDA or ROCm) is installed."""
    return is_built_with_cuda() or is_built_with_rocm()


def is_built_with_xla() -> bool:
    """``True``: every ``Session.run`` is an XLA program."""
    return True


# -- graph comparison ------------------------------------------------------------------
def _node_key(node: Any, hash_table_shared_name: bool) -> Any:
    inputs = [i for i in node.input if not i.startswith("^")]
    controls = sorted(i for i in node.input if i.startswith("^"))
    attrs = {}
    for key, value in node.attr.items():
        if hash_table_shared_name and key == "shared_name" and "HashTable" in node.op:
            continue
        attrs[key] = value.SerializeToString(deterministic=True)
    return node.op, inputs, controls, node.device, attrs


def assert_equal_graph_def(
    actual: Any, expected: Any, checkpoint_v2: bool = False, hash_table_shared_name: bool = False
) -> None:
    """Asserts two ``GraphDef``s have the same nodes, whatever their order.

    Nodes are matched by name and compared by op, data inputs (in order),
    control inputs (as a set), device and attributes.

    Args:
      actual: the ``GraphDef`` tested.
      expected: the ``GraphDef`` expected.
      checkpoint_v2: ignore the ``save/Const`` string that names the V2 checkpoint
        format's temporary files (TF's flag).
      hash_table_shared_name: ignore hash tables' ``shared_name``.

    Raises:
      TypeError: an argument is not a ``GraphDef`` (TF's message).
      AssertionError: the graphs differ (the first difference named).
    """
    for name, value in (("actual", actual), ("expected", expected)):
        if type(value).__name__ != "GraphDef" or not hasattr(value, "node"):
            raise TypeError(f"Expected tf.GraphDef for {name}, got {type(value).__name__}")
    if checkpoint_v2:
        actual, expected = _strip_checkpoint_v2(actual), _strip_checkpoint_v2(expected)
    want = {n.name: n for n in expected.node}
    got = {n.name: n for n in actual.node}
    for name in want:
        if name not in got:
            raise AssertionError(f"Node named '{name}' in expected graph is missing from actual")
    for name, node in got.items():
        if name not in want:
            raise AssertionError(f"Node named '{name}' in actual graph is not in expected")
        mine = _node_key(node, hash_table_shared_name)
        theirs = _node_key(want[name], hash_table_shared_name)
        if mine != theirs:
            raise AssertionError(
                f"Node named '{name}' differs:\nactual:\n{node}\nexpected:\n{want[name]}"
            )


def _strip_checkpoint_v2(graph_def: Any) -> Any:
    copy = type(graph_def)()
    copy.CopyFrom(graph_def)
    for node in copy.node:
        if node.name.startswith("save/Const") and "value" in node.attr:
            node.attr["value"].tensor.ClearField("string_val")
    return copy


# -- gradient checker -----------------------------------------------------------------
_CHECKED = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _size(shape: Any) -> int:
    return shape if isinstance(shape, int) else math.prod(shape)


def _with(extra: dict, feeds: dict) -> dict:
    return {**extra, **feeds}


def _theoretical(x: Any, x_shape: Any, x_data: Any, dy: Any, dy_shape: Any, dx: Any, extra: dict):
    if x.dtype.is_complex:
        x_shape = (*tuple(x_shape), 2)
    x_size = _size(x_shape)
    row_size = _size(tuple(x_shape)[1:])
    dy_size = _size(dy_shape) * (2 if dy.dtype.is_complex else 1)
    jacobian = np.zeros((x_size, dy_size), dtype=x.dtype.real_dtype.as_numpy_dtype)
    dy_data = np.zeros(dy_shape, dtype=dy.dtype.as_numpy_dtype)
    dy_flat = dy_data.ravel().view(dy.dtype.real_dtype.as_numpy_dtype)
    sess = get_default_session()
    for col in range(dy_size):
        dy_flat[col] = 1
        feeds = _with(extra, {x: x_data, dy: dy_data})
        if isinstance(dx, IndexedSlices):
            indices, values = sess.run([dx.indices, dx.values], feed_dict=feeds)
            for i, v in zip(indices, values, strict=True):
                jacobian[i * row_size : (i + 1) * row_size, col] += v.flat
        else:
            jacobian[:, col] = sess.run(dx, feed_dict=feeds).ravel().view(jacobian.dtype)
        dy_flat[col] = 0
    if not dy_size:
        back = sess.run(dx, feed_dict=_with(extra, {x: x_data, dy: dy_data}))
        if back.shape != x_data.shape:
            raise ValueError(
                f"Empty gradient has wrong shape: expected {x_data.shape}, got {back.shape}"
            )
        if np.any(back):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numeric(x: Any, x_shape: Any, x_data: Any, y: Any, y_shape: Any, delta: float, extra: dict):
    from adapters.v1.framework.op_def import tf_names

    if y.dtype.base_dtype == dtypes.bfloat16:
        y = tf_names("")["cast"](y, dtypes.float32)
    x_size = _size(x_shape) * (2 if x.dtype.is_complex else 1)
    y_size = _size(y_shape) * (2 if y.dtype.is_complex else 1)
    x_real = x.dtype.real_dtype.as_numpy_dtype
    y_real = y.dtype.real_dtype.as_numpy_dtype
    x_data = np.asarray(x_data, dtype=x.dtype.as_numpy_dtype)
    scale = np.asarray(2 * delta, dtype=y_real)[()]
    jacobian = np.zeros((x_size, y_size), dtype=x_real)
    for row in range(x_size):
        x_pos, x_neg = x_data.copy(), x_data.copy()
        x_pos.ravel().view(x_real)[row] += delta
        x_neg.ravel().view(x_real)[row] -= delta
        y_pos = y.eval(feed_dict=_with(extra, {x: x_pos}))
        y_neg = y.eval(feed_dict=_with(extra, {x: x_neg}))
        jacobian[row, :] = ((y_pos - y_neg) / scale).ravel().view(y_real)
    return jacobian


def _dx_and_dy(x: Any, y: Any, y_shape: Any) -> tuple[Any, Any]:
    with x.graph.as_default():
        dy_const = constant(1.0, shape=y_shape, dtype=y.dtype)
        dy = array_ops.identity(dy_const)
    (dx,) = gradients_impl.gradients(y, x, dy)
    return dx, dy_const


def _one(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra):
    for what, t in (("x", x.dtype), ("y", y.dtype)):
        if t.base_dtype.name not in _CHECKED:
            raise AssertionError(f"Don't support type {t.name} for {what}")
    if x_init_value is not None:
        if list(x_shape) != list(x_init_value.shape):
            raise AssertionError(
                f"x_shape = {x_shape}, init_data shape = {list(x_init_value.shape)}"
            )
        x_data = x_init_value
    else:
        x_data = np.random.random_sample(x_shape).astype(x.dtype.as_numpy_dtype)  # noqa: NPY002 - TF's
        if x.dtype.is_complex:
            x_data.imag = np.random.random_sample(x_shape)  # noqa: NPY002 - TF's
    if x.dtype.base_dtype == dtypes.bfloat16:
        # TF casts x to float32 for the numeric Jacobian; the feed stays bfloat16.
        x_data = np.asarray(x_data, dtype=ml_dtypes.bfloat16)
    jacob_t = _theoretical(x, x_shape, x_data, dy, y_shape, dx, extra)
    numeric_x = x_data.astype(np.float32) if x_data.dtype == ml_dtypes.bfloat16 else x_data
    jacob_n = _numeric(x, x_shape, numeric_x, y, y_shape, delta, extra)
    return jacob_t, jacob_n


def compute_gradient(
    x: Any,
    x_shape: Any,
    y: Any,
    y_shape: Any,
    x_init_value: Any = None,
    delta: float = 1e-3,
    init_targets: Any = None,
    extra_feed_dict: dict | None = None,
) -> Any:
    """The theoretical and numeric Jacobians of ``y`` with respect to ``x`` (TF1's
    gradient checker; run inside a default session).

    .. math::
       J_t[i, j] = \\partial y_j / \\partial x_i \\text{ (backprop of a one-hot } dy),
       \\qquad J_n[i, j] = (y_j(x + \\delta e_i) - y_j(x - \\delta e_i)) / (2\\delta)

    Args:
      x: a tensor (fed) or a list of tensors.
      x_shape: ``x``'s shape (a list of shapes for a list).
      y: the tensor differentiated.
      y_shape: ``y``'s shape.
      x_init_value: the value of ``x`` (default: ``np.random.random_sample``).
      delta: the perturbation (default ``1e-3``).
      init_targets: ops run first (initializers).
      extra_feed_dict: other feeds for every run.

    Returns:
      ``(theoretical, numeric)``, each ``[x_size, y_size]``; a list of them for a list ``x``.

    Raises:
      AssertionError: a dtype other than a float or complex one (TF's assertion).
    """
    extra = dict(extra_feed_dict or {})
    if init_targets is not None:
        assert isinstance(init_targets, (list, tuple))
    if isinstance(x, list):
        pairs = [_dx_and_dy(xi, y, y_shape) for xi in x]
        for init in init_targets or ():
            init.run()
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        return [
            _one(xi, shape, dx, y, y_shape, dy, init, delta, extra)
            for xi, shape, (dx, dy), init in zip(x, x_shape, pairs, inits, strict=False)
        ]
    for init in init_targets or ():
        init.run()
    dx, dy = _dx_and_dy(x, y, y_shape)
    return _one(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra)


def compute_gradient_error(
    x: Any,
    x_shape: Any,
    y: Any,
    y_shape: Any,
    x_init_value: Any = None,
    delta: float = 1e-3,
    init_targets: Any = None,
    extra_feed_dict: dict | None = None,
) -> float:
    """The largest absolute difference between ``compute_gradient``'s theoretical and
    numeric Jacobians (over every ``x`` of a list); same arguments."""
    grad = compute_gradient(
        x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict
    )
    pairs = grad if isinstance(grad, list) else [grad]
    error = 0.0
    for jacob_t, jacob_n in pairs:
        if jacob_t.size or jacob_n.size:
            error = max(error, float(np.fabs(jacob_t - jacob_n).max()))
    return error


# -- TestCase -------------------------------------------------------------------------
def _canonical_device(device: Any) -> str:
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


def _where(condition: np.ndarray) -> tuple[np.ndarray, ...]:
    return np.where(condition)


_WIDE = (ml_dtypes.bfloat16, ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3fn)


class TestCase(unittest.TestCase):
    """``unittest.TestCase`` with TF's assertions and TF1 sessions (see the module)."""

    def __init__(self, methodName: str = "runTest") -> None:  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._cached_session: Session | None = None
        self._tempdir: str | None = None

    def setUp(self) -> None:
        super().setUp()
        if self.id().endswith(".test_session"):  # TF's method, not a test
            self.skipTest("Not a test.")
        self._clear_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)  # noqa: NPY002 - TF seeds the global RNG
        ops.reset_default_graph()
        init_ops.set_random_seed(DEFAULT_GRAPH_SEED)

    def tearDown(self) -> None:
        self._clear_cached_session()
        super().tearDown()

    def _clear_cached_session(self) -> None:
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    def get_temp_dir(self) -> str:
        """A temporary directory for this test (the same one on every call)."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(dir=get_temp_dir())
        return self._tempdir

    # -- sessions -----------------------------------------------------------------
    def _new_session(self, graph: Any, config: Any, force_gpu: bool) -> Session:
        if force_gpu and not _gpus():
            raise errors.InvalidArgumentError(
                None, None, "force_gpu=True but JAX has no GPU (jax.devices('gpu') is empty)"
            )
        return Session(graph=graph, config=config)

    @contextlib.contextmanager
    def _as_default(self, sess: Session) -> Iterator[Session]:
        with sess.graph.as_default(), sess.as_default():
            yield sess

    @contextlib.contextmanager
    def session(
        self, graph: Any = None, config: Any = None, use_gpu: bool = True, force_gpu: bool = False
    ) -> Iterator[Session]:
        """A new session of ``graph`` (default: the default graph), closed on exit.

        Args:
          graph: the graph (default: the test's default graph).
          config: a ``ConfigProto``.
          use_gpu: accepted (XLA places the program).
          force_gpu: require a GPU.

        Raises:
          InvalidArgumentError: ``force_gpu`` without a GPU.
        """
        del use_gpu
        sess = self._new_session(graph, config, force_gpu)
        try:
            with self._as_default(sess):
                yield sess
        finally:
            sess.close()

    @contextlib.contextmanager
    def cached_session(
        self, graph: Any = None, config: Any = None, use_gpu: bool = True, force_gpu: bool = False
    ) -> Iterator[Session]:
        """The test's one session (made on first use, closed in ``tearDown``); same
        arguments as ``session``."""
        del use_gpu
        if self._cached_session is None:
            self._cached_session = self._new_session(graph, config, force_gpu)
        sess = self._cached_session
        if graph is not None and sess.graph is not graph:
            raise ValueError(
                "The graph used to get the cached session is different than the one that "
                "was used to create the session. Maybe create a new session with "
                "self.session()"
            )
        with self._as_default(sess):
            yield sess

    @contextlib.contextmanager
    def test_session(
        self, graph: Any = None, config: Any = None, use_gpu: bool = True, force_gpu: bool = False
    ) -> Iterator[Session]:
        """Deprecated TF name: ``cached_session`` without a graph, else ``session``."""
        if graph is None:
            with self.cached_session(None, config, use_gpu, force_gpu) as sess:
                yield sess
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def evaluate(self, tensors: Any) -> Any:
        """The values of ``tensors`` (nested) in the default session, or the cached one."""
        sess = get_default_session()
        if sess is None:
            with self.test_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    # -- values ---------------------------------------------------------------------
    def _is_graph_value(self, a: Any) -> bool:
        return isinstance(a, (ops.Tensor, IndexedSlices)) or hasattr(a, "_as_graph_tensor")

    def _ndarray(self, a: Any) -> np.ndarray:
        if self._is_graph_value(a):
            a = self.evaluate(a)
        if not isinstance(a, np.ndarray):
            try:
                return np.array(a)
            except ValueError as e:
                if "inhomogeneous shape" in str(e):
                    return np.array(a, dtype=object)
                raise
        return a

    def _both(self, a: Any, b: Any) -> tuple[Any, Any]:
        if self._is_graph_value(a) and self._is_graph_value(b):
            return self.evaluate((a, b))
        return a, b

    # -- assertions -------------------------------------------------------------------
    def assertNear(self, f1: Any, f2: Any, err: float, msg: str | None = None) -> None:  # noqa: N802
        """Asserts ``|f1 - f2| <= err``."""
        f1, f2 = np.squeeze(f1), np.squeeze(f2)
        if f1 != f2:
            diff = math.fabs(f1 - f2)
            note = f" ({msg})" if msg is not None else ""
            self.assertTrue(
                diff <= err, f"{f1:f} != {f2:f} +/- {err:f} (difference: {diff:g}){note}"
            )

    def assertArrayNear(
        self, farray1: Any, farray2: Any, err: float, msg: str | None = None
    ) -> None:  # noqa: N802
        """Asserts equal lengths and ``assertNear`` element by element."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2, strict=True):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(
        self, ndarray1: Any, ndarray2: Any, err: float, msg: str | None = None
    ) -> None:  # noqa: N802
        """Asserts ``norm(ndarray1 - ndarray2) < err`` (Frobenius norm)."""
        self.assertTrue(np.linalg.norm(ndarray1 - ndarray2) < err, msg=msg)

    def _close(self, a: Any, b: Any, rtol: float, atol: float, msg: str | None) -> None:
        a, b = self._both(a, b)
        a, b = self._ndarray(a), self._ndarray(b)
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            shape_msg = f"Shape mismatch: expected {a.shape}, got {b.shape} with contents {b}."
        else:
            shape_msg = f"Shape mismatch: expected {a.shape}, got {b.shape}."
        self.assertEqual(a.shape, b.shape, shape_msg)
        a_dtype = a.dtype
        a = a.astype(np.float32) if a.dtype in _WIDE else a
        b = b.astype(np.float32) if b.dtype in _WIDE else b
        if not np.allclose(a, b, rtol=rtol, atol=atol):
            cond = np.logical_or(
                np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b)
            )
            msgs = [msg]
            if a.ndim:
                x, y = a[_where(cond)], b[_where(cond)]
                msgs.append(f"not close where = {_where(cond)}")
            else:
                x, y = a, b
            msgs.append(f"not close lhs = {x}")
            msgs.append(f"not close rhs = {y}")
            msgs.append(f"not close dif = {np.abs(x - y)}")
            msgs.append(f"not close tol = {atol + rtol * np.abs(y)}")
            msgs.append(f"dtype = {a_dtype}, shape = {a.shape}")
            np.testing.assert_allclose(
                a, b, rtol=rtol, atol=atol, err_msg="\n".join(map(str, msgs)), equal_nan=True
            )

    def _close_nested(self, a: Any, b: Any, rtol: float, atol: float, path: list, msg: str) -> None:
        where = ("[" + "][".join(str(p) for p in path) + "]") if path else ""
        if hasattr(a, "_asdict"):
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_dict = isinstance(a, collections.abc.Mapping)
        if a_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{where} vs b{where}. {msg}")
        mismatch = f"Mismatched value: a{where} is different from b{where}. {msg}"
        if a_dict:
            self.assertCountEqual(
                a.keys(),
                b.keys(),
                msg=f"mismatched keys: a{where} has keys {a.keys()}, but b{where} has keys "
                f"{b.keys()}. {msg}",
            )
            for k in a:
                self._close_nested(a[k], b[k], rtol, atol, [*path, k], msg)
        elif isinstance(a, (list, tuple)):
            try:
                a, b = self._both(a, b)
                self._close(self._ndarray(a), self._ndarray(b), rtol, atol, mismatch)
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError(
                        f"Mismatched length: a{where} has {len(a)} items, but b{where} has "
                        f"{len(b)} items. {msg}"
                    ) from None
                for i, (ai, bi) in enumerate(zip(a, b, strict=True)):
                    self._close_nested(ai, bi, rtol, atol, [*path, str(i)], msg)
        else:
            try:
                self._close(a, b, rtol, atol, mismatch)
            except TypeError as e:
                note = f"Error: a{where} has {type(a)}, but b{where} has {type(b)}. {msg}"
                e.args = (e.args[0] + " : " + note, *e.args[1:])
                raise

    def assertAllClose(  # noqa: N802
        self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, msg: str | None = None
    ) -> None:
        """Asserts ``|a - b| <= atol + rtol * |b|`` everywhere, over nested dicts,
        namedtuples, tuples and lists of arrays or tensors (NaN equals NaN).

        Raises:
          AssertionError: values or shapes differ.
          ValueError: the structures differ (a dict against a non-dict, lengths).
        """
        self._close_nested(a, b, rtol, atol, [], msg or "")

    def assertAllCloseAccordingToType(  # noqa: N802
        self,
        a: Any,
        b: Any,
        rtol: float = 1e-6,
        atol: float = 1e-6,
        float_rtol: float = 1e-6,
        float_atol: float = 1e-6,
        half_rtol: float = 1e-3,
        half_atol: float = 1e-3,
        bfloat16_rtol: float = 1e-2,
        bfloat16_atol: float = 1e-2,
        msg: str | None = None,
    ) -> None:
        """``assertAllClose`` with tolerances raised to the given ones for float32 or
        complex64, float16 and bfloat16 operands."""
        a, b = self._both(a, b)
        a, b = self._ndarray(a), self._ndarray(b)
        kinds = {a.dtype, b.dtype}
        if kinds & {np.dtype(np.float32), np.dtype(np.complex64)}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if np.dtype(ml_dtypes.bfloat16) in kinds:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(  # noqa: N802
        self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, msg: str | None = None
    ) -> None:
        """Asserts ``assertAllClose`` fails."""
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''}")

    def assertAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:  # noqa: N802
        """Asserts equal shapes and values (NaN equals NaN in float arrays)."""
        msg = msg or ""
        a, b = self._both(a, b)
        a, b = self._ndarray(a), self._ndarray(b)
        if b.ndim <= 3 or b.size < 500:
            note = f"Shape mismatch: expected {a.shape}, got {b.shape}. Contents: {b!r}. \n{msg}."
        else:
            note = f"Shape mismatch: expected {a.shape}, got {b.shape}. {msg}"
        self.assertEqual(a.shape, b.shape, note)
        same = a == b
        if np.issubdtype(a.dtype, np.floating) or a.dtype in _WIDE:
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            diff = np.logical_not(same)
            msgs = [msg]
            if a.ndim:
                x, y = a[_where(diff)], b[_where(diff)]
                msgs.append(f"not equal where = {_where(diff)}")
            else:
                x, y = a, b
            msgs.append(f"not equal lhs = {x!r}")
            msgs.append(f"not equal rhs = {y!r}")
            if a.dtype.kind != b.dtype.kind and {a.dtype.kind, b.dtype.kind} <= {"U", "S", "O"}:
                a = np.array([i.encode() if isinstance(i, str) else i for i in a.flat])
                b = np.array([i.encode() if isinstance(i, str) else i for i in b.flat])
            np.testing.assert_array_equal(a, b, err_msg="\n".join(msgs))

    def assertNotAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:  # noqa: N802
        """Asserts ``assertAllEqual`` fails."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def assertAllGreater(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        """Asserts every element of ``a`` is ``> comparison_target``."""
        a, comparison_target = self._both(a, comparison_target)
        self.assertGreater(np.min(self._ndarray(a)), comparison_target)

    def assertAllLess(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        """Asserts every element of ``a`` is ``< comparison_target``."""
        a, comparison_target = self._both(a, comparison_target)
        self.assertLess(np.max(self._ndarray(a)), comparison_target)

    def assertAllGreaterEqual(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        """Asserts every element of ``a`` is ``>= comparison_target``."""
        a, comparison_target = self._both(a, comparison_target)
        self.assertGreaterEqual(np.min(self._ndarray(a)), comparison_target)

    def assertAllLessEqual(self, a: Any, comparison_target: Any) -> None:  # noqa: N802
        """Asserts every element of ``a`` is ``<= comparison_target``."""
        a, comparison_target = self._both(a, comparison_target)
        self.assertLessEqual(np.max(self._ndarray(a)), comparison_target)

    def _subscripts(self, subscripts: Any, value: np.ndarray, limit: int = 10) -> list[str]:
        rows = np.transpose(subscripts)
        if np.ndim(value) == 0:
            return [f"  [0] : {value}"]
        lines = [f"  {[int(i) for i in row]} : {value[tuple(row)]}" for row in rows[:limit]]
        if len(rows) > limit:
            lines.append("  ...")
        return lines

    def assertAllInRange(  # noqa: N802
        self,
        target: Any,
        lower_bound: Any,
        upper_bound: Any,
        open_lower_bound: bool = False,
        open_upper_bound: bool = False,
    ) -> None:
        """Asserts every element is in ``[lower_bound, upper_bound]`` (or the open
        variants) and none is NaN.

        Raises:
          AssertionError: a value outside, a NaN, or a non-numeric dtype.
        """
        target = self._ndarray(target)
        if not (
            np.issubdtype(target.dtype, np.floating) or np.issubdtype(target.dtype, np.integer)
        ):
            raise AssertionError(
                f"The value of {target} does not have an ordered numeric type, instead it "
                f"has type: {target.dtype}"
            )
        nans = _where(np.isnan(target))
        if np.size(nans):
            raise AssertionError(
                f"{len(nans[0])} of the {np.size(target)} element(s) are NaN. "
                "Subscripts(s) and value(s) of the NaN element(s):\n"
                + "\n".join(self._subscripts(nans, target))
            )
        shown = (
            ("(" if open_lower_bound else "[")
            + f"{lower_bound}, {upper_bound}"
            + (")" if open_upper_bound else "]")
        )
        low = target <= lower_bound if open_lower_bound else target < lower_bound
        high = target >= upper_bound if open_upper_bound else target > upper_bound
        bad = _where(np.logical_or(low, high))
        if np.size(bad):
            raise AssertionError(
                f"{len(bad[0])} of the {np.size(target)} element(s) are outside the range "
                f"{shown}. Subscript(s) and value(s) of the offending elements:\n"
                + "\n".join(self._subscripts(bad, target))
            )

    def assertAllInSet(self, target: Any, expected_set: Any) -> None:  # noqa: N802
        """Asserts every element of ``target`` is in ``expected_set``."""
        target = self._ndarray(target)
        diff = np.setdiff1d(target.flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError(
                f"{np.size(diff)} unique element(s) are not in the set {expected_set}: {diff}"
            )

    def assertDTypeEqual(self, target: Any, expected_dtype: Any) -> None:  # noqa: N802
        """Asserts the array (or each array of a list) has ``expected_dtype``."""
        arrays = target if isinstance(target, list) else [self._ndarray(target)]
        for arr in arrays:
            self.assertEqual(arr.dtype, expected_dtype)

    def assertShapeEqual(self, input_a: Any, input_b: Any, msg: str | None = None) -> None:  # noqa: N802
        """Asserts equal shapes: arrays' shapes, tensors' static shapes.

        Raises:
          TypeError: an argument is neither a NumPy array or scalar nor a tensor.
        """
        shapes = []
        for label, value in (("input_a", input_a), ("input_b", input_b)):
            if isinstance(value, ops.Tensor):
                shapes.append(value.get_shape().as_list())
            elif isinstance(value, (np.ndarray, np.generic)):
                shapes.append(value.shape)
            else:
                raise TypeError(
                    f"{label} must be a Numpy ndarray, Numpy scalar, or a Tensor."
                    f"Instead received {type(value)}"
                )
        self.assertAllEqual(shapes[0], shapes[1], msg=msg)

    def assertStartsWith(  # noqa: N802
        self, actual: str, expected_start: str, msg: str | None = None
    ) -> None:
        """Asserts ``actual.startswith(expected_start)``."""
        if not actual.startswith(expected_start):
            note = f" : {msg!r}" if msg else ""
            self.fail(f"{actual!r} does not start with {expected_start!r}{note}")

    def assertDeviceEqual(self, device1: Any, device2: Any, msg: str | None = None) -> None:  # noqa: N802
        """Asserts two device names (or ``DeviceSpec``s) are the same once canonical
        (``"/gpu:0"`` equals ``"/device:GPU:0"``)."""
        device1, device2 = _canonical_device(device1), _canonical_device(device2)
        self.assertEqual(device1, device2, f"Devices {device1} and {device2} are not equal. {msg}")

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(  # noqa: N802
        self, exception_type: Any, expected_err_re_or_predicate: Any
    ) -> Iterator[None]:
        """Context manager: the block must raise ``exception_type`` matching a predicate
        (a function of the error) or a regular expression searched in its message
        (an ``OpError``'s message, then ``Caused by: <op name>``).

        Raises:
          AssertionError: nothing raised, another type, or no match (TF's messages:
            ``"Exception of type <class ...>: ..."``).
        """
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:

            def predicate(e: BaseException) -> Any:
                if isinstance(e, errors.OpError):
                    text, op = e.message, e.op
                else:
                    text, op = str(e), None
                while op is not None:
                    text += "\nCaused by: " + op.name
                    op = getattr(op, "_original_op", None)
                return re.search(expected_err_re_or_predicate, text)

        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from None

    def assertRaisesOpError(self, expected_err_re_or_predicate: Any) -> Any:  # noqa: N802
        """``assertRaisesWithPredicateMatch(tf.errors.OpError, ...)``."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    def assertProtoEquals(  # noqa: N802
        self, expected_message_maybe_ascii: Any, validate_message: Any, msg: str | None = None
    ) -> None:
        """Asserts ``validate_message`` equals the expected message, given as a message
        or in protobuf text format.

        Raises:
          AssertionError: they differ (both shown in text format).
          TypeError: ``expected_message_maybe_ascii`` is neither.
        """
        if isinstance(expected_message_maybe_ascii, type(validate_message)):
            expected = expected_message_maybe_ascii
        elif isinstance(expected_message_maybe_ascii, (str, bytes)):
            expected = type(validate_message)()
            text = expected_message_maybe_ascii
            text_format.Merge(text.decode() if isinstance(text, bytes) else text, expected)
        else:
            raise TypeError(
                f"Can't compare protos of type {type(expected_message_maybe_ascii)} and "
                f"{type(validate_message)}."
            )
        if expected != validate_message:
            self.assertMultiLineEqual(
                text_format.MessageToString(expected),
                text_format.MessageToString(validate_message),
                msg=msg,
            )


__getattr__ = missing_name_getattr("tf.test", globals())
