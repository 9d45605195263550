"""``DType``/``as_dtype`` and fetched values' types, live against TF 2.21's ``tf.compat.v1``."""

from __future__ import annotations

import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
import tensorflow as real_tf
from tensorflow.python.framework import dtypes as tf_dtypes

from adapters import v1 as jtf

tf1 = real_tf.compat.v1
ALIASES = sorted(tf_dtypes._STRING_TO_TF)
MEMBERS = [
    "name",
    "as_datatype_enum",
    "is_floating",
    "is_integer",
    "is_complex",
    "is_bool",
    "is_unsigned",
    "is_quantized",
    "is_numpy_compatible",
    "size",
]


def _outcome(fn):
    try:
        value = fn()
    except Exception as e:  # compared with TF's behaviour
        return ("error", type(e).__name__)
    if isinstance(value, (real_tf.dtypes.DType, jtf.DType)):
        return ("dtype", repr(value))
    if isinstance(value, tuple):
        return tuple(_outcome(lambda v=v: v) for v in value)
    if isinstance(value, (np.generic, ml_dtypes.bfloat16)):
        return (type(value).__name__, float(value))
    return value


@pytest.mark.parametrize("name", ALIASES)
def test_every_alias_matches_tf(name):
    ours, theirs = jtf.as_dtype(name), real_tf.as_dtype(name)
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    for member in [*MEMBERS, "base_dtype", "real_dtype", "as_numpy_dtype", "max", "min", "limits"]:
        assert _outcome(lambda m=member: getattr(ours, m)) == _outcome(
            lambda m=member: getattr(theirs, m)
        ), member


INPUTS = [
    np.float32,
    np.float64,
    np.int64,
    np.uint16,
    np.bool_,
    np.object_,
    np.bytes_,
    np.str_,
    np.dtype("S4"),
    np.dtype("U2"),
    np.dtype("f2"),
    np.dtype("M8"),
    float,
    int,
    bool,
    bytes,
    str,
    complex,
    object,
    ml_dtypes.bfloat16,
    jnp.float32,
    jnp.int8,
    1,
    9,
    101,
    0,
    24,
    99,
    None,
    "float",
    "double",
    "half",
    "string",
    "int",
    "long",
    "float_ref",
    np.zeros(2),
]


@pytest.mark.parametrize("value", INPUTS, ids=[repr(v)[:30] for v in INPUTS])
def test_as_dtype_and_equality_match_tf(value):
    assert _outcome(lambda: jtf.as_dtype(value)) == _outcome(lambda: real_tf.as_dtype(value))
    for name in ("float32", "int64", "string"):
        ours, theirs = jtf.as_dtype(name), real_tf.as_dtype(name)
        assert (ours == value) == (theirs == value)
        assert (ours != value) == (theirs != value)


FETCHES = [
    ("float32", [], 1.5),
    ("int32", [], 3),
    ("int64", [], 2**40 + 1),
    ("float64", [], 0.1),
    ("bool", [], True),
    ("uint8", [], 7),
    ("string", [], b"ab\x00"),
    ("string", [], "h\xe9"),
    ("string", [None], [b"a", "b"]),
    ("float32", [2], [1.0, 2.0]),
    ("string", [2], ["x", "y"]),
]


def _describe(value):
    if isinstance(value, np.ndarray):
        # TF returns a fed str as str; ours is already UTF-8 bytes (documented difference).
        items = [v.encode() if isinstance(v, str) else v for v in np.ravel(value).tolist()]
        return ("ndarray", value.dtype.str, value.shape, items)
    return (type(value).__name__, value)


@pytest.mark.parametrize("dtype,shape,fed", FETCHES, ids=[f"{d}-{v!r}" for d, _, v in FETCHES])
def test_fed_and_fetched_values_match_tf(dtype, shape, fed):
    g = real_tf.Graph()
    with g.as_default():
        p = tf1.placeholder(dtype, shape)
        out = real_tf.identity(p)
        with tf1.Session(graph=g) as sess:
            theirs = [sess.run(p, {p: fed}), sess.run(out, {p: fed})]
    with jtf.Graph().as_default():
        p = jtf.placeholder(dtype, shape)
        out = jtf.identity(p)
        with jtf.Session() as sess:
            ours = [sess.run(p, {p: fed}), sess.run(out, {p: fed})]
    assert [_describe(v) for v in ours] == [_describe(v) for v in theirs]


SHAPES = [None, 5, [], [None], [None, 3], [2, 3], real_tf.TensorShape([4, None])]


@pytest.mark.parametrize("shape", SHAPES, ids=repr)
def test_placeholder_shapes_match_tf(shape):
    g = real_tf.Graph()
    with g.as_default():
        theirs = tf1.placeholder(real_tf.float32, shape)
    ours_shape = shape.as_list() if isinstance(shape, real_tf.TensorShape) else shape
    with jtf.Graph().as_default():
        ours = jtf.placeholder(jtf.float32, ours_shape)
    # The interop process keeps TF2's tensor shapes (str writes None, ours ? as v1 does).
    assert str(ours.shape) == str(theirs.shape).replace("None", "?")
    assert ours.shape.ndims == theirs.shape.ndims
    if theirs.shape.ndims is not None:
        assert ours.shape.as_list() == theirs.shape.as_list()


@pytest.mark.parametrize("new", [[2, None], [None, 4], [2, 3, 1], [5]])
def test_set_shape_matches_tf(new):
    g = real_tf.Graph()
    with g.as_default():
        t = tf1.placeholder(real_tf.float32, [None, 3])
        theirs = _outcome(lambda: t.set_shape(new) or t.shape.as_list())
    with jtf.Graph().as_default():
        o = jtf.placeholder(jtf.float32, [None, 3])
        ours = _outcome(lambda: o.set_shape(new) or o.shape.as_list())
    assert ours == theirs


def _fetch_and_change(tf_module, session_cls, graph):
    """Fetches a variable, a tensor and a list of both; changes each array in place and
    fetches again: (writeable flags, values fetched after the change)."""
    with graph.as_default():
        v = tf_module.Variable([1.0, 2.0, 3.0])
        t = v * 2.0
        init = tf_module.global_variables_initializer()
        with session_cls(graph=graph) as sess:
            sess.run(init)
            first = [sess.run(v), sess.run(t), *sess.run([v, t])]
            flags = [a.flags.writeable for a in first]
            for a in first:
                a[0] = -1.0
            return flags, [x.tolist() for x in sess.run([v, t])]


def test_fetched_arrays_are_writeable_and_the_callers_own_as_tf():
    theirs = _fetch_and_change(tf1, tf1.Session, real_tf.Graph())
    ours = _fetch_and_change(jtf, jtf.Session, jtf.Graph())
    assert ours == theirs
    assert theirs == ([True] * 4, [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])


def test_cast_to_its_own_dtype_is_the_tensor_as_tf():
    """``tf.cast`` of a tensor already of ``dtype`` returns the tensor itself (no Cast
    node), strings included, and of a Python string to ``tf.string`` the constant
    ``Cast/x``, as TF's (jtrain added a Cast node; of strings it failed to build)."""
    from tests.interop.twin import run_both

    def script(tf):
        x = tf.placeholder(tf.float32, [2], name="x")
        s = tf.placeholder(tf.string, [None], name="s")
        outs = [tf.cast(x, tf.float32), tf.cast(s, tf.string), tf.cast("w", tf.string)]
        more = [tf.cast(1.0, tf.float32), tf.cast(x, tf.int32), tf.cast(2, tf.float32)]
        names = [o.name for o in outs + more] + [more[2].op.inputs[0].name]
        return lambda sess: (names, sess.run(outs[1:], {x: [1.0, 2.0], s: [b"q", b""]}))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert ours[0] == ["x:0", "s:0", "Cast/x:0", "Cast_1/x:0", "Cast_2:0", "Cast_3:0", "Cast_3/x:0"]
    assert [list(v) if hasattr(v, "tolist") else v for v in ours[1]] == [
        list(v) if hasattr(v, "tolist") else v for v in theirs[1]
    ]
