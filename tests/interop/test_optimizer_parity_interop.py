"""The TF1 optimizers, global step and moving averages against TF 2.21's ``compat.v1``.

Each script builds the same graph with TF's ``compat.v1`` and with ``adapters.v1``
(``twin.run_both``), trains a few steps and returns every global variable's name,
dtype and value: the checkpoint keys a TF1 program writes, so a TF checkpoint
restores into jtrain's variables (and back) only when they are the same. The float32
trainings are compared bit for bit, those whose kernels take the CPU's ``rsqrtps``
estimate within its bound where this machine's estimate is not Intel's (``RSQRT_DENSE``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.cpu_estimates import rsqrt_estimate_ulps
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
    """``run(sess)``: ``steps`` times each training op of ``train`` (an op or a list,
    run one after the other: TF runs a group's ops in no set order), then the
    variables."""
    ops = train if isinstance(train, list) else [train]

    def run(sess):
        for _ in range(steps):
            for op in ops:
                sess.run(op)
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


def _model(tf):
    w = tf.get_variable("w", shape=[2], initializer=tf.constant_initializer([0.5, -1.0]))
    return w, tf.reduce_sum(w * w)


def _brief(tf):
    w, loss = _model(tf)
    with tf.variable_scope("train"):
        momentum = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    with tf.name_scope("opt"):
        adam = tf.train.AdamOptimizer(0.1).minimize(loss)
    with tf.variable_scope("x"):
        step = tf.train.get_or_create_global_step()
    with tf.variable_scope("e"):
        ema = tf.train.ExponentialMovingAverage(0.9).apply([w])
    return [momentum, adam, ema, step.assign_add(1)]


def _two_adams(tf):
    _, loss = _model(tf)
    return [tf.train.AdamOptimizer(0.1).minimize(loss), tf.train.AdamOptimizer(0.2).minimize(loss)]


def _two_adams_in_name_scopes(tf):
    """The tutorials' ``with tf.name_scope('train'): AdamOptimizer().minimize(loss)``."""
    _, loss = _model(tf)
    ops = []
    for lr in (0.1, 0.2):
        with tf.name_scope("train"):
            ops.append(tf.train.AdamOptimizer(lr).minimize(loss))
    return ops


def _adam_in_variable_scope_then_outside(tf):
    _, loss = _model(tf)
    with tf.variable_scope("s"):
        first = tf.train.AdamOptimizer(0.1).minimize(loss)
    return [first, tf.train.AdamOptimizer(0.2).minimize(loss)]


def _momentums(tf):
    _, loss = _model(tf)
    with tf.variable_scope("s"):
        first = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    second = tf.train.MomentumOptimizer(0.1, 0.5).minimize(loss)
    with tf.name_scope("n"):
        third = tf.train.MomentumOptimizer(0.2, 0.9).minimize(loss)
    with tf.variable_scope("s", reuse=tf.AUTO_REUSE):  # the same ``s/w/Momentum``
        fourth = tf.train.MomentumOptimizer(0.2, 0.9).minimize(loss)
    return [first, second, third, fourth]


def _variable_in_a_reentered_scope(tf):
    with tf.variable_scope("m"):
        _, loss = _model(tf)
    with tf.variable_scope("m"):
        first = tf.train.AdamOptimizer(0.1).minimize(loss)
    with tf.variable_scope("o"):
        second = tf.train.RMSPropOptimizer(0.1, centered=True).minimize(loss)
    return [first, second]


def _global_steps(tf):
    _, loss = _model(tf)
    with tf.name_scope("n"):
        step = tf.train.get_or_create_global_step()
    with tf.variable_scope("v"):
        again = tf.train.get_or_create_global_step()
    assert again is step
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)


def _global_step_in_a_variable_scope(tf):
    _, loss = _model(tf)
    with tf.variable_scope("x"):
        with tf.name_scope("n"):
            step = tf.train.create_global_step()
    return tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=step)


def _moving_averages(tf):
    w, loss = _model(tf)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.control_dependencies([train]):
        t = tf.identity(w * 2.0, name="t")
        with tf.name_scope("e"):
            first = tf.train.ExponentialMovingAverage(0.9).apply([w])
        with tf.variable_scope("f"):
            second = tf.train.ExponentialMovingAverage(0.5, name="E2").apply([w])
        with tf.variable_scope("g"):
            third = tf.train.ExponentialMovingAverage(0.9, zero_debias=True).apply([t])
    return tf.group(first, second, third)


def _own_name_scope_for_non_slots(tf):
    _, loss = _model(tf)
    with tf.variable_scope("s"):
        first = tf.train.AdamOptimizer(0.1, use_own_namescope_for_non_slot_vars=True)
    second = tf.train.AdamOptimizer(0.2, use_own_namescope_for_non_slot_vars=True)
    with tf.variable_scope("v"), tf.name_scope("n"):
        return [first.minimize(loss), second.minimize(loss)]


def _built_outside_applied_inside(tf):
    _, loss = _model(tf)
    with tf.variable_scope("s0"):
        adam = tf.train.AdamOptimizer(0.1)  # the scope where it is built does not count
    with tf.variable_scope("s"):
        return adam.minimize(loss)


NAME_CASES = {
    f.__name__.lstrip("_"): f
    for f in (
        _brief,
        _two_adams,
        _two_adams_in_name_scopes,
        _adam_in_variable_scope_then_outside,
        _momentums,
        _variable_in_a_reentered_scope,
        _global_steps,
        _global_step_in_a_variable_scope,
        _moving_averages,
        _own_name_scope_for_non_slots,
        _built_outside_applied_inside,
    )
}


@pytest.mark.parametrize("case", sorted(NAME_CASES))
def test_slot_non_slot_global_step_and_average_names_follow_the_scopes(case):
    """Slots and shadows are named in the current *variable* scope (TF's
    slot_creator), non-slot variables in the current *name* scope, the global step
    in the current variable scope and the root name scope: TF's checkpoint keys."""

    def script(tf):
        return _train(tf, NAME_CASES[case](tf))

    theirs, ours = run_both(script)
    assert [x[:2] for x in ours] == [x[:2] for x in theirs]
    assert_twins(theirs, ours, rtol=1e-6)


def test_a_second_optimizer_in_a_reentered_variable_scope_fails_as_in_tf():
    """Leaving a variable scope forgets the default names used inside it, so a
    second optimizer in the same (non-reusing) scope makes ``s/w/Adam`` again: TF's
    error."""
    messages = []
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            _, loss = _model(tf)
            with tf.variable_scope("s"):
                tf.train.AdamOptimizer(0.1).minimize(loss)
            with pytest.raises(ValueError, match="already exists") as e:
                with tf.variable_scope("s"):
                    tf.train.AdamOptimizer(0.1).minimize(loss)
            messages.append(str(e.value))
    assert messages[1] == messages[0]


def _scoped_adam(tf):
    with tf.variable_scope("model"):
        w = tf.get_variable("w", shape=[3], initializer=tf.constant_initializer([1.0, -2.0, 3.0]))
    with tf.variable_scope("x"):
        step = tf.train.get_or_create_global_step()
    with tf.name_scope("train"):
        train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w), global_step=step)
    with tf.variable_scope("ema"), tf.control_dependencies([train]):
        return tf.train.ExponentialMovingAverage(0.9).apply([w])


def test_tf_checkpoint_of_a_scoped_adam_model_restores(tmp_path):
    """TF's keys of a model trained in scopes (``train/beta1_power``,
    ``model/w/Adam``, ``x/global_step``, ``ema/model/w/ExponentialMovingAverage``)
    are jtrain's: its Saver restores TF's checkpoint."""
    prefix = str(tmp_path / "tf.ckpt")
    theirs = _tf_train_and_save(prefix, _scoped_adam)
    ours = _jtrain_restore(prefix, _scoped_adam)
    assert [x[0] for x in theirs] == [
        "ema/model/w/ExponentialMovingAverage:0",
        "model/w/Adam:0",
        "model/w/Adam_1:0",
        "model/w:0",
        "train/beta1_power:0",
        "train/beta2_power:0",
        "x/global_step:0",
    ]
    assert_twins(theirs, ours, rtol=0.0)


BETAS = {
    "constant": lambda tf: {"beta1": tf.constant(0.5)},
    "float64_constants": lambda tf: {
        "beta1": tf.constant(0.5, tf.float64),
        "beta2": tf.constant(0.75, tf.float64),
    },
    "placeholder_with_default": lambda tf: {"beta1": tf.placeholder_with_default(0.5, [])},
}


@pytest.mark.parametrize("betas", sorted(BETAS))
def test_adam_beta_powers_start_at_tensor_betas(betas):
    """TF creates ``beta1_power`` with ``beta1`` as its initial value: a tensor
    ``beta1`` gives its value (0.5, not 0) and its dtype."""

    def script(tf):
        _, loss = _model(tf)
        train = tf.train.AdamOptimizer(0.1, **BETAS[betas](tf)).minimize(loss)

        def run(sess):
            return _variables(tf, sess), _train(tf, train, steps=2)(sess)

        return run

    theirs, ours = run_both(script)
    assert [x[:2] for x in ours[1]] == [x[:2] for x in theirs[1]]
    assert_twins(theirs, ours, rtol=1e-6)


def _clip(tf):
    return lambda t: tf.clip_by_value(t, -1.0, 1.0)


CONSTRAINED = {
    "get_variable_gd": lambda tf: (
        tf.get_variable("w", initializer=[0.5, -2.0], constraint=_clip(tf)),
        tf.train.GradientDescentOptimizer(1.0),
    ),
    "get_variable_adam": lambda tf: (
        tf.get_variable("w", initializer=[0.5, -2.0], constraint=_clip(tf)),
        tf.train.AdamOptimizer(0.7),
    ),
    "variable_momentum": lambda tf: (
        tf.Variable([0.5, -2.0], name="w", constraint=_clip(tf)),
        tf.train.MomentumOptimizer(0.6, 0.9),
    ),
}


@pytest.mark.parametrize("case", sorted(CONSTRAINED))
def test_constraints_apply_after_each_update(case):
    """TF's ``apply_gradients`` assigns ``var.constraint(var)`` after each update:
    ``[0.5, -2]`` clipped to [-1, 1] after a step of ``-sum(w)`` is ``[1, -1]``."""

    def script(tf):
        w, optimizer = CONSTRAINED[case](tf)
        step = tf.train.get_or_create_global_step()
        train = optimizer.minimize(-tf.reduce_sum(w * [1.0, 0.5]), global_step=step)
        return _train(tf, train)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6)


def test_a_layers_kernel_constraint_applies_after_each_update():
    """``tf.layers.dense(kernel_constraint=...)``: the kernel's norm stays at most 1
    after each step, as in TF."""

    def script(tf):
        x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
        y = tf.layers.dense(
            x,
            3,
            kernel_initializer=tf.constant_initializer([[1.0, 2.0, 0.5], [0.0, -1.0, 2.0]]),
            kernel_constraint=lambda k: tf.clip_by_norm(k, 1.0),
        )
        return _train(tf, tf.train.AdagradOptimizer(0.5).minimize(-tf.reduce_sum(y)))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6)


def test_a_constraint_on_a_sparsely_updated_variable_fails_as_in_tf():
    """TF: ``RuntimeError: Cannot use a constraint function on a sparse variable.``,
    once the slots exist."""
    names = []
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            w = tf.get_variable("w", initializer=[0.5, -2.0], constraint=_clip(tf))
            loss = tf.reduce_sum(tf.gather(w, [0]))
            with pytest.raises(RuntimeError, match="^Cannot use a constraint function on a sparse"):
                tf.train.AdamOptimizer(0.1).minimize(loss)
            names.append(_names(tf))
    assert names[1] == names[0]


TENSOR_HYPERPARAMETERS = {
    "Ftrl_learning_rate": lambda tf: tf.train.FtrlOptimizer(tf.constant(0.1)),
    "Ftrl_beta": lambda tf: tf.train.FtrlOptimizer(0.1, beta=tf.constant(0.1)),
    "ProximalAdagrad_learning_rate": lambda tf: tf.train.ProximalAdagradOptimizer(tf.constant(0.1)),
    "ProximalAdagrad_regularization": lambda tf: tf.train.ProximalAdagradOptimizer(
        0.1,
        l1_regularization_strength=tf.constant(0.05),
        l2_regularization_strength=tf.constant(0.1),
    ),
    "ProximalGradientDescent_l1": lambda tf: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=tf.constant(0.05)
    ),
    "ProximalGradientDescent_all": lambda tf: tf.train.ProximalGradientDescentOptimizer(
        tf.constant(0.1),
        l1_regularization_strength=tf.constant(0.05),
        l2_regularization_strength=tf.placeholder_with_default(0.1, []),
    ),
}


@pytest.mark.parametrize("case", sorted(TENSOR_HYPERPARAMETERS))
def test_tensor_hyperparameters_of_ftrl_and_the_proximal_optimizers(case):
    """TF converts these hyperparameters to tensors when it builds the update (no
    construction check on a tensor): they train as the same numbers do."""

    def script(tf):
        _, loss = _model(tf)
        return _train(tf, TENSOR_HYPERPARAMETERS[case](tf).minimize(loss))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6)


CALLABLE_HYPERPARAMETERS = {
    "GradientDescent": lambda tf: tf.train.GradientDescentOptimizer(lambda: 0.1),
    "GradientDescent_tensor": lambda tf: tf.train.GradientDescentOptimizer(
        lambda: tf.constant(0.1)
    ),
    "Adam": lambda tf: tf.train.AdamOptimizer(lambda: 0.1, beta1=lambda: 0.5),
    "Adam_tensors": lambda tf: tf.train.AdamOptimizer(
        beta2=lambda: tf.constant(0.5), epsilon=lambda: 1e-3
    ),
    "Momentum": lambda tf: tf.train.MomentumOptimizer(lambda: 0.1, lambda: 0.5),
    "RMSProp": lambda tf: tf.train.RMSPropOptimizer(
        lambda: 0.1, decay=lambda: 0.8, momentum=lambda: 0.5, epsilon=lambda: 1e-6
    ),
    "Adadelta": lambda tf: tf.train.AdadeltaOptimizer(
        lambda: 0.1, rho=lambda: 0.9, epsilon=lambda: 1e-6
    ),
    "Adagrad": lambda tf: tf.train.AdagradOptimizer(lambda: 0.1),
}


@pytest.mark.parametrize("case", sorted(CALLABLE_HYPERPARAMETERS))
def test_callable_hyperparameters_are_called_with_no_argument(case):
    """TF's ``_prepare`` calls a callable hyperparameter with no argument (Adam's
    ``beta1_power`` starts at ``beta1()``): it trains as the value it returns."""

    def script(tf):
        _, loss = _model(tf)
        return _train(tf, CALLABLE_HYPERPARAMETERS[case](tf).minimize(loss))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6)


# Every optimizer above and the regularized variants of the assigning ones (Ftrl,
# ProximalAdagrad, ProximalGradientDescent, AdagradDA), compared bit for bit in float32.
STRICT_OPTIMIZERS = {
    **OPTIMIZERS,
    "Ftrl_l1_l2": lambda tf: tf.train.FtrlOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "Ftrl_shrinkage": lambda tf: tf.train.FtrlOptimizer(
        0.1,
        l1_regularization_strength=0.01,
        l2_regularization_strength=0.02,
        l2_shrinkage_regularization_strength=0.05,
    ),
    "Ftrl_power": lambda tf: tf.train.FtrlOptimizer(
        0.1, learning_rate_power=-0.3, l1_regularization_strength=0.01
    ),
    "Ftrl_power_shrinkage": lambda tf: tf.train.FtrlOptimizer(
        0.1, learning_rate_power=-0.7, l2_shrinkage_regularization_strength=0.05
    ),
    "Ftrl_fixed_rate": lambda tf: tf.train.FtrlOptimizer(0.1, learning_rate_power=0.0),
    "Ftrl_beta": lambda tf: tf.train.FtrlOptimizer(0.1, l2_regularization_strength=0.02, beta=0.1),
    "ProximalAdagrad_l1_l2": lambda tf: tf.train.ProximalAdagradOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "ProximalGradientDescent": lambda tf: tf.train.ProximalGradientDescentOptimizer(0.1),
    "ProximalGradientDescent_l1_l2": lambda tf: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "AdagradDA_l1_l2": lambda tf: tf.train.AdagradDAOptimizer(
        0.1,
        tf.train.get_or_create_global_step(),
        l1_regularization_strength=0.01,
        l2_regularization_strength=0.02,
    ),
}


# TF's Ftrl kernels raise to a power other than 0.5 (``learning_rate_power`` other than
# -0.5) with Eigen's vectorized ``pow`` on whole SIMD packets (8 float32 of the
# flattened variable, or of each row for the sparse kernel), which jtrain does not
# reproduce (XLA's ``pow``): measured, 1 ulp on 1 to 4 of 32 or 33 values after five
# steps, 5.7e-5 relative once a value near zero has cancelled. The elements past the
# last full packet, and variables smaller than a packet, go through Eigen's scalar
# ``pow`` and are compared bit for bit; the rest of the 19-element variable at the
# float32 tolerance of the optimizer goldens (tests/optimizers/test_tf_parity.py).
# (Adagrad, ProximalAdagrad, Adadelta and the sparse RMSProp kernels take ``rsqrt`` of
# whole packets: jtrain computes it as TF does, jtrain._eigen.rsqrt.)
VECTORIZED_POW = {"Ftrl_power", "Ftrl_power_shrinkage"}
PACKETS = 16  # the elements of the 19 in full packets of 8
# The kernels that take ``rsqrt`` of whole packets, dense and sparse (TF's dense RMSProp
# kernels take ``sqrt`` and divide): the CPU's ``rsqrtps`` estimate and a Newton step,
# Intel's reproduced by jtrain. Where this machine's estimate is another
# (``cpu_estimates.rsqrt_estimate_ulps``: an AMD EPYC's), TF's own values move: each
# step's update within the estimate's bound of itself, twice that for a slot that
# accumulates its square (Adadelta's ``accum_update``), and after five steps a value that
# has cancelled near zero is many of its own ulps off (80 measured) but not of its
# variable's or slot's scale. There, the values are compared within
# ``2 * rsqrt_estimate_ulps()`` ulps of the largest magnitude of their variable or slot
# (measured on an AMD EPYC: at most 6), the values on the scalar path (past the last full
# packet) still bit for bit.
RSQRT_DENSE = {"Adagrad", "ProximalAdagrad", "ProximalAdagrad_l1_l2", "Adadelta"}
RSQRT_SPARSE = RSQRT_DENSE | {"RMSProp", "RMSPropCentered"}


def assert_same_bits(theirs, ours, start=0, keep=None):
    """``assert_twins`` at ``rtol=0, atol=0``, then the floats' bit patterns (``-0.0``
    is not ``0.0``), from element ``start`` of each flattened value on; of the values
    of ``keep``'s shape, only the elements where ``keep`` (a boolean array) is set."""

    def part(v):
        v = np.asarray(v)
        return v[keep] if keep is not None and v.shape == keep.shape else np.ravel(v)[start:]

    theirs = [(n, d, part(v)) for n, d, v in theirs]
    ours = [(n, d, part(v)) for n, d, v in ours]
    assert_twins(theirs, ours, rtol=0, atol=0)
    for (name, _, t), (_, _, o) in zip(theirs, ours, strict=True):
        if t.dtype.kind == "f":
            bits = np.dtype(f"u{t.dtype.itemsize}")
            np.testing.assert_array_equal(o.view(bits), t.view(bits), err_msg=name)


def assert_near_bits(theirs, ours, ulps):
    """Each float value within ``ulps`` ulps (of its dtype) of the largest magnitude of
    its variable or slot; the others equal."""
    for (name, _, t), (_, _, o) in zip(theirs, ours, strict=True):
        t, o = np.asarray(t), np.asarray(o)
        assert o.dtype == t.dtype and o.shape == t.shape, name
        atol = ulps * float(np.spacing(np.abs(t).max())) if t.dtype.kind == "f" else 0.0
        np.testing.assert_allclose(o, t, rtol=0, atol=atol, err_msg=name)


@pytest.mark.parametrize("size", [3, 19])
@pytest.mark.parametrize("name", sorted(STRICT_OPTIMIZERS))
def test_float32_training_gives_tfs_bits(name, size):
    """Five float32 steps of a polynomial gradient (no sin/exp: XLA's and Eigen's
    differ) give TF's variables and slots bit for bit, the global step read by
    AdagradDA advancing with each step. Ftrl and the proximal and dual-averaging
    optimizers *assign* the variable, as TF's kernels do, rather than adding a
    difference to it (1 to 7 ulps off for Ftrl with l1 and l2), and divide by a
    scalar hyperparameter once (XLA multiplied by its reciprocal: 1 ulp)."""

    def script(tf):
        init = np.linspace(-1.0, 1.0, size, dtype=np.float32)
        w = tf.get_variable("w", initializer=init)
        x = tf.constant(np.linspace(0.3, -0.45, size, dtype=np.float32))
        # The gradient of sum(w ** 4 / 8 - x * w), written out: tf.gradients of a
        # polynomial where ``w`` appears on several paths sums them in another order
        # than TF (1 to 2 ulps, outside the optimizers).
        grad = w * w * w * 0.5 - x
        step = tf.train.get_or_create_global_step()
        optimizer = STRICT_OPTIMIZERS[name](tf)
        train = optimizer.apply_gradients([(grad, w)], global_step=step)
        return _train(tf, train, steps=5)

    theirs, ours = run_both(script)
    assert [x[:2] for x in ours] == [x[:2] for x in theirs]
    if size > PACKETS and name in VECTORIZED_POW:
        assert_twins(theirs, ours, rtol=1e-5)
        assert_same_bits(theirs, ours, start=PACKETS)
    elif size > PACKETS and name in RSQRT_DENSE and rsqrt_estimate_ulps():
        assert_near_bits(theirs, ours, 2 * rsqrt_estimate_ulps())
        assert_same_bits(theirs, ours, start=PACKETS)
    else:
        assert_same_bits(theirs, ours)


# Variables that fill SIMD packets, by name: their shape and the rows a sparse gradient
# touches (a row repeated: TF sums duplicates first; a row untouched). TF's dense
# kernels evaluate Eigen's vectorized functions (``rsqrt``...) on the full packets of
# 8 float32 of the flattened variable, the sparse kernels on each row's (a row of 11
# is one packet and 3 values on the scalar path); the rest goes through the scalar
# functions.
PACKET_SHAPES = {"3x11": ([3, 11], [2, 0, 2]), "2x16": ([2, 16], [1])}
# Sparse Adam: TF's graph computes ``(g * g) * (1 - beta2)``, which grappler's
# MinimizeBroadcasts reorders into ``g * (g * (1 - beta2))`` when ``g`` is computed
# (as here), not when it is a constant (TF folds ``g * g`` first: jtrain's order,
# tests/interop/test_sparse_clip_parity_interop.py); jtrain's functional core cannot
# tell the two apart: 1 ulp on 7 of the 33 values of ``v``. Left out here.
NOT_YET_BITS = {("Adam", True)}


PACKET_CASES = [
    pytest.param(name, shape, sparse, id=f"{name}-{shape}-{'sparse' if sparse else 'dense'}")
    for name in sorted(STRICT_OPTIMIZERS)
    for shape in sorted(PACKET_SHAPES)
    for sparse in (False, True)
    if (name, sparse) not in NOT_YET_BITS
]


@pytest.mark.parametrize(("name", "shape", "sparse"), PACKET_CASES)
def test_float32_training_of_packet_filling_variables_gives_tfs_bits(name, shape, sparse):
    """Five float32 steps of a variable of 33 or 32 values, with a dense gradient or an
    ``IndexedSlices`` one (``tf.gather``), give TF's variables and slots bit for bit
    (Ftrl with a power other than 0.5: the values on the scalar path only): TF's
    Adagrad, ProximalAdagrad and Adadelta kernels and its sparse RMSProp kernels take
    ``rsqrt`` of whole packets from the CPU's estimate and a Newton step."""
    dims, rows = PACKET_SHAPES[shape]

    def script(tf):
        size = math.prod(dims)
        init = np.linspace(-1.0, 1.0, size, dtype=np.float32).reshape(dims)
        w = tf.get_variable("w", initializer=init)
        x = tf.constant(np.linspace(0.3, -0.45, size, dtype=np.float32).reshape(dims))
        if sparse:
            # d/dw of sum(gather(w) * g) is IndexedSlices(1 * g, rows): g exactly.
            read = tf.gather(w, rows)
            g = tf.stop_gradient(read * read * read * 0.5 - tf.gather(x, rows))
            (grad,) = tf.gradients(tf.reduce_sum(read * g), [w])
        else:
            grad = w * w * w * 0.5 - x
        step = tf.train.get_or_create_global_step()
        optimizer = STRICT_OPTIMIZERS[name](tf)
        train = optimizer.apply_gradients([(grad, w)], global_step=step)
        return _train(tf, train, steps=5)

    theirs, ours = run_both(script)
    assert [x[:2] for x in ours] == [x[:2] for x in theirs]
    estimated = name in (RSQRT_SPARSE if sparse else RSQRT_DENSE) and rsqrt_estimate_ulps()
    if name in VECTORIZED_POW or estimated:
        # The values on the scalar path (past the last full packet of the flattened
        # variable, or of each row), bit for bit: every value trains on its own.
        row = math.prod(dims[1:])
        index = np.arange(math.prod(dims)).reshape(dims)
        size = index.size if not sparse else row
        keep = index % size >= size - size % 8
        assert_same_bits(theirs, ours, keep=keep)
    if estimated:
        assert_near_bits(theirs, ours, 2 * rsqrt_estimate_ulps())
    elif name not in VECTORIZED_POW:
        assert_same_bits(theirs, ours)
