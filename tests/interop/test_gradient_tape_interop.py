"""``tf.GradientTape`` in a classic TF1 graph, checked live against TF 2.21's
``compat.v1`` (``twin.py``).

Compared: gradients (values, ``None`` where TF gives none) through the operations the
tape recorded, with a tensor made before the tape a constant to it; resource
variables watched when read, reference variables not (TF's errors for them); a
non-persistent tape's second ``gradient``; ``stop_recording``, ``reset``,
``output_gradients``, ``unconnected_gradients``, nested sources, nested tapes (second
derivatives), ``jacobian`` and ``batch_jacobian``, and a training loop with
``apply_gradients``. Each test failed before ``adapters.v1.GradientTape`` existed
(AttributeError).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RTOL, ATOL = 1e-6, 1e-7
X = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]], np.float32)


def _error(fn):
    """The class name of what ``fn()`` raises (``"none"`` if nothing)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return "none"


def _fetch(sess, values, feed=None):
    """``values`` run, ``None`` leaves kept (TF's session cannot fetch ``None``)."""
    leaves, tree = jax.tree.flatten(values, is_leaf=lambda v: v is None)
    got = iter(sess.run([v for v in leaves if v is not None], feed))
    return tree.unflatten([None if v is None else next(got) for v in leaves])


def test_gradient_flows_through_recorded_ops_only_as_tf():
    def script(tf):
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        before = tf.sin(x)  # made before the tape: a constant to it
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            inner = tf.tanh(x) * 2.0
            y = tf.reduce_sum(inner * before + x * x)
            c = tf.constant(3.0) * 2.0  # no tracked input: not recorded
            z = y * c
        grads = {
            "x": tape.gradient(y, x),
            "before": tape.gradient(y, before),
            "inner": tape.gradient(y, inner),
            "c": tape.gradient(z, c),
            "list": tape.gradient([y, z], x),
            "dict": tape.gradient(z, {"a": x, "b": [inner, before]}),
        }
        return lambda sess: _fetch(sess, grads, {x: X})

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("accessed", [True, False])
def test_resource_variables_are_watched_when_read_as_tf(accessed):
    def script(tf):
        w = tf.Variable(X, use_resource=True, name="w")
        b = tf.Variable([0.5, -0.5, 1.0], use_resource=True, name="b")
        frozen = tf.Variable(2.0, use_resource=True, trainable=False, name="frozen")
        with tf.GradientTape(watch_accessed_variables=accessed, persistent=True) as tape:
            if not accessed:
                tape.watch(b)
            y = tf.reduce_sum(tf.square(w * frozen + b))
        names = [v.name for v in tape.watched_variables()]
        grads = {"w": tape.gradient(y, w), "b": tape.gradient(y, b), "f": tape.gradient(y, frozen)}
        return lambda sess: {"names": names, "grads": _fetch(sess, grads)}

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_reference_variables_are_not_watched_as_tf():
    def script(tf):
        v = tf.Variable(2.0, name="v")  # a reference variable in classic TF1
        x = tf.constant(3.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = v * x * x
        result = {
            "watched": len(tape.watched_variables()),
            "gradient": _error(lambda: tape.gradient(y, v)),
            "value": tape.gradient(y, v.value()) is None,
        }

        def watch():
            with tf.GradientTape() as t:
                t.watch(v)

        result["watch"] = _error(watch)
        gx = tape.gradient(y, x)
        return lambda sess: {**result, "x": sess.run(gx)}

    assert_twins(*run_both(script))


def test_non_persistent_tape_gives_one_set_of_gradients_as_tf():
    def script(tf):
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        g = tape.gradient(y, x)
        try:
            tape.gradient(y, x)
            second = "none"
        except RuntimeError as e:
            second = str(e)
        with tf.GradientTape(persistent=True) as p:
            p.watch(x)
            y2 = x * x
        g2 = [p.gradient(y2, x), p.gradient(y2, x)]
        return lambda sess: {"second": second, "g": sess.run(g), "g2": sess.run(g2)}

    assert_twins(*run_both(script))


def test_stop_recording_and_reset_as_tf():
    def script(tf):
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            a = x * 3.0
            with tape.stop_recording():
                b = a * a  # not recorded
            y = tf.reduce_sum(a * b)
        errors = {
            "stop_after": _error(lambda: tape.stop_recording().__enter__()),
            "stop_never": _error(lambda: tf.GradientTape().stop_recording().__enter__()),
            "reset_after": _error(tape.reset),
            "gradient_never": _error(lambda: tf.GradientTape().gradient(x, x)),
        }
        with tf.GradientTape() as t2:
            t2.watch(x)
            dropped = x * 5.0
            t2.reset()
            t2.watch(x)
            kept = tf.reduce_sum(dropped * x)
        grads = {"x": tape.gradient(y, x), "b": tape.gradient(y, b), "reset": t2.gradient(kept, x)}
        return lambda sess: {**errors, **_fetch(sess, grads, {x: X})}

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("unconnected", ["none", "zero"])
def test_output_gradients_and_unconnected_gradients_as_tf(unconnected):
    def script(tf):
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        other = tf.placeholder(tf.float32, [3], name="other")
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, other])
            y = tf.tanh(x) * 4.0
        weights = tf.constant(X[::-1] * 2.0)
        grads = {
            "x": tape.gradient(y, x, output_gradients=weights),
            "other": tape.gradient(y, other, unconnected_gradients=unconnected),
        }
        feed = {x: X, other: X[0]}
        return lambda sess: _fetch(sess, grads, feed)

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_nested_tapes_give_second_derivatives_as_tf():
    def script(tf):
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(tf.sin(x) * x * x)
            first = inner.gradient(y, x)
        second = outer.gradient(first, x)
        return lambda sess: sess.run({"first": first, "second": second}, {x: X})

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("pfor", [True, False])
def test_jacobian_and_batch_jacobian_as_tf(pfor):
    def script(tf):
        x = tf.constant(X)
        w = tf.Variable(X.T[:, :2] * 0.5, use_resource=True, name="w")
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.tanh(tf.matmul(x, w))  # [2, 2]
        jac = tape.jacobian(y, [x, w], experimental_use_pfor=pfor)
        batch = tape.batch_jacobian(y, x, experimental_use_pfor=pfor)
        return lambda sess: sess.run({"jac": jac, "batch": batch})

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_training_loop_with_apply_gradients_as_tf():
    def script(tf):
        x = tf.constant(X)
        target = tf.constant([[1.0], [-1.0]])
        w = tf.Variable(np.full((3, 1), 0.1, np.float32), use_resource=True, name="w")
        b = tf.Variable([0.0], use_resource=True, name="b")
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - target))
        grads = tape.gradient(loss, [w, b])
        pairs = zip(grads, [w, b], strict=True)
        train = tf.train.GradientDescentOptimizer(0.1).apply_gradients(pairs)

        def run(sess):
            losses = [sess.run([loss, train])[0] for _ in range(3)]
            return {"losses": losses, "w": sess.run(w), "b": sess.run(b)}

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_gather_of_a_watched_variable_gives_indexed_slices_as_tf():
    def script(tf):
        table = np.arange(12, dtype=np.float32).reshape(4, 3)
        emb = tf.Variable(table, use_resource=True, name="emb")
        with tf.GradientTape() as tape:
            e = tf.reduce_sum(tf.gather(emb, [0, 2, 2]) ** 2)
        grad = tape.gradient(e, emb)
        kind = type(grad).__name__
        return lambda sess: {"kind": kind, "slices": sess.run([grad.indices, grad.values])}

    assert_twins(*run_both(script))


def test_keras_layer_built_inside_the_tape_is_watched_as_tf():
    def script(tf):
        layer = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")
        x = tf.constant(X)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.tanh(layer(x)) ** 2)
        watched = [v.name for v in tape.watched_variables()]
        grads = tape.gradient(y, layer.trainable_variables)
        return lambda sess: {"watched": watched, "grads": sess.run(grads)}

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_watch_outside_recording_as_tf():
    def script(tf):
        v = tf.Variable(2.0, name="v")  # a reference variable
        x = tf.constant(3.0)
        fresh = tf.GradientTape()
        with tf.GradientTape(persistent=True) as done:
            done.watch(x)
        with tf.GradientTape() as spent:
            spent.watch(x)
            y = x * x
        spent.gradient(y, x)
        results = {
            "fresh_variable": _error(lambda: fresh.watch(v)),
            "fresh_tensor": _error(lambda: fresh.watch(x)),
            "exited_variable": _error(lambda: done.watch(v)),
            "exited_tensor": _error(lambda: done.watch(x)),
            "spent_tensor": _error(lambda: spent.watch(x)),
        }
        with tf.GradientTape() as paused, paused.stop_recording():
            results["paused_variable"] = _error(lambda: paused.watch(v))
        return lambda sess: results

    theirs, ours = run_both(script)
    assert ours == theirs
