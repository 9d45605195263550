"""``tf.strings.format``, ``unicode_*``, ``unsorted_segment_join``, ``ngrams`` and
``bytes_split`` checked live against TF 2.21 as classic TF1 (``twin.py``): values
(bytes), dtypes, static shapes, ragged structure and TF's errors.

adapters.v1 had none of these names (an ``AttributeError`` from ``tf.strings``) until
``ops/string_ops.py``'s Unicode section and ``ops/ragged/ragged_string_ops.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop


def _message(e: Any) -> str:
    """An error's own message (TF's graph errors lead with where the node was built)."""
    text = getattr(e, "message", None) or str(e)
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("Node: "):
            return lines[i + 1]
    return lines[0] if lines else ""


def _canonical(value: Any) -> Any:
    a = np.asarray(value)
    return (a.dtype.name, a.shape, a.tolist() if a.dtype == object else a.tobytes())


def _static(t: Any) -> Any:
    shape = t.shape
    return (t.dtype.name, shape.as_list() if shape.ndims is not None else None)


def _parts(tf: Any, out: Any) -> tuple[list[Any], list[Any]]:
    """The tensors of ``out`` (a tensor, SparseTensor, RaggedTensor or a tuple of them)
    and a description of its structure (kinds, static shapes, ragged ranks)."""
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    tensors, kinds = [], []
    for o in outs:
        if isinstance(o, tf.SparseTensor):
            tensors += [o.indices, o.values, o.dense_shape]
            kinds.append(("sparse", _static(o)))
        elif isinstance(o, getattr(tf, "RaggedTensor", ())):
            splits = list(o.nested_row_splits)
            tensors += [*splits, o.flat_values]
            kinds.append(("ragged", o.ragged_rank, _static(o), [_static(s) for s in splits]))
            kinds.append(_static(o.flat_values))
        else:
            tensors.append(o)
            kinds.append(_static(o))
    return tensors, kinds


def _outcome(build: Callable[[Any], Any]) -> Callable[[Any], Callable[[Any], Any]]:
    """A twin script: ``build(tf)``'s structure and values, or its error (class and
    message) at build or run time."""

    def script(tf: Any) -> Callable[[Any], Any]:
        try:
            out = build(tf)
        except Exception as e:  # noqa: BLE001 - compared with TF's
            found = ("build", type(e).__name__, _message(e))
            return lambda sess: found
        tensors, kinds = _parts(tf, out)

        def run(sess: Any) -> Any:
            try:
                values = sess.run(tensors)
            except Exception as e:  # noqa: BLE001 - compared with TF's
                return ("run", type(e).__name__, _message(e))
            return kinds, [_canonical(v) for v in values]

        return run

    return script


def _check(build: Callable[[Any], Any]) -> Any:
    theirs, ours = run_both(_outcome(build))
    assert ours == theirs
    return theirs


S = "h\u00e9llo \u4e16\u754c \U0001f600"
BAD_UTF8 = [b"a\xffb\xed\xa0\x80c\xe2\x82", b"\xc0\xaf\xf4\x90\x80\x80 ok"]

FORMAT = {
    "list": lambda tf: tf.strings.format("x={} y={}", [tf.constant([1, 2, 3]), tf.constant(2.5)]),
    "long": lambda tf: tf.strings.format("{}", tf.range(10)),
    "2d_summarize": lambda tf: tf.strings.format(
        "{}", tf.reshape(tf.range(24.0), [4, 6]), summarize=2
    ),
    "all": lambda tf: tf.strings.format("{}", [tf.range(10)], summarize=-1),
    "strings": lambda tf: tf.strings.format(
        "a {} b {}", [tf.constant(["x\n", "y"]), tf.constant("q")]
    ),
    "placeholder": lambda tf: tf.strings.format("%s-%s", [1, 2.5], placeholder="%s"),
    "bool_f64": lambda tf: tf.strings.format(
        "{} {}", [tf.constant([True, False]), tf.constant([0.1, 1e20], tf.float64)]
    ),
    "computed": lambda tf: tf.strings.format("v: {}", [tf.constant([1.5, 2.0]) * 3.0]),
    "empty": lambda tf: tf.strings.format("{}", [tf.zeros([0, 3])]),
    "mismatch": lambda tf: tf.strings.format("{} {}", [tf.constant(1)]),
    "ragged": lambda tf: tf.strings.format(
        "x={} y={} z={}",
        [
            tf.ragged.constant([[1, 2], [3], []]),
            tf.ragged.constant([[["a'b", "c\\"]], [], [["d"]]]),
            tf.constant([True, False]),
        ],
    ),
    "ragged_summarize": lambda tf: tf.strings.format(
        "{}", tf.ragged.constant([list(range(10)), [1]]), summarize=2
    ),
    "ragged_floats_inner": lambda tf: tf.strings.format(
        "{}",
        tf.ragged.constant([[[1.5, -2.0]], [[0.25, 3.0], [4.0, 5.0]]], ragged_rank=1),
        summarize=1,
    ),
    "ragged_mismatch": lambda tf: tf.strings.format("{}", [tf.ragged.constant([[1]]), 1]),
    "ragged_bad_summarize": lambda tf: tf.strings.format(
        "{}", tf.ragged.constant([[1]]), summarize=0
    ),
}


@pytest.mark.parametrize("case", sorted(FORMAT))
def test_format(case: str) -> None:
    _check(FORMAT[case])


def _transcode(data: Any, src: str, dst: str, **kw: Any) -> Callable[[Any], Any]:
    return lambda tf: tf.strings.unicode_transcode(tf.constant(data), src, dst, **kw)


TRANSCODE = {
    "utf8_to_16": _transcode([S, ""], "UTF-8", "UTF-16-BE"),
    "utf8_to_32": _transcode([[S], ["ab"]], "UTF-8", "UTF-32-BE"),
    "16_to_8": _transcode([S.encode("utf-16-be")], "UTF-16-BE", "UTF-8"),
    "32_to_16": _transcode(S.encode("utf-32-be"), "UTF-32-BE", "UTF-16-BE"),
    "replace": _transcode(BAD_UTF8, "UTF-8", "UTF-8"),
    "replace_char": _transcode(BAD_UTF8, "UTF-8", "UTF-16-BE", replacement_char=ord("?")),
    "ignore": _transcode(BAD_UTF8, "UTF-8", "UTF-8", errors="ignore"),
    "strict": _transcode(BAD_UTF8, "UTF-8", "UTF-8", errors="strict"),
    "strict_valid": _transcode([S], "UTF-8", "UTF-32-BE", errors="strict"),
    "bad_utf16": _transcode([b"\x00a\xd8\x00\x00b\xdc\x00", b"\x00a\x00"], "UTF-16-BE", "UTF-8"),
    "bad_utf32": _transcode(
        [b"\x00\x00\x00a\x00\x11\x00\x00\x00\x00\xd8\x00"], "UTF-32-BE", "UTF-8"
    ),
    "controls": _transcode(
        [b"a\x00\x01\x1f\x7f\xc2\x85b"], "UTF-8", "UTF-8", replace_control_characters=True
    ),
    "latin1": _transcode([b"a\xe9\xff"], "ISO-8859-1", "UTF-8"),
    "lowercase_name": _transcode([b"\xffa"], "utf8", "UTF-8"),
    "unknown_input": _transcode([b"ab"], "UTF-9", "UTF-8"),
    "bad_output": _transcode([b"ab"], "UTF-8", "UTF-16"),
    "bad_errors": _transcode([b"ab"], "UTF-8", "UTF-8", errors="bogus"),
    "bad_replacement": _transcode([b"\xff"], "UTF-8", "UTF-8", replacement_char=0x110000),
    "surrogate_replacement": _transcode([b"\xff"], "UTF-8", "UTF-8", replacement_char=0xD800),
}


@pytest.mark.parametrize("case", sorted(TRANSCODE))
def test_unicode_transcode(case: str) -> None:
    _check(TRANSCODE[case])


SCRIPT_POINTS = [-1, 0, 0x41, 0xE9, 0x300, 0x3B1, 0x416, 0x5D0, 0x627, 0x915, 0xE01, 0x3042,
                 0x30A2, 0x4E00, 0xAC00, 0xE000, 0x1F600, 0x20000, 0x10FFFF, 0x110000]  # fmt: skip


def test_unicode_script() -> None:
    _check(lambda tf: tf.strings.unicode_script(tf.constant(SCRIPT_POINTS)))
    _check(lambda tf: tf.strings.unicode_script(tf.constant([[0x41, 0x4E00]]) + 1))
    _check(lambda tf: tf.strings.unicode_script(tf.constant([1], tf.int64)))


def test_unicode_script_every_code_point() -> None:
    """All of U+0000..U+10FFFF: the committed table is TF's."""
    points = np.arange(0x110000, dtype=np.int32)
    _check(lambda tf: tf.strings.unicode_script(tf.constant(points)))


ENCODE = {
    "vector": lambda tf: tf.strings.unicode_encode(tf.constant([104, 0xE9, 0x1F600]), "UTF-8"),
    "matrix_16": lambda tf: tf.strings.unicode_encode(
        tf.constant([[104, 0x1F600], [0x4E16, 0x754C]]), "UTF-16-BE"
    ),
    "rank3_32": lambda tf: tf.strings.unicode_encode(
        tf.constant([[[104, 105]], [[106, 107]]]), "UTF-32-BE"
    ),
    "invalid": lambda tf: tf.strings.unicode_encode(
        tf.constant([104, -5, 0xD800, 0x110000]), "UTF-8"
    ),
    "invalid_ignore": lambda tf: tf.strings.unicode_encode(
        tf.constant([104, -5, 0xD800, 0x110000]), "UTF-8", errors="ignore"
    ),
    "invalid_char": lambda tf: tf.strings.unicode_encode(
        tf.constant([104, -5]), "UTF-8", replacement_char=ord("?")
    ),
    "strict": lambda tf: tf.strings.unicode_encode(
        tf.constant([104, -5]), "UTF-8", errors="strict"
    ),
    "bad_replacement": lambda tf: tf.strings.unicode_encode(
        tf.constant([-1]), "UTF-8", replacement_char=-3
    ),
    "int64": lambda tf: tf.strings.unicode_encode(tf.constant([104], tf.int64), "UTF-8"),
    "scalar": lambda tf: tf.strings.unicode_encode(tf.constant(104), "UTF-8"),
    "bad_encoding": lambda tf: tf.strings.unicode_encode(tf.constant([104]), "UTF-7"),
    "empty_rows": lambda tf: tf.strings.unicode_encode(tf.zeros([2, 0], tf.int32), "UTF-8"),
}


@pytest.mark.parametrize("case", sorted(ENCODE))
def test_unicode_encode(case: str) -> None:
    _check(ENCODE[case])


def _join(data: Any, ids: Any, n: Any, **kw: Any) -> Callable[[Any], Any]:
    return lambda tf: tf.strings.unsorted_segment_join(tf.constant(data), ids, n, **kw)


JOIN = {
    "vector": _join(["a", "b", "c", "d"], [1, 0, 1, 1], 3, separator=","),
    "empty_strings": _join(["", "a", "", "b", ""], [0, 0, 0, 1, 1], 2, separator=","),
    "matrix": _join([["a", "b"], ["c", "d"]], [1, 1], 2, separator="-"),
    "matrix_ids": _join([["a", "b"], ["c", "d"]], [[1, 0], [1, 1]], 2, separator="-"),
    "int64": lambda tf: tf.strings.unsorted_segment_join(
        tf.constant(["a", "b"]), tf.constant([1, 0], tf.int64), tf.constant(2, tf.int64)
    ),
    "unknown": lambda tf: tf.strings.unsorted_segment_join(
        tf.constant(["a", "b", "c"]),
        tf.placeholder_with_default([0, 1, 0], [None]),
        tf.placeholder_with_default(2, []),
    ),
    "negative": _join(["a", "b"], [0, -1], 2),
    "too_big": _join(["a", "b"], [0, 2], 2),
    "zero_segments": _join(["a"], [0], 0),
    "scalar_ids": _join("a", 0, 2),
    "static_mismatch": _join(["a", "b", "c"], [0, 1], 2),
    "run_mismatch": lambda tf: tf.strings.unsorted_segment_join(
        tf.constant(["a", "b", "c"]), tf.placeholder_with_default([0, 1], [None]), 2
    ),
    "count_not_scalar": _join(["a", "b"], [0, 1], [2]),
    "float_ids": _join(["a", "b"], [0.0, 1.0], 2),
}


@pytest.mark.parametrize("case", sorted(JOIN))
def test_unsorted_segment_join(case: str) -> None:
    _check(JOIN[case])


def _rc(tf: Any, rows: Any) -> Any:
    return tf.ragged.constant(rows)


RAGGED_STRINGS = {
    "decode_scalar": lambda tf: tf.strings.unicode_decode(tf.constant("h\u00e9"), "UTF-8"),
    "decode_vector": lambda tf: tf.strings.unicode_decode(tf.constant([S, "", "ab"]), "UTF-8"),
    "decode_matrix": lambda tf: tf.strings.unicode_decode(
        tf.constant([["h\u00e9", "a"], ["", "b"]]), "UTF-8"
    ),
    "decode_fed_shape": lambda tf: tf.strings.unicode_decode(
        tf.placeholder_with_default(["ab", S], [None]), "UTF-8"
    ),
    "decode_invalid": lambda tf: tf.strings.unicode_decode(tf.constant(BAD_UTF8), "UTF-8"),
    "decode_invalid_ignore": lambda tf: tf.strings.unicode_decode(
        tf.constant(BAD_UTF8), "UTF-8", errors="ignore"
    ),
    "decode_strict": lambda tf: tf.strings.unicode_decode(
        tf.constant(BAD_UTF8), "UTF-8", errors="strict"
    ),
    "decode_controls": lambda tf: tf.strings.unicode_decode(
        tf.constant([b"a\x01\x1f "]), "UTF-8", replace_control_characters=True, replacement_char=63
    ),
    "decode_utf16": lambda tf: tf.strings.unicode_decode(
        tf.constant([S.encode("utf-16-be"), b"\x00a\xd8\x00"]), "UTF-16-BE"
    ),
    "decode_utf32": lambda tf: tf.strings.unicode_decode(
        tf.constant([S.encode("utf-32-be")]), "UTF-32-BE"
    ),
    "decode_unknown_encoding": lambda tf: tf.strings.unicode_decode(tf.constant(["a"]), "UTF-9"),
    "decode_ragged": lambda tf: tf.strings.unicode_decode(_rc(tf, [["ab", "c"], []]), "UTF-8"),
    "decode_offsets": lambda tf: tf.strings.unicode_decode_with_offsets(
        tf.constant([S.encode()] + BAD_UTF8), "UTF-8"
    ),
    "decode_offsets_ignore": lambda tf: tf.strings.unicode_decode_with_offsets(
        tf.constant(BAD_UTF8), "UTF-8", errors="ignore"
    ),
    "decode_offsets_utf16": lambda tf: tf.strings.unicode_decode_with_offsets(
        tf.constant([S.encode("utf-16-be")]), "UTF-16-BE"
    ),
    "split": lambda tf: tf.strings.unicode_split(tf.constant([S, "", "ab"]), "UTF-8"),
    "split_scalar": lambda tf: tf.strings.unicode_split(tf.constant("ab"), "UTF-8"),
    "split_invalid": lambda tf: tf.strings.unicode_split(tf.constant(BAD_UTF8), "UTF-8"),
    "split_fed": lambda tf: tf.strings.unicode_split(
        tf.placeholder_with_default([S], [None]), "UTF-8"
    ),
    "split_utf16_offsets": lambda tf: tf.strings.unicode_split_with_offsets(
        tf.constant([S.encode("utf-16-be")]), "UTF-16-BE"
    ),
    "split_offsets": lambda tf: tf.strings.unicode_split_with_offsets(
        tf.constant([[S], ["x\xff"]]), "UTF-8"
    ),
    "bytes_split_scalar": lambda tf: tf.strings.bytes_split(tf.constant("ab")),
    "bytes_split": lambda tf: tf.strings.bytes_split(tf.constant(["h\u00e9", "", "xyz"])),
    "bytes_split_matrix": lambda tf: tf.strings.bytes_split(tf.constant([["ab", "c"]])),
    "bytes_split_ragged": lambda tf: tf.strings.bytes_split(_rc(tf, [["ab", "c"], []])),
    "encode_ragged": lambda tf: tf.strings.unicode_encode(
        _rc(tf, [[104, 105], [], [0x1F600]]), "UTF-8"
    ),
    "encode_ragged2": lambda tf: tf.strings.unicode_encode(
        _rc(tf, [[[104, 105]], [[106], []]]), "UTF-16-BE"
    ),
    "encode_decoded": lambda tf: tf.strings.unicode_encode(
        tf.strings.unicode_decode(tf.constant([S, "ab"]), "UTF-8"), "UTF-32-BE"
    ),
    "ngrams_vector": lambda tf: tf.strings.ngrams(tf.constant(["a", "b", "c"]), 2),
    "ngrams_matrix": lambda tf: tf.strings.ngrams(
        tf.constant([["a", "b", "c"], ["d", "e", "f"]]), [1, 3], separator="-"
    ),
    "ngrams_ragged_padded": lambda tf: tf.strings.ngrams(
        _rc(tf, [["a", "b", "c"], ["d"], []]), [1, 2], pad_values=("L", "R"), padding_width=1
    ),
    "ngrams_short": lambda tf: tf.strings.ngrams(
        _rc(tf, [["a", "b", "c"], ["d"], []]), 3, preserve_short_sequences=True
    ),
    "ngrams_short_padded": lambda tf: tf.strings.ngrams(
        _rc(tf, [["a", "b"], ["d"]]),
        4,
        pad_values="P",
        padding_width=1,
        preserve_short_sequences=True,
    ),
    "ngrams_dynamic_pad": lambda tf: tf.strings.ngrams(
        _rc(tf, [["a", "b"], ["d"]]), 3, pad_values="P", separator="_"
    ),
    "ngrams_nested": lambda tf: tf.strings.ngrams(_rc(tf, [[["a", "b"], ["c"]], []]), 2),
    "ngrams_bad_width": lambda tf: tf.strings.ngrams(tf.constant(["a"]), 0),
    "ngrams_bad_padding": lambda tf: tf.strings.ngrams(tf.constant(["a"]), 2, padding_width=1),
    "ngrams_scalar": lambda tf: tf.strings.ngrams(tf.constant("a"), 2),
    "split_ragged": lambda tf: tf.strings.split(
        tf.constant(["a b", "c", "", "  d  e "]), result_type="RaggedTensor"
    ),
    "split_ragged_scalar": lambda tf: tf.strings.split(
        tf.constant("a b"), result_type="RaggedTensor"
    ),
    "split_ragged_matrix_sep": lambda tf: tf.strings.split(
        tf.constant([["a,b", "c"], [",", ""]]), sep=",", result_type="RaggedTensor"
    ),
    "split_ragged_maxsplit": lambda tf: tf.strings.split(
        tf.constant(["a b c d"]), maxsplit=2, result_type="RaggedTensor"
    ),
    "split_ragged_to_tensor": lambda tf: tf.strings.split(
        tf.constant(["a b", "c"]), result_type="RaggedTensor"
    ).to_tensor(default_value="<pad>"),
    "string_split_ragged": lambda tf: tf.string_split(
        tf.constant(["a b", "c,d"]), sep=" ,", result_type="RaggedTensor"
    ),
    "string_split_ragged_keep_empty": lambda tf: tf.string_split(
        tf.constant(["a  b", ""]), skip_empty=False, result_type="RaggedTensor"
    ),
    "elementwise_on_ragged": lambda tf: (
        lambda rt: (
            tf.strings.to_hash_bucket_fast(rt, 1000),
            tf.strings.lower(rt),
            tf.strings.length(rt),
            tf.strings.regex_replace(rt, "[aeiou]", "_"),
            tf.strings.unicode_transcode(rt, "UTF-8", "UTF-16-BE"),
        )
    )(tf.strings.split(tf.constant(["The Cat", "sat"]), result_type="RaggedTensor")),
    "int_elementwise_on_ragged": lambda tf: (
        lambda rt: (
            tf.strings.unicode_script(rt),
            tf.strings.as_string(rt, width=3),
        )
    )(tf.ragged.constant([[65, 0x4E00], [], [0x3B1]])),
    "join_substr_on_ragged": lambda tf: (
        lambda rt: (
            tf.strings.join([rt, "!", rt], separator="-"),
            tf.strings.substr(rt, 1, 2),
        )
    )(tf.ragged.constant([["abc", "d"], [], ["éf"]])),
    "to_number_on_ragged": lambda tf: tf.strings.to_number(
        tf.ragged.constant([["1.5", "2"], [], ["-3"]]), tf.float64
    ),
    "string_split_bad_result_type": lambda tf: tf.string_split(
        tf.constant(["a"]), result_type="Dense"
    ),
}


@pytest.mark.parametrize("case", sorted(RAGGED_STRINGS))
def test_ragged_string_ops(case: str) -> None:
    _check(RAGGED_STRINGS[case])
