"""``tf.function`` in a classic TF1 graph, checked live against TF 2.21's ``compat.v1``
(``twin.py``).

Compared: the call nodes (``PartitionedCall`` / ``StatefulPartitionedCall``, their
tensor names, static shapes), the values and gradients (``tf.gradients`` and
``GradientTape``) of their outputs, when the Python function is traced again (new
shapes, dtypes, Python values; never with an ``input_signature``), TF's errors for
inputs outside the signature, for a variable created inside the function and for a
Python ``if`` on a tensor with ``autograph=False``, ``get_concrete_function``, methods,
and a training loop. Each test failed before ``adapters.v1.function`` existed
(AttributeError).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RTOL, ATOL = 1e-6, 1e-7
A = np.array([0.5, -1.0], np.float32)


def _error(fn):
    """The class name of what ``fn()`` raises, as its nearest TF-neutral base."""
    try:
        fn()
    except TypeError:
        return "TypeError"
    except ValueError:
        return "ValueError"
    return "none"


def test_calls_values_gradients_and_retracing_as_tf():
    def script(tf):
        traces = []

        @tf.function
        def f(x, scale=2.0):
            traces.append((x.shape.as_list(), x.dtype.name, scale))
            return tf.sin(x) * scale + 1.0

        a = tf.placeholder(tf.float32, [2], name="a")
        outs = [f(a), f(a), f(tf.ones([3])), f(a, 3.0), f(a, scale=2.0)]
        outs.append(f(tf.ones([2], tf.float64)))
        after = tf.sin(a)  # the function's operations take no names from the caller
        grad = tf.gradients(tf.reduce_sum(f(a) * a), a)[0]
        with tf.GradientTape() as tape:
            tape.watch(a)
            q = tf.reduce_sum(f(a) * f(a, 3.0))
        tape_grad = tape.gradient(q, a)
        static = {
            "names": [t.name for t in outs] + [after.name],
            "types": sorted({t.op.type for t in outs}),
            "shapes": [t.shape.as_list() for t in outs],
            "traces": list(traces),
        }
        fetch = {"outs": outs, "grad": grad, "tape": tape_grad}
        return lambda sess: {**static, **sess.run(fetch, {a: A})}

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_input_signature_and_concrete_functions_as_tf():
    def script(tf):
        traces = []

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def k(x):
            traces.append("k")
            return x * 2.0

        a = tf.placeholder(tf.float32, [2], name="a")
        outs = [k(a), k(tf.ones([5]))]
        errors = [_error(lambda: k(tf.ones([2, 2]))), _error(lambda: k(tf.ones([2], tf.int32)))]
        concrete = k.get_concrete_function()
        (spec,), kwargs = concrete.structured_input_signature
        outs.append(concrete(a))
        scaled = tf.function(
            lambda s, v: s * v,
            input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([None], tf.float32)],
        )
        outs.append(scaled(2.0, [1.0, 3.0]))  # Python values: tensors of the specs
        static = {
            "traces": list(traces),
            "errors": errors,
            "spec": [spec.shape.as_list(), spec.dtype.name, spec.name, len(kwargs)],
            "names": [t.name for t in outs],
            "shapes": [str(t.shape) for t in outs],
            "no_signature": _error(tf.function(lambda x: x).get_concrete_function),
        }
        return lambda sess: {**static, "outs": sess.run(outs, {a: A})}

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_variables_and_python_control_flow_as_tf():
    def script(tf):
        ref = tf.Variable(2.0, name="ref")
        res = tf.Variable(3.0, use_resource=True, name="res")

        @tf.function
        def uses_ref(x):
            return x * ref

        @tf.function
        def uses_resource(x):
            return x * res

        @tf.function
        def makes_variable(x):
            return x * tf.Variable(2.0)

        @tf.function(autograph=False)
        def branch(x):
            if tf.reduce_sum(x) > 0:
                return x
            return -x

        @tf.function
        def python_loop(x, n, flip):
            for _ in range(n):
                x = x * 2.0
            if flip:
                x = -x
            return x

        a = tf.placeholder(tf.float32, [2], name="a")
        outs = [uses_ref(a), uses_resource(a), python_loop(a, 3, True), python_loop(a, 2, False)]
        static = {
            "types": [t.op.type for t in outs],
            "makes_variable": _error(lambda: makes_variable(a)),
            "branch": _error(lambda: branch(a)),
        }
        return lambda sess: {**static, "outs": sess.run(outs, {a: A})}

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_method_and_training_loop_as_tf():
    def script(tf):
        class Model(tf.Module):
            def __init__(self):
                super().__init__()
                self.w = tf.Variable([[0.5], [-0.25]], use_resource=True, name="w")
                self.traces = 0

            @tf.function
            def __call__(self, x):
                self.traces += 1
                return tf.matmul(x, self.w)

        model = Model()
        x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - 1.0))
        grads = tape.gradient(loss, model.trainable_variables)
        pairs = zip(grads, model.trainable_variables, strict=True)
        train = tf.train.GradientDescentOptimizer(0.1).apply_gradients(pairs)
        again = model(x * 2.0)

        def run(sess):
            losses = [sess.run([loss, train])[0] for _ in range(3)]
            return {
                "losses": losses,
                "w": sess.run(model.w),
                "again": sess.run(again),
                "traces": model.traces,
            }

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_nested_functions_with_cond_and_second_derivatives_as_tf():
    def script(tf):
        @tf.function
        def inner(x):
            return tf.cond(tf.reduce_sum(x) > 0, lambda: x * x, lambda: -x)

        @tf.function
        def outer(x):
            return inner(x) * 3.0 + inner(x + 1.0)

        a = tf.placeholder(tf.float32, [2], name="a")
        y = outer(a)
        with tf.GradientTape() as first:
            first.watch(a)
            with tf.GradientTape() as second:
                second.watch(a)
                z = tf.reduce_sum(outer(a) * a)
            g1 = second.gradient(z, a)
        g2 = first.gradient(g1, a)
        fetch = {"y": y, "g1": g1, "g2": g2}
        return lambda sess: {
            "name": y.name,
            "positive": sess.run(fetch, {a: A}),
            "negative": sess.run(fetch, {a: -A * 3.0}),
        }

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("argument", ["reduce_retracing", "experimental_relax_shapes"])
def test_reduce_retracing_generalizes_shapes_as_tf(argument):
    def script(tf):
        traces = []

        scale = tf.Variable(2.0, name="scale")

        @tf.function(**{argument: True})
        def f(x):
            traces.append(str(x.shape))
            return tf.reduce_sum(x * scale + 1.0, axis=-1, keepdims=True)

        shapes = ([2], [3], [4], [2, 2], [3, 2], [4])
        outs = [f(tf.fill(shape, float(i))) for i, shape in enumerate(shapes)]
        static = {"traces": list(traces), "shapes": [str(t.shape) for t in outs]}
        return lambda sess: {**static, "outs": sess.run(outs)}

    assert_twins(*run_both(script))


@pytest.mark.parametrize("optimizer", ["GradientDescentOptimizer", "AdamOptimizer"])
def test_train_step_function_with_tape_and_optimizer_as_tf(optimizer):
    def script(tf):
        w = tf.Variable([[0.5], [-0.25]], use_resource=True, name="w")
        opt = getattr(tf.train, optimizer)(0.1)

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
            grads = tape.gradient(loss, [w])
            step = opt.apply_gradients(zip(grads, [w], strict=True))
            with tf.control_dependencies([step]):
                return tf.identity(loss)

        x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
        y = tf.constant([[1.0], [0.0]])
        loss = train_step(x, y)  # Adam's slots are made inside, on the first trace

        def run(sess):
            losses = [sess.run(loss) for _ in range(3)]
            return {
                "type": loss.op.type,
                "losses": losses,
                "w": sess.run(w),
                "variables": [v.name for v in tf.global_variables()],
            }

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_variables_made_on_the_first_trace_only_as_tf():
    def script(tf):
        class Lazy(tf.Module):
            def __init__(self):
                super().__init__()
                self.w = None
                self.traces = 0

            @tf.function
            def __call__(self, x):
                self.traces += 1
                if self.w is None:
                    self.w = tf.Variable(tf.ones([x.shape[-1], 2]) * 0.5, name="w")
                    with tf.name_scope("inner"):
                        self.b = tf.Variable(tf.zeros([2]), name="b")
                return tf.matmul(x, self.w) + self.b

        @tf.function
        def returns_op(x):
            return tf.no_op()

        lazy = Lazy()
        x = tf.constant([[1.0, 2.0, 3.0]])
        with tf.name_scope("outer"):  # the function's names do not take the caller's
            out = [lazy(x), lazy(x), lazy(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))]
        static = {
            "traces": lazy.traces,
            "variables": [v.name for v in tf.global_variables()],
            "returns_op": _error(lambda: returns_op(x)),
        }
        return lambda sess: {**static, "out": sess.run(out)}

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)
