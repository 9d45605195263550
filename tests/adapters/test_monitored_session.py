"""MonitoredSession, MonitoredTrainingSession, Scaffold and SessionManager.

The order of hook calls, finalization and initialization is TF's documented one
(``monitored_session.py``'s docstrings); recovery is checked by injecting
``AbortedError``/``UnavailableError`` into steps with a host operation that runs
before the step program, at random steps, and comparing the final weights with
an uninterrupted run.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.training import basic_session_run_hooks as bh
from adapters.v1.training.session_manager import SessionManager
from jtrain import errors
from tests._helpers import compiles


class RecordingHook(tf.train.SessionRunHook):
    def __init__(self, trace, name="hook", fetches=None, stop_after=None):
        self.trace, self.name, self.fetches, self.stop_after = trace, name, fetches, stop_after
        self.results = []

    def begin(self):
        self.trace.append((self.name, "begin", tf.get_default_graph().finalized))
        self.report = tf.report_uninitialized_variables(tf.global_variables())

    def after_create_session(self, session, coord):
        ready = session.run(self.report)
        self.trace.append((self.name, "after_create_session", tf.get_default_graph().finalized,
                           len(ready)))  # fmt: skip
        assert not coord.should_stop()

    def before_run(self, run_context):
        self.trace.append((self.name, "before_run"))
        return tf.train.SessionRunArgs(self.fetches) if self.fetches is not None else None

    def after_run(self, run_context, run_values):
        self.trace.append((self.name, "after_run"))
        self.results.append(run_values.results)
        if self.stop_after is not None and len(self.results) >= self.stop_after:
            run_context.request_stop()

    def end(self, session):
        self.trace.append((self.name, "end"))


def _model():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(np.array([1.0, -2.0], np.float32), name="w")
    x = tf.jax_function(lambda s: np.float32(1.0) + s.astype(np.float32) * 0.1, [gs])
    loss = tf.jax_function(lambda v, a: ((v * a - 3.0) ** 2).sum(), [w, x], name="loss")
    train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=gs)
    return gs, w, loss, train


# -- order of calls ----------
def test_hook_call_order(graph):
    gs, w, loss, train = _model()
    trace = []
    hooks = [RecordingHook(trace, "a", fetches=gs), RecordingHook(trace, "b")]
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        assert trace == [
            ("a", "begin", False),
            ("b", "begin", False),
            ("a", "after_create_session", True, 0),  # finalized, initialized
            ("b", "after_create_session", True, 0),
        ]
        del trace[:]
        sess.run(train)
        sess.run(train)
        assert trace == [("a", "before_run"), ("b", "before_run"), ("a", "after_run"),
                         ("b", "after_run")] * 2  # fmt: skip
        del trace[:]
    assert trace == [("a", "end"), ("b", "end")]
    # The hook fetches the global step variable: its value after each step's update,
    # as TF1's ref variables give (tests/goldens/read_order: "custom"); no fetch -> None.
    assert hooks[0].results == [1, 2] and hooks[1].results == [None, None]
    assert not graph.finalized  # un-finalized on close, as it was not finalized before


def test_end_not_called_on_exception_and_graph_unfinalized(graph):
    gs, w, loss, train = _model()
    trace = []
    with pytest.raises(ZeroDivisionError):
        with tf.train.MonitoredSession(hooks=[RecordingHook(trace)]):
            raise ZeroDivisionError
    assert ("hook", "end") not in trace
    assert not graph.finalized


@pytest.mark.parametrize("exc", [errors.OutOfRangeError(None, None, "done"), StopIteration()])
def test_out_of_range_ends_with_block_cleanly(graph, exc):
    gs, w, loss, train = _model()
    trace = []
    with tf.train.MonitoredSession(hooks=[RecordingHook(trace)]) as sess:
        sess.run(train)
        raise exc
    assert trace[-1] == ("hook", "end")


def test_should_stop_follows_request_stop(graph):
    gs, w, loss, train = _model()
    with tf.train.MonitoredSession(hooks=[RecordingHook([], stop_after=3)]) as sess:
        n = 0
        while not sess.should_stop():
            sess.run(train)
            n += 1
        assert n == 3
        with pytest.raises(RuntimeError, match="Run called even after should_stop requested"):
            sess.run(train)
    assert sess.should_stop()  # a closed session should stop


def test_hook_feeds_merge_and_conflicts(graph):
    x = tf.placeholder("float32", [], name="x")
    y = tf.placeholder("float32", [], name="y")
    total = tf.jax_function(lambda a, b: a + b, [x, y])

    class Feeder(tf.train.SessionRunHook):
        def before_run(self, run_context):
            return tf.train.SessionRunArgs(None, feed_dict={y: 10.0})

    tf.train.get_or_create_global_step()
    with tf.train.MonitoredSession(hooks=[Feeder()]) as sess:
        assert sess.run(total, {x: 1.0}) == 11.0
        with pytest.raises(RuntimeError, match="Same tensor is fed by a SessionRunHook and user"):
            sess.run(total, {x: 1.0, y: 2.0})
    with tf.train.MonitoredSession(hooks=[Feeder(), Feeder()]) as sess:
        with pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"):
            sess.run(total, {x: 1.0})


def test_original_args_and_session_in_context(graph):
    gs, w, loss, train = _model()
    seen = []

    class Inspect(tf.train.SessionRunHook):
        def before_run(self, run_context):
            seen.append((run_context.original_args, run_context.session))

    with tf.train.SingularMonitoredSession(hooks=[Inspect()]) as sess:
        sess.run(train, feed_dict=None)
        assert seen == [(tf.train.SessionRunArgs(train, None), sess.raw_session())]
        assert isinstance(sess.raw_session(), tf.Session)
        assert sess.graph is graph


# -- run_step_fn ----------
def test_run_step_fn(graph):
    gs, w, loss, train = _model()
    trace = []
    with tf.train.MonitoredSession(hooks=[RecordingHook(trace)]) as sess:
        del trace[:]

        def step_fn(step_context):
            value = step_context.session.run(gs)  # no hooks
            step_context.run_with_hooks(train)
            return value

        assert sess.run_step_fn(step_fn) == 0
        assert trace == [("hook", "before_run"), ("hook", "after_run")]

        def stop(step_context):
            step_context.request_stop()

        with pytest.raises(StopIteration):
            sess.run_step_fn(stop)
        with pytest.raises(ValueError, match="`step_fn` may either have one `step_context`"):
            sess.run_step_fn(lambda a, b: None)


def test_run_step_fn_request_stop_ends_with_block(graph):
    gs, w, loss, train = _model()
    trace = []
    with tf.train.MonitoredSession(hooks=[RecordingHook(trace)]) as sess:
        while not sess.should_stop():
            sess.run_step_fn(lambda step_context: step_context.request_stop())
    assert trace[-1] == ("hook", "end")


# -- recovery ----------
def _faulty_model(fail_calls, error):
    """The model with a pre-step host op raising ``error`` on the chosen call numbers."""
    gs, w, loss, train = _model()
    calls = [0]

    def fault(session):
        calls[0] += 1
        if calls[0] in fail_calls:
            raise error(None, None, f"injected fault at call {calls[0]}")
        return (np.float32(0),)

    graph = tf.get_default_graph()
    probe = graph.create_op("Fault", "fault", compute=fault, output_specs=[((), np.float32)],
                            host="pre")  # fmt: skip
    step = tf.group(train, probe)
    return gs, w, step


def _train(checkpoint_dir, fail_calls=(), error=errors.AbortedError, last_step=30):
    g = tf.Graph()
    with g.as_default():
        gs, w, step = _faulty_model(set(fail_calls), error)
        final = tf.train.FinalOpsHook(w)
        hooks = [tf.train.StopAtStepHook(last_step=last_step), final]
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=checkpoint_dir, hooks=hooks, save_checkpoint_steps=4,
            save_summaries_steps=None, log_step_count_steps=None,
        ) as sess:  # fmt: skip
            runs = 0
            while not sess.should_stop():
                sess.run(step)
                runs += 1
        return final.final_ops_values, runs


@pytest.mark.parametrize("error", [errors.AbortedError, errors.UnavailableError])
def test_recovery_from_injected_faults(tmp_path, error):
    rng = np.random.default_rng(7)
    expected, runs = _train(str(tmp_path / "clean"))
    assert runs == 30
    for trial in range(2):
        fail_calls = set(rng.choice(np.arange(2, 40), size=4, replace=False).tolist())
        got, runs = _train(str(tmp_path / f"faulty{trial}"), fail_calls, error)
        np.testing.assert_array_equal(got, expected)
        assert runs > 30  # steps since the last checkpoint were redone


def test_singular_session_does_not_recover(graph, tmp_path):
    gs, w, step = _faulty_model({2}, errors.AbortedError)
    with tf.train.SingularMonitoredSession(checkpoint_dir=str(tmp_path)) as sess:
        sess.run(step)
        with pytest.raises(errors.AbortedError, match="injected fault at call 2"):
            sess.run(step)


def test_recovery_calls_after_create_session_again(graph, tmp_path):
    gs, w, step = _faulty_model({3}, errors.AbortedError)
    trace = []
    saver = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=1)
    with tf.train.MonitoredSession(
        session_creator=tf.train.ChiefSessionCreator(checkpoint_dir=str(tmp_path)),
        hooks=[saver, RecordingHook(trace)],
    ) as sess:
        for _ in range(3):
            sess.run(step)
        assert sess.run(gs) == 3
    creations = [t for t in trace if t[1] == "after_create_session"]
    assert len(creations) == 2
    assert [t for t in trace if t[1] == "begin"] == [("hook", "begin", False)]


# -- resuming from checkpoint_dir ----------
def test_monitored_training_session_resumes(tmp_path):
    d = str(tmp_path)
    _train(d, last_step=10)
    state = tf.train.get_checkpoint_state(d)
    assert os.path.basename(state.model_checkpoint_path) == "model.ckpt-10"
    g = tf.Graph()
    with g.as_default():
        gs, w, step = _faulty_model(set(), errors.AbortedError)
        final = tf.train.FinalOpsHook(w)
        hooks = [tf.train.StopAtStepHook(num_steps=5), final]
        with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=hooks,
                                               save_checkpoint_steps=100) as sess:  # fmt: skip
            assert sess.run(gs) == 10
            while not sess.should_stop():
                sess.run(step)
        resumed = final.final_ops_values
        assert sess._coordinated_creator.tf_sess is None  # closed: the session is released
    expected, _ = _train(str(tmp_path / "straight"), last_step=15)
    np.testing.assert_array_equal(resumed, expected)
    # The Saver adopted the restored checkpoints (recover_last_checkpoints): kept, not lost.
    names = [
        os.path.basename(p) for p in tf.train.get_checkpoint_state(d).all_model_checkpoint_paths
    ]
    assert names[-1] == "model.ckpt-15" and "model.ckpt-10" in names


def test_monitored_training_session_default_hooks(graph, tmp_path):
    gs, w, loss, train = _model()
    extra, chief = RecordingHook([]), RecordingHook([])
    sess = tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), hooks=[extra],
                                             chief_only_hooks=[chief])  # fmt: skip
    kinds = [type(h) for h in sess._hooks]
    assert kinds == [RecordingHook, bh.StepCounterHook, bh.SummarySaverHook,
                     bh.CheckpointSaverHook, RecordingHook]  # fmt: skip
    assert sess._hooks[0] is chief and sess._hooks[-1] is extra
    assert sess._hooks[1]._timer._every_steps == 100
    assert sess._hooks[2]._timer._every_steps == 100
    assert sess._hooks[3]._timer._every_secs == 600
    sess.close()
    # A worker whose "local" init initializes everything (no chief in this process).
    always_ready = tf.constant(np.zeros(0, np.int32))
    graph._unsafe_unfinalize()
    scaffold = tf.train.Scaffold(local_init_op=tf.global_variables_initializer(),
                                 ready_for_local_init_op=always_ready)  # fmt: skip
    worker = tf.train.MonitoredTrainingSession(is_chief=False, checkpoint_dir=str(tmp_path),
                                               hooks=[extra], chief_only_hooks=[chief],
                                               scaffold=scaffold)  # fmt: skip
    assert worker._hooks == [extra]
    worker.close()
    bare = tf.train.MonitoredTrainingSession()
    assert bare._hooks == []
    bare.close()


def test_summaries_written_by_default(graph, tmp_path):
    gs, w, loss, train = _model()
    tf.summary.scalar("xent", loss)
    with tf.train.MonitoredTrainingSession(
        checkpoint_dir=str(tmp_path), save_summaries_steps=2, log_step_count_steps=2,
        hooks=[tf.train.StopAtStepHook(last_step=5)],
    ) as sess:  # fmt: skip
        while not sess.should_stop():
            sess.run(train)
    tf.summary.FileWriterCache.clear()
    events = [f for f in os.listdir(tmp_path) if f.startswith("events.out.tfevents")]
    assert len(events) == 1
    tags, session_logs = [], []
    for event in tf.train.summary_iterator(os.path.join(tmp_path, events[0])):
        tags += [(v.tag, event.step) for v in event.summary.value]
        if event.HasField("session_log"):
            session_logs.append((event.session_log.status, event.step))
    assert [s for t, s in tags if t == "xent"] == [1, 3, 5]
    assert [s for t, s in tags if t == "global_step/sec"] == [3, 5]
    # CHECKPOINT (3) at creation and at the end (step 5); START (1) at the first summary step.
    assert session_logs == [(3, 0), (1, 1), (3, 5)]


# -- Scaffold and session creators ----------
def test_scaffold_defaults_and_copy(graph):
    gs, w, loss, train = _model()
    scaffold = tf.train.Scaffold().finalize()
    assert graph.finalized
    assert graph.get_collection(tf.GraphKeys.INIT_OP) == [scaffold.init_op]
    assert graph.get_collection(tf.GraphKeys.SAVERS) == [scaffold.saver]
    assert scaffold.summary_op is None  # no summaries in the graph
    graph._unsafe_unfinalize()
    copy = tf.train.Scaffold(copy_from_scaffold=scaffold, init_feed_dict={"a": 1})
    assert copy.init_op is scaffold.init_op and copy.saver is scaffold.saver
    assert copy.init_feed_dict == {"a": 1}
    with pytest.raises(TypeError, match="copy_from_scaffold is not a Scaffold instance"):
        tf.train.Scaffold(copy_from_scaffold=object())


def test_scaffold_rejects_two_in_a_collection(graph):
    _model()
    tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
    tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
    with pytest.raises(RuntimeError, match='More than one item in the collection "init_op"'):
        tf.train.Scaffold().finalize()


def test_scaffold_init_fn_gets_scaffold_and_session(graph):
    gs, w, loss, train = _model()
    seen = []
    scaffold = tf.train.Scaffold(init_fn=lambda sc, sess: seen.append((sc, sess)))
    with tf.train.SingularMonitoredSession(scaffold=scaffold) as sess:
        assert seen == [(scaffold, sess.raw_session())]


# -- SessionManager ----------
def test_session_manager_prepare_recover(graph, tmp_path):
    v = tf.Variable(3.0, name="v")
    loc = tf.Variable(5.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    init = tf.global_variables_initializer()
    saver = tf.train.Saver([v])
    sm = SessionManager(
        local_init_op=tf.local_variables_initializer(),
        ready_op=tf.report_uninitialized_variables(),
        ready_for_local_init_op=tf.report_uninitialized_variables(tf.global_variables()),
    )
    sess, ok = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert not ok
    sess = sm.prepare_session("", init_op=init, saver=saver, checkpoint_dir=str(tmp_path))
    assert sess.run([v, loc]) == [3.0, 5.0]
    sess.run(v.assign(7.0))
    saver.save(sess, str(tmp_path / "m"), global_step=1)
    sess2, ok = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert ok and sess2.run([v, loc]) == [7.0, 5.0]
    sess3 = sm.prepare_session("", init_op=init, saver=saver, checkpoint_dir=str(tmp_path))
    assert sess3.run(v) == 7.0  # restored, not initialized
    with pytest.raises(ValueError, match="Can not provide both"):
        sm.prepare_session("", saver=saver, checkpoint_dir="a", checkpoint_filename_with_path="b")


def test_session_manager_errors(graph):
    v = tf.Variable(3.0, name="v")
    with pytest.raises(ValueError, match="you must also pass a local_init_op"):
        SessionManager(ready_for_local_init_op=tf.report_uninitialized_variables())
    sm = SessionManager(ready_op=tf.report_uninitialized_variables())
    with pytest.raises(RuntimeError, match="no init_op or init_fn or local_init_op"):
        sm.prepare_session("")
    with pytest.raises(RuntimeError, match="Variables not initialized: v"):
        sm.prepare_session("", init_op=tf.no_op())
    del v


def test_wait_for_session_deadline(graph, monkeypatch):
    from adapters.v1.training import session_manager

    tf.Variable(3.0, name="v")
    clock = [0.0]
    monkeypatch.setattr(session_manager.time, "time", lambda: clock[0])

    def sleep(secs):
        clock[0] += secs

    monkeypatch.setattr(session_manager.time, "sleep", sleep)
    sm = SessionManager(ready_op=tf.report_uninitialized_variables(), recovery_wait_secs=1)
    with pytest.raises(errors.DeadlineExceededError, match="not ready after waiting 3"):
        sm.wait_for_session("", max_wait_secs=3)
    assert clock[0] == 3.0  # three waits; a fourth would end past the deadline


def test_worker_session_creator_waits_for_ready_model(graph):
    tf.Variable(3.0, name="v")
    creator = tf.train.WorkerSessionCreator(max_wait_secs=0)
    with pytest.raises(errors.DeadlineExceededError):
        creator.create_session()


def test_hooks_fetches_ride_on_the_callers_run(graph):
    """The hooks' fetches are merged into the caller's run: one raw Session.run a step."""
    gs, w, loss, train = _model()
    hooks = [
        tf.train.StopAtStepHook(last_step=1000),
        tf.train.NanTensorHook(loss),
        tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=100),
        tf.train.StepCounterHook(every_n_steps=100),
    ]
    with tf.train.SingularMonitoredSession(hooks=hooks) as sess:
        raw = sess.raw_session()
        calls = []
        run = raw._run  # what every run of the raw session goes through, once

        def counting_run(flat, feed_dict):
            calls.append(flat.unique)
            return run(flat, feed_dict)

        raw._run = counting_run
        for _ in range(10):
            sess.run(train)
    # 10 step runs, plus StepCounterHook's read of the global step on its first trigger
    # (TF's hook re-reads the step when its timer fires).
    step_runs = [u for u in calls if any(e is train for e in u) and any(e is loss for e in u)]
    assert len(step_runs) == 10
    assert len(calls) - len(step_runs) == 1


@pytest.mark.parametrize("kind", ["check_numerics", "histogram"])
def test_a_step_failing_at_run_time_calls_no_after_run(graph, kind):
    """As TF: a step whose run raises calls no hook's ``after_run``, not even that of a
    hook whose results (the global step, kept on the host) were known before the step's
    program ended: a program's run-time check (``check_numerics``) or a host operation
    after it (a histogram summary, which refuses NaN) fails the step."""
    gs, w, loss, train = _model()
    bad = loss * tf.constant(np.nan, tf.float32)
    if kind == "check_numerics":
        check = tf.check_numerics(bad, "bad loss")
    else:
        check = tf.summary.histogram("bad_loss", bad)
    trace = []
    hooks = [RecordingHook(trace, "step", fetches=gs), RecordingHook(trace, "loss", fetches=loss)]
    with tf.train.SingularMonitoredSession(hooks=hooks) as sess:
        sess.run(train)
        del trace[:]
        with pytest.raises(errors.InvalidArgumentError, match="bad"):
            sess.run([train, check])
        assert trace == [("step", "before_run"), ("loss", "before_run")]
        assert len(hooks[0].results) == len(hooks[1].results) == 1  # the first step only


def test_every_n_hooks_cost_no_recompilation(graph):
    """Steps where every-n hooks add fetches compile nothing new: the first step (all
    hooks fire) compiles the step program, and the steps after it, whose merged fetch
    structures differ (loss requested once, twice, or in another order), reuse it."""
    gs, w, loss, train = _model()
    hooks = [
        tf.train.StopAtStepHook(last_step=1000),
        tf.train.NanTensorHook(loss),
        tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=3),
        tf.train.StepCounterHook(every_n_steps=3),
    ]
    with tf.train.SingularMonitoredSession(hooks=hooks) as sess:
        sess.run([train, loss])  # step 0: every hook fires
        with compiles() as compiled:
            losses = [sess.run([train, loss])[1] for _ in range(8)]  # fires at 3 and 6
            sess.run([loss, train])  # the same fetches in another order
    assert compiled == []
    assert len(set(losses)) == 8  # each run trained a step


def test_every_n_hooks_with_other_fetch_sets_compile_only_in_the_first_cycle(graph, tmp_path):
    """Hooks whose every-n steps add fetches the caller does not ask for (summaries every
    2 steps, a logged tensor every 3, a checkpoint every 4) change the step's fetch set;
    each distinct set compiles once, in the first cycle of the cadences (12 steps), and
    never again."""
    gs, w, loss, train = _model()
    tf.summary.scalar("loss", loss)
    hooks = [
        tf.train.StopAtStepHook(last_step=1000),
        tf.train.NanTensorHook(loss),
        tf.train.LoggingTensorHook({"w": w.read_value()}, every_n_iter=3),
    ]
    with tf.train.MonitoredTrainingSession(
        checkpoint_dir=str(tmp_path), hooks=hooks, save_summaries_steps=2,
        save_checkpoint_steps=4, log_step_count_steps=3,
    ) as sess:  # fmt: skip
        for _ in range(12):
            sess.run([train, loss])
        raw = sess._tf_sess()
        step_plans = [p for p in raw._plans.values() if train in p.elements]
        with compiles() as compiled:
            losses = [sess.run([train, loss])[1] for _ in range(12)]
        assert [p for p in raw._plans.values() if train in p.elements] == step_plans
    assert len(step_plans) >= 3  # the cadences did change the fetch set
    assert compiled == []
    assert len(set(losses)) == 12  # each run trained a step


class _PickingHook(tf.train.SessionRunHook):
    """Returns ``pick(step)`` from before_run; records each step's results."""

    def __init__(self, pick):
        self.pick, self.steps, self.results = pick, 0, []

    def before_run(self, run_context):
        return self.pick(self.steps)

    def after_run(self, run_context, run_values):
        self.steps += 1
        self.results.append(run_values.results)


def test_steady_steps_reuse_the_merged_structure(graph, tmp_path, monkeypatch):
    """With TF's standard hooks and MonitoredTrainingSession's default chief hooks (the
    summary hook asks for a dict), steps between the hooks' triggers flatten nothing
    anew: the step before's merged structure is reused."""
    from adapters.v1.training import monitored_session as ms

    gs, w, loss, train = _model()
    hooks = [
        tf.train.StopAtStepHook(last_step=1000), tf.train.NanTensorHook(loss),
        tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=100),
        tf.train.StepCounterHook(every_n_steps=100),
    ]  # fmt: skip
    merges = []
    merged = ms._HookedSession._merged

    def counting(self, *args):
        merges.append(args)
        return merged(self, *args)

    monkeypatch.setattr(ms._HookedSession, "_merged", counting)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), hooks=hooks) as sess:
        for _ in range(3):
            sess.run([train, loss])
        del merges[:]
        steady = [sess.run([train, loss])[1] for _ in range(20)]
    assert merges == []
    assert len(set(steady)) == 20  # each run trained a step


_CHANGES = [
    "hook list grows", "hook list item replaced", "hook dict value replaced",
    "hook dict key renamed", "caller list grows", "hook alternates",
    "caller list item replaced", "caller dict value replaced", "caller nested item replaced",
]  # fmt: skip
# The caller's fetches before each change: its second item is replaced by the loss.
_CALLER_FETCHES = {
    "caller list item replaced": lambda train, w: [train, w],
    "caller dict value replaced": lambda train, w: {"op": train, "v": w},
    "caller nested item replaced": lambda train, w: [train, [w]],
}


@pytest.mark.parametrize("change", _CHANGES)
def test_hook_results_follow_what_each_step_asks_for(graph, change):
    """The merged structure of the step before is reused only for the very same
    requests fetching the very same elements: a hook's request object whose fetch list
    or dict it changes in place (an item added, replaced, or a key renamed), a caller's
    fetch list or dict changed in place (directly or in a nested list), and a hook
    alternating between requests each get the values of what that step asked for.
    (The global step Variable fetched gives its value after the step's update, as
    TF1's ref variables do: step n gives n + 1.)"""
    gs, w, loss, train = _model()
    step_read = gs.read_value()
    growing = tf.train.SessionRunArgs([gs])  # one object, its list changed below
    keyed = tf.train.SessionRunArgs({"v": gs})  # likewise its dict
    by_gs, by_w = tf.train.SessionRunArgs(gs), tf.train.SessionRunArgs(w)
    by_read = tf.train.SessionRunArgs(step_read)
    constant = _PickingHook(lambda n: by_gs)
    silent = _PickingHook(lambda n: None)
    in_place = {"hook list grows": growing, "hook list item replaced": growing,
                "hook dict value replaced": keyed, "hook dict key renamed": keyed}  # fmt: skip
    changing = {
        "hook alternates": _PickingHook(lambda n: by_gs if n % 2 else by_w),
    }.get(change) or _PickingHook(lambda n: in_place.get(change, by_read))
    fetches = _CALLER_FETCHES.get(change, lambda train, w: [train])(train, w)
    returned = []
    with tf.train.SingularMonitoredSession(hooks=[changing, constant, silent]) as sess:
        for step in range(6):
            if step == 3:
                if change == "hook list grows":
                    growing.fetches.append(loss)
                elif change == "hook list item replaced":
                    growing.fetches[0] = w
                elif change == "hook dict value replaced":
                    keyed.fetches["v"] = w
                elif change == "hook dict key renamed":
                    keyed.fetches["u"] = keyed.fetches.pop("v")
                elif change == "caller list grows":
                    fetches.append(loss)
                elif change == "caller list item replaced":
                    fetches[1] = loss
                elif change == "caller dict value replaced":
                    fetches["v"] = loss
                elif change == "caller nested item replaced":
                    fetches[1][0] = loss
            returned.append(sess.run(fetches))
    steps = list(range(1, 7))
    assert [int(r) for r in constant.results] == steps
    assert silent.results == [None] * 6
    if change == "hook list item replaced":
        assert [int(r[0]) for r in changing.results[:3]] == steps[:3]
        assert [np.shape(r[0]) for r in changing.results] == [()] * 3 + [(2,)] * 3
    elif change == "hook dict value replaced":
        assert [int(r["v"]) for r in changing.results[:3]] == steps[:3]
        assert [np.shape(r["v"]) for r in changing.results] == [()] * 3 + [(2,)] * 3
    elif change == "hook dict key renamed":
        assert [list(r) for r in changing.results] == [["v"]] * 3 + [["u"]] * 3
        assert [int(next(iter(r.values()))) for r in changing.results] == steps
    elif change == "hook list grows":
        assert [len(r) for r in changing.results] == [1, 1, 1, 2, 2, 2]
        assert [int(r[0]) for r in changing.results] == steps
        losses = [r[1] for r in changing.results[3:]]
        assert all(np.ndim(v) == 0 and np.isfinite(v) for v in losses) and len(set(losses)) == 3
    elif change == "caller list grows":
        assert [len(r) for r in returned] == [1, 1, 1, 2, 2, 2]
        losses = [r[1] for r in returned[3:]]
        assert all(np.ndim(v) == 0 and np.isfinite(v) for v in losses) and len(set(losses)) == 3
        assert np.all(np.diff([int(r) for r in changing.results]) == 1)
    elif change in _CALLER_FETCHES:
        second = [r["v"] if change == "caller dict value replaced" else r[1] for r in returned]
        if change == "caller nested item replaced":
            assert [len(r) for r in second] == [1] * 6
            second = [r[0] for r in second]
        assert [np.shape(v) for v in second] == [(2,)] * 3 + [()] * 3
        assert all(np.isfinite(v) for v in second[3:]) and len(set(second[3:])) == 3
        assert np.all(np.diff([int(r) for r in changing.results]) == 1)
    else:
        assert [np.shape(r) for r in changing.results] == [(2,), (), (2,), (), (2,), ()]
        assert [int(r) for r in changing.results[1::2]] == [2, 4, 6]


def test_hooks_around_a_session_of_the_users_own(graph):
    """A session creator returning another kind of session (here a wrapper with only
    ``run``): the merged fetches go to its ``run`` as one list, each hook gets its slot."""
    gs, w, loss, train = _model()

    class OwnSession:
        def __init__(self, sess):
            self.sess, self.runs = sess, []
            self.graph = sess.graph

        def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
            self.runs.append(fetches)
            return self.sess.run(fetches, feed_dict=feed_dict)

        def close(self):
            self.sess.close()

    class Creator(tf.train.SessionCreator):
        def create_session(self):
            self.made = OwnSession(tf.train.ChiefSessionCreator().create_session())
            return self.made

    creator = Creator()
    by_gs = _PickingHook(lambda n: tf.train.SessionRunArgs(gs))
    silent = _PickingHook(lambda n: None)
    with tf.train.MonitoredSession(session_creator=creator, hooks=[by_gs, silent]) as sess:
        returned = [sess.run([train, gs]) for _ in range(3)]
    assert creator.made.runs == [[gs, [train, gs]]] * 3
    assert [int(r) for r in by_gs.results] == [1, 2, 3]
    assert silent.results == [None] * 3
    assert [(r[0], int(r[1])) for r in returned] == [(None, 1), (None, 2), (None, 3)]
