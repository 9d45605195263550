"""``tf.while_loop`` cases that differed from TF 2.21, checked live (``twin.py``).

A variable a loop writes is read anew by every iteration and every test of the
condition (it was read once before the loop: wrong values, or a loop that never
ended); a body may return a tuple for a list of loop variables, or the reverse.
Loops writing variables run with ``parallel_iterations=1``: TF's result is then
deterministic (it may run a condition before the previous body's write otherwise).
"""

from __future__ import annotations

import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1


def _doubling(tf):
    v = tf.get_variable("v", initializer=1.0, use_resource=True)

    def body(i):
        with tf.control_dependencies([tf.assign(v, v * 2.0)]):
            return i + 1

    r = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)], parallel_iterations=1)
    return lambda sess: (sess.run(r), sess.run(v))


def _condition_reads_the_variable(tf):
    w = tf.Variable(0.0, name="w")

    def body(i):
        with tf.control_dependencies([tf.assign_add(w, 1.0)]):
            return i + 1

    # Before: w was read once before the loop, so the loop never ended (here: ran to
    # maximum_iterations). TF runs iterations in parallel unless told not to: with
    # parallel_iterations=10 and maximum_iterations its condition reads w too early.
    r = tf.while_loop(
        lambda i: w < 3.0, body, [tf.constant(0)], maximum_iterations=10, parallel_iterations=1
    )
    return lambda sess: (sess.run(r), sess.run(w))


def _cond_in_the_body(tf):
    u = tf.Variable(1.0, name="u")

    def body(i):
        c = tf.cond(u < 5.0, lambda: tf.assign(u, u + 10.0), lambda: tf.assign(u, u * 2.0))
        with tf.control_dependencies([c]):
            return i + 1

    r = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)], parallel_iterations=1)
    return lambda sess: (sess.run(r), sess.run(u))


def _accumulating(tf):
    total = tf.Variable(0.0, name="total")

    def body(i, x):
        add = tf.assign_add(total, x * tf.cast(i, tf.float32) + total)
        with tf.control_dependencies([add]):
            return i + 1, x * 0.5

    r = tf.while_loop(
        lambda i, x: i < 4, body, [tf.constant(0), tf.constant(2.0)], parallel_iterations=1
    )
    return lambda sess: (sess.run(r), sess.run(total))


def _tuple_for_a_list(tf):
    out = tf.while_loop(
        lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [tf.constant(0), tf.constant(1.0)]
    )
    return lambda sess: sess.run(list(out))


def _list_for_a_tuple(tf):
    out = tf.while_loop(
        lambda i, x: i < 3, lambda i, x: [i + 1, x * 3.0], (tf.constant(0), tf.constant(1.0))
    )
    return lambda sess: sess.run(list(out))


def _bare_for_a_one_tuple(tf):
    out = tf.while_loop(
        lambda i: i < 5, lambda i: i + 2, (tf.constant(0),), return_same_structure=True
    )
    return lambda sess: sess.run(list(out))


CASES = {
    "a body doubling a variable": _doubling,
    "a condition reading the variable the body adds to": _condition_reads_the_variable,
    "a cond in the body assigning the variable it tests": _cond_in_the_body,
    "a body reading the variable it accumulates into": _accumulating,
    "a tuple returned for a list": _tuple_for_a_list,
    "a list returned for a tuple": _list_for_a_tuple,
    "a bare value returned for a one-tuple": _bare_for_a_one_tuple,
}


@pytest.mark.parametrize("case", list(CASES))
def test_while_loop_as_tf(case):
    assert_twins(*run_both(CASES[case]), rtol=1e-6)


# (body, loop_vars, cond) whose structures differ in TF's accepted ways or not.
STRUCTURES = {
    "tuple for list": (
        lambda i, x: (i + 1, x * 2.0),
        lambda tf: [tf.constant(0), tf.constant(1.0)],
        lambda i, x: i < 3,
    ),
    "list for tuple": (
        lambda i, x: [i + 1, x * 2.0],
        lambda tf: (tf.constant(0), tf.constant(1.0)),
        lambda i, x: i < 3,
    ),
    "bare for one-tuple": (lambda i: i + 2, lambda tf: (tf.constant(0),), lambda i: i < 5),
    "bare for one-list": (lambda i: i + 2, lambda tf: [tf.constant(0)], lambda i: i < 5),
    "tuple for one-list": (lambda i: (i + 2,), lambda tf: [tf.constant(0)], lambda i: i < 5),
}


def _structure_outcome(tf, case, maximum_iterations, same):
    """What the loop returns (its type and values), or the error class it raises."""
    body, loop_vars, cond = STRUCTURES[case]
    with tf.Graph().as_default():
        try:
            out = tf.while_loop(
                cond,
                body,
                loop_vars(tf),
                maximum_iterations=maximum_iterations,
                return_same_structure=same,
            )
        except (TypeError, ValueError) as e:
            return type(e).__name__
        with tf.Session() as sess:
            kind = type(out).__name__ if isinstance(out, (list, tuple)) else "tensor"
            return kind, sess.run(out)


@pytest.mark.parametrize("same", [False, True], ids=["bare", "same_structure"])
@pytest.mark.parametrize("maximum_iterations", [None, 3], ids=["unbounded", "bounded"])
@pytest.mark.parametrize("case", list(STRUCTURES))
def test_while_loop_structures_as_tf(case, maximum_iterations, same):
    """TF compares list(loop_vars) with list(body's result) and returns the body's
    structure; with maximum_iterations, the body's result must have loop_vars' very
    structure (a lone loop variable compared bare unless return_same_structure)."""
    with classic_tf1():
        theirs = _structure_outcome(tf1, case, maximum_iterations, same)
    ours = _structure_outcome(jtf, case, maximum_iterations, same)
    if isinstance(theirs, str):
        assert ours == theirs
    else:
        assert ours[0] == theirs[0]
        assert_twins(theirs[1], ours[1], rtol=0)
