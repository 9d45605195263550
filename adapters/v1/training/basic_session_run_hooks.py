"""TF's basic ``SessionRunHook``s (``tf.compat.v1.train.*Hook``), plus a progress hook.

Each hook follows TF's ``basic_session_run_hooks.py``: what it fetches in
``before_run`` (merged into the caller's ``run``), when its timer triggers, when
it re-reads the global step after the step ran, what it writes. Time-based
triggers read ``time.time()`` through this module's ``time`` (tests patch it).

Summaries and events go through ``adapters.v1.summary.FileWriterCache`` (imported
when a hook needs a writer): ``add_summary(serialized Summary, global_step)``,
``add_event(Event)``, ``flush()``.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.training import training_util
from adapters.v1.training.session_run_hook import SessionRunArgs, SessionRunHook
from jtrain import errors

__all__ = [
    "SecondOrStepTimer",
    "LoggingTensorHook",
    "StopAtStepHook",
    "CheckpointSaverListener",
    "CheckpointSaverHook",
    "StepCounterHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "SummarySaverHook",
    "GlobalStepWaiterHook",
    "FinalOpsHook",
    "FeedFnHook",
    "ProfilerHook",
    "ProgressHook",
]

_log = logging.getLogger("adapters.v1.training")

GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def _get_or_create_global_step_read(graph: ops.Graph | None = None) -> Any:
    """TF's ``training_util._get_or_create_global_step_read``: one read of the global
    step per graph (cached in a collection), the value before the step's update."""
    graph = graph or ops.get_default_graph()
    cached = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = training_util.get_global_step(graph)
    if step is None:
        return None
    if hasattr(step, "read_value"):
        with graph.as_default(), graph.control_dependencies(None):
            read = step.read_value()
    else:
        read = step
    graph.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read


def _summary_writer(logdir: str) -> Any:
    """``FileWriterCache.get(logdir)``; None while ``adapters.v1.summary`` is absent."""
    try:
        from adapters.v1.summary import FileWriterCache
    except ModuleNotFoundError as e:
        if e.name != "adapters.v1.summary":
            raise
        return None
    return FileWriterCache.get(logdir)


def _write_graph_files(logdir: str, writer: Any, saver: Any) -> None:
    """``logdir/graph.pbtxt``, then the graph and meta graph events (TF's order)."""
    from adapters.v1.framework import graph_io, meta_graph

    graph = ops.get_default_graph()
    graph_def = graph.as_graph_def(add_shapes=True)
    graph_io.write_graph(graph_def, logdir, "graph.pbtxt")
    if writer is not None:
        saver_def = saver.saver_def if saver is not None else None
        writer.add_graph(graph)
        writer.add_meta_graph(
            meta_graph.create_meta_graph_def(graph_def=graph_def, saver_def=saver_def)
        )


def _add_session_log(writer: Any, step: int, status: str, checkpoint_path: str = "") -> None:
    from jtrain.protos import event_pb2

    log = event_pb2.SessionLog(status=getattr(event_pb2.SessionLog, status))
    if checkpoint_path:
        log.checkpoint_path = checkpoint_path
    event = event_pb2.Event(wall_time=time.time(), step=int(step), session_log=log)
    writer.add_event(event)


def _scalar_summary(tag: str, value: float) -> bytes:
    from jtrain.protos import summary_pb2

    return summary_pb2.Summary(
        value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)]
    ).SerializeToString()


# -- timers ----------
class _HookTimer:
    """Base of the timers deciding when a hook triggers."""

    def reset(self) -> None:
        pass

    def should_trigger_for_step(self, step: int) -> bool:
        raise NotImplementedError

    def update_last_triggered_step(self, step: int) -> tuple[float | None, int | None]:
        raise NotImplementedError

    def last_triggered_step(self) -> int | None:
        raise NotImplementedError


class SecondOrStepTimer(_HookTimer):
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps (exactly one).

    ``should_trigger_for_step(step)`` is true on the first call, never twice for the
    same step, then once ``every_steps`` steps or ``every_secs`` seconds have passed
    since the last ``update_last_triggered_step``.

    Raises:
      ValueError: neither or both of ``every_secs`` and ``every_steps`` are given.
    """

    def __init__(self, every_secs: float | None = None, every_steps: int | None = None):
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")
        self._every_secs = every_secs
        self._every_steps = every_steps
        self.reset()

    def reset(self) -> None:
        self._last: tuple[float, int] | None = None  # (time, step) of the last trigger

    def should_trigger_for_step(self, step: int) -> bool:
        if self._last is None:
            return True
        then, last_step = self._last
        if step == last_step:
            return False
        if self._every_secs is not None:  # exactly one of the two periods is set
            return time.time() >= then + self._every_secs
        return step >= last_step + self._every_steps

    def update_last_triggered_step(self, step: int) -> tuple[float | None, int | None]:
        """Records a trigger at ``step``; returns (seconds, steps) since the last one."""
        previous, self._last = self._last, (time.time(), step)
        if previous is None:
            return None, None
        return self._last[0] - previous[0], step - previous[1]

    def last_triggered_step(self) -> int | None:
        return None if self._last is None else self._last[1]


class NeverTriggerTimer(_HookTimer):
    """A timer that never triggers."""

    def should_trigger_for_step(self, step: int) -> bool:
        return False

    def update_last_triggered_step(self, step: int) -> tuple[None, None]:
        return (None, None)

    def last_triggered_step(self) -> None:
        return None


def _as_graph_element(obj: Any) -> Any:
    """A tensor of the default graph: ``obj`` itself or the tensor a name names."""
    graph = ops.get_default_graph()
    if not isinstance(obj, str):
        if getattr(obj, "graph", None) is not graph:
            raise ValueError(
                f"Passed {obj} should have graph attribute that is equal to current graph {graph}."
            )
        return obj
    return graph.as_graph_element(obj if ":" in obj else obj + ":0")


def _require_global_step(hook: str) -> Any:
    step = _get_or_create_global_step_read()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook}.")
    return step


# -- logging and stopping ----------
class LoggingTensorHook(SessionRunHook):
    """Logs the values of tensors every N local steps, every N seconds, or at the end.

    Args:
      tensors: a dict ``tag -> tensor`` or an iterable of tensors / tensor names.
      every_n_iter: log every N local (not global) steps.
      every_n_secs: log every N seconds.
      at_end: also log at the end (``end`` runs the tensors once more).
      formatter: ``dict(tag -> value) -> str``; default ``"tag = value, ..."``.

    Raises:
      ValueError: neither ``at_end`` alone nor exactly one of ``every_n_iter`` and
        ``every_n_secs``; ``every_n_iter <= 0``.
    """

    def __init__(
        self,
        tensors: Any,
        every_n_iter: int | None = None,
        every_n_secs: float | None = None,
        at_end: bool = False,
        formatter: Any = None,
    ):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError(
                "either at_end and/or exactly one of every_n_iter and every_n_secs must be "
                "provided."
            )
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = (
            NeverTriggerTimer()
            if only_log_at_end
            else SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter)
        )
        self._log_at_end = at_end

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}
        self._args = SessionRunArgs(self._current_tensors)

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return self._args if self._should_trigger else None

    def _log_tensors(self, tensor_values: dict) -> None:
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                _log.info(self._formatter(tensor_values))
            else:
                stats = ", ".join(f"{tag} = {tensor_values[tag]}" for tag in self._tag_order)
                if elapsed_secs is not None:
                    _log.info("%s (%.3f sec)", stats, elapsed_secs)
                else:
                    _log.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StopAtStepHook(SessionRunHook):
    """Requests a stop at a global step: ``num_steps`` after the session's first step,
    or at ``last_step``.

    Raises:
      ValueError: neither or both of ``num_steps`` and ``last_step``.
      RuntimeError: (in ``begin``) the graph has no global step.
    """

    def __init__(self, num_steps: int | None = None, last_step: int | None = None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self) -> None:
        self._global_step_tensor = _require_global_step("StopAtStepHook")
        self._args = SessionRunArgs(self._global_step_tensor)

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):
        return self._args

    def after_run(self, run_context, run_values):
        global_step = int(run_values.results) + 1  # Python ints: NumPy scalar math is slow
        if global_step >= self._last_step:
            # The read is the value before the step; check the step really got there.
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._last_step:
                run_context.request_stop()


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self) -> str:
        return "NaN loss during training."


_FLOAT_SCALARS = frozenset({float, np.float16, np.float32, np.float64})


class NanTensorHook(SessionRunHook):
    """Stops when the loss is NaN: raises ``NanLossDuringTrainingError``, or with
    ``fail_on_nan_loss=False`` logs a warning and requests a stop."""

    def __init__(self, loss_tensor: Any, fail_on_nan_loss: bool = True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss
        self._args = SessionRunArgs(loss_tensor)

    def before_run(self, run_context):
        return self._args

    def after_run(self, run_context, run_values):
        loss = run_values.results
        # A float scalar is NaN when it differs from itself (np.isnan costs ~1 us a step).
        if loss != loss if type(loss) in _FLOAT_SCALARS else np.isnan(loss):
            failure_message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _log.error(failure_message)
                raise NanLossDuringTrainingError
            _log.warning(failure_message)
            run_context.request_stop()


# -- checkpoints ----------
class CheckpointSaverListener:
    """Called by ``CheckpointSaverHook`` around each save.

    ``after_save`` returning True asks the training loop to stop.
    """

    def begin(self) -> None:
        pass

    def before_save(self, session: Any, global_step_value: int) -> None:
        pass

    def after_save(self, session: Any, global_step_value: int) -> bool | None:
        pass

    def end(self, session: Any, global_step_value: int) -> None:
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves checkpoints every N steps or seconds, at session creation and at the end.

    Args:
      checkpoint_dir: directory of the checkpoints (``checkpoint_basename``-STEP).
      save_secs: save every this many seconds (give exactly one of the two).
      save_steps: save every this many steps.
      saver: the ``Saver``; else the scaffold's; else the one in ``SAVERS``.
      checkpoint_basename: default ``"model.ckpt"``.
      scaffold: a ``Scaffold`` whose saver to use.
      listeners: ``CheckpointSaverListener``s.
      save_graph_def: write ``graph.pbtxt`` into ``checkpoint_dir`` and the graph
        and meta graph events when the session is created, and each checkpoint's
        ``.meta`` (default True, as TF).

    Raises:
      ValueError: both ``saver`` and ``scaffold``; neither or both of the periods.
    """

    def __init__(
        self,
        checkpoint_dir: str,
        save_secs: float | None = None,
        save_steps: int | None = None,
        saver: Any = None,
        checkpoint_basename: str = "model.ckpt",
        scaffold: Any = None,
        listeners: list | None = None,
        save_graph_def: bool = True,
    ):
        _log.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1
        self._save_graph_def = save_graph_def
        self._summary_writer = None

    def _set_steps_per_run(self, steps_per_run: int) -> None:
        self._steps_per_run = steps_per_run

    def begin(self) -> None:
        self._summary_writer = _summary_writer(self._checkpoint_dir)
        self._global_step_tensor = _require_global_step("CheckpointSaverHook")
        self._args = SessionRunArgs(self._global_step_tensor)
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        global_step = int(session.run(self._global_step_tensor))
        if self._save_graph_def:
            # As TF: once other hooks' begin() changed the graph and it is finalized.
            _write_graph_files(self._checkpoint_dir, self._summary_writer, self._get_saver())
        # The checkpoint saved here is the state at step "global_step".
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return self._args

    def after_run(self, run_context, run_values):
        stale_global_step = int(run_values.results)  # Python ints: NumPy scalar math is slow
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = int(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session: Any, step: int) -> bool:
        """Saves; returns True when a listener asked to stop."""
        _log.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(
            session, self._save_path, global_step=step, write_meta_graph=self._save_graph_def
        )
        if self._summary_writer is not None:
            _add_session_log(self._summary_writer, step, "CHECKPOINT", self._save_path)
        _log.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _log.info(
                    "A CheckpointSaverListener requested that training be stopped. listener: %s",
                    listener,
                )
                should_stop = True
        return should_stop

    def _get_saver(self) -> Any:
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = ops.get_collection(ops.GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(
                f"No items in collection {ops.GraphKeys.SAVERS}. Please add a saver to the "
                "collection or provide a saver or scaffold."
            )
        if len(savers) > 1:
            raise RuntimeError(
                f"More than one item in collection {ops.GraphKeys.SAVERS}. Please indicate "
                "which one to use by passing it to the constructor."
            )
        self._saver = savers[0]
        return savers[0]


# -- counting and summaries ----------
class StepCounterHook(SessionRunHook):
    """Logs (and writes as the summary ``global_step/sec``) the global steps per second.

    Args:
      every_n_steps: default 100; every_n_secs: exactly one of the two.
      output_dir: where the summary writer writes (``FileWriterCache``).
      summary_writer: a writer to use instead.

    Raises:
      ValueError: neither or both periods.
      RuntimeError: (in ``begin``) no global step.
    """

    def __init__(
        self,
        every_n_steps: int | None = 100,
        every_n_secs: float | None = None,
        output_dir: str | None = None,
        summary_writer: Any = None,
    ):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1
        self._warned = 0

    def _set_steps_per_run(self, steps_per_run: int) -> None:
        self._steps_per_run = steps_per_run

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = _summary_writer(self._output_dir)
        self._global_step_tensor = _require_global_step("StepCounterHook")
        self._args = SessionRunArgs(self._global_step_tensor)
        self._summary_tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return self._args

    def _log_and_record(self, elapsed_steps: int, elapsed_time: float, global_step: int) -> None:
        steps_per_sec = elapsed_steps / elapsed_time
        if self._summary_writer is not None:
            self._summary_writer.add_summary(
                _scalar_summary(self._summary_tag, steps_per_sec), global_step
            )
        _log.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values):
        stale_global_step = int(run_values.results)  # Python ints: NumPy scalar math is slow
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step and self._warned < 5:
            self._warned += 1
            _log.warning(
                "It seems that global step (tf.train.get_global_step) has not been increased. "
                "Current value (could be stable): %s vs previous value: %s. You could increase "
                "the global step by passing tf.train.get_global_step() to "
                "Optimizer.apply_gradients or Optimizer.minimize.",
                stale_global_step,
                self._last_global_step,
            )
        self._last_global_step = stale_global_step


class SummarySaverHook(SessionRunHook):
    """Runs the summary op every N steps or seconds and writes its result.

    Args:
      save_steps: save every this many steps (give exactly one of the two).
      save_secs: save every this many seconds.
      output_dir: where the writer writes (``FileWriterCache``).
      summary_writer: a writer to use instead.
      scaffold: a ``Scaffold`` whose ``summary_op`` to run; or
      summary_op: a serialized-``Summary`` tensor or a list of them (exactly one of
        ``scaffold`` and ``summary_op``).

    Raises:
      ValueError: not exactly one of ``scaffold`` and ``summary_op``; periods.
    """

    def __init__(
        self,
        save_steps: int | None = None,
        save_secs: float | None = None,
        output_dir: str | None = None,
        summary_writer: Any = None,
        scaffold: Any = None,
        summary_op: Any = None,
    ):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = _summary_writer(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _require_global_step("SummarySaverHook")
        self._plain_args = SessionRunArgs({"global_step": self._global_step_tensor})
        self._summary_args = None

    def _get_summary_op(self) -> list | None:
        summary_op = self._summary_op
        if summary_op is None:
            summary_op = self._scaffold.summary_op
        if summary_op is None:
            return None
        return summary_op if isinstance(summary_op, list) else [summary_op]

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(
            self._next_step
        )
        if not self._request_summary:
            return self._plain_args
        if self._summary_args is None:
            requests = {"global_step": self._global_step_tensor}
            summary_op = self._get_summary_op()
            if summary_op is not None:
                requests["summary"] = summary_op
            self._summary_args = SessionRunArgs(requests)
        return self._summary_args

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        # Python ints: NumPy scalar math is slow (and the timer compares it next step)
        stale_global_step = int(run_values.results["global_step"])
        global_step = stale_global_step + 1
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            _add_session_log(self._summary_writer, global_step, "START")
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()


# -- others ----------
class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first step until the global step reaches ``wait_until_step``
    (a worker waiting for the chief). Polls every 0.5 s, as TF."""

    def __init__(self, wait_until_step: int):
        self._wait_until_step = wait_until_step

    def begin(self) -> None:
        self._worker_is_started = False
        self._global_step_tensor = _require_global_step("_GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _log.info("Waiting for global step %d before starting training.", self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                _log.info(
                    "Waiting for global step %d before starting training. Current step is %d.",
                    self._wait_until_step,
                    current_step,
                )
                last_logged_step = current_step
            time.sleep(0.5)


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` in ``end``; their values in ``final_ops_values``."""

    def __init__(self, final_ops: Any, final_ops_feed_dict: dict | None = None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self) -> Any:
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is not None:
            try:
                self._final_ops_values = session.run(
                    self._final_ops, feed_dict=self._final_ops_feed_dict
                )
            except (errors.OutOfRangeError, StopIteration):
                _log.warning(
                    "An OutOfRangeError or StopIteration exception is raised by the code in "
                    "FinalOpsHook. This typically means the Ops running by the FinalOpsHook "
                    "have a dependency back to some input source, which should not happen."
                )
                raise


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()``'s feeds to every run."""

    def __init__(self, feed_fn: Any):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class ProfilerHook(SessionRunHook):
    """Captures a ``jax.profiler`` trace of one step every N steps or seconds.

    TF writes a Chrome trace ``timeline-STEP.json``; jtrain writes a ``jax.profiler``
    trace of the triggered step under ``output_dir`` (``plugins/profile/...``, which
    TensorBoard's profile plugin opens, with a Perfetto ``perfetto_trace.json.gz``).
    As in TF, the first step is never traced. ``show_dataflow``/``show_memory`` are
    accepted and ignored.
    """

    def __init__(
        self,
        save_steps: int | None = None,
        save_secs: float | None = None,
        output_dir: str = "",
        show_dataflow: bool = True,
        show_memory: bool = False,
    ):
        self._output_dir = output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._tracing = False

    def begin(self) -> None:
        self._next_step = None
        self._global_step_tensor = _require_global_step("ProfilerHook")
        self._args = SessionRunArgs({"global_step": self._global_step_tensor})

    def before_run(self, run_context):
        self._request_trace = self._next_step is not None and self._timer.should_trigger_for_step(
            self._next_step
        )
        if self._request_trace:
            import jax

            jax.profiler.start_trace(self._output_dir, create_perfetto_trace=True)
            self._tracing = True
        return self._args

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_trace:
            self._stop_trace()
            global_step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            _log.info("Saved a jax.profiler trace of step %d in %s", global_step, self._output_dir)
        self._next_step = global_step + 1

    def _stop_trace(self) -> None:
        if self._tracing:
            import jax

            self._tracing = False
            jax.profiler.stop_trace()

    def end(self, session):
        self._stop_trace()


class ProgressHook(SessionRunHook):
    """A one-line progress display on a terminal: step, steps/s, ETA, last loss.

    Not in TF. Writes ``\\r``-refreshed lines to ``stream`` (default ``sys.stderr``)
    at most every ``refresh_secs``; stays silent when the stream is not a TTY. On
    the steps between refreshes it adds no fetch to the run. Before the first step
    it says that the step is compiling; the rate and ETA count from the end of the
    first step. At the end it redraws the line with the final step, the average
    rate and the time taken.

    Args:
      last_step: the global step training stops at (for the ETA), or None.
      loss_tensor: a scalar tensor shown as ``loss``, or None.
      refresh_secs: seconds between refreshes (default 0.5).
      stream: where to write.
    """

    def __init__(
        self,
        last_step: int | None = None,
        loss_tensor: Any = None,
        refresh_secs: float = 0.5,
        stream: Any = None,
    ):
        self._last_step = last_step
        self._loss_tensor = loss_tensor
        self._refresh_secs = refresh_secs
        self._stream = stream if stream is not None else sys.stderr
        isatty = getattr(self._stream, "isatty", None)
        self._enabled = bool(isatty and isatty())

    def begin(self) -> None:
        if not self._enabled:
            return
        self._global_step_tensor = _require_global_step("ProgressHook")
        fetches = {"step": self._global_step_tensor}
        if self._loss_tensor is not None:
            fetches["loss"] = self._loss_tensor
        self._args = SessionRunArgs(fetches)
        self._next_refresh: float | None = None
        self._origin: tuple[float, int] | None = None  # (time, step) after the first step
        self._loss: float | None = None  # the last loss shown
        self._started = time.time()

    def before_run(self, run_context: Any) -> SessionRunArgs | None:
        if not self._enabled:
            return None
        now = time.time()
        if self._next_refresh is None:  # the first step: its program compiles now
            self._show([self._step_text(None), "compiling the first step"])
        if self._next_refresh is None or now >= self._next_refresh:
            self._next_refresh = now + self._refresh_secs
            return self._args
        return None

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if not self._enabled or run_values.results is None:
            return
        now = time.time()
        step = int(run_values.results["step"]) + 1
        parts = [self._step_text(step)]
        rate = self._rate(now, step)
        if rate is not None:
            parts.append(f"{rate:.1f} steps/s")
            if self._last_step and rate > 0:
                parts.append(f"ETA {_hms((self._last_step - step) / rate)}")
        if self._origin is None:
            self._origin = (now, step)
        if "loss" in run_values.results:
            self._loss = float(run_values.results["loss"])
        self._show(parts)

    def end(self, session: Any) -> None:
        if not self._enabled or self._next_refresh is None:
            return
        now = time.time()
        step = int(session.run(self._global_step_tensor))
        parts = [self._step_text(step)]
        rate = self._rate(now, step)
        if rate is not None:
            parts.append(f"{rate:.1f} steps/s")
        parts.append(f"done in {_hms(now - self._started)}")
        self._show(parts)
        self._stream.write("\n")
        self._stream.flush()

    def _step_text(self, step: int | None) -> str:
        shown = "-" if step is None else str(step)
        return f"step {shown}" + (f"/{self._last_step}" if self._last_step else "")

    def _rate(self, now: float, step: int) -> float | None:
        """Steps per second since the end of the first step, once there are some."""
        if self._origin is None or now <= self._origin[0] or step <= self._origin[1]:
            return None
        return (step - self._origin[1]) / (now - self._origin[0])

    def _show(self, parts: list[str]) -> None:
        if self._loss is not None:
            parts = [*parts, f"loss {self._loss:.4g}"]
        self._stream.write("\r" + "  ".join(parts) + "\x1b[K")
        self._stream.flush()


def _hms(seconds: float) -> str:
    """``H:MM:SS`` of a non-negative duration (negative ones show as 0)."""
    s = max(0, int(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
