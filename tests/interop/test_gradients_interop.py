"""``tf.gradients`` against TF 2.21's ``compat.v1``: values and which gradients are None.

TF's gradient of ``ys`` with respect to each ``x`` is the total derivative through the
whole graph (an ``x`` upstream of another ``x`` gets the paths through it too); an
``x`` with no differentiable path to ``ys`` (an integer tensor, a path cut by
``tf.stop_gradient``, an integer cast, ``argmax``, ``floor`` or by ``stop_gradients=``)
gets ``None``, or zeros with ``unconnected_gradients="zero"``; a ``None`` entry of
``grad_ys`` means ones for that ``y``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import Script, assert_twins, run_both, run_once, tf1, unfused_config


def _fetch(tf: Any, grads: list[Any]) -> Callable[[Any], list[Any]]:
    """``run(sess)`` giving the gradients' values, ``None`` kept (``IndexedSlices``
    as dense tensors, as the twins compare arrays)."""
    dense = [
        tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g
        for g in grads
        if g is not None
    ]

    def run(sess: Any) -> list[Any]:
        values = iter(sess.run(dense))
        return [None if g is None else next(values) for g in grads]

    return run


def _chain(tf: Any) -> tuple[Any, Any, Any]:
    """``a = 3``, ``b = a * a``, ``c = 2 * b``."""
    a = tf.Variable(3.0, name="a")
    b = a * a
    return a, b, b * 2.0


# Bug 1: an x upstream of another x gets the total derivative (TF: [12, 2]).
def upstream_x(tf):
    a, b, c = _chain(tf)
    return _fetch(tf, tf.gradients(c, [a, b]))


def upstream_x_grad_ys(tf):
    a, b, c = _chain(tf)
    return _fetch(tf, tf.gradients(c, [a, b], grad_ys=[tf.constant(4.0)]))


def upstream_x_listed_last(tf):
    a, b, c = _chain(tf)
    d = c * b + tf.sin(a)
    return _fetch(tf, tf.gradients(d, [c, b, a]))


def y_among_xs(tf):
    a, b, c = _chain(tf)
    return _fetch(tf, tf.gradients(b, [a, b]) + tf.gradients([b, c], [a, b]))


def upstream_vector_xs(tf):
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    h = tf.matmul(x, w)
    z = tf.tanh(h)
    loss = tf.reduce_sum(z * z) + tf.reduce_sum(h)
    return _fetch(tf, tf.gradients(loss, [h, w, z]))


def upstream_x_of_embedding(tf):
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="emb")
    rows = tf.nn.embedding_lookup(emb, tf.constant([2, 0, 2]))
    loss = tf.reduce_sum(rows * rows)
    return _fetch(tf, tf.gradients(loss, [emb, rows]))


def stop_gradients_cut(tf):
    a, b, c = _chain(tf)
    return _fetch(tf, tf.gradients(c, [a, b], stop_gradients=[b]))


# Found with bug 1: a variable re-read after an assignment in control_dependencies
# (the gradient's recomputation ran the assignment again and failed).
def reread_in_control_dependencies(tf):
    # A resource variable: TF reads it after the assignment (a ref variable's gradient
    # may read it before or after: TF races).
    v = tf.Variable(2.0, name="v", use_resource=True)
    with tf.control_dependencies([tf.assign_add(v, 1.0)]):
        y = v * v
    return _fetch(tf, tf.gradients(y, [v]))


# Bug 2: an integer x (a global step) gets None.
def integer_x_used(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    step = tf.Variable(5, dtype=tf.int64, name="step")
    loss = tf.reduce_sum(w * w) * tf.cast(step, tf.float32)
    return _fetch(tf, tf.gradients(loss, [w, step]))


def integer_x_zero(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    step = tf.Variable(5, dtype=tf.int64, name="step")
    loss = tf.reduce_sum(w * w) * tf.cast(step, tf.float32)
    return _fetch(tf, tf.gradients(loss, [w, step], unconnected_gradients="zero"))


def integer_y_is_x(tf):
    step = tf.Variable(5, dtype=tf.int64, name="step")
    i = step + 1
    return _fetch(tf, tf.gradients(i, [i]) + tf.gradients([i * 2], [i]))


# Bug 3: a None entry of grad_ys means ones for that y.
def grad_ys_with_none(tf):
    a, b, c = _chain(tf)
    return _fetch(tf, tf.gradients([b, c], [a], grad_ys=[None, tf.constant(4.0)]))


def grad_ys_none_first(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    y1, y2 = w * 3.0, tf.reduce_sum(w * w)
    return _fetch(tf, tf.gradients([y1, y2], [w], grad_ys=[tf.constant([1.0, -1.0]), None]))


# Bug 4: no differentiable path: None ("none", TF's default) or zeros ("zero").
def through_stop_gradient(tf):
    a, b, c = _chain(tf)
    return _fetch(tf, tf.gradients(tf.stop_gradient(c), [a, b]))


def through_argmax(tf):
    w = tf.Variable([[1.0, 5.0], [7.0, 2.0]], name="w")
    y = tf.cast(tf.argmax(w, axis=1), tf.float32)
    return _fetch(tf, tf.gradients(tf.reduce_sum(y), [w]))


def through_int_cast(tf):
    w = tf.Variable([1.5, 2.5], name="w")
    y = tf.cast(tf.cast(w, tf.int32), tf.float32)
    return _fetch(tf, tf.gradients(tf.reduce_sum(y), [w]) + tf.gradients(tf.cast(w, tf.int32), w))


def through_floor(tf):
    w = tf.Variable([1.5, 2.5], name="w")
    return _fetch(tf, tf.gradients(tf.reduce_sum(tf.floor(w) * 2.0), [w]))


def no_gradient_ops(tf):
    w = tf.Variable([[0.2, 0.4, 0.6], [0.1, 0.9, 0.3]], name="w")
    ys = [
        tf.random_shuffle(w),
        tf.image.hsv_to_rgb(w),
        w // 0.3,
        tf.truncatediv(w, tf.constant(0.3)),
        tf.round(w),
        tf.rint(w),
        tf.ceil(w),
        tf.zeros_like(w),
        tf.ones_like(w),
        tf.cast(tf.argmin(w, 1), tf.float32),
        tf.cast(tf.multinomial(tf.log(w), 3), tf.float32),
        tf.assign(tf.Variable(tf.zeros([2, 3]), name="v"), w * 2.0),
        tf.sign(w),  # TF: zeros, not None
        tf.linspace(w[0, 0], 3.0, 4),  # TF composes it of differentiable ops
        tf.clip_by_value(w, 0.3, 0.5),
    ]
    return _fetch(tf, [tf.gradients(tf.reduce_sum(y), [w])[0] for y in ys])


def stop_gradients_all_paths(tf):
    a, b, c = _chain(tf)
    return _fetch(
        tf,
        tf.gradients(c, [a], stop_gradients=[b])
        + tf.gradients(c, [a], stop_gradients=[b], unconnected_gradients="zero"),
    )


def compute_gradients_stop_gradient(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.Variable(3.0, name="v")
    loss = tf.reduce_sum(tf.stop_gradient(w)) + v * v
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    return _fetch(tf, [g for g, _ in pairs])


def clip_with_unconnected(tf):
    w = tf.Variable([3.0, 4.0], name="w")
    v = tf.Variable(3.0, name="v")
    grads = tf.gradients(tf.reduce_sum(w * w) + tf.stop_gradient(v), [w, v])
    clipped, norm = tf.clip_by_global_norm(grads, 1.0)
    return _fetch(tf, [*clipped, norm])


# Cases that matched TF before the fixes (an unused global step is None, zeros with
# "zero", sparse embedding gradients): they must keep matching.
def simple_dense(tf):
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
    bias = tf.Variable([0.1, 0.2], name="bias")
    x = tf.placeholder(tf.float32, [None, 2])
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + bias))
    grads = tf.gradients(loss, [w, bias])
    return lambda sess: sess.run(grads, {x: [[1.0, 2.0], [3.0, -4.0]]})


def embedding_sparse(tf):
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="emb")
    loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, tf.constant([2, 0, 2])) ** 2)
    (g,) = tf.gradients(loss, [emb])
    return lambda sess: [type(g).__name__, sess.run(tf.convert_to_tensor(g))]


def duplicated_xs(tf):
    a, b, c = _chain(tf)
    return _fetch(tf, tf.gradients(c, [a, a]))


def stop_gradient_on_one_path(tf):
    w = tf.Variable([1.5, -2.5], name="w")
    y = tf.reduce_sum(w * tf.stop_gradient(w) + tf.floor(w) * w)
    return _fetch(tf, tf.gradients(y, [w]))


def integer_x(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(w * w)
    return _fetch(tf, tf.gradients(loss, [w, step]))


def through_stop_gradient_zero(tf):
    a, b, c = _chain(tf)
    return _fetch(tf, tf.gradients(tf.stop_gradient(c), [a, b], unconnected_gradients="zero"))


def unconnected_variable(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.Variable(3.0, name="v")
    return _fetch(
        tf,
        tf.gradients(tf.reduce_sum(w), [w, v])
        + tf.gradients(tf.reduce_sum(w), [v], unconnected_gradients="zero"),
    )


CASES: dict[str, Script] = {
    f.__name__: f
    for f in (
        upstream_x,
        upstream_x_grad_ys,
        upstream_x_listed_last,
        y_among_xs,
        upstream_vector_xs,
        upstream_x_of_embedding,
        stop_gradients_cut,
        integer_x_used,
        integer_x_zero,
        integer_y_is_x,
        grad_ys_with_none,
        grad_ys_none_first,
        through_stop_gradient,
        through_argmax,
        through_int_cast,
        through_floor,
        no_gradient_ops,
        stop_gradients_all_paths,
        compute_gradients_stop_gradient,
        clip_with_unconnected,
        simple_dense,
        embedding_sparse,
        reread_in_control_dependencies,
        duplicated_xs,
        stop_gradient_on_one_path,
        integer_x,
        through_stop_gradient_zero,
        unconnected_variable,
    )
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_match_tf(name):
    """Each gradient's value, dtype and shape, and which are None, as TF's."""
    theirs, ours = run_both(CASES[name])
    assert_twins(theirs, ours, rtol=1e-6)


def _minimize_stop_gradient(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(tf.stop_gradient(w)))
    return lambda sess: None


@pytest.mark.parametrize("tf", [tf1, jtf], ids=["tf", "jtrain"])
def test_minimize_without_gradients_raises(tf):
    """A loss no variable reaches differentiably: TF's minimize raises ValueError."""
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        run_once(tf, _minimize_stop_gradient)


def _bad_unconnected(tf):
    a, b, c = _chain(tf)
    tf.gradients(c, [a], unconnected_gradients="bad")
    return lambda sess: None


def _grad_ys_length(tf):
    a, b, c = _chain(tf)
    tf.gradients(c, [a], grad_ys=[tf.constant(1.0), tf.constant(2.0)])
    return lambda sess: None


def _bad_aggregation(tf):
    a, b, c = _chain(tf)
    tf.gradients(c, [a], aggregation_method=7)
    return lambda sess: None


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (_bad_unconnected, "Unknown value for unconnected_gradients: 'bad'"),
        (_grad_ys_length, "Length mismatch. Passed 2 grad_ys for 1 ys"),
        (
            _bad_aggregation,
            "Invalid `aggregation_method` specified 7. Accepted values are [0, 1, 2].",
        ),
    ],
    ids=["unconnected_gradients", "grad_ys_length", "aggregation_method"],
)
def test_argument_errors_as_tf(script, message):
    """TF's ValueError and message for a bad ``unconnected_gradients`` or ``grad_ys``."""
    for tf in (tf1, jtf):
        with pytest.raises(ValueError) as info:
            run_once(tf, script)
        assert str(info.value) == message, tf.__name__


def test_unconnected_gradients_enum_as_tf():
    """``UnconnectedGradients`` has TF's members and values; either spelling works."""
    from adapters.v1.ops.gradients_impl import UnconnectedGradients

    assert {m.name: m.value for m in UnconnectedGradients} == {
        m.name: m.value for m in tf1.UnconnectedGradients
    }

    def script(tf):
        a, b, c = _chain(tf)
        zero = UnconnectedGradients.ZERO if tf is jtf else tf.UnconnectedGradients.ZERO
        return _fetch(tf, tf.gradients(tf.stop_gradient(c), [a], unconnected_gradients=zero))

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_unconnected_gradients_is_a_top_level_name():
    """``tf.UnconnectedGradients.ZERO`` is TF's top-level enum, accepted by gradients."""

    def script(tf):
        x = tf.constant(3.0)
        y = tf.stop_gradient(x) * 2.0
        g = tf.gradients(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        return lambda sess: sess.run(g)

    assert_twins(*run_both(script), rtol=0)
    assert jtf.UnconnectedGradients.NONE.value == tf1.UnconnectedGradients.NONE.value


def test_multi_rnn_cell_trainable_variables_are_its_cells():
    """``MultiRNNCell.trainable_variables`` lists its cells' weights, as TF (it was []).
    The gradients against TF's kernels op by op (``unfused_config``: the GRU's
    ``MatMul + BiasAdd + Sigmoid/Tanh`` fused into oneDNN's kernel is 1-16 ulps away)."""

    def script(tf):
        cells = [tf.nn.rnn_cell.GRUCell(4, kernel_initializer=tf.constant_initializer(0.1))]
        cells.append(tf.nn.rnn_cell.GRUCell(4, kernel_initializer=tf.constant_initializer(0.1)))
        cell = tf.nn.rnn_cell.MultiRNNCell(cells)
        out, _ = tf.nn.dynamic_rnn(cell, tf.ones([2, 3, 3]) * 0.5, dtype=tf.float32)
        names = [v.name for v in cell.trainable_variables]
        grads = tf.gradients(tf.reduce_sum(out), cell.trainable_variables)
        return lambda sess: (names, [v.name for v in cell.variables], sess.run(grads))

    theirs, ours = run_both(script, unfused_config())
    assert ours[:2] == theirs[:2]
    assert_twins(theirs[2], ours[2], rtol=1e-6)
