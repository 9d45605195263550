"""``tf.distribute`` in TF1 graphs, checked live against TF 2.21's ``tf.compat.v1.distribute``
(classic TF1 graphs: ``twin.py``; TF's Keras as ``disable_v2_behavior()`` runs it).

On this machine (no GPU) TF's ``MirroredStrategy()`` has one replica, on ``/cpu:0``:
the strategies compared are that one, ``MirroredStrategy(['/cpu:0'])`` with a
``cross_device_ops``, ``OneDeviceStrategy('/cpu:0')`` and the default strategy.
Compared: a training step built by ``strategy.run`` and run in a ``MonitoredSession``
(the losses, their ``reduce`` SUM/MEAN with and without ``axis``, the gradients of the
reductions, the variables and the global step after training, the variables' names
and collections); the checkpoints' keys, each side restoring the other's; the replica
and cross-replica contexts (``merge_call``, ``all_reduce``/``all_gather`` and their
gradients, replica ids, devices); the input iterators; Keras
``compile``/``fit``/``evaluate``/``predict`` under ``scope()``; cluster resolvers on a
``TF_CONFIG``; and TF's errors. Every test failed before ``adapters.v1.distribute``
existed (``tf.distribute`` raised ``AttributeError``).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf2_behaviour_off

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1
RTOL, ATOL = 2e-6, 1e-7

STRATEGIES = {
    "mirrored": lambda d: d.MirroredStrategy(),
    "mirrored cpu nccl": lambda d: d.MirroredStrategy(
        devices=["/cpu:0"], cross_device_ops=d.NcclAllReduce(num_packs=2)
    ),
    "mirrored hierarchical": lambda d: d.MirroredStrategy(
        cross_device_ops=d.HierarchicalCopyAllReduce()
    ),
    "mirrored one device": lambda d: d.MirroredStrategy(
        cross_device_ops=d.ReductionToOneDevice(reduce_to_device="/cpu:0")
    ),
    "one device": lambda d: d.OneDeviceStrategy("/cpu:0"),
    "default": lambda d: d.get_strategy(),
}

_RNG = np.random.RandomState(5)
X = _RNG.uniform(-1, 1, (6, 3)).astype(np.float32)


@pytest.fixture(autouse=True)
def _tf1_process():
    """TF as a TF1 script's process has it: TF 2 behaviour off (Keras, ``tf2.enabled()``)
    and the default strategy made under it (``_DefaultDistributionStrategyV1``, whose
    ``reduce`` takes no ``axis``). TF makes its default strategy once per process, by
    the behaviour in force then (the interop session's TF 2 defaults would give
    ``_DefaultDistributionStrategy``): it is made anew here, TF's restored after."""
    from tensorflow.python.distribute import distribute_lib as tf_distribute_lib

    saved = dict(tf_distribute_lib._defaults)
    with tf2_behaviour_off():
        tf_distribute_lib._defaults.update(dict.fromkeys(saved))
        try:
            yield
        finally:
            tf_distribute_lib._defaults.update(saved)


Y = _RNG.uniform(-1, 1, (6, 2)).astype(np.float32)


def _in_graph(tf: Any, body: Any) -> Any:
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default():
            return body(tf)


def _both(body: Any) -> tuple[Any, Any]:
    return _in_graph(tf1, body), _in_graph(jtf, body)


def _model(tf: Any, optimizer: str) -> dict[str, Any]:
    """Variables, an optimizer and a step function, built in the current context."""
    w = tf.get_variable("dense/w", [3, 2], initializer=tf.constant_initializer(X[:3, :2]))
    b = tf.Variable(np.array([0.1, -0.2], np.float32), name="dense/b")
    gs = tf.train.get_or_create_global_step()
    opt = {
        "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
        "adam": lambda: tf.train.AdamOptimizer(0.05),
        "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    }[optimizer]()

    def step(x, y):
        pred = tf.tanh(tf.matmul(x, w) + b)
        per_example = tf.reduce_sum(tf.square(pred - y), axis=1)
        loss = tf.reduce_mean(per_example)
        train = opt.minimize(loss, global_step=gs)
        with tf.control_dependencies([train]):
            return tf.identity(loss), tf.identity(per_example), tf.identity(pred)

    return {"w": w, "b": b, "gs": gs, "step": step}


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "momentum"])
@pytest.mark.parametrize("kind", list(STRATEGIES))
def test_run_step_in_monitored_session(kind, optimizer):
    def body(tf):
        d = tf.distribute
        strategy = STRATEGIES[kind](d)
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 2], name="y")
        with strategy.scope():
            m = _model(tf, optimizer)
            loss, per_example, pred = strategy.run(m["step"], args=(x, y))
            reduced = {
                "sum": strategy.reduce(d.ReduceOp.SUM, loss, None),
                "mean": strategy.reduce("mean", loss, axis=None),
                "sum axis 0": strategy.reduce("SUM", per_example, axis=0),
                "mean axis 0": strategy.reduce(d.ReduceOp.MEAN, per_example, axis=0),
                "mean axes": strategy.reduce("MEAN", pred, axis=[0, 1]),
                "mean axis -1": strategy.reduce("MEAN", pred, axis=-1),
            }
            local = strategy.experimental_local_results(loss)
        names = {
            "global": [v.name for v in tf.global_variables()],
            "trainable": [v.name for v in tf.trainable_variables()],
            "w": m["w"].name,
            "gs": m["gs"].name,
            "local results": len(local),
        }
        out = []
        with tf.train.MonitoredSession() as sess:
            for i in range(3):
                feed = {x: X[2 * i : 2 * i + 4], y: Y[2 * i : 2 * i + 4]}
                out.append(sess.run(reduced, feed))
            final = sess.run([m["w"], m["b"], m["gs"]])
        return names, out, final

    theirs, ours = _both(body)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("kind", ["mirrored", "one device", "default"])
def test_reduce_gradients_and_dynamic_mean(kind):
    """The reductions' gradients with respect to their inputs; a MEAN over an axis of
    unknown size divides by the dynamic size (TF's int64 shape, cast to the value's
    dtype)."""

    def script(tf):
        d = tf.distribute
        strategy = STRATEGIES[kind](d)
        x = tf.constant(X)
        unknown = tf.placeholder_with_default(X, [None, None])
        with strategy.scope():
            w = tf.get_variable("w", [3, 2], initializer=tf.constant_initializer(Y[:3]))

            def fn(a):
                return tf.matmul(a, w) ** 2

            per = strategy.run(fn, args=(x,))
            dyn = strategy.run(lambda a: a * 3.0, args=(unknown,))
            outs = [
                strategy.reduce("SUM", per),  # (TF1's strategies: no axis, no reduction)
                strategy.reduce("SUM", per, None),
                strategy.reduce("MEAN", per, axis=None),
                strategy.reduce("SUM", per, axis=[0, 1]),
                strategy.reduce("MEAN", per, axis=1),
                strategy.reduce("MEAN", dyn, axis=0),
                strategy.reduce("MEAN", dyn, axis=[0, 1]),
            ]
            # (TF refuses gradients with respect to a MirroredVariable in cross-replica
            # context: with respect to the inputs here)
            grads = [tf.gradients(tf.reduce_sum(o), [x, unknown]) for o in outs]
        return lambda sess: sess.run([outs, [[g for g in pair if g is not None] for pair in grads]])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_checkpoints_cross_restore(tmp_path):
    """The keys of a checkpoint saved under MirroredStrategy are the variables' names;
    each side restores the other's checkpoint."""
    values = {}

    def save(tf, path):
        def body(tf):
            strategy = tf.distribute.MirroredStrategy()
            x, y = tf.constant(X), tf.constant(Y)
            with strategy.scope():
                m = _model(tf, "adam")
                train = strategy.run(m["step"], args=(x, y))
                saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train)
                saver.save(sess, path)
                values[tf is tf1] = sess.run(tf.global_variables())
            return sorted(tf.train.list_variables(path))

        return _in_graph(tf, body)

    theirs = save(tf1, str(tmp_path / "theirs"))
    ours = save(jtf, str(tmp_path / "ours"))
    assert ours == theirs
    assert {k for k, _ in ours} == {
        "dense/w", "dense/b", "global_step", "beta1_power", "beta2_power",
        "dense/w/Adam", "dense/w/Adam_1", "dense/b/Adam", "dense/b/Adam_1",
    }  # fmt: skip

    def restore(tf, path):
        def body(tf):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                m = _model(tf, "adam")
                strategy.run(m["step"], args=(tf.constant(X), tf.constant(Y)))
                saver = tf.train.Saver()
            with tf.Session() as sess:
                saver.restore(sess, path)
                return sess.run(tf.global_variables())

        return _in_graph(tf, body)

    assert_twins(values[True], restore(jtf, str(tmp_path / "theirs")), rtol=0)
    assert_twins(values[False], restore(tf1, str(tmp_path / "ours")), rtol=0)
    assert_twins(values[True], values[False], rtol=RTOL, atol=ATOL)


def _kind(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_kind(v) for v in value]
    return type(value).__name__.replace("Symbolic", "")


@pytest.mark.parametrize("kind", ["mirrored", "one device", "default"])
def test_contexts_merge_call_and_all_reduce(kind):
    def script(tf):
        d = tf.distribute
        strategy = STRATEGIES[kind](d)
        seen = []

        def where(tag):
            ctx = d.get_replica_context()
            seen.append(
                [
                    tag,
                    d.has_strategy(),
                    d.in_cross_replica_context(),
                    ctx is None,
                    d.get_strategy() is strategy,
                    _kind(ctx.replica_id_in_sync_group) if ctx is not None else None,
                    ctx.num_replicas_in_sync if ctx is not None else None,
                ]
            )

        where("outside")
        with strategy.scope():
            where("scope")
            with strategy.scope():
                where("nested scope")
            v = tf.constant([1.5, -2.0])

            def fn(a):
                where("replica")
                ctx = d.get_replica_context()
                seen.append(["devices", _kind(ctx.devices)])

                def merge(s, value, scale=1.0):
                    where("merge")
                    seen.append(["merge strategy", s is strategy])
                    return value * scale

                merged = ctx.merge_call(merge, args=(a,), kwargs={"scale": 2.0})
                summed = ctx.all_reduce(d.ReduceOp.SUM, [a * a, a * 4.0])
                mean = ctx.all_reduce("mean", a * 3.0)
                gathered = {
                    "a": ctx.all_gather(a * 5.0, axis=0),
                    "b": ctx.all_gather(tf.reshape(a, [1, 2]), axis=1),
                    # (a nest's gradient fails in TF: its values only)
                    "nest": ctx.all_gather([a, tf.reshape(a, [2, 1])], axis=0),
                }
                # (TF's gradient of an all-reduce is an all-reduce: in the replica)
                grads = tf.gradients(
                    tf.reduce_sum(summed[0])
                    + tf.reduce_sum(mean * mean)
                    + tf.reduce_sum(gathered["a"] * gathered["b"][0]),
                    a,
                )
                return summed, mean, ctx.replica_id_in_sync_group, merged, grads, gathered

            summed, mean, replica_id, merged, grads, gathered = strategy.run(fn, args=(v,))
            where("after run")
        where("after scope")
        info = [strategy.num_replicas_in_sync, d.get_loss_reduction() is d.ReduceOp.SUM]
        return lambda sess: (
            seen,
            info,
            sess.run([summed, mean, replica_id, merged, grads, gathered]),
        )

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    assert_twins(theirs[2], ours[2], rtol=0)


@pytest.mark.parametrize("kind", ["mirrored", "one device"])
def test_extended_devices_updates_and_groups(kind):
    def script(tf):
        d = tf.distribute
        strategy = STRATEGIES[kind](d)
        ext = strategy.extended
        configured = tf.ConfigProto()
        strategy.configure(session_config=configured)
        with strategy.scope():
            v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
            t = tf.constant([3.0, 4.0])
            up = ext.update(v, lambda var, a: tf.assign_add(var, a), args=(t,))
            ups = ext.update(v, lambda var, a: tf.assign_sub(var, a), args=(t,), group=False)
            non_slot = ext.update_non_slot(ext.non_slot_devices([v]), lambda: tf.constant(7.0))
            outs = {
                "reduce_to": ext.reduce_to("SUM", t, "/cpu:0"),
                "reduce_to mean": ext.reduce_to(d.ReduceOp.MEAN, t, "/cpu:0"),
                "batch": ext.batch_reduce_to("SUM", [(t, "/cpu:0"), (t * 2, "/cpu:0")]),
                "broadcast": ext.broadcast_to(t, "/cpu:0"),
                "read": ext.read_var(v),
                "non slot": non_slot,
            }
            info = [
                list(ext.worker_devices),
                list(ext.parameter_devices),
                list(ext.non_slot_devices([v])),
                ext.experimental_require_static_shapes,
                ext.experimental_between_graph,
                ext.experimental_should_init,
                ext.should_checkpoint,
                ext.should_save_summary,
                ext.value_container(v) is v or type(ext.value_container(v)).__name__,
                type(ups).__name__,
                len(ups),
                strategy.group(t).type,
                strategy.group([t, t]).type,
                strategy.cluster_resolver,
                strategy.update_config_proto(tf.ConfigProto()).isolate_session_state,
                configured.isolate_session_state,
            ]
            if kind == "mirrored":
                info.append(ext.worker_devices_by_replica)

        def run(sess):
            after_up = sess.run(up)
            after_ups = sess.run(ups[0])
            return info, after_up, after_ups, sess.run(outs)

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=0)


@pytest.mark.parametrize("kind", ["mirrored", "one device", "default"])
def test_input_iterators(kind):
    data = np.arange(10, dtype=np.float32).reshape(5, 2)

    def script(tf):
        d = tf.distribute
        strategy = STRATEGIES[kind](d)
        contexts = []

        def input_fn(ctx):
            contexts.append(
                [ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync]
            )
            return tf.data.Dataset.from_tensor_slices(data).batch(2)

        with strategy.scope():
            dist = strategy.experimental_distribute_dataset(
                tf.data.Dataset.from_tensor_slices(data).batch(2)
            )
            with pytest.raises(RuntimeError, match="(supported|supports .*) .*tf.function"):
                iter(dist)  # TF1 graphs cannot iterate a distributed dataset (nor a dataset)
            it1 = strategy.make_dataset_iterator(tf.data.Dataset.from_tensor_slices(data).batch(2))
            it2 = strategy.make_dataset_iterator(tf.data.Dataset.from_tensor_slices(data).batch(3))
            it3 = strategy.make_input_fn_iterator(input_fn)
            it4 = strategy.make_dataset_iterator(tf.data.Dataset.from_tensor_slices(data))
            doubled = strategy.experimental_run(lambda a: a * 2.0, it4)
        nexts = [it1.get_next(), it2.get_next(), it3.get_next(), doubled]
        inits = [it1.initializer, it2.initialize(), it3.initializer, it4.initialize()]
        kinds = [_kind(it1.initializer), _kind(it2.initialize())]

        def run(sess):
            out = []
            for init, nxt in zip(inits, nexts, strict=True):
                sess.run(init)
                values = []
                while True:
                    try:
                        values.append(sess.run(nxt))
                    except tf.errors.OutOfRangeError:
                        break
                out.append(values)
            return contexts, kinds, out

        return run

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2], rtol=0)


@pytest.mark.parametrize(
    "call",
    [
        "fit validation_split",
        "fit class_weight",
        "evaluate batch_size",
        "predict batch_size",
    ],
)
def test_keras_array_arguments_tf_refuses_under_scope(call):
    """TF's distributed Keras loop refuses these array arguments of a model compiled
    under a strategy's ``scope()`` (jtrain ran them as the plain loop)."""
    rs = np.random.RandomState(4)
    x = rs.randn(10, 3).astype(np.float32)
    y = rs.randn(10, 1).astype(np.float32)

    def body(tf):
        with tf.Session(graph=tf.get_default_graph()).as_default():
            with tf.distribute.MirroredStrategy().scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
                model.compile(optimizer=tf.train.GradientDescentOptimizer(0.05), loss="mse")
            action = {
                "fit validation_split": lambda: model.fit(
                    x, y, batch_size=5, verbose=0, shuffle=False, validation_split=0.2
                ),
                "fit class_weight": lambda: model.fit(
                    x, y, batch_size=5, verbose=0, shuffle=False, class_weight={0: 1.0}
                ),
                "evaluate batch_size": lambda: model.evaluate(x, y, batch_size=4, verbose=0),
                "predict batch_size": lambda: model.predict(x, batch_size=3),
            }[call]
            with pytest.raises(Exception) as info:
                action()
            return type(info.value).__name__, str(info.value)

    theirs, ours = _both(body)
    assert ours == theirs


@pytest.mark.parametrize("kind", ["mirrored", "one device"])
def test_keras_compile_fit_under_scope(kind):
    """``with strategy.scope(): model.compile()`` then ``fit`` on arrays (batches that
    divide the samples, no shuffling: TF's distributed loop then feeds the same
    batches as the plain one) and on a dataset, ``evaluate`` and ``predict``."""
    rs = np.random.RandomState(3)
    x = rs.randn(12, 3).astype(np.float32)
    y = (x @ rs.randn(3, 1)).astype(np.float32)

    def body(tf):
        strategy = STRATEGIES[kind](tf.distribute)
        with tf.Session(graph=tf.get_default_graph()).as_default():
            with strategy.scope():
                model = tf.keras.Sequential(
                    [
                        tf.keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                        tf.keras.layers.Dense(1),
                    ]
                )
                model.set_weights(
                    [
                        np.random.RandomState(10 + i).uniform(-0.6, 0.6, w.shape.as_list())
                        for i, w in enumerate(model.weights)
                    ]
                )
                model.compile(
                    optimizer=tf.train.GradientDescentOptimizer(0.05), loss="mse", metrics=["mae"]
                )
            history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
            dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
            on_dataset = model.fit(dataset.repeat(), steps_per_epoch=3, epochs=1, verbose=0)
            return {
                "names": [w.name for w in model.weights],
                "history": history.history,
                "dataset history": on_dataset.history,
                "dataset evaluate": model.evaluate(dataset, verbose=0),
                "weights": model.get_weights(),
                "evaluate": model.evaluate(x, y, batch_size=4, verbose=0),
                "predict": model.predict(x[:4], batch_size=2),
            }

    theirs, ours = _both(body)
    assert ours["names"] == theirs["names"]
    assert list(ours["history"]) == list(theirs["history"])
    for key in ("history", "dataset history"):
        np.testing.assert_allclose(ours[key]["loss"], theirs[key]["loss"], rtol=RTOL, atol=ATOL)
    assert_twins(
        [theirs["weights"], theirs["evaluate"], theirs["predict"], theirs["dataset evaluate"]],
        [ours["weights"], ours["evaluate"], ours["predict"], ours["dataset evaluate"]],
        rtol=RTOL,
        atol=ATOL,
    )


def test_experimental_run_v2_is_run():
    """TF 2.21 dropped ``experimental_run_v2`` from its v1 strategies; jtrain keeps the
    TF 1.15 name as ``run`` (TF's ``run`` gives the values compared)."""
    assert not hasattr(tf1.distribute.MirroredStrategy(), "experimental_run_v2")

    def body(tf, method):
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            m = _model(tf, "sgd")
            loss = getattr(strategy, method)(m["step"], args=(tf.constant(X), tf.constant(Y)))[0]
        with tf.train.MonitoredSession() as sess:
            return [sess.run(loss) for _ in range(3)]

    theirs = _in_graph(tf1, lambda tf: body(tf, "run"))
    ours = _in_graph(jtf, lambda tf: body(tf, "experimental_run_v2"))
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_cluster_resolvers(monkeypatch):
    config = {
        "cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]},
        "task": {"type": "worker", "index": 1},
        "rpc_layer": "grpc",
    }

    def body(tf):
        cr = tf.distribute.cluster_resolver
        out = []
        for tf_config in [
            config,
            {"cluster": {"worker": ["a:1"]}},
            {},
            {**config, "session_master": "m:9"},
        ]:
            monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
            r = cr.TFConfigClusterResolver()
            # (TF's num_accelerators opens a session on the master: only a local one)
            local = r.master() == ""
            out.append(
                [r.cluster_spec().as_dict(), r.task_type, r.task_id, r.rpc_layer, r.master(),
                 r.environment, r.num_accelerators() if local else None]
            )  # fmt: skip
        monkeypatch.setenv("TF_CONFIG", json.dumps(config))
        r = cr.TFConfigClusterResolver(task_type="chief", task_id=0, rpc_layer="grpc+verbs")
        out.append([r.task_type, r.task_id, r.master(), r.master("worker", 0, rpc_layer="")])
        spec = tf.train.ClusterSpec({"ps": ["p:1"], "worker": {1: "w:1"}})
        s = cr.SimpleClusterResolver(spec, master="grpc://m:1", task_type="ps", task_id=0)
        out.append(
            [s.cluster_spec().as_dict(), s.master(), s.master("worker", 1, rpc_layer="grpc"),
             s.task_type, s.task_id, s.environment, s.num_accelerators(), s.rpc_layer]
        )  # fmt: skip
        other = cr.SimpleClusterResolver(
            tf.train.ClusterSpec({"ps": ["p:2"], "worker": {0: "w:0"}}), master="x:1"
        )
        u = cr.UnionResolver(s, other)
        out.append([u.cluster_spec().as_dict(), u.master(), u.task_type, u.task_id])
        clash = cr.UnionResolver(
            s, cr.SimpleClusterResolver(tf.train.ClusterSpec({"worker": {1: "z:1"}}))
        )
        errors = []
        for bad in [
            lambda: clash.cluster_spec(),
            lambda: cr.SimpleClusterResolver({"worker": ["a:1"]}),
            lambda: cr.SimpleClusterResolver(spec, master=3),
            lambda: cr.UnionResolver(),
            lambda: cr.UnionResolver(s, "x"),
        ]:
            with pytest.raises(Exception) as info:
                bad()
            errors.append(type(info.value).__name__)
        return out, errors

    theirs, ours = _both(body)
    for t, o in zip(theirs[0], ours[0], strict=True):
        assert o == t
    assert ours[1] == theirs[1]


@pytest.mark.parametrize(
    "case",
    [
        "mixing scopes",
        "reduce in replica",
        "scope in replica",
        "run in replica",
        "merge_call in cross-replica",
        "reduce op name",
        "reduce op type",
        "reduce axis out of range",
        "nccl num_packs",
        "hierarchical num_packs",
        "duplicate devices",
        "per replica batch size",
        "aggregation NONE",
        "replication mode",
        "default worker devices",
        "default parameter devices",
        "replica id type",
        "broadcast_to None",
    ],
)  # fmt: skip
def test_errors(case):
    def body(tf):
        d = tf.distribute
        m = d.MirroredStrategy()
        o = d.OneDeviceStrategy("/cpu:0")
        x = tf.constant([1.0, 2.0])

        def in_replica(action):
            with m.scope():
                return m.run(action)

        action = {
            "mixing scopes": lambda: m.scope().__enter__() and o.scope().__enter__(),
            "reduce in replica": lambda: in_replica(lambda: m.reduce("SUM", x)),
            "scope in replica": lambda: in_replica(lambda: m.scope().__enter__()),
            "run in replica": lambda: in_replica(lambda: m.run(lambda: x)),
            "merge_call in cross-replica": lambda: (
                m.scope().__enter__() and d.get_replica_context().merge_call(lambda s: 1)
            ),
            "reduce op name": lambda: m.reduce("max", x, axis=0),
            "reduce op type": lambda: m.reduce(3, x, axis=0),
            "reduce axis out of range": lambda: m.reduce("mean", x, axis=-2),
            "nccl num_packs": lambda: d.NcclAllReduce(num_packs=-1),
            "hierarchical num_packs": lambda: d.HierarchicalCopyAllReduce(num_packs=-2),
            "duplicate devices": lambda: d.MirroredStrategy(devices=["/cpu:0", "cpu:0"]),
            "per replica batch size": lambda: d.InputContext(2, 1, 4).get_per_replica_batch_size(7),
            "aggregation NONE": lambda: d.ReduceOp.from_variable_aggregation(
                tf.VariableAggregation.NONE
            ),
            "replication mode": lambda: m.make_input_fn_iterator(
                lambda ctx: None, d.InputReplicationMode.PER_REPLICA
            ),
            "default worker devices": lambda: d.get_strategy().extended.worker_devices,
            "default parameter devices": lambda: d.get_strategy().extended.parameter_devices,
            "replica id type": lambda: d.ReplicaContext(m, 1.5),
            "broadcast_to None": lambda: m.extended.broadcast_to(x, None),
        }[case]
        stack = contextlib.ExitStack()
        with stack, pytest.raises(Exception) as info:
            action()
        return type(info.value).__name__, str(info.value).split(": <")[0]

    theirs, ours = _both(body)
    assert ours[0] == theirs[0]
    if case == "aggregation NONE":  # TF names its enum VariableAggregationV2
        assert "`tf.VariableAggregation` VariableAggregation.NONE" in ours[1]
    elif case == "reduce axis out of range":  # the Sum's shape error, TF's graph details
        assert theirs[1].split(" for '")[0] in ours[1]
    elif case == "broadcast_to None":  # TF's bare assert
        assert theirs[1] == "" and "`destinations`" in ours[1]
    else:
        assert ours[1] == theirs[1]


KERAS_REFUSALS = {
    "evaluate partial batch": ("test", 10, 4, {}),
    "predict partial batch": ("predict", 10, 4, {}),
    "predict default batch": ("predict", 40, None, {}),
    "fit validation_split": ("train", 10, 5, {"validation_split": 0.2}),
    "fit class_weight": ("train", 10, 5, {"class_weight": {0: 1.0, 1: 2.0}}),
}


@pytest.mark.parametrize("case", list(KERAS_REFUSALS))
def test_keras_array_loop_refusals(case):
    """What TF's distributed Keras loop refuses for arrays, raised by
    ``distributed_training_utils.check_keras_arrays`` with TF's class and message."""
    from adapters.v1.distribute.distributed_training_utils import check_keras_arrays

    mode, n, batch_size, extra = KERAS_REFUSALS[case]
    x = np.zeros((n, 3), np.float32)
    y = np.zeros((n, 1), np.float32)

    def theirs(tf):
        strategy = tf.distribute.MirroredStrategy()
        with tf.Session(graph=tf.get_default_graph()).as_default():
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
                model.compile(optimizer=tf.train.GradientDescentOptimizer(0.1), loss="mse")
            call = {
                "train": lambda: model.fit(
                    x, y, batch_size=batch_size, verbose=0, shuffle=False, **extra
                ),
                "test": lambda: model.evaluate(x, y, batch_size=batch_size, verbose=0),
                "predict": lambda: model.predict(x, batch_size=batch_size),
            }[mode]
            with pytest.raises(Exception) as info:
                call()
            return type(info.value).__name__, str(info.value)

    def ours(tf):
        strategy = tf.distribute.MirroredStrategy()
        with pytest.raises(Exception) as info:
            check_keras_arrays(strategy, mode, n, batch_size, **extra)
        check_keras_arrays(tf.distribute.get_strategy(), mode, n, batch_size, **extra)
        return type(info.value).__name__, str(info.value)

    assert _in_graph(jtf, ours) == _in_graph(tf1, theirs)


@pytest.mark.parametrize("module", ["", "experimental", "cluster_resolver"])
def test_every_tf_name_is_there_or_says_what_to_use(module):
    """Each public name of TF's ``tf.compat.v1.distribute`` (and its ``experimental``,
    ``cluster_resolver``) is in jtrain's, or raises an ``AttributeError`` saying what
    to use instead; jtrain's names are all TF's."""
    theirs = tf1.distribute
    ours = jtf.distribute
    for part in filter(None, module.split(".")):
        theirs, ours = getattr(theirs, part), getattr(ours, part)
    tf_names = {n for n in dir(theirs) if not n.startswith("_")}
    missing = []
    for name in sorted(tf_names):
        if hasattr(ours, name):
            continue
        with pytest.raises(AttributeError) as info:
            getattr(ours, name)
        assert "tf.train.Server" in str(info.value), (name, str(info.value))
        missing.append(name)
    assert set(ours.__all__) <= tf_names
    assert (module, missing) in [
        ("", []),
        (
            "experimental",
            ["CentralStorageStrategy", "CollectiveCommunication", "CollectiveHints",
             "CommunicationImplementation", "CommunicationOptions",
             "MultiWorkerMirroredStrategy", "ParameterServerStrategy", "TPUStrategy"],
        ),
        (
            "cluster_resolver",
            ["GCEClusterResolver", "KubernetesClusterResolver", "KubernetesExecutableLocation",
             "SlurmClusterResolver", "TPUClusterResolver"],
        ),
    ]  # fmt: skip
