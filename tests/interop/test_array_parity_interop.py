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


PACKED = {
    "gather indices": lambda tf, x, i: tf.gather(x, [i, 0]),
    "a list to convert": lambda tf, x, i: tf.convert_to_tensor([i, 1]),
    "one_hot indices": lambda tf, x, i: tf.one_hot([i, 0], 3),
    "an operand": lambda tf, x, i: tf.multiply([i, i], 2),
    "gather_nd indices": lambda tf, x, i: tf.gather_nd(x, [[i, i]]),
    "nested lists": lambda tf, x, i: tf.convert_to_tensor([[i, 2], [3, i]]),
    "a float tensor first": lambda tf, x, i: tf.convert_to_tensor([tf.constant(2.0), 1]),
    "toward a dtype": lambda tf, x, i: tf.convert_to_tensor([i, 2], dtype=tf.int32),
}


@pytest.mark.parametrize("case", list(PACKED))
def test_lists_holding_tensors_are_packed_as_tf(case):
    """TF packs a list holding tensors into one tensor (Python numbers converted to
    the tensors' dtype); jtrain raised TypeError."""

    def script(tf):
        out = PACKED[case](tf, tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant(1))
        return lambda sess: sess.run(out)

    assert_twins(*run_both(script), rtol=0)


@pytest.mark.parametrize(
    "items", [lambda tf, i: [i, 1.5], lambda tf, i: [i, tf.constant(1.0)]], ids=["float", "tensor"]
)
def test_packing_mismatched_dtypes_is_tfs_type_error(items):
    from adapters import v1 as jtf
    from tests.interop.twin import classic_tf1, tf1

    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else jtf.Graph().as_default(), tf.Graph().as_default():
            with pytest.raises(TypeError):
                tf.convert_to_tensor(items(tf, tf.constant(1)))
