"""``tf.nn.rnn_cell`` cells' default initial weights under ``tf.set_random_seed``, bit for
bit against TF 2.21 in TF1 behaviour (``disable_v2_behavior()``, which ``adapters.v1``
follows and ported scripts call): ``tf.get_variable``'s ``glorot_uniform_initializer``
with the graph's op seeds.

A port found other kernels than TF's with ``twin.py``: its ``classic_tf1`` builds
graphs as classic TF1 does but leaves ``tf2.enabled()`` on, so tf_keras' legacy cells
take keras' ``GlorotUniform`` (a ``stateless_uniform`` seeded from Python's
``random``, ignoring ``tf.set_random_seed``; TF2 behaviour). Here TF runs with TF2
behaviour off: in process (``tf1_behaviour``) and in subprocesses calling
``disable_v2_behavior()``. jtrain's values were already these; the tests guard them.

Compared: every global variable's name, dtype, shape and bits (the cells' and a
``get_variable``/``random_uniform`` made after them), and the outputs of one run.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
X = (np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5) - 20.0) / 13.0

CELLS = {
    "BasicRNNCell": lambda tf: tf.nn.rnn_cell.BasicRNNCell(3),
    "BasicLSTMCell": lambda tf: tf.nn.rnn_cell.BasicLSTMCell(3),
    "LSTMCell(num_proj, use_peepholes)": lambda tf: tf.nn.rnn_cell.LSTMCell(
        3, num_proj=2, use_peepholes=True
    ),
    "GRUCell": lambda tf: tf.nn.rnn_cell.GRUCell(3),
    "MultiRNNCell": lambda tf: tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.GRUCell(2)]
    ),
}
# (graph seed, random ops made before the cell)
SEEDS = [(7, 0), (1, 3), (123, 1)]


def _build(tf, cell_name: str, driver: str, seed: int, before: int):
    """The graph: ``before`` random ops, the cell run by ``driver``, then a
    ``get_variable`` and a ``random_uniform``. Returns ``{name: tensor}`` to fetch."""
    tf.set_random_seed(seed)
    for _ in range(before):
        tf.random_normal([2])
    cell = CELLS[cell_name](tf)
    x = tf.constant(X)
    if driver == "dynamic_rnn":
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    else:
        outputs, _ = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
        outputs = tf.stack(outputs, axis=1)
    tf.get_variable("after", [2, 2])
    fetch = {"random_after": tf.random_uniform([3]), "outputs": outputs}
    for v in tf.global_variables():
        fetch[v.op.name] = v
    return fetch


@contextlib.contextmanager
def tf1_behaviour():
    """TF's ``tf2.enabled()`` off (what ``disable_v2_behavior()`` sets for tf_keras),
    restored after."""
    from tensorflow.python import tf2

    was = tf2.enabled()
    tf2.disable()
    try:
        yield
    finally:
        if was:
            tf2.enable()


def _assert_bits(theirs: dict, ours: dict) -> None:
    assert sorted(ours) == sorted(theirs)
    for name, value in theirs.items():
        mine = np.asarray(ours[name])
        value = np.asarray(value)
        assert (mine.dtype, mine.shape) == (value.dtype, value.shape), name
        if name != "outputs":
            assert mine.tobytes() == value.tobytes(), name


@pytest.mark.parametrize("seed,before", SEEDS)
@pytest.mark.parametrize("driver", ["dynamic_rnn", "static_rnn"])
@pytest.mark.parametrize("cell_name", list(CELLS))
def test_default_initial_weights(cell_name, driver, seed, before):
    def script(tf):
        fetch = _build(tf, cell_name, driver, seed, before)
        return lambda sess: sess.run(fetch)

    with tf1_behaviour():
        theirs, ours = run_both(script)
    _assert_bits(theirs, ours)
    assert_twins(theirs["outputs"], ours["outputs"], rtol=1e-5, atol=1e-6)


def test_scope_and_cell_initializers_win():
    """A variable scope's initializer, or the cell's own, replaces the default; the GRU
    gates' bias is ones; float64 weights."""

    def script(tf):
        tf.set_random_seed(5)
        x = tf.constant(X[:, 0])
        with tf.variable_scope("scoped", initializer=tf.random_uniform_initializer(-1.0, 1.0)):
            tf.nn.rnn_cell.BasicLSTMCell(3)(x, tf.nn.rnn_cell.LSTMStateTuple(x[:, :3], x[:, :3]))
        own = tf.nn.rnn_cell.LSTMCell(
            3, use_peepholes=True, initializer=tf.random_uniform_initializer(seed=2)
        )
        own(x, tf.nn.rnn_cell.LSTMStateTuple(x[:, :3], x[:, :3]))
        x64 = tf.constant(X[:, 0].astype(np.float64))
        tf.nn.rnn_cell.GRUCell(2, name="gru64")(x64, x64[:, :2])
        tf.get_variable("after", [2])
        fetch = {v.op.name: v for v in tf.global_variables()}
        return lambda sess: sess.run(fetch)

    with tf1_behaviour():
        theirs, ours = run_both(script)
    _assert_bits(theirs, ours)
    assert ours["gru64/gates/bias"].dtype == np.float64
    assert np.all(ours["gru64/gates/bias"] == 1.0)


_TF1_SCRIPT = """
import random, sys
import numpy as np
sys.path.insert(0, {root!r})
if sys.argv[1] == "tf":
    import tensorflow.compat.v1 as tf
else:
    from adapters import v1 as tf
tf.disable_v2_behavior()
from tests.interop.test_rnn_cells_seeded_interop import CELLS, SEEDS, _build
random.seed(0)
results = {{}}
for cell_name in CELLS:
    for seed, before in SEEDS:
        with tf.Graph().as_default():
            fetch = _build(tf, cell_name, "dynamic_rnn", seed, before)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for name, value in sess.run(fetch).items():
                    results[f"{{cell_name}}|{{seed}}|{{name}}"] = value
results["python random after"] = np.array(random.random())
np.savez(sys.argv[2], **results)
"""


def test_default_initial_weights_after_disable_v2_behavior(tmp_path):
    """Scripts calling ``disable_v2_behavior()`` (TF's; jtrain's is a no-op for the
    cells), Python's ``random`` left alone by both. Each cell under ``dynamic_rnn``
    (``test_default_initial_weights`` runs ``static_rnn`` too)."""
    script = tmp_path / "tf1_cells.py"
    script.write_text(_TF1_SCRIPT.format(root=ROOT))
    env = dict(
        os.environ,
        TF_USE_LEGACY_KERAS="1",
        TF_CPP_MIN_LOG_LEVEL="2",
        JAX_PLATFORMS="cpu",
        CUDA_VISIBLE_DEVICES="",
    )
    results = {}
    for side in ("tf", "jtrain"):
        out = tmp_path / f"{side}.npz"
        subprocess.run([sys.executable, str(script), side, str(out)], env=env, check=True, cwd=ROOT)
        with np.load(out) as data:
            results[side] = {k: data[k] for k in data.files}
    theirs, ours = results["tf"], results["jtrain"]
    assert len(theirs) == 106  # 3 seeds x (20 weights of the 5 cells + 3 fetches a cell); 1
    _assert_bits(
        {k: v for k, v in theirs.items() if not k.endswith("|outputs")},
        {k: v for k, v in ours.items() if not k.endswith("|outputs")},
    )
    for key in theirs:
        if key.endswith("|outputs"):
            assert_twins(theirs[key], ours[key], rtol=1e-5, atol=1e-6)
