"""``tf.keras.backend``'s value helpers on values that are not tensors, against TF's.

``get_value`` (and ``eval``) returns a Python number, NumPy value, list, string or
None as it is (TF's ``tf.is_tensor`` test); ``set_value``/``batch_set_value`` on
something that is not a variable raise TF's ``AttributeError`` (no ``dtype`` on a
Python number, no ``assign`` on a NumPy value).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf

from .twin import classic_tf1

tf1 = real_tf.compat.v1

VALUES = {
    "float": 0.5,
    "int": 3,
    "bool": True,
    "numpy scalar": np.float32(1.5),
    "numpy array": np.array([1, 2], np.int64),
    "list": [1.0, 2.0],
    "string": "s",
    "None": None,
}


@contextlib.contextmanager
def _graph(tf):
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            yield tf.keras.backend


@pytest.mark.parametrize("name", sorted(VALUES))
def test_get_value_returns_a_value_that_is_not_a_tensor_as_it_is(name):
    value = VALUES[name]
    for tf in (tf1, jtf):
        with _graph(tf) as K:
            assert K.get_value(value) is value, tf.__name__
            assert K.eval(value) is value, tf.__name__


@pytest.mark.parametrize("name", ["float", "None", "numpy scalar", "numpy array"])
@pytest.mark.parametrize("how", ["set_value", "batch_set_value"])
def test_set_value_on_a_value_that_is_not_a_variable_raises_tfs_error(name, how):
    def error(tf):
        with _graph(tf) as K:
            target = VALUES[name]
            with pytest.raises(AttributeError) as info:
                if how == "set_value":
                    K.set_value(target, 1.0)
                else:
                    K.batch_set_value([(target, 1.0)])
            return str(info.value)

    assert error(jtf) == error(tf1)
