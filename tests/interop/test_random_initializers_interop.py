"""Seeded initializers give TF 2.21's initial weights bit for bit (classic TF1, ``twin.py``).

TF's initializers are random ops (``random_uniform``, ``truncated_normal``...): jtrain's
call the same ops, which draw from TF's Philox stream (``jtrain/random/philox.py``).
Before, jtrain's initializers drew from ``jax.random`` and every case here differed.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop


def _bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


INITIALIZERS = {
    "glorot_uniform": lambda tf: tf.glorot_uniform_initializer(),
    "random_uniform": lambda tf: tf.random_uniform_initializer(-0.3, 0.7),
    "random_uniform_default": lambda tf: tf.random_uniform_initializer(),
    "variance_scaling_uniform": lambda tf: tf.variance_scaling_initializer(
        2.0, "fan_out", "uniform"
    ),
    "uniform_unit_scaling": lambda tf: tf.uniform_unit_scaling_initializer(1.5),
    "random_uniform_seeded": lambda tf: tf.random_uniform_initializer(seed=4),
}
NORMAL_INITIALIZERS = {
    "random_normal": lambda tf: tf.random_normal_initializer(0.1, 0.5),
    "truncated_normal": lambda tf: tf.truncated_normal_initializer(stddev=0.2),
    "variance_scaling": lambda tf: tf.variance_scaling_initializer(),
    "glorot_normal": lambda tf: tf.glorot_normal_initializer(),
    # (legacy Keras' in a TF1 graph: TF's init_ops ones; each failed before glibc's
    # logf/sincosf were reproduced in the normal draws)
    "keras_truncated_normal": lambda tf: tf.keras.initializers.TruncatedNormal(stddev=0.3),
    "keras_random_normal": lambda tf: tf.keras.initializers.RandomNormal(0.1, 0.5),
    "keras_he_normal": lambda tf: tf.keras.initializers.he_normal(),
    "keras_glorot_normal": lambda tf: tf.keras.initializers.glorot_normal(),
    "keras_lecun_normal": lambda tf: tf.keras.initializers.lecun_normal(),
    "keras_variance_scaling_normal": lambda tf: tf.keras.initializers.VarianceScaling(
        1.5, "fan_avg", "normal"
    ),
}


@pytest.mark.parametrize("name", sorted(INITIALIZERS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_uniform_initializers_bit_identical(name, dtype):
    def script(tf):
        tf.set_random_seed(2)
        dt = getattr(tf, dtype)
        a = tf.get_variable("a", [7, 5], dt, initializer=INITIALIZERS[name](tf))
        b = tf.get_variable("b", [3, 3, 2, 4], dt, initializer=INITIALIZERS[name](tf))
        return lambda sess: sess.run([a, b])

    theirs, ours = run_both(script)
    for t, o in zip(theirs, ours, strict=True):
        assert o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_array_equal(_bits(o), _bits(t))


@pytest.mark.parametrize("name", sorted(NORMAL_INITIALIZERS))
def test_normal_initializers_match_tf(name):
    def script(tf):
        tf.set_random_seed(2)
        a = tf.get_variable("a", [64, 32], initializer=NORMAL_INITIALIZERS[name](tf))
        return lambda sess: sess.run(a)

    theirs, ours = run_both(script)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    # (before glibc's logf/sincosf were reproduced: 97-99% of the elements, 1-2 ulps)
    np.testing.assert_array_equal(_bits(ours), _bits(theirs))


def test_dense_layer_kernel_initializer_is_tfs():
    # (tf.layers.dense's *default* kernel in TF 2.21 comes from tf_keras's stateless
    # GlorotUniform with a seed drawn by Python's random module: it differs from one
    # process to the next whatever tf.set_random_seed says, so no twin can match it.)
    x_value = np.ones((2, 6), np.float32)

    def script(tf):
        tf.set_random_seed(9)
        init = tf.glorot_uniform_initializer()
        y = tf.layers.dense(tf.constant(x_value), 4, kernel_initializer=init, name="fc")
        tf.layers.dense(y, 3, kernel_initializer=init, use_bias=False, name="fc2")
        kernels = [v for v in tf.global_variables() if "kernel" in v.name]
        return lambda sess: sess.run(kernels)

    theirs, ours = run_both(script)
    assert len(theirs) == len(ours) == 2
    for t, o in zip(theirs, ours, strict=True):
        np.testing.assert_array_equal(_bits(o), _bits(t))
