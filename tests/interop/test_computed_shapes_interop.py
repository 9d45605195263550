"""Shapes, sizes and axes computed in the graph (``tf.shape(x)[0]``), checked live
against TF 2.21 (``twin.py``): values, dtypes, static shapes and gradients.

jtrain raised ``NotImplementedError`` for every such argument until the op table
took them when the step is traced (``framework/shape_values.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, run_both

X = np.arange(3 * 12, dtype=np.float32).reshape(3, 12) / 7.0
Y = np.arange(3 * 2 * 2 * 4, dtype=np.float32).reshape(3, 2, 2, 4) / 5.0

# name -> (build(tf, x, y), TF's static shape where jtrain's is the same)
CASES = {
    "reshape batch, -1": lambda tf, x, y: tf.reshape(x, [tf.shape(x)[0], -1]),
    "reshape 2*batch": lambda tf, x, y: tf.reshape(x, [tf.shape(x)[0] * 2, -1]),
    "reshape by another's batch": lambda tf, x, y: tf.reshape(y, [tf.shape(x)[0], -1]),
    "reshape to images": lambda tf, x, y: tf.reshape(x, [tf.shape(x)[0], 2, 2, 3]),
    "reshape to shape of": lambda tf, x, y: tf.reshape(tf.ones([3, 12]), tf.shape(x)),
    "zeros of shape": lambda tf, x, y: tf.zeros(tf.shape(x)),
    "zeros batch, 10": lambda tf, x, y: tf.zeros([tf.shape(x)[0], 10]),
    "ones int": lambda tf, x, y: tf.ones([tf.shape(y)[1], 3], tf.int32),
    "fill": lambda tf, x, y: tf.fill([tf.shape(x)[0], 2], 7.0),
    "range": lambda tf, x, y: tf.range(tf.shape(x)[0]),
    "range start, limit": lambda tf, x, y: tf.range(1, tf.shape(x)[1], 2),
    "range of min(batch, 5)": lambda tf, x, y: tf.range(tf.minimum(tf.shape(x)[0], 5)),
    "zeros of batch // 2000": lambda tf, x, y: tf.zeros([tf.shape(x)[0] // 2000 + 1, 2]),
    "tile": lambda tf, x, y: tf.tile(x[:, :2], [1, tf.shape(x)[0]]),
    "slice": lambda tf, x, y: tf.slice(x, [0, 1], [tf.shape(x)[0], 3]),
    "broadcast_to": lambda tf, x, y: tf.broadcast_to(tf.constant([1.0, 2.0]), [tf.shape(x)[0], 2]),
    "one_hot depth": lambda tf, x, y: tf.one_hot([0, 1], tf.shape(x)[0]),
    "reduce axis": lambda tf, x, y: tf.reduce_sum(x, axis=tf.rank(x) - 1),
    "concat axis": lambda tf, x, y: tf.concat([x, x], axis=tf.rank(x) - 1),
    "expand_dims axis": lambda tf, x, y: tf.expand_dims(x, tf.rank(x)),
    "index end": lambda tf, x, y: x[:, : tf.shape(x)[1] // 2],
    "index last row": lambda tf, x, y: x[tf.shape(x)[0] - 1],
    "pad": lambda tf, x, y: tf.pad(x, [[0, 0], [0, tf.shape(x)[0]]]),
    "transpose reversed": lambda tf, x, y: tf.transpose(y, tf.range(tf.rank(y) - 1, -1, -1)),
    "random_uniform like": lambda tf, x, y: tf.shape(tf.random_uniform(tf.shape(x))),
    "concat of a list holding a tensor": lambda tf, x, y: tf.concat(
        [tf.shape(y), [tf.shape(x)[0]]], 0
    ),
    "reshape to a concat": lambda tf, x, y: tf.reshape(
        y, tf.concat([[tf.shape(y)[0]], [-1]], axis=0)
    ),
    "add a list holding a tensor": lambda tf, x, y: tf.add(tf.shape(x), [tf.shape(y)[1], 1]),
}

# Where jtrain's static shape is more precise than TF's: TF's Reshape shape function
# leaves the -1 dimension unknown when another one is; jtrain's abstract evaluation
# (every unknown dimension one size) infers it.
MORE_PRECISE = {
    "reshape batch, -1": ([None, None], [None, 12]),
    "reshape 2*batch": ([None, None], [None, 6]),
    "reshape by another's batch": ([None, None], [None, 16]),
    "reshape to a concat": ([None, None], [None, 16]),
}


def _feeds(tf, x, y):
    return {x: X, y: Y}


@pytest.mark.parametrize("case", list(CASES))
def test_computed_arguments_as_tf(case):
    shapes = {}

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 12])
        y = tf.placeholder(tf.float32, [None, 2, 2, 4])
        out = CASES[case](tf, x, y)
        shapes[tf.__name__] = out.shape.as_list()
        return lambda sess: sess.run(out, _feeds(tf, x, y))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)  # reduce_sum adds in another order: 1 ulp
    tf_shape, jtrain_shape = shapes.values()
    assert (tf_shape, jtrain_shape) == MORE_PRECISE.get(case, (tf_shape, tf_shape))


@pytest.mark.parametrize("case", list(CASES))
def test_computed_arguments_after_a_meta_graph_round_trip_as_tf(case, tmp_path):
    """jtrain's ``.meta`` of the graph, imported into a new graph (the exported
    ``tf.shape`` node feeding the computed argument), runs to TF's value."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 12], name="x")
        y = tf.placeholder(tf.float32, [None, 2, 2, 4], name="y")
        out = tf.identity(CASES[case](tf, x, y), name="out")
        if tf is jtf:
            jtf.train.export_meta_graph(str(tmp_path / "graph.meta"))
        return lambda sess: sess.run(out, _feeds(tf, x, y))

    theirs, _ = run_both(script)
    with jtf.Graph().as_default():
        jtf.train.import_meta_graph(str(tmp_path / "graph.meta"))
        with jtf.Session() as sess:
            ours = sess.run("out:0", {"x:0": X, "y:0": Y})
    assert_twins(theirs, ours)


@pytest.mark.parametrize("shape", [[-1, 10], [-1, 7, 11], [5, -1], [-1, 2, 5], [-1, 1]])
def test_reshape_of_an_unknown_size_into_a_multiple_as_tf(shape):
    """A flat ``[None]`` input reshaped where the size must be a multiple of the known
    dimensions: TF's static shape and values (jtrain raised ValueError at graph
    construction: no size it tried was a multiple of 10)."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None])
        out = tf.reshape(x, shape)
        return lambda sess: (out.shape.as_list(), sess.run(out, {x: np.arange(770.0)}))

    theirs, ours = run_both(script)
    assert theirs[0] == ours[0]
    assert_twins(theirs[1], ours[1], rtol=0)


TIED = {
    # p's last dimension is 1 (squeeze) and x's size is q's two dimensions' product:
    # unknown dimensions tied to one another, which no common trial size fits.
    "squeezed back": lambda tf, p, q, x: tf.reshape(tf.squeeze(p, [-1]), tf.shape(p)),
    "flat into a shape": lambda tf, p, q, x: tf.reshape(
        x, tf.stack([tf.shape(q)[0], tf.shape(q)[1]])
    ),
    "tiled by a shape": lambda tf, p, q, x: tf.tile(tf.reshape(x, [-1, 1]), tf.shape(p)),
}


@pytest.mark.parametrize("case", sorted(TIED))
def test_shapes_of_tied_unknown_dimensions_as_tf(case):
    """jtrain raised NotImplementedError ("cannot infer the output of the arguments
    computed in the graph"): TF's static shape (the rank, dimensions unknown), values
    and gradient."""

    def script(tf):
        p = tf.placeholder(tf.float32, [None, None])
        q = tf.placeholder(tf.float32, [None, None])
        x = tf.placeholder(tf.float32, [None])
        out = TIED[case](tf, p, q, x)
        grads = tf.gradients(tf.reduce_sum(out * out), [p, x])
        feed = {p: np.arange(1.0, 4.0).reshape(3, 1), q: np.zeros((2, 3)), x: np.arange(6.0)}
        if case == "tiled by a shape":
            feed[x] = np.arange(1.0, 4.0)
        return lambda sess: (
            out.shape.as_list(),
            sess.run([out, [g for g in grads if g is not None]], feed),
        )

    theirs, ours = run_both(script)
    assert theirs[0] == ours[0]
    assert_twins(theirs[1], ours[1], rtol=0)


PARTLY_KNOWN = {
    "into the shape of": lambda tf, z, v: tf.reshape(z, tf.shape(v)),
    "a range into the shape of": lambda tf, z, v: (
        tf.cast(tf.reshape(tf.range(tf.size(v)), tf.shape(v)), tf.float32) * tf.reduce_sum(z)
    ),
    "into [batch, 4, -1]": lambda tf, z, v: tf.reshape(z, [tf.shape(v)[0], 4, -1]),
}


@pytest.mark.parametrize("case", sorted(PARTLY_KNOWN))
def test_reshape_of_an_unknown_size_into_a_partly_known_shape_as_tf(case):
    """A ``[None]`` input (or a range of a computed size) reshaped to a shape whose
    value the graph knows in part (``tf.shape`` of a ``[None, 8]``): TF's static shape
    (the known parts), values and gradient (jtrain raised NotImplementedError:
    "cannot infer the output of the arguments computed in the graph")."""

    def script(tf):
        z = tf.placeholder(tf.float32, [None])
        v = tf.placeholder(tf.float32, [None, 8])
        out = PARTLY_KNOWN[case](tf, z, v)
        (grad,) = tf.gradients(tf.reduce_sum(out * out), [z])
        feed = {z: np.arange(16.0) / 8.0, v: np.zeros((2, 8))}
        return lambda sess: (out.shape.as_list(), sess.run([out, grad], feed))

    theirs, ours = run_both(script)
    assert theirs[0] == ours[0]
    assert_twins(theirs[1], ours[1], rtol=0)


def test_fully_known_shapes_give_constants_as_tf():
    """With the input's shape known, ``tf.shape(x)`` is known when the graph is built
    and the output's static shape is exact, in TF and jtrain."""

    def script(tf):
        x = tf.placeholder(tf.float32, [3, 12])
        out = tf.reshape(x, [tf.shape(x)[0] * 4, -1])
        return lambda sess: (out.shape.as_list(), sess.run(out, {x: X}))

    theirs, ours = run_both(script)
    assert theirs[0] == ours[0] == [12, 3]
    assert_twins(theirs[1], ours[1], rtol=0)


def test_gradients_through_computed_shapes_as_tf():
    """A convnet-style flatten with the batch from ``tf.shape`` and a dense layer:
    loss and gradients of every variable as TF's, after two SGD steps."""

    def script(tf):
        images = tf.placeholder(tf.float32, [None, 2, 2, 4])
        kernel = np.linspace(-1, 1, 16 * 3, dtype=np.float32).reshape(16, 3)
        w = tf.get_variable("w", initializer=tf.constant(kernel))
        flat = tf.reshape(images, [tf.shape(images)[0], -1])
        flat.set_shape([None, 16])
        logits = tf.matmul(flat, w)
        mask = tf.ones([tf.shape(logits)[0], 1]) * tf.range(1.0, 4.0)
        loss = tf.reduce_mean(tf.square(logits * mask))
        grads = tf.gradients(loss, [w, images])
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)

        def run(sess):
            first = sess.run([loss, grads], {images: Y})
            sess.run(train, {images: Y})
            sess.run(train, {images: Y[:2]})
            return first, sess.run([loss, w], {images: Y})

        return run

    assert_twins(*run_both(script), rtol=2e-6)


def test_zero_state_of_the_inputs_batch_as_tf():
    """``cell.zero_state(tf.shape(inputs)[0], ...)`` as ``dynamic_rnn``'s initial state:
    outputs, final state and the kernel's gradient as TF's, for two batch sizes."""
    inputs = np.linspace(-1, 1, 3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 4, 5])
        with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.05)):
            cell = tf.nn.rnn_cell.BasicLSTMCell(6)
            state = cell.zero_state(tf.shape(x)[0], tf.float32)
            outputs, final = tf.nn.dynamic_rnn(cell, x, initial_state=state)
        loss = tf.reduce_sum(tf.square(outputs))
        grads = tf.gradients(loss, tf.trainable_variables())

        def run(sess):
            fetch = [outputs, list(final), grads]
            return [sess.run(fetch, {x: batch}) for batch in (inputs, inputs[:2])]

        return run

    assert_twins(*run_both(script), rtol=2e-6)


def test_fed_sizes_as_tf():
    """Sizes from fed placeholders (a batch size, a ``placeholder_with_default``): each
    fed value compiles its own program. jtrain raised NotImplementedError for a
    placeholder, and silently used a fed ``placeholder_with_default``'s default."""

    def script(tf):
        n = tf.placeholder(tf.int32, [])
        d = tf.placeholder_with_default(tf.constant(5), [])
        x = tf.placeholder(tf.float32, [None, 12])
        with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.05)):
            cell = tf.nn.rnn_cell.GRUCell(4)
            state = cell.zero_state(n, tf.float32)
            _, final = tf.nn.dynamic_rnn(cell, tf.reshape(x, [n, -1, 3]), initial_state=state)
        fetches = [
            tf.ones([n, 3]),
            tf.shape(tf.zeros(tf.stack([d, 3]))),
            tf.shape(tf.random_uniform([d, 2])),
            x[:n],
            tf.range(n * 2),
            tf.range(tf.maximum(n, 4)),
            final,
        ]

        def run(sess):
            return [
                sess.run(fetches, {n: 3, x: X}),
                sess.run(fetches[:2], {n: 1, d: 7}),
                sess.run(fetches, {n: 3, d: 2, x: X}),
            ]

        return run

    assert_twins(*run_both(script), rtol=2e-6)


def test_fed_sizes_after_a_meta_graph_round_trip_as_tf(tmp_path):
    """Sizes from a fed placeholder in jtrain's ``.meta``, imported into a new graph:
    the placeholder is a shape feed there too (each fed value its own program)."""

    def script(tf):
        n = tf.placeholder(tf.int32, [], name="n")
        x = tf.placeholder(tf.float32, [None, 12], name="x")
        out = [tf.identity(tf.ones([n, 3]) * 2.0, name="doubled"), tf.identity(x[:n], name="rows")]
        if tf is jtf:
            jtf.train.export_meta_graph(str(tmp_path / "graph.meta"))
        return lambda sess: [sess.run(out, {n: k, x: X}) for k in (2, 1, 2)]

    theirs, _ = run_both(script)
    with jtf.Graph().as_default():
        jtf.train.import_meta_graph(str(tmp_path / "graph.meta"))
        with jtf.Session() as sess:
            ours = [sess.run(["doubled:0", "rows:0"], {"n:0": k, "x:0": X}) for k in (2, 1, 2)]
    assert_twins(theirs, ours, rtol=0)


INDEXED = {
    "x[i]": lambda x, i: x[i],
    "x[:, i]": lambda x, i: x[:, i],
    "x[i, 1]": lambda x, i: x[i, 1],
    "x[1:, i, :]": lambda x, i: x[1:, i, :],
    "x[i, :, i]": lambda x, i: x[i, :, i],
}


@pytest.mark.parametrize("case", list(INDEXED))
def test_indices_computed_in_the_step_as_tf(case):
    """``x[i]`` with ``i`` fed or computed (a loop counter): TF's values, its gradient to
    a variable (dense, as TF's StridedSlice), TF's error for an index out of range.
    jtrain raised NotImplementedError."""
    from jtrain import errors

    def script(tf):
        x = tf.Variable(np.arange(24.0, dtype=np.float32).reshape(4, 3, 2))
        i = tf.placeholder(tf.int32, [])
        out = INDEXED[case](x, i)
        (grad,) = tf.gradients(tf.reduce_sum(out * out), [x])

        def run(sess):
            values = [sess.run([out, grad], {i: k}) for k in (1, -1, 0)]
            messages = []
            for k in (4, -5):
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(out, {i: k})
                text = str(info.value)
                messages.append([line for line in text.splitlines() if "out of bounds" in line])
            return values, messages

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs[0], ours[0], rtol=0)
    assert [m[:1] for m in ours[1]] == [m[:1] for m in theirs[1]]
    assert errors.InvalidArgumentError is not None


def test_rows_indexed_by_a_loop_counter_as_tf():
    """A ``tf.while_loop`` summing ``x[i]`` row by row, and its gradient (jtrain
    differentiates loops with ``maximum_iterations``)."""

    def script(tf):
        x = tf.Variable(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        _, total = tf.while_loop(
            lambda i, acc: i < 4,
            lambda i, acc: (i + 1, acc + x[i] * x[i]),
            (0, tf.zeros([3])),
            maximum_iterations=4,
        )
        (grad,) = tf.gradients(tf.reduce_sum(total), [x])
        return lambda sess: sess.run([total, grad])

    assert_twins(*run_both(script), rtol=1e-6)


def test_random_ops_static_shapes_as_tf():
    """A random op's static shape from a shape computed in the graph: constants
    concatenated, a slice of ``tf.shape(x)`` with a constant (TF's partial shape
    inference); jtrain gave ``(?, ?)`` for both."""

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        shapes = [
            tf.concat([[2], tf.constant([1])], 0),
            tf.concat([tf.shape(x)[1:], [2]], 0),
            tf.shape(x),
            [tf.shape(x)[0], 4],
        ]
        outs = [
            op(shape)
            for shape in shapes
            for op in (tf.random_uniform, tf.random_normal, tf.truncated_normal)
        ]
        static = [o.shape.as_list() for o in outs]
        return lambda sess: static

    theirs, ours = run_both(script)
    assert ours == theirs
