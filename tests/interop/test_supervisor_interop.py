"""``tf.train.Supervisor``'s checks at construction under TF 2.21's ``compat.v1`` (as
classic TF1) and under ``adapters.v1``."""

from __future__ import annotations

import contextlib

import pytest

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf1

pytestmark = pytest.mark.interop


def _build(tf, is_chief: bool, device: str | None):
    """A Supervisor over a graph with one variable (on ``device``): its ``is_chief``, or
    the error class and first line of the message its construction raised."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            with tf.device(device):
                tf.get_variable("w", [2], initializer=tf.zeros_initializer())
            try:
                sv = tf.train.Supervisor(logdir=None, is_chief=is_chief, summary_op=None)
            except ValueError as e:
                return type(e).__name__, str(e).split("\n")[0]
            return sv.is_chief, sv.saver is not None


@pytest.mark.parametrize(
    "is_chief, device", [(False, None), (False, "/job:ps/task:0"), (True, None)]
)
def test_replica_variables_need_a_device(is_chief, device):
    """A worker that is not the chief (a replica) needs each variable on a device."""
    theirs, ours = _build(tf1, is_chief, device), _build(jtf, is_chief, device)
    assert ours == theirs
    if not is_chief and device is None:
        assert theirs == (
            "ValueError",
            'When using replicas, all Variables must have their device set: name: "w"',
        )
