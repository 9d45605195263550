"""``tf.DeviceSpec``: TF1's mutable device specification (TF's ``DeviceSpecV1``).

A device string ``/job:<name>/replica:<int>/task:<int>/device:<type>:<index>``
(each part optional, ``*`` for any index; ``cpu:0``/``gpu:1`` and ``CPU:0`` are
accepted as device parts) split into ``job``, ``replica``, ``task``,
``device_type`` and ``device_index``. TF1's spec is mutable: its attributes can
be set, ``parse_from_string`` and ``merge_from`` change it in place.

Device types TF knows are ``CPU``, ``GPU``, ``TPU``, ``CUSTOM`` and ``EPU`` (TF
adds its pluggable devices' types; jtrain has none).
"""

from __future__ import annotations

from typing import Any

__all__ = ["DeviceSpec"]

_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})
_FIELDS = ("job", "replica", "task", "device_type", "device_index")


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _number(value: Any) -> int | None:
    return None if value is None else int(value)


def _device_type(value: Any) -> str | None:
    return value.upper() if value in ("cpu", "gpu") else _text(value)


def _parse(spec: str | None) -> tuple[Any, Any, Any, Any, Any]:
    """``(job, replica, task, device_type, device_index)`` of a device string.

    Raises:
      ValueError: an unknown part, or two device parts (TF's messages).
    """
    job = replica = task = device_type = device_index = None
    for part in (spec or "").split("/"):
        fields = part.split(":")
        head, n = fields[0], len(fields)
        if n == 2 and head in ("job", "replica", "task"):
            if head == "job":
                job = fields[1]
            elif head == "replica":
                replica = fields[1]
            else:
                task = fields[1]
        elif n in (1, 2) and head.upper() in _DEVICE_TYPES or (n == 3 and head == "device"):
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: {spec}."
                )
            device_type, index = (head.upper(), fields[1:]) if n < 3 else (fields[1], fields[2:])
            if index and index[0] != "*":
                device_index = int(index[0])
        elif head != "":
            raise ValueError(
                f"Unknown attribute '{head}' is encountered while parsing the device spec: "
                f"'{spec}'."
            )
    return job, replica, task, device_type, device_index


class DeviceSpec:
    """A (partial) device specification, TF1's mutable ``tf.DeviceSpec``.

    Args:
      job: the job name (``"worker"``), or ``None``.
      replica: the replica index, or ``None``.
      task: the task index, or ``None``.
      device_type: ``"CPU"``, ``"GPU"``... (``"cpu"``/``"gpu"`` upper-cased), or ``None``.
      device_index: the device index, or ``None`` (any: ``*``).

    Raises:
      ValueError: ``replica``, ``task`` or ``device_index`` is not an integer.
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index")

    def __init__(
        self,
        job: str | None = None,
        replica: int | None = None,
        task: int | None = None,
        device_type: str | None = None,
        device_index: int | None = None,
    ) -> None:
        self.job, self.replica, self.task = job, replica, task
        self.device_type, self.device_index = device_type, device_index

    # -- fields (settable, as TF1's) ---------------------------------------------------
    @property
    def job(self) -> str | None:
        return self._job

    @job.setter
    def job(self, job: Any) -> None:
        self._job = _text(job)

    @property
    def replica(self) -> int | None:
        return self._replica

    @replica.setter
    def replica(self, replica: Any) -> None:
        self._replica = _number(replica)

    @property
    def task(self) -> int | None:
        return self._task

    @task.setter
    def task(self, task: Any) -> None:
        self._task = _number(task)

    @property
    def device_type(self) -> str | None:
        return self._device_type

    @device_type.setter
    def device_type(self, device_type: Any) -> None:
        self._device_type = _device_type(device_type)

    @property
    def device_index(self) -> int | None:
        return self._device_index

    @device_index.setter
    def device_index(self, device_index: Any) -> None:
        self._device_index = _number(device_index)

    # -- strings ------------------------------------------------------------------------
    def to_string(self) -> str:
        """The device string (``"/job:ps/task:0/device:CPU:*"``; ``""`` when empty)."""
        parts = []
        if self.job is not None:
            parts.append(f"/job:{self.job}")
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    @classmethod
    def from_string(cls, spec: str) -> DeviceSpec:
        """A new spec parsed from ``spec`` (see the module docstring).

        Raises:
          ValueError: an unknown part or two device parts.
        """
        return cls(*_parse(spec))

    def parse_from_string(self, spec: str) -> DeviceSpec:
        """Replaces every field by ``spec``'s (``None`` where absent); returns ``self``."""
        self.job, self.replica, self.task, self.device_type, self.device_index = _parse(spec)
        return self

    # -- merging ------------------------------------------------------------------------
    def _merged(self, dev: DeviceSpec) -> list[Any]:
        return [
            getattr(dev, f) if getattr(dev, f) is not None else getattr(self, f) for f in _FIELDS
        ]

    def merge_from(self, dev: DeviceSpec) -> None:
        """Sets the fields ``dev`` specifies (not ``None``) on this spec, in place."""
        self.job, self.replica, self.task, self.device_type, self.device_index = self._merged(dev)

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """A new spec: this one with the fields ``dev`` specifies."""
        return type(self)(*self._merged(dev))

    def replace(self, **kwargs: Any) -> DeviceSpec:
        """A new spec with the given fields replaced (``job=``, ``task=``...).

        Raises:
          TypeError: an unknown field name.
        """
        fields = {f: getattr(self, f) for f in _FIELDS}
        fields.update(kwargs)
        return type(self)(**fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())

    def __repr__(self) -> str:
        return (
            f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
            f"device_type={self.device_type}, device_index={self.device_index})>"
        )
