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


# name -> (image shape, size, preserve_aspect_ratio): TF's ResizeArea has no gradient.
AREA_CASES = {
    "batch": ([1, 2, 4, 1], [1, 2], False),
    "rank 3": ([2, 4, 1], [3, 2], False),
    "aspect ratio": ([1, 2, 4, 1], [4, 2], True),
}


@pytest.mark.parametrize("case", sorted(AREA_CASES))
def test_resize_images_area_has_no_gradient(case: str) -> None:
    shape, size, keep = AREA_CASES[case]

    def script(tf):
        x = tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
        y = tf.image.resize_images(
            x, size, method=tf.image.ResizeMethod.AREA, preserve_aspect_ratio=keep
        )
        with pytest.raises(LookupError) as raised:
            tf.gradients(y, x)
        return lambda sess: (sess.run(y), y.shape.as_list(), str(raised.value))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_resize_images_area_of_the_same_size_keeps_the_gradient() -> None:
    def script(tf):
        x = tf.constant(np.arange(8, dtype=np.float32).reshape(1, 2, 4, 1))
        y = tf.image.resize_images(x, [2, 4], method=tf.image.ResizeMethod.AREA)
        return lambda sess: sess.run([y, tf.gradients(y * y, x)])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
