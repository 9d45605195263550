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
    """True when every other live Python thread is a marked idle waiter.

    Asked before every short step, so the answer is kept while the number of live
    threads stays the same, and looked at anew every ``_RECHECK`` asks (a thread that
    ended and another that started in between leave the number unchanged).
    """
    global _memo
    count = threading.active_count()
    if count == 1:
        return True
    memo = _memo
    if memo[0] == count and memo[2] > 0:
        _memo = (count, memo[1], memo[2] - 1)
        return memo[1]
    current = threading.current_thread()
    answer = all(t is current or getattr(t, _MARK, False) for t in threading.enumerate())
    _memo = (count, answer, _RECHECK)
    return answer


# (live threads, answer, asks left before looking again) of alone_but_idle_waiters.
_memo: tuple[int, bool, int] = (0, False, 0)
_RECHECK = 100
