"""``tf.nn.ctc_*`` checked live against TF 2.21 (``twin.py``): losses, their gradients,
decodings, dtypes, static shapes and TF's errors.

Until ``adapters/v1/ops/ctc_ops.py`` these names raised ``AttributeError``.

Float32 precision: jtrain's CTC loss follows TF's kernel operation by operation
(log space, TF's ``LogSumExp`` order, TF's pruned states), but the softmax's ``exp``
is XLA's, TF's is Eigen's: they differ by an ulp on some inputs, so losses agree to
``rtol=1e-6`` and gradients (``softmax - occupation``, differences of numbers in
[0, 1]) to ``atol=1e-6`` (measured: at most 5e-7).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RS = np.random.RandomState(0)
X = (RS.randn(6, 3, 5) * 2).astype(np.float32)  # [time, batch, classes]; blank = 4
INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]], np.int64)
VALUES = np.array([1, 2, 2, 3, 3, 0, 1, 0], np.int32)
SEQ = np.array([6, 4, 5], np.int32)
GRAD_ATOL = 1e-6


def _loss_and_grad(x=X, indices=INDICES, values=VALUES, seq=SEQ, **kwargs):
    def script(tf):
        logits = tf.constant(x)
        labels = tf.SparseTensor(indices, values, [x.shape[1], 4])
        loss = tf.nn.ctc_loss(labels, logits, seq, **kwargs)
        weights = np.array([1.0, -0.5, 0.25][: x.shape[1]], x.dtype)  # |gradient| <= 1
        grad = tf.gradients(tf.reduce_sum(loss * weights), logits)[0]
        shapes = (loss.shape.as_list(), grad.shape.as_list())
        return lambda sess: (*sess.run([loss, grad]), shapes)

    return run_both(script)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"preprocess_collapse_repeated": True},
        {"ctc_merge_repeated": False},
        {"preprocess_collapse_repeated": True, "ctc_merge_repeated": False},
    ],
    ids=["default", "collapse", "no-merge", "collapse-no-merge"],
)
def test_ctc_loss_values_gradients_shapes(kwargs):
    (t_loss, t_grad, t_shapes), (o_loss, o_grad, o_shapes) = _loss_and_grad(**kwargs)
    assert o_shapes == t_shapes == ([3], [6, 3, 5])
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)


def test_ctc_loss_trailing_null_labels_end_the_sequence():
    # a label >= num_classes - 1 ends the row's sequence (it still counts for the time)
    values = np.array([1, 4, 4, 3, 3, 0, 4, 0 + 4], np.int32)
    (t_loss, t_grad, _), (o_loss, o_grad, _) = _loss_and_grad(values=values)
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)


def test_ctc_loss_float64():
    x = (RS.randn(5, 2, 4) * 3).astype(np.float64)
    indices = np.array([[0, 0], [0, 1], [1, 0]], np.int64)
    (t_loss, t_grad, _), (o_loss, o_grad, _) = _loss_and_grad(
        x, indices, np.array([0, 2, 1], np.int32), np.array([5, 3], np.int32)
    )
    assert o_loss.dtype == np.float64
    # TF's LogSumExp takes expf/log1pf (float32) for float64 too: so does jtrain.
    assert_twins(t_loss, o_loss, rtol=1e-7)
    assert_twins(t_grad, o_grad, atol=1e-7)


def test_ctc_loss_batch_major_and_logits_name():
    xb = np.transpose(X, [1, 0, 2]).copy()

    def script(tf):
        labels = tf.SparseTensor(INDICES, VALUES, [3, 4])
        x = tf.constant(xb)
        loss = tf.nn.ctc_loss(labels, logits=x, sequence_length=SEQ, time_major=False)
        grad = tf.gradients(loss, x)[0]
        return lambda sess: sess.run([loss, grad])

    (t_loss, t_grad), (o_loss, o_grad) = run_both(script)
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)


def test_ctc_loss_ignore_longer_outputs_and_empty_sequence():
    # entry 0: 3 labels in 2 frames (skipped: 0, zero gradient); entry 2: no frames
    seq = np.array([2, 4, 0], np.int32)
    (t_loss, t_grad, _), (o_loss, o_grad, _) = _loss_and_grad(
        seq=seq, ignore_longer_outputs_than_inputs=True
    )
    assert t_loss[0] == 0 and t_loss[2] == 0 and not np.any(t_grad[:, [0, 2]])
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)


def test_ctc_loss_no_valid_path_is_inf_with_softmax_gradient():
    # labels 1,2,2 need 4 frames (a blank between the 2s); 3 frames: no path, loss inf,
    # TF's kernel gives the softmax as gradient.
    seq = np.array([3, 4, 5], np.int32)
    (t_loss, t_grad, _), (o_loss, o_grad, _) = _loss_and_grad(seq=seq)
    assert np.isinf(t_loss[0])
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)


def test_ctc_loss_placeholders_fed_sparse_labels_and_static_shapes():
    def script(tf):
        x = tf.placeholder(tf.float32, [None, None, 5])
        seq = tf.placeholder(tf.int32, [None])
        labels = tf.sparse_placeholder(tf.int32)
        loss = tf.nn.ctc_loss(labels, x, seq)
        grad = tf.gradients(tf.reduce_mean(loss), x)[0]
        feed = {
            x: X,
            seq: SEQ,
            labels: tf.SparseTensorValue(INDICES, VALUES, np.array([3, 3], np.int64)),
        }
        shapes = (loss.shape.as_list(), grad.shape.as_list())
        return lambda sess: (*sess.run([loss, grad], feed), shapes)

    (t_loss, t_grad, t_shapes), (o_loss, o_grad, o_shapes) = run_both(script)
    assert o_shapes == t_shapes
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)


def test_ctc_loss_node_and_dtype_of_float16():
    def script(tf):
        x = tf.constant(X.astype(np.float16))
        labels = tf.SparseTensor(INDICES, VALUES, [3, 4])
        loss = tf.nn.ctc_loss(labels, x, SEQ)
        return lambda sess: sess.run(loss)

    theirs, ours = run_both(script)
    assert ours.dtype == np.float16
    assert_twins(theirs, ours, rtol=1e-3)

    with jtf.Graph().as_default():
        labels = jtf.SparseTensor(INDICES, VALUES, [3, 4])
        loss = jtf.nn.ctc_loss(labels, jtf.constant(X), SEQ)
        assert loss.op.type == "CTCLoss" and loss.op.name == "CTCLoss"


def _error_of(tf, indices, values, seq, **kwargs):
    graph = tf.Graph()
    with graph.as_default():
        labels = tf.SparseTensor(np.array(indices, np.int64).reshape(-1, 2), values, [2, 10])
        loss = tf.nn.ctc_loss(labels, tf.constant(X[:4, :2]), np.array(seq, np.int32), **kwargs)
        with tf.Session(graph=graph) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(loss)
    return info.value.message


@pytest.mark.parametrize(
    "indices, values, seq, kwargs",
    [
        ([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 2, 3, 3], [2, 4], {}),
        ([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [0, 4], {}),
        ([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [5, 4], {}),
        ([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [-1, 4], {}),
        ([[0, 0], [0, 1]], [1, 2], [4, 4], {}),
        ([[0, 0], [0, 1], [1, 0]], [4, 2, 3], [4, 4], {}),
        ([[0, 0], [0, 1], [1, 0]], [-1, 2, 3], [4, 4], {}),
        ([[0, 1], [0, 0], [1, 0]], [1, 2, 3], [4, 4], {}),
        ([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [4, 4], {}),
        ([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 1, 1, 2], [2, 4], {}),
    ],
    ids=[
        "not enough time",
        "no frames",
        "sequence_length > max_time",
        "negative sequence_length",
        "empty label row",
        "label after null",
        "negative label",
        "unsorted",
        "batch index out of range",
        "not enough time counts repeats",
    ],
)
def test_ctc_loss_errors_as_tf(indices, values, seq, kwargs):
    values = np.array(values, np.int32)
    theirs = _error_of(real_tf.compat.v1, indices, values, seq, **kwargs)
    ours = _error_of(jtf, indices, values, seq, **kwargs)
    assert ours in theirs, (ours, theirs)


def test_ctc_loss_collapse_counts_raw_labels_for_time():
    # TF checks the time against the raw label count, before collapsing repeats.
    indices = [[0, 0], [0, 1], [0, 2], [1, 0]]
    values = np.array([1, 1, 1, 2], np.int32)
    theirs = _error_of(
        real_tf.compat.v1, indices, values, [2, 4], preprocess_collapse_repeated=True
    )
    ours = _error_of(jtf, indices, values, [2, 4], preprocess_collapse_repeated=True)
    assert ours in theirs and "required: 3, available: 2" in ours


def test_ctc_loss_refuses_dense_labels():
    for tf in (real_tf.compat.v1, jtf):
        with tf.Graph().as_default():
            with pytest.raises(TypeError, match="Expected argument `labels` to be a SparseTensor"):
                tf.nn.ctc_loss(tf.constant([[1, 2]]), tf.constant(X), SEQ)


# -- ctc_greedy_decoder -------------------------------------------------------------------
GREEDY_X = np.round(RS.randn(7, 3, 4), 0).astype(np.float32)  # rounded: ties between classes


def _decoded(sess_result):
    decoded, log_probs = sess_result
    sp = decoded[0]
    return (np.asarray(sp.indices), np.asarray(sp.values), np.asarray(sp.dense_shape), log_probs)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"merge_repeated": False}, {"blank_index": 0}, {"blank_index": -2}],
    ids=["default", "no-merge", "blank-0", "blank--2"],
)
@pytest.mark.parametrize("fed", [False, True], ids=["computed", "fed"])
def test_ctc_greedy_decoder(kwargs, fed):
    seq = np.array([7, 3, 0], np.int32)

    def script(tf):
        if fed:
            x = tf.placeholder(tf.float32, [None, None, 4])
            feed = {x: GREEDY_X}
        else:
            x = tf.constant(GREEDY_X) * 1.0
            feed = {}
        decoded, log_probs = tf.nn.ctc_greedy_decoder(x, seq, **kwargs)
        sp = decoded[0]
        shapes = [t.shape.as_list() for t in (sp.indices, sp.values, sp.dense_shape, log_probs)]
        return lambda sess: (_decoded(sess.run((decoded, log_probs), feed)), shapes, len(decoded))

    theirs, ours = run_both(script)
    assert ours[1:] == theirs[1:]
    assert_twins(theirs[0], ours[0])


def test_ctc_greedy_decoder_float64_and_errors():
    x64 = RS.randn(4, 2, 3)

    def script(tf):
        decoded, log_probs = tf.nn.ctc_greedy_decoder(tf.constant(x64), [4, 2])
        return lambda sess: _decoded(sess.run((decoded, log_probs)))

    theirs, ours = run_both(script)
    assert ours[3].dtype == np.float64
    assert_twins(theirs, ours)

    for tf in (real_tf.compat.v1, jtf):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.constant(x64.astype(np.float32))
            d, _ = tf.nn.ctc_greedy_decoder(x, [5, 2])
            d2, _ = tf.nn.ctc_greedy_decoder(x, [4, 2], blank_index=3)
            with tf.Session(graph=graph) as sess:
                with pytest.raises(
                    tf.errors.FailedPreconditionError, match=r"sequence_length\(0\) <= 4"
                ):
                    sess.run(d[0].values)
                with pytest.raises(
                    tf.errors.InvalidArgumentError,
                    match="blank_index expected to be between -3 and 2 but was 3",
                ):
                    sess.run(d2[0].values)


# -- ctc_loss_v2 (TF 2's API in compat.v1) ------------------------------------------------
V2_LABELS = np.array([[1, 2, 2, 0], [3, 3, 0, 0], [4, 1, 4, 2]], np.int32)
V2_LABEL_LENGTH = np.array([3, 2, 4], np.int32)


def _v2(kwargs, sparse=False, seq=SEQ, x=X):
    def script(tf):
        logits = tf.constant(x)
        if sparse:
            rows = [(b, i) for b in range(3) for i in range(V2_LABEL_LENGTH[b])]
            labels = tf.SparseTensor(
                np.array(rows, np.int64), np.array([V2_LABELS[r] for r in rows], np.int32), [3, 4]
            )
            length = None
        else:
            labels, length = V2_LABELS, V2_LABEL_LENGTH
        loss = tf.nn.ctc_loss_v2(labels, logits, length, seq, **kwargs)
        grad = tf.gradients(tf.reduce_sum(loss * [1.0, -0.5, 0.25]), logits)[0]
        shapes = (loss.shape.as_list(), grad.shape.as_list())
        return lambda sess: (*sess.run([loss, grad]), shapes)

    return run_both(script)


@pytest.mark.parametrize(
    "kwargs, sparse",
    [
        ({}, False),
        ({"blank_index": 2}, False),
        ({"blank_index": -1}, False),
        ({"blank_index": 0}, True),
        ({"blank_index": 2}, True),
        ({"blank_index": -3}, True),
    ],
    ids=[
        "dense",
        "dense-blank-2",
        "dense-blank--1",
        "sparse-blank-0",
        "sparse-blank-2",
        "sparse-blank--3",
    ],
)
def test_ctc_loss_v2(kwargs, sparse):
    (t_loss, t_grad, t_shapes), (o_loss, o_grad, o_shapes) = _v2(kwargs, sparse)
    assert o_shapes == t_shapes
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)


def test_ctc_loss_v2_batch_major_and_impossible_alignment():
    xb = np.transpose(X, [1, 0, 2]).copy()
    (t_loss, t_grad, _), (o_loss, o_grad, _) = _v2({"logits_time_major": False}, x=xb)
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)
    # dense labels longer than the frames: TF's dense path gives a finite loss, no error
    (t_loss, t_grad, _), (o_loss, o_grad, _) = _v2({}, seq=np.array([6, 1, 5], np.int32))
    assert np.all(np.isfinite(t_loss))
    assert_twins(t_loss, o_loss)
    assert_twins(t_grad, o_grad, atol=GRAD_ATOL)


def test_ctc_loss_v2_sparse_needs_blank_index():
    for tf in (real_tf.compat.v1, jtf):
        with tf.Graph().as_default():
            labels = tf.SparseTensor(INDICES, VALUES, [3, 4])
            with pytest.raises(ValueError, match="Argument `blank_index` must be provided"):
                tf.nn.ctc_loss_v2(labels, tf.constant(X), None, SEQ)


# -- ctc_unique_labels, collapse_repeated -------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_ctc_unique_labels(dtype):
    labels = np.array([[3, 4, 4, 3, 0], [1, 1, 2, 2, 2], [0, 5, 0, 5, 7]], dtype)

    def script(tf):
        fed = tf.placeholder(tf.as_dtype(dtype), [3, 5])
        y, idx = tf.nn.ctc_unique_labels(fed)
        shapes = [y.shape.as_list(), idx.shape.as_list()]
        return lambda sess: (sess.run([y, idx], {fed: labels}), shapes)

    (theirs, t_shapes), (ours, o_shapes) = run_both(script)
    assert_twins(theirs, ours)
    # TF's map_fn leaves the unique labels' width unknown; jtrain knows it
    assert t_shapes == [[3, None], [3, 5]] and o_shapes == [[3, 5], [3, 5]]


def test_collapse_repeated_of_constants():
    def script(tf):
        out = [
            tf.nn.collapse_repeated([[3, 4, 4, 3, 0], [1, 1, 2, 2, 2]], [5, 3]),
            tf.nn.collapse_repeated(
                tf.constant(np.array([[1, 1, 2], [3, 3, 3]], np.int64)),
                tf.constant([3, 2], tf.int64),
            ),
        ]
        shapes = [[t.shape.as_list() for t in pair] for pair in out]
        return lambda sess: (sess.run(out), shapes)

    (theirs, t_shapes), (ours, o_shapes) = run_both(script)
    assert o_shapes == t_shapes
    assert_twins(theirs, ours)


def test_collapse_repeated_of_computed_labels_raises():
    with jtf.Graph().as_default():
        labels = jtf.placeholder(jtf.int32, [2, 5])
        with pytest.raises(NotImplementedError, match="data-dependent shape"):
            jtf.nn.collapse_repeated(labels, [5, 3])


# -- ctc_beam_search_decoder --------------------------------------------------------------
def _beam(x, seq, v2=False, **kwargs):
    def script(tf):
        fn = tf.nn.ctc_beam_search_decoder_v2 if v2 else tf.nn.ctc_beam_search_decoder
        decoded, log_probs = fn(tf.constant(x), seq, **kwargs)
        shapes = [
            [
                [t.shape.as_list() for t in (sp.indices, sp.values, sp.dense_shape)]
                for sp in decoded
            ],
            log_probs.shape.as_list(),
        ]

        def run(sess):
            out, lp = sess.run((decoded, log_probs))
            return [(sp.indices, sp.values, sp.dense_shape) for sp in out], lp, shapes

        return run

    return run_both(script)


BEAM_CASES = [
    # (seed, time, batch, classes, rounded logits: ties)
    (0, 6, 3, 5, False),
    (1, 7, 2, 4, True),
    (2, 5, 2, 3, True),
    (3, 8, 1, 6, False),
]


@pytest.mark.parametrize("seed, steps, batch, classes, rounded", BEAM_CASES)
@pytest.mark.parametrize(
    "kwargs",
    [
        {"beam_width": 1},
        {"beam_width": 3, "top_paths": 2},
        {"beam_width": 5, "top_paths": 3, "merge_repeated": False},
        {},
        {"beam_width": 20, "top_paths": 4},
    ],
    ids=["w1", "w3-top2", "w5-top3-no-merge", "default", "w20-top4"],
)
def test_ctc_beam_search_decoder(seed, steps, batch, classes, rounded, kwargs):
    rs = np.random.RandomState(seed)
    x = rs.randn(steps, batch, classes).astype(np.float32)
    if rounded:
        x = np.round(x)
    seq = rs.randint(1, steps + 1, size=batch).astype(np.int32)

    def script(tf):
        decoded, log_probs = tf.nn.ctc_beam_search_decoder(tf.constant(x), seq, **kwargs)

        def run(sess):
            try:
                out, lp = sess.run((decoded, log_probs))
            except tf.errors.InvalidArgumentError as e:
                return e.message.split("\n")[-2 if "Node" in e.message else -1]
            return [(sp.indices, sp.values, sp.dense_shape) for sp in out], lp

        return run

    theirs, ours = run_both(script)
    if isinstance(theirs, str):  # fewer leaves than top_paths: TF's error
        assert isinstance(ours, str) and ours in theirs
        return
    # the paths bit for bit; the log-probabilities within an ulp (the C library's
    # log1pf, which jtrain's NumPy evaluates in double then rounds)
    assert_twins(theirs[0], ours[0])
    assert_twins(theirs[1], ours[1], rtol=2e-7)


def test_ctc_beam_search_decoder_v2_shapes_and_float64():
    rs = np.random.RandomState(7)
    x = rs.randn(5, 2, 4)
    theirs, ours = _beam(x, np.array([5, 3], np.int32), v2=True, beam_width=4, top_paths=2)
    assert ours[2] == theirs[2]
    assert ours[1].dtype == np.float64
    assert_twins(theirs[0], ours[0])
    # TF's LogSumExp corrects in float32 (glibc's log1pf, not correctly rounded): one
    # float32 ulp of the correction term, measured at most 1.5e-9 relative
    assert_twins(theirs[1], ours[1], rtol=1e-8)


def test_ctc_beam_search_decoder_errors():
    x = np.zeros((3, 1, 3), np.float32)
    for tf in (real_tf.compat.v1, jtf):
        graph = tf.Graph()
        with graph.as_default():
            decoded, _ = tf.nn.ctc_beam_search_decoder(
                tf.constant(x), [3], beam_width=2, top_paths=3
            )
            with tf.Session(graph=graph) as sess:
                with pytest.raises(
                    tf.errors.InvalidArgumentError, match="requested more paths than the beam width"
                ):
                    sess.run(decoded[0].values)
