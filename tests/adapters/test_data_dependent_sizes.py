"""Output sizes that depend on values (``framework/data_sizes.py``,
``client/sized_programs.py``): the programs a session compiles for them. TF's values:
``interop/test_data_dependent_sizes_interop.py``."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.client import sized_programs


def _sized_program(sess):
    """The one plan's program that is compiled per tuple of sizes."""
    found = [p.fn for p in sess._plans.values() if isinstance(p.fn, sized_programs.SizedProgram)]
    assert len(found) == 1
    return found[0]


def test_a_changing_mask_with_the_same_count_reuses_its_program(graph):
    x = tf.placeholder(tf.float32, [None])
    picked = tf.boolean_mask(x, x > 0)
    with tf.Session() as sess:
        assert sess.run(picked, {x: [1.0, -1.0, 2.0]}).tolist() == [1.0, 2.0]
        assert sess.run(picked, {x: [-1.0, 3.0, 4.0]}).tolist() == [3.0, 4.0]
        assert sess.run(picked, {x: [5.0, 6.0, -4.0, -2.0]}).tolist() == [5.0, 6.0]
        program = _sized_program(sess)
        assert program.compiled == 1  # three masks, one count: one program
        assert sess.run(picked, {x: [1.0, 2.0, 3.0]}).tolist() == [1.0, 2.0, 3.0]
        assert sess.run(picked, {x: [-1.0, -2.0]}).tolist() == []
        assert program.compiled == 3
        assert sess.run(picked, {x: [7.0, -1.0, 8.0]}).tolist() == [7.0, 8.0]
        assert program.compiled == 3


def test_plans_without_sized_ops_compile_as_before(graph):
    x = tf.placeholder(tf.float32, [None])
    y = tf.reduce_sum(x * 2.0)
    constant_mask = tf.boolean_mask(tf.constant([1.0, 2.0, 3.0]), [True, False, True])
    with tf.Session() as sess:
        assert sess.run(y, {x: [1.0, 2.0]}) == 6.0
        assert sess.run(constant_mask).tolist() == [1.0, 3.0]
        for plan in sess._plans.values():
            assert not isinstance(plan.fn, sized_programs.SizedProgram)
    assert getattr(constant_mask.op, "_sized", None) is None


def test_programs_per_plan_are_bounded(graph, monkeypatch):
    monkeypatch.setattr(sized_programs, "MAX_PROGRAMS", 2)
    x = tf.placeholder(tf.float32, [None])
    picked = tf.boolean_mask(x, x > 0)
    with tf.Session() as sess:
        for feed in ([1.0], [1.0, 2.0], [1.0, 2.0, 3.0], [4.0]):
            assert sess.run(picked, {x: feed}).tolist() == feed
        program = _sized_program(sess)
        assert len(program._programs) == 2
        assert program.compiled == 4  # the count-1 program was dropped, compiled again
        assert sess.run(picked, {x: [9.0]}).tolist() == [9.0]
        assert program.compiled == 4


def test_many_size_variants_are_logged_once(graph, monkeypatch, caplog):
    monkeypatch.setattr(sized_programs, "MANY_PROGRAMS", 2)
    x = tf.placeholder(tf.float32, [None])
    picked = tf.boolean_mask(x, x > 0, name="kept")
    with tf.Session() as sess, caplog.at_level(logging.WARNING, logger="tensorflow"):
        for n in range(1, 6):
            sess.run(picked, {x: np.ones(n, np.float32)})
    logged = [r for r in caplog.records if "step programs were compiled" in r.getMessage()]
    assert len(logged) == 1
    assert "kept (BooleanMask)" in logged[0].getMessage()


def test_an_assignment_ordered_before_the_masks_read_is_refused(graph):
    v = tf.Variable([1.0, -2.0, 3.0])
    bump = tf.assign_add(v, [-2.0, 3.0, 0.0])
    picked = tf.boolean_mask(v, v > 0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(NotImplementedError, match="control dependency"):
            sess.run([bump, picked])
        assert sess.run(picked).tolist() == [1.0, 3.0]  # alone: the variable's value


def test_an_assignment_the_mask_depends_on_is_in_its_sizes(graph):
    v = tf.Variable([1.0, -2.0, 3.0])
    bump = tf.assign_add(v, [-2.0, 3.0, 0.0])
    with tf.control_dependencies([bump]):
        value = tf.identity(v)
    picked = tf.boolean_mask(value, value > 0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(picked).tolist() == [1.0, 3.0]  # [-1, 1, 3] after the bump
        assert sess.run(picked).tolist() == [4.0, 3.0]  # [-3, 4, 3]


def test_a_mask_inside_a_loop_body_is_refused_clearly(graph):
    x = tf.placeholder(tf.float32, [None])

    def body(i, total):
        return i + 1, total + tf.reduce_sum(tf.boolean_mask(x, x > tf.cast(i, tf.float32)))

    _, total = tf.while_loop(lambda i, t: i < 3, body, [tf.constant(0), tf.constant(0.0)])
    with tf.Session() as sess, pytest.raises(NotImplementedError, match="tf.while_loop"):
        sess.run(total, {x: [1.0, 2.0, 3.0]})


def test_fed_lengths_compile_one_program_per_maximum(graph):
    """``tf.sequence_mask(lengths)``: one program per max(lengths), not per lengths."""
    lengths = tf.placeholder(tf.int32, [None])
    mask = tf.sequence_mask(lengths)
    with tf.Session() as sess:
        for feed in ([3, 1], [2, 3], [3, 3, 0], [1, 2, 3, 2]):
            assert sess.run(mask, {lengths: feed}).shape == (len(feed), 3)
        program = _sized_program(sess)
        assert program.compiled == 1
        assert sess.run(mask, {lengths: [1]}).tolist() == [[True]]
        assert program.compiled == 2


def test_sizes_of_a_sized_op_reading_another_come_in_a_later_stage(graph):
    y = tf.placeholder(tf.int32, [None])
    values, _ = tf.unique(tf.boolean_mask(y, y > 0))
    with tf.Session() as sess:
        assert sess.run(values, {y: [3, -1, 3, 2]}).tolist() == [3, 2]
        assert sess.run(values, {y: [5, 5, 5, 0]}).tolist() == [5]
        program = _sized_program(sess)
        assert [[op.type for op in stage] for stage in program._sizes.stages] == [
            ["BooleanMask"],
            ["Unique"],
        ]
        assert program.compiled == 2


def test_a_random_mask_is_the_same_in_the_sizes_program_and_the_step(graph):
    x = tf.range(20.0)
    mask = tf.random_uniform([20]) > 0.5
    picked = tf.boolean_mask(x, mask)
    dropped = tf.nn.dropout(tf.ones([8]), keep_prob=0.5)
    kept = tf.boolean_mask(dropped, dropped > 0)
    with tf.Session() as sess:
        for _ in range(4):
            m, p, d, k = sess.run([mask, picked, dropped, kept])
            assert p.tolist() == np.arange(20.0)[m].tolist()
            assert k.tolist() == d[d > 0].tolist()


def test_a_data_parallel_step_refuses_sized_ops(graph):
    tf.jax_data_parallel(graph=graph)
    x = tf.placeholder(tf.float32, [None])
    picked = tf.boolean_mask(x, x > 0)
    with tf.Session() as sess, pytest.raises(NotImplementedError, match="data-parallel"):
        sess.run(picked, {x: [1.0, -1.0]})
