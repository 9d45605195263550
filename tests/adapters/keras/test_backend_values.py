"""``tf.keras.backend.get_value``/``set_value`` on plain values (TF's behaviour is
measured in tests/interop/test_keras_backend_values_interop.py)."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

K = tf.keras.backend


@pytest.mark.parametrize(
    "value", [0.5, 3, True, np.float32(1.5), np.arange(3), [1.0, 2.0], "s", None]
)
def test_get_value_returns_a_value_that_is_not_a_tensor(graph, value):
    assert K.get_value(value) is value


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (0.5, "'float' object has no attribute 'dtype'"),
        (np.float32(0.5), "'numpy.float32' object has no attribute 'assign'"),
    ],
)
def test_set_value_on_a_plain_value_raises_attribute_error(graph, target, message):
    with pytest.raises(AttributeError, match=message):
        K.set_value(target, 1.0)
    with pytest.raises(AttributeError, match=message):
        K.batch_set_value([(target, 1.0)])
