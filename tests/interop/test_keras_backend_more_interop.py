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
from tests.interop.twin import assert_twins, classic_tf1, run_both

tf1 = real_tf.compat.v1

RTOL, ATOL = 2e-5, 2e-6
_rng = np.random.RandomState(7)
X = _rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
M = _rng.uniform(-1, 1, (2, 3)).astype(np.float32)
IM = _rng.uniform(-1, 1, (2, 3, 4, 2)).astype(np.float32)
VOL = _rng.uniform(-1, 1, (2, 2, 3, 2, 2)).astype(np.float32)


def _sparse(tf):
    return tf.SparseTensor(indices=[[0, 1], [1, 2]], values=[1.5, -2.0], dense_shape=[2, 3])


# name -> build(K, tf, inputs) -> output tensor; inputs: x [?, 3, 4], m [?, 3],
# im [?, 3, 4, 2], vol [?, 2, 3, 2, 2]
CASES = {
    "arange": lambda K, tf, i: K.arange(1, 8, 2),
    "arange float": lambda K, tf, i: K.arange(0.5, 3, dtype="float32"),
    "arange negative start": lambda K, tf, i: K.arange(-3),
    "arange int64": lambda K, tf, i: K.arange(2, 5, dtype="int64"),
    "eye": lambda K, tf, i: K.eye(3),
    "eye int": lambda K, tf, i: K.eye(2, dtype="int32"),
    "cumsum": lambda K, tf, i: K.cumsum(i["x"], axis=1),
    "cumprod": lambda K, tf, i: K.cumprod(i["x"]),
    "tile": lambda K, tf, i: K.tile(i["x"], [1, 2, 1]),
    "tile int": lambda K, tf, i: K.tile(i["x"][0, 0], 2),
    "repeat": lambda K, tf, i: K.repeat(i["m"], 3),
    "repeat_elements": lambda K, tf, i: K.repeat_elements(i["x"], 2, axis=1),
    "repeat_elements negative axis": lambda K, tf, i: K.repeat_elements(i["x"], 3, axis=-1),
    "repeat_elements unknown axis": lambda K, tf, i: K.repeat_elements(i["x"], 2, axis=0),
    "reverse": lambda K, tf, i: K.reverse(i["x"], 1),
    "reverse axes": lambda K, tf, i: K.reverse(i["x"], [0, 2]),
    "softsign": lambda K, tf, i: K.softsign(i["x"] * 3.0),
    "hard_sigmoid": lambda K, tf, i: K.hard_sigmoid(i["x"] * 4.0),
    "elu": lambda K, tf, i: K.elu(i["x"]),
    "elu alpha": lambda K, tf, i: K.elu(i["x"], 0.5),
    "in_top_k": lambda K, tf, i: K.in_top_k(i["m"], tf.constant([0, 2]), 2),
    "to_dense sparse": lambda K, tf, i: K.to_dense(_sparse(tf)),
    "to_dense dense": lambda K, tf, i: K.to_dense(i["m"]),
    "temporal_padding": lambda K, tf, i: K.temporal_padding(i["x"], (1, 2)),
    "temporal_padding default": lambda K, tf, i: K.temporal_padding(i["x"]),
    "spatial_2d_padding": lambda K, tf, i: K.spatial_2d_padding(i["im"], ((1, 0), (0, 2))),
    "spatial_2d_padding channels_first": lambda K, tf, i: K.spatial_2d_padding(
        i["im"], data_format="channels_first"
    ),
    "spatial_3d_padding": lambda K, tf, i: K.spatial_3d_padding(i["vol"], ((0, 1), (1, 0), (2, 1))),
    "spatial_3d_padding channels_first": lambda K, tf, i: K.spatial_3d_padding(
        i["vol"], data_format="channels_first"
    ),
    "batch_dot": lambda K, tf, i: K.batch_dot(i["x"], tf.transpose(i["x"], [0, 2, 1])),
    "batch_dot axes": lambda K, tf, i: K.batch_dot(i["x"], i["x"], axes=[2, 2]),
    "batch_dot 2d": lambda K, tf, i: K.batch_dot(i["m"], i["m"], axes=1),
    "batch_dot 2d and 3d": lambda K, tf, i: K.batch_dot(i["m"], i["x"]),
    "batch_dot 4d": lambda K, tf, i: K.batch_dot(i["im"], i["x"], axes=(2, -1)),
    "batch_dot 3d and 4d": lambda K, tf, i: K.batch_dot(i["x"], i["im"], axes=(1, 1)),
    "resize_images": lambda K, tf, i: K.resize_images(i["im"], 2, 3, "channels_last"),
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
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_function_values_shapes_and_gradients(name):
    def script(tf):
        inputs = {
            "x": tf.placeholder(tf.float32, [None, 3, 4]),
            "m": tf.placeholder(tf.float32, [None, 3]),
            "im": tf.placeholder(tf.float32, [None, 3, 4, 2]),
            "vol": tf.placeholder(tf.float32, [None, 2, 3, 2, 2]),
        }
        out = CASES[name](tf.keras.backend, tf, inputs)
        shape = out.shape.as_list() if out.shape.ndims is not None else None
        info = [str(shape), out.dtype.base_dtype.name]
        grads = []
        if out.dtype.base_dtype.is_floating:
            value = tf.convert_to_tensor(out)
            grads = tf.gradients(tf.reduce_sum(value * value), list(inputs.values()))
        feed = dict(zip(inputs.values(), [X, M, IM, VOL], strict=True))

        def run(sess):
            dense = [tf.convert_to_tensor(g) for g in grads if g is not None]
            value, computed = sess.run([out, dense], feed)
            values = iter(computed)
            return info, value, [None if g is None else next(values) for g in grads]

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
    "learning_phase_scope": lambda K, tf: K.learning_phase_scope(2).__enter__(),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_argument_checks_raise_tfs_errors(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _error(jtf, ERRORS[name]) == _error(tf1, ERRORS[name])


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
            K.set_learning_phase(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
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
