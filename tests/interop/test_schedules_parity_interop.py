"""``tf.train.*_decay`` with tensor arguments (BERT's ``polynomial_decay(tf.constant(
lr), ...)``), which failed to build, checked live against TF 2.21 (``twin.py``)."""

from __future__ import annotations

import pytest

from tests.interop.twin import assert_twins, run_both

SCHEDULES = {
    "polynomial_decay": lambda tf, gs, c: tf.train.polynomial_decay(
        c(0.1), gs, c(10), c(0.01), power=c(2.0)
    ),
    "polynomial_decay cycling": lambda tf, gs, c: tf.train.polynomial_decay(
        c(0.1), gs, 3, 0.01, cycle=True
    ),
    "exponential_decay": lambda tf, gs, c: tf.train.exponential_decay(c(0.1), gs, c(3), c(0.5)),
    "exponential_decay staircase": lambda tf, gs, c: tf.train.exponential_decay(
        0.1, gs, 3, c(0.5), staircase=True
    ),
    "natural_exp_decay": lambda tf, gs, c: tf.train.natural_exp_decay(c(0.1), gs, 2, c(0.3)),
    "inverse_time_decay": lambda tf, gs, c: tf.train.inverse_time_decay(c(0.1), gs, 2, c(0.5)),
    "cosine_decay": lambda tf, gs, c: tf.train.cosine_decay(c(0.2), gs, c(10), alpha=c(0.1)),
    "cosine_decay_restarts": lambda tf, gs, c: tf.train.cosine_decay_restarts(c(0.1), gs, 3),
    "linear_cosine_decay": lambda tf, gs, c: tf.train.linear_cosine_decay(c(0.1), gs, c(10)),
    "piecewise_constant values": lambda tf, gs, c: tf.train.piecewise_constant(
        gs, [2, 4], [c(1.0), 0.5, 0.1]
    ),
    "piecewise_constant boundaries": lambda tf, gs, c: tf.train.piecewise_constant(
        gs, [c(2, tf.int64), 4], [1.0, 0.5, 0.1]
    ),
}


@pytest.mark.parametrize("case", list(SCHEDULES))
def test_schedule_with_tensor_arguments_as_tf(case):
    def script(tf):
        gs = tf.train.get_or_create_global_step()
        lr = SCHEDULES[case](tf, gs, tf.constant)
        step = tf.assign_add(gs, 1)

        def run(sess):
            out = []
            for _ in range(8):
                out.append(sess.run(lr))
                sess.run(step)
            return out

        return run

    # tests/test_schedules.py's float32 tolerance: XLA's cos and Eigen's differ by an
    # ulp at some steps (cosine_decay at step 6, Python arguments or tensors alike).
    assert_twins(*run_both(script), rtol=1e-6)
