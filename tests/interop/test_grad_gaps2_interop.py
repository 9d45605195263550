"""Gradients and messages where jtrain differed from TF 2.21, checked live (``twin.py``):
``stateless_parameterized_truncated_normal``'s gradients (jtrain had none), ``argsort``
differentiated directly, ``resize_images``' AREA method (no gradient in TF) and
``sigmoid_cross_entropy_with_logits``' shape message.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

# name -> (means, stddevs, minvals, maxvals, shape): broadcasting, leading sample dims,
# an infinite bound.
PTN_CASES = {
    "per member": ([0.5, -0.2], [1.0, 2.0], [-1.0, -3.0], [2.0, 1.0], [3, 2]),
    "broadcast scalars": (0.3, [1.0, 0.5], -1.0, [2.0, 0.8], [4, 2]),
    "row bounds": ([[0.0], [1.0]], 1.5, [[-2.0, -1.0]], 3.0, [2, 2, 2]),
    "infinite maxval": ([0.0, 1.0], 1.0, [-0.5, 0.0], [np.inf, np.inf], [3, 2]),
}


@pytest.mark.parametrize("case", sorted(PTN_CASES))
def test_stateless_parameterized_truncated_normal_gradients(case: str) -> None:
    means, stddevs, minvals, maxvals, shape = PTN_CASES[case]

    def script(tf):
        params = [tf.constant(v, tf.float32) for v in (means, stddevs, minvals, maxvals)]
        y = tf.random.stateless_parameterized_truncated_normal(shape, [7, 3], *params)
        upstream = tf.reshape(tf.range(1.0, 1.0 + float(np.prod(shape))), shape)
        grads = tf.gradients(y * upstream, params)
        return lambda sess: (sess.run(y), sess.run(grads), y.shape.as_list())

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
