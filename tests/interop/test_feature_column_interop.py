"""``tf.compat.v1.feature_column`` checked live against TF 2.21 (``twin.py``): the same
TF1 snippet under both, ``input_layer``/``linear_model`` outputs bit-equal (dtypes and
static shapes), the variables' names and shapes (checkpoints interchange) and the
gradients w.r.t. them, for dense and sparse, string and integer features.

jtrain had no ``tf.feature_column`` (an AttributeError) until
``adapters/v1/feature_column/``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop


def _dense_grad(g: Any, shape: tuple) -> np.ndarray:
    """A fetched gradient as a dense array (an ``IndexedSlicesValue`` summed by row;
    jtrain's padding rows, indices past the table, carry zeros and are dropped)."""
    if hasattr(g, "indices"):
        out = np.zeros(shape, np.asarray(g.values).dtype)
        keep = np.asarray(g.indices) < shape[0]
        np.add.at(out, np.asarray(g.indices)[keep], np.asarray(g.values)[keep])
        return out
    return np.asarray(g)


def _model(
    build: Any, feeds: Any, api: str = "input_layer", gradients: bool = True, **kwargs: Any
) -> Any:
    """A script: ``build(tf)`` -> (features dict of placeholders, columns); the output
    of ``api``, its static shape, the variables (name, shape) and the gradients of
    ``sum(output * weights)`` w.r.t. them, for each feed of ``feeds(tf, features)``."""

    def script(tf: Any) -> Any:
        features, columns = build(tf)
        out = getattr(tf.feature_column, api)(features, columns, **kwargs)
        variables = tf.global_variables()
        n = out.get_shape().as_list()[1]
        w = tf.constant(np.linspace(-1.0, 2.0, n, dtype=np.float32))
        grads = tf.gradients(tf.reduce_sum(out * w), variables) if gradients else []
        init = tf.tables_initializer()

        def run(sess: Any) -> Any:
            sess.run(init)
            results = []
            for feed in feeds(tf, features):
                value, gs = sess.run([out, grads], feed)
                dense = [
                    _dense_grad(g, tuple(v.shape.as_list()))
                    for g, v in zip(gs, variables, strict=False)
                ]
                results.append((value, dense))
            names = [(v.op.name, tuple(v.shape.as_list())) for v in variables]
            return results, names, (out.dtype.name, out.get_shape().as_list())

        return run

    return script


def _check(script: Any) -> None:
    theirs, ours = run_both(script)
    (t_res, t_names, t_meta), (o_res, o_names, o_meta) = theirs, ours
    assert o_names == t_names
    assert o_meta == t_meta
    assert_twins(t_res, o_res, rtol=0.0)


def _const_init(tf: Any, rows: int, dim: int) -> Any:
    return tf.constant_initializer(np.arange(rows * dim, dtype=np.float32).reshape(rows, dim) / 7)


def test_numeric_and_bucketized_columns() -> None:
    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "price": tf.placeholder(tf.float32, [None]),
            "size": tf.placeholder(tf.int32, [None, 2]),
        }
        price = fc.numeric_column("price")
        columns = [
            fc.numeric_column("size", shape=(2,), dtype=tf.int32, normalizer_fn=lambda x: x * 2),
            price,
            fc.bucketized_column(price, [-1.0, 0.0, 0.5, 10.0]),
        ]
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        x = np.array([-3.0, 0.0, 0.5, 0.49999997, 11.0, np.nan], np.float32)
        yield {f["price"]: x, f["size"]: np.arange(12, dtype=np.int32).reshape(6, 2)}

    _check(_model(build, feeds))


@pytest.mark.parametrize("combiner", ["mean", "sum", "sqrtn"])
def test_embedding_of_string_hash_bucket_dense_and_sparse(combiner: str) -> None:
    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "words": tf.placeholder(tf.string, [None, 3]),
            "tags": tf.sparse_placeholder(tf.string, shape=[None, 4]),
        }
        columns = [
            fc.embedding_column(
                fc.categorical_column_with_hash_bucket("words", 7), 3, combiner=combiner,
                initializer=_const_init(tf, 7, 3),
            ),
            fc.embedding_column(
                fc.categorical_column_with_hash_bucket("tags", 5), 2, combiner=combiner,
                initializer=_const_init(tf, 5, 2),
            ),
        ]  # fmt: skip
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        words = np.array([[b"a", b"b", b""], [b"", b"", b""], [b"zz", b"a", b"a"]], object)
        tags = tf.SparseTensorValue(
            np.array([[0, 0], [0, 3], [2, 1]], np.int64),
            np.array([b"x", b"", b"y"], object),
            np.array([3, 4], np.int64),
        )
        yield {f["words"]: words, f["tags"]: tags}

    # sqrtn's gradient differs from TF's by an ulp in tf.nn.safe_embedding_lookup_sparse
    # (reported): its values are checked here, its gradients are not.
    _check(_model(build, feeds, gradients=combiner != "sqrtn"))


def test_vocabulary_list_and_identity_columns() -> None:
    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "color": tf.placeholder(tf.string, [None]),
            "shape": tf.placeholder(tf.string, [None, 2]),
            "code": tf.placeholder(tf.int64, [None, 2]),
            "idx": tf.placeholder(tf.int32, [None, 2]),
            "n": tf.sparse_placeholder(tf.int64, shape=[None, 3]),
        }
        color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
        shape = fc.categorical_column_with_vocabulary_list(
            "shape", ["circle", "square"], num_oov_buckets=3
        )
        code = fc.categorical_column_with_vocabulary_list("code", [10, 20, 30], default_value=2)
        idx = fc.categorical_column_with_identity("idx", 4, default_value=0)
        n = fc.categorical_column_with_identity("n", 5)
        columns = [
            fc.indicator_column(color),
            fc.embedding_column(shape, 2, initializer=_const_init(tf, 5, 2)),
            fc.indicator_column(code),
            fc.embedding_column(idx, 3, combiner="sum", initializer=_const_init(tf, 4, 3)),
            fc.indicator_column(n),
        ]
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        yield {
            f["color"]: np.array([b"red", b"", b"pink", b"blue"], object),
            f["shape"]: np.array(
                [[b"circle", b"tri"], [b"", b""], [b"hex", b"square"], [b"square", b""]], object
            ),  # fmt: skip
            f["code"]: np.array([[10, 30], [-1, 20], [5, -1], [30, 30]], np.int64),
            f["idx"]: np.array([[0, 3], [-1, 7], [2, -5], [-1, -1]], np.int32),
            f["n"]: tf.SparseTensorValue(
                np.array([[0, 0], [1, 2], [3, 0], [3, 1]], np.int64),
                np.array([4, 0, 2, 2], np.int64),
                np.array([4, 3], np.int64),
            ),
        }

    _check(_model(build, feeds))


def test_linear_model_names_and_values() -> None:
    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "a": tf.placeholder(tf.float32, [None, 1]),
            "b": tf.placeholder(tf.string, [None, 2]),
            "c": tf.placeholder(tf.int64, [None]),
        }
        a = fc.numeric_column("a")
        columns = [
            a,
            fc.categorical_column_with_hash_bucket("b", 5),
            fc.bucketized_column(a, [0.0, 1.0]),
            fc.categorical_column_with_identity("c", 4),
        ]
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        yield {
            f["a"]: np.array([[-1.0], [0.5], [3.0]], np.float32),
            f["b"]: np.array([[b"x", b""], [b"y", b"x"], [b"", b""]], object),
            f["c"]: np.array([3, -1, 0], np.int64),
        }

    _check(_model(build, feeds, api="linear_model", units=2))


def test_weighted_categorical_columns() -> None:
    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "ids": tf.sparse_placeholder(tf.int64, shape=[None, 3]),
            "w": tf.sparse_placeholder(tf.float32, shape=[None, 3]),
            "word": tf.placeholder(tf.string, [None, 2]),
            "ww": tf.placeholder(tf.float32, [None, 2]),
        }
        ids = fc.weighted_categorical_column(fc.categorical_column_with_identity("ids", 4), "w")
        words = fc.weighted_categorical_column(
            fc.categorical_column_with_vocabulary_list("word", ["a", "b", "c"]), "ww"
        )
        columns = [
            fc.embedding_column(ids, 2, initializer=_const_init(tf, 4, 2)),
            fc.indicator_column(ids),
            fc.embedding_column(words, 3, combiner="sum", initializer=_const_init(tf, 3, 3)),
            fc.indicator_column(words),
        ]
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        idx = np.array([[0, 0], [0, 2], [2, 1]], np.int64)
        yield {
            f["ids"]: tf.SparseTensorValue(idx, np.array([3, 1, 3], np.int64), [3, 3]),
            f["w"]: tf.SparseTensorValue(idx, np.array([0.5, 2.0, -1.0], np.float32), [3, 3]),
            f["word"]: np.array([[b"a", b"c"], [b"", b""], [b"b", b""]], object),
            f["ww"]: np.array([[1.5, 0.25], [0.0, 0.0], [3.0, 0.0]], np.float32),
        }

    _check(_model(build, feeds))


def test_linear_model_of_weighted_and_vocabulary_columns() -> None:
    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "ids": tf.sparse_placeholder(tf.int64, shape=[None, 3]),
            "w": tf.sparse_placeholder(tf.float32, shape=[None, 3]),
            "color": tf.placeholder(tf.string, [None, 1]),
        }
        columns = [
            fc.weighted_categorical_column(fc.categorical_column_with_identity("ids", 4), "w"),
            fc.categorical_column_with_vocabulary_list("color", ["r", "g"], num_oov_buckets=2),
        ]
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        idx = np.array([[0, 0], [0, 2], [2, 1]], np.int64)
        yield {
            f["ids"]: tf.SparseTensorValue(idx, np.array([3, 1, 3], np.int64), [3, 3]),
            f["w"]: tf.SparseTensorValue(idx, np.array([0.5, 2.0, 1.5], np.float32), [3, 3]),
            f["color"]: np.array([[b"g"], [b"blue"], [b""]], object),
        }

    for combiner in ("sum", "mean", "sqrtn"):
        # sqrtn's gradient: see test_embedding_of_string_hash_bucket_dense_and_sparse.
        _check(
            _model(build, feeds, api="linear_model", units=3, sparse_combiner=combiner,
                   gradients=combiner != "sqrtn")
        )  # fmt: skip


def test_vocabulary_file_columns(tmp_path: Any) -> None:
    words = tmp_path / "words.txt"
    words.write_text("apple\nbanana\ncherry\ndate\n")
    numbers = tmp_path / "numbers.txt"
    numbers.write_text("7\n-3\n100\n")

    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "fruit": tf.placeholder(tf.string, [None, 2]),
            "num": tf.placeholder(tf.int64, [None]),
            "n32": tf.sparse_placeholder(tf.int32, shape=[None, 2]),
        }
        fruit = fc.categorical_column_with_vocabulary_file("fruit", str(words), num_oov_buckets=2)
        short = fc.categorical_column_with_vocabulary_file(
            "fruit", str(words), vocabulary_size=2, default_value=1
        )
        num = fc.categorical_column_with_vocabulary_file("num", str(numbers), dtype=tf.int64)
        n32 = fc.categorical_column_with_vocabulary_file(
            "n32", str(numbers), dtype=tf.int32, num_oov_buckets=1
        )
        columns = [
            fc.embedding_column(fruit, 2, initializer=_const_init(tf, 6, 2)),
            fc.indicator_column(short),
            fc.indicator_column(num),
            fc.indicator_column(n32),
        ]
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        yield {
            f["fruit"]: np.array([[b"cherry", b"kiwi"], [b"", b"apple"], [b"date", b"x"]], object),
            f["num"]: np.array([100, -1, 5], np.int64),
            f["n32"]: tf.SparseTensorValue(
                np.array([[0, 1], [2, 0]], np.int64), np.array([-3, 9], np.int32), [3, 2]
            ),
        }

    _check(_model(build, feeds))


def test_shared_embedding_columns_share_one_table() -> None:
    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "query": tf.placeholder(tf.int64, [None, 2]),
            "doc": tf.sparse_placeholder(tf.int64, shape=[None, 2]),
        }
        query = fc.categorical_column_with_identity("query", 5)
        doc = fc.categorical_column_with_identity("doc", 5)
        columns = fc.shared_embedding_columns(
            [query, doc], 3, combiner="sum", initializer=_const_init(tf, 5, 3)
        )
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        yield {
            f["query"]: np.array([[1, 4], [-1, -1], [0, 0]], np.int64),
            f["doc"]: tf.SparseTensorValue(
                np.array([[0, 0], [1, 1]], np.int64), np.array([4, 2], np.int64), [3, 2]
            ),
        }

    _check(_model(build, feeds))


def test_parse_example_spec_feeds_input_layer() -> None:
    """``make_parse_example_spec`` of every kind of column (the specs TF gives); its
    dense features parsed by ``tf.parse_example`` into ``input_layer`` twice in one
    graph (``input_layer_1``), with ``cols_to_vars``, ``weight_collections`` and
    ``trainable=False``; the categorical features fed (jtrain's embedding lookups
    need a fed ``SparseTensor``, not one parsed in the graph)."""

    def script(tf: Any) -> Any:
        fc = tf.feature_column
        age = fc.numeric_column("age", default_value=-1.0)
        city = fc.categorical_column_with_hash_bucket("city", 4)
        kind = fc.categorical_column_with_identity("kind", 3)
        columns = [
            age,
            fc.bucketized_column(age, [18.0, 65.0]),
            fc.numeric_column("xy", shape=(2,), dtype=tf.int64, default_value=[0, 0]),
            fc.embedding_column(city, 2, initializer=_const_init(tf, 4, 2)),
            fc.indicator_column(kind),
        ]
        weighted = fc.weighted_categorical_column(
            fc.categorical_column_with_vocabulary_list("v", [1, 2]), "vw", dtype=tf.int32
        )
        spec = fc.make_parse_example_spec(columns + [weighted])
        serialized = tf.placeholder(tf.string, [None])
        features = tf.parse_example(serialized, {k: spec[k] for k in ("age", "xy")})
        features["city"] = tf.placeholder(tf.string, [None, 2], name="city")
        features["kind"] = tf.placeholder(tf.int64, [None, 2], name="kind")
        cols_to_vars: dict = {}
        out = fc.input_layer(
            features, columns, weight_collections=["mine"], cols_to_vars=cols_to_vars
        )
        per_column: dict = {}
        frozen = fc.input_layer(
            features, columns[2:4], trainable=False, cols_to_output_tensors=per_column
        )
        names = {
            "spec": sorted((k, type(v).__name__, repr(v)) for k, v in spec.items()),
            "vars": sorted((c.name, [v.op.name for v in vs]) for c, vs in cols_to_vars.items()),
            "collections": [
                [v.op.name for v in tf.get_collection(key)]
                for key in (
                    "mine",
                    tf.GraphKeys.MODEL_VARIABLES,
                    tf.GraphKeys.TRAINABLE_VARIABLES,
                    tf.GraphKeys.GLOBAL_VARIABLES,
                )
            ],  # fmt: skip
            "shapes": [out.get_shape().as_list(), frozen.get_shape().as_list()],
        }
        init = tf.tables_initializer()

        def run(sess: Any) -> Any:
            sess.run(init)
            examples = [_example(30.0, [1, 2]), _example(None, None), _example(70.0, [5, -4])]
            feed = {
                serialized: np.array(examples, object),
                features["city"]: np.array([[b"paris", b""], [b"x", b"rome"], [b"", b""]], object),
                features["kind"]: np.array([[2, -1], [-1, -1], [0, 1]], np.int64),
            }
            by_name = [per_column[c] for c in sorted(per_column, key=lambda c: c.name)]
            return names, sess.run([out, frozen, by_name], feed)

        return run

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=0.0)


def _example(age: Any, xy: Any) -> bytes:
    """A serialized ``tf.train.Example`` (TF's protos)."""
    import tensorflow as real_tf

    feature = {}
    if age is not None:
        feature["age"] = real_tf.train.Feature(float_list=real_tf.train.FloatList(value=[age]))
    if xy is not None:
        feature["xy"] = real_tf.train.Feature(int64_list=real_tf.train.Int64List(value=xy))
    example = real_tf.train.Example(features=real_tf.train.Features(feature=feature))
    return example.SerializeToString()


def _error(call: Any) -> Any:
    """``(error class, message)``: classes named without their module (TF's and
    jtrain's live in different modules), tensors without their ``str`` (jtrain's
    ``str(Tensor)`` is not TF1's, reported)."""
    import re

    try:
        call()
    except Exception as e:  # noqa: BLE001 - compared with TF's
        message = re.sub(r"<class '(?:[\w]+\.)*(\w+)'>", r"\1", str(e))
        return type(e).__name__, message.split(" Given: Tensor(")[0].split(" Given: <tf.Tensor")[0]
    return None


_BAD_CALLS = {
    "dimension": lambda tf, fc: fc.embedding_column(fc.categorical_column_with_identity("a", 3), 0),
    "ckpt": lambda tf, fc: fc.embedding_column(
        fc.categorical_column_with_identity("a", 3), 2, ckpt_to_load_from="x"
    ),
    "shape_type": lambda tf, fc: fc.numeric_column("a", shape=(1.5,)),
    "shape_value": lambda tf, fc: fc.numeric_column("a", shape=(2, 0)),
    "numeric_dtype": lambda tf, fc: fc.numeric_column("a", dtype=tf.string),
    "default_shape": lambda tf, fc: fc.numeric_column("a", shape=(2,), default_value=[1.0]),
    "default_type": lambda tf, fc: fc.numeric_column("a", dtype=tf.int32, default_value=0.5),
    "normalizer": lambda tf, fc: fc.numeric_column("a", normalizer_fn=3),
    "key": lambda tf, fc: fc.numeric_column(3),
    "bucket_source": lambda tf, fc: fc.bucketized_column("a", [1.0]),
    "bucket_empty": lambda tf, fc: fc.bucketized_column(fc.numeric_column("a"), []),
    "bucket_sorted": lambda tf, fc: fc.bucketized_column(fc.numeric_column("a"), [2.0, 1.0]),
    "bucket_2d": lambda tf, fc: fc.bucketized_column(fc.numeric_column("a", shape=(2, 2)), [1.0]),
    "hash_size": lambda tf, fc: fc.categorical_column_with_hash_bucket("a", 0),
    "hash_dtype": lambda tf, fc: fc.categorical_column_with_hash_bucket("a", 3, tf.float32),
    "vocab_empty": lambda tf, fc: fc.categorical_column_with_vocabulary_list("a", []),
    "vocab_dup": lambda tf, fc: fc.categorical_column_with_vocabulary_list("a", ["x", "x"]),
    "vocab_both": lambda tf, fc: fc.categorical_column_with_vocabulary_list(
        "a", ["x"], default_value=3, num_oov_buckets=2
    ),
    "vocab_dtype": lambda tf, fc: fc.categorical_column_with_vocabulary_list(
        "a", ["x"], dtype=tf.int64
    ),
    "identity_buckets": lambda tf, fc: fc.categorical_column_with_identity("a", 0),
    "identity_default": lambda tf, fc: fc.categorical_column_with_identity("a", 3, 3),
    "indicator": lambda tf, fc: fc.indicator_column(fc.numeric_column("a")),
    "weighted_dtype": lambda tf, fc: fc.weighted_categorical_column(
        fc.categorical_column_with_identity("a", 3), "w", dtype=tf.string
    ),
    "file_missing": lambda tf, fc: fc.categorical_column_with_vocabulary_file("a", "/nonexistent"),
    "file_size": lambda tf, fc: fc.categorical_column_with_vocabulary_file("a", "/x", 0),
    "shared_buckets": lambda tf, fc: fc.shared_embedding_columns(
        [fc.categorical_column_with_identity("a", 3), fc.categorical_column_with_identity("b", 4)],
        2,
    ),
    "shared_types": lambda tf, fc: fc.shared_embedding_columns(
        [
            fc.categorical_column_with_identity("a", 3),
            fc.categorical_column_with_hash_bucket("b", 3),
        ],
        2,
    ),  # fmt: skip
    "input_layer_categorical": lambda tf, fc: fc.input_layer(
        {"a": tf.placeholder(tf.int64, [None])}, [fc.categorical_column_with_identity("a", 3)]
    ),
    "duplicate": lambda tf, fc: fc.input_layer(
        {"a": tf.placeholder(tf.float32, [None])}, [fc.numeric_column("a"), fc.numeric_column("a")]
    ),
    "empty": lambda tf, fc: fc.input_layer({}, []),
    "dict": lambda tf, fc: fc.input_layer({}, {"a": fc.numeric_column("a")}),
    "missing": lambda tf, fc: fc.input_layer(
        {"b": tf.placeholder(tf.float32, [None])}, [fc.numeric_column("a")]
    ),
    "rank0": lambda tf, fc: fc.input_layer(
        {"a": tf.placeholder(tf.float32, [])}, [fc.numeric_column("a")]
    ),
    "numeric_sparse": lambda tf, fc: fc.input_layer(
        {"a": tf.sparse_placeholder(tf.float32, shape=[None, 2])}, [fc.numeric_column("a")]
    ),
    "hash_input_dtype": lambda tf, fc: fc.input_layer(
        {"a": tf.placeholder(tf.int64, [None])},
        [fc.indicator_column(fc.categorical_column_with_hash_bucket("a", 3))],
    ),
    "vocab_input_dtype": lambda tf, fc: fc.input_layer(
        {"a": tf.placeholder(tf.int64, [None])},
        [fc.indicator_column(fc.categorical_column_with_vocabulary_list("a", ["x"]))],
    ),
    "identity_input_dtype": lambda tf, fc: fc.input_layer(
        {"a": tf.placeholder(tf.string, [None])},
        [fc.indicator_column(fc.categorical_column_with_identity("a", 3))],
    ),
    "batch_sizes": lambda tf, fc: fc.input_layer(
        {"a": tf.placeholder(tf.float32, [2]), "b": tf.placeholder(tf.float32, [3])},
        [fc.numeric_column("a"), fc.numeric_column("b")],
    ),
    "weights_dtype": lambda tf, fc: fc.input_layer(
        {"a": tf.placeholder(tf.int64, [None]), "w": tf.placeholder(tf.float64, [None])},
        [
            fc.indicator_column(
                fc.weighted_categorical_column(fc.categorical_column_with_identity("a", 3), "w")
            )
        ],
    ),  # fmt: skip
    "cross_size": lambda tf, fc: fc.crossed_column(["a", "b"], 0),
    "cross_keys": lambda tf, fc: fc.crossed_column(["a"], 3),
    "cross_key_type": lambda tf, fc: fc.crossed_column(["a", fc.numeric_column("b")], 3),
    "cross_hashed": lambda tf, fc: fc.crossed_column(
        ["a", fc.categorical_column_with_hash_bucket("b", 3)], 3
    ),
    "linear_bad_column": lambda tf, fc: fc.linear_model({}, ["a"]),
    "parse_spec_conflict": lambda tf, fc: fc.make_parse_example_spec(
        [fc.numeric_column("a"), fc.categorical_column_with_identity("a", 3)]
    ),
}


@pytest.mark.parametrize("case", sorted(_BAD_CALLS))
def test_errors_as_tf(case: str) -> None:
    def script(tf: Any) -> Any:
        error = _error(lambda: _BAD_CALLS[case](tf, tf.feature_column))
        return lambda sess: error

    theirs, ours = run_both(script)
    assert theirs is not None
    assert ours == theirs


def _training_model(tf: Any) -> Any:
    """``input_layer`` (an embedding, a bucketized and a numeric column) into
    ``linear_model``-style logits; features fed."""
    fc = tf.feature_column
    f = {
        "words": tf.placeholder(tf.string, [None, 2]),
        "x": tf.placeholder(tf.float32, [None]),
        "tag": tf.placeholder(tf.int64, [None]),
    }
    x = fc.numeric_column("x")
    columns = [
        fc.embedding_column(
            fc.categorical_column_with_vocabulary_list("words", ["a", "b", "c"], num_oov_buckets=1),
            2, initializer=_const_init(tf, 4, 2),
        ),
        fc.bucketized_column(x, [0.0, 1.0]),
        x,
    ]  # fmt: skip
    hidden = fc.input_layer(f, columns)
    logits = fc.linear_model(f, [fc.categorical_column_with_identity("tag", 3), x], units=1)
    w = tf.constant(np.linspace(0.5, -0.5, 6, dtype=np.float32).reshape(6, 1))
    y = tf.constant(np.array([[1.0], [0.0], [1.0]], np.float32))
    loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w) + logits - y))
    feed = {
        f["words"]: np.array([[b"a", b"z"], [b"", b"c"], [b"b", b"b"]], object),
        f["x"]: np.array([-0.5, 0.5, 2.0], np.float32),
        f["tag"]: np.array([2, 0, -1], np.int64),
    }
    return loss, feed


def test_training_steps_and_checkpoint_interchange(tmp_path: Any) -> None:
    """Three SGD steps (sparse updates of the embedding table) give TF's losses and
    variables; a checkpoint jtrain writes restores in TF with the same model output.

    The loss's ``matmul`` and ``reduce_mean`` sum in XLA's order, not Eigen's: values
    within twin.py's usual float32 tolerance (the columns' outputs are bit-equal in
    the tests above)."""

    def script(tf: Any) -> Any:
        loss, feed = _training_model(tf)
        train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
        init = tf.tables_initializer()
        saver = tf.train.Saver()

        def run(sess: Any) -> Any:
            sess.run(init)
            losses = [sess.run([loss, train], feed)[0] for _ in range(3)]
            if tf is jtf:
                saver.save(sess, str(tmp_path / "model"))
            values = {v.op.name: sess.run(v) for v in tf.global_variables()}
            return losses, values, sess.run(loss, feed)

        return run

    from tests.interop.twin import jtf, run_once, tf1

    theirs, ours = run_both(script)
    assert sorted(ours[1]) == sorted(theirs[1])
    assert_twins(theirs, ours)

    def restore(tf: Any) -> Any:
        loss, feed = _training_model(tf)
        saver, init = tf.train.Saver(), tf.tables_initializer()

        def run(sess: Any) -> Any:
            sess.run(init)
            saver.restore(sess, str(tmp_path / "model"))
            return sess.run(loss, feed)

        return run

    assert_twins(run_once(tf1, restore), ours[2])


def test_static_batch_rank1_sparse_integer_hash_and_bucketized_embedding() -> None:
    """A static batch (TF's static output shape), rank-1 ``SparseTensor`` features
    (expanded to ``[batch, 1]``), integer features hashed by their decimal strings,
    multi-dimensional numeric columns, repeated ids counted by the indicator, and an
    embedding of a bucketized column."""

    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "n": tf.placeholder(tf.int32, [3, 2]),
            "s": tf.sparse_placeholder(tf.int64, shape=[3]),
            "m": tf.placeholder(tf.float64, [3, 2, 2]),
            "v": tf.placeholder(tf.float32, [3, 2]),
            "r": tf.placeholder(tf.int64, [3, 3]),
        }
        v = fc.numeric_column("v", shape=(2,))
        columns = [
            fc.indicator_column(fc.categorical_column_with_hash_bucket("n", 6, dtype=tf.int32)),
            fc.embedding_column(
                fc.categorical_column_with_hash_bucket("s", 5, dtype=tf.int64), 2,
                initializer=_const_init(tf, 5, 2),
            ),
            fc.numeric_column("m", shape=(2, 2), dtype=tf.float64),
            fc.embedding_column(
                fc.bucketized_column(v, [0.0, 1.0]), 2, combiner="sum",
                initializer=_const_init(tf, 6, 2),
            ),
            fc.indicator_column(fc.categorical_column_with_identity("r", 4)),
        ]  # fmt: skip
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        yield {
            f["n"]: np.array([[12, -1], [-1, -1], [7, 123456]], np.int32),
            f["s"]: tf.SparseTensorValue(
                np.array([[0], [2]], np.int64), np.array([-5, 99], np.int64), [3]
            ),
            f["m"]: np.arange(12, dtype=np.float64).reshape(3, 2, 2) / 3,
            f["v"]: np.array([[-1.0, 0.5], [1.0, 0.0], [7.0, -7.0]], np.float32),
            f["r"]: np.array([[1, 1, 3], [-1, -1, -1], [0, 3, 0]], np.int64),
        }

    _check(_model(build, feeds))


def test_crossed_columns_of_dense_features_and_bucketized_columns() -> None:
    """TF's ``SparseCross`` ids (``FingerprintCat64`` chains): string and integer
    features (``''`` and ``-1`` crossed as values), a bucketized column, a nested
    cross, a custom ``hash_key``, in embedding, indicator and linear model."""

    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "edu": tf.placeholder(tf.string, [None]),
            "job": tf.placeholder(tf.string, [None, 2]),
            "n": tf.placeholder(tf.int32, [None, 1]),
            "age": tf.placeholder(tf.float32, [None]),
        }
        age = fc.bucketized_column(fc.numeric_column("age"), [18.0, 40.0, 65.0])
        edu_job = fc.crossed_column(["edu", "job"], 7)
        columns = [
            fc.indicator_column(edu_job),
            fc.embedding_column(
                fc.crossed_column([age, edu_job, "n"], 11), 2, combiner="sum",
                initializer=_const_init(tf, 11, 2),
            ),
            fc.indicator_column(fc.crossed_column(["n", "edu"], 5, hash_key=12345)),
        ]  # fmt: skip
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        yield {
            f["edu"]: np.array([b"phd", b"", b"hs"], object),
            f["job"]: np.array([[b"dev", b"ops"], [b"", b"x"], [b"hs", b"hs"]], object),
            f["n"]: np.array([[3], [-1], [2**30]], np.int32),
            f["age"]: np.array([17.0, 40.0, 99.0], np.float32),
        }

    _check(_model(build, feeds))

    def linear(tf: Any) -> Any:
        f, columns = build(tf)
        age = tf.feature_column.bucketized_column(
            tf.feature_column.numeric_column("age"), [18.0, 40.0, 65.0]
        )
        return f, [columns[0].categorical_column, tf.feature_column.crossed_column([age, "edu"], 9)]

    _check(_model(linear, feeds, api="linear_model", units=2))


def test_reused_variable_scopes_share_the_tables() -> None:
    """``input_layer`` and ``linear_model`` built twice in a reusing variable scope (a
    TF1 train/eval tower) share their variables, named as TF names them."""

    def script(tf: Any) -> Any:
        fc = tf.feature_column
        f = {"a": tf.placeholder(tf.int64, [None, 2])}
        ids = fc.categorical_column_with_identity("a", 4)
        cols = [fc.embedding_column(ids, 2, initializer=_const_init(tf, 4, 2))]
        outs = []
        for _ in range(2):
            with tf.variable_scope("m", reuse=tf.AUTO_REUSE):
                outs.append(fc.input_layer(f, cols))
        with tf.variable_scope("n"):
            outs.append(fc.linear_model(f, [ids]))
        with tf.variable_scope("n", reuse=True):
            outs.append(fc.linear_model(f, [ids]))
        names = sorted(v.op.name for v in tf.global_variables())
        feed = {f["a"]: np.array([[1, 3], [-1, 0]], np.int64)}
        return lambda sess: (names, sess.run(outs, feed))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=0.0)


def test_features_from_a_dataset_iterator() -> None:
    """Features from a ``tf.data`` iterator (the TF1 ``input_fn`` pattern): strings
    looked up and hashed, numbers bucketized, batch after batch."""

    def script(tf: Any) -> Any:
        fc = tf.feature_column
        data = {
            "city": np.array([b"paris", b"rome", b"", b"oslo", b"rome"], object),
            "tags": np.array(
                [[b"a", b"b"], [b"", b""], [b"c", b"a"], [b"z", b""], [b"b", b"b"]], object
            ),  # fmt: skip
            "age": np.array([12.0, 33.0, 50.0, 70.0, 18.0], np.float32),
        }
        it = tf.data.Dataset.from_tensor_slices(data).batch(2).make_one_shot_iterator()
        features = it.get_next()
        age = fc.numeric_column("age")
        columns = [
            fc.indicator_column(
                fc.categorical_column_with_vocabulary_list("city", ["paris", "rome"])
            ),
            fc.embedding_column(
                fc.categorical_column_with_hash_bucket("tags", 5), 2,
                initializer=_const_init(tf, 5, 2),
            ),
            fc.bucketized_column(age, [18.0, 65.0]),
            fc.indicator_column(fc.crossed_column([fc.bucketized_column(age, [30.0]), "city"], 4)),
        ]  # fmt: skip
        out = fc.input_layer(features, columns)
        init = tf.tables_initializer()

        def run(sess: Any) -> Any:
            sess.run(init)
            return [sess.run(out) for _ in range(3)]

        return run

    assert_twins(*run_both(script), rtol=0.0)


def test_crossed_columns_of_sparse_features_and_categorical_columns() -> None:
    """Crosses of ``SparseTensor`` features (a row's values crossed in order; an empty
    row has no crosses) and of vocabulary/identity columns of dense features (their
    missing cells not crossed, an out-of-vocabulary id -1 crossed as TF crosses it)."""

    def build(tf: Any) -> Any:
        fc = tf.feature_column
        f = {
            "tags": tf.sparse_placeholder(tf.string, shape=[None, 3]),
            "nums": tf.sparse_placeholder(tf.int64, shape=[None, 2]),
            "city": tf.placeholder(tf.string, [None, 2]),
            "kind": tf.placeholder(tf.int32, [None]),
            "edu": tf.placeholder(tf.string, [None]),
        }
        city = fc.categorical_column_with_vocabulary_list("city", ["paris", "rome"])
        kind = fc.categorical_column_with_identity("kind", 4)
        columns = [
            fc.indicator_column(fc.crossed_column(["tags", "edu"], 6)),
            fc.embedding_column(
                fc.crossed_column([city, "nums", kind], 9), 2, combiner="mean",
                initializer=_const_init(tf, 9, 2),
            ),
            fc.indicator_column(fc.crossed_column([kind, "tags", "nums"], 7, hash_key=7)),
        ]  # fmt: skip
        return f, columns

    def feeds(tf: Any, f: Any) -> Any:
        yield {
            f["tags"]: tf.SparseTensorValue(
                np.array([[0, 0], [0, 2], [2, 0], [2, 1], [2, 2]], np.int64),
                np.array([b"a", b"b", b"", b"c", b"a"], object),
                np.array([3, 3], np.int64),
            ),
            f["nums"]: tf.SparseTensorValue(
                np.array([[0, 1], [1, 0], [2, 0], [2, 1]], np.int64),
                np.array([5, -1, 7, 8], np.int64),
                np.array([3, 2], np.int64),
            ),
            f["city"]: np.array([[b"rome", b"oslo"], [b"", b"paris"], [b"paris", b""]], object),
            f["kind"]: np.array([2, -1, 3], np.int32),
            f["edu"]: np.array([b"hs", b"phd", b""], object),
        }

    _check(_model(build, feeds))


def test_constant_features() -> None:
    """Features given as Python/NumPy values and constant ``SparseTensor``s."""

    def script(tf: Any) -> Any:
        fc = tf.feature_column
        features = {
            "w": np.array([[b"a", b""], [b"q", b"b"]], object),
            "n": [[1.5], [-2.0]],
            "s": tf.SparseTensor([[0, 0], [1, 1]], ["b", "zz"], [2, 2]),
            "i": tf.constant([[3, -1], [-1, -1]], tf.int64),
        }
        columns = [
            fc.indicator_column(fc.categorical_column_with_vocabulary_list("w", ["a", "b"])),
            fc.numeric_column("n"),
            fc.embedding_column(
                fc.categorical_column_with_vocabulary_list("s", ["a", "b"], num_oov_buckets=2),
                2, initializer=_const_init(tf, 4, 2),
            ),
            fc.indicator_column(fc.crossed_column(["w", "s"], 5)),
            fc.indicator_column(fc.categorical_column_with_identity("i", 4)),
        ]  # fmt: skip
        out = fc.input_layer(features, columns)
        init = tf.tables_initializer()

        def run(sess: Any) -> Any:
            sess.run(init)
            return sess.run(out), out.get_shape().as_list()

        return run

    assert_twins(*run_both(script), rtol=0.0)


def test_partitioned_tables() -> None:
    """Under a partitioner the tables are TF's ``PartitionedVariable`` parts: names,
    shapes, collections, ``cols_to_vars`` and values as TF's."""

    def script(tf: Any) -> Any:
        fc = tf.feature_column
        f = {"a": tf.placeholder(tf.int64, [None, 2]), "x": tf.placeholder(tf.float32, [None])}
        ids = fc.categorical_column_with_identity("a", 5)
        columns = [fc.embedding_column(ids, 2, initializer=tf.constant_initializer(0.5))]
        in_vars: dict = {}
        lin_vars: dict = {}
        with tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(2)):
            out = fc.input_layer(f, columns, cols_to_vars=in_vars, weight_collections=["w"])
            lin = fc.linear_model(
                f, [ids, fc.numeric_column("x")], units=2, cols_to_vars=lin_vars,
                weight_collections=["w"],
            )  # fmt: skip

        def names(vs: Any) -> list:
            return [v.op.name for v in vs]

        meta = {
            "vars": sorted((v.op.name, v.shape.as_list()) for v in tf.global_variables()),
            "collections": [names(tf.get_collection(k)) for k in ("w", "model_variables")],
            "cols_to_vars": sorted(
                (c if isinstance(c, str) else c.name, names(vs))
                for d in (in_vars, lin_vars) for c, vs in d.items()
            ),
        }  # fmt: skip
        feed = {f["a"]: np.array([[1, 4], [-1, 0]], np.int64), f["x"]: np.array([1.0, 2.0])}
        return lambda sess: (meta, sess.run([out, lin], feed))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=0.0)


def test_embedding_table_initialized_from_a_checkpoint(tmp_path: Any) -> None:
    """``embedding_column(ckpt_to_load_from=..., tensor_name_in_ckpt=...)`` starts the
    table (and a shared one) from a TF-written checkpoint."""
    from tests.interop.twin import run_once, tf1

    def write(tf: Any) -> Any:
        tf.get_variable("emb", initializer=np.arange(8, dtype=np.float32).reshape(4, 2) / 3)
        saver = tf.train.Saver()
        return lambda sess: saver.save(sess, str(tmp_path / "ckpt"))

    run_once(tf1, write)

    def script(tf: Any) -> Any:
        fc = tf.feature_column
        f = {"a": tf.placeholder(tf.int64, [None, 2]), "b": tf.placeholder(tf.int64, [None])}
        load = {"ckpt_to_load_from": str(tmp_path / "ckpt"), "tensor_name_in_ckpt": "emb"}
        a, b = (
            fc.categorical_column_with_identity("a", 4),
            fc.categorical_column_with_identity("b", 4),
        )
        columns = [fc.embedding_column(a, 2, **load)] + fc.shared_embedding_columns(
            [a, b], 2, combiner="sum", **load
        )
        out = fc.input_layer(f, columns)
        feed = {f["a"]: np.array([[1, 3], [-1, 0]], np.int64), f["b"]: np.array([2, -1])}
        return lambda sess: sess.run(out, feed)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0.0)
