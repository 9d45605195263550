"""``tf.keras.callbacks`` as Keras' v1 training loop (``Model.fit`` in a TF1 graph)
calls them.

``fit`` runs its callbacks in TF's order: a ``BaseLogger`` first (each epoch's
``loss`` is the batch-size-weighted mean of the batch losses, summed as Python
floats; the metrics keep their last, running, value), the user's callbacks, the
model's ``History``, and a ``ProgbarLogger`` when ``verbose``. Callbacks see logs
of Python numbers (``{'batch': 0, 'size': 32, 'loss': 0.71, ...}`` per batch; the
epoch's ``loss``, metrics and ``val_*`` values at ``on_epoch_end``).

Provided: ``Callback`` (to subclass), ``CallbackList``, ``BaseLogger``,
``History``, ``ProgbarLogger`` (``verbose=2``: TF's one line per epoch;
``verbose=1``: only the finished bar of each epoch is printed, not its live
updates), ``EarlyStopping``, ``LambdaCallback``, ``TerminateOnNaN``,
``LearningRateScheduler`` and ``ReduceLROnPlateau`` (Keras optimizers: a
``tf.train`` optimizer has no ``lr``, TF's ValueError), ``TensorBoard`` (TF's v1
callback: scalar summaries of the logs, the graph; no histograms, embeddings or
profile), ``CSVLogger``.
``ModelCheckpoint`` (``Model.save_weights`` with ``save_weights_only=True``, in TF's
checkpoint format or HDF5 by the path; ``Model.save`` otherwise: HDF5, TF1's
default format).
"""

from __future__ import annotations

import csv
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr

__all__ = [
    "BaseLogger",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "ModelCheckpoint",
    "ProgbarLogger",
    "LearningRateScheduler",
    "ReduceLROnPlateau",
    "TensorBoard",
    "TerminateOnNaN",
]

_log = logging.getLogger(__name__)


def _python(logs: dict[str, Any] | None) -> dict[str, Any]:
    """TF's ``sync_to_numpy_or_python_type``: NumPy scalars become Python numbers (a
    new dict)."""
    out: dict[str, Any] = {}
    for k, v in (logs or {}).items():
        out[k] = v.item() if isinstance(v, (np.ndarray, np.generic)) and np.ndim(v) == 0 else v
    return out


class Callback:
    """The base of callbacks: override the hooks of interest.

    ``self.model`` is the model being trained, ``self.params`` the loop's parameters
    (``batch_size``, ``epochs``, ``steps``, ``samples``, ``verbose``,
    ``do_validation``, ``metrics``).
    """

    def __init__(self) -> None:
        self.validation_data = None
        self.model: Any = None
        self.params: dict[str, Any] = {}

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self.model = model

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """A training batch begins (what ``on_train_batch_begin`` calls)."""

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """A training batch ended (what ``on_train_batch_end`` calls)."""

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """A training epoch begins."""

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """A training epoch ended; ``logs`` holds its loss, metrics and ``val_*``."""

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """A batch of ``evaluate`` (or of ``fit``'s validation) begins."""

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """A batch of ``evaluate`` (or of ``fit``'s validation) ended."""

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """A batch of ``predict`` begins."""

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """A batch of ``predict`` ended."""

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """``fit`` begins."""

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """``fit`` ended."""

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        """``evaluate`` (or ``fit``'s validation) begins."""

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        """``evaluate`` (or ``fit``'s validation) ended."""

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        """``predict`` begins."""

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        """``predict`` ended."""


class CallbackList:
    """Callbacks called in turn, each hook's logs turned into Python numbers first.

    Args:
      callbacks: the callbacks (default none).
    """

    def __init__(self, callbacks: Iterable[Callback] | None = None, **kwargs: Any):
        self.callbacks = list(callbacks or [])
        self.model: Any = None
        self.params: dict[str, Any] = {}

    def append(self, callback: Callback) -> None:
        self.callbacks.append(callback)

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params
        for cb in self.callbacks:
            cb.set_params(params)

    def set_model(self, model: Any) -> None:
        self.model = model
        for cb in self.callbacks:
            cb.set_model(model)

    def _call(self, hook: str, *args: Any, logs: dict[str, Any] | None = None) -> None:
        logs = _python(logs)
        for cb in self.callbacks:
            getattr(cb, hook)(*args, logs)

    def _call_batch_hook(self, mode: str, when: str, batch: int, logs: Any = None) -> None:
        self._call(f"on_{mode}_batch_{when}", batch, logs=logs)

    def _call_begin_hook(self, mode: str) -> None:
        self._call(f"on_{mode}_begin")

    def _call_end_hook(self, mode: str) -> None:
        self._call(f"on_{mode}_end")

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_epoch_end", epoch, logs=logs)

    def __iter__(self) -> Any:
        return iter(self.callbacks)


class BaseLogger(Callback):
    """Accumulates each epoch's averages (added by ``fit`` first).

    Args:
      stateful_metrics: names logged as they are at the epoch's end (``fit`` sets
        the model's metric names); the others (``loss``) are averaged over the
        epoch's samples.
    """

    def __init__(self, stateful_metrics: Iterable[str] | None = None):
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])
        self.seen = 0
        self.totals: dict[str, Any] = {}

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.seen = 0
        self.totals = {}

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        batch_size = logs.get("size", 0)
        self.seen += batch_size * logs.get("num_steps", 1)
        for k, v in logs.items():
            if k in self.stateful_metrics:
                self.totals[k] = v
            elif k in self.totals:
                self.totals[k] += v * batch_size
            else:
                self.totals[k] = v * batch_size

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is None:
            return
        for k in self.params["metrics"]:
            if k in self.totals:
                if k in self.stateful_metrics:
                    logs[k] = self.totals[k]
                else:
                    logs[k] = self.totals[k] / self.seen


class History(Callback):
    """Records each epoch's logs: ``history`` (name -> list of values), ``epoch``."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


def _format_time(seconds: float, unit: str) -> str:
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit}"
    return f" {seconds * 1e6:.0f}us/{unit}"


class _Progbar:
    """Keras' ``Progbar`` for ``fit``'s epochs: the averages it prints, verbose 2's
    line, verbose 1's finished bar."""

    def __init__(self, target: int, verbose: int, stateful: set[str], unit: str):
        self.target, self.verbose, self.stateful, self.unit = target, verbose, stateful, unit
        self.values: dict[str, list[Any]] = {}
        self.order: list[str] = []
        self.seen = 0
        self.start = time.time()

    def update(self, current: int, values: list[tuple[str, Any]], finalize: bool = False) -> None:
        for k, v in values:
            if k not in self.order:
                self.order.append(k)
            if k not in self.stateful:
                base = max(current - self.seen, 1)
                if k not in self.values:
                    self.values[k] = [v * base, base]
                else:
                    self.values[k][0] += v * base
                    self.values[k][1] += base
            else:
                self.values[k] = [v, 1]
        self.seen = current
        if not finalize:
            return
        now = time.time()
        elapsed = now - self.start
        digits = int(np.log10(self.target)) + 1
        info = ""
        for k in self.order:
            avg = np.mean(self.values[k][0] / max(1, self.values[k][1]))
            size = abs(avg) if self.verbose == 1 else avg
            shown = f"{avg:.4f}" if size > 1e-3 else f"{avg:.4e}"
            info += f" - {k}: {shown}"
        if self.verbose == 2:
            count = ("%" + str(digits) + "d/%d") % (current, self.target)
            line = f"{count} - {elapsed:.0f}s{info}"
            line += " -" + _format_time(elapsed, "epoch")
            line += " -" + _format_time(elapsed / self.target, self.unit)
        else:
            bar = ("%" + str(digits) + "d/%d [") % (current, self.target) + "=" * 30 + "]"
            per_unit = elapsed / current if current else 0.0
            line = f"{bar} - {elapsed:.0f}s{_format_time(per_unit, self.unit)}{info}"
        print(line)


class ProgbarLogger(Callback):
    """Prints each epoch's progress (added by ``fit`` when ``verbose``).

    Args:
      count_mode: 'samples' (TF's default for arrays) or 'steps'.
      stateful_metrics: names printed as they are (not averaged).

    Raises:
      ValueError: another ``count_mode`` (TF's message).

    .. note:: ``verbose=2`` prints TF's line (``32/32 - 0s - loss: 1.0201 - ... -
       5ms/epoch - 154us/sample``); ``verbose=1`` prints only the finished bar of
       each epoch, not its live updates.
    """

    def __init__(self, count_mode: str = "samples", stateful_metrics: Iterable[str] | None = None):
        super().__init__()
        if count_mode not in ("samples", "steps"):
            raise ValueError(
                f'Unknown `count_mode`: {count_mode}. Expected values are ["samples", "steps"]'
            )
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics or [])
        self.seen = 0
        self.progbar: _Progbar | None = None
        self.target: int | None = None
        self.verbose = 1
        self.epochs = 1

    def set_params(self, params: dict[str, Any]) -> None:
        super().set_params(params)
        self.verbose = params["verbose"]
        self.epochs = params["epochs"]
        self.target = params["steps"] if self.use_steps else params["samples"]

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.seen = 0
        self.progbar = _Progbar(
            self.target or 0,
            self.verbose,
            set(self.stateful_metrics),
            "step" if self.use_steps else "sample",
        )
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        if self.use_steps:
            self.seen = batch + 1
        else:
            self.seen += logs.pop("size", 0) * logs.pop("num_steps", 1)
            logs.pop("batch", None)
        if self.verbose == 1 and self.progbar is not None:
            self.progbar.update(self.seen, list(logs.items()))

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.progbar is None:
            return
        if not self.target:  # unknown (a dataset of unknown size): what was seen
            self.target = self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list(_python(logs).items()), finalize=True)


class EarlyStopping(Callback):
    """Stops training when ``monitor`` has stopped improving.

    Args (TF's defaults): monitor='val_loss', min_delta=0, patience=0, verbose=0,
    mode='auto' ('min', 'max'; auto: 'max' for names ending in acc/accuracy/auc),
    baseline=None, restore_best_weights=False, start_from_epoch=0.
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights: Any = None
        self.start_from_epoch = start_from_epoch
        if mode not in ("auto", "min", "max"):
            _log.warning("EarlyStopping mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        if mode == "min":
            self.monitor_op: Callable[[Any, Any], Any] = np.less
        elif mode == "max":
            self.monitor_op = np.greater
        elif monitor.endswith(("acc", "accuracy", "auc")):
            self.monitor_op = np.greater
        else:
            self.monitor_op = np.less
        if self.monitor_op is not np.greater:
            self.min_delta *= -1

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf if self.monitor_op is np.less else -np.inf
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs: dict[str, Any] | None) -> Any:
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            _log.warning(
                "Early stopping conditioned on metric `%s` which is not available. "
                "Available metrics are: %s",
                self.monitor,
                ",".join(list(logs.keys())),
            )
        return value

    def _is_improvement(self, value: Any, reference: Any) -> Any:
        return self.monitor_op(value - self.min_delta, reference)


class LambdaCallback(Callback):
    """A callback from functions: ``on_epoch_begin(epoch, logs)``,
    ``on_epoch_end(epoch, logs)``, ``on_batch_begin(batch, logs)``,
    ``on_batch_end(batch, logs)``, ``on_train_begin(logs)``, ``on_train_end(logs)``
    (each default None: nothing)."""

    def __init__(
        self,
        on_epoch_begin: Callable[..., Any] | None = None,
        on_epoch_end: Callable[..., Any] | None = None,
        on_batch_begin: Callable[..., Any] | None = None,
        on_batch_end: Callable[..., Any] | None = None,
        on_train_begin: Callable[..., Any] | None = None,
        on_train_end: Callable[..., Any] | None = None,
        **kwargs: Any,
    ):
        super().__init__()
        self.__dict__.update(kwargs)
        given = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_batch_begin": on_batch_begin,
            "on_batch_end": on_batch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
        }
        for name, fn in given.items():
            if fn is not None:
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    """Stops training at a batch whose loss is NaN or infinite."""

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


def _get_value(x: Any) -> Any:
    from adapters.v1.framework import ops
    from adapters.v1.keras import backend

    if isinstance(x, ops.Tensor) or hasattr(x, "load"):
        return backend.get_value(x)
    return x


def _set_value(x: Any, value: Any) -> None:
    from adapters.v1.keras import backend

    backend.set_value(x, value)


def _lr_of(model: Any) -> Any:
    optimizer = getattr(model, "optimizer", None)
    try:
        return optimizer.lr
    except AttributeError:
        raise ValueError('Optimizer must have a "lr" attribute.') from None


class LearningRateScheduler(Callback):
    """Sets the learning rate at each epoch's start to ``schedule(epoch, lr)`` (or
    ``schedule(epoch)``); logs it as ``lr``.

    Args (TF's defaults): schedule, verbose=0.

    Raises:
      ValueError: an optimizer without ``lr`` (a ``tf.train`` optimizer's
        ``TFOptimizer``), or a schedule returning something else than a float (TF's
        messages).
    """

    def __init__(self, schedule: Callable[..., Any], verbose: int = 0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        lr_var = _lr_of(self.model)
        try:
            lr = float(_get_value(lr_var))
            lr = self.schedule(epoch, lr)
        except TypeError:
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.float32, np.float64)) and not hasattr(lr, "dtype"):
            raise ValueError(f'The output of the "schedule" function should be float. Got: {lr}')
        _set_value(lr_var, _get_value(lr))
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is not None:
            logs["lr"] = _get_value(_lr_of(self.model))


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` has not improved
    for ``patience`` epochs; logs it as ``lr``.

    Args (TF's defaults): monitor='val_loss', factor=0.1, patience=10, verbose=0,
    mode='auto', min_delta=1e-4, cooldown=0, min_lr=0.

    Raises:
      ValueError: ``factor >= 1`` (TF's message); an optimizer without ``lr``.
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0,
        **kwargs: Any,
    ):
        super().__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Got {factor}")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
            _log.warning(
                "`epsilon` argument is deprecated and will be removed, use `min_delta` instead."
            )
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best: Any = 0
        self.mode = mode
        self._reset()

    def _reset(self) -> None:
        if self.mode not in ("auto", "min", "max"):
            _log.warning(
                "Learning rate reduction mode %s is unknown, fallback to auto mode.", self.mode
            )
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op: Callable[[Any, Any], Any] = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._reset()

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs if logs is not None else {}
        logs["lr"] = _get_value(_lr_of(self.model))
        current = logs.get(self.monitor)
        if current is None:
            _log.warning(
                "Learning rate reduction is conditioned on metric `%s` which is not "
                "available. Available metrics are: %s",
                self.monitor,
                ",".join(list(logs.keys())),
            )
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.cooldown_counter > 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = _get_value(_lr_of(self.model))
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    _set_value(_lr_of(self.model), new_lr)
                    if self.verbose > 0:
                        print(
                            f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning "
                            f"rate to {new_lr}."
                        )
                    self.cooldown_counter = self.cooldown
                    self.wait = 0

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0


class TensorBoard(Callback):
    """Writes the epoch logs (``epoch_loss``, ``epoch_val_loss``...) as scalar summaries
    to an event file in ``log_dir``, as TF 2.21's ``tf.compat.v1.keras.callbacks.
    TensorBoard`` does in a graph: the graph too when ``write_graph``; with
    ``update_freq='batch'`` (or a number of samples) the batch logs as
    ``batch_loss``... at the batches seen, the epoch logs then at the samples seen.

    Args (TF's defaults): log_dir='./logs', histogram_freq=0, batch_size=32,
    write_graph=True, write_grads=False, write_images=False, embeddings_freq=0,
    embeddings_layer_names=None, embeddings_metadata=None, embeddings_data=None,
    update_freq='epoch', profile_batch=2.

    Raises:
      NotImplementedError: ``histogram_freq`` or ``embeddings_freq`` other than 0.

    .. note:: TF also profiles batch ``profile_batch`` (a ``plugins/profile``
       trace); jtrain writes no profile (use ``jax.profiler``).
    """

    def __init__(
        self,
        log_dir: str = "./logs",
        histogram_freq: int = 0,
        batch_size: int = 32,
        write_graph: bool = True,
        write_grads: bool = False,
        write_images: bool = False,
        embeddings_freq: int = 0,
        embeddings_layer_names: Any = None,
        embeddings_metadata: Any = None,
        embeddings_data: Any = None,
        update_freq: Any = "epoch",
        profile_batch: int = 2,
    ):
        super().__init__()
        if histogram_freq or embeddings_freq:
            raise NotImplementedError(
                "tf.keras.callbacks.TensorBoard: histogram_freq and embeddings_freq are "
                "not supported by adapters.v1 (scalar logs only)"
            )
        self.log_dir = log_dir
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.batch_size = batch_size
        self.update_freq: Any = 1 if update_freq == "batch" else update_freq
        self.profile_batch = profile_batch
        self._total_batches_seen = 0
        self._samples_seen = 0
        self._samples_seen_at_last_write = 0
        self.writer: Any = None

    def set_model(self, model: Any) -> None:
        from adapters.v1.summary import FileWriter

        self.model = model
        graph = (model.outputs or model.inputs or [None])[0]
        graph = getattr(graph, "graph", None)
        self.writer = FileWriter(self.log_dir, graph if self.write_graph else None)

    def _write_custom_summaries(self, step: int, logs: dict[str, Any]) -> None:
        from jtrain.protos.summary_pb2 import Summary

        for name, value in logs.items():
            if isinstance(value, np.ndarray):
                value = value.item()
            summary = Summary()
            entry = summary.value.add()
            entry.simple_value = value
            entry.tag = name
            self.writer.add_summary(summary, step)
        self.writer.flush()

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_batch_end(batch, logs)

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        self._samples_seen += logs.get("size", 1)
        since = self._samples_seen - self._samples_seen_at_last_write
        if self.update_freq != "epoch" and since >= self.update_freq:
            batch_logs = {
                "batch_" + k: v for k, v in logs.items() if k not in ("batch", "size", "num_steps")
            }
            self._write_custom_summaries(self._total_batches_seen, batch_logs)
            self._samples_seen_at_last_write = self._samples_seen
        self._total_batches_seen += 1

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = {
            "epoch_" + k: v
            for k, v in (logs or {}).items()
            if k not in ("batch", "size", "num_steps")
        }
        step = epoch if self.update_freq == "epoch" else self._samples_seen
        self._write_custom_summaries(step, logs)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self.writer.close()


class CSVLogger(Callback):
    """Writes each epoch's logs as a CSV row (``epoch`` then the log keys sorted; the
    ``val_`` keys added when the first epoch has none).

    Args (TF's defaults): filename, separator=',', append=False (append to an
    existing file, with a header only if it is empty).
    """

    def __init__(self, filename: Any, separator: str = ",", append: bool = False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer: Any = None
        self.keys: list[str] | None = None
        self.append_header = True
        self.csv_file: Any = None

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115 (closed at train end)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}

        def handle_value(k: Any) -> Any:
            zero_dim = isinstance(k, np.ndarray) and k.ndim == 0
            if isinstance(k, str):
                return k
            if isinstance(k, Iterable) and not zero_dim:
                return f'"[{", ".join(map(str, k))}]"'
            return k

        if self.keys is None:
            self.keys = sorted(logs.keys())
            if not any(key.startswith("val_") for key in self.keys):
                self.keys.extend(["val_" + k for k in self.keys])
        if not self.writer:
            sep = self.sep

            class CustomDialect(csv.excel):
                delimiter = sep

            self.writer = csv.DictWriter(
                self.csv_file, fieldnames=["epoch", *self.keys], dialect=CustomDialect
            )
            if self.append_header:
                self.writer.writeheader()
        row: dict[str, Any] = {"epoch": epoch}
        row.update((key, handle_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self.csv_file.close()
        self.writer = None


class ModelCheckpoint(Callback):
    """Saves the model (``Model.save``: HDF5) or its weights (``save_weights_only``:
    ``Model.save_weights``) at the end of every epoch, or every ``save_freq`` batches,
    as TF's callback.

    The path is ``filepath.format(epoch=epoch + 1, **logs)`` (``batch=batch + 1``
    too when saving by batches): ``"w.{epoch:02d}-{val_loss:.2f}"`` gives
    ``w.03-0.41``. With ``verbose`` the decision is printed to stdout as TF
    (``"\\nEpoch 3: val_loss improved from 0.45000 to 0.41000, saving model to ..."``).

    Args (TF's defaults):
      filepath: the checkpoint prefix, a format string (str or path).
      monitor: 'val_loss', the log compared by ``save_best_only``.
      verbose: 0 (1: print each save or skip).
      save_best_only: False (True: save only when ``monitor`` improves on the best).
      save_weights_only: False (True: ``Model.save_weights``).
      mode: 'auto' ('min', 'max'; auto: 'max' when 'acc' is in ``monitor`` or it
        starts with 'fmeasure'), unknown modes warn and fall back to 'auto'.
      save_freq: 'epoch', or an int: every that many batches.
      options: None, or a ``tf.train.CheckpointOptions`` with ``save_weights_only``
        (TF's ``tf.saved_model.SaveOptions`` for ``Model.save`` has no use in HDF5:
        only None is taken).
      initial_value_threshold: None (the best value to beat at first).
      **kwargs: ``period`` (deprecated: save every that many epochs),
        ``load_weights_on_restart`` (deprecated: load the newest matching
        checkpoint when ``fit`` begins).

    Raises:
      TypeError: ``options`` not a ``tf.train.CheckpointOptions`` with
        ``save_weights_only``, not None without it (TF's messages).
      ValueError: ``save_freq`` neither 'epoch' nor an int (TF's message).
    """

    def __init__(
        self,
        filepath: Any,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: Any = "epoch",
        options: Any = None,
        initial_value_threshold: float | None = None,
        **kwargs: Any,
    ):
        from adapters.v1.training.checkpoint_options import CheckpointOptions

        super().__init__()
        self.monitor = monitor
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self.epochs_since_last_save = 0
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = -1
        self._current_epoch = 0
        self.best: Any = initial_value_threshold
        if not save_weights_only:
            if options is not None:
                raise TypeError(
                    "If save_weights_only is False, then `options` must be either None "
                    f"or a tf.saved_model.SaveOptions. Got {options}."
                )
            self._options = None
        elif options is None or isinstance(options, CheckpointOptions):
            self._options = options or CheckpointOptions()
        else:
            raise TypeError(
                "If save_weights_only is True, then `options` must be either None or a "
                f"tf.train.CheckpointOptions. Got {options}."
            )
        self.load_weights_on_restart = kwargs.get("load_weights_on_restart", False)
        if "load_weights_on_restart" in kwargs:
            _log.warning(
                "`load_weights_on_restart` argument is deprecated. Please use "
                "`model.load_weights()` for loading weights before the start of "
                "`model.fit()`."
            )
        self.period = kwargs.get("period", 1)
        if "period" in kwargs:
            _log.warning(
                "`period` argument is deprecated. Please use `save_freq` to specify "
                "the frequency in number of batches seen."
            )
        if mode not in ("auto", "min", "max"):
            _log.warning("ModelCheckpoint mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        if mode == "max" or (
            mode == "auto" and ("acc" in monitor or monitor.startswith("fmeasure"))
        ):
            self.monitor_op: Callable[[Any, Any], Any] = np.greater
            if self.best is None:
                self.best = -np.inf
        else:
            self.monitor_op = np.less
            if self.best is None:
                self.best = np.inf
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(
                f'Unrecognized save_freq: {save_freq}. Expected save_freq are "epoch" or integer'
            )

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if self.load_weights_on_restart:
            path = self._most_recent_match(self.filepath)
            if path is not None and self._checkpoint_exists(path):
                try:
                    self.model.load_weights(path)
                except (OSError, ValueError) as e:
                    raise ValueError(f"Error loading file from {path}. Reason: {e}") from e

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self._should_save_on_batch(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current_epoch = epoch

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epochs_since_last_save += 1
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:  # a new epoch
            add = batch + 1
        else:
            add = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _print(self, message: str) -> None:
        sys.stdout.write(message + "\n")
        sys.stdout.flush()

    def _save_model(self, epoch: int, batch: int | None, logs: dict[str, Any] | None) -> None:
        logs = logs or {}
        if not (isinstance(self.save_freq, int) or self.epochs_since_last_save >= self.period):
            return
        logs = _python(logs)
        self.epochs_since_last_save = 0
        filepath = self._get_file_path(epoch, batch, logs)
        dirname = os.path.dirname(filepath)
        if dirname and not os.path.exists(dirname):
            os.makedirs(dirname, exist_ok=True)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                _log.warning("Can save best model only with %s available, skipping.", self.monitor)
            elif self.monitor_op(current, self.best):
                if self.verbose > 0:
                    self._print(
                        f"\nEpoch {epoch + 1}: {self.monitor} improved from "
                        f"{self.best:.5f} to {current:.5f}, saving model to {filepath}"
                    )
                self.best = current
                self._save(filepath)
            elif self.verbose > 0:
                self._print(
                    f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}"
                )
        else:
            if self.verbose > 0:
                self._print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            self._save(filepath)

    def _save(self, filepath: str) -> None:
        try:
            if self.save_weights_only:
                self.model.save_weights(filepath, overwrite=True, options=self._options)
            else:
                self.model.save(filepath, overwrite=True, options=self._options)
        except IsADirectoryError as e:
            raise OSError(
                "Please specify a non-directory filepath for ModelCheckpoint. "
                f"Filepath used is an existing directory: {filepath}"
            ) from e

    def _get_file_path(self, epoch: int, batch: int | None, logs: dict[str, Any]) -> str:
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(
                f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}'
            ) from e

    @staticmethod
    def _checkpoint_exists(filepath: str) -> bool:
        if filepath.endswith(".h5"):
            return os.path.exists(filepath)
        return os.path.exists(filepath) or os.path.exists(filepath + ".index")

    @staticmethod
    def _most_recent_match(pattern: str) -> str | None:
        """TF's choice for ``load_weights_on_restart``: the directory's latest
        checkpoint when its name matches ``pattern`` (placeholders as ``.*``), else the
        newest matching file (ties: the largest path)."""
        from jtrain.checkpoint import checkpoint_management as cm

        dir_name, base_name = os.path.split(pattern)
        regex = "^" + re.sub(r"{.*}", r".*", base_name) + "$"
        latest = cm.latest_checkpoint(dir_name)
        if latest is not None and re.match(regex, os.path.basename(latest)):
            return latest
        newest_time = 0.0
        newest: str | None = None
        n_newest = 0
        largest: str | None = None
        if os.path.exists(dir_name):
            for name in os.listdir(dir_name):
                if re.match(regex, name):
                    path = os.path.join(dir_name, name)
                    mtime = os.path.getmtime(path)
                    if largest is None or path > largest:
                        largest = path
                    if mtime > newest_time:
                        newest_time, newest, n_newest = mtime, path, 1
                    elif mtime == newest_time:
                        n_newest += 1
        return newest if n_newest == 1 else largest


__getattr__ = missing_name_getattr("tf.keras.callbacks", globals())
