"""A TF1 ``MonitoredTrainingSession`` script, ported to ``adapters.v1``: same weights.

The script trains the MLP of ``test_adapters_interop.py`` (Adam, decaying learning
rate, the same fed batches) in ``MonitoredTrainingSession(checkpoint_dir=...,
save_checkpoint_steps=4, hooks=[StopAtStepHook, NanTensorHook, LoggingTensorHook])``.
The port reaches TF's weights, resumes from its own checkpoint directory to the
same end, writes event files TF's ``summary_iterator`` reads, and TF's Saver
restores the port's last checkpoint.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.test_adapters_interop import BATCHES, INIT, _jtrain_graph, _tf_graph

tf1 = real_tf.compat.v1


def _monitored(tf, build, checkpoint_dir, last_step):
    """The script: runs to ``last_step`` (resuming from ``checkpoint_dir``); final weights."""
    g, x, y, v, loss, train, _saver, _init = build()
    with g.as_default():
        tf.summary.scalar("mse", loss)
        final = tf.train.FinalOpsHook(v)
        hooks = [
            tf.train.StopAtStepHook(last_step=last_step),
            tf.train.NanTensorHook(loss),
            tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=2),
            final,
        ]
        latest = (
            tf.train.latest_checkpoint(checkpoint_dir) if os.path.isdir(checkpoint_dir) else None
        )
        step = int(latest.rsplit("-", 1)[1]) if latest else 0  # where the session will start
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=checkpoint_dir, save_checkpoint_steps=4, save_summaries_steps=2,
            hooks=hooks,
        ) as sess:  # fmt: skip
            while not sess.should_stop():
                xb, yb = BATCHES[step % len(BATCHES)]
                sess.run(train, {x: xb, y: yb})
                step += 1
    return final.final_ops_values


def test_monitored_training_session_matches_tf_and_resumes(tmp_path):
    tf_dir, jt_dir, jt_resumed = (str(tmp_path / d) for d in ("tf", "jt", "jt_resumed"))
    tf_values = _monitored(tf1, _tf_graph, tf_dir, 12)
    jt_values = _monitored(jtf, _jtrain_graph, jt_dir, 12)
    for name in INIT:
        np.testing.assert_allclose(jt_values[name], tf_values[name], rtol=1e-5, err_msg=name)
    # Checkpoints at the same steps: at creation, every 4 steps, at the end.
    tf_state = tf1.train.get_checkpoint_state(tf_dir)
    jt_state = jtf.train.get_checkpoint_state(jt_dir)
    base = [os.path.basename(p) for p in tf_state.all_model_checkpoint_paths]
    assert [os.path.basename(p) for p in jt_state.all_model_checkpoint_paths] == base
    # Stopped at 6 and run again, the port resumes from its own directory to TF's end.
    _monitored(jtf, _jtrain_graph, jt_resumed, 6)
    resumed = _monitored(jtf, _jtrain_graph, jt_resumed, 12)
    for name in INIT:
        np.testing.assert_allclose(resumed[name], tf_values[name], rtol=1e-5, err_msg=name)
    # TF's Saver restores the port's last checkpoint.
    g, x, y, v, loss, train, saver, init = _tf_graph()
    with tf1.Session(graph=g) as sess:
        saver.restore(sess, jtf.train.latest_checkpoint(jt_dir))
        back = sess.run(v)
        assert sess.run(tf1.train.get_global_step(g)) == 12
    for name in INIT:
        np.testing.assert_array_equal(back[name], jt_values[name], err_msg=name)


def test_event_files_read_by_tf(tmp_path):
    jt_dir = str(tmp_path / "jt")
    _monitored(jtf, _jtrain_graph, jt_dir, 6)
    jtf.summary.FileWriterCache.clear()
    files = [f for f in os.listdir(jt_dir) if f.startswith("events.out.tfevents")]
    assert len(files) == 1
    steps = {}
    for event in tf1.train.summary_iterator(os.path.join(jt_dir, files[0])):
        for value in event.summary.value:
            steps.setdefault(value.tag, []).append(event.step)
    assert steps["mse"] == [1, 3, 5]
    assert "global_step/sec" not in steps  # every 100 steps: not reached in 6


def _stop_trace(tf):
    """What ``should_stop``, ``run`` and ``close`` do after the Coordinator is asked to
    stop, plainly or with a thread's exception; what a hook's ``run_context`` holds."""
    trace = []

    class Grab(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            self.coord = coord

        def before_run(self, run_context):
            args = run_context.original_args
            trace.append(("args", args is run_context.original_args, type(args).__name__,
                          args.fetches is inc, sorted(args.feed_dict or {}) == [],
                          isinstance(run_context, tf.train.SessionRunContext)))  # fmt: skip

    for case in ("stop", "exception"):
        with tf.Graph().as_default():
            gs = tf.train.get_or_create_global_step()
            inc = tf.assign_add(gs, 1)
            hook = Grab()
            sess = tf.train.MonitoredSession(hooks=[hook])
            trace.append((case, sess.should_stop(), int(sess.run(inc))))
            if case == "stop":
                hook.coord.request_stop()
            else:
                try:
                    raise ValueError("boom")
                except ValueError:
                    hook.coord.request_stop(sys.exc_info())
            trace.append((case, sess.should_stop(), sess.should_stop(), int(sess.run(inc))))
            try:
                sess.close()
                trace.append((case, "closed"))
            except ValueError as e:
                trace.append((case, "close raised", str(e)))
            trace.append((case, sess.should_stop()))
    return trace


def test_should_stop_follows_the_coordinator_as_tf():
    assert _stop_trace(jtf) == _stop_trace(tf1)
