"""``tf.GradientTape``, ``tf.function`` and ``tf.Module`` bookkeeping that needs no
TensorFlow: re-entering a tape, traces kept per graph, TF's snake-case names. (TF's
values and errors are compared live in ``tests/interop/test_gradient_tape_interop.py``,
``test_tf_function_interop.py`` and ``test_module_interop.py``.) Each test failed
before these names existed in ``adapters.v1`` (AttributeError).
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.module.module import camel_to_snake


def test_reentering_a_recording_tape_raises_tfs_value_error():
    with tf.Graph().as_default():
        tape = tf.GradientTape()
        with tape, pytest.raises(ValueError, match="Tape is still recording"):
            tape.__enter__()


def test_a_function_traces_once_per_graph_and_signature():
    traces = []

    @tf.function
    def double(x):
        traces.append(x.shape)
        return x * 2.0

    results = []
    for _ in range(2):
        with tf.Graph().as_default():
            a = tf.constant([1.0, 2.0])
            first, second = double(a), double(a + 1.0)
            with tf.Session() as sess:
                results.append(sess.run([first, second]))
    assert len(traces) == 2  # one trace in each graph, reused by the second call
    np.testing.assert_array_equal(results[0][1], np.array([4.0, 6.0], np.float32))


@pytest.mark.parametrize(
    "name, snake",
    # what TF 2.21's module.camel_to_snake gives for these (measured)
    [("MyNet", "my_net"), ("DenseLSTM", "dense_lstm"), ("Module", "module"), ("A2B", "a2_b")],
)
def test_default_module_names_are_tfs_snake_case(name, snake):
    assert camel_to_snake(name) == snake


@pytest.mark.parametrize("method", ["jacobian", "batch_jacobian"])
def test_jacobian_of_a_target_of_unknown_shape_names_it(method):
    # TF loops over such a target with a while_loop; jtrain needs its static shape.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.identity(x * 2.0, name="target")
        with pytest.raises(ValueError, match=f"GradientTape.{method}: target target:0"):
            getattr(tape, method)(y, x)
