"""``tf.TensorArray`` (TF1 graph mode) and ``tf.switch_case``, checked live against
TF 2.21 as classic TF1 (``twin.py``): values, gradients, trained weights, static
shapes, and the errors TF raises at run time.

Both names raised ``AttributeError`` under ``from adapters import v1 as tf`` before
``adapters/v1/ops/tensor_array_ops.py`` and ``control_flow_ops.switch_case``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

T, B, N = 4, 2, 3
XS = (np.arange(T * B * N, dtype=np.float32).reshape(T, B, N) - 11.0) / 13.0
W0 = (np.arange(N * N, dtype=np.float32).reshape(N, N) - 4.0) / 9.0
U0 = (np.arange(N * N, dtype=np.float32).reshape(N, N)[::-1] - 3.0) / 11.0


def _shape(t):
    dims = t.shape.as_list() if t.shape.dims is not None else None
    return "unknown" if dims is None else dims


def _rnn(tf, unstack: bool, dynamic: bool):
    xs = tf.constant(XS)
    W = tf.Variable(W0, name="W")
    U = tf.Variable(U0, name="U")
    h0 = tf.zeros([B, N])
    if dynamic:
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    else:
        ta = tf.TensorArray(tf.float32, size=T)
    xs_ta = tf.TensorArray(tf.float32, size=T).unstack(xs) if unstack else None

    def body(t, h, ta):
        x = xs_ta.read(t) if unstack else xs[t]
        h = tf.tanh(tf.matmul(x, W) + tf.matmul(h, U))
        return [t + 1, h, ta.write(t, h)]

    kwargs = {"maximum_iterations": T} if dynamic else {}
    _, h, ta = tf.while_loop(lambda t, *_: t < T, body, [0, h0, ta], **kwargs)
    outs = ta.stack()
    loss = tf.reduce_sum(outs**2) + tf.reduce_sum(h)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    shapes = [_shape(outs), _shape(ta.read(1) if dynamic else ta.read(0))]
    gx = tf.gradients(loss, xs)[0]

    def run(sess):
        first_gx = sess.run(gx)
        losses = [sess.run([loss, train])[0] for _ in range(3)]
        return shapes, first_gx, np.array(losses), sess.run([W, U, outs])

    return run


@pytest.mark.parametrize(
    "unstack,dynamic", [(False, False), (True, False), (False, True), (True, True)]
)
def test_rnn_loop_trained_with_gradient_descent(unstack, dynamic):
    theirs, ours = run_both(lambda tf: _rnn(tf, unstack, dynamic))
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=1e-6, atol=1e-6)


def _ops(tf):
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 5.0)
    v = tf.Variable(np.arange(-2.0, 4.0, dtype=np.float32).reshape(2, 3) / 4.0)
    y = x * 2.0 + tf.reduce_sum(v)
    ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(y)
    gathered = ta.gather([3, 0])
    concat = ta.concat()
    sc = tf.TensorArray(tf.float32, size=5).scatter([4, 1], v * 3.0)
    sc_stack = sc.stack()
    sp = tf.TensorArray(tf.float32, size=3, clear_after_read=False).split(
        tf.reshape(y, [6, 2]), [2, 2, 2]
    )
    sp_concat = sp.concat()
    sp_read = sp.read(1)
    total = (
        tf.reduce_sum(gathered * [[1.0], [2.0]])
        + tf.reduce_sum(concat**2)
        + tf.reduce_sum(sc_stack * 1.5)
        + tf.reduce_sum(sp_concat) * 0.5
        + tf.reduce_sum(sp_read**3)
    )
    grads = tf.gradients(total, [x, v])
    sizes = [
        ta.size(),
        sc.size(),
        tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(4, 7).write(1, 2).size(),
    ]
    dyn = tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(2, [5, 6]).write(0, [1, 2])
    ident = ta.identity().read(2)
    ints = tf.TensorArray(tf.int64, size=2).write(0, np.int64(2**40 + 1)).write(1, np.int64(-3))
    tensors = [gathered, concat, sc_stack, sp_concat, sp_read, dyn.stack(), ident, ints.stack()]
    shapes = [_shape(t) for t in tensors] + [
        str(ta.element_shape),
        str(sc.element_shape),
        str(sp.element_shape),
        ta.dtype.name,
        ints.dtype.name,
    ]

    def run(sess):
        return shapes, sess.run(tensors), sess.run(sizes), sess.run(grads)

    return run


def test_gather_scatter_concat_split_size_values_gradients_shapes():
    theirs, ours = run_both(_ops)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=1e-6)


def _static_shapes(tf):
    p = tf.placeholder(tf.float32, [None, 5])
    n = tf.placeholder(tf.int32, [])
    cases = {
        "known size": tf.TensorArray(tf.float32, size=3).write(0, tf.ones([2])),
        "element_shape": tf.TensorArray(tf.float32, size=3, element_shape=[2, None]),
        "unknown batch": tf.TensorArray(tf.float32, size=2).write(0, p),
        "fed size": tf.TensorArray(tf.float32, size=n).write(0, tf.ones([4])),
        "dynamic": tf.TensorArray(tf.float32, size=2, dynamic_size=True).write(0, tf.ones([4])),
        "no infer": tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, tf.ones([4])),
        "unknown": tf.TensorArray(tf.float32, size=2),
    }
    shapes = {}
    for key, ta in cases.items():
        shapes[key] = [
            str(ta.element_shape),
            _shape(ta.stack()),
            _shape(ta.read(0)),
            _shape(ta.gather([0, 1])),
            _shape(ta.concat()),
            _shape(ta.size()),
        ]
    return lambda sess: shapes


def test_static_shapes():
    theirs, ours = run_both(_static_shapes)
    assert ours == theirs


def _error(tf, build):
    fetch = build(tf)

    def run(sess):
        try:
            sess.run(fetch)
        except tf.errors.OpError as e:
            for line in str(e).split("\n"):
                if re.search(r"Could not|Tried to|Max scatter|TensorArray (dtype|has)", line):
                    return type(e).__name__, re.sub(r"^TensorArray \S+: ", "", line.strip())
            return type(e).__name__, str(e)
        return None

    return run


def _loop_reading(tf, step):
    ta = tf.TensorArray(tf.float32, size=3).unstack(tf.ones([3, 2]))
    return tf.while_loop(
        lambda t, acc: t < 3, lambda t, acc: (t + 1, acc + ta.read(step(t))), [0, tf.zeros([2])]
    )[1]


ERRORS = {
    "write twice": lambda tf: (
        tf.TensorArray(tf.float32, size=3).write(0, [1.0]).write(0, [2.0]).stack()
    ),
    "write beyond size": lambda tf: tf.TensorArray(tf.float32, size=3).write(3, [1.0]).stack(),
    "read twice": lambda tf: (lambda a: a.read(0) + a.read(0))(
        tf.TensorArray(tf.float32, size=3).write(0, [1.0])
    ),
    "stack then read": lambda tf: (lambda a: a.stack()[0] + a.read(0))(
        tf.TensorArray(tf.float32, size=1).write(0, [1.0])
    ),
    "gather one index twice": lambda tf: (
        tf.TensorArray(tf.float32, size=3).unstack(tf.zeros([3, 2])).gather([0, 0])
    ),
    "read beyond size": lambda tf: tf.TensorArray(tf.float32, size=3).write(0, [1.0]).read(3),
    "read negative": lambda tf: tf.TensorArray(tf.float32, size=3).write(0, [1.0]).read(-1),
    "unstack too many": lambda tf: (
        tf.TensorArray(tf.float32, size=3).unstack(tf.zeros([4, 2])).stack()
    ),
    "scatter one index twice": lambda tf: (
        tf.TensorArray(tf.float32, size=3).scatter([0, 0], tf.zeros([2, 2])).stack()
    ),
    "dtype of a write": lambda tf: (
        tf.TensorArray(tf.float32, size=1).write(0, tf.ones([2], tf.int32)).stack()
    ),
    "unwritten, shape unknown": lambda tf: tf.TensorArray(tf.float32, size=3).read(1),
    "unwritten, shape partial": lambda tf: tf.TensorArray(
        tf.float32, size=3, element_shape=[None, 2]
    ).read(1),
    "unwritten, infer_shape False": lambda tf: (
        tf.TensorArray(tf.float32, size=3, infer_shape=False).write(0, [1.0, 2.0]).read(1)
    ),
    "stack with one unwritten, infer_shape False": lambda tf: (
        tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0, 2.0]).stack()
    ),
    "stack of size zero, shape unknown": lambda tf: tf.TensorArray(tf.float32, size=0).stack(),
    "loop reads an index twice": lambda tf: _loop_reading(tf, lambda t: t // 2),
    "loop writes an index twice": lambda tf: tf.while_loop(
        lambda t, ta: t < 3,
        lambda t, ta: (t + 1, ta.write(t // 2, tf.ones([2]))),
        [0, tf.TensorArray(tf.float32, size=3)],
    )[1].stack(),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_at_run_time(case):
    theirs, ours = run_both(lambda tf: _error(tf, ERRORS[case]))
    assert theirs is not None
    assert ours == theirs


def test_loop_reading_each_element_once():
    theirs, ours = run_both(
        lambda tf: (lambda out: lambda sess: sess.run(out))(_loop_reading(tf, lambda t: 2 - t))
    )
    assert_twins(theirs, ours)


def test_array_made_in_each_iteration_starts_unread():
    def script(tf):
        def body(t, acc):
            ta = tf.TensorArray(tf.float32, size=2).unstack(tf.stack([acc, acc * 2.0]))
            return t + 1, acc + ta.read(1)

        out = tf.while_loop(lambda t, acc: t < 3, body, [0, tf.ones([2])])[1]
        return lambda sess: sess.run(out)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_reads_of_unwritten_elements_are_zeros_and_no_clear_reads_twice():
    def script(tf):
        a = tf.TensorArray(tf.float32, size=3, clear_after_read=False).write(1, [1.0, 2.0])
        empty = tf.TensorArray(tf.float32, size=0, element_shape=[2])
        return lambda sess: sess.run([a.read(0) + a.read(1) + a.read(1), a.stack(), empty.stack()])

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_shape_errors_at_build_time():
    def script(tf):
        ta = tf.TensorArray(tf.float32, size=3).write(0, tf.ones([2]))
        try:
            ta.write(1, tf.ones([3]))
        except ValueError as e:
            message = str(e)
            return lambda sess: message
        return lambda sess: None

    theirs, ours = run_both(script)
    assert ours == theirs == "Inconsistent shapes: saw (3,) but expected (2,) "


def _switch(tf, fns_kind: str, default: bool):
    i = tf.placeholder(tf.int32, [])
    v = tf.Variable(np.array([0.5, -1.5, 2.0], np.float32))
    fns = [lambda: v * 2.0, lambda: tf.sin(v), lambda: v**2]
    if fns_kind == "dict":
        branch_fns = {2: fns[2], 0: fns[0], 1: fns[1]}
    elif fns_kind == "pairs":
        branch_fns = list(enumerate(fns))
    else:
        branch_fns = fns
    out = tf.switch_case(i, branch_fns, default=(lambda: v - 10.0) if default else None)
    g = tf.gradients(tf.reduce_sum(out * [1.0, 2.0, 3.0]), v)[0]
    pair = tf.switch_case(i, [lambda: (v[0], [v[1]]), lambda: (v[1], [v[2] * 4.0])])

    def run(sess):
        return (
            _shape(out),
            [sess.run([out, g, pair], {i: k}) for k in (-1, 0, 1, 2, 3, 7)],
        )

    return run


@pytest.mark.parametrize("fns_kind", ["list", "dict", "pairs"])
@pytest.mark.parametrize("default", [False, True])
def test_switch_case_values_gradients_default(fns_kind, default):
    theirs, ours = run_both(lambda tf: _switch(tf, fns_kind, default))
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=1e-6)


def test_switch_case_argument_errors():
    def script(tf):
        got = []
        i = tf.constant(1)
        for args in [
            (1, [lambda: tf.constant(1.0)]),
            (tf.constant(1.0), [lambda: tf.constant(1.0)]),
            (i, []),
            (i, {0: lambda: tf.constant(1.0), 2: lambda: tf.constant(2.0)}),
            (i, [(0, 3)]),
        ]:
            try:
                tf.switch_case(*args)
                got.append(None)
            except (TypeError, ValueError) as e:
                got.append((type(e).__name__, str(e)))
        return lambda sess: got

    theirs, ours = run_both(script)
    assert ours == theirs


def _batch_rnn(tf, infer_shape: bool):
    x = tf.placeholder(tf.float32, [T, None, N])
    W = tf.Variable(W0, name="W")
    h0 = tf.zeros_like(x[0])
    ta = tf.TensorArray(tf.float32, size=T, infer_shape=infer_shape)

    def body(t, h, ta):
        h = tf.tanh(tf.matmul(x[t], W) + h)
        return t + 1, h, ta.write(t, h * 2.0)

    _, _, ta = tf.while_loop(lambda t, *_: t < T, body, (0, h0, ta))
    outs = ta.stack()
    loss = tf.reduce_sum(outs * outs)
    g = tf.gradients(loss, W)[0]
    shapes = [_shape(outs), str(ta.element_shape)]

    def run(sess):
        return shapes, [sess.run([outs, g], {x: XS[:, :b]}) for b in (1, 2)]

    return run


@pytest.mark.parametrize("infer_shape", [True, False])
def test_loop_writing_elements_of_a_fed_batch(infer_shape):
    theirs, ours = run_both(lambda tf: _batch_rnn(tf, infer_shape))
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1], rtol=1e-6, atol=1e-6)


def _in_cond(tf):
    p = tf.placeholder(tf.bool, [])
    v = tf.Variable(np.array([1.0, -2.0], np.float32))
    ta = tf.TensorArray(tf.float32, size=2, element_shape=[2]).write(0, v)
    ta = tf.cond(p, lambda: ta.write(1, v * 3.0), lambda: ta.write(1, -v))
    out = ta.stack()
    g = tf.gradients(tf.reduce_sum(out * [[1.0], [5.0]]), v)[0]
    dyn = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    _, dyn = tf.while_loop(
        lambda t, a: t < 3,
        lambda t, a: (t + 1, a.write(t, tf.cast(t, tf.float32) * v)),
        (0, dyn),
        maximum_iterations=3,
    )

    def run(sess):
        return [sess.run([out, g, dyn.stack(), dyn.size()], {p: b}) for b in (True, False)]

    return run


def test_tensor_array_through_cond_and_dynamic_size_in_loop():
    theirs, ours = run_both(_in_cond)
    assert_twins(theirs, ours, rtol=1e-6)


def _invariants(tf):
    ta = tf.TensorArray(tf.float32, size=T)
    h0 = tf.ones([B, N])
    _, h, ta = tf.while_loop(
        lambda t, *_: t < T,
        lambda t, h, ta: (t + 1, h * 0.5, ta.write(t, h)),
        (0, h0, ta),
        shape_invariants=(tf.TensorShape([]), tf.TensorShape([None, N]), tf.TensorShape(None)),
    )
    out = ta.stack()
    shapes = [_shape(h), _shape(out)]
    return lambda sess: (shapes, sess.run(out))


def test_shape_invariants_with_a_tensor_array():
    theirs, ours = run_both(_invariants)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def _fed_length(tf):
    x = tf.placeholder(tf.float32, [None, B, N])
    W = tf.Variable(W0, name="W")
    steps = tf.shape(x)[0]
    ta = tf.TensorArray(tf.float32, size=steps)
    xs = tf.TensorArray(tf.float32, size=steps).unstack(x)

    def body(t, h, ta):
        h = tf.tanh(tf.matmul(xs.read(t), W) + h)
        return t + 1, h, ta.write(t, h)

    _, _, ta = tf.while_loop(lambda t, *_: t < steps, body, (0, tf.zeros([B, N]), ta))
    outs = ta.stack()
    loss = tf.reduce_sum(outs * outs)
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    shape = _shape(outs)

    def run(sess):
        losses = [sess.run([loss, train], {x: XS[:n]})[0] for n in (4, 3, 4)]
        return shape, np.array(losses), sess.run(W)

    return run


def test_loop_over_a_fed_length_trained_without_maximum_iterations():
    theirs, ours = run_both(_fed_length)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=1e-6, atol=1e-6)


def _lone(tf, bounded: bool):
    ta = tf.TensorArray(tf.float32, size=3, element_shape=[2])
    kwargs = {"maximum_iterations": 3} if bounded else {}
    res = tf.while_loop(
        lambda t, a: t < 3, lambda t, a: [t + 1, a.write(t, tf.ones([2]) * 2.0)], [0, ta], **kwargs
    )
    lone = tf.while_loop(lambda a: tf.constant(False), lambda a: a, [res[1]], **kwargs)
    # TF: with maximum_iterations a lone loop variable's body returns it bare
    step = (lambda a: (a[0] + 1,)) if bounded else (lambda a: ((a[0] + 1,),))
    nested = tf.while_loop(lambda a: a[0] < 3, step, [(0,)], **kwargs)
    kind = [type(lone).__name__, type(nested).__name__]
    return lambda sess: (kind, sess.run([lone.stack(), nested]))


@pytest.mark.parametrize("bounded", [False, True])
def test_lone_tensor_array_loop_variable_is_returned_bare(bounded):
    theirs, ours = run_both(lambda tf: _lone(tf, bounded))
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def test_switch_case_index_dtypes_and_constant_index():
    def script(tf):
        v = tf.Variable(np.array([0.5, -1.5], np.float32))
        fns = [lambda: v * 2.0, lambda: v - 1.0]
        outs = [
            tf.switch_case(tf.constant(5), fns),
            tf.switch_case(tf.constant(-1), fns, default=lambda: v * 0.0),
            tf.switch_case(tf.constant(0), {0: lambda: [v[0]]}),
        ]
        grads = tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs[:2]]), v)
        try:
            tf.switch_case(tf.constant(1, tf.int64), fns)
            error = None
        except TypeError as e:
            error = str(e)
        return lambda sess: (error, sess.run([outs, grads]))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1], ours[1])


def _fed_size(tf):
    """A TensorArray sized by a fed integer (``size=n``), written by a loop over ``n``
    (an RNN over a fed number of steps): each run compiles its fed size."""
    n = tf.placeholder(tf.int32, [])
    w = tf.Variable(np.float32(0.5))
    ta = tf.TensorArray(tf.float32, size=n)
    _, ta = tf.while_loop(
        lambda i, a: i < n, lambda i, a: (i + 1, a.write(i, w * tf.cast(i, tf.float32))), [0, ta]
    )
    out = ta.stack()
    grad = tf.gradients(tf.reduce_sum(out * out), w)
    return lambda sess: [sess.run([out, ta.size(), grad], {n: k}) for k in (3, 5, 3)]


def test_size_from_a_fed_placeholder():
    # jtrain raised InvalidArgumentError "Placeholder:0 must be known when the step is
    # compiled" (the size was not taken as a fed shape).
    theirs, ours = run_both(_fed_size)
    assert_twins(theirs, ours)
