"""tests/adapters/distributed/replica_script.py with a Keras optimizer (Keras' Adam
through ``apply_gradients``, the global step incremented after it; with
``--custom 1`` a subclass with its own TF update op), for ``test_optimizers.py``:
workers without SyncReplicasOptimizer train on the global batch's mean gradient, as
jtrain's tf.train optimizers do. Same arguments.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "distributed"))

import replica_script as rs  # noqa: E402

from adapters import v1 as tf  # noqa: E402


class MySGD(tf.keras.optimizers.Optimizer):
    """A subclass with its own TF update op (``--custom 1``)."""

    def __init__(self, learning_rate):
        super().__init__("MySGD")
        self._set_hyper("learning_rate", learning_rate)

    def _resource_apply_dense(self, grad, var, apply_state=None):
        key = (var.device, var.dtype.base_dtype)
        coefficients = (apply_state or {}).get(key) or self._fallback_apply_state(*key)
        return var.assign_sub(grad * coefficients["lr_t"])


def build(task_index, sync, num_workers):
    x = tf.placeholder(tf.float32, [None, rs.FEATURES], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.get_variable(
        "w",
        [rs.FEATURES, 1],
        initializer=tf.constant_initializer(0.1 * (task_index + 1)),
        use_resource=True,
    )
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer(), use_resource=True)
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    global_step = tf.train.get_or_create_global_step()
    opt = MySGD(0.2) if CUSTOM else tf.keras.optimizers.Adam(0.05)
    update = opt.apply_gradients(list(zip(tf.gradients(loss, [w, b]), [w, b], strict=True)))
    with tf.control_dependencies([update]):
        train_op = global_step.assign_add(1)
    return x, y, w, b, loss, global_step, train_op, opt


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ps_hosts", default="")
    parser.add_argument("--worker_hosts", default="")
    parser.add_argument("--job_name", required=True)
    parser.add_argument("--task_index", type=int, default=0)
    parser.add_argument("--num_workers", type=int, default=2)
    parser.add_argument("--sync", type=int, default=0)
    parser.add_argument("--pause_after_step", type=int, default=0)
    parser.add_argument("--out", required=True)
    parser.add_argument("--custom", type=int, default=0)
    rs.ARGS = parser.parse_args()
    CUSTOM = rs.ARGS.custom
    rs.build = build
    rs.main()
