"""The timed loop every workload shares: warm-up steps, then steps for a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable


def timed(step: Callable[[], float], warmup: int, seconds: float, per_step: int = 1) -> dict:
    """Runs ``step`` (one training step returning its loss) ``warmup`` times, then for
    ``seconds``; returns the steady-state rate (``per_step`` units a step), the process's
    CPU time over the timed wall time (``cores``: every thread's, the framework's own
    included) and the first three losses."""
    losses = [float(step()) for _ in range(warmup)]
    steps, start, cpu = 0, time.perf_counter(), time.process_time()
    while True:
        loss = step()
        steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    cores = (time.process_time() - cpu) / elapsed
    if loss != loss:  # a NaN loss would make the figures meaningless
        raise RuntimeError("the loss became NaN")
    return {"rate": steps * per_step / elapsed, "steps": steps, "cores": cores,
            "first_losses": losses[:3]}  # fmt: skip
