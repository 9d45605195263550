"""The TF1 optimizers, global step and moving averages against TF 2.21's ``compat.v1``.

Each script builds the same graph with TF's ``compat.v1`` and with ``adapters.v1``
(``twin.run_both``), trains a few steps and returns every global variable's name,
dtype and value: the checkpoint keys a TF1 program writes, so a TF checkpoint
restores into jtrain's variables (and back) only when they are the same.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, run_both

tf1 = real_tf.compat.v1

# TF's optimizers by name, each built with the ``tf`` module given.
OPTIMIZERS = {
    "Adam": lambda tf: tf.train.AdamOptimizer(0.1),
    "RMSProp": lambda tf: tf.train.RMSPropOptimizer(0.1),
    "RMSPropCentered": lambda tf: tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
    "Adagrad": lambda tf: tf.train.AdagradOptimizer(0.1),
    "AdagradDA": lambda tf: tf.train.AdagradDAOptimizer(0.1, tf.train.get_or_create_global_step()),
    "Momentum": lambda tf: tf.train.MomentumOptimizer(0.1, 0.9),
    "Adadelta": lambda tf: tf.train.AdadeltaOptimizer(0.1),
    "Ftrl": lambda tf: tf.train.FtrlOptimizer(0.1),
    "ProximalAdagrad": lambda tf: tf.train.ProximalAdagradOptimizer(0.1),
    "GradientDescent": lambda tf: tf.train.GradientDescentOptimizer(0.1),
}
# TF's float16 kernels of AdagradDA fail at run time, and its proximal kernels
# take no float16/float64 variable with a Python-float learning rate: not compared.
NOT_IN_TF = {("float16", "AdagradDA"), ("float16", "ProximalAdagrad")}
NOT_IN_TF |= {("float64", "ProximalAdagrad")}


def _variables(tf, sess):
    """Every global variable as ``(name, dtype, value)``, sorted by name."""
    variables = sorted(tf.global_variables(), key=lambda v: v.name)
    values = sess.run(variables)
    return [
        (v.name, v.dtype.base_dtype.name, np.asarray(x))
        for v, x in zip(variables, values, strict=True)
    ]


def _names(tf):
    """Every global variable as ``(name, dtype)``, sorted."""
    return sorted((v.name, v.dtype.base_dtype.name) for v in tf.global_variables())


def _train(tf, train, steps=3):
    def run(sess):
        for _ in range(steps):
            sess.run(train)
        return _variables(tf, sess)

    return run


DTYPE_CASES = [
    (optimizer, dtype)
    for optimizer in sorted(OPTIMIZERS)
    for dtype in ("float16", "float32", "float64")
    if (dtype, optimizer) not in NOT_IN_TF
]


@pytest.mark.parametrize(("optimizer", "dtype"), DTYPE_CASES)
def test_slots_have_the_variables_dtype_and_tfs_values(optimizer, dtype):
    """TF's slots have their variable's dtype (``w/Adagrad`` of a float64 ``w`` is
    float64); Adam's ``beta1_power``/``beta2_power`` are float32, made from the
    Python floats ``beta1``/``beta2``, whatever the variables' dtype."""

    def script(tf):
        init = tf.constant_initializer([0.5, -1.0])
        w = tf.get_variable("w", shape=[2], dtype=getattr(tf, dtype), initializer=init)
        train = OPTIMIZERS[optimizer](tf).minimize(tf.reduce_sum(w * w))
        return _train(tf, train)

    theirs, ours = run_both(script)
    assert [x[:2] for x in ours] == [x[:2] for x in theirs]
    assert_twins(theirs, ours, rtol={"float16": 1e-3, "float32": 1e-6, "float64": 1e-12}[dtype])


def _tf_train_and_save(prefix, build):
    """``build(tf1)`` trained 3 steps in TF and saved at ``prefix``; its variables."""
    graph = real_tf.Graph()
    with graph.as_default():
        train = build(tf1)
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            tf1.train.Saver().save(sess, prefix)
            return _variables(tf1, sess)


def _jtrain_restore(prefix, build):
    """``build(jtf)`` restored from ``prefix`` by jtrain; its variables."""
    graph = jtf.Graph()
    with graph.as_default():
        build(jtf)
        with jtf.Session(graph=graph) as sess:
            jtf.train.Saver().restore(sess, prefix)
            return _variables(jtf, sess)


def _float64_adagrad(tf):
    w = tf.get_variable("w", shape=[3], dtype=tf.float64, initializer=tf.ones_initializer())
    x = tf.constant([0.1, 1e-300, 3.0], tf.float64)
    return tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(w * w * x))


def test_tf_checkpoint_of_a_float64_model_trained_with_adagrad_restores(tmp_path):
    """A float64 model trained by TF's Adagrad restores into jtrain bit for bit: the
    slot ``w/Adagrad`` is float64 in both."""
    prefix = str(tmp_path / "tf.ckpt")
    theirs = _tf_train_and_save(prefix, _float64_adagrad)
    ours = _jtrain_restore(prefix, _float64_adagrad)
    assert [x[:2] for x in theirs] == [("w/Adagrad:0", "float64"), ("w:0", "float64")]
    assert_twins(theirs, ours, rtol=0.0)
