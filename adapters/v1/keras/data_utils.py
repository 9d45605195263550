"""``tf.keras.utils.Sequence``: batches by index, as TF 2.21's legacy Keras.

``Model.fit``/``evaluate``/``predict`` (and the ``*_generator`` methods) take one as
TF's v1 engine does (``adapters.v1.keras.training.generator_iteration``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["Sequence"]


class Sequence:
    """A dataset as a sequence of whole batches: ``seq[i]`` is batch ``i``.

    Subclasses implement ``__getitem__`` (the batch at an index: ``x``, ``(x, y)`` or
    ``(x, y, sample_weight)``) and ``__len__`` (the number of batches); they may
    implement ``on_epoch_end`` to change the data between epochs.

    .. note:: As in TF, the two methods are not enforced when subclassing (no
       ``abc`` metaclass): calling a missing one raises ``NotImplementedError``.
    """

    def __getitem__(self, index: int) -> Any:
        """The batch at position ``index``.

        Raises:
          NotImplementedError: not implemented by the subclass.
        """
        raise NotImplementedError

    def __len__(self) -> int:
        """The number of batches.

        Raises:
          NotImplementedError: not implemented by the subclass.
        """
        raise NotImplementedError

    def on_epoch_end(self) -> None:
        """Called after each pass over the batches (by ``fit``, ``evaluate`` and
        ``predict`` with ``workers`` > 0); does nothing by default."""

    def __iter__(self) -> Iterator[Any]:
        """The batches in order, ``len(self)`` read once (no ``on_epoch_end``)."""
        for index in range(len(self)):
            yield self[index]
