"""Math and array ops whose values or dtypes differed from TF 2.21's, checked live.

Each case is one TF1 snippet run under TF's ``compat.v1`` and under ``adapters.v1``
(``twin.py``): the fetched values must have TF's dtypes, shapes and values.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both, tf1

NAN = np.nan

# reduce_mean of integers: TF sums in 64 bits, so the mean does not wrap.
MEANS = {
    "uint8 pixels": (np.array([[200, 100], [250, 255]], np.uint8), None),
    "uint8 rows": (np.array([[200, 100], [250, 255]], np.uint8), 1),
    "int8": (np.array([100, 100, -3], np.int8), None),
    "int16": (np.array([30000, 30000], np.int16), 0),
    "uint16": (np.array([60000, 60000, 1], np.uint16), None),
    "int32": (np.array([2**30] * 3, np.int32), None),
    "negative int32": (np.array([-(2**30)] * 3 + [1], np.int32), None),
    "uint32": (np.array([2**31, 2**31], np.uint32), None),
    "int64": (np.array([7, -2, 4], np.int64), None),
    "300 uint8 zeros": (np.zeros([300], np.uint8), None),
    "uint8 columns": (np.full([3, 300], 255, np.uint8), 1),
}


@pytest.mark.parametrize("case", list(MEANS))
def test_integer_reduce_mean_does_not_wrap(case):
    value, axis = MEANS[case]

    def script(tf):
        x = tf.placeholder(tf.as_dtype(value.dtype), value.shape)
        mean = tf.reduce_mean(x, axis=axis)
        return lambda sess: sess.run(mean, {x: value})

    assert_twins(*run_both(script), rtol=0)


# tf.one_hot's output dtype: dtype, else on_value's, else off_value's, else float32.
ONE_HOTS = {
    "python ints": lambda tf: {"on_value": 1, "off_value": 0},
    "float64 tensors": lambda tf: {
        "on_value": tf.constant(1.0, tf.float64),
        "off_value": tf.constant(0.0, tf.float64),
    },
    "numpy float64": lambda tf: {"on_value": np.float64(2.0)},
    "int toward float32": lambda tf: {"on_value": 1, "dtype": tf.float32},
    "off_value only": lambda tf: {"off_value": 2},
    "dtype only": lambda tf: {"dtype": tf.int64},
    "default": lambda tf: {},
}


@pytest.mark.parametrize("case", list(ONE_HOTS))
def test_one_hot_dtype_is_tfs(case):
    def script(tf):
        hot = tf.one_hot([0, 2, -1], 3, **ONE_HOTS[case](tf))
        return lambda sess: (hot.dtype.name, sess.run(hot))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=0)


def test_one_hot_of_ints_multiplies_int32():
    def script(tf):
        out = tf.one_hot([0, 2], 3, on_value=1, off_value=0) * tf.constant([1, 2, 3])
        return lambda sess: sess.run(out)

    assert_twins(*run_both(script), rtol=0)


ONE_HOT_ERRORS = {
    "on_value against dtype": lambda tf: (
        [0, 1],
        {"on_value": tf.constant(1), "dtype": tf.float32},
    ),
    "on_value against off_value": lambda tf: ([0, 1], {"on_value": 1, "off_value": 0.5}),
    "float indices": lambda tf: (tf.constant([0.0, 1.0]), {}),
    "int16 indices": lambda tf: (tf.constant([0, 1], tf.int16), {}),
}


@pytest.mark.parametrize("case", list(ONE_HOT_ERRORS))
def test_one_hot_refuses_what_tf_refuses(case):
    from adapters import v1 as jtf

    messages = []
    for tf in (tf1, jtf):
        with tf.Graph().as_default():
            indices, kwargs = ONE_HOT_ERRORS[case](tf)
            with pytest.raises(TypeError) as info:
                tf.one_hot(indices, 3, **kwargs)
            messages.append(str(info.value))
    assert messages[1] == messages[0]


SEGMENTS = {
    "int32": np.array([1, 2, 4, 5, 7], np.int32),
    "int8": np.array([1, 2, 4, 5, -7], np.int8),
    "int64": np.array([1, 2, 4, 5, 7], np.int64),
    "float32": np.array([1, 2, 4, 5, 7], np.float32),
}


@pytest.mark.parametrize("dtype", list(SEGMENTS))
def test_segment_means_of_integers_are_tfs(dtype):
    value = SEGMENTS[dtype]

    def script(tf):
        data = tf.constant(value)
        outs = [
            tf.math.segment_mean(data, [0, 0, 1, 1, 1]),
            tf.math.unsorted_segment_mean(data, [0, 2, 0, 2, 2], 4),
        ]
        return lambda sess: sess.run(outs)

    assert_twins(*run_both(script), rtol=1e-7)


ARG_ROWS = [
    [NAN, 1, 2],
    [1, NAN, 2],
    [2, NAN, 1],
    [NAN, NAN, NAN],
    [1, NAN],
    [NAN, -np.inf],
    [3, 3, NAN],
    [NAN, 5, 5],
]


@pytest.mark.parametrize("row", ARG_ROWS, ids=str)
def test_argmax_and_argmin_pass_over_nan_as_tf(row):
    value = np.array(row, np.float32)

    def script(tf):
        x = tf.placeholder(tf.float32, [None])
        outs = [tf.argmax(x), tf.argmin(x), tf.math.argmax(x, output_type=tf.int32)]
        return lambda sess: sess.run(outs, {x: value})

    assert_twins(*run_both(script), rtol=0)
