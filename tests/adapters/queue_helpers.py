"""Helpers for tests with queue-runner threads: run a pipeline to its end with a deadline."""

from __future__ import annotations

import threading

import numpy as np

from adapters import v1 as tf

DEADLINE = 60.0  # seconds any threaded test may take before it counts as a hang


def tolist(value):
    if isinstance(value, dict):
        return {k: tolist(v) for k, v in value.items()}
    value = np.asarray(value)
    if value.dtype.kind == "O":
        return [_text(v) for v in value.ravel()]
    return value.tolist()


def _text(v: bytes):
    try:
        return v.decode()
    except UnicodeDecodeError:
        return v


def queue_waits(monkeypatch) -> threading.Event:
    """An event set once a queue operation blocks (waits for room, elements or a close).

    Tests that close or cancel under a blocked operation wait for it, so the close
    cannot land before the operation has started waiting (and test something else).
    """
    from adapters.v1.ops import data_flow_ops

    waiting = threading.Event()
    original = data_flow_ops._Buffer._wait

    def wait(self, session):
        waiting.set()
        original(self, session)

    monkeypatch.setattr(data_flow_ops._Buffer, "_wait", wait)
    return waiting


def call_with_deadline(fn, timeout: float = DEADLINE):
    """Runs ``fn()`` in a thread; fails the test if it has not returned within ``timeout``."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # re-raised in the test's thread
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), f"did not finish within {timeout}s (hang)"
    if "error" in box:
        raise box["error"]
    return box["value"]


def drain(graph, fetch, threads_out: list | None = None) -> list:
    """Runs ``fetch`` under a Coordinator until OutOfRangeError; every thread must end."""

    def run():
        out = []
        with tf.Session(graph=graph) as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            try:
                while True:
                    out.append(tolist(sess.run(fetch)))
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            assert not any(t.is_alive() for t in threads)
            if threads_out is not None:
                threads_out.extend(threads)
        return out

    return call_with_deadline(run)
