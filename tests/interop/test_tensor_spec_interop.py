"""``tf.TensorSpec`` under TF 2.21's ``compat.v1`` (classic TF1, ``twin.py``) and under
``adapters.v1``: constructor and defaults, properties, ``repr``, equality and hashing,
``is_compatible_with``, ``from_tensor``/``from_spec``, TF's errors; and
``tf.data.Dataset.from_generator(output_signature=...)`` giving TF's elements, static
shapes and dtypes, and TF's ``TypeError``s.

jtrain had no ``tf.TensorSpec`` (AttributeError) and refused ``output_signature``.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tests.interop.twin import assert_twins, classic_tf1, jtf, run_both, tf1

pytestmark = pytest.mark.interop


def _facts(tf):
    """What a script can observe of ``tf.TensorSpec``, as plain Python values."""
    S = tf.TensorSpec
    a = S([2, None])
    b = S(shape=(2, 3), dtype=tf.int32, name="x")
    out = {
        "repr": [
            repr(s)
            for s in (a, b, S(None), S([]), S([5]), S(tf.TensorShape([1]), "float64"),
                      S([2], np.int64, name="n"))
        ],  # fmt: skip
        "str": str(a),
        "shape": a.shape.as_list(),
        "shape type": type(a.shape) is tf.TensorShape,
        "unknown rank": S(None).shape.rank,
        "dtype": (a.dtype.name, b.dtype.name, a.dtype == tf.float32),
        "name": (a.name, b.name),
        "value_type": a.value_type is tf.Tensor,
        "eq": (a == S([2, None]), a == S([2, None], name="y"), a == S([2, None], tf.int32),
               a == S([2, 3]), a != b, S(None) == S(None), a == 3, a == [2, None]),
        "hash": (hash(a) == hash(S([2, None])), hash(S(None)) == hash(S(None)),
                 len({a, S([2, None]), b})),
        "compatible specs": [
            a.is_compatible_with(s)
            for s in (S([2, 3]), S([3, 3]), S([2, 3], tf.int32), S([2]), S(None),
                      S([2, 7], name="other"))
        ],
        "unknown rank compatible": S(None).is_compatible_with(S([2, 3])),
        "not a spec": [a.is_compatible_with(v) for v in (None, 1.0, np.zeros([2, 3], np.float32))],
        "from_spec": (repr(S.from_spec(b)), repr(S.from_spec(b, name="q"))),
        "pickled": repr(pickle.loads(pickle.dumps(S([2, None], tf.int64, "p")))),
    }  # fmt: skip
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 4], name="pp")
        c = tf.constant([1, 2])
        v = tf.Variable(1.0)
        out["compatible tensors"] = [
            S([None, 4]).is_compatible_with(p),
            S([3, 4]).is_compatible_with(p),
            S([None, 4], tf.int32).is_compatible_with(p),
            S(None, tf.int32).is_compatible_with(c),
            S([]).is_compatible_with(v),
        ]
        out["from_tensor"] = [
            repr(S.from_tensor(p)),
            repr(S.from_tensor(p, name="z")),
            repr(S.from_tensor(c)),
            repr(S.from_tensor(c * 2)),
        ]
        for key, bad in (("variable", v), ("int", 3)):
            with pytest.raises(ValueError) as e:
                S.from_tensor(bad)
            out[f"from_tensor {key}"] = str(e.value).split(", but got type")[0]
    with pytest.raises(TypeError) as e:
        S([2], dtype="foo")
    out["bad dtype"] = str(e.value)
    with pytest.raises(TypeError):
        S("ab")
    return out


def test_tensor_spec_as_tf() -> None:
    with classic_tf1():
        theirs = _facts(tf1)
    ours = _facts(jtf)
    assert theirs["repr"][0] == "TensorSpec(shape=(2, ?), dtype=tf.float32, name=None)"
    assert ours == theirs


def test_tf_tensor_spec_is_compat_v1_name() -> None:
    assert jtf.TensorSpec is jtf.compat.v1.TensorSpec
    assert "TensorSpec" in jtf.__all__


def _gen_pairs():
    for i in range(3):
        yield np.full([2], i, np.int64), {"b": [float(i)] * i, "a": b"s%d" % i}


SIGNATURES = {
    "scalar": (
        lambda: iter([1, 2, 3]),
        lambda tf: tf.TensorSpec(shape=(), dtype=tf.int32),
    ),
    "unknown rank": (
        lambda: iter([[1.5], [2.5, 3.5]]),
        lambda tf: tf.TensorSpec(None),
    ),
    "nested": (
        _gen_pairs,
        lambda tf: (
            tf.TensorSpec([2], tf.int64),
            {"b": tf.TensorSpec([None], tf.float64, name="b"), "a": tf.TensorSpec([], tf.string)},
        ),
    ),
}


@pytest.mark.parametrize("case", list(SIGNATURES))
def test_from_generator_output_signature(case: str) -> None:
    gen, signature = SIGNATURES[case]

    def script(tf):
        ds = tf.data.Dataset.from_generator(gen, output_signature=signature(tf))
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        static = tf.nest.map_structure(
            lambda t: (t.dtype.name, None if t.shape.rank is None else t.shape.as_list()), nxt
        )
        types = tf.nest.map_structure(lambda d: d.name, tf.data.get_output_types(ds))

        def run(sess):
            values = []
            while True:
                try:
                    values.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return static, types, values

        return run

    (t_static, t_types, t_values), (o_static, o_types, o_values) = run_both(script)
    assert o_static == t_static
    assert o_types == t_types
    assert_twins(t_values, o_values)


@pytest.mark.parametrize("tf", [tf1, jtf], ids=["tf", "jtrain"])
def test_from_generator_output_signature_errors(tf) -> None:
    gen = lambda: iter([1])  # noqa: E731
    spec = tf.TensorSpec([], tf.int32)
    with pytest.raises(TypeError, match="The `output_types` argument can not be used together"):
        tf.data.Dataset.from_generator(gen, output_types=tf.int32, output_signature=spec)
    with pytest.raises(TypeError, match="The `output_shapes` argument can not be used together"):
        tf.data.Dataset.from_generator(gen, output_shapes=[], output_signature=spec)
    with pytest.raises(TypeError, match="`output_signature` must contain objects that are"):
        tf.data.Dataset.from_generator(gen, output_signature=(spec, tf.int32))


def test_from_generator_bad_element_against_signature() -> None:
    def script(tf):
        ds = tf.data.Dataset.from_generator(
            lambda: iter([[1, 2], [1, 2, 3]]), output_signature=tf.TensorSpec([2], tf.int32)
        )
        nxt = tf.data.make_one_shot_iterator(ds).get_next()

        def run(sess):
            first = sess.run(nxt)
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(nxt)
            return first, "`generator` yielded an element of shape (3,)" in str(e.value)

        return run

    theirs, ours = run_both(script)
    assert theirs[1]
    assert_twins(theirs, ours)
