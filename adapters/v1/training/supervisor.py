"""``tf.compat.v1.train.Supervisor``: a session, its standard services and a coordinator.

A port of TF's ``tensorflow/python/training/supervisor.py``: the chief initializes
or restores the model (through ``SessionManager``), then starts the standard
services — a checkpoint thread (``Saver.save`` every ``save_model_secs``), a
summary thread (``summary_op`` every ``save_summaries_secs``) and a step-counter
thread — and the graph's queue runners, all under one ``Coordinator``.
``managed_session`` stops them and closes the session on exit; an
``OutOfRangeError`` in its block (the input ran out) is a clean stop.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from adapters.v1.client import _replicas
from adapters.v1.framework import ops
from adapters.v1.training import coordinator, training_util
from adapters.v1.training.queue_runner_impl import QueueRunner

__all__ = ["Supervisor"]

_log = logging.getLogger(__name__)


class Supervisor:
    """Creates a session, restores or initializes the model, runs services (TF1's ``Supervisor``).

    Args:
      graph: the graph (default: the default graph); finalized by the constructor.
      ready_op: ``report_uninitialized_variables()`` by default.
      ready_for_local_init_op: ``report_uninitialized_variables(global_variables())``
        by default.
      is_chief: only the chief initializes, saves and writes summaries.
      init_op: ``global_variables_initializer()`` by default.
      init_feed_dict: feeds for ``init_op``.
      local_init_op: ``local_variables_initializer()`` by default.
      logdir: checkpoints and event files (``None``: neither).
      summary_op: ``summary.merge_all()`` by default.
      saver: a ``Saver()`` if there are variables, by default.
      global_step: the graph's global step by default.
      save_summaries_secs: summary service period (0 or ``None``: off).
      save_model_secs: checkpoint service period (0 or ``None``: off).
      recovery_wait_secs: as TF.
      stop_grace_secs: as TF.
      checkpoint_basename: as TF.
      session_manager: as TF.
      summary_writer: a ``FileWriter(logdir)`` by default.
      init_fn: a function called after ``init_op``.

    For the ops, the saver, the global step and the writer,
    ``Supervisor.USE_DEFAULT`` builds TF's default and ``None`` disables it.

    Raises:
      ValueError: ``is_chief=False`` (a replica) and a variable without a device
        (``tf.device`` or ``replica_device_setter``), as TF.
    """

    USE_DEFAULT = 0

    def __init__(
        self,
        graph: ops.Graph | None = None,
        ready_op: Any = USE_DEFAULT,
        ready_for_local_init_op: Any = USE_DEFAULT,
        is_chief: bool = True,
        init_op: Any = USE_DEFAULT,
        init_feed_dict: dict | None = None,
        local_init_op: Any = USE_DEFAULT,
        logdir: str | None = None,
        summary_op: Any = USE_DEFAULT,
        saver: Any = USE_DEFAULT,
        global_step: Any = USE_DEFAULT,
        save_summaries_secs: float | None = 120,
        save_model_secs: float | None = 600,
        recovery_wait_secs: float = 30,
        stop_grace_secs: float = 120,
        checkpoint_basename: str = "model.ckpt",
        session_manager: Any = None,
        summary_writer: Any = USE_DEFAULT,
        init_fn: Any = None,
        local_init_run_options: Any = None,
    ):
        from adapters.v1.ops import control_flow_ops, variables
        from adapters.v1.training.saver import Saver
        from adapters.v1.training.session_manager import SessionManager

        if graph is None:
            graph = ops.get_default_graph()
        self._graph = graph
        self._is_chief = is_chief
        self._coord = coordinator.Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._init_feed_dict = init_feed_dict
        self._logdir = logdir
        self._save_summaries_secs = save_summaries_secs
        self._save_model_secs = save_model_secs
        self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        with graph.as_default():
            if ready_op is Supervisor.USE_DEFAULT:
                ready_op = _first(graph, ops.GraphKeys.READY_OP)
                if ready_op is None:
                    ready_op = variables.report_uninitialized_variables()
                    graph.add_to_collection(ops.GraphKeys.READY_OP, ready_op)
            self._ready_op = ready_op
            if ready_for_local_init_op is Supervisor.USE_DEFAULT:
                ready_for_local_init_op = _first(graph, ops.GraphKeys.READY_FOR_LOCAL_INIT_OP)
                if ready_for_local_init_op is None:
                    ready_for_local_init_op = variables.report_uninitialized_variables(
                        variables.global_variables()
                    )
                    graph.add_to_collection(
                        ops.GraphKeys.READY_FOR_LOCAL_INIT_OP, ready_for_local_init_op
                    )
            self._ready_for_local_init_op = ready_for_local_init_op
            if init_op is Supervisor.USE_DEFAULT:
                init_op = _first(graph, ops.GraphKeys.INIT_OP)
                if init_op is None:
                    init_op = variables.global_variables_initializer()
                    graph.add_to_collection(ops.GraphKeys.INIT_OP, init_op)
            self._init_op = init_op
            if local_init_op is Supervisor.USE_DEFAULT:
                local_init_op = _first(graph, ops.GraphKeys.LOCAL_INIT_OP)
                if local_init_op is None:
                    local_init_op = control_flow_ops.group(variables.local_variables_initializer())
                    graph.add_to_collection(ops.GraphKeys.LOCAL_INIT_OP, local_init_op)
            self._local_init_op = local_init_op
            if saver is Supervisor.USE_DEFAULT:
                saver = _first(graph, ops.GraphKeys.SAVERS)
                if saver is None and variables.global_variables():
                    saver = Saver()
                    graph.add_to_collection(ops.GraphKeys.SAVERS, saver)
            self._saver = saver
            if global_step is Supervisor.USE_DEFAULT:
                global_step = training_util.get_global_step(graph)
            self._global_step = global_step
            if summary_op is Supervisor.USE_DEFAULT:
                summary_op = _first(graph, ops.GraphKeys.SUMMARY_OP)
                if summary_op is None:
                    from adapters.v1 import summary

                    summary_op = summary.merge_all()
                    if summary_op is not None:
                        graph.add_to_collection(ops.GraphKeys.SUMMARY_OP, summary_op)
            self._summary_op = summary_op
        if summary_writer is Supervisor.USE_DEFAULT:
            summary_writer = None
            if is_chief and logdir:
                from adapters.v1.summary import FileWriter

                summary_writer = FileWriter(logdir)
        self._summary_writer = summary_writer
        if session_manager is None:
            session_manager = SessionManager(
                local_init_op=self._local_init_op,
                ready_op=self._ready_op,
                ready_for_local_init_op=self._ready_for_local_init_op,
                graph=graph,
                recovery_wait_secs=recovery_wait_secs,
            )
        self._session_manager = session_manager
        from adapters.v1.framework import meta_graph

        self._meta_graph_def = meta_graph.create_meta_graph_def(
            graph_def=graph.as_graph_def(add_shapes=True),
            saver_def=self._saver.saver_def if self._saver is not None else None,
        )
        self._graph_added_to_summary = False
        self._verify_setup()
        graph.finalize()

    def _verify_setup(self) -> None:
        """A worker that is not the chief runs a replica: TF then requires every
        (reference) variable to be placed on a device.

        Raises:
          ValueError: a ``VariableV2`` op without a device, TF's message naming it.
        """
        if self._is_chief:
            return
        for op in self._graph.get_operations():
            if op.type in ("Variable", "VariableV2") and not op.device:
                raise ValueError(
                    f"When using replicas, all Variables must have their device set: {op}"
                )

    def _write_graph(self) -> None:
        """The chief writes ``logdir/graph.pbtxt`` and, once, the graph events (as TF)."""
        from adapters.v1.framework import graph_io

        if self._logdir:
            graph_io.write_graph(
                self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt"
            )
        if self._summary_writer is not None and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    # -- properties -----------------------------------------------------------
    @property
    def session_manager(self) -> Any:
        return self._session_manager

    @property
    def coord(self) -> coordinator.Coordinator:
        return self._coord

    @property
    def is_chief(self) -> bool:
        return self._is_chief

    @property
    def init_op(self) -> Any:
        return self._init_op

    @property
    def init_feed_dict(self) -> dict | None:
        return self._init_feed_dict

    @property
    def ready_op(self) -> Any:
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        return self._ready_for_local_init_op

    @property
    def summary_writer(self) -> Any:
        return self._summary_writer

    @property
    def summary_op(self) -> Any:
        return self._summary_op

    @property
    def save_summaries_secs(self) -> float | None:
        return self._save_summaries_secs

    @property
    def global_step(self) -> Any:
        return self._global_step

    @property
    def saver(self) -> Any:
        return self._saver

    @property
    def save_model_secs(self) -> float | None:
        return self._save_model_secs

    @property
    def save_path(self) -> str | None:
        return self._save_path

    # -- services ----------------------------------------------------------------
    def start_standard_services(self, sess: Any) -> list:
        """Starts the checkpoint, summary and step-counter threads (chief only)."""
        if not self._is_chief:
            raise RuntimeError(
                "Only chief supervisor can start standard services. Because only chief "
                "supervisors can write events."
            )
        threads = []
        if self._logdir and self._summary_writer is not None:
            if self._summary_op is not None and self._save_summaries_secs:
                threads.append(_SummaryThread(self, sess))
            if self._global_step is not None and self._save_summaries_secs:
                threads.append(_StepCounterThread(self, sess))
        if self._saver is not None and self._save_model_secs and self._save_path:
            threads.append(_CheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(
        self,
        master: str = "",
        config: Any = None,
        wait_for_checkpoint: bool = False,
        max_wait_secs: float = 7200,
        start_standard_services: bool = True,
    ) -> Any:
        """The chief restores or initializes a session; others wait until it is ready."""
        self._coord.clear_stop()
        if self._summary_writer is not None:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master,
                init_op=self._init_op,
                saver=self._saver,
                checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint,
                max_wait_secs=max_wait_secs,
                config=config,
                init_feed_dict=self._init_feed_dict,
                init_fn=self._init_fn,
            )
            self._write_graph()
            if start_standard_services:
                _log.info("Starting standard services.")
                self.start_standard_services(sess)
        elif _replicas.active() is not None:
            # A worker of a multi-process job: it initializes its own copy, then takes
            # the chief's values (the chief's process cannot initialize it).
            sess = self._session_manager.prepare_session(
                master,
                init_op=self._init_op,
                config=config,
                init_feed_dict=self._init_feed_dict,
                init_fn=self._init_fn,
            )
        else:
            sess = self._session_manager.wait_for_session(
                master, config=config, max_wait_secs=max_wait_secs
            )
        if start_standard_services:
            _log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess: Any, queue_runners: list[QueueRunner] | None = None):
        """Starts ``queue_runners`` (default: the graph's) under the supervisor's coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(ops.GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs: float, target: Any, args: Any = None, kwargs: Any = None):
        """Starts a ``LooperThread`` under the supervisor's coordinator."""
        return self._coord.loop(timer_interval_secs, target, args=args, kwargs=kwargs)

    def stop(
        self,
        threads: list | None = None,
        close_summary_writer: bool = True,
        ignore_live_threads: bool = False,
    ) -> None:
        """Stops the services and queue runners, re-raising an exception they reported."""
        self._coord.request_stop()
        try:
            self._coord.join(
                threads,
                stop_grace_period_secs=self._stop_grace_secs,
                ignore_live_threads=ignore_live_threads,
            )
        finally:
            if close_summary_writer and self._summary_writer is not None:
                self._summary_writer.close()

    def request_stop(self, ex: Any = None) -> None:
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        self._coord.wait_for_stop()

    def summary_computed(self, sess: Any, summary: Any, global_step: int | None = None) -> None:
        """Writes ``summary`` (a serialized ``Summary``) at ``global_step`` (default: current)."""
        if self._summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = training_util.global_step(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    # TF's CamelCase aliases (TF1 code from before the snake_case names uses them).
    Loop = loop
    PrepareSession = prepare_or_wait_for_session
    RequestStop = request_stop
    ShouldStop = should_stop
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    StopOnException = stop_on_exception
    SummaryComputed = summary_computed
    WaitForStop = wait_for_stop

    @contextlib.contextmanager
    def managed_session(
        self,
        master: str = "",
        config: Any = None,
        start_standard_services: bool = True,
        close_summary_writer: bool = True,
    ) -> Iterator[Any]:
        """A session whose services stop, and which closes, when the block ends.

        An exception in the block is reported to the coordinator; ``OutOfRangeError``
        is a clean stop (not re-raised), any other is re-raised by ``stop``.
        """
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services
            )
            yield sess
        except Exception as e:  # TF reports every exception
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    with contextlib.suppress(Exception):
                        sess.close()


def _first(graph: ops.Graph, key: str) -> Any:
    items = graph.get_collection(key)
    if len(items) > 1:
        raise RuntimeError(f"More than one item in the collection {key!r}")
    return items[0] if items else None


class _SummaryThread(coordinator.LooperThread):
    """Runs ``summary_op`` and writes it, every ``save_summaries_secs``."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self) -> None:
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer is not None:
            self._sv.summary_writer.add_summary(summary, None if step is None else int(step))


class _StepCounterThread(coordinator.LooperThread):
    """Writes ``global_step/sec`` every ``save_summaries_secs``."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._last: tuple[float, int] | None = None
        self._tag = "global_step/sec"

    def run_loop(self) -> None:
        now = time.monotonic()
        step = training_util.global_step(self._sess, self._sv.global_step)
        if self._last is not None and now > self._last[0]:
            rate = (step - self._last[1]) / (now - self._last[0])
            self._sv.summary_writer.add_scalar(self._tag, rate, step)
        self._last = (now, step)


class _CheckpointThread(coordinator.LooperThread):
    """Saves a checkpoint every ``save_model_secs`` (the first at once, as TF)."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self) -> None:
        # The saver snapshots the variables under the session's store lock and writes
        # the files outside it: training goes on during the write.
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
