"""TF1's queue-based input pipelines (``tf.train.string_input_producer``, ``batch``...).

A port of TF's ``tensorflow/python/training/input.py`` over the host queues of
``adapters.v1.ops.data_flow_ops``: producers fill a queue of file names (or
indices, or slices) epoch after epoch, readers and decoders run as host
operations in queue-runner threads, and ``batch``/``shuffle_batch`` dequeue
``[batch_size, ...]`` NumPy arrays that enter the training step like feeds.
After ``num_epochs`` (a local variable counter, as TF) the producer's enqueue
raises ``OutOfRangeError``, its runner closes the queue, and the batch's
dequeue raises ``OutOfRangeError`` once the rest is consumed.

.. note:: TF's ``fraction_of_N_full`` queue summaries are not written.
"""

from __future__ import annotations

import glob as _glob
from collections.abc import Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops import data_flow_ops
from adapters.v1.ops.data_flow_ops import host_inputs, placement, session_state
from adapters.v1.training import queue_runner_impl as queue_runner
from jtrain import errors

__all__ = [
    "match_filenames_once",
    "limit_epochs",
    "input_producer",
    "string_input_producer",
    "range_input_producer",
    "slice_input_producer",
    "batch",
    "maybe_batch",
    "batch_join",
    "maybe_batch_join",
    "shuffle_batch",
    "maybe_shuffle_batch",
    "shuffle_batch_join",
    "maybe_shuffle_batch_join",
]


def _host_op(op_type: str, name: str, inputs: list, compute: Any, specs: list):
    tensors = host_inputs(inputs)
    return ops.get_default_graph().create_op(
        op_type,
        name,
        inputs=tensors,
        compute=compute,
        output_specs=specs,
        host=placement(tensors),
    )


def match_filenames_once(pattern: Any, name: str | None = None) -> ops.Tensor:
    """The sorted files matching ``pattern`` (a glob or list of globs), found once per session.

    .. note:: TF keeps the list in a local variable (initialized by
       ``local_variables_initializer``); here a host op globs at its first run in
       each session and keeps the result, needing no initializer.
    """
    patterns = [pattern] if isinstance(pattern, (str, bytes)) else list(pattern)
    patterns = [p.decode() if isinstance(p, bytes) else str(p) for p in patterns]
    key = object()

    def compute(session):
        def find():
            files = sorted({f for p in patterns for f in _glob.glob(p)})
            out = np.empty(len(files), dtype=object)
            out[:] = [f.encode() for f in files]
            return out

        return (session_state(session, key, find),)

    with ops.name_scope(name, "matching_filenames", []) as scope:
        return (
            ops.get_default_graph()
            .create_op(
                "MatchingFiles",
                scope or "matching_filenames",
                compute=compute,
                output_specs=[((None,), np.dtype(object))],
                host="pre",
            )
            .outputs[0]
        )


def limit_epochs(tensor: Any, num_epochs: int | None = None, name: str | None = None):
    """``tensor``, which raises ``OutOfRangeError`` after it was produced ``num_epochs`` times.

    The count is the local variable ``epochs`` (int64, collection
    ``LOCAL_VARIABLES``): run ``tf.local_variables_initializer()`` first.

    Raises:
      ValueError: ``num_epochs <= 0``.
    """
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    from adapters.v1.ops.variables import Variable

    with ops.name_scope(name, "limit_epochs", [tensor]) as scope:
        epochs = Variable(
            np.asarray(0, np.int64),
            name="epochs",
            trainable=False,
            collections=[ops.GraphKeys.LOCAL_VARIABLES],
        )
        limit = int(num_epochs)

        def compute(session, value):
            store = session.variable_store
            with store.locked():  # read and increment as one change
                if not store.is_initialized(epochs):
                    raise errors.FailedPreconditionError(
                        None,
                        None,
                        f"Attempting to use uninitialized value {epochs.op.name}: run "
                        "tf.local_variables_initializer() first.",
                    )
                count = int(store.read(epochs))
                if count >= limit:
                    raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
                store.write(epochs, np.asarray(count + 1, dtype=epochs.dtype))
            return (value,)

        (t,) = host_inputs([tensor])
        return _host_op(
            "LimitEpochs", scope[:-1] + "/", [t], compute, [(t._shape, t.dtype)]
        ).outputs[0]


def _shuffle(tensor: ops.Tensor, seed: int | None) -> ops.Tensor:
    key = object()

    def compute(session, value):
        rng = session_state(session, key, lambda: np.random.default_rng(seed))
        return (value[rng.permutation(len(value))],)

    return _host_op(
        "RandomShuffle", "RandomShuffle", [tensor], compute, [(tensor._shape, tensor.dtype)]
    ).outputs[0]


def input_producer(
    input_tensor: Any,
    element_shape: Any = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    summary_name: str | None = None,
    name: str | None = None,
    cancel_op: Any = None,
):
    """A queue fed, epoch after epoch, with the rows of ``input_tensor``, run by a ``QueueRunner``.

    Args:
      input_tensor: the rows to produce (first dimension), a tensor or value.
      element_shape: a row's shape when ``input_tensor``'s is not fully known.
      num_epochs: produce each row this many times, then ``OutOfRangeError``
        (default: forever).
      shuffle: shuffle the rows within each epoch (default True).
      seed: as TF.
      capacity: as TF (default 32).
      shared_name: as TF.
      name: as TF.
      cancel_op: as TF.
      summary_name: accepted; no summary is written.

    Returns:
      The ``FIFOQueue`` (a ``QueueRunner`` for it is in ``QUEUE_RUNNERS``).

    Raises:
      ValueError: the row shape is not fully defined.
    """
    del summary_name
    with ops.name_scope(name, "input_producer", [input_tensor]) as scope:
        (input_tensor,) = host_inputs([input_tensor])
        shape = input_tensor._shape
        row = None if shape is None else tuple(shape[1:])
        if element_shape is not None:
            element_shape = tuple(element_shape)
            if row is not None and len(row) != len(element_shape):
                raise ValueError(f"element_shape {element_shape} does not match {row}")
            row = (
                element_shape
                if row is None
                else tuple(
                    a if a is not None else b for a, b in zip(row, element_shape, strict=True)
                )
            )
        if row is None or any(d is None for d in row):
            raise ValueError(
                "Either `input_tensor` must have a fully defined shape or `element_shape` "
                "must be specified"
            )
        if shuffle:
            input_tensor = _shuffle(input_tensor, seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = data_flow_ops.FIFOQueue(
            capacity=capacity,
            dtypes=[input_tensor.dtype],
            shapes=[row],
            shared_name=shared_name,
            name=scope[:-1] + "/" if scope else "fifo_queue",
        )
        enq = q.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(q, [enq], cancel_op=cancel_op))
        return q


def string_input_producer(
    string_tensor: Any,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
    cancel_op: Any = None,
):
    """A queue of the strings (file names) of ``string_tensor``, for a reader.

    As ``input_producer`` with scalar string elements.

    Raises:
      ValueError: ``string_tensor`` is empty (at build time when it is a value,
        ``InvalidArgumentError`` at run time otherwise).
    """
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, ops.Tensor) and not len(string_tensor):
        raise ValueError(not_null_err)
    with ops.name_scope(name, "input_producer", [string_tensor]) as scope:
        (t,) = host_inputs([string_tensor])

        def check(session, value):
            if np.size(value) == 0:
                raise errors.InvalidArgumentError(None, None, f"assertion failed: [{not_null_err}]")
            return (data_flow_ops.to_host_array(value, np.dtype(object)),)

        t = _host_op("Assert", "Assert", [t], check, [(t._shape, np.dtype(object))]).outputs[0]
        return input_producer(
            t,
            element_shape=[],
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
            name=scope,
            cancel_op=cancel_op,
        )


def range_input_producer(
    limit: int,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
):
    """A queue of the integers ``0 .. limit-1`` (``int32``), as ``input_producer``.

    ``limit`` is a Python integer or a scalar integer tensor (read each time the
    queue runner enqueues an epoch, as TF's ``tf.range(limit)``).
    """
    with ops.name_scope(name, "input_producer", [limit]) as scope:
        if isinstance(limit, ops.Tensor) or hasattr(limit, "_as_graph_tensor"):
            (limit_t,) = host_inputs([limit])

            def arange(session, value):
                return (np.arange(int(np.asarray(value)), dtype=np.int32),)

            range_tensor = _host_op(
                "Range", "range", [limit_t], arange, [((None,), np.dtype(np.int32))]
            ).outputs[0]
        else:
            range_tensor = np.arange(int(limit), dtype=np.int32)
        return input_producer(
            range_tensor,
            [],
            num_epochs,
            shuffle,
            seed,
            capacity,
            shared_name,
            None,
            scope,
        )


def slice_input_producer(
    tensor_list: Sequence[Any],
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
):
    """One row (same index) of each tensor of ``tensor_list`` per dequeue.

    Returns:
      A list of tensors, the rows of ``tensor_list`` at an index from a
      ``range_input_producer`` queue.
    """
    tensor_list = list(tensor_list)
    if not tensor_list:
        raise ValueError("Expected at least one tensor in slice_input_producer().")
    with ops.name_scope(name, "input_producer", tensor_list):
        tensors = host_inputs(tensor_list)
        if tensors[0]._shape is None or not tensors[0]._shape or tensors[0]._shape[0] is None:
            raise ValueError("slice_input_producer needs tensors of known first dimension")
        queue = range_input_producer(
            tensors[0]._shape[0],
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
        )
        index = queue.dequeue()
        out = []
        for t in tensors:

            def gather(session, value, i):
                return (np.asarray(value)[int(i)],)

            spec = (None if t._shape is None else tuple(t._shape[1:]), t.dtype)
            out.append(_host_op("GatherV2", "GatherV2", [t, index], gather, [spec]).outputs[0])
        return out


# -- batching ----------
def _as_tensor_list(tensors: Any) -> list:
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors)]
    if isinstance(tensors, (list, tuple)):
        return list(tensors)
    return [tensors]


def _as_original_type(original: Any, dequeued: Any) -> Any:
    if isinstance(original, dict):
        if len(original) == 1:
            dequeued = [dequeued]
        return {k: dequeued[i] for i, k in enumerate(sorted(original))}
    return dequeued


def _validate(tensor_list: list) -> list[ops.Tensor]:
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return host_inputs(tensor_list)


def _validate_join(tensor_list_list: list) -> list[list[ops.Tensor]]:
    tensor_list_list = [host_inputs(tl) for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _dtypes(tensor_list_list: list) -> list:
    types = [t.dtype for t in tensor_list_list[0]]
    for other in tensor_list_list[1:]:
        if [t.dtype for t in other] != types:
            raise TypeError(
                f"Expected types to be consistent: {[str(t.dtype) for t in other]} vs. "
                f"{[str(t) for t in types]}."
            )
    return types


def _shapes(tensor_list_list: list, shapes: Any, enqueue_many: bool, dynamic_pad: bool):
    if shapes is not None:
        shapes = [tuple(None if d is None or d == -1 else int(d) for d in s) for s in shapes]
        if len(shapes) != len(tensor_list_list[0]):
            raise ValueError("shapes must have one entry per tensor")
        return shapes
    out = []
    for i in range(len(tensor_list_list[0])):
        shape = None
        for tl in tensor_list_list:
            s = tl[i]._shape
            if s is None:
                continue
            s = tuple(s[1:]) if enqueue_many else tuple(s)
            if shape is None:
                shape = s
            elif len(shape) == len(s):
                shape = tuple(a if a == b else None for a, b in zip(shape, s, strict=True))
        bad = shape is None or (not dynamic_pad and any(d is None for d in shape))
        if bad:
            raise ValueError(
                f"All shapes must be fully defined: {[t.shape for t in tensor_list_list[0]]}"
            )
        out.append(shape)
    return out


def _keep(keep_input: Any, enqueue_many: bool) -> Any:
    if isinstance(keep_input, (bool, np.bool_)):
        return None if keep_input else False
    shape = getattr(keep_input, "shape", np.shape(keep_input))
    if shape is not None:
        if enqueue_many and len(shape) != 1:
            raise ValueError("`keep_input` must be a vector when `enqueue_many` is True.")
        if not enqueue_many and len(shape) != 0:
            raise ValueError("`keep_input` must be a scalar when `enqueue_many` is False.")
    return keep_input


def _enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    """One enqueue op run by ``threads`` threads (TF's ``_enqueue``: one op, repeated)."""
    op = queue._enqueue_op(
        tensor_list, enqueue_many, None, keep_input=_keep(keep_input, enqueue_many)
    )
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, [op] * int(threads)))


def _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    keep = _keep(keep_input, enqueue_many)
    enqueue_ops = [
        queue._enqueue_op(tl, enqueue_many, None, keep_input=keep) for tl in tensor_list_list
    ]
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _batch(
    tensors,
    batch_size,
    keep_input,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list = _as_tensor_list(tensors)
    with ops.name_scope(name, "batch", tensor_list) as scope:
        tensor_list = _validate(tensor_list)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many, dynamic_pad)
        cls = data_flow_ops.PaddingFIFOQueue if dynamic_pad else data_flow_ops.FIFOQueue
        queue = cls(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope[:-1] + "/")
        return _as_original_type(tensors, dequeued)


def _batch_join(
    tensors_list,
    batch_size,
    keep_input,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list_list = [_as_tensor_list(t) for t in tensors_list]
    with ops.name_scope(name, "batch_join", []) as scope:
        tensor_list_list = _validate_join(tensor_list_list)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many, dynamic_pad)
        cls = data_flow_ops.PaddingFIFOQueue if dynamic_pad else data_flow_ops.FIFOQueue
        queue = cls(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope[:-1] + "/")
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list = _as_tensor_list(tensors)
    with ops.name_scope(name, "shuffle_batch", tensor_list) as scope:
        tensor_list = _validate(tensor_list)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many, False)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
            dtypes=types,
            shapes=shapes,
            shared_name=shared_name,
        )
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope[:-1] + "/")
        return _as_original_type(tensors, dequeued)


def _shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list_list = [_as_tensor_list(t) for t in tensors_list]
    with ops.name_scope(name, "shuffle_batch_join", []) as scope:
        tensor_list_list = _validate_join(tensor_list_list)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many, False)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
            dtypes=types,
            shapes=shapes,
            shared_name=shared_name,
        )
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope[:-1] + "/")
        return _as_original_type(tensors_list[0], dequeued)


def batch(
    tensors,
    batch_size,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Batches of ``batch_size`` from ``tensors`` (a list or dict), in order, via a queue.

    ``num_threads`` threads run the enqueue (order across threads is not
    deterministic); ``enqueue_many`` treats the first dimension as examples;
    ``dynamic_pad`` pads ``None`` dimensions per batch (``PaddingFIFOQueue``);
    ``allow_smaller_final_batch`` returns the last, smaller batch (first dimension
    unknown) instead of ``OutOfRangeError``.

    Returns:
      The batched tensors, structured as ``tensors`` (a one-element list gives a
      single tensor, as TF's).
    """
    return _batch(
        tensors,
        batch_size,
        True,
        num_threads,
        capacity,
        enqueue_many,
        shapes,
        dynamic_pad,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def maybe_batch(
    tensors,
    keep_input,
    batch_size,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """``batch`` enqueuing only when ``keep_input`` (a scalar; a vector if ``enqueue_many``)."""
    return _batch(
        tensors,
        batch_size,
        keep_input,
        num_threads,
        capacity,
        enqueue_many,
        shapes,
        dynamic_pad,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def batch_join(
    tensors_list,
    batch_size,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Batches from several lists of tensors, one enqueue thread per list."""
    return _batch_join(
        tensors_list,
        batch_size,
        True,
        capacity,
        enqueue_many,
        shapes,
        dynamic_pad,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def maybe_batch_join(
    tensors_list,
    keep_input,
    batch_size,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """``batch_join`` enqueuing only when ``keep_input``."""
    return _batch_join(
        tensors_list,
        batch_size,
        keep_input,
        capacity,
        enqueue_many,
        shapes,
        dynamic_pad,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Batches in random order, through a ``RandomShuffleQueue`` keeping ``min_after_dequeue``.

    .. note:: The order for a ``seed`` differs from TF's (a different generator);
       the multiset of examples per epoch is the same.
    """
    return _shuffle_batch(
        tensors,
        batch_size,
        capacity,
        min_after_dequeue,
        True,
        num_threads,
        seed,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def maybe_shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """``shuffle_batch`` enqueuing only when ``keep_input``."""
    return _shuffle_batch(
        tensors,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input,
        num_threads,
        seed,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """``shuffle_batch`` from several lists of tensors, one enqueue thread per list."""
    return _shuffle_batch_join(
        tensors_list,
        batch_size,
        capacity,
        min_after_dequeue,
        True,
        seed,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def maybe_shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """``shuffle_batch_join`` enqueuing only when ``keep_input``."""
    return _shuffle_batch_join(
        tensors_list,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input,
        seed,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        shared_name,
        name,
    )
