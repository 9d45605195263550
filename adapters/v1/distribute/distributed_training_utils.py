"""Keras' array loops under a ``tf.distribute`` strategy: what TF's distributed loop refuses.

TF 2.21's legacy Keras runs ``fit``/``evaluate``/``predict`` of a model compiled under
a strategy's ``scope()`` through its distributed loop (``training_distributed_v1``),
which turns NumPy arrays into a ``tf.data`` pipeline: ``Dataset.shuffle(max(1024,
8 * batch_size))`` when shuffling, ``repeat(epochs)``, ``batch(batch_size)``, and
``ceil(samples / batch_size)`` steps an epoch. Over one replica its values are the
plain loop's when the batch size divides the samples and ``fit`` does not shuffle;
a shuffle draws another random order, from the same distribution when
the buffer holds every sample and no graph seed makes TF's order reproducible.

:func:`check_keras_arrays` raises TF's errors where TF's loop refuses the arguments,
and ``UnimplementedError`` where jtrain's loop would feed other batches than TF's
(batches that straddle epochs, TF's seeded or partial shuffles), so that nothing
changes silently.
"""

from __future__ import annotations

from typing import Any

from adapters.v1.distribute import distribute_lib
from adapters.v1.framework import ops
from jtrain import errors

__all__ = ["check_keras_arrays"]


def _unlike_tf(what: str) -> errors.UnimplementedError:
    return errors.UnimplementedError(
        None,
        None,
        f"Model.fit({what}) of a model compiled under a tf.distribute strategy: TF's "
        "distributed Keras loop feeds other batches than the plain loop here (tf.data's "
        "Dataset.shuffle, batches that cross epochs). Pass a batch_size that divides the "
        "number of samples (and shuffle=False under a graph seed), or compile the model "
        "outside the strategy's scope().",
    )


def check_keras_arrays(
    strategy: Any,
    mode: str,
    num_samples: int,
    batch_size: int | None,
    steps: int | None = None,
    shuffle: Any = False,
    validation_split: float = 0.0,
    class_weight: Any = None,
) -> None:
    """Raises what TF's distributed Keras loop raises for these array inputs.

    Args:
      strategy: the strategy the model was compiled under (None or the default
        strategy: nothing to check).
      mode: ``"train"`` (``fit``), ``"test"`` (``evaluate``) or ``"predict"``.
      num_samples: the number of samples of the arrays.
      batch_size: the ``batch_size`` given (None: TF takes ``min(num_samples, 32)``).
      steps: ``steps_per_epoch``/``steps`` given (default None).
      shuffle: ``fit``'s ``shuffle`` (default False).
      validation_split: ``fit``'s ``validation_split`` (default 0.0).
      class_weight: ``fit``'s ``class_weight`` (default None).

    Raises:
      ValueError: ``validation_split`` given; or, in ``evaluate``/``predict``, a batch
        size that does not divide the samples (TF's messages).
      NotImplementedError: ``class_weight`` given (TF's message).
      UnimplementedError: ``fit`` with a partial last batch, shuffling under a graph
        seed (TF's order is then reproducible: tf.data's, not NumPy's) or more samples
        than TF's shuffle buffer (``max(1024, 8 * batch_size)``), or arrays run by
        ``steps``: TF's batches differ from jtrain's.
    """
    if strategy is None or strategy is distribute_lib.default_strategy():
        return
    size = batch_size if batch_size is not None else min(num_samples, 32)
    if mode == "train":
        if validation_split:
            raise ValueError(
                "validation_split argument is not supported with distribution strategies."
            )
        if class_weight is not None:
            raise NotImplementedError(
                "`class_weight` is currently not supported when using tf.distribute.Strategy."
            )
        if steps is not None:
            raise _unlike_tf("steps_per_epoch=... with arrays")
        if shuffle and ops.get_default_graph().seed is not None:
            raise _unlike_tf(f"shuffle={shuffle!r} with a graph seed")
        if shuffle and num_samples > max(1024, 8 * size):
            raise _unlike_tf(f"shuffle={shuffle!r} of more samples than TF's shuffle buffer")
        if num_samples % size:
            raise _unlike_tf(f"batch_size={size} for {num_samples} samples")
        return
    if steps is not None:
        raise errors.UnimplementedError(
            None,
            None,
            f"Model.{'evaluate' if mode == 'test' else 'predict'}(arrays, steps=...) of a "
            "model compiled under a tf.distribute strategy: TF's distributed loop batches "
            "the arrays into `steps` batches; pass batch_size instead.",
        )
    if num_samples % size:
        raise ValueError(
            f"The number of samples {num_samples} is not divisible by batch size {size}."
        )
