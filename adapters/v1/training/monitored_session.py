"""``tf.compat.v1.train.MonitoredSession`` and ``MonitoredTrainingSession``.

As TF's ``monitored_session.py``, a monitored session is layers of small
wrappers around the raw ``Session``::

  MonitoredSession
    _RecoverableSession   recreates the session on AbortedError/UnavailableError
                          (not when a jax.distributed peer is gone: see _replicas)
      _CoordinatedSession  stops the Coordinator's threads, re-raises their errors
        _HookedSession     calls the hooks around each run, merging their fetches
          Session          the raw session (one compiled program per step)

Creation: ``hook.begin()`` for every hook, then (in the session creator)
``Scaffold.finalize()`` finalizes the graph, a ``SessionManager`` restores the
latest checkpoint of ``checkpoint_dir`` or runs the init ops, queue runners
start, and ``hook.after_create_session(session, coord)``. A run: every hook's
``before_run``, one ``Session.run`` of the caller's fetches plus the hooks',
every hook's ``after_run``; ``should_stop()`` turns true after a hook asked for
a stop. Closing: ``hook.end(session)`` (not after an exception), then the
session closes. In a ``with`` block, ``OutOfRangeError`` and ``StopIteration``
end the block cleanly.
"""

from __future__ import annotations

import abc
import inspect
import logging
import operator
import sys
from typing import Any, NamedTuple

from adapters.v1.client import _replicas
from adapters.v1.client.session import _fetch_key as fetch_key
from adapters.v1.framework import ops
from adapters.v1.ops import variables
from adapters.v1.training import basic_session_run_hooks
from adapters.v1.training.session_manager import SessionManager
from adapters.v1.training.session_run_hook import SessionRunValues, _StepRunContext
from jtrain import errors

__all__ = [
    "Scaffold",
    "SessionCreator",
    "ChiefSessionCreator",
    "WorkerSessionCreator",
    "MonitoredSession",
    "SingularMonitoredSession",
    "MonitoredTrainingSession",
    "USE_DEFAULT",
]

_log = logging.getLogger("adapters.v1.training")

# Errors that mean "the session is gone; make a new one" (TF's _PREEMPTION_ERRORS).
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)

USE_DEFAULT = object()


# -- Scaffold ----------
class Scaffold:
    """The ops a monitored session needs: how to initialize, check readiness, save.

    Args:
      init_op: initializes the model when there is no checkpoint (default: the
        ``INIT_OP`` collection's or ``global_variables_initializer()``).
      init_feed_dict: feeds for ``init_op``.
      init_fn: ``init_fn(scaffold, session)`` run after ``init_op``.
      ready_op: lists uninitialized variables (default: global and local ones).
      ready_for_local_init_op: the same, checked before ``local_init_op``
        (default: global variables).
      local_init_op: run in every new session (default: local variables'
        initializer).
      summary_op: default ``tf.summary.merge_all()`` (when ``adapters.v1.summary``
        is available).
      saver: default: the ``SAVERS`` collection's or a new ``Saver(allow_empty=True)``.
      copy_from_scaffold: a ``Scaffold`` whose fields fill the ones not given.
      local_init_feed_dict: feeds for ``local_init_op``.

    Raises:
      TypeError: ``copy_from_scaffold`` is not a ``Scaffold``.
    """

    def __init__(
        self,
        init_op: Any = None,
        init_feed_dict: dict | None = None,
        init_fn: Any = None,
        ready_op: Any = None,
        ready_for_local_init_op: Any = None,
        local_init_op: Any = None,
        summary_op: Any = None,
        saver: Any = None,
        copy_from_scaffold: Scaffold | None = None,
        local_init_feed_dict: dict | None = None,
    ):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")

            def coalesce(a, b):
                return a if a is not None else b

            c = copy_from_scaffold
            init_op = coalesce(init_op, c.init_op)
            init_feed_dict = coalesce(init_feed_dict, c._init_feed_dict)
            init_fn = coalesce(init_fn, c._user_init_fn)
            ready_op = coalesce(ready_op, c.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op, c.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, c.local_init_op)
            local_init_feed_dict = coalesce(local_init_feed_dict, c._local_init_feed_dict)
            summary_op = coalesce(summary_op, c.summary_op)
            saver = coalesce(saver, c.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self) -> Scaffold:
        """Creates the default ops not given, then finalizes the default graph."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", ops.GraphKeys.INIT_OP, variables.global_variables_initializer
            )
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op",
                ops.GraphKeys.READY_OP,
                lambda: variables.report_uninitialized_variables(
                    variables.global_variables() + variables.local_variables()
                ),
            )
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op",
                ops.GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: variables.report_uninitialized_variables(variables.global_variables()),
            )
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", ops.GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op
            )
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default(
                "summary_op", ops.GraphKeys.SUMMARY_OP, _merge_all_summaries
            )
        if self._saver is None:
            self._saver = _get_saver_or_default()
        ops.get_default_graph().finalize()
        _log.info("Graph was finalized.")
        return self

    @property
    def init_fn(self) -> Any:
        return self._init_fn

    @property
    def init_op(self) -> Any:
        return self._init_op

    @property
    def ready_op(self) -> Any:
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        return self._ready_for_local_init_op

    @property
    def local_init_op(self) -> Any:
        return self._local_init_op

    @property
    def local_init_feed_dict(self) -> dict | None:
        return self._local_init_feed_dict

    @property
    def summary_op(self) -> Any:
        return self._summary_op

    @property
    def saver(self) -> Any:
        return self._saver

    @property
    def init_feed_dict(self) -> dict | None:
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name: str, collection_key: str, default_constructor: Any) -> Any:
        """The single element of a collection, else ``default_constructor()`` (added to it).

        Raises:
          RuntimeError: the collection has more than one element.
        """
        elements = ops.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(
                    f'More than one item in the collection "{collection_key}". Please indicate '
                    "which one to use by passing it to the tf.Scaffold constructor as:  "
                    f"tf.Scaffold({arg_name}=item to use)"
                )
            return elements[0]
        op = default_constructor()
        if op is not None:
            ops.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op() -> Any:
        """The local variables' initializer (TF also initializes tables and resources)."""
        return variables.local_variables_initializer()


def _merge_all_summaries() -> Any:
    try:
        from adapters.v1 import summary
    except ImportError:
        return None
    return summary.merge_all()


def _get_saver_or_default() -> Any:
    from adapters.v1.training.saver import Saver

    savers = ops.get_collection(ops.GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(
                f"More than one item in collection {ops.GraphKeys.SAVERS}. Please indicate "
                "which one to use by passing it to the constructor."
            )
        return savers[0]
    saver = Saver(allow_empty=True)
    ops.add_to_collection(ops.GraphKeys.SAVERS, saver)
    return saver


# -- session creators ----------
class SessionCreator(abc.ABC):
    """A factory of ``Session``s."""

    @abc.abstractmethod
    def create_session(self) -> Any:
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class ChiefSessionCreator(SessionCreator):
    """Creates a session on the chief: restores ``checkpoint_dir``'s latest checkpoint
    (or ``checkpoint_filename_with_path``) or initializes the model."""

    def __init__(
        self,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: Any = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
    ):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager: SessionManager | None = None
        self._master = master
        self._config = config

    def _get_session_manager(self) -> SessionManager:
        if self._session_manager:
            return self._session_manager
        self._session_manager = SessionManager(
            local_init_op=self._scaffold.local_init_op,
            local_init_feed_dict=self._scaffold.local_init_feed_dict,
            ready_op=self._scaffold.ready_op,
            ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
            graph=ops.get_default_graph(),
        )
        return self._session_manager

    def create_session(self) -> Any:
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master,
            saver=self._scaffold.saver,
            checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config,
            init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn,
        )


class WorkerSessionCreator(SessionCreator):
    """Creates a session on a worker: waits until the chief initialized the model."""

    def __init__(
        self,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: Any = None,
        max_wait_secs: float = 30 * 60,
    ):
        self._scaffold = scaffold or Scaffold()
        self._session_manager: SessionManager | None = None
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def _get_session_manager(self) -> SessionManager:
        if self._session_manager:
            return self._session_manager
        self._session_manager = SessionManager(
            local_init_op=self._scaffold.local_init_op,
            local_init_feed_dict=self._scaffold.local_init_feed_dict,
            ready_op=self._scaffold.ready_op,
            ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
            graph=ops.get_default_graph(),
        )
        return self._session_manager

    def create_session(self) -> Any:
        self._scaffold.finalize()
        if _replicas.active() is not None:
            # A worker of a multi-process job initializes its own copy and takes the
            # chief's values (client/_replicas.py): the chief cannot initialize it.
            return self._get_session_manager().prepare_session(
                self._master,
                init_op=self._scaffold.init_op,
                config=self._config,
                init_feed_dict=self._scaffold.init_feed_dict,
                init_fn=self._scaffold.init_fn,
            )
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs
        )


def _coordinator() -> Any:
    from adapters.v1.training.coordinator import Coordinator

    return Coordinator()


def _start_queue_runners(sess: Any, coord: Any) -> None:
    if not ops.get_default_graph().get_collection(ops.GraphKeys.QUEUE_RUNNERS):
        return
    from adapters.v1.training.queue_runner_impl import start_queue_runners

    start_queue_runners(sess=sess, coord=coord)


# -- the monitored sessions ----------
class _MonitoredSession:
    """What ``MonitoredSession`` and ``SingularMonitoredSession`` share."""

    def __init__(
        self,
        session_creator: SessionCreator | None,
        hooks: list | None,
        should_recover: bool,
        stop_grace_period_secs: float = 120,
    ):
        self._graph_was_finalized = ops.get_default_graph().finalized
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._coordinated_creator = self._CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(),
            hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs,
        )
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self) -> ops.Graph | None:
        """The graph that was launched in this session (``None`` once closed)."""
        if self._tf_sess() is None:
            return None
        return self._tf_sess().graph

    def run(
        self, fetches: Any, feed_dict: dict | None = None, options: Any = None,
        run_metadata: Any = None,
    ) -> Any:  # fmt: skip
        """Runs ``fetches`` with the hooks (see ``Session.run``)."""
        return self._sess.run(fetches, feed_dict, options, run_metadata)

    def run_step_fn(self, step_fn: Any) -> Any:
        """Runs ``step_fn(step_context)``; ``step_context.run_with_hooks`` runs with hooks.

        Raises:
          ValueError: ``step_fn`` takes other arguments than ``step_context``.
        """
        args = tuple(inspect.signature(step_fn).parameters)
        if inspect.ismethod(step_fn):
            args = ("self",) + args
        if args != ("step_context",) and args != ("self", "step_context"):
            raise ValueError(
                "`step_fn` may either have one `step_context` argument, or `self` and "
                f"`step_context` arguments if it's an instance method. Got {args} instead."
            )
        # run_with_hooks=None: the layer below supplies its own `run`, so preemption
        # errors inside step_fn reach _RecoverableSession.run_step_fn.
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    class StepContext:
        """What ``step_fn`` gets: the raw ``session``, ``run_with_hooks``, ``request_stop``."""

        def __init__(self, session: Any, run_with_hooks_fn: Any):
            self._session = session
            self._run_with_hooks_fn = run_with_hooks_fn

        @property
        def session(self) -> Any:
            return self._session

        def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
            """``MonitoredSession.run``: the hooks' before_run/after_run around it."""
            return self._run_with_hooks_fn(*args, **kwargs)

        def request_stop(self) -> None:
            """Ends the loop: raises ``StopIteration``, which the monitored session's
            ``with`` block ends on cleanly."""
            raise StopIteration("step_fn has requested the iterations to stop.")

    def should_stop(self) -> bool:
        return self._sess is None or self._sess.should_stop()

    def close(self) -> None:
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback) -> bool:
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        # Returning True suppresses the (clean-stop) exception.
        return exception_type is None

    class _CoordinatedSessionCreator(SessionCreator):
        """Creates a raw session, starts its threads, calls ``after_create_session``,
        and wraps it in ``_HookedSession`` and ``_CoordinatedSession``."""

        def __init__(self, session_creator: SessionCreator, hooks: list, stop_grace_period_secs):
            self._session_creator = session_creator
            self._hooks = hooks
            self.coord = None
            self.tf_sess = None
            self._stop_grace_period_secs = stop_grace_period_secs

        def create_session(self) -> Any:
            self.tf_sess = self._session_creator.create_session()
            self.coord = _coordinator()
            _start_queue_runners(self.tf_sess, self.coord)
            for hook in self._hooks:
                hook.after_create_session(self.tf_sess, self.coord)
            return _CoordinatedSession(
                _HookedSession(self.tf_sess, self._hooks), self.coord, self._stop_grace_period_secs
            )

    def _close_internal(self, exception_type: Any = None) -> None:
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    ops.get_default_graph()._unsafe_unfinalize()

    def _is_closed(self) -> bool:
        return self._sess is None

    def _tf_sess(self) -> Any:
        return self._coordinated_creator.tf_sess


class MonitoredSession(_MonitoredSession):
    """A session that runs hooks, initializes/restores, and recovers from preemption.

    Args:
      session_creator: default ``ChiefSessionCreator()``.
      hooks: ``SessionRunHook``s.
      stop_grace_period_secs: how long ``close`` waits for the Coordinator's threads
        (default 120).

    On ``AbortedError`` or ``UnavailableError`` during a run the session is closed,
    a new one created (restoring the latest checkpoint) and the run retried.
    """

    def __init__(
        self,
        session_creator: SessionCreator | None = None,
        hooks: list | None = None,
        stop_grace_period_secs: float = 120,
    ):
        super().__init__(
            session_creator, hooks, should_recover=True,
            stop_grace_period_secs=stop_grace_period_secs,
        )  # fmt: skip


class SingularMonitoredSession(_MonitoredSession):
    """A ``MonitoredSession`` of a single process without recovery; ``raw_session()``
    gives the underlying ``Session``."""

    def __init__(
        self,
        hooks: list | None = None,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: Any = None,
        checkpoint_dir: str | None = None,
        stop_grace_period_secs: float = 120,
        checkpoint_filename_with_path: str | None = None,
    ):
        session_creator = ChiefSessionCreator(
            scaffold=scaffold,
            master=master,
            config=config,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
        )
        super().__init__(
            session_creator, hooks, should_recover=False,
            stop_grace_period_secs=stop_grace_period_secs,
        )  # fmt: skip

    def raw_session(self) -> Any:
        return self._tf_sess()


def MonitoredTrainingSession(  # TF's name
    master: str = "",
    is_chief: bool = True,
    checkpoint_dir: str | None = None,
    scaffold: Scaffold | None = None,
    hooks: list | None = None,
    chief_only_hooks: list | None = None,
    save_checkpoint_secs: Any = USE_DEFAULT,
    save_summaries_steps: Any = USE_DEFAULT,
    save_summaries_secs: Any = USE_DEFAULT,
    config: Any = None,
    stop_grace_period_secs: float = 120,
    log_step_count_steps: int | None = 100,
    max_wait_secs: float = 7200,
    save_checkpoint_steps: Any = USE_DEFAULT,
    summary_dir: str | None = None,
    save_graph_def: bool = True,
) -> MonitoredSession:
    """A ``MonitoredSession`` with TF's default hooks for training.

    On the chief: restores or initializes, saves checkpoints every
    ``save_checkpoint_secs`` (default 600 when neither period is given) or
    ``save_checkpoint_steps`` into ``checkpoint_dir``, writes summaries every
    ``save_summaries_steps`` (default 100) or ``save_summaries_secs`` and the
    steps/sec every ``log_step_count_steps`` (default 100) into ``summary_dir``
    (default ``checkpoint_dir``). The order of hooks is TF's: ``chief_only_hooks``,
    ``StepCounterHook``, ``SummarySaverHook``, ``CheckpointSaverHook``, ``hooks``.
    A worker (``is_chief=False``) waits for the chief's model (``max_wait_secs``)
    and runs only ``hooks``.

    Returns:
      A ``MonitoredSession``.
    """
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    if not is_chief:
        session_creator = WorkerSessionCreator(
            scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs
        )
        return MonitoredSession(
            session_creator=session_creator,
            hooks=hooks or [],
            stop_grace_period_secs=stop_grace_period_secs,
        )
    all_hooks = list(chief_only_hooks or [])
    session_creator = ChiefSessionCreator(
        scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config
    )
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(
                basic_session_run_hooks.StepCounterHook(
                    output_dir=summary_dir, every_n_steps=log_step_count_steps
                )
            )
        if (save_summaries_steps and save_summaries_steps > 0) or (
            save_summaries_secs and save_summaries_secs > 0
        ):
            all_hooks.append(
                basic_session_run_hooks.SummarySaverHook(
                    scaffold=scaffold,
                    save_steps=save_summaries_steps,
                    save_secs=save_summaries_secs,
                    output_dir=summary_dir,
                )
            )
    if checkpoint_dir and (
        (save_checkpoint_secs and save_checkpoint_secs > 0)
        or (save_checkpoint_steps and save_checkpoint_steps > 0)
    ):
        all_hooks.append(
            basic_session_run_hooks.CheckpointSaverHook(
                checkpoint_dir,
                save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs,
                scaffold=scaffold,
                save_graph_def=save_graph_def,
            )
        )
    if hooks:
        all_hooks.extend(hooks)
    return MonitoredSession(
        session_creator=session_creator,
        hooks=all_hooks,
        stop_grace_period_secs=stop_grace_period_secs,
    )


# -- the layers ----------
class _WrappedSession:
    """Forwards to a wrapped session; ``should_stop`` asks the layers below too."""

    def __init__(self, sess: Any):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(sess, _WrappedSession)

    @property
    def graph(self) -> ops.Graph:
        return self._sess.graph

    @property
    def sess_str(self) -> str:
        return self._sess.sess_str

    def should_stop(self) -> bool:
        return self._check_stop() or self._below_should_stop()

    def _check_stop(self) -> bool:
        """True when this layer wants to stop (not asking the layers below)."""
        return False

    def _below_should_stop(self) -> bool:
        """``should_stop`` of the layers below this one (True once closed)."""
        sess = self._sess
        if sess:
            return self._wrapped_is_stoppable and sess.should_stop()
        return True

    def close(self) -> None:
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                _log.error(
                    "An error occurred when attempting to close the session. This may be due "
                    "to a preemption in a connected worker or parameter server. Error: %s",
                    e,
                )
            finally:
                self._sess = None

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn: Any, raw_session: Any, run_with_hooks: Any) -> Any:
        run_with_hooks = run_with_hooks or self.run
        return step_fn(_MonitoredSession.StepContext(raw_session, run_with_hooks))


class _RecoverableSession(_WrappedSession):
    """Recreates the session (and so restores the latest checkpoint) when a run
    raises ``AbortedError`` or ``UnavailableError``, then retries the run."""

    def __init__(self, sess_creator: SessionCreator):
        self._sess_creator = sess_creator
        super().__init__(self._create_session())

    def _create_session(self) -> Any:
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                if _replicas.peer_lost():
                    # A process of a jax.distributed job is gone: JAX's runtime cannot
                    # take it back, so waiting for it (TF's recovery) would never end.
                    raise
                _log.info(
                    "An error was raised while a session was being created. This may be due "
                    "to a preemption of a connected worker or parameter server. A new session "
                    "will be created. This error may also occur due to a gRPC failure caused "
                    "by high memory or network bandwidth usage in the parameter servers. If "
                    "this error occurs repeatedly, try increasing the number of parameter "
                    "servers assigned to the job. Error: %s",
                    e,
                )

    def _check_stop(self) -> bool:
        try:
            if self._sess:
                return self._sess._check_stop()
            return True
        except _PREEMPTION_ERRORS as e:
            self._close_after(e, " while considering whether the session is complete")
            self._sess = self._create_session()
            # Since we just recreated the session, the overall computation should not stop.
            return False
        except Exception:  # TF: any other error means stop
            return True

    def should_stop(self) -> bool:
        # _check_stop has asked the layer below (the coordinated session) for its own
        # check, recreating it if preempted; what is left to ask is the layers under it.
        # (TF's generic should_stop asks that check twice; scripts ask every step.)
        if self._check_stop():
            return True
        sess = self._sess
        if isinstance(sess, _WrappedSession):
            return sess._below_should_stop()
        return sess.should_stop() if sess else True

    def run(
        self, fetches: Any, feed_dict: dict | None = None, options: Any = None,
        run_metadata: Any = None,
    ) -> Any:  # fmt: skip
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run(fetches, feed_dict, options, run_metadata)
            except _PREEMPTION_ERRORS as e:
                if _replicas.peer_lost():
                    raise  # see _create_session
                self._close_after(e)

    def _close_after(self, error: Exception, while_: str = "") -> None:
        """Logs TF's message for a preempted session (one home for it) and closes it."""
        _log.info(
            "An error was raised%s. This may be due to a preemption in a connected worker or "
            "parameter server. The current session will be closed and a new session will be "
            "created. Error: %s",
            while_,
            error,
        )
        self.close()
        self._sess = None

    def run_step_fn(self, step_fn: Any, raw_session: Any, run_with_hooks: Any) -> Any:
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                run_with_hooks = self._sess.run
                return self._sess.run_step_fn(step_fn, raw_session, run_with_hooks)
            except _PREEMPTION_ERRORS as e:
                if _replicas.peer_lost():
                    raise  # see _create_session
                self._close_after(e)


class _CoordinatedSession(_WrappedSession):
    """Stops (and joins) the Coordinator's threads on close; a run's error yields to
    an error a thread reported to the Coordinator."""

    def __init__(self, sess: Any, coord: Any, stop_grace_period_secs: float = 120):
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self) -> bool:
        # An exception a thread reported must surface here.
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self) -> None:
        self._coord.request_stop()
        try:
            self._coord.join(
                stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True
            )
        finally:
            try:
                _WrappedSession.close(self)
            except Exception:  # TF ignores errors of the close itself
                pass

    def _reraise(self, original: BaseException) -> None:
        exc_info = sys.exc_info()
        try:
            self._coord.raise_requested_exception()
        except _PREEMPTION_ERRORS:
            raise
        except Exception:  # the original error wins, as TF
            raise original.with_traceback(exc_info[2]) from None
        raise original.with_traceback(exc_info[2])

    def run(
        self, fetches: Any, feed_dict: dict | None = None, options: Any = None,
        run_metadata: Any = None,
    ) -> Any:  # fmt: skip
        try:
            return self._sess.run(fetches, feed_dict, options, run_metadata)
        except _PREEMPTION_ERRORS:
            raise
        except Exception as e:
            self._reraise(e)

    def run_step_fn(self, step_fn: Any, raw_session: Any, run_with_hooks: Any) -> Any:
        try:
            return self._sess.run_step_fn(step_fn, raw_session, run_with_hooks)
        except _PREEMPTION_ERRORS:
            raise
        except Exception as e:
            self._reraise(e)


class _HookedSession(_WrappedSession):
    """Calls the hooks around each run, merging their fetches and feeds into it.

    The hooks' fetches come first in the merged structure, so a hook's read of a
    variable (the global step) sees the value before the step's update, the
    "stale" value TF's hooks expect.

    A step's merged structure is flattened once per distinct combination of the
    hooks' and the caller's fetch structures (``_merged``) and run as such, each
    hook's results and the caller's rebuilt from the run's values. When every hook
    returns the very request objects of the step before, fetching tensors, operations
    or Variables (alone, or directly in a list, tuple or dict) and feeding nothing
    (TF's hooks in their steady state), and the caller fetches what it fetched then,
    the step before's merged structure is reused after identity checks (``_Reuse``):
    of each request, of the items of each list, tuple or dict fetched (a hook or the
    caller may change those in place, or the caller pass a new list each step), so the
    per-step work is the hooks' own: their ``before_run``, those checks, their
    ``after_run``.
    """

    def __init__(self, sess: Any, hooks: list):
        super().__init__(sess)
        self._hooks = hooks
        self._should_stop = False
        # A jtrain Session runs a structure flattened before; another session (a
        # user's creator) gets the merged list every run.
        self._run_flat = getattr(sess, "_run_flat", None)
        self._merged_cache: dict[Any, _MergedStep] = {}
        # The last step whose requests fetched only graph elements (alone or directly
        # in a container) and fed nothing: the next step asking the same reuses it.
        self._last: _Reuse | None = None

    def _check_stop(self) -> bool:
        return self._should_stop

    def should_stop(self) -> bool:
        return self._should_stop or self._below_should_stop()  # _check_stop, inlined

    def run(
        self, fetches: Any, feed_dict: dict | None = None, options: Any = None,
        run_metadata: Any = None,
    ) -> Any:  # fmt: skip
        sess = self._sess
        # should_stop(), inlined: this layer's flag, then the layers below.
        if self._should_stop or not sess or (self._wrapped_is_stoppable and sess.should_stop()):
            raise RuntimeError("Run called even after should_stop requested.")
        context = _StepRunContext(fetches, feed_dict, sess)
        hooks = self._hooks
        # Ask every hook first; then one run of the caller's fetches and theirs. (A loop,
        # not a comprehension: Python 3.11 calls a function for one.)
        requests = []
        for hook in hooks:
            requests.append(hook.before_run(context))
        last = self._last
        if (
            last is not None
            and all(map(operator.is_, requests, last.requests))
            and (not last.guards or all(map(_holds, last.guards)))
            and (
                _holds(last.caller, fetches)
                if last.caller is not None
                else (fetches is last.fetches and last.immutable) or fetch_key(fetches) == last.key
            )
        ):
            step, feeds = last.step, feed_dict  # the same requests: no hook feeds
        else:
            hook_feeds = [r.feed_dict for r in requests if r is not None and r.feed_dict]
            feeds = _merged_feeds(feed_dict, hook_feeds) if hook_feeds else feed_dict
            key = fetch_key(fetches) if self._run_flat is not None else None
            step = None if key is None else self._merged(requests, fetches, key)
        if step is not None:
            values = self._run_flat(step.flat, feeds, options, run_metadata)
            result, getters = step.caller(values), step.getters
        else:  # another session: the merged list, run as such
            merged, slots = _merged_fetches(requests, fetches)
            values = sess.run(merged, feed_dict=feeds, options=options, run_metadata=run_metadata)
            result = values[-1]
            getters = [None if slot is None else operator.itemgetter(slot) for slot in slots]
        # SessionRunValues(results, options, run_metadata), without its Python __new__.
        if options is None and run_metadata is None:
            for hook, get in zip(hooks, getters, strict=True):
                # _NO_VALUES is immutable: shared by the hooks that fetched nothing.
                if get is None:
                    hook.after_run(context, _NO_VALUES)
                else:
                    hook.after_run(context, _new(SessionRunValues, (get(values), None, None)))
        else:
            for hook, get in zip(hooks, getters, strict=True):
                value = None if get is None else get(values)
                hook.after_run(context, _new(SessionRunValues, (value, options, run_metadata)))
        if context._stop_requested:
            self._should_stop = True
        return result

    def _merged(self, requests: list, fetches: Any, key: Any) -> _MergedStep | None:
        """The raw session's flattening of ``_merged_fetches(requests, fetches)``, cached
        per structure (None when a hook's structure has no cache key); ``key`` is the
        caller's ``fetch_key``."""
        parts = []
        guards = []  # the containers of graph elements fetched (see _holds)
        reusable = True  # every request fetching graph elements and feeding nothing
        for r in requests:
            f = None if r is None else r.fetches
            kind = type(f)
            if kind is ops.Tensor or kind is ops.Operation:
                parts.append(id(f))  # fetch_key's answer, without the call
            else:
                part = () if f is None else fetch_key(f)
                if part is None:
                    return None
                parts.append(part)
                if f is not None and part[0] != "var":  # not one Variable
                    guard = _container_guard(f, part)
                    if guard is None:
                        reusable = False
                    else:
                        guards.append(guard)
            if r is not None and (r.feed_dict is not None or r.options is not None):
                reusable = False
        parts.append(key)
        cache_key = tuple(parts)
        step = self._merged_cache.get(cache_key)
        if step is None:
            merged, slots = _merged_fetches(requests, fetches)
            flat = self._sess._flat_fetches(merged)
            items = flat.item_rebuilders()
            step = _MergedStep(flat, [None if i is None else items[i] for i in slots], items[-1])
            if len(self._merged_cache) >= _MERGED_CACHE_SIZE:
                self._merged_cache.clear()
            self._merged_cache[cache_key] = step
        if reusable:
            immutable = type(key) is int or key[0] in ("var", "name")
            caller = None if immutable else _container_guard(fetches, key)
            self._last = _Reuse(requests, tuple(guards), fetches, caller, key, immutable, step)
        return step


# ``_holds``'s default: the guarded container itself.
_GUARDED = object()


def _container_guard(fetches: Any, key: Any) -> tuple | None:
    """``(container, keys, items)`` for a list, tuple or dict whose items are directly
    Tensors, Operations or Variables (``key``: its ``fetch_key``), ``keys`` None but
    for a dict; None for any other structure (nested, or naming elements by string)."""
    kind = type(fetches)
    if kind is not list and kind is not tuple and kind is not dict:
        return None
    subs = [sub for _, sub in key[1]] if kind is dict else key[1]
    if not all(type(sub) is int or sub[0] == "var" for sub in subs):
        return None
    if kind is dict:
        return (fetches, tuple(fetches), tuple(fetches.values()))
    return (fetches, None, tuple(fetches))


def _holds(guard: tuple, fetches: Any = _GUARDED) -> bool:
    """Whether ``fetches`` (default: the guarded container itself) is a container of the
    guarded one's type holding the very same items (and keys, in the same order) as
    when it was guarded: what a hook or the caller changed in place is flattened anew."""
    container, keys, items = guard
    if fetches is _GUARDED:
        fetches = container
    elif type(fetches) is not type(container):
        return False
    if len(fetches) != len(items):
        return False
    if keys is None:
        return all(map(operator.is_, fetches, items))
    return all(map(operator.is_, fetches, keys)) and all(map(operator.is_, fetches.values(), items))


class _Reuse(NamedTuple):
    """The last step whose merged structure the next one may reuse (``_HookedSession``).

    It is reused when every hook returns the very same request object (``requests``),
    each container those fetch still holds the same items (``guards``, ``_holds``), and
    the caller fetches the same: a list, tuple or dict holding the same items as
    ``fetches`` did (``caller``, its guard), else the very same immutable element
    (``immutable``: a Tensor, Operation, Variable or name), else a structure of the
    same ``key`` (``fetch_key``)."""

    requests: list  # each hook's request (SessionRunArgs or None) of that step
    guards: tuple  # the containers the requests fetched, with their items then
    fetches: Any  # the caller's fetches of that step
    caller: tuple | None  # their guard, when a container directly of graph elements
    key: Any  # their fetch_key
    immutable: bool  # they are one element (a Tensor, Operation, Variable or name)
    step: _MergedStep


class _MergedStep(NamedTuple):
    """A merged structure flattened by the raw session (``_HookedSession._merged``)."""

    flat: Any  # the raw session's flattening of [hooks' fetches..., caller's]
    getters: list  # per hook, the function taking its results from the run's values
    caller: Any  # the function rebuilding the caller's fetches from them


def _merged_fetches(requests: list, fetches: Any) -> tuple[list, list]:
    """``[each hook's fetches..., the caller's]`` and, per hook, the position of its
    results there (None for a hook that asked for nothing)."""
    merged: list = []
    slots: list = []
    for r in requests:
        if r is None or r.fetches is None:
            slots.append(None)
        else:
            slots.append(len(merged))
            merged.append(r.fetches)
    merged.append(fetches)
    return merged, slots


# What a hook that fetched nothing gets in a run without options and run_metadata.
_NO_VALUES = SessionRunValues(None, None, None)

# Builds a namedtuple from a tuple of its fields without the namedtuple's Python __new__.
_new = tuple.__new__

# Merged structures flattened per hooked session, at most this many.
_MERGED_CACHE_SIZE = 256


def _merged_feeds(user: dict | None, hook_feeds: list[dict]) -> dict | None:
    """The user's feeds plus the hooks'; a tensor fed twice is TF's ``RuntimeError``."""
    merged: dict = {}
    for feeds in hook_feeds:
        _refuse_overlap(merged, feeds, "Same tensor is fed by two hooks.")
        merged.update(feeds)
    if not merged:
        return user
    if user:
        _refuse_overlap(user, merged, "Same tensor is fed by a SessionRunHook and user.")
        merged.update(user)
    return merged


def _refuse_overlap(a: dict, b: dict, message: str) -> None:
    both = [key for key in b if key in a]
    if both:
        raise RuntimeError(f"{message} Conflict(s): {both}")
