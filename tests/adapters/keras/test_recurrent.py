"""``tf.keras`` recurrent layers in a TF1 graph: behaviour that needs no TF (the loop
is one node, masking and direction, dropout while training, what jtrain refuses,
training with ``tf.train``). Values, gradients, names and TF's errors are checked
live in tests/interop/test_keras_recurrent_interop.py."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

K = tf.keras
L = K.layers

X = np.random.RandomState(0).uniform(-1, 1, (3, 6, 4)).astype(np.float32)


def _run(fetches, feed=None, training=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = dict(feed or {})
        if training is not None:
            feed[K.backend.learning_phase()] = training
        return sess.run(fetches, feed)


LAYER_CLASSES = {
    "lstm": lambda **kw: L.LSTM(3, **kw),
    "gru": lambda **kw: L.GRU(3, **kw),
    "gru reset_after": lambda **kw: L.GRU(3, reset_after=True, **kw),
    "simple_rnn": lambda **kw: L.SimpleRNN(3, **kw),
    "rnn stacked": lambda **kw: L.RNN([L.LSTMCell(2), L.SimpleRNNCell(3)], **kw),
}


@pytest.mark.parametrize("name", sorted(LAYER_CLASSES))
def test_the_time_loop_is_one_node(graph, name):
    """The whole sequence runs in one loop node (one ``lax.scan`` in the compiled step),
    whatever the number of steps."""
    x = tf.placeholder(tf.float32, [None, 6, 4])
    out = LAYER_CLASSES[name](return_sequences=True)(x)
    loops = [op for op in graph.get_operations() if op.type == "Exit"]
    assert len(loops) == 1
    assert out.shape.as_list() == [None, 6, 3]
    assert _run(out, {x: X}).shape == (3, 6, 3)


@pytest.mark.parametrize("name", sorted(LAYER_CLASSES))
def test_go_backwards_reads_the_reversed_sequence(graph, name):
    """``go_backwards`` equals the forward layer on the reversed input (the same
    weights), its sequence output left in the reversed order."""
    x = tf.placeholder(tf.float32, [None, 6, 4])
    forward = LAYER_CLASSES[name](return_sequences=True, return_state=True)
    backward = LAYER_CLASSES[name](return_sequences=True, return_state=True, go_backwards=True)
    fw = forward(tf.reverse(x, [1]))
    bw = backward(x)
    copy = [tf.assign(b, f) for f, b in zip(forward.weights, backward.weights, strict=True)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(copy)
        ours, theirs = sess.run([bw, fw], {x: X})
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_mask_carries_states_and_outputs_through(graph):
    """At masked steps the state is carried through and the output is the previous one
    (zeros when ``zero_output_for_mask``); fully masked rows keep the initial state."""
    x = tf.placeholder(tf.float32, [None, 6, 4])
    m = tf.placeholder(tf.bool, [None, 6])
    mask = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0]], bool)
    layer = L.LSTM(3, return_sequences=True, return_state=True)
    seq, h, c = layer(x, mask=m)
    zeroed = L.GRU(2, return_sequences=True, zero_output_for_mask=True)(x, mask=m)
    seq, h, c, zeroed = _run([seq, h, c, zeroed], {x: X, m: mask})
    np.testing.assert_array_equal(seq[1, 2], seq[1, 1])
    np.testing.assert_array_equal(seq[1, 3], seq[1, 1])
    np.testing.assert_array_equal(seq[1, 5], seq[1, 4])
    assert not np.allclose(seq[1, 4], seq[1, 1])
    np.testing.assert_array_equal(h[1], seq[1, 4])
    np.testing.assert_array_equal(seq[2], 0.0)
    np.testing.assert_array_equal(h[2], 0.0)
    np.testing.assert_array_equal(c[2], 0.0)
    np.testing.assert_array_equal(zeroed[1, 2:4], 0.0)
    assert np.all(zeroed[0] != 0.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.LSTM(3, dropout=0.5, return_sequences=True),
        lambda: L.LSTM(3, recurrent_dropout=0.5, return_sequences=True),
        lambda: L.GRU(3, dropout=0.5, recurrent_dropout=0.5, return_sequences=True),
        lambda: L.SimpleRNN(3, dropout=0.5, return_sequences=True),
        lambda: L.LSTM(3, dropout=0.4, implementation=2, return_sequences=True),
    ],
)
def test_dropout_applies_while_training_only(graph, make):
    """With the learning phase True the outputs differ from inference's (and between
    runs: new masks each run); with it False (the default) they equal the same layer
    without dropout."""
    x = tf.placeholder(tf.float32, [None, 6, 4])
    layer = make()
    out = layer(x)
    plain_layer = type(layer)(3, return_sequences=True)
    plain = plain_layer(x)
    copy = [tf.assign(p, w) for w, p in zip(layer.weights, plain_layer.weights, strict=True)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(copy)
        lp = K.backend.learning_phase()
        inference, reference = sess.run([out, plain], {x: X})
        first = sess.run(out, {x: X, lp: True})
        second = sess.run(out, {x: X, lp: True})
    np.testing.assert_allclose(inference, reference, rtol=1e-6, atol=1e-7)
    assert first.shape == inference.shape == (3, 6, 3)
    assert not np.allclose(first, inference)
    assert not np.allclose(first, second)


def test_dropout_masks_are_drawn_once_per_run(graph):
    """One input mask for every step (Keras' masks are drawn before the loop): a
    linear SimpleRNN on a constant sequence with dropped inputs sees the same dropped
    features at each step."""
    x = tf.placeholder(tf.float32, [None, 6, 4])
    layer = L.SimpleRNN(
        4,
        activation=None,
        dropout=0.5,
        use_bias=False,
        kernel_initializer="identity",
        recurrent_initializer="zeros",
        return_sequences=True,
    )
    out = _run(layer(x, training=True), {x: np.ones((3, 6, 4), np.float32)})
    assert np.all(out == out[:, :1])
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert 0 < np.count_nonzero(out) < out.size


def test_a_stacked_lstm_trains_with_tf_train(graph):
    """Gradients reach every variable through the loop; an optimizer lowers the loss."""
    x = tf.placeholder(tf.float32, [None, 6, 4])
    y = tf.placeholder(tf.float32, [None, 2])
    model = K.Sequential(
        [
            L.LSTM(8, return_sequences=True, input_shape=(6, 4)),
            L.Bidirectional(L.GRU(4)),
            L.Dense(2),
        ]
    )
    loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tf.gradients(loss, model.trainable_weights)
    assert len(model.trainable_weights) == 3 + 6 + 2
    assert all(g is not None for g in grads)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    target = np.stack([X.sum(axis=(1, 2)), X[:, -1].mean(axis=1)], axis=1) * 0.1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(loss, {x: X, y: target})
        for _ in range(30):
            sess.run(train, {x: X, y: target})
        after = sess.run(loss, {x: X, y: target})
    assert after < 0.2 * before


def test_variables_names_and_weights(graph):
    """Keras' names (the cell's scope under the layer's), ``weights`` in build order,
    a frozen layer's weights non-trainable, the bias with the forget gate's ones."""
    x = tf.placeholder(tf.float32, [None, 6, 4])
    lstm = L.LSTM(3)
    lstm(x)
    frozen = L.GRU(2, trainable=False)
    frozen(x)
    assert [w.name for w in lstm.weights] == [
        "lstm/lstm_cell/kernel:0",
        "lstm/lstm_cell/recurrent_kernel:0",
        "lstm/lstm_cell/bias:0",
    ]
    assert [w.shape.as_list() for w in lstm.weights] == [[4, 12], [3, 12], [12]]
    assert frozen.trainable_weights == [] and len(frozen.non_trainable_weights) == 3
    assert lstm.count_params() == 4 * 12 + 3 * 12 + 12
    bias = lstm.get_weights()[2]
    np.testing.assert_array_equal(bias, np.repeat([0.0, 1.0, 0.0, 0.0], 3))
    assert lstm.units == 3 and lstm.implementation == 1
    assert lstm.recurrent_activation is K.activations.hard_sigmoid
    assert frozen.reset_after is False


def test_initial_state_as_a_list_input_and_keyword(graph):
    """``layer([x, *states])`` and ``layer(x, initial_state=states)`` agree; states of
    another width raise TF's ValueError."""
    x = tf.placeholder(tf.float32, [None, 6, 4])
    h = tf.constant(np.full((3, 2), 0.5, np.float32))
    layer = L.LSTM(2, return_state=True)
    a = layer([x, h, -h])
    b = layer(x, initial_state=[h, -h])
    zero = layer(x)
    a, b, zero = _run([a, b, zero], {x: X})
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.allclose(a[0], zero[0])
    with pytest.raises(ValueError, match="not compatible with `cell.state_size`"):
        layer(x, initial_state=[h])


def test_time_distributed_with_unknown_steps(graph):
    """``TimeDistributed`` folds an unknown time axis through the input's shape."""
    x = tf.placeholder(tf.float32, [None, None, 4])
    out = L.TimeDistributed(L.Dense(2))(x)
    assert out.shape.as_list() == [None, None, 2]
    assert _run(out, {x: X}).shape == (3, 6, 2)


def test_unsupported_arguments_raise(graph):
    """What jtrain refuses raises NotImplementedError naming it."""
    x = tf.placeholder(tf.float32, [3, 6, 4])
    with pytest.raises(NotImplementedError, match="stateful=True"):
        L.LSTM(2, stateful=True)
    with pytest.raises(NotImplementedError, match="constants"):
        L.RNN(L.SimpleRNNCell(2))(x, constants=[x[:, 0]])
    with pytest.raises(NotImplementedError, match="weights"):
        L.Bidirectional(L.LSTM(2), weights=[np.zeros(1)])
    with pytest.raises(NotImplementedError, match="reverse_state_order"):
        L.StackedRNNCells([L.LSTMCell(2)], reverse_state_order=True)
    with pytest.raises(NotImplementedError, match="backward_layer"):
        L.Bidirectional(L.Dense(2))
