"""``tf.get_variable`` from a value takes the value's dtype, as TF 2.21 (checked live).

jtrain made every such variable float32 (a float64 array, an int list, a float64
tensor), silently: different values and checkpoints TF could not restore.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1

INITIALIZERS = {
    "float64 array": lambda tf: np.array([0.5, 0.1], np.float64),
    "float16 array": lambda tf: np.array([0.5], np.float16),
    "int64 array": lambda tf: np.array([1, 2], np.int64),
    "list of floats": lambda tf: [0.5, 1.0],
    "list of ints": lambda tf: [1, 2],
    "python float": lambda tf: 0.1,
    "python int": lambda tf: 3,
    "numpy float64 scalar": lambda tf: np.float64(0.1),
    "float64 tensor": lambda tf: tf.constant([0.5, 0.1], tf.float64),
    "int64 tensor": lambda tf: tf.constant([7], tf.int64),
    "explicit matching dtype": lambda tf: (np.array([0.1], np.float64), tf.float64),
}


@pytest.mark.parametrize("case", list(INITIALIZERS))
def test_get_variable_from_a_value_takes_its_dtype(case):
    def script(tf):
        init = INITIALIZERS[case](tf)
        kwargs = {"initializer": init}
        if isinstance(init, tuple):
            kwargs = {"initializer": init[0], "dtype": init[1]}
        with tf.variable_scope("s"):
            v = tf.get_variable("v", **kwargs)
        return lambda sess: (v.dtype.base_dtype.name, v.shape.as_list(), sess.run(v))

    theirs, ours = run_both(script)
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2], rtol=0)


def test_an_explicit_dtype_against_the_value_is_tfs_value_error():
    messages = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else jtf.Graph().as_default(), tf.Graph().as_default():
            with pytest.raises(ValueError) as info:
                tf.get_variable("v", initializer=np.array([0.5], np.float64), dtype=tf.float32)
            messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_get_variable_use_resource_as_tf():
    """``use_resource`` of ``tf.get_variable`` and of its scope decides the kind of the
    new variable (its dtype: ``float32`` for a resource variable, ``float32_ref`` for a
    reference one), as in TF; jtrain made every one a reference variable."""

    def script(tf):
        made = [tf.get_variable("a", [2]), tf.get_variable("b", [2], use_resource=True)]
        with tf.variable_scope("s", use_resource=True):
            made.append(tf.get_variable("c", [2]))
            made.append(tf.get_variable("d", [2], use_resource=False))
            with tf.variable_scope("inner"):
                made.append(tf.get_variable("e", [2]))
        with tf.variable_scope("s", reuse=True):
            made.append(tf.get_variable("c", [2], use_resource=False))  # the same variable
        kinds = [(v.name, v.dtype.name) for v in made]
        return lambda sess: kinds

    theirs, ours = run_both(script)
    assert ours == theirs
    assert [k for _, k in theirs] == ["float32_ref", "float32", "float32", "float32_ref"] + [
        "float32",
        "float32",
    ]


def test_partitioned_variable_parts_follow_use_resource_as_tf(tmp_path):
    """A partitioned ``get_variable`` in a ``use_resource=True`` scope (or with
    ``use_resource=True``) has resource parts (dtype ``float32``), as TF's; jtrain made
    them reference variables. The parts train through ``embedding_lookup`` and a saved
    and restored checkpoint gives TF's values."""

    def script(tf):
        init = tf.ones_initializer()
        part = tf.fixed_size_partitioner(2)
        with tf.variable_scope("s", use_resource=True):
            p = tf.get_variable("p", [6, 2], partitioner=part, initializer=init)
        q = tf.get_variable("q", [6, 2], partitioner=part, initializer=init, use_resource=True)
        r = tf.get_variable("r", [6, 2], partitioner=part, initializer=init)
        kinds = [(v.name, v.dtype.name) for v in tf.global_variables()]
        ids = tf.constant([0, 4, 4, 5])
        loss = sum(tf.reduce_sum(tf.square(tf.nn.embedding_lookup(v, ids))) for v in (p, q, r))
        train = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
        saver = tf.train.Saver()

        def run(sess):
            sess.run(train)
            path = saver.save(sess, str(tmp_path / ("tf" if tf.__name__ != "adapters.v1" else "j")))
            trained = sess.run([p.as_tensor(), q.as_tensor(), r.as_tensor()])
            sess.run(tf.global_variables_initializer())
            saver.restore(sess, path)
            return kinds, trained, sess.run([p.as_tensor(), q.as_tensor(), r.as_tensor()])

        return run

    theirs, ours = run_both(script)
    assert [k for _, k in theirs[0]] == ["float32"] * 4 + ["float32_ref"] * 2
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=0)
