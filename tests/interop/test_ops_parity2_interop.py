"""Ops whose values, shapes, gradients or errors differed from TF 2.21's, checked live.

Each case is one TF1 snippet run under TF's ``compat.v1`` (as classic TF1) and under
``adapters.v1`` (``twin.py``): empty ``reduce_max``/``reduce_min``, ``cast`` of
non-finite and out-of-range floats to int32/int64, the v1 softmax cross entropy's
``None`` gradient to its labels, ``tf.layers.flatten`` of inputs with unknown batch
and spatial dimensions, and the metrics' graph-construction shape checks.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1


def _jtf():
    from adapters import v1 as jtf

    return jtf


@contextlib.contextmanager
def _graph_of(tf):
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            yield


# -- reductions over no elements: the reducer's identity ----------------------------------
EMPTY = {
    "[0]": ([0], None),
    "[2, 0] axis 1": ([2, 0], 1),
    "[0, 3] axis 0": ([0, 3], 0),
    "[2, 0] axis 0": ([2, 0], 0),
    "[2, 0] axes (0, 1)": ([2, 0], (0, 1)),
    "[2, 0] axis -1 keepdims": ([2, 0], -1),
}


@pytest.mark.parametrize("reduction", ["reduce_max", "reduce_min", "reduce_prod", "reduce_sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "int8"])
@pytest.mark.parametrize("case", list(EMPTY))
def test_reductions_of_empty_inputs_give_identities(reduction, dtype, case):
    shape, axis = EMPTY[case]
    keepdims = "keepdims" in case

    def script(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None] * len(shape))
        out = getattr(tf, reduction)(x, axis=axis, keepdims=keepdims)
        fixed = getattr(tf, reduction)(tf.zeros(shape, tf.as_dtype(dtype)), axis, keepdims)
        return lambda sess: (
            sess.run(out, {x: np.zeros(shape, dtype)}),
            sess.run(fixed),
            fixed.shape.as_list(),
        )

    assert_twins(*run_both(script), rtol=0)


def test_gradient_of_an_empty_reduce_max_is_tfs():
    def script(tf):
        x = tf.zeros([2, 0])
        (grad,) = tf.gradients(tf.reduce_sum(tf.reduce_max(x, 1)), [x])
        return lambda sess: sess.run(grad)

    assert_twins(*run_both(script), rtol=0)
