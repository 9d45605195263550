"""What jtrain's ``tf.feature_column`` refuses, with errors naming the column or the
argument and what to do instead (TF builds these; jtrain cannot give TF's values, so
it raises rather than differ). TF's values and errors are checked live in
``tests/interop/test_feature_column_interop.py``."""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

fc = tf.feature_column


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as graph:
        yield graph


def test_crossed_column_of_sparse_features_of_unknown_width_raises() -> None:
    features = {
        "a": tf.sparse_placeholder(tf.string, shape=[None, None]),
        "b": tf.placeholder(tf.string, [None, 1]),
    }
    crossed = fc.crossed_column(["a", "b"], 10)
    with pytest.raises(NotImplementedError, match="crossed_column a_X_b: jtrain crosses a as"):
        fc.input_layer(features, [fc.indicator_column(crossed)])


def test_unsafe_embedding_lookup_raises_naming_the_argument() -> None:
    ids = fc.categorical_column_with_identity("a", 3)
    with pytest.raises(NotImplementedError, match="use_safe_embedding_lookup=False"):
        fc.embedding_column(ids, 2, use_safe_embedding_lookup=False)
    with pytest.raises(NotImplementedError, match="use_safe_embedding_lookup=False"):
        fc.shared_embedding_columns([ids], 2, use_safe_embedding_lookup=False)


def test_feature_of_unknown_rank_raises_naming_it() -> None:
    features = {"tags": tf.sparse_placeholder(tf.string)}
    column = fc.indicator_column(fc.categorical_column_with_hash_bucket("tags", 4))
    with pytest.raises(NotImplementedError, match="feature tags has an unknown rank"):
        fc.input_layer(features, [column])


def test_dense_categorical_feature_of_rank_3_raises() -> None:
    features = {"ids": tf.placeholder(tf.int64, [None, 2, 2])}
    column = fc.indicator_column(fc.categorical_column_with_identity("ids", 4))
    with pytest.raises(NotImplementedError, match=r"shape \[batch, n\]"):
        fc.input_layer(features, [column])


def test_weighted_column_of_dense_ids_and_sparse_weights_raises() -> None:
    features = {
        "ids": tf.placeholder(tf.int64, [None, 2]),
        "w": tf.sparse_placeholder(tf.float32, shape=[None, 2]),
    }
    column = fc.weighted_categorical_column(fc.categorical_column_with_identity("ids", 4), "w")
    with pytest.raises(NotImplementedError, match="ids_weighted_by_w.*both dense"):
        fc.input_layer(features, [fc.embedding_column(column, 2)])


def test_tfrecord_vocabulary_raises_naming_the_file() -> None:
    with pytest.raises(NotImplementedError, match="v.tfrecord.gz"):
        fc.categorical_column_with_vocabulary_file("a", "/tmp/v.tfrecord.gz", 3)


def test_dense_missing_cells_are_dropped() -> None:
    """A dense feature's missing cells ('' and -1) give no ids: an all-missing example
    embeds to zeros and its indicator is all zeros (TF's values, from the interop
    tests)."""
    features = {
        "w": tf.placeholder(tf.string, [None, 2]),
        "n": tf.placeholder(tf.int64, [None, 2]),
    }
    columns = [
        fc.embedding_column(
            fc.categorical_column_with_hash_bucket("w", 3), 2,
            initializer=tf.ones_initializer(),
        ),
        fc.indicator_column(fc.categorical_column_with_identity("n", 3)),
    ]  # fmt: skip
    out = fc.input_layer(features, columns)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(
            out,
            {
                features["w"]: np.array([[b"", b""], [b"a", b""]], object),
                features["n"]: np.array([[-1, -1], [2, -1]], np.int64),
            },
        )
    np.testing.assert_array_equal(value, [[0, 0, 0, 0, 0], [0, 0, 1, 1, 1]])
