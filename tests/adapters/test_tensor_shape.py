"""``TensorShape`` and ``Dimension`` against TF 2.21 v1 behaviour (gen_tensor_shape.py)."""

from __future__ import annotations

import json
import pathlib
import pickle

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework import tensor_shape

GOLDEN = json.loads(
    (
        pathlib.Path(__file__).parents[1] / "goldens" / "tensor_shape" / "tensor_shape.json"
    ).read_text()
)
SLICES = [[0, None, None], [1, None, None], [None, -1, None], [-2, None, None], [None, None, 2]]

UNARY = {
    "str": str,
    "repr": repr,
    "as_list": lambda s: s.as_list(),
    "ndims": lambda s: s.ndims,
    "rank": lambda s: s.rank,
    "dims": lambda s: s.dims,
    "len": len,
    "iter": list,
    "bool": bool,
    "is_fully_defined": lambda s: s.is_fully_defined(),
    "assert_is_fully_defined": lambda s: s.assert_is_fully_defined(),
    "num_elements": lambda s: s.num_elements(),
    "getitem_0": lambda s: s[0],
    "getitem_-1": lambda s: s[-1],
    "getitem_1": lambda s: s[1],
    "dim0_value": lambda s: s[0].value,
    "with_rank_2": lambda s: s.with_rank(2),
    "with_rank_at_least_1": lambda s: s.with_rank_at_least(1),
    "with_rank_at_most_1": lambda s: s.with_rank_at_most(1),
    "assert_has_rank_2": lambda s: s.assert_has_rank(2),
    "dimension_value_0": lambda s: tf.dimension_value(s[0]),
    "dimension_at_index_0": lambda s: tf.dimension_at_index(s, 0),
    "hash_equal_copy": lambda s: hash(s) == hash(tf.TensorShape(s)),
}
for _i, _sl in enumerate(SLICES):
    UNARY[f"slice_{_i}"] = lambda s, sl=_sl: s[slice(*sl)]

BINARY = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "eq_list": lambda a, b: a == (None if b.dims is None else b.as_list()),
    "is_compatible_with": lambda a, b: a.is_compatible_with(b),
    "assert_is_compatible_with": lambda a, b: a.assert_is_compatible_with(b),
    "merge_with": lambda a, b: a.merge_with(b),
    "concatenate": lambda a, b: a.concatenate(b),
    "add": lambda a, b: a + b,
    "most_specific_compatible_shape": lambda a, b: a.most_specific_compatible_shape(b),
    "assert_same_rank": lambda a, b: a.assert_same_rank(b),
}
DIM_UNARY = {
    "str": str,
    "repr": repr,
    "value": lambda d: d.value,
    "int": int,
    "hash_equal": lambda d: hash(d) == hash(tf.Dimension(d.value)),
}
DIM_BINARY = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "eq_int": lambda a, b: a == b.value,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "add": lambda a, b: a + b,
    "radd_int": lambda a, b: 2 + a,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "is_compatible_with": lambda a, b: a.is_compatible_with(b),
    "assert_is_compatible_with": lambda a, b: a.assert_is_compatible_with(b),
    "merge_with": lambda a, b: a.merge_with(b),
}
CONSTRUCT = {
    "TensorShape(None)": lambda: tf.TensorShape(None),
    "TensorShape(5)": lambda: tf.TensorShape(5),
    "TensorShape([-1])": lambda: tf.TensorShape([-1]),
    "TensorShape([1.5])": lambda: tf.TensorShape([1.5]),
    "TensorShape(['a'])": lambda: tf.TensorShape(["a"]),
    "TensorShape((2, Dimension(3)))": lambda: tf.TensorShape((2, tf.Dimension(3))),
    "Dimension(-1)": lambda: tf.Dimension(-1),
    "Dimension(2.0)": lambda: tf.Dimension(2.0),
    "Dimension('3')": lambda: tf.Dimension("3"),
    "unknown_shape()": lambda: tensor_shape.unknown_shape(),
    "as_shape([2, None])": lambda: tensor_shape.as_shape([2, None]),
    "scalar": lambda: tensor_shape.scalar(),
}


def encode(v):
    if isinstance(v, tf.TensorShape):
        return {"shape": None if v.dims is None else v.as_list()}
    if isinstance(v, tf.Dimension):
        return {"dim": v.value}
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    return v


def outcome(fn):
    try:
        return ["ok", encode(fn())]
    except Exception as e:  # noqa: BLE001 - compared with TF's recorded error
        return ["error", type(e).__name__, str(e)]


def _id(row):
    return "-".join(map(str, row[:-1]))


@pytest.mark.parametrize("row", GOLDEN["unary"], ids=_id)
def test_shape_members_match_tf(row):
    shape, name, want = row
    assert outcome(lambda: UNARY[name](tf.TensorShape(shape))) == want


@pytest.mark.parametrize("row", GOLDEN["binary"], ids=_id)
def test_shape_pairs_match_tf(row):
    a, b, name, want = row
    assert outcome(lambda: BINARY[name](tf.TensorShape(a), tf.TensorShape(b))) == want


@pytest.mark.parametrize("row", GOLDEN["dim_unary"], ids=_id)
def test_dimension_members_match_tf(row):
    d, name, want = row
    assert outcome(lambda: DIM_UNARY[name](tf.Dimension(d))) == want


@pytest.mark.parametrize("row", GOLDEN["dim_binary"], ids=_id)
def test_dimension_pairs_match_tf(row):
    a, b, name, want = row
    assert outcome(lambda: DIM_BINARY[name](tf.Dimension(a), tf.Dimension(b))) == want


@pytest.mark.parametrize("name", sorted(GOLDEN["construct"]))
def test_construction_matches_tf(name):
    assert outcome(CONSTRUCT[name]) == GOLDEN["construct"][name]


def test_pickle_and_helpers():
    s = tf.TensorShape([None, 3])
    assert pickle.loads(pickle.dumps(s)) == s
    assert tensor_shape.vector(4).as_list() == [4]
    assert tensor_shape.matrix(2, None).as_list() == [2, None]
    assert tensor_shape.unknown_shape(rank=2).as_list() == [None, None]


def test_v2_tensorshape_switch():
    s = tf.TensorShape([None, 3])
    tf.enable_v2_tensorshape()
    try:
        assert s[1] == 3 and isinstance(s[1], int) and s.dims == [None, 3]
        assert str(s) == "(None, 3)" and repr(s) == "TensorShape([None, 3])"
    finally:
        tf.disable_v2_tensorshape()
    assert isinstance(s[1], tf.Dimension) and str(s) == "(?, 3)"


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def test_tensor_shape_is_a_tensorshape(graph):
    x = tf.placeholder(tf.float32, [None, 3])
    assert isinstance(x.shape, tf.TensorShape) and isinstance(x.get_shape(), tf.TensorShape)
    assert x.shape.as_list() == [None, 3] and x.get_shape()[1].value == 3
    assert x.shape.ndims == 2 and x.shape[0].value is None
    assert repr(x) == "<tf.Tensor 'Placeholder:0' shape=(?, 3) dtype=float32>"
    assert (x * 2.0).shape.as_list() == [None, 3]


@pytest.mark.parametrize(
    "shape,want",
    [(100, [100]), ([], []), ((2, None), [2, None]), (tf.TensorShape([4]), [4]), (None, None)],
)
def test_placeholder_takes_tf_shapes(graph, shape, want):
    x = tf.placeholder("float", shape)
    assert x.shape.dims is None if want is None else x.shape.as_list() == want


def test_placeholder_negative_dimension_is_refused_as_tf(graph):
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        tf.placeholder(tf.float32, [-1, 3])


def test_set_shape_merges_and_refuses_incompatible(graph):
    x = tf.placeholder(tf.float32, [None, 3])
    x.set_shape([2, None])
    assert x.shape.as_list() == [2, 3]
    with pytest.raises(ValueError, match="Dimension 1 in both shapes must be equal, but are 3"):
        x.set_shape([2, 4])
    with pytest.raises(ValueError, match="equal rank"):
        x.set_shape([2])
    y = tf.placeholder(tf.float32)
    y.set_shape([5])
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="shape"):
            sess.run(y, {y: np.zeros(4, np.float32)})


def test_tensor_and_operation_print_as_tf1(graph):
    """``print(tensor)`` as TF1 prints it (``Tensor("x:0", shape=(?, 784), ...)``, no
    shape of unknown rank); an operation's repr ``<tf.Operation ...>``, its str the
    NodeDef text (TF 2.21's classic graphs print the same)."""
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    assert str(x) == 'Tensor("x:0", shape=(?, 784), dtype=float32)'
    assert str(tf.placeholder(tf.int32)) == 'Tensor("Placeholder:0", dtype=int32)'
    assert str(tf.constant(3)) == 'Tensor("Const:0", shape=(), dtype=int32)'
    total = tf.reduce_sum(x, 1)
    assert repr(total.op) == "<tf.Operation 'Sum' type=Sum>"
    assert str(total.op).startswith('name: "Sum"\nop: "Sum"\ninput: "x"\n')
