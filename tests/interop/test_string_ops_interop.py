"""TF's string ops (``tf.string_split``, ``tf.strings.*``...) checked live against TF 2.21
(``twin.py``): values (bit-exact), dtypes, static shapes and run-time errors, from a
fed placeholder and from a constant.

jtrain had none of them (an ``AttributeError`` on ``tf.string_split``, ``tf.strings``)
until ``adapters/v1/ops/string_ops.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop


def _canonical(value: Any) -> Any:
    a = np.asarray(value)
    return (a.dtype.name, a.shape, a.tolist() if a.dtype == object else a.tobytes())


def _message(e: Any) -> str:
    """An error's own message (TF's graph errors lead with where the node was built)."""
    lines = e.message.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("Node: "):
            return lines[i + 1]
    return lines[0]


def _outcome(tf: Any, build: Any, data: Any, fed: bool) -> Any:
    """``build(tf, x)``'s static shapes, dtypes and values (or its error), where ``x`` is
    ``data`` fed to a placeholder (``fed``) or a constant."""
    arr = np.asarray(data, dtype=object)
    x = tf.placeholder(tf.string, arr.shape) if fed else tf.constant(data)
    try:
        out = build(tf, x)
    except Exception as e:  # noqa: BLE001 - compared with TF's
        found = ("build", type(e).__name__, str(e).splitlines()[0][:80])
        return lambda sess: found
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if isinstance(out, tf.SparseTensor):
        outs = [out.indices, out.values, out.dense_shape]
    static = [
        (t.dtype.name, t.shape.as_list() if t.shape.ndims is not None else None) for t in outs
    ]

    def run(sess: Any) -> Any:
        try:
            values = sess.run(outs, {x: data} if fed else None)
        except Exception as e:  # noqa: BLE001 - compared with TF's
            return ("run", type(e).__name__, _message(e))
        return static, [_canonical(v) for v in values]

    return run


def _check(build: Any, data: Any) -> None:
    for fed in (True, False):
        theirs, ours = run_both(lambda tf, fed=fed: _outcome(tf, build, data, fed))
        assert ours == theirs, (fed, theirs, ours)


TEXT = ["hello world", "  a  b c ", "", "x,y;;z", "Ünïcode wörds"]

CASES = {
    # tf.string_split: each byte of sep a delimiter
    "string_split default": lambda tf, x: tf.string_split(x),
    "string_split keep empty": lambda tf, x: tf.string_split(x, skip_empty=False),
    "string_split multi-char sep": lambda tf, x: tf.string_split(x, ",; "),
    "string_split delimiter alias": lambda tf, x: tf.string_split(x, delimiter=","),
    "string_split empty sep": lambda tf, x: tf.string_split(x[:2], ""),
    "string_split multi-char keep empty": lambda tf, x: tf.string_split(x, ",;", False),
    # tf.strings.split (v1): Python's str.split
    "strings.split default": lambda tf, x: tf.strings.split(x),
    "strings.split sep": lambda tf, x: tf.strings.split(x, sep=";;"),
    "strings.split maxsplit": lambda tf, x: tf.strings.split(x, maxsplit=1),
    "strings.split sep maxsplit": lambda tf, x: tf.strings.split(x, " ", 2),
    "strings.split source scalar": lambda tf, x: tf.strings.split(source=x[0]),
    "strings.split matrix": lambda tf, x: tf.strings.split(tf.reshape(x[:4], [2, 2])),
    "strings.split rank 3": lambda tf, x: tf.strings.split(tf.reshape(x[:4], [2, 1, 2]), " "),
    # element-wise
    "length": lambda tf, x: tf.strings.length(x),
    "length utf8": lambda tf, x: tf.strings.length(x, unit="UTF8_CHAR"),
    "lower upper": lambda tf, x: [tf.strings.lower(x), tf.strings.upper(x)],
    "lower utf8": lambda tf, x: tf.strings.lower(x, encoding="utf-8"),
    "strip": lambda tf, x: [tf.strings.strip(x), tf.string_strip(x)],
    "join": lambda tf, x: tf.strings.join([x, "-", x], separator="|"),
    "string_join scalars": lambda tf, x: tf.string_join([x[0], "b"]),
    "substr": lambda tf, x: tf.substr(x, 1, 3),
    "substr negative pos": lambda tf, x: tf.strings.substr(x[:2], -3, 2),
    "substr vector pos": lambda tf, x: tf.strings.substr(x[:2], [0, 2], [5, 100]),
    "substr out of range": lambda tf, x: tf.substr(x, 4, 1),
    "substr utf8": lambda tf, x: tf.strings.substr(x[3:], [1, -2], [3, 9], unit="UTF8_CHAR"),
    "substr utf8 out of range": lambda tf, x: tf.substr(x, -9, 2, unit="UTF8_CHAR"),
    "reduce_join all": lambda tf, x: tf.reduce_join(x),
    "reduce_join separator": lambda tf, x: tf.strings.reduce_join(x, 0, separator=", "),
    "reduce_join keepdims": lambda tf, x: tf.strings.reduce_join(
        tf.reshape(x[:4], [2, 2]), axis=-1, keepdims=True
    ),
    "reduce_join rows": lambda tf, x: tf.reduce_join(tf.reshape(x[:4], [2, 2]), axis=[0]),
    "regex_replace": lambda tf, x: tf.regex_replace(x, "[aeiou]", "_"),
    "regex_replace groups": lambda tf, x: tf.strings.regex_replace(x, r"(\w+) (\w+)", r"\2 \1"),
    "regex_replace first": lambda tf, x: tf.strings.regex_replace(x, "o", "0", False),
    "regex_replace empty matches": lambda tf, x: tf.strings.regex_replace(x, "l*", "-"),
    "regex_replace anchors": lambda tf, x: tf.strings.regex_replace(x, "^ +| +$", ""),
    "regex_replace dot utf8": lambda tf, x: tf.strings.regex_replace(x, "w.r", "W"),
    "regex_full_match": lambda tf, x: tf.strings.regex_full_match(x, "[a-z ]+"),
    "regex rewrite of a missing group": lambda tf, x: tf.regex_replace(x, "(a)", r"\2"),
    "regex rewrite bad escape": lambda tf, x: tf.regex_replace(x, "(a)", r"\q\1"),
    "regex rewrite backslash": lambda tf, x: tf.regex_replace(x, "(a)", r"<\\\1\0>"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_string_op_as_tf(case):
    _check(CASES[case], TEXT)


NUMBERS = {
    "float32": ["1.5", " -2e3 ", "0x1.8p1", "inf", "-NaN", "1e40", "3.4028235e38", "1e-46"],
    "float64": ["1.5", "1e308", "-0", "2.5e-324", "0.1"],
    "int32": ["12", " +7 ", "-2147483648", "2147483647"],
    "int64": ["9223372036854775807", "-5"],
    "uint32": ["4294967295", "+3", "0"],
}
BAD_NUMBERS = {
    "float32": ["1.5x"],
    "int32": ["2147483648"],
    "int64": ["1.0"],
    "uint32": ["-1"],
    "float64": [""],
}


@pytest.mark.parametrize("dtype", sorted(NUMBERS))
def test_string_to_number_as_tf(dtype):
    _check(lambda tf, x: tf.string_to_number(x, out_type=getattr(tf, dtype)), NUMBERS[dtype])
    _check(lambda tf, x: tf.strings.to_number(x, getattr(tf, dtype)), BAD_NUMBERS[dtype])


def test_string_to_number_default_is_float32():
    _check(lambda tf, x: tf.strings.to_number(input=x), [["1.25", "7"]])


AS_STRING = {
    "float default": (np.float32, {}),
    "precision": (np.float64, {"precision": 3}),
    "scientific": (np.float32, {"scientific": True, "precision": 2}),
    "shortest": (np.float64, {"shortest": True}),
    "width fill": (np.float32, {"width": 12, "fill": "0", "precision": 1}),
    "width left": (np.float32, {"width": 10, "fill": "-"}),
    "int width": (np.int32, {"width": 6}),
    "int64": (np.int64, {}),
    "bool": (np.bool_, {}),
    "int precision error": (np.int32, {"precision": 2}),
    "both notations error": (np.float32, {"scientific": True, "shortest": True}),
}


@pytest.mark.parametrize("case", sorted(AS_STRING))
def test_as_string_as_tf(case):
    dtype, kwargs = AS_STRING[case]
    data = np.array([1.0, -2.5, 1234567.125, 3e-7, 0.0], dtype=np.float64).astype(dtype)
    if dtype == np.int64:
        data = np.array([2**40, -7, 0], np.int64)

    def script(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None])
        out = tf.as_string(x, **kwargs)
        static = (out.dtype.name, out.shape.as_list())

        def run(sess):
            try:
                return static, sess.run(out, {x: data}).tolist()
            except Exception as e:  # noqa: BLE001 - compared with TF's
                return type(e).__name__, _message(e)

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_string_join_shape_mismatch_as_tf():
    """Two vectors of different static lengths: TF's ValueError when the graph is built."""

    def script(tf):
        try:
            tf.strings.join([tf.constant(["a", "b"]), tf.constant(["a", "b", "c"])])
        except ValueError as e:
            found = type(e).__name__
        else:
            found = None
        return lambda sess: found

    theirs, ours = run_both(script)
    assert ours == theirs == "ValueError"


def test_string_split_of_a_matrix_is_a_value_error_as_tf():
    def script(tf):
        try:
            tf.string_split(tf.constant([["a b"]]))
        except ValueError:
            found = "ValueError"
        else:
            found = None
        return lambda sess: found

    theirs, ours = run_both(script)
    assert ours == theirs == "ValueError"


def test_string_ops_in_a_dataset_map_as_tf():
    """A tf.data map function splits, lower-cases and parses numbers on the host."""

    def script(tf):
        lines = ["A,1.5", "b,22", "C,-3"]

        def parse(line):
            parts = tf.string_split([line], ",").values
            return tf.strings.lower(parts), tf.string_to_number(tf.substr(line, 2, 9))

        ds = tf.data.Dataset.from_tensor_slices(lines).map(parse).batch(2)
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        return lambda sess: [[_canonical(v) for v in sess.run(nxt)] for _ in range(2)]

    theirs, ours = run_both(script)
    assert ours == theirs


def test_string_to_number_feeds_the_step_as_tf():
    """Numbers parsed from fed strings feed a device computation (a matmul)."""

    def script(tf):
        x = tf.placeholder(tf.string, [None])
        parts = tf.string_split(x, ",")
        numbers = tf.reshape(tf.string_to_number(parts.values), [-1, 2])
        y = tf.matmul(numbers, tf.constant([[1.0], [2.0]]))
        return lambda sess: _canonical(sess.run(y, {x: ["1,2", "3.5,4"]}))

    theirs, ours = run_both(script)
    assert ours == theirs


def test_unsupported_regex_raises():
    """Patterns Python's re reads otherwise than RE2 raise NotImplementedError naming
    what to do rather than give another value."""
    from adapters import v1 as tf

    with tf.Graph().as_default():
        x = tf.constant(["a b"])
        for pattern in [r"a(?=b)", r"(a)\1", r"\bx", r"\s+"]:
            with pytest.raises(NotImplementedError, match="RE2"):
                tf.strings.regex_replace(x, pattern, "")


def _random_strings(count: int) -> list[bytes]:
    """Random byte strings of every length class FarmHash treats apart (0-16, 17-32,
    33-64, longer)."""
    rng = np.random.default_rng(7)
    lengths = np.concatenate([np.arange(0, 140), rng.integers(0, 300, count - 140)])
    return [bytes(rng.integers(0, 256, n).astype(np.uint8)) for n in lengths]


def test_hash_buckets_as_tf():
    """``to_hash_bucket_fast`` (FarmHash Fingerprint64), ``to_hash_bucket_strong``
    (SipHash-2-4, keys with the top bit set too) and ``to_hash_bucket`` (TF's Hash64)
    bit-exact with TF on 2000 random
    strings, for large and small bucket counts."""
    strings = _random_strings(2000)

    def script(tf):
        x = tf.placeholder(tf.string, [None])
        outs = [
            tf.strings.to_hash_bucket_fast(x, 2**63 - 1),
            tf.string_to_hash_bucket_fast(x, 1009),
            tf.strings.to_hash_bucket_strong(x, 2**63 - 1, [0x0123456789ABCDEF, -(2**62) - 5]),
            tf.string_to_hash_bucket_strong(x, 97, [1, 2]),
            tf.strings.to_hash_bucket(x, 2**63 - 1),
            tf.string_to_hash_bucket(input=x, num_buckets=1009),
        ]
        static = [(t.dtype.name, t.shape.as_list()) for t in outs]
        return lambda sess: (static, [_canonical(v) for v in sess.run(outs, {x: strings})])

    theirs, ours = run_both(script)
    assert ours == theirs


def test_equal_of_strings_as_tf():
    """``tf.equal``/``tf.not_equal`` of strings: bool, broadcast, from fed and constant
    strings, feeding the step (jtrain raised TypeError: strings not allowed)."""
    _check(
        lambda tf, x: [
            tf.equal(x, "b"),
            tf.math.not_equal(x, tf.constant(["a", "b", "a"])),
            tf.equal(tf.reshape(x, [3, 1]), x),
            tf.reduce_sum(tf.cast(tf.equal(x, "a"), tf.int32)),
        ],
        ["a", "b", "a"],
    )


def test_not_equal_filters_a_dataset_as_tf():
    def script(tf):
        ds = tf.data.Dataset.from_tensor_slices(["a", "", "b", ""]).filter(
            lambda s: tf.not_equal(s, "")
        )
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        return lambda sess: [sess.run(nxt) for _ in range(2)]

    theirs, ours = run_both(script)
    assert ours == theirs


def test_a_text_line_reader_pipeline_as_tf(tmp_path):
    """A TF1 queue pipeline: ``TextLineReader`` -> strip, lower, ``to_number`` of a
    substring (element-wise ops, run a chunk of records at a time) -> ``batch``."""
    path = tmp_path / "data.txt"
    path.write_text("".join(f"  Row{i:02d} {i * 0.25}\n" for i in range(12)))

    def script(tf):
        files = tf.train.string_input_producer([str(path)], num_epochs=1, shuffle=False)
        _, line = tf.TextLineReader().read(files)
        text = tf.strings.lower(tf.strings.strip(line))
        number = tf.string_to_number(tf.substr(text, 6, 10), tf.float64)
        batch = tf.train.batch([text, number], batch_size=4)

        def run(sess):
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord=coord)
            out = [[_canonical(v) for v in sess.run(batch)] for _ in range(3)]
            coord.request_stop()
            coord.join(threads)
            return out

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_regex_end_anchors_as_tf():
    """RE2's ``$`` matches only at the end (Python's also before a final newline)."""
    _check(
        lambda tf, x: [
            tf.strings.regex_full_match(x, "a$"),
            tf.strings.regex_replace(x, "a$", "<end>"),
            tf.strings.regex_replace(x, r"a\z", "Z"),
            tf.strings.regex_replace(x, "[$]", "D"),
        ],
        ["a\n", "ba", "a$b\n"],
    )


def test_host_ops_read_64_bit_constants_exactly_as_tf():
    """A string op reading an int64/float64 constant gets its exact value (jtrain
    evaluated it as 32-bit: ``as_string`` of 2**40 gave ``b"0"``, of float64 0.1 the
    float32's digits)."""

    def script(tf):
        outs = [
            tf.as_string(tf.constant(2**40, tf.int64)),
            tf.as_string(tf.constant(0.1, tf.float64), precision=17),
            tf.strings.as_string(tf.constant([2**62 + 1, -(2**40)], tf.int64)),
        ]
        return lambda sess: sess.run(outs)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)
    assert ours[0] == b"1099511627776"
