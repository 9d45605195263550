"""TF1's learning-rate decay functions name their output tensor as TF 2.21 does,
checked live (``twin.py``: TF's ``compat.v1`` as classic TF1): ``ExponentialDecay:0``
(also for ``natural_exp_decay``), ``SGDRDecay:0`` for ``cosine_decay_restarts``,
``CosineDecay/Mul_3:0``, ``PiecewiseConstant/case/cond/Merge:0``..., with values,
dtype and static shape; and ``noisy_linear_cosine_decay(seed=...)`` is TF's
``TypeError``.

jtrain named them ``ExponentialDecay/exponential_decay:0``... and took ``seed=``.
"""

from __future__ import annotations

import pytest

from tests.interop.twin import assert_twins, jtf, run_both, tf1

pytestmark = pytest.mark.interop

# name -> build(tf, global_step): the decay calls, in one graph (later names get _N).
CALLS = {
    "exponential": lambda tf, gs: tf.train.exponential_decay(0.1, gs, 10, 0.9),
    "natural_exp": lambda tf, gs: tf.train.natural_exp_decay(0.1, gs, 10, 0.9),
    "natural_exp staircase": lambda tf, gs: tf.train.natural_exp_decay(
        0.1, gs, 10, 0.9, staircase=True
    ),
    "inverse_time": lambda tf, gs: tf.train.inverse_time_decay(0.1, gs, 10, 0.9),
    "piecewise_constant": lambda tf, gs: tf.train.piecewise_constant(gs, [5, 10], [0.1, 0.2, 0.3]),
    "piecewise_constant_decay": lambda tf, gs: tf.train.piecewise_constant_decay(
        gs, [5], [0.1, 0.2]
    ),
    "polynomial": lambda tf, gs: tf.train.polynomial_decay(0.1, gs, 10),
    "cosine": lambda tf, gs: tf.train.cosine_decay(0.1, gs, 10),
    "cosine_restarts": lambda tf, gs: tf.train.cosine_decay_restarts(0.1, gs, 10),
    "linear_cosine": lambda tf, gs: tf.train.linear_cosine_decay(0.1, gs, 10),
    "noisy_linear_cosine": lambda tf, gs: tf.train.noisy_linear_cosine_decay(0.1, gs, 10),
    "exponential named": lambda tf, gs: tf.train.exponential_decay(0.1, gs, 10, 0.9, name="lr"),
    "exponential again": lambda tf, gs: tf.train.exponential_decay(0.1, gs, 10, 0.9),
    "exponential tensor lr": lambda tf, gs: tf.train.exponential_decay(
        tf.constant(0.1), gs, 10, 0.9
    ),
    "piecewise named": lambda tf, gs: tf.train.piecewise_constant(gs, [5], [0.1, 0.2], name="pc"),
    "cosine named": lambda tf, gs: tf.train.cosine_decay(0.1, gs, 10, name="cd"),
}


def test_decay_tensors_are_named_as_tf_names_them() -> None:
    def script(tf):
        gs = tf.train.get_or_create_global_step()
        rates = {key: build(tf, gs) for key, build in CALLS.items()}
        names = {key: rate.name for key, rate in rates.items()}
        shapes = {key: rate.shape.as_list() for key, rate in rates.items()}
        dtypes = {key: rate.dtype.name for key, rate in rates.items()}

        def run(sess):
            deterministic = {k: v for k, v in rates.items() if k != "noisy_linear_cosine"}
            sess.run(tf.assign(gs, 7))
            return names, shapes, dtypes, sess.run(deterministic)

        return run

    (t_names, t_shapes, t_dtypes, t_values), (o_names, o_shapes, o_dtypes, o_values) = run_both(
        script
    )
    assert o_names == t_names
    assert t_names["exponential"] == "ExponentialDecay:0"  # TF 2.21, as classic TF1
    assert o_shapes == t_shapes
    assert o_dtypes == t_dtypes
    assert_twins(t_values, o_values)


@pytest.mark.parametrize("tf", [tf1, jtf], ids=["tf", "jtrain"])
def test_noisy_linear_cosine_decay_takes_no_seed(tf) -> None:
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        with pytest.raises(TypeError, match="unexpected keyword argument 'seed'"):
            tf.train.noisy_linear_cosine_decay(0.1, gs, 10, seed=1)
