"""Ops whose gradients, errors, names or rank checks differed from TF 2.21's, checked live.

Each case is one TF1 snippet run under TF's ``compat.v1`` (as classic TF1) and under
``adapters.v1`` (``twin.py``), one section per fix.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1


def _jtf():
    from adapters import v1 as jtf

    return jtf


@contextlib.contextmanager
def _graph_of(tf):
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default() as graph:
            yield graph


# -- tf.losses cross entropies: the gradients to the labels -------------------------------
LABELS = np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]], np.float32)
LOGITS = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], np.float32)
LOSSES = {
    "softmax": lambda tf, lab, lo: tf.losses.softmax_cross_entropy(lab, lo),
    "softmax smoothed": lambda tf, lab, lo: tf.losses.softmax_cross_entropy(
        lab, lo, label_smoothing=0.1
    ),
    "softmax scope, weights": lambda tf, lab, lo: tf.losses.softmax_cross_entropy(
        lab, lo, weights=[1.0, 2.0], scope="xent"
    ),
    "sigmoid": lambda tf, lab, lo: tf.losses.sigmoid_cross_entropy(lab, lo),
    "sigmoid smoothed": lambda tf, lab, lo: tf.losses.sigmoid_cross_entropy(
        lab, lo, label_smoothing=0.1
    ),
}


@pytest.mark.parametrize("case", list(LOSSES))
def test_loss_gradients_to_labels(case):
    def script(tf):
        lab = tf.placeholder(tf.float32, [2, 3])
        lo = tf.placeholder(tf.float32, [2, 3])
        loss = LOSSES[case](tf, lab, lo)
        grads = tf.gradients(loss, [lab, lo])
        feed = {lab: LABELS, lo: LOGITS}
        return lambda sess: (
            sess.run(loss, feed),
            [None if g is None else sess.run(g, feed) for g in grads],
        )

    assert_twins(*run_both(script), rtol=1e-5, atol=1e-6)


def test_sparse_softmax_loss_gradients():
    def script(tf):
        lab = tf.placeholder(tf.int32, [2])
        lo = tf.placeholder(tf.float32, [2, 3])
        loss = tf.losses.sparse_softmax_cross_entropy(lab, lo)
        grads = tf.gradients(loss, [lab, lo])
        feed = {lab: [2, 0], lo: LOGITS}
        return lambda sess: (
            sess.run(loss, feed),
            [None if g is None else sess.run(g, feed) for g in grads],
        )

    assert_twins(*run_both(script), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("tf", [tf1, "jtf"], ids=["tf", "jtrain"])
def test_softmax_loss_stop_gradient_nodes(tf):
    tf = _jtf() if tf == "jtf" else tf
    with _graph_of(tf) as graph:
        lab = tf.placeholder(tf.float32, [2, 3])
        tf.losses.softmax_cross_entropy(lab, LOGITS)
        tf.losses.softmax_cross_entropy(lab, LOGITS)
        tf.losses.softmax_cross_entropy(lab, LOGITS, scope="mine")
        stops = sorted(op.name for op in graph.get_operations() if op.type == "StopGradient")
    assert stops == [
        "mine/labels_stop_gradient",
        "softmax_cross_entropy_loss/labels_stop_gradient",
        "softmax_cross_entropy_loss_1/labels_stop_gradient",
    ]


def test_softmax_loss_trains_only_the_logits():
    def script(tf):
        w = tf.Variable(np.ones([3, 3], np.float32))
        lab = tf.nn.softmax(tf.matmul(tf.constant(LABELS), w))
        loss = tf.losses.softmax_cross_entropy(lab, LOGITS)
        (grad,) = tf.gradients(loss, [w])
        return lambda sess: grad

    theirs, ours = run_both(script)
    assert theirs is None and ours is None


# -- argmax/argmin: an empty reduced axis fails when the graph runs; bool inputs ----------
ARG_EMPTY = {
    "[0]": ([0], None),
    "[0] axis 0": ([0], 0),
    "[2, 0] axis 1": ([2, 0], 1),
    "[2, 0] axis -1": ([2, 0], -1),
    "[0, 3] axis 0": ([0, 3], 0),
    "[0, 0] axis 1": ([0, 0], 1),
    "[2, 0] axis 0": ([2, 0], 0),
    "[0, 3] axis 1": ([0, 3], 1),
}


def _run_or_error(sess, fetch, feed=None):
    """The fetched value, or the error's class and the message's line that TF's
    kernel wrote (``Reduction axis 1 is empty in shape [2,0]``)."""
    try:
        return sess.run(fetch, feed)
    except Exception as e:  # noqa: BLE001 - the class is compared
        lines = [line for line in str(e).splitlines() if "Reduction axis" in line]
        return type(e).__name__, lines[:1], getattr(e.op, "name", None)


@pytest.mark.parametrize("fn", ["argmax", "argmin", "arg_max", "arg_min"])
@pytest.mark.parametrize("case", list(ARG_EMPTY))
def test_arg_reductions_of_empty_axes(fn, case):
    shape, axis = ARG_EMPTY[case]
    if fn.startswith("arg_") and axis is None:
        axis = 0

    def script(tf):
        x = tf.placeholder(tf.float32, [None] * len(shape))
        fixed = tf.zeros(shape)
        fed = getattr(tf, fn)(x, axis, name="fed")
        static = getattr(tf, fn)(fixed, axis, name="static")
        out = [fed, static]
        return lambda sess: (
            [o.shape.as_list() for o in out],
            [o.dtype.name for o in out],
            _run_or_error(sess, fed, {x: np.zeros(shape, np.float32)}),
            _run_or_error(sess, static),
        )

    theirs, ours = run_both(script)
    assert theirs[:2] == ours[:2]
    assert repr(theirs[2:]) == repr(ours[2:])


def test_arg_reductions_of_bool_and_other_dtypes():
    def script(tf):
        b = tf.placeholder(tf.bool, [None, 3])
        outs = [
            tf.argmax(b, 1),
            tf.argmin(b, 1),
            tf.argmax(b, 0, output_type=tf.int32),
            tf.math.argmin(b, axis=0),
            tf.arg_max(b, 1),
        ]
        feed = {b: [[False, True, True], [False, False, False], [True, False, True]]}
        return lambda sess: (sess.run(outs, feed), [o.shape.as_list() for o in outs])

    assert_twins(*run_both(script), rtol=0)


@pytest.mark.parametrize("tf", [tf1, "jtf"], ids=["tf", "jtrain"])
def test_arg_reduction_dtype_errors(tf):
    tf = _jtf() if tf == "jtf" else tf
    with _graph_of(tf):
        with pytest.raises(TypeError) as info:
            tf.argmax(tf.constant([1 + 2j, 3j]), 0)
    assert str(info.value) == (
        "Value passed to parameter 'input' has DataType complex128 not in list of allowed "
        "values: float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
        "float16, uint32, uint64, qint8, quint8, qint32, qint16, quint16, bool"
    )


def test_arg_reduction_of_a_computed_axis():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, None])
        k = tf.placeholder(tf.int32, [])
        out = tf.argmax(x, k)
        return lambda sess: (
            sess.run(out, {x: [[1.0, 3.0], [4.0, 2.0]], k: 1}),
            _run_or_error(sess, out, {x: np.zeros([3, 0], np.float32), k: 1}),
            sess.run(out, {x: np.zeros([0, 2], np.float32), k: 1}),
        )

    theirs, ours = run_both(script)
    assert repr(theirs) == repr(ours)


# -- control flow outputs under TF's tensor names (one Exit/Merge node per output) --------
def _names(tensors):
    import jax

    return [
        t.name for t in jax.tree.leaves(list(tensors) if isinstance(tensors, tuple) else tensors)
    ]


def _loops(tf):
    """Loops and conds of every shape, with the names of their outputs; TF's classic
    control flow builds one ``Exit`` (``Merge``) node per output."""
    p = tf.placeholder(tf.bool, [])
    q = tf.placeholder(tf.bool, [])

    def nested_body(i, acc):
        inner = tf.while_loop(lambda j, a: j < 2, lambda j, a: (j + 1, a + 1.0), [0, acc])
        made["inner"] = inner
        return i + 1, inner[1]

    made = {}
    made["one"] = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    made["two"] = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [0, 1.0])
    made["three"] = tf.while_loop(
        lambda i, x, y: i < 3,
        lambda i, x, y: (i + 1, x * 2.0, y + x),
        [0, 1.0, tf.zeros([2])],
        name="three",
    )
    made["nested"] = tf.while_loop(lambda i, a: i < 2, nested_body, [0, 0.0])
    made["same structure"] = tf.while_loop(
        lambda i: i < 3, lambda i: i + 1, [0], return_same_structure=True
    )
    made["dict"] = tf.while_loop(
        lambda d: d["a"] < 3, lambda d: [{"a": d["a"] + 1, "b": d["b"] - 1.0}], [{"a": 0, "b": 1.0}]
    )
    made["bounded"] = tf.while_loop(
        lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), (0, 1.0), maximum_iterations=5
    )
    made["bounded one"] = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=2)
    made["cond"] = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))
    made["cond two"] = tf.cond(
        p, lambda: (tf.constant(1), tf.constant(2.0)), lambda: (tf.constant(3), tf.constant(4.0))
    )
    made["cond named"] = tf.cond(
        p,
        lambda: {"a": tf.constant(1), "b": [tf.constant(2.0)]},
        lambda: {"a": tf.constant(3), "b": [tf.constant(4.0)]},
        name="named",
    )
    made["cond nested"] = tf.cond(
        p,
        lambda: tf.cond(
            q, lambda: (tf.constant(1), tf.constant(5)), lambda: (tf.constant(2), tf.constant(6))
        ),
        lambda: (tf.constant(3), tf.constant(7)),
    )
    made["cond constant"] = tf.cond(
        tf.constant(True), lambda: (tf.constant(1), tf.constant(2)), lambda: (tf.constant(3), 4)
    )
    made["case"] = tf.case(
        [(p, lambda: (tf.constant(1), tf.constant(2.0)))],
        default=lambda: (tf.constant(3), tf.constant(4.0)),
    )
    made["case two"] = tf.case(
        [(p, lambda: tf.constant(1)), (q, lambda: tf.constant(5))], default=lambda: tf.constant(3)
    )
    return made, {p: True, q: False}


def test_control_flow_output_names():
    def script(tf):
        made, feed = _loops(tf)
        graph = tf.get_default_graph()
        names = {k: _names(v) for k, v in made.items()}
        # (TF refuses to fetch the inner loop's tensors: only their names are compared)
        fetch = {
            k: [graph.get_tensor_by_name(n) for n in v] for k, v in names.items() if k != "inner"
        }
        shapes = {k: [t.shape.as_list() for t in v] for k, v in fetch.items()}
        return lambda sess: (names, shapes, sess.run(fetch, feed))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    assert_twins(theirs[2], ours[2], rtol=0)


def test_control_flow_outputs_fetched_by_name_and_differentiated():
    """A loop's and a cond's outputs fetched by TF's names, and gradients through them."""

    def script(tf):
        x = tf.Variable(1.0, name="x")
        _, out = tf.while_loop(
            lambda i, v: i < 4, lambda i, v: (i + 1, v * x + 1.0), (0, x), maximum_iterations=6
        )
        taken = tf.cond(out > 10.0, lambda: (out, out * 2.0), lambda: (-out, out))
        loss = tf.reduce_sum(taken[1])
        (grad,) = tf.gradients(loss, [x])
        tf.add_to_collection("outs", out)

        def run(sess):
            graph = tf.get_default_graph()
            by_name = [graph.get_tensor_by_name(n) for n in ("while/Exit_2:0", "cond/Merge_1:0")]
            return sess.run([out, taken, by_name, grad]), [out.name, taken[1].name, grad.name]

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs[0], ours[0], rtol=1e-6)
    assert ours[1][:2] == theirs[1][:2] == ["while/Exit_2:0", "cond/Merge_1:0"]


# -- top-k metrics: the ranks TF accepts, its errors, its values and names ----------------
TOP_K_SHAPES = {  # (predictions or top-k indices, labels), before the last dimension
    f"predictions {p} labels {lab}": (p, lab)
    for p in ([], [4], [2, 4])
    for lab in ([], [4], [4, 2], [2, 4, 2])
}
TOP_K_METRICS = [
    "recall_at_k",
    "precision_at_k",
    "sparse_precision_at_k",
    "recall_at_top_k",
    "precision_at_top_k",
    "average_precision_at_k",
]


def _top_k_metric(tf, metric, lead, label_shape, **kwargs):
    rng = np.random.RandomState(len(lead) * 10 + len(label_shape))
    labels = tf.constant(rng.randint(0, 5, label_shape).astype(np.int64))
    if metric.endswith("top_k"):
        top = tf.constant(rng.randint(0, 5, [*lead, 3]).astype(np.int32))
        return getattr(tf.metrics, metric)(labels, top, k=2, **kwargs)
    scores = tf.constant(rng.rand(*lead, 5).astype(np.float32))
    return getattr(tf.metrics, metric)(labels, scores, 2, **kwargs)


@pytest.mark.parametrize("metric", TOP_K_METRICS)
@pytest.mark.parametrize("case", list(TOP_K_SHAPES))
def test_top_k_metrics_ranks(metric, case):
    lead, label_shape = TOP_K_SHAPES[case]

    def script(tf):
        try:
            value, update = _top_k_metric(tf, metric, lead, label_shape)
        except ValueError as e:
            error = ("ValueError", str(e))
            return lambda sess: error
        return lambda sess: (
            sess.run(update),
            sess.run(value),
            [value.name, update.name, value.dtype.name, value.shape.as_list()],
        )

    theirs, ours = run_both(script)
    if theirs[0] == "ValueError" or ours[0] == "ValueError":
        assert ours == theirs
    else:
        assert_twins(theirs[:2], ours[:2], rtol=1e-12)
        assert ours[2] == theirs[2]


@pytest.mark.parametrize("kwargs", [{"class_id": 1}, {"name": "mine"}], ids=["class_id", "name"])
def test_top_k_metrics_rank_one_errors(kwargs):
    def script(tf):
        try:
            _top_k_metric(tf, "recall_at_k", [], [], **kwargs)
        except ValueError as e:
            message = str(e)
            return lambda sess: message
        return lambda sess: None

    theirs, ours = run_both(script)
    assert theirs is not None and ours == theirs


# -- integer reduce_mean over no elements: 0, as TF (the process must not crash) ----------
_EMPTY_MEAN = """
import numpy as np
from tests.interop.twin import run_both

def script(tf):
    outs = []
    feed = {}
    for dtype in ("int8", "int32", "int64", "uint8"):
        for shape, axis in (([0], None), ([2, 0], 1), ([0, 3], 0), ([2, 0], 0)):
            x = tf.placeholder(tf.as_dtype(dtype), [None] * len(shape))
            feed[x] = np.zeros(shape, dtype)
            outs.append(tf.reduce_mean(x, axis))
            outs.append(tf.reduce_mean(tf.zeros(shape, tf.as_dtype(dtype)), axis, keepdims=True))
    return lambda sess: [(v.dtype.name, v.shape, v.tolist()) for v in sess.run(outs, feed)]

theirs, ours = run_both(script)
assert theirs == ours, (theirs, ours)
print("same", len(ours))
"""


def test_integer_reduce_mean_of_empty_inputs_is_zero():
    """Run in a child process: jtrain's division by a zero count used to kill the process
    (SIGFPE); TF 2.21 gives 0."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [sys.executable, "-c", _EMPTY_MEAN],
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "same 32" in done.stdout
