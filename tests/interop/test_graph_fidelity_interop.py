"""Graph details TF scripts read back, checked live against TF 2.21 (``twin.py``):
an assignment's op and value names, a partitioned variable's caching device, and the
colocation groups (``_class``) a meta graph keeps through export -> import -> export.

Before: ``v.assign(x)`` was ``v/Assign_1`` with a ``Const`` value, a partitioned
variable's parts ignored ``caching_device``, and ``import_meta_graph`` dropped ``_class``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop


def _assign_names(tf: Any):
    v = tf.Variable([1.0, 2.0], name="v")
    x = tf.constant([0.5, 0.25], name="x")
    ops = [
        v.assign([2.0, 3.0]),
        v.assign([4.0, 5.0]),
        tf.assign(v, [1.0, 1.0]),
        v.assign(x),
        v.assign_add([1.0, 1.0]),
        v.assign_sub(x),
    ]
    with tf.name_scope("s"):
        ops += [
            v.assign([6.0, 7.0]),
            v.assign_add([1.0, 2.0]),
            v.assign_sub([0.5, 0.5]),
            tf.assign_add(v, [1.0, 1.0]),
            tf.assign_sub(v, [2.0, 2.0]),
            tf.assign(v, [3.0, 3.0], name="named"),
        ]
    ops.append(v.assign([8.0, 9.0], name="named"))
    # TF's op has the variable as its first input; the value is the last.
    names = [(t.op.name, t.op.type, t.op.inputs[-1].op.name) for t in ops]

    def run(sess):
        return names, [sess.run(t) for t in ops]

    return run


def test_assign_op_and_value_names():
    theirs, ours = run_both(_assign_names)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def _partitioned_caching(tf: Any):
    with tf.variable_scope("p", caching_device="/cpu:0"):
        scoped = tf.get_variable("w", [4, 2], partitioner=tf.fixed_size_partitioner(2))
    given = tf.get_variable(
        "w2",
        [4, 2],
        initializer=tf.ones_initializer(),
        partitioner=tf.fixed_size_partitioner(2),
        caching_device="/cpu:0",
    )
    parts = list(scoped) + list(given)
    found = [(p.op.name, p.value().device, p.value().op.name) for p in parts]

    def run(sess):
        return found, sess.run(given.as_tensor())

    return run


def test_partitioned_parts_read_on_caching_device():
    theirs, ours = run_both(_partitioned_caching)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


_COLOCATED = ("v/Assign", "v/read", "mul", "y", "AssignAdd")


def _colocation_round_trip(tf: Any):
    v = tf.Variable([1.0, 2.0], name="v")
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.colocate_with(x):
        tf.identity(x * 2.0, name="y")
    v.assign_add(x)
    meta = tf.train.export_meta_graph()
    found = []
    for scope in (None, "imp"):
        prefix = f"{scope}/" if scope else ""
        graph = tf.Graph()
        with graph.as_default():
            tf.train.import_meta_graph(meta, import_scope=scope)
            groups = [
                graph.get_operation_by_name(prefix + n).colocation_groups() for n in _COLOCATED
            ]
            nodes = {n.name: n for n in tf.train.export_meta_graph().graph_def.node}
            exported = [list(nodes[prefix + n].attr["_class"].list.s) for n in _COLOCATED]
            found.append((groups, exported))
            y = graph.get_tensor_by_name(prefix + "y:0")
            with tf.Session(graph=graph) as sess:
                found.append(sess.run(y, {prefix + "x:0": np.array([1.0, 3.0], np.float32)}))

    return lambda sess: found


def test_meta_graph_import_keeps_colocation():
    theirs, ours = run_both(_colocation_round_trip)
    assert ours[0] == theirs[0]
    assert ours[2] == theirs[2]
    assert theirs[2][0][0] == [b"loc:@imp/v"]  # the import scope applied to the group
    assert_twins([theirs[1], theirs[3]], [ours[1], ours[3]])
