"""Session.run: fetch structures, feeds, effects order, errors, one compiled program."""

import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.training.basic_session_run_hooks import _get_or_create_global_step_read
from jtrain import xla_options


def test_fetch_structures(graph):
    a = tf.constant(1.0, name="a")
    b = tf.constant([2, 3], name="b")
    Pair = collections.namedtuple("Pair", "x y")
    with tf.Session() as sess:
        assert sess.run(a) == np.float32(1.0)
        out = sess.run({"a": a, "nested": [b, (a, Pair(a, b))], "op": tf.no_op()})
    assert set(out) == {"a", "nested", "op"} and out["op"] is None
    np.testing.assert_array_equal(out["nested"][0], [2, 3])
    assert isinstance(out["nested"][1], tuple) and isinstance(out["nested"][1][1], Pair)
    np.testing.assert_array_equal(out["nested"][1][1].y, [2, 3])
    assert isinstance(out["a"], np.ndarray | np.generic)


@pytest.mark.parametrize(
    "make",
    [dict, collections.OrderedDict],
    ids=["dict", "OrderedDict"],
)
def test_dict_fetches_keep_their_type_keys_and_order(graph, make):
    """Dicts directly of elements (one, several, none) and nested ones come back as
    the same dict type, keys in the caller's order, each value its element's."""
    a = tf.constant(1.0, name="a")
    b = tf.constant([2, 3], name="b")
    with tf.Session() as sess:
        for _ in range(2):  # the second run rebuilds from the cached structure
            one = sess.run(make([("b", b)]))
            several = sess.run(make([("z", a), ("b", b), ("a", a)]))
            empty = sess.run(make())
            nested = sess.run(make([("in", make([("b", b), ("a", a)]))]))
            assert [type(one), type(several), type(empty), type(nested["in"])] == [make] * 4
            assert list(one) == ["b"] and list(several) == ["z", "b", "a"] and not empty
            np.testing.assert_array_equal(one["b"], [2, 3])
            np.testing.assert_array_equal(several["b"], [2, 3])
            assert several["z"] == several["a"] == np.float32(1.0)
            assert list(nested["in"]) == ["b", "a"] and nested["in"]["a"] == np.float32(1.0)


@pytest.mark.parametrize("make", [list, tuple])
def test_list_and_tuple_fetches_keep_their_type_and_order(graph, make):
    """Lists and tuples directly of elements (one, several with repeats, none) and nested
    ones come back as the same type, each item its element's value (an op's None)."""
    a = tf.constant(1.0, name="a")
    b = tf.constant([2, 3], name="b")
    op = tf.no_op()
    with tf.Session() as sess:
        for _ in range(2):  # the second run rebuilds from the cached structure
            one = sess.run(make([b]))
            several = sess.run(make([a, b, op, a]))
            empty = sess.run(make())
            nested = sess.run(make([make([b, a])]))
            assert [type(one), type(several), type(empty), type(nested[0])] == [make] * 4
            assert len(one) == 1 and len(several) == 4 and len(empty) == 0
            np.testing.assert_array_equal(one[0], [2, 3])
            np.testing.assert_array_equal(several[1], [2, 3])
            assert several[0] == several[3] == np.float32(1.0) and several[2] is None
            np.testing.assert_array_equal(nested[0][0], [2, 3])
            assert nested[0][1] == np.float32(1.0)


def test_fetch_by_name(graph):
    tf.constant(5.0, name="five")
    with tf.Session() as sess:
        assert sess.run("five:0") == 5.0


def test_linear_regression_converges_with_gradients(graph):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(32, 3)).astype(np.float32)
    Y = X @ np.array([1.0, -2.0, 0.5], np.float32) + 0.25
    x = tf.placeholder(tf.Tensor and "float32", [None, 3], name="x")
    y = tf.placeholder("float32", [None], name="y")
    w = tf.Variable(np.zeros(3, np.float32), name="w")
    b = tf.Variable(0.0, name="b")
    # (``x @ w`` of a rank-1 w is TF's rank error, as tf.matmul's: a weighted sum here)
    pred = tf.reduce_sum(x * w, 1) + b
    loss = tf.jax_function(lambda p, t: jnp.mean((p - t) ** 2), [pred, y], name="loss")
    gw, gb = tf.gradients(loss, [w, b])
    train = tf.group(w.assign_sub(0.1 * gw), b.assign_sub(0.1 * gb))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: X, y: Y})
        for _ in range(300):
            sess.run(train, {x: X, y: Y})
        last, wv, bv = sess.run([loss, w, b], {x: X, y: Y})
    assert last < 1e-6 < first
    np.testing.assert_allclose(wv, [1.0, -2.0, 0.5], atol=1e-3)
    np.testing.assert_allclose(bv, 0.25, atol=1e-3)


def test_effects_follow_control_dependencies(graph):
    v = tf.Variable(1.0, name="v")
    inc = v.assign_add(1.0)
    with tf.control_dependencies([inc]):
        after = v.read_value()
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(after) == 2.0
        assert sess.run(v) == 2.0
        assert sess.run(after) == 3.0


def test_gradient_of_unconnected_variable_is_none(graph):
    w = tf.Variable(1.0)
    u = tf.Variable(2.0)
    loss = w * w
    gw, gu = tf.gradients(loss, [w, u])
    assert gu is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(gw) == 2.0


def test_feed_errors_name_the_placeholder(graph):
    x = tf.placeholder("float32", [None, 3], name="inputs")
    n = tf.placeholder("int32", [], name="count")
    y = x * 2.0
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="inputs.*float32.*\\[\\?,3\\]"):
            sess.run(y)
        with pytest.raises(
            ValueError, match="shape \\(2, 2\\) for Tensor inputs:0, which has shape \\(\\?, 3\\)"
        ):
            sess.run(y, {x: np.zeros((2, 2))})
        # Values convert as NumPy casts (TF's np.asarray(value).astype(dtype)).
        assert sess.run(n * 2, {n: np.float64(1.5)}) == 2
        with pytest.raises(TypeError, match="feed value 4294967296 with type .*numpy.int32"):
            sess.run(n * 2, {n: 2**32})
        # Python numbers and same-kind arrays convert as in TF.
        np.testing.assert_array_equal(sess.run(y, {x: [[1, 2, 3]]}), [[2, 4, 6]])
        assert sess.run(n * 2, {n: 3}) == 6


def test_uninitialized_variable_read_names_it(graph):
    w = tf.Variable(np.ones(2, np.float32), name="weights")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="weights"):
            sess.run(w * 2.0)
        assert list(sess.run(tf.report_uninitialized_variables())) == [b"weights"]
        sess.run(w.initializer)
        assert list(sess.run(tf.report_uninitialized_variables())) == []
        np.testing.assert_array_equal(sess.run(w * 2.0), [2.0, 2.0])


def test_closed_session_and_foreign_fetch(graph):
    c = tf.constant(1.0)
    other = tf.Graph()
    with other.as_default():
        d = tf.constant(2.0)
    sess = tf.Session()
    with pytest.raises(ValueError, match="not an element of this graph"):
        sess.run(d)
    assert sess.run(c) == 1.0
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(c)


def test_failed_run_loses_no_variable_value(graph):
    w = tf.Variable(3.0, name="w")
    x = tf.placeholder("float32", [], name="x")
    update = w.assign(w * x)
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(update)
        assert sess.run(w) == 3.0


def test_one_program_per_fetch_structure(graph):
    w = tf.Variable(0.0)
    step = w.assign_add(1.0)
    with tf.Session() as sess:
        sess.run(w.initializer)
        for _ in range(5):
            sess.run(step)
        assert sess.run(w) == 5.0
        plans = [p for p in sess._plans.values() if step in p.elements]
        assert len(plans) == 1 and plans[0].fn._cache_size() == 1


def test_a_repeated_fetch_structure_is_flattened_once_and_rebuilt_fresh(graph):
    """The same structure (new list objects, a name, dict keys that are objects) run
    again reuses its flattening, gives the run's current values, and new containers
    each time (a caller may mutate what it got)."""
    w = tf.Variable(0.0, name="w")
    step = w.assign_add(1.0)
    tf.constant(3.0, name="c")
    tf.no_op(name="nothing")
    key = object()
    with tf.Session() as sess:
        sess.run(w.initializer)
        cached = len(sess._fetch_cache)
        for i in range(3):
            out = sess.run({"steps": [step, "c:0"], key: (step,), "op": "nothing"})
            assert out == {"steps": [i + 1.0, 3.0], key: (i + 1.0,), "op": None}
            assert type(out["steps"]) is list and type(out[key]) is tuple
            out["steps"].append("mutated by the caller")
        assert len(sess._fetch_cache) == cached + 1
        assert sess.run([step, step]) == [4.0, 4.0]  # a fetch twice: one value
        # ... and one object, converted once, as TF 2.21's Session returns it (checked
        # there: ``a is b`` for ``a, b = sess.run([t, t])``, nested structures too).
        a, (b, c) = sess.run([w, (w, step)])
        assert a is b and c == 5.0


def test_a_fetch_structure_with_variables_is_flattened_once(graph):
    """``sess.run([train_op, loss, global_step])``, the TF1 loop's usual fetch: a
    Variable in the structure keys the cache as a Tensor does (it was flattened again
    on every run, ~16 us a step), and the variables still give their values after the
    run's writes."""
    gs = tf.train.get_or_create_global_step()
    r = tf.get_variable("r", initializer=1.0, use_resource=True)
    w = tf.Variable(0.0, name="w")
    step = tf.group(w.assign_add(1.0), r.assign_add(2.0), gs.assign_add(1))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        cached = len(sess._fetch_cache)
        for i in range(3):
            assert sess.run([step, w, (r, gs)]) == [None, i + 1.0, (1.0 + 2 * (i + 1), i + 1)]
        assert len(sess._fetch_cache) == cached + 1


def test_variable_load_eval_and_default_session(graph):
    w = tf.Variable(np.zeros(2, np.float32))
    with tf.Session() as sess:
        w.load([1.0, 2.0])
        np.testing.assert_array_equal(w.eval(), [1.0, 2.0])
        assert tf.get_default_session() is sess
    assert tf.get_default_session() is None


def test_placeholder_with_default(graph):
    x = tf.placeholder_with_default(np.float32(2.0), [])
    with tf.Session() as sess:
        assert sess.run(x * 3.0) == 6.0
        assert sess.run(x * 3.0, {x: 5.0}) == 15.0


def test_initialized_value_chains_initializers(graph):
    a = tf.Variable(2.0)
    b = tf.Variable(a.initialized_value() * 3.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(b) == 6.0


def test_interactive_session_is_default(graph):
    sess = tf.InteractiveSession()
    try:
        assert tf.get_default_session() is sess
        assert tf.constant(4.0).eval() == 4.0
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_variable_used_under_control_dependencies_reads_after_them(graph):
    v = tf.Variable(1.0, name="v")
    inc = v.assign_add(1.0)
    with tf.control_dependencies([inc]):
        doubled = v * 2.0
    plain = v * 2.0
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(doubled) == 4.0
        assert sess.run(plain) == 4.0


def test_host_ops_run_before_and_after_the_program(graph):
    """A "pre" host op feeds the step like a queue's dequeue; a "post" one formats a
    fetched value on the host; OutOfRangeError from a pre op ends the run."""
    batches = iter([np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)])

    def dequeue(session):
        try:
            return (next(batches),)
        except StopIteration:
            raise tf.errors.OutOfRangeError(None, None, "queue closed") from None

    batch = graph.create_op(
        "Dequeue", "dequeue", compute=dequeue, output_specs=[((2,), np.float32)], host="pre"
    ).outputs[0]
    total = tf.Variable(0.0, name="total")
    update = total.assign_add(tf.jax_function(lambda b: b.sum(), [batch]))
    text = graph.create_op(
        "Format",
        "fmt",
        inputs=[update],
        compute=lambda session, v: (f"total={float(v):g}".encode(),),
        output_specs=[((), np.dtype(object))],
        host="post",
    ).outputs[0]
    with tf.Session() as sess:
        sess.run(total.initializer)
        assert sess.run(text) == b"total=3"
        assert sess.run(text) == b"total=10"
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(update)
        assert sess.run(total) == 10.0


def _global_step_story(sess, gs, train, delta):
    """Fetches of the global step through runs that the host copy follows or loses."""
    read = _get_or_create_global_step_read()
    out = [sess.run(gs)]
    for _ in range(3):
        sess.run(train)
    out.append(sess.run(gs))
    out.append(sess.run([train, gs])[1])
    out.append(sess.run([read, train, gs.value()]))
    sess.run(gs.assign(10))
    out.append(sess.run(read))
    sess.run(gs.assign_add(delta), {delta: 5})  # not a constant: the copy is dropped
    out.append(sess.run(gs))
    out.append(sess.run([train, read])[1])
    gs.load(100, sess)
    out.append(sess.run([gs, train]))
    bump = gs.assign_add(3)
    sess.run(bump, {bump.op.inputs[0]: np.int64(7)})  # the constant fed: not known
    out.append(sess.run(read))
    sess.run(gs.assign_sub(2))
    out.append(sess.run(gs))
    return [np.asarray(v).tolist() for v in out]


def test_global_step_host_copy_gives_the_device_values(graph, monkeypatch):
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(w * w, global_step=gs)
    delta = tf.placeholder("int64", [], name="delta")
    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init)
        mirrored = _global_step_story(sess, gs, train, delta)
        assert sess.variable_store.has_host_copies()  # the host copy was in use
    from adapters.v1.client import session as session_lib

    monkeypatch.setattr(session_lib, "_mirrorable", lambda var: False)
    with tf.Session() as sess:
        sess.run(init)
        device = _global_step_story(sess, gs, train, delta)
        assert not sess.variable_store.has_host_copies()
    assert mirrored == device
    assert device[:3] == [0, 3, 4]


def test_a_host_known_read_is_no_program_output_and_a_restore_compiles_nothing(graph):
    """The global step a hook fetches every step comes from the host copy, not from the
    program (an output costs its launch); after a write that drops the copy (a restore,
    ``load``) the copy is taken from the device, and the same program runs."""
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    read = _get_or_create_global_step_read()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(w * w, global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [sess.run([train, read, gs])[1:] for _ in range(2)] == [[1, 1], [2, 2]]
        (plan,) = [p for p in sess._plans.values() if train in p.elements]
        assert plan.lean_outputs == [] and plan.lean_fn._cache_size() == 1
        gs.load(41, sess)
        assert not sess.variable_store.has_host_copies()
        assert sess.run([train, read, gs])[1:] == [42, 42]
        assert sess.variable_store.has_host_copies()
        assert plan.lean_fn._cache_size() == 1 and plan.fn._cache_size() == 0
        assert sess.run(w) == pytest.approx(0.8**3)


@pytest.mark.parametrize("host_copy", [True, False])
def test_global_step_fetch_before_initialization_names_it(graph, monkeypatch, host_copy):
    from adapters.v1.client import session as session_lib

    if not host_copy:
        monkeypatch.setattr(session_lib, "_mirrorable", lambda var: False)
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(w * w, global_step=gs)
    with tf.Session() as sess:
        sess.run(w.initializer)
        for fetches in (gs, [train, gs]):
            with pytest.raises(tf.errors.FailedPreconditionError, match="global_step"):
                sess.run(fetches)
        sess.run(gs.initializer)
        got = sess.run([train, gs])[1]
        assert got == 1 and np.asarray(got).dtype == np.int64
        assert sess.variable_store.has_host_copies() is host_copy


@pytest.mark.parametrize("host_copy", [True, False])
def test_fetching_the_global_step_does_not_wait_for_the_step(graph, monkeypatch, host_copy):
    """A hook's per-step global-step fetch returns while the step program still runs
    (and, without the host copy, only after it)."""
    from adapters.v1.client import session as session_lib

    if not host_copy:
        monkeypatch.setattr(session_lib, "_mirrorable", lambda var: False)

    def slow(a):  # ~0.5 s of matmuls on a CPU core, ~0.2 s on an H200
        return jax.lax.fori_loop(0, 500, lambda i, b: jnp.tanh(b @ b) * 0.5, a)

    n = 256 if jax.default_backend() == "cpu" else 4096  # (256 took 2 ms on a GPU)
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    v = tf.Variable(np.eye(n, dtype=np.float32), name="v")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(w * w, global_step=gs)
    step = tf.group(train, v.assign(tf.jax_function(slow, [v])))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([step, gs])  # compiles
        sess.run(v)
        assert sess.run([step, gs])[1] == 2
        with sess.variable_store.locked() as store:
            assert store.read(v).is_ready() is not host_copy
        assert sess.run(w) == pytest.approx(0.64)


def _effect_op(var, other, effect, declare):
    """An op that reads or writes ``other`` while declaring only ``var`` (or both)."""

    def compute(ctx):
        if effect == "writes":
            ctx.write(other, ctx.read(var) + 1.0)
        else:
            ctx.write(var, ctx.read(other) + 1.0)
        return ()

    op = tf.get_default_graph().create_op("SneakyOp", "sneaky", compute=compute)
    declared = (var, other) if declare else (var,)
    op._writes = declared if effect == "writes" else (var,)
    op._reads = declared if effect == "reads" else (var,)
    return op


@pytest.mark.parametrize("effect", ["writes", "reads"])
def test_an_undeclared_variable_effect_raises_naming_op_and_variable(graph, effect):
    """A write (or read) the op does not declare in ``_writes``/``_reads`` raises."""
    v = tf.Variable(1.0, name="v")
    other = tf.Variable(10.0, name="other")
    sneaky = _effect_op(v, other, effect, declare=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(
            tf.errors.InvalidArgumentError, match=f"'sneaky'.*SneakyOp.*{effect} variable other"
        ):
            sess.run(sneaky)
        assert sess.run([v, other]) == [1.0, 10.0]  # nothing changed


@pytest.mark.parametrize("effect", ["writes", "reads"])
def test_a_declared_variable_effect_is_applied(graph, effect):
    v = tf.Variable(1.0, name="v")
    other = tf.Variable(10.0, name="other")
    op = _effect_op(v, other, effect, declare=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op)
        assert sess.run([v, other]) == ([1.0, 2.0] if effect == "writes" else [11.0, 10.0])


def test_partial_run_feeds_incrementally_and_runs_effects_once(graph):
    from jtrain import errors

    a, b, c = (tf.placeholder("float32", [], name=n) for n in "abc")
    counter = tf.Variable(0.0, name="counter")
    r1 = counter.assign_add(a + b)
    r2 = r1 * c
    with tf.Session() as sess:
        sess.run(counter.initializer)
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        with pytest.raises(errors.InvalidArgumentError, match="Fetch a:0 can't be computed"):
            sess.partial_run(h, r2, feed_dict={c: 2.0})
        assert sess.partial_run(h, r1, feed_dict={a: 1.0, b: 2.0}) == 3.0
        assert sess.partial_run(h, r2, feed_dict={c: 2.0}) == 6.0
        assert sess.run(counter) == 3.0  # the assignment ran once
        with pytest.raises(errors.InvalidArgumentError, match="Must run 'setup'"):
            sess.partial_run(h, r2)
        h = sess.partial_run_setup([r1], [a, b])
        with pytest.raises(errors.InvalidArgumentError, match="feed c:0 was not specified"):
            sess.partial_run(h, r1, feed_dict={c: 1.0})
        with pytest.raises(errors.InvalidArgumentError, match="fetch mul:0 was not specified"):
            sess.partial_run(h, r2, feed_dict={a: 1.0})
        # An effect an earlier call ran is refused, not run a second time.
        x1 = r1 * 1.0
        h = sess.partial_run_setup([x1, r2], [a, b, c])
        assert sess.partial_run(h, x1, feed_dict={a: 1.0, b: 1.0}) == 5.0
        with pytest.raises(errors.UnimplementedError, match="would run AssignAdd .* second time"):
            sess.partial_run(h, r2, feed_dict={c: 1.0})
        assert sess.run(counter) == 5.0


def test_list_devices_and_make_callable_with_options(graph):
    a = tf.placeholder("float32", [], name="a")
    with tf.Session() as sess:
        (cpu, *_) = sess.list_devices()
        assert (cpu.name, cpu.device_type, cpu.memory_limit_bytes) == (
            "/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 268435456
        )  # fmt: skip
        f = sess.make_callable(a * 2.0, [a], accept_options=True)
        assert f(3.0, options=None, run_metadata=None) == 6.0
        assert sess.make_callable(a * 2.0, [a])(4.0) == 8.0


class _NeverReady:
    """A stand-in for a device value whose program never ends."""

    def __init__(self):
        self.polls = 0

    def is_ready(self):
        self.polls += 1
        return False


def test_polling_a_value_gives_up_after_its_budget():
    from adapters.v1.client import session as session_lib

    value = _NeverReady()
    start = session_lib.time.perf_counter()
    session_lib._poll_until_ready([None, value], 0.002)
    assert session_lib.time.perf_counter() - start >= 0.002 and value.polls > 1
    session_lib._poll_until_ready([None, object()], 10.0)  # no is_ready: returns at once
    pauses = []
    value = _NeverReady()
    session_lib._poll_until_ready([value], 0.002, pause=lambda: pauses.append(value.polls))
    assert value.polls > 1 and pauses == list(range(1, value.polls))  # one between looks


def test_a_short_step_polls_for_its_fetches_when_alone(graph, monkeypatch):
    """A step whose program ended within the polling budget is marked short; its next
    runs poll the fetched value (only where no other Python thread but idle waiters
    could want the GIL) and return the same values as the blocking path."""
    from adapters.v1.client import session as session_lib

    polls = []
    original = session_lib._poll_until_ready
    monkeypatch.setattr(
        session_lib, "_poll_until_ready", lambda v, b: polls.append(b) or original(v, b)
    )
    monkeypatch.setattr(session_lib, "_POLL_S", 10.0)  # every step counts as short here
    w = tf.Variable(1.0, name="w")
    step = w.assign(w * 2.0)
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(step) == 2.0  # compiles: no poll
        monkeypatch.setattr(session_lib, "alone_but_idle_waiters", lambda: False)
        assert sess.run(step) == 4.0 and not polls  # another busy thread: blocks
        monkeypatch.setattr(session_lib, "alone_but_idle_waiters", lambda: True)
        assert [sess.run(step) for _ in range(3)] == [8.0, 16.0, 32.0]
        assert polls == [10.0] * 3
        (plan,) = [p for p in sess._plans.values() if step in p.elements]
        assert plan.short
        monkeypatch.setattr(session_lib, "_POLL_S", 0.0)  # nothing is short: blocks
        assert sess.run(step) == 64.0 and not plan.short and len(polls) == 4
        assert sess.run(step) == 128.0 and len(polls) == 4


def test_only_idle_waiters_leave_a_thread_alone():
    """An event writer's thread (blocked on its queue) does not count as company; any
    other live thread does."""
    import threading

    from jtrain._threads import alone_but_idle_waiters, mark_idle_waiter

    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    baseline = all(getattr(t, "_jtrain_idle_waiter", False) for t in others)
    release = threading.Event()
    waiter = mark_idle_waiter(threading.Thread(target=release.wait, daemon=True))
    busy = threading.Thread(target=release.wait, daemon=True)
    waiter.start()
    try:
        assert alone_but_idle_waiters() == baseline
        busy.start()
        assert not alone_but_idle_waiters()
    finally:
        release.set()
        waiter.join()
        if busy.is_alive() or busy.ident is not None:
            busy.join()


def test_a_thread_swapped_for_another_is_seen_within_a_hundred_asks():
    """The answer is kept while the number of live threads stays the same: an idle
    waiter that ends while a busy thread starts is seen within ``_RECHECK`` asks."""
    import threading

    from jtrain import _threads

    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    baseline = all(getattr(t, "_jtrain_idle_waiter", False) for t in others)
    release_waiter, release_busy = threading.Event(), threading.Event()
    waiter = _threads.mark_idle_waiter(threading.Thread(target=release_waiter.wait))
    busy = threading.Thread(target=release_busy.wait)
    waiter.start()
    try:
        assert _threads.alone_but_idle_waiters() == baseline
        release_waiter.set()
        waiter.join()
        busy.start()  # as many live threads as before
        answers = [_threads.alone_but_idle_waiters() for _ in range(_threads._RECHECK + 1)]
        assert answers[-1] is False
    finally:
        release_waiter.set()
        release_busy.set()
        waiter.join()
        if busy.ident is not None:
            busy.join()


def test_every_kind_of_step_program_is_compiled_with_the_options(monkeypatch, graph):
    """A plain step, one with run-time checks, and a training step fetching the
    host-known global step: each compiles with ``jtrain.xla_options.step_options()``
    (an option XLA rejects shows it)."""
    x = tf.placeholder(tf.float32, [2, 4, 4, 1], name="x")
    w = tf.get_variable("w", initializer=tf.ones([3, 3, 1, 2]))
    loss = tf.reduce_sum(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    checked = tf.debugging.check_numerics(loss, "loss")
    feed = {x: np.ones([2, 4, 4, 1], np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        monkeypatch.setattr(
            xla_options, "step_options", lambda platform=None: {xla_options.FIELD: "NO_SUCH"}
        )
        for fetches in ([loss], [checked], [train, loss, step]):
            with pytest.raises(Exception, match="NO_SUCH"):
                sess.run(fetches, feed)
        assert sess.run(step) == 0  # nothing ran


def _aligned_floats(n: int, offset: int) -> np.ndarray:
    """A writeable float32 array of ``n`` ones whose data starts ``offset`` bytes past a
    64-byte boundary (0: aligned as XLA:CPU needs to read it in place)."""
    raw = np.empty(4 * n + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    out = raw[start : start + 4 * n].view(np.float32)
    out[:] = 1.0
    return out


@pytest.mark.parametrize("offset", [0, 16], ids=["aligned", "unaligned"])
def test_a_feed_refilled_after_run_returns_does_not_reach_the_step(graph, offset):
    """TF copies a feed during ``run``, so a script may refill its batch array as soon
    as a step that fetched nothing returns. That step's program may still be running:
    it must read the values fed, not the refill (XLA:CPU reads an aligned array in
    place). The step here reads the feed after a chain of large products (about 0.2 s
    on 2 cores, against microseconds for the refill); the test checks that the program
    was still running when the array was refilled."""
    x = tf.placeholder(tf.float32, [256], name="x")
    big = tf.Variable(tf.ones([1024, 1024]), name="big")
    total = tf.Variable(0.0, name="total")
    b = big.read_value()
    for _ in range(12):
        b = tf.matmul(b, b) / 1024.0  # stays all ones
    step = tf.assign_add(total, tf.reduce_sum(x * b[0, 0])).op
    batch = _aligned_floats(256, offset)
    pending = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, {x: batch})  # the first run: the plan learns it fetches nothing
        assert sess.run(total) == 256.0
        for _ in range(2):
            batch[:] = 1.0
            sess.run(step, {x: batch})
            batch[:] = 1000.0  # the next batch, while the step runs
            (buffer,) = sess.variable_store.buffers([total])
            pending.append(not buffer.is_ready())
            assert sess.run(total) in (512.0, 768.0)
        assert sess.run(total) == 768.0
    assert pending == [True, True]  # the test's premise: the runs returned early


def test_a_run_fetching_a_value_reads_its_feed_before_returning(graph):
    """A run fetching a device value returns after its program: the feed may be
    refilled at once (and, as TF, the fetch saw the values fed)."""
    x = tf.placeholder(tf.float32, [256], name="x")
    total = tf.Variable(0.0, name="total")
    new = tf.assign_add(total, tf.reduce_sum(x))
    batch = _aligned_floats(256, 0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            batch[:] = 1.0
            assert sess.run(new, {x: batch}) == 256.0 * (i + 1)
            batch[:] = 1000.0
        assert sess.run(total) == 768.0


class _CountingFeeds(dict):
    """A feed_dict that counts the passes over its keys (``__iter__``)."""

    passes = 0

    def __iter__(self):
        type(self).passes += 1
        return super().__iter__()


def test_a_run_converts_its_feeds_in_one_pass_over_the_keys(graph):
    a = tf.placeholder(tf.float32, [2])
    b = tf.placeholder(tf.float32, [2])
    with tf.Session() as sess:
        _CountingFeeds.passes = 0
        assert sess.run(a + b, _CountingFeeds({a: [1.0, 2.0], b: [3.0, 4.0]})).tolist() == [4, 6]
        assert _CountingFeeds.passes == 0  # items() only: no scan for tuple keys
        got = sess.run(a - b, _CountingFeeds({a: [1.0, 1.0], (b,): (np.array([3.0, 4.0]),)}))
        assert got.tolist() == [-2.0, -3.0]
