"""``tf.keras`` in a TF1 graph (layers on placeholders, ``tf.train`` optimizers, a
``Session``), checked live against TF 2.21's legacy Keras (``tf.compat.v1.keras``
with ``TF_USE_LEGACY_KERAS=1``, classic TF1 graphs: ``twin.py``).

Random initial values come from other random streams in jtrain, so each script
assigns the same fixed values to the trainable variables before training; the
initializers' distributions are compared separately (bounds and moments).
Compared: variable names, shapes, dtypes and collections, ``layer.weights``,
``updates`` and ``losses``, output names and static shapes, outputs, losses and
gradients at each of three ``GradientDescentOptimizer`` steps, batch
normalization's moving statistics, and TF's errors. Each test failed before
``adapters.v1.keras`` existed (``tf.keras`` raised AttributeError).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RTOL, ATOL = 2e-5, 2e-6


def _fixed(tf, variables):
    """Assign ops giving each variable a fixed value drawn from its index and shape."""
    ops = []
    for i, v in enumerate(variables):
        shape = v.shape.as_list()
        value = np.random.RandomState(i).uniform(-0.5, 0.5, shape).astype(np.float32)
        ops.append(tf.assign(v, value) if hasattr(tf, "assign") else v.assign(value))
    return ops


def _names(xs):
    return [x.name for x in xs]


def _structure(tf, tensors):
    """Names of the graph's collections and the given tensors' names and static shapes."""
    g = tf.get_default_graph()
    return {
        "global": _names(tf.global_variables()),
        "trainable": _names(tf.trainable_variables()),
        "shapes": [str(v.shape.as_list()) for v in tf.global_variables()],
        "dtypes": [v.dtype.base_dtype.name for v in tf.global_variables()],
        "update_ops": len(g.get_collection(tf.GraphKeys.UPDATE_OPS)),
        "regularization": len(g.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)),
        "local": _names(tf.local_variables()),
        "tensors": [(t.name, str(t.shape.as_list()), t.dtype.name) for t in tensors],
    }


X_IMG = np.random.RandomState(0).uniform(-1, 1, (4, 6, 6, 2)).astype(np.float32)
Y_IMG = np.array([0, 2, 1, 3], np.int32)


def test_convnet_trains_as_tf():
    """Conv2D + BatchNormalization(training=True) + pooling + Flatten + Dense, a sparse
    cross-entropy class loss, three SGD steps running ``bn.updates``."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 6, 6, 2])
        y = tf.placeholder(tf.int32, [None])
        conv = K.layers.Conv2D(3, 3, padding="same", activation="relu")
        bn = K.layers.BatchNormalization()
        h = bn(conv(x), training=True)
        h = K.layers.MaxPooling2D()(h)
        h = K.layers.Flatten()(h)
        dense = K.layers.Dense(4)
        logits = dense(h)
        loss = K.losses.SparseCategoricalCrossentropy(from_logits=True)(y, logits)
        variables = tf.trainable_variables()
        assigns = _fixed(tf, variables)
        grads = tf.gradients(loss, variables)
        with tf.control_dependencies(bn.updates):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        info = _structure(tf, [h, logits, loss])
        info["layers"] = [_names(conv.weights), _names(bn.weights), _names(dense.weights)]
        info["bn"] = [_names(bn.trainable_weights), _names(bn.non_trainable_weights),
                      len(bn.updates), [u.type for u in bn.updates]]  # fmt: skip
        info["losses"] = len(dense.losses)

        def run(sess):
            sess.run(assigns)
            steps = []
            for _ in range(3):
                steps.append(sess.run([loss, logits, grads], {x: X_IMG, y: Y_IMG}))
                sess.run(train, {x: X_IMG, y: Y_IMG})
            return info, steps, sess.run(bn.weights)

        return run

    theirs, ours = run_both(script)
    assert theirs[0]["bn"][3] == ["AssignSubVariableOp", "AssignSubVariableOp"]
    theirs[0]["bn"][3] = ours[0]["bn"][3]  # TF's op type of a resource assign_sub
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


X_MLP = np.random.RandomState(1).uniform(-1, 1, (5, 4)).astype(np.float32)
Y_MLP = np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0]]


def test_functional_mlp_trains_as_tf():
    """``Input`` + Dense(relu, l2 regularizer) + Dropout + Dense(softmax) as a functional
    ``Model`` called on a placeholder; categorical cross-entropy on the probabilities
    (TF reads the logits behind the Softmax op) plus ``model.losses``."""

    def script(tf):
        K = tf.keras
        inp = K.Input(shape=(4,))
        h = K.layers.Dense(6, activation="relu", kernel_regularizer=K.regularizers.l2(0.01))(inp)
        h = K.layers.Dropout(0.5)(h)
        out = K.layers.Dense(3, activation="softmax")(h)
        model = K.Model(inp, out)
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.float32, [None, 3])
        probs = model(x)
        reg = model.losses
        loss = tf.reduce_mean(K.losses.categorical_crossentropy(y, probs)) + tf.add_n(reg)
        variables = tf.trainable_variables()
        assigns = _fixed(tf, variables)
        grads = tf.gradients(loss, variables)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        info = _structure(tf, [inp, out, probs, *reg, loss])
        info["model"] = [model.name, _names(model.weights), _names(model.trainable_weights),
                         [layer.name for layer in model.layers], len(model.updates)]  # fmt: skip
        info["outputs"] = [t.name for t in model.outputs] + [t.name for t in model.inputs]

        def run(sess):
            sess.run(assigns)
            steps = []
            for _ in range(3):
                steps.append(sess.run([loss, probs, grads], {x: X_MLP, y: Y_MLP}))
                sess.run(train, {x: X_MLP, y: Y_MLP})
            return info, steps

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_sequential_trains_as_tf():
    """A ``Sequential`` first called on a tensor (variables under ``sequential/``), one
    built from ``input_shape`` (variables at the root, a ``dense_2_input`` placeholder),
    mean squared error, three SGD steps."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.float32, [None, 3])
        first = K.Sequential([K.layers.Dense(5, activation="tanh"), K.layers.Dense(3)])
        built = K.Sequential()
        built.add(K.layers.Dense(3, input_shape=(4,), activation="sigmoid"))
        built.add(K.layers.Dense(3))
        from_input = K.Sequential([K.Input(shape=(4,)), K.layers.Dense(3)])
        out = first(x) + built(x) + from_input(x)
        loss = K.losses.MeanSquaredError()(y, out)
        variables = tf.trainable_variables()
        assigns = _fixed(tf, variables)
        grads = tf.gradients(loss, variables)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        info = _structure(tf, [out, loss, *built.inputs, *built.outputs, *from_input.inputs])
        info["models"] = [first.name, built.name, _names(first.weights), _names(built.weights),
                          [layer.name for layer in from_input.layers]]  # fmt: skip

        def run(sess):
            sess.run(assigns)
            steps = []
            for _ in range(3):
                steps.append(sess.run([loss, out, grads], {x: X_MLP, y: Y_MLP}))
                sess.run(train, {x: X_MLP, y: Y_MLP})
            return info, steps

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("fused", [None, False])
def test_batch_normalization_follows_the_learning_phase(fused):
    """``training`` not given: the ``keras_learning_phase`` placeholder (default False)
    decides; ``bn.updates`` move the statistics only when it is fed True."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 6, 6, 2])
        bn = K.layers.BatchNormalization(momentum=0.9, fused=fused)
        out = bn(x)
        phase = K.backend.learning_phase()
        info = _structure(tf, [out, phase])
        info["updates"] = len(bn.updates)

        def run(sess):
            results = []
            for feed in ({x: X_IMG}, {x: X_IMG, phase: True}, {x: X_IMG, phase: False}):
                results.append(sess.run(out, feed))
                sess.run(bn.updates, feed)
                results.append(sess.run(bn.non_trainable_weights))
            return info, results

        return run

    theirs, ours = run_both(script)
    theirs[0]["tensors"][0] = ours[0]["tensors"][0]  # TF's cond/Merge vs a select
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


X_SEQ = np.random.RandomState(2).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
IDS = np.array([[1, 0, 3], [2, 2, 4]], np.int32)

# name -> build(K, tf, images, sequences, ids) -> output tensor
LAYERS = {
    "conv1d": lambda K, tf, im, sq, ids: K.layers.Conv1D(2, 2, activation="tanh")(sq),
    "conv1d causal": lambda K, tf, im, sq, ids: K.layers.Conv1D(2, 3, padding="causal")(sq),
    "conv2d strided": lambda K, tf, im, sq, ids: K.layers.Convolution2D(2, 3, strides=2)(im),
    "conv2d_transpose": lambda K, tf, im, sq, ids: K.layers.Conv2DTranspose(
        2, 3, strides=2, padding="same"
    )(im),
    "max_pool1d": lambda K, tf, im, sq, ids: K.layers.MaxPooling1D()(sq),
    "avg_pool1d": lambda K, tf, im, sq, ids: K.layers.AveragePooling1D(3, 1)(sq),
    "avg_pool2d same": lambda K, tf, im, sq, ids: K.layers.AveragePooling2D(3, 2, padding="same")(
        im
    ),
    "max_pool2d alias": lambda K, tf, im, sq, ids: K.layers.MaxPool2D((3, 3))(im),
    "global_avg": lambda K, tf, im, sq, ids: K.layers.GlobalAveragePooling2D()(im),
    "global_max": lambda K, tf, im, sq, ids: K.layers.GlobalMaxPooling2D()(im),
    "embedding": lambda K, tf, im, sq, ids: K.layers.Embedding(6, 3)(ids),
    "activation": lambda K, tf, im, sq, ids: K.layers.Activation("softplus")(sq),
    "reshape": lambda K, tf, im, sq, ids: K.layers.Reshape((3, -1))(sq),
    "concatenate": lambda K, tf, im, sq, ids: K.layers.Concatenate(axis=1)([sq, sq * 2.0]),
    "add": lambda K, tf, im, sq, ids: K.layers.Add()([sq, sq * 2.0, sq]),
    "multiply": lambda K, tf, im, sq, ids: K.layers.Multiply()([sq, sq + 1.0]),
    "lambda": lambda K, tf, im, sq, ids: K.layers.Lambda(lambda t: tf.square(t) * 3.0)(sq),
    "leaky_relu": lambda K, tf, im, sq, ids: K.layers.LeakyReLU()(sq),
    "relu max": lambda K, tf, im, sq, ids: K.layers.ReLU(max_value=0.5)(sq),
    "softmax": lambda K, tf, im, sq, ids: K.layers.Softmax()(sq),
    "zero_padding": lambda K, tf, im, sq, ids: K.layers.ZeroPadding2D(((1, 0), (2, 1)))(im),
    "upsampling": lambda K, tf, im, sq, ids: K.layers.UpSampling2D((2, 3))(im),
    "flatten": lambda K, tf, im, sq, ids: K.layers.Flatten()(im),
    "dense rank 3": lambda K, tf, im, sq, ids: K.layers.Dense(2)(sq),
    "batch_norm rank 3 training": lambda K, tf, im, sq, ids: K.layers.BatchNormalization()(
        sq, training=True
    ),
    "subtract": lambda K, tf, im, sq, ids: K.layers.Subtract()([sq, sq * sq]),
    "average": lambda K, tf, im, sq, ids: K.layers.Average()([sq, sq * 2.0, sq * sq]),
    "maximum": lambda K, tf, im, sq, ids: K.layers.Maximum()([sq, -sq, sq * 0.5]),
    "minimum": lambda K, tf, im, sq, ids: K.layers.Minimum()([sq, -sq]),
    "repeat_vector": lambda K, tf, im, sq, ids: K.layers.RepeatVector(4)(sq[:, 0]),
    "permute": lambda K, tf, im, sq, ids: K.layers.Permute((2, 1))(sq),
    "global_avg1d": lambda K, tf, im, sq, ids: K.layers.GlobalAveragePooling1D()(sq),
    "global_max1d keepdims": lambda K, tf, im, sq, ids: K.layers.GlobalMaxPool1D(keepdims=True)(sq),
    "elu alpha": lambda K, tf, im, sq, ids: K.layers.ELU(0.5)(sq),
    "thresholded_relu": lambda K, tf, im, sq, ids: K.layers.ThresholdedReLU(0.2)(sq),
    "prelu shared": lambda K, tf, im, sq, ids: K.layers.PReLU(
        alpha_initializer=tf.constant_initializer(0.25), shared_axes=[1]
    )(sq),
    "layer_norm": lambda K, tf, im, sq, ids: K.layers.LayerNormalization()(sq),
    "layer_norm two axes": lambda K, tf, im, sq, ids: K.layers.LayerNormalization(axis=[1, 2])(sq),
    "layer_norm unfused": lambda K, tf, im, sq, ids: K.layers.LayerNormalization(
        axis=1, epsilon=1e-6
    )(sq),
    "layer_norm images": lambda K, tf, im, sq, ids: K.layers.LayerNormalization()(im),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_outputs_and_gradients(name):
    """Each layer's output (value, dtype, static shape, name), its gradient with respect to
    the input and its variables, on fixed weights."""

    def script(tf):
        im = tf.placeholder(tf.float32, [None, 6, 6, 2])
        sq = tf.placeholder(tf.float32, [None, 5, 3])
        ids = tf.placeholder(tf.int32, [None, 3])
        out = LAYERS[name](tf.keras, tf, im, sq, ids)
        variables = tf.trainable_variables()
        assigns = _fixed(tf, variables)
        targets = [im, sq]
        grads = tf.gradients(tf.reduce_sum(out * out), [*targets, *variables])
        info = {"out": [str(out.shape.as_list()), out.dtype.name], "vars": _names(variables)}

        def run(sess):
            sess.run(assigns)
            feed = {im: X_IMG, sq: X_SEQ, ids: IDS}
            dense = [tf.convert_to_tensor(g) for g in grads if g is not None]
            return info, sess.run([out, dense], feed)

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_names_collections_and_dtypes():
    """Layer names (zero-based, shared with ``tf.layers``'s counter), variable names from
    the name scope the first call opens, frozen layers' variables still in
    ``TRAINABLE_VARIABLES``, float64 inputs cast to float32, nothing in ``UPDATE_OPS``
    or ``REGULARIZATION_LOSSES``."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 4])
        tf.layers.Dense(3)(x)
        shared = K.layers.Dense(3, kernel_regularizer="l2", bias_regularizer=K.regularizers.l1())
        with tf.variable_scope("net"):
            a = shared(x)
        b = shared(x)
        with tf.name_scope("ns"):
            c = K.layers.Dense(2)(x)
        tf.identity(x, name="dense_4")
        d = K.layers.Dense(2)(x)
        e = K.layers.Dense(2, name="foo")(x)
        f = K.layers.Dense(2, name="foo")(x)
        frozen = K.layers.Dense(2, trainable=False)
        g = frozen(x)
        h = K.layers.Dense(2)(tf.placeholder(tf.float64, [None, 4]))
        bn = K.layers.BatchNormalization(gamma_regularizer=K.regularizers.l1_l2(0.1, 0.2))
        i = bn(x, training=True)
        names = [
            K.layers.Dense(2).name,
            K.layers.Conv2D(2, 1).name,
            K.layers.MaxPooling2D().name,
            K.layers.MaxPool2D().name,
            K.layers.GlobalAveragePooling2D().name,
            K.layers.LeakyReLU().name,
            K.layers.ReLU().name,
            K.layers.Conv2DTranspose(1, 1).name,
            K.layers.UpSampling2D().name,
            K.layers.ZeroPadding2D().name,
            K.layers.Embedding(3, 2).name,
            K.layers.Softmax().name,
            K.layers.InputLayer(input_shape=(3,)).name,
            K.Input(shape=(2,)).name,
        ]
        losses = shared.losses + bn.losses
        # i's name is tf.nn.batch_normalization's (TF: batchnorm/add_1), not Keras'
        info = _structure(tf, [a, b, c, d, e, f, g, h, *losses])
        info["bn_out"] = [str(i.shape.as_list()), i.dtype.name]
        info["names"] = names
        info["frozen"] = [_names(frozen.trainable_weights), _names(frozen.weights)]
        info["bn"] = [len(bn.updates), _names(bn.non_trainable_weights)]
        assigns = _fixed(tf, shared.weights + bn.trainable_weights)

        def run(sess):
            sess.run(assigns)
            return info, sess.run(losses)

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_initializers_distributions():
    """Default initializers: Glorot uniform kernels inside TF's bounds with its variance,
    zero biases, Embedding's uniform(-0.05, 0.05), BatchNormalization's ones/zeros;
    named initializers (``he_normal``, ``RandomNormal``) by their moments."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 200])
        K.layers.Dense(300)(x)
        K.layers.Embedding(400, 300)(tf.placeholder(tf.int32, [None]))
        K.layers.Dense(300, kernel_initializer="he_normal")(x)
        K.layers.Dense(300, kernel_initializer=K.initializers.RandomNormal())(x)
        K.layers.BatchNormalization()(x)

        def run(sess):
            values = sess.run(tf.global_variables())
            stats = []
            for v in values:
                stats.append([np.round(v.min(), 2), np.round(v.max(), 2), np.round(v.mean(), 2),
                              np.round(v.std(), 2)])  # fmt: skip
            return _names(tf.global_variables()), np.array(stats, np.float32)

        return run

    theirs, ours = run_both(script)
    assert theirs[0] == ours[0]
    # min/max of the bounded distributions, means and standard deviations to 0.01 (the
    # extremes of RandomNormal's 60000 samples, row 5, are left out: they are not bounded)
    ours[1][5, :2] = theirs[1][5, :2]
    np.testing.assert_allclose(ours[1], theirs[1], atol=0.015)


@pytest.mark.parametrize(
    "case",
    ["dense unknown last dim", "dense rank 1", "conv rank 3", "pool rank 3", "dense width"],
)
def test_errors_as_tf(case):
    """TF's ValueErrors for a wrong input rank, an unknown last dimension of Dense's
    input, and an input width that differs from the built layer's."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 4])
        built = K.layers.Dense(2, name="built")
        built(x)
        bad = {
            "dense unknown last dim": lambda: K.layers.Dense(2)(
                tf.placeholder(tf.float32, [None, None])
            ),
            "dense rank 1": lambda: K.layers.Dense(2, name="d1")(tf.placeholder(tf.float32, [3])),
            "conv rank 3": lambda: K.layers.Conv2D(2, 3, name="c3")(
                tf.placeholder(tf.float32, [None, 4, 4])
            ),
            "pool rank 3": lambda: K.layers.MaxPooling2D(name="p3")(
                tf.placeholder(tf.float32, [None, 4, 4])
            ),
            "dense width": lambda: built(tf.placeholder(tf.float32, [None, 5])),
        }[case]
        try:
            bad()
        except ValueError as e:
            # TF's classic shapes print as (Dimension(3),): compare up to the shape text
            message = str(e).split("Full shape received")[0].split("but received input")[0]
            return lambda sess: ("ValueError", message)
        return lambda sess: ("no error", "")

    theirs, ours = run_both(script)
    assert theirs[0] == "ValueError"
    assert ours == theirs


NEW_LAYER_ERRORS = {
    "subtract of three": lambda K, tf, sq: K.layers.Subtract()([sq, sq, sq]),
    "permute not from 1": lambda K, tf, sq: K.layers.Permute((1, 3)),
    "elu alpha None": lambda K, tf, sq: K.layers.ELU(None),
    "thresholded negative": lambda K, tf, sq: K.layers.ThresholdedReLU(-1.0),
    "thresholded None": lambda K, tf, sq: K.layers.ThresholdedReLU(None),
    "layer_norm axis out of range": lambda K, tf, sq: K.layers.LayerNormalization(axis=3)(sq),
    "layer_norm axis twice": lambda K, tf, sq: K.layers.LayerNormalization(axis=[1, -2])(sq),
    "layer_norm axis a string": lambda K, tf, sq: K.layers.LayerNormalization(axis="x"),
    "repeat_vector rank 3": lambda K, tf, sq: K.layers.RepeatVector(2)(sq),
    "global_avg1d rank 2": lambda K, tf, sq: K.layers.GlobalAveragePooling1D()(sq[:, 0]),
}


@pytest.mark.parametrize("case", sorted(NEW_LAYER_ERRORS))
def test_merge_shape_and_normalization_layer_errors_as_tf(case):
    """TF's error classes and messages of Subtract, Permute, ELU, ThresholdedReLU,
    LayerNormalization, RepeatVector and GlobalAveragePooling1D (up to the printed
    shape, which TF's classic shapes print as ``Dimension(3)``)."""

    def script(tf):
        sq = tf.placeholder(tf.float32, [None, 5, 3])
        try:
            NEW_LAYER_ERRORS[case](tf.keras, tf, sq)
        except (ValueError, TypeError) as e:
            outcome = (type(e).__name__, str(e).split("Full shape received")[0])
            return lambda sess: outcome
        return lambda sess: ("no error", "")

    theirs, ours = run_both(script)
    assert theirs[0] != "no error"
    assert ours == theirs


Y_TRUE = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]], np.float32)
Y_PRED = np.array([[0.2, 0.7, 0.1], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1], [0.3, 0.3, 0.4]], np.float32)
WEIGHTS = np.array([1.0, 0.5, 0.0, 2.0], np.float32)

LOSSES = {
    "mse": lambda K, t, p, w: K.losses.mean_squared_error(t, p),
    "mae": lambda K, t, p, w: K.losses.mae(t, p),
    "cce": lambda K, t, p, w: K.losses.categorical_crossentropy(t, p),
    "cce logits smoothing": lambda K, t, p, w: K.losses.categorical_crossentropy(
        t, p, from_logits=True, label_smoothing=0.1
    ),
    "bce": lambda K, t, p, w: K.losses.binary_crossentropy(t, p),
    "bce logits": lambda K, t, p, w: K.losses.binary_crossentropy(t, p, from_logits=True),
    "scce": lambda K, t, p, w: K.losses.sparse_categorical_crossentropy([1, 2, 0, 1], p),
    "MSE class weighted": lambda K, t, p, w: K.losses.MeanSquaredError()(t, p, w),
    "MAE class sum": lambda K, t, p, w: K.losses.MeanAbsoluteError(reduction="sum")(t, p, w),
    "CCE class none": lambda K, t, p, w: K.losses.CategoricalCrossentropy(reduction="none")(
        t, p, w
    ),
    "CCE logits class": lambda K, t, p, w: K.losses.CategoricalCrossentropy(from_logits=True)(t, p),
    "SCCE logits class": lambda K, t, p, w: K.losses.SparseCategoricalCrossentropy(
        from_logits=True
    )([1, 2, 0, 1], p, w),
    "BCE class": lambda K, t, p, w: K.losses.BinaryCrossentropy()(t, p),
    "hinge": lambda K, t, p, w: K.losses.Hinge()(t, p),
    "huber": lambda K, t, p, w: K.losses.Huber(delta=0.3)(t, p),
    "kld": lambda K, t, p, w: K.losses.KLDivergence()(t, p),
    "softmax output": lambda K, t, p, w: K.losses.categorical_crossentropy(
        t, K.layers.Softmax()(p * 3.0)
    ),
    "sigmoid output": lambda K, t, p, w: K.losses.binary_crossentropy(
        t, K.activations.sigmoid(p * 30.0)
    ),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_as_tf(name):
    """Loss functions and classes: values, dtypes, static shapes, op names and gradients."""

    def script(tf):
        t = tf.placeholder(tf.float32, [None, 3])
        p = tf.placeholder(tf.float32, [None, 3])
        w = tf.constant(WEIGHTS)
        loss = LOSSES[name](tf.keras, t, p, w)
        grad = tf.gradients(loss, p)[0]
        info = [loss.name, str(loss.shape.as_list()), loss.dtype.name]

        def run(sess):
            return info, sess.run([loss, grad], {t: Y_TRUE, p: Y_PRED})

        return run

    theirs, ours = run_both(script)
    if "weighted_loss" not in theirs[0][0]:
        # a loss function's last op is tf.nn's, whose internal names are not Keras'
        theirs[0][0] = ours[0][0]
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_backend_and_utils_as_tf():
    """``tf.keras.backend`` helpers and ``utils.to_categorical``."""

    def script(tf):
        K = tf.keras
        B = K.backend
        p = B.placeholder(shape=(None, 3), name="p")
        q = B.placeholder(ndim=2)
        v = B.variable([[1.0, 2.0, 3.0]], name="v")
        cat = B.concatenate([p, p * 2.0])
        rows = B.concatenate([p, v * 2.0], axis=0)
        mean = B.mean(p, axis=1, keepdims=True)
        total = B.sum(p, axis=0)
        info = {
            "names": [p.name, q.name, v.name, cat.name, str(cat.shape.as_list())],
            "shapes": [B.int_shape(p), B.int_shape(q), B.int_shape(v), B.int_shape(mean)],
            "floatx": [B.floatx(), B.epsilon(), B.learning_phase().name],
            "dtypes": [p.dtype.name, v.dtype.base_dtype.name, B.ndim(p)],
            "categorical": K.utils.to_categorical([[1], [0], [3]]),
            "categorical5": K.utils.to_categorical(np.array([2, 1]), 5, dtype="int32"),
            "collections": [_names(tf.global_variables()), _names(tf.trainable_variables())],
        }

        def run(sess):
            feed = {p: Y_PRED}
            return info, sess.run([cat, rows, mean, total], feed)

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_subclassed_layer_and_model_as_tf():
    """A ``Layer`` subclass creating its weight with ``add_weight`` in ``build`` (a
    regularizer, a non-trainable counter), a ``Model`` subclass using it and Dense
    layers set as attributes, ``set_weights``, and freezing a built layer."""

    def script(tf):
        K = tf.keras

        class Scale(K.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(
                    "w", shape=(input_shape[-1],), initializer="ones",
                    regularizer=K.regularizers.l2(0.5),
                )  # fmt: skip
                self.count = self.add_weight("count", shape=(), dtype=tf.int32, trainable=False)
                super().build(input_shape)

            def call(self, inputs):
                return inputs * self.w

        class Net(K.Model):
            def __init__(self):
                super().__init__()
                self.hidden = K.layers.Dense(4, activation="relu")
                self.scale = Scale()
                self.top = K.layers.Dense(1)

            def call(self, inputs):
                return self.top(self.scale(self.hidden(inputs)))

        net = Net()
        x = tf.placeholder(tf.float32, [None, 4])
        y = net(x)
        loss = tf.reduce_mean(tf.square(y)) + tf.add_n(net.losses)
        grads = tf.gradients(loss, net.trainable_weights)
        info = _structure(tf, [y, loss])
        info["net"] = [
            net.name, _names(net.weights), _names(net.trainable_weights),
            _names(net.non_trainable_weights), [w.name for w in net.scale.weights],
        ]  # fmt: skip
        net.hidden.trainable = False
        info["frozen"] = [_names(net.trainable_weights), _names(net.non_trainable_weights)]
        net.hidden.trainable = True
        values = [
            np.random.RandomState(i).uniform(-1, 1, w.shape.as_list()).astype(np.float32)
            for i, w in enumerate(net.hidden.weights + net.top.weights)
        ]

        def run(sess):
            net.hidden.set_weights(values[:2])
            net.top.set_weights(values[2:])
            weights = net.get_weights() if hasattr(net, "get_weights") else None
            return info, sess.run([y, loss, grads], {x: X_MLP}), weights

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_sequential_convnet_weights_and_updates_as_tf():
    """A ``Sequential`` convnet with batch normalization: ``weights`` layer by layer,
    ``trainable_weights``/``non_trainable_weights``, ``updates`` under the learning
    phase, ``layers``, and its output with the learning phase fed True and False."""

    def script(tf):
        K = tf.keras
        model = K.Sequential(
            [
                K.layers.Conv2D(3, 3, input_shape=(6, 6, 2)),
                K.layers.BatchNormalization(),
                K.layers.ReLU(),
                K.layers.GlobalAveragePooling2D(),
                K.layers.Dense(2),
            ]
        )
        x = tf.placeholder(tf.float32, [None, 6, 6, 2])
        out = model(x)
        assigns = _fixed(tf, tf.trainable_variables())
        phase = K.backend.learning_phase()
        info = _structure(tf, [out, *model.inputs])
        info["model"] = [
            _names(model.weights), _names(model.trainable_weights),
            _names(model.non_trainable_weights), len(model.updates),
            [layer.name for layer in model.layers],
        ]  # fmt: skip

        # the updates of the call on x (the others read the model's own input placeholder)
        updates = [u for u in model.updates if u.name.startswith(model.name + "/")]
        info["updates"] = len(updates)

        def run(sess):
            sess.run(assigns)
            results = [sess.run(out, {x: X_IMG, phase: True})]
            sess.run(updates, {x: X_IMG, phase: True})
            results.append(sess.run(out, {x: X_IMG}))
            results.append(sess.run(model.non_trainable_weights))
            return info, results

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_summary_as_tf():
    """``Model.summary`` prints TF's table: a built Sequential (wrapped names), a
    functional model with a "Connected to" column and a shared layer, a Sequential
    first called on a plain tensor ("multiple"), a custom ``line_length``."""

    def script(tf):
        K = tf.keras
        lines = []
        seq = K.Sequential(
            [
                K.layers.Conv2D(3, 3, input_shape=(6, 6, 2)),
                K.layers.BatchNormalization(),
                K.layers.Flatten(),
                K.layers.Dense(2, name="out"),
            ]
        )
        seq.summary(print_fn=lines.append)
        a, b = K.Input(shape=(4,)), K.Input(shape=(4,))
        shared = K.layers.Dense(3)
        out = K.layers.Concatenate()([shared(a), shared(b), K.layers.Add()([a, b])])
        K.Model([a, b], out).summary(print_fn=lines.append)
        chain_in = K.Input(shape=(5,))
        K.Model(chain_in, K.layers.Dense(2)(K.layers.Dense(4)(chain_in))).summary(
            print_fn=lines.append, show_trainable=True
        )
        late = K.Sequential([K.layers.Dense(2)])
        try:
            late.summary(print_fn=lines.append)
        except ValueError as e:
            lines.append(str(e))
        late(tf.placeholder(tf.float32, [None, 3]))
        late.summary(line_length=50, print_fn=lines.append)
        return lambda sess: lines

    theirs, ours = run_both(script)
    assert ours == theirs


A = np.array([[0.5, -1.5, 2.0], [-0.25, 3.0, 1.0]], np.float32)
BACKEND = {
    "square": lambda B, a: B.square(a),
    "abs": lambda B, a: B.abs(a),
    "exp": lambda B, a: B.exp(a),
    "log": lambda B, a: B.log(B.abs(a)),
    "sqrt": lambda B, a: B.sqrt(a),
    "pow": lambda B, a: B.pow(a, 3),
    "sign round": lambda B, a: B.sign(a) * B.round(a * 2.0),
    "max": lambda B, a: B.max(a, axis=1),
    "min keepdims": lambda B, a: B.min(a, axis=0, keepdims=True),
    "prod": lambda B, a: B.prod(a, axis=1),
    "var": lambda B, a: B.var(a, axis=1),
    "std": lambda B, a: B.std(a, axis=0, keepdims=True),
    "any all": lambda B, a: B.stack([B.any(a > 2.0, axis=1), B.all(a > -2.0, axis=1)]),
    "argmax argmin": lambda B, a: B.stack([B.argmax(a), B.argmin(a)]),
    "maximum": lambda B, a: B.maximum(a, 0.75),
    "comparisons": lambda B, a: B.stack(
        [B.equal(a, 1.0), B.not_equal(a, 1.0), B.greater(a, 1.0), B.less_equal(a, 1.0)]
    ),
    "clip": lambda B, a: B.clip(a, -1.0, 1.5),
    "clip swapped": lambda B, a: B.clip(a, 1.0, 0.5),
    "relu": lambda B, a: B.relu(a, alpha=0.1, max_value=2.5),
    "sigmoid tanh softplus": lambda B, a: B.sigmoid(a) + B.tanh(a) + B.softplus(a),
    "softmax": lambda B, a: B.softmax(a, axis=0),
    "l2_normalize": lambda B, a: B.l2_normalize(a, axis=1),
    "bias_add": lambda B, a: B.bias_add(a, B.constant([1.0, 2.0, 3.0])),
    "dot 2d": lambda B, a: B.dot(a, B.transpose(a)),
    "dot 3d": lambda B, a: B.dot(B.stack([a, a * 2.0]), B.transpose(a)),
    "batch_flatten": lambda B, a: B.batch_flatten(B.reshape(a, (2, 3, 1))),
    "flatten": lambda B, a: B.flatten(a),
    "expand squeeze": lambda B, a: B.squeeze(B.expand_dims(a, 1), 1) * 2.0,
    "permute": lambda B, a: B.permute_dimensions(B.expand_dims(a), (2, 0, 1)),
    "one_hot": lambda B, a: B.one_hot(B.cast(B.abs(a), "int32"), 4),
    "gather": lambda B, a: B.gather(a, [1, 0, 1]),
    "zeros_like ones_like": lambda B, a: B.zeros_like(a) + B.ones_like(a) * a,
    "stop_gradient": lambda B, a: B.stop_gradient(a) * a,
    "switch": lambda B, a: B.switch(B.greater(a, 0.0), a, -a),
    "switch trailing axes": lambda B, a: B.switch(
        B.greater(a, 0.0), B.stack([a, a * 2.0], axis=-1), B.stack([-a, a], axis=-1)
    ),
    "in_train_phase": lambda B, a: B.in_train_phase(a * 2.0, a * 3.0),
    "categorical_crossentropy": lambda B, a: B.categorical_crossentropy(
        B.softmax(a), B.softmax(a * 2.0)
    ),
    "binary_crossentropy": lambda B, a: B.binary_crossentropy(B.sigmoid(a), B.sigmoid(a * 3.0)),
    "sparse_categorical_crossentropy": lambda B, a: B.sparse_categorical_crossentropy(
        [2, 1], a, from_logits=True
    ),
}


@pytest.mark.parametrize("name", sorted(BACKEND))
def test_backend_ops_as_tf(name):
    """``tf.keras.backend`` functions: values, dtypes, static shapes and the gradient of
    their sum (where they are differentiable)."""

    def script(tf):
        a = tf.placeholder(tf.float32, [2, 3])
        out = BACKEND[name](tf.keras.backend, a)
        grad = None
        if out.dtype.is_floating:
            grad = tf.gradients(tf.reduce_sum(out), a)[0]
            grad = None if grad is None else tf.convert_to_tensor(grad)  # gather's slices
        info = [str(out.shape.as_list()), out.dtype.name]

        def run(sess):
            return info, sess.run([out, grad] if grad is not None else [out], {a: A})

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_backend_variables_and_function_as_tf():
    """``zeros``/``ones`` variables, ``update*``, ``batch_get_value``/``batch_set_value``,
    ``eval``, ``count_params``, ``is_keras_tensor`` and ``function``."""

    def script(tf):
        K = tf.keras
        B = K.backend
        z = B.zeros((2, 3), name="z")
        o = B.ones((3,), dtype="int32")
        x = B.placeholder(shape=(None, 3))
        inp = K.Input(shape=(3,))
        dense = K.layers.Dense(2, kernel_initializer="ones")
        out = dense(inp)
        inc = B.update_add(z, tf.ones((2, 3)))
        info = [
            [z.name, o.name, B.dtype(z), B.dtype(o), B.count_params(z)],
            [B.is_keras_tensor(x), B.is_keras_tensor(inp), B.is_keras_tensor(out)],
            _names(tf.global_variables()), _names(tf.trainable_variables()),
        ]  # fmt: skip
        f = B.function([inp], [out, inp * 2.0])
        g = B.function([inp], out, updates=[inc])

        def run(sess):
            B.batch_set_value([(o, [4, 5, 6])])
            first = f([A])
            second = g([A])
            return info, first, second, B.batch_get_value([z, o]), B.eval(z)

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_tf_checkpoint_of_a_keras_model_restores(tmp_path):
    """A Keras convnet trained one step and saved by TF's ``tf.train.Saver`` restores
    into the same script under jtrain (Keras' variable names), which then computes TF's
    outputs and trains on to TF's numbers."""
    from tests.interop.twin import jtf, run_once, tf1

    path = str(tmp_path / "model.ckpt")

    def build(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 6, 6, 2])
        y = tf.placeholder(tf.int32, [None])
        model = K.Sequential(
            [
                K.layers.Conv2D(3, 3, activation="relu", input_shape=(6, 6, 2)),
                K.layers.BatchNormalization(),
                K.layers.Flatten(),
                K.layers.Dense(4),
            ]
        )
        logits = model(x, training=True)
        loss = tf.reduce_mean(K.losses.sparse_categorical_crossentropy(y, logits, True))
        updates = [u for u in model.updates if u.name.startswith(model.name + "/")]
        with tf.control_dependencies(updates):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        return x, y, logits, loss, train, tf.train.Saver()

    def save(tf):
        x, y, logits, loss, train, saver = build(tf)

        def run(sess):
            sess.run(train, {x: X_IMG, y: Y_IMG})
            saver.save(sess, path)
            values = []
            for _ in range(2):
                values.append(sess.run([loss, logits], {x: X_IMG, y: Y_IMG}))
                sess.run(train, {x: X_IMG, y: Y_IMG})
            return sorted(v.name for v in tf.global_variables()), values

        return run

    def restore(tf):
        x, y, logits, loss, train, saver = build(tf)

        def run(sess):
            saver.restore(sess, path)
            values = []
            for _ in range(2):
                values.append(sess.run([loss, logits], {x: X_IMG, y: Y_IMG}))
                sess.run(train, {x: X_IMG, y: Y_IMG})
            return sorted(v.name for v in tf.global_variables()), values

        return run

    theirs = run_once(tf1, save)
    ours = run_once(jtf, restore)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_dropout_follows_the_learning_phase():
    """``Dropout`` is the identity unless the learning phase is fed True; then each kept
    element is scaled by ``1 / (1 - rate)`` and the others are 0 (the random mask itself
    differs between TF and jtrain)."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 50])
        out = K.layers.Dropout(0.25)(x)
        phase = K.backend.learning_phase()
        data = np.linspace(1.0, 2.0, 100 * 50, dtype=np.float32).reshape(100, 50)

        def run(sess):
            infer = sess.run(out, {x: data})
            train = sess.run(out, {x: data, phase: True})
            kept = train != 0
            scaled = np.allclose(train[kept], data[kept] / 0.75, rtol=1e-6)
            return infer, scaled, bool(0.65 < kept.mean() < 0.85), str(out.shape.as_list())

        return run

    theirs, ours = run_both(script)
    assert theirs[1] and theirs[2]
    assert_twins(theirs, ours)


def test_seeded_dropout_layers_draw_a_new_mask_per_call_as_tf():
    """A seeded ``Dropout`` layer (Keras' or ``tf.layers``') called again builds its mask
    with the next op seed (``seed``, ``seed + 1``...), so each call drops other elements;
    a call that builds no mask (``training=False``) takes no seed, one with a bool tensor
    does; the function ``tf.layers.dropout`` makes a new layer each call (same seed,
    same mask). Masks compared exactly (before: every call of a layer repeated its first
    mask)."""

    def script(tf):
        tf.set_random_seed(1)
        x = tf.ones([3, 8])
        keras = tf.keras.layers.Dropout(0.5, seed=7)
        phase = tf.placeholder(tf.bool, [])
        outs = [keras(x, training=phase), keras(x, training=False), keras(x, training=True)]
        layer = tf.layers.Dropout(0.5, seed=3)
        outs += [layer(x, training=True), layer(x, training=True)]
        outs += [tf.layers.dropout(x, seed=3, training=True) for _ in range(2)]

        def run(sess):
            return sess.run(outs, {phase: True})

        return run

    theirs, ours = run_both(script)
    assert not np.array_equal(theirs[0], theirs[2]) and not np.array_equal(theirs[3], theirs[4])
    assert np.array_equal(theirs[5], theirs[6])
    assert_twins(theirs, ours, rtol=0, atol=0)


def test_dtypes_and_input_arguments_as_tf():
    """A float64 layer casts float32 inputs (variables float64), float ids are cast for
    ``Embedding``, ``input_dim`` and ``batch_size`` build a Sequential's placeholder."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 4])
        wide = K.layers.Dense(3, dtype="float64", kernel_initializer="ones")
        y64 = wide(x)
        ids = K.layers.Embedding(5, 2, embeddings_initializer="ones")(tf.constant([[1.0, 4.0]]))
        seq = K.Sequential([K.layers.Dense(2, input_dim=4, batch_size=3), K.layers.ReLU()])
        info = _structure(tf, [y64, ids, *seq.inputs, *seq.outputs])
        info["dtypes"] = [wide.dtype, [w.dtype.base_dtype.name for w in wide.weights]]

        def run(sess):
            return info, sess.run([y64, ids], {x: X_MLP})

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


def test_compute_output_shape_as_tf():
    """``compute_output_shape`` gives TF's static shapes without building the layer or
    adding variables to the graph."""

    def script(tf):
        K = tf.keras
        dense = K.layers.Dense(3)
        out = [
            str(dense.compute_output_shape((None, 4))),
            str(K.layers.Conv2D(2, 3, strides=2, padding="same").compute_output_shape(
                (None, 8, 8, 1)
            )),
            str(K.layers.MaxPooling2D().compute_output_shape((2, 8, 8, 1))),
            dense.built,
            len(tf.global_variables()),
        ]  # fmt: skip
        return lambda sess: out

    theirs, ours = run_both(script)
    assert ours == theirs


def test_activity_regularizer_as_tf():
    """An ``activity_regularizer``'s loss (divided by the batch size) joins ``losses``,
    not ``REGULARIZATION_LOSSES``; its name, value and gradient as TF's."""

    def script(tf):
        K = tf.keras
        x = tf.placeholder(tf.float32, [None, 4])
        layer = K.layers.Dense(3, activity_regularizer="l1", kernel_initializer="ones")
        layer(x)
        losses = layer.losses
        grads = tf.gradients(tf.add_n(losses), [x, layer.kernel])
        info = _structure(tf, losses)

        def run(sess):
            return info, sess.run([losses, grads], {x: X_MLP})

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "constraint", ["max_norm", "MaxNorm(0.4, axis=[0, 1])", "NonNeg()", "UnitNorm()",
                   "MinMaxNorm(0.5, 0.8, rate=0.5)"],
)  # fmt: skip
def test_constraints_apply_after_each_step_as_tf(constraint):
    """A layer's ``kernel_constraint``/``bias_constraint`` projects the variables after
    each ``GradientDescentOptimizer`` step, with Keras' formulas."""

    def script(tf):
        K = tf.keras
        c = (
            constraint if "(" not in constraint else eval(f"K.constraints.{constraint}", {"K": K})  # noqa: S307
        )
        x = tf.placeholder(tf.float32, [None, 4])
        layer = K.layers.Dense(3, kernel_constraint=c, bias_constraint=K.constraints.NonNeg())
        if "[0, 1]" in constraint:
            layer = K.layers.Conv1D(3, 2, kernel_constraint=c)
            out = layer(tf.reshape(x, [-1, 4, 1]))
        else:
            out = layer(x)
        loss = tf.reduce_sum(tf.square(out - 1.0))
        assigns = _fixed(tf, layer.weights)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

        def run(sess):
            sess.run(assigns)
            values = []
            for _ in range(2):
                sess.run(train, {x: X_MLP})
                values.append(sess.run(layer.weights))
            return values

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)
