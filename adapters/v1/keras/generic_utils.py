"""``tf.keras.utils.Progbar``: Keras' text progress bar, as TF 2.21's legacy Keras
(``tf_keras/utils/generic_utils.py``) prints it."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from adapters.v1.keras.io_utils import print_msg

__all__ = ["Progbar"]


def _format_time(seconds: float, unit: str) -> str:
    """`` 3s/epoch``, `` 12ms/step`` or `` 40us/sample``, as Keras."""
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit}"
    return f" {seconds * 1e6:.0f}us/{unit}"


def _format_eta(eta: float) -> str:
    if eta > 3600:
        return f"{int(eta // 3600)}:{int((eta % 3600) // 60):02d}:{int(eta % 60):02d}"
    if eta > 60:
        return f"{int(eta // 60)}:{int(eta % 60):02d}"
    return f"{int(eta)}s"


class Progbar:
    """A progress bar printed to stdout (``tf.keras.utils.Progbar``).

    Args (TF's defaults):
      target: the total number of steps, None if unknown.
      width=30: the bar's width in characters.
      verbose=1: 0 silent, 1 a bar redrawn in place (``\\b``/``\\r``), 2 one line
        when finished.
      interval=0.05: the least number of seconds between two redraws (verbose 1).
      stateful_metrics=None: names whose values are shown as given; the others are
        averaged over the steps.
      unit_name='step': the unit of the time per step shown.

    .. note:: As Keras', the bar redraws in place whenever ``sys.modules`` has
       ``posix`` (every POSIX system), a terminal or not: output captured to a file
       holds the ``\\b`` and ``\\r`` characters. Verbose 2 prints averages of
       negative values below 1e-3 in scientific notation (Keras compares the
       signed average there).
    """

    def __init__(
        self,
        target: int | None,
        width: int = 30,
        verbose: int = 1,
        interval: float = 0.05,
        stateful_metrics: Iterable[str] | None = None,
        unit_name: str = "step",
    ):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics else set()
        self._dynamic_display = (
            (hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
            or "ipykernel" in sys.modules
            or "posix" in sys.modules
            or "PYCHARM_HOSTED" in os.environ
        )
        self._total_width = 0
        self._seen_so_far = 0
        self._values: dict[str, Any] = {}
        self._values_order: list[str] = []
        self._start = time.time()
        self._last_update = 0.0
        self._time_at_epoch_start = self._start
        self._time_at_epoch_end: float | None = None
        self._time_after_first_step: float | None = None

    def update(
        self,
        current: int,
        values: Iterable[tuple[str, Any]] | None = None,
        finalize: bool | None = None,
    ) -> None:
        """Records step ``current`` and redraws the bar.

        Args (TF's defaults):
          current: the index of the current step.
          values=None: ``(name, value)`` pairs for the last step: a stateful metric's
            value is shown as is, the others averaged over the steps since the start
            (weighted by the steps each covers).
          finalize=None: whether this is the last update (None: ``current >= target``,
            never when the target is unknown).
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            if name not in self._values_order:
                self._values_order.append(name)
            if name in self.stateful_metrics:
                self._values[name] = [value, 1]
                continue
            steps = max(current - self._seen_so_far, 1)
            if name in self._values:
                self._values[name][0] += value * steps
                self._values[name][1] += steps
            else:
                self._values[name] = [value * steps, steps]
        self._seen_so_far = current
        now = time.time()
        if current == self.target:
            self._time_at_epoch_end = now
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw(current, now, finalize)
        elif self.verbose == 2 and finalize:
            self._print_line(current, now)
        self._last_update = now

    def _average(self, name: str) -> Any:
        total, count = self._values[name]
        return np.mean(total / max(1, count))

    def _draw(self, current: int, now: float, finalize: bool) -> None:
        previous_width = self._total_width
        message = "\b" * previous_width + "\r" if self._dynamic_display else "\n"
        if self.target is not None:
            digits = int(np.log10(self.target)) + 1
            bar = ("%" + str(digits) + "d/%d [") % (current, self.target)
            done = int(self.width * float(current) / self.target)
            if done > 0:
                bar += "=" * (done - 1) + (">" if current < self.target else "=")
            bar += "." * (self.width - done) + "]"
        else:
            bar = f"{int(current):7d}/Unknown"
        self._total_width = len(bar)
        per_step = self._step_duration(current, now)
        if self.target is None or finalize:
            info = f" - {now - self._start:.0f}s" + _format_time(per_step, self.unit_name)
        else:
            info = " - ETA: " + _format_eta(per_step * (self.target - current))
        for name in self._values_order:
            average = self._average(name)
            info += (
                f" - {name}: {average:.4f}" if abs(average) > 1e-3 else f" - {name}: {average:.4e}"
            )
        self._total_width += len(info)
        if previous_width > self._total_width:
            info += " " * (previous_width - self._total_width)
        if finalize:
            info += "\n"
        print_msg(message + bar + info, line_break=False)

    def _print_line(self, current: int, now: float) -> None:
        assert self.target is not None  # finalize is False with an unknown target
        digits = int(np.log10(self.target)) + 1
        line = ("%" + str(digits) + "d/%d") % (current, self.target)
        line += f" - {now - self._start:.0f}s"
        for name in self._values_order:
            average = self._average(name)
            line += f" - {name}: {average:.4f}" if average > 1e-3 else f" - {name}: {average:.4e}"
        if self._time_at_epoch_end:
            per_epoch = self._time_at_epoch_end - self._time_at_epoch_start
            line += " -" + _format_time(per_epoch, "epoch")
            line += " -" + _format_time(per_epoch / self.target, self.unit_name) + "\n"
            self._time_at_epoch_start = now
            self._time_at_epoch_end = None
        print_msg(line, line_break=False)

    def add(self, n: int, values: Iterable[tuple[str, Any]] | None = None) -> None:
        """``update(seen + n, values)``: ``n`` more steps."""
        self.update(self._seen_so_far + n, values)

    def _step_duration(self, current: int, now: float) -> float:
        """Keras' estimate of a step's duration: the first step left out once there
        are more (0 before any step)."""
        if not current:
            return 0.0
        if self._time_after_first_step is not None and current > 1:
            per_step = (now - self._time_after_first_step) / (current - 1)
        else:
            per_step = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_step
