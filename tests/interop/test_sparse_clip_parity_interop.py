"""Clipping and applying an embedding's sparse gradient (``tf.IndexedSlices`` with a
repeated id) under TF 2.21's ``compat.v1`` (classic TF1) and under ``adapters.v1``:
the same kind of result (``IndexedSlices`` or dense tensor), the same indices, and the
same values to the last bit."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers import assert_same_bits
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

EMB = (np.arange(15, dtype=np.float32).reshape(5, 3) * 0.37 + 0.11).astype(np.float32)
IDS = [1, 3, 1, 1, 4]  # id 1 three times: a dense conversion would sum its rows


def _sparse_grad(tf):
    """The embedding variable and its loss's gradient (an ``IndexedSlices``)."""
    emb = tf.Variable(EMB, name="emb")
    x = tf.nn.embedding_lookup(emb, tf.constant(IDS))
    loss = tf.reduce_sum(x * x) * 0.7
    return emb, loss, tf.gradients(loss, emb)[0]


def _fetch(tf, sess, t):
    """``(kind, values, indices, dense_shape)`` of an ``IndexedSlices``, ``(kind, value)``
    of a tensor."""
    if isinstance(t, tf.IndexedSlices):
        values, indices, shape = sess.run([t.values, t.indices, t.dense_shape])
        return ("IndexedSlices", values, indices, shape)
    return ("Tensor", sess.run(t))


@pytest.mark.parametrize(
    "clip",
    [
        pytest.param(lambda tf, g: tf.clip_by_value(g, -1.5, 2.0), id="clip_by_value"),
        pytest.param(lambda tf, g: tf.clip_by_norm(g, 3.0), id="clip_by_norm"),
        pytest.param(lambda tf, g: tf.clip_by_average_norm(g, 0.1), id="clip_by_average_norm"),
        pytest.param(
            lambda tf, g: tf.clip_by_global_norm([g], 3.0)[0][0], id="clip_by_global_norm"
        ),
    ],
)
def test_clip_of_indexed_slices_keeps_tf_kind_and_values(clip):
    """TF clips ``.values`` row by row and returns ``IndexedSlices`` for clip_by_value,
    clip_by_norm and clip_by_global_norm; clip_by_average_norm converts to a dense
    tensor first (duplicate rows summed)."""

    def script(tf):
        _, _, g = _sparse_grad(tf)
        assert isinstance(g, tf.IndexedSlices)
        out = clip(tf, g)
        return lambda sess: _fetch(tf, sess, out)

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    assert_twins(theirs[1:], ours[1:], rtol=0, atol=0)


def _norm_cases(dtype, count, seed):
    """``count`` lists of 1 to 4 arrays of random shapes (up to ~20000 elements, past
    Eigen's leaf of 1024 packets) and magnitudes (1e-3 to 1e3)."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        arrays = []
        for _ in range(int(rng.integers(1, 5))):
            rank = int(rng.integers(0, 4))
            shape = [int(rng.integers(1, 30)) for _ in range(rank)]
            scale = 10.0 ** int(rng.integers(-3, 4))
            arrays.append((rng.standard_normal(shape) * scale).astype(dtype))
        cases.append(arrays)
    return cases


# 60 float32 lists (about 150 arrays): with each clip built of TF's nodes (clip_ops), 200
# lists made a graph of about 3,000 nodes whose one step took 185 s to build and compile
@pytest.mark.parametrize(("dtype", "count"), [(np.float32, 60), (np.float64, 40)])
def test_global_norm_bit_exact_on_random_lists(dtype, count):
    """``tf.global_norm`` and ``tf.clip_by_global_norm``'s norm and clipped values equal
    TF's bit for bit: per-entry L2Loss (Eigen's packet order of x * x * 0.5), the Sum of
    their stack, * 2, sqrt (XLA's own reduction order was 1 ulp off in some cases)."""
    cases = _norm_cases(dtype, count, seed=7)

    def script(tf):
        fetches = []
        for arrays in cases:
            tensors = [tf.Variable(a) for a in arrays]  # no constant folding (grappler)
            clipped, norm = tf.clip_by_global_norm(tensors, 1.5)
            fetches.append((norm, clipped))
        fetches.append(tf.global_norm(tensors))
        return lambda sess: sess.run(fetches)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)


def test_clip_by_value_of_indexed_slices_in_a_training_step():
    """The usual ``[(tf.clip_by_value(g, -1, 1), v) for g, v in compute_gradients(loss)]``
    with an embedding whose id repeats: TF clips each looked-up row, so the variable
    moves by up to 3 * lr for the id looked up three times."""

    def script(tf):
        _, loss, _ = _sparse_grad(tf)
        opt = tf.train.GradientDescentOptimizer(0.1)
        pairs = [(tf.clip_by_value(g, -1.0, 1.0), v) for g, v in opt.compute_gradients(loss)]
        train = opt.apply_gradients(pairs)
        (emb,) = tf.global_variables()

        def run(sess):
            sess.run(train)
            return sess.run(emb)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)


@pytest.mark.parametrize("use_resource", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradient_descent_subtracts_repeated_rows_in_turn(dtype, use_resource):
    """GradientDescent's sparse update is TF's ScatterSub (ResourceScatterAdd of the
    negated step for a resource variable): each row of ``values * lr`` subtracted in the
    order of the indices, duplicates not summed first (summing first was 1 ulp off)."""
    rng = np.random.default_rng(3)
    init = rng.standard_normal((6, 4)).astype(dtype)
    values = (rng.standard_normal((40, 4)) * 10.0 ** rng.integers(-2, 3, (40, 1))).astype(dtype)
    indices = rng.integers(0, 6, 40).astype(np.int32)

    def script(tf):
        var = tf.get_variable("v", initializer=init, use_resource=use_resource)
        grad = tf.IndexedSlices(tf.constant(values), tf.constant(indices), tf.constant([6, 4]))
        train = tf.train.GradientDescentOptimizer(0.37).apply_gradients([(grad, var)])

        def run(sess):
            sess.run(train)
            sess.run(train)
            return sess.run(var)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)


SUMMING_OPTIMIZERS = {
    "Momentum": lambda tf: tf.train.MomentumOptimizer(0.37, 0.9),
    "Adagrad": lambda tf: tf.train.AdagradOptimizer(0.37),
    "Adam": lambda tf: tf.train.AdamOptimizer(0.037),
    "RMSProp": lambda tf: tf.train.RMSPropOptimizer(0.037),
    "ProximalGD": lambda tf: tf.train.ProximalGradientDescentOptimizer(0.37),
    "ProximalGD_l1_l2": lambda tf: tf.train.ProximalGradientDescentOptimizer(
        0.37, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "ProximalAdagrad": lambda tf: tf.train.ProximalAdagradOptimizer(0.37),
    "ProximalAdagrad_l1_l2": lambda tf: tf.train.ProximalAdagradOptimizer(
        0.37, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "AdagradDA": lambda tf: tf.train.AdagradDAOptimizer(0.37, tf.train.get_or_create_global_step()),
    "AdagradDA_l1_l2": lambda tf: tf.train.AdagradDAOptimizer(
        0.37,
        tf.train.get_or_create_global_step(),
        l1_regularization_strength=0.01,
        l2_regularization_strength=0.02,
    ),
    "Ftrl": lambda tf: tf.train.FtrlOptimizer(0.37),
    "Ftrl_l1_l2": lambda tf: tf.train.FtrlOptimizer(
        0.37, l1_regularization_strength=0.01, l2_regularization_strength=0.02
    ),
    "Ftrl_shrinkage": lambda tf: tf.train.FtrlOptimizer(
        0.37, l1_regularization_strength=0.01, l2_shrinkage_regularization_strength=0.05
    ),
    "Ftrl_power": lambda tf: tf.train.FtrlOptimizer(
        0.37, learning_rate_power=-0.3, l2_regularization_strength=0.02
    ),
    "Ftrl_power_shrinkage": lambda tf: tf.train.FtrlOptimizer(
        0.37, learning_rate_power=-0.7, l2_shrinkage_regularization_strength=0.05
    ),
}


@pytest.mark.parametrize("shape", [(6, 4), (30,)], ids=["rows_of_4", "rank_1"])
@pytest.mark.parametrize("name", sorted(SUMMING_OPTIMIZERS))
def test_other_optimizers_sum_repeated_rows_first(name, shape):
    """The other tf.train optimizers keep TF's base ``_apply_sparse_duplicate_indices``:
    duplicate rows summed first (``unsorted_segment_sum``), then the sparse kernel,
    three steps, the global step advancing (AdagradDA reads it). Rows of one element
    (a rank-1 variable) take the kernels' scalar loops, which write some formulas
    otherwise (Ftrl's ``pow`` and ``(linear + g) - sigma * var``); Ftrl and the
    proximal and dual-averaging kernels *assign* the rows they touch."""
    rng = np.random.default_rng(5)
    init = rng.standard_normal(shape).astype(np.float32)
    values = (
        rng.standard_normal((40, *shape[1:]))
        * 10.0 ** rng.integers(-2, 3, (40,) + (1,) * (len(shape) - 1))
    ).astype(np.float32)
    indices = rng.integers(0, shape[0], 40).astype(np.int32)

    def script(tf):
        var = tf.get_variable("v", initializer=init, use_resource=False)
        grad = tf.IndexedSlices(tf.constant(values), tf.constant(indices), tf.constant(shape))
        step = tf.train.get_or_create_global_step()
        train = SUMMING_OPTIMIZERS[name](tf).apply_gradients([(grad, var)], global_step=step)
        variables = sorted(tf.global_variables(), key=lambda v: v.name)

        def run(sess):
            for _ in range(3):
                sess.run(train)
            return sess.run(variables)

        return run

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)
    for t, o in zip(theirs, ours, strict=True):  # the bits: -0.0 is not 0.0
        if t.dtype == np.float32:
            np.testing.assert_array_equal(o.view(np.uint32), t.view(np.uint32))


def test_clip_by_norm_over_all_axes_bit_exact_on_random_tensors():
    """``tf.clip_by_norm(t, c)`` (``axes=None``) sums the squares in TF's order (Eigen's
    full reduction), so the clipped values equal TF's bit for bit (XLA's reduction was
    1 ulp off in the norm for about one case in five)."""
    cases = [arrays[0] for arrays in _norm_cases(np.float32, 60, seed=11)]

    def script(tf):
        outs = [tf.clip_by_norm(tf.Variable(a), 0.5) for a in cases]
        return lambda sess: sess.run(outs)

    theirs, ours = run_both(script)
    assert_twins(theirs, ours, rtol=0, atol=0)


# Functions differentiated through: TF's nodes, so ``tf.gradients`` is TF's graph.
THROUGH_CLIPS = {
    "clip_by_norm": lambda tf, x, y, c: [tf.clip_by_norm(x, 1.5)],
    "clip_by_norm axes": lambda tf, x, y, c: [tf.clip_by_norm(x, 1.5, axes=[1])],
    "clip_by_norm tensor": lambda tf, x, y, c: [tf.clip_by_norm(x, c, axes=[0])],
    "clip_by_norm negative": lambda tf, x, y, c: [tf.clip_by_norm(x, -c)],
    "global_norm": lambda tf, x, y, c: [tf.global_norm([x, None, y])],
    "clip_by_global_norm": lambda tf, x, y, c: tf.clip_by_global_norm([x, y], 2.0)[0],
    "clip_by_global_norm use_norm": lambda tf, x, y, c: tf.clip_by_global_norm(
        [x, None, y], c, use_norm=tf.norm(x) + c
    )[0][::2],
    "l2_loss": lambda tf, x, y, c: [x * tf.nn.l2_loss(x) + y],
}


@pytest.mark.parametrize("case", sorted(THROUGH_CLIPS))
def test_gradients_through_clipping_bit_for_bit(case):
    """``tf.gradients`` through ``clip_by_norm``, ``global_norm``,
    ``clip_by_global_norm`` and ``l2_loss``: TF's values and gradients to the last bit
    (JAX's derivative of one function left 22-37% of ``clip_by_norm``'s gradient and
    33-100% of ``clip_by_global_norm``'s off TF's; ``L2Loss``'s product met the other
    path's gradient in an FMA: 43% of ``x * l2_loss(x)``'s)."""
    rng = np.random.RandomState(3)
    xv, yv = (rng.randn(24, 8).astype(np.float32) for _ in range(2))
    weights = (np.arange(24 * 8) % 7 + 1).reshape(24, 8).astype(np.float32) / 7

    def script(tf):
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.placeholder(tf.float32, [None, 8])
        c = tf.placeholder(tf.float32, [])
        outs = THROUGH_CLIPS[case](tf, x, y, c)
        loss = tf.add_n([tf.reduce_sum(o * (weights if o.shape.ndims else 1.0)) for o in outs])
        grads = [g for g in tf.gradients(loss, [x, y, c]) if g is not None]
        return lambda sess: sess.run([outs, grads], {x: xv, y: yv, c: 1.25})

    theirs, ours = run_both(script)
    for t, o in zip(theirs[0] + theirs[1], ours[0] + ours[1], strict=True):
        assert_same_bits(o, t)


def test_clipping_node_names_and_the_norm_of_nothing_as_tf():
    """The tensors' names TF gives (``global_norm_1/global_norm``,
    ``clip_by_global_norm/clip_by_global_norm/_1``, a ``name`` as the scope), and the
    global norm of only ``None`` entries: 0.0 (TF stacks an empty list)."""

    def script(tf):
        x = tf.constant([3.0, 4.0])
        norms = [tf.global_norm([x]), tf.global_norm([None])]
        clipped, norm = tf.clip_by_global_norm([None, x, x], 2.0)
        named, named_norm = tf.clip_by_global_norm([x], 2.0, name="clip")
        by_norm = [tf.clip_by_norm(x, 1.0), tf.clip_by_norm(x, 1.0, name="cn")]
        tensors = [*norms, *clipped[1:], norm, *named, named_norm, *by_norm]
        return lambda sess: ([t.name for t in tensors], sess.run(tensors))

    theirs, ours = run_both(script)
    assert ours[0] == theirs[0]
    for t, o in zip(theirs[1], ours[1], strict=True):
        assert_same_bits(o, t)
