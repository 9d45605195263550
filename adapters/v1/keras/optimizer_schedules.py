"""``tf.keras.optimizers.schedules``: learning-rate schedules of Keras' optimizers.

A schedule is called with the optimizer's step (``iterations`` cast to the
variable's dtype) and returns the learning rate as a graph tensor, built from
TF's ops as ``tf_keras``' ``learning_rate_schedule`` builds it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LearningRateSchedule", "deserialize", "serialize"]


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
