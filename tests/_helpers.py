"""Assertions the tests share (one home): exact bits, and trees within a tolerance."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import jax
import numpy as np


def assert_same_bits(actual: Any, want: Any, tf_strings: bool = False) -> None:
    """Same dtype, shape and bytes; string (object) arrays: the same byte strings.

    ``tf_strings``: ``actual`` comes from TensorFlow, which hands back a scalar
    string as ``bytes`` (a NumPy ``S`` array here) where jtrain has ``object``.
    """
    actual, want = np.asarray(actual), np.asarray(want)
    assert actual.shape == want.shape, (actual.shape, want.shape)
    if want.dtype == object:
        kinds = "OS" if tf_strings else "O"
        assert actual.dtype.kind in kinds, (actual.dtype, want.dtype)
        assert [bytes(v) for v in actual.reshape(-1).tolist()] == [
            bytes(v) for v in want.reshape(-1).tolist()
        ]
    else:
        assert actual.dtype == want.dtype, (actual.dtype, want.dtype)
        assert actual.tobytes() == want.tobytes()


def assert_trees_close(actual: Any, expected: Any, rtol: float, what: str) -> None:
    """Same tree structure, each leaf within ``rtol`` (compared in float64)."""
    a_leaves, a_def = jax.tree.flatten(actual)
    e_leaves, e_def = jax.tree.flatten(expected)
    assert a_def == e_def, f"{what}: tree {a_def} vs {e_def}"
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves, strict=True)):
        np.testing.assert_allclose(
            np.asarray(a, np.float64), np.asarray(e, np.float64), rtol=rtol, err_msg=f"{what}[{i}]"
        )


# Instructions that may produce an array of a table's full shape in a step that
# updates only some of its rows: the parameter itself, in-place scatters of rows, and
# no-op views and tuples. Anything else (a broadcast of zeros, an elementwise update,
# a copy after a failed donation, a dynamic-update-slice) reads or writes every row.
_ROW_OPS = ("parameter", "scatter", "fusion", "bitcast", "tuple", "get-tuple-element")


def full_table_ops(hlo: str, shape: tuple[int, ...]) -> list[str]:
    """The instructions of compiled HLO text that compute a whole array of ``shape``
    other than by scattering rows into it (fusions are looked into: their bodies are
    in the text)."""
    dims = ",".join(str(d) for d in shape)
    pattern = re.compile(rf"=\s*\w+\[{dims}\](?:\{{[^}}]*\}})?\s+([\w-]+)\(")
    return [
        line.strip()[:160]
        for line in hlo.splitlines()
        if (m := pattern.search(line)) and m.group(1) not in _ROW_OPS
    ]


def step_program(sess: Any, fetches: Any, feed: dict, platform: str | None = None) -> str:
    """The program of the session's run of ``fetches`` after one run: XLA's compiled HLO
    text, or with ``platform`` (``"cuda"``...) the StableHLO lowered for that platform
    (from any machine: nothing is compiled)."""
    from adapters.v1.framework import _x64

    sess.run(fetches, feed)
    plan = [p for p in sess._plans.values() if p.donated][-1]  # (the latest run's)
    _, values = sess._convert_feeds(feed)
    store = sess._store
    args = (store.buffers(plan.donated), store.buffers(plan.read_only), values)
    with _x64.exact():
        if platform is None:
            return plan.fn.lower(*args).compile().as_text()
        return plan.fn.trace(*args).lower(lowering_platforms=(platform,)).as_text()


@contextlib.contextmanager
def compiles() -> Iterator[list[str]]:
    """The XLA compilations inside the ``with`` block, one entry each (JAX's
    ``backend_compile_duration`` event, which fires on a persistent-cache hit too)."""
    seen: list[str] = []

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            seen.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
