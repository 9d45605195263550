"""Where TF records optimizer slots, non-slot variables and moving-average shadows to
live, checked live against TF 2.21 (``twin.py``), under
``tf.train.replica_device_setter(ps_tasks=2)``: TF's ``slot_creator`` colocates a
slot with its variable (its device and ``_class`` ``loc:@<variable>``), the
optimizers' non-slot variables (Adam's ``beta1_power``) with the first variable by
name, and a moving average's shadow with its variable (a tensor's shadow is a zeros
slot of its own).

Before, the round robin placed each slot on the next ps task (``a/Momentum`` on task 1
for ``a`` on task 0) with no ``_class``.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf1

pytestmark = pytest.mark.interop

TRAINERS = {
    "Momentum": lambda tf, loss: tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss),
    "Adam": lambda tf, loss: tf.train.AdamOptimizer(0.1).minimize(loss),
    "RMSProp": lambda tf, loss: tf.train.RMSPropOptimizer(0.1, momentum=0.5).minimize(loss),
    "Adagrad": lambda tf, loss: tf.train.AdagradOptimizer(0.1).minimize(loss),
    "Ftrl": lambda tf, loss: tf.train.FtrlOptimizer(0.1).minimize(loss),
    "Adadelta": lambda tf, loss: tf.train.AdadeltaOptimizer(0.1).minimize(loss),
    "moving averages of variables and a tensor": lambda tf, loss: tf.train.ExponentialMovingAverage(
        0.9
    ).apply(tf.trainable_variables() + [loss]),
}


def _placements(tf: Any, name: str) -> list:
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default():
            with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
                b = tf.Variable([1.0, 2.0], name="b")  # created first, sorts second
                a = tf.Variable(1.0, name="a")
                c = tf.get_variable("c", [3], initializer=tf.ones_initializer())
                loss = a * a + tf.reduce_sum(b * b) + tf.reduce_sum(c)
                TRAINERS[name](tf, loss)
                # Where the round robin stands after the slots (TF's device functions
                # run for a slot made inside colocate_with, then colocation decides).
                tf.Variable(0.0, name="after")
            out = []
            for v in tf.global_variables():
                try:
                    cls = [g.decode() for g in v.op.get_attr("_class")]
                except ValueError:
                    cls = None
                out.append((v.op.name, v.device, cls))
            return out


@pytest.mark.parametrize("name", list(TRAINERS))
def test_slots_live_with_their_variables_as_tf(name):
    assert _placements(jtf, name) == _placements(tf1, name)
