"""``padded_batch`` (and ``bucket_by_sequence_length``, which pads the same way) under
TF 2.21's ``compat.v1`` and under ``adapters.v1``: the batches before a row too long
for its padded shape, then TF's error class and message at that run."""

from __future__ import annotations

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

ROWS = [[1, 2, 3], [4], [5, 6], [7, 8, 9, 10], [11]]
TF_MESSAGE = "Attempted to pad to a smaller size than the input element."


def _generator_rows(tf):
    def gen():
        for i, row in enumerate(ROWS):
            yield row, i

    return tf.data.Dataset.from_generator(gen, (tf.int64, tf.int32), ([None], []))


def _range_rows(tf):
    return tf.data.Dataset.range(1, 6).map(lambda n: (tf.range(n), tf.constant(0)))


BUILDS = {
    "generator_padded_batch": lambda tf: _generator_rows(tf).padded_batch(
        2, padded_shapes=([3], [])
    ),
    "range_padded_batch_padding_values": lambda tf: _range_rows(tf).padded_batch(
        2, padded_shapes=([3], []), padding_values=(tf.constant(-1, tf.int64), 0)
    ),
    "bucket_by_sequence_length": lambda tf: _generator_rows(tf).apply(
        tf.data.experimental.bucket_by_sequence_length(
            lambda x, y: tf.shape(x)[0], bucket_boundaries=[2], bucket_batch_sizes=[2, 2],
            padded_shapes=([3], []),
        )
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_row_longer_than_padded_shape_raises_data_loss(name):
    """TF 2.21 raises ``DataLossError`` here (its docs name no error class)."""

    def script(tf):
        element = tf.data.make_one_shot_iterator(BUILDS[name](tf)).get_next()

        def run(sess):
            batches = []
            for _ in range(5):
                try:
                    batches.append([a.tolist() for a in sess.run(element)])
                except tf.errors.OpError as e:
                    return batches, type(e).__name__, e.message
            raise AssertionError("no error")

        return run

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert theirs[1] == "DataLossError" and TF_MESSAGE in theirs[2]
    assert ours[2].startswith(TF_MESSAGE), ours[2]


def _pairs(tf):
    """(int64 vector of length n, float32 n, string) for n = 1, 2, 3."""
    return tf.data.Dataset.range(1, 4).map(
        lambda n: (tf.range(n), tf.cast(n, tf.float32), tf.as_string(n))
    )


# padding_values / padded_shapes as scripts write them, valid or not
ARGUMENTS = {
    "none_for_a_component": lambda tf: (None, (np.int64(-1), None, b"pad")),
    "constant_tensor": lambda tf: (None, (tf.constant(-2, tf.int64), 0.5, "")),
    "python_int_for_int64": lambda tf: (None, (0, 0.0, "")),
    "python_int_for_float32": lambda tf: (None, (np.int64(0), 1, "")),
    "int32_tensor": lambda tf: (None, (tf.constant(-2), 0.0, "")),
    "string_for_int64": lambda tf: (None, ("a", 0.0, "")),
    "vector_value": lambda tf: (None, ([1], 0.0, "")),
    "one_value_for_every_component": lambda tf: (None, np.int64(0)),
    "padded_shapes_tensor_int64": lambda tf: ((tf.constant([5], tf.int64), [], []), None),
    "padded_shapes_tensor_int32": lambda tf: ((tf.constant([5]), [], []), None),
    "padded_shapes_tensor_matrix": lambda tf: ((tf.constant([[5]], tf.int64), [], []), None),
    "padded_shapes_wrong_rank": lambda tf: (([5, 2], [], []), None),
    "padded_shapes_tensorshape": lambda tf: ((tf.TensorShape([4]), tf.TensorShape([]), []), None),
    "padded_shapes_minus_one": lambda tf: (([-1], [], []), None),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_padded_batch_arguments_as_tf_reads_them(name):
    """TF's checks of ``padding_values`` (TF's literal dtypes: ``0`` is int32, so not an
    int64 component's) and of ``padded_shapes``, with its error classes and messages,
    else the same batches and static shapes."""

    def script(tf):
        padded_shapes, padding_values = ARGUMENTS[name](tf)
        ds = _pairs(tf)
        try:
            batched = ds.padded_batch(
                2, padded_shapes=padded_shapes or ([None], [], []), padding_values=padding_values
            )
        except (TypeError, ValueError) as e:
            error = (type(e).__name__, str(e))
            return lambda sess: error
        element = tf.data.make_one_shot_iterator(batched).get_next()
        shapes = [t.shape.as_list() for t in element]

        def run(sess):
            return shapes, [[v.tolist() for v in sess.run(element)] for _ in range(2)]

        return run

    theirs, ours = run_both(script)
    assert ours == theirs
