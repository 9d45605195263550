"""``tf.keras`` recurrent layers in a TF1 graph (``LSTM``, ``GRU``, ``SimpleRNN``, their
cells, ``RNN``, ``StackedRNNCells``, ``Bidirectional``, ``TimeDistributed``), checked
live against TF 2.21's legacy Keras (``tf.compat.v1.keras``, whose LSTM and GRU are
Keras' v1 classes, with ``TF_USE_LEGACY_KERAS=1``; classic TF1 graphs: ``twin.py``).

Each script assigns the same fixed values to the variables (random initial values
come from other streams in jtrain) and compares variable names and shapes, the
outputs' static shapes, the outputs, and their gradients with respect to the input
and every variable; then TF's errors, the initial values' properties, and a TF
checkpoint of a recurrent model restoring into jtrain and training on. Each test
failed before ``adapters.v1.keras.recurrent`` existed (AttributeError).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both, tf2_behaviour_off, unfused_config

pytestmark = pytest.mark.interop

RTOL, ATOL = 2e-5, 2e-6


@pytest.fixture(autouse=True)
def tf1_keras():
    """TF 2 behavior off while a test runs, as ``disable_v2_behavior()`` leaves it (the
    twins' ``classic_tf1`` sets the graph toggles only): Keras' ``backend.rnn`` reads
    it, and with it on writes a ``return_sequences=False`` layer's outputs to one
    ``TensorArray`` slot, which classic TF1 loops refuse to overwrite."""
    with tf2_behaviour_off():
        yield


X_SEQ = np.random.RandomState(3).uniform(-1, 1, (3, 5, 4)).astype(np.float32)
MASK = np.array(
    [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 0, 1, 1, 0]], dtype=bool
)  # right padding and a hole
STATE2 = np.random.RandomState(4).uniform(-1, 1, (3, 2)).astype(np.float32)
STATE3 = np.random.RandomState(5).uniform(-1, 1, (3, 3)).astype(np.float32)


def _fixed(tf, variables):
    """Assign ops giving each variable a fixed value drawn from its index and shape."""
    ops = []
    for i, v in enumerate(variables):
        value = np.random.RandomState(i).uniform(-0.5, 0.5, v.shape.as_list())
        ops.append(tf.assign(v, value.astype(np.float32)))
    return ops


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return [out]


# name -> build(K, tf, seq, mask, s2, s3) -> output tensor(s)
LAYERS = {
    "lstm": lambda K, tf, x, m, s2, s3: K.layers.LSTM(3)(x),
    "lstm sequences": lambda K, tf, x, m, s2, s3: K.layers.LSTM(3, return_sequences=True)(x),
    "lstm state": lambda K, tf, x, m, s2, s3: K.layers.LSTM(
        3, return_sequences=True, return_state=True
    )(x),
    "lstm backwards": lambda K, tf, x, m, s2, s3: K.layers.LSTM(
        2, return_sequences=True, go_backwards=True
    )(x),
    "lstm implementation 2": lambda K, tf, x, m, s2, s3: K.layers.LSTM(
        3, implementation=2, return_state=True
    )(x),
    "lstm unroll sigmoid no bias": lambda K, tf, x, m, s2, s3: K.layers.LSTM(
        3, unroll=True, recurrent_activation="sigmoid", use_bias=False
    )(x),
    "lstm initial_state": lambda K, tf, x, m, s2, s3: K.layers.LSTM(
        2, return_sequences=True, return_state=True
    )(x, initial_state=[s2, s2 * 0.5]),
    "lstm list input": lambda K, tf, x, m, s2, s3: K.layers.LSTM(2)([x, s2, -s2]),
    "lstm mask": lambda K, tf, x, m, s2, s3: K.layers.LSTM(
        3, return_sequences=True, return_state=True
    )(x, mask=m),
    "lstm mask backwards": lambda K, tf, x, m, s2, s3: K.layers.LSTM(3, go_backwards=True)(
        x, mask=m
    ),
    "lstm dropout at inference": lambda K, tf, x, m, s2, s3: K.layers.LSTM(
        3, dropout=0.3, recurrent_dropout=0.2
    )(x, training=False),
    "gru": lambda K, tf, x, m, s2, s3: K.layers.GRU(3)(x),
    "gru reset_after": lambda K, tf, x, m, s2, s3: K.layers.GRU(
        3, reset_after=True, return_sequences=True
    )(x),
    "gru reset_after implementation 2": lambda K, tf, x, m, s2, s3: K.layers.GRU(
        3, reset_after=True, implementation=2, return_state=True
    )(x),
    "gru implementation 2": lambda K, tf, x, m, s2, s3: K.layers.GRU(
        3, implementation=2, return_sequences=True
    )(x),
    "gru backwards state": lambda K, tf, x, m, s2, s3: K.layers.GRU(
        3, go_backwards=True, return_state=True
    )(x, initial_state=s3),
    "gru mask": lambda K, tf, x, m, s2, s3: K.layers.GRU(2, return_sequences=True)(x, mask=m),
    "simple_rnn": lambda K, tf, x, m, s2, s3: K.layers.SimpleRNN(3)(x),
    "simple_rnn relu sequences": lambda K, tf, x, m, s2, s3: K.layers.SimpleRNN(
        2, activation="relu", return_sequences=True
    )(x),
    "rnn stacked cells": lambda K, tf, x, m, s2, s3: K.layers.RNN(
        [K.layers.LSTMCell(2), K.layers.GRUCell(3), K.layers.SimpleRNNCell(2)],
        return_state=True,
        return_sequences=True,
    )(x),
    "rnn time_major": lambda K, tf, x, m, s2, s3: K.layers.RNN(
        K.layers.GRUCell(2), time_major=True, return_sequences=True
    )(tf.transpose(x, [1, 0, 2])),
    "bidirectional concat": lambda K, tf, x, m, s2, s3: K.layers.Bidirectional(
        K.layers.LSTM(2, return_sequences=True)
    )(x),
    "bidirectional sum": lambda K, tf, x, m, s2, s3: K.layers.Bidirectional(
        K.layers.GRU(2), merge_mode="sum"
    )(x),
    "bidirectional ave sequences": lambda K, tf, x, m, s2, s3: K.layers.Bidirectional(
        K.layers.SimpleRNN(2, return_sequences=True), merge_mode="ave"
    )(x),
    "bidirectional mul": lambda K, tf, x, m, s2, s3: K.layers.Bidirectional(
        K.layers.LSTM(2), merge_mode="mul"
    )(x),
    "bidirectional none state": lambda K, tf, x, m, s2, s3: K.layers.Bidirectional(
        K.layers.LSTM(2, return_state=True), merge_mode=None
    )(x, initial_state=[s2, s2, -s2, s2 * 0.3]),
    "bidirectional mask sequences": lambda K, tf, x, m, s2, s3: K.layers.Bidirectional(
        K.layers.GRU(2, return_sequences=True)
    )(x, mask=m),
    "bidirectional rnn cell": lambda K, tf, x, m, s2, s3: K.layers.Bidirectional(
        K.layers.RNN(K.layers.LSTMCell(2), return_sequences=True)
    )(x),
    "time_distributed dense": lambda K, tf, x, m, s2, s3: K.layers.TimeDistributed(
        K.layers.Dense(2, activation="tanh")
    )(x),
    "time_distributed over lstm": lambda K, tf, x, m, s2, s3: K.layers.TimeDistributed(
        K.layers.Dense(2)
    )(K.layers.LSTM(3, return_sequences=True)(x)),
    "lstm cell called": lambda K, tf, x, m, s2, s3: K.layers.LSTMCell(2)(x[:, 0], [s2, s2]),
    "gru cell called": lambda K, tf, x, m, s2, s3: K.layers.GRUCell(3)(x[:, 1], [s3]),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_outputs_and_gradients(name):
    """Each configuration's variable names and shapes, outputs (values, static shapes,
    dtypes) and gradients with respect to the input and every variable, on fixed
    weights."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 5, 4])
        m = tf.placeholder(tf.bool, [None, 5])
        s2 = tf.placeholder(tf.float32, [None, 2])
        s3 = tf.placeholder(tf.float32, [None, 3])
        out = _flat(LAYERS[name](tf.keras, tf, x, m, s2, s3))
        variables = tf.global_variables()
        assigns = _fixed(tf, variables)
        loss = tf.add_n([tf.reduce_sum(o * o) for o in out])
        grads = tf.gradients(loss, [x, s2, s3, *variables])
        info = {
            "out": [(str(o.shape.as_list()), o.dtype.name) for o in out],
            "vars": [(v.name, str(v.shape.as_list())) for v in variables],
            "trainable": [v.name for v in tf.trainable_variables()],
        }

        def run(sess):
            sess.run(assigns)
            feed = {x: X_SEQ, m: MASK, s2: STATE2, s3: STATE3}
            dense = [tf.convert_to_tensor(g) if g is not None else None for g in grads]
            fetch = [g for g in dense if g is not None]
            values = sess.run([out, fetch], feed)
            return info, values, [g is None for g in dense]

        return run

    assert_twins(*run_both(script, unfused_config()), rtol=RTOL, atol=ATOL)


def test_layer_weights_and_losses_as_tf():
    """``weights`` (the cells', forward then backward), ``trainable_weights`` of a frozen
    layer, regularizer ``losses`` of a cell's weights, ``count_params`` and
    ``get_weights`` order."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 5, 4])
        lstm = K.layers.LSTM(3, kernel_regularizer=K.regularizers.l2(0.1))
        bi = K.layers.Bidirectional(K.layers.GRU(2, reset_after=True))
        frozen = K.layers.SimpleRNN(2, trainable=False)
        td = K.layers.TimeDistributed(K.layers.Dense(2))
        for layer in (lstm, bi, frozen, td):
            layer(x)
        assigns = _fixed(tf, tf.global_variables())
        info = {
            name: (
                [w.name for w in layer.weights],
                [w.name for w in layer.trainable_weights],
                layer.count_params(),
            )
            for name, layer in (("lstm", lstm), ("bi", bi), ("frozen", frozen), ("td", td))
        }
        losses = lstm.losses

        def run(sess):
            sess.run(assigns)
            return info, len(losses), sess.run(losses)

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_initial_values_as_tf():
    """Keras' initializers: LSTM's bias (ones for the forget gate with
    ``unit_forget_bias``, zeros otherwise), GRU's ``[2, 3 units]`` zero bias, and
    glorot-uniform kernels within ``sqrt(6 / (fan_in + fan_out))``."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 5, 4])
        K.layers.LSTM(3)(x)
        K.layers.LSTM(3, unit_forget_bias=False)(x)
        K.layers.GRU(3, reset_after=True)(x)
        variables = [v for v in tf.global_variables() if "recurrent_kernel" not in v.name]

        def run(sess):
            out = {}
            for v, value in zip(variables, sess.run(variables), strict=True):
                if v.name.endswith("bias:0"):
                    out[v.name] = value
                else:
                    out[v.name] = bool(np.abs(value).max() <= np.sqrt(6.0 / sum(value.shape)))
            return out

        return run

    theirs, ours = run_both(script)
    assert sorted(theirs) == sorted(ours)
    for key in theirs:
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


def test_recurrent_kernels_are_orthogonal():
    """The recurrent kernels' initial values have orthonormal rows (``U U^T = I``), in TF
    and in jtrain (Keras' ``orthogonal`` over ``[units, gates * units]``)."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 5, 4])
        for layer in (K.layers.LSTM(3), K.layers.GRU(2), K.layers.SimpleRNN(4)):
            layer(x)
        kernels = [v for v in tf.global_variables() if "recurrent_kernel" in v.name]

        def run(sess):
            return [
                np.round(np.abs(k @ k.T - np.eye(k.shape[0])).max(), 4) for k in sess.run(kernels)
            ]

        return run

    theirs, ours = run_both(script)
    assert theirs == ours == [0.0, 0.0, 0.0]


ERRORS = {
    "lstm rank 2": lambda K, tf, x2, x: K.layers.LSTM(2)(x2),
    "gru rank 4": lambda K, tf, x2, x: K.layers.GRU(2)(tf.expand_dims(x, -1)),
    "rnn rank 2": lambda K, tf, x2, x: K.layers.RNN(K.layers.LSTMCell(2))(x2),
    "bidirectional rank 2": lambda K, tf, x2, x: K.layers.Bidirectional(K.layers.LSTM(2))(x2),
    "time_distributed rank 2": lambda K, tf, x2, x: K.layers.TimeDistributed(K.layers.Dense(2))(x2),
    "unroll unknown steps": lambda K, tf, x2, x: K.layers.LSTM(2, unroll=True)(
        tf.placeholder(tf.float32, [None, None, 3])
    ),
    "unknown depth": lambda K, tf, x2, x: K.layers.LSTM(2)(
        tf.placeholder(tf.float32, [None, 5, None])
    ),
    "initial_state count": lambda K, tf, x2, x: K.layers.LSTM(2)(
        x, initial_state=[tf.zeros([4, 2])]
    ),
    "initial_state count simple": lambda K, tf, x2, x: K.layers.SimpleRNN(2)(
        x, initial_state=[tf.zeros([4, 2]), tf.zeros([4, 2])]
    ),
    "initial_state shape": lambda K, tf, x2, x: K.layers.LSTM(2)(
        x, initial_state=[tf.zeros([4, 3]), tf.zeros([4, 3])]
    ),
    "units 0": lambda K, tf, x2, x: K.layers.LSTM(0),
    "cell units -1": lambda K, tf, x2, x: K.layers.GRUCell(-1),
    "merge mode": lambda K, tf, x2, x: K.layers.Bidirectional(K.layers.LSTM(2), merge_mode="x"),
    "bidirectional not a layer": lambda K, tf, x2, x: K.layers.Bidirectional(3),
    "time_distributed not a layer": lambda K, tf, x2, x: K.layers.TimeDistributed(3),
    "rnn cell without call": lambda K, tf, x2, x: K.layers.RNN(3),
    "stacked cell without call": lambda K, tf, x2, x: K.layers.StackedRNNCells([3]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_tf(case):
    """TF's error classes and messages (up to the printed shapes, which TF's classic
    shapes print as ``Dimension(3)``)."""

    def script(tf):
        x2 = tf.placeholder(tf.float32, [None, 3])
        x = tf.placeholder(tf.float32, [4, 5, 3])
        try:
            ERRORS[case](tf.keras, tf, x2, x)
        except (ValueError, TypeError) as e:
            found = (type(e).__name__, str(e).split("Full shape received")[0].split(": (")[0])
            return lambda sess: found
        return lambda sess: ("no error", "")

    theirs, ours = run_both(script)
    assert theirs[0] != "no error"
    assert ours == theirs


def test_tf_checkpoint_of_a_recurrent_model_restores(tmp_path):
    """A Keras model of an LSTM, a bidirectional GRU and a time-distributed Dense,
    trained one step and saved by TF's ``tf.train.Saver``, restores into the same
    script under jtrain (Keras' variable names), which then computes TF's outputs and
    trains on to TF's numbers (``tf.train.AdamOptimizer``)."""
    from tests.interop.twin import jtf, run_once, tf1

    path = str(tmp_path / "model.ckpt")
    y_value = np.random.RandomState(7).uniform(-1, 1, (3, 5, 2)).astype(np.float32)

    def build(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 5, 4])
        y = tf.placeholder(tf.float32, [None, 5, 2])
        model = K.Sequential(
            [
                K.layers.LSTM(4, return_sequences=True, input_shape=(5, 4)),
                K.layers.Bidirectional(K.layers.GRU(3, return_sequences=True)),
                K.layers.TimeDistributed(K.layers.Dense(2)),
            ]
        )
        out = model(x)
        loss = tf.reduce_mean(tf.square(out - y))
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        return x, y, out, loss, train, tf.train.Saver()

    def steps(tf, x, y, out, loss, train, sess):
        values = []
        for _ in range(3):
            values.append(sess.run([loss, out], {x: X_SEQ, y: y_value}))
            sess.run(train, {x: X_SEQ, y: y_value})
        return sorted(v.name for v in tf.global_variables()), values

    def save(tf):
        x, y, out, loss, train, saver = build(tf)
        assigns = _fixed(tf, tf.trainable_variables())

        def run(sess):
            sess.run(assigns)
            sess.run(train, {x: X_SEQ, y: y_value})
            saver.save(sess, path)
            return steps(tf, x, y, out, loss, train, sess)

        return run

    def restore(tf):
        x, y, out, loss, train, saver = build(tf)

        def run(sess):
            saver.restore(sess, path)
            return steps(tf, x, y, out, loss, train, sess)

        return run

    theirs = run_once(tf1, save, unfused_config())
    ours = run_once(jtf, restore)
    assert_twins(theirs, ours, rtol=1e-4, atol=1e-5)
