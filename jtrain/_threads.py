"""Worker threads that spend their life blocked on a queue (event writers).

A thread marked here takes the GIL only for short jobs between waits, so a caller that
briefly polls while holding the GIL (``Session.run`` waiting on a short step) delays it
by microseconds, where a busy thread (a queue runner) would lose its share of the step.
"""

from __future__ import annotations

import threading

_MARK = "_jtrain_idle_waiter"


def mark_idle_waiter(thread: threading.Thread) -> threading.Thread:
    """Marks ``thread`` (before it starts) as one that mostly waits on a queue."""
    setattr(thread, _MARK, True)
    return thread


def alone_but_idle_waiters() -> bool:
    """True when every other live Python thread is a marked idle waiter."""
    if threading.active_count() == 1:
        return True
    current = threading.current_thread()
    return all(t is current or getattr(t, _MARK, False) for t in threading.enumerate())
