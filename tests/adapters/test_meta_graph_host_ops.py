"""A jtrain ``.meta`` whose graph has host ops and random ops trains in a fresh process.

The graph: a ``FIFOQueue`` filled by a queue runner (``QUEUE_RUNNERS``) from
seeded random ops, ``dequeue_many``, dropout (a random op shaped like the batch),
a dense layer trained by GradientDescent, scalar and histogram summaries, and a
``py_func``. Saved with its ``.meta``, it is imported in a new Python process that
has no model code (``meta_graph_host_script.py``), restored, trained with a
``MonitoredSession`` (which starts the imported queue runner) and a
``SummarySaverHook`` over ``tf.summary.merge_all()``: its losses equal the
original graph's after the same restore (TF's seed semantics: a new session
restarts each random op's sequence from the graph-level and op seeds that
travelled in the meta graph), the summaries are written, and the ``py_func``
(whose Python function cannot travel) raises ``UnimplementedError`` naming it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

from adapters import v1 as tf
from tests.adapters import meta_graph_host_script as script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _build():
    tf.set_random_seed(11)
    queue = tf.FIFOQueue(32, [tf.float32, tf.int32], shapes=[[4], []], name="examples")
    xs = tf.random_normal([8, 4], seed=1, name="xs")
    ys = tf.random_uniform([8], maxval=3, dtype=tf.int32, seed=2, name="ys")
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue_many([xs, ys])]))
    x, y = queue.dequeue_many(8)
    logits = tf.layers.dense(tf.nn.dropout(x, keep_prob=0.75), 3, name="out")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    step = tf.train.get_or_create_global_step()
    tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("logits", logits)
    tf.py_func(lambda a: a * 2, [loss], tf.float32, name="doubled").set_shape([])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The graph after one training step, saved with its .meta; what ``train`` gives
    on the original graph from that checkpoint."""
    d = tmp_path_factory.mktemp("host_meta")
    with tf.Graph().as_default():
        _build()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            sess.run(tf.get_collection("train_op"))
            prefix = saver.save(sess, str(d / "model.ckpt"), global_step=1)
            coord.request_stop()
            sess.run(tf.get_default_graph().get_operation_by_name("examples_Close"))
            coord.join(threads)
        reference = script.train(tf, prefix, str(d / "original"))
    return prefix, reference, d


def test_imported_in_a_fresh_process_trains_and_writes_summaries(saved):
    prefix, reference, d = saved
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    out = subprocess.run(
        [
            sys.executable,
            os.path.join(HERE, "meta_graph_host_script.py"),
            prefix + ".meta",
            prefix,
            str(d / "imported"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if jax.default_backend() == "cpu":
        assert got["losses"] == reference["losses"]
    else:  # the reference trained on this machine's GPU, the import on its CPU
        np.testing.assert_allclose(got["losses"], reference["losses"], rtol=1e-6)
    assert np.all(np.diff(got["losses"]) != 0)
    assert got["step"] == reference["step"] == 4
    assert got["tags"] == reference["tags"] == ["logits", "loss"]
    assert got["n_tags"] == reference["n_tags"] > 0
    assert reference["py_func"] is None
    kind, message = got["py_func"]
    assert kind == "UnimplementedError"
    assert "'doubled' of op type PyFunc" in message
    assert "tf.py_func's Python function cannot travel in a meta graph" in message
