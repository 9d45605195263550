"""``tf.compat``, ``tf.version``, ``tf.test``, ``tf.sysconfig`` and the re-exporting
namespaces without TensorFlow: what they are made of here (JAX's devices and
plugins, jtrain's graphs); TF's values are checked in
tests/interop/test_namespaces_interop.py."""

from __future__ import annotations

import importlib.util
import os
import unittest

import jax
import numpy as np
import pytest

from adapters import v1 as tf


def test_compat_errors_and_values():
    with pytest.raises(TypeError, match=r"^Expected binary or unicode string, got 1$"):
        tf.compat.as_bytes(1)
    with pytest.raises(TypeError, match="not all arguments converted"):
        tf.compat.as_text((1, 2))
    with pytest.raises(LookupError):
        tf.compat.as_bytes("a", "no-such-codec")
    assert tf.compat.as_bytes(bytearray(b"ab")) == b"ab"
    assert tf.compat.as_str_any(b"\xc3\xa9") == "\u00e9"
    assert tf.compat.v1 is tf
    with pytest.raises(AttributeError, match=r"tf\.compat\.v2"):
        tf.compat.v2  # noqa: B018
    with pytest.raises(AttributeError, match=r"tf\.compat\.nope"):
        tf.compat.nope  # noqa: B018


def test_forward_compatibility_horizon_moves_and_restores():
    assert not tf.compat.forward_compatible(2026, 1, 16)
    with tf.compat.forward_compatibility_horizon(2027, 1, 1):
        assert tf.compat.forward_compatible(2026, 12, 31)
    assert not tf.compat.forward_compatible(2026, 12, 31)


def test_versions_are_what_graphs_carry():
    assert tf.__version__ == tf.VERSION == tf.version.VERSION == "2.21.0"
    versions = tf.Graph().as_graph_def().versions
    assert versions.producer == tf.GRAPH_DEF_VERSION == tf.version.GRAPH_DEF_VERSION
    assert versions.min_consumer == tf.GRAPH_DEF_VERSION_MIN_CONSUMER
    assert tf.CXX11_ABI_FLAG == tf.sysconfig.CXX11_ABI_FLAG


def test_reexports_are_the_same_objects():
    assert tf.queue.FIFOQueue is tf.FIFOQueue and tf.queue.QueueBase is tf.QueueBase
    assert tf.manip.roll is tf.roll and tf.manip.tile is tf.tile
    assert tf.dtypes.float32 is tf.float32 and tf.dtypes.cast is tf.cast
    assert {d.name for d in tf.dtypes.QUANTIZED_DTYPES} >= {"qint8", "qint8_ref", "quint16"}


def test_device_answers_come_from_jax():
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    assert tf.test.is_gpu_available() is bool(gpus)
    assert tf.test.gpu_device_name() == ("/device:GPU:0" if gpus else "")
    cuda = any(importlib.util.find_spec(m) for m in ("jax_cuda12_plugin", "jax_cuda13_plugin"))
    assert tf.test.is_built_with_cuda() is cuda
    assert tf.sysconfig.get_build_info()["is_cuda_build"] is cuda
    assert tf.test.is_built_with_xla() is True


def test_sysconfig_points_at_jaxlib():
    assert os.path.isdir(tf.sysconfig.get_include())
    assert os.path.isfile(os.path.join(tf.sysconfig.get_lib(), "__init__.py"))
    assert tf.sysconfig.get_compile_flags()[0] == "-I" + tf.sysconfig.get_include()
    assert tf.sysconfig.get_link_flags() == []


def test_temp_dirs():
    assert os.path.isdir(tf.test.get_temp_dir())
    assert tf.test.get_temp_dir() == tf.test.get_temp_dir()


class _Case(tf.test.TestCase):
    __test__ = False  # run by test_test_case_runs

    def test_graph_and_evaluate(self):
        x = tf.constant([1.0, 2.0])
        self.assertAllClose(x + 1.0, [2.0, 3.0])
        self.assertEqual(tf.get_default_graph().seed, 87654321)
        with self.assertRaises(AssertionError):
            self.assertAllEqual(x, [1.0, 3.0])
        with self.assertRaises(AssertionError):
            self.assertAllInRange(np.array([np.nan]), 0.0, 1.0)
        self.assertProtoEquals("producer: 5", type(tf.Graph().as_graph_def().versions)(producer=5))


def test_test_case_runs():
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(_Case).run(result)
    assert result.testsRun == 2 and len(result.skipped) == 1  # TF's test_session skipped
    assert result.wasSuccessful(), result.failures + result.errors


def test_device_spec_and_graph_scopes():
    spec = tf.DeviceSpec.from_string("/job:ps/task:1/gpu:0")
    assert spec.to_string() == "/job:ps/task:1/device:GPU:0"
    spec.device_index = None
    assert spec.to_string() == "/job:ps/task:1/device:GPU:*"
    with pytest.raises(ValueError, match="Unknown attribute 'bogus'"):
        tf.DeviceSpec.from_string("/bogus:1")
    g = tf.Graph()
    with g.as_default(), tf.container("c1") as name:
        assert name == "c1" and g._container == "c1"
    assert g._container == ""
    with pytest.raises(ValueError, match="ignore_existing is not True"):
        with g.colocate_with(None):
            pass


def test_nest_round_trip_and_errors():
    s = {"b": 1, "a": [2, (3, None)]}
    assert tf.nest.flatten(s) == [2, 3, None, 1]
    assert tf.nest.pack_sequence_as(s, [5, 6, 7, 8]) == {"b": 8, "a": [5, (6, 7)]}
    with pytest.raises(TypeError, match="same sequence type"):
        tf.nest.assert_same_structure((1, 2), [1, 2])
    with pytest.raises(NotImplementedError, match="expand_composites"):
        tf.nest.flatten(s, expand_composites=True)


def test_config_lists_jax_devices():
    logical = tf.config.list_logical_devices("CPU")
    assert [d.name for d in logical] == [f"/device:CPU:{i}" for i in range(len(jax.devices("cpu")))]
    (cpu,) = tf.config.list_physical_devices("CPU")
    assert cpu == ("/physical_device:CPU:0", "CPU")
    assert tf.config.experimental.list_physical_devices is tf.config.list_physical_devices
    with pytest.raises(ValueError, match="non-GPU"):
        tf.config.experimental.set_memory_growth(cpu, True)
    with pytest.raises(RuntimeError, match="^Visible devices cannot be modified"):
        tf.config.set_visible_devices([])
    tf.config.set_visible_devices(tf.config.list_physical_devices())  # unchanged: accepted


def test_bitwise_int64_exact_and_shift_clamped():
    x = tf.constant(np.array([2**62 + 1, -8], np.int64))
    y = tf.constant(np.array([70, -3], np.int64))
    with tf.Session() as sess:
        left, right = sess.run([tf.bitwise.left_shift(x, y), tf.bitwise.right_shift(x, y)])
    assert left.tolist() == [-(2**63), -8]  # 70 clamps to 63, -3 to 0
    assert right.tolist() == [0, -8]
