"""Where TF records a variable and its ops to live, checked live against TF 2.21
(``twin.py``): ``Variable.device``, the devices of ``v.op``, ``v.initializer``, the
``/read`` snapshot and the ops writing the variable, their ``_class`` colocation
attribute and ``Operation.colocation_groups()``, under ``tf.device`` names and
functions, ``tf.train.replica_device_setter`` (round robin over 2 ps tasks),
``get_variable`` in variable scopes, ``caching_device``, ``tf.colocate_with`` and
with no device at all; and the ``device``/``_class`` fields of ``GraphDef`` and meta
graph nodes. Devices are only recorded: the values each graph computes are TF's.

Before jtrain recorded them, ``Variable.device`` and ``Tensor.device`` raised
AttributeError, ``colocation_groups()`` did not exist, no op had a ``_class``
attribute, and a variable's ``Assign``/``read`` ops under ``replica_device_setter``
were placed on the worker instead of the variable's ps task.

.. note:: Resource variables are compared on what jtrain's ops share with TF's
   (``VarHandleOp``, its ``Assign``, its initial value, a cached ``value()``): TF's
   graph-mode ``ResourceVariable.value()`` without ``caching_device`` makes a new
   ``ReadVariableOp`` on no device at each call, where jtrain returns the variable's
   one ``read`` on the variable's device.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, classic_tf1, tf1

pytestmark = pytest.mark.interop


def _placement(op: Any) -> tuple[str, list[str] | None, list[str]]:
    """What TF records about where ``op`` lives: its device, its ``_class`` attribute
    (None: it has none) and its colocation groups."""
    try:
        cls = [g.decode() for g in op.get_attr("_class")]
    except ValueError:
        cls = None
    return (op.device, cls, [g.decode() for g in op.colocation_groups()])


def _variable(v: Any, resource: bool) -> dict[str, Any]:
    """A variable's device and the placement of its own ops."""
    out = {
        "device": v.device,
        "op": _placement(v.op),
        "initializer": _placement(v.initializer),
    }
    if not resource:  # see the module's note
        out["value"] = _placement(v.value().op)
        out["value().device"] = v.value().device
    return out


def _run_once(tf: Any, script: Any, placed: bool = True) -> tuple[Any, Any]:
    """``script(tf, device)``'s ``(placement record, run)`` built in a fresh graph and
    run, its variables initialized. ``device`` is ``tf.device``, or, when not
    ``placed``, a scope that places nothing (a TF session has no ps job here)."""
    device = tf.device if placed else (lambda spec: contextlib.nullcontext())
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default():
            record, run = script(tf, device)
            init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
            with tf.Session(graph=graph) as sess:
                sess.run(init)
                return record, run(sess) if placed or tf is tf1 else None


def _compare(script: Any) -> None:
    """``script(tf, device)`` returns ``(placement record, run)``: jtrain's graph built
    with its devices must record TF's, and compute the values TF computes (in TF, from
    the same graph built with no devices)."""
    tf_record, _ = _record_only(script)
    _, theirs = _run_once(tf1, script, placed=False)
    jtrain_record, ours = _run_once(jtf, script)
    assert jtrain_record == tf_record
    assert_twins(theirs, ours)


def _record_only(script: Any) -> tuple[Any, None]:
    """TF's placement record of ``script`` (its graph is not run: no ps job here)."""
    with classic_tf1():
        graph = tf1.Graph()
        with graph.as_default():
            record, _ = script(tf1, tf1.device)
            return record, None


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
def test_device_name(resource: bool) -> None:
    def script(tf, device):
        with device("/cpu:0"):
            v = tf.Variable([1.0, 2.0], name="v", use_resource=resource)
            a = v.assign([3.0, 4.0], read_value=False)
            b = v.assign_add([1.0, 1.0], read_value=False)
        record = {
            "v": _variable(v, resource),
            "assign": a.device,
            "assign_add": b.device,
            "read_value": v.read_value().device,  # outside the scope: no device
        }
        if not resource:  # ops with a ref input are colocated with it
            record["assign op"] = _placement(a)
            with device("/cpu:0"):
                n = tf.Variable(0, name="n")
            with device("/gpu:0"):
                s = tf.scatter_update(v, [0], [7.0])
                up = n.count_up_to(3)
            record["scatter_update"] = _placement(s.op)
            record["count_up_to"] = _placement(up.op)
        return record, lambda sess: (sess.run(a), sess.run(v.value()))

    _compare(script)


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
def test_replica_device_setter(resource: bool) -> None:
    def script(tf, device):
        with device(tf.train.replica_device_setter(ps_tasks=2)):
            w = tf.Variable([1.0, 2.0], name="w", use_resource=resource)
            x = tf.Variable(3.0, name="x", use_resource=resource)
            with tf.variable_scope("s"):
                y = tf.get_variable(
                    "y", [2], initializer=tf.zeros_initializer(), use_resource=resource
                )
                z = tf.get_variable("z", [2, 3], use_resource=resource)  # glorot_uniform
            total = w + y
            inc = x.assign_add(1.0, read_value=False)
        g = tf.get_default_graph()
        record = {
            "w": _variable(w, resource),
            "x": _variable(x, resource),
            "s/y": _variable(y, resource),
            "s/z": _variable(z, resource),
            "zeros": _placement(g.get_operation_by_name("s/y/Initializer/zeros")),
            "random": _placement(g.get_operation_by_name("s/z/Initializer/random_uniform")),
            "total": _placement(total.op),
            "assign_add": inc.device,
        }
        return record, lambda sess: (sess.run(inc), sess.run([total, x.value()]))

    _compare(script)


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
def test_device_function_and_no_device(resource: bool) -> None:
    def on_gpu1(op):
        return "/gpu:1" if op.type in ("VariableV2", "VarHandleOp") else ""

    def script(tf, device):
        with device(on_gpu1):
            q = tf.Variable(0.5, name="q", use_resource=resource)
            r = tf.Variable(lambda: tf.ones([2]), name="r", use_resource=resource)
        u = tf.Variable(0, name="u", use_resource=resource)
        record = {
            "q": _variable(q, resource),
            "r": _variable(r, resource),
            "u": _variable(u, resource),
            "r/Initializer/ones": _placement(
                tf.get_default_graph().get_operation_by_name("r/Initializer/ones")
            ),
        }
        return record, lambda sess: sess.run([q.value(), r.value(), u.value()])

    _compare(script)


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
def test_caching_device(resource: bool) -> None:
    def script(tf, device):
        with device(tf.train.replica_device_setter(ps_tasks=2)):
            c = tf.Variable(1.0, name="c", caching_device="/cpu:0", use_resource=resource)
            with tf.variable_scope("scope", caching_device="/device:CPU:0"):
                k = tf.get_variable("k", [], use_resource=resource)
        record = {
            "c": c.device,
            # A resource variable's cached value is TF's Read/Identity, jtrain's read:
            # their device and _class, not their names.
            "c value": _placement(c.value().op)[: 2 if resource else 3],
            "k": k.device,
            "k value": _placement(k.value().op)[: 2 if resource else 3],
            "k initializer": _placement(k.initializer),
        }
        return record, lambda sess: sess.run(c.value())

    _compare(script)


def test_colocate_with() -> None:
    def script(tf, device):
        with device(tf.train.replica_device_setter(ps_tasks=2)):
            w = tf.Variable([1.0, 2.0], name="w")
        u = tf.Variable([0.0, 1.0], name="u")
        with tf.colocate_with(w):
            c = tf.constant(1.0, name="c")
            d = tf.add(c, 1.0, name="d")
        with tf.colocate_with(d.op):
            e = tf.identity(d, name="e")
        with tf.colocate_with(u), device("/cpu:0"):  # u has no device: the scope's
            f = tf.identity(u, name="f")
        with device("/gpu:0"), tf.colocate_with(w):  # w's device wins
            h = tf.identity(w, name="h")
        with tf.colocate_with(u), tf.colocate_with(w):  # every group, sorted
            k = tf.identity(w, name="k")
        with tf.colocate_with(w), tf.colocate_with(None, ignore_existing=True):
            m = tf.identity(w, name="m")
        with tf.compat.v1.colocate_with(u.op):
            n = tf.identity(u, name="n")
        with tf.colocate_with(w):  # a variable colocated with another, and its ops
            v = tf.Variable(3.0, name="v")
        record = {
            name: _placement(t.op)
            for name, t in dict(c=c, d=d, e=e, f=f, h=h, k=k, m=m, n=n).items()
        }
        record["v"] = _variable(v, resource=False)
        return record, lambda sess: sess.run([d, e, f, h, k, m, n])

    _compare(script)


@pytest.mark.parametrize("clear_devices", [False, True])
def test_graph_def_and_meta_graph(clear_devices: bool) -> None:
    names = ["w", "w/Assign", "w/read", "s/y", "s/y/Initializer/Const", "s/y/Assign", "s/y/read"]

    def nodes(graph_def):
        found = {n.name: n for n in graph_def.node}
        return {
            name: (found[name].device, [s.decode() for s in found[name].attr["_class"].list.s])
            for name in names
        }

    def script(tf, device):
        with device(tf.train.replica_device_setter(ps_tasks=2)):
            w = tf.Variable([1.0, 2.0], name="w")
            with tf.variable_scope("s"):
                y = tf.get_variable("y", [2], initializer=tf.constant_initializer(3.0))
        g = tf.get_default_graph()
        meta = tf.train.export_meta_graph(graph=g, clear_devices=clear_devices)
        record = {"graph_def": nodes(g.as_graph_def()), "meta_graph": nodes(meta.graph_def)}
        return record, lambda sess: sess.run([w.value(), y.value()])

    _compare(script)


def test_values_do_not_depend_on_placement() -> None:
    """A small training step under replica_device_setter gives TF's numbers."""

    def script(tf, device):
        x = np.arange(6, dtype=np.float32).reshape(3, 2) / 4.0
        with device(tf.train.replica_device_setter(ps_tasks=2)):
            w = tf.get_variable("w", initializer=tf.constant([[0.5], [-0.25]]))
            b = tf.get_variable("b", initializer=tf.constant([0.1]))
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b))
            step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        record = {"w": w.device, "b": b.device, "step": step.device}

        def run(sess):
            for _ in range(3):
                sess.run(step)
            return sess.run([w, b, loss])

        return record, run

    _compare(script)


SETTERS = {
    "ps cpu, worker gpu": lambda tf: dict(
        ps_tasks=3, ps_device="/job:ps/cpu:0", worker_device="/job:worker/task:3/gpu:0"
    ),
    "cluster dict": lambda tf: dict(cluster={"ps": ["a:1", "b:2"], "worker": ["c:3"]}),
    "ClusterSpec": lambda tf: dict(
        cluster=tf.train.ClusterSpec({"ps": ["a:1"], "worker": ["c:3", "d:4"]}),
        worker_device="/job:worker/task:1",
    ),
    "merge_devices=False": lambda tf: dict(ps_tasks=2, merge_devices=False),
    "ps_ops": lambda tf: dict(ps_tasks=2, ps_ops=["VariableV2", "Identity"]),
    "no worker device": lambda tf: dict(ps_tasks=2, worker_device=""),
}


@pytest.mark.parametrize("setter", list(SETTERS))
def test_replica_device_setter_options(setter: str) -> None:
    """Inner device scopes, get_variable, the global step and a training step's ops
    (those jtrain's graph shares with TF's) under each of the setter's options."""
    names = [
        *("a", "a/read", "b", "b/read", "c", "c/read", "d", "e", "e/Assign"),
        *("f", "f/Initializer/Const", "r", "r/Initializer/random_uniform", "add"),
        *("global_step", "global_step/read"),
        "GradientDescent",
    ]

    def script(tf, device):
        with device(tf.train.replica_device_setter(**SETTERS[setter](tf))):
            a = tf.Variable(1.0, name="a")
            with device("/job:ps/task:1"):
                tf.Variable(1.0, name="b")
            with device("/gpu:2"):
                c = tf.Variable(1.0, name="c")
                tf.identity(c, name="d")
            with device("/job:foo"):
                tf.Variable(1.0, name="e")
            f = tf.get_variable("f", [3], initializer=tf.constant_initializer([0.5, 1.0, 2.0]))
            tf.get_variable("r", [3])  # glorot_uniform (not fetched: TF's random numbers)
            total = a + 1
            step = tf.train.get_or_create_global_step()
            train = tf.train.GradientDescentOptimizer(0.1).minimize(f[0] * a, global_step=step)
        g = tf.get_default_graph()
        record = {name: _placement(g.get_operation_by_name(name)) for name in names}

        def run(sess):
            sess.run(train)
            return sess.run([a, f, total, step])

        return record, run

    _compare(script)


def test_set_device() -> None:
    """``op._set_device``, which scripts use to clear a graph's devices before export:
    a name as given, a ``DeviceSpec`` as its string, ``None`` TF's TypeError."""

    def script(tf, device):
        with device(tf.train.replica_device_setter(ps_tasks=2)):
            w = tf.Variable([1.0, 2.0], name="w")
            y = w * 2.0
        record = {}
        values = ["/cpu:0", tf.DeviceSpec(job="ps", task=1), b"/gpu:1", ""]
        for i, value in enumerate(values):
            y.op._set_device(value)
            record[f"set {i}"] = (y.op.device, y.device)
        for op in tf.get_default_graph().get_operations():
            op._set_device("")
        record["cleared"] = [n.device for n in tf.get_default_graph().as_graph_def().node]
        with pytest.raises(TypeError, match="Expected binary or unicode string, got None"):
            y.op._set_device(None)
        return record, lambda sess: sess.run(y)

    _compare(script)
