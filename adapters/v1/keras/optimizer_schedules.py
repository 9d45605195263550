"""``tf.keras.optimizers.schedules``: learning-rate schedules of Keras' optimizers.

A schedule is called with the optimizer's step (``iterations`` cast to the
variable's dtype) and returns the learning rate as a graph tensor, built from
TF's ops as ``tf_keras``' ``learning_rate_schedule`` builds it.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "CosineDecay",
    "CosineDecayRestarts",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "PolynomialDecay",
    "deserialize",
    "serialize",
]


def _tf() -> Any:
    from adapters import v1

    return v1


class LearningRateSchedule:
    """The base of Keras' learning-rate schedules: ``schedule(step) -> lr``.

    Subclasses implement ``__call__(step)`` and ``get_config()``.
    """

    def __call__(self, step: Any) -> Any:
        raise NotImplementedError("Learning rate schedule must override __call__")

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError("Learning rate schedule must override get_config")

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """``cls(**config)``."""
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent
    floored with ``staircase``), in ``initial_learning_rate``'s dtype.

    Args:
      initial_learning_rate: a number or tensor.
      decay_steps: positive.
      decay_rate: the base.
      staircase: default False.
      name: default ``"ExponentialDecay"`` (the name scope).
    """

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        decay_rate: Any,
        staircase: bool = False,
        name: str | None = None,
    ):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Any:
        tf = _tf()
        with tf.name_scope(self.name or "ExponentialDecay") as name:
            lr = tf.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            decay_steps = tf.cast(self.decay_steps, dtype)
            decay_rate = tf.cast(self.decay_rate, dtype)
            p = tf.cast(step, dtype) / decay_steps
            if self.staircase:
                p = tf.floor(p)
            return tf.multiply(lr, tf.pow(decay_rate, p), name=name)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` for ``boundaries[i-1] < step <= boundaries[i]`` (``values[0]``
    up to ``boundaries[0]``, the last value past the last boundary).

    Args:
      boundaries: increasing numbers (cast to the step's dtype).
      values: one more than ``boundaries``. name: default ``"PiecewiseConstant"``.

    Raises:
      ValueError: ``len(boundaries) != len(values) - 1`` (TF's message).
    """

    def __init__(self, boundaries: Any, values: Any, name: str | None = None):
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of "
                f"values. Received: boundaries={boundaries} of length "
                f"{len(boundaries)}, and values={values} "
                f"of length {len(values)}."
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step: Any) -> Any:
        tf = _tf()
        with tf.name_scope(self.name or "PiecewiseConstant"):
            boundaries = [tf.convert_to_tensor(b) for b in tf.nest.flatten(self.boundaries)]
            values = [tf.convert_to_tensor(v) for v in tf.nest.flatten(self.values)]
            x = tf.convert_to_tensor(step)
            for i, b in enumerate(boundaries):
                if b.dtype.base_dtype != x.dtype.base_dtype:
                    boundaries[i] = tf.cast(b, x.dtype.base_dtype)
            pairs = [
                (x <= boundaries[0], lambda: values[0]),
                (x > boundaries[-1], lambda: values[-1]),
            ]
            for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1], strict=True):
                pairs.append(((x > low) & (x <= high), lambda v=v: v))
            return tf.case(pairs, lambda: values[0], exclusive=True)

    def get_config(self) -> dict[str, Any]:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, the step held at
    ``decay_steps`` (or, with ``cycle``, ``decay_steps`` multiplied by
    ``ceil(step / decay_steps)``).

    Args:
      initial_learning_rate: a number or tensor.
      decay_steps: positive.
      end_learning_rate: default 0.0001.
      power: default 1.0.
      cycle: default False.
      name: default ``"PolynomialDecay"``.
    """

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        end_learning_rate: Any = 0.0001,
        power: Any = 1.0,
        cycle: bool = False,
        name: str | None = None,
    ):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step: Any) -> Any:
        tf = _tf()
        with tf.name_scope(self.name or "PolynomialDecay") as name:
            lr = tf.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            end = tf.cast(self.end_learning_rate, dtype)
            power = tf.cast(self.power, dtype)
            step_r = tf.cast(step, dtype)
            decay_steps = tf.cast(self.decay_steps, dtype)
            if self.cycle:
                multiplier = tf.where(
                    tf.equal(step_r, 0), 1.0, tf.math.ceil(step_r / self.decay_steps)
                )
                decay_steps = tf.multiply(decay_steps, multiplier)
            else:
                step_r = tf.minimum(step_r, decay_steps)
            p = tf.divide(step_r, decay_steps)
            return tf.add(tf.multiply(lr - end, tf.pow(1 - p, power)), end, name=name)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (the ratio
    floored with ``staircase``).

    Args:
      initial_learning_rate: a number or tensor.
      decay_steps: positive.
      decay_rate: the rate.
      staircase: default False.
      name: default ``"InverseTimeDecay"``.
    """

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        decay_rate: Any,
        staircase: bool = False,
        name: str | None = None,
    ):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Any:
        tf = _tf()
        with tf.name_scope(self.name or "InverseTimeDecay") as name:
            lr = tf.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            decay_steps = tf.cast(self.decay_steps, dtype)
            decay_rate = tf.cast(self.decay_rate, dtype)
            p = tf.cast(step, dtype) / decay_steps
            if self.staircase:
                p = tf.floor(p)
            const = tf.cast(tf.constant(1), dtype)
            denom = tf.add(const, tf.multiply(decay_rate, p))
            return tf.divide(lr, denom, name=name)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class CosineDecay(LearningRateSchedule):
    """Cosine decay from ``initial_learning_rate`` over ``decay_steps`` to
    ``alpha * initial_learning_rate``::

        decayed = (1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha
        lr = initial_learning_rate * decayed

    With ``warmup_target``: a linear warmup from ``initial_learning_rate`` to
    ``warmup_target`` over ``warmup_steps``, then the decay from ``warmup_target``.

    Args:
      initial_learning_rate: a number or tensor.
      decay_steps: positive.
      alpha: default 0.0.
      name: default ``"CosineDecay"``.
      warmup_target: default None.
      warmup_steps: default 0.
    """

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        alpha: Any = 0.0,
        name: str | None = None,
        warmup_target: Any = None,
        warmup_steps: Any = 0,
    ):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decay_function(self, step: Any, decay_steps: Any, decay_from_lr: Any, dtype: Any) -> Any:
        tf = _tf()
        with tf.name_scope(self.name or "CosineDecay"):
            completed_fraction = step / decay_steps
            tf_pi = tf.constant(math.pi, dtype=dtype)
            cosine_decayed = 0.5 * (1.0 + tf.cos(tf_pi * completed_fraction))
            decayed = (1 - self.alpha) * cosine_decayed + self.alpha
            return tf.multiply(decay_from_lr, decayed)

    def _warmup_function(self, step: Any, warmup_steps: Any, target: Any, initial: Any) -> Any:
        tf = _tf()
        with tf.name_scope(self.name or "CosineDecay"):
            completed_fraction = step / warmup_steps
            total_step_delta = target - initial
            return total_step_delta * completed_fraction + initial

    def __call__(self, step: Any) -> Any:
        tf = _tf()
        with tf.name_scope(self.name or "CosineDecay"):
            lr = tf.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            decay_steps = tf.cast(self.decay_steps, dtype)
            step_r = tf.cast(step, dtype)
            if self.warmup_target is None:
                step_r = tf.minimum(step_r, decay_steps)
                return self._decay_function(step_r, decay_steps, lr, dtype)
            target = tf.cast(self.warmup_target, dtype)
            warmup_steps = tf.cast(self.warmup_steps, dtype)
            step_r = tf.minimum(step_r, decay_steps + warmup_steps)
            return tf.cond(
                step_r < warmup_steps,
                lambda: self._warmup_function(step_r, warmup_steps, target, lr),
                lambda: self._decay_function(step_r - warmup_steps, decay_steps, target, dtype),
            )

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods of ``first_decay_steps``
    growing by ``t_mul``, each restart's rate scaled by ``m_mul``, down to
    ``alpha * initial_learning_rate`` in each period.

    Args:
      initial_learning_rate: a number or tensor.
      first_decay_steps: the first period's length.
      t_mul: default 2.0.
      m_mul: default 1.0.
      alpha: default 0.0.
      name: default ``"SGDRDecay"``.
    """

    def __init__(
        self,
        initial_learning_rate: Any,
        first_decay_steps: Any,
        t_mul: Any = 2.0,
        m_mul: Any = 1.0,
        alpha: Any = 0.0,
        name: str | None = None,
    ):
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step: Any) -> Any:
        tf = _tf()
        with tf.name_scope(self.name or "SGDRDecay") as name:
            lr = tf.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            first_decay_steps = tf.cast(self.first_decay_steps, dtype)
            alpha = tf.cast(self.alpha, dtype)
            t_mul = tf.cast(self._t_mul, dtype)
            m_mul = tf.cast(self._m_mul, dtype)
            fraction = tf.cast(step, dtype) / first_decay_steps

            def compute_step(fraction: Any, geometric: bool = False) -> Any:
                if geometric:
                    i_restart = tf.floor(
                        tf.math.log(1.0 - fraction * (1.0 - t_mul)) / tf.math.log(t_mul)
                    )
                    sum_r = (1.0 - t_mul**i_restart) / (1.0 - t_mul)
                    fraction = (fraction - sum_r) / t_mul**i_restart
                else:
                    i_restart = tf.floor(fraction)
                    fraction -= i_restart
                return i_restart, fraction

            i_restart, fraction = tf.cond(
                tf.equal(t_mul, 1.0),
                lambda: compute_step(fraction, geometric=False),
                lambda: compute_step(fraction, geometric=True),
            )
            m_fac = m_mul**i_restart
            cosine_decayed = (
                0.5 * m_fac * (1.0 + tf.cos(tf.constant(math.pi, dtype=dtype) * fraction))
            )
            decayed = (1 - alpha) * cosine_decayed + alpha
            return tf.multiply(lr, decayed, name=name)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self._t_mul,
            "m_mul": self._m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


def _classes() -> dict[str, type]:
    return {
        c.__name__: c
        for c in LearningRateSchedule.__subclasses__()
        if not c.__name__.startswith("_")
    }


def serialize(learning_rate_schedule: Any, use_legacy_format: bool = False) -> dict[str, Any]:
    """``{"module", "class_name", "config", "registered_name"}`` of a schedule."""
    name = type(learning_rate_schedule).__name__
    if use_legacy_format:
        return {"class_name": name, "config": learning_rate_schedule.get_config()}
    return {
        "module": "keras.optimizers.schedules",
        "class_name": name,
        "config": learning_rate_schedule.get_config(),
        "registered_name": None,
    }


def deserialize(
    config: dict[str, Any], custom_objects: Any = None, use_legacy_format: bool = False
) -> Any:
    """The schedule of a :func:`serialize` dict.

    Raises:
      ValueError: an unknown class name.
    """
    classes = dict(_classes())
    classes.update(custom_objects or {})
    name = config["class_name"]
    if name not in classes:
        raise ValueError(f"Unknown decay: '{name}'.")
    return classes[name].from_config(dict(config["config"]))
