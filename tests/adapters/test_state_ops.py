"""TF1's state ops against TF 2.21 (``goldens/gen_state_ops.py``), compared exactly.

Each case of ``tests/adapters/state_ops_script.py`` (``tf.assign``,
``tf.assign_add/sub``, ``tf.scatter_*``, ``tf.scatter_nd_*``, ``tf.count_up_to``)
runs under ``adapters.v1``: the op's name, the results of two runs (the value
after each write), the variable's final value and TF's error classes.
"""

import inspect
import json
import os

import numpy as np
import pytest

from adapters import v1 as tf
from tests.adapters import state_ops_script

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "goldens", "state_ops", "results.json")
with open(GOLDEN) as f:
    EXPECTED = json.load(f)["results"]


@pytest.fixture(scope="module")
def jtrain_results():
    return state_ops_script.results(tf)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_state_op_matches_tf1(jtrain_results, case):
    assert jtrain_results[case] == EXPECTED[case]


def test_out_of_range_indices_fail_the_run_as_tf():
    """TF's CPU kernels raise InvalidArgumentError naming the first bad index.

    TF stops at the bad index; jtrain writes every in-range row of the run, then
    raises: with the bad index last (as in these cases) the variable ends as TF's.
    """
    failing = sorted(name for name, record in EXPECTED.items() if "run_error" in record)
    assert failing == [
        "scatter_add_out_of_range",
        "scatter_nd_add_out_of_range",
        "scatter_update_negative_index",
    ]
    assert EXPECTED["scatter_add_out_of_range"]["message"] == "indices[1] = 7 is not in [0, 5)"


@pytest.mark.parametrize(
    "name, want",
    [
        ("assign", "ref value validate_shape=None use_locking=None name=None"),
        ("assign_add", "ref value use_locking=None name=None"),
        ("assign_sub", "ref value use_locking=None name=None"),
        ("scatter_update", "ref indices updates use_locking=True name=None"),
        ("scatter_add", "ref indices updates use_locking=False name=None"),
        ("scatter_div", "ref indices updates use_locking=False name=None"),
        ("scatter_nd_update", "ref indices updates use_locking=True name=None"),
        ("scatter_nd_sub", "ref indices updates use_locking=False name=None"),
        ("count_up_to", "ref limit name=None"),
    ],
)
def test_top_level_names_have_tf_signatures(name, want):
    """TF 2.21's ``tf.compat.v1`` signatures (names, order, defaults)."""
    params = inspect.signature(getattr(tf, name)).parameters.values()
    got = " ".join(p.name if p.default is p.empty else f"{p.name}={p.default}" for p in params)
    assert got == want


@pytest.mark.usefixtures("graph")
def test_ref_must_be_a_variable():
    with pytest.raises(TypeError, match="requires l-value input"):
        tf.assign(tf.constant([1.0]), [2.0])
    with pytest.raises(TypeError, match="requires l-value input"):
        tf.scatter_add(tf.constant([1.0]), [0], [2.0])


@pytest.mark.usefixtures("graph")
def test_validate_shape_false_is_refused_with_advice():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="static shapes"):
        tf.assign(v, [1.0, 2.0, 3.0], validate_shape=False)


@pytest.mark.usefixtures("graph")
def test_updates_in_one_run_apply_in_order():
    """Control dependencies order two writes of one run (TF1 ref semantics)."""
    v = tf.Variable(np.zeros(3, np.float32))
    first = tf.scatter_add(v, [0, 1], [1.0, 2.0])
    with tf.control_dependencies([first]):
        second = tf.scatter_mul(v, [1], [10.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(second), [1.0, 20.0, 0.0])
        np.testing.assert_array_equal(sess.run(v), [1.0, 20.0, 0.0])


def test_assign_of_a_partly_known_shape_is_checked_when_run():
    """TF 2.21 (measured): a ``[None, 4]`` value assigns to a ``[4, 4]`` variable; at run
    time another shape fails with TF's message and the variable keeps its value; a
    known incompatible shape fails at graph construction."""
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((4, 4), np.float32))
        p = tf.placeholder(tf.float32, [None, 4])
        a = tf.assign(v, p)
        with pytest.raises(
            ValueError,
            match=r"Dimension 0 in both shapes must be equal, but are 4 and 3\. "
            r"Shapes are \[4,4\] and \[3,4\]\.",
        ):
            tf.assign(v, np.zeros((3, 4), np.float32))
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"^Assign requires shapes of both tensors to match\. "
                r"lhs shape= \[4,4\] rhs shape= \[1,4\]$",
            ):
                sess.run(a, {p: np.ones((1, 4), np.float32)})
            np.testing.assert_array_equal(sess.run(v), np.zeros((4, 4), np.float32))
            np.testing.assert_array_equal(sess.run(a, {p: np.ones((4, 4), np.float32)}), 1.0)
