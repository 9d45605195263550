"""More of ``tf.sparse`` as TF1 embedding/recommender scripts use it, checked live against
TF 2.21 (``twin.py``): ``SparseTensor.from_value``, ``tf.sparse.reset_shape``,
``fill_empty_rows``, ``eye``, ``maximum``/``minimum``, ``slice``, ``split``: values,
dtypes, static shapes, gradients where TF has them, and TF's errors.

Before, each of these names raised ``AttributeError`` under ``from adapters import v1 as
tf``, and ``SparseTensor.from_value`` of a value with list indices raised ``ValueError``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

IDX = np.array([[0, 1], [1, 3], [1, 4], [3, 0]], np.int64)
VALS = np.array([1.5, -2.0, 3.25, 0.5], np.float32)
SHAPE = np.array([5, 6], np.int64)


def _static(t):
    shape = t.get_shape()
    return None if shape.ndims is None else shape.as_list()


def _plain(values):
    """SparseTensorValues (TF's class or jtrain's) as lists of their three arrays."""
    if type(values).__name__ == "SparseTensorValue":
        return [values.indices, values.values, values.dense_shape]
    if isinstance(values, (list, tuple)):
        return [_plain(v) for v in values]
    return values


def test_from_value_of_lists_makes_int64_indices_and_shape():
    def script(tf):
        sp = tf.SparseTensor.from_value(tf.SparseTensorValue([[0, 1]], [1.5], [2, 2]))
        info = [sp.indices.dtype.name, sp.dense_shape.dtype.name, sp.dtype.name, _static(sp)]

        def run(sess):
            return info, _plain(sess.run(sp)), sess.run(tf.sparse.to_dense(sp))

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0)
