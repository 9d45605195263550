"""More of ``tf.keras.backend`` (legacy Keras in a TF1 graph), against TF 2.21's.

One case per function on small fixed inputs: its output's value, dtype and static
shape, and the gradient of ``sum(out * out)`` with respect to the float inputs
(``None`` where TF has none). Then the argument checks, compared with TF's error
class and message, and the functions that set Keras' state.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf2_behaviour_off

tf1 = real_tf.compat.v1

RTOL, ATOL = 2e-5, 2e-6
_rng = np.random.RandomState(7)
X = _rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
M = _rng.uniform(-1, 1, (2, 3)).astype(np.float32)
IM = _rng.uniform(-1, 1, (2, 3, 4, 2)).astype(np.float32)
VOL = _rng.uniform(-1, 1, (2, 2, 3, 2, 2)).astype(np.float32)
BATCHED = {"x": X, "m": M, "im": IM, "vol": VOL}  # fed to [None, ...] placeholders
FIXED = {  # kernels and per-channel parameters, fed to placeholders of their shape
    name: _rng.uniform(-1, 1, shape).astype(np.float32)
    for name, shape in {
        "imb": IM.shape,  # a batch of known size: see conv2d_transpose
        "k1": (2, 4, 3),
        "k2": (2, 2, 2, 3),
        "kt": (2, 2, 3, 2),
        "dk": (2, 2, 2, 2),
        "pk": (1, 1, 4, 3),
        "k3": (1, 2, 1, 2, 2),
        "lk1": (2, 8, 3),
        "lk2": (6, 8, 2),
        "g": (4,),
        "b": (4,),
    }.items()
}
NCHW = [0, 3, 1, 2]


LABELS = np.array([[1, 0, 1], [0, 0, 1]], np.float32)
ONE_HOT = np.array([[0, 1, 0], [0, 0, 1]], np.float32)
CTC_LABELS = np.array([[1, 2, 0], [2, 0, 0]], np.int32)


def _sparse(tf):
    return tf.SparseTensor(indices=[[0, 1], [1, 2]], values=[1.5, -2.0], dense_shape=[2, 3])


# name -> build(K, tf, inputs) -> output tensor; inputs: x [?, 3, 4], m [?, 3],
# im [?, 3, 4, 2], vol [?, 2, 3, 2, 2] and FIXED's
CASES = {
    "arange": lambda K, tf, i: K.arange(1, 8, 2),
    "arange float": lambda K, tf, i: K.arange(0.5, 3, dtype="float32"),
    "arange negative start": lambda K, tf, i: K.arange(-3),
    "eye": lambda K, tf, i: K.eye(3),
    "eye int": lambda K, tf, i: K.eye(2, dtype="int32"),
    "cumsum": lambda K, tf, i: K.cumsum(i["x"], axis=1),
    "cumprod": lambda K, tf, i: K.cumprod(i["x"]),
    "tile": lambda K, tf, i: K.tile(i["x"], [1, 2, 1]),
    "repeat": lambda K, tf, i: K.repeat(i["m"], 3),
    "repeat_elements": lambda K, tf, i: K.repeat_elements(i["x"], 2, axis=1),
    "repeat_elements unknown axis": lambda K, tf, i: K.repeat_elements(i["x"], 2, axis=0),
    "reverse axes": lambda K, tf, i: K.reverse(i["x"], [0, 2]),
    "softsign": lambda K, tf, i: K.softsign(i["x"] * 3.0),
    "hard_sigmoid": lambda K, tf, i: K.hard_sigmoid(i["x"] * 4.0),
    "elu": lambda K, tf, i: K.elu(i["x"]),
    "elu alpha": lambda K, tf, i: K.elu(i["x"], 0.5),
    "in_top_k": lambda K, tf, i: K.in_top_k(i["m"], tf.constant([0, 2]), 2),
    "to_dense sparse": lambda K, tf, i: K.to_dense(_sparse(tf)),
    "to_dense dense": lambda K, tf, i: K.to_dense(i["m"]),
    "temporal_padding": lambda K, tf, i: K.temporal_padding(i["x"], (1, 2)),
    "spatial_2d_padding": lambda K, tf, i: K.spatial_2d_padding(i["im"], ((1, 0), (0, 2))),
    "spatial_2d_padding channels_first": lambda K, tf, i: K.spatial_2d_padding(
        i["im"], data_format="channels_first"
    ),
    "spatial_3d_padding channels_first": lambda K, tf, i: K.spatial_3d_padding(
        i["vol"], data_format="channels_first"
    ),
    "batch_dot": lambda K, tf, i: K.batch_dot(i["x"], tf.transpose(i["x"], [0, 2, 1])),
    "batch_dot 2d": lambda K, tf, i: K.batch_dot(i["m"], i["m"], axes=1),
    "batch_dot 4d": lambda K, tf, i: K.batch_dot(i["im"], i["x"], axes=(2, -1)),
    "batch_dot 3d and 4d": lambda K, tf, i: K.batch_dot(i["x"], i["im"], axes=(1, 1)),
    "resize_images bilinear": lambda K, tf, i: K.resize_images(
        i["im"], 2, 2, "channels_last", interpolation="bilinear"
    ),
    "resize_images channels_first": lambda K, tf, i: K.resize_images(
        i["im"], 1, 2, "channels_first"
    ),
    "resize_volumes": lambda K, tf, i: K.resize_volumes(i["vol"], 2, 1, 2, "channels_last"),
    "resize_volumes channels_first": lambda K, tf, i: K.resize_volumes(
        i["vol"], 1, 2, 1, "channels_first"
    ),
    "map_fn": lambda K, tf, i: K.map_fn(lambda r: r * 2.0 + tf.reduce_sum(r), i["x"]),
    "foldl": lambda K, tf, i: K.foldl(lambda a, r: a * r + 1.0, i["x"]),
    "foldr": lambda K, tf, i: K.foldr(lambda a, r: a * 0.5 + r, i["m"], initializer=tf.zeros([3])),
    "print_tensor": lambda K, tf, i: K.print_tensor(i["x"] * 2.0, message="x:"),
    "conv1d": lambda K, tf, i: K.conv1d(i["x"], i["k1"]),
    "conv1d causal dilated": lambda K, tf, i: K.conv1d(
        i["x"], i["k1"], padding="causal", dilation_rate=2
    ),
    "conv1d channels_first same": lambda K, tf, i: K.conv1d(
        tf.transpose(i["x"], [0, 2, 1]), i["k1"], padding="same", data_format="channels_first"
    ),
    "conv2d": lambda K, tf, i: K.conv2d(i["im"], i["k2"]),
    "conv2d strided same": lambda K, tf, i: K.conv2d(i["im"], i["k2"], (2, 2), "same"),
    "conv2d channels_first": lambda K, tf, i: K.conv2d(
        tf.transpose(i["im"], NCHW), i["k2"], data_format="channels_first"
    ),
    "conv2d_transpose": lambda K, tf, i: K.conv2d_transpose(
        i["imb"], i["kt"], (2, 6, 8, 3), (2, 2), "same"
    ),
    "conv2d_transpose none batch": lambda K, tf, i: K.conv2d_transpose(
        i["im"], i["kt"], (None, 4, 5, 3)
    ),
    "conv2d_transpose dilated": lambda K, tf, i: K.conv2d_transpose(
        i["imb"], i["kt"], (2, 3, 4, 3), padding="same", dilation_rate=(2, 2)
    ),
    "depthwise_conv2d": lambda K, tf, i: K.depthwise_conv2d(i["im"], i["dk"]),
    "depthwise_conv2d same dilated": lambda K, tf, i: K.depthwise_conv2d(
        i["im"], i["dk"], padding="same", dilation_rate=(2, 2)
    ),
    "separable_conv2d": lambda K, tf, i: K.separable_conv2d(i["im"], i["dk"], i["pk"]),
    "separable_conv2d strided same": lambda K, tf, i: K.separable_conv2d(
        i["im"], i["dk"], i["pk"], [2, 2], "same"
    ),
    "conv3d": lambda K, tf, i: K.conv3d(i["vol"], i["k3"]),
    "conv3d channels_first": lambda K, tf, i: K.conv3d(
        tf.transpose(i["vol"], [0, 4, 1, 2, 3]), i["k3"], data_format="channels_first"
    ),
    "pool2d": lambda K, tf, i: K.pool2d(i["im"], (2, 2)),
    "pool2d avg same": lambda K, tf, i: K.pool2d(i["im"], (2, 3), (2, 2), "same", pool_mode="avg"),
    "pool3d": lambda K, tf, i: K.pool3d(i["vol"], (2, 2, 1)),
    "pool3d avg same": lambda K, tf, i: K.pool3d(
        i["vol"], (1, 2, 2), (1, 2, 1), "same", pool_mode="avg"
    ),
    "normalize_batch_in_training fused": lambda K, tf, i: K.normalize_batch_in_training(
        i["im"], i["g"][:2], i["b"][:2], [0, 1, 2]
    ),
    "normalize_batch_in_training channels_first": lambda K, tf, i: K.normalize_batch_in_training(
        i["im"], i["g"][:3], i["b"][:3], [0, 2, 3]
    ),
    "normalize_batch_in_training regular": lambda K, tf, i: K.normalize_batch_in_training(
        i["x"], i["g"], i["b"], [0, 1]
    ),
    "batch_normalization": lambda K, tf, i: K.batch_normalization(
        i["im"], i["g"][:2], tf.square(i["b"][:2]) + 0.5, i["b"][2:], i["g"][2:]
    ),
    "batch_normalization no beta gamma": lambda K, tf, i: K.batch_normalization(
        i["im"], i["g"][:2], tf.square(i["b"][:2]) + 0.5, None, None, epsilon=0.01
    ),
    "batch_normalization rank 3": lambda K, tf, i: K.batch_normalization(
        i["x"], i["g"], tf.square(i["b"]) + 0.5, i["b"], i["g"]
    ),
    "binary_focal_crossentropy": lambda K, tf, i: K.binary_focal_crossentropy(
        tf.constant(LABELS), K.sigmoid(i["m"])
    ),
    "binary_focal_crossentropy balanced logits": lambda K, tf, i: K.binary_focal_crossentropy(
        tf.constant(LABELS), i["m"], apply_class_balancing=True, alpha=0.3, from_logits=True
    ),
    "categorical_focal_crossentropy": lambda K, tf, i: K.categorical_focal_crossentropy(
        tf.constant(ONE_HOT), K.softmax(i["m"])
    ),
    "categorical_focal_crossentropy logits": lambda K, tf, i: K.categorical_focal_crossentropy(
        tf.constant(ONE_HOT), i["m"] * 2.0, alpha=0.5, gamma=1.0, from_logits=True
    ),
    "local_conv1d": lambda K, tf, i: K.local_conv1d(i["x"], i["lk1"], (2,), (1,)),
    "local_conv1d channels_first": lambda K, tf, i: K.local_conv1d(
        tf.transpose(i["x"][:, :2], [0, 2, 1]), i["lk1"][:1, :4], (1,), (2,), "channels_first"
    ),
    "local_conv2d": lambda K, tf, i: K.local_conv2d(i["im"], i["lk2"][:4], (2, 2), (1, 2), (2, 2)),
    "local_conv2d channels_first": lambda K, tf, i: K.local_conv2d(
        tf.transpose(i["im"], NCHW), i["lk2"][:4, :6], (3, 1), (1, 1), (1, 4), "channels_first"
    ),
    "dropout": lambda K, tf, i: K.dropout(i["x"], 0.4, seed=3),
    "dropout noise_shape": lambda K, tf, i: K.dropout(i["x"], 0.5, noise_shape=[2, 1, 4], seed=5),
    "random_normal": lambda K, tf, i: K.random_normal((3, 4), 1.0, 2.0, seed=7),
    "random_uniform": lambda K, tf, i: K.random_uniform((2, 5), -1.0, 3.0, seed=8),
    "random_uniform int": lambda K, tf, i: K.random_uniform([4], 0, 10, dtype="int32", seed=8),
    "truncated_normal": lambda K, tf, i: K.truncated_normal((3, 4), 0.5, 0.1, seed=9),
    "random_bernoulli": lambda K, tf, i: K.random_bernoulli((3, 4), 0.3, seed=10),
    "random_normal_variable": lambda K, tf, i: K.random_normal_variable((2, 3), 0.0, 1.5, seed=11),
    "random_uniform_variable": lambda K, tf, i: K.random_uniform_variable(
        (2, 3), -2.0, 2.0, dtype="float64", seed=12
    ),
    "ctc_batch_cost": lambda K, tf, i: K.ctc_batch_cost(
        tf.constant(CTC_LABELS), K.softmax(i["x"]), tf.constant([[3], [2]]), tf.constant([[2], [1]])
    ),
}


FUNCTIONS = sorted({name.split()[0] for name in CASES})


@pytest.mark.parametrize("function", FUNCTIONS)
def test_function_values_shapes_and_gradients(function):
    """The cases of ``function``, in one graph: their outputs' static shapes, dtypes
    and values, and each float case's gradients of ``sum(out * out)`` with respect to
    every input (one gradient per case: a weighted sum of the cases' gradients compared
    TF's and jtrain's rounding of its cancellation, not the cases' gradients)."""
    names = [name for name in CASES if name.split()[0] == function]

    def script(tf):
        inputs = {k: tf.placeholder(tf.float32, [None, *v.shape[1:]]) for k, v in BATCHED.items()}
        inputs.update({k: tf.placeholder(tf.float32, v.shape) for k, v in FIXED.items()})
        feed = dict(zip(inputs.values(), [*BATCHED.values(), *FIXED.values()], strict=True))
        outs, flat = [], []
        for name in names:
            out = CASES[name](tf.keras.backend, tf, inputs)
            out = [tf.convert_to_tensor(t) for t in (out if isinstance(out, tuple) else [out])]
            outs.append(out)
            if out[0].dtype.base_dtype.is_floating:
                loss = tf.add_n([tf.reduce_sum(t * t) for t in out])
                flat += tf.gradients(loss, list(inputs.values()))
        info = [[[str(t.shape.as_list()), t.dtype.base_dtype.name] for t in out] for out in outs]

        def run(sess):
            dense = [tf.convert_to_tensor(g) for g in flat if g is not None]
            values, computed = sess.run([outs, dense], feed)
            computed = iter(computed)
            return info, values, [None if g is None else next(computed) for g in flat]

        return run

    assert_twins(*run_both(script), rtol=RTOL, atol=ATOL)


@contextlib.contextmanager
def _graph(tf):
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            yield tf


def _error(tf, build):
    with _graph(tf):
        try:
            build(tf.keras.backend, tf)
        except Exception as error:  # noqa: BLE001 - TF's class and message compared
            return type(error).__name__, str(error)
    raise AssertionError(f"{tf.__name__}: no error")


def _x(tf, shape=(2, 3, 4)):
    return tf.placeholder(tf.float32, list(shape))


ERRORS = {
    "batch_dot rank 1": lambda K, tf: K.batch_dot(_x(tf, [3]), _x(tf)),
    "batch_dot batch sizes": lambda K, tf: K.batch_dot(_x(tf), _x(tf, [3, 4, 3])),
    "batch_dot list axes": lambda K, tf: K.batch_dot(_x(tf), _x(tf), axes=[[1], [2]]),
    "batch_dot axis 0": lambda K, tf: K.batch_dot(_x(tf), _x(tf), axes=0),
    "batch_dot sizes": lambda K, tf: K.batch_dot(_x(tf), _x(tf), axes=(1, 2)),
    "repeat rank 3": lambda K, tf: K.repeat(_x(tf), 2),
    "temporal_padding": lambda K, tf: K.temporal_padding(_x(tf), (1, 2, 3)),
    "spatial_2d_padding pairs": lambda K, tf: K.spatial_2d_padding(_x(tf, [1, 2, 2, 1]), ((1, 1),)),
    "spatial_2d_padding format": lambda K, tf: K.spatial_2d_padding(
        _x(tf, [1, 2, 2, 1]), data_format="NHWC"
    ),
    "spatial_3d_padding format": lambda K, tf: K.spatial_3d_padding(
        _x(tf, [1, 2, 2, 2, 1]), data_format="channels_middle"
    ),
    "resize_images format": lambda K, tf: K.resize_images(_x(tf, [1, 2, 2, 1]), 2, 2, "nhwc"),
    "resize_images interpolation": lambda K, tf: K.resize_images(
        _x(tf, [1, 2, 2, 1]), 2, 2, "channels_last", interpolation="linear"
    ),
    "resize_volumes format": lambda K, tf: K.resize_volumes(_x(tf, [1, 2, 2, 2, 1]), 2, 2, 2, None),
    "set_image_data_format": lambda K, tf: K.set_image_data_format("channels_middle"),
    "bias_add format": lambda K, tf: K.bias_add(_x(tf, [1, 2]), _x(tf, [2]), "NC"),
    "conv2d format": lambda K, tf: K.conv2d(
        _x(tf, [1, 3, 3, 1]), _x(tf, [1, 1, 1, 1]), data_format="NHWC"
    ),
    "conv2d padding": lambda K, tf: K.conv2d(
        _x(tf, [1, 3, 3, 1]), _x(tf, [1, 1, 1, 1]), padding="causal"
    ),
    "conv1d padding": lambda K, tf: K.conv1d(_x(tf, [1, 3, 1]), _x(tf, [1, 1, 1]), padding="full"),
    "conv3d format": lambda K, tf: K.conv3d(
        _x(tf, [1, 2, 2, 2, 1]), _x(tf, [1, 1, 1, 1, 1]), data_format="x"
    ),
    "conv2d_transpose dilation": lambda K, tf: K.conv2d_transpose(
        _x(tf, [1, 3, 3, 1]), _x(tf, [1, 1, 1, 1]), (1, 3, 3, 1), dilation_rate=(1, 2)
    ),
    "separable_conv2d strides": lambda K, tf: K.separable_conv2d(
        _x(tf, [1, 3, 3, 1]), _x(tf, [1, 1, 1, 1]), _x(tf, [1, 1, 1, 1]), strides=(1, 1, 1)
    ),
    "depthwise_conv2d format": lambda K, tf: K.depthwise_conv2d(
        _x(tf, [1, 3, 3, 1]), _x(tf, [1, 1, 1, 1]), data_format="channels"
    ),
    "local_conv2d format": lambda K, tf: K.local_conv2d(
        _x(tf, [1, 2, 2, 1]), _x(tf, [1, 4, 1]), (2, 2), (1, 1), (1, 1), "nchw"
    ),
    "pool2d mode": lambda K, tf: K.pool2d(_x(tf, [1, 3, 3, 1]), (2, 2), pool_mode="sum"),
    "pool2d size": lambda K, tf: K.pool2d(_x(tf, [1, 3, 3, 1]), (2,)),
    "pool2d strides": lambda K, tf: K.pool2d(_x(tf, [1, 3, 3, 1]), (2, 2), strides=(1, 1, 1)),
    "pool3d mode": lambda K, tf: K.pool3d(_x(tf, [1, 2, 2, 2, 1]), (1, 1, 1), pool_mode="min"),
    "categorical_focal_crossentropy shapes": lambda K, tf: K.categorical_focal_crossentropy(
        _x(tf, [2, 3]), _x(tf, [2, 4])
    ),
    "learning_phase_scope": lambda K, tf: K.learning_phase_scope(2).__enter__(),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_argument_checks_raise_tfs_errors(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _error(jtf, ERRORS[name]) == _error(tf1, ERRORS[name])


def test_ctc_label_dense_to_sparse():
    """The first ``label_lengths[i]`` labels of each row as a ``SparseTensor``: its
    indices, values and dense shape, their dtypes and static shapes."""

    def script(tf):
        lengths = tf.placeholder(tf.int32, [None])
        sparse = tf.keras.backend.ctc_label_dense_to_sparse(tf.constant(CTC_LABELS), lengths)
        parts = [sparse.indices, sparse.values, sparse.dense_shape]
        info = [[t.dtype.name, str(t.shape.as_list())] for t in parts]
        return lambda sess: (info, sess.run(parts, {lengths: [2, 1]}))

    assert_twins(*run_both(script))


def test_random_functions_without_a_seed_draw_it_from_numpy():
    """No seed: Keras draws one from NumPy's global generator (below ``10e6``, or
    ``10e8`` for the variables), so the same NumPy seed gives TF's values; and
    ``random_binomial`` warns as TF's."""

    def script(tf):
        K = tf.keras.backend
        np.random.seed(4)  # noqa: NPY002 - the generator Keras draws from
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            binomial = K.random_binomial((2, 3), 0.5)
        outs = [
            K.dropout(tf.ones([2, 3]), 0.5),
            K.random_normal([3]),
            K.random_uniform([3]),
            K.truncated_normal([3]),
            K.random_bernoulli([4], 0.5),
            binomial,
            K.random_normal_variable([2], 0.0, 1.0),
            K.random_uniform_variable([2], 0.0, 1.0),
        ]
        messages = [(w.category.__name__, str(w.message)) for w in caught]
        return lambda sess: (messages, sess.run(outs))

    state = np.random.get_state()  # noqa: NPY002 - the generator Keras draws from
    try:
        assert_twins(*run_both(script))
    finally:
        np.random.set_state(state)  # noqa: NPY002


def test_moving_average_update():
    """TF1's zero-debiased moving average (``disable_v2_behavior``): ``x`` after each of
    three updates, the variables made (names, shapes), a second update's ``_1``
    names."""

    def script(tf):
        K = tf.keras.backend
        x = K.variable([1.0, -2.0], name="x")
        value = tf.placeholder(tf.float32, [2])
        update = K.moving_average_update(x, value, 0.9)
        K.moving_average_update(x, value * 2.0, tf.constant(0.5))
        names = [[v.op.name, str(v.shape.as_list())] for v in tf.global_variables()]

        def run(sess):
            seen = []
            for row in ([3.0, 1.0], [-1.0, 0.5], [2.0, 2.0]):
                seen.append(sess.run(update, {value: row}))
                seen.append(sess.run(x))
            return names, seen

        return run

    with tf2_behaviour_off():  # the branch of Keras' backend a TF1 script takes
        theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=RTOL, atol=ATOL)


def test_state_setters_and_plain_values():
    """``backend``, ``is_sparse``, ``set_image_data_format`` (and what reads it),
    ``learning_phase_scope`` (its warning, the phase inside, the one restored) and
    ``manual_variable_initialization`` (``get_session`` then initializes nothing)."""

    def observe(tf):
        seen = []
        with _graph(tf):
            K = tf.keras.backend
            seen += [K.backend(), K.is_sparse(_sparse(tf)), K.is_sparse(_x(tf))]
            seen.append(K.is_sparse(np.zeros(2)))
            seen.append(K.image_data_format())
            K.set_image_data_format("channels_first")
            try:
                seen.append(K.image_data_format())
                seen.append(K.spatial_2d_padding(_x(tf, [1, 2, 3, 4])).shape.as_list())
                biased = K.bias_add(tf.zeros([1, 2, 1, 1]), tf.constant([1.0, 2.0]))
                seen.append(K.get_value(biased).tolist())
            finally:
                K.set_image_data_format("channels_last")
            seen.append(K.image_data_format())
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with K.learning_phase_scope(1):
                    seen.append(K.learning_phase())
                    with K.learning_phase_scope(0):
                        seen.append(K.learning_phase())
                    seen.append(K.learning_phase())
            seen.append([(w.category.__name__, str(w.message)) for w in caught])
            phase = K.learning_phase()
            seen.append([phase.name, phase.dtype.name])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # TF's set_learning_phase warns too
                K.set_learning_phase(0)
                with K.learning_phase_scope(1):
                    seen.append(K.learning_phase())
            seen.append(K.learning_phase())
        with _graph(tf):
            K = tf.keras.backend
            v = K.variable(2.0)
            K.manual_variable_initialization(True)
            try:
                session = K.get_session()
                seen.append(bool(session.run(tf.is_variable_initialized(v))))
            finally:
                K.manual_variable_initialization(False)
            seen.append(float(K.get_value(v)))
        return seen

    assert observe(jtf) == observe(tf1)
