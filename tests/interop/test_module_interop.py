"""``tf.Module`` in a classic TF1 graph, checked live against TF 2.21's ``compat.v1``
(``twin.py``).

Compared: ``name`` and ``name_scope`` (uniquified, under an enclosing scope), the names
of variables and ops made under the module's scope and in ``with_name_scope`` methods,
``variables`` / ``trainable_variables`` / ``non_trainable_variables`` / ``submodules``
in TF's order through lists, tuples, namedtuples and dicts, ``_flatten`` (paths,
``recursive=False``), TF's error for a bad name, and a module trained with
``GradientTape`` over its ``trainable_variables``. Each test failed before
``adapters.v1.Module`` existed (AttributeError).
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

Pair = collections.namedtuple("Pair", ["right", "left"])


def _classes(tf, use_resource=None):
    class Dense(tf.Module):
        def __init__(self, units, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(
                    np.full((3, units), 0.25, np.float32), name="w", use_resource=use_resource
                )
                self.b = tf.Variable(
                    np.zeros(units, np.float32), name="b", use_resource=use_resource
                )
                self.count = tf.Variable(0, trainable=False, name="count")

        @tf.Module.with_name_scope
        def __call__(self, x):
            return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    class TwoLayerNet(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.layers = [Dense(3), Dense(3, name="second")]
            self.extra = {"z": tf.Variable(1.0, name="z"), "a": (Dense(3, name="inner"),)}
            self.pair = Pair(tf.Variable(2.0, name="right"), tf.Variable(3.0, name="left"))
            self.alpha = tf.Variable(0.5, name="alpha")
            self.again = self.layers[0]  # reached twice: listed once

        @tf.Module.with_name_scope
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x * self.alpha

    return Dense, TwoLayerNet


def _names(values):
    return [v.name for v in values]


def test_tracking_names_and_scopes_as_tf():
    def script(tf):
        _, TwoLayerNet = _classes(tf)
        net = TwoLayerNet()
        with tf.name_scope("outer"):
            scoped = TwoLayerNet(name="net")
        y = net(tf.ones([2, 3]))
        y_again = net(tf.ones([2, 3]))
        with net.name_scope:
            c = tf.constant(1.0, name="c")
        paths = [(p, v.name) for p, v in net._flatten(predicate=_is_var(tf), with_path=True)]
        result = {
            "name": [net.name, scoped.name, tf.Module().name, tf.Module().name],
            "scope": [net.name_scope.name, scoped.name_scope.name],
            "variables": _names(net.variables),
            "trainable": _names(net.trainable_variables),
            "non_trainable": _names(net.non_trainable_variables),
            "submodules": [m.name for m in net.submodules],
            "scoped": _names(scoped.variables),
            "ops": [y.name, y_again.name, c.name],
            "paths": [repr(p) for p in paths],
            "shallow": _names(net._flatten(recursive=False, predicate=_is_var(tf))),
        }
        return lambda sess: result

    theirs, ours = run_both(script)
    assert ours == theirs


def _is_var(tf):
    return lambda v: isinstance(v, tf.Variable)


@pytest.mark.parametrize("name", ["a b", "1net", "net/x", ""])
def test_bad_module_name_raises_as_tf(name):
    def script(tf):
        try:
            tf.Module(name=name)
            error = None
        except ValueError as e:
            error = str(e)
        return lambda sess: error

    theirs, ours = run_both(script)
    assert ours == theirs


def test_module_trained_with_gradient_tape_as_tf():
    def script(tf):
        Dense, _ = _classes(tf, use_resource=True)
        layer = Dense(2, name="layer")
        x = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(layer(x) - 0.5))
        variables = layer.trainable_variables
        grads = tape.gradient(loss, variables)
        train = tf.train.GradientDescentOptimizer(0.5).apply_gradients(
            zip(grads, variables, strict=True)
        )

        def run(sess):
            losses = [sess.run([loss, train])[0] for _ in range(3)]
            return {"losses": losses, "vars": sess.run(list(variables))}

        return run

    assert_twins(*run_both(script), rtol=1e-6, atol=1e-7)


def test_checkpoint_saves_and_restores_a_module_as_tf(tmp_path):
    def script(tf):
        _, TwoLayerNet = _classes(tf)
        net = TwoLayerNet(name="net")
        net._private = tf.Variable(7.0, name="private")
        # (a namedtuple's edges are named by field, ``pair/left``: jtrain named them by
        # index, ``pair/1``, before)
        checkpoint = tf.train.Checkpoint(model=net)
        where = str(tmp_path / ("tf" if tf.__name__.startswith("tensorflow") else "jtrain"))
        bump = [v.assign(v * 2.0 + 1.0) for v in net.trainable_variables]

        def run(sess):
            path = checkpoint.save(where + "/ckpt", session=sess)
            sess.run(bump)
            checkpoint.restore(path).run_restore_ops(sess)
            keys = sorted(name for name, _ in tf.train.list_variables(path))
            return {"keys": keys, "values": sess.run(list(net.variables))}

        return run

    assert_twins(*run_both(script))
