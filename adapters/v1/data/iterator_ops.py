"""``tf.compat.v1.data.Iterator``: a dataset's elements, one ``get_next`` run at a time.

As in TF1, an iterator's state belongs to the session: each session holds its own
position (``data_flow_ops.session_state``). ``get_next()`` is a host operation
(``Graph.create_op(host="pre")``): it takes the next element from the session's
Python pipeline before the step's XLA program runs, and its values enter the
program as feeds do. At the end it raises ``tf.errors.OutOfRangeError``, so the
classic loop works::

    while True:
        try:
            sess.run(train_op)
        except tf.errors.OutOfRangeError:
            break

An initializable iterator's ``initializer`` (a host op too) starts the pipeline
again, reading the placeholders the dataset uses from that run's ``feed_dict``.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Iterator as PyIterator
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import (
    DatasetV1,
    Element,
    Failed,
    Run,
    check_arguments,
    passing_failures,
)
from adapters.v1.data.host_graph import HostGraph
from adapters.v1.data.structure import Spec
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape, as_shape, dims_text
from adapters.v1.ops.data_flow_ops import session_state
from jtrain import errors

__all__ = ["Iterator", "get_single_element"]


class _State:
    """One session's position in an iterator: the running pipeline, or None."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.elements: PyIterator[Element] | None = None


class _Pipeline:
    """What starting a dataset needs: the graph tensors it reads, evaluated on the host."""

    def __init__(self, dataset: DatasetV1):
        self.dataset = dataset
        captures: list[ops.Tensor] = []
        found: list[ops.Tensor] = []
        for d in dataset._all():
            captures.extend(t for t in d._captures() if t not in captures)
            found.extend(d._placeholders())
        self.captures = HostGraph(captures, [], "a tf.data dataset") if captures else None
        if self.captures:
            found = [*self.captures.placeholders, *found]
        # The placeholders the pipeline reads: fed with the iterator's initializer.
        self.placeholders = list(dict.fromkeys(found))

    def run(self, session: Any, fed: dict[ops.Tensor, Any]) -> Run:
        """A run of the dataset in ``session``: the tensors it reads evaluated, and the
        datasets' arguments checked with their values (``check_arguments``)."""
        known = dict(fed)
        if self.captures is not None:
            values = self.captures(session, [], known, {})
            known.update(zip(self.captures.outputs, values, strict=True))
        run = Run(session, known)
        run.markers = passing_failures(self.dataset)
        check_arguments(self.dataset, run)
        return run

    def start(self, session: Any, fed: dict[ops.Tensor, Any]) -> PyIterator[Element]:
        """The dataset's elements in ``session``, its placeholders' values ``fed``."""
        return self.dataset._elements(self.run(session, fed))


def _user_value(value: np.ndarray) -> Any:
    """A component as a fetch gives it: a string scalar is ``bytes``, as TF's."""
    return value.item() if value.dtype.kind == "O" and value.ndim == 0 else value


class Iterator(structure.Structured):
    """An iterator over a dataset's elements (``tf.compat.v1.data.Iterator``).

    Make one with ``dataset.make_one_shot_iterator()``,
    ``dataset.make_initializable_iterator()`` or ``Iterator.from_structure`` (then
    ``make_initializer(dataset)`` for each dataset it reads).
    """

    def __init__(self, element: Any, one_shot: _Pipeline | None = None):
        self._structure = element
        self._graph = ops.get_default_graph()
        self._one_shot_pipeline = one_shot
        self._initializer: ops.Operation | None = None
        self._handle_name: str | None = None

    # -- making iterators ----------------------------------------------------------------
    @classmethod
    def _one_shot(cls, dataset: DatasetV1) -> Iterator:
        pipeline = _Pipeline(dataset)
        if pipeline.placeholders:
            p = pipeline.placeholders[0]
            raise ValueError(
                f"Cannot capture a placeholder (name:{p.op.name}, type:Placeholder) by value: "
                "use make_initializable_iterator() and feed it when running its initializer."
            )
        for d in dataset._all():
            node = d._stateful_node()
            if node is not None:
                raise ValueError(
                    f"Cannot capture a stateful node (name:{node}, type:{node}) by value.: A "
                    "likely cause of this error is that the dataset for which you are calling "
                    "`make_one_shot_iterator()` captures a stateful object, such as a "
                    "`tf.Variable` or `tf.lookup.StaticHashTable`, which is not supported. Use "
                    "`make_initializable_iterator()` instead."
                )
        from adapters.v1.ops.random_ops import get_seed

        # TF takes an op seed here (the graph seed of its dataset function): under
        # tf.set_random_seed, unseeded random ops made after it get the next ones.
        get_seed(None)
        return cls(dataset._structure, one_shot=pipeline)

    @classmethod
    def _initializable(cls, dataset: DatasetV1) -> Iterator:
        iterator = cls(dataset._structure)
        iterator._initializer = iterator.make_initializer(dataset)
        return iterator

    @staticmethod
    def from_structure(
        output_types: Any,
        output_shapes: Any = None,
        shared_name: str | None = None,
        output_classes: Any = None,
    ) -> Iterator:
        """An iterator not bound to a dataset: ``make_initializer(dataset)`` binds one.

        Args:
          output_types: the elements' ``DType``s, nested as the elements.
          output_shapes: their shapes (default: unknown), nested likewise.
          shared_name: accepted, unused (one process).
          output_classes: accepted (``tf.Tensor`` components only).

        Raises:
          TypeError: ``output_shapes`` nested differently from ``output_types``.
        """
        if output_shapes is None:
            output_shapes = structure.map_structure(lambda _: None, output_types)
        if not structure.same_structure(output_types, output_shapes):
            raise TypeError("output_shapes must have the structure of output_types")
        element = structure.map_structure(
            lambda t, s: Spec.of(as_shape(s), t), output_types, output_shapes
        )
        return Iterator(element)

    def make_initializer(self, dataset: DatasetV1, name: str | None = None) -> ops.Operation:
        """An op (re)starting this iterator on ``dataset`` in the session that runs it.

        Raises:
          ValueError: ``dataset``'s elements nest otherwise (another number of
            components, a component for a structure), TF's ``nest`` message.
          TypeError: another kind of structure (a dict for a tuple), other types, or
            incompatible shapes.
        """
        from adapters.v1 import nest

        try:
            nest.assert_same_structure(self.output_types, dataset.output_types)
        except (TypeError, ValueError) as e:  # tf.data's nest: without the dotted lines
            raise type(e)(str(e).split("\nEntire first structure:")[0]) from None
        if self.output_types != dataset.output_types:
            raise TypeError(
                f"Expected output types {self.output_types} but got dataset with output types "
                f"{dataset.output_types}."
            )
        for mine, theirs in zip(
            structure.flatten(self.output_shapes),
            structure.flatten(dataset.output_shapes),
            strict=True,
        ):
            if not mine.is_compatible_with(theirs):
                raise TypeError(
                    f"Expected output shapes compatible with {self.output_shapes} but got "
                    f"dataset with output shapes {dataset.output_shapes}."
                )
        pipeline = _Pipeline(dataset)
        iterator = self

        def compute(session: Any, *fed: Any) -> tuple[()]:
            state = iterator._state(session)
            elements = pipeline.start(session, dict(zip(pipeline.placeholders, fed, strict=True)))
            with state.lock:
                state.elements = elements
            return ()

        return self._graph.create_op(
            "MakeIterator",
            name or "MakeIterator",
            inputs=pipeline.placeholders,
            compute=compute,
            host="pre",
        )

    # -- using them ----------------------------------------------------------------------
    @property
    def initializer(self) -> ops.Operation:
        """The op (re)starting an initializable iterator.

        Raises:
          ValueError: a one-shot iterator, or one from ``from_structure`` (use
            ``make_initializer``).
        """
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def _state(self, session: Any) -> _State:
        state: _State = session_state(session, self, _State)
        return state

    def get_next(self, name: str | None = None) -> Any:
        """Tensors of the next element, nested as the elements, with their static shapes.

        Each run of an op reading them takes one element. Raises at run time
        ``OutOfRangeError`` at the end of the dataset, and ``FailedPreconditionError``
        for an initializable iterator not yet initialized in the session.
        """
        specs = structure.tensor_specs(self._structure, "Iterator.get_next")
        iterator = self

        def compute(session: Any) -> tuple[Any, ...]:
            return iterator._next(session)

        op = self._graph.create_op(
            "IteratorGetNext",
            name or "IteratorGetNext",
            compute=compute,
            output_specs=[(s.shape, s.dtype) for s in specs],
            host="pre",
        )
        return structure.pack(self._structure, list(op.outputs))

    def get_next_as_optional(self) -> Any:
        """The next element as a ``tf.data.experimental.Optional``, empty at the end
        (see ``tf.data.experimental.get_next_as_optional``)."""
        from adapters.v1.data.optional_ops import get_next_as_optional

        return get_next_as_optional(self)

    def _next(self, session: Any) -> tuple[Any, ...]:
        """The next element in ``session``, as a fetch gives its components."""
        state = self._state(session)
        with state.lock:
            if state.elements is None:
                if self._one_shot_pipeline is None:
                    raise errors.FailedPreconditionError(
                        None,
                        None,
                        "GetNext() failed because the iterator has not been initialized. "
                        "Ensure that you have run the initializer operation for this "
                        "iterator before getting the next element.",
                    )
                state.elements = self._one_shot_pipeline.start(session, {})
            try:
                element = next(state.elements)
            except StopIteration:
                raise errors.OutOfRangeError(None, None, "End of sequence") from None
            except errors.OutOfRangeError:
                raise
            except Exception as e:
                # The pipeline stopped at an error its datasets do not pass on (TF's may go
                # on with the next element): the next get_next says so, not a silent end.
                if not isinstance(state.elements, _Stopped):
                    state.elements = _Stopped(e)
                raise
        if isinstance(element, Failed):  # this element's error; the pipeline goes on
            raise element.error
        return tuple(_user_value(v) for v in element)

    def string_handle(self, name: str | None = None) -> ops.Tensor:
        """A scalar ``tf.string`` tensor naming this iterator, to feed a
        ``from_string_handle`` iterator's handle placeholder (TF1's feedable
        iterators: one ``get_next`` switching between datasets by the fed handle).
        """
        handle = np.asarray(self._handle().encode(), dtype=object)

        def compute(session: Any) -> tuple[Any]:
            return (handle,)

        op = self._graph.create_op(
            "IteratorToStringHandle",
            name or "IteratorToStringHandle",
            compute=compute,
            output_specs=[((), dtypes.string)],
            host="pre",
        )
        return op.outputs[0]

    def _handle(self) -> str:
        if self._handle_name is None:
            self._handle_name = f"jtrain-iterator-{next(_handle_ids)}"
            _HANDLES[self._handle_name] = self
        return self._handle_name

    @staticmethod
    def from_string_handle(
        string_handle: Any, output_types: Any, output_shapes: Any = None, output_classes: Any = None
    ) -> Iterator:
        """An iterator whose ``get_next`` reads the iterator named by ``string_handle``
        (a scalar ``tf.string`` tensor, usually a placeholder fed with the value of
        another iterator's ``string_handle()``).

        Args:
          string_handle: a scalar ``tf.string`` tensor.
          output_types: the elements' ``DType``s, nested as the elements.
          output_shapes: their shapes (default: unknown), nested likewise.
          output_classes: accepted (``tf.Tensor`` components only).

        Raises:
          TypeError: ``string_handle`` is not a string tensor.
          InvalidArgumentError: at ``get_next``, a handle naming no iterator, or one
            whose elements have another number of components, other types or
            incompatible shapes, with TF's messages. As TF, components are compared
            flat: an iterator of ``{"a": x, "b": y}`` elements reads as ``(x, y)``.
        """
        handle = ops.convert_to_tensor(string_handle)
        if handle.dtype != dtypes.string:
            raise TypeError(f"string_handle must be a tf.string tensor, got {handle.dtype}")
        template = Iterator.from_structure(output_types, output_shapes)
        return _FeedableIterator(template._structure, handle)


_HANDLES: weakref.WeakValueDictionary[str, Iterator] = weakref.WeakValueDictionary()
_handle_ids = itertools.count(1)


def _type_text(dtype: dtypes.DType) -> str:
    """A dtype as TF's kernels write it in messages (``DataTypeString``: ``float``)."""
    return {"float16": "half", "float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


def _shape_text(shape: TensorShape) -> str:
    """A shape as TF's kernels write it in messages (``<unknown>``, ``[?,2]``)."""
    if shape.rank is None:
        return "<unknown>"
    return dims_text(shape.as_list())


class _Stopped:
    """The elements of a pipeline stopped by an error: each ``next`` says so."""

    def __init__(self, error: Exception):
        self.error = error

    def __iter__(self) -> _Stopped:
        return self

    def __next__(self) -> Element:
        error = self.error
        raise errors.FailedPreconditionError(
            None,
            None,
            f"jtrain's tf.data pipeline stopped at an earlier error ({type(error).__name__}: "
            f"{error}); TF may go on with the next element: re-initialize the iterator, or "
            "drop failing elements with tf.data.experimental.ignore_errors()",
        )


class _FeedableIterator(Iterator):
    """``Iterator.from_string_handle``: ``get_next`` reads the iterator the fed handle
    names, in the session that runs it."""

    def __init__(self, element: Any, handle: ops.Tensor):
        super().__init__(element)
        self._string_handle = handle

    def get_next(self, name: str | None = None) -> Any:
        specs: list[Spec] = structure.flatten(self._structure)
        feedable = self

        def compute(session: Any, handle: Any) -> tuple[Any, ...]:
            return feedable._target(handle)._next(session)

        op = self._graph.create_op(
            "IteratorGetNext",
            name or "IteratorGetNext",
            inputs=[self._string_handle],
            compute=compute,
            output_specs=[(s.shape, s.dtype) for s in specs],
            host="pre",
        )
        return structure.pack(self._structure, list(op.outputs))

    def _target(self, handle: Any) -> Iterator:
        """The iterator ``handle`` names, checked as TF's ``IteratorFromStringHandle``:
        component by component (any nesting of the same flat types and shapes reads)."""
        value = np.asarray(handle, dtype=object).item() if not isinstance(handle, bytes) else handle
        name = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
        target = _HANDLES.get(name)
        if target is None:
            # TF parses the handle as a ResourceHandle proto: an empty one parses, with
            # no device
            raise errors.InvalidArgumentError(
                None,
                None,
                'Attempted create an iterator on device "/job:localhost/replica:0/task:0/'
                'device:CPU:0" from handle defined on device ""'
                if not name
                else "Could not parse string_handle as a valid ResourceHandle",
            )
        mine: list[Spec] = structure.flatten(self._structure)
        theirs: list[Spec] = structure.flatten(target._structure)
        if len(mine) != len(theirs):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Number of components does not match: expected {len(mine)} types but got "
                f"{len(theirs)}.",
            )
        for i, (want, got) in enumerate(zip(mine, theirs, strict=True)):
            if want.dtype != got.dtype:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Data type mismatch at component {i}: expected {_type_text(want.dtype)} "
                    f"but got {_type_text(got.dtype)}.",
                )
        for i, (want, got) in enumerate(zip(mine, theirs, strict=True)):
            if not want.shape.is_compatible_with(got.shape):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Incompatible shapes at component {i}: expected {_shape_text(want.shape)} "
                    f"but got {_shape_text(got.shape)}.",
                )
        return target

    def string_handle(self, name: str | None = None) -> ops.Tensor:
        """The handle tensor this iterator reads (as TF's, a feedable iterator's handle
        is the one it was made from)."""
        return self._string_handle


def get_single_element(dataset: DatasetV1) -> Any:
    """Tensors of the only element of ``dataset``
    (``tf.data.experimental.get_single_element``); each run runs the dataset.

    Raises:
      InvalidArgumentError: at run time, a dataset without element or with more than one.
    """
    if not isinstance(dataset, DatasetV1):
        raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
    pipeline = _Pipeline(dataset)
    specs = structure.tensor_specs(dataset._structure, "get_single_element")

    def compute(session: Any, *fed: Any) -> tuple[Any, ...]:
        elements = pipeline.start(session, dict(zip(pipeline.placeholders, fed, strict=True)))
        first = next(elements, None)
        if first is None:
            raise errors.InvalidArgumentError(None, None, "Dataset was empty.")
        if isinstance(first, Failed):
            raise first.error
        if next(elements, None) is not None:
            raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
        return tuple(_user_value(v) for v in first)

    op = ops.get_default_graph().create_op(
        "DatasetToSingleElement",
        "DatasetToSingleElement",
        inputs=pipeline.placeholders,
        compute=compute,
        output_specs=[(s.shape, s.dtype) for s in specs],
        host="pre",
    )
    return structure.pack(dataset._structure, list(op.outputs))


def cardinality(dataset: DatasetV1) -> ops.Tensor:
    """A ``tf.int64`` scalar tensor of ``dataset``'s cardinality as TF computes it
    (``Dataset.cardinality``), computed on the host when it runs."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
    pipeline = _Pipeline(dataset)

    def compute(session: Any, *fed: Any) -> tuple[Any, ...]:
        run = pipeline.run(session, dict(zip(pipeline.placeholders, fed, strict=True)))
        return (_user_value(np.asarray(dataset._cardinality(run), np.int64)),)

    op = ops.get_default_graph().create_op(
        "DatasetCardinality",
        "DatasetCardinality",
        inputs=pipeline.placeholders,
        compute=compute,
        output_specs=[((), dtypes.int64)],
        host="pre",
    )
    return op.outputs[0]


def make_one_shot_iterator(dataset: DatasetV1) -> Iterator:
    """``dataset.make_one_shot_iterator()`` (``tf.compat.v1.data.make_one_shot_iterator``)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset: DatasetV1, shared_name: str | None = None) -> Iterator:
    """``dataset.make_initializable_iterator()``
    (``tf.compat.v1.data.make_initializable_iterator``)."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator: Any) -> Any:
    """The ``output_types`` of a dataset or iterator."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    """The ``output_shapes`` of a dataset or iterator."""
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator: Any) -> Any:
    """The ``output_classes`` of a dataset or iterator."""
    return dataset_or_iterator.output_classes
