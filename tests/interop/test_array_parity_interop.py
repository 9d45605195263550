"""Array ops whose values differed from TF 2.21's, checked live (``twin.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

MASKS = {
    "float lengths, maxlen": lambda tf: tf.sequence_mask([1.5, 2.0, 0.2], 3),
    "float lengths, no maxlen": lambda tf: tf.sequence_mask([1.5, 2.5]),
    "int64 lengths": lambda tf: tf.sequence_mask(tf.constant([1, 3], tf.int64), 4),
    "int lengths, no maxlen": lambda tf: tf.sequence_mask([[1, 3], [0, 2]]),
    "float dtype": lambda tf: tf.sequence_mask([1, 2], 3, dtype=tf.float32),
    "negative length": lambda tf: tf.sequence_mask(np.array([-1, 2], np.int32), 3),
}


@pytest.mark.parametrize("case", list(MASKS))
def test_sequence_mask_as_tf(case):
    def script(tf):
        mask = MASKS[case](tf)
        return lambda sess: sess.run(mask)

    assert_twins(*run_both(script), rtol=0)
