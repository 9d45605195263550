"""``Session.run`` feeds converted as TF 2.21's, checked live (``twin.py``).

TF's ``Session._run`` converts a fed value with ``numpy_compat.np_asarray(value,
dtype)``: ``np.asarray(value).astype(dtype)`` for a numeric dtype (NumPy's casts:
int64 300 into uint8 is 44, float64 1.9 into int32 is 1, strings of numbers parse),
``np.asarray(value, dtype)`` for bool and string. A Python ``int`` the tensor's type
changes raises ``TypeError`` first; a shape that does not fit raises ``ValueError``.
A fetched fed tensor is the converted value itself, without a run.
"""

from __future__ import annotations

import collections
import collections.abc
import types
import warnings

import numpy as np
import pytest

from adapters import v1 as jtf
from adapters.v1.framework import nest
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1

ONES = np.ones(2, np.float32)

# (dtype name, shape, fed value): fed and fetched, fed and read by tf.identity.
CONVERTED = {
    "int64 array into uint8 wraps": ("uint8", [3], np.array([1, 300, -1], np.int64)),
    "int list into uint8 wraps": ("uint8", [3], [1, 300, -1]),
    "float64 array into uint8 truncates": ("uint8", [2], np.array([1.7, 2.2])),
    "float64 array into int32 truncates": ("int32", [2], np.array([1.9, -1.9])),
    "a float into int32": ("int32", [], 2.7),
    "int64 array into int32 wraps": ("int32", [2], np.array([2**40, 1], np.int64)),
    "uint64 array into int32": ("int32", [2], np.array([1, 2], np.uint64)),
    "bools into int32": ("int32", [2], [True, False]),
    "float32 array into int64": ("int64", [2], np.array([1.5, 2.5], np.float32)),
    "int array into int8 wraps": ("int8", [2], np.array([200, -200])),
    "int list into uint16 wraps": ("uint16", [2], [70000, -1]),
    "float64 overflows float32 to inf": ("float32", [2], np.array([1.0, 1e40])),
    "an int float32 rounds": ("float32", [], 16777217),
    "number strings into float32": ("float32", [2], ["1.5", "2"]),
    "a str array into float32": ("float32", [2], np.array(["1.5", "2"])),
    "number bytes into float32": ("float32", [2], [b"1.5", b"2"]),
    "None into float32 is nan": ("float32", [2], [None, 1.0]),
    "number strings into int32": ("int32", [2], ["1", "2"]),
    "float64 into float16": ("float16", [2], np.array([1.0, 1e6])),
    "ints into bool": ("bool", [3], np.array([0, 2, -1])),
    "floats into bool": ("bool", [2], np.array([0.0, 0.5])),
    "strings into bool": ("bool", [2], ["", "a"]),
    "ints into complex64": ("complex64", [2], np.array([1, 2])),
    "str into string": ("string", [2], ["a", "\u00e9"]),
    "a str array into string": ("string", [2], np.array(["a", "\u00e9"])),
    "a bytes array into string": ("string", [2], np.array([b"a\x00", b"b"])),
}


def _fed_and_read(dtype, shape, value):
    def script(tf):
        p = tf.placeholder(getattr(tf, dtype), shape)
        y = tf.identity(p)
        return lambda sess: [sess.run(p, {p: value}), sess.run(y, {p: value})]

    return script


@pytest.mark.parametrize("case", list(CONVERTED))
def test_a_feed_of_another_type_converts_as_tf(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's cast warnings (inf, nan), as in TF
        assert_twins(*run_both(_fed_and_read(*CONVERTED[case])))


# (dtype name, shape, fed value, what reads the placeholder): TF raises.
RAISING = {
    "300 into uint8": ("uint8", [], 300, None),
    "-1 into uint64": ("uint64", [], -1, None),
    "2**63 into int64": ("int64", [], 2**63, None),
    "2 into bool": ("bool", [], 2, None),
    "2**40 into int32": ("int32", [], 2**40, None),
    "2**70 into int32": ("int32", [], 2**70, None),
    "[2**70] into int32": ("int32", [1], [2**70], None),
    "2**1100 into float64": ("float64", [], 2**1100, None),
    "an int into string": ("string", [], 1, None),
    "True into string": ("string", [], True, None),
    "letters into float32": ("float32", [2], ["a", "b"], None),
    "None into int32": ("int32", [2], [1, None], None),
    "a string of the wrong shape": ("int32", [2], "12", None),
    "ints into string, read": ("string", [2], [1, 2], "identity"),
    "None into string, read": ("string", [2], [b"a", None], "identity"),
    "ints into string, unread": ("string", [2], [1, 2], "other"),
    "a tensor": ("float32", [], "tensor", None),
}


def _error(tf, dtype, shape, value, reader):
    with classic_tf1() if tf is tf1 else jtf.Graph().as_default():
        graph = tf.Graph()
        with graph.as_default():
            p = tf.placeholder(getattr(tf, dtype), shape)
            fetch = {None: p, "identity": tf.identity(p), "other": tf.constant(1.0)}[reader]
            value = tf.constant(1.0) if value == "tensor" else value
            with tf.Session(graph=graph) as sess:
                try:
                    sess.run(fetch, {p: value})
                except Exception as e:  # noqa: BLE001 - the class is what is compared
                    return e
    raise AssertionError(f"{tf.__name__} raised nothing")


@pytest.mark.parametrize("case", list(RAISING))
def test_a_feed_tf_refuses_raises_its_error(case):
    theirs, ours = (_error(tf, *RAISING[case]) for tf in (tf1, jtf))
    tf_classes = {c.__name__ for c in type(theirs).__mro__}
    assert type(ours).__name__ in tf_classes or type(theirs).__name__ in {
        c.__name__ for c in type(ours).__mro__
    }, f"jtrain {type(ours)} vs TF {type(theirs)}"
    if case == "a tensor":  # TF writes its Tensor's str into the message
        assert str(ours).split(" was ")[0] == str(theirs).split(" was ")[0]
    else:
        assert str(ours) == str(theirs)


# -- nested feed keys: TF's nest.flatten (adapters/v1/framework/nest.py) ---------------
class _Pair(collections.abc.Sequence):
    """A sequence that is neither a list nor a tuple (TF's nest flattens it)."""

    def __init__(self, *items):
        self._items = items

    def __getitem__(self, i):
        return self._items[i]

    def __len__(self):
        return len(self._items)


def _nest_cases():
    return {
        "an OrderedDict, sorted": collections.OrderedDict([("b", 1), ("a", (2, 3))]),
        "a list subclass": collections.UserList([1, [2, 3]]),
        "a namedtuple": collections.namedtuple("P", "y x")(1, [2]),
        "a tuple subclass": type("T", (tuple,), {})((1, 2)),
        "None is a leaf": [None, (1, None)],
        "a range": range(3),
        "a Sequence": _Pair(1, (2, 3)),
        "a MappingProxy": types.MappingProxyType({"b": 1, "a": 2}),
        "a dict's values": {"b": 1, "a": [2, 3]}.values(),
        "a bytearray": bytearray(b"ab"),
        "leaves": ["s", b"b", np.arange(2), 1.5],
    }


@pytest.mark.parametrize("case", list(_nest_cases()))
def test_nest_flatten_is_tfs(case):
    from tensorflow.python.util import nest as tf_nest

    structure = _nest_cases()[case]
    theirs, ours = tf_nest.flatten(structure), nest.flatten(structure)
    assert len(ours) == len(theirs)
    for t, o in zip(theirs, ours, strict=True):
        assert type(o) is type(t) and np.array_equal(o, t)


def _tuple_key_fed(kind):
    def script(tf):
        a = tf.placeholder(tf.float32, [2])
        b = tf.placeholder(tf.float32, [2])
        value = {
            "a Sequence": _Pair(ONES, ONES * 3.0),
            "a MappingProxy": types.MappingProxyType({"x": ONES, "y": ONES * 3.0}),
        }[kind]
        return lambda sess: sess.run(a - b, {(a, b): value})

    return script


@pytest.mark.parametrize("kind", ["a Sequence", "a MappingProxy"])
def test_a_tuple_key_takes_values_nested_as_tfs_nest(kind):
    assert_twins(*run_both(_tuple_key_fed(kind)))


# -- tuple keys among plain ones (Session._convert_feeds's one pass) -------------------
def _mixed_keys(tf):
    a = tf.placeholder(tf.float32, [2])
    b = tf.placeholder(tf.float32, [2])
    c = tf.placeholder(tf.float32, [2])
    d = tf.placeholder(tf.int32, [])
    y = a + b * c + tf.cast(d, tf.float32)
    return lambda sess: [
        sess.run(y, {a: ONES, (b, c): (ONES * 2.0, ONES * 3.0), d: 4}),
        sess.run(y, {(b, c): [ONES, ONES], a: [1, 2], d: 1.5}),
        sess.run(y, {a: ONES, b: ONES, c: ONES, d: 0}),
        sess.run(y, {d: 2, (a, (b, c)): (ONES, (ONES, ONES * 5.0))}),
    ]


def test_tuple_keys_among_plain_keys_feed_as_tf():
    assert_twins(*run_both(_mixed_keys))


# A bad value before a tuple key whose flattening fails: TF flattens the keys first.
KEY_ERRORS = {
    "too few values after a bad value": lambda a, b, c: {c: ["x"], (a, b): (ONES,)},
    "a duplicate after a bad value": lambda a, b, c: {c: ["x"], (a, b): (ONES, ONES), a: ONES},
    "a bad value after a tuple key": lambda a, b, c: {(a, b): (ONES, ONES), c: ["x"]},
}


@pytest.mark.parametrize("case", list(KEY_ERRORS))
def test_tuple_key_errors_come_in_tfs_order(case):
    messages = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else jtf.Graph().as_default():
            graph = tf.Graph()
            with graph.as_default():
                a = tf.placeholder(tf.float32, [2])
                b = tf.placeholder(tf.float32, [2])
                c = tf.placeholder(tf.float32, [1])
                with tf.Session(graph=graph) as sess, pytest.raises(ValueError) as info:
                    sess.run(a + b, KEY_ERRORS[case](a, b, c))
                messages.append(str(info.value).split(":")[0])
    assert messages[1] == messages[0]


# -- a fed string tensor read by ops (strings run in the step program as codes) --------
STRING_OPS = {
    "fetched": lambda tf, p: p,
    "identity": lambda tf, p: tf.identity(p),
    "indexed": lambda tf, p: p[0],
    "indexed from the end": lambda tf, p: p[-1],
    "sliced": lambda tf, p: p[1:],
    "reshaped": lambda tf, p: tf.reshape(p, [2, 1]),
    "gathered": lambda tf, p: tf.gather(p, [1, 0, 1]),
    "concatenated with a constant": lambda tf, p: tf.concat([p, tf.constant([b"c"])], 0),
    "stacked": lambda tf, p: tf.stack([p, p], axis=1),
    "expanded": lambda tf, p: tf.expand_dims(p, 0),
    "reversed": lambda tf, p: tf.reverse(p, [0]),
    "tiled": lambda tf, p: tf.tile(p, [2]),
    "selected": lambda tf, p: tf.where([True, False], p, tf.constant([b"x", b"y"])),
    "filled": lambda tf, p: tf.fill([3], p[1]),
    "its shape and size": lambda tf, p: (tf.shape(p), tf.size(p)),
    "identity of an identity, indexed": lambda tf, p: tf.identity(tf.identity(p))[1],
    "with a number": lambda tf, p: (p[0], tf.constant(2.0) * 3.0),
    "a constant indexed": lambda tf, p: tf.constant([b"u", b"v"])[1],
}


def _string_script(build):
    def script(tf):
        p = tf.placeholder(tf.string, [2])
        out = build(tf, p)
        return lambda sess: [
            sess.run(out, {p: [b"a", b"b"]}),
            sess.run(out, {p: ["\u00e9", "f\x00"]}),  # the same program, other strings
        ]

    return script


@pytest.mark.parametrize("case", list(STRING_OPS))
def test_a_fed_string_read_by_ops_as_tf(case):
    assert_twins(*run_both(_string_script(STRING_OPS[case])))


def test_a_string_op_jtrain_cannot_run_raises_unimplemented(tf_graph):
    with jtf.Graph().as_default() as graph:
        p = jtf.placeholder(jtf.string, [2])
        printed = jtf.Print(p, [p])
        with jtf.Session(graph=graph) as sess, pytest.raises(jtf.errors.UnimplementedError):
            sess.run(printed, {p: [b"a", b"b"]})


@pytest.mark.parametrize("shape", [[], None, [None], [2, 3]])
def test_an_unfed_placeholder_raises_tfs_message(shape):
    """TF's Placeholder kernel names the shape only when it has dimensions (jtrain
    added "and shape []" and "and shape <unknown>")."""
    from tests.interop.twin import kernel_message

    def script(tf):
        p = tf.placeholder(tf.int64, shape)

        def run(sess):
            try:
                sess.run(p + 1)
            except tf.errors.InvalidArgumentError as e:
                return kernel_message(e)
            return None

        return run

    theirs, ours = run_both(script)
    assert ours == theirs
