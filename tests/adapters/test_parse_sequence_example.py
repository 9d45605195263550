"""``tf.io.parse_sequence_example`` (``adapters/v1/ops/parsing_ops.py``): batching of
per-record parses; TF's values are checked live in ``tests/interop/test_protos_io_interop.py``."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain.protos import example_pb2


def _record(steps: list[list[int]], label: int) -> bytes:
    return example_pb2.SequenceExample(
        context={"feature": {"label": {"int64_list": {"value": [label]}}}},
        feature_lists={
            "feature_list": {
                "tok": {"feature": [{"int64_list": {"value": s}} for s in steps]},
            }
        },
    ).SerializeToString()


def test_batches_context_pads_sequences_and_counts_lengths(graph):
    x = tf.placeholder(tf.string, [2])
    context, lists, lengths = tf.io.parse_sequence_example(
        x,
        context_features={"label": tf.FixedLenFeature([], tf.int64)},
        sequence_features={
            "tok": tf.FixedLenSequenceFeature([], tf.int64),
            "rag": tf.VarLenFeature(tf.int64),
        },
    )
    assert lists["tok"].shape.as_list() == [2, None]
    records = np.array([_record([[3], [4], [5]], 1), _record([[7]], 2)], object)
    # "rag" is absent from both records: an empty SparseTensor [2, 0, 0]
    with tf.Session() as sess:
        c, s, n, rag = sess.run(
            [context["label"], lists["tok"], lengths["tok"], lists["rag"].dense_shape],
            {x: records},
        )
    assert c.tolist() == [1, 2] and c.dtype == np.int64
    assert s.tolist() == [[3, 4, 5], [7, 0, 0]]
    assert n.tolist() == [3, 1] and n.dtype == np.int64
    assert rag.tolist() == [2, 0, 0]


def test_padding_default_refused(graph):
    with pytest.raises(ValueError, match=r"dense_defaults\[tok\] must be None"):
        tf.io.parse_sequence_example(
            tf.placeholder(tf.string, [1]),
            sequence_features={"tok": tf.FixedLenSequenceFeature([], tf.int64, default_value=1)},
        )
