"""TF1 lookup tables (``tf.lookup.StaticHashTable`` with ``KeyValueTensorInitializer``
and ``TextFileInitializer``, ``tables_initializer``) checked live against TF 2.21
(``twin.py``): looked-up values, dtypes, static shapes, ``size()``, TF's errors, and
ids of strings split from a fed batch feeding an embedding trained a few steps
(losses as TF's).

jtrain had no tables (``tf.lookup`` was missing) until ``adapters/v1/ops/lookup_ops.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop


def _message(e: Any) -> str:
    lines = e.message.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("Node: "):
            return lines[i + 1]
    return lines[0]


def _canonical(value: Any) -> Any:
    a = np.asarray(value)
    return (a.dtype.name, a.shape, a.tolist() if a.dtype == object else a.tobytes())


def _run_or_error(sess: Any, fetches: Any, feed: Any = None) -> Any:
    try:
        return [_canonical(v) for v in sess.run(fetches, feed)]
    except Exception as e:  # noqa: BLE001 - compared with TF's
        return type(e).__name__, _message(e)


def test_key_value_table_as_tf():
    def script(tf):
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [10, 20, 30]), -1
        )
        x = tf.placeholder(tf.string, [None, 2])
        out = table.lookup(x)
        const = table.lookup(tf.constant(["c", "zz", "a"]))
        static = [(t.dtype.name, t.shape.as_list()) for t in (out, const)]
        dtypes = (table.key_dtype.name, table.value_dtype.name)
        init = tf.tables_initializer()

        def run(sess):
            before = _run_or_error(sess, out, {x: [["a", "b"]]})
            sess.run(init)
            got = _run_or_error(sess, [out, const, table.size()], {x: [["a", "q"], ["b", "c"]]})
            return static, dtypes, before, got

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_int64_keys_string_values_as_tf():
    def script(tf):
        keys = tf.constant([3, 1, 4], tf.int64)
        values = tf.constant(["three", "one", "four"])
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), "?")
        x = tf.placeholder(tf.int64, [3])
        out = table.lookup(x)
        static = (out.dtype.name, out.shape.as_list())

        def run(sess):
            sess.run(tf.tables_initializer())
            return static, _run_or_error(sess, out, {x: [4, 2, 3]})

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_table_errors_as_tf():
    """Duplicate keys with different values (TF's FailedPreconditionError at
    initialization), equal duplicates accepted, wrong key or default dtypes."""

    def script(tf):
        found = []
        dup = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b", "a"], [1, 2, 3]), -1
        )
        same = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b", "a"], [1, 2, 1]), -1
        )
        for build in (
            lambda: dup.lookup(tf.constant([1])),
            lambda: tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(["a"], [1]), -1.5
            ),
        ):
            try:
                build()
            except TypeError as e:
                found.append(("TypeError", str(e)))

        def run(sess):
            return (
                found,
                _run_or_error(sess, dup.initializer),
                _run_or_error(sess, [same.initializer]),
                _run_or_error(sess, same.lookup(tf.constant(["a", "c"]))),
            )

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_text_file_tables_as_tf(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("apple\t5\nbanana\t7\ncherry\t9\n")

    def script(tf):
        index = tf.lookup.TextFileIndex
        whole = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(
                str(path), tf.string, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER
            ),
            -1,
        )
        columns = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(str(path), tf.string, 0, tf.int64, 1), -1
        )
        reverse = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(str(path), tf.int64, 1, tf.string, 0), "UNK"
        )
        short = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(
                str(path), tf.string, 0, tf.int64, index.LINE_NUMBER, vocab_size=2
            ),
            -1,
        )
        too_long = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(
                str(path), tf.string, 0, tf.int64, index.LINE_NUMBER, vocab_size=5
            ),
            -1,
        )
        words = tf.constant(["banana", "apple\t5", "cherry", "kiwi"])
        fetches = [
            whole.lookup(words),
            columns.lookup(words),
            reverse.lookup(tf.constant([9, 5, 6], tf.int64)),
            short.lookup(words),
            short.size(),
        ]
        inits = [whole.initializer, columns.initializer, reverse.initializer, short.initializer]

        def run(sess):
            sess.run(inits)
            return _run_or_error(sess, fetches), _run_or_error(sess, too_long.initializer)

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_lookup_in_a_dataset_map_as_tf():
    def script(tf):
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["x", "y"], tf.constant([7, 8], tf.int64)), 0
        )
        ds = tf.data.Dataset.from_tensor_slices(["x y", "y q x"]).map(
            lambda line: table.lookup(tf.string_split([line]).values)
        )
        it = tf.data.make_initializable_iterator(ds)
        nxt = it.get_next()

        def run(sess):
            sess.run([tf.tables_initializer(), it.initializer])
            return [_canonical(sess.run(nxt)) for _ in range(2)]

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_looked_up_ids_train_an_embedding_as_tf():
    """Words split from a fed batch of sentences, mapped to ids by a vocabulary table,
    feed an embedding and a GradientDescent step: losses and the table as TF's."""
    vocab = ["<unk>", "the", "cat", "sat", "on", "mat"]
    batches = [["the cat sat", "on the mat"], ["cat on mat dog", "the the"]]

    def script(tf):
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                vocab, tf.constant(list(range(len(vocab))), tf.int64)
            ),
            0,
        )
        sentences = tf.placeholder(tf.string, [None])
        words = tf.string_split(sentences)
        ids = table.lookup(words.values)
        init = np.linspace(-1.0, 1.0, len(vocab) * 3, dtype=np.float32).reshape(-1, 3)
        embeddings = tf.Variable(init, name="embeddings")
        vectors = tf.nn.embedding_lookup(embeddings, ids)
        target = tf.constant([0.5, -0.25, 1.0])
        loss = tf.reduce_mean(tf.square(vectors - target))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)

        def run(sess):
            sess.run(tf.tables_initializer())
            losses = []
            for batch in batches * 2:
                losses.append(sess.run([loss, train], {sentences: batch})[0])
            return np.asarray(losses), sess.run(embeddings)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=1e-6)


def test_lookup_of_a_sparse_tensor_trains_as_tf():
    """``table.lookup`` of ``string_split``'s SparseTensor gives a SparseTensor of ids
    (TF's), embedded and summed per sentence in a training step."""
    vocab = ["<pad>", "a", "b", "c"]
    batches = [["a b", "c a b"], ["b", "c c q"]]

    def script(tf):
        hashed = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(vocab, tf.constant([0, 1, 2, 3], tf.int64)), 0
        )
        buckets = tf.lookup.StaticVocabularyTable(
            tf.lookup.KeyValueTensorInitializer(vocab, tf.constant([0, 1, 2, 3], tf.int64)), 2
        )
        sentences = tf.placeholder(tf.string, [None])
        words = tf.string_split(sentences)
        ids = hashed.lookup(words)
        oov_ids = buckets.lookup(words)
        embeddings = tf.Variable(
            np.linspace(-1.0, 1.0, 6 * 2, dtype=np.float32).reshape(6, 2), name="emb"
        )
        vectors = tf.nn.embedding_lookup(embeddings, oov_ids.values)
        rows = tf.cast(oov_ids.indices[:, 0], tf.int32)
        pooled = tf.math.unsorted_segment_sum(vectors, rows, tf.shape(sentences)[0])
        loss = tf.reduce_sum(tf.square(pooled - 0.5))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        static = [(t.dtype.name, t.shape.as_list()) for t in (ids.values, ids.indices)]

        def run(sess):
            sess.run(tf.tables_initializer())
            out, losses = [], []
            for batch in batches * 2:
                got = sess.run(
                    [ids.values, ids.indices, oov_ids.values, loss, train], {sentences: batch}
                )
                out.append([_canonical(v) for v in got[:3]])
                losses.append(got[3])
            return static, out, (np.asarray(losses), sess.run(embeddings))

        return run

    theirs, ours = run_both(script)
    assert theirs[:2] == ours[:2]
    assert_twins(theirs[2], ours[2], rtol=1e-6)


def test_static_vocabulary_table_as_tf(tmp_path):
    """Known words get their ids, unknown ones ``vocab_size + Fingerprint64 % buckets``
    (string and int64 keys, int32 keys looked up as int64, buckets only), size() and
    TF's dtype errors (jtrain: NotImplementedError before FarmHash was ported)."""
    path = tmp_path / "vocab.txt"
    path.write_text("the\ncat\nsat\n")

    def script(tf):
        index = tf.lookup.TextFileIndex
        words = tf.lookup.StaticVocabularyTable(
            tf.lookup.TextFileInitializer(
                str(path), tf.string, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER
            ),
            5,
        )
        numbers = tf.lookup.StaticVocabularyTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant([10, 20], tf.int64), tf.constant([0, 1], tf.int64)
            ),
            3,
            lookup_key_dtype=tf.int32,
        )
        only_buckets = tf.lookup.StaticVocabularyTable(None, 7)
        x = tf.placeholder(tf.string, [None])
        fetches = [
            words.lookup(x),
            numbers.lookup(tf.constant([20, 5, -3, 10], tf.int32)),
            only_buckets.lookup(x),
            words.size(),
            numbers.size(),
        ]
        static = [(t.dtype.name, t.shape.as_list()) for t in fetches]
        found = []
        for build in (
            lambda: tf.lookup.StaticVocabularyTable(
                tf.lookup.KeyValueTensorInitializer(["a"], [0]), 2
            ),
            lambda: tf.lookup.StaticVocabularyTable(
                tf.lookup.KeyValueTensorInitializer(["a"], tf.constant([0], tf.int64)), 0
            ),
            lambda: words.lookup(tf.constant([1])),
        ):
            try:
                build()
            except (TypeError, ValueError) as e:
                found.append((type(e).__name__, str(e)))

        def run(sess):
            before = _run_or_error(sess, fetches[0], {x: ["the"]})
            sess.run(tf.tables_initializer())
            feed = {x: ["cat", "dog", "the", "", "zebra", "sat"]}
            return static, found, before, _run_or_error(sess, fetches, feed)

        return run

    theirs, ours = run_both(script)
    assert ours == theirs
