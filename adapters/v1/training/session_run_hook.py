"""``tf.compat.v1.train.SessionRunHook``: code that runs around ``MonitoredSession.run``.

The protocol, as TF's ``session_run_hook.py`` documents it::

  call hooks.begin()
  sess = tf.Session()
  call hooks.after_create_session()
  while not stop is requested:
    call hooks.before_run()
    try:
      results = sess.run(merged_fetches, feed_dict=merged_feeds)
    except (errors.OutOfRangeError, StopIteration):
      break
    call hooks.after_run()
  call hooks.end()
  sess.close()

The fetches and feeds the hooks ask for in ``before_run`` are merged into the
caller's, so a step stays one ``Session.run`` (one compiled program launch).
"""

from __future__ import annotations

import collections
from typing import Any

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues"]


class SessionRunHook:
    """Hook to extend calls to ``MonitoredSession.run()``; every method is optional."""

    def begin(self) -> None:
        """Called once before using the session; the graph may still be changed here.

        After ``begin`` returns the graph is finalized and no hook may add ops.
        """

    def after_create_session(self, session: Any, coord: Any) -> None:
        """Called when a new session is created (and again after each recovery).

        The graph is finalized; ``session`` is the raw session, already initialized
        or restored; ``coord`` the ``Coordinator`` of its threads.
        """

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs | None:
        """Called before each ``run``; returns ``SessionRunArgs`` to add fetches/feeds."""
        return None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        """Called after each successful ``run`` with the results of this hook's fetches.

        Not called when the run raised (including ``OutOfRangeError``).
        """

    def end(self, session: Any) -> None:
        """Called at the end of the session (not when it ends by an exception)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a ``run``: ``fetches`` (any fetch structure), ``feed_dict``,
    ``options`` (accepted, ignored by jtrain's ``Session``)."""

    __slots__ = ()

    def __new__(cls, fetches: Any, feed_dict: dict | None = None, options: Any = None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """Information about the ``run`` being made, and a way to ask the loop to stop.

    Args:
      original_args: the caller's ``SessionRunArgs``.
      session: the raw session the hooks may run extra ops in.
    """

    def __init__(self, original_args: SessionRunArgs, session: Any):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        return self._original_args

    @property
    def session(self) -> Any:
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        """Makes ``should_stop()`` true after this run (the run itself completes)."""
        self._stop_requested = True


class _StepRunContext(SessionRunContext):
    """The ``SessionRunContext`` a monitored session builds each step: the caller's
    ``SessionRunArgs`` made only when a hook asks for ``original_args`` (most never do;
    the step's Python runs between its programs)."""

    def __init__(self, fetches: Any, feed_dict: dict | None, session: Any):
        self._fetches = fetches
        self._feed_dict = feed_dict
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        args = self.__dict__.get("_original_args")
        if args is None:
            args = self._original_args = SessionRunArgs(self._fetches, self._feed_dict)
        return args


class SessionRunValues(
    collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])
):
    """What a hook gets in ``after_run``: ``results`` of its fetches (None if it asked
    for none), ``options`` and ``run_metadata`` of the run."""

    __slots__ = ()
