"""The run-time check mechanism and jtrain's own control-flow behaviours.

TF parity of values, gradients and messages is in ``test_control_flow_ops.py``
(goldens); here: checks inside branches and loops, what plans pay for checks,
jtrain's errors where it cannot do what TF does (and says what to do).
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework import runtime_checks
from jtrain import errors


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _plan(sess):
    (plan,) = sess._plans.values()
    return plan


def test_plans_without_checks_are_not_functionalized(graph):
    x = tf.placeholder(tf.float32, [2])
    with tf.Session() as sess:
        sess.run(x * 2.0, {x: [1.0, 2.0]})
        assert _plan(sess).checked is False
    with tf.Session() as sess:
        sess.run(tf.check_numerics(x, "m"), {x: [1.0, 2.0]})
        assert _plan(sess).checked is True


@pytest.mark.parametrize("value, fails", [(1.0, False), (np.nan, True)])
def test_check_inside_a_cond_branch_fails_only_when_taken(graph, value, fails):
    x = tf.placeholder(tf.float32, [])
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.check_numerics(x * 2.0, "in branch"), lambda: x)
    with tf.Session() as sess:
        assert np.isnan(sess.run(y, {x: np.nan, p: False}))  # branch not taken
        if fails:
            with pytest.raises(errors.InvalidArgumentError, match="in branch : Tensor had NaN"):
                sess.run(y, {x: value, p: True})
        else:
            assert sess.run(y, {x: value, p: True}) == 2.0


def test_check_inside_a_while_loop_reports_the_failing_iteration(graph):
    def body(i, acc):
        checked = tf.Assert(i < 3, ["iteration", i])
        with tf.control_dependencies([checked]):
            return i + 1, acc * 2.0

    i, acc = tf.while_loop(lambda i, a: i < 5, body, (tf.constant(0), tf.constant(1.0)))
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError) as info:
            sess.run(acc)
    assert info.value.message == "assertion failed: [iteration] [3]"


def test_check_inside_map_fn(graph):
    x = tf.placeholder(tf.float32, [3])
    y = tf.map_fn(lambda e: tf.check_numerics(tf.log(e), "log"), x)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0, 3.0]}), np.log([1.0, 2.0, 3.0]))
        with pytest.raises(errors.InvalidArgumentError, match="log : Tensor had Inf values"):
            sess.run(y, {x: [1.0, 0.0, 3.0]})


def test_a_failing_check_names_its_op_and_the_run_still_commits_writes(graph):
    v = tf.Variable(0.0)
    x = tf.placeholder(tf.float32, [])
    inc = v.assign_add(1.0)
    with tf.control_dependencies([inc]):
        checked = tf.check_numerics(x, "bad x", name="x_is_finite")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(errors.InvalidArgumentError) as info:
            sess.run(checked, {x: np.inf})
        assert info.value.op.name == "x_is_finite"
        assert sess.run(v) == 1.0  # documented: the step ran to its end


def test_gradients_do_not_check_again(graph):
    x = tf.placeholder(tf.float32, [])
    y = tf.check_numerics(x * x, "y")
    (g,) = tf.gradients(y, x)
    with tf.Session() as sess:
        assert sess.run(g, {x: 3.0}) == 6.0


def test_mark_and_check_for_a_new_op(graph):
    """The recipe of runtime_checks' docstring: an op with its own check and message."""
    x = tf.placeholder(tf.int32, [None])

    def compute(ctx, values):
        runtime_checks.check(ctx, op, values.min() >= 0, values)
        return (values,)

    op = graph.create_op(
        "NonNegative", "NonNegative", inputs=[x], compute=compute, output_specs=[((None,), x.dtype)]
    )
    runtime_checks.mark(op, lambda v: errors.OutOfRangeError(None, op, f"negative in {v.tolist()}"))
    with tf.Session() as sess:
        assert sess.run(op.outputs[0], {x: [1, 2]}).tolist() == [1, 2]
        with pytest.raises(errors.OutOfRangeError, match=r"negative in \[1, -2\]"):
            sess.run(op.outputs[0], {x: [1, -2]})


def test_print_inside_a_cond_prints_only_the_taken_branch(graph, capsys):
    x = tf.placeholder(tf.float32, [])
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.Print(x, [x], "true: "), lambda: tf.Print(x, [x], "false: "))
    with tf.Session() as sess:
        sess.run(y, {x: 1.0, p: True})
        sess.run(y, {x: 2.0, p: False})
    assert capsys.readouterr().err == "true: [1]\nfalse: [2]\n"


def test_py_func_inside_map_fn_runs_in_the_program(graph):
    x = tf.placeholder(tf.float32, [3])

    def element(e):
        y = tf.py_func(lambda a: np.float32(a * 10.0), [e], tf.float32)
        y.set_shape([])
        return y

    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.map_fn(element, x), {x: [1, 2, 3]}), [10, 20, 30])


def test_py_func_with_computed_inputs_needs_static_output_shapes(graph):
    x = tf.placeholder(tf.float32, [2])
    y = tf.py_func(lambda a: a, [x * 2.0], tf.float32)
    with tf.Session() as sess:
        with pytest.raises(NotImplementedError, match="call set_shape"):
            sess.run(y, {x: [1.0, 2.0]})


def test_unbounded_while_loop_gradient_says_to_pass_maximum_iterations(graph):
    x = tf.placeholder(tf.float32, [])
    y = tf.while_loop(lambda v: v < 10.0, lambda v: v * x, [tf.constant(1.0)], name="grow")
    with pytest.raises(NotImplementedError, match="'grow'.*pass maximum_iterations"):
        tf.gradients(y, x)


def test_bounded_while_loop_gradient_equals_the_unrolled_one(graph):
    x = tf.placeholder(tf.float32, [])
    y = tf.while_loop(
        lambda v: v < 10.0, lambda v: v * x, [tf.constant(1.0)], maximum_iterations=20
    )
    (g,) = tf.gradients(y, x)
    with tf.Session() as sess:
        value, grad = sess.run([y, g], {x: 3.0})  # 3 iterations: y = x**3
    assert value == 27.0 and grad == 27.0


def test_branches_with_different_static_shapes_are_refused(graph):
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(NotImplementedError, match="same shape"):
        tf.cond(p, lambda: tf.zeros([2, 3]), lambda: tf.zeros([2, 4]))


def test_host_op_inside_a_body_is_refused(graph):
    q = tf.FIFOQueue(3, tf.float32)
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(NotImplementedError, match="runs on the host"):
        tf.cond(p, lambda: q.dequeue(), lambda: tf.constant(0.0))


def test_add_check_numerics_ops_refuses_control_flow(graph):
    p = tf.placeholder(tf.bool, [])
    tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    with pytest.raises(ValueError, match="not compatible with TensorFlow control flow"):
        tf.add_check_numerics_ops()


def test_variables_assigned_in_a_loop_are_carried(graph):
    v = tf.Variable(0.0)

    def body(i):
        with tf.control_dependencies([v.assign_add(2.0)]):
            return i + 1

    n = tf.while_loop(lambda i: i < 4, body, [tf.constant(0)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(n) == 4
        assert sess.run(v) == 8.0


def test_debugging_namespace(graph):
    assert tf.debugging.check_numerics is tf.check_numerics
    assert tf.debugging.assert_equal is tf.assert_equal
    assert tf.debugging.assert_all_finite is tf.verify_tensor_all_finite  # TF 2.21's v1 alias
    assert tf.debugging.is_nan is tf.is_nan
    with pytest.raises(AttributeError, match="tf.debugging.no_such_check"):
        tf.debugging.no_such_check  # noqa: B018


@pytest.fixture
def checkify_traces(monkeypatch):
    """How many times a step's program went through checkify."""
    traced = []
    make = runtime_checks.checkify.checkify

    def spy(program, **kwargs):
        checked = make(program, **kwargs)

        def run(*args):
            traced.append(program)
            return checked(*args)

        return run

    monkeypatch.setattr(runtime_checks.checkify, "checkify", spy)
    return traced


def test_checks_of_the_step_itself_are_collected_in_its_trace(graph, checkify_traces):
    """The first failing check in execution order is the one reported; checkify never
    re-interprets the program. A check inside a loop body goes through checkify."""
    x = tf.placeholder(tf.float32, [2])
    first = tf.check_numerics(tf.log(x), "first", name="first")
    with tf.control_dependencies([first]):
        second = tf.check_numerics(tf.log(x - 1.0), "second", name="second")
    idx = tf.placeholder(tf.int32, [2])
    gathered = tf.gather(tf.constant([1.0, 2.0, 3.0]), idx)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(second, {x: [2.0, 3.0]}), np.log([1.0, 2.0]))
        with pytest.raises(errors.InvalidArgumentError, match="^second : Tensor had NaN"):
            sess.run(second, {x: [2.0, 0.5]})
        with pytest.raises(errors.InvalidArgumentError, match="^first : Tensor had Inf") as info:
            sess.run(second, {x: [0.0, 0.5]})  # both fail: the first to run is reported
        assert info.value.op.name == "first"
        with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in"):
            sess.run(gathered, {idx: [0, 5]})
        assert checkify_traces == []
        _, looped = tf.while_loop(
            lambda i, v: i < 2, lambda i, v: (i + 1, tf.check_numerics(v * 2.0, "loop")), [0, x]
        )
        np.testing.assert_allclose(sess.run(looped, {x: [1.0, 2.0]}), [4.0, 8.0])
        assert len(checkify_traces) == 1


def test_a_check_inside_a_second_derivative_goes_through_checkify(graph, checkify_traces):
    """``tf.hessians`` differentiates ``check_numerics``' gradient again: its check is
    traced inside JAX's differentiation, so the step goes through checkify, and the
    first trace leaves nothing behind (the ``py_func`` before it runs once a run)."""
    calls = []
    x = tf.placeholder(tf.float32, [3])
    # (a computed input: the function runs inside the program, an io_callback)
    (count,) = tf.py_func(lambda v: calls.append(1) or v, [x * 1.0], [tf.float32])
    count.set_shape([3])
    with tf.control_dependencies([count]):
        y = tf.check_numerics(tf.log(x), "y")
    (h,) = tf.hessians(tf.reduce_sum(y * y * y), x)
    with tf.Session() as sess:
        value = sess.run(h, {x: [1.0, 2.0, 3.0]})
        assert len(calls) == 1 and len(checkify_traces) == 1
        assert np.isfinite(value).all()
        with pytest.raises(errors.InvalidArgumentError, match="^y : Tensor had Inf values"):
            sess.run(h, {x: [0.0, 1.0, 2.0]})
        assert len(calls) == 2


def test_like_checks_share_one_slot_of_data():
    """Checks whose data have the same shapes and dtypes return one set of arrays (a
    step with a gather per embedding does not return each one's indices), holding the
    first failing check's data."""
    import jax
    import jax.numpy as jnp

    like = [(f"like{k}", jnp.asarray(k != 3), [jnp.full((2,), k)]) for k in range(5)]
    other = [("other", jnp.asarray(True), [jnp.zeros((3,), jnp.float32)])]
    failed, collected = jax.jit(lambda: runtime_checks._Collected.of(like + other))()
    assert bool(failed)
    assert len(jax.tree.leaves(collected)) == 3  # the first failure's index, two slots
    tag, data = runtime_checks._first_failure(collected)
    assert tag == "like3" and data[0].tolist() == [3, 3]
    passed, collected = jax.jit(lambda: runtime_checks._Collected.of(other))()
    assert not bool(passed)
