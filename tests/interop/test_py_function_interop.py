"""``tf.py_function`` checked live against TF 2.21 (classic TF1 graphs): the function
sees values whose ``.numpy()`` and ``get_shape()`` give what TF's ``EagerTensor``
gives, its results are converted to ``Tout`` as TF converts them (cast arrays, a
refused Python value's ``InvalidArgumentError``), the op is an ``EagerPyFunc`` and an
empty ``Tout`` returns the operation. Inputs fed and computed in the step both."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop


def test_py_function_as_tf():
    def script(tf):
        x = tf.placeholder(tf.float32, [2])
        seen = []

        def f(a, b):
            seen.append(
                (
                    a.numpy().tolist(),
                    a.numpy().dtype.name,
                    b.numpy().tolist(),
                    a.get_shape().as_list(),
                )
            )
            return a.numpy() * 2.0, 7

        y, z = tf.py_function(f, [x, tf.constant(3, tf.int64)], [tf.float32, tf.int32])
        computed = tf.py_function(lambda a: a * 3.0, [x * 1.5], tf.float32, name="triple")
        computed.set_shape([2])
        cast = tf.py_function(lambda a: np.float64([1.0, 0.1]), [x], tf.float32)
        nothing = tf.py_function(lambda a: None, [x], [])
        refused = tf.py_function(lambda a: 1.5, [x], tf.int32)

        def run(sess):
            values = sess.run([y, z, computed, cast, nothing], {x: [1.0, 2.0]})
            out = [values, seen, type(nothing).__name__, y.op.type, computed.op.name]
            try:
                sess.run(refused, {x: [1.0, 2.0]})
            except tf.errors.InvalidArgumentError as e:
                out.append([s for s in e.message.splitlines() if s.startswith("TypeError")][:1])
            return out

        return run

    theirs, ours = run_both(script)
    t_values, o_values = theirs[0], ours[0]
    for t, o in zip(t_values[:4], o_values[:4], strict=True):
        assert (np.asarray(o).dtype, np.asarray(o).tolist()) == (
            np.asarray(t).dtype,
            np.asarray(t).tolist(),
        )
    assert o_values[4] is t_values[4] is None
    assert ours[1:] == theirs[1:]
    assert ours[1] == [([1.0, 2.0], "float32", 3, [2])]
    assert ours[-1] == ["TypeError: Cannot convert 1.5 to EagerTensor of dtype int32"]


def test_decorator_and_argument_errors_as_tf():
    def script(tf):
        @tf.py_function(Tout=tf.float32)
        def double(a):
            return a.numpy() * 2

        y = double(tf.constant([1.0, 2.5]))
        errors = []
        for kwargs in (
            {"func": lambda a: a, "inp": [1.0]},
            {"func": lambda a: a, "Tout": tf.float32},
            {"inp": [1.0], "Tout": tf.float32},
        ):
            try:
                tf.py_function(**kwargs)
            except TypeError as e:
                errors.append(str(e))
        return lambda sess: (sess.run(y).tolist(), double.__name__, errors)

    theirs, ours = run_both(script)
    assert ours == theirs
    assert ours[0] == [2.0, 5.0] and len(ours[2]) == 3
